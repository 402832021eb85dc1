/*
 * backends/cpu/batch_norm.c - normalization layers: FusedBatchNorm and
 * FusedBatchNormV3 (inference with the given mean and variance; training
 * with batch statistics, Bessel-corrected running variance and the
 * exponential averaging factor, as TensorFlow's CPU kernel) and LRN.
 * x may be half or bfloat16 (V3); statistics are float.
 */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("tree-vectorize", "vect-cost-model=dynamic")
#endif

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/half.h"
#include "backends/cpu/cpu_tables.h"
#include "backends/cpu/lrn.h"
#include "ops/nn_checks.h"

typedef struct bn_state {
  float epsilon, factor;
  int training;
  int cfirst;  /* channel is dim 1 (NCHW, NCDHW), else the last dim */
  int v3;
} bn_state;

static int bn_prepare(tfs_kernel_init *ki) {
  bn_state *s = tfs_calloc(1, sizeof *s);
  if (!s) return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  ki->state = s;
  size_t len;
  const char *f = tfs_attrs_get_string(ki->attrs, "data_format", &len);
  s->epsilon = 1e-4f;
  s->factor = 1.0f;
  s->training = 1;
  tfs_attrs_get_float(ki->attrs, "epsilon", &s->epsilon);
  tfs_attrs_get_float(ki->attrs, "exponential_avg_factor", &s->factor);
  tfs_attrs_get_bool(ki->attrs, "is_training", &s->training);
  s->cfirst = f && (strcmp(f, "NCHW") == 0 || strcmp(f, "NCDHW") == 0);
  s->v3 = ki->noutputs == 6;
  tfs_dtype u;
  if (s->v3 && tfs_attrs_get_type(ki->attrs, "U", &u) == 0 &&
      u != TFS_FLOAT)
    return tfs_ki_error(ki, TFS_UNIMPLEMENTED,
                        "FusedBatchNormV3 is only implemented for U=float "
                        "on CPU, got U=%s", tfs_dtype_name(u));
  return 0;
}

/* x element i as float, and the store back. */
static inline float ld(const void *p, tfs_dtype dt, int64_t i) {
  if (dt == TFS_FLOAT) return ((const float *)p)[i];
  uint16_t v = ((const uint16_t *)p)[i];
  return dt == TFS_HALF ? tfs_half_to_float(v) : tfs_bf16_to_float(v);
}
static inline void st(void *p, tfs_dtype dt, int64_t i, float v) {
  if (dt == TFS_FLOAT)
    ((float *)p)[i] = v;
  else
    ((uint16_t *)p)[i] =
        dt == TFS_HALF ? tfs_float_to_half(v) : tfs_float_to_bf16(v);
}

/* Layout: `outer` blocks of `ch` channels of `inner` elements (NCHW:
 * outer = N, inner = H*W; NHWC: outer = N*H*W, inner = 1). */
typedef struct bn_job {
  const void *x;
  void *y;
  tfs_dtype dt;
  int64_t outer, ch, inner;
  const float *mean, *mul, *offset; /* y = (x - mean) * mul + offset */
} bn_job;

static void bn_apply_range(void *arg, int64_t r0, int64_t r1) {
  const bn_job *j = arg;
  const float *restrict mean = j->mean, *restrict mul = j->mul;
  const float *restrict off = j->offset;
  const int64_t ch = j->ch, inner = j->inner;
  if (j->dt == TFS_FLOAT) { /* vector loops (x and y may be one buffer) */
    const float *x = j->x;
    float *y = j->y;
    for (int64_t r = r0; r < r1; r++) {
      if (inner == 1) { /* a row is one pixel's channels */
        const float *xr = x + r * ch;
        float *yr = y + r * ch;
        for (int64_t c = 0; c < ch; c++)
          yr[c] = (xr[c] - mean[c]) * mul[c] + off[c];
      } else { /* a row is one channel's plane */
        const float m = mean[r % ch], a = mul[r % ch], o = off[r % ch];
        const float *xr = x + r * inner;
        float *yr = y + r * inner;
        for (int64_t k = 0; k < inner; k++) yr[k] = (xr[k] - m) * a + o;
      }
    }
    return;
  }
  /* 16-bit x: r indexes pixels (NHWC) or (outer, channel) planes */
  for (int64_t r = r0; r < r1; r++) {
    int64_t n = inner == 1 ? ch : inner, base = r * n;
    for (int64_t k = 0; k < n; k++) {
      int64_t c = inner == 1 ? k : r % ch;
      float v = ld(j->x, j->dt, base + k);
      st(j->y, j->dt, base + k, (v - mean[c]) * mul[c] + off[c]);
    }
  }
}

