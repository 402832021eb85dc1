/*
 * backends/cpu/image_grad.c - the gradients of image resizing and mirror
 * padding: ResizeBilinearGrad, ResizeNearestNeighborGrad and
 * MirrorPadGrad.  As TensorFlow's CPU kernels: the bilinear gradient
 * weighs each incoming value in float and adds the four parts to the
 * output in T; the nearest-neighbour gradient adds each value to the pixel
 * it was read from; MirrorPadGrad folds the padding back into the
 * interior one dimension at a time, left side first, in T.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/half.h"
#include "backends/cpu/cpu_tables.h"

/* dst[i] += src[j] in dtype dt (integers wrap, 16-bit floats round each
 * sum). */
static void add_elem(tfs_dtype dt, void *dst, int64_t i, const void *src,
                     int64_t j) {
  switch (dt) {
    case TFS_FLOAT: ((float *)dst)[i] += ((const float *)src)[j]; return;
    case TFS_DOUBLE: ((double *)dst)[i] += ((const double *)src)[j]; return;
    case TFS_HALF: {
      uint16_t *d = dst;
      d[i] = tfs_float_to_half(tfs_half_to_float(d[i]) +
                               tfs_half_to_float(((const uint16_t *)src)[j]));
      return;
    }
    case TFS_BFLOAT16: {
      uint16_t *d = dst;
      d[i] = tfs_float_to_bf16(tfs_bf16_to_float(d[i]) +
                               tfs_bf16_to_float(((const uint16_t *)src)[j]));
      return;
    }
    case TFS_INT8: case TFS_UINT8:
      ((uint8_t *)dst)[i] += ((const uint8_t *)src)[j];
      return;
    case TFS_INT16: case TFS_UINT16:
      ((uint16_t *)dst)[i] += ((const uint16_t *)src)[j];
      return;
    case TFS_INT32: case TFS_UINT32:
      ((uint32_t *)dst)[i] += ((const uint32_t *)src)[j];
      return;
    case TFS_INT64: case TFS_UINT64:
      ((uint64_t *)dst)[i] += ((const uint64_t *)src)[j];
      return;
    case TFS_COMPLEX64:
      ((float *)dst)[2 * i] += ((const float *)src)[2 * j];
      ((float *)dst)[2 * i + 1] += ((const float *)src)[2 * j + 1];
      return;
    case TFS_COMPLEX128:
      ((double *)dst)[2 * i] += ((const double *)src)[2 * j];
      ((double *)dst)[2 * i + 1] += ((const double *)src)[2 * j + 1];
      return;
    default: return;
  }
}

/* dst[i] += v, v a float converted to dt first. */
static void add_float(tfs_dtype dt, void *dst, int64_t i, float v) {
  switch (dt) {
    case TFS_FLOAT: ((float *)dst)[i] += v; return;
    case TFS_DOUBLE: ((double *)dst)[i] += (double)v; return;
    case TFS_HALF: {
      uint16_t h = tfs_float_to_half(v);
      add_elem(dt, dst, i, &h, 0);
      return;
    }
    case TFS_BFLOAT16: {
      uint16_t h = tfs_float_to_bf16(v);
      add_elem(dt, dst, i, &h, 0);
      return;
    }
    default: return;
  }
}

typedef struct rg_state {
  int align, half_pixel;
} rg_state;

static int rg_prepare(tfs_kernel_init *ki) {
  rg_state *s = tfs_calloc(1, sizeof *s);
  if (!s) return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  ki->state = s;
  tfs_attrs_get_bool(ki->attrs, "align_corners", &s->align);
  tfs_attrs_get_bool(ki->attrs, "half_pixel_centers", &s->half_pixel);
  if (s->align && s->half_pixel && ki->kdata)
    return tfs_ki_error(ki, TFS_INVALID_ARGUMENT,
                        "If half_pixel_centers is True, align_corners must "
                        "be False.");
  return 0;
}

/* TensorFlow's CalculateResizeScale: from `out` samples back to `in`. */
static float resize_scale(int64_t in, int64_t out, int align) {
  return align && out > 1 ? (float)(in - 1) / (float)(out - 1)
                          : (float)in / (float)out;
}

/* Where resized index i samples the original along one axis: the two
 * neighbours and the weight of the second. */
