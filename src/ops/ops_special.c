/*
 * ops/ops_special.c - special functions and fake quantization:
 * Lgamma, Digamma, Erfinv, Ndtri, the Bessel functions I0, I1 (plain and
 * exponentially scaled), Igamma, Igammac, Betainc, Polygamma, Zeta,
 * EuclideanNorm, FakeQuantWithMinMaxArgs / Vars / VarsPerChannel and
 * QuantizeAndDequantizeV2 / V3 / V4.  Signatures are TensorFlow 2.21's;
 * shape functions follow its shape inference and its messages.
 */
#include "core/status.h"
#include "ops/op_tables.h"
#include "ops/shape_ctx.h"

#define EW TFS_OP_ELEMENTWISE
#define SAME tfs_shape_fn_unchanged
#define BCAST tfs_shape_fn_broadcast

#define T_FLOAT "T: {bfloat16, half, float, double}"
#define T_FD "T: {float, double}"
#define T_REDUCE                                                            \
  "keep_dims: bool = false; T: {float, double, int32, uint8, int16, int8, " \
  "complex64, int64, qint8, quint8, qint32, bfloat16, qint16, quint16, "    \
  "uint16, complex128, half, uint32, uint64}; Tidx: {int32, int64} = int32"
#define FQ_ATTRS "num_bits: int = 8; narrow_range: bool = false"
#define QDQ_ROUND "round_mode: {'HALF_TO_EVEN', 'HALF_UP'} = 'HALF_TO_EVEN'"
#define QDQ_ATTRS                                                     \
  "signed_input: bool = true; num_bits: int = 8; range_given: bool = " \
  "false; " T_FLOAT "; " QDQ_ROUND "; narrow_range: bool = false; "   \
  "axis: int = -1"
#define QDQ3_ATTRS                                                      \
  "signed_input: bool = true; range_given: bool = true; " T_FLOAT "; " \
  "narrow_range: bool = false; axis: int = -1"

/* TensorFlow's InferenceContext::Merge of two partial shapes. */
static int merge(tfs_shape_ctx *c, const tfs_shape *a, const tfs_shape *b,
                 tfs_shape *out) {
  if (a->rank < 0 || b->rank < 0) {
    *out = a->rank < 0 ? *b : *a;
    return 0;
  }
  if (a->rank != b->rank)
    return tfs_sc_error(c, "Shapes must be equal rank, but are %d and %d",
                        a->rank, b->rank);
  tfs_shape m = *a;
  for (int i = 0; i < a->rank; i++) {
    int64_t x = a->dims[i], y = b->dims[i];
    if (x >= 0 && y >= 0 && x != y) {
      char sa[TFS_SHAPE_STRLEN], sb[TFS_SHAPE_STRLEN];
      return tfs_sc_error(c, "Dimension %d in both shapes must be equal, "
                          "but are %lld and %lld. Shapes are %s and %s.", i,
                          (long long)x, (long long)y,
                          tfs_shape_str(a, sa, sizeof sa),
                          tfs_shape_str(b, sb, sizeof sb));
    }
    m.dims[i] = x >= 0 ? x : y;
  }
  *out = m;
  return 0;
}

/* a, b and x: the non-scalars merge; scalars broadcast */
static int betainc_shape(tfs_shape_ctx *c) {
  tfs_shape out = {.rank = -1};
  const tfs_shape *some = NULL;
  int scalars = 0;
  for (int i = 0; i < 3; i++) {
    const tfs_shape *in = &c->in_shapes[i];
    if (in->rank < 0) {
      some = in;
    } else if (in->rank == 0) {
      scalars++;
    } else {
      if (merge(c, &out, in, &out)) return -1;
      some = &out;
    }
  }
  if (scalars == 2)
    out = *some;
  else if (scalars == 3)
    out = c->in_shapes[0];
  c->out_shapes[0] = out;
  return 0;
}

/* min and max scalars */
static int fake_quant_vars_shape(tfs_shape_ctx *c) {
  if (tfs_sc_with_rank(c, 1, 0) || tfs_sc_with_rank(c, 2, 0)) return -1;
  c->out_shapes[0] = c->in_shapes[0];
  return 0;
}

