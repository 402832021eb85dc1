/*
 * ops/nn_checks.c - BiasAdd's and FusedBatchNorm's runtime input checks
 * (TensorFlow's BiasOp and FusedBatchNormOp), shared by the CPU and the
 * CUDA kernels.
 */
#include "ops/nn_checks.h"

int tfs_bias_add_check(const tfs_shape *value, const tfs_shape *bias,
                       int nchw, int *channel_dim, tfs_status *st) {
  char x[TFS_SHAPE_STRLEN], y[TFS_SHAPE_STRLEN];
  if (value->rank < 2) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "Input tensor must be at least 2D: %s",
                    tfs_shape_str(value, x, sizeof x));
    return -1;
  }
  if (bias->rank != 1) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT, "Biases must be 1D: %s",
                    tfs_shape_str(bias, x, sizeof x));
    return -1;
  }
  int cdim = nchw ? 1 : value->rank - 1;
  if (bias->dims[0] != value->dims[cdim]) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "Must provide as many biases as the last dimension of "
                    "the input tensor: %s vs. %s",
                    tfs_shape_str(bias, x, sizeof x),
                    tfs_shape_str(value, y, sizeof y));
    return -1;
  }
  *channel_dim = cdim;
  return 0;
}

int tfs_fused_batch_norm_check(const tfs_shape *const in[5],
                               const tfs_batch_norm_attrs *a,
                               int64_t *channels, tfs_status *st) {
  static const char *const kNames[5] = {"x", "scale", "offset",
                                        "estimated_mean",
                                        "estimated_variance"};
  char buf[TFS_SHAPE_STRLEN];
  const tfs_shape *x = in[0];
  if (x->rank != 4 && x->rank != 5) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "input must be 4 or 5-dimensional%s",
                    tfs_shape_str(x, buf, sizeof buf));
    return -1;
  }
  for (int i = 1; i < 5; i++) {
    if (in[i]->rank == 1) continue;
    tfs_status_setf(st, TFS_INVALID_ARGUMENT, "%s must be 1-dimensional%s",
                    kNames[i], tfs_shape_str(in[i], buf, sizeof buf));
    return -1;
  }
  int64_t ch = x->dims[a->channels_first ? 1 : x->rank - 1];
  for (int i = 1; i < 3; i++) {
    if (in[i]->dims[0] == ch) continue;
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "%s must have the same number of elements as the "
                    "channels of x, got %lld and %lld", kNames[i],
                    (long long)in[i]->dims[0], (long long)ch);
    return -1;
  }
  if (!a->is_training || a->exponential_avg_factor != 1.0f) {
    for (int i = 3; i < 5; i++) {
      if (in[i]->dims[0] == ch) continue;
      tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                      "%s, %s must have the same number of elements as the "
                      "channels of x, got %lld and %lld",
                      a->is_training ? "When exponential_avg_factor != 1"
                                     : "When is_training=false",
                      i == 3 ? "mean" : "variance",
                      (long long)in[i]->dims[0], (long long)ch);
      return -1;
    }
  }
  *channels = ch;
  return 0;
}
