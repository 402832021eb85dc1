/*
 * ops/ops_nn_grad.c - the gradient ops of pooling, batch normalization,
 * LRN, image resizing and mirror padding: MaxPoolGrad, MaxPoolGradV2,
 * AvgPoolGrad, FusedBatchNormGrad (V1 to V3), LRNGrad, ResizeBilinearGrad,
 * ResizeNearestNeighborGrad and MirrorPadGrad.  Signatures are
 * TensorFlow 2.21's; shape functions follow its shape inference.
 */
#include <string.h>

#include "core/status.h"
#include "ops/op_tables.h"
#include "ops/shape_ctx.h"

/* Input i with rank r (unknown dims when its rank is unknown) into *out. */
static int rank_shape(tfs_shape_ctx *c, int i, int r, tfs_shape *out) {
  if (tfs_sc_with_rank(c, i, r)) return -1;
  *out = c->in_shapes[i];
  if (out->rank < 0) tfs_shape_unknown_dims(out, r);
  return 0;
}

/* Merges the dims of b into a (both of rank r). */
static int merge_into(tfs_shape_ctx *c, tfs_shape *a, const tfs_shape *b) {
  for (int d = 0; d < a->rank; d++)
    if (tfs_sc_merge_dim(c, a->dims[d], b->dims[d], &a->dims[d])) return -1;
  return 0;
}

/* MaxPoolGrad, MaxPoolGradV2: orig_input's shape, of rank 4. */
static int max_pool_grad_shape(tfs_shape_ctx *c) {
  return rank_shape(c, 0, 4, &c->out_shapes[0]);
}

/* AvgPoolGrad: the shape orig_input_shape holds, of rank 4. */
static int avg_pool_grad_shape(tfs_shape_ctx *c) {
  tfs_shape s;
  if (tfs_sc_with_rank(c, 0, 1)) return -1;
  if (tfs_sc_input_as_shape(c, 0, &s)) return -1;
  if (s.rank >= 0 && s.rank != 4)
    return tfs_sc_error(c, "Shape must be rank 4 but is rank %d", s.rank);
  if (s.rank < 0) tfs_shape_unknown_dims(&s, 4);
  c->out_shapes[0] = s;
  return 0;
}

/* FusedBatchNormGrad (V1..V3): y_backprop and x of rank 4 (5 for NDHWC
 * and NCDHW), scale and the two saved statistics vectors of the channel
 * count; x_backprop like y_backprop, two [C] vectors and two empty
 * ones. */
static int batch_norm_grad_shape(tfs_shape_ctx *c) {
  size_t len;
  const char *fmt = tfs_attrs_get_string(c->attrs, "data_format", &len);
  int rank5 = fmt && (strcmp(fmt, "NDHWC") == 0 || strcmp(fmt, "NCDHW") == 0);
  int cfirst = fmt && (strcmp(fmt, "NCHW") == 0 || strcmp(fmt, "NCDHW") == 0);
  int rank = rank5 ? 5 : 4, cdim = cfirst ? 1 : rank - 1;
  tfs_shape dy, x;
  if (rank_shape(c, 0, rank, &dy) || rank_shape(c, 1, rank, &x)) return -1;
  int64_t ch = dy.dims[cdim];
  if (tfs_sc_merge_dim(c, ch, x.dims[cdim], &ch)) return -1;
  for (int i = 2; i < 5; i++) {
    if (tfs_sc_with_rank(c, i, 1)) return -1;
    const tfs_shape *v = &c->in_shapes[i];
    if (tfs_sc_merge_dim(c, ch, v->rank == 1 ? v->dims[0] : -1, &ch))
      return -1;
  }
  dy.dims[cdim] = ch;
  c->out_shapes[0] = dy;
  tfs_shape_1d(&c->out_shapes[1], ch);
  tfs_shape_1d(&c->out_shapes[2], ch);
  tfs_shape_1d(&c->out_shapes[3], 0);
  tfs_shape_1d(&c->out_shapes[4], 0);
  return 0;
}

