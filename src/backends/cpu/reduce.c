/*
 * backends/cpu/reduce.c - Sum, Mean, Prod, Max, Min, All, Any and
 * EuclideanNorm over any set of axes: merged axes, vectorizable
 * row/column loops, work split along the first kept axis (a full
 * reduction in fixed blocks, so results do not depend on the thread
 * count).  Details in the notes below.
 */
#include <immintrin.h>
#include <stdlib.h>
#include <string.h>

#include "core/cpu.h"

#include "core/alloc.h"
#include "backends/cpu/cpu_tables.h"
#include "backends/cpu/ew_loops.h"
#include "ops/reduce_check.h"

/* Notes.  Adjacent axes that are both reduced or both kept are merged
 * first (size-1 axes dropped), so the innermost loop is a contiguous row
 * reduction or a contiguous vector accumulate.  Floats accumulate in
 * double, complex in double complex, integer sums and products in
 * wrapping 64-bit arithmetic (then wrap to the type; an integer Mean
 * divides the 64-bit sum); Max/Min propagate NaN.  Empty reductions give
 * the identity (Mean: NaN for floats, 0 for integers), as TensorFlow's. */

enum { R_SUM, R_MEAN, R_PROD, R_MAX, R_MIN, R_ALL, R_ANY, R_EUCLID };

typedef struct {
  int n;                         /* collapsed rank, >= 1 */
  int64_t size[TFS_MAX_RANK];
  int64_t istride[TFS_MAX_RANK];
  int64_t ostride[TFS_MAX_RANK]; /* 0 for reduced dims */
  uint8_t red[TFS_MAX_RANK];
  int split;                     /* first kept dim (-1: full reduction) */
} red_plan;

typedef struct {
  void (*walk)(const red_plan *p, int64_t b, int64_t e, const void *in,
               void *acc);
  void (*row)(const void *in, int64_t n, void *out); /* one value */
  /* acc[i] = op(acc[i], part[i]) for i in [0, n) */
  void (*combine)(void *acc, const void *part, int64_t n);
  size_t acc_size;
} red_impl;

/* ---- float32 sums on the vector units ------------------------------------ */

/* acc[i] += x[i] (float to double), and the double sum of a row: the two
 * loops a float Sum or Mean spends its time in, on AVX-512 or AVX2 when
 * the CPU has them (tfs_cpu_has), else portable.  The row sum adds in
 * eight double lanes on every path, in the same order, so the result
 * does not depend on the path. */
__attribute__((target("avx512f"))) static void acc_f32_avx512(
    double *acc, const float *x, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    _mm512_storeu_pd(acc + i, _mm512_add_pd(_mm512_loadu_pd(acc + i),
                                            _mm512_cvtps_pd(
                                                _mm256_loadu_ps(x + i))));
  for (; i < n; i++) acc[i] += (double)x[i];
}

__attribute__((target("avx2"))) static void acc_f32_avx2(double *acc,
                                                         const float *x,
                                                         int64_t n) {
  int64_t i = 0;
  for (; i + 4 <= n; i += 4)
    _mm256_storeu_pd(acc + i, _mm256_add_pd(_mm256_loadu_pd(acc + i),
                                            _mm256_cvtps_pd(
                                                _mm_loadu_ps(x + i))));
  for (; i < n; i++) acc[i] += (double)x[i];
}

static void acc_f32(double *acc, const float *x, int64_t n) {
  if (n >= 8 && tfs_cpu_has(TFS_CPU_ISA_AVX512)) {
    acc_f32_avx512(acc, x, n);
  } else if (n >= 4 && tfs_cpu_has(TFS_CPU_ISA_AVX2)) {
    acc_f32_avx2(acc, x, n);
  } else {
    for (int64_t i = 0; i < n; i++) acc[i] += (double)x[i];
  }
}

/* acc[i] += x[r * ld + i] for the rows r in [0, rows) in order, i in [0,
 * n): the additions of `rows` calls of acc_f32, each column's sum held in
 * a register across the rows instead of loaded and stored at every row
 * (a Mean over 112 x 112 of 32 channels ran a call of eight vector steps
 * per row). */
