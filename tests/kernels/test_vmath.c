/*
 * tests/kernels/test_vmath.c - vmath.h's float32 functions on every path
 * this CPU can run (AVX-512, AVX2, portable C), against double libm: a
 * sweep of float bit patterns, special values, every tail length with
 * unaligned and in-place arrays, the 16-bit helper; then the kernels that
 * use them, end to end (Exp, Softmax, the activations, _FusedMatMul's
 * fused activations, _TfsGelu, _TfsSwish, _TfsHardSwish; the last three
 * in bfloat16 too).
 *
 * TFS_VMATH_STRIDE=97 in the environment sweeps every 97th bit pattern
 * (the sweep behind the bounds in vmath.h; minutes) instead of every
 * 4099th.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/cpu.h"
#include "core/half.h"
#include "backends/cpu/bf16_convert.h"
#include "backends/cpu/fused_epilogue.h"
#include "backends/cpu/row_ops.h"
#include "backends/cpu/scale_shift.h"
#include "backends/cpu/vmath.h"
#include "mathtest.h"

/* ---- references (double) ------------------------------------------------- */

static double r_sigmoid(double x) { return 1.0 / (1.0 + exp(-x)); }
static double r_swish(double x) { return x / (1.0 + exp(-x)); }
/* 0.5 x (1 + tanh(u)) written as x / (1 + exp(-2u)): the same function,
 * without double's own cancellation for negative x */
static double r_gelu_tanh(double x) {
  double u = sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x);
  return x / (1.0 + exp(-2.0 * u));
}
static double r_gelu_erf(double x) { return 0.5 * x * erfc(-x / sqrt(2.0)); }
static double r_elu(double x) { return x < 0 ? expm1(x) : x; }

/* gelu_tanh's argument is rounded in float: allow 2 |v| more ulps */
static double slack_gelu_tanh(double x) {
  double v = 1.5957691216057308 * x * (1.0 + 0.044715 * x * x);
  return isfinite(v) ? 2.0 * fabs(v) : 0;
}

typedef struct vm_case {
  const char *name;
  void (*f)(const float *, float *, int64_t);
  double (*ref)(double);
  float lo, hi;        /* the swept range (the bounds hold there) */
  double bound[3];     /* ulps on avx512, avx2, portable */
  double (*slack)(double x);
} vm_case;

static const vm_case kCases[] = {
    {"exp", tfs_vm_exp_f32, exp, -104.0f, 89.0f, {1, 1, 1}, NULL},
    {"expm1", tfs_vm_expm1_f32, expm1, -25.0f, 89.0f, {2, 2, 2}, NULL},
    {"log", tfs_vm_log_f32, log, 0.0f, INFINITY, {1, 1, 1}, NULL},
    {"log1p", tfs_vm_log1p_f32, log1p, -1.0f, INFINITY, {2, 2, 2}, NULL},
    {"tanh", tfs_vm_tanh_f32, tanh, -INFINITY, INFINITY, {2, 2, 2}, NULL},
    {"sigmoid", tfs_vm_sigmoid_f32, r_sigmoid, -INFINITY, INFINITY,
     {3, 3, 3}, NULL},
    {"erf", tfs_vm_erf_f32, erf, -INFINITY, INFINITY, {2, 2, 2}, NULL},
    {"erfc", tfs_vm_erfc_f32, erfc, -INFINITY, INFINITY, {5.5, 5.5, 6}, NULL},
    {"swish", tfs_vm_swish_f32, r_swish, -87.0f, INFINITY, {3.5, 3.5, 3.5},
     NULL},
    {"gelu_tanh", tfs_vm_gelu_tanh_f32, r_gelu_tanh, -5.0f, INFINITY,
     {3, 3, 3}, slack_gelu_tanh},
    {"gelu_erf", tfs_vm_gelu_erf_f32, r_gelu_erf, -13.0f, INFINITY,
     {6, 6, 6.5}, NULL},
    {"elu", tfs_vm_elu_f32, r_elu, -INFINITY, INFINITY, {2, 2, 2}, NULL},
};
#define NCASES ((int)(sizeof kCases / sizeof kCases[0]))

static const int kIsa[3] = {TFS_CPU_ISA_AVX512, TFS_CPU_ISA_AVX2,
                            TFS_CPU_ISA_BASELINE};
static const char *const kPath[3] = {"avx512", "avx2", "portable"};

/* Error of y against ref in units of the float ulp at ref (2^-149 for
 * subnormal results); NaN must meet NaN, and an infinite or overflowing
 * result must be exact. */
static double ulp_error(float y, double ref) {
  if (isnan(ref) || isnan(y)) return isnan(ref) && isnan(y) ? 0 : INFINITY;
  float rf = (float)ref;
  if (isinf(rf) || isinf(y)) return y == rf ? 0 : INFINITY;
  double a = fabs(ref), u = 0x1p-149;
  if (a >= 0x1p-126) {
    int e;
    frexp(a, &e);
    u = ldexp(1.0, e - 24);
  }
  return fabs((double)y - ref) / u;
}

static float from_bits(uint32_t b) {
  float f;
  memcpy(&f, &b, sizeof f);
  return f;
}

/* ---- the sweep ----------------------------------------------------------- */

#define SWEEP_BLOCK 4096

/* Every stride-th bit pattern in [c->lo, c->hi]: returns the largest
 * error found and reports the worst point. */
static double sweep_case(const vm_case *c, int path, uint64_t stride) {
  static float xs[SWEEP_BLOCK], ys[SWEEP_BLOCK];
  double worst = 0;
  float at = 0;
  uint64_t bits = 0;
  while (bits < (1ull << 32)) {
    int m = 0;
    for (; m < SWEEP_BLOCK && bits < (1ull << 32); bits += stride) {
      float x = from_bits((uint32_t)bits);
      if (x >= c->lo && x <= c->hi) xs[m++] = x;
    }
    c->f(xs, ys, m);
    for (int i = 0; i < m; i++) {
      double e = ulp_error(ys[i], c->ref(xs[i]));
      if (c->slack) e -= c->slack(xs[i]);
      if (e > worst) {
        worst = e;
        at = xs[i];
      }
    }
  }
  int ok = worst <= c->bound[path];
  if (!ok || getenv("TFS_VMATH_STRIDE"))
    fprintf(stderr, "\n  %s %s: %.3f ulp at %a (bound %g)", kPath[path],
            c->name, worst, at, c->bound[path]);
  CU_ASSERT_TRUE(ok);
  return worst;
}

static uint64_t sweep_stride(void) {
  const char *s = getenv("TFS_VMATH_STRIDE");
  long v = s ? strtol(s, NULL, 10) : 0;
  return v > 0 ? (uint64_t)v : 4099;
}

static void test_sweep(void) {
  uint64_t stride = sweep_stride();
  for (int p = 0; p < 3; p++) {
    const char *why = tu_isa_unavailable(kIsa[p]);
    tu_cpu_path("vmath", kPath[p], why);
    if (why) continue;
    tfs_cpu__set_max_isa(kIsa[p]);
    for (int k = 0; k < NCASES; k++) sweep_case(&kCases[k], p, stride);
    tfs_cpu__set_max_isa(-1);
  }
}

/* ---- special values ------------------------------------------------------ */

static const float kSpecial[] = {
    NAN, -NAN, INFINITY, -INFINITY, 0.0f, -0.0f, FLT_MIN, -FLT_MIN,
    0x1p-149f, -0x1p-149f, 0x1.fffffcp-127f, -0x1.fffffcp-127f, FLT_MAX,
    -FLT_MAX, 1.0f, -1.0f, 0.5f, -0.5f, 0x1p-25f, -0x1p-25f, 0x1p-24f,
    -0x1p-24f, 1e-30f, -1e-30f, 0.625f, -0.625f, 0.875f, -0.875f, 3.92f,
    -3.92f, 9.01f, -9.01f, 88.72283f, 88.72284f, 88.7229f, 89.0f, 100.0f,
    -87.33654f, -103.97207f, -103.97208f, -104.0f, -150.0f, -17.33f, -25.0f,
    -0.99999994f, -1.0000001f, 0.41421354f, -0.29289323f, 0.70710677f,
    1.4142135f, 10.0546f, 10.06f, 10.25f, 10.3f, -10.3f, -13.0f, -14.5f,
    -20.0f, 1e20f, -1e20f, 0x1.fffffep+62f, 16777216.0f};
#define NSPECIAL ((int)(sizeof kSpecial / sizeof kSpecial[0]))

static void check_specials(const vm_case *c, int path) {
  float y[NSPECIAL];
  c->f(kSpecial, y, NSPECIAL);
  for (int i = 0; i < NSPECIAL; i++) {
    float x = kSpecial[i];
    double ref = c->ref(x);
    /* outside the swept range subnormal results may be off by |x|
     * units of 2^-149 (vmath.h) */
    double bound = c->bound[path] + (c->slack ? c->slack(x) : 0);
    if (fabs(ref) < FLT_MIN) bound += fabs(x);
    double e = ulp_error(y[i], ref);
    int ok = e <= bound;
    if ((float)ref == 0.0f && ref == 0.0 && y[i] == 0.0f)
      ok = ok && !signbit(y[i]) == !signbit(ref);
    if (!ok)
      fprintf(stderr, "\n  %s %s(%a) = %a, want %a", kPath[path], c->name, x,
              y[i], ref);
    CU_ASSERT_TRUE(ok);
  }
}

static void test_specials(void) {
  for (int p = 0; p < 3; p++) {
    if (tu_isa_unavailable(kIsa[p])) continue;
    tfs_cpu__set_max_isa(kIsa[p]);
    for (int k = 0; k < NCASES; k++) check_specials(&kCases[k], p);
    tfs_cpu__set_max_isa(-1);
  }
}

