/*
 * backends/cpu/elementwise.h - the engine behind elementwise kernels.
 *
 * A binary kernel is a per-dtype loop `fn(a, b, out, n, mode)` over n
 * contiguous elements, where mode says which operand is a single value
 * repeated (TFS_BIN_VV: both vary, TFS_BIN_SV: a is one value, TFS_BIN_VS:
 * b is one value).  The engine works out numpy broadcasting, collapses
 * dimensions, splits the work over the intra-op pool and reuses an input
 * buffer for the output when it can.  A loop returns 0, or a non-zero code
 * the kernel turns into its error message.
 */
#ifndef TFS_BACKENDS_CPU_ELEMENTWISE_H
#define TFS_BACKENDS_CPU_ELEMENTWISE_H

#include <math.h>

#include "core/half.h"
#include "backends/cpu/bf16_convert.h"
#include "kernels/kernel.h"

enum { TFS_BIN_VV = 0, TFS_BIN_SV = 1, TFS_BIN_VS = 2 };

typedef int (*tfs_bin_fn)(const void *a, const void *b, void *out,
                          int64_t n, int mode);
typedef int (*tfs_un_fn)(const void *x, void *out, int64_t n);

/* Per-dtype loops of one op, indexed by dtype (NULL: unsupported). */
typedef struct tfs_bin_table {
  tfs_bin_fn fn[24];
  /* Message for a non-zero loop result, e.g. "Integer division by zero". */
  const char *error;
  int cost;       /* rough ns per element for parallel_for; 0: 1 (binary),
                     4 (unary) */
  tfs_code code;  /* status code of `error`; 0: INVALID_ARGUMENT */
} tfs_bin_table;

typedef struct tfs_un_table {
  tfs_un_fn fn[24];
  const char *error;
  int cost;
  tfs_code code;
} tfs_un_table;

/* Kernel entry points: `state` is the table. */
void tfs_binary_compute(tfs_kernel_ctx *c);
void tfs_unary_compute(tfs_kernel_ctx *c);
int tfs_binary_prepare(tfs_kernel_init *ki);
int tfs_unary_prepare(tfs_kernel_init *ki);

/* Output shape of broadcasting a and b, or an "Incompatible shapes"
 * error. */
int tfs_broadcast_shapes(const tfs_shape *a, const tfs_shape *b,
                         tfs_shape *out, tfs_status *st);

/* ---- loop generators ---------------------------------------------------- */

#define TFS_BIN_LOOP(NAME, T, EXPR)                                        \
  static int NAME(const void *A, const void *B, void *O, int64_t n,        \
                  int mode) {                                              \
    const T *a = (const T *)A, *b = (const T *)B;                          \
    T *o = (T *)O;                                                         \
    if (mode == TFS_BIN_VV) {                                              \
      for (int64_t i = 0; i < n; i++) {                                    \
        T x = a[i], y = b[i];                                              \
        o[i] = (EXPR);                                                     \
      }                                                                    \
    } else if (mode == TFS_BIN_SV) {                                       \
      const T x = a[0];                                                    \
      for (int64_t i = 0; i < n; i++) {                                    \
        T y = b[i];                                                        \
        o[i] = (EXPR);                                                     \
      }                                                                    \
    } else {                                                               \
      const T y = b[0];                                                    \
      for (int64_t i = 0; i < n; i++) {                                    \
        T x = a[i];                                                        \
        o[i] = (EXPR);                                                     \
      }                                                                    \
    }                                                                      \
    return 0;                                                              \
  }

/* Same with a check: CHECK(x, y) true -> return 1. */
#define TFS_BIN_LOOP_CHECKED(NAME, T, CHECK, EXPR)                         \
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

/* Comparisons: T inputs, bool (uint8) output. */
#define TFS_CMP_LOOP(NAME, T, LOAD, EXPR)                                  \
  static int NAME(const void *A, const void *B, void *O, int64_t n,        \
                  int mode) {                                              \
    const T *a = (const T *)A, *b = (const T *)B;                          \
    uint8_t *o = (uint8_t *)O;                                             \
    for (int64_t i = 0; i < n; i++) {                                      \
      __typeof__(LOAD(a[0])) x = LOAD(a[mode == TFS_BIN_SV ? 0 : i]);      \
      __typeof__(LOAD(b[0])) y = LOAD(b[mode == TFS_BIN_VS ? 0 : i]);      \
      o[i] = (uint8_t)(EXPR);                                              \
    }                                                                      \
    return 0;                                                              \
  }

/* 16-bit floats computed in float: TO/FROM convert. */
#define TFS_BIN_LOOP_F16(NAME, TO, FROM, EXPR)                             \
  static int NAME(const void *A, const void *B, void *O, int64_t n,        \
                  int mode) {                                              \
    const uint16_t *a = (const uint16_t *)A, *b = (const uint16_t *)B;     \
    uint16_t *o = (uint16_t *)O;                                           \
    for (int64_t i = 0; i < n; i++) {                                      \
      float x = TO(a[mode == TFS_BIN_SV ? 0 : i]);                         \
      float y = TO(b[mode == TFS_BIN_VS ? 0 : i]);                         \
      o[i] = FROM(EXPR);                                                   \
    }                                                                      \
    return 0;                                                              \
  }

#define TFS_UN_LOOP(NAME, T, EXPR)                                         \
  static int NAME(const void *X, void *O, int64_t n) {                     \
    const T *xs = (const T *)X;                                            \
    T *o = (T *)O;                                                         \
    for (int64_t i = 0; i < n; i++) {                                      \
      T x = xs[i];                                                         \
      o[i] = (EXPR);                                                       \
    }                                                                      \
    return 0;                                                              \
  }

#define TFS_UN_LOOP_F16(NAME, TO, FROM, EXPR)                              \
  static int NAME(const void *X, void *O, int64_t n) {                     \
    const uint16_t *xs = (const uint16_t *)X;                              \
    uint16_t *o = (uint16_t *)O;                                           \
    for (int64_t i = 0; i < n; i++) {                                      \
      float x = TO(xs[i]);                                                 \
      o[i] = FROM(EXPR);                                                   \
    }                                                                      \
    return 0;                                                              \
  }

/* bfloat16: blocks of 256 widened (tfs_bf16_to_f32), EXPR of float `x`,
 * one rounding (tfs_bf16_from_f32): the bits of FROM(EXPR) per element.
 * Output may be the input. */
#define TFS_UN_LOOP_BF16(NAME, EXPR)                                       \
  static int NAME(const void *X, void *O, int64_t n) {                     \
    const uint16_t *x16 = (const uint16_t *)X;                             \
    uint16_t *o = (uint16_t *)O;                                           \
    float xs[256];                                                         \
    for (int64_t i0 = 0; i0 < n; i0 += 256) {                              \
      int64_t k = n - i0 < 256 ? n - i0 : 256;                             \
      tfs_bf16_to_f32(x16 + i0, xs, k);                                    \
      for (int64_t i = 0; i < k; i++) {                                    \
        float x = xs[i];                                                   \
        xs[i] = (EXPR);                                                    \
      }                                                                    \
      tfs_bf16_from_f32(xs, o + i0, k);                                    \
    }                                                                      \
    return 0;                                                              \
  }

/* Wrapping signed arithmetic (no undefined behaviour on overflow). */
#define TFS_WRAP(T, U, x, op, y) ((T)((U)(x) op (U)(y)))

#endif
