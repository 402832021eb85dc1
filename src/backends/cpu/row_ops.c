/*
 * backends/cpu/row_ops.c - passes over one contiguous row of floats for
 * Softmax, LogSoftmax and _TfsLayerNorm: AVX2 loops and the portable C
 * they must match bit for bit (row_ops.h).
 *
 * A row of 128 to 1024 floats is a few hundred cycles of work, so what
 * costs is the loop-carried chain: the portable maximum is a scalar
 * compare per element (a NaN must win, which the vectorizer cannot
 * express) and the layer norm's last pass stayed scalar because its
 * output may alias its inputs.  The AVX2 loops keep the portable code's
 * partial sums lane for lane.  Products and sums are never contracted
 * into a multiply-add on either path (fp-contract=off below), so the
 * paths agree however the file is compiled.
 */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("fp-contract=off")
#endif

#include <immintrin.h>
#include <math.h>

#include "core/cpu.h"
#include "backends/cpu/row_ops.h"

#define T256 __attribute__((target("avx2")))

/* ---- portable ------------------------------------------------------------ */

static float max_c(const float *x, int64_t n) {
  float mx = -INFINITY;
  int nan = 0;
  for (int64_t i = 0; i < n; i++) {
    mx = x[i] > mx ? x[i] : mx;
    nan |= x[i] != x[i];
  }
  return nan ? NAN : mx;
}

static double sum_c(const float *x, int64_t n) {
  double s[16] = {0}, t[4];
  int64_t i = 0;
  for (; i + 16 <= n; i += 16)
    for (int k = 0; k < 16; k++) s[k] += x[i + k];
  for (int l = 0; l < 4; l++)
    t[l] = (s[l] + s[4 + l]) + (s[8 + l] + s[12 + l]);
  for (; i < n; i++) t[0] += x[i];
  return (t[0] + t[1]) + (t[2] + t[3]);
}

/* s (the sum of the tail) plus eight partial sums, in one fixed order */
static inline float combine8(float s, const float *a) {
  return s + ((a[0] + a[4]) + (a[1] + a[5])) + ((a[2] + a[6]) + (a[3] + a[7]));
}

static float sum8_c(const float *v, int64_t n) {
  float acc[8] = {0};
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    for (int k = 0; k < 8; k++) acc[k] += v[i + k];
  float s = 0;
  for (; i < n; i++) s += v[i];
  return combine8(s, acc);
}

static float sq_dev8_c(const float *v, int64_t n, float mean) {
  float acc[8] = {0};
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    for (int k = 0; k < 8; k++) {
      float t = v[i + k] - mean;
      acc[k] += t * t;
    }
  float s = 0;
  for (; i < n; i++) s += (v[i] - mean) * (v[i] - mean);
  return combine8(s, acc);
}

/* the last pass of one row, element i from i0 on */
static void ln_tail_c(const float *x, float *y, int64_t i0, int64_t d,
                      const float *scale, const float *offset, float rs,
                      float nm) {
  for (int64_t i = i0; i < d; i++) {
    float m = rs * scale[i];
    y[i] = x[i] * m + (nm * m + offset[i]);
  }
}

static void ln_c(const float *x, float *y, int64_t rows, int64_t d,
                 const float *scale, const float *offset, float eps) {
  for (int64_t r = 0; r < rows; r++, x += d, y += d) {
    float mean = sum8_c(x, d) / (float)d;
    float var = sq_dev8_c(x, d, mean) / (float)d;
    float rs = 1.0f / sqrtf(var + eps);
    ln_tail_c(x, y, 0, d, scale, offset, rs, -mean);
  }
}

/* ---- AVX2 ------------------------------------------------------------------ */

