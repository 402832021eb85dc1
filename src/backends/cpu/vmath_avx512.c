/*
 * backends/cpu/vmath_avx512.c - vmath.h's functions on AVX-512 F: sixteen
 * floats a step, the tail through masked loads and stores.  vmath.c calls
 * these only when tfs_cpu_has(TFS_CPU_ISA_AVX512).
 */
#include <immintrin.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "backends/cpu/bf16_vec.h"
#include "backends/cpu/vmath.h"

#define TGT __attribute__((target("avx512f")))
#define VM_FN static inline TGT

typedef __m512 vf;
typedef __m512i vi;
typedef __mmask16 vm;

VM_FN vf v_set(float a) { return _mm512_set1_ps(a); }
VM_FN vi v_seti(int32_t a) { return _mm512_set1_epi32(a); }
VM_FN vf v_add(vf a, vf b) { return _mm512_add_ps(a, b); }
VM_FN vf v_sub(vf a, vf b) { return _mm512_sub_ps(a, b); }
VM_FN vf v_mul(vf a, vf b) { return _mm512_mul_ps(a, b); }
VM_FN vf v_div(vf a, vf b) { return _mm512_div_ps(a, b); }
VM_FN vf v_fma(vf a, vf b, vf c) { return _mm512_fmadd_ps(a, b, c); }
VM_FN vf v_min(vf a, vf b) { return _mm512_min_ps(a, b); }
VM_FN vf v_max(vf a, vf b) { return _mm512_max_ps(a, b); }
VM_FN vi v_asi(vf a) { return _mm512_castps_si512(a); }
VM_FN vf v_asf(vi a) { return _mm512_castsi512_ps(a); }
VM_FN vf v_abs(vf a) {
  return v_asf(_mm512_and_epi32(v_asi(a), v_seti(0x7fffffff)));
}
VM_FN vf v_sign(vf a) {
  return v_asf(_mm512_and_epi32(v_asi(a), v_seti((int32_t)0x80000000u)));
}
VM_FN vf v_or(vf a, vf b) { return v_asf(_mm512_or_epi32(v_asi(a), v_asi(b))); }
VM_FN vm v_lt(vf a, vf b) { return _mm512_cmp_ps_mask(a, b, _CMP_LT_OQ); }
VM_FN vm v_ge(vf a, vf b) { return _mm512_cmp_ps_mask(a, b, _CMP_GE_OQ); }
VM_FN vm v_eq(vf a, vf b) { return _mm512_cmp_ps_mask(a, b, _CMP_EQ_OQ); }
VM_FN vm v_nan(vf a) { return _mm512_cmp_ps_mask(a, a, _CMP_UNORD_Q); }
VM_FN vf v_sel(vm m, vf a, vf b) { return _mm512_mask_blend_ps(m, b, a); }
VM_FN vi v_iadd(vi a, vi b) { return _mm512_add_epi32(a, b); }
VM_FN vi v_isub(vi a, vi b) { return _mm512_sub_epi32(a, b); }
VM_FN vi v_iand(vi a, vi b) { return _mm512_and_epi32(a, b); }
VM_FN vi v_imin(vi a, vi b) { return _mm512_min_epi32(a, b); }
#define v_sll(a, k) _mm512_slli_epi32(a, k)
#define v_sra(a, k) _mm512_srai_epi32(a, k)
VM_FN vf v_i2f(vi a) { return _mm512_cvtepi32_ps(a); }
VM_FN vf v_pow2(vi n) { return v_asf(v_sll(v_iadd(n, v_seti(127)), 23)); }
/* one rounding, as the portable two-step product */
VM_FN vf v_scale(vf y, vf nf, vi ni) {
  (void)ni;
  return _mm512_scalef_ps(y, nf);
}

#include "backends/cpu/vmath_kern.h"

/* |x| <= bound in every lane, compared as bits (NaN lanes are not) */
VM_FN int vm_within(vf a, float bound) {
  return _mm512_cmp_epi32_mask(v_asi(v_abs(a)), v_asi(v_set(bound)),
                               _MM_CMPINT_LE) == (vm)0xffff;
}

/* FAST(a): NAME's form for vectors whose every |x| is within BOUND
 * (sigmoid, swish, tanh-GELU: vmath_kern.h's vk_sigmoid_mid, which each
 * lane of the general form also takes within it, so the same bits); the
 * others pass BOUND 0 and never take it.  The tail's masked-off lanes
 * load as zeros, within any bound. */
