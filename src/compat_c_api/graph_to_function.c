/*
 * compat_c_api/graph_to_function.c - TF_GraphToFunction and
 * TF_GraphToFunctionWithControlOutputs: a FunctionDef made from a graph's
 * operations (all of them, or the ones given), with TensorFlow's naming
 * (GraphToFunctionDef): argument names normalized from node names, body
 * nodes renamed where they collide, inputs written "node:out_arg:index",
 * and TensorFlow's messages for what cannot become a function.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compat_c_api/capi_internal.h"
#include "config_proto/pb_util.h"
#include "core/alloc.h"
#include "core/hashmap.h"
#include "core/status.h"
#include "core/util.h"
#include "graph_builder/attr_proto.h"
#include "graph_builder/function_lib.h"
#include "proto/function.pb-c.h"

/* The state of one conversion.  Every string and message lives in `a`. */
typedef struct g2f {
  const tfs_graph *g;
  const char *fn;            /* fn_name, for messages */
  tfs_pb_arena a;
  tfs_status *st;
  tfs_map used;              /* name -> next suffix + 1 (NodeNameMapping) */
  tfs_map node_names;        /* graph node name -> function node name */
  tfs_map renaming;          /* "node:k" -> the function's tensor name */
  int nkeep, keepcap;
  tfs_attr_value *keep;      /* values the messages borrow until packed */
  Tensorflow__FunctionDef fd;
  Tensorflow__OpDef sig;
} g2f;

static int oom(g2f *c) {
  TFS_OOM(c->st);
  return -1;
}

static char *fmt(g2f *c, const char *f, const char *s, int i) {
  size_t n = strlen(f) + strlen(s) + 24;
  char *r = tfs_pb_arena_alloc(&c->a, n);
  if (r) snprintf(r, n, f, s, i);
  return r;
}

/* ---- names (TensorFlow's NodeNameMapping) -------------------------------- */

/* Lower case, other characters '_', starting at the first letter;
 * "unknown" when there is none. */
static char *normalize(g2f *c, const char *name) {
  const char *p = name;
  while (*p && !isalpha((unsigned char)*p)) p++;
  char *r = tfs_pb_arena_strdup(&c->a, *p ? p : "unknown");
  for (char *q = r; q && *q; q++)
    *q = isalnum((unsigned char)*q) ? (char)tolower((unsigned char)*q) : '_';
  return r;
}

/* `name`, or name_0, name_1, ... : the first not used yet; marks it used. */
static char *uniquify(g2f *c, const char *name) {
  intptr_t next = (intptr_t)tfs_map_get_str(&c->used, name);
  char *r = (char *)name;
  if (next) {
    const char *base = name;
    for (;; next++) {
      r = fmt(c, "%s_%d", base, (int)(next - 1));
      if (!r) return NULL;
      if (!tfs_map_get_str(&c->used, r)) break;
    }
    if (tfs_map_put_str(&c->used, base, (void *)(next + 1))) return NULL;
  }
  if (tfs_map_put_str(&c->used, r, (void *)(intptr_t)1)) return NULL;
  return r;
}

static const char *lookup_node(g2f *c, const char *node) {
  return tfs_map_get_str(&c->node_names, node);
}

static int map_tensor(g2f *c, const tfs_operation *op, int k,
                      const char *value) {
  char *key = fmt(c, "%s:%d", op->name, k);
  if (!key) return oom(c);
  if (tfs_map_get_str(&c->renaming, key)) return 0; /* an input already */
  return tfs_map_put_str(&c->renaming, key, (void *)value) ? oom(c) : 0;
}

/* ---- checks of the arguments --------------------------------------------- */

/* Graph::IsValidOutputTensor and ValidateNonRefOutput for input or
 * output i, with the context TensorFlow's TF_RETURN_WITH_CONTEXT_IF_ERROR
 * appends. */
