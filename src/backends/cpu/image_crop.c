/*
 * backends/cpu/image_crop.c - CropAndResize: bilinear or nearest samples
 * of boxes of a batch of images, any real input dtype, float output,
 * with TensorFlow's float arithmetic for sample positions.  Boxes are
 * split over the intra-op pool.
 */
#include <math.h>
#include <string.h>

#include "core/alloc.h"
#include "core/half.h"
#include "backends/cpu/array_util.h"

typedef struct {
  int nearest;
  float extrapolation;
} crop_state;

static int crop_prepare(tfs_kernel_init *ki) {
  crop_state *s = tfs_calloc(1, sizeof(*s));
  if (!s) return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  size_t len = 0;
  const char *m = tfs_attrs_get_string(ki->attrs, "method", &len);
  s->nearest = m && len == 7 && memcmp(m, "nearest", 7) == 0;
  tfs_attrs_get_float(ki->attrs, "extrapolation_value", &s->extrapolation);
  ki->state = s;
  return 0;
}

/* Element i of an image of dtype dt, converted to float as a C++
 * static_cast<float> does. */
static float load(const void *p, tfs_dtype dt, int64_t i) {
  switch (dt) {
    case TFS_FLOAT: return ((const float *)p)[i];
    case TFS_DOUBLE: return (float)((const double *)p)[i];
    case TFS_HALF: return tfs_half_to_float(((const uint16_t *)p)[i]);
    case TFS_INT8: return (float)((const int8_t *)p)[i];
    case TFS_UINT8: return (float)((const uint8_t *)p)[i];
    case TFS_INT16: return (float)((const int16_t *)p)[i];
    case TFS_UINT16: return (float)((const uint16_t *)p)[i];
    case TFS_INT32: return (float)((const int32_t *)p)[i];
    case TFS_INT64: return (float)((const int64_t *)p)[i];
    default: return 0.0f;
  }
}

typedef struct {
  const crop_state *s;
  const void *img;
  tfs_dtype dt;
  int64_t batch, ih, iw, depth, ch, cw;
  const float *boxes;
  const int32_t *ind;
  float *out;
} crop_job;

/* Sample position along one axis: TensorFlow computes the middle of a
 * one-sample crop in double (0.5 is a double literal there). */
static float position(float a, float b, int64_t in, int64_t crop, int64_t k,
                      float scale) {
  if (crop > 1) return a * (float)(in - 1) + (float)k * scale;
  return (float)(0.5 * (double)(a + b) * (double)(in - 1));
}

/* A sample outside the image, or NaN (which TensorFlow turns into an
 * undefined index), takes the extrapolation value. */
static int outside(float v, int64_t in) {
  return !(v >= 0.0f && v <= (float)(in - 1));
}

static void crop_row(const crop_job *j, int64_t bi, float in_y, float x1,
                     float x2, float ws, float *o) {
  int64_t d = j->depth;
  int64_t rows = j->ih * j->iw;
  int64_t top = (int64_t)floorf(in_y), bot = (int64_t)ceilf(in_y);
  float y_lerp = in_y - (float)top;
  for (int64_t x = 0; x < j->cw; x++, o += d) {
    float in_x = position(x1, x2, j->iw, j->cw, x, ws);
    if (outside(in_x, j->iw)) {
      for (int64_t k = 0; k < d; k++) o[k] = j->s->extrapolation;
      continue;
    }
    if (j->s->nearest) {
      int64_t px = (int64_t)roundf(in_x), py = (int64_t)roundf(in_y);
      int64_t base = ((bi * rows) + py * j->iw + px) * d;
      for (int64_t k = 0; k < d; k++) o[k] = load(j->img, j->dt, base + k);
      continue;
    }
    int64_t l = (int64_t)floorf(in_x), r = (int64_t)ceilf(in_x);
    float x_lerp = in_x - (float)l;
    int64_t tl = (bi * rows + top * j->iw + l) * d;
    int64_t tr = (bi * rows + top * j->iw + r) * d;
    int64_t bl = (bi * rows + bot * j->iw + l) * d;
    int64_t br = (bi * rows + bot * j->iw + r) * d;
    for (int64_t k = 0; k < d; k++) {
      float vtl = load(j->img, j->dt, tl + k);
      float vtr = load(j->img, j->dt, tr + k);
      float vbl = load(j->img, j->dt, bl + k);
      float vbr = load(j->img, j->dt, br + k);
      float t = vtl + (vtr - vtl) * x_lerp;
      float btm = vbl + (vbr - vbl) * x_lerp;
      o[k] = t + (btm - t) * y_lerp;
    }
  }
}

static void crop_range(void *arg, int64_t begin, int64_t end) {
  const crop_job *j = arg;
  int64_t row = j->cw * j->depth;
  for (int64_t b = begin; b < end; b++) {
    const float *bx = j->boxes + b * 4;
    float y1 = bx[0], x1 = bx[1], y2 = bx[2], x2 = bx[3];
    int64_t bi = j->ind[b];
    if (bi < 0 || bi >= j->batch) continue; /* checked before; as TF */
    float hs = j->ch > 1 ? (y2 - y1) * (float)(j->ih - 1) /
                               (float)(j->ch - 1) : 0.0f;
    float ws = j->cw > 1 ? (x2 - x1) * (float)(j->iw - 1) /
                               (float)(j->cw - 1) : 0.0f;
    for (int64_t y = 0; y < j->ch; y++) {
      float *o = j->out + (b * j->ch + y) * row;
      float in_y = position(y1, y2, j->ih, j->ch, y, hs);
      if (outside(in_y, j->ih)) {
        for (int64_t k = 0; k < row; k++) o[k] = j->s->extrapolation;
        continue;
      }
      crop_row(j, bi, in_y, x1, x2, ws, o);
    }
  }
}

