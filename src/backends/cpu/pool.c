/*
 * backends/cpu/pool.c - MaxPool and AvgPool: 2-D windows over H and W
 * (SAME, VALID and, for MaxPool, EXPLICIT padding, skipped or, with the
 * tfsess-only _tfs_pad_value, read as a value), and MaxPool across
 * depth.  NHWC runs the inner loop over contiguous channels; NCHW is
 * supported too (TensorFlow's CPU kernels only take NHWC).  Semantics as
 * TensorFlow: MaxPool starts from the dtype's lowest value and never picks
 * NaN; AvgPool divides by the number of in-bounds elements.
 */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("tree-vectorize", "vect-cost-model=dynamic")
#endif

#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/cpu.h"
#include "core/half.h"
#include "backends/cpu/cpu_tables.h"
#include "backends/cpu/pool.h"
#include "ops/nn_window.h"

typedef struct pool_geom {
  int64_t n, h, w, c;         /* input */
  int64_t oh, ow, oc;         /* output */
  int64_t kh, kw, sh, sw;     /* window and strides */
  int64_t pt, pl;             /* padding before (top, left) */
  int64_t dwin;               /* depth window (depth pooling), else 1 */
  float pv;                   /* the padding's value (maxpool_f32_pv) */
  /* element strides of H, W, C and of the batch, input and output */
  int64_t is_h, is_w, is_c, is_n, os_h, os_w, os_c, os_n;
} pool_geom;

/* Computes output rows [r0, r1) (a row is one (n, oh)). */
typedef void (*pool_fn)(const void *in, void *out, const pool_geom *g,
                        int64_t r0, int64_t r1);

typedef struct pool_state {
  tfs_window w;
  int is_max;
  float pv; /* _tfs_pad_value: the padding reads as pv, not skipped */
  pool_fn spatial, depth;
} pool_state;

/* Window bounds of output position o along one axis, clipped. */
static inline void window(int64_t o, int64_t s, int64_t pad, int64_t k,
                          int64_t size, int64_t *lo, int64_t *hi) {
  int64_t start = o * s - pad, end = start + k;
  *lo = start < 0 ? 0 : start;
  *hi = end > size ? size : end;
}

/* Spatial max pooling: acc starts at LOWEST and takes x when GT(x, acc). */
#define MAX_POOL(NAME, T, LOWEST, GT)                                       \
  static void NAME(const void *IN, void *OUT, const pool_geom *g,           \
                   int64_t r0, int64_t r1) {                                \
    const T *in = IN;                                                       \
    T *out = OUT;                                                           \
    const int64_t C = g->c, ics = g->is_c, ocs = g->os_c;                   \
    for (int64_t r = r0; r < r1; r++) {                                     \
      int64_t b = r / g->oh, oy = r % g->oh, y0, y1;                        \
      window(oy, g->sh, g->pt, g->kh, g->h, &y0, &y1);                      \
      for (int64_t ox = 0; ox < g->ow; ox++) {                              \
        int64_t x0, x1;                                                     \
        window(ox, g->sw, g->pl, g->kw, g->w, &x0, &x1);                    \
        T *o = out + b * g->os_n + oy * g->os_h + ox * g->os_w;             \
        for (int64_t c = 0; c < C; c++) o[c * ocs] = LOWEST;                \
        for (int64_t y = y0; y < y1; y++)                                   \
          for (int64_t x = x0; x < x1; x++) {                               \
            const T *p = in + b * g->is_n + y * g->is_h + x * g->is_w;      \
            if (ics == 1 && ocs == 1) {                                     \
              T *restrict oo = o;                                           \
              const T *restrict pp = p;                                     \
              for (int64_t c = 0; c < C; c++)                               \
                oo[c] = GT(pp[c], oo[c]) ? pp[c] : oo[c];                   \
            } else {                                                        \
              for (int64_t c = 0; c < C; c++)                               \
                o[c * ocs] = GT(p[c * ics], o[c * ocs]) ? p[c * ics]        \
                                                        : o[c * ocs];       \
            }                                                               \
          }                                                                 \
      }                                                                     \
    }                                                                       \
  }

/* Depth max pooling: each output channel is the max of `dwin` input
 * channels, starting from the first of them. */
#define DEPTH_POOL(NAME, T, GT)                                             \
  static void NAME(const void *IN, void *OUT, const pool_geom *g,           \
                   int64_t r0, int64_t r1) {                                \
    const T *in = IN;                                                       \
    T *out = OUT;                                                           \
    for (int64_t r = r0; r < r1; r++) {                                     \
      int64_t b = r / g->oh, y = r % g->oh;                                 \
      for (int64_t x = 0; x < g->ow; x++) {                                 \
        const T *p = in + b * g->is_n + y * g->is_h + x * g->is_w;          \
        T *o = out + b * g->os_n + y * g->os_h + x * g->os_w;               \
        for (int64_t oc = 0; oc < g->oc; oc++) {                            \
          const T *q = p + oc * g->dwin * g->is_c;                          \
          T acc = q[0];                                                     \
          for (int64_t k = 1; k < g->dwin; k++)                             \
            if (GT(q[k * g->is_c], acc)) acc = q[k * g->is_c];              \
          o[oc * g->os_c] = acc;                                            \
        }                                                                   \
      }                                                                     \
    }                                                                       \
  }

