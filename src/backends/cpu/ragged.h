/*
 * backends/cpu/ragged.h - what the ragged-tensor kernels share
 * (ragged.c, ragged_to_tensor.c).
 */
#ifndef TFS_BACKENDS_CPU_RAGGED_H
#define TFS_BACKENDS_CPU_RAGGED_H

#include "kernels/kernel.h"

/* Element i of an int32 or int64 tensor (splits, row ids, indices). */
int64_t tfs_ragged__at(const tfs_tensor *t, int64_t i);

/* RaggedTensorToTensor: prepare reads row_partition_types into the
 * kernel's state (freed with tfs_free); compute pads the rows. */
int tfs_ragged__to_tensor_prepare(tfs_kernel_init *ki);
void tfs_ragged__to_tensor_compute(tfs_kernel_ctx *c);

#endif
