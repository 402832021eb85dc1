/*
 * backends/cpu/cast.c - Cast between every pair of bool, integer, half,
 * bfloat16, float, double, complex64 and complex128 types, with
 * TensorFlow's Truncate attr.  Conversion rules in the notes below.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/half.h"
#include "backends/cpu/bf16_convert.h"
#include "backends/cpu/cpu_tables.h"

/* Notes.  Integers convert by keeping the low bits (two's complement), as
 * C++ static_cast does in TensorFlow.  Floating values convert to
 * integers by truncation toward zero; NaN and out-of-range values give the
 * x86 "integer indefinite" value TensorFlow produces on these machines
 * (INT32_MIN through 32-bit conversions, INT64_MIN through 64-bit ones),
 * without undefined behaviour here.  Complex values convert to real types
 * (and bool) through their real part.  Truncate=true zeroes the mantissa
 * bits a narrower float destination cannot hold before converting, so the
 * value truncates instead of rounding. */

/* complex types without <complex.h> (whose macro I would clash with the
 * destination kind I below) */
typedef float _Complex c64_t;
typedef double _Complex c128_t;
#define creal(v) ((double)__real__(v))

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
#define LD_C(x) ((c128_t)(x))

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
/* complex destinations: CF (complex64), CD (complex128) */
#define ST_N_CF(DT, v, sgn) \
  ((DT)((sgn) ? (float)(int64_t)(v) : (float)(v)))
#define ST_N_CD(DT, v, sgn) \
  ((DT)((sgn) ? (double)(int64_t)(v) : (double)(v)))
#define ST_R_CF(DT, v, sgn) ((DT)(float)(v))
#define ST_R_CD(DT, v, sgn) ((DT)(v))
/* complex sources (C): the real part, or the whole value */
#define ST_C_B(DT, v, sgn) ((uint8_t)(creal(v) != 0))
#define ST_C_I(DT, v, sgn) f2_##DT(creal(v))
#define ST_C_F(DT, v, sgn) ((DT)creal(v))
#define ST_C_H(DT, v, sgn) tfs_float_to_half((float)creal(v))
#define ST_C_BF(DT, v, sgn) tfs_float_to_bf16((float)creal(v))
#define ST_C_CF(DT, v, sgn) ((DT)(v))
#define ST_C_CD(DT, v, sgn) ((DT)(v))

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
  X(__VA_ARGS__, f64, double, LD_F, R, 1, F)                          \
  X(__VA_ARGS__, c64, c64_t, LD_C, C, 1, CF)                          \
  X(__VA_ARGS__, c128, c128_t, LD_C, C, 1, CD)
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
  X(f64, double, LD_F, R, 1, F)                                       \
  X(c64, c64_t, LD_C, C, 1, CF)                                       \
  X(c128, c128_t, LD_C, C, 1, CD)

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
    case TFS_COMPLEX64: return 13;
    case TFS_COMPLEX128: return 14;
    default: return -1;
  }
}

#define ROW_ENTRY(SN, ST_, LD, CAT, SGN, SK_, DN, DT, LD2, CAT2, SGN2, DK) \
  cast_##SN##_##DN,
#define ROW(SN, ST_, LD, CAT, SGN, SK_) \
  {TYPE_LIST(ROW_ENTRY, SN, ST_, LD, CAT, SGN, SK_)},
static const cast_fn kCast[15][15] = {SRC_LIST(ROW)};

/* float32 <-> bfloat16, auto mixed precision's casts: the same bits as
 * the table's, in vector lanes. */
static void cast_f32_bf16_vec(const void *in, void *out, int64_t n) {
  tfs_bf16_from_f32(in, out, n);
}
static void cast_bf16_f32_vec(const void *in, void *out, int64_t n) {
  tfs_bf16_to_f32(in, out, n);
}

/* Mantissa bits (with the implicit one) of the float types; 0 for
 * others.  Truncate applies when the destination has fewer. */
static int mantissa_bits(tfs_dtype dt) {
  switch (dt) {
    case TFS_HALF: return 11;
    case TFS_BFLOAT16: return 8;
    case TFS_FLOAT: case TFS_COMPLEX64: return 24;
    case TFS_DOUBLE: case TFS_COMPLEX128: return 53;
    default: return 0;
  }
}

