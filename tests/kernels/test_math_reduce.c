/*
 * tests/kernels/test_math_reduce.c - reductions (Sum, Mean, Prod, Max,
 * Min, All, Any), ArgMax/ArgMin and BatchMatMul V1/V2/V3: values against
 * naive references over every axis set, identities of empty reductions,
 * NaN handling, and each error a kernel reports.
 */
#include <math.h>
#include <stdlib.h>

#include "core/cpu.h"
#include "core/util.h"
#include "mathtest.h"

#define NODE "\n\t [[{{node op}}]]"
#define D MT_DIMS
#define V MT_VALS

static void set_keep(tfs_op_desc *d, const void *arg) {
  tfs_op_desc_set_attr_bool(d, "keep_dims", *(const int *)arg);
}

static tfs_tensor *reduce(const char *op, tfs_tensor *x, tfs_tensor *axes,
                          int keep) {
  mt_op o = {op, -1, set_keep, &keep};
  return mt_eval(&o, (tfs_tensor *[]){x, axes}, 2);
}

static const char *reduce_fail(const char *op, tfs_tensor *x,
                               tfs_tensor *axes) {
  int keep = 0;
  mt_op o = {op, -1, set_keep, &keep};
  const char *m;
  CU_ASSERT_EQUAL(mt_eval_fail(&o, (tfs_tensor *[]){x, axes}, 2, &m),
                  TFS_INVALID_ARGUMENT);
  return m;
}

/* Reference reduction of a [2,3,4] tensor over the dims in mask. */
static void naive(const double *x, int mask, int op, double *out, int *n) {
  const int dims[3] = {2, 3, 4};
  int od[3], k = 0;
  for (int d = 0; d < 3; d++) od[d] = (mask >> d & 1) ? 1 : dims[d];
  *n = od[0] * od[1] * od[2];
  double init = op == 2 ? 1 : op == 3 ? -INFINITY : op == 4 ? INFINITY : 0;
  for (int i = 0; i < *n; i++) out[i] = init;
  for (int a = 0; a < 2; a++)
    for (int b = 0; b < 3; b++)
      for (int c = 0; c < 4; c++) {
        int oi = ((a % od[0]) * od[1] + b % od[1]) * od[2] + c % od[2];
        double v = x[(a * 3 + b) * 4 + c];
        switch (op) {
          case 2: out[oi] *= v; break;
          case 3: out[oi] = fmax(out[oi], v); break;
          case 4: out[oi] = fmin(out[oi], v); break;
          default: out[oi] += v;
        }
      }
  if (op == 1) {
    int cnt = 24 / *n;
    for (int i = 0; i < *n; i++) out[i] /= cnt;
  }
  (void)k;
}

static void test_every_axis_set(void) {
  static const char *const ops[] = {"Sum", "Mean", "Prod", "Max", "Min"};
  static const tfs_dtype dts[] = {TFS_FLOAT, TFS_DOUBLE, TFS_INT32,
                                  TFS_HALF, TFS_UINT8};
  double x[24];
  for (int i = 0; i < 24; i++) x[i] = (i * 7) % 10 + (i % 5 == 0);
  for (size_t t = 0; t < sizeof dts / sizeof dts[0]; t++) {
    tfs_tensor *in = mt_t(dts[t], 3, D(2, 3, 4), x);
    for (int op = 0; op < 5; op++) {
      for (int mask = 0; mask < 8; mask++) {
        if (op == 2 && mask == 7 && dts[t] != TFS_DOUBLE) continue;
        double ax[3], want[24];
        int na = 0, n;
        for (int d = 0; d < 3; d++)
          if (mask >> d & 1) ax[na++] = d - (d == 2 ? 3 : 0); /* -1 for 2 */
        tfs_tensor *axes = mt_t(TFS_INT64, 1, D(na), ax);
        naive(x, mask, op, want, &n);
        for (int i = 0; i < n; i++) { /* the dtype's wrapping/range */
          uint64_t u = (uint64_t)trunc(want[i]);
          if (dts[t] == TFS_INT32) want[i] = (int32_t)(uint32_t)u;
          if (dts[t] == TFS_UINT8) want[i] = (uint8_t)u;
          if (dts[t] == TFS_HALF && want[i] > 65519) want[i] = INFINITY;
        }
        tfs_tensor *r = reduce(ops[op], in, axes, 1);
        int64_t od[3];
        for (int d = 0; d < 3; d++)
          od[d] = (mask >> d & 1) ? 1 : (int64_t[]){2, 3, 4}[d];
        double tol = dts[t] == TFS_HALF ? 2e-3 : dts[t] == TFS_FLOAT ? 1e-6
                                                                     : 0;
        if (dts[t] == TFS_DOUBLE) tol = 1e-12;
        mt_expect(r, dts[t], 3, od, want, tol);
        tfs_tensor *r2 = reduce(ops[op], in, axes, 0);
        CU_ASSERT_EQUAL(tfs_tensor_ndims(r2), 3 - na);
        CU_ASSERT_EQUAL(tfs_tensor_num_elements(r2), n);
        mt_free_all((tfs_tensor *[]){axes, r, r2}, 3);
      }
    }
    tfs_tensor_free(in);
  }
}