static int check_tensor(g2f *c, TF_Output o, int is_output, int i) {
  if (!o.oper) {
    tfs_status_set(c->st, TFS_INVALID_ARGUMENT, "Node is null");
  } else if (o.oper->graph != c->g) {
    tfs_status_setf(c->st, TFS_INVALID_ARGUMENT,
                    "Node with id %d is different from the passed in node. "
                    "Does it belong to a different graph?",
                    o.oper->id);
  } else if (tfs_capi__check_output(tfs_capi__out(o), c->st) == 0) {
    tfs_dtype dt = o.oper->out_types[o.index];
    if (!tfs_dtype_is_ref(dt)) return 0;
    tfs_status_setf(c->st, TFS_INVALID_ARGUMENT,
                    "Output %d of node '%s' has a reference type %s",
                    o.index, o.oper->name, tfs_dtype_name(dt));
    if (is_output) {
      tfs_status_appendf(c->st, "\n\tEncountered while creating function "
                         "'%s'", c->fn);
      return -1;
    }
  }
  if (is_output)
    tfs_status_appendf(c->st, "\n\tEncountered while processing output %d "
                       "from function '%s'", i, c->fn);
  else
    tfs_status_appendf(c->st, "\n\tEncountered while processing input %d "
                       "into function '%s'", i, c->fn);
  return -1;
}

static int check_args(g2f *c, int ninputs, const TF_Output *inputs,
                      int noutputs, const TF_Output *outputs) {
  for (int i = 0; i < ninputs; i++) {
    if (check_tensor(c, inputs[i], 0, i)) return -1;
    for (int k = 0; k < i; k++)
      if (inputs[k].oper == inputs[i].oper &&
          inputs[k].index == inputs[i].index) {
        tfs_status_setf(c->st, TFS_INVALID_ARGUMENT,
                        "TF_Output %s:%d appears more than once in the "
                        "input list",
                        inputs[i].oper->name, inputs[i].index);
        return -1;
      }
  }
  for (int i = 0; i < noutputs; i++)
    if (check_tensor(c, outputs[i], 1, i)) return -1;
  return 0;
}

/* The body: the given operations, or (num_opers -1) every operation not
 * used as an input, which must then have a single output. */
static const tfs_operation **body_nodes(g2f *c, int num_opers,
                                        const TF_Operation *const *opers,
                                        int ninputs, const TF_Output *inputs,
                                        int *n) {
  size_t cap = num_opers >= 0 ? (size_t)num_opers : c->g->nops;
  const tfs_operation **v = tfs_pb_arena_array(&c->a, cap + 1, sizeof(*v));
  if (!v) return oom(c), NULL;
  *n = 0;
  if (num_opers >= 0) {
    for (int i = 0; i < num_opers; i++) {
      if (!opers[i] || opers[i]->graph != c->g) {
        tfs_status_setf(c->st, TFS_INVALID_ARGUMENT,
                        "Operation %d of `opers` is not in the graph of "
                        "function '%s'",
                        i, c->fn);
        return NULL;
      }
      v[(*n)++] = opers[i];
    }
    return v;
  }
  for (size_t i = 0; i < c->g->nops; i++) {
    const tfs_operation *op = c->g->ops[i];
    int is_input = 0;
    for (int k = 0; k < ninputs && !is_input; k++)
      is_input = inputs[k].oper == op;
    if (!is_input) {
      v[(*n)++] = op;
    } else if (op->noutputs != 1) {
      tfs_status_setf(c->st, TFS_INVALID_ARGUMENT,
                      "When `num_opers` is set to -1, nodes referenced in "
                      "`inputs` must have a single output. Node %s has %d "
                      "outputs. Encountered while creating function '%s'",
                      op->name, op->noutputs, c->fn);
      return NULL;
    }
  }
  return v;
}

/* ---- the signature ------------------------------------------------------- */

static Tensorflow__OpDef__ArgDef *new_arg(g2f *c, const char *name,
                                          tfs_dtype dt) {
  Tensorflow__OpDef__ArgDef *a = tfs_pb_arena_alloc(&c->a, sizeof(*a));
  if (!a) return oom(c), NULL;
  tensorflow__op_def__arg_def__init(a);
  a->name = (char *)name;
  a->type = (Tensorflow__DataType)dt;
  return a;
}

