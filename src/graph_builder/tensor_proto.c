/*
 * graph_builder/tensor_proto.c - TensorProto <-> tensor and
 * TensorShapeProto <-> shape conversion (TensorFlow's Tensor::FromProto
 * and AsProtoField / AsProtoTensorContent rules).  Element bytes are
 * little-endian on the wire, as on every host tfsess builds for.
 */
#include "graph_builder/tensor_proto.h"

#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "core/status.h"
#include "core/strbuf.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "tensor_content is little-endian; big-endian hosts need byte swaps"
#endif

/* ---- shapes -------------------------------------------------------------- */

const char *tfs_shape_proto__str(const Tensorflow__TensorShapeProto *p,
                                 char *buf, size_t cap) {
  if (!cap) return buf;
  if (p && p->unknown_rank && p->n_dim == 0) {
    snprintf(buf, cap, "<unknown>");
    return buf;
  }
  size_t n = p ? p->n_dim : 0, off = 0;
  buf[0] = 0;
  off += (size_t)snprintf(buf, cap, "[");
  for (size_t i = 0; i < n && off < cap; i++) {
    int64_t d = p->dim[i] ? p->dim[i]->size : 0;
    if (i == 32) {
      off += (size_t)snprintf(buf + off, cap - off, ",...");
      break;
    }
    if (d == -1)
      off += (size_t)snprintf(buf + off, cap - off, "%s?", i ? "," : "");
    else
      off += (size_t)snprintf(buf + off, cap - off, "%s%lld", i ? "," : "",
                              (long long)d);
  }
  if (off < cap) snprintf(buf + off, cap - off, "]");
  return buf;
}

int tfs_shape__from_proto(const Tensorflow__TensorShapeProto *p, int partial,
                          tfs_shape *out, tfs_status *st) {
  char txt[TFS_SHAPE_STRLEN + 64];
  out->rank = 0;
  if (!p) return 0;
  if (partial && p->unknown_rank) {
    if (p->n_dim > 0) {
      tfs_status_set(st, TFS_INVALID_ARGUMENT,
                     "An unknown shape must not have any dimensions set.");
      return -1;
    }
    out->rank = -1;
    return 0;
  }
  if (p->n_dim > TFS_MAX_RANK) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "Shape %s has too many dimensions (tfsess supports at "
                    "most %d)", tfs_shape_proto__str(p, txt, sizeof txt),
                    TFS_MAX_RANK);
    return -1;
  }
  int64_t n = 1;
  for (size_t i = 0; i < p->n_dim; i++) {
    int64_t d = p->dim[i] ? p->dim[i]->size : 0;
    if (d < (partial ? -1 : 0)) {
      tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                      partial ? "Shape %s has dimensions with values below "
                                "-1 (where -1 means unknown)"
                              : "Shape %s is not fully defined",
                      tfs_shape_proto__str(p, txt, sizeof txt));
      return -1;
    }
    if (d == -1) {
      n = -1;
    } else if (n >= 0 && tfs_mul_overflow_i64(n, d, &n)) {
      tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                      "Shape %s is too large (more than 2**63 - 1 entries)",
                      tfs_shape_proto__str(p, txt, sizeof txt));
      return -1;
    }
    out->dims[i] = d;
  }
  out->rank = (int32_t)p->n_dim;
  return 0;
}

Tensorflow__TensorShapeProto *tfs_shape__to_proto(const tfs_shape *s,
                                                  tfs_pb_arena *a) {
  Tensorflow__TensorShapeProto *p = tfs_pb_arena_alloc(a, sizeof(*p));
  if (!p) return NULL;
  tensorflow__tensor_shape_proto__init(p);
  if (s->rank < 0) {
    p->unknown_rank = 1;
    return p;
  }
  if (s->rank == 0) return p;
  p->dim = tfs_pb_arena_array(a, (size_t)s->rank, sizeof(*p->dim));
  Tensorflow__TensorShapeProto__Dim *dims =
      tfs_pb_arena_array(a, (size_t)s->rank, sizeof(*dims));
  if (!p->dim || !dims) return NULL;
  for (int i = 0; i < s->rank; i++) {
    tensorflow__tensor_shape_proto__dim__init(&dims[i]);
    dims[i].size = s->dims[i];
    p->dim[i] = &dims[i];
  }
  p->n_dim = (size_t)s->rank;
  return p;
}

