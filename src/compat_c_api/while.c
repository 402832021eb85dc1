/*
 * compat_c_api/while.c - TF_NewWhile, TF_FinishWhile and TF_AbortWhile:
 * while loops built from a condition graph and a body graph, as
 * TensorFlow's C API builds them (BuildWhileLoop in a scope named after
 * the loop): per loop variable Enter -> Merge -> Switch (on LoopCond of
 * the condition) -> body -> NextIteration back into the Merge, and Exit
 * from the Switch's false output, in the frame the loop's name names.
 * The loop is added to the parent graph by one GraphDef import, so it is
 * added whole or not at all.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "compat_c_api/capi_internal.h"
#include "config_proto/pb_util.h"
#include "core/util.h"
#include "graph_builder/attr_proto.h"
#include "graph_builder/function_lib.h"
#include "graph_builder/graphdef_internal.h"

/* ---- the loops under construction ----------------------------------------
 * TF_WhileParams is the caller's struct; what TF_NewWhile made is recorded
 * here, keyed by the condition graph, so TF_FinishWhile and TF_AbortWhile
 * accept only params a successful TF_NewWhile returned (and only once). */

typedef struct while_rec {
  tfs_graph *parent;
  tfs_graph *cond, *body;
  int n;
  TF_Output *parent_inputs; /* a copy of TF_NewWhile's inputs */
  TF_Output *cond_inputs, *body_inputs, *body_outputs;
} while_rec;

static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static while_rec **g_recs; /* guarded by: g_mu */
static size_t g_nrecs, g_recs_cap;

static int rec_add(while_rec *r) {
  pthread_mutex_lock(&g_mu);
  int rc = tfs_grow((void **)&g_recs, &g_recs_cap, g_nrecs + 1,
                    sizeof(*g_recs));
  if (rc == 0) g_recs[g_nrecs++] = r;
  pthread_mutex_unlock(&g_mu);
  return rc;
}

/* Removes and returns the record `p` describes, or NULL. */
static while_rec *rec_take(const TF_WhileParams *p) {
  while_rec *r = NULL;
  pthread_mutex_lock(&g_mu);
  for (size_t i = 0; p && i < g_nrecs && !r; i++) {
    while_rec *c = g_recs[i];
    if (c->cond != p->cond_graph || c->body != p->body_graph ||
        c->n != p->ninputs || c->cond_inputs != p->cond_inputs ||
        c->body_inputs != p->body_inputs ||
        c->body_outputs != p->body_outputs)
      continue;
    r = c;
    g_recs[i] = g_recs[--g_nrecs];
  }
  pthread_mutex_unlock(&g_mu);
  return r;
}

/* An operation of a condition or body graph may have been given an input
 * from another graph (TensorFlow does not check either); before the
 * graph goes, the producers forget it as a consumer. */
static void unlink_foreign(tfs_graph *sub) {
  for (size_t i = 0; i < sub->nops; i++) {
    tfs_operation *op = sub->ops[i];
    for (int k = 0; k < op->ninputs; k++) {
      tfs_operation *src = op->inputs[k].oper;
      if (!src || src->graph == sub) continue;
      pthread_mutex_lock(&src->graph->mu);
      tfs_consumer_list *cl = &src->consumers[op->inputs[k].index];
      for (int j = 0; j < cl->n; j++)
        if (cl->v[j].oper == op && cl->v[j].index == k) {
          memmove(&cl->v[j], &cl->v[j + 1],
                  sizeof(tfs_input) * (size_t)(cl->n - j - 1));
          cl->n--;
          break;
        }
      pthread_mutex_unlock(&src->graph->mu);
    }
    for (int k = 0; k < op->ncontrol; k++) {
      tfs_operation *src = op->control_inputs[k];
      if (src->graph == sub) continue;
      pthread_mutex_lock(&src->graph->mu);
      for (int j = 0; j < src->ncontrol_out; j++)
        if (src->control_outputs[j] == op) {
          memmove(&src->control_outputs[j], &src->control_outputs[j + 1],
                  sizeof(void *) * (size_t)(src->ncontrol_out - j - 1));
          src->ncontrol_out--;
          break;
        }
      pthread_mutex_unlock(&src->graph->mu);
    }
  }
}

