/*
 * ops/ops_array.c - array ops: constants, placeholders, identities, shape
 * queries and manipulation, joining and splitting, slicing, padding,
 * gathering, rearranging.  The longer shape functions live in
 * array_shape_fns.c and array_shape_fns_index.c.
 */
#include "core/status.h"
#include "ops/array_shape_fns.h"
#include "ops/op_tables.h"
#include "ops/shape_ctx.h"

static int const_shape(tfs_shape_ctx *c) {
  const tfs_tensor *v = tfs_attrs_get_tensor(c->attrs, "value");
  tfs_dtype dt;
  if (!v) return tfs_sc_error(c, "Const node has no value");
  if (tfs_attrs_get_type(c->attrs, "dtype", &dt) == 0 && dt != v->dtype)
    return tfs_sc_error(c, "Const node's dtype attr is %s but its value "
                        "has dtype %s", tfs_dtype_name(dt),
                        tfs_dtype_name(v->dtype));
  c->out_shapes[0] = v->shape;
  return 0;
}

static int placeholder_with_default_shape(tfs_shape_ctx *c) {
  const tfs_shape *s = tfs_attrs_get_shape(c->attrs, "shape");
  if (!s) return tfs_shape_fn_unknown(c);
  if (!tfs_shape_is_compatible(s, &c->in_shapes[0]) &&
      c->in_shapes[0].rank >= 0) {
    char a[TFS_SHAPE_STRLEN], b[TFS_SHAPE_STRLEN];
    return tfs_sc_error(c, "Incompatible shapes: %s vs. %s",
                        tfs_shape_str(&c->in_shapes[0], a, sizeof a),
                        tfs_shape_str(s, b, sizeof b));
  }
  c->out_shapes[0] = *s;
  return 0;
}

/* EnsureShape: the input's shape merged with the attr's (TensorFlow's
 * Merge and its messages) */
static int ensure_shape_shape(tfs_shape_ctx *c) {
  const tfs_shape *s = tfs_attrs_get_shape(c->attrs, "shape");
  if (!s) return tfs_sc_error(c, "EnsureShape needs a shape attr");
  return tfs_sc_merge_shapes(c, s, &c->in_shapes[0], &c->out_shapes[0]);
}

static int shape_shape(tfs_shape_ctx *c) {
  const tfs_shape *s = &c->in_shapes[0];
  tfs_shape_1d(&c->out_shapes[0], s->rank);
  return 0;
}

static int fill_shape(tfs_shape_ctx *c) {
  if (tfs_sc_with_rank(c, 0, 1) || tfs_sc_with_rank(c, 1, 0)) return -1;
  tfs_shape s;
  if (tfs_sc_input_as_shape(c, 0, &s)) return -1;
  for (int i = 0; i < s.rank; i++)
    if (s.dims[i] < -1 || (tfs_sc_const(c, 0) && s.dims[i] < 0))
      return tfs_sc_error(c, "Fill dimensions must be >= 0");
  c->out_shapes[0] = s;
  return 0;
}

static int reshape_shape(tfs_shape_ctx *c) {
  const tfs_shape *in = &c->in_shapes[0];
  tfs_shape target;
  if (tfs_sc_input_as_shape(c, 1, &target)) return -1;
  if (target.rank < 0) {
    c->out_shapes[0].rank = -1;
    return 0;
  }
  int unknown_idx = -1;
  int64_t known = 1;
  const tfs_tensor *shape_const = tfs_sc_const(c, 1);
  for (int i = 0; i < target.rank; i++) {
    if (target.dims[i] < 0) {
      if (unknown_idx >= 0 && shape_const)
        return tfs_sc_error(c, "Only one input size may be -1, not both %d "
                            "and %d", unknown_idx, i);
      unknown_idx = i;
    } else if (tfs_mul_overflow_i64(known, target.dims[i], &known)) {
      return tfs_sc_error(c, "Reshape target has too many elements");
    }
  }
  int64_t in_n = tfs_shape_num_elements(in);
  if (in_n < 0 || !shape_const) {
    c->out_shapes[0] = target;
    return 0;
  }
  if (unknown_idx >= 0) {
    if (known == 0 ? in_n != 0 : in_n % known != 0)
      return tfs_sc_error(c, "Dimension size must be evenly divisible by "
                          "%lld but is %lld", (long long)known,
                          (long long)in_n);
    target.dims[unknown_idx] = known ? in_n / known : 0;
  } else if (in_n != known) {
    char b[TFS_SHAPE_STRLEN];
    return tfs_sc_error(c, "Cannot reshape a tensor with %lld elements to "
                        "shape %s (%lld elements)", (long long)in_n,
                        tfs_shape_str(&target, b, sizeof b),
                        (long long)known);
  }
  c->out_shapes[0] = target;
  return 0;
}


