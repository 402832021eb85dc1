/*
 * compat_c_api/eager_op.c - TFE_Op (a tfsess generic op call): inputs the
 * op holds its own references to, attrs with "first set wins" and type
 * attrs inferred from inputs, attr and argument queries, and TFE_Execute.
 */
#include <string.h>
#include <unistd.h>

#include "compat_c_api/capi_internal.h"
#include "compat_c_api/legacy_string.h"

TFE_Op *TFE_NewOp(TFE_Context *ctx, const char *op_or_function_name,
                  TF_Status *status) {
  tfs_status *st = ST(status);
  const char *name = op_or_function_name ? op_or_function_name : "";
  if (!tfs_op_lookup(name)) {
    char host[256] = "localhost";
    if (gethostname(host, sizeof host - 1) != 0)
      memcpy(host, "localhost", sizeof "localhost");
    host[sizeof host - 1] = 0;
    tfs_status_setf(st, TFS_NOT_FOUND,
                    "'%s' is neither a type of a primitive operation nor a "
                    "name of a function registered in binary running on "
                    "%s. Make sure the operation or function is registered "
                    "in the binary running in this process.",
                    name, host);
    return NULL;
  }
  TFE_Op *op = tfs_calloc(1, sizeof(*op));
  if (!op) {
    TFS_OOM(st);
    return NULL;
  }
  op->ctx = ctx;
  op->call = tfs_op_call_new(ctx->ctx, name, st);
  if (!op->call) {
    tfs_free(op);
    return NULL;
  }
  return op;
}

void TFE_DeleteOp(TFE_Op *op) {
  if (!op) return;
  for (int i = 0; i < op->ninputs; i++) tfs_value_free(op->inputs[i]);
  tfs_free(op->inputs);
  tfs_free(op->device);
  tfs_op_call_free(op->call);
  tfs_free(op);
}

/* As in TensorFlow, these getters leave the status alone. */
const char *TFE_OpGetName(const TFE_Op *op, TF_Status *status) {
  (void)status;
  return op->call->def->name;
}

TFE_Context *TFE_OpGetContext(const TFE_Op *op, TF_Status *status) {
  (void)status;
  return op->ctx;
}

void TFE_OpSetDevice(TFE_Op *op, const char *device_name, TF_Status *status) {
  tfs_status *st = ST(status);
  const char *d = device_name ? device_name : "";
  if (*d && *d != '/' && !strchr(d, ':')) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "Malformed device specification '%s' in eager op: Name: "
                    "%s",
                    d, op->call->def->name);
    return;
  }
  char *copy = tfs_strdup(d);
  if (!copy) {
    TFS_OOM(st);
    return;
  }
  tfs_free(op->device);
  op->device = copy;
  tfs_op_call_set_device(op->call, *d ? d : NULL);
  tfs_status_clear(st);
}

/* The op's device: as set, else where its inputs live (the CPU). */
const char *TFE_OpGetDevice(const TFE_Op *op, TF_Status *status) {
  (void)status;
  if (op->device && *op->device) return op->device;
  return op->ninputs ? TFS_CAPI_CPU : "";
}

/* ---- inputs -------------------------------------------------------------- */

/* The op's own reference to a caller's handle (the caller may delete its
 * handle before TFE_Execute). */
static tfs_value *hold(TFE_Op *op, TFE_TensorHandle *h, tfs_status *st) {
  if (!h || !h->tensor) {
    tfs_status_set(st, TFS_INVALID_ARGUMENT, "Input handle is NULL");
    return NULL;
  }
  if (op->ninputs == op->cap) {
    int cap = op->cap ? 2 * op->cap : 4;
    tfs_value **p = tfs_realloc(op->inputs, sizeof(void *) * (size_t)cap);
    if (!p) {
      TFS_OOM(st);
      return NULL;
    }
    op->inputs = p;
    op->cap = cap;
  }
  tfs_value *v = tfs_eager__value(NULL, h->tensor, st);
  if (v) op->inputs[op->ninputs++] = v;
  return v;
}

void TFE_OpAddInput(TFE_Op *op, TFE_TensorHandle *input, TF_Status *status) {
  tfs_status *st = ST(status);
  tfs_value *v = hold(op, input, st);
  if (v) tfs_op_call_add_input(op->call, v, st);
}

void TFE_OpAddInputList(TFE_Op *op, TFE_TensorHandle **inputs, int num_inputs,
                        TF_Status *status) {
  tfs_status *st = ST(status);
  tfs_value *stack[16];
  int n = num_inputs < 0 ? 0 : num_inputs;
  tfs_value **vs = n <= 16 ? stack : tfs_malloc(sizeof(void *) * (size_t)n);
  if (!vs) {
    TFS_OOM(st);
    return;
  }
  int ok = 1;
  for (int i = 0; ok && i < n; i++) {
    vs[i] = hold(op, inputs[i], st);
    ok = vs[i] != NULL;
  }
  if (ok) tfs_op_call_add_input_list(op->call, vs, n, st);
  if (vs != stack) tfs_free(vs);
}

