/*
 * backends/cpu/matrix_det.c - MatrixDeterminant over float and double:
 * an LU factorisation with partial pivoting per matrix of the batch (the
 * largest magnitude in the column below the diagonal, the first on ties; a
 * zero column is left in place), then the product of U's diagonal with the
 * sign of the row swaps, in the input's precision, as Eigen's
 * PartialPivLU computes TensorFlow's result.  An empty matrix has
 * determinant 1.
 */
#include <math.h>
#include <stdatomic.h>
#include <string.h>

#include "core/alloc.h"
#include "backends/cpu/cpu_tables.h"

#define DEFINE_DET(NAME, T, ABS)                                           \
  static T NAME(T *a, int64_t n) {                                         \
    int swaps = 0;                                                         \
    for (int64_t k = 0; k < n; k++) {                                      \
      int64_t p = k;                                                       \
      T best = ABS(a[k * n + k]);                                          \
      for (int64_t i = k + 1; i < n; i++)                                  \
        if (ABS(a[i * n + k]) > best) {                                    \
          best = ABS(a[i * n + k]);                                        \
          p = i;                                                           \
        }                                                                  \
      if (best != 0) {                                                     \
        if (p != k) {                                                      \
          for (int64_t j = 0; j < n; j++) {                                \
            T t = a[k * n + j];                                            \
            a[k * n + j] = a[p * n + j];                                   \
            a[p * n + j] = t;                                              \
          }                                                                \
          swaps++;                                                         \
        }                                                                  \
        for (int64_t i = k + 1; i < n; i++) a[i * n + k] /= a[k * n + k];  \
      }                                                                    \
      for (int64_t i = k + 1; i < n; i++) {                                \
        T l = a[i * n + k];                                                \
        for (int64_t j = k + 1; j < n; j++) a[i * n + j] -= l * a[k * n + j]; \
      }                                                                    \
    }                                                                      \
    T det = (swaps & 1) ? -1 : 1;                                          \
    for (int64_t k = 0; k < n; k++) det *= a[k * n + k];                   \
    return det;                                                            \
  }

DEFINE_DET(det_f32, float, fabsf)
DEFINE_DET(det_f64, double, fabs)

typedef struct {
  int is_double;
  const void *src;
  void *dst;
  int64_t n;
  atomic_int oom;
} det_job;

/* Matrices [begin, end) of the batch, each factored in a private copy. */
static void det_range(void *arg, int64_t begin, int64_t end) {
  det_job *j = arg;
  int64_t n = j->n;
  size_t es = j->is_double ? sizeof(double) : sizeof(float);
  size_t bytes = (size_t)(n * n) * es;
  void *a = tfs_malloc(bytes ? bytes : 1);
  if (!a) {
    atomic_store(&j->oom, 1);
    return;
  }
  for (int64_t m = begin; m < end; m++) {
    memcpy(a, (const char *)j->src + (size_t)m * bytes, bytes);
    if (j->is_double)
      ((double *)j->dst)[m] = det_f64(a, n);
    else
      ((float *)j->dst)[m] = det_f32(a, n);
  }
  tfs_free(a);
}

static void det_compute(tfs_kernel_ctx *c) {
  const tfs_tensor *x = c->inputs[0];
  int r = x->shape.rank;
  if (r < 2) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Input tensor 0 must have rank >= 2, got %d", r);
    return;
  }
  int64_t n = x->shape.dims[r - 1];
  if (x->shape.dims[r - 2] != n) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "Input matrix must be square.");
    return;
  }
  tfs_shape out = x->shape;
  out.rank = r - 2;
  tfs_tensor *o = tfs_kctx_alloc_output(c, 0, &out);
  if (!o || o->nelems == 0) return;
  int is_double = x->dtype == TFS_DOUBLE;
  if (n == 0) {
    for (int64_t m = 0; m < o->nelems; m++) {
      if (is_double)
        ((double *)o->data)[m] = 1;
      else
        ((float *)o->data)[m] = 1;
    }
    return;
  }
  /* n * n fits: the input holds that many elements per matrix */
  det_job j = {is_double, x->data, o->data, n, 0};
  int64_t cost = n < (1 << 20) ? n * n * n / 3 + 8 : (int64_t)1 << 60;
  tfs_kctx_parallel_for(c, o->nelems, cost, det_range, &j);
  if (atomic_load(&j.oom))
    tfs_kctx_fail(c, TFS_RESOURCE_EXHAUSTED, "out of memory");
}

const tfs_kernel_def tfs_cpu_kernels_matrix_det[] = {
    {"MatrixDeterminant", "CPU", "T",
     TFS_DT_BIT(TFS_FLOAT) | TFS_DT_BIT(TFS_DOUBLE), NULL, det_compute, NULL,
     0, NULL},
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL},
};
