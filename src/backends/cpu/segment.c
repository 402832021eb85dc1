/*
 * backends/cpu/segment.c - segment reductions: sorted (SegmentSum, Prod,
 * Min, Max, Mean), unsorted (UnsortedSegmentSum, Prod, Min, Max) and
 * sparse (SparseSegmentSum, Mean, SqrtN, with or without num_segments).
 * Every id and index is checked against its bound before a row is read or
 * written; a bad one fails the node with TensorFlow's message.
 *
 * Results accumulate in the element type, one combine at a time in input
 * order (see segment_util.h).  Empty segments of the sorted and sparse
 * ops give 0 (1 for SegmentProd); those of the unsorted ops the
 * reduction's identity (the type's lowest value for Max, highest for
 * Min), as TensorFlow's CPU kernels do.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/alloc.h"
#include "backends/cpu/array_util.h"
#include "backends/cpu/segment_util.h"

/* ---- widened values ------------------------------------------------------ */

tfs_sval tfs_sval_load(tfs_dtype dt, const void *base, int64_t i) {
  tfs_sval v = {.i = 0};
#define LD(T, FIELD, CONV)                                                 \
  do {                                                                     \
    T x;                                                                   \
    memcpy(&x, (const char *)base + i * (int64_t)sizeof(T), sizeof x);     \
    v.FIELD = CONV;                                                        \
  } while (0)
  switch (dt) {
  case TFS_FLOAT: LD(float, f, (double)x); break;
  case TFS_DOUBLE: LD(double, f, x); break;
  case TFS_HALF: LD(uint16_t, f, (double)tfs_half_to_float(x)); break;
  case TFS_BFLOAT16: LD(uint16_t, f, (double)tfs_bf16_to_float(x)); break;
  case TFS_COMPLEX64: LD(float _Complex, c, (double _Complex)x); break;
  case TFS_COMPLEX128: LD(double _Complex, c, x); break;
  case TFS_INT8: LD(int8_t, i, x); break;
  case TFS_INT16: LD(int16_t, i, x); break;
  case TFS_INT32: LD(int32_t, i, x); break;
  case TFS_INT64: LD(int64_t, i, x); break;
  case TFS_UINT8: LD(uint8_t, i, (int64_t)x); break;
  case TFS_UINT16: LD(uint16_t, i, (int64_t)x); break;
  case TFS_UINT32: LD(uint32_t, i, (int64_t)x); break;
  case TFS_UINT64: LD(uint64_t, i, (int64_t)x); break;
  default: break;
  }
#undef LD
  return v;
}

void tfs_sval_store(tfs_dtype dt, void *base, int64_t i, tfs_sval v) {
#define ST(T, EXPR)                                                        \
  do {                                                                     \
    T x = (EXPR);                                                          \
    memcpy((char *)base + i * (int64_t)sizeof(T), &x, sizeof x);           \
  } while (0)
  uint64_t u = (uint64_t)v.i;
  switch (dt) {
  case TFS_FLOAT: ST(float, (float)v.f); break;
  case TFS_DOUBLE: ST(double, v.f); break;
  case TFS_HALF: ST(uint16_t, tfs_float_to_half((float)v.f)); break;
  case TFS_BFLOAT16: ST(uint16_t, tfs_float_to_bf16((float)v.f)); break;
  case TFS_COMPLEX64: ST(float _Complex, (float _Complex)v.c); break;
  case TFS_COMPLEX128: ST(double _Complex, v.c); break;
  case TFS_INT8: ST(int8_t, (int8_t)(uint8_t)u); break;
  case TFS_INT16: ST(int16_t, (int16_t)(uint16_t)u); break;
  case TFS_INT32: ST(int32_t, (int32_t)(uint32_t)u); break;
  case TFS_INT64: ST(int64_t, v.i); break;
  case TFS_UINT8: ST(uint8_t, (uint8_t)u); break;
  case TFS_UINT16: ST(uint16_t, (uint16_t)u); break;
  case TFS_UINT32: ST(uint32_t, (uint32_t)u); break;
  case TFS_UINT64: ST(uint64_t, u); break;
  default: break;
  }
#undef ST
}

static int less(int k, tfs_sval a, tfs_sval b) {
  if (k == TFS_SV_FLOAT) return a.f < b.f;
  if (k == TFS_SV_UNSIGNED) return (uint64_t)a.i < (uint64_t)b.i;
  return a.i < b.i;
}