static int add_outputs(g2f *c, int n, const TF_Output *outputs,
                       const char *const *names) {
  c->sig.output_arg = tfs_pb_arena_array(&c->a, (size_t)n + 1,
                                         sizeof(void *));
  if (!c->sig.output_arg) return oom(c);
  for (int i = 0; i < n; i++) {
    const char *name;
    if (names) {
      if (tfs_map_get_str(&c->used, names[i])) {
        tfs_status_setf(c->st, TFS_INVALID_ARGUMENT,
                        "Cannot have duplicate output names. Name '%s' "
                        "appears more than once in 'output_names' array.",
                        names[i]);
        return -1;
      }
      name = tfs_pb_arena_strdup(&c->a, names[i]);
      if (!name || tfs_map_put_str(&c->used, name, (void *)(intptr_t)1))
        return oom(c);
    } else {
      char *norm = normalize(c, outputs[i].oper->name);
      if (!norm || !(name = uniquify(c, norm))) return oom(c);
    }
    Tensorflow__OpDef__ArgDef *a = new_arg(
        c, name, outputs[i].oper->out_types[outputs[i].index]);
    if (!a) return -1;
    c->sig.output_arg[c->sig.n_output_arg++] = a;
  }
  return 0;
}

/* Keeps `v` alive until the message is packed; returns its copy. */
static tfs_attr_value *keep(g2f *c, tfs_attr_value *v) {
  size_t cap = (size_t)c->keepcap;
  if (tfs_grow((void **)&c->keep, &cap, (size_t)c->nkeep + 1,
               sizeof(*c->keep))) {
    tfs_attr_value_clear(v);
    return NULL;
  }
  c->keepcap = (int)cap;
  c->keep[c->nkeep] = *v;
  return &c->keep[c->nkeep++];
}

/* An input's ArgAttrs: its internal ("_") attrs, and a known shape as
 * `_output_shapes` (for _Arg's shape function), as TensorFlow keeps
 * them.  NULL (no error) when there are none. */
static Tensorflow__FunctionDef__ArgAttrs *arg_attrs(g2f *c,
                                                    const tfs_operation *op,
                                                    tfs_dtype dt) {
  Tensorflow__FunctionDef__ArgAttrs *aa = tfs_pb_arena_alloc(&c->a,
                                                             sizeof(*aa));
  Tensorflow__FunctionDef__ArgAttrs__AttrEntry **e = tfs_pb_arena_array(
      &c->a, (size_t)op->attrs.n + 1, sizeof(void *));
  if (!aa || !e) return oom(c), NULL;
  tensorflow__function_def__arg_attrs__init(aa);
  aa->attr = e;
  for (int i = 0; i < op->attrs.n; i++) {
    const char *key = op->attrs.e[i].name;
    const tfs_attr_value *v = &op->attrs.e[i].value;
    tfs_attr_value shapes;
    if (key[0] != '_') {
      if (strcmp(key, "shape") != 0 || v->type != TFS_ATTR_SHAPE ||
          v->is_list || dt == TFS_RESOURCE)
        continue;
      if (tfs_attr_list(&shapes, TFS_ATTR_SHAPE, 1, v->u.shape) ||
          !(v = keep(c, &shapes)))
        return oom(c), NULL;
      key = "_output_shapes";
    }
    Tensorflow__FunctionDef__ArgAttrs__AttrEntry *en =
        tfs_pb_arena_alloc(&c->a, sizeof(*en));
    if (!en) return oom(c), NULL;
    tensorflow__function_def__arg_attrs__attr_entry__init(en);
    en->key = (char *)key;
    if (!(en->value = tfs_attr_value__to_proto(v, &c->a, c->st)))
      return NULL;
    e[aa->n_attr++] = en;
  }
  return aa;
}

static int add_inputs(g2f *c, int n, const TF_Output *inputs) {
  c->sig.input_arg = tfs_pb_arena_array(&c->a, (size_t)n + 1,
                                        sizeof(void *));
  c->fd.arg_attr = tfs_pb_arena_array(&c->a, (size_t)n + 1, sizeof(void *));
  if (!c->sig.input_arg || !c->fd.arg_attr) return oom(c);
  for (int i = 0; i < n; i++) {
    const tfs_operation *op = inputs[i].oper;
    tfs_dtype dt = op->out_types[inputs[i].index];
    char *norm = normalize(c, op->name);
    char *name = norm ? uniquify(c, norm) : NULL;
    if (!name || tfs_map_put_str(&c->node_names, op->name, name))
      return oom(c);
    Tensorflow__OpDef__ArgDef *a = new_arg(c, name, dt);
    if (!a || map_tensor(c, op, inputs[i].index, name)) return -1;
    c->sig.input_arg[c->sig.n_input_arg++] = a;
    Tensorflow__FunctionDef__ArgAttrs *aa = arg_attrs(c, op, dt);
    if (!aa) return -1;
    if (!aa->n_attr) continue;
    Tensorflow__FunctionDef__ArgAttrEntry *en =
        tfs_pb_arena_alloc(&c->a, sizeof(*en));
    if (!en) return oom(c);
    tensorflow__function_def__arg_attr_entry__init(en);
    en->key = (uint32_t)i;
    en->value = aa;
    c->fd.arg_attr[c->fd.n_arg_attr++] = en;
  }
  return 0;
}