static void bilinear_axis(int64_t i, float scale, int half_pixel,
                          int64_t size, int64_t *lo, int64_t *hi,
                          float *lerp) {
  float in = half_pixel ? ((float)i + 0.5f) * scale - 0.5f : (float)i * scale;
  float f = floorf(in);
  *lo = (int64_t)f < 0 ? 0 : (int64_t)f;
  int64_t c = (int64_t)ceilf(in);
  *hi = c < size - 1 ? c : size - 1;
  *lerp = in - f;
}

static void resize_bilinear_grad_compute(tfs_kernel_ctx *c) {
  const rg_state *s = c->state;
  const tfs_tensor *g = c->inputs[0], *img = c->inputs[1];
  char a[160];
  if (g->shape.rank != 4) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "input_grad must be "
                  "4-dimensional%s", tfs_shape_str(&g->shape, a, sizeof a));
    return;
  }
  if (img->shape.rank != 4) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "original_image must be "
                  "4-dimensional%s", tfs_shape_str(&img->shape, a, sizeof a));
    return;
  }
  int64_t n = g->shape.dims[0], rh = g->shape.dims[1], rw = g->shape.dims[2];
  int64_t ch = g->shape.dims[3];
  int64_t oh = img->shape.dims[1], ow = img->shape.dims[2];
  if (oh >= INT32_MAX || ow >= INT32_MAX) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "original sizes must be between 0 and max int32");
    return;
  }
  if (rh <= 0 || rw <= 0) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "resized dimensions must be positive");
    return;
  }
  if (oh <= 0 || ow <= 0) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "original dimensions must be positive");
    return;
  }
  tfs_shape os = {.rank = 4, .dims = {n, oh, ow, ch}};
  tfs_tensor *out = tfs_kctx_alloc_output(c, 0, &os);
  if (!out) return;
  memset(out->data, 0, out->nbytes);
  float hs = resize_scale(oh, rh, s->align), ws = resize_scale(ow, rw,
                                                              s->align);
  const float *gd = g->data;
  tfs_dtype dt = out->dtype;
  for (int64_t b = 0; b < n; b++)
    for (int64_t y = 0; y < rh; y++) {
      int64_t t, bo, l, r;
      float yl, xl;
      bilinear_axis(y, hs, s->half_pixel, oh, &t, &bo, &yl);
      for (int64_t x = 0; x < rw; x++) {
        bilinear_axis(x, ws, s->half_pixel, ow, &l, &r, &xl);
        const float *gp = gd + ((b * rh + y) * rw + x) * ch;
        int64_t tl = ((b * oh + t) * ow + l) * ch;
        int64_t tr = ((b * oh + t) * ow + r) * ch;
        int64_t bl = ((b * oh + bo) * ow + l) * ch;
        int64_t br = ((b * oh + bo) * ow + r) * ch;
        for (int64_t k = 0; k < ch; k++) {
          float v = gp[k];
          add_float(dt, out->data, tl + k, v * (1.0f - yl) * (1.0f - xl));
          add_float(dt, out->data, tr + k, v * (1.0f - yl) * xl);
          add_float(dt, out->data, bl + k, v * yl * (1.0f - xl));
          add_float(dt, out->data, br + k, v * yl * xl);
        }
      }
    }
}

/* The product of dims as TensorShape builds it: "Encountered overflow
 * when multiplying A with B, result: R". */
static int shape_product(tfs_kernel_ctx *c, const tfs_shape *s) {
  int64_t n = 1;
  for (int i = 0; i < s->rank; i++) {
    int64_t r;
    if (__builtin_mul_overflow(n, s->dims[i], &r)) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "Encountered overflow when multiplying %lld with %lld, "
                    "result: %lld", (long long)n, (long long)s->dims[i],
                    (long long)(int64_t)((uint64_t)n * (uint64_t)s->dims[i]));
      return -1;
    }
    n = r;
  }
  return 0;
}

