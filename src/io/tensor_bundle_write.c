/*
 * io/tensor_bundle_write.c - the V2 checkpoint writer: tensors appended
 * to one data shard as they come, entries sorted into the .index table
 * at the end (see tfsess/checkpoint.h), and the names and slice keys the
 * reader shares.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "config_proto/pb_util.h"
#include "core/alloc.h"
#include "core/status.h"
#include "io/sstable.h"
#include "io/tensor_bundle.h"
#include "proto/tensor_bundle.pb-c.h"
#include "tfsess/io.h"

/* ---- names and keys ------------------------------------------------------- */

static char *format_name(const char *fmt, const char *prefix, int a, int b) {
  int n = snprintf(NULL, 0, fmt, prefix, a, b);
  char *s = n < 0 ? NULL : tfs_malloc((size_t)n + 1);
  if (s) snprintf(s, (size_t)n + 1, fmt, prefix, a, b);
  return s;
}

char *tfs_bundle__data_name(const char *prefix, int shard, int num_shards) {
  return format_name("%s.data-%05d-of-%05d", prefix, shard, num_shards);
}

char *tfs_bundle__index_name(const char *prefix) {
  size_t n = strlen(prefix);
  char *s = tfs_malloc(n + sizeof ".index");
  if (s) {
    memcpy(s, prefix, n);
    memcpy(s + n, ".index", sizeof ".index");
  }
  return s;
}

typedef struct {
  uint8_t *p;
  size_t n, cap;
} keybuf;

static void kput(keybuf *k, uint8_t c) {
  if (k->n < k->cap) k->p[k->n] = c;
  k->n++;
}

/* OrderedCode's WriteNumIncreasing: a length byte, then the big-endian
 * bytes without leading zeros. */
static void num_increasing(keybuf *k, uint64_t v) {
  int n = 0;
  for (uint64_t t = v; t; t >>= 8) n++;
  kput(k, (uint8_t)n);
  for (int i = n - 1; i >= 0; i--) kput(k, (uint8_t)(v >> (8 * i)));
}

/* OrderedCode's WriteSignedNumIncreasing: the length in unary in the
 * leading bits, then the value's bits, sign-extended. */
static void signed_increasing(keybuf *k, int64_t v) {
  static const uint8_t header[11][2] = {
      {0, 0},    {0x80, 0}, {0xc0, 0}, {0xe0, 0},    {0xf0, 0},   {0xf8, 0},
      {0xfc, 0}, {0xfe, 0}, {0xff, 0}, {0xff, 0x80}, {0xff, 0xc0}};
  uint64_t x = v < 0 ? ~(uint64_t)v : (uint64_t)v;
  if (x < 64) {
    kput(k, (uint8_t)(header[1][0] ^ (uint8_t)v));
    return;
  }
  int bits = 0;
  for (uint64_t t = x; t; t >>= 1) bits++;
  int len = (bits + 7) / 7; /* the least len with 7 * len - 1 >= bits */
  uint8_t buf[10];
  uint8_t sign = v < 0 ? 0xff : 0;
  buf[0] = buf[1] = sign;
  for (int i = 0; i < 8; i++) buf[2 + i] = (uint8_t)((uint64_t)v >> (56 - 8 * i));
  uint8_t *b = buf + 10 - len;
  b[0] ^= header[len][0];
  b[1] ^= header[len][1];
  for (int i = 0; i < len; i++) kput(k, b[i]);
}

size_t tfs_bundle__slice_key(const char *name, int rank, const int64_t *start,
                             const int64_t *length, uint8_t *out, size_t cap) {
  keybuf k = {out, 0, cap};
  num_increasing(&k, 0);
  for (const uint8_t *s = (const uint8_t *)name; *s; s++) {
    kput(&k, *s);
    if (*s == 0xff) kput(&k, 0x00);
  }
  kput(&k, 0x00);
  kput(&k, 0x01);
  num_increasing(&k, (uint64_t)rank);
  for (int d = 0; d < rank; d++) {
    signed_increasing(&k, start[d]);
    signed_increasing(&k, length[d]);
  }
  return k.n;
}

