/*
 * graph_builder/builders.c - typed convenience builders over the generic
 * operation builder.
 */
#include "core/status.h"
#include "graph_builder/graph_internal.h"
#include "tfsess/ops.h"

static const tfs_output kNone = {NULL, -1};

/* tfs_op_desc_finish; tfs_op_desc_new returns NULL on a graph only when
 * memory runs out, which is then what the error says. */
static tfs_operation *finish(tfs_graph *g, tfs_op_desc *d, tfs_status *st) {
  if (!d && g) {
    TFS_OOM(st);
    return NULL;
  }
  return tfs_op_desc_finish(d, st);
}

static tfs_output out0(tfs_operation *op) {
  tfs_output o = {op, 0};
  return op ? o : kNone;
}

tfs_output tfs_op_const(tfs_graph *g, const char *name, tfs_tensor *value,
                        tfs_status *st) {
  TFS_CHECK_ARG(g != NULL && value != NULL, st, kNone);
  tfs_op_desc *d = tfs_op_desc_new(g, "Const", name);
  tfs_op_desc_set_attr_tensor(d, "value", value, st);
  tfs_op_desc_set_attr_type(d, "dtype", tfs_tensor_dtype(value));
  return out0(finish(g, d, st));
}

tfs_output tfs_op_const_float(tfs_graph *g, const char *name, float v,
                              tfs_status *st) {
  tfs_tensor *t = tfs_tensor_scalar_float(v);
  if (!t) {
    TFS_OOM(st);
    return kNone;
  }
  tfs_output o = tfs_op_const(g, name, t, st);
  tfs_tensor_free(t);
  return o;
}

tfs_output tfs_op_const_int32(tfs_graph *g, const char *name, int32_t v,
                              tfs_status *st) {
  tfs_tensor *t = tfs_tensor_scalar_int32(v);
  if (!t) {
    TFS_OOM(st);
    return kNone;
  }
  tfs_output o = tfs_op_const(g, name, t, st);
  tfs_tensor_free(t);
  return o;
}

tfs_output tfs_op_placeholder(tfs_graph *g, const char *name,
                              tfs_dtype dtype, const int64_t *dims,
                              int ndims, tfs_status *st) {
  TFS_CHECK_ARG(g != NULL, st, kNone);
  tfs_op_desc *d = tfs_op_desc_new(g, "Placeholder", name);
  tfs_op_desc_set_attr_type(d, "dtype", dtype);
  tfs_op_desc_set_attr_shape(d, "shape", dims, ndims);
  return out0(finish(g, d, st));
}

tfs_output tfs_op_placeholder_with_default(tfs_graph *g, const char *name,
                                           tfs_output input,
                                           const int64_t *dims, int ndims,
                                           tfs_status *st) {
  if (!input.oper) return kNone;
  tfs_op_desc *d = tfs_op_desc_new(g, "PlaceholderWithDefault", name);
  tfs_op_desc_add_input(d, input);
  tfs_op_desc_set_attr_shape(d, "shape", dims, ndims);
  return out0(finish(g, d, st));
}

tfs_output tfs_op_unary(tfs_graph *g, const char *op_type, const char *name,
                        tfs_output x, tfs_status *st) {
  if (!x.oper) return kNone;
  tfs_op_desc *d = tfs_op_desc_new(g, op_type, name);
  tfs_op_desc_add_input(d, x);
  return out0(finish(g, d, st));
}

tfs_output tfs_op_binary(tfs_graph *g, const char *op_type, const char *name,
                         tfs_output x, tfs_output y, tfs_status *st) {
  if (!x.oper || !y.oper) return kNone;
  tfs_op_desc *d = tfs_op_desc_new(g, op_type, name);
  tfs_op_desc_add_input(d, x);
  tfs_op_desc_add_input(d, y);
  return out0(finish(g, d, st));
}

