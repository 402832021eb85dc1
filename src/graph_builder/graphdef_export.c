/*
 * graph_builder/graphdef_export.c - the graph as GraphDef bytes (whole or
 * pruned to what some fetches and targets need), one operation as a
 * NodeDef, and the op registry as OpDefs / an OpList.
 */
#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "core/status.h"
#include "graph_builder/attr_proto.h"
#include "graph_builder/function_lib.h"
#include "graph_builder/graphdef_internal.h"
#include "tfsess/graphdef.h"

/* ---- NodeDef ------------------------------------------------------------- */

static char *input_name(const tfs_output *in, tfs_pb_arena *a) {
  if (in->index == 0) return in->oper->name; /* borrowed */
  size_t n = strlen(in->oper->name) + 16;
  char *s = tfs_pb_arena_alloc(a, n);
  if (s) snprintf(s, n, "%s:%d", in->oper->name, in->index);
  return s;
}

Tensorflow__NodeDef *tfs_graph__node_def_proto(const tfs_operation *op,
                                               tfs_pb_arena *a,
                                               tfs_status *st) {
  Tensorflow__NodeDef *nd = tfs_pb_arena_alloc(a, sizeof(*nd));
  if (!nd) goto oom;
  tensorflow__node_def__init(nd);
  nd->name = op->name;
  nd->op = op->def->name;
  nd->device = op->device && *op->device ? op->device : nd->device;
  size_t nin = (size_t)op->ninputs + (size_t)op->ncontrol;
  if (nin) {
    nd->input = tfs_pb_arena_array(a, nin, sizeof(char *));
    if (!nd->input) goto oom;
    for (int i = 0; i < op->ninputs; i++)
      if (!(nd->input[i] = input_name(&op->inputs[i], a))) goto oom;
    for (int i = 0; i < op->ncontrol; i++) {
      const char *c = op->control_inputs[i]->name;
      size_t n = strlen(c);
      char *s = tfs_pb_arena_alloc(a, n + 2);
      if (!s) goto oom;
      s[0] = '^';
      memcpy(s + 1, c, n);
      nd->input[op->ninputs + i] = s;
    }
    nd->n_input = nin;
  }
  size_t nattr = (size_t)op->attrs.n;
  if (nattr) {
    Tensorflow__NodeDef__AttrEntry *e =
        tfs_pb_arena_array(a, nattr, sizeof(*e));
    nd->attr = tfs_pb_arena_array(a, nattr, sizeof(void *));
    if (!e || !nd->attr) goto oom;
    for (size_t i = 0; i < nattr; i++) { /* tfs_attrs is sorted by name */
      tensorflow__node_def__attr_entry__init(&e[i]);
      e[i].key = op->attrs.e[i].name;
      e[i].value = tfs_attr_value__to_proto(&op->attrs.e[i].value, a, st);
      if (!e[i].value) {
        tfs_status_prependf(st, "Node '%s': attr '%s': ", op->name,
                            op->attrs.e[i].name);
        return NULL;
      }
      nd->attr[i] = &e[i];
    }
    nd->n_attr = nattr;
  }
  if (op->norig > 0) {
    Tensorflow__NodeDef__ExperimentalDebugInfo *dbg =
        tfs_pb_arena_alloc(a, sizeof(*dbg));
    if (!dbg) goto oom;
    tensorflow__node_def__experimental_debug_info__init(dbg);
    dbg->original_node_names = op->orig_names; /* borrowed */
    dbg->n_original_node_names = (size_t)op->norig;
    nd->experimental_debug_info = dbg;
  }
  return nd;
oom:
  TFS_OOM(st);
  return NULL;
}

int tfs_graph__node_def(tfs_operation *op, tfs_buffer *out, tfs_status *st) {
  TFS_CHECK_ARG(op != NULL, st, -1);
  if (tfs_pb__check_empty(out, st)) return -1;
  tfs_pb_arena a = TFS_PB_ARENA_INIT;
  pthread_mutex_lock(&op->graph->mu);
  Tensorflow__NodeDef *nd = tfs_graph__node_def_proto(op, &a, st);
  int rc = nd ? tfs_pb__pack(&nd->base, out, st) : -1;
  pthread_mutex_unlock(&op->graph->mu);
  tfs_pb_arena_free(&a);
  return rc;
}

/* ---- GraphDef ------------------------------------------------------------ */

/* Packs the ops with keep[id] set (all when keep is NULL), in insertion
 * order.  Caller holds g->mu. */
