/*
 * ops/ops_functional.c - ops that run functions of the graph's library
 * (core/ops/functional_ops.cc's signatures): PartitionedCall and
 * StatefulPartitionedCall, and the functional control flow If, Case and
 * While with their stateless forms.
 */
#include "ops/op_tables.h"
#include "ops/shape_ctx.h"

#define CALL_ATTRS                                                        \
  "Tin: list(type) >= 0; Tout: list(type) >= 0; f: func; "                \
  "config: string = ''; config_proto: string = ''; "                      \
  "executor_type: string = ''"

/* output_shapes when the graph gives them (one per output), else
 * unknown: the branches decide. */
static int output_shapes_or_unknown(tfs_shape_ctx *c) {
  const tfs_attr_value *v = tfs_attrs_find(c->attrs, "output_shapes");
  if (!v || !v->is_list || v->u.list.n != c->noutputs) {
    for (int i = 0; i < c->noutputs; i++) c->out_shapes[i].rank = -1;
    return 0;
  }
  const tfs_shape *s = v->u.list.v;
  for (int i = 0; i < c->noutputs; i++) c->out_shapes[i] = s[i];
  return 0;
}

/* While: output_shapes when given, else the loop variables' shapes (a
 * loop that changes them declares it through output_shapes). */
static int while_shape(tfs_shape_ctx *c) {
  const tfs_attr_value *v = tfs_attrs_find(c->attrs, "output_shapes");
  if (v && v->is_list && v->u.list.n == c->noutputs)
    return output_shapes_or_unknown(c);
  for (int i = 0; i < c->noutputs && i < c->ninputs; i++)
    c->out_shapes[i] = c->in_shapes[i];
  return 0;
}

#define IF_ATTRS                                                          \
  "Tcond: type; Tin: list(type) >= 0; Tout: list(type) >= 0; "            \
  "then_branch: func; else_branch: func; output_shapes: list(shape) = []"
#define CASE_ATTRS                                                        \
  "Tin: list(type) >= 0; Tout: list(type) >= 0; "                         \
  "branches: list(func) >= 1; output_shapes: list(shape) = []"
#define WHILE_ATTRS                                                       \
  "T: list(type) >= 0; cond: func; body: func; "                          \
  "output_shapes: list(shape) = []; parallel_iterations: int = 10"

const tfs_op_spec tfs_ops_functional[] = {
    {"PartitionedCall", "args: Tin", "output: Tout", CALL_ATTRS,
     tfs_shape_fn_unknown, TFS_OP_NO_FOLD},
    {"StatefulPartitionedCall", "args: Tin", "output: Tout", CALL_ATTRS,
     tfs_shape_fn_unknown, TFS_OP_STATEFUL | TFS_OP_NO_FOLD},
    {"If", "cond: Tcond; input: Tin", "output: Tout", IF_ATTRS,
     output_shapes_or_unknown, TFS_OP_STATEFUL | TFS_OP_NO_FOLD},
    {"StatelessIf", "cond: Tcond; input: Tin", "output: Tout", IF_ATTRS,
     output_shapes_or_unknown, TFS_OP_NO_FOLD},
    {"Case", "branch_index: int32; input: Tin", "output: Tout", CASE_ATTRS,
     output_shapes_or_unknown, TFS_OP_STATEFUL | TFS_OP_NO_FOLD},
    {"StatelessCase", "branch_index: int32; input: Tin", "output: Tout",
     CASE_ATTRS, output_shapes_or_unknown, TFS_OP_NO_FOLD},
    {"While", "input: T", "output: T", WHILE_ATTRS, while_shape,
     TFS_OP_STATEFUL | TFS_OP_NO_FOLD},
    {"StatelessWhile", "input: T", "output: T", WHILE_ATTRS, while_shape,
     TFS_OP_NO_FOLD},
    {NULL, NULL, NULL, NULL, NULL, 0},
};
