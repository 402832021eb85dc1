/*
 * backends/cpu/array_resize.c - ResizeBilinear, ResizeBicubic and
 * ResizeArea (float output, any numeric input) and ResizeNearestNeighbor,
 * with align_corners and half_pixel_centers, computing sample positions
 * and weights in float exactly as TensorFlow's CPU kernels do.  Output rows are split over the
 * intra-op pool.
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "core/alloc.h"
#include "core/half.h"
#include "backends/cpu/array_util.h"

typedef struct {
  int align, half_pixel;
} resize_state;

static int resize_prepare(tfs_kernel_init *ki) {
  resize_state *s = tfs_calloc(1, sizeof(*s));
  if (!s) return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  tfs_attrs_get_bool(ki->attrs, "align_corners", &s->align);
  tfs_attrs_get_bool(ki->attrs, "half_pixel_centers", &s->half_pixel);
  ki->state = s;
  return 0;
}

typedef struct {
  int64_t batch, ih, iw, ch, oh, ow;
  float hs, ws; /* scales */
} resize_geom;

static float resize_scale(int64_t in, int64_t out, int align) {
  return align && out > 1 ? (float)(in - 1) / (float)(out - 1)
                          : (float)in / (float)out;
}

/* TensorFlow's ImageResizerState checks; fills g. */
static int resize_validate(tfs_kernel_ctx *c, resize_geom *g) {
  const resize_state *s = c->state;
  const tfs_tensor *x = c->inputs[0], *sz = c->inputs[1];
  char b[TFS_SHAPE_STRLEN];
  if (s->half_pixel && s->align) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "If half_pixel_centers is True, align_corners must be "
                  "False.");
    return -1;
  }
  if (x->shape.rank != 4) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "input must be 4-dimensional%s",
                  tfs_shape_str(&x->shape, b, sizeof b));
    return -1;
  }
  if (sz->shape.rank != 1) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "shape_t must be 1-dimensional%s",
                  tfs_shape_str(&sz->shape, b, sizeof b));
    return -1;
  }
  if (sz->nelems != 2) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "shape_t must have two elements%s",
                  tfs_shape_str(&sz->shape, b, sizeof b));
    return -1;
  }
  const int64_t *d = x->shape.dims;
  g->batch = d[0], g->ih = d[1], g->iw = d[2], g->ch = d[3];
  g->oh = ((const int32_t *)sz->data)[0];
  g->ow = ((const int32_t *)sz->data)[1];
  if (g->ih > INT32_MAX || g->iw > INT32_MAX) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "input sizes must be between 0 and max int32");
    return -1;
  }
  const char *msg = NULL;
  if (g->oh <= 0 || g->ow <= 0)
    msg = "output dimensions must be positive";
  else if (g->ch <= 0)
    msg = "image must have at least one channel";
  else if (g->ih <= 0 || g->iw <= 0)
    msg = "input image must be of non-zero size";
  if (msg) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "%s", msg);
    return -1;
  }
  g->hs = resize_scale(g->ih, g->oh, s->align);
  g->ws = resize_scale(g->iw, g->ow, s->align);
  return 0;
}

/* ---- ResizeBilinear ------------------------------------------------------ */

typedef struct {
  int64_t lower, upper;
  float lerp;
} interp;

static void weights(int64_t out, int64_t in, float scale, int half_pixel,
                    interp *w) {
  for (int64_t i = 0; i < out; i++) {
    float v = half_pixel ? ((float)i + 0.5f) * scale - 0.5f : (float)i * scale;
    float f = floorf(v);
    int64_t lo = (int64_t)f, hi = (int64_t)ceilf(v);
    w[i].lower = lo > 0 ? lo : 0;
    w[i].upper = hi < in - 1 ? hi : in - 1;
    w[i].lerp = v - f;
  }
}

typedef struct {
  const resize_geom *g;
  const float *in;
  float *out;
  const interp *ys, *xs;
} bilinear_job;

