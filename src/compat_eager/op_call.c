/*
 * compat_eager/op_call.c - the generic op call (TensorFlow's TFE_Op): op
 * type, inputs, attrs with "first set wins" and type attrs inferred from
 * inputs, then execution in the context's mode.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compat_eager/eager_internal.h"
#include "core/alloc.h"
#include "core/status.h"

void tfs_op_call__init(tfs_op_call *call, tfs_ctx *c,
                       const tfs_op_def *def) {
  memset(call, 0, sizeof(*call));
  call->ctx = c;
  call->def = def;
  call->inputs = call->inline_inputs;
  call->inputs_cap = (int)TFS_ARRAY_LEN(call->inline_inputs);
}

void tfs_op_call__clear(tfs_op_call *call) {
  tfs_attrs_clear(&call->attrs);
  call->attr_code = TFS_OK;
  call->attr_error[0] = '\0';
  if (call->inputs != call->inline_inputs) tfs_free(call->inputs);
  tfs_free(call->device);
  call->inputs = call->inline_inputs;
  call->device = NULL;
}

tfs_op_call *tfs_op_call_new(tfs_ctx *c, const char *op_type,
                             tfs_status *st) {
  TFS_CHECK_ARG(c != NULL && op_type != NULL, st, NULL);
  const tfs_op_def *def = tfs_op_lookup(op_type);
  if (!def) {
    tfs_op_not_registered(op_type, st);
    return NULL;
  }
  tfs_op_call *call = tfs_malloc(sizeof(*call));
  if (!call) {
    TFS_OOM(st);
    return NULL;
  }
  tfs_op_call__init(call, c, def);
  tfs_status_clear(st);
  return call;
}

void tfs_op_call_free(tfs_op_call *call) {
  if (!call) return;
  tfs_op_call__clear(call);
  tfs_free(call);
}

/* Records the first failure of an attr setter for execute to report. */
static void attr_failed(tfs_op_call *call, tfs_code code, const char *fmt,
                        ...) TFS_PRINTF(3, 4);
static void attr_failed(tfs_op_call *call, tfs_code code, const char *fmt,
                        ...) {
  if (call->attr_code != TFS_OK) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(call->attr_error, sizeof call->attr_error, fmt, ap);
  va_end(ap);
  call->attr_code = code;
}

static void attr_oom(tfs_op_call *call, const char *name) {
  attr_failed(call, TFS_RESOURCE_EXHAUSTED,
              "Out of memory while setting attr '%s' of %s", name,
              call->def->name);
}

/* TensorFlow eager's AttrBuilder::Set: add if not present. */
static void set_first(tfs_op_call *call, const char *name,
                      tfs_attr_value *v) {
  if (tfs_attrs_find(&call->attrs, name)) {
    tfs_attr_value_clear(v);
    return;
  }
  if (tfs_attrs_set(&call->attrs, name, v)) attr_oom(call, name);
}

static int push(tfs_op_call *call, tfs_value *v, tfs_status *st) {
  if (call->ninputs == call->inputs_cap) {
    int nc = call->inputs_cap * 2;
    tfs_value **p = tfs_malloc(sizeof(void *) * (size_t)nc);
    if (!p) {
      TFS_OOM(st);
      return -1;
    }
    memcpy(p, call->inputs, sizeof(void *) * (size_t)call->ninputs);
    if (call->inputs != call->inline_inputs) tfs_free(call->inputs);
    call->inputs = p;
    call->inputs_cap = nc;
  }
  call->inputs[call->ninputs++] = v;
  return 0;
}

static const tfs_arg_def *next_arg(tfs_op_call *call, tfs_status *st) {
  if (call->args_given >= call->def->ninputs) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "%s takes %d inputs; more were given", call->def->name,
                    call->def->ninputs);
    return NULL;
  }
  return &call->def->inputs[call->args_given++];
}

void tfs_op_call_add_input(tfs_op_call *call, tfs_value *v, tfs_status *st) {
  TFS_CHECK_ARG(call != NULL && v != NULL, st, );
  const tfs_arg_def *arg = next_arg(call, st);
  if (!arg || push(call, v, st)) return;
  if (arg->type_attr && !arg->number_attr) {
    tfs_attr_value a;
    tfs_attr_type_val(&a, tfs_value_dtype(v));
    set_first(call, arg->type_attr, &a);
  }
  tfs_status_clear(st);
}

