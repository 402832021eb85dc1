/*
 * tests/kernels/test_math_ops.c - elementwise math kernels (every dtype,
 * division variants, complex, comparisons, unary and transcendental
 * functions), Cast, Select/SelectV2, ClipByValue, AddN and the math shape
 * functions: values and each error (naming the node).
 */
#include <math.h>
#include <stdlib.h>

#include "core/cpu.h"
#include "core/half.h"
#include "core/util.h"
#include "mathtest.h"

#define NODE "\n\t [[{{node op}}]]"
#define D MT_DIMS
#define V MT_VALS

static tfs_tensor *bin(const char *op, tfs_tensor *a, tfs_tensor *b) {
  mt_op o = {op, -1, NULL, NULL};
  tfs_tensor *in[2] = {a, b};
  return mt_eval(&o, in, 2);
}

static const char *bin_fail(const char *op, tfs_tensor *a, tfs_tensor *b,
                            tfs_code code) {
  mt_op o = {op, -1, NULL, NULL};
  tfs_tensor *in[2] = {a, b};
  const char *m;
  CU_ASSERT_EQUAL(mt_eval_fail(&o, in, 2, &m), code);
  return m;
}

static tfs_tensor *un(const char *op, tfs_tensor *a) {
  mt_op o = {op, -1, NULL, NULL};
  return mt_eval(&o, &a, 1);
}

/* Checks op(a, b) == want for vectors of 4 in dtype dt. */
static void check_bin(const char *op, tfs_dtype dt, const double *a,
                      const double *b, const double *want) {
  tfs_tensor *ta = mt_t(dt, 1, D(4), a), *tb = mt_t(dt, 1, D(4), b);
  tfs_tensor *r = bin(op, ta, tb);
  double tol = dt == TFS_HALF || dt == TFS_BFLOAT16 ? 1e-2
               : dt == TFS_FLOAT                    ? 1e-6
               : dt == TFS_DOUBLE                   ? 1e-12
                                                    : 0;
  mt_expect(r, dt, 1, D(4), want, tol);
  mt_free_all((tfs_tensor *[]){ta, tb, r}, 3);
}

/* ---- binary arithmetic -------------------------------------------------- */

static void test_arith_every_dtype(void) {
  static const tfs_dtype all[] = {
      TFS_FLOAT, TFS_DOUBLE, TFS_HALF,   TFS_BFLOAT16, TFS_INT8,  TFS_INT16,
      TFS_INT32, TFS_INT64,  TFS_UINT8,  TFS_UINT16,   TFS_UINT32, TFS_UINT64};
  for (size_t k = 0; k < sizeof all / sizeof all[0]; k++) {
    tfs_dtype dt = all[k];
    const double *a = V(6, 9, 20, 7), *b = V(3, 2, 5, 1);
    check_bin("AddV2", dt, a, b, V(9, 11, 25, 8));
    check_bin("Sub", dt, a, b, V(3, 7, 15, 6));
    check_bin("Mul", dt, a, b, V(18, 18, 100, 7));
    check_bin("Maximum", dt, a, b, V(6, 9, 20, 7));
    check_bin("Minimum", dt, a, b, V(3, 2, 5, 1));
    check_bin("FloorDiv", dt, a, b, V(2, 4, 4, 7));
    check_bin("TruncateDiv", dt, a, b, V(2, 4, 4, 7));
    check_bin("FloorMod", dt, a, b, V(0, 1, 0, 0));
    if (dt == TFS_HALF || dt == TFS_BFLOAT16 || dt == TFS_FLOAT ||
        dt == TFS_DOUBLE)
      check_bin("Div", dt, a, b, V(2, 4.5, 4, 7));
    else
      check_bin("Div", dt, a, b, V(2, 4, 4, 7));
  }
  check_bin("Mod", TFS_INT64, V(7, -7, 7, -7), V(2, 2, -2, -2),
            V(1, -1, 1, -1));
  check_bin("Pow", TFS_INT32, V(2, 3, -2, 0), V(10, 3, 3, 0),
            V(1024, 27, -8, 1));
  check_bin("SquaredDifference", TFS_INT32, V(1, 5, -3, 0), V(4, 5, 3, 0),
            V(9, 0, 36, 0));
  check_bin("Add", TFS_INT16, V(1, 2, 3, 4), V(5, 6, 7, 8), V(6, 8, 10, 12));
}

static void test_integer_wraparound(void) {
  check_bin("AddV2", TFS_INT8, V(127, -128, 100, 0), V(1, -1, 100, 0),
            V(-128, 127, -56, 0));
  check_bin("Mul", TFS_INT32, V(65536, -2147483648.0, 3, 1),
            V(65536, -1, 3, 1), V(0, -2147483648.0, 9, 1));
  check_bin("Sub", TFS_UINT8, V(0, 1, 5, 255), V(1, 2, 5, 0),
            V(255, 255, 0, 255));
  /* MIN / -1 wraps; floor and truncating variants agree there */
  check_bin("Div", TFS_INT32, V(-2147483648.0, 7, -7, 7), V(-1, -1, 2, -2),
            V(-2147483648.0, -7, -3, -3));
  check_bin("FloorDiv", TFS_INT32, V(-2147483648.0, 7, -7, 7),
            V(-1, 2, 2, -2), V(-2147483648.0, 3, -4, -4));
  check_bin("FloorMod", TFS_INT32, V(-2147483648.0, 7, -7, 7),
            V(-1, 2, 2, -2), V(0, 1, 1, -1));
  check_bin("TruncateDiv", TFS_INT8, V(-128, 7, -7, 7), V(-1, 2, 2, -2),
            V(-128, 3, -3, -3));
  check_bin("Mod", TFS_INT32, V(-2147483648.0, 7, -7, 7), V(-1, 2, 2, -2),
            V(0, 1, -1, 1));
  tfs_tensor *x = mt_t(TFS_INT8, 1, D(3), V(-128, -5, 7));
  tfs_tensor *n = un("Neg", x), *a = un("Abs", x), *sq = un("Square", x);
  mt_expect(n, TFS_INT8, 1, D(3), V(-128, 5, -7), 0);
  mt_expect(a, TFS_INT8, 1, D(3), V(-128, 5, 7), 0);
  mt_expect(sq, TFS_INT8, 1, D(3), V(0, 25, 49), 0);
  mt_free_all((tfs_tensor *[]){x, n, a, sq}, 4);
}

static void test_float_division_variants(void) {
  const double *x = V(7.5, -7.5, 7.5, -7.5), *y = V(2, 2, -2, -2);
  check_bin("FloorDiv", TFS_FLOAT, x, y, V(3, -4, -4, 3));
  check_bin("TruncateDiv", TFS_FLOAT, x, y, V(3, -3, -3, 3));
  check_bin("FloorMod", TFS_FLOAT, x, y, V(1.5, 0.5, -0.5, -1.5));
  check_bin("Mod", TFS_FLOAT, x, y, V(1.5, -1.5, 1.5, -1.5));
  check_bin("FloorMod", TFS_DOUBLE, V(1, 0, 5, -5), V(0, 0, 3, 3),
            V(NAN, NAN, 2, 1));
  check_bin("FloorDiv", TFS_DOUBLE, V(1, 0, -1, 5), V(0, 0, 0, 3),
            V(INFINITY, NAN, -INFINITY, 1));
  check_bin("RealDiv", TFS_FLOAT, V(1, -1, 0, 3), V(0, 0, 0, 4),
            V(INFINITY, -INFINITY, NAN, 0.75));
  check_bin("Atan2", TFS_DOUBLE, V(1, 1, -1, 0), V(1, -1, -1, 1),
            V(M_PI / 4, 3 * M_PI / 4, -3 * M_PI / 4, 0));
  check_bin("Atan2", TFS_HALF, V(1, 1, -1, 0), V(1, -1, -1, 1),
            V(M_PI / 4, 3 * M_PI / 4, -3 * M_PI / 4, 0));
  check_bin("Pow", TFS_FLOAT, V(2, 4, -8, 0), V(0.5, -1, 1.0 / 3, 0),
            V(M_SQRT2, 0.25, NAN, 1));
}

