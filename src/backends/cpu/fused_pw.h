/*
 * backends/cpu/fused_pw.h - the pointwise projection that ends
 * _TfsFusedConv2DDepthwiseConv2D and _TfsFusedDepthwiseConv2DConv2D
 * (fused_conv_dw.c, fused_dw_pw.c): a 1x1 stride-1 convolution of the
 * depthwise output with its bias [+ the residual addend] added as the
 * GEMM stores its tiles, as _FusedConv2D's 1x1 path (tfs_conv_f32_gemm)
 * adds them, either band by band from a tile of depthwise rows or apart
 * over the whole depthwise output.  Internal to the CPU backend.
 */
#ifndef TFS_BACKENDS_CPU_FUSED_PW_H
#define TFS_BACKENDS_CPU_FUSED_PW_H

#include <stdint.h>

#include "backends/cpu/conv_common.h"
#include "backends/cpu/conv_depthwise.h"
#include "backends/cpu/fused_epilogue.h"
#include "backends/cpu/gemm.h"
#include "kernels/kernel.h"

/* What prepare fixes: the residual sum (pw_fused_ops ["BiasAdd", "Add"]),
 * the 1x1 window, the constant filter packed once (NULL: fed). */
typedef struct tfs_fused_pw_state {
  int add;
  tfs_window w;
  tfs_gemm_packed *packed;
} tfs_fused_pw_state;

/* One call's projection. */
typedef struct tfs_fused_pw {
  const tfs_gemm_packed *b;     /* the filter packed at prepare, or NULL */
  const float *filt;            /* the filter [1, 1, k, n] */
  const float *bias, *add;      /* add: laid out as out, or NULL */
  float *out;                   /* the op's output */
  int64_t k, n;                 /* depth in, depth out */
} tfs_fused_pw;

/* Parses pw_fused_ops (["BiasAdd"] with num_pw_args 0, or ["BiasAdd",
 * "Add"] with 1) and packs input `filter_input` (pw_filter) when it is a
 * constant 1x1 float filter; the op has filter_input + 2 + num_pw_args
 * inputs.  Returns 0, or -1 after failing ki (UNIMPLEMENTED for other
 * fused ops, RESOURCE_EXHAUSTED).  s is released by tfs_fused_pw_clear
 * either way. */
int tfs_fused_pw_prepare(tfs_kernel_init *ki, int filter_input,
                         tfs_fused_pw_state *s);
void tfs_fused_pw_clear(tfs_fused_pw_state *s);

/* The projection's checks as _FusedConv2D makes them on the depthwise
 * output's shape `mid` (pw_filter a 1x1 filter over its channels,
 * pw_bias, the addend of the output's shape), then the output, g (the
 * projection's geometry) and pw.  NULL when c failed or the output has
 * no elements. */
tfs_tensor *tfs_fused_pw_begin(tfs_kernel_ctx *c, const tfs_fused_pw_state *s,
                               int filter_input, const tfs_shape *mid,
                               conv_geom *g, tfs_fused_pw *pw);

/* Whether bands can project their own rows: the filter packed for a
 * family with indirect kernels, and more than four output pixels (the
 * apart path's thin product below that). */
int tfs_fused_pw_bands_ok(const tfs_fused_pw *pw, int64_t pixels);

/* Output pixels [p0, p0 + npix) (counted over the batch) from `rows`,
 * their npix depthwise pixels of k channels, on this thread.  Needs
 * tfs_fused_pw_bands_ok.  Returns 0, or -1 when the kernels cannot take
 * the filter. */
int tfs_fused_pw_rows(const tfs_fused_pw *pw, const float *rows, int64_t p0,
                      int64_t npix);

/* The projection of the whole depthwise output `mid` over the pool, as
 * _FusedConv2D runs it.  Returns 0, or -1 after failing c. */
int tfs_fused_pw_apart(tfs_kernel_ctx *c, const tfs_fused_pw_state *s,
                       const conv_geom *g, const float *mid,
                       const tfs_fused_pw *pw);

/* The depthwise convolution of a fused op: its window and its epilogue
 * (a bias [+ activation]) parsed from the op's dw_ attributes as
 * _FusedDepthwiseConv2dNative's.  Returns 0, or -1 after failing ki. */
int tfs_fused_dw_prepare(tfs_kernel_init *ki, tfs_window *w,
                         tfs_fused_epilogue *e);

/* The activation the depthwise rows apply as they store (Relu, Relu6,
 * hard-swish: TFS_DW_ACT_*), else TFS_DW_ACT_NONE (applied after the
 * rows). */
static inline int tfs_dw_store_act(const tfs_fused_epilogue *e) {
  return e->act == TFS_FA_RELU         ? TFS_DW_ACT_RELU
         : e->act == TFS_FA_RELU6      ? TFS_DW_ACT_RELU6
         : e->act == TFS_FA_HARD_SWISH ? TFS_DW_ACT_HARD_SWISH
                                       : TFS_DW_ACT_NONE;
}

/* Tests: how many projections in this process ran apart (no bands for
 * the threads, a fed filter, a CPU without the indirect kernels, at most
 * four pixels); the others project each band's depthwise rows as the
 * band finishes them. */
int64_t tfs_fused_pw__apart_calls(void);

#endif
