/*
 * graph_builder/op_desc.c - the operation builder.  Inputs and attrs are
 * applied in call order with TensorFlow's NodeDefBuilder rules: a type attr
 * is inferred from an input, a later conflicting value is an error, and
 * errors are collected and reported together at finish.
 */
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/status.h"
#include "graph_builder/function_lib.h"
#include "graph_builder/graph_internal.h"

struct tfs_op_desc {
  tfs_graph *g;
  char *name;
  char *op_type;
  const tfs_op_def *def;
  char *device;
  tfs_attrs attrs;
  tfs_output *inputs;
  size_t ninputs, inputs_cap;
  int args_given; /* input args consumed */
  tfs_operation **controls;
  size_t ncontrols, controls_cap;
  char **errors;
  size_t nerrors, errors_cap;
  int oom;
};

static void add_error(tfs_op_desc *d, char *msg /* owned */) {
  if (!msg) {
    d->oom = 1;
    return;
  }
  if (tfs_grow((void **)&d->errors, &d->errors_cap, d->nerrors + 1,
               sizeof(char *))) {
    tfs_free(msg);
    d->oom = 1;
    return;
  }
  d->errors[d->nerrors++] = msg;
}

tfs_op_desc *tfs_op_desc_new(tfs_graph *g, const char *op_type,
                             const char *name) {
  if (!g) return NULL;
  tfs_op_desc *d = tfs_calloc(1, sizeof(*d));
  if (!d) return NULL;
  d->g = g;
  d->op_type = tfs_strdup(op_type ? op_type : "");
  d->name = name ? tfs_strdup(name)
                 : tfs_graph_unique_name(g, op_type ? op_type : "op");
  if (!d->op_type || !d->name) d->oom = 1;
  /* a registered op, or a function of g's library called by name (an
   * unknown type is reported by finish) */
  d->def = tfs_op_lookup(d->op_type ? d->op_type : "");
  if (d->def || !d->op_type) return d;
  tfs_status *tmp = tfs_status_new();
  if (tmp) {
    pthread_mutex_lock(&g->mu);
    d->def = tfs_graph__lookup_op(g, d->op_type, tmp);
    pthread_mutex_unlock(&g->mu);
    if (!d->def && tfs_status_code(tmp) == TFS_RESOURCE_EXHAUSTED) d->oom = 1;
    tfs_status_free(tmp);
  } else {
    d->oom = 1;
  }
  return d;
}

void tfs_op_desc_free(tfs_op_desc *d) {
  if (!d) return;
  tfs_free(d->name);
  tfs_free(d->op_type);
  tfs_free(d->device);
  tfs_attrs_clear(&d->attrs);
  tfs_free(d->inputs);
  tfs_free(d->controls);
  for (size_t i = 0; i < d->nerrors; i++) tfs_free(d->errors[i]);
  tfs_free(d->errors);
  tfs_free(d);
}

/* NodeDefBuilder::Attr: first value wins; a different later value is an
 * "Inconsistent values" error.  Takes ownership of *v. */
static void set_attr(tfs_op_desc *d, const char *name, tfs_attr_value *v) {
  const tfs_attr_value *old = tfs_attrs_find(&d->attrs, name);
  if (old) {
    if (!tfs_attr_value_equal(old, v)) {
      tfs_strbuf a = TFS_STRBUF_INIT, b = TFS_STRBUF_INIT;
      tfs_attr_value_summary(&a, old);
      tfs_attr_value_summary(&b, v);
      add_error(d, tfs_asprintf("Inconsistent values for attr '%s' %s vs. %s",
                                name, tfs_strbuf_str(&a),
                                tfs_strbuf_str(&b)));
      tfs_strbuf_free(&a);
      tfs_strbuf_free(&b);
    }
    tfs_attr_value_clear(v);
    return;
  }
  if (tfs_attrs_set(&d->attrs, name, v)) d->oom = 1;
}

