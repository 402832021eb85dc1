/*
 * backends/cpu/state.c - variables.  TF1 ref variables (VariableV2 outputs a
 * reference that Assign/AssignAdd/AssignSub update) and resource variables
 * (VarHandleOp outputs a handle that ReadVariableOp/AssignVariableOp use).
 * Values live in the session's resource manager; a value tensor is never
 * modified once readers may hold it (copy on write).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "backends/cpu/cpu_tables.h"
#include "backends/cpu/elementwise.h"

#define DEFAULT_CONTAINER "localhost"

typedef struct {
  char *container;
  char *name;
  tfs_dtype dtype;
  tfs_shape shape;
} var_state;

static void var_release(void *p) {
  var_state *s = p;
  if (!s) return;
  tfs_free(s->container);
  tfs_free(s->name);
  tfs_free(s);
}

/* container/shared_name attrs, defaulting to "localhost" and the node
 * name as TensorFlow's ContainerInfo does. */
static int var_prepare(tfs_kernel_init *ki) {
  var_state *s = tfs_calloc(1, sizeof(*s));
  if (!s) return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  size_t len;
  const char *container = tfs_attrs_get_string(ki->attrs, "container", &len);
  const char *shared = tfs_attrs_get_string(ki->attrs, "shared_name", &len);
  s->container = tfs_strdup(container && *container ? container
                                                     : DEFAULT_CONTAINER);
  s->name = tfs_strdup(shared && *shared ? shared : ki->node_name);
  tfs_attrs_get_type(ki->attrs, "dtype", &s->dtype);
  const tfs_shape *sh = tfs_attrs_get_shape(ki->attrs, "shape");
  if (sh)
    s->shape = *sh;
  else
    s->shape.rank = -1;
  ki->state = s;
  if (!s->container || !s->name) {
    var_release(s);
    ki->state = NULL;
    return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  }
  return 0;
}

/* ---- TF1 ref variables ------------------------------------------------------ */

static void variable_v2_compute(tfs_kernel_ctx *c) {
  var_state *s = c->state;
  tfs_variable *v = tfs_resource_mgr_find_or_create(
      tfs_kctx_resources(c), s->container, s->name, TFS_VAR_REF, s->dtype,
      &s->shape, c->st);
  if (!v) {
    tfs_kctx_fail_status(c, c->st);
    return;
  }
  tfs_kctx_set_ref_output(c, 0, v);
}

static void is_initialized_compute(tfs_kernel_ctx *c) {
  tfs_variable *v = tfs_kctx_input_ref(c, 0);
  tfs_shape s;
  tfs_shape_scalar(&s);
  tfs_tensor *o = tfs_kctx_alloc_output(c, 0, &s);
  if (!o) return;
  tfs_tensor *val = v ? tfs_variable_read(v) : NULL;
  *(uint8_t *)o->data = val != NULL;
  tfs_tensor_free(val);
}

static void assign_compute(tfs_kernel_ctx *c) {
  tfs_variable *v = tfs_kctx_input_ref(c, 0);
  const tfs_tensor *rhs = c->inputs[1];
  int validate = (int)(intptr_t)c->state;
  if (!v) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "Assign needs a ref input");
    return;
  }
  tfs_tensor *old = tfs_variable_read(v);
  if (old && validate && !tfs_shape_equal(&old->shape, &rhs->shape)) {
    char a[TFS_SHAPE_STRLEN], b[TFS_SHAPE_STRLEN];
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Assign requires shapes of both tensors to match. lhs "
                  "shape= %s rhs shape= %s",
                  tfs_shape_str(&old->shape, a, sizeof a),
                  tfs_shape_str(&rhs->shape, b, sizeof b));
    tfs_tensor_free(old);
    return;
  }
  tfs_tensor_free(old);
  tfs_tensor *copy = tfs_tensor__copy(rhs, c->st);
  if (!copy) {
    tfs_kctx_fail_status(c, c->st);
    return;
  }
  tfs_variable_write(v, copy);
  tfs_kctx_set_ref_output(c, 0, v);
}

static int assign_prepare(tfs_kernel_init *ki) {
  int validate = 1;
  tfs_attrs_get_bool(ki->attrs, "validate_shape", &validate);
  ki->state = (void *)(intptr_t)validate;
  return 0;
}

/* value = value (op) delta, element by element, same shape.  Uses the
 * binary elementwise loops through a tiny table per op. */
