/*
 * backends/cpu/gemm_thin_avx512.c - AVX-512 kernels for thin products
 * (1 to 4 rows of A) that read B where it lies instead of packing it:
 * A's elements are broadcast against rows of B (up to 128 columns of
 * accumulators per call), in the packed micro-kernel's order (one
 * fused multiply-add per depth step, alpha and beta as it stores), so a
 * product gives the same bits on either path.  Masked loads cover every
 * edge, so nothing is read past the operands.  Compiled with function
 * attributes; gemm.c calls them only where AVX-512 is enabled.
 */
#include <immintrin.h>

#include "backends/cpu/gemm_internal.h"

#define TGT __attribute__((target("avx512f")))
#define AI __attribute__((always_inline))

static inline TGT AI __mmask16 lanes(int64_t left) {
  if (left >= 16) return (__mmask16)0xffff;
  return left <= 0 ? (__mmask16)0 : (__mmask16)((1u << left) - 1);
}

/* C[m, w] for w <= 16 * NV columns: each step broadcasts A[i, p] and
 * multiplies it by NV vectors of B's row p. */
static inline TGT AI void nn_block(const int m, const int nv, int64_t k,
                                   const float *a, int64_t lda,
                                   const float *b, int64_t ldb, float *c,
                                   int64_t ldc, int64_t w, float alpha,
                                   float beta) {
  __m512 acc[4][8];
  __mmask16 mk[8];
#pragma GCC unroll 8
  for (int v = 0; v < nv; v++) mk[v] = lanes(w - 16 * v);
#pragma GCC unroll 4
  for (int i = 0; i < m; i++)
#pragma GCC unroll 8
    for (int v = 0; v < nv; v++) acc[i][v] = _mm512_setzero_ps();
  for (int64_t p = 0; p < k; p++) {
    const float *bp = b + p * ldb;
    if (p + THIN_PF_ROWS < k) { /* see THIN_PF_ROWS */
#pragma GCC unroll 8
      for (int v = 0; v < nv; v++)
        _mm_prefetch((const char *)(bp + THIN_PF_ROWS * ldb + 16 * v),
                     _MM_HINT_T0);
    }
    __m512 bv[8];
#pragma GCC unroll 8
    for (int v = 0; v < nv; v++)
      bv[v] = _mm512_maskz_loadu_ps(mk[v], bp + 16 * v);
#pragma GCC unroll 4
    for (int i = 0; i < m; i++) {
      const __m512 x = _mm512_set1_ps(a[i * lda + p]);
#pragma GCC unroll 8
      for (int v = 0; v < nv; v++)
        acc[i][v] = _mm512_fmadd_ps(x, bv[v], acc[i][v]);
    }
  }
  const __m512 va = _mm512_set1_ps(alpha), vb = _mm512_set1_ps(beta);
#pragma GCC unroll 4
  for (int i = 0; i < m; i++)
#pragma GCC unroll 8
    for (int v = 0; v < nv; v++) {
      float *r = c + i * ldc + 16 * v;
      __m512 x = _mm512_mul_ps(va, acc[i][v]);
      if (beta != 0.0f)
        x = _mm512_fmadd_ps(vb, _mm512_maskz_loadu_ps(mk[v], r), x);
      _mm512_mask_storeu_ps(r, mk[v], x);
    }
}

TGT void tfs_gemm__thin_nn_avx512(int m, int64_t k, int64_t n, const float *a,
                              int64_t lda, const float *b, int64_t ldb,
                              float *c, int64_t ldc, float alpha,
                              float beta) {
  /* 8 vectors of columns for one or two rows, 4 for three or four: at
   * least 8 independent accumulators keep both FMA ports busy */
  const int64_t cols = m <= 2 ? 128 : 64;
  for (int64_t j = 0; j < n; j += cols) {
    const int64_t w = n - j < cols ? n - j : cols;
    const float *bj = b + j;
    float *cj = c + j;
    switch (m) {
      case 1: nn_block(1, 8, k, a, lda, bj, ldb, cj, ldc, w, alpha, beta); break;
      case 2: nn_block(2, 8, k, a, lda, bj, ldb, cj, ldc, w, alpha, beta); break;
      case 3: nn_block(3, 4, k, a, lda, bj, ldb, cj, ldc, w, alpha, beta); break;
      default: nn_block(4, 4, k, a, lda, bj, ldb, cj, ldc, w, alpha, beta); break;
    }
  }
}
