/*
 * tests/kernels/test_random_logging.c - the random ops (moments, ranges,
 * determinism for fixed seeds, Philox's known answers, the stateless ops
 * agreeing with each other, errors) and the debug/logging ops:
 * CheckNumerics, Print, PrintV2 and StringFormat (TensorFlow's exact
 * output text).
 */
#include <math.h>
#include <stdlib.h>
#include <unistd.h>

#include "mathtest.h"
#include "backends/cpu/philox.h"

#define NODE "\n\t [[{{node op}}]]"
#define D MT_DIMS
#define V MT_VALS

/* ---- random -------------------------------------------------------------- */

typedef struct {
  int64_t seed, seed2;
  tfs_dtype dtype;
} seed_arg;

static void set_seeds(tfs_op_desc *d, const void *arg) {
  const seed_arg *a = arg;
  tfs_op_desc_set_attr_int(d, "seed", a->seed);
  tfs_op_desc_set_attr_int(d, "seed2", a->seed2);
  if (a->dtype) tfs_op_desc_set_attr_type(d, "dtype", a->dtype);
}

static tfs_tensor *draw(const char *op, int64_t n, seed_arg a) {
  mt_op o = {op, -1, set_seeds, &a};
  tfs_tensor *shape = mt_t(TFS_INT32, 1, D(1), V((double)n));
  tfs_tensor *r = mt_eval(&o, &shape, 1);
  tfs_tensor_free(shape);
  return r;
}

static void moments(const tfs_tensor *t, double *mean, double *var,
                    double *lo, double *hi) {
  int64_t n = tfs_tensor_num_elements(t);
  double s = 0, s2 = 0;
  *lo = INFINITY;
  *hi = -INFINITY;
  for (int64_t i = 0; i < n; i++) {
    double v = mt_get(t, i);
    s += v;
    s2 += v * v;
    *lo = fmin(*lo, v);
    *hi = fmax(*hi, v);
  }
  *mean = s / n;
  *var = s2 / n - *mean * *mean;
}

static void test_uniform(void) {
  static const tfs_dtype dts[] = {TFS_FLOAT, TFS_DOUBLE, TFS_HALF,
                                  TFS_BFLOAT16};
  for (int k = 0; k < 4; k++) {
    seed_arg a = {7, 11, dts[k]};
    tfs_tensor *t = draw("RandomUniform", 100000, a);
    double m, v, lo, hi;
    moments(t, &m, &v, &lo, &hi);
    CU_ASSERT_EQUAL(tfs_tensor_dtype(t), dts[k]);
    CU_ASSERT_DOUBLE_EQUAL(m, 0.5, 0.01);
    CU_ASSERT_DOUBLE_EQUAL(v, 1.0 / 12, 0.005);
    CU_ASSERT(lo >= 0 && lo < 0.01);
    CU_ASSERT(hi < 1 && hi > 0.99);
    tfs_tensor_free(t);
  }
}

static void test_normal_and_truncated(void) {
  seed_arg a = {1, 2, TFS_FLOAT};
  tfs_tensor *t = draw("RandomStandardNormal", 200000, a);
  double m, v, lo, hi;
  moments(t, &m, &v, &lo, &hi);
  CU_ASSERT_DOUBLE_EQUAL(m, 0, 0.01);
  CU_ASSERT_DOUBLE_EQUAL(v, 1, 0.02);
  int64_t within = 0;
  for (int64_t i = 0; i < 200000; i++) within += fabs(mt_get(t, i)) < 1;
  CU_ASSERT_DOUBLE_EQUAL(within / 200000.0, 0.6827, 0.005);
  CU_ASSERT(lo < -3.5 && hi > 3.5);
  tfs_tensor_free(t);
  static const tfs_dtype dts[] = {TFS_FLOAT, TFS_DOUBLE, TFS_HALF,
                                  TFS_BFLOAT16};
  for (int k = 0; k < 4; k++) {
    seed_arg b = {3, 0, dts[k]};
    t = draw("TruncatedNormal", 100000, b);
    moments(t, &m, &v, &lo, &hi);
    CU_ASSERT_DOUBLE_EQUAL(m, 0, 0.01);
    /* variance of a standard normal truncated to (-2, 2) */
    CU_ASSERT_DOUBLE_EQUAL(v, 0.7737, 0.01);
    CU_ASSERT(lo >= -2 && hi <= 2);
    tfs_tensor_free(t);
  }
}

