/*
 * backends/cpu/batch_matmul.c - BatchMatMul (equal batch dims),
 * BatchMatMulV2 (broadcast batch dims) and BatchMatMulV3 (Ta, Tb, Tout);
 * float on the shared GEMM (gemm.h: one product over all batches, or y
 * packed once, when y is the same matrix for every batch), bfloat16 on
 * the bfloat16 GEMM (accumulated in float32 and rounded once), double and
 * complex on the BLAS, half and 8-bit inputs through float, other
 * integers with wrapping loops.  Many matrices are shared out whole over
 * the intra-op pool, a few big ones each split over it.
 */
#include <cblas.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/half.h"
#include "core/threadpool.h"
#include "backends/cpu/cpu_tables.h"
#include "backends/cpu/gemm.h"
#include "ops/batch_matmul_check.h"

typedef struct {
  int version;
  int adj_x, adj_y;
  tfs_dtype ta, tb, tout;
} bmm_state;

/* (Ta, Tb, Tout) combinations of TensorFlow's CPU kernels for V3 */
static int v3_supported(tfs_dtype a, tfs_dtype b, tfs_dtype o) {
  if (a == b && a == o)
    return a == TFS_FLOAT || a == TFS_DOUBLE || a == TFS_BFLOAT16 ||
           a == TFS_COMPLEX64 || a == TFS_COMPLEX128 || a == TFS_INT16 ||
           a == TFS_INT32 || a == TFS_INT64;
  int a8 = a == TFS_INT8 || a == TFS_UINT8, b8 = b == TFS_INT8 ||
                                               b == TFS_UINT8;
  if (a8 && b8) return o == TFS_INT32;
  if (o == TFS_BFLOAT16)
    return (a == TFS_BFLOAT16 && b8) || (a8 && b == TFS_BFLOAT16);
  return 0;
}

static int bmm_prepare(tfs_kernel_init *ki) {
  bmm_state *s = tfs_calloc(1, sizeof(*s));
  if (!s) return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  const char *op = ki->op->name;
  s->version = strcmp(op, "BatchMatMul") == 0 ? 1
               : strcmp(op, "BatchMatMulV2") == 0 ? 2 : 3;
  tfs_attrs_get_bool(ki->attrs, "adj_x", &s->adj_x);
  tfs_attrs_get_bool(ki->attrs, "adj_y", &s->adj_y);
  s->ta = ki->in_types[0];
  s->tb = ki->in_types[1];
  s->tout = ki->out_types[0];
  if (s->version == 3 && !v3_supported(s->ta, s->tb, s->tout)) {
    tfs_free(s);
    return tfs_ki_error(ki, TFS_UNIMPLEMENTED,
                        "BatchMatMulV3 has no CPU kernel for Ta=%s, Tb=%s, "
                        "Tout=%s", tfs_dtype_name(ki->in_types[0]),
                        tfs_dtype_name(ki->in_types[1]),
                        tfs_dtype_name(ki->out_types[0]));
  }
  ki->state = s;
  return 0;
}

/* ---- shapes ---------------------------------------------------------- */

typedef struct {
  int64_t m, n, k, nbatch;
  int64_t *xoff, *yoff; /* per output batch: matrix index in x, y */
} bmm_dims;

/* Checks the shapes as TensorFlow does (ops/batch_matmul_check.c) and
 * computes the output shape and the batch offsets (in scratch memory). */
