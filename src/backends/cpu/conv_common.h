/*
 * backends/cpu/conv_common.h - what the convolution kernels (Conv2D,
 * DepthwiseConv2dNative and their gradients) share: their attrs parsed
 * once, the geometry of one call, layout changes between NCHW and NHWC,
 * 16-bit float conversions, and the NHWC im2col that feeds the GEMM.
 */
#ifndef TFS_BACKENDS_CPU_CONV_COMMON_H
#define TFS_BACKENDS_CPU_CONV_COMMON_H

#include "kernels/kernel.h"
#include "ops/conv2d_check.h"
#include "ops/nn_window.h"

/* Geometry of one 2-D convolution, always in NHWC terms; filled by
 * ops/conv2d_check.h (tfs_conv_geom_window, tfs_conv_geom_input,
 * tfs_conv2d_check). */
typedef tfs_conv_dims conv_geom;

/* Output spatial sizes and padding for input h, w and filter kh, kw
 * already in g; fails c with TensorFlow's message. */
int tfs_conv_geom_output(tfs_kernel_ctx *c, const tfs_window *w, conv_geom *g);

/* A 4-D shape (n, h, w, c) in `w`'s layout. */
void tfs_conv_shape(const tfs_window *w, int64_t n, int64_t h, int64_t wd,
                    int64_t c, tfs_shape *out);

/* NCHW <-> NHWC copies of elements of `esize` bytes. */
void tfs_conv_nchw_to_nhwc(const void *src, void *dst, int64_t n, int64_t c,
                           int64_t hw, size_t esize);
void tfs_conv_nhwc_to_nchw(const void *src, void *dst, int64_t n, int64_t hw,
                           int64_t c, size_t esize);

/* 16-bit floats (TFS_HALF, TFS_BFLOAT16) to and from float. */
void tfs_conv_to_float(const uint16_t *src, float *dst, int64_t n,
                       tfs_dtype dt);
void tfs_conv_from_float(const float *src, uint16_t *dst, int64_t n,
                         tfs_dtype dt);

/* Rows [r0, r1) of the NHWC patch matrix of group `grp` into `col`
 * (row-major, kh * kw * kc elements of `esize` bytes per row; zeros where
 * the window falls in padding).  Row r is output pixel r of the batch. */
void tfs_conv_im2col(const conv_geom *g, const void *in, size_t esize,
                     int64_t grp, int64_t r0, int64_t r1, void *col);

/* Rows per im2col block: bounds the scratch of one task. */
int64_t tfs_conv_block_rows(int64_t m, int64_t k, size_t esize);

/* C[m, n] = A[m, k] * op(B) with op(B) = B[k, n] or, when trans_b,
 * B[n, k] transposed; row-major with leading dimensions; C is
 * overwritten.  dt: TFS_FLOAT, TFS_DOUBLE (the shared GEMM, split over
 * `pool` when it is not NULL) or TFS_INT32 (wrapping, this thread). */
void tfs_conv_gemm_on(tfs_dtype dt, int trans_b, int64_t m, int64_t n,
                      int64_t k, const void *a, int64_t lda, const void *b,
                      int64_t ldb, void *c, int64_t ldc,
                      struct tfs_threadpool *pool);
/* The same on this thread only. */
void tfs_conv_gemm(tfs_dtype dt, int trans_b, int64_t m, int64_t n, int64_t k,
                   const void *a, int64_t lda, const void *b, int64_t ldb,
                   void *c, int64_t ldc);

/* ---- float convolutions as GEMMs with patches packed from the image
 * (conv_gemm.c) ---- */

struct tfs_gemm_packed;

/* An affine map on a convolution's input, applied as the input is read
 * (Keras's Rescaling before a model's first convolution, folded in by the
 * remapper): each element times scale, rounded, then plus shift,
 * rounded, as Mul then AddV2 compute them (never one fused multiply-add);
 * has_scale and has_shift say which of the two steps there are.  The
 * zero padding around the image is not mapped, as in the unfused graph,
 * where the convolution pads the mapped image. */
typedef struct tfs_conv_affine {
  float scale, shift;
  int has_scale, has_shift;
} tfs_conv_affine;

/* out[i] = a applied to in[i] for i < n (out may be in), on the vector
 * rows of _TfsScaleShift (AVX-512, AVX2 or portable by tfs_cpu_has). */
