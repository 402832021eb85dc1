/*
 * ops/ops_math.c - math ops: elementwise arithmetic with broadcasting,
 * unary functions, comparisons and logic, Select, AddN, ClipByValue,
 * MatMul and BatchMatMul, reductions, ArgMax/ArgMin, Cast.  Signatures are
 * TensorFlow 2.21's; shape functions follow its shape inference wording.
 */
#include "core/status.h"
#include "ops/op_tables.h"
#include "ops/shape_ctx.h"

#define EW TFS_OP_ELEMENTWISE
#define COMM TFS_OP_COMMUTATIVE
#define BCAST tfs_shape_fn_broadcast
#define SAME tfs_shape_fn_unchanged
#define RED tfs_shape_fn_reduction

/* ---- type sets, as TensorFlow declares them ------------------------------ */

#define T_ADD \
  "T: {bfloat16, half, float, double, uint8, int8, int16, int32, int64, " \
  "complex64, complex128, string}"
#define T_ADDV2 \
  "T: {bfloat16, half, float, double, uint8, uint16, uint32, uint64, int8, " \
  "int16, int32, int64, complex64, complex128}"
#define T_SUB \
  "T: {bfloat16, half, float, double, uint8, int8, uint16, int16, int32, " \
  "int64, complex64, complex128, uint32, uint64}"
#define T_MUL \
  "T: {bfloat16, half, float, double, uint8, int8, uint16, int16, int32, " \
  "uint32, uint64, int64, complex64, complex128}"
#define T_POW \
  "T: {bfloat16, float, half, double, int8, int16, int32, int64, " \
  "complex64, complex128}"
#define T_MINMAX \
  "T: {bfloat16, half, float, double, int8, uint8, int16, uint16, int32, " \
  "uint32, int64, uint64}"
#define T_FLOORMOD \
  "T: {int8, int16, int32, int64, uint8, uint16, uint32, uint64, " \
  "bfloat16, half, float, double}"
#define T_MOD "T: {int32, int64, half, half, bfloat16, float, double}"
#define T_SQDIFF \
  "T: {bfloat16, half, float, double, int32, int64, complex64, complex128}"
#define T_NEG \
  "T: {bfloat16, half, float, double, int8, int16, int32, int64, " \
  "complex64, complex128}"
#define T_ABS "T: {bfloat16, half, float, double, int8, int16, int32, int64}"
#define T_SQUARE \
  "T: {bfloat16, half, float, double, int8, int16, int32, int64, uint8, " \
  "uint16, uint32, uint64, complex64, complex128}"
#define T_FLOATC "T: {bfloat16, half, float, double, complex64, complex128}"
#define T_FLOAT "T: {bfloat16, half, float, double}"
#define T_CMP \
  "T: {float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, " \
  "half, uint32, uint64}"
/* open lists: the caller closes the brace (AddN and ArgMax add a type) */
#define T_NUMBER_OPEN \
  "T: {float, double, int32, uint8, int16, int8, complex64, int64, qint8, " \
  "quint8, qint32, bfloat16, qint16, quint16, uint16, complex128, half, " \
  "uint32, uint64"
#define T_REAL_Q_OPEN \
  "T: {float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, " \
  "half, uint32, uint64, qint8, quint8, qint32, qint16, quint16"
#define T_NUMBER T_NUMBER_OPEN "}"
#define T_REAL_Q T_REAL_Q_OPEN "}"
#define KEEP "keep_dims: bool = false; "
#define TIDX "; Tidx: {int32, int64} = int32"
#define T_REDUCE KEEP T_NUMBER TIDX
#define T_REDUCE_REAL KEEP T_REAL_Q TIDX
#define BMM_FLAGS \
  "adj_x: bool = false; adj_y: bool = false; grad_x: bool = false; " \
  "grad_y: bool = false"

/* ---- shape helpers ------------------------------------------------------ */