static void rec_free(while_rec *r) {
  if (!r) return;
  if (r->cond) unlink_foreign(r->cond);
  if (r->body) unlink_foreign(r->body);
  tfs_graph_free(r->cond);
  tfs_graph_free(r->body);
  tfs_free(r->parent_inputs);
  tfs_free(r->cond_inputs);
  tfs_free(r->body_inputs);
  tfs_free(r->body_outputs);
  tfs_free(r);
}

/* ---- TF_NewWhile ------------------------------------------------------- */

static TF_WhileParams empty_params(void) {
  TF_WhileParams p = {0, NULL, NULL, {NULL, 0}, NULL, NULL, NULL, NULL};
  return p;
}

/* A Placeholder standing for a loop variable in a condition or body
 * graph (TensorFlow's CreateInput: no shape). */
static int make_input(tfs_graph *g, const char *prefix, int i, tfs_dtype dt,
                      TF_Output *out, tfs_status *st) {
  char name[48];
  snprintf(name, sizeof name, "%s%d", prefix, i);
  tfs_op_desc *d = tfs_op_desc_new(g, "Placeholder", name);
  if (!d) return TFS_OOM(st), -1;
  tfs_op_desc_set_attr_type(d, "dtype", dt);
  tfs_operation *op = tfs_op_desc_finish(d, st);
  if (!op) return -1;
  *out = (TF_Output){op, 0};
  return 0;
}

static while_rec *rec_new(TF_Graph *g, const TF_Output *inputs, int n,
                          tfs_status *st) {
  while_rec *r = tfs_calloc(1, sizeof(*r));
  if (!r) return TFS_OOM(st), NULL;
  r->parent = g;
  r->n = n;
  r->cond = tfs_graph_new();
  r->body = tfs_graph_new();
  r->parent_inputs = tfs_calloc((size_t)n, sizeof(TF_Output));
  r->cond_inputs = tfs_calloc((size_t)n, sizeof(TF_Output));
  r->body_inputs = tfs_calloc((size_t)n, sizeof(TF_Output));
  r->body_outputs = tfs_calloc((size_t)n, sizeof(TF_Output));
  if (!r->cond || !r->body || !r->parent_inputs || !r->cond_inputs ||
      !r->body_inputs || !r->body_outputs) {
    rec_free(r);
    return TFS_OOM(st), NULL;
  }
  memcpy(r->parent_inputs, inputs, sizeof(TF_Output) * (size_t)n);
  for (int i = 0; i < n; i++) {
    r->body_outputs[i] = (TF_Output){NULL, -1};
    tfs_dtype dt = tfs_dtype_base(inputs[i].oper->out_types[inputs[i].index]);
    if (make_input(r->cond, "cond_input", i, dt, &r->cond_inputs[i], st) ||
        make_input(r->body, "body_input", i, dt, &r->body_inputs[i], st)) {
      rec_free(r);
      return NULL;
    }
  }
  return r;
}

TF_WhileParams TF_NewWhile(TF_Graph *g, TF_Output *inputs, int ninputs,
                           TF_Status *status) {
  tfs_status *st = ST(status);
  if (ninputs <= 0) {
    tfs_status_set(st, TFS_INVALID_ARGUMENT,
                   "TF_NewWhile() must be passed at least one input");
    return empty_params();
  }
  TFS_CHECK_ARG(g != NULL && inputs != NULL, st, empty_params());
  for (int i = 0; i < ninputs; i++) {
    if (tfs_capi__check_output(tfs_capi__out(inputs[i]), st)) {
      tfs_status_appendf(st, " (input %d of TF_NewWhile)", i);
      return empty_params();
    }
    if (inputs[i].oper->graph != g) {
      tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                      "Input %d of TF_NewWhile ('%s') is not in the graph "
                      "the loop is built in",
                      i, inputs[i].oper->name);
      return empty_params();
    }
  }
  while_rec *r = rec_new(g, inputs, ninputs, st);
  if (!r) return empty_params();
  if (rec_add(r)) {
    rec_free(r);
    TFS_OOM(st);
    return empty_params();
  }
  TF_WhileParams p = {ninputs,        r->cond, r->cond_inputs,
                      {NULL, -1},     r->body, r->body_inputs,
                      r->body_outputs, NULL};
  tfs_status_clear(st);
  return p;
}

