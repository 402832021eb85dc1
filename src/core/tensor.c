/*
 * core/tensor.c - tensor and buffer lifetime: allocation, wrapping caller
 * memory, views, reference counting.
 */
#include "core/tensor.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/half.h"
#include "core/status.h"
#include "core/variant.h"

size_t tfs_dtype__storage_size(tfs_dtype dt) {
  dt = tfs_dtype_base(dt);
  if (dt == TFS_STRING) return sizeof(tfs_tstring);
  if (dt == TFS_RESOURCE || dt == TFS_VARIANT) return sizeof(void *);
  return tfs_dtype_size(dt);
}

/* ---- buffers ---------------------------------------------------------- */

static void buf_destroy(tfs_buf *b) {
  if (b->elem_kind == 1) {
    tfs_tstring *s = b->data;
    for (int64_t i = 0; i < b->nelems; i++) tfs_tstring_dealloc(&s[i]);
  } else if (b->elem_kind == 2) {
    tfs_resource_handle **h = b->data;
    for (int64_t i = 0; i < b->nelems; i++) tfs_resource_handle_free(h[i]);
  } else if (b->elem_kind == 3) {
    tfs_variant **v = b->data;
    for (int64_t i = 0; i < b->nelems; i++) tfs_variant_unref(v[i]);
  }
  switch (b->kind) {
    case TFS_BUF_OWNED:
      tfs_aligned_free(b->data);
      break;
    case TFS_BUF_EXTERNAL:
      if (b->dealloc) b->dealloc(b->data, b->len, b->arg);
      break;
    case TFS_BUF_ARENA:
      /* A planned buffer tells its planner; the planner owns the struct. */
      if (b->dealloc) {
        b->dealloc(b->data, b->len, b->arg);
        return;
      }
      break;
    default:
      break;
  }
  tfs_free(b);
}

void tfs_buf__ref(tfs_buf *b) {
  atomic_fetch_add_explicit(&b->refs, 1, memory_order_relaxed);
}

void tfs_buf__unref(tfs_buf *b) {
  if (!b) return;
  if (atomic_fetch_sub_explicit(&b->refs, 1, memory_order_acq_rel) == 1)
    buf_destroy(b);
}

static tfs_buf *buf_new(uint8_t kind, void *data, size_t len) {
  tfs_buf *b = tfs_malloc(sizeof(*b));
  if (!b) return NULL;
  atomic_init(&b->refs, 1);
  b->kind = kind;
  b->elem_kind = 0;
  b->data = data;
  b->len = len;
  b->nelems = 0;
  b->dealloc = NULL;
  b->arg = NULL;
  return b;
}

tfs_buf *tfs_buf__arena(void *data, size_t len) {
  return buf_new(TFS_BUF_ARENA, data, len);
}

/* ---- tensors ---------------------------------------------------------- */

static int check_dtype(tfs_dtype dt, tfs_status *st) {
  if (tfs_dtype_is_ref(dt) || !tfs_dtype_is_valid(dt) ||
      tfs_dtype__storage_size(dt) == 0) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "Tensors of dtype %s are not supported",
                    tfs_dtype_name(dt));
    return -1;
  }
  return 0;
}

static int byte_size(tfs_dtype dt, const tfs_shape *shape, int64_t *nelems,
                     size_t *nbytes, tfs_status *st) {
  int64_t n, b;
  if (tfs_shape_num_elements_checked(shape, &n, st)) return -1;
  if (tfs_mul_overflow_i64(n, (int64_t)tfs_dtype__storage_size(dt), &b) ||
      (uint64_t)b > SIZE_MAX / 2) {
    char buf[TFS_SHAPE_STRLEN];
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "Tensor of dtype %s and shape %s is too large",
                    tfs_dtype_name(dt), tfs_shape_str(shape, buf, sizeof buf));
    return -1;
  }
  *nelems = n;
  *nbytes = (size_t)b;
  return 0;
}

tfs_tensor *tfs_tensor__over_buf(tfs_dtype dt, const tfs_shape *shape,
                                 tfs_buf *buf, void *data, tfs_status *st) {
  tfs_tensor *t = tfs_malloc(sizeof(*t));
  if (!t) {
    tfs_buf__unref(buf);
    TFS_OOM(st);
    return NULL;
  }
  tfs_tensor__init_embedded(t, dt, shape, buf, data);
  t->embedded = 0;
  return t;
}

