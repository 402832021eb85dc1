/*
 * backends/cpu/fused_matmul.c - the remapper's fused products on the CPU:
 * _FusedMatMul (MatMul + BiasAdd [+ activation]: tfsess's GEMM, constant
 * weights packed once, then the epilogue over each block of rows while it
 * is in cache), _FusedBatchMatMulV2 (BatchMatMulV2 scaled by a scalar:
 * the scale becomes the GEMM's alpha), _TfsSwish (x * sigmoid(x) in
 * one pass), _TfsHardSwish (x * relu6(x + 3) / 6 in one pass) and
 * _TfsGelu (GELU, erf or tanh form, in one pass).
 * _FusedMatMul also takes bfloat16 (auto mixed precision's MatMul +
 * BiasAdd): float32 products on the bfloat16 GEMM, the epilogue in
 * float32, one rounding; _TfsFusedMatMulFloatOut the same with a float32
 * bias and output, never rounded (or, with out_type bfloat16, rounded
 * once: a Cast after it); the three activations take bfloat16
 * too (float blocks, one rounding).
 */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("tree-vectorize", "vect-cost-model=dynamic")
#endif

#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/half.h"
#include "backends/cpu/cpu_tables.h"
#include "backends/cpu/fused_epilogue.h"
#include "backends/cpu/gemm.h"
#include "backends/cpu/vmath.h"

/* ---- _FusedMatMul
 * ------------------------------------------------------------ */

typedef struct fmm_state {
  int ta, tb;
  tfs_fused_epilogue e;
  const tfs_tensor *b_const;
  tfs_gemm_packed *b_packed;
  tfs_gemm_packed_bf16 *b16; /* a constant bfloat16 B, or NULL */
  int out16; /* _TfsFusedMatMulFloatOut with out_type bfloat16 */
} fmm_state;

static void fmm_release(void *p) {
  fmm_state *s = p;
  if (!s) return;
  tfs_gemm_packed_free(s->b_packed);
  tfs_gemm_packed_bf16_free(s->b16);
  tfs_free(s);
}

static int fmm_prepare(tfs_kernel_init *ki) {
  fmm_state *s = tfs_calloc(1, sizeof(*s));
  if (!s) return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  ki->state = s;
  tfs_attrs_get_bool(ki->attrs, "transpose_a", &s->ta);
  tfs_attrs_get_bool(ki->attrs, "transpose_b", &s->tb);
  if (tfs_fused_parse(ki, 1u << TFS_FE_BIAS, &s->e)) return -1;
  tfs_dtype ot = TFS_FLOAT;
  s->out16 = tfs_attrs_get_type(ki->attrs, "out_type", &ot) == 0 &&
             ot == TFS_BFLOAT16;
  const tfs_tensor *b = ki->in_consts ? ki->in_consts[1] : NULL;
  if (b && b->dtype == TFS_FLOAT && b->shape.rank == 2 && b->nelems > 0) {
    int64_t r = b->shape.dims[0], cols = b->shape.dims[1];
    s->b_packed = tfs_gemm_pack_b_f32(s->tb, s->tb ? cols : r, s->tb ? r : cols,
                                      b->data, cols);
    if (s->b_packed) s->b_const = b;
  } else if (b && b->dtype == TFS_BFLOAT16 && b->shape.rank == 2 &&
             b->nelems > 0) {
    int64_t r = b->shape.dims[0], cols = b->shape.dims[1];
    s->b16 = tfs_gemm_pack_b_bf16(s->tb, s->tb ? cols : r, s->tb ? r : cols,
                                  b->data, cols);
    if (s->b16) s->b_const = b;
  }
  return 0;
}

typedef struct fmm_job {
  const fmm_state *s;
  const float *a;
  int64_t lda, n, k, m;
  int64_t unit; /* rows of a parallel unit (FMM_BLOCK_PANELS panels) */
  const float *b;
  int64_t ldb;
  float *o;
  const float *bias;
} fmm_job;

/* Without packed weights, units of rows for the parallel split are
 * FMM_BLOCK_PANELS micro-kernel panels (tfs_gemm_panel_rows): each task
 * packs B again for its rows, so a unit must be big enough to pay for
 * that, and the blocks are the same at any thread count. */
#define FMM_BLOCK_PANELS 8