void TF_AbortWhile(const TF_WhileParams *params) {
  rec_free(rec_take(params));
}

/* ---- TF_FinishWhile ---------------------------------------------------- */

/* One loop being written as a GraphDef. */
typedef struct loop {
  const while_rec *r;
  const TF_WhileParams *p;
  tfs_pb_arena a;
  tfs_status *st;
  char *scope;                  /* the loop's unique name scope */
  Tensorflow__GraphDef gd;
  size_t cap;                   /* of gd.node */
  tfs_dtype *dt;                /* per loop variable */
  char **enter_names;           /* per loop variable */
  tfs_attr_value frame;         /* the Enters' frame_name (the messages
                                   borrow it until packed) */
} loop;

static int oom(loop *l) {
  TFS_OOM(l->st);
  return -1;
}

/* "<scope>/<what>" for loop variable i ("Merge", "Merge_1", ...). */
static char *var_node(loop *l, const char *what, int i) {
  size_t n = strlen(l->scope) + strlen(what) + 24;
  char *s = tfs_pb_arena_alloc(&l->a, n);
  if (!s) return NULL;
  if (i > 0)
    snprintf(s, n, "%s/%s_%d", l->scope, what, i);
  else
    snprintf(s, n, "%s/%s", l->scope, what);
  return s;
}

static char *with_index(loop *l, const char *name, int idx) {
  size_t n = strlen(name) + 16;
  char *s = tfs_pb_arena_alloc(&l->a, n);
  if (s) snprintf(s, n, idx ? "%s:%d" : "%s", name, idx);
  return s;
}

/* TensorFlow's Scope::NewSubScope: `name`, or name_1, name_2, ... when a
 * node of the graph is named so or sits under it. */
static int used_scope(const tfs_graph *g, const char *s) {
  size_t n = strlen(s);
  for (size_t i = 0; i < g->nops; i++) {
    const char *nm = g->ops[i]->name;
    if (strncmp(nm, s, n) == 0 && (nm[n] == 0 || nm[n] == '/')) return 1;
  }
  return 0;
}

static int pick_scope(loop *l) {
  tfs_graph *g = l->r->parent;
  const char *name = l->p->name;
  size_t n = strlen(name) + 24;
  if (!(l->scope = tfs_pb_arena_alloc(&l->a, n))) return oom(l);
  snprintf(l->scope, n, "%s", name);
  pthread_mutex_lock(&g->mu);
  for (int k = 1; used_scope(g, l->scope); k++)
    snprintf(l->scope, n, "%s_%d", name, k);
  pthread_mutex_unlock(&g->mu);
  return 0;
}

static int push_node(loop *l, Tensorflow__NodeDef *nd) {
  if (!nd) return oom(l);
  if (l->gd.n_node == l->cap) {
    size_t cap = l->cap ? 2 * l->cap : 32;
    Tensorflow__NodeDef **v = tfs_pb_arena_array(&l->a, cap, sizeof(*v));
    if (!v) return oom(l);
    if (l->gd.n_node) memcpy(v, l->gd.node, sizeof(*v) * l->gd.n_node);
    l->gd.node = v;
    l->cap = cap;
  }
  l->gd.node[l->gd.n_node++] = nd;
  return 0;
}

static int set_attr(loop *l, Tensorflow__NodeDef *nd, const char *key,
                    const tfs_attr_value *v) {
  Tensorflow__NodeDef__AttrEntry *e = tfs_pb_arena_alloc(&l->a, sizeof(*e));
  Tensorflow__NodeDef__AttrEntry **arr =
      tfs_pb_arena_array(&l->a, nd->n_attr + 1, sizeof(void *));
  if (!e || !arr) return oom(l);
  tensorflow__node_def__attr_entry__init(e);
  e->key = (char *)key;
  if (!(e->value = tfs_attr_value__to_proto(v, &l->a, l->st))) return -1;
  if (nd->n_attr) memcpy(arr, nd->attr, sizeof(void *) * nd->n_attr);
  arr[nd->n_attr++] = e;
  nd->attr = arr;
  return 0;
}

