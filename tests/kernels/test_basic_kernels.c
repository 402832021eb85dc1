/*
 * tests/kernels/test_basic_kernels.c - the first op set's CPU kernels:
 * broadcasting arithmetic, unary math, MatMul, BiasAdd, Softmax, Sum/Mean,
 * Reshape, Cast, Shape, Fill, ZerosLike, Assert; values and the errors
 * kernels report at run time (naming the node).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

static tfs_graph *g;
static tfs_status *st;
static tfs_session *s;

static void setup(void) {
  g = tfs_graph_new();
  st = tfs_status_new();
  s = NULL;
}

static void teardown(void) {
  tfs_session_free(s);
  tfs_graph_free(g);
  tfs_status_free(st);
}

/* A placeholder of unknown shape, so kernels (not shape inference) see
 * bad inputs. */
static tfs_output input(const char *name, tfs_dtype dt) {
  tfs_output o = tfs_op_placeholder(g, name, dt, NULL, -1, st);
  TFS_ASSERT_OK(st);
  return o;
}

/* Runs `fetch` with two optional feeds. */
static tfs_tensor *run2(tfs_output fetch, tfs_output a, tfs_tensor *va,
                        tfs_output b, tfs_tensor *vb) {
  if (!s) s = tfs_session_new(g, NULL, st);
  tfs_output feeds[2] = {a, b};
  tfs_tensor *vals[2] = {va, vb};
  int n = va ? (vb ? 2 : 1) : 0;
  return tu_run1(s, fetch, feeds, vals, n);
}

static const char *run_fail(tfs_output fetch, tfs_output a, tfs_tensor *va,
                            tfs_output b, tfs_tensor *vb) {
  static char msg[1024];
  if (!s) s = tfs_session_new(g, NULL, st);
  tfs_output feeds[2] = {a, b};
  tfs_tensor *vals[2] = {va, vb};
  int n = va ? (vb ? 2 : 1) : 0;
  CU_ASSERT_NOT_EQUAL(tu_run_error(s, fetch, feeds, vals, n, msg, sizeof msg),
                      TFS_OK);
  return msg;
}

static tfs_tensor *floats(int nd, const int64_t *d, const float *v) {
  return tu_floats(d, nd, v);
}

static void test_broadcast_add(void) {
  setup();
  tfs_output a = input("a", TFS_FLOAT), b = input("b", TFS_FLOAT);
  tfs_output c = tfs_op_add(g, "c", a, b, st);
  int64_t da[3] = {2, 1, 3}, db[2] = {4, 1};
  float va[6] = {1, 2, 3, 4, 5, 6}, vb[4] = {10, 20, 30, 40};
  tfs_tensor *ta = floats(3, da, va), *tb = floats(2, db, vb);
  tfs_tensor *t = run2(c, a, ta, b, tb);
  CU_ASSERT_EQUAL(tfs_tensor_ndims(t), 3);
  CU_ASSERT_EQUAL(tfs_tensor_dim(t, 0), 2);
  CU_ASSERT_EQUAL(tfs_tensor_dim(t, 1), 4);
  CU_ASSERT_EQUAL(tfs_tensor_dim(t, 2), 3);
  const float *o = tfs_tensor_data(t);
  /* o[i][j][k] = a[i][0][k] + b[j][0] */
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 4; j++)
      for (int k = 0; k < 3; k++)
        CU_ASSERT_EQUAL(o[(i * 4 + j) * 3 + k], va[i * 3 + k] + vb[j]);
  tfs_tensor_free(t);
  /* scalar with vector, both orders */
  tfs_tensor *sc = tfs_tensor_scalar_float(0.5f);
  t = run2(c, a, sc, b, ta);
  CU_ASSERT_EQUAL(((float *)tfs_tensor_data(t))[5], 6.5f);
  tfs_tensor_free(t);
  t = run2(c, a, ta, b, sc);
  CU_ASSERT_EQUAL(((float *)tfs_tensor_data(t))[0], 1.5f);
  tfs_tensor_free(t);
  /* incompatible */
  int64_t d4[1] = {4};
  tfs_tensor *t4 = floats(1, d4, vb);
  int64_t d23[2] = {2, 3};
  tfs_tensor *t23 = floats(2, d23, va);
  const char *m = run_fail(c, a, t23, b, t4);
  CU_ASSERT_STRING_EQUAL(m, "Incompatible shapes: [2,3] vs. [4]\n\t "
                            "[[{{node c}}]]");
  /* empty tensors */
  int64_t d0[2] = {0, 3};
  tfs_tensor *e = floats(2, d0, va);
  int64_t d3[1] = {3};
  tfs_tensor *t3 = floats(1, d3, va);
  t = run2(c, a, e, b, t3);
  tfs_tensor_free(t3);
  CU_ASSERT_EQUAL(tfs_tensor_num_elements(t), 0);
  CU_ASSERT_EQUAL(tfs_tensor_dim(t, 0), 0);
  tfs_tensor_free(t);
  tfs_tensor_free(e);
  tfs_tensor_free(t4);
  tfs_tensor_free(t23);
  tfs_tensor_free(sc);
  tfs_tensor_free(ta);
  tfs_tensor_free(tb);
  teardown();
}

