/*
 * tests/kernels/test_extra_ops.c - the string conversion, set, CTC and
 * LSTM cell kernels on hostile values: numbers far past every limit,
 * strings longer than any buffer, widths and precisions at the ends of
 * int32, empty set inputs of 2^60 groups, sequence lengths at the ends
 * of int32, LSTM dims whose sum overflows and inputs of the wrong rank
 * (where TensorFlow's kernel aborts); each must give a bounded result or
 * an error, never an abort or an out-of-bounds access.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "arraytest.h"
#include "core/tensor.h"
#include "core/tstring.h"

/* A string of n copies of ch (caller frees). */
static char *repeat(char ch, size_t n) {
  char *s = malloc(n + 1);
  memset(s, ch, n);
  s[n] = 0;
  return s;
}

/* Ten thousand digits: infinity as a float, an error as an integer; an
 * embedded NUL is not the end of the string. */
static void test_s2n_long_and_nul(void) {
  char *digits = repeat('7', 10000);
  const char *v[] = {digits};
  static const at_attr f32[] = {AT_TYPE("out_type", TFS_FLOAT), {NULL}};
  at_call cf = {"StringToNumber", f32, 0, 0, NULL};
  tfs_tensor *in[] = {at_strs(1, D(1), v)};
  tfs_tensor *out = at_eval(&cf, in, 1);
  CU_ASSERT_TRUE(out && isinf(((const float *)tfs_tensor_data(out))[0]));
  tfs_tensor_free(out);
  static const at_attr i64[] = {AT_TYPE("out_type", TFS_INT64), {NULL}};
  at_call ci = {"StringToNumber", i64, 0, 0, NULL};
  tfs_tensor *in2[] = {at_strs(1, D(1), v)};
  at_expect_error(&ci, in2, 1, TFS_INVALID_ARGUMENT,
                  "StringToNumberOp could not correctly convert string: 777");
  free(digits);
  tfs_tensor *nul = at_strs(1, D(1), (const char *const[]){"5"});
  tfs_tstring_copy(tfs_tensor__strings(nul), "5\0", 2);
  tfs_tensor *in3[] = {nul};
  at_expect_error(&cf, in3, 1, TFS_INVALID_ARGUMENT,
                  "could not correctly convert string: 5");
}

/* The integer limits, one past them, and signs the unsigned types
 * refuse. */
static void test_s2n_int_limits(void) {
  static const at_attr u64[] = {AT_TYPE("out_type", TFS_UINT64), {NULL}};
  at_call cu = {"StringToNumber", u64, 0, 0, NULL};
  tfs_tensor *in[] = {at_strs(1, D(1), (const char *const[]){
      " 18446744073709551615 "})};
  tfs_tensor *out = at_eval(&cu, in, 1);
  CU_ASSERT_TRUE(out && ((const uint64_t *)tfs_tensor_data(out))[0] ==
                            UINT64_MAX);
  tfs_tensor_free(out);
  const char *bad[] = {"18446744073709551616", "-0", "+", ""};
  for (int i = 0; i < 4; i++) {
    tfs_tensor *in2[] = {at_strs(1, D(1), &bad[i])};
    at_expect_error(&cu, in2, 1, TFS_INVALID_ARGUMENT,
                    "StringToNumberOp could not correctly convert");
  }
  static const at_attr i64[] = {AT_TYPE("out_type", TFS_INT64), {NULL}};
  at_call ci = {"StringToNumber", i64, 0, 0, NULL};
  tfs_tensor *in3[] = {at_strs(1, D(2), (const char *const[]){
      "-9223372036854775808", "9223372036854775807"})};
  at_check(at_eval(&ci, in3, 1), TFS_INT64, 1, D(2),
           I64(INT64_MIN, INT64_MAX));
}

/* Widths and precisions past any fixed buffer format in full; values
 * outside int32 are TensorFlow's attr error. */