/* min and max vectors as long as the last dimension of inputs */
static int fake_quant_per_channel_shape(tfs_shape_ctx *c) {
  if (tfs_sc_with_rank_at_least(c, 0, 1) || tfs_sc_with_rank(c, 1, 1) ||
      tfs_sc_with_rank(c, 2, 1))
    return -1;
  const tfs_shape *in = &c->in_shapes[0];
  int64_t last = in->rank > 0 ? in->dims[in->rank - 1] : -1;
  int64_t mn = c->in_shapes[1].rank == 1 ? c->in_shapes[1].dims[0] : -1;
  int64_t mx = c->in_shapes[2].rank == 1 ? c->in_shapes[2].dims[0] : -1;
  int64_t d;
  if (tfs_sc_merge_dim(c, last, mn, &d) || tfs_sc_merge_dim(c, last, mx, &d) ||
      tfs_sc_merge_dim(c, mn, mx, &d))
    return -1;
  c->out_shapes[0] = *in;
  return 0;
}

/* QuantizeAndDequantizeV2/V3/V4: input_min and input_max scalars (axis
 * -1) or vectors as long as dimension `axis` of the input; V3's num_bits
 * a scalar */
static int qdq_shape(tfs_shape_ctx *c) {
  int64_t axis = -1;
  tfs_attrs_get_int(c->attrs, "axis", &axis);
  if (axis < -1)
    return tfs_sc_error(c, "axis should be at least -1, got %lld",
                        (long long)axis);
  int mm_rank = axis == -1 ? 0 : 1;
  if (tfs_sc_with_rank(c, 1, mm_rank)) return -1;
  tfs_shape minmax;
  if (merge(c, &c->in_shapes[2], &c->in_shapes[1], &minmax)) return -1;
  if (c->ninputs > 3 && tfs_sc_with_rank(c, 3, 0)) return -1;
  if (axis != -1) {
    if (tfs_sc_with_rank_at_least(c, 0, axis + 1)) return -1;
    const tfs_shape *in = &c->in_shapes[0];
    int64_t depth = in->rank > axis ? in->dims[axis] : -1;
    int64_t mm = minmax.rank == 1 ? minmax.dims[0] : -1, d;
    if (tfs_sc_merge_dim(c, mm, depth, &d)) return -1;
  }
  c->out_shapes[0] = c->in_shapes[0];
  return 0;
}

const tfs_op_spec tfs_ops_special[] = {
    {"Lgamma", "x: T", "y: T", T_FLOAT, SAME, EW},
    {"Digamma", "x: T", "y: T", T_FLOAT, SAME, EW},
    {"Erfinv", "x: T", "y: T", T_FLOAT, SAME, EW},
    {"Ndtri", "x: T", "y: T", T_FLOAT, SAME, EW},
    {"BesselI0e", "x: T", "y: T", T_FLOAT, SAME, EW},
    {"BesselI1e", "x: T", "y: T", T_FLOAT, SAME, EW},
    {"BesselI0", "x: T", "y: T", T_FLOAT, SAME, EW},
    {"BesselI1", "x: T", "y: T", T_FLOAT, SAME, EW},
    {"Igamma", "a: T; x: T", "z: T", T_FLOAT, BCAST, EW},
    {"Igammac", "a: T; x: T", "z: T", T_FLOAT, BCAST, EW},
    {"Polygamma", "a: T; x: T", "z: T", T_FD, BCAST, EW},
    {"Zeta", "x: T; q: T", "z: T", T_FD, BCAST, EW},
    {"Betainc", "a: T; b: T; x: T", "z: T", T_FD, betainc_shape, 0},
    {"EuclideanNorm", "input: T; reduction_indices: Tidx", "output: T",
     T_REDUCE, tfs_shape_fn_reduction, 0},
    {"FakeQuantWithMinMaxArgs", "inputs: float", "outputs: float",
     "min: float = -6; max: float = 6; " FQ_ATTRS, SAME, EW},
    {"FakeQuantWithMinMaxVars", "inputs: float; min: float; max: float",
     "outputs: float", FQ_ATTRS, fake_quant_vars_shape, 0},
    {"FakeQuantWithMinMaxVarsPerChannel",
     "inputs: float; min: float; max: float", "outputs: float", FQ_ATTRS,
     fake_quant_per_channel_shape, 0},
    {"QuantizeAndDequantizeV2", "input: T; input_min: T; input_max: T",
     "output: T", QDQ_ATTRS, qdq_shape, 0},
    {"QuantizeAndDequantizeV3",
     "input: T; input_min: T; input_max: T; num_bits: int32", "output: T",
     QDQ3_ATTRS, qdq_shape, 0},
    {"QuantizeAndDequantizeV4", "input: T; input_min: T; input_max: T",
     "output: T", QDQ_ATTRS, qdq_shape, 0},
    {NULL, NULL, NULL, NULL, NULL, 0},
};
