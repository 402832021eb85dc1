/*
 * tests/device/test_cuda_ops.c - the GPU suite (CUDA builds): every CUDA
 * kernel against the CPU kernel on the same random inputs, compared by
 * normalized mean squared error with a tolerance per dtype (ggml's
 * test-backend-ops), then placement, error messages, a stream-ordering
 * stress and whole graphs through sessions placed on the GPU against
 * CPU-only sessions.  Exits 77 (automake's SKIP) when the machine has no
 * GPU.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/half.h"
#include "core/status.h"
#include "devrun.h"
#include "session/exec.h"
#include "tfsess/callable.h"
#include "tfs_config.h"

static int g_failed, g_passed;
static const char *g_only; /* run only cases whose op contains this */

/* ---- inputs ------------------------------------------------------------------ */

static uint64_t g_rng = 0x9E3779B97F4A7C15ull;

static double uniform(double lo, double hi) {
  g_rng ^= g_rng << 13;
  g_rng ^= g_rng >> 7;
  g_rng ^= g_rng << 17;
  return lo + (hi - lo) * (double)(g_rng >> 11) / (double)(1ull << 53);
}

static void set_elem(tfs_dtype dt, void *p, int64_t i, double v) {
  switch (dt) {
    case TFS_FLOAT: ((float *)p)[i] = (float)v; break;
    case TFS_DOUBLE: ((double *)p)[i] = v; break;
    case TFS_HALF: ((uint16_t *)p)[i] = tfs_float_to_half((float)v); break;
    case TFS_BFLOAT16:
      ((uint16_t *)p)[i] = tfs_float_to_bf16((float)v);
      break;
    case TFS_INT32: ((int32_t *)p)[i] = (int32_t)v; break;
    default: break;
  }
}

/* A tensor of dt and dims with values in [lo, hi) (|v| >= min_abs). */
static tfs_tensor *rand_tensor(tfs_dtype dt, const int64_t *dims, int nd,
                               double lo, double hi, double min_abs) {
  tfs_status *st = tfs_status_new();
  tfs_tensor *t = tfs_tensor_new(dt, dims, nd, st);
  tfs_status_free(st);
  if (!t) return NULL;
  int64_t n = tfs_tensor_num_elements(t);
  void *p = tfs_tensor_data(t);
  for (int64_t i = 0; i < n; i++) {
    double v = uniform(lo, hi);
    if (fabs(v) < min_abs) v = v < 0 ? -min_abs : min_abs;
    set_elem(dt, p, i, v);
  }
  return t;
}

/* A tensor of dt and dims holding vals[0..nv) over and over (NaN and
 * infinities included). */
static tfs_tensor *vals_tensor(tfs_dtype dt, const int64_t *dims, int nd,
                               const double *vals, int nv) {
  tfs_status *st = tfs_status_new();
  tfs_tensor *t = tfs_tensor_new(dt, dims, nd, st);
  tfs_status_free(st);
  if (!t) return NULL;
  int64_t n = tfs_tensor_num_elements(t);
  for (int64_t i = 0; i < n; i++)
    set_elem(dt, tfs_tensor_data(t), i, vals[i % nv]);
  return t;
}

static tfs_tensor *int32_vector(const int32_t *v, int n) {
  int64_t d = n;
  tfs_status *st = tfs_status_new();
  tfs_tensor *t = tfs_tensor_new_copy(TFS_INT32, &d, 1, v,
                                      sizeof(int32_t) * (size_t)n, st);
  tfs_status_free(st);
  return t;
}

/* ---- attrs ------------------------------------------------------------------- */

typedef struct attr {
  const char *name;
  char kind; /* 't' type, 'b' bool, 'f' float, 's' string, 'l' int list */
  tfs_dtype t;
  int b;
  float f;
  const char *s;
  int n;
  int64_t l[8];
} attr;

typedef struct attrs {
  int n;
  attr a[8];
} attrs;

static void set_attrs(tfs_op_desc *d, const void *arg) {
  const attrs *as = arg;
  for (int i = 0; as && i < as->n; i++) {
    const attr *a = &as->a[i];
    switch (a->kind) {
      case 't': tfs_op_desc_set_attr_type(d, a->name, a->t); break;
      case 'b': tfs_op_desc_set_attr_bool(d, a->name, a->b); break;
      case 'f': tfs_op_desc_set_attr_float(d, a->name, a->f); break;
      case 's':
        tfs_op_desc_set_attr_string(d, a->name, a->s, strlen(a->s));
        break;
      default: tfs_op_desc_set_attr_int_list(d, a->name, a->l, a->n); break;
    }
  }
}

#define A_T(nm, v) ((attr){.name = nm, .kind = 't', .t = v})
#define A_B(nm, v) ((attr){.name = nm, .kind = 'b', .b = v})
#define A_F(nm, v) ((attr){.name = nm, .kind = 'f', .f = v})
#define A_S(nm, v) ((attr){.name = nm, .kind = 's', .s = v})
#define A_L4(nm, a0, a1, a2, a3) \
  ((attr){.name = nm, .kind = 'l', .n = 4, .l = {a0, a1, a2, a3}})

/* ---- comparison ----------------------------------------------------------------- */

/* NaN and infinities must match exactly: -1 when a (got) and b (want)
 * do not, 1 when both are the same special value, 0 for two finite
 * values. */
static int special(double a, double b) {
  if (isnan(a) != isnan(b)) return -1;
  if (isnan(b)) return 1;
  if (isinf(a) || isinf(b)) return a == b ? 1 : -1;
  return 0;
}

static double nmse(const tfs_tensor *got, const tfs_tensor *want) {
  int64_t n = tfs_tensor_num_elements(want);
  double err = 0, norm = 0;
  for (int64_t i = 0; i < n; i++) {
    double a = tfs_tensor__get_as_double(got, i);
    double b = tfs_tensor__get_as_double(want, i);
    int sp = special(a, b);
    if (sp < 0) return INFINITY;
    if (sp) continue;
    err += (a - b) * (a - b);
    norm += b * b;
  }
  return norm > 0 ? err / norm : err;
}

/* The largest error of one element relative to the expected value
 * (special values as in nmse). */
static double max_rel(const tfs_tensor *got, const tfs_tensor *want) {
  int64_t n = tfs_tensor_num_elements(want);
  double worst = 0;
  for (int64_t i = 0; i < n; i++) {
    double a = tfs_tensor__get_as_double(got, i);
    double b = tfs_tensor__get_as_double(want, i);
    int sp = special(a, b);
    if (sp < 0) return INFINITY;
    if (sp) continue;
    double e = fabs(a - b) / (fabs(b) > 1e-30 ? fabs(b) : 1e-30);
    if (e > worst) worst = e;
  }
  return worst;
}

