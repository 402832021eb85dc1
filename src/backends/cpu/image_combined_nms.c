/*
 * backends/cpu/image_combined_nms.c - CombinedNonMaxSuppression: hard NMS
 * per batch and class, then the best detections of each batch across
 * classes, padded (pad_per_class) and clipped (clip_boxes) as TensorFlow
 * does.  TensorFlow orders equal scores by what libstdc++'s
 * std::priority_queue and std::sort happen to do; both are reproduced
 * step by step here so that ties come out in the same order.
 */
#include <math.h>
#include <string.h>

#include "core/alloc.h"
#include "backends/cpu/array_util.h"
#include "backends/cpu/image_nms.h"

typedef struct {
  int pad_per_class, clip;
} combined_state;

static int combined_prepare(tfs_kernel_init *ki) {
  combined_state *s = tfs_calloc(1, sizeof(*s));
  if (!s) return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  s->clip = 1;
  tfs_attrs_get_bool(ki->attrs, "pad_per_class", &s->pad_per_class);
  tfs_attrs_get_bool(ki->attrs, "clip_boxes", &s->clip);
  ki->state = s;
  return 0;
}

static int less_score(const tfs_nms_cand *a, const tfs_nms_cand *b) {
  return a->score < b->score;
}

/* "greater score first": std::sort's comparator in TensorFlow. */
static int before(const tfs_nms_cand *a, const tfs_nms_cand *b) {
  return b->score < a->score;
}

/* ---- libstdc++'s std::sort (introsort), step by step --------------------- */

static void swap_c(tfs_nms_cand *a, tfs_nms_cand *b) {
  tfs_nms_cand t = *a;
  *a = *b;
  *b = t;
}

static void heap_sort(tfs_nms_cand *f, int64_t len) {
  if (len >= 2) { /* std::make_heap */
    for (int64_t parent = (len - 2) / 2;; parent--) {
      tfs_nms_heap_adjust(f, parent, len, f[parent], before);
      if (parent == 0) break;
    }
  }
  for (int64_t last = len - 1; last > 0; last--) { /* std::sort_heap */
    tfs_nms_cand v = f[last];
    f[last] = f[0];
    tfs_nms_heap_adjust(f, 0, last, v, before);
  }
}

static void median_to_first(tfs_nms_cand *r, tfs_nms_cand *a,
                            tfs_nms_cand *b, tfs_nms_cand *c) {
  if (before(a, b)) {
    if (before(b, c)) swap_c(r, b);
    else if (before(a, c)) swap_c(r, c);
    else swap_c(r, a);
  } else if (before(a, c)) {
    swap_c(r, a);
  } else if (before(b, c)) {
    swap_c(r, c);
  } else {
    swap_c(r, b);
  }
}

static tfs_nms_cand *partition_pivot(tfs_nms_cand *first,
                                     tfs_nms_cand *last) {
  tfs_nms_cand *mid = first + (last - first) / 2;
  median_to_first(first, first + 1, mid, last - 1);
  tfs_nms_cand *lo = first + 1, *hi = last, *pivot = first;
  for (;;) {
    while (before(lo, pivot)) lo++;
    hi--;
    while (before(pivot, hi)) hi--;
    if (!(lo < hi)) return lo;
    swap_c(lo, hi);
    lo++;
  }
}

static void introsort_loop(tfs_nms_cand *first, tfs_nms_cand *last,
                           int depth) {
  while (last - first > 16) {
    if (depth == 0) {
      heap_sort(first, last - first);
      return;
    }
    depth--;
    tfs_nms_cand *cut = partition_pivot(first, last);
    introsort_loop(cut, last, depth);
    last = cut;
  }
}

static void linear_insert(tfs_nms_cand *last) {
  tfs_nms_cand v = *last;
  tfs_nms_cand *next = last - 1;
  while (before(&v, next)) {
    *last = *next;
    last = next--;
  }
  *last = v;
}

static void insertion_sort(tfs_nms_cand *first, tfs_nms_cand *last) {
  if (first == last) return;
  for (tfs_nms_cand *i = first + 1; i != last; i++) {
    if (before(i, first)) {
      tfs_nms_cand v = *i;
      memmove(first + 1, first, (size_t)(i - first) * sizeof(*i));
      *first = v;
    } else {
      linear_insert(i);
    }
  }
}

static void std_sort(tfs_nms_cand *first, int64_t n) {
  if (n <= 1) return;
  int lg = 0;
  while ((n >> (lg + 1)) != 0) lg++;
  introsort_loop(first, first + n, 2 * lg);
  if (n > 16) {
    insertion_sort(first, first + 16);
    for (tfs_nms_cand *i = first + 16; i != first + n; i++) linear_insert(i);
  } else {
    insertion_sort(first, first + n);
  }
}