#define GT_NUM(a, b) ((a) > (b))
#define GT_F16(a, b) (tfs_half_to_float(a) > tfs_half_to_float(b))
#define GT_BF16(a, b) (tfs_bf16_to_float(a) > tfs_bf16_to_float(b))

#define MAX_PAIR(SUF, T, LOWEST, GT) \
  MAX_POOL(maxpool_##SUF, T, LOWEST, GT) DEPTH_POOL(depthpool_##SUF, T, GT)
MAX_PAIR(f32, float, -FLT_MAX, GT_NUM)
MAX_PAIR(f64, double, -DBL_MAX, GT_NUM)
MAX_PAIR(f16, uint16_t, (uint16_t)0xFBFF, GT_F16)
MAX_PAIR(bf16, uint16_t, (uint16_t)0xFF7F, GT_BF16)
MAX_PAIR(i8, int8_t, INT8_MIN, GT_NUM)
MAX_PAIR(i16, int16_t, INT16_MIN, GT_NUM)
MAX_PAIR(i32, int32_t, INT32_MIN, GT_NUM)
MAX_PAIR(i64, int64_t, INT64_MIN, GT_NUM)
MAX_PAIR(u8, uint8_t, 0, GT_NUM)
MAX_PAIR(u16, uint16_t, 0, GT_NUM)
MAX_PAIR(u32, uint32_t, 0, GT_NUM)
MAX_PAIR(u64, uint64_t, 0, GT_NUM)

/* float max pooling whose padding is the value g->pv (_tfs_pad_value: the
 * remapper's fold of a Pad before a VALID MaxPool) where an EXPLICIT pool
 * skips it: every window position is visited in the order a VALID pool
 * over the padded image visits it (rows, then columns), a position
 * outside the image reading pv, under the same rule (x > acc), so the
 * same bits, down to which of +0 and -0 a window keeps. */
static void maxpool_f32_pv(const void *IN, void *OUT, const pool_geom *g,
                           int64_t r0, int64_t r1) {
  const float *in = IN;
  float *out = OUT;
  for (int64_t r = r0; r < r1; r++) {
    const int64_t b = r / g->oh, oy = r % g->oh, ys = oy * g->sh - g->pt;
    for (int64_t ox = 0; ox < g->ow; ox++) {
      const int64_t xs = ox * g->sw - g->pl;
      float *o = out + b * g->os_n + oy * g->os_h + ox * g->os_w;
      for (int64_t c = 0; c < g->c; c++) {
        float acc = -FLT_MAX;
        for (int64_t y = ys; y < ys + g->kh; y++)
          for (int64_t x = xs; x < xs + g->kw; x++) {
            const float v =
                y < 0 || y >= g->h || x < 0 || x >= g->w
                    ? g->pv
                    : in[b * g->is_n + y * g->is_h + x * g->is_w +
                         c * g->is_c];
            if (v > acc) acc = v;
          }
        o[c * g->os_c] = acc;
      }
    }
  }
}

/* float max pooling with AVX2 where channels are contiguous in both
 * input and output (NHWC): each output pixel's channels are reduced in
 * registers and stored once.  _mm256_max_ps(x, acc) is x > acc ? x : acc,
 * the same rule as GT_NUM (a NaN input never wins, acc starts at
 * -FLT_MAX). */
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define HAVE_MAXPOOL_AVX2 1
__attribute__((target("avx2"))) static void maxpool_f32_avx2(
    const void *IN, void *OUT, const pool_geom *g, int64_t r0, int64_t r1) {
  const float *in = IN;
  float *out = OUT;
  const int64_t C = g->c;
  for (int64_t r = r0; r < r1; r++) {
    int64_t b = r / g->oh, oy = r % g->oh, y0, y1;
    window(oy, g->sh, g->pt, g->kh, g->h, &y0, &y1);
    for (int64_t ox = 0; ox < g->ow; ox++) {
      int64_t x0, x1;
      window(ox, g->sw, g->pl, g->kw, g->w, &x0, &x1);
      float *o = out + b * g->os_n + oy * g->os_h + ox * g->os_w;
      const float *base = in + b * g->is_n;
      int64_t c = 0;
      if (y1 - y0 == 2 && x1 - x0 == 2) { /* 2x2 windows, unrolled */
        const float *p0 = base + y0 * g->is_h + x0 * g->is_w;
        const float *p1 = p0 + g->is_w, *p2 = p0 + g->is_h, *p3 = p2 + g->is_w;
        const __m256 lo = _mm256_set1_ps(-FLT_MAX);
        for (; c + 8 <= C; c += 8) {
          __m256 acc = _mm256_max_ps(_mm256_loadu_ps(p0 + c), lo);
          acc = _mm256_max_ps(_mm256_loadu_ps(p1 + c), acc);
          acc = _mm256_max_ps(_mm256_loadu_ps(p2 + c), acc);
          acc = _mm256_max_ps(_mm256_loadu_ps(p3 + c), acc);
          _mm256_storeu_ps(o + c, acc);
        }
      }
      for (; c + 8 <= C; c += 8) {
        __m256 acc = _mm256_set1_ps(-FLT_MAX);
        for (int64_t y = y0; y < y1; y++)
          for (int64_t x = x0; x < x1; x++)
            acc = _mm256_max_ps(
                _mm256_loadu_ps(base + y * g->is_h + x * g->is_w + c), acc);
        _mm256_storeu_ps(o + c, acc);
      }
      for (; c < C; c++) {
        float acc = -FLT_MAX;
        for (int64_t y = y0; y < y1; y++)
          for (int64_t x = x0; x < x1; x++) {
            float v = base[y * g->is_h + x * g->is_w + c];
            if (v > acc) acc = v;
          }
        o[c] = acc;
      }
    }
  }
}

/* maxpool_f32_pv with AVX2 where channels are contiguous in both input
 * and output (NHWC) and a window has at most PV_MAX_TAPS positions: each
 * output pixel lists its window's positions in maxpool_f32_pv's order
 * (NULL where one lies in the padding), then reduces 8 channels at a
 * time over the list, _mm256_max_ps(x, acc) keeping acc unless x > acc as
 * maxpool_f32_pv does. */
#define PV_MAX_TAPS 64
__attribute__((target("avx2"))) static void maxpool_f32_pv_avx2(
    const void *IN, void *OUT, const pool_geom *g, int64_t r0, int64_t r1) {
  const float *in = IN;
  float *out = OUT;
  const float *tap[PV_MAX_TAPS];
  const int64_t C = g->c, nt = g->kh * g->kw;
  const __m256 vpv = _mm256_set1_ps(g->pv), lo = _mm256_set1_ps(-FLT_MAX);
  for (int64_t r = r0; r < r1; r++) {
    const int64_t b = r / g->oh, oy = r % g->oh, ys = oy * g->sh - g->pt;
    for (int64_t ox = 0; ox < g->ow; ox++) {
      const int64_t xs = ox * g->sw - g->pl;
      int64_t t = 0;
      for (int64_t y = ys; y < ys + g->kh; y++)
        for (int64_t x = xs; x < xs + g->kw; x++)
          tap[t++] = y < 0 || y >= g->h || x < 0 || x >= g->w
                         ? NULL
                         : in + b * g->is_n + y * g->is_h + x * g->is_w;
      float *o = out + b * g->os_n + oy * g->os_h + ox * g->os_w;
      int64_t c = 0;
      for (; c + 8 <= C; c += 8) {
        __m256 acc = lo;
        for (t = 0; t < nt; t++)
          acc = _mm256_max_ps(tap[t] ? _mm256_loadu_ps(tap[t] + c) : vpv, acc);
        _mm256_storeu_ps(o + c, acc);
      }
      for (; c < C; c++) {
        float acc = -FLT_MAX;
        for (t = 0; t < nt; t++) {
          const float v = tap[t] ? tap[t][c] : g->pv;
          if (v > acc) acc = v;
        }
        o[c] = acc;
      }
    }
  }
}

/* float average pooling with AVX2 where channels are contiguous in both
 * input and output (NHWC): per output pixel, 32 channels at a time
 * summed in registers over the in-bounds window in avgpool_f32's order
 * (rows, then columns, from 0), then times (float)(1 / count) as it does,
 * so the same bits (InceptionV3's 3x3 pools at batch 8: the portable
 * loop's sums went through memory for every window element). */
__attribute__((target("avx2"))) static void avgpool_f32_avx2(
    const void *IN, void *OUT, const pool_geom *g, int64_t r0, int64_t r1) {
  const float *in = IN;
  float *out = OUT;
  const int64_t C = g->c;
  for (int64_t r = r0; r < r1; r++) {
    int64_t b = r / g->oh, oy = r % g->oh, y0, y1;
    window(oy, g->sh, g->pt, g->kh, g->h, &y0, &y1);
    for (int64_t ox = 0; ox < g->ow; ox++) {
      int64_t x0, x1;
      window(ox, g->sw, g->pl, g->kw, g->w, &x0, &x1);
      float *o = out + b * g->os_n + oy * g->os_h + ox * g->os_w;
      const float *base = in + b * g->is_n;
      const float inv = (float)(1.0 / (double)((y1 - y0) * (x1 - x0)));
      const __m256 vi = _mm256_set1_ps(inv);
      int64_t c = 0;
      for (; c + 32 <= C; c += 32) {
        __m256 a0 = _mm256_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
        for (int64_t y = y0; y < y1; y++)
          for (int64_t x = x0; x < x1; x++) {
            const float *p = base + y * g->is_h + x * g->is_w + c;
            a0 = _mm256_add_ps(a0, _mm256_loadu_ps(p));
            a1 = _mm256_add_ps(a1, _mm256_loadu_ps(p + 8));
            a2 = _mm256_add_ps(a2, _mm256_loadu_ps(p + 16));
            a3 = _mm256_add_ps(a3, _mm256_loadu_ps(p + 24));
          }
        _mm256_storeu_ps(o + c, _mm256_mul_ps(a0, vi));
        _mm256_storeu_ps(o + c + 8, _mm256_mul_ps(a1, vi));
        _mm256_storeu_ps(o + c + 16, _mm256_mul_ps(a2, vi));
        _mm256_storeu_ps(o + c + 24, _mm256_mul_ps(a3, vi));
      }
      for (; c + 8 <= C; c += 8) {
        __m256 a = _mm256_setzero_ps();
        for (int64_t y = y0; y < y1; y++)
          for (int64_t x = x0; x < x1; x++)
            a = _mm256_add_ps(
                a, _mm256_loadu_ps(base + y * g->is_h + x * g->is_w + c));
        _mm256_storeu_ps(o + c, _mm256_mul_ps(a, vi));
      }
      for (; c < C; c++) {
        float a = 0.0f;
        for (int64_t y = y0; y < y1; y++)
          for (int64_t x = x0; x < x1; x++)
            a += base[y * g->is_h + x * g->is_w + c];
        o[c] = a * inv;
      }
    }
  }
}

/* Float max and average pooling with AVX-512 (NHWC): up to 64 channels
 * (four zmm accumulators) of one output pixel, or of four neighbouring
 * pixels whose windows lie inside the image horizontally (independent
 * sums: a 3x3 window's nine adds are a chain of dependent instructions),
 * over the in-bounds window in the AVX2 and portable loops' order; the
 * last vector of a block is masked, so channel counts that are not a
 * multiple of 16 (NASNet's 11, 22, 44 and 88) run no scalar tail.  The
 * max is _mm512_max_ps(x, acc) from -FLT_MAX and the mean (sum from +0)
 * * (float)(1 / count): the same bits as the other loops.  IS_MAX, NPX
 * and NV are constants after inlining. */
#define HAVE_POOL_AVX512 1
static inline __attribute__((target("avx512f"), always_inline)) void
pool_px512(const int is_max, const int npx, const int nv, const float *p0,
           int64_t ny, int64_t nx, const pool_geom *g, float *o,
           __mmask16 last, __m512 scale) {
  __m512 a[16];
  const int64_t ps = g->sw * g->is_w;
  const __m512 init = is_max ? _mm512_set1_ps(-FLT_MAX) : _mm512_setzero_ps();
#pragma GCC unroll 16
  for (int k = 0; k < npx * nv; k++) a[k] = init;
  for (int64_t y = 0; y < ny; y++)
    for (int64_t x = 0; x < nx; x++) {
      const float *p = p0 + y * g->is_h + x * g->is_w;
#pragma GCC unroll 4
      for (int q = 0; q < npx; q++)
#pragma GCC unroll 4
        for (int v = 0; v < nv; v++) {
          __m512 xv = _mm512_maskz_loadu_ps(v == nv - 1 ? last : 0xFFFF,
                                            p + q * ps + 16 * v);
          a[q * nv + v] = is_max ? _mm512_max_ps(xv, a[q * nv + v])
                                 : _mm512_add_ps(a[q * nv + v], xv);
        }
    }
#pragma GCC unroll 4
  for (int q = 0; q < npx; q++)
#pragma GCC unroll 4
    for (int v = 0; v < nv; v++)
      _mm512_mask_storeu_ps(
          o + q * g->os_w + 16 * v, v == nv - 1 ? last : 0xFFFF,
          is_max ? a[q * nv + v] : _mm512_mul_ps(a[q * nv + v], scale));
}

/* The channels of NPX pixels from p (input) and o (output). */
static inline __attribute__((target("avx512f"), always_inline)) void
pool_pxs512(const int is_max, const int npx, const float *p, int64_t ny,
            int64_t nx, const pool_geom *g, float *o, __m512 scale) {
  const int64_t C = g->c, rem = C % 64, nrem = (rem + 15) / 16;
  const __mmask16 last =
      rem ? (__mmask16)((1u << (rem - 16 * (nrem - 1))) - 1u) : 0xFFFF;
  int64_t c = 0;
  for (; c + 64 <= C; c += 64)
    pool_px512(is_max, npx, 4, p + c, ny, nx, g, o + c, 0xFFFF, scale);
  switch (nrem) {
    case 1:
      pool_px512(is_max, npx, 1, p + c, ny, nx, g, o + c, last, scale);
      break;
    case 2:
      pool_px512(is_max, npx, 2, p + c, ny, nx, g, o + c, last, scale);
      break;
    case 3:
      pool_px512(is_max, npx, 3, p + c, ny, nx, g, o + c, last, scale);
      break;
    case 4:
      pool_px512(is_max, npx, 4, p + c, ny, nx, g, o + c, last, scale);
      break;
    default: break;
  }
}

static inline __attribute__((target("avx512f"), always_inline)) void
pool_rows512(const int is_max, const void *IN, void *OUT, const pool_geom *g,
             int64_t r0, int64_t r1) {
  const float *in = IN;
  float *out = OUT;
  /* pixels [lo, hi) have their whole window inside horizontally */
  int64_t lo = (g->pl + g->sw - 1) / g->sw;
  int64_t room = g->w - g->kw + g->pl;
  int64_t hi = room < 0 ? 0 : room / g->sw + 1;
  if (hi > g->ow) hi = g->ow;
  for (int64_t r = r0; r < r1; r++) {
    int64_t b = r / g->oh, oy = r % g->oh, y0, y1;
    window(oy, g->sh, g->pt, g->kh, g->h, &y0, &y1);
    for (int64_t ox = 0; ox < g->ow;) {
      int64_t x0, x1;
      window(ox, g->sw, g->pl, g->kw, g->w, &x0, &x1);
      float *o = out + b * g->os_n + oy * g->os_h + ox * g->os_w;
      const float *p = in + b * g->is_n + y0 * g->is_h + x0 * g->is_w;
      const int64_t ny = y1 - y0, nx = x1 - x0;
      const __m512 scale = _mm512_set1_ps(
          is_max ? 1.0f : (float)(1.0 / (double)(ny * nx)));
      if (ox >= lo && ox + 4 <= hi) {
        pool_pxs512(is_max, 4, p, ny, nx, g, o, scale);
        ox += 4;
      } else {
        pool_pxs512(is_max, 1, p, ny, nx, g, o, scale);
        ox++;
      }
    }
  }
}

__attribute__((target("avx512f"))) static void maxpool_f32_avx512(
    const void *IN, void *OUT, const pool_geom *g, int64_t r0, int64_t r1) {
  pool_rows512(1, IN, OUT, g, r0, r1);
}

__attribute__((target("avx512f"))) static void avgpool_f32_avx512(
    const void *IN, void *OUT, const pool_geom *g, int64_t r0, int64_t r1) {
  pool_rows512(0, IN, OUT, g, r0, r1);
}
#endif

/* Average pooling: ACC-typed sums over in-bounds elements, divided by
 * their count.  The output row doubles as the accumulator when ACC is
 * the element type (float, double); 16-bit floats use a float row. */
#define AVG_POOL(NAME, T, LOAD, STORE)                                      \
  static void NAME(const void *IN, void *OUT, const pool_geom *g,           \
                   int64_t r0, int64_t r1) {                                \
    const T *in = IN;                                                       \
    T *out = OUT;                                                           \
    const int64_t C = g->c, ics = g->is_c, ocs = g->os_c;                   \
    float acc16[256];                                                       \
    for (int64_t r = r0; r < r1; r++) {                                     \
      int64_t b = r / g->oh, oy = r % g->oh, y0, y1;                        \
      window(oy, g->sh, g->pt, g->kh, g->h, &y0, &y1);                      \
      for (int64_t ox = 0; ox < g->ow; ox++) {                              \
        int64_t x0, x1;                                                     \
        window(ox, g->sw, g->pl, g->kw, g->w, &x0, &x1);                    \
        T *o = out + b * g->os_n + oy * g->os_h + ox * g->os_w;             \
        const double cnt = (double)((y1 - y0) * (x1 - x0));                 \
        for (int64_t c0 = 0; c0 < C; c0 += 256) {                           \
          int64_t cn = C - c0 < 256 ? C - c0 : 256;                         \
          for (int64_t c = 0; c < cn; c++) acc16[c] = 0;                    \
          for (int64_t y = y0; y < y1; y++)                                 \
            for (int64_t x = x0; x < x1; x++) {                             \
              const T *p =                                                  \
                  in + b * g->is_n + y * g->is_h + x * g->is_w + c0 * ics;  \
              for (int64_t c = 0; c < cn; c++) acc16[c] += LOAD(p[c * ics]);\
            }                                                               \
          const float inv = (float)(1.0 / cnt);                             \
          for (int64_t c = 0; c < cn; c++)                                  \
            o[(c0 + c) * ocs] = STORE(acc16[c] * inv);                      \
        }                                                                   \
      }                                                                     \
    }                                                                       \
  }
#define ID(x) (x)
AVG_POOL(avgpool_f32, float, ID, ID)
AVG_POOL(avgpool_f16, uint16_t, tfs_half_to_float, tfs_float_to_half)
AVG_POOL(avgpool_bf16, uint16_t, tfs_bf16_to_float, tfs_float_to_bf16)

static void avgpool_f64(const void *IN, void *OUT, const pool_geom *g,
                        int64_t r0, int64_t r1) {
  const double *in = IN;
  double *out = OUT;
  for (int64_t r = r0; r < r1; r++) {
    int64_t b = r / g->oh, oy = r % g->oh, y0, y1;
    window(oy, g->sh, g->pt, g->kh, g->h, &y0, &y1);
    for (int64_t ox = 0; ox < g->ow; ox++) {
      int64_t x0, x1;
      window(ox, g->sw, g->pl, g->kw, g->w, &x0, &x1);
      double *o = out + b * g->os_n + oy * g->os_h + ox * g->os_w;
      for (int64_t c = 0; c < g->c; c++) o[c * g->os_c] = 0;
      for (int64_t y = y0; y < y1; y++)
        for (int64_t x = x0; x < x1; x++) {
          const double *p = in + b * g->is_n + y * g->is_h + x * g->is_w;
          for (int64_t c = 0; c < g->c; c++)
            o[c * g->os_c] += p[c * g->is_c];
        }
      double cnt = (double)((y1 - y0) * (x1 - x0));
      for (int64_t c = 0; c < g->c; c++) o[c * g->os_c] /= cnt;
    }
  }
}

/* The widest float NHWC spatial loop this CPU runs: AVX-512, AVX2 or the
 * portable one. */
static pool_fn nhwc_f32_spatial(int is_max) {
#ifdef HAVE_POOL_AVX512
  if (tfs_cpu_has(TFS_CPU_ISA_AVX512))
    return is_max ? maxpool_f32_avx512 : avgpool_f32_avx512;
#endif
#ifdef HAVE_MAXPOOL_AVX2
  if (tfs_cpu_has(TFS_CPU_ISA_AVX2))
    return is_max ? maxpool_f32_avx2 : avgpool_f32_avx2;
#endif
  return is_max ? maxpool_f32 : avgpool_f32;
}

void tfs_maxpool_f32_valid(const float *in, int64_t h, int64_t w, int64_t c,
                           int64_t kh, int64_t kw, int64_t sh, int64_t sw,
                           float *out) {
  if (h < kh || w < kw) return;
  pool_geom g;
  memset(&g, 0, sizeof g);
  g.n = 1, g.h = h, g.w = w, g.c = c, g.oc = c, g.dwin = 1;
  g.kh = kh, g.kw = kw, g.sh = sh, g.sw = sw;
  g.oh = (h - kh) / sh + 1, g.ow = (w - kw) / sw + 1;
  g.is_c = 1, g.is_w = c, g.is_h = w * c, g.is_n = h * w * c;
  g.os_c = 1, g.os_w = c, g.os_h = g.ow * c, g.os_n = g.oh * g.ow * c;
  nhwc_f32_spatial(1)(in, out, &g, 0, g.oh);
}

static int pick_fns(pool_state *s, tfs_dtype dt) {
#define CASE(DT, SUF)                                     \
  case DT:                                                \
    s->spatial = maxpool_##SUF;                           \
    s->depth = depthpool_##SUF;                           \
    return 0;
  if (s->is_max) {
    switch (dt) {
      CASE(TFS_FLOAT, f32)
      CASE(TFS_DOUBLE, f64)
      CASE(TFS_HALF, f16)
      CASE(TFS_BFLOAT16, bf16)
      CASE(TFS_INT8, i8)
      CASE(TFS_INT16, i16)
      CASE(TFS_INT32, i32)
      CASE(TFS_INT64, i64)
      CASE(TFS_UINT8, u8)
      CASE(TFS_UINT16, u16)
      CASE(TFS_UINT32, u32)
      CASE(TFS_UINT64, u64)
      default: return -1;
    }
  }
#undef CASE
  switch (dt) {
    case TFS_FLOAT: s->spatial = avgpool_f32; return 0;
    case TFS_DOUBLE: s->spatial = avgpool_f64; return 0;
    case TFS_HALF: s->spatial = avgpool_f16; return 0;
    case TFS_BFLOAT16: s->spatial = avgpool_bf16; return 0;
    default: return -1;
  }
}

int tfs_pool_check_window(const tfs_window *w, int is_max, int v2,
                          tfs_status *st) {
  for (int i = 0; i < 4; i++) {
    if (w->ksize[i] > 0) continue;
    if (v2)
      tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                      "Sliding window ksize must be positive.");
    else if (is_max)
      tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                      "Sliding window ksize must be positive. The "
                      "specified or inferred ksize is: %lld,%lld,%lld,%lld",
                      (long long)w->ksize[0], (long long)w->ksize[1],
                      (long long)w->ksize[2], (long long)w->ksize[3]);
    else
      tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                      "ksize must be a positive int32 value, got:%lld",
                      (long long)w->ksize[i]);
    return -1;
  }
  if (w->ksize[0] != 1 || w->strides[0] != 1) {
    tfs_status_setf(st, TFS_UNIMPLEMENTED,
                    "Pooling is not yet supported on the batch dimension.");
    return -1;
  }
  int h = tfs_window_dim(w, 'H'), wd = tfs_window_dim(w, 'W');
  int cd = tfs_window_dim(w, 'C');
  /* The other depth-window checks need the input depth: pool_geometry
   * makes them in TensorFlow's order. */
  if (w->ksize[cd] != 1 && (w->ksize[h] != 1 || w->ksize[wd] != 1)) {
    tfs_status_setf(st, TFS_UNIMPLEMENTED,
                    "MaxPooling supports exactly one of pooling across "
                    "depth or pooling across width/height.");
    return -1;
  }
  static const char *const kSide[4] = {"Top", "Bottom", "Left", "Right"};
  for (int i = 0; i < 4; i++) {
    int64_t pad = w->pads[2 * (i < 2 ? h : wd) + (i & 1)];
    int64_t k = w->ksize[i < 2 ? h : wd];
    if (pad >= k) {
      tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                      "%s padding %lld needs to be smaller than the window "
                      "size %lld", kSide[i], (long long)pad, (long long)k);
      return -1;
    }
  }
  return 0;
}