/* A control-flow node of the loop: `op` with inputs and attr T. */
static Tensorflow__NodeDef *cf_node(loop *l, const char *name, const char *op,
                                    tfs_dtype t, int nin, const char *in0,
                                    const char *in1) {
  Tensorflow__NodeDef *nd = tfs_pb_arena_alloc(&l->a, sizeof(*nd));
  char **in = tfs_pb_arena_array(&l->a, 2, sizeof(char *));
  if (!nd || !in || !name || !in0 || (nin > 1 && !in1)) return NULL;
  tensorflow__node_def__init(nd);
  nd->name = (char *)name;
  nd->op = (char *)op;
  in[0] = (char *)in0;
  in[1] = (char *)in1;
  nd->input = in;
  nd->n_input = (size_t)nin;
  if (t != TFS_INVALID) {
    tfs_attr_value v;
    tfs_attr_type_val(&v, t);
    if (set_attr(l, nd, "T", &v)) return NULL;
  }
  return nd;
}

/* What tensor `o` of a condition or body graph becomes in the loop:
 * `inputs` are that graph's loop-variable placeholders, `mapped` the
 * loop's tensors standing for them, `prefix` the copied nodes' scope.
 * NULL (no error) when o is not in `g`. */
static char *map_tensor(loop *l, const tfs_graph *g, const TF_Output *inputs,
                        char *const *mapped, const char *prefix,
                        tfs_output o) {
  if (!o.oper || o.oper->graph != g) return NULL;
  for (int i = 0; i < l->r->n; i++)
    if (inputs[i].oper == o.oper) return mapped[i];
  size_t n = strlen(prefix) + strlen(o.oper->name) + 16;
  char *s = tfs_pb_arena_alloc(&l->a, n);
  if (s) snprintf(s, n, o.index ? "%s%s:%d" : "%s%s", prefix, o.oper->name,
                  o.index);
  return s;
}

/* The return tensor `o` of a condition or body graph in the loop, or
 * NULL with TensorFlow's import errors. */
static char *return_tensor(loop *l, const tfs_graph *g,
                           const TF_Output *inputs, char *const *mapped,
                           const char *prefix, TF_Output o) {
  if (o.oper->graph != g) {
    tfs_status_setf(l->st, TFS_INVALID_ARGUMENT,
                    "Requested return tensor '%s:%d' not found in graph def",
                    o.oper->name, o.index);
    return NULL;
  }
  if (o.index < 0 || o.index >= o.oper->noutputs) {
    tfs_status_setf(l->st, TFS_INVALID_ARGUMENT,
                    "Invalid return output %d of node '%s', which has %d "
                    "output(s)",
                    o.index, o.oper->name, o.oper->noutputs);
    return NULL;
  }
  char *s = map_tensor(l, g, inputs, mapped, prefix, tfs_capi__out(o));
  if (!s) oom(l);
  return s;
}

/* `_class` colocation with a copied node gets the copy's name. */
static int fix_class(loop *l, Tensorflow__NodeDef *nd, const char *prefix) {
  for (size_t i = 0; i < nd->n_attr; i++) {
    Tensorflow__AttrValue *v = nd->attr[i]->value;
    if (strcmp(nd->attr[i]->key, "_class") != 0 || !v || !v->list) continue;
    for (size_t k = 0; k < v->list->n_s; k++) {
      ProtobufCBinaryData *b = &v->list->s[k];
      if (b->len < 5 || memcmp(b->data, "loc:@", 5) != 0) continue;
      size_t n = strlen(prefix) + b->len + 1;
      char *s = tfs_pb_arena_alloc(&l->a, n);
      if (!s) return oom(l);
      snprintf(s, n, "loc:@%s%.*s", prefix, (int)(b->len - 5),
               (const char *)b->data + 5);
      b->data = (uint8_t *)s;
      b->len = strlen(s);
    }
  }
  return 0;
}

/* Copies the nodes of a condition or body graph into the loop under
 * `prefix`, placeholders mapped to `mapped`; a node with no input from
 * the copied nodes gets a control input from `pivot` (it then runs in
 * the loop's frame, once per iteration). */