/* ---- the kernel ---------------------------------------------------------- */

typedef struct {
  int64_t boxes, q, classes, per_class; /* per_class: min(max, boxes) */
  float iou_thr, score_thr;
} combined_geom;

/* A selected box of one class: its box and class (-1: none). */
typedef struct {
  int32_t box, cls;
} result_ref;

/* Hard NMS of one class of one batch into res[0..per_class), sorted
 * entries in rank[] (box field: the slot in res). */
static void nms_class(const combined_geom *g, const float *boxes,
                      const float *scores, int64_t cls, tfs_nms_cand *heap,
                      int32_t *sel, result_ref *res, tfs_nms_cand *rank) {
  int64_t hn = 0, ns = 0, cb = g->q > 1 ? cls : 0;
  for (int64_t i = 0; i < g->boxes; i++) {
    float s = scores[i * g->classes + cls];
    if (s > g->score_thr)
      tfs_nms_heap_push(heap, &hn, (tfs_nms_cand){(int32_t)i, s, 0},
                        less_score);
  }
  while (ns < g->per_class && hn > 0) {
    tfs_nms_cand c = tfs_nms_heap_pop(heap, &hn, less_score);
    const float *bc = boxes + (c.box * g->q + cb) * 4;
    int keep = 1;
    for (int64_t k = ns - 1; k >= 0; k--) {
      if (tfs_nms_iou(bc, boxes + (sel[k] * g->q + cb) * 4) > g->iou_thr) {
        keep = 0;
        break;
      }
    }
    if (!keep) continue;
    int64_t slot = ns + g->per_class * cls;
    res[slot].box = c.box;
    res[slot].cls = (int32_t)cls;
    rank[slot].score = c.score;
    sel[ns++] = c.box;
  }
}

static int combined_check(tfs_kernel_ctx *c, combined_geom *g,
                          int64_t *max_pc, int64_t *max_total) {
  const tfs_tensor *b = c->inputs[0], *s = c->inputs[1];
  char buf[TFS_SHAPE_STRLEN];
  const char *msg = NULL;
  if (b->shape.rank != 4) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "boxes must be 4-D [batch, "
                  "num_boxes, q, 4], got shape %s",
                  tfs_shape_str(&b->shape, buf, sizeof buf));
    return -1;
  }
  if (s->shape.rank != 3) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "scores must be 3-D [batch, "
                  "num_boxes, num_classes], got shape %s",
                  tfs_shape_str(&s->shape, buf, sizeof buf));
    return -1;
  }
  g->boxes = b->shape.dims[1], g->q = b->shape.dims[2];
  g->classes = s->shape.dims[2];
  if (g->q != 1 && g->q != g->classes)
    msg = "third dimension of boxes must be either 1 or num classes";
  else if (b->shape.dims[3] != 4)
    msg = "boxes must have 4 columns";
  else if (s->shape.dims[1] != g->boxes)
    msg = "scores has incompatible shape";
  else if (b->shape.dims[0] != s->shape.dims[0])
    msg = "boxes and scores must have same batch size";
  else if (g->boxes > INT32_MAX || g->classes > INT32_MAX)
    msg = "boxes and scores must have fewer than 2^31 boxes and classes";
  if (msg) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "%s", msg);
    return -1;
  }
  static const char *const kNames[4] = {"max_size_per_class",
                                        "max_total_size", "iou_threshold",
                                        "score_threshold"};
  for (int i = 0; i < 4; i++) {
    const tfs_tensor *t = c->inputs[2 + i];
    if (t->shape.rank != 0) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "%s must be 0-D, got shape %s",
                    kNames[i], tfs_shape_str(&t->shape, buf, sizeof buf));
      return -1;
    }
    if (i == 0 && (*max_pc = *(const int32_t *)t->data) <= 0)
      msg = "max_size_per_class must be positive";
    if (i == 1 && (*max_total = *(const int32_t *)t->data) <= 0)
      msg = "max_total_size must be > 0";
    if (msg) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "%s", msg);
      return -1;
    }
  }
  g->iou_thr = *(const float *)c->inputs[4]->data;
  g->score_thr = *(const float *)c->inputs[5]->data;
  if (!(g->iou_thr >= 0.0f && g->iou_thr <= 1.0f)) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "iou_threshold must be in [0, 1]");
    return -1;
  }
  g->per_class = *max_pc < g->boxes ? *max_pc : g->boxes;
  if (g->per_class * g->classes > INT32_MAX) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "size_per_class * num_classes causes overflow");
    return -1;
  }
  return 0;
}

static inline float clip01(float v) {
  float m = 1.0f < v ? 1.0f : v; /* std::min(v, 1) */
  return m < 0.0f ? 0.0f : m;    /* std::max(m, 0) */
}

