/*
 * backends/cpu/divmod.c - FloorDiv, TruncateDiv, FloorMod, Mod (C fmod)
 * and Atan2 with broadcasting.  Integer division by zero fails with
 * TensorFlow's message; MIN / -1 wraps; half and bfloat16 quotients are
 * rounded to their type before floor/trunc, as TensorFlow computes them.
 */
#include <stdlib.h>

#include "backends/cpu/cpu_tables.h"
#include "backends/cpu/ew_loops.h"

/* ---- floats --------------------------------------------------------- */

static inline float floor_mod_f(float x, float y) {
  float r = fmodf(x, y);
  return r != 0 && ((y < 0) != (r < 0)) ? r + y : r;
}
static inline double floor_mod_d(double x, double y) {
  double r = fmod(x, y);
  return r != 0 && ((y < 0) != (r < 0)) ? r + y : r;
}

EW_BIN(fdiv_f32, float, floorf(x / y))
EW_BIN(fdiv_f64, double, floor(x / y))
EW_BIN_F16(fdiv_f16, floorf(H2F(F2H(x / y))))
EW_BIN_BF16(fdiv_bf16, floorf(B2F(F2B(x / y))))
EW_BIN(tdiv_f32, float, truncf(x / y))
EW_BIN(tdiv_f64, double, trunc(x / y))
EW_BIN_F16(tdiv_f16, truncf(H2F(F2H(x / y))))
EW_BIN_BF16(tdiv_bf16, truncf(B2F(F2B(x / y))))
EW_BIN_FLOATS(fmod, floor_mod_f(x, y), floor_mod_d(x, y))
EW_BIN(tmod_f32, float, fmodf(x, y))
EW_BIN(tmod_f64, double, fmod(x, y))
EW_BIN_FLOATS(atan2, atan2f(x, y), atan2(x, y))

/* ---- integers ------------------------------------------------------- */

#define MK_FDIV_S(N, T, U)                                                \
  static inline T N##_one(T x, T y) {                                     \
    if (y == (T)-1) return (T)(0 - (U)x);                                 \
    T q = (T)(x / y), r = (T)(x % y);                                     \
    return r != 0 && ((r < 0) != (y < 0)) ? (T)(q - 1) : q;               \
  }                                                                       \
  EW_BIN_CHECKED(N, T, y == 0, N##_one(x, y))
#define MK_FMOD_S(N, T, U)                                                \
  static inline T N##_one(T x, T y) {                                     \
    if (y == (T)-1) return 0;                                             \
    T r = (T)(x % y);                                                     \
    return r != 0 && ((r < 0) != (y < 0)) ? (T)(r + y) : r;               \
  }                                                                       \
  EW_BIN_CHECKED(N, T, y == 0, N##_one(x, y))
#define MK_TDIV_S(N, T, U)                                                \
  EW_BIN_CHECKED(N, T, y == 0, y == (T)-1 ? (T)(0 - (U)x) : (T)(x / y))
#define MK_TMOD_S(N, T, U)                                                \
  EW_BIN_CHECKED(N, T, y == 0, y == (T)-1 ? (T)0 : (T)(x % y))
#define MK_DIV_U(N, T, U) EW_BIN_CHECKED(N, T, y == 0, (T)(x / y))
#define MK_MOD_U(N, T, U) EW_BIN_CHECKED(N, T, y == 0, (T)(x % y))

EW_SIGNED(fdiv, MK_FDIV_S)
EW_UNSIGNED(fdiv, MK_DIV_U)
EW_SIGNED(tdiv, MK_TDIV_S)
EW_UNSIGNED(tdiv, MK_DIV_U)
EW_SIGNED(fmod, MK_FMOD_S)
EW_UNSIGNED(fmod, MK_MOD_U)
MK_TMOD_S(tmod_i32, int32_t, uint32_t)
MK_TMOD_S(tmod_i64, int64_t, uint64_t)

static const tfs_bin_table kFloorDiv = {
    {EW_FLOAT_ENTRIES(fdiv), EW_INT_ENTRIES(fdiv)},
    "Integer division by zero", 4, 0};
static const tfs_bin_table kTruncateDiv = {
    {EW_FLOAT_ENTRIES(tdiv), EW_INT_ENTRIES(tdiv)},
    "Unexpected error in binary operator (only integer div and mod should "
    "have errors)",
    4, TFS_INTERNAL};
static const tfs_bin_table kFloorMod = {
    {EW_FLOAT_ENTRIES(fmod), EW_INT_ENTRIES(fmod)},
    "Integer division by zero", 8, 0};
static const tfs_bin_table kMod = {
    {[TFS_FLOAT] = tmod_f32, [TFS_DOUBLE] = tmod_f64,
     [TFS_INT32] = tmod_i32, [TFS_INT64] = tmod_i64},
    "Integer division by zero", 8, 0};
static const tfs_bin_table kAtan2 = {{EW_FLOAT_ENTRIES(atan2)}, "", 20, 0};

#define REAL_T (TFS_DT_FLOATS | EW_DT_SIGNED | EW_DT_UNSIGNED)
#define BIN(OP, TYPES, TABLE)                                           \
  {OP, "CPU", "T", TYPES, tfs_binary_prepare, tfs_binary_compute,       \
   free, 0, &TABLE}

const tfs_kernel_def tfs_cpu_kernels_divmod[] = {
    BIN("FloorDiv", REAL_T, kFloorDiv),
    BIN("TruncateDiv", REAL_T, kTruncateDiv),
    BIN("FloorMod", REAL_T, kFloorMod),
    BIN("Mod",
        EW_DT(FLOAT) | EW_DT(DOUBLE) | EW_DT(INT32) | EW_DT(INT64), kMod),
    BIN("Atan2", TFS_DT_FLOATS, kAtan2),
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL},
};
