/*
 * tests/kernels/test_linalg.c - the linear algebra and complex-number
 * kernels on hostile sizes and values: empty matrices whose requested
 * identities (Qr's and Svd's full_matrices) would need more memory than
 * exists, broadcast batch dims whose product overflows while the output
 * is empty, non-finite entries, and a batch of matrices one of which is
 * singular; each must give a bounded result or an error, never an abort
 * or an out-of-bounds access.
 */
#include <math.h>
#include <stdint.h>

#include "arraytest.h"

#define BIG ((int64_t)1 << 40)
#define MID ((int64_t)1 << 20)

/* Q of an empty 2^40 x 0 matrix with full_matrices is 2^40 x 2^40:
 * refused, not allocated. */
static void test_qr_full_identity_overflow(void) {
  static const at_attr full[] = {AT_BOOL("full_matrices", 1), {NULL}};
  at_call c = {"Qr", full, 0, 0, NULL};
  tfs_tensor *in[] = {at_f32(2, D(BIG, 0), NULL)};
  tfs_tensor *out[2] = {NULL, NULL};
  CU_ASSERT_NOT_EQUAL(at_run(&c, in, 1, out, 2), TFS_OK);
  at_free(in, 1);
  at_free(out, 2);
  /* without full_matrices the outputs are empty */
  static const at_attr thin[] = {AT_BOOL("full_matrices", 0), {NULL}};
  at_call c2 = {"Qr", thin, 0, 0, NULL};
  tfs_tensor *in2[] = {at_f32(2, D(BIG, 0), NULL)};
  CU_ASSERT_EQUAL(at_run(&c2, in2, 1, out, 2), TFS_OK);
  if (out[0]) CU_ASSERT_EQUAL(tfs_tensor_dim(out[0], 0), BIG);
  at_free(in2, 1);
  at_free(out, 2);
}

/* Svd's U of a 2^40 x 0 matrix and a batch of 2^40 empty 3 x 0 ones. */
static void test_svd_full_identity_overflow(void) {
  static const at_attr full[] = {AT_BOOL("full_matrices", 1), {NULL}};
  at_call c = {"Svd", full, 0, 0, NULL};
  tfs_tensor *out[3] = {NULL, NULL, NULL};
  tfs_tensor *in[] = {at_f32(2, D(BIG, 0), NULL)};
  CU_ASSERT_NOT_EQUAL(at_run(&c, in, 1, out, 3), TFS_OK);
  at_free(in, 1);
  at_free(out, 3);
  tfs_tensor *in2[] = {at_f32(3, D(BIG, 3, 0), NULL)};
  CU_ASSERT_NOT_EQUAL(at_run(&c, in2, 1, out, 3), TFS_OK);
  at_free(in2, 1);
  at_free(out, 3);
}

/* Broadcast batch dims of 2^40 x 2^20 with empty matrices: an empty
 * output of the broadcast shape, no matrix visited. */
static void test_trisolve_broadcast_empty(void) {
  at_call c = {"MatrixTriangularSolve", NULL, 0, 0, NULL};
  tfs_tensor *in[] = {at_f32(4, D(BIG, 1, 0, 0), NULL),
                      at_f32(4, D(1, MID, 0, 3), NULL)};
  tfs_tensor *out[1] = {NULL};
  CU_ASSERT_EQUAL(at_run(&c, in, 2, out, 1), TFS_OK);
  if (out[0]) {
    CU_ASSERT_EQUAL(tfs_tensor_dim(out[0], 0), BIG);
    CU_ASSERT_EQUAL(tfs_tensor_dim(out[0], 1), MID);
    CU_ASSERT_EQUAL(tfs_tensor_dim(out[0], 3), 3);
  }
  at_free(in, 2);
  at_free(out, 1);
}

