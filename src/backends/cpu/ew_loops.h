/*
 * backends/cpu/ew_loops.h - loop generators and per-dtype instantiation
 * lists shared by the math kernels (binary.c, divmod.c, compare.c,
 * unary.c, unary_math.c): contiguous loops the compiler vectorizes, the
 * complex types, and 16-bit floats computed in float (bfloat16 in blocks
 * widened and rounded by bf16_convert.h's vector loops).
 */
#ifndef TFS_BACKENDS_CPU_EW_LOOPS_H
#define TFS_BACKENDS_CPU_EW_LOOPS_H

/* GCC vectorizes at -O2 only with its "very cheap" cost model, which
 * rejects any loop of unknown trip count; these elementwise files ask for
 * the usual dynamic model instead. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("tree-vectorize", "vect-cost-model=dynamic")
#define TFS_IVDEP _Pragma("GCC ivdep")
#else
#define TFS_IVDEP
#endif

#include <complex.h>
#include <math.h>
#include <stdint.h>

#include "core/half.h"
#include "backends/cpu/bf16_convert.h"
#include "backends/cpu/elementwise.h"

typedef float _Complex tfs_c64;
typedef double _Complex tfs_c128;

#define H2F tfs_half_to_float
#define F2H tfs_float_to_half
#define B2F tfs_bf16_to_float
#define F2B tfs_float_to_bf16

/* Binary loop: inputs of type T loaded through LOAD into x and y (of the
 * loaded type), output o[i] = STORE(EXPR) of type OT.  Output may be the
 * same buffer as an input (in-place), never overlapping otherwise. */
#define EW_BIN_GEN(NAME, T, OT, LOAD, STORE, EXPR)                         \
  static int NAME(const void *A, const void *B, void *O, int64_t n,        \
                  int mode) {                                              \
    const T *a = (const T *)A, *b = (const T *)B;                          \
    OT *o = (OT *)O;                                                       \
    if (mode == TFS_BIN_VV) {                                              \
      TFS_IVDEP for (int64_t i = 0; i < n; i++) {                          \
        __typeof__(LOAD(a[0])) x = LOAD(a[i]), y = LOAD(b[i]);             \
        o[i] = STORE(EXPR);                                                \
      }                                                                    \
    } else if (mode == TFS_BIN_SV) {                                       \
      const __typeof__(LOAD(a[0])) x = LOAD(a[0]);                         \
      TFS_IVDEP for (int64_t i = 0; i < n; i++) {                          \
        __typeof__(LOAD(a[0])) y = LOAD(b[i]);                             \
        o[i] = STORE(EXPR);                                                \
      }                                                                    \
    } else {                                                               \
      const __typeof__(LOAD(a[0])) y = LOAD(b[0]);                         \
      TFS_IVDEP for (int64_t i = 0; i < n; i++) {                          \
        __typeof__(LOAD(a[0])) x = LOAD(a[i]);                             \
        o[i] = STORE(EXPR);                                                \
      }                                                                    \
    }                                                                      \
    return 0;                                                              \
  }

/* Same with a check before each element: CHECK(x, y) true -> return 1
 * (the kernel fails with its table's message). */
#define EW_BIN_CHECKED(NAME, T, CHECK, EXPR)                               \
  static int NAME(const void *A, const void *B, void *O, int64_t n,        \
                  int mode) {                                              \
    const T *a = (const T *)A, *b = (const T *)B;                          \
    T *o = (T *)O;                                                         \
    for (int64_t i = 0; i < n; i++) {                                      \
      T x = a[mode == TFS_BIN_SV ? 0 : i];                                 \
      T y = b[mode == TFS_BIN_VS ? 0 : i];                                 \
      if (CHECK) return 1;                                                 \
      o[i] = (EXPR);                                                       \
    }                                                                      \
    return 0;                                                              \
  }

#define EW_ID(x) (x)
#define EW_BIN(NAME, T, EXPR) EW_BIN_GEN(NAME, T, T, EW_ID, EW_ID, EXPR)
#define EW_BIN_F16(NAME, EXPR) \
  EW_BIN_GEN(NAME, uint16_t, uint16_t, H2F, F2H, EXPR)

