/*
 * backends/cpu/cpu_backend.h - the CPU backend's entry points for
 * src/backends/backends.c: its kernel tables, set-up and description.
 */
#ifndef TFS_BACKENDS_CPU_BACKEND_H
#define TFS_BACKENDS_CPU_BACKEND_H

#include "kernels/kernel.h"

/* Every CPU kernel table (each ends with an entry whose op is NULL), the
 * list ending with NULL. */
extern const tfs_kernel_def *const tfs_cpu_kernel_tables[];

/* Sets the backend up once per process (idempotent, thread-safe): the
 * GEMM's micro-kernel family for this CPU, OpenBLAS on one thread. */
void tfs_cpu_backend_init(void);

/* What the CPU backend computes with, for logs ("tfsess avx512 12x32
 * (OpenBLAS core ...)"); a static string. */
const char *tfs_cpu_backend_describe(void);

#endif
