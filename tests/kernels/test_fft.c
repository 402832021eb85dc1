/*
 * tests/kernels/test_fft.c - the transforms of backends/cpu/fft.c against
 * a direct O(n^2) DFT in long double (lengths 1 to 64, the primes 97 and
 * 1009 and powers of two up to 4096, both directions), the edges of a
 * plan (length 0 and 1, lengths out of range), and the FFT kernels: a
 * batch split over the intra-op pool gives each line's own transform,
 * the 2D transform matches the direct one, real transforms invert, and
 * hostile fft_length values end in TensorFlow's errors.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "arraytest.h"
#include "backends/cpu/fft.h"

typedef long double _Complex ldc;

/* A deterministic input: no symmetry a bug could hide behind. */
static void fill(tfs_fft_cd *x, int64_t n, int seed) {
  for (int64_t i = 0; i < n; i++)
    x[i] = CMPLX(sin(0.37 * (double)i + seed) + 0.25 * cos(1.9 * (double)i),
                 cos(0.11 * (double)(i * i % 101) - seed));
}

/* Largest |got - dft(x)| over the largest |dft(x)|. */
static double dft_error(const tfs_fft_cd *x, const tfs_fft_cd *got, int64_t n,
                        int inverse) {
  ldc *w = malloc((size_t)n * sizeof *w);
  for (int64_t j = 0; j < n; j++) {
    long double a = (inverse ? 2 : -2) * 3.14159265358979323846264338L *
                    (long double)j / (long double)n;
    w[j] = cosl(a) + I * sinl(a);
  }
  double err = 0, scale = 0;
  for (int64_t k = 0; k < n; k++) {
    ldc acc = 0;
    for (int64_t j = 0, idx = 0; j < n; j++) {
      acc += (ldc)x[j] * w[idx];
      idx += k;
      if (idx >= n) idx -= n;
    }
    double e = cabs(got[k] - (tfs_fft_cd)acc), m = cabs((tfs_fft_cd)acc);
    if (e > err) err = e;
    if (m > scale) scale = m;
  }
  free(w);
  return scale > 0 ? err / scale : err;
}

static void check_length(int64_t n) {
  tfs_fft_plan *p = tfs_fft_plan_new(n);
  CU_ASSERT_PTR_NOT_NULL_FATAL(p);
  int64_t ns = tfs_fft_scratch_len(p);
  tfs_fft_cd *x = malloc((size_t)n * sizeof *x);
  tfs_fft_cd *y = malloc((size_t)n * sizeof *y);
  tfs_fft_cd *s = ns ? malloc((size_t)ns * sizeof *s) : NULL;
  fill(x, n, (int)n);
  for (int inv = 0; inv < 2; inv++) {
    tfs_fft_exec(p, x, y, inv, s);
    double e = dft_error(x, y, n, inv);
    if (!(e < 1e-13)) printf("\n  length %lld: error %g\n", (long long)n, e);
    CU_ASSERT(e < 1e-13);
  }
  free(x);
  free(y);
  free(s);
  tfs_fft_plan_free(p);
}

static void test_small_lengths(void) {
  for (int64_t n = 1; n <= 64; n++) check_length(n);
}

static void test_primes(void) {
  check_length(97);
  check_length(1009);
  check_length(7 * 11 * 13);   /* the generic butterflies */
  check_length(2 * 17 * 17);   /* Bluestein, even */
}

static void test_powers_of_two(void) {
  for (int64_t n = 128; n <= 4096; n *= 2) check_length(n);
  check_length(3 * 5 * 5 * 9); /* mixed radix 3 and 5 */
}

static void test_plan_edges(void) {
  tfs_fft_plan *p = tfs_fft_plan_new(0);
  CU_ASSERT_PTR_NOT_NULL_FATAL(p);
  CU_ASSERT_EQUAL(tfs_fft_scratch_len(p), 0);
  tfs_fft_exec(p, NULL, NULL, 0, NULL); /* nothing to touch */
  tfs_fft_plan_free(p);
  p = tfs_fft_plan_new(1);
  tfs_fft_cd x = CMPLX(2.5, -1), y = 0;
  tfs_fft_exec(p, &x, &y, 1, NULL);
  CU_ASSERT_EQUAL(y, x);
  tfs_fft_plan_free(p);
  CU_ASSERT_PTR_NULL(tfs_fft_plan_new(-1));
  CU_ASSERT_PTR_NULL(tfs_fft_plan_new(TFS_FFT_MAX_LEN + 1));
  tfs_fft_plan_free(NULL);
}

/* ---- the kernels ------------------------------------------------------- */

/* FFT over a batch big enough to be split over the pool: each row is its
 * own transform. */
static void test_batch_rows(void) {
  enum { B = 48, N = 1000 };
  double *v = malloc(sizeof(double) * 2 * B * N);
  tfs_fft_cd *row = malloc(sizeof *row * N), *want = malloc(sizeof *want * N);
  for (int i = 0; i < 2 * B * N; i++) v[i] = sin(0.7 * i) + 0.001 * (i % 7);
  at_call c = {"FFT", (const at_attr[]){AT_TYPE("Tcomplex", TFS_COMPLEX128),
                                        {NULL}}, 0, 0, NULL};
  tfs_tensor *in[] = {at_t(TFS_COMPLEX128, 2, D(B, N), v)};
  tfs_tensor *out = at_eval(&c, in, 1);
  CU_ASSERT_PTR_NOT_NULL_FATAL(out);
  const double *o = tfs_tensor_data(out);
  tfs_fft_plan *p = tfs_fft_plan_new(N);
  int same = 1;
  for (int b = 0; b < B; b++) {
    memcpy(row, v + 2 * b * N, sizeof *row * N);
    tfs_fft_exec(p, row, want, 0, NULL);
    same &= memcmp(want, o + 2 * b * N, sizeof *want * N) == 0;
  }
  CU_ASSERT(same);
  tfs_fft_plan_free(p);
  tfs_tensor_free(out);
  free(v);
  free(row);
  free(want);
}

