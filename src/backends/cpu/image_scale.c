/*
 * backends/cpu/image_scale.c - ScaleAndTranslate, the resampler behind
 * tf.image.resize with antialias or the lanczos3/5, gaussian and
 * mitchellcubic methods.  Each axis is resampled on its own: an output
 * pixel's centre maps back through the inverse scale and translation to
 * a point of the input, and a span of input pixels around it is weighted
 * by the sampling kernel (stretched by the downscale factor when
 * antialiasing) and normalised.  Rows first into a float buffer, then
 * columns, in TensorFlow's order of summation; float arithmetic as
 * TensorFlow's kernel does it.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "backends/cpu/cpu_tables.h"
#include "core/alloc.h"
#include "core/half.h"
#include "core/util.h"

typedef enum {
  K_LANCZOS1, K_LANCZOS3, K_LANCZOS5, K_GAUSSIAN, K_BOX, K_TRIANGLE,
  K_KEYSCUBIC, K_MITCHELLCUBIC, K_END
} kernel_kind;

static const char *const kKernelNames[K_END] = {
    "lanczos1", "lanczos3", "lanczos5", "gaussian",
    "box", "triangle", "keyscubic", "mitchellcubic"};

static float lanczos(float radius, float x) {
  const float pi = 3.14159265359f;
  x = fabsf(x);
  if (x > radius) return 0.0f;
  if (x <= 1e-3f) return 1.0f;
  return radius * sinf(pi * x) * sinf(pi * x / radius) / (pi * pi * x * x);
}

static float kernel_at(kernel_kind k, float x) {
  x = fabsf(x);
  switch (k) {
    case K_LANCZOS1: return lanczos(1.0f, x);
    case K_LANCZOS3: return lanczos(3.0f, x);
    case K_LANCZOS5: return lanczos(5.0f, x);
    case K_GAUSSIAN: {
      const float radius = 1.5f, sigma = radius / 3.0f;
      if (x >= radius) return 0.0f;
      return (float)exp(-x * x / (2.0 * sigma * sigma));
    }
    case K_BOX: return x < 0.5f ? 1.0f : x == 0.5f ? 0.5f : 0.0f;
    case K_TRIANGLE: return x < 1.0f ? 1.0f - x : 0.0f;
    case K_KEYSCUBIC:
      if (x >= 2.0f) return 0.0f;
      if (x >= 1.0f) return ((-0.5f * x + 2.5f) * x - 4.0f) * x + 2.0f;
      return ((1.5f * x - 2.5f) * x) * x + 1.0f;
    case K_MITCHELLCUBIC:
      if (x >= 2.0f) return 0.0f;
      if (x >= 1.0f)
        return (((-7.0f / 18.0f) * x + 2.0f) * x - 10.0f / 3.0f) * x +
               16.0f / 9.0f;
      return (((7.0f / 6.0f) * x - 2.0f) * x) * x + 8.0f / 9.0f;
    default: return 0.0f;
  }
}

static float kernel_radius(kernel_kind k) {
  switch (k) {
    case K_LANCZOS3: return 3.0f;
    case K_LANCZOS5: return 5.0f;
    case K_GAUSSIAN: return 1.5f;
    case K_KEYSCUBIC:
    case K_MITCHELLCUBIC: return 2.0f;
    default: return 1.0f;
  }
}

/* The spans of one axis: output pixel x reads input [start[x],
 * start[x] + size) (clipped to the input) with weights w[x * size ...]. */
typedef struct {
  int64_t size;
  int64_t *start;
  float *w;
} spans;