static int copy_graph(loop *l, const tfs_graph *g, const TF_Output *inputs,
                      char *const *mapped, const char *prefix,
                      const char *pivot) {
  for (size_t i = 0; i < g->nops; i++) {
    const tfs_operation *op = g->ops[i];
    int is_input = 0;
    for (int k = 0; k < l->r->n && !is_input; k++)
      is_input = inputs[k].oper == op;
    if (is_input) continue;
    Tensorflow__NodeDef *nd = tfs_graph__node_def_proto(op, &l->a, l->st);
    size_t nin = (size_t)(op->ninputs + op->ncontrol) + 1;
    char **in = tfs_pb_arena_array(&l->a, nin, sizeof(char *));
    if (!nd || !in) return tfs_status_ok(l->st) ? oom(l) : -1;
    size_t len = strlen(prefix) + strlen(op->name) + 1;
    if (!(nd->name = tfs_pb_arena_alloc(&l->a, len))) return oom(l);
    snprintf(nd->name, len, "%s%s", prefix, op->name);
    int inherited = 0;
    size_t n = 0;
    for (int k = 0; k < op->ninputs + op->ncontrol; k++) {
      int ctl = k >= op->ninputs;
      tfs_output src = ctl ? (tfs_output){op->control_inputs[k - op->ninputs],
                                          -1}
                           : op->inputs[k];
      char *s = map_tensor(l, g, inputs, mapped, prefix,
                           ctl ? (tfs_output){src.oper, 0} : src);
      if (!s) {
        if (!src.oper || src.oper->graph == g) return oom(l);
        tfs_status_setf(l->st, TFS_INVALID_ARGUMENT,
                        "Node '%s': Unknown input node '%s%s'", op->name,
                        ctl ? "^" : "",
                        ctl ? src.oper->name
                            : with_index(l, src.oper->name, src.index));
        return -1;
      }
      int from_input = 0;
      for (int j = 0; j < l->r->n; j++) from_input |= s == mapped[j];
      inherited |= !from_input;
      if (ctl) { /* on the node: "^x", also for "x:1" */
        const char *colon = strchr(s, ':');
        int len = colon ? (int)(colon - s) : (int)strlen(s);
        char *c = tfs_pb_arena_alloc(&l->a, (size_t)len + 2);
        if (!c) return oom(l);
        snprintf(c, (size_t)len + 2, "^%.*s", len, s);
        s = c;
      }
      in[n++] = s;
    }
    if (!inherited) {
      char *c = tfs_pb_arena_alloc(&l->a, strlen(pivot) + 2);
      if (!c) return oom(l);
      snprintf(c, strlen(pivot) + 2, "^%s", pivot);
      in[n++] = c;
    }
    nd->input = in;
    nd->n_input = n;
    if (fix_class(l, nd, prefix) || push_node(l, nd)) return -1;
  }
  return 0;
}

/* The condition: its nodes, then LoopCond on its output. */
static int add_cond(loop *l, char *const *merge, char **loop_cond) {
  const tfs_graph *g = l->r->cond;
  char *prefix = var_node(l, "cond/", 0);
  if (!prefix) return oom(l);
  if (copy_graph(l, g, l->r->cond_inputs, merge, prefix, merge[0]))
    return -1;
  TF_Output o = l->p->cond_output;
  char *out = return_tensor(l, g, l->r->cond_inputs, merge, prefix, o);
  if (!out) return -1;
  tfs_dtype dt = o.oper->out_types[o.index];
  if (tfs_dtype_base(dt) != TFS_BOOL) {
    tfs_status_setf(l->st, TFS_INVALID_ARGUMENT,
                    "BuildWhileLoop: 'cond' argument must return a boolean "
                    "output, got %s",
                    tfs_dtype_name(dt));
    return -1;
  }
  *loop_cond = var_node(l, "LoopCond", 0);
  return push_node(
      l, cf_node(l, *loop_cond, "LoopCond", TFS_INVALID, 1, out, NULL));
}

/* Enter and Merge per loop variable (Merge's second input, the back
 * edge, is the NextIteration added last). */