/* Every chunk of a division split over the intra-op pool fails at once;
 * the kernel reports one error (chunks record theirs atomically). */
static void test_division_by_zero_parallel(void) {
  mt_set_threads(4);
  /* a zero divisor late in every stretch of 8192, so that chunks work a
   * while before they fail, on several threads at once */
  const int64_t n = 512 * 1024;
  double *ones = malloc(sizeof(double) * (size_t)n);
  CU_ASSERT_PTR_NOT_NULL_FATAL(ones);
  for (int64_t i = 0; i < n; i++) ones[i] = i % 8192 == 8191 ? 0 : 1;
  tfs_tensor *a = mt_t(TFS_INT32, 2, D(512, 1024), ones);
  tfs_tensor *b = mt_t(TFS_INT32, 2, D(512, 1024), ones);
  tfs_tensor *row = mt_t(TFS_INT32, 2, D(1, 1024), ones + 7168);
  free(ones);
  for (int rep = 0; rep < 4; rep++) {
    CU_ASSERT_STRING_EQUAL(bin_fail("FloorDiv", a, b, TFS_INVALID_ARGUMENT),
                           "Integer division by zero" NODE);
    CU_ASSERT_STRING_EQUAL(bin_fail("Mod", a, row, TFS_INVALID_ARGUMENT),
                           "Integer division by zero" NODE);
  }
  mt_set_threads(0);
  mt_free_all((tfs_tensor *[]){a, b, row}, 3);
}

static void test_division_by_zero_errors(void) {
  static const char *const ops[] = {"Div", "FloorDiv", "FloorMod", "Mod"};
  for (size_t i = 0; i < 4; i++) {
    tfs_tensor *a = mt_t(TFS_INT32, 1, D(3), V(7, -7, 7));
    tfs_tensor *b = mt_t(TFS_INT32, 1, D(3), V(2, 0, 1));
    const char *m = bin_fail(ops[i], a, b, TFS_INVALID_ARGUMENT);
    CU_ASSERT_STRING_EQUAL(m, "Integer division by zero" NODE);
    mt_free_all((tfs_tensor *[]){a, b}, 2);
  }
  tfs_tensor *a = mt_t(TFS_UINT8, 1, D(2), V(7, 200));
  tfs_tensor *b = mt_scalar(TFS_UINT8, 0);
  CU_ASSERT_STRING_EQUAL(bin_fail("FloorDiv", a, b, TFS_INVALID_ARGUMENT),
                         "Integer division by zero" NODE);
  CU_ASSERT_STRING_EQUAL(bin_fail("TruncateDiv", a, b, TFS_INTERNAL),
                         "Unexpected error in binary operator (only integer "
                         "div and mod should have errors)" NODE);
  tfs_tensor *p = mt_t(TFS_INT32, 1, D(2), V(2, 1));
  tfs_tensor *e = mt_t(TFS_INT32, 1, D(2), V(1, -1));
  CU_ASSERT_STRING_EQUAL(bin_fail("Pow", p, e, TFS_INVALID_ARGUMENT),
                         "Integers to negative integer powers are not "
                         "allowed" NODE);
  mt_free_all((tfs_tensor *[]){a, b, p, e}, 4);
}

static void test_broadcasting_and_empty(void) {
  tfs_tensor *a = mt_t(TFS_FLOAT, 3, D(2, 1, 3), V(1, 2, 3, 4, 5, 6));
  tfs_tensor *b = mt_t(TFS_FLOAT, 2, D(2, 1), V(10, 20));
  tfs_tensor *r = bin("SquaredDifference", a, b);
  mt_expect(r, TFS_FLOAT, 3, D(2, 2, 3),
            V(81, 64, 49, 361, 324, 289, 36, 25, 16, 256, 225, 196), 0);
  tfs_tensor *c = mt_t(TFS_FLOAT, 2, D(2, 3), NULL);
  tfs_tensor *d = mt_t(TFS_FLOAT, 1, D(4), NULL);
  CU_ASSERT_STRING_EQUAL(bin_fail("FloorMod", c, d, TFS_INVALID_ARGUMENT),
                         "Incompatible shapes: [2,3] vs. [4]" NODE);
  CU_ASSERT_STRING_EQUAL(bin_fail("Atan2", c, d, TFS_INVALID_ARGUMENT),
                         "Incompatible shapes: [2,3] vs. [4]" NODE);
  tfs_tensor *e = mt_t(TFS_FLOAT, 2, D(0, 3), NULL);
  tfs_tensor *f = mt_t(TFS_FLOAT, 1, D(3), V(1, 2, 3));
  tfs_tensor *g = bin("FloorDiv", e, f);
  mt_expect(g, TFS_FLOAT, 2, D(0, 3), NULL, 0);
  tfs_tensor *h = un("Erf", e);
  mt_expect(h, TFS_FLOAT, 2, D(0, 3), NULL, 0);
  mt_free_all((tfs_tensor *[]){a, b, r, c, d, e, f, g, h}, 9);
}

/* Broadcasts with size-1 dimensions between others: the engine merges
 * dimensions, and each merge must compare with the merged neighbour's
 * stride (AddV2 of [3,2,1,2] and [3,1] once read past its inputs). */
static void test_broadcast_collapse(void) {
  static const int64_t kShapes[][2][5] = {
      {{3, 2, 1, 2, 0}, {3, 1, 0, 0, 0}},
      {{2, 1, 3, 0, 0}, {1, 4, 1, 0, 0}},
      {{4, 1, 1, 5, 0}, {4, 1, 1, 1, 0}},
      {{2, 1, 2, 1, 2}, {1, 3, 2, 1, 1}},
      {{1, 3, 1, 2, 0}, {2, 1, 4, 1, 0}},
  };
  for (size_t t = 0; t < sizeof kShapes / sizeof kShapes[0]; t++) {
    int64_t da[5], db[5], dout[5], ea[5], eb[5];
    int ra = 0, rb = 0;
    while (ra < 5 && kShapes[t][0][ra]) da[ra] = kShapes[t][0][ra], ra++;
    while (rb < 5 && kShapes[t][1][rb]) db[rb] = kShapes[t][1][rb], rb++;
    int r = ra > rb ? ra : rb;
    int64_t na = 1, nb = 1, no = 1;
    for (int d = 0; d < r; d++) {
      ea[d] = d - (r - ra) >= 0 ? da[d - (r - ra)] : 1;
      eb[d] = d - (r - rb) >= 0 ? db[d - (r - rb)] : 1;
      dout[d] = ea[d] > eb[d] ? ea[d] : eb[d];
      na *= ea[d], nb *= eb[d], no *= dout[d];
    }
    double va[64], vb[64], want[256];
    for (int64_t i = 0; i < na; i++) va[i] = (double)(i + 1);
    for (int64_t i = 0; i < nb; i++) vb[i] = 100.0 * (double)(i + 1);
    for (int64_t i = 0; i < no; i++) {
      int64_t rem = i, ia = 0, ib = 0, sa = 1, sb = 1;
      for (int d = r - 1; d >= 0; d--) {
        int64_t idx = rem % dout[d];
        rem /= dout[d];
        ia += (ea[d] == 1 ? 0 : idx) * sa;
        ib += (eb[d] == 1 ? 0 : idx) * sb;
        sa *= ea[d], sb *= eb[d];
      }
      want[i] = va[ia] + vb[ib];
    }
    tfs_tensor *a = mt_t(TFS_FLOAT, ra, da, va);
    tfs_tensor *b = mt_t(TFS_FLOAT, rb, db, vb);
    tfs_tensor *s = bin("AddV2", a, b);
    mt_expect(s, TFS_FLOAT, r, dout, want, 0);
    mt_free_all((tfs_tensor *[]){a, b, s}, 3);
  }
}

static void test_nan_propagation(void) {
  check_bin("Maximum", TFS_FLOAT, V(NAN, 1, 2, -0.5), V(1, NAN, 1, -1),
            V(NAN, NAN, 2, -0.5));
  check_bin("Minimum", TFS_DOUBLE, V(NAN, 1, 2, -0.5), V(1, NAN, 1, -1),
            V(NAN, NAN, 1, -1));
  check_bin("Maximum", TFS_HALF, V(NAN, 1, 2, 3), V(1, NAN, 1, 4),
            V(NAN, NAN, 2, 4));
}

