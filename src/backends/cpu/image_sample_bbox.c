/*
 * backends/cpu/image_sample_bbox.c - SampleDistortedBoundingBox, its V2
 * (min_object_covered as an input) and StatelessSampleDistortedBoundingBox
 * (a [2] seed input): TensorFlow's crop for the same seeds (philox.h).
 *
 * Each attempt draws, from one stream of 32-bit words: the aspect ratio
 * (a float in [0, 1) scaled into the range), then, when the crop's
 * height is free, its height, then its y and x offsets, the integers by
 * TensorFlow's rejection sampling.  A stateful run reserves max_attempts
 * blocks (four words an attempt).  The float arithmetic is TensorFlow's,
 * step by step, in float unless it goes through double; the file relies
 * on a*b+c not being fused (the default for the baseline x86-64 target).
 */
#include <math.h>
#include <string.h>

#include "core/alloc.h"
#include "core/strbuf.h"
#include "backends/cpu/philox.h"

typedef struct {
  int min_x, min_y, max_x, max_y;
} rect;

typedef struct {
  tfs_rand_guard guard; /* stateful ops */
  int stateful;
  float min_object_covered; /* the V1 op's attr */
  float aspect[2];
  float area[2];
  int max_attempts;
  int use_image;
} bbox_state;

/* (max_x - min_x) * (max_y - min_y) as an int, then a float */
/* static_cast<int> of a float or double as TensorFlow's x86 build
 * computes it (cvttss2si / cvttsd2si): truncation, and INT32_MIN for NaN
 * and values out of range, which C leaves undefined. */
static int32_t trunc_i32(double f) {
  if (!(f > -2147483649.0 && f < 2147483648.0)) return INT32_MIN;
  return (int32_t)f;
}

static float rect_area(const rect *r) {
  uint32_t w = (uint32_t)r->max_x - (uint32_t)r->min_x;
  uint32_t h = (uint32_t)r->max_y - (uint32_t)r->min_y;
  return (float)(int32_t)(w * h);
}

static rect rect_intersect(const rect *a, const rect *b) {
  rect r = {a->min_x > b->min_x ? a->min_x : b->min_x,
            a->min_y > b->min_y ? a->min_y : b->min_y,
            a->max_x < b->max_x ? a->max_x : b->max_x,
            a->max_y < b->max_y ? a->max_y : b->max_y};
  if (r.min_x > r.max_x || r.min_y > r.max_y) memset(&r, 0, sizeof r);
  return r;
}

/* Does the crop hold at least `min_covered` of one box of area >= 1? */
static int covers_enough(const rect *crop, float min_covered,
                         const rect *boxes, int64_t n) {
  if (rect_area(crop) < 1.0f) return 0;
  for (int64_t i = 0; i < n; i++) {
    float area = rect_area(&boxes[i]);
    if (area < 1.0f) continue;
    rect in = rect_intersect(crop, &boxes[i]);
    if (rect_area(&in) / area >= min_covered) return 1;
  }
  return 0;
}

/* TensorFlow's SimplePhilox::Uniform: the word masked for powers of two,
 * else words below 2^32 mod n rejected, then word % n. */
static uint32_t uniform_below(tfs_philox_stream *s, uint32_t n) {
  if (n == 0) return tfs_philox_next32(s) * n;
  if ((n & (n - 1)) == 0) return tfs_philox_next32(s) & (n - 1);
  uint32_t rem = UINT32_MAX % n + 1;
  uint32_t r;
  do {
    r = tfs_philox_next32(s);
  } while (r < rem);
  return r % n;
}

static int int_mul(int a, int b) {
  return (int32_t)((uint32_t)a * (uint32_t)b);
}

/* One attempt at a crop of the given aspect ratio (TensorFlow's
 * GenerateRandomCrop).  Returns 1 with *crop set, or 0. */