/* _tfs_pad_value (tfsess-only, the remapper's Pad + MaxPool fold): the
 * EXPLICIT padding reads as that value (maxpool_f32_pv) instead of being
 * skipped.  Float spatial max pooling only. */
static int pad_value_prepare(tfs_kernel_init *ki, pool_state *s) {
  if (!tfs_attrs_find(ki->attrs, "_tfs_pad_value")) return 0;
  const tfs_window *w = &s->w;
  if (!s->is_max || ki->in_types[0] != TFS_FLOAT ||
      w->padding != TFS_PADDING_EXPLICIT ||
      w->ksize[tfs_window_dim(w, 'C')] != 1 ||
      tfs_attrs_get_float(ki->attrs, "_tfs_pad_value", &s->pv) != 0)
    return tfs_ki_error(ki, TFS_INVALID_ARGUMENT,
                        "_tfs_pad_value needs a float MaxPool over height "
                        "and width with EXPLICIT padding and a float value");
  s->spatial = maxpool_f32_pv;
#ifdef HAVE_MAXPOOL_AVX2
  if (!w->nchw &&
      w->ksize[tfs_window_dim(w, 'H')] * w->ksize[tfs_window_dim(w, 'W')] <=
          PV_MAX_TAPS &&
      tfs_cpu_has(TFS_CPU_ISA_AVX2))
    s->spatial = maxpool_f32_pv_avx2;
#endif
  return 0;
}