static int export_ops(tfs_graph *g, const uint8_t *keep, tfs_buffer *out,
                      tfs_status *st) {
  tfs_pb_arena a = TFS_PB_ARENA_INIT;
  Tensorflow__GraphDef gd = TENSORFLOW__GRAPH_DEF__INIT;
  Tensorflow__VersionDef ver = TENSORFLOW__VERSION_DEF__INIT;
  int rc = -1;
  ver.producer = g->has_versions ? g->producer : TFS_GRAPH_DEF_VERSION;
  ver.min_consumer = g->has_versions ? g->min_consumer : 0;
  gd.versions = &ver;
  gd.node = tfs_pb_arena_array(&a, g->nops, sizeof(void *));
  if ((g->nops && !gd.node) || tfs_flib__export(g, &a, &gd.library)) {
    TFS_OOM(st);
    goto done;
  }
  for (size_t i = 0; i < g->nops; i++) {
    if (keep && !keep[i]) continue;
    Tensorflow__NodeDef *nd = tfs_graph__node_def_proto(g->ops[i], &a, st);
    if (!nd) goto done;
    gd.node[gd.n_node++] = nd;
  }
  rc = tfs_pb__pack(&gd.base, out, st);
done:
  tfs_pb_arena_free(&a);
  return rc;
}

void tfs_graph_to_graphdef(tfs_graph *g, tfs_buffer *out, tfs_status *st) {
  TFS_CHECK_ARG(g != NULL && out != NULL, st, );
  if (tfs_pb__check_empty(out, st)) return;
  pthread_mutex_lock(&g->mu);
  export_ops(g, NULL, out, st);
  pthread_mutex_unlock(&g->mu);
}

/* Marks `op` and everything it depends on (data and control inputs),
 * without recursion.  stack has room for every op. */
static void mark_ancestors(tfs_operation *op, uint8_t *keep,
                           tfs_operation **stack) {
  size_t sp = 0;
  if (keep[op->id]) return;
  keep[op->id] = 1;
  stack[sp++] = op;
  while (sp) {
    tfs_operation *o = stack[--sp];
    for (int i = 0; i < o->ninputs + o->ncontrol; i++) {
      tfs_operation *p = i < o->ninputs ? o->inputs[i].oper
                                        : o->control_inputs[i - o->ninputs];
      if (keep[p->id]) continue;
      keep[p->id] = 1;
      stack[sp++] = p;
    }
  }
}

void tfs_graph_to_graphdef_pruned(tfs_graph *g, const tfs_output *fetches,
                                  int nfetches,
                                  tfs_operation *const *targets,
                                  int ntargets, tfs_buffer *out,
                                  tfs_status *st) {
  TFS_CHECK_ARG(g != NULL && out != NULL, st, );
  TFS_CHECK_ARG(nfetches >= 0 && ntargets >= 0, st, );
  TFS_CHECK_ARG(nfetches == 0 || fetches != NULL, st, );
  TFS_CHECK_ARG(ntargets == 0 || targets != NULL, st, );
  if (tfs_pb__check_empty(out, st)) return;
  pthread_mutex_lock(&g->mu);
  uint8_t *keep = tfs_calloc(g->nops + 1, 1);
  tfs_operation **stack = tfs_malloc(sizeof(void *) * (g->nops + 1));
  if (!keep || !stack) {
    TFS_OOM(st);
    goto done;
  }
  for (int i = 0; i < nfetches + ntargets; i++) {
    int is_fetch = i < nfetches;
    tfs_operation *op = is_fetch ? fetches[i].oper : targets[i - nfetches];
    int idx = is_fetch ? fetches[i].index : 0;
    if (!op || op->graph != g || idx < 0 ||
        (is_fetch && idx >= op->noutputs)) {
      tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                      "%s %d is not %s of this graph",
                      is_fetch ? "fetch" : "target",
                      is_fetch ? i : i - nfetches,
                      is_fetch ? "an output" : "an operation");
      goto done;
    }
    mark_ancestors(op, keep, stack);
  }
  export_ops(g, keep, out, st);
done:
  pthread_mutex_unlock(&g->mu);
  tfs_free(keep);
  tfs_free(stack);
}

/* ---- OpDef / OpList ------------------------------------------------------ */

