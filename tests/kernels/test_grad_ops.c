/*
 * tests/kernels/test_grad_ops.c - the gradient kernels on hostile input:
 * BroadcastGradientArgs on long shape vectors and dims at the ends of
 * int64, StridedSliceGrad on shapes whose element count overflows, ranks
 * above TFS_MAX_RANK, strides of INT64_MIN and dy of the wrong shape,
 * BiasAddGrad over more channels than one accumulation block and with
 * wrapping integer sums, and the elementwise gradients on inputs of
 * different shapes; each must give TensorFlow's result or an error,
 * never an abort or an out-of-bounds access.
 */
#include <stdint.h>
#include <stdlib.h>

#include "arraytest.h"

/* ---- BroadcastGradientArgs ----------------------------------------------- */

static tfs_tensor *bga(tfs_tensor *s0, tfs_tensor *s1, tfs_tensor **r1) {
  at_call c = {"BroadcastGradientArgs", NULL, 0, 0, NULL};
  tfs_tensor *in[] = {s0, s1}, *out[2] = {NULL, NULL};
  CU_ASSERT_EQUAL(at_run(&c, in, 2, out, 2), TFS_OK);
  at_free(in, 2);
  *r1 = out[1];
  return out[0];
}

/* 100000 ones against one dim: every axis but the last reduces on the
 * left, the last on both sides. */
static void test_bga_long_vectors(void) {
  enum { N = 100000 };
  int64_t *ones = malloc(sizeof(int64_t) * N);
  CU_ASSERT_PTR_NOT_NULL_FATAL(ones);
  for (int i = 0; i < N; i++) ones[i] = 1;
  tfs_tensor *r1, *r0 = bga(at_i64(1, D(N), ones), at_i64(1, D(1), I64(1)),
                            &r1);
  CU_ASSERT_PTR_NOT_NULL_FATAL(r0);
  CU_ASSERT_PTR_NOT_NULL_FATAL(r1);
  CU_ASSERT_EQUAL(tfs_tensor_dim(r0, 0), N);
  CU_ASSERT_EQUAL(tfs_tensor_dim(r1, 0), N);
  const int64_t *a = tfs_tensor_data(r0), *b = tfs_tensor_data(r1);
  CU_ASSERT_EQUAL(a[N - 1], N - 1);
  CU_ASSERT_EQUAL(b[0], 0);
  tfs_tensor_free(r0);
  tfs_tensor_free(r1);
  free(ones);
}

/* Dims at the ends of int64 compare as values; the message prints them. */
static void test_bga_int64_ends(void) {
  tfs_tensor *r1, *r0 = bga(at_i64(1, D(3), I64(INT64_MAX, 1, INT64_MIN)),
                            at_i64(1, D(2), I64(7, INT64_MIN)), &r1);
  at_check(r0, TFS_INT64, 1, D(1), I64(1));
  at_check(r1, TFS_INT64, 1, D(1), I64(0));
  at_call c = {"BroadcastGradientArgs", NULL, 0, 0, NULL};
  tfs_tensor *in[] = {at_i64(1, D(2), I64(INT64_MAX, 2)),
                      at_i64(1, D(1), I64(INT64_MIN))};
  at_expect_error(&c, in, 2, TFS_INVALID_ARGUMENT,
                  "Incompatible shapes: [9223372036854775807,2] vs. "
                  "[-9223372036854775808]");
}

/* A long incompatible pair: the whole message. */
static void test_bga_long_message(void) {
  enum { N = 1500 };
  int32_t *v = malloc(sizeof(int32_t) * N);
  CU_ASSERT_PTR_NOT_NULL_FATAL(v);
  for (int i = 0; i < N; i++) v[i] = 3;
  at_call c = {"BroadcastGradientArgs", NULL, 0, 0, NULL};
  tfs_tensor *in[] = {at_i32(1, D(N), v), at_i32(1, D(1), I32(2))};
  at_expect_error(&c, in, 2, TFS_INVALID_ARGUMENT, "3,3,3] vs. [2]");
  free(v);
}

/* ---- StridedSliceGrad ---------------------------------------------------- */

static at_call ssg_call(const at_attr *attrs) {
  at_call c = {"StridedSliceGrad", attrs, 0, 0, NULL};
  return c;
}

