/*
 * backends/cpu/conv_depthwise_avx512.c - the depthwise convolution row on
 * AVX-512: 16 output channels a zmm register, masked loads and stores for
 * the last partial vector, vpermps for channel multipliers above 1.
 * Compiled with function attributes; conv_depthwise.c calls it only when
 * tfs_cpu_has(TFS_CPU_ISA_AVX512).
 */
#include <immintrin.h>

#include "backends/cpu/conv_depthwise.h"

#define DW_TGT __attribute__((target("avx512f")))
#define DW_VL 16
#define DW_V __m512
#define DW_MASK __mmask16
#define DW_IDX __m512i
#define DW_ZERO() _mm512_setzero_ps()
#define DW_LOAD(p) _mm512_loadu_ps(p)
#define DW_STORE(p, v) _mm512_storeu_ps(p, v)
#define DW_LOADM(p, m) _mm512_maskz_loadu_ps(m, p)
#define DW_STOREM(p, m, v) _mm512_mask_storeu_ps(p, m, v)
#define DW_FMA(a, b, c) _mm512_fmadd_ps(a, b, c)
#define DW_MASKN(n) ((__mmask16)((1u << (n)) - 1u))
#define DW_IDXLOAD(u8) \
  _mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i *)(const void *)(u8)))
#define DW_PERM(v, idx) _mm512_permutexvar_ps(idx, v)
#define DW_ADD(a, b) _mm512_add_ps(a, b)
#define DW_MAX(a, b) _mm512_max_ps(a, b)
#define DW_MIN(a, b) _mm512_min_ps(a, b)
#define DW_MUL(a, b) _mm512_mul_ps(a, b)
#define DW_SET1(x) _mm512_set1_ps(x)
#define DW_KEEPNAN(r, x) \
  _mm512_mask_mov_ps(r, _mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q), x)
#define DW_ROW tfs_dw_row_avx512

#include "backends/cpu/conv_depthwise_simd.h"
