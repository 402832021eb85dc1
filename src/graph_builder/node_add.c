/*
 * graph_builder/node_add.c - adding a validated node: attrs checked against
 * the op definition (TensorFlow's ValidateNodeDef rules and messages),
 * inputs checked for count and dtype, output shapes inferred.
 */
#include <ctype.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/log.h"
#include "core/status.h"
#include "graph_builder/function_lib.h"
#include "graph_builder/graph_internal.h"
#include "ops/shape_ctx.h"

void tfs_arg_layout_clear(tfs_arg_layout *l) {
  tfs_free(l->in_start);
  tfs_free(l->in_len);
  tfs_free(l->out_start);
  tfs_free(l->out_len);
  tfs_free(l->in_types);
  tfs_free(l->out_types);
  memset(l, 0, sizeof(*l));
}

int tfs_graph__add_defaults(const tfs_op_def *def, tfs_attrs *a) {
  for (int i = 0; i < def->nattrs; i++) {
    const tfs_attr_def *ad = &def->attrs[i];
    if (!ad->has_default || tfs_attrs_find(a, ad->name)) continue;
    tfs_attr_value v;
    if (tfs_attr_value_copy(&v, &ad->def) || tfs_attrs_set(a, ad->name, &v))
      return -1;
  }
  return 0;
}

/* Types of one argument (count n) into out[0..n). */
static int arg_types(const tfs_op_def *def, const tfs_arg_def *arg,
                     const tfs_attrs *attrs, const char *node,
                     tfs_dtype **types, int *n, tfs_status *st) {
  int count = 1;
  const tfs_dtype *list = NULL;
  tfs_dtype single = arg->type;
  if (arg->number_attr) {
    int64_t v;
    if (tfs_attrs_get_int(attrs, arg->number_attr, &v) || v < 0 ||
        v > 1000000) {
      tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                      "NodeDef missing attr '%s' from %s; NodeDef: "
                      TFS_NODE_FMT, arg->number_attr, def->summary, node);
      return -1;
    }
    count = (int)v;
  } else if (arg->type_list_attr) {
    list = tfs_attrs_get_type_list(attrs, arg->type_list_attr, &count);
    if (!list) {
      tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                      "NodeDef missing attr '%s' from %s; NodeDef: "
                      TFS_NODE_FMT, arg->type_list_attr, def->summary, node);
      return -1;
    }
  }
  if (!list && arg->type_attr &&
      tfs_attrs_get_type(attrs, arg->type_attr, &single)) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "NodeDef missing attr '%s' from %s; NodeDef: "
                    TFS_NODE_FMT, arg->type_attr, def->summary, node);
    return -1;
  }
  tfs_dtype *t = tfs_malloc(sizeof(tfs_dtype) * (size_t)(count ? count : 1));
  if (!t) {
    TFS_OOM(st);
    return -1;
  }
  for (int i = 0; i < count; i++) {
    tfs_dtype d = list ? list[i] : single;
    t[i] = arg->is_ref ? (tfs_dtype)(d + TFS_DTYPE_REF_OFFSET) : d;
  }
  *types = t;
  *n = count;
  return 0;
}

static int layout_side(const tfs_op_def *def, const tfs_arg_def *args,
                       int nargs, const tfs_attrs *attrs, const char *node,
                       int **start, int **len, tfs_dtype **types, int *total,
                       tfs_status *st) {
  *start = tfs_calloc((size_t)(nargs ? nargs : 1), sizeof(int));
  *len = tfs_calloc((size_t)(nargs ? nargs : 1), sizeof(int));
  size_t cap = 0;
  *types = NULL;
  *total = 0;
  if (!*start || !*len) {
    TFS_OOM(st);
    return -1;
  }
  for (int a = 0; a < nargs; a++) {
    tfs_dtype *t;
    int n;
    if (arg_types(def, &args[a], attrs, node, &t, &n, st)) return -1;
    if (tfs_grow((void **)types, &cap, (size_t)(*total + n) + 1,
                 sizeof(tfs_dtype))) {
      tfs_free(t);
      TFS_OOM(st);
      return -1;
    }
    (*start)[a] = *total;
    (*len)[a] = n;
    memcpy(*types + *total, t, sizeof(tfs_dtype) * (size_t)n);
    *total += n;
    tfs_free(t);
  }
  if (!*types) *types = tfs_calloc(1, sizeof(tfs_dtype));
  if (!*types) {
    TFS_OOM(st);
    return -1;
  }
  return 0;
}

