/*
 * backends/cpu/tensor_array.c - TF1 TensorArrays: the array (tensors by
 * index with TensorFlow's rules: write once, reads that may clear, a size
 * that may grow, gradient arrays that add up repeated writes) and the
 * kernels of TensorArrayV3 and the ops on its handle.  An array lives in
 * its run's step container (core/resource_mgr.h) and ends with the run,
 * as in TensorFlow.  Every use of an array holds its mutex, so parallel
 * loop iterations may write one array at once.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "backends/cpu/array_util.h"
#include "backends/cpu/tensor_array.h"
#include "core/alloc.h"
#include "core/half.h"
#include "core/util.h"

#define TA_TYPE "TensorArray"
#define TA_TYPE_LONG "N10tensorflow11TensorArrayE" /* TensorFlow's name */
#define TA_PREFIX "_tensor_arrays"
#define TA_GRAD_PREFIX "_tensor_array_grads"

typedef struct ta_elem {
  tfs_tensor *t;    /* the value (a reference); NULL when none is kept */
  tfs_shape shape;  /* its shape (a gradient array's zeros); [] at first */
  uint8_t written;
  uint8_t read;
  uint8_t cleared;  /* read with clear_after_read */
} ta_elem;

typedef struct tfs_ta {
  pthread_mutex_t mu;
  char *name;            /* messages say "TensorArray <name>" */
  tfs_dtype dtype;
  int identical_shapes;
  int aggregate;         /* multiple_writes_aggregate: gradient arrays */
  int is_grad;
  int clear_after_read;
  int closed;            /* guarded by: mu */
  int dynamic_size;      /* guarded by: mu */
  int grads_disallowed;  /* guarded by: mu */
  int32_t marked_size;   /* guarded by: mu */
  tfs_shape elem_shape;  /* guarded by: mu */
  ta_elem *e;            /* guarded by: mu */
  size_t n, cap;         /* guarded by: mu */
} tfs_ta;

/* ---- the array ----------------------------------------------------------- */

static void ta_clear(tfs_ta *ta) {
  for (size_t i = 0; i < ta->n; i++) tfs_tensor_free(ta->e[i].t);
  ta->n = 0;
}

/* Frees an array (the step container's destructor). */
static void ta_free(void *p) {
  tfs_ta *ta = p;
  if (!ta) return;
  ta_clear(ta);
  tfs_free(ta->e);
  tfs_free(ta->name);
  pthread_mutex_destroy(&ta->mu);
  tfs_free(ta);
}

/* Grows (never shrinks) the array to n elements, new ones unwritten.
 * Returns 0 or -1 (out of memory). */
static int ta_resize(tfs_ta *ta, size_t n) {
  if (n <= ta->n) return 0;
  if (tfs_grow((void **)&ta->e, &ta->cap, n, sizeof(ta_elem))) return -1;
  memset(ta->e + ta->n, 0, (n - ta->n) * sizeof(ta_elem));
  ta->n = n;
  return 0;
}

/* A new array of `size` unwritten elements; NULL on OOM. */
static tfs_ta *ta_new(const char *name, tfs_dtype dt, int32_t size,
                      const tfs_shape *elem_shape) {
  tfs_ta *ta = tfs_calloc(1, sizeof(*ta));
  if (!ta) return NULL;
  pthread_mutex_init(&ta->mu, NULL);
  ta->name = tfs_strdup(name);
  ta->dtype = dt;
  ta->elem_shape = *elem_shape;
  ta->marked_size = -1;
  if (!ta->name || ta_resize(ta, (size_t)size)) {
    ta_free(ta);
    return NULL;
  }
  return ta;
}

/* Fails c unless the array is open.  Holds mu. */
static int ta_check_open(tfs_kernel_ctx *c, tfs_ta *ta) {
  if (!ta->closed) return 0;
  tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                "TensorArray %s has already been closed.", ta->name);
  return -1;
}

/* TensorFlow's PartialTensorShape::MergeWith into the array's element
 * shape, with its messages.  Holds mu. */
static int ta_merge_elem_shape(tfs_kernel_ctx *c, tfs_ta *ta,
                               const tfs_shape *cand) {
  tfs_shape *es = &ta->elem_shape;
  char a[TFS_SHAPE_STRLEN], b[TFS_SHAPE_STRLEN];
  if (es->rank < 0 || cand->rank < 0) {
    if (es->rank < 0) *es = *cand;
    return 0;
  }
  if (es->rank != cand->rank) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "PartialTensorShape: Incompatible ranks during merge: %d "
                  "vs. %d", es->rank, cand->rank);
    return -1;
  }
  tfs_shape out;
  if (tfs_shape_merge(es, cand, &out)) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "PartialTensorShape: Incompatible shapes during merge: %s "
                  "vs. %s", tfs_shape_str(es, a, sizeof a),
                  tfs_shape_str(cand, b, sizeof b));
    return -1;
  }
  *es = out;
  return 0;
}

#define SUM_CASE(DT, T)                                              \
  case DT: {                                                         \
    const T *x = a->data, *y = b->data;                              \
    T *o = s->data;                                                  \
    for (int64_t i = 0; i < n; i++) o[i] = (T)(x[i] + y[i]);         \
    break;                                                           \
  }
#define SUM_F16(DT, TO, FROM)                                        \
  case DT: {                                                         \
    const uint16_t *x = a->data, *y = b->data;                       \
    uint16_t *o = s->data;                                           \
    for (int64_t i = 0; i < n; i++) o[i] = FROM(TO(x[i]) + TO(y[i])); \
    break;                                                           \
  }

/* a + b (same dtype and shape) in a new tensor: a gradient array adding
 * up a repeated write.  NULL after failing c. */