/* ---- complex ------------------------------------------------------------ */

/* A complex vector freed at exit (for inline use). */
static tfs_tensor *cx(tfs_dtype dt, int n, const double *pairs) {
  return mt_tmp(mt_complex(dt, 1, D(n), pairs));
}

static void test_complex_arithmetic(void) {
  for (int w = 0; w < 2; w++) {
    tfs_dtype dt = w ? TFS_COMPLEX128 : TFS_COMPLEX64;
    double tol = w ? 1e-12 : 1e-6;
    tfs_tensor *a = cx(dt, 2, V(1, 2, 3, -1)), *b = cx(dt, 2, V(0, 1, 2, 2));
    /* a and b are freed at exit */
    tfs_tensor *s = bin("AddV2", a, b), *m = bin("Mul", a, b);
    tfs_tensor *q = bin("RealDiv", a, b), *sd = bin("SquaredDifference", a, b);
    tfs_tensor *eq = bin("Equal", a, a);
    mt_expect_complex(s, dt, 1, D(2), V(1, 3, 5, 1), tol);
    mt_expect_complex(m, dt, 1, D(2), V(-2, 1, 8, 4), tol);
    mt_expect_complex(q, dt, 1, D(2), V(2, -1, 0.5, -1), tol);
    mt_expect_complex(sd, dt, 1, D(2), V(2, 0, 10, 0), tol);
    mt_expect(eq, TFS_BOOL, 1, D(2), V(1, 1), 0);
    tfs_tensor *sg = un("Sign", cx(dt, 2, V(3, 4, 0, 0)));
    mt_expect_complex(sg, dt, 1, D(2), V(0.6, 0.8, 0, 0), tol);
    tfs_tensor *ex = un("Exp", cx(dt, 1, V(0, M_PI)));
    mt_expect_complex(ex, dt, 1, D(1), V(-1, 0), tol);
    tfs_tensor *e1 = un("Expm1", cx(dt, 1, V(1e-9, 1e-9)));
    mt_expect_complex(e1, dt, 1, D(1), V(1e-9, 1e-9), 1e-6);
    tfs_tensor *l1 = un("Log1p", cx(dt, 1, V(1e-9, 1e-9)));
    mt_expect_complex(l1, dt, 1, D(1), V(1e-9, 1e-9), 1e-6);
    tfs_tensor *sq = un("Sqrt", cx(dt, 1, V(-4, 0)));
    mt_expect_complex(sq, dt, 1, D(1), V(0, 2), tol);
    tfs_tensor *rc = un("Reciprocal", cx(dt, 1, V(0, 2)));
    mt_expect_complex(rc, dt, 1, D(1), V(0, -0.5), tol);
    tfs_tensor *p = bin("Pow", cx(dt, 1, V(0, 1)), cx(dt, 1, V(2, 0)));
    mt_expect_complex(p, dt, 1, D(1), V(-1, 0), 1e-6);
    mt_free_all((tfs_tensor *[]){s, m, q, sd, eq, sg, ex, e1, l1, sq, rc, p},
                12);
  }
}

/* ---- comparisons and logic ---------------------------------------------- */

static void set_no_shape_error(tfs_op_desc *d, const void *arg) {
  (void)arg;
  tfs_op_desc_set_attr_bool(d, "incompatible_shape_error", 0);
}

static void test_comparisons(void) {
  static const tfs_dtype dts[] = {TFS_FLOAT, TFS_HALF, TFS_INT8, TFS_UINT64,
                                  TFS_BFLOAT16, TFS_INT64, TFS_DOUBLE};
  static const char *const ops[] = {"Less", "LessEqual", "Greater",
                                    "GreaterEqual", "Equal", "NotEqual"};
  /* a = (1, 2, 3, 0), b = (2, 2, 1, 0) */
  static const double want[6][4] = {{1, 0, 0, 0}, {1, 1, 0, 1},
                                    {0, 0, 1, 0}, {0, 1, 1, 1},
                                    {0, 1, 0, 1}, {1, 0, 1, 0}};
  for (size_t k = 0; k < sizeof dts / sizeof dts[0]; k++) {
    tfs_tensor *a = mt_t(dts[k], 1, D(4), V(1, 2, 3, 0));
    tfs_tensor *b = mt_t(dts[k], 1, D(4), V(2, 2, 1, 0));
    for (int o = 0; o < 6; o++) {
      tfs_tensor *r = bin(ops[o], a, b);
      mt_expect(r, TFS_BOOL, 1, D(4), want[o], 0);
      tfs_tensor_free(r);
    }
    mt_free_all((tfs_tensor *[]){a, b}, 2);
  }
  /* NaN compares false (and unequal) to everything */
  tfs_tensor *x = mt_t(TFS_FLOAT, 1, D(3), V(NAN, 1, NAN));
  tfs_tensor *y = mt_t(TFS_FLOAT, 1, D(3), V(1, NAN, NAN));
  tfs_tensor *lt = bin("LessEqual", x, y), *ne = bin("NotEqual", x, y);
  mt_expect(lt, TFS_BOOL, 1, D(3), V(0, 0, 0), 0);
  mt_expect(ne, TFS_BOOL, 1, D(3), V(1, 1, 1), 0);
  mt_free_all((tfs_tensor *[]){x, y, lt, ne}, 4);
}

static void test_equal_shapes_and_strings(void) {
  tfs_tensor *a = mt_t(TFS_INT32, 1, D(2), V(1, 2));
  tfs_tensor *b = mt_t(TFS_INT32, 1, D(3), V(1, 2, 3));
  mt_op eq = {"Equal", -1, set_no_shape_error, NULL};
  mt_op ne = {"NotEqual", -1, set_no_shape_error, NULL};
  tfs_tensor *in[2] = {a, b};
  tfs_tensor *r = mt_eval(&eq, in, 2), *r2 = mt_eval(&ne, in, 2);
  mt_expect(r, TFS_BOOL, 0, NULL, V(0), 0);
  mt_expect(r2, TFS_BOOL, 0, NULL, V(1), 0);
  CU_ASSERT_STRING_EQUAL(bin_fail("Equal", a, b, TFS_INVALID_ARGUMENT),
                         "Incompatible shapes: [2] vs. [3]" NODE);
  tfs_status *st = tfs_status_new();
  const char *s1[] = {"ab", "c"}, *s2[] = {"ab", "d"};
  tfs_tensor *x = tfs_tensor_new_strings(D(2), 1, s1, NULL, st);
  tfs_tensor *y = tfs_tensor_new_strings(D(2), 1, s2, NULL, st);
  TFS_ASSERT_OK(st);
  tfs_tensor *se = bin("Equal", x, y), *sn = bin("NotEqual", x, y);
  mt_expect(se, TFS_BOOL, 1, D(2), V(1, 0), 0);
  mt_expect(sn, TFS_BOOL, 1, D(2), V(0, 1), 0);
  tfs_status_free(st);
  mt_free_all((tfs_tensor *[]){a, b, r, r2, x, y, se, sn}, 8);
}

static void test_logical_ops(void) {
  tfs_tensor *a = mt_t(TFS_BOOL, 2, D(2, 2), V(1, 1, 0, 0));
  tfs_tensor *b = mt_t(TFS_BOOL, 1, D(2), V(1, 0));
  tfs_tensor *and = bin("LogicalAnd", a, b), *or = bin("LogicalOr", a, b);
  tfs_tensor *not = un("LogicalNot", a);
  mt_expect(and, TFS_BOOL, 2, D(2, 2), V(1, 0, 0, 0), 0);
  mt_expect(or, TFS_BOOL, 2, D(2, 2), V(1, 1, 1, 0), 0);
  mt_expect(not, TFS_BOOL, 2, D(2, 2), V(0, 0, 1, 1), 0);
  tfs_tensor *c = mt_t(TFS_BOOL, 1, D(3), V(1, 0, 1));
  CU_ASSERT_STRING_EQUAL(bin_fail("LogicalOr", b, c, TFS_INVALID_ARGUMENT),
                         "Incompatible shapes: [2] vs. [3]" NODE);
  mt_free_all((tfs_tensor *[]){a, b, and, or, not, c}, 6);
}