/* ---- tensors from protos ------------------------------------------------- */

#define PARSE_ERROR(st, fmt, ...)                                           \
  tfs_status_setf((st), TFS_INVALID_ARGUMENT,                               \
                  "Cannot parse tensor from proto: " fmt, __VA_ARGS__)

/* Fills d[0..n) from src[0..m): the first min(m, n) values, then the last
 * one repeated; zeros when m == 0.  CONV converts one source value. */
#define FILL_FROM(T, d, n, src, m, CONV)                                    \
  do {                                                                      \
    T *d_ = (T *)(d);                                                       \
    int64_t k_ = 0, m_ = (int64_t)(m) < (n) ? (int64_t)(m) : (n);           \
    for (; k_ < m_; k_++) d_[k_] = CONV((src)[k_]);                         \
    for (; k_ < (n); k_++) d_[k_] = m_ ? d_[m_ - 1] : (T)0;                 \
  } while (0)

#define AS_IS(x) (x)
#define AS_BOOL(x) ((uint8_t)((x) != 0))
#define AS_U16(x) ((uint16_t)(x))

/* Complex values come as (re, im) pairs; an odd trailing value is
 * ignored, as TensorFlow counts whole pairs. */
#define FILL_PAIRS(T, d, n, src, m)                                         \
  do {                                                                      \
    T *d_ = (T *)(d);                                                       \
    int64_t pairs_ = (int64_t)((m) / 2);                                    \
    int64_t k_ = 0, m_ = pairs_ < (n) ? pairs_ : (n);                       \
    for (; k_ < m_; k_++) {                                                 \
      d_[2 * k_] = (src)[2 * k_];                                           \
      d_[2 * k_ + 1] = (src)[2 * k_ + 1];                                   \
    }                                                                       \
    for (; k_ < (n); k_++) {                                                \
      d_[2 * k_] = m_ ? d_[2 * (m_ - 1)] : (T)0;                            \
      d_[2 * k_ + 1] = m_ ? d_[2 * (m_ - 1) + 1] : (T)0;                    \
    }                                                                       \
  } while (0)

/* Number of values the typed field for `dt` holds. */
static size_t typed_count(const Tensorflow__TensorProto *p, tfs_dtype dt) {
  switch (dt) {
    case TFS_FLOAT: return p->n_float_val;
    case TFS_DOUBLE: return p->n_double_val;
    case TFS_INT32: case TFS_INT16: case TFS_INT8: case TFS_UINT8:
    case TFS_UINT16: case TFS_QINT8: case TFS_QUINT8: case TFS_QINT16:
    case TFS_QUINT16: case TFS_QINT32:
      return p->n_int_val;
    case TFS_INT64: return p->n_int64_val;
    case TFS_BOOL: return p->n_bool_val;
    case TFS_HALF: case TFS_BFLOAT16: return p->n_half_val;
    case TFS_COMPLEX64: return p->n_scomplex_val / 2;
    case TFS_COMPLEX128: return p->n_dcomplex_val / 2;
    case TFS_UINT32: return p->n_uint32_val;
    case TFS_UINT64: return p->n_uint64_val;
    case TFS_STRING: return p->n_string_val;
    case TFS_RESOURCE: return p->n_resource_handle_val;
    default: return 0;
  }
}