/* The sliced input's element count overflows int64. */
static void test_ssg_shape_overflow(void) {
  at_call c = ssg_call(NULL);
  tfs_tensor *in[] = {at_i64(1, D(3), I64(1ll << 40, 1ll << 40, 1ll << 40)),
                      at_i64(1, D(1), I64(0)), at_i64(1, D(1), I64(1)),
                      at_i64(1, D(1), I64(1)), at_f32(1, D(1), F32(1))};
  at_expect_error(&c, in, 5, TFS_INVALID_ARGUMENT,
                  "Shape [1099511627776,1099511627776,1099511627776] would "
                  "have more than 2**63 - 1 elements");
}

/* A shape vector longer than TFS_MAX_RANK. */
static void test_ssg_rank_limit(void) {
  int64_t dims[TFS_MAX_RANK + 1];
  for (int i = 0; i <= TFS_MAX_RANK; i++) dims[i] = 1;
  at_call c = ssg_call(NULL);
  tfs_tensor *in[] = {at_i64(1, D(TFS_MAX_RANK + 1), dims),
                      at_i64(1, D(1), I64(0)), at_i64(1, D(1), I64(1)),
                      at_i64(1, D(1), I64(1)), at_f32(1, D(1), F32(1))};
  at_expect_error(&c, in, 5, TFS_INVALID_ARGUMENT,
                  "exceeds the maximum rank");
}

/* A huge input with an empty slice: the zeros are refused, not
 * allocated. */
static void test_ssg_huge_zeros(void) {
  at_call c = ssg_call(NULL);
  tfs_tensor *in[] = {at_i64(1, D(1), I64(INT64_MAX / 8)),
                      at_i64(1, D(1), I64(3)), at_i64(1, D(1), I64(3)),
                      at_i64(1, D(1), I64(1)), at_f32(1, D(0), NULL)};
  tfs_tensor *out[1] = {NULL};
  CU_ASSERT_NOT_EQUAL(at_run(&c, in, 5, out, 1), TFS_OK);
  at_free(in, 5);
  at_free(out, 1);
}

/* Strides of INT64_MIN and INT64_MAX take one element each. */
static void test_ssg_extreme_strides(void) {
  at_call c = ssg_call(NULL);
  tfs_tensor *in[] = {at_i64(1, D(2), I64(4, 3)), at_i64(1, D(2), I64(-1, 1)),
                      at_i64(1, D(2), I64(INT64_MIN, INT64_MAX)),
                      at_i64(1, D(2), I64(INT64_MIN, INT64_MAX)),
                      at_f32(2, D(1, 1), F32(7))};
  at_check(at_eval(&c, in, 5), TFS_FLOAT, 2, D(4, 3),
           F32(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 7, 0));
}

/* Backwards with a step of -2 over a 2-D input, and dy of the wrong
 * shape. */
static void test_ssg_backwards(void) {
  at_call c = ssg_call(NULL);
  tfs_tensor *in[] = {at_i32(1, D(2), I32(2, 5)), at_i32(1, D(2), I32(1, -1)),
                      at_i32(1, D(2), I32(-3, -6)),
                      at_i32(1, D(2), I32(-1, -2)),
                      at_f32(2, D(2, 3), F32(1, 2, 3, 4, 5, 6))};
  at_check(at_eval(&c, in, 5), TFS_FLOAT, 2, D(2, 5),
           F32(6, 0, 5, 0, 4, 3, 0, 2, 0, 1));
  tfs_tensor *in2[] = {at_i32(1, D(1), I32(5)), at_i32(1, D(1), I32(0)),
                       at_i32(1, D(1), I32(5)), at_i32(1, D(1), I32(2)),
                       at_f32(1, D(2), F32(1, 2))};
  at_expect_error(&c, in2, 5, TFS_INVALID_ARGUMENT,
                  "shape of dy was [2] instead of [3]");
}

/* Strings: the rest of the output is empty strings. */
static void test_ssg_strings(void) {
  at_call c = ssg_call(NULL);
  const char *dy[] = {"a", "bb"};
  tfs_tensor *in[] = {at_i32(1, D(1), I32(4)), at_i32(1, D(1), I32(1)),
                      at_i32(1, D(1), I32(4)), at_i32(1, D(1), I32(2)),
                      at_strs(1, D(2), dy)};
  const char *want[] = {"", "a", "", "bb"};
  at_check_strs(at_eval(&c, in, 5), 1, D(4), want);
}

