/*
 * backends/cpu/lrn.h - the attrs LRN and LRNGrad share: one prepare reads
 * and checks them for both kernels.
 */
#ifndef TFS_BACKENDS_CPU_LRN_H
#define TFS_BACKENDS_CPU_LRN_H

#include <stdint.h>

#include "kernels/kernel.h"

typedef struct tfs_lrn_state {
  int64_t radius;
  float bias, alpha, beta;
} tfs_lrn_state;

/* Reads depth_radius, bias, alpha and beta (TensorFlow's defaults 5, 1,
 * 1, 0.5) into a new tfs_lrn_state set as ki->state (freed with free).
 * INVALID_ARGUMENT "depth_radius = N larger than int max". */
int tfs_lrn_prepare(tfs_kernel_init *ki);

#endif
