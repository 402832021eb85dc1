/*
 * compat_c_api/operation.c - TF_Operation queries (names, inputs,
 * outputs, consumers, control edges) and the TF_OperationGetAttr*
 * getters, with TensorFlow's semantics for caller-provided storage and
 * its error messages.
 */
#include <string.h>

#include "compat_c_api/capi_internal.h"
#include "graph_builder/attr_proto.h"
#include "graph_builder/tensor_proto.h"

const char *TF_OperationName(TF_Operation *oper) { return oper->name; }

const char *TF_OperationOpType(TF_Operation *oper) {
  return oper->def->name;
}

const char *TF_OperationDevice(TF_Operation *oper) { return oper->device; }

int TF_OperationNumOutputs(TF_Operation *oper) { return oper->noutputs; }

TF_DataType TF_OperationOutputType(TF_Output oper_out) {
  return (TF_DataType)tfs_operation_output_type(tfs_capi__out(oper_out));
}

int TF_OperationNumInputs(TF_Operation *oper) { return oper->ninputs; }

TF_DataType TF_OperationInputType(TF_Input oper_in) {
  tfs_input in = {oper_in.oper, oper_in.index};
  return (TF_DataType)tfs_operation_input_type(in);
}

/* Length of argument `name` among `args`, TensorFlow's message when
 * absent. */
static int arg_list_length(const tfs_arg_def *args, int nargs, const int *len,
                           const char *what, const char *name,
                           tfs_status *st) {
  for (int i = 0; name && i < nargs; i++) {
    if (strcmp(args[i].name, name) == 0) {
      tfs_status_clear(st);
      return len[i];
    }
  }
  tfs_status_setf(st, TFS_INVALID_ARGUMENT, "%s arg '%s' not found", what,
                  name ? name : "");
  return -1;
}

int TF_OperationOutputListLength(TF_Operation *oper, const char *arg_name,
                                 TF_Status *status) {
  return arg_list_length(oper->def->outputs, oper->def->noutputs,
                         oper->out_arg_len, "Output", arg_name, ST(status));
}

int TF_OperationInputListLength(TF_Operation *oper, const char *arg_name,
                                TF_Status *status) {
  return arg_list_length(oper->def->inputs, oper->def->ninputs,
                         oper->in_arg_len, "Input", arg_name, ST(status));
}

TF_Output TF_OperationInput(TF_Input oper_in) {
  tfs_input in = {oper_in.oper, oper_in.index};
  return tfs_capi__tf_out(tfs_operation_input(in));
}

void TF_OperationAllInputs(TF_Operation *oper, TF_Output *inputs,
                           int max_inputs) {
  for (int i = 0; i < oper->ninputs && i < max_inputs; i++)
    inputs[i] = tfs_capi__tf_out(oper->inputs[i]);
}

int TF_OperationOutputNumConsumers(TF_Output oper_out) {
  return tfs_operation_output_num_consumers(tfs_capi__out(oper_out));
}

int TF_OperationOutputConsumers(TF_Output oper_out, TF_Input *consumers,
                                int max_consumers) {
  tfs_output o = tfs_capi__out(oper_out);
  if (!o.oper || o.index < 0 || o.index >= o.oper->noutputs) return 0;
  const tfs_consumer_list *cl = &o.oper->consumers[o.index];
  for (int i = 0; i < cl->n && i < max_consumers; i++) {
    consumers[i].oper = cl->v[i].oper;
    consumers[i].index = cl->v[i].index;
  }
  return cl->n;
}

int TF_OperationNumControlInputs(TF_Operation *oper) { return oper->ncontrol; }

int TF_OperationGetControlInputs(TF_Operation *oper,
                                 TF_Operation **control_inputs,
                                 int max_control_inputs) {
  return tfs_operation_control_inputs(oper, control_inputs,
                                      max_control_inputs);
}

int TF_OperationNumControlOutputs(TF_Operation *oper) {
  return oper->ncontrol_out;
}

int TF_OperationGetControlOutputs(TF_Operation *oper,
                                  TF_Operation **control_outputs,
                                  int max_control_outputs) {
  return tfs_operation_control_outputs(oper, control_outputs,
                                       max_control_outputs);
}

/* ---- attributes: lookups ------------------------------------------------- */

