/*
 * backends/cpu/ragged.c - ragged-tensor kernels: RaggedRange (a row of
 * range values per start/limit/delta), RaggedTensorToSparse (the sparse
 * indices of every value), RaggedGather (rows picked by index, with their
 * nested rows) and RaggedTensorToTensor (rows padded with a default value
 * into a dense tensor, from row splits, value row ids and the first
 * dimension's size).  TensorFlow's validation order and messages; where
 * TensorFlow's kernel reads or writes past its buffers on inconsistent
 * partitions, these kernels refuse the input instead.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "backends/cpu/array_util.h"
#include "backends/cpu/ragged.h"
#include "core/alloc.h"
#include "core/half.h"
#include "core/util.h"

/* ---- shared -------------------------------------------------------------- */

int64_t tfs_ragged__at(const tfs_tensor *t, int64_t i) {
  if (t->dtype == TFS_INT32) return ((const int32_t *)t->data)[i];
  return ((const int64_t *)t->data)[i];
}

/* Writes v at o[i] (int32 or int64); fails `c` when an int32 cannot hold
 * it. */
static int put_split(tfs_kernel_ctx *c, tfs_tensor *o, int64_t i,
                     int64_t v) {
  if (o->dtype == TFS_INT64) {
    ((int64_t *)o->data)[i] = v;
    return 0;
  }
  if (v > INT32_MAX || v < INT32_MIN) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Row split %lld does not fit in the int32 splits type",
                  (long long)v);
    return -1;
  }
  ((int32_t *)o->data)[i] = (int32_t)v;
  return 0;
}

/* Scratch for n int64 values (n >= 0), or NULL after failing c. */
static int64_t *scratch_i64(tfs_kernel_ctx *c, int64_t n) {
  int64_t bytes;
  if (tfs_mul_overflow_i64(n > 0 ? n : 1, 8, &bytes) ||
      (uint64_t)bytes > SIZE_MAX) {
    tfs_arr_oom(c);
    return NULL;
  }
  return tfs_kctx_scratch(c, (size_t)bytes);
}

/* ---- RaggedRange --------------------------------------------------------- */

static double range_get(const tfs_tensor *t, int64_t i) {
  switch (t->dtype) {
    case TFS_FLOAT: return ((const float *)t->data)[i];
    case TFS_DOUBLE: return ((const double *)t->data)[i];
    default: return 0;
  }
}

/* The number of values of one row, or -1 after failing c. */
static int64_t range_size(tfs_kernel_ctx *c, const tfs_tensor *const *in,
                          const int64_t *at) {
  int integral = in[0]->dtype == TFS_INT32 || in[0]->dtype == TFS_INT64;
  if (integral) {
    int64_t s = tfs_tensor__get_as_int64(in[0], at[0]);
    int64_t l = tfs_tensor__get_as_int64(in[1], at[1]);
    int64_t d = tfs_tensor__get_as_int64(in[2], at[2]);
    if (d == 0) goto zero;
    if ((d > 0 && l < s) || (d < 0 && l > s)) return 0;
    uint64_t span = d > 0 ? (uint64_t)l - (uint64_t)s
                          : (uint64_t)s - (uint64_t)l;
    uint64_t step = d > 0 ? (uint64_t)d : 0 - (uint64_t)d;
    uint64_t n = span / step + (span % step != 0);
    if (n <= (uint64_t)INT64_MAX) return (int64_t)n;
    goto too_long;
  }
  double s = range_get(in[0], at[0]), l = range_get(in[1], at[1]),
         d = range_get(in[2], at[2]);
  if (d == 0) goto zero;
  if ((d > 0 && l < s) || (d < 0 && l > s)) return 0;
  double n = in[0]->dtype == TFS_FLOAT
                 ? ceil(fabs((double)(((float)l - (float)s) / (float)d)))
                 : ceil(fabs((l - s) / d));
  if (!(n <= 9223372036854775807.0)) goto too_long;
  return n >= 9223372036854775807.0 ? INT64_MAX : (int64_t)n;
too_long:
  tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                "Requires ((limit - start) / delta) <= 9223372036854775807");
  return -1;
