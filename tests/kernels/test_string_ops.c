/*
 * tests/kernels/test_string_ops.c - the string kernels on hostile values:
 * Substr positions and lengths at the ends of int64, ReduceJoin over
 * empty inputs whose other dims overflow when multiplied and outputs too
 * large to hold, reduction axes at the ends of int32, StringSplitV2's
 * maxsplit extremes, and regex patterns and texts that take exponential
 * time in a backtracking engine; each gives a bounded result or an
 * error, never an abort or a hang.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "arraytest.h"
#include "core/util.h"

static void test_substr_int64_ends(void) {
  static const at_attr utf8[] = {AT_STR("unit", "UTF8_CHAR"), {NULL}};
  for (int u = 0; u < 2; u++) {
    at_call c = {"Substr", u ? utf8 : NULL, 0, 0, NULL};
    const char *s[] = {"héllo"};
    tfs_tensor *in[] = {at_strs(1, D(1), s), at_i64(1, D(1), I64(INT64_MIN)),
                        at_i64(1, D(1), I64(1))};
    at_expect_error(&c, in, 3, TFS_INVALID_ARGUMENT,
                    "pos -9223372036854775808 out of range for string");
    tfs_tensor *in2[] = {at_strs(1, D(1), s),
                         at_i64(1, D(1), I64(INT64_MAX)),
                         at_i64(1, D(1), I64(1))};
    at_expect_error(&c, in2, 3, TFS_INVALID_ARGUMENT,
                    "pos 9223372036854775807 out of range for string");
    /* the longest length takes the rest; the shortest the rest of the
     * bytes, no characters */
    tfs_tensor *in3[] = {at_strs(1, D(2), (const char *[]){"héllo", "ab"}),
                         at_i64(1, D(2), I64(1, 1)),
                         at_i64(1, D(2), I64(INT64_MAX, INT64_MIN))};
    const char *want_b[] = {"éllo", "b"}, *want_u[] = {"éllo", ""};
    at_check_strs(at_eval(&c, in3, 3), 1, D(2), u ? want_u : want_b);
  }
}

/* An empty input whose other dims multiply past int64: reducing the
 * empty dim asks for an output of 2^62 elements (refused); reducing the
 * others gives an empty output. */
static void test_reduce_join_huge_empty(void) {
  at_call c = {"ReduceJoin", NULL, 0, 0, NULL};
  int64_t big = (int64_t)1 << 31;
  tfs_tensor *in[] = {at_strs(3, D(0, big, big), NULL),
                      at_i32(1, D(1), I32(0))};
  CU_ASSERT_NOT_EQUAL(at_run(&c, in, 2, NULL, 0), TFS_OK);
  at_free(in, 2);
  tfs_tensor *in2[] = {at_strs(3, D(0, big, big), NULL),
                       at_i32(1, D(2), I32(1, 2))};
  tfs_tensor *out = at_eval(&c, in2, 2);
  CU_ASSERT_TRUE(out && tfs_tensor_num_elements(out) == 0);
  tfs_tensor_free(out);
  tfs_tensor *in3[] = {at_strs(1, D(1), (const char *[]){"a"}),
                       at_i32(1, D(1), I32(INT32_MIN))};
  at_expect_error(&c, in3, 2, TFS_OUT_OF_RANGE,
                  "Invalid reduction dimension -2147483648 for input with 1 "
                  "dimension(s)");
}

static void test_split_maxsplit_ends(void) {
  static const at_attr lo[] = {AT_INT("maxsplit", INT64_MIN), {NULL}};
  static const at_attr hi[] = {AT_INT("maxsplit", INT64_MAX), {NULL}};
  const at_attr *attrs[] = {lo, hi};
  for (int k = 0; k < 2; k++) {
    at_call c = {"StringSplitV2", attrs[k], 0, 0, NULL};
    tfs_tensor *in[] = {at_strs(1, D(1), (const char *[]){"a b  c"}),
                        at_strs(0, NULL, (const char *[]){""})};
    tfs_tensor *out[3] = {NULL, NULL, NULL};
    CU_ASSERT_EQUAL_FATAL(at_run(&c, in, 2, out, 3), TFS_OK);
    at_check_strs(out[1], 1, D(3), (const char *[]){"a", "b", "c"});
    at_free(in, 2);
    tfs_tensor_free(out[0]);
    tfs_tensor_free(out[2]);
  }
}

/* Patterns with nested repetition on long texts finish in linear time. */
static void test_regex_hostile(void) {
  size_t n = 100000;
  char *text = malloc(n + 1);
  CU_ASSERT_PTR_NOT_NULL_FATAL(text);
  memset(text, 'a', n);
  text[n] = 0;
  const char *texts[] = {text};
  int64_t t0 = tfs_now_ns();
  static const char *const pats[] = {"(a*)*b", "(a|aa)*c", "(a+)+$b",
                                     "(?:a?){20}a{20}b"};
  for (size_t i = 0; i < TFS_ARRAY_LEN(pats); i++) {
    at_attr attrs[] = {AT_STR("pattern", pats[i]), {NULL}};
    at_call c = {"StaticRegexFullMatch", attrs, 0, 0, NULL};
    tfs_tensor *in[] = {at_strs(1, D(1), texts)};
    at_check(at_eval(&c, in, 1), TFS_BOOL, 1, D(1), (const uint8_t[]){0});
  }
  /* a global replace of empty matches steps over every character */
  at_attr attrs[] = {AT_STR("pattern", "b*"), AT_STR("rewrite", ""),
                     {NULL}};
  at_call c = {"StaticRegexReplace", attrs, 0, 0, NULL};
  tfs_tensor *in[] = {at_strs(1, D(1), texts)};
  at_check_strs(at_eval(&c, in, 1), 1, D(1), texts);
  CU_ASSERT_TRUE(tfs_now_ns() - t0 < 60LL * 1000000000LL);
  free(text);

  /* nested counts past 1000 and programs too large are the op's
   * errors */
  at_attr nest[] = {AT_STR("pattern", "((a{1000}){1000}){1000}"), {NULL}};
  at_call cn = {"StaticRegexFullMatch", nest, 0, 0, NULL};
  tfs_tensor *in2[] = {at_strs(1, D(1), (const char *[]){"a"})};
  at_expect_error(&cn, in2, 1, TFS_INVALID_ARGUMENT,
                  "error: invalid repetition size: {1000}");
  static char pat[51 * 7 + 1];
  for (int i = 0; i < 51; i++) memcpy(pat + 7 * i, "a{1000}", 7);
  at_attr big[] = {AT_STR("pattern", pat), {NULL}};
  at_call cb = {"StaticRegexFullMatch", big, 0, 0, NULL};
  tfs_tensor *in3[] = {at_strs(1, D(1), (const char *[]){"a"})};
  at_expect_error(&cb, in3, 1, TFS_INVALID_ARGUMENT,
                  "error: pattern too large - compile failed");
}

static const tfs_test_case string_cases[] = {
    {"substr_int64_ends", test_substr_int64_ends},
    {"reduce_join_huge_empty", test_reduce_join_huge_empty},
    {"split_maxsplit_ends", test_split_maxsplit_ends},
    {"regex_hostile", test_regex_hostile},
    {NULL, NULL}};

const tfs_test_suite tfs_test_suites[] = {{"string_ops", string_cases},
                                          {NULL, NULL}};
