/*
 * gradients/grad_build.c - the builders gradient functions write their
 * subgraphs with (grad_internal.h).
 */
#include <complex.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/half.h"
#include "core/shape.h"
#include "core/status.h"
#include "core/strbuf.h"
#include "gradients/grad_internal.h"
#include "tfsess/tensor.h"

static tfs_dtype base_type(tfs_dtype dt) {
  return dt > TFS_DTYPE_REF_OFFSET ? (tfs_dtype)(dt - TFS_DTYPE_REF_OFFSET)
                                   : dt;
}

tfs_output tfs_gb_out(tfs_operation *op, int index) {
  if (!op) return TFS_GRAD_NONE;
  return (tfs_output){op, index};
}

tfs_dtype tfs_gb_dtype(tfs_output o) {
  return o.oper ? base_type(o.oper->out_types[o.index]) : TFS_INVALID;
}

const tfs_shape *tfs_gb_shape_of(tfs_output o) {
  return &o.oper->out_shapes[o.index];
}

tfs_output tfs_gb_in(const tfs_operation *op, int k) { return op->inputs[k]; }

tfs_op_desc *tfs_gb_desc(tfs_gctx *c, const char *type) {
  if (!tfs_gb_ok(c)) return NULL;
  tfs_op_desc *d = tfs_op_desc_new(c->g, type, NULL);
  if (!d) TFS_OOM(c->st);
  return d;
}

tfs_operation *tfs_gb_finish(tfs_gctx *c, tfs_op_desc *d) {
  if (!d) return NULL;
  if (!tfs_gb_ok(c)) {
    tfs_op_desc_free(d);
    return NULL;
  }
  return tfs_op_desc_finish(d, c->st);
}

tfs_output tfs_gb_unary(tfs_gctx *c, const char *type, tfs_output x) {
  tfs_op_desc *d = tfs_gb_desc(c, type);
  tfs_op_desc_add_input(d, x);
  return tfs_gb_out(tfs_gb_finish(c, d), 0);
}

tfs_output tfs_gb_binary(tfs_gctx *c, const char *type, tfs_output x,
                         tfs_output y) {
  tfs_op_desc *d = tfs_gb_desc(c, type);
  tfs_op_desc_add_input(d, x);
  tfs_op_desc_add_input(d, y);
  return tfs_gb_out(tfs_gb_finish(c, d), 0);
}

static tfs_output const_tensor(tfs_gctx *c, tfs_tensor *t) {
  if (!tfs_gb_ok(c)) {
    tfs_tensor_free(t);
    return TFS_GRAD_NONE;
  }
  if (!t) {
    TFS_OOM(c->st);
    return TFS_GRAD_NONE;
  }
  tfs_op_desc *d = tfs_gb_desc(c, "Const");
  tfs_op_desc_set_attr_tensor(d, "value", t, c->st);
  tfs_op_desc_set_attr_type(d, "dtype", tfs_tensor_dtype(t));
  tfs_tensor_free(t);
  return tfs_gb_out(tfs_gb_finish(c, d), 0);
}

/* Writes v as one element of dt at p; 0, or -1 for a dtype without a
 * numeric value. */
static int put_scalar(tfs_dtype dt, void *p, double v) {
  switch (dt) {
    case TFS_FLOAT: *(float *)p = (float)v; return 0;
    case TFS_DOUBLE: *(double *)p = v; return 0;
    case TFS_HALF: *(uint16_t *)p = tfs_float_to_half((float)v); return 0;
    case TFS_BFLOAT16: *(uint16_t *)p = tfs_float_to_bf16((float)v); return 0;
    case TFS_COMPLEX64: *(float complex *)p = (float)v; return 0;
    case TFS_COMPLEX128: *(double complex *)p = v; return 0;
    case TFS_INT32: *(int32_t *)p = (int32_t)v; return 0;
    case TFS_INT64: *(int64_t *)p = (int64_t)v; return 0;
    case TFS_INT16: *(int16_t *)p = (int16_t)v; return 0;
    case TFS_INT8: *(int8_t *)p = (int8_t)v; return 0;
    case TFS_UINT8: *(uint8_t *)p = (uint8_t)v; return 0;
    case TFS_UINT16: *(uint16_t *)p = (uint16_t)v; return 0;
    case TFS_UINT32: *(uint32_t *)p = (uint32_t)v; return 0;
    case TFS_UINT64: *(uint64_t *)p = (uint64_t)v; return 0;
    default: return -1;
  }
}