tfs_sval tfs_sval_combine(int k, int op, tfs_sval a, tfs_sval b) {
  tfs_sval r = a;
  switch (op) {
  case TFS_SR_PROD:
    if (k == TFS_SV_FLOAT) r.f = a.f * b.f;
    else if (k == TFS_SV_COMPLEX) r.c = a.c * b.c;
    else r.i = (int64_t)((uint64_t)a.i * (uint64_t)b.i);
    return r;
  case TFS_SR_MIN:
    return less(k, b, a) ? b : a;
  case TFS_SR_MAX:
    return less(k, a, b) ? b : a;
  default:
    if (k == TFS_SV_FLOAT) r.f = a.f + b.f;
    else if (k == TFS_SV_COMPLEX) r.c = a.c + b.c;
    else r.i = (int64_t)((uint64_t)a.i + (uint64_t)b.i);
    return r;
  }
}

/* The type's highest value (hi) or lowest one. */
static tfs_sval limit(tfs_dtype dt, int hi) {
  tfs_sval v = {.i = 0};
  switch (dt) {
  case TFS_FLOAT: v.f = hi ? FLT_MAX : -FLT_MAX; break;
  case TFS_DOUBLE: v.f = hi ? DBL_MAX : -DBL_MAX; break;
  case TFS_HALF: v.f = hi ? 65504.0 : -65504.0; break;
  case TFS_BFLOAT16:
    v.f = hi ? 3.3895313892515355e38 : -3.3895313892515355e38;
    break;
  case TFS_INT8: v.i = hi ? INT8_MAX : INT8_MIN; break;
  case TFS_INT16: v.i = hi ? INT16_MAX : INT16_MIN; break;
  case TFS_INT32: v.i = hi ? INT32_MAX : INT32_MIN; break;
  case TFS_INT64: v.i = hi ? INT64_MAX : INT64_MIN; break;
  case TFS_UINT8: v.i = hi ? UINT8_MAX : 0; break;
  case TFS_UINT16: v.i = hi ? UINT16_MAX : 0; break;
  case TFS_UINT32: v.i = hi ? (int64_t)UINT32_MAX : 0; break;
  case TFS_UINT64: v.i = hi ? -1 : 0; break;
  default: break;
  }
  return v;
}

tfs_sval tfs_sval_identity(tfs_dtype dt, int op) {
  tfs_sval v = {.i = 0};
  int k = tfs_sval_kind(dt);
  if (op == TFS_SR_MIN) return limit(dt, 1);
  if (op == TFS_SR_MAX) return limit(dt, 0);
  if (op == TFS_SR_PROD) {
    if (k == TFS_SV_FLOAT) v.f = 1;
    else if (k == TFS_SV_COMPLEX) v.c = 1;
    else v.i = 1;
  }
  return v;
}

const char *tfs_seg_index_str(int64_t flat, const int64_t *dims, int rank,
                              char *buf, size_t cap) {
  if (rank == 0 || cap < 3) {
    buf[0] = 0;
    return buf;
  }
  buf[0] = '[';
  tfs_arr_index_str(flat, dims, rank, buf + 1, cap - 2);
  size_t n = strlen(buf);
  buf[n] = ']';
  buf[n + 1] = 0;
  return buf;
}

/* ---- rows ---------------------------------------------------------------- */

/* out row `o` (op)= in row `r`, `inner` elements of dtype dt. */
static void combine_row(tfs_dtype dt, int op, char *out, int64_t o,
                        const char *in, int64_t r, int64_t inner) {
  int k = tfs_sval_kind(dt);
  for (int64_t x = 0; x < inner; x++) {
    tfs_sval a = tfs_sval_load(dt, out, o * inner + x);
    tfs_sval b = tfs_sval_load(dt, in, r * inner + x);
    tfs_sval_store(dt, out, o * inner + x, tfs_sval_combine(k, op, a, b));
  }
}

static void copy_row(tfs_dtype dt, char *out, int64_t o, const char *in,
                     int64_t r, int64_t inner) {
  size_t es = tfs_dtype__storage_size(dt);
  memcpy(out + (size_t)(o * inner) * es, in + (size_t)(r * inner) * es,
         (size_t)inner * es);
}

/* Fills rows [from, to) with v. */
static void fill_rows(tfs_dtype dt, char *out, int64_t from, int64_t to,
                      int64_t inner, tfs_sval v) {
  for (int64_t e = from * inner; e < to * inner; e++)
    tfs_sval_store(dt, out, e, v);
}

