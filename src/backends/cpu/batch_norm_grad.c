/*
 * backends/cpu/batch_norm_grad.c - FusedBatchNormGrad, FusedBatchNormGradV2
 * and FusedBatchNormGradV3 (x may be half or bfloat16 in V2 and V3; the
 * statistics are float) and LRNGrad.
 *
 * The batch-norm gradients take the forward op's reserve_space_1 and
 * reserve_space_2 as TensorFlow's CPU kernels define them: with
 * is_training, the batch mean and the biased batch variance (what
 * FusedBatchNorm's CPU kernel, here and in TensorFlow, puts there); without
 * it, the population mean and variance the forward op was given (NHWC and
 * NDHWC only, as there).  Sums are
 * taken in double.  reserve_space_3 (V3) is not read; the two trailing
 * outputs are empty.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/half.h"
#include "backends/cpu/cpu_tables.h"
#include "backends/cpu/lrn.h"

typedef struct bng_state {
  float epsilon;
  int training;
  int cfirst; /* channel is dim 1 (NCHW, NCDHW), else the last dim */
} bng_state;

static int bng_prepare(tfs_kernel_init *ki) {
  bng_state *s = tfs_calloc(1, sizeof *s);
  if (!s) return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  ki->state = s;
  size_t len;
  const char *f = tfs_attrs_get_string(ki->attrs, "data_format", &len);
  s->epsilon = 1e-4f;
  s->training = 1;
  tfs_attrs_get_float(ki->attrs, "epsilon", &s->epsilon);
  tfs_attrs_get_bool(ki->attrs, "is_training", &s->training);
  s->cfirst = f && (strcmp(f, "NCHW") == 0 || strcmp(f, "NCDHW") == 0);
  return 0;
}

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

/* TensorFlow's checks on the five inputs, in its order; -1 after failing.
 * *ch is the channel count. */
static int bng_check(tfs_kernel_ctx *c, const bng_state *s, int64_t *ch) {
  const tfs_shape *dy = &c->inputs[0]->shape, *x = &c->inputs[1]->shape;
  static const char *const kVec[3] = {"scale", "saved mean",
                                      "saved variance"};
  static const char *const kVecName[3] = {"scale", "reserve_space_1",
                                          "reserve_space_2"};
  char a[160], b[160];
  for (int i = 0; i < 2; i++) {
    const tfs_shape *t = i ? x : dy;
    if (t->rank != 4 && t->rank != 5) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "input must be 4 or 5-dimensional%s",
                    tfs_shape_str(t, a, sizeof a));
      return -1;
    }
  }
  for (int i = 0; i < 3; i++) {
    const tfs_shape *t = &c->inputs[2 + i]->shape;
    if (t->rank != 1) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "%s must be 1-dimensional%s",
                    kVec[i], tfs_shape_str(t, a, sizeof a));
      return -1;
    }
  }
  if (!tfs_shape_equal(x, dy)) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "x and y_backprop must have same shape, but x has shape "
                  "%s and y_backprop has shape %s",
                  tfs_shape_str(x, a, sizeof a),
                  tfs_shape_str(dy, b, sizeof b));
    return -1;
  }
  *ch = x->dims[s->cfirst ? 1 : x->rank - 1];
  for (int i = 0; i < 3; i++) {
    int64_t n = c->inputs[2 + i]->nelems;
    if (n != *ch) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "%s must have the same number of elements as the "
                    "channels of x, got %lld and %lld", kVecName[i],
                    (long long)n, (long long)*ch);
      return -1;
    }
  }
  return 0;
}

/* Element (o, channel k, i) of the layout `outer` x ch x `inner`. */
#define AT(o, k, i) (((o) * ch + (k)) * inner + (i))