/* The C API's own lookup: "Operation 'x' has no attr named 'y'." */
static const tfs_attr_value *attr_value(TF_Operation *op, const char *name,
                                        tfs_status *st) {
  const tfs_attr_value *v = name ? tfs_attrs_find(&op->attrs, name) : NULL;
  if (!v)
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "Operation '%s' has no attr named '%s'.", op->name,
                    name ? name : "");
  return v;
}

/* GetNodeAttr's lookup, with its NOT_FOUND and kind-mismatch errors. */
static const tfs_attr_value *node_attr(TF_Operation *op, const char *name,
                                       int type, int is_list,
                                       tfs_status *st) {
  const tfs_attr_value *v = name ? tfs_attrs_find(&op->attrs, name) : NULL;
  if (!v) {
    tfs_status_setf(st, TFS_NOT_FOUND,
                    "No attr named '%s' in NodeDef:\n\t [[" TFS_NODE_FMT "]]",
                    name ? name : "", op->name);
    return NULL;
  }
  int empty_list = v->is_list && v->u.list.n == 0 && is_list;
  if (!empty_list && (v->type != type || v->is_list != is_list)) {
    tfs_attr_value want;
    memset(&want, 0, sizeof want);
    want.type = (uint8_t)type;
    want.is_list = (uint8_t)is_list;
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "AttrValue had value with type '%s' when '%s' expected",
                    tfs_attr_type_string(v), tfs_attr_type_string(&want));
    return NULL;
  }
  tfs_status_clear(st);
  return v;
}

TF_AttrMetadata TF_OperationGetAttrMetadata(TF_Operation *oper,
                                            const char *attr_name,
                                            TF_Status *status) {
  TF_AttrMetadata m;
  tfs_attr_metadata t = tfs_operation_attr_metadata(oper, attr_name,
                                                    ST(status));
  m.is_list = t.is_list;
  m.list_size = t.list_size;
  m.type = (TF_AttrType)t.type;
  m.total_size = t.total_size;
  return m;
}

/* ---- attributes: scalars ------------------------------------------------- */

void TF_OperationGetAttrString(TF_Operation *oper, const char *attr_name,
                               void *value, size_t max_length,
                               TF_Status *status) {
  tfs_status *st = ST(status);
  const tfs_attr_value *v = attr_value(oper, attr_name, st);
  if (!v) return;
  if (v->is_list || v->type != TFS_ATTR_STRING) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "Attribute '%s' is not a string", attr_name);
    return;
  }
  size_t n = v->u.s.len < max_length ? v->u.s.len : max_length;
  if (n) memcpy(value, v->u.s.ptr, n);
  tfs_status_clear(st);
}

void TF_OperationGetAttrInt(TF_Operation *oper, const char *attr_name,
                            int64_t *value, TF_Status *status) {
  const tfs_attr_value *v =
      node_attr(oper, attr_name, TFS_ATTR_INT, 0, ST(status));
  if (v) *value = v->u.i;
}

void TF_OperationGetAttrFloat(TF_Operation *oper, const char *attr_name,
                              float *value, TF_Status *status) {
  const tfs_attr_value *v =
      node_attr(oper, attr_name, TFS_ATTR_FLOAT, 0, ST(status));
  if (v) *value = v->u.f;
}

void TF_OperationGetAttrBool(TF_Operation *oper, const char *attr_name,
                             unsigned char *value, TF_Status *status) {
  const tfs_attr_value *v =
      node_attr(oper, attr_name, TFS_ATTR_BOOL, 0, ST(status));
  if (v) *value = v->u.b;
}

void TF_OperationGetAttrType(TF_Operation *oper, const char *attr_name,
                             TF_DataType *value, TF_Status *status) {
  const tfs_attr_value *v =
      node_attr(oper, attr_name, TFS_ATTR_TYPE, 0, ST(status));
  if (v) *value = (TF_DataType)v->u.type;
}

void TF_OperationGetAttrShape(TF_Operation *oper, const char *attr_name,
                              int64_t *value, int num_dims,
                              TF_Status *status) {
  const tfs_attr_value *v =
      node_attr(oper, attr_name, TFS_ATTR_SHAPE, 0, ST(status));
  if (!v) return;
  const tfs_shape *s = v->u.shape;
  for (int i = 0; i < s->rank && i < num_dims; i++) value[i] = s->dims[i];
}

