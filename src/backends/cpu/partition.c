/*
 * backends/cpu/partition.c - DynamicPartition (rows of data sent to
 * num_partitions outputs by a partition id each, keeping their order)
 * and DynamicStitch / ParallelDynamicStitch (rows of the data inputs
 * placed at their indices; a later input wins where indices repeat; rows
 * no index names are zero).  Every partition id and index is checked
 * before a row moves.
 */
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "backends/cpu/array_util.h"
#include "backends/cpu/segment_util.h"

static int starts_with(const tfs_shape *s, const tfs_shape *pre) {
  if (s->rank < pre->rank) return 0;
  for (int k = 0; k < pre->rank; k++)
    if (s->dims[k] != pre->dims[k]) return 0;
  return 1;
}

/* ---- DynamicPartition ---------------------------------------------------- */

static void partition_compute(tfs_kernel_ctx *c) {
  const tfs_tensor *data = c->inputs[0], *p = c->inputs[1];
  int np = c->noutputs;
  char a[TFS_SHAPE_STRLEN], b[TFS_SHAPE_STRLEN];
  if (!starts_with(&data->shape, &p->shape)) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "data.shape must start with partitions.shape, got "
                  "data.shape = %s, partitions.shape = %s",
                  tfs_shape_str(&data->shape, a, sizeof a),
                  tfs_shape_str(&p->shape, b, sizeof b));
    return;
  }
  if (data->shape.rank - p->shape.rank + 1 > TFS_MAX_RANK) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "DynamicPartition result has more than %d dimensions",
                  TFS_MAX_RANK);
    return;
  }
  int64_t *count = tfs_calloc((size_t)np, sizeof(int64_t));
  if (!count) {
    tfs_arr_oom(c);
    return;
  }
  const int32_t *pv = p->data;
  for (int64_t i = 0; i < p->nelems; i++) {
    if (pv[i] < 0 || pv[i] >= np) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "partitions%s = %d is not in [0, %d)",
                    tfs_seg_index_str(i, p->shape.dims, p->shape.rank, a,
                                      sizeof a),
                    (int)pv[i], np);
      goto done;
    }
    count[pv[i]]++;
  }
  int64_t inner = tfs_arr_prod(data->shape.dims, p->shape.rank,
                               data->shape.rank);
  tfs_elem e = tfs_elem_of(data->dtype);
  for (int k = 0; k < np; k++) {
    tfs_shape os;
    os.rank = data->shape.rank - p->shape.rank + 1;
    os.dims[0] = count[k];
    for (int d = p->shape.rank; d < data->shape.rank; d++)
      os.dims[1 + d - p->shape.rank] = data->shape.dims[d];
    if (!tfs_kctx_alloc_output(c, k, &os)) goto done;
    count[k] = 0;
  }
  for (int64_t i = 0; i < p->nelems; i++) {
    tfs_tensor *o = c->outputs[pv[i]];
    char *d = (char *)o->data + (size_t)(count[pv[i]]++ * inner) * e.size;
    if (tfs_elem_copy(e, d, (const char *)data->data + (size_t)(i * inner) *
                                                          e.size,
                      inner)) {
      tfs_arr_oom(c);
      goto done;
    }
  }
done:
  tfs_free(count);
}

/* ---- DynamicStitch ------------------------------------------------------- */

static int same_extra(const tfs_tensor *d0, const tfs_tensor *i0,
                      const tfs_tensor *d, const tfs_tensor *ix) {
  int e0 = d0->shape.rank - i0->shape.rank, e = d->shape.rank - ix->shape.rank;
  if (e0 != e) return 0;
  for (int k = 0; k < e; k++)
    if (d0->shape.dims[i0->shape.rank + k] != d->shape.dims[ix->shape.rank + k])
      return 0;
  return 1;
}

