/*
 * backends/cpu/bf16_convert.c - float32 <-> bfloat16 arrays (see
 * bf16_convert.h).  The vector forms do in integer lanes what
 * tfs_float_to_bf16 does: add 0x7fff plus the kept half's lowest bit and
 * keep the high half, or, for a NaN, keep the high half with the quiet
 * bit set.  The AVX-512 and AVX2 bodies are compiled with function
 * attributes and chosen at each call; where the CPU has AVX512_BF16,
 * float32 to bfloat16 takes its vcvtneps2bf16 (the same rounding in one
 * instruction: 0.093 -> 0.067 ns a float in cache on an AMX Xeon), a
 * vector with a subnormal input the integer form.
 */
#include "backends/cpu/bf16_convert.h"

#include <stdatomic.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define TFS_BF16_X86 1

#include "backends/cpu/bf16_vec.h"
#endif

#include "core/cpu.h"
#include "core/half.h"

#ifdef TFS_BF16_X86
#define AVX512 __attribute__((target("avx512f")))
#define AVX2 __attribute__((target("avx2")))

static AVX512 int64_t from_f32_avx512(const float *src, uint16_t *dst,
                                      int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    __m512i u = _mm512_castps_si512(_mm512_loadu_ps(src + i));
    _mm256_storeu_si256((__m256i *)(dst + i),
                        _mm512_cvtepi32_epi16(tfs_bf16_round16(u)));
  }
  return i;
}

#define AVX512BF16 __attribute__((target("avx512f,avx512bf16")))

static atomic_int g_native = -1; /* tfs_bf16__set_native */

int tfs_bf16__set_native(int on) {
  return atomic_exchange(&g_native, on < 0 ? -1 : on != 0);
}

/* vcvtneps2bf16 where the CPU has AVX512_BF16 and no test turned it off
 * (the level in force is asked by the caller) */
static int native_ok(void) {
  return atomic_load_explicit(&g_native, memory_order_relaxed) != 0 &&
         tfs_cpu_bf16_dot_detected();
}

/* vcvtneps2bf16 rounds to nearest even and quiets NaNs as
 * tfs_bf16_round16 does, but reads subnormal inputs as zero: a vector
 * holding one takes tfs_bf16_round16 (one and, one subtraction and one
 * compare find them: the magnitude minus 1 below 0x7fffff, unsigned). */
static AVX512BF16 int64_t from_f32_avx512bf16(const float *src,
                                              uint16_t *dst, int64_t n) {
  const __m512i low = _mm512_set1_epi32(0x7fffffff);
  const __m512i one = _mm512_set1_epi32(1);
  const __m512i top = _mm512_set1_epi32(0x007fffff);
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    __m512 v = _mm512_loadu_ps(src + i);
    __m512i u = _mm512_castps_si512(v);
    __mmask16 sub = _mm512_cmplt_epu32_mask(
        _mm512_sub_epi32(_mm512_and_si512(u, low), one), top);
    __m256i h = sub ? _mm512_cvtepi32_epi16(tfs_bf16_round16(u))
                    : (__m256i)_mm512_cvtneps_pbh(v);
    _mm256_storeu_si256((__m256i *)(dst + i), h);
  }
  return i;
}

static AVX512 int64_t to_f32_avx512(const uint16_t *src, float *dst,
                                    int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    __m512i h = _mm512_cvtepu16_epi32(
        _mm256_loadu_si256((const __m256i *)(src + i)));
    _mm512_storeu_si512(dst + i, _mm512_slli_epi32(h, 16));
  }
  return i;
}

static inline AVX2 __m256i round8(__m256i u) {
  const __m256i one = _mm256_set1_epi32(1);
  __m256i hi = _mm256_srli_epi32(u, 16);
  __m256i r = _mm256_add_epi32(u, _mm256_set1_epi32(0x7fff));
  r = _mm256_srli_epi32(_mm256_add_epi32(r, _mm256_and_si256(hi, one)), 16);
  __m256i mag = _mm256_and_si256(u, _mm256_set1_epi32(0x7fffffff));
  __m256i nan = _mm256_cmpgt_epi32(mag, _mm256_set1_epi32(0x7f800000));
  __m256i q = _mm256_or_si256(hi, _mm256_set1_epi32(0x40));
  return _mm256_blendv_epi8(r, q, nan);
}

static AVX2 int64_t from_f32_avx2(const float *src, uint16_t *dst,
                                  int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    __m256i a = round8(_mm256_castps_si256(_mm256_loadu_ps(src + i)));
    __m256i b = round8(_mm256_castps_si256(_mm256_loadu_ps(src + i + 8)));
    /* every lane is below 2^16, so the saturating pack keeps it; the
     * pack interleaves 128-bit halves, the permute restores the order */
    __m256i p = _mm256_permute4x64_epi64(_mm256_packus_epi32(a, b), 0xd8);
    _mm256_storeu_si256((__m256i *)(dst + i), p);
  }
  return i;
}

static AVX2 int64_t to_f32_avx2(const uint16_t *src, float *dst,
                                int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m256i h = _mm256_cvtepu16_epi32(
        _mm_loadu_si128((const __m128i *)(src + i)));
    _mm256_storeu_si256((__m256i *)(dst + i), _mm256_slli_epi32(h, 16));
  }
  return i;
}
#endif

void tfs_bf16_from_f32(const float *src, uint16_t *dst, int64_t n) {
  int64_t i = 0;
#ifdef TFS_BF16_X86
  if (tfs_cpu_has(TFS_CPU_ISA_AVX512) && native_ok())
    i = from_f32_avx512bf16(src, dst, n);
  else if (tfs_cpu_has(TFS_CPU_ISA_AVX512))
    i = from_f32_avx512(src, dst, n);
  else if (tfs_cpu_has(TFS_CPU_ISA_AVX2))
    i = from_f32_avx2(src, dst, n);
#endif
  for (; i < n; i++) dst[i] = tfs_float_to_bf16(src[i]);
}

void tfs_bf16_to_f32(const uint16_t *src, float *dst, int64_t n) {
  int64_t i = 0;
#ifdef TFS_BF16_X86
  if (tfs_cpu_has(TFS_CPU_ISA_AVX512))
    i = to_f32_avx512(src, dst, n);
  else if (tfs_cpu_has(TFS_CPU_ISA_AVX2))
    i = to_f32_avx2(src, dst, n);
#endif
  for (; i < n; i++) dst[i] = tfs_bf16_to_float(src[i]);
}