/* Per-channel batch mean and biased variance (two passes, double sums). */
static void batch_stats(const bn_job *j, double *mean, double *var) {
  int64_t rest = j->outer * j->inner;
  for (int64_t c = 0; c < j->ch; c++) mean[c] = var[c] = 0;
  for (int pass = 0; pass < 2; pass++) {
    for (int64_t o = 0; o < j->outer; o++)
      for (int64_t c = 0; c < j->ch; c++)
        for (int64_t k = 0; k < j->inner; k++) {
          double v = ld(j->x, j->dt, (o * j->ch + c) * j->inner + k);
          if (pass == 0)
            mean[c] += v;
          else
            var[c] += (v - mean[c]) * (v - mean[c]);
        }
    for (int64_t c = 0; c < j->ch; c++) {
      if (pass == 0)
        mean[c] /= (double)rest;
      else
        var[c] /= (double)rest;
    }
  }
}

/* TensorFlow's input checks (ops/nn_checks.c); -1 after failing c. */
static int bn_check(tfs_kernel_ctx *c, const bn_state *s, int64_t *ch) {
  const tfs_shape *in[5];
  for (int i = 0; i < 5; i++) in[i] = &c->inputs[i]->shape;
  tfs_batch_norm_attrs a = {s->cfirst, s->training, s->factor};
  if (tfs_fused_batch_norm_check(in, &a, ch, c->st)) {
    tfs_kctx_fail_status(c, c->st);
    return -1;
  }
  return 0;
}

/* Training statistics into outputs 1..4 and mul/mean for y. */
static void bn_training(tfs_kernel_ctx *c, const bn_state *s, bn_job *j,
                        float **outs, float *mul, float *meanf,
                        double *tmp) {
  const float *scale = c->inputs[1]->data;
  const float *old_mean = c->inputs[3]->data, *old_var = c->inputs[4]->data;
  double *mean = tmp, *var = tmp + j->ch;
  batch_stats(j, mean, var);
  int64_t rest = j->outer * j->inner;
  float adjust = (float)rest / (float)(rest > 1 ? rest - 1 : 1);
  float f = s->factor;
  for (int64_t ch = 0; ch < j->ch; ch++) {
    float m = (float)mean[ch], v = (float)var[ch];
    meanf[ch] = m;
    mul[ch] = (1.0f / sqrtf(v + s->epsilon)) * scale[ch];
    outs[3][ch] = m;
    outs[4][ch] = v;
    if (f == 1.0f) {
      outs[1][ch] = m;
      outs[2][ch] = v * adjust;
    } else {
      outs[1][ch] = (1.0f - f) * old_mean[ch] + f * m;
      outs[2][ch] = (1.0f - f) * old_var[ch] + (f * adjust) * v;
    }
  }
}

static void bn_compute(tfs_kernel_ctx *c) {
  const bn_state *s = c->state;
  const tfs_tensor *x = c->inputs[0];
  int64_t ch;
  if (bn_check(c, s, &ch)) return;
  tfs_tensor *y = tfs_kctx_forward_or_alloc(c, 0, 0, &x->shape);
  float *outs[5] = {NULL};
  for (int i = 1; i < 5 && y; i++) {
    tfs_tensor *t = tfs_kctx_alloc_output(c, i, &c->inputs[1]->shape);
    if (!t) return;
    outs[i] = t->data;
    memset(t->data, 0, t->nbytes);
  }
  if (!y) return;
  if (s->v3) {
    tfs_shape sc;
    tfs_shape_scalar(&sc);
    tfs_tensor *r3 = tfs_kctx_alloc_output(c, 5, &sc);
    if (!r3) return;
    memset(r3->data, 0, r3->nbytes);
  }
  if (x->nelems == 0) {
    for (int64_t i = 0; i < ch; i++) outs[1][i] = outs[2][i] = NAN;
    return;
  }
  bn_job j = {x->data, y->data, x->dtype, 0, ch, 1, NULL, NULL,
              c->inputs[2]->data};
  int r = x->shape.rank;
  if (s->cfirst) {
    j.outer = x->shape.dims[0];
    for (int d = 2; d < r; d++) j.inner *= x->shape.dims[d];
  } else {
    j.outer = x->nelems / ch;
  }
  float *buf = tfs_malloc(sizeof(float) * 2 * (size_t)ch +
                          sizeof(double) * 2 * (size_t)ch);
  if (!buf) {
    tfs_kctx_fail(c, TFS_RESOURCE_EXHAUSTED, "out of memory");
    return;
  }
  float *mul = buf, *meanf = buf + ch;
  double *tmp = (double *)(void *)(buf + 2 * ch);
  if (s->training) {
    bn_training(c, s, &j, outs, mul, meanf, tmp);
  } else {
    const float *scale = c->inputs[1]->data, *mean = c->inputs[3]->data;
    const float *var = c->inputs[4]->data;
    for (int64_t i = 0; i < ch; i++) {
      meanf[i] = mean[i];
      mul[i] = (1.0f / sqrtf(var[i] + s->epsilon)) * scale[i];
      outs[1][i] = mean[i];
      outs[2][i] = var[i];
    }
  }
  j.mean = meanf;
  j.mul = mul;
  int64_t rows = j.inner == 1 ? j.outer : j.outer * ch;
  int64_t per = j.inner == 1 ? ch : j.inner;
  tfs_kctx_parallel_for(c, rows, per * 2 + 1, bn_apply_range, &j);
  tfs_free(buf);
}