/* ---- unary --------------------------------------------------------------- */

static void check_un(const char *op, tfs_dtype dt, int n, const double *x,
                     tfs_dtype out_dt, const double *want, double tol) {
  tfs_tensor *t = mt_t(dt, 1, D(n), x), *r = un(op, t);
  mt_expect(r, out_dt, 1, D(n), want, tol);
  mt_free_all((tfs_tensor *[]){t, r}, 2);
}

static void test_unary_arithmetic(void) {
  const double *x = V(-2.5, -0.5, 0.5, 1.5, 2.5, -0.0, NAN);
  check_un("Round", TFS_FLOAT, 7, x, TFS_FLOAT,
           V(-2, -0.0, 0, 2, 2, 0, NAN), 0);
  check_un("Rint", TFS_DOUBLE, 7, x, TFS_DOUBLE,
           V(-2, -0.0, 0, 2, 2, 0, NAN), 0);
  check_un("Round", TFS_HALF, 7, x, TFS_HALF, V(-2, -0.0, 0, 2, 2, 0, NAN), 0);
  check_un("Floor", TFS_BFLOAT16, 7, x, TFS_BFLOAT16,
           V(-3, -1, 0, 1, 2, 0, NAN), 0);
  check_un("Ceil", TFS_FLOAT, 7, x, TFS_FLOAT, V(-2, 0, 1, 2, 3, 0, NAN), 0);
  check_un("Sign", TFS_FLOAT, 7, x, TFS_FLOAT, V(-1, -1, 1, 1, 1, 0, NAN), 0);
  check_un("Abs", TFS_DOUBLE, 7, x, TFS_DOUBLE,
           V(2.5, 0.5, 0.5, 1.5, 2.5, 0, NAN), 0);
  check_un("Reciprocal", TFS_FLOAT, 7, x, TFS_FLOAT,
           V(-0.4, -2, 2, 1 / 1.5, 0.4, -INFINITY, NAN), 1e-7);
  check_un("Square", TFS_UINT16, 3, V(3, 256, 0), TFS_UINT16, V(9, 0, 0), 0);
  check_un("Sign", TFS_INT64, 3, V(-7, 0, 9), TFS_INT64, V(-1, 0, 1), 0);
  /* TensorFlow 2.21's CPU Round returns zeros for integers */
  check_un("Round", TFS_INT32, 3, V(-7, 9, 2147483647), TFS_INT32,
           V(0, 0, 0), 0);
  check_un("Round", TFS_INT64, 2, V(-7, 9), TFS_INT64, V(0, 0), 0);
  /* Erf: float64 is NaN from |x| >= 0x1.ffffffcp+511 (TensorFlow's CPU
   * kernel), float32 saturates */
  check_un("Erf", TFS_DOUBLE, 6,
           V(INFINITY, -INFINITY, 0x1.ffffffcp+511, 0x1.ffffffbffffffp+511,
             -1e300, 30),
           TFS_DOUBLE, V(NAN, NAN, NAN, 1, NAN, 1), 0);
  check_un("Erf", TFS_FLOAT, 3, V(INFINITY, -INFINITY, NAN), TFS_FLOAT,
           V(1, -1, NAN), 0);
  const double *s = V(1, INFINITY, -INFINITY, NAN, 0);
  check_un("IsNan", TFS_FLOAT, 5, s, TFS_BOOL, V(0, 0, 0, 1, 0), 0);
  check_un("IsInf", TFS_HALF, 5, s, TFS_BOOL, V(0, 1, 1, 0, 0), 0);
  check_un("IsFinite", TFS_DOUBLE, 5, s, TFS_BOOL, V(1, 0, 0, 0, 1), 0);
  check_un("IsFinite", TFS_BFLOAT16, 5, s, TFS_BOOL, V(1, 0, 0, 0, 1), 0);
}

typedef struct {
  const char *op;
  double (*ref)(double);
  double x[3];
} math_case;

static double rsqrt_ref(double x) { return 1 / sqrt(x); }
static double sigmoid_ref(double x) { return 1 / (1 + exp(-x)); }

static void test_unary_math_all_float_types(void) {
  static const math_case cases[] = {
      {"Sqrt", sqrt, {0.25, 2, 9}},      {"Rsqrt", rsqrt_ref, {0.25, 2, 9}},
      {"Exp", exp, {-1, 0, 2}},          {"Expm1", expm1, {-1e-4, 0, 2}},
      {"Log", log, {0.5, 1, 10}},        {"Log1p", log1p, {-0.5, 1e-5, 3}},
      {"Sin", sin, {-1, 0, 2}},          {"Cos", cos, {-1, 0, 2}},
      {"Tan", tan, {-1, 0, 1.2}},        {"Asin", asin, {-1, 0, 0.5}},
      {"Acos", acos, {-1, 0, 0.5}},      {"Atan", atan, {-10, 0, 0.5}},
      {"Sinh", sinh, {-1, 0, 2}},        {"Cosh", cosh, {-1, 0, 2}},
      {"Tanh", tanh, {-20, 0, 0.5}},     {"Sigmoid", sigmoid_ref, {-90, 0, 3}},
      {"Erf", erf, {-1, 0, 0.5}},        {"Erfc", erfc, {-1, 0, 3}},
  };
  static const tfs_dtype dts[] = {TFS_FLOAT, TFS_DOUBLE, TFS_HALF,
                                  TFS_BFLOAT16};
  static const double tols[] = {2e-6, 1e-14, 2e-3, 1e-2};
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    double want[3];
    for (int i = 0; i < 3; i++) want[i] = cases[c].ref(cases[c].x[i]);
    for (int k = 0; k < 4; k++)
      check_un(cases[c].op, dts[k], 3, cases[c].x, dts[k], want, tols[k]);
  }
  check_un("Log", TFS_FLOAT, 3, V(0, -1, INFINITY), TFS_FLOAT,
           V(-INFINITY, NAN, INFINITY), 0);
  check_un("Sqrt", TFS_DOUBLE, 2, V(-1, INFINITY), TFS_DOUBLE,
           V(NAN, INFINITY), 0);
}

static void test_unregistered_dtype(void) {
  tfs_tensor *a = mt_t(TFS_HALF, 1, D(1), V(1)), *b = mt_t(TFS_HALF, 1, D(1),
                                                           V(1));
  const char *m = bin_fail("Mod", a, b, TFS_INVALID_ARGUMENT);
  CU_ASSERT_PTR_NOT_NULL(strstr(m, "No OpKernel was registered to support "
                                   "Op 'Mod' used by {{node op}}"));
  mt_free_all((tfs_tensor *[]){a, b}, 2);
}

/* ---- Cast ---------------------------------------------------------------- */

typedef struct {
  tfs_dtype dst;
  int truncate;
} cast_arg;

static void set_cast(tfs_op_desc *d, const void *arg) {
  const cast_arg *a = arg;
  tfs_op_desc_set_attr_type(d, "DstT", a->dst);
  if (a->truncate) tfs_op_desc_set_attr_bool(d, "Truncate", 1);
}

static tfs_tensor *cast(tfs_tensor *x, tfs_dtype dst, int truncate) {
  cast_arg a = {dst, truncate};
  mt_op o = {"Cast", -1, set_cast, &a};
  return mt_eval(&o, &x, 1);
}