void tfs_tensor__init_embedded(tfs_tensor *t, tfs_dtype dt,
                               const tfs_shape *shape, tfs_buf *buf,
                               void *data) {
  atomic_init(&t->refs, 1);
  t->dtype = dt;
  t->embedded = 1;
  t->shape = *shape;
  t->nelems = tfs_shape_num_elements(shape);
  t->nbytes = (size_t)t->nelems * tfs_dtype__storage_size(dt);
  t->buf = buf;
  t->data = data;
}

tfs_tensor *tfs_tensor__alloc(tfs_dtype dt, const tfs_shape *shape,
                              tfs_status *st) {
  int64_t n;
  size_t nb;
  if (check_dtype(dt, st) || byte_size(dt, shape, &n, &nb, st)) return NULL;
  void *data = tfs_aligned_alloc(nb);
  tfs_buf *b = data ? buf_new(TFS_BUF_OWNED, data, nb) : NULL;
  if (!b) {
    tfs_aligned_free(data);
    TFS_OOM(st);
    return NULL;
  }
  if (dt == TFS_STRING || dt == TFS_RESOURCE || dt == TFS_VARIANT) {
    memset(data, 0, nb);
    b->elem_kind = dt == TFS_STRING ? 1 : dt == TFS_RESOURCE ? 2 : 3;
    b->nelems = n;
  }
  return tfs_tensor__over_buf(dt, shape, b, data, st);
}

tfs_tensor *tfs_tensor__view(const tfs_tensor *src, const tfs_shape *shape,
                             tfs_status *st) {
  tfs_buf__ref(src->buf);
  return tfs_tensor__over_buf(src->dtype, shape, src->buf, src->data, st);
}

tfs_tensor *tfs_tensor__copy(const tfs_tensor *t, tfs_status *st) {
  tfs_tensor *c = tfs_tensor__alloc(t->dtype, &t->shape, st);
  if (!c) return NULL;
  if (t->dtype == TFS_STRING) {
    const tfs_tstring *s = t->data;
    tfs_tstring *d = c->data;
    for (int64_t i = 0; i < t->nelems; i++) {
      if (tfs_tstring_copy(&d[i], tfs_tstring_data(&s[i]),
                           tfs_tstring_size(&s[i]))) {
        tfs_tensor_free(c);
        TFS_OOM(st);
        return NULL;
      }
    }
  } else if (t->dtype == TFS_RESOURCE) {
    for (int64_t i = 0; i < t->nelems; i++) {
      const tfs_resource_handle *h = tfs_tensor__handle(t, i);
      if (!h) continue;
      tfs_resource_handle *nh = tfs_resource_handle_new(
          h->container, h->name, h->type_name, h->dtype, &h->shape);
      if (!nh) {
        tfs_tensor_free(c);
        TFS_OOM(st);
        return NULL;
      }
      ((tfs_resource_handle **)c->data)[i] = nh;
    }
  } else if (t->dtype == TFS_VARIANT) {
    tfs_variant *const *src = t->data;
    tfs_variant **dst = c->data;
    for (int64_t i = 0; i < t->nelems; i++) dst[i] = tfs_variant_ref(src[i]);
  } else if (t->nbytes) {
    memcpy(c->data, t->data, t->nbytes);
  }
  return c;
}

tfs_tensor *tfs_tensor__retainable(tfs_tensor *t, tfs_status *st) {
  if (t->buf->kind == TFS_BUF_ARENA) return tfs_tensor__copy(t, st);
  return tfs_tensor_ref(t);
}

/* ---- public API ------------------------------------------------------- */

static int shape_from_dims(tfs_shape *s, const int64_t *dims, int ndims,
                           tfs_status *st) {
  if (ndims < 0 || (ndims > 0 && !dims)) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "Invalid tensor shape: %d dims", ndims);
    return -1;
  }
  if (tfs_shape_set(s, dims, ndims, st)) return -1;
  for (int i = 0; i < ndims; i++) {
    if (dims[i] < 0) {
      char buf[TFS_SHAPE_STRLEN];
      tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                      "Dimension %d of tensor shape %s is negative", i,
                      tfs_dims_str(dims, ndims, buf, sizeof buf));
      return -1;
    }
  }
  return 0;
}

tfs_tensor *tfs_tensor_new(tfs_dtype dt, const int64_t *dims, int ndims,
                           tfs_status *st) {
  tfs_shape s;
  if (shape_from_dims(&s, dims, ndims, st)) return NULL;
  tfs_tensor *t = tfs_tensor__alloc(dt, &s, st);
  if (!t) return NULL;
  if (t->nbytes) memset(t->data, 0, t->nbytes);
  tfs_status_clear(st);
  return t;
}

