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

/* ---- the writer ------------------------------------------------------------- */

/* Releases the bytes tfs_pb__pack put in b. */
static void buffer_clear(tfs_buffer *b) {
  if (b->data && b->data_deallocator)
    b->data_deallocator((void *)b->data, b->length);
  b->data = NULL;
  b->length = 0;
}

typedef struct {
  char *key;
  tfs_buffer entry; /* packed BundleEntryProto */
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

static int has_key(const tfs_bundle_writer *w, const char *key) {
  for (size_t i = 0; i < w->n; i++)
    if (!strcmp(w->ents[i].key, key)) return 1;
  return 0;
}

void tfs_bundle_writer_add(tfs_bundle_writer *w, const char *key,
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
  if (has_key(w, key)) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT, "Adding duplicate key: %s", key);
    return;
  }
  if (w->n == w->cap) {
    size_t cap = w->cap ? 2 * w->cap : 16;
    w_entry *e = tfs_realloc(w->ents, cap * sizeof *e);
    if (!e) goto oom;
    w->ents = e;
    w->cap = cap;
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
  w_entry *e = &w->ents[w->n];
  memset(e, 0, sizeof *e);
  size_t klen = strlen(key);
  e->key = tfs_malloc(klen + 1);
  if (!e->key) goto oom;
  memcpy(e->key, key, klen + 1);
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

static int cmp_entry(const void *a, const void *b) {
  return strcmp(((const w_entry *)a)->key, ((const w_entry *)b)->key);
}

/* The header entry: one shard, little-endian, producer version 1. */
static int pack_header(tfs_buffer *out, tfs_status *st) {
  Tensorflow__VersionDef v;
  tensorflow__version_def__init(&v);
  v.producer = 1;
  Tensorflow__BundleHeaderProto h;
  tensorflow__bundle_header_proto__init(&h);
  h.num_shards = 1;
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
  int rc = b ? pack_header(&hdr, st) : -1;
  if (!rc) rc = tfs_sst_builder_add(b, "", 0, hdr.data, hdr.length);
  for (size_t i = 0; !rc && i < w->n; i++)
    rc = tfs_sst_builder_add(b, w->ents[i].key, strlen(w->ents[i].key),
                             w->ents[i].entry.data, w->ents[i].entry.length);
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
  }
  tfs_free(w->ents);
  tfs_free(w->prefix);
  tfs_free(w->data_tmp);
  tfs_free(w->data_name);
  tfs_free(w);
}
