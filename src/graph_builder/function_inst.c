/*
 * graph_builder/function_inst.c - a library function with its attrs bound,
 * built as a GraphDef (Placeholders for the arguments, the body's nodes
 * with "node:out_arg:index" inputs turned into flat "node:k" ones and attr
 * placeholders filled) and imported into a graph of its own that carries
 * a copy of the library, so that calls inside the body resolve too.
 */
#include "graph_builder/function_inst.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config_proto/pb_util.h"
#include "core/alloc.h"
#include "core/status.h"
#include "core/util.h"
#include "graph_builder/attr_proto.h"
#include "graph_builder/function_lib.h"
#include "graph_builder/tensor_proto.h"
#include "ops/op_def.h"
#include "proto/graph.pb-c.h"
#include "tfsess/graphdef.h"

typedef struct inst {
  const char *fname;
  const Tensorflow__FunctionDef *fd;
  const tfs_graph *lib;     /* the graph whose library is read */
  const tfs_attrs *binding;
  tfs_pb_arena a;
  tfs_status *st;
  char **ret_via;           /* per output: an Identity's "name:0" standing
                               for an argument returned as is, or NULL */
  const tfs_tensor *const *values; /* known argument values, or NULL */
  int nvalues;
  unsigned char *is_const;  /* per argument: made a Const */
} inst;

static int oom(inst *in) {
  TFS_OOM(in->st);
  return -1;
}

/* ---- attrs ---------------------------------------------------------------- */

static const Tensorflow__AttrValue *sig_default(inst *in, const char *name) {
  const Tensorflow__OpDef *sig = in->fd->signature;
  for (size_t i = 0; i < sig->n_attr; i++)
    if (strcmp(sig->attr[i]->name, name) == 0)
      return sig->attr[i]->default_value;
  return NULL;
}

/* The value bound to attr `name`: the call's, else the signature's
 * default; NULL (with an error) when neither has one. */
static Tensorflow__AttrValue *bound(inst *in, const char *name,
                                    const char *node) {
  const tfs_attr_value *v = in->binding ? tfs_attrs_find(in->binding, name)
                                        : NULL;
  if (v) return tfs_attr_value__to_proto(v, &in->a, in->st);
  const Tensorflow__AttrValue *d = sig_default(in, name);
  if (d) return (Tensorflow__AttrValue *)d;
  tfs_status_setf(in->st, TFS_INVALID_ARGUMENT,
                  "Function '%s': attr '%s'%s%s%s has no value in the call",
                  in->fname, name, node ? " (used by node '" : "",
                  node ? node : "", node ? "')" : "");
  return NULL;
}

/* `v` with its placeholders filled (a new message when anything
 * changed). */
static Tensorflow__AttrValue *subst(inst *in, Tensorflow__AttrValue *v,
                                    const char *node) {
  if (!v) return v;
  if (v->value_case == TENSORFLOW__ATTR_VALUE__VALUE_PLACEHOLDER)
    return bound(in, v->placeholder, node);
  if (v->value_case != TENSORFLOW__ATTR_VALUE__VALUE_FUNC || !v->func)
    return v;
  Tensorflow__NameAttrList *f = tfs_pb_arena_alloc(&in->a, sizeof(*f));
  Tensorflow__AttrValue *c = tfs_pb_arena_alloc(&in->a, sizeof(*c));
  if (!f || !c) return oom(in), NULL;
  *f = *v->func;
  *c = *v;
  c->func = f;
  if (f->n_attr) {
    f->attr = tfs_pb_arena_array(&in->a, f->n_attr, sizeof(void *));
    if (!f->attr) return oom(in), NULL;
    for (size_t i = 0; i < f->n_attr; i++) {
      Tensorflow__NameAttrList__AttrEntry *e =
          tfs_pb_arena_alloc(&in->a, sizeof(*e));
      if (!e) return oom(in), NULL;
      *e = *v->func->attr[i];
      if (!(e->value = subst(in, e->value, node))) return NULL;
      f->attr[i] = e;
    }
  }
  return c;
}

