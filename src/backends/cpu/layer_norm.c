/*
 * backends/cpu/layer_norm.c - _TfsLayerNorm(x, scale, offset): layer
 * normalization over the last dimension, the op the remapper makes of
 * Keras 3's LayerNormalization subgraph.  Each row is computed in the
 * order of that subgraph's ops: mean = sum / d, variance = mean of the
 * squared differences, m = 1 / sqrt(variance + epsilon) * scale, y = x * m
 * + (-mean * m + offset), so the results stay within rounding of
 * TensorFlow's (the sums are taken in another order); the rows are
 * row_ops.c's (AVX2 or portable, the same bits).
 */
#include <stdlib.h>

#include "core/alloc.h"
#include "backends/cpu/cpu_tables.h"
#include "backends/cpu/row_ops.h"
#include "backends/cpu/scale_shift.h"

typedef struct {
  const float *x, *scale, *offset;
  float *y;
  int64_t d;
  float eps;
} ln_job;

static void ln_rows(void *arg, int64_t b, int64_t e) {
  const ln_job *j = arg;
  tfs_row_layer_norm_f32(j->x + b * j->d, j->y + b * j->d, e - b, j->d,
                         j->scale, j->offset, j->eps);
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
