/*
 * tests/kernels/test_sampling_ops.c - the sampling kernels on hostile
 * values: images of nearly 2^31 pixels a side (whose areas overflow int32
 * as TensorFlow's do), sizes at the int32 limit, a num_samples whose
 * output no memory holds, logits that are all NaN or at the ends of
 * float, and random (unseeded) generators, which must still give a
 * permutation and in-range samples.
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "arraytest.h"

static const at_attr kSeeds[] = {AT_INT("seed", 1), AT_INT("seed2", 2),
                                 {NULL}};

/* A crop of an image of 2^31 - 2 pixels a side stays inside it. */
static void test_bbox_huge_image(void) {
  at_call c = {"SampleDistortedBoundingBox", kSeeds, 0, 0, NULL};
  for (int run = 0; run < 2; run++) {
    int32_t side = INT32_MAX - 1 - run;
    tfs_tensor *in[] = {at_i32(1, D(3), I32(side, side, 3)),
                        at_f32(3, D(1, 1, 4), F32(0, 0, 1, 1))};
    tfs_tensor *out[3] = {NULL, NULL, NULL};
    CU_ASSERT_EQUAL(at_run(&c, in, 2, out, 3), TFS_OK);
    if (out[0] && out[1]) {
      const int32_t *b = tfs_tensor_data(out[0]);
      const int32_t *s = tfs_tensor_data(out[1]);
      for (int k = 0; k < 2; k++) {
        CU_ASSERT_TRUE(b[k] >= 0 && s[k] >= 0);
        CU_ASSERT_TRUE((int64_t)b[k] + s[k] <= side);
      }
      CU_ASSERT_EQUAL(s[2], -1);
    }
    at_free(in, 2);
    at_free(out, 3);
  }
}

/* A side of 2^31 - 1 is TensorFlow's error; so is a negative one. */
static void test_bbox_side_limits(void) {
  at_call c = {"SampleDistortedBoundingBox", kSeeds, 0, 0, NULL};
  tfs_tensor *in[] = {at_i64(1, D(3), I64(5, INT32_MAX, 3)),
                      at_f32(3, D(1, 1, 4), F32(0, 0, 1, 1))};
  at_expect_error(&c, in, 2, TFS_INVALID_ARGUMENT,
                  "image width cannot be >= int32 max");
  tfs_tensor *in2[] = {at_i64(1, D(3), I64(INT64_MIN, 5, 3)),
                       at_f32(3, D(1, 1, 4), F32(0, 0, 1, 1))};
  at_expect_error(&c, in2, 2, TFS_INVALID_ARGUMENT,
                  "image height cannot be >= int32 max");
}

/* NaN coordinates are out of [0, 1]. */
static void test_bbox_nan_box(void) {
  at_call c = {"SampleDistortedBoundingBox", kSeeds, 0, 0, NULL};
  tfs_tensor *in[] = {at_i32(1, D(3), I32(10, 10, 3)),
                      at_f32(3, D(1, 1, 4), F32(0, NAN, 1, 1))};
  at_expect_error(&c, in, 2, TFS_INVALID_ARGUMENT,
                  "All bounding box coordinates must be in [0.0, 1.0]: nan");
}

/* num_samples = 2^31 - 1 for 4 rows: an output no memory holds is an
 * error, not an abort. */
static void test_multinomial_huge_output(void) {
  at_call c = {"Multinomial", kSeeds, 0, 0, NULL};
  tfs_tensor *in[] = {at_f32(2, D(4, 2), F32(0, 1, 2, 3, 4, 5, 6, 7)),
                      at_si32(INT32_MAX)};
  tfs_tensor *out[1] = {NULL};
  CU_ASSERT_NOT_EQUAL(at_run(&c, in, 2, out, 1), TFS_OK);
  at_free(in, 2);
  at_free(out, 1);
}

/* Rows of NaN logits give num_classes (as TensorFlow's upper bound on an
 * all-zero CDF does); logits at the ends of float stay in range. */
static void test_multinomial_nonfinite(void) {
  at_call c = {"Multinomial", kSeeds, 0, 0, NULL};
  tfs_tensor *in[] = {
      at_f32(2, D(2, 3), F32(NAN, NAN, NAN, -FLT_MAX, FLT_MAX, -FLT_MAX)),
      at_si32(8)};
  tfs_tensor *out = at_eval(&c, in, 2);
  CU_ASSERT_PTR_NOT_NULL_FATAL(out);
  const int64_t *v = tfs_tensor_data(out);
  for (int k = 0; k < 8; k++) {
    CU_ASSERT_EQUAL(v[k], 3);
    CU_ASSERT_EQUAL(v[8 + k], 1);
  }
  tfs_tensor_free(out);
}

/* Without seeds the generator is random; the result is a permutation. */
static void test_shuffle_unseeded(void) {
  at_call c = {"RandomShuffle", NULL, 0, 0, NULL};
  int32_t v[200];
  for (int i = 0; i < 200; i++) v[i] = i;
  tfs_tensor *in[] = {at_i32(2, D(100, 2), v)};
  tfs_tensor *out = at_eval(&c, in, 1);
  CU_ASSERT_PTR_NOT_NULL_FATAL(out);
  const int32_t *o = tfs_tensor_data(out);
  int seen[100];
  memset(seen, 0, sizeof seen);
  for (int i = 0; i < 100; i++) {
    int r = o[2 * i] / 2;
    CU_ASSERT_TRUE(r >= 0 && r < 100 && o[2 * i + 1] == o[2 * i] + 1);
    if (r >= 0 && r < 100) seen[r]++;
  }
  for (int i = 0; i < 100; i++) CU_ASSERT_EQUAL(seen[i], 1);
  tfs_tensor_free(out);
}

static const tfs_test_case kCases[] = {
    {"bbox_huge_image", test_bbox_huge_image},
    {"bbox_side_limits", test_bbox_side_limits},
    {"bbox_nan_box", test_bbox_nan_box},
    {"multinomial_huge_output", test_multinomial_huge_output},
    {"multinomial_nonfinite", test_multinomial_nonfinite},
    {"shuffle_unseeded", test_shuffle_unseeded},
    {NULL, NULL},
};

const tfs_test_suite tfs_test_suites[] = {
    {"sampling_ops", kCases},
    {NULL, NULL},
};