void TF_OperationGetAttrTensor(TF_Operation *oper, const char *attr_name,
                               TF_Tensor **value, TF_Status *status) {
  tfs_status *st = ST(status);
  const tfs_attr_value *v = node_attr(oper, attr_name, TFS_ATTR_TENSOR, 0, st);
  if (!v) return;
  tfs_tensor *t = tfs_tensor__copy(v->u.tensor, st);
  if (!t) return;
  *value = t;
  tfs_status_clear(st);
}

void TF_OperationGetAttrTensorShapeProto(TF_Operation *oper,
                                         const char *attr_name,
                                         TF_Buffer *value,
                                         TF_Status *status) {
  tfs_status *st = ST(status);
  const tfs_attr_value *v = attr_value(oper, attr_name, st);
  if (!v) return;
  if (v->is_list || v->type != TFS_ATTR_SHAPE) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "Value for '%s' is not a shape.", attr_name);
    return;
  }
  tfs_buffer b = tfs_capi__buf_in(value);
  if (tfs_shape__serialize_proto(v->u.shape, &b, st) == 0) {
    tfs_capi__buf_out(value, &b);
    tfs_status_clear(st);
  }
}

void TF_OperationGetAttrValueProto(TF_Operation *oper, const char *attr_name,
                                   TF_Buffer *output_attr_value,
                                   TF_Status *status) {
  tfs_status *st = ST(status);
  const tfs_attr_value *v = attr_value(oper, attr_name, st);
  if (!v) return;
  tfs_buffer b = tfs_capi__buf_in(output_attr_value);
  if (tfs_attr_value__serialize(v, &b, st) == 0) {
    tfs_capi__buf_out(output_attr_value, &b);
    tfs_status_clear(st);
  }
}

/* ---- attributes: lists --------------------------------------------------- */

/* Copies min(n, max) elements of `size` bytes of a typed list. */
static void get_list(TF_Operation *oper, const char *name, int type,
                     size_t size, void *out, int max, TF_Status *status) {
  const tfs_attr_value *v = node_attr(oper, name, type, 1, ST(status));
  if (!v) return;
  int n = v->u.list.n < max ? v->u.list.n : max;
  if (n > 0) memcpy(out, v->u.list.v, size * (size_t)n);
}

void TF_OperationGetAttrIntList(TF_Operation *oper, const char *attr_name,
                                int64_t *values, int max_values,
                                TF_Status *status) {
  get_list(oper, attr_name, TFS_ATTR_INT, sizeof(int64_t), values, max_values,
           status);
}

void TF_OperationGetAttrFloatList(TF_Operation *oper, const char *attr_name,
                                  float *values, int max_values,
                                  TF_Status *status) {
  get_list(oper, attr_name, TFS_ATTR_FLOAT, sizeof(float), values, max_values,
           status);
}

void TF_OperationGetAttrBoolList(TF_Operation *oper, const char *attr_name,
                                 unsigned char *values, int max_values,
                                 TF_Status *status) {
  get_list(oper, attr_name, TFS_ATTR_BOOL, sizeof(uint8_t), values,
           max_values, status);
}

void TF_OperationGetAttrTypeList(TF_Operation *oper, const char *attr_name,
                                 TF_DataType *values, int max_values,
                                 TF_Status *status) {
  const tfs_attr_value *v =
      node_attr(oper, attr_name, TFS_ATTR_TYPE, 1, ST(status));
  if (!v) return;
  const tfs_dtype *t = v->u.list.v;
  for (int i = 0; i < v->u.list.n && i < max_values; i++)
    values[i] = (TF_DataType)t[i];
}

