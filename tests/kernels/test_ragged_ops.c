/*
 * tests/kernels/test_ragged_ops.c - the ragged kernels on hostile
 * partitions and sizes: splits that decrease, splits and row ids that
 * point past the values (where TensorFlow's kernels read or write out of
 * bounds), unsorted row ids, ranks attrs that do not match the indices
 * (a failed check in TensorFlow), range spans at the ends of int64,
 * int32 splits that would overflow and dense shapes beyond memory; each
 * must give a bounded result or an error naming the node.
 */
#include <stdint.h>
#include <string.h>

#include "arraytest.h"

static const at_attr kSplits[] = {AT_STRS("row_partition_types",
                                          "ROW_SPLITS"),
                                  {NULL, 0, 0, NULL, NULL, 0, TFS_INVALID}};
static const at_attr kRowIds[] = {
    AT_STRS("row_partition_types", "FIRST_DIM_SIZE,VALUE_ROWIDS"),
    {NULL, 0, 0, NULL, NULL, 0, TFS_INVALID}};

/* Runs the call fetching output 0; frees the inputs and the output.
 * Returns the status code. */
static tfs_code run1(const at_call *c, tfs_tensor *const *in, int n) {
  tfs_tensor *out = NULL;
  tfs_code code = at_run(c, in, n, &out, 1);
  tfs_tensor_free(out);
  at_free(in, n);
  return code;
}

/* RaggedTensorToTensor(shape, values, default, partitions...). */
static tfs_tensor **to_tensor_in(tfs_tensor **in, tfs_tensor *shape,
                                 tfs_tensor *values) {
  in[0] = shape;
  in[1] = values;
  in[2] = at_sf32(0);
  return in;
}

static void test_to_tensor_splits_decrease(void) {
  at_call c = {"RaggedTensorToTensor", kSplits, 3, 1, NULL};
  tfs_tensor *in[4];
  to_tensor_in(in, at_i64(1, D(2), I64(-1, -1)),
               at_f32(1, D(3), F32(1, 2, 3)));
  in[3] = at_i64(1, D(3), I64(0, 3, 1));
  at_expect_error(&c, in, 4, TFS_INVALID_ARGUMENT, "Invalid row split size.");
}

/* Splits that need more values than given are refused (TensorFlow reads
 * past the values). */
static void test_to_tensor_splits_past_values(void) {
  at_call c = {"RaggedTensorToTensor", kSplits, 3, 1, NULL};
  tfs_tensor *in[4];
  to_tensor_in(in, at_i64(1, D(2), I64(-1, -1)),
               at_f32(1, D(3), F32(1, 2, 3)));
  in[3] = at_i64(1, D(3), I64(0, 1, 5));
  at_expect_error(&c, in, 4, TFS_INVALID_ARGUMENT,
                  "The row partitions need 5 values but values has 3");
  /* a huge last split with monotonic rows: refused, not allocated */
  to_tensor_in(in, at_i64(1, D(2), I64(-1, -1)),
               at_f32(1, D(3), F32(1, 2, 3)));
  in[3] = at_i64(1, D(2), I64(0, INT64_MAX));
  CU_ASSERT_EQUAL(run1(&c, in, 4), TFS_INVALID_ARGUMENT);
}

/* Unsorted row ids put each value in its own row (TensorFlow writes past
 * the output there); row ids past the rows are its error. */
static void test_to_tensor_rowids_hostile(void) {
  at_call c = {"RaggedTensorToTensor", kRowIds, 3, 2, NULL};
  tfs_tensor *in[5];
  to_tensor_in(in, at_i64(1, D(2), I64(-1, -1)), at_f32(1, D(2), F32(1, 2)));
  in[3] = at_i64(0, NULL, I64(3));
  in[4] = at_i64(1, D(2), I64(2, 0));
  at_check(at_eval(&c, in, 5), TFS_FLOAT, 2, D(3, 1), F32(2, 0, 1));
  to_tensor_in(in, at_i64(1, D(2), I64(-1, -1)), at_f32(1, D(2), F32(1, 2)));
  in[3] = at_i64(0, NULL, I64(3));
  in[4] = at_i64(1, D(2), I64(0, INT64_MAX));
  at_expect_error(&c, in, 5, TFS_INVALID_ARGUMENT,
                  "Got next_value_rowid=9223372036854775807 which is not "
                  "less than 3");
  /* more row ids than values */
  to_tensor_in(in, at_i64(1, D(2), I64(-1, -1)), at_f32(1, D(1), F32(1)));
  in[3] = at_i64(0, NULL, I64(3));
  in[4] = at_i64(1, D(3), I64(0, 0, 1));
  at_expect_error(&c, in, 5, TFS_INVALID_ARGUMENT,
                  "The row partitions need 3 values but values has 1");
}