zero:
  tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "Requires delta != 0");
  return -1;
}

/* Writes n values of the row starting at start, stepping by delta. */
static void range_fill(tfs_tensor *o, int64_t pos, int64_t n,
                       const tfs_tensor *const *in, const int64_t *at) {
  switch (o->dtype) {
    case TFS_FLOAT: {
      float v = ((const float *)in[0]->data)[at[0]];
      float d = ((const float *)in[2]->data)[at[2]];
      for (int64_t i = 0; i < n; i++, v += d)
        ((float *)o->data)[pos + i] = v;
      break;
    }
    case TFS_DOUBLE: {
      double v = ((const double *)in[0]->data)[at[0]];
      double d = ((const double *)in[2]->data)[at[2]];
      for (int64_t i = 0; i < n; i++, v += d)
        ((double *)o->data)[pos + i] = v;
      break;
    }
    case TFS_INT32: {
      uint32_t v = (uint32_t)((const int32_t *)in[0]->data)[at[0]];
      uint32_t d = (uint32_t)((const int32_t *)in[2]->data)[at[2]];
      for (int64_t i = 0; i < n; i++, v += d)
        ((int32_t *)o->data)[pos + i] = (int32_t)v;
      break;
    }
    default: {
      uint64_t v = (uint64_t)((const int64_t *)in[0]->data)[at[0]];
      uint64_t d = (uint64_t)((const int64_t *)in[2]->data)[at[2]];
      for (int64_t i = 0; i < n; i++, v += d)
        ((int64_t *)o->data)[pos + i] = (int64_t)v;
      break;
    }
  }
}

static void range_compute(tfs_kernel_ctx *c) {
  const tfs_tensor *const *in = (const tfs_tensor *const *)c->inputs;
  static const char *const names[] = {"starts", "limits", "deltas"};
  int64_t nrows = -1;
  for (int i = 0; i < 3; i++) {
    if (in[i]->shape.rank > 1) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "%s must be a scalar or vector",
                    names[i]);
      return;
    }
  }
  for (int i = 0; i < 3; i++) {
    if (in[i]->shape.rank == 0) continue;
    if (nrows >= 0 && in[i]->shape.dims[0] != nrows) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "starts, limits, and deltas must have the same shape");
      return;
    }
    nrows = in[i]->shape.dims[0];
  }
  if (nrows < 0) nrows = 1;
  tfs_shape s;
  tfs_shape_1d(&s, nrows + 1);
  tfs_tensor *splits = tfs_kctx_alloc_output(c, 0, &s);
  if (!splits) return;
  int64_t total = 0;
  if (put_split(c, splits, 0, 0)) return;
  for (int64_t r = 0; r < nrows; r++) {
    int64_t at[3];
    for (int i = 0; i < 3; i++) at[i] = in[i]->shape.rank ? r : 0;
    int64_t n = range_size(c, in, at);
    if (n < 0) return;
    if (tfs_add_overflow_i64(total, n, &total)) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "RaggedRange output has more than %lld values",
                    (long long)INT64_MAX);
      return;
    }
    if (put_split(c, splits, r + 1, total)) return;
  }
  tfs_shape_1d(&s, total);
  tfs_tensor *vals = tfs_kctx_alloc_output(c, 1, &s);
  if (!vals) return;
  for (int64_t r = 0, pos = 0; r < nrows; r++) {
    int64_t at[3];
    for (int i = 0; i < 3; i++) at[i] = in[i]->shape.rank ? r : 0;
    int64_t n = tfs_ragged__at(splits, r + 1) - pos;
    range_fill(vals, pos, n, in, at);
    pos += n;
  }
}

/* ---- RaggedTensorToSparse ------------------------------------------------ */