void tfs_conv_affine_f32(const tfs_conv_affine *a, const float *in,
                         float *out, int64_t n);

/* in mapped by a into kernel scratch of n floats, split over the
 * kernel's intra-op pool; NULL after failing c when memory runs out. */
const float *tfs_conv_affine_input(tfs_kernel_ctx *c,
                                   const tfs_conv_affine *a,
                                   const float *in, int64_t n);

/* Called once per finished block of the output: rows (output pixels)
 * [r0, r0 + mb) by output channels [c0, c0 + nb), on the thread that
 * computed it. */
typedef void (*tfs_conv_done_fn)(void *arg, int64_t r0, int64_t mb,
                                 int64_t c0, int64_t nb);

/* out[n * oh * ow, kn] = conv(in NHWC, filter HWIO) for every group, split
 * over the kernel's intra-op pool; `packed` holds the filter packed per
 * group (tfs_conv_packed_for) or is NULL, and then `filt` is packed for
 * this call.  aff (or NULL) maps the input as it is read: the zero-padded
 * copy of the image the indirect kernels read gets it for free, other
 * paths read a mapped copy.  bias (kn values, or NULL) is added, then
 * add (a residual addend laid out as out, or NULL), then the activation
 * relu (TFS_STORE_* of store_act.h: none, Relu, Relu6 or hard-swish) is
 * applied as tiles are stored (each step rounded, as BiasAdd, AddV2 and
 * the activation op), before done (which may be NULL) sees them.  Returns
 * 0, or -1 after failing c when memory runs out. */
int tfs_conv_f32_gemm(tfs_kernel_ctx *c, const conv_geom *g, const float *in,
                      const tfs_conv_affine *aff,
                      struct tfs_gemm_packed *const *packed,
                      const float *filt, float *out, const float *bias,
                      const float *add, int relu, tfs_conv_done_fn done,
                      void *done_arg);

/* The same in parts: a plan holds what every part shares (the padded
 * image, the filter packed for this call when `packed` is NULL);
 * tfs_conv_plan_rows computes output pixels [r0, r0 + mb) into out
 * (pixel r0 at row 0, leading dimension ldc), done receiving rows
 * relative to r0, split over pool (NULL: this thread).  A plan is
 * read-only once made: parts may run on several threads at once.  add
 * (or NULL) is the whole output's addend (leading dimension kn), which
 * tfs_conv_plan_rows then needs ldc to be.  tfs_conv_plan_new fails c and
 * returns NULL when memory runs out; tfs_conv_plan_rows returns -1 then
 * (c untouched), or for an ldc the addend does not have. */
typedef struct tfs_conv_plan tfs_conv_plan;
tfs_conv_plan *tfs_conv_plan_new(tfs_kernel_ctx *c, const conv_geom *g,
                                 const float *in, const tfs_conv_affine *aff,
                                 struct tfs_gemm_packed *const *packed,
                                 const float *filt, const float *bias,
                                 const float *add, int relu);
int tfs_conv_plan_rows(const tfs_conv_plan *p, int64_t r0, int64_t mb,
                       float *out, int64_t ldc, tfs_conv_done_fn done,
                       void *done_arg, struct tfs_threadpool *pool);
/* Output pixels [r0, r0 + mb) by output channels [c0, c0 + nc) into out
 * (pixel r0, channel 0 at out; leading dimension ldc), on this thread,
 * with the bits tfs_conv_plan_rows gives them; done as there (columns
 * counted from channel 0).  One group only, and c0 a multiple of the
 * packed filter's panel width (tfs_gemm_packed_nr).  Returns -1 (nothing
 * written) when those do not hold, the filter is not in panels, or
 * memory runs out. */
int tfs_conv_plan_cols(const tfs_conv_plan *p, int64_t r0, int64_t mb,
                       int64_t c0, int64_t nc, float *out, int64_t ldc,
                       tfs_conv_done_fn done, void *done_arg);
void tfs_conv_plan_free(tfs_conv_plan *p);

