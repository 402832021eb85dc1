/*
 * ops/ops_math.c - math ops: elementwise arithmetic with broadcasting,
 * unary functions, MatMul, reductions, Cast.
 */
#include "ops/op_tables.h"
#include "ops/shape_ctx.h"

#define EW TFS_OP_ELEMENTWISE
#define BCAST tfs_shape_fn_broadcast
#define SAME tfs_shape_fn_unchanged

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
#define T_NEG \
  "T: {bfloat16, half, float, double, int8, int16, int32, int64, " \
  "complex64, complex128}"
#define T_SQUARE \
  "T: {bfloat16, half, float, double, int8, int16, int32, int64, uint8, " \
  "uint16, uint32, uint64, complex64, complex128}"
#define T_FLOATC "T: {bfloat16, half, float, double, complex64, complex128}"
#define T_CMP \
  "T: {float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, " \
  "half, uint32, uint64}"
#define T_REDUCE \
  "keep_dims: bool = false; T: {float, double, int32, uint8, int16, int8, " \
  "complex64, int64, qint8, quint8, qint32, bfloat16, qint16, quint16, " \
  "uint16, complex128, half, uint32, uint64}; Tidx: {int32, int64} = int32"

const tfs_op_spec tfs_ops_math[] = {
    {"Add", "x: T; y: T", "z: T", T_ADD, BCAST, EW},
    {"AddV2", "x: T; y: T", "z: T", T_ADDV2, BCAST,
     EW | TFS_OP_COMMUTATIVE | TFS_OP_AGGREGATE},
    {"Sub", "x: T; y: T", "z: T", T_SUB, BCAST, EW},
    {"Mul", "x: T; y: T", "z: T", T_MUL, BCAST, EW | TFS_OP_COMMUTATIVE},
    {"RealDiv", "x: T; y: T", "z: T", T_MUL, BCAST, EW},
    {"Div", "x: T; y: T", "z: T", T_MUL, BCAST, EW},
    {"Pow", "x: T; y: T", "z: T", T_POW, BCAST, EW},
    {"Maximum", "x: T; y: T", "z: T", T_MINMAX, BCAST, EW},
    {"Minimum", "x: T; y: T", "z: T", T_MINMAX, BCAST, EW},
    {"Neg", "x: T", "y: T", T_NEG, SAME, EW},
    {"Square", "x: T", "y: T", T_SQUARE, SAME, EW},
    {"Sqrt", "x: T", "y: T", T_FLOATC, SAME, EW},
    {"Exp", "x: T", "y: T", T_FLOATC, SAME, EW},
    {"Log", "x: T", "y: T", T_FLOATC, SAME, EW},
    {"Tanh", "x: T", "y: T", T_FLOATC, SAME, EW},
    {"Sigmoid", "x: T", "y: T", T_FLOATC, SAME, EW},
    {"Equal", "x: T; y: T", "z: bool",
     "T: type; incompatible_shape_error: bool = true", BCAST,
     EW | TFS_OP_COMMUTATIVE},
    {"NotEqual", "x: T; y: T", "z: bool",
     "T: type; incompatible_shape_error: bool = true", BCAST,
     EW | TFS_OP_COMMUTATIVE},
    {"Less", "x: T; y: T", "z: bool", T_CMP, BCAST, EW},
    {"LessEqual", "x: T; y: T", "z: bool", T_CMP, BCAST, EW},
    {"Greater", "x: T; y: T", "z: bool", T_CMP, BCAST, EW},
    {"GreaterEqual", "x: T; y: T", "z: bool", T_CMP, BCAST, EW},
    {"MatMul", "a: T; b: T", "product: T",
     "transpose_a: bool = false; transpose_b: bool = false; T: {bfloat16, "
     "half, float, double, int32, int64, uint8, uint16, uint32, uint64, "
     "complex64, complex128}; grad_a: bool = false; grad_b: bool = false",
     tfs_shape_fn_matmul, 0},
    {"Sum", "input: T; reduction_indices: Tidx", "output: T", T_REDUCE,
     tfs_shape_fn_reduction, 0},
    {"Mean", "input: T; reduction_indices: Tidx", "output: T", T_REDUCE,
     tfs_shape_fn_reduction, 0},
    {"Cast", "x: SrcT", "y: DstT",
     "SrcT: type; DstT: type; Truncate: bool = false", SAME, EW},
    {NULL, NULL, NULL, NULL, NULL, 0},
};
