/*
 * kernels/cpu/cast.c - Cast between every pair of bool, integer, half,
 * bfloat16, float and double types.
 *
 * Integers convert by keeping the low bits (two's complement), as C++
 * static_cast does in TensorFlow.  Floating values convert to integers by
 * truncation toward zero; NaN and out-of-range values give the x86
 * "integer indefinite" value TensorFlow produces on these machines
 * (INT32_MIN through 32-bit conversions, INT64_MIN through 64-bit ones),
 * without undefined behaviour here.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/half.h"
#include "kernels/cpu/cpu_tables.h"

static inline int32_t cvtt32(double v) {
  if (!(v > -2147483649.0 && v < 2147483648.0)) return INT32_MIN;
  return (int32_t)v;
}
static inline int64_t cvtt64(double v) {
  if (!(v >= -9223372036854775808.0 && v < 9223372036854775808.0))
    return INT64_MIN;
  return (int64_t)v;
}
static inline uint64_t cvttu64(double v) {
  if (v >= 9223372036854775808.0 && v < 18446744073709551616.0)
    return (uint64_t)(v - 9223372036854775808.0) + 0x8000000000000000ULL;
  return (uint64_t)cvtt64(v);
}

static inline int8_t f2_int8_t(double v) { return (int8_t)cvtt32(v); }
static inline int16_t f2_int16_t(double v) { return (int16_t)cvtt32(v); }
static inline int32_t f2_int32_t(double v) { return cvtt32(v); }
static inline int64_t f2_int64_t(double v) { return cvtt64(v); }
static inline uint8_t f2_uint8_t(double v) { return (uint8_t)cvtt32(v); }
static inline uint16_t f2_uint16_t(double v) { return (uint16_t)cvtt32(v); }
static inline uint32_t f2_uint32_t(double v) { return (uint32_t)cvtt64(v); }
static inline uint64_t f2_uint64_t(double v) { return cvttu64(v); }

/* Loading a source element: integral sources widen to uint64 bits (sign
 * extended for signed types), real sources to double. */
#define LD_S(x) ((uint64_t)(int64_t)(x))
#define LD_U(x) ((uint64_t)(x))
#define LD_F(x) ((double)(x))
#define LD_H(x) ((double)tfs_half_to_float(x))
#define LD_BF(x) ((double)tfs_bf16_to_float(x))

/* Storing by destination kind, from integral (N) or real (R) values.
 * Integral values arrive as uint64 bits; `sgn` says whether they came from
 * a signed type (for conversions to floating types). */
#define ST_N_B(DT, v, sgn) ((uint8_t)((v) != 0))
#define ST_N_I(DT, v, sgn) ((DT)(v))
#define ST_N_F(DT, v, sgn) ((sgn) ? (DT)(int64_t)(v) : (DT)(v))
#define ST_N_H(DT, v, sgn) \
  tfs_float_to_half((sgn) ? (float)(int64_t)(v) : (float)(v))
#define ST_N_BF(DT, v, sgn) \
  tfs_float_to_bf16((sgn) ? (float)(int64_t)(v) : (float)(v))
#define ST_R_B(DT, v, sgn) ((uint8_t)((v) != 0))
#define ST_R_I(DT, v, sgn) f2_##DT(v)
#define ST_R_F(DT, v, sgn) ((DT)(v))
#define ST_R_H(DT, v, sgn) tfs_float_to_half((float)(v))
#define ST_R_BF(DT, v, sgn) tfs_float_to_bf16((float)(v))

/* name, C type, loader, category (N/R), signedness, kind as destination.
 * Two copies of the list: a macro cannot expand itself when nested. */
#define TYPE_LIST(X, ...)                                             \
  X(__VA_ARGS__, bool, uint8_t, LD_U, N, 0, B)                        \
  X(__VA_ARGS__, i8, int8_t, LD_S, N, 1, I)                           \
  X(__VA_ARGS__, i16, int16_t, LD_S, N, 1, I)                         \
  X(__VA_ARGS__, i32, int32_t, LD_S, N, 1, I)                         \
  X(__VA_ARGS__, i64, int64_t, LD_S, N, 1, I)                         \
  X(__VA_ARGS__, u8, uint8_t, LD_U, N, 0, I)                          \
  X(__VA_ARGS__, u16, uint16_t, LD_U, N, 0, I)                        \
  X(__VA_ARGS__, u32, uint32_t, LD_U, N, 0, I)                        \
  X(__VA_ARGS__, u64, uint64_t, LD_U, N, 0, I)                        \
  X(__VA_ARGS__, f16, uint16_t, LD_H, R, 1, H)                        \
  X(__VA_ARGS__, bf16, uint16_t, LD_BF, R, 1, BF)                     \
  X(__VA_ARGS__, f32, float, LD_F, R, 1, F)                           \
  X(__VA_ARGS__, f64, double, LD_F, R, 1, F)