static Tensorflow__AttrValue *find_attr(const Tensorflow__NodeDef *nd,
                                        const char *name) {
  for (size_t i = 0; i < nd->n_attr; i++)
    if (strcmp(nd->attr[i]->key, name) == 0) return nd->attr[i]->value;
  return NULL;
}

static int add_attr(inst *in, Tensorflow__NodeDef *nd, const char *key,
                    Tensorflow__AttrValue *v) {
  Tensorflow__NodeDef__AttrEntry **arr = tfs_pb_arena_array(
      &in->a, nd->n_attr + 1, sizeof(void *));
  Tensorflow__NodeDef__AttrEntry *e = tfs_pb_arena_alloc(&in->a, sizeof(*e));
  if (!arr || !e) return oom(in);
  tensorflow__node_def__attr_entry__init(e);
  e->key = (char *)key;
  e->value = v;
  if (nd->n_attr) memcpy(arr, nd->attr, nd->n_attr * sizeof(void *));
  arr[nd->n_attr++] = e;
  nd->attr = arr;
  return 0;
}

/* ---- the argument Placeholders ------------------------------------------ */

static int arg_type(inst *in, const Tensorflow__OpDef__ArgDef *arg,
                    Tensorflow__DataType *out) {
  if ((arg->number_attr && *arg->number_attr) ||
      (arg->type_list_attr && *arg->type_list_attr)) {
    tfs_status_setf(in->st, TFS_UNIMPLEMENTED,
                    "Function '%s': argument '%s' is a list of tensors; "
                    "functions with list arguments are not supported",
                    in->fname, arg->name);
    return -1;
  }
  if (arg->type != TENSORFLOW__DATA_TYPE__DT_INVALID) {
    *out = arg->type;
    return 0;
  }
  const Tensorflow__AttrValue *v =
      arg->type_attr && *arg->type_attr ? bound(in, arg->type_attr, NULL)
                                        : NULL;
  if (!v || v->value_case != TENSORFLOW__ATTR_VALUE__VALUE_TYPE) {
    if (v || tfs_status_ok(in->st))
      tfs_status_setf(in->st, TFS_INVALID_ARGUMENT,
                      "Function '%s': argument '%s' has no type", in->fname,
                      arg->name);
    return -1;
  }
  *out = v->type;
  return 0;
}

static Tensorflow__NodeDef *placeholder(inst *in,
                                        const Tensorflow__OpDef__ArgDef *arg) {
  Tensorflow__DataType t;
  if (arg_type(in, arg, &t)) return NULL;
  Tensorflow__NodeDef *nd = tfs_pb_arena_alloc(&in->a, sizeof(*nd));
  Tensorflow__AttrValue *dt = tfs_pb_arena_alloc(&in->a, sizeof(*dt));
  Tensorflow__AttrValue *sh = tfs_pb_arena_alloc(&in->a, sizeof(*sh));
  Tensorflow__TensorShapeProto *shape =
      tfs_pb_arena_alloc(&in->a, sizeof(*shape));
  if (!nd || !dt || !sh || !shape) return oom(in), NULL;
  tensorflow__node_def__init(nd);
  tensorflow__attr_value__init(dt);
  tensorflow__attr_value__init(sh);
  tensorflow__tensor_shape_proto__init(shape);
  nd->name = arg->name;
  nd->op = "Placeholder";
  dt->value_case = TENSORFLOW__ATTR_VALUE__VALUE_TYPE;
  dt->type = t;
  shape->unknown_rank = 1;
  sh->value_case = TENSORFLOW__ATTR_VALUE__VALUE_SHAPE;
  sh->shape = shape;
  if (add_attr(in, nd, "dtype", dt) || add_attr(in, nd, "shape", sh))
    return NULL;
  return nd;
}

/* What output `output` returns ("node:out_arg:k" or an argument's name),
 * or NULL. */
static const char *ret_of(const Tensorflow__FunctionDef *fd,
                          const char *output) {
  for (size_t i = 0; i < fd->n_ret; i++)
    if (strcmp(fd->ret[i]->key, output) == 0) return fd->ret[i]->value;
  return NULL;
}

/* Whether fd returns input argument i as is at output i (a While body's
 * loop invariant). */