static void test_cast_complex(void) {
  tfs_tensor *c = mt_complex(TFS_COMPLEX64, 1, D(3),
                             V(1.7, 2, 0, 2, -3.5, 0));
  tfs_tensor *f = cast(c, TFS_FLOAT, 0), *i = cast(c, TFS_INT32, 0);
  tfs_tensor *b = cast(c, TFS_BOOL, 0), *w = cast(c, TFS_COMPLEX128, 0);
  tfs_tensor *h = cast(c, TFS_HALF, 0);
  mt_expect(f, TFS_FLOAT, 1, D(3), V(1.7, 0, -3.5), 1e-7);
  mt_expect(i, TFS_INT32, 1, D(3), V(1, 0, -3), 0);
  mt_expect(b, TFS_BOOL, 1, D(3), V(1, 0, 1), 0);
  mt_expect(h, TFS_HALF, 1, D(3), V(1.7, 0, -3.5), 1e-3);
  mt_expect_complex(w, TFS_COMPLEX128, 1, D(3), V(1.7, 2, 0, 2, -3.5, 0),
                    1e-7);
  tfs_tensor *u = mt_t(TFS_UINT64, 1, D(2), V(1, 9223372036854775808.0));
  tfs_tensor *uc = cast(u, TFS_COMPLEX64, 0);
  mt_expect_complex(uc, TFS_COMPLEX64, 1, D(2),
                    V(1, 0, 9223372036854775808.0, 0), 1e-7);
  tfs_tensor *bt = mt_t(TFS_BOOL, 1, D(2), V(1, 0));
  tfs_tensor *bc = cast(bt, TFS_COMPLEX128, 0);
  mt_expect_complex(bc, TFS_COMPLEX128, 1, D(2), V(1, 0, 0, 0), 0);
  mt_free_all((tfs_tensor *[]){c, f, i, b, w, h, u, uc, bt, bc}, 10);
}

static void test_cast_truncate(void) {
  /* 1.0078125 + 3/4 of a bfloat16 step: rounds up, truncates down */
  tfs_tensor *x = mt_t(TFS_FLOAT, 1, D(3),
                       V(1.0078125 + 0.0078125 * 0.75, -1.0117187, NAN));
  tfs_tensor *r = cast(x, TFS_BFLOAT16, 0), *t = cast(x, TFS_BFLOAT16, 1);
  mt_expect(r, TFS_BFLOAT16, 1, D(3), V(1.015625, -1.015625, NAN), 0);
  mt_expect(t, TFS_BFLOAT16, 1, D(3), V(1.0078125, -1.0078125, NAN), 0);
  tfs_tensor *h = mt_t(TFS_FLOAT, 1, D(2), V(1.00146484375, 65519));
  tfs_tensor *hr = cast(h, TFS_HALF, 0), *ht = cast(h, TFS_HALF, 1);
  mt_expect(hr, TFS_HALF, 1, D(2), V(1.001953125, 65504), 0);
  mt_expect(ht, TFS_HALF, 1, D(2), V(1.0009765625, 65504), 0);
  tfs_tensor *d = mt_t(TFS_DOUBLE, 1, D(1), V(2.0 / 3));
  tfs_tensor *dr = cast(d, TFS_FLOAT, 0), *dt = cast(d, TFS_FLOAT, 1);
  CU_ASSERT_EQUAL(mt_get(dr, 0), (double)0.6666667f);
  CU_ASSERT_EQUAL(mt_get(dt, 0), (double)nextafterf(0.6666667f, 0));
  mt_free_all((tfs_tensor *[]){x, r, t, h, hr, ht, d, dr, dt}, 9);
}

static void test_cast_errors_and_identity(void) {
  tfs_status *st = tfs_status_new();
  const char *s[] = {"1"};
  tfs_tensor *x = tfs_tensor_new_strings(D(1), 1, s, NULL, st);
  cast_arg a = {TFS_INT32, 0};
  mt_op o = {"Cast", -1, set_cast, &a};
  const char *m;
  CU_ASSERT_EQUAL(mt_eval_fail(&o, &x, 1, &m), TFS_UNIMPLEMENTED);
  CU_ASSERT_STRING_EQUAL(m, "Cast string to int32 is not supported" NODE);
  tfs_tensor *f = mt_t(TFS_FLOAT, 1, D(2), V(1.5, -2));
  tfs_tensor *same = cast(f, TFS_FLOAT, 1);
  mt_expect(same, TFS_FLOAT, 1, D(2), V(1.5, -2), 0);
  tfs_status_free(st);
  mt_free_all((tfs_tensor *[]){x, f, same}, 3);
}

/* ---- Select, SelectV2 ---------------------------------------------------- */

static tfs_tensor *sel(const char *op, tfs_tensor *c, tfs_tensor *t,
                       tfs_tensor *e) {
  mt_op o = {op, -1, NULL, NULL};
  tfs_tensor *in[3] = {c, t, e};
  return mt_eval(&o, in, 3);
}

static const char *sel_fail(const char *op, tfs_tensor *c, tfs_tensor *t,
                            tfs_tensor *e) {
  mt_op o = {op, -1, NULL, NULL};
  tfs_tensor *in[3] = {c, t, e};
  const char *m;
  CU_ASSERT_EQUAL(mt_eval_fail(&o, in, 3, &m), TFS_INVALID_ARGUMENT);
  return m;
}

static void test_select_modes(void) {
  tfs_tensor *t = mt_t(TFS_FLOAT, 2, D(2, 2), V(1, 2, 3, 4));
  tfs_tensor *e = mt_t(TFS_FLOAT, 2, D(2, 2), V(-1, -2, -3, -4));
  tfs_tensor *ce = mt_t(TFS_BOOL, 2, D(2, 2), V(1, 0, 0, 1));
  tfs_tensor *cv = mt_t(TFS_BOOL, 1, D(2), V(0, 1));
  tfs_tensor *cs = mt_scalar(TFS_BOOL, 0);
  tfs_tensor *r1 = sel("Select", ce, t, e), *r2 = sel("Select", cv, t, e);
  tfs_tensor *r3 = sel("Select", cs, t, e), *r4 = sel("SelectV2", cv, t, e);
  mt_expect(r1, TFS_FLOAT, 2, D(2, 2), V(1, -2, -3, 4), 0);
  mt_expect(r2, TFS_FLOAT, 2, D(2, 2), V(-1, -2, 3, 4), 0);
  mt_expect(r3, TFS_FLOAT, 2, D(2, 2), V(-1, -2, -3, -4), 0);
  /* SelectV2 broadcasts the vector over the last dimension */
  mt_expect(r4, TFS_FLOAT, 2, D(2, 2), V(-1, 2, -3, 4), 0);
  tfs_tensor *s1 = mt_scalar(TFS_INT64, 7);
  tfs_tensor *c3 = mt_t(TFS_BOOL, 3, D(2, 1, 3), V(1, 0, 1, 0, 1, 0));
  tfs_tensor *e3 = mt_t(TFS_INT64, 2, D(2, 1), V(-1, -2));
  tfs_tensor *r5 = sel("SelectV2", c3, s1, e3);
  mt_expect(r5, TFS_INT64, 3, D(2, 2, 3),
            V(7, -1, 7, 7, -2, 7, -1, 7, -1, -2, 7, -2), 0);
  tfs_tensor *z = mt_t(TFS_FLOAT, 2, D(0, 2), NULL);
  tfs_tensor *zc = mt_t(TFS_BOOL, 1, D(0), NULL);
  tfs_tensor *r6 = sel("Select", zc, z, z);
  mt_expect(r6, TFS_FLOAT, 2, D(0, 2), NULL, 0);
  mt_free_all((tfs_tensor *[]){t, e, ce, cv, cs, r1, r2, r3, r4, s1, c3, e3,
                               r5, z, zc, r6}, 16);
}

static void test_select_strings(void) {
  tfs_status *st = tfs_status_new();
  const char *a[] = {"then-a-long-string-beyond-inline", "t2"};
  const char *b[] = {"e1", "else-b-long-string-beyond-inline"};
  tfs_tensor *t = tfs_tensor_new_strings(D(2), 1, a, NULL, st);
  tfs_tensor *e = tfs_tensor_new_strings(D(2), 1, b, NULL, st);
  tfs_tensor *c = mt_t(TFS_BOOL, 1, D(2), V(1, 0));
  tfs_tensor *r = sel("SelectV2", c, t, e);
  size_t len;
  CU_ASSERT_STRING_EQUAL(tfs_tensor_string_at(r, 0, &len), a[0]);
  CU_ASSERT_STRING_EQUAL(tfs_tensor_string_at(r, 1, &len), b[1]);
  tfs_status_free(st);
  mt_free_all((tfs_tensor *[]){t, e, c, r}, 4);
}