int tfs_bundle__make_parent_dir(const char *prefix, tfs_status *st) {
  const char *slash = strrchr(prefix, '/');
  if (!slash || slash == prefix) return 0;
  size_t n = (size_t)(slash - prefix);
  char *dir = tfs_malloc(n + 1);
  if (!dir) {
    tfs_status_set(st, TFS_RESOURCE_EXHAUSTED, "out of memory");
    return -1;
  }
  memcpy(dir, prefix, n);
  dir[n] = 0;
  int rc = 0;
  if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
    tfs_status_setf(st, errno == ENOENT || errno == ENOTDIR ? TFS_NOT_FOUND
                        : errno == EACCES ? TFS_PERMISSION_DENIED
                                          : TFS_UNKNOWN,
                    "%s; %s", dir, strerror(errno));
    rc = -1;
  }
  tfs_free(dir);
  return rc;
}

/* ---- the writer ------------------------------------------------------------- */

/* Releases the bytes tfs_pb__pack put in b. */
static void buffer_clear(tfs_buffer *b) {
  if (b->data && b->data_deallocator)
    b->data_deallocator((void *)b->data, b->length);
  b->data = NULL;
  b->length = 0;
}

/* A partitioned tensor's parent entry: dtype, full shape and the slices
 * added so far; packed when the index is written. */
typedef struct {
  tfs_dtype dtype;
  int rank;
  int64_t dims[TFS_MAX_RANK];
  int64_t (*slices)[2][TFS_MAX_RANK]; /* start, length (-1: whole) */
  size_t n;
} w_parent;

typedef struct {
  char *key; /* klen bytes (a slice key holds NULs), NUL-terminated */
  size_t klen;
  tfs_buffer entry; /* packed BundleEntryProto; empty for a parent */
  w_parent *parent;
} w_entry;

struct tfs_bundle_writer {
  char *prefix, *data_tmp, *data_name;
  FILE *data;
  uint64_t offset;
  w_entry *ents;
  size_t n, cap;
  int failed;
};

static char *temp_name(const char *name) {
  static unsigned long long counter;
  unsigned long long r = ((unsigned long long)time(NULL) << 20) ^
                         ((unsigned long long)getpid() << 40) ^
                         __atomic_add_fetch(&counter, 1, __ATOMIC_RELAXED);
  int n = snprintf(NULL, 0, "%s.tempstate%llu", name, r);
  char *s = tfs_malloc((size_t)n + 1);
  if (s) snprintf(s, (size_t)n + 1, "%s.tempstate%llu", name, r);
  return s;
}

tfs_bundle_writer *tfs_bundle_writer_open(const char *prefix,
                                          tfs_status *st) {
  tfs_bundle_writer *w = tfs_calloc(1, sizeof *w);
  size_t plen = strlen(prefix);
  if (w) w->prefix = tfs_malloc(plen + 1);
  if (w && w->prefix) memcpy(w->prefix, prefix, plen + 1);
  if (w && w->prefix) w->data_name = tfs_bundle__data_name(prefix, 0, 1);
  if (w && w->data_name) w->data_tmp = temp_name(w->data_name);
  if (!w || !w->data_tmp) {
    tfs_bundle_writer_free(w);
    tfs_status_set(st, TFS_RESOURCE_EXHAUSTED, "out of memory");
    return NULL;
  }
  if (tfs_bundle__make_parent_dir(prefix, st)) {
    tfs_bundle_writer_free(w);
    return NULL;
  }
  w->data = fopen(w->data_tmp, "wb");
  if (!w->data) {
    tfs_status_setf(st, errno == ENOENT ? TFS_NOT_FOUND : TFS_PERMISSION_DENIED,
                    "%s: %s", w->data_tmp, strerror(errno));
    tfs_bundle_writer_free(w);
    return NULL;
  }
  return w;
}

/* Writes a string tensor's lengths, their checksum and the bytes;
 * returns the running CRC the entry records. */