static int compute_spans(tfs_kernel_ctx *c, kernel_kind k, int64_t out_size,
                         int64_t in_size, float scale, float translate,
                         int antialias, spans *sp) {
  const float inv_scale = 1.0f / scale;
  const float inv_translate = -inv_scale * translate;
  const float kscale = antialias && inv_scale > 1.0f ? inv_scale : 1.0f;
  const float reach = kernel_radius(k) * kscale;
  /* TensorFlow's int of a huge reach is undefined; the span never
   * exceeds the input, so the bound is taken in double */
  double want = 2.0 * ceil((double)reach) + 1.0;
  sp->size = want < (double)in_size ? (int64_t)want : in_size;
  int64_t nw;
  if (tfs_mul_overflow_i64(sp->size, out_size, &nw)) {
    tfs_kctx_fail(c, TFS_RESOURCE_EXHAUSTED,
                  "ScaleAndTranslate spans of %lld x %lld weights",
                  (long long)out_size, (long long)sp->size);
    return -1;
  }
  sp->start = tfs_kctx_scratch(c, (size_t)out_size * sizeof(int64_t));
  sp->w = sp->start ? tfs_kctx_scratch(c, (size_t)nw * sizeof(float)) : NULL;
  float *tmp = sp->w ? tfs_kctx_scratch(c, (size_t)sp->size * sizeof(float))
                     : NULL;
  if (!tmp) return -1;
  memset(sp->w, 0, (size_t)nw * sizeof(float));
  const float inv_kscale = 1.0f / kscale;
  for (int64_t x = 0; x < out_size; x++) {
    const float sample = ((float)x + 0.5f) * inv_scale + inv_translate;
    sp->start[x] = 0;
    /* outside the input (or not a number): an empty span */
    if (!(sample >= 0 && sample <= (float)in_size)) continue;
    double lo = ceil((double)(sample - reach - 0.5f));
    double hi = floor((double)(sample + reach - 0.5f));
    int64_t s0 = lo < 0 ? 0 : lo > (double)(in_size - 1) ? in_size - 1
                                                          : (int64_t)lo;
    int64_t s1 = hi < 0 ? 0 : hi > (double)(in_size - 1) ? in_size - 1
                                                          : (int64_t)hi;
    s1 += 1;
    int64_t n = s1 - s0;
    if (n > sp->size) {
      tfs_kctx_fail(c, TFS_INTERNAL, "Span is too large: %lld vs %lld.",
                    (long long)n, (long long)sp->size);
      return -1;
    }
    float total = 0.0f;
    for (int64_t src = s0; src < s1; src++) {
      float pos = (float)src + 0.5f - sample;
      float wt = kernel_at(k, fabsf(pos * inv_kscale));
      total += wt;
      tmp[src - s0] = wt;
    }
    if (fabsf(total) >= 1000.0f * 1.17549435e-38f) {
      float inv_total = 1.0f / total;
      for (int64_t j = 0; j < n; j++)
        sp->w[x * sp->size + j] = tmp[j] * inv_total;
    }
    sp->start[x] = s0;
  }
  return 0;
}

/* The input as float, as TensorFlow's static_cast<float> reads it. */
static void to_float(tfs_dtype dt, const void *data, int64_t n, float *o) {
  switch (dt) {
#define CONV(DT, T)                                                        \
  case DT: {                                                               \
    const T *p = data;                                                     \
    for (int64_t i = 0; i < n; i++) o[i] = (float)p[i];                    \
    break;                                                                 \
  }
    CONV(TFS_FLOAT, float)
    CONV(TFS_DOUBLE, double)
    CONV(TFS_INT8, int8_t)
    CONV(TFS_UINT8, uint8_t)
    CONV(TFS_INT16, int16_t)
    CONV(TFS_UINT16, uint16_t)
    CONV(TFS_INT32, int32_t)
    CONV(TFS_INT64, int64_t)
#undef CONV
    case TFS_HALF:
      for (int64_t i = 0; i < n; i++)
        o[i] = tfs_half_to_float(((const uint16_t *)data)[i]);
      break;
    case TFS_BFLOAT16:
      for (int64_t i = 0; i < n; i++)
        o[i] = tfs_bf16_to_float(((const uint16_t *)data)[i]);
      break;
    default:
      break;
  }
}