static int pool_prepare(tfs_kernel_init *ki) {
  pool_state *s = tfs_calloc(1, sizeof *s);
  if (!s) return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  ki->state = s;
  s->is_max = ki->kdata != NULL;
  const char *op = s->is_max ? "MaxPool" : "AvgPool";
  if (tfs_window_parse(ki->attrs, TFS_WINDOW_POOL, op, &s->w, ki->st))
    return tfs_ki_error(ki, TFS_INVALID_ARGUMENT, "%s",
                        tfs_status_message(ki->st));
  if (pick_fns(s, ki->in_types[0]))
    return tfs_ki_error(ki, TFS_UNIMPLEMENTED, "%s is not implemented for %s",
                        op, tfs_dtype_name(ki->in_types[0]));
  const tfs_window *w = &s->w;
  if (ki->in_types[0] == TFS_FLOAT && !w->nchw)
    s->spatial = nhwc_f32_spatial(s->is_max);
  if (w->vect_c)
    return tfs_ki_error(ki, TFS_INVALID_ARGUMENT,
                        "Default MaxPoolingOp only supports NHWC on device "
                        "type CPU");
  if (tfs_pool_check_window(w, s->is_max, 0, ki->st))
    return tfs_ki_error(ki, tfs_status_code(ki->st), "%s",
                        tfs_status_message(ki->st));
  return pad_value_prepare(ki, s);
}