static void test_select_errors(void) {
  tfs_tensor *v2 = mt_t(TFS_FLOAT, 1, D(2), NULL);
  tfs_tensor *v3 = mt_t(TFS_FLOAT, 1, D(3), NULL);
  tfs_tensor *m22 = mt_t(TFS_FLOAT, 2, D(2, 2), NULL);
  tfs_tensor *m23 = mt_t(TFS_FLOAT, 2, D(2, 3), NULL);
  tfs_tensor *s = mt_scalar(TFS_FLOAT, 0);
  tfs_tensor *b2 = mt_t(TFS_BOOL, 1, D(2), NULL);
  tfs_tensor *b3 = mt_t(TFS_BOOL, 1, D(3), NULL);
  tfs_tensor *b23 = mt_t(TFS_BOOL, 2, D(2, 3), NULL);
  tfs_tensor *bs = mt_scalar(TFS_BOOL, 1);
  CU_ASSERT_STRING_EQUAL(sel_fail("Select", b2, v2, v3),
                         "Inputs to operation op of type Select must have "
                         "the same size and shape.  Input 0: [2] != input "
                         "2: [3]" NODE);
  CU_ASSERT_STRING_EQUAL(sel_fail("Select", b3, m22, m22),
                         "Number of batches of 'then' must match size of "
                         "'cond', but saw: 2 vs. 3" NODE);
  CU_ASSERT_STRING_EQUAL(sel_fail("Select", b23, m22, m22),
                         "Inputs to operation op of type Select must have "
                         "the same size and shape.  Input 0: [2,3] != input "
                         "1: [2,2]" NODE);
  CU_ASSERT_STRING_EQUAL(sel_fail("Select", b2, s, s),
                         "'then' must be at least a vector, but saw shape: "
                         "[]" NODE);
  CU_ASSERT_STRING_EQUAL(sel_fail("Select", bs, m22, m23),
                         "'then' and 'else' must have the same size.  but "
                         "received: [2,2] vs. [2,3]" NODE);
  CU_ASSERT_STRING_EQUAL(sel_fail("Select", b2, m22, m23),
                         "'then' and 'else' must have the same size.  but "
                         "received: [2,2] vs. [2,3]" NODE);
  tfs_tensor *v4 = mt_t(TFS_FLOAT, 1, D(4), NULL);
  CU_ASSERT_STRING_EQUAL(sel_fail("SelectV2", b2, v3, v4),
                         "condition [2], then [3], and else [4] must be "
                         "broadcastable" NODE);
  mt_free_all((tfs_tensor *[]){v2, v3, m22, m23, s, b2, b3, b23, bs, v4}, 10);
}

/* ---- ClipByValue, AddN --------------------------------------------------- */

static void test_clip_by_value(void) {
  mt_op o = {"ClipByValue", -1, NULL, NULL};
  tfs_tensor *t = mt_t(TFS_FLOAT, 1, D(4), V(1, 5, -3, NAN));
  tfs_tensor *lo = mt_scalar(TFS_FLOAT, 0), *hi = mt_scalar(TFS_FLOAT, 2);
  tfs_tensor *r = mt_eval(&o, (tfs_tensor *[]){t, lo, hi}, 3);
  mt_expect(r, TFS_FLOAT, 1, D(4), V(1, 2, 0, NAN), 0);
  /* max(min(t, hi), lo): an inverted range gives lo */
  tfs_tensor *r2 = mt_eval(&o, (tfs_tensor *[]){t, hi, lo}, 3);
  mt_expect(r2, TFS_FLOAT, 1, D(4), V(2, 2, 2, NAN), 0);
  tfs_tensor *ti = mt_t(TFS_INT16, 1, D(3), V(-5, 0, 5));
  tfs_tensor *li = mt_t(TFS_INT16, 1, D(3), V(-1, 1, 1));
  tfs_tensor *hi16 = mt_scalar(TFS_INT16, 3);
  tfs_tensor *r3 = mt_eval(&o, (tfs_tensor *[]){ti, li, hi16}, 3);
  mt_expect(r3, TFS_INT16, 1, D(3), V(-1, 1, 3), 0);
  tfs_tensor *tc = mt_complex(TFS_COMPLEX64, 1, D(3), V(1, 5, 3, -1, -2, 0));
  tfs_tensor *lc = mt_complex(TFS_COMPLEX64, 0, NULL, V(0, 2));
  tfs_tensor *hc = mt_complex(TFS_COMPLEX64, 0, NULL, V(2, 0));
  tfs_tensor *r4 = mt_eval(&o, (tfs_tensor *[]){tc, lc, hc}, 3);
  mt_expect_complex(r4, TFS_COMPLEX64, 1, D(3), V(1, 2, 2, 2, 0, 2), 0);
  tfs_tensor *bad = mt_t(TFS_FLOAT, 1, D(3), NULL);
  const char *m;
  CU_ASSERT_EQUAL(mt_eval_fail(&o, (tfs_tensor *[]){t, bad, hi}, 3, &m),
                  TFS_INVALID_ARGUMENT);
  CU_ASSERT_STRING_EQUAL(m, "clip_value_min and clip_value_max must be "
                            "either of the same shape as input, or a "
                            "scalar. input shape: [4]clip_value_min shape: "
                            "[3]clip_value_max shape: []" NODE);
  mt_free_all((tfs_tensor *[]){t, lo, hi, r, r2, ti, li, hi16, r3, tc, lc,
                               hc, r4, bad}, 14);
}

static void test_add_n(void) {
  mt_op o = {"AddN", 0, NULL, NULL};
  tfs_tensor *a = mt_t(TFS_FLOAT, 1, D(3), V(1, 2, 3));
  tfs_tensor *b = mt_t(TFS_FLOAT, 1, D(3), V(10, 20, 30));
  tfs_tensor *r = mt_eval(&o, (tfs_tensor *[]){a, b, a}, 3);
  mt_expect(r, TFS_FLOAT, 1, D(3), V(12, 24, 36), 0);
  tfs_tensor *one = mt_eval(&o, (tfs_tensor *[]){b}, 1);
  mt_expect(one, TFS_FLOAT, 1, D(3), V(10, 20, 30), 0);
  tfs_tensor *i8 = mt_t(TFS_INT8, 1, D(2), V(100, -100));
  tfs_tensor *ri = mt_eval(&o, (tfs_tensor *[]){i8, i8, i8}, 3);
  mt_expect(ri, TFS_INT8, 1, D(2), V(44, -44), 0);
  tfs_tensor *z = mt_complex(TFS_COMPLEX128, 1, D(1), V(1, -1));
  tfs_tensor *rz = mt_eval(&o, (tfs_tensor *[]){z, z}, 2);
  mt_expect_complex(rz, TFS_COMPLEX128, 1, D(1), V(2, -2), 0);
  tfs_tensor *c = mt_t(TFS_FLOAT, 1, D(2), NULL);
  const char *m;
  CU_ASSERT_EQUAL(mt_eval_fail(&o, (tfs_tensor *[]){a, b, c}, 3, &m),
                  TFS_INVALID_ARGUMENT);
  CU_ASSERT_STRING_EQUAL(m, "Inputs to operation op of type AddN must have "
                            "the same size and shape.  Input 0: [3] != "
                            "input 2: [2]" NODE);
  mt_free_all((tfs_tensor *[]){a, b, r, one, i8, ri, z, rz, c}, 9);
}

/* ---- shape functions (graph construction) ----------------------------- */

typedef struct {
  tfs_dtype dt;
  int nd;              /* -1: a Const of `value` instead */
  int64_t dims[4];
  const double *value; /* for a Const: nd_const values */
  int nd_const;
  int64_t cdims[2];
} sin_spec;

/* Builds `op` over placeholders of known shapes (or Consts) and asserts
 * that adding the node fails with a message containing `want`. */