static void bilinear_range(void *arg, int64_t begin, int64_t end) {
  const bilinear_job *j = arg;
  const resize_geom *g = j->g;
  int64_t ch = g->ch;
  for (int64_t r = begin; r < end; r++) { /* r: (b, y) */
    int64_t b = r / g->oh, y = r % g->oh;
    const interp *yw = &j->ys[y];
    const float *lo = j->in + ((b * g->ih + yw->lower) * g->iw) * ch;
    const float *hi = j->in + ((b * g->ih + yw->upper) * g->iw) * ch;
    float *o = j->out + (r * g->ow) * ch;
    for (int64_t x = 0; x < g->ow; x++) {
      const interp *xw = &j->xs[x];
      int64_t xl = xw->lower * ch, xu = xw->upper * ch;
      for (int64_t k = 0; k < ch; k++) {
        float tl = lo[xl + k], tr = lo[xu + k];
        float bl = hi[xl + k], br = hi[xu + k];
        float top = tl + (tr - tl) * xw->lerp;
        float bot = bl + (br - bl) * xw->lerp;
        o[x * ch + k] = top + (bot - top) * yw->lerp;
      }
    }
  }
}

/* Input as float: the tensor itself, or a converted scratch copy. */
static const float *as_float(tfs_kernel_ctx *c, const tfs_tensor *x) {
  if (x->dtype == TFS_FLOAT) return x->data;
  float *f = tfs_kctx_scratch(c, sizeof(float) * (size_t)x->nelems);
  if (!f) return NULL;
  for (int64_t i = 0; i < x->nelems; i++) {
    if (x->dtype == TFS_HALF)
      f[i] = tfs_half_to_float(((const uint16_t *)x->data)[i]);
    else if (x->dtype == TFS_BFLOAT16)
      f[i] = tfs_bf16_to_float(((const uint16_t *)x->data)[i]);
    else
      f[i] = (float)tfs_tensor__get_as_double(x, i);
  }
  return f;
}

static void resize_bilinear_compute(tfs_kernel_ctx *c) {
  const resize_state *s = c->state;
  resize_geom g;
  if (resize_validate(c, &g)) return;
  tfs_shape out;
  out.rank = 4;
  out.dims[0] = g.batch, out.dims[1] = g.oh, out.dims[2] = g.ow;
  out.dims[3] = g.ch;
  tfs_tensor *o = tfs_kctx_alloc_output(c, 0, &out);
  if (!o || o->nelems == 0) return;
  interp *ys = tfs_kctx_scratch(c, sizeof(interp) * (size_t)(g.oh + g.ow));
  const float *in = ys ? as_float(c, c->inputs[0]) : NULL;
  if (!in) return;
  interp *xs = ys + g.oh;
  weights(g.oh, g.ih, g.hs, s->half_pixel, ys);
  weights(g.ow, g.iw, g.ws, s->half_pixel, xs);
  bilinear_job j = {&g, in, o->data, ys, xs};
  tfs_kctx_parallel_for(c, g.batch * g.oh, g.ow * g.ch * 8 + 10,
                        bilinear_range, &j);
}

/* ---- ResizeBicubic ------------------------------------------------------- */

/* TensorFlow samples the cubic kernel from a 1025-entry table: entry i
 * holds the weights of the near and the far tap at offset i / 1024,
 * computed in double from a float position and stored as float. */
#define CUBIC_TABLE 1024

static void cubic_table(double a, float *t) {
  for (int i = 0; i <= CUBIC_TABLE; i++) {
    float x = (float)(i * 1.0 / CUBIC_TABLE);
    t[i * 2] = (float)(((a + 2) * x - (a + 3)) * x * x + 1);
    x = (float)(x + 1.0);
    t[i * 2 + 1] = (float)(((a * x - 5 * a) * x + 8 * a) * x - 4 * a);
  }
}

typedef struct {
  float w[4];
  int64_t ix[4];
} cubic_tap;