/* Dense shapes beyond int64 or memory, and a first dim of 2^62 rows. */
static void test_to_tensor_huge_shapes(void) {
  at_call c = {"RaggedTensorToTensor", kSplits, 3, 1, NULL};
  tfs_tensor *in[5];
  to_tensor_in(in, at_i64(1, D(2), I64(INT64_MAX, 4)),
               at_f32(1, D(3), F32(1, 2, 3)));
  in[3] = at_i64(1, D(3), I64(0, 1, 3));
  at_expect_error(&c, in, 4, TFS_INVALID_ARGUMENT, "overflow");
  to_tensor_in(in, at_i64(1, D(2), I64(1 << 30, 1 << 30)),
               at_f32(1, D(3), F32(1, 2, 3)));
  in[3] = at_i64(1, D(3), I64(0, 1, 3));
  CU_ASSERT_EQUAL(run1(&c, in, 4), TFS_RESOURCE_EXHAUSTED);
  at_call r = {"RaggedTensorToTensor", kRowIds, 3, 2, NULL};
  to_tensor_in(in, at_i64(1, D(2), I64(-1, -1)), at_f32(1, D(1), F32(1)));
  in[3] = at_i64(0, NULL, I64(INT64_C(1) << 62));
  in[4] = at_i64(1, D(1), I64(0));
  CU_ASSERT_NOT_EQUAL(run1(&r, in, 5), TFS_OK);
  CU_ASSERT_PTR_NOT_NULL(strstr(at_msg(), "is too large"));
}

/* Spans at the ends of int64 and int32 splits that would overflow. */
static void test_range_extremes(void) {
  at_call c = {"RaggedRange", NULL, 0, 0, NULL};
  tfs_tensor *in[] = {at_i64(0, NULL, I64(INT64_MIN)),
                      at_i64(0, NULL, I64(INT64_MAX)),
                      at_i64(0, NULL, I64(1))};
  at_expect_error(&c, in, 3, TFS_INVALID_ARGUMENT,
                  "Requires ((limit - start) / delta) <= "
                  "9223372036854775807");
  tfs_tensor *in2[] = {at_i64(0, NULL, I64(0)), at_i64(0, NULL, I64(-5)),
                       at_i64(0, NULL, I64(INT64_MIN))};
  tfs_tensor *out[2];
  CU_ASSERT_EQUAL(at_run(&c, in2, 3, out, 2), TFS_OK);
  at_check(out[1], TFS_INT64, 1, D(1), I64(0));
  tfs_tensor_free(out[0]);
  at_free(in2, 3);
  static const at_attr i32[] = {AT_TYPE("Tsplits", TFS_INT32),
                                {NULL, 0, 0, NULL, NULL, 0, TFS_INVALID}};
  at_call c32 = {"RaggedRange", i32, 0, 0, NULL};
  tfs_tensor *in3[] = {at_si32(0), at_i32(1, D(2), I32(INT32_MAX, INT32_MAX)),
                       at_si32(1)};
  at_expect_error(&c32, in3, 3, TFS_INVALID_ARGUMENT,
                  "does not fit in the int32 splits type");
}

