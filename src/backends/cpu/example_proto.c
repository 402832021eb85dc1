/*
 * backends/cpu/example_proto.c - the tf.Example wire decoder (see
 * example_proto.h).  A reader is a position and a limit inside one
 * buffer; a nested message's limit is its length from the position,
 * clamped to the enclosing limit, so no read ever leaves the buffer.
 */
#include "backends/cpu/example_proto.h"

#include <string.h>

#include "core/alloc.h"
#include "core/util.h"

typedef struct rd {
  const uint8_t *pos, *lim;
} rd;

static int at_end(const rd *r) { return r->pos == r->lim; }

/* A varint of at most 10 bytes inside the limit. */
static int varint64(rd *r, uint64_t *v) {
  uint64_t x = 0;
  for (int i = 0; i < 10; i++) {
    if (r->pos == r->lim) return -1;
    uint8_t b = *r->pos++;
    x |= (uint64_t)(b & 0x7f) << (7 * i);
    if (!(b & 0x80)) {
      *v = x;
      return 0;
    }
  }
  return -1;
}

static int varint32(rd *r, uint32_t *v) {
  uint64_t x;
  if (varint64(r, &x)) return -1;
  *v = (uint32_t)x;
  return 0;
}

static int expect(rd *r, uint8_t tag) {
  if (r->pos == r->lim || *r->pos != tag) return 0;
  r->pos++;
  return 1;
}

/* Limits the reader to the next n bytes (clamped); returns the old
 * limit for pop(). */
static const uint8_t *push(rd *r, uint32_t n) {
  const uint8_t *old = r->lim;
  if ((size_t)n < (size_t)(r->lim - r->pos)) r->lim = r->pos + n;
  return old;
}

static void pop(rd *r, const uint8_t *old) { r->lim = old; }

static int skip(rd *r, size_t n) {
  if ((size_t)(r->lim - r->pos) < n) {
    r->pos = r->lim;
    return -1;
  }
  r->pos += n;
  return 0;
}

/* A length-delimited string: its bytes must lie inside the limit. */
static int string(rd *r, const uint8_t **p, size_t *n) {
  uint32_t len;
  if (varint32(r, &len)) return -1;
  *p = r->pos;
  *n = len;
  return skip(r, len);
}

/* An unknown field of the Example message (groups refused). */
static int skip_field(rd *r) {
  uint32_t tag, v;
  if (varint32(r, &tag)) return -1;
  switch (tag & 7) {
  case 0:
    return varint32(r, &v);
  case 1:
    return skip(r, 8);
  case 2:
    if (varint32(r, &v)) return -1;
    skip(r, v); /* a short skip stops at the limit, as protobuf's */
    return 0;
  case 5:
    return skip(r, 4);
  default:
    return -1;
  }
}

static int add_entry(tfs_ex_entries *e, const tfs_ex_entry *x) {
  if (e->n == e->cap &&
      tfs_grow((void **)&e->v, &e->cap, e->n + 1, sizeof(*e->v)))
    return -1;
  e->v[e->n++] = *x;
  return 0;
}

/* A map entry: exactly two fields, key (1) or value (2) in any order
 * (a field given twice keeps its last value, a missing one is empty). */
static int map_entry(rd *r, tfs_ex_entry *x) {
  uint32_t len;
  if (varint32(r, &len)) return 1;
  const uint8_t *old = push(r, len);
  for (int i = 0; i < 2; i++) {
    const uint8_t *p;
    size_t n;
    if (expect(r, 0x0a)) {
      if (string(r, &p, &n)) return 1;
      x->key = (const char *)p;
      x->klen = n;
    } else if (expect(r, 0x12)) {
      if (string(r, &p, &n)) return 1;
      x->feat = p;
      x->flen = n;
    } else {
      return 1;
    }
  }
  if (!at_end(r)) return 1;
  pop(r, old);
  return 0;
}

static int features(rd *r, tfs_ex_entries *e) {
  uint32_t len;
  if (varint32(r, &len)) return 1;
  const uint8_t *old = push(r, len);
  while (!at_end(r)) {
    tfs_ex_entry x = {0};
    if (!expect(r, 0x0a) || map_entry(r, &x)) return 1;
    if (add_entry(e, &x)) return -1;
  }
  pop(r, old);
  return 0;
}

int tfs_ex_parse(const uint8_t *p, size_t n, tfs_ex_entries *e) {
  rd r = {p, p + n};
  e->n = 0;
  while (!at_end(&r)) {
    if (expect(&r, 0x0a)) {
      int rc = features(&r, e);
      if (rc) return rc;
    } else if (skip_field(&r)) {
      return 1;
    }
  }
  return 0;
}

