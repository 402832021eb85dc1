/*
 * backends/cuda/cuda_tables.h - the GPU kernel tables for the registry
 * (kernel_registry.c lists them in CUDA builds).  No CUDA headers here, so
 * the registry compiles the same way with and without the toolkit.
 */
#ifndef TFS_BACKENDS_CUDA_CUDA_TABLES_H
#define TFS_BACKENDS_CUDA_CUDA_TABLES_H

#include "kernels/kernel.h"

extern const tfs_kernel_def tfs_cuda_kernels_math[];
extern const tfs_kernel_def tfs_cuda_kernels_reduce[];
extern const tfs_kernel_def tfs_cuda_kernels_array[];
extern const tfs_kernel_def tfs_cuda_kernels_blas[];
extern const tfs_kernel_def tfs_cuda_kernels_dnn[];

/* For the registry's table list. */
#define TFS_CUDA_KERNEL_TABLES                                          \
  tfs_cuda_kernels_math, tfs_cuda_kernels_reduce, tfs_cuda_kernels_array, \
      tfs_cuda_kernels_blas, tfs_cuda_kernels_dnn

#endif