int tfs_graph__arg_layout(const tfs_op_def *def, const tfs_attrs *attrs,
                          const char *node_name, tfs_arg_layout *out,
                          tfs_status *st) {
  memset(out, 0, sizeof(*out));
  if (layout_side(def, def->inputs, def->ninputs, attrs, node_name,
                  &out->in_start, &out->in_len, &out->in_types,
                  &out->ninputs, st) ||
      layout_side(def, def->outputs, def->noutputs, attrs, node_name,
                  &out->out_start, &out->out_len, &out->out_types,
                  &out->noutputs, st)) {
    tfs_arg_layout_clear(out);
    return -1;
  }
  return 0;
}

/* ---- attr validation ---------------------------------------------------- */

static void type_list_string(tfs_strbuf *b, const tfs_attr_value *allowed) {
  for (int i = 0; i < allowed->u.list.n; i++) {
    if (i) tfs_strbuf_puts(b, ", ");
    if (allowed->type == TFS_ATTR_TYPE)
      tfs_strbuf_puts(b, tfs_dtype_name(((tfs_dtype *)allowed->u.list.v)[i]));
    else
      tfs_strbuf_printf(b, "\"%s\"",
                        ((tfs_bytes *)allowed->u.list.v)[i].ptr);
  }
}

static int in_allowed(const tfs_attr_def *ad, const tfs_attr_value *v,
                      int i) {
  const tfs_attr_value *al = &ad->allowed;
  for (int k = 0; k < al->u.list.n; k++) {
    if (ad->type == TFS_ATTR_TYPE) {
      tfs_dtype d = v->is_list ? ((tfs_dtype *)v->u.list.v)[i] : v->u.type;
      if (((tfs_dtype *)al->u.list.v)[k] == d) return 1;
    } else {
      const tfs_bytes *s =
          v->is_list ? &((tfs_bytes *)v->u.list.v)[i] : &v->u.s;
      const tfs_bytes *a = &((tfs_bytes *)al->u.list.v)[k];
      if (a->len == s->len && memcmp(a->ptr, s->ptr, s->len) == 0) return 1;
    }
  }
  return 0;
}

static void attr_error(tfs_status *st, const tfs_op_def *def,
                       const char *node, const char *msg) {
  tfs_status_setf(st, TFS_INVALID_ARGUMENT, "%s\n\t; NodeDef: " TFS_NODE_FMT
                  "; %s", msg, node, def->summary);
}

static int validate_attr(const tfs_op_def *def, const tfs_attr_def *ad,
                         const tfs_attr_value *v, const char *node,
                         tfs_status *st) {
  tfs_strbuf b = TFS_STRBUF_INIT;
  int bad = 0;
  if (v->type != ad->type || v->is_list != ad->is_list) {
    tfs_attr_value want;
    memset(&want, 0, sizeof want);
    want.type = ad->type;
    want.is_list = ad->is_list;
    tfs_strbuf_printf(&b,
                      "AttrValue had value with type '%s' when '%s' "
                      "expected\n\t for attr '%s'",
                      tfs_attr_type_string(v), tfs_attr_type_string(&want),
                      ad->name);
    bad = 1;
  } else if (ad->allowed.u.list.n) {
    int n = v->is_list ? v->u.list.n : 1;
    for (int i = 0; i < n && !bad; i++) {
      if (in_allowed(ad, v, i)) continue;
      bad = 1;
      if (ad->type == TFS_ATTR_TYPE) {
        tfs_dtype d = v->is_list ? ((tfs_dtype *)v->u.list.v)[i] : v->u.type;
        tfs_strbuf_printf(&b, "Value for attr '%s' of %s is not in the list "
                          "of allowed values: ", ad->name,
                          tfs_dtype_name(d));
      } else {
        const tfs_bytes *s =
            v->is_list ? &((tfs_bytes *)v->u.list.v)[i] : &v->u.s;
        tfs_strbuf_printf(&b, "Value for attr '%s' of \"%s\" is not in the "
                          "list of allowed values: ", ad->name, s->ptr);
      }
      type_list_string(&b, &ad->allowed);
    }
  }
  if (!bad && ad->has_min) {
    if (ad->is_list && v->u.list.n < ad->min) {
      tfs_strbuf_printf(&b, "Length for attr '%s' of %d must be at least "
                        "minimum %lld", ad->name, v->u.list.n,
                        (long long)ad->min);
      bad = 1;
    } else if (!ad->is_list && ad->type == TFS_ATTR_INT &&
               v->u.i < ad->min) {
      tfs_strbuf_printf(&b, "Value for attr '%s' of %lld must be at least "
                        "minimum %lld", ad->name, (long long)v->u.i,
                        (long long)ad->min);
      bad = 1;
    }
  }
  if (!bad && ad->type == TFS_ATTR_TYPE) {
    int n = v->is_list ? v->u.list.n : 1;
    for (int i = 0; i < n; i++) {
      tfs_dtype d = v->is_list ? ((tfs_dtype *)v->u.list.v)[i] : v->u.type;
      if (!tfs_dtype_is_valid(d) || tfs_dtype_is_ref(d)) {
        tfs_strbuf_printf(&b, "Value for attr '%s' of %d is not a valid "
                          "data type", ad->name, (int)d);
        bad = 1;
        break;
      }
    }
  }
  if (bad) attr_error(st, def, node, tfs_strbuf_str(&b));
  tfs_strbuf_free(&b);
  return bad ? -1 : 0;
}