static void resize_nn_grad_compute(tfs_kernel_ctx *c) {
  const rg_state *s = c->state;
  const tfs_tensor *g = c->inputs[0], *sz = c->inputs[1];
  char a[160];
  if (g->shape.rank != 4) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "input must be 4-dimensional%s",
                  tfs_shape_str(&g->shape, a, sizeof a));
    return;
  }
  if (sz->shape.rank != 1) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "shape_t must be 1-dimensional%s",
                  tfs_shape_str(&sz->shape, a, sizeof a));
    return;
  }
  if (sz->nelems != 2) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "shape_t must have two elements%s",
                  tfs_shape_str(&sz->shape, a, sizeof a));
    return;
  }
  const int32_t *sv = sz->data;
  if (sv[0] <= 0 || sv[1] <= 0) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "shape_t's elements must be positive");
    return;
  }
  int64_t n = g->shape.dims[0], ih = g->shape.dims[1], iw = g->shape.dims[2];
  int64_t ch = g->shape.dims[3], oh = sv[0], ow = sv[1];
  tfs_shape os = {.rank = 4, .dims = {n, oh, ow, ch}};
  if (shape_product(c, &os)) return;
  tfs_tensor *out = tfs_kctx_alloc_output(c, 0, &os);
  if (!out) return;
  memset(out->data, 0, out->nbytes);
  if (g->nelems == 0) return;
  float hs = resize_scale(oh, ih, s->align), ws = resize_scale(ow, iw,
                                                              s->align);
  for (int64_t b = 0; b < n; b++)
    for (int64_t y = 0; y < ih; y++) {
      float fy = s->half_pixel ? ((float)y + 0.5f) * hs : (float)y * hs;
      int64_t ty = (int64_t)(s->align ? roundf(fy) : floorf(fy));
      if (ty > oh - 1) ty = oh - 1;
      if (ty < 0) ty = 0;
      for (int64_t x = 0; x < iw; x++) {
        float fx = s->half_pixel ? ((float)x + 0.5f) * ws : (float)x * ws;
        int64_t tx = (int64_t)(s->align ? roundf(fx) : floorf(fx));
        if (tx > ow - 1) tx = ow - 1;
        if (tx < 0) tx = 0;
        int64_t src = ((b * ih + y) * iw + x) * ch;
        int64_t dst = ((b * oh + ty) * ow + tx) * ch;
        for (int64_t k = 0; k < ch; k++)
          add_elem(out->dtype, out->data, dst + k, g->data, src + k);
      }
    }
}

/* ---- MirrorPadGrad ------------------------------------------------------ */

typedef struct mpg_state {
  int offset; /* 1 for REFLECT, 0 for SYMMETRIC */
} mpg_state;

static int mpg_prepare(tfs_kernel_init *ki) {
  mpg_state *s = tfs_calloc(1, sizeof *s);
  if (!s) return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  ki->state = s;
  size_t len = 0;
  const char *m = tfs_attrs_get_string(ki->attrs, "mode", &len);
  s->offset = !(m && strcmp(m, "SYMMETRIC") == 0);
  return 0;
}

/* The paddings (TensorFlow's checks, in its order) and the output shape;
 * -1 after failing c. */
static int mpg_check(tfs_kernel_ctx *c, int offset, int64_t pads[][2],
                     tfs_shape *os) {
  const tfs_tensor *in = c->inputs[0], *p = c->inputs[1];
  int r = in->shape.rank;
  char a[160], b[160];
  if (r > 5) {
    tfs_kctx_fail(c, TFS_UNIMPLEMENTED, "inputs rank not in [0,5]: %d", r);
    return -1;
  }
  if (p->shape.rank != 2 || p->shape.dims[1] != 2) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "paddings must be a matrix with 2 columns: %s",
                  tfs_shape_str(&p->shape, a, sizeof a));
    return -1;
  }
  if (p->shape.dims[0] != r) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "The first dimension of paddings must be the rank of "
                  "inputs%s %s", tfs_shape_str(&p->shape, a, sizeof a),
                  tfs_shape_str(&in->shape, b, sizeof b));
    return -1;
  }
  os->rank = r;
  for (int d = 0; d < r; d++) {
    int64_t lo = tfs_tensor__get_as_int64(p, 2 * d);
    int64_t hi = tfs_tensor__get_as_int64(p, 2 * d + 1);
    int64_t n = in->shape.dims[d];
    if (lo < 0 || hi < 0) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "Paddings must be non-negative: %lld, %lld",
                    (long long)lo, (long long)hi);
      return -1;
    }
    if (lo >= n || hi >= n || lo + hi >= n) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "Total paddings must be less than the input dimension "
                    "size: %lld was not less than %lld",
                    (long long)(int64_t)((uint64_t)lo + (uint64_t)hi),
                    (long long)n);
      return -1;
    }
    int64_t out = n - lo - hi;
    if (offset && (lo >= out || hi >= out)) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "paddings must be less than the output dimension size: "
                    "%lld, %lld not less than %lld", (long long)lo,
                    (long long)hi, (long long)out);
      return -1;
    }
    if (!offset && (lo > out || hi > out)) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "paddings must be no greater than the output dimension "
                    "size: %lld, %lld greater than %lld", (long long)lo,
                    (long long)hi, (long long)out);
      return -1;
    }
    pads[d][0] = lo;
    pads[d][1] = hi;
    os->dims[d] = out;
  }
  return 0;
}