/* Row units [u0, u1): product then epilogue, unit by unit. */
static void fmm_rows(void *arg, int64_t u0, int64_t u1) {
  const fmm_job *j = arg;
  const fmm_state *s = j->s;
  int64_t r1 = u1 * j->unit < j->m ? u1 * j->unit : j->m;
  for (int64_t r = u0 * j->unit; r < r1; r += j->unit) {
    int64_t m = r + j->unit < r1 ? j->unit : r1 - r;
    const float *a = s->ta ? j->a + r : j->a + r * j->lda;
    float *o = j->o + r * j->n;
    tfs_gemm_f32(s->ta, s->tb, m, j->n, j->k, 1.0f, a, j->lda, j->b, j->ldb,
                 0.0f, o, j->n, NULL);
    tfs_fused_apply(&s->e, o, m, j->n, j->n, NULL, j->bias);
  }
}

/* The epilogue over one finished tile of the product (columns [c0, c0 +
 * nb)): the GEMM calls it on the thread that computed the tile. */
static void fmm_tile_done(void *arg, int64_t r0, int64_t mb, int64_t c0,
                          int64_t nb) {
  const fmm_job *j = arg;
  tfs_fused_apply(&j->s->e, j->o + r0 * j->n + c0, mb, nb, j->n, NULL,
                  j->bias ? j->bias + c0 : NULL);
}

static void fmm_epilogue(void *arg, int64_t r0, int64_t r1) {
  const fmm_job *j = arg;
  tfs_fused_apply(&j->s->e, j->o + r0 * j->n, r1 - r0, j->n, j->n, NULL,
                  j->bias);
}

/* ---- _FusedMatMul in bfloat16 ---- */

typedef struct fmm16_job {
  const fmm_state *s;
  const uint16_t *a, *b;
  int64_t lda, ldb, n, k, m;
  int64_t unit;
  float *f;      /* m x n float32 products */
  uint16_t *o;   /* the rounded output, or NULL: f is the output */
  const float *bias;
  atomic_int failed;
} fmm16_job;

/* Rows [r0, r0 + m) of the product into j->f; pool may be NULL. */
static int fmm16_gemm(fmm16_job *j, int64_t r0, int64_t m,
                      tfs_threadpool *pool) {
  const fmm_state *s = j->s;
  const uint16_t *a = s->ta ? j->a + r0 : j->a + r0 * j->lda;
  float *f = j->f + r0 * j->n;
  if (s->b16 && j->b == (const uint16_t *)s->b_const->data)
    return tfs_gemm_bf16_packed(s->ta, m, a, j->lda, s->b16, f, j->n, pool);
  return tfs_gemm_bf16(s->ta, s->tb, m, j->n, j->k, a, j->lda, j->b, j->ldb,
                       f, j->n, pool);
}

/* The epilogue over rows [r0, r1), then their rounding. */
static void fmm16_finish(const fmm16_job *j, int64_t r0, int64_t r1) {
  float *f = j->f + r0 * j->n;
  tfs_fused_apply(&j->s->e, f, r1 - r0, j->n, j->n, NULL, j->bias);
  if (j->o) tfs_gemm_round_bf16(f, j->o + r0 * j->n, (r1 - r0) * j->n);
}

static void fmm16_rows(void *arg, int64_t u0, int64_t u1) {
  fmm16_job *j = arg;
  const int64_t block = FMM_BLOCK_PANELS * j->unit;
  int64_t r0 = u0 * j->unit, r1 = u1 * j->unit < j->m ? u1 * j->unit : j->m;
  for (int64_t r = r0; r < r1; r += block) {
    int64_t m = r + block < r1 ? block : r1 - r;
    if (fmm16_gemm(j, r, m, NULL)) {
      atomic_store(&j->failed, 1);
      return;
    }
    fmm16_finish(j, r, r + m);
  }
}

static void fmm16_epilogue(void *arg, int64_t r0, int64_t r1) {
  fmm16_finish(arg, r0, r1);
}

/* The bias (n values: bfloat16, or float with float_bias) as float32,
 * or NULL after failing c; *bias stays NULL without one. */
