/*
 * tests/kernels/test_conv_grad.c - the convolution gradient kernels
 * (Conv2DBackpropFilter, DepthwiseConv2dNativeBackpropInput and
 * DepthwiseConv2dNativeBackpropFilter) on hostile sizes vectors: element
 * counts that overflow int64, negative values, vectors of hundreds of
 * values or of rank 2, filters far larger than the image; each must give
 * TensorFlow's error or a bounded result, never an abort.  Also the
 * gradients against direct loops on a batch large enough to be split
 * over threads.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "arraytest.h"

static const at_attr kSame[] = {
    AT_LIST("strides", 4, 1, 1, 1, 1),
    AT_STR("padding", "SAME"),
    {NULL, 0, 0, NULL, NULL, 0, TFS_INVALID},
};

static tfs_tensor *filled(int64_t n, int64_t h, int64_t w, int64_t c,
                          float scale) {
  int64_t total = n * h * w * c;
  float *v = malloc(sizeof(float) * (size_t)(total ? total : 1));
  for (int64_t i = 0; i < total; i++)
    v[i] = scale * (float)((i * 37 + 11) % 19 - 9) / 9.0f;
  tfs_tensor *t = at_f32(4, D(n, h, w, c), v);
  free(v);
  return t;
}

/* filter_sizes whose product overflows int64, negative values, and
 * lengths other than 4. */
static void test_filter_sizes_hostile(void) {
  at_call c = {"Conv2DBackpropFilter", kSame, 0, 0, NULL};
  tfs_tensor *in[3];
  in[0] = filled(1, 3, 3, 2, 1), in[2] = filled(1, 3, 3, 4, 1);
  in[1] = at_i32(1, D(4), I32(INT32_MAX, INT32_MAX, INT32_MAX, 4));
  at_expect_error(&c, in, 3, TFS_INVALID_ARGUMENT,
                  "would have more than 2**63 - 1 elements");
  in[0] = filled(1, 3, 3, 2, 1), in[2] = filled(1, 3, 3, 4, 1);
  in[1] = at_i32(1, D(4), I32(3, INT32_MIN, 2, 4));
  at_expect_error(&c, in, 3, TFS_INVALID_ARGUMENT,
                  "Dimension -2147483648 must be >= 0");
  int32_t many[300];
  for (int i = 0; i < 300; i++) many[i] = INT32_MAX;
  in[0] = filled(1, 3, 3, 2, 1), in[2] = filled(1, 3, 3, 4, 1);
  in[1] = at_i32(1, D(300), many);
  at_expect_error(&c, in, 3, TFS_INVALID_ARGUMENT,
                  "filter must be 4-dimensional");
  in[0] = filled(1, 3, 3, 2, 1), in[2] = filled(1, 3, 3, 4, 1);
  in[1] = at_i32(2, D(2, 2), I32(3, 3, 2, 4));
  at_expect_error(&c, in, 3, TFS_INVALID_ARGUMENT,
                  "filter_sizes input must be 1-dim, not 2");
  /* a filter wider than int32 windows allow */
  in[0] = filled(1, 3, 3, 2, 1), in[2] = filled(1, 3, 3, 4, 1);
  in[1] = at_i32(1, D(4), I32(3, 3, 2, INT32_MAX));
  at_expect_error(&c, in, 3, TFS_INVALID_ARGUMENT,
                  "filter and out_backprop must have the same out_depth");
}

/* A filter of 301 x 301 over a 3 x 3 image: SAME keeps the output at
 * 3 x 3, every patch mostly padding.  Bounded scratch; only the taps
 * over the image are non-zero. */
static void test_filter_much_larger(void) {
  at_call c = {"Conv2DBackpropFilter", kSame, 0, 0, NULL};
  tfs_tensor *in[3] = {filled(2, 3, 3, 2, 1),
                       at_i32(1, D(4), I32(301, 301, 2, 3)),
                       filled(2, 3, 3, 3, 1)};
  tfs_tensor *out = NULL;
  CU_ASSERT_EQUAL_FATAL(at_run(&c, in, 3, &out, 1), TFS_OK);
  const float *v = tfs_tensor_data(out);
  double far = 0;
  for (int64_t ky = 0; ky < 301; ky++)
    for (int64_t kx = 0; kx < 301; kx++)
      if (labs((long)ky - 150) > 2 || labs((long)kx - 150) > 2)
        for (int q = 0; q < 6; q++) far += fabs(v[(ky * 301 + kx) * 6 + q]);
  double near = 0;
  for (int64_t i = 0; i < 301 * 301 * 6; i++) near += fabs(v[i]);
  CU_ASSERT(near > 0);
  CU_ASSERT_EQUAL(far, 0.0);
  at_free(in, 3);
  at_free(&out, 1);
}