/* A vector along the last dimension against a tensor of rows (a channel
 * scale, a bias), on either side: every element as the op computes it
 * alone, for widths around the vector loops' sizes and several row
 * counts, and an integer division by zero in one lane of the vector. */
static void test_broadcast_rows(void) {
  static const int64_t kInner[] = {1, 3, 8, 15, 16, 17, 31, 64, 100, 255,
                                   256, 257, 511, 600};
  static const int64_t kRows[] = {1, 2, 5, 37};
  setup();
  tfs_output a = input("a", TFS_FLOAT), b = input("b", TFS_FLOAT);
  tfs_output mul = tfs_op_mul(g, "mul", a, b, st);
  tfs_output sub = tfs_op_sub(g, "sub", a, b, st);
  tfs_output div = tfs_op_div(g, "div", a, b, st);
  for (size_t ii = 0; ii < sizeof kInner / sizeof kInner[0]; ii++)
    for (size_t ri = 0; ri < sizeof kRows / sizeof kRows[0]; ri++) {
      int64_t inner = kInner[ii], rows = kRows[ri];
      float *x = malloc(sizeof(float) * (size_t)(rows * inner));
      float *v = malloc(sizeof(float) * (size_t)inner);
      for (int64_t i = 0; i < rows * inner; i++)
        x[i] = (float)((i * 7919) % 1013) / 97.0f - 5.0f;
      for (int64_t k = 0; k < inner; k++) v[k] = 0.75f + (float)(k % 13) / 3.0f;
      int64_t dx[4] = {1, rows, 1, inner}, dv[1] = {inner};
      tfs_tensor *tx = floats(4, dx, x), *tv = floats(1, dv, v);
      for (int side = 0; side < 2; side++) {
        tfs_output ops[3] = {mul, sub, div};
        for (int o = 0; o < 3; o++) {
          tfs_tensor *t = side ? run2(ops[o], a, tv, b, tx)
                               : run2(ops[o], a, tx, b, tv);
          CU_ASSERT_PTR_NOT_NULL_FATAL(t);
          CU_ASSERT_EQUAL(tfs_tensor_num_elements(t), rows * inner);
          const float *y = tfs_tensor_data(t);
          int bad = 0;
          for (int64_t i = 0; i < rows * inner; i++) {
            volatile float p = side ? v[i % inner] : x[i];
            volatile float q = side ? x[i] : v[i % inner];
            volatile float w = o == 0 ? p * q : o == 1 ? p - q : p / q;
            float want = w;
            bad += memcmp(&want, &y[i], sizeof(float)) != 0;
          }
          if (bad)
            fprintf(stderr, "\n  inner %lld rows %lld op %d side %d: %d wrong\n",
                    (long long)inner, (long long)rows, o, side, bad);
          CU_ASSERT_EQUAL(bad, 0);
          tfs_tensor_free(t);
        }
      }
      tfs_tensor_free(tx);
      tfs_tensor_free(tv);
      free(x);
      free(v);
    }
  teardown();
  /* integers: a zero in the vector fails the division */
  setup();
  tfs_output ia = input("a", TFS_INT32), ib = input("b", TFS_INT32);
  tfs_output idiv = tfs_op_div(g, "div", ia, ib, st);
  int64_t dr[2] = {9, 5}, dc[1] = {5};
  int32_t rv[45], cv[5] = {1, 2, 3, 4, 5};
  for (int i = 0; i < 45; i++) rv[i] = 100 + i;
  tfs_tensor *tr = tu_int32s(dr, 2, rv), *tc = tu_int32s(dc, 1, cv);
  tfs_tensor *t = run2(idiv, ia, tr, ib, tc);
  CU_ASSERT_PTR_NOT_NULL_FATAL(t);
  CU_ASSERT_EQUAL(((int32_t *)tfs_tensor_data(t))[44], 144 / 5);
  CU_ASSERT_EQUAL(((int32_t *)tfs_tensor_data(t))[7], 107 / 3);
  tfs_tensor_free(t);
  tfs_tensor_free(tc);
  cv[3] = 0;
  tc = tu_int32s(dc, 1, cv);
  CU_ASSERT_STRING_EQUAL(run_fail(idiv, ia, tr, ib, tc),
                         "Integer division by zero\n\t [[{{node div}}]]");
  tfs_tensor_free(tc);
  tfs_tensor_free(tr);
  teardown();
}

