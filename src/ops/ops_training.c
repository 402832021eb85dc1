/*
 * ops/ops_training.c - the optimizer update ops of core/ops/training_ops.cc:
 * gradient descent, momentum (and Keras momentum), Adagrad (V2), RMSProp,
 * Adam (and AMSGrad), in their ref (Apply*), resource (ResourceApply*) and
 * sparse (SparseApply*, ResourceSparseApply*) forms.
 *
 * Every shape function follows TensorFlow's: the variable's shape (a ref
 * input's, or the declared shape behind a resource handle) merged with
 * each slot's, the hyperparameters rank 0, and the gradient merged with
 * the variable (dense) or, for sparse forms, indices a vector as long as
 * the gradient's first dimension and the gradient's other dimensions
 * merged with the variable's.
 */
#include <string.h>

#include "ops/array_shape_fns.h"
#include "ops/op_tables.h"
#include "ops/shape_ctx.h"

/* Input layout of one training op: `nvars` variables first, the gradient
 * at `grad`, the sparse indices right after it (`sparse`), every other
 * input a scalar hyperparameter. */
typedef struct {
  const char *op;
  int nvars;
  int grad;
  int sparse;
} train_layout;

static const train_layout layouts[] = {
    {"ApplyGradientDescent", 1, 2, 0},
    {"ResourceApplyGradientDescent", 1, 2, 0},
    {"ApplyMomentum", 2, 3, 0},
    {"ResourceApplyMomentum", 2, 3, 0},
    {"ResourceApplyKerasMomentum", 2, 3, 0},
    {"SparseApplyMomentum", 2, 3, 1},
    {"ResourceSparseApplyMomentum", 2, 3, 1},
    {"ResourceSparseApplyKerasMomentum", 2, 3, 1},
    {"ApplyAdagrad", 2, 3, 0},
    {"ResourceApplyAdagrad", 2, 3, 0},
    {"ResourceApplyAdagradV2", 2, 4, 0},
    {"SparseApplyAdagrad", 2, 3, 1},
    {"ResourceSparseApplyAdagrad", 2, 3, 1},
    {"ResourceSparseApplyAdagradV2", 2, 4, 1},
    {"ApplyRMSProp", 3, 7, 0},
    {"ResourceApplyRMSProp", 3, 7, 0},
    {"ApplyAdam", 3, 9, 0},
    {"ResourceApplyAdam", 3, 9, 0},
    {"ResourceApplyAdamWithAmsgrad", 4, 10, 0},
};

static const train_layout *layout_of(const char *op) {
  for (size_t i = 0; i < sizeof layouts / sizeof layouts[0]; i++)
    if (!strcmp(layouts[i].op, op)) return &layouts[i];
  return NULL;
}

/* TensorFlow's ShapeOrHandleShape as its GraphDef importer sees it: a
 * ref input's own shape; a resource input's is unknown (the importer
 * keeps no handle shapes, so TensorFlow imports a graph whose gradient
 * does not fit the variable and fails at run time). */
static void var_shape(tfs_shape_ctx *c, int i, tfs_shape *out) {
  if (c->in_dtypes[i] == TFS_RESOURCE) {
    out->rank = -1;
    return;
  }
  *out = c->in_shapes[i];
}

static int train_shape(tfs_shape_ctx *c) {
  const train_layout *l = layout_of(c->op->name);
  if (!l) return tfs_sc_error(c, "no layout for %s", c->op->name);
  tfs_shape s, t;
  var_shape(c, 0, &s);
  for (int i = 1; i < l->nvars; i++) {
    var_shape(c, i, &t);
    if (tfs_sc_merge_shapes(c, &s, &t, &s)) return -1;
  }
  for (int i = l->nvars; i < c->ninputs; i++) {
    if (i == l->grad || (l->sparse && i == l->grad + 1)) continue;
    if (tfs_sc_with_rank(c, i, 0)) return -1;
  }
  const tfs_shape *g = &c->in_shapes[l->grad];
  if (!l->sparse) {
    if (tfs_sc_merge_shapes(c, &s, g, &s)) return -1;
  } else {
    if (tfs_sc_with_rank(c, l->grad + 1, 1)) return -1;
    const tfs_shape *ix = &c->in_shapes[l->grad + 1];
    int64_t unused;
    if (ix->rank == 1 && g->rank > 0 &&
        tfs_sc_merge_dim(c, ix->dims[0], g->dims[0], &unused))
      return -1;
    tfs_shape rest = *g;
    if (rest.rank > 0) rest.dims[0] = -1;
    if (tfs_sc_merge_shapes(c, &s, &rest, &s)) return -1;
  }
  if (c->noutputs > 0) c->out_shapes[0] = s;
  return 0;
}