static int bmm_shapes(tfs_kernel_ctx *c, const bmm_state *s, tfs_shape *os,
                      bmm_dims *d) {
  const tfs_tensor *x = c->inputs[0], *y = c->inputs[1];
  if (tfs_batch_matmul_check(&x->shape, &y->shape, s->version, s->adj_x,
                             s->adj_y, os, c->st)) {
    tfs_kctx_fail_status(c, c->st);
    return -1;
  }
  int rx = x->shape.rank, ry = y->shape.rank, rb = os->rank - 2;
  int64_t m = os->dims[rb], n = os->dims[rb + 1];
  int64_t ka = x->shape.dims[rx - (s->adj_x ? 2 : 1)];
  d->m = m;
  d->n = n;
  d->k = ka;
  d->nbatch = 1;
  for (int i = 0; i < rb; i++) d->nbatch *= os->dims[i];
  d->xoff = tfs_kctx_scratch(c, sizeof(int64_t) * (size_t)(d->nbatch + 1));
  d->yoff = tfs_kctx_scratch(c, sizeof(int64_t) * (size_t)(d->nbatch + 1));
  if (!d->xoff || !d->yoff) return -1;
  for (int64_t b = 0; b < d->nbatch; b++) {
    int64_t rem = b, ox = 0, oy = 0, sx = 1, sy = 1;
    for (int i = rb - 1; i >= 0; i--) {
      int64_t idx = rem % os->dims[i];
      rem /= os->dims[i];
      int ix = rx - 2 - rb + i, iy = ry - 2 - rb + i;
      int64_t dx = ix >= 0 ? x->shape.dims[ix] : 1;
      int64_t dy = iy >= 0 ? y->shape.dims[iy] : 1;
      if (dx != 1) ox += idx * sx;
      if (dy != 1) oy += idx * sy;
      sx *= dx;
      sy *= dy;
    }
    d->xoff[b] = ox;
    d->yoff[b] = oy;
  }
  return 0;
}

/* ---- products ---------------------------------------------------------- */

typedef struct {
  const bmm_state *s;
  const bmm_dims *d;
  const void *x, *y;
  void *o;
  tfs_threadpool *pool; /* for the GEMM's own split, or NULL */
  float *of;            /* bfloat16 x bfloat16: float32 products, or NULL */
  atomic_int failed;    /* a bfloat16 product ran out of memory */
} bmm_job;

/* Batch b of a bfloat16 product: float32 into j->of, rounded into o. */
static void gemm_one_bf16(bmm_job *j, int64_t b) {
  const bmm_dims *d = j->d;
  int ax = j->s->adj_x, ay = j->s->adj_y;
  int64_t m = d->m, n = d->n, k = d->k, os = m * n;
  if (tfs_gemm_bf16(ax, ay, m, n, k,
                    (const uint16_t *)j->x + d->xoff[b] * m * k,
                    ax ? m : k, (const uint16_t *)j->y + d->yoff[b] * k * n,
                    ay ? k : n, j->of + b * os, n, j->pool)) {
    atomic_store(&j->failed, 1);
    return;
  }
  tfs_gemm_round_bf16(j->of + b * os, (uint16_t *)j->o + b * os, os);
}

static void gemm_one(bmm_job *j, int64_t b) {
  if (j->of) {
    gemm_one_bf16(j, b);
    return;
  }
  const bmm_dims *d = j->d;
  int ax = j->s->adj_x, ay = j->s->adj_y;
  int64_t m = d->m, n = d->n, k = d->k;
  int64_t xs = m * k, ys = k * n, os = m * n;
  int lda = (int)(ax ? m : k), ldb = (int)(ay ? k : n);
  tfs_dtype t = j->s->tout;
  if (t == TFS_DOUBLE) {
    tfs_gemm_f64(ax, ay, m, n, k, 1.0, (const double *)j->x + d->xoff[b] * xs,
                 lda, (const double *)j->y + d->yoff[b] * ys, ldb, 0.0,
                 (double *)j->o + b * os, n, j->pool);
  } else if (t == TFS_COMPLEX64 || t == TFS_COMPLEX128) {
    int wide = t == TFS_COMPLEX128;
    size_t es = wide ? 16 : 8;
    const double one[2] = {1, 0}, zero[2] = {0, 0};
    const float onef[2] = {1, 0}, zerof[2] = {0, 0};
    const char *xa = (const char *)j->x + (size_t)(d->xoff[b] * xs) * es;
    const char *ya = (const char *)j->y + (size_t)(d->yoff[b] * ys) * es;
    char *oa = (char *)j->o + (size_t)(b * os) * es;
    enum CBLAS_TRANSPOSE tA = ax ? CblasConjTrans : CblasNoTrans;
    enum CBLAS_TRANSPOSE tB = ay ? CblasConjTrans : CblasNoTrans;
    if (wide)
      cblas_zgemm(CblasRowMajor, tA, tB, (int)m, (int)n, (int)k, one, xa,
                  lda, ya, ldb, zero, oa, (int)n);
    else
      cblas_cgemm(CblasRowMajor, tA, tB, (int)m, (int)n, (int)k, onef, xa,
                  lda, ya, ldb, zerof, oa, (int)n);
  } else { /* float, or converted to float */
    tfs_gemm_f32(ax, ay, m, n, k, 1.0f, (const float *)j->x + d->xoff[b] * xs,
                 lda, (const float *)j->y + d->yoff[b] * ys, ldb, 0.0f,
                 (float *)j->o + b * os, n, j->pool);
  }
}

