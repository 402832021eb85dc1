/*
 * ops/reduce_check.h - the reductions' (Sum, Mean, Max, Min, Prod, All,
 * Any) runtime check of their reduction axes and their output shape with
 * keep_dims, with TensorFlow's messages; called by the CPU and the CUDA
 * kernels alike.
 */
#ifndef TFS_OPS_REDUCE_CHECK_H
#define TFS_OPS_REDUCE_CHECK_H

#include <stdint.h>

#include "core/shape.h"
#include "core/status.h"
#include "core/tensor.h"

/* Checks the values of `axes` (int32 or int64, any rank; each in
 * [-rank, rank) of `in`, none repeated once made non-negative) and sets
 * reduced[d] to 1 for every reduced dim d of `in`, 0 for the others
 * (reduced holds TFS_MAX_RANK entries).  The output shape into out: the
 * kept dims, and 1 for each reduced dim when keep_dims.  Returns 0, or -1
 * with INVALID_ARGUMENT in st (TensorFlow's ReductionHelper):
 *   "Invalid reduction dimension (2 for input with 2 dimension(s)"
 *   "Invalid reduction arguments: Axes contains duplicate dimension: 1" */
int tfs_reduce_check(const tfs_shape *in, const tfs_tensor *axes,
                     int keep_dims, uint8_t *reduced, tfs_shape *out,
                     tfs_status *st);

#endif