static void fill_numeric(tfs_tensor *t, const Tensorflow__TensorProto *p) {
  int64_t n = t->nelems;
  void *d = t->data;
#define FILL(T, field, CONV) FILL_FROM(T, d, n, p->field, p->n_##field, CONV)
#define PAIRS(T, field) FILL_PAIRS(T, d, n, p->field, p->n_##field)
  switch (t->dtype) {
    case TFS_FLOAT: FILL(float, float_val, AS_IS); break;
    case TFS_DOUBLE: FILL(double, double_val, AS_IS); break;
    case TFS_INT32: case TFS_QINT32: FILL(int32_t, int_val, AS_IS); break;
    case TFS_INT16: case TFS_QINT16: FILL(int16_t, int_val, (int16_t)); break;
    case TFS_UINT16: case TFS_QUINT16:
      FILL(uint16_t, int_val, (uint16_t));
      break;
    case TFS_INT8: case TFS_QINT8: FILL(int8_t, int_val, (int8_t)); break;
    case TFS_UINT8: case TFS_QUINT8: FILL(uint8_t, int_val, (uint8_t)); break;
    case TFS_INT64: FILL(int64_t, int64_val, AS_IS); break;
    case TFS_BOOL: FILL(uint8_t, bool_val, AS_BOOL); break;
    case TFS_HALF: case TFS_BFLOAT16: FILL(uint16_t, half_val, AS_U16); break;
    case TFS_UINT32: FILL(uint32_t, uint32_val, AS_IS); break;
    case TFS_UINT64: FILL(uint64_t, uint64_val, AS_IS); break;
    case TFS_COMPLEX64: PAIRS(float, scomplex_val); break;
    case TFS_COMPLEX128: PAIRS(double, dcomplex_val); break;
    default: break;
  }
#undef FILL
#undef PAIRS
}

static int fill_strings(tfs_tensor *t, const Tensorflow__TensorProto *p,
                        tfs_status *st) {
  tfs_tstring *s = tfs_tensor__strings(t);
  int64_t m = (int64_t)p->n_string_val;
  for (int64_t i = 0; i < t->nelems; i++) {
    if (m == 0) break; /* empty strings already */
    const ProtobufCBinaryData *b = &p->string_val[i < m ? i : m - 1];
    if (tfs_tstring_copy(&s[i], (const char *)b->data, b->len)) {
      TFS_OOM(st);
      return -1;
    }
  }
  return 0;
}

/* TensorFlow's string-list encoding of tensor_content: one varint length
 * per element, then the bytes of all elements.  Reads the next length;
 * -1 when the varint is cut off or above UINT32_MAX. */
static int next_length(const uint8_t **p, const uint8_t *end, size_t *len) {
  uint64_t v = 0;
  int shift = 0, done = 0;
  while (*p < end && shift < 35 && !done) {
    v |= (uint64_t)(**p & 0x7f) << shift;
    done = !(*(*p)++ & 0x80);
    shift += 7;
  }
  *len = (size_t)v;
  return done && v <= UINT32_MAX ? 0 : -1;
}

/* Checks that tensor_content holds n elements in that encoding before
 * anything is sized by n: every element takes at least its one-byte
 * length, so n above the byte count is refused without a pass. */
static int check_string_content(int64_t n, const ProtobufCBinaryData *c,
                                const tfs_shape *shape, tfs_status *st) {
  const uint8_t *p = c->data, *end = c->data + c->len;
  uint64_t total = 0; /* the lengths so far: never above what is left */
  size_t len;
  int bad = n > (int64_t)c->len;
  for (int64_t i = 0; i < n && !bad; i++) {
    bad = next_length(&p, end, &len);
    total += len;
    bad = bad || total > (uint64_t)(end - p);
  }
  if (bad || total != (uint64_t)(end - p)) {
    char sh[TFS_SHAPE_STRLEN];
    PARSE_ERROR(st, "tensor_content of a string tensor of shape %s is not "
                "a valid string list", tfs_shape_str(shape, sh, sizeof sh));
    return -1;
  }
  return 0;
}

