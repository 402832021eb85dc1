/*
 * io/tensor_bundle_read.c - the V2 checkpoint reader: the whole .index
 * table parsed at open (it holds only metadata), data shards opened on
 * demand, every tensor's size and masked CRC32C checked, partitioned
 * tensors assembled from their slice entries (see tfsess/checkpoint.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config_proto/pb_util.h"
#include "core/alloc.h"
#include "core/status.h"
#include "io/sstable.h"
#include "io/tensor_bundle.h"
#include "proto/tensor_bundle.pb-c.h"
#include "tfsess/io.h"

typedef struct {
  char *key;
  size_t klen;
  Tensorflow__BundleEntryProto *e;
  int64_t dims[TFS_MAX_RANK];
  int ndims;
} r_entry;

struct tfs_bundle_reader {
  char *prefix;
  r_entry *ents; /* sorted by key, the header excluded */
  int n, cap;
  int *visible; /* indexes of ents that are tensors, not slices */
  int nvisible;
  int num_shards;
  FILE **shards;
};

/* ---- opening ------------------------------------------------------------- */

static int read_file(const char *path, uint8_t **out, size_t *len,
                     tfs_status *st) {
  FILE *f = fopen(path, "rb");
  if (!f) return -2;
  uint8_t *buf = NULL;
  size_t n = 0, cap = 0;
  for (;;) {
    if (n == cap) {
      cap = cap ? 2 * cap : 65536;
      uint8_t *b = tfs_realloc(buf, cap);
      if (!b) {
        tfs_free(buf);
        fclose(f);
        tfs_status_set(st, TFS_RESOURCE_EXHAUSTED, "out of memory");
        return -1;
      }
      buf = b;
    }
    size_t got = fread(buf + n, 1, cap - n, f);
    n += got;
    if (got == 0) break;
  }
  int err = ferror(f);
  fclose(f);
  if (err) {
    tfs_free(buf);
    tfs_status_setf(st, TFS_DATA_LOSS, "%s: read error", path);
    return -1;
  }
  *out = buf;
  *len = n;
  return 0;
}

static int check_shape(const char *path, r_entry *r, tfs_status *st) {
  const Tensorflow__TensorShapeProto *s = r->e->shape;
  if (!s) return 0;
  if (s->unknown_rank || s->n_dim > TFS_MAX_RANK) goto bad;
  int64_t total = 1;
  for (size_t i = 0; i < s->n_dim; i++) {
    int64_t d = s->dim[i]->size;
    if (d < 0) goto bad;
    if (d && total > INT64_MAX / d) goto bad;
    total *= d;
    r->dims[i] = d;
  }
  r->ndims = (int)s->n_dim;
  return 0;
bad:
  tfs_status_setf(st, TFS_DATA_LOSS,
                  "%s: Invalid tensor shape for key %.*s", path,
                  (int)(r->klen > 200 ? 200 : r->klen), r->key);
  return -1;
}

typedef struct {
  tfs_bundle_reader *r;
  const char *path;
  tfs_status *st;
  int seen_header;
} open_ctx;

