/*
 * backends/cpu/gemm_avx512.c - AVX-512 micro-kernels: a 12x32 tile in 24
 * zmm accumulators (two FMA ports kept busy by 24 independent chains),
 * specialised for 1..12 rows; partial columns use masked loads/stores.
 * An indirect variant reads A from row segments (convolution patches)
 * instead of a packed panel, and another one from evenly spaced rows
 * (ubcast: four base pointers and the stride for twelve rows).
 * Compiled with function attributes; gemm.c calls them only on CPUs (and
 * kernels) that enable AVX-512 state.
 */
#include <immintrin.h>

#include "backends/cpu/gemm_internal.h"

#define MR 12
#define NR 32
#define TGT __attribute__((target("avx512f")))

/* Rows are spelled out (not arrays) so that the accumulators live in
 * registers; `m` is a constant after inlining, so unused rows vanish. */
#define ROWS(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11)

static inline TGT __attribute__((always_inline)) void ukr_body(
    const int m, const int half, int64_t kc, const float *a, const float *b,
    float *c, int64_t ldc, int n, float alpha, float beta, const float *pf,
    int64_t npf) {
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
#define STEP(i)                                             \
  if (m > i) {                                              \
    __m512 x = _mm512_set1_ps(a[i]);                        \
    c##i##0 = _mm512_fmadd_ps(x, b0, c##i##0);              \
    if (!half) c##i##1 = _mm512_fmadd_ps(x, b1, c##i##1);   \
  }
#define DEPTH_STEP(PF)                                                  \
  {                                                                     \
    __m512 b0 = _mm512_load_ps(b);                                      \
    __m512 b1 = half ? b0 : _mm512_load_ps(b + 16);                     \
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
  const __m512 va = _mm512_set1_ps(alpha), vb = _mm512_set1_ps(beta);
  const __mmask16 k0 =
      n >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << n) - 1);
  const __mmask16 k1 = n >= 32   ? (__mmask16)0xffff
                       : n > 16 ? (__mmask16)((1u << (n - 16)) - 1)
                                : (__mmask16)0;
#define STORE(i)                                                        \
  if (m > i) {                                                          \
    float *r = c + i * ldc;                                             \
    __m512 x0 = _mm512_mul_ps(va, c##i##0);                             \
    __m512 x1 = _mm512_mul_ps(va, c##i##1);                             \
    if (beta != 0.0f) {                                                 \
      x0 = _mm512_fmadd_ps(vb, _mm512_maskz_loadu_ps(k0, r), x0);       \
      if (!half)                                                        \
        x1 = _mm512_fmadd_ps(vb, _mm512_maskz_loadu_ps(k1, r + 16), x1); \
    }                                                                   \
    _mm512_mask_storeu_ps(r, k0, x0);                                   \
    if (!half) _mm512_mask_storeu_ps(r + 16, k1, x1);                   \
  }
  ROWS(STORE)
#undef STORE
}

/* One A value of a uniform-stride panel broadcast from q + k * rsb (k 0,
 * 1 or 2, a constant after inlining) with x86's base + index * scale
 * addressing: four base pointers and the stride serve twelve rows, where
 * twelve row pointers did not fit the general registers and were
 * reloaded from the stack and xmm registers every depth step.  asm: the
 * compiler would otherwise give each row an induction variable of its
 * own again.  A is only read while the kernel runs. */
static inline TGT __attribute__((always_inline)) __m512 ubcast(
    const int k, const char *q, size_t rsb) {
  __m512 r;
  if (k == 0)
    __asm__("vbroadcastss (%1), %0" : "=v"(r) : "r"(q));
  else if (k == 1)
    __asm__("vbroadcastss (%1,%2,1), %0" : "=v"(r) : "r"(q), "r"(rsb));
  else
    __asm__("vbroadcastss (%1,%2,2), %0" : "=v"(r) : "r"(q), "r"(rsb));
  return r;
}

/* The indirect kernel (convolutions): the same 12x32 tile, A broadcast
 * straight from the rows' segments instead of a packed panel; partial
 * sums carried in C when acc, else the tile's lines of C and of the
 * residual addend prefetched before the depth steps; bias, the addend
 * and the activation (store_act.h) as it stores. */
static inline TGT __attribute__((always_inline)) void iukr_body(
    const int m, const int half, const int uni, int64_t nseg, int64_t seglen,
    const int64_t *segoff, const float *const *rows, const float *row0,
    int64_t rstride, const float *b, float *c, int64_t ldc, int n, int acc,
    const float *bias, const float *add, int relu, const float *pf,
    int64_t npf) {
  const __mmask16 k0 =
      n >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << n) - 1);
  const __mmask16 k1 = n >= 32   ? (__mmask16)0xffff
                       : n > 16 ? (__mmask16)((1u << (n - 16)) - 1)
                                : (__mmask16)0;