/* Mean or sqrt-n of row o, the sum of n rows. */
static void finish_row(tfs_dtype dt, int op, char *out, int64_t o,
                       int64_t inner, int64_t n) {
  if ((op != TFS_SR_MEAN && op != TFS_SR_SQRTN) || n <= 1) return;
  int k = tfs_sval_kind(dt);
  double div = op == TFS_SR_SQRTN ? sqrt((double)n) : (double)n;
  for (int64_t x = o * inner; x < (o + 1) * inner; x++) {
    tfs_sval v = tfs_sval_load(dt, out, x);
    if (k == TFS_SV_FLOAT) v.f /= div;
    else if (k == TFS_SV_COMPLEX) v.c /= div;
    else if (k == TFS_SV_UNSIGNED) v.i = (int64_t)((uint64_t)v.i / (uint64_t)n);
    else v.i /= n;
    tfs_sval_store(dt, out, x, v);
  }
}

/* Output shape [rows] + shape[from:], or -1 after failing c. */
static int lead_shape(tfs_kernel_ctx *c, const tfs_shape *s, int from,
                      int64_t rows, tfs_shape *out) {
  if (s->rank - from + 1 > TFS_MAX_RANK) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "segment reduction result has more than %d dimensions",
                  TFS_MAX_RANK);
    return -1;
  }
  out->rank = s->rank - from + 1;
  out->dims[0] = rows;
  for (int k = from; k < s->rank; k++) out->dims[1 + k - from] = s->dims[k];
  return 0;
}

/* last + 1, -1 where it overflows (TensorFlow's int64 arithmetic). */
static int64_t rows_after(int64_t last) {
  return last == INT64_MAX ? -1 : last + 1;
}

/* ---- sorted segments ----------------------------------------------------- */

typedef struct {
  int op;
} seg_state;

static int seg_prepare(tfs_kernel_init *ki) {
  ki->state = (void *)ki->kdata;
  return 0;
}

static int segment_check(tfs_kernel_ctx *c, const tfs_tensor *data,
                         const tfs_tensor *ids) {
  if (data->shape.rank < 1) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "input must be at least rank 1");
    return -1;
  }
  if (ids->shape.rank != 1) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "segment_ids should be a vector.");
    return -1;
  }
  if (ids->nelems != data->shape.dims[0]) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "segment_ids should be the same size as dimension 0 of "
                  "input.");
    return -1;
  }
  return 0;
}

/* Reduces data rows [start, end) into output row o. */
static void reduce_rows(tfs_dtype dt, int op, char *out, int64_t o,
                        const char *in, int64_t start, int64_t end,
                        int64_t inner) {
  copy_row(dt, out, o, in, start, inner);
  for (int64_t r = start + 1; r < end; r++)
    combine_row(dt, op, out, o, in, r, inner);
  finish_row(dt, op, out, o, inner, end - start);
}

static void segment_compute(tfs_kernel_ctx *c) {
  const seg_state *s = c->state;
  const tfs_tensor *data = c->inputs[0], *ids = c->inputs[1];
  if (segment_check(c, data, ids)) return;
  int64_t n = ids->nelems;
  int64_t last = n > 0 ? tfs_tensor__get_as_int64(ids, n - 1) : -1;
  if (last < -1 || (n > 0 && last < 0)) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "segment ids must be >= 0");
    return;
  }
  int64_t rows = rows_after(last);
  if (rows < 0) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Expected a non-negative size, got %lld",
                  (long long)INT64_MIN);
    return;
  }
  tfs_shape os;
  if (lead_shape(c, &data->shape, 1, rows, &os)) return;
  tfs_tensor *o = tfs_kctx_alloc_output(c, 0, &os);
  if (!o || n == 0) return;
  if (rows == 0) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "segment ids must be >= 0");
    return;
  }
  tfs_dtype dt = data->dtype;
  int64_t inner = tfs_arr_prod(data->shape.dims, 1, data->shape.rank);
  tfs_sval def = {.i = 0};
  if (s->op == TFS_SR_PROD) def = tfs_sval_identity(dt, TFS_SR_PROD);
  int64_t start = 0, uninit = 0, cur = tfs_tensor__get_as_int64(ids, 0);
  for (int64_t end = 1; end <= n; end++) {
    int64_t next = 0;
    if (end < n) {
      next = tfs_tensor__get_as_int64(ids, end);
      if (next == cur) continue;
      if (next < cur) {
        tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                      "segment ids are not increasing");
        return;
      }
    }
    if (cur < 0 || cur >= rows) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "Segment id %lld out of range [0, %lld), possibly "
                    "because 'segment_ids' input is not sorted.",
                    (long long)cur, (long long)rows);
      return;
    }
    fill_rows(dt, o->data, uninit, cur, inner, def);
    reduce_rows(dt, s->op, o->data, cur, data->data, start, end, inner);
    start = end;
    uninit = cur + 1;
    cur = next;
  }
}