static double tolerance(tfs_dtype dt) {
  switch (dt) {
    case TFS_DOUBLE: return 1e-20;
    case TFS_HALF: return 1e-5;
    case TFS_BFLOAT16: return 1e-3;
    default: return 1e-9;
  }
}

/* Runs `op` on the CPU and on GPU:0 and compares the first nout outputs:
 * NMSE within the dtype's tolerance times tol_scale (0: equal values),
 * or with tol_scale < 0 each element within -tol_scale relative error. */
static void check_op(const char *label, const char *op, const attrs *as,
                     tfs_tensor **in, int nin, int nout, double tol_scale) {
  if (g_only && !strstr(op, g_only)) goto done;
  tfs_status *st = tfs_status_new();
  tfs_tensor *cpu[6] = {0}, *gpu[6] = {0};
  int ok = 1;
  char why[160] = "";
  if (dr_run_op(op, set_attrs, as, "/cpu:0", NULL, in, nin, cpu, nout, st)) {
    snprintf(why, sizeof why, "CPU: %.140s", tfs_status_message(st));
    ok = 0;
  } else if (dr_run_op(op, set_attrs, as, "/device:GPU:0", NULL, in, nin,
                       gpu, nout, st)) {
    snprintf(why, sizeof why, "GPU: %.140s", tfs_status_message(st));
    ok = 0;
  }
  double worst = 0;
  for (int i = 0; ok && i < nout; i++) {
    if (tfs_tensor_num_elements(cpu[i]) != tfs_tensor_num_elements(gpu[i]) ||
        tfs_tensor_ndims(cpu[i]) != tfs_tensor_ndims(gpu[i])) {
      snprintf(why, sizeof why, "output %d: shapes differ", i);
      ok = 0;
      break;
    }
    int rel = tol_scale < 0;
    double e = rel ? max_rel(gpu[i], cpu[i]) : nmse(gpu[i], cpu[i]);
    double tol =
        rel ? -tol_scale : tolerance(tfs_tensor_dtype(cpu[i])) * tol_scale;
    if (e > worst) worst = e;
    if (!(e <= tol)) {
      ok = 0;
      if (!why[0]) snprintf(why, sizeof why, "output %d", i);
    }
  }
  printf("  %-44s %-6s NMSE=%.3g %s%s%s\n", label,
         tfs_dtype_name(tfs_tensor_dtype(in[0])), worst, ok ? "OK" : "FAIL",
         why[0] ? ": " : "", why);
  ok ? g_passed++ : g_failed++;
  for (int i = 0; i < 6; i++) {
    tfs_tensor_free(cpu[i]);
    tfs_tensor_free(gpu[i]);
  }
  tfs_status_free(st);
done:
  for (int i = 0; i < nin; i++) tfs_tensor_free(in[i]);
}

/* The part of an error message before the node's description, which
 * names the requested device. */
static void msg_head(const char *m, char *out, size_t n) {
  size_t k = strcspn(m, "\n[");
  const char *node = strstr(m, " for '{{node");
  if (node && (size_t)(node - m) < k) k = (size_t)(node - m);
  if (k >= n) k = n - 1;
  memcpy(out, m, k);
  out[k] = 0;
}

/* Runs `op` on the CPU and on GPU:0, both failing with one code and
 * message. */
static void check_error(const char *label, const char *op, const attrs *as,
                        tfs_tensor **in, int nin, int nout) {
  if (g_only && !strstr(op, g_only)) goto done;
  tfs_status *cs = tfs_status_new(), *gs = tfs_status_new();
  tfs_tensor *out[6] = {0};
  int crc = dr_run_op(op, set_attrs, as, "/cpu:0", NULL, in, nin, out, nout,
                      cs);
  for (int i = 0; i < 6; i++) tfs_tensor_free(out[i]), out[i] = NULL;
  int grc = dr_run_op(op, set_attrs, as, "/device:GPU:0", NULL, in, nin, out,
                      nout, gs);
  for (int i = 0; i < 6; i++) tfs_tensor_free(out[i]);
  char cm[200], gm[200], why[420] = "";
  msg_head(tfs_status_message(cs), cm, sizeof cm);
  msg_head(tfs_status_message(gs), gm, sizeof gm);
  int ok = crc && grc && tfs_status_code(cs) == tfs_status_code(gs) &&
           strcmp(cm, gm) == 0;
  if (!ok)
    snprintf(why, sizeof why, ": CPU %d \"%s\", GPU %d \"%s\"",
             (int)tfs_status_code(cs), cm, (int)tfs_status_code(gs), gm);
  printf("  %-44s %-6s %s%s\n", label,
         tfs_dtype_name(tfs_tensor_dtype(in[0])), ok ? "OK" : "FAIL", why);
  ok ? g_passed++ : g_failed++;
  tfs_status_free(cs);
  tfs_status_free(gs);
done:
  for (int i = 0; i < nin; i++) tfs_tensor_free(in[i]);
}

/* ---- the cases ------------------------------------------------------------------ */