static uint32_t write_strings(tfs_bundle_writer *w, const tfs_tensor *t,
                              uint64_t *size) {
  int64_t n = tfs_tensor_num_elements(t);
  uint32_t crc = 0;
  uint64_t bytes = 0;
  for (int64_t i = 0; i < n; i++) {
    size_t len;
    tfs_tensor_string_at(t, i, &len);
    uint8_t v[10];
    int k = 0;
    for (uint64_t x = len; ; x >>= 7) {
      v[k++] = (uint8_t)(x >= 0x80 ? (x & 0x7f) | 0x80 : x);
      if (x < 0x80) break;
    }
    if (fwrite(v, 1, (size_t)k, w->data) != (size_t)k) w->failed = 1;
    bytes += (uint64_t)k;
    if ((uint64_t)len <= UINT32_MAX) {
      uint8_t l4[4] = {(uint8_t)len, (uint8_t)(len >> 8), (uint8_t)(len >> 16),
                       (uint8_t)((uint64_t)len >> 24)};
      crc = tfs_crc32c_extend(crc, l4, 4);
    } else {
      uint8_t l8[8];
      for (int b = 0; b < 8; b++) l8[b] = (uint8_t)((uint64_t)len >> (8 * b));
      crc = tfs_crc32c_extend(crc, l8, 8);
    }
  }
  uint32_t m = tfs_crc32c_mask(crc);
  uint8_t m4[4] = {(uint8_t)m, (uint8_t)(m >> 8), (uint8_t)(m >> 16),
                   (uint8_t)(m >> 24)};
  if (fwrite(m4, 1, 4, w->data) != 4) w->failed = 1;
  crc = tfs_crc32c_extend(crc, m4, 4);
  bytes += 4;
  for (int64_t i = 0; i < n; i++) {
    size_t len;
    const char *s = tfs_tensor_string_at(t, i, &len);
    if (len && fwrite(s, 1, len, w->data) != len) w->failed = 1;
    crc = tfs_crc32c_extend(crc, s, len);
    bytes += len;
  }
  *size = bytes;
  return crc;
}

static int pack_entry(const tfs_tensor *t, uint64_t offset, uint64_t size,
                      uint32_t crc, tfs_buffer *out, tfs_status *st) {
  int nd = tfs_tensor_ndims(t);
  Tensorflow__TensorShapeProto__Dim dims[TFS_MAX_RANK];
  Tensorflow__TensorShapeProto__Dim *dp[TFS_MAX_RANK];
  for (int i = 0; i < nd; i++) {
    tensorflow__tensor_shape_proto__dim__init(&dims[i]);
    dims[i].size = tfs_tensor_dim(t, i);
    dp[i] = &dims[i];
  }
  Tensorflow__TensorShapeProto shape;
  tensorflow__tensor_shape_proto__init(&shape);
  shape.n_dim = (size_t)nd;
  shape.dim = dp;
  Tensorflow__BundleEntryProto e;
  tensorflow__bundle_entry_proto__init(&e);
  e.dtype = (Tensorflow__DataType)tfs_tensor_dtype(t);
  e.shape = &shape;
  e.offset = (int64_t)offset;
  e.size = (int64_t)size;
  e.crc32c = tfs_crc32c_mask(crc);
  return tfs_pb__pack(&e.base, out, st);
}

/* Index of the entry with this key, or -1. */
static long find_entry(const tfs_bundle_writer *w, const char *key,
                       size_t klen) {
  for (size_t i = 0; i < w->n; i++)
    if (w->ents[i].klen == klen && !memcmp(w->ents[i].key, key, klen))
      return (long)i;
  return -1;
}

/* Room for one more entry, cleared; NULL when memory runs out. */
static w_entry *new_entry(tfs_bundle_writer *w, const char *key,
                          size_t klen) {
  if (w->n == w->cap) {
    size_t cap = w->cap ? 2 * w->cap : 16;
    w_entry *e = tfs_realloc(w->ents, cap * sizeof *e);
    if (!e) return NULL;
    w->ents = e;
    w->cap = cap;
  }
  w_entry *e = &w->ents[w->n];
  memset(e, 0, sizeof *e);
  e->key = tfs_malloc(klen + 1);
  if (!e->key) return NULL;
  memcpy(e->key, key, klen);
  e->key[klen] = 0;
  e->klen = klen;
  return e;
}

