/*
 * compat_c_api/legacy_string.c - TensorFlow's pre-2.4 TF_STRING encoding:
 * TF_StringEncode / TF_StringDecode / TF_StringEncodedSize, and tensors
 * in that encoding, decoded into TF_TString tensors where tfsess takes
 * them in.
 */
#include <string.h>

#include "compat_c_api/legacy_string.h"

/* ---- varints ------------------------------------------------------------- */

static size_t varint_len(uint64_t v) {
  size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    n++;
  }
  return n;
}

static char *varint_put(char *p, uint64_t v) {
  while (v >= 0x80) {
    *p++ = (char)(v | 0x80);
    v >>= 7;
  }
  *p++ = (char)v;
  return p;
}

/* Returns the byte after the varint, or NULL when it is malformed or runs
 * past `limit`. */
static const char *varint_get(const char *p, const char *limit,
                              uint64_t *out) {
  uint64_t v = 0;
  for (int shift = 0; shift <= 63 && p < limit; shift += 7) {
    uint8_t b = (uint8_t)*p++;
    v |= (uint64_t)(b & 0x7f) << shift;
    if (!(b & 0x80)) {
      *out = v;
      return p;
    }
  }
  return NULL;
}

/* ---- the three functions ------------------------------------------------- */

size_t TF_StringEncodedSize(size_t len) { return varint_len(len) + len; }

size_t TF_StringEncode(const char *src, size_t src_len, char *dst,
                       size_t dst_len, TF_Status *status) {
  tfs_status *st = ST(status);
  size_t sz = TF_StringEncodedSize(src_len);
  if (sz < src_len) {
    tfs_status_set(st, TFS_INVALID_ARGUMENT,
                   "src string is too large to encode");
    return 0;
  }
  if (dst_len < sz) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "dst_len (%zu) too small to encode a %zu-byte string",
                    dst_len, src_len);
    return 0;
  }
  char *p = varint_put(dst, src_len);
  if (src_len) memcpy(p, src, src_len);
  tfs_status_clear(st);
  return sz;
}

static int decode_one(const char *src, size_t src_len, const char **dst,
                      size_t *dst_len, tfs_status *st) {
  uint64_t len = 0;
  const char *p = varint_get(src, src + src_len, &len);
  if (!p) {
    tfs_status_set(st, TFS_INVALID_ARGUMENT,
                   "invalid string encoding or truncated src buffer");
    return -1;
  }
  if (len > SIZE_MAX) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "encoded string is %llu-bytes, which is too large for "
                    "this architecture", (unsigned long long)len);
    return -1;
  }
  *dst = p;
  *dst_len = (size_t)len;
  return 0;
}

size_t TF_StringDecode(const char *src, size_t src_len, const char **dst,
                       size_t *dst_len, TF_Status *status) {
  tfs_status *st = ST(status);
  if (decode_one(src, src_len, dst, dst_len, st)) return 0;
  /* a length running past src_len: *dst_len bytes would not lie inside
   * src, and the count returned could wrap around to a small number */
  if (*dst_len > src_len - (size_t)(*dst - src)) {
    tfs_status_set(st, TFS_INVALID_ARGUMENT,
                   "invalid string encoding or truncated src buffer");
    return 0;
  }
  tfs_status_clear(st);
  return (size_t)(*dst - src) + *dst_len;
}

/* ---- legacy tensors ------------------------------------------------------ */

int tfs_capi__string_len_is_legacy(const tfs_shape *shape, size_t len) {
  int64_t n = tfs_shape_num_elements(shape);
  return n > 0 && len != (size_t)n * sizeof(tfs_tstring);
}

static tfs_tensor *legacy_tensor(const tfs_shape *shape, uint8_t kind,
                                 void *data, size_t len,
                                 void (*dealloc)(void *, size_t, void *),
                                 void *arg, tfs_status *st) {
  tfs_buf *b = tfs_malloc(sizeof(*b));
  if (!b) {
    TFS_OOM(st);
    return NULL;
  }
  atomic_init(&b->refs, 1);
  b->kind = kind;
  b->elem_kind = 0; /* raw bytes: nothing to deallocate per element */
  b->data = data;
  b->len = len;
  b->nelems = 0;
  b->dealloc = dealloc;
  b->arg = arg;
  tfs_tensor *t = tfs_tensor__over_buf(TFS_STRING, shape, b, data, st);
  if (t) t->nbytes = len;
  return t;
}

