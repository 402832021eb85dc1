/*
 * backends/cpu/bf16_vec.h - float32 -> bfloat16 rounding of the lanes of
 * an AVX-512 vector, for the files that round inside their own loops
 * (bf16_convert.c's arrays, vmath_avx512.c's bfloat16 softmax): core/
 * half.h's tfs_float_to_bf16 in integer lanes.  x86 only; include after
 * <immintrin.h>.
 */
#ifndef TFS_BACKENDS_CPU_BF16_VEC_H
#define TFS_BACKENDS_CPU_BF16_VEC_H

/* The bfloat16 bits (in the low half of each 32-bit lane) of the floats
 * whose bits are u: add 0x7fff plus the kept half's lowest bit and keep
 * the high half (round to nearest even), or, for a NaN, keep the high
 * half with the quiet bit set. */
static inline __attribute__((target("avx512f"), always_inline)) __m512i
tfs_bf16_round16(__m512i u) {
  const __m512i one = _mm512_set1_epi32(1);
  __m512i hi = _mm512_srli_epi32(u, 16);
  __m512i r = _mm512_add_epi32(u, _mm512_set1_epi32(0x7fff));
  r = _mm512_srli_epi32(_mm512_add_epi32(r, _mm512_and_si512(hi, one)), 16);
  __m512i mag = _mm512_and_si512(u, _mm512_set1_epi32(0x7fffffff));
  __mmask16 nan = _mm512_cmpgt_epi32_mask(mag, _mm512_set1_epi32(0x7f800000));
  return _mm512_mask_or_epi32(r, nan, hi, _mm512_set1_epi32(0x40));
}

#endif