/* Rows: out[y] = sum_j w[y][j] * in[start[y] + j] over whole rows of
 * `row` floats. */
static void gather_rows(const spans *sp, const float *in, int64_t in_h,
                        int64_t row, int64_t out_h, float *out) {
  for (int64_t y = 0; y < out_h; y++) {
    float *o = out + y * row;
    memset(o, 0, (size_t)row * sizeof(float));
    int64_t s = sp->start[y];
    int64_t n = s + sp->size < in_h ? sp->size : in_h - s;
    const float *w = sp->w + y * sp->size;
    for (int64_t j = 0; j < n; j++) {
      const float *r = in + (s + j) * row;
      for (int64_t i = 0; i < row; i++) o[i] += w[j] * r[i];
    }
  }
}

/* Columns of `rows` rows of in_w pixels of ch channels. */
static void gather_cols(const spans *sp, const float *in, int64_t rows,
                        int64_t in_w, int64_t out_w, int64_t ch,
                        float *out) {
  for (int64_t y = 0; y < rows; y++) {
    const float *r = in + y * in_w * ch;
    float *o = out + y * out_w * ch;
    for (int64_t x = 0; x < out_w; x++, o += ch) {
      int64_t s = sp->start[x];
      int64_t n = s + sp->size < in_w ? sp->size : in_w - s;
      const float *w = sp->w + x * sp->size;
      const float *p = r + s * ch;
      for (int64_t k = 0; k < ch; k++) o[k] = 0.0f;
      for (int64_t j = 0; j < n; j++, p += ch)
        for (int64_t k = 0; k < ch; k++) o[k] += w[j] * p[k];
    }
  }
}

typedef struct {
  kernel_kind kind;
  int antialias;
} st_state;

static int st_prepare(tfs_kernel_init *ki) {
  size_t len = 0;
  const char *name = tfs_attrs_get_string(ki->attrs, "kernel_type", &len);
  kernel_kind k = K_LANCZOS3;
  if (name) {
    for (k = 0; k < K_END; k++)
      if (strlen(kKernelNames[k]) == len &&
          !memcmp(kKernelNames[k], name, len))
        break;
    if (k == K_END)
      return tfs_ki_error(ki, TFS_INVALID_ARGUMENT,
                          "Unrecognized kernel type: %.*s", (int)len, name);
  }
  st_state *s = tfs_calloc(1, sizeof(*s));
  if (!s) return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  s->kind = k;
  s->antialias = 1;
  tfs_attrs_get_bool(ki->attrs, "antialias", &s->antialias);
  ki->state = s;
  return 0;
}

/* A float pair (scale or translation): "t must be ..." as TensorFlow. */
static int float_pair(tfs_kernel_ctx *c, const tfs_tensor *t, float *a,
                      float *b) {
  char sh[TFS_SHAPE_STRLEN];
  tfs_shape_str(&t->shape, sh, sizeof sh);
  if (t->shape.rank != 1) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "t must be 1-dimensional%s", sh);
    return -1;
  }
  if (t->nelems != 2) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "t must have two elements%s", sh);
    return -1;
  }
  *a = ((const float *)t->data)[0];
  *b = ((const float *)t->data)[1];
  return 0;
}