/* ---- identities, shape queries ------------------------------------------- */

static int identity_n_shape(tfs_shape_ctx *c) {
  for (int i = 0; i < c->noutputs && i < c->ninputs; i++)
    c->out_shapes[i] = c->in_shapes[i];
  return 0;
}

static int shape_n_shape(tfs_shape_ctx *c) {
  for (int i = 0; i < c->noutputs; i++)
    tfs_shape_1d(&c->out_shapes[i], c->in_shapes[i].rank);
  return 0;
}

static int squeeze_shape(tfs_shape_ctx *c) {
  const tfs_shape *in = &c->in_shapes[0];
  if (in->rank < 0) return tfs_shape_fn_unknown(c);
  int n = 0;
  const int64_t *sq = tfs_attrs_get_int_list(c->attrs, "squeeze_dims", &n);
  uint8_t pick[TFS_MAX_RANK] = {0};
  for (int i = 0; i < n; i++) {
    if (sq[i] < -in->rank || sq[i] >= in->rank)
      return tfs_sc_error(c, "squeeze_dims[%d] not in [%d,%d).", i,
                          -in->rank, in->rank);
    pick[sq[i] < 0 ? sq[i] + in->rank : sq[i]] = 1;
  }
  tfs_shape out = {.rank = 0};
  for (int i = 0; i < in->rank; i++) {
    int64_t d = in->dims[i];
    if (d < 0) {
      if (pick[i]) continue;
      if (n == 0) return tfs_shape_fn_unknown(c);
    } else if (d == 1) {
      if (pick[i] || n == 0) continue;
    } else if (pick[i]) {
      return tfs_sc_error(c, "Can not squeeze dim[%d], expected a dimension "
                          "of 1, got %lld", i, (long long)d);
    }
    out.dims[out.rank++] = d;
  }
  c->out_shapes[0] = out;
  return 0;
}

static int expand_dims_shape(tfs_shape_ctx *c) {
  const tfs_tensor *d = tfs_sc_const(c, 1);
  const tfs_shape *in = &c->in_shapes[0];
  if (d && d->nelems != 1)
    return tfs_sc_error(c, "'dim' input must be a tensor with a single "
                        "value");
  if (!d || in->rank < 0) return tfs_shape_fn_unknown(c);
  if (in->rank >= TFS_MAX_RANK)
    return tfs_sc_error(c, "ExpandDims result has more than %d dimensions",
                        TFS_MAX_RANK);
  int64_t dim = tfs_tensor__get_as_int64(d, 0);
  if (dim < -in->rank - 1 || dim > in->rank)
    return tfs_sc_error(c, "dim %lld not in the interval [%d, %d].",
                        (long long)dim, -in->rank - 1, in->rank);
  if (dim < 0) dim += in->rank + 1;
  tfs_shape out;
  out.rank = in->rank + 1;
  for (int i = 0, j = 0; i < out.rank; i++)
    out.dims[i] = i == dim ? 1 : in->dims[j++];
  c->out_shapes[0] = out;
  return 0;
}

static int reverse_v2_shape(tfs_shape_ctx *c) {
  if (tfs_sc_with_rank(c, 1, 1)) return -1;
  const tfs_shape *in = &c->in_shapes[0];
  const tfs_tensor *ax = tfs_sc_const(c, 1);
  if (ax && in->rank >= 0) {
    uint8_t seen[TFS_MAX_RANK] = {0};
    for (int64_t i = 0; i < ax->nelems; i++) {
      int64_t a = tfs_tensor__get_as_int64(ax, i);
      int64_t k = a < 0 ? a + in->rank : a;
      if (k < 0 || k >= in->rank)
        return tfs_sc_error(c, "'axis'[%lld] = %lld is out of valid range "
                            "[0, %d", (long long)i, (long long)a,
                            in->rank - 1);
      if (seen[k])
        return tfs_sc_error(c, "axis %lld specified more than once.",
                            (long long)k);
      seen[k] = 1;
    }
  }
  c->out_shapes[0] = *in;
  return 0;
}