static int validate_attrs(const tfs_op_def *def, const tfs_attrs *attrs,
                          const char *node, tfs_status *st) {
  for (int i = 0; i < def->nattrs; i++) {
    const tfs_attr_def *ad = &def->attrs[i];
    const tfs_attr_value *v = tfs_attrs_find(attrs, ad->name);
    if (!v) {
      tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                      "NodeDef missing attr '%s' from %s; NodeDef: "
                      TFS_NODE_FMT, ad->name, def->summary, node);
      return -1;
    }
    if (validate_attr(def, ad, v, node, st)) return -1;
  }
  /* An attr the op does not declare is kept and ignored, as TensorFlow
   * (2.18 on) does: a GraphDef from a newer producer may carry one.  Like
   * TensorFlow, say so at most once every 5 seconds. */
  static _Atomic int64_t last_warning_ns = INT64_MIN / 2;
  for (int i = 0; i < attrs->n; i++) {
    const char *nm = attrs->e[i].name;
    if (nm[0] == '_' || tfs_op_def_attr(def, nm)) continue;
    int64_t now = tfs_now_ns(), last = atomic_load(&last_warning_ns);
    if (now - last < 5000000000LL ||
        !atomic_compare_exchange_strong(&last_warning_ns, &last, now))
      continue;
    tfs_log(TFS_LOG_WARN,
            "NodeDef mentions attribute %s which is not in the op "
            "definition: %s This may be expected if your graph generating "
            "binary is newer than this binary. Unknown attributes will be "
            "ignored. NodeDef: " TFS_NODE_FMT, nm, def->summary, node);
  }
  return 0;
}

static int valid_node_name(const char *n) {
  if (!n || !*n) return 0;
  if (!(isalnum((unsigned char)n[0]) || n[0] == '.')) return 0;
  for (const char *p = n + 1; *p; p++)
    if (!(isalnum((unsigned char)*p) || strchr("_>./-", *p))) return 0;
  return 1;
}

/* ---- shape inference --------------------------------------------------- */

static int graph_input_as_shape(tfs_shape_ctx *c, int i, tfs_shape *out);
static int graph_resource_shape(tfs_shape_ctx *c, int i, tfs_shape *out);

