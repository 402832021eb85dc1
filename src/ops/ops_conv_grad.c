/*
 * ops/ops_conv_grad.c - the convolution gradients the symbolic gradients
 * of Conv2D and DepthwiseConv2dNative emit: Conv2DBackpropFilter (and
 * V2, which takes the filter itself), DepthwiseConv2dNativeBackpropInput
 * and DepthwiseConv2dNativeBackpropFilter.  Signatures are TensorFlow
 * 2.21's; as there, shape inference reads the output shape from the
 * sizes vector (or V2's filter) and leaves the window checks to the
 * kernels.  Conv2DBackpropInput lives with Conv2D in ops_nn.c.
 */
#include "core/tensor.h"
#include "ops/op_tables.h"
#include "ops/shape_ctx.h"

/* Output shape from the 4-value sizes vector input i (TensorFlow's
 * MakeShapeFromShapeTensor then WithRank(4)). */
static int sizes_shape(tfs_shape_ctx *c, int i) {
  tfs_shape s;
  const tfs_tensor *t = tfs_sc_const(c, i);
  if (t && t->shape.rank == 1 &&
      (t->dtype == TFS_INT32 || t->dtype == TFS_INT64)) {
    s.rank = t->nelems <= TFS_MAX_RANK ? (int)t->nelems : -1;
    for (int k = 0; k < s.rank; k++) {
      int64_t v = tfs_tensor__get_as_int64(t, k);
      if (v < -1)
        return tfs_sc_error(c, "Invalid value in tensor used for shape: "
                            "%lld", (long long)v);
      s.dims[k] = v;
    }
    if (s.rank < 0)
      return tfs_sc_error(c, "Shape must be rank 4 but is rank %lld",
                          (long long)t->nelems);
  } else if (tfs_sc_input_as_shape(c, i, &s)) {
    return -1;
  }
  if (s.rank < 0) {
    tfs_shape_unknown_dims(&c->out_shapes[0], 4);
    return 0;
  }
  if (s.rank != 4)
    return tfs_sc_error(c, "Shape must be rank 4 but is rank %d", s.rank);
  c->out_shapes[0] = s;
  return 0;
}

static int filter_sizes_shape(tfs_shape_ctx *c) { return sizes_shape(c, 1); }
static int input_sizes_shape(tfs_shape_ctx *c) { return sizes_shape(c, 0); }

/* Conv2DBackpropFilterV2: the filter's shape, of rank 4. */
static int filter_v2_shape(tfs_shape_ctx *c) {
  if (tfs_sc_with_rank(c, 1, 4)) return -1;
  c->out_shapes[0] = c->in_shapes[1];
  if (c->out_shapes[0].rank < 0) tfs_shape_unknown_dims(&c->out_shapes[0], 4);
  return 0;
}

#define CONV_ATTRS                                                          \
  "T: {half, bfloat16, float, double}; strides: list(int); "                \
  "use_cudnn_on_gpu: bool = true; padding: {'SAME', 'VALID', 'EXPLICIT'}; " \
  "explicit_paddings: list(int) = []; data_format: {'NHWC', 'NCHW'} = "     \
  "'NHWC'; dilations: list(int) = [1, 1, 1, 1]"
#define DEPTHWISE_ATTRS                                                     \
  "T: {half, bfloat16, float, double}; strides: list(int); padding: "       \
  "{'SAME', 'VALID', 'EXPLICIT'}; explicit_paddings: list(int) = []; "      \
  "data_format: {'NHWC', 'NCHW'} = 'NHWC'; dilations: list(int) = [1, 1, "  \
  "1, 1]"

const tfs_op_spec tfs_ops_conv_grad[] = {
    {"Conv2DBackpropFilter", "input: T; filter_sizes: int32; out_backprop: T",
     "output: T", CONV_ATTRS, filter_sizes_shape, 0},
    {"Conv2DBackpropFilterV2", "input: T; filter: T; out_backprop: T",
     "output: T", CONV_ATTRS, filter_v2_shape, 0},
    {"DepthwiseConv2dNativeBackpropInput",
     "input_sizes: int32; filter: T; out_backprop: T", "output: T",
     DEPTHWISE_ATTRS, input_sizes_shape, 0},
    {"DepthwiseConv2dNativeBackpropFilter",
     "input: T; filter_sizes: int32; out_backprop: T", "output: T",
     DEPTHWISE_ATTRS, filter_sizes_shape, 0},
    {NULL, NULL, NULL, NULL, NULL, 0},
};
