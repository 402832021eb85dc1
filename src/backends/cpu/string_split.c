/*
 * backends/cpu/string_split.c - StringSplit (any of the delimiter's
 * bytes, or every byte when it is empty; skip_empty) and StringSplitV2
 * (Python's str.split: a separator string, or runs of ASCII whitespace
 * when it is empty; maxsplit), giving the SparseTensor triple of
 * TensorFlow's kernels: indices [n, 2], values [n], shape [batch, longest].
 */
#include <string.h>

#include "core/alloc.h"
#include "core/tstring.h"
#include "backends/cpu/cpu_tables.h"
#include "backends/cpu/string_util.h"

typedef struct {
  int64_t row;
  size_t off, len;
} token;

typedef struct {
  token *t;
  int64_t n, cap;
  int oom;
} tokens;

static void push(tokens *ts, int64_t row, size_t off, size_t len) {
  if (ts->oom) return;
  if (ts->n == ts->cap) {
    int64_t cap = ts->cap ? ts->cap * 2 : 64;
    token *t = tfs_realloc(ts->t, sizeof(token) * (size_t)cap);
    if (!t) {
      ts->oom = 1;
      return;
    }
    ts->t = t;
    ts->cap = cap;
  }
  ts->t[ts->n++] = (token){row, off, len};
}

static int is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' ||
         c == '\r';
}

/* StringSplitV2 of one string. */
static void split_v2(tokens *ts, int64_t row, const char *s, size_t n,
                     const char *sep, size_t sl, int64_t maxsplit) {
  if (maxsplit == 0) {
    push(ts, row, 0, n);
    return;
  }
  int64_t splits = 0;
  size_t p = 0;
  if (sl == 0) {
    while (p < n && is_space(s[p])) p++;
    while (p < n) {
      size_t b = p;
      while (p < n && !is_space(s[p])) p++;
      push(ts, row, b, p - b);
      while (p < n && is_space(s[p])) p++;
      if (maxsplit > 0 && ++splits == maxsplit) {
        push(ts, row, p, n - p);
        return;
      }
    }
    return;
  }
  size_t start = 0;
  for (p = 0; p + sl <= n;) {
    if (memcmp(s + p, sep, sl) != 0) {
      p++;
      continue;
    }
    push(ts, row, start, p - start);
    p += sl;
    start = p;
    if (maxsplit > 0 && ++splits == maxsplit) break;
  }
  push(ts, row, start, n - start);
}

/* StringSplit (V1) of one string. */
static void split_v1(tokens *ts, int64_t row, const char *s, size_t n,
                     const char *delim, size_t dl, int skip_empty) {
  if (dl == 0 || n == 0) { /* an empty string gives no token */
    for (size_t i = 0; i < n; i++) push(ts, row, i, 1);
    return;
  }
  size_t start = 0;
  for (size_t p = 0; p <= n; p++) {
    if (p < n && !memchr(delim, s[p], dl)) continue;
    if (!skip_empty || p > start) push(ts, row, start, p - start);
    start = p + 1;
  }
}

static void split_compute(tfs_kernel_ctx *c, int v2) {
  const tfs_tensor *in = c->inputs[0], *sep = c->inputs[1];
  char b[TFS_SHAPE_STRLEN];
  if (in->shape.rank != 1) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "input must be a vector, got "
                  "shape: %s", tfs_shape_str(&in->shape, b, sizeof b));
    return;
  }
  if (sep->shape.rank != 0) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "%s must be a scalar, got "
                  "shape: %s", v2 ? "sep" : "delimiter",
                  tfs_shape_str(&sep->shape, b, sizeof b));
    return;
  }
  int64_t maxsplit = -1;
  int skip_empty = 1;
  if (v2)
    maxsplit = (int64_t)(intptr_t)c->state;
  else
    skip_empty = (int)(intptr_t)c->state;
  const tfs_tstring *src = tfs_tensor__strings(in);
  const tfs_tstring *sp = tfs_tensor__strings(sep);
  const char *d = tfs_tstring_data(sp);
  size_t dl = tfs_tstring_size(sp);
  tokens ts = {0};
  int64_t batch = in->shape.dims[0], longest = 0, last = 0, count = 0;
  for (int64_t i = 0; i < batch; i++) {
    const char *s = tfs_tstring_data(&src[i]);
    size_t n = tfs_tstring_size(&src[i]);
    if (v2)
      split_v2(&ts, i, s, n, d, dl, maxsplit);
    else
      split_v1(&ts, i, s, n, d, dl, skip_empty);
    count = ts.n - last;
    if (count > longest) longest = count;
    last = ts.n;
  }
  if (ts.oom) {
    tfs_free(ts.t);
    tfs_kctx_fail(c, TFS_RESOURCE_EXHAUSTED, "out of memory splitting "
                  "strings");
    return;
  }
  tfs_shape si, sv, ss;
  tfs_shape_2d(&si, ts.n, 2);
  tfs_shape_1d(&sv, ts.n);
  tfs_shape_1d(&ss, 2);
  tfs_tensor *oi = tfs_kctx_alloc_output(c, 0, &si);
  tfs_tensor *ov = oi ? tfs_kctx_alloc_output(c, 1, &sv) : NULL;
  tfs_tensor *os = ov ? tfs_kctx_alloc_output(c, 2, &ss) : NULL;
  if (os) {
    int64_t *ix = oi->data, *shp = os->data;
    shp[0] = batch;
    shp[1] = longest;
    int64_t col = 0;
    for (int64_t k = 0; k < ts.n; k++) {
      col = k > 0 && ts.t[k - 1].row == ts.t[k].row ? col + 1 : 0;
      ix[2 * k] = ts.t[k].row;
      ix[2 * k + 1] = col;
      const char *s = tfs_tstring_data(&src[ts.t[k].row]);
      if (tfs_str__set(c, ov, k, s + ts.t[k].off, ts.t[k].len)) break;
    }
  }
  tfs_free(ts.t);
}

static void split_v1_compute(tfs_kernel_ctx *c) { split_compute(c, 0); }
static void split_v2_compute(tfs_kernel_ctx *c) { split_compute(c, 1); }

static int split_v1_prepare(tfs_kernel_init *ki) {
  int skip = 1;
  tfs_attrs_get_bool(ki->attrs, "skip_empty", &skip);
  ki->state = (void *)(intptr_t)skip;
  return 0;
}

static int split_v2_prepare(tfs_kernel_init *ki) {
  int64_t m = -1;
  tfs_attrs_get_int(ki->attrs, "maxsplit", &m);
  ki->state = (void *)(intptr_t)m;
  return 0;
}

const tfs_kernel_def tfs_cpu_kernels_string_split[] = {
    {"StringSplit", "CPU", NULL, 0, split_v1_prepare, split_v1_compute,
     NULL, 0, NULL},
    {"StringSplitV2", "CPU", NULL, 0, split_v2_prepare, split_v2_compute,
     NULL, 0, NULL},
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL},
};