static int infer_shapes(tfs_operation *op, tfs_status *st) {
  int n = op->ninputs;
  tfs_shape *in_shapes = tfs_malloc(sizeof(tfs_shape) * (size_t)(n ? n : 1));
  tfs_dtype *in_dtypes = tfs_malloc(sizeof(tfs_dtype) * (size_t)(n ? n : 1));
  const tfs_tensor **consts =
      tfs_calloc((size_t)(n ? n : 1), sizeof(tfs_tensor *));
  int rc = -1;
  if (!in_shapes || !in_dtypes || !consts) {
    TFS_OOM(st);
    goto done;
  }
  for (int i = 0; i < n; i++) {
    tfs_output src = op->inputs[i];
    if (!src.oper) { /* a back edge set later: unknown shape */
      in_shapes[i].rank = -1;
      in_dtypes[i] = op->in_types[i];
      continue;
    }
    in_shapes[i] = src.oper->out_shapes[src.index];
    in_dtypes[i] = src.oper->out_types[src.index];
    consts[i] = tfs_graph__const_value(src);
  }
  for (int i = 0; i < op->noutputs; i++) op->out_shapes[i].rank = -1;
  if (!op->def->shape_fn) {
    rc = 0;
    goto done;
  }
  tfs_shape_ctx c = {
      .op = op->def,
      .node_name = op->name,
      .attrs = &op->attrs,
      .ninputs = n,
      .in_dtypes = in_dtypes,
      .in_shapes = in_shapes,
      .in_consts = consts,
      .input_as_shape = graph_input_as_shape,
      .resource_shape = graph_resource_shape,
      .user = op,
      .noutputs = op->noutputs,
      .out_dtypes = op->out_types,
      .out_shapes = op->out_shapes,
      .st = st,
  };
  if (op->def->shape_fn(&c) == 0) {
    rc = 0;
    goto done;
  }
  /* TensorFlow's shape refiner context */
  char *summary = tfs_graph__summarize_node(op);
  tfs_strbuf b = TFS_STRBUF_INIT;
  for (int i = 0; i < n; i++) {
    char buf[TFS_SHAPE_STRLEN];
    if (i) tfs_strbuf_puts(&b, ", ");
    tfs_strbuf_puts(&b, in_shapes[i].rank < 0
                            ? "?"
                            : tfs_shape_str(&in_shapes[i], buf, sizeof buf));
  }
  tfs_status_appendf(st, " for '%s' with input shapes: %s.",
                     summary ? summary : op->name, tfs_strbuf_str(&b));
  tfs_strbuf_free(&b);
  free(summary);
done:
  tfs_free(in_shapes);
  tfs_free(in_dtypes);
  tfs_free(consts);
  return rc;
}

static int graph_input_as_shape(tfs_shape_ctx *c, int i, tfs_shape *out) {
  tfs_operation *op = c->user;
  tfs_output src = op->inputs[i];
  if (!src.oper) return -1;
  const char *t = src.oper->def->name;
  if (strcmp(t, "Shape") == 0 && src.oper->ninputs == 1) {
    tfs_output in = src.oper->inputs[0];
    *out = in.oper->out_shapes[in.index];
    return out->rank < 0 ? -1 : 0;
  }
  if (strcmp(t, "Pack") == 0) {
    int n = src.oper->ninputs;
    if (n > TFS_MAX_RANK) return -1;
    out->rank = n;
    for (int k = 0; k < n; k++) {
      const tfs_tensor *v = tfs_graph__const_value(src.oper->inputs[k]);
      out->dims[k] = -1;
      if (v && v->nelems == 1 &&
          (v->dtype == TFS_INT32 || v->dtype == TFS_INT64)) {
        int64_t d = tfs_tensor__get_as_int64(v, 0);
        out->dims[k] = d >= 0 ? d : -1;
      }
    }
    return 0;
  }
  return -1;
}

static int graph_resource_shape(tfs_shape_ctx *c, int i, tfs_shape *out) {
  tfs_operation *op = c->user;
  tfs_output src = op->inputs[i];
  if (!src.oper || strcmp(src.oper->def->name, "VarHandleOp") != 0)
    return -1;
  const tfs_shape *s = tfs_attrs_get_shape(&src.oper->attrs, "shape");
  if (!s) return -1;
  *out = *s;
  return 0;
}

/* ---- insertion ---------------------------------------------------------- */

static int add_consumer(tfs_operation *p, int idx, tfs_operation *c,
                        int cidx) {
  tfs_consumer_list *cl = &p->consumers[idx];
  size_t cap = (size_t)cl->cap;
  if (tfs_grow((void **)&cl->v, &cap, (size_t)cl->n + 1, sizeof(tfs_input)))
    return -1;
  cl->cap = (int)cap;
  cl->v[cl->n].oper = c;
  cl->v[cl->n].index = cidx;
  cl->n++;
  return 0;
}