/* Names the body's nodes and every output they have ("node:out_arg:k"). */
static int name_body(g2f *c, const tfs_operation **body, int n) {
  for (int i = 0; i < n; i++) {
    const tfs_operation *op = body[i];
    char *copy = tfs_pb_arena_strdup(&c->a, op->name);
    char *name = copy ? uniquify(c, copy) : NULL;
    if (!name || tfs_map_put_str(&c->node_names, op->name, name))
      return oom(c);
    for (int k = 0; k < op->def->noutputs; k++)
      for (int j = 0; j < op->out_arg_len[k]; j++) {
        size_t len = strlen(name) + strlen(op->def->outputs[k].name) + 24;
        char *t = tfs_pb_arena_alloc(&c->a, len);
        if (!t) return oom(c);
        snprintf(t, len, "%s:%s:%d", name, op->def->outputs[k].name, j);
        if (map_tensor(c, op, op->out_arg_start[k] + j, t)) return -1;
      }
  }
  return 0;
}

/* ---- the body ------------------------------------------------------------ */

/* TensorFlow's id of control edge `k` into `op` (edges are numbered as
 * they are made, after the source-to-sink edge: each node's data inputs,
 * then its control inputs). */
static int control_edge_id(const tfs_graph *g, const tfs_operation *op,
                           int k) {
  int id = 1;
  for (size_t i = 0; i < g->nops && g->ops[i] != op; i++)
    id += g->ops[i]->ninputs + g->ops[i]->ncontrol;
  return id + op->ninputs + k;
}

static int cmp_ops_by_name(const void *a, const void *b) {
  return strcmp((*(tfs_operation *const *)a)->name,
                (*(tfs_operation *const *)b)->name);
}

static int node_inputs(g2f *c, const tfs_operation *op,
                       Tensorflow__NodeDef *nd) {
  nd->input = tfs_pb_arena_array(
      &c->a, (size_t)(op->ninputs + op->ncontrol) + 1, sizeof(char *));
  tfs_operation **ctl = tfs_pb_arena_array(&c->a, (size_t)op->ncontrol + 1,
                                           sizeof(void *));
  if (!nd->input || !ctl) return oom(c);
  for (int i = 0; i < op->ninputs; i++) {
    tfs_output src = op->inputs[i];
    if (!src.oper) {
      tfs_status_setf(c->st, TFS_INVALID_ARGUMENT,
                      "Graph to be converted to function appears to be "
                      "malformed. Node %s is missing input edge %d",
                      op->name, i);
      return -1;
    }
    char *key = fmt(c, "%s:%d", src.oper->name, src.index);
    if (!key) return oom(c);
    const char *t = tfs_map_get_str(&c->renaming, key);
    if (!t || src.oper->graph != c->g) {
      tfs_status_setf(c->st, TFS_INVALID_ARGUMENT,
                      "Input %d, '%s', of node '%s' in function '%s' is not "
                      "available. You might need to include it in inputs or "
                      "include its source node in the body",
                      i, key, op->name, c->fn);
      return -1;
    }
    nd->input[nd->n_input++] = (char *)t;
  }
  /* control inputs sorted by name, as TensorFlow writes them */
  if (op->ncontrol)
    memcpy(ctl, op->control_inputs, sizeof(void *) * (size_t)op->ncontrol);
  qsort(ctl, (size_t)op->ncontrol, sizeof(void *), cmp_ops_by_name);
  for (int k = 0; k < op->ncontrol; k++) {
    const char *src = ctl[k]->graph == c->g ? lookup_node(c, ctl[k]->name)
                                            : NULL;
    if (!src) {
      int pos = 0;
      while (op->control_inputs[pos] != ctl[k]) pos++;
      tfs_status_setf(c->st, TFS_INVALID_ARGUMENT,
                      "The source of control edge [id=%d %s:-1 -> %s:-1] is "
                      "not in the body. Encountered while creating function "
                      "'%s'",
                      control_edge_id(c->g, op, pos), ctl[k]->name, op->name,
                      c->fn);
      return -1;
    }
    char *in = tfs_pb_arena_alloc(&c->a, strlen(src) + 2);
    if (!in) return oom(c);
    in[0] = '^';
    memcpy(in + 1, src, strlen(src) + 1);
    nd->input[nd->n_input++] = in;
  }
  return 0;
}