/* Decodes what check_string_content accepted. */
static int decode_string_content(tfs_tensor *t, const ProtobufCBinaryData *c,
                                 tfs_status *st) {
  const uint8_t *lp = c->data, *end = c->data + c->len, *bytes = lp;
  size_t len;
  for (int64_t i = 0; i < t->nelems; i++) next_length(&bytes, end, &len);
  tfs_tstring *s = tfs_tensor__strings(t);
  for (int64_t i = 0; i < t->nelems; i++) {
    next_length(&lp, end, &len);
    if (tfs_tstring_copy(&s[i], (const char *)bytes, len)) {
      TFS_OOM(st);
      return -1;
    }
    bytes += len;
  }
  return 0;
}

static int fill_resources(tfs_tensor *t, const Tensorflow__TensorProto *p,
                          tfs_status *st) {
  tfs_resource_handle **h = t->data;
  int64_t m = (int64_t)p->n_resource_handle_val;
  for (int64_t i = 0; i < t->nelems; i++) {
    const Tensorflow__ResourceHandleProto *r =
        m ? p->resource_handle_val[i < m ? i : m - 1] : NULL;
    tfs_shape shape = {.rank = -1};
    tfs_dtype dt = TFS_INVALID;
    if (r && r->n_dtypes_and_shapes && r->dtypes_and_shapes[0]) {
      const Tensorflow__ResourceHandleProto__DtypeAndShape *ds =
          r->dtypes_and_shapes[0];
      dt = (tfs_dtype)ds->dtype;
      if (ds->shape && tfs_shape__from_proto(ds->shape, 1, &shape, st))
        return -1;
    }
    h[i] = tfs_resource_handle_new(r ? r->container : "", r ? r->name : "",
                                   r ? r->maybe_type_name : "", dt, &shape);
    if (!h[i]) {
      TFS_OOM(st);
      return -1;
    }
  }
  return 0;
}

static int check_dtype(int v, tfs_status *st) {
  tfs_dtype dt = (tfs_dtype)v;
  if (!tfs_dtype_is_valid(dt) || tfs_dtype_is_ref(dt)) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "Cannot parse tensor from proto: %d is not a valid "
                    "tensor dtype", v);
    return -1;
  }
  /* variant_val (VariantTensorDataProto) is not decoded */
  if (tfs_dtype__storage_size(dt) == 0 || dt == TFS_VARIANT) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "Cannot parse tensor from proto: tensors of dtype %s "
                    "are not supported", tfs_dtype_name(dt));
    return -1;
  }
  return 0;
}

