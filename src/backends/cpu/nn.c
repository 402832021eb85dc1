/*
 * backends/cpu/nn.c - BiasAdd (NHWC and NCHW, every real and complex
 * dtype), Softmax and LogSoftmax over the last dimension.  Rows are split
 * over the intra-op pool; inner loops run over contiguous memory.
 */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("tree-vectorize", "vect-cost-model=dynamic")
#endif

#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/half.h"
#include "backends/cpu/bf16_convert.h"
#include "backends/cpu/cpu_tables.h"
#include "backends/cpu/row_ops.h"
#include "backends/cpu/vmath.h"
#include "ops/nn_checks.h"

/* ---- BiasAdd ------------------------------------------------------------- */

/* rows of `inner` elements: row r holds channel (r % ch) when per_row,
 * else element k of a row holds channel k (inner == ch). */
typedef void (*bias_fn)(const void *v, const void *b, void *o, int64_t r0,
                        int64_t r1, int64_t ch, int64_t inner, int per_row);

#define BIAS_LOOP(NAME, T, ADD)                                          \
  static void NAME(const void *V, const void *Bv, void *O, int64_t r0,   \
                   int64_t r1, int64_t ch, int64_t inner, int per_row) { \
    const T *b = Bv;                                                     \
    for (int64_t r = r0; r < r1; r++) {                                  \
      const T *v = (const T *)V + r * inner;                             \
      T *o = (T *)O + r * inner;                                         \
      if (per_row) {                                                     \
        const T y = b[r % ch];                                           \
        for (int64_t k = 0; k < inner; k++) {                            \
          T x = v[k];                                                    \
          o[k] = ADD;                                                    \
        }                                                                \
      } else {                                                           \
        for (int64_t k = 0; k < inner; k++) {                            \
          T x = v[k], y = b[k];                                          \
          o[k] = ADD;                                                    \
        }                                                                \
      }                                                                  \
    }                                                                    \
  }
#define WRAP(T, U) (T)((U)x + (U)y)
BIAS_LOOP(bias_f32, float, x + y)
BIAS_LOOP(bias_f64, double, x + y)
BIAS_LOOP(bias_i8, int8_t, WRAP(int8_t, uint8_t))
BIAS_LOOP(bias_i16, int16_t, WRAP(int16_t, uint16_t))
BIAS_LOOP(bias_i32, int32_t, WRAP(int32_t, uint32_t))
BIAS_LOOP(bias_i64, int64_t, WRAP(int64_t, uint64_t))
BIAS_LOOP(bias_u8, uint8_t, WRAP(uint8_t, uint8_t))
BIAS_LOOP(bias_u16, uint16_t, WRAP(uint16_t, uint16_t))
BIAS_LOOP(bias_u32, uint32_t, x + y)
BIAS_LOOP(bias_u64, uint64_t, x + y)
BIAS_LOOP(bias_f16, uint16_t,
          tfs_float_to_half(tfs_half_to_float(x) + tfs_half_to_float(y)))

/* bfloat16: blocks of a row widened, the float sum, one rounding (the
 * bits of rounding each element's float sum) */
#define BIAS_BF16_BLOCK 256
static void bias_bf16(const void *V, const void *Bv, void *O, int64_t r0,
                      int64_t r1, int64_t ch, int64_t inner, int per_row) {
  const uint16_t *b = Bv;
  float xs[BIAS_BF16_BLOCK], ys[BIAS_BF16_BLOCK];
  for (int64_t r = r0; r < r1; r++) {
    const uint16_t *v = (const uint16_t *)V + r * inner;
    uint16_t *o = (uint16_t *)O + r * inner;
    const float y0 = per_row ? tfs_bf16_to_float(b[r % ch]) : 0.0f;
    for (int64_t k0 = 0; k0 < inner; k0 += BIAS_BF16_BLOCK) {
      int64_t k = inner - k0 < BIAS_BF16_BLOCK ? inner - k0 : BIAS_BF16_BLOCK;
      tfs_bf16_to_f32(v + k0, xs, k);
      if (per_row) {
        for (int64_t i = 0; i < k; i++) xs[i] += y0;
      } else {
        tfs_bf16_to_f32(b + k0, ys, k);
        for (int64_t i = 0; i < k; i++) xs[i] += ys[i];
      }
      tfs_bf16_from_f32(xs, o + k0, k);
    }
  }
}
BIAS_LOOP(bias_c64, float _Complex, x + y)
BIAS_LOOP(bias_c128, double _Complex, x + y)

