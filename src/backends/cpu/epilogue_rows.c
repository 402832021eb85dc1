/*
 * backends/cpu/epilogue_rows.c - the piecewise-linear fused epilogues
 * (per-channel scale and shift, then none, Relu, Relu6 or LeakyRelu) over
 * rows of a contraction's output, on AVX-512, AVX2 or portable C, chosen
 * per call by tfs_cpu_has.  A scale and a shift together are one fused
 * multiply-add on the vector paths (one rounding; the portable path
 * rounds twice), and the activations only compare and select, so the
 * paths agree to the last bit except for that rounding.  Also Keras's
 * hard-swish over an array (tfs_fused_hard_swish_f32), the same bits on
 * every path (no fused multiply-add), and a residual addend's rows added
 * before the activation (tfs_fused_add_rows_f32), the same bits on every
 * path too.
 */
#include <immintrin.h>
#include <stdint.h>

#include "core/cpu.h"
#include "backends/cpu/fused_epilogue.h"

/* ---- portable ------------------------------------------------------------ */

static inline float act_ref(int act, float x, float alpha) {
  switch (act) {
    case TFS_FA_RELU:
      return x > 0 ? x : (x != x ? x : 0.0f);
    case TFS_FA_RELU6:
      return x > 0 ? (x > 6.0f ? 6.0f : x) : (x != x ? x : 0.0f);
    case TFS_FA_LEAKY_RELU:
      return x > 0 ? x : alpha * x;
    default:
      return x;
  }
}

static void rows_ref(int act, float alpha, float *rows, int64_t nrows,
                     int64_t ch, int64_t ld, const float *scale,
                     const float *shift) {
  for (int64_t r = 0; r < nrows; r++) {
    float *p = rows + r * ld;
    for (int64_t j = 0; j < ch; j++) {
      float x = p[j];
      if (scale) x = x * scale[j];
      if (shift) x = x + shift[j];
      p[j] = act_ref(act, x, alpha);
    }
  }
}

/* ---- AVX-512 ------------------------------------------------------------- */

#define T512 __attribute__((target("avx512f")))
#define AI __attribute__((always_inline))

static inline T512 AI __m512 act512(const int act, __m512 x, __m512 alpha) {
  const __m512 zero = _mm512_setzero_ps();
  if (act == TFS_FA_NONE) return x;
  if (act == TFS_FA_LEAKY_RELU) {
    __mmask16 pos = _mm512_cmp_ps_mask(x, zero, _CMP_GT_OQ);
    return _mm512_mask_blend_ps(pos, _mm512_mul_ps(alpha, x), x);
  }
  /* max with +0 second: NaN and -0 give +0, then NaN put back */
  __m512 r = _mm512_max_ps(x, zero);
  if (act == TFS_FA_RELU6) r = _mm512_min_ps(r, _mm512_set1_ps(6.0f));
  return _mm512_mask_blend_ps(_mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q), r, x);
}

static inline T512 AI void rows512(const int act, const int has_scale,
                                   const int has_shift, float alpha,
                                   float *rows, int64_t nrows, int64_t ch,
                                   int64_t ld, const float *scale,
                                   const float *shift) {
  const __m512 va = _mm512_set1_ps(alpha);
  for (int64_t r = 0; r < nrows; r++) {
    float *p = rows + r * ld;
    for (int64_t j = 0; j < ch; j += 16) {
      __mmask16 m = ch - j >= 16 ? (__mmask16)0xffff
                                 : (__mmask16)((1u << (ch - j)) - 1);
      __m512 x = _mm512_maskz_loadu_ps(m, p + j);
      if (has_scale && has_shift)
        x = _mm512_fmadd_ps(x, _mm512_maskz_loadu_ps(m, scale + j),
                            _mm512_maskz_loadu_ps(m, shift + j));
      else if (has_scale)
        x = _mm512_mul_ps(x, _mm512_maskz_loadu_ps(m, scale + j));
      else if (has_shift)
        x = _mm512_add_ps(x, _mm512_maskz_loadu_ps(m, shift + j));
      _mm512_mask_storeu_ps(p + j, m, act512(act, x, va));
    }
  }
}

