/*
 * io/sstable.c - builder and reader of the .index table of a V2
 * checkpoint (see sstable.h for the layout).  The builder reproduces
 * TensorFlow's bytes: the same restart intervals, block-size estimate,
 * shortest separators in the index and short successor after the last
 * block.
 */
#include "io/sstable.h"

#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/status.h"
#include "tfsess/io.h"

#define SST_MAGIC_LO 0x8b80fb57u
#define SST_MAGIC_HI 0xdb477524u
#define SST_FOOTER 48
#define SST_TRAILER 5

/* ---- byte buffers ---------------------------------------------------------- */

typedef struct {
  uint8_t *p;
  size_t n, cap;
  int oom;
} bytes;

static void b_put(bytes *b, const void *d, size_t n) {
  if (b->oom) return;
  if (b->n + n > b->cap) {
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->n + n) cap *= 2;
    uint8_t *p = tfs_realloc(b->p, cap);
    if (!p) {
      b->oom = 1;
      return;
    }
    b->p = p;
    b->cap = cap;
  }
  if (n) memcpy(b->p + b->n, d, n);
  b->n += n;
}

static void b_varint(bytes *b, uint64_t v) {
  uint8_t t[10];
  size_t n = 0;
  while (v >= 0x80) {
    t[n++] = (uint8_t)(v | 0x80);
    v >>= 7;
  }
  t[n++] = (uint8_t)v;
  b_put(b, t, n);
}

static void b_fixed32(bytes *b, uint32_t v) {
  uint8_t t[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16),
                  (uint8_t)(v >> 24)};
  b_put(b, t, 4);
}

static uint32_t le32(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
         (uint32_t)p[3] << 24;
}

/* ---- block builder ----------------------------------------------------------- */

typedef struct {
  bytes buf, last;
  uint32_t *restarts;
  size_t nrestarts, cap_restarts;
  int counter, interval, entries, oom;
} block;

static void blk_reset(block *k) {
  k->buf.n = 0;
  k->last.n = 0;
  k->nrestarts = 0;
  k->counter = 0;
  k->entries = 0;
  if (!k->restarts) {
    k->cap_restarts = 16;
    k->restarts = tfs_malloc(k->cap_restarts * sizeof(uint32_t));
    if (!k->restarts) {
      k->oom = 1;
      return;
    }
  }
  k->restarts[k->nrestarts++] = 0;
}

static void blk_restart(block *k, uint32_t at) {
  if (k->nrestarts == k->cap_restarts) {
    uint32_t *r = tfs_realloc(k->restarts, 2 * k->cap_restarts *
                                               sizeof(uint32_t));
    if (!r) {
      k->oom = 1;
      return;
    }
    k->restarts = r;
    k->cap_restarts *= 2;
  }
  k->restarts[k->nrestarts++] = at;
}

static void blk_add(block *k, const uint8_t *key, size_t klen,
                    const uint8_t *val, size_t vlen) {
  size_t shared = 0;
  if (k->counter < k->interval) {
    size_t m = klen < k->last.n ? klen : k->last.n;
    while (shared < m && k->last.p[shared] == key[shared]) shared++;
  } else {
    blk_restart(k, (uint32_t)k->buf.n);
    k->counter = 0;
  }
  b_varint(&k->buf, shared);
  b_varint(&k->buf, klen - shared);
  b_varint(&k->buf, vlen);
  b_put(&k->buf, key + shared, klen - shared);
  b_put(&k->buf, val, vlen);
  k->last.n = 0;
  b_put(&k->last, key, klen);
  k->counter++;
  k->entries++;
}

static size_t blk_estimate(const block *k) {
  return k->buf.n + k->nrestarts * 4 + 4;
}

/* Appends the restart array; the block's bytes are then k->buf. */
static void blk_finish(block *k) {
  for (size_t i = 0; i < k->nrestarts; i++) b_fixed32(&k->buf, k->restarts[i]);
  b_fixed32(&k->buf, (uint32_t)k->nrestarts);
}

static void blk_free(block *k) {
  tfs_free(k->buf.p);
  tfs_free(k->last.p);
  tfs_free(k->restarts);
}

/* ---- table builder --------------------------------------------------------- */

struct tfs_sst_builder {
  FILE *f;
  uint64_t offset;
  size_t block_size;
  block data, index;
  bytes last_key, handle;
  int pending, failed;
};

tfs_sst_builder *tfs_sst_builder_new(FILE *f, size_t block_size) {
  tfs_sst_builder *b = tfs_calloc(1, sizeof *b);
  if (!b) return NULL;
  b->f = f;
  b->block_size = block_size;
  b->data.interval = 16;
  b->index.interval = 1;
  blk_reset(&b->data);
  blk_reset(&b->index);
  if (b->data.oom || b->index.oom) {
    tfs_sst_builder_free(b);
    return NULL;
  }
  return b;
}

