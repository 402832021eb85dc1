/*
 * backends/cpu/gemm_avx2.c - AVX2/FMA micro-kernels: a 6x16 tile kept in
 * twelve ymm accumulators, specialised for 1..6 rows so that thin
 * products (batch 1) do only the work they need; an indirect variant
 * reads A from row segments (convolution patches) instead of a packed
 * panel.  Compiled for AVX2 with
 * function attributes; gemm.c calls them only on CPUs that have it.
 */
#include <immintrin.h>
#include <string.h>

#include "backends/cpu/gemm_internal.h"

#define MR 6
#define NR 16
#define TGT __attribute__((target("avx2,fma")))

/* Rows are spelled out (not arrays) so that the accumulators live in
 * registers; `m` is a constant after inlining, so unused rows vanish. */
#define ROWS(X) X(0) X(1) X(2) X(3) X(4) X(5)

static inline TGT __attribute__((always_inline)) void ukr_body(
    const int m, int64_t kc, const float *a, const float *b, float *c,
    int64_t ldc, int n, float alpha, float beta) {
#define ZERO(i) __m256 c##i##0 = _mm256_setzero_ps(), c##i##1 = c##i##0;
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
  for (int64_t p = 0; p < kc; p++) {
    __m256 b0 = _mm256_load_ps(b), b1 = _mm256_load_ps(b + 8);
#define STEP(i)                                   \
  if (m > i) {                                    \
    __m256 x = _mm256_broadcast_ss(a + i);        \
    c##i##0 = _mm256_fmadd_ps(x, b0, c##i##0);    \
    c##i##1 = _mm256_fmadd_ps(x, b1, c##i##1);    \
  }
    ROWS(STEP)
#undef STEP
    a += MR;
    b += NR;
  }
  const __m256 va = _mm256_set1_ps(alpha), vb = _mm256_set1_ps(beta);
  if (n == NR) {
#define STORE(i)                                                    \
  if (m > i) {                                                      \
    float *r = c + i * ldc;                                         \
    __m256 x0 = _mm256_mul_ps(va, c##i##0);                         \
    __m256 x1 = _mm256_mul_ps(va, c##i##1);                         \
    if (beta != 0.0f) {                                             \
      x0 = _mm256_fmadd_ps(vb, _mm256_loadu_ps(r), x0);             \
      x1 = _mm256_fmadd_ps(vb, _mm256_loadu_ps(r + 8), x1);         \
    }                                                               \
    _mm256_storeu_ps(r, x0);                                        \
    _mm256_storeu_ps(r + 8, x1);                                    \
  }
    ROWS(STORE)
#undef STORE
    return;
  }
  float tmp[MR][NR] __attribute__((aligned(32)));
#define SPILL(i)                                                    \
  if (m > i) {                                                      \
    _mm256_store_ps(tmp[i], _mm256_mul_ps(va, c##i##0));            \
    _mm256_store_ps(tmp[i] + 8, _mm256_mul_ps(va, c##i##1));        \
  }
  ROWS(SPILL)
#undef SPILL
  for (int i = 0; i < m; i++) {
    float *r = c + i * ldc;
    if (beta != 0.0f)
      for (int j = 0; j < n; j++) r[j] = tmp[i][j] + beta * r[j];
    else
      memcpy(r, tmp[i], sizeof(float) * (size_t)n);
  }
}

/* The indirect kernel: the same 6x16 tile, A broadcast straight from the
 * rows' segments (no packed A). */
static inline TGT __attribute__((always_inline)) void iukr_body(
    const int m, int64_t nseg, int64_t seglen, const int64_t *segoff,
    const float *const *rows, const float *b, float *c, int64_t ldc, int n,
    int acc, const float *bias, int relu) {
#define ZERO(i) __m256 c##i##0 = _mm256_setzero_ps(), c##i##1 = c##i##0;
  ROWS(ZERO)
#undef ZERO
  if (acc) {
    float in[MR][NR] __attribute__((aligned(32)));
    const float *src[MR];
    for (int i = 0; i < m; i++) {
      src[i] = c + i * ldc;
      if (n != NR) {
        memcpy(in[i], c + i * ldc, sizeof(float) * (size_t)n);
        src[i] = in[i];
      }
    }
#define LOADC(i)                                                    \
  if (m > i) {                                                      \
    c##i##0 = _mm256_loadu_ps(src[i]);                              \
    c##i##1 = _mm256_loadu_ps(src[i] + 8);                          \
  }
    ROWS(LOADC)
#undef LOADC
  }
  for (int64_t s = 0; s < nseg; s++) {
    const int64_t off = segoff[s];
#define SEG(i) const float *a##i = m > i ? rows[i] + off : NULL;
    ROWS(SEG)
#undef SEG
#pragma GCC unroll 4
    for (int64_t p = 0; p < seglen; p++) {
      __m256 b0 = _mm256_load_ps(b), b1 = _mm256_load_ps(b + 8);
#define STEP(i)                                   \
  if (m > i) {                                    \
    __m256 x = _mm256_broadcast_ss(a##i + p);     \
    c##i##0 = _mm256_fmadd_ps(x, b0, c##i##0);    \
    c##i##1 = _mm256_fmadd_ps(x, b1, c##i##1);    \
  }
      ROWS(STEP)
#undef STEP
      b += NR;
    }
  }
  if (n == NR) {
    /* max(0, x) is _mm256_max_ps(zero, x): its second operand (x) when x
     * is NaN, as Relu keeps NaN */
    const __m256 z = _mm256_setzero_ps();
    __m256 bb0 = z, bb1 = z;
    if (bias) bb0 = _mm256_loadu_ps(bias), bb1 = _mm256_loadu_ps(bias + 8);
#define STORE(i)                                                    \
  if (m > i) {                                                      \
    __m256 x0 = c##i##0, x1 = c##i##1;                              \
    if (bias) x0 = _mm256_add_ps(x0, bb0), x1 = _mm256_add_ps(x1, bb1); \
    if (relu) x0 = _mm256_max_ps(z, x0), x1 = _mm256_max_ps(z, x1); \
    _mm256_storeu_ps(c + i * ldc, x0);                              \
    _mm256_storeu_ps(c + i * ldc + 8, x1);                          \
  }
    ROWS(STORE)
#undef STORE
    return;
  }
  float tmp[MR][NR] __attribute__((aligned(32)));
#define SPILL(i)                                                    \
  if (m > i) {                                                      \
    _mm256_store_ps(tmp[i], c##i##0);                               \
    _mm256_store_ps(tmp[i] + 8, c##i##1);                           \
  }
  ROWS(SPILL)
#undef SPILL
  for (int i = 0; i < m; i++) {
    float *r = c + i * ldc;
    for (int j = 0; j < n; j++) {
      float x = tmp[i][j] + (bias ? bias[j] : 0.0f);
      r[j] = relu && !(x > 0) && x == x ? 0.0f : x;
    }
  }
}

#define UKR(M)                                                              \
  static TGT void ukr_##M(int64_t kc, const float *a, const float *b,        \
                          float *c, int64_t ldc, int n, float alpha,         \
                          float beta) {                                      \
    ukr_body(M, kc, a, b, c, ldc, n, alpha, beta);                           \
  }                                                                         \
  static TGT void iukr_##M(int64_t nseg, int64_t seglen,                     \
                           const int64_t *segoff, const float *const *rows,  \
                           const float *b, float *c, int64_t ldc, int n,     \
                           int acc, const float *bias, int relu) {           \
    iukr_body(M, nseg, seglen, segoff, rows, b, c, ldc, n, acc, bias, relu); \
  }
UKR(1)
UKR(2)
UKR(3)
UKR(4)
UKR(5)
UKR(6)

/* Zen 3 / Haswell-class caches: a 512-deep B panel (32 KiB) streams
 * through L1 from L2, a 120x512 A block (240 KiB) stays in L2, a
 * 512x4080 B block in L3.  Against 256 deep and 96 rows (the panel
 * wholly in L1), C is read and written half as often and B streamed
 * from L3 for fewer row blocks: 2-6% less time for the benchmark's MLP
 * and CNN and 4-7% for a 1024^3 product on one Zen 3 core (paired runs
 * in one process, tfs_gemm__set_blocking). */
const tfs_gemm_isa tfs_gemm_isa_avx2 = {
    "avx2 6x16", MR, NR, 512, 120, 4080,
    {NULL, ukr_1, ukr_2, ukr_3, ukr_4, ukr_5, ukr_6},
    {NULL, iukr_1, iukr_2, iukr_3, iukr_4, iukr_5, iukr_6},
    tfs_gemm__thin_nn_avx2,
};