static void binary_cases(void) {
  static const char *const kOps[] = {"AddV2", "Sub", "Mul", "RealDiv",
                                     "Maximum", "Minimum", "Pow",
                                     "SquaredDifference", NULL};
  static const int64_t same[2] = {33, 65}, a3[3] = {4, 1, 5}, b2[2] = {3, 1};
  static const int64_t big[1] = {100};
  for (int i = 0; kOps[i]; i++) {
    int pow = strcmp(kOps[i], "Pow") == 0;
    double lo = pow ? 0.2 : -2;
    attrs as = {1, {A_T("T", TFS_FLOAT)}};
    char label[64];
    snprintf(label, sizeof label, "%s [33,65],[33,65]", kOps[i]);
    tfs_tensor *in[2] = {rand_tensor(TFS_FLOAT, same, 2, lo, 2, 0.1),
                         rand_tensor(TFS_FLOAT, same, 2, lo, 2, 0.1)};
    check_op(label, kOps[i], &as, in, 2, 1, 1);
    snprintf(label, sizeof label, "%s [4,1,5],[3,1] broadcast", kOps[i]);
    tfs_tensor *bc[2] = {rand_tensor(TFS_FLOAT, a3, 3, lo, 2, 0.1),
                         rand_tensor(TFS_FLOAT, b2, 2, lo, 2, 0.1)};
    check_op(label, kOps[i], &as, bc, 2, 1, 1);
    snprintf(label, sizeof label, "%s [],[100] scalar", kOps[i]);
    tfs_tensor *sc[2] = {rand_tensor(TFS_FLOAT, NULL, 0, lo, 2, 0.1),
                         rand_tensor(TFS_FLOAT, big, 1, lo, 2, 0.1)};
    check_op(label, kOps[i], &as, sc, 2, 1, 1);
  }
  static const tfs_dtype kTypes[] = {TFS_HALF, TFS_BFLOAT16, TFS_DOUBLE};
  for (int t = 0; t < 3; t++) {
    attrs as = {1, {A_T("T", kTypes[t])}};
    tfs_tensor *in[2] = {rand_tensor(kTypes[t], a3, 3, -2, 2, 0),
                         rand_tensor(kTypes[t], b2, 2, -2, 2, 0)};
    check_op("AddV2 [4,1,5],[3,1]", "AddV2", &as, in, 2, 1, 1);
    tfs_tensor *m[2] = {rand_tensor(kTypes[t], same, 2, -2, 2, 0),
                        rand_tensor(kTypes[t], same, 2, -2, 2, 0)};
    check_op("Mul [33,65],[33,65]", "Mul", &as, m, 2, 1, 1);
  }
}

static void unary_cases(void) {
  static const struct {
    const char *op;
    double lo, hi, min_abs;
  } kOps[] = {
      {"Neg", -3, 3, 0},        {"Abs", -3, 3, 0},
      {"Exp", -3, 3, 0},        {"Log", 0.01, 5, 0},
      {"Sqrt", 0, 5, 0},        {"Rsqrt", 0.05, 5, 0},
      {"Square", -3, 3, 0},     {"Tanh", -4, 4, 0},
      {"Sigmoid", -6, 6, 0},    {"Relu", -3, 3, 0},
      {"Relu6", -8, 8, 0},      {"Elu", -3, 3, 0},
      {"Selu", -3, 3, 0},       {"Softplus", -25, 25, 0},
      {"Reciprocal", -2, 2, 0.2}, {"Floor", -5, 5, 0},
      {"Ceil", -5, 5, 0},       {"Sin", -6, 6, 0},
      {"Cos", -6, 6, 0},        {"Erf", -3, 3, 0},
      {"LeakyRelu", -3, 3, 0},  {"Expm1", -2, 2, 0},
      {"Log1p", -0.5, 5, 0},    {"Sign", -3, 3, 0},
  };
  static const int64_t d[3] = {7, 31, 9};
  for (size_t i = 0; i < sizeof kOps / sizeof kOps[0]; i++) {
    attrs as = {2, {A_T("T", TFS_FLOAT), A_F("alpha", 0.3f)}};
    if (strcmp(kOps[i].op, "LeakyRelu") != 0) as.n = 1;
    char label[64];
    snprintf(label, sizeof label, "%s [7,31,9]", kOps[i].op);
    tfs_tensor *in[1] = {rand_tensor(TFS_FLOAT, d, 3, kOps[i].lo, kOps[i].hi,
                                     kOps[i].min_abs)};
    check_op(label, kOps[i].op, &as, in, 1, 1, 1);
  }
  static const char *const k16[] = {"Relu", "Tanh", "Sigmoid", NULL};
  for (int i = 0; k16[i]; i++) {
    attrs as = {1, {A_T("T", TFS_HALF)}};
    tfs_tensor *in[1] = {rand_tensor(TFS_HALF, d, 3, -3, 3, 0)};
    check_op(k16[i], k16[i], &as, in, 1, 1, 1);
  }
}

static void cast_case(tfs_dtype from, tfs_dtype to) {
  static const int64_t d[2] = {40, 17};
  attrs as = {2, {A_T("SrcT", from), A_T("DstT", to)}};
  char label[64];
  snprintf(label, sizeof label, "Cast %s -> %s", tfs_dtype_name(from),
           tfs_dtype_name(to));
  tfs_tensor *in[1] = {rand_tensor(from, d, 2, -100, 100, 0)};
  check_op(label, "Cast", &as, in, 1, 1, 1);
}

static void nn_cases(void) {
  cast_case(TFS_FLOAT, TFS_HALF);
  cast_case(TFS_HALF, TFS_FLOAT);
  cast_case(TFS_FLOAT, TFS_BFLOAT16);
  cast_case(TFS_DOUBLE, TFS_FLOAT);
  static const int64_t x4[4] = {2, 5, 7, 16}, c16[1] = {16},
                       x4c[4] = {2, 16, 5, 7};
  attrs nhwc = {2, {A_T("T", TFS_FLOAT), A_S("data_format", "NHWC")}};
  tfs_tensor *b1[2] = {rand_tensor(TFS_FLOAT, x4, 4, -2, 2, 0),
                       rand_tensor(TFS_FLOAT, c16, 1, -2, 2, 0)};
  check_op("BiasAdd NHWC [2,5,7,16]", "BiasAdd", &nhwc, b1, 2, 1, 1);
  attrs nchw = {2, {A_T("T", TFS_FLOAT), A_S("data_format", "NCHW")}};
  tfs_tensor *b2[2] = {rand_tensor(TFS_FLOAT, x4c, 4, -2, 2, 0),
                       rand_tensor(TFS_FLOAT, c16, 1, -2, 2, 0)};
  check_op("BiasAdd NCHW [2,16,5,7]", "BiasAdd", &nchw, b2, 2, 1, 1);
  static const int64_t sm[2] = {17, 1000}, sm2[2] = {8, 33};
  attrs t = {1, {A_T("T", TFS_FLOAT)}};
  tfs_tensor *s1[1] = {rand_tensor(TFS_FLOAT, sm, 2, -10, 10, 0)};
  check_op("Softmax [17,1000]", "Softmax", &t, s1, 1, 1, 1);
  tfs_tensor *s2[1] = {rand_tensor(TFS_FLOAT, sm2, 2, -10, 10, 0)};
  check_op("LogSoftmax [8,33]", "LogSoftmax", &t, s2, 1, 1, 1);
  attrs th = {1, {A_T("T", TFS_HALF)}};
  tfs_tensor *s3[1] = {rand_tensor(TFS_HALF, sm2, 2, -5, 5, 0)};
  check_op("Softmax [8,33]", "Softmax", &th, s3, 1, 1, 1);
}