/* ---- BiasAddGrad ----------------------------------------------------------
 */

/* 600 channels (several accumulation blocks) in both layouts. */
static void test_bias_many_channels(void) {
  enum { C = 600 };
  float *x = malloc(sizeof(float) * 2 * C * 3), want[C];
  CU_ASSERT_PTR_NOT_NULL_FATAL(x);
  for (int i = 0; i < 2 * C * 3; i++) x[i] = (float)(i % 7);
  for (int c = 0; c < C; c++) {
    want[c] = 0;
    for (int n = 0; n < 2; n++)
      for (int k = 0; k < 3; k++) want[c] += x[(n * C + c) * 3 + k];
  }
  at_attr nchw[] = {AT_STR("data_format", "NCHW"), {NULL}};
  at_call c = {"BiasAddGrad", nchw, 0, 0, NULL};
  tfs_tensor *in[] = {at_f32(3, D(2, C, 3), x)};
  at_check(at_eval(&c, in, 1), TFS_FLOAT, 1, D(C), want);
  for (int c2 = 0; c2 < C; c2++) {
    want[c2] = 0;
    for (int r = 0; r < 6; r++) want[c2] += x[r * C + c2];
  }
  at_call h = {"BiasAddGrad", NULL, 0, 0, NULL};
  tfs_tensor *in2[] = {at_f32(3, D(2, 3, C), x)};
  at_check(at_eval(&h, in2, 1), TFS_FLOAT, 1, D(C), want);
  free(x);
}

/* int32 sums wrap as TensorFlow's do; rank 1 is refused. */
static void test_bias_int_wrap(void) {
  at_call c = {"BiasAddGrad", NULL, 0, 0, NULL};
  tfs_tensor *in[] = {
      at_i32(2, D(2, 2), I32(INT32_MAX, INT32_MIN, 1, INT32_MIN))};
  at_check(at_eval(&c, in, 1), TFS_INT32, 1, D(2), I32(INT32_MIN, 0));
  tfs_tensor *in2[] = {at_f32(1, D(3), F32(1, 2, 3))};
  at_expect_error(&c, in2, 1, TFS_INVALID_ARGUMENT,
                  "Input tensor must be at least 2D: [3]");
}

/* ---- elementwise gradients ----------------------------------------------- */

static void test_elementwise_shapes(void) {
  at_call relu = {"ReluGrad", NULL, 0, 0, NULL};
  tfs_tensor *in[] = {at_f32(2, D(2, 3), NULL), at_f32(2, D(3, 2), NULL)};
  at_expect_error(&relu, in, 2, TFS_INVALID_ARGUMENT,
                  "Inputs to operation n of type ReluGrad must have the same "
                  "size and shape.  Input 0: [2,3] != input 1: [3,2]");
  at_call sig = {"SigmoidGrad", NULL, 0, 0, NULL};
  tfs_tensor *in2[] = {at_f32(2, D(2, 2), F32(0.5f, 0.5f, 0.5f, 0.5f)),
                       at_f32(1, D(4), F32(4, 8, 0, -4))};
  at_check(at_eval(&sig, in2, 2), TFS_FLOAT, 2, D(2, 2), F32(1, 2, 0, -1));
  tfs_tensor *in3[] = {at_f32(1, D(4), NULL), at_f32(1, D(5), NULL)};
  at_expect_error(&sig, in3, 2, TFS_INVALID_ARGUMENT,
                  "must have same number of elements, got 4 and 5");
}

static const tfs_test_case kCases[] = {
    {"bga_long_vectors", test_bga_long_vectors},
    {"bga_int64_ends", test_bga_int64_ends},
    {"bga_long_message", test_bga_long_message},
    {"ssg_shape_overflow", test_ssg_shape_overflow},
    {"ssg_rank_limit", test_ssg_rank_limit},
    {"ssg_huge_zeros", test_ssg_huge_zeros},
    {"ssg_extreme_strides", test_ssg_extreme_strides},
    {"ssg_backwards", test_ssg_backwards},
    {"ssg_strings", test_ssg_strings},
    {"bias_many_channels", test_bias_many_channels},
    {"bias_int_wrap", test_bias_int_wrap},
    {"elementwise_shapes", test_elementwise_shapes},
    {NULL, NULL},
};

const tfs_test_suite tfs_test_suites[] = {
    {"grad_ops", kCases},
    {NULL, NULL},
};