/* Per-channel sums of dy and of dy * (x - mean) into sd and sdx. */
static void bng_sums(const tfs_tensor *dy, const tfs_tensor *x,
                     const float *mean, int64_t outer, int64_t ch,
                     int64_t inner, double *sd, double *sdx) {
  for (int64_t k = 0; k < ch; k++) sd[k] = sdx[k] = 0;
  for (int64_t o = 0; o < outer; o++)
    for (int64_t k = 0; k < ch; k++)
      for (int64_t i = 0; i < inner; i++) {
        int64_t e = AT(o, k, i);
        double g = ld(dy->data, dy->dtype, e);
        sd[k] += g;
        sdx[k] += g * ((double)ld(x->data, x->dtype, e) - mean[k]);
      }
}

static void bng_compute(tfs_kernel_ctx *c) {
  const bng_state *s = c->state;
  int64_t ch;
  if (bng_check(c, s, &ch)) return;
  if (!s->training && s->cfirst) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "The implementation of FusedBatchNormGrad with "
                  "is_training=False only support NHWC tensor format for "
                  "now.");
    return;
  }
  const tfs_tensor *dy = c->inputs[0], *x = c->inputs[1];
  const float *scale = c->inputs[2]->data, *mean = c->inputs[3]->data;
  const float *var = c->inputs[4]->data;
  tfs_tensor *dx = tfs_kctx_alloc_output(c, 0, &x->shape);
  if (!dx) return;
  float *outs[2];
  tfs_shape vs, es;
  tfs_shape_1d(&vs, ch);
  tfs_shape_1d(&es, 0);
  for (int i = 0; i < 2; i++) {
    tfs_tensor *t = tfs_kctx_alloc_output(c, 1 + i, &vs);
    if (!t) return;
    outs[i] = t->data;
    memset(t->data, 0, t->nbytes);
  }
  for (int i = 3; i < 5; i++)
    if (!tfs_kctx_alloc_output(c, i, &es)) return;
  if (x->nelems == 0) return;
  int64_t outer = 1, inner = 1, r = x->shape.rank;
  if (s->cfirst) {
    outer = x->shape.dims[0];
    for (int d = 2; d < r; d++) inner *= x->shape.dims[d];
  } else {
    outer = x->nelems / ch;
  }
  double *sums = tfs_malloc(sizeof(double) * 2 * (size_t)ch);
  if (!sums) {
    tfs_kctx_fail(c, TFS_RESOURCE_EXHAUSTED, "out of memory");
    return;
  }
  double *sd = sums, *sdx = sums + ch, n = (double)(outer * inner);
  bng_sums(dy, x, mean, outer, ch, inner, sd, sdx);
  for (int64_t k = 0; k < ch; k++) {
    double inv = 1.0 / sqrt((double)(var[k] + s->epsilon));
    outs[0][k] = (float)(sdx[k] * inv);
    outs[1][k] = (float)sd[k];
    double a = scale[k] * inv, mdy = sd[k] / n, mdx = sdx[k] / n * inv * inv;
    for (int64_t o = 0; o < outer; o++)
      for (int64_t i = 0; i < inner; i++) {
        int64_t e = AT(o, k, i);
        double g = ld(dy->data, dy->dtype, e), v;
        if (s->training) {
          double xc = (double)ld(x->data, x->dtype, e) - mean[k];
          v = a * (g - mdy - xc * mdx);
        } else {
          v = g * a;
        }
        st(dx->data, dx->dtype, e, (float)v);
      }
  }
  tfs_free(sums);
}

/* ---- LRNGrad --------------------------------------------------------------
 * TensorFlow's CPU kernel works in T: each step is rounded to T here too
 * (rnd is the identity for float). */

typedef struct {
  const tfs_lrn_state *s;
  const void *g, *in, *out;
  float *acc; /* float accumulator for the whole output */
  tfs_dtype dt;
  int64_t ch;
} lrng_job;

static inline float rnd(tfs_dtype dt, float v) {
  return dt == TFS_HALF ? tfs_half_to_float(tfs_float_to_half(v)) : v;
}

