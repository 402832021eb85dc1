/*
 * backends/cpu/matmul.c - MatMul: float and bfloat16 on tfsess's GEMMs
 * (constant weights packed once at prepare time; bfloat16 accumulated in
 * float32 and rounded once), double on the BLAS split over the pool, half
 * through float, integers and complex with plain loops.
 */
#include <complex.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/half.h"
#include "backends/cpu/cpu_tables.h"
#include "backends/cpu/gemm.h"
#include "ops/batch_matmul_check.h"

typedef struct {
  int ta, tb;
  const tfs_tensor *b_const;  /* the Const tensor packed below */
  tfs_gemm_packed *b_packed;  /* op(B) of a constant float B, or NULL */
  tfs_gemm_packed_bf16 *b16;  /* op(B) of a constant bfloat16 B, or NULL */
} mm_state;

static int matmul_prepare(tfs_kernel_init *ki) {
  mm_state *s = tfs_calloc(1, sizeof(*s));
  if (!s) return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  tfs_attrs_get_bool(ki->attrs, "transpose_a", &s->ta);
  tfs_attrs_get_bool(ki->attrs, "transpose_b", &s->tb);
  const tfs_tensor *b = ki->in_consts ? ki->in_consts[1] : NULL;
  if (b && b->dtype == TFS_FLOAT && b->shape.rank == 2 && b->nelems > 0) {
    int64_t r = b->shape.dims[0], cols = b->shape.dims[1];
    s->b_packed = tfs_gemm_pack_b_f32(s->tb, s->tb ? cols : r,
                                      s->tb ? r : cols, b->data, cols);
    if (s->b_packed) s->b_const = b; /* else: pack per run */
  } else if (b && b->dtype == TFS_BFLOAT16 && b->shape.rank == 2 &&
             b->nelems > 0) {
    int64_t r = b->shape.dims[0], cols = b->shape.dims[1];
    s->b16 = tfs_gemm_pack_b_bf16(s->tb, s->tb ? cols : r, s->tb ? r : cols,
                                  b->data, cols);
    if (s->b16) s->b_const = b;
  }
  ki->state = s;
  return 0;
}

static void matmul_release(void *state) {
  mm_state *s = state;
  if (!s) return;
  tfs_gemm_packed_free(s->b_packed);
  tfs_gemm_packed_bf16_free(s->b16);
  tfs_free(s);
}

/* Generic loops for types without a BLAS: C[m,n] = A op B, row-major. */
#define MM_LOOP(NAME, T, ACC, LOAD, STORE)                                  \
  static void NAME(const void *A, const void *B, void *C, int64_t m,        \
                   int64_t n, int64_t k, int ta, int tb) {                  \
    const T *a = A, *b = B;                                                 \
    T *c = C;                                                               \
    for (int64_t i = 0; i < m; i++) {                                       \
      for (int64_t j = 0; j < n; j++) {                                     \
        ACC acc = 0;                                                        \
        for (int64_t p = 0; p < k; p++) {                                   \
          ACC x = LOAD(a[ta ? p * m + i : i * k + p]);                      \
          ACC y = LOAD(b[tb ? j * k + p : p * n + j]);                      \
          acc += x * y;                                                     \
        }                                                                   \
        c[i * n + j] = STORE(acc);                                          \
      }                                                                     \
    }                                                                       \
  }

#define ID(x) (x)
MM_LOOP(mm_i32, int32_t, uint64_t, (uint64_t)(uint32_t), (int32_t))
MM_LOOP(mm_i64, int64_t, uint64_t, (uint64_t), (int64_t))
MM_LOOP(mm_u8, uint8_t, uint64_t, ID, (uint8_t))
MM_LOOP(mm_u16, uint16_t, uint64_t, ID, (uint16_t))
MM_LOOP(mm_u32, uint32_t, uint64_t, ID, (uint32_t))
MM_LOOP(mm_u64, uint64_t, uint64_t, ID, ID)
MM_LOOP(mm_f16, uint16_t, float, tfs_half_to_float, tfs_float_to_half)
MM_LOOP(mm_c64, float _Complex, float _Complex, ID, ID)
MM_LOOP(mm_c128, double _Complex, double _Complex, ID, ID)

int tfs_matmul_check_2d(tfs_kernel_ctx *c, const tfs_tensor *a,
                        const tfs_tensor *b, int ta, int tb, int64_t *m,
                        int64_t *k, int64_t *n) {
  if (tfs_matmul_check(&a->shape, &b->shape, ta, tb, m, k, n, c->st)) {
    tfs_kctx_fail_status(c, c->st);
    return -1;
  }
  return 0;
}

