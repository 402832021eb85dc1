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

/* Lanes [0, left) of an 8-float vector, as maskload/maskstore want. */
static inline TGT __attribute__((always_inline)) __m256i lanes(int left) {
  const __m256i idx = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(left), idx);
}

/* r[0, cols) = alpha * (x0, x1) + beta * r (r not read when beta is 0),
 * cols <= NR: the packed kernels' epilogue, through masked loads and
 * stores for a partial panel (a scalar tail per row cost a 24 x 72
 * convolution more than 24 x 80). */
static inline TGT __attribute__((always_inline)) void store_row(
    float *r, __m256 x0, __m256 x1, __m256 va, __m256 vb, float beta,
    int cols) {
  x0 = _mm256_mul_ps(va, x0);
  x1 = _mm256_mul_ps(va, x1);
  if (cols == NR) {
    if (beta != 0.0f) {
      x0 = _mm256_fmadd_ps(vb, _mm256_loadu_ps(r), x0);
      x1 = _mm256_fmadd_ps(vb, _mm256_loadu_ps(r + 8), x1);
    }
    _mm256_storeu_ps(r, x0);
    _mm256_storeu_ps(r + 8, x1);
    return;
  }
  const __m256i k0 = lanes(cols), k1 = lanes(cols - 8);
  if (beta != 0.0f) {
    x0 = _mm256_fmadd_ps(vb, _mm256_maskload_ps(r, k0), x0);
    x1 = _mm256_fmadd_ps(vb, _mm256_maskload_ps(r + 8, k1), x1);
  }
  _mm256_maskstore_ps(r, k0, x0);
  _mm256_maskstore_ps(r + 8, k1, x1);
}

/* Rows are spelled out (not arrays) so that the accumulators live in
 * registers; `m` is a constant after inlining, so unused rows vanish. */
#define ROWS(X) X(0) X(1) X(2) X(3) X(4) X(5)

