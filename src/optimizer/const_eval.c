/*
 * optimizer/const_eval.c - evaluates one node on constant inputs by
 * calling its CPU kernel directly (prepare, compute, release) with a
 * private context: no session, no thread pool, no resources, outputs on
 * the heap.  Used by constant folding.
 */
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/status.h"
#include "kernels/kernel.h"
#include "optimizer/const_eval.h"

static void quiet_log(const char *text) {
  (void)text;
}

tfs_tensor **tfs_optimizer__eval(const tfs_ograph *g, int i,
                                 tfs_tensor *const *inputs, int64_t max_bytes,
                                 tfs_status *st) {
  const tfs_onode *n = &g->n[i];
  const tfs_kernel_def *k =
      tfs_kernel_find(n->def, "CPU", n->attrs, n->name, st);
  if (!k) return NULL;
  int nin = n->nin, nout = n->nout;
  tfs_dtype *in_types = tfs_malloc(sizeof(tfs_dtype) * (size_t)(nin + 1));
  tfs_shape *in_shapes = tfs_malloc(sizeof(tfs_shape) * (size_t)(nin + 1));
  tfs_tensor **outs = tfs_calloc((size_t)nout + 1, sizeof(tfs_tensor *));
  if (!in_types || !in_shapes || !outs) {
    TFS_OOM(st);
    goto fail;
  }
  for (int j = 0; j < nin; j++) {
    in_types[j] = inputs[j]->dtype;
    in_shapes[j] = inputs[j]->shape;
  }
  tfs_kernel_init ki = {
      .node_name = n->name,
      .op = n->def,
      .attrs = n->attrs,
      .ninputs = nin,
      .in_types = in_types,
      .in_shapes = in_shapes,
      .in_consts = (const tfs_tensor *const *)inputs,
      .noutputs = nout,
      .out_types = n->out_types,
      .out_shapes = n->out_shapes,
      .kdata = k->data,
      .state = NULL,
      .st = st,
  };
  tfs_status_clear(st);
  if (k->prepare && k->prepare(&ki)) {
    /* a prepare that fails may have set its state (as the plan and the
     * kernel probe release it) */
    if (k->release && ki.state) k->release(ki.state);
    goto fail;
  }
  tfs_run run;
  memset(&run, 0, sizeof run);
  run.log = quiet_log;
  tfs_run_limits lim = {.tensor_bytes = max_bytes > 0 ? max_bytes : 0};
  if (max_bytes > 0) run.limits = &lim;
  tfs_kernel_ctx ctx;
  memset(&ctx, 0, sizeof ctx);
  ctx.node_name = n->name;
  ctx.op_name = n->def->name;
  ctx.state = ki.state;
  ctx.ninputs = nin;
  ctx.inputs = (tfs_tensor **)inputs;
  ctx.noutputs = nout;
  ctx.outputs = outs;
  ctx.out_types = n->out_types;
  ctx.run = &run;
  ctx.st = st;
  k->compute(&ctx);
  if (k->release && ki.state) k->release(ki.state);
  if (ctx.failed || !tfs_status_ok(st)) goto fail;
  for (int j = 0; j < nout; j++) {
    if (!outs[j] || outs[j]->dtype != tfs_dtype_base(n->out_types[j])) {
      tfs_status_setf(st, TFS_INTERNAL,
                      "kernel of '%s' left output %d "
                      "unset",
                      n->name, j);
      goto fail;
    }
  }
  tfs_free(in_types);
  tfs_free(in_shapes);
  return outs;
fail:
  if (tfs_status_ok(st)) tfs_status_set(st, TFS_INTERNAL, "evaluation failed");
  for (int j = 0; outs && j < nout; j++) tfs_tensor_free(outs[j]);
  tfs_free(outs);
  tfs_free(in_types);
  tfs_free(in_shapes);
  return NULL;
}

void tfs_optimizer__free_outputs(tfs_tensor **outs, int n) {
  if (!outs) return;
  for (int j = 0; j < n; j++) tfs_tensor_free(outs[j]);
  tfs_free(outs);
}
