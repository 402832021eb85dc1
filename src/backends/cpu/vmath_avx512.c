/*
 * backends/cpu/vmath_avx512.c - vmath.h's functions on AVX-512 F: sixteen
 * floats a step, the tail through masked loads and stores.  vmath.c calls
 * these only when tfs_cpu_has(TFS_CPU_ISA_AVX512).
 */
#include <immintrin.h>
#include <math.h>
#include <stdint.h>

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

/* Each vector's exponentials stored and added into two float
 * accumulators, which go into a double every 64 vectors (each lane sums
 * at most 32 values in float: 0.273 -> 0.18 ns a float against adding
 * every vector in double); the tail's masked-off lanes count as 0. */
TGT double tfs_vm__exp_shifted_sum_avx512(const float *x, float *y,
                                          int64_t n, float shift) {
  const vf sh = v_set(shift);
  double sum = 0.0;
  int64_t i = 0;
  while (i + 16 <= n) {
    vf a0 = _mm512_setzero_ps(), a1 = _mm512_setzero_ps();
    int64_t end = i + 64 * 16 < n ? i + 64 * 16 : n;
    for (; i + 32 <= end; i += 32) {
      vf e0 = vk_exp(v_sub(_mm512_loadu_ps(x + i), sh));
      vf e1 = vk_exp(v_sub(_mm512_loadu_ps(x + i + 16), sh));
      _mm512_storeu_ps(y + i, e0);
      _mm512_storeu_ps(y + i + 16, e1);
      a0 = v_add(a0, e0);
      a1 = v_add(a1, e1);
    }
    if (i + 16 <= end) {
      vf e0 = vk_exp(v_sub(_mm512_loadu_ps(x + i), sh));
      _mm512_storeu_ps(y + i, e0);
      a0 = v_add(a0, e0);
      i += 16;
    }
    sum += (double)_mm512_reduce_add_ps(v_add(a0, a1));
  }
  if (i < n) {
    vm m = (vm)((1u << (n - i)) - 1u);
    vf e = _mm512_maskz_mov_ps(
        m, vk_exp(v_sub(_mm512_maskz_loadu_ps(m, x + i), sh)));
    _mm512_mask_storeu_ps(y + i, m, e);
    sum += (double)_mm512_reduce_add_ps(e);
  }
  return sum;
}