tfs_output tfs_op_identity(tfs_graph *g, const char *name, tfs_output x,
                           tfs_status *st) {
  return tfs_op_unary(g, "Identity", name, x, st);
}

#define BINARY(fn, type)                                                   \
  tfs_output fn(tfs_graph *g, const char *name, tfs_output x, tfs_output y, \
                tfs_status *st) {                                          \
    return tfs_op_binary(g, type, name, x, y, st);                         \
  }
BINARY(tfs_op_add, "AddV2")
BINARY(tfs_op_sub, "Sub")
BINARY(tfs_op_mul, "Mul")
BINARY(tfs_op_div, "Div")
BINARY(tfs_op_realdiv, "RealDiv")
BINARY(tfs_op_pow, "Pow")
BINARY(tfs_op_maximum, "Maximum")
BINARY(tfs_op_minimum, "Minimum")
BINARY(tfs_op_bias_add, "BiasAdd")
BINARY(tfs_op_reshape, "Reshape")
BINARY(tfs_op_fill, "Fill")
#undef BINARY

tfs_output tfs_op_matmul(tfs_graph *g, const char *name, tfs_output a,
                         tfs_output b, int transpose_a, int transpose_b,
                         tfs_status *st) {
  if (!a.oper || !b.oper) return kNone;
  tfs_op_desc *d = tfs_op_desc_new(g, "MatMul", name);
  tfs_op_desc_add_input(d, a);
  tfs_op_desc_add_input(d, b);
  tfs_op_desc_set_attr_bool(d, "transpose_a", transpose_a);
  tfs_op_desc_set_attr_bool(d, "transpose_b", transpose_b);
  return out0(finish(g, d, st));
}

static tfs_output reduce(tfs_graph *g, const char *type, const char *name,
                         tfs_output input, tfs_output axes, int keep,
                         tfs_status *st) {
  if (!input.oper || !axes.oper) return kNone;
  tfs_op_desc *d = tfs_op_desc_new(g, type, name);
  tfs_op_desc_add_input(d, input);
  tfs_op_desc_add_input(d, axes);
  tfs_op_desc_set_attr_bool(d, "keep_dims", keep);
  return out0(finish(g, d, st));
}

tfs_output tfs_op_sum(tfs_graph *g, const char *name, tfs_output input,
                      tfs_output axes, int keep_dims, tfs_status *st) {
  return reduce(g, "Sum", name, input, axes, keep_dims, st);
}

tfs_output tfs_op_mean(tfs_graph *g, const char *name, tfs_output input,
                       tfs_output axes, int keep_dims, tfs_status *st) {
  return reduce(g, "Mean", name, input, axes, keep_dims, st);
}

tfs_output tfs_op_cast(tfs_graph *g, const char *name, tfs_output x,
                       tfs_dtype dst, tfs_status *st) {
  if (!x.oper) return kNone;
  tfs_op_desc *d = tfs_op_desc_new(g, "Cast", name);
  tfs_op_desc_add_input(d, x);
  tfs_op_desc_set_attr_type(d, "DstT", dst);
  return out0(finish(g, d, st));
}

tfs_output tfs_op_shape(tfs_graph *g, const char *name, tfs_output x,
                        tfs_status *st) {
  return tfs_op_unary(g, "Shape", name, x, st);
}

tfs_operation *tfs_op_assert(tfs_graph *g, const char *name,
                             tfs_output condition, const tfs_output *data,
                             int ndata, tfs_status *st) {
  if (!condition.oper) return NULL;
  for (int i = 0; i < ndata; i++)
    if (!data[i].oper) return NULL;
  tfs_op_desc *d = tfs_op_desc_new(g, "Assert", name);
  tfs_op_desc_add_input(d, condition);
  tfs_op_desc_add_input_list(d, data, ndata);
  return finish(g, d, st);
}

