/*
 * backends/cpu/gemm_thin_avx2.c - AVX2/FMA kernels for thin products (1
 * to 4 rows of A) that read B where it lies instead of packing it, as
 * gemm_thin_avx512.c (the packed micro-kernel's order, so the same bits)
 * with 8-float vectors, sized so the accumulators fit the sixteen ymm
 * registers.  Masked loads and stores cover every edge.  Compiled with
 * function attributes; gemm.c calls them only where AVX2 is enabled.
 */
#include <immintrin.h>

#include "backends/cpu/gemm_internal.h"

#define TGT __attribute__((target("avx2,fma")))
#define AI __attribute__((always_inline))

/* Lanes [0, left) of an 8-float vector, as maskload/maskstore want. */
static inline TGT AI __m256i lanes(int64_t left) {
  const __m256i idx = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  int l = left >= 8 ? 8 : left <= 0 ? 0 : (int)left;
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(l), idx);
}

/* The product's loop over the depth; `masked` (a constant) says whether
 * the last vector of columns is partial.  With more rows than vectors (4
 * rows of 3 vectors) B's vectors are loaded first and A's values
 * broadcast one at a time (nv + 1 + m * nv = 16 registers; the other
 * order needs 17 and spills, 1.5x slower); otherwise A's values first.
 * Each accumulator sees the same products in the same order either way. */
static inline TGT AI void nn_loop(const int m, const int nv, const int masked,
                                  int64_t k, const float *a, int64_t lda,
                                  const float *b, int64_t ldb, __m256i tail,
                                  __m256 acc[4][8]) {
  for (int64_t p = 0; p < k; p++) {
    const float *bp = b + p * ldb;
    if (p + THIN_PF_ROWS < k) { /* see THIN_PF_ROWS: a line every 2 */
#pragma GCC unroll 4
      for (int v = 0; v < nv; v += 2)
        _mm_prefetch((const char *)(bp + THIN_PF_ROWS * ldb + 8 * v),
                     _MM_HINT_T0);
    }
    if (m > nv) {
      __m256 bv[8];
#pragma GCC unroll 8
      for (int v = 0; v < nv; v++)
        bv[v] = masked && v == nv - 1 ? _mm256_maskload_ps(bp + 8 * v, tail)
                                      : _mm256_loadu_ps(bp + 8 * v);
#pragma GCC unroll 4
      for (int i = 0; i < m; i++) {
        const __m256 x = _mm256_broadcast_ss(a + i * lda + p);
#pragma GCC unroll 8
        for (int v = 0; v < nv; v++)
          acc[i][v] = _mm256_fmadd_ps(x, bv[v], acc[i][v]);
      }
      continue;
    }
    __m256 x[4];
#pragma GCC unroll 4
    for (int i = 0; i < m; i++) x[i] = _mm256_broadcast_ss(a + i * lda + p);
#pragma GCC unroll 8
    for (int v = 0; v < nv; v++) {
      const __m256 bv = masked && v == nv - 1
                            ? _mm256_maskload_ps(bp + 8 * v, tail)
                            : _mm256_loadu_ps(bp + 8 * v);
#pragma GCC unroll 4
      for (int i = 0; i < m; i++)
        acc[i][v] = _mm256_fmadd_ps(x[i], bv, acc[i][v]);
    }
  }
}

/* C[m, w] for w <= 8 * NV columns (NV a constant; the calls below pass
 * the vectors w needs). */
static inline TGT AI void nn_block(const int m, const int nv, int64_t k,
                                   const float *a, int64_t lda,
                                   const float *b, int64_t ldb, float *c,
                                   int64_t ldc, int64_t w, float alpha,
                                   float beta) {
  __m256 acc[4][8];
#pragma GCC unroll 4
  for (int i = 0; i < m; i++)
#pragma GCC unroll 8
    for (int v = 0; v < nv; v++) acc[i][v] = _mm256_setzero_ps();
  const __m256i tail = lanes(w - 8 * (nv - 1));
  if (w == 8 * nv)
    nn_loop(m, nv, 0, k, a, lda, b, ldb, tail, acc);
  else
    nn_loop(m, nv, 1, k, a, lda, b, ldb, tail, acc);
  const __m256 va = _mm256_set1_ps(alpha), vb = _mm256_set1_ps(beta);
#pragma GCC unroll 4
  for (int i = 0; i < m; i++)
#pragma GCC unroll 8
    for (int v = 0; v < nv; v++) {
      float *r = c + i * ldc + 8 * v;
      const __m256i mk = lanes(w - 8 * v);
      __m256 y = _mm256_mul_ps(va, acc[i][v]);
      if (beta != 0.0f) y = _mm256_fmadd_ps(vb, _mm256_maskload_ps(r, mk), y);
      _mm256_maskstore_ps(r, mk, y);
    }
}

#define NN_CASE(M, NV)                                                    \
  case NV:                                                                \
    nn_block(M, NV, k, a, lda, b + j, ldb, c + j, ldc, w, alpha, beta);   \
    break;

/* Column blocks of up to 8 * MAXV columns, each with the vectors its
 * columns need (every count is an instance, so the masks stay out of the
 * loop and nothing is read past B's rows). */
#define NN_ROWS(MAXV, CASES)                                              \
  for (int64_t j = 0; j < n; j += 8 * MAXV) {                             \
    const int64_t w = n - j < 8 * MAXV ? n - j : 8 * MAXV;                \
    switch ((int)((w + 7) / 8)) { CASES }                                 \
  }

TGT void tfs_gemm__thin_nn_avx2(int m, int64_t k, int64_t n, const float *a,
                                int64_t lda, const float *b, int64_t ldb,
                                float *c, int64_t ldc, float alpha,
                                float beta) {
  /* 8, 6, 4 and 3 vectors of columns: 8 to 12 accumulators */
  switch (m) {
    case 1:
      NN_ROWS(8, NN_CASE(1, 1) NN_CASE(1, 2) NN_CASE(1, 3) NN_CASE(1, 4)
                     NN_CASE(1, 5) NN_CASE(1, 6) NN_CASE(1, 7) NN_CASE(1, 8))
      break;
    case 2:
      NN_ROWS(6, NN_CASE(2, 1) NN_CASE(2, 2) NN_CASE(2, 3) NN_CASE(2, 4)
                     NN_CASE(2, 5) NN_CASE(2, 6))
      break;
    case 3:
      NN_ROWS(4, NN_CASE(3, 1) NN_CASE(3, 2) NN_CASE(3, 3) NN_CASE(3, 4))
      break;
    default:
      NN_ROWS(3, NN_CASE(4, 1) NN_CASE(4, 2) NN_CASE(4, 3))
      break;
  }
}