static void test_integer_arithmetic(void) {
  setup();
  tfs_output a = input("a", TFS_INT32), b = input("b", TFS_INT32);
  tfs_output sum = tfs_op_add(g, "sum", a, b, st);
  tfs_output div = tfs_op_div(g, "div", a, b, st);
  tfs_output pow = tfs_op_pow(g, "pow", a, b, st);
  tfs_output mx = tfs_op_maximum(g, "mx", a, b, st);
  tfs_output mn = tfs_op_minimum(g, "mn", a, b, st);
  tfs_tensor *big = tfs_tensor_scalar_int32(INT32_MAX);
  tfs_tensor *one = tfs_tensor_scalar_int32(1);
  tfs_tensor *t = run2(sum, a, big, b, one);
  CU_ASSERT_EQUAL(*(int32_t *)tfs_tensor_data(t), INT32_MIN); /* wraps */
  tfs_tensor_free(t);
  int64_t d[1] = {4};
  int32_t xs[4] = {7, -7, 7, INT32_MIN}, ys[4] = {2, 2, -2, -1};
  tfs_tensor *x = tu_int32s(d, 1, xs), *y = tu_int32s(d, 1, ys);
  t = run2(div, a, x, b, y);
  const int32_t *o = tfs_tensor_data(t);
  CU_ASSERT_EQUAL(o[0], 3);
  CU_ASSERT_EQUAL(o[1], -3); /* truncates toward zero */
  CU_ASSERT_EQUAL(o[2], -3);
  CU_ASSERT_EQUAL(o[3], INT32_MIN);
  tfs_tensor_free(t);
  t = run2(mx, a, x, b, y);
  CU_ASSERT_EQUAL(((int32_t *)tfs_tensor_data(t))[1], 2);
  tfs_tensor_free(t);
  t = run2(mn, a, x, b, y);
  CU_ASSERT_EQUAL(((int32_t *)tfs_tensor_data(t))[1], -7);
  tfs_tensor_free(t);
  tfs_tensor *zero = tfs_tensor_scalar_int32(0);
  CU_ASSERT_STRING_EQUAL(run_fail(div, a, x, b, zero),
                         "Integer division by zero\n\t [[{{node div}}]]");
  tfs_tensor *seven = tfs_tensor_scalar_int32(7), *two = tfs_tensor_scalar_int32(2);
  t = run2(pow, a, seven, b, two);
  CU_ASSERT_EQUAL(*(int32_t *)tfs_tensor_data(t), 49);
  tfs_tensor_free(t);
  tfs_tensor *neg = tfs_tensor_scalar_int32(-1);
  CU_ASSERT_STRING_EQUAL(run_fail(pow, a, seven, b, neg),
                         "Integers to negative integer powers are not "
                         "allowed\n\t [[{{node pow}}]]");
  tfs_tensor_free(neg);
  tfs_tensor_free(seven);
  tfs_tensor_free(two);
  tfs_tensor_free(zero);
  tfs_tensor_free(x);
  tfs_tensor_free(y);
  tfs_tensor_free(big);
  tfs_tensor_free(one);
  teardown();
}

