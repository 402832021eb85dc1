/*
 * ops/ops_bits.c - bit-level and rearranging ops: the bitwise family
 * (BitwiseAnd/Or/Xor, Invert, LeftShift, RightShift, PopulationCount),
 * Bitcast, Roll, Cumprod, ReverseSequence, the TensorScatter* family and
 * SparseToDense.  Signatures are TensorFlow 2.21's; shape functions follow
 * its shape inference and its wording.
 */
#include "core/status.h"
#include "ops/array_shape_fns.h"
#include "ops/op_tables.h"
#include "ops/shape_ctx.h"

/* "Shape must be at most rank r but is rank k" for input i. */
static int with_rank_at_most(tfs_shape_ctx *c, int i, int r) {
  int k = c->in_shapes[i].rank;
  if (k > r)
    return tfs_sc_error(c, "Shape must be at most rank %d but is rank %d", r,
                        k);
  return 0;
}

static int bitcast_shape(tfs_shape_ctx *c) {
  const tfs_shape *in = &c->in_shapes[0];
  tfs_dtype from = TFS_INVALID, to = TFS_INVALID;
  tfs_attrs_get_type(c->attrs, "T", &from);
  tfs_attrs_get_type(c->attrs, "type", &to);
  if (in->rank < 0) return tfs_shape_fn_unknown(c);
  size_t a = tfs_dtype__storage_size(from), b = tfs_dtype__storage_size(to);
  if (a == 0 || b == 0)
    return tfs_sc_error(c, "Cannot bitcast types %s to %s because one of "
                        "the type sizes is zero.", tfs_dtype_name(from),
                        tfs_dtype_name(to));
  tfs_shape out = *in;
  if (a < b) {
    if (tfs_sc_with_rank_at_least(c, 0, 1)) return -1;
    int64_t last = in->dims[in->rank - 1], want = (int64_t)(b / a);
    if (last >= 0 && last != want)
      return tfs_sc_error(c, "Cannot bitcast from %d to %d due to shape. "
                          "%lld does not match %lld", (int)from, (int)to,
                          (long long)last, (long long)want);
    out.rank--;
  } else if (a > b) {
    if (in->rank >= TFS_MAX_RANK)
      return tfs_sc_error(c, "Bitcast result has more than %d dimensions",
                          TFS_MAX_RANK);
    out.dims[out.rank++] = (int64_t)(a / b);
  }
  c->out_shapes[0] = out;
  return 0;
}

static int roll_shape(tfs_shape_ctx *c) {
  tfs_shape m;
  if (tfs_sc_with_rank_at_least(c, 0, 1) || with_rank_at_most(c, 1, 1) ||
      with_rank_at_most(c, 2, 1) ||
      tfs_sc_merge_shapes(c, &c->in_shapes[1], &c->in_shapes[2], &m))
    return -1;
  c->out_shapes[0] = c->in_shapes[0];
  return 0;
}

static int reverse_sequence_shape(tfs_shape_ctx *c) {
  const tfs_shape *in = &c->in_shapes[0];
  int64_t seq_dim = 0, batch_dim = 0;
  if (tfs_sc_with_rank(c, 1, 1)) return -1;
  tfs_attrs_get_int(c->attrs, "seq_dim", &seq_dim);
  tfs_attrs_get_int(c->attrs, "batch_dim", &batch_dim);
  if (in->rank < 0) return tfs_shape_fn_unknown(c);
  if (batch_dim >= in->rank)
    return tfs_sc_error(c, "batch_dim must be < input rank: %lld vs. %d",
                        (long long)batch_dim, in->rank);
  if (seq_dim >= in->rank)
    return tfs_sc_error(c, "seq_dim must be < input rank: %lld vs. %d",
                        (long long)seq_dim, in->rank);
  tfs_shape out = *in;
  /* a negative batch_dim counts from the end here; the kernel rejects it */
  int64_t b = batch_dim < 0 ? batch_dim + in->rank : batch_dim;
  if (b >= 0 &&
      tfs_sc_merge_dim(c, in->dims[b], tfs_sc_dim(&c->in_shapes[1], 0),
                       &out.dims[b]))
    return -1;
  c->out_shapes[0] = out;
  return 0;
}

static int tensor_scatter_shape(tfs_shape_ctx *c) {
  if (tfs_sc_with_rank_at_least(c, 0, 1) ||
      tfs_sc_with_rank_at_least(c, 1, 1) ||
      tfs_sc_with_rank_at_least(c, 2, 1))
    return -1;
  if (tfs_sc_scatter_nd_check(c, &c->in_shapes[1], &c->in_shapes[2],
                              &c->in_shapes[0]))
    return -1;
  c->out_shapes[0] = c->in_shapes[0];
  return 0;
}

