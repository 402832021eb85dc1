/*
 * backends/cpu/image_color.c - colour ops: RGBToHSV and HSVToRGB (float,
 * double, half, bfloat16), AdjustHue, AdjustSaturation and
 * AdjustContrastv2 (float: TensorFlow's CPU kernels take no other).
 * Arithmetic follows TensorFlow's kernels operation by operation: the
 * colour space conversions compute
 * in T (each step rounded to T, as Eigen does for half and bfloat16), the
 * adjust kernels in float with TensorFlow's double constants.  Pixels are
 * split over the intra-op pool.
 */
#include <math.h>
#include <string.h>

#include "core/half.h"
#include "backends/cpu/array_util.h"

/* ---- values of T --------------------------------------------------------- */

/* A step of T's arithmetic: exact in double, then rounded to T (double
 * rounding through double is exact for +, -, *, / of these formats). */
static double rnd(tfs_dtype dt, double v) {
  switch (dt) {
    case TFS_FLOAT: return (float)v;
    case TFS_HALF: return tfs_half_to_float(tfs_float_to_half((float)v));
    case TFS_BFLOAT16: return tfs_bf16_to_float(tfs_float_to_bf16((float)v));
    default: return v;
  }
}

static double get(const void *p, tfs_dtype dt, int64_t i) {
  switch (dt) {
    case TFS_FLOAT: return ((const float *)p)[i];
    case TFS_HALF: return tfs_half_to_float(((const uint16_t *)p)[i]);
    case TFS_BFLOAT16: return tfs_bf16_to_float(((const uint16_t *)p)[i]);
    default: return ((const double *)p)[i];
  }
}

static void put(void *p, tfs_dtype dt, int64_t i, double v) {
  switch (dt) {
    case TFS_FLOAT: ((float *)p)[i] = (float)v; break;
    case TFS_HALF: ((uint16_t *)p)[i] = tfs_float_to_half((float)v); break;
    case TFS_BFLOAT16:
      ((uint16_t *)p)[i] = tfs_float_to_bf16((float)v);
      break;
    default: ((double *)p)[i] = v;
  }
}

static double dmax(double a, double b) { return a < b ? b : a; }
static double dmin(double a, double b) { return b < a ? b : a; }

/* ---- RGBToHSV / HSVToRGB ------------------------------------------------- */

typedef struct {
  const void *in;
  void *out;
  tfs_dtype dt;
} pix_job;

static void rgb_to_hsv_range(void *arg, int64_t begin, int64_t end) {
  const pix_job *j = arg;
  tfs_dtype t = j->dt;
  double sixth = rnd(t, 1.0 / 6.0), third = rnd(t, rnd(t, 2.0) / 6.0);
  double two3 = rnd(t, 4.0 / 6.0);
  for (int64_t p = begin; p < end; p++) {
    double r = get(j->in, t, p * 3), g = get(j->in, t, p * 3 + 1);
    double b = get(j->in, t, p * 3 + 2);
    double v = dmax(dmax(r, g), b);
    double range = rnd(t, v - dmin(dmin(r, g), b));
    double s = v > 0 ? rnd(t, range / v) : 0.0;
    double norm = rnd(t, rnd(t, 1.0 / range) * sixth);
    double h;
    if (r == v)
      h = rnd(t, norm * rnd(t, g - b));
    else if (g == v)
      h = rnd(t, rnd(t, norm * rnd(t, b - r)) + third);
    else
      h = rnd(t, rnd(t, norm * rnd(t, r - g)) + two3);
    if (!(range > 0)) h = 0.0;
    if (h < 0) h = rnd(t, h + 1.0);
    put(j->out, t, p * 3, h);
    put(j->out, t, p * 3 + 1, s);
    put(j->out, t, p * 3 + 2, v);
  }
}

static double clamp01(double v) { return dmin(dmax(v, 0.0), 1.0); }

