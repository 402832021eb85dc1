/*
 * backends/cpu/pool.h - max pooling for other CPU kernels (the fused
 * convolution + pool pools its tiles with it).
 */
#ifndef TFS_BACKENDS_CPU_POOL_H
#define TFS_BACKENDS_CPU_POOL_H

#include <stdint.h>

/* MaxPool of one NHWC float image (h x w x c) with VALID windows kh x
 * kw and strides sh x sw into out (((h - kh) / sh + 1) x ((w - kw) / sw
 * + 1) x c; nothing when a window does not fit): MaxPool's rules (x > acc
 * from the lowest float, so a NaN never wins), AVX2 when the CPU has it.
 * Thread-safe; no allocation. */
void tfs_maxpool_f32_valid(const float *in, int64_t h, int64_t w, int64_t c,
                           int64_t kh, int64_t kw, int64_t sh, int64_t sw,
                           float *out);

#endif