/* Writes a finished block and its trailer; its handle goes to `handle`. */
static void write_block(tfs_sst_builder *b, block *k, bytes *handle) {
  blk_finish(k);
  if (k->buf.oom || k->oom) {
    b->failed = 1;
    return;
  }
  uint8_t type = 0;
  uint32_t crc = tfs_crc32c_extend(tfs_crc32c(k->buf.p, k->buf.n), &type, 1);
  uint8_t trailer[SST_TRAILER] = {0};
  uint32_t m = tfs_crc32c_mask(crc);
  for (int i = 0; i < 4; i++) trailer[1 + i] = (uint8_t)(m >> (8 * i));
  if (fwrite(k->buf.p, 1, k->buf.n, b->f) != k->buf.n ||
      fwrite(trailer, 1, SST_TRAILER, b->f) != SST_TRAILER)
    b->failed = 1;
  handle->n = 0;
  b_varint(handle, b->offset);
  b_varint(handle, k->buf.n);
  b->offset += k->buf.n + SST_TRAILER;
  blk_reset(k);
}

static void flush_data(tfs_sst_builder *b) {
  if (b->data.entries == 0) return;
  write_block(b, &b->data, &b->handle);
  b->pending = 1;
}

/* last_key becomes a short key >= itself and < limit. */
static void shortest_separator(bytes *start, const uint8_t *limit,
                               size_t llen) {
  size_t m = start->n < llen ? start->n : llen, i = 0;
  while (i < m && start->p[i] == limit[i]) i++;
  if (i >= m) return;
  uint8_t c = start->p[i];
  if (c < 0xff && (unsigned)c + 1 < limit[i]) {
    start->p[i]++;
    start->n = i + 1;
  }
}

static void short_successor(bytes *k) {
  for (size_t i = 0; i < k->n; i++)
    if (k->p[i] != 0xff) {
      k->p[i]++;
      k->n = i + 1;
      return;
    }
}

static void add_pending_index(tfs_sst_builder *b) {
  blk_add(&b->index, b->last_key.p, b->last_key.n, b->handle.p,
          b->handle.n);
  b->pending = 0;
}

int tfs_sst_builder_add(tfs_sst_builder *b, const void *key, size_t klen,
                        const void *val, size_t vlen) {
  if (b->failed) return -1;
  /* a pair of at least two blocks starts a block of its own */
  if (klen + vlen >= 2 * b->block_size) flush_data(b);
  if (b->pending) {
    shortest_separator(&b->last_key, key, klen);
    add_pending_index(b);
  }
  b->last_key.n = 0;
  b_put(&b->last_key, key, klen);
  blk_add(&b->data, key, klen, val, vlen);
  if (blk_estimate(&b->data) >= b->block_size) flush_data(b);
  if (b->last_key.oom || b->data.buf.oom || b->data.last.oom || b->data.oom ||
      b->index.buf.oom || b->index.oom)
    b->failed = 1;
  return b->failed ? -1 : 0;
}

int tfs_sst_builder_finish(tfs_sst_builder *b) {
  if (b->failed) return -1;
  flush_data(b);
  block meta = {.interval = 16};
  bytes meta_handle = {0}, index_handle = {0};
  blk_reset(&meta);
  write_block(b, &meta, &meta_handle);
  blk_free(&meta);
  if (b->pending) {
    short_successor(&b->last_key);
    add_pending_index(b);
  }
  write_block(b, &b->index, &index_handle);
  uint8_t footer[SST_FOOTER] = {0};
  if (!meta_handle.oom && !index_handle.oom &&
      meta_handle.n + index_handle.n <= 40) {
    memcpy(footer, meta_handle.p, meta_handle.n);
    memcpy(footer + meta_handle.n, index_handle.p, index_handle.n);
  } else {
    b->failed = 1;
  }
  tfs_free(meta_handle.p);
  tfs_free(index_handle.p);
  uint32_t magic[2] = {SST_MAGIC_LO, SST_MAGIC_HI};
  for (int w = 0; w < 2; w++)
    for (int i = 0; i < 4; i++)
      footer[40 + 4 * w + i] = (uint8_t)(magic[w] >> (8 * i));
  if (fwrite(footer, 1, SST_FOOTER, b->f) != SST_FOOTER) b->failed = 1;
  return b->failed ? -1 : 0;
}

void tfs_sst_builder_free(tfs_sst_builder *b) {
  if (!b) return;
  blk_free(&b->data);
  blk_free(&b->index);
  tfs_free(b->last_key.p);
  tfs_free(b->handle.p);
  tfs_free(b);
}

/* ---- reader ------------------------------------------------------------------ */

/* Decodes a varint of at most `max_bytes` from p[0..end); returns the
 * byte after it or NULL. */
static const uint8_t *get_varint(const uint8_t *p, const uint8_t *end,
                                 uint64_t *v, int max_bytes) {
  uint64_t r = 0;
  for (int s = 0, n = 0; p < end && n < max_bytes; s += 7, n++) {
    uint8_t c = *p++;
    r |= (uint64_t)(c & 0x7f) << s;
    if (!(c & 0x80)) {
      *v = r;
      return p;
    }
  }
  return NULL;
}