static tfs_tensor *ta_sum(tfs_kernel_ctx *c, const tfs_tensor *a,
                          const tfs_tensor *b) {
  tfs_tensor *s = tfs_tensor__alloc(a->dtype, &a->shape, c->st);
  if (!s) {
    tfs_kctx_fail_status(c, c->st);
    return NULL;
  }
  int64_t n = a->nelems;
  switch (a->dtype) {
    SUM_CASE(TFS_FLOAT, float)
    SUM_CASE(TFS_DOUBLE, double)
    SUM_CASE(TFS_INT8, int8_t)
    SUM_CASE(TFS_INT16, int16_t)
    SUM_CASE(TFS_INT32, int32_t)
    SUM_CASE(TFS_INT64, int64_t)
    SUM_CASE(TFS_UINT8, uint8_t)
    SUM_CASE(TFS_UINT16, uint16_t)
    SUM_CASE(TFS_UINT32, uint32_t)
    SUM_CASE(TFS_UINT64, uint64_t)
    SUM_F16(TFS_HALF, tfs_half_to_float, tfs_float_to_half)
    SUM_F16(TFS_BFLOAT16, tfs_bf16_to_float, tfs_float_to_bf16)
    default:
      tfs_tensor_free(s);
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "tensor_array::AddToTensor type not supported: %s",
                    tfs_dtype_name(a->dtype));
      return NULL;
  }
  return s;
}

/* Zeros of `shape`: what reading an element that holds only a shape
 * gives.  NULL after failing c. */
static tfs_tensor *ta_zeros(tfs_kernel_ctx *c, tfs_dtype dt,
                            const tfs_shape *shape) {
  int zeroable = dt != TFS_STRING && dt != TFS_RESOURCE && dt != TFS_VARIANT;
  if (!zeroable && tfs_shape_num_elements(shape) > 0) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "tensor_array::TensorSetZero type not supported: %s",
                  tfs_dtype_name(dt));
    return NULL;
  }
  tfs_tensor *t = tfs_tensor__alloc(dt, shape, c->st);
  if (!t) {
    tfs_kctx_fail_status(c, c->st);
    return NULL;
  }
  if (zeroable && t->nbytes) memset(t->data, 0, t->nbytes);
  return t;
}

/* Writes `value` (taking the reference, also on failure) at `index`, or
 * adds it to what is there in a gradient array (TensorFlow's
 * LockedWriteOrAggregate).  Holds mu. */
static int ta_write_locked(tfs_kernel_ctx *c, tfs_ta *ta, int32_t index,
                           tfs_tensor *value) {
  char a[TFS_SHAPE_STRLEN], b[TFS_SHAPE_STRLEN];
  if (ta_check_open(c, ta)) goto fail;
  if (index < 0 || (!ta->dynamic_size && (size_t)index >= ta->n)) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "TensorArray %s: Tried to write to index %d but array is "
                  "not resizeable and size is: %zu", ta->name, index, ta->n);
    goto fail;
  }
  if (ta_resize(ta, (size_t)index + 1)) {
    tfs_kctx_fail(c, TFS_RESOURCE_EXHAUSTED, "out of memory");
    goto fail;
  }
  ta_elem *t = &ta->e[index];
  if (value->dtype != ta->dtype) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "TensorArray %s: Could not write to TensorArray index %d "
                  "because the value dtype is %s but TensorArray dtype is "
                  "%s.", ta->name, index, tfs_dtype_name(value->dtype),
                  tfs_dtype_name(ta->dtype));
    goto fail;
  }
  if (!tfs_shape_is_compatible(&ta->elem_shape, &value->shape)) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "TensorArray %s: Could not write to TensorArray index %d "
                  "because the value shape is %s which is incompatible "
                  "with the TensorArray's inferred element shape: %s "
                  "(consider setting infer_shape=False).", ta->name, index,
                  tfs_shape_str(&value->shape, a, sizeof a),
                  tfs_shape_str(&ta->elem_shape, b, sizeof b));
    goto fail;
  }
  if (ta->identical_shapes && !tfs_shape_is_fully_defined(&ta->elem_shape))
    ta->elem_shape = value->shape;
  if (t->read) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "TensorArray %s: Could not write to TensorArray index %d "
                  "because it has already been read.", ta->name, index);
    goto fail;
  }
  if (t->written && !ta->aggregate) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "TensorArray %s: Could not write to TensorArray index %d "
                  "because it has already been written to.", ta->name,
                  index);
    goto fail;
  }
  if (!t->written) {
    t->t = value;
    t->shape = value->shape;
    t->written = 1;
    return 0;
  }
  if (!tfs_shape_equal(&value->shape, &t->shape)) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "TensorArray %s: Could not aggregate to TensorArray index "
                  "%d because the existing shape is %s but the new input "
                  "shape is %s.", ta->name, index,
                  tfs_shape_str(&t->shape, a, sizeof a),
                  tfs_shape_str(&value->shape, b, sizeof b));
    goto fail;
  }
  if (!t->t || t->t->nelems == 0) { /* only a shape: zeros */
    tfs_tensor_free(t->t);
    t->t = value;
    return 0;
  }
  tfs_tensor *sum = ta_sum(c, t->t, value);
  tfs_tensor_free(value);
  if (!sum) return -1;
  tfs_tensor_free(t->t);
  t->t = sum;
  ta->grads_disallowed = 1;
  return 0;
fail:
  tfs_tensor_free(value);
  return -1;
}

/* The shape an unwritten element reads as (TensorFlow's LockedRead: a
 * gradient array's own shape for the element, else the element shape,
 * which must then be fully defined).  Holds mu. */
static int ta_unwritten_shape(tfs_kernel_ctx *c, tfs_ta *ta, int32_t index,
                              tfs_shape *out) {
  size_t i = (size_t)index;
  if (ta->is_grad && i < ta->n && ta->e[i].shape.rank > 0) {
    *out = ta->e[i].shape;
    return 0;
  }
  if (!tfs_shape_is_fully_defined(&ta->elem_shape)) {
    char a[TFS_SHAPE_STRLEN];
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "TensorArray %s: Could not read from TensorArray index "
                  "%d.  Furthermore, the element shape is not fully "
                  "defined: %s.  It is possible you are working with a "
                  "resizeable TensorArray and stop_gradients is not "
                  "allowing the gradients to be written.  If you set the "
                  "full element_shape property on the forward TensorArray, "
                  "the proper all-zeros tensor will be returned instead of "
                  "incurring this error.", ta->name, index,
                  tfs_shape_str(&ta->elem_shape, a, sizeof a));
    return -1;
  }
  *out = ta->elem_shape;
  return 0;
}