#define T_NUM "T: numbertype; use_locking: bool = false"
#define T_IDX "T: numbertype; Tindices: {int32, int64}; use_locking: bool " \
              "= false"
#define NESTEROV "; use_nesterov: bool = false"
#define SLOTS "; update_slots: bool = true"
#define ST TFS_OP_STATEFUL

const tfs_op_spec tfs_ops_training[] = {
    {"ApplyGradientDescent", "var: Ref(T); alpha: T; delta: T",
     "out: Ref(T)", T_NUM, train_shape, 0},
    {"ResourceApplyGradientDescent", "var: resource; alpha: T; delta: T", "",
     T_NUM, train_shape, ST},
    {"ApplyMomentum",
     "var: Ref(T); accum: Ref(T); lr: T; grad: T; momentum: T",
     "out: Ref(T)", T_NUM NESTEROV, train_shape, 0},
    {"ResourceApplyMomentum",
     "var: resource; accum: resource; lr: T; grad: T; momentum: T", "",
     T_NUM NESTEROV, train_shape, ST},
    {"ResourceApplyKerasMomentum",
     "var: resource; accum: resource; lr: T; grad: T; momentum: T", "",
     T_NUM NESTEROV, train_shape, ST},
    {"SparseApplyMomentum",
     "var: Ref(T); accum: Ref(T); lr: T; grad: T; indices: Tindices; "
     "momentum: T",
     "out: Ref(T)", T_IDX NESTEROV, train_shape, 0},
    {"ResourceSparseApplyMomentum",
     "var: resource; accum: resource; lr: T; grad: T; indices: Tindices; "
     "momentum: T",
     "", T_IDX NESTEROV, train_shape, ST},
    {"ResourceSparseApplyKerasMomentum",
     "var: resource; accum: resource; lr: T; grad: T; indices: Tindices; "
     "momentum: T",
     "", T_IDX NESTEROV, train_shape, ST},
    {"ApplyAdagrad", "var: Ref(T); accum: Ref(T); lr: T; grad: T",
     "out: Ref(T)", T_NUM SLOTS, train_shape, 0},
    {"ResourceApplyAdagrad",
     "var: resource; accum: resource; lr: T; grad: T", "", T_NUM SLOTS,
     train_shape, ST},
    {"ResourceApplyAdagradV2",
     "var: resource; accum: resource; lr: T; epsilon: T; grad: T", "",
     T_NUM SLOTS, train_shape, ST},
    {"SparseApplyAdagrad",
     "var: Ref(T); accum: Ref(T); lr: T; grad: T; indices: Tindices",
     "out: Ref(T)", T_IDX SLOTS, train_shape, 0},
    {"ResourceSparseApplyAdagrad",
     "var: resource; accum: resource; lr: T; grad: T; indices: Tindices",
     "", T_IDX SLOTS, train_shape, ST},
    {"ResourceSparseApplyAdagradV2",
     "var: resource; accum: resource; lr: T; epsilon: T; grad: T; "
     "indices: Tindices",
     "", T_IDX SLOTS, train_shape, ST},
    {"ApplyRMSProp",
     "var: Ref(T); ms: Ref(T); mom: Ref(T); lr: T; rho: T; momentum: T; "
     "epsilon: T; grad: T",
     "out: Ref(T)", T_NUM, train_shape, 0},
    {"ResourceApplyRMSProp",
     "var: resource; ms: resource; mom: resource; lr: T; rho: T; "
     "momentum: T; epsilon: T; grad: T",
     "", T_NUM, train_shape, ST},
    {"ApplyAdam",
     "var: Ref(T); m: Ref(T); v: Ref(T); beta1_power: T; beta2_power: T; "
     "lr: T; beta1: T; beta2: T; epsilon: T; grad: T",
     "out: Ref(T)", T_NUM NESTEROV, train_shape, 0},
    {"ResourceApplyAdam",
     "var: resource; m: resource; v: resource; beta1_power: T; "
     "beta2_power: T; lr: T; beta1: T; beta2: T; epsilon: T; grad: T",
     "", T_NUM NESTEROV, train_shape, ST},
    {"ResourceApplyAdamWithAmsgrad",
     "var: resource; m: resource; v: resource; vhat: resource; "
     "beta1_power: T; beta2_power: T; lr: T; beta1: T; beta2: T; "
     "epsilon: T; grad: T",
     "", T_NUM, train_shape, ST},
    {NULL, NULL, NULL, NULL, NULL, 0},
};