#define VM_LOOP(NAME, FAST, BOUND)                                         \
  TGT void tfs_vm__##NAME##_avx512(const float *x, float *y, int64_t n) {  \
    int64_t i = 0;                                                         \
    for (; i + 16 <= n; i += 16) {                                         \
      vf a = _mm512_loadu_ps(x + i);                                       \
      a = (BOUND) > 0.0f && vm_within(a, (BOUND)) ? FAST(a) : vk_##NAME(a); \
      _mm512_storeu_ps(y + i, a);                                          \
    }                                                                      \
    if (i < n) {                                                           \
      vm m = (vm)((1u << (n - i)) - 1u);                                   \
      vf a = _mm512_maskz_loadu_ps(m, x + i);                              \
      a = (BOUND) > 0.0f && vm_within(a, (BOUND)) ? FAST(a) : vk_##NAME(a); \
      _mm512_mask_storeu_ps(y + i, m, a);                                  \
    }                                                                      \
  }

VM_LOOPS(VM_LOOP)

/* Sixteen bfloat16 at p, widened (exact). */
VM_FN vf ld_bf16(const uint16_t *p) {
  __m256i h = _mm256_loadu_si256((const __m256i *)p);
  return v_asf(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16));
}

/* Row x (float, or bfloat16 when bf) at i: a whole vector, or the k < 16
 * elements under mask m with zeros in the other lanes (bfloat16 through
 * a copy: AVX-512 F has no 16-bit masked load). */
VM_FN vf ld_row(const void *x, const int bf, int64_t i) {
  return bf ? ld_bf16((const uint16_t *)x + i)
            : _mm512_loadu_ps((const float *)x + i);
}
VM_FN vf ld_row_part(const void *x, const int bf, int64_t i, vm m,
                     int64_t k) {
  if (!bf) return _mm512_maskz_loadu_ps(m, (const float *)x + i);
  uint16_t b[16] = {0};
  memcpy(b, (const uint16_t *)x + i, sizeof(uint16_t) * (size_t)k);
  return ld_bf16(b);
}

/* Each vector's exponentials stored and added into two float
 * accumulators, which go into a double every 64 vectors (each lane sums
 * at most 32 values in float: 0.273 -> 0.18 ns a float against adding
 * every vector in double); the tail's masked-off lanes count as 0.  One
 * body for float rows and, widened as they load, bfloat16 rows. */
static inline TGT __attribute__((always_inline)) double exp_sum(
    const void *x, const int bf, float *y, int64_t n, float shift) {
  const vf sh = v_set(shift);
  double sum = 0.0;
  int64_t i = 0;
  while (i + 16 <= n) {
    vf a0 = _mm512_setzero_ps(), a1 = _mm512_setzero_ps();
    int64_t end = i + 64 * 16 < n ? i + 64 * 16 : n;
    for (; i + 32 <= end; i += 32) {
      vf e0 = vk_exp(v_sub(ld_row(x, bf, i), sh));
      vf e1 = vk_exp(v_sub(ld_row(x, bf, i + 16), sh));
      _mm512_storeu_ps(y + i, e0);
      _mm512_storeu_ps(y + i + 16, e1);
      a0 = v_add(a0, e0);
      a1 = v_add(a1, e1);
    }
    if (i + 16 <= end) {
      vf e0 = vk_exp(v_sub(ld_row(x, bf, i), sh));
      _mm512_storeu_ps(y + i, e0);
      a0 = v_add(a0, e0);
      i += 16;
    }
    sum += (double)_mm512_reduce_add_ps(v_add(a0, a1));
  }
  if (i < n) {
    vm m = (vm)((1u << (n - i)) - 1u);
    vf e = _mm512_maskz_mov_ps(
        m, vk_exp(v_sub(ld_row_part(x, bf, i, m, n - i), sh)));
    _mm512_mask_storeu_ps(y + i, m, e);
    sum += (double)_mm512_reduce_add_ps(e);
  }
  return sum;
}

TGT double tfs_vm__exp_shifted_sum_avx512(const float *x, float *y,
                                          int64_t n, float shift) {
  return exp_sum(x, 0, y, n, shift);
}

/* The largest element of row x where none is NaN (row_ops.h's
 * tfs_row_max_f32; the sign of a zero maximum does not change e^(x -
 * max)).  A NaN is not tracked: its e^(x - max) makes the sum, and so
 * every value of the row, NaN whatever the maximum. */