/* The value at `index` (a new reference), cleared afterwards when the
 * array clears after reads.  NULL after failing c.  Holds mu. */
static tfs_tensor *ta_read_locked(tfs_kernel_ctx *c, tfs_ta *ta,
                                  int32_t index) {
  if (ta_check_open(c, ta)) return NULL;
  size_t i = (size_t)index;
  if (index < 0 || (!ta->is_grad && i >= ta->n)) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Tried to read from index %d but array size is: %zu",
                  index, ta->n);
    return NULL;
  }
  if (i >= ta->n || !ta->e[i].written) {
    tfs_shape shape;
    size_t from = ta->n;
    if (ta_unwritten_shape(c, ta, index, &shape)) return NULL;
    if (ta_resize(ta, i + 1)) {
      tfs_kctx_fail(c, TFS_RESOURCE_EXHAUSTED, "out of memory");
      return NULL;
    }
    for (size_t k = from < i ? from : i; k <= i; k++) {
      ta->e[k].shape = shape;
      ta->e[k].written = 1;
    }
  }
  ta_elem *t = &ta->e[i];
  if (t->cleared) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "TensorArray %s: Could not read index %d twice because it "
                  "was cleared after a previous read (perhaps try setting "
                  "clear_after_read = false?).", ta->name, index);
    return NULL;
  }
  if (!t->t || t->t->nelems == 0) {
    tfs_tensor *z = ta_zeros(c, ta->dtype, &t->shape);
    if (!z) return NULL;
    tfs_tensor_free(t->t);
    t->t = z;
  }
  tfs_tensor *v = tfs_tensor_ref(t->t);
  if (ta->clear_after_read) {
    tfs_tensor_free(t->t);
    t->t = NULL;
    t->cleared = 1;
  }
  t->read = 1;
  return v;
}

/* ---- handles ------------------------------------------------------------- */

/* The run's step container; NULL after failing c. */
static tfs_step_container *step_of(tfs_kernel_ctx *c) {
  if (!c->run) {
    tfs_kctx_fail(c, TFS_INTERNAL, "No per-step resource manager.");
    return NULL;
  }
  tfs_step_container *sc =
      tfs_step_container_get(&c->run->step, c->run->step_id, c->st);
  if (!sc) tfs_kctx_fail_status(c, c->st);
  return sc;
}

/* The resource handle in input 0; NULL after failing c. */
static const tfs_resource_handle *handle_of(tfs_kernel_ctx *c) {
  const tfs_tensor *t = c->inputs[0];
  if (t->dtype != TFS_RESOURCE || t->nelems != 1 ||
      !tfs_tensor__handle(t, 0)) {
    char a[TFS_SHAPE_STRLEN];
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Expected a TensorArray resource handle, got a %s tensor "
                  "of shape %s", tfs_dtype_name(t->dtype),
                  tfs_shape_str(&t->shape, a, sizeof a));
    return NULL;
  }
  return tfs_tensor__handle(t, 0);
}

/* The array input 0 names, in this run's step container: a handle of
 * another run finds nothing (ResourceMgr's NOT_FOUND messages).  NULL
 * after failing c. */
static tfs_ta *ta_of(tfs_kernel_ctx *c) {
  const tfs_resource_handle *h = handle_of(c);
  tfs_step_container *sc = h ? step_of(c) : NULL;
  if (!sc) return NULL;
  const char *cname = tfs_step_container_name(sc);
  int same = h->container && strcmp(h->container, cname) == 0;
  tfs_ta *ta = same ? tfs_step_container_find(sc, h->name, TA_TYPE) : NULL;
  if (ta) return ta;
  if (same)
    tfs_kctx_fail(c, TFS_NOT_FOUND, "Resource %s/%s/%s does not exist.",
                  cname, h->name, TA_TYPE_LONG);
  else
    tfs_kctx_fail(c, TFS_NOT_FOUND,
                  "Container %s does not exist. (Could not find resource: "
                  "%s/%s)", h->container ? h->container : "",
                  h->container ? h->container : "", h->name);
  return NULL;
}

/* Sets the handle output (0, naming `key` in container sc) and the flow
 * output (1, a float 0) of a creating kernel. */
static void set_handle_outputs(tfs_kernel_ctx *c, tfs_step_container *sc,
                               const char *key, tfs_dtype dt,
                               const tfs_shape *elem_shape) {
  tfs_resource_handle *h = tfs_resource_handle_new(
      tfs_step_container_name(sc), key, TA_TYPE, dt, elem_shape);
  tfs_tensor *t = h ? tfs_tensor__resource(h, c->st) : NULL;
  if (!t) {
    tfs_kctx_fail(c, TFS_RESOURCE_EXHAUSTED, "out of memory");
    return;
  }
  tfs_kctx_set_output(c, 0, t);
  tfs_shape s;
  tfs_shape_scalar(&s);
  tfs_tensor *flow = tfs_kctx_alloc_output(c, 1, &s);
  if (flow) *(float *)flow->data = 0.0f;
}

/* Output i = the flow input `in` (Write, Scatter and Split pass it on). */
static void pass_flow(tfs_kernel_ctx *c, int in, int i) {
  tfs_kctx_set_output(c, i, tfs_tensor_ref(c->inputs[in]));
}

/* The int32 scalar input i; fails c with `what`'s TensorFlow message
 * when it is not a scalar. */
static int scalar_i32(tfs_kernel_ctx *c, int i, const char *what,
                      int32_t *out) {
  const tfs_tensor *t = c->inputs[i];
  if (t->shape.rank != 0) {
    char a[TFS_SHAPE_STRLEN];
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "TensorArray %s must be scalar, but had shape: %s", what,
                  tfs_shape_str(&t->shape, a, sizeof a));
    return -1;
  }
  *out = *(const int32_t *)t->data;
  return 0;
}