static int random_crop(int ow, int oh, float min_rel, float max_rel,
                       float aspect, tfs_philox_stream *s, rect *crop) {
  if (max_rel <= 0.0 || aspect <= 0.0 || ow <= 0 || oh <= 0 ||
      min_rel > max_rel)
    return 0;
  const float min_area = min_rel * (float)ow * (float)oh;
  const float max_area = max_rel * (float)ow * (float)oh;
  int height = (int)lrintf(sqrtf(min_area / aspect));
  int max_height = (int)lrintf(sqrtf(max_area / aspect));
  if (lrintf((float)max_height * aspect) > ow) {
    const float eps = 0.0000001f;
    max_height = trunc_i32((ow + 0.5 - (double)eps) / (double)aspect);
    if (lrintf((float)max_height * aspect) > ow) max_height -= 1;
  }
  if (max_height > oh) max_height = oh;
  if (height >= max_height) height = max_height;
  if (height < max_height)
    height += (int)uniform_below(
        s, (uint32_t)max_height - (uint32_t)height + 1u);
  int width = (int)lrintf((float)height * aspect);
  float area = (float)int_mul(width, height);
  if (area < min_area) {
    height += 1;
    width = (int)lrintf((float)height * aspect);
    area = (float)int_mul(width, height);
  }
  if (area > max_area) {
    height -= 1;
    width = (int)lrintf((float)height * aspect);
    area = (float)int_mul(width, height);
  }
  if (area < min_area || area > max_area || width > ow || height > oh ||
      width <= 0 || height <= 0)
    return 0;
  int y = 0, x = 0;
  if (height < oh) y = (int)uniform_below(s, (uint32_t)(oh - height));
  if (width < ow) x = (int)uniform_below(s, (uint32_t)(ow - width));
  crop->min_x = x;
  crop->min_y = y;
  crop->max_x = x + width;
  crop->max_y = y + height;
  return 1;
}

/* ---- prepare: the attrs, with TensorFlow's checks ------------------------ */

static int float_pair(tfs_kernel_init *ki, const char *name, float out[2],
                      const char *what) {
  const tfs_attr_value *v = tfs_attrs_find(ki->attrs, name);
  if (!v) return 0; /* the defaults stand */
  if (!v->is_list || v->type != TFS_ATTR_FLOAT || v->u.list.n != 2)
    return tfs_ki_error(ki, TFS_INVALID_ARGUMENT,
                        "%s field must specify 2 dimensions", what);
  memcpy(out, v->u.list.v, 2 * sizeof(float));
  return 0;
}

static int pair_error(tfs_kernel_init *ki, const char *text,
                      const float p[2]) {
  char a[32], b[32];
  tfs_format_float(a, sizeof a, p[0]);
  tfs_format_float(b, sizeof b, p[1]);
  return tfs_ki_error(ki, TFS_INVALID_ARGUMENT, "%s: [%s, %s]", text, a, b);
}

static int bbox_attrs(tfs_kernel_init *ki, bbox_state *s) {
  char f[32];
  if (ki->ninputs == 2) {
    tfs_attrs_get_float(ki->attrs, "min_object_covered",
                        &s->min_object_covered);
    if (!(s->min_object_covered >= 0)) {
      tfs_format_float(f, sizeof f, s->min_object_covered);
      return tfs_ki_error(ki, TFS_INVALID_ARGUMENT,
                          "Min object covered must be non-negative: %s", f);
    }
  }
  int64_t attempts = 100;
  tfs_attrs_get_bool(ki->attrs, "use_image_if_no_bounding_boxes",
                     &s->use_image);
  if (float_pair(ki, "aspect_ratio_range", s->aspect, "Aspect ratio range"))
    return -1;
  if (!(s->aspect[0] > 0 && s->aspect[1] > 0))
    return pair_error(ki, "Aspect ratio range must be non-negative",
                      s->aspect);
  if (float_pair(ki, "area_range", s->area, "Area range")) return -1;
  if (!(s->area[0] > 0 && s->area[1] > 0))
    return pair_error(ki, "Area range must be non-negative", s->area);
  if (!(s->area[0] <= 1 && s->area[1] <= 1))
    return pair_error(ki, "Area range must be less then or equal to 1.0",
                      s->area);
  tfs_attrs_get_int(ki->attrs, "max_attempts", &attempts);
  /* an int32 attr: TensorFlow's GetAttr refuses values out of range */
  if (attempts > INT32_MAX || attempts < INT32_MIN)
    return tfs_ki_error(ki, TFS_INVALID_ARGUMENT,
                        "Attr max_attempts has value %lld out of range "
                        "for an int32", (long long)attempts);
  if (attempts <= 0)
    return tfs_ki_error(ki, TFS_INVALID_ARGUMENT,
                        "Max attempts must be non-negative: %lld",
                        (long long)attempts);
  s->max_attempts = (int)attempts;
  return 0;
}

static int bbox_prepare(tfs_kernel_init *ki) {
  bbox_state *s = tfs_calloc(1, sizeof(*s));
  if (!s) return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  s->min_object_covered = 0.1f;
  s->aspect[0] = 0.75f;
  s->aspect[1] = 1.33f;
  s->area[0] = 0.05f;
  s->area[1] = 1.0f;
  s->stateful = strcmp(ki->op->name, "StatelessSampleDistortedBoundingBox");
  if (bbox_attrs(ki, s)) {
    tfs_free(s);
    return -1;
  }
  if (s->stateful) tfs_rand_guard_init(&s->guard, ki->attrs);
  ki->state = s;
  return 0;
}

