/*
 * ops/ops_segment.c - segment reductions and their relatives: sorted
 * (SegmentSum...), unsorted (UnsortedSegmentSum...) and sparse
 * (SparseSegmentSum...) reductions, Unique*, LowerBound/UpperBound,
 * Bincount/DenseBincount, DynamicPartition and DynamicStitch.  Shape
 * functions infer and reject what TensorFlow's do, with its messages.
 */
#include "core/status.h"
#include "ops/op_tables.h"
#include "ops/shape_ctx.h"

/* ---- helpers ------------------------------------------------------------- */

/* TensorFlow's MergePrefix: `s` (input i) must start with `prefix`
 * (input p, rank known); dims merge pairwise. */
static int merge_prefix(tfs_shape_ctx *c, int i, int p) {
  const tfs_shape *s = &c->in_shapes[i], *pre = &c->in_shapes[p];
  if (tfs_sc_with_rank_at_least(c, i, pre->rank)) return -1;
  if (s->rank < 0) return 0;
  for (int k = 0; k < pre->rank; k++) {
    int64_t d;
    if (tfs_sc_merge_dim(c, s->dims[k], pre->dims[k], &d)) return -1;
  }
  return 0;
}

/* out = [d0] + s[from:] (unknown when s's rank is unknown). */
static void lead_and_suffix(tfs_shape *out, int64_t d0, const tfs_shape *s,
                            int from) {
  if (s->rank < 0) {
    out->rank = -1;
    return;
  }
  out->rank = 1 + s->rank - from;
  out->dims[0] = d0;
  for (int k = from; k < s->rank; k++) out->dims[1 + k - from] = s->dims[k];
}

/* TensorFlow's Merge of two shapes into *a (unknown rank: rank -1). */
static int merge_shape(tfs_shape_ctx *c, tfs_shape *a, const tfs_shape *b) {
  char x[TFS_SHAPE_STRLEN], y[TFS_SHAPE_STRLEN];
  if (b->rank < 0) return 0;
  if (a->rank < 0) {
    *a = *b;
    return 0;
  }
  if (a->rank != b->rank)
    return tfs_sc_error(c, "Shapes must be equal rank, but are %d and %d",
                        a->rank, b->rank);
  for (int k = 0; k < b->rank; k++) {
    int64_t p = a->dims[k], q = b->dims[k];
    if (p >= 0 && q >= 0 && p != q)
      return tfs_sc_error(c, "Dimension %d in both shapes must be equal, "
                          "but are %lld and %lld. Shapes are %s and %s.", k,
                          (long long)p, (long long)q,
                          tfs_shape_str(a, x, sizeof x),
                          tfs_shape_str(b, y, sizeof y));
  }
  for (int k = 0; k < b->rank; k++)
    if (a->dims[k] < 0) a->dims[k] = b->dims[k];
  return 0;
}

/* The value of scalar input i as a dim (MakeDimForScalarInput): -1 when
 * not constant, an error when negative. */
static int scalar_dim(tfs_shape_ctx *c, int i, int64_t *d) {
  *d = -1;
  if (tfs_sc_const_scalar(c, i, d)) {
    *d = -1;
    return 0;
  }
  if (*d < 0)
    return tfs_sc_error(c, "Dimension size, given by scalar input %d, must "
                        "be non-negative but is %lld", i, (long long)*d);
  return 0;
}

/* ---- segment reductions -------------------------------------------------- */

static int segment_shape(tfs_shape_ctx *c) {
  if (tfs_sc_with_rank_at_least(c, 0, 1) || tfs_sc_with_rank(c, 1, 1))
    return -1;
  lead_and_suffix(&c->out_shapes[0], -1, &c->in_shapes[0], 1);
  return 0;
}

static int unsorted_segment_shape(tfs_shape_ctx *c) {
  if (tfs_sc_with_rank(c, 2, 0)) return -1;
  const tfs_shape *ids = &c->in_shapes[1];
  if (ids->rank < 0) return tfs_shape_fn_unknown(c);
  if (merge_prefix(c, 0, 1)) return -1;
  int64_t n;
  if (scalar_dim(c, 2, &n)) return -1;
  lead_and_suffix(&c->out_shapes[0], n, &c->in_shapes[0], ids->rank);
  return 0;
}

