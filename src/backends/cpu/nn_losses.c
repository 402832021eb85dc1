/*
 * backends/cpu/nn_losses.c - losses and metrics: L2Loss,
 * SoftmaxCrossEntropyWithLogits (labels and logits broadcast to a matrix),
 * SparseSoftmaxCrossEntropyWithLogits (out-of-range labels rejected) and
 * InTopKV2.  Rows are computed in double (float for 16-bit types would
 * round more), then stored in the op's dtype.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/half.h"
#include "core/strbuf.h"
#include "backends/cpu/cpu_tables.h"

static inline double ldd(const void *p, tfs_dtype dt, int64_t i) {
  switch (dt) {
    case TFS_FLOAT:
      return ((const float *)p)[i];
    case TFS_DOUBLE:
      return ((const double *)p)[i];
    case TFS_HALF:
      return tfs_half_to_float(((const uint16_t *)p)[i]);
    default:
      return tfs_bf16_to_float(((const uint16_t *)p)[i]);
  }
}

static inline void std_(void *p, tfs_dtype dt, int64_t i, double v) {
  switch (dt) {
    case TFS_FLOAT:
      ((float *)p)[i] = (float)v;
      break;
    case TFS_DOUBLE:
      ((double *)p)[i] = v;
      break;
    case TFS_HALF:
      ((uint16_t *)p)[i] = tfs_float_to_half((float)v);
      break;
    default:
      ((uint16_t *)p)[i] = tfs_float_to_bf16((float)v);
      break;
  }
}

/* ---- L2Loss -------------------------------------------------------------- */

static void l2loss_compute(tfs_kernel_ctx *c) {
  const tfs_tensor *x = c->inputs[0];
  tfs_shape sc;
  tfs_shape_scalar(&sc);
  tfs_tensor *o = tfs_kctx_alloc_output(c, 0, &sc);
  if (!o) return;
  double sum = 0;
  if (x->dtype == TFS_FLOAT) {
    const float *p = x->data;
    for (int64_t i = 0; i < x->nelems; i++) sum += (double)p[i] * p[i];
  } else {
    for (int64_t i = 0; i < x->nelems; i++) {
      double v = ldd(x->data, x->dtype, i);
      sum += v * v;
    }
  }
  std_(o->data, o->dtype, 0, sum * 0.5);
}

/* ---- softmax cross entropy ----------------------------------------------- */

/* One row of logits (element stride ls) and labels (stride bs): the loss
 * and backprop = softmax - labels.  `label` >= 0 selects the sparse
 * variant (one-hot labels). */
typedef struct {
  const void *x, *lab;
  tfs_dtype dt;
  int64_t xs_row, xs_col, ls_row, ls_col;
  void *loss, *back;
  int64_t classes;
  const void *sparse; /* int32/int64 labels, or NULL */
  int sparse64;
} xent_job;

static void xent_row(const xent_job *j, int64_t r) {
  int64_t n = j->classes;
  double mx = -INFINITY;
  for (int64_t k = 0; k < n; k++) {
    double v = ldd(j->x, j->dt, r * j->xs_row + k * j->xs_col);
    if (v > mx || v != v) mx = v;
  }
  double sum = 0;
  for (int64_t k = 0; k < n; k++)
    sum += exp(ldd(j->x, j->dt, r * j->xs_row + k * j->xs_col) - mx);
  double lse = log(sum), loss = 0;
  int64_t label = -1;
  if (j->sparse)
    label = j->sparse64 ? ((const int64_t *)j->sparse)[r]
                        : ((const int32_t *)j->sparse)[r];
  for (int64_t k = 0; k < n; k++) {
    double shifted = ldd(j->x, j->dt, r * j->xs_row + k * j->xs_col) - mx;
    double lab = j->sparse ? (k == label ? 1.0 : 0.0)
                           : ldd(j->lab, j->dt, r * j->ls_row + k * j->ls_col);
    if (j->sparse) {
      if (k == label) loss = lse - shifted;
    } else {
      loss += lab * (lse - shifted);
    }
    std_(j->back, j->dt, r * n + k, exp(shifted) / sum - lab);
  }
  std_(j->loss, j->dt, r, loss);
}

