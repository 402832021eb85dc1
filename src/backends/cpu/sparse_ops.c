/*
 * backends/cpu/sparse_ops.c - kernels over SparseTensor components
 * (indices, values, dense_shape): SparseFillEmptyRows, which gives every
 * empty row of the dense tensor one default entry and keeps the other
 * entries in their order within their row, and SparseReshape, which
 * re-indexes the entries for a new dense shape.  TensorFlow's validation
 * order and messages.
 */
#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "backends/cpu/array_util.h"

/* "[d0,d1,...]" of n int64 values into buf (cut short when long). */
static const char *dims_str(const int64_t *d, int64_t n, char *buf,
                            size_t cap) {
  size_t off = 0;
  buf[off++] = '[';
  for (int64_t i = 0; i < n && off + 26 < cap; i++)
    off += (size_t)snprintf(buf + off, cap - off, i ? ",%lld" : "%lld",
                            (long long)d[i]);
  if (off + 2 > cap) off = cap - 2;
  buf[off++] = ']';
  buf[off] = 0;
  return buf;
}

/* ---- SparseFillEmptyRows ------------------------------------------------- */

static int fill_check(tfs_kernel_ctx *c) {
  const tfs_tensor *ix = c->inputs[0], *v = c->inputs[1],
                   *ds = c->inputs[2], *dv = c->inputs[3];
  char b[TFS_SHAPE_STRLEN];
  const char *what = NULL;
  const tfs_tensor *bad = NULL;
  if (ds->shape.rank != 1)
    what = "dense_shape must be a vector", bad = ds;
  else if (ix->shape.rank != 2)
    what = "indices must be a matrix", bad = ix;
  else if (v->shape.rank != 1)
    what = "values must be a vector", bad = v;
  if (what) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "%s, saw: %s", what,
                  tfs_shape_str(&bad->shape, b, sizeof b));
    return -1;
  }
  if (ix->shape.dims[0] != v->shape.dims[0]) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "The length of `values` (%lld) must match the first "
                  "dimension of `indices` (%lld).",
                  (long long)v->shape.dims[0], (long long)ix->shape.dims[0]);
    return -1;
  }
  if (ix->shape.dims[1] != ds->shape.dims[0]) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "The length of `dense_shape` (%lld) must match the second "
                  "dimension of `indices` (%lld).",
                  (long long)ds->shape.dims[0], (long long)ix->shape.dims[1]);
    return -1;
  }
  if (dv->shape.rank != 0) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "default_value must be a scalar, saw: %s",
                  tfs_shape_str(&dv->shape, b, sizeof b));
    return -1;
  }
  if (ds->nelems == 0) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "Dense shape cannot be empty.");
    return -1;
  }
  int64_t rows = ((const int64_t *)ds->data)[0];
  if (rows < 0) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Expected shape dimensions to be non-negative, got %lld",
                  (long long)rows);
    return -1;
  }
  return 0;
}

/* Counts the entries of every row into start[], checking each row index,
 * then turns the counts into where each row begins once every empty row
 * holds one entry.  Returns the filled entry count, or -1 after failing. */
static int64_t fill_layout(tfs_kernel_ctx *c, const int64_t *ix, int64_t n,
                           int64_t rank, int64_t rows, int64_t *start,
                           uint8_t *empty, int *in_order) {
  memset(start, 0, (size_t)rows * sizeof(int64_t));
  int64_t last = 0;
  *in_order = 1;
  for (int64_t i = 0; i < n; i++) {
    int64_t row = ix[i * rank];
    if (row < 0 || row >= rows) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "indices(%lld, 0) is invalid: %lld >= %lld",
                    (long long)i, (long long)row, (long long)rows);
      return -1;
    }
    start[row]++;
    if (row < last) *in_order = 0;
    last = row;
  }
  int64_t total = 0;
  for (int64_t r = 0; r < rows; r++) {
    int64_t k = start[r];
    empty[r] = k == 0;
    start[r] = total;
    total += k ? k : 1;
  }
  return total;
}

