/*
 * ops/ops_tensor_array.c - TF1 TensorArrays (TensorArrayV3 and the ops on
 * its handle: Write, Read, Gather, Scatter, Concat, Split, Size, Close,
 * Grad), with TensorFlow's signatures and shape functions.  The handle is
 * a DT_RESOURCE scalar at run time, but TensorFlow's shape functions say
 * [2] (the old two-string handle) and check that, so ours do too.  The
 * kernels and the array itself: backends/cpu/tensor_array.c.
 */
#include "ops/op_tables.h"
#include "ops/shape_ctx.h"

/* Input i is a TensorArray handle: rank 1 with two elements
 * (WithRank(1) then WithValue(dim 0, 2)). */
static int handle_input(tfs_shape_ctx *c, int i) {
  if (tfs_sc_with_rank(c, i, 1)) return -1;
  const tfs_shape *s = &c->in_shapes[i];
  if (s->rank == 1 && s->dims[0] >= 0 && s->dims[0] != 2)
    return tfs_sc_error(c, "Dimension must be 2 but is %lld",
                        (long long)s->dims[0]);
  return 0;
}

/* Inputs a and b (-1: none) must be scalars. */
static int scalars(tfs_shape_ctx *c, int a, int b) {
  if (a >= 0 && tfs_sc_with_rank(c, a, 0)) return -1;
  if (b >= 0 && tfs_sc_with_rank(c, b, 0)) return -1;
  return 0;
}

static void handle_and_flow_outputs(tfs_shape_ctx *c) {
  tfs_shape_1d(&c->out_shapes[0], 2);
  tfs_shape_scalar(&c->out_shapes[1]);
}

static int ta_create_shape(tfs_shape_ctx *c) {
  if (tfs_sc_with_rank(c, 0, 0)) return -1;
  handle_and_flow_outputs(c);
  return 0;
}

static int ta_grad_shape(tfs_shape_ctx *c) {
  if (handle_input(c, 0)) return -1;
  handle_and_flow_outputs(c);
  return 0;
}

static int ta_write_shape(tfs_shape_ctx *c) {
  if (handle_input(c, 0) || scalars(c, 1, 3)) return -1;
  tfs_shape_scalar(&c->out_shapes[0]);
  return 0;
}

static int ta_read_shape(tfs_shape_ctx *c) {
  if (handle_input(c, 0) || scalars(c, 1, 2)) return -1;
  c->out_shapes[0].rank = -1;
  return 0;
}

/* [len(indices)] + element_shape: unknown when either rank is. */
static int ta_gather_shape(tfs_shape_ctx *c) {
  if (handle_input(c, 0) || tfs_sc_with_rank(c, 1, 1) || scalars(c, 2, -1))
    return -1;
  const tfs_shape *idx = &c->in_shapes[1];
  const tfs_shape *es = tfs_attrs_get_shape(c->attrs, "element_shape");
  tfs_shape *out = &c->out_shapes[0];
  if (!es || es->rank < 0 || idx->rank < 0) {
    out->rank = -1;
    return 0;
  }
  if (es->rank + 1 > TFS_MAX_RANK)
    return tfs_sc_error(c, "Shape must have rank at most %d",
                        TFS_MAX_RANK);
  out->rank = es->rank + 1;
  out->dims[0] = idx->dims[0];
  for (int d = 0; d < es->rank; d++) out->dims[d + 1] = es->dims[d];
  return 0;
}

/* value's first dimension is len(indices) (MergePrefix). */
static int ta_scatter_shape(tfs_shape_ctx *c) {
  if (handle_input(c, 0) || tfs_sc_with_rank(c, 1, 1) || scalars(c, 3, -1))
    return -1;
  if (tfs_sc_with_rank_at_least(c, 2, 1)) return -1;
  const tfs_shape *v = &c->in_shapes[2], *idx = &c->in_shapes[1];
  int64_t unused;
  if (v->rank >= 1 && idx->rank == 1 &&
      tfs_sc_merge_dim(c, v->dims[0], idx->dims[0], &unused))
    return -1;
  tfs_shape_scalar(&c->out_shapes[0]);
  return 0;
}

static int ta_concat_shape(tfs_shape_ctx *c) {
  if (handle_input(c, 0) || scalars(c, 1, -1)) return -1;
  c->out_shapes[0].rank = -1;
  tfs_shape_1d(&c->out_shapes[1], -1);
  return 0;
}

static int ta_split_shape(tfs_shape_ctx *c) {
  if (handle_input(c, 0) || tfs_sc_with_rank(c, 2, 1) || scalars(c, 3, -1))
    return -1;
  tfs_shape_scalar(&c->out_shapes[0]);
  return 0;
}

static int ta_size_shape(tfs_shape_ctx *c) {
  if (handle_input(c, 0)) return -1;
  tfs_shape_scalar(&c->out_shapes[0]);
  return 0;
}

static int ta_close_shape(tfs_shape_ctx *c) { return handle_input(c, 0); }

#define H "handle: resource; "
const tfs_op_spec tfs_ops_tensor_array[] = {
    {"TensorArrayV3", "size: int32", "handle: resource; flow: float",
     "dtype: type; element_shape: shape = <unknown>; dynamic_size: bool = "
     "false; clear_after_read: bool = true; identical_element_shapes: bool "
     "= false; tensor_array_name: string = ''",
     ta_create_shape, TFS_OP_STATEFUL},
    {"TensorArrayGradV3", H "flow_in: float",
     "grad_handle: resource; flow_out: float", "source: string",
     ta_grad_shape, TFS_OP_STATEFUL},
    {"TensorArrayGradWithShape",
     H "flow_in: float; shape_to_prepend: int32",
     "grad_handle: resource; flow_out: float", "source: string",
     ta_grad_shape, TFS_OP_STATEFUL},
    {"TensorArrayWriteV3", H "index: int32; value: T; flow_in: float",
     "flow_out: float", "T: type", ta_write_shape, 0},
    {"TensorArrayReadV3", H "index: int32; flow_in: float", "value: dtype",
     "dtype: type", ta_read_shape, 0},
    {"TensorArrayGatherV3", H "indices: int32; flow_in: float",
     "value: dtype", "dtype: type; element_shape: shape = <unknown>",
     ta_gather_shape, 0},
    {"TensorArrayScatterV3", H "indices: int32; value: T; flow_in: float",
     "flow_out: float", "T: type", ta_scatter_shape, 0},
    {"TensorArrayConcatV3", H "flow_in: float",
     "value: dtype; lengths: int64",
     "dtype: type; element_shape_except0: shape = <unknown>",
     ta_concat_shape, 0},
    {"TensorArraySplitV3", H "value: T; lengths: int64; flow_in: float",
     "flow_out: float", "T: type", ta_split_shape, 0},
    {"TensorArraySizeV3", H "flow_in: float", "size: int32", "",
     ta_size_shape, 0},
    {"TensorArrayCloseV3", "handle: resource", "", "", ta_close_shape, 0},
    {NULL, NULL, NULL, NULL, NULL, 0},
};