static inline TGT __attribute__((always_inline)) float row_max(
    const void *x, const int bf, int64_t n) {
  vf m0 = v_set(-INFINITY), m1 = m0;
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    m0 = v_max(m0, ld_row(x, bf, i));
    m1 = v_max(m1, ld_row(x, bf, i + 16));
  }
  for (; i + 16 <= n; i += 16) m0 = v_max(m0, ld_row(x, bf, i));
  if (i < n) {
    vm m = (vm)((1u << (n - i)) - 1u);
    m1 = _mm512_mask_max_ps(m1, m, m1, ld_row_part(x, bf, i, m, n - i));
  }
  return _mm512_reduce_max_ps(v_max(m0, m1));
}

/* e times s into y: floats in place (e is y), or rounded to bfloat16. */
static inline TGT __attribute__((always_inline)) void scale_out(
    const float *e, void *y, int64_t n, const int bf, double sum) {
  const vf s = v_set((float)(1.0 / sum));
  int64_t i = 0;
  if (!bf) {
    float *o = y;
    for (; i + 16 <= n; i += 16)
      _mm512_storeu_ps(o + i, v_mul(_mm512_loadu_ps(e + i), s));
    if (i < n) {
      vm m = (vm)((1u << (n - i)) - 1u);
      _mm512_mask_storeu_ps(o + i, m,
                            v_mul(_mm512_maskz_loadu_ps(m, e + i), s));
    }
    return;
  }
  uint16_t *o = y;
  for (; i + 16 <= n; i += 16) {
    __m512i r = tfs_bf16_round16(v_asi(v_mul(_mm512_loadu_ps(e + i), s)));
    _mm256_storeu_si256((__m256i *)(o + i), _mm512_cvtepi32_epi16(r));
  }
  if (i < n) {
    vm m = (vm)((1u << (n - i)) - 1u);
    __m512i r =
        tfs_bf16_round16(v_asi(v_mul(_mm512_maskz_loadu_ps(m, e + i), s)));
    _mm512_mask_cvtepi32_storeu_epi16(o + i, m, r);
  }
}

/* Softmax of `rows` rows of n, each in three passes: the maximum, the
 * exponentials and their sum into e (the output row for floats, tmp for
 * bfloat16), then e times 1 / sum into the row (rounded to bfloat16 for
 * bfloat16 rows).  Rows go in pairs, each pass of one row beside the same
 * pass of the other: a row's passes wait on its maximum, its sum and
 * 1 / sum, and the other row's work fills those waits.  Rows of 128 on an
 * AMX Xeon, against the composition of row_ops.h / vmath.h / bf16_convert.h
 * calls: float 64 -> 48 ns, bfloat16 92 -> 58 ns (one row at a time 52
 * and 84; four at a time no faster). */
static inline TGT __attribute__((always_inline)) void softmax_rows(
    const void *x, void *y, int64_t rows, int64_t n, const int bf,
    float *tmp) {
  const size_t w = bf ? sizeof(uint16_t) : sizeof(float);
  const char *xb = x;
  char *yb = y;
  int64_t r = 0;
  for (; r + 2 <= rows; r += 2) {
    const void *x0 = xb + (size_t)r * n * w, *x1 = xb + (size_t)(r + 1) * n * w;
    void *y0 = yb + (size_t)r * n * w, *y1 = yb + (size_t)(r + 1) * n * w;
    float *e0 = bf ? tmp : y0, *e1 = bf ? tmp + n : y1;
    float m0 = row_max(x0, bf, n), m1 = row_max(x1, bf, n);
    double s0 = exp_sum(x0, bf, e0, n, m0), s1 = exp_sum(x1, bf, e1, n, m1);
    scale_out(e0, y0, n, bf, s0);
    scale_out(e1, y1, n, bf, s1);
  }
  if (r < rows) {
    const void *x0 = xb + (size_t)r * n * w;
    void *y0 = yb + (size_t)r * n * w;
    float *e0 = bf ? tmp : y0;
    scale_out(e0, y0, n, bf, exp_sum(x0, bf, e0, n, row_max(x0, bf, n)));
  }
}

TGT void tfs_vm__softmax_avx512(const void *x, void *y, int64_t rows,
                                int64_t n, int bf, float *tmp) {
  if (bf)
    softmax_rows(x, y, rows, n, 1, tmp);
  else
    softmax_rows(x, y, rows, n, 0, NULL);
}