static void hsv_to_rgb_range(void *arg, int64_t begin, int64_t end) {
  const pix_job *j = arg;
  tfs_dtype t = j->dt;
  for (int64_t p = begin; p < end; p++) {
    double h = get(j->in, t, p * 3), s = get(j->in, t, p * 3 + 1);
    double v = get(j->in, t, p * 3 + 2);
    double dh = rnd(t, h * 6.0);
    double d[3];
    d[0] = clamp01(rnd(t, fabs(rnd(t, dh - 3.0)) - 1.0));
    d[1] = clamp01(rnd(t, -fabs(rnd(t, dh - 2.0)) + 2.0));
    d[2] = clamp01(rnd(t, -fabs(rnd(t, dh - 4.0)) + 2.0));
    double one_s = rnd(t, -s + 1.0);
    for (int k = 0; k < 3; k++)
      put(j->out, t, p * 3 + k, rnd(t, rnd(t, one_s + rnd(t, s * d[k])) * v));
  }
}

/* "input must have 3 channels..." after the rank check; 0 when fine. */
static int check_rgb(tfs_kernel_ctx *c) {
  const tfs_tensor *x = c->inputs[0];
  char b[TFS_SHAPE_STRLEN];
  if (x->shape.rank < 1) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "input must be at least 1D%s",
                  tfs_shape_str(&x->shape, b, sizeof b));
    return -1;
  }
  int64_t ch = x->shape.dims[x->shape.rank - 1];
  if (ch != 3) {
    tfs_kctx_fail(c, TFS_FAILED_PRECONDITION, "input must have 3 channels "
                  "but input only has %lld channels.", (long long)ch);
    return -1;
  }
  return 0;
}

static void colorspace_compute(tfs_kernel_ctx *c, tfs_range_fn fn) {
  if (check_rgb(c)) return;
  const tfs_tensor *x = c->inputs[0];
  tfs_tensor *o = tfs_kctx_alloc_output(c, 0, &x->shape);
  if (!o || o->nelems == 0) return;
  pix_job j = {x->data, o->data, x->dtype};
  tfs_kctx_parallel_for(c, x->nelems / 3, 40, fn, &j);
}

static void rgb_to_hsv_compute(tfs_kernel_ctx *c) {
  colorspace_compute(c, rgb_to_hsv_range);
}

static void hsv_to_rgb_compute(tfs_kernel_ctx *c) {
  colorspace_compute(c, hsv_to_rgb_range);
}

/* ---- AdjustHue / AdjustSaturation ---------------------------------------- */

/* Hue in [0, 6) and the value range of an RGB pixel. */
static void rgb_to_hv(float r, float g, float b, float *h, float *lo,
                      float *hi) {
  float mid;
  int cat;
  if (r < g) {
    if (b < r) *hi = g, mid = r, *lo = b, cat = 1;
    else if (b > g) *hi = b, mid = g, *lo = r, cat = 3;
    else *hi = g, mid = b, *lo = r, cat = 2;
  } else {
    if (b < g) *hi = r, mid = g, *lo = b, cat = 0;
    else if (b > r) *hi = b, mid = r, *lo = g, cat = 4;
    else *hi = r, mid = b, *lo = g, cat = 5;
  }
  if (*hi == *lo) {
    *h = 0;
    return;
  }
  float ratio = (mid - *lo) / (*hi - *lo);
  *h = (float)cat + ((cat & 1) == 0 ? ratio : 1 - ratio);
}

static void hv_to_rgb(float h, float lo, float hi, float *q) {
  /* NaN: TensorFlow's int conversion is undefined there; x86 gives
   * INT_MIN (an even category, past the last case) */
  int cat = isnan(h) ? INT32_MIN : (int)h;
  float ratio = h - (float)cat;
  if ((cat & 1) != 0) ratio = 1 - ratio;
  float mid = lo + ratio * (hi - lo);
  static const int kPick[6][3] = {{2, 1, 0}, {1, 2, 0}, {0, 2, 1},
                                  {0, 1, 2}, {1, 0, 2}, {2, 0, 1}};
  float v[3] = {lo, mid, hi};
  const int *k = kPick[cat >= 0 && cat < 6 ? cat : 5];
  q[0] = v[k[0]], q[1] = v[k[1]], q[2] = v[k[2]];
}

