/*
 * tests/kernels/test_segment.c - the segment-family kernels on inputs
 * the conformance cases do not reach: ids and indices at the edges of
 * their types (INT32_MAX / INT64_MAX last ids, huge or negative
 * num_segments and sizes), outputs that would not fit, every rejection
 * naming the node; and a few values computed by hand.
 */
#include "arraytest.h"

#define BAD TFS_INVALID_ARGUMENT

#define EXPECT(call, code, msg, ...)                                       \
  do {                                                                     \
    tfs_tensor *in_[] = {__VA_ARGS__};                                     \
    at_expect_error((call), in_, (int)(sizeof in_ / sizeof in_[0]),        \
                    (code), (msg));                                        \
  } while (0)

/* Output 0 of the call on the listed inputs (sizeof does not evaluate
 * the second list). */
#define EVAL(call, ...)                                                    \
  at_eval((call), (tfs_tensor *[]){__VA_ARGS__},                           \
          (int)(sizeof((tfs_tensor *[]){__VA_ARGS__}) /                    \
                sizeof(tfs_tensor *)))

static tfs_tensor *si64(int64_t v) { return at_i64(0, D(0), I64(v)); }

static void test_sorted_edges(void) {
  at_call c = {"SegmentSum", NULL, 0, 0, NULL};
  EXPECT(&c, BAD, "Expected a non-negative size, got -9223372036854775808",
         at_f32(1, D(1), F32(1)), at_i64(1, D(1), I64(INT64_MAX)));
  EXPECT(&c, BAD, "segment ids are not increasing",
         at_f32(1, D(3), F32(1, 2, 3)),
         at_i64(1, D(3), I64(INT64_MAX - 1, 0, 7)));
  EXPECT(&c, BAD, "Segment id -9223372036854775808 out of range [0, 1)",
         at_f32(1, D(2), F32(1, 2)), at_i64(1, D(2), I64(INT64_MIN, 0)));
  /* a last id far beyond memory: the allocation fails, nothing crashes */
  tfs_tensor *in[] = {at_f32(1, D(1), F32(1)),
                      at_i64(1, D(1), I64(INT64_MAX - 1))};
  tfs_tensor *out[1] = {NULL};
  CU_ASSERT_NOT_EQUAL(at_run(&c, in, 2, out, 1), TFS_OK);
  at_free(in, 2);
  at_call m = {"SegmentMean", NULL, 0, 0, NULL};
  at_check(EVAL(&m, at_i32(1, D(4), I32(-7, 2, 5, 6)),
                at_i32(1, D(4), I32(0, 0, 2, 2))),
           TFS_INT32, 1, D(3), I32(-2, 0, 5));
  at_call p = {"SegmentProd", NULL, 0, 0, NULL};
  at_check(EVAL(&p, at_f32(1, D(2), F32(3, 4)), at_i32(1, D(2), I32(1, 1))),
           TFS_FLOAT, 1, D(2), F32(1, 12));
}

static void test_unsorted_edges(void) {
  at_call c = {"UnsortedSegmentMax", NULL, 0, 0, NULL};
  at_check(EVAL(&c, at_i32(1, D(3), I32(4, -3, 9)),
                at_i64(1, D(3), I64(2, INT64_MIN, 2)), at_si32(3)),
           TFS_INT32, 1, D(3), I32(INT32_MIN, INT32_MIN, 9));
  EXPECT(&c, BAD, "segment_ids[1] = 9223372036854775807 is out of range "
         "[0, 3)", at_f32(1, D(2), F32(1, 2)),
         at_i64(1, D(2), I64(0, INT64_MAX)), at_si32(3));
  EXPECT(&c, BAD, "Input num_segments == -2147483648 must not be negative.",
         at_f32(1, D(1), F32(1)), at_i32(1, D(1), I32(0)),
         at_si32(INT32_MIN));
  at_call s = {"UnsortedSegmentSum", NULL, 0, 0, NULL};
  tfs_tensor *in[] = {at_f32(1, D(1), F32(1)), at_i32(1, D(1), I32(0)),
                      si64(INT64_MAX)};
  tfs_tensor *out[1] = {NULL};
  CU_ASSERT_NOT_EQUAL(at_run(&s, in, 3, out, 1), TFS_OK);
  at_free(in, 3);
}