static bias_fn bias_fn_for(tfs_dtype dt) {
  switch (dt) {
    case TFS_FLOAT:
      return bias_f32;
    case TFS_DOUBLE:
      return bias_f64;
    case TFS_INT8:
      return bias_i8;
    case TFS_INT16:
      return bias_i16;
    case TFS_INT32:
      return bias_i32;
    case TFS_INT64:
      return bias_i64;
    case TFS_UINT8:
      return bias_u8;
    case TFS_UINT16:
      return bias_u16;
    case TFS_UINT32:
      return bias_u32;
    case TFS_UINT64:
      return bias_u64;
    case TFS_HALF:
      return bias_f16;
    case TFS_BFLOAT16:
      return bias_bf16;
    case TFS_COMPLEX64:
      return bias_c64;
    case TFS_COMPLEX128:
      return bias_c128;
    default:
      return NULL;
  }
}

typedef struct {
  bias_fn fn;
  int nchw;
} bias_state;

static int bias_prepare(tfs_kernel_init *ki) {
  size_t len;
  const char *f = tfs_attrs_get_string(ki->attrs, "data_format", &len);
  bias_state *s = tfs_malloc(sizeof *s);
  if (!s) return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  s->nchw = f && strcmp(f, "NCHW") == 0;
  s->fn = bias_fn_for(ki->in_types[0]);
  ki->state = s;
  if (!s->fn)
    return tfs_ki_error(ki, TFS_UNIMPLEMENTED,
                        "BiasAdd is not implemented for %s",
                        tfs_dtype_name(ki->in_types[0]));
  return 0;
}

typedef struct {
  bias_fn fn;
  const void *v, *b;
  void *o;
  int64_t ch, inner;
  int per_row;
} bias_job;

static void bias_range(void *arg, int64_t r0, int64_t r1) {
  bias_job *j = arg;
  j->fn(j->v, j->b, j->o, r0, r1, j->ch, j->inner, j->per_row);
}

static void bias_compute(tfs_kernel_ctx *c) {
  const bias_state *s = c->state;
  const tfs_tensor *v = c->inputs[0], *b = c->inputs[1];
  int r = v->shape.rank, cdim;
  if (tfs_bias_add_check(&v->shape, &b->shape, s->nchw, &cdim, c->st)) {
    tfs_kctx_fail_status(c, c->st);
    return;
  }
  int64_t ch = v->shape.dims[cdim];
  tfs_tensor *o = tfs_kctx_forward_or_alloc(c, 0, 0, &v->shape);
  if (!o || o->nelems == 0) return;
  int64_t inner = 1;
  for (int d = cdim + 1; d < r; d++) inner *= v->shape.dims[d];
  bias_job j = {s->fn, v->data, b->data, o->data, ch, inner, s->nchw};
  if (!s->nchw) j.inner = ch; /* a row is one pixel's channels */
  int64_t rows = v->nelems / j.inner;
  tfs_kctx_parallel_for(c, rows, j.inner, bias_range, &j);
}

/* ---- Softmax and LogSoftmax ---------------------------------------------- */

#define SM_BLOCK 256

/* One row: max, then exp(x - max) (vmath.h) and its sum, then the
 * normalisation (Softmax: tfs_vm_softmax_f32).  float rows are computed
 * in float with a double sum (TensorFlow computes in float); 16-bit
 * floats through float.  in may equal out. */
static void softmax_row_f32(const float *in, float *out, int64_t n,
                            int log_out) {
  if (!log_out) {
    tfs_vm_softmax_f32(in, out, 1, n);
    return;
  }
  const float mx = tfs_row_max_f32(in, n);
  float e[SM_BLOCK];
  double sum = 0;
  for (int64_t i = 0; i < n; i += SM_BLOCK) {
    int64_t k = n - i < SM_BLOCK ? n - i : SM_BLOCK;
    sum += tfs_vm_exp_shifted_sum_f32(in + i, e, k, mx);
  }
  tfs_row_sub_f32(in, out, n, mx);
  tfs_row_sub_f32(out, out, n, (float)log(sum));
}

static void softmax_row_f64(const double *in, double *out, int64_t n,
                            int log_out) {
  double mx = -INFINITY;
  for (int64_t i = 0; i < n; i++)
    if (in[i] > mx || in[i] != in[i]) mx = in[i];
  double sum = 0;
  if (log_out) {
    for (int64_t i = 0; i < n; i++) sum += exp(in[i] - mx);
    double ls = log(sum);
    for (int64_t i = 0; i < n; i++) out[i] = (in[i] - mx) - ls;
    return;
  }
  for (int64_t i = 0; i < n; i++) {
    out[i] = exp(in[i] - mx);
    sum += out[i];
  }
  for (int64_t i = 0; i < n; i++) out[i] /= sum;
}