static void gemm_range(void *arg, int64_t b0, int64_t b1) {
  for (int64_t b = b0; b < b1; b++) gemm_one(arg, b);
}

/* Element i of a tensor of dtype dt as float (V3 inputs and 16-bit). */
static float as_float(const void *p, tfs_dtype dt, int64_t i) {
  switch (dt) {
    case TFS_HALF: return tfs_half_to_float(((const uint16_t *)p)[i]);
    case TFS_BFLOAT16: return tfs_bf16_to_float(((const uint16_t *)p)[i]);
    case TFS_INT8: return ((const int8_t *)p)[i];
    case TFS_UINT8: return ((const uint8_t *)p)[i];
    default: return ((const float *)p)[i];
  }
}

static int64_t as_int(const void *p, tfs_dtype dt, int64_t i) {
  switch (dt) {
    case TFS_INT8: return ((const int8_t *)p)[i];
    case TFS_UINT8: return ((const uint8_t *)p)[i];
    case TFS_INT16: return ((const int16_t *)p)[i];
    case TFS_INT32: return ((const int32_t *)p)[i];
    default: return ((const int64_t *)p)[i];
  }
}

/* Integer products, wrapping in the output width as TensorFlow's. */
static int int_products(tfs_kernel_ctx *c, const bmm_state *s,
                        const bmm_dims *d, const tfs_tensor *x,
                        const tfs_tensor *y, tfs_tensor *o) {
  int64_t m = d->m, n = d->n, k = d->k;
  uint64_t *acc = tfs_kctx_scratch(c, sizeof(uint64_t) * (size_t)(n + 1));
  if (!acc) return -1;
  for (int64_t b = 0; b < d->nbatch; b++) {
    int64_t xb = d->xoff[b] * m * k, yb = d->yoff[b] * k * n;
    for (int64_t i = 0; i < m; i++) {
      memset(acc, 0, sizeof(uint64_t) * (size_t)n);
      for (int64_t p = 0; p < k; p++) {
        uint64_t a = (uint64_t)as_int(
            x->data, s->ta, xb + (s->adj_x ? p * m + i : i * k + p));
        for (int64_t jj = 0; jj < n; jj++)
          acc[jj] += a * (uint64_t)as_int(
                             y->data, s->tb,
                             yb + (s->adj_y ? jj * k + p : p * n + jj));
      }
      int64_t at = (b * m + i) * n;
      for (int64_t jj = 0; jj < n; jj++) {
        uint64_t v = acc[jj];
        switch (s->tout) {
          case TFS_INT16: ((int16_t *)o->data)[at + jj] = (int16_t)v; break;
          case TFS_INT32: ((int32_t *)o->data)[at + jj] = (int32_t)v; break;
          default: ((int64_t *)o->data)[at + jj] = (int64_t)v; break;
        }
      }
    }
  }
  return 0;
}