tfs_output tfs_gb_scalar(tfs_gctx *c, tfs_dtype dt, double v) {
  if (!tfs_gb_ok(c)) return TFS_GRAD_NONE;
  dt = base_type(dt);
  tfs_tensor *t = tfs_tensor_new(dt, NULL, 0, c->st);
  if (!t) return TFS_GRAD_NONE;
  if (put_scalar(dt, tfs_tensor_data(t), v)) {
    tfs_tensor_free(t);
    tfs_status_setf(c->st, TFS_INVALID_ARGUMENT,
                    "gradients: no numeric constant of dtype %s",
                    tfs_dtype_name(dt));
    return TFS_GRAD_NONE;
  }
  return const_tensor(c, t);
}

tfs_output tfs_gb_i32_vec(tfs_gctx *c, const int32_t *v, int n) {
  if (!tfs_gb_ok(c)) return TFS_GRAD_NONE;
  int64_t dims[1] = {n};
  tfs_tensor *t = tfs_tensor_new(TFS_INT32, dims, 1, c->st);
  if (!t) return TFS_GRAD_NONE;
  if (n) memcpy(tfs_tensor_data(t), v, (size_t)n * sizeof(int32_t));
  return const_tensor(c, t);
}

tfs_output tfs_gb_i32(tfs_gctx *c, int32_t v) {
  if (!tfs_gb_ok(c)) return TFS_GRAD_NONE;
  return const_tensor(c, tfs_tensor_scalar_int32(v));
}

static int shape_fully_known(const tfs_shape *s) {
  if (s->rank < 0) return 0;
  for (int i = 0; i < s->rank; i++)
    if (s->dims[i] < 0 || s->dims[i] > INT32_MAX) return 0;
  return 1;
}

tfs_output tfs_gb_shape(tfs_gctx *c, tfs_output x) {
  if (!tfs_gb_ok(c)) return TFS_GRAD_NONE;
  const tfs_shape *s = tfs_gb_shape_of(x);
  if (shape_fully_known(s)) {
    int32_t v[TFS_MAX_RANK];
    for (int i = 0; i < s->rank; i++) v[i] = (int32_t)s->dims[i];
    return tfs_gb_i32_vec(c, v, s->rank);
  }
  tfs_op_desc *d = tfs_gb_desc(c, "Shape");
  tfs_op_desc_add_input(d, x);
  tfs_op_desc_set_attr_type(d, "out_type", TFS_INT32);
  return tfs_gb_out(tfs_gb_finish(c, d), 0);
}

tfs_output tfs_gb_reshape(tfs_gctx *c, tfs_output x, tfs_output shape) {
  return tfs_gb_binary(c, "Reshape", x, shape);
}

tfs_output tfs_gb_reduce(tfs_gctx *c, const char *type, tfs_output x,
                         tfs_output axes, int keep_dims) {
  tfs_op_desc *d = tfs_gb_desc(c, type);
  tfs_op_desc_add_input(d, x);
  tfs_op_desc_add_input(d, axes);
  tfs_op_desc_set_attr_bool(d, "keep_dims", keep_dims != 0);
  return tfs_gb_out(tfs_gb_finish(c, d), 0);
}

tfs_output tfs_gb_sum(tfs_gctx *c, tfs_output x, tfs_output axes,
                      int keep_dims) {
  return tfs_gb_reduce(c, "Sum", x, axes, keep_dims);
}