static int sparse_segment_common(tfs_shape_ctx *c) {
  if (tfs_sc_with_rank_at_least(c, 0, 1) || tfs_sc_with_rank(c, 1, 1) ||
      tfs_sc_with_rank(c, 2, 1))
    return -1;
  tfs_shape a = c->in_shapes[1];
  return merge_shape(c, &a, &c->in_shapes[2]);
}

static int sparse_segment_shape(tfs_shape_ctx *c) {
  if (sparse_segment_common(c)) return -1;
  lead_and_suffix(&c->out_shapes[0], -1, &c->in_shapes[0], 1);
  return 0;
}

static int sparse_segment_n_shape(tfs_shape_ctx *c) {
  if (sparse_segment_common(c) || tfs_sc_with_rank(c, 3, 0)) return -1;
  int64_t n = -1;
  if (tfs_sc_const_scalar(c, 3, &n) == 0 && n < 0)
    return tfs_sc_error(c, "Cannot specify a negative value for "
                        "num_segments");
  lead_and_suffix(&c->out_shapes[0], n, &c->in_shapes[0], 1);
  return 0;
}

/* ---- Unique* ------------------------------------------------------------- */

static int unique_shape(tfs_shape_ctx *c) {
  if (tfs_sc_with_rank(c, 0, 1)) return -1;
  tfs_shape_1d(&c->out_shapes[0], -1);
  c->out_shapes[1] = c->in_shapes[0];
  if (c->noutputs > 2) tfs_shape_1d(&c->out_shapes[2], -1);
  return 0;
}

/* idx: x's dim along a constant axis (TensorFlow's UniqueIdxShapeFn). */
static int unique_v2_shape(tfs_shape_ctx *c) {
  const tfs_shape *x = &c->in_shapes[0];
  const tfs_tensor *ax = tfs_sc_const(c, 1);
  if (x->rank < 0)
    c->out_shapes[0].rank = -1;
  else
    tfs_shape_unknown_dims(&c->out_shapes[0], x->rank);
  if (c->noutputs > 2) tfs_shape_1d(&c->out_shapes[2], -1);
  tfs_shape_1d(&c->out_shapes[1], -1);
  if (!ax || x->rank < 0) return 0;
  if (ax->shape.rank != 1)
    return tfs_sc_error(c, "axis expects a 1D vector.");
  if (ax->nelems == 0) {
    if (x->rank != 1) return tfs_sc_error(c, "x expects a 1D vector.");
    c->out_shapes[1] = *x;
    return 0;
  }
  if (ax->nelems > 1)
    return tfs_sc_error(c, "axis does not support input tensors larger "
                        "than 1 elements.");
  int64_t a = tfs_tensor__get_as_int64(ax, 0);
  if (a < -x->rank || a >= x->rank)
    return tfs_sc_error(c, "axis expects to be in the range [%d, %d)",
                        -x->rank, x->rank);
  tfs_shape_1d(&c->out_shapes[1], x->dims[a < 0 ? a + x->rank : a]);
  return 0;
}

/* ---- LowerBound / UpperBound --------------------------------------------- */

static int bound_shape(tfs_shape_ctx *c) {
  if (tfs_sc_with_rank(c, 0, 2) || tfs_sc_with_rank(c, 1, 2)) return -1;
  c->out_shapes[0] = c->in_shapes[1];
  return 0;
}

/* ---- Bincount ------------------------------------------------------------ */

static int bincount_shape(tfs_shape_ctx *c) {
  if (tfs_sc_with_rank(c, 1, 0)) return -1;
  int64_t n;
  if (tfs_sc_const_scalar(c, 1, &n)) {
    tfs_shape_1d(&c->out_shapes[0], -1);
    return 0;
  }
  if (n < 0)
    return tfs_sc_error(c, "size (%lld) must be non-negative", (long long)n);
  tfs_shape_1d(&c->out_shapes[0], n);
  return 0;
}

