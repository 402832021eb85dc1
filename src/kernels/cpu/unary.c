/*
 * kernels/cpu/unary.c - elementwise unary math: Neg, Square, Sqrt, Exp,
 * Log, Tanh, Sigmoid, Relu.
 */
#include <stdlib.h>

#include "kernels/cpu/cpu_tables.h"
#include "kernels/cpu/elementwise.h"

#define H2F tfs_half_to_float
#define F2H tfs_float_to_half
#define B2F tfs_bf16_to_float
#define F2B tfs_float_to_bf16

#define FLOAT_LOOPS(OP, EXPR_F, EXPR_D)               \
  TFS_UN_LOOP(OP##_f32, float, EXPR_F)                \
  TFS_UN_LOOP(OP##_f64, double, EXPR_D)               \
  TFS_UN_LOOP_F16(OP##_f16, H2F, F2H, EXPR_F)         \
  TFS_UN_LOOP_F16(OP##_bf16, B2F, F2B, EXPR_F)

#define FLOAT_ENTRIES(OP)                             \
  [TFS_FLOAT] = OP##_f32, [TFS_DOUBLE] = OP##_f64,    \
  [TFS_HALF] = OP##_f16, [TFS_BFLOAT16] = OP##_bf16

#define SIGNED_LOOPS(OP, MAKE)                        \
  MAKE(OP##_i8, int8_t, uint8_t)                      \
  MAKE(OP##_i16, int16_t, uint16_t)                   \
  MAKE(OP##_i32, int32_t, uint32_t)                   \
  MAKE(OP##_i64, int64_t, uint64_t)
#define UNSIGNED_LOOPS(OP, MAKE)                      \
  MAKE(OP##_u8, uint8_t, uint8_t)                     \
  MAKE(OP##_u16, uint16_t, uint16_t)                  \
  MAKE(OP##_u32, uint32_t, uint32_t)                  \
  MAKE(OP##_u64, uint64_t, uint64_t)
#define SIGNED_ENTRIES(OP)                            \
  [TFS_INT8] = OP##_i8, [TFS_INT16] = OP##_i16,       \
  [TFS_INT32] = OP##_i32, [TFS_INT64] = OP##_i64
#define UNSIGNED_ENTRIES(OP)                          \
  [TFS_UINT8] = OP##_u8, [TFS_UINT16] = OP##_u16,     \
  [TFS_UINT32] = OP##_u32, [TFS_UINT64] = OP##_u64

FLOAT_LOOPS(neg, -x, -x)
#define MK_NEG(N, T, U) TFS_UN_LOOP(N, T, (T)(0 - (U)x))
SIGNED_LOOPS(neg, MK_NEG)

FLOAT_LOOPS(square, x *x, x *x)
#define MK_SQUARE(N, T, U) TFS_UN_LOOP(N, T, (T)((U)x * (U)x))
SIGNED_LOOPS(square, MK_SQUARE)
UNSIGNED_LOOPS(square, MK_SQUARE)

FLOAT_LOOPS(sqrt, sqrtf(x), sqrt(x))
FLOAT_LOOPS(exp, expf(x), exp(x))
FLOAT_LOOPS(log, logf(x), log(x))
FLOAT_LOOPS(tanh, tanhf(x), tanh(x))

static inline float sigmoidf(float x) {
  /* 1 / (1 + e^-x), written to stay exact for large |x| */
  if (x >= 0) return 1.0f / (1.0f + expf(-x));
  float e = expf(x);
  return e / (1.0f + e);
}
static inline double sigmoidd(double x) {
  if (x >= 0) return 1.0 / (1.0 + exp(-x));
  double e = exp(x);
  return e / (1.0 + e);
}
FLOAT_LOOPS(sigmoid, sigmoidf(x), sigmoidd(x))

FLOAT_LOOPS(relu, x > 0 ? x : (x != x ? x : 0), x > 0 ? x : (x != x ? x : 0))
#define MK_RELU(N, T, U) TFS_UN_LOOP(N, T, x > 0 ? x : 0)
SIGNED_LOOPS(relu, MK_RELU)
#define MK_COPY(N, T, U) TFS_UN_LOOP(N, T, x)
UNSIGNED_LOOPS(relu, MK_COPY)

static const tfs_un_table kNeg = {{FLOAT_ENTRIES(neg), SIGNED_ENTRIES(neg)},
                                  ""};
static const tfs_un_table kSquare = {
    {FLOAT_ENTRIES(square), SIGNED_ENTRIES(square), UNSIGNED_ENTRIES(square)},
    ""};
static const tfs_un_table kSqrt = {{FLOAT_ENTRIES(sqrt)}, ""};
static const tfs_un_table kExp = {{FLOAT_ENTRIES(exp)}, ""};
static const tfs_un_table kLog = {{FLOAT_ENTRIES(log)}, ""};
static const tfs_un_table kTanh = {{FLOAT_ENTRIES(tanh)}, ""};
static const tfs_un_table kSigmoid = {{FLOAT_ENTRIES(sigmoid)}, ""};
static const tfs_un_table kRelu = {
    {FLOAT_ENTRIES(relu), SIGNED_ENTRIES(relu), UNSIGNED_ENTRIES(relu)}, ""};

#define SIGNED                                                      \
  (TFS_DT_BIT(TFS_INT8) | TFS_DT_BIT(TFS_INT16) |                   \
   TFS_DT_BIT(TFS_INT32) | TFS_DT_BIT(TFS_INT64))
#define UN(OP, TYPES, TABLE)                                        \
  {OP, "CPU", "T", TYPES, tfs_unary_prepare, tfs_unary_compute,     \
   free, 0, &TABLE}

const tfs_kernel_def tfs_cpu_kernels_unary[] = {
    UN("Neg", TFS_DT_FLOATS | SIGNED, kNeg),
    UN("Square", TFS_DT_REAL, kSquare),
    UN("Sqrt", TFS_DT_FLOATS, kSqrt),
    UN("Exp", TFS_DT_FLOATS, kExp),
    UN("Log", TFS_DT_FLOATS, kLog),
    UN("Tanh", TFS_DT_FLOATS, kTanh),
    UN("Sigmoid", TFS_DT_FLOATS, kSigmoid),
    UN("Relu", TFS_DT_REAL, kRelu),
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL},
};