static void test_empty_reductions(void) {
  tfs_tensor *e = mt_t(TFS_FLOAT, 2, D(0, 3), NULL);
  tfs_tensor *ax0 = mt_scalar(TFS_INT32, 0);
  struct {
    const char *op;
    double want;
  } fl[] = {{"Sum", 0}, {"Mean", NAN}, {"Prod", 1}, {"Max", -INFINITY},
            {"Min", INFINITY}};
  for (int i = 0; i < 5; i++) {
    tfs_tensor *r = reduce(fl[i].op, e, ax0, 0);
    mt_expect(r, TFS_FLOAT, 1, D(3), V(fl[i].want, fl[i].want, fl[i].want),
              0);
    tfs_tensor_free(r);
  }
  tfs_tensor *ei = mt_t(TFS_INT32, 2, D(0, 2), NULL);
  tfs_tensor *mx = reduce("Max", ei, ax0, 0), *mn = reduce("Min", ei, ax0, 0);
  tfs_tensor *me = reduce("Mean", ei, ax0, 0);
  mt_expect(mx, TFS_INT32, 1, D(2), V(-2147483648.0, -2147483648.0), 0);
  mt_expect(mn, TFS_INT32, 1, D(2), V(2147483647, 2147483647), 0);
  mt_expect(me, TFS_INT32, 1, D(2), V(0, 0), 0);
  tfs_tensor *eu = mt_t(TFS_UINT8, 1, D(0), NULL);
  tfs_tensor *mnu = reduce("Min", eu, ax0, 0), *mxu = reduce("Max", eu, ax0, 0);
  mt_expect(mnu, TFS_UINT8, 0, NULL, V(255), 0);
  mt_expect(mxu, TFS_UINT8, 0, NULL, V(0), 0);
  tfs_tensor *eb = mt_t(TFS_BOOL, 2, D(0, 2), NULL);
  tfs_tensor *all = reduce("All", eb, ax0, 0), *any = reduce("Any", eb, ax0, 0);
  mt_expect(all, TFS_BOOL, 1, D(2), V(1, 1), 0);
  mt_expect(any, TFS_BOOL, 1, D(2), V(0, 0), 0);
  /* reducing nothing keeps the values */
  tfs_tensor *x = mt_t(TFS_FLOAT, 2, D(2, 1), V(3, -4));
  tfs_tensor *none = mt_t(TFS_INT32, 1, D(0), NULL);
  tfs_tensor *same = reduce("Prod", x, none, 0);
  mt_expect(same, TFS_FLOAT, 2, D(2, 1), V(3, -4), 0);
  tfs_tensor *s1 = reduce("Sum", x, mt_tmp(mt_scalar(TFS_INT32, 1)), 0);
  mt_expect(s1, TFS_FLOAT, 1, D(2), V(3, -4), 0);
  mt_free_all((tfs_tensor *[]){e, ax0, ei, mx, mn, me, eu, mnu, mxu, eb, all,
                               any, x, none, same, s1}, 16);
}

static void test_reduce_special_values(void) {
  tfs_tensor *x = mt_t(TFS_FLOAT, 2, D(2, 3), V(1, NAN, 2, -1, -5, 3));
  tfs_tensor *ax1 = mt_scalar(TFS_INT32, 1);
  tfs_tensor *mx = reduce("Max", x, ax1, 0), *mn = reduce("Min", x, ax1, 0);
  mt_expect(mx, TFS_FLOAT, 1, D(2), V(NAN, 3), 0);
  mt_expect(mn, TFS_FLOAT, 1, D(2), V(NAN, -5), 0);
  tfs_tensor *i8 = mt_t(TFS_INT8, 1, D(3), V(100, 100, 60));
  tfs_tensor *ax0 = mt_scalar(TFS_INT32, 0);
  tfs_tensor *s = reduce("Sum", i8, ax0, 0), *m = reduce("Mean", i8, ax0, 0);
  mt_expect(s, TFS_INT8, 0, NULL, V(4), 0);  /* 260 wraps to 4 */
  mt_expect(m, TFS_INT8, 0, NULL, V(86), 0); /* the 64-bit sum / 3 */
  tfs_tensor *neg = mt_t(TFS_INT32, 1, D(2), V(-3, -4));
  tfs_tensor *nm = reduce("Mean", neg, ax0, 0);
  mt_expect(nm, TFS_INT32, 0, NULL, V(-3), 0);
  tfs_tensor *c = mt_complex(TFS_COMPLEX64, 1, D(2), V(1, 2, 3, -1));
  tfs_tensor *cs = reduce("Sum", c, ax0, 0), *cp = reduce("Prod", c, ax0, 0);
  tfs_tensor *cm = reduce("Mean", c, ax0, 0);
  mt_expect_complex(cs, TFS_COMPLEX64, 0, NULL, V(4, 1), 1e-6);
  mt_expect_complex(cp, TFS_COMPLEX64, 0, NULL, V(5, 5), 1e-6);
  mt_expect_complex(cm, TFS_COMPLEX64, 0, NULL, V(2, 0.5), 1e-6);
  tfs_tensor *b = mt_t(TFS_BOOL, 2, D(2, 2), V(1, 0, 1, 1));
  tfs_tensor *al = reduce("All", b, ax1, 1), *an = reduce("Any", b, ax0, 0);
  mt_expect(al, TFS_BOOL, 2, D(2, 1), V(0, 1), 0);
  mt_expect(an, TFS_BOOL, 1, D(2), V(1, 1), 0);
  mt_free_all((tfs_tensor *[]){x, ax1, mx, mn, i8, ax0, s, m, neg, nm, c, cs,
                               cp, cm, b, al, an}, 17);
}