/* TensorFlow's InferenceContext::Merge: equal ranks, dims equal where both
 * are known. */
static int merge_shapes(tfs_shape_ctx *c, const tfs_shape *a,
                        const tfs_shape *b, tfs_shape *out) {
  if (a->rank < 0) {
    *out = *b;
    return 0;
  }
  if (b->rank < 0) {
    *out = *a;
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

static int addn_shape(tfs_shape_ctx *c) {
  tfs_shape cur = c->in_shapes[c->ninputs - 1];
  for (int i = c->ninputs - 2; i >= 0; i--) {
    if (merge_shapes(c, &c->in_shapes[i], &cur, &cur)) {
      tfs_status_appendf(c->st, "\n\tFrom merging shape %d with other "
                         "shapes.", i);
      return -1;
    }
  }
  c->out_shapes[0] = cur;
  return 0;
}

static int select_shape(tfs_shape_ctx *c) {
  tfs_shape data;
  if (merge_shapes(c, &c->in_shapes[1], &c->in_shapes[2], &data)) return -1;
  const tfs_shape *cond = &c->in_shapes[0];
  c->out_shapes[0] = data;
  if (cond->rank < 0 || data.rank < 0 || cond->rank == 0) return 0;
  if (cond->rank != 1 || data.rank == 0) {
    if (merge_shapes(c, &data, cond, &data)) return -1;
    c->out_shapes[0] = data;
    return 0;
  }
  /* a vector condition picks rows: its length is data's first dim */
  tfs_shape first, merged;
  tfs_shape_1d(&first, data.dims[0]);
  return merge_shapes(c, cond, &first, &merged);
}

static int select_v2_shape(tfs_shape_ctx *c) {
  tfs_shape_ctx sub = *c;
  tfs_shape te, pair[2];
  sub.in_shapes = &c->in_shapes[1];
  sub.out_shapes = &te;
  if (tfs_shape_fn_broadcast(&sub)) return -1;
  pair[0] = c->in_shapes[0];
  pair[1] = te;
  sub.in_shapes = pair;
  sub.out_shapes = c->out_shapes;
  return tfs_shape_fn_broadcast(&sub);
}

/* Shared by BatchMatMul (v1: batch dims merge) and V2/V3 (broadcast). */
static int batch_matmul_shape_impl(tfs_shape_ctx *c, int broadcast) {
  int adj_x = 0, adj_y = 0;
  tfs_attrs_get_bool(c->attrs, "adj_x", &adj_x);
  tfs_attrs_get_bool(c->attrs, "adj_y", &adj_y);
  if (tfs_sc_with_rank_at_least(c, 0, 2) ||
      tfs_sc_with_rank_at_least(c, 1, 2))
    return -1;
  const tfs_shape *a = &c->in_shapes[0], *b = &c->in_shapes[1];
  if (a->rank < 0 || b->rank < 0) {
    c->out_shapes[0].rank = -1;
    return 0;
  }
  tfs_shape ba, bb, batch;
  ba.rank = a->rank - 2;
  bb.rank = b->rank - 2;
  for (int i = 0; i < ba.rank; i++) ba.dims[i] = a->dims[i];
  for (int i = 0; i < bb.rank; i++) bb.dims[i] = b->dims[i];
  if (broadcast) {
    tfs_shape_ctx sub = *c;
    tfs_shape pair[2] = {ba, bb};
    sub.in_shapes = pair;
    sub.out_shapes = &batch;
    if (tfs_shape_fn_broadcast(&sub)) return -1;
  } else if (merge_shapes(c, &ba, &bb, &batch)) {
    return -1;
  }
  int64_t m = a->dims[a->rank - (adj_x ? 1 : 2)];
  int64_t ka = a->dims[a->rank - (adj_x ? 2 : 1)];
  int64_t kb = b->dims[b->rank - (adj_y ? 1 : 2)];
  int64_t n = b->dims[b->rank - (adj_y ? 2 : 1)];
  int64_t k;
  if (tfs_sc_merge_dim(c, ka, kb, &k)) return -1;
  if (batch.rank + 2 > TFS_MAX_RANK)
    return tfs_sc_error(c, "Shape of rank %d exceeds the maximum rank %d",
                        batch.rank + 2, TFS_MAX_RANK);
  tfs_shape out = batch;
  out.dims[out.rank++] = m;
  out.dims[out.rank++] = n;
  c->out_shapes[0] = out;
  return 0;
}

static int batch_matmul_shape(tfs_shape_ctx *c) {
  return batch_matmul_shape_impl(c, 0);
}

static int batch_matmul_v2_shape(tfs_shape_ctx *c) {
  return batch_matmul_shape_impl(c, 1);
}

static int arg_minmax_shape(tfs_shape_ctx *c) {
  if (tfs_sc_with_rank(c, 1, 0)) return -1;
  const tfs_shape *in = &c->in_shapes[0];
  int64_t d;
  c->out_shapes[0].rank = -1;
  if (in->rank < 0) return 0;
  if (tfs_sc_const_scalar(c, 1, &d)) {
    /* unknown axis: one dimension fewer, sizes unknown */
    if (in->rank > 0) tfs_shape_unknown_dims(&c->out_shapes[0], in->rank - 1);
    return 0;
  }
  if (in->rank == 0) return 0; /* the kernel reports the bad axis */
  if (d < -in->rank || d >= in->rank)
    return tfs_sc_error(c, "Dimension (%lld) must be in the range [%d, %d), "
                        "where %d is the number of dimensions in the input.",
                        (long long)d, -in->rank, in->rank, in->rank);
  if (d < 0) d += in->rank;
  tfs_shape out;
  out.rank = 0;
  for (int i = 0; i < in->rank; i++)
    if (i != d) out.dims[out.rank++] = in->dims[i];
  c->out_shapes[0] = out;
  return 0;
}

/* ---- the table ----------------------------------------------------------- */

const tfs_op_spec tfs_ops_math[] = {
    /* binary arithmetic */
    {"Add", "x: T; y: T", "z: T", T_ADD, BCAST, EW},
    {"AddV2", "x: T; y: T", "z: T", T_ADDV2, BCAST,
     EW | COMM | TFS_OP_AGGREGATE},
    {"Sub", "x: T; y: T", "z: T", T_SUB, BCAST, EW},
    {"Mul", "x: T; y: T", "z: T", T_MUL, BCAST, EW | COMM},
    {"RealDiv", "x: T; y: T", "z: T", T_MUL, BCAST, EW},
    {"Div", "x: T; y: T", "z: T", T_MUL, BCAST, EW},
    {"FloorDiv", "x: T; y: T", "z: T", T_MUL, BCAST, EW},
    {"TruncateDiv", "x: T; y: T", "z: T", T_MUL, BCAST, EW},
    {"FloorMod", "x: T; y: T", "z: T", T_FLOORMOD, BCAST, EW},
    {"Mod", "x: T; y: T", "z: T", T_MOD, BCAST, EW},
    {"Pow", "x: T; y: T", "z: T", T_POW, BCAST, EW},
    {"Maximum", "x: T; y: T", "z: T", T_MINMAX, BCAST, EW},
    {"Minimum", "x: T; y: T", "z: T", T_MINMAX, BCAST, EW},
    {"SquaredDifference", "x: T; y: T", "z: T", T_SQDIFF, BCAST, EW | COMM},
    {"Atan2", "y: T; x: T", "z: T", T_FLOAT, BCAST, EW},
    {"DivNoNan", "x: T; y: T", "z: T", T_FLOATC, BCAST, EW},
    {"MulNoNan", "x: T; y: T", "z: T", T_FLOATC, BCAST, EW},
    {"Xdivy", "x: T; y: T", "z: T", T_FLOATC, BCAST, EW},
    {"Xlogy", "x: T; y: T", "z: T", T_FLOATC, BCAST, EW},
    {"Xlog1py", "x: T; y: T", "z: T", T_FLOATC, BCAST, EW},
    {"AddN", "inputs: N * T", "sum: T",
     "N: int >= 1; " T_NUMBER_OPEN ", variant}", addn_shape,
     COMM | TFS_OP_AGGREGATE},
    /* unary */
    {"Neg", "x: T", "y: T", T_NEG, SAME, EW},
    {"Abs", "x: T", "y: T", T_ABS, SAME, EW},
    {"Sign", "x: T", "y: T", T_NEG, SAME, EW},
    {"Reciprocal", "x: T", "y: T", T_NEG, SAME, EW},
    {"Inv", "x: T", "y: T", T_NEG, SAME, EW},
    {"Square", "x: T", "y: T", T_SQUARE, SAME, EW},
    {"Sqrt", "x: T", "y: T", T_FLOATC, SAME, EW},
    {"Rsqrt", "x: T", "y: T", T_FLOATC, SAME, EW},
    {"Exp", "x: T", "y: T", T_FLOATC, SAME, EW},
    {"Expm1", "x: T", "y: T", T_FLOATC, SAME, EW},
    {"Log", "x: T", "y: T", T_FLOATC, SAME, EW},
    {"Log1p", "x: T", "y: T", T_FLOATC, SAME, EW},
    {"Sin", "x: T", "y: T", T_FLOATC, SAME, EW},
    {"Cos", "x: T", "y: T", T_FLOATC, SAME, EW},
    {"Tan", "x: T", "y: T", T_FLOATC, SAME, EW},
    {"Asin", "x: T", "y: T", T_FLOATC, SAME, EW},
    {"Acos", "x: T", "y: T", T_FLOATC, SAME, EW},
    {"Atan", "x: T", "y: T", T_FLOATC, SAME, EW},
    {"Sinh", "x: T", "y: T", T_FLOATC, SAME, EW},
    {"Cosh", "x: T", "y: T", T_FLOATC, SAME, EW},
    {"Asinh", "x: T", "y: T", T_FLOATC, SAME, EW},
    {"Acosh", "x: T", "y: T", T_FLOATC, SAME, EW},
    {"Atanh", "x: T", "y: T", T_FLOATC, SAME, EW},
    {"Tanh", "x: T", "y: T", T_FLOATC, SAME, EW},
    {"Sigmoid", "x: T", "y: T", T_FLOATC, SAME, EW},
    {"Erf", "x: T", "y: T", T_FLOAT, SAME, EW},
    {"Erfc", "x: T", "y: T", T_FLOAT, SAME, EW},
    {"Floor", "x: T", "y: T", T_FLOAT, SAME, EW},
    {"Ceil", "x: T", "y: T", T_FLOAT, SAME, EW},
    {"Round", "x: T", "y: T", T_NEG, SAME, EW},
    {"Rint", "x: T", "y: T", T_FLOAT, SAME, EW},
    {"IsNan", "x: T", "y: bool", T_FLOAT, SAME, EW},
    {"IsInf", "x: T", "y: bool", T_FLOAT, SAME, EW},
    {"IsFinite", "x: T", "y: bool", T_FLOAT, SAME, EW},
    /* comparisons and logic */
    {"Equal", "x: T; y: T", "z: bool",
     "T: type; incompatible_shape_error: bool = true", BCAST, EW | COMM},
    {"NotEqual", "x: T; y: T", "z: bool",
     "T: type; incompatible_shape_error: bool = true", BCAST, EW | COMM},
    {"Less", "x: T; y: T", "z: bool", T_CMP, BCAST, EW},
    {"LessEqual", "x: T; y: T", "z: bool", T_CMP, BCAST, EW},
    {"Greater", "x: T; y: T", "z: bool", T_CMP, BCAST, EW},
    {"GreaterEqual", "x: T; y: T", "z: bool", T_CMP, BCAST, EW},
    {"LogicalAnd", "x: bool; y: bool", "z: bool", "", BCAST, EW | COMM},
    {"LogicalOr", "x: bool; y: bool", "z: bool", "", BCAST, EW | COMM},
    {"LogicalNot", "x: bool", "y: bool", "", SAME, EW},
    {"Select", "condition: bool; t: T; e: T", "output: T", "T: type",
     select_shape, 0},
    {"SelectV2", "condition: bool; t: T; e: T", "output: T", "T: type",
     select_v2_shape, 0},
    {"ClipByValue", "t: T; clip_value_min: T; clip_value_max: T",
     "output: T", T_NUMBER, SAME, 0},
    /* matrix products */
    {"MatMul", "a: T; b: T", "product: T",
     "transpose_a: bool = false; transpose_b: bool = false; T: {bfloat16, "
     "half, float, double, int32, int64, uint8, uint16, uint32, uint64, "
     "complex64, complex128}; grad_a: bool = false; grad_b: bool = false",
     tfs_shape_fn_matmul, 0},
    {"BatchMatMul", "x: T; y: T", "output: T",
     "T: {bfloat16, half, float, double, int32, int64, complex64, "
     "complex128}; " BMM_FLAGS,
     batch_matmul_shape, 0},
    {"BatchMatMulV2", "x: T; y: T", "output: T",
     "T: {bfloat16, half, float, double, int16, int32, int64, uint8, "
     "uint16, uint32, uint64, complex64, complex128}; " BMM_FLAGS,
     batch_matmul_v2_shape, 0},
    {"BatchMatMulV3", "x: Ta; y: Tb", "output: Tout",
     "Ta: {bfloat16, half, float, double, uint8, int8, int16, int32, int64, "
     "complex64, complex128}; Tb: {bfloat16, half, float, double, uint8, "
     "int8, int16, int32, int64, complex64, complex128}; Tout: {bfloat16, "
     "half, float, double, int16, int32, int64, complex64, complex128}; "
     BMM_FLAGS,
     batch_matmul_v2_shape, 0},
    /* reductions */
    {"Sum", "input: T; reduction_indices: Tidx", "output: T", T_REDUCE, RED,
     0},
    {"Mean", "input: T; reduction_indices: Tidx", "output: T", T_REDUCE, RED,
     0},
    {"Prod", "input: T; reduction_indices: Tidx", "output: T", T_REDUCE, RED,
     0},
    {"Max", "input: T; reduction_indices: Tidx", "output: T", T_REDUCE_REAL,
     RED, 0},
    {"Min", "input: T; reduction_indices: Tidx", "output: T", T_REDUCE_REAL,
     RED, 0},
    {"All", "input: bool; reduction_indices: Tidx", "output: bool",
     KEEP "Tidx: {int32, int64} = int32", RED, 0},
    {"Any", "input: bool; reduction_indices: Tidx", "output: bool",
     KEEP "Tidx: {int32, int64} = int32", RED, 0},
    {"ArgMax", "input: T; dimension: Tidx", "output: output_type",
     T_REAL_Q_OPEN ", bool}; Tidx: {int16, int32, int64} = int32; output_type: "
     "{int16, uint16, int32, int64} = int64",
     arg_minmax_shape, 0},
    {"ArgMin", "input: T; dimension: Tidx", "output: output_type",
     T_REAL_Q_OPEN ", bool}" TIDX "; output_type: {int32, int64} = int64",
     arg_minmax_shape, 0},
    {"ComplexAbs", "x: T", "y: Tout",
     "T: {complex64, complex128} = complex64; Tout: {float, double} = float",
     SAME, EW},
    /* conversion */
    {"Cast", "x: SrcT", "y: DstT",
     "SrcT: type; DstT: type; Truncate: bool = false", SAME, EW},
    {NULL, NULL, NULL, NULL, NULL, 0},
};
