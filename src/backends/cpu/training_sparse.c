/*
 * backends/cpu/training_sparse.c - the sparse optimizer updates
 * (SparseApplyMomentum, SparseApplyAdagrad, ResourceSparseApplyMomentum,
 * ResourceSparseApplyKerasMomentum, ResourceSparseApplyAdagrad and
 * ResourceSparseApplyAdagradV2): row indices[i] of the variable and its
 * slots takes row i of the gradient, rows in index order, so a repeated
 * index is updated once per occurrence, in order.  Every index is checked
 * before any row changes.
 */
#include <stdio.h>
#include <string.h>

#include "backends/cpu/training.h"

static int64_t index_at(const tfs_tensor *ix, int64_t i) {
  return ix->dtype == TFS_INT32 ? ((const int32_t *)ix->data)[i]
                                : ((const int64_t *)ix->data)[i];
}

/* TensorFlow's checks of the shapes, in its order; sets *inner. */
static int check_sparse(tfs_kernel_ctx *c, const tfs_train_state *s,
                        const tfs_train_vars *tv, int64_t *inner) {
  const tfs_train_desc *d = s->d;
  const tfs_shape *vs = &tv->vals[0]->shape;
  char a[TFS_SHAPE_STRLEN], b[TFS_SHAPE_STRLEN];
  for (int i = 1; i < tv->n; i++)
    if (!tfs_shape_equal(vs, &tv->vals[i]->shape)) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "var and %s do not have the same shape%s %s",
                    s->arg_names[i], tfs_shape_str(vs, a, sizeof a),
                    tfs_shape_str(&tv->vals[i]->shape, b, sizeof b));
      return -1;
    }
  if (vs->rank < 1) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "var must be at least 1 dimensional");
    return -1;
  }
  if (tfs_train__check_scalars(c, s)) return -1;
  const tfs_tensor *g = c->inputs[d->grad], *ix = c->inputs[d->grad + 1];
  if (ix->shape.rank != 1) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "indices must be one-dimensional");
    return -1;
  }
  int64_t n = 1;
  for (int k = 1; k < vs->rank; k++) {
    if (k >= g->shape.rank || g->shape.dims[k] != vs->dims[k]) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "var and grad must match in dimension %d", k);
      return -1;
    }
    n *= vs->dims[k];
  }
  if (g->shape.rank != vs->rank || g->shape.dims[0] != ix->shape.dims[0]) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  g->shape.rank > vs->rank
                      ? "var and grad must match in dimension %d"
                      : "grad must be the same size as indices in the first "
                        "dimension.",
                  vs->rank);
    return -1;
  }
  if (n <= 0 && (d->algo == TFS_TR_ADAGRAD || d->algo == TFS_TR_ADAGRAD_V2)) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Inner dimension should be greater than zero.");
    return -1;
  }
  *inner = n;
  return 0;
}

static int check_indices(tfs_kernel_ctx *c, const tfs_train_state *s,
                         const tfs_tensor *ix, int64_t rows) {
  for (int64_t i = 0; i < ix->nelems; i++) {
    int64_t j = index_at(ix, i);
    if (j >= 0 && j < rows) continue;
    if (s->d->algo == TFS_TR_KERAS_MOM)
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "indices[%lld] = %lld is not in [0, %lld)", (long long)i,
                    (long long)j, (long long)rows);
    else
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "Index %lld at offset %lld in indices is out of range",
                    (long long)j, (long long)i);
    return -1;
  }
  return 0;
}

static void sparse_compute(tfs_kernel_ctx *c) {
  const tfs_train_state *s = c->state;
  tfs_train_vars tv;
  if (tfs_train__acquire(c, s, &tv)) return;
  int64_t inner = 0;
  const tfs_tensor *g = c->inputs[s->d->grad], *ix = c->inputs[s->d->grad + 1];
  if (check_sparse(c, s, &tv, &inner) ||
      check_indices(c, s, ix, tv.vals[0]->shape.dims[0]) ||
      tfs_train__make_private(c, &tv)) {
    tfs_train__release_vars(c, s, &tv);
    return;
  }
  tfs_train_step st;
  tfs_train__step_init(c, s, &st);
  st.row1 = inner == 1;
  size_t row_bytes = (size_t)inner * tfs_dtype_size(st.dtype);
  for (int64_t i = 0; i < ix->nelems && inner > 0; i++) {
    size_t off = (size_t)index_at(ix, i) * row_bytes;
    for (int k = 0; k < tv.n; k++) st.v[k] = (char *)tv.vals[k]->data + off;
    st.g = (const char *)g->data + (size_t)i * row_bytes;
    tfs_train__apply(&st, inner);
  }
  tfs_train__release_vars(c, s, &tv);
}

static const tfs_train_desc kMomRef = {TFS_TR_MOMENTUM, 0, 2, 3, 1, 1u << 2};
static const tfs_train_desc kMomRes = {TFS_TR_MOMENTUM, 1, 2, 3, 1, 1u << 2};
static const tfs_train_desc kKMomRes = {TFS_TR_KERAS_MOM, 1, 2, 3, 1,
                                        1u << 2};
static const tfs_train_desc kAdagradRef = {TFS_TR_ADAGRAD, 0, 2, 3, 1, 0};
static const tfs_train_desc kAdagradRes = {TFS_TR_ADAGRAD, 1, 2, 3, 1, 0};
static const tfs_train_desc kAdagradV2Res = {TFS_TR_ADAGRAD_V2, 1, 2, 4, 1,
                                             0};

#define SPARSE(OP, DESC)                                                     \
  {OP, "CPU", "T", TFS_TRAIN_TYPES, tfs_train__prepare, sparse_compute,     \
   tfs_train__release, 0, &DESC}
const tfs_kernel_def tfs_cpu_kernels_training_sparse[] = {
    SPARSE("SparseApplyMomentum", kMomRef),
    SPARSE("ResourceSparseApplyMomentum", kMomRes),
    SPARSE("ResourceSparseApplyKerasMomentum", kKMomRes),
    SPARSE("SparseApplyAdagrad", kAdagradRef),
    SPARSE("ResourceSparseApplyAdagrad", kAdagradRes),
    SPARSE("ResourceSparseApplyAdagradV2", kAdagradV2Res),
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL},
};