void tfs_op_desc__copy_attr(tfs_op_desc *d, const tfs_operation *from,
                            const char *name) {
  const tfs_attr_value *v = from ? tfs_attrs_find(&from->attrs, name) : NULL;
  if (!d || !v) return;
  tfs_attr_value copy;
  if (tfs_attr_value_copy(&copy, v)) {
    d->oom = 1;
    return;
  }
  set_attr(d, name, &copy);
}

static void set_attr_type(tfs_op_desc *d, const char *name, tfs_dtype t) {
  tfs_attr_value v;
  tfs_attr_type_val(&v, t);
  set_attr(d, name, &v);
}

static int push_input(tfs_op_desc *d, tfs_output o) {
  if (tfs_grow((void **)&d->inputs, &d->inputs_cap, d->ninputs + 1,
               sizeof(tfs_output))) {
    d->oom = 1;
    return -1;
  }
  d->inputs[d->ninputs++] = o;
  return 0;
}

static const tfs_arg_def *next_arg(tfs_op_desc *d) {
  if (!d->def) return NULL;
  if (d->args_given >= d->def->ninputs) {
    add_error(d, tfs_asprintf("More Input() calls than the %d input_args",
                              d->def->ninputs));
    return NULL;
  }
  return &d->def->inputs[d->args_given++];
}

static int valid_output(tfs_op_desc *d, tfs_output o) {
  if (!o.oper) {
    add_error(d, tfs_strdup("Empty input node name"));
    return 0;
  }
  if (o.index < 0 || o.index >= o.oper->noutputs) {
    add_error(d, tfs_asprintf("Node '%s': Connecting to invalid output %d "
                              "of source node %s which has %d outputs.",
                              d->name, o.index, o.oper->name,
                              o.oper->noutputs));
    return 0;
  }
  return 1;
}

static void verify_type(tfs_op_desc *d, const tfs_arg_def *arg,
                        tfs_dtype expected, tfs_dtype dt) {
  if (expected == dt || expected == tfs_dtype_base(dt)) return;
  add_error(d, tfs_asprintf("Input '%s' passed %s expected %s", arg->name,
                            tfs_dtype_name(dt), tfs_dtype_name(expected)));
}

static void verify_ref(tfs_op_desc *d, const tfs_arg_def *arg,
                       tfs_dtype dt) {
  if (arg->is_ref && !tfs_dtype_is_ref(dt))
    add_error(d, tfs_asprintf("Input '%s' passed %s expected ref type",
                              arg->name, tfs_dtype_name(dt)));
}

static tfs_dtype with_ref(const tfs_arg_def *arg, tfs_dtype t) {
  return arg->is_ref ? (tfs_dtype)(tfs_dtype_base(t) + TFS_DTYPE_REF_OFFSET)
                     : t;
}

void tfs_op_desc_add_input(tfs_op_desc *d, tfs_output in) {
  if (!d) return;
  const tfs_arg_def *arg = next_arg(d);
  if (!valid_output(d, in) || push_input(d, in) || !arg) return;
  tfs_dtype dt = in.oper->out_types[in.index];
  if (arg->number_attr || arg->type_list_attr) {
    add_error(d, tfs_asprintf("Single tensor passed to '%s', expected list",
                              arg->name));
    return;
  }
  if (arg->type != TFS_INVALID) {
    verify_type(d, arg, with_ref(arg, arg->type), dt);
  } else {
    verify_ref(d, arg, dt);
    set_attr_type(d, arg->type_attr, tfs_dtype_base(dt));
  }
}