tfs_tensor *tfs_tensor_new_copy(tfs_dtype dt, const int64_t *dims, int ndims,
                                const void *data, size_t len,
                                tfs_status *st) {
  tfs_shape s;
  if (dt == TFS_STRING) {
    tfs_status_set(st, TFS_INVALID_ARGUMENT,
                   "tfs_tensor_new_copy does not take string tensors; use "
                   "tfs_tensor_new_strings");
    return NULL;
  }
  if (shape_from_dims(&s, dims, ndims, st)) return NULL;
  tfs_tensor *t = tfs_tensor__alloc(dt, &s, st);
  if (!t) return NULL;
  if (len != t->nbytes || (len && !data)) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "Expected %zu bytes of %s data for shape, got %zu",
                    t->nbytes, tfs_dtype_name(dt), len);
    tfs_tensor_free(t);
    return NULL;
  }
  if (len) memcpy(t->data, data, len);
  tfs_status_clear(st);
  return t;
}

tfs_tensor *tfs_tensor_wrap(tfs_dtype dt, const int64_t *dims, int ndims,
                            void *data, size_t len, tfs_deallocator dealloc,
                            void *arg, tfs_status *st) {
  tfs_shape s;
  int64_t n;
  size_t nb;
  if (shape_from_dims(&s, dims, ndims, st) || check_dtype(dt, st) ||
      byte_size(dt, &s, &n, &nb, st))
    return NULL;
  if (dt == TFS_RESOURCE || dt == TFS_VARIANT) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "%s tensors cannot wrap caller memory",
                    dt == TFS_RESOURCE ? "Resource" : "Variant");
    return NULL;
  }
  if (len < nb || (nb && !data)) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "Buffer of %zu bytes is too small for a %s tensor that "
                    "needs %zu bytes", len, tfs_dtype_name(dt), nb);
    return NULL;
  }
  if (((uintptr_t)data & (TFS_TENSOR_ALIGNMENT - 1)) != 0) {
    /* misaligned: copy now and hand the caller's memory back at once */
    tfs_tensor *t = tfs_tensor__alloc(dt, &s, st);
    if (!t) return NULL;
    if (dt == TFS_STRING) {
      const tfs_tstring *src = data;
      tfs_tstring *d = t->data;
      for (int64_t i = 0; i < n; i++) {
        if (tfs_tstring_copy(&d[i], tfs_tstring_data(&src[i]),
                             tfs_tstring_size(&src[i]))) {
          tfs_tensor_free(t);
          TFS_OOM(st);
          return NULL;
        }
      }
    } else if (nb) {
      memcpy(t->data, data, nb);
    }
    if (dealloc) dealloc(data, len, arg);
    tfs_status_clear(st);
    return t;
  }
  tfs_buf *b = buf_new(TFS_BUF_EXTERNAL, data, len);
  if (!b) {
    TFS_OOM(st);
    return NULL;
  }
  b->dealloc = dealloc;
  b->arg = arg;
  tfs_tensor *t = tfs_tensor__over_buf(dt, &s, b, data, st);
  if (t) tfs_status_clear(st);
  return t;
}

tfs_tensor *tfs_tensor_new_strings(const int64_t *dims, int ndims,
                                   const char *const *strs,
                                   const size_t *lens, tfs_status *st) {
  tfs_shape s;
  if (shape_from_dims(&s, dims, ndims, st)) return NULL;
  tfs_tensor *t = tfs_tensor__alloc(TFS_STRING, &s, st);
  if (!t) return NULL;
  tfs_tstring *d = t->data;
  for (int64_t i = 0; i < t->nelems; i++) {
    const char *p = strs ? strs[i] : NULL;
    size_t n = p ? (lens ? lens[i] : strlen(p)) : 0;
    if (!p) p = "";
    if (tfs_tstring_copy(&d[i], p, n)) {
      tfs_tensor_free(t);
      TFS_OOM(st);
      return NULL;
    }
  }
  tfs_status_clear(st);
  return t;
}

static tfs_tensor *scalar(tfs_dtype dt, const void *v) {
  tfs_shape s;
  tfs_shape_scalar(&s);
  tfs_tensor *t = tfs_tensor__alloc(dt, &s, NULL);
  if (t) memcpy(t->data, v, tfs_dtype_size(dt));
  return t;
}