static int sparse_to_dense_shape(tfs_shape_ctx *c) {
  tfs_shape out;
  if (tfs_sc_input_as_shape(c, 1, &out)) return -1;
  c->out_shapes[0] = out;
  return 0;
}

/* ---- the table ----------------------------------------------------------- */

#define EW TFS_OP_ELEMENTWISE
#define COMM TFS_OP_COMMUTATIVE
#define BCAST tfs_shape_fn_broadcast
#define SAME tfs_shape_fn_unchanged
#define T_BITS "T: {int8, int16, int32, int64, uint8, uint16, uint32, uint64}"
#define BITCAST_TYPES \
  "{bfloat16, half, float, double, int64, int32, uint8, uint16, uint32, " \
  "uint64, int8, int16, complex64, complex128, qint8, quint8, qint16, "   \
  "quint16, qint32}"
#define SCAN_ATTRS                                                          \
  "exclusive: bool = false; reverse: bool = false; T: {float, double, "     \
  "int32, uint8, int16, int8, complex64, int64, qint8, quint8, qint32, "    \
  "bfloat16, qint16, quint16, uint16, complex128, half, uint32, uint64}; "  \
  "Tidx: {int32, int64} = int32"
#define TSCATTER_ATTRS                                                      \
  "T: type; Tindices: {int32, int64}; bad_indices_policy: string = ''"

const tfs_op_spec tfs_ops_bits[] = {
    {"BitwiseAnd", "x: T; y: T", "z: T", T_BITS, BCAST, EW | COMM},
    {"BitwiseOr", "x: T; y: T", "z: T", T_BITS, BCAST, EW | COMM},
    {"BitwiseXor", "x: T; y: T", "z: T", T_BITS, BCAST, EW | COMM},
    {"LeftShift", "x: T; y: T", "z: T", T_BITS, BCAST, EW},
    {"RightShift", "x: T; y: T", "z: T", T_BITS, BCAST, EW},
    {"Invert", "x: T", "y: T", T_BITS, SAME, EW},
    {"PopulationCount", "x: T", "y: uint8", T_BITS, SAME, EW},
    {"Bitcast", "input: T", "output: type",
     "T: " BITCAST_TYPES "; type: " BITCAST_TYPES, bitcast_shape,
     TFS_OP_CHEAP},
    {"Roll", "input: T; shift: Tshift; axis: Taxis", "output: T",
     "T: type; Tshift: {int32, int64}; Taxis: {int32, int64}", roll_shape,
     0},
    /* the axis is checked by the kernel only ("ScanOp: axis must be a
     * scalar") */
    {"Cumprod", "x: T; axis: Tidx", "out: T", SCAN_ATTRS, SAME, 0},
    {"ReverseSequence", "input: T; seq_lengths: Tlen", "output: T",
     "seq_dim: int; batch_dim: int = 0; T: type; "
     "Tlen: {int32, int64} = int64",
     reverse_sequence_shape, 0},
    {"TensorScatterUpdate", "tensor: T; indices: Tindices; updates: T",
     "output: T",
     "T: type; Tindices: {int16, int32, int64, uint16}; "
     "bad_indices_policy: string = ''",
     tensor_scatter_shape, 0},
    {"TensorScatterAdd", "tensor: T; indices: Tindices; updates: T",
     "output: T", TSCATTER_ATTRS, tensor_scatter_shape, 0},
    {"TensorScatterSub", "tensor: T; indices: Tindices; updates: T",
     "output: T", TSCATTER_ATTRS, tensor_scatter_shape, 0},
    {"TensorScatterMax", "tensor: T; indices: Tindices; updates: T",
     "output: T", TSCATTER_ATTRS, tensor_scatter_shape, 0},
    {"TensorScatterMin", "tensor: T; indices: Tindices; updates: T",
     "output: T", TSCATTER_ATTRS, tensor_scatter_shape, 0},
    {"SparseToDense",
     "sparse_indices: Tindices; output_shape: Tindices; sparse_values: T; "
     "default_value: T",
     "dense: T",
     "validate_indices: bool = true; T: type; Tindices: {int32, int64}",
     sparse_to_dense_shape, 0},
    {NULL, NULL, NULL, NULL, NULL, 0},
};