int TFE_OpGetFlatInputCount(const TFE_Op *op, TF_Status *status) {
  (void)status;
  return op->ninputs;
}

TFE_TensorHandle *TFE_OpGetFlatInput(const TFE_Op *op, int index,
                                     TF_Status *status) {
  tfs_status *st = ST(status);
  if (index < 0 || index >= op->ninputs) {
    tfs_status_setf(st, TFS_OUT_OF_RANGE,
                    "Input index %d is out of range: the op has %d inputs",
                    index, op->ninputs);
    return NULL;
  }
  tfs_status_clear(st);
  return op->inputs[index];
}

/* ---- attr and argument queries ------------------------------------------- */

static TF_AttrType attr_type(const tfs_op_def *def, const char *attr_name,
                             unsigned char *is_list, tfs_status *st) {
  const tfs_attr_def *a = attr_name ? tfs_op_def_attr(def, attr_name) : NULL;
  if (!a) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "Attribute '%s' does not exist for this operation",
                    attr_name ? attr_name : "");
    return TF_ATTR_INT;
  }
  if (is_list) *is_list = a->is_list;
  tfs_status_clear(st);
  return (TF_AttrType)a->type;
}

TF_AttrType TFE_OpGetAttrType(TFE_Op *op, const char *attr_name,
                              unsigned char *is_list, TF_Status *status) {
  return attr_type(op->call->def, attr_name, is_list, ST(status));
}

TF_AttrType TFE_OpNameGetAttrType(TFE_Context *ctx,
                                  const char *op_or_function_name,
                                  const char *attr_name,
                                  unsigned char *is_list, TF_Status *status) {
  TFE_Op *op = TFE_NewOp(ctx, op_or_function_name, status);
  if (!op) return TF_ATTR_INT;
  TF_AttrType t = TFE_OpGetAttrType(op, attr_name, is_list, status);
  TFE_DeleteOp(op);
  return t;
}

/* Length of an argument list from the attrs set so far (N of "N * T", a
 * list(type)'s length, else 1); -1 with an error. */
static int arg_length(TFE_Op *op, const tfs_arg_def *args, int nargs,
                      const char *what, const char *name, tfs_status *st) {
  for (int i = 0; name && i < nargs; i++) {
    const tfs_arg_def *a = &args[i];
    if (strcmp(a->name, name) != 0) continue;
    int n = 1;
    if (a->number_attr) {
      int64_t v;
      if (tfs_attrs_get_int(&op->call->attrs, a->number_attr, &v)) goto unset;
      n = (int)v;
    } else if (a->type_list_attr) {
      if (!tfs_attrs_get_type_list(&op->call->attrs, a->type_list_attr, &n))
        goto unset;
    }
    tfs_status_clear(st);
    return n;
  unset:
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "%s '%s': its length is not known yet", what, name);
    return -1;
  }
  tfs_status_setf(st, TFS_INVALID_ARGUMENT, "%s '%s' not found", what,
                  name ? name : "");
  return -1;
}

int TFE_OpGetInputLength(TFE_Op *op, const char *input_name,
                         TF_Status *status) {
  const tfs_op_def *d = op->call->def;
  return arg_length(op, d->inputs, d->ninputs, "Input", input_name,
                    ST(status));
}

int TFE_OpGetOutputLength(TFE_Op *op, const char *output_name,
                          TF_Status *status) {
  const tfs_op_def *d = op->call->def;
  return arg_length(op, d->outputs, d->noutputs, "Output", output_name,
                    ST(status));
}

/* ---- attr setters -------------------------------------------------------- */

void TFE_OpSetAttrString(TFE_Op *op, const char *attr_name, const void *value,
                         size_t length) {
  tfs_op_call_set_attr_string(op->call, attr_name, value, length);
}

void TFE_OpSetAttrInt(TFE_Op *op, const char *attr_name, int64_t value) {
  tfs_op_call_set_attr_int(op->call, attr_name, value);
}

void TFE_OpSetAttrFloat(TFE_Op *op, const char *attr_name, float value) {
  tfs_op_call_set_attr_float(op->call, attr_name, value);
}

void TFE_OpSetAttrBool(TFE_Op *op, const char *attr_name,
                       unsigned char value) {
  tfs_op_call_set_attr_bool(op->call, attr_name, value != 0);
}

void TFE_OpSetAttrType(TFE_Op *op, const char *attr_name, TF_DataType value) {
  tfs_op_call_set_attr_type(op->call, attr_name, (tfs_dtype)value);
}

