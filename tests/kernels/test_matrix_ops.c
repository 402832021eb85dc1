/*
 * tests/kernels/test_matrix_ops.c - the matrix and sparse kernels on
 * hostile values: diagonal ranges at the ends of int32, outputs whose
 * element count overflows, diagonal tensors of too low a rank (where
 * TensorFlow's kernels abort), dense shapes that ask for more than memory
 * holds and sparse ranks above TFS_MAX_RANK; each must give a bounded
 * result or an error, never an abort or an out-of-bounds access.
 */
#include <math.h>
#include <stdint.h>

#include "arraytest.h"

static tfs_tensor *diag_v3(tfs_tensor *d, tfs_tensor *k, int32_t rows,
                           int32_t cols, tfs_tensor **in) {
  in[0] = d;
  in[1] = k;
  in[2] = at_si32(rows);
  in[3] = at_si32(cols);
  in[4] = at_sf32(0);
  return in[0];
}

/* Empty diagonals far above the main one ask for a square output of
 * (2^31 - 1)^2 elements per matrix: refused, not allocated. */
static void test_diag_output_overflow(void) {
  at_call c = {"MatrixDiagV3", NULL, 0, 0, NULL};
  for (int batch = 2; batch <= 3; batch++) {
    tfs_tensor *in[5];
    diag_v3(at_f32(2, D(batch, 0), NULL), at_si32(INT32_MAX), -1, -1, in);
    CU_ASSERT_NOT_EQUAL(at_run(&c, in, 5, NULL, 0), TFS_OK);
    at_free(in, 5);
  }
}

/* A band of two diagonals given as a vector: TensorFlow's kernel aborts
 * reading the count dimension; here it is its count error. */
static void test_diag_band_of_vector(void) {
  at_call c = {"MatrixDiagV3", NULL, 0, 0, NULL};
  tfs_tensor *in[5];
  diag_v3(at_f32(1, D(2), F32(1, 2)), at_i32(1, D(2), I32(-1, 0)), -1, -1,
          in);
  at_expect_error(&c, in, 5, TFS_INVALID_ARGUMENT,
                  "The number of diagonals provided in the input");
}

/* The widest int32 band fails the bound checks without overflowing. */
static void test_diag_part_int32_ends(void) {
  at_call c = {"MatrixDiagPartV3", NULL, 0, 0, NULL};
  tfs_tensor *in[] = {at_f32(2, D(2, 2), F32(1, 2, 3, 4)),
                      at_i32(1, D(2), I32(INT32_MIN, INT32_MAX)),
                      at_sf32(0)};
  at_expect_error(&c, in, 3, TFS_INVALID_ARGUMENT,
                  "lower_diag_index is out of bound: -2147483648.");
}

/* A diagonal of lower rank than the band needs is refused before its
 * dims are read. */
static void test_set_diag_low_rank(void) {
  at_call c = {"MatrixSetDiagV3", NULL, 0, 0, NULL};
  tfs_tensor *in[] = {at_f32(4, D(1, 1, 3, 3), NULL),
                      at_f32(1, D(3), F32(1, 2, 3)),
                      at_i32(1, D(2), I32(-1, 1))};
  at_expect_error(&c, in, 3, TFS_INVALID_ARGUMENT,
                  "Received diagonal rank: 1");
}

/* Determinants of non-finite and empty matrices. */
static void test_det_special(void) {
  at_call c = {"MatrixDeterminant", NULL, 0, 0, NULL};
  tfs_tensor *in[] = {at_f32(3, D(1, 2, 2), F32(NAN, 1, 1, 1))};
  tfs_tensor *out = at_eval(&c, in, 1);
  CU_ASSERT_TRUE(out && isnan(((const float *)tfs_tensor_data(out))[0]));
  tfs_tensor_free(out);
  tfs_tensor *in2[] = {at_f32(3, D(2, 0, 0), NULL)};
  at_check(at_eval(&c, in2, 1), TFS_FLOAT, 1, D(2), F32(1, 1));
}

/* A dense shape of 2^63 - 1 rows is an allocation error, not a crash. */
static void test_fill_huge_rows(void) {
  at_call c = {"SparseFillEmptyRows", NULL, 0, 0, NULL};
  tfs_tensor *in[] = {at_i64(2, D(1, 1), I64(0)), at_f32(1, D(1), F32(1)),
                      at_i64(1, D(1), I64(INT64_MAX)), at_sf32(0)};
  tfs_tensor *out[4] = {NULL, NULL, NULL, NULL};
  CU_ASSERT_NOT_EQUAL(at_run(&c, in, 4, out, 4), TFS_OK);
  at_free(in, 4);
  at_free(out, 4);
}

/* Indices far outside the dense shape wrap as TensorFlow's arithmetic
 * does; a new shape of rank 40 is fine. */
static void test_reshape_hostile(void) {
  at_call c = {"SparseReshape", NULL, 0, 0, NULL};
  tfs_tensor *in[] = {at_i64(2, D(1, 2), I64(INT64_MAX, INT64_MIN)),
                      at_i64(1, D(2), I64(4, 3)), at_i64(1, D(1), I64(-1))};
  tfs_tensor *out[2] = {NULL, NULL};
  CU_ASSERT_EQUAL(at_run(&c, in, 3, out, 2), TFS_OK);
  at_free(in, 3);
  at_free(out, 2);
  int64_t ones[40];
  for (int i = 0; i < 40; i++) ones[i] = 1;
  ones[7] = 12;
  tfs_tensor *in2[] = {at_i64(2, D(1, 2), I64(3, 2)),
                       at_i64(1, D(2), I64(4, 3)), at_i64(1, D(40), ones)};
  tfs_tensor *out2[2] = {NULL, NULL};
  CU_ASSERT_EQUAL(at_run(&c, in2, 3, out2, 2), TFS_OK);
  if (out2[0]) {
    CU_ASSERT_EQUAL(tfs_tensor_dim(out2[0], 1), 40);
    CU_ASSERT_EQUAL(((const int64_t *)tfs_tensor_data(out2[0]))[7], 11);
  }
  at_free(in2, 3);
  at_free(out2, 2);
}

static const tfs_test_case kCases[] = {
    {"diag_output_overflow", test_diag_output_overflow},
    {"diag_band_of_vector", test_diag_band_of_vector},
    {"diag_part_int32_ends", test_diag_part_int32_ends},
    {"set_diag_low_rank", test_set_diag_low_rank},
    {"det_special", test_det_special},
    {"fill_huge_rows", test_fill_huge_rows},
    {"reshape_hostile", test_reshape_hostile},
    {NULL, NULL},
};

const tfs_test_suite tfs_test_suites[] = {
    {"matrix_ops", kCases},
    {NULL, NULL},
};