/* TensorFlow's checks, in its order; the output shape in *os. */
static int st_check(tfs_kernel_ctx *c, tfs_shape *os, float *scale,
                    float *trans) {
  const tfs_tensor *in = c->inputs[0], *size = c->inputs[1];
  char sh[TFS_SHAPE_STRLEN];
  if (in->shape.rank != 4) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "input must be 4-dimensional%s",
                  tfs_shape_str(&in->shape, sh, sizeof sh));
    return -1;
  }
  tfs_shape_str(&size->shape, sh, sizeof sh);
  if (size->shape.rank != 1) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "output_shape_t must be 1-dimensional%s", sh);
    return -1;
  }
  if (size->nelems != 2) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "output_shape_t must have two elements%s", sh);
    return -1;
  }
  const int32_t *hw = size->data;
  const int64_t *d = in->shape.dims;
  if (d[1] > INT32_MAX || d[2] > INT32_MAX) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "input sizes must be between 0 and max int32");
    return -1;
  }
  const char *why = hw[0] <= 0 || hw[1] <= 0 ? "output dimensions must be "
                                               "positive"
                    : d[3] <= 0 ? "image must have at least one channel"
                    : d[1] <= 0 || d[2] <= 0
                        ? "input image must be of non-zero size"
                        : NULL;
  if (why) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "%s", why);
    return -1;
  }
  if (float_pair(c, c->inputs[2], &scale[0], &scale[1])) return -1;
  if (!(scale[0] > 0 && scale[1] > 0)) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Scale must be greater than zero.");
    return -1;
  }
  if (float_pair(c, c->inputs[3], &trans[0], &trans[1])) return -1;
  os->rank = 4;
  os->dims[0] = d[0];
  os->dims[1] = hw[0];
  os->dims[2] = hw[1];
  os->dims[3] = d[3];
  return 0;
}

static void st_compute(tfs_kernel_ctx *c) {
  const st_state *s = c->state;
  const tfs_tensor *in = c->inputs[0];
  tfs_shape os;
  float scale[2], trans[2];
  if (st_check(c, &os, scale, trans)) return;
  tfs_tensor *o = tfs_kctx_alloc_output(c, 0, &os);
  if (!o || o->nelems == 0) return;
  const int64_t b = in->shape.dims[0], ih = in->shape.dims[1],
                iw = in->shape.dims[2], ch = in->shape.dims[3];
  const int64_t oh = os.dims[1], ow = os.dims[2];
  spans rows, cols;
  if (compute_spans(c, s->kind, ow, iw, scale[1], trans[1], s->antialias,
                    &cols) ||
      compute_spans(c, s->kind, oh, ih, scale[0], trans[0], s->antialias,
                    &rows))
    return;
  int64_t mid_n, row;
  if (tfs_mul_overflow_i64(oh, iw, &mid_n) ||
      tfs_mul_overflow_i64(mid_n, ch, &mid_n) ||
      tfs_mul_overflow_i64(iw, ch, &row) ||
      (uint64_t)mid_n > SIZE_MAX / sizeof(float)) {
    tfs_kctx_fail(c, TFS_RESOURCE_EXHAUSTED,
                  "ScaleAndTranslate intermediate of %lld x %lld x %lld",
                  (long long)oh, (long long)iw, (long long)ch);
    return;
  }
  const int64_t in_n = ih * row;
  float *img = in->dtype == TFS_FLOAT
                   ? NULL
                   : tfs_kctx_scratch(c, (size_t)in_n * sizeof(float));
  float *mid = tfs_kctx_scratch(c, (size_t)mid_n * sizeof(float));
  if (!mid || (in->dtype != TFS_FLOAT && !img)) return;
  float *out = o->data;
  for (int64_t i = 0; i < b; i++) {
    const float *src;
    if (in->dtype == TFS_FLOAT) {
      src = (const float *)in->data + i * in_n;
    } else {
      size_t es = tfs_dtype_size(in->dtype);
      to_float(in->dtype, (const char *)in->data + (size_t)(i * in_n) * es,
               in_n, img);
      src = img;
    }
    gather_rows(&rows, src, ih, row, oh, mid);
    gather_cols(&cols, mid, oh, iw, ow, ch, out + i * oh * ow * ch);
  }
}

#define B(dt) TFS_DT_BIT(dt)
const tfs_kernel_def tfs_cpu_kernels_image_scale[] = {
    {"ScaleAndTranslate", "CPU", "T",
     TFS_DT_REAL & ~(B(TFS_UINT32) | B(TFS_UINT64)), st_prepare, st_compute,
     tfs_free, 0, NULL},
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL},
};