static void reduce_cases(void) {
  static const char *const kOps[] = {"Sum", "Mean", "Max", "Min", "Prod",
                                     NULL};
  static const int64_t d[3] = {4, 37, 9};
  static const int32_t ax1[1] = {1}, ax02[2] = {0, 2}, all[3] = {0, 1, 2},
                       neg[1] = {-1};
  static const struct {
    const int32_t *axes;
    int n, keep;
    const char *what;
  } kAxes[] = {{ax1, 1, 0, "axis 1"}, {ax02, 2, 0, "axes 0,2"},
               {all, 3, 0, "all"},    {neg, 1, 1, "axis -1 keep_dims"}};
  for (int i = 0; kOps[i]; i++) {
    int prod = strcmp(kOps[i], "Prod") == 0;
    for (size_t k = 0; k < sizeof kAxes / sizeof kAxes[0]; k++) {
      attrs as = {3, {A_T("T", TFS_FLOAT), A_T("Tidx", TFS_INT32),
                      A_B("keep_dims", kAxes[k].keep)}};
      char label[64];
      snprintf(label, sizeof label, "%s [4,37,9] %s", kOps[i], kAxes[k].what);
      tfs_tensor *in[2] = {
          rand_tensor(TFS_FLOAT, d, 3, prod ? 0.97 : -2, prod ? 1.03 : 2, 0),
          int32_vector(kAxes[k].axes, kAxes[k].n)};
      check_op(label, kOps[i], &as, in, 2, 1, 10);
    }
  }
  attrs as = {3, {A_T("T", TFS_HALF), A_T("Tidx", TFS_INT32),
                  A_B("keep_dims", 0)}};
  tfs_tensor *in[2] = {rand_tensor(TFS_HALF, d, 3, -2, 2, 0),
                       int32_vector(ax1, 1)};
  check_op("Sum [4,37,9] axis 1", "Sum", &as, in, 2, 1, 10);
}

static void matmul_cases(void) {
  static const tfs_dtype kTypes[] = {TFS_FLOAT, TFS_DOUBLE, TFS_HALF,
                                     TFS_BFLOAT16};
  for (int t = 0; t < 4; t++) {
    for (int ta = 0; ta < 2; ta++) {
      for (int tb = 0; tb < 2; tb++) {
        int64_t a[2] = {ta ? 128 : 64, ta ? 64 : 128};
        int64_t b[2] = {tb ? 32 : 128, tb ? 128 : 32};
        attrs as = {3, {A_T("T", kTypes[t]), A_B("transpose_a", ta),
                        A_B("transpose_b", tb)}};
        char label[64];
        snprintf(label, sizeof label, "MatMul 64x128x32 ta=%d tb=%d", ta, tb);
        tfs_tensor *in[2] = {rand_tensor(kTypes[t], a, 2, -1, 1, 0),
                             rand_tensor(kTypes[t], b, 2, -1, 1, 0)};
        check_op(label, "MatMul", &as, in, 2, 1, 10);
      }
    }
  }
  int64_t x[2] = {256, 784}, w[2] = {784, 512};
  attrs as = {1, {A_T("T", TFS_FLOAT)}};
  tfs_tensor *in[2] = {rand_tensor(TFS_FLOAT, x, 2, -1, 1, 0),
                       rand_tensor(TFS_FLOAT, w, 2, -0.05, 0.05, 0)};
  check_op("MatMul 256x784x512", "MatMul", &as, in, 2, 1, 10);
  static const int64_t x3[3] = {3, 16, 8}, y3[3] = {3, 8, 12};
  tfs_tensor *b1[2] = {rand_tensor(TFS_FLOAT, x3, 3, -1, 1, 0),
                       rand_tensor(TFS_FLOAT, y3, 3, -1, 1, 0)};
  check_op("BatchMatMulV2 [3,16,8]x[3,8,12]", "BatchMatMulV2", &as, b1, 2, 1,
           10);
  static const int64_t x4[4] = {2, 1, 4, 5}, y4[3] = {3, 6, 5};
  attrs adj = {3, {A_T("T", TFS_FLOAT), A_B("adj_x", 0), A_B("adj_y", 1)}};
  tfs_tensor *b2[2] = {rand_tensor(TFS_FLOAT, x4, 4, -1, 1, 0),
                       rand_tensor(TFS_FLOAT, y4, 3, -1, 1, 0)};
  check_op("BatchMatMulV2 [2,1,4,5]x[3,6,5]^T broadcast", "BatchMatMulV2",
           &adj, b2, 2, 1, 10);
  static const int64_t x1[3] = {1, 16, 8};
  attrs h = {1, {A_T("T", TFS_HALF)}};
  tfs_tensor *b3[2] = {rand_tensor(TFS_HALF, x1, 3, -1, 1, 0),
                       rand_tensor(TFS_HALF, y3, 3, -1, 1, 0)};
  check_op("BatchMatMulV2 [1,16,8]x[3,8,12]", "BatchMatMulV2", &h, b3, 2, 1,
           10);
}

static void conv_case(const char *label, tfs_dtype dt, const char *fmt,
                      const char *pad, int stride, int dil, int ic, int oc) {
  int nchw = strcmp(fmt, "NCHW") == 0;
  int64_t x[4] = {2, nchw ? ic : 9, 9, nchw ? 9 : ic};
  if (nchw) x[3] = 9;
  int64_t f[4] = {3, 3, ic, oc};
  attrs as = {5, {A_T("T", dt), A_S("data_format", fmt), A_S("padding", pad),
                  nchw ? A_L4("strides", 1, 1, stride, stride)
                       : A_L4("strides", 1, stride, stride, 1),
                  nchw ? A_L4("dilations", 1, 1, dil, dil)
                       : A_L4("dilations", 1, dil, dil, 1)}};
  tfs_tensor *in[2] = {rand_tensor(dt, x, 4, -1, 1, 0),
                       rand_tensor(dt, f, 4, -0.3, 0.3, 0)};
  check_op(label, "Conv2D", &as, in, 2, 1, 10);
}

static void pool_case(const char *label, const char *op, const char *pad,
                      int k, int s, int64_t hw) {
  int64_t x[4] = {2, hw, hw, 4};
  attrs as = {4, {A_T("T", TFS_FLOAT), A_S("padding", pad),
                  A_L4("ksize", 1, k, k, 1), A_L4("strides", 1, s, s, 1)}};
  tfs_tensor *in[1] = {rand_tensor(TFS_FLOAT, x, 4, -3, 3, 0)};
  check_op(label, op, &as, in, 1, 1, 1);
}