static inline TGT __attribute__((always_inline)) void ukr_body(
    const int m, const int half, int64_t kc, const float *a, const float *b,
    float *c, int64_t ldc, int n, float alpha, float beta, const float *pf,
    int64_t npf) {
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
#define STEP(i)                                             \
  if (m > i) {                                              \
    __m256 x = _mm256_broadcast_ss(a + i);                        \
    c##i##0 = _mm256_fmadd_ps(x, b0, c##i##0);              \
    if (!half) c##i##1 = _mm256_fmadd_ps(x, b1, c##i##1);   \
  }
#define DEPTH_STEP(PF)                                                  \
  {                                                                     \
    __m256 b0 = _mm256_load_ps(b);                                      \
    __m256 b1 = half ? b0 : _mm256_load_ps(b + 8);                      \
    PF;                                                                 \
    ROWS(STEP)                                                          \
    a += MR;                                                            \
    b += NR;                                                            \
  }
  /* the first steps prefetch (gemm_internal.h), the rest do not */
  int64_t p = 0;
  const int two = npf > kc; /* lines a step */
  TFS_GEMM_DEPTH_LOOP(p, kc, two ? (npf + 1) / 2 : npf, two, pf, DEPTH_STEP);
#undef DEPTH_STEP
#undef STEP
  const __m256 va = _mm256_set1_ps(alpha), vb = _mm256_set1_ps(beta);
#define STORE(i) \
  if (m > i) store_row(c + i * ldc, c##i##0, c##i##1, va, vb, beta, n);
  ROWS(STORE)
#undef STORE
}

/* The indirect kernel: the same 6x16 tile, A broadcast straight from the
 * rows' segments (no packed A). */
static inline TGT __attribute__((always_inline)) void iukr_body(
    const int m, const int half, int64_t nseg, int64_t seglen,
    const int64_t *segoff, const float *const *rows, const float *b, float *c,
    int64_t ldc, int n, int acc, const float *bias, const float *add,
    int relu, const float *pf, int64_t npf) {
#define ZERO(i) __m256 c##i##0 = _mm256_setzero_ps(), c##i##1 = c##i##0;
  ROWS(ZERO)
#undef ZERO
  if (acc && n == NR) {
#define LOADC(i)                                                    \
  if (m > i) {                                                      \
    c##i##0 = _mm256_loadu_ps(c + i * ldc);                         \
    c##i##1 = _mm256_loadu_ps(c + i * ldc + 8);                     \
  }
    ROWS(LOADC)
#undef LOADC
  } else if (acc) {
    const __m256i k0 = lanes(n), k1 = lanes(n - 8);
#define LOADC(i)                                                    \
  if (m > i) {                                                      \
    c##i##0 = _mm256_maskload_ps(c + i * ldc, k0);                  \
    if (!half) c##i##1 = _mm256_maskload_ps(c + i * ldc + 8, k1);   \
  }
    ROWS(LOADC)
#undef LOADC
  }
  /* depth steps left that prefetch (gemm_internal.h) */
  const int two = npf > nseg * seglen; /* lines a step */
  int64_t pfs = npf <= 0 ? 0 : two ? (npf + 1) / 2 : npf;
  for (int64_t s = 0; s < nseg; s++) {
    const int64_t off = segoff[s];
#define SEG(i) const float *a##i = m > i ? rows[i] + off : NULL;
    ROWS(SEG)
#undef SEG
#define STEP(i)                                             \
  if (m > i) {                                              \
    __m256 x = _mm256_broadcast_ss(a##i + p);                     \
    c##i##0 = _mm256_fmadd_ps(x, b0, c##i##0);              \
    if (!half) c##i##1 = _mm256_fmadd_ps(x, b1, c##i##1);   \
  }
#define DEPTH_STEP(PF)                                                  \
  {                                                                     \
    __m256 b0 = _mm256_load_ps(b);                                      \
    __m256 b1 = half ? b0 : _mm256_load_ps(b + 8);                      \
    PF;                                                                 \
    ROWS(STEP)                                                          \
    b += NR;                                                            \
  }
    const int64_t sp = pfs < seglen ? pfs : seglen;
    pfs -= sp;
    int64_t p = 0;
    TFS_GEMM_DEPTH_LOOP(p, seglen, sp, two, pf, DEPTH_STEP);
#undef DEPTH_STEP
#undef STEP
  }
  /* max(0, x) is _mm256_max_ps(zero, x): its second operand (x) when x
   * is NaN, as Relu keeps NaN (Relu6's min(6, .) the same way; hard-swish
   * as store_act.h gives it).  A partial panel (n < NR) goes through
   * masked loads and stores, the same arithmetic (a scalar tail per row
   * cost a 24 x 72 convolution more than 24 x 80). */
  const __m256 z = _mm256_setzero_ps(), six = _mm256_set1_ps(6.0f);
  __m256 bb0 = z, bb1 = z;
#define STORE(i, LD0, LD1, ST0, ST1)                                \
  if (m > i) {                                                      \
    __m256 x0 = c##i##0, x1 = c##i##1;                              \
    if (bias) x0 = _mm256_add_ps(x0, bb0), x1 = _mm256_add_ps(x1, bb1); \
    if (add) x0 = _mm256_add_ps(x0, LD0), x1 = _mm256_add_ps(x1, LD1); \
    if (tfs_store_clamps(relu))                                     \
      x0 = _mm256_max_ps(z, x0), x1 = _mm256_max_ps(z, x1);         \
    if (relu == TFS_STORE_RELU6)                                    \
      x0 = _mm256_min_ps(six, x0), x1 = _mm256_min_ps(six, x1);     \
    if (relu == TFS_STORE_HARD_SWISH)                               \
      x0 = TFS_HARD_SWISH_VEC(_mm256, x0),                          \
      x1 = TFS_HARD_SWISH_VEC(_mm256, x1);                          \
    ST0;                                                            \
    ST1;                                                            \
  }
#define FULL(i)                                                     \
  STORE(i, _mm256_loadu_ps(add + i * ldc),                          \
        _mm256_loadu_ps(add + i * ldc + 8),                         \
        _mm256_storeu_ps(c + i * ldc, x0),                          \
        _mm256_storeu_ps(c + i * ldc + 8, x1))
#define PART(i)                                                     \
  STORE(i, _mm256_maskload_ps(add + i * ldc, k0),                   \
        half ? z : _mm256_maskload_ps(add + i * ldc + 8, k1),       \
        _mm256_maskstore_ps(c + i * ldc, k0, x0),                   \
        if (!half) _mm256_maskstore_ps(c + i * ldc + 8, k1, x1))
  if (n == NR) {
    if (bias) bb0 = _mm256_loadu_ps(bias), bb1 = _mm256_loadu_ps(bias + 8);
    ROWS(FULL)
  } else {
    const __m256i k0 = lanes(n), k1 = lanes(n - 8);
    if (bias)
      bb0 = _mm256_maskload_ps(bias, k0),
      bb1 = half ? z : _mm256_maskload_ps(bias + 8, k1);
    ROWS(PART)
  }
#undef FULL
#undef PART
#undef STORE
}

/* A panel of at most 8 columns (the last of 24, 40 or 72) runs the half
 * kernel: six accumulators, no FMAs on the zero padding.  Each column
 * sees the same FMAs in the same order, so the same bits; six chains of
 * 4-cycle FMAs keep 1.5 of Zen 3's 2 FMA pipes busy, against 6 cycles a
 * step for the full tile.  One Zen 3 thread, `tfsess bench` medians:
 * 1x1 convolutions 56x56x144 -> 24 337 -> 283 us, 28x28x240 -> 40 196 ->
 * 174, 56x56x24 -> 72 177 -> 158. */
#define UKR(M)                                                               \
  static TGT void ukr_##M(int64_t kc, const float *a, const float *b,         \
                          float *c, int64_t ldc, int n, float alpha,          \
                          float beta, const float *pf, int64_t npf) {         \
    if (n <= 8)                                                              \
      ukr_body(M, 1, kc, a, b, c, ldc, n, alpha, beta, pf, npf);              \
    else                                                                     \
      ukr_body(M, 0, kc, a, b, c, ldc, n, alpha, beta, pf, npf);              \
  }                                                                          \
  static TGT void iukr_##M(int64_t nseg, int64_t seglen,                      \
                           const int64_t *segoff, const float *const *rows,   \
                           const float *b, float *c, int64_t ldc, int n,      \
                           int acc, const float *bias, const float *add,      \
                           int relu, const float *pf, int64_t npf) {          \
    if (n <= 8)                                                              \
      iukr_body(M, 1, nseg, seglen, segoff, rows, b, c, ldc, n, acc, bias,    \
                add, relu, pf, npf);                                         \
    else                                                                     \
      iukr_body(M, 0, nseg, seglen, segoff, rows, b, c, ldc, n, acc, bias,    \
                add, relu, pf, npf);                                         \
  }