typedef struct {
  const uint8_t *data;
  size_t len;
  const char *path;
  tfs_status *st;
} sst_file;

static int corrupt(const sst_file *f, const char *what) {
  tfs_status_setf(f->st, TFS_DATA_LOSS, "%s: %s", f->path, what);
  return -1;
}

/* The block at handle [p, end): its contents (without trailer) after
 * the checksum and type checks. */
static int read_block(const sst_file *f, const uint8_t *p, const uint8_t *end,
                      const uint8_t **blk, size_t *blen) {
  uint64_t off, size;
  p = get_varint(p, end, &off, 10);
  if (p) p = get_varint(p, end, &size, 10);
  if (!p) return corrupt(f, "bad block handle");
  size_t body = f->len - SST_FOOTER;
  if (off > body || size > body - off || body - off - size < SST_TRAILER)
    return corrupt(f, "truncated block read");
  const uint8_t *b = f->data + off;
  uint32_t want = tfs_crc32c_unmask(le32(b + size + 1));
  if (tfs_crc32c(b, (size_t)size + 1) != want)
    return corrupt(f, "block checksum mismatch");
  if (b[size] != 0) return corrupt(f, "bad block type");
  *blk = b;
  *blen = (size_t)size;
  return 0;
}

typedef int (*entry_fn)(const sst_file *f, void *ctx, const uint8_t *key,
                        size_t klen, const uint8_t *val, size_t vlen);

/* Calls fn for every entry of a block, keys rebuilt in `key`. */
static int scan_block(const sst_file *f, const uint8_t *b, size_t n,
                      bytes *key, entry_fn fn, void *ctx) {
  if (n < 4) return corrupt(f, "bad block contents");
  uint32_t nr = le32(b + n - 4);
  if (nr == 0 || nr > (n - 4) / 4) return corrupt(f, "bad block contents");
  const uint8_t *p = b, *end = b + n - 4 - 4 * (size_t)nr;
  key->n = 0;
  while (p < end) {
    uint64_t shared, non_shared, vlen;
    p = get_varint(p, end, &shared, 5);
    if (p) p = get_varint(p, end, &non_shared, 5);
    if (p) p = get_varint(p, end, &vlen, 5);
    if (!p || shared > key->n || non_shared > (uint64_t)(end - p) ||
        vlen > (uint64_t)(end - p) - non_shared)
      return corrupt(f, "bad entry in block");
    key->n = (size_t)shared;
    b_put(key, p, (size_t)non_shared);
    if (key->oom) {
      tfs_status_set(f->st, TFS_RESOURCE_EXHAUSTED, "out of memory");
      return -1;
    }
    p += non_shared;
    if (fn(f, ctx, key->p, key->n, p, (size_t)vlen)) return -1;
    p += vlen;
  }
  return 0;
}

typedef struct {
  tfs_sst_visit visit;
  void *ctx;
  bytes key;
} data_walk;

static int on_data_entry(const sst_file *f, void *ctx, const uint8_t *key,
                         size_t klen, const uint8_t *val, size_t vlen) {
  data_walk *w = ctx;
  (void)f;
  return w->visit(w->ctx, key, klen, val, vlen) ? -1 : 0;
}

static int on_index_entry(const sst_file *f, void *ctx, const uint8_t *key,
                          size_t klen, const uint8_t *val, size_t vlen) {
  (void)key;
  (void)klen;
  const uint8_t *b;
  size_t n;
  if (read_block(f, val, val + vlen, &b, &n)) return -1;
  return scan_block(f, b, n, &((data_walk *)ctx)->key, on_data_entry, ctx);
}

int tfs_sst_scan(const uint8_t *data, size_t len, const char *path,
                 tfs_sst_visit visit, void *ctx, tfs_status *st) {
  sst_file f = {data, len, path, st};
  if (len < SST_FOOTER)
    return corrupt(&f, "file is too short to be an sstable");
  const uint8_t *foot = data + len - SST_FOOTER;
  if (le32(foot + 40) != SST_MAGIC_LO || le32(foot + 44) != SST_MAGIC_HI)
    return corrupt(&f, "not an sstable (bad magic number)");
  uint64_t skip_off, skip_size;
  const uint8_t *p = get_varint(foot, foot + 40, &skip_off, 10);
  if (p) p = get_varint(p, foot + 40, &skip_size, 10);
  if (!p) return corrupt(&f, "bad block handle");
  const uint8_t *ib;
  size_t in;
  if (read_block(&f, p, foot + 40, &ib, &in)) return -1;
  data_walk w = {visit, ctx, {0}};
  bytes ikey = {0};
  int rc = scan_block(&f, ib, in, &ikey, on_index_entry, &w);
  tfs_free(ikey.p);
  tfs_free(w.key.p);
  return rc;
}