static void dnn_cases(void) {
  conv_case("Conv2D NHWC SAME s1 3x3 3->8", TFS_FLOAT, "NHWC", "SAME", 1, 1,
            3, 8);
  conv_case("Conv2D NHWC SAME s2 (asymmetric pad)", TFS_FLOAT, "NHWC",
            "SAME", 2, 1, 3, 8);
  conv_case("Conv2D NHWC VALID s1", TFS_FLOAT, "NHWC", "VALID", 1, 1, 4, 6);
  conv_case("Conv2D NHWC SAME dilation 2", TFS_FLOAT, "NHWC", "SAME", 1, 2,
            3, 5);
  conv_case("Conv2D NCHW SAME s1", TFS_FLOAT, "NCHW", "SAME", 1, 1, 3, 8);
  conv_case("Conv2D NHWC SAME s1", TFS_HALF, "NHWC", "SAME", 1, 1, 8, 16);
  pool_case("MaxPool 3x3 s2 SAME (asymmetric)", "MaxPool", "SAME", 3, 2, 9);
  pool_case("MaxPool 2x2 s2 VALID", "MaxPool", "VALID", 2, 2, 8);
  pool_case("MaxPool 3x3 s1 SAME (symmetric)", "MaxPool", "SAME", 3, 1, 8);
  pool_case("AvgPool 3x3 s2 SAME (asymmetric)", "AvgPool", "SAME", 3, 2, 9);
  pool_case("AvgPool 3x3 s1 SAME (cuDNN)", "AvgPool", "SAME", 3, 1, 8);
  static const int64_t x[4] = {2, 5, 5, 6}, c[1] = {6};
  for (int training = 0; training < 2; training++) {
    attrs as = {4, {A_T("T", TFS_FLOAT), A_T("U", TFS_FLOAT),
                    A_F("epsilon", 1e-3f), A_B("is_training", training)}};
    tfs_tensor *in[5] = {rand_tensor(TFS_FLOAT, x, 4, -2, 2, 0),
                         rand_tensor(TFS_FLOAT, c, 1, 0.5, 1.5, 0),
                         rand_tensor(TFS_FLOAT, c, 1, -0.5, 0.5, 0),
                         rand_tensor(TFS_FLOAT, c, 1, -0.5, 0.5, 0),
                         rand_tensor(TFS_FLOAT, c, 1, 0.5, 1.5, 0)};
    /* y, batch_mean, batch_variance and the reserve spaces */
    check_op(training ? "FusedBatchNormV3 training"
                      : "FusedBatchNormV3 inference",
             "FusedBatchNormV3", &as, in, 5, 6, 100);
  }
}

/* ---- the CPU kernels' edge cases: NaN, infinities, thresholds ------------ */

static const tfs_dtype kFloats[4] = {TFS_FLOAT, TFS_DOUBLE, TFS_HALF,
                                     TFS_BFLOAT16};

/* Relu and Relu6 pass NaN through; Softplus's thresholds depend on the
 * dtype (log(epsilon) + 2); Erf on float64 is NaN from 0x1.ffffffcp+511
 * up, as the CPU kernel. */
static void activation_edge_cases(void) {
  static const double kRelu[] = {NAN, -INFINITY, INFINITY, -0.0, 0.0, -1.5,
                                 0.25, 5.5, 6.0, 6.5, 1e4, -1e4};
  static const double kSp[] = {NAN, -INFINITY, INFINITY, 2.5, 2.9, 3, 4,
                               4.5, 5, 10, 13.5, 14, 20, 33, 35, -2.5,
                               -3, -4.5, -5, -13.5, -14, -34, -35, -100};
  static const int64_t d[1] = {48};
  for (int t = 0; t < 4; t++) {
    attrs as = {1, {A_T("T", kFloats[t])}};
    tfs_tensor *r[1] = {vals_tensor(kFloats[t], d, 1, kRelu, 12)};
    check_op("Relu NaN/inf/-0", "Relu", &as, r, 1, 1, 0);
    tfs_tensor *r6[1] = {vals_tensor(kFloats[t], d, 1, kRelu, 12)};
    check_op("Relu6 NaN/inf/-0", "Relu6", &as, r6, 1, 1, 0);
    static const double kTol[4] = {1e-6, 1e-14, 1e-3, 8e-3};
    tfs_tensor *sp[1] = {vals_tensor(kFloats[t], d, 1, kSp, 24)};
    check_op("Softplus around the thresholds", "Softplus", &as, sp, 1, 1,
             -kTol[t]);
  }
  static const double kErf[] = {NAN, INFINITY, -INFINITY, 0.5, -2, 1e154,
                                0x1.ffffffbp+511, 0x1.ffffffcp+511,
                                -0x1.ffffffcp+511, 1e300};
  attrs as = {1, {A_T("T", TFS_DOUBLE)}};
  tfs_tensor *e[1] = {vals_tensor(TFS_DOUBLE, d, 1, kErf, 10)};
  check_op("Erf huge float64", "Erf", &as, e, 1, 1, -1e-15);
}

/* Cast with Truncate: float and double sources lose their low mantissa
 * bits first (half sources have none to lose); without it, rounding. */
static void cast_truncate_cases(void) {
  static const double kVals[] = {1.0078125 + 1e-9, 1.01171875, 1.0 / 3,
                                 -1.0 / 3, NAN, INFINITY, -INFINITY, 0.0,
                                 -0.0, 65519.0, 3.4e38, 1e-40, 2.7182818,
                                 -123.456789};
  static const int64_t d[1] = {56};
  static const tfs_dtype kPairs[][2] = {
      {TFS_FLOAT, TFS_BFLOAT16}, {TFS_FLOAT, TFS_HALF},
      {TFS_DOUBLE, TFS_FLOAT},   {TFS_DOUBLE, TFS_HALF},
      {TFS_DOUBLE, TFS_BFLOAT16}, {TFS_HALF, TFS_BFLOAT16},
      {TFS_BFLOAT16, TFS_HALF},  {TFS_FLOAT, TFS_DOUBLE}};
  for (size_t i = 0; i < sizeof kPairs / sizeof kPairs[0]; i++) {
    for (int trunc = 0; trunc < 2; trunc++) {
      attrs as = {3, {A_T("SrcT", kPairs[i][0]), A_T("DstT", kPairs[i][1]),
                      A_B("Truncate", trunc)}};
      char label[64];
      snprintf(label, sizeof label, "Cast -> %s%s",
               tfs_dtype_name(kPairs[i][1]), trunc ? " Truncate" : "");
      tfs_tensor *in[1] = {vals_tensor(kPairs[i][0], d, 1, kVals, 14)};
      check_op(label, "Cast", &as, in, 1, 1, 0);
    }
  }
}