/* ---- tails, alignment, in place ------------------------------------------ */

#define TAIL_MAX 33
#define TAIL_BASE 48

/* A result does not depend on where its element falls (vector body or
 * tail) or on alignment; nothing outside [0, n) is written. */
static void check_tails(const vm_case *c) {
  float xs[TAIL_BASE], base[TAIL_BASE];
  uint32_t seed = 12345;
  for (int i = 0; i < TAIL_BASE; i++) {
    seed = seed * 1664525u + 1013904223u;
    xs[i] = ((float)(seed >> 8) / 16777216.0f - 0.5f) * 24.0f;
  }
  c->f(xs, base, TAIL_BASE);
  float src[TAIL_MAX + 8], dst[TAIL_MAX + 8];
  const float guard = -7.25f;
  int bad = 0;
  for (int off = 0; off < 4; off++)
    for (int n = 0; n <= TAIL_MAX; n++)
      for (int inplace = 0; inplace < 2; inplace++) {
        for (int i = 0; i < TAIL_MAX + 8; i++) dst[i] = guard;
        float *in = inplace ? dst + off : src + off;
        memcpy(in, xs, sizeof(float) * (size_t)n);
        c->f(in, dst + off, n);
        for (int i = 0; i < TAIL_MAX + 8; i++) {
          int inside = i >= off && i < off + n;
          float want = inside ? base[i - off] : guard;
          if (memcmp(&dst[i], &want, sizeof want) != 0 && bad++ < 3)
            fprintf(stderr, "\n  %s n=%d off=%d inplace=%d: [%d] %a != %a",
                    c->name, n, off, inplace, i, dst[i], want);
        }
      }
  CU_ASSERT_EQUAL(bad, 0);
}

static void test_tails(void) {
  for (int p = 0; p < 3; p++) {
    if (tu_isa_unavailable(kIsa[p])) continue;
    tfs_cpu__set_max_isa(kIsa[p]);
    for (int k = 0; k < NCASES; k++) check_tails(&kCases[k]);
    tfs_cpu__set_max_isa(-1);
  }
}

/* Sigmoid, swish and gelu_tanh take a one-product exp scaling on AVX2
 * for 32-float blocks whose every |x| is within the bound where exp's
 * result stays normal (86, 9 for gelu_tanh): such blocks, blocks at the
 * bound's edge, blocks with one lane beyond it and blocks where NaN lanes
 * sit beside an infinite one give, bit for bit, what each element gives
 * alone (the general loop). */
static void check_fast_block(const vm_case *c, const float *xs,
                             const char *what) {
  float y[32], one;
  int bad = 0;
  c->f(xs, y, 32);
  for (int i = 0; i < 32; i++) {
    c->f(&xs[i], &one, 1);
    int same = isnan(one) ? isnan(y[i]) : !memcmp(&one, &y[i], sizeof one);
    if (!same && bad++ < 3)
      fprintf(stderr, "\n  %s %s: f(%a) = %a in the block, %a alone",
              c->name, what, xs[i], y[i], one);
  }
  CU_ASSERT_EQUAL(bad, 0);
}

static void fast_blocks_for(const vm_case *c, float bound) {
  float xs[32];
  uint32_t seed = 777;
  for (int i = 0; i < 32; i++) {
    seed = seed * 1664525u + 1013904223u;
    xs[i] = ((float)(seed >> 8) / 16777216.0f * 2.0f - 1.0f) * bound;
  }
  check_fast_block(c, xs, "within");
  for (int i = 0; i < 32; i++)
    xs[i] = (i & 1 ? -1.0f : 1.0f) * (bound - 0x1p-10f * (float)(i / 2));
  xs[0] = -bound;
  xs[1] = bound;
  check_fast_block(c, xs, "edge");
  for (int i = 0; i < 32; i++)
    xs[i] = -(bound + (104.0f - bound) * (float)i / 31.0f);
  check_fast_block(c, xs, "beyond");
  for (int i = 0; i < 32; i++) xs[i] = -bound * (float)i / 32.0f;
  xs[17] = nextafterf(-bound, -INFINITY) - 1.5f;
  check_fast_block(c, xs, "one lane beyond");
  for (int i = 0; i < 32; i++) xs[i] = i & 1 ? NAN : -NAN;
  xs[8] = -INFINITY;
  xs[31] = INFINITY;
  check_fast_block(c, xs, "infinities among NaNs");
}

static void test_fast_blocks(void) {
  for (int p = 0; p < 3; p++) {
    if (tu_isa_unavailable(kIsa[p])) continue;
    tfs_cpu__set_max_isa(kIsa[p]);
    for (int k = 0; k < NCASES; k++) {
      const char *n = kCases[k].name;
      if (!strcmp(n, "sigmoid") || !strcmp(n, "swish"))
        fast_blocks_for(&kCases[k], 86.0f);
      else if (!strcmp(n, "gelu_tanh"))
        fast_blocks_for(&kCases[k], 9.0f);
    }
    tfs_cpu__set_max_isa(-1);
  }
}

/* Paths agree: each result within the two paths' bounds of the other. */
static void test_paths_agree(void) {
  enum { N = 2000 };
  static float xs[N], y[3][N];
  for (int i = 0; i < N; i++) xs[i] = -30.0f + 60.0f * (float)i / N;
  for (int k = 0; k < NCASES; k++) {
    int have[3];
    for (int p = 0; p < 3; p++) {
      have[p] = !tu_isa_unavailable(kIsa[p]);
      if (!have[p]) continue;
      tfs_cpu__set_max_isa(kIsa[p]);
      kCases[k].f(xs, y[p], N);
      tfs_cpu__set_max_isa(-1);
    }
    for (int p = 0; p < 2; p++) {
      if (!have[p]) continue;
      int bad = 0;
      for (int i = 0; i < N; i++) {
        if (xs[i] < kCases[k].lo) continue;
        double d = ulp_error(y[p][i], y[2][i]);
        if (d > kCases[k].bound[p] + kCases[k].bound[2] +
                    (kCases[k].slack ? 2 * kCases[k].slack(xs[i]) : 0))
          bad++;
      }
      CU_ASSERT_EQUAL(bad, 0);
    }
  }
}

/* tfs_vm_map16: blocks of 256 and a partial one, in place too */
static void test_map16(void) {
  enum { N = 600 };
  static uint16_t h[N], o[N];
  static float f[N], g[N];
  for (int bf = 0; bf < 2; bf++) {
    for (int i = 0; i < N; i++) {
      float v = -8.0f + 16.0f * (float)i / N;
      h[i] = bf ? tfs_float_to_bf16(v) : tfs_float_to_half(v);
      f[i] = bf ? tfs_bf16_to_float(h[i]) : tfs_half_to_float(h[i]);
    }
    tfs_vm_tanh_f32(f, g, N);
    tfs_vm_map16(tfs_vm_tanh_f32, h, o, N, bf);
    tfs_vm_map16(tfs_vm_tanh_f32, h, h, N, bf);
    int bad = 0;
    for (int i = 0; i < N; i++) {
      uint16_t want = bf ? tfs_float_to_bf16(g[i]) : tfs_float_to_half(g[i]);
      bad += o[i] != want || h[i] != want;
    }
    CU_ASSERT_EQUAL(bad, 0);
  }
}

/* ---- kernels end to end -------------------------------------------------- */

static const mt_op kExpOp = {"Exp", -1, NULL, NULL};

/* Runs f on every path this CPU has. */
static void on_each_path(void (*f)(void)) {
  for (int p = 0; p < 3; p++) {
    if (tu_isa_unavailable(kIsa[p])) continue;
    tfs_cpu__set_max_isa(kIsa[p]);
    f();
    tfs_cpu__set_max_isa(-1);
  }
}

static const double kVals[] = {-100, -20, -3.5, -1, -0.25, -1e-6, 0,
                               1e-6, 0.3,  1,   2.5,  9,   30, 80};
#define NVALS ((int)(sizeof kVals / sizeof kVals[0]))

/* op over kVals (float, and half when tol16 > 0) against ref */
static void unary_case(const char *op, double (*ref)(double), double tol,
                       double tol16) {
  mt_op o = {op, -1, NULL, NULL};
  double want[NVALS];
  for (int i = 0; i < NVALS; i++) want[i] = ref(kVals[i]);
  tfs_tensor *x = mt_t(TFS_FLOAT, 1, MT_DIMS(NVALS), kVals);
  tfs_tensor *y = mt_eval(&o, &x, 1);
  mt_expect(y, TFS_FLOAT, 1, MT_DIMS(NVALS), want, tol);
  tfs_tensor_free(y);
  tfs_tensor_free(x);
  if (tol16 <= 0) return;
  double small[NVALS];
  for (int i = 0; i < NVALS; i++) {
    small[i] = kVals[i] < -9 ? -9 : (kVals[i] > 9 ? 9 : kVals[i]);
    want[i] = ref(tfs_half_to_float(tfs_float_to_half((float)small[i])));
  }
  x = mt_t(TFS_HALF, 1, MT_DIMS(NVALS), small);
  y = mt_eval(&o, &x, 1);
  mt_expect(y, TFS_HALF, 1, MT_DIMS(NVALS), want, tol16);
  tfs_tensor_free(y);
  tfs_tensor_free(x);
}

static double r_selu(double x) {
  return x < 0 ? 1.0507009873554805 * 1.6732632423543772 * expm1(x)
               : 1.0507009873554805 * x;
}
static double r_softplus(double x) {
  return x > 13.94 ? x : (x < -13.94 ? exp(x) : log1p(exp(x)));
}