static int check_header(open_ctx *c, const uint8_t *val, size_t vlen) {
  int oom = 0;
  Tensorflow__BundleHeaderProto *h = (Tensorflow__BundleHeaderProto *)
      tfs_pb__unpack(&tensorflow__bundle_header_proto__descriptor, val, vlen,
                     &oom);
  if (!h) {
    tfs_status_setf(c->st, oom ? TFS_RESOURCE_EXHAUSTED : TFS_DATA_LOSS,
                    "%s: corrupt BundleHeaderProto", c->path);
    return -1;
  }
  int rc = 0;
  int producer = h->version ? h->version->producer : 0;
  int min_consumer = h->version ? h->version->min_consumer : 0;
  if (h->num_shards < 1 || h->num_shards > 99999) {
    tfs_status_setf(c->st, TFS_DATA_LOSS, "%s: bad num_shards %d", c->path,
                    (int)h->num_shards);
    rc = -1;
  } else if (h->endianness != TENSORFLOW__BUNDLE_HEADER_PROTO__ENDIANNESS__LITTLE) {
    tfs_status_setf(c->st, TFS_UNIMPLEMENTED,
                    "%s: big-endian checkpoints are not supported", c->path);
    rc = -1;
  } else if (min_consumer > 1) {
    tfs_status_setf(c->st, TFS_INVALID_ARGUMENT,
                    "Checkpoint min consumer version %d above current version "
                    "1 for TensorFlow", min_consumer);
    rc = -1;
  } else if (producer < 0) {
    tfs_status_setf(c->st, TFS_INVALID_ARGUMENT,
                    "Checkpoint producer version %d below min producer 0 "
                    "supported by TensorFlow", producer);
    rc = -1;
  }
  for (size_t i = 0; !rc && h->version && i < h->version->n_bad_consumers; i++)
    if (h->version->bad_consumers[i] == 1) {
      tfs_status_set(c->st, TFS_INVALID_ARGUMENT,
                     "Checkpoint disallows consumer version 1.  Please "
                     "upgrade TensorFlow: this version is likely buggy.");
      rc = -1;
    }
  c->r->num_shards = h->num_shards;
  tfs_pb__free(&h->base);
  return rc;
}

static int on_entry(void *ctx, const uint8_t *key, size_t klen,
                    const uint8_t *val, size_t vlen) {
  open_ctx *c = ctx;
  tfs_bundle_reader *r = c->r;
  if (klen == 0) {
    c->seen_header = 1;
    return check_header(c, val, vlen);
  }
  if (r->n == r->cap) {
    int cap = r->cap ? 2 * r->cap : 64;
    r_entry *e = tfs_realloc(r->ents, (size_t)cap * sizeof *e);
    if (!e) goto oom;
    r->ents = e;
    r->cap = cap;
  }
  r_entry *e = &r->ents[r->n];
  memset(e, 0, sizeof *e);
  e->key = tfs_malloc(klen + 1);
  if (!e->key) goto oom;
  memcpy(e->key, key, klen);
  e->key[klen] = 0;
  e->klen = klen;
  int oom = 0;
  e->e = (Tensorflow__BundleEntryProto *)tfs_pb__unpack(
      &tensorflow__bundle_entry_proto__descriptor, val, vlen, &oom);
  if (!e->e) {
    tfs_free(e->key);
    if (oom) goto oom;
    tfs_status_setf(c->st, TFS_DATA_LOSS, "%s: corrupt BundleEntryProto",
                    c->path);
    return -1;
  }
  r->n++;
  return check_shape(c->path, e, c->st);
oom:
  tfs_status_set(c->st, TFS_RESOURCE_EXHAUSTED, "out of memory");
  return -1;
}

tfs_bundle_reader *tfs_bundle_reader_open(const char *prefix,
                                          tfs_status *st) {
  tfs_bundle_reader *r = tfs_calloc(1, sizeof *r);
  char *path = tfs_bundle__index_name(prefix);
  size_t plen = strlen(prefix);
  if (r) r->prefix = tfs_malloc(plen + 1);
  if (!r || !path || !r->prefix) {
    tfs_status_set(st, TFS_RESOURCE_EXHAUSTED, "out of memory");
    goto fail;
  }
  memcpy(r->prefix, prefix, plen + 1);
  uint8_t *data = NULL;
  size_t len = 0;
  int rc = read_file(path, &data, &len, st);
  if (rc == -2)
    tfs_status_setf(st, TFS_NOT_FOUND,
                    "Unsuccessful TensorSliceReader constructor: Failed to "
                    "find any matching files for %s", prefix);
  if (rc) goto fail;
  open_ctx c = {r, path, st, 0};
  rc = tfs_sst_scan(data, len, path, on_entry, &c, st);
  tfs_free(data);
  if (rc) goto fail;
  if (!c.seen_header) {
    tfs_status_setf(st, TFS_DATA_LOSS, "%s: no header entry", path);
    goto fail;
  }
  r->visible = tfs_malloc((size_t)(r->n ? r->n : 1) * sizeof(int));
  r->shards = tfs_calloc((size_t)r->num_shards, sizeof(FILE *));
  if (!r->visible || !r->shards) {
    tfs_status_set(st, TFS_RESOURCE_EXHAUSTED, "out of memory");
    goto fail;
  }
  for (int i = 0; i < r->n; i++)
    if (r->ents[i].key[0] != 0 || r->ents[i].klen == 0)
      r->visible[r->nvisible++] = i;
  tfs_free(path);
  return r;
fail:
  tfs_free(path);
  tfs_bundle_reader_free(r);
  return NULL;
}