static void test_as_string_wide(void) {
  static const at_attr w[] = {AT_INT("width", 100000), AT_STR("fill", "-"),
                              {NULL}};
  at_call cw = {"AsString", w, 0, 0, NULL};
  tfs_tensor *in[] = {at_f32(1, D(2), F32(1.5f, -INFINITY))};
  tfs_tensor *out = at_eval(&cw, in, 1);
  if (out) {
    const tfs_tstring *s = tfs_tensor__strings(out);
    CU_ASSERT_EQUAL(tfs_tstring_size(&s[0]), 100000);
    CU_ASSERT_EQUAL(memcmp(tfs_tstring_data(&s[1]), "-inf ", 5), 0);
  }
  tfs_tensor_free(out);
  static const at_attr p[] = {AT_INT("precision", 1000), {NULL}};
  at_call cp = {"AsString", p, 0, 0, NULL};
  tfs_tensor *in2[] = {at_t(TFS_DOUBLE, 1, D(1), (const double[]){1e300})};
  out = at_eval(&cp, in2, 1);
  if (out)
    CU_ASSERT_EQUAL(tfs_tstring_size(tfs_tensor__strings(out)),
                    301 + 1 + 1000);
  tfs_tensor_free(out);
  static const at_attr big[] = {AT_INT("width", (int64_t)INT32_MAX + 1),
                                {NULL}};
  at_call cb = {"AsString", big, 0, 0, NULL};
  tfs_tensor *in3[] = {at_i32(1, D(1), I32(1))};
  at_expect_error(&cb, in3, 1, TFS_INVALID_ARGUMENT,
                  "Attr width has value 2147483648 out of range for an "
                  "int32");
  static const at_attr sw[] = {AT_INT("width", 70000),
                               AT_INT("precision", 3), {NULL}};
  at_call cs = {"AsString", sw, 0, 0, NULL};
  char *text = repeat('x', 5000);
  tfs_tensor *in4[] = {at_strs(1, D(1), (const char *const[]){text})};
  out = at_eval(&cs, in4, 1);
  if (out) {
    const tfs_tstring *s = tfs_tensor__strings(out);
    CU_ASSERT_EQUAL(tfs_tstring_size(s), 70000);
    CU_ASSERT_EQUAL(memcmp(tfs_tstring_data(s) + 69997, "xxx", 3), 0);
  }
  tfs_tensor_free(out);
  free(text);
}

/* Empty inputs of 2^60 groups: every result is empty, the groups are not
 * visited. */
static void test_set_huge_empty_groups(void) {
  static const at_attr u[] = {AT_STR("set_operation", "union"), {NULL}};
  at_call c = {"DenseToDenseSetOperation", u, 0, 0, NULL};
  int64_t big = (int64_t)1 << 40;
  int64_t mid = (int64_t)1 << 20;
  tfs_tensor *in[] = {at_i32(3, D(big, mid, 0), NULL),
                      at_i32(3, D(big, mid, 0), NULL)};
  tfs_tensor *out[3] = {NULL, NULL, NULL};
  CU_ASSERT_EQUAL(at_run(&c, in, 2, out, 3), TFS_OK);
  if (out[2]) {
    const int64_t *s = tfs_tensor_data(out[2]);
    CU_ASSERT_TRUE(s[0] == big && s[1] == mid && s[2] == 0);
    CU_ASSERT_EQUAL(tfs_tensor_dim(out[0], 0), 0);
  }
  at_free(in, 2);
  at_free(out, 3);
  /* no group, rows of 2^62 values */
  int64_t huge = (int64_t)1 << 62;
  tfs_tensor *in2[] = {at_i32(2, D(0, huge), NULL),
                       at_i32(2, D(0, 3), NULL)};
  tfs_tensor *out2[3] = {NULL, NULL, NULL};
  CU_ASSERT_EQUAL(at_run(&c, in2, 2, out2, 3), TFS_OK);
  at_free(in2, 2);
  at_free(out2, 3);
}

/* Sequence lengths at the ends of int32 and blank indices at the ends of
 * int64. */