/* LRNGrad: the three inputs merged, of rank 4. */
static int lrn_grad_shape(tfs_shape_ctx *c) {
  tfs_shape a, b;
  if (rank_shape(c, 0, 4, &a)) return -1;
  for (int i = 1; i < 3; i++)
    if (rank_shape(c, i, 4, &b) || merge_into(c, &a, &b)) return -1;
  c->out_shapes[0] = a;
  return 0;
}

/* ResizeBilinearGrad: original_image's shape. */
static int resize_bilinear_grad_shape(tfs_shape_ctx *c) {
  c->out_shapes[0] = c->in_shapes[1];
  return 0;
}

/* ResizeNearestNeighborGrad: grads with H and W from the size vector. */
static int resize_nn_grad_shape(tfs_shape_ctx *c) {
  tfs_shape in;
  if (rank_shape(c, 0, 4, &in) || tfs_sc_with_rank(c, 1, 1)) return -1;
  const tfs_shape *sz = &c->in_shapes[1];
  if (sz->rank == 1 && sz->dims[0] >= 0 && sz->dims[0] != 2)
    return tfs_sc_error(c, "Dimension must be 2 but is %lld",
                        (long long)sz->dims[0]);
  const tfs_tensor *t = tfs_sc_const(c, 1);
  in.dims[1] = in.dims[2] = -1;
  if (t && t->nelems == 2) {
    int64_t h = tfs_tensor__get_as_int64(t, 0);
    int64_t w = tfs_tensor__get_as_int64(t, 1);
    if (h < 0 || w < 0)
      return tfs_sc_error(c, "Dimension %lld must be >= 0",
                          (long long)(h < 0 ? h : w));
    in.dims[1] = h;
    in.dims[2] = w;
  }
  c->out_shapes[0] = in;
  return 0;
}

/* MirrorPadGrad: the input's dims less both paddings. */
static int mirror_pad_grad_shape(tfs_shape_ctx *c) {
  if (tfs_sc_with_rank(c, 1, 2)) return -1;
  const tfs_shape *p = &c->in_shapes[1];
  if (p->rank != 2 || p->dims[0] < 0) return tfs_shape_fn_unknown(c);
  int64_t r = p->dims[0];
  if (tfs_sc_with_rank(c, 0, r)) return -1;
  if (p->dims[1] >= 0 && p->dims[1] != 2)
    return tfs_sc_error(c, "Dimension 1 in both shapes must be equal, but "
                        "are %lld and 2. Shapes are [%lld,%lld] and "
                        "[%lld,2].", (long long)p->dims[1], (long long)r,
                        (long long)p->dims[1], (long long)r);
  tfs_shape out = c->in_shapes[0];
  if (out.rank < 0) tfs_shape_unknown_dims(&out, (int)r);
  const tfs_tensor *t = tfs_sc_const(c, 1);
  if (!t || t->nelems != 2 * r) {
    tfs_shape_unknown_dims(&out, (int)r);
    c->out_shapes[0] = out;
    return 0;
  }
  for (int64_t i = 0; i < r; i++) {
    int64_t a = tfs_tensor__get_as_int64(t, 2 * i);
    int64_t b = tfs_tensor__get_as_int64(t, 2 * i + 1);
    if (a < 0 || b < 0)
      return tfs_sc_error(c, "Paddings must be non-negative");
    if (out.dims[i] < 0) continue;
    if (out.dims[i] < a + b)
      return tfs_sc_error(c, "Negative dimension size caused by subtracting "
                          "%lld from %lld", (long long)(a + b),
                          (long long)out.dims[i]);
    out.dims[i] -= a + b;
  }
  c->out_shapes[0] = out;
  return 0;
}

#define POOL_T                                                              \
  "T: {half, bfloat16, float, double, int32, int64, uint8, int16, int8, "   \
  "uint16, uint32, uint64} = float"
#define BN_GRAD_OUTS                                                        \
  "x_backprop: T; scale_backprop: U; offset_backprop: U; "