static int fmm16_bias(tfs_kernel_ctx *c, const fmm_state *s, int64_t n,
                      int float_bias, const float **bias) {
  *bias = NULL;
  if (s->e.kind != TFS_FE_BIAS) return 0;
  const tfs_tensor *t = c->inputs[2];
  tfs_dtype want = float_bias ? TFS_FLOAT : TFS_BFLOAT16;
  if (t->dtype != want || t->nelems != n) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "bias must be a 1-D %s vector of %lld values, got %lld",
                  tfs_dtype_name(want), (long long)n, (long long)t->nelems);
    return -1;
  }
  if (float_bias) {
    *bias = t->data;
    return 0;
  }
  float *f = tfs_kctx_scratch(c, sizeof(float) * (size_t)(n + 1));
  if (!f) return -1;
  const uint16_t *h = t->data;
  for (int64_t i = 0; i < n; i++) f[i] = tfs_bf16_to_float(h[i]);
  *bias = f;
  return 0;
}

/* float_bias: _TfsFusedMatMulFloatOut's float32 bias; float_out: the
 * sums and epilogue stored as float32 (no rounding), else rounded to
 * bfloat16 once. */
static void fmm16_compute(tfs_kernel_ctx *c, const fmm_state *s, int64_t m,
                          int64_t k, int64_t n, int float_bias,
                          int float_out) {
  const tfs_tensor *a = c->inputs[0], *b = c->inputs[1];
  fmm16_job j;
  memset(&j, 0, sizeof j);
  if (fmm16_bias(c, s, n, float_bias, &j.bias)) return;
  tfs_shape os;
  tfs_shape_2d(&os, m, n);
  tfs_tensor *o = tfs_kctx_alloc_output(c, 0, &os);
  if (!o || m == 0 || n == 0) return;
  j.s = s;
  j.a = a->data;
  j.b = b->data;
  j.lda = a->shape.dims[1];
  j.ldb = b->shape.dims[1];
  j.n = n;
  j.k = k;
  j.m = m;
  j.unit = tfs_gemm_panel_rows();
  j.o = float_out ? NULL : o->data;
  j.f = float_out ? o->data
                  : tfs_kctx_scratch(c, sizeof(float) * (size_t)(m * n));
  if (!j.f) return;
  tfs_threadpool *pool = tfs_kctx_intra_pool(c);
  if (m >= 64 * (int64_t)tfs_threadpool_parallelism(pool)) {
    tfs_kctx_parallel_for(c, (m + j.unit - 1) / j.unit,
                          j.unit * (tfs_gemm_cost_ns(1, n, k) / 2 + n),
                          fmm16_rows, &j);
  } else if (fmm16_gemm(&j, 0, m, pool)) {
    atomic_store(&j.failed, 1);
  } else {
    tfs_kctx_parallel_for(c, m, n * 6, fmm16_epilogue, &j);
  }
  if (atomic_load(&j.failed))
    tfs_kctx_fail(c, TFS_RESOURCE_EXHAUSTED, "out of memory");
}

static void fmm_compute(tfs_kernel_ctx *c) {
  const fmm_state *s = c->state;
  const tfs_tensor *a = c->inputs[0], *b = c->inputs[1];
  int64_t m, k, n;
  if (tfs_matmul_check_2d(c, a, b, s->ta, s->tb, &m, &k, &n)) return;
  if (a->dtype == TFS_BFLOAT16) {
    fmm16_compute(c, s, m, k, n, 0, 0);
    return;
  }
  const float *scale = NULL, *shift = NULL;
  if (tfs_fused_channel_params(c, &s->e, n, NULL, &scale, &shift)) return;
  tfs_shape os;
  tfs_shape_2d(&os, m, n);
  tfs_tensor *o = tfs_kctx_alloc_output(c, 0, &os);
  if (!o || m == 0 || n == 0) return;
  if (k == 0) {
    memset(o->data, 0, o->nbytes);
    tfs_fused_apply(&s->e, o->data, m, n, n, NULL, shift);
    return;
  }
  fmm_job j = {.s = s, .a = a->data, .lda = a->shape.dims[1], .n = n,
               .k = k, .m = m,
               .unit = FMM_BLOCK_PANELS * (int64_t)tfs_gemm_panel_rows(),
               .b = b->data, .ldb = b->shape.dims[1], .o = o->data,
               .bias = shift};
  tfs_threadpool *pool = tfs_kctx_intra_pool(c);
  if (s->b_packed && j.b == (const float *)s->b_const->data) {
    /* constant weights: the GEMM cuts the product into tiles of whole
     * panels (row blocks, and column chunks when the rows are too few to
     * give every thread work) and each tile is finished while in cache;
     * a task never re-streams all of B for a few rows.  The bias, and
     * Relu or Relu6, go into the kernels' stores where they read A in
     * place (a tile's pass fewer: BERT at batch 8, 1.5% of the run); a
     * tanh-GELU or the like still runs on each finished tile. */
    if (!s->ta && !scale) {
      int in_store = tfs_fused_act_in_store(&s->e);
      fmm_job rest = j;
      rest.bias = NULL;
      if (tfs_gemm_f32_packed_bias_done(
              m, j.a, j.lda, s->b_packed, shift,
              in_store ? tfs_fused_store_relu(&s->e) : TFS_STORE_NONE, j.o,
              n, pool, in_store ? NULL : fmm_tile_done, &rest) == 0)
        return;
    }
    tfs_gemm_f32_packed_done(s->ta, m, 1.0f, j.a, j.lda, s->b_packed, 0.0f,
                             j.o, n, pool, fmm_tile_done, &j);
    return;
  }
  if (m >= 4 * j.unit * (int64_t)tfs_threadpool_parallelism(pool)) {
    /* many rows: each task multiplies a block and finishes it in cache */
    tfs_kctx_parallel_for(c, (m + j.unit - 1) / j.unit,
                          j.unit * (tfs_gemm_cost_ns(1, n, k) + n), fmm_rows,
                          &j);
    return;
  }
  /* few rows (small batches): the GEMM splits the columns itself */
  tfs_gemm_f32(s->ta, s->tb, m, n, k, 1.0f, j.a, j.lda, j.b, j.ldb, 0.0f, j.o,
               n, pool);
  tfs_kctx_parallel_for(c, m, n * 4, fmm_epilogue, &j);
}