/* ---- unsorted segments --------------------------------------------------- */

static int starts_with(const tfs_shape *s, const tfs_shape *pre) {
  if (s->rank < pre->rank) return 0;
  for (int k = 0; k < pre->rank; k++)
    if (s->dims[k] != pre->dims[k]) return 0;
  return 1;
}

static void unsorted_compute(tfs_kernel_ctx *c) {
  const seg_state *s = c->state;
  const tfs_tensor *data = c->inputs[0], *ids = c->inputs[1];
  const tfs_tensor *ns = c->inputs[2];
  char a[TFS_SHAPE_STRLEN], b[TFS_SHAPE_STRLEN];
  if (ns->shape.rank != 0) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "num_segments should be a scalar, not shape %s",
                  tfs_shape_str(&ns->shape, a, sizeof a));
    return;
  }
  if (!starts_with(&data->shape, &ids->shape)) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "data.shape = %s does not start with segment_ids.shape = %s",
                  tfs_shape_str(&data->shape, a, sizeof a),
                  tfs_shape_str(&ids->shape, b, sizeof b));
    return;
  }
  int64_t rows = tfs_arr_scalar(ns);
  if (rows < 0) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Input num_segments == %lld must not be negative.",
                  (long long)rows);
    return;
  }
  tfs_shape os;
  if (lead_shape(c, &data->shape, ids->shape.rank, rows, &os)) return;
  tfs_tensor *o = tfs_kctx_alloc_output(c, 0, &os);
  if (!o) return;
  tfs_dtype dt = data->dtype;
  int64_t inner = tfs_arr_prod(data->shape.dims, ids->shape.rank,
                               data->shape.rank);
  fill_rows(dt, o->data, 0, rows, inner, tfs_sval_identity(dt, s->op));
  if (data->nelems == 0) return;
  for (int64_t i = 0; i < ids->nelems; i++) {
    int64_t j = tfs_tensor__get_as_int64(ids, i);
    if (j < 0) continue;
    if (j >= rows) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "segment_ids%s = %lld is out of range [0, %lld)",
                    tfs_seg_index_str(i, ids->shape.dims, ids->shape.rank, a,
                                      sizeof a),
                    (long long)j, (long long)rows);
      return;
    }
    combine_row(dt, s->op, o->data, j, data->data, i, inner);
  }
}

/* ---- sparse segments ----------------------------------------------------- */

static int sparse_check(tfs_kernel_ctx *c, int has_n) {
  const tfs_tensor *data = c->inputs[0], *ix = c->inputs[1];
  const tfs_tensor *ids = c->inputs[2];
  char a[TFS_SHAPE_STRLEN];
  if (has_n && c->inputs[3]->shape.rank != 0) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "num_segments should be a scalar, not shape %s",
                  tfs_shape_str(&c->inputs[3]->shape, a, sizeof a));
    return -1;
  }
  if (ix->shape.rank != 1) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "indices should be a vector.");
    return -1;
  }
  if (ids->shape.rank != 1) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "segment_ids should be a vector.");
    return -1;
  }
  if (ix->nelems != ids->nelems) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "segment_ids and indices should have same size.");
    return -1;
  }
  if (data->shape.rank < 1) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Shape must be at least rank 1 but is rank 0");
    return -1;
  }
  return 0;
}

/* Every index in [0, dim0), or -1 after failing c. */
static int sparse_indices_ok(tfs_kernel_ctx *c, const tfs_tensor *ix,
                             int64_t dim0) {
  for (int64_t i = 0; i < ix->nelems; i++) {
    int64_t v = tfs_tensor__get_as_int64(ix, i);
    if (v < 0 || v >= dim0) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "Bad: indices[%lld] == %lld out of range [0, %lld)",
                    (long long)i, (long long)v, (long long)dim0);
      return -1;
    }
  }
  return 0;
}

/* Reduces rows data[ix[start..end)] into output row o. */
static void sparse_rows(tfs_dtype dt, int op, char *out, int64_t o,
                        const tfs_tensor *data, const tfs_tensor *ix,
                        int64_t start, int64_t end, int64_t inner) {
  copy_row(dt, out, o, data->data, tfs_tensor__get_as_int64(ix, start),
           inner);
  for (int64_t r = start + 1; r < end; r++)
    combine_row(dt, op, out, o, data->data, tfs_tensor__get_as_int64(ix, r),
                inner);
  finish_row(dt, op, out, o, inner, end - start);
}