tfs_tensor *tfs_tensor_scalar_float(float v) { return scalar(TFS_FLOAT, &v); }
tfs_tensor *tfs_tensor_scalar_double(double v) {
  return scalar(TFS_DOUBLE, &v);
}
tfs_tensor *tfs_tensor_scalar_int32(int32_t v) {
  return scalar(TFS_INT32, &v);
}
tfs_tensor *tfs_tensor_scalar_int64(int64_t v) {
  return scalar(TFS_INT64, &v);
}
tfs_tensor *tfs_tensor_scalar_bool(int v) {
  uint8_t b = v ? 1 : 0;
  return scalar(TFS_BOOL, &b);
}
tfs_tensor *tfs_tensor_scalar_string(const char *s, size_t len) {
  const char *strs[1] = {s ? s : ""};
  size_t lens[1] = {s ? len : 0};
  return tfs_tensor_new_strings(NULL, 0, strs, lens, NULL);
}

tfs_tensor *tfs_tensor_ref(tfs_tensor *t) {
  if (t) atomic_fetch_add_explicit(&t->refs, 1, memory_order_relaxed);
  return t;
}

void tfs_tensor_free(tfs_tensor *t) {
  if (!t) return;
  if (atomic_fetch_sub_explicit(&t->refs, 1, memory_order_acq_rel) == 1) {
    tfs_buf *b = t->buf;
    if (!t->embedded) tfs_free(t);
    tfs_buf__unref(b); /* may hand an embedded struct back to its planner */
  }
}

tfs_dtype tfs_tensor_dtype(const tfs_tensor *t) {
  return t ? t->dtype : TFS_INVALID;
}
int tfs_tensor_ndims(const tfs_tensor *t) { return t ? t->shape.rank : -1; }
int64_t tfs_tensor_dim(const tfs_tensor *t, int i) {
  if (!t || i < 0 || i >= t->shape.rank) return -1;
  return t->shape.dims[i];
}
const int64_t *tfs_tensor_dims(const tfs_tensor *t) {
  return t ? t->shape.dims : NULL;
}
int64_t tfs_tensor_num_elements(const tfs_tensor *t) {
  return t ? t->nelems : 0;
}
size_t tfs_tensor_byte_size(const tfs_tensor *t) { return t ? t->nbytes : 0; }
void *tfs_tensor_data(const tfs_tensor *t) { return t ? t->data : NULL; }

int tfs_tensor_is_unique(const tfs_tensor *t) {
  return t && atomic_load(&t->refs) == 1 && atomic_load(&t->buf->refs) == 1;
}

const char *tfs_tensor_string_at(const tfs_tensor *t, int64_t i,
                                 size_t *len) {
  if (!t || t->dtype != TFS_STRING || i < 0 || i >= t->nelems) return NULL;
  const tfs_tstring *s = &tfs_tensor__strings(t)[i];
  if (len) *len = tfs_tstring_size(s);
  return tfs_tstring_data(s);
}

void tfs_tensor_set_string(tfs_tensor *t, int64_t i, const char *s,
                           size_t len, tfs_status *st) {
  TFS_CHECK_ARG(t != NULL, st, );
  if (t->dtype != TFS_STRING || i < 0 || i >= t->nelems ||
      !tfs_tensor_is_unique(t) || t->buf->elem_kind != 1) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "Cannot set element %lld of this tensor: it must be an "
                    "unshared string tensor with at least %lld elements",
                    (long long)i, (long long)i + 1);
    return;
  }
  if (tfs_tstring_copy(&tfs_tensor__strings(t)[i], s ? s : "", s ? len : 0)) {
    TFS_OOM(st);
    return;
  }
  tfs_status_clear(st);
}

tfs_tensor *tfs_tensor_clone(const tfs_tensor *t, tfs_status *st) {
  TFS_CHECK_ARG(t != NULL, st, NULL);
  tfs_tensor *c = tfs_tensor__copy(t, st);
  if (c) tfs_status_clear(st);
  return c;
}

const char *tfs_tensor_shape_string(const tfs_tensor *t, char *buf,
                                    size_t cap) {
  if (!t) {
    if (cap) buf[0] = 0;
    return buf;
  }
  return tfs_shape_str(&t->shape, buf, cap);
}

/* ---- resource handles -------------------------------------------------- */

