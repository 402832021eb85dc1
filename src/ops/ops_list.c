/*
 * ops/ops_list.c - TensorList ops (core/ops/list_ops.cc's signatures): a
 * list is a DT_VARIANT scalar; kernels in backends/cpu/list_ops.c.
 * Shape functions give element shapes from constant element_shape inputs
 * and attrs; a list-valued output is a scalar.
 */
#include "ops/op_tables.h"
#include "ops/shape_ctx.h"

/* Input i read as an element shape (scalar -1: unknown rank). */
static void elem_shape(tfs_shape_ctx *c, int i, tfs_shape *out) {
  if (tfs_sc_input_as_shape(c, i, out)) tfs_shape_unknown(out);
}

/* out = [d0] + s, or unknown when s's rank is. */
static void with_leading(int64_t d0, const tfs_shape *s, tfs_shape *out) {
  if (s->rank < 0 || s->rank + 1 > TFS_MAX_RANK) {
    tfs_shape_unknown(out);
    return;
  }
  out->rank = s->rank + 1;
  out->dims[0] = d0;
  for (int k = 0; k < s->rank; k++) out->dims[k + 1] = s->dims[k];
}

static int scalar_handle(tfs_shape_ctx *c) {
  for (int i = 0; i < c->noutputs; i++) tfs_shape_scalar(&c->out_shapes[i]);
  return 0;
}

/* GetItem: the element_shape input (2). */
static int get_item_shape(tfs_shape_ctx *c) {
  elem_shape(c, 2, &c->out_shapes[0]);
  return 0;
}

/* PopBack: a list and an element (element_shape input 1). */
static int pop_back_shape(tfs_shape_ctx *c) {
  tfs_shape_scalar(&c->out_shapes[0]);
  elem_shape(c, 1, &c->out_shapes[1]);
  return 0;
}

/* Stack: [num_elements] + element_shape input (1). */
static int stack_shape(tfs_shape_ctx *c) {
  tfs_shape es;
  int64_t n = -1;
  elem_shape(c, 1, &es);
  tfs_attrs_get_int(c->attrs, "num_elements", &n);
  with_leading(n < 0 ? -1 : n, &es, &c->out_shapes[0]);
  return 0;
}

/* Gather: [len(indices)] + element_shape input (2). */
static int gather_shape(tfs_shape_ctx *c) {
  tfs_shape es;
  elem_shape(c, 2, &es);
  const tfs_shape *ix = &c->in_shapes[1];
  with_leading(ix->rank == 1 ? ix->dims[0] : -1, &es, &c->out_shapes[0]);
  return 0;
}

/* Length: a scalar; ElementShape: a vector of unknown length. */
static int element_shape_shape(tfs_shape_ctx *c) {
  tfs_shape_unknown(&c->out_shapes[0]);
  return 0;
}

/* Concat: [?] + element shape except its first dim; lengths [?]. */
static int concat_shape(tfs_shape_ctx *c) {
  tfs_shape es;
  if (c->ninputs > 1) {
    elem_shape(c, 1, &es);
  } else {
    const tfs_shape *a = tfs_attrs_get_shape(c->attrs, "element_shape");
    if (a)
      es = *a;
    else
      tfs_shape_unknown(&es);
  }
  if (es.rank >= 1) {
    es.dims[0] = -1;
    c->out_shapes[0] = es;
  } else {
    tfs_shape_unknown(&c->out_shapes[0]);
  }
  tfs_shape_1d(&c->out_shapes[1], -1);
  return 0;
}

#define EL "element_dtype: type"
#define ST "shape_type: {int32, int64}"
#define LF TFS_OP_NO_FOLD

const tfs_op_spec tfs_ops_list[] = {
    {"EmptyTensorList", "element_shape: shape_type; max_num_elements: int32",
     "handle: variant", EL "; " ST, scalar_handle, LF},
    {"TensorListReserve", "element_shape: shape_type; num_elements: int32",
     "handle: variant", EL "; " ST, scalar_handle, LF},
    {"TensorListFromTensor", "tensor: element_dtype; element_shape: "
     "shape_type", "output_handle: variant", EL "; " ST, scalar_handle, LF},
    {"TensorListLength", "input_handle: variant", "length: int32", "",
     tfs_shape_fn_scalar, LF},
    {"TensorListElementShape", "input_handle: variant",
     "element_shape: shape_type", ST, element_shape_shape, LF},
    {"TensorListGetItem", "input_handle: variant; index: int32; "
     "element_shape: Tshape", "item: element_dtype",
     EL "; Tshape: {int32, int64} = int32", get_item_shape, LF},
    {"TensorListSetItem", "input_handle: variant; index: int32; "
     "item: element_dtype", "output_handle: variant",
     EL "; resize_if_index_out_of_bounds: bool = false", scalar_handle, LF},
    {"TensorListPushBack", "input_handle: variant; tensor: element_dtype",
     "output_handle: variant", EL, scalar_handle, LF},
    {"TensorListPopBack", "input_handle: variant; element_shape: int32",
     "output_handle: variant; tensor: element_dtype", EL, pop_back_shape,
     LF},
    {"TensorListStack", "input_handle: variant; element_shape: int32",
     "tensor: element_dtype", EL "; num_elements: int = -1", stack_shape,
     LF},
    {"TensorListGather", "input_handle: variant; indices: int32; "
     "element_shape: int32", "values: element_dtype", EL, gather_shape, LF},
    {"TensorListScatter", "tensor: element_dtype; indices: int32; "
     "element_shape: shape_type", "output_handle: variant", EL "; " ST,
     scalar_handle, LF},
    {"TensorListScatterV2", "tensor: element_dtype; indices: int32; "
     "element_shape: shape_type; num_elements: int32",
     "output_handle: variant", EL "; " ST, scalar_handle, LF},
    {"TensorListScatterIntoExistingList", "input_handle: variant; "
     "tensor: element_dtype; indices: int32", "output_handle: variant", EL,
     scalar_handle, LF},
    {"TensorListResize", "input_handle: variant; size: int32",
     "output_handle: variant", "", scalar_handle, LF},
    {"TensorListConcat", "input_handle: variant",
     "tensor: element_dtype; lengths: int64",
     EL "; element_shape: shape = <unknown>", concat_shape, LF},
    {"TensorListConcatV2", "input_handle: variant; element_shape: "
     "shape_type; leading_dims: int64",
     "tensor: element_dtype; lengths: int64", EL "; " ST, concat_shape, LF},
    {"TensorListSplit", "tensor: element_dtype; element_shape: shape_type; "
     "lengths: int64", "output_handle: variant", EL "; " ST, scalar_handle,
     LF},
    {"TensorListConcatLists", "input_a: variant; input_b: variant",
     "output: variant", EL, scalar_handle, LF},
    {NULL, NULL, NULL, NULL, NULL, 0},
};