static void lrng_range(void *arg, int64_t r0, int64_t r1) {
  const lrng_job *j = arg;
  const tfs_lrn_state *s = j->s;
  const tfs_dtype dt = j->dt;
  const int64_t C = j->ch;
  const float alpha = rnd(dt, s->alpha), beta = rnd(dt, s->beta);
  const float bias = rnd(dt, s->bias);
  const float m2ab = rnd(dt, rnd(dt, -2.0f * alpha) * beta);
  for (int64_t r = r0; r < r1; r++) {
    const int64_t base = r * C;
    float *acc = j->acc + base;
    for (int64_t q = 0; q < C; q++) {
      int64_t lo = q - s->radius < 0 ? 0 : q - s->radius;
      int64_t hi = q + s->radius + 1 > C ? C : q + s->radius + 1;
      float norm = 0;
      for (int64_t k = lo; k < hi; k++) {
        float v = ld(j->in, dt, base + k);
        norm = rnd(dt, norm + rnd(dt, v * v));
      }
      norm = rnd(dt, rnd(dt, alpha * norm) + bias);
      float pw = rnd(dt, powf(norm, -beta));
      float oq = ld(j->out, dt, base + q), gq = ld(j->g, dt, base + q);
      for (int64_t k = lo; k < hi; k++) {
        float d = rnd(dt, m2ab * ld(j->in, dt, base + k));
        d = rnd(dt, rnd(dt, d * oq) / norm);
        if (k == q) d = rnd(dt, d + pw);
        d = rnd(dt, d * gq);
        acc[k] = rnd(dt, acc[k] + d);
      }
    }
  }
}

static void lrng_compute(tfs_kernel_ctx *c) {
  const tfs_tensor *g = c->inputs[0], *in = c->inputs[1];
  const tfs_tensor *out = c->inputs[2];
  if (g->shape.rank != 4 || in->shape.rank != 4 || out->shape.rank != 4) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "inputs must be 4-dimensional");
    return;
  }
  if (!tfs_shape_equal(&g->shape, &in->shape) ||
      !tfs_shape_equal(&g->shape, &out->shape)) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "input_grads, input_image, and out_image should have the "
                  "same shape");
    return;
  }
  tfs_tensor *y = tfs_kctx_alloc_output(c, 0, &in->shape);
  if (!y || in->nelems == 0) return;
  float *acc = tfs_calloc((size_t)in->nelems, sizeof(float));
  if (!acc) {
    tfs_kctx_fail(c, TFS_RESOURCE_EXHAUSTED, "out of memory");
    return;
  }
  lrng_job j = {c->state, g->data, in->data, out->data, acc, in->dtype,
                in->shape.dims[3]};
  int64_t rad = j.s->radius < j.ch ? j.s->radius : j.ch;
  tfs_kctx_parallel_for(c, in->nelems / j.ch, j.ch * (4 * rad + 8),
                        lrng_range, &j);
  for (int64_t i = 0; i < in->nelems; i++) st(y->data, y->dtype, i, acc[i]);
  tfs_free(acc);
}

#define BN_T                                                                \
  (TFS_DT_BIT(TFS_FLOAT) | TFS_DT_BIT(TFS_HALF) | TFS_DT_BIT(TFS_BFLOAT16))

const tfs_kernel_def tfs_cpu_kernels_batch_norm_grad[] = {
    {"FusedBatchNormGrad", "CPU", "T", TFS_DT_BIT(TFS_FLOAT), bng_prepare,
     bng_compute, free, 0, NULL},
    {"FusedBatchNormGradV2", "CPU", "T", BN_T, bng_prepare, bng_compute,
     free, 0, NULL},
    {"FusedBatchNormGradV3", "CPU", "T", BN_T, bng_prepare, bng_compute,
     free, 0, NULL},
    {"LRNGrad", "CPU", "T", TFS_DT_BIT(TFS_FLOAT) | TFS_DT_BIT(TFS_HALF),
     tfs_lrn_prepare, lrng_compute, free, 0, NULL},
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL},
};