/* Fails c unless the array holds `dt` (Read, Gather, Concat). */
static int check_read_dtype(tfs_kernel_ctx *c, const tfs_ta *ta,
                            tfs_dtype dt) {
  if (dt == ta->dtype) return 0;
  tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                "TensorArray dtype is %s but Op requested dtype %s.",
                tfs_dtype_name(ta->dtype), tfs_dtype_name(dt));
  return -1;
}

/* Fails c unless the array holds `dt` (Write, Scatter, Split). */
static int check_write_dtype(tfs_kernel_ctx *c, const tfs_ta *ta,
                             tfs_dtype dt) {
  if (dt == ta->dtype) return 0;
  tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                "TensorArray dtype is %s but Op is trying to write dtype "
                "%s.", tfs_dtype_name(ta->dtype), tfs_dtype_name(dt));
  return -1;
}

/* ---- TensorArrayV3 ------------------------------------------------------- */

typedef struct create_state {
  tfs_dtype dtype;
  tfs_shape elem_shape;
  int dynamic_size, clear_after_read, identical_shapes;
  char *name;  /* tensor_array_name, else the node's name */
} create_state;

static void create_release(void *p) {
  create_state *s = p;
  if (s) tfs_free(s->name);
  tfs_free(s);
}

static int create_prepare(tfs_kernel_init *ki) {
  create_state *s = tfs_calloc(1, sizeof(*s));
  if (!s) return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  ki->state = s;
  tfs_attrs_get_type(ki->attrs, "dtype", &s->dtype);
  const tfs_shape *es = tfs_attrs_get_shape(ki->attrs, "element_shape");
  if (es)
    s->elem_shape = *es;
  else
    s->elem_shape.rank = -1;
  s->clear_after_read = 1;
  tfs_attrs_get_bool(ki->attrs, "dynamic_size", &s->dynamic_size);
  tfs_attrs_get_bool(ki->attrs, "clear_after_read", &s->clear_after_read);
  tfs_attrs_get_bool(ki->attrs, "identical_element_shapes",
                     &s->identical_shapes);
  size_t len;
  const char *name = tfs_attrs_get_string(ki->attrs, "tensor_array_name",
                                          &len);
  s->name = tfs_strdup(name && *name ? name : ki->node_name);
  if (!s->name) return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED,
                                    "out of memory");
  return 0;
}

static void create_compute(tfs_kernel_ctx *c) {
  const create_state *s = c->state;
  int32_t size;
  if (scalar_i32(c, 0, "size", &size)) return;
  if (size < 0) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "Size should be >= 0.");
    return;
  }
  tfs_step_container *sc = step_of(c);
  if (!sc) return;
  char *uname = tfs_asprintf("%s_%lld", s->name,
                             (long long)tfs_step_container_next_id(sc));
  char *key = uname ? tfs_asprintf(TA_PREFIX "%s", uname) : NULL;
  tfs_ta *ta = key ? ta_new(uname, s->dtype, size, &s->elem_shape) : NULL;
  if (!ta) {
    tfs_kctx_fail(c, TFS_RESOURCE_EXHAUSTED, "out of memory");
    goto done;
  }
  ta->dynamic_size = s->dynamic_size;
  ta->clear_after_read = s->clear_after_read;
  ta->identical_shapes = s->identical_shapes;
  if (tfs_step_container_add(sc, key, TA_TYPE, ta, ta_free, c->st)) {
    tfs_kctx_fail_status(c, c->st);
    goto done;
  }
  set_handle_outputs(c, sc, key, s->dtype, &s->elem_shape);
done:
  tfs_free(uname);
  tfs_free(key);
}

/* ---- TensorArrayGradV3, TensorArrayGradWithShape ------------------------- */

/* What the gradient array copies from the forward one. */
typedef struct grad_src {
  int32_t size, marked;
  tfs_shape elem_shape;
  int allowed;
} grad_src;

/* Reads the forward array for its gradient array (no longer resizable
 * from here on, as TensorFlow's DisableDynamicSize).  -1 after failing
 * c. */
static int grad_source(tfs_kernel_ctx *c, tfs_ta *fwd, grad_src *g) {
  pthread_mutex_lock(&fwd->mu);
  fwd->dynamic_size = 0;
  int rc = ta_check_open(c, fwd);
  g->size = (int32_t)fwd->n;
  g->marked = fwd->marked_size;
  g->elem_shape = fwd->elem_shape;
  g->allowed = !fwd->grads_disallowed;
  pthread_mutex_unlock(&fwd->mu);
  if (rc) return -1;
  if (!g->allowed) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Unable to create a gradients TensorArray for %s.  Perhaps "
                  "you used the multiple_writes_aggregate flag on a previous "
                  "write?  Gradient calculation is impossible when multiple "
                  "writes are performed to the same index.",
                  fwd->name);
    return -1;
  }
  return 0;
}

/* TensorArrayGradWithShape's shape_to_prepend (input 2) into *pre and
 * the gradient's element shape into g->elem_shape.  -1 after failing c. */
static int grad_prepend(tfs_kernel_ctx *c, grad_src *g, tfs_shape *pre) {
  const tfs_tensor *t = c->inputs[2];
  char a[TFS_SHAPE_STRLEN];
  if (t->shape.rank != 1) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "shape must be a vector of {int32,int64}, got shape %s",
                  tfs_shape_str(&t->shape, a, sizeof a));
    return -1;
  }
  int64_t n = t->nelems;
  int64_t er = g->elem_shape.rank < 0 ? 0 : g->elem_shape.rank;
  if (n + er > TFS_MAX_RANK) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "Shape has rank %lld, over %d",
                  (long long)(n + er), TFS_MAX_RANK);
    return -1;
  }
  pre->rank = (int32_t)n;
  for (int64_t i = 0; i < n; i++) {
    int32_t d = ((const int32_t *)t->data)[i];
    if (d < 0) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "Dimension %d must be >= 0",
                    d);
      return -1;
    }
    pre->dims[i] = d;
  }
  if (g->elem_shape.rank < 0) return 0;
  tfs_shape es = *pre;
  for (int i = 0; i < g->elem_shape.rank; i++)
    es.dims[es.rank++] = g->elem_shape.dims[i];
  g->elem_shape = es;
  return 0;
}

