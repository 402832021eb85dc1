/*
 * kernels/cpu/cpu_tables.h - the CPU kernel tables, one per file; each
 * ends with an entry whose op is NULL.  Listed in kernel_registry.c.
 */
#ifndef TFS_KERNELS_CPU_TABLES_H
#define TFS_KERNELS_CPU_TABLES_H

#include "kernels/kernel.h"

extern const tfs_kernel_def tfs_cpu_kernels_array[];
extern const tfs_kernel_def tfs_cpu_kernels_binary[];
extern const tfs_kernel_def tfs_cpu_kernels_unary[];
extern const tfs_kernel_def tfs_cpu_kernels_matmul[];
extern const tfs_kernel_def tfs_cpu_kernels_reduce[];
extern const tfs_kernel_def tfs_cpu_kernels_nn[];
extern const tfs_kernel_def tfs_cpu_kernels_cast[];
extern const tfs_kernel_def tfs_cpu_kernels_state[];
extern const tfs_kernel_def tfs_cpu_kernels_logging[];

#endif