void tfs_bundle_reader_free(tfs_bundle_reader *r) {
  if (!r) return;
  for (int i = 0; i < r->n; i++) {
    tfs_free(r->ents[i].key);
    tfs_pb__free(&r->ents[i].e->base);
  }
  for (int i = 0; r->shards && i < r->num_shards; i++)
    if (r->shards[i]) fclose(r->shards[i]);
  tfs_free(r->shards);
  tfs_free(r->ents);
  tfs_free(r->visible);
  tfs_free(r->prefix);
  tfs_free(r);
}

/* ---- queries ------------------------------------------------------------- */

int tfs_bundle_reader_count(const tfs_bundle_reader *r) {
  return r->nvisible;
}

const char *tfs_bundle_reader_name(const tfs_bundle_reader *r, int i) {
  return i >= 0 && i < r->nvisible ? r->ents[r->visible[i]].key : NULL;
}

tfs_dtype tfs_bundle_reader_dtype(const tfs_bundle_reader *r, int i) {
  return i >= 0 && i < r->nvisible
             ? (tfs_dtype)r->ents[r->visible[i]].e->dtype
             : TFS_INVALID;
}

int tfs_bundle_reader_shape(const tfs_bundle_reader *r, int i,
                            const int64_t **dims) {
  if (i < 0 || i >= r->nvisible) return -1;
  const r_entry *e = &r->ents[r->visible[i]];
  if (dims) *dims = e->dims;
  return e->ndims;
}

int64_t tfs_bundle__offset(const tfs_bundle_reader *r, int i) {
  if (i < 0 || i >= r->nvisible) return -1;
  const r_entry *e = &r->ents[r->visible[i]];
  return e->e->n_slices ? -1 : e->e->offset;
}

/* Entry with exactly this key (index into ents), or -1. */
static int find_key(const tfs_bundle_reader *r, const uint8_t *key,
                    size_t klen) {
  int lo = 0, hi = r->n - 1;
  while (lo <= hi) {
    int mid = lo + (hi - lo) / 2;
    const r_entry *e = &r->ents[mid];
    size_t m = e->klen < klen ? e->klen : klen;
    int c = memcmp(e->key, key, m);
    if (!c) c = e->klen < klen ? -1 : e->klen > klen ? 1 : 0;
    if (!c) return mid;
    if (c < 0)
      lo = mid + 1;
    else
      hi = mid - 1;
  }
  return -1;
}

int tfs_bundle_reader_find(const tfs_bundle_reader *r, const char *name) {
  int k = find_key(r, (const uint8_t *)name, strlen(name));
  if (k < 0) return -1;
  for (int i = 0; i < r->nvisible; i++)
    if (r->visible[i] == k) return i;
  return -1;
}

/* ---- reading tensors ----------------------------------------------------- */

static FILE *shard(tfs_bundle_reader *r, int id, tfs_status *st) {
  if (id < 0 || id >= r->num_shards) {
    tfs_status_setf(st, TFS_DATA_LOSS, "%s: bad shard id %d", r->prefix, id);
    return NULL;
  }
  if (!r->shards[id]) {
    char *name = tfs_bundle__data_name(r->prefix, id, r->num_shards);
    if (!name) {
      tfs_status_set(st, TFS_RESOURCE_EXHAUSTED, "out of memory");
      return NULL;
    }
    r->shards[id] = fopen(name, "rb");
    if (!r->shards[id])
      tfs_status_setf(st, TFS_NOT_FOUND, "%s: %s", name, strerror(errno));
    tfs_free(name);
  }
  return r->shards[id];
}