static void test_float_binary_and_unary(void) {
  setup();
  tfs_output a = input("a", TFS_FLOAT), b = input("b", TFS_FLOAT);
  tfs_output ops[5] = {
      tfs_op_sub(g, "sub", a, b, st), tfs_op_realdiv(g, "rdiv", a, b, st),
      tfs_op_pow(g, "pow", a, b, st), tfs_op_maximum(g, "max", a, b, st),
      tfs_op_minimum(g, "min", a, b, st)};
  int64_t d[1] = {3};
  float xa[3] = {1, 4, NAN}, xb[3] = {2, 0.5f, 1};
  tfs_tensor *ta = floats(1, d, xa), *tb = floats(1, d, xb);
  float want[5][3] = {{-1, 3.5f, NAN},
                      {0.5f, 8, NAN},
                      {1, 2, NAN},
                      {2, 4, NAN},
                      {1, 0.5f, NAN}};
  for (int k = 0; k < 5; k++) {
    tfs_tensor *t = run2(ops[k], a, ta, b, tb);
    const float *o = tfs_tensor_data(t);
    for (int i = 0; i < 2; i++) TFS_ASSERT_FLOAT_NEAR(o[i], want[k][i], 1e-6);
    CU_ASSERT_TRUE(isnan(o[2])); /* NaN propagates, also in max/min */
    tfs_tensor_free(t);
  }
  const char *names[8] = {"Neg", "Square", "Sqrt", "Exp",
                          "Log", "Tanh", "Sigmoid", "Relu"};
  float x[3] = {-1, 0.25f, 2};
  tfs_tensor *tx = floats(1, d, x);
  for (int k = 0; k < 8; k++) {
    tfs_output u = tfs_op_unary(g, names[k], NULL, a, st);
    TFS_ASSERT_OK(st);
    tfs_tensor *t = run2(u, a, tx, u, NULL);
    const float *o = tfs_tensor_data(t);
    for (int i = 0; i < 3; i++) {
      double v = x[i], w;
      switch (k) {
        case 0: w = -v; break;
        case 1: w = v * v; break;
        case 2: w = sqrt(v); break;
        case 3: w = exp(v); break;
        case 4: w = log(v); break;
        case 5: w = tanh(v); break;
        case 6: w = 1 / (1 + exp(-v)); break;
        default: w = v > 0 ? v : 0; break;
      }
      if (isnan(w)) {
        CU_ASSERT_TRUE(isnan(o[i]));
      } else {
        TFS_ASSERT_FLOAT_NEAR(o[i], w, 1e-6 * (1 + fabs(w)));
      }
    }
    tfs_tensor_free(t);
  }
  tfs_tensor_free(tx);
  tfs_tensor_free(ta);
  tfs_tensor_free(tb);
  teardown();
}

static void test_comparisons_and_strings(void) {
  setup();
  tfs_output a = input("a", TFS_STRING), b = input("b", TFS_STRING);
  tfs_output cat = tfs_op_binary(g, "Add", "cat", a, b, st);
  tfs_output eq = tfs_op_binary(g, "Equal", "eq", a, b, st);
  int64_t d[1] = {2};
  const char *sa[2] = {"ab", "a long string of more than 22 bytes"};
  tfs_tensor *ta = tfs_tensor_new_strings(d, 1, sa, NULL, st);
  tfs_tensor *tb = tfs_tensor_scalar_string("!", 1);
  tfs_tensor *t = run2(cat, a, ta, b, tb);
  CU_ASSERT_STRING_EQUAL(tfs_tensor_string_at(t, 0, NULL), "ab!");
  CU_ASSERT_STRING_EQUAL(tfs_tensor_string_at(t, 1, NULL),
                         "a long string of more than 22 bytes!");
  tfs_tensor_free(t);
  tfs_tensor *tb2 = tfs_tensor_scalar_string("ab", 2);
  t = run2(eq, a, ta, b, tb2);
  CU_ASSERT_EQUAL(tfs_tensor_dtype(t), TFS_BOOL);
  CU_ASSERT_EQUAL(((uint8_t *)tfs_tensor_data(t))[0], 1);
  CU_ASSERT_EQUAL(((uint8_t *)tfs_tensor_data(t))[1], 0);
  tfs_tensor_free(t);
  tfs_output x = input("x", TFS_FLOAT), y = input("y", TFS_FLOAT);
  tfs_output ge = tfs_op_binary(g, "GreaterEqual", "ge", x, y, st);
  int64_t d3[1] = {3};
  float xv[3] = {1, 2, 3};
  tfs_tensor *tx = floats(1, d3, xv), *ty = tfs_tensor_scalar_float(2);
  t = run2(ge, x, tx, y, ty);
  const uint8_t *o = tfs_tensor_data(t);
  CU_ASSERT_TRUE(!o[0] && o[1] && o[2]);
  tfs_tensor_free(t);
  tfs_tensor_free(tx);
  tfs_tensor_free(ty);
  tfs_tensor_free(ta);
  tfs_tensor_free(tb);
  tfs_tensor_free(tb2);
  teardown();
}

