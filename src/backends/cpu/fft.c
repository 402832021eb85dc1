/*
 * backends/cpu/fft.c - one-dimensional transforms of any length (see
 * fft.h).  The mixed-radix path is a recursive decimation in time: a
 * length p*m transform is p transforms of length m over the input taken
 * with stride p, then m radix-p butterflies with twiddles from one table
 * of the plan's length.  Lengths with a prime factor above 13 go through
 * Bluestein: x[k] * chirp[k], convolved with the conjugate chirp by a
 * mixed-radix transform of a 2/3/5-smooth length >= 2n - 1.  Radices
 * 2, 3, 4 and 5 have butterflies of their own.
 */
#include "backends/cpu/fft.h"

#include <math.h>
#include <string.h>

#include "core/alloc.h"

#define MAX_FACTORS 64
#define MAX_GENERIC 13 /* largest radix of the generic butterfly */

struct tfs_fft_plan {
  int64_t n;
  int nfac;
  int64_t fac[2 * MAX_FACTORS]; /* (radix, remaining length) pairs */
  tfs_fft_cd *tw;               /* exp(-2 pi i j / n), j < n */
  tfs_fft_cd *twi;              /* their conjugates, for the inverse */
  /* Bluestein (when blue is not NULL) */
  tfs_fft_plan *blue; /* mixed-radix plan of length m */
  int64_t m;
  tfs_fft_cd *chirp; /* exp(-pi i k^2 / n), k < n */
  tfs_fft_cd *kern;  /* transform of the conjugate chirp, over m */
};

static tfs_fft_cd cis(double a) { return CMPLX(cos(a), sin(a)); }

/* Splits n into radices 4, 2, 3, 5, 7, 11, 13 (4 first); 0 when n has
 * no other prime factor, -1 otherwise. */
static int factorize(tfs_fft_plan *p) {
  static const int64_t radices[] = {4, 2, 3, 5, 7, 11, 13};
  int64_t n = p->n;
  p->nfac = 0;
  for (size_t r = 0; r < sizeof radices / sizeof radices[0]; r++) {
    while (n % radices[r] == 0 && n > 1) {
      n /= radices[r];
      p->fac[2 * p->nfac] = radices[r];
      p->fac[2 * p->nfac + 1] = n;
      p->nfac++;
    }
  }
  return n == 1 ? 0 : -1;
}

/* Smallest 2^a 3^b 5^c >= n (n >= 1, n <= 2^42). */
static int64_t smooth_at_least(int64_t n) {
  int64_t best = INT64_MAX;
  for (int64_t a = 1; a < 2 * n; a *= 2)
    for (int64_t b = a; b < 2 * n; b *= 3)
      for (int64_t c = b; c < 2 * n; c *= 5)
        if (c >= n && c < best) best = c;
  return best;
}

static tfs_fft_cd *alloc_cd(int64_t n) {
  return tfs_malloc((size_t)(n > 0 ? n : 1) * sizeof(tfs_fft_cd));
}

static int make_bluestein(tfs_fft_plan *p) {
  int64_t n = p->n;
  p->m = smooth_at_least(2 * n - 1);
  p->blue = tfs_fft_plan_new(p->m);
  p->chirp = alloc_cd(n);
  p->kern = alloc_cd(p->m);
  tfs_fft_cd *b = alloc_cd(p->m);
  if (!p->blue || !p->chirp || !p->kern || !b) {
    tfs_free(b);
    return -1;
  }
  /* k^2 mod 2n, kept exact by adding 2k + 1 at each step */
  int64_t q = 0, two_n = 2 * n;
  for (int64_t k = 0; k < n; k++) {
    p->chirp[k] = cis(-M_PI * (double)q / (double)n);
    q += 2 * k + 1;
    while (q >= two_n) q -= two_n;
  }
  memset(b, 0, (size_t)p->m * sizeof *b);
  b[0] = conj(p->chirp[0]);
  for (int64_t k = 1; k < n; k++) b[k] = b[p->m - k] = conj(p->chirp[k]);
  tfs_fft_exec(p->blue, b, p->kern, 0, NULL);
  double scale = 1.0 / (double)p->m; /* the inverse's 1/m, once */
  for (int64_t k = 0; k < p->m; k++) p->kern[k] *= scale;
  tfs_free(b);
  return 0;
}