static T256 float max_avx2(const float *x, int64_t n) {
  __m256 mx = _mm256_set1_ps(-INFINITY), bad = _mm256_setzero_ps();
  __m256 mx2 = mx, bad2 = bad;
  int64_t i = 0;
  /* two running maxima: the order of a maximum does not change it */
  for (; i + 16 <= n; i += 16) {
    __m256 v = _mm256_loadu_ps(x + i), w = _mm256_loadu_ps(x + i + 8);
    mx = _mm256_max_ps(mx, v);
    mx2 = _mm256_max_ps(mx2, w);
    bad = _mm256_or_ps(bad, _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
    bad2 = _mm256_or_ps(bad2, _mm256_cmp_ps(w, w, _CMP_UNORD_Q));
  }
  mx = _mm256_max_ps(mx, mx2);
  bad = _mm256_or_ps(bad, bad2);
  for (; i + 8 <= n; i += 8) {
    __m256 v = _mm256_loadu_ps(x + i);
    mx = _mm256_max_ps(mx, v);
    bad = _mm256_or_ps(bad, _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
  }
  float lanes[8];
  _mm256_storeu_ps(lanes, mx);
  float tail = max_c(x + i, n - i), m = tail;
  if (m != m || _mm256_movemask_ps(bad)) return NAN;
  for (int k = 0; k < 8; k++) m = lanes[k] > m ? lanes[k] : m;
  return m;
}

/* four chains of four lanes: element i in lane i % 16, as sum_c */
static T256 double sum_avx2(const float *x, int64_t n) {
  __m256d a0 = _mm256_setzero_pd(), a1 = a0, a2 = a0, a3 = a0;
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    a0 = _mm256_add_pd(a0, _mm256_cvtps_pd(_mm_loadu_ps(x + i)));
    a1 = _mm256_add_pd(a1, _mm256_cvtps_pd(_mm_loadu_ps(x + i + 4)));
    a2 = _mm256_add_pd(a2, _mm256_cvtps_pd(_mm_loadu_ps(x + i + 8)));
    a3 = _mm256_add_pd(a3, _mm256_cvtps_pd(_mm_loadu_ps(x + i + 12)));
  }
  double t[4];
  _mm256_storeu_pd(t, _mm256_add_pd(_mm256_add_pd(a0, a1),
                                    _mm256_add_pd(a2, a3)));
  for (; i < n; i++) t[0] += x[i];
  return (t[0] + t[1]) + (t[2] + t[3]);
}

static T256 void sub_avx2(const float *x, float *y, int64_t n, float s) {
  const __m256 v = _mm256_set1_ps(s);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    _mm256_storeu_ps(y + i, _mm256_sub_ps(_mm256_loadu_ps(x + i), v));
  for (; i < n; i++) y[i] = x[i] - s;
}

static T256 void add_avx2(const float *a, const float *b, float *y,
                          int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    _mm256_storeu_ps(y + i, _mm256_add_ps(_mm256_loadu_ps(a + i),
                                          _mm256_loadu_ps(b + i)));
  for (; i < n; i++) y[i] = a[i] + b[i];
}

static T256 void scale_avx2(float *x, int64_t n, float s) {
  const __m256 v = _mm256_set1_ps(s);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    _mm256_storeu_ps(x + i, _mm256_mul_ps(_mm256_loadu_ps(x + i), v));
  for (; i < n; i++) x[i] *= s;
}

static T256 void ln_avx2(const float *x, float *y, int64_t rows, int64_t d,
                         const float *scale, const float *offset, float eps) {
  const int64_t full = d - d % 8;
  float acc[8];
  for (int64_t r = 0; r < rows; r++, x += d, y += d) {
    __m256 a = _mm256_setzero_ps();
    for (int64_t i = 0; i < full; i += 8)
      a = _mm256_add_ps(a, _mm256_loadu_ps(x + i));
    float s = 0;
    for (int64_t i = full; i < d; i++) s += x[i];
    _mm256_storeu_ps(acc, a);
    float mean = combine8(s, acc) / (float)d;
    const __m256 vm = _mm256_set1_ps(mean);
    a = _mm256_setzero_ps();
    for (int64_t i = 0; i < full; i += 8) {
      __m256 t = _mm256_sub_ps(_mm256_loadu_ps(x + i), vm);
      a = _mm256_add_ps(a, _mm256_mul_ps(t, t));
    }
    s = 0;
    for (int64_t i = full; i < d; i++) s += (x[i] - mean) * (x[i] - mean);
    _mm256_storeu_ps(acc, a);
    float var = combine8(s, acc) / (float)d;
    float rs = 1.0f / sqrtf(var + eps), nm = -mean;
    const __m256 vr = _mm256_set1_ps(rs), vn = _mm256_set1_ps(nm);
    for (int64_t i = 0; i < full; i += 8) {
      __m256 m = _mm256_mul_ps(vr, _mm256_loadu_ps(scale + i));
      __m256 c = _mm256_add_ps(_mm256_mul_ps(vn, m),
                               _mm256_loadu_ps(offset + i));
      _mm256_storeu_ps(y + i,
                       _mm256_add_ps(_mm256_mul_ps(_mm256_loadu_ps(x + i), m),
                                     c));
    }
    ln_tail_c(x, y, full, d, scale, offset, rs, nm);
  }
}

/* ---- dispatch ---------------------------------------------------------------- */

float tfs_row_max_f32(const float *x, int64_t n) {
  return tfs_cpu_has(TFS_CPU_ISA_AVX2) ? max_avx2(x, n) : max_c(x, n);
}

double tfs_row_sum_f64(const float *x, int64_t n) {
  return tfs_cpu_has(TFS_CPU_ISA_AVX2) ? sum_avx2(x, n) : sum_c(x, n);
}

void tfs_row_sub_f32(const float *x, float *y, int64_t n, float s) {
  if (tfs_cpu_has(TFS_CPU_ISA_AVX2)) {
    sub_avx2(x, y, n, s);
    return;
  }
  for (int64_t i = 0; i < n; i++) y[i] = x[i] - s;
}

void tfs_row_add_f32(const float *a, const float *b, float *y, int64_t n) {
  if (tfs_cpu_has(TFS_CPU_ISA_AVX2)) {
    add_avx2(a, b, y, n);
    return;
  }
  for (int64_t i = 0; i < n; i++) y[i] = a[i] + b[i];
}

void tfs_row_scale_f32(float *x, int64_t n, float s) {
  if (tfs_cpu_has(TFS_CPU_ISA_AVX2)) {
    scale_avx2(x, n, s);
    return;
  }
  for (int64_t i = 0; i < n; i++) x[i] *= s;
}

void tfs_row_layer_norm_f32(const float *x, float *y, int64_t rows,
                            int64_t d, const float *scale,
                            const float *offset, float eps) {
  if (rows <= 0 || d <= 0) return;
  if (tfs_cpu_has(TFS_CPU_ISA_AVX2))
    ln_avx2(x, y, rows, d, scale, offset, eps);
  else
    ln_c(x, y, rows, d, scale, offset, eps);
}