static void test_large_reductions(void) {
  /* a full reduction split into blocks, and row/column reductions */
  int64_t n = 300000;
  tfs_status *st = tfs_status_new();
  tfs_tensor *x = tfs_tensor_new(TFS_FLOAT, &n, 1, st);
  float *p = tfs_tensor_data(x);
  double sum = 0;
  for (int64_t i = 0; i < n; i++) {
    p[i] = (float)((i % 1000) * 0.001);
    sum += p[i];
  }
  tfs_tensor *ax = mt_scalar(TFS_INT32, 0);
  tfs_tensor *r = reduce("Sum", x, ax, 0), *mx = reduce("Max", x, ax, 0);
  mt_expect(r, TFS_FLOAT, 0, NULL, &sum, 1e-6);
  mt_expect(mx, TFS_FLOAT, 0, NULL, V(0.999f), 0);
  int64_t d2[2] = {600, 500};
  tfs_tensor *m = tfs_tensor_new(TFS_DOUBLE, d2, 2, st);
  double *q = tfs_tensor_data(m);
  for (int64_t i = 0; i < 600 * 500; i++) q[i] = (double)(i % 500);
  tfs_tensor *cols = reduce("Mean", m, ax, 0);
  tfs_tensor *last = mt_tmp(mt_scalar(TFS_INT32, -1));
  tfs_tensor *rows = reduce("Sum", m, last, 0);
  for (int j = 0; j < 500; j += 97) CU_ASSERT_EQUAL(mt_get(cols, j), j);
  for (int i = 0; i < 600; i += 101)
    CU_ASSERT_EQUAL(mt_get(rows, i), 499.0 * 500 / 2);
  tfs_status_free(st);
  mt_free_all((tfs_tensor *[]){x, ax, r, mx, m, cols, rows}, 7);
}

/* float Sum and Mean on each vector path (AVX-512, AVX2, portable): row
 * sums (last axis) and column accumulations (first axis) of every width
 * up to 40, with values whose sums are exact, so every path must give
 * the same bits. */
static void test_float_sum_paths(void) {
  static const int isas[] = {TFS_CPU_ISA_AVX512, TFS_CPU_ISA_AVX2,
                             TFS_CPU_ISA_BASELINE};
  static const char *const names[] = {"avx512", "avx2", "portable"};
  tfs_tensor *first = mt_scalar(TFS_INT32, 0), *last = mt_scalar(TFS_INT32, -1);
  for (int p = 0; p < 3; p++) {
    const char *why = tu_isa_unavailable(isas[p]);
    tu_cpu_path("reduce-f32", names[p], why);
    if (why) continue;
    tfs_cpu__set_max_isa(isas[p]);
    for (int64_t w = 1; w <= 40; w++) {
      int64_t dims[2] = {3, w};
      double v[3 * 40], rows[3], cols[40];
      for (int64_t i = 0; i < 3 * w; i++) v[i] = (double)((i * 7) % 23) - 9;
      for (int r = 0; r < 3; r++) {
        rows[r] = 0;
        for (int64_t j = 0; j < w; j++) rows[r] += v[r * w + j];
      }
      for (int64_t j = 0; j < w; j++)
        cols[j] = (v[j] + v[w + j] + v[2 * w + j]) / 3;
      tfs_tensor *x = mt_t(TFS_FLOAT, 2, dims, v);
      tfs_tensor *rs = reduce("Sum", x, last, 0);
      tfs_tensor *cm = reduce("Mean", x, first, 0);
      mt_expect(rs, TFS_FLOAT, 1, dims, rows, 0);
      mt_expect(cm, TFS_FLOAT, 1, dims + 1, cols, 1e-7);
      mt_free_all((tfs_tensor *[]){x, rs, cm}, 3);
    }
    tfs_cpu__set_max_isa(-1);
  }
  mt_free_all((tfs_tensor *[]){first, last}, 2);
}

/* Each output's float sum, in double, in the kernel's order: with up to
 * 4096 outputs, blocks of max(ceil(rows / 16), ceil(32768 / cols)) rows
 * (the last shorter), each summed in row order, the first block's sum
 * then plus the others in order; with more, the rows in order. */
static float sum_in_order(const float *x, int64_t rows, int64_t cols,
                          int64_t k) {
  int64_t per = rows;
  if (cols <= 4096) {
    per = (rows + 15) / 16;
    if (per * cols < 32768) per = (32768 + cols - 1) / cols;
  }
  double acc = 0, part = 0;
  for (int64_t r = 0; r < rows; r++) {
    part += (double)x[r * cols + k];
    if ((r + 1) % per == 0 || r == rows - 1) {
      acc = r < per ? part : acc + part;
      part = 0;
    }
  }
  return (float)acc;
}

/* Float Sum over leading axes, kept last axis of every width around the
 * vector steps (the column sums held in registers across the rows), on
 * each path: +-2^40 on alternate even rows cancel, so the double partial
 * sums round the small odd rows away in an order-dependent way, and only
 * the documented order of additions gives these bits. */
static void test_float_sum_order(void) {
  static const int isas[] = {TFS_CPU_ISA_AVX512, TFS_CPU_ISA_AVX2,
                             TFS_CPU_ISA_BASELINE};
  static const char *const names[] = {"avx512", "avx2", "portable"};
  static const int64_t kW[] = {2,  3,  4,  5,   8,   15,  16,   17,
                               31, 32, 33, 144, 192, 200, 4096, 4097};
  static const int64_t kRows[][2] = {{1, 7}, {1, 600}, {2, 301}};
  tfs_tensor *axes = mt_t(TFS_INT32, 1, D(2), V(0, 1));
  for (int p = 0; p < 3; p++) {
    const char *why = tu_isa_unavailable(isas[p]);
    tu_cpu_path("reduce-f32-rows", names[p], why);
    if (why) continue;
    tfs_cpu__set_max_isa(isas[p]);
    for (size_t w = 0; w < TFS_ARRAY_LEN(kW); w++)
      for (size_t h = 0; h < TFS_ARRAY_LEN(kRows); h++) {
        int64_t cols = kW[w], rows = kRows[h][0] * kRows[h][1];
        int64_t dims[3] = {kRows[h][0], kRows[h][1], cols};
        tfs_tensor *x = mt_t(TFS_FLOAT, 3, dims, NULL);
        float *v = tfs_tensor_data(x);
        for (int64_t r = 0; r < rows; r++)
          for (int64_t k = 0; k < cols; k++)
            v[r * cols + k] =
                r % 2 ? (float)((r * 7919 + k * 31) % 1000) / 997.0f
                      : (r % 4 ? -1.0f : 1.0f) * 0x1p40f * (float)(1 + k % 3);
        tfs_tensor *r = reduce("Sum", x, axes, 0);
        const float *got = tfs_tensor_data(r);
        int bad = 0;
        for (int64_t k = 0; k < cols; k++) {
          float want = sum_in_order(v, rows, cols, k);
          if (memcmp(&want, got + k, sizeof want) != 0 && bad++ < 2)
            fprintf(stderr, "\n  %s %lldx%lld [%lld]: %.9g, want %.9g",
                    names[p], (long long)rows, (long long)cols,
                    (long long)k, got[k], want);
        }
        CU_ASSERT_EQUAL(bad, 0);
        mt_free_all((tfs_tensor *[]){x, r}, 2);
      }
    tfs_cpu__set_max_isa(-1);
  }
  mt_free_all((tfs_tensor *[]){axes}, 1);
}