static void set_seeds_only(tfs_op_desc *d, const void *arg) {
  const seed_arg *a = arg;
  tfs_op_desc_set_attr_int(d, "seed", a->seed);
  tfs_op_desc_set_attr_int(d, "seed2", a->seed2);
}

static void test_uniform_int(void) {
  seed_arg a = {5, 6, 0};
  mt_op o = {"RandomUniformInt", -1, set_seeds_only, &a};
  tfs_tensor *shape = mt_t(TFS_INT64, 1, D(1), V(100000));
  tfs_tensor *lo = mt_scalar(TFS_INT32, -3), *hi = mt_scalar(TFS_INT32, 7);
  tfs_tensor *t = mt_eval(&o, (tfs_tensor *[]){shape, lo, hi}, 3);
  CU_ASSERT_EQUAL(tfs_tensor_dtype(t), TFS_INT32);
  double m, v, mn, mx;
  moments(t, &m, &v, &mn, &mx);
  CU_ASSERT_EQUAL(mn, -3);
  CU_ASSERT_EQUAL(mx, 6);
  CU_ASSERT_DOUBLE_EQUAL(m, 1.5, 0.05);
  CU_ASSERT_DOUBLE_EQUAL(v, 99.0 / 12, 0.1);
  tfs_tensor *l64 = mt_scalar(TFS_INT64, -4e18), *h64 = mt_scalar(TFS_INT64,
                                                                   4e18);
  tfs_tensor *t64 = mt_eval(&o, (tfs_tensor *[]){shape, l64, h64}, 3);
  moments(t64, &m, &v, &mn, &mx);
  CU_ASSERT(mn >= -4e18 && mx < 4e18);
  /* bits % range over 2^64 = 2 * range + 2.45e18 favours the low values
   * (TensorFlow's modulo bias): the mean is near -0.092 * 4e18 */
  CU_ASSERT_DOUBLE_EQUAL(m / 4e18, -0.092, 0.02);
  mt_free_all((tfs_tensor *[]){shape, lo, hi, t, l64, h64, t64}, 7);
}

static void test_determinism(void) {
  seed_arg a = {42, 9, TFS_FLOAT};
  tfs_tensor *x = draw("RandomUniform", 1000, a);
  tfs_tensor *y = draw("RandomUniform", 1000, a);
  CU_ASSERT_EQUAL(memcmp(tfs_tensor_data(x), tfs_tensor_data(y), 4000), 0);
  seed_arg b = {42, 10, TFS_FLOAT};
  tfs_tensor *z = draw("RandomUniform", 1000, b);
  CU_ASSERT_NOT_EQUAL(memcmp(tfs_tensor_data(x), tfs_tensor_data(z), 4000),
                      0);
  /* the same values whatever the intra-op thread count */
  mt_set_threads(4);
  tfs_tensor *x4 = draw("RandomUniform", 1000, a);
  mt_set_threads(0);
  CU_ASSERT_EQUAL(memcmp(tfs_tensor_data(x), tfs_tensor_data(x4), 4000), 0);
  tfs_tensor_free(x4);
  /* unseeded: two sessions differ */
  seed_arg u = {0, 0, TFS_FLOAT};
  tfs_tensor *p = draw("RandomStandardNormal", 1000, u);
  tfs_tensor *q = draw("RandomStandardNormal", 1000, u);
  CU_ASSERT_NOT_EQUAL(memcmp(tfs_tensor_data(p), tfs_tensor_data(q), 4000),
                      0);
  /* a second run of the same session continues the stream */
  tfs_graph *g = tfs_graph_new();
  tfs_status *st = tfs_status_new();
  tfs_tensor *sv = mt_t(TFS_INT32, 1, D(1), V(1000));
  tfs_output shape = tfs_op_const(g, "shape", sv, st);
  tfs_tensor_free(sv);
  tfs_op_desc *d = tfs_op_desc_new(g, "RandomUniform", "r");
  tfs_op_desc_add_input(d, shape);
  set_seeds(d, &a);
  tfs_output r = {tfs_op_desc_finish(d, st), 0};
  TFS_ASSERT_OK(st);
  tfs_session *s = tfs_session_new(g, NULL, st);
  tfs_tensor *r1 = tu_run1(s, r, NULL, NULL, 0), *r2 = tu_run1(s, r, NULL,
                                                               NULL, 0);
  CU_ASSERT_EQUAL(memcmp(tfs_tensor_data(r1), tfs_tensor_data(x), 4000), 0);
  CU_ASSERT_NOT_EQUAL(memcmp(tfs_tensor_data(r1), tfs_tensor_data(r2),
                             4000), 0);
  tfs_session_free(s);
  tfs_graph_free(g);
  tfs_status_free(st);
  mt_free_all((tfs_tensor *[]){x, y, z, p, q, r1, r2}, 7);
}