__attribute__((target("avx512f"))) static void acc_rows_f32_avx512(
    double *acc, const float *x, int64_t rows, int64_t ld, int64_t n) {
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    __m512d a0 = _mm512_loadu_pd(acc + i), a1 = _mm512_loadu_pd(acc + i + 8);
    __m512d a2 = _mm512_loadu_pd(acc + i + 16);
    __m512d a3 = _mm512_loadu_pd(acc + i + 24);
    const float *p = x + i;
    for (int64_t r = 0; r < rows; r++, p += ld) {
      a0 = _mm512_add_pd(a0, _mm512_cvtps_pd(_mm256_loadu_ps(p)));
      a1 = _mm512_add_pd(a1, _mm512_cvtps_pd(_mm256_loadu_ps(p + 8)));
      a2 = _mm512_add_pd(a2, _mm512_cvtps_pd(_mm256_loadu_ps(p + 16)));
      a3 = _mm512_add_pd(a3, _mm512_cvtps_pd(_mm256_loadu_ps(p + 24)));
    }
    _mm512_storeu_pd(acc + i, a0);
    _mm512_storeu_pd(acc + i + 8, a1);
    _mm512_storeu_pd(acc + i + 16, a2);
    _mm512_storeu_pd(acc + i + 24, a3);
  }
  for (; i + 8 <= n; i += 8) {
    __m512d a = _mm512_loadu_pd(acc + i);
    const float *p = x + i;
    for (int64_t r = 0; r < rows; r++, p += ld)
      a = _mm512_add_pd(a, _mm512_cvtps_pd(_mm256_loadu_ps(p)));
    _mm512_storeu_pd(acc + i, a);
  }
  for (; i < n; i++) {
    double a = acc[i];
    for (int64_t r = 0; r < rows; r++) a += (double)x[r * ld + i];
    acc[i] = a;
  }
}

__attribute__((target("avx2"))) static void acc_rows_f32_avx2(
    double *acc, const float *x, int64_t rows, int64_t ld, int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    __m256d a0 = _mm256_loadu_pd(acc + i), a1 = _mm256_loadu_pd(acc + i + 4);
    __m256d a2 = _mm256_loadu_pd(acc + i + 8);
    __m256d a3 = _mm256_loadu_pd(acc + i + 12);
    const float *p = x + i;
    for (int64_t r = 0; r < rows; r++, p += ld) {
      a0 = _mm256_add_pd(a0, _mm256_cvtps_pd(_mm_loadu_ps(p)));
      a1 = _mm256_add_pd(a1, _mm256_cvtps_pd(_mm_loadu_ps(p + 4)));
      a2 = _mm256_add_pd(a2, _mm256_cvtps_pd(_mm_loadu_ps(p + 8)));
      a3 = _mm256_add_pd(a3, _mm256_cvtps_pd(_mm_loadu_ps(p + 12)));
    }
    _mm256_storeu_pd(acc + i, a0);
    _mm256_storeu_pd(acc + i + 4, a1);
    _mm256_storeu_pd(acc + i + 8, a2);
    _mm256_storeu_pd(acc + i + 12, a3);
  }
  for (; i + 4 <= n; i += 4) {
    __m256d a = _mm256_loadu_pd(acc + i);
    const float *p = x + i;
    for (int64_t r = 0; r < rows; r++, p += ld)
      a = _mm256_add_pd(a, _mm256_cvtps_pd(_mm_loadu_ps(p)));
    _mm256_storeu_pd(acc + i, a);
  }
  for (; i < n; i++) {
    double a = acc[i];
    for (int64_t r = 0; r < rows; r++) a += (double)x[r * ld + i];
    acc[i] = a;
  }
}

static void acc_rows_f32(double *acc, const float *x, int64_t rows,
                         int64_t ld, int64_t n) {
  if (n >= 8 && tfs_cpu_has(TFS_CPU_ISA_AVX512)) {
    acc_rows_f32_avx512(acc, x, rows, ld, n);
  } else if (n >= 4 && tfs_cpu_has(TFS_CPU_ISA_AVX2)) {
    acc_rows_f32_avx2(acc, x, rows, ld, n);
  } else {
    for (int64_t r = 0; r < rows; r++) acc_f32(acc, x + r * ld, n);
  }
}

/* lanes s[k] += x[i + k] for whole groups of eight, then the lanes in
 * order, then the tail: the portable loop's order */
__attribute__((target("avx512f"))) static double row_f32_avx512(
    const float *x, int64_t n) {
  __m512d s = _mm512_setzero_pd();
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    s = _mm512_add_pd(s, _mm512_cvtps_pd(_mm256_loadu_ps(x + i)));
  double l[8], r;
  _mm512_storeu_pd(l, s);
  r = l[0];
  for (int k = 1; k < 8; k++) r += l[k];
  for (; i < n; i++) r += (double)x[i];
  return r;
}

__attribute__((target("avx2"))) static double row_f32_avx2(const float *x,
                                                           int64_t n) {
  __m256d s0 = _mm256_setzero_pd(), s1 = s0;
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    s0 = _mm256_add_pd(s0, _mm256_cvtps_pd(_mm_loadu_ps(x + i)));
    s1 = _mm256_add_pd(s1, _mm256_cvtps_pd(_mm_loadu_ps(x + i + 4)));
  }
  double l[8], r;
  _mm256_storeu_pd(l, s0);
  _mm256_storeu_pd(l + 4, s1);
  r = l[0];
  for (int k = 1; k < 8; k++) r += l[k];
  for (; i < n; i++) r += (double)x[i];
  return r;
}