static int add_heads(loop *l, char **merge, tfs_import_options *o) {
  for (int i = 0; i < l->r->n; i++) {
    TF_Output in = l->r->parent_inputs[i];
    char *src = with_index(l, in.oper->name, in.index);
    char *enter = var_node(l, "Enter", i);
    Tensorflow__NodeDef *nd =
        cf_node(l, enter, "Enter", l->dt[i], 1, src, NULL);
    if (!nd) return tfs_status_ok(l->st) ? oom(l) : -1;
    if (set_attr(l, nd, "frame_name", &l->frame) || push_node(l, nd))
      return -1;
    tfs_import_options_add_input_mapping(o, in.oper->name, in.index,
                                         tfs_capi__out(in));
    l->enter_names[i] = enter;
  }
  for (int i = 0; i < l->r->n; i++) {
    merge[i] = var_node(l, "Merge", i);
    Tensorflow__NodeDef *nd = cf_node(l, merge[i], "Merge", l->dt[i], 2,
                                      l->enter_names[i],
                                      var_node(l, "NextIteration", i));
    tfs_attr_value two;
    tfs_attr_int(&two, 2);
    if (!nd || set_attr(l, nd, "N", &two) || push_node(l, nd))
      return tfs_status_ok(l->st) ? oom(l) : -1;
  }
  return 0;
}

/* Switch per variable, the body, NextIteration and Exit per variable. */
static int add_body_and_tails(loop *l, char *const *merge,
                              const char *loop_cond, char **sw,
                              char **sw_true) {
  for (int i = 0; i < l->r->n; i++) {
    sw[i] = var_node(l, "Switch", i);
    sw_true[i] = sw[i] ? with_index(l, sw[i], 1) : NULL;
    if (!sw_true[i] ||
        push_node(l, cf_node(l, sw[i], "Switch", l->dt[i], 2, merge[i],
                             loop_cond)))
      return tfs_status_ok(l->st) ? oom(l) : -1;
  }
  const tfs_graph *g = l->r->body;
  char *prefix = var_node(l, "body/", 0);
  if (!prefix) return oom(l);
  if (copy_graph(l, g, l->r->body_inputs, sw_true, prefix, sw[0])) return -1;
  for (int i = 0; i < l->r->n; i++) {
    TF_Output o = l->p->body_outputs[i];
    char *out = return_tensor(l, g, l->r->body_inputs, sw_true, prefix, o);
    if (!out) return -1;
    tfs_dtype dt = tfs_dtype_base(o.oper->out_types[o.index]);
    if (push_node(l, cf_node(l, var_node(l, "NextIteration", i),
                             "NextIteration", dt, 1, out, NULL)))
      return tfs_status_ok(l->st) ? oom(l) : -1;
  }
  for (int i = 0; i < l->r->n; i++)
    if (push_node(l, cf_node(l, var_node(l, "Exit", i), "Exit", l->dt[i], 1,
                             sw[i], NULL)))
      return tfs_status_ok(l->st) ? oom(l) : -1;
  return 0;
}

/* The functions the condition and the body use go with the loop. */
static int add_library(loop *l) {
  Tensorflow__FunctionDefLibrary *cl = NULL, *bl = NULL;
  if (tfs_flib__export(l->r->cond, &l->a, &cl) ||
      tfs_flib__export(l->r->body, &l->a, &bl))
    return oom(l);
  if (!cl || !bl) {
    l->gd.library = cl ? cl : bl;
    return 0;
  }
  Tensorflow__FunctionDefLibrary *lib = tfs_pb_arena_alloc(&l->a,
                                                           sizeof(*lib));
  size_t nf = cl->n_function + bl->n_function;
  size_t ng = cl->n_gradient + bl->n_gradient;
  if (!lib) return oom(l);
  tensorflow__function_def_library__init(lib);
  lib->function = tfs_pb_arena_array(&l->a, nf + 1, sizeof(void *));
  lib->gradient = tfs_pb_arena_array(&l->a, ng + 1, sizeof(void *));
  if (!lib->function || !lib->gradient) return oom(l);
  for (size_t i = 0; i < cl->n_function; i++)
    lib->function[lib->n_function++] = cl->function[i];
  for (size_t i = 0; i < bl->n_function; i++)
    lib->function[lib->n_function++] = bl->function[i];
  for (size_t i = 0; i < cl->n_gradient; i++)
    lib->gradient[lib->n_gradient++] = cl->gradient[i];
  for (size_t i = 0; i < bl->n_gradient; i++)
    lib->gradient[lib->n_gradient++] = bl->gradient[i];
  l->gd.library = lib;
  return 0;
}