static void test_reduce_errors(void) {
  tfs_tensor *x = mt_t(TFS_FLOAT, 2, D(2, 3), NULL);
  tfs_tensor *a2 = mt_scalar(TFS_INT32, 2), *am3 = mt_scalar(TFS_INT64, -3);
  tfs_tensor *dup = mt_t(TFS_INT32, 1, D(3), V(1, 1, -1));
  CU_ASSERT_STRING_EQUAL(reduce_fail("Sum", x, a2),
                         "Invalid reduction dimension (2 for input with 2 "
                         "dimension(s)" NODE);
  CU_ASSERT_STRING_EQUAL(reduce_fail("Max", x, am3),
                         "Invalid reduction dimension (-3 for input with 2 "
                         "dimension(s)" NODE);
  CU_ASSERT_STRING_EQUAL(reduce_fail("Mean", x, dup),
                         "Invalid reduction arguments: Axes contains "
                         "duplicate dimension: 1" NODE);
  tfs_tensor *b = mt_t(TFS_BOOL, 2, D(2, 3), NULL);
  tfs_tensor *a5 = mt_tmp(mt_scalar(TFS_INT32, 5));
  CU_ASSERT_STRING_EQUAL(reduce_fail("All", b, a5),
                         "Invalid reduction dimension (5 for input with 2 "
                         "dimension(s)" NODE);
  /* axes of any rank are read flat, as TensorFlow's kernel does */
  tfs_tensor *a11 = mt_t(TFS_INT32, 2, D(1, 1), V(0));
  tfs_tensor *r = reduce("Sum", x, a11, 0);
  mt_expect(r, TFS_FLOAT, 1, D(3), V(0, 0, 0), 0);
  mt_free_all((tfs_tensor *[]){x, a2, am3, dup, b, a11, r}, 7);
}

/* ---- ArgMax / ArgMin ----------------------------------------------------- */

static void set_out_type(tfs_op_desc *d, const void *arg) {
  tfs_op_desc_set_attr_type(d, "output_type", *(const tfs_dtype *)arg);
}

static tfs_tensor *arg(const char *op, tfs_tensor *x, tfs_tensor *dim,
                       tfs_dtype out) {
  mt_op o = {op, -1, set_out_type, &out};
  return mt_eval(&o, (tfs_tensor *[]){x, dim}, 2);
}

static void test_argmax_argmin(void) {
  tfs_tensor *x = mt_t(TFS_FLOAT, 2, D(2, 3), V(1, 5, 5, -2, -7, 0));
  tfs_tensor *d0 = mt_scalar(TFS_INT32, 0), *d1 = mt_scalar(TFS_INT64, -1);
  tfs_tensor *a = arg("ArgMax", x, d1, TFS_INT64);
  tfs_tensor *b = arg("ArgMin", x, d1, TFS_INT32);
  tfs_tensor *c = arg("ArgMax", x, d0, TFS_INT16);
  tfs_tensor *d = arg("ArgMax", x, d0, TFS_UINT16);
  mt_expect(a, TFS_INT64, 1, D(2), V(1, 2), 0); /* ties: first index */
  mt_expect(b, TFS_INT32, 1, D(2), V(0, 1), 0);
  mt_expect(c, TFS_INT16, 1, D(3), V(0, 0, 0), 0);
  mt_expect(d, TFS_UINT16, 1, D(3), V(0, 0, 0), 0);
  /* NaN is never picked (TensorFlow's results) */
  tfs_tensor *n = mt_t(TFS_FLOAT, 2, D(4, 3),
                       V(1, NAN, 2, NAN, 3, 2, NAN, NAN, -INFINITY, NAN,
                         -INFINITY, 0));
  tfs_tensor *na = arg("ArgMax", n, d1, TFS_INT64);
  tfs_tensor *nm = arg("ArgMin", n, d1, TFS_INT64);
  mt_expect(na, TFS_INT64, 1, D(4), V(2, 1, 0, 2), 0);
  mt_expect(nm, TFS_INT64, 1, D(4), V(0, 2, 2, 1), 0);
  /* inner dimensions wider than one chunk, and other dtypes */
  int64_t dims[3] = {3, 2, 300};
  tfs_tensor *w = mt_t(TFS_INT64, 3, dims, NULL);
  int64_t *wp = tfs_tensor_data(w);
  for (int i = 0; i < 1800; i++) wp[i] = (i * 37) % 101;
  tfs_tensor *d1i = mt_tmp(mt_scalar(TFS_INT32, 1));
  tfs_tensor *wa = arg("ArgMax", w, d1i, TFS_INT32);
  for (int o = 0; o < 3; o++)
    for (int k = 0; k < 300; k++) {
      int64_t v0 = wp[(o * 2) * 300 + k], v1 = wp[(o * 2 + 1) * 300 + k];
      CU_ASSERT_EQUAL(mt_get(wa, o * 300 + k), v1 > v0 ? 1 : 0);
    }
  tfs_tensor *bl = mt_t(TFS_BOOL, 1, D(3), V(0, 1, 1));
  tfs_tensor *ba = arg("ArgMax", bl, d0, TFS_INT64);
  mt_expect(ba, TFS_INT64, 0, NULL, V(1), 0);
  tfs_tensor *h = mt_t(TFS_HALF, 1, D(3), V(-65504, -INFINITY, 1));
  tfs_tensor *hm = arg("ArgMin", h, d0, TFS_INT64);
  mt_expect(hm, TFS_INT64, 0, NULL, V(1), 0);
  mt_free_all((tfs_tensor *[]){x, d0, d1, a, b, c, d, n, na, nm, w, wa, bl,
                               ba, h, hm}, 16);
}