static int returns_arg(const Tensorflow__FunctionDef *fd, size_t i) {
  const Tensorflow__OpDef *sig = fd->signature;
  if (i >= sig->n_input_arg || i >= sig->n_output_arg) return 0;
  const char *ref = ret_of(fd, sig->output_arg[i]->name);
  return ref && strcmp(ref, sig->input_arg[i]->name) == 0;
}

/* Whether argument i can be a Const of its known value: one is given,
 * of the argument's dtype, and the body returns the argument as is at
 * output i. */
static int const_arg(inst *in, size_t i, Tensorflow__DataType *t) {
  const Tensorflow__OpDef *sig = in->fd->signature;
  if (!in->values || i >= (size_t)in->nvalues || !in->values[i] ||
      !returns_arg(in->fd, i))
    return 0;
  if (arg_type(in, sig->input_arg[i], t)) {
    tfs_status_clear(in->st); /* placeholder() reports it */
    return 0;
  }
  return (int)*t == (int)in->values[i]->dtype;
}

/* A Const named as argument i, holding its known value (type t). */
static Tensorflow__NodeDef *const_node(inst *in, size_t i,
                                       Tensorflow__DataType t) {
  Tensorflow__NodeDef *nd = tfs_pb_arena_alloc(&in->a, sizeof(*nd));
  Tensorflow__AttrValue *dt = tfs_pb_arena_alloc(&in->a, sizeof(*dt));
  Tensorflow__AttrValue *val = tfs_pb_arena_alloc(&in->a, sizeof(*val));
  if (!nd || !dt || !val) return oom(in), NULL;
  Tensorflow__TensorProto *tp =
      tfs_tensor__to_proto(in->values[i], &in->a, in->st);
  if (!tp) return NULL;
  tensorflow__node_def__init(nd);
  tensorflow__attr_value__init(dt);
  tensorflow__attr_value__init(val);
  nd->name = in->fd->signature->input_arg[i]->name;
  nd->op = "Const";
  dt->value_case = TENSORFLOW__ATTR_VALUE__VALUE_TYPE;
  dt->type = t;
  val->value_case = TENSORFLOW__ATTR_VALUE__VALUE_TENSOR;
  val->tensor = tp;
  if (add_attr(in, nd, "dtype", dt) || add_attr(in, nd, "value", val))
    return NULL;
  in->is_const[i] = 1;
  return nd;
}

/* ---- inputs: "node:out_arg:index" -> "node:k" ----------------------------- */

static const Tensorflow__NodeDef *body_node(inst *in, const char *name,
                                            size_t len) {
  for (size_t i = 0; i < in->fd->n_node_def; i++) {
    const char *n = in->fd->node_def[i]->name;
    if (strlen(n) == len && strncmp(n, name, len) == 0)
      return in->fd->node_def[i];
  }
  return NULL;
}

/* Number of tensors output arg `arg` of node `nd` (attrs already
 * substituted) stands for. */
static int64_t arg_len(const Tensorflow__NodeDef *nd, const char *number_attr,
                       const char *type_list_attr, const tfs_op_def *def) {
  const char *key = number_attr && *number_attr ? number_attr
                    : type_list_attr && *type_list_attr ? type_list_attr
                                                        : NULL;
  if (!key) return 1;
  const Tensorflow__AttrValue *v = find_attr(nd, key);
  if (v && v->value_case == TENSORFLOW__ATTR_VALUE__VALUE_I) return v->i;
  if (v && v->value_case == TENSORFLOW__ATTR_VALUE__VALUE_LIST && v->list)
    return (int64_t)v->list->n_type;
  for (int i = 0; def && i < def->nattrs; i++) {
    const tfs_attr_def *ad = &def->attrs[i];
    if (strcmp(ad->name, key) != 0 || !ad->has_default) continue;
    return ad->def.is_list ? ad->def.u.list.n : ad->def.u.i;
  }
  return -1;
}

