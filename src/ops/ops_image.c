/*
 * ops/ops_image.c - image ops: the non-max suppression family
 * (NonMaxSuppression to V5, WithOverlaps, CombinedNonMaxSuppression),
 * CropAndResize, ResizeBicubic, ResizeArea, ScaleAndTranslate, the colour
 * space conversions and the hue, saturation and contrast adjustments.
 * Signatures are TensorFlow 2.21's;
 * shape functions follow TensorFlow's shape inference and its messages.
 */
#include "core/tensor.h"
#include "ops/array_shape_fns.h"
#include "ops/op_tables.h"
#include "ops/shape_ctx.h"

/* TensorFlow's WithValue on a dim: "Dimension must be 4 but is 5". */
static int dim_with_value(tfs_shape_ctx *c, int64_t d, int64_t want) {
  if (d >= 0 && d != want)
    return tfs_sc_error(c, "Dimension must be %lld but is %lld",
                        (long long)want, (long long)d);
  return 0;
}

static int64_t dim_of(const tfs_shape *s, int i) {
  return s->rank > i ? s->dims[i] : -1;
}

/* TensorFlow's MakeDimForScalarInput: the constant scalar input i as a
 * dim (unknown when not constant), which must not be negative. */
static int scalar_input_dim(tfs_shape_ctx *c, int i, int64_t *out) {
  int64_t v;
  *out = -1;
  if (tfs_sc_const_scalar(c, i, &v)) return 0;
  if (v < 0)
    return tfs_sc_error(c, "Dimension size, given by scalar input %d, must "
                        "be non-negative but is %lld", i, (long long)v);
  *out = v;
  return 0;
}

/* boxes [num_boxes, 4], scores [num_boxes], then `nscalars` scalar inputs
 * from input 2 on; output 0 (and 1 when `two`) a vector of unknown
 * length. */
static int nms_common(tfs_shape_ctx *c, int nscalars, int two) {
  if (tfs_sc_with_rank(c, 0, 2) || tfs_sc_with_rank(c, 1, 1)) return -1;
  for (int i = 0; i < nscalars; i++)
    if (tfs_sc_with_rank(c, 2 + i, 0)) return -1;
  const tfs_shape *b = &c->in_shapes[0];
  int64_t n;
  if (tfs_sc_merge_dim(c, dim_of(b, 0), dim_of(&c->in_shapes[1], 0), &n) ||
      dim_with_value(c, dim_of(b, 1), 4))
    return -1;
  for (int o = 0; o < (two ? 2 : 1); o++)
    tfs_shape_unknown_dims(&c->out_shapes[o], 1);
  return 0;
}

static int nms_v1_shape(tfs_shape_ctx *c) { return nms_common(c, 1, 0); }
static int nms_v2_shape(tfs_shape_ctx *c) { return nms_common(c, 2, 0); }
static int nms_v3_shape(tfs_shape_ctx *c) { return nms_common(c, 3, 0); }

/* V4 and V5: padded outputs have max_output_size elements; the last
 * output (valid_outputs) is a scalar. */
static int nms_padded_shape(tfs_shape_ctx *c, int nscalars, int nvec) {
  if (nms_common(c, nscalars, nvec == 2)) return -1;
  int pad = 0;
  tfs_attrs_get_bool(c->attrs, "pad_to_max_output_size", &pad);
  if (pad) {
    int64_t d;
    if (scalar_input_dim(c, 2, &d)) return -1;
    for (int o = 0; o < nvec; o++) {
      c->out_shapes[o].rank = 1;
      c->out_shapes[o].dims[0] = d;
    }
  }
  c->out_shapes[nvec].rank = 0;
  return 0;
}

static int nms_v4_shape(tfs_shape_ctx *c) {
  return nms_padded_shape(c, 3, 1);
}

static int nms_v5_shape(tfs_shape_ctx *c) {
  return nms_padded_shape(c, 4, 2);
}

static int nms_overlaps_shape(tfs_shape_ctx *c) {
  if (tfs_sc_with_rank(c, 0, 2) || tfs_sc_with_rank(c, 1, 1)) return -1;
  for (int i = 2; i < 5; i++)
    if (tfs_sc_with_rank(c, i, 0)) return -1;
  const tfs_shape *o = &c->in_shapes[0];
  int64_t n;
  if (tfs_sc_merge_dim(c, dim_of(o, 0), dim_of(&c->in_shapes[1], 0), &n) ||
      tfs_sc_merge_dim(c, dim_of(o, 0), dim_of(o, 1), &n))
    return -1;
  tfs_shape_unknown_dims(&c->out_shapes[0], 1);
  return 0;
}