void tfs_op_desc_add_input_list(tfs_op_desc *d, const tfs_output *in,
                                int n) {
  if (!d) return;
  const tfs_arg_def *arg = next_arg(d);
  for (int i = 0; i < n; i++)
    if (!valid_output(d, in[i]) || push_input(d, in[i])) return;
  if (!arg) return;
  if (arg->number_attr) {
    tfs_attr_value v;
    tfs_attr_int(&v, n);
    set_attr(d, arg->number_attr, &v);
    if (arg->type != TFS_INVALID) {
      for (int i = 0; i < n; i++)
        verify_type(d, arg, with_ref(arg, arg->type),
                    in[i].oper->out_types[in[i].index]);
    } else if (n > 0) {
      tfs_dtype base = tfs_dtype_base(in[0].oper->out_types[in[0].index]);
      set_attr_type(d, arg->type_attr, base);
      for (int i = 0; i < n; i++)
        verify_type(d, arg, with_ref(arg, base),
                    in[i].oper->out_types[in[i].index]);
    }
  } else if (arg->type_list_attr) {
    tfs_dtype *types = tfs_malloc(sizeof(tfs_dtype) * (size_t)(n ? n : 1));
    if (!types) {
      d->oom = 1;
      return;
    }
    for (int i = 0; i < n; i++) {
      tfs_dtype dt = in[i].oper->out_types[in[i].index];
      verify_ref(d, arg, dt);
      types[i] = tfs_dtype_base(dt);
    }
    tfs_attr_value v;
    if (tfs_attr_list(&v, TFS_ATTR_TYPE, n, types))
      d->oom = 1;
    else
      set_attr(d, arg->type_list_attr, &v);
    tfs_free(types);
  } else {
    add_error(d, tfs_asprintf("List provided to input '%s' when single "
                              "Tensor expected", arg->name));
  }
}

void tfs_op_desc_add_control_input(tfs_op_desc *d, tfs_operation *op) {
  if (!d) return;
  if (!op) {
    add_error(d, tfs_strdup("Empty control input node"));
    return;
  }
  if (tfs_grow((void **)&d->controls, &d->controls_cap, d->ncontrols + 1,
               sizeof(tfs_operation *))) {
    d->oom = 1;
    return;
  }
  d->controls[d->ncontrols++] = op;
}

void tfs_op_desc_set_device(tfs_op_desc *d, const char *device) {
  if (!d) return;
  tfs_free(d->device);
  d->device = tfs_strdup(device ? device : "");
  if (!d->device) d->oom = 1;
}

void tfs_op_desc_colocate_with(tfs_op_desc *d, tfs_operation *op) {
  if (!d || !op) return;
  char *loc = tfs_asprintf("loc:@%s", op->name);
  if (!loc) {
    d->oom = 1;
    return;
  }
  const tfs_attr_value *old = tfs_attrs_find(&d->attrs, "_class");
  int n = old && old->is_list && old->type == TFS_ATTR_STRING
              ? old->u.list.n
              : 0;
  tfs_bytes *items = tfs_malloc(sizeof(tfs_bytes) * (size_t)(n + 1));
  if (!items) {
    tfs_free(loc);
    d->oom = 1;
    return;
  }
  if (n) memcpy(items, old->u.list.v, sizeof(tfs_bytes) * (size_t)n);
  items[n].ptr = loc;
  items[n].len = strlen(loc);
  tfs_attr_value v;
  if (tfs_attr_list(&v, TFS_ATTR_STRING, n + 1, items) ||
      tfs_attrs_set(&d->attrs, "_class", &v))
    d->oom = 1;
  tfs_free(items);
  tfs_free(loc);
}

/* ---- attr setters ------------------------------------------------------ */

void tfs_op_desc_set_attr_string(tfs_op_desc *d, const char *name,
                                 const void *value, size_t len) {
  tfs_attr_value v;
  if (!d) return;
  if (tfs_attr_string(&v, value, len)) {
    d->oom = 1;
    return;
  }
  set_attr(d, name, &v);
}

void tfs_op_desc_set_attr_string_list(tfs_op_desc *d, const char *name,
                                      const void *const *values,
                                      const size_t *lengths, int n) {
  if (!d) return;
  tfs_bytes *items = tfs_malloc(sizeof(tfs_bytes) * (size_t)(n > 0 ? n : 1));
  if (!items) {
    d->oom = 1;
    return;
  }
  for (int i = 0; i < n; i++) {
    items[i].ptr = (char *)values[i];
    items[i].len = lengths[i];
  }
  tfs_attr_value v;
  if (tfs_attr_list(&v, TFS_ATTR_STRING, n, items))
    d->oom = 1;
  else
    set_attr(d, name, &v);
  tfs_free(items);
}