static attrs pool_attrs(tfs_dtype dt, const char *fmt, const char *pad,
                        const int64_t *k, const int64_t *s) {
  attrs as = {5, {A_T("T", dt), A_S("data_format", fmt), A_S("padding", pad),
                  A_L4("ksize", k[0], k[1], k[2], k[3]),
                  A_L4("strides", s[0], s[1], s[2], s[3])}};
  return as;
}

/* MaxPool starts from the dtype's lowest value (a window of -inf gives
 * it) and never picks NaN; max pooling across depth starts from the
 * first channel; the pooling errors are the CPU kernel's. */
static void pool_edge_cases(void) {
  static const double kV[] = {-INFINITY, -INFINITY, NAN, NAN, 1.5, NAN,
                              -INFINITY, -2,  NAN, -INFINITY, 3, -1};
  static const int64_t x[4] = {2, 6, 6, 4}, xc[4] = {2, 4, 6, 6};
  static const int64_t k2[4] = {1, 2, 2, 1}, s2[4] = {1, 2, 2, 1};
  static const int64_t k3[4] = {1, 3, 3, 1}, s1[4] = {1, 1, 1, 1};
  static const int64_t k3c[4] = {1, 1, 3, 3}, s2c[4] = {1, 1, 2, 2};
  static const int64_t kd[4] = {1, 1, 1, 2};
  for (int t = 0; t < 4; t++) {
    tfs_dtype dt = kFloats[t];
    attrs a = pool_attrs(dt, "NHWC", "VALID", k2, s2);
    tfs_tensor *p1[1] = {vals_tensor(dt, x, 4, kV, 12)};
    check_op("MaxPool 2x2 VALID NaN/-inf", "MaxPool", &a, p1, 1, 1, 0);
    a = pool_attrs(dt, "NHWC", "SAME", k3, s1);
    tfs_tensor *p2[1] = {vals_tensor(dt, x, 4, kV, 12)};
    check_op("MaxPool 3x3 s1 SAME NaN/-inf", "MaxPool", &a, p2, 1, 1, 0);
    a = pool_attrs(dt, "NCHW", "SAME", k3c, s2c);
    tfs_tensor *p3[1] = {vals_tensor(dt, xc, 4, kV, 12)};
    check_op("MaxPool NCHW 3x3 s2 SAME NaN/-inf", "MaxPool", &a, p3, 1, 1,
             0);
    a = pool_attrs(dt, "NHWC", "VALID", kd, kd);
    tfs_tensor *p4[1] = {vals_tensor(dt, x, 4, kV, 12)};
    check_op("MaxPool across depth NaN/-inf", "MaxPool", &a, p4, 1, 1, 0);
  }
  static const struct {
    const char *op, *what;
    int64_t k[4], s[4];
  } kErr[] = {
      {"AvgPool", "depth window 2", {1, 1, 1, 2}, {1, 1, 1, 2}},
      {"AvgPool", "depth window 3 of 4", {1, 1, 1, 3}, {1, 1, 1, 3}},
      {"AvgPool", "depth stride != window", {1, 1, 1, 2}, {1, 1, 1, 1}},
      {"AvgPool", "depth and space", {1, 2, 2, 2}, {1, 1, 1, 2}},
      {"MaxPool", "depth and space", {1, 2, 2, 2}, {1, 1, 1, 2}},
      {"MaxPool", "depth window 3 of 4", {1, 1, 1, 3}, {1, 1, 1, 3}},
      {"MaxPool", "depth stride != window", {1, 1, 1, 2}, {1, 1, 1, 1}},
      {"AvgPool", "batch window", {2, 1, 1, 1}, {1, 1, 1, 1}},
      {"MaxPool", "batch stride", {1, 1, 1, 1}, {2, 1, 1, 1}},
      {"MaxPool", "zero ksize", {1, 0, 2, 1}, {1, 1, 1, 1}},
      {"AvgPool", "zero ksize", {1, 2, 0, 1}, {1, 1, 1, 1}},
  };
  for (size_t i = 0; i < sizeof kErr / sizeof kErr[0]; i++) {
    attrs a = pool_attrs(TFS_FLOAT, "NHWC", "VALID", kErr[i].k, kErr[i].s);
    char label[64];
    snprintf(label, sizeof label, "%s error: %s", kErr[i].op, kErr[i].what);
    tfs_tensor *in[1] = {rand_tensor(TFS_FLOAT, x, 4, -1, 1, 0)};
    check_error(label, kErr[i].op, &a, in, 1, 1);
  }
}

/* FusedBatchNormV3 against the CPU kernel on all six outputs. */
static void bn_case(const char *label, tfs_dtype dt, const char *fmt,
                    const int64_t *x, int nd, int training, float factor) {
  int64_t c[1] = {fmt[1] == 'C' ? x[1] : x[nd - 1]};
  attrs as = {6, {A_T("T", dt), A_T("U", TFS_FLOAT), A_F("epsilon", 1e-3f),
                  A_B("is_training", training), A_S("data_format", fmt),
                  A_F("exponential_avg_factor", factor)}};
  tfs_tensor *in[5] = {rand_tensor(dt, x, nd, -2, 2, 0),
                       rand_tensor(TFS_FLOAT, c, 1, 0.5, 1.5, 0),
                       rand_tensor(TFS_FLOAT, c, 1, -0.5, 0.5, 0),
                       rand_tensor(TFS_FLOAT, c, 1, -0.5, 0.5, 0),
                       rand_tensor(TFS_FLOAT, c, 1, 0.5, 1.5, 0)};
  check_op(label, "FusedBatchNormV3", &as, in, 5, 6, 100);
}

