/*
 * compat_eager/typed_ops.c - typed op functions over the generic op call,
 * the same in eager, graph and tracing contexts, plus tf.print and assert.
 */
#include <stdlib.h>
#include <string.h>

#include "compat_eager/eager_internal.h"
#include "core/alloc.h"
#include "core/status.h"
#include "core/strbuf.h"

/* Runs `call` expecting one output; frees the call. */
static tfs_value *finish1(tfs_op_call *call, tfs_status *st) {
  tfs_value *out = NULL;
  int n = 0;
  if (call && tfs_op_call_execute(call, &out, 1, &n, st) == 0 && n != 1) {
    tfs_value_free(out);
    out = NULL;
    tfs_status_setf(st, TFS_INTERNAL, "expected one output");
  }
  tfs_op_call_free(call);
  return out;
}

/* Runs `call` expecting no output; frees the call. */
static int finish0(tfs_op_call *call, tfs_status *st) {
  int n = 0;
  int rc = call ? tfs_op_call_execute(call, NULL, 0, &n, st) : -1;
  tfs_op_call_free(call);
  return rc;
}

/* Runs a one-output call that lives on the caller's stack; clears it. */
static tfs_value *finish1_stack(tfs_op_call *call, tfs_status *st) {
  tfs_value *out = NULL;
  int n = 0;
  if (tfs_status_ok(st) &&
      tfs_op_call_execute(call, &out, 1, &n, st) == 0 && n != 1) {
    tfs_value_free(out);
    out = NULL;
    tfs_status_setf(st, TFS_INTERNAL, "expected one output");
  }
  tfs_op_call__clear(call);
  return out;
}

/* The elementwise fast path: the call on the stack (no allocation for
 * the call itself). */
static tfs_value *call_n(tfs_ctx *c, const char *op_type, tfs_value *x,
                         tfs_value *y, tfs_status *st) {
  TFS_CHECK_ARG(c != NULL && op_type != NULL, st, NULL);
  const tfs_op_def *def = tfs_op_lookup(op_type);
  if (!def) {
    tfs_op_not_registered(op_type, st);
    return NULL;
  }
  unsigned char key[TFS_EAGER_FAST_MAX];
  size_t klen = 0;
  if (c->kind == TFS_CTX_EAGER && x->tensor && (!y || y->tensor)) {
    tfs_tensor *in[2] = {x->tensor, y ? y->tensor : NULL};
    klen = tfs_eager__fast_key(def, in, y ? 2 : 1, key);
    tfs_eager_entry *e = klen ? tfs_eager__fast_get(c, key, klen) : NULL;
    if (e && e->noutputs == 1) {
      tfs_tensor *out = NULL;
      tfs_status_clear(st);
      tfs_eager__run_plan(c->session, e->plan, in, &out, st);
      return out ? tfs_eager__value_take(c, out, st) : NULL;
    }
  }
  tfs_op_call call;
  tfs_op_call__init(&call, c, def);
  call.fast_key = klen ? key : NULL;
  call.fast_len = klen;
  tfs_status_clear(st);
  tfs_op_call_add_input(&call, x, st);
  if (y && tfs_status_ok(st)) tfs_op_call_add_input(&call, y, st);
  return finish1_stack(&call, st);
}

tfs_value *tfs_unary(tfs_ctx *c, const char *op_type, tfs_value *x,
                     tfs_status *st) {
  if (!x) return NULL;
  return call_n(c, op_type, x, NULL, st);
}

tfs_value *tfs_binary(tfs_ctx *c, const char *op_type, tfs_value *x,
                      tfs_value *y, tfs_status *st) {
  if (!x || !y) return NULL;
  return call_n(c, op_type, x, y, st);
}

#define BINARY(fn, type)                                                  \
  tfs_value *fn(tfs_ctx *c, tfs_value *x, tfs_value *y, tfs_status *st) {  \
    return tfs_binary(c, type, x, y, st);                                 \
  }