static int add_control_out(tfs_operation *p, tfs_operation *c) {
  size_t cap = (size_t)p->control_out_cap;
  if (tfs_grow((void **)&p->control_outputs, &cap,
               (size_t)p->ncontrol_out + 1, sizeof(tfs_operation *)))
    return -1;
  p->control_out_cap = (int)cap;
  p->control_outputs[p->ncontrol_out++] = c;
  return 0;
}

static int check_inputs(const tfs_node_spec *spec, const tfs_op_def *def,
                        const tfs_arg_layout *l, tfs_status *st) {
  if (spec->ninputs != l->ninputs) {
    tfs_strbuf b = TFS_STRBUF_INIT;
    for (int i = 0; i < l->ninputs; i++) {
      if (i) tfs_strbuf_puts(&b, ", ");
      tfs_strbuf_puts(&b, tfs_dtype_name(l->in_types[i]));
    }
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "NodeDef expected inputs '%s' do not match %d inputs "
                    "specified; %s; NodeDef: " TFS_NODE_FMT,
                    tfs_strbuf_str(&b), spec->ninputs, def->summary,
                    spec->name);
    tfs_strbuf_free(&b);
    return -1;
  }
  for (int i = 0; i < spec->ninputs; i++) {
    tfs_output src = spec->inputs[i];
    if (!src.oper) continue; /* a back edge, checked when it is set */
    tfs_dtype actual = src.oper->out_types[src.index];
    tfs_dtype expected = l->in_types[i];
    if (expected == actual || expected == tfs_dtype_base(actual)) continue;
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "Input %d of node %s was passed %s from %s:%d "
                    "incompatible with expected %s.",
                    i, spec->name, tfs_dtype_name(actual), src.oper->name,
                    src.index, tfs_dtype_name(expected));
    return -1;
  }
  return 0;
}

tfs_operation *tfs_graph__add_node(tfs_graph *g, tfs_node_spec *spec,
                                   tfs_status *st) {
  tfs_arg_layout l = {0};
  tfs_operation *op = NULL;
  /* a registered op, or a library function called by name */
  const tfs_op_def *def = tfs_graph__lookup_op(g, spec->op_type, st);
  if (!def) goto fail;
  if (!valid_node_name(spec->name)) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "Node '%s': Node name contains invalid characters",
                    spec->name ? spec->name : "");
    goto fail;
  }
  if (tfs_map_get_str(&g->by_name, spec->name)) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "Duplicate node name in graph: '%s'", spec->name);
    goto fail;
  }
  if (tfs_graph__add_defaults(def, spec->attrs)) goto oom;
  if (validate_attrs(def, spec->attrs, spec->name, st)) goto fail;
  if (tfs_graph__arg_layout(def, spec->attrs, spec->name, &l, st))
    goto fail;
  if (check_inputs(spec, def, &l, st)) goto fail;

  op = tfs_calloc(1, sizeof(*op));
  if (!op) goto oom;
  op->graph = g;
  op->def = def;
  op->name = tfs_strdup(spec->name);
  op->device = tfs_strdup(spec->device ? spec->device : "");
  op->attrs = *spec->attrs;
  tfs_attrs_init(spec->attrs);
  op->ninputs = l.ninputs;
  op->noutputs = l.noutputs;
  op->inputs = tfs_malloc(sizeof(tfs_output) * (size_t)(l.ninputs + 1));
  op->in_types = l.in_types;
  op->out_types = l.out_types;
  op->in_arg_start = l.in_start;
  op->in_arg_len = l.in_len;
  op->out_arg_start = l.out_start;
  op->out_arg_len = l.out_len;
  memset(&l, 0, sizeof l);
  op->out_shapes = tfs_calloc((size_t)(op->noutputs + 1), sizeof(tfs_shape));
  op->consumers =
      tfs_calloc((size_t)(op->noutputs + 1), sizeof(tfs_consumer_list));
  op->control_inputs =
      tfs_malloc(sizeof(tfs_operation *) * (size_t)(spec->ncontrol + 1));
  if (!op->name || !op->device || !op->inputs || !op->out_shapes ||
      !op->consumers || !op->control_inputs)
    goto oom;
  if (op->ninputs)
    memcpy(op->inputs, spec->inputs, sizeof(tfs_output) * (size_t)op->ninputs);
  for (int i = 0; i < spec->ncontrol; i++) {
    tfs_operation *c = spec->control_inputs[i];
    int dup = 0;
    for (int k = 0; k < op->ncontrol; k++) dup |= op->control_inputs[k] == c;
    if (!dup) op->control_inputs[op->ncontrol++] = c;
  }
  if (infer_shapes(op, st)) goto fail;
  if (spec->norig > 0 &&
      tfs_graph__set_orig_names(op, spec->norig, spec->orig_names))
    goto oom;

  /* Link in; on failure undo every link made so far. */
  if (tfs_grow((void **)&g->ops, &g->cap, g->nops + 1,
               sizeof(tfs_operation *)))
    goto oom;
  if (tfs_map_put_str(&g->by_name, op->name, op)) goto oom;
  op->id = (int)g->nops;
  g->ops[g->nops++] = op;
  int failed = 0;
  for (int i = 0; i < op->ninputs && !failed; i++)
    if (op->inputs[i].oper)
      failed = add_consumer(op->inputs[i].oper, op->inputs[i].index, op, i);
  for (int i = 0; i < op->ncontrol && !failed; i++)
    failed = add_control_out(op->control_inputs[i], op);
  if (failed) {
    /* truncate() removes whatever links were made */
    tfs_graph__truncate(g, g->nops - 1);
    TFS_OOM(st);
    return NULL;
  }
  tfs_status_clear(st);
  return op;