/* h + 6 * delta wrapped into [0, 6).  TensorFlow adds or subtracts 6
 * until it gets there; below 2^24 every such step is exact, so one exact
 * fmodf and the same last rounded step give its result in constant time.
 * Beyond (and for infinities, where TensorFlow never stops) fmodf still
 * gives a value in range; NaN stays NaN. */
static float wrap6(float h) {
  if (isnan(h)) return h;
  if (isinf(h)) return NAN;
  h = fmodf(h, 6.0f);
  if (h < 0) h += 6;
  if (h >= 6) h -= 6;
  return h;
}

typedef struct {
  const float *in;
  float *out;
  float k;
} adjust_job;

static void hue_range(void *arg, int64_t begin, int64_t end) {
  const adjust_job *j = arg;
  for (int64_t p = begin; p < end; p++) {
    const float *x = j->in + p * 3;
    float h, lo, hi;
    rgb_to_hv(x[0], x[1], x[2], &h, &lo, &hi);
    hv_to_rgb(wrap6(h + j->k * 6), lo, hi, j->out + p * 3);
  }
}

static void sat_rgb_to_hsv(const float *x, float *h, float *s, float *v) {
  float r = x[0], g = x[1], b = x[2];
  float gb = g < b ? b : g, vv = r < gb ? gb : r; /* std::max */
  float mn = b < g ? b : g;                         /* std::min */
  mn = mn < r ? mn : r;
  float range = vv - mn;
  *s = vv > 0 ? range / vv : 0;
  float norm = 1.0f / (6.0f * range), hh;
  if (r == vv) hh = norm * (g - b);
  else if (g == vv) hh = (float)((double)(norm * (b - r)) + 2.0 / 6.0);
  else hh = (float)((double)(norm * (r - g)) + 4.0 / 6.0);
  if (range <= 0.0) hh = 0;
  if (hh < 0.0) hh = hh + 1;
  *v = vv;
  *h = hh;
}

static void sat_hsv_to_rgb(float h, float s, float v, float *q) {
  float c = s * v, m = v - c, dh = h * 6;
  int cat = isfinite(dh) && fabsf(dh) < 1e9f ? (int)dh : -1;
  float f = dh;
  if (isfinite(f) && fabsf(f) < 1e6f) {
    while (f <= 0) f += 2.0f;
    while (f >= 2.0f) f -= 2.0f;
  } else if (isfinite(f)) {
    f = fmodf(f, 2.0f);
  }
  float x = c * (1 - fabsf(f - 1));
  float rgb[3] = {0, 0, 0};
  static const int kC[6] = {0, 1, 1, 2, 2, 0}, kX[6] = {1, 0, 2, 1, 0, 2};
  if (cat >= 0 && cat < 6) rgb[kC[cat]] = c, rgb[kX[cat]] = x;
  for (int k = 0; k < 3; k++) q[k] = rgb[k] + m;
}

static void sat_range(void *arg, int64_t begin, int64_t end) {
  const adjust_job *j = arg;
  for (int64_t p = begin; p < end; p++) {
    float h, s, v;
    sat_rgb_to_hsv(j->in + p * 3, &h, &s, &v);
    float t = s * j->k;
    t = 0.0f < t ? t : 0.0f; /* std::max(0, t) */
    t = t < 1.0f ? t : 1.0f; /* std::min(1, t) */
    sat_hsv_to_rgb(h, t, v, j->out + p * 3);
  }
}