static void unary_ops(void) {
  unary_case("Exp", exp, 1e-6, 1e-3);
  unary_case("Expm1", expm1, 1e-6, 1e-3);
  unary_case("Tanh", tanh, 1e-6, 1e-3);
  unary_case("Sigmoid", r_sigmoid, 1e-6, 1e-3);
  unary_case("Erf", erf, 1e-6, 1e-3);
  unary_case("Erfc", erfc, 1e-6, 0);
  unary_case("Elu", r_elu, 1e-6, 1e-3);
  unary_case("Selu", r_selu, 1e-6, 1e-3);
  unary_case("Softplus", r_softplus, 1e-6, 0);
}

static void test_unary_ops(void) { on_each_path(unary_ops); }

static void test_log_ops(void) {
  static const double v[] = {0, 1e-30, 0.5, 1, 2, 1e10, INFINITY, -1, NAN};
  static const double lv[] = {-INFINITY, -69.07755278982137,
                              -0.6931471805599453, 0, 0.6931471805599453,
                              23.025850929940457, INFINITY, NAN, NAN};
  tfs_tensor *x = mt_t(TFS_FLOAT, 1, MT_DIMS(9), v);
  mt_op o = {"Log", -1, NULL, NULL};
  tfs_tensor *y = mt_eval(&o, &x, 1);
  mt_expect(y, TFS_FLOAT, 1, MT_DIMS(9), lv, 1e-6);
  tfs_tensor_free(y);
  o.op = "Log1p";
  double want[9];
  for (int i = 0; i < 9; i++) want[i] = log1p(v[i]);
  y = mt_eval(&o, &x, 1);
  mt_expect(y, TFS_FLOAT, 1, MT_DIMS(9), want, 1e-6);
  tfs_tensor_free(y);
  tfs_tensor_free(x);
  /* bfloat16 through float blocks */
  x = mt_t(TFS_BFLOAT16, 1, MT_DIMS(3), MT_VALS(1, 2, 4));
  y = mt_eval(&kExpOp, &x, 1);
  mt_expect(y, TFS_BFLOAT16, 1, MT_DIMS(3),
            MT_VALS(2.71875, 7.375, 54.5), 1e-6);
  tfs_tensor_free(y);
  tfs_tensor_free(x);
}

/* Softmax and LogSoftmax rows of several lengths against double */
static void softmax_rows(void) {
  /* 1100: past the 64 vectors after which the vector paths carry their
   * float partial sums into the double */
  static const int64_t lens[] = {1, 7, 16, 33, 300, 1100};
  for (int li = 0; li < 6; li++) {
    int64_t n = lens[li], rows = 3;
    double *v = malloc(sizeof(double) * (size_t)(n * rows));
    double *s = malloc(sizeof(double) * (size_t)(n * rows));
    double *l = malloc(sizeof(double) * (size_t)(n * rows));
    for (int64_t r = 0; r < rows; r++) {
      double mx = -INFINITY, sum = 0;
      for (int64_t i = 0; i < n; i++) {
        double x = (double)(float)(sin((double)(i * 7 + r)) * 12.0);
        v[r * n + i] = x;
        mx = x > mx ? x : mx;
      }
      for (int64_t i = 0; i < n; i++) sum += exp(v[r * n + i] - mx);
      for (int64_t i = 0; i < n; i++) {
        s[r * n + i] = exp(v[r * n + i] - mx) / sum;
        l[r * n + i] = v[r * n + i] - mx - log(sum);
      }
    }
    tfs_tensor *x = mt_t(TFS_FLOAT, 2, MT_DIMS(rows, n), v);
    mt_op o = {"Softmax", -1, NULL, NULL};
    tfs_tensor *y = mt_eval(&o, &x, 1);
    mt_expect(y, TFS_FLOAT, 2, MT_DIMS(rows, n), s, 1e-6);
    tfs_tensor_free(y);
    o.op = "LogSoftmax";
    y = mt_eval(&o, &x, 1);
    mt_expect(y, TFS_FLOAT, 2, MT_DIMS(rows, n), l, 1e-5);
    tfs_tensor_free(y);
    tfs_tensor_free(x);
    free(v);
    free(s);
    free(l);
  }
  /* a NaN poisons its row only; -inf entries get 0 */
  tfs_tensor *x = mt_t(TFS_FLOAT, 2, MT_DIMS(2, 3),
                       MT_VALS(1, NAN, 2, -INFINITY, 0, -INFINITY));
  mt_op o = {"Softmax", -1, NULL, NULL};
  tfs_tensor *y = mt_eval(&o, &x, 1);
  mt_expect(y, TFS_FLOAT, 2, MT_DIMS(2, 3), MT_VALS(NAN, NAN, NAN, 0, 1, 0),
            0);
  tfs_tensor_free(y);
  tfs_tensor_free(x);
}

static void test_softmax(void) { on_each_path(softmax_rows); }

/* tfs_vm_exp_shifted_sum_f32 on this path: the exponentials bit for bit
 * tfs_vm_exp_f32's of the float differences (in place too), their sum
 * within 1e-6 of the double sum of them, at lengths around the vectors,
 * the tails and the 64-vector blocks; a NaN makes the sum NaN. */
static void exp_shifted_sums(void) {
  static const int64_t lens[] = {0,   1,    5,    8,    15,   16,  17,
                                 31,  33,   100,  127,  128,  129, 511,
                                 512, 513,  1023, 1024, 1025, 1100, 2100};
  const int64_t cap = 2100;
  float *x = malloc(sizeof(float) * cap), *d = malloc(sizeof(float) * cap);
  float *want = malloc(sizeof(float) * cap), *y = malloc(sizeof(float) * cap);
  for (int64_t i = 0; i < cap; i++)
    x[i] = (float)(sin((double)i * 0.37) * 9.0);
  const float shift = 2.5f;
  for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++) {
    int64_t n = lens[li];
    for (int64_t i = 0; i < n; i++) d[i] = x[i] - shift;
    tfs_vm_exp_f32(d, want, n);
    double ref = 0;
    for (int64_t i = 0; i < n; i++) ref += want[i];
    for (int inplace = 0; inplace < 2; inplace++) {
      float *out = inplace ? d : y;
      if (inplace) memcpy(d, x, sizeof(float) * (size_t)n);
      double sum = tfs_vm_exp_shifted_sum_f32(inplace ? d : x, out, n, shift);
      int same = n == 0 || memcmp(out, want, sizeof(float) * (size_t)n) == 0;
      if (!same || !(fabs(sum - ref) <= 1e-6 * ref))
        fprintf(stderr, "\n  exp_shifted_sum n=%lld in place %d: %s, sum %.9g "
                "want %.9g\n", (long long)n, inplace,
                same ? "same" : "values differ", sum, ref);
      CU_ASSERT_TRUE(same);
      CU_ASSERT_TRUE(fabs(sum - ref) <= 1e-6 * ref);
    }
  }
  x[1050] = NAN;
  CU_ASSERT_TRUE(isnan(tfs_vm_exp_shifted_sum_f32(x, y, 1100, shift)));
  CU_ASSERT_TRUE(isnan(y[1050]));
  free(x);
  free(d);
  free(want);
  free(y);
}

static void test_exp_shifted_sum(void) { on_each_path(exp_shifted_sums); }

/* tfs_vm_softmax_f32 and tfs_vm_softmax_bf16 on each path: the bits of
 * their composition (tfs_row_max_f32, tfs_vm_exp_shifted_sum_f32, the
 * scale by (float)(1 / sum); for bfloat16 the row widened before and
 * each value rounded after), in place too, at lengths around the
 * vectors, the tails and the 64-vector blocks; a row with a NaN, with
 * -inf entries, of only -inf, with +inf, with a 0 maximum of either sign,
 * of subnormals, and of negative numbers only (every element of a NaN
 * row NaN, which NaN not compared), alone and as the middle of three
 * rows (a pair and a last row). */

/* 1 when a and b hold the same bits, or both NaN (which NaN a NaN row
 * gives is not specified) */
static int same_or_nan(const float *a, const float *b, int64_t n) {
  for (int64_t i = 0; i < n; i++)
    if (memcmp(&a[i], &b[i], sizeof(float)) != 0 &&
        !(isnan(a[i]) && isnan(b[i])))
      return 0;
  return 1;
}

static int same_or_nan16(const uint16_t *a, const uint16_t *b, int64_t n) {
  for (int64_t i = 0; i < n; i++)
    if (a[i] != b[i] &&
        !((a[i] & 0x7fff) > 0x7f80 && (b[i] & 0x7fff) > 0x7f80))
      return 0;
  return 1;
}

static void softmax_row(const float *x, float *want, int64_t n) {
  double sum = tfs_vm_exp_shifted_sum_f32(x, want, n, tfs_row_max_f32(x, n));
  for (int64_t i = 0; i < n; i++) want[i] *= (float)(1.0 / sum);
}

/* Row r of a case: the variant v in row 1 (row 0 alone with one row),
 * plain values in rows 0 and 2. */
static void softmax_case_row(float *x, int64_t n, int v, int r) {
  for (int64_t i = 0; i < n; i++)
    x[i] = (float)(sin((double)i * 0.37 + v + 3 * r) * 9.0);
  if (v == 1) x[n / 2] = -NAN;
  if (v == 2) x[0] = x[n - 1] = -INFINITY;
  if (v == 3)
    for (int64_t i = 0; i < n; i++) x[i] = -INFINITY;
  if (v == 4) x[n - 1] = INFINITY;
  if (v == 5 || v == 6 || v == 8) /* below 0: the tail's empty lanes are
                                     no maximum */
    for (int64_t i = 0; i < n; i++) x[i] = -fabsf(x[i]) - 1.0f;
  if (v == 5) x[n / 3] = 0.0f;
  if (v == 6) x[n / 3] = -0.0f;
  if (v == 7)
    for (int64_t i = 0; i < n; i++) x[i] = (float)(i % 7) * 0x1p-140f;
}

