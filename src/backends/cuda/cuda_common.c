/*
 * backends/cuda/cuda_common.c - the host helpers of the CUDA kernels:
 * binding to the prepared GPU, dtype codes, outputs in device memory and
 * CUDA errors as kernel failures.
 */
#include <stdlib.h>

#include "core/alloc.h"
#include "core/status.h"
#include "backends/cuda/cuda_kernels.h"

int tfs_cu__type(tfs_dtype dt) {
  switch (dt) {
    case TFS_FLOAT: return TFS_CU_F32;
    case TFS_DOUBLE: return TFS_CU_F64;
    case TFS_HALF: return TFS_CU_F16;
    case TFS_BFLOAT16: return TFS_CU_BF16;
    default: return -1;
  }
}

tfs_cuda_dev *tfs_cu__bind(tfs_kernel_init *ki) {
  tfs_cuda_dev *d = tfs_cuda__dev(ki->device);
  if (!d)
    tfs_ki_error(ki, TFS_INTERNAL,
                 "%s: a GPU kernel must be prepared through "
                 "tfs_device__prepare_kernel on a GPU device",
                 ki->op->name);
  return d;
}

int tfs_cu__prepare_basic(tfs_kernel_init *ki) {
  return tfs_cu__prepare_sized(ki, sizeof(tfs_cu_state));
}

int tfs_cu__prepare_sized(tfs_kernel_init *ki, size_t size) {
  tfs_cuda_dev *d = tfs_cu__bind(ki);
  if (!d) return -1;
  tfs_cu_state *s = tfs_calloc(1, size);
  if (!s) return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  s->dev = d;
  s->op = ki->kdata ? ((const tfs_cu_kdata *)ki->kdata)->op : 0;
  tfs_dtype t = TFS_INVALID;
  if (tfs_attrs_get_type(ki->attrs, "T", &t) != 0 && ki->ninputs > 0)
    t = ki->in_types[0];
  s->type = tfs_cu__type(t);
  s->alpha = 0.2f;
  tfs_attrs_get_float(ki->attrs, "alpha", &s->alpha);
  ki->state = s;
  return 0;
}

int tfs_cu__enter(tfs_kernel_ctx *c, tfs_cuda_dev *d) {
  tfs_status *st = tfs_status_new();
  int rc = st ? tfs_cuda__activate(d, st) : -1;
  if (rc) tfs_cu__fail_status(c, st);
  tfs_status_free(st);
  return rc;
}

tfs_tensor *tfs_cu__output(tfs_kernel_ctx *c, tfs_cuda_dev *d, int i,
                           const tfs_shape *shape) {
  if (c->failed || tfs_kctx_check_output(c, i, shape)) return NULL;
  tfs_tensor *t =
      tfs_device__alloc_tensor(&d->base, c->out_types[i], shape, c->st);
  if (!t) {
    tfs_kctx_fail_status(c, c->st);
    return NULL;
  }
  tfs_kctx_set_output(c, i, t);
  return t;
}

int tfs_cu__launched(tfs_kernel_ctx *c, tfs_cuda_dev *d, int err,
                     const char *what) {
  if (err == 0) return 0;
  cudaGetLastError();
  tfs_kctx_fail(c, TFS_INTERNAL, "%s failed on %s: %s: %s", what,
                d->base.name, cudaGetErrorName((cudaError_t)err),
                cudaGetErrorString((cudaError_t)err));
  return -1;
}

void tfs_cu__fail_status(tfs_kernel_ctx *c, tfs_status *st) {
  if (!st) {
    tfs_kctx_fail(c, TFS_RESOURCE_EXHAUSTED, "out of memory");
    return;
  }
  tfs_kctx_fail_status(c, st);
}