/* bfloat16: blocks of EW_BF16_BLOCK values widened to float, EXPR over
 * the block, one rounding back (the bits of F2B(EXPR) per element).  A
 * block is read whole before its output is written, so the output may
 * be an input. */
#define EW_BF16_BLOCK 256
#define EW_BIN_BF16(NAME, EXPR)                                            \
  static int NAME(const void *A, const void *B, void *O, int64_t n,        \
                  int mode) {                                              \
    const uint16_t *a = (const uint16_t *)A, *b = (const uint16_t *)B;     \
    uint16_t *o = (uint16_t *)O;                                           \
    float xs[EW_BF16_BLOCK], ys[EW_BF16_BLOCK];                            \
    if (n <= 0) return 0;                                                  \
    const float x0 = B2F(a[0]), y0 = B2F(b[0]);                            \
    for (int64_t i0 = 0; i0 < n; i0 += EW_BF16_BLOCK) {                    \
      int64_t k = n - i0 < EW_BF16_BLOCK ? n - i0 : EW_BF16_BLOCK;         \
      if (mode != TFS_BIN_SV) tfs_bf16_to_f32(a + i0, xs, k);              \
      if (mode != TFS_BIN_VS) tfs_bf16_to_f32(b + i0, ys, k);              \
      if (mode == TFS_BIN_VV) {                                            \
        TFS_IVDEP for (int64_t i = 0; i < k; i++) {                        \
          float x = xs[i], y = ys[i];                                      \
          xs[i] = (EXPR);                                                  \
        }                                                                  \
      } else if (mode == TFS_BIN_SV) {                                     \
        TFS_IVDEP for (int64_t i = 0; i < k; i++) {                        \
          float x = x0, y = ys[i];                                         \
          xs[i] = (EXPR);                                                  \
        }                                                                  \
      } else {                                                             \
        TFS_IVDEP for (int64_t i = 0; i < k; i++) {                        \
          float x = xs[i], y = y0;                                         \
          xs[i] = (EXPR);                                                  \
        }                                                                  \
      }                                                                    \
      tfs_bf16_from_f32(xs, o + i0, k);                                    \
    }                                                                      \
    return 0;                                                              \
  }

/* Unary loop: y = STORE(EXPR(x)), x loaded through LOAD. */
#define EW_UN_GEN(NAME, T, OT, LOAD, STORE, EXPR)                          \
  static int NAME(const void *X, void *O, int64_t n) {                     \
    const T *xs = (const T *)X;                                            \
    OT *o = (OT *)O;                                                       \
    TFS_IVDEP for (int64_t i = 0; i < n; i++) {                            \
      __typeof__(LOAD(xs[0])) x = LOAD(xs[i]);                             \
      o[i] = STORE(EXPR);                                                  \
    }                                                                      \
    return 0;                                                              \
  }

#define EW_UN(NAME, T, EXPR) EW_UN_GEN(NAME, T, T, EW_ID, EW_ID, EXPR)
#define EW_UN_F16(NAME, EXPR) \
  EW_UN_GEN(NAME, uint16_t, uint16_t, H2F, F2H, EXPR)
#define EW_UN_BF16(NAME, EXPR) TFS_UN_LOOP_BF16(NAME, EXPR)

/* Complex quotients as TensorFlow's CPU kernels compute them: Smith's
 * scaled formula without C's Annex G recovery, so that x / 0 is NaN
 * (C's division gives Inf). */
#define EW_CDIV_SMITH(NAME, T, R, RE, IM, ABS)                             \
  static inline T NAME(T x, T y) {                                         \
    R a = RE(x), b = IM(x), c = RE(y), d = IM(y);                          \
    int by_imag = ABS(c) <= ABS(d);                                        \
    R rs = by_imag ? c / d : (R)1, is = by_imag ? (R)1 : d / c;            \
    R den = c * rs + d * is;                                               \
    T q;                                                                   \
    __real__ q = (a * rs + b * is) / den;                                  \
    __imag__ q = (b * rs - a * is) / den;                                  \
    return q;                                                              \
  }
EW_CDIV_SMITH(ew_cdivf, tfs_c64, float, crealf, cimagf, fabsf)
EW_CDIV_SMITH(ew_cdiv, tfs_c128, double, creal, cimag, fabs)