#define BN_GRAD_ATTRS                                                       \
  "epsilon: float = 9.999999747378752e-05; is_training: bool = true"

const tfs_op_spec tfs_ops_nn_grad[] = {
    {"MaxPoolGrad", "orig_input: T; orig_output: T; grad: T", "output: T",
     "ksize: list(int) >= 4; strides: list(int) >= 4; padding: {'SAME', "
     "'VALID', 'EXPLICIT'}; explicit_paddings: list(int) = []; "
     "data_format: {'NHWC', 'NCHW'} = 'NHWC'; " POOL_T,
     max_pool_grad_shape, 0},
    {"MaxPoolGradV2",
     "orig_input: T; orig_output: T; grad: T; ksize: int32; strides: int32",
     "output: T",
     "padding: {'SAME', 'VALID'}; data_format: {'NHWC', 'NCHW'} = 'NHWC'; "
     POOL_T,
     max_pool_grad_shape, 0},
    {"AvgPoolGrad", "orig_input_shape: int32; grad: T", "output: T",
     "ksize: list(int) >= 4; strides: list(int) >= 4; padding: {'SAME', "
     "'VALID'}; data_format: {'NHWC', 'NCHW'} = 'NHWC'; T: {half, "
     "bfloat16, float, double}",
     avg_pool_grad_shape, 0},
    {"FusedBatchNormGrad",
     "y_backprop: T; x: T; scale: T; reserve_space_1: T; reserve_space_2: T",
     "x_backprop: T; scale_backprop: T; offset_backprop: T; "
     "reserve_space_3: T; reserve_space_4: T",
     "T: {float}; " BN_GRAD_ATTRS "; data_format: {'NHWC', 'NCHW'} = 'NHWC'",
     batch_norm_grad_shape, 0},
    {"FusedBatchNormGradV2",
     "y_backprop: T; x: T; scale: float; reserve_space_1: U; "
     "reserve_space_2: U",
     BN_GRAD_OUTS "reserve_space_3: U; reserve_space_4: U",
     "T: {half, bfloat16, float}; U: {float}; " BN_GRAD_ATTRS
     "; data_format: {'NHWC', 'NCHW'} = 'NHWC'",
     batch_norm_grad_shape, 0},
    {"FusedBatchNormGradV3",
     "y_backprop: T; x: T; scale: float; reserve_space_1: U; "
     "reserve_space_2: U; reserve_space_3: U",
     BN_GRAD_OUTS "reserve_space_4: U; reserve_space_5: U",
     "T: {half, bfloat16, float}; U: {float}; " BN_GRAD_ATTRS
     "; data_format: {'NHWC', 'NCHW', 'NDHWC', 'NCDHW'} = 'NHWC'",
     batch_norm_grad_shape, 0},
    {"LRNGrad", "input_grads: T; input_image: T; output_image: T",
     "output: T",
     "depth_radius: int = 5; bias: float = 1.0; alpha: float = 1.0; beta: "
     "float = 0.5; T: {half, bfloat16, float} = float",
     lrn_grad_shape, 0},
    {"ResizeBilinearGrad", "grads: float; original_image: T", "output: T",
     "T: {float, bfloat16, half, double}; align_corners: bool = false; "
     "half_pixel_centers: bool = false",
     resize_bilinear_grad_shape, 0},
    {"ResizeNearestNeighborGrad", "grads: T; size: int32", "output: T",
     "T: {uint8, int8, int32, half, float, double, bfloat16}; "
     "align_corners: bool = false; half_pixel_centers: bool = false",
     resize_nn_grad_shape, 0},
    {"MirrorPadGrad", "input: T; paddings: Tpaddings", "output: T",
     "T: type; Tpaddings: {int32, int64} = int32; mode: {'REFLECT', "
     "'SYMMETRIC'}",
     mirror_pad_grad_shape, 0},
    {NULL, NULL, NULL, NULL, NULL, 0},
};