/* FFT2D of a 5 x 6 block against the direct 2D sum. */
static void test_fft2d_direct(void) {
  enum { H = 5, W = 6 };
  double v[2 * H * W];
  for (int i = 0; i < 2 * H * W; i++) v[i] = cos(1.3 * i) - 0.2;
  at_call c = {"FFT2D", (const at_attr[]){AT_TYPE("Tcomplex", TFS_COMPLEX128),
                                          {NULL}}, 0, 0, NULL};
  tfs_tensor *in[] = {at_t(TFS_COMPLEX128, 2, D(H, W), v)};
  tfs_tensor *out = at_eval(&c, in, 1);
  CU_ASSERT_PTR_NOT_NULL_FATAL(out);
  const tfs_fft_cd *o = tfs_tensor_data(out), *x = (const tfs_fft_cd *)v;
  double err = 0;
  for (int k1 = 0; k1 < H; k1++)
    for (int k2 = 0; k2 < W; k2++) {
      tfs_fft_cd acc = 0;
      for (int j1 = 0; j1 < H; j1++)
        for (int j2 = 0; j2 < W; j2++)
          acc += x[j1 * W + j2] *
                 cexp(-2 * M_PI * I *
                      ((double)(j1 * k1) / H + (double)(j2 * k2) / W));
      err = fmax(err, cabs(acc - o[k1 * W + k2]));
    }
  CU_ASSERT(err < 1e-12);
  tfs_tensor_free(out);
}

/* IRFFT3D(RFFT3D(x)) == x for odd and even inner lengths. */
static void test_real_round_trip(void) {
  const int64_t shapes[2][3] = {{3, 4, 5}, {2, 5, 6}};
  for (int s = 0; s < 2; s++) {
    const int64_t *d = shapes[s];
    int64_t n = d[0] * d[1] * d[2];
    double x[64];
    for (int64_t i = 0; i < n; i++) x[i] = sin(0.9 * (double)i) + 0.5;
    int32_t len[3] = {(int32_t)d[0], (int32_t)d[1], (int32_t)d[2]};
    at_call f = {"RFFT3D", (const at_attr[]){
                     AT_TYPE("Treal", TFS_DOUBLE),
                     AT_TYPE("Tcomplex", TFS_COMPLEX128), {NULL}},
                 0, 0, NULL};
    tfs_tensor *in[] = {at_t(TFS_DOUBLE, 3, d, x), at_i32(1, D(3), len)};
    tfs_tensor *spec = at_eval(&f, in, 2);
    CU_ASSERT_PTR_NOT_NULL_FATAL(spec);
    CU_ASSERT_EQUAL(tfs_tensor_dim(spec, 2), d[2] / 2 + 1);
    at_call b = {"IRFFT3D", f.attrs, 0, 0, NULL};
    tfs_tensor *in2[] = {spec, at_i32(1, D(3), len)};
    tfs_tensor *back = at_eval(&b, in2, 2);
    CU_ASSERT_PTR_NOT_NULL_FATAL(back);
    const double *y = tfs_tensor_data(back);
    double err = 0;
    for (int64_t i = 0; i < n; i++) err = fmax(err, fabs(y[i] - x[i]));
    CU_ASSERT(err < 1e-13);
    tfs_tensor_free(back);
  }
}

/* An empty input whose output would overflow int64 is refused, not
 * allocated; a negative length is TensorFlow's error. */
static void test_hostile_lengths(void) {
  at_call c = {"RFFT3D", NULL, 0, 0, NULL};
  tfs_tensor *in[] = {at_f32(4, D(1, 0, 0, 0), NULL),
                      at_i32(1, D(3), I32(INT32_MAX, INT32_MAX, INT32_MAX))};
  at_expect_error(&c, in, 2, TFS_INVALID_ARGUMENT, "overflows int64");
  at_call ci = {"IRFFT", NULL, 0, 0, NULL};
  float z[2] = {0, 0};
  tfs_tensor *in2[] = {at_t(TFS_COMPLEX64, 1, D(1), z),
                       at_i32(1, D(1), I32(INT32_MIN))};
  at_expect_error(&ci, in2, 2, TFS_INVALID_ARGUMENT,
                  "fft_length[0] must >= 0, but got: -2147483648");
  tfs_tensor *in3[] = {at_t(TFS_COMPLEX64, 1, D(1), z),
                       at_i32(1, D(1), I32(INT32_MAX))};
  at_expect_error(&ci, in3, 2, TFS_INVALID_ARGUMENT,
                  "Input dimension 0 must have length of at least "
                  "1073741824 but got: 1");
}

static const tfs_test_case kCases[] = {
    {"small_lengths", test_small_lengths},
    {"primes", test_primes},
    {"powers_of_two", test_powers_of_two},
    {"plan_edges", test_plan_edges},
    {"batch_rows", test_batch_rows},
    {"fft2d_direct", test_fft2d_direct},
    {"real_round_trip", test_real_round_trip},
    {"hostile_lengths", test_hostile_lengths},
    {NULL, NULL},
};

const tfs_test_suite tfs_test_suites[] = {
    {"fft", kCases},
    {NULL, NULL},
};
