/*
 * backends/cpu/image_nms.c - non-max suppression: NonMaxSuppression, V2
 * to V5 (soft-NMS with selected_scores, padding, valid_outputs) and
 * NonMaxSuppressionWithOverlaps, float and half.  Candidates come from a
 * binary heap ordered by score, then by lower box index, so the selection
 * order and its ties are TensorFlow's; half scores are rounded to half
 * after every operation, as Eigen's half arithmetic does.
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "core/alloc.h"
#include "core/half.h"
#include "backends/cpu/array_util.h"
#include "backends/cpu/image_nms.h"

/* ---- heap ---------------------------------------------------------------- */

/* The sift steps of libstdc++'s std::push_heap / std::pop_heap, so that
 * a comparator with ties pops in the same order as TensorFlow's
 * std::priority_queue. */
static void heap_sift_up(tfs_nms_cand *h, int64_t hole, int64_t top,
                         tfs_nms_cand v, tfs_nms_less less) {
  int64_t parent = (hole - 1) / 2;
  while (hole > top && less(&h[parent], &v)) {
    h[hole] = h[parent];
    hole = parent;
    parent = (hole - 1) / 2;
  }
  h[hole] = v;
}

void tfs_nms_heap_adjust(tfs_nms_cand *h, int64_t hole, int64_t len,
                         tfs_nms_cand v, tfs_nms_less less) {
  int64_t top = hole, child = hole;
  while (child < (len - 1) / 2) {
    child = 2 * (child + 1);
    if (less(&h[child], &h[child - 1])) child--;
    h[hole] = h[child];
    hole = child;
  }
  if ((len & 1) == 0 && child == (len - 2) / 2) {
    child = 2 * (child + 1);
    h[hole] = h[child - 1];
    hole = child - 1;
  }
  heap_sift_up(h, hole, top, v, less);
}

void tfs_nms_heap_push(tfs_nms_cand *h, int64_t *n, tfs_nms_cand v,
                       tfs_nms_less less) {
  h[*n] = v;
  heap_sift_up(h, *n, 0, v, less);
  (*n)++;
}

tfs_nms_cand tfs_nms_heap_pop(tfs_nms_cand *h, int64_t *n,
                              tfs_nms_less less) {
  tfs_nms_cand top = h[0];
  int64_t last = --(*n);
  if (last > 0) {
    tfs_nms_cand v = h[last];
    h[last] = h[0];
    tfs_nms_heap_adjust(h, 0, last, v, less);
  }
  return top;
}

/* std::min and std::max as Eigen's numext::mini / maxi call them. */
static inline float fmin_(float a, float b) { return b < a ? b : a; }
static inline float fmax_(float a, float b) { return a < b ? b : a; }

float tfs_nms_iou(const float *bi, const float *bj) {
  float ymin_i = fmin_(bi[0], bi[2]), xmin_i = fmin_(bi[1], bi[3]);
  float ymax_i = fmax_(bi[0], bi[2]), xmax_i = fmax_(bi[1], bi[3]);
  float ymin_j = fmin_(bj[0], bj[2]), xmin_j = fmin_(bj[1], bj[3]);
  float ymax_j = fmax_(bj[0], bj[2]), xmax_j = fmax_(bj[1], bj[3]);
  float area_i = (ymax_i - ymin_i) * (xmax_i - xmin_i);
  float area_j = (ymax_j - ymin_j) * (xmax_j - xmin_j);
  if (area_i <= 0 || area_j <= 0) return 0.0f;
  float iy0 = fmax_(ymin_i, ymin_j), ix0 = fmax_(xmin_i, xmin_j);
  float iy1 = fmin_(ymax_i, ymax_j), ix1 = fmin_(xmax_i, xmax_j);
  float inter = fmax_(iy1 - iy0, 0.0f) * fmax_(ix1 - ix0, 0.0f);
  return inter / (area_i + area_j - inter);
}

/* ---- NonMaxSuppression .. V5, WithOverlaps ------------------------------- */

enum { NMS_V1 = 1, NMS_V2, NMS_V3, NMS_V4, NMS_V5, NMS_OVERLAPS };

