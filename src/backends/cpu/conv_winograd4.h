/*
 * backends/cpu/conv_winograd4.h - the tile transforms of Winograd
 * F(4x4, 3x3) for conv_winograd.c: each 4x4 block of output pixels comes
 * from a 6x6 input tile through 36 products in the transform domain
 * instead of 144 (4x fewer; F(2x2, 3x3): 2.25x).
 */
#ifndef TFS_BACKENDS_CPU_CONV_WINOGRAD4_H
#define TFS_BACKENDS_CPU_CONV_WINOGRAD4_H

#include <stdint.h>

/* Channels [0, nc) of the 36 pixels d[r * 6 + q] of a 6x6 input tile (a
 * zero row where the tile leaves the image) to V = B^T d B, position p
 * (0..35, row-major) at v + p * ldv.  simd: 2 AVX-512, 1 AVX2, 0
 * portable; every level gives the same bits.  The caller checks the CPU
 * has the level.  Thread-safe (no state). */
void tfs_wino4__in(int simd, const float *const *d, int64_t nc, float *v,
                   int64_t ldv);

/* Channels [0, nc) of the 36 products m + p * ldm to Y = A^T M A, the
 * 4x4 pixels y[i * 4 + q] (NULL past the output's edge), with bias (nc
 * values, or NULL) added and the activation relu (TFS_STORE_* of
 * store_act.h) applied as they are stored.  simd as above. */
void tfs_wino4__out(int simd, const float *m, int64_t ldm, int64_t nc,
                    float *const *y, const float *bias, int relu);

#endif