/* float copies of inputs that are not float already */
static const float *to_float(tfs_kernel_ctx *c, const tfs_tensor *t) {
  if (t->dtype == TFS_FLOAT) return t->data;
  float *f = tfs_kctx_scratch(c, sizeof(float) * (size_t)(t->nelems + 1));
  if (!f) return NULL;
  for (int64_t i = 0; i < t->nelems; i++) f[i] = as_float(t->data, t->dtype, i);
  return f;
}

/* Whether every output batch reads the same matrix of y (y has one, or
 * all its batch dims are broadcast), and whether x's matrices are read in
 * order, once each. */
static int y_is_shared(const bmm_dims *d) {
  for (int64_t b = 0; b < d->nbatch; b++)
    if (d->yoff[b] != 0) return 0;
  return 1;
}

static int x_in_order(const bmm_dims *d) {
  for (int64_t b = 0; b < d->nbatch; b++)
    if (d->xoff[b] != b) return 0;
  return 1;
}

typedef struct {
  const bmm_job *j;
  const tfs_gemm_packed *yp;
} packed_job;

static void packed_range(void *arg, int64_t b0, int64_t b1) {
  const packed_job *pj = arg;
  const bmm_job *j = pj->j;
  const bmm_dims *d = j->d;
  int64_t xs = d->m * d->k, os = d->m * d->n;
  for (int64_t b = b0; b < b1; b++)
    tfs_gemm_f32_packed(j->s->adj_x, d->m, 1.0f,
                        (const float *)j->x + d->xoff[b] * xs,
                        j->s->adj_x ? d->m : d->k, pj->yp, 0.0f,
                        (float *)j->o + b * os, d->n, j->pool);
}

/* float products whose y is one matrix for every batch: x's matrices in
 * order and not transposed are one [nbatch * m, k] product; otherwise y
 * is packed once for all of them.  Returns 0 when done, 1 when not
 * applicable (or the packing ran out of memory). */
static int shared_y_products(tfs_kernel_ctx *c, bmm_job *j) {
  const bmm_dims *d = j->d;
  if (d->nbatch < 2 || !y_is_shared(d)) return 1;
  tfs_threadpool *pool = tfs_kctx_intra_pool(c);
  int64_t ldb = j->s->adj_y ? d->k : d->n;
  if (!j->s->adj_x && x_in_order(d)) {
    tfs_gemm_f32(0, j->s->adj_y, d->nbatch * d->m, d->n, d->k, 1.0f, j->x,
                 d->k, j->y, ldb, 0.0f, j->o, d->n, pool);
    return 0;
  }
  tfs_gemm_packed *yp =
      tfs_gemm_pack_b_f32(j->s->adj_y, d->k, d->n, j->y, ldb);
  if (!yp) return 1;
  packed_job pj = {j, yp};
  int64_t cost = tfs_gemm_cost_ns(d->m, d->n, d->k);
  int nt = tfs_threadpool_parallelism(pool);
  if (d->nbatch % nt == 0 || d->nbatch >= 4 * nt) {
    j->pool = NULL;
    tfs_kctx_parallel_for(c, d->nbatch, cost, packed_range, &pj);
  } else {
    j->pool = pool;
    packed_range(&pj, 0, d->nbatch);
  }
  tfs_gemm_packed_free(yp);
  return 0;
}

/* Many matrices (attention: batch x heads) go whole to the pool's
 * threads, each product on one thread; a few big ones are each split
 * over the pool by the GEMM, so that no thread waits for another's last
 * matrix (3 matrices on 2 threads). */
static void run_products(tfs_kernel_ctx *c, bmm_job *j) {
  const bmm_dims *d = j->d;
  tfs_dtype t = j->s->tout;
  if (t == TFS_FLOAT && shared_y_products(c, j) == 0) return;
  tfs_threadpool *pool = tfs_kctx_intra_pool(c);
  int64_t cost = tfs_gemm_cost_ns(d->m, d->n, d->k);
  int nt = tfs_threadpool_parallelism(pool);
  int whole = d->nbatch % nt == 0 || d->nbatch >= 4 * nt ||
              cost < 2 * nt * (int64_t)TFS_PARALLEL_MIN_NS ||
              (t != TFS_FLOAT && t != TFS_DOUBLE);
  if (whole) {
    j->pool = NULL;
    tfs_kctx_parallel_for(c, d->nbatch, cost, gemm_range, j);
  } else {
    j->pool = pool;
    for (int64_t b = 0; b < d->nbatch; b++) gemm_one(j, b);
  }
}

