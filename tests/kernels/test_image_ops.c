/*
 * tests/kernels/test_image_ops.c - the image kernels on hostile values:
 * sizes that ask for far more than the inputs hold, boxes whose sample
 * positions overflow, hue shifts that TensorFlow's loop never finishes;
 * each must give a bounded result or TensorFlow's error, never a huge
 * allocation, a hang or an out-of-bounds read.
 */
#include <math.h>

#include "arraytest.h"

static const float kBoxes[8] = {0, 0, 1, 1, 0, 0.1f, 1, 1.1f};

/* NMS without padding keeps min(max_output_size, boxes) indices, however
 * large max_output_size is. */
static void test_nms_huge_max_output(void) {
  at_call c = {"NonMaxSuppressionV3", NULL, 0, 0, NULL};
  tfs_tensor *in[] = {at_f32(2, D(2, 4), kBoxes), at_f32(1, D(2), F32(1, 2)),
                      at_si32(INT32_MAX), at_sf32(0.9f), at_sf32(0.0f)};
  tfs_tensor *out = at_eval(&c, in, 5);
  at_check(out, TFS_INT32, 1, D(2), I32(1, 0));
}

/* Padding to a negative size is TensorFlow's error. */
static void test_nms_negative_max_output(void) {
  at_attr pad[] = {AT_BOOL("pad_to_max_output_size", 1), {NULL}};
  at_call c = {"NonMaxSuppressionV4", pad, 0, 0, NULL};
  tfs_tensor *in[] = {at_f32(2, D(2, 4), kBoxes), at_f32(1, D(2), F32(1, 2)),
                      at_si32(-3), at_sf32(0.5f), at_sf32(0.0f)};
  at_expect_error(&c, in, 5, TFS_INVALID_ARGUMENT,
                  "output size must be non-negative");
}

/* Soft-NMS with an infinite sigma and NaN boxes still ends. */
static void test_nms_soft_nan_boxes(void) {
  at_call c = {"NonMaxSuppressionV5", NULL, 0, 0, NULL};
  float nan = NAN;
  const float b[8] = {0, 0, 1, 1, nan, 0, nan, 1};
  tfs_tensor *in[] = {at_f32(2, D(2, 4), b), at_f32(1, D(2), F32(1, 2)),
                      at_si32(5), at_sf32(0.5f), at_sf32(0.0f),
                      at_sf32(INFINITY)};
  tfs_tensor *out[3];
  CU_ASSERT_EQUAL(at_run(&c, in, 6, out, 3), TFS_OK);
  at_free(in, 6);
  at_free(out, 3);
}

/* Huge finite boxes make sample positions NaN or infinite: those samples
 * take the extrapolation value instead of an undefined index. */
static void test_crop_overflowing_boxes(void) {
  at_attr a[] = {AT_STR("method", "bilinear"), {NULL}};
  at_call c = {"CropAndResize", a, 0, 0, NULL};
  const float b[4] = {3e38f, -3e38f, -3e38f, 3e38f};
  float img[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  tfs_tensor *in[] = {at_f32(4, D(1, 3, 4, 1), img), at_f32(2, D(1, 4), b),
                      at_i32(1, D(1), I32(0)), at_i32(1, D(2), I32(2, 2))};
  tfs_tensor *out = at_eval(&c, in, 4);
  at_check(out, TFS_FLOAT, 4, D(1, 2, 2, 1), F32(0, 0, 0, 0));
}

/* A crop whose element count overflows int64 is refused. */
static void test_crop_size_overflow(void) {
  at_call c = {"CropAndResize", NULL, 0, 0, NULL};
  float img[4] = {1, 2, 3, 4};
  tfs_tensor *in[] = {at_f32(4, D(1, 2, 2, 1), img),
                      at_f32(2, D(3, 4), NULL), at_i32(1, D(3), I32(0, 0, 0)),
                      at_i32(1, D(2), I32(INT32_MAX, INT32_MAX))};
  tfs_code code = at_run(&c, in, 4, NULL, 0);
  CU_ASSERT_NOT_EQUAL(code, TFS_OK);
  at_free(in, 4);
}

/* AdjustHue by an infinite or huge delta returns (TensorFlow's
 * add-or-subtract-6 loop would not). */
static void test_hue_huge_delta(void) {
  at_call c = {"AdjustHue", NULL, 0, 0, NULL};
  const float px[3] = {0.2f, 0.5f, 0.9f};
  const float deltas[3] = {INFINITY, 3e30f, -1e20f};
  for (int i = 0; i < 3; i++) {
    tfs_tensor *in[] = {at_f32(3, D(1, 1, 3), px), at_sf32(deltas[i])};
    tfs_tensor *out = at_eval(&c, in, 2);
    CU_ASSERT_PTR_NOT_NULL(out);
    tfs_tensor_free(out);
  }
}

/* CombinedNonMaxSuppression on an empty batch allocates nothing large
 * whatever max_total_size says. */
static void test_combined_empty_batch(void) {
  at_call c = {"CombinedNonMaxSuppression", NULL, 0, 0, NULL};
  tfs_tensor *in[] = {at_f32(4, D(0, 2, 1, 4), NULL),
                      at_f32(3, D(0, 2, 3), NULL), at_si32(INT32_MAX),
                      at_si32(INT32_MAX), at_sf32(0.5f), at_sf32(0.0f)};
  tfs_tensor *out = at_eval(&c, in, 6);
  at_check(out, TFS_FLOAT, 3, D(0, INT32_MAX, 4), NULL);
}

static const tfs_test_case kCases[] = {
    {"nms_huge_max_output", test_nms_huge_max_output},
    {"nms_negative_max_output", test_nms_negative_max_output},
    {"nms_soft_nan_boxes", test_nms_soft_nan_boxes},
    {"crop_overflowing_boxes", test_crop_overflowing_boxes},
    {"crop_size_overflow", test_crop_size_overflow},
    {"hue_huge_delta", test_hue_huge_delta},
    {"combined_empty_batch", test_combined_empty_batch},
    {NULL, NULL},
};

const tfs_test_suite tfs_test_suites[] = {
    {"image_ops", kCases},
    {NULL, NULL},
};
