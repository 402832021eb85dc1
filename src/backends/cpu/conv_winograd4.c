/*
 * backends/cpu/conv_winograd4.c - the tile transforms of Winograd
 * F(4x4, 3x3) (conv_winograd4.h): a 6x6 input tile to its 36
 * transform-domain values, and 36 products back to a 4x4 block of output
 * pixels, over the channels of each.
 *
 * With the points 0, 1, -1, 2, -2 and infinity:
 *   B^T = [4 0 -5 0 1 0; 0 -4 -4 1 1 0; 0 4 -4 -1 1 0;
 *          0 -2 -1 2 1 0; 0 2 -1 -2 1 0; 0 4 0 -5 0 1]
 *   A^T = [1 1 1 1 1 0; 0 1 -1 2 -2 0; 0 1 1 4 4 0; 0 1 -1 8 -8 1]
 * Both are written with sums and differences scaled only by powers of
 * two (5x as 4x + x), so every product is exact: a compiler contracting
 * a product and a sum into a multiply-add gives the same bits, and the
 * portable, AVX2 and AVX-512 forms (one generic body over float, 8- and
 * 16-lane vectors) do the same operations in the same order.
 */
#include <stdint.h>
#include <string.h>

#include "backends/cpu/conv_winograd4.h"
#include "backends/cpu/store_act.h"

/* One row or column of the input transform: x[0..5] -> y[0..5]. */
#define BT6(T, x, y)                                                        \
  do {                                                                      \
    T d42 = x[4] - x[2], d31 = x[3] - x[1];                                 \
    y[0] = (x[0] - x[2]) * 4.0f + d42;                                      \
    y[1] = (x[3] + x[4]) - (x[1] + x[2]) * 4.0f;                            \
    y[2] = (x[4] - x[3]) + (x[1] - x[2]) * 4.0f;                            \
    y[3] = d42 + d31 * 2.0f;                                                \
    y[4] = d42 - d31 * 2.0f;                                                \
    y[5] = (x[1] - x[3]) * 4.0f + (x[5] - x[3]);                            \
  } while (0)

/* One row or column of the output transform: m[0..5] -> y[0..3]. */
#define AT4(T, m, y)                                                        \
  do {                                                                      \
    T sa = m[1] + m[2], sb = m[1] - m[2], sc = m[3] + m[4],                 \
      sd = m[3] - m[4];                                                     \
    y[0] = (m[0] + sa) + sc;                                                \
    y[1] = sb + sd * 2.0f;                                                  \
    y[2] = sa + sc * 4.0f;                                                  \
    y[3] = (sb + sd * 8.0f) + m[5];                                         \
  } while (0)

/* ---- portable: one channel at a time ------------------------------------ */

static void in_scalar(const float *const *d, int64_t c0, int64_t c1,
                      float *v, int64_t ldv) {
  for (int64_t ch = c0; ch < c1; ch++) {
    float t[36];
    for (int j = 0; j < 6; j++) {
      float x[6], y[6];
      for (int r = 0; r < 6; r++) x[r] = d[r * 6 + j][ch];
      BT6(float, x, y);
      for (int i = 0; i < 6; i++) t[i * 6 + j] = y[i];
    }
    for (int i = 0; i < 6; i++) {
      const float *x = t + 6 * i;
      float y[6];
      BT6(float, x, y);
      for (int k = 0; k < 6; k++) v[(6 * i + k) * ldv + ch] = y[k];
    }
  }
}

static inline float act_scalar(float x, const float *bias, int64_t ch,
                               int relu) {
  if (bias) x = x + bias[ch];
  if (tfs_store_clamps(relu) && x < 0.0f) x = 0.0f; /* NaN, -0 kept */
  if (relu == TFS_STORE_RELU6 && x > 6.0f) x = 6.0f;
  return relu == TFS_STORE_HARD_SWISH ? tfs_hard_swish1(x) : x;
}

static void out_scalar(const float *m, int64_t ldm, int64_t c0, int64_t c1,
                       float *const *y, const float *bias, int relu) {
  for (int64_t ch = c0; ch < c1; ch++) {
    float s[24];
    for (int j = 0; j < 6; j++) {
      float x[6], r[4];
      for (int i = 0; i < 6; i++) x[i] = m[(i * 6 + j) * ldm + ch];
      AT4(float, x, r);
      for (int i = 0; i < 4; i++) s[i * 6 + j] = r[i];
    }
    for (int i = 0; i < 4; i++) {
      const float *x = s + 6 * i;
      float r[4];
      AT4(float, x, r);
      for (int k = 0; k < 4; k++)
        if (y[4 * i + k]) y[4 * i + k][ch] = act_scalar(r[k], bias, ch, relu);
    }
  }
}

/* ---- vectors: the same body over 8 or 16 lanes -------------------------- */

