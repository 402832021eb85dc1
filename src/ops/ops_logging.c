/*
 * ops/ops_logging.c - debugging and logging ops.
 */
#include "ops/op_tables.h"
#include "ops/shape_ctx.h"

const tfs_op_spec tfs_ops_logging[] = {
    {"Assert", "condition: bool; data: T", "",
     "T: list(type) >= 1; summarize: int = 3", tfs_shape_fn_no_outputs,
     TFS_OP_STATEFUL},
    {NULL, NULL, NULL, NULL, NULL, 0},
};