tfs_tensor *tfs_tensor__from_proto(const Tensorflow__TensorProto *p,
                                   tfs_status *st) {
  if (check_dtype((int)p->dtype, st)) return NULL;
  tfs_dtype dt = (tfs_dtype)p->dtype;
  tfs_shape shape;
  if (tfs_shape__from_proto(p->tensor_shape, 0, &shape, st)) return NULL;
  int64_t n = tfs_shape_num_elements(&shape), bytes;
  int64_t esize = (int64_t)tfs_dtype__storage_size(dt);
  const char *dname = tfs_dtype_name(dt);
  char sh[TFS_SHAPE_STRLEN];
  tfs_shape_str(&shape, sh, sizeof sh);
  int content = p->tensor_content.len > 0 && n > 0;
  /* each resource element is a handle allocated on its own: the expansion
   * limit below counts it */
  if (dt == TFS_RESOURCE) esize += (int64_t)sizeof(tfs_resource_handle);
  if (tfs_mul_overflow_i64(n, esize, &bytes)) bytes = INT64_MAX;
  if (content && dt != TFS_STRING && dt != TFS_RESOURCE &&
      (int64_t)p->tensor_content.len != bytes) {
    PARSE_ERROR(st, "tensor_content has %zu bytes but a %s tensor of shape "
                "%s needs %lld", p->tensor_content.len, dname, sh,
                (long long)bytes);
    return NULL;
  }
  if (content && dt == TFS_STRING &&
      check_string_content(n, &p->tensor_content, &shape, st))
    return NULL;
  if (content && dt == TFS_RESOURCE) {
    PARSE_ERROR(st, "a %s tensor of shape %s cannot come from "
                "tensor_content", dname, sh);
    return NULL;
  }
  if (!content && dt == TFS_STRING && p->n_string_val &&
      p->n_string_val < (size_t)n) {
    /* repeated copies of the last string count too */
    int64_t extra;
    size_t last = p->string_val[p->n_string_val - 1].len;
    if (tfs_mul_overflow_i64(n - (int64_t)p->n_string_val, (int64_t)last,
                             &extra) ||
        tfs_add_overflow_i64(bytes, extra, &bytes))
      bytes = INT64_MAX;
  }
  if (!content && bytes > TFS_TENSOR_PROTO_MAX_EXPANDED_BYTES &&
      typed_count(p, dt) < (size_t)n) {
    PARSE_ERROR(st, "a %s tensor of shape %s would take %lld bytes, more "
                "than the %lld tfsess expands from a *_val list", dname, sh,
                (long long)bytes,
                (long long)TFS_TENSOR_PROTO_MAX_EXPANDED_BYTES);
    return NULL;
  }
  tfs_tensor *t = tfs_tensor__alloc(dt, &shape, st);
  if (!t) return NULL;
  int rc = 0;
  if (n == 0) {
    /* nothing to read, whatever the proto holds (as TensorFlow) */
  } else if (dt == TFS_STRING) {
    rc = content ? decode_string_content(t, &p->tensor_content, st)
                 : fill_strings(t, p, st);
  } else if (dt == TFS_RESOURCE) {
    rc = fill_resources(t, p, st);
  } else if (content) {
    memcpy(t->data, p->tensor_content.data, t->nbytes);
  } else {
    fill_numeric(t, p);
  }
  if (rc) {
    tfs_tensor_free(t);
    return NULL;
  }
  return t;
}

/* ---- tensors to protos --------------------------------------------------- */

/* Writes the first `n` elements of t into the typed field for its dtype
 * (a reader fills the rest with the last one). */
static int set_typed(Tensorflow__TensorProto *p, const tfs_tensor *t,
                     size_t n, tfs_pb_arena *a) {
#define TYPED(field, T, ST)                                                 \
  do {                                                                      \
    T *v_ = tfs_pb_arena_array(a, n, sizeof(T));                            \
    if (!v_) return -1;                                                     \
    for (size_t i_ = 0; i_ < n; i_++) v_[i_] = (T)((const ST *)t->data)[i_]; \
    p->field = v_;                                                          \
    p->n_##field = n;                                                       \
  } while (0)
  switch (t->dtype) {
    case TFS_FLOAT: TYPED(float_val, float, float); break;
    case TFS_DOUBLE: TYPED(double_val, double, double); break;
    case TFS_INT32: case TFS_QINT32: TYPED(int_val, int32_t, int32_t); break;
    case TFS_INT16: case TFS_QINT16: TYPED(int_val, int32_t, int16_t); break;
    case TFS_UINT16: case TFS_QUINT16:
      TYPED(int_val, int32_t, uint16_t);
      break;
    case TFS_INT8: case TFS_QINT8: TYPED(int_val, int32_t, int8_t); break;
    case TFS_UINT8: case TFS_QUINT8: TYPED(int_val, int32_t, uint8_t); break;
    case TFS_INT64: TYPED(int64_val, int64_t, int64_t); break;
    case TFS_BOOL: TYPED(bool_val, protobuf_c_boolean, uint8_t); break;
    case TFS_HALF: case TFS_BFLOAT16: TYPED(half_val, int32_t, uint16_t); break;
    case TFS_UINT32: TYPED(uint32_val, uint32_t, uint32_t); break;
    case TFS_UINT64: TYPED(uint64_val, uint64_t, uint64_t); break;
    case TFS_COMPLEX64:
      n *= 2;
      TYPED(scomplex_val, float, float);
      break;
    case TFS_COMPLEX128:
      n *= 2;
      TYPED(dcomplex_val, double, double);
      break;
    default: break;
  }
#undef TYPED
  return 0;
}