/* TensorArray::CopyShapesFrom: every written element of the forward
 * array gives the gradient array a shape (prepended) and reads as zeros
 * until it is written.  grad is not shared yet. */
static int grad_copy_shapes(tfs_kernel_ctx *c, tfs_ta *grad, tfs_ta *fwd,
                            const tfs_shape *pre) {
  int rc = 0;
  pthread_mutex_lock(&fwd->mu);
  if (ta_check_open(c, fwd)) {
    rc = -1;
  } else if (grad->n != fwd->n) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "TensorArray sizes do not match during CopyShapesFrom: %s "
                  "has size %zu but rhs %s has size %zu", grad->name,
                  grad->n, fwd->name, fwd->n);
    rc = -1;
  } else {
    for (size_t i = 0; i < fwd->n; i++) {
      const ta_elem *f = &fwd->e[i];
      if (!f->written) continue;
      tfs_shape s = pre ? *pre : f->shape;
      if (pre && s.rank + f->shape.rank <= TFS_MAX_RANK)
        for (int d = 0; d < f->shape.rank; d++)
          s.dims[s.rank++] = f->shape.dims[d];
      grad->e[i].shape = s;
      grad->e[i].written = 1;
    }
  }
  pthread_mutex_unlock(&fwd->mu);
  return rc;
}

static void grad_compute(tfs_kernel_ctx *c) {
  const char *source = c->state;
  const tfs_resource_handle *h = handle_of(c);
  if (!h) return;
  size_t plen = strlen(TA_PREFIX);
  if (strncmp(h->name, TA_PREFIX, plen) != 0) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "Wrong input container. %s",
                  h->name);
    return;
  }
  tfs_ta *fwd = ta_of(c);
  tfs_step_container *sc = fwd ? step_of(c) : NULL;
  if (!sc) return;
  grad_src g;
  tfs_shape pre;
  int with_shape = c->ninputs > 2;
  if (grad_source(c, fwd, &g) || (with_shape && grad_prepend(c, &g, &pre)))
    return;
  char *gname = tfs_asprintf("%s@%s", h->name + plen, source);
  char *key = gname ? tfs_asprintf(TA_GRAD_PREFIX "%s", gname) : NULL;
  if (!key) {
    tfs_kctx_fail(c, TFS_RESOURCE_EXHAUSTED, "out of memory");
    goto done;
  }
  /* one gradient array per (array, source): LookupOrCreate */
  tfs_ta *grad = tfs_step_container_find(sc, key, TA_TYPE);
  if (!grad) {
    grad = ta_new(gname, fwd->dtype, g.size, &g.elem_shape);
    if (!grad) {
      tfs_kctx_fail(c, TFS_RESOURCE_EXHAUSTED, "out of memory");
      goto done;
    }
    grad->identical_shapes = fwd->identical_shapes;
    grad->aggregate = grad->is_grad = grad->clear_after_read = 1;
    grad->marked_size = g.marked;
    if (grad_copy_shapes(c, grad, fwd, with_shape ? &pre : NULL)) {
      ta_free(grad);
      goto done;
    }
    if (tfs_step_container_add(sc, key, TA_TYPE, grad, ta_free, c->st) &&
        (tfs_status_code(c->st) != TFS_ALREADY_EXISTS ||
         !tfs_step_container_find(sc, key, TA_TYPE))) {
      tfs_kctx_fail_status(c, c->st);
      goto done;
    }
    tfs_status_clear(c->st); /* another kernel made it first: use that */
  }
  set_handle_outputs(c, sc, key, fwd->dtype, &g.elem_shape);
done:
  tfs_free(gname);
  tfs_free(key);
}

static int grad_prepare(tfs_kernel_init *ki) {
  size_t len;
  const char *source = tfs_attrs_get_string(ki->attrs, "source", &len);
  ki->state = tfs_strdup(source ? source : "");
  if (!ki->state)
    return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  return 0;
}

/* ---- Write, Read, Size, Close -------------------------------------------- */

static void write_compute(tfs_kernel_ctx *c) {
  pass_flow(c, 3, 0);
  int32_t index;
  if (scalar_i32(c, 1, "index", &index)) return;
  tfs_ta *ta = ta_of(c);
  if (!ta || check_write_dtype(c, ta, c->inputs[2]->dtype)) return;
  pthread_mutex_lock(&ta->mu);
  ta_write_locked(c, ta, index, tfs_tensor_ref(c->inputs[2]));
  pthread_mutex_unlock(&ta->mu);
}

static void read_compute(tfs_kernel_ctx *c) {
  int32_t index;
  if (scalar_i32(c, 1, "index", &index)) return;
  tfs_ta *ta = ta_of(c);
  if (!ta || check_read_dtype(c, ta, c->out_types[0])) return;
  pthread_mutex_lock(&ta->mu);
  tfs_tensor *v = ta_read_locked(c, ta, index);
  pthread_mutex_unlock(&ta->mu);
  if (v) tfs_kctx_set_output(c, 0, v);
}

static void size_compute(tfs_kernel_ctx *c) {
  tfs_ta *ta = ta_of(c);
  if (!ta) return;
  tfs_shape s;
  tfs_shape_scalar(&s);
  tfs_tensor *o = tfs_kctx_alloc_output(c, 0, &s);
  if (!o) return;
  pthread_mutex_lock(&ta->mu);
  if (!ta_check_open(c, ta)) *(int32_t *)o->data = (int32_t)ta->n;
  pthread_mutex_unlock(&ta->mu);
}

/* Drops every value and marks the array closed; it stays in the step
 * container until the run ends (TensorFlow's ClearAndMarkClosed). */
static void close_compute(tfs_kernel_ctx *c) {
  tfs_ta *ta = ta_of(c);
  if (!ta) return;
  pthread_mutex_lock(&ta->mu);
  ta_clear(ta);
  ta->closed = 1;
  pthread_mutex_unlock(&ta->mu);
}