/* CombinedNonMaxSuppression: boxes [batch, anchors, q, 4], scores [batch,
 * anchors, classes]; outputs [batch, size, 4], [batch, size] twice and
 * [batch]. */
static int combined_nms_shape(tfs_shape_ctx *c) {
  if (tfs_sc_with_rank(c, 0, 4) || tfs_sc_with_rank(c, 1, 3)) return -1;
  for (int i = 2; i < 6; i++)
    if (tfs_sc_with_rank(c, i, 0)) return -1;
  const tfs_shape *b = &c->in_shapes[0], *s = &c->in_shapes[1];
  int64_t batch, unused;
  if (tfs_sc_merge_dim(c, dim_of(b, 0), dim_of(s, 0), &unused) ||
      tfs_sc_merge_dim(c, dim_of(b, 1), dim_of(s, 1), &unused) ||
      dim_with_value(c, dim_of(b, 3), 4))
    return -1;
  int64_t q = dim_of(b, 2), classes = dim_of(s, 2);
  if (q >= 0 && classes >= 0 && q != 1 && q != classes)
    return tfs_sc_error(c, "third dimension of boxes must be either 1 or "
                        "equal to the third dimension of scores");
  batch = dim_of(b, 0);
  int64_t total, per_class, size = -1;
  if (scalar_input_dim(c, 3, &total)) return -1;
  if (total == 0) return tfs_sc_error(c, "max_total_size should be > 0 ");
  if (scalar_input_dim(c, 2, &per_class)) return -1;
  int pad = 0;
  tfs_attrs_get_bool(c->attrs, "pad_per_class", &pad);
  if (!pad) {
    size = total;
  } else {
    if (per_class == 0)
      return tfs_sc_error(c, "max_output_size_per_class must be > 0 ");
    if (classes >= 0 && per_class >= 0) {
      /* both fit in int32 (a constant int32 scalar and a dim) */
      int64_t prod = per_class > 0 && classes > INT64_MAX / per_class
                         ? INT64_MAX : per_class * classes;
      size = total < prod ? total : prod;
    }
  }
  tfs_shape *o = c->out_shapes;
  o[0].rank = 3, o[0].dims[0] = batch, o[0].dims[1] = size, o[0].dims[2] = 4;
  o[1].rank = 2, o[1].dims[0] = batch, o[1].dims[1] = size;
  o[2] = o[1];
  o[3].rank = 1, o[3].dims[0] = batch;
  return 0;
}

/* CropAndResize: image [batch, h, w, depth], boxes [num_boxes, 4],
 * box_ind [num_boxes], crop_size [2] -> [num_boxes, ch, cw, depth]. */
static int crop_and_resize_shape(tfs_shape_ctx *c) {
  if (tfs_sc_with_rank(c, 0, 4) || tfs_sc_with_rank(c, 1, 2) ||
      tfs_sc_with_rank(c, 2, 1))
    return -1;
  int64_t n;
  const tfs_shape *b = &c->in_shapes[1];
  if (tfs_sc_merge_dim(c, dim_of(b, 0), dim_of(&c->in_shapes[2], 0), &n) ||
      dim_with_value(c, dim_of(b, 1), 4))
    return -1;
  if (tfs_sc_with_rank(c, 3, 1) ||
      dim_with_value(c, dim_of(&c->in_shapes[3], 0), 2))
    return -1;
  tfs_shape *o = &c->out_shapes[0];
  tfs_shape_unknown_dims(o, 4);
  o->dims[0] = n;
  o->dims[3] = dim_of(&c->in_shapes[0], 3);
  const tfs_tensor *sz = tfs_sc_const(c, 3);
  if (sz && sz->nelems == 2) {
    int64_t h = tfs_tensor__get_as_int64(sz, 0);
    int64_t w = tfs_tensor__get_as_int64(sz, 1);
    o->dims[1] = h >= 0 ? h : -1;
    o->dims[2] = w >= 0 ? w : -1;
  }
  return 0;
}

/* RGBToHSV, HSVToRGB: [..., 3] in, the same shape out. */
static int colorspace_shape(tfs_shape_ctx *c) {
  if (tfs_sc_with_rank_at_least(c, 0, 1)) return -1;
  const tfs_shape *s = &c->in_shapes[0];
  if (s->rank >= 1 && dim_with_value(c, s->dims[s->rank - 1], 3)) return -1;
  c->out_shapes[0] = *s;
  return 0;
}

