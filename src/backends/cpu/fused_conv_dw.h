/*
 * backends/cpu/fused_conv_dw.h - the test hooks of the
 * _TfsFusedConv2DDepthwise and _TfsFusedConv2DDepthwiseConv2D kernels
 * (fused_conv_dw.c) and of _TfsFusedDepthwiseConv2DConv2D
 * (fused_dw_pw.c).
 */
#ifndef TFS_BACKENDS_CPU_FUSED_CONV_DW_H
#define TFS_BACKENDS_CPU_FUSED_CONV_DW_H

#include <stdint.h>

/* Tests: the size of the tile of convolution rows each task fills before
 * its band of depthwise rows (bytes; 0 or less: the default, 256 KiB),
 * which sets how many bands an image has.  Returns the previous size.
 * Thread-safe; calls already running keep theirs. */
int64_t tfs_fused_conv_dw__set_tile_bytes(int64_t bytes);

/* Tests: how many calls in this process took the two ops by channels,
 * each thread a share of the channels of both (fewer images than
 * threads, a share of the expanded map within a tile). */
int64_t tfs_fused_conv_dw__cols_calls(void);

/* Tests: how many bfloat16 calls in this process ran in bands of rows on
 * the bfloat16 GEMM (a filter packed at prepare for a dot-product
 * family, bands enough for the threads); the others run the two ops one
 * after the other. */
int64_t tfs_fused_conv_dw__bf16_band_calls(void);

/* Tests: the tile of depthwise rows each band of
 * _TfsFusedDepthwiseConv2DConv2D fills before its projection (bytes; 0
 * or less: the default, 128 KiB).  Returns the previous size.
 * Thread-safe; calls already running keep theirs. */
int64_t tfs_fused_dw_pw__set_tile_bytes(int64_t bytes);

#endif