/* ---- Gather, Concat ------------------------------------------------------ */

/* Reads elements idx[0..n) (0..n-1 when idx is NULL) into vals, holding
 * mu.  On failure the values read so far are freed.  -1 after failing
 * c. */
static int read_many(tfs_kernel_ctx *c, tfs_ta *ta, const int32_t *idx,
                     int64_t n, tfs_tensor **vals) {
  int64_t k = 0;
  pthread_mutex_lock(&ta->mu);
  for (; k < n; k++) {
    vals[k] = ta_read_locked(c, ta, idx ? idx[k] : (int32_t)k);
    if (!vals[k]) break;
  }
  pthread_mutex_unlock(&ta->mu);
  if (k == n) return 0;
  while (k-- > 0) tfs_tensor_free(vals[k]);
  return -1;
}

static void free_vals(tfs_tensor **vals, int64_t n) {
  for (int64_t k = 0; vals && k < n; k++) tfs_tensor_free(vals[k]);
  tfs_free(vals);
}

/* Output 0 = vals[0..n) one after another, with `shape`.  -1 after
 * failing c. */
static int concat_into(tfs_kernel_ctx *c, tfs_tensor **vals, int64_t n,
                       const tfs_shape *shape) {
  tfs_tensor *o = tfs_kctx_alloc_output(c, 0, shape);
  if (!o) return -1;
  tfs_elem e = tfs_elem_of(o->dtype);
  char *dst = o->data;
  for (int64_t k = 0; k < n; k++) {
    if (tfs_elem_copy(e, dst, vals[k]->data, vals[k]->nelems)) {
      tfs_kctx_fail(c, TFS_RESOURCE_EXHAUSTED, "out of memory");
      return -1;
    }
    dst += (size_t)vals[k]->nelems * e.size;
  }
  return 0;
}

/* A shape with `d0` in front of s (which has a known rank). */
static int prepend_dim(tfs_kernel_ctx *c, int64_t d0, const tfs_shape *s,
                       tfs_shape *out) {
  if (s->rank + 1 > TFS_MAX_RANK) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "Shape has rank %d, over %d",
                  s->rank + 1, TFS_MAX_RANK);
    return -1;
  }
  out->rank = s->rank + 1;
  out->dims[0] = d0;
  memcpy(out->dims + 1, s->dims, sizeof(int64_t) * (size_t)s->rank);
  return 0;
}

/* An empty output [0] + shape, which must be fully defined (`what`
 * names the attr in TensorFlow's message).  Output 1, when given, is
 * an empty int64 vector (Concat's lengths). */
static void empty_output(tfs_kernel_ctx *c, const tfs_shape *shape,
                         const char *what, const char *verb, int lengths) {
  if (!tfs_shape_is_fully_defined(shape)) {
    char a[TFS_SHAPE_STRLEN];
    tfs_kctx_fail(c, TFS_UNIMPLEMENTED,
                  "TensorArray has size zero, but %s %s is not fully "
                  "defined. Currently only static shapes are supported when "
                  "%s zero-size TensorArrays.", what,
                  tfs_shape_str(shape, a, sizeof a), verb);
    return;
  }
  tfs_shape s;
  if (prepend_dim(c, 0, shape, &s) || !tfs_kctx_alloc_output(c, 0, &s))
    return;
  tfs_shape_1d(&s, 0);
  if (lengths) tfs_kctx_alloc_output(c, 1, &s);
}

/* Checks that every value has vals[0]'s shape and writes the gathered
 * output (TensorArrayPackOrGatherOp). */
static void gather_finish(tfs_kernel_ctx *c, const tfs_shape *attr_es,
                          tfs_tensor **vals, int64_t n) {
  char a[TFS_SHAPE_STRLEN], b[TFS_SHAPE_STRLEN];
  const tfs_shape *s0 = &vals[0]->shape;
  if (!tfs_shape_is_compatible(attr_es, s0)) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "TensorArray was passed element_shape %s which does not "
                  "match the Tensor at index 0: %s",
                  tfs_shape_str(attr_es, a, sizeof a),
                  tfs_shape_str(s0, b, sizeof b));
    return;
  }
  for (int64_t k = 1; k < n; k++) {
    if (tfs_shape_equal(s0, &vals[k]->shape)) continue;
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "TensorArray has inconsistent shapes.  Index 0 has shape: "
                  "%s but index %lld has shape: %s",
                  tfs_shape_str(s0, a, sizeof a), (long long)k,
                  tfs_shape_str(&vals[k]->shape, b, sizeof b));
    return;
  }
  tfs_shape out;
  if (prepend_dim(c, n, s0, &out)) return;
  concat_into(c, vals, n, &out);
}

static void gather_compute(tfs_kernel_ctx *c) {
  const tfs_shape *attr_es = c->state;
  tfs_ta *ta = ta_of(c);
  if (!ta || check_read_dtype(c, ta, c->out_types[0])) return;
  pthread_mutex_lock(&ta->mu);
  int rc = ta_merge_elem_shape(c, ta, attr_es);
  pthread_mutex_unlock(&ta->mu);
  if (rc) return;
  const tfs_tensor *idx = c->inputs[1];
  if (idx->shape.rank != 1) {
    char a[TFS_SHAPE_STRLEN];
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Expected indices to be a vector, but received shape: %s",
                  tfs_shape_str(&idx->shape, a, sizeof a));
    return;
  }
  int64_t n = idx->nelems;
  if (n == 0) {
    empty_output(c, attr_es, "element shape", "packing", 0);
    return;
  }
  tfs_tensor **vals = tfs_calloc((size_t)n, sizeof(*vals));
  if (!vals) {
    tfs_kctx_fail(c, TFS_RESOURCE_EXHAUSTED, "out of memory");
    return;
  }
  if (read_many(c, ta, idx->data, n, vals) == 0)
    gather_finish(c, attr_es, vals, n);
  else
    n = 0; /* read_many freed what it read */
  free_vals(vals, n);
}

/* Checks the values' shapes, fills `lengths` and gives the output shape
 * (TensorArrayConcatOp).  -1 after failing c. */
