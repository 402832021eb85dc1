/*
 * backends/cuda/cuda_blas.c - MatMul and BatchMatMul (V1, V2 with batch
 * broadcasting, V3) on cuBLAS: cublasGemmEx / cublasGemmStridedBatchedEx
 * with CUBLAS_COMPUTE_32F for float, half and bfloat16 (tensor cores for
 * the 16-bit types), CUBLAS_COMPUTE_64F for double.  Row-major tensors are
 * handed to the column-major BLAS as their transposes.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "core/status.h"
#include "backends/cuda/cuda_kernels.h"
#include "ops/batch_matmul_check.h"

typedef struct mm_state {
  tfs_cu_state base;
  int ta, tb;   /* MatMul transpose_a/b; BatchMatMul adj_x/adj_y */
  int version;  /* 0 MatMul, 1..3 BatchMatMul */
} mm_state;

static int mm_prepare(tfs_kernel_init *ki) {
  if (tfs_cu__prepare_sized(ki, sizeof(mm_state))) return -1;
  mm_state *s = ki->state;
  const char *op = ki->op->name;
  s->version = !strcmp(op, "MatMul") ? 0 : !strcmp(op, "BatchMatMul") ? 1
               : !strcmp(op, "BatchMatMulV2") ? 2 : 3;
  tfs_attrs_get_bool(ki->attrs, s->version ? "adj_x" : "transpose_a", &s->ta);
  tfs_attrs_get_bool(ki->attrs, s->version ? "adj_y" : "transpose_b", &s->tb);
  if (s->version == 3) s->base.type = tfs_cu__type(ki->in_types[0]);
  return 0;
}

/* BatchMatMulV3 on the GPU: one type for Ta, Tb and Tout. */
static int bmm3_accepts(const tfs_attrs *a) {
  tfs_dtype ta = TFS_INVALID, tb = TFS_INVALID, to = TFS_INVALID;
  tfs_attrs_get_type(a, "Ta", &ta);
  tfs_attrs_get_type(a, "Tb", &tb);
  tfs_attrs_get_type(a, "Tout", &to);
  return ta == tb && tb == to && tfs_cu__type(ta) >= 0;
}

typedef struct gemm_call {
  int64_t m, n, k;
  int ta, tb;
  const void *a, *b;
  void *c;
  int64_t batch, stride_a, stride_b, stride_c; /* batch 1: one GEMM */
} gemm_call;

/* C[m,n] = op(A) op(B) in row-major terms, as C^T = op(B)^T op(A)^T for
 * the column-major BLAS.  Caller holds d->lib_mu. */
static int gemm(tfs_cuda_dev *d, int type, const gemm_call *g,
                tfs_status *st) {
  cublasHandle_t h = tfs_cuda__blas(d, st);
  const tfs_cublas_api *b = h ? tfs_cuda__cublas(st) : NULL;
  if (!b) return -1;
  cudaDataType_t dt;
  cublasComputeType_t ct = CUBLAS_COMPUTE_32F;
  float f1 = 1.0f, f0 = 0.0f;
  double d1 = 1.0, d0 = 0.0;
  const void *alpha = &f1, *beta = &f0;
  switch (type) {
    case TFS_CU_F32: dt = CUDA_R_32F; break;
    case TFS_CU_F16: dt = CUDA_R_16F; break;
    case TFS_CU_BF16: dt = CUDA_R_16BF; break;
    default:
      dt = CUDA_R_64F;
      ct = CUBLAS_COMPUTE_64F;
      alpha = &d1;
      beta = &d0;
      break;
  }
  cublasOperation_t opa = g->ta ? CUBLAS_OP_T : CUBLAS_OP_N;
  cublasOperation_t opb = g->tb ? CUBLAS_OP_T : CUBLAS_OP_N;
  int lda = (int)(g->ta ? g->m : g->k), ldb = (int)(g->tb ? g->k : g->n);
  cublasStatus_t r;
  if (g->batch == 1)
    r = b->gemm_ex(h, opb, opa, (int)g->n, (int)g->m, (int)g->k, alpha, g->b,
                   dt, ldb, g->a, dt, lda, beta, g->c, dt, (int)g->n, ct,
                   CUBLAS_GEMM_DEFAULT);
  else
    r = b->gemm_strided_batched_ex(
        h, opb, opa, (int)g->n, (int)g->m, (int)g->k, alpha, g->b, dt, ldb,
        g->stride_b, g->a, dt, lda, g->stride_a, beta, g->c, dt, (int)g->n,
        g->stride_c, (int)g->batch, ct, CUBLAS_GEMM_DEFAULT);
  return tfs_cuda__check_blas(r, "cublasGemmEx", st);
}

static int too_large(int64_t m, int64_t n, int64_t k) {
  return m > INT_MAX || n > INT_MAX || k > INT_MAX;
}

/* Runs the GEMMs of `g` (k == 0: a zero output) on d. */
static void run_gemm(tfs_kernel_ctx *c, tfs_cu_state *s, gemm_call *g,
                     const tfs_tensor *o) {
  if (o->nelems == 0) return;
  tfs_status *st = tfs_status_new();
  if (!st) {
    tfs_cu__fail_status(c, NULL);
    return;
  }
  int rc;
  if (g->k == 0) {
    rc = tfs_cuda__check(cudaMemsetAsync(o->data, 0, o->nbytes,
                                         s->dev->compute),
                         "cudaMemsetAsync", st);
  } else {
    pthread_mutex_lock(&s->dev->lib_mu);
    rc = gemm(s->dev, s->type, g, st);
    pthread_mutex_unlock(&s->dev->lib_mu);
  }
  if (rc) tfs_cu__fail_status(c, st);
  tfs_status_free(st);
}