BINARY(tfs_add, "AddV2")
BINARY(tfs_sub, "Sub")
BINARY(tfs_mul, "Mul")
BINARY(tfs_div, "RealDiv")
BINARY(tfs_maximum, "Maximum")
BINARY(tfs_minimum, "Minimum")
BINARY(tfs_pow, "Pow")
BINARY(tfs_bias_add, "BiasAdd")
#undef BINARY

#define UNARY(fn, type)                                                   \
  tfs_value *fn(tfs_ctx *c, tfs_value *x, tfs_status *st) {               \
    return tfs_unary(c, type, x, st);                                     \
  }
UNARY(tfs_relu, "Relu")
UNARY(tfs_tanh, "Tanh")
UNARY(tfs_sigmoid, "Sigmoid")
UNARY(tfs_softmax, "Softmax")
UNARY(tfs_identity, "Identity")
#undef UNARY

tfs_value *tfs_matmul(tfs_ctx *c, tfs_value *a, tfs_value *b,
                      int transpose_a, int transpose_b, tfs_status *st) {
  if (!a || !b) return NULL;
  tfs_op_call *call = tfs_op_call_new(c, "MatMul", st);
  if (!call) return NULL;
  tfs_op_call_add_input(call, a, st);
  if (tfs_status_ok(st)) tfs_op_call_add_input(call, b, st);
  tfs_op_call_set_attr_bool(call, "transpose_a", transpose_a);
  tfs_op_call_set_attr_bool(call, "transpose_b", transpose_b);
  if (!tfs_status_ok(st)) {
    tfs_op_call_free(call);
    return NULL;
  }
  return finish1(call, st);
}

/* A small constant value in context c (int32 or int64 vector). */
static tfs_value *vec_const(tfs_ctx *c, tfs_dtype dt, const void *data,
                            int n, tfs_status *st) {
  int64_t d[1] = {n};
  tfs_tensor *t = tfs_tensor_new_copy(dt, d, 1, data,
                                      (size_t)n * tfs_dtype_size(dt), st);
  if (!t) return NULL;
  tfs_value *v = tfs_value_new(c, t, st);
  tfs_tensor_free(t);
  return v;
}

static tfs_value *reduce(tfs_ctx *c, const char *type, tfs_value *x,
                         const int32_t *axes, int naxes, int keep,
                         tfs_status *st) {
  if (!x) return NULL;
  tfs_value *ax = vec_const(c, TFS_INT32, axes, naxes, st);
  if (!ax) return NULL;
  tfs_op_call *call = tfs_op_call_new(c, type, st);
  tfs_value *r = NULL;
  if (call) {
    tfs_op_call_add_input(call, x, st);
    if (tfs_status_ok(st)) tfs_op_call_add_input(call, ax, st);
    tfs_op_call_set_attr_bool(call, "keep_dims", keep);
    if (tfs_status_ok(st))
      r = finish1(call, st);
    else
      tfs_op_call_free(call);
  }
  tfs_value_free(ax);
  return r;
}

tfs_value *tfs_reduce_sum(tfs_ctx *c, tfs_value *x, const int32_t *axes,
                          int naxes, int keep_dims, tfs_status *st) {
  return reduce(c, "Sum", x, axes, naxes, keep_dims, st);
}

tfs_value *tfs_reduce_mean(tfs_ctx *c, tfs_value *x, const int32_t *axes,
                           int naxes, int keep_dims, tfs_status *st) {
  return reduce(c, "Mean", x, axes, naxes, keep_dims, st);
}

tfs_value *tfs_reshape(tfs_ctx *c, tfs_value *x, const int64_t *shape,
                       int n, tfs_status *st) {
  if (!x) return NULL;
  tfs_value *sh = vec_const(c, TFS_INT64, shape, n, st);
  tfs_value *r = sh ? tfs_binary(c, "Reshape", x, sh, st) : NULL;
  tfs_value_free(sh);
  return r;
}