static void softmax_fused(void) {
  static const int64_t lens[] = {1,   5,   15,  16,   17,   31,   32,  33,
                                 127, 128, 129, 1023, 1024, 1025, 1100};
  enum { CAP = 3 * 1100, SPECIALS = 8 };
  float *x = malloc(sizeof(float) * CAP), *want = malloc(sizeof(float) * CAP);
  float *y = malloc(sizeof(float) * CAP), *tmp = malloc(sizeof(float) * CAP);
  uint16_t *h = malloc(sizeof(uint16_t) * CAP);
  uint16_t *hy = malloc(sizeof(uint16_t) * CAP);
  uint16_t *hw = malloc(sizeof(uint16_t) * CAP);
  int bad = 0;
  for (int v = 0; v <= SPECIALS; v++)
    for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++)
      for (int64_t rows = 1; rows <= 3; rows += 2) { /* pairs and a last */
        const int64_t n = lens[li], all = rows * n;
        for (int64_t r = 0; r < rows; r++) {
          softmax_case_row(x + r * n, n, rows == 1 || r == 1 ? v : 0, (int)r);
          softmax_row(x + r * n, want + r * n, n);
        }
        tfs_vm_softmax_f32(x, y, rows, n);
        int same = same_or_nan(y, want, all);
        memcpy(y, x, sizeof(float) * (size_t)all);
        tfs_vm_softmax_f32(y, y, rows, n);
        same &= same_or_nan(y, want, all);
        /* bfloat16: the rows rounded to bfloat16 first */
        tfs_bf16_from_f32(x, h, all);
        tfs_bf16_to_f32(h, tmp, all);
        for (int64_t r = 0; r < rows; r++)
          softmax_row(tmp + r * n, want + r * n, n);
        tfs_bf16_from_f32(want, hw, all);
        tfs_vm_softmax_bf16(h, hy, rows, n, tmp);
        int same16 = same_or_nan16(hy, hw, all);
        memcpy(hy, h, sizeof(uint16_t) * (size_t)all);
        tfs_vm_softmax_bf16(hy, hy, rows, n, tmp);
        same16 &= same_or_nan16(hy, hw, all);
        if ((!same || !same16) && bad++ < 5)
          fprintf(stderr, "\n  softmax n=%lld rows %lld variant %d: float "
                  "%s, bfloat16 %s", (long long)n, (long long)rows, v,
                  same ? "same" : "differs", same16 ? "same" : "differs");
        CU_ASSERT_TRUE(same);
        CU_ASSERT_TRUE(same16);
        if (v == 1) { /* its row NaN, the others not */
          const float *nr = y + (rows == 1 ? 0 : n);
          CU_ASSERT_TRUE(isnan(nr[0]) && isnan(nr[n - 1]));
          if (rows == 3) CU_ASSERT_FALSE(isnan(y[0]) || isnan(y[2 * n]));
        }
      }
  /* -inf entries give 0 */
  x[0] = 1.0f, x[1] = 0.0f, x[2] = -INFINITY, x[3] = 2.0f;
  tfs_vm_softmax_f32(x, y, 1, 4);
  CU_ASSERT_TRUE(y[2] == 0.0f && fabs(y[0] + y[1] + y[3] - 1.0) < 1e-6);
  free(x), free(want), free(y), free(tmp), free(h), free(hy), free(hw);
}

static void test_softmax_fused(void) {
  for (int p = 0; p < 3; p++) {
    const char *why = tu_isa_unavailable(kIsa[p]);
    tu_cpu_path("softmax-row", kPath[p], why);
    if (why) continue;
    tfs_cpu__set_max_isa(kIsa[p]);
    softmax_fused();
    tfs_cpu__set_max_isa(-1);
  }
}

/* ---- _FusedMatMul's activations, _TfsGelu, _TfsSwish --------------------- */

typedef struct fused_arg {
  const char *act;
} fused_arg;

static void set_fused(tfs_op_desc *d, const void *arg) {
  const fused_arg *a = arg;
  const void *ops[2] = {"BiasAdd", a->act};
  size_t lens[2] = {7, strlen(a->act)};
  tfs_op_desc_set_attr_string_list(d, "fused_ops", ops, lens, 2);
}

static double act_ref(const char *act, double x) {
  if (!strcmp(act, "Tanh")) return tanh(x);
  if (!strcmp(act, "Sigmoid")) return r_sigmoid(x);
  if (!strcmp(act, "Elu")) return r_elu(x);
  if (!strcmp(act, "_MklSwish")) return r_swish(x);
  if (!strcmp(act, "GeluApproximate"))
    return 0.5 * x * (1 + tanh(sqrt(2 / M_PI) * (x + 0.044715 * x * x * x)));
  return r_gelu_erf(x); /* GeluExact */
}

/* [3 x 4] x [4 x 21] + bias, then act, against double */
static void fused_matmul_act(const char *act) {
  enum { M = 3, K = 4, N = 21 };
  double a[M * K], b[K * N], bias[N], want[M * N];
  for (int i = 0; i < M * K; i++) a[i] = (double)(float)(0.37 * (i % 7) - 1);
  for (int i = 0; i < K * N; i++) b[i] = (double)(float)(0.21 * (i % 11) - 1);
  for (int i = 0; i < N; i++) bias[i] = (double)(float)(0.1 * i - 1);
  for (int r = 0; r < M; r++)
    for (int c = 0; c < N; c++) {
      double s = bias[c];
      for (int k = 0; k < K; k++) s += a[r * K + k] * b[k * N + c];
      want[r * N + c] = act_ref(act, s);
    }
  tfs_tensor *in[3] = {mt_t(TFS_FLOAT, 2, MT_DIMS(M, K), a),
                       mt_t(TFS_FLOAT, 2, MT_DIMS(K, N), b),
                       mt_t(TFS_FLOAT, 1, MT_DIMS(N), bias)};
  fused_arg fa = {act};
  mt_op o = {"_FusedMatMul", 2, set_fused, &fa};
  tfs_tensor *y = mt_eval(&o, in, 3);
  mt_expect(y, TFS_FLOAT, 2, MT_DIMS(M, N), want, 2e-6);
  tfs_tensor_free(y);
  mt_free_all(in, 3);
}

static void fused_acts(void) {
  static const char *const acts[] = {"Tanh",      "Sigmoid",
                                     "Elu",       "_MklSwish",
                                     "GeluApproximate", "GeluExact"};
  for (int i = 0; i < 6; i++) fused_matmul_act(acts[i]);
}

static void test_fused_matmul_acts(void) {
  on_each_path(fused_acts);
  /* an activation the kernel does not know */
  tfs_tensor *in[3] = {mt_t(TFS_FLOAT, 2, MT_DIMS(1, 1), MT_VALS(1)),
                       mt_t(TFS_FLOAT, 2, MT_DIMS(1, 1), MT_VALS(1)),
                       mt_t(TFS_FLOAT, 1, MT_DIMS(1), MT_VALS(1))};
  fused_arg fa = {"Gelu"};
  mt_op o = {"_FusedMatMul", 2, set_fused, &fa};
  const char *msg;
  CU_ASSERT_EQUAL(mt_eval_fail(&o, in, 3, &msg), TFS_UNIMPLEMENTED);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "Fusion is not implemented: "
                                     "[BiasAdd,Gelu]"));
  mt_free_all(in, 3);
}

static void set_approximate(tfs_op_desc *d, const void *arg) {
  tfs_op_desc_set_attr_bool(d, "approximate", *(const int *)arg);
}

static void gelu_ops(void) {
  for (int approx = 0; approx < 2; approx++) {
    double want[NVALS];
    for (int i = 0; i < NVALS; i++)
      want[i] = approx ? r_gelu_tanh(kVals[i]) : r_gelu_erf(kVals[i]);
    mt_op o = {"_TfsGelu", -1, set_approximate, &approx};
    static const tfs_dtype dts[3] = {TFS_FLOAT, TFS_DOUBLE, TFS_HALF};
    static const double tols[3] = {1e-6, 1e-14, 2e-3};
    for (int d = 0; d < 3; d++) {
      double v[NVALS], w[NVALS];
      for (int i = 0; i < NVALS; i++) {
        v[i] = dts[d] == TFS_HALF && fabs(kVals[i]) > 9 ? 0 : kVals[i];
        w[i] = v[i] == kVals[i] ? want[i] : 0;
      }
      tfs_tensor *x = mt_t(dts[d], 1, MT_DIMS(NVALS), v);
      tfs_tensor *y = mt_eval(&o, &x, 1);
      mt_expect(y, dts[d], 1, MT_DIMS(NVALS), w, tols[d]);
      tfs_tensor_free(y);
      tfs_tensor_free(x);
    }
  }
  /* the default is the exact form */
  mt_op o = {"_TfsGelu", -1, NULL, NULL};
  tfs_tensor *x = mt_t(TFS_FLOAT, 1, MT_DIMS(2), MT_VALS(-1, 1));
  tfs_tensor *y = mt_eval(&o, &x, 1);
  mt_expect(y, TFS_FLOAT, 1, MT_DIMS(2),
            MT_VALS(r_gelu_erf(-1), r_gelu_erf(1)), 1e-6);
  tfs_tensor_free(y);
  /* _TfsSwish */
  o.op = "_TfsSwish";
  y = mt_eval(&o, &x, 1);
  mt_expect(y, TFS_FLOAT, 1, MT_DIMS(2), MT_VALS(r_swish(-1), r_swish(1)),
            1e-6);
  tfs_tensor_free(y);
  tfs_tensor_free(x);
  /* bfloat16 (auto mixed precision's): the function of the rounded input
   * in float, one rounding */
  static const char *const k16[3] = {"_TfsSwish", "_TfsHardSwish",
                                     "_TfsGelu"};
  for (int f = 0; f < 3; f++) {
    double v[NVALS], w[NVALS];
    for (int i = 0; i < NVALS; i++) {
      double r = tfs_bf16_to_float(tfs_float_to_bf16((float)kVals[i]));
      double h = r + 3 < 0 ? 0 : r + 3 > 6 ? 6 : r + 3;
      v[i] = kVals[i];
      w[i] = f == 0 ? r_swish(r) : f == 1 ? r * h / 6 : r_gelu_erf(r);
    }
    mt_op o16 = {k16[f], -1, NULL, NULL};
    x = mt_t(TFS_BFLOAT16, 1, MT_DIMS(NVALS), v);
    y = mt_eval(&o16, &x, 1);
    mt_expect(y, TFS_BFLOAT16, 1, MT_DIMS(NVALS), w, 4e-3);
    tfs_tensor_free(y);
    tfs_tensor_free(x);
  }
}