tfs_fft_plan *tfs_fft_plan_new(int64_t n) {
  if (n < 0 || n > TFS_FFT_MAX_LEN) return NULL;
  tfs_fft_plan *p = tfs_calloc(1, sizeof *p);
  if (!p) return NULL;
  p->n = n;
  if (n <= 1) return p;
  if (factorize(p) == 0) {
    p->tw = alloc_cd(n);
    p->twi = alloc_cd(n);
    if (!p->tw || !p->twi) goto fail;
    for (int64_t j = 0; j < n; j++) {
      p->tw[j] = cis(-2.0 * M_PI * (double)j / (double)n);
      p->twi[j] = conj(p->tw[j]);
    }
    return p;
  }
  if (make_bluestein(p) == 0) return p;
fail:
  tfs_fft_plan_free(p);
  return NULL;
}

void tfs_fft_plan_free(tfs_fft_plan *p) {
  if (!p) return;
  tfs_free(p->tw);
  tfs_free(p->twi);
  tfs_fft_plan_free(p->blue);
  tfs_free(p->chirp);
  tfs_free(p->kern);
  tfs_free(p);
}

int64_t tfs_fft_scratch_len(const tfs_fft_plan *p) {
  return p->blue ? 2 * p->m : 0;
}

/* ---- mixed radix ------------------------------------------------------ */

/* Products written out: C's complex `*` checks for NaN results and calls
 * a library routine; the transforms need only the plain formula (as
 * TensorFlow's does). */
static inline tfs_fft_cd cmul(tfs_fft_cd a, tfs_fft_cd b) {
  double ar = creal(a), ai = cimag(a), br = creal(b), bi = cimag(b);
  return CMPLX(ar * br - ai * bi, ar * bi + ai * br);
}

/* -i * a forward, +i * a inverse. */
static inline tfs_fft_cd rot(tfs_fft_cd a, int inv) {
  return inv ? CMPLX(-cimag(a), creal(a)) : CMPLX(cimag(a), -creal(a));
}

/* A butterfly over f[k + q*m], q < radix, k < m; tw is the plan's
 * twiddle table for the direction, fs the stride into it (the plan's
 * length over this level's). */
static void bfly2(const tfs_fft_cd *tw, tfs_fft_cd *f, int64_t fs,
                  int64_t m) {
  for (int64_t k = 0; k < m; k++) {
    tfs_fft_cd t = cmul(f[k + m], tw[k * fs]);
    f[k + m] = f[k] - t;
    f[k] += t;
  }
}

static void bfly3(const tfs_fft_cd *tw, tfs_fft_cd *f, int64_t fs,
                  int64_t m, int inv) {
  const double c = 0.86602540378443864676; /* sin(2 pi / 3) */
  for (int64_t k = 0; k < m; k++) {
    tfs_fft_cd s0 = f[k];
    tfs_fft_cd s1 = cmul(f[k + m], tw[k * fs]);
    tfs_fft_cd s2 = cmul(f[k + 2 * m], tw[2 * k * fs]);
    tfs_fft_cd t = s1 + s2, a = s0 - 0.5 * t, r = rot(c * (s1 - s2), inv);
    f[k] = s0 + t;
    f[k + m] = a + r;
    f[k + 2 * m] = a - r;
  }
}

static void bfly4(const tfs_fft_cd *tw, tfs_fft_cd *f, int64_t fs,
                  int64_t m, int inv) {
  for (int64_t k = 0; k < m; k++) {
    tfs_fft_cd s0 = f[k];
    tfs_fft_cd s1 = cmul(f[k + m], tw[k * fs]);
    tfs_fft_cd s2 = cmul(f[k + 2 * m], tw[2 * k * fs]);
    tfs_fft_cd s3 = cmul(f[k + 3 * m], tw[3 * k * fs]);
    tfs_fft_cd a0 = s0 + s2, a1 = s0 - s2, a2 = s1 + s3;
    tfs_fft_cd r = rot(s1 - s3, inv);
    f[k] = a0 + a2;
    f[k + 2 * m] = a0 - a2;
    f[k + m] = a1 + r;
    f[k + 3 * m] = a1 - r;
  }
}