static int dense_bincount_shape(tfs_shape_ctx *c) {
  const tfs_shape *in = &c->in_shapes[0];
  if (in->rank > 2)
    return tfs_sc_error(c, "Shape must be at most rank 2 but is rank %d",
                        in->rank);
  if (tfs_sc_with_rank(c, 1, 0)) return -1;
  int64_t n;
  if (tfs_sc_const_scalar(c, 1, &n)) return tfs_shape_fn_unknown(c);
  if (n < 0)
    return tfs_sc_error(c, "size (%lld) must be non-negative", (long long)n);
  if (in->rank == 1)
    tfs_shape_1d(&c->out_shapes[0], n);
  else if (in->rank == 2)
    tfs_shape_2d(&c->out_shapes[0], in->dims[0], n);
  return 0;
}

/* ---- DynamicPartition / DynamicStitch ------------------------------------ */

static int dynamic_partition_shape(tfs_shape_ctx *c) {
  const tfs_shape *p = &c->in_shapes[1];
  if (p->rank < 0) return tfs_shape_fn_unknown(c);
  if (merge_prefix(c, 0, 1)) return -1;
  tfs_shape out;
  lead_and_suffix(&out, -1, &c->in_shapes[0], p->rank);
  for (int i = 0; i < c->noutputs; i++) c->out_shapes[i] = out;
  return 0;
}

static int dynamic_stitch_shape(tfs_shape_ctx *c) {
  int n = c->ninputs / 2, all_const = 1;
  int64_t max_index = -1;
  tfs_shape extra = {.rank = -1};
  for (int i = 0; i < n; i++) {
    const tfs_tensor *t = tfs_sc_const(c, i);
    if (!t || t->dtype != TFS_INT32) all_const = 0;
    const tfs_shape *is = &c->in_shapes[i], *ds = &c->in_shapes[n + i];
    if (is->rank < 0) continue;
    if (merge_prefix(c, n + i, i)) return -1;
    tfs_shape rest;
    if (ds->rank < 0) {
      rest.rank = -1;
    } else {
      rest.rank = ds->rank - is->rank;
      for (int k = 0; k < rest.rank; k++) rest.dims[k] = ds->dims[is->rank + k];
    }
    if (merge_shape(c, &extra, &rest)) return -1;
    if (t && t->dtype == TFS_INT32)
      for (int64_t k = 0; k < t->nelems; k++) {
        int64_t v = tfs_tensor__get_as_int64(t, k);
        if (v > max_index) max_index = v;
      }
  }
  if (extra.rank < 0) return tfs_shape_fn_unknown(c);
  if (extra.rank + 1 > TFS_MAX_RANK)
    return tfs_sc_error(c, "DynamicStitch result has more than %d "
                        "dimensions", TFS_MAX_RANK);
  tfs_shape *o = &c->out_shapes[0];
  o->rank = extra.rank + 1;
  o->dims[0] = all_const ? max_index + 1 : -1;
  for (int k = 0; k < extra.rank; k++) o->dims[1 + k] = extra.dims[k];
  return 0;
}

/* ---- the table ----------------------------------------------------------- */

#define NUMBER_TYPES                                                       \
  "{float, double, int32, uint8, int16, int8, complex64, int64, qint8, "   \
  "quint8, qint32, bfloat16, qint16, quint16, uint16, complex128, half, "  \
  "uint32, uint64}"
#define REAL_TYPES                                                         \
  "{float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, "   \
  "half, uint32, uint64}"
#define SEG(NAME, TYPES)                                                   \
  {NAME, "data: T; segment_ids: Tindices", "output: T",                    \
   "T: " TYPES "; Tindices: {int32, int64}", segment_shape, 0}
#define UNSORTED(NAME, TYPES, IDX)                                         \
  {NAME, "data: T; segment_ids: Tindices; num_segments: Tnumsegments",     \
   "output: T",                                                            \
   "T: " TYPES "; Tindices: " IDX "; "                                     \
   "Tnumsegments: {int32, int64} = int32",                                 \
   unsorted_segment_shape, 0}
#define SPARSE_ATTRS(TYPES)                                                \
  "T: " TYPES "; Tidx: {int32, int64} = int32; "                           \
  "Tsegmentids: {int32, int64} = int32; sparse_gradient: bool = false"
