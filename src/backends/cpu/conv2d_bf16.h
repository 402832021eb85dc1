/*
 * backends/cpu/conv2d_bf16.h - Conv2D in bfloat16 on the bfloat16 GEMM's
 * dot-product families (AMX, vdpbf16ps), for conv2d.c.
 */
#ifndef TFS_BACKENDS_CPU_CONV2D_BF16_H
#define TFS_BACKENDS_CPU_CONV2D_BF16_H

#include "backends/cpu/conv_common.h"
#include "backends/cpu/gemm.h"

/* 1 when a bfloat16 convolution of g (NCHW when nchw) runs here rather
 * than widened to float32: NHWC, and a dot-product family in force. */
int tfs_conv2d_bf16_usable(const conv_geom *g, int nchw);

/* The constant HWIO bfloat16 filter f packed as the GEMM's [kh * kw * kc,
 * kn] B for the family in force, or NULL (no family, or out of memory:
 * the run then packs per call or widens).  Caller frees with
 * tfs_gemm_packed_bf16_free. */
tfs_gemm_packed_bf16 *tfs_conv2d_bf16_pack(const tfs_tensor *f);

/* out[n, oh, ow, kn] (bfloat16, NHWC) = conv(in, filt) for g, with float32
 * sums rounded once; `packed` is filt packed by tfs_conv2d_bf16_pack (used
 * when g has one group) or NULL.  Splits over c's intra-op pool.
 * Returns 0, or -1 when memory runs out (c has then failed). */
int tfs_conv2d_bf16(tfs_kernel_ctx *c, const conv_geom *g, const void *in,
                    const void *filt, const tfs_gemm_packed_bf16 *packed,
                    void *out);

/* Tests: how many convolutions tfs_conv2d_bf16 has run in this process. */
int64_t tfs_conv2d_bf16__calls(void);

#endif
