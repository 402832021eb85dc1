/*
 * ops/ops_state.c - variables: TF1 ref variables (VariableV2, Assign...)
 * and resource variables (VarHandleOp, ReadVariableOp, ...).
 */
#include "ops/op_tables.h"
#include "ops/shape_ctx.h"

static int assign_shape(tfs_shape_ctx *c) {
  int validate = 1;
  tfs_attrs_get_bool(c->attrs, "validate_shape", &validate);
  if (!validate) {
    c->out_shapes[0] = c->in_shapes[1];
    return 0;
  }
  if (tfs_shape_merge(&c->in_shapes[0], &c->in_shapes[1],
                      &c->out_shapes[0])) {
    char a[TFS_SHAPE_STRLEN], b[TFS_SHAPE_STRLEN];
    return tfs_sc_error(c, "Shapes must be equal rank, or be compatible: %s "
                        "vs. %s",
                        tfs_shape_str(&c->in_shapes[0], a, sizeof a),
                        tfs_shape_str(&c->in_shapes[1], b, sizeof b));
  }
  return 0;
}

static int assign_update_shape(tfs_shape_ctx *c) {
  c->out_shapes[0] = c->in_shapes[0];
  return 0;
}

static int read_variable_shape(tfs_shape_ctx *c) {
  tfs_shape s;
  if (c->resource_shape && c->resource_shape(c, 0, &s) == 0)
    c->out_shapes[0] = s;
  else
    c->out_shapes[0].rank = -1;
  return 0;
}

#define T_NUM                                                              \
  "T: {float, double, int32, uint8, int16, int8, complex64, int64, qint8, " \
  "quint8, qint32, bfloat16, qint16, quint16, uint16, complex128, half, "   \
  "uint32, uint64}"

const tfs_op_spec tfs_ops_state[] = {
    {"VariableV2", "", "ref: Ref(dtype)",
     "shape: shape; dtype: type; container: string = ''; shared_name: "
     "string = ''",
     tfs_shape_fn_dtype_shape_attr, TFS_OP_STATEFUL},
    {"Assign", "ref: Ref(T); value: T", "output_ref: Ref(T)",
     "T: type; validate_shape: bool = true; use_locking: bool = true",
     assign_shape, TFS_OP_ALLOWS_UNINIT},
    {"AssignAdd", "ref: Ref(T); value: T", "output_ref: Ref(T)",
     T_NUM "; use_locking: bool = false", assign_update_shape, 0},
    {"AssignSub", "ref: Ref(T); value: T", "output_ref: Ref(T)",
     T_NUM "; use_locking: bool = false", assign_update_shape, 0},
    {"IsVariableInitialized", "ref: Ref(dtype)", "is_initialized: bool",
     "dtype: type", tfs_shape_fn_scalar, TFS_OP_ALLOWS_UNINIT},
    {"VarHandleOp", "", "resource: resource",
     "container: string = ''; shared_name: string = ''; debug_name: string "
     "= ''; dtype: type; shape: shape; allowed_devices: list(string) = []",
     tfs_shape_fn_scalar, TFS_OP_STATEFUL},
    {"ReadVariableOp", "resource: resource", "value: dtype", "dtype: type",
     read_variable_shape, TFS_OP_STATEFUL},
    {"AssignVariableOp", "resource: resource; value: dtype", "",
     "dtype: type; validate_shape: bool = false", tfs_shape_fn_no_outputs,
     TFS_OP_STATEFUL},
    {"AssignAddVariableOp", "resource: resource; value: dtype", "",
     "dtype: type", tfs_shape_fn_no_outputs, TFS_OP_STATEFUL},
    {"AssignSubVariableOp", "resource: resource; value: dtype", "",
     "dtype: type", tfs_shape_fn_no_outputs, TFS_OP_STATEFUL},
    {"VarIsInitializedOp", "resource: resource", "is_initialized: bool", "",
     tfs_shape_fn_scalar, TFS_OP_STATEFUL},
    {"DisableCopyOnRead", "resource: resource", "", "",
     tfs_shape_fn_no_outputs, TFS_OP_STATEFUL},
    {NULL, NULL, NULL, NULL, NULL, 0},
};