static void test_matmul(void) {
  setup();
  tfs_output a = input("a", TFS_FLOAT), b = input("b", TFS_FLOAT);
  tfs_output mm = tfs_op_matmul(g, "mm", a, b, 0, 0, st);
  tfs_output mt = tfs_op_matmul(g, "mt", a, b, 1, 1, st);
  int64_t da[2] = {2, 3}, db[2] = {3, 2};
  float va[6] = {1, 2, 3, 4, 5, 6}, vb[6] = {7, 8, 9, 10, 11, 12};
  tfs_tensor *ta = floats(2, da, va), *tb = floats(2, db, vb);
  tfs_tensor *t = run2(mm, a, ta, b, tb);
  const float *o = tfs_tensor_data(t);
  CU_ASSERT_EQUAL(o[0], 58);
  CU_ASSERT_EQUAL(o[1], 64);
  CU_ASSERT_EQUAL(o[2], 139);
  CU_ASSERT_EQUAL(o[3], 154);
  tfs_tensor_free(t);
  /* a^T b^T: [3,2] x [2,3] */
  t = run2(mt, a, ta, b, tb);
  CU_ASSERT_EQUAL(tfs_tensor_dim(t, 0), 3);
  o = tfs_tensor_data(t);
  CU_ASSERT_EQUAL(o[0], 1 * 7 + 4 * 8);
  tfs_tensor_free(t);
  CU_ASSERT_STRING_EQUAL(run_fail(mm, a, ta, b, ta),
                         "Matrix size-incompatible: In[0]: [2,3], In[1]: "
                         "[2,3]\n\t [[{{node mm}}]]");
  int64_t dv[1] = {3};
  tfs_tensor *vec = floats(1, dv, va);
  CU_ASSERT_STRING_EQUAL(run_fail(mm, a, vec, b, tb),
                         "In[0] and In[1] has different ndims: [3] vs. "
                         "[3,2]\n\t [[{{node mm}}]]");
  CU_ASSERT_STRING_EQUAL(run_fail(mm, a, vec, b, vec),
                         "In[0] and In[1] ndims must be == 2: 1\n\t "
                         "[[{{node mm}}]]");
  tfs_tensor_free(vec);
  /* integers and double */
  tfs_output ia = input("ia", TFS_INT32), ib = input("ib", TFS_INT32);
  tfs_output imm = tfs_op_matmul(g, "imm", ia, ib, 0, 1, st);
  int32_t iv[4] = {1, -2, 3, 4};
  int64_t d22[2] = {2, 2};
  tfs_tensor *ti = tu_int32s(d22, 2, iv);
  t = run2(imm, ia, ti, ib, ti);
  const int32_t *io = tfs_tensor_data(t);
  CU_ASSERT_EQUAL(io[0], 5);
  CU_ASSERT_EQUAL(io[1], -5);
  CU_ASSERT_EQUAL(io[3], 25);
  tfs_tensor_free(t);
  tfs_tensor_free(ti);
  tfs_tensor_free(ta);
  tfs_tensor_free(tb);
  teardown();
}

static void test_bias_add_and_softmax(void) {
  setup();
  tfs_output v = input("v", TFS_FLOAT), b = input("b", TFS_FLOAT);
  tfs_output nhwc = tfs_op_bias_add(g, "nhwc", v, b, st);
  tfs_op_desc *d = tfs_op_desc_new(g, "BiasAdd", "nchw");
  tfs_op_desc_add_input(d, v);
  tfs_op_desc_add_input(d, b);
  tfs_op_desc_set_attr_string(d, "data_format", "NCHW", 4);
  tfs_output nchw = {tfs_op_desc_finish(d, st), 0};
  TFS_ASSERT_OK(st);
  int64_t dv[4] = {1, 2, 2, 2}, db[1] = {2};
  float vv[8] = {0, 1, 2, 3, 4, 5, 6, 7}, bv[2] = {100, 200};
  tfs_tensor *tv = floats(4, dv, vv), *tb = floats(1, db, bv);
  tfs_tensor *t = run2(nhwc, v, tv, b, tb);
  const float *o = tfs_tensor_data(t);
  CU_ASSERT_EQUAL(o[0], 100);
  CU_ASSERT_EQUAL(o[1], 201);
  tfs_tensor_free(t);
  t = run2(nchw, v, tv, b, tb);
  o = tfs_tensor_data(t);
  CU_ASSERT_EQUAL(o[3], 103);
  CU_ASSERT_EQUAL(o[4], 204);
  tfs_tensor_free(t);
  int64_t d3[1] = {3};
  float bv3[3] = {1, 2, 3};
  tfs_tensor *b3 = floats(1, d3, bv3);
  CU_ASSERT_STRING_EQUAL(run_fail(nhwc, v, tv, b, b3),
                         "Must provide as many biases as the last dimension "
                         "of the input tensor: [3] vs. [1,2,2,2]\n\t "
                         "[[{{node nhwc}}]]");
  tfs_tensor_free(b3);
  tfs_output sm = tfs_op_unary(g, "Softmax", "sm", v, st);
  int64_t d2[2] = {2, 3};
  float logits[6] = {1, 2, 3, 1000, 1000, 1000};
  tfs_tensor *tl = floats(2, d2, logits);
  t = run2(sm, v, tl, v, NULL);
  o = tfs_tensor_data(t);
  double e1 = exp(-2), e2 = exp(-1), z = e1 + e2 + 1;
  TFS_ASSERT_FLOAT_NEAR(o[0], e1 / z, 1e-6);
  TFS_ASSERT_FLOAT_NEAR(o[2], 1 / z, 1e-6);
  TFS_ASSERT_FLOAT_NEAR(o[4], 1.0 / 3, 1e-6); /* stable for large logits */
  tfs_tensor_free(t);
  tfs_tensor *scal = tfs_tensor_scalar_float(1);
  CU_ASSERT_STRING_EQUAL(run_fail(sm, v, scal, v, NULL),
                         "logits must have >= 1 dimension, got []\n\t "
                         "[[{{node sm}}]]");
  tfs_tensor_free(scal);
  tfs_tensor_free(tl);
  tfs_tensor_free(tv);
  tfs_tensor_free(tb);
  teardown();
}

