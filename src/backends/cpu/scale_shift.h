/*
 * backends/cpu/scale_shift.h - y = act(x * scale + offset) over rows of d
 * channels (scale_shift.c), the kernel of _TfsScaleShift.
 */
#ifndef TFS_BACKENDS_CPU_SCALE_SHIFT_H
#define TFS_BACKENDS_CPU_SCALE_SHIFT_H

#include <stdint.h>

#include "kernels/kernel.h"

enum { TFS_SS_IDENTITY, TFS_SS_RELU, TFS_SS_RELU6 };

/* y[r * d + j] = act(x[r * d + j] * scale[j] + offset[j]) for r < nrows,
 * j < d, the product rounded before the sum (the bits of Mul then AddV2);
 * act TFS_SS_*, NaN passed through.  x == y is allowed.  AVX-512, AVX2
 * or portable C by tfs_cpu_has (tfs_cpu__set_max_isa forces a lower
 * one).  Thread-safe. */
void tfs_scale_shift_f32(int act, const float *x, float *y, int64_t nrows,
                         int64_t d, const float *scale, const float *offset);

/* TFS_SS_* of an activation attribute value ("Identity", "Relu",
 * "Relu6"), -1 for anything else. */
int tfs_scale_shift_act(const char *name);

/* The inputs of a kernel taking (x, scale, offset) with scale and offset
 * along x's last dimension (_TfsScaleShift, _TfsLayerNorm): x at least
 * 1-D, scale and offset of that many elements.  Returns that dimension,
 * or -1 after failing c with INVALID_ARGUMENT naming the sizes. */
int64_t tfs_channel_vectors_check(tfs_kernel_ctx *c);

#endif