tfs_operation *tfs_op_group(tfs_graph *g, const char *name,
                            tfs_operation *const *deps, int ndeps,
                            tfs_status *st) {
  for (int i = 0; i < ndeps; i++)
    if (!deps[i]) return NULL;
  tfs_op_desc *d = tfs_op_desc_new(g, "NoOp", name);
  for (int i = 0; i < ndeps; i++) tfs_op_desc_add_control_input(d, deps[i]);
  return finish(g, d, st);
}

tfs_output tfs_op_with_dependencies(tfs_graph *g, const char *name,
                                    tfs_output x, tfs_operation *const *deps,
                                    int ndeps, tfs_status *st) {
  if (!x.oper) return kNone;
  for (int i = 0; i < ndeps; i++)
    if (!deps[i]) return kNone;
  tfs_op_desc *d = tfs_op_desc_new(g, "Identity", name);
  tfs_op_desc_add_input(d, x);
  for (int i = 0; i < ndeps; i++) tfs_op_desc_add_control_input(d, deps[i]);
  return out0(finish(g, d, st));
}

tfs_output tfs_op_variable(tfs_graph *g, const char *name, tfs_dtype dtype,
                           const int64_t *dims, int ndims, tfs_status *st) {
  TFS_CHECK_ARG(g != NULL, st, kNone);
  tfs_op_desc *d = tfs_op_desc_new(g, "VariableV2", name);
  tfs_op_desc_set_attr_type(d, "dtype", dtype);
  tfs_op_desc_set_attr_shape(d, "shape", dims, ndims);
  return out0(finish(g, d, st));
}

tfs_output tfs_op_assign(tfs_graph *g, const char *name, tfs_output ref,
                         tfs_output value, tfs_status *st) {
  return tfs_op_binary(g, "Assign", name, ref, value, st);
}

tfs_output tfs_op_assign_add(tfs_graph *g, const char *name, tfs_output ref,
                             tfs_output value, tfs_status *st) {
  return tfs_op_binary(g, "AssignAdd", name, ref, value, st);
}

tfs_output tfs_op_var_handle(tfs_graph *g, const char *name, tfs_dtype dtype,
                             const int64_t *dims, int ndims,
                             tfs_status *st) {
  TFS_CHECK_ARG(g != NULL, st, kNone);
  tfs_op_desc *d = tfs_op_desc_new(g, "VarHandleOp", name);
  tfs_op_desc_set_attr_type(d, "dtype", dtype);
  tfs_op_desc_set_attr_shape(d, "shape", dims, ndims);
  return out0(finish(g, d, st));
}

tfs_output tfs_op_read_variable(tfs_graph *g, const char *name,
                                tfs_output handle, tfs_dtype dtype,
                                tfs_status *st) {
  if (!handle.oper) return kNone;
  tfs_op_desc *d = tfs_op_desc_new(g, "ReadVariableOp", name);
  tfs_op_desc_add_input(d, handle);
  tfs_op_desc_set_attr_type(d, "dtype", dtype);
  return out0(finish(g, d, st));
}

static tfs_operation *resource_update(tfs_graph *g, const char *type,
                                      const char *name, tfs_output handle,
                                      tfs_output value, tfs_status *st) {
  if (!handle.oper || !value.oper) return NULL;
  tfs_op_desc *d = tfs_op_desc_new(g, type, name);
  tfs_op_desc_add_input(d, handle);
  tfs_op_desc_add_input(d, value);
  return finish(g, d, st);
}

tfs_operation *tfs_op_assign_variable(tfs_graph *g, const char *name,
                                      tfs_output handle, tfs_output value,
                                      tfs_status *st) {
  return resource_update(g, "AssignVariableOp", name, handle, value, st);
}

tfs_operation *tfs_op_assign_add_variable(tfs_graph *g, const char *name,
                                          tfs_output handle,
                                          tfs_output value, tfs_status *st) {
  return resource_update(g, "AssignAddVariableOp", name, handle, value, st);
}