typedef struct {
  pool_fn fn;
  const void *in;
  void *out;
  const pool_geom *g;
} pool_job;

static void pool_range(void *arg, int64_t r0, int64_t r1) {
  pool_job *j = arg;
  j->fn(j->in, j->out, j->g, r0, r1);
}

/* Element strides of a 4-D tensor with dims (n, h, w, c) in `w`'s
 * format. */
static void strides_of(const tfs_window *w, int64_t h, int64_t wd,
                       int64_t c, int64_t *sn, int64_t *sh, int64_t *sw,
                       int64_t *sc) {
  if (w->nchw) {
    *sw = 1, *sh = wd, *sc = h * wd, *sn = c * h * wd;
  } else {
    *sc = 1, *sw = c, *sh = wd * c, *sn = h * wd * c;
  }
}

int tfs_pool_check_depth(int64_t depth, int64_t dwin, int64_t dstride,
                         int is_max, tfs_status *st) {
  const char *why = NULL;
  if (depth % dwin != 0)
    why = "Depthwise max pooling requires the depth window to evenly "
          "divide the input depth";
  else if (dstride != dwin)
    why = "Depthwise max pooling requires the depth window to equal the "
          "depth stride";
  else if (!is_max)
    why = "Non-spatial pooling is not yet supported. Volunteers? :)";
  if (!why) return 0;
  tfs_status_setf(st, TFS_UNIMPLEMENTED, "%s", why);
  return -1;
}