static void test_to_sparse_hostile(void) {
  static const at_attr a[] = {AT_INT("RAGGED_RANK", 2),
                              {NULL, 0, 0, NULL, NULL, 0, TFS_INVALID}};
  at_call c = {"RaggedTensorToSparse", a, 0, 2, NULL};
  tfs_tensor *in[] = {at_i64(1, D(3), I64(0, 2, 9)),
                      at_i64(1, D(3), I64(0, 1, 2)),
                      at_f32(1, D(2), F32(1, 2))};
  at_expect_error(&c, in, 3, TFS_INVALID_ARGUMENT,
                  "Final value of ragged splits must match the length");
  tfs_tensor *in2[] = {at_i64(1, D(3), I64(0, 2, 2)),
                       at_i64(1, D(3), I64(0, INT64_MAX, 2)),
                       at_f32(1, D(2), F32(1, 2))};
  at_expect_error(&c, in2, 3, TFS_INVALID_ARGUMENT,
                  "Ragged splits should be non decreasing");
}

/* Inner splits one past the next level, and an OUTPUT_RAGGED_RANK the
 * indices do not give. */
static void test_gather_hostile(void) {
  static const at_attr a2[] = {AT_INT("PARAMS_RAGGED_RANK", 2),
                               AT_INT("OUTPUT_RAGGED_RANK", 2),
                               {NULL, 0, 0, NULL, NULL, 0, TFS_INVALID}};
  at_call c = {"RaggedGather", a2, 0, 2, NULL};
  tfs_tensor *in[] = {at_i64(1, D(2), I64(0, 3)),
                      at_i64(1, D(3), I64(0, 1, 2)),
                      at_f32(1, D(2), F32(1, 2)), at_i32(1, D(1), I32(0))};
  at_expect_error(&c, in, 4, TFS_INVALID_ARGUMENT,
                  "Ragged splits must not point past values");
  static const at_attr a1[] = {AT_INT("PARAMS_RAGGED_RANK", 1),
                               AT_INT("OUTPUT_RAGGED_RANK", 1),
                               {NULL, 0, 0, NULL, NULL, 0, TFS_INVALID}};
  at_call c1 = {"RaggedGather", a1, 0, 1, NULL};
  tfs_tensor *in2[] = {at_i64(1, D(3), I64(0, 1, 2)),
                       at_f32(1, D(2), F32(1, 2)),
                       at_i32(2, D(2, 2), I32(0, 1, 1, 0))};
  at_expect_error(&c1, in2, 3, TFS_INVALID_ARGUMENT,
                  "OUTPUT_RAGGED_RANK is 1 but indices of rank 2");
  tfs_tensor *in3[] = {at_i64(1, D(3), I64(0, 1, 2)),
                       at_f32(1, D(2), F32(1, 2)),
                       at_i32(1, D(2), I32(1, INT32_MAX))};
  at_expect_error(&c1, in3, 3, TFS_INVALID_ARGUMENT,
                  "indices[1] = 2147483647 is not in [0, 2)");
}

static void test_to_variant_hostile(void) {
  static const at_attr a[] = {AT_INT("RAGGED_RANK", 1),
                              AT_BOOL("batched_input", 1),
                              {NULL, 0, 0, NULL, NULL, 0, TFS_INVALID}};
  at_call c = {"RaggedTensorToVariant", a, 0, 1, NULL};
  tfs_tensor *in[] = {at_i64(1, D(3), I64(0, INT64_MAX, 2)),
                      at_f32(1, D(2), F32(1, 2))};
  at_expect_error(&c, in, 2, TFS_INVALID_ARGUMENT,
                  "ragged splits must be monotonically increasing");
  tfs_tensor *in2[] = {at_i64(1, D(2), I64(0, 7)),
                       at_f32(1, D(2), F32(1, 2))};
  at_expect_error(&c, in2, 2, TFS_INVALID_ARGUMENT,
                  "must be the number of ragged values(2) but is 7");
}

static const tfs_test_case kCases[] = {
    {"to_tensor_splits_decrease", test_to_tensor_splits_decrease},
    {"to_tensor_splits_past_values", test_to_tensor_splits_past_values},
    {"to_tensor_rowids_hostile", test_to_tensor_rowids_hostile},
    {"to_tensor_huge_shapes", test_to_tensor_huge_shapes},
    {"range_extremes", test_range_extremes},
    {"to_sparse_hostile", test_to_sparse_hostile},
    {"gather_hostile", test_gather_hostile},
    {"to_variant_hostile", test_to_variant_hostile},
    {NULL, NULL},
};

const tfs_test_suite tfs_test_suites[] = {
    {"ragged_ops", kCases},
    {NULL, NULL},
};