/* Appends t's bytes under a key of klen bytes. */
static void add_keyed(tfs_bundle_writer *w, const char *key, size_t klen,
                      const tfs_tensor *t, tfs_status *st) {
  tfs_dtype dt = tfs_tensor_dtype(t);
  if (w->failed) {
    tfs_status_set(st, TFS_FAILED_PRECONDITION,
                   "the checkpoint writer failed before");
    return;
  }
  if (dt == TFS_RESOURCE || dt == TFS_VARIANT || !tfs_dtype_is_valid(dt) ||
      tfs_dtype_is_ref(dt)) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "Cannot save tensor %s of dtype %s in a checkpoint", key,
                    tfs_dtype_name(dt));
    return;
  }
  if (find_entry(w, key, klen) >= 0) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT, "Adding duplicate key: %.*s",
                    (int)klen, key);
    return;
  }
  uint64_t size;
  uint32_t crc;
  if (dt == TFS_STRING) {
    crc = write_strings(w, t, &size);
  } else {
    size = tfs_tensor_byte_size(t);
    const void *d = tfs_tensor_data(t);
    crc = tfs_crc32c(d, (size_t)size);
    if (size && fwrite(d, 1, (size_t)size, w->data) != size) w->failed = 1;
  }
  if (w->failed) {
    tfs_status_setf(st, TFS_INTERNAL, "%s: write failed", w->data_tmp);
    return;
  }
  w_entry *e = new_entry(w, key, klen);
  if (!e) goto oom;
  if (pack_entry(t, w->offset, size, crc, &e->entry, st)) {
    tfs_free(e->key);
    w->failed = 1;
    return;
  }
  w->n++;
  w->offset += size;
  return;
oom:
  w->failed = 1;
  tfs_status_set(st, TFS_RESOURCE_EXHAUSTED, "out of memory");
}

void tfs_bundle_writer_add(tfs_bundle_writer *w, const char *key,
                           const tfs_tensor *t, tfs_status *st) {
  add_keyed(w, key, strlen(key), t, st);
}

/* Records slice (start, length) in the parent entry of `key`, made on
 * first use. */
static int add_to_parent(tfs_bundle_writer *w, const char *key, int rank,
                         const int64_t *dims, const int64_t *start,
                         const int64_t *length, tfs_dtype dt,
                         tfs_status *st) {
  size_t klen = strlen(key);
  long k = find_entry(w, key, klen);
  w_parent *p = k >= 0 ? w->ents[k].parent : NULL;
  if (k >= 0 && !p) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT, "Adding duplicate key: %s", key);
    return -1;
  }
  if (p && (p->dtype != dt || p->rank != rank ||
            memcmp(p->dims, dims, (size_t)rank * sizeof *dims))) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "Slices of %s differ in dtype or full shape", key);
    return -1;
  }
  if (!p) {
    w_entry *e = new_entry(w, key, klen);
    if (e) e->parent = p = tfs_calloc(1, sizeof *p);
    if (!p) {
      if (e) tfs_free(e->key);
      goto oom;
    }
    w->n++;
    p->dtype = dt;
    p->rank = rank;
    memcpy(p->dims, dims, (size_t)rank * sizeof *dims);
  }
  void *grown = tfs_realloc(p->slices, (p->n + 1) * sizeof *p->slices);
  if (!grown) goto oom;
  p->slices = grown;
  memcpy(p->slices[p->n][0], start, (size_t)rank * sizeof *start);
  memcpy(p->slices[p->n][1], length, (size_t)rank * sizeof *length);
  p->n++;
  return 0;
oom:
  w->failed = 1;
  tfs_status_set(st, TFS_RESOURCE_EXHAUSTED, "out of memory");
  return -1;
}