void tfs_op_call_add_input_list(tfs_op_call *call, tfs_value *const *vs,
                                int n, tfs_status *st) {
  TFS_CHECK_ARG(call != NULL && (n == 0 || vs != NULL), st, );
  const tfs_arg_def *arg = next_arg(call, st);
  if (!arg) return;
  for (int i = 0; i < n; i++) {
    TFS_CHECK_ARG(vs[i] != NULL, st, );
    if (push(call, vs[i], st)) return;
  }
  tfs_attr_value a;
  if (arg->number_attr) {
    tfs_attr_int(&a, n);
    set_first(call, arg->number_attr, &a);
    if (arg->type_attr && n > 0) {
      tfs_attr_type_val(&a, tfs_value_dtype(vs[0]));
      set_first(call, arg->type_attr, &a);
    }
  } else if (arg->type_list_attr) {
    tfs_dtype *types = tfs_malloc(sizeof(tfs_dtype) * (size_t)(n ? n : 1));
    if (!types) {
      TFS_OOM(st);
      return;
    }
    for (int i = 0; i < n; i++) types[i] = tfs_value_dtype(vs[i]);
    if (tfs_attr_list(&a, TFS_ATTR_TYPE, n, types) == 0)
      set_first(call, arg->type_list_attr, &a);
    else
      attr_oom(call, arg->type_list_attr);
    tfs_free(types);
  }
  tfs_status_clear(st);
}

void tfs_op_call_set_device(tfs_op_call *call, const char *device) {
  if (!call) return;
  tfs_free(call->device);
  call->device = device ? tfs_strdup(device) : NULL;
  if (device && !call->device)
    attr_failed(call, TFS_RESOURCE_EXHAUSTED,
                "Out of memory while setting the device of %s",
                call->def->name);
}

#define SCALAR_SETTER(fn, ctype, make)                                     \
  void fn(tfs_op_call *call, const char *name, ctype v) {                  \
    tfs_attr_value a;                                                      \
    if (!call || !name) return;                                            \
    make(&a, v);                                                           \
    set_first(call, name, &a);                                             \
  }
SCALAR_SETTER(tfs_op_call_set_attr_int, int64_t, tfs_attr_int)
SCALAR_SETTER(tfs_op_call_set_attr_float, float, tfs_attr_float)
SCALAR_SETTER(tfs_op_call_set_attr_bool, int, tfs_attr_bool)
SCALAR_SETTER(tfs_op_call_set_attr_type, tfs_dtype, tfs_attr_type_val)
#undef SCALAR_SETTER

void tfs_op_call_set_attr_string(tfs_op_call *call, const char *name,
                                 const void *v, size_t len) {
  tfs_attr_value a;
  if (!call || !name) return;
  if (tfs_attr_string(&a, v, len)) {
    attr_oom(call, name);
    return;
  }
  set_first(call, name, &a);
}

void tfs_op_call_set_attr_shape(tfs_op_call *call, const char *name,
                                const int64_t *dims, int ndims) {
  tfs_shape s;
  tfs_attr_value a;
  if (!call || !name) return;
  if (ndims > TFS_MAX_RANK) {
    attr_failed(call, TFS_INVALID_ARGUMENT,
                "Value specified for `%s` has %d dimensions which is over "
                "the limit of %d.",
                name, ndims, TFS_MAX_RANK);
    return;
  }
  s.rank = ndims < 0 ? -1 : ndims;
  for (int i = 0; i < ndims; i++) s.dims[i] = dims[i] < 0 ? -1 : dims[i];
  if (tfs_attr_shape(&a, &s)) {
    attr_oom(call, name);
    return;
  }
  set_first(call, name, &a);
}

void tfs_op_call_set_attr_tensor(tfs_op_call *call, const char *name,
                                 tfs_tensor *t) {
  tfs_attr_value a;
  if (!call || !name || !t) return;
  tfs_attr_tensor(&a, t);
  set_first(call, name, &a);
}

