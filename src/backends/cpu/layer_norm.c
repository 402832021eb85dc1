/*
 * backends/cpu/layer_norm.c - _TfsLayerNorm(x, scale, offset): layer
 * normalization over the last dimension, the op the remapper makes of
 * Keras 3's LayerNormalization subgraph.  Each row is computed in the
 * order of that subgraph's ops: mean = sum / d, variance = mean of the
 * squared differences, m = 1 / sqrt(variance + epsilon) * scale, y = x * m
 * + (-mean * m + offset), so the results stay within rounding of
 * TensorFlow's (the sums are taken in another order).
 */
#include <math.h>
#include <stdlib.h>

#include "core/alloc.h"
#include "backends/cpu/cpu_tables.h"
#include "backends/cpu/scale_shift.h"

typedef struct {
  const float *x, *scale, *offset;
  float *y;
  int64_t d;
  float eps;
} ln_job;

/* The sum of v[0..n) over eight running partial sums (a vector's lanes). */
static float sum8(const float *v, int64_t n) {
  float acc[8] = {0};
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    for (int k = 0; k < 8; k++) acc[k] += v[i + k];
  float s = 0;
  for (; i < n; i++) s += v[i];
  return s + ((acc[0] + acc[4]) + (acc[1] + acc[5])) +
         ((acc[2] + acc[6]) + (acc[3] + acc[7]));
}

static float sq_dev8(const float *v, int64_t n, float mean) {
  float acc[8] = {0};
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    for (int k = 0; k < 8; k++) {
      float t = v[i + k] - mean;
      acc[k] += t * t;
    }
  float s = 0;
  for (; i < n; i++) s += (v[i] - mean) * (v[i] - mean);
  return s + ((acc[0] + acc[4]) + (acc[1] + acc[5])) +
         ((acc[2] + acc[6]) + (acc[3] + acc[7]));
}

static void ln_rows(void *arg, int64_t b, int64_t e) {
  const ln_job *j = arg;
  int64_t d = j->d;
  for (int64_t r = b; r < e; r++) {
    const float *x = j->x + r * d;
    float *y = j->y + r * d;
    float mean = sum8(x, d) / (float)d;
    float var = sq_dev8(x, d, mean) / (float)d;
    float rs = 1.0f / sqrtf(var + j->eps), nm = -mean;
    for (int64_t i = 0; i < d; i++) {
      float m = rs * j->scale[i];
      y[i] = x[i] * m + (nm * m + j->offset[i]);
    }
  }
}

static int ln_prepare(tfs_kernel_init *ki) {
  float *eps = tfs_malloc(sizeof *eps);
  if (!eps) return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  *eps = 0.001f;
  tfs_attrs_get_float(ki->attrs, "epsilon", eps);
  ki->state = eps;
  return 0;
}

static void ln_compute(tfs_kernel_ctx *c) {
  const tfs_tensor *x = c->inputs[0], *s = c->inputs[1], *o = c->inputs[2];
  int64_t d = tfs_channel_vectors_check(c);
  if (d < 0) return;
  tfs_tensor *y = tfs_kctx_forward_or_alloc(c, 0, 0, &x->shape);
  if (!y || x->nelems == 0) return;
  ln_job j = {x->data, s->data, o->data, y->data, d,
              *(const float *)c->state};
  tfs_kctx_parallel_for(c, x->nelems / d, 6 * d, ln_rows, &j);
}

const tfs_kernel_def tfs_cpu_kernels_layer_norm[] = {
    {"_TfsLayerNorm", "CPU", "T", TFS_DT_BIT(TFS_FLOAT), ln_prepare,
     ln_compute, tfs_free, 0, NULL},
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL},
};