#define SPARSE(NAME, TYPES)                                                \
  {NAME, "data: T; indices: Tidx; segment_ids: Tsegmentids", "output: T",  \
   SPARSE_ATTRS(TYPES), sparse_segment_shape, 0}
#define SPARSE_N(NAME, TYPES)                                              \
  {NAME,                                                                   \
   "data: T; indices: Tidx; segment_ids: Tsegmentids; "                    \
   "num_segments: Tnumsegments",                                           \
   "output: T",                                                            \
   SPARSE_ATTRS(TYPES) "; Tnumsegments: {int32, int64} = int32",           \
   sparse_segment_n_shape, 0}
#define FLOATS "{bfloat16, half, float, double}"
#define BOUND(NAME)                                                        \
  {NAME, "sorted_inputs: T; values: T", "output: out_type",                \
   "T: type; out_type: {int32, int64} = int32", bound_shape, 0}

const tfs_op_spec tfs_ops_segment[] = {
    SEG("SegmentSum", NUMBER_TYPES),
    SEG("SegmentProd", NUMBER_TYPES),
    SEG("SegmentMean", NUMBER_TYPES),
    SEG("SegmentMin", REAL_TYPES),
    SEG("SegmentMax", REAL_TYPES),
    UNSORTED("UnsortedSegmentSum", NUMBER_TYPES, "{int16, int32, int64}"),
    UNSORTED("UnsortedSegmentProd", NUMBER_TYPES, "{int32, int64}"),
    UNSORTED("UnsortedSegmentMin", REAL_TYPES, "{int32, int64}"),
    UNSORTED("UnsortedSegmentMax", REAL_TYPES, "{int32, int64}"),
    SPARSE("SparseSegmentSum", REAL_TYPES),
    SPARSE("SparseSegmentMean", FLOATS),
    SPARSE("SparseSegmentSqrtN", FLOATS),
    SPARSE_N("SparseSegmentSumWithNumSegments", REAL_TYPES),
    SPARSE_N("SparseSegmentMeanWithNumSegments", FLOATS),
    SPARSE_N("SparseSegmentSqrtNWithNumSegments", FLOATS),
    {"Unique", "x: T", "y: T; idx: out_idx",
     "T: type; out_idx: {int32, int64} = int32", unique_shape, 0},
    {"UniqueWithCounts", "x: T", "y: T; idx: out_idx; count: out_idx",
     "T: type; out_idx: {int32, int64} = int32", unique_shape, 0},
    {"UniqueV2", "x: T; axis: Taxis", "y: T; idx: out_idx",
     "T: type; Taxis: {int32, int64} = int64; "
     "out_idx: {int32, int64} = int32",
     unique_v2_shape, 0},
    {"UniqueWithCountsV2", "x: T; axis: Taxis",
     "y: T; idx: out_idx; count: out_idx",
     "T: type; Taxis: {int32, int64} = int64; "
     "out_idx: {int32, int64} = int32",
     unique_v2_shape, 0},
    BOUND("LowerBound"),
    BOUND("UpperBound"),
    {"Bincount", "arr: int32; size: int32; weights: T", "bins: T",
     "T: {int32, int64, float, double}", bincount_shape, 0},
    {"DenseBincount", "input: Tidx; size: Tidx; weights: T", "output: T",
     "Tidx: {int32, int64}; T: {int32, int64, float, double}; "
     "binary_output: bool = false",
     dense_bincount_shape, 0},
    {"DynamicPartition", "data: T; partitions: int32",
     "outputs: num_partitions * T", "num_partitions: int >= 1; T: type",
     dynamic_partition_shape, 0},
    {"DynamicStitch", "indices: N * int32; data: N * T", "merged: T",
     "N: int >= 1; T: type", dynamic_stitch_shape, 0},
    {"ParallelDynamicStitch", "indices: N * int32; data: N * T",
     "merged: T", "N: int >= 1; T: type", dynamic_stitch_shape, 0},
    {NULL, NULL, NULL, NULL, NULL, 0},
};
