/*
 * backends/cuda/cuda_kernels.h - what the host side of the CUDA kernels
 * shares: binding a kernel's state to the GPU it was prepared for,
 * outputs in device memory, CUDA errors as kernel failures, dtype codes,
 * and the kernel tables (registered in kernel_registry.c in CUDA builds).
 */
#ifndef TFS_BACKENDS_CUDA_CUDA_KERNELS_H
#define TFS_BACKENDS_CUDA_CUDA_KERNELS_H

#include "backends/cuda/cuda_device.h"
#include "backends/cuda/cuda_launch.h"
#include "kernels/kernel.h"

/* Every CUDA kernel's prepared state starts with this. */
typedef struct tfs_cu_state {
  tfs_cuda_dev *dev;
  int op;      /* the launcher's op code (kernel data) */
  int type;    /* TFS_CU_* of the node's T */
  float alpha; /* LeakyRelu's slope */
} tfs_cu_state;

/* Static data of every CUDA kernel def: its launcher op code, when one
 * type attr cannot say it (Cast: SrcT and DstT) a check of the node's
 * attrs that the GPU device's kernel lookup applies, and dnn = 1 for a
 * kernel that calls cuDNN (offered only where cuDNN loads). */
typedef struct tfs_cu_kdata {
  int op;
  int (*accepts)(const tfs_attrs *attrs);
  int dnn;
} tfs_cu_kdata;

/* The TFS_CU_* code of dt, or -1. */
int tfs_cu__type(tfs_dtype dt);

/* The GPU the node was placed on (ki->device), or NULL after failing
 * prepare with INTERNAL when that is no GPU. */
tfs_cuda_dev *tfs_cu__bind(tfs_kernel_init *ki);

/* prepare for kernels whose state is a tfs_cu_state: binds the device,
 * takes op from kdata, type from the node's T (or the first input), and
 * LeakyRelu's alpha. */
int tfs_cu__prepare_basic(tfs_kernel_init *ki);
/* The same with a zeroed state of `size` bytes (a struct that starts with
 * a tfs_cu_state); released with free. */
int tfs_cu__prepare_sized(tfs_kernel_init *ki, size_t size);

/* Makes the device current for a compute call; 0 or -1 (failed c). */
int tfs_cu__enter(tfs_kernel_ctx *c, tfs_cuda_dev *d);

/* Output i with `shape` in d's memory, set on c; NULL after failing c
 * (TensorFlow's OOM message). */
tfs_tensor *tfs_cu__output(tfs_kernel_ctx *c, tfs_cuda_dev *d, int i,
                           const tfs_shape *shape);

/* After a launcher: 0 when err is 0, else -1 after failing c with
 * INTERNAL "<what> failed on <device>: <error name>: <string>". */
int tfs_cu__launched(tfs_kernel_ctx *c, tfs_cuda_dev *d, int err,
                     const char *what);

/* Fails c with the message in st (a helper's failure). */
void tfs_cu__fail_status(tfs_kernel_ctx *c, tfs_status *st);

/* The kernel tables (each ends with an entry whose op is NULL). */
#include "backends/cuda/cuda_tables.h"

/* The float dtypes the GPU computes on. */
#define TFS_CU_DT_FLOATS                                                   \
  (TFS_DT_BIT(TFS_FLOAT) | TFS_DT_BIT(TFS_DOUBLE) | TFS_DT_BIT(TFS_HALF) | \
   TFS_DT_BIT(TFS_BFLOAT16))

#endif