/* Folds dimension d of buf (shape dims) in place: the left padding,
 * mirrored, onto the cells next to it, then the right padding. */
static void fold_dim(tfs_dtype dt, void *buf, const tfs_shape *dims, int d,
                     int64_t lo, int64_t hi, int offset) {
  int64_t outer = 1, inner = 1, n = dims->dims[d];
  for (int i = 0; i < d; i++) outer *= dims->dims[i];
  for (int i = d + 1; i < dims->rank; i++) inner *= dims->dims[i];
  for (int64_t o = 0; o < outer; o++) {
    int64_t base = o * n * inner;
    for (int64_t k = 0; k < lo; k++) { /* target lo + offset + k */
      int64_t dst = base + (lo + offset + k) * inner;
      int64_t src = base + (lo - 1 - k) * inner;
      for (int64_t i = 0; i < inner; i++)
        add_elem(dt, buf, dst + i, buf, src + i);
    }
    for (int64_t k = 0; k < hi; k++) {
      int64_t dst = base + (n - 2 * hi - offset + k) * inner;
      int64_t src = base + (n - 1 - k) * inner;
      for (int64_t i = 0; i < inner; i++)
        add_elem(dt, buf, dst + i, buf, src + i);
    }
  }
}

static void mirror_pad_grad_compute(tfs_kernel_ctx *c) {
  const mpg_state *s = c->state;
  const tfs_tensor *in = c->inputs[0];
  int64_t pads[5][2];
  tfs_shape os;
  if (mpg_check(c, s->offset, pads, &os)) return;
  tfs_tensor *out = tfs_kctx_alloc_output(c, 0, &os);
  if (!out || out->nelems == 0) return;
  size_t es = tfs_dtype_size(in->dtype);
  char *buf = tfs_malloc(in->nbytes ? in->nbytes : 1);
  if (!buf) {
    tfs_kctx_fail(c, TFS_RESOURCE_EXHAUSTED, "out of memory");
    return;
  }
  memcpy(buf, in->data, in->nbytes);
  for (int d = 0; d < os.rank; d++)
    fold_dim(in->dtype, buf, &in->shape, d, pads[d][0], pads[d][1],
             s->offset);
  char *dst = out->data;
  for (int64_t e = 0; e < out->nelems; e++) {
    int64_t rem = e, src = 0, stride = 1;
    for (int d = os.rank - 1; d >= 0; d--) {
      int64_t i = rem % os.dims[d];
      rem /= os.dims[d];
      src += (i + pads[d][0]) * stride;
      stride *= in->shape.dims[d];
    }
    memcpy(dst + (size_t)e * es, buf + (size_t)src * es, es);
  }
  tfs_free(buf);
}

static const int kBilinear = 1;

#define MPG_T                                                               \
  (TFS_DT_REAL | TFS_DT_BIT(TFS_COMPLEX64) | TFS_DT_BIT(TFS_COMPLEX128))
#define NN_T                                                                \
  (TFS_DT_FLOATS | TFS_DT_BIT(TFS_INT8) | TFS_DT_BIT(TFS_UINT8) |           \
   TFS_DT_BIT(TFS_INT32))

const tfs_kernel_def tfs_cpu_kernels_image_grad[] = {
    {"ResizeBilinearGrad", "CPU", "T", TFS_DT_FLOATS, rg_prepare,
     resize_bilinear_grad_compute, free, 0, &kBilinear},
    {"ResizeNearestNeighborGrad", "CPU", "T", NN_T, rg_prepare,
     resize_nn_grad_compute, free, 0, NULL},
    {"MirrorPadGrad", "CPU", "T", MPG_T, mpg_prepare,
     mirror_pad_grad_compute, free, 0, NULL},
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL},
};
