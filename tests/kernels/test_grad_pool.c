/*
 * tests/kernels/test_grad_pool.c - the pooling, batch-norm, resize and
 * mirror-pad gradient kernels on hostile sizes: orig_input_shape vectors
 * with huge or negative dims, gradients larger than the image they go
 * back to, empty and negative windows, output sizes whose element count
 * overflows and paddings at the ends of int64; each must give a bounded
 * result or an error, never an abort or an out-of-bounds access.
 */
#include <stdint.h>

#include "arraytest.h"

static const at_attr kAvg[] = {AT_LIST("ksize", 4, 1, 2, 2, 1),
                               AT_LIST("strides", 4, 1, 2, 2, 1),
                               AT_STR("padding", "VALID"), {NULL}};

/* An orig_input_shape of (2^31 - 1)^2 pixels is refused (too large to
 * allocate), not written. */
static void test_avg_huge_shape(void) {
  at_call c = {"AvgPoolGrad", kAvg, 0, 0, NULL};
  tfs_tensor *in[] = {at_i32(1, D(4), I32(1, INT32_MAX, INT32_MAX, 2)),
                      at_f32(4, D(1, 1, 1, 2), F32(1, 2))};
  CU_ASSERT_NOT_EQUAL(at_run(&c, in, 2, NULL, 0), TFS_OK);
  at_free(in, 2);
  tfs_tensor *in2[] = {at_i32(1, D(4), I32(INT32_MAX, INT32_MAX, INT32_MAX,
                                           INT32_MAX)),
                       at_f32(4, D(1, 1, 1, 2), F32(1, 2))};
  CU_ASSERT_NOT_EQUAL(at_run(&c, in2, 2, NULL, 0), TFS_OK);
  at_free(in2, 2);
}

static void test_avg_negative_shape(void) {
  at_call c = {"AvgPoolGrad", kAvg, 0, 0, NULL};
  tfs_tensor *in[] = {at_i32(1, D(4), I32(1, -4, 4, 2)),
                      at_f32(4, D(1, 1, 1, 2), F32(1, 2))};
  at_expect_error(&c, in, 2, TFS_INVALID_ARGUMENT,
                  "Expected a non-negative size, got -4");
  tfs_tensor *in2[] = {at_i32(1, D(4), I32(INT32_MIN, 2, 2, 1)),
                       at_f32(4, D(1, 1, 1, 1), F32(1))};
  at_expect_error(&c, in2, 2, TFS_INVALID_ARGUMENT,
                  "Expected a non-negative size");
}

/* A gradient with more rows, images or channels than the image can
 * take back. */
static void test_avg_grad_too_big(void) {
  at_call c = {"AvgPoolGrad", kAvg, 0, 0, NULL};
  tfs_tensor *in[] = {at_i32(1, D(4), I32(1, 2, 2, 1)),
                      at_f32(4, D(1, 3, 1, 1), F32(1, 2, 3))};
  at_expect_error(&c, in, 2, TFS_INVALID_ARGUMENT,
                  "index * stride must be less than or equal to input size");
  tfs_tensor *in2[] = {at_i32(1, D(4), I32(1, 2, 2, 1)),
                       at_f32(4, D(2, 1, 1, 1), F32(1, 2))};
  CU_ASSERT_EQUAL(at_run(&c, in2, 2, NULL, 0), TFS_INVALID_ARGUMENT);
  at_free(in2, 2);
  tfs_tensor *in3[] = {at_i32(1, D(4), I32(1, 2, 2, 1)),
                       at_f32(4, D(1, 1, 1, 3), F32(1, 2, 3))};
  CU_ASSERT_EQUAL(at_run(&c, in3, 2, NULL, 0), TFS_INVALID_ARGUMENT);
  at_free(in3, 2);
}

/* Empty windows spread nothing; a negative window is refused (the
 * shared window arithmetic takes no negative sizes). */
static void test_avg_empty_window(void) {
  const at_attr neg[] = {AT_LIST("ksize", 4, 1, -2, 2, 1),
                         AT_LIST("strides", 4, 1, 1, 1, 1),
                         AT_STR("padding", "SAME"), {NULL}};
  at_call cn = {"AvgPoolGrad", neg, 0, 0, NULL};
  tfs_tensor *in0[] = {at_i32(1, D(4), I32(1, 2, 2, 1)),
                       at_f32(4, D(1, 1, 1, 1), F32(5))};
  at_expect_error(&cn, in0, 2, TFS_INVALID_ARGUMENT, "filter too large");
  const at_attr a[] = {AT_LIST("ksize", 4, 1, 0, 0, 1),
                       AT_LIST("strides", 4, 1, 1, 1, 1),
                       AT_STR("padding", "VALID"), {NULL}};
  at_call c = {"AvgPoolGrad", a, 0, 0, NULL};
  tfs_tensor *in[] = {at_i32(1, D(4), I32(1, 2, 2, 1)),
                      at_f32(4, D(1, 1, 1, 1), F32(5))};
  at_check(at_eval(&c, in, 2), TFS_FLOAT, 4, D(1, 2, 2, 1), F32(0, 0, 0, 0));
}

/* MaxPoolGradV2 with a zero-sized window: every window is empty, so no
 * gradient goes anywhere; with int32 extremes for the window, the shapes
 * disagree and that is the error. */