static void bbox_release(void *state) {
  bbox_state *s = state;
  if (!s) return;
  if (s->stateful) tfs_rand_guard_destroy(&s->guard);
  tfs_free(s);
}

/* ---- compute ------------------------------------------------------------- */

/* image_size's height and width, with TensorFlow's checks.  0 or -1. */
static int image_hw(tfs_kernel_ctx *c, int *h, int *w) {
  const tfs_tensor *t = c->inputs[0];
  char b[TFS_SHAPE_STRLEN];
  if (t->shape.rank != 1) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "image_size must be 1-dimensional%s",
                  tfs_shape_str(&t->shape, b, sizeof b));
    return -1;
  }
  if (t->shape.dims[0] != 3) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "image_size must contain 3 elements%s",
                  tfs_shape_str(&t->shape, b, sizeof b));
    return -1;
  }
  /* the values as uint64: negative ones are huge */
  uint64_t hr = (uint64_t)tfs_tensor__get_as_int64(t, 0);
  uint64_t wr = (uint64_t)tfs_tensor__get_as_int64(t, 1);
  if (t->dtype == TFS_UINT8) {
    hr = ((const uint8_t *)t->data)[0];
    wr = ((const uint8_t *)t->data)[1];
  }
  if (hr >= (uint64_t)INT32_MAX) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "image height cannot be >= int32 max");
    return -1;
  }
  if (wr >= (uint64_t)INT32_MAX) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "image width cannot be >= int32 max");
    return -1;
  }
  *h = (int)hr;
  *w = (int)wr;
  return 0;
}

/* min_object_covered: the V1 attr, or the scalar input 2. */
static int min_covered(tfs_kernel_ctx *c, const bbox_state *s, float *out) {
  if (c->ninputs == 2) {
    *out = s->min_object_covered;
    return 0;
  }
  const tfs_tensor *t = c->inputs[2];
  char b[TFS_SHAPE_STRLEN];
  if (t->shape.rank != 0) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "min_object_covered must be 0-D, got shape %s",
                  tfs_shape_str(&t->shape, b, sizeof b));
    return -1;
  }
  *out = *(const float *)t->data;
  if (!(*out >= 0)) {
    char f[32];
    tfs_format_float(f, sizeof f, *out);
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Min object covered must be non-negative: %s", f);
    return -1;
  }
  return 0;
}

/* The boxes in pixels (*boxes malloc'd, or NULL when there are none).
 * Returns their count, or -1 after failing `c`. */
static int64_t read_boxes(tfs_kernel_ctx *c, int h, int w, rect **boxes) {
  const tfs_tensor *t = c->inputs[1];
  char b[TFS_SHAPE_STRLEN];
  *boxes = NULL;
  if (t->shape.rank != 3) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "input boxes must be 3-dimensional [batch, num_boxes, "
                  "coords]: %s", tfs_shape_str(&t->shape, b, sizeof b));
    return -1;
  }
  if (t->shape.dims[2] != 4) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "bounding boxes must have shape [4] or [*, 4], got %s",
                  tfs_shape_str(&t->shape, b, sizeof b));
    return -1;
  }
  int64_t n = t->nelems / 4;
  if (n == 0) return 0;
  rect *r = tfs_malloc((size_t)n * sizeof(rect));
  if (!r) {
    tfs_kctx_fail(c, TFS_RESOURCE_EXHAUSTED, "out of memory");
    return -1;
  }
  const float *v = t->data;
  for (int64_t i = 0; i < n; i++) {
    const float *q = v + 4 * i;
    for (int k = 0; k < 4; k++) {
      if (!(q[k] >= 0.0f && q[k] <= 1.0f)) {
        char f[32];
        tfs_format_float(f, sizeof f, q[k]);
        tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                      "All bounding box coordinates must be in [0.0, 1.0]: "
                      "%s", f);
        tfs_free(r);
        return -1;
      }
    }
    r[i].min_x = trunc_i32(q[1] * (float)w);
    r[i].min_y = trunc_i32(q[0] * (float)h);
    r[i].max_x = trunc_i32(q[3] * (float)w);
    r[i].max_y = trunc_i32(q[2] * (float)h);
  }
  *boxes = r;
  return n;
}

/* The search: up to max_attempts crops, the whole image if none fits. */
static rect find_crop(const bbox_state *s, const tfs_philox *g, int h,
                      int w, float covered, const rect *boxes,
                      int64_t n) {
  rect image = {0, 0, w, h}, crop = {0, 0, 0, 0};
  tfs_philox_stream st;
  tfs_philox_stream_init(&st, g);
  for (int i = 0; i < s->max_attempts; i++) {
    float u = tfs_philox_unit_float(tfs_philox_next32(&st));
    float spread = s->aspect[1] - s->aspect[0];
    float prod = u * spread;
    float ratio = prod + s->aspect[0];
    if (random_crop(w, h, s->area[0], s->area[1], ratio, &st, &crop) &&
        covers_enough(&crop, covered, boxes, n))
      return crop;
  }
  return image;
}