void tfs_ex_entries_free(tfs_ex_entries *e) {
  tfs_free(e->v);
  e->v = NULL;
  e->n = e->cap = 0;
}

int tfs_ex_feature_dtype(const uint8_t *f, size_t n, tfs_dtype *dt) {
  if (n == 0) {
    *dt = TFS_INVALID;
    return 0;
  }
  switch (f[0]) {
  case 0x0a:
    *dt = TFS_STRING;
    return 0;
  case 0x12:
    *dt = TFS_FLOAT;
    return 0;
  case 0x1a:
    *dt = TFS_INT64;
    return 0;
  default:
    return -1;
  }
}

size_t tfs_ex_value_size(tfs_dtype dt) {
  return dt == TFS_STRING ? sizeof(tfs_ex_str) : dt == TFS_FLOAT ? 4 : 8;
}

/* Room for `more` values after the stored ones (growing sinks). */
static int reserve(tfs_ex_sink *s, size_t more, size_t es) {
  if (!s->growing || s->len + more <= s->cap) return 0;
  if (more > SIZE_MAX / es - s->len) return -1;
  return tfs_grow(&s->data, &s->cap, s->len + more, es);
}

/* Stores one value (es bytes at v). */
static int put(tfs_ex_sink *s, const void *v, size_t es) {
  if (s->growing) {
    if (reserve(s, 1, es)) return -1;
    memcpy((char *)s->data + s->len * es, v, es);
    s->len++;
  } else if (s->count < s->cap) {
    memcpy((char *)s->data + s->count * es, v, es);
  }
  s->count++;
  return 0;
}

static int float_list(rd *r, tfs_ex_sink *s) {
  if (at_end(r)) return 0;
  if (expect(r, 0x0a)) { /* packed: one run, the rest ignored */
    uint32_t plen;
    if (varint32(r, &plen)) return 1;
    const uint8_t *old = push(r, plen);
    size_t k = plen / 4, keep = k;
    if (!s->growing && keep > s->cap) keep = s->cap;
    if ((size_t)(r->lim - r->pos) < keep * 4) return 1;
    if (reserve(s, keep, 4)) return -1;
    if (keep) /* s->data may be NULL when nothing is kept */
      memcpy((char *)s->data + (s->growing ? s->len : 0) * 4, r->pos,
             keep * 4);
    r->pos += keep * 4;
    if (s->growing) s->len += keep;
    s->count += k;
    pop(r, old);
    return 0;
  }
  while (!at_end(r)) {
    if (!expect(r, 0x0d) || (size_t)(r->lim - r->pos) < 4) return 1;
    int rc = put(s, r->pos, 4);
    if (rc) return rc;
    r->pos += 4;
  }
  return 0;
}

static int int64_list(rd *r, tfs_ex_sink *s) {
  if (at_end(r)) return 0;
  uint64_t v;
  if (expect(r, 0x0a)) {
    uint32_t plen;
    if (varint32(r, &plen)) return 1;
    const uint8_t *old = push(r, plen);
    while (!at_end(r)) {
      if (varint64(r, &v)) return 1;
      int64_t x = (int64_t)v;
      if (put(s, &x, 8)) return -1;
    }
    pop(r, old);
    return 0;
  }
  while (!at_end(r)) {
    if (!expect(r, 0x08) || varint64(r, &v)) return 1;
    int64_t x = (int64_t)v;
    if (put(s, &x, 8)) return -1;
  }
  return 0;
}

static int bytes_list(rd *r, tfs_ex_sink *s) {
  while (!at_end(r)) {
    const uint8_t *p;
    size_t n;
    if (!expect(r, 0x0a) || string(r, &p, &n)) return 1;
    tfs_ex_str x = {(const char *)p, n};
    if (put(s, &x, sizeof x)) return -1;
  }
  return 0;
}

int tfs_ex_read_list(const uint8_t *f, size_t n, tfs_dtype dt,
                     tfs_ex_sink *s) {
  rd r = {f + 1, f + n};
  uint32_t len;
  s->count = 0;
  if (n == 0) return 0;
  if (varint32(&r, &len)) return 1;
  push(&r, len);
  if (dt == TFS_FLOAT) return float_list(&r, s);
  if (dt == TFS_INT64) return int64_list(&r, s);
  return bytes_list(&r, s);
}
