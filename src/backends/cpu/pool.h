/*
 * backends/cpu/pool.h - max pooling for other CPU kernels (the fused
 * convolution + pool pools its tiles with it) and the window checks the
 * pooling kernels share.
 */
#ifndef TFS_BACKENDS_CPU_POOL_H
#define TFS_BACKENDS_CPU_POOL_H

#include <stdint.h>

#include "core/status.h"
#include "ops/nn_window.h"

/* MaxPool of one NHWC float image (h x w x c) with VALID windows kh x
 * kw and strides sh x sw into out (((h - kh) / sh + 1) x ((w - kw) / sw
 * + 1) x c; nothing when a window does not fit): MaxPool's rules (x > acc
 * from the lowest float, so a NaN never wins), AVX2 when the CPU has it.
 * Thread-safe; no allocation. */
void tfs_maxpool_f32_valid(const float *in, int64_t h, int64_t w, int64_t c,
                           int64_t kh, int64_t kw, int64_t sh, int64_t sw,
                           float *out);

/* The checks TensorFlow's MaxPool and AvgPool kernels (is_max: MaxPool's
 * wording) make on a 4-D window before seeing the input, MaxPoolV2's at
 * run time (v2: its wording): positive sizes, nothing pooled over the
 * batch, depth or space but not both, explicit padding smaller than the
 * window.  Returns 0, or -1 with the code (INVALID_ARGUMENT or
 * UNIMPLEMENTED) and TensorFlow's message in st. */
int tfs_pool_check_window(const tfs_window *w, int is_max, int v2,
                          tfs_status *st);

/* Pooling across depth (window dwin > 1, stride dstride) over `depth`
 * channels: "Depthwise max pooling requires the depth window to evenly
 * divide the input depth", "... to equal the depth stride", and for
 * average pooling "Non-spatial pooling is not yet supported.  Volunteers?
 * :)".  Returns 0, or -1 with UNIMPLEMENTED in st. */
int tfs_pool_check_depth(int64_t depth, int64_t dwin, int64_t dstride,
                         int is_max, tfs_status *st);

#endif