static int concat_shapes(tfs_kernel_ctx *c, const tfs_shape *attr_es0,
                         tfs_tensor **vals, int64_t n, int64_t *lengths,
                         tfs_shape *out) {
  char a[TFS_SHAPE_STRLEN], b[TFS_SHAPE_STRLEN];
  tfs_shape rest0;
  for (int64_t k = 0; k < n; k++) {
    const tfs_shape *s = &vals[k]->shape;
    if (s->rank < 1) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "Concat saw a scalar shape at index %lld but requires "
                    "at least vectors.  Did you mean to call pack?",
                    (long long)k);
      return -1;
    }
    lengths[k] = s->dims[0];
    tfs_shape rest = {.rank = s->rank - 1};
    memcpy(rest.dims, s->dims + 1, sizeof(int64_t) * (size_t)rest.rank);
    if (k == 0) {
      rest0 = rest;
      *out = *s;
      if (tfs_shape_is_compatible(attr_es0, &rest)) continue;
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "TensorArray was passed element_shape_except0 %s but "
                    "index 0 has (excepting dimension 0) shape: %s which "
                    "does not match.", tfs_shape_str(attr_es0, a, sizeof a),
                    tfs_shape_str(&rest, b, sizeof b));
      return -1;
    }
    if (!tfs_shape_equal(&rest0, &rest)) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "TensorArray has inconsistent shapes.  Index 0 has "
                    "(excepting dimension 0) shape: %s but index %lld has "
                    "(excepting dimension 0) shape: %s",
                    tfs_shape_str(&rest0, a, sizeof a), (long long)k,
                    tfs_shape_str(&rest, b, sizeof b));
      return -1;
    }
    out->dims[0] += s->dims[0];
  }
  return 0;
}

static void concat_compute(tfs_kernel_ctx *c) {
  const tfs_shape *attr_es0 = c->state;
  tfs_ta *ta = ta_of(c);
  if (!ta || check_read_dtype(c, ta, c->out_types[0])) return;
  pthread_mutex_lock(&ta->mu);
  int rc = ta_check_open(c, ta);
  int64_t n = ta->is_grad ? ta->marked_size : (int64_t)ta->n;
  pthread_mutex_unlock(&ta->mu);
  if (rc) return;
  if (n <= 0) {
    empty_output(c, attr_es0, "element_shape_except0", "concatenating", 1);
    return;
  }
  tfs_tensor **vals = tfs_calloc((size_t)n, sizeof(*vals));
  if (!vals) {
    tfs_kctx_fail(c, TFS_RESOURCE_EXHAUSTED, "out of memory");
    return;
  }
  if (read_many(c, ta, NULL, n, vals)) {
    tfs_free(vals);
    return;
  }
  tfs_shape ls, out;
  tfs_shape_1d(&ls, n);
  tfs_tensor *lengths = tfs_kctx_alloc_output(c, 1, &ls);
  if (lengths && concat_shapes(c, attr_es0, vals, n, lengths->data, &out) == 0)
    concat_into(c, vals, n, &out);
  free_vals(vals, n);
}

/* element_shape / element_shape_except0 attr of Gather and Concat. */
static int shape_attr_prepare(tfs_kernel_init *ki) {
  tfs_shape *s = tfs_malloc(sizeof(*s));
  if (!s) return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  const tfs_shape *a = tfs_attrs_get_shape(ki->attrs, (const char *)ki->kdata);
  if (a)
    *s = *a;
  else
    s->rank = -1;
  ki->state = s;
  return 0;
}

/* ---- Scatter, Split ------------------------------------------------------ */

/* Rows [row, row + rows) of `v` (row size `per_row` elements) as a new
 * tensor of `shape` sharing v's buffer.  NULL after failing c. */
static tfs_tensor *rows_view(tfs_kernel_ctx *c, const tfs_tensor *v,
                             int64_t row, int64_t per_row,
                             const tfs_shape *shape) {
  size_t off = (size_t)(row * per_row) * tfs_dtype__storage_size(v->dtype);
  tfs_buf__ref(v->buf);
  tfs_tensor *t = tfs_tensor__over_buf(v->dtype, shape, v->buf,
                                       (char *)v->data + off, c->st);
  if (!t) tfs_kctx_fail_status(c, c->st);
  return t;
}

/* Writes rows of `v` at idx[k] (k < n), row k being rows
 * [starts[k], starts[k] + shapes dim 0) or row k alone when starts is
 * NULL; shared by Scatter and Split. */
static void write_rows(tfs_kernel_ctx *c, tfs_ta *ta, const tfs_tensor *v,
                       const int32_t *idx, int64_t n,
                       const int64_t *starts, const int64_t *lens,
                       int64_t per_row) {
  tfs_shape s = v->shape;
  if (!lens) { /* one row each: the value's shape less dimension 0 */
    s.rank--;
    memmove(s.dims, s.dims + 1, sizeof(int64_t) * (size_t)s.rank);
  }
  pthread_mutex_lock(&ta->mu);
  for (int64_t k = 0; k < n; k++) {
    if (lens) s.dims[0] = lens[k];
    tfs_tensor *t = rows_view(c, v, starts ? starts[k] : k, per_row, &s);
    if (!t || ta_write_locked(c, ta, idx ? idx[k] : (int32_t)k, t)) break;
  }
  pthread_mutex_unlock(&ta->mu);
}

/* The array's size, grown to `need` when it may grow (not yet stored:
 * the writes grow it).  -1 after failing c. */
static int64_t size_for(tfs_kernel_ctx *c, tfs_ta *ta, int64_t need,
                        int *dynamic) {
  pthread_mutex_lock(&ta->mu);
  int rc = ta_check_open(c, ta);
  int64_t size = (int64_t)ta->n;
  *dynamic = ta->dynamic_size;
  pthread_mutex_unlock(&ta->mu);
  if (rc) return -1;
  return *dynamic && size < need ? need : size;
}

