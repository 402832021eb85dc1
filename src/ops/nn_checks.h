/*
 * ops/nn_checks.h - the runtime input checks of BiasAdd and FusedBatchNorm
 * (V1, V2, V3; inference and training) with TensorFlow's messages; called
 * by the CPU and the CUDA kernels alike.
 */
#ifndef TFS_OPS_NN_CHECKS_H
#define TFS_OPS_NN_CHECKS_H

#include "core/shape.h"
#include "core/status.h"

/* BiasAdd (and BiasAddV1) of bias on value; nchw: data_format "NCHW"
 * (channels in dim 1), else channels last.  The output has value's
 * shape; *channel_dim is the dim of value the bias runs along.  Returns
 * 0, or -1 with INVALID_ARGUMENT in st:
 *   "Input tensor must be at least 2D: [4]"
 *   "Biases must be 1D: [1,4]"
 *   "Must provide as many biases as the last dimension of the input
 *    tensor: [3] vs. [2,4]" (also for NCHW, as TensorFlow says it) */
int tfs_bias_add_check(const tfs_shape *value, const tfs_shape *bias,
                       int nchw, int *channel_dim, tfs_status *st);

/* FusedBatchNorm's attrs that its input checks read. */
typedef struct tfs_batch_norm_attrs {
  int channels_first; /* data_format NCHW or NCDHW, else channels last */
  int is_training;
  float exponential_avg_factor; /* 1 when the op has none */
} tfs_batch_norm_attrs;

/* FusedBatchNorm's inputs in[0..4]: x, scale, offset, estimated_mean,
 * estimated_variance.  x is 4- or 5-D; the others 1-D; scale and offset
 * hold one element per channel of x, and so do mean and variance when
 * they are read (inference, or training with exponential_avg_factor !=
 * 1).  *channels: the channels of x (y has x's shape; batch_mean,
 * batch_variance and the reserve spaces 1 and 2 are [channels]).
 * Returns 0, or -1 with INVALID_ARGUMENT in st:
 *   "input must be 4 or 5-dimensional[4,4,3]"
 *   "scale must be 1-dimensional[1,3]" (offset, estimated_mean,
 *    estimated_variance likewise)
 *   "scale must have the same number of elements as the channels of x,
 *    got 2 and 3" (offset likewise)
 *   "When is_training=false, mean must have the same number of elements
 *    as the channels of x, got 2 and 3" (variance likewise; "When
 *    exponential_avg_factor != 1, mean ..." in training) */
int tfs_fused_batch_norm_check(const tfs_shape *const in[5],
                               const tfs_batch_norm_attrs *a,
                               int64_t *channels, tfs_status *st);

#endif