/* bfloat16: float32 products in scratch, rounded once. */
static void matmul_bf16(tfs_kernel_ctx *c, const mm_state *s,
                        const tfs_tensor *a, const tfs_tensor *b,
                        tfs_tensor *o, int64_t m, int64_t n, int64_t k) {
  float *f = tfs_kctx_scratch(c, sizeof(float) * (size_t)(m * n));
  if (!f) return;
  tfs_threadpool *pool = tfs_kctx_intra_pool(c);
  int64_t lda = a->shape.dims[1], ldb = b->shape.dims[1];
  int rc = s->b16 && b == s->b_const
               ? tfs_gemm_bf16_packed(s->ta, m, a->data, lda, s->b16, f, n,
                                      pool)
               : tfs_gemm_bf16(s->ta, s->tb, m, n, k, a->data, lda, b->data,
                               ldb, f, n, pool);
  if (rc) {
    tfs_kctx_fail(c, TFS_RESOURCE_EXHAUSTED, "out of memory");
    return;
  }
  tfs_gemm_round_bf16(f, o->data, m * n);
}

static void matmul_compute(tfs_kernel_ctx *c) {
  const mm_state *s = c->state;
  const tfs_tensor *a = c->inputs[0], *b = c->inputs[1];
  int64_t m, k, n;
  if (tfs_matmul_check_2d(c, a, b, s->ta, s->tb, &m, &k, &n)) return;
  tfs_shape os;
  tfs_shape_2d(&os, m, n);
  tfs_tensor *o = tfs_kctx_alloc_output(c, 0, &os);
  if (!o || m == 0 || n == 0) return;
  if (k == 0) {
    memset(o->data, 0, o->nbytes);
    return;
  }
  if (m > INT32_MAX || n > INT32_MAX || k > INT32_MAX) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "MatMul dimensions too large");
    return;
  }
  tfs_threadpool *pool = tfs_kctx_intra_pool(c);
  int64_t lda = a->shape.dims[1], ldb = b->shape.dims[1];
  switch (a->dtype) {
    case TFS_FLOAT:
      if (s->b_packed && b == s->b_const)
        tfs_gemm_f32_packed(s->ta, m, 1.0f, a->data, lda, s->b_packed, 0.0f,
                            o->data, n, pool);
      else
        tfs_gemm_f32(s->ta, s->tb, m, n, k, 1.0f, a->data, lda, b->data, ldb,
                     0.0f, o->data, n, pool);
      break;
    case TFS_DOUBLE:
      tfs_gemm_f64(s->ta, s->tb, m, n, k, 1.0, a->data, lda, b->data, ldb,
                   0.0, o->data, n, pool);
      break;
    case TFS_INT32: mm_i32(a->data, b->data, o->data, m, n, k, s->ta, s->tb); break;
    case TFS_INT64: mm_i64(a->data, b->data, o->data, m, n, k, s->ta, s->tb); break;
    case TFS_UINT8: mm_u8(a->data, b->data, o->data, m, n, k, s->ta, s->tb); break;
    case TFS_UINT16: mm_u16(a->data, b->data, o->data, m, n, k, s->ta, s->tb); break;
    case TFS_UINT32: mm_u32(a->data, b->data, o->data, m, n, k, s->ta, s->tb); break;
    case TFS_UINT64: mm_u64(a->data, b->data, o->data, m, n, k, s->ta, s->tb); break;
    case TFS_HALF: mm_f16(a->data, b->data, o->data, m, n, k, s->ta, s->tb); break;
    case TFS_BFLOAT16: matmul_bf16(c, s, a, b, o, m, n, k); break;
    case TFS_COMPLEX64:
      mm_c64(a->data, b->data, o->data, m, n, k, s->ta, s->tb);
      break;
    case TFS_COMPLEX128:
      mm_c128(a->data, b->data, o->data, m, n, k, s->ta, s->tb);
      break;
    default:
      tfs_kctx_fail(c, TFS_UNIMPLEMENTED, "MatMul is not implemented for %s",
                    tfs_dtype_name(a->dtype));
  }
}

const tfs_kernel_def tfs_cpu_kernels_matmul[] = {
    {"MatMul", "CPU", "T",
     TFS_DT_FLOATS | TFS_DT_BIT(TFS_INT32) | TFS_DT_BIT(TFS_INT64) |
         TFS_DT_BIT(TFS_UINT8) | TFS_DT_BIT(TFS_UINT16) |
         TFS_DT_BIT(TFS_UINT32) | TFS_DT_BIT(TFS_UINT64) |
         TFS_DT_BIT(TFS_COMPLEX64) | TFS_DT_BIT(TFS_COMPLEX128),
     matmul_prepare, matmul_compute, matmul_release, TFS_KERNEL_EXPENSIVE,
     NULL},
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL},
};