/* Flat index of output `oarg`[idx] of node `nd`, or -1. */
static int64_t flat_output(inst *in, const Tensorflow__NodeDef *nd,
                           const char *oarg, size_t oarg_len, int64_t idx) {
  int64_t start = 0;
  const tfs_flib_fn *callee = tfs_flib__find(in->lib, nd->op);
  if (callee) {
    const Tensorflow__OpDef *sig = callee->pb->signature;
    for (size_t k = 0; k < sig->n_output_arg; k++) {
      const Tensorflow__OpDef__ArgDef *a = sig->output_arg[k];
      int64_t n = arg_len(nd, a->number_attr, a->type_list_attr, NULL);
      if (strlen(a->name) == oarg_len && !strncmp(a->name, oarg, oarg_len))
        return idx >= 0 && idx < n ? start + idx : -1;
      if (n < 0) return -1;
      start += n;
    }
    return -1;
  }
  const tfs_op_def *def = tfs_op_lookup(nd->op);
  for (int k = 0; def && k < def->noutputs; k++) {
    const tfs_arg_def *a = &def->outputs[k];
    int64_t n = arg_len(nd, a->number_attr, a->type_list_attr, def);
    if (strlen(a->name) == oarg_len && !strncmp(a->name, oarg, oarg_len))
      return idx >= 0 && idx < n ? start + idx : -1;
    if (n < 0) return -1;
    start += n;
  }
  return -1;
}

/* The GraphDef form of body reference `ref` ("x", "^x", "n:out:2"). */
static char *graph_ref(inst *in, const char *ref, const char *user) {
  const char *s = ref[0] == '^' ? ref + 1 : ref;
  const char *c1 = strchr(s, ':');
  if (!c1) /* an argument, a control input, or a node named alone */
    return ref[0] == '^' ? (char *)ref
                         : tfs_pb_arena_strdup(&in->a, ref);
  const char *c2 = strchr(c1 + 1, ':');
  const Tensorflow__NodeDef *src = body_node(in, s, (size_t)(c1 - s));
  char *end = NULL;
  int64_t idx = c2 ? strtoll(c2 + 1, &end, 10) : 0;
  int64_t k = src && c2 && end && !*end
                  ? flat_output(in, src, c1 + 1, (size_t)(c2 - c1 - 1), idx)
                  : -1;
  if (k < 0) {
    tfs_status_setf(in->st, TFS_INVALID_ARGUMENT,
                    "Function '%s': node '%s' has input '%s', which names no "
                    "output of the body",
                    in->fname, user, ref);
    return NULL;
  }
  char buf[32];
  snprintf(buf, sizeof buf, ":%lld", (long long)k);
  size_t n = (size_t)(c1 - s);
  char *r = tfs_pb_arena_alloc(&in->a, n + strlen(buf) + 1);
  if (!r) return oom(in), NULL;
  memcpy(r, s, n);
  memcpy(r + n, buf, strlen(buf) + 1);
  return r;
}

static Tensorflow__NodeDef *body_copy(inst *in, const Tensorflow__NodeDef *src) {
  Tensorflow__NodeDef *nd = tfs_pb_arena_alloc(&in->a, sizeof(*nd));
  if (!nd) return oom(in), NULL;
  tensorflow__node_def__init(nd);
  nd->name = src->name;
  nd->op = src->op;
  nd->device = src->device;
  for (size_t k = 0; k < src->n_attr; k++) {
    Tensorflow__AttrValue *v = subst(in, src->attr[k]->value, src->name);
    if (!v || add_attr(in, nd, src->attr[k]->key, v)) return NULL;
  }
  return nd;
}

static int body_inputs(inst *in, const Tensorflow__NodeDef *src,
                       Tensorflow__NodeDef *nd) {
  if (!src->n_input) return 0;
  nd->input = tfs_pb_arena_array(&in->a, src->n_input, sizeof(char *));
  if (!nd->input) return oom(in);
  for (size_t k = 0; k < src->n_input; k++)
    if (!(nd->input[k] = graph_ref(in, src->input[k], src->name))) return -1;
  nd->n_input = src->n_input;
  return 0;
}

/* ---- the whole body ------------------------------------------------------- */

/* An argument returned as is (a While body passes loop variables
 * through) cannot be both fed and fetched: it goes through an Identity,
 * as TensorFlow's _Retval reads the _Arg.  Appends those Identities. */