typedef struct {
  tfs_nms_cand *heap, *rank;
  int32_t *sel;
  result_ref *res;
} combined_scratch;

/* One batch: NMS per class, the ranking, and its rows of the outputs. */
static int32_t combined_batch(const combined_state *st,
                              const combined_geom *g, const float *boxes,
                              const float *scores, int64_t max_total,
                              int64_t per_batch, const combined_scratch *w,
                              float *ob, float *os, float *oc) {
  int64_t nres = g->per_class * g->classes;
  for (int64_t i = 0; i < nres; i++) {
    w->res[i].box = -1, w->res[i].cls = -1;
    w->rank[i].box = (int32_t)i, w->rank[i].score = -INFINITY;
  }
  for (int64_t k = 0; k < g->classes; k++)
    nms_class(g, boxes, scores, k, w->heap, w->sel, w->res, w->rank);
  std_sort(w->rank, nres);
  int64_t found = 0;
  for (int64_t i = 0; i < nres; i++) found += w->res[i].box > -1;
  int64_t limit = st->pad_per_class ? per_batch : max_total;
  int64_t det = found < limit ? found : limit;
  for (int64_t i = 0; i < per_batch; i++) {
    float bx[4] = {0, 0, 0, 0}, sc = 0.0f, cl = 0.0f;
    if (i < det) {
      const result_ref *r = &w->res[w->rank[i].box];
      const float *src = r->box < 0 ? bx
          : boxes + ((int64_t)r->box * g->q + (g->q > 1 ? r->cls : 0)) * 4;
      for (int k = 0; k < 4; k++)
        bx[k] = st->clip ? clip01(src[k]) : src[k];
      sc = w->rank[i].score;
      cl = (float)r->cls;
    }
    memcpy(ob + i * 4, bx, sizeof bx);
    os[i] = sc;
    oc[i] = cl;
  }
  return (int32_t)det;
}

static void combined_compute(tfs_kernel_ctx *c) {
  const combined_state *st = c->state;
  combined_geom g;
  int64_t max_pc = 0, max_total = 0;
  if (combined_check(c, &g, &max_pc, &max_total)) return;
  int64_t batch = c->inputs[0]->shape.dims[0];
  int64_t per_batch = max_total;
  if (st->pad_per_class) {
    int64_t cap = max_pc * g.classes; /* both below 2^31 */
    if (cap > INT32_MAX) cap = INT32_MAX;
    if (cap < per_batch) per_batch = cap;
  }
  tfs_shape s3, s2, s1;
  s3.rank = 3, s3.dims[0] = batch, s3.dims[1] = per_batch, s3.dims[2] = 4;
  tfs_shape_2d(&s2, batch, per_batch);
  tfs_shape_1d(&s1, batch);
  tfs_tensor *ob = tfs_kctx_alloc_output(c, 0, &s3);
  tfs_tensor *os = ob ? tfs_kctx_alloc_output(c, 1, &s2) : NULL;
  tfs_tensor *oc = os ? tfs_kctx_alloc_output(c, 2, &s2) : NULL;
  tfs_tensor *ov = oc ? tfs_kctx_alloc_output(c, 3, &s1) : NULL;
  if (!ov || batch == 0) return;
  int64_t nres = g.per_class * g.classes;
  combined_scratch w;
  w.heap = tfs_kctx_scratch(c, sizeof(*w.heap) * (size_t)(g.boxes + 1));
  w.rank = w.heap ? tfs_kctx_scratch(c, sizeof(*w.rank) * (size_t)(nres + 1))
                  : NULL;
  w.res = w.rank ? tfs_kctx_scratch(c, sizeof(*w.res) * (size_t)(nres + 1))
                 : NULL;
  w.sel = w.res ? tfs_kctx_scratch(c, sizeof(int32_t) *
                                          (size_t)(g.per_class + 1))
                : NULL;
  if (!w.sel) return;
  const float *boxes = c->inputs[0]->data, *scores = c->inputs[1]->data;
  int64_t bstride = g.boxes * g.q * 4, sstride = g.boxes * g.classes;
  for (int64_t b = 0; b < batch; b++)
    ((int32_t *)ov->data)[b] = combined_batch(
        st, &g, boxes + b * bstride, scores + b * sstride, max_total,
        per_batch, &w, (float *)ob->data + b * per_batch * 4,
        (float *)os->data + b * per_batch, (float *)oc->data + b * per_batch);
}

const tfs_kernel_def tfs_cpu_kernels_image_combined_nms[] = {
    {"CombinedNonMaxSuppression", "CPU", NULL, 0, combined_prepare,
     combined_compute, tfs_free, 0, NULL},
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL},
};