static int checksum_error(const tfs_bundle_reader *r, const r_entry *e,
                          uint32_t stored, uint32_t got, tfs_status *st) {
  tfs_status_setf(st, TFS_DATA_LOSS,
                  "TensorBundle at %s shard %d (%lld bytes): Checksum does "
                  "not match: stored %u vs. calculated on the restored bytes "
                  "%u",
                  r->prefix, (int)e->e->shard_id, (long long)e->e->size,
                  stored, got);
  return -1;
}

/* Decodes a string tensor's stored bytes into t. */
static int decode_strings(const tfs_bundle_reader *r, const r_entry *e,
                          const uint8_t *b, size_t n, tfs_tensor *t,
                          tfs_status *st) {
  int64_t count = tfs_tensor_num_elements(t);
  const uint8_t *p = b, *end = b + n;
  uint32_t crc = 0;
  uint64_t total = 0;
  uint64_t *lens = tfs_malloc((size_t)(count ? count : 1) * sizeof(uint64_t));
  if (!lens) {
    tfs_status_set(st, TFS_RESOURCE_EXHAUSTED, "out of memory");
    return -1;
  }
  int rc = -1;
  for (int64_t i = 0; i < count; i++) {
    uint64_t v = 0;
    int s = 0;
    for (;; s += 7) {
      if (p >= end || s > 63) goto corrupt;
      uint8_t c = *p++;
      v |= (uint64_t)(c & 0x7f) << s;
      if (!(c & 0x80)) break;
    }
    lens[i] = v;
    if (v > (uint64_t)(end - b)) goto corrupt;
    total += v;
    uint8_t l[8];
    for (int k = 0; k < 8; k++) l[k] = (uint8_t)(v >> (8 * k));
    crc = tfs_crc32c_extend(crc, l, v <= UINT32_MAX ? 4 : 8);
  }
  if (end - p < 4) goto corrupt;
  crc = tfs_crc32c_extend(crc, p, 4);
  p += 4;
  if (total != (uint64_t)(end - p)) goto corrupt;
  crc = tfs_crc32c_extend(crc, p, (size_t)total);
  if (tfs_crc32c_mask(crc) != e->e->crc32c) {
    checksum_error(r, e, e->e->crc32c, tfs_crc32c_mask(crc), st);
    goto out;
  }
  for (int64_t i = 0; i < count; i++) {
    tfs_tensor_set_string(t, i, (const char *)p, (size_t)lens[i], st);
    if (!tfs_status_ok(st)) goto out;
    p += lens[i];
  }
  rc = 0;
  goto out;
corrupt:
  tfs_status_setf(st, TFS_DATA_LOSS, "%s: corrupt string tensor %s",
                  r->prefix, e->key);
out:
  tfs_free(lens);
  return rc;
}

/* Reads the data of a plain (unpartitioned) entry. */
/* Whether entry e's dtype can be read into a tensor; UNIMPLEMENTED in st
 * when not (references, resources, variants, unknown values). */
static int restorable(const tfs_bundle_reader *r, const r_entry *e,
                      tfs_status *st) {
  tfs_dtype dt = (tfs_dtype)e->e->dtype;
  if (tfs_dtype_is_valid(dt) && !tfs_dtype_is_ref(dt) && dt != TFS_RESOURCE &&
      dt != TFS_VARIANT)
    return 1;
  tfs_status_setf(st, TFS_UNIMPLEMENTED, "%s: cannot restore %s of dtype %s",
                  r->prefix, e->key, tfs_dtype_name(dt));
  return 0;
}