/* ---- _FusedBatchMatMulV2: scale * (x @ y) with batch broadcasting -----------
 */

typedef struct fbmm_state {
  int adj_x, adj_y;
  tfs_fused_epilogue e;
} fbmm_state;

static int fbmm_prepare(tfs_kernel_init *ki) {
  fbmm_state *s = tfs_calloc(1, sizeof(*s));
  if (!s) return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  ki->state = s;
  tfs_attrs_get_bool(ki->attrs, "adj_x", &s->adj_x);
  tfs_attrs_get_bool(ki->attrs, "adj_y", &s->adj_y);
  return tfs_fused_parse(ki, 1u << TFS_FE_MUL, &s->e);
}

typedef struct fbmm_job {
  const fbmm_state *s;
  const float *x, *y;
  float *o;
  int64_t m, n, k;
  int nb;                                       /* batch rank of the output */
  int64_t odims[TFS_MAX_RANK];                  /* output batch dims */
  int64_t xst[TFS_MAX_RANK], yst[TFS_MAX_RANK]; /* batch strides (0: bcast) */
  float alpha;
} fbmm_job;

static void fbmm_range(void *arg, int64_t b0, int64_t b1) {
  const fbmm_job *j = arg;
  for (int64_t b = b0; b < b1; b++) {
    int64_t rem = b, xo = 0, yo = 0;
    for (int d = j->nb - 1; d >= 0; d--) {
      int64_t i = rem % j->odims[d];
      rem /= j->odims[d];
      xo += i * j->xst[d];
      yo += i * j->yst[d];
    }
    tfs_gemm_f32(j->s->adj_x, j->s->adj_y, j->m, j->n, j->k, j->alpha,
                 j->x + xo, j->s->adj_x ? j->m : j->k, j->y + yo,
                 j->s->adj_y ? j->k : j->n, 0.0f, j->o + b * j->m * j->n, j->n,
                 NULL);
  }
}