/* Signature attrs for attr placeholders of a body node (the kind from
 * the node's op definition). */
static int placeholder_attrs(g2f *c, const tfs_operation *op) {
  for (int i = 0; i < op->attrs.n; i++) {
    const tfs_attr_value *v = &op->attrs.e[i].value;
    if (v->type != TFS_ATTR_PLACEHOLDER || !v->u.placeholder) continue;
    const char *fa = v->u.placeholder;
    int seen = 0;
    for (size_t k = 0; k < c->sig.n_attr && !seen; k++)
      seen = strcmp(c->sig.attr[k]->name, fa) == 0;
    if (seen) continue;
    const tfs_attr_def *ad = tfs_op_def_attr(op->def, op->attrs.e[i].name);
    if (!ad) {
      tfs_status_setf(c->st, TFS_UNIMPLEMENTED,
                      "Placeholder value is not supported for attributes "
                      "not in OpDef. Attribute: %s, OpDef: %s",
                      op->attrs.e[i].name, op->def->summary);
      return -1;
    }
    Tensorflow__OpDef__AttrDef *a = tfs_pb_arena_alloc(&c->a, sizeof(*a));
    Tensorflow__OpDef__AttrDef **arr = tfs_pb_arena_array(
        &c->a, c->sig.n_attr + 1, sizeof(void *));
    if (!a || !arr) return oom(c);
    tensorflow__op_def__attr_def__init(a);
    a->name = (char *)fa;
    a->type = (char *)tfs_attr_def__type_string(ad);
    if (c->sig.n_attr)
      memcpy(arr, c->sig.attr, sizeof(void *) * c->sig.n_attr);
    arr[c->sig.n_attr++] = a;
    c->sig.attr = arr;
  }
  return 0;
}

static int fill_body(g2f *c, const tfs_operation **body, int n) {
  c->fd.node_def = tfs_pb_arena_array(&c->a, (size_t)n + 1, sizeof(void *));
  if (!c->fd.node_def) return oom(c);
  for (int i = 0; i < n; i++) {
    const tfs_operation *op = body[i];
    Tensorflow__NodeDef *nd = tfs_pb_arena_alloc(&c->a, sizeof(*nd));
    Tensorflow__NodeDef__AttrEntry **attrs = tfs_pb_arena_array(
        &c->a, (size_t)op->attrs.n + 1, sizeof(void *));
    if (!nd || !attrs) return oom(c);
    tensorflow__node_def__init(nd);
    nd->name = (char *)lookup_node(c, op->name);
    nd->op = op->def->name;
    nd->device = op->device;
    nd->attr = attrs;
    for (int k = 0; k < op->attrs.n; k++) {
      Tensorflow__NodeDef__AttrEntry *e = tfs_pb_arena_alloc(&c->a,
                                                            sizeof(*e));
      if (!e) return oom(c);
      tensorflow__node_def__attr_entry__init(e);
      e->key = op->attrs.e[k].name;
      e->value = tfs_attr_value__to_proto(&op->attrs.e[k].value, &c->a,
                                          c->st);
      if (!e->value) return -1;
      attrs[nd->n_attr++] = e;
    }
    if (node_inputs(c, op, nd) || placeholder_attrs(c, op)) return -1;
    /* a function is stateful if any of its nodes is */
    if (op->def->flags & TFS_OP_STATEFUL) c->sig.is_stateful = 1;
    c->fd.node_def[c->fd.n_node_def++] = nd;
  }
  return 0;
}

