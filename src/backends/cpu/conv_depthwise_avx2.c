/*
 * backends/cpu/conv_depthwise_avx2.c - the depthwise convolution row on
 * AVX2 + FMA: 8 output channels a ymm register, vmaskmovps for the last
 * partial vector, vpermps for channel multipliers above 1.  Compiled
 * with function attributes; conv_depthwise.c calls it only when
 * tfs_cpu_has(TFS_CPU_ISA_AVX2).
 */
#include <immintrin.h>

#include "backends/cpu/conv_depthwise.h"

#define DW_TGT __attribute__((target("avx2,fma")))
#define DW_VL 8
#define DW_V __m256
#define DW_MASK __m256i
#define DW_IDX __m256i
#define DW_ZERO() _mm256_setzero_ps()
#define DW_LOAD(p) _mm256_loadu_ps(p)
#define DW_STORE(p, v) _mm256_storeu_ps(p, v)
#define DW_LOADM(p, m) _mm256_maskload_ps(p, m)
#define DW_STOREM(p, m, v) _mm256_maskstore_ps(p, m, v)
#define DW_FMA(a, b, c) _mm256_fmadd_ps(a, b, c)
#define DW_MASKN(n)                                                  \
  _mm256_cmpgt_epi32(_mm256_set1_epi32(n),                           \
                     _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7))
#define DW_IDXLOAD(u8) \
  _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(const void *)(u8)))
#define DW_PERM(v, idx) _mm256_permutevar8x32_ps(v, idx)
#define DW_ADD(a, b) _mm256_add_ps(a, b)
#define DW_MAX(a, b) _mm256_max_ps(a, b)
#define DW_MIN(a, b) _mm256_min_ps(a, b)
#define DW_MUL(a, b) _mm256_mul_ps(a, b)
#define DW_SET1(x) _mm256_set1_ps(x)
#define DW_KEEPNAN(r, x) \
  _mm256_blendv_ps(r, x, _mm256_cmp_ps(x, x, _CMP_UNORD_Q))
#define DW_ROW tfs_dw_row_avx2

#include "backends/cpu/conv_depthwise_simd.h"