static int pool_geometry(tfs_kernel_ctx *c, const pool_state *s,
                         const tfs_tensor *x, pool_geom *g) {
  const tfs_window *w = &s->w;
  if (x->shape.rank != 4) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "tensor_in_shape must have 2 spatial dimensions. %d %d",
                  x->shape.rank, w->nchw);
    return -1;
  }
  int hd = tfs_window_dim(w, 'H'), wdd = tfs_window_dim(w, 'W');
  int cd = tfs_window_dim(w, 'C');
  memset(g, 0, sizeof *g);
  g->n = x->shape.dims[0];
  g->h = x->shape.dims[hd];
  g->w = x->shape.dims[wdd];
  g->c = x->shape.dims[cd];
  g->kh = w->ksize[hd], g->kw = w->ksize[wdd];
  g->sh = w->strides[hd], g->sw = w->strides[wdd];
  g->dwin = w->ksize[cd];
  g->pv = s->pv;
  if (g->dwin != 1) {
    if (tfs_pool_check_depth(g->c, g->dwin, w->strides[cd], s->is_max,
                             c->st)) {
      tfs_kctx_fail_status(c, c->st);
      return -1;
    }
    g->oh = g->h, g->ow = g->w, g->oc = g->c / g->dwin;
  } else {
    int64_t pb, pr;
    tfs_window_pads(w, 'H', &g->pt, &pb);
    tfs_window_pads(w, 'W', &g->pl, &pr);
    if (tfs_window_output_size(g->h, g->kh, 1, g->sh, w->padding, &g->pt,
                               &pb, &g->oh, c->st) ||
        tfs_window_output_size(g->w, g->kw, 1, g->sw, w->padding, &g->pl,
                               &pr, &g->ow, c->st)) {
      tfs_kctx_fail_status(c, c->st);
      return -1;
    }
    g->oc = g->c;
  }
  strides_of(w, g->h, g->w, g->c, &g->is_n, &g->is_h, &g->is_w, &g->is_c);
  strides_of(w, g->oh, g->ow, g->oc, &g->os_n, &g->os_h, &g->os_w, &g->os_c);
  return 0;
}