static int args_to_proto(const tfs_arg_def *args, int n,
                         Tensorflow__OpDef__ArgDef ***out, size_t *nout,
                         tfs_pb_arena *a) {
  if (n == 0) return 0;
  *out = tfs_pb_arena_array(a, (size_t)n, sizeof(void *));
  Tensorflow__OpDef__ArgDef *d = tfs_pb_arena_array(a, (size_t)n, sizeof(*d));
  if (!*out || !d) return -1;
  for (int i = 0; i < n; i++) {
    tensorflow__op_def__arg_def__init(&d[i]);
    d[i].name = args[i].name;
    d[i].type = (Tensorflow__DataType)args[i].type;
    if (args[i].type_attr) d[i].type_attr = args[i].type_attr;
    if (args[i].number_attr) d[i].number_attr = args[i].number_attr;
    if (args[i].type_list_attr) d[i].type_list_attr = args[i].type_list_attr;
    d[i].is_ref = args[i].is_ref != 0;
    (*out)[i] = &d[i];
  }
  *nout = (size_t)n;
  return 0;
}

static Tensorflow__OpDef__AttrDef *attr_def_to_proto(const tfs_attr_def *ad,
                                                     tfs_pb_arena *a,
                                                     tfs_status *st) {
  Tensorflow__OpDef__AttrDef *p = tfs_pb_arena_alloc(a, sizeof(*p));
  if (!p) return NULL;
  tensorflow__op_def__attr_def__init(p);
  p->name = ad->name;
  p->type = (char *)tfs_attr_def__type_string(ad);
  if (ad->has_default &&
      !(p->default_value = tfs_attr_value__to_proto(&ad->def, a, st)))
    return NULL;
  p->has_minimum = ad->has_min != 0;
  p->minimum = ad->min;
  if (ad->allowed.u.list.n > 0 &&
      !(p->allowed_values = tfs_attr_value__to_proto(&ad->allowed, a, st)))
    return NULL;
  return p;
}

Tensorflow__OpDef *tfs_op_def__to_proto(const tfs_op_def *def,
                                        tfs_pb_arena *a, tfs_status *st) {
  Tensorflow__OpDef *p = tfs_pb_arena_alloc(a, sizeof(*p));
  if (!p) goto oom;
  tensorflow__op_def__init(p);
  p->name = def->name;
  if (args_to_proto(def->inputs, def->ninputs, &p->input_arg,
                    &p->n_input_arg, a) ||
      args_to_proto(def->outputs, def->noutputs, &p->output_arg,
                    &p->n_output_arg, a))
    goto oom;
  if (def->nattrs) {
    p->attr = tfs_pb_arena_array(a, (size_t)def->nattrs, sizeof(void *));
    if (!p->attr) goto oom;
    for (int i = 0; i < def->nattrs; i++)
      if (!(p->attr[i] = attr_def_to_proto(&def->attrs[i], a, st))) {
        if (a->oom) goto oom;
        return NULL;
      }
    p->n_attr = (size_t)def->nattrs;
  }
  p->is_stateful = (def->flags & TFS_OP_STATEFUL) != 0;
  p->is_commutative = (def->flags & TFS_OP_COMMUTATIVE) != 0;
  p->is_aggregate = (def->flags & TFS_OP_AGGREGATE) != 0;
  p->allows_uninitialized_input = (def->flags & TFS_OP_ALLOWS_UNINIT) != 0;
  return p;
oom:
  TFS_OOM(st);
  return NULL;
}

int tfs_op_def__serialize(const tfs_op_def *def, tfs_buffer *out,
                          tfs_status *st) {
  TFS_CHECK_ARG(def != NULL, st, -1);
  if (tfs_pb__check_empty(out, st)) return -1;
  tfs_pb_arena a = TFS_PB_ARENA_INIT;
  Tensorflow__OpDef *p = tfs_op_def__to_proto(def, &a, st);
  int rc = p ? tfs_pb__pack(&p->base, out, st) : -1;
  tfs_pb_arena_free(&a);
  return rc;
}

int tfs_op_list__serialize(tfs_buffer *out, tfs_status *st) {
  if (tfs_pb__check_empty(out, st)) return -1;
  int n;
  const tfs_op_def *const *defs = tfs_op_all(&n);
  tfs_pb_arena a = TFS_PB_ARENA_INIT;
  Tensorflow__OpList list = TENSORFLOW__OP_LIST__INIT;
  int rc = -1;
  list.op = tfs_pb_arena_array(&a, (size_t)n, sizeof(void *));
  if (n && !list.op) {
    TFS_OOM(st);
    goto done;
  }
  for (int i = 0; i < n; i++)
    if (!(list.op[i] = tfs_op_def__to_proto(defs[i], &a, st))) goto done;
  list.n_op = (size_t)n;
  rc = tfs_pb__pack(&list.base, out, st);
done:
  tfs_pb_arena_free(&a);
  return rc;
}