void tfs_bundle_writer_add_slice(tfs_bundle_writer *w, const char *key,
                                 int rank, const int64_t *full_dims,
                                 const int64_t *start, const int64_t *length,
                                 const tfs_tensor *t, tfs_status *st) {
  int full = 1;
  if (rank < 0 || rank > TFS_MAX_RANK || rank != tfs_tensor_ndims(t)) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "Slice of %s has rank %d, the tensor rank %d", key, rank,
                    tfs_tensor_ndims(t));
    return;
  }
  for (int d = 0; d < rank; d++) {
    int whole = length[d] < 0;
    int64_t len = whole ? full_dims[d] : length[d];
    if ((!whole && (start[d] < 0 || start[d] > full_dims[d] ||
                    len > full_dims[d] - start[d])) ||
        tfs_tensor_dim(t, d) != len) {
      tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                      "Slice of %s does not fit its full shape or tensor",
                      key);
      return;
    }
    if (!whole && (start[d] != 0 || len != full_dims[d])) full = 0;
  }
  if (full) {
    tfs_bundle_writer_add(w, key, t, st);
    return;
  }
  uint8_t kbuf[512], *kp = kbuf;
  size_t kn = tfs_bundle__slice_key(key, rank, start, length, kbuf,
                                    sizeof kbuf);
  if (kn > sizeof kbuf) {
    kp = tfs_malloc(kn);
    if (!kp) {
      tfs_status_set(st, TFS_RESOURCE_EXHAUSTED, "out of memory");
      return;
    }
    tfs_bundle__slice_key(key, rank, start, length, kp, kn);
  }
  if (!add_to_parent(w, key, rank, full_dims, start, length,
                     tfs_tensor_dtype(t), st)) {
    add_keyed(w, (const char *)kp, kn, t, st);
    if (!tfs_status_ok(st)) w->failed = 1; /* the parent lists the slice */
  }
  if (kp != kbuf) tfs_free(kp);
}

/* A parent entry: dtype, full shape and its slices (whole dimensions as
 * empty extents, as TensorSlice::AsProto writes them). */
static int pack_parent(const w_parent *p, tfs_buffer *out, tfs_status *st) {
  Tensorflow__TensorShapeProto__Dim dims[TFS_MAX_RANK];
  Tensorflow__TensorShapeProto__Dim *dp[TFS_MAX_RANK];
  for (int i = 0; i < p->rank; i++) {
    tensorflow__tensor_shape_proto__dim__init(&dims[i]);
    dims[i].size = p->dims[i];
    dp[i] = &dims[i];
  }
  Tensorflow__TensorShapeProto shape;
  tensorflow__tensor_shape_proto__init(&shape);
  shape.n_dim = (size_t)p->rank;
  shape.dim = dp;
  size_t next = p->n * (size_t)(p->rank ? p->rank : 1);
  Tensorflow__TensorSliceProto *sl = tfs_calloc(p->n ? p->n : 1, sizeof *sl);
  Tensorflow__TensorSliceProto **slp = tfs_calloc(p->n ? p->n : 1,
                                                  sizeof *slp);
  Tensorflow__TensorSliceProto__Extent *ex = tfs_calloc(next, sizeof *ex);
  Tensorflow__TensorSliceProto__Extent **exp = tfs_calloc(next, sizeof *exp);
  int rc = -1;
  if (!sl || !slp || !ex || !exp) {
    tfs_status_set(st, TFS_RESOURCE_EXHAUSTED, "out of memory");
    goto out;
  }
  for (size_t i = 0; i < p->n; i++) {
    tensorflow__tensor_slice_proto__init(&sl[i]);
    slp[i] = &sl[i];
    sl[i].n_extent = (size_t)p->rank;
    sl[i].extent = exp + i * (size_t)p->rank;
    for (int d = 0; d < p->rank; d++) {
      Tensorflow__TensorSliceProto__Extent *x = &ex[i * (size_t)p->rank + d];
      tensorflow__tensor_slice_proto__extent__init(x);
      if (p->slices[i][1][d] >= 0) {
        x->start = p->slices[i][0][d];
        x->has_length_case =
            TENSORFLOW__TENSOR_SLICE_PROTO__EXTENT__HAS_LENGTH_LENGTH;
        x->length = p->slices[i][1][d];
      }
      sl[i].extent[d] = x;
    }
  }
  Tensorflow__BundleEntryProto e;
  tensorflow__bundle_entry_proto__init(&e);
  e.dtype = (Tensorflow__DataType)p->dtype;
  e.shape = &shape;
  e.n_slices = p->n;
  e.slices = slp;
  rc = tfs_pb__pack(&e.base, out, st);
out:
  tfs_free(sl);
  tfs_free(slp);
  tfs_free(ex);
  tfs_free(exp);
  return rc;
}