#define LIST_SETTER(fn, ctype, kind)                                       \
  void fn(tfs_op_call *call, const char *name, const ctype *v, int n) {    \
    tfs_attr_value a;                                                      \
    if (!call || !name) return;                                            \
    if (tfs_attr_list(&a, kind, n, v)) {                                   \
      attr_oom(call, name);                                                \
      return;                                                              \
    }                                                                      \
    set_first(call, name, &a);                                             \
  }
LIST_SETTER(tfs_op_call_set_attr_int_list, int64_t, TFS_ATTR_INT)
LIST_SETTER(tfs_op_call_set_attr_float_list, float, TFS_ATTR_FLOAT)
LIST_SETTER(tfs_op_call_set_attr_bool_list, unsigned char, TFS_ATTR_BOOL)
LIST_SETTER(tfs_op_call_set_attr_type_list, tfs_dtype, TFS_ATTR_TYPE)
#undef LIST_SETTER

void tfs_op_call_set_attr_string_list(tfs_op_call *call, const char *name,
                                      const void *const *v,
                                      const size_t *lens, int n) {
  if (!call || !name || n < 0) return;
  tfs_bytes *b = tfs_malloc(sizeof(tfs_bytes) * (size_t)(n ? n : 1));
  if (!b) {
    attr_oom(call, name);
    return;
  }
  for (int i = 0; i < n; i++) {
    b[i].ptr = (char *)v[i];
    b[i].len = lens[i];
  }
  tfs_attr_value a;
  if (tfs_attr_list(&a, TFS_ATTR_STRING, n, b) == 0)
    set_first(call, name, &a);
  else
    attr_oom(call, name);
  tfs_free(b);
}

void tfs_op_call_set_attr_shape_list(tfs_op_call *call, const char *name,
                                     const int64_t *const *dims,
                                     const int *ndims, int n) {
  if (!call || !name || n < 0) return;
  tfs_shape *s = tfs_malloc(sizeof(tfs_shape) * (size_t)(n ? n : 1));
  if (!s) {
    attr_oom(call, name);
    return;
  }
  for (int i = 0; i < n; i++) {
    if (ndims[i] > TFS_MAX_RANK) {
      attr_failed(call, TFS_INVALID_ARGUMENT,
                  "Value specified for `%s` has %d dimensions which is "
                  "over the limit of %d.",
                  name, ndims[i], TFS_MAX_RANK);
      tfs_free(s);
      return;
    }
    s[i].rank = ndims[i] < 0 ? -1 : ndims[i];
    for (int k = 0; k < ndims[i]; k++)
      s[i].dims[k] = dims[i][k] < 0 ? -1 : dims[i][k];
  }
  tfs_attr_value a;
  if (tfs_attr_list(&a, TFS_ATTR_SHAPE, n, s) == 0)
    set_first(call, name, &a);
  else
    attr_oom(call, name);
  tfs_free(s);
}

void tfs_op_call_set_attr_func_name(tfs_op_call *call, const char *name,
                                    const char *fn, size_t len) {
  tfs_attr_value a;
  if (!call || !name) return;
  if (tfs_attr_func(&a, fn, len)) {
    attr_oom(call, name);
    return;
  }
  set_first(call, name, &a);
}

/* ---- execution ----------------------------------------------------------- */

static int fill_defaults(tfs_op_call *call, tfs_status *st) {
  if (call->defaults_filled) return 0;
  if (tfs_graph__add_defaults(call->def, &call->attrs)) {
    TFS_OOM(st);
    return -1;
  }
  call->defaults_filled = 1;
  return 0;
}

/* Checks inputs against the op's signature (attrs complete), with
 * TensorFlow eager's message for a dtype mismatch; returns the number of
 * outputs, or -1. */