/* How many leading elements the typed field needs: TensorFlow's
 * CompressTensorProtoInPlace idea, everything up to the start of the
 * trailing run of equal elements, plus one; all of them (0) when that
 * saves less than half of tensor_content. */
static size_t typed_prefix(const tfs_tensor *t) {
  size_t es = tfs_dtype__storage_size(t->dtype);
  size_t n = (size_t)t->nelems, k = n - 1;
  const uint8_t *d = t->data;
  while (k > 0 && memcmp(d + (k - 1) * es, d + (n - 1) * es, es) == 0) k--;
  return (k + 1) * es * 2 <= t->nbytes ? k + 1 : 0;
}

static int set_strings(Tensorflow__TensorProto *p, const tfs_tensor *t,
                       tfs_pb_arena *a) {
  size_t n = (size_t)t->nelems;
  p->string_val = tfs_pb_arena_array(a, n, sizeof(ProtobufCBinaryData));
  if (!p->string_val) return -1;
  const tfs_tstring *s = tfs_tensor__strings(t);
  for (size_t i = 0; i < n; i++) {
    p->string_val[i].len = tfs_tstring_size(&s[i]);
    p->string_val[i].data = (uint8_t *)tfs_tstring_data(&s[i]);
  }
  p->n_string_val = n;
  return 0;
}

static int set_resources(Tensorflow__TensorProto *p, const tfs_tensor *t,
                         tfs_pb_arena *a) {
  size_t n = (size_t)t->nelems;
  p->resource_handle_val = tfs_pb_arena_array(a, n, sizeof(void *));
  if (!p->resource_handle_val) return -1;
  for (size_t i = 0; i < n; i++) {
    const tfs_resource_handle *h = tfs_tensor__handle(t, (int64_t)i);
    Tensorflow__ResourceHandleProto *r = tfs_pb_arena_alloc(a, sizeof(*r));
    if (!r) return -1;
    tensorflow__resource_handle_proto__init(r);
    p->resource_handle_val[i] = r;
    if (!h) continue;
    r->device = tfs_pb_arena_strdup(
        a, "/job:localhost/replica:0/task:0/device:CPU:0");
    r->container = tfs_pb_arena_strdup(a, h->container);
    r->name = tfs_pb_arena_strdup(a, h->name);
    r->maybe_type_name = tfs_pb_arena_strdup(a, h->type_name);
    if (!r->device || !r->container || !r->name || !r->maybe_type_name)
      return -1;
    if (h->dtype == TFS_INVALID) continue;
    Tensorflow__ResourceHandleProto__DtypeAndShape *ds =
        tfs_pb_arena_alloc(a, sizeof(*ds));
    r->dtypes_and_shapes = tfs_pb_arena_alloc(a, sizeof(void *));
    if (!ds || !r->dtypes_and_shapes) return -1;
    tensorflow__resource_handle_proto__dtype_and_shape__init(ds);
    ds->dtype = (Tensorflow__DataType)h->dtype;
    ds->shape = tfs_shape__to_proto(&h->shape, a);
    if (!ds->shape) return -1;
    r->dtypes_and_shapes[0] = ds;
    r->n_dtypes_and_shapes = 1;
  }
  p->n_resource_handle_val = n;
  return 0;
}