typedef struct {
  tfs_dtype dt;
  const void *x;
  void *o;
  int64_t n;
  int log_out;
  int failed; /* atomic: chunks on several threads may set it */
} sm_job;

static void softmax_range(void *arg, int64_t r0, int64_t r1) {
  sm_job *j = arg;
  int64_t n = j->n;
  if (j->dt == TFS_FLOAT && !j->log_out) {
    tfs_vm_softmax_f32((const float *)j->x + r0 * n, (float *)j->o + r0 * n,
                       r1 - r0, n);
    return;
  }
  if (j->dt == TFS_FLOAT) {
    for (int64_t r = r0; r < r1; r++)
      softmax_row_f32((const float *)j->x + r * n, (float *)j->o + r * n, n,
                      j->log_out);
    return;
  }
  if (j->dt == TFS_DOUBLE) {
    for (int64_t r = r0; r < r1; r++)
      softmax_row_f64((const double *)j->x + r * n, (double *)j->o + r * n, n,
                      j->log_out);
    return;
  }
  /* half / bfloat16: float row buffers per range */
  float *buf = tfs_malloc(sizeof(float) * 2 * (size_t)n);
  if (!buf) {
    __atomic_store_n(&j->failed, 1, __ATOMIC_RELAXED);
    return;
  }
  int half = j->dt == TFS_HALF;
  if (!half && !j->log_out) { /* widened and rounded in its passes */
    tfs_vm_softmax_bf16((const uint16_t *)j->x + r0 * n,
                        (uint16_t *)j->o + r0 * n, r1 - r0, n, buf);
    tfs_free(buf);
    return;
  }
  for (int64_t r = r0; r < r1; r++) {
    const uint16_t *in = (const uint16_t *)j->x + r * n;
    uint16_t *out = (uint16_t *)j->o + r * n;
    if (half)
      for (int64_t i = 0; i < n; i++) buf[i] = tfs_half_to_float(in[i]);
    else
      tfs_bf16_to_f32(in, buf, n);
    softmax_row_f32(buf, buf, n, j->log_out);
    if (half)
      for (int64_t i = 0; i < n; i++) out[i] = tfs_float_to_half(buf[i]);
    else
      tfs_bf16_from_f32(buf, out, n);
  }
  tfs_free(buf);
}

static void softmax_common(tfs_kernel_ctx *c, int log_out) {
  const tfs_tensor *x = c->inputs[0];
  char buf[TFS_SHAPE_STRLEN];
  if (x->shape.rank < 1) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "logits must have >= 1 dimension, got %s",
                  tfs_shape_str(&x->shape, buf, sizeof buf));
    return;
  }
  tfs_tensor *o = tfs_kctx_forward_or_alloc(c, 0, 0, &x->shape);
  if (!o || x->nelems == 0) return;
  int64_t n = x->shape.dims[x->shape.rank - 1];
  sm_job j = {x->dtype, x->data, o->data, n, log_out, 0};
  tfs_kctx_parallel_for(c, x->nelems / n, 8 * n, softmax_range, &j);
  if (__atomic_load_n(&j.failed, __ATOMIC_RELAXED))
    tfs_kctx_fail(c, TFS_RESOURCE_EXHAUSTED, "out of memory");
}

static void softmax_compute(tfs_kernel_ctx *c) {
  softmax_common(c, 0);
}
static void log_softmax_compute(tfs_kernel_ctx *c) {
  softmax_common(c, 1);
}

const tfs_kernel_def tfs_cpu_kernels_nn[] = {
    {"BiasAdd", "CPU", "T",
     TFS_DT_REAL | TFS_DT_BIT(TFS_COMPLEX64) | TFS_DT_BIT(TFS_COMPLEX128),
     bias_prepare, bias_compute, free, 0, NULL},
    {"BiasAddV1", "CPU", "T",
     TFS_DT_REAL | TFS_DT_BIT(TFS_COMPLEX64) | TFS_DT_BIT(TFS_COMPLEX128),
     bias_prepare, bias_compute, free, 0, NULL},
    {"Softmax", "CPU", "T", TFS_DT_FLOATS, NULL, softmax_compute, NULL, 0,
     NULL},
    {"LogSoftmax", "CPU", "T", TFS_DT_FLOATS, NULL, log_softmax_compute, NULL,
     0, NULL},
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL},
};