static void bmm_compute(tfs_kernel_ctx *c) {
  const bmm_state *s = c->state;
  const tfs_tensor *x = c->inputs[0], *y = c->inputs[1];
  tfs_shape os;
  bmm_dims d;
  if (bmm_shapes(c, s, &os, &d)) return;
  tfs_tensor *o = tfs_kctx_alloc_output(c, 0, &os);
  if (!o || o->nelems == 0) return;
  if (d.k == 0) {
    memset(o->data, 0, o->nbytes);
    return;
  }
  /* the BLAS takes int dimensions; a bigger product has >= 2^31 elements
   * in an input, so this is only reachable with such inputs */
  if (d.m > INT32_MAX || d.n > INT32_MAX || d.k > INT32_MAX) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "BatchMatMul dimensions too "
                  "large for the BLAS");
    return;
  }
  tfs_dtype t = s->tout;
  if (t == TFS_INT16 || t == TFS_INT32 || t == TFS_INT64) {
    int_products(c, s, &d, x, y, o);
    return;
  }
  bmm_job j;
  memset(&j, 0, sizeof j);
  j.s = s;
  j.d = &d;
  j.x = x->data;
  j.y = y->data;
  j.o = o->data;
  if (t == TFS_FLOAT || t == TFS_DOUBLE || t == TFS_COMPLEX64 ||
      t == TFS_COMPLEX128) {
    run_products(c, &j);
    return;
  }
  if (t == TFS_BFLOAT16 && s->ta == TFS_BFLOAT16 && s->tb == TFS_BFLOAT16) {
    if (!(j.of = tfs_kctx_scratch(c, sizeof(float) * (size_t)o->nelems)))
      return;
    run_products(c, &j);
    if (atomic_load(&j.failed))
      tfs_kctx_fail(c, TFS_RESOURCE_EXHAUSTED, "out of memory");
    return;
  }
  /* half output, or bfloat16 with an 8-bit input: products in float,
   * rounded once */
  const float *xf = to_float(c, x), *yf = to_float(c, y);
  float *of = tfs_kctx_scratch(c, sizeof(float) * (size_t)o->nelems);
  if (!xf || !yf || !of) return;
  bmm_state fs = *s;
  fs.tout = TFS_FLOAT;
  j.s = &fs;
  j.x = xf;
  j.y = yf;
  j.o = of;
  run_products(c, &j);
  uint16_t *out = o->data;
  for (int64_t i = 0; i < o->nelems; i++)
    out[i] = t == TFS_HALF ? tfs_float_to_half(of[i])
                           : tfs_float_to_bf16(of[i]);
}

#define DT(x) TFS_DT_BIT(TFS_##x)
#define BMM_T                                                          \
  (TFS_DT_FLOATS | DT(COMPLEX64) | DT(COMPLEX128) | DT(INT16) |        \
   DT(INT32) | DT(INT64))

const tfs_kernel_def tfs_cpu_kernels_batch_matmul[] = {
    {"BatchMatMul", "CPU", "T", BMM_T, bmm_prepare, bmm_compute, free,
     TFS_KERNEL_EXPENSIVE, NULL},
    {"BatchMatMulV2", "CPU", "T", BMM_T, bmm_prepare, bmm_compute, free,
     TFS_KERNEL_EXPENSIVE, NULL},
    {"BatchMatMulV3", "CPU", NULL, 0, bmm_prepare, bmm_compute, free,
     TFS_KERNEL_EXPENSIVE, NULL},
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL},
};