static int64_t bound(int64_t v, int64_t limit) {
  return v < 0 ? 0 : v > limit - 1 ? limit - 1 : v;
}

/* Taps of output position i: Keys' a = -0.5 with half-pixel centers
 * (taps outside the image get weight 0 and the rest are renormalized),
 * else a = -0.75 with edge taps repeated. */
static void cubic_taps(int64_t i, float scale, int64_t limit, int half_pixel,
                       const float *table, cubic_tap *t) {
  float f = half_pixel ? ((float)i + 0.5f) * scale - 0.5f : (float)i * scale;
  int64_t loc = (int64_t)floorf(f);
  float delta = f - (float)loc;
  long off = lrintf(delta * (float)CUBIC_TABLE);
  float w[4] = {table[off * 2 + 1], table[off * 2],
                table[(CUBIC_TABLE - off) * 2],
                table[(CUBIC_TABLE - off) * 2 + 1]};
  for (int k = 0; k < 4; k++) {
    t->ix[k] = bound(loc - 1 + k, limit);
    t->w[k] = w[k];
    if (half_pixel && t->ix[k] != loc - 1 + k) t->w[k] = 0.0f;
  }
  if (!half_pixel) return;
  float sum = t->w[0] + t->w[1] + t->w[2] + t->w[3];
  if (fabsf(sum) >= 1000.0f * FLT_MIN) {
    float inv = 1.0f / sum;
    for (int k = 0; k < 4; k++) t->w[k] *= inv;
  }
}

typedef struct {
  const resize_geom *g;
  const float *in;
  float *out;
  const cubic_tap *ys, *xs;
} bicubic_job;

static void bicubic_range(void *arg, int64_t begin, int64_t end) {
  const bicubic_job *j = arg;
  const resize_geom *g = j->g;
  int64_t ch = g->ch, row = g->iw * ch;
  for (int64_t r = begin; r < end; r++) { /* r: (b, y) */
    int64_t b = r / g->oh, y = r % g->oh;
    const cubic_tap *yt = &j->ys[y];
    const float *rows[4];
    for (int k = 0; k < 4; k++)
      rows[k] = j->in + (b * g->ih + yt->ix[k]) * row;
    float *o = j->out + r * g->ow * ch;
    for (int64_t x = 0; x < g->ow; x++) {
      const cubic_tap *xt = &j->xs[x];
      for (int64_t c = 0; c < ch; c++) {
        float v[4];
        for (int k = 0; k < 4; k++) {
          int64_t p = xt->ix[k] * ch + c;
          v[k] = rows[0][p] * yt->w[0] + rows[1][p] * yt->w[1] +
                 rows[2][p] * yt->w[2] + rows[3][p] * yt->w[3];
        }
        o[x * ch + c] = v[0] * xt->w[0] + v[1] * xt->w[1] +
                        v[2] * xt->w[2] + v[3] * xt->w[3];
      }
    }
  }
}

static void resize_bicubic_compute(tfs_kernel_ctx *c) {
  const resize_state *s = c->state;
  resize_geom g;
  if (resize_validate(c, &g)) return;
  tfs_shape out;
  out.rank = 4;
  out.dims[0] = g.batch, out.dims[1] = g.oh, out.dims[2] = g.ow;
  out.dims[3] = g.ch;
  tfs_tensor *o = tfs_kctx_alloc_output(c, 0, &out);
  if (!o || o->nelems == 0) return;
  float *table = tfs_kctx_scratch(c, sizeof(float) * (CUBIC_TABLE + 1) * 2);
  cubic_tap *ys = table ? tfs_kctx_scratch(
                              c, sizeof(cubic_tap) * (size_t)(g.oh + g.ow))
                        : NULL;
  const float *in = ys ? as_float(c, c->inputs[0]) : NULL;
  if (!in) return;
  cubic_table(s->half_pixel ? -0.5 : -0.75, table);
  cubic_tap *xs = ys + g.oh;
  for (int64_t i = 0; i < g.oh; i++)
    cubic_taps(i, g.hs, g.ih, s->half_pixel, table, &ys[i]);
  for (int64_t i = 0; i < g.ow; i++)
    cubic_taps(i, g.ws, g.iw, s->half_pixel, table, &xs[i]);
  bicubic_job j = {&g, in, o->data, ys, xs};
  tfs_kctx_parallel_for(c, g.batch * g.oh, g.ow * g.ch * 40 + 10,
                        bicubic_range, &j);
}