static void fbmm_compute(tfs_kernel_ctx *c) {
  const fbmm_state *s = c->state;
  const tfs_tensor *x = c->inputs[0], *y = c->inputs[1], *sc = c->inputs[2];
  int rx = x->shape.rank, ry = y->shape.rank;
  if (rx < 2 || ry < 2 || sc->nelems != 1) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "_FusedBatchMatMulV2 needs matrices and a scalar scale");
    return;
  }
  fbmm_job j;
  memset(&j, 0, sizeof j);
  j.s = s;
  j.m = x->shape.dims[rx - (s->adj_x ? 1 : 2)];
  j.k = x->shape.dims[rx - (s->adj_x ? 2 : 1)];
  int64_t ky = y->shape.dims[ry - (s->adj_y ? 1 : 2)];
  j.n = y->shape.dims[ry - (s->adj_y ? 2 : 1)];
  if (j.k != ky) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Matrix size-incompatible: In[0] inner %lld, In[1] %lld",
                  (long long)j.k, (long long)ky);
    return;
  }
  int bx = rx - 2, by = ry - 2;
  j.nb = bx > by ? bx : by;
  int64_t xs = j.m * j.k, ys = j.k * j.n, nbatch = 1;
  for (int d = j.nb - 1; d >= 0; d--) {
    int ix = d - (j.nb - bx), iy = d - (j.nb - by);
    int64_t dx = ix >= 0 ? x->shape.dims[ix] : 1;
    int64_t dy = iy >= 0 ? y->shape.dims[iy] : 1;
    if (dx != dy && dx != 1 && dy != 1) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "In[0] and In[1] must have compatible batch dimensions");
      return;
    }
    j.odims[d] = dx > dy ? dx : dy;
    j.xst[d] = dx == 1 ? 0 : xs;
    j.yst[d] = dy == 1 ? 0 : ys;
    xs *= dx;
    ys *= dy;
    nbatch *= j.odims[d];
  }
  tfs_shape os;
  os.rank = j.nb + 2;
  for (int d = 0; d < j.nb; d++) os.dims[d] = j.odims[d];
  os.dims[j.nb] = j.m;
  os.dims[j.nb + 1] = j.n;
  tfs_tensor *o = tfs_kctx_alloc_output(c, 0, &os);
  if (!o || o->nelems == 0) return;
  j.x = x->data;
  j.y = y->data;
  j.o = o->data;
  j.alpha = ((const float *)sc->data)[0];
  if (j.k == 0) {
    memset(o->data, 0, o->nbytes);
    return;
  }
  tfs_kctx_parallel_for(c, nbatch, tfs_gemm_cost_ns(j.m, j.n, j.k), fbmm_range,
                        &j);
}

static void fmm_float_out_compute(tfs_kernel_ctx *c) {
  const fmm_state *s = c->state;
  int64_t m, k, n;
  if (tfs_matmul_check_2d(c, c->inputs[0], c->inputs[1], s->ta, s->tb, &m,
                          &k, &n))
    return;
  fmm16_compute(c, s, m, k, n, 1, !s->out16);
}

/* ---- _TfsSwish
 * ------------------------------------------------------------------ */

typedef struct swish_job {
  const void *x;
  void *o;
  tfs_dtype dt;
} swish_job;

static void swish_range(void *arg, int64_t b, int64_t e) {
  const swish_job *j = arg;
  if (j->dt == TFS_BFLOAT16) { /* float blocks, one rounding */
    tfs_vm_map16(tfs_vm_swish_f32, (const uint16_t *)j->x + b,
                 (uint16_t *)j->o + b, e - b, 1);
    return;
  }
  if (j->dt == TFS_DOUBLE) {
    const double *x = j->x;
    double *o = j->o;
    for (int64_t i = b; i < e; i++) {
      double v = x[i], s;
      if (v >= 0) {
        s = 1.0 / (1.0 + exp(-v));
      } else {
        double t = exp(v);
        s = t / (1.0 + t);
      }
      o[i] = v * s;
    }
    return;
  }
  tfs_vm_swish_f32((const float *)j->x + b, (float *)j->o + b, e - b);
}

static void swish_compute(tfs_kernel_ctx *c) {
  const tfs_tensor *x = c->inputs[0];
  tfs_tensor *o = tfs_kctx_forward_or_alloc(c, 0, 0, &x->shape);
  if (!o || o->nelems == 0) return;
  swish_job j = {x->data, o->data, x->dtype};
  tfs_kctx_parallel_for(c, x->nelems, 12, swish_range, &j);
}

/* ---- _TfsHardSwish --------------------------------------------------------
 * float as the fused epilogue computes it; double with the same steps. */

static void hard_swish_range(void *arg, int64_t b, int64_t e) {
  const swish_job *j = arg;
  if (j->dt == TFS_BFLOAT16) {
    tfs_vm_map16(tfs_fused_hard_swish_f32, (const uint16_t *)j->x + b,
                 (uint16_t *)j->o + b, e - b, 1);
    return;
  }
  if (j->dt == TFS_FLOAT) {
    tfs_fused_hard_swish_f32((const float *)j->x + b, (float *)j->o + b,
                             e - b);
    return;
  }
  const double *x = j->x;
  double *o = j->o;
  for (int64_t i = b; i < e; i++) {
    double v = x[i], t = v + 3.0;
    t = t < 0.0 ? 0.0 : t;
    t = t > 6.0 ? 6.0 : t;
    o[i] = v * (t * (1.0 / 6.0));
  }
}

