/*
 * backends/cpu/vmath_avx2.c - vmath.h's functions on AVX2 with FMA: two
 * vectors of eight floats a step (VM_LOOP), the tail through a
 * zero-padded block on the stack.
 * vmath.c calls these only when tfs_cpu_has(TFS_CPU_ISA_AVX2).
 */
/* see VM_LOOP */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("schedule-insns", "sched-pressure")
#endif
#include <immintrin.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "backends/cpu/vmath.h"

#define TGT __attribute__((target("avx2,fma")))
#define VM_FN static inline TGT

typedef __m256 vf;
typedef __m256i vi;
typedef __m256 vm;

VM_FN vf v_set(float a) { return _mm256_set1_ps(a); }
VM_FN vi v_seti(int32_t a) { return _mm256_set1_epi32(a); }
VM_FN vf v_add(vf a, vf b) { return _mm256_add_ps(a, b); }
VM_FN vf v_sub(vf a, vf b) { return _mm256_sub_ps(a, b); }
VM_FN vf v_mul(vf a, vf b) { return _mm256_mul_ps(a, b); }
VM_FN vf v_div(vf a, vf b) { return _mm256_div_ps(a, b); }
VM_FN vf v_fma(vf a, vf b, vf c) { return _mm256_fmadd_ps(a, b, c); }
VM_FN vf v_min(vf a, vf b) { return _mm256_min_ps(a, b); }
VM_FN vf v_max(vf a, vf b) { return _mm256_max_ps(a, b); }
VM_FN vi v_asi(vf a) { return _mm256_castps_si256(a); }
VM_FN vf v_asf(vi a) { return _mm256_castsi256_ps(a); }
VM_FN vf v_abs(vf a) {
  return v_asf(_mm256_and_si256(v_asi(a), v_seti(0x7fffffff)));
}
VM_FN vf v_sign(vf a) {
  return v_asf(_mm256_and_si256(v_asi(a), v_seti((int32_t)0x80000000u)));
}
VM_FN vf v_or(vf a, vf b) { return _mm256_or_ps(a, b); }
VM_FN vm v_lt(vf a, vf b) { return _mm256_cmp_ps(a, b, _CMP_LT_OQ); }
VM_FN vm v_ge(vf a, vf b) { return _mm256_cmp_ps(a, b, _CMP_GE_OQ); }
VM_FN vm v_eq(vf a, vf b) { return _mm256_cmp_ps(a, b, _CMP_EQ_OQ); }
VM_FN vm v_nan(vf a) { return _mm256_cmp_ps(a, a, _CMP_UNORD_Q); }
VM_FN vf v_sel(vm m, vf a, vf b) { return _mm256_blendv_ps(b, a, m); }
VM_FN vi v_iadd(vi a, vi b) { return _mm256_add_epi32(a, b); }
VM_FN vi v_isub(vi a, vi b) { return _mm256_sub_epi32(a, b); }
VM_FN vi v_iand(vi a, vi b) { return _mm256_and_si256(a, b); }
VM_FN vi v_imin(vi a, vi b) { return _mm256_min_epi32(a, b); }
#define v_sll(a, k) _mm256_slli_epi32(a, k)
#define v_sra(a, k) _mm256_srai_epi32(a, k)
VM_FN vf v_i2f(vi a) { return _mm256_cvtepi32_ps(a); }
VM_FN vf v_pow2(vi n) { return v_asf(v_sll(v_iadd(n, v_seti(127)), 23)); }
/* y 2^n as y 2^(n/2) 2^(n - n/2): both factors normal, the first product
 * exact, so one rounding (as AVX-512's scalef) */
VM_FN vf v_scale(vf y, vf nf, vi ni) {
  (void)nf;
  vi n1 = v_sra(ni, 1);
  return v_mul(v_mul(y, v_pow2(n1)), v_pow2(v_isub(ni, n1)));
}

#include "backends/cpu/vmath_kern.h"

/* Two vectors an iteration, and GCC's scheduling before register
 * allocation (the pragma above; off by default on x86) interleaves their
 * two dependency chains: each function is one chain of 60-80 cycles, and
 * on Zen 3 a lone chain leaves the FP scheduler waiting (the old and the
 * new loop side by side in one program, 8192 floats: exp 1.14x, sigmoid
 * 1.16x, swish 1.14x, tanh 1.11x, gelu_erf 1.20x as fast; 1.05-1.20x at
 * 64 and 100,000; the unrolling alone gained nothing measurable).  The
 * same operations on each element, so the same bits, but for the sign of
 * a NaN gelu_erf returns for a negative NaN (x86 propagates the first
 * NaN operand, and operand order is the compiler's). */
#define VM_LOOP(NAME)                                                      \
  TGT void tfs_vm__##NAME##_avx2(const float *x, float *y, int64_t n) {    \
    int64_t i = 0;                                                         \
    for (; i + 16 <= n; i += 16) {                                         \
      vf a = vk_##NAME(_mm256_loadu_ps(x + i));                            \
      vf b = vk_##NAME(_mm256_loadu_ps(x + i + 8));                        \
      _mm256_storeu_ps(y + i, a);                                          \
      _mm256_storeu_ps(y + i + 8, b);                                      \
    }                                                                      \
    for (; i + 8 <= n; i += 8)                                             \
      _mm256_storeu_ps(y + i, vk_##NAME(_mm256_loadu_ps(x + i)));          \
    if (i < n) {                                                           \
      float t[8] = {0};                                                    \
      memcpy(t, x + i, sizeof(float) * (size_t)(n - i));                   \
      _mm256_storeu_ps(t, vk_##NAME(_mm256_loadu_ps(t)));                  \
      memcpy(y + i, t, sizeof(float) * (size_t)(n - i));                   \
    }                                                                      \
  }
TFS_VM_FUNCS(VM_LOOP)
