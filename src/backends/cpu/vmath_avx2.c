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

/* Four vectors an iteration, and GCC's scheduling before register
 * allocation (the pragma above; off by default on x86) interleaves their
 * four dependency chains: each function is one chain of 60-80 cycles, and
 * on Zen 3 a lone chain leaves the FP scheduler waiting (swish over 4096
 * floats: 0.64 ns a float two vectors a step, 0.56 four).  The same
 * operations on each element, so the same bits, but for the sign of a NaN
 * gelu_erf returns for a negative NaN (x86 propagates the first NaN
 * operand, and operand order is the compiler's).
 *
 * FAST(a) is NAME's form for lanes whose |x| is within BOUND (sigmoid,
 * swish and gelu_tanh: vmath_kern.h's vk_sigmoid_mid, 1 / (1 + e^-x)
 * with 2^n added to e^-x's exponent), taken by a block of 32 floats or a
 * vector whose every lane is within; the general form takes it lane by
 * lane within the bound, so the bits are the same either way.  The
 * others pass BOUND 0 and never do. */
#define VM_LOOP(NAME, FAST, BOUND)                                         \
  TGT void tfs_vm__##NAME##_avx2(const float *x, float *y, int64_t n) {    \
    int64_t i = 0;                                                         \
    for (; i + 32 <= n; i += 32) {                                         \
      vf a = _mm256_loadu_ps(x + i), b = _mm256_loadu_ps(x + i + 8);       \
      vf c = _mm256_loadu_ps(x + i + 16), d = _mm256_loadu_ps(x + i + 24); \
      if ((BOUND) > 0.0f && vm_within(a, b, c, d, (BOUND))) {              \
        a = FAST(a), b = FAST(b), c = FAST(c), d = FAST(d);                \
      } else {                                                             \
        a = vk_##NAME(a), b = vk_##NAME(b);                                \
        c = vk_##NAME(c), d = vk_##NAME(d);                                \
      }                                                                    \
      _mm256_storeu_ps(y + i, a);                                          \
      _mm256_storeu_ps(y + i + 8, b);                                      \
      _mm256_storeu_ps(y + i + 16, c);                                     \
      _mm256_storeu_ps(y + i + 24, d);                                     \
    }                                                                      \
    for (; i + 8 <= n; i += 8) {                                           \
      vf a = _mm256_loadu_ps(x + i);                                       \
      a = (BOUND) > 0.0f && vm_within1(a, (BOUND)) ? FAST(a) : vk_##NAME(a); \
      _mm256_storeu_ps(y + i, a);                                          \
    }                                                                      \
    if (i < n) {                                                           \
      float t[8] = {0};                                                    \
      memcpy(t, x + i, sizeof(float) * (size_t)(n - i));                   \
      vf a = _mm256_loadu_ps(t);                                           \
      a = (BOUND) > 0.0f && vm_within1(a, (BOUND)) ? FAST(a) : vk_##NAME(a); \
      _mm256_storeu_ps(t, a);                                              \
      memcpy(y + i, t, sizeof(float) * (size_t)(n - i));                   \
    }                                                                      \
  }

/* |x| <= bound in every lane of a..d, compared as bits (a float max
 * would let a NaN lane hide an infinite one); NaN lanes are not within */
VM_FN int vm_within(vf a, vf b, vf c, vf d, float bound) {
  vi m = _mm256_max_epi32(_mm256_max_epi32(v_asi(v_abs(a)), v_asi(v_abs(b))),
                          _mm256_max_epi32(v_asi(v_abs(c)), v_asi(v_abs(d))));
  return _mm256_testz_si256(_mm256_cmpgt_epi32(m, v_asi(v_set(bound))),
                            _mm256_cmpgt_epi32(m, v_asi(v_set(bound))));
}

/* the same for one vector */
VM_FN int vm_within1(vf a, float bound) {
  vi m = _mm256_cmpgt_epi32(v_asi(v_abs(a)), v_asi(v_set(bound)));
  return _mm256_testz_si256(m, m);
}

VM_LOOPS(VM_LOOP)

/* The sum of a's lanes, in float. */
VM_FN float vm_hsum(vf a) {
  __m128 h = _mm_add_ps(_mm256_castps256_ps128(a), _mm256_extractf128_ps(a, 1));
  h = _mm_add_ps(h, _mm_movehl_ps(h, h));
  return _mm_cvtss_f32(_mm_add_ss(h, _mm_movehdup_ps(h)));
}

/* As the AVX-512 one: two float accumulators, into a double every 64
 * vectors; the tail through a zeroed buffer, its unused lanes 0. */
TGT double tfs_vm__exp_shifted_sum_avx2(const float *x, float *y, int64_t n,
                                        float shift) {
  const vf sh = v_set(shift);
  double sum = 0.0;
  int64_t i = 0;
  while (i + 8 <= n) {
    vf a0 = _mm256_setzero_ps(), a1 = _mm256_setzero_ps();
    int64_t end = i + 64 * 8 < n ? i + 64 * 8 : n;
    for (; i + 16 <= end; i += 16) {
      vf e0 = vk_exp(v_sub(_mm256_loadu_ps(x + i), sh));
      vf e1 = vk_exp(v_sub(_mm256_loadu_ps(x + i + 8), sh));
      _mm256_storeu_ps(y + i, e0);
      _mm256_storeu_ps(y + i + 8, e1);
      a0 = v_add(a0, e0);
      a1 = v_add(a1, e1);
    }
    if (i + 8 <= end) {
      vf e0 = vk_exp(v_sub(_mm256_loadu_ps(x + i), sh));
      _mm256_storeu_ps(y + i, e0);
      a0 = v_add(a0, e0);
      i += 8;
    }
    sum += (double)vm_hsum(v_add(a0, a1));
  }
  if (i < n) {
    float t[8] = {0};
    memcpy(t, x + i, sizeof(float) * (size_t)(n - i));
    _mm256_storeu_ps(t, vk_exp(v_sub(_mm256_loadu_ps(t), sh)));
    memcpy(y + i, t, sizeof(float) * (size_t)(n - i));
    for (int64_t k = n - i; k < 8; k++) t[k] = 0.0f;
    sum += (double)vm_hsum(_mm256_loadu_ps(t));
  }
  return sum;
}
