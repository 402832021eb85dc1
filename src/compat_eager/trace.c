/*
 * compat_eager/trace.c - ops in graph and tracing contexts: each op call
 * adds a node.  In a trace, values of the eager context are captured
 * (constants become Const nodes; resource handles become placeholders fed
 * at every call) and stateful ops are chained by control edges so their
 * side effects keep program order.
 */
#include <stdlib.h>
#include <string.h>

#include "compat_eager/eager_internal.h"
#include "core/alloc.h"
#include "core/status.h"

static tfs_output none(void) {
  tfs_output o = {NULL, -1};
  return o;
}

/* A placeholder in the trace graph standing for an eager resource handle
 * (a captured variable); the same handle is captured once. */
static tfs_output capture_handle(tfs_ctx *c, tfs_tensor *h, tfs_status *st) {
  tfs_trace *tr = c->trace;
  const tfs_resource_handle *rh = tfs_tensor__handle(h, 0);
  for (int i = 0; i < tr->ncaptures; i++) {
    const tfs_resource_handle *o = tfs_tensor__handle(tr->capture_values[i], 0);
    if (o && rh && strcmp(o->name, rh->name) == 0 &&
        strcmp(o->container, rh->container) == 0)
      return tr->capture_outputs[i];
  }
  if (tr->ncaptures == tr->captures_cap) {
    int nc = tr->captures_cap ? tr->captures_cap * 2 : 4;
    tfs_tensor **v = tfs_realloc(tr->capture_values, sizeof(void *) * (size_t)nc);
    if (v) tr->capture_values = v;
    tfs_output *o = tfs_realloc(tr->capture_outputs, sizeof(tfs_output) * (size_t)nc);
    if (o) tr->capture_outputs = o;
    if (!v || !o) {
      TFS_OOM(st);
      return none();
    }
    tr->captures_cap = nc;
  }
  char name[32];
  snprintf(name, sizeof name, "captured_%d", tr->ncaptures);
  tfs_output p = tfs_op_placeholder(c->graph, name, TFS_RESOURCE, NULL, 0, st);
  if (!p.oper) return none();
  tr->capture_values[tr->ncaptures] = tfs_tensor_ref(h);
  tr->capture_outputs[tr->ncaptures] = p;
  tr->ncaptures++;
  return p;
}

tfs_output tfs_trace__input(tfs_ctx *c, tfs_value *v, tfs_status *st) {
  if (v->ctx == c && !v->tensor) return v->out;
  if (v->tensor) {
    if (c->kind == TFS_CTX_TRACING && v->tensor->dtype == TFS_RESOURCE)
      return capture_handle(c, v->tensor, st);
    /* an eager constant: becomes a Const of the graph */
    tfs_value *k = tfs_value_new(c, v->tensor, st);
    return k ? k->out : none();
  }
  tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                  "Tensor %s:%d belongs to another graph or traced function "
                  "and cannot be used here",
                  tfs_operation_name(v->out.oper), v->out.index);
  return none();
}

int tfs_eager__add_node(tfs_op_call *call, tfs_value **outputs, int noutputs,
                        tfs_status *st) {
  tfs_ctx *c = call->ctx;
  int ni = call->ninputs;
  tfs_output *ins = tfs_calloc((size_t)ni + 1, sizeof(tfs_output));
  tfs_attrs attrs;
  tfs_attrs_init(&attrs);
  char *name = NULL;
  int rc = -1;
  if (!ins || tfs_attrs_copy(&attrs, &call->attrs)) {
    TFS_OOM(st);
    goto done;
  }
  for (int i = 0; i < ni; i++) {
    ins[i] = tfs_trace__input(c, call->inputs[i], st);
    if (!ins[i].oper) goto done;
  }
  name = tfs_graph_unique_name(c->graph, call->def->name);
  if (!name) {
    TFS_OOM(st);
    goto done;
  }
  int stateful = (call->def->flags & TFS_OP_STATEFUL) != 0;
  tfs_operation *prev = c->trace ? c->trace->last_stateful : NULL;
  tfs_node_spec spec = {.name = name,
                        .op_type = call->def->name,
                        .device = call->device,
                        .attrs = &attrs,
                        .ninputs = ni,
                        .inputs = ins,
                        .ncontrol = stateful && prev ? 1 : 0,
                        .control_inputs = &prev};
  pthread_mutex_lock(&c->graph->mu);
  tfs_operation *op = tfs_graph__add_node(c->graph, &spec, st);
  pthread_mutex_unlock(&c->graph->mu);
  if (!op) goto done;
  if (stateful && c->trace) c->trace->last_stateful = op;
  for (int i = 0; i < noutputs; i++) {
    tfs_output o = {op, i};
    outputs[i] = tfs_eager__symbolic(c, o, st);
    if (!outputs[i]) goto done;
  }
  rc = 0;
done:
  tfs_attrs_clear(&attrs);
  tfs_free(ins);
  tfs_free(name);
  return rc;
}