static void xent_range(void *arg, int64_t r0, int64_t r1) {
  for (int64_t r = r0; r < r1; r++) xent_row(arg, r);
}

static int alloc_xent(tfs_kernel_ctx *c, int64_t batch, int64_t classes,
                      xent_job *j) {
  tfs_shape s1, s2;
  tfs_shape_1d(&s1, batch);
  tfs_shape_2d(&s2, batch, classes);
  tfs_tensor *loss = tfs_kctx_alloc_output(c, 0, &s1);
  tfs_tensor *back = loss ? tfs_kctx_alloc_output(c, 1, &s2) : NULL;
  if (!back) return -1;
  j->loss = loss->data;
  j->back = back->data;
  j->classes = classes;
  return 0;
}

/* rank <= 2 shape as [rows, cols] (left-padded with 1s). */
static int as_matrix(const tfs_shape *s, int64_t d[2]) {
  if (s->rank > 2) return -1;
  d[0] = s->rank == 2 ? s->dims[0] : 1;
  d[1] = s->rank >= 1 ? s->dims[s->rank - 1] : 1;
  return 0;
}

static void xent_compute(tfs_kernel_ctx *c) {
  const tfs_tensor *x = c->inputs[0], *l = c->inputs[1];
  char a[TFS_SHAPE_STRLEN], b[TFS_SHAPE_STRLEN];
  tfs_shape out = x->shape;
  if (!tfs_shape_equal(&x->shape, &l->shape) &&
      tfs_shape_broadcast(&x->shape, &l->shape, &out)) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "logits and labels must be broadcastable: logits_size=%s "
                  "labels_size=%s",
                  tfs_shape_str(&x->shape, a, sizeof a),
                  tfs_shape_str(&l->shape, b, sizeof b));
    return;
  }
  int64_t xd[2], ld[2];
  if (out.rank != 2 || as_matrix(&x->shape, xd) || as_matrix(&l->shape, ld)) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "logits and labels must be either 2-dimensional, or "
                  "broadcasted to be 2-dimensional");
    return;
  }
  xent_job j;
  memset(&j, 0, sizeof j);
  if (alloc_xent(c, out.dims[0], out.dims[1], &j)) return;
  j.x = x->data;
  j.lab = l->data;
  j.dt = x->dtype;
  j.xs_row = xd[0] == 1 ? 0 : xd[1];
  j.xs_col = xd[1] == 1 ? 0 : 1;
  j.ls_row = ld[0] == 1 ? 0 : ld[1];
  j.ls_col = ld[1] == 1 ? 0 : 1;
  tfs_kctx_parallel_for(c, out.dims[0], 20 * out.dims[1] + 1, xent_range, &j);
}

static int64_t label_at(const tfs_tensor *t, int64_t i) {
  return t->dtype == TFS_INT64 ? ((const int64_t *)t->data)[i]
                               : ((const int32_t *)t->data)[i];
}