/* ---- instantiation over dtype families ------------------------------------
 * FLOATS(OP, EXPR_F, EXPR_D) makes OP_f32, OP_f64 (EXPR_D) and OP_f16,
 * OP_bf16 (computed in float with EXPR_F); *_ENTRIES fill a table. */
#define EW_BIN_FLOATS(OP, EXPR_F, EXPR_D)                                  \
  EW_BIN(OP##_f32, float, EXPR_F)                                          \
  EW_BIN(OP##_f64, double, EXPR_D)                                         \
  EW_BIN_F16(OP##_f16, EXPR_F)                                             \
  EW_BIN_BF16(OP##_bf16, EXPR_F)
#define EW_UN_FLOATS(OP, EXPR_F, EXPR_D)                                   \
  EW_UN(OP##_f32, float, EXPR_F)                                           \
  EW_UN(OP##_f64, double, EXPR_D)                                          \
  EW_UN_F16(OP##_f16, EXPR_F)                                              \
  EW_UN_BF16(OP##_bf16, EXPR_F)

/* MAKE(NAME, T, U) for each signed / unsigned integer type; U is the
 * unsigned type of the same width (for wrapping arithmetic). */
#define EW_SIGNED(OP, MAKE)                                                \
  MAKE(OP##_i8, int8_t, uint8_t)                                           \
  MAKE(OP##_i16, int16_t, uint16_t)                                        \
  MAKE(OP##_i32, int32_t, uint32_t)                                        \
  MAKE(OP##_i64, int64_t, uint64_t)
#define EW_UNSIGNED(OP, MAKE)                                              \
  MAKE(OP##_u8, uint8_t, uint8_t)                                          \
  MAKE(OP##_u16, uint16_t, uint16_t)                                       \
  MAKE(OP##_u32, uint32_t, uint32_t)                                       \
  MAKE(OP##_u64, uint64_t, uint64_t)
#define EW_INTS(OP, MAKE) EW_SIGNED(OP, MAKE) EW_UNSIGNED(OP, MAKE)

#define EW_FLOAT_ENTRIES(OP)                                               \
  [TFS_FLOAT] = OP##_f32, [TFS_DOUBLE] = OP##_f64,                         \
  [TFS_HALF] = OP##_f16, [TFS_BFLOAT16] = OP##_bf16
#define EW_SIGNED_ENTRIES(OP)                                              \
  [TFS_INT8] = OP##_i8, [TFS_INT16] = OP##_i16,                            \
  [TFS_INT32] = OP##_i32, [TFS_INT64] = OP##_i64
#define EW_UNSIGNED_ENTRIES(OP)                                            \
  [TFS_UINT8] = OP##_u8, [TFS_UINT16] = OP##_u16,                          \
  [TFS_UINT32] = OP##_u32, [TFS_UINT64] = OP##_u64
#define EW_INT_ENTRIES(OP) EW_SIGNED_ENTRIES(OP), EW_UNSIGNED_ENTRIES(OP)
#define EW_COMPLEX_ENTRIES(OP)                                             \
  [TFS_COMPLEX64] = OP##_c64, [TFS_COMPLEX128] = OP##_c128

/* dtype bit sets for kernel registrations */
#define EW_DT(x) TFS_DT_BIT(TFS_##x)
#define EW_DT_SIGNED (EW_DT(INT8) | EW_DT(INT16) | EW_DT(INT32) | EW_DT(INT64))
#define EW_DT_UNSIGNED \
  (EW_DT(UINT8) | EW_DT(UINT16) | EW_DT(UINT32) | EW_DT(UINT64))
#define EW_DT_COMPLEX (EW_DT(COMPLEX64) | EW_DT(COMPLEX128))

/* Wrapping signed arithmetic (no undefined behaviour on overflow), done
 * in at least unsigned int: 8- and 16-bit operands would promote to int,
 * whose overflow is undefined. */
#define EW_WRAP(T, U, x, op, y) ((T)(U)(1u * (U)(x)op(U)(y)))

/* NaN-propagating max / min (TensorFlow's float Maximum / Minimum); on
 * ties (+0 and -0) the first operand, as std::max / std::min. */
#define EW_FMAX(x, y) ((y) != (y) || (x) < (y) ? (y) : (x))
#define EW_FMIN(x, y) ((y) != (y) || (y) < (x) ? (y) : (x))

#endif