/* A constant filter (input 1) packed at prepare, one matrix per group. */
typedef struct tfs_conv_packed {
  struct tfs_gemm_packed **g;
  int64_t n, c; /* groups, and the input depth they assume */
  struct tfs_wino_filter *wino; /* 3x3 stride 1: conv_winograd.h, or NULL */
  int open;     /* wino is F(2x2) and calls may take F(4x4) (wino4) */
  struct tfs_wino_filter *_Atomic wino4; /* made at the first such call */
} tfs_conv_packed;

/* Packs input 1 when it is a constant 4-D filter and the input depth is
 * known (filter_f32: its float copy for 16-bit filters, else NULL);
 * leaves p empty otherwise.  Returns 0, or -1 when memory runs out (p is
 * then released with tfs_conv_packed_clear). */
int tfs_conv_packed_prepare(tfs_kernel_init *ki, const tfs_window *w,
                            const float *filter_f32, tfs_conv_packed *p);
void tfs_conv_packed_clear(tfs_conv_packed *p);
/* The packed groups when they fit this call's geometry, else NULL. */
struct tfs_gemm_packed *const *tfs_conv_packed_for(const tfs_conv_packed *p,
                                                   const conv_geom *g);
/* The Winograd filter when this call runs on that path
 * (conv_winograd.h's tfs_wino_fits), else NULL.  Where the tile was left
 * to each call (tfs_wino_tile_open) and this one wants F(4x4)
 * (tfs_wino_call_tile), the F(4x4) filter, transformed from `filt` (the
 * float filter of this call, HWIO) by the first call that wants it and
 * kept in p; when that runs out of memory, the F(2x2) filter.
 * Thread-safe: concurrent calls may each transform it, one is kept. */
const struct tfs_wino_filter *tfs_conv_wino_for(const tfs_conv_packed *p,
                                                const conv_geom *g,
                                                const float *filt);

/* How many tasks to split `nblocks` blocks of `cost_per_block` ns into on
 * the intra-op pool (1: run inline, and let the GEMM use the pool). */
int64_t tfs_conv_slots(tfs_kernel_ctx *c, int64_t nblocks,
                       int64_t cost_per_block);

/* ops/conv2d_check.h's tfs_conv2d_check on the kernel context: the
 * checks TensorFlow's Conv2D (depthwise = 0) and DepthwiseConv2dNative
 * (depthwise = 1) kernels make before allocating their output.  Fills g.
 * Returns 0, or -1 after failing c. */
int tfs_conv_check_inputs(tfs_kernel_ctx *c, const tfs_window *w,
                          int depthwise, const tfs_tensor *x,
                          const tfs_tensor *f, conv_geom *g);

/* Conv2D's checks once its output is known to be non-empty: a filter
 * with elements, and an output depth divisible by the group count
 * (tfs_conv2d_check_filter, tfs_conv2d_check_groups).  Returns 0, or -1
 * after failing c. */
int tfs_conv_check_groups(tfs_kernel_ctx *c, const tfs_tensor *f,
                          const conv_geom *g);

/* TensorFlow's kernel checks that strides and dilations are 1 in the batch
 * and depth dimensions ("Current implementation does not yet support
 * strides in the batch and depth dimensions."), failing prepare with
 * `code`. */
int tfs_conv_check_batch_depth(tfs_kernel_init *ki, const tfs_window *w,
                               tfs_code code);

/* Staging for kernels that compute in NHWC and in float, double or int32:
 * an NHWC input copy when the layout is NCHW, float copies of 16-bit
 * input and filter (or a filter converted at prepare), and an NHWC
 * output buffer moved into the output tensor at the end. */
typedef struct conv_stage {
  tfs_dtype dt, ct; /* tensor dtype, computation dtype */
  size_t es;        /* bytes per computation element */
  const void *in, *filt;
  void *out;
  void *tmp[5];
} conv_stage;

/* Prepares s for input x (4-D), filter f and output y; f32 (f32_n
 * elements) is a float copy of a constant filter or NULL.  Returns 0, or
 * -1 when memory runs out. */
int tfs_conv_stage_begin(conv_stage *s, int nchw, const tfs_tensor *x,
                         const tfs_tensor *f, const float *f32, int64_t f32_n,
                         tfs_tensor *y);
/* Moves the NHWC result into y; then frees the buffers. */
int tfs_conv_stage_end(conv_stage *s, int nchw, tfs_tensor *y);
void tfs_conv_stage_free(conv_stage *s);