typedef struct {
  cast_fn fn;          /* NULL: the output is the input */
  size_t in_es, out_es;
  int trunc_bits;      /* low mantissa bits to clear (Truncate), or 0 */
  int wide;            /* source lanes are doubles (else floats) */
} cast_state;

static int cast_prepare(tfs_kernel_init *ki) {
  tfs_dtype src = TFS_INVALID, dst = TFS_INVALID;
  int truncate = 0;
  tfs_attrs_get_type(ki->attrs, "SrcT", &src);
  tfs_attrs_get_type(ki->attrs, "DstT", &dst);
  tfs_attrs_get_bool(ki->attrs, "Truncate", &truncate);
  int s = slot_of(src), d = slot_of(dst);
  if (src != dst && (s < 0 || d < 0))
    return tfs_ki_error(ki, TFS_UNIMPLEMENTED,
                        "Cast %s to %s is not supported",
                        tfs_dtype_name(src), tfs_dtype_name(dst));
  cast_state *st = tfs_calloc(1, sizeof(*st));
  if (!st) return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  if (src != dst) {
    st->fn = kCast[s][d];
    if (src == TFS_FLOAT && dst == TFS_BFLOAT16) st->fn = cast_f32_bf16_vec;
    if (src == TFS_BFLOAT16 && dst == TFS_FLOAT) st->fn = cast_bf16_f32_vec;
    st->in_es = tfs_dtype_size(src);
    st->out_es = tfs_dtype_size(dst);
    int ms = mantissa_bits(src), md = mantissa_bits(dst);
    if (truncate && md && ms > md && ms >= 24) {
      st->trunc_bits = ms - md;
      st->wide = ms == 53;
    }
  }
  ki->state = st;
  return 0;
}

typedef struct {
  const cast_state *s;
  const char *in;
  char *out, *tmp; /* tmp: masked copy of the input (Truncate) */
} cast_job;

/* Clears the low `bits` mantissa bits of every lane, NaN left alone. */
static void clear_low_bits(const cast_state *s, const char *in, char *out,
                           int64_t lanes) {
  if (s->wide) {
    uint64_t mask = ~((UINT64_C(1) << s->trunc_bits) - 1);
    for (int64_t i = 0; i < lanes; i++) {
      double v;
      uint64_t u;
      memcpy(&v, in + i * 8, 8);
      memcpy(&u, &v, 8);
      if (v == v) u &= mask;
      memcpy(out + i * 8, &u, 8);
    }
  } else {
    uint32_t mask = ~((UINT32_C(1) << s->trunc_bits) - 1);
    for (int64_t i = 0; i < lanes; i++) {
      float v;
      uint32_t u;
      memcpy(&v, in + i * 4, 4);
      memcpy(&u, &v, 4);
      if (v == v) u &= mask;
      memcpy(out + i * 4, &u, 4);
    }
  }
}

static void cast_range(void *arg, int64_t b, int64_t e) {
  cast_job *j = arg;
  const cast_state *s = j->s;
  const char *in = j->in + (size_t)b * s->in_es;
  if (j->tmp) {
    int64_t lanes_per = (int64_t)s->in_es / (s->wide ? 8 : 4);
    char *t = j->tmp + (size_t)b * s->in_es;
    clear_low_bits(s, in, t, (e - b) * lanes_per);
    in = t;
  }
  s->fn(in, j->out + (size_t)b * s->out_es, e - b);
}

static void cast_compute(tfs_kernel_ctx *c) {
  const tfs_tensor *x = c->inputs[0];
  const cast_state *s = c->state;
  if (!s->fn) {
    tfs_kctx_set_output(c, 0, tfs_tensor_ref(c->inputs[0]));
    return;
  }
  tfs_tensor *o = tfs_kctx_alloc_output(c, 0, &x->shape);
  if (!o || x->nelems == 0) return;
  cast_job j = {s, x->data, o->data, NULL};
  if (s->trunc_bits) {
    j.tmp = tfs_kctx_scratch(c, (size_t)x->nelems * s->in_es);
    if (!j.tmp) return;
  }
  tfs_kctx_parallel_for(c, x->nelems, s->trunc_bits ? 3 : 1, cast_range, &j);
}

const tfs_kernel_def tfs_cpu_kernels_cast[] = {
    {"Cast", "CPU", NULL, 0, cast_prepare, cast_compute, free, 0, NULL},
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL},
};