/* ---- AVX2 ------------------------------------------------------------------ */

#define T256 __attribute__((target("avx2,fma")))

static inline T256 AI __m256 act256(const int act, __m256 x, __m256 alpha) {
  const __m256 zero = _mm256_setzero_ps();
  if (act == TFS_FA_NONE) return x;
  if (act == TFS_FA_LEAKY_RELU) {
    __m256 pos = _mm256_cmp_ps(x, zero, _CMP_GT_OQ);
    return _mm256_blendv_ps(_mm256_mul_ps(alpha, x), x, pos);
  }
  __m256 r = _mm256_max_ps(x, zero);
  if (act == TFS_FA_RELU6) r = _mm256_min_ps(r, _mm256_set1_ps(6.0f));
  return _mm256_blendv_ps(r, x, _mm256_cmp_ps(x, x, _CMP_UNORD_Q));
}

static inline T256 AI void rows256(const int act, const int has_scale,
                                   const int has_shift, float alpha,
                                   float *rows, int64_t nrows, int64_t ch,
                                   int64_t ld, const float *scale,
                                   const float *shift) {
  const __m256 va = _mm256_set1_ps(alpha);
  const __m256i idx = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  const int64_t full = ch - ch % 8;
  const __m256i tail = _mm256_cmpgt_epi32(_mm256_set1_epi32((int)(ch - full)), idx);
  for (int64_t r = 0; r < nrows; r++) {
    float *p = rows + r * ld;
    for (int64_t j = 0; j < full; j += 8) {
      __m256 x = _mm256_loadu_ps(p + j);
      if (has_scale && has_shift)
        x = _mm256_fmadd_ps(x, _mm256_loadu_ps(scale + j),
                            _mm256_loadu_ps(shift + j));
      else if (has_scale)
        x = _mm256_mul_ps(x, _mm256_loadu_ps(scale + j));
      else if (has_shift)
        x = _mm256_add_ps(x, _mm256_loadu_ps(shift + j));
      _mm256_storeu_ps(p + j, act256(act, x, va));
    }
    if (full < ch) {
      __m256 x = _mm256_maskload_ps(p + full, tail);
      if (has_scale && has_shift)
        x = _mm256_fmadd_ps(x, _mm256_maskload_ps(scale + full, tail),
                            _mm256_maskload_ps(shift + full, tail));
      else if (has_scale)
        x = _mm256_mul_ps(x, _mm256_maskload_ps(scale + full, tail));
      else if (has_shift)
        x = _mm256_add_ps(x, _mm256_maskload_ps(shift + full, tail));
      _mm256_maskstore_ps(p + full, tail, act256(act, x, va));
    }
  }
}

/* ---- instances and dispatch ------------------------------------------------ */

typedef void (*rows_fn)(float alpha, float *rows, int64_t nrows, int64_t ch,
                        int64_t ld, const float *scale, const float *shift);

/* One instance per (path, activation, scale?, shift?). */
#define INST(PATH, TGT, ACT, S, H)                                          \
  static TGT void PATH##_##ACT##_##S##H(float alpha, float *rows,           \
                                        int64_t nrows, int64_t ch,          \
                                        int64_t ld, const float *scale,     \
                                        const float *shift) {               \
    PATH(ACT, S, H, alpha, rows, nrows, ch, ld, scale, shift);              \
  }
#define INST4(PATH, TGT, ACT) \
  INST(PATH, TGT, ACT, 0, 0)  \
  INST(PATH, TGT, ACT, 0, 1)  \
  INST(PATH, TGT, ACT, 1, 0)  \
  INST(PATH, TGT, ACT, 1, 1)
#define INST_ACTS(PATH, TGT)      \
  INST4(PATH, TGT, 0)             \
  INST4(PATH, TGT, 1)             \
  INST4(PATH, TGT, 2)             \
  INST4(PATH, TGT, 4)