static tfs_tensor *read_entry(tfs_bundle_reader *r, const r_entry *e,
                              tfs_status *st) {
  tfs_dtype dt = (tfs_dtype)e->e->dtype;
  if (!restorable(r, e, st)) return NULL;
  tfs_tensor *t = tfs_tensor_new(dt, e->dims, e->ndims, st);
  if (!t) return NULL;
  int64_t size = e->e->size, count = tfs_tensor_num_elements(t);
  int ok = size >= 0;
  if (dt != TFS_STRING && (uint64_t)size != tfs_tensor_byte_size(t)) {
    tfs_status_setf(st, TFS_DATA_LOSS,
                    "Invalid size in bundle entry: key %s; stored size %lld; "
                    "expected size %lld",
                    e->key, (long long)size,
                    (long long)tfs_tensor_byte_size(t));
    goto fail;
  }
  if (dt == TFS_STRING && size < count) ok = 0;
  if (!ok) {
    tfs_status_setf(st, TFS_DATA_LOSS, "%s: bad size %lld for key %s",
                    r->prefix, (long long)size, e->key);
    goto fail;
  }
  FILE *f = shard(r, e->e->shard_id, st);
  if (!f) goto fail;
  uint8_t *buf = dt == TFS_STRING ? tfs_malloc((size_t)size + 1)
                                  : tfs_tensor_data(t);
  if (!buf && size) {
    tfs_status_set(st, TFS_RESOURCE_EXHAUSTED, "out of memory");
    goto fail;
  }
  int rd = e->e->offset < 0 || fseeko(f, (off_t)e->e->offset, SEEK_SET) ||
           fread(buf, 1, (size_t)size, f) != (size_t)size;
  int rc = 0;
  if (rd) {
    tfs_status_setf(st, TFS_DATA_LOSS,
                    "%s: the data of %s is truncated (offset %lld, size %lld)",
                    r->prefix, e->key, (long long)e->e->offset,
                    (long long)size);
    rc = -1;
  } else if (dt == TFS_STRING) {
    rc = decode_strings(r, e, buf, (size_t)size, t, st);
  } else {
    uint32_t got = tfs_crc32c_mask(tfs_crc32c(buf, (size_t)size));
    if (got != e->e->crc32c) rc = checksum_error(r, e, e->e->crc32c, got, st);
  }
  if (dt == TFS_STRING) tfs_free(buf);
  if (!rc) return t;
fail:
  tfs_tensor_free(t);
  return NULL;
}

/* ---- reading a slice ----------------------------------------------------- */

/* Copies the box [lo, hi) (global coordinates) from src, whose element 0
 * sits at global src_org, into dst, whose element 0 sits at dst_org. */
static int copy_box(tfs_tensor *dst, const int64_t *dst_org,
                    const tfs_tensor *src, const int64_t *src_org,
                    const int64_t *lo, const int64_t *hi, tfs_status *st) {
  int nd = tfs_tensor_ndims(dst);
  const int64_t *dd = tfs_tensor_dims(dst), *sd = tfs_tensor_dims(src);
  int is_str = tfs_tensor_dtype(dst) == TFS_STRING;
  size_t esz = is_str ? 0 : tfs_dtype_size(tfs_tensor_dtype(dst));
  int64_t idx[TFS_MAX_RANK], run = nd ? hi[nd - 1] - lo[nd - 1] : 1;
  for (int d = 0; d < nd; d++) idx[d] = lo[d];
  for (;;) {
    int64_t so = 0, doff = 0;
    for (int d = 0; d < nd; d++) {
      so = so * sd[d] + idx[d] - src_org[d];
      doff = doff * dd[d] + idx[d] - dst_org[d];
    }
    if (is_str) {
      for (int64_t k = 0; k < run; k++) {
        size_t len;
        const char *p = tfs_tensor_string_at(src, so + k, &len);
        tfs_tensor_set_string(dst, doff + k, p, len, st);
        if (!tfs_status_ok(st)) return -1;
      }
    } else if (run > 0) {
      memcpy((char *)tfs_tensor_data(dst) + (size_t)doff * esz,
             (const char *)tfs_tensor_data(src) + (size_t)so * esz,
             (size_t)run * esz);
    }
    int d = nd - 2;
    for (; d >= 0; d--) {
      if (++idx[d] < hi[d]) break;
      idx[d] = lo[d];
    }
    if (d < 0) return 0;
  }
}

