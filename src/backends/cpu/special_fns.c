/*
 * backends/cpu/special_fns.c - scalar special functions in double
 * precision (see special_fns.h).  Methods: libm's reentrant lgamma;
 * digamma by reflection, upward recurrence and its asymptotic series;
 * the inverse normal CDF by Halley's iteration on erf/erfc from a
 * rational first guess; the Bessel functions by their power series below
 * |x| = 30 and their asymptotic series above; the incomplete gamma and
 * beta functions by series and continued fractions (modified Lentz);
 * Hurwitz zeta by direct summation and the Euler-Maclaurin tail.
 * Iteration counts are bounded, so no argument makes a call slow.
 */
#define _GNU_SOURCE /* lgamma_r, lgammaf_r */
#include "backends/cpu/special_fns.h"

#include <float.h>
#include <math.h>

#define EPS DBL_EPSILON
#define TINY 1e-300
#define MAX_ITER 2000

double tfs_lgamma(double x) {
  int sign;
  return lgamma_r(x, &sign);
}

float tfs_lgammaf(float x) {
  int sign;
  return lgammaf_r(x, &sign);
}

/* psi(x) for x >= 10: log x - 1/(2x) - sum B_2k / (2k x^2k) */
static double digamma_asym(double x) {
  static const double c[] = {1.0 / 12,   -1.0 / 120,       1.0 / 252,
                             -1.0 / 240, 1.0 / 132,        -691.0 / 32760,
                             1.0 / 12,   -3617.0 / 8160.0};
  double z = 1.0 / (x * x), p = 0.0;
  for (int k = (int)(sizeof c / sizeof c[0]) - 1; k >= 0; k--)
    p = p * z + c[k];
  return log(x) - 0.5 / x - p * z;
}

double tfs_digamma(double x) {
  if (isnan(x)) return x;
  double refl = 0.0;
  if (x <= 0.0) {
    double fl = floor(x);
    if (fl == x) return NAN; /* a pole, or -inf */
    /* psi(x) = psi(1 - x) - pi / tan(pi x); tan has period 1, so use
     * the fractional part, moved into (-1/2, 1/2] */
    double r = x - fl;
    if (r > 0.5) r -= 1.0;
    refl = r == 0.5 ? 0.0 : M_PI / tan(M_PI * r);
    x = 1.0 - x;
  }
  if (isinf(x)) return x;
  double acc = 0.0;
  while (x < 10.0) {
    acc += 1.0 / x;
    x += 1.0;
  }
  return digamma_asym(x) - acc - refl;
}

/* ---- inverse normal CDF -------------------------------------------------- */

/* Phi(x) - q for the lower tail (x <= 0), computed without cancellation:
 * through erf near the centre (q - 1/2 is exact there), erfc in the
 * tail. */
static double ndtr_residual(double x, double q) {
  if (q > 0.25) return 0.5 * erf(x * M_SQRT1_2) - (q - 0.5);
  return 0.5 * erfc(-x * M_SQRT1_2) - q;
}

double tfs_ndtri(double p) {
  if (isnan(p) || p < 0.0 || p > 1.0) return NAN;
  if (p == 0.0) return -INFINITY;
  if (p == 1.0) return INFINITY;
  if (p == 0.5) return 0.0;
  int upper = p > 0.5;
  double q = upper ? 1.0 - p : p; /* exact; q in (0, 1/2) */
  /* first guess within 5e-4 (Abramowitz and Stegun 26.2.23) */
  double t = sqrt(-2.0 * log(q));
  double x = -(t - (2.515517 + t * (0.802853 + t * 0.010328)) /
                       (1.0 + t * (1.432788 + t * (0.189269 + t * 0.001308))));
  /* Halley steps: x -= u / (1 + x u / 2), u = (Phi(x) - q) / phi(x) */
  for (int i = 0; i < 4; i++) {
    double phi = exp(-0.5 * x * x) * (1.0 / sqrt(2.0 * M_PI));
    if (phi == 0.0) break;
    double u = ndtr_residual(x, q) / phi;
    double nx = x - u / (1.0 + 0.5 * x * u);
    if (!isfinite(nx)) break;
    if (nx == x) break;
    x = nx;
  }
  return upper ? -x : x;
}

double tfs_erfinv_from_p(double p) { return tfs_ndtri(p) * M_SQRT1_2; }

/* ---- Bessel I0, I1 ------------------------------------------------------- */

#define BESSEL_SERIES_MAX 30.0