static double row_f32(const float *x, int64_t n) {
  if (n >= 16 && tfs_cpu_has(TFS_CPU_ISA_AVX512)) return row_f32_avx512(x, n);
  if (n >= 16 && tfs_cpu_has(TFS_CPU_ISA_AVX2)) return row_f32_avx2(x, n);
  double s[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    for (int k = 0; k < 8; k++) s[k] += (double)x[i + k];
  double r = s[0];
  for (int k = 1; k < 8; k++) r += s[k];
  for (; i < n; i++) r += (double)x[i];
  return r;
}

/* NAME: an implementation reducing T with op VOP(acc, value) in ACC,
 * whose identity is INIT. */
#define RED_IMPL(NAME, T, ACC, LOAD, VOP, INIT)                             \
  RED_IMPL_X(NAME, T, ACC, LOAD, VOP, INIT, 0, acc_f32, row_f32, acc_rows_f32)
/* FAST: 1 when T is float and the op a sum (acc_f32, row_f32 and, for
 * rows reduced over a kept last dimension, acc_rows_f32 do the loops) */
#define RED_IMPL_X(NAME, T, ACC, LOAD, VOP, INIT, FAST, FACC, FROW, FROWS) \
  static ACC NAME##_row(const T *x, int64_t n) {                            \
    if (FAST) return (ACC)FROW((const float *)(const void *)x, n);          \
    ACC s[8] = {INIT, INIT, INIT, INIT, INIT, INIT, INIT, INIT};            \
    int64_t i = 0;                                                          \
    for (; i + 8 <= n; i += 8)                                              \
      for (int k = 0; k < 8; k++) s[k] = VOP(s[k], (ACC)LOAD(x[i + k]));    \
    ACC r = s[0];                                                           \
    for (int k = 1; k < 8; k++) r = VOP(r, s[k]);                           \
    for (; i < n; i++) r = VOP(r, (ACC)LOAD(x[i]));                         \
    return r;                                                               \
  }                                                                         \
  static void NAME##_walk(const red_plan *p, int64_t b, int64_t e, int d,   \
                          const T *in, ACC *acc) {                          \
    int64_t lo = d == p->split ? b : 0;                                     \
    int64_t hi = d == p->split ? e : p->size[d];                            \
    if (FAST && d == p->n - 2 && p->red[d] && !p->red[d + 1]) {             \
      int64_t l1 = d + 1 == p->split ? b : 0;                               \
      int64_t h1 = d + 1 == p->split ? e : p->size[d + 1];                  \
      FROWS((double *)(void *)(acc + l1),                                   \
            (const float *)(const void *)(in + l1), p->size[d],             \
            p->istride[d], h1 - l1);                                        \
      return;                                                               \
    }                                                                       \
    if (d == p->n - 1) {                                                    \
      if (p->red[d]) {                                                      \
        acc[0] = VOP(acc[0], NAME##_row(in, hi));                           \
        return;                                                             \
      }                                                                     \
      if (FAST) {                                                           \
        FACC((double *)(void *)(acc + lo), (const float *)(const void *)(in + lo), \
             hi - lo);                                                      \
        return;                                                             \
      }                                                                     \
      TFS_IVDEP for (int64_t i = lo; i < hi; i++)                           \
        acc[i] = VOP(acc[i], (ACC)LOAD(in[i]));                             \
      return;                                                               \
    }                                                                       \
    for (int64_t i = lo; i < hi; i++)                                       \
      NAME##_walk(p, b, e, d + 1, in + i * p->istride[d],                   \
                  acc + i * p->ostride[d]);                                 \
  }                                                                         \
  static void NAME##_walk_v(const red_plan *p, int64_t b, int64_t e,        \
                            const void *in, void *acc) {                    \
    NAME##_walk(p, b, e, 0, (const T *)in, (ACC *)acc);                     \
  }                                                                         \
  static void NAME##_row_v(const void *in, int64_t n, void *out) {          \
    *(ACC *)out = NAME##_row((const T *)in, n);                             \
  }                                                                         \
  static void NAME##_comb_v(void *acc, const void *part, int64_t n) {       \
    ACC *a = acc;                                                           \
    const ACC *q = part;                                                    \
    for (int64_t i = 0; i < n; i++) a[i] = VOP(a[i], q[i]);                 \
  }                                                                         \
  static const red_impl NAME = {NAME##_walk_v, NAME##_row_v, NAME##_comb_v, \
                                sizeof(ACC)};

#define V_ADD(a, x) ((a) + (x))
#define V_MUL(a, x) ((a) * (x))
/* NaN-propagating: a NaN accumulator stays NaN */
#define V_FMAX(a, x) ((x) != (x) || (x) > (a) ? (x) : (a))
#define V_FMIN(a, x) ((x) != (x) || (x) < (a) ? (x) : (a))
#define V_MAX(a, x) ((x) > (a) ? (x) : (a))
#define V_MIN(a, x) ((x) < (a) ? (x) : (a))
#define V_AND(a, x) ((uint8_t)((a) & ((x) != 0)))
#define V_OR(a, x) ((uint8_t)((a) | ((x) != 0)))
#define LD_H(x) ((double)tfs_half_to_float(x))
#define LD_B(x) ((double)tfs_bf16_to_float(x))
#define LD_S(x) ((uint64_t)(int64_t)(x))

