/*
 * core/shape.c - partial shape arithmetic and printing.
 */
#include "core/shape.h"

#include <stdio.h>
#include <string.h>

#include "core/status.h"

int tfs_shape_set(tfs_shape *s, const int64_t *dims, int rank,
                  tfs_status *st) {
  if (rank < 0) {
    s->rank = -1;
    return 0;
  }
  if (rank > TFS_MAX_RANK) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "Shape of rank %d exceeds the maximum rank %d that "
                    "tfsess supports", rank, TFS_MAX_RANK);
    return -1;
  }
  for (int i = 0; i < rank; i++) {
    if (dims[i] < -1) {
      char buf[TFS_SHAPE_STRLEN];
      tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                      "Dimension %d in shape %s must be >= -1, got %lld", i,
                      tfs_dims_str(dims, rank, buf, sizeof buf),
                      (long long)dims[i]);
      return -1;
    }
    s->dims[i] = dims[i];
  }
  s->rank = rank;
  return 0;
}

void tfs_shape_1d(tfs_shape *s, int64_t d0) {
  s->rank = 1;
  s->dims[0] = d0;
}

void tfs_shape_2d(tfs_shape *s, int64_t d0, int64_t d1) {
  s->rank = 2;
  s->dims[0] = d0;
  s->dims[1] = d1;
}

void tfs_shape_unknown_dims(tfs_shape *s, int rank) {
  s->rank = rank;
  for (int i = 0; i < rank; i++) s->dims[i] = -1;
}

int tfs_shape_is_fully_defined(const tfs_shape *s) {
  if (s->rank < 0) return 0;
  for (int i = 0; i < s->rank; i++)
    if (s->dims[i] < 0) return 0;
  return 1;
}

int64_t tfs_shape_num_elements(const tfs_shape *s) {
  if (s->rank < 0) return -1;
  int64_t n = 1;
  for (int i = 0; i < s->rank; i++) {
    if (s->dims[i] < 0) return -1;
    if (tfs_mul_overflow_i64(n, s->dims[i], &n)) return -1;
  }
  return n;
}

int tfs_shape_num_elements_checked(const tfs_shape *s, int64_t *out,
                                   tfs_status *st) {
  int64_t n = tfs_shape_num_elements(s);
  if (n < 0) {
    char buf[TFS_SHAPE_STRLEN];
    if (tfs_shape_is_fully_defined(s))
      tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                      "Shape %s has too many elements: the count overflows "
                      "int64", tfs_shape_str(s, buf, sizeof buf));
    else
      tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                      "Shape %s is not fully defined",
                      tfs_shape_str(s, buf, sizeof buf));
    return -1;
  }
  *out = n;
  return 0;
}

int tfs_shape_equal(const tfs_shape *a, const tfs_shape *b) {
  if (a->rank != b->rank) return 0;
  for (int i = 0; i < a->rank; i++)
    if (a->dims[i] != b->dims[i]) return 0;
  return 1;
}

int tfs_shape_is_compatible(const tfs_shape *p, const tfs_shape *full) {
  if (p->rank < 0) return 1;
  if (p->rank != full->rank) return 0;
  for (int i = 0; i < p->rank; i++)
    if (p->dims[i] >= 0 && full->dims[i] >= 0 && p->dims[i] != full->dims[i])
      return 0;
  return 1;
}

int tfs_shape_merge(const tfs_shape *a, const tfs_shape *b, tfs_shape *out) {
  if (a->rank < 0) {
    *out = *b;
    return 0;
  }
  if (b->rank < 0) {
    *out = *a;
    return 0;
  }
  if (a->rank != b->rank) return -1;
  tfs_shape r;
  r.rank = a->rank;
  for (int i = 0; i < a->rank; i++) {
    int64_t x = a->dims[i], y = b->dims[i];
    if (x >= 0 && y >= 0 && x != y) return -1;
    r.dims[i] = x >= 0 ? x : y;
  }
  *out = r;
  return 0;
}

int tfs_shape_broadcast(const tfs_shape *a, const tfs_shape *b,
                        tfs_shape *out) {
  if (a->rank < 0 || b->rank < 0) {
    out->rank = -1;
    return 0;
  }
  int r = a->rank > b->rank ? a->rank : b->rank;
  tfs_shape res;
  res.rank = r;
  for (int i = 0; i < r; i++) {
    int ia = a->rank - r + i, ib = b->rank - r + i;
    int64_t x = ia >= 0 ? a->dims[ia] : 1;
    int64_t y = ib >= 0 ? b->dims[ib] : 1;
    int64_t d;
    if (x == 1)
      d = y;
    else if (y == 1)
      d = x;
    else if (x < 0 && y < 0)
      d = -1;
    else if (x < 0)
      d = y; /* unknown must be y (or 1, which would give y too) */
    else if (y < 0)
      d = x;
    else if (x == y)
      d = x;
    else
      return -1;
    res.dims[i] = d;
  }
  *out = res;
  return 0;
}

const char *tfs_dims_str(const int64_t *dims, int rank, char *buf,
                         size_t cap) {
  size_t pos = 0;
  if (cap == 0) return buf;
  buf[0] = 0;
#define PUT(...)                                                          \
  do {                                                                    \
    int n_ = snprintf(buf + pos, pos < cap ? cap - pos : 0, __VA_ARGS__); \
    if (n_ > 0) pos += (size_t)n_;                                        \
  } while (0)
  PUT("[");
  for (int i = 0; i < rank; i++) {
    if (i) PUT(",");
    if (dims[i] < 0)
      PUT("?");
    else
      PUT("%lld", (long long)dims[i]);
  }
  PUT("]");
#undef PUT
  if (pos >= cap) buf[cap - 1] = 0;
  return buf;
}

const char *tfs_shape_str(const tfs_shape *s, char *buf, size_t cap) {
  if (s->rank < 0) {
    snprintf(buf, cap, "<unknown>");
    return buf;
  }
  return tfs_dims_str(s->dims, s->rank, buf, cap);
}