/* the power series of I_nu(x), nu = 0 or 1, x >= 0 (positive terms: no
 * cancellation) */
static double bessel_series(int nu, double x) {
  double y = 0.25 * x * x;
  double term = nu ? 0.5 * x : 1.0, sum = term;
  for (int k = 1; k < 500; k++) {
    term *= y / ((double)k * (double)(k + nu));
    sum += term;
    if (term < sum * EPS * 0.5) break;
  }
  return sum;
}

/* e^-x I_nu(x) for x >= 30 by the asymptotic series
 * (2 pi x)^-1/2 sum_k (-1)^k prod_j (mu - (2j-1)^2) / (k! (8x)^k) */
static double bessel_asym_scaled(int nu, double x) {
  double mu = 4.0 * nu * nu;
  double term = 1.0, sum = 1.0;
  for (int k = 1; k < 60; k++) {
    double odd = 2.0 * k - 1.0;
    double next = -term * (mu - odd * odd) / ((double)k * 8.0 * x);
    if (fabs(next) >= fabs(term)) break; /* the series starts diverging */
    term = next;
    sum += term;
    if (fabs(term) < fabs(sum) * EPS * 0.5) break;
  }
  return sum / sqrt(2.0 * M_PI * x);
}

static double bessel_scaled(int nu, double x) {
  if (isnan(x)) return x;
  double ax = fabs(x), r;
  if (isinf(ax))
    r = 0.0;
  else if (ax < BESSEL_SERIES_MAX)
    r = exp(-ax) * bessel_series(nu, ax);
  else
    r = bessel_asym_scaled(nu, ax);
  return nu && x < 0 ? -r : r;
}

double tfs_bessel_i0e(double x) { return bessel_scaled(0, x); }
double tfs_bessel_i1e(double x) { return bessel_scaled(1, x); }
double tfs_bessel_i0(double x) { return exp(fabs(x)) * bessel_scaled(0, x); }
double tfs_bessel_i1(double x) { return exp(fabs(x)) * bessel_scaled(1, x); }

/* ---- incomplete gamma ---------------------------------------------------- */

/* x^a e^-x / Gamma(a) */
static double igamma_prefactor(double a, double x) {
  return exp(a * log(x) - x - tfs_lgamma(a));
}

/* P(a, x) by its series (x < a + 1) */
static double igamma_series(double a, double x) {
  double term = 1.0 / a, sum = term;
  for (int n = 1; n < MAX_ITER; n++) {
    term *= x / (a + n);
    sum += term;
    if (fabs(term) < fabs(sum) * EPS) break;
  }
  return sum * igamma_prefactor(a, x);
}

/* Q(a, x) by its continued fraction (x >= a + 1) */
static double igammac_cf(double a, double x) {
  double b = x + 1.0 - a, c = 1.0 / TINY, d = 1.0 / b, h = d;
  for (int i = 1; i < MAX_ITER; i++) {
    double an = -i * (i - a);
    b += 2.0;
    d = an * d + b;
    if (fabs(d) < TINY) d = TINY;
    c = b + an / c;
    if (fabs(c) < TINY) c = TINY;
    d = 1.0 / d;
    double del = d * c;
    h *= del;
    if (fabs(del - 1.0) < EPS) break;
  }
  return h * igamma_prefactor(a, x);
}

static int igamma_domain(double a, double x) {
  return !(isnan(a) || isnan(x) || a <= 0.0 || x < 0.0);
}

double tfs_igamma(double a, double x) {
  if (!igamma_domain(a, x)) return NAN;
  if (x == 0.0) return 0.0;
  if (isinf(x)) return 1.0;
  if (isinf(a)) return 0.0;
  if (x < a + 1.0) return igamma_series(a, x);
  return 1.0 - igammac_cf(a, x);
}

double tfs_igammac(double a, double x) {
  if (!igamma_domain(a, x)) return NAN;
  if (x == 0.0) return 1.0;
  if (isinf(x)) return 0.0;
  if (isinf(a)) return 1.0;
  if (x < a + 1.0) return 1.0 - igamma_series(a, x);
  return igammac_cf(a, x);
}

/* ---- incomplete beta ----------------------------------------------------- */

