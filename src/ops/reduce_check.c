/*
 * ops/reduce_check.c - the reductions' axes check and output shape
 * (TensorFlow's ReductionHelper::Simplify), shared by the CPU and the CUDA
 * kernels.
 */
#include "ops/reduce_check.h"

#include <string.h>

int tfs_reduce_check(const tfs_shape *in, const tfs_tensor *axes,
                     int keep_dims, uint8_t *reduced, tfs_shape *out,
                     tfs_status *st) {
  int r = in->rank;
  memset(reduced, 0, TFS_MAX_RANK);
  for (int64_t i = 0; i < axes->nelems; i++) {
    int64_t a = tfs_tensor__get_as_int64(axes, i);
    if (a < -r || a >= r) {
      tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                      "Invalid reduction dimension (%lld for input with %d "
                      "dimension(s)", (long long)a, r);
      return -1;
    }
    int64_t ca = a < 0 ? a + r : a;
    if (reduced[ca]) {
      tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                      "Invalid reduction arguments: Axes contains duplicate "
                      "dimension: %lld", (long long)ca);
      return -1;
    }
    reduced[ca] = 1;
  }
  out->rank = 0;
  for (int d = 0; d < r; d++) {
    if (!reduced[d])
      out->dims[out->rank++] = in->dims[d];
    else if (keep_dims)
      out->dims[out->rank++] = 1;
  }
  return 0;
}