tfs_tensor *tfs_capi__legacy_alloc(const tfs_shape *shape, size_t len,
                                   tfs_status *st) {
  void *data = tfs_aligned_alloc(len);
  if (!data) {
    TFS_OOM(st);
    return NULL;
  }
  memset(data, 0, len);
  tfs_tensor *t = legacy_tensor(shape, TFS_BUF_OWNED, data, len, NULL, NULL,
                                st);
  if (!t) tfs_aligned_free(data);
  return t;
}

tfs_tensor *tfs_capi__legacy_wrap(const tfs_shape *shape, void *data,
                                  size_t len,
                                  void (*dealloc)(void *, size_t, void *),
                                  void *arg, tfs_status *st) {
  return legacy_tensor(shape, TFS_BUF_EXTERNAL, data, len, dealloc, arg, st);
}

/* A TF_TString tensor from the legacy encoding, with TensorFlow's checks
 * and messages. */
static tfs_tensor *decode_tensor(const tfs_tensor *t, tfs_status *st) {
  int64_t n = t->nelems;
  const char *in = t->data;
  size_t size = t->nbytes;
  if ((int64_t)(size / sizeof(uint64_t)) < n) {
    tfs_status_set(st, TFS_INVALID_ARGUMENT,
                   "Malformed TF_STRING tensor; too short to hold number of "
                   "elements");
    return NULL;
  }
  const char *data_start = in + sizeof(uint64_t) * (size_t)n;
  const char *limit = in + size;
  tfs_tensor *out = tfs_tensor__alloc(TFS_STRING, &t->shape, st);
  if (!out) return NULL;
  tfs_tstring *dst = out->data;
  for (int64_t i = 0; i < n; i++) {
    uint64_t offset;
    const char *p;
    size_t len;
    memcpy(&offset, in + sizeof(uint64_t) * (size_t)i, sizeof offset);
    if (offset >= (uint64_t)(limit - data_start)) {
      tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                      "Malformed TF_STRING tensor; element %lld out of range",
                      (long long)i);
      goto fail;
    }
    const char *src = data_start + offset;
    if (decode_one(src, (size_t)(limit - src), &p, &len, st)) goto fail;
    if (len > (size_t)(limit - p)) {
      tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                      "Malformed TF_STRING tensor; element %lld out of range",
                      (long long)i);
      goto fail;
    }
    if (tfs_tstring_copy(&dst[i], p, len)) {
      TFS_OOM(st);
      goto fail;
    }
  }
  return out;
fail:
  tfs_tensor_free(out);
  return NULL;
}

tfs_tensor *tfs_capi__tensor_in(tfs_tensor *t, int *owned, tfs_status *st) {
  *owned = 0;
  if (!t) {
    tfs_status_set(st, TFS_INVALID_ARGUMENT, "Input tensor is NULL");
    return NULL;
  }
  if (!tfs_capi__is_legacy(t)) return t;
  tfs_tensor *d = decode_tensor(t, st);
  if (d) *owned = 1;
  return d;
}

int tfs_capi__tensors_in(tfs_tensor *const *in, int n, tfs_tensor **out,
                         tfs_status *st) {
  for (int i = 0; i < n; i++) {
    int owned;
    out[i] = tfs_capi__tensor_in(in[i], &owned, st);
    if (!out[i]) {
      tfs_capi__tensors_release(in, out, i);
      return -1;
    }
  }
  return 0;
}

void tfs_capi__tensors_release(tfs_tensor *const *in, tfs_tensor **out,
                               int n) {
  for (int i = 0; i < n; i++)
    if (out[i] != in[i]) tfs_tensor_free(out[i]);
}