static void bn_edge_cases(void) {
  static const int64_t x5[5] = {2, 3, 4, 5, 6}, x4[4] = {3, 4, 5, 6};
  static const int64_t one[4] = {1, 1, 1, 5}, none[4] = {0, 2, 2, 5};
  for (int tr = 0; tr < 2; tr++) {
    bn_case(tr ? "BN V3 5-D NDHWC training" : "BN V3 5-D NDHWC inference",
            TFS_FLOAT, "NDHWC", x5, 5, tr, 1.0f);
    bn_case(tr ? "BN V3 5-D NCDHW training" : "BN V3 5-D NCDHW inference",
            TFS_FLOAT, "NCDHW", x5, 5, tr, 1.0f);
    bn_case(tr ? "BN V3 NCHW training" : "BN V3 NCHW inference", TFS_FLOAT,
            "NCHW", x4, 4, tr, 1.0f);
    bn_case("BN V3 empty input", TFS_FLOAT, "NHWC", none, 4, tr, 1.0f);
    bn_case("BN V3 empty input, factor 0.5", TFS_FLOAT, "NHWC", none, 4, tr,
            0.5f);
  }
  bn_case("BN V3 training, exponential_avg_factor 0.3", TFS_FLOAT, "NHWC",
          x4, 4, 1, 0.3f);
  bn_case("BN V3 5-D NDHWC training, factor 0.3", TFS_FLOAT, "NDHWC", x5, 5,
          1, 0.3f);
  bn_case("BN V3 training, one element per channel", TFS_FLOAT, "NHWC", one,
          4, 1, 1.0f);
  bn_case("BN V3 training, one element, factor 0.3", TFS_FLOAT, "NHWC", one,
          4, 1, 0.3f);
  bn_case("BN V3 training", TFS_HALF, "NHWC", x4, 4, 1, 1.0f);
  bn_case("BN V3 training", TFS_BFLOAT16, "NHWC", x4, 4, 1, 0.3f);
  bn_case("BN V3 5-D NCDHW inference", TFS_BFLOAT16, "NCDHW", x5, 5, 0,
          1.0f);
}

/* ---- placement, errors, ordering ---------------------------------------------- */

static void expect(int cond, const char *what, const char *detail) {
  printf("  %-60s %s%s%s\n", what, cond ? "OK" : "FAIL", detail ? ": " : "",
         detail ? detail : "");
  cond ? g_passed++ : g_failed++;
}

static void error_cases(void) {
  tfs_status *st = tfs_status_new();
  tfs_device_set *ds = tfs_device_set__new(NULL, st);
  tfs_device *gpu = tfs_device_set__find(ds, "/device:GPU:0");
  tfs_shape huge = {.rank = 2, .dims = {1ll << 30, 1ll << 20}};
  tfs_tensor *t = tfs_device__alloc_tensor(gpu, TFS_FLOAT, &huge, st);
  expect(!t && strstr(tfs_status_message(st),
                      "OOM when allocating tensor with shape[1073741824,"
                      "1048576] and type float on /job:localhost/replica:0/"
                      "task:0/device:GPU:0 by allocator GPU_0_bfc"),
         "OOM message", tfs_status_message(st));
  int64_t a[2] = {2, 3}, b[2] = {4, 5};
  attrs as = {1, {A_T("T", TFS_FLOAT)}};
  tfs_tensor *in[2] = {rand_tensor(TFS_FLOAT, a, 2, -1, 1, 0),
                       rand_tensor(TFS_FLOAT, b, 2, -1, 1, 0)};
  tfs_tensor *out[1] = {NULL};
  dr_run_op("MatMul", set_attrs, &as, "/device:GPU:0", NULL, in, 2, out, 1,
            st);
  /* constant inputs: shape inference refuses the node as it is added,
   * with TensorFlow's text (the attrs sorted, the device last) */
  expect(strstr(tfs_status_message(st),
                "Dimensions must be equal, but are 3 and 4 for '{{node op}} "
                "= MatMul[T=DT_FLOAT, grad_a=false, grad_b=false, "
                "transpose_a=false, transpose_b=false, "
                "_device=\"/device:GPU:0\"](in0, in1)' with input shapes: "
                "[2,3], [4,5].") != NULL,
         "MatMul shape message on GPU", tfs_status_message(st));
  tfs_tensor_free(in[0]);
  tfs_tensor_free(in[1]);
  tfs_config cfg;
  tfs_config__init(&cfg);
  char list[] = "99";
  cfg.gpu_options.visible_device_list = list;
  tfs_device_set *bad = tfs_device_set__new(&cfg, st);
  expect(!bad && strstr(tfs_status_message(st),
                        "'visible_device_list' listed an invalid Device id "
                        "'99' but visible device count is"),
         "visible_device_list message", tfs_status_message(st));
  tfs_device_set__free(bad);
  tfs_device_set__free(ds);
  tfs_status_free(st);
}

static void placement_cases(void) {
  tfs_status *st = tfs_status_new();
  tfs_graph *g = tfs_graph_new();
  int64_t d[1] = {4};
  tfs_tensor *f = rand_tensor(TFS_FLOAT, d, 1, -1, 1, 0);
  int32_t iv[4] = {1, 2, 3, 4};
  tfs_tensor *i = int32_vector(iv, 4);
  tfs_output cf = tfs_op_const(g, "cf", f, st), ci = tfs_op_const(g, "ci", i,
                                                                   st);
  tfs_op_add(g, "add_f", cf, cf, st);
  tfs_op_add(g, "add_i", ci, ci, st);
  dr_graph *r = dr_graph_new(g, NULL, 0, NULL, 0, st);
  expect(r && dr_graph_device(r, "add_f") &&
             !strcmp(dr_graph_device(r, "add_f")->name,
                     "/job:localhost/replica:0/task:0/device:GPU:0"),
         "float Add placed on GPU:0", tfs_status_message(st));
  expect(r && dr_graph_device(r, "add_i") &&
             !strcmp(dr_graph_device(r, "add_i")->type->name, "CPU"),
         "int32 Add placed on the CPU", NULL);
  dr_graph_free(r);
  tfs_graph_free(g);
  tfs_tensor_free(f);
  tfs_tensor_free(i);
  tfs_status_free(st);
}

/* Many host->device->kernel->host rounds on large tensors: a missing
 * stream dependency shows up as wrong values. */
static void ordering_stress(void) {
  tfs_status *st = tfs_status_new();
  int64_t d[1] = {4 << 20};
  attrs as = {1, {A_T("T", TFS_FLOAT)}};
  int bad = 0;
  for (int round = 0; round < 20 && !bad; round++) {
    tfs_tensor *in[2] = {rand_tensor(TFS_FLOAT, d, 1, -1, 1, 0),
                         rand_tensor(TFS_FLOAT, d, 1, -1, 1, 0)};
    tfs_tensor *out[1] = {NULL};
    if (dr_run_op("AddV2", set_attrs, &as, "/device:GPU:0", NULL, in, 2, out,
                  1, st)) {
      bad = 1;
    } else {
      const float *x = tfs_tensor_data(in[0]), *y = tfs_tensor_data(in[1]);
      const float *o = tfs_tensor_data(out[0]);
      for (int64_t k = 0; k < d[0] && !bad; k++) bad = o[k] != x[k] + y[k];
    }
    tfs_tensor_free(out[0]);
    tfs_tensor_free(in[0]);
    tfs_tensor_free(in[1]);
  }
  expect(!bad, "20 rounds of 16 MiB AddV2, values exact",
         bad ? tfs_status_message(st) : NULL);
  tfs_status_free(st);
}