/* TensorFlow's checks, in its order; fills the job's sizes. */
static int crop_check(tfs_kernel_ctx *c, crop_job *j, int64_t *nboxes) {
  const tfs_tensor *im = c->inputs[0], *bx = c->inputs[1];
  const tfs_tensor *ix = c->inputs[2], *cs = c->inputs[3];
  char b[TFS_SHAPE_STRLEN];
  const char *m = NULL;
  if (im->shape.rank != 4) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "input image must be 4-D%s",
                  tfs_shape_str(&im->shape, b, sizeof b));
    return -1;
  }
  j->batch = im->shape.dims[0], j->ih = im->shape.dims[1];
  j->iw = im->shape.dims[2], j->depth = im->shape.dims[3];
  if (!(j->ih > 0 && j->iw > 0)) m = "image dimensions must be positive";
  else if (bx->shape.rank != 2) m = "boxes must be 2-D, got: ";
  else if (ix->shape.rank != 1) m = "box_indices must be rank 1 but is shape ";
  const tfs_tensor *shown = bx->shape.rank != 2 ? bx : ix;
  if (m) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "%s%s", m,
                  m[0] == 'i' ? "" : tfs_shape_str(&shown->shape, b, sizeof b));
    return -1;
  }
  *nboxes = 0;
  if (bx->nelems != 0 || ix->nelems != 0) {
    *nboxes = bx->shape.dims[0];
    if (bx->shape.dims[1] != 4) m = "boxes must have 4 columns";
    else if (ix->shape.dims[0] != *nboxes)
      m = "box_index has incompatible shape";
    if (m) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "%s", m);
      return -1;
    }
  }
  if (cs->shape.rank != 1 || cs->shape.dims[0] != 2) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "%s%s",
                  cs->shape.rank != 1 ? "crop_size must be 1-D"
                                      : "crop_size must have two elements",
                  tfs_shape_str(&cs->shape, b, sizeof b));
    return -1;
  }
  j->ch = ((const int32_t *)cs->data)[0];
  j->cw = ((const int32_t *)cs->data)[1];
  if (!(j->ch > 0 && j->cw > 0)) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "crop dimensions must be positive");
    return -1;
  }
  return 0;
}

static void crop_compute(tfs_kernel_ctx *c) {
  crop_job j;
  int64_t n;
  memset(&j, 0, sizeof j);
  if (crop_check(c, &j, &n)) return;
  tfs_shape os;
  os.rank = 4;
  os.dims[0] = n, os.dims[1] = j.ch, os.dims[2] = j.cw, os.dims[3] = j.depth;
  if (tfs_shape_num_elements(&os) < 0) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "Encountered overflow when "
                  "multiplying the output shape [%lld,%lld,%lld,%lld]",
                  (long long)n, (long long)j.ch, (long long)j.cw,
                  (long long)j.depth);
    return;
  }
  tfs_tensor *o = tfs_kctx_alloc_output(c, 0, &os);
  if (!o) return;
  const tfs_tensor *bx = c->inputs[1], *ix = c->inputs[2];
  const int32_t *ind = ix->data;
  for (int64_t b = 0; b < n; b++) {
    if (ind[b] < 0 || ind[b] >= j.batch) {
      tfs_kctx_fail(c, TFS_OUT_OF_RANGE,
                    "box_index has values outside [0, batch_size)");
      return;
    }
  }
  const float *boxes = bx->data;
  for (int64_t i = 0; i < bx->nelems; i++) {
    if (!isfinite(boxes[i])) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "Boxes contains at least one element that is not finite");
      return;
    }
  }
  if (o->nelems == 0) return;
  j.s = c->state;
  j.img = c->inputs[0]->data;
  j.dt = c->inputs[0]->dtype;
  j.boxes = boxes, j.ind = ind, j.out = o->data;
  tfs_kctx_parallel_for(c, n, j.ch * j.cw * (j.depth * 12 + 10) + 1,
                        crop_range, &j);
}

#define CROP_TYPES                                                      \
  (TFS_DT_BIT(TFS_UINT8) | TFS_DT_BIT(TFS_UINT16) | TFS_DT_BIT(TFS_INT8) | \
   TFS_DT_BIT(TFS_INT16) | TFS_DT_BIT(TFS_INT32) | TFS_DT_BIT(TFS_INT64) | \
   TFS_DT_BIT(TFS_HALF) | TFS_DT_BIT(TFS_FLOAT) | TFS_DT_BIT(TFS_DOUBLE))

const tfs_kernel_def tfs_cpu_kernels_image_crop[] = {
    {"CropAndResize", "CPU", "T", CROP_TYPES, crop_prepare, crop_compute,
     tfs_free, 0, NULL},
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL},
};