/* the continued fraction of I_x(a, b), good for x < (a + 1) / (a + b + 2) */
static double betainc_cf(double a, double b, double x) {
  double qab = a + b, qap = a + 1.0, qam = a - 1.0;
  double c = 1.0, d = 1.0 - qab * x / qap;
  if (fabs(d) < TINY) d = TINY;
  d = 1.0 / d;
  double h = d;
  for (int m = 1; m < MAX_ITER; m++) {
    double m2 = 2.0 * m;
    double aa = m * (b - m) * x / ((qam + m2) * (a + m2));
    d = 1.0 + aa * d;
    if (fabs(d) < TINY) d = TINY;
    c = 1.0 + aa / c;
    if (fabs(c) < TINY) c = TINY;
    d = 1.0 / d;
    h *= d * c;
    aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
    d = 1.0 + aa * d;
    if (fabs(d) < TINY) d = TINY;
    c = 1.0 + aa / c;
    if (fabs(c) < TINY) c = TINY;
    d = 1.0 / d;
    double del = d * c;
    h *= del;
    if (fabs(del - 1.0) < EPS) break;
  }
  double lf = tfs_lgamma(a + b) - tfs_lgamma(a) - tfs_lgamma(b) +
              a * log(x) + b * log1p(-x);
  return exp(lf) * h / a;
}

double tfs_betainc(double a, double b, double x) {
  if (isnan(a) || isnan(b) || isnan(x) || a <= 0.0 || b <= 0.0 || x < 0.0 ||
      x > 1.0)
    return NAN;
  if (x == 0.0) return 0.0;
  if (x == 1.0) return 1.0;
  if (x > (a + 1.0) / (a + b + 2.0)) return 1.0 - betainc_cf(b, a, 1.0 - x);
  return betainc_cf(a, b, x);
}

/* ---- Hurwitz zeta and polygamma ------------------------------------------ */

/* B_2j / (2j)! */
static const double kBern[] = {
    1.0 / 12.0,
    -1.0 / 720.0,
    1.0 / 30240.0,
    -1.0 / 1209600.0,
    1.0 / 47900160.0,
    -691.0 / 1307674368000.0,
    1.0 / 74724249600.0,
    -3617.0 / 10670622842880000.0,
    43867.0 / 5109094217170944000.0,
    -174611.0 / 802857662698291200000.0,
};

/* beyond this many direct terms a negative q is not summed (TensorFlow's
 * kernel walks up from q one step at a time and would take ~|q| steps) */
#define ZETA_MAX_TERMS 1000000

double tfs_zeta(double x, double q) {
  if (isnan(x) || isnan(q)) return NAN;
  if (x == 1.0) return INFINITY;
  if (x < 1.0) return NAN;
  if (q <= 0.0) {
    if (q == floor(q)) return INFINITY;
    if (x != floor(x)) return NAN;
    if (q < -ZETA_MAX_TERMS) return NAN;
  }
  if (isinf(x)) return q == 1.0 ? 1.0 : (q < 1.0 ? INFINITY : 0.0);
  if (isinf(q)) return 0.0; /* q = +inf: every term is 0 */
  /* direct terms until the running term is negligible and w >= 10 */
  double s = pow(q, -x), w = q, b = 0.0;
  int i = 0;
  while (i < 9 || w <= 9.0) {
    i++;
    w += 1.0;
    b = pow(w, -x);
    s += b;
    if (fabs(b / s) < EPS) return s;
    if (i > ZETA_MAX_TERMS + 20) return NAN;
  }
  /* Euler-Maclaurin tail from w: w^(1-x)/(x-1) - w^-x/2 (the last
   * direct term b = w^-x is already in s) plus the Bernoulli terms */
  s += b * w / (x - 1.0) - 0.5 * b;
  double fac = x, wp = b / w; /* x (x+1) ... (x+2j-2), w^(-x-2j+1) */
  for (int j = 0; j < (int)(sizeof kBern / sizeof kBern[0]); j++) {
    double t = kBern[j] * fac * wp;
    s += t;
    if (fabs(t / s) < EPS) break;
    fac *= (x + 2.0 * j + 1.0) * (x + 2.0 * j + 2.0);
    wp /= w * w;
  }
  return s;
}

double tfs_polygamma(double n, double x) {
  if (isnan(n) || isnan(x)) return NAN;
  if (n != floor(n) || n < 0.0) return NAN;
  if (n == 0.0) return tfs_digamma(x);
  double sign = fmod(n, 2.0) == 0.0 ? -1.0 : 1.0; /* (-1)^(n+1) */
  double fact = exp(tfs_lgamma(n + 1.0));
  return sign * fact * tfs_zeta(n + 1.0, x);
}