#if defined(__x86_64__) || defined(__i386__)
typedef float v8 __attribute__((vector_size(32)));
typedef float v8u __attribute__((vector_size(32), aligned(4)));
typedef int32_t i8 __attribute__((vector_size(32)));
typedef float v16 __attribute__((vector_size(64)));
typedef float v16u __attribute__((vector_size(64), aligned(4)));
typedef int32_t i16 __attribute__((vector_size(64)));

/* x with the bias added, then max(0, x) and min(6, x) as the vector
 * max/min instructions give them: NaN and -0 kept; hard-swish as
 * tfs_hard_swish1 computes it (a NaN t stays NaN). */
#define ACT_VEC(V, I, x, bias, ch, relu)                                    \
  do {                                                                      \
    if (bias) x = x + *(const V##u *)((bias) + (ch));                       \
    if (tfs_store_clamps(relu)) x = (V)((I)x & ~(I)(x < 0.0f));             \
    if ((relu) == TFS_STORE_RELU6) {                                        \
      I big = (I)(x > 6.0f);                                                \
      x = (V)(((I)x & ~big) | ((I)((V){0} + 6.0f) & big));                  \
    }                                                                       \
    if ((relu) == TFS_STORE_HARD_SWISH) {                                   \
      V t = x + 3.0f;                                                       \
      t = (V)((I)t & ~(I)(t < 0.0f));                                       \
      I big = (I)(t > 6.0f);                                                \
      t = (V)(((I)t & ~big) | ((I)((V){0} + 6.0f) & big));                  \
      x = x * (t * (1.0f / 6.0f));                                          \
    }                                                                       \
  } while (0)

#define DEFINE_VEC(V, I, W, TGT, IN, OUT)                                   \
  TGT static int64_t IN(const float *const *d, int64_t ch, int64_t nc,      \
                        float *v, int64_t ldv) {                            \
    for (; ch + W <= nc; ch += W) {                                         \
      V t[36];                                                              \
      for (int j = 0; j < 6; j++) {                                         \
        V x[6], y[6];                                                       \
        for (int r = 0; r < 6; r++) x[r] = *(const V##u *)(d[r * 6 + j] + ch); \
        BT6(V, x, y);                                                       \
        for (int i = 0; i < 6; i++) t[i * 6 + j] = y[i];                    \
      }                                                                     \
      for (int i = 0; i < 6; i++) {                                         \
        const V *x = t + 6 * i;                                             \
        V y[6];                                                             \
        BT6(V, x, y);                                                       \
        for (int k = 0; k < 6; k++)                                         \
          *(V##u *)(v + (6 * i + k) * ldv + ch) = y[k];                     \
      }                                                                     \
    }                                                                       \
    return ch;                                                              \
  }                                                                         \
  TGT static int64_t OUT(const float *m, int64_t ldm, int64_t ch,           \
                         int64_t nc, float *const *y, const float *bias,    \
                         int relu) {                                        \
    for (; ch + W <= nc; ch += W) {                                         \
      V s[24];                                                              \
      for (int j = 0; j < 6; j++) {                                         \
        V x[6], r[4];                                                       \
        for (int i = 0; i < 6; i++)                                         \
          x[i] = *(const V##u *)(m + (i * 6 + j) * ldm + ch);               \
        AT4(V, x, r);                                                       \
        for (int i = 0; i < 4; i++) s[i * 6 + j] = r[i];                    \
      }                                                                     \
      for (int i = 0; i < 4; i++) {                                         \
        const V *x = s + 6 * i;                                             \
        V r[4];                                                             \
        AT4(V, x, r);                                                       \
        for (int k = 0; k < 4; k++) {                                       \
          if (!y[4 * i + k]) continue;                                      \
          V o = r[k];                                                       \
          ACT_VEC(V, I, o, bias, ch, relu);                                 \
          *(V##u *)(y[4 * i + k] + ch) = o;                                 \
        }                                                                   \
      }                                                                     \
    }                                                                       \
    return ch;                                                              \
  }

DEFINE_VEC(v8, i8, 8, __attribute__((target("avx2"))), in_avx2, out_avx2)
DEFINE_VEC(v16, i16, 16, __attribute__((target("avx512f"))), in_avx512,
           out_avx512)
#endif

void tfs_wino4__in(int simd, const float *const *d, int64_t nc, float *v,
                   int64_t ldv) {
  int64_t ch = 0;
#if defined(__x86_64__) || defined(__i386__)
  if (simd >= 2) ch = in_avx512(d, ch, nc, v, ldv);
  if (simd >= 1) ch = in_avx2(d, ch, nc, v, ldv);
#endif
  in_scalar(d, ch, nc, v, ldv);
}

void tfs_wino4__out(int simd, const float *m, int64_t ldm, int64_t nc,
                    float *const *y, const float *bias, int relu) {
  int64_t ch = 0;
#if defined(__x86_64__) || defined(__i386__)
  if (simd >= 2) ch = out_avx512(m, ldm, ch, nc, y, bias, relu);
  if (simd >= 1) ch = out_avx2(m, ldm, ch, nc, y, bias, relu);
#endif
  out_scalar(m, ldm, ch, nc, y, bias, relu);
}