/* Random123's known-answer vectors for Philox4x32-10 */
static void test_philox_known_answers(void) {
  static const uint32_t cases[3][10] = {
      {0, 0, 0, 0, 0, 0, 0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8},
      {0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff,
       0xffffffff, 0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd},
      {0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344, 0xa4093822,
       0x299f31d0, 0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1},
  };
  for (int k = 0; k < 3; k++) {
    uint32_t out[4];
    tfs_philox_block(&cases[k][4], cases[k], out);
    for (int i = 0; i < 4; i++) CU_ASSERT_EQUAL(out[i], cases[k][6 + i]);
  }
  /* skipping carries from the low 64 counter bits into the high ones */
  tfs_philox g;
  tfs_philox_seeded(&g, 1, 0xffffffffull);
  g.ctr[0] = g.ctr[1] = 0xffffffffu;
  tfs_philox_skip(&g, 2);
  CU_ASSERT(g.ctr[0] == 1 && g.ctr[1] == 0 && g.ctr[2] == 0 &&
            g.ctr[3] == 1);
}

static void set_dtype(tfs_op_desc *d, const void *arg) {
  tfs_op_desc_set_attr_type(d, "dtype", *(const tfs_dtype *)arg);
}

/* V1 on a seed equals V2 on the key and counter GetKeyCounter makes of
 * it, on any thread count */
static void test_stateless_v1_v2(void) {
  static const char *ops[3][2] = {
      {"StatelessRandomUniform", "StatelessRandomUniformV2"},
      {"StatelessRandomNormal", "StatelessRandomNormalV2"},
      {"StatelessTruncatedNormal", "StatelessTruncatedNormalV2"}};
  tfs_dtype dt = TFS_DOUBLE;
  tfs_tensor *shape = mt_t(TFS_INT32, 1, D(1), V(1001));
  tfs_tensor *seed = mt_t(TFS_INT64, 1, D(2), V(17, -4));
  mt_op kc = {"StatelessRandomGetKeyCounter", -1, NULL, NULL};
  tfs_tensor *key, *ctr;
  {
    /* both outputs of GetKeyCounter: key from a direct computation */
    tfs_philox g;
    tfs_philox_from_seed(&g, 17, (uint64_t)-4);
    uint64_t k, c[2];
    tfs_philox_to_key_counter(&g, &k, c);
    tfs_tensor *kt = mt_eval(&kc, &seed, 1);
    CU_ASSERT_EQUAL(*(uint64_t *)tfs_tensor_data(kt), k);
    tfs_tensor_free(kt);
    tfs_status *st = tfs_status_new();
    key = tfs_tensor_new_copy(TFS_UINT64, D(1), 1, &k, 8, st);
    ctr = tfs_tensor_new_copy(TFS_UINT64, D(2), 1, c, 16, st);
    TFS_ASSERT_OK(st);
    tfs_status_free(st);
  }
  tfs_tensor *alg = mt_scalar(TFS_INT32, 3);
  for (int k = 0; k < 3; k++) {
    mt_op v1 = {ops[k][0], -1, set_dtype, &dt};
    mt_op v2 = {ops[k][1], -1, set_dtype, &dt};
    tfs_tensor *a = mt_eval(&v1, (tfs_tensor *[]){shape, seed}, 2);
    mt_set_threads(4);
    tfs_tensor *b = mt_eval(&v2, (tfs_tensor *[]){shape, key, ctr, alg}, 4);
    mt_set_threads(0);
    CU_ASSERT_EQUAL(memcmp(tfs_tensor_data(a), tfs_tensor_data(b),
                           1001 * 8), 0);
    mt_free_all((tfs_tensor *[]){a, b}, 2);
  }
  mt_free_all((tfs_tensor *[]){shape, seed, key, ctr, alg}, 5);
}