static int pass_through(inst *in, Tensorflow__GraphDef *gd) {
  const Tensorflow__OpDef *sig = in->fd->signature;
  in->ret_via = tfs_pb_arena_array(&in->a, sig->n_output_arg + 1,
                                   sizeof(char *));
  if (!in->ret_via) return oom(in);
  for (size_t i = 0; i < sig->n_output_arg; i++) {
    const char *ref = ret_of(in->fd, sig->output_arg[i]->name);
    const Tensorflow__OpDef__ArgDef *arg = NULL;
    for (size_t k = 0; ref && !strchr(ref, ':') && k < sig->n_input_arg; k++)
      if (strcmp(sig->input_arg[k]->name, ref) == 0) arg = sig->input_arg[k];
    if (!arg) continue;
    Tensorflow__DataType t;
    if (arg_type(in, arg, &t)) return -1;
    char name[64];
    int tries = 0;
    do /* a name the body does not use */
      snprintf(name, sizeof name, "ret_identity%.*s_%zu", tries, "_______", i);
    while (body_node(in, name, strlen(name)) && ++tries < 8);
    Tensorflow__NodeDef *nd = tfs_pb_arena_alloc(&in->a, sizeof(*nd));
    char **inputs = tfs_pb_arena_array(&in->a, 1, sizeof(char *));
    char *via = tfs_pb_arena_alloc(&in->a, strlen(name) + 3);
    if (!nd || !inputs || !via) return oom(in);
    tensorflow__node_def__init(nd);
    nd->name = tfs_pb_arena_strdup(&in->a, name);
    nd->op = "Identity";
    inputs[0] = arg->name;
    nd->input = inputs;
    nd->n_input = 1;
    Tensorflow__AttrValue *tv = tfs_pb_arena_alloc(&in->a, sizeof(*tv));
    if (!nd->name || !tv) return oom(in);
    tensorflow__attr_value__init(tv);
    tv->value_case = TENSORFLOW__ATTR_VALUE__VALUE_TYPE;
    tv->type = t;
    if (add_attr(in, nd, "T", tv)) return -1;
    snprintf(via, strlen(name) + 3, "%s:0", name);
    in->ret_via[i] = via;
    gd->node[gd->n_node++] = nd;
  }
  return 0;
}

static int build_graphdef(inst *in, Tensorflow__GraphDef *gd) {
  const Tensorflow__OpDef *sig = in->fd->signature;
  size_t n = sig->n_input_arg + in->fd->n_node_def + sig->n_output_arg;
  gd->node = tfs_pb_arena_array(&in->a, n + 1, sizeof(void *));
  Tensorflow__NodeDef **copies =
      tfs_pb_arena_array(&in->a, in->fd->n_node_def + 1, sizeof(void *));
  if (!gd->node || !copies) return oom(in);
  in->is_const = tfs_pb_arena_array(&in->a, sig->n_input_arg + 1, 1);
  if (!in->is_const) return oom(in);
  for (size_t i = 0; i < sig->n_input_arg; i++) {
    Tensorflow__DataType t;
    Tensorflow__NodeDef *nd = const_arg(in, i, &t) ? const_node(in, i, t)
                                                   : NULL;
    /* a value a TensorProto cannot hold stays an argument */
    if (!nd && !tfs_status_ok(in->st)) {
      if (tfs_status_code(in->st) == TFS_RESOURCE_EXHAUSTED) return -1;
      tfs_status_clear(in->st);
    }
    if (!nd && !(nd = placeholder(in, sig->input_arg[i]))) return -1;
    gd->node[gd->n_node++] = nd;
  }
  /* attrs first: output layouts read the substituted ones */
  for (size_t i = 0; i < in->fd->n_node_def; i++)
    if (!(copies[i] = body_copy(in, in->fd->node_def[i]))) return -1;
  /* from here on the body's nodes are the copies (output layouts read
   * their substituted attrs) */
  const Tensorflow__FunctionDef *orig = in->fd;
  Tensorflow__FunctionDef *view = tfs_pb_arena_alloc(&in->a, sizeof(*view));
  if (!view) return oom(in);
  *view = *orig;
  view->node_def = copies;
  in->fd = view;
  int rc = 0;
  for (size_t i = 0; rc == 0 && i < orig->n_node_def; i++) {
    rc = body_inputs(in, orig->node_def[i], copies[i]);
    gd->node[gd->n_node++] = copies[i];
  }
  return rc ? rc : pass_through(in, gd);
}

