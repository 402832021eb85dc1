/*
 * ops/ops_nn.c - neural-network ops: activations, BiasAdd, Softmax.
 */
#include "ops/op_tables.h"
#include "ops/shape_ctx.h"

static int softmax_shape(tfs_shape_ctx *c) {
  if (tfs_sc_with_rank_at_least(c, 0, 1)) return -1;
  c->out_shapes[0] = c->in_shapes[0];
  return 0;
}

const tfs_op_spec tfs_ops_nn[] = {
    {"Relu", "features: T", "activations: T",
     "T: {float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, "
     "half, uint32, uint64, qint8}",
     tfs_shape_fn_unchanged, TFS_OP_ELEMENTWISE},
    {"BiasAdd", "value: T; bias: T", "output: T",
     "T: {float, double, int32, uint8, int16, int8, complex64, int64, qint8, "
     "quint8, qint32, bfloat16, qint16, quint16, uint16, complex128, half, "
     "uint32, uint64}; data_format: {'NHWC', 'NCHW'} = 'NHWC'",
     tfs_shape_fn_bias_add, 0},
    {"Softmax", "logits: T", "softmax: T", "T: {half, bfloat16, float, double}",
     softmax_shape, 0},
    {NULL, NULL, NULL, NULL, NULL, 0},
};
