/*
 * compat_eager/variables.c - resource variables of an eager context:
 * created with VarHandleOp + AssignVariableOp, read and updated through
 * the same op API in eager and tracing contexts (a trace captures the
 * handle).
 */
#include <stdlib.h>
#include <string.h>

#include "compat_eager/eager_internal.h"
#include "core/alloc.h"
#include "core/status.h"

struct tfs_var {
  tfs_ctx *ctx;
  tfs_value *handle; /* eager resource handle */
  tfs_dtype dtype;
  char *name;
};

tfs_var *tfs_var_new(tfs_ctx *eager, tfs_value *initial, const char *name,
                     tfs_status *st) {
  TFS_CHECK_ARG(eager != NULL && eager->kind == TFS_CTX_EAGER, st, NULL);
  if (!initial) return NULL;
  TFS_CHECK_ARG(initial->tensor != NULL, st, NULL);
  tfs_var *v = tfs_calloc(1, sizeof(*v));
  if (!v) {
    TFS_OOM(st);
    return NULL;
  }
  v->ctx = eager;
  v->dtype = initial->tensor->dtype;
  int64_t id = __atomic_fetch_add(&eager->next_var, 1, __ATOMIC_RELAXED);
  const char *base = name && *name ? name : "Variable";
  v->name = id ? tfs_asprintf("%s_%lld", base, (long long)id)
               : tfs_strdup(base);
  if (!v->name) {
    tfs_free(v);
    TFS_OOM(st);
    return NULL;
  }
  tfs_op_call *h = tfs_op_call_new(eager, "VarHandleOp", st);
  if (h) {
    tfs_op_call_set_attr_string(h, "shared_name", v->name, strlen(v->name));
    tfs_op_call_set_attr_type(h, "dtype", v->dtype);
    const tfs_shape *s = &initial->tensor->shape;
    tfs_op_call_set_attr_shape(h, "shape", s->dims, s->rank);
    int n = 0;
    tfs_op_call_execute(h, &v->handle, 1, &n, st);
    tfs_op_call_free(h);
  }
  if (!v->handle || tfs_var_assign(eager, v, initial, st)) {
    tfs_var_free(v);
    return NULL;
  }
  return v;
}

void tfs_var_free(tfs_var *v) {
  if (!v) return;
  tfs_value_free(v->handle);
  tfs_free(v->name);
  tfs_free(v);
}

const char *tfs_var_name(const tfs_var *v) { return v ? v->name : ""; }

tfs_value *tfs_var_read(tfs_ctx *c, tfs_var *v, tfs_status *st) {
  TFS_CHECK_ARG(c != NULL && v != NULL, st, NULL);
  tfs_op_call *call = tfs_op_call_new(c, "ReadVariableOp", st);
  if (!call) return NULL;
  tfs_op_call_add_input(call, v->handle, st);
  tfs_op_call_set_attr_type(call, "dtype", v->dtype);
  tfs_value *out = NULL;
  int n = 0;
  if (tfs_status_ok(st)) tfs_op_call_execute(call, &out, 1, &n, st);
  tfs_op_call_free(call);
  return out;
}

static int update(tfs_ctx *c, const char *type, tfs_var *v, tfs_value *x,
                  tfs_status *st) {
  TFS_CHECK_ARG(c != NULL && v != NULL, st, -1);
  if (!x) return -1;
  tfs_op_call *call = tfs_op_call_new(c, type, st);
  if (!call) return -1;
  tfs_op_call_add_input(call, v->handle, st);
  if (tfs_status_ok(st)) tfs_op_call_add_input(call, x, st);
  int n = 0, rc = -1;
  if (tfs_status_ok(st)) rc = tfs_op_call_execute(call, NULL, 0, &n, st);
  tfs_op_call_free(call);
  return rc;
}

int tfs_var_assign(tfs_ctx *c, tfs_var *v, tfs_value *value,
                   tfs_status *st) {
  return update(c, "AssignVariableOp", v, value, st);
}

int tfs_var_assign_add(tfs_ctx *c, tfs_var *v, tfs_value *delta,
                       tfs_status *st) {
  return update(c, "AssignAddVariableOp", v, delta, st);
}