oom:
  TFS_OOM(st);
fail:
  tfs_arg_layout_clear(&l);
  tfs_attrs_clear(spec->attrs);
  if (op) {
    tfs_attrs_clear(&op->attrs);
    tfs_free(op->name);
    tfs_free(op->device);
    tfs_free(op->inputs);
    tfs_free(op->in_types);
    tfs_free(op->out_types);
    tfs_free(op->in_arg_start);
    tfs_free(op->in_arg_len);
    tfs_free(op->out_arg_start);
    tfs_free(op->out_arg_len);
    tfs_free(op->out_shapes);
    tfs_free(op->consumers);
    tfs_free(op->control_inputs);
    tfs_graph__free_orig_names(op);
    tfs_free(op);
  }
  return NULL;
}

int tfs_graph__set_orig_names(tfs_operation *op, int n,
                              const char *const *orig_names) {
  char **v = tfs_calloc((size_t)n + 1, sizeof(char *));
  if (!v) return -1;
  for (int i = 0; i < n; i++) {
    if ((v[i] = tfs_strdup(orig_names[i])) != NULL) continue;
    for (int k = 0; k < i; k++) tfs_free(v[k]);
    tfs_free(v);
    return -1;
  }
  tfs_graph__free_orig_names(op);
  op->orig_names = v;
  op->norig = n;
  return 0;
}

void tfs_graph__free_orig_names(tfs_operation *op) {
  for (int i = 0; i < op->norig; i++) tfs_free(op->orig_names[i]);
  tfs_free(op->orig_names);
  op->orig_names = NULL;
  op->norig = 0;
}

int tfs_graph__set_input(tfs_operation *op, int k, tfs_output src,
                         tfs_status *st) {
  tfs_dtype actual = src.oper->out_types[src.index];
  tfs_dtype expected = op->in_types[k];
  if (expected != actual && expected != tfs_dtype_base(actual)) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "Input %d of node %s was passed %s from %s:%d "
                    "incompatible with expected %s.",
                    k, op->name, tfs_dtype_name(actual), src.oper->name,
                    src.index, tfs_dtype_name(expected));
    return -1;
  }
  if (add_consumer(src.oper, src.index, op, k)) {
    TFS_OOM(st);
    return -1;
  }
  tfs_output old = op->inputs[k];
  if (old.oper) {
    tfs_consumer_list *cl = &old.oper->consumers[old.index];
    for (int i = 0; i < cl->n; i++) {
      if (cl->v[i].oper != op || cl->v[i].index != k) continue;
      memmove(&cl->v[i], &cl->v[i + 1],
              sizeof(tfs_input) * (size_t)(cl->n - i - 1));
      cl->n--;
      break;
    }
  }
  op->inputs[k] = src;
  tfs_status_clear(st);
  return 0;
}
