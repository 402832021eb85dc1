/*
 * backends/cpu/layer_norm.c - _TfsLayerNorm(x, scale, offset): layer
 * normalization over the last dimension, the op the remapper makes of
 * Keras 3's LayerNormalization subgraph.  Each row is computed in the
 * order of that subgraph's ops: mean = sum / d, variance = mean of the
 * squared differences, m = 1 / sqrt(variance + epsilon) * scale, y = x * m
 * + (-mean * m + offset), so the results stay within rounding of
 * TensorFlow's (the sums are taken in another order); the rows are
 * row_ops.c's (AVX2 or portable, the same bits).
 * _TfsAddLayerNorm(x, scale, offset, addend), the remapper's layer
 * normalization of a residual connection's sum: each row is x + addend
 * rounded to float, as AddV2 gives it, then normalized while it is in L1.
 */
#include <stdlib.h>

#include "core/alloc.h"
#include "backends/cpu/cpu_tables.h"
#include "backends/cpu/row_ops.h"
#include "backends/cpu/scale_shift.h"

typedef struct {
  const float *x, *scale, *offset, *addend;
  float *y;
  int64_t d;
  float eps;
} ln_job;

static void ln_rows(void *arg, int64_t b, int64_t e) {
  const ln_job *j = arg;
  const int64_t d = j->d;
  if (!j->addend) {
    tfs_row_layer_norm_f32(j->x + b * d, j->y + b * d, e - b, d, j->scale,
                           j->offset, j->eps);
    return;
  }
  for (int64_t r = b; r < e; r++) {
    float *y = j->y + r * d;
    tfs_row_add_f32(j->x + r * d, j->addend + r * d, y, d);
    tfs_row_layer_norm_f32(y, y, 1, d, j->scale, j->offset, j->eps);
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
  const tfs_tensor *a = c->ninputs > 3 ? c->inputs[3] : NULL;
  if (a && !tfs_shape_equal(&a->shape, &x->shape)) {
    char xs[TFS_SHAPE_STRLEN], as[TFS_SHAPE_STRLEN];
    tfs_shape_str(&x->shape, xs, sizeof xs);
    tfs_shape_str(&a->shape, as, sizeof as);
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "addend must have the shape of x, %s, got %s", xs, as);
    return;
  }
  tfs_tensor *y = tfs_kctx_forward_or_alloc(c, 0, 0, &x->shape);
  if (!y || x->nelems == 0) return;
  ln_job j = {x->data, s->data, o->data, a ? a->data : NULL, y->data, d,
              *(const float *)c->state};
  tfs_kctx_parallel_for(c, x->nelems / d, 6 * d, ln_rows, &j);
}

const tfs_kernel_def tfs_cpu_kernels_layer_norm[] = {
    {"_TfsLayerNorm", "CPU", "T", TFS_DT_BIT(TFS_FLOAT), ln_prepare,
     ln_compute, tfs_free, 0, NULL},
    {"_TfsAddLayerNorm", "CPU", "T", TFS_DT_BIT(TFS_FLOAT), ln_prepare,
     ln_compute, tfs_free, 0, NULL},
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL},
};