/* Checks the inputs, TensorFlow's order; *rows = max index + 1. */
static int stitch_check(tfs_kernel_ctx *c, int n, int64_t *rows) {
  int64_t max = -1;
  char s[4][TFS_SHAPE_STRLEN];
  for (int t = 0; t < n; t++) {
    const tfs_tensor *ix = c->inputs[t];
    for (int64_t i = 0; i < ix->nelems; i++)
      if (((const int32_t *)ix->data)[i] > max)
        max = ((const int32_t *)ix->data)[i];
  }
  for (int t = 0; t < n; t++) {
    const tfs_tensor *ix = c->inputs[t];
    for (int64_t i = 0; i < ix->nelems; i++) {
      int32_t v = ((const int32_t *)ix->data)[i];
      if (v < 0 || v > max) {
        tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "indices[%lld] is out of range",
                      (long long)i);
        return -1;
      }
    }
  }
  const tfs_tensor *d0 = c->inputs[n], *i0 = c->inputs[0];
  for (int t = 0; t < n; t++) {
    const tfs_tensor *ix = c->inputs[t], *d = c->inputs[n + t];
    if (!starts_with(&d->shape, &ix->shape)) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "data[%d].shape = %s does not start with indices[%d]"
                    ".shape = %s", t, tfs_shape_str(&d->shape, s[0], 400), t,
                    tfs_shape_str(&ix->shape, s[1], 400));
      return -1;
    }
    if (t > 0 && !same_extra(d0, i0, d, ix)) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "Need data[0].shape[%d:] = data[%d].shape[%d:], got "
                    "data[0].shape = %s, data[%d].shape = %s, indices[0]"
                    ".shape = %s, indices[%d].shape = %s",
                    i0->shape.rank, t, ix->shape.rank,
                    tfs_shape_str(&d0->shape, s[0], 400), t,
                    tfs_shape_str(&d->shape, s[1], 400),
                    tfs_shape_str(&i0->shape, s[2], 400), t,
                    tfs_shape_str(&ix->shape, s[3], 400));
      return -1;
    }
  }
  if (d0->shape.rank - i0->shape.rank + 1 > TFS_MAX_RANK) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "DynamicStitch result has more than %d dimensions",
                  TFS_MAX_RANK);
    return -1;
  }
  *rows = max + 1;
  return 0;
}

static void stitch_compute(tfs_kernel_ctx *c) {
  int n = c->ninputs / 2;
  int64_t rows;
  if (stitch_check(c, n, &rows)) return;
  const tfs_tensor *d0 = c->inputs[n], *i0 = c->inputs[0];
  tfs_shape os;
  os.rank = d0->shape.rank - i0->shape.rank + 1;
  os.dims[0] = rows;
  for (int d = i0->shape.rank; d < d0->shape.rank; d++)
    os.dims[1 + d - i0->shape.rank] = d0->shape.dims[d];
  tfs_tensor *o = tfs_kctx_alloc_output(c, 0, &os);
  if (!o) return;
  tfs_elem e = tfs_elem_of(o->dtype);
  if (!e.is_string) memset(o->data, 0, o->nbytes);
  int64_t inner = tfs_arr_prod(os.dims, 1, os.rank);
  for (int t = 0; t < n; t++) {
    const tfs_tensor *ix = c->inputs[t], *d = c->inputs[n + t];
    for (int64_t i = 0; i < ix->nelems; i++) {
      int32_t v = ((const int32_t *)ix->data)[i];
      if (tfs_elem_copy(e, (char *)o->data + (size_t)(v * inner) * e.size,
                        (const char *)d->data + (size_t)(i * inner) * e.size,
                        inner)) {
        tfs_arr_oom(c);
        return;
      }
    }
  }
}

/* TensorFlow's DynamicPartition has no quantized kernels; the stitches
 * do. */
#define PARTITION_TYPES                                                    \
  (TFS_DT_REAL | TFS_DT_BIT(TFS_BOOL) | TFS_DT_BIT(TFS_STRING) |           \
   TFS_DT_BIT(TFS_COMPLEX64) | TFS_DT_BIT(TFS_COMPLEX128))

const tfs_kernel_def tfs_cpu_kernels_partition[] = {
    {"DynamicPartition", "CPU", "T", PARTITION_TYPES, NULL,
     partition_compute, NULL, 0, NULL},
    {"DynamicStitch", "CPU", "T", TFS_DT_ARRAY, NULL, stitch_compute, NULL, 0,
     NULL},
    {"ParallelDynamicStitch", "CPU", "T", TFS_DT_ARRAY, NULL, stitch_compute,
     NULL, 0, NULL},
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL},
};