typedef struct {
  int version;
  int pad;     /* pad_to_max_output_size */
  float iou;   /* V1's iou_threshold attr */
} nms_state;

static const int kVersions[] = {0, NMS_V1, NMS_V2, NMS_V3,
                                NMS_V4, NMS_V5, NMS_OVERLAPS};

static int nms_prepare(tfs_kernel_init *ki) {
  nms_state *s = tfs_calloc(1, sizeof(*s));
  if (!s) return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  s->version = *(const int *)ki->kdata;
  s->iou = 0.5f;
  tfs_attrs_get_bool(ki->attrs, "pad_to_max_output_size", &s->pad);
  tfs_attrs_get_float(ki->attrs, "iou_threshold", &s->iou);
  ki->state = s;
  return 0;
}

/* Values of the kernel's T: float, or half rounded after each step. */
static inline float rnd(int half, float x) {
  return half ? tfs_half_to_float(tfs_float_to_half(x)) : x;
}

static float load_f(const tfs_tensor *t, int64_t i) {
  if (t->dtype == TFS_HALF)
    return tfs_half_to_float(((const uint16_t *)t->data)[i]);
  if (t->dtype == TFS_DOUBLE) return (float)((const double *)t->data)[i];
  return ((const float *)t->data)[i];
}

typedef struct {
  int half, soft;
  float iou_thr, score_thr, scale;
  int64_t n;              /* boxes */
  const float *boxes;     /* [n, 4] as float, or NULL with overlaps */
  const float *overlaps;  /* [n, n] */
} nms_job;

static int less_ix(const tfs_nms_cand *a, const tfs_nms_cand *b) {
  return (a->score == b->score && a->box > b->box) || a->score < b->score;
}

static float similarity(const nms_job *j, int32_t a, int32_t b) {
  if (j->overlaps) return j->overlaps[(int64_t)a * j->n + b];
  return tfs_nms_iou(j->boxes + (int64_t)a * 4, j->boxes + (int64_t)b * 4);
}

/* TensorFlow's selection loop.  heap holds n candidates' room; sel and
 * sel_scores room for min(n, max_out).  Returns the count selected. */
static int64_t nms_select(const nms_job *j, const float *scores,
                          int64_t max_out, tfs_nms_cand *heap, int32_t *sel,
                          float *sel_scores) {
  int64_t hn = 0, ns = 0;
  for (int64_t i = 0; i < j->n; i++)
    if (scores[i] > j->score_thr)
      tfs_nms_heap_push(heap, &hn, (tfs_nms_cand){(int32_t)i, scores[i], 0},
                        less_ix);
  while (ns < max_out && hn > 0) {
    tfs_nms_cand c = tfs_nms_heap_pop(heap, &hn, less_ix);
    float orig = c.score;
    int hard = 0;
    for (int64_t k = ns - 1; k >= c.begin; k--) {
      float sim = rnd(j->half, similarity(j, c.box, sel[k]));
      float w = rnd(j->half, expf(rnd(j->half,
                                      rnd(j->half, j->scale * sim) * sim)));
      if (!(j->soft || sim <= j->iou_thr)) w = 0.0f;
      c.score = rnd(j->half, c.score * w);
      if (!j->soft && sim > j->iou_thr) {
        hard = 1;
        break;
      }
      if (c.score <= j->score_thr) break;
    }
    c.begin = (int32_t)ns;
    if (hard) continue;
    if (c.score == orig) {
      sel[ns] = c.box;
      sel_scores[ns++] = c.score;
    } else if (c.score > j->score_thr) {
      tfs_nms_heap_push(heap, &hn, c, less_ix);
    }
  }
  return ns;
}

/* "NAME must be 0-D, got shape [2]" (+ V3's rank suffix). */
static int need_scalar(tfs_kernel_ctx *c, int i, const char *name,
                       int suffix) {
  const tfs_tensor *t = c->inputs[i];
  if (t->shape.rank == 0) return 0;
  char b[TFS_SHAPE_STRLEN];
  tfs_shape_str(&t->shape, b, sizeof b);
  if (suffix)
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "%s must be 0-D, got shape %s (Shape must be rank 0 but "
                  "is rank %d)", name, b, t->shape.rank);
  else
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "%s must be 0-D, got shape %s",
                  name, b);
  return -1;
}