tfs_output tfs_gb_cast(tfs_gctx *c, tfs_output x, tfs_dtype to) {
  if (!tfs_gb_ok(c)) return TFS_GRAD_NONE;
  if (tfs_gb_dtype(x) == base_type(to)) return x;
  tfs_op_desc *d = tfs_gb_desc(c, "Cast");
  tfs_op_desc_add_input(d, x);
  tfs_op_desc_set_attr_type(d, "DstT", base_type(to));
  return tfs_gb_out(tfs_gb_finish(c, d), 0);
}

tfs_output tfs_gb_transpose(tfs_gctx *c, tfs_output x, tfs_output perm) {
  return tfs_gb_binary(c, "Transpose", x, perm);
}

tfs_output tfs_gb_matmul(tfs_gctx *c, const char *type, tfs_output a,
                         tfs_output b, int adj_a, int adj_b) {
  tfs_op_desc *d = tfs_gb_desc(c, type);
  tfs_op_desc_add_input(d, a);
  tfs_op_desc_add_input(d, b);
  int batch = strcmp(type, "MatMul") != 0;
  tfs_op_desc_set_attr_bool(d, batch ? "adj_x" : "transpose_a", adj_a != 0);
  tfs_op_desc_set_attr_bool(d, batch ? "adj_y" : "transpose_b", adj_b != 0);
  return tfs_gb_out(tfs_gb_finish(c, d), 0);
}

tfs_output tfs_gb_addn(tfs_gctx *c, const tfs_output *xs, int n) {
  if (n == 1) return xs[0];
  tfs_op_desc *d = tfs_gb_desc(c, "AddN");
  tfs_op_desc_add_input_list(d, xs, n);
  return tfs_gb_out(tfs_gb_finish(c, d), 0);
}

tfs_output tfs_gb_fill(tfs_gctx *c, tfs_output dims, tfs_output value) {
  return tfs_gb_binary(c, "Fill", dims, value);
}

tfs_output tfs_gb_conj(tfs_gctx *c, tfs_output x) {
  tfs_dtype dt = tfs_gb_dtype(x);
  if (dt != TFS_COMPLEX64 && dt != TFS_COMPLEX128) return x;
  return tfs_gb_unary(c, "Conj", x);
}

static int same_static_shape(const tfs_shape *a, const tfs_shape *b) {
  if (!shape_fully_known(a) || !shape_fully_known(b) || a->rank != b->rank)
    return 0;
  for (int i = 0; i < a->rank; i++)
    if (a->dims[i] != b->dims[i]) return 0;
  return 1;
}

void tfs_gb_unbroadcast(tfs_gctx *c, tfs_output x, tfs_output y,
                        tfs_output gx, tfs_output gy, tfs_output *dx,
                        tfs_output *dy) {
  if (!tfs_gb_ok(c)) return;
  if (same_static_shape(tfs_gb_shape_of(x), tfs_gb_shape_of(y))) {
    if (dx) *dx = gx;
    if (dy) *dy = gy;
    return;
  }
  tfs_output sx = tfs_gb_shape(c, x), sy = tfs_gb_shape(c, y);
  tfs_op_desc *d = tfs_gb_desc(c, "BroadcastGradientArgs");
  tfs_op_desc_add_input(d, sx);
  tfs_op_desc_add_input(d, sy);
  tfs_operation *bga = tfs_gb_finish(c, d);
  if (dx && tfs_gb_valid(gx))
    *dx = tfs_gb_reshape(c, tfs_gb_sum(c, gx, tfs_gb_out(bga, 0), 0), sx);
  if (dy && tfs_gb_valid(gy))
    *dy = tfs_gb_reshape(c, tfs_gb_sum(c, gy, tfs_gb_out(bga, 1), 0), sy);
}

void tfs_gb_fail(tfs_gctx *c, const tfs_operation *op, tfs_code code,
                 const char *fmt, ...) {
  if (!tfs_gb_ok(c)) return;
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  tfs_status_setf(c->st, code, "%s gradient for node '%s': %s", op->def->name,
                  op->name, msg);
}