static void test_ctc_extremes(void) {
  at_call c = {"CTCGreedyDecoder", NULL, 0, 0, NULL};
  float x[2 * 2 * 3] = {0, 1, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
  tfs_tensor *in[] = {at_f32(3, D(2, 2, 3), x),
                      at_i32(1, D(2), I32(INT32_MIN, 2))};
  tfs_tensor *out[4] = {NULL, NULL, NULL, NULL};
  CU_ASSERT_EQUAL(at_run(&c, in, 2, out, 4), TFS_OK);
  if (out[2]) {
    const int64_t *s = tfs_tensor_data(out[2]);
    CU_ASSERT_TRUE(s[0] == 2 && s[1] == 1);
  }
  at_free(in, 2);
  at_free(out, 4);
  tfs_tensor *in2[] = {at_f32(3, D(2, 2, 3), x),
                       at_i32(1, D(2), I32(1, INT32_MAX))};
  at_expect_error(&c, in2, 2, TFS_FAILED_PRECONDITION,
                  "sequence_length(1) <= 2");
  static const at_attr lo[] = {AT_INT("blank_index", INT64_MIN), {NULL}};
  at_call cl = {"CTCGreedyDecoder", lo, 0, 0, NULL};
  tfs_tensor *in3[] = {at_f32(3, D(2, 2, 3), x), at_i32(1, D(2), I32(2, 2))};
  at_expect_error(&cl, in3, 2, TFS_INVALID_ARGUMENT,
                  "blank_index expected to be between -3 and 2 but was "
                  "-9223372036854775808");
}

/* LSTM inputs: dims whose sum overflows, a rank TensorFlow's kernel
 * aborts on, peephole weights shorter than the cell. */
static void test_lstm_hostile(void) {
  at_call c = {"LSTMBlockCell", NULL, 0, 0, NULL};
  int64_t half = (int64_t)1 << 62;
  tfs_tensor *in[] = {at_f32(2, D(0, half), NULL), at_f32(2, D(0, half), NULL),
                      at_f32(2, D(0, half), NULL), at_f32(2, D(0, 0), NULL),
                      at_f32(1, D(0), NULL),       at_f32(1, D(0), NULL),
                      at_f32(1, D(0), NULL),       at_f32(1, D(0), NULL)};
  at_expect_error(&c, in, 8, TFS_INVALID_ARGUMENT, "overflows");
  tfs_tensor *in2[] = {at_f32(1, D(2), NULL),    at_f32(2, D(2, 1), NULL),
                       at_f32(2, D(2, 1), NULL), at_f32(2, D(2, 4), NULL),
                       at_f32(1, D(1), NULL),    at_f32(1, D(1), NULL),
                       at_f32(1, D(1), NULL),    at_f32(1, D(4), NULL)};
  at_expect_error(&c, in2, 8, TFS_INVALID_ARGUMENT,
                  "x must be rank 2 but is rank 1");
  static const at_attr peep[] = {AT_BOOL("use_peephole", 1), {NULL}};
  at_call cp = {"LSTMBlockCell", peep, 0, 0, NULL};
  tfs_tensor *in3[] = {at_f32(2, D(1, 1), NULL), at_f32(2, D(1, 2), NULL),
                       at_f32(2, D(1, 2), NULL), at_f32(2, D(3, 8), NULL),
                       at_f32(1, D(2), NULL),    at_f32(1, D(1), NULL),
                       at_f32(1, D(2), NULL),    at_f32(1, D(8), NULL)};
  at_expect_error(&cp, in3, 8, TFS_INVALID_ARGUMENT,
                  "wcf must hold cell_size (2) values but has 1");
}

static const tfs_test_case kCases[] = {
    {"s2n_long_and_nul", test_s2n_long_and_nul},
    {"s2n_int_limits", test_s2n_int_limits},
    {"as_string_wide", test_as_string_wide},
    {"set_huge_empty_groups", test_set_huge_empty_groups},
    {"ctc_extremes", test_ctc_extremes},
    {"lstm_hostile", test_lstm_hostile},
    {NULL, NULL},
};

const tfs_test_suite tfs_test_suites[] = {
    {"extra_ops", kCases},
    {NULL, NULL},
};