static void pool_run(tfs_kernel_ctx *c, const pool_state *s) {
  const tfs_tensor *x = c->inputs[0];
  pool_geom g;
  if (pool_geometry(c, s, x, &g)) return;
  tfs_shape os;
  os.rank = 4;
  os.dims[0] = g.n;
  os.dims[tfs_window_dim(&s->w, 'H')] = g.oh;
  os.dims[tfs_window_dim(&s->w, 'W')] = g.ow;
  os.dims[tfs_window_dim(&s->w, 'C')] = g.oc;
  tfs_tensor *o = tfs_kctx_alloc_output(c, 0, &os);
  if (!o || o->nelems == 0) return;
  pool_job j = {g.dwin != 1 ? s->depth : s->spatial, x->data, o->data, &g};
  int64_t cost = g.ow * g.oc * (g.dwin != 1 ? g.dwin : g.kh * g.kw) + 1;
  tfs_kctx_parallel_for(c, g.n * g.oh, cost, pool_range, &j);
}

static void pool_compute(tfs_kernel_ctx *c) { pool_run(c, c->state); }

/* MaxPoolV2: ksize and strides come from inputs 1 and 2 at run time;
 * TensorFlow's CPU kernel takes NHWC only. */
static int pool_v2_prepare(tfs_kernel_init *ki) {
  pool_state *s = tfs_calloc(1, sizeof *s);
  if (!s) return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  ki->state = s;
  s->is_max = 1;
  size_t len = 0;
  const char *fmt = tfs_attrs_get_string(ki->attrs, "data_format", &len);
  const char *pad = tfs_attrs_get_string(ki->attrs, "padding", &len);
  if (fmt && strcmp(fmt, "NHWC") != 0) {
    if (strcmp(fmt, "NCHW") == 0)
      return tfs_ki_error(ki, TFS_INVALID_ARGUMENT,
                          "MaxPoolingV2Op only supports NHWC or "
                          "NCHW_VECT_C. Got: NCHW");
    return tfs_ki_error(ki, TFS_INVALID_ARGUMENT,
                        "Default MaxPoolingOp only supports NHWC on device "
                        "type CPU");
  }
  s->w.padding = pad && strcmp(pad, "SAME") == 0 ? TFS_PADDING_SAME
                                                  : TFS_PADDING_VALID;
  if (pick_fns(s, ki->in_types[0]))
    return tfs_ki_error(ki, TFS_UNIMPLEMENTED,
                        "MaxPoolV2 is not implemented for %s",
                        tfs_dtype_name(ki->in_types[0]));
#ifdef HAVE_MAXPOOL_AVX2
  if (ki->in_types[0] == TFS_FLOAT && tfs_cpu_has(TFS_CPU_ISA_AVX2))
    s->spatial = maxpool_f32_avx2;
#endif
  return 0;
}

