/*
 * graph_builder/operation.c - read-only queries on operations: names,
 * inputs and outputs, consumers, control edges and attributes.
 */
#include <string.h>

#include "core/status.h"
#include "graph_builder/graph_internal.h"

const char *tfs_operation_name(const tfs_operation *op) {
  return op ? op->name : "";
}
const char *tfs_operation_op_type(const tfs_operation *op) {
  return op ? op->def->name : "";
}
const char *tfs_operation_device(const tfs_operation *op) {
  return op ? op->device : "";
}
int tfs_operation_num_inputs(const tfs_operation *op) {
  return op ? op->ninputs : 0;
}
int tfs_operation_num_outputs(const tfs_operation *op) {
  return op ? op->noutputs : 0;
}

tfs_dtype tfs_operation_input_type(tfs_input in) {
  if (!in.oper || in.index < 0 || in.index >= in.oper->ninputs)
    return TFS_INVALID;
  tfs_output src = in.oper->inputs[in.index];
  return src.oper->out_types[src.index];
}

tfs_dtype tfs_operation_output_type(tfs_output out) {
  if (!out.oper || out.index < 0 || out.index >= out.oper->noutputs)
    return TFS_INVALID;
  return out.oper->out_types[out.index];
}

tfs_output tfs_operation_input(tfs_input in) {
  tfs_output none = {NULL, -1};
  if (!in.oper || in.index < 0 || in.index >= in.oper->ninputs) return none;
  return in.oper->inputs[in.index];
}

static int list_length(const tfs_operation *op, const tfs_arg_def *args,
                       int nargs, const int *len, const char *arg_name,
                       tfs_status *st) {
  for (int i = 0; i < nargs; i++) {
    if (strcmp(args[i].name, arg_name) == 0) {
      tfs_status_clear(st);
      return len[i];
    }
  }
  tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                  "Operation '%s' of type '%s' has no argument named '%s'",
                  op->name, op->def->name, arg_name);
  return -1;
}

int tfs_operation_input_list_length(const tfs_operation *op,
                                    const char *arg_name, tfs_status *st) {
  TFS_CHECK_ARG(op != NULL && arg_name != NULL, st, -1);
  return list_length(op, op->def->inputs, op->def->ninputs, op->in_arg_len,
                     arg_name, st);
}

int tfs_operation_output_list_length(const tfs_operation *op,
                                     const char *arg_name, tfs_status *st) {
  TFS_CHECK_ARG(op != NULL && arg_name != NULL, st, -1);
  return list_length(op, op->def->outputs, op->def->noutputs,
                     op->out_arg_len, arg_name, st);
}

int tfs_operation_output_num_consumers(tfs_output out) {
  if (!out.oper || out.index < 0 || out.index >= out.oper->noutputs) return 0;
  return out.oper->consumers[out.index].n;
}

int tfs_operation_output_consumers(tfs_output out, tfs_input *consumers,
                                   int max) {
  if (!out.oper || out.index < 0 || out.index >= out.oper->noutputs) return 0;
  const tfs_consumer_list *cl = &out.oper->consumers[out.index];
  for (int i = 0; i < cl->n && i < max; i++) consumers[i] = cl->v[i];
  return cl->n;
}

int tfs_operation_num_control_inputs(const tfs_operation *op) {
  return op ? op->ncontrol : 0;
}

int tfs_operation_control_inputs(const tfs_operation *op,
                                 tfs_operation **out, int max) {
  if (!op) return 0;
  for (int i = 0; i < op->ncontrol && i < max; i++)
    out[i] = op->control_inputs[i];
  return op->ncontrol;
}

int tfs_operation_num_control_outputs(const tfs_operation *op) {
  return op ? op->ncontrol_out : 0;
}

int tfs_operation_control_outputs(const tfs_operation *op,
                                  tfs_operation **out, int max) {
  if (!op) return 0;
  for (int i = 0; i < op->ncontrol_out && i < max; i++)
    out[i] = op->control_outputs[i];
  return op->ncontrol_out;
}

/* ---- attributes --------------------------------------------------------- */

static const tfs_attr_value *find_attr(const tfs_operation *op,
                                       const char *name, tfs_status *st) {
  const tfs_attr_value *v = op && name ? tfs_attrs_find(&op->attrs, name)
                                       : NULL;
  if (!v)
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "Operation '%s' has no attr named '%s'.",
                    op ? op->name : "", name ? name : "");
  return v;
}

static const tfs_attr_value *typed_attr(const tfs_operation *op,
                                        const char *name, int type,
                                        int is_list, tfs_status *st) {
  const tfs_attr_value *v = find_attr(op, name, st);
  if (!v) return NULL;
  if (v->type != type || v->is_list != is_list) {
    tfs_attr_value want;
    memset(&want, 0, sizeof want);
    want.type = (uint8_t)type;
    want.is_list = (uint8_t)is_list;
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "Attribute '%s' is not %s but %s", name,
                    tfs_attr_type_string(&want), tfs_attr_type_string(v));
    return NULL;
  }
  tfs_status_clear(st);
  return v;
}