#define ZERO(i) __m512 c##i##0 = _mm512_setzero_ps(), c##i##1 = c##i##0;
  ROWS(ZERO)
#undef ZERO
  if (acc) {
#define LOADC(i)                                                  \
  if (m > i) {                                                    \
    c##i##0 = _mm512_maskz_loadu_ps(k0, c + i * ldc);             \
    if (!half) c##i##1 = _mm512_maskz_loadu_ps(k1, c + i * ldc + 16); \
  }
    ROWS(LOADC)
#undef LOADC
  } else {
    /* the tile's lines of C (written at the end) and of the residual
     * addend (read there), asked for while the depth steps run */
#define PREFETCH_CA(i)                                                      \
  if (m > i) {                                                              \
    _mm_prefetch((const char *)(c + i * ldc), _MM_HINT_T0);                 \
    if (!half) _mm_prefetch((const char *)(c + i * ldc + 16), _MM_HINT_T0); \
    if (add) {                                                              \
      _mm_prefetch((const char *)(add + i * ldc), _MM_HINT_T0);             \
      if (!half)                                                            \
        _mm_prefetch((const char *)(add + i * ldc + 16), _MM_HINT_T0);      \
    }                                                                       \
  }
    ROWS(PREFETCH_CA)
#undef PREFETCH_CA
  }
  /* depth steps left that prefetch (gemm_internal.h) */
  const int two = npf > nseg * seglen; /* lines a step */
  int64_t pfs = npf <= 0 ? 0 : two ? (npf + 1) / 2 : npf;
  const size_t rsb = (size_t)rstride * sizeof(float);
  for (int64_t s = 0; s < nseg; s++) {
    const int64_t off = segoff[s];
#define SEG(i) const float *a##i = !uni && m > i ? rows[i] + off : NULL;
    ROWS(SEG)
#undef SEG
    /* uni: rows 3t, 3t + 1, 3t + 2 at qt, qt + rsb, qt + 2 rsb */
    const char *q0 = uni ? (const char *)(row0 + off) : NULL;
    const char *q1 = uni ? q0 + 3 * rsb : NULL;
    const char *q2 = uni ? q0 + 6 * rsb : NULL;
    const char *q3 = uni ? q0 + 9 * rsb : NULL;
#define QB(t) (t == 0 ? q0 : t == 1 ? q1 : t == 2 ? q2 : q3)
#define STEP(i)                                                    \
  if (m > i) {                                                     \
    __m512 x = uni ? ubcast(i % 3, QB(i / 3), rsb)                 \
                   : _mm512_set1_ps(a##i[p]);                      \
    c##i##0 = _mm512_fmadd_ps(x, b0, c##i##0);                     \
    if (!half) c##i##1 = _mm512_fmadd_ps(x, b1, c##i##1);          \
  }
#define DEPTH_STEP(PF)                                                  \
  {                                                                     \
    __m512 b0 = _mm512_load_ps(b);                                      \
    __m512 b1 = half ? b0 : _mm512_load_ps(b + 16);                     \
    PF;                                                                 \
    ROWS(STEP)                                                          \
    b += NR;                                                            \
    if (uni) {                                                          \
      q0 += sizeof(float);                                              \
      if (m > 3) q1 += sizeof(float);                                   \
      if (m > 6) q2 += sizeof(float);                                   \
      if (m > 9) q3 += sizeof(float);                                   \
    }                                                                   \
  }
    const int64_t sp = pfs < seglen ? pfs : seglen;
    pfs -= sp;
    int64_t p = 0;
    TFS_GEMM_DEPTH_LOOP(p, seglen, sp, two, pf, DEPTH_STEP);
#undef DEPTH_STEP
#undef STEP
#undef QB
  }
  /* max(0, x) as _mm512_max_ps(zero, x): its second operand (x) when x
   * is NaN, as Relu keeps NaN; Relu6's min(6, .) the same way; hard-swish
   * as store_act.h gives it */
  const __m512 z = _mm512_setzero_ps(), six = _mm512_set1_ps(6.0f);
  __m512 bb0 = z, bb1 = z;
  if (bias) {
    bb0 = _mm512_maskz_loadu_ps(k0, bias);
    if (!half) bb1 = _mm512_maskz_loadu_ps(k1, bias + 16);
  }
#define STORE(i)                                                        \
  if (m > i) {                                                          \
    __m512 x0 = c##i##0, x1 = c##i##1;                                  \
    if (bias) x0 = _mm512_add_ps(x0, bb0), x1 = _mm512_add_ps(x1, bb1); \
    if (add) {                                                          \
      x0 = _mm512_add_ps(x0, _mm512_maskz_loadu_ps(k0, add + i * ldc)); \
      if (!half)                                                        \
        x1 = _mm512_add_ps(x1,                                          \
                           _mm512_maskz_loadu_ps(k1, add + i * ldc + 16)); \
    }                                                                   \
    if (tfs_store_clamps(relu))                                         \
      x0 = _mm512_max_ps(z, x0), x1 = _mm512_max_ps(z, x1);             \
    if (relu == TFS_STORE_RELU6)                                        \
      x0 = _mm512_min_ps(six, x0), x1 = _mm512_min_ps(six, x1);         \
    if (relu == TFS_STORE_HARD_SWISH)                                   \
      x0 = TFS_HARD_SWISH_VEC(_mm512, x0),                              \
      x1 = TFS_HARD_SWISH_VEC(_mm512, x1);                              \
    _mm512_mask_storeu_ps(c + i * ldc, k0, x0);                         \
    if (!half) _mm512_mask_storeu_ps(c + i * ldc + 16, k1, x1);         \
  }
  ROWS(STORE)
#undef STORE
}