/* AdjustHue / AdjustSaturation / AdjustContrastv2 argument checks. */
static int check_adjust(tfs_kernel_ctx *c, const char *what, int rgb) {
  const tfs_tensor *x = c->inputs[0], *k = c->inputs[1];
  char b[TFS_SHAPE_STRLEN];
  if (x->shape.rank < 3) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "input must be at least 3-D, got "
                  "shape%s", tfs_shape_str(&x->shape, b, sizeof b));
    return -1;
  }
  if (k->shape.rank != 0) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "%s must be scalar: %s", what,
                  tfs_shape_str(&k->shape, b, sizeof b));
    return -1;
  }
  int64_t ch = x->shape.dims[x->shape.rank - 1];
  if (rgb && ch != 3) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "input must have 3 channels but "
                  "instead has %lld channels.", (long long)ch);
    return -1;
  }
  return 0;
}

static void adjust_compute(tfs_kernel_ctx *c, const char *what,
                           tfs_range_fn fn) {
  if (check_adjust(c, what, 1)) return;
  const tfs_tensor *x = c->inputs[0];
  tfs_tensor *o = tfs_kctx_alloc_output(c, 0, &x->shape);
  if (!o || o->nelems == 0) return;
  adjust_job j = {x->data, o->data, *(const float *)c->inputs[1]->data};
  tfs_kctx_parallel_for(c, x->nelems / 3, 30, fn, &j);
}

static void adjust_hue_compute(tfs_kernel_ctx *c) {
  adjust_compute(c, "delta", hue_range);
}

static void adjust_saturation_compute(tfs_kernel_ctx *c) {
  adjust_compute(c, "scale", sat_range);
}

/* ---- AdjustContrastv2 ---------------------------------------------------- */

static void adjust_contrast_compute(tfs_kernel_ctx *c) {
  if (check_adjust(c, "contrast_factor", 0)) return;
  const tfs_tensor *x = c->inputs[0];
  tfs_tensor *o = tfs_kctx_alloc_output(c, 0, &x->shape);
  if (!o || o->nelems == 0) return;
  int r = x->shape.rank;
  int64_t ch = x->shape.dims[r - 1];
  int64_t hw = x->shape.dims[r - 2] * x->shape.dims[r - 3];
  int64_t images = x->nelems / (hw * ch);
  float k = *(const float *)c->inputs[1]->data;
  double *sum = tfs_kctx_scratch(c, sizeof(double) * (size_t)ch);
  if (!sum) return;
  for (int64_t im = 0; im < images; im++) {
    int64_t base = im * hw * ch;
    memset(sum, 0, sizeof(double) * (size_t)ch);
    for (int64_t p = 0; p < hw; p++)
      for (int64_t q = 0; q < ch; q++)
        sum[q] += get(x->data, x->dtype, base + p * ch + q);
    for (int64_t q = 0; q < ch; q++) {
      float mean = (float)sum[q] / (float)hw;
      for (int64_t p = 0; p < hw; p++) {
        int64_t i = base + p * ch + q;
        float v = (float)get(x->data, x->dtype, i);
        put(o->data, x->dtype, i, (v - mean) * k + mean);
      }
    }
  }
}

#define COLOR_TYPES                                                   \
  (TFS_DT_BIT(TFS_FLOAT) | TFS_DT_BIT(TFS_DOUBLE) |                   \
   TFS_DT_BIT(TFS_HALF) | TFS_DT_BIT(TFS_BFLOAT16))

const tfs_kernel_def tfs_cpu_kernels_image_color[] = {
    {"RGBToHSV", "CPU", "T", COLOR_TYPES, NULL, rgb_to_hsv_compute, NULL, 0,
     NULL},
    {"HSVToRGB", "CPU", "T", COLOR_TYPES, NULL, hsv_to_rgb_compute, NULL, 0,
     NULL},
    {"AdjustHue", "CPU", "T", TFS_DT_BIT(TFS_FLOAT), NULL, adjust_hue_compute,
     NULL, 0, NULL},
    {"AdjustSaturation", "CPU", "T", TFS_DT_BIT(TFS_FLOAT), NULL,
     adjust_saturation_compute, NULL, 0, NULL},
    {"AdjustContrastv2", "CPU", "T", TFS_DT_BIT(TFS_FLOAT), NULL,
     adjust_contrast_compute, NULL, 0, NULL},
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL},
};