tfs_attr_metadata tfs_operation_attr_metadata(const tfs_operation *op,
                                              const char *name,
                                              tfs_status *st) {
  tfs_attr_metadata m = {0, -1, TFS_ATTR_KIND_STRING, -1};
  const tfs_attr_value *v = find_attr(op, name, st);
  if (!v) return m;
  m.type = (tfs_attr_kind)v->type;
  m.is_list = v->is_list;
  if (v->is_list) {
    m.list_size = v->u.list.n;
    if (v->type == TFS_ATTR_STRING) {
      m.total_size = 0;
      for (int i = 0; i < v->u.list.n; i++)
        m.total_size += (int64_t)((tfs_bytes *)v->u.list.v)[i].len;
    } else if (v->type == TFS_ATTR_SHAPE) {
      m.total_size = 0;
      for (int i = 0; i < v->u.list.n; i++) {
        int r = ((tfs_shape *)v->u.list.v)[i].rank;
        m.total_size += r < 0 ? 0 : r;
      }
    }
  } else if (v->type == TFS_ATTR_STRING) {
    m.total_size = (int64_t)v->u.s.len;
  } else if (v->type == TFS_ATTR_SHAPE) {
    m.total_size = v->u.shape->rank;
  } else if (v->type == TFS_ATTR_FUNC) {
    m.total_size = (int64_t)strlen(v->u.func->name);
  }
  tfs_status_clear(st);
  return m;
}

int64_t tfs_operation_attr_int(const tfs_operation *op, const char *name,
                               tfs_status *st) {
  const tfs_attr_value *v = typed_attr(op, name, TFS_ATTR_INT, 0, st);
  return v ? v->u.i : 0;
}

float tfs_operation_attr_float(const tfs_operation *op, const char *name,
                               tfs_status *st) {
  const tfs_attr_value *v = typed_attr(op, name, TFS_ATTR_FLOAT, 0, st);
  return v ? v->u.f : 0.0f;
}

int tfs_operation_attr_bool(const tfs_operation *op, const char *name,
                            tfs_status *st) {
  const tfs_attr_value *v = typed_attr(op, name, TFS_ATTR_BOOL, 0, st);
  return v ? v->u.b : 0;
}

tfs_dtype tfs_operation_attr_type(const tfs_operation *op, const char *name,
                                  tfs_status *st) {
  const tfs_attr_value *v = typed_attr(op, name, TFS_ATTR_TYPE, 0, st);
  return v ? v->u.type : TFS_INVALID;
}

const char *tfs_operation_attr_string(const tfs_operation *op,
                                      const char *name, size_t *len,
                                      tfs_status *st) {
  const tfs_attr_value *v = typed_attr(op, name, TFS_ATTR_STRING, 0, st);
  if (!v) return NULL;
  if (len) *len = v->u.s.len;
  return v->u.s.ptr;
}

int tfs_operation_attr_shape(const tfs_operation *op, const char *name,
                             int64_t *dims, int max, tfs_status *st) {
  const tfs_attr_value *v = typed_attr(op, name, TFS_ATTR_SHAPE, 0, st);
  if (!v) return -1;
  for (int i = 0; i < v->u.shape->rank && i < max; i++)
    dims[i] = v->u.shape->dims[i];
  return v->u.shape->rank;
}

tfs_tensor *tfs_operation_attr_tensor(const tfs_operation *op,
                                      const char *name, tfs_status *st) {
  const tfs_attr_value *v = typed_attr(op, name, TFS_ATTR_TENSOR, 0, st);
  return v ? tfs_tensor_ref(v->u.tensor) : NULL;
}

#define LIST_GETTER(fn, ctype, kind)                                       \
  int fn(const tfs_operation *op, const char *name, ctype *values,         \
         int max, tfs_status *st) {                                        \
    const tfs_attr_value *v = typed_attr(op, name, kind, 1, st);           \
    if (!v) return -1;                                                     \
    const ctype *src = v->u.list.v;                                        \
    for (int i = 0; i < v->u.list.n && i < max; i++) values[i] = src[i];   \
    return v->u.list.n;                                                    \
  }
LIST_GETTER(tfs_operation_attr_int_list, int64_t, TFS_ATTR_INT)
LIST_GETTER(tfs_operation_attr_float_list, float, TFS_ATTR_FLOAT)
LIST_GETTER(tfs_operation_attr_bool_list, unsigned char, TFS_ATTR_BOOL)
LIST_GETTER(tfs_operation_attr_type_list, tfs_dtype, TFS_ATTR_TYPE)
#undef LIST_GETTER

int tfs_operation_num_attrs(const tfs_operation *op) {
  return op ? op->attrs.n : 0;
}

const char *tfs_operation_attr_name(const tfs_operation *op, int i) {
  if (!op || i < 0 || i >= op->attrs.n) return NULL;
  return op->attrs.e[i].name;
}
