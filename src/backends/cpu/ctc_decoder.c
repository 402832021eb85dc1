/*
 * backends/cpu/ctc_decoder.c - CTCGreedyDecoder over float and double:
 * for each batch entry and each time step below its sequence length, the
 * class with the largest score (the first on ties; a NaN in front wins,
 * as a plain greater-than scan leaves it) is emitted unless it is the
 * blank or, with merge_repeated, the class of the step before.
 * log_probability is minus the sum of those largest scores.  The result
 * is a sparse [batch, longest decoding] tensor in TensorFlow's layout.
 */
#include <string.h>

#include "core/alloc.h"
#include "backends/cpu/cpu_tables.h"

typedef struct {
  int merge_repeated;
  int64_t blank_index;
} ctc_state;

static int ctc_prepare(tfs_kernel_init *ki) {
  ctc_state *s = tfs_calloc(1, sizeof(*s));
  if (!s) return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  s->blank_index = -1;
  tfs_attrs_get_bool(ki->attrs, "merge_repeated", &s->merge_repeated);
  tfs_attrs_get_int(ki->attrs, "blank_index", &s->blank_index);
  ki->state = s;
  return 0;
}

/* TensorFlow's checks, in its order; 0 when the inputs are usable. */
static int ctc_check(tfs_kernel_ctx *c, const tfs_tensor *x,
                     const tfs_tensor *len, int64_t *blank) {
  if (x->shape.rank != 3) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "inputs is not a 3-Tensor");
    return -1;
  }
  if (x->nelems == 0) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "inputs must not be empty");
    return -1;
  }
  if (len->shape.rank != 1) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "sequence_length is not a vector");
    return -1;
  }
  int64_t max_time = x->shape.dims[0], batch = x->shape.dims[1];
  int64_t classes = x->shape.dims[2];
  if (len->shape.dims[0] != batch) {
    tfs_kctx_fail(c, TFS_FAILED_PRECONDITION,
                  "len(sequence_length) != batch_size.  "
                  "len(sequence_length):  %lld batch_size: %lld",
                  (long long)len->shape.dims[0], (long long)batch);
    return -1;
  }
  const int32_t *sl = len->data;
  for (int64_t b = 0; b < batch; b++)
    if (sl[b] > max_time) {
      tfs_kctx_fail(c, TFS_FAILED_PRECONDITION,
                    "sequence_length(%lld) <= %lld", (long long)b,
                    (long long)max_time);
      return -1;
    }
  if (*blank < -classes || *blank >= classes) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "blank_index expected to be between %lld and %lld but was "
                  "%lld", (long long)-classes, (long long)(classes - 1),
                  (long long)*blank);
    return -1;
  }
  if (*blank < 0) *blank += classes;
  return 0;
}

/* The best class at row p[0..n), its score in *best. */
#define DEFINE_ARGMAX(NAME, T)                                     \
  static int64_t NAME(const T *p, int64_t n, double *best) {       \
    int64_t m = 0;                                                 \
    for (int64_t k = 1; k < n; k++)                                \
      if (p[k] > p[m]) m = k;                                      \
    *best = (double)p[m];                                          \
    return m;                                                      \
  }
DEFINE_ARGMAX(argmax_f32, float)
DEFINE_ARGMAX(argmax_f64, double)

static void ctc_compute(tfs_kernel_ctx *c) {
  const ctc_state *s = c->state;
  const tfs_tensor *x = c->inputs[0], *len = c->inputs[1];
  int64_t blank = s->blank_index;
  if (ctc_check(c, x, len, &blank)) return;
  int64_t batch = x->shape.dims[1], classes = x->shape.dims[2];
  const int32_t *sl = len->data;
  int is_double = x->dtype == TFS_DOUBLE;
  /* decoded classes, batch-major; at most one per time step */
  int64_t *cls = tfs_kctx_scratch(c, sizeof(int64_t) * (size_t)x->nelems /
                                         (size_t)classes);
  int64_t *count = cls ? tfs_kctx_scratch(c, sizeof(int64_t) * (size_t)batch)
                       : NULL;
  double *logp = count ? tfs_kctx_scratch(c, sizeof(double) * (size_t)batch)
                       : NULL;
  if (!logp) return;
  int64_t total = 0, widest = 0, max_time = x->shape.dims[0];
  for (int64_t b = 0; b < batch; b++) {
    int64_t prev = -1, n = 0;
    double sum = 0;
    for (int64_t t = 0; t < sl[b]; t++) {
      int64_t off = (t * batch + b) * classes;
      double best;
      int64_t k = is_double
                      ? argmax_f64((const double *)x->data + off, classes,
                                   &best)
                      : argmax_f32((const float *)x->data + off, classes,
                                   &best);
      sum = is_double ? sum - best : (double)(float)(sum - best);
      if (k != blank && !(s->merge_repeated && k == prev))
        cls[b * max_time + n++] = k;
      prev = k;
    }
    count[b] = n;
    logp[b] = sum;
    total += n;
    if (n > widest) widest = n;
  }
  tfs_shape si, sv, ss, sp;
  tfs_shape_2d(&si, total, 2);
  tfs_shape_1d(&sv, total);
  tfs_shape_1d(&ss, 2);
  tfs_shape_2d(&sp, batch, 1);
  tfs_tensor *oi = tfs_kctx_alloc_output(c, 0, &si);
  tfs_tensor *ov = oi ? tfs_kctx_alloc_output(c, 1, &sv) : NULL;
  tfs_tensor *os = ov ? tfs_kctx_alloc_output(c, 2, &ss) : NULL;
  tfs_tensor *op = os ? tfs_kctx_alloc_output(c, 3, &sp) : NULL;
  if (!op) return;
  int64_t *ix = oi->data, *val = ov->data, k = 0;
  for (int64_t b = 0; b < batch; b++) {
    for (int64_t j = 0; j < count[b]; j++, k++) {
      ix[2 * k] = b;
      ix[2 * k + 1] = j;
      val[k] = cls[b * max_time + j];
    }
    if (is_double)
      ((double *)op->data)[b] = logp[b];
    else
      ((float *)op->data)[b] = (float)logp[b];
  }
  ((int64_t *)os->data)[0] = batch;
  ((int64_t *)os->data)[1] = widest;
}

const tfs_kernel_def tfs_cpu_kernels_ctc_decoder[] = {
    {"CTCGreedyDecoder", "CPU", "T",
     TFS_DT_BIT(TFS_FLOAT) | TFS_DT_BIT(TFS_DOUBLE), ctc_prepare,
     ctc_compute, tfs_free, 0, NULL},
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL},
};