static void test_random_errors(void) {
  seed_arg a = {1, 1, TFS_FLOAT};
  mt_op o = {"RandomUniform", -1, set_seeds, &a};
  const char *m;
  tfs_tensor *bad = mt_t(TFS_INT32, 2, D(1, 1), V(2));
  mt_eval_fail(&o, &bad, 1, &m);
  CU_ASSERT_STRING_EQUAL(m, "shape must be a vector of {int32,int64}, got "
                            "shape [1,1]" NODE);
  tfs_tensor *neg = mt_t(TFS_INT32, 1, D(2), V(2, -1));
  mt_eval_fail(&o, &neg, 1, &m);
  CU_ASSERT_STRING_EQUAL(m, "Dimension -1 must be >= 0" NODE);
  double ones[17] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
  tfs_tensor *deep = mt_t(TFS_INT32, 1, D(17), ones);
  mt_eval_fail(&o, &deep, 1, &m);
  CU_ASSERT_STRING_EQUAL(m, "shape has 17 dimensions; at most 16 are "
                            "supported" NODE);
  tfs_tensor *huge = mt_t(TFS_INT64, 1, D(2), V(4294967296.0, 4294967296.0));
  CU_ASSERT_EQUAL(mt_eval_fail(&o, &huge, 1, &m), TFS_INVALID_ARGUMENT);
  CU_ASSERT_PTR_NOT_NULL(strstr(m, "[4294967296,4294967296]"));
  CU_ASSERT_PTR_NOT_NULL(strstr(m, NODE));
  mt_free_all((tfs_tensor *[]){deep, huge}, 2);
  tfs_tensor *empty = mt_t(TFS_INT32, 1, D(2), V(3, 0));
  tfs_tensor *e = mt_eval(&o, &empty, 1);
  mt_expect(e, TFS_FLOAT, 2, D(3, 0), NULL, 0);
  seed_arg b = {1, 1, 0};
  mt_op oi = {"RandomUniformInt", -1, set_seeds_only, &b};
  tfs_tensor *sh = mt_t(TFS_INT32, 1, D(1), V(2));
  tfs_tensor *five = mt_scalar(TFS_INT32, 5), *three = mt_scalar(TFS_INT32, 3);
  tfs_tensor *vec = mt_t(TFS_INT32, 1, D(1), V(1));
  mt_eval_fail(&oi, (tfs_tensor *[]){sh, five, three}, 3, &m);
  CU_ASSERT_STRING_EQUAL(m, "Need minval < maxval, got 5 >= 3" NODE);
  mt_eval_fail(&oi, (tfs_tensor *[]){sh, vec, three}, 3, &m);
  CU_ASSERT_STRING_EQUAL(m, "minval must be 0-D, got shape [1]" NODE);
  mt_eval_fail(&oi, (tfs_tensor *[]){sh, five, vec}, 3, &m);
  CU_ASSERT_STRING_EQUAL(m, "maxval must be 0-D, got shape [1]" NODE);
  /* an empty output never checks the bounds (as TensorFlow) */
  tfs_tensor *sh0 = mt_t(TFS_INT32, 1, D(1), V(0));
  tfs_tensor *r0 = mt_eval(&oi, (tfs_tensor *[]){sh0, five, three}, 3);
  mt_expect(r0, TFS_INT32, 1, D(0), NULL, 0);
  mt_free_all((tfs_tensor *[]){bad, neg, empty, e, sh, five, three, vec, sh0,
                               r0}, 10);
}

/* ---- CheckNumerics ------------------------------------------------------- */

static void set_message(tfs_op_desc *d, const void *arg) {
  tfs_op_desc_set_attr_string(d, "message", arg, strlen(arg));
}