static void test_reductions(void) {
  setup();
  tfs_output x = input("x", TFS_FLOAT), ax = input("ax", TFS_INT32);
  tfs_output sum = tfs_op_sum(g, "sum", x, ax, 0, st);
  tfs_output mean_k = tfs_op_mean(g, "mean", x, ax, 1, st);
  int64_t d[3] = {2, 3, 2};
  float v[12];
  for (int i = 0; i < 12; i++) v[i] = (float)i;
  tfs_tensor *tx = floats(3, d, v);
  int32_t axes1[1] = {-2};
  int64_t d1[1] = {1};
  tfs_tensor *a1 = tu_int32s(d1, 1, axes1);
  tfs_tensor *t = run2(sum, x, tx, ax, a1);
  CU_ASSERT_EQUAL(tfs_tensor_ndims(t), 2);
  const float *o = tfs_tensor_data(t);
  CU_ASSERT_EQUAL(o[0], 0 + 2 + 4);
  CU_ASSERT_EQUAL(o[3], 7 + 9 + 11);
  tfs_tensor_free(t);
  int32_t axes2[2] = {0, 2};
  int64_t d2[1] = {2};
  tfs_tensor *a2 = tu_int32s(d2, 1, axes2);
  t = run2(mean_k, x, tx, ax, a2);
  CU_ASSERT_EQUAL(tfs_tensor_ndims(t), 3);
  CU_ASSERT_EQUAL(tfs_tensor_dim(t, 1), 3);
  o = tfs_tensor_data(t);
  CU_ASSERT_EQUAL(o[0], (0 + 1 + 6 + 7) / 4.0f);
  tfs_tensor_free(t);
  tfs_tensor *all = tfs_tensor_scalar_int32(1);
  t = run2(sum, x, tx, ax, all);
  CU_ASSERT_EQUAL(tfs_tensor_dim(t, 1), 2);
  tfs_tensor_free(t);
  tfs_tensor *bad = tfs_tensor_scalar_int32(3);
  CU_ASSERT_STRING_EQUAL(run_fail(sum, x, tx, ax, bad),
                         "Invalid reduction dimension (3 for input with 3 "
                         "dimension(s)\n\t [[{{node sum}}]]");
  tfs_tensor_free(bad);
  /* integer mean truncates */
  tfs_output xi = input("xi", TFS_INT32);
  tfs_output mi = tfs_op_mean(g, "mi", xi, ax, 0, st);
  int32_t iv[3] = {1, 2, 2};
  int64_t d3[1] = {3};
  tfs_tensor *ti = tu_int32s(d3, 1, iv);
  tfs_tensor *zero = tfs_tensor_scalar_int32(0);
  t = run2(mi, xi, ti, ax, zero);
  CU_ASSERT_EQUAL(*(int32_t *)tfs_tensor_data(t), 1);
  tfs_tensor_free(t);
  tfs_tensor_free(zero);
  tfs_tensor_free(ti);
  tfs_tensor_free(all);
  tfs_tensor_free(a1);
  tfs_tensor_free(a2);
  tfs_tensor_free(tx);
  teardown();
}