/* the activation numbers are TFS_FA_NONE, RELU, RELU6, LEAKY_RELU */
_Static_assert(TFS_FA_NONE == 0 && TFS_FA_RELU == 1 && TFS_FA_RELU6 == 2 &&
                   TFS_FA_LEAKY_RELU == 4,
               "epilogue_rows.c names the activations by number");
INST_ACTS(rows512, T512)
INST_ACTS(rows256, T256)

#define ROW4(PATH, ACT) \
  {PATH##_##ACT##_00, PATH##_##ACT##_01, PATH##_##ACT##_10, PATH##_##ACT##_11}
static const rows_fn k512[5][4] = {ROW4(rows512, 0), ROW4(rows512, 1),
                                   ROW4(rows512, 2), {NULL},
                                   ROW4(rows512, 4)};
static const rows_fn k256[5][4] = {ROW4(rows256, 0), ROW4(rows256, 1),
                                   ROW4(rows256, 2), {NULL},
                                   ROW4(rows256, 4)};

void tfs_fused_rows_f32(int act, float alpha, float *rows, int64_t nrows,
                        int64_t ch, int64_t ld, const float *scale,
                        const float *shift) {
  if (act < 0 || act > TFS_FA_LEAKY_RELU || act == 3) {
    rows_ref(act, alpha, rows, nrows, ch, ld, scale, shift);
    return;
  }
  int v = (scale ? 2 : 0) + (shift ? 1 : 0);
  if (tfs_cpu_has(TFS_CPU_ISA_AVX512))
    k512[act][v](alpha, rows, nrows, ch, ld, scale, shift);
  else if (tfs_cpu_has(TFS_CPU_ISA_AVX2))
    k256[act][v](alpha, rows, nrows, ch, ld, scale, shift);
  else
    rows_ref(act, alpha, rows, nrows, ch, ld, scale, shift);
}

/* ---- act(rows + add) ---------------------------------------------------- */

static void add_ref(int act, float alpha, float *rows, int64_t nrows,
                    int64_t ch, int64_t ld, const float *add, int64_t ald) {
  for (int64_t r = 0; r < nrows; r++)
    for (int64_t j = 0; j < ch; j++)
      rows[r * ld + j] = act_ref(act, rows[r * ld + j] + add[r * ald + j],
                                 alpha);
}

static inline T512 AI void add512(const int act, float alpha, float *rows,
                                  int64_t nrows, int64_t ch, int64_t ld,
                                  const float *add, int64_t ald) {
  const __m512 va = _mm512_set1_ps(alpha);
  const int64_t full = ch - ch % 16;
  const __mmask16 m = (__mmask16)((1u << (ch - full)) - 1);
  for (int64_t r = 0; r < nrows; r++) {
    float *p = rows + r * ld;
    const float *q = add + r * ald;
    for (int64_t j = 0; j < full; j += 16)
      _mm512_storeu_ps(p + j, act512(act,
                                     _mm512_add_ps(_mm512_loadu_ps(p + j),
                                                   _mm512_loadu_ps(q + j)),
                                     va));
    if (full < ch)
      _mm512_mask_storeu_ps(
          p + full, m,
          act512(act,
                 _mm512_add_ps(_mm512_maskz_loadu_ps(m, p + full),
                               _mm512_maskz_loadu_ps(m, q + full)),
                 va));
  }
}

static inline T256 AI void add256(const int act, float alpha, float *rows,
                                  int64_t nrows, int64_t ch, int64_t ld,
                                  const float *add, int64_t ald) {
  const __m256 va = _mm256_set1_ps(alpha);
  const int64_t full = ch - ch % 8;
  const __m256i tail =
      _mm256_cmpgt_epi32(_mm256_set1_epi32((int)(ch - full)),
                         _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  for (int64_t r = 0; r < nrows; r++) {
    float *p = rows + r * ld;
    const float *q = add + r * ald;
    for (int64_t j = 0; j < full; j += 8)
      _mm256_storeu_ps(p + j, act256(act,
                                     _mm256_add_ps(_mm256_loadu_ps(p + j),
                                                   _mm256_loadu_ps(q + j)),
                                     va));
    if (full < ch)
      _mm256_maskstore_ps(
          p + full, tail,
          act256(act,
                 _mm256_add_ps(_mm256_maskload_ps(p + full, tail),
                               _mm256_maskload_ps(q + full, tail)),
                 va));
  }
}

typedef void (*add_fn)(float alpha, float *rows, int64_t nrows, int64_t ch,
                       int64_t ld, const float *add, int64_t ald);
#define INST_ADD(PATH, TGT, ACT)                                            \
  static TGT void PATH##_##ACT(float alpha, float *rows, int64_t nrows,     \
                               int64_t ch, int64_t ld, const float *add,    \
                               int64_t ald) {                               \
    PATH(ACT, alpha, rows, nrows, ch, ld, add, ald);                        \
  }
#define INST_ADD_ACTS(PATH, TGT) \
  INST_ADD(PATH, TGT, 0)         \
  INST_ADD(PATH, TGT, 1)         \
  INST_ADD(PATH, TGT, 2)         \
  INST_ADD(PATH, TGT, 4)
INST_ADD_ACTS(add512, T512)
INST_ADD_ACTS(add256, T256)
static const add_fn kAdd512[5] = {add512_0, add512_1, add512_2, NULL,
                                  add512_4};
static const add_fn kAdd256[5] = {add256_0, add256_1, add256_2, NULL,
                                  add256_4};

void tfs_fused_add_rows_f32(int act, float alpha, float *rows, int64_t nrows,
                            int64_t ch, int64_t ld, const float *add,
                            int64_t ald) {
  if (act < 0 || act > TFS_FA_LEAKY_RELU || act == 3)
    add_ref(act, alpha, rows, nrows, ch, ld, add, ald);
  else if (tfs_cpu_has(TFS_CPU_ISA_AVX512))
    kAdd512[act](alpha, rows, nrows, ch, ld, add, ald);
  else if (tfs_cpu_has(TFS_CPU_ISA_AVX2))
    kAdd256[act](alpha, rows, nrows, ch, ld, add, ald);
  else
    add_ref(act, alpha, rows, nrows, ch, ld, add, ald);
}

/* ---- hard-swish: x * (min(max(x + 3, 0), 6) * (1/6)) -------------------- */

/* max(0, t) and min(6, t) return t when it is NaN, as the scalar form */
static T512 void hard_swish512(const float *x, float *y, int64_t n) {
  const __m512 three = _mm512_set1_ps(3.0f), zero = _mm512_setzero_ps();
  const __m512 six = _mm512_set1_ps(6.0f), sixth = _mm512_set1_ps(1.0f / 6.0f);
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    __m512 v = _mm512_loadu_ps(x + i);
    __m512 t = _mm512_min_ps(six, _mm512_max_ps(zero, _mm512_add_ps(v, three)));
    _mm512_storeu_ps(y + i, _mm512_mul_ps(v, _mm512_mul_ps(t, sixth)));
  }
  for (; i < n; i++) y[i] = tfs_hard_swish1(x[i]);
}

static T256 void hard_swish256(const float *x, float *y, int64_t n) {
  const __m256 three = _mm256_set1_ps(3.0f), zero = _mm256_setzero_ps();
  const __m256 six = _mm256_set1_ps(6.0f), sixth = _mm256_set1_ps(1.0f / 6.0f);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m256 v = _mm256_loadu_ps(x + i);
    __m256 t = _mm256_min_ps(six, _mm256_max_ps(zero, _mm256_add_ps(v, three)));
    _mm256_storeu_ps(y + i, _mm256_mul_ps(v, _mm256_mul_ps(t, sixth)));
  }
  for (; i < n; i++) y[i] = tfs_hard_swish1(x[i]);
}

void tfs_fused_hard_swish_f32(const float *x, float *y, int64_t n) {
  if (tfs_cpu_has(TFS_CPU_ISA_AVX512)) {
    hard_swish512(x, y, n);
  } else if (tfs_cpu_has(TFS_CPU_ISA_AVX2)) {
    hard_swish256(x, y, n);
  } else {
    for (int64_t i = 0; i < n; i++) y[i] = tfs_hard_swish1(x[i]);
  }
}