UKR(1)
UKR(2)
UKR(3)
UKR(4)
UKR(5)
UKR(6)

/* One row against `np` (a constant after inlining) panels at once: eight
 * accumulators at four panels instead of ukr_1's two. */
static inline TGT __attribute__((always_inline)) void row_body(
    const int np, int64_t kc, const float *a, const float *b, int64_t ps,
    float *c, int n, float alpha, float beta) {
  __m256 acc[TFS_GEMM_ROW_PANELS][2];
#pragma GCC unroll 4
  for (int j = 0; j < np; j++)
    acc[j][0] = acc[j][1] = _mm256_setzero_ps();
  for (int64_t p = 0; p < kc; p++) {
    const __m256 x = _mm256_broadcast_ss(a + p * MR);
#pragma GCC unroll 4
    for (int j = 0; j < np; j++) {
      const float *bp = b + j * ps + p * NR;
      acc[j][0] = _mm256_fmadd_ps(x, _mm256_load_ps(bp), acc[j][0]);
      acc[j][1] = _mm256_fmadd_ps(x, _mm256_load_ps(bp + 8), acc[j][1]);
    }
  }
  const __m256 va = _mm256_set1_ps(alpha), vb = _mm256_set1_ps(beta);
#pragma GCC unroll 4
  for (int j = 0; j < np; j++)
    store_row(c + j * NR, acc[j][0], acc[j][1], va, vb, beta,
              n - j * NR < NR ? n - j * NR : NR);
}

static TGT void row_kernel(int64_t kc, const float *a, const float *b,
                           int64_t ps, int panels, float *c, int n,
                           float alpha, float beta) {
  switch (panels) {
    case 1:
      row_body(1, kc, a, b, ps, c, n, alpha, beta);
      break;
    case 2:
      row_body(2, kc, a, b, ps, c, n, alpha, beta);
      break;
    case 3:
      row_body(3, kc, a, b, ps, c, n, alpha, beta);
      break;
    default:
      row_body(4, kc, a, b, ps, c, n, alpha, beta);
      break;
  }
}

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
    {NULL}, /* six row pointers fit the registers */
    tfs_gemm__thin_nn_avx2,
    row_kernel,
};