void TFE_OpSetAttrShape(TFE_Op *op, const char *attr_name,
                        const int64_t *dims, const int num_dims,
                        TF_Status *out_status) {
  tfs_status *st = ST(out_status);
  if (num_dims > TFS_MAX_RANK) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "Value specified for `%s` has %d dimensions which is "
                    "over the limit of %d.",
                    attr_name, num_dims, TFS_MAX_RANK);
    return;
  }
  tfs_op_call_set_attr_shape(op->call, attr_name, dims, num_dims);
  tfs_status_clear(st);
}

void TFE_OpSetAttrFunction(TFE_Op *op, const char *attr_name,
                           const TFE_Op *value) {
  const char *fn = value->call->def->name;
  tfs_op_call_set_attr_func_name(op->call, attr_name, fn, strlen(fn));
}

void TFE_OpSetAttrFunctionName(TFE_Op *op, const char *attr_name,
                               const char *data, size_t length) {
  tfs_op_call_set_attr_func_name(op->call, attr_name, data, length);
}

void TFE_OpSetAttrTensor(TFE_Op *op, const char *attr_name, TF_Tensor *tensor,
                         TF_Status *status) {
  tfs_status *st = ST(status);
  int owned;
  tfs_tensor *t = tfs_capi__tensor_in(tensor, &owned, st);
  if (!t) return;
  if (!owned) {
    t = tfs_tensor__copy(t, st); /* the caller may reuse its tensor */
    if (!t) return;
  }
  tfs_op_call_set_attr_tensor(op->call, attr_name, t);
  tfs_tensor_free(t);
  tfs_status_clear(st);
}

void TFE_OpSetAttrStringList(TFE_Op *op, const char *attr_name,
                             const void *const *values, const size_t *lengths,
                             int num_values) {
  tfs_op_call_set_attr_string_list(op->call, attr_name, values, lengths,
                                   num_values);
}

void TFE_OpSetAttrIntList(TFE_Op *op, const char *attr_name,
                          const int64_t *values, int num_values) {
  tfs_op_call_set_attr_int_list(op->call, attr_name, values, num_values);
}

void TFE_OpSetAttrFloatList(TFE_Op *op, const char *attr_name,
                            const float *values, int num_values) {
  tfs_op_call_set_attr_float_list(op->call, attr_name, values, num_values);
}

void TFE_OpSetAttrBoolList(TFE_Op *op, const char *attr_name,
                           const unsigned char *values, int num_values) {
  tfs_op_call_set_attr_bool_list(op->call, attr_name, values, num_values);
}

void TFE_OpSetAttrTypeList(TFE_Op *op, const char *attr_name,
                           const TF_DataType *values, int num_values) {
  tfs_op_call_set_attr_type_list(op->call, attr_name,
                                 (const tfs_dtype *)values, num_values);
}

void TFE_OpSetAttrShapeList(TFE_Op *op, const char *attr_name,
                            const int64_t **dims, const int *num_dims,
                            int num_values, TF_Status *out_status) {
  tfs_status *st = ST(out_status);
  for (int i = 0; i < num_values; i++) {
    if (num_dims[i] > TFS_MAX_RANK) {
      tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                      "Value specified for `%s` has %d dimensions which is "
                      "over the limit of %d.",
                      attr_name, num_dims[i], TFS_MAX_RANK);
      return;
    }
  }
  tfs_op_call_set_attr_shape_list(op->call, attr_name,
                                  (const int64_t *const *)dims, num_dims,
                                  num_values);
  tfs_status_clear(st);
}

/* list(func) attrs belong to ops tfsess does not have (Case, ...); the
 * value is not recorded. */
void TFE_OpSetAttrFunctionList(TFE_Op *op, const char *attr_name,
                               const TFE_Op **value, int num_values) {
  (void)op, (void)attr_name, (void)value, (void)num_values;
}

/* ---- execution ----------------------------------------------------------- */

void TFE_Execute(TFE_Op *op, TFE_TensorHandle **retvals, int *num_retvals,
                 TF_Status *status) {
  tfs_status *st = ST(status);
  tfs_value *stack[16];
  int room = *num_retvals > 16 ? *num_retvals : 16;
  tfs_value **outs =
      room <= 16 ? stack : tfs_malloc(sizeof(void *) * (size_t)room);
  int n = 0;
  if (!outs) {
    TFS_OOM(st);
    return;
  }
  if (tfs_op_call_execute(op->call, outs, room, &n, st) == 0) {
    if (n > *num_retvals) {
      for (int i = 0; i < n; i++) tfs_value_free(outs[i]);
      tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                      "Expecting %d outputs, but *num_retvals is %d", n,
                      *num_retvals);
    } else {
      for (int i = 0; i < n; i++) retvals[i] = outs[i];
      *num_retvals = n;
    }
  }
  if (outs != stack) tfs_free(outs);
}
