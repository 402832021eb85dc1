/*
 * backends/cpu/tensor_array.h - the CPU kernels of TF1 TensorArrays
 * (tensor_array.c), for the backend's list of kernel tables.
 */
#ifndef TFS_BACKENDS_CPU_TENSOR_ARRAY_H
#define TFS_BACKENDS_CPU_TENSOR_ARRAY_H

#include "kernels/kernel.h"

/* TensorArrayV3 and the ops on its handle; ends with an entry whose op is
 * NULL. */
extern const tfs_kernel_def tfs_cpu_kernels_tensor_array[];

#endif