static void shape_error(const char *op, int n, const sin_spec *in,
                        int list_from, mt_attr_fn fn, const void *arg,
                        const char *want) {
  tfs_graph *g = tfs_graph_new();
  tfs_status *st = tfs_status_new();
  tfs_output ins[4];
  for (int i = 0; i < n; i++) {
    char name[8];
    snprintf(name, sizeof name, "i%d", i);
    if (in[i].nd >= 0) {
      ins[i] = tfs_op_placeholder(g, name, in[i].dt, in[i].dims, in[i].nd,
                                  st);
    } else {
      tfs_tensor *v = mt_t(in[i].dt, in[i].nd_const, in[i].cdims,
                           in[i].value);
      ins[i] = tfs_op_const(g, name, v, st);
      tfs_tensor_free(v);
    }
    TFS_ASSERT_OK(st);
  }
  tfs_op_desc *d = tfs_op_desc_new(g, op, "op");
  int fixed = list_from >= 0 ? list_from : n;
  for (int i = 0; i < fixed; i++) tfs_op_desc_add_input(d, ins[i]);
  if (list_from >= 0) tfs_op_desc_add_input_list(d, ins + fixed, n - fixed);
  if (fn) fn(d, arg);
  CU_ASSERT_PTR_NULL(tfs_op_desc_finish(d, st));
  int ok = tfs_status_code(st) == TFS_INVALID_ARGUMENT &&
           strstr(tfs_status_message(st), want) != NULL;
  if (!ok)
    fprintf(stderr, "\n  %s: expected \"%s\"\n  got \"%s\"\n", op, want,
            tfs_status_message(st));
  CU_ASSERT_TRUE(ok);
  tfs_status_free(st);
  tfs_graph_free(g);
}

#define PH(DT, ND, ...) {DT, ND, {__VA_ARGS__}, NULL, 0, {0}}
#define CONST1(DT, N, ...) {DT, -1, {0}, V(__VA_ARGS__), 1, {N}}
#define CONST0(DT, X) {DT, -1, {0}, V(X), 0, {0}}

static void test_select_addn_shapes(void) {
  const tfs_dtype F = TFS_FLOAT, B = TFS_BOOL;
  shape_error("Select", 3,
              (sin_spec[]){PH(B, 1, 3), PH(F, 2, 2, 2), PH(F, 2, 2, 2)}, -1,
              NULL, NULL,
              "Dimension 0 in both shapes must be equal, but are 3 and 2. "
              "Shapes are [3] and [2].");
  shape_error("Select", 3,
              (sin_spec[]){PH(B, 2, 2, 3), PH(F, 2, 2, 2), PH(F, 2, 2, 2)},
              -1, NULL, NULL,
              "Dimension 1 in both shapes must be equal, but are 2 and 3. "
              "Shapes are [2,2] and [2,3].");
  shape_error("Select", 3,
              (sin_spec[]){PH(B, 1, 2), PH(F, 2, 2, 2), PH(F, 2, 3, 2)}, -1,
              NULL, NULL,
              "Dimension 0 in both shapes must be equal, but are 2 and 3. "
              "Shapes are [2,2] and [3,2].");
  shape_error("Select", 3, (sin_spec[]){PH(B, 1, 2), PH(F, 0), PH(F, 0)},
              -1, NULL, NULL, "Shapes must be equal rank, but are 0 and 1");
  shape_error("SelectV2", 3,
              (sin_spec[]){PH(B, 1, 2), PH(F, 1, 3), PH(F, 0)}, -1, NULL,
              NULL, "Dimensions must be equal, but are 2 and 3");
  shape_error("AddN", 2, (sin_spec[]){PH(F, 1, 2), PH(F, 1, 3)}, 0, NULL,
              NULL,
              "Dimension 0 in both shapes must be equal, but are 2 and 3. "
              "Shapes are [2] and [3].\n\tFrom merging shape 0 with other "
              "shapes.");
  shape_error("AddN", 2, (sin_spec[]){PH(F, 1, 2), PH(F, 2, 2, 1)}, 0, NULL,
              NULL,
              "Shapes must be equal rank, but are 1 and 2\n\tFrom merging "
              "shape 0 with other shapes.");
  shape_error("AddV2", 2, (sin_spec[]){PH(F, 2, 2, 3), PH(F, 1, 4)}, -1,
              NULL, NULL, "Dimensions must be equal, but are 3 and 4");
}

static void test_matmul_arg_shapes(void) {
  const tfs_dtype F = TFS_FLOAT;
  shape_error("BatchMatMul", 2, (sin_spec[]){PH(F, 3, 2, 2, 3),
                                             PH(F, 3, 3, 3, 2)},
              -1, NULL, NULL,
              "Dimension 0 in both shapes must be equal, but are 2 and 3. "
              "Shapes are [2] and [3].");
  shape_error("BatchMatMul", 2, (sin_spec[]){PH(F, 3, 2, 2, 3),
                                             PH(F, 2, 3, 2)},
              -1, NULL, NULL, "Shapes must be equal rank, but are 1 and 0");
  shape_error("BatchMatMul", 2, (sin_spec[]){PH(F, 3, 2, 2, 3),
                                             PH(F, 3, 2, 4, 2)},
              -1, NULL, NULL, "Dimensions must be equal, but are 3 and 4");
  shape_error("BatchMatMulV2", 2, (sin_spec[]){PH(F, 1, 3),
                                               PH(F, 3, 2, 4, 2)},
              -1, NULL, NULL, "Shape must be at least rank 2 but is rank 1");
  shape_error("BatchMatMulV2", 2, (sin_spec[]){PH(F, 3, 2, 2, 3),
                                               PH(F, 3, 3, 3, 2)},
              -1, NULL, NULL, "Dimensions must be equal, but are 2 and 3");
  shape_error("ArgMax", 2,
              (sin_spec[]){PH(F, 2, 2, 3), CONST0(TFS_INT32, 2)}, -1, NULL,
              NULL,
              "Dimension (2) must be in the range [-2, 2), where 2 is the "
              "number of dimensions in the input.");
  shape_error("ArgMin", 2,
              (sin_spec[]){PH(F, 2, 2, 3), CONST1(TFS_INT32, 1, 0)}, -1,
              NULL, NULL, "Shape must be rank 0 but is rank 1");
  shape_error("Sum", 2,
              (sin_spec[]){PH(F, 2, 2, 3), CONST0(TFS_INT32, 5)}, -1, NULL,
              NULL, "Invalid reduction dimension 5 for input with 2 "
              "dimensions.");
}

static void set_fmt_template(tfs_op_desc *d, const void *arg) {
  tfs_op_desc_set_attr_string(d, "template", arg, strlen(arg));
  tfs_op_desc_set_attr_string(d, "placeholder", "{}", 2);
}

static void set_float_dtype(tfs_op_desc *d, const void *arg) {
  (void)arg;
  tfs_op_desc_set_attr_type(d, "dtype", TFS_FLOAT);
}

static void test_random_logging_shapes(void) {
  const tfs_dtype F = TFS_FLOAT, I = TFS_INT32;
  sin_spec shape2 = {I, -1, {0}, V(2), 2, {1, 1}};
  static const char *const ops[] = {"RandomUniform", "RandomStandardNormal",
                                    "TruncatedNormal"};
  for (int k = 0; k < 3; k++)
    shape_error(ops[k], 1, &shape2, -1, set_float_dtype, NULL,
                "Shape must be rank 1 but is rank 2");
  shape_error("RandomUniformInt", 3,
              (sin_spec[]){CONST1(I, 1, 2), PH(I, 1, 1), PH(I, 0)}, -1, NULL,
              NULL, "minval must be a scalar; got a tensor of shape [1]");
  shape_error("RandomUniformInt", 3,
              (sin_spec[]){CONST1(I, 1, 2), PH(I, 0), PH(I, 2, 1, 1)}, -1,
              NULL, NULL,
              "maxval must be a scalar; got a tensor of shape [1,1]");
  shape_error("PrintV2", 1, (sin_spec[]){PH(TFS_STRING, 1, 2)}, -1, NULL,
              NULL, "input must be a scalar, but has rank: 1");
  shape_error("StringFormat", 1, (sin_spec[]){PH(F, 1, 2)}, 0,
              set_fmt_template, "{} {}",
              "num placeholders in template and num inputs must match: 2 "
              "vs. 1");
  shape_error("StringFormat", 2, (sin_spec[]){PH(F, 0), PH(F, 0)}, 0,
              set_fmt_template, "aaa{}",
              "num placeholders in template and num inputs must match: 1 "
              "vs. 2");
}