typedef int (*upd_fn)(tfs_tensor *dst, const tfs_tensor *a,
                      const tfs_tensor *b);

#define UPD_CASE(DT, T, U, OP)                                            \
  case DT: {                                                              \
    const T *x = a->data, *y = b->data;                                   \
    T *o = dst->data;                                                     \
    for (int64_t i = 0; i < n; i++) o[i] = (T)((U)x[i] OP(U) y[i]);       \
    return 0;                                                             \
  }
#define UPD_F16(DT, TO, FROM, OP)                                         \
  case DT: {                                                              \
    const uint16_t *x = a->data, *y = b->data;                            \
    uint16_t *o = dst->data;                                              \
    for (int64_t i = 0; i < n; i++) o[i] = FROM(TO(x[i]) OP TO(y[i]));    \
    return 0;                                                             \
  }
#define UPDATE_FN(NAME, OP)                                                 \
  static int NAME(tfs_tensor *dst, const tfs_tensor *a,                     \
                  const tfs_tensor *b) {                                    \
    int64_t n = a->nelems;                                                  \
    switch (a->dtype) {                                                     \
      UPD_CASE(TFS_FLOAT, float, float, OP)                                 \
      UPD_CASE(TFS_DOUBLE, double, double, OP)                              \
      UPD_CASE(TFS_INT8, int8_t, uint8_t, OP)                               \
      UPD_CASE(TFS_INT16, int16_t, uint16_t, OP)                            \
      UPD_CASE(TFS_INT32, int32_t, uint32_t, OP)                            \
      UPD_CASE(TFS_INT64, int64_t, uint64_t, OP)                            \
      UPD_CASE(TFS_UINT8, uint8_t, uint8_t, OP)                             \
      UPD_CASE(TFS_UINT16, uint16_t, uint16_t, OP)                          \
      UPD_CASE(TFS_UINT32, uint32_t, uint32_t, OP)                          \
      UPD_CASE(TFS_UINT64, uint64_t, uint64_t, OP)                          \
      UPD_F16(TFS_HALF, tfs_half_to_float, tfs_float_to_half, OP)           \
      UPD_F16(TFS_BFLOAT16, tfs_bf16_to_float, tfs_float_to_bf16, OP)       \
      default:                                                              \
        return -1;                                                          \
    }                                                                       \
  }
UPDATE_FN(upd_add, +)
UPDATE_FN(upd_sub, -)

/* new value = old (op) delta; shared by ref and resource variables.
 * `what` names the variable in messages. */
static void apply_update(tfs_kernel_ctx *c, tfs_variable *v,
                         const tfs_tensor *delta, upd_fn fn) {
  pthread_mutex_lock(&v->mu);
  tfs_tensor *old = v->value;
  if (!old) {
    pthread_mutex_unlock(&v->mu);
    tfs_kctx_fail(c, TFS_FAILED_PRECONDITION,
                  "Attempting to use uninitialized value %s", v->name);
    return;
  }
  if (!tfs_shape_equal(&old->shape, &delta->shape) ||
      old->dtype != delta->dtype) {
    char a[TFS_SHAPE_STRLEN], b[TFS_SHAPE_STRLEN];
    pthread_mutex_unlock(&v->mu);
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Cannot update variable with shape %s using a Tensor with "
                  "shape %s, shapes must be equal.",
                  tfs_shape_str(&old->shape, a, sizeof a),
                  tfs_shape_str(&delta->shape, b, sizeof b));
    return;
  }
  /* write in place when nobody else holds the value, else copy */
  tfs_tensor *dst = old;
  if (!tfs_tensor__is_exclusive(old)) {
    dst = tfs_tensor__alloc(old->dtype, &old->shape, c->st);
    if (!dst) {
      pthread_mutex_unlock(&v->mu);
      tfs_kctx_fail_status(c, c->st);
      return;
    }
  }
  if (fn(dst, old, delta)) {
    if (dst != old) tfs_tensor_free(dst);
    pthread_mutex_unlock(&v->mu);
    tfs_kctx_fail(c, TFS_UNIMPLEMENTED, "update of %s variables",
                  tfs_dtype_name(old->dtype));
    return;
  }
  if (dst != old) {
    v->value = dst;
    tfs_tensor_free(old);
  }
  pthread_mutex_unlock(&v->mu);
}

