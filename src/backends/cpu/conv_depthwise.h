/*
 * backends/cpu/conv_depthwise.h - the float depthwise convolution that
 * DepthwiseConv2dNative and _FusedDepthwiseConv2dNative share: NHWC
 * input, filter [kh, kw, c, multiplier], NHWC output, vectorized over
 * output channels on AVX-512 and AVX2 (conv_depthwise_avx512.c,
 * conv_depthwise_avx2.c), portable C elsewhere.
 */
#ifndef TFS_BACKENDS_CPU_CONV_DEPTHWISE_H
#define TFS_BACKENDS_CPU_CONV_DEPTHWISE_H

#include <stdint.h>

#include "backends/cpu/conv_common.h"

struct tfs_threadpool;

/* Called once per finished part of the output: channels [c0, c0 + nc)
 * of the ow pixels of one output row, whose first channel is at `row`
 * (pixel i, channel c0 + j at row[i * oc + c0 + j]).  Runs on the pool
 * thread that computed the part, concurrently for disjoint parts. */
typedef void (*tfs_dw_done_fn)(void *arg, float *row, int64_t c0,
                               int64_t nc);

/* The activations tfs_dw_f32 applies as it stores: none, Relu, Relu6
 * (the fused epilogue's formulas: NaN stays NaN, -0 becomes +0) and
 * hard-swish (store_act.h's tfs_hard_swish1, the same steps as the fused
 * epilogue's). */
enum {
  TFS_DW_ACT_NONE,
  TFS_DW_ACT_RELU,
  TFS_DW_ACT_RELU6,
  TFS_DW_ACT_HARD_SWISH
};

/* What each output element gets before it is stored: bias[channel]
 * added when bias is not NULL, then act (TFS_DW_ACT_*), each rounded to
 * float as BiasAdd and the activation op would. */
typedef struct tfs_dw_epilogue {
  const float *bias;
  int act;
} tfs_dw_epilogue;

/* out[n, oh, ow, c * kn] = the depthwise convolution of in[n, h, w, c]
 * with filt[kh, kw, c, kn] (g's geometry, from tfs_conv_check_inputs),
 * then ep (NULL: nothing) applied to every element as it is stored:
 * every output element is written, the epilogue of zero where a window
 * lies wholly in padding.  Split over output rows (and channel blocks
 * when there are few rows) on `pool` (NULL: this thread); done, when not
 * NULL, sees each finished part.  The vector path is chosen per call
 * from tfs_cpu_has.  Returns 0, or -1 when memory for the multiplier's
 * lane table runs out (nothing written then).  Does not take ownership
 * of any argument. */
int tfs_dw_f32(const conv_geom *g, const float *in, const float *filt,
               float *out, const tfs_dw_epilogue *ep, tfs_dw_done_fn done,
               void *done_arg, struct tfs_threadpool *pool);

/* Output channels [c0, c1) of every output row of tfs_dw_f32's
 * convolution, on this thread, with its bits; done as there.  c0 must be
 * a multiple of 16 (where the vector rows of every width start a block).
 * Returns 0, or -1 when c0 is not or c1 is past the channels (nothing
 * written), or memory for the lane table runs out. */
int tfs_dw_f32_cols(const conv_geom *g, const float *in, const float *filt,
                    float *out, const tfs_dw_epilogue *ep, int64_t c0,
                    int64_t c1, tfs_dw_done_fn done, void *done_arg);

/* Output rows [oy0, oy1) of one image of tfs_dw_f32's convolution, on
 * this thread, from a band of its input: in holds input rows [lo, lo +
 * nrows) of the image (NHWC, g->w pixels of g->c channels a row), and
 * every row those output rows read is in the band or outside the image
 * (padding); out is the image's output (row oy at out + oy * ow * oc).
 * g is the whole convolution's geometry.  The bits of tfs_dw_f32.
 * Returns 0, or -1 when memory for the lane table runs out. */
int tfs_dw_f32_band(const conv_geom *g, const float *in, int64_t lo,
                    int64_t nrows, const float *filt, float *out,
                    const tfs_dw_epilogue *ep, int64_t oy0, int64_t oy1);

/* The input rows [*lo, *hi) that output rows [oy0, oy1) of g read,
 * within the image. */
