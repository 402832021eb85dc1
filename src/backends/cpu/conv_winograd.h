/*
 * backends/cpu/conv_winograd.h - float 3x3, stride-1, undilated,
 * ungrouped NHWC convolutions by Winograd's minimal filtering (Lavin and
 * Gray, 2015), F(2x2, 3x3) or F(4x4, 3x3): each 2x2 (4x4) block of
 * output pixels comes from a 4x4 (6x6) input tile through 16 (36)
 * products in the transform domain instead of 36 (144), so the channel
 * products do 2.25x (4x) fewer multiply-adds than the direct
 * convolution.
 *
 * The filter is transformed (U = G g G^T, in double, rounded once) and
 * packed for the GEMM once, at prepare, when it is a constant, for the
 * tile tfs_wino_pick_tile chooses from the input's static shape: F(4x4)
 * where the batch holds enough output tiles to use its 36 matrices of
 * weights (4x the filter's size; F(2x2): 1.8x), else F(2x2); where the
 * shape was not known enough to tell, each call by its own (the F(4x4)
 * filter then made at the first call that wants it).  A run cuts
 * the output into strips of one tile's rows; for a block of strips the
 * input tiles are transformed (V = B^T d B) into matrices of tiles x
 * input channels, each multiplied by its packed U on the project's GEMM
 * (the indirect micro-kernels read V where it lies), and the products
 * are transformed back (Y = A^T M A) with the bias and Relu / Relu6
 * applied as the pixels are stored; other epilogues run per finished
 * strip.  The transforms are AVX-512 or AVX2 over 16 or 8 channels at a
 * time, or portable C with the same operations in the same order (the
 * same bits; F(4x4)'s in conv_winograd4.c).  Blocks are split over the
 * intra-op pool; a single block (batch 1) splits its phases over it.
 *
 * Error: against a float64 direct convolution, relative to each output's
 * sum |x| |w| over its window, at most 1.1e-7 for F(2x2, 3x3) and 2.3e-6
 * for F(4x4, 3x3) in tests/kernels/test_conv_winograd.c, where the
 * direct float32 path reaches 2.5e-7 (F(4x4)'s transforms scale by up to
 * 8 and 1/24; the whole of ResNet50's output stays within 1.1e-6 of
 * TensorFlow's).  An input of +-Inf can give NaN where the direct sum
 * gives +-Inf (Inf - Inf in the transforms), and sums near FLT_MAX can
 * overflow in the transforms first.  A NaN input stays in the windows it
 * lies in with F(2x2); with F(4x4) it also reaches the other outputs of
 * the tiles whose input holds it.
 *
 * TFS_CONV_WINOGRAD=0 in the environment (read once) or
 * tfs_conv__set_winograd(0) turns the path off.
 */
#ifndef TFS_BACKENDS_CPU_CONV_WINOGRAD_H
#define TFS_BACKENDS_CPU_CONV_WINOGRAD_H

#include "backends/cpu/conv_common.h"

/* A filter transformed and packed for the 16 products. */
typedef struct tfs_wino_filter tfs_wino_filter;

/* Whether the path is on: TFS_CONV_WINOGRAD (unset or anything but "0":
 * on), unless tfs_conv__set_winograd overrides it.  Thread-safe. */
int tfs_conv_winograd_on(void);

/* Tests and benchmarks: 1 or 0 forces the path on or off (for filters
 * prepared while it is on); -1 returns to the environment's answer. */
void tfs_conv__set_winograd(int on);

/* Tests: how many convolutions ran on the path in this process, and how
 * many of them with F(4x4, 3x3). */
int64_t tfs_conv__winograd_calls(void);
int64_t tfs_conv__winograd4_calls(void);

/* Whether a constant filter [kh, kw, kc, kn] of a Conv2D with window w
 * and input depth c should be transformed at prepare: 3x3, strides and
 * dilations 1, one group, and enough channels for the transforms to pay
 * (kc >= 24 and kn >= 24), with the path on. */
int tfs_wino_filter_fits(const tfs_window *w, int64_t c, int64_t kh,
                         int64_t kw, int64_t kc, int64_t kn);

/* Whether this call's geometry runs on the path: a filter that fits,
 * output at least 4x4 pixels, and the path on. */
int tfs_wino_fits(const conv_geom *g);

/* The output tile for a filter prepared for input `in` (its static
 * shape; unknown dimensions are -1): 4, F(4x4, 3x3), when the height
 * and width are both known and the batch (1 when unknown) holds at
 * least 40 tiles of 4x4 pixels of that size; else 2, F(2x2, 3x3).
 * tfs_conv__set_winograd_tile overrides it.  Thread-safe. */
int tfs_wino_pick_tile(const tfs_window *w, const tfs_shape *in);

/* Whether a filter given F(2x2) by tfs_wino_pick_tile for input `in`
 * leaves the tile to each call: the batch, height or width is unknown at
 * prepare and no tile is forced.  Such a call takes tfs_wino_call_tile's
 * tile, F(4x4) with a filter transformed at the first call that wants it
 * (tfs_conv_wino_for).  Thread-safe. */
int tfs_wino_tile_open(const tfs_window *w, const tfs_shape *in);

/* tfs_wino_pick_tile's rule on a call's actual geometry: 4 when its batch
 * holds at least 40 tiles of 4x4 pixels of the input's size, else 2. */
int tfs_wino_call_tile(const conv_geom *g);

/* Tests and benchmarks: 2 or 4 makes every filter prepared from now on
 * use that tile; anything else returns to tfs_wino_pick_tile's rule. */
void tfs_conv__set_winograd_tile(int tile);

/* Tests: the bytes of V and M a block of strips may take (0: the
 * default, 2 MiB), read by each call from now on.  Thread-safe. */
void tfs_conv__set_winograd_block_bytes(int64_t bytes);

/* Tests: the blocks and slots of the last call (*nslots 1: the blocks
 * one after the other, each split over the pool phase by phase; more:
 * that many threads, each its own blocks).  Thread-safe; with calls on
 * several threads, one of them. */
void tfs_conv__winograd_last_split(int64_t *nblocks, int64_t *nslots);

/* Transforms and packs filter f (HWIO, [3, 3, c, kn], row-major) for
 * output tiles of `tile` (2 or 4; anything else is 2) pixels a side.
 * Returns NULL when memory runs out. */
tfs_wino_filter *tfs_wino_filter_new(const float *f, int64_t c, int64_t kn,
                                     int tile);
void tfs_wino_filter_free(tfs_wino_filter *wf);
/* The input depth wf was made for, and its output tile (2 or 4). */
int64_t tfs_wino_filter_c(const tfs_wino_filter *wf);
int tfs_wino_filter_tile(const tfs_wino_filter *wf);

/* out[n * oh * ow, kn] = conv(in NHWC) for a geometry tfs_wino_fits
 * accepts and a filter made for its depths, split over the kernel's
 * intra-op pool; bias (kn values, or NULL) and the activation relu
 * (TFS_STORE_* of store_act.h: none, Relu, Relu6 or hard-swish) are
 * applied as pixels are stored, then done (or NULL) receives
 * each finished strip of whole output rows (all kn channels).  Returns 0,
 * or -1 after failing c when memory runs out. */
int tfs_wino_conv_f32(tfs_kernel_ctx *c, const conv_geom *g, const float *in,
                      const tfs_wino_filter *wf, float *out,
                      const float *bias, int relu, tfs_conv_done_fn done,
                      void *done_arg);

#endif