static void test_depthwise_sizes_hostile(void) {
  at_call ci = {"DepthwiseConv2dNativeBackpropInput", kSame, 0, 0, NULL};
  tfs_tensor *in[3];
  in[0] = at_i32(1, D(4), I32(INT32_MAX, INT32_MAX, INT32_MAX, 3));
  in[1] = filled(2, 2, 3, 1, 1), in[2] = filled(1, 3, 3, 3, 1);
  at_expect_error(&ci, in, 3, TFS_INVALID_ARGUMENT,
                  "Encountered overflow when multiplying");
  in[0] = at_i32(1, D(4), I32(1, 3, -1, 3));
  in[1] = filled(2, 2, 3, 1, 1), in[2] = filled(1, 3, 3, 3, 1);
  at_expect_error(&ci, in, 3, TFS_INVALID_ARGUMENT,
                  "Dimension 2 of input_sizes must be >= 0");
  int32_t many[300];
  for (int i = 0; i < 300; i++) many[i] = 1;
  in[0] = at_i32(1, D(300), many);
  in[1] = filled(2, 2, 3, 1, 1), in[2] = filled(1, 3, 3, 3, 1);
  at_expect_error(&ci, in, 3, TFS_INVALID_ARGUMENT,
                  "input must be 4-dimensional");
  at_call cf = {"DepthwiseConv2dNativeBackpropFilter", kSame, 0, 0, NULL};
  in[0] = filled(1, 3, 3, 3, 1);
  in[1] = at_i32(1, D(4), I32(INT32_MAX, INT32_MAX, 3, INT32_MAX));
  in[2] = filled(1, 3, 3, 3, 1);
  at_expect_error(&cf, in, 3, TFS_INVALID_ARGUMENT,
                  "Encountered overflow when multiplying");
  in[0] = filled(1, 3, 3, 3, 1);
  in[1] = at_i32(1, D(4), I32(2, 2, 3, INT32_MAX));
  in[2] = filled(1, 3, 3, 3, 1);
  at_expect_error(&cf, in, 3, TFS_INVALID_ARGUMENT,
                  "depth_multiplier * in_depth not equal to out_depth");
  in[0] = filled(1, 3, 3, 3, 1);
  in[1] = at_i32(2, D(2, 2), I32(2, 2, 3, 1));
  in[2] = filled(1, 3, 3, 3, 1);
  at_expect_error(&cf, in, 3, TFS_INVALID_ARGUMENT,
                  "filter_sizes input must be 1-dim, not 2");
}

/* Direct loops: SAME, stride 1, 3 x 3 filter, depth multiplier M. */
static double x_at(const float *x, int64_t H, int64_t W, int64_t C,
                   int64_t b, int64_t y, int64_t xx, int64_t c) {
  if (y < 0 || y >= H || xx < 0 || xx >= W) return 0;
  return x[((b * H + y) * W + xx) * C + c];
}

/* The depthwise filter gradient of a batch of 8 (split over threads)
 * against direct sums. */
static void test_depthwise_filter_direct(void) {
  const int64_t N = 8, H = 9, W = 7, C = 5, M = 2;
  at_call cf = {"DepthwiseConv2dNativeBackpropFilter", kSame, 0, 0, NULL};
  tfs_tensor *in[3] = {filled(N, H, W, C, 1), at_i32(1, D(4), I32(3, 3, 5, 2)),
                       filled(N, H, W, C * M, 0.5f)};
  tfs_tensor *out = NULL;
  CU_ASSERT_EQUAL_FATAL(at_run(&cf, in, 3, &out, 1), TFS_OK);
  const float *x = tfs_tensor_data(in[0]), *g = tfs_tensor_data(in[2]);
  const float *v = tfs_tensor_data(out);
  double worst = 0;
  for (int64_t ky = 0; ky < 3; ky++)
    for (int64_t kx = 0; kx < 3; kx++)
      for (int64_t c = 0; c < C; c++)
        for (int64_t m = 0; m < M; m++) {
          double s = 0;
          for (int64_t b = 0; b < N; b++)
            for (int64_t y = 0; y < H; y++)
              for (int64_t xx = 0; xx < W; xx++)
                s += x_at(x, H, W, C, b, y + ky - 1, xx + kx - 1, c) *
                     g[((b * H + y) * W + xx) * C * M + c * M + m];
          double d = fabs(s - v[((ky * 3 + kx) * C + c) * M + m]);
          if (d > worst) worst = d;
        }
  CU_ASSERT(worst < 1e-3);
  at_free(in, 3);
  at_free(&out, 1);
}

/* Conv2DBackpropFilter of a batch of 8 against direct sums. */
static void test_filter_direct(void) {
  const int64_t N = 8, H = 36, W = 36, C = 3, K = 4; /* two GEMM blocks */
  at_call c = {"Conv2DBackpropFilter", kSame, 0, 0, NULL};
  tfs_tensor *in[3] = {filled(N, H, W, C, 1), at_i32(1, D(4), I32(3, 3, 3, 4)),
                       filled(N, H, W, K, 0.5f)};
  tfs_tensor *out = NULL;
  CU_ASSERT_EQUAL_FATAL(at_run(&c, in, 3, &out, 1), TFS_OK);
  const float *x = tfs_tensor_data(in[0]), *g = tfs_tensor_data(in[2]);
  const float *v = tfs_tensor_data(out);
  double worst = 0;
  for (int64_t ky = 0; ky < 3; ky++)
    for (int64_t kx = 0; kx < 3; kx++)
      for (int64_t ci = 0; ci < C; ci++)
        for (int64_t k = 0; k < K; k++) {
          double s = 0;
          for (int64_t b = 0; b < N; b++)
            for (int64_t y = 0; y < H; y++)
              for (int64_t xx = 0; xx < W; xx++)
                s += x_at(x, H, W, C, b, y + ky - 1, xx + kx - 1, ci) *
                     g[((b * H + y) * W + xx) * K + k];
          double d = fabs(s - v[((ky * 3 + kx) * C + ci) * K + k]);
          if (d > worst) worst = d;
        }
  CU_ASSERT(worst < 1e-2); /* sums of 10368 products near 60 */
  at_free(in, 3);
  at_free(&out, 1);
}

static const tfs_test_case kCases[] = {
    {"filter_sizes_hostile", test_filter_sizes_hostile},
    {"filter_much_larger", test_filter_much_larger},
    {"depthwise_sizes_hostile", test_depthwise_sizes_hostile},
    {"depthwise_filter_direct", test_depthwise_filter_direct},
    {"filter_direct", test_filter_direct},
    {NULL, NULL},
};

const tfs_test_suite tfs_test_suites[] = {
    {"conv_grad", kCases},
    {NULL, NULL},
};