/* ---- whole graphs through sessions ------------------------------------- */

/* A session over g: its default devices (GPU:0 preferred), or with
 * device_count {"GPU": 0} (CPU only). */
static tfs_session *session_on(tfs_graph *g, int gpu, tfs_status *st) {
  static const uint8_t kNoGpu[9] = {0x0a, 0x07, 0x0a, 0x03, 'G', 'P', 'U',
                                    0x10, 0x00};
  tfs_session_options *o = tfs_session_options_new();
  if (!gpu) tfs_session_options_set_config(o, kNoGpu, sizeof kNoGpu, st);
  tfs_session *s = tfs_status_ok(st) ? tfs_session_new(g, o, st) : NULL;
  tfs_session_options_free(o);
  return s;
}

/* x [8,64] -> MatMul -> BiasAdd -> Relu -> Softmax -> Sum over axis 1:
 * the plan places the float ops on GPU:0 and copies the feed in and the
 * fetch out; values match a CPU-only session. */
static void session_cases(void) {
  tfs_status *st = tfs_status_new();
  tfs_graph *g = tfs_graph_new();
  int64_t xd[2] = {8, 64}, wd[2] = {64, 32}, bd[1] = {32};
  tfs_tensor *w = rand_tensor(TFS_FLOAT, wd, 2, -0.2, 0.2, 0);
  tfs_tensor *b = rand_tensor(TFS_FLOAT, bd, 1, -0.1, 0.1, 0);
  tfs_tensor *xt = rand_tensor(TFS_FLOAT, xd, 2, -1, 1, 0);
  int32_t one = 1;
  tfs_tensor *axis = int32_vector(&one, 1);
  tfs_output x = tfs_op_placeholder(g, "x", TFS_FLOAT, xd, 2, st);
  tfs_output mm = tfs_op_matmul(g, "mm", x, tfs_op_const(g, "w", w, st), 0,
                                0, st);
  tfs_output ba = tfs_op_bias_add(g, "ba", mm, tfs_op_const(g, "b", b, st),
                                  st);
  tfs_output r = tfs_op_unary(g, "Relu", "r", ba, st);
  tfs_output sm = tfs_op_unary(g, "Softmax", "sm", r, st);
  tfs_output sum = tfs_op_sum(g, "sum", sm, tfs_op_const(g, "axis", axis, st),
                              0, st);
  tfs_output fetch[2] = {sm, sum};
  tfs_session *gs = session_on(g, 1, st), *cs = session_on(g, 0, st);
  tfs_tensor *want[2] = {NULL, NULL}, *got[2] = {NULL, NULL};
  int ok = tfs_status_ok(st);
  if (ok) tfs_session_run(cs, &x, &xt, 1, fetch, want, 2, NULL, 0, st);
  tfs_callable *c = NULL;
  if (tfs_status_ok(st))
    c = tfs_session_make_callable(gs, &x, 1, fetch, 2, NULL, 0, NULL, st);
  tfs_plan *p = c ? tfs_callable__plan(c) : NULL;
  int on_gpu = 0, copies = 0;
  for (int i = 0; p && i < p->nnodes; i++) {
    const tfs_plan_node *pn = &p->nodes[i];
    if (strcmp(pn->op->name, "mm") == 0 || strcmp(pn->op->name, "sm") == 0)
      on_gpu += pn->device && !strcmp(pn->device->type->name, "GPU");
    copies += strcmp(pn->op->def->name, "_Copy") == 0;
  }
  expect(on_gpu == 2 && copies >= 3, "MatMul and Softmax placed on GPU:0, "
         "feed and fetches copied", tfs_status_message(st));
  int bad = 0;
  for (int round = 0; round < 50 && c && !bad; round++) {
    tfs_callable_run(c, &xt, 1, got, 2, st);
    bad = !tfs_status_ok(st) || tfs_device__tensor_device(got[0]) ||
          nmse(got[0], want[0]) > 1e-6 || nmse(got[1], want[1]) > 1e-6;
    tfs_tensor_free(got[0]);
    tfs_tensor_free(got[1]);
  }
  expect(c && !bad, "50 session runs on GPU:0 equal the CPU session's",
         tfs_status_message(st));
  tfs_callable_free(c);
  tfs_session_free(gs);
  tfs_session_free(cs);
  tfs_tensor_free(want[0]);
  tfs_tensor_free(want[1]);
  for (tfs_tensor **t = (tfs_tensor *[]){w, b, xt, axis, NULL}; *t; t++)
    tfs_tensor_free(*t);
  tfs_graph_free(g);
  tfs_status_free(st);
}

int main(int argc, char **argv) {
  if (argc > 1) g_only = argv[1];
  tfs_status *st = tfs_status_new();
  tfs_device_set *ds = tfs_device_set__new(NULL, st);
  tfs_device *gpu = ds ? tfs_device_set__find(ds, "/device:GPU:0") : NULL;
  if (!gpu) {
    printf("test_cuda_ops: no GPU on this machine (%s): skipped\n",
           tfs_status_ok(st) ? "no CUDA device" : tfs_status_message(st));
    tfs_device_set__free(ds);
    tfs_status_free(st);
    return 77;
  }
  printf("test_cuda_ops on %s (%s)\n", gpu->name, gpu->desc);
  tfs_device_set__free(ds);
  tfs_status_free(st);
  printf("binary:\n");
  binary_cases();
  printf("unary:\n");
  unary_cases();
  printf("nn:\n");
  nn_cases();
  printf("reductions:\n");
  reduce_cases();
  printf("blas:\n");
  matmul_cases();
  printf("dnn:\n");
  dnn_cases();
  printf("edge cases (NaN, infinities, attrs, errors):\n");
  activation_edge_cases();
  cast_truncate_cases();
  pool_edge_cases();
  bn_edge_cases();
  if (!g_only) {
    printf("placement and errors:\n");
    placement_cases();
    error_cases();
    ordering_stress();
    printf("sessions:\n");
    session_cases();
  }
  printf("TFS-RESULT: passed=%d failed=%d\n", g_passed, g_failed);
  return g_failed ? 1 : 0;
}
