/*
 * ops/ops_control.c - control ops: NoOp (TF1 control flow is in
 * ops_control_flow.c).
 */
#include "ops/op_tables.h"
#include "ops/shape_ctx.h"

const tfs_op_spec tfs_ops_control[] = {
    {"NoOp", "", "", "", tfs_shape_fn_no_outputs, TFS_OP_CHEAP},
    {NULL, NULL, NULL, NULL, NULL, 0},
};