static void test_gelu_swish_ops(void) { on_each_path(gelu_ops); }

/* The piecewise-linear epilogues (tfs_fused_rows_f32) on every path:
 * each activation with and without scale and shift, every width up to
 * 40 (tails), rows with padding that must stay untouched, and NaN, +-0,
 * +-inf and values around 0 and 6 against the scalar formulas. */
static float epi_ref(int act, float x, float alpha) {
  switch (act) {
    case TFS_FA_RELU:
      return x > 0 ? x : (x != x ? x : 0.0f);
    case TFS_FA_RELU6:
      return x > 0 ? (x > 6.0f ? 6.0f : x) : (x != x ? x : 0.0f);
    case TFS_FA_LEAKY_RELU:
      return x > 0 ? x : alpha * x;
    default:
      return x;
  }
}

static int same_float(float a, float b) {
  if (a != a || b != b) return a != a && b != b;
  return memcmp(&a, &b, sizeof a) == 0;
}

static void test_epilogue_rows(void) {
  static const int acts[] = {TFS_FA_NONE, TFS_FA_RELU, TFS_FA_RELU6,
                             TFS_FA_LEAKY_RELU};
  static const float specials[] = {NAN, 0.0f, -0.0f, INFINITY, -INFINITY,
                                   6.0f, 5.999f, 6.001f, -1e-30f, 1e-30f};
  enum { ROWS = 3, LD = 48 };
  float buf[ROWS * LD], in[ROWS * LD], scale[LD], shift[LD];
  int bad = 0;
  for (int p = 0; p < 3; p++) {
    const char *why = tu_isa_unavailable(kIsa[p]);
    tu_cpu_path("epilogue", kPath[p], why);
    if (why) continue;
    tfs_cpu__set_max_isa(kIsa[p]);
    for (int a = 0; a < 4; a++)
      for (int v = 0; v < 4; v++)
        for (int64_t ch = 1; ch <= 40; ch++) {
          for (int i = 0; i < ROWS * LD; i++)
            in[i] = i % 7 == 0 ? specials[(i / 7) % 10]
                               : (float)((i * 37) % 29 - 14) * 0.53f;
          for (int j = 0; j < LD; j++) {
            scale[j] = 0.5f + 0.01f * (float)j;
            shift[j] = (float)(j % 5) - 2.0f;
          }
          memcpy(buf, in, sizeof buf);
          const float *sc = v & 2 ? scale : NULL, *sh = v & 1 ? shift : NULL;
          tfs_fused_rows_f32(acts[a], 0.2f, buf, ROWS, ch, LD, sc, sh);
          for (int r = 0; r < ROWS; r++)
            for (int j = 0; j < LD; j++) {
              float x = in[r * LD + j], got = buf[r * LD + j];
              if (j >= ch) {
                bad += !same_float(got, x); /* padding untouched */
                continue;
              }
              /* one rounding (fused) or two: both are accepted when a
               * scale and a shift meet, exactly otherwise */
              float two = x, one = x;
              if (sc) two = two * sc[j];
              if (sh) two = two + sh[j];
              if (sc && sh) one = fmaf(x, sc[j], sh[j]);
              else one = two;
              float w1 = epi_ref(acts[a], two, 0.2f);
              float w2 = epi_ref(acts[a], one, 0.2f);
              if (!same_float(got, w1) && !same_float(got, w2)) {
                if (bad < 5)
                  fprintf(stderr, "\n  %s act %d v %d ch %lld [%d,%d]: "
                          "%g -> %g, want %g\n", kPath[p], acts[a], v,
                          (long long)ch, r, j, x, got, w1);
                bad++;
              }
            }
        }
    tfs_cpu__set_max_isa(-1);
  }
  CU_ASSERT_EQUAL(bad, 0);
}

/* A residual addend's rows (tfs_fused_add_rows_f32) on every path:
 * act(x + a) bit for bit, one rounding for the sum, at every width up to
 * 40 (tails) with the rows and the addend at different strides, NaN,
 * +-inf and +-0 among the values, the columns past the width untouched. */
static void test_epilogue_add_rows(void) {
  static const int acts[] = {TFS_FA_NONE, TFS_FA_RELU, TFS_FA_RELU6,
                             TFS_FA_LEAKY_RELU};
  static const float specials[] = {NAN, 0.0f, -0.0f, INFINITY, -INFINITY,
                                   6.0f, -6.0f, 1e-30f};
  enum { ROWS = 3, LD = 48, ALD = 45 };
  float buf[ROWS * LD], in[ROWS * LD], add[ROWS * ALD];
  int bad = 0;
  for (int i = 0; i < ROWS * LD; i++)
    in[i] = i % 9 == 0 ? specials[(i / 9) % 8]
                       : (float)((i * 37) % 29 - 14) * 0.53f;
  for (int i = 0; i < ROWS * ALD; i++)
    add[i] = i % 11 == 0 ? specials[(i / 11) % 8]
                         : (float)((i * 13) % 31 - 15) * 0.29f;
  for (int p = 0; p < 3; p++) {
    const char *why = tu_isa_unavailable(kIsa[p]);
    tu_cpu_path("epilogue-add", kPath[p], why);
    if (why) continue;
    tfs_cpu__set_max_isa(kIsa[p]);
    for (int a = 0; a < 4; a++)
      for (int64_t ch = 1; ch <= 40; ch++) {
        memcpy(buf, in, sizeof buf);
        tfs_fused_add_rows_f32(acts[a], 0.2f, buf, ROWS, ch, LD, add, ALD);
        for (int r = 0; r < ROWS; r++)
          for (int j = 0; j < LD; j++) {
            float x = in[r * LD + j], got = buf[r * LD + j];
            float want = j >= ch ? x
                                 : epi_ref(acts[a], x + add[r * ALD + j],
                                           0.2f);
            if (!same_float(got, want)) {
              if (bad < 5)
                fprintf(stderr, "\n  %s act %d ch %lld [%d,%d]: %g -> %g, "
                        "want %g\n", kPath[p], acts[a], (long long)ch, r, j,
                        x, got, want);
              bad++;
            }
          }
      }
    tfs_cpu__set_max_isa(-1);
  }
  CU_ASSERT_EQUAL(bad, 0);
}

/* Hard-swish (tfs_fused_hard_swish_f32) on every path: bit for bit the
 * scalar formula TensorFlow's graph computes, x * (relu6(x + 3) * (1/6)),
 * at every length up to 40 (tails), in place too, with NaN, +-inf, +-0
 * and the corners -3 and 3. */
static float hard_swish_ref(float v) {
  volatile float t = v + 3.0f; /* no contraction, no reassociation */
  float r = t < 0.0f ? 0.0f : t;
  r = r > 6.0f ? 6.0f : r;
  volatile float q = r * (1.0f / 6.0f);
  return v * q;
}

static void test_hard_swish(void) {
  static const float specials[] = {NAN,   0.0f,  -0.0f, INFINITY, -INFINITY,
                                   -3.0f, 3.0f,  -2.999f, 2.999f, -1e-30f};
  enum { N = 40 };
  float in[N], out[N];
  int bad = 0;
  for (int p = 0; p < 3; p++) {
    const char *why = tu_isa_unavailable(kIsa[p]);
    tu_cpu_path("hard-swish", kPath[p], why);
    if (why) continue;
    tfs_cpu__set_max_isa(kIsa[p]);
    for (int n = 0; n <= N; n++) {
      for (int inplace = 0; inplace < 2; inplace++) {
        for (int i = 0; i < N; i++)
          in[i] = i % 4 == 0 ? specials[(i / 4 + n) % 10]
                             : (float)((i * 37 + n) % 29 - 14) * 0.53f;
        memcpy(out, in, sizeof out);
        tfs_fused_hard_swish_f32(inplace ? out : in, out, n);
        for (int i = 0; i < N; i++) {
          float want = i < n ? hard_swish_ref(in[i]) : in[i];
          if (!same_float(out[i], want)) {
            if (bad < 5)
              fprintf(stderr, "\n  %s n %d [%d]: %g -> %g, want %g\n",
                      kPath[p], n, i, in[i], out[i], want);
            bad++;
          }
        }
      }
    }
    tfs_cpu__set_max_isa(-1);
  }
  CU_ASSERT_EQUAL(bad, 0);
}