static void test_argmax_errors(void) {
  tfs_dtype out = TFS_INT64;
  mt_op o = {"ArgMax", -1, set_out_type, &out};
  mt_op omin = {"ArgMin", -1, set_out_type, &out};
  tfs_tensor *x = mt_t(TFS_FLOAT, 2, D(2, 3), NULL);
  tfs_tensor *d2 = mt_scalar(TFS_INT32, 2), *dm3 = mt_scalar(TFS_INT32, -3);
  tfs_tensor *dv = mt_t(TFS_INT32, 1, D(1), V(0));
  const char *m;
  mt_eval_fail(&o, (tfs_tensor *[]){x, d2}, 2, &m);
  CU_ASSERT_STRING_EQUAL(m, "Expected dimension in the range [-2, 2), but "
                            "got 2" NODE);
  mt_eval_fail(&o, (tfs_tensor *[]){x, dm3}, 2, &m);
  CU_ASSERT_STRING_EQUAL(m, "Expected dimension in the range [-2, 2), but "
                            "got -3" NODE);
  mt_eval_fail(&o, (tfs_tensor *[]){x, dv}, 2, &m);
  CU_ASSERT_STRING_EQUAL(m, "dim must be a scalar, but received tensor of "
                            "shape: [1]" NODE);
  tfs_tensor *s = mt_scalar(TFS_FLOAT, 1), *d0 = mt_scalar(TFS_INT32, 0);
  mt_eval_fail(&o, (tfs_tensor *[]){s, d0}, 2, &m);
  CU_ASSERT_STRING_EQUAL(m, "Expected dimension in the range [0, 0), but "
                            "got 0" NODE);
  tfs_tensor *e = mt_t(TFS_FLOAT, 2, D(0, 3), NULL);
  CU_ASSERT_EQUAL(mt_eval_fail(&omin, (tfs_tensor *[]){e, d0}, 2, &m),
                  TFS_INVALID_ARGUMENT);
  CU_ASSERT_STRING_EQUAL(m, "Reduction axis 0 is empty in shape [0,3]" NODE);
  tfs_tensor *d1 = mt_scalar(TFS_INT32, 1);
  tfs_tensor *r = mt_eval(&o, (tfs_tensor *[]){e, d1}, 2);
  mt_expect(r, TFS_INT64, 1, D(0), NULL, 0);
  mt_free_all((tfs_tensor *[]){x, d2, dm3, dv, s, d0, e, d1, r}, 9);
}

/* ---- BatchMatMul --------------------------------------------------------- */

typedef struct {
  int adj_x, adj_y;
  tfs_dtype tout; /* V3 only; 0 otherwise */
} bmm_arg;

static void set_bmm(tfs_op_desc *d, const void *arg) {
  const bmm_arg *a = arg;
  tfs_op_desc_set_attr_bool(d, "adj_x", a->adj_x);
  tfs_op_desc_set_attr_bool(d, "adj_y", a->adj_y);
  if (a->tout) tfs_op_desc_set_attr_type(d, "Tout", a->tout);
}

static tfs_tensor *bmm(const char *op, tfs_tensor *x, tfs_tensor *y,
                       bmm_arg a) {
  mt_op o = {op, -1, set_bmm, &a};
  return mt_eval(&o, (tfs_tensor *[]){x, y}, 2);
}

static const char *bmm_fail(const char *op, tfs_tensor *x, tfs_tensor *y) {
  bmm_arg a = {0, 0, 0};
  mt_op o = {op, -1, set_bmm, &a};
  const char *m;
  CU_ASSERT_EQUAL(mt_eval_fail(&o, (tfs_tensor *[]){x, y}, 2, &m),
                  TFS_INVALID_ARGUMENT);
  return m;
}