static int cmp_entry(const void *a, const void *b) {
  const w_entry *x = a, *y = b;
  size_t m = x->klen < y->klen ? x->klen : y->klen;
  int c = memcmp(x->key, y->key, m);
  if (c) return c;
  return x->klen < y->klen ? -1 : x->klen > y->klen;
}

int tfs_bundle__pack_header(int num_shards, tfs_buffer *out,
                            tfs_status *st) {
  Tensorflow__VersionDef v;
  tensorflow__version_def__init(&v);
  v.producer = 1;
  Tensorflow__BundleHeaderProto h;
  tensorflow__bundle_header_proto__init(&h);
  h.num_shards = num_shards;
  h.version = &v;
  return tfs_pb__pack(&h.base, out, st);
}

static int write_index(tfs_bundle_writer *w, const char *tmp, tfs_status *st) {
  FILE *f = fopen(tmp, "wb");
  if (!f) {
    tfs_status_setf(st, TFS_PERMISSION_DENIED, "%s: %s", tmp, strerror(errno));
    return -1;
  }
  tfs_sst_builder *b = tfs_sst_builder_new(f, TFS_SST_BLOCK_SIZE);
  tfs_buffer hdr = {0};
  int rc = b ? tfs_bundle__pack_header(1, &hdr, st) : -1;
  if (!rc) rc = tfs_sst_builder_add(b, "", 0, hdr.data, hdr.length);
  for (size_t i = 0; !rc && i < w->n; i++) {
    if (w->ents[i].parent)
      rc = pack_parent(w->ents[i].parent, &w->ents[i].entry, st);
    if (!rc)
      rc = tfs_sst_builder_add(b, w->ents[i].key, w->ents[i].klen,
                               w->ents[i].entry.data,
                               w->ents[i].entry.length);
  }
  if (!rc) rc = tfs_sst_builder_finish(b);
  buffer_clear(&hdr);
  tfs_sst_builder_free(b);
  if (fclose(f) != 0) rc = -1;
  if (rc && tfs_status_ok(st))
    tfs_status_setf(st, TFS_INTERNAL, "%s: write failed", tmp);
  return rc;
}

void tfs_bundle_writer_finish(tfs_bundle_writer *w, tfs_status *st) {
  if (w->failed || !w->data) {
    tfs_status_set(st, TFS_FAILED_PRECONDITION,
                   "the checkpoint writer failed or finished before");
    return;
  }
  int rc = fclose(w->data);
  w->data = NULL;
  if (rc) {
    w->failed = 1;
    tfs_status_setf(st, TFS_INTERNAL, "%s: write failed", w->data_tmp);
    return;
  }
  qsort(w->ents, w->n, sizeof *w->ents, cmp_entry);
  char *index = tfs_bundle__index_name(w->prefix);
  char *itmp = index ? temp_name(index) : NULL;
  if (!itmp) {
    tfs_status_set(st, TFS_RESOURCE_EXHAUSTED, "out of memory");
  } else if (!write_index(w, itmp, st)) {
    if (rename(w->data_tmp, w->data_name) || rename(itmp, index))
      tfs_status_setf(st, TFS_INTERNAL, "rename to %s: %s", index,
                      strerror(errno));
  }
  if (itmp) remove(itmp);
  if (!tfs_status_ok(st)) w->failed = 1;
  tfs_free(index);
  tfs_free(itmp);
}

void tfs_bundle_writer_free(tfs_bundle_writer *w) {
  if (!w) return;
  if (w->data) fclose(w->data);
  if (w->data_tmp) remove(w->data_tmp);
  for (size_t i = 0; i < w->n; i++) {
    tfs_free(w->ents[i].key);
    buffer_clear(&w->ents[i].entry);
    if (w->ents[i].parent) tfs_free(w->ents[i].parent->slices);
    tfs_free(w->ents[i].parent);
  }
  tfs_free(w->ents);
  tfs_free(w->prefix);
  tfs_free(w->data_tmp);
  tfs_free(w->data_name);
  tfs_free(w);
}