static void pool_v2_compute(tfs_kernel_ctx *c) {
  pool_state s = *(const pool_state *)c->state;
  const tfs_tensor *k = c->inputs[1], *st = c->inputs[2];
  if (k->nelems != 4) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Sliding window ksize field must specify 4 dimensions");
    return;
  }
  if (st->nelems != 4) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Sliding window stride field must specify 4 dimensions");
    return;
  }
  const int32_t *kv = k->data, *sv = st->data;
  for (int i = 0; i < 4; i++) {
    s.w.ksize[i] = kv[i];
    s.w.strides[i] = sv[i];
    s.w.dilations[i] = 1;
  }
  if (tfs_pool_check_window(&s.w, 1, 1, c->st)) {
    tfs_kctx_fail_status(c, c->st);
    return;
  }
  pool_run(c, &s);
}

static const int kMax = 1;

const tfs_kernel_def tfs_cpu_kernels_pool[] = {
    {"MaxPool", "CPU", "T", TFS_DT_REAL, pool_prepare, pool_compute, free, 0,
     &kMax},
    {"MaxPoolV2", "CPU", "T", TFS_DT_REAL, pool_v2_prepare, pool_v2_compute,
     free, 0, NULL},
    {"AvgPool", "CPU", "T", TFS_DT_FLOATS, pool_prepare, pool_compute, free,
     0, NULL},
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL},
};
