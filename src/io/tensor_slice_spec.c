/*
 * io/tensor_slice_spec.c - the "shape and slice" strings of SaveV2 and
 * RestoreV2 ("10 20 0,5:-": the full shape, then one slice token whose
 * ':'-separated parts are "start,length" or "-" for a whole dimension),
 * parsed with TensorFlow's rules and messages.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/status.h"
#include "io/tensor_bundle.h"

/* strtoll over exactly [p, p + n): 0 and *v when the whole token is a
 * base-10 int64 (surrounding blanks allowed, as TensorFlow's safe_strto64). */
static int parse_i64(const char *p, size_t n, int64_t *v) {
  char buf[64];
  while (n && (*p == ' ' || *p == '\t')) p++, n--;
  while (n && (p[n - 1] == ' ' || p[n - 1] == '\t')) n--;
  if (n == 0 || n >= sizeof buf) return -1;
  memcpy(buf, p, n);
  buf[n] = 0;
  if (memchr(buf, 0, n)) return -1;
  char *end;
  errno = 0;
  long long x = strtoll(buf, &end, 10);
  if (errno || end != buf + n || buf[0] == ' ') return -1;
  *v = x;
  return 0;
}

static void shape_str(int rank, const int64_t *dims, char *buf, size_t cap) {
  size_t k = (size_t)snprintf(buf, cap, "[");
  for (int d = 0; d < rank && k < cap; d++)
    k += (size_t)snprintf(buf + k, cap - k, "%s%lld", d ? "," : "",
                          (long long)dims[d]);
  if (k < cap) snprintf(buf + k, cap - k, "]");
}

void tfs_slice_str(int rank, const int64_t *start, const int64_t *length,
                   char *buf, size_t cap) {
  size_t k = 0;
  if (cap) buf[0] = 0;
  for (int d = 0; d < rank && k < cap; d++) {
    if (length[d] < 0)
      k += (size_t)snprintf(buf + k, cap - k, "%s-", d ? ":" : "");
    else
      k += (size_t)snprintf(buf + k, cap - k, "%s%lld,%lld", d ? ":" : "",
                            (long long)start[d], (long long)length[d]);
  }
}

/* TensorSlice::Parse of the slice token [s, s + n). */
static int parse_slice(const char *s, size_t n, tfs_slice_spec *o,
                       tfs_status *st) {
  int rank = 0;
  for (size_t i = 0; i < n;) {
    size_t j = i;
    while (j < n && s[j] != ':') j++;
    if (j > i) {
      const char *x = s + i;
      size_t xl = j - i;
      int64_t a = 0, b = -1;
      if (!(xl == 1 && x[0] == '-')) {
        /* two non-empty ','-separated numbers */
        const char *parts[3];
        size_t plen[3];
        int np = 0;
        for (size_t u = 0; u < xl;) {
          size_t v = u;
          while (v < xl && x[v] != ',') v++;
          if (v > u) {
            if (np < 3) parts[np] = x + u, plen[np] = v - u;
            np++;
          }
          u = v + 1;
        }
        if (np != 2 || parse_i64(parts[0], plen[0], &a) ||
            parse_i64(parts[1], plen[1], &b)) {
          tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                          "Expected a pair of numbers or '-' but got '%.*s': "
                          "string = %.*s", (int)xl, x, (int)n, s);
          return -1;
        }
        if (a < 0 || b <= 0) {
          tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                          "Expected non-negative start and positive length "
                          "but got start = %lld, length = %lld: string = %.*s",
                          (long long)a, (long long)b, (int)n, s);
          return -1;
        }
      }
      if (rank == TFS_MAX_RANK) {
        tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                        "Slice has more than %d dimensions: string = %.*s",
                        TFS_MAX_RANK, (int)n, s);
        return -1;
      }
      o->start[rank] = a;
      o->length[rank] = b;
      rank++;
    }
    i = j + 1;
  }
  return rank;
}

int tfs_slice_spec_parse(const char *s, size_t len, tfs_slice_spec *o,
                         tfs_status *st) {
  memset(o, 0, sizeof *o);
  size_t last = len;
  int parts = 1;
  for (size_t i = 0; i < len; i++)
    if (s[i] == ' ') parts++, last = i;
  if (parts < 2) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "Need least two elements in shape_and_slice "
                    "specification: %.*s", (int)len, s);
    return -1;
  }
  int srank = parse_slice(s + last + 1, len - last - 1, o, st);
  if (srank < 0) return -1;
  int rank = 0;
  for (size_t i = 0; i < last + 1;) {
    size_t j = i;
    while (j < last && s[j] != ' ') j++;
    int64_t d;
    if (parse_i64(s + i, j - i, &d)) {
      tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                      "Non numerical dimension in shape_and_slice: %.*s",
                      (int)len, s);
      return -1;
    }
    if (d < 0 || rank == TFS_MAX_RANK) {
      tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                      d < 0 ? "Dimension %lld must be >= 0 in "
                              "shape_and_slice: %.*s"
                            : "Too many dimensions (%lld) in "
                              "shape_and_slice: %.*s",
                      d < 0 ? (long long)d : (long long)rank + 1, (int)len, s);
      return -1;
    }
    o->dims[rank++] = d;
    i = j + 1;
  }
  o->rank = rank;
  char sh[TFS_MAX_RANK * 21 + 3], sl[TFS_MAX_RANK * 42 + 1];
  if (srank != rank) {
    shape_str(rank, o->dims, sh, sizeof sh);
    tfs_slice_str(srank, o->start, o->length, sl, sizeof sl);
    tfs_status_setf(st, TFS_INTERNAL, "Mismatching ranks: shape = %s, "
                    "slice = %s", sh, sl);
    return -1;
  }
  for (int d = 0; d < rank; d++) {
    if (o->length[d] < 0) {
      o->slice_dims[d] = o->dims[d];
      continue;
    }
    if (o->start[d] > o->dims[d] || o->length[d] > o->dims[d] - o->start[d]) {
      shape_str(rank, o->dims, sh, sizeof sh);
      tfs_slice_str(srank, o->start, o->length, sl, sizeof sl);
      tfs_status_setf(st, TFS_INTERNAL, "Extent in dimension %d out of "
                      "bounds: shape = %s, slice = %s", d, sh, sl);
      return -1;
    }
    o->slice_dims[d] = o->length[d];
  }
  return 0;
}
