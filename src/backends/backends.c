/*
 * backends/backends.c - the list of the backends this build has: the
 * CPU always, CUDA in CUDA builds.  Adding a backend means adding its
 * kernel tables and device type here; nothing below this layer names a
 * backend.
 */
#include "backends/backends.h"

#include <stddef.h>

#include "backends/cpu/cpu_backend.h"
#include "device/device.h"
#include "kernels/kernel.h"
#include "tfs_config.h"
#ifdef TFS_HAVE_CUDA
#include "backends/cuda/cuda_device.h"
#include "backends/cuda/cuda_tables.h"

static const tfs_kernel_def *const kCudaTables[] = {TFS_CUDA_KERNEL_TABLES,
                                                    NULL};
#endif

const tfs_kernel_def *const *const tfs_backend_kernel_lists[] = {
    tfs_cpu_kernel_tables,
#ifdef TFS_HAVE_CUDA
    kCudaTables,
#endif
    NULL,
};

const tfs_device_type *const tfs_backend_device_types[] = {
#ifdef TFS_HAVE_CUDA
    &tfs_cuda_device_type,
#endif
    NULL,
};

void tfs_backends_init(void) { tfs_cpu_backend_init(); }

const char *tfs_backends_describe(void) { return tfs_cpu_backend_describe(); }