/* TensorFlow's checks of nested splits and their values. */
static int to_sparse_check(tfs_kernel_ctx *c, int rr) {
  const char *msg = NULL;
  char buf[160];
  for (int i = 0; i < rr && !msg; i++) {
    const tfs_tensor *s = c->inputs[i];
    int64_t n = s->nelems;
    if (n == 0) {
      msg = "ragged splits may not be empty.";
      break;
    }
    if (tfs_ragged__at(s, 0) != 0) {
      msg = "First value of ragged splits must be 0.";
      break;
    }
    for (int64_t j = 1; j < n; j++) {
      int64_t a = tfs_ragged__at(s, j - 1), b = tfs_ragged__at(s, j);
      if (b < a) {
        snprintf(buf, sizeof buf, "Ragged splits should be non decreasing, "
                 "but we got %lld followed by %lld", (long long)a,
                 (long long)b);
        msg = buf;
        break;
      }
    }
    if (!msg && i > 0) {
      const tfs_tensor *p = c->inputs[i - 1];
      if (n - 1 != tfs_ragged__at(p, p->nelems - 1))
        msg = "Final value of ragged splits must match the length the "
              "corresponding ragged values.";
    }
  }
  const tfs_tensor *v = c->inputs[rr], *last = c->inputs[rr - 1];
  if (!msg && v->shape.rank < 1)
    msg = "rt_dense_values must have rank >= 1";
  if (!msg && v->shape.dims[0] != tfs_ragged__at(last, last->nelems - 1))
    msg = "Final value of ragged splits must match the length the "
          "corresponding ragged values.";
  if (msg) tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "%s", msg);
  return msg ? -1 : 0;
}

static void to_sparse_compute(tfs_kernel_ctx *c) {
  int rr = c->ninputs - 1;
  if (to_sparse_check(c, rr)) return;
  const tfs_tensor *v = c->inputs[rr];
  int vr = v->shape.rank;
  int64_t inner = tfs_arr_prod(v->shape.dims, 1, vr);
  int64_t nv = v->shape.dims[0], width = rr + vr, nidx;
  if (tfs_mul_overflow_i64(nv, inner, &nidx)) {
    tfs_arr_oom(c);
    return;
  }
  /* parent row and position in it of every child at every level: level
   * i's children (the rows of level i + 1, or the values) from off[i] */
  int64_t total = 0;
  for (int i = 1; i <= rr; i++)
    total += i < rr ? c->inputs[i]->nelems - 1 : nv;
  int64_t *par = scratch_i64(c, 2 * total + rr + 1);
  if (!par) return;
  int64_t *pos = par + total, *off = pos + total;
  off[0] = 0;
  for (int i = 0; i < rr; i++) {
    const tfs_tensor *s = c->inputs[i];
    for (int64_t r = 0; r + 1 < s->nelems; r++) {
      int64_t a = tfs_ragged__at(s, r), b = tfs_ragged__at(s, r + 1);
      for (int64_t k = a; k < b; k++) {
        par[off[i] + k] = r;
        pos[off[i] + k] = k - a;
      }
    }
    off[i + 1] = off[i] + (i + 1 < rr ? c->inputs[i + 1]->nelems - 1 : nv);
  }
  tfs_shape s;
  tfs_shape_2d(&s, nidx, width);
  tfs_tensor *oi = tfs_kctx_alloc_output(c, 0, &s);
  if (!oi) return;
  int64_t *o = oi->data;
  for (int64_t k = 0; k < nv && inner > 0; k++) {
    int64_t *row = o + k * inner * width;
    int64_t child = k;
    for (int i = rr - 1; i >= 0; i--) {
      row[i + 1] = pos[off[i] + child];
      child = par[off[i] + child];
    }
    row[0] = child;
    for (int64_t e = 0; e < inner; e++) {
      int64_t *r = row + e * width, rest = e;
      if (e) memcpy(r, row, (size_t)(rr + 1) * 8);
      for (int d = vr - 1; d >= 1; d--) {
        r[rr + d] = rest % v->shape.dims[d];
        rest /= v->shape.dims[d];
      }
    }
  }
  tfs_shape_1d(&s, nidx);
  if (tfs_arr_set_view(c, 1, v, &s, 0)) return;
  tfs_shape_1d(&s, width);
  tfs_tensor *ds = tfs_kctx_alloc_output(c, 2, &s);
  if (!ds) return;
  int64_t *d = ds->data;
  d[0] = c->inputs[0]->nelems - 1;
  for (int i = 0; i < rr; i++) {
    const tfs_tensor *sp = c->inputs[i];
    int64_t w = 0;
    for (int64_t j = 1; j < sp->nelems; j++) {
      int64_t x = tfs_ragged__at(sp, j) - tfs_ragged__at(sp, j - 1);
      if (x > w) w = x;
    }
    d[i + 1] = w;
  }
  for (int i = 1; i < vr; i++) d[rr + i] = v->shape.dims[i];
}