static void bfly5(const tfs_fft_cd *tw, tfs_fft_cd *f, int64_t fs,
                  int64_t m, int inv) {
  const double c1 = 0.30901699437494742410;  /* cos(2 pi / 5) */
  const double c2 = -0.80901699437494742410; /* cos(4 pi / 5) */
  const double s1 = 0.95105651629515357212;  /* sin(2 pi / 5) */
  const double s2 = 0.58778525229247312917;  /* sin(4 pi / 5) */
  for (int64_t k = 0; k < m; k++) {
    tfs_fft_cd x0 = f[k];
    tfs_fft_cd x1 = cmul(f[k + m], tw[k * fs]);
    tfs_fft_cd x2 = cmul(f[k + 2 * m], tw[2 * k * fs]);
    tfs_fft_cd x3 = cmul(f[k + 3 * m], tw[3 * k * fs]);
    tfs_fft_cd x4 = cmul(f[k + 4 * m], tw[4 * k * fs]);
    tfs_fft_cd t1 = x1 + x4, t2 = x2 + x3, d1 = x1 - x4, d2 = x2 - x3;
    tfs_fft_cd a1 = x0 + c1 * t1 + c2 * t2, a2 = x0 + c2 * t1 + c1 * t2;
    tfs_fft_cd r1 = rot(s1 * d1 + s2 * d2, inv);
    tfs_fft_cd r2 = rot(s2 * d1 - s1 * d2, inv);
    f[k] = x0 + t1 + t2;
    f[k + m] = a1 + r1;
    f[k + 4 * m] = a1 - r1;
    f[k + 2 * m] = a2 + r2;
    f[k + 3 * m] = a2 - r2;
  }
}

/* Radix 7, 11 or 13: each output of a group is a sum of r twiddled
 * terms, the twiddle index stepping by fs * k mod n. */
static void bfly_generic(const tfs_fft_cd *tw, int64_t n, tfs_fft_cd *f,
                         int64_t fs, int64_t m, int64_t r) {
  tfs_fft_cd s[MAX_GENERIC];
  for (int64_t u = 0; u < m; u++) {
    for (int64_t q = 0; q < r; q++) s[q] = f[u + q * m];
    for (int64_t q = 0; q < r; q++) {
      int64_t k = u + q * m, step = (fs * k) % n, idx = 0;
      tfs_fft_cd acc = s[0];
      for (int64_t j = 1; j < r; j++) {
        idx += step;
        if (idx >= n) idx -= n;
        acc += cmul(s[j], tw[idx]);
      }
      f[k] = acc;
    }
  }
}

/* out[0, r*m) = transform of in[0], in[s], in[2s], ... (s = fs); fac
 * points at this level's (radix, m) pair. */
static void work(const tfs_fft_plan *p, tfs_fft_cd *out,
                 const tfs_fft_cd *in, int64_t fs, const int64_t *fac,
                 int inv) {
  int64_t r = fac[0], m = fac[1];
  const tfs_fft_cd *tw = inv ? p->twi : p->tw;
  if (m == 1) {
    for (int64_t q = 0; q < r; q++) out[q] = in[q * fs];
  } else {
    for (int64_t q = 0; q < r; q++)
      work(p, out + q * m, in + q * fs, fs * r, fac + 2, inv);
  }
  switch (r) {
    case 2: bfly2(tw, out, fs, m); break;
    case 3: bfly3(tw, out, fs, m, inv); break;
    case 4: bfly4(tw, out, fs, m, inv); break;
    case 5: bfly5(tw, out, fs, m, inv); break;
    default: bfly_generic(tw, p->n, out, fs, m, r); break;
  }
}

/* ---- Bluestein -------------------------------------------------------- */

static void bluestein(const tfs_fft_plan *p, const tfs_fft_cd *in,
                      tfs_fft_cd *out, int inv, tfs_fft_cd *scratch) {
  int64_t n = p->n, m = p->m;
  tfs_fft_cd *a = scratch, *b = scratch + m;
  /* the inverse is the conjugate of the forward transform of conj(x) */
  for (int64_t k = 0; k < n; k++)
    a[k] = cmul(inv ? conj(in[k]) : in[k], p->chirp[k]);
  memset(a + n, 0, (size_t)(m - n) * sizeof *a);
  tfs_fft_exec(p->blue, a, b, 0, NULL);
  for (int64_t k = 0; k < m; k++) b[k] = cmul(b[k], p->kern[k]);
  tfs_fft_exec(p->blue, b, a, 1, NULL);
  for (int64_t k = 0; k < n; k++) {
    tfs_fft_cd v = cmul(a[k], p->chirp[k]);
    out[k] = inv ? conj(v) : v;
  }
}

void tfs_fft_exec(const tfs_fft_plan *p, const tfs_fft_cd *in,
                  tfs_fft_cd *out, int inverse, tfs_fft_cd *scratch) {
  if (p->n == 0) return;
  if (p->n == 1) {
    out[0] = in[0];
    return;
  }
  if (p->blue)
    bluestein(p, in, out, inverse, scratch);
  else
    work(p, out, in, 1, p->fac, inverse);
}