/* Per-channel scale and shift with Identity, Relu or Relu6
 * (tfs_scale_shift_f32) on every path: bit for bit Mul then Add then the
 * activation (two roundings), every width up to 40 (tails), in place and
 * not, with NaN, +-0, +-inf and values around 0 and 6. */
static float scale_shift_ref(int act, float x, float s, float o) {
  volatile float p = x * s; /* no contraction */
  float v = p + o;
  if (act == TFS_SS_IDENTITY || v != v) return v;
  v = v > 0.0f ? v : 0.0f;
  return act == TFS_SS_RELU6 && v > 6.0f ? 6.0f : v;
}

static void test_scale_shift_rows(void) {
  static const float specials[] = {NAN,   0.0f,    -0.0f,  INFINITY,
                                   -INFINITY, 6.0f, 5.999f, 6.001f,
                                   -1e-30f, 1e-30f};
  enum { ROWS = 3, D = 40 };
  float in[ROWS * D], out[ROWS * D], scale[D], offset[D];
  int bad = 0;
  for (int p = 0; p < 3; p++) {
    const char *why = tu_isa_unavailable(kIsa[p]);
    tu_cpu_path("scale-shift", kPath[p], why);
    if (why) continue;
    tfs_cpu__set_max_isa(kIsa[p]);
    for (int a = 0; a < 3; a++)
      for (int64_t d = 1; d <= D; d++)
        for (int inplace = 0; inplace < 2; inplace++) {
          for (int i = 0; i < ROWS * D; i++)
            in[i] = i % 7 == 0 ? specials[(i / 7 + d) % 10]
                               : (float)((i * 37 + d) % 29 - 14) * 0.53f;
          for (int j = 0; j < D; j++) {
            /* products whose rounding a fused multiply-add would change */
            scale[j] = 1.0f / 3.0f + 0.01f * (float)j;
            offset[j] = (float)(j % 5) - 2.0f + 0.1f;
          }
          memcpy(out, in, sizeof out);
          tfs_scale_shift_f32(a, inplace ? out : in, out, ROWS, d, scale,
                              offset);
          for (int i = 0; i < ROWS * D; i++) {
            float want = i < ROWS * d ? scale_shift_ref(a, in[i],
                                                        scale[i % d],
                                                        offset[i % d])
                                      : in[i]; /* past the rows: kept */
            if (!same_float(out[i], want)) {
              if (bad < 5)
                fprintf(stderr, "\n  %s act %d d %lld [%d]: %a -> %a, want %a\n",
                        kPath[p], a, (long long)d, i, in[i], out[i], want);
              bad++;
            }
          }
        }
    tfs_cpu__set_max_isa(-1);
  }
  CU_ASSERT_EQUAL(bad, 0);
  CU_ASSERT_EQUAL(tfs_scale_shift_act("Relu6"), TFS_SS_RELU6);
  CU_ASSERT_EQUAL(tfs_scale_shift_act("Identity"), TFS_SS_IDENTITY);
  CU_ASSERT_EQUAL(tfs_scale_shift_act("Elu"), -1);
}

/* ---- row_ops.h ------------------------------------------------------------ */

/* References in the documented order; volatile keeps every product and
 * sum rounded to float on compilers that would contract them. */
static double row_sum_ref(const float *x, int64_t n) {
  double s[16] = {0};
  int64_t full = n - n % 16;
  for (int64_t i = 0; i < full; i++) s[i % 16] += x[i];
  double t0 = (s[0] + s[4]) + (s[8] + s[12]);
  double t1 = (s[1] + s[5]) + (s[9] + s[13]);
  double t2 = (s[2] + s[6]) + (s[10] + s[14]);
  double t3 = (s[3] + s[7]) + (s[11] + s[15]);
  for (int64_t i = full; i < n; i++) t0 += x[i];
  return (t0 + t1) + (t2 + t3);
}

static float sum8_ref(const float *x, int64_t n, int sq, float mean) {
  volatile float acc[8] = {0}, s = 0;
  int64_t full = n - n % 8;
  for (int64_t i = 0; i < n; i++) {
    volatile float t = sq ? x[i] - mean : x[i];
    volatile float v = sq ? t * t : t;
    if (i < full)
      acc[i % 8] = acc[i % 8] + v;
    else
      s = s + v;
  }
  volatile float a = acc[0] + acc[4], b = acc[1] + acc[5];
  volatile float c = acc[2] + acc[6], d = acc[3] + acc[7];
  volatile float ab = a + b, cd = c + d, sab = s + ab;
  return sab + cd;
}

static void layer_norm_ref(const float *x, float *y, int64_t d,
                           const float *scale, const float *offset,
                           float eps) {
  float mean = sum8_ref(x, d, 0, 0) / (float)d;
  float var = sum8_ref(x, d, 1, mean) / (float)d;
  float rs = 1.0f / sqrtf(var + eps), nm = -mean;
  for (int64_t i = 0; i < d; i++) {
    volatile float m = rs * scale[i], p = x[i] * m, q = nm * m;
    volatile float c = q + offset[i];
    y[i] = p + c;
  }
}

/* row_ops.h on every path against the references, bit for bit: every
 * length to 72 (each tail after zero to four blocks of 16), NaN and
 * infinities, in place and not. */
static void test_row_ops(void) {
  enum { D = 72, ROWS = 2 };
  float in[ROWS * D], out[ROWS * D], ref[ROWS * D], scale[D], offset[D];
  int bad = 0;
  for (int p = 0; p < 3; p++) {
    const char *why = tu_isa_unavailable(kIsa[p]);
    tu_cpu_path("row-ops", kPath[p], why);
    if (why) continue;
    tfs_cpu__set_max_isa(kIsa[p]);
    for (int64_t n = 0; n <= D; n++)
      for (int v = 0; v < 4; v++) {
        for (int i = 0; i < ROWS * D; i++)
          in[i] = (float)((i * 53 + (int)n * 7) % 41 - 20) * 0.377f +
                  (float)v * 3.1f;
        if (v == 1 && n > 0) in[n - 1] = NAN; /* the last: in a tail */
        if (v == 2 && n > 0) in[n / 2] = INFINITY, in[0] = -INFINITY;
        if (v == 3 && n > 0) in[0] = NAN;
        /* the maximum, NaN winning */
        float mx = -INFINITY;
        int nan = 0;
        for (int64_t i = 0; i < n; i++) {
          nan |= in[i] != in[i];
          if (in[i] > mx) mx = in[i];
        }
        float got = tfs_row_max_f32(in, n);
        bad += nan ? got == got : !same_float(got, mx);
        /* the double sum, subtraction and scaling */
        double sum = tfs_row_sum_f64(in, n), want = row_sum_ref(in, n);
        bad += memcmp(&sum, &want, sizeof sum) != 0 && !(sum != sum &&
                                                         want != want);
        /* exponents 2^-30 .. 2^30 apart: sums in double round, so only
         * the documented order gives these bits */
        float wide[D];
        for (int64_t i = 0; i < n; i++)
          wide[i] = (float)((i * 37 + v) % 11 - 5) *
                    ldexpf(1.0f + (float)i / 64, (int)((i * 13 + v) % 61) - 30);
        sum = tfs_row_sum_f64(wide, n);
        want = row_sum_ref(wide, n);
        bad += memcmp(&sum, &want, sizeof sum) != 0;
        tfs_row_add_f32(in, in + D, out, n);
        for (int64_t i = 0; i < n; i++)
          bad += !same_float(out[i], in[i] + in[D + i]);
        tfs_row_sub_f32(in, out, n, 1.25f);
        for (int64_t i = 0; i < n; i++) bad += !same_float(out[i], in[i] - 1.25f);
        memcpy(out, in, sizeof out);
        tfs_row_scale_f32(out, n, 0.3f);
        for (int64_t i = 0; i < n; i++) bad += !same_float(out[i], in[i] * 0.3f);
        bad += !same_float(out[n], in[n]); /* past the row: kept */
        /* layer norm of ROWS rows, in place and not */
        if (n == 0) continue;
        for (int j = 0; j < D; j++) {
          scale[j] = 1.0f / 3.0f + 0.01f * (float)j;
          offset[j] = (float)(j % 5) - 2.0f + 0.1f;
        }
        for (int r = 0; r < ROWS; r++)
          layer_norm_ref(in + r * n, ref + r * n, n, scale, offset, 1e-3f);
        for (int inplace = 0; inplace < 2; inplace++) {
          memcpy(out, in, sizeof out);
          tfs_row_layer_norm_f32(inplace ? out : in, out, ROWS, n, scale,
                                 offset, 1e-3f);
          for (int64_t i = 0; i < ROWS * n; i++)
            if (!same_float(out[i], ref[i])) {
              if (bad < 5)
                fprintf(stderr, "\n  %s layer norm d %lld [%lld]: %a, want %a\n",
                        kPath[p], (long long)n, (long long)i, out[i], ref[i]);
              bad++;
            }
          if (n < D) bad += !same_float(out[ROWS * n], in[ROWS * n]);
        }
      }
    tfs_cpu__set_max_isa(-1);
  }
  CU_ASSERT_EQUAL(bad, 0);
}

static void set_activation(tfs_op_desc *d, const void *arg) {
  const char *a = arg;
  tfs_op_desc_set_attr_string(d, "activation", a, strlen(a));
}