/* ---- MatMul --------------------------------------------------------------- */

static void matmul_compute(tfs_kernel_ctx *c) {
  mm_state *s = c->state;
  const tfs_tensor *a = c->inputs[0], *b = c->inputs[1];
  int64_t m, k, n;
  if (tfs_matmul_check(&a->shape, &b->shape, s->ta, s->tb, &m, &k, &n,
                       c->st)) {
    tfs_kctx_fail_status(c, c->st);
    return;
  }
  if (too_large(m, n, k)) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "MatMul dimensions too large");
    return;
  }
  if (tfs_cu__enter(c, s->base.dev)) return;
  tfs_shape os = {.rank = 2, .dims = {m, n}};
  tfs_tensor *o = tfs_cu__output(c, s->base.dev, 0, &os);
  if (!o) return;
  gemm_call g = {m, n, k, s->ta, s->tb, a->data, b->data, o->data, 1, 0, 0, 0};
  run_gemm(c, &s->base, &g, o);
}

/* ---- BatchMatMul ----------------------------------------------------------- */

/* TensorFlow's shape checks (ops/batch_matmul_check.c); the output
 * shape and the batch sizes of x, y and the output (x or y has 1 when it
 * broadcasts).  -1 after failing c. */
static int bmm_shape(tfs_kernel_ctx *c, const mm_state *s, tfs_shape *os,
                     int64_t *xb, int64_t *yb, int64_t *nb) {
  const tfs_tensor *x = c->inputs[0], *y = c->inputs[1];
  if (tfs_batch_matmul_check(&x->shape, &y->shape, s->version, s->ta, s->tb,
                             os, c->st)) {
    tfs_kctx_fail_status(c, c->st);
    return -1;
  }
  int rx = x->shape.rank, ry = y->shape.rank, rb = os->rank - 2;
  *xb = *yb = *nb = 1;
  for (int i = 0; i < rb; i++) {
    int ix = rx - 2 - rb + i, iy = ry - 2 - rb + i;
    *xb *= ix >= 0 ? x->shape.dims[ix] : 1;
    *yb *= iy >= 0 ? y->shape.dims[iy] : 1;
    *nb *= os->dims[i];
  }
  return 0;
}

static void bmm_compute(tfs_kernel_ctx *c) {
  mm_state *s = c->state;
  const tfs_tensor *x = c->inputs[0], *y = c->inputs[1];
  tfs_shape os;
  int64_t xb = 1, yb = 1, nb = 1;
  if (bmm_shape(c, s, &os, &xb, &yb, &nb)) return;
  int64_t m = os.dims[os.rank - 2], n = os.dims[os.rank - 1];
  int64_t k = x->shape.dims[x->shape.rank - (s->ta ? 2 : 1)];
  if (too_large(m, n, k) || nb > INT_MAX) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "BatchMatMul dimensions too large for the BLAS");
    return;
  }
  if (tfs_cu__enter(c, s->base.dev)) return;
  tfs_tensor *o = tfs_cu__output(c, s->base.dev, 0, &os);
  if (!o) return;
  size_t es = tfs_dtype__storage_size(o->dtype);
  gemm_call g = {m, n, k, s->ta, s->tb, x->data, y->data, o->data, nb,
                 xb == 1 ? 0 : m * k, yb == 1 ? 0 : k * n, m * n};
  if ((xb == nb || xb == 1) && (yb == nb || yb == 1)) {
    run_gemm(c, &s->base, &g, o);
    return;
  }
  /* Batch dims broadcast against each other: one GEMM per output matrix
   * at the offsets TensorFlow's BCast gives. */
  int rx = x->shape.rank, ry = y->shape.rank, rb = os.rank - 2;
  for (int64_t bi = 0; bi < nb && !c->failed; bi++) {
    int64_t rem = bi, ox = 0, oy = 0, sx = 1, sy = 1;
    for (int i = rb - 1; i >= 0; i--) {
      int64_t idx = rem % os.dims[i];
      rem /= os.dims[i];
      int ix = rx - 2 - rb + i, iy = ry - 2 - rb + i;
      int64_t dx = ix >= 0 ? x->shape.dims[ix] : 1;
      int64_t dy = iy >= 0 ? y->shape.dims[iy] : 1;
      if (dx != 1) ox += idx * sx;
      if (dy != 1) oy += idx * sy;
      sx *= dx;
      sy *= dy;
    }
    gemm_call one = {m, n, k, s->ta, s->tb,
                     (const char *)x->data + (size_t)(ox * m * k) * es,
                     (const char *)y->data + (size_t)(oy * k * n) * es,
                     (char *)o->data + (size_t)(bi * m * n) * es, 1, 0, 0, 0};
    run_gemm(c, &s->base, &one, o);
  }
}

static const tfs_cu_kdata kPlain = {0, NULL};
static const tfs_cu_kdata kBmm3 = {0, bmm3_accepts};

const tfs_kernel_def tfs_cuda_kernels_blas[] = {
    {"MatMul", "GPU", "T", TFS_CU_DT_FLOATS, mm_prepare, matmul_compute,
     free, TFS_KERNEL_EXPENSIVE, &kPlain},
    {"BatchMatMul", "GPU", "T", TFS_CU_DT_FLOATS, mm_prepare, bmm_compute,
     free, TFS_KERNEL_EXPENSIVE, &kPlain},
    {"BatchMatMulV2", "GPU", "T", TFS_CU_DT_FLOATS, mm_prepare, bmm_compute,
     free, TFS_KERNEL_EXPENSIVE, &kPlain},
    {"BatchMatMulV3", "GPU", "Ta", TFS_CU_DT_FLOATS, mm_prepare, bmm_compute,
     free, TFS_KERNEL_EXPENSIVE, &kBmm3},
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL},
};