static void fill_empty_rows_compute(tfs_kernel_ctx *c) {
  if (fill_check(c)) return;
  const tfs_tensor *ixt = c->inputs[0], *v = c->inputs[1];
  int64_t rows = ((const int64_t *)c->inputs[2]->data)[0];
  int64_t n = ixt->shape.dims[0], rank = ixt->shape.dims[1];
  tfs_shape s;
  tfs_shape_1d(&s, rows);
  tfs_tensor *empty = tfs_kctx_alloc_output(c, 2, &s);
  tfs_shape_1d(&s, n);
  tfs_tensor *rev = empty ? tfs_kctx_alloc_output(c, 3, &s) : NULL;
  if (!rev) return;
  if (rows == 0) {
    if (n != 0) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "Received SparseTensor with dense_shape[0] = 0 but "
                    "indices.shape[0] = %lld", (long long)n);
      return;
    }
    tfs_shape_2d(&s, 0, rank);
    if (!tfs_kctx_alloc_output(c, 0, &s)) return;
    tfs_shape_1d(&s, 0);
    tfs_kctx_alloc_output(c, 1, &s);
    return;
  }
  int64_t bytes;
  int64_t *start;
  if (tfs_mul_overflow_i64(rows, (int64_t)sizeof(int64_t), &bytes) ||
      !(start = tfs_kctx_scratch(c, (size_t)bytes))) {
    if (!c->failed) tfs_arr_oom(c);
    return;
  }
  const int64_t *ix = ixt->data;
  int64_t *rv = rev->data;
  uint8_t *em = empty->data;
  int in_order;
  int64_t total = fill_layout(c, ix, n, rank, rows, start, em, &in_order);
  if (total < 0) return;
  if (total == n && in_order) { /* no row is empty: the input as it is */
    tfs_kctx_set_output(c, 0, tfs_tensor_ref(c->inputs[0]));
    tfs_kctx_set_output(c, 1, tfs_tensor_ref(c->inputs[1]));
    for (int64_t i = 0; i < n; i++) rv[i] = i;
    return;
  }
  tfs_shape_2d(&s, total, rank);
  tfs_tensor *oi = tfs_kctx_alloc_output(c, 0, &s);
  tfs_shape_1d(&s, total);
  tfs_tensor *ov = oi ? tfs_kctx_alloc_output(c, 1, &s) : NULL;
  if (!ov) return;
  int64_t *out_ix = oi->data;
  memset(out_ix, 0, oi->nbytes);
  tfs_elem e = tfs_elem_of(v->dtype);
  for (int64_t i = 0; i < n; i++) {
    int64_t pos = start[ix[i * rank]]++;
    memcpy(out_ix + pos * rank, ix + i * rank, (size_t)rank * 8);
    if (tfs_elem_copy(e, (char *)ov->data + (size_t)pos * e.size,
                      (const char *)v->data + (size_t)i * e.size, 1)) {
      tfs_arr_oom(c);
      return;
    }
    rv[i] = pos;
  }
  for (int64_t r = 0; r < rows; r++) {
    if (!em[r]) continue;
    out_ix[start[r] * rank] = r;
    if (tfs_elem_fill(e, (char *)ov->data + (size_t)start[r] * e.size,
                      c->inputs[3]->data, 1)) {
      tfs_arr_oom(c);
      return;
    }
  }
}

/* ---- SparseReshape ------------------------------------------------------- */

static int reshape_check(tfs_kernel_ctx *c) {
  const tfs_tensor *ix = c->inputs[0], *is = c->inputs[1],
                   *ns = c->inputs[2];
  char b[TFS_SHAPE_STRLEN];
  const char *msg = NULL;
  if (ix->shape.rank != 2)
    msg = "Input must be a matrix.";
  else if (is->shape.rank != 1)
    msg = "Input shape must be a vector.";
  else if (ix->shape.dims[1] != is->shape.dims[0])
    msg = "Input tensor rank must match input shape length.";
  if (msg) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "%s", msg);
    return -1;
  }
  if (ns->shape.rank != 1) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Target shape should be a vector but received shape %s",
                  tfs_shape_str(&ns->shape, b, sizeof b));
    return -1;
  }
  return 0;
}

/* The element count of the dims d[0..n), as TensorFlow builds a shape. */
static int dense_size(tfs_kernel_ctx *c, const int64_t *d, int64_t n,
                      int64_t *out) {
  int64_t p = 1;
  for (int64_t i = 0; i < n; i++) {
    if (d[i] < 0) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "Expected shape dimensions to be non-negative, got %lld",
                    (long long)d[i]);
      return -1;
    }
    int64_t q;
    if (tfs_mul_overflow_i64(p, d[i], &q)) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "Encountered overflow when multiplying %lld with %lld, "
                    "result: -1", (long long)p, (long long)d[i]);
      return -1;
    }
    p = q;
  }
  *out = p;
  return 0;
}

/* Fills out[0..n) from the target shape, inferring a -1; *product is the
 * count of the given dims.  Returns 0 or -1 after failing. */