static void test_check_numerics(void) {
  mt_op o = {"CheckNumerics", -1, set_message, "bad values"};
  tfs_tensor *ok = mt_t(TFS_FLOAT, 1, D(3), V(1, -2, 3e38));
  tfs_tensor *r = mt_eval(&o, &ok, 1);
  mt_expect(r, TFS_FLOAT, 1, D(3), V(1, -2, 3e38), 1e-7);
  const char *m;
  struct {
    tfs_dtype dt;
    double v[2];
    const char *what;
  } cases[] = {{TFS_FLOAT, {1, NAN}, "NaN"},
               {TFS_DOUBLE, {-INFINITY, 1}, "Inf"},
               {TFS_HALF, {NAN, INFINITY}, "Inf and NaN"},
               {TFS_BFLOAT16, {INFINITY, 0}, "Inf"}};
  for (int i = 0; i < 4; i++) {
    tfs_tensor *t = mt_t(cases[i].dt, 1, D(2), cases[i].v);
    CU_ASSERT_EQUAL(mt_eval_fail(&o, &t, 1, &m), TFS_INVALID_ARGUMENT);
    char want[128];
    snprintf(want, sizeof want, "bad values : Tensor had %s values" NODE,
             cases[i].what);
    CU_ASSERT_STRING_EQUAL(m, want);
    tfs_tensor_free(t);
  }
  mt_free_all((tfs_tensor *[]){ok, r}, 2);
}

/* ---- text output: stderr captured into a file ---------------------------- */

static int g_saved_fd = -1;
static FILE *g_capture;

static void capture_begin(int fd) {
  fflush(fd == 1 ? stdout : stderr);
  g_capture = tmpfile();
  CU_ASSERT_PTR_NOT_NULL_FATAL(g_capture);
  g_saved_fd = dup(fd);
  dup2(fileno(g_capture), fd);
}

/* Returns what was written (static buffer). */
static const char *capture_end(int fd) {
  static char buf[4096];
  fflush(fd == 1 ? stdout : stderr);
  dup2(g_saved_fd, fd);
  close(g_saved_fd);
  rewind(g_capture);
  size_t n = fread(buf, 1, sizeof buf - 1, g_capture);
  buf[n] = 0;
  fclose(g_capture);
  return buf;
}

typedef struct {
  const char *message;
  int64_t first_n, summarize;
} print_arg;

static void set_print(tfs_op_desc *d, const void *arg) {
  const print_arg *a = arg;
  tfs_op_desc_set_attr_string(d, "message", a->message, strlen(a->message));
  tfs_op_desc_set_attr_int(d, "first_n", a->first_n);
  tfs_op_desc_set_attr_int(d, "summarize", a->summarize);
}

static void test_print_legacy(void) {
  print_arg a = {"MSG: ", -1, 4};
  mt_op o = {"Print", 1, set_print, &a};
  tfs_status *st = tfs_status_new();
  tfs_tensor *in = mt_t(TFS_FLOAT, 1, D(2), V(1, 2));
  double v24[24];
  for (int i = 0; i < 24; i++) v24[i] = i;
  tfs_tensor *m = mt_t(TFS_INT32, 2, D(2, 5), v24);
  const char *strs[] = {"a", "b\n"};
  tfs_tensor *s = tfs_tensor_new_strings(D(2), 1, strs, NULL, st);
  tfs_tensor *b = mt_scalar(TFS_BOOL, 1), *f = mt_scalar(TFS_FLOAT, 0.1);
  tfs_tensor *c = mt_t(TFS_INT64, 3, D(2, 3, 4), v24);
  tfs_tensor *z = mt_t(TFS_FLOAT, 2, D(0, 2), NULL);
  capture_begin(2);
  tfs_tensor *r = mt_eval(&o, (tfs_tensor *[]){in, m, s, b, f, c, z}, 7);
  const char *text = capture_end(2);
  CU_ASSERT_STRING_EQUAL(text, "MSG: [[0 1 2 3...]...][a b\\n][1][0.1]"
                               "[[[0 1 2 3]]...][]\n");
  mt_expect(r, TFS_FLOAT, 1, D(2), V(1, 2), 0);
  print_arg a2 = {"m", -1, 0};
  o.arg = &a2;
  capture_begin(2);
  tfs_tensor *r2 = mt_eval(&o, (tfs_tensor *[]){in, m}, 2);
  CU_ASSERT_STRING_EQUAL(capture_end(2), "m[...]\n");
  tfs_status_free(st);
  mt_free_all((tfs_tensor *[]){in, m, s, b, f, c, z, r, r2}, 9);
}

