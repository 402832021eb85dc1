/*
 * ops/ops_grad.c - the gradient ops that symbolic differentiation emits:
 * the activation gradients (ReluGrad ... SoftsignGrad, which take the
 * incoming gradient and the forward op's features or outputs), the
 * (y, dy) gradients of Sigmoid, Tanh, Rsqrt, Sqrt and Reciprocal (and
 * InvGrad, Reciprocal's old name), BiasAddGrad, BroadcastGradientArgs and
 * StridedSliceGrad.  Signatures are TensorFlow 2.21's; shape functions
 * follow its shape inference and its wording.
 */
#include <string.h>

#include "core/status.h"
#include "ops/array_shape_fns.h"
#include "ops/op_tables.h"
#include "ops/shape_ctx.h"

/* TensorFlow's MergeBothInputsShapeFn: the merge of inputs 0 and 1. */
static int merge_both_shape(tfs_shape_ctx *c) {
  tfs_shape out;
  if (tfs_sc_merge_shapes(c, &c->in_shapes[0], &c->in_shapes[1], &out))
    return -1;
  c->out_shapes[0] = out;
  return 0;
}

/* A vector of the channel dim: dim 1 for NCHW (rank >= 3), the last dim
 * for NHWC (rank >= 2). */
static int bias_add_grad_shape(tfs_shape_ctx *c) {
  size_t len;
  const char *fmt = tfs_attrs_get_string(c->attrs, "data_format", &len);
  int nchw = fmt && len == 4 && memcmp(fmt, "NCHW", 4) == 0;
  const tfs_shape *in = &c->in_shapes[0];
  if (tfs_sc_with_rank_at_least(c, 0, nchw ? 3 : 2)) return -1;
  tfs_shape_1d(&c->out_shapes[0],
               in->rank < 0 ? -1 : in->dims[nchw ? 1 : in->rank - 1]);
  return 0;
}

static int broadcast_gradient_args_shape(tfs_shape_ctx *c) {
  if (tfs_sc_with_rank(c, 0, 1) || tfs_sc_with_rank(c, 1, 1)) return -1;
  tfs_shape_1d(&c->out_shapes[0], -1);
  tfs_shape_1d(&c->out_shapes[1], -1);
  return 0;
}

/* The output is shaped by input 0 (MakeShapeFromShapeTensor). */
static int strided_slice_grad_shape(tfs_shape_ctx *c) {
  tfs_shape out;
  if (tfs_sc_with_rank(c, 0, 1) || tfs_sc_input_as_shape(c, 0, &out))
    return -1;
  c->out_shapes[0] = out;
  return 0;
}

/* ---- the table ----------------------------------------------------------- */

#define EW TFS_OP_ELEMENTWISE
#define T_REAL                                                              \
  "T: {float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, " \
  "half, uint32, uint64}"
#define T_FLOATS "T: {half, bfloat16, float, double}"
#define T_FLOATC "T: {bfloat16, half, float, double, complex64, complex128}"
#define ACT_GRAD(NAME, SECOND, ATTRS)                                        \
  {                                                                         \
    NAME, "gradients: T; " SECOND ": T", "backprops: T", ATTRS,             \
        merge_both_shape, EW                                                \
  }
/* y's shape, whatever dy's (the kernel checks the element counts) */
#define Y_DY_GRAD(NAME) \
  { NAME, "y: T; dy: T", "z: T", T_FLOATC, tfs_shape_fn_unchanged, EW }

const tfs_op_spec tfs_ops_grad[] = {
    ACT_GRAD("ReluGrad", "features", T_REAL),
    ACT_GRAD("Relu6Grad", "features", T_REAL),
    ACT_GRAD("EluGrad", "outputs", T_FLOATS),
    ACT_GRAD("SeluGrad", "outputs", T_FLOATS),
    ACT_GRAD("LeakyReluGrad", "features",
             "alpha: float = 0.20000000298023224; " T_FLOATS " = float"),
    ACT_GRAD("SoftplusGrad", "features", T_FLOATS),
    ACT_GRAD("SoftsignGrad", "features", T_FLOATS),
    Y_DY_GRAD("SigmoidGrad"),
    Y_DY_GRAD("TanhGrad"),
    Y_DY_GRAD("RsqrtGrad"),
    Y_DY_GRAD("SqrtGrad"),
    Y_DY_GRAD("ReciprocalGrad"),
    Y_DY_GRAD("InvGrad"),
    {"BiasAddGrad", "out_backprop: T", "output: T",
     "T: {float, double, int32, uint8, int16, int8, complex64, int64, qint8, "
     "quint8, qint32, bfloat16, qint16, quint16, uint16, complex128, half, "
     "uint32, uint64}; data_format: {'NHWC', 'NCHW'} = 'NHWC'",
     bias_add_grad_shape, 0},
    {"BroadcastGradientArgs", "s0: T; s1: T", "r0: T; r1: T",
     "T: {int32, int64} = int32", broadcast_gradient_args_shape, 0},
    {"StridedSliceGrad",
     "shape: Index; begin: Index; end: Index; strides: Index; dy: T",
     "output: T",
     "T: type; Index: {int32, int64}; begin_mask: int = 0; end_mask: int = "
     "0; ellipsis_mask: int = 0; new_axis_mask: int = 0; shrink_axis_mask: "
     "int = 0",
     strided_slice_grad_shape, 0},
    {NULL, NULL, NULL, NULL, NULL, 0},
};