/* bfloat16 elementwise ops run in blocks of 256 widened to float and
 * rounded back by vector loops: bit for bit the per-element
 * F2B(op(B2F(x), B2F(y))), tensor by tensor, scalar by tensor and tensor
 * by scalar, over two blocks and a tail, with specials, on each vector
 * level this CPU has; unary ops and BiasAdd the same way.  Cast float
 * <-> bfloat16 rides on the same conversions: bit for bit against the
 * scalar rounding. */
static uint16_t bf16_bits(double v) { return tfs_float_to_bf16((float)v); }

static float bf16_op(int op, float x, float y) {
  switch (op) {
    case 0: return x + y;
    case 1: return x - y;
    case 2: return x * y;
    case 3: return x / y;
    case 4: return (x - y) * (x - y);
    default: return x != x || y != y ? NAN : x < y ? y : x;
  }
}

static void nchw_attr(tfs_op_desc *d, const void *arg) {
  (void)arg;
  tfs_op_desc_set_attr_string(d, "data_format", "NCHW", 4);
}

/* Relu, Neg, Square, Abs, Floor and BiasAdd (NHWC: a bias per element of
 * the rows; NCHW: one per row of 5 x 6) on the bfloat16 tensor x of n
 * values xv (n = 2 * 5 * 6 * 10): bad elements against per-element
 * rounding of the float result. */
static int bf16_unary_and_bias(tfs_tensor *x, const double *xv, int n) {
  static const char *const ops[] = {"Relu", "Neg", "Square", "Abs", "Floor"};
  int bad = 0;
  for (int op = 0; op < 5; op++) {
    mt_op o = {ops[op], -1, NULL, NULL};
    tfs_tensor *r = mt_eval(&o, &x, 1);
    const uint16_t *p = tfs_tensor_data(r);
    for (int i = 0; i < n; i++) {
      float v = tfs_bf16_to_float(bf16_bits(xv[i]));
      float w = op == 0   ? (v > 0 ? v : (v != v ? v : 0))
                : op == 1 ? -v
                : op == 2 ? v * v
                : op == 3 ? fabsf(v)
                          : floorf(v);
      bad += p[i] != tfs_float_to_bf16(w);
    }
    tfs_tensor_free(r);
  }
  double bv[10];
  for (int i = 0; i < 10; i++) bv[i] = xv[i * 7 % n];
  for (int nchw = 0; nchw < 2; nchw++) {
    tfs_tensor *x4 = mt_t(TFS_BFLOAT16, 4, D(2, nchw ? 10 : 5, 6,
                                             nchw ? 5 : 10), xv);
    tfs_tensor *in[2] = {x4, mt_t(TFS_BFLOAT16, 1, D(10), bv)};
    mt_op o = {"BiasAdd", -1, nchw ? nchw_attr : NULL, NULL};
    tfs_tensor *r = mt_eval(&o, in, 2);
    const uint16_t *p = tfs_tensor_data(r);
    for (int i = 0; i < n; i++) {
      int ch = nchw ? i / 30 % 10 : i % 10;
      float sum = tfs_bf16_to_float(bf16_bits(xv[i])) +
                  tfs_bf16_to_float(bf16_bits(bv[ch]));
      bad += p[i] != tfs_float_to_bf16(sum);
    }
    tfs_tensor_free(r);
    mt_free_all(in, 2);
  }
  return bad;
}

static void test_bf16_blocks(void) {
  enum { N = 600 };
  static const char *const ops[] = {"AddV2",   "Sub",
                                    "Mul",     "RealDiv",
                                    "SquaredDifference", "Maximum"};
  static double xv[N], yv[N];
  for (int i = 0; i < N; i++) {
    xv[i] = tfs_bf16_to_float(bf16_bits(((i * 37) % 101 - 50) / 7.0));
    yv[i] = tfs_bf16_to_float(bf16_bits(((i * 53) % 97 - 48) / 3.0));
  }
  xv[1] = NAN, yv[2] = INFINITY, xv[3] = -0.0, yv[4] = 0.0, xv[5] = 3e38;
  tfs_tensor *x = mt_t(TFS_BFLOAT16, 1, D(N), xv);
  tfs_tensor *y = mt_t(TFS_BFLOAT16, 1, D(N), yv);
  tfs_tensor *xs = mt_scalar(TFS_BFLOAT16, xv[7]);
  tfs_tensor *ys = mt_scalar(TFS_BFLOAT16, yv[9]);
  tfs_tensor *xf = mt_t(TFS_FLOAT, 1, D(N), xv);
  for (int li = 0; li < TU_VECTOR_LEVELS; li++) {
    if (!tu_cpu_level("bf16-elementwise", tu_vector_levels[li])) continue;
    int bad = 0;
    for (int op = 0; op < 6; op++)
      for (int mode = 0; mode < 3; mode++) {
        tfs_tensor *r = bin(ops[op], mode == 1 ? xs : x, mode == 2 ? ys : y);
        const uint16_t *o = tfs_tensor_data(r);
        for (int i = 0; i < N; i++) {
          float a = tfs_bf16_to_float(bf16_bits(mode == 1 ? xv[7] : xv[i]));
          float b = tfs_bf16_to_float(bf16_bits(mode == 2 ? yv[9] : yv[i]));
          bad += o[i] != tfs_float_to_bf16(bf16_op(op, a, b));
        }
        tfs_tensor_free(r);
      }
    bad += bf16_unary_and_bias(x, xv, N);
    tfs_tensor *r = cast(xf, TFS_BFLOAT16, 0);
    const uint16_t *o = tfs_tensor_data(r);
    for (int i = 0; i < N; i++) bad += o[i] != bf16_bits(xv[i]);
    tfs_tensor *back = cast(r, TFS_FLOAT, 0);
    const uint32_t *ob = tfs_tensor_data(back);
    for (int i = 0; i < N; i++) bad += ob[i] != (uint32_t)o[i] << 16;
    tfs_tensor_free(back);
    tfs_tensor_free(r);
    if (bad)
      fprintf(stderr, "\n  bfloat16 blocks on %s: %d bad\n",
              tfs_cpu_isa_name(tfs_cpu_isa_max()), bad);
    CU_ASSERT_EQUAL(bad, 0);
  }
  tfs_cpu__set_max_isa(-1);
  tfs_tensor *all[5] = {x, y, xs, ys, xf};
  mt_free_all(all, 5);
}

static const tfs_test_case elementwise_cases[] = {
    {"arith_every_dtype", test_arith_every_dtype},
    {"integer_wraparound", test_integer_wraparound},
    {"float_division_variants", test_float_division_variants},
    {"division_by_zero_errors", test_division_by_zero_errors},
    {"division_by_zero_parallel", test_division_by_zero_parallel},
    {"broadcasting_and_empty", test_broadcasting_and_empty},
    {"broadcast_collapse", test_broadcast_collapse},
    {"nan_propagation", test_nan_propagation},
    {"complex_arithmetic", test_complex_arithmetic},
    {"comparisons", test_comparisons},
    {"equal_shapes_and_strings", test_equal_shapes_and_strings},
    {"logical_ops", test_logical_ops},
    {"unary_arithmetic", test_unary_arithmetic},
    {"unary_math_all_float_types", test_unary_math_all_float_types},
    {"unregistered_dtype", test_unregistered_dtype},
    {"bf16_blocks", test_bf16_blocks},
    {NULL, NULL},
};

static const tfs_test_case other_cases[] = {
    {"cast_complex", test_cast_complex},
    {"cast_truncate", test_cast_truncate},
    {"cast_errors_and_identity", test_cast_errors_and_identity},
    {"select_modes", test_select_modes},
    {"select_strings", test_select_strings},
    {"select_errors", test_select_errors},
    {"clip_by_value", test_clip_by_value},
    {"add_n", test_add_n},
    {NULL, NULL},
};

static const tfs_test_case shape_cases[] = {
    {"select_addn", test_select_addn_shapes},
    {"matmul_arg", test_matmul_arg_shapes},
    {"random_logging", test_random_logging_shapes},
    {NULL, NULL},
};

const tfs_test_suite tfs_test_suites[] = {
    {"math_elementwise", elementwise_cases},
    {"math_cast_select", other_cases},
    {"math_shape_fns", shape_cases},
    {NULL, NULL},
};