/* ---- RaggedGather -------------------------------------------------------- */

static int gather_check(tfs_kernel_ctx *c, int pr) {
  const tfs_tensor *s0 = c->inputs[0], *v = c->inputs[pr],
                   *ix = c->inputs[pr + 1];
  if (s0->shape.rank == 0) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Split tensors must not be scalars");
    return -1;
  }
  int64_t np = s0->shape.dims[0] - 1;
  for (int64_t i = 0; i < ix->nelems; i++) {
    int64_t k = tfs_ragged__at(ix, i);
    if (k < 0 || k >= np) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "indices[%lld] = %lld is not in [0, %lld)",
                    (long long)i, (long long)k, (long long)np);
      return -1;
    }
  }
  if (v->shape.rank == 0) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "params.rank must be nonzero");
    return -1;
  }
  for (int d = 0; d < pr; d++) {
    const tfs_tensor *s = c->inputs[d];
    /* the last split of an inner level indexes the next splits' rows */
    int64_t lim = d == pr - 1 ? v->shape.dims[0] : c->inputs[d + 1]->nelems - 1;
    const char *msg = NULL;
    if (s->nelems == 0)
      msg = "Ragged splits may not be empty";
    else if (tfs_ragged__at(s, 0) < 0)
      msg = "Ragged splits must be non-negative";
    else if (tfs_ragged__at(s, s->nelems - 1) > lim)
      msg = "Ragged splits must not point past values";
    for (int64_t j = 1; !msg && j < s->nelems; j++)
      if (tfs_ragged__at(s, j - 1) > tfs_ragged__at(s, j))
        msg = "Ragged splits must be sorted";
    if (msg) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "%s", msg);
      return -1;
    }
  }
  int want = ix->shape.rank - 1 + pr;
  if (c->noutputs - 1 != want) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "OUTPUT_RAGGED_RANK is %d but indices of rank %d into "
                  "params of ragged rank %d give ragged rank %d",
                  c->noutputs - 1, (int)ix->shape.rank, pr, want);
    return -1;
  }
  return 0;
}

/* The splits of output level `od`, in two passes: the count (out ==
 * NULL), then the values into out.  Returns the number of entries, or -1
 * after failing c. */
static int64_t gather_level(tfs_kernel_ctx *c, int pr, int od,
                            tfs_tensor *out) {
  const tfs_tensor *ix = c->inputs[pr + 1];
  int ir = ix->shape.rank;
  int64_t n = 1;
  if (od < ir - 1) { /* a uniform level from the indices' shape */
    int64_t rows = tfs_arr_prod(ix->shape.dims, 0, od + 1);
    int64_t w = ix->shape.dims[od + 1];
    if (out)
      for (int64_t r = 0; r <= rows; r++)
        if (put_split(c, out, r, r * w)) return -1;
    return rows + 1;
  }
  int64_t last = 0;
  if (out && put_split(c, out, 0, 0)) return -1;
  for (int64_t i = 0; i < ix->nelems; i++) {
    int64_t a = tfs_ragged__at(ix, i), b = a + 1;
    for (int d = 0; d < pr; d++) {
      const tfs_tensor *s = c->inputs[d];
      if (d + ir - 1 == od) {
        int64_t delta = last - tfs_ragged__at(s, a);
        for (int64_t j = a; j < b; j++, n++) {
          last = tfs_ragged__at(s, j + 1) + delta;
          if (out && put_split(c, out, n, last)) return -1;
        }
      }
      int64_t na = tfs_ragged__at(s, a), nb = tfs_ragged__at(s, b);
      a = na;
      b = nb > na ? nb : na;
    }
  }
  return n;
}