/* ---- ResizeArea ---------------------------------------------------------- */

/* The input cells [start, end) that output cell i covers, with the
 * weights of the first and the last, in TensorFlow's float arithmetic
 * (integers converted to float where they meet floats). */
typedef struct {
  int64_t start, end;
  float first, last;
} area_span;

static float area_weight(int64_t v, float lo, float hi, float scale) {
  double w = (float)v < lo ? ((float)(v + 1) > hi ? scale
                                                  : (float)(v + 1) - lo)
                           : ((float)(v + 1) > hi ? hi - (float)v : 1.0);
  return (float)w;
}

static void area_spans(int64_t out, float scale, area_span *sp) {
  for (int64_t i = 0; i < out; i++) {
    float lo = (float)i * scale, hi = (float)(i + 1) * scale;
    sp[i].start = (int64_t)floorf(lo);
    sp[i].end = (int64_t)ceilf(hi);
    sp[i].first = area_weight(sp[i].start, lo, hi, scale);
    sp[i].last = area_weight(sp[i].end - 1, lo, hi, scale);
  }
}

typedef struct {
  const resize_geom *g;
  const float *in;
  float *out;
  const area_span *ys, *xs;
  float scale;
} area_job;

/* Sum over one row of the x span of channel c. */
static float area_row(const float *row, const area_span *xs, int64_t iw,
                      int64_t ch, int64_t c) {
  float s = row[bound(xs->start, iw) * ch + c] * xs->first;
  if (xs->start + 1 != xs->end) {
    for (int64_t x = xs->start + 1; x < xs->end - 1; x++)
      s += row[bound(x, iw) * ch + c];
    s += row[bound(xs->end - 1, iw) * ch + c] * xs->last;
  }
  return s;
}

static void area_range(void *arg, int64_t begin, int64_t end) {
  const area_job *j = arg;
  const resize_geom *g = j->g;
  int64_t ch = g->ch, row = g->iw * ch;
  for (int64_t r = begin; r < end; r++) { /* r: (b, y) */
    int64_t b = r / g->oh, y = r % g->oh;
    const area_span *ys = &j->ys[y];
    float lo = (float)y * g->hs, hi = (float)(y + 1) * g->hs;
    float *o = j->out + r * g->ow * ch;
    for (int64_t x = 0; x < g->ow; x++) {
      for (int64_t c = 0; c < ch; c++) {
        float sum = 0;
        for (int64_t i = ys->start; i < ys->end; i++) {
          const float *in = j->in + (b * g->ih + bound(i, g->ih)) * row;
          sum += area_row(in, &j->xs[x], g->iw, ch, c) *
                 area_weight(i, lo, hi, g->hs);
        }
        o[x * ch + c] = sum * j->scale;
      }
    }
  }
}

static void resize_area_compute(tfs_kernel_ctx *c) {
  resize_geom g;
  if (resize_validate(c, &g)) return;
  tfs_shape out;
  out.rank = 4;
  out.dims[0] = g.batch, out.dims[1] = g.oh, out.dims[2] = g.ow;
  out.dims[3] = g.ch;
  tfs_tensor *o = tfs_kctx_alloc_output(c, 0, &out);
  if (!o || o->nelems == 0) return;
  area_span *ys = tfs_kctx_scratch(c, sizeof(area_span) *
                                          (size_t)(g.oh + g.ow));
  const float *in = ys ? as_float(c, c->inputs[0]) : NULL;
  if (!in) return;
  area_span *xs = ys + g.oh;
  area_spans(g.oh, g.hs, ys);
  area_spans(g.ow, g.ws, xs);
  float scale = (float)(1.0 / (double)(g.hs * g.ws));
  area_job j = {&g, in, o->data, ys, xs, scale};
  int64_t taps = (int64_t)ceilf(g.hs + 1) * (int64_t)ceilf(g.ws + 1);
  tfs_kctx_parallel_for(c, g.batch * g.oh, g.ow * g.ch * (taps + 4) + 10,
                        area_range, &j);
}