static void assign_add_compute(tfs_kernel_ctx *c) {
  tfs_variable *v = tfs_kctx_input_ref(c, 0);
  if (!v) return;
  apply_update(c, v, c->inputs[1], upd_add);
  if (!c->failed) tfs_kctx_set_ref_output(c, 0, v);
}

static void assign_sub_compute(tfs_kernel_ctx *c) {
  tfs_variable *v = tfs_kctx_input_ref(c, 0);
  if (!v) return;
  apply_update(c, v, c->inputs[1], upd_sub);
  if (!c->failed) tfs_kctx_set_ref_output(c, 0, v);
}

/* ---- resource variables -------------------------------------------------- */

static void var_handle_compute(tfs_kernel_ctx *c) {
  var_state *s = c->state;
  tfs_resource_handle *h = tfs_resource_handle_new(s->container, s->name,
                                                   "Var", s->dtype, &s->shape);
  tfs_tensor *t = h ? tfs_tensor__resource(h, c->st) : NULL;
  if (!t) {
    tfs_kctx_fail(c, TFS_RESOURCE_EXHAUSTED, "out of memory");
    return;
  }
  tfs_kctx_set_output(c, 0, t);
}

static const tfs_resource_handle *handle_of(tfs_kernel_ctx *c) {
  const tfs_tensor *t = c->inputs[0];
  if (t->dtype != TFS_RESOURCE || t->nelems != 1 || !tfs_tensor__handle(t, 0)) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Expected a scalar resource handle");
    return NULL;
  }
  return tfs_tensor__handle(t, 0);
}

/* The resource manager's lookup error for a missing variable, in
 * TensorFlow's words: either its whole container or only the variable is
 * missing. */
static void missing_resource(tfs_kernel_ctx *c, const tfs_resource_handle *h,
                             char *buf, size_t len) {
  if (tfs_resource_mgr_has_container(tfs_kctx_resources(c), h->container))
    snprintf(buf, len, "Resource %s/%s/N10tensorflow3VarE does not exist.",
             h->container, h->name);
  else
    snprintf(buf, len,
             "Container %s does not exist. (Could not find resource: %s/%s)",
             h->container, h->container, h->name);
}

/* ReadVariableOp of a variable never assigned (TensorFlow 2.21's text). */
static void missing_var_read(tfs_kernel_ctx *c, const tfs_resource_handle *h) {
  char why[512];
  missing_resource(c, h, why, sizeof why);
  tfs_kctx_fail(c, TFS_FAILED_PRECONDITION,
                "Could not find variable %s. This could mean that the "
                "variable has been deleted. In TF1, it can also mean the "
                "variable is uninitialized. Debug info: container=%s, "
                "status error message=%s",
                h->name, h->container, why);
}

/* AssignAdd/AssignSubVariableOp of a variable never assigned: the
 * lookup's NOT_FOUND as it is. */
static void missing_var_update(tfs_kernel_ctx *c,
                               const tfs_resource_handle *h) {
  char why[512];
  missing_resource(c, h, why, sizeof why);
  tfs_kctx_fail(c, TFS_NOT_FOUND, "%s", why);
}

static void read_variable_compute(tfs_kernel_ctx *c) {
  const tfs_resource_handle *h = handle_of(c);
  if (!h) return;
  tfs_variable *v = tfs_resource_mgr_find(tfs_kctx_resources(c),
                                          h->container, h->name,
                                          TFS_VAR_RESOURCE);
  tfs_tensor *val = v ? tfs_variable_read(v) : NULL;
  if (!val) {
    missing_var_read(c, h);
    return;
  }
  if (val->dtype != c->out_types[0]) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Trying to read variable with wrong dtype. Expected %s "
                  "got %s", tfs_dtype_name(val->dtype),
                  tfs_dtype_name(c->out_types[0]));
    tfs_tensor_free(val);
    return;
  }
  tfs_kctx_set_output(c, 0, val);
}

/* DisableCopyOnRead: TensorFlow takes a variable out of copy-on-read mode
 * (the saver does before reading it); tfsess's values are always
 * copy-on-write, so this only checks the variable exists. */
static void disable_copy_on_read_compute(tfs_kernel_ctx *c) {
  const tfs_resource_handle *h = handle_of(c);
  if (!h) return;
  tfs_variable *v = tfs_resource_mgr_find(tfs_kctx_resources(c),
                                          h->container, h->name,
                                          TFS_VAR_RESOURCE);
  tfs_tensor *val = v ? tfs_variable_read(v) : NULL;
  if (!val) missing_var_update(c, h); /* LookupResource's NOT_FOUND */
  tfs_tensor_free(val);
}

