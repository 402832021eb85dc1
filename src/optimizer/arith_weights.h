/*
 * optimizer/arith_weights.h - the arithmetic optimizer's weight folding:
 * Mul/Div of a contraction's output by constants, or of its input by a
 * scalar, folded into the constant weights of MatMul, Conv2D and
 * DepthwiseConv2dNative, and the constant scales and shifts an inference
 * batch norm leaves after one, folded into the weights and a BiasAdd.
 * Also used by the remapper to fold batch norms.
 */
#ifndef TFS_OPTIMIZER_ARITH_WEIGHTS_H
#define TFS_OPTIMIZER_ARITH_WEIGHTS_H

#include "optimizer/optimizer.h"

/* Tries node v; returns 1 when rewritten, 0 when not applicable, -1 on
 * error. */
int tfs_arith__fold_weights(tfs_opt_ctx *c, int v);

/* Constant folding's push-down of a constant Mul into a convolution
 * (TensorFlow's MulConvPushDown): Mul(Conv2D(x, W), C) with W and C
 * constants, x not, the Conv2D read only there, C a scalar or one value
 * per output channel (NHWC; NCHW a scalar) -> Conv2D(x, W * C) under the
 * Mul's name, W * C a Const "<conv>/merged_input".  Returns as
 * tfs_arith__fold_weights. */
int tfs_arith__mul_conv_push_down(tfs_opt_ctx *c, int v);

/* Folds the constant affine maps a batch norm leaves after a contraction
 * (Mul through a BiasAdd into the weights and the bias; Add/AddV2/Sub of
 * a constant into a BiasAdd; arith_weights.c lists the forms).  Returns
 * 1 when node v was rewritten, 0 when not applicable, -1 on error. */
int tfs_arith__fold_affine(tfs_opt_ctx *c, int v);

/* The number of output channels of contraction node p (MatMul, Conv2D,
 * DepthwiseConv2dNative, NHWC) whose weights are the constant W, or -1. */
int64_t tfs_arith__out_channels(const tfs_ograph *g, int p,
                                const tfs_tensor *w);

/* A copy of contraction p's weights W with output channel j multiplied by
 * scale[j] (scale has `n` entries: 1 for a scalar, else the channel
 * count), of W's type (float, double or bfloat16, each product rounded
 * once).  NULL with st set on OOM, an unsupported layout or type. */
tfs_tensor *tfs_arith__scaled_weights(const tfs_ograph *g, int p,
                                      const tfs_tensor *w, const double *scale,
                                      int64_t n, tfs_status *st);

#endif