/* Finds "node:k" (or an argument's name) in the body graph. */
static int find_output(inst *in, tfs_graph *g, const char *ref,
                       const char *what, tfs_output *out) {
  const char *c = strchr(ref, ':');
  char *name = tfs_strndup(ref, c ? (size_t)(c - ref) : strlen(ref));
  if (!name) return oom(in);
  tfs_operation *op = tfs_graph_operation_by_name(g, name);
  tfs_free(name);
  int idx = c ? atoi(c + 1) : 0;
  if (!op || idx < 0 || idx >= op->noutputs) {
    tfs_status_setf(in->st, TFS_INVALID_ARGUMENT,
                    "Function '%s': %s '%s' names no tensor of the body",
                    in->fname, what, ref);
    return -1;
  }
  *out = (tfs_output){op, idx};
  return 0;
}

static const char *map_get(char *const *keys, char *const *vals, size_t n,
                           const char *key) {
  for (size_t i = 0; i < n; i++)
    if (strcmp(keys[i], key) == 0) return vals[i];
  return NULL;
}

static int find_rets(inst *in, tfs_fn_body *b) {
  const Tensorflow__FunctionDef *fd = in->fd;
  const Tensorflow__OpDef *sig = fd->signature;
  b->nargs = (int)sig->n_input_arg;
  b->nrets = (int)sig->n_output_arg;
  b->args = tfs_calloc((size_t)b->nargs + 1, sizeof(tfs_output));
  b->rets = tfs_calloc((size_t)b->nrets + 1, sizeof(tfs_output));
  b->ctrl = tfs_calloc(sig->n_control_output + 1, sizeof(tfs_operation *));
  char **keys = tfs_calloc(fd->n_ret + fd->n_control_ret + 1, sizeof(char *));
  char **vals = tfs_calloc(fd->n_ret + fd->n_control_ret + 1, sizeof(char *));
  int rc = -1;
  if (!b->args || !b->rets || !b->ctrl || !keys || !vals) {
    oom(in);
    goto done;
  }
  for (int i = 0; i < b->nargs; i++)
    if (find_output(in, b->graph, sig->input_arg[i]->name, "argument",
                    &b->args[i]))
      goto done;
  for (size_t i = 0; i < fd->n_ret; i++) {
    keys[i] = fd->ret[i]->key;
    vals[i] = fd->ret[i]->value;
  }
  for (int i = 0; i < b->nrets; i++) {
    const char *name = sig->output_arg[i]->name;
    const char *ref = map_get(keys, vals, fd->n_ret, name);
    char *flat = in->ret_via && in->ret_via[i] ? in->ret_via[i]
                 : ref                         ? graph_ref(in, ref, name)
                                               : NULL;
    if (!ref)
      tfs_status_setf(in->st, TFS_INVALID_ARGUMENT,
                      "Function '%s': output '%s' has no return value",
                      in->fname, name);
    if (!flat || find_output(in, b->graph, flat, "return value", &b->rets[i]))
      goto done;
  }
  for (size_t i = 0; i < fd->n_control_ret; i++) {
    keys[i] = fd->control_ret[i]->key;
    vals[i] = fd->control_ret[i]->value;
  }
  for (size_t i = 0; i < sig->n_control_output; i++) {
    const char *node = map_get(keys, vals, fd->n_control_ret,
                               sig->control_output[i]);
    tfs_operation *op = node ? tfs_graph_operation_by_name(b->graph, node)
                             : NULL;
    if (!op) {
      tfs_status_setf(in->st, TFS_INVALID_ARGUMENT,
                      "Function '%s': control output '%s' names no node",
                      in->fname, sig->control_output[i]);
      goto done;
    }
    b->ctrl[b->nctrl++] = op;
  }
  rc = 0;
done:
  tfs_free(keys);
  tfs_free(vals);
  return rc;
}