static void test_print_first_n(void) {
  tfs_graph *g = tfs_graph_new();
  tfs_status *st = tfs_status_new();
  tfs_output x = tfs_op_const_float(g, "x", 3.5f, st);
  tfs_op_desc *d = tfs_op_desc_new(g, "Print", "p");
  tfs_op_desc_add_input(d, x);
  tfs_op_desc_add_input_list(d, &x, 1);
  print_arg a = {"x=", 2, 3};
  set_print(d, &a);
  tfs_output p = {tfs_op_desc_finish(d, st), 0};
  TFS_ASSERT_OK(st);
  tfs_session *s = tfs_session_new(g, NULL, st);
  capture_begin(2);
  for (int i = 0; i < 4; i++) tfs_tensor_free(tu_run1(s, p, NULL, NULL, 0));
  CU_ASSERT_STRING_EQUAL(capture_end(2), "x=[3.5]\nx=[3.5]\n");
  tfs_session_free(s);
  tfs_graph_free(g);
  tfs_status_free(st);
}

/* ---- PrintV2, StringFormat ----------------------------------------------- */

typedef struct {
  const char *stream, *end;
} pv2_arg;

static void set_pv2(tfs_op_desc *d, const void *arg) {
  const pv2_arg *a = arg;
  if (a->stream)
    tfs_op_desc_set_attr_string(d, "output_stream", a->stream,
                                strlen(a->stream));
  if (a->end) tfs_op_desc_set_attr_string(d, "end", a->end, strlen(a->end));
}

/* Runs PrintV2 as a target; returns the run's status code. */
static tfs_code print_v2(tfs_tensor *value, pv2_arg a, char *msg) {
  tfs_graph *g = tfs_graph_new();
  tfs_status *st = tfs_status_new();
  tfs_output in = tfs_op_placeholder(g, "in", TFS_STRING, NULL, -1, st);
  tfs_op_desc *d = tfs_op_desc_new(g, "PrintV2", "op");
  tfs_op_desc_add_input(d, in);
  set_pv2(d, &a);
  tfs_operation *op = tfs_op_desc_finish(d, st);
  TFS_ASSERT_OK(st);
  tfs_session *s = tfs_session_new(g, NULL, st);
  tfs_session_run(s, &in, &value, 1, NULL, NULL, 0, &op, 1, st);
  tfs_code code = tfs_status_code(st);
  snprintf(msg, 512, "%s", tfs_status_message(st));
  tfs_session_free(s);
  tfs_graph_free(g);
  tfs_status_free(st);
  return code;
}

static void test_print_v2(void) {
  tfs_status *st = tfs_status_new();
  tfs_tensor *hello = tfs_tensor_scalar_string("hello", 5);
  char msg[512];
  capture_begin(2);
  CU_ASSERT_EQUAL(print_v2(hello, (pv2_arg){NULL, NULL}, msg), TFS_OK);
  CU_ASSERT_EQUAL(print_v2(hello, (pv2_arg){"stderr", "!"}, msg), TFS_OK);
  CU_ASSERT_STRING_EQUAL(capture_end(2), "hello\nhello!");
  capture_begin(1);
  CU_ASSERT_EQUAL(print_v2(hello, (pv2_arg){"stdout", NULL}, msg), TFS_OK);
  CU_ASSERT_STRING_EQUAL(capture_end(1), "hello\n");
  CU_ASSERT_EQUAL(print_v2(hello, (pv2_arg){"bogus", NULL}, msg),
                  TFS_INVALID_ARGUMENT);
  CU_ASSERT_STRING_EQUAL(msg, "Unknown output stream: bogus, Valid streams "
                              "are: stdout stderr log(info) log(warning) "
                              "log(error)" NODE);
  const char *two[] = {"a", "b"};
  tfs_tensor *vec = tfs_tensor_new_strings(D(2), 1, two, NULL, st);
  CU_ASSERT_EQUAL(print_v2(vec, (pv2_arg){NULL, NULL}, msg),
                  TFS_INVALID_ARGUMENT);
  CU_ASSERT_STRING_EQUAL(msg, "Input is expected to be scalar, but got "
                              "[2]" NODE);
  char path[] = "/tmp/tfs-printv2-XXXXXX";
  int fd = mkstemp(path);
  close(fd);
  char stream[64];
  snprintf(stream, sizeof stream, "file://%s", path);
  CU_ASSERT_EQUAL(print_v2(hello, (pv2_arg){stream, NULL}, msg), TFS_OK);
  CU_ASSERT_EQUAL(print_v2(hello, (pv2_arg){stream, NULL}, msg), TFS_OK);
  FILE *f = fopen(path, "r");
  char buf[64] = {0};
  CU_ASSERT_EQUAL(fread(buf, 1, sizeof buf - 1, f), 12);
  CU_ASSERT_STRING_EQUAL(buf, "hello\nhello\n");
  fclose(f);
  unlink(path);
  CU_ASSERT_EQUAL(print_v2(hello, (pv2_arg){"file:///nonexistent-dir/x",
                                            NULL}, msg),
                  TFS_INVALID_ARGUMENT);
  CU_ASSERT_STRING_EQUAL(msg, "Failed to write to file: "
                              "/nonexistent-dir/x" NODE);
  tfs_status_free(st);
  mt_free_all((tfs_tensor *[]){hello, vec}, 2);
}