static void scatter_compute(tfs_kernel_ctx *c) {
  char a[TFS_SHAPE_STRLEN];
  pass_flow(c, 3, 0);
  tfs_ta *ta = ta_of(c);
  const tfs_tensor *v = c->inputs[2], *idx = c->inputs[1];
  if (!ta || check_write_dtype(c, ta, v->dtype)) return;
  if (v->shape.rank < 1) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Input value for unpack must be at least a vector but "
                  "received shape: %s",
                  tfs_shape_str(&v->shape, a, sizeof a));
    return;
  }
  if (idx->shape.rank != 1) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Expected indices to be a vector, but received shape: %s",
                  tfs_shape_str(&idx->shape, a, sizeof a));
    return;
  }
  if (idx->nelems != v->shape.dims[0]) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Expected len(indices) == values.shape[0], but saw: %lld "
                  "vs. %lld", (long long)idx->nelems,
                  (long long)v->shape.dims[0]);
    return;
  }
  const int32_t *ix = idx->data;
  int64_t n = idx->nelems, max_index = -1;
  for (int64_t k = 0; k < n; k++)
    if (ix[k] > max_index) max_index = ix[k];
  int dynamic;
  int64_t size = size_for(c, ta, max_index + 1, &dynamic);
  if (size < 0) return;
  if (max_index >= size) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Max scatter index must be < array size (%lld vs. %lld)",
                  (long long)max_index, (long long)size);
    return;
  }
  int64_t per_row = n ? v->nelems / n : 0;
  write_rows(c, ta, v, ix, n, NULL, NULL, per_row);
}

/* Split's lengths: a vector of non-negative entries summing to the
 * value's first dimension; starts[k] = sum of lengths before k.  -1
 * after failing c. */
static int split_lengths(tfs_kernel_ctx *c, const tfs_tensor *v,
                         const tfs_tensor *lt, int64_t *starts) {
  char a[TFS_SHAPE_STRLEN];
  const int64_t *len = lt->data;
  int64_t total = 0;
  for (int64_t k = 0; k < lt->nelems; k++) {
    if (len[k] < 0 || tfs_add_overflow_i64(total, len[k], &total)) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "TensorArray split lengths must be non-negative, but "
                    "entry %lld is %lld", (long long)k, (long long)len[k]);
      return -1;
    }
    starts[k] = total - len[k];
  }
  if (v->shape.rank < 1) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Expected value to be at least a vector, but received "
                  "shape: %s", tfs_shape_str(&v->shape, a, sizeof a));
    return -1;
  }
  if (total != v->shape.dims[0]) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Expected sum of lengths to be equal to values.shape[0], "
                  "but sum of lengths is %lld and value's shape is: %s",
                  (long long)total, tfs_shape_str(&v->shape, a, sizeof a));
    return -1;
  }
  return 0;
}

static void split_compute(tfs_kernel_ctx *c) {
  char a[TFS_SHAPE_STRLEN];
  pass_flow(c, 3, 0);
  tfs_ta *ta = ta_of(c);
  const tfs_tensor *v = c->inputs[1], *lt = c->inputs[2];
  if (!ta) return;
  if (lt->shape.rank != 1) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Expected lengths to be a vector, received shape: %s",
                  tfs_shape_str(&lt->shape, a, sizeof a));
    return;
  }
  int64_t n = lt->nelems;
  if (n > INT32_MAX) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Expected lengths to have < max int32 entries");
    return;
  }
  int64_t *starts = tfs_malloc(sizeof(int64_t) * (size_t)(n ? n : 1));
  if (!starts) {
    tfs_kctx_fail(c, TFS_RESOURCE_EXHAUSTED, "out of memory");
    return;
  }
  int dynamic;
  int64_t size = -1;
  if (split_lengths(c, v, lt, starts) == 0)
    size = size_for(c, ta, n, &dynamic);
  if (size >= 0 && size != n)
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "TensorArray's size is not equal to the size of lengths "
                  "(%lld vs. %lld), and the TensorArray is not marked as "
                  "dynamically resizeable", (long long)size, (long long)n);
  else if (size >= 0 && check_write_dtype(c, ta, v->dtype) == 0) {
    int64_t total = v->shape.dims[0];
    int64_t per_row = total ? v->nelems / total : 0;
    pthread_mutex_lock(&ta->mu);
    if (!ta->is_grad) ta->marked_size = (int32_t)n;
    pthread_mutex_unlock(&ta->mu);
    write_rows(c, ta, v, NULL, n, starts, lt->data, per_row);
  }
  tfs_free(starts);
}

/* ---- the table ----------------------------------------------------------- */

#define ANY NULL, 0
#define COPY "T", TFS_DT_ARRAY
#define COPY_OUT "dtype", TFS_DT_ARRAY
const tfs_kernel_def tfs_cpu_kernels_tensor_array[] = {
    {"TensorArrayV3", "CPU", ANY, create_prepare, create_compute,
     create_release, 0, NULL},
    {"TensorArrayGradV3", "CPU", ANY, grad_prepare, grad_compute, tfs_free,
     0, NULL},
    {"TensorArrayGradWithShape", "CPU", ANY, grad_prepare, grad_compute,
     tfs_free, 0, NULL},
    {"TensorArrayWriteV3", "CPU", ANY, NULL, write_compute, NULL, 0, NULL},
    {"TensorArrayReadV3", "CPU", ANY, NULL, read_compute, NULL, 0, NULL},
    {"TensorArrayGatherV3", "CPU", COPY_OUT, shape_attr_prepare,
     gather_compute, tfs_free, 0, "element_shape"},
    {"TensorArrayConcatV3", "CPU", COPY_OUT, shape_attr_prepare,
     concat_compute, tfs_free, 0, "element_shape_except0"},
    {"TensorArrayScatterV3", "CPU", COPY, NULL, scatter_compute, NULL, 0,
     NULL},
    {"TensorArraySplitV3", "CPU", COPY, NULL, split_compute, NULL, 0, NULL},
    {"TensorArraySizeV3", "CPU", ANY, NULL, size_compute, NULL, 0, NULL},
    {"TensorArrayCloseV3", "CPU", ANY, NULL, close_compute, NULL, 0, NULL},
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL},
};