static int where_shape(tfs_shape_ctx *c) {
  tfs_shape_2d(&c->out_shapes[0], -1, c->in_shapes[0].rank);
  if (c->in_shapes[0].rank < 0) c->out_shapes[0].dims[1] = -1;
  return 0;
}

static int vector_unchanged_shape(tfs_shape_ctx *c) {
  if (tfs_sc_with_rank(c, 0, 1)) return -1;
  c->out_shapes[0] = c->in_shapes[0];
  return 0;
}

static int cumsum_shape(tfs_shape_ctx *c) {
  if (tfs_sc_with_rank(c, 1, 0)) return -1;
  c->out_shapes[0] = c->in_shapes[0];
  return 0;
}

static int band_part_shape(tfs_shape_ctx *c) {
  if (tfs_sc_with_rank_at_least(c, 0, 2) || tfs_sc_with_rank(c, 1, 0) ||
      tfs_sc_with_rank(c, 2, 0))
    return -1;
  c->out_shapes[0] = c->in_shapes[0];
  return 0;
}

/* ---- the table ----------------------------------------------------------- */

#define CHEAP TFS_OP_CHEAP
#define INT_TYPES "int8, uint8, int16, uint16, int32, uint32, int64, uint64"

const tfs_op_spec tfs_ops_array[] = {
    {"Const", "", "output: dtype", "value: tensor; dtype: type", const_shape,
     TFS_OP_SOURCE | TFS_OP_CHEAP},
    {"Placeholder", "", "output: dtype",
     "dtype: type; shape: shape = <unknown>",
     tfs_shape_fn_dtype_shape_attr, TFS_OP_CHEAP | TFS_OP_PLACEHOLDER},
    {"PlaceholderWithDefault", "input: dtype", "output: dtype",
     "dtype: type; shape: shape", placeholder_with_default_shape,
     TFS_OP_CHEAP | TFS_OP_PLACEHOLDER},
    {"PlaceholderV2", "", "output: dtype", "dtype: type; shape: shape",
     tfs_shape_fn_dtype_shape_attr, TFS_OP_CHEAP | TFS_OP_PLACEHOLDER},
    {"Identity", "input: T", "output: T", "T: type", tfs_shape_fn_unchanged,
     TFS_OP_CHEAP},
    {"EnsureShape", "input: T", "output: T", "shape: shape; T: type",
     ensure_shape_shape, CHEAP},
    {"IdentityN", "input: T", "output: T", "T: list(type) >= 1",
     identity_n_shape, CHEAP},
    {"Snapshot", "input: T", "output: T", "T: type", tfs_shape_fn_unchanged,
     CHEAP},
    {"StopGradient", "input: T", "output: T", "T: type",
     tfs_shape_fn_unchanged, CHEAP},
    {"PreventGradient", "input: T", "output: T",
     "T: type; message: string = ''", tfs_shape_fn_unchanged, CHEAP},
    {"Reshape", "tensor: T; shape: Tshape", "output: T",
     "T: type; Tshape: {int32, int64} = int32", reshape_shape, TFS_OP_CHEAP},
    {"Squeeze", "input: T", "output: T",
     "T: type; squeeze_dims: list(int) >= 0 = []", squeeze_shape, CHEAP},
    {"ExpandDims", "input: T; dim: Tdim", "output: T",
     "T: type; Tdim: {int32, int64} = int32", expand_dims_shape, CHEAP},
    {"Transpose", "x: T; perm: Tperm", "y: T",
     "T: type; Tperm: {int32, int64} = int32", tfs_shape_fn_transpose, 0},
    {"ConcatV2", "values: N * T; axis: Tidx", "output: T",
     "N: int >= 2; T: type; Tidx: {int32, int64} = int32",
     tfs_shape_fn_concat, 0},
    {"Concat", "concat_dim: int32; values: N * T", "output: T",
     "N: int >= 2; T: type", tfs_shape_fn_concat, 0},
    {"Pack", "values: N * T", "output: T",
     "N: int >= 1; T: type; axis: int = 0", tfs_shape_fn_pack, 0},
    {"Unpack", "value: T", "output: num * T",
     "num: int >= 0; T: type; axis: int = 0", tfs_shape_fn_unpack, 0},
    {"Split", "split_dim: int32; value: T", "output: num_split * T",
     "num_split: int >= 1; T: type", tfs_shape_fn_split, 0},
    {"SplitV", "value: T; size_splits: Tlen; split_dim: int32",
     "output: num_split * T",
     "num_split: int >= 1; T: type; Tlen: {int8, int32, int64} = int64",
     tfs_shape_fn_split_v, 0},
    {"Slice", "input: T; begin: Index; size: Index", "output: T",
     "T: type; Index: {int32, int64}", tfs_shape_fn_slice, 0},
    {"StridedSlice", "input: T; begin: Index; end: Index; strides: Index",
     "output: T",
     "T: type; Index: {int16, int32, int64}; begin_mask: int = 0; "
     "end_mask: int = 0; ellipsis_mask: int = 0; new_axis_mask: int = 0; "
     "shrink_axis_mask: int = 0",
     tfs_shape_fn_strided_slice, 0},
    {"Pad", "input: T; paddings: Tpaddings", "output: T",
     "T: type; Tpaddings: {int32, int64} = int32", tfs_shape_fn_pad, 0},
    {"PadV2", "input: T; paddings: Tpaddings; constant_values: T",
     "output: T", "T: type; Tpaddings: {int32, int64} = int32",
     tfs_shape_fn_pad, 0},
    {"MirrorPad", "input: T; paddings: Tpaddings", "output: T",
     "T: type; Tpaddings: {int32, int64} = int32; "
     "mode: {'REFLECT', 'SYMMETRIC'}",
     tfs_shape_fn_pad, 0},
    {"Tile", "input: T; multiples: Tmultiples", "output: T",
     "T: type; Tmultiples: {int32, int64} = int32", tfs_shape_fn_tile, 0},
    {"BroadcastTo", "input: T; shape: Tidx", "output: T",
     "T: type; Tidx: {int32, int64} = int32", tfs_shape_fn_broadcast_to, 0},
    {"GatherV2", "params: Tparams; indices: Tindices; axis: Taxis",
     "output: Tparams",
     "batch_dims: int = 0; Tparams: type; Tindices: {int16, int32, int64}; "
     "Taxis: {int32, int64}",
     tfs_shape_fn_gather_v2, 0},
    {"Gather", "params: Tparams; indices: Tindices", "output: Tparams",
     "validate_indices: bool = true; Tparams: type; Tindices: {int32, int64}",
     tfs_shape_fn_gather, 0},
    {"GatherNd", "params: Tparams; indices: Tindices", "output: Tparams",
     "Tparams: type; Tindices: {int16, int32, int64}; "
     "bad_indices_policy: string = ''",
     tfs_shape_fn_gather_nd, 0},
    {"ScatterNd", "indices: Tindices; updates: T; shape: Tindices",
     "output: T",
     "T: type; Tindices: {int16, int32, int64}; "
     "bad_indices_policy: string = ''",
     tfs_shape_fn_scatter_nd, 0},
    {"OneHot", "indices: TI; depth: int32; on_value: T; off_value: T",
     "output: T",
     "axis: int = -1; T: type; TI: {uint8, int8, int32, int64} = int64",
     tfs_shape_fn_one_hot, 0},
    {"Shape", "input: T", "output: out_type",
     "T: type; out_type: {int32, int64} = int32", shape_shape, TFS_OP_CHEAP},
    {"ShapeN", "input: N * T", "output: N * out_type",
     "N: int >= 1; T: type; out_type: {int32, int64} = int32",
     shape_n_shape, CHEAP},
    {"Size", "input: T", "output: out_type",
     "T: type; out_type: {int32, int64} = int32", tfs_shape_fn_scalar,
     CHEAP},
    {"Rank", "input: T", "output: int32", "T: type", tfs_shape_fn_scalar,
     CHEAP},
    {"Fill", "dims: index_type; value: T", "output: T",
     "T: type; index_type: {int32, int64} = int32", fill_shape, 0},
    {"ZerosLike", "x: T", "y: T", "T: type", tfs_shape_fn_unchanged,
     TFS_OP_ELEMENTWISE},
    {"OnesLike", "x: T", "y: T",
     "T: {bfloat16, half, float, double, " INT_TYPES
     ", complex64, complex128, bool}",
     tfs_shape_fn_unchanged, TFS_OP_ELEMENTWISE},
    {"Range", "start: Tidx; limit: Tidx; delta: Tidx", "output: Tidx",
     "Tidx: {bfloat16, half, float, double, int8, int16, int32, int64, "
     "uint16, uint32, uint64} = int32",
     tfs_shape_fn_range, 0},
    {"ReverseV2", "tensor: T; axis: Tidx", "output: T",
     "Tidx: {int32, int64} = int32; T: {uint8, int8, uint16, int16, int32, "
     "uint32, int64, uint64, bool, bfloat16, half, float, double, "
     "complex64, complex128, string}",
     reverse_v2_shape, 0},
    {"Where", "input: T", "index: int64",
     "T: {float, double, int32, uint8, int16, int8, complex64, int64, "
     "qint8, quint8, qint32, bfloat16, qint16, quint16, uint16, complex128, "
     "half, uint32, uint64, bool} = bool",
     where_shape, 0},
    {"TopKV2", "input: T; k: Tk", "values: T; indices: index_type",
     "sorted: bool = true; T: {float, double, int32, uint8, int16, int8, "
     "int64, bfloat16, uint16, half, uint32, uint64}; "
     "Tk: {int16, int32, int64} = int32; "
     "index_type: {int16, int32, int64} = int32",
     tfs_shape_fn_top_k, 0},
    {"InvertPermutation", "x: T", "y: T", "T: {int32, int64} = int32",
     vector_unchanged_shape, 0},
    {"Cumsum", "x: T; axis: Tidx", "out: T",
     "exclusive: bool = false; reverse: bool = false; T: {float, double, "
     "int32, uint8, int16, int8, complex64, int64, qint8, quint8, qint32, "
     "bfloat16, qint16, quint16, uint16, complex128, half, uint32, uint64}; "
     "Tidx: {int32, int64} = int32",
     cumsum_shape, 0},
    {"DepthToSpace", "input: T", "output: T",
     "T: type; block_size: int >= 2; "
     "data_format: {'NHWC', 'NCHW', 'NCHW_VECT_C'} = 'NHWC'",
     tfs_shape_fn_depth_to_space, 0},
    {"SpaceToDepth", "input: T", "output: T",
     "T: type; block_size: int >= 2; "
     "data_format: {'NHWC', 'NCHW', 'NCHW_VECT_C'} = 'NHWC'",
     tfs_shape_fn_space_to_depth, 0},
    {"SpaceToBatchND",
     "input: T; block_shape: Tblock_shape; paddings: Tpaddings", "output: T",
     "T: type; Tblock_shape: {int32, int64} = int32; "
     "Tpaddings: {int32, int64} = int32",
     tfs_shape_fn_space_to_batch, 0},
    {"BatchToSpaceND", "input: T; block_shape: Tblock_shape; crops: Tcrops",
     "output: T",
     "T: type; Tblock_shape: {int32, int64} = int32; "
     "Tcrops: {int32, int64} = int32",
     tfs_shape_fn_batch_to_space, 0},
    {"ResizeBilinear", "images: T; size: int32", "resized_images: float",
     "T: {int8, uint8, int16, uint16, int32, int64, bfloat16, half, float, "
     "double, bfloat16}; align_corners: bool = false; "
     "half_pixel_centers: bool = false",
     tfs_shape_fn_resize, 0},
    {"ResizeNearestNeighbor", "images: T; size: int32", "resized_images: T",
     "T: {int8, uint8, int16, uint16, int32, int64, half, float, double, "
     "bfloat16}; align_corners: bool = false; "
     "half_pixel_centers: bool = false",
     tfs_shape_fn_resize, 0},
    {"Einsum", "inputs: N * T", "output: T",
     "equation: string; N: int >= 1; T: type", tfs_shape_fn_einsum, 0},
    {"MatrixBandPart", "input: T; num_lower: Tindex; num_upper: Tindex",
     "band: T", "T: type; Tindex: {int32, int64} = int64", band_part_shape,
     0},
    {NULL, NULL, NULL, NULL, NULL, 0},
};
