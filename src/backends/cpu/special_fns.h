/*
 * backends/cpu/special_fns.h - scalar special functions in double
 * precision for the CPU kernels of special_math.c: log|Gamma|, digamma,
 * the inverse error function and the inverse normal CDF, the modified
 * Bessel functions of order 0 and 1 (plain and exponentially scaled),
 * the regularized incomplete gamma and beta functions, Hurwitz zeta and
 * polygamma.  Domains and values at poles, infinities and NaN are
 * TensorFlow's (Eigen's) where the two libraries define them; each
 * function's comment says what it returns there.  All are pure and
 * thread-safe.
 */
#ifndef TFS_BACKENDS_CPU_SPECIAL_FNS_H
#define TFS_BACKENDS_CPU_SPECIAL_FNS_H

/* log|Gamma(x)|: +inf at the poles (0 and negative integers) and at
 * +-inf; NaN for NaN. */
double tfs_lgamma(double x);
float tfs_lgammaf(float x);

/* Digamma (psi), the derivative of log Gamma: NaN at the poles (0 and
 * negative integers), at -inf and for NaN; +inf at +inf. */
double tfs_digamma(double x);

/* Inverse of the standard normal CDF: -inf at 0, +inf at 1, NaN outside
 * [0, 1] and for NaN. */
double tfs_ndtri(double p);

/* Inverse error function of x, given p = 0.5 * x + 0.5 as the caller's
 * dtype rounds it (TensorFlow computes erfinv through the inverse normal
 * CDF of that p): +-inf at x = +-1, NaN beyond. */
double tfs_erfinv_from_p(double p);

/* Modified Bessel functions of the first kind of order 0 and 1, and the
 * same scaled by exp(-|x|).  i0 and i1 are exp(|x|) times the scaled
 * ones, so they overflow to inf where exp(|x|) does (|x| > ~709.78);
 * i1, i1e are odd, i0, i0e even. */
double tfs_bessel_i0e(double x);
double tfs_bessel_i1e(double x);
double tfs_bessel_i0(double x);
double tfs_bessel_i1(double x);

/* Regularized lower (P) and upper (Q = 1 - P) incomplete gamma
 * functions: NaN for a <= 0, x < 0 or NaN arguments; P(a, 0) = 0,
 * P(a, inf) = 1. */
double tfs_igamma(double a, double x);
double tfs_igammac(double a, double x);

/* Regularized incomplete beta function I_x(a, b): NaN for a <= 0,
 * b <= 0, x outside [0, 1] or NaN; 0 at x = 0 and 1 at x = 1. */
double tfs_betainc(double a, double b, double x);

/* Hurwitz zeta sum_k (k + q)^-x: +inf at x = 1, NaN for x < 1; for
 * q <= 0, +inf at integer q and NaN elsewhere unless x is an integer. */
double tfs_zeta(double x, double q);

/* Polygamma psi^(n)(x) for a non-negative integer n (digamma for n = 0);
 * NaN when n is not a non-negative integer. */
double tfs_polygamma(double n, double x);

#endif
