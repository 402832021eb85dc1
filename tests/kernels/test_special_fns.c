/*
 * tests/kernels/test_special_fns.c - the scalar special functions of
 * backends/cpu/special_fns.c against closed forms, mathematical
 * constants and identities (recurrences, reflections, complements,
 * round trips through libm's erf/erfc), and their values at poles,
 * infinities, NaN and the edges of their domains as special_fns.h
 * documents them.  The conformance cases of ops_special compare the ops
 * with TensorFlow; these pin the functions themselves over wider ranges.
 */
#include <math.h>
#include <stdio.h>

#include "backends/cpu/special_fns.h"
#include "testutil.h"

#define PI 3.14159265358979323846
#define EULER 0.57721566490153286061

/* |got - want| <= rtol * |want| (or <= rtol when want is 0); prints the
 * arguments of a failure. */
static int near_(double got, double want, double rtol, const char *what,
                 double a, double b) {
  double tol = rtol * (want == 0.0 ? 1.0 : fabs(want));
  if (fabs(got - want) <= tol) return 1;
  fprintf(stderr, "\n  %s(%.17g, %.17g) = %.17g, want %.17g (rtol %g)\n",
          what, a, b, got, want, rtol);
  return 0;
}
#define NEAR1(f, x, want, rtol) CU_ASSERT(near_(f(x), want, rtol, #f, x, 0))
#define NEAR2(f, a, x, want, rtol) \
  CU_ASSERT(near_(f(a, x), want, rtol, #f, a, x))

static void test_lgamma(void) {
  NEAR1(tfs_lgamma, 0.5, 0.5 * log(PI), 1e-14);
  NEAR1(tfs_lgamma, -0.5, log(2.0 * sqrt(PI)), 1e-14);
  NEAR1(tfs_lgamma, 10.0, log(362880.0), 1e-14);
  NEAR1(tfs_lgamma, 1e-300, 690.77552789821368, 1e-14);
  CU_ASSERT_EQUAL(tfs_lgamma(1.0), 0.0);
  CU_ASSERT_EQUAL(tfs_lgamma(2.0), 0.0);
  /* Stirling's series with two terms is exact to double at 1e10 */
  double x = 1e10;
  NEAR1(tfs_lgamma, x,
        x * log(x) - x - 0.5 * log(x) + 0.5 * log(2.0 * PI) + 1.0 / (12 * x),
        1e-15);
  for (double v = 0.05; v < 30.0; v += 0.37) {
    NEAR1(tfs_lgamma, v + 1.0, tfs_lgamma(v) + log(v), 1e-12);
    NEAR1(tfs_lgammaf, (float)v, tfs_lgamma((double)(float)v), 1e-6);
  }
  for (double v = 0.01; v < 1.0; v += 0.07)
    CU_ASSERT(near_(tfs_lgamma(v) + tfs_lgamma(1.0 - v),
                    log(PI / sin(PI * v)), 1e-13, "lgamma reflection", v, 0));
  CU_ASSERT(isinf(tfs_lgamma(0.0)) && tfs_lgamma(0.0) > 0);
  CU_ASSERT(isinf(tfs_lgamma(-3.0)) && tfs_lgamma(-3.0) > 0);
  CU_ASSERT(isinf(tfs_lgamma(INFINITY)) && isinf(tfs_lgamma(-INFINITY)));
  CU_ASSERT(isnan(tfs_lgamma(NAN)));
  CU_ASSERT(isinf(tfs_lgammaf(0.0f)));
}

static void test_digamma(void) {
  NEAR1(tfs_digamma, 1.0, -EULER, 1e-14);
  NEAR1(tfs_digamma, 0.5, -EULER - 2.0 * log(2.0), 1e-14);
  NEAR1(tfs_digamma, 0.25, -EULER - PI / 2.0 - 3.0 * log(2.0), 1e-14);
  for (double v = -4.9; v < 40.0; v += 0.61)
    NEAR1(tfs_digamma, v + 1.0, tfs_digamma(v) + 1.0 / v, 1e-11);
  /* reflection: psi(1 - x) - psi(x) = pi cot(pi x) */
  for (double v = 0.03; v < 1.0; v += 0.09)
    CU_ASSERT(near_(tfs_digamma(1.0 - v) - tfs_digamma(v), PI / tan(PI * v),
                    1e-12, "digamma reflection", v, 0));
  CU_ASSERT(isnan(tfs_digamma(0.0)));
  CU_ASSERT(isnan(tfs_digamma(-2.0)));
  CU_ASSERT(isnan(tfs_digamma(-INFINITY)));
  CU_ASSERT(isnan(tfs_digamma(NAN)));
  CU_ASSERT(isinf(tfs_digamma(INFINITY)) && tfs_digamma(INFINITY) > 0);
}

static void test_ndtri_erfinv(void) {
  CU_ASSERT_EQUAL(tfs_ndtri(0.5), 0.0);
  NEAR1(tfs_ndtri, 0.975, 1.959963984540054, 1e-14);
  NEAR1(tfs_ndtri, 0.025, -1.959963984540054, 1e-14);
  /* round trip through libm: Phi(ndtri(p)) = p, tails included */
  double ps[] = {1e-300, 1e-100, 1e-20, 1e-10, 1e-3, 0.1, 0.3, 0.5,
                 0.7,    0.9,    0.999, 1 - 1e-10};
  for (size_t i = 0; i < sizeof ps / sizeof ps[0]; i++) {
    double z = tfs_ndtri(ps[i]);
    CU_ASSERT(near_(0.5 * erfc(-z / sqrt(2.0)), ps[i], 1e-12, "Phi(ndtri)",
                    ps[i], 0));
  }
  CU_ASSERT(isinf(tfs_ndtri(0.0)) && tfs_ndtri(0.0) < 0);
  CU_ASSERT(isinf(tfs_ndtri(1.0)) && tfs_ndtri(1.0) > 0);
  CU_ASSERT(isnan(tfs_ndtri(1.5)) && isnan(tfs_ndtri(-0.1)));
  CU_ASSERT(isnan(tfs_ndtri(NAN)));

  NEAR1(tfs_erfinv_from_p, 0.75, 0.47693627620446987, 1e-14);
  for (double x = -0.99; x < 1.0; x += 0.0725) {
    double e = tfs_erfinv_from_p(0.5 * x + 0.5);
    CU_ASSERT(near_(erf(e), x, 1e-13, "erf(erfinv)", x, 0));
  }
  CU_ASSERT(isinf(tfs_erfinv_from_p(1.0)) && tfs_erfinv_from_p(1.0) > 0);
  CU_ASSERT(isinf(tfs_erfinv_from_p(0.0)) && tfs_erfinv_from_p(0.0) < 0);
  CU_ASSERT(isnan(tfs_erfinv_from_p(1.25)));
}

static void test_bessel(void) {
  CU_ASSERT_EQUAL(tfs_bessel_i0(0.0), 1.0);
  CU_ASSERT_EQUAL(tfs_bessel_i1(0.0), 0.0);
  NEAR1(tfs_bessel_i0, 1.0, 1.2660658777520082, 1e-14);
  NEAR1(tfs_bessel_i1, 1.0, 0.56515910399248503, 1e-14);
  NEAR1(tfs_bessel_i0, 10.0, 2815.7166284662544, 1e-14);
  NEAR1(tfs_bessel_i1, 10.0, 2670.9883037012547, 1e-14);
  NEAR1(tfs_bessel_i0e, 1.0, 1.2660658777520082 * exp(-1.0), 1e-14);
  NEAR1(tfs_bessel_i1e, 1.0, 0.56515910399248503 * exp(-1.0), 1e-14);
  /* the large-argument expansion: i0e(x) ~ (1 + 1/(8x)) / sqrt(2 pi x) */
  double x = 1e6;
  NEAR1(tfs_bessel_i0e, x, (1.0 + 1.0 / (8.0 * x) + 9.0 / (128.0 * x * x)) /
                               sqrt(2.0 * PI * x),
        1e-14);
  NEAR1(tfs_bessel_i1e, x, (1.0 - 3.0 / (8.0 * x) - 15.0 / (128.0 * x * x)) /
                               sqrt(2.0 * PI * x),
        1e-14);
  for (double v = 0.1; v < 50.0; v += 1.3) {
    CU_ASSERT_EQUAL(tfs_bessel_i0e(-v), tfs_bessel_i0e(v));
    CU_ASSERT_EQUAL(tfs_bessel_i1e(-v), -tfs_bessel_i1e(v));
    NEAR1(tfs_bessel_i0, v, tfs_bessel_i0e(v) * exp(v), 1e-14);
  }
  CU_ASSERT(isinf(tfs_bessel_i0(800.0)));
  CU_ASSERT(isinf(tfs_bessel_i1(-800.0)) && tfs_bessel_i1(-800.0) < 0);
  CU_ASSERT(isnan(tfs_bessel_i0e(NAN)));
}

static void test_igamma(void) {
  for (double v = 0.0; v < 60.0; v += 0.7) {
    NEAR2(tfs_igammac, 1.0, v, exp(-v), 1e-13);
    NEAR2(tfs_igamma, 2.0, v + 1.0, 1.0 - (2.0 + v) * exp(-(v + 1.0)),
          1e-13);
    NEAR2(tfs_igamma, 0.5, v, erf(sqrt(v)), 1e-13);
    NEAR2(tfs_igammac, 0.5, v, erfc(sqrt(v)), 1e-12);
  }
  double as[] = {0.01, 0.5, 3.0, 25.0, 400.0};
  for (size_t i = 0; i < sizeof as / sizeof as[0]; i++)
    for (double v = 0.05; v < 600.0; v *= 2.3)
      CU_ASSERT(near_(tfs_igamma(as[i], v) + tfs_igammac(as[i], v), 1.0,
                      1e-13, "P + Q", as[i], v));
  CU_ASSERT_EQUAL(tfs_igamma(3.0, 0.0), 0.0);
  CU_ASSERT_EQUAL(tfs_igamma(3.0, INFINITY), 1.0);
  CU_ASSERT_EQUAL(tfs_igammac(3.0, 0.0), 1.0);
  CU_ASSERT(isnan(tfs_igamma(0.0, 1.0)) && isnan(tfs_igamma(-1.0, 1.0)));
  CU_ASSERT(isnan(tfs_igamma(1.0, -1.0)) && isnan(tfs_igammac(NAN, 1.0)));
}

static void test_betainc(void) {
  for (double v = 0.0; v <= 1.0; v += 0.0625) {
    CU_ASSERT(near_(tfs_betainc(2.5, 1.0, v), pow(v, 2.5), 1e-13, "I(a,1)",
                    2.5, v));
    CU_ASSERT(near_(tfs_betainc(1.0, 3.5, v), 1.0 - pow(1.0 - v, 3.5), 1e-13,
                    "I(1,b)", 3.5, v));
    CU_ASSERT(near_(tfs_betainc(0.5, 0.5, v), 2.0 / PI * asin(sqrt(v)), 1e-13,
                    "I(1/2,1/2)", 0.5, v));
    /* as a sum: 1 - I would cancel the digits under test */
    CU_ASSERT(near_(tfs_betainc(7.0, 0.3, v) + tfs_betainc(0.3, 7.0, 1.0 - v),
                    1.0, 1e-13, "I symmetry", 7.0, v));
  }
  CU_ASSERT_EQUAL(tfs_betainc(2.0, 3.0, 0.0), 0.0);
  CU_ASSERT_EQUAL(tfs_betainc(2.0, 3.0, 1.0), 1.0);
  CU_ASSERT(isnan(tfs_betainc(2.0, 3.0, 1.5)));
  CU_ASSERT(isnan(tfs_betainc(0.0, 3.0, 0.5)));
  CU_ASSERT(isnan(tfs_betainc(2.0, -1.0, 0.5)));
  CU_ASSERT(isnan(tfs_betainc(2.0, 3.0, NAN)));
}

static void test_zeta_polygamma(void) {
  NEAR2(tfs_zeta, 2.0, 1.0, PI * PI / 6.0, 1e-14);
  NEAR2(tfs_zeta, 4.0, 1.0, PI * PI * PI * PI / 90.0, 1e-14);
  NEAR2(tfs_zeta, 3.0, 1.0, 1.2020569031595943, 1e-14);
  for (double q = 0.25; q < 20.0; q += 1.1)
    CU_ASSERT(near_(tfs_zeta(2.5, q) - tfs_zeta(2.5, q + 1.0), pow(q, -2.5),
                    1e-11, "zeta recurrence", 2.5, q));
  CU_ASSERT(isinf(tfs_zeta(1.0, 2.0)));
  CU_ASSERT(isnan(tfs_zeta(0.5, 1.0)));

  for (double v = 0.2; v < 10.0; v += 0.9)
    NEAR2(tfs_polygamma, 0.0, v, tfs_digamma(v), 1e-15);
  NEAR2(tfs_polygamma, 1.0, 1.0, PI * PI / 6.0, 1e-14);
  NEAR2(tfs_polygamma, 1.0, 0.5, PI * PI / 2.0, 1e-14);
  NEAR2(tfs_polygamma, 2.0, 1.0, -2.0 * 1.2020569031595943, 1e-14);
  NEAR2(tfs_polygamma, 3.0, 1.0, PI * PI * PI * PI / 15.0, 1e-14);
  CU_ASSERT(isnan(tfs_polygamma(1.5, 1.0)));
  CU_ASSERT(isnan(tfs_polygamma(-1.0, 1.0)));
}

static const tfs_test_case kCases[] = {
    {"lgamma", test_lgamma},
    {"digamma", test_digamma},
    {"ndtri_erfinv", test_ndtri_erfinv},
    {"bessel", test_bessel},
    {"igamma", test_igamma},
    {"betainc", test_betainc},
    {"zeta_polygamma", test_zeta_polygamma},
    {NULL, NULL},
};

const tfs_test_suite tfs_test_suites[] = {
    {"special_fns", kCases},
    {NULL, NULL},
};