void tfs_op_desc_set_attr_int(tfs_op_desc *d, const char *name,
                              int64_t value) {
  tfs_attr_value v;
  if (!d) return;
  tfs_attr_int(&v, value);
  set_attr(d, name, &v);
}

#define LIST_SETTER(fn, ctype, kind)                                        \
  void fn(tfs_op_desc *d, const char *name, const ctype *values, int n) {   \
    tfs_attr_value v;                                                       \
    if (!d) return;                                                         \
    if (tfs_attr_list(&v, kind, n, values)) {                               \
      d->oom = 1;                                                           \
      return;                                                               \
    }                                                                       \
    set_attr(d, name, &v);                                                  \
  }
LIST_SETTER(tfs_op_desc_set_attr_int_list, int64_t, TFS_ATTR_INT)
LIST_SETTER(tfs_op_desc_set_attr_float_list, float, TFS_ATTR_FLOAT)
LIST_SETTER(tfs_op_desc_set_attr_bool_list, unsigned char, TFS_ATTR_BOOL)
LIST_SETTER(tfs_op_desc_set_attr_type_list, tfs_dtype, TFS_ATTR_TYPE)
#undef LIST_SETTER

void tfs_op_desc_set_attr_float(tfs_op_desc *d, const char *name,
                                float value) {
  tfs_attr_value v;
  if (!d) return;
  tfs_attr_float(&v, value);
  set_attr(d, name, &v);
}

void tfs_op_desc_set_attr_bool(tfs_op_desc *d, const char *name, int value) {
  tfs_attr_value v;
  if (!d) return;
  tfs_attr_bool(&v, value);
  set_attr(d, name, &v);
}

void tfs_op_desc_set_attr_type(tfs_op_desc *d, const char *name,
                               tfs_dtype value) {
  if (!d) return;
  set_attr_type(d, name, value);
}

static int make_shape(tfs_op_desc *d, tfs_shape *s, const int64_t *dims,
                      int ndims) {
  if (ndims < 0) {
    s->rank = -1;
    return 0;
  }
  if (ndims > TFS_MAX_RANK || (ndims > 0 && !dims)) {
    add_error(d, tfs_asprintf("Shape of rank %d is not supported (at most "
                              "%d dims)", ndims, TFS_MAX_RANK));
    return -1;
  }
  s->rank = ndims;
  for (int i = 0; i < ndims; i++) s->dims[i] = dims[i] < 0 ? -1 : dims[i];
  return 0;
}

void tfs_op_desc_set_attr_shape(tfs_op_desc *d, const char *name,
                                const int64_t *dims, int ndims) {
  tfs_shape s;
  tfs_attr_value v;
  if (!d || make_shape(d, &s, dims, ndims)) return;
  if (tfs_attr_shape(&v, &s)) {
    d->oom = 1;
    return;
  }
  set_attr(d, name, &v);
}

void tfs_op_desc_set_attr_shape_list(tfs_op_desc *d, const char *name,
                                     const int64_t *const *dims,
                                     const int *ndims, int n) {
  if (!d) return;
  tfs_shape *s = tfs_malloc(sizeof(tfs_shape) * (size_t)(n > 0 ? n : 1));
  if (!s) {
    d->oom = 1;
    return;
  }
  for (int i = 0; i < n; i++) {
    if (make_shape(d, &s[i], dims[i], ndims[i])) {
      tfs_free(s);
      return;
    }
  }
  tfs_attr_value v;
  if (tfs_attr_list(&v, TFS_ATTR_SHAPE, n, s))
    d->oom = 1;
  else
    set_attr(d, name, &v);
  tfs_free(s);
}

void tfs_op_desc_set_attr_tensor(tfs_op_desc *d, const char *name,
                                 tfs_tensor *value, tfs_status *st) {
  TFS_CHECK_ARG(d != NULL && value != NULL, st, );
  tfs_tensor *copy = tfs_tensor__retainable(value, st);
  if (!copy) { /* out of memory: finish fails too */
    d->oom = 1;
    return;
  }
  tfs_attr_value v;
  tfs_attr_tensor(&v, copy);
  tfs_tensor_free(copy);
  set_attr(d, name, &v);
  tfs_status_clear(st);
}