static void test_max_v2_hostile_window(void) {
  const at_attr a[] = {AT_STR("padding", "VALID"), {NULL}};
  at_call c = {"MaxPoolGradV2", a, 0, 0, NULL};
  tfs_tensor *in[] = {at_f32(4, D(1, 2, 2, 1), F32(1, 2, 3, 4)),
                      at_f32(4, D(1, 3, 3, 1), NULL),
                      at_f32(4, D(1, 3, 3, 1), NULL),
                      at_i32(1, D(4), I32(1, 0, 0, 1)),
                      at_i32(1, D(4), I32(1, 1, 1, 1))};
  at_check(at_eval(&c, in, 5), TFS_FLOAT, 4, D(1, 2, 2, 1), F32(0, 0, 0, 0));
  tfs_tensor *in2[] = {at_f32(4, D(1, 2, 2, 1), F32(1, 2, 3, 4)),
                       at_f32(4, D(1, 1, 1, 1), F32(4)),
                       at_f32(4, D(1, 1, 1, 1), F32(1)),
                       at_i32(1, D(4), I32(1, INT32_MAX, INT32_MAX, 1)),
                       at_i32(1, D(4), I32(1, INT32_MAX, INT32_MAX, 1))};
  CU_ASSERT_EQUAL(at_run(&c, in2, 5, NULL, 0), TFS_INVALID_ARGUMENT);
  at_free(in2, 5);
  tfs_tensor *in3[] = {at_f32(4, D(1, 2, 2, 1), F32(1, 2, 3, 4)),
                       at_f32(4, D(1, 1, 1, 1), F32(4)),
                       at_f32(4, D(1, 1, 1, 1), F32(1)),
                       at_i32(1, D(4), I32(1, INT32_MIN, 2, 1)),
                       at_i32(1, D(4), I32(1, 2, 2, 1))};
  CU_ASSERT_EQUAL(at_run(&c, in3, 5, NULL, 0), TFS_INVALID_ARGUMENT);
  at_free(in3, 5);
}

/* A nearest-neighbour gradient of (2^31 - 1)^2 * 4 elements overflows:
 * TensorFlow's message, no allocation. */
static void test_resize_nn_overflow(void) {
  at_call c = {"ResizeNearestNeighborGrad", NULL, 0, 0, NULL};
  tfs_tensor *in[] = {at_f32(4, D(1, 1, 1, 4), F32(1, 2, 3, 4)),
                      at_i32(1, D(2), I32(INT32_MAX, INT32_MAX))};
  at_expect_error(&c, in, 2, TFS_INVALID_ARGUMENT,
                  "Encountered overflow when multiplying");
}

/* Paddings at the ends of int64 fail the checks without overflowing. */
static void test_mirror_pad_int64_ends(void) {
  const at_attr a[] = {AT_STR("mode", "SYMMETRIC"), {NULL}};
  at_call c = {"MirrorPadGrad", a, 0, 0, NULL};
  tfs_tensor *in[] = {at_f32(1, D(3), F32(1, 2, 3)),
                      at_i64(2, D(1, 2), I64(INT64_MAX, INT64_MAX))};
  at_expect_error(&c, in, 2, TFS_INVALID_ARGUMENT,
                  "Total paddings must be less than the input dimension "
                  "size");
  tfs_tensor *in2[] = {at_f32(1, D(3), F32(1, 2, 3)),
                       at_i64(2, D(1, 2), I64(INT64_MIN, 0))};
  at_expect_error(&c, in2, 2, TFS_INVALID_ARGUMENT,
                  "Paddings must be non-negative");
}

/* No channels and no pixels: empty outputs, zero statistics. */
static void test_batch_norm_empty(void) {
  at_call c = {"FusedBatchNormGradV3", NULL, 0, 0, NULL};
  tfs_tensor *in[] = {at_f32(4, D(2, 1, 1, 0), NULL),
                      at_f32(4, D(2, 1, 1, 0), NULL),
                      at_f32(1, D(0), NULL), at_f32(1, D(0), NULL),
                      at_f32(1, D(0), NULL), at_f32(1, D(0), NULL)};
  tfs_tensor *out[5] = {NULL};
  CU_ASSERT_EQUAL(at_run(&c, in, 6, out, 5), TFS_OK);
  if (out[1]) CU_ASSERT_EQUAL(tfs_tensor_dim(out[1], 0), 0);
  at_free(in, 6);
  at_free(out, 5);
}

static const tfs_test_case kCases[] = {
    {"avg_huge_shape", test_avg_huge_shape},
    {"avg_negative_shape", test_avg_negative_shape},
    {"avg_grad_too_big", test_avg_grad_too_big},
    {"avg_empty_window", test_avg_empty_window},
    {"max_v2_hostile_window", test_max_v2_hostile_window},
    {"resize_nn_overflow", test_resize_nn_overflow},
    {"mirror_pad_int64_ends", test_mirror_pad_int64_ends},
    {"batch_norm_empty", test_batch_norm_empty},
    {NULL, NULL},
};

const tfs_test_suite tfs_test_suites[] = {
    {"grad_pool", kCases},
    {NULL, NULL},
};