static void test_sparse_edges(void) {
  at_call c = {"SparseSegmentSum", NULL, 0, 0, NULL};
  EXPECT(&c, BAD, "indices[1] == 9223372036854775807 out of range [0, 2)",
         at_f32(1, D(2), F32(1, 2)), at_i64(1, D(2), I64(0, INT64_MAX)),
         at_i32(1, D(2), I32(0, 0)));
  EXPECT(&c, BAD, "segment ids must be >= 0", at_f32(1, D(2), F32(1, 2)),
         at_i32(1, D(1), I32(0)), at_i64(1, D(1), I64(INT64_MAX)));
  at_call n = {"SparseSegmentSqrtNWithNumSegments", NULL, 0, 0, NULL};
  at_check(EVAL(&n, at_f32(1, D(2), F32(3, 5)), at_i32(1, D(3), I32(0, 1, 1)),
                at_i32(1, D(3), I32(1, 1, 1)), at_si32(3)),
           TFS_FLOAT, 1, D(3), F32(0, 7.5055535f, 0));
}

static void test_unique_bounds(void) {
  at_call u = {"UniqueWithCounts", NULL, 0, 0, NULL};
  tfs_tensor *in[] = {at_f32(1, D(5), F32(0.0f, -0.0f, 2, 2, 1))};
  tfs_tensor *out[3] = {NULL, NULL, NULL};
  CU_ASSERT_EQUAL(at_run(&u, in, 1, out, 3), TFS_OK);
  at_check(out[0], TFS_FLOAT, 1, D(3), F32(0, 2, 1));
  at_check(out[1], TFS_INT32, 1, D(5), I32(0, 0, 1, 1, 2));
  at_check(out[2], TFS_INT32, 1, D(3), I32(2, 2, 1));
  at_free(in, 1);
  at_call v = {"UniqueV2", NULL, 0, 0, NULL};
  EXPECT(&v, BAD, "axis has to be between [0, 1)",
         at_f32(1, D(2), F32(1, 2)), at_i64(1, D(1), I64(INT64_MIN)));
  at_call b = {"UpperBound", NULL, 0, 0, NULL};
  at_check(EVAL(&b, at_i32(2, D(1, 4), I32(1, 2, 2, 3)),
                at_i32(2, D(1, 3), I32(2, 0, 9))),
           TFS_INT32, 2, D(1, 3), I32(3, 0, 4));
}

static void test_bincount_partition(void) {
  at_call b = {"Bincount", NULL, 0, 0, NULL};
  EXPECT(&b, BAD, "size (-2147483648) must be non-negative",
         at_i32(1, D(1), I32(0)), at_si32(INT32_MIN),
         at_f32(1, D(0), NULL));
  at_call d = {"DenseBincount", NULL, 0, 0, NULL};
  tfs_tensor *in[] = {at_i64(1, D(1), I64(0)), si64(INT64_MAX),
                      at_f32(1, D(0), NULL)};
  tfs_tensor *out[1] = {NULL};
  CU_ASSERT_NOT_EQUAL(at_run(&d, in, 3, out, 1), TFS_OK);
  at_free(in, 3);
  at_attr np[] = {AT_INT("num_partitions", 2), {NULL}};
  at_call p = {"DynamicPartition", np, 0, 0, NULL};
  EXPECT(&p, BAD, "partitions[1] = -2147483648 is not in [0, 2)",
         at_f32(1, D(2), F32(1, 2)), at_i32(1, D(2), I32(0, INT32_MIN)));
}

static const tfs_test_case kCases[] = {
    {"sorted_edges", test_sorted_edges},
    {"unsorted_edges", test_unsorted_edges},
    {"sparse_edges", test_sparse_edges},
    {"unique_bounds", test_unique_bounds},
    {"bincount_partition", test_bincount_partition},
    {NULL, NULL},
};

const tfs_test_suite tfs_test_suites[] = {
    {"segment", kCases},
    {NULL, NULL},
};