static void put_int(tfs_tensor *t, int i, int64_t v) {
  switch (t->dtype) {
    case TFS_UINT8: ((uint8_t *)t->data)[i] = (uint8_t)v; break;
    case TFS_INT8: ((int8_t *)t->data)[i] = (int8_t)v; break;
    case TFS_INT16: ((int16_t *)t->data)[i] = (int16_t)v; break;
    case TFS_INT32: ((int32_t *)t->data)[i] = (int32_t)v; break;
    default: ((int64_t *)t->data)[i] = v;
  }
}

static void bbox_run(tfs_kernel_ctx *c, const tfs_philox *g) {
  bbox_state *s = c->state;
  int h, w;
  float covered = 0;
  if (image_hw(c, &h, &w)) return;
  rect *boxes;
  /* the box shape checks come before min_object_covered's */
  const tfs_tensor *bt = c->inputs[1];
  if (bt->shape.rank == 3 && bt->shape.dims[2] == 4 &&
      min_covered(c, s, &covered))
    return;
  int64_t n = read_boxes(c, h, w, &boxes);
  if (n < 0) return;
  rect image = {0, 0, w, h};
  if (n == 0) {
    if (!s->use_image) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "No bounding boxes provided as input. One must enable "
                    "use_image_if_no_bounding_boxes if you wish to not "
                    "provide any bounding boxes.");
      return;
    }
    boxes = &image;
    n = 1;
  }
  rect crop = find_crop(s, g, h, w, covered, boxes, n);
  if (boxes != &image) tfs_free(boxes);
  tfs_shape v3 = {.rank = 1, .dims = {3}};
  tfs_shape b3 = {.rank = 3, .dims = {1, 1, 4}};
  tfs_tensor *begin = tfs_kctx_alloc_output(c, 0, &v3);
  tfs_tensor *size = begin ? tfs_kctx_alloc_output(c, 1, &v3) : NULL;
  tfs_tensor *bb = size ? tfs_kctx_alloc_output(c, 2, &b3) : NULL;
  if (!bb) return;
  put_int(begin, 0, crop.min_y);
  put_int(begin, 1, crop.min_x);
  put_int(begin, 2, 0);
  put_int(size, 0, crop.max_y - crop.min_y);
  put_int(size, 1, crop.max_x - crop.min_x);
  put_int(size, 2, -1);
  float *f = bb->data;
  f[0] = (float)crop.min_y / (float)h;
  f[1] = (float)crop.min_x / (float)w;
  f[2] = (float)crop.max_y / (float)h;
  f[3] = (float)crop.max_x / (float)w;
}

static void bbox_compute(tfs_kernel_ctx *c) {
  bbox_state *s = c->state;
  tfs_philox g = tfs_rand_guard_reserve(
      &s->guard, tfs_rand_reserve32(4u * (uint64_t)s->max_attempts));
  bbox_run(c, &g);
}

static void stateless_bbox_compute(tfs_kernel_ctx *c) {
  const tfs_tensor *seed = c->inputs[3];
  if (!(seed->shape.rank == 1 && seed->shape.dims[0] == 2)) {
    char b[TFS_SHAPE_STRLEN];
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "seed must have shape [2], not %s",
                  tfs_shape_str(&seed->shape, b, sizeof b));
    return;
  }
  tfs_philox g;
  tfs_philox_from_seed(&g, (uint64_t)tfs_tensor__get_as_int64(seed, 0),
                       (uint64_t)tfs_tensor__get_as_int64(seed, 1));
  bbox_run(c, &g);
}

#define DT(x) TFS_DT_BIT(TFS_##x)
#define BBOX_TYPES (DT(UINT8) | DT(INT8) | DT(INT16) | DT(INT32) | DT(INT64))

const tfs_kernel_def tfs_cpu_kernels_image_sample_bbox[] = {
    {"SampleDistortedBoundingBox", "CPU", "T", BBOX_TYPES, bbox_prepare,
     bbox_compute, bbox_release, 0, NULL},
    {"SampleDistortedBoundingBoxV2", "CPU", "T", BBOX_TYPES, bbox_prepare,
     bbox_compute, bbox_release, 0, NULL},
    {"StatelessSampleDistortedBoundingBox", "CPU", "T", BBOX_TYPES,
     bbox_prepare, stateless_bbox_compute, bbox_release, 0, NULL},
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL},
};