/* TensorFlow's ConvBackpropComputeDimensionsV2 for the 2-D backprop
 * kernels, with `label` ("Conv2DCustomBackpropInput", ...) leading the
 * messages: ranks of input xs, filter fs and out_backprop dys, equal
 * batches, a filter depth dividing the input depth, equal out depths,
 * and out_backprop's spatial sizes equal to the convolution's.  Fills g
 * (geometry, groups = c / kc, 0 for an input of depth 0) and checks
 * the output depth divides into the groups.  0, or -1 after failing c. */
int tfs_conv_backprop_dims(tfs_kernel_ctx *c, const char *label,
                           const tfs_window *w, const tfs_shape *xs,
                           const tfs_shape *fs, const tfs_shape *dys,
                           conv_geom *g);

/* 4-D tensor t as NHWC data of computation dtype ct (TFS_FLOAT for
 * 16-bit t, else t's dtype): t's own data when no change is needed,
 * else a copy made in *tmp, which the caller frees.  NULL when memory
 * runs out. */
const void *tfs_conv_nhwc_data(const tfs_tensor *t, int nchw, tfs_dtype ct,
                               void **tmp);

/* f (a 16-bit float filter) as float for one call: `f32` (f32_n
 * elements, tfs_conv_const_filter's copy made at prepare) when it is
 * f's, else a copy in kernel scratch; NULL after failing c when memory
 * runs out. */
const float *tfs_conv_filter_f32(tfs_kernel_ctx *c, const float *f32,
                                 int64_t f32_n, const tfs_tensor *f);

/* A float copy of a constant 16-bit filter for prepare, or NULL when not
 * needed (*n receives its length).  -1 when memory runs out. */
int tfs_conv_const_filter(const tfs_kernel_init *ki, int input, float **out,
                          int64_t *n);

/* ---- bfloat16 convolutions on the bfloat16 GEMM (conv2d.c) ---- */

struct tfs_gemm_packed_bf16;

/* A bfloat16 HWIO filter f as the bfloat16 GEMM's [kh * kw * kc, kn] B,
 * packed for the dot-product family in force (AMX, vdpbf16ps), or NULL
 * (none in force, not a 4-D filter with elements, or out of memory: the
 * run then packs per call).  The caller owns it
 * (tfs_gemm_packed_bf16_free). */
struct tfs_gemm_packed_bf16 *tfs_conv_pack_filter_bf16(const tfs_tensor *f);

/* 1 when a bfloat16 NHWC convolution runs on the bfloat16 GEMM: its
 * filter was packed at prepare, or a dot-product family is in force;
 * else it widens to float32 (conv_stage). */
int tfs_conv2d_bf16_runs(const struct tfs_gemm_packed_bf16 *packed);

/* Called on each finished block of a bfloat16 convolution's float32 sums
 * before they are rounded: output pixels [r0, r0 + nr) by output
 * channels [c0, c0 + nc), at sums (pixel r0, channel c0; leading
 * dimension ld), on the thread that computed them; it may rewrite them
 * (a fused epilogue). */
typedef void (*tfs_conv_bf16_epi_fn)(void *arg, float *sums, int64_t ld,
                                     int64_t r0, int64_t nr, int64_t c0,
                                     int64_t nc);

/* out[n * oh * ow, kn] = conv(in NHWC, filt HWIO), all bfloat16, for
 * every group, on the bfloat16 GEMM (float32 sums, epi on them when not
 * NULL, one rounding of each output), split over the kernel's intra-op
 * pool.  packed: filt packed by tfs_conv_pack_filter_bf16 (one group), or
 * NULL to pack per call.  Call where tfs_conv2d_bf16_runs says so.
 * Returns 0, or -1 after failing c when memory runs out. */
int tfs_conv2d_bf16(tfs_kernel_ctx *c, const conv_geom *g,
                    const uint16_t *in, const uint16_t *filt,
                    const struct tfs_gemm_packed_bf16 *packed, uint16_t *out,
                    tfs_conv_bf16_epi_fn epi, void *epi_arg);

/* Tests: how many convolutions (Conv2D, bfloat16 _FusedConv2D) have run
 * in bfloat16 on the bfloat16 GEMM in this process. */
int64_t tfs_conv2d_bf16__calls(void);

#endif