static int check_boxes(tfs_kernel_ctx *c, int64_t *n) {
  const tfs_tensor *b = c->inputs[0], *s = c->inputs[1];
  char buf[TFS_SHAPE_STRLEN];
  int ov = ((const nms_state *)c->state)->version == NMS_OVERLAPS;
  const char *what = ov ? "overlaps" : "boxes";
  if (b->shape.rank != 2) {
    tfs_shape_str(&b->shape, buf, sizeof buf);
    if (ov)
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "overlaps must be 2-D%s", buf);
    else
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "boxes must be 2-D%s (Shape "
                    "must be rank 2 but is rank %d)", buf, b->shape.rank);
    return -1;
  }
  *n = b->shape.dims[0];
  if (ov && b->shape.dims[1] != *n) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "overlaps must be square%s",
                  tfs_shape_str(&b->shape, buf, sizeof buf));
    return -1;
  }
  if (!ov && b->shape.dims[1] != 4) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "boxes must have 4 columns "
                  "(Dimension must be 4 but is %lld)",
                  (long long)b->shape.dims[1]);
    return -1;
  }
  if (s->shape.rank != 1) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "scores must be 1-D%s (Shape "
                  "must be rank 1 but is rank %d)",
                  tfs_shape_str(&s->shape, buf, sizeof buf), s->shape.rank);
    return -1;
  }
  if (s->shape.dims[0] != *n) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "scores has incompatible shape "
                  "(Dimensions must be equal, but are %lld and %lld)",
                  (long long)*n, (long long)s->shape.dims[0]);
    return -1;
  }
  if (*n > INT32_MAX) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "%s has %lld rows, more than "
                  "int32 indices can address", what, (long long)*n);
    return -1;
  }
  return 0;
}

/* Checks the scalar inputs in TensorFlow's order and fills the job's
 * thresholds. */
static int nms_scalars(tfs_kernel_ctx *c, nms_job *j) {
  const nms_state *s = c->state;
  int v = s->version;
  if (need_scalar(c, 2, "max_output_size", v == NMS_V3)) return -1;
  j->score_thr = j->half ? -65504.0f : -FLT_MAX;
  if (v == NMS_V1) {
    j->iou_thr = s->iou;
  } else {
    const char *nm = v == NMS_OVERLAPS ? "overlap_threshold"
                                       : "iou_threshold";
    if (need_scalar(c, 3, nm, v == NMS_V3)) return -1;
    j->iou_thr = rnd(j->half, load_f(c->inputs[3], 0));
  }
  if (v != NMS_OVERLAPS && !(j->iou_thr >= 0.0f && j->iou_thr <= 1.0f)) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "iou_threshold must be in [0, 1]");
    return -1;
  }
  if (v >= NMS_V3) {
    if (need_scalar(c, 4, "score_threshold", 0)) return -1;
    j->score_thr = rnd(j->half, load_f(c->inputs[4], 0));
  }
  if (v == NMS_V5) {
    if (need_scalar(c, 5, "soft_nms_sigma", 0)) return -1;
    float sigma = rnd(j->half, load_f(c->inputs[5], 0));
    if (!(sigma >= 0.0f)) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "soft_nms_sigma_val must be >= 0");
      return -1;
    }
    j->soft = sigma > 0.0f;
    if (j->soft) j->scale = rnd(j->half, -0.5f / sigma);
  }
  return 0;
}

/* Writes the outputs: indices (padded with 0 to max_out when padding),
 * V5's scores, V4/V5's valid count. */