static int reshape_target(tfs_kernel_ctx *c, const int64_t *in, int64_t in_n,
                          int64_t dense, const int64_t *t, int64_t n,
                          int64_t *out, int64_t *product) {
  char a[TFS_SHAPE_STRLEN], b[TFS_SHAPE_STRLEN];
  int64_t unknown = -1, p = 1;
  for (int64_t d = 0; d < n; d++) {
    out[d] = t[d];
    if (t[d] == -1) {
      if (unknown != -1) {
        tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                      "only one output dimension may be -1, not both %lld "
                      "and %lld", (long long)unknown, (long long)d);
        return -1;
      }
      unknown = d;
      out[d] = 1;
    } else if (t[d] < 0) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "size %lld must be non-negative, not %lld", (long long)d,
                    (long long)t[d]);
      return -1;
    } else {
      int64_t q;
      if (tfs_mul_overflow_i64(p, t[d], &q)) {
        tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                      "Encountered overflow when multiplying %lld with "
                      "%lld, result: -1", (long long)p, (long long)t[d]);
        return -1;
      }
      p = q;
    }
  }
  *product = p;
  if (unknown != -1) {
    if (p <= 0) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "reshape cannot infer the missing input size for an "
                    "empty tensor unless all specified input sizes are "
                    "non-zero");
      return -1;
    }
    if (dense % p != 0) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "Input to reshape is a SparseTensor with %lld dense "
                    "values, but the requested shape requires a multiple of "
                    "%lld. input_shape=%s output_shape=%s", (long long)dense,
                    (long long)p, dims_str(in, in_n, a, sizeof a),
                    dims_str(out, n, b, sizeof b));
      return -1;
    }
    out[unknown] = dense / p;
  }
  int64_t total = unknown != -1 ? dense : p;
  if (total != dense) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Input to reshape is a tensor with %lld dense values, but "
                  "the requested shape has %lld. input_shape=%s "
                  "output_shape=%s", (long long)dense, (long long)total,
                  dims_str(in, in_n, a, sizeof a),
                  dims_str(out, n, b, sizeof b));
    return -1;
  }
  return 0;
}

/* Row-major strides of d[0..n) into s, wrapping as unsigned. */
static void strides_of(const int64_t *d, int64_t n, uint64_t *s) {
  uint64_t acc = 1;
  for (int64_t i = n - 1; i >= 0; i--) {
    s[i] = acc;
    acc *= (uint64_t)d[i];
  }
}

static void sparse_reshape_compute(tfs_kernel_ctx *c) {
  if (reshape_check(c)) return;
  const tfs_tensor *ixt = c->inputs[0], *ist = c->inputs[1],
                   *nst = c->inputs[2];
  const int64_t *in = ist->data, *t = nst->data;
  int64_t in_n = ist->nelems, out_n = nst->nelems, nnz = ixt->shape.dims[0];
  int64_t dense, product;
  if (dense_size(c, in, in_n, &dense)) return;
  /* the new dims, then the strides of both shapes */
  uint64_t *st = tfs_kctx_scratch(c, (size_t)(2 * out_n + in_n + 1) * 8);
  if (!st) return;
  int64_t *out = (int64_t *)(st + in_n + out_n);
  if (reshape_target(c, in, in_n, dense, t, out_n, out, &product)) return;
  if (in_n == out_n && memcmp(in, out, (size_t)in_n * 8) == 0) {
    tfs_kctx_set_output(c, 0, tfs_tensor_ref(c->inputs[0]));
    tfs_kctx_set_output(c, 1, tfs_tensor_ref(c->inputs[1]));
    return;
  }
  tfs_shape s;
  tfs_shape_1d(&s, out_n);
  tfs_tensor *os = tfs_kctx_alloc_output(c, 1, &s);
  if (!os) return;
  if (out_n > 0) memcpy(os->data, out, (size_t)out_n * 8);
  tfs_shape_2d(&s, nnz, out_n);
  tfs_tensor *oi = tfs_kctx_alloc_output(c, 0, &s);
  if (!oi || nnz == 0) return;
  if (dense <= 0 || product <= 0) {
    char a[TFS_SHAPE_STRLEN], b[TFS_SHAPE_STRLEN];
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Input tensor has %lld non zero elements but input shape "
                  "(%s) or output shape (%s) is empty", (long long)nnz,
                  dims_str(in, in_n, a, sizeof a),
                  dims_str(out, out_n, b, sizeof b));
    return;
  }
  uint64_t *ost = st + in_n;
  strides_of(in, in_n, st);
  strides_of(out, out_n, ost);
  const int64_t *ix = ixt->data;
  int64_t *o = oi->data;
  for (int64_t i = 0; i < nnz; i++) {
    uint64_t id = 0;
    for (int64_t j = 0; j < in_n; j++)
      id += (uint64_t)ix[i * in_n + j] * st[j];
    int64_t sid = (int64_t)id;
    for (int64_t j = 0; j < out_n; j++) {
      o[i * out_n + j] = sid / (int64_t)ost[j];
      sid %= (int64_t)ost[j];
    }
  }
}

#define SPARSE_T                                                        \
  (TFS_DT_REAL | TFS_DT_BIT(TFS_BOOL) | TFS_DT_BIT(TFS_STRING) |        \
   TFS_DT_BIT(TFS_COMPLEX64) | TFS_DT_BIT(TFS_COMPLEX128))

const tfs_kernel_def tfs_cpu_kernels_sparse[] = {
    {"SparseFillEmptyRows", "CPU", "T", SPARSE_T, NULL,
     fill_empty_rows_compute, NULL, 0, NULL},
    {"SparseReshape", "CPU", NULL, 0, NULL, sparse_reshape_compute, NULL, 0,
     NULL},
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL},
};