static void hard_swish_compute(tfs_kernel_ctx *c) {
  const tfs_tensor *x = c->inputs[0];
  tfs_tensor *o = tfs_kctx_forward_or_alloc(c, 0, 0, &x->shape);
  if (!o || o->nelems == 0) return;
  swish_job j = {x->data, o->data, x->dtype};
  tfs_kctx_parallel_for(c, x->nelems, 2, hard_swish_range, &j);
}

/* ---- _TfsGelu: x Phi(x), exact (erf) or with the tanh approximation -------
 * float through vmath, half and bfloat16 through it in float blocks,
 * double with libm. */

typedef struct gelu_job {
  const void *x;
  void *o;
  tfs_dtype dt;
  int approximate;
} gelu_job;

/* 0.5 x erfc(-x / sqrt(2)); the tanh form as x / (1 + exp(-2u)), the
 * same function as 0.5 x (1 + tanh(u)) without its cancellation below 0 */
static double gelu_d(double x, int approximate) {
  if (!approximate) return 0.5 * x * erfc(-x * M_SQRT1_2);
  double u = 0.7978845608028654 * (x + 0.044715 * x * x * x);
  return x / (1.0 + exp(-2.0 * u));
}

static void gelu_range(void *arg, int64_t b, int64_t e) {
  const gelu_job *j = arg;
  void (*f)(const float *, float *, int64_t) =
      j->approximate ? tfs_vm_gelu_tanh_f32 : tfs_vm_gelu_erf_f32;
  if (j->dt == TFS_FLOAT) {
    f((const float *)j->x + b, (float *)j->o + b, e - b);
  } else if (j->dt == TFS_DOUBLE) {
    const double *x = j->x;
    double *o = j->o;
    for (int64_t i = b; i < e; i++) o[i] = gelu_d(x[i], j->approximate);
  } else {
    tfs_vm_map16(f, (const uint16_t *)j->x + b, (uint16_t *)j->o + b, e - b,
                 j->dt == TFS_BFLOAT16);
  }
}

static int gelu_prepare(tfs_kernel_init *ki) {
  int *approximate = tfs_calloc(1, sizeof *approximate);
  if (!approximate)
    return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  tfs_attrs_get_bool(ki->attrs, "approximate", approximate);
  ki->state = approximate;
  return 0;
}

static void gelu_compute(tfs_kernel_ctx *c) {
  const tfs_tensor *x = c->inputs[0];
  tfs_tensor *o = tfs_kctx_forward_or_alloc(c, 0, 0, &x->shape);
  if (!o || o->nelems == 0) return;
  gelu_job j = {x->data, o->data, x->dtype, *(const int *)c->state};
  tfs_kctx_parallel_for(c, x->nelems, 16, gelu_range, &j);
}

const tfs_kernel_def tfs_cpu_kernels_fused_matmul[] = {
    {"_FusedMatMul", "CPU", "T",
     TFS_DT_BIT(TFS_FLOAT) | TFS_DT_BIT(TFS_BFLOAT16), fmm_prepare,
     fmm_compute, fmm_release, TFS_KERNEL_EXPENSIVE, NULL},
    {"_TfsFusedMatMulFloatOut", "CPU", "T", TFS_DT_BIT(TFS_BFLOAT16),
     fmm_prepare, fmm_float_out_compute, fmm_release, TFS_KERNEL_EXPENSIVE,
     NULL},
    {"_FusedBatchMatMulV2", "CPU", "T", TFS_DT_BIT(TFS_FLOAT), fbmm_prepare,
     fbmm_compute, free, TFS_KERNEL_EXPENSIVE, NULL},
    {"_TfsSwish", "CPU", "T",
     TFS_DT_BIT(TFS_FLOAT) | TFS_DT_BIT(TFS_DOUBLE) |
         TFS_DT_BIT(TFS_BFLOAT16),
     NULL, swish_compute, NULL, 0, NULL},
    {"_TfsHardSwish", "CPU", "T",
     TFS_DT_BIT(TFS_FLOAT) | TFS_DT_BIT(TFS_DOUBLE) |
         TFS_DT_BIT(TFS_BFLOAT16),
     NULL, hard_swish_compute, NULL, 0, NULL},
    {"_TfsGelu", "CPU", "T", TFS_DT_FLOATS, gelu_prepare, gelu_compute, free,
     0, NULL},
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL},
};