/* ---- LRN ----------------------------------------------------------------- */

int tfs_lrn_prepare(tfs_kernel_init *ki) {
  tfs_lrn_state *s = tfs_calloc(1, sizeof *s);
  if (!s) return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  ki->state = s;
  s->radius = 5;
  s->bias = 1.0f;
  s->alpha = 1.0f;
  s->beta = 0.5f;
  tfs_attrs_get_int(ki->attrs, "depth_radius", &s->radius);
  tfs_attrs_get_float(ki->attrs, "bias", &s->bias);
  tfs_attrs_get_float(ki->attrs, "alpha", &s->alpha);
  tfs_attrs_get_float(ki->attrs, "beta", &s->beta);
  if (s->radius < 0 || s->radius > INT32_MAX)
    return tfs_ki_error(ki, TFS_INVALID_ARGUMENT,
                        "depth_radius = %lld larger than int max",
                        (long long)s->radius);
  return 0;
}

typedef struct {
  const tfs_lrn_state *s;
  const void *x;
  void *y;
  tfs_dtype dt;
  int64_t ch;
  int failed; /* atomic: chunks on several threads may set it */
} lrn_job;

static void lrn_range(void *arg, int64_t r0, int64_t r1) {
  lrn_job *j = arg;
  const tfs_lrn_state *s = j->s;
  int64_t C = j->ch;
  float *sq = tfs_malloc(sizeof(float) * 2 * (size_t)C);
  if (!sq) {
    __atomic_store_n(&j->failed, 1, __ATOMIC_RELAXED);
    return;
  }
  float *xs = sq + C;
  for (int64_t r = r0; r < r1; r++) {
    for (int64_t k = 0; k < C; k++) {
      xs[k] = ld(j->x, j->dt, r * C + k);
      sq[k] = xs[k] * xs[k];
    }
    for (int64_t k = 0; k < C; k++) {
      int64_t lo = k - s->radius < 0 ? 0 : k - s->radius;
      int64_t hi = k + s->radius >= C ? C - 1 : k + s->radius;
      float sum = 0;
      for (int64_t q = lo; q <= hi; q++) sum += sq[q];
      float d = s->bias + s->alpha * sum, m;
      if (s->beta == 1.0f)
        m = 1.0f / d;
      else if (s->beta == 0.5f)
        m = 1.0f / sqrtf(d);
      else
        m = expf(logf(d) * -s->beta);
      st(j->y, j->dt, r * C + k, xs[k] * m);
    }
  }
  tfs_free(sq);
}

static void lrn_compute(tfs_kernel_ctx *c) {
  const tfs_tensor *x = c->inputs[0];
  if (x->shape.rank != 4) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "in must be 4-dimensional");
    return;
  }
  tfs_tensor *y = tfs_kctx_alloc_output(c, 0, &x->shape);
  if (!y || x->nelems == 0) return;
  lrn_job j = {c->state, x->data, y->data, x->dtype, x->shape.dims[3], 0};
  int64_t rad = j.s->radius < j.ch ? j.s->radius : j.ch;
  tfs_kctx_parallel_for(c, x->nelems / j.ch, j.ch * (2 * rad + 8), lrn_range,
                        &j);
  if (__atomic_load_n(&j.failed, __ATOMIC_RELAXED))
    tfs_kctx_fail(c, TFS_RESOURCE_EXHAUSTED, "out of memory");
}

const tfs_kernel_def tfs_cpu_kernels_batch_norm[] = {
    {"FusedBatchNorm", "CPU", "T", TFS_DT_BIT(TFS_FLOAT), bn_prepare,
     bn_compute, free, 0, NULL},
    {"FusedBatchNormV2", "CPU", "T",
     TFS_DT_BIT(TFS_FLOAT) | TFS_DT_BIT(TFS_HALF) | TFS_DT_BIT(TFS_BFLOAT16),
     bn_prepare, bn_compute, free, 0, NULL},
    {"FusedBatchNormV3", "CPU", "T",
     TFS_DT_BIT(TFS_FLOAT) | TFS_DT_BIT(TFS_HALF) | TFS_DT_BIT(TFS_BFLOAT16),
     bn_prepare, bn_compute, free, 0, NULL},
    {"LRN", "CPU", "T", TFS_DT_BIT(TFS_FLOAT) | TFS_DT_BIT(TFS_HALF),
     tfs_lrn_prepare, lrn_compute, free, 0, NULL},
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL},
};
