/*
 * backends/cpu/binary.c - elementwise binary arithmetic with broadcasting:
 * Add, AddV2, Sub, Mul, RealDiv, Div, Pow, Maximum, Minimum and
 * SquaredDifference, and the zero-guarded DivNoNan, MulNoNan, Xdivy,
 * Xlogy and Xlog1py.  Integers wrap; integer division by zero is an
 * error; float max/min propagate NaN.
 */
#include <stdlib.h>
#include <string.h>

#include "core/tstring.h"
#include "backends/cpu/cpu_tables.h"
#include "backends/cpu/ew_loops.h"

#define EW_BIN_COMPLEX(OP, EXPR_C64, EXPR_C128)                            \
  EW_BIN(OP##_c64, tfs_c64, EXPR_C64)                                      \
  EW_BIN(OP##_c128, tfs_c128, EXPR_C128)

/* add, sub, mul */
EW_BIN_FLOATS(add, x + y, x + y)
EW_BIN_FLOATS(sub, x - y, x - y)
EW_BIN_FLOATS(mul, x *y, x *y)
EW_BIN_COMPLEX(add, x + y, x + y)
EW_BIN_COMPLEX(sub, x - y, x - y)
EW_BIN_COMPLEX(mul, x *y, x *y)
#define MK_ADD(N, T, U) EW_BIN(N, T, EW_WRAP(T, U, x, +, y))
#define MK_SUB(N, T, U) EW_BIN(N, T, EW_WRAP(T, U, x, -, y))
#define MK_MUL(N, T, U) EW_BIN(N, T, EW_WRAP(T, U, x, *, y))
EW_INTS(add, MK_ADD)
EW_INTS(sub, MK_SUB)
EW_INTS(mul, MK_MUL)

/* division: floats divide; integers truncate, and y == 0 is an error;
 * MIN / -1 wraps to MIN as two's complement does. */
EW_BIN_FLOATS(div, x / y, x / y)
/* complex quotients: Smith's formula as TensorFlow's (ew_loops.h) */
EW_BIN_COMPLEX(div, ew_cdivf(x, y), ew_cdiv(x, y))
#define MK_SDIV(N, T, U)                                                  \
  EW_BIN_CHECKED(N, T, y == 0, y == (T)-1 ? (T)(0 - (U)x) : (T)(x / y))
#define MK_UDIV(N, T, U) EW_BIN_CHECKED(N, T, y == 0, (T)(x / y))
EW_SIGNED(div, MK_SDIV)
EW_UNSIGNED(div, MK_UDIV)

/* pow; integers to negative powers are an error, as in TensorFlow */
EW_BIN_FLOATS(pow, powf(x, y), pow(x, y))
EW_BIN_COMPLEX(pow, cpowf(x, y), cpow(x, y))
#define MK_IPOW(N, T, U)                                                  \
  static T N##_one(T x, T y) {                                            \
    U r = 1, b = (U)x;                                                    \
    for (T e = y; e > 0; e = (T)(e >> 1)) {                               \
      if (e & 1) r = (U)(1u * r * b);                                     \
      b = (U)(1u * b * b);                                                \
    }                                                                     \
    return (T)r;                                                          \
  }                                                                       \
  EW_BIN_CHECKED(N, T, y < 0, N##_one(x, y))
EW_SIGNED(pow, MK_IPOW)

/* max / min, NaN-propagating for floats */
EW_BIN_FLOATS(max, EW_FMAX(x, y), EW_FMAX(x, y))
EW_BIN_FLOATS(min, EW_FMIN(x, y), EW_FMIN(x, y))
#define MK_MAX(N, T, U) EW_BIN(N, T, x < y ? y : x)
#define MK_MIN(N, T, U) EW_BIN(N, T, y < x ? y : x)
EW_INTS(max, MK_MAX)
EW_INTS(min, MK_MIN)

/* squared difference; complex: (x - y) * conj(x - y) */
EW_BIN_FLOATS(sqd, (x - y) * (x - y), (x - y) * (x - y))
static inline tfs_c64 sqd_c64_one(tfs_c64 d) { return d * conjf(d); }
static inline tfs_c128 sqd_c128_one(tfs_c128 d) { return d * conj(d); }
EW_BIN_COMPLEX(sqd, sqd_c64_one(x - y), sqd_c128_one(x - y))
#define MK_SQD(N, T, U)                                                   \
  EW_BIN(N, T, (T)((U)((U)x - (U)y) * (U)((U)x - (U)y)))
MK_SQD(sqd_i32, int32_t, uint32_t)
MK_SQD(sqd_i64, int64_t, uint64_t)

/* zero-guarded forms: DivNoNan and MulNoNan give 0 where y == 0 (even
 * for x NaN or Inf), Xdivy, Xlogy and Xlog1py give 0 where x == 0 */
EW_BIN_FLOATS(divnn, y == 0 ? 0.0f : x / y, y == 0 ? 0.0 : x / y)
EW_BIN_FLOATS(mulnn, y == 0 ? 0.0f : x * y, y == 0 ? 0.0 : x * y)
EW_BIN_FLOATS(xdivy, x == 0 ? 0.0f : x / y, x == 0 ? 0.0 : x / y)
/* half and bfloat16 round the logarithm before the product, as
 * TensorFlow's kernels (an op per step in the 16-bit type) do */
#define XLOG_FLOATS(OP, LOGF, LOG)                                        \
  EW_BIN(OP##_f32, float, x == 0 ? 0.0f : x * LOGF(y))                    \
  EW_BIN(OP##_f64, double, x == 0 ? 0.0 : x * LOG(y))                     \
  EW_BIN_F16(OP##_f16, x == 0 ? 0.0f : x * H2F(F2H(LOGF(y))))             \
  EW_BIN_BF16(OP##_bf16, x == 0 ? 0.0f : x * B2F(F2B(LOGF(y))))
XLOG_FLOATS(xlogy, logf, log)
XLOG_FLOATS(xlog1py, log1pf, log1p)
EW_BIN_COMPLEX(divnn, y == 0 ? 0 : ew_cdivf(x, y), y == 0 ? 0 : ew_cdiv(x, y))
EW_BIN_COMPLEX(mulnn, y == 0 ? 0 : x * y, y == 0 ? 0 : x * y)
EW_BIN_COMPLEX(xdivy, x == 0 ? 0 : ew_cdivf(x, y), x == 0 ? 0 : ew_cdiv(x, y))
EW_BIN_COMPLEX(xlogy, x == 0 ? 0 : x * clogf(y), x == 0 ? 0 : x * clog(y))
EW_BIN_COMPLEX(xlog1py, x == 0 ? 0 : x * clogf(1.0f + y),
               x == 0 ? 0 : x * clog(1.0 + y))

/* string concatenation (Add on strings) */
static int add_str(const void *A, const void *B, void *O, int64_t n,
                   int mode) {
  const tfs_tstring *a = A, *b = B;
  tfs_tstring *o = O;
  for (int64_t i = 0; i < n; i++) {
    const tfs_tstring *x = &a[mode == TFS_BIN_SV ? 0 : i];
    const tfs_tstring *y = &b[mode == TFS_BIN_VS ? 0 : i];
    size_t lx = tfs_tstring_size(x), ly = tfs_tstring_size(y);
    char small[64];
    char *tmp = lx + ly <= sizeof small ? small : malloc(lx + ly);
    if (!tmp) return 1;
    memcpy(tmp, tfs_tstring_data(x), lx);
    memcpy(tmp + lx, tfs_tstring_data(y), ly);
    int rc = tfs_tstring_copy(&o[i], tmp, lx + ly);
    if (tmp != small) free(tmp);
    if (rc) return 1;
  }
  return 0;
}

static const tfs_bin_table kAdd = {
    {EW_FLOAT_ENTRIES(add), EW_INT_ENTRIES(add), EW_COMPLEX_ENTRIES(add),
     [TFS_STRING] = add_str},
    "out of memory concatenating strings", 1, TFS_RESOURCE_EXHAUSTED};
static const tfs_bin_table kSub = {
    {EW_FLOAT_ENTRIES(sub), EW_INT_ENTRIES(sub), EW_COMPLEX_ENTRIES(sub)},
    "", 1, 0};
static const tfs_bin_table kMul = {
    {EW_FLOAT_ENTRIES(mul), EW_INT_ENTRIES(mul), EW_COMPLEX_ENTRIES(mul)},
    "", 1, 0};
static const tfs_bin_table kDiv = {
    {EW_FLOAT_ENTRIES(div), EW_INT_ENTRIES(div), EW_COMPLEX_ENTRIES(div)},
    "Integer division by zero", 4, 0};
static const tfs_bin_table kPow = {
    {EW_FLOAT_ENTRIES(pow), EW_SIGNED_ENTRIES(pow), EW_COMPLEX_ENTRIES(pow)},
    "Integers to negative integer powers are not allowed", 20, 0};
static const tfs_bin_table kMax = {
    {EW_FLOAT_ENTRIES(max), EW_INT_ENTRIES(max)}, "", 1, 0};
static const tfs_bin_table kMin = {
    {EW_FLOAT_ENTRIES(min), EW_INT_ENTRIES(min)}, "", 1, 0};
static const tfs_bin_table kSqd = {
    {EW_FLOAT_ENTRIES(sqd), EW_COMPLEX_ENTRIES(sqd), [TFS_INT32] = sqd_i32,
     [TFS_INT64] = sqd_i64},
    "", 1, 0};

#define ZERO_GUARDED(NAME, OP)                                          \
  static const tfs_bin_table NAME = {                                   \
      {EW_FLOAT_ENTRIES(OP), EW_COMPLEX_ENTRIES(OP)}, "", 4, 0};
ZERO_GUARDED(kDivNoNan, divnn)
ZERO_GUARDED(kMulNoNan, mulnn)
ZERO_GUARDED(kXdivy, xdivy)
ZERO_GUARDED(kXlogy, xlogy)
ZERO_GUARDED(kXlog1py, xlog1py)

/* dtype sets of TensorFlow's CPU kernels */
#define FL TFS_DT_FLOATS
#define CX EW_DT_COMPLEX
#define ADD_T                                                           \
  (FL | CX | EW_DT_SIGNED | EW_DT(UINT8) | EW_DT(STRING))
#define ARITH_T (FL | CX | EW_DT_SIGNED | EW_DT_UNSIGNED)
#define BIN(OP, TYPES, TABLE)                                           \
  {OP, "CPU", "T", TYPES, tfs_binary_prepare, tfs_binary_compute,       \
   free, 0, &TABLE}

const tfs_kernel_def tfs_cpu_kernels_binary[] = {
    BIN("Add", ADD_T, kAdd),
    BIN("AddV2", ARITH_T, kAdd),
    BIN("Sub", ARITH_T, kSub),
    BIN("Mul", ARITH_T, kMul),
    BIN("RealDiv", FL | CX, kDiv),
    BIN("Div", ARITH_T, kDiv),
    BIN("Pow", FL | CX | EW_DT_SIGNED, kPow),
    BIN("Maximum", FL | EW_DT_SIGNED | EW_DT_UNSIGNED, kMax),
    BIN("Minimum", FL | EW_DT_SIGNED | EW_DT_UNSIGNED, kMin),
    BIN("SquaredDifference", FL | CX | EW_DT(INT32) | EW_DT(INT64), kSqd),
    BIN("DivNoNan", FL | CX, kDivNoNan),
    BIN("MulNoNan", FL | CX, kMulNoNan),
    BIN("Xdivy", FL | CX, kXdivy),
    BIN("Xlogy", FL | CX, kXlogy),
    BIN("Xlog1py", FL | CX, kXlog1py),
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL},
};