static void test_reshape_shape_fill(void) {
  setup();
  tfs_output x = input("x", TFS_FLOAT), sh = input("sh", TFS_INT32);
  tfs_output r = tfs_op_reshape(g, "r", x, sh, st);
  int64_t d[2] = {2, 3};
  float v[6] = {1, 2, 3, 4, 5, 6};
  tfs_tensor *tx = floats(2, d, v);
  int64_t d2[1] = {2};
  int32_t s1[2] = {3, -1};
  tfs_tensor *ts = tu_int32s(d2, 1, s1);
  tfs_tensor *t = run2(r, x, tx, sh, ts);
  CU_ASSERT_EQUAL(tfs_tensor_dim(t, 0), 3);
  CU_ASSERT_EQUAL(tfs_tensor_dim(t, 1), 2);
  CU_ASSERT_EQUAL(((float *)tfs_tensor_data(t))[5], 6);
  tfs_tensor_free(t);
  int32_t bad1[2] = {-1, -1}, bad2[2] = {4, 2}, bad3[2] = {-1, 4},
          bad4[2] = {-3, 2};
  const char *want[4] = {
      "Only one input size may be -1, not both 0 and 1",
      "Input to reshape is a tensor with 6 values, but the requested shape "
      "has 8",
      "Input to reshape is a tensor with 6 values, but the requested shape "
      "requires a multiple of 4",
      "Size 0 must be non-negative, not -3"};
  int32_t *bads[4] = {bad1, bad2, bad3, bad4};
  for (int i = 0; i < 4; i++) {
    tfs_tensor *tb = tu_int32s(d2, 1, bads[i]);
    const char *m = run_fail(r, x, tx, sh, tb);
    CU_ASSERT_PTR_NOT_NULL(strstr(m, want[i]));
    CU_ASSERT_PTR_NOT_NULL(strstr(m, "[[{{node r}}]]"));
    tfs_tensor_free(tb);
  }
  tfs_output shape = tfs_op_shape(g, "shape", x, st);
  t = run2(shape, x, tx, x, NULL);
  CU_ASSERT_EQUAL(tfs_tensor_dtype(t), TFS_INT32);
  CU_ASSERT_EQUAL(((int32_t *)tfs_tensor_data(t))[1], 3);
  tfs_tensor_free(t);
  tfs_output fv = input("fv", TFS_FLOAT);
  tfs_output fill = tfs_op_fill(g, "fill", sh, fv, st);
  int32_t dims[2] = {2, 2};
  tfs_tensor *tdims = tu_int32s(d2, 1, dims);
  tfs_tensor *val = tfs_tensor_scalar_float(9);
  t = run2(fill, sh, tdims, fv, val);
  CU_ASSERT_EQUAL(tfs_tensor_num_elements(t), 4);
  CU_ASSERT_EQUAL(((float *)tfs_tensor_data(t))[3], 9);
  tfs_tensor_free(t);
  CU_ASSERT_PTR_NOT_NULL(strstr(run_fail(fill, sh, tdims, fv, tx),
                                "value must represent a scalar, got "
                                "shape [2,3]"));
  int32_t negdims[2] = {2, -2};
  tfs_tensor *tneg = tu_int32s(d2, 1, negdims);
  CU_ASSERT_PTR_NOT_NULL(strstr(run_fail(fill, sh, tneg, fv, val),
                                "Dimension -2 must be >= 0"));
  tfs_tensor_free(tneg);
  tfs_output zl = tfs_op_unary(g, "ZerosLike", "zl", x, st);
  t = run2(zl, x, tx, x, NULL);
  CU_ASSERT_EQUAL(((float *)tfs_tensor_data(t))[2], 0);
  CU_ASSERT_EQUAL(tfs_tensor_dim(t, 1), 3);
  tfs_tensor_free(t);
  tfs_tensor_free(val);
  tfs_tensor_free(tdims);
  tfs_tensor_free(ts);
  tfs_tensor_free(tx);
  teardown();
}