/* The op: values on 1 and 2 threads, and its errors. */
static void test_scale_shift_op(void) {
  double xv[12], want[12];
  const double sv[3] = {0.5, -2, 1.0 / 3}, ov[3] = {0.25, 1, -3};
  for (int i = 0; i < 12; i++) {
    xv[i] = (double)(i * 7 % 11) - 5.5;
    float v = scale_shift_ref(TFS_SS_RELU6, (float)xv[i], (float)sv[i % 3],
                              (float)ov[i % 3]);
    want[i] = v;
  }
  tfs_tensor *in[3] = {mt_t(TFS_FLOAT, 3, MT_DIMS(2, 2, 3), xv),
                       mt_t(TFS_FLOAT, 1, MT_DIMS(3), sv),
                       mt_t(TFS_FLOAT, 1, MT_DIMS(3), ov)};
  mt_op o = {"_TfsScaleShift", -1, set_activation, "Relu6"};
  for (int t = 1; t <= 2; t++) {
    mt_set_threads(t);
    tfs_tensor *y = mt_eval(&o, in, 3);
    mt_expect(y, TFS_FLOAT, 3, MT_DIMS(2, 2, 3), want, 0);
    tfs_tensor_free(y);
  }
  mt_set_threads(0);
  const char *msg;
  mt_op bad_act = {"_TfsScaleShift", -1, set_activation, "Elu"};
  CU_ASSERT_EQUAL(mt_eval_fail(&bad_act, in, 3, &msg), TFS_INVALID_ARGUMENT);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "activation"));
  tfs_tensor *short_scale = mt_t(TFS_FLOAT, 1, MT_DIMS(2), sv);
  tfs_tensor *in2[3] = {in[0], short_scale, in[2]};
  CU_ASSERT_EQUAL(mt_eval_fail(&o, in2, 3, &msg), TFS_INVALID_ARGUMENT);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "scale and offset must have 3 elements "
                                     "(the last dimension of x), got 2 and "
                                     "3"));
  tfs_tensor *scalar = mt_scalar(TFS_FLOAT, 1);
  tfs_tensor *in3[3] = {scalar, in[1], in[2]};
  CU_ASSERT_EQUAL(mt_eval_fail(&o, in3, 3, &msg), TFS_INVALID_ARGUMENT);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "x must be at least 1-dimensional, got "
                                     "shape []"));
  tfs_tensor_free(scalar);
  tfs_tensor_free(short_scale);
  for (int i = 0; i < 3; i++) tfs_tensor_free(in[i]);
}

static void set_epsilon(tfs_op_desc *d, const void *arg) {
  tfs_op_desc_set_attr_float(d, "epsilon", *(const float *)arg);
}

/* _TfsLayerNorm on every path and at 1 and 2 threads: within float
 * rounding of a double layer norm, the same bits everywhere (rows of 300,
 * enough for the pool to split), and its shape errors. */
static void test_layer_norm_op(void) {
  enum { R = 64, D = 300 };
  static double xv[R * D], want[R * D], sv[D], ov[D];
  const float eps = 0.01f;
  for (int j = 0; j < D; j++) sv[j] = 0.5 + 0.01 * j, ov[j] = (j % 7) - 3;
  for (int r = 0; r < R; r++) {
    double mean = 0, var = 0;
    for (int j = 0; j < D; j++) {
      xv[r * D + j] = (double)(float)(sin(r * 0.7 + j * 1.3) * (1 + r % 5));
      mean += xv[r * D + j];
    }
    mean /= D;
    for (int j = 0; j < D; j++)
      var += (xv[r * D + j] - mean) * (xv[r * D + j] - mean);
    var /= D;
    for (int j = 0; j < D; j++)
      want[r * D + j] = (xv[r * D + j] - mean) / sqrt(var + eps) * sv[j] +
                        ov[j];
  }
  tfs_tensor *in[3] = {mt_t(TFS_FLOAT, 3, MT_DIMS(2, R / 2, D), xv),
                       mt_t(TFS_FLOAT, 1, MT_DIMS(D), sv),
                       mt_t(TFS_FLOAT, 1, MT_DIMS(D), ov)};
  mt_op o = {"_TfsLayerNorm", -1, set_epsilon, &eps};
  tfs_tensor *first = NULL;
  for (int p = 0; p < 3; p++) {
    if (tu_isa_unavailable(kIsa[p])) continue;
    tfs_cpu__set_max_isa(kIsa[p]);
    for (int t = 1; t <= 2; t++) {
      mt_set_threads(t);
      tfs_tensor *y = mt_eval(&o, in, 3);
      mt_expect(y, TFS_FLOAT, 3, MT_DIMS(2, R / 2, D), want, 1e-5);
      if (!first)
        first = y;
      else {
        CU_ASSERT_EQUAL(memcmp(tfs_tensor_data(y), tfs_tensor_data(first),
                               sizeof(float) * R * D), 0);
        tfs_tensor_free(y);
      }
    }
    tfs_cpu__set_max_isa(-1);
  }
  mt_set_threads(0);
  tfs_tensor_free(first);
  const char *msg;
  tfs_tensor *short_offset = mt_t(TFS_FLOAT, 1, MT_DIMS(2), ov);
  tfs_tensor *in2[3] = {in[0], in[1], short_offset};
  CU_ASSERT_EQUAL(mt_eval_fail(&o, in2, 3, &msg), TFS_INVALID_ARGUMENT);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "scale and offset must have 300 "
                                     "elements (the last dimension of x), "
                                     "got 300 and 2"));
  tfs_tensor_free(short_offset);
  for (int i = 0; i < 3; i++) tfs_tensor_free(in[i]);
}

/* _TfsLstmGates splits its rows over the pool from about 40 rows of 512
 * gates: the same bits on 1 and 2 threads, above and below that. */
static void test_lstm_gates_threads(void) {
  for (int big = 0; big < 2; big++) {
    int64_t rows = big ? 64 : 8, units = 128;
    double *z = malloc(sizeof(double) * (size_t)(rows * 4 * units));
    double *cp = malloc(sizeof(double) * (size_t)(rows * units));
    for (int64_t i = 0; i < rows * 4 * units; i++)
      z[i] = (double)((i * 37) % 41 - 20) * 0.15;
    for (int64_t i = 0; i < rows * units; i++)
      cp[i] = (double)((i * 11) % 13 - 6) * 0.3;
    tfs_tensor *in[2] = {mt_t(TFS_FLOAT, 2, MT_DIMS(rows, 4 * units), z),
                         mt_t(TFS_FLOAT, 2, MT_DIMS(rows, units), cp)};
    mt_op o = {"_TfsLstmGates", -1, NULL, NULL};
    mt_set_threads(1);
    tfs_tensor *h1 = mt_eval(&o, in, 2);
    mt_set_threads(2);
    tfs_tensor *h2 = mt_eval(&o, in, 2);
    mt_set_threads(0);
    CU_ASSERT_EQUAL_FATAL(tfs_tensor_num_elements(h1), rows * units);
    CU_ASSERT_EQUAL(memcmp(tfs_tensor_data(h1), tfs_tensor_data(h2),
                           tfs_tensor_byte_size(h1)), 0);
    /* one element against the formula: h = sigmoid(o) tanh(c) */
    const float *h = tfs_tensor_data(h1);
    int64_t r = rows - 1, u = units - 1;
    double zi = z[r * 4 * units + u], zf = z[r * 4 * units + units + u];
    double zg = z[r * 4 * units + 2 * units + u];
    double zo = z[r * 4 * units + 3 * units + u];
    double c = cp[r * units + u] / (1 + exp(-zf)) + tanh(zg) / (1 + exp(-zi));
    double want = tanh(c) / (1 + exp(-zo));
    CU_ASSERT_DOUBLE_EQUAL(h[r * units + u], want, 1e-5);
    tfs_tensor_free(h1);
    tfs_tensor_free(h2);
    tfs_tensor_free(in[0]);
    tfs_tensor_free(in[1]);
    free(z);
    free(cp);
  }
}

/* a b + c d + bias on doubles: a [m, ka], c [m, kc], b [ka, n], d [kc,
 * n], rows of a and c broadcast when they have one, columns of the
 * products when b or d has one. */
static void sum_ref(const double *a, int64_t ma, int64_t ka, const double *b,
                    int64_t na, const double *c, int64_t mc, int64_t kc,
                    const double *d, int64_t nd, const double *bias,
                    int64_t m, int64_t n, double *out) {
  for (int64_t i = 0; i < m; i++)
    for (int64_t j = 0; j < n; j++) {
      double s = bias ? bias[j] : 0;
      for (int64_t p = 0; p < ka; p++)
        s += a[(ma == 1 ? 0 : i) * ka + p] * b[p * na + (na == 1 ? 0 : j)];
      for (int64_t p = 0; p < kc; p++)
        s += c[(mc == 1 ? 0 : i) * kc + p] * d[p * nd + (nd == 1 ? 0 : j)];
      out[i * n + j] = s;
    }
}

static void set_product_names(tfs_op_desc *d, const void *arg) {
  (void)arg;
  const void *v[3] = {"xw", "hu", "z"};
  size_t len[3] = {2, 2, 1};
  tfs_op_desc_set_attr_string_list(d, "node_names", v, len, 3);
}

/* The operands of a _TfsMatMulSum (a [m, ka], b [m, kb], wa [ka, n], wb
 * [kb, n], bias [n]) as doubles and as fed tensors, and the formula's
 * result with the bias. */
typedef struct sum_case {
  int64_t m, ka, kb, n;
  double *a, *b, *wa, *wb, *bias, *want;
  tfs_tensor *in[5];
} sum_case;

static double *sum_vals(int64_t n, int mul, int mod, double scale) {
  double *v = malloc(sizeof(double) * (size_t)(n + 1));
  for (int64_t i = 0; i < n; i++)
    v[i] = (double)((i * mul) % mod - mod / 2) * scale;
  return v;
}