static int add_rets(g2f *c, int n, const TF_Output *outputs) {
  c->fd.ret = tfs_pb_arena_array(&c->a, (size_t)n + 1, sizeof(void *));
  if (!c->fd.ret) return oom(c);
  for (int i = 0; i < n; i++) {
    char *key = fmt(c, "%s:%d", outputs[i].oper->name, outputs[i].index);
    if (!key) return oom(c);
    const char *t = tfs_map_get_str(&c->renaming, key);
    if (!t) {
      tfs_status_setf(c->st, TFS_INVALID_ARGUMENT,
                      "TF_Output %s is neither in the function body nor "
                      "among function inputs. Encountered while creating "
                      "function '%s'",
                      key, c->fn);
      return -1;
    }
    Tensorflow__FunctionDef__RetEntry *e = tfs_pb_arena_alloc(&c->a,
                                                              sizeof(*e));
    if (!e) return oom(c);
    tensorflow__function_def__ret_entry__init(e);
    e->key = c->sig.output_arg[i]->name;
    e->value = (char *)t;
    c->fd.ret[c->fd.n_ret++] = e;
  }
  return 0;
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static int add_control_outputs(g2f *c, int n, const TF_Operation *const *ops,
                               const char *const *names) {
  c->fd.control_ret = tfs_pb_arena_array(&c->a, (size_t)n + 1,
                                         sizeof(void *));
  c->sig.control_output = tfs_pb_arena_array(&c->a, (size_t)n + 1,
                                             sizeof(char *));
  if (!c->fd.control_ret || !c->sig.control_output) return oom(c);
  for (int i = 0; i < n; i++) {
    if (!ops[i]) {
      tfs_status_set(c->st, TFS_INVALID_ARGUMENT, "Node is null");
      return -1;
    }
    const char *name = names ? names[i] : ops[i]->name;
    if (!name || !*name) {
      tfs_status_set(c->st, TFS_INVALID_ARGUMENT,
                     "Control output name must be not empty");
      return -1;
    }
    for (size_t k = 0; k < c->sig.n_control_output; k++)
      if (strcmp(c->sig.control_output[k], name) == 0) {
        tfs_status_setf(c->st, TFS_INVALID_ARGUMENT,
                        "Repeated control output name: %s", name);
        return -1;
      }
    const char *node = ops[i]->graph == c->g
                           ? lookup_node(c, ops[i]->name)
                           : NULL;
    if (!node) {
      tfs_status_set(c->st, TFS_INVALID_ARGUMENT,
                     "Control output node name must be not empty");
      return -1;
    }
    Tensorflow__FunctionDef__ControlRetEntry *e =
        tfs_pb_arena_alloc(&c->a, sizeof(*e));
    char *copy = tfs_pb_arena_strdup(&c->a, name);
    if (!e || !copy) return oom(c);
    tensorflow__function_def__control_ret_entry__init(e);
    e->key = copy;
    e->value = (char *)node;
    c->fd.control_ret[c->fd.n_control_ret++] = e;
    c->sig.control_output[c->sig.n_control_output++] = copy;
  }
  /* TensorFlow lists them sorted (a std::set) */
  qsort(c->sig.control_output, c->sig.n_control_output, sizeof(char *),
        cmp_str);
  return 0;
}

/* ---- the name ------------------------------------------------------------ */

/* fn_name + "_" + an 11-character tag of the FunctionDef's contents
 * (web-safe base64 of a 64-bit hash, '-' and '_' made 'a' and 'A' as
 * TensorFlow makes them).  tfsess's hash is its own, so the tag differs
 * from the one TensorFlow would append. */
static char *hashed_name(g2f *c, const char *fn_name) {
  static const char kB64[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789aA";
  c->sig.name = "";
  size_t len = protobuf_c_message_get_packed_size(&c->fd.base);
  uint8_t *bytes = tfs_malloc(len ? len : 1);
  if (!bytes) return oom(c), NULL;
  protobuf_c_message_pack(&c->fd.base, bytes);
  uint64_t h = tfs_hash_bytes(bytes, len, 0x7466736573735f66ull);
  tfs_free(bytes);
  uint8_t b[9] = {0};
  for (int i = 0; i < 8; i++) b[i] = (uint8_t)(h >> (8 * i));
  char tag[12];
  for (int i = 0, o = 0; o < 11; i += 3) {
    uint32_t v = (uint32_t)b[i] << 16 | (uint32_t)b[i + 1] << 8 | b[i + 2];
    for (int k = 3; k >= 0 && o < 11; k--) tag[o++] = kB64[(v >> (6 * k)) & 63];
  }
  tag[11] = 0;
  size_t n = strlen(fn_name) + sizeof tag + 2;
  char *r = tfs_pb_arena_alloc(&c->a, n);
  if (r) snprintf(r, n, "%s_%s", fn_name, tag);
  return r;
}

/* ---- entry points -------------------------------------------------------- */

static void g2f_clear(g2f *c) {
  for (int i = 0; i < c->nkeep; i++) tfs_attr_value_clear(&c->keep[i]);
  tfs_free(c->keep);
  tfs_map_free(&c->used);
  tfs_map_free(&c->node_names);
  tfs_map_free(&c->renaming);
  tfs_pb_arena_free(&c->a);
}

/* Everything GraphToFunctionDef does, into c->fd.  Caller holds the
 * graph's mu. */
static int build(g2f *c, unsigned char append_hash, int num_opers,
                 const TF_Operation *const *opers, int ninputs,
                 const TF_Output *inputs, int noutputs,
                 const TF_Output *outputs, const char *const *output_names,
                 int ncontrol, const TF_Operation *const *control_outputs,
                 const char *const *control_names, const char *description) {
  if (check_args(c, ninputs, inputs, noutputs, outputs)) return -1;
  int nbody = 0;
  const tfs_operation **body =
      body_nodes(c, num_opers, opers, ninputs, inputs, &nbody);
  if (!body) return -1;
  if (description) c->sig.description = (char *)description;
  if (add_outputs(c, noutputs, outputs, output_names) ||
      add_inputs(c, ninputs, inputs) || name_body(c, body, nbody) ||
      fill_body(c, body, nbody) || add_rets(c, noutputs, outputs))
    return -1;
  if (append_hash) {
    char *name = hashed_name(c, c->fn);
    if (!name) return -1;
    c->sig.name = name;
  } else {
    c->sig.name = (char *)c->fn;
  }
  return add_control_outputs(c, ncontrol, control_outputs, control_names);
}

TF_Function *TF_GraphToFunctionWithControlOutputs(
    const TF_Graph *fn_body, const char *fn_name,
    unsigned char append_hash_to_fn_name, int num_opers,
    const TF_Operation *const *opers, int ninputs, const TF_Output *inputs,
    int noutputs, const TF_Output *outputs, const char *const *output_names,
    int ncontrol_outputs, const TF_Operation *const *control_outputs,
    const char *const *control_output_names, const TF_FunctionOptions *opts,
    const char *description, TF_Status *status) {
  (void)opts; /* TF_FunctionOptions has no fields */
  tfs_status *st = ST(status);
  TFS_CHECK_ARG(fn_body != NULL && fn_name != NULL, st, NULL);
  TFS_CHECK_ARG((inputs || ninputs <= 0) && (outputs || noutputs <= 0) &&
                    (opers || num_opers <= 0) &&
                    (control_outputs || ncontrol_outputs <= 0),
                st, NULL);
  if (ninputs < 0) ninputs = 0;
  if (noutputs < 0) noutputs = 0;
  if (ncontrol_outputs < 0) ncontrol_outputs = 0;
  tfs_graph *g = (tfs_graph *)fn_body;
  g2f c;
  memset(&c, 0, sizeof c);
  c.g = g;
  c.fn = fn_name;
  c.st = st;
  tensorflow__function_def__init(&c.fd);
  tensorflow__op_def__init(&c.sig);
  c.fd.signature = &c.sig;
  TF_Function *f = NULL;
  pthread_mutex_lock(&g->mu);
  int rc = build(&c, append_hash_to_fn_name, num_opers, opers, ninputs,
                 inputs, noutputs, outputs, output_names, ncontrol_outputs,
                 control_outputs, control_output_names, description);
  pthread_mutex_unlock(&g->mu);
  tfs_buffer buf = {NULL, 0, NULL};
  if (rc == 0 && tfs_pb__pack(&c.fd.base, &buf, st) == 0)
    f = tfs_capi__function_new(buf.data, buf.length, st);
  if (buf.data_deallocator) buf.data_deallocator((void *)buf.data, buf.length);
  g2f_clear(&c);
  return f;
}

TF_Function *TF_GraphToFunction(
    const TF_Graph *fn_body, const char *fn_name,
    unsigned char append_hash_to_fn_name, int num_opers,
    const TF_Operation *const *opers, int ninputs, const TF_Output *inputs,
    int noutputs, const TF_Output *outputs, const char *const *output_names,
    const TF_FunctionOptions *opts, const char *description,
    TF_Status *status) {
  return TF_GraphToFunctionWithControlOutputs(
      fn_body, fn_name, append_hash_to_fn_name, num_opers, opers, ninputs,
      inputs, noutputs, outputs, output_names, 0, NULL, NULL, opts,
      description, status);
}