/* Reads stored slice s of partitioned entry e and copies its part inside
 * the box [lo, hi) into out (element 0 at org); adds the volume copied. */
static int slice_part(tfs_bundle_reader *r, const r_entry *e,
                      const Tensorflow__TensorSliceProto *s, tfs_tensor *out,
                      const int64_t *org, const int64_t *lo,
                      const int64_t *hi, int64_t *covered, tfs_status *st) {
  int64_t ss[TFS_MAX_RANK], sl[TFS_MAX_RANK], kl[TFS_MAX_RANK];
  int64_t blo[TFS_MAX_RANK], bhi[TFS_MAX_RANK], vol = 1;
  if ((int)s->n_extent != e->ndims) goto bad;
  for (int d = 0; d < e->ndims; d++) {
    const Tensorflow__TensorSliceProto__Extent *x = s->extent[d];
    int whole = x->has_length_case !=
                TENSORFLOW__TENSOR_SLICE_PROTO__EXTENT__HAS_LENGTH_LENGTH;
    ss[d] = whole ? 0 : x->start;
    sl[d] = whole ? e->dims[d] : x->length;
    kl[d] = whole ? -1 : x->length;
    if (ss[d] < 0 || sl[d] < 0 || ss[d] > e->dims[d] ||
        sl[d] > e->dims[d] - ss[d])
      goto bad;
    blo[d] = ss[d] > lo[d] ? ss[d] : lo[d];
    bhi[d] = ss[d] + sl[d] < hi[d] ? ss[d] + sl[d] : hi[d];
    if (bhi[d] <= blo[d]) return 0; /* no overlap */
    vol *= bhi[d] - blo[d];
  }
  uint8_t key[4096];
  size_t kn = tfs_bundle__slice_key(e->key, e->ndims, ss, kl, key, sizeof key);
  int k = kn <= sizeof key ? find_key(r, key, kn) : -1;
  if (k < 0) {
    tfs_status_setf(st, TFS_NOT_FOUND,
                    "Key %s (a slice of a partitioned tensor) not found in "
                    "checkpoint", e->key);
    return -1;
  }
  const r_entry *se = &r->ents[k];
  if (se->ndims != e->ndims || se->e->dtype != e->e->dtype) goto bad;
  for (int d = 0; d < e->ndims; d++)
    if (se->dims[d] != sl[d]) goto bad;
  tfs_tensor *part = read_entry(r, se, st);
  if (!part) return -1;
  int rc = copy_box(out, org, part, ss, blo, bhi, st);
  tfs_tensor_free(part);
  *covered += vol;
  return rc;
bad:
  tfs_status_setf(st, TFS_DATA_LOSS, "%s: bad slice of partitioned tensor %s",
                  r->prefix, e->key);
  return -1;
}

/* ---- partitioned tensors ------------------------------------------------- */

/* A partitioned tensor, whole: every stored slice copied in. */
static tfs_tensor *assemble(tfs_bundle_reader *r, const r_entry *e,
                            tfs_status *st) {
  tfs_dtype dt = (tfs_dtype)e->e->dtype;
  if (dt == TFS_STRING) {
    tfs_status_set(st, TFS_INVALID_ARGUMENT, "Dtype string not supported.");
    return NULL;
  }
  if (!restorable(r, e, st)) return NULL;
  tfs_tensor *full = tfs_tensor_new(dt, e->dims, e->ndims, st);
  if (!full) return NULL;
  memset(tfs_tensor_data(full), 0, tfs_tensor_byte_size(full));
  int64_t covered = 0, zero[TFS_MAX_RANK] = {0};
  for (size_t i = 0; i < e->e->n_slices; i++)
    if (slice_part(r, e, e->e->slices[i], full, zero, zero, e->dims,
                   &covered, st)) {
      tfs_tensor_free(full);
      return NULL;
    }
  if (covered < tfs_tensor_num_elements(full)) {
    int64_t st0[TFS_MAX_RANK] = {0}, whole[TFS_MAX_RANK];
    for (int d = 0; d < e->ndims; d++) whole[d] = -1;
    char sl[TFS_MAX_RANK * 42 + 1];
    tfs_slice_str(e->ndims, st0, whole, sl, sizeof sl);
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "Does not have sufficient slices for partitioned tensor "
                    "%s to restore in slice_spec: %s", e->key, sl);
    tfs_tensor_free(full);
    return NULL;
  }
  return full;
}