static int check_inputs(tfs_op_call *call, tfs_status *st) {
  if (call->args_given < call->def->ninputs) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "%s expects %d inputs, got %d", call->def->name,
                    call->def->ninputs, call->args_given);
    return -1;
  }
  tfs_arg_layout l;
  if (tfs_graph__arg_layout(call->def, &call->attrs, call->def->name, &l, st))
    return -1;
  int nout = l.noutputs;
  if (l.ninputs != call->ninputs) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "%s expects %d input tensors, got %d", call->def->name,
                    l.ninputs, call->ninputs);
    nout = -1;
  }
  for (int i = 0; nout >= 0 && i < call->ninputs; i++) {
    tfs_dtype want = tfs_dtype_base(l.in_types[i]);
    tfs_dtype got = tfs_value_dtype(call->inputs[i]);
    if (want != got) {
      tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                      "cannot compute %s as input #%d(zero-based) was "
                      "expected to be a %s tensor but is a %s tensor",
                      call->def->name, i, tfs_dtype_name(want),
                      tfs_dtype_name(got));
      nout = -1;
    }
  }
  tfs_arg_layout_clear(&l);
  return nout;
}

int tfs_op_call_num_outputs(tfs_op_call *call, tfs_status *st) {
  TFS_CHECK_ARG(call != NULL, st, -1);
  tfs_attrs copy;
  if (tfs_attrs_copy(&copy, &call->attrs)) {
    TFS_OOM(st);
    return -1;
  }
  tfs_arg_layout l;
  int n = -1;
  if (tfs_graph__add_defaults(call->def, &copy) == 0 &&
      tfs_graph__arg_layout(call->def, &copy, call->def->name, &l, st) == 0) {
    n = l.noutputs;
    tfs_arg_layout_clear(&l);
    tfs_status_clear(st);
  }
  tfs_attrs_clear(&copy);
  return n;
}

static int execute_eager(tfs_op_call *call, tfs_value **outputs, int max,
                         int *n_out, tfs_status *st) {
  tfs_tensor *in_stack[8], *out_stack[TFS_EAGER_OUT_STACK];
  int ni = call->ninputs;
  tfs_tensor **ins = ni <= 8 ? in_stack : tfs_malloc(sizeof(void *) * (size_t)ni);
  tfs_tensor **outs = out_stack;
  int nout = 0, rc = -1;
  if (!ins) {
    TFS_OOM(st);
    return -1;
  }
  for (int i = 0; i < ni; i++) {
    tfs_value *v = call->inputs[i];
    if (!v->tensor) {
      tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                      "cannot compute %s as input #%d(zero-based) is a "
                      "symbolic tensor of a graph or traced function, not an "
                      "eager tensor", call->def->name, i);
      goto done;
    }
    ins[i] = v->tensor;
  }
  if (tfs_eager__execute(call, ins, check_inputs, &outs, &nout, st)) {
    nout = 0;
    goto done;
  }
  if (nout > max) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "%s has %d outputs but room for only %d was given",
                    call->def->name, nout, max);
    goto done;
  }
  int made = 0;
  for (; made < nout; made++) {
    outputs[made] = tfs_eager__value_take(call->ctx, outs[made], st);
    outs[made] = NULL;
    if (!outputs[made]) break;
  }
  if (made < nout) {
    for (int i = 0; i < made; i++) tfs_value_free(outputs[i]);
    goto done;
  }
  *n_out = nout;
  rc = 0;
done:
  for (int i = 0; outs && i < nout; i++) tfs_tensor_free(outs[i]);
  if (outs != out_stack) tfs_free(outs);
  if (ins != in_stack) tfs_free(ins);
  return rc;
}

int tfs_op_call_execute(tfs_op_call *call, tfs_value **outputs, int max,
                        int *n_out, tfs_status *st) {
  TFS_CHECK_ARG(call != NULL && n_out != NULL, st, -1);
  if (call->attr_code != TFS_OK) {
    tfs_status_set(st, call->attr_code, call->attr_error);
    return -1;
  }
  if (fill_defaults(call, st)) return -1;
  if (call->ctx->kind == TFS_CTX_EAGER) {
    if (execute_eager(call, outputs, max, n_out, st)) return -1;
    tfs_status_clear(st);
    return 0;
  }
  int nout = check_inputs(call, st);
  if (nout < 0) return -1;
  if (nout > max) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "%s has %d outputs but room for only %d was given",
                    call->def->name, nout, max);
    return -1;
  }
  if (tfs_eager__add_node(call, outputs, nout, st)) return -1;
  *n_out = nout;
  tfs_status_clear(st);
  return 0;
}