/* x: [2,2,3] = 1..12, y: [1,3,2] = 1..6 (broadcast over the batch) */
static const double kX[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
static const double kY[6] = {1, 2, 3, 4, 5, 6};
static const double kXY[8] = {22, 28, 49, 64, 76, 100, 103, 136};

static void test_batch_matmul_types(void) {
  static const tfs_dtype dts[] = {TFS_FLOAT, TFS_DOUBLE, TFS_HALF,
                                  TFS_BFLOAT16, TFS_INT16, TFS_INT32,
                                  TFS_INT64};
  bmm_arg plain = {0, 0, 0};
  for (size_t t = 0; t < sizeof dts / sizeof dts[0]; t++) {
    tfs_tensor *x = mt_t(dts[t], 3, D(2, 2, 3), kX);
    tfs_tensor *y = mt_t(dts[t], 3, D(1, 3, 2), kY);
    tfs_tensor *y2 = mt_t(dts[t], 3, D(2, 3, 2), V(1, 2, 3, 4, 5, 6, 1, 2, 3,
                                                   4, 5, 6));
    tfs_tensor *r = bmm("BatchMatMulV2", x, y, plain);
    double tol = dts[t] == TFS_BFLOAT16 ? 1e-2 : 0;
    mt_expect(r, dts[t], 3, D(2, 2, 2), kXY, tol);
    tfs_tensor *r1 = NULL;
    if (dts[t] != TFS_INT16) { /* not among BatchMatMul's types */
      r1 = bmm("BatchMatMul", x, y2, plain);
      mt_expect(r1, dts[t], 3, D(2, 2, 2), kXY, tol);
    }
    bmm_arg v3 = {0, 0, dts[t]};
    if (dts[t] != TFS_HALF) {
      tfs_tensor *r3 = bmm("BatchMatMulV3", x, y, v3);
      mt_expect(r3, dts[t], 3, D(2, 2, 2), kXY, tol);
      tfs_tensor_free(r3);
    }
    mt_free_all((tfs_tensor *[]){x, y, y2, r, r1}, 5);
  }
}

static void test_batch_matmul_adjoint_and_broadcast(void) {
  /* x^T: [3,2] per batch; y as [2,3] -> adj_y */
  tfs_tensor *xt = mt_t(TFS_FLOAT, 3, D(2, 3, 2),
                        V(1, 4, 2, 5, 3, 6, 7, 10, 8, 11, 9, 12));
  tfs_tensor *yt = mt_t(TFS_FLOAT, 2, D(2, 3), V(1, 3, 5, 2, 4, 6));
  bmm_arg both = {1, 1, 0};
  tfs_tensor *r = bmm("BatchMatMulV2", xt, yt, both);
  mt_expect(r, TFS_FLOAT, 3, D(2, 2, 2), kXY, 0);
  /* batch dims broadcast both ways: [2,1,1,2] x [3,2,1] -> [2,3,1,1] */
  tfs_tensor *a = mt_t(TFS_DOUBLE, 4, D(2, 1, 1, 2), V(1, 2, 3, 4));
  tfs_tensor *b = mt_t(TFS_DOUBLE, 3, D(3, 2, 1), V(1, 1, 0, 1, 1, 0));
  bmm_arg plain = {0, 0, 0};
  tfs_tensor *rb = bmm("BatchMatMulV2", a, b, plain);
  mt_expect(rb, TFS_DOUBLE, 4, D(2, 3, 1, 1), V(3, 2, 1, 7, 4, 3), 0);
  /* complex adjoint conjugates */
  tfs_tensor *cxm = mt_complex(TFS_COMPLEX64, 2, D(1, 1), V(1, 2));
  tfs_tensor *cy = mt_complex(TFS_COMPLEX64, 2, D(1, 1), V(3, 4));
  bmm_arg adjx = {1, 0, 0};
  tfs_tensor *rc = bmm("BatchMatMul", cxm, cy, adjx);
  mt_expect_complex(rc, TFS_COMPLEX64, 2, D(1, 1), V(11, -2), 1e-6);
  tfs_tensor *zx = mt_complex(TFS_COMPLEX128, 2, D(1, 2), V(1, 1, 0, 1));
  tfs_tensor *zy = mt_complex(TFS_COMPLEX128, 2, D(1, 2), V(2, 0, 1, -1));
  bmm_arg adjy = {0, 1, 0};
  tfs_tensor *rz = bmm("BatchMatMulV2", zx, zy, adjy);
  mt_expect_complex(rz, TFS_COMPLEX128, 2, D(1, 1), V(1, 3), 1e-12);
  /* k == 0 gives zeros; an empty batch gives an empty result */
  tfs_tensor *k0a = mt_t(TFS_FLOAT, 2, D(2, 0), NULL);
  tfs_tensor *k0b = mt_t(TFS_FLOAT, 2, D(0, 3), NULL);
  tfs_tensor *rk = bmm("BatchMatMulV2", k0a, k0b, plain);
  mt_expect(rk, TFS_FLOAT, 2, D(2, 3), V(0, 0, 0, 0, 0, 0), 0);
  tfs_tensor *eb = mt_t(TFS_FLOAT, 3, D(0, 2, 2), NULL);
  tfs_tensor *e2 = mt_t(TFS_FLOAT, 2, D(2, 5), NULL);
  tfs_tensor *re = bmm("BatchMatMulV2", eb, e2, plain);
  mt_expect(re, TFS_FLOAT, 3, D(0, 2, 5), NULL, 0);
  mt_free_all((tfs_tensor *[]){xt, yt, r, a, b, rb, cxm, cy, rc, zx, zy, rz,
                               k0a, k0b, rk, eb, e2, re}, 18);
}

static void test_batch_matmul_v3_mixed(void) {
  tfs_tensor *x8 = mt_t(TFS_INT8, 2, D(1, 2), V(-128, 127));
  tfs_tensor *u8 = mt_t(TFS_UINT8, 2, D(2, 1), V(255, 2));
  bmm_arg to32 = {0, 0, TFS_INT32}, tobf = {0, 0, TFS_BFLOAT16};
  tfs_tensor *r = bmm("BatchMatMulV3", x8, u8, to32);
  mt_expect(r, TFS_INT32, 2, D(1, 1), V(-128 * 255 + 254), 0);
  tfs_tensor *bf = mt_t(TFS_BFLOAT16, 2, D(2, 1), V(0.5, 2));
  tfs_tensor *rb = bmm("BatchMatMulV3", x8, bf, tobf);
  mt_expect(rb, TFS_BFLOAT16, 2, D(1, 1), V(190), 0);
  bmm_arg bad = {0, 0, TFS_FLOAT};
  mt_op o = {"BatchMatMulV3", -1, set_bmm, &bad};
  const char *m;
  CU_ASSERT_EQUAL(mt_eval_fail(&o, (tfs_tensor *[]){x8, u8}, 2, &m),
                  TFS_UNIMPLEMENTED);
  CU_ASSERT_STRING_EQUAL(m, "BatchMatMulV3 has no CPU kernel for Ta=int8, "
                            "Tb=uint8, Tout=float" NODE);
  mt_free_all((tfs_tensor *[]){x8, u8, r, bf, rb}, 5);
}

static void test_batch_matmul_errors(void) {
  tfs_tensor *a = mt_t(TFS_FLOAT, 3, D(2, 2, 3), NULL);
  tfs_tensor *b = mt_t(TFS_FLOAT, 3, D(3, 3, 2), NULL);
  tfs_tensor *c = mt_t(TFS_FLOAT, 3, D(2, 4, 2), NULL);
  tfs_tensor *v = mt_t(TFS_FLOAT, 1, D(3), NULL);
  tfs_tensor *m2 = mt_t(TFS_FLOAT, 2, D(3, 2), NULL);
  CU_ASSERT_STRING_EQUAL(bmm_fail("BatchMatMul", a, b),
                         "In[0].dim(0) and In[1].dim(0) must be the same: "
                         "[2,2,3] vs [3,3,2]" NODE);
  CU_ASSERT_STRING_EQUAL(bmm_fail("BatchMatMul", a, c),
                         "Matrix size-incompatible: In[0]: [2,2,3], In[1]: "
                         "[2,4,2]" NODE);
  CU_ASSERT_STRING_EQUAL(bmm_fail("BatchMatMul", v, c),
                         "In[0] and In[1] has different ndims: [3] vs. "
                         "[2,4,2]" NODE);
  CU_ASSERT_STRING_EQUAL(bmm_fail("BatchMatMul", v, v),
                         "In[0] and In[1] ndims must be >= 2: 1" NODE);
  CU_ASSERT_STRING_EQUAL(bmm_fail("BatchMatMulV2", a, b),
                         "In[0] and In[1] must have compatible batch "
                         "dimensions: [2,2,3] vs. [3,3,2]" NODE);
  CU_ASSERT_STRING_EQUAL(bmm_fail("BatchMatMulV2", v, c),
                         "In[0] ndims must be >= 2: 1" NODE);
  CU_ASSERT_STRING_EQUAL(bmm_fail("BatchMatMulV2", m2, v),
                         "In[1] ndims must be >= 2: 1" NODE);
  CU_ASSERT_STRING_EQUAL(bmm_fail("BatchMatMulV2", a, c),
                         "Matrix size-incompatible: In[0]: [2,2,3], In[1]: "
                         "[2,4,2]" NODE);
  mt_free_all((tfs_tensor *[]){a, b, c, v, m2}, 5);
}

static void test_batch_matmul_many_batches(void) {
  /* enough batches to split over the pool; checks every product */
  int64_t dx[3] = {64, 5, 7}, dy[3] = {64, 7, 3};
  tfs_tensor *x = mt_t(TFS_FLOAT, 3, dx, NULL), *y = mt_t(TFS_FLOAT, 3, dy,
                                                          NULL);
  float *px = tfs_tensor_data(x), *py = tfs_tensor_data(y);
  for (int i = 0; i < 64 * 35; i++) px[i] = (float)((i % 13) - 6);
  for (int i = 0; i < 64 * 21; i++) py[i] = (float)((i % 7) - 3);
  bmm_arg plain = {0, 0, 0};
  tfs_tensor *r = bmm("BatchMatMulV2", x, y, plain);
  const float *pr = tfs_tensor_data(r);
  for (int b = 0; b < 64; b++)
    for (int i = 0; i < 5; i++)
      for (int j = 0; j < 3; j++) {
        float s = 0;
        for (int k = 0; k < 7; k++)
          s += px[b * 35 + i * 7 + k] * py[b * 21 + k * 3 + j];
        CU_ASSERT_EQUAL(pr[b * 15 + i * 3 + j], s);
      }
  mt_free_all((tfs_tensor *[]){x, y, r}, 3);
}

/* The same results whatever the intra-op thread count (the kernels split
 * work over the pool above a cost threshold). */
static void test_thread_count_independence(void) {
  int64_t dims[3] = {64, 96, 80};
  tfs_tensor *x = mt_t(TFS_FLOAT, 3, dims, NULL);
  float *p = tfs_tensor_data(x);
  for (int64_t i = 0; i < 64 * 96 * 80; i++)
    p[i] = (float)((i * 7919) % 1000);
  /* {0, 1}: 80 outputs innermost over 6144 rows, in blocks of rows */
  tfs_tensor *axes[5] = {mt_t(TFS_INT32, 1, D(1), V(0)),
                         mt_t(TFS_INT32, 1, D(1), V(2)),
                         mt_t(TFS_INT32, 1, D(2), V(0, 2)),
                         mt_t(TFS_INT32, 1, D(3), V(0, 1, 2)),
                         mt_t(TFS_INT32, 1, D(2), V(0, 1))};
  static const char *const ops[] = {"Sum", "Max", "Mean"};
  for (int o = 0; o < 3; o++) {
    for (int a = 0; a < 5; a++) {
      mt_set_threads(1);
      tfs_tensor *r1 = reduce(ops[o], x, axes[a], 0);
      mt_set_threads(4);
      tfs_tensor *r4 = reduce(ops[o], x, axes[a], 0);
      CU_ASSERT_EQUAL(tfs_tensor_num_elements(r1),
                      tfs_tensor_num_elements(r4));
      CU_ASSERT_EQUAL(memcmp(tfs_tensor_data(r1), tfs_tensor_data(r4),
                             tfs_tensor_byte_size(r1)), 0);
      if (a == 4 && o == 2) { /* integers: exact sums, one rounding */
        const float *m = tfs_tensor_data(r4);
        int bad = 0;
        for (int k = 0; k < 80; k++) {
          double sum = 0;
          for (int64_t r = 0; r < 64 * 96; r++) sum += p[r * 80 + k];
          bad += m[k] != (float)(sum / (64 * 96));
        }
        CU_ASSERT_EQUAL(bad, 0);
      }
      mt_free_all((tfs_tensor *[]){r1, r4}, 2);
    }
  }
  tfs_tensor *d1 = mt_scalar(TFS_INT32, 1);
  mt_set_threads(1);
  tfs_tensor *a1 = arg("ArgMax", x, d1, TFS_INT64);
  mt_set_threads(4);
  tfs_tensor *a4 = arg("ArgMax", x, d1, TFS_INT64);
  CU_ASSERT_EQUAL(memcmp(tfs_tensor_data(a1), tfs_tensor_data(a4),
                         tfs_tensor_byte_size(a1)), 0);
  mt_set_threads(0);
  mt_free_all((tfs_tensor *[]){x, axes[0], axes[1], axes[2], axes[3],
                               axes[4], d1, a1, a4}, 9);
}

/* Up to 4096 outputs innermost (a Mean over H and W of a batch-1 NHWC
 * map) run in fixed blocks of rows combined in order, here 2, 4 and 8 of
 * them; 4097 outputs or more run in chunks of outputs.  Both give every
 * op's exact result (integer-valued data), NaN from the last block, and
 * the same bytes on 1 and 4 threads. */
static void test_kept_row_blocks(void) {
  static const int64_t kShape[][2] = {{4000, 7}, {301, 193}, {32, 4096},
                                      {32, 4097}}; /* rows / 2, cols */
  static const char *const ops[] = {"Sum", "Mean", "Max", "Min", "Prod"};
  for (size_t cc = 0; cc < TFS_ARRAY_LEN(kShape); cc++) {
    int64_t cols = kShape[cc][1], rows = 2 * kShape[cc][0];
    int64_t dims[3] = {2, kShape[cc][0], cols};
    tfs_tensor *x = mt_t(TFS_FLOAT, 3, dims, NULL);
    float *p = tfs_tensor_data(x);
    for (int64_t i = 0; i < rows * cols; i++)
      p[i] = (float)((i * 7919) % 23) - 11.0f;
    for (int64_t i = 0; i < rows; i++) /* Prod: 1 but for two rows */
      if (i != 5 && i != rows - 1) p[i * cols + 1] = 1.0f;
    p[(rows - 3) * cols + 2] = NAN; /* in the last block */
    tfs_tensor *axes = mt_t(TFS_INT32, 1, D(2), V(0, 1));
    for (int o = 0; o < 5; o++) {
      mt_set_threads(1);
      tfs_tensor *r1 = reduce(ops[o], x, axes, 0);
      mt_set_threads(4);
      tfs_tensor *r4 = reduce(ops[o], x, axes, 0);
      CU_ASSERT_EQUAL(memcmp(tfs_tensor_data(r1), tfs_tensor_data(r4),
                             tfs_tensor_byte_size(r1)), 0);
      const float *m = tfs_tensor_data(r4);
      int bad = 0;
      for (int64_t k = 0; k < cols; k++) {
        double acc = o == 4 ? 1.0 : o == 2 ? -INFINITY : o == 3 ? INFINITY
                                                                : 0.0;
        for (int64_t r = 0; r < rows; r++) {
          double v = p[r * cols + k];
          if (o <= 1) acc += v;
          else if (o == 4) acc *= v;
          else if (v != v || (o == 2 ? v > acc : v < acc)) acc = v;
          if (acc != acc) break;
        }
        float want = (float)(o == 1 ? acc / (double)rows : acc);
        int same = isnan(want) ? isnan(m[k]) : m[k] == want;
        if (!same && bad++ < 3)
          fprintf(stderr, "\n  %s cols=%lld [%lld] = %g, want %g", ops[o],
                  (long long)cols, (long long)k, m[k], want);
      }
      CU_ASSERT_EQUAL(bad, 0);
      mt_free_all((tfs_tensor *[]){r1, r4}, 2);
    }
    mt_set_threads(0);
    mt_free_all((tfs_tensor *[]){x, axes}, 2);
  }
}

static const tfs_test_case reduce_cases[] = {
    {"thread_count_independence", test_thread_count_independence},
    {"kept_row_blocks", test_kept_row_blocks},
    {"every_axis_set", test_every_axis_set},
    {"empty_reductions", test_empty_reductions},
    {"special_values", test_reduce_special_values},
    {"large_reductions", test_large_reductions},
    {"float_sum_paths", test_float_sum_paths},
    {"float_sum_order", test_float_sum_order},
    {"errors", test_reduce_errors},
    {"argmax_argmin", test_argmax_argmin},
    {"argmax_errors", test_argmax_errors},
    {NULL, NULL},
};

static const tfs_test_case bmm_cases[] = {
    {"types", test_batch_matmul_types},
    {"adjoint_and_broadcast", test_batch_matmul_adjoint_and_broadcast},
    {"v3_mixed", test_batch_matmul_v3_mixed},
    {"errors", test_batch_matmul_errors},
    {"many_batches", test_batch_matmul_many_batches},
    {NULL, NULL},
};

const tfs_test_suite tfs_test_suites[] = {
    {"math_reduce", reduce_cases},
    {"batch_matmul", bmm_cases},
    {NULL, NULL},
};