/* A 0 x 0 system with 2^62 right-hand sides is an empty answer. */
static void test_solve_empty_huge_rhs(void) {
  at_call c = {"MatrixSolve", NULL, 0, 0, NULL};
  tfs_tensor *in[] = {at_f32(2, D(0, 0), NULL),
                      at_f32(2, D(0, (int64_t)1 << 62), NULL)};
  at_check(at_eval(&c, in, 2), TFS_FLOAT, 2, D(0, (int64_t)1 << 62), NULL);
}

/* The second matrix of the batch is singular: the op's error. */
static void test_inverse_singular_in_batch(void) {
  at_call c = {"MatrixInverse", NULL, 0, 0, NULL};
  tfs_tensor *in[] = {at_f32(3, D(2, 2, 2), F32(1, 0, 0, 1, 1, 2, 2, 4))};
  at_expect_error(&c, in, 1, TFS_INVALID_ARGUMENT, "Input is not invertible.");
}

/* Non-finite entries: Svd answers NaN everywhere, SelfAdjointEigV2 NaN
 * eigenvalues for an infinity and its error for a NaN. */
static void test_nonfinite(void) {
  at_call svd = {"Svd", NULL, 0, 0, NULL};
  tfs_tensor *in[] = {at_f32(2, D(2, 3), F32(1, INFINITY, 0, 0, 1, 0))};
  tfs_tensor *s = at_eval(&svd, in, 1);
  CU_ASSERT_TRUE(s && isnan(((const float *)tfs_tensor_data(s))[0]) &&
                 isnan(((const float *)tfs_tensor_data(s))[1]));
  tfs_tensor_free(s);
  at_call eig = {"SelfAdjointEigV2", NULL, 0, 0, NULL};
  tfs_tensor *in2[] = {at_f32(2, D(2, 2), F32(INFINITY, 0, 0, 1))};
  tfs_tensor *e = at_eval(&eig, in2, 1);
  CU_ASSERT_TRUE(e && isnan(((const float *)tfs_tensor_data(e))[0]));
  tfs_tensor_free(e);
  tfs_tensor *in3[] = {at_f32(2, D(2, 2), F32(1, 0, NAN, 1))};
  at_expect_error(&eig, in3, 1, TFS_INVALID_ARGUMENT,
                  "Self-adjoint eigen decomposition was not successful.");
}

/* A NaN in the upper triangle is not read by Cholesky. */
static void test_cholesky_reads_lower(void) {
  at_call c = {"Cholesky", NULL, 0, 0, NULL};
  tfs_tensor *in[] = {at_f32(2, D(2, 2), F32(4, NAN, 2, 5))};
  at_check(at_eval(&c, in, 1), TFS_FLOAT, 2, D(2, 2), F32(2, 0, 1, 2));
}

/* Complex over broadcast dims of 2^40 x 2^20 with an empty one. */
static void test_complex_broadcast_empty(void) {
  at_call c = {"Complex", NULL, 0, 0, NULL};
  tfs_tensor *in[] = {at_f32(3, D(BIG, 1, 0), NULL),
                      at_f32(3, D(1, MID, 0), NULL)};
  tfs_tensor *out[1] = {NULL};
  CU_ASSERT_EQUAL(at_run(&c, in, 2, out, 1), TFS_OK);
  if (out[0]) CU_ASSERT_EQUAL(tfs_tensor_dim(out[0], 1), MID);
  at_free(in, 2);
  at_free(out, 1);
}

static const tfs_test_case kCases[] = {
    {"qr_full_identity_overflow", test_qr_full_identity_overflow},
    {"svd_full_identity_overflow", test_svd_full_identity_overflow},
    {"trisolve_broadcast_empty", test_trisolve_broadcast_empty},
    {"solve_empty_huge_rhs", test_solve_empty_huge_rhs},
    {"inverse_singular_in_batch", test_inverse_singular_in_batch},
    {"nonfinite", test_nonfinite},
    {"cholesky_reads_lower", test_cholesky_reads_lower},
    {"complex_broadcast_empty", test_complex_broadcast_empty},
    {NULL, NULL},
};

const tfs_test_suite tfs_test_suites[] = {
    {"linalg", kCases},
    {NULL, NULL},
};
