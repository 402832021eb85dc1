/*
 * backends/cpu/gemm_bf16_avx512.c - bfloat16 micro-kernels on AVX512_BF16:
 * a 12x32 float32 tile in 24 zmm accumulators, each vdpbf16ps adding two
 * depth steps (a pair of bfloat16 values of A broadcast against the
 * matching pairs of 16 columns of B).  Specialised for 1..12 rows;
 * partial columns use masked stores.  Compiled with function attributes;
 * gemm_bf16.c calls them only where tfs_cpu_has_bf16_dot() says so.
 */
#include <immintrin.h>

#include "backends/cpu/gemm_internal.h"

#define MR 12
#define NR 32
#define TGT __attribute__((target("avx512f,avx512bf16")))

#define ROWS(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11)

/* The A panel holds [kp][MR] pairs, the B panel [kp][NR] pairs (a pair:
 * depth 2q in the low half, 2q + 1 in the high half).  C = A * B, or
 * C += A * B when acc. */
static inline TGT __attribute__((always_inline)) void ukr_body(
    const int m, int64_t kp, const uint32_t *a, const uint32_t *b, float *c,
    int64_t ldc, int n, int acc) {
#define ZERO(i) __m512 c##i##0 = _mm512_setzero_ps(), c##i##1 = c##i##0;
  ROWS(ZERO)
#undef ZERO
#define PREFETCH_C(i)                                              \
  if (m > i) {                                                     \
    _mm_prefetch((const char *)(c + i * ldc), _MM_HINT_T0);        \
    _mm_prefetch((const char *)(c + i * ldc + NR - 1), _MM_HINT_T0); \
  }
  ROWS(PREFETCH_C)
#undef PREFETCH_C
#pragma GCC unroll 4
  for (int64_t p = 0; p < kp; p++) {
    __m512bh b0 = (__m512bh)_mm512_load_si512((const void *)b);
    __m512bh b1 = (__m512bh)_mm512_load_si512((const void *)(b + 16));
#define STEP(i)                                                     \
  if (m > i) {                                                      \
    __m512bh x = (__m512bh)_mm512_set1_epi32((int)a[i]);            \
    c##i##0 = _mm512_dpbf16_ps(c##i##0, x, b0);                     \
    c##i##1 = _mm512_dpbf16_ps(c##i##1, x, b1);                     \
  }
    ROWS(STEP)
#undef STEP
    a += MR;
    b += NR;
  }
  const __mmask16 k0 =
      n >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << n) - 1);
  const __mmask16 k1 = n >= 32   ? (__mmask16)0xffff
                       : n > 16 ? (__mmask16)((1u << (n - 16)) - 1)
                                : (__mmask16)0;
#define STORE(i)                                                       \
  if (m > i) {                                                         \
    float *r = c + i * ldc;                                            \
    __m512 x0 = c##i##0, x1 = c##i##1;                                 \
    if (acc) {                                                         \
      x0 = _mm512_add_ps(x0, _mm512_maskz_loadu_ps(k0, r));            \
      x1 = _mm512_add_ps(x1, _mm512_maskz_loadu_ps(k1, r + 16));       \
    }                                                                  \
    _mm512_mask_storeu_ps(r, k0, x0);                                  \
    _mm512_mask_storeu_ps(r + 16, k1, x1);                             \
  }
  ROWS(STORE)
#undef STORE
}

#define UKR(M)                                                             \
  static TGT void ukr_##M(int64_t kp, const uint32_t *a, const uint32_t *b, \
                          float *c, int64_t ldc, int n, int acc) {          \
    ukr_body(M, kp, a, b, c, ldc, n, acc);                                  \
  }
UKR(1)
UKR(2)
UKR(3)
UKR(4)
UKR(5)
UKR(6)
UKR(7)
UKR(8)
UKR(9)
UKR(10)
UKR(11)
UKR(12)

/* The float kernel's byte budgets at twice the depth: a 256-pair x 32 B
 * panel (32 KiB) in L1, a 192-row x 512-deep A block (192 KiB) in L2, a
 * 512 x 4096 B block (4 MiB) in L3; about twice the float kernels'
 * multiply-adds a nanosecond. */
const tfs_gemm_bf16_isa tfs_gemm_bf16_isa_avx512 = {
    "avx512_bf16 12x32", MR, NR, 512, 192, 4096, 1, 32, NULL, NULL, NULL,
    {NULL, ukr_1, ukr_2, ukr_3, ukr_4, ukr_5, ukr_6, ukr_7, ukr_8, ukr_9,
     ukr_10, ukr_11, ukr_12},
};