int tfs_fn_body__returned_args(tfs_graph *g, const char *name,
                               unsigned char *out, int n) {
  int count = 0;
  memset(out, 0, (size_t)(n > 0 ? n : 0));
  pthread_mutex_lock(&g->mu);
  const tfs_flib_fn *fn = tfs_flib__find(g, name);
  for (int i = 0; fn && i < n; i++) {
    out[i] = (unsigned char)returns_arg(fn->pb, i);
    count += out[i];
  }
  pthread_mutex_unlock(&g->mu);
  return count;
}

void tfs_fn_body__clear(tfs_fn_body *b) {
  if (!b) return;
  tfs_graph_free(b->graph);
  tfs_free(b->args);
  tfs_free(b->rets);
  tfs_free(b->ctrl);
  tfs_free(b->const_args);
  memset(b, 0, sizeof(*b));
}

int tfs_fn_body__instantiate(tfs_graph *g, const char *name,
                             const tfs_attrs *binding, tfs_fn_body *out,
                             tfs_status *st) {
  return tfs_fn_body__instantiate_consts(g, name, binding, NULL, 0, out, st);
}

/* Copies which arguments became Consts into the body (none: NULL), and
 * makes each such Const hold the caller's tensor itself (a reference,
 * not the copy the import made: an LSTM's weights are not kept twice). */
static int keep_const_args(inst *in, tfs_fn_body *b) {
  int any = 0;
  for (int i = 0; i < b->nargs; i++) any |= in->is_const[i];
  if (!any) return 0;
  b->const_args = tfs_malloc((size_t)b->nargs);
  if (!b->const_args) return oom(in);
  memcpy(b->const_args, in->is_const, (size_t)b->nargs);
  for (int i = 0; i < b->nargs; i++) {
    if (!b->const_args[i]) continue;
    tfs_attr_value v;
    tfs_attr_tensor(&v, (tfs_tensor *)in->values[i]);
    if (tfs_attrs_set(&b->args[i].oper->attrs, "value", &v)) return oom(in);
  }
  return 0;
}

int tfs_fn_body__instantiate_consts(tfs_graph *g, const char *name,
                                    const tfs_attrs *binding,
                                    const tfs_tensor *const *values,
                                    int nvalues, tfs_fn_body *out,
                                    tfs_status *st) {
  memset(out, 0, sizeof(*out));
  tfs_graph *ng = tfs_graph_new();
  if (!ng) return TFS_OOM(st), -1;
  pthread_mutex_lock(&g->mu);
  int found = tfs_flib__find(g, name) != NULL;
  int rc = found ? tfs_flib__copy(ng, g, st) : -1;
  pthread_mutex_unlock(&g->mu);
  if (!found)
    tfs_status_setf(st, TFS_NOT_FOUND, "Function '%s' is not defined.",
                    name);
  if (rc) {
    tfs_graph_free(ng);
    return -1;
  }
  /* ng's own copy: g's library may grow meanwhile */
  inst in = {name, tfs_flib__find(ng, name)->pb, ng, binding,
             TFS_PB_ARENA_INIT, st, NULL, values, nvalues, NULL};
  Tensorflow__GraphDef gd = TENSORFLOW__GRAPH_DEF__INIT;
  tfs_buffer buf = {NULL, 0, NULL};
  out->graph = ng;
  rc = -1;
  if (build_graphdef(&in, &gd) == 0 && tfs_pb__pack(&gd.base, &buf, st) == 0) {
    tfs_import_results *r =
        tfs_graph_import_graphdef(ng, buf.data, buf.length, NULL, st);
    if (r) {
      tfs_import_results_free(r);
      rc = find_rets(&in, out);
      if (rc == 0) rc = keep_const_args(&in, out);
    } else {
      tfs_status_prependf(st, "Function '%s': ", name);
    }
  }
  if (buf.data_deallocator) buf.data_deallocator((void *)buf.data, buf.length);
  out->stateful = in.fd->signature->is_stateful;
  for (size_t i = 0; rc == 0 && i < ng->nops; i++)
    if (ng->ops[i]->def->flags & TFS_OP_STATEFUL) out->stateful = 1;
  tfs_pb_arena_free(&in.a);
  if (rc) tfs_fn_body__clear(out);
  return rc;
}