static inline void tfs_dw_band_input(const conv_geom *g, int64_t oy0,
                                     int64_t oy1, int64_t *lo, int64_t *hi) {
  int64_t l = oy0 * g->sh - g->pt;
  int64_t h = (oy1 - 1) * g->sh - g->pt + (g->kh - 1) * g->dh + 1;
  if (l < 0) l = 0;
  if (h > g->h) h = g->h;
  if (h < l) h = l;
  *lo = l;
  *hi = h;
}

/* tfs_dw_f32_band with output row oy0 at `rows` (the band's rows one
 * after the other, ow * oc floats each) instead of in the image's
 * output: the same bits. */
int tfs_dw_f32_band_rows(const conv_geom *g, const float *in, int64_t lo,
                         int64_t nrows, const float *filt, float *rows,
                         const tfs_dw_epilogue *ep, int64_t oy0,
                         int64_t oy1);

/* Called on a finished block of a bfloat16 depthwise convolution's
 * output before it is rounded: npix output pixels of oc channels each,
 * contiguous floats (the epilogue's bias and store activation already
 * in), which it may rewrite; on the thread that computed them. */
typedef void (*tfs_dw16_after_fn)(void *arg, float *rows, int64_t npix);

/* tfs_dw_f32's convolution on bfloat16 in and out (conv_depthwise_bf16.c):
 * a float filter, the float computation and epilogue ep (NULL: none),
 * then after (NULL: nothing) and one rounding of each output element;
 * the input is widened a band of rows at a time in each task's own
 * buffer, never as a whole copy.  Split over output rows on `pool`
 * (NULL: this thread).  Returns 0, or -1 when memory runs out (the
 * output then partly written). */
int tfs_dw_bf16(const conv_geom *g, const uint16_t *in, const float *filt,
                uint16_t *out, const tfs_dw_epilogue *ep,
                tfs_dw16_after_fn after, void *after_arg,
                struct tfs_threadpool *pool);

/* Output rows [oy0, oy1) of one image of tfs_dw_bf16's convolution, on
 * this thread, from a float band of its input rows [lo, lo + nrows) (the
 * bfloat16 values widened, or a fused kernel's rows already rounded to
 * bfloat16): the float rows into block ((oy1 - oy0) * ow * oc floats),
 * then after (NULL: nothing), then one rounding of each element into out
 * (the image's output, row oy at out + oy * ow * oc).  The bits of
 * tfs_dw_bf16.  Returns 0, or -1 when memory for the lane table runs
 * out. */
int tfs_dw_bf16_band(const conv_geom *g, const float *band, int64_t lo,
                     int64_t nrows, const float *filt,
                     const tfs_dw_epilogue *ep, tfs_dw16_after_fn after,
                     void *after_arg, float *block, uint16_t *out,
                     int64_t oy0, int64_t oy1);

/* ---- between conv_depthwise.c and its vector rows ---- */

/* Output channels [o0, o0 + VL) with a channel multiplier kn > 1 read
 * input channels ic0 + idx[i] (lane i); cnt input channels from ic0 are
 * inside the pixel (the rest of the load is masked off). */
typedef struct tfs_dw_block {
  int32_t ic0, cnt;
  uint8_t idx[16];
} tfs_dw_block;

/* One call's operands; blocks (one per VL output channels) only when
 * kn > 1; bias (NULL: none) and act (TFS_DW_ACT_*) from the epilogue. */
typedef struct tfs_dw_plan {
  const conv_geom *g;
  const float *in, *filt;
  float *out;
  const tfs_dw_block *blocks;
  const float *bias;
  int act;
} tfs_dw_plan;

/* Computes output row `row` (n * oh + oy) for channels [c0, c1); c0 is a
 * multiple of 16 and c1 is one too or the output depth. */
typedef void (*tfs_dw_row_fn)(const tfs_dw_plan *p, int64_t row, int64_t c0,
                              int64_t c1);

/* The AVX-512 (16 channels a vector) and AVX2 + FMA (8) rows; callers
 * check tfs_cpu_has first and build blocks for that vector length. */
void tfs_dw_row_avx512(const tfs_dw_plan *p, int64_t row, int64_t c0,
                       int64_t c1);
void tfs_dw_row_avx2(const tfs_dw_plan *p, int64_t row, int64_t c0,
                     int64_t c1);

#endif