tfs_value *tfs_cast(tfs_ctx *c, tfs_value *x, tfs_dtype dst,
                    tfs_status *st) {
  if (!x) return NULL;
  tfs_op_call *call = tfs_op_call_new(c, "Cast", st);
  if (!call) return NULL;
  tfs_op_call_add_input(call, x, st);
  tfs_op_call_set_attr_type(call, "DstT", dst);
  if (!tfs_status_ok(st)) {
    tfs_op_call_free(call);
    return NULL;
  }
  return finish1(call, st);
}

int tfs_print(tfs_ctx *c, tfs_value *const *values, int n, tfs_status *st) {
  TFS_CHECK_ARG(c != NULL && n >= 0 && (n == 0 || values != NULL), st, -1);
  for (int i = 0; i < n; i++)
    if (!values[i]) return -1;
  /* tf.print: StringFormat("{} {} ...") then PrintV2 to stderr */
  tfs_strbuf tb = TFS_STRBUF_INIT;
  for (int i = 0; i < n; i++) tfs_strbuf_puts(&tb, i ? " {}" : "{}");
  char *tmpl = tfs_strbuf_take(&tb);
  if (!tmpl) {
    TFS_OOM(st);
    return -1;
  }
  tfs_op_call *fmt = tfs_op_call_new(c, "StringFormat", st);
  tfs_value *text = NULL;
  if (fmt) {
    tfs_op_call_add_input_list(fmt, values, n, st);
    tfs_op_call_set_attr_string(fmt, "template", tmpl, strlen(tmpl));
    tfs_op_call_set_attr_string(fmt, "placeholder", "{}", 2);
    tfs_op_call_set_attr_int(fmt, "summarize", 3);
    if (tfs_status_ok(st))
      text = finish1(fmt, st);
    else
      tfs_op_call_free(fmt);
  }
  tfs_free(tmpl);
  if (!text) return -1;
  tfs_op_call *pr = tfs_op_call_new(c, "PrintV2", st);
  int rc = -1;
  if (pr) {
    tfs_op_call_add_input(pr, text, st);
    tfs_op_call_set_attr_string(pr, "output_stream", "stderr", 6);
    tfs_op_call_set_attr_string(pr, "end", "\n", 1);
    if (tfs_status_ok(st))
      rc = finish0(pr, st);
    else
      tfs_op_call_free(pr);
  }
  tfs_value_free(text);
  return rc;
}

int tfs_assert(tfs_ctx *c, tfs_value *condition, const char *message,
               tfs_value *const *data, int ndata, tfs_status *st) {
  TFS_CHECK_ARG(c != NULL && ndata >= 0, st, -1);
  if (!condition) return -1;
  for (int i = 0; i < ndata; i++)
    if (!data[i]) return -1;
  tfs_tensor *m = tfs_tensor_scalar_string(message ? message : "",
                                           message ? strlen(message) : 0);
  if (!m) {
    TFS_OOM(st);
    return -1;
  }
  tfs_value *mv = tfs_value_new(c, m, st);
  tfs_tensor_free(m);
  if (!mv) return -1;
  tfs_value **all = tfs_malloc(sizeof(void *) * (size_t)(ndata + 1));
  if (!all) {
    tfs_value_free(mv);
    TFS_OOM(st);
    return -1;
  }
  all[0] = mv;
  for (int i = 0; i < ndata; i++) all[i + 1] = data[i];
  tfs_op_call *call = tfs_op_call_new(c, "Assert", st);
  int rc = -1;
  if (call) {
    tfs_op_call_add_input(call, condition, st);
    if (tfs_status_ok(st)) tfs_op_call_add_input_list(call, all, ndata + 1, st);
    if (tfs_status_ok(st))
      rc = finish0(call, st);
    else
      tfs_op_call_free(call);
  }
  tfs_free(all);
  tfs_value_free(mv);
  return rc;
}