void tfs_op_desc_set_attr_tensor_list(tfs_op_desc *d, const char *name,
                                      tfs_tensor *const *values, int n,
                                      tfs_status *st) {
  TFS_CHECK_ARG(d != NULL && (n == 0 || values != NULL), st, );
  tfs_attr_value v;
  if (tfs_attr_list(&v, TFS_ATTR_TENSOR, n, values)) {
    d->oom = 1;
    TFS_OOM(st);
    return;
  }
  set_attr(d, name, &v);
  tfs_status_clear(st);
}

void tfs_op_desc_set_attr_func_name(tfs_op_desc *d, const char *name,
                                    const char *value, size_t len) {
  tfs_attr_value v;
  if (!d) return;
  if (tfs_attr_func(&v, value, len)) {
    d->oom = 1;
    return;
  }
  set_attr(d, name, &v);
}

void tfs_op_desc_set_attr_placeholder(tfs_op_desc *d, const char *name,
                                      const char *placeholder) {
  tfs_attr_value v;
  if (!d) return;
  if (tfs_attr_placeholder(&v, placeholder)) {
    d->oom = 1;
    return;
  }
  set_attr(d, name, &v);
}

/* ---- finish ---------------------------------------------------------- */

static void report_errors(tfs_op_desc *d, tfs_status *st) {
  if (d->nerrors == 1) {
    if (!d->def)
      tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                      "%s while building NodeDef '%s'", d->errors[0],
                      d->name);
    else
      tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                      "%s while building NodeDef '%s' using %s",
                      d->errors[0], d->name, d->def->summary);
    return;
  }
  tfs_strbuf b = TFS_STRBUF_INIT;
  tfs_strbuf_printf(&b, "%zu errors while building NodeDef '%s' using %s:",
                    d->nerrors, d->name, d->def ? d->def->summary : "");
  for (size_t i = 0; i < d->nerrors; i++)
    tfs_strbuf_printf(&b, "\n%s", d->errors[i]);
  tfs_status_set(st, TFS_INVALID_ARGUMENT, tfs_strbuf_str(&b));
  tfs_strbuf_free(&b);
}

tfs_operation *tfs_op_desc_finish(tfs_op_desc *d, tfs_status *st) {
  tfs_operation *op = NULL;
  if (!d) {
    tfs_status_set(st, TFS_INVALID_ARGUMENT,
                   "invalid argument to tfs_op_desc_finish: d != NULL");
    return NULL;
  }
  tfs_graph *g = d->g;
  if (d->oom) {
    TFS_OOM(st);
    goto done;
  }
  pthread_mutex_lock(&g->mu);
  if (tfs_map_get_str(&g->by_name, d->name)) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "Duplicate node name in graph: '%s'", d->name);
    pthread_mutex_unlock(&g->mu);
    goto done;
  }
  pthread_mutex_unlock(&g->mu);
  if (!d->def) {
    tfs_status *tmp = tfs_status_new();
    tfs_op_not_registered(d->op_type, tmp);
    tfs_status_setf(st, TFS_NOT_FOUND, "%s while building NodeDef '%s'",
                    tfs_status_message(tmp), d->name);
    tfs_status_free(tmp);
    goto done;
  }
  if (d->args_given < d->def->ninputs)
    add_error(d, tfs_asprintf("%d inputs specified of %d inputs in Op",
                              d->args_given, d->def->ninputs));
  if (d->oom) {
    TFS_OOM(st);
    goto done;
  }
  if (d->nerrors) {
    report_errors(d, st);
    goto done;
  }
  tfs_node_spec spec = {
      .name = d->name,
      .op_type = d->op_type,
      .device = d->device,
      .attrs = &d->attrs,
      .ninputs = (int)d->ninputs,
      .inputs = d->inputs,
      .ncontrol = (int)d->ncontrols,
      .control_inputs = d->controls,
  };
  pthread_mutex_lock(&g->mu);
  op = tfs_graph__add_node(g, &spec, st);
  pthread_mutex_unlock(&g->mu);
done:
  tfs_op_desc_free(d);
  return op;
}