static void gather_compute(tfs_kernel_ctx *c) {
  int pr = c->ninputs - 2;
  if (gather_check(c, pr)) return;
  const tfs_tensor *v = c->inputs[pr], *ix = c->inputs[pr + 1];
  int orr = c->noutputs - 1;
  int64_t nvals = 0;
  for (int od = 0; od < orr; od++) {
    int64_t n = gather_level(c, pr, od, NULL);
    if (n < 0) return;
    tfs_shape s;
    tfs_shape_1d(&s, n);
    tfs_tensor *o = tfs_kctx_alloc_output(c, od, &s);
    if (!o || gather_level(c, pr, od, o) < 0) return;
  }
  /* the value rows: every index walked down the params' splits */
  for (int64_t i = 0; i < ix->nelems; i++) {
    int64_t a = tfs_ragged__at(ix, i), b = a + 1;
    for (int d = 0; d < pr; d++) {
      int64_t na = tfs_ragged__at(c->inputs[d], a);
      int64_t nb = tfs_ragged__at(c->inputs[d], b);
      a = na;
      b = nb > na ? nb : na;
    }
    if (tfs_add_overflow_i64(nvals, b - a, &nvals)) {
      tfs_arr_oom(c);
      return;
    }
  }
  tfs_shape s = v->shape;
  s.dims[0] = nvals;
  tfs_tensor *o = tfs_kctx_alloc_output(c, orr, &s);
  if (!o || o->nelems == 0) return;
  int64_t inner = tfs_arr_prod(v->shape.dims, 1, v->shape.rank);
  tfs_elem e = tfs_elem_of(v->dtype);
  char *dst = o->data;
  for (int64_t i = 0; i < ix->nelems; i++) {
    int64_t a = tfs_ragged__at(ix, i), b = a + 1;
    for (int d = 0; d < pr; d++) {
      int64_t na = tfs_ragged__at(c->inputs[d], a);
      int64_t nb = tfs_ragged__at(c->inputs[d], b);
      a = na;
      b = nb > na ? nb : na;
    }
    int64_t n = (b - a) * inner;
    if (tfs_elem_copy(e, dst, (const char *)v->data + a * inner * e.size,
                      n)) {
      tfs_arr_oom(c);
      return;
    }
    dst += n * e.size;
  }
}

/* ---- the table ----------------------------------------------------------- */

#define RANGE_T                                                       \
  (TFS_DT_BIT(TFS_FLOAT) | TFS_DT_BIT(TFS_DOUBLE) |                   \
   TFS_DT_BIT(TFS_INT32) | TFS_DT_BIT(TFS_INT64))

const tfs_kernel_def tfs_cpu_kernels_ragged[] = {
    {"RaggedRange", "CPU", "T", RANGE_T, NULL, range_compute, NULL, 0,
     NULL},
    {"RaggedTensorToSparse", "CPU", "T", TFS_DT_ARRAY, NULL,
     to_sparse_compute, NULL, 0, NULL},
    {"RaggedGather", "CPU", "Tvalues", TFS_DT_ARRAY, NULL, gather_compute,
     NULL, 0, NULL},
    {"RaggedTensorToTensor", "CPU", "T", TFS_DT_ARRAY,
     tfs_ragged__to_tensor_prepare, tfs_ragged__to_tensor_compute, tfs_free,
     0, NULL},
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL},
};