void TF_OperationGetAttrStringList(TF_Operation *oper, const char *attr_name,
                                   void **values, size_t *lengths,
                                   int max_values, void *storage,
                                   size_t storage_size, TF_Status *status) {
  tfs_status *st = ST(status);
  const tfs_attr_value *v = attr_value(oper, attr_name, st);
  if (!v) return;
  if (!v->is_list) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT, "Value for '%s' is not a list",
                    attr_name);
    return;
  }
  int n = v->type == TFS_ATTR_STRING ? v->u.list.n : 0;
  const tfs_bytes *s = v->u.list.v;
  char *p = storage, *end = (char *)storage + storage_size;
  for (int i = 0; i < n && i < max_values; i++) {
    values[i] = p;
    lengths[i] = s[i].len;
    if (s[i].len > (size_t)(end - p)) {
      tfs_status_set(st, TFS_INVALID_ARGUMENT,
                     "Not enough storage to hold the requested list of "
                     "strings");
      return;
    }
    if (s[i].len) memcpy(p, s[i].ptr, s[i].len);
    p += s[i].len;
  }
  tfs_status_clear(st);
}

void TF_OperationGetAttrShapeList(TF_Operation *oper, const char *attr_name,
                                  int64_t **dims, int *num_dims,
                                  int num_shapes, int64_t *storage,
                                  int storage_size, TF_Status *status) {
  tfs_status *st = ST(status);
  const tfs_attr_value *v = node_attr(oper, attr_name, TFS_ATTR_SHAPE, 1, st);
  if (!v) return;
  const tfs_shape *s = v->u.list.v;
  int64_t *p = storage;
  int left = storage_size;
  for (int i = 0; i < v->u.list.n && i < num_shapes; i++) {
    int n = s[i].rank;
    num_dims[i] = n;
    dims[i] = p;
    if (n < 0) continue;
    if (left < n) {
      tfs_status_set(st, TFS_INVALID_ARGUMENT,
                     "Not enough storage to hold the requested list of "
                     "shapes");
      return;
    }
    left -= n;
    for (int j = 0; j < n; j++) *p++ = s[i].dims[j];
  }
}

void TF_OperationGetAttrTensorShapeProtoList(TF_Operation *oper,
                                             const char *attr_name,
                                             TF_Buffer **values,
                                             int max_values,
                                             TF_Status *status) {
  tfs_status *st = ST(status);
  const tfs_attr_value *v = attr_value(oper, attr_name, st);
  if (!v) return;
  if (!v->is_list) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT, "Value for '%s' is not a list.",
                    attr_name);
    return;
  }
  int n = v->type == TFS_ATTR_SHAPE ? v->u.list.n : 0;
  const tfs_shape *s = v->u.list.v;
  for (int i = 0; i < n && i < max_values; i++) {
    tfs_buffer b = {NULL, 0, NULL};
    values[i] = TF_NewBuffer();
    if (!values[i]) {
      TFS_OOM(st);
      return;
    }
    if (tfs_shape__serialize_proto(&s[i], &b, st)) return;
    tfs_capi__buf_out(values[i], &b);
  }
  tfs_status_clear(st);
}

void TF_OperationGetAttrTensorList(TF_Operation *oper, const char *attr_name,
                                   TF_Tensor **values, int max_values,
                                   TF_Status *status) {
  tfs_status *st = ST(status);
  const tfs_attr_value *v = node_attr(oper, attr_name, TFS_ATTR_TENSOR, 1, st);
  if (!v) return;
  tfs_tensor *const *t = v->u.list.v;
  int n = v->u.list.n < max_values ? v->u.list.n : max_values;
  for (int i = 0; i < n; i++) {
    values[i] = tfs_tensor__copy(t[i], st);
    if (!values[i]) {
      for (int k = 0; k < i; k++) tfs_tensor_free(values[k]);
      return;
    }
  }
  tfs_status_clear(st);
}

/* ---- attributes: enumeration --------------------------------------------- */

int TF_OperationGetNumAttrs(TF_Operation *oper) { return oper->attrs.n; }

int TF_OperationGetAttrNameLength(TF_Operation *oper, int i) {
  if (i < 0 || i >= oper->attrs.n) return -1;
  return (int)strlen(oper->attrs.e[i].name);
}

void TF_OperationGetAttrName(TF_Operation *oper, int i, char *output,
                             TF_Status *status) {
  tfs_status *st = ST(status);
  if (i < 0 || i >= oper->attrs.n) {
    tfs_status_setf(st, TFS_OUT_OF_RANGE,
                    "Operation only has %d attributes, can't get the %dth",
                    oper->attrs.n, i);
    return;
  }
  const char *name = oper->attrs.e[i].name;
  memcpy(output, name, strlen(name));
  tfs_status_clear(st);
}