Tensorflow__TensorProto *tfs_tensor__to_proto(const tfs_tensor *t,
                                              tfs_pb_arena *a,
                                              tfs_status *st) {
  if (tfs_dtype_is_ref(t->dtype) || t->dtype == TFS_VARIANT) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "Cannot serialize a tensor of dtype %s",
                    tfs_dtype_name(t->dtype));
    return NULL;
  }
  Tensorflow__TensorProto *p = tfs_pb_arena_alloc(a, sizeof(*p));
  if (!p) goto oom;
  tensorflow__tensor_proto__init(p);
  p->dtype = (Tensorflow__DataType)t->dtype;
  p->tensor_shape = tfs_shape__to_proto(&t->shape, a);
  if (!p->tensor_shape) goto oom;
  int rc = 0;
  if (t->nelems == 0) {
    /* shape alone */
  } else if (t->dtype == TFS_STRING) {
    rc = set_strings(p, t, a);
  } else if (t->dtype == TFS_RESOURCE) {
    rc = set_resources(p, t, a);
  } else {
    /* one element, or a long run of equal ones at the end: typed values;
     * otherwise raw bytes */
    size_t k = t->nelems == 1 ? 1 : typed_prefix(t);
    if (k) {
      rc = set_typed(p, t, k, a);
    } else {
      p->tensor_content.data = t->data;
      p->tensor_content.len = t->nbytes;
    }
  }
  if (rc) goto oom;
  return p;
oom:
  TFS_OOM(st);
  return NULL;
}

/* ---- serialized forms ---------------------------------------------------- */

tfs_tensor *tfs_tensor__parse_proto(const void *data, size_t len,
                                    tfs_status *st) {
  int oom;
  ProtobufCMessage *m =
      tfs_pb__unpack(&tensorflow__tensor_proto__descriptor, data, len, &oom);
  if (!m) {
    if (oom)
      TFS_OOM(st);
    else
      tfs_status_set(st, TFS_INVALID_ARGUMENT, "Unparseable TensorProto");
    return NULL;
  }
  tfs_tensor *t = tfs_tensor__from_proto((Tensorflow__TensorProto *)m, st);
  tfs_pb__free(m);
  if (t) tfs_status_clear(st);
  return t;
}

int tfs_tensor__serialize_proto(const tfs_tensor *t, tfs_buffer *out,
                                tfs_status *st) {
  if (tfs_pb__check_empty(out, st)) return -1;
  tfs_pb_arena a = TFS_PB_ARENA_INIT;
  Tensorflow__TensorProto *p = tfs_tensor__to_proto(t, &a, st);
  int rc = p ? tfs_pb__pack(&p->base, out, st) : -1;
  tfs_pb_arena_free(&a);
  return rc;
}

int tfs_shape__parse_proto(const void *data, size_t len, tfs_shape *out,
                           tfs_status *st) {
  int oom;
  ProtobufCMessage *m = tfs_pb__unpack(
      &tensorflow__tensor_shape_proto__descriptor, data, len, &oom);
  if (!m) {
    if (oom)
      TFS_OOM(st);
    else
      tfs_status_set(st, TFS_INVALID_ARGUMENT,
                     "Unparseable TensorShapeProto");
    return -1;
  }
  int rc =
      tfs_shape__from_proto((Tensorflow__TensorShapeProto *)m, 1, out, st);
  tfs_pb__free(m);
  if (rc == 0) tfs_status_clear(st);
  return rc;
}

int tfs_shape__serialize_proto(const tfs_shape *s, tfs_buffer *out,
                               tfs_status *st) {
  if (tfs_pb__check_empty(out, st)) return -1;
  tfs_pb_arena a = TFS_PB_ARENA_INIT;
  Tensorflow__TensorShapeProto *p = tfs_shape__to_proto(s, &a);
  int rc = -1;
  if (p)
    rc = tfs_pb__pack(&p->base, out, st);
  else
    TFS_OOM(st);
  tfs_pb_arena_free(&a);
  return rc;
}