tfs_resource_handle *tfs_resource_handle_new(const char *container,
                                             const char *name,
                                             const char *type_name,
                                             tfs_dtype dtype,
                                             const tfs_shape *shape) {
  tfs_resource_handle *h = tfs_calloc(1, sizeof(*h));
  if (!h) return NULL;
  h->container = tfs_strdup(container ? container : "");
  h->name = tfs_strdup(name ? name : "");
  h->type_name = tfs_strdup(type_name ? type_name : "");
  h->dtype = dtype;
  if (shape)
    h->shape = *shape;
  else
    h->shape.rank = -1;
  if (!h->container || !h->name || !h->type_name) {
    tfs_resource_handle_free(h);
    return NULL;
  }
  return h;
}

void tfs_resource_handle_free(tfs_resource_handle *h) {
  if (!h) return;
  tfs_free(h->container);
  tfs_free(h->name);
  tfs_free(h->type_name);
  tfs_free(h);
}

tfs_tensor *tfs_tensor__resource(tfs_resource_handle *h, tfs_status *st) {
  tfs_shape s;
  tfs_shape_scalar(&s);
  tfs_tensor *t = tfs_tensor__alloc(TFS_RESOURCE, &s, st);
  if (!t) {
    tfs_resource_handle_free(h);
    return NULL;
  }
  ((tfs_resource_handle **)t->data)[0] = h;
  return t;
}

tfs_tensor *tfs_tensor__variant_scalar(tfs_variant *v, tfs_status *st) {
  tfs_shape s;
  tfs_shape_scalar(&s);
  tfs_tensor *t = tfs_tensor__alloc(TFS_VARIANT, &s, st);
  if (!t) {
    tfs_variant_unref(v);
    return NULL;
  }
  ((tfs_variant **)t->data)[0] = v;
  return t;
}

tfs_tensor *tfs_tensor__ref_to(void *target, tfs_dtype base,
                               tfs_status *st) {
  tfs_buf *b = buf_new(TFS_BUF_EXTERNAL, target, 0);
  if (!b) {
    TFS_OOM(st);
    return NULL;
  }
  tfs_shape s;
  tfs_shape_scalar(&s);
  tfs_tensor *t = tfs_tensor__over_buf(
      (tfs_dtype)(tfs_dtype_base(base) + TFS_DTYPE_REF_OFFSET), &s, b, target,
      st);
  if (t) t->nbytes = 0;
  return t;
}

/* ---- element access ---------------------------------------------------- */

double tfs_tensor__get_as_double(const tfs_tensor *t, int64_t i) {
  const void *d = t->data;
  switch (t->dtype) {
    case TFS_FLOAT: return ((const float *)d)[i];
    case TFS_DOUBLE: return ((const double *)d)[i];
    case TFS_HALF: return tfs_half_to_float(((const uint16_t *)d)[i]);
    case TFS_BFLOAT16: return tfs_bf16_to_float(((const uint16_t *)d)[i]);
    case TFS_INT8: return ((const int8_t *)d)[i];
    case TFS_UINT8: return ((const uint8_t *)d)[i];
    case TFS_INT16: return ((const int16_t *)d)[i];
    case TFS_UINT16: return ((const uint16_t *)d)[i];
    case TFS_INT32: return ((const int32_t *)d)[i];
    case TFS_UINT32: return ((const uint32_t *)d)[i];
    case TFS_INT64: return (double)((const int64_t *)d)[i];
    case TFS_UINT64: return (double)((const uint64_t *)d)[i];
    case TFS_BOOL: return ((const uint8_t *)d)[i] ? 1.0 : 0.0;
    default: return 0.0;
  }
}

int64_t tfs_tensor__get_as_int64(const tfs_tensor *t, int64_t i) {
  const void *d = t->data;
  switch (t->dtype) {
    case TFS_INT8: return ((const int8_t *)d)[i];
    case TFS_UINT8: return ((const uint8_t *)d)[i];
    case TFS_INT16: return ((const int16_t *)d)[i];
    case TFS_UINT16: return ((const uint16_t *)d)[i];
    case TFS_INT32: return ((const int32_t *)d)[i];
    case TFS_UINT32: return ((const uint32_t *)d)[i];
    case TFS_INT64: return ((const int64_t *)d)[i];
    case TFS_UINT64: return (int64_t)((const uint64_t *)d)[i];
    case TFS_BOOL: return ((const uint8_t *)d)[i] ? 1 : 0;
    default: return (int64_t)tfs_tensor__get_as_double(t, i);
  }
}