static void assign_variable_compute(tfs_kernel_ctx *c) {
  const tfs_resource_handle *h = handle_of(c);
  if (!h) return;
  const tfs_tensor *value = c->inputs[1];
  tfs_variable *v = tfs_resource_mgr_find_or_create(
      tfs_kctx_resources(c), h->container, h->name, TFS_VAR_RESOURCE,
      value->dtype, &value->shape, c->st);
  if (!v) {
    tfs_kctx_fail_status(c, c->st);
    return;
  }
  if (v->dtype != value->dtype) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Trying to assign variable with wrong dtype. Expected %s "
                  "got %s", tfs_dtype_name(v->dtype),
                  tfs_dtype_name(value->dtype));
    return;
  }
  /* the value itself when this is its last use (a restored tensor), as
   * TensorFlow's AssignVariableOp forwards its input; else a copy */
  tfs_tensor *t = tfs_kctx_take_input(c, 1);
  if (!t && !(t = tfs_tensor__copy(value, c->st))) {
    tfs_kctx_fail_status(c, c->st);
    return;
  }
  tfs_variable_write(v, t);
}

static void resource_update(tfs_kernel_ctx *c, upd_fn fn) {
  const tfs_resource_handle *h = handle_of(c);
  if (!h) return;
  tfs_variable *v = tfs_resource_mgr_find(tfs_kctx_resources(c),
                                          h->container, h->name,
                                          TFS_VAR_RESOURCE);
  if (!v) {
    missing_var_update(c, h);
    return;
  }
  apply_update(c, v, c->inputs[1], fn);
}

static void assign_add_variable_compute(tfs_kernel_ctx *c) {
  resource_update(c, upd_add);
}

static void assign_sub_variable_compute(tfs_kernel_ctx *c) {
  resource_update(c, upd_sub);
}

static void var_is_initialized_compute(tfs_kernel_ctx *c) {
  const tfs_resource_handle *h = handle_of(c);
  if (!h) return;
  tfs_shape s;
  tfs_shape_scalar(&s);
  tfs_tensor *o = tfs_kctx_alloc_output(c, 0, &s);
  if (!o) return;
  tfs_variable *v = tfs_resource_mgr_find(tfs_kctx_resources(c),
                                          h->container, h->name,
                                          TFS_VAR_RESOURCE);
  tfs_tensor *val = v ? tfs_variable_read(v) : NULL;
  *(uint8_t *)o->data = val != NULL;
  tfs_tensor_free(val);
}

#define ANY NULL, 0
const tfs_kernel_def tfs_cpu_kernels_state[] = {
    {"VariableV2", "CPU", ANY, var_prepare, variable_v2_compute, var_release,
     0, NULL},
    {"IsVariableInitialized", "CPU", ANY, NULL, is_initialized_compute, NULL,
     0, NULL},
    {"Assign", "CPU", ANY, assign_prepare, assign_compute, NULL, 0, NULL},
    {"AssignAdd", "CPU", "T", TFS_DT_REAL, NULL, assign_add_compute, NULL, 0,
     NULL},
    {"AssignSub", "CPU", "T", TFS_DT_REAL, NULL, assign_sub_compute, NULL, 0,
     NULL},
    {"VarHandleOp", "CPU", ANY, var_prepare, var_handle_compute, var_release,
     0, NULL},
    {"ReadVariableOp", "CPU", ANY, NULL, read_variable_compute, NULL, 0,
     NULL},
    {"AssignVariableOp", "CPU", ANY, NULL, assign_variable_compute, NULL, 0,
     NULL},
    {"AssignAddVariableOp", "CPU", "dtype", TFS_DT_REAL, NULL,
     assign_add_variable_compute, NULL, 0, NULL},
    {"AssignSubVariableOp", "CPU", "dtype", TFS_DT_REAL, NULL,
     assign_sub_variable_compute, NULL, 0, NULL},
    {"VarIsInitializedOp", "CPU", ANY, NULL, var_is_initialized_compute, NULL,
     0, NULL},
    {"DisableCopyOnRead", "CPU", ANY, NULL, disable_copy_on_read_compute,
     NULL, 0, NULL},
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL},
};