static void test_cast(void) {
  setup();
  tfs_output x = input("x", TFS_FLOAT);
  tfs_output to_i = tfs_op_cast(g, "to_i", x, TFS_INT32, st);
  tfs_output to_u8 = tfs_op_cast(g, "to_u8", x, TFS_UINT8, st);
  tfs_output to_b = tfs_op_cast(g, "to_b", x, TFS_BOOL, st);
  tfs_output to_h = tfs_op_cast(g, "to_h", x, TFS_HALF, st);
  tfs_output same = tfs_op_cast(g, "same", x, TFS_FLOAT, st);
  tfs_output back = tfs_op_cast(g, "back", to_h, TFS_DOUBLE, st);
  int64_t d[1] = {5};
  float v[5] = {1.7f, -1.7f, 300.0f, 0.0f, NAN};
  tfs_tensor *tx = floats(1, d, v);
  tfs_tensor *t = run2(to_i, x, tx, x, NULL);
  const int32_t *i = tfs_tensor_data(t);
  CU_ASSERT_EQUAL(i[0], 1);
  CU_ASSERT_EQUAL(i[1], -1);
  CU_ASSERT_EQUAL(i[2], 300);
  CU_ASSERT_EQUAL(i[4], INT32_MIN);
  tfs_tensor_free(t);
  t = run2(to_u8, x, tx, x, NULL);
  CU_ASSERT_EQUAL(((uint8_t *)tfs_tensor_data(t))[2], 300 & 0xff);
  tfs_tensor_free(t);
  t = run2(to_b, x, tx, x, NULL);
  const uint8_t *b = tfs_tensor_data(t);
  CU_ASSERT_TRUE(b[0] && b[1] && b[2] && !b[3] && b[4]);
  tfs_tensor_free(t);
  t = run2(back, x, tx, x, NULL);
  CU_ASSERT_EQUAL(((double *)tfs_tensor_data(t))[0], 1.7001953125);
  tfs_tensor_free(t);
  t = run2(same, x, tx, x, NULL);
  CU_ASSERT_EQUAL(((float *)tfs_tensor_data(t))[0], 1.7f);
  tfs_tensor_free(t);
  tfs_output xi = input("xi", TFS_INT64);
  tfs_output narrow = tfs_op_cast(g, "narrow", xi, TFS_INT8, st);
  tfs_tensor *big = tfs_tensor_scalar_int64(0x1234567f);
  t = run2(narrow, xi, big, xi, NULL);
  CU_ASSERT_EQUAL(*(int8_t *)tfs_tensor_data(t), 0x7f);
  tfs_tensor_free(t);
  tfs_tensor_free(big);
  tfs_tensor_free(tx);
  teardown();
}

static void test_assert_message(void) {
  setup();
  tfs_output c = input("c", TFS_BOOL), x = input("x", TFS_FLOAT);
  tfs_tensor *m = tfs_tensor_scalar_string("x is bad:", 9);
  tfs_output data[2] = {tfs_op_const(g, "m", m, st), x};
  tfs_tensor_free(m);
  tfs_operation *a = tfs_op_assert(g, "check", c, data, 2, st);
  tfs_output out = tfs_op_with_dependencies(g, "out", x, &a, 1, st);
  TFS_ASSERT_OK(st);
  int64_t d[1] = {5};
  float v[5] = {1, 2, 3, 4, 5};
  tfs_tensor *tx = floats(1, d, v);
  tfs_tensor *yes = tfs_tensor_scalar_bool(1), *no = tfs_tensor_scalar_bool(0);
  tfs_tensor *t = run2(out, c, yes, x, tx);
  CU_ASSERT_EQUAL(tfs_tensor_num_elements(t), 5);
  tfs_tensor_free(t);
  CU_ASSERT_STRING_EQUAL(run_fail(out, c, no, x, tx),
                         "assertion failed: [x is bad:] [1 2 3...]\n\t "
                         "[[{{node check}}]]");
  int64_t d2[1] = {2};
  uint8_t two[2] = {1, 1};
  tfs_tensor *vec = tfs_tensor_new_copy(TFS_BOOL, d2, 1, two, 2, st);
  CU_ASSERT_STRING_EQUAL(run_fail(out, c, vec, x, tx),
                         "In[0] should be a scalar: [2]\n\t "
                         "[[{{node check}}]]");
  tfs_tensor_free(vec);
  tfs_tensor_free(yes);
  tfs_tensor_free(no);
  tfs_tensor_free(tx);
  teardown();
}

static const tfs_test_case cases[] = {
    {"broadcast_add", test_broadcast_add},
    {"broadcast_rows", test_broadcast_rows},
    {"integer_arithmetic", test_integer_arithmetic},
    {"float_binary_and_unary", test_float_binary_and_unary},
    {"comparisons_and_strings", test_comparisons_and_strings},
    {"matmul", test_matmul},
    {"bias_add_and_softmax", test_bias_add_and_softmax},
    {"reductions", test_reductions},
    {"reshape_shape_fill", test_reshape_shape_fill},
    {"cast", test_cast},
    {"assert_message", test_assert_message},
    {NULL, NULL}};

const tfs_test_suite tfs_test_suites[] = {{"basic_kernels", cases},
                                          {NULL, NULL}};
