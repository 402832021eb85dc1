/*
 * kernels/cpu/binary.c - elementwise binary arithmetic with broadcasting:
 * Add, AddV2, Sub, Mul, RealDiv, Div, Pow, Maximum, Minimum.
 * Integer arithmetic wraps on overflow as TensorFlow's does; integer
 * division by zero is an error; float max/min propagate NaN.
 */
#include <stdlib.h>
#include <string.h>

#include "core/tstring.h"
#include "kernels/cpu/cpu_tables.h"
#include "kernels/cpu/elementwise.h"

#define H2F tfs_half_to_float
#define F2H tfs_float_to_half
#define B2F tfs_bf16_to_float
#define F2B tfs_float_to_bf16

/* For each op: loops for float, double, half, bfloat16 and the integer
 * types.  INT_LOOPS(op, EXPR) uses x, y of type T and unsigned type U. */
#define FLOAT_LOOPS(OP, EXPR)                                 \
  TFS_BIN_LOOP(OP##_f32, float, EXPR)                         \
  TFS_BIN_LOOP(OP##_f64, double, EXPR)                        \
  TFS_BIN_LOOP_F16(OP##_f16, H2F, F2H, EXPR)                  \
  TFS_BIN_LOOP_F16(OP##_bf16, B2F, F2B, EXPR)

#define INT_LOOPS(OP, MAKE)                                   \
  MAKE(OP##_i8, int8_t, uint8_t)                              \
  MAKE(OP##_i16, int16_t, uint16_t)                           \
  MAKE(OP##_i32, int32_t, uint32_t)                           \
  MAKE(OP##_i64, int64_t, uint64_t)                           \
  MAKE(OP##_u8, uint8_t, uint8_t)                             \
  MAKE(OP##_u16, uint16_t, uint16_t)                          \
  MAKE(OP##_u32, uint32_t, uint32_t)                          \
  MAKE(OP##_u64, uint64_t, uint64_t)

#define FLOAT_ENTRIES(OP)                                      \
  [TFS_FLOAT] = OP##_f32, [TFS_DOUBLE] = OP##_f64,             \
  [TFS_HALF] = OP##_f16, [TFS_BFLOAT16] = OP##_bf16
#define INT_ENTRIES(OP)                                        \
  [TFS_INT8] = OP##_i8, [TFS_INT16] = OP##_i16,                \
  [TFS_INT32] = OP##_i32, [TFS_INT64] = OP##_i64,              \
  [TFS_UINT8] = OP##_u8, [TFS_UINT16] = OP##_u16,              \
  [TFS_UINT32] = OP##_u32, [TFS_UINT64] = OP##_u64

/* add, sub, mul */
FLOAT_LOOPS(add, x + y)
FLOAT_LOOPS(sub, x - y)
FLOAT_LOOPS(mul, x *y)
#define MK_ADD(N, T, U) TFS_BIN_LOOP(N, T, TFS_WRAP(T, U, x, +, y))
#define MK_SUB(N, T, U) TFS_BIN_LOOP(N, T, TFS_WRAP(T, U, x, -, y))
#define MK_MUL(N, T, U) TFS_BIN_LOOP(N, T, TFS_WRAP(T, U, x, *, y))
INT_LOOPS(add, MK_ADD)
INT_LOOPS(sub, MK_SUB)
INT_LOOPS(mul, MK_MUL)

/* division: floats divide; integers truncate, and y == 0 is an error;
 * MIN / -1 wraps to MIN as two's complement does. */
FLOAT_LOOPS(div, x / y)
#define MK_SDIV(N, T, U)                                                  \
  TFS_BIN_LOOP_CHECKED(N, T, y == 0, y == (T)-1 ? (T)(0 - (U)x) : x / y)
#define MK_UDIV(N, T, U) TFS_BIN_LOOP_CHECKED(N, T, y == 0, x / y)
MK_SDIV(div_i8, int8_t, uint8_t)
MK_SDIV(div_i16, int16_t, uint16_t)
MK_SDIV(div_i32, int32_t, uint32_t)
MK_SDIV(div_i64, int64_t, uint64_t)
MK_UDIV(div_u8, uint8_t, uint8_t)
MK_UDIV(div_u16, uint16_t, uint16_t)
MK_UDIV(div_u32, uint32_t, uint32_t)
MK_UDIV(div_u64, uint64_t, uint64_t)

/* pow */
#define POWX(x, y) _Generic((x), double: pow, default: powf)((x), (y))
FLOAT_LOOPS(pow, POWX(x, y))
#define MK_IPOW(N, T, U)                                                  \
  static T N##_one(T x, T y) {                                            \
    U r = 1, b = (U)x;                                                    \
    for (T e = y; e > 0; e >>= 1) {                                       \
      if (e & 1) r *= b;                                                  \
      b *= b;                                                             \
    }                                                                     \
    return (T)r;                                                          \
  }                                                                       \
  TFS_BIN_LOOP_CHECKED(N, T, y < 0, N##_one(x, y))
MK_IPOW(pow_i8, int8_t, uint8_t)
MK_IPOW(pow_i16, int16_t, uint16_t)
MK_IPOW(pow_i32, int32_t, uint32_t)
MK_IPOW(pow_i64, int64_t, uint64_t)

/* max / min with NaN propagation for floats */
#define FMAX(x, y) ((x) != (x) ? (x) : (y) != (y) ? (y) : (x) > (y) ? (x) : (y))
#define FMIN(x, y) ((x) != (x) ? (x) : (y) != (y) ? (y) : (x) < (y) ? (x) : (y))
FLOAT_LOOPS(max, FMAX(x, y))
FLOAT_LOOPS(min, FMIN(x, y))
#define MK_MAX(N, T, U) TFS_BIN_LOOP(N, T, x > y ? x : y)
#define MK_MIN(N, T, U) TFS_BIN_LOOP(N, T, x < y ? x : y)
INT_LOOPS(max, MK_MAX)
INT_LOOPS(min, MK_MIN)

/* comparisons (bool output); 16-bit floats compare as float */
#define CMP_LOOPS(OP, EXPR)                                    \
  TFS_CMP_LOOP(OP##_f32, float, ID, EXPR)                      \
  TFS_CMP_LOOP(OP##_f64, double, ID, EXPR)                     \
  TFS_CMP_LOOP(OP##_f16, uint16_t, H2F, EXPR)                  \
  TFS_CMP_LOOP(OP##_bf16, uint16_t, B2F, EXPR)                 \
  TFS_CMP_LOOP(OP##_i8, int8_t, ID, EXPR)                      \
  TFS_CMP_LOOP(OP##_i16, int16_t, ID, EXPR)                    \
  TFS_CMP_LOOP(OP##_i32, int32_t, ID, EXPR)                    \
  TFS_CMP_LOOP(OP##_i64, int64_t, ID, EXPR)                    \
  TFS_CMP_LOOP(OP##_u8, uint8_t, ID, EXPR)                     \
  TFS_CMP_LOOP(OP##_u16, uint16_t, ID, EXPR)                   \
  TFS_CMP_LOOP(OP##_u32, uint32_t, ID, EXPR)                   \
  TFS_CMP_LOOP(OP##_u64, uint64_t, ID, EXPR)
#define ID(x) (x)
CMP_LOOPS(eq, x == y)
CMP_LOOPS(ne, x != y)
CMP_LOOPS(lt, x < y)
CMP_LOOPS(le, x <= y)
CMP_LOOPS(gt, x > y)
CMP_LOOPS(ge, x >= y)
TFS_CMP_LOOP(eq_bool, uint8_t, ID, x == y)
TFS_CMP_LOOP(ne_bool, uint8_t, ID, x != y)

static int eq_str(const void *A, const void *B, void *O, int64_t n,
                  int mode) {
  const tfs_tstring *a = A, *b = B;
  uint8_t *o = O;
  for (int64_t i = 0; i < n; i++) {
    const tfs_tstring *x = &a[mode == TFS_BIN_SV ? 0 : i];
    const tfs_tstring *y = &b[mode == TFS_BIN_VS ? 0 : i];
    size_t lx = tfs_tstring_size(x);
    o[i] = lx == tfs_tstring_size(y) &&
           memcmp(tfs_tstring_data(x), tfs_tstring_data(y), lx) == 0;
  }
  return 0;
}

static int ne_str(const void *A, const void *B, void *O, int64_t n,
                  int mode) {
  eq_str(A, B, O, n, mode);
  uint8_t *o = O;
  for (int64_t i = 0; i < n; i++) o[i] = !o[i];
  return 0;
}

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
    {FLOAT_ENTRIES(add), INT_ENTRIES(add), [TFS_STRING] = add_str},
    "out of memory concatenating strings"};
static const tfs_bin_table kSub = {{FLOAT_ENTRIES(sub), INT_ENTRIES(sub)},
                                   ""};
static const tfs_bin_table kMul = {{FLOAT_ENTRIES(mul), INT_ENTRIES(mul)},
                                   ""};
static const tfs_bin_table kRealDiv = {{FLOAT_ENTRIES(div)}, ""};
static const tfs_bin_table kDiv = {{FLOAT_ENTRIES(div), INT_ENTRIES(div)},
                                   "Integer division by zero"};
static const tfs_bin_table kPow = {
    {FLOAT_ENTRIES(pow), [TFS_INT8] = pow_i8, [TFS_INT16] = pow_i16,
     [TFS_INT32] = pow_i32, [TFS_INT64] = pow_i64},
    "Integers to negative integer powers are not allowed"};
static const tfs_bin_table kMax = {{FLOAT_ENTRIES(max), INT_ENTRIES(max)},
                                   ""};
static const tfs_bin_table kMin = {{FLOAT_ENTRIES(min), INT_ENTRIES(min)},
                                   ""};

static const tfs_bin_table kEq = {
    {FLOAT_ENTRIES(eq), INT_ENTRIES(eq), [TFS_BOOL] = eq_bool,
     [TFS_STRING] = eq_str}, ""};
static const tfs_bin_table kNe = {
    {FLOAT_ENTRIES(ne), INT_ENTRIES(ne), [TFS_BOOL] = ne_bool,
     [TFS_STRING] = ne_str}, ""};
static const tfs_bin_table kLt = {{FLOAT_ENTRIES(lt), INT_ENTRIES(lt)}, ""};
static const tfs_bin_table kLe = {{FLOAT_ENTRIES(le), INT_ENTRIES(le)}, ""};
static const tfs_bin_table kGt = {{FLOAT_ENTRIES(gt), INT_ENTRIES(gt)}, ""};
static const tfs_bin_table kGe = {{FLOAT_ENTRIES(ge), INT_ENTRIES(ge)}, ""};

#define ALL TFS_DT_REAL
#define BIN(OP, TYPES, TABLE)                                           \
  {OP, "CPU", "T", TYPES, tfs_binary_prepare, tfs_binary_compute,       \
   free, 0, &TABLE}

const tfs_kernel_def tfs_cpu_kernels_binary[] = {
    BIN("Add", ALL | TFS_DT_BIT(TFS_STRING), kAdd),
    BIN("AddV2", ALL, kAdd),
    BIN("Sub", ALL, kSub),
    BIN("Mul", ALL, kMul),
    BIN("RealDiv", TFS_DT_FLOATS, kRealDiv),
    BIN("Div", ALL, kDiv),
    BIN("Pow", TFS_DT_FLOATS | TFS_DT_BIT(TFS_INT8) | TFS_DT_BIT(TFS_INT16) |
                   TFS_DT_BIT(TFS_INT32) | TFS_DT_BIT(TFS_INT64),
        kPow),
    BIN("Maximum", ALL, kMax),
    BIN("Minimum", ALL, kMin),
    BIN("Equal", ALL | TFS_DT_BIT(TFS_BOOL) | TFS_DT_BIT(TFS_STRING), kEq),
    BIN("NotEqual", ALL | TFS_DT_BIT(TFS_BOOL) | TFS_DT_BIT(TFS_STRING), kNe),
    BIN("Less", ALL, kLt),
    BIN("LessEqual", ALL, kLe),
    BIN("Greater", ALL, kGt),
    BIN("GreaterEqual", ALL, kGe),
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL},
};
