/*
 * backends/cpu/control_flow.c - the kernels of TF1 control flow (Switch,
 * Merge, Enter, Exit, NextIteration, their Ref forms, LoopCond,
 * ControlTrigger).  They only forward values: which outputs are dead,
 * which frame and iteration a value goes to, is decided by the executor
 * (session/exec_cf.c).  A dead input reaches a kernel as NULL; only Merge
 * ever runs with one.
 */
#include "backends/cpu/cpu_tables.h"

static void forward_compute(tfs_kernel_ctx *c) {
  tfs_kctx_set_output(c, 0, tfs_tensor_ref(c->inputs[0]));
}

/* Forwards data to output_true (1) or output_false (0); the other output
 * stays unset, which the executor reads as dead. */
static void switch_compute(tfs_kernel_ctx *c) {
  const tfs_tensor *pred = c->inputs[1];
  if (pred->shape.rank != 0) {
    char buf[TFS_SHAPE_STRLEN];
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "The second input must be a scalar, but it has shape %s",
                  tfs_shape_str(&pred->shape, buf, sizeof buf));
    return;
  }
  int port = *(const uint8_t *)pred->data ? 1 : 0;
  tfs_kctx_set_output(c, port, tfs_tensor_ref(c->inputs[0]));
}

/* Forwards the one live input and its index. */
static void merge_compute(tfs_kernel_ctx *c) {
  int found = -1;
  for (int i = 0; i < c->ninputs; i++) {
    if (!c->inputs[i]) continue;
    if (found >= 0) {
      tfs_kctx_fail(c, TFS_INTERNAL,
                    "Merge can not have more than one valid input.");
      return;
    }
    found = i;
  }
  if (found < 0) return; /* all dead: the executor never runs that */
  tfs_shape s;
  tfs_shape_scalar(&s);
  tfs_tensor *idx = tfs_kctx_alloc_output(c, 1, &s);
  if (!idx) return;
  *(int32_t *)idx->data = found;
  tfs_kctx_set_output(c, 0, tfs_tensor_ref(c->inputs[found]));
}

static void control_trigger_compute(tfs_kernel_ctx *c) { (void)c; }

const tfs_kernel_def tfs_cpu_kernels_control_flow[] = {
    {"Switch", "CPU", NULL, 0, NULL, switch_compute, NULL, 0, NULL},
    {"RefSwitch", "CPU", NULL, 0, NULL, switch_compute, NULL, 0, NULL},
    {"Merge", "CPU", NULL, 0, NULL, merge_compute, NULL, 0, NULL},
    {"RefMerge", "CPU", NULL, 0, NULL, merge_compute, NULL, 0, NULL},
    {"Enter", "CPU", NULL, 0, NULL, forward_compute, NULL, 0, NULL},
    {"RefEnter", "CPU", NULL, 0, NULL, forward_compute, NULL, 0, NULL},
    {"Exit", "CPU", NULL, 0, NULL, forward_compute, NULL, 0, NULL},
    {"RefExit", "CPU", NULL, 0, NULL, forward_compute, NULL, 0, NULL},
    {"NextIteration", "CPU", NULL, 0, NULL, forward_compute, NULL, 0, NULL},
    {"RefNextIteration", "CPU", NULL, 0, NULL, forward_compute, NULL, 0,
     NULL},
    {"LoopCond", "CPU", NULL, 0, NULL, forward_compute, NULL, 0, NULL},
    {"ControlTrigger", "CPU", NULL, 0, NULL, control_trigger_compute, NULL,
     0, NULL},
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL},
};