typedef double _Complex c128acc;

/* float types: double accumulators */
#define FLOAT_IMPLS(SUF, T, LOAD)                                         \
  RED_IMPL_X(sum_##SUF, T, double, LOAD, V_ADD, 0.0, SUM_FAST_##SUF,      \
             acc_f32, row_f32, acc_rows_f32)                              \
  RED_IMPL(prod_##SUF, T, double, LOAD, V_MUL, 1.0)                       \
  RED_IMPL(max_##SUF, T, double, LOAD, V_FMAX, -INFINITY)                 \
  RED_IMPL(min_##SUF, T, double, LOAD, V_FMIN, INFINITY)
#define SUM_FAST_f32 1
#define SUM_FAST_f64 0
#define SUM_FAST_f16 0
#define SUM_FAST_bf16 0
FLOAT_IMPLS(f32, float, EW_ID)
FLOAT_IMPLS(f64, double, EW_ID)
FLOAT_IMPLS(f16, uint16_t, LD_H)
FLOAT_IMPLS(bf16, uint16_t, LD_B)

/* integers: wrapping uint64 sums and products; max/min in int64 (signed)
 * or uint64 (unsigned) */
#define SIGNED_IMPLS(SUF, T)                                              \
  RED_IMPL(sum_##SUF, T, uint64_t, LD_S, V_ADD, 0)                        \
  RED_IMPL(prod_##SUF, T, uint64_t, LD_S, V_MUL, 1)                       \
  RED_IMPL(max_##SUF, T, int64_t, EW_ID, V_MAX, INT64_MIN)                \
  RED_IMPL(min_##SUF, T, int64_t, EW_ID, V_MIN, INT64_MAX)
#define UNSIGNED_IMPLS(SUF, T)                                            \
  RED_IMPL(sum_##SUF, T, uint64_t, EW_ID, V_ADD, 0)                       \
  RED_IMPL(prod_##SUF, T, uint64_t, EW_ID, V_MUL, 1)                      \
  RED_IMPL(max_##SUF, T, uint64_t, EW_ID, V_MAX, 0)                       \
  RED_IMPL(min_##SUF, T, uint64_t, EW_ID, V_MIN, UINT64_MAX)
SIGNED_IMPLS(i8, int8_t)
SIGNED_IMPLS(i16, int16_t)
SIGNED_IMPLS(i32, int32_t)
SIGNED_IMPLS(i64, int64_t)
UNSIGNED_IMPLS(u8, uint8_t)
UNSIGNED_IMPLS(u16, uint16_t)
UNSIGNED_IMPLS(u32, uint32_t)
UNSIGNED_IMPLS(u64, uint64_t)

RED_IMPL(sum_c64, tfs_c64, c128acc, EW_ID, V_ADD, 0)
RED_IMPL(prod_c64, tfs_c64, c128acc, EW_ID, V_MUL, 1)
RED_IMPL(sum_c128, tfs_c128, c128acc, EW_ID, V_ADD, 0)
RED_IMPL(prod_c128, tfs_c128, c128acc, EW_ID, V_MUL, 1)
RED_IMPL(all_b, uint8_t, uint8_t, EW_ID, V_AND, 1)

/* EuclideanNorm: sums of squares (floats in double, integers wrapping in
 * 64 bits, complex |x|^2), square-rooted by finalize.  Each square is
 * rounded to the input's type first, as TensorFlow squares in that type:
 * a float square above FLT_MAX is inf there, and here. */
#define SQ_D(x) ((double)(x) * (double)(x))
#define SQ_F(x) ((double)((float)(x) * (float)(x)))
#define SQ_H(x) ((double)tfs_half_to_float(F2H((float)(LD_H(x) * LD_H(x)))))
#define SQ_B(x) ((double)tfs_bf16_to_float(F2B((float)(LD_B(x) * LD_B(x)))))
#define SQ_S(x) (LD_S(x) * LD_S(x))
#define SQ_U(x) ((uint64_t)(x) * (uint64_t)(x))
#define SQ_C(x) ((c128acc)(SQ_D(creal(x)) + SQ_D(cimag(x))))
RED_IMPL(sq_f32, float, double, SQ_F, V_ADD, 0.0)
RED_IMPL(sq_f64, double, double, SQ_D, V_ADD, 0.0)
RED_IMPL(sq_f16, uint16_t, double, SQ_H, V_ADD, 0.0)
RED_IMPL(sq_bf16, uint16_t, double, SQ_B, V_ADD, 0.0)
RED_IMPL(sq_i8, int8_t, uint64_t, SQ_S, V_ADD, 0)
RED_IMPL(sq_i16, int16_t, uint64_t, SQ_S, V_ADD, 0)
RED_IMPL(sq_i32, int32_t, uint64_t, SQ_S, V_ADD, 0)
RED_IMPL(sq_i64, int64_t, uint64_t, SQ_S, V_ADD, 0)
RED_IMPL(sq_u8, uint8_t, uint64_t, SQ_U, V_ADD, 0)
RED_IMPL(sq_u16, uint16_t, uint64_t, SQ_U, V_ADD, 0)
RED_IMPL(sq_u32, uint32_t, uint64_t, SQ_U, V_ADD, 0)
RED_IMPL(sq_u64, uint64_t, uint64_t, SQ_U, V_ADD, 0)
RED_IMPL(sq_c64, tfs_c64, c128acc, SQ_C, V_ADD, 0)
RED_IMPL(sq_c128, tfs_c128, c128acc, SQ_C, V_ADD, 0)

static const red_impl *const kSquares[24] = {
    [TFS_FLOAT] = &sq_f32,      [TFS_DOUBLE] = &sq_f64,
    [TFS_HALF] = &sq_f16,       [TFS_BFLOAT16] = &sq_bf16,
    [TFS_INT8] = &sq_i8,        [TFS_INT16] = &sq_i16,
    [TFS_INT32] = &sq_i32,      [TFS_INT64] = &sq_i64,
    [TFS_UINT8] = &sq_u8,       [TFS_UINT16] = &sq_u16,
    [TFS_UINT32] = &sq_u32,     [TFS_UINT64] = &sq_u64,
    [TFS_COMPLEX64] = &sq_c64,  [TFS_COMPLEX128] = &sq_c128,
};
RED_IMPL(any_b, uint8_t, uint8_t, EW_ID, V_OR, 0)

#define ROW4(SUF) {&sum_##SUF, &prod_##SUF, &max_##SUF, &min_##SUF}
/* [dtype] -> {sum, prod, max, min}; NULL: unsupported */
static const red_impl *const kImpls[24][4] = {
    [TFS_FLOAT] = ROW4(f32),    [TFS_DOUBLE] = ROW4(f64),
    [TFS_HALF] = ROW4(f16),     [TFS_BFLOAT16] = ROW4(bf16),
    [TFS_INT8] = ROW4(i8),      [TFS_INT16] = ROW4(i16),
    [TFS_INT32] = ROW4(i32),    [TFS_INT64] = ROW4(i64),
    [TFS_UINT8] = ROW4(u8),     [TFS_UINT16] = ROW4(u16),
    [TFS_UINT32] = ROW4(u32),   [TFS_UINT64] = ROW4(u64),
    [TFS_COMPLEX64] = {&sum_c64, &prod_c64, NULL, NULL},
    [TFS_COMPLEX128] = {&sum_c128, &prod_c128, NULL, NULL},
};

static const red_impl *impl_for(int op, tfs_dtype dt) {
  if (op == R_ALL) return &all_b;
  if (op == R_ANY) return &any_b;
  if ((unsigned)dt >= 24) return NULL;
  if (op == R_EUCLID) return kSquares[dt];
  int k = op == R_SUM || op == R_MEAN ? 0 : op == R_PROD ? 1
          : op == R_MAX ? 2 : 3;
  return kImpls[dt][k];
}


/* ---- identities and results ----------------------------------------- */

static int is_signed_int(tfs_dtype dt) {
  return dt == TFS_INT8 || dt == TFS_INT16 || dt == TFS_INT32 ||
         dt == TFS_INT64;
}
static int is_unsigned_int(tfs_dtype dt) {
  return dt == TFS_UINT8 || dt == TFS_UINT16 || dt == TFS_UINT32 ||
         dt == TFS_UINT64;
}

/* Fills the n accumulators with the identity of (op, dtype); Max/Min of
 * an integer type start from that type's lowest/highest value, which is
 * what an empty reduction answers. */
static void fill_identity(int op, tfs_dtype dt, const red_impl *im,
                          void *acc, int64_t n) {
  unsigned char v[16];
  memset(v, 0, sizeof v);
  int bits = (int)tfs_dtype_size(dt) * 8;
  if (op == R_ALL) {
    v[0] = 1;
  } else if (op == R_PROD) {
    if (is_signed_int(dt) || is_unsigned_int(dt)) {
      uint64_t one = 1;
      memcpy(v, &one, 8);
    } else {
      double one = 1.0; /* real part of a complex too */
      memcpy(v, &one, 8);
    }
  } else if (op == R_MAX || op == R_MIN) {
    int mx = op == R_MAX;
    if (is_signed_int(dt)) {
      int64_t hi = (int64_t)(UINT64_MAX >> (65 - bits));
      int64_t x = mx ? -hi - 1 : hi;
      memcpy(v, &x, 8);
    } else if (is_unsigned_int(dt)) {
      uint64_t x = mx ? 0 : UINT64_MAX >> (64 - bits);
      memcpy(v, &x, 8);
    } else {
      double x = mx ? -INFINITY : INFINITY;
      memcpy(v, &x, 8);
    }
  }
  /* the first value, then copies of what is filled so far (a call a
   * value cost more than the reduction of a 7 x 7 x 960 Mean) */
  char *a = acc;
  size_t es = im->acc_size, have = 1;
  if (n <= 0) return;
  memcpy(a, v, es);
  while (have < (size_t)n) {
    size_t k = have < (size_t)n - have ? have : (size_t)n - have;
    memcpy(a + have * es, a, k * es);
    have += k;
  }
}

/* Integer mean: the sum in 64 bits (as TensorFlow's: a mean of int8
 * values does not wrap at 8 bits), divided by the count truncating toward
 * zero, then converted to the output type. */
static uint64_t int_mean(uint64_t sum, tfs_dtype dt, int64_t count) {
  if (count == 0) return 0;
  if (!is_signed_int(dt)) return sum / (uint64_t)count;
  return (uint64_t)((int64_t)sum / count);
}

static double fmean(double v, int op, int64_t count) {
  if (op != R_MEAN) return v;
  return count ? v / (double)count : NAN;
}

/* EuclideanNorm: the square roots of the n sums of squares, in place.
 * An integer sum wraps to the type first and its root truncates, as
 * TensorFlow's integer EuclideanNorm does (a sum that wrapped negative
 * gives 0). */
static void euclid_roots(tfs_dtype dt, void *acc, int64_t n) {
  double *d = acc;
  uint64_t *u = acc;
  c128acc *z = acc;
  int bits = (int)tfs_dtype_size(dt) * 8;
  for (int64_t i = 0; i < n; i++) {
    if (dt == TFS_FLOAT || dt == TFS_DOUBLE || dt == TFS_HALF ||
        dt == TFS_BFLOAT16) {
      d[i] = sqrt(d[i]);
    } else if (dt == TFS_COMPLEX64 || dt == TFS_COMPLEX128) {
      z[i] = sqrt(creal(z[i]));
    } else if (is_signed_int(dt)) {
      int64_t v = (int64_t)(u[i] << (64 - bits)) >> (64 - bits);
      u[i] = v < 0 ? 0 : (uint64_t)sqrt((double)v);
    } else {
      uint64_t v = bits == 64 ? u[i] : u[i] & ((1ull << bits) - 1);
      u[i] = (uint64_t)sqrt((double)v);
    }
  }
}

/* Writes the n results of type dt from the accumulators (the dtype
 * switch outside the loops). */
static void finalize(int op, tfs_dtype dt, const void *acc, void *out,
                     int64_t n, int64_t count) {
  const double *d = acc;
  const uint64_t *u = acc;
  const c128acc *z = acc;
  double scale = op == R_MEAN ? (count ? 1.0 / (double)count : NAN) : 1.0;
  int mean = op == R_MEAN;
  switch (dt) {
    case TFS_FLOAT:
      for (int64_t i = 0; i < n; i++)
        ((float *)out)[i] = (float)(mean ? fmean(d[i], op, count) : d[i]);
      return;
    case TFS_DOUBLE:
      for (int64_t i = 0; i < n; i++)
        ((double *)out)[i] = mean ? fmean(d[i], op, count) : d[i];
      return;
    case TFS_HALF:
    case TFS_BFLOAT16:
      for (int64_t i = 0; i < n; i++) {
        float v = (float)(mean ? fmean(d[i], op, count) : d[i]);
        ((uint16_t *)out)[i] = dt == TFS_HALF ? F2H(v) : F2B(v);
      }
      return;
    case TFS_COMPLEX64:
      for (int64_t i = 0; i < n; i++)
        ((tfs_c64 *)out)[i] = (tfs_c64)(z[i] * scale);
      return;
    case TFS_COMPLEX128:
      for (int64_t i = 0; i < n; i++) ((tfs_c128 *)out)[i] = z[i] * scale;
      return;
    case TFS_BOOL:
      memcpy(out, acc, (size_t)n);
      return;
    default:
      break;
  }
  size_t w = tfs_dtype_size(dt);
  for (int64_t i = 0; i < n; i++) {
    uint64_t v = mean ? int_mean(u[i], dt, count) : u[i];
    switch (w) {
      case 1: ((uint8_t *)out)[i] = (uint8_t)v; break;
      case 2: ((uint16_t *)out)[i] = (uint16_t)v; break;
      case 4: ((uint32_t *)out)[i] = (uint32_t)v; break;
      default: ((uint64_t *)out)[i] = v; break;
    }
  }
}

/* ---- planning ------------------------------------------------------- */

/* Validates the axes and computes the output shape
 * (ops/reduce_check.c, TensorFlow's messages), then builds the collapsed
 * plan. */
static int build_plan(tfs_kernel_ctx *c, const tfs_tensor *in,
                      const tfs_tensor *axes, int keep, red_plan *p,
                      tfs_shape *out) {
  int r = in->shape.rank;
  uint8_t red[TFS_MAX_RANK];
  if (tfs_reduce_check(&in->shape, axes, keep, red, out, c->st)) {
    tfs_kctx_fail_status(c, c->st);
    return -1;
  }
  p->n = 0;
  for (int d = 0; d < r; d++) {
    int64_t sz = in->shape.dims[d];
    if (sz == 1) continue;
    if (p->n && p->red[p->n - 1] == red[d]) {
      p->size[p->n - 1] *= sz;
    } else {
      p->size[p->n] = sz;
      p->red[p->n] = red[d];
      p->n++;
    }
  }
  if (p->n == 0) { /* a single element: keep it */
    p->size[0] = 1;
    p->red[0] = 0;
    p->n = 1;
  }
  int64_t is = 1, os = 1;
  p->split = -1;
  for (int d = p->n - 1; d >= 0; d--) {
    p->istride[d] = is;
    is *= p->size[d];
    p->ostride[d] = p->red[d] ? 0 : os;
    if (!p->red[d]) os *= p->size[d];
  }
  for (int d = 0; d < p->n && p->split < 0; d++)
    if (!p->red[d]) p->split = d;
  return 0;
}

/* ---- compute ---------------------------------------------------------- */

typedef struct {
  const red_plan *p;
  const red_impl *im;
  const char *in;
  char *acc;          /* outputs, or block partials of a full reduction */
  size_t es;          /* input element size */
  int64_t block;      /* full reduction: elements per block */
  int64_t total;
} red_job;

static void kept_range(void *arg, int64_t b, int64_t e) {
  red_job *j = arg;
  j->im->walk(j->p, b, e, j->in, j->acc);
}

/* Kept elements innermost, more of them than row blocks take (below):
 * threads take chunks of KEPT_CHUNK contiguous outputs, so each reads
 * whole runs of every row rather than a few of its elements.  Each output
 * is summed in row order: the result does not depend on the thread
 * count. */
#define KEPT_CHUNK 64

static void kept_chunk_range(void *arg, int64_t b, int64_t e) {
  red_job *j = arg;
  int64_t size = j->p->size[j->p->split];
  int64_t hi = e * KEPT_CHUNK < size ? e * KEPT_CHUNK : size;
  j->im->walk(j->p, b * KEPT_CHUNK, hi, j->in, j->acc);
}

/* Kept elements innermost, up to KEPT_ROWS_COLS of them (a Mean over H
 * and W of NHWC: a rows x cols matrix once the axes are merged): blocks
 * of rows, at most ROW_BLOCKS and at least ROW_BLOCK_MIN elements each
 * (the last shorter), each summed in row order into its own
 * accumulators, the first block's into the result, into which the
 * others are then combined in block order.  The blocks depend on the
 * shape alone, so the result does not depend on the thread count.  Cut
 * by rows, each thread reads the rows that the same thread most likely
 * wrote (convolutions cut their outputs by rows): the squeeze-and-
 * excitation Means of MobileNetV3Large and EfficientNetB0 at batch 1, cut
 * into chunks of 64 channels or left to one thread, read half their input
 * from the other core's cache on two threads and took about twice as
 * long as on one (14 x 14 x 672: 30 us against 12).  An element's cost
 * counts those reads (1 ns), so that small ones are shared too. */
#define ROW_BLOCKS 16
#define ROW_BLOCK_MIN 32768
#define KEPT_ROWS_COLS 4096

typedef struct {
  const red_job *j;
  char *parts; /* one row of accumulators a block but the first (j->acc) */
  int64_t rows, cols, per; /* per: rows a block */
} rows_job;

static void rows_range(void *arg, int64_t b, int64_t e) {
  const rows_job *r = arg;
  const red_plan *p = r->j->p;
  for (int64_t k = b; k < e; k++) {
    red_plan q = *p;
    int64_t r0 = k * r->per;
    q.size[0] = r->rows - r0 < r->per ? r->rows - r0 : r->per;
    char *acc = k == 0 ? r->j->acc
                       : r->parts + (size_t)((k - 1) * r->cols) *
                                        r->j->im->acc_size;
    r->j->im->walk(&q, 0, r->cols,
                   r->j->in + (size_t)(r0 * p->istride[0]) * r->j->es, acc);
  }
}

static void block_range(void *arg, int64_t b, int64_t e) {
  red_job *j = arg;
  for (int64_t k = b; k < e; k++) {
    int64_t lo = k * j->block;
    int64_t n = j->total - lo < j->block ? j->total - lo : j->block;
    j->im->row(j->in + (size_t)lo * j->es, n,
               j->acc + (size_t)k * j->im->acc_size);
  }
}

#define MAX_BLOCKS 64
#define BLOCK_MIN 16384

typedef struct {
  int op;
  int keep;
} red_state;

static void reduce_compute(tfs_kernel_ctx *c) {
  const red_state *s = c->state;
  const tfs_tensor *in = c->inputs[0], *axes = c->inputs[1];
  red_plan p;
  tfs_shape os;
  if (build_plan(c, in, axes, s->keep, &p, &os)) return;
  const red_impl *im = impl_for(s->op, in->dtype);
  if (!im) {
    tfs_kctx_fail(c, TFS_UNIMPLEMENTED, "%s is not implemented for %s",
                  c->op_name, tfs_dtype_name(in->dtype));
    return;
  }
  tfs_tensor *o = tfs_kctx_alloc_output(c, 0, &os);
  if (!o) return;
  int64_t on = o->nelems;
  if (on == 0) return;
  int64_t count = in->nelems / on;
  char *acc = tfs_kctx_scratch(c, (size_t)on * im->acc_size);
  if (!acc) return;
  fill_identity(s->op, in->dtype, im, acc, on);
  size_t es = tfs_dtype__storage_size(in->dtype);
  if (in->nelems > 0 && p.split >= 0) {
    red_job j = {&p, im, in->data, acc, es, 0, 0};
    int64_t per = in->nelems / p.size[p.split];
    if (p.n == 2 && p.split == 1 && on <= KEPT_ROWS_COLS) {
      int64_t brows = (p.size[0] + ROW_BLOCKS - 1) / ROW_BLOCKS;
      if (brows * on < ROW_BLOCK_MIN) brows = (ROW_BLOCK_MIN + on - 1) / on;
      int64_t nb = (p.size[0] + brows - 1) / brows;
      /* the first block sums into acc, the others into partials that
       * are then combined into it in block order */
      char *parts =
          tfs_kctx_scratch(c, (size_t)((nb - 1) * on + 1) * im->acc_size);
      if (!parts) return;
      fill_identity(s->op, in->dtype, im, parts, (nb - 1) * on);
      rows_job r = {&j, parts, p.size[0], on, brows};
      tfs_kctx_parallel_for(c, nb, brows * on, rows_range, &r);
      for (int64_t k = 1; k < nb; k++)
        im->combine(acc, parts + (size_t)((k - 1) * on) * im->acc_size, on);
    } else if (p.split == p.n - 1 && p.split > 0) {
      int64_t units = (p.size[p.split] + KEPT_CHUNK - 1) / KEPT_CHUNK;
      /* contiguous runs add at about four elements a nanosecond */
      tfs_kctx_parallel_for(c, units, per * KEPT_CHUNK / 4, kept_chunk_range,
                            &j);
    } else {
      tfs_kctx_parallel_for(c, p.size[p.split], per, kept_range, &j);
    }
  } else if (in->nelems > 0) {
    /* everything reduces to one value: blocks, then their partials */
    _Alignas(16) unsigned char parts[MAX_BLOCKS * 16];
    int64_t nb = in->nelems / BLOCK_MIN;
    nb = nb < 1 ? 1 : nb > MAX_BLOCKS ? MAX_BLOCKS : nb;
    red_job j = {&p, im, in->data, (char *)parts, es,
                 (in->nelems + nb - 1) / nb, in->nelems};
    nb = (in->nelems + j.block - 1) / j.block;
    tfs_kctx_parallel_for(c, nb, j.block, block_range, &j);
    for (int64_t k = 0; k < nb; k++)
      im->combine(acc, parts + (size_t)k * im->acc_size, 1);
  }
  if (s->op == R_EUCLID) euclid_roots(in->dtype, acc, on);
  finalize(s->op == R_EUCLID ? R_SUM : s->op, in->dtype, acc, o->data, on,
           count);
}

static int reduce_prepare(tfs_kernel_init *ki) {
  static const struct {
    const char *name;
    int op;
  } kOps[] = {{"Sum", R_SUM}, {"Mean", R_MEAN}, {"Prod", R_PROD},
              {"Max", R_MAX}, {"Min", R_MIN},   {"All", R_ALL},
              {"Any", R_ANY},   {"EuclideanNorm", R_EUCLID}};
  red_state *s = tfs_calloc(1, sizeof(*s));
  if (!s) return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  for (size_t i = 0; i < TFS_ARRAY_LEN(kOps); i++)
    if (strcmp(ki->op->name, kOps[i].name) == 0) s->op = kOps[i].op;
  tfs_attrs_get_bool(ki->attrs, "keep_dims", &s->keep);
  ki->state = s;
  return 0;
}

#define SUM_T (TFS_DT_FLOATS | EW_DT_COMPLEX | EW_DT_SIGNED | EW_DT_UNSIGNED)
#define MAX_T (TFS_DT_FLOATS | EW_DT_SIGNED | EW_DT_UNSIGNED)
#define RED(OP, TYPES)                                                  \
  {OP, "CPU", "T", TYPES, reduce_prepare, reduce_compute, free, 0, NULL}

const tfs_kernel_def tfs_cpu_kernels_reduce[] = {
    RED("Sum", SUM_T),
    RED("Mean", SUM_T),
    RED("Prod", SUM_T),
    RED("Max", MAX_T),
    RED("Min", MAX_T),
    RED("EuclideanNorm", SUM_T),
    {"All", "CPU", NULL, 0, reduce_prepare, reduce_compute, free, 0, NULL},
    {"Any", "CPU", NULL, 0, reduce_prepare, reduce_compute, free, 0, NULL},
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL},
};