/* A panel of at most 16 columns (the last of 48, 80, 112 or 144, or a
 * 16-column product) runs the half kernel: one accumulator a row, no FMAs
 * on the zero padding.  Each column sees the same FMAs in the same order,
 * so the same bits. */
#define UKR(M)                                                               \
  static TGT void ukr_##M(int64_t kc, const float *a, const float *b,         \
                          float *c, int64_t ldc, int n, float alpha,          \
                          float beta, const float *pf, int64_t npf) {         \
    if (n <= 16)                                                             \
      ukr_body(M, 1, kc, a, b, c, ldc, n, alpha, beta, pf, npf);              \
    else                                                                     \
      ukr_body(M, 0, kc, a, b, c, ldc, n, alpha, beta, pf, npf);              \
  }                                                                          \
  static TGT void iukr_##M(int64_t nseg, int64_t seglen,                      \
                           const int64_t *segoff, const float *const *rows,   \
                           const float *b, float *c, int64_t ldc, int n,      \
                           int acc, const float *bias, const float *add,      \
                           int relu, const float *pf, int64_t npf) {          \
    if (n <= 16)                                                             \
      iukr_body(M, 1, 0, nseg, seglen, segoff, rows, NULL, 0, b, c, ldc, n,   \
                acc, bias, add, relu, pf, npf);                              \
    else                                                                     \
      iukr_body(M, 0, 0, nseg, seglen, segoff, rows, NULL, 0, b, c, ldc, n,   \
                acc, bias, add, relu, pf, npf);                              \
  }                                                                          \
  static TGT void iukru_##M(int64_t nseg, int64_t seglen,                     \
                            const int64_t *segoff, const float *row0,         \
                            int64_t rstride, const float *b, float *c,        \
                            int64_t ldc, int n, int acc, const float *bias,   \
                            const float *add, int relu, const float *pf,      \
                            int64_t npf) {                                    \
    if (n <= 16)                                                             \
      iukr_body(M, 1, 1, nseg, seglen, segoff, NULL, row0, rstride, b, c,     \
                ldc, n, acc, bias, add, relu, pf, npf);                      \
    else                                                                     \
      iukr_body(M, 0, 1, nseg, seglen, segoff, NULL, row0, rstride, b, c,     \
                ldc, n, acc, bias, add, relu, pf, npf);                      \
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

/* One row against `np` (a constant after inlining) panels at once: eight
 * accumulators at four panels instead of ukr_1's two, which left a
 * batch-1 dense layer waiting on the FMA latency with few loads of B in
 * flight (MobileNetV2's 1280 x 1000 classifier from memory).  Each
 * column gets ukr_1's FMAs in the same order and its store: the same
 * bits. */
static inline TGT __attribute__((always_inline)) void row_body(
    const int np, int64_t kc, const float *a, const float *b, int64_t ps,
    float *c, int n, float alpha, float beta) {
  __m512 acc[TFS_GEMM_ROW_PANELS][2];
#pragma GCC unroll 4
  for (int j = 0; j < np; j++)
    acc[j][0] = acc[j][1] = _mm512_setzero_ps();
  for (int64_t p = 0; p < kc; p++) {
    const __m512 x = _mm512_set1_ps(a[p * MR]);
#pragma GCC unroll 4
    for (int j = 0; j < np; j++) {
      const float *bp = b + j * ps + p * NR;
      acc[j][0] = _mm512_fmadd_ps(x, _mm512_load_ps(bp), acc[j][0]);
      acc[j][1] = _mm512_fmadd_ps(x, _mm512_load_ps(bp + 16), acc[j][1]);
    }
  }
  const __m512 va = _mm512_set1_ps(alpha), vb = _mm512_set1_ps(beta);
#pragma GCC unroll 4
  for (int j = 0; j < np; j++) {
    const int cols = n - j * NR < NR ? n - j * NR : NR;
    const __mmask16 k0 =
        cols >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << cols) - 1);
    const __mmask16 k1 = cols >= 32  ? (__mmask16)0xffff
                         : cols > 16 ? (__mmask16)((1u << (cols - 16)) - 1)
                                     : (__mmask16)0;
    float *r = c + j * NR;
    __m512 x0 = _mm512_mul_ps(va, acc[j][0]);
    __m512 x1 = _mm512_mul_ps(va, acc[j][1]);
    if (beta != 0.0f) {
      x0 = _mm512_fmadd_ps(vb, _mm512_maskz_loadu_ps(k0, r), x0);
      x1 = _mm512_fmadd_ps(vb, _mm512_maskz_loadu_ps(k1, r + 16), x1);
    }
    _mm512_mask_storeu_ps(r, k0, x0);
    _mm512_mask_storeu_ps(r + 16, k1, x1);
  }
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

/* Skylake-X and later: a 256x32 B panel (32 KiB) in L1, a 192x256 A block
 * (192 KiB) in L2, a 256x4096 B block in L3. */
const tfs_gemm_isa tfs_gemm_isa_avx512 = {
    "avx512 12x32", MR, NR, 256, 192, 4096,
    {NULL, ukr_1, ukr_2, ukr_3, ukr_4, ukr_5, ukr_6, ukr_7, ukr_8, ukr_9,
     ukr_10, ukr_11, ukr_12},
    {NULL, iukr_1, iukr_2, iukr_3, iukr_4, iukr_5, iukr_6, iukr_7, iukr_8,
     iukr_9, iukr_10, iukr_11, iukr_12},
    {NULL, iukru_1, iukru_2, iukru_3, iukru_4, iukru_5, iukru_6, iukru_7,
     iukru_8, iukru_9, iukru_10, iukru_11, iukru_12},
    tfs_gemm__thin_nn_avx512,
    row_kernel,
};