tfs_tensor *tfs_bundle_reader_read(tfs_bundle_reader *r, const char *name,
                                   tfs_status *st) {
  int k = find_key(r, (const uint8_t *)name, strlen(name));
  if (k < 0 || !name[0]) {
    tfs_status_setf(st, TFS_NOT_FOUND, "Key %s not found in checkpoint", name);
    return NULL;
  }
  const r_entry *e = &r->ents[k];
  if (e->e->n_slices) return assemble(r, e, st);
  return read_entry(r, e, st);
}

void tfs_bundle_reader_read_slice(tfs_bundle_reader *r, const char *name,
                                  const int64_t *start, const int64_t *length,
                                  tfs_tensor *out, tfs_status *st) {
  int k = find_key(r, (const uint8_t *)name, strlen(name));
  if (k < 0 || !name[0]) {
    tfs_status_setf(st, TFS_NOT_FOUND, "Key %s not found in checkpoint", name);
    return;
  }
  const r_entry *e = &r->ents[k];
  if (e->e->dtype == TENSORFLOW__DATA_TYPE__DT_STRING) {
    /* TensorFlow copies slices of numeric tensors only */
    tfs_status_set(st, TFS_INVALID_ARGUMENT, "Dtype string not supported.");
    return;
  }
  int64_t lo[TFS_MAX_RANK], hi[TFS_MAX_RANK], vol = 1;
  int ok = tfs_tensor_ndims(out) == e->ndims &&
           tfs_tensor_dtype(out) == (tfs_dtype)e->e->dtype;
  for (int d = 0; ok && d < e->ndims; d++) {
    lo[d] = length[d] < 0 ? 0 : start[d];
    int64_t len = length[d] < 0 ? e->dims[d] : length[d];
    ok = lo[d] >= 0 && len >= 0 && lo[d] <= e->dims[d] &&
         len <= e->dims[d] - lo[d] && tfs_tensor_dim(out, d) == len;
    hi[d] = lo[d] + len;
    vol *= len;
  }
  if (!ok) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "Slice of %s does not fit the tensor in checkpoint %s",
                    name, r->prefix);
    return;
  }
  if (!e->e->n_slices) {
    tfs_tensor *full = read_entry(r, e, st);
    int64_t zero[TFS_MAX_RANK] = {0};
    if (full && vol > 0) copy_box(out, lo, full, zero, lo, hi, st);
    tfs_tensor_free(full);
    return;
  }
  int64_t covered = 0;
  for (size_t i = 0; i < e->e->n_slices; i++)
    if (slice_part(r, e, e->e->slices[i], out, lo, lo, hi, &covered, st))
      return;
  if (covered < vol) {
    char sl[TFS_MAX_RANK * 42 + 1];
    tfs_slice_str(e->ndims, start, length, sl, sizeof sl);
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "Does not have sufficient slices for partitioned tensor "
                    "%s to restore in slice_spec: %s", e->key, sl);
  }
}

/* ---- the raw index, for merging ------------------------------------------ */

int tfs_bundle__num_entries(const tfs_bundle_reader *r) { return r->n; }

int tfs_bundle__num_shards(const tfs_bundle_reader *r) {
  return r->num_shards;
}

const Tensorflow__BundleEntryProto *tfs_bundle__entry(
    const tfs_bundle_reader *r, int i, const char **key, size_t *klen) {
  *key = r->ents[i].key;
  *klen = r->ents[i].klen;
  return r->ents[i].e;
}