static void sum_case_init(sum_case *c, int64_t m, int64_t ka, int64_t kb,
                          int64_t n) {
  c->m = m;
  c->ka = ka;
  c->kb = kb;
  c->n = n;
  c->a = sum_vals(m * ka, 13, 17, 0.25);
  c->b = sum_vals(m * kb, 7, 11, 0.5);
  c->wa = sum_vals(ka * n, 5, 9, 0.125);
  c->wb = sum_vals(kb * n, 3, 13, 0.0625);
  c->bias = sum_vals(n, 1, 5, 1.0);
  c->want = sum_vals(m * n, 1, 1, 0);
  sum_ref(c->a, m, ka, c->wa, n, c->b, m, kb, c->wb, n, c->bias, m, n,
          c->want);
  c->in[0] = mt_t(TFS_FLOAT, 2, MT_DIMS(m, ka), c->a);
  c->in[1] = mt_t(TFS_FLOAT, 2, MT_DIMS(m, kb), c->b);
  c->in[2] = mt_t(TFS_FLOAT, 2, MT_DIMS(ka, n), c->wa);
  c->in[3] = mt_t(TFS_FLOAT, 2, MT_DIMS(kb, n), c->wb);
  c->in[4] = mt_t(TFS_FLOAT, 1, MT_DIMS(n), c->bias);
}

static void sum_case_clear(sum_case *c) {
  mt_free_all(c->in, 5);
  free(c->a);
  free(c->b);
  free(c->wa);
  free(c->wb);
  free(c->bias);
  free(c->want);
}

/* The stacked product at an LSTM step's size (8 rows, depths 64 and
 * 128, 512 columns: split over two threads) against the formula, the
 * same bits on 1 and 2 threads. */
static void test_matmul_sum_threads(void) {
  sum_case c;
  sum_case_init(&c, 8, 64, 128, 512);
  mt_op o = {"_TfsMatMulSum", 4, NULL, NULL};
  tfs_tensor *y[2];
  for (int t = 1; t <= 2; t++) {
    mt_set_threads(t);
    y[t - 1] = mt_eval(&o, c.in, 5);
    mt_expect(y[t - 1], TFS_FLOAT, 2, MT_DIMS(c.m, c.n), c.want, 1e-6);
  }
  mt_set_threads(0);
  CU_ASSERT_EQUAL(memcmp(tfs_tensor_data(y[0]), tfs_tensor_data(y[1]),
                         tfs_tensor_byte_size(y[0])), 0);
  mt_free_all(y, 2);
  sum_case_clear(&c);
}

/* _TfsMatMulSum on fed (not constant) weights: with and without the
 * bias, rows or columns that broadcast, no depth, and the errors of
 * MatMul, AddV2 and BiasAdd. */
static void test_matmul_sum_op(void) {
  enum { M = 9, KA = 5, KB = 7, N = 40 };
  sum_case c;
  sum_case_init(&c, M, KA, KB, N);
  const double *a = c.a, *b = c.b, *wa = c.wa, *wb = c.wb, *bias = c.bias;
  tfs_tensor **in = c.in;
  double want[M * N];
  mt_op o = {"_TfsMatMulSum", 4, NULL, NULL};
  tfs_tensor *y[2];
  y[0] = mt_eval(&o, in, 5);
  mt_expect(y[0], TFS_FLOAT, 2, MT_DIMS(M, N), c.want, 1e-6);
  tfs_tensor_free(y[0]);
  /* without the bias */
  mt_op o4 = {"_TfsMatMulSum", 4, NULL, NULL};
  sum_ref(a, M, KA, wa, N, b, M, KB, wb, N, NULL, M, N, want);
  y[0] = mt_eval(&o4, in, 4);
  mt_expect(y[0], TFS_FLOAT, 2, MT_DIMS(M, N), want, 1e-6);
  tfs_tensor_free(y[0]);
  /* a's one row broadcasts over b's rows; then wa's one column over
   * wb's */
  tfs_tensor *a1 = mt_t(TFS_FLOAT, 2, MT_DIMS(1, KA), a);
  tfs_tensor *in_row[5] = {a1, in[1], in[2], in[3], in[4]};
  sum_ref(a, 1, KA, wa, N, b, M, KB, wb, N, bias, M, N, want);
  y[0] = mt_eval(&o, in_row, 5);
  mt_expect(y[0], TFS_FLOAT, 2, MT_DIMS(M, N), want, 1e-6);
  tfs_tensor_free(y[0]);
  tfs_tensor *w1 = mt_t(TFS_FLOAT, 2, MT_DIMS(KA, 1), wa);
  tfs_tensor *in_col[5] = {in[0], in[1], w1, in[3], in[4]};
  sum_ref(a, M, KA, wa, 1, b, M, KB, wb, N, bias, M, N, want);
  y[0] = mt_eval(&o, in_col, 5);
  mt_expect(y[0], TFS_FLOAT, 2, MT_DIMS(M, N), want, 1e-6);
  tfs_tensor_free(y[0]);
  /* no depth: the bias in every row */
  tfs_tensor *in_empty[5] = {
      mt_tmp(mt_t(TFS_FLOAT, 2, MT_DIMS(M, 0), NULL)),
      mt_tmp(mt_t(TFS_FLOAT, 2, MT_DIMS(M, 0), NULL)),
      mt_tmp(mt_t(TFS_FLOAT, 2, MT_DIMS(0, N), NULL)),
      mt_tmp(mt_t(TFS_FLOAT, 2, MT_DIMS(0, N), NULL)), in[4]};
  for (int i = 0; i < M * N; i++) want[i] = bias[i % N];
  y[0] = mt_eval(&o, in_empty, 5);
  mt_expect(y[0], TFS_FLOAT, 2, MT_DIMS(M, N), want, 0);
  tfs_tensor_free(y[0]);
  /* errors */
  const char *msg;
  tfs_tensor *in_k[5] = {in[0], in[1], in[3], in[3], in[4]};
  CU_ASSERT_EQUAL(mt_eval_fail(&o, in_k, 5, &msg), TFS_INVALID_ARGUMENT);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "Matrix size-incompatible: In[0]: "
                                     "[9,5], In[1]: [7,40]"));
  tfs_tensor *a2 = mt_t(TFS_FLOAT, 2, MT_DIMS(2, KA), a);
  tfs_tensor *in_m[5] = {a2, in[1], in[2], in[3], in[4]};
  CU_ASSERT_EQUAL(mt_eval_fail(&o, in_m, 5, &msg), TFS_INVALID_ARGUMENT);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "Incompatible shapes: [2,40] vs. "
                                     "[9,40]"));
  tfs_tensor *b4 = mt_t(TFS_FLOAT, 1, MT_DIMS(4), bias);
  tfs_tensor *in_b[5] = {in[0], in[1], in[2], in[3], b4};
  CU_ASSERT_EQUAL(mt_eval_fail(&o, in_b, 5, &msg), TFS_INVALID_ARGUMENT);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "Must provide as many biases as the "
                                     "last dimension of the input tensor: "
                                     "[4] vs. [9,40]"));
  /* with node_names, each error names the op it stands for (the bias's
   * is the node's own) */
  mt_op named = {"_TfsMatMulSum", 4, set_product_names, NULL};
  CU_ASSERT_EQUAL(mt_eval_fail(&named, in_k, 5, &msg), TFS_INVALID_ARGUMENT);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "[7,40]\n\t [[{{node xw}}]]"));
  CU_ASSERT_EQUAL(mt_eval_fail(&named, in_m, 5, &msg), TFS_INVALID_ARGUMENT);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "[9,40]\n\t [[{{node z}}]]"));
  CU_ASSERT_EQUAL(mt_eval_fail(&named, in_b, 5, &msg), TFS_INVALID_ARGUMENT);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "[9,40]\n\t [[{{node op}}]]"));
  /* two biases: not an op the remapper writes */
  tfs_tensor *in_two[6] = {in[0], in[1], in[2], in[3], in[4], in[4]};
  CU_ASSERT_EQUAL(mt_eval_fail(&o, in_two, 6, &msg), TFS_INVALID_ARGUMENT);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "at most one bias (num_args 0 or 1), "
                                     "got num_args 2"));
  tfs_tensor *rest[5] = {a1, w1, a2, b4, NULL};
  mt_free_all(rest, 4);
  sum_case_clear(&c);
}

static const tfs_test_case kFunctionCases[] = {
    {"sweep", test_sweep},
    {"specials", test_specials},
    {"tails", test_tails},
    {"fast_blocks", test_fast_blocks},
    {"paths_agree", test_paths_agree},
    {"map16", test_map16},
    {"epilogue_rows", test_epilogue_rows},
    {"epilogue_add_rows", test_epilogue_add_rows},
    {"hard_swish", test_hard_swish},
    {"scale_shift_rows", test_scale_shift_rows},
    {"row_ops", test_row_ops},
    {NULL, NULL},
};

static const tfs_test_case kKernelCases[] = {
    {"unary_ops", test_unary_ops},
    {"log_ops", test_log_ops},
    {"softmax", test_softmax},
    {"exp_shifted_sum", test_exp_shifted_sum},
    {"softmax_fused", test_softmax_fused},
    {"fused_matmul_acts", test_fused_matmul_acts},
    {"gelu_swish_ops", test_gelu_swish_ops},
    {"scale_shift_op", test_scale_shift_op},
    {"layer_norm_op", test_layer_norm_op},
    {"lstm_gates_threads", test_lstm_gates_threads},
    {"matmul_sum_op", test_matmul_sum_op},
    {"matmul_sum_threads", test_matmul_sum_threads},
    {NULL, NULL},
};

const tfs_test_suite tfs_test_suites[] = {
    {"vmath", kFunctionCases},
    {"vmath_kernels", kKernelCases},
    {NULL, NULL},
};