static int rank3_unchanged_shape(tfs_shape_ctx *c) {
  if (tfs_sc_with_rank_at_least(c, 0, 3)) return -1;
  c->out_shapes[0] = c->in_shapes[0];
  return 0;
}

#define NMS_IN "boxes: T; scores: T; max_output_size: int32"
#define NMS_T "T: {half, float} = float; "
#define NMS_TT NMS_T "T_threshold: {half, float} = float"

const tfs_op_spec tfs_ops_image[] = {
    {"NonMaxSuppression",
     "boxes: float; scores: float; max_output_size: int32",
     "selected_indices: int32", "iou_threshold: float = 0.5", nms_v1_shape,
     0},
    {"NonMaxSuppressionV2", NMS_IN "; iou_threshold: T_threshold",
     "selected_indices: int32", NMS_TT, nms_v2_shape, 0},
    {"NonMaxSuppressionV3",
     NMS_IN "; iou_threshold: T_threshold; score_threshold: T_threshold",
     "selected_indices: int32", NMS_TT, nms_v3_shape, 0},
    {"NonMaxSuppressionV4",
     NMS_IN "; iou_threshold: T_threshold; score_threshold: T_threshold",
     "selected_indices: int32; valid_outputs: int32",
     NMS_TT "; pad_to_max_output_size: bool = false", nms_v4_shape, 0},
    {"NonMaxSuppressionV5",
     NMS_IN "; iou_threshold: T; score_threshold: T; soft_nms_sigma: T",
     "selected_indices: int32; selected_scores: T; valid_outputs: int32",
     NMS_T "pad_to_max_output_size: bool = false", nms_v5_shape, 0},
    {"NonMaxSuppressionWithOverlaps",
     "overlaps: float; scores: float; max_output_size: int32; "
     "overlap_threshold: float; score_threshold: float",
     "selected_indices: int32", "", nms_overlaps_shape, 0},
    {"CombinedNonMaxSuppression",
     "boxes: float; scores: float; max_output_size_per_class: int32; "
     "max_total_size: int32; iou_threshold: float; score_threshold: float",
     "nmsed_boxes: float; nmsed_scores: float; nmsed_classes: float; "
     "valid_detections: int32",
     "pad_per_class: bool = false; clip_boxes: bool = true",
     combined_nms_shape, 0},
    {"CropAndResize",
     "image: T; boxes: float; box_ind: int32; crop_size: int32",
     "crops: float",
     "T: {uint8, uint16, int8, int16, int32, int64, half, float, double}; "
     "method: {'bilinear', 'nearest'} = 'bilinear'; "
     "extrapolation_value: float = 0",
     crop_and_resize_shape, 0},
    {"ResizeBicubic", "images: T; size: int32", "resized_images: float",
     "T: {int8, uint8, int16, uint16, int32, int64, half, float, double, "
     "bfloat16}; align_corners: bool = false; "
     "half_pixel_centers: bool = false",
     tfs_shape_fn_resize, 0},
    {"ResizeArea", "images: T; size: int32", "resized_images: float",
     "T: {int8, uint8, int16, uint16, int32, int64, half, float, double, "
     "bfloat16}; align_corners: bool = false",
     tfs_shape_fn_resize, 0},
    {"ScaleAndTranslate",
     "images: T; size: int32; scale: float; translation: float",
     "resized_images: float",
     "T: {int8, uint8, int16, uint16, int32, int64, bfloat16, half, float, "
     "double}; kernel_type: string = 'lanczos3'; antialias: bool = true",
     tfs_shape_fn_resize, 0},
    {"RGBToHSV", "images: T", "output: T",
     "T: {half, bfloat16, float, double} = float", colorspace_shape, 0},
    {"HSVToRGB", "images: T", "output: T",
     "T: {half, bfloat16, float, double} = float", colorspace_shape, 0},
    {"AdjustHue", "images: T; delta: float", "output: T",
     "T: {half, float} = float", rank3_unchanged_shape, 0},
    {"AdjustSaturation", "images: T; scale: float", "output: T",
     "T: {half, float} = float", rank3_unchanged_shape, 0},
    {"AdjustContrastv2", "images: T; contrast_factor: float", "output: T",
     "T: {half, float} = float", rank3_unchanged_shape, 0},
    {NULL, NULL, NULL, NULL, NULL, 0},
};
