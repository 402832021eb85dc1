/*
 * backends/backends.h - the backends this build has, as the layers
 * below see them: the kernel registry reads their kernel tables, the
 * device set their device types (both declared in the layer that reads
 * them: kernels/kernel.h, device/device.h), and the session sets them up.
 */
#ifndef TFS_BACKENDS_BACKENDS_H
#define TFS_BACKENDS_BACKENDS_H

/* Sets every backend up once per process (idempotent, thread-safe).
 * Sessions call it when they are created. */
void tfs_backends_init(void);

/* What the backends compute with, for logs (the CPU's GEMM path); a
 * static string. */
const char *tfs_backends_describe(void);

#endif