static void sparse_xent_compute(tfs_kernel_ctx *c) {
  const tfs_tensor *x = c->inputs[0], *l = c->inputs[1];
  char a[TFS_SHAPE_STRLEN], b[TFS_SHAPE_STRLEN];
  if (x->shape.rank != 2) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "logits must be 2-D, but got shape %s",
                  tfs_shape_str(&x->shape, a, sizeof a));
    return;
  }
  if (l->shape.rank != 1) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "labels must be 1-D, but got shape %s",
                  tfs_shape_str(&l->shape, a, sizeof a));
    return;
  }
  int64_t batch = x->shape.dims[0], classes = x->shape.dims[1];
  if (batch != l->shape.dims[0]) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "logits and labels must have the same first dimension, "
                  "got logits shape %s and labels shape %s",
                  tfs_shape_str(&x->shape, a, sizeof a),
                  tfs_shape_str(&l->shape, b, sizeof b));
    return;
  }
  if (classes <= 0) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Must have at least one class, but got logits shape %s",
                  tfs_shape_str(&x->shape, a, sizeof a));
    return;
  }
  for (int64_t i = 0; i < batch; i++) {
    int64_t v = label_at(l, i);
    if (v >= 0 && v < classes) continue;
    tfs_strbuf s = TFS_STRBUF_INIT;
    for (int64_t k = 0; k < batch; k++)
      tfs_strbuf_printf(&s, "%s%lld", k ? " " : "", (long long)label_at(l, k));
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Received a label value of %lld which is outside the "
                  "valid range of [0, %lld).  Label values: %s",
                  (long long)v, (long long)classes, tfs_strbuf_str(&s));
    tfs_strbuf_free(&s);
    return;
  }
  xent_job j;
  memset(&j, 0, sizeof j);
  if (alloc_xent(c, batch, classes, &j)) return;
  j.x = x->data;
  j.dt = x->dtype;
  j.xs_row = classes;
  j.xs_col = 1;
  j.sparse = l->data;
  j.sparse64 = l->dtype == TFS_INT64;
  tfs_kctx_parallel_for(c, batch, 20 * classes + 1, xent_range, &j);
}

/* ---- InTopKV2 ------------------------------------------------------------ */

static void in_top_k_compute(tfs_kernel_ctx *c) {
  const tfs_tensor *p = c->inputs[0], *t = c->inputs[1], *k = c->inputs[2];
  char a[TFS_SHAPE_STRLEN];
  if (k->shape.rank != 0) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "k must be 0-D, got shape %s",
                  tfs_shape_str(&k->shape, a, sizeof a));
    return;
  }
  if (p->shape.rank != 2) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "predictions must be 2-dimensional");
    return;
  }
  if (t->shape.rank != 1) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "targets must be 1-dimensional");
    return;
  }
  int64_t batch = p->shape.dims[0], n = p->shape.dims[1];
  if (batch != t->shape.dims[0]) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "First dimension of predictions %lld must match length of "
                  "targets %lld",
                  (long long)batch, (long long)t->shape.dims[0]);
    return;
  }
  tfs_shape os;
  tfs_shape_1d(&os, batch);
  tfs_tensor *o = tfs_kctx_alloc_output(c, 0, &os);
  if (!o) return;
  int64_t kv = label_at(k, 0);
  const float *pr = p->data;
  uint8_t *out = o->data;
  for (int64_t b = 0; b < batch; b++) {
    int64_t target = label_at(t, b);
    /* false when the target is out of range or any prediction of the
     * row is not finite ("cannot say"), as TensorFlow */
    out[b] = 0;
    if (target < 0 || target >= n) continue;
    float tv = pr[b * n + target];
    int64_t more = 0, finite = 1;
    for (int64_t i = 0; i < n; i++) {
      if (!isfinite(pr[b * n + i])) {
        finite = 0;
        break;
      }
      if (pr[b * n + i] > tv) more++;
    }
    out[b] = finite && more < kv;
  }
}

const tfs_kernel_def tfs_cpu_kernels_nn_losses[] = {
    {"L2Loss", "CPU", "T", TFS_DT_FLOATS, NULL, l2loss_compute, NULL, 0, NULL},
    {"SoftmaxCrossEntropyWithLogits", "CPU", "T", TFS_DT_FLOATS, NULL,
     xent_compute, NULL, 0, NULL},
    {"SparseSoftmaxCrossEntropyWithLogits", "CPU", "T", TFS_DT_FLOATS, NULL,
     sparse_xent_compute, NULL, 0, NULL},
    {"InTopKV2", "CPU", "T", TFS_DT_BIT(TFS_INT32) | TFS_DT_BIT(TFS_INT64),
     NULL, in_top_k_compute, NULL, 0, NULL},
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL},
};