/* ---- ResizeNearestNeighbor ----------------------------------------------- */

static int64_t nearest(int64_t i, float scale, int64_t in, int align,
                       int half_pixel) {
  float v = half_pixel ? ((float)i + 0.5f) * scale : (float)i * scale;
  int64_t k = align ? (int64_t)roundf(v) : (int64_t)floorf(v);
  if (k > in - 1) k = in - 1;
  if (half_pixel && k < 0) k = 0;
  return k;
}

typedef struct {
  const resize_geom *g;
  tfs_elem e;
  const char *in;
  char *out;
  const int64_t *ys, *xs;
} nn_job;

static void nn_range(void *arg, int64_t begin, int64_t end) {
  const nn_job *j = arg;
  const resize_geom *g = j->g;
  size_t row = (size_t)g->ch * j->e.size;
  for (int64_t r = begin; r < end; r++) {
    int64_t b = r / g->oh, y = r % g->oh;
    const char *src = j->in + (size_t)((b * g->ih + j->ys[y]) * g->iw) * row;
    char *dst = j->out + (size_t)(r * g->ow) * row;
    for (int64_t x = 0; x < g->ow; x++)
      memcpy(dst + (size_t)x * row, src + (size_t)j->xs[x] * row, row);
  }
}

static void resize_nn_compute(tfs_kernel_ctx *c) {
  const resize_state *s = c->state;
  const tfs_tensor *x = c->inputs[0];
  resize_geom g;
  if (resize_validate(c, &g)) return;
  tfs_shape out;
  out.rank = 4;
  out.dims[0] = g.batch, out.dims[1] = g.oh, out.dims[2] = g.ow;
  out.dims[3] = g.ch;
  tfs_tensor *o = tfs_kctx_alloc_output(c, 0, &out);
  if (!o || o->nelems == 0) return;
  int64_t *ys = tfs_kctx_scratch(c, sizeof(int64_t) * (size_t)(g.oh + g.ow));
  if (!ys) return;
  int64_t *xs = ys + g.oh;
  for (int64_t i = 0; i < g.oh; i++)
    ys[i] = nearest(i, g.hs, g.ih, s->align, s->half_pixel);
  for (int64_t i = 0; i < g.ow; i++)
    xs[i] = nearest(i, g.ws, g.iw, s->align, s->half_pixel);
  nn_job j = {&g, tfs_elem_of(x->dtype), x->data, o->data, ys, xs};
  tfs_kctx_parallel_for(c, g.batch * g.oh, g.ow * g.ch / 4 + 10, nn_range,
                        &j);
}

#define RESIZE_TYPES (TFS_DT_REAL)

const tfs_kernel_def tfs_cpu_kernels_array_resize[] = {
    {"ResizeBilinear", "CPU", "T", RESIZE_TYPES, resize_prepare,
     resize_bilinear_compute, tfs_free, 0, NULL},
    {"ResizeBicubic", "CPU", "T", RESIZE_TYPES, resize_prepare,
     resize_bicubic_compute, tfs_free, 0, NULL},
    {"ResizeArea", "CPU", "T", RESIZE_TYPES, resize_prepare,
     resize_area_compute, tfs_free, 0, NULL},
    {"ResizeNearestNeighbor", "CPU", "T", RESIZE_TYPES, resize_prepare,
     resize_nn_compute, tfs_free, 0, NULL},
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL},
};
