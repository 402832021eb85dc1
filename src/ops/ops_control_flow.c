/*
 * ops/ops_control_flow.c - TF1 control flow: Switch, Merge, Enter, Exit,
 * NextIteration (and their Ref forms), LoopCond and ControlTrigger, with
 * TensorFlow's signatures and shape functions.  The kernels forward their
 * input; what these ops mean (dead tensors, frames, iterations) is the
 * executor's (session/exec_cf.c).
 */
#include "ops/op_tables.h"
#include "ops/shape_ctx.h"

/* TensorFlow's SwitchShape: pred is a scalar; both outputs are data. */
static int switch_shape(tfs_shape_ctx *c) {
  if (tfs_sc_with_rank(c, 1, 0)) return -1;
  c->out_shapes[0] = c->in_shapes[0];
  c->out_shapes[1] = c->in_shapes[0];
  return 0;
}

/* TensorFlow's MergeShape: the most specific shape every input has (the
 * first input's, with dims where the inputs differ unknown; unknown when
 * a rank differs or is unknown); value_index is a scalar. */
static int merge_shape(tfs_shape_ctx *c) {
  tfs_shape out = c->in_shapes[0];
  for (int i = 1; i < c->ninputs && out.rank >= 0; i++) {
    const tfs_shape *s = &c->in_shapes[i];
    if (s->rank != out.rank) {
      out.rank = -1;
      break;
    }
    for (int d = 0; d < out.rank; d++)
      if (s->dims[d] != out.dims[d]) out.dims[d] = -1;
  }
  c->out_shapes[0] = out;
  tfs_shape_scalar(&c->out_shapes[1]);
  return 0;
}

/* TensorFlow's EnterShape: unknown inside the frame, except for a loop
 * invariant (is_constant), which keeps its shape. */
static int enter_shape(tfs_shape_ctx *c) {
  int is_constant = 0;
  tfs_attrs_get_bool(c->attrs, "is_constant", &is_constant);
  if (is_constant)
    c->out_shapes[0] = c->in_shapes[0];
  else
    c->out_shapes[0].rank = -1;
  return 0;
}

/* UnchangedShapeWithRank(0). */
static int loop_cond_shape(tfs_shape_ctx *c) {
  if (tfs_sc_with_rank(c, 0, 0)) return -1;
  tfs_shape_scalar(&c->out_shapes[0]);
  return 0;
}

#define CF (TFS_OP_CONTROL_FLOW | TFS_OP_CHEAP)
#define ENTER_ATTRS                                              \
  "T: type; frame_name: string; is_constant: bool = false; "     \
  "parallel_iterations: int = 10"

const tfs_op_spec tfs_ops_control_flow[] = {
    {"Switch", "data: T; pred: bool", "output_false: T; output_true: T",
     "T: type", switch_shape, CF},
    {"RefSwitch", "data: Ref(T); pred: bool",
     "output_false: Ref(T); output_true: Ref(T)", "T: type", switch_shape,
     CF | TFS_OP_ALLOWS_UNINIT},
    {"Merge", "inputs: N * T", "output: T; value_index: int32",
     "T: type; N: int >= 1", merge_shape, CF},
    {"RefMerge", "inputs: Ref(N * T)", "output: Ref(T); value_index: int32",
     "T: type; N: int >= 1", merge_shape, CF},
    {"Enter", "data: T", "output: T", ENTER_ATTRS, enter_shape, CF},
    {"RefEnter", "data: Ref(T)", "output: Ref(T)", ENTER_ATTRS, enter_shape,
     CF},
    {"Exit", "data: T", "output: T", "T: type", tfs_shape_fn_unchanged, CF},
    {"RefExit", "data: Ref(T)", "output: Ref(T)", "T: type",
     tfs_shape_fn_unchanged, CF},
    {"NextIteration", "data: T", "output: T", "T: type",
     tfs_shape_fn_unchanged, CF},
    {"RefNextIteration", "data: Ref(T)", "output: Ref(T)", "T: type",
     tfs_shape_fn_unchanged, CF},
    {"LoopCond", "input: bool", "output: bool", "", loop_cond_shape, CF},
    /* runs even when its inputs are dead; no deadness without Switch, so
     * a plan with no other control-flow op runs it as a NoOp */
    {"ControlTrigger", "", "", "", tfs_shape_fn_no_outputs, TFS_OP_CHEAP},
    {NULL, NULL, NULL, NULL, NULL, 0},
};