/* Writes the loop and imports it into the parent graph; outputs[i] are
 * the Exits. */
static int build_loop(loop *l, TF_Output *outputs) {
  int n = l->r->n;
  char **names = tfs_pb_arena_array(&l->a, 4 * (size_t)n, sizeof(char *));
  l->dt = tfs_pb_arena_array(&l->a, (size_t)n, sizeof(tfs_dtype));
  tfs_import_options *o = tfs_import_options_new();
  int rc = -1;
  if (!names || !l->dt || !o) {
    oom(l);
    goto done;
  }
  char **merge = names, **sw = names + n, **sw_true = names + 2 * n;
  l->enter_names = names + 3 * n;
  for (int i = 0; i < n; i++) {
    TF_Output in = l->r->parent_inputs[i];
    l->dt[i] = tfs_dtype_base(in.oper->out_types[in.index]);
  }
  char *loop_cond = NULL;
  if (pick_scope(l) || add_heads(l, merge, o) ||
      add_cond(l, merge, &loop_cond) ||
      add_body_and_tails(l, merge, loop_cond, sw, sw_true) || add_library(l))
    goto done;
  for (int i = 0; i < n; i++)
    tfs_import_options_add_return_output(o, var_node(l, "Exit", i), 0);
  tfs_buffer buf = {NULL, 0, NULL};
  if (tfs_pb__pack(&l->gd.base, &buf, l->st)) goto done;
  tfs_import_results *res =
      tfs_graph_import_graphdef(l->r->parent, buf.data, buf.length, o, l->st);
  if (buf.data_deallocator) buf.data_deallocator((void *)buf.data, buf.length);
  if (!res) goto done;
  int nout = 0;
  tfs_output *outs = NULL;
  tfs_import_results_return_outputs(res, &nout, &outs);
  for (int i = 0; i < n && i < nout; i++)
    outputs[i] = tfs_capi__tf_out(outs[i]);
  tfs_import_results_free(res);
  rc = 0;
done:
  tfs_import_options_free(o);
  return rc;
}

/* TensorFlow's ValidateInputWhileParams. */
static int check_params(const TF_WhileParams *p, tfs_status *st) {
  if (!p->cond_output.oper) {
    tfs_status_set(st, TFS_INVALID_ARGUMENT,
                   "TF_WhileParams `cond_output` field isn't set");
    return -1;
  }
  for (int i = 0; i < p->ninputs; i++)
    if (!p->body_outputs[i].oper) {
      tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                      "TF_WhileParams `body_outputs[%d]` field isn't set", i);
      return -1;
    }
  if (!p->name) {
    tfs_status_set(st, TFS_INVALID_ARGUMENT,
                   "TF_WhileParams `name` field is null");
    return -1;
  }
  return 0;
}

void TF_FinishWhile(const TF_WhileParams *params, TF_Status *status,
                    TF_Output *outputs) {
  tfs_status *st = ST(status);
  while_rec *r = rec_take(params);
  if (!r) { /* not ours: nothing is freed, as TensorFlow */
    tfs_status_set(st, TFS_INVALID_ARGUMENT,
                   "TF_WhileParams must be created by successful "
                   "TF_NewWhile() call");
    return;
  }
  if (!outputs) {
    tfs_status_set(st, TFS_INVALID_ARGUMENT,
                   "TF_FinishWhile: `outputs` is NULL");
  } else if (check_params(params, st) == 0) {
    loop l;
    memset(&l, 0, sizeof l);
    l.r = r;
    l.p = params;
    l.st = st;
    tensorflow__graph_def__init(&l.gd);
    if (tfs_attr_string(&l.frame, params->name, strlen(params->name)))
      TFS_OOM(st);
    else if (build_loop(&l, outputs) == 0)
      tfs_status_clear(st);
    tfs_attr_value_clear(&l.frame);
    tfs_pb_arena_free(&l.a);
  }
  rec_free(r);
}