typedef struct {
  const char *template_, *placeholder;
  int64_t summarize;
} fmt_arg;

static void set_fmt(tfs_op_desc *d, const void *arg) {
  const fmt_arg *a = arg;
  tfs_op_desc_set_attr_string(d, "template", a->template_,
                              strlen(a->template_));
  tfs_op_desc_set_attr_string(d, "placeholder", a->placeholder,
                              strlen(a->placeholder));
  tfs_op_desc_set_attr_int(d, "summarize", a->summarize);
}

/* StringFormat of one tensor with "{}" and `summarize`; checks the text. */
static void check_fmt(tfs_tensor *t, int64_t summarize, const char *want) {
  fmt_arg a = {"{}", "{}", summarize};
  mt_op o = {"StringFormat", 0, set_fmt, &a};
  tfs_tensor *r = mt_eval(&o, &t, 1);
  size_t len;
  const char *got = tfs_tensor_string_at(r, 0, &len);
  if (strcmp(got, want) != 0)
    fprintf(stderr, "\n  got \"%s\"\n  expected \"%s\"\n", got, want);
  CU_ASSERT_STRING_EQUAL(got, want);
  mt_free_all((tfs_tensor *[]){t, r}, 2);
}

static tfs_tensor *iota(tfs_dtype dt, int nd, const int64_t *dims) {
  double v[64];
  for (int i = 0; i < 64; i++) v[i] = i;
  return mt_t(dt, nd, dims, v);
}

/* Expected texts are TensorFlow 2.21's tf.strings.format outputs. */
static void test_string_format_layout(void) {
  check_fmt(iota(TFS_INT64, 3, D(2, 2, 2)), 3,
            "[[[0 1]\n  [2 3]]\n\n [[4 5]\n  [6 7]]]");
  check_fmt(iota(TFS_INT64, 3, D(2, 3, 4)), 3,
            "[[[0 1 2 3]\n  [4 5 6 7]\n  [8 9 10 11]]\n\n [[12 13 14 15]\n"
            "  [16 17 18 19]\n  [20 21 22 23]]]");
  check_fmt(iota(TFS_INT64, 3, D(2, 3, 4)), 1,
            "[[[0 ... 3]\n  ...\n  [8 ... 11]]\n\n [[12 ... 15]\n  ...\n"
            "  [20 ... 23]]]");
  check_fmt(iota(TFS_INT32, 1, D(10)), 3, "[0 1 2 ... 7 8 9]");
  check_fmt(iota(TFS_INT32, 1, D(10)), 0, "[ ...]");
  check_fmt(iota(TFS_INT32, 1, D(10)), -1, "[0 1 2 3 4 5 6 7 8 9]");
  check_fmt(iota(TFS_INT32, 1, D(7)), 3, "[0 1 2 ... 4 5 6]");
  check_fmt(iota(TFS_INT32, 1, D(6)), 3, "[0 1 2 3 4 5]");
  check_fmt(iota(TFS_INT32, 2, D(6, 1)), 2, "[[0]\n [1]\n ...\n [4]\n [5]]");
  check_fmt(mt_t(TFS_DOUBLE, 2, D(2, 0), NULL), 3, "[\n ...]");
  check_fmt(mt_t(TFS_DOUBLE, 1, D(0), NULL), 3, "[]");
  check_fmt(mt_t(TFS_DOUBLE, 2, D(0, 2), NULL), 3, "[]");
  check_fmt(mt_scalar(TFS_FLOAT, 3.5), 3, "3.5");
}