static void nms_outputs(tfs_kernel_ctx *c, const nms_job *j,
                        const int32_t *sel, const float *sel_scores,
                        int64_t ns, int64_t max_out) {
  const nms_state *s = c->state;
  int64_t len = s->pad ? max_out : ns;
  tfs_shape vs;
  tfs_shape_1d(&vs, len);
  tfs_tensor *oi = tfs_kctx_alloc_output(c, 0, &vs);
  if (!oi) return;
  int32_t *idx = oi->data;
  for (int64_t i = 0; i < len; i++) idx[i] = i < ns ? sel[i] : 0;
  int vo = 1;
  if (s->version == NMS_V5) {
    tfs_tensor *os = tfs_kctx_alloc_output(c, 1, &vs);
    if (!os) return;
    for (int64_t i = 0; i < len; i++) {
      float v = i < ns ? sel_scores[i] : 0.0f;
      if (j->half)
        ((uint16_t *)os->data)[i] = tfs_float_to_half(v);
      else
        ((float *)os->data)[i] = v;
    }
    vo = 2;
  }
  if (s->version == NMS_V4 || s->version == NMS_V5) {
    tfs_shape sc = {0};
    tfs_tensor *on = tfs_kctx_alloc_output(c, vo, &sc);
    if (on) *(int32_t *)on->data = (int32_t)ns;
  }
}

static void nms_compute(tfs_kernel_ctx *c) {
  nms_job j;
  memset(&j, 0, sizeof j);
  j.half = c->inputs[0]->dtype == TFS_HALF;
  if (nms_scalars(c, &j) || check_boxes(c, &j.n)) return;
  int64_t max_out = *(const int32_t *)c->inputs[2]->data;
  if (max_out < 0) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "output size must be non-negative");
    return;
  }
  int64_t n = j.n, room = max_out < n ? max_out : n;
  float *scores = tfs_kctx_scratch(c, sizeof(float) * (size_t)(n + 1));
  tfs_nms_cand *heap =
      scores ? tfs_kctx_scratch(c, sizeof(*heap) * (size_t)(n + 1)) : NULL;
  int32_t *sel =
      heap ? tfs_kctx_scratch(c, sizeof(int32_t) * (size_t)(room + 1)) : NULL;
  float *sel_scores =
      sel ? tfs_kctx_scratch(c, sizeof(float) * (size_t)(room + 1)) : NULL;
  if (!sel_scores) return;
  for (int64_t i = 0; i < n; i++) scores[i] = load_f(c->inputs[1], i);
  const tfs_tensor *b = c->inputs[0];
  if (((const nms_state *)c->state)->version == NMS_OVERLAPS) {
    j.overlaps = b->data;
  } else if (!j.half) {
    j.boxes = b->data;
  } else {
    float *f = tfs_kctx_scratch(c, sizeof(float) * (size_t)(b->nelems + 1));
    if (!f) return;
    for (int64_t i = 0; i < b->nelems; i++) f[i] = load_f(b, i);
    j.boxes = f;
  }
  int64_t ns = nms_select(&j, scores, room, heap, sel, sel_scores);
  nms_outputs(c, &j, sel, sel_scores, ns, max_out);
}

#define NMS_T (TFS_DT_BIT(TFS_FLOAT) | TFS_DT_BIT(TFS_HALF))

const tfs_kernel_def tfs_cpu_kernels_image_nms[] = {
    {"NonMaxSuppression", "CPU", NULL, 0, nms_prepare, nms_compute, tfs_free,
     0, &kVersions[1]},
    {"NonMaxSuppressionV2", "CPU", "T", NMS_T, nms_prepare, nms_compute,
     tfs_free, 0, &kVersions[2]},
    {"NonMaxSuppressionV3", "CPU", "T", NMS_T, nms_prepare, nms_compute,
     tfs_free, 0, &kVersions[3]},
    {"NonMaxSuppressionV4", "CPU", "T", NMS_T, nms_prepare, nms_compute,
     tfs_free, 0, &kVersions[4]},
    {"NonMaxSuppressionV5", "CPU", "T", NMS_T, nms_prepare, nms_compute,
     tfs_free, 0, &kVersions[5]},
    {"NonMaxSuppressionWithOverlaps", "CPU", NULL, 0, nms_prepare,
     nms_compute, tfs_free, 0, &kVersions[6]},
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL},
};
