/*
 * backends/cuda/cuda_reduce.c - the GPU's reductions: Sum, Mean, Max, Min
 * and Prod over the axes of a host-memory int32/int64 input, keep_dims,
 * TensorFlow's messages.  Device code: reduce.cu.
 */
#include <stdlib.h>

#include "core/status.h"
#include "backends/cuda/cuda_kernels.h"
#include "ops/reduce_check.h"

typedef struct reduce_state {
  tfs_cu_state base;
  int keep;
} reduce_state;

static int reduce_prepare(tfs_kernel_init *ki) {
  if (tfs_cu__prepare_sized(ki, sizeof(reduce_state))) return -1;
  reduce_state *s = ki->state;
  tfs_attrs_get_bool(ki->attrs, "keep_dims", &s->keep);
  return 0;
}

/* Splits the input's dims into kept and reduced ones (row-major strides,
 * size-1 dims dropped) and computes the output shape: the axes checked
 * by ops/reduce_check.c, with TensorFlow's messages; -1 after failing
 * c. */
static int plan(tfs_kernel_ctx *c, const tfs_tensor *in,
                const tfs_tensor *axes, int keep, tfs_cu_index *kept,
                tfs_cu_index *red, int64_t *nred, tfs_shape *out) {
  int r = in->shape.rank;
  uint8_t is_red[TFS_MAX_RANK];
  if (tfs_reduce_check(&in->shape, axes, keep, is_red, out, c->st)) {
    tfs_kctx_fail_status(c, c->st);
    return -1;
  }
  int64_t stride[TFS_MAX_RANK], s = 1;
  for (int d = r - 1; d >= 0; d--) {
    stride[d] = s;
    s *= in->shape.dims[d];
  }
  kept->rank = red->rank = 0;
  *nred = 1;
  for (int d = 0; d < r; d++) {
    int64_t dim = in->shape.dims[d];
    if (is_red[d]) *nred *= dim;
    if (dim == 1) continue;
    tfs_cu_index *ix = is_red[d] ? red : kept;
    if (ix->rank == TFS_CU_MAX_RANK) {
      tfs_kctx_fail(c, TFS_UNIMPLEMENTED,
                    "Reductions over more than %d dimensions are not "
                    "supported on GPU", TFS_CU_MAX_RANK);
      return -1;
    }
    ix->dims[ix->rank] = dim;
    ix->a[ix->rank] = stride[d];
    ix->b[ix->rank++] = 0;
  }
  return 0;
}

static void reduce_compute(tfs_kernel_ctx *c) {
  reduce_state *s = c->state;
  const tfs_tensor *in = c->inputs[0], *axes = c->inputs[1];
  tfs_cu_index kept, red;
  int64_t nred;
  tfs_shape out;
  if (plan(c, in, axes, s->keep, &kept, &red, &nred, &out)) return;
  if (tfs_cu__enter(c, s->base.dev)) return;
  tfs_tensor *o = tfs_cu__output(c, s->base.dev, 0, &out);
  if (!o || o->nelems == 0) return;
  int err = tfs_cu_reduce(s->base.op, s->base.type, in->data, o->data,
                          o->nelems, &kept, nred, &red,
                          s->base.dev->compute);
  tfs_cu__launched(c, s->base.dev, err, c->op_name);
}

static const tfs_cu_kdata kSum = {TFS_CU_SUM, NULL};
static const tfs_cu_kdata kMean = {TFS_CU_MEAN, NULL};
static const tfs_cu_kdata kMax = {TFS_CU_MAX, NULL};
static const tfs_cu_kdata kMin = {TFS_CU_MIN, NULL};
static const tfs_cu_kdata kProd = {TFS_CU_PROD, NULL};

#define RED(OP, D)                                                         \
  {OP, "GPU", "T", TFS_CU_DT_FLOATS, reduce_prepare, reduce_compute, free, \
   0, &D}

const tfs_kernel_def tfs_cuda_kernels_reduce[] = {
    RED("Sum", kSum), RED("Mean", kMean), RED("Max", kMax),
    RED("Min", kMin), RED("Prod", kProd),
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL},
};