static void test_string_format_elements(void) {
  check_fmt(mt_t(TFS_FLOAT, 1, D(8),
                 V(0.1, 1.0 / 3, 1e10, 1e-7, -0.0, NAN, INFINITY,
                   -INFINITY)),
            -1, "[0.1 0.333333343 1e+10 1e-07 -0 nan inf -inf]");
  check_fmt(mt_t(TFS_DOUBLE, 1, D(3), V(0.1, 1.0 / 3, 1e10)), -1,
            "[0.1 0.33333333333333331 10000000000]");
  check_fmt(mt_t(TFS_BOOL, 1, D(2), V(1, 0)), 3, "[1 0]");
  check_fmt(mt_t(TFS_HALF, 1, D(1), V(1.5)), 3, "[1.5]");
  check_fmt(mt_complex(TFS_COMPLEX64, 1, D(1), V(1, 2)), 3, "[?]");
  tfs_status *st = tfs_status_new();
  const char *strs[] = {"ab", "c\"d'\n", "\303\251\177"};
  check_fmt(tfs_tensor_new_strings(D(3), 1, strs, NULL, st), 3,
            "[\"ab\" \"c\\\"d\\'\\n\" \"\303\251\\177\"]");
  tfs_status_free(st);
}

static void test_string_format_template(void) {
  fmt_arg a = {"a%sb%sc", "%s", 3};
  mt_op o = {"StringFormat", 0, set_fmt, &a};
  tfs_tensor *x = mt_scalar(TFS_INT32, 1), *y = mt_scalar(TFS_INT32, 2);
  tfs_tensor *r = mt_eval(&o, (tfs_tensor *[]){x, y}, 2);
  size_t len;
  CU_ASSERT_STRING_EQUAL(tfs_tensor_string_at(r, 0, &len), "a1b2c");
  fmt_arg b = {"aaa", "aa", 3};
  o.arg = &b;
  tfs_tensor *r2 = mt_eval(&o, &x, 1);
  CU_ASSERT_STRING_EQUAL(tfs_tensor_string_at(r2, 0, &len), "1a");
  fmt_arg c = {"{} {}", "{}", 3};
  o.arg = &c;
  const char *m;
  CU_ASSERT_EQUAL(mt_eval_fail(&o, &x, 1, &m), TFS_INVALID_ARGUMENT);
  CU_ASSERT_PTR_NOT_NULL(strstr(m, "num placeholders in template and num "
                                   "inputs must match: 2 vs. 1"));
  mt_free_all((tfs_tensor *[]){x, y, r, r2}, 4);
}

static const tfs_test_case random_cases[] = {
    {"uniform", test_uniform},
    {"normal_and_truncated", test_normal_and_truncated},
    {"uniform_int", test_uniform_int},
    {"determinism", test_determinism},
    {"errors", test_random_errors},
    {"philox_known_answers", test_philox_known_answers},
    {"stateless_v1_v2", test_stateless_v1_v2},
    {NULL, NULL},
};

static const tfs_test_case logging_cases[] = {
    {"check_numerics", test_check_numerics},
    {"print_legacy", test_print_legacy},
    {"print_first_n", test_print_first_n},
    {"print_v2", test_print_v2},
    {"string_format_layout", test_string_format_layout},
    {"string_format_elements", test_string_format_elements},
    {"string_format_template", test_string_format_template},
    {NULL, NULL},
};

const tfs_test_suite tfs_test_suites[] = {
    {"random_ops", random_cases},
    {"logging_ops", logging_cases},
    {NULL, NULL},
};
