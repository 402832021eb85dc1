/*
 * backends/cpu/unary.c - elementwise unary arithmetic: Neg, Abs, Sign,
 * Reciprocal (and Inv, its old name), Square, Floor, Ceil, Round (half
 * to even; zeros for integers, as TensorFlow's CPU kernel), Rint, IsNan,
 * IsInf, IsFinite, and Relu.  Integer negation and abs wrap (-MIN == MIN)
 * as TensorFlow's do.  Transcendental functions live in unary_math.c.
 */
#include <stdlib.h>

#include "backends/cpu/cpu_tables.h"
#include "backends/cpu/ew_loops.h"

#define EW_UN_COMPLEX(OP, EXPR_C64, EXPR_C128)                            \
  EW_UN(OP##_c64, tfs_c64, EXPR_C64)                                      \
  EW_UN(OP##_c128, tfs_c128, EXPR_C128)

/* neg */
EW_UN_FLOATS(neg, -x, -x)
EW_UN_COMPLEX(neg, -x, -x)
#define MK_NEG(N, T, U) EW_UN(N, T, (T)(0 - (U)x))
EW_SIGNED(neg, MK_NEG)

/* abs */
EW_UN_FLOATS(abs, fabsf(x), fabs(x))
#define MK_ABS(N, T, U) EW_UN(N, T, x < 0 ? (T)(0 - (U)x) : x)
EW_SIGNED(abs, MK_ABS)

/* sign: NaN stays NaN; zero (either sign) gives +0; complex x / |x| */
#define SIGN(x) ((x) != (x) ? (x) : (__typeof__(x))(((x) > 0) - ((x) < 0)))
EW_UN_FLOATS(sign, SIGN(x), SIGN(x))
static inline tfs_c64 csign_c64(tfs_c64 x) {
  return x == 0 ? 0 : x / cabsf(x);
}
static inline tfs_c128 csign_c128(tfs_c128 x) {
  return x == 0 ? 0 : x / cabs(x);
}
EW_UN_COMPLEX(sign, csign_c64(x), csign_c128(x))
#define MK_SIGN(N, T, U) EW_UN(N, T, (T)((x > 0) - (x < 0)))
EW_SIGNED(sign, MK_SIGN)

/* reciprocal */
EW_UN_FLOATS(recip, 1.0f / x, 1.0 / x)
EW_UN_COMPLEX(recip, 1.0f / x, 1.0 / x)

/* square */
EW_UN_FLOATS(square, x *x, x *x)
EW_UN_COMPLEX(square, x *x, x *x)
#define MK_SQUARE(N, T, U) EW_UN(N, T, (T)(U)(1u * (U)x * (U)x))
EW_INTS(square, MK_SQUARE)

/* rounding; rint rounds half to even in the default rounding mode */
EW_UN_FLOATS(floor, floorf(x), floor(x))
EW_UN_FLOATS(ceil, ceilf(x), ceil(x))
EW_UN_FLOATS(round, rintf(x), rint(x))
/* Round on int32 and int64: TensorFlow 2.21's CPU kernel returns 0 for
 * every element (measured: tf.raw_ops.Round on [-2^31, -1, 0, 1, 2^31-1]
 * gives zeros), and tfsess matches it. */
#define MK_ZERO(N, T) EW_UN(N, T, ((void)x, (T)0))
MK_ZERO(round_i32, int32_t)
MK_ZERO(round_i64, int64_t)
#define MK_COPY(N, T, U) EW_UN(N, T, x)

/* classification, bool output */
#define TO_BOOL(x) ((uint8_t)(x))
#define CLASSIFY(OP, EXPR)                                                \
  EW_UN_GEN(OP##_f32, float, uint8_t, EW_ID, TO_BOOL, EXPR)               \
  EW_UN_GEN(OP##_f64, double, uint8_t, EW_ID, TO_BOOL, EXPR)              \
  EW_UN_GEN(OP##_f16, uint16_t, uint8_t, H2F, TO_BOOL, EXPR)              \
  EW_UN_GEN(OP##_bf16, uint16_t, uint8_t, B2F, TO_BOOL, EXPR)
CLASSIFY(isnan, x != x)
CLASSIFY(isinf, isinf(x))
CLASSIFY(isfinite, isfinite(x))

/* relu (kept here with the other cheap elementwise loops) */
EW_UN_FLOATS(relu, x > 0 ? x : (x != x ? x : 0), x > 0 ? x : (x != x ? x : 0))
#define MK_RELU(N, T, U) EW_UN(N, T, x > 0 ? x : 0)
EW_SIGNED(relu, MK_RELU)
EW_UNSIGNED(relu, MK_COPY)

#define FLOAT_C(OP) EW_FLOAT_ENTRIES(OP), EW_COMPLEX_ENTRIES(OP)
static const tfs_un_table kNeg = {
    {FLOAT_C(neg), EW_SIGNED_ENTRIES(neg)}, "", 1, 0};
static const tfs_un_table kAbs = {
    {EW_FLOAT_ENTRIES(abs), EW_SIGNED_ENTRIES(abs)}, "", 1, 0};
static const tfs_un_table kSign = {
    {FLOAT_C(sign), EW_SIGNED_ENTRIES(sign)}, "", 2, 0};
static const tfs_un_table kRecip = {{FLOAT_C(recip)}, "", 2, 0};
static const tfs_un_table kSquare = {
    {FLOAT_C(square), EW_INT_ENTRIES(square)}, "", 1, 0};
static const tfs_un_table kFloor = {{EW_FLOAT_ENTRIES(floor)}, "", 1, 0};
static const tfs_un_table kCeil = {{EW_FLOAT_ENTRIES(ceil)}, "", 1, 0};
static const tfs_un_table kRound = {
    {EW_FLOAT_ENTRIES(round), [TFS_INT32] = round_i32,
     [TFS_INT64] = round_i64},
    "", 1, 0};
static const tfs_un_table kRint = {
    {[TFS_FLOAT] = round_f32, [TFS_DOUBLE] = round_f64}, "", 1, 0};
static const tfs_un_table kIsNan = {{EW_FLOAT_ENTRIES(isnan)}, "", 1, 0};
static const tfs_un_table kIsInf = {{EW_FLOAT_ENTRIES(isinf)}, "", 1, 0};
static const tfs_un_table kIsFinite = {{EW_FLOAT_ENTRIES(isfinite)}, "", 1,
                                       0};
static const tfs_un_table kRelu = {
    {EW_FLOAT_ENTRIES(relu), EW_SIGNED_ENTRIES(relu),
     EW_UNSIGNED_ENTRIES(relu)},
    "", 1, 0};

#define FL TFS_DT_FLOATS
#define UN(OP, TYPES, TABLE)                                        \
  {OP, "CPU", "T", TYPES, tfs_unary_prepare, tfs_unary_compute,     \
   free, 0, &TABLE}

const tfs_kernel_def tfs_cpu_kernels_unary[] = {
    UN("Neg", FL | EW_DT_COMPLEX | EW_DT_SIGNED, kNeg),
    UN("Abs", FL | EW_DT_SIGNED, kAbs),
    UN("Sign", FL | EW_DT_COMPLEX | EW_DT_SIGNED, kSign),
    UN("Reciprocal", FL | EW_DT_COMPLEX, kRecip),
    UN("Inv", FL | EW_DT_COMPLEX, kRecip),
    UN("Square", FL | EW_DT_COMPLEX | EW_DT_SIGNED | EW_DT_UNSIGNED,
       kSquare),
    UN("Floor", FL, kFloor),
    UN("Ceil", FL, kCeil),
    UN("Round", FL | EW_DT(INT32) | EW_DT(INT64), kRound),
    UN("Rint", EW_DT(FLOAT) | EW_DT(DOUBLE), kRint),
    UN("IsNan", FL, kIsNan),
    UN("IsInf", FL, kIsInf),
    UN("IsFinite", FL, kIsFinite),
    UN("Relu", TFS_DT_REAL, kRelu),
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL},
};