static void sparse_compute(tfs_kernel_ctx *c) {
  const seg_state *s = c->state;
  int has_n = c->ninputs > 3;
  if (sparse_check(c, has_n)) return;
  const tfs_tensor *data = c->inputs[0], *ix = c->inputs[1];
  const tfs_tensor *ids = c->inputs[2];
  int64_t n = ids->nelems, rows;
  if (has_n) {
    rows = tfs_arr_scalar(c->inputs[3]);
  } else {
    rows = n > 0 ? rows_after(tfs_tensor__get_as_int64(ids, n - 1)) : 0;
  }
  if (rows < 0) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "segment ids must be >= 0");
    return;
  }
  if (has_n && n > 0 && tfs_tensor__get_as_int64(ids, n - 1) >= rows) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "segment ids must be < num_segments");
    return;
  }
  tfs_shape os;
  if (lead_shape(c, &data->shape, 1, rows, &os)) return;
  tfs_tensor *o = tfs_kctx_alloc_output(c, 0, &os);
  if (!o) return;
  tfs_dtype dt = data->dtype;
  int64_t inner = tfs_arr_prod(data->shape.dims, 1, data->shape.rank);
  tfs_sval zero = {.i = 0};
  if (n == 0) {
    fill_rows(dt, o->data, 0, rows, inner, zero);
    return;
  }
  if (rows == 0) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "segment ids must be >= 0");
    return;
  }
  if (sparse_indices_ok(c, ix, data->shape.dims[0])) return;
  int64_t start = 0, uninit = 0, cur = tfs_tensor__get_as_int64(ids, 0);
  for (int64_t end = 1; end <= n; end++) {
    int64_t next = 0;
    if (end < n) {
      next = tfs_tensor__get_as_int64(ids, end);
      if (next == cur) continue;
      if (next < cur) {
        tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                      "segment ids are not increasing");
        return;
      }
    }
    if (cur < 0 || cur >= rows) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "Segment id %lld out of range [0, %lld), possibly "
                    "because 'segment_ids' input is not sorted.",
                    (long long)cur, (long long)rows);
      return;
    }
    fill_rows(dt, o->data, uninit, cur, inner, zero);
    sparse_rows(dt, s->op, o->data, cur, data, ix, start, end, inner);
    start = end;
    uninit = cur + 1;
    cur = next;
  }
  fill_rows(dt, o->data, uninit, rows, inner, zero);
}

/* ---- the table ----------------------------------------------------------- */

static const seg_state kSum = {TFS_SR_SUM}, kProd = {TFS_SR_PROD},
                       kMin = {TFS_SR_MIN}, kMax = {TFS_SR_MAX},
                       kMean = {TFS_SR_MEAN}, kSqrtN = {TFS_SR_SQRTN};

#define CPLX (TFS_DT_BIT(TFS_COMPLEX64) | TFS_DT_BIT(TFS_COMPLEX128))
#define K(OP, FN, TYPES, ST)                                               \
  {OP, "CPU", "T", TYPES, seg_prepare, FN, NULL, 0, &ST}

const tfs_kernel_def tfs_cpu_kernels_segment[] = {
    K("SegmentSum", segment_compute, TFS_DT_REAL | CPLX, kSum),
    K("SegmentProd", segment_compute, TFS_DT_REAL | CPLX, kProd),
    K("SegmentMean", segment_compute, TFS_DT_REAL | CPLX, kMean),
    K("SegmentMin", segment_compute, TFS_DT_REAL, kMin),
    K("SegmentMax", segment_compute, TFS_DT_REAL, kMax),
    K("UnsortedSegmentSum", unsorted_compute, TFS_DT_REAL | CPLX, kSum),
    K("UnsortedSegmentProd", unsorted_compute, TFS_DT_REAL | CPLX, kProd),
    K("UnsortedSegmentMin", unsorted_compute, TFS_DT_REAL, kMin),
    K("UnsortedSegmentMax", unsorted_compute, TFS_DT_REAL, kMax),
    K("SparseSegmentSum", sparse_compute, TFS_DT_REAL, kSum),
    K("SparseSegmentMean", sparse_compute, TFS_DT_FLOATS, kMean),
    K("SparseSegmentSqrtN", sparse_compute, TFS_DT_FLOATS, kSqrtN),
    K("SparseSegmentSumWithNumSegments", sparse_compute, TFS_DT_REAL, kSum),
    K("SparseSegmentMeanWithNumSegments", sparse_compute, TFS_DT_FLOATS,
      kMean),
    K("SparseSegmentSqrtNWithNumSegments", sparse_compute, TFS_DT_FLOATS,
      kSqrtN),
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL},
};
