/*
 * ops/strided_slice.h - StridedSlice's index arithmetic, shared by its
 * shape function and its kernel: the sparse spec (begin, end, strides and
 * the five masks) expanded against the input shape into a dense per-dim
 * slice, the processing shape and the final shape, with TensorFlow's
 * messages.
 */
#ifndef TFS_OPS_STRIDED_SLICE_H
#define TFS_OPS_STRIDED_SLICE_H

#include "core/shape.h"
#include "core/status.h"
#include "core/tensor.h"

typedef struct tfs_sslice_masks {
  int64_t begin, end, ellipsis, new_axis, shrink_axis;
} tfs_sslice_masks;

typedef struct tfs_sslice {
  /* dense, one per input dim: canonical begin/end and stride */
  int64_t begin[TFS_MAX_RANK], end[TFS_MAX_RANK], stride[TFS_MAX_RANK];
  tfs_shape processing; /* per input dim: the slice length (-1 unknown) */
  tfs_shape final;      /* with new axes added and shrunk axes removed */
  int is_identity;      /* every dim whole, stride 1 */
} tfs_sslice;

/* begin / end may be NULL (unknown values: shape inference); strides
 * must be known.  The vectors must be 1-D of equal length (checked by the
 * caller).  `in` may have unknown dims but must have known rank.
 * Returns 0, or -1 with INVALID_ARGUMENT. */
int tfs_sslice_compute(const tfs_tensor *begin, const tfs_tensor *end,
                       const tfs_tensor *strides, const tfs_shape *in,
                       const tfs_sslice_masks *m, tfs_sslice *out,
                       tfs_status *st);

/* tfs_sslice_compute for a kernel's known begin, end and strides, after
 * the check TensorFlow's kernels make first: INVALID_ARGUMENT "Expected
 * begin, end, and strides to be 1D equal size tensors, but got shapes A,
 * B, and C instead." */
int tfs_sslice_compute_run(const tfs_tensor *begin, const tfs_tensor *end,
                           const tfs_tensor *strides, const tfs_shape *in,
                           const tfs_sslice_masks *m, tfs_sslice *out,
                           tfs_status *st);

#endif