#define SRC_LIST(X)                                                   \
  X(bool, uint8_t, LD_U, N, 0, B)                                     \
  X(i8, int8_t, LD_S, N, 1, I)                                        \
  X(i16, int16_t, LD_S, N, 1, I)                                      \
  X(i32, int32_t, LD_S, N, 1, I)                                      \
  X(i64, int64_t, LD_S, N, 1, I)                                      \
  X(u8, uint8_t, LD_U, N, 0, I)                                       \
  X(u16, uint16_t, LD_U, N, 0, I)                                     \
  X(u32, uint32_t, LD_U, N, 0, I)                                     \
  X(u64, uint64_t, LD_U, N, 0, I)                                     \
  X(f16, uint16_t, LD_H, R, 1, H)                                     \
  X(bf16, uint16_t, LD_BF, R, 1, BF)                                  \
  X(f32, float, LD_F, R, 1, F)                                        \
  X(f64, double, LD_F, R, 1, F)

#define ST(CAT, DK, DT, v, sgn) ST_##CAT##_##DK(DT, v, sgn)
#define DEF_PAIR(SN, ST_, LD, CAT, SGN, SK_, DN, DT, LD2, CAT2, SGN2, DK)  \
  static void cast_##SN##_##DN(const void *in, void *out, int64_t n) {   \
    const ST_ *a = (const ST_ *)in;                                      \
    DT *b = (DT *)out;                                                   \
    for (int64_t i = 0; i < n; i++) b[i] = ST(CAT, DK, DT, LD(a[i]), SGN); \
  }
#define DEF_FROM(SN, ST_, LD, CAT, SGN, SK_)                             \
  TYPE_LIST(DEF_PAIR, SN, ST_, LD, CAT, SGN, SK_)
SRC_LIST(DEF_FROM)

typedef void (*cast_fn)(const void *in, void *out, int64_t n);

static int slot_of(tfs_dtype dt) {
  switch (dt) {
    case TFS_BOOL: return 0;
    case TFS_INT8: return 1;
    case TFS_INT16: return 2;
    case TFS_INT32: return 3;
    case TFS_INT64: return 4;
    case TFS_UINT8: return 5;
    case TFS_UINT16: return 6;
    case TFS_UINT32: return 7;
    case TFS_UINT64: return 8;
    case TFS_HALF: return 9;
    case TFS_BFLOAT16: return 10;
    case TFS_FLOAT: return 11;
    case TFS_DOUBLE: return 12;
    default: return -1;
  }
}

#define ROW_ENTRY(SN, ST_, LD, CAT, SGN, SK_, DN, DT, LD2, CAT2, SGN2, DK) \
  cast_##SN##_##DN,
#define ROW(SN, ST_, LD, CAT, SGN, SK_) \
  {TYPE_LIST(ROW_ENTRY, SN, ST_, LD, CAT, SGN, SK_)},
static const cast_fn kCast[13][13] = {SRC_LIST(ROW)};

static void copy_fn(const void *in, void *out, int64_t n) { (void)n; (void)in; (void)out; }

static int cast_prepare(tfs_kernel_init *ki) {
  tfs_dtype src = TFS_INVALID, dst = TFS_INVALID;
  tfs_attrs_get_type(ki->attrs, "SrcT", &src);
  tfs_attrs_get_type(ki->attrs, "DstT", &dst);
  if (src == dst) {
    ki->state = (void *)copy_fn;
    return 0;
  }
  int s = slot_of(src), d = slot_of(dst);
  if (s < 0 || d < 0)
    return tfs_ki_error(ki, TFS_UNIMPLEMENTED,
                        "Cast %s to %s is not supported",
                        tfs_dtype_name(src), tfs_dtype_name(dst));
  ki->state = (void *)kCast[s][d];
  return 0;
}

static void cast_compute(tfs_kernel_ctx *c) {
  const tfs_tensor *x = c->inputs[0];
  cast_fn fn = (cast_fn)c->state;
  if (fn == copy_fn) {
    tfs_kctx_set_output(c, 0, tfs_tensor_ref(c->inputs[0]));
    return;
  }
  tfs_tensor *o = tfs_kctx_alloc_output(c, 0, &x->shape);
  if (o && x->nelems) fn(x->data, o->data, x->nelems);
}

const tfs_kernel_def tfs_cpu_kernels_cast[] = {
    {"Cast", "CPU", NULL, 0, cast_prepare, cast_compute, NULL, 0, NULL},
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL},
};
