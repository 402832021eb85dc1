/*
 * tests/gradients/test_gradients.c - tfs_gradients' rules: path summation,
 * scopes and prefixes, seeds, ops without gradients, unreachable inputs,
 * multi-output inputs, variables, and TensorFlow's messages; the graph is
 * unchanged after an error.
 */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "testutil.h"
#include "tfsess/tfsess.h"

static tfs_status *st;
static tfs_graph *g;

static void setup(void) {
  st = tfs_status_new();
  g = tfs_graph_new();
}

static void teardown(void) {
  tfs_graph_free(g);
  tfs_status_free(st);
}

static tfs_output scalar_ph(const char *name) {
  tfs_output o = tfs_op_placeholder(g, name, TFS_FLOAT, NULL, 0, st);
  TFS_ASSERT_OK(st);
  return o;
}

static float eval(tfs_output fetch, tfs_output feed, float v) {
  tfs_session *s = tfs_session_new(g, NULL, st);
  TFS_ASSERT_OK(st);
  tfs_tensor *fv = tfs_tensor_scalar_float(v);
  tfs_tensor *out = tu_run1(s, fetch, &feed, &fv, feed.oper ? 1 : 0);
  float r = tu_scalar_float(out);
  tfs_tensor_free(out);
  tfs_tensor_free(fv);
  tfs_session_free(s);
  return r;
}

/* d(x*x)/dx at 3 is 6: both inputs of the Mul reach x, so the two paths
 * are summed with AddN, under the "gradients" scope. */
static void test_square(void) {
  setup();
  tfs_output x = scalar_ph("x");
  tfs_output y = tfs_op_mul(g, "y", x, x, st);
  tfs_output dy;
  tfs_gradients(g, NULL, &y, 1, &x, 1, NULL, &dy, st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_STRING_EQUAL(tfs_operation_op_type(dy.oper), "AddN");
  CU_ASSERT_EQUAL(strncmp(tfs_operation_name(dy.oper), "gradients/", 10), 0);
  CU_ASSERT_PTR_NOT_NULL(tfs_graph_operation_by_name(g, "gradients/OnesLike"));
  CU_ASSERT_PTR_NOT_NULL(tfs_graph_operation_by_name(g, "gradients/y_grad/Mul"));
  TFS_ASSERT_FLOAT_NEAR(eval(dy, x, 3.0f), 6.0f, 0);
  /* a second call gets its own scope */
  tfs_output dy2;
  tfs_gradients(g, NULL, &y, 1, &x, 1, NULL, &dy2, st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_EQUAL(strncmp(tfs_operation_name(dy2.oper), "gradients_1/", 12),
                  0);
  teardown();
}

static void test_prefix(void) {
  setup();
  tfs_output x = scalar_ph("x");
  tfs_output y = tfs_op_unary(g, "Exp", "e", x, st);
  tfs_output dy;
  tfs_gradients(g, "grads", &y, 1, &x, 1, NULL, &dy, st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_PTR_NOT_NULL(tfs_graph_operation_by_name(g, "grads/OnesLike"));
  size_t n = tfs_graph_num_operations(g);
  tfs_gradients(g, "grads", &y, 1, &x, 1, NULL, &dy, st);
  CU_ASSERT_EQUAL(tfs_status_code(st), TFS_INVALID_ARGUMENT);
  TFS_ASSERT_MESSAGE(st, "prefix [grads] conflicts with existing node in the "
                         "graph named [grads/OnesLike]");
  tfs_gradients(g, "x", &y, 1, &x, 1, NULL, &dy, st);
  TFS_ASSERT_MESSAGE(st, "prefix [x] conflicts with existing node in the "
                         "graph named [x]");
  CU_ASSERT_EQUAL(tfs_graph_num_operations(g), n);
  /* "gr" is a prefix of "grads/..." as a string, not as a scope */
  tfs_gradients(g, "gr", &y, 1, &x, 1, NULL, &dy, st);
  TFS_ASSERT_OK(st);
  teardown();
}

static void test_seed_and_sum_of_ys(void) {
  setup();
  tfs_output x = scalar_ph("x");
  tfs_output a = tfs_op_unary(g, "Square", "a", x, st);
  tfs_output b = tfs_op_unary(g, "Neg", "b", x, st);
  tfs_output ys[2] = {a, b}, seeds[2];
  seeds[0] = tfs_op_const_float(g, "s0", 10.0f, st);
  seeds[1] = tfs_op_const_float(g, "s1", 1.0f, st);
  tfs_output dy;
  /* no seed: d(x^2 - x)/dx = 2x - 1 */
  tfs_gradients(g, NULL, ys, 2, &x, 1, NULL, &dy, st);
  TFS_ASSERT_OK(st);
  TFS_ASSERT_FLOAT_NEAR(eval(dy, x, 2.0f), 3.0f, 0);
  /* seeded: 10 * 2x - 1 */
  tfs_gradients(g, NULL, ys, 2, &x, 1, seeds, &dy, st);
  TFS_ASSERT_OK(st);
  TFS_ASSERT_FLOAT_NEAR(eval(dy, x, 2.0f), 39.0f, 0);
  teardown();
}

static void test_unreachable(void) {
  setup();
  tfs_output x = scalar_ph("x"), z = scalar_ph("z");
  tfs_output y = tfs_op_unary(g, "Exp", "e", x, st);
  size_t n = tfs_graph_num_operations(g);
  tfs_output dy[2] = {{NULL, 7}, {NULL, 7}}, xs[2] = {x, z};
  tfs_gradients(g, NULL, &y, 1, xs, 2, NULL, dy, st);
  CU_ASSERT_EQUAL(tfs_status_code(st), TFS_INVALID_ARGUMENT);
  TFS_ASSERT_MESSAGE(st, "Cannot compute the partial derivative for node 'z' "
                         "as it's unreachable from the output node(s).");
  CU_ASSERT_EQUAL(tfs_graph_num_operations(g), n);
  CU_ASSERT_EQUAL(dy[0].index, 7); /* untouched on error */
  teardown();
}

static void test_no_gradient_defined(void) {
  setup();
  int64_t three = 3;
  tfs_output x = tfs_op_placeholder(g, "x", TFS_FLOAT, &three, 1, st);
  tfs_op_desc *d = tfs_op_desc_new(g, "Zeta", "c");
  tfs_op_desc_add_input(d, x);
  tfs_op_desc_add_input(d, x);
  tfs_output c = {tfs_op_desc_finish(d, st), 0};
  TFS_ASSERT_OK(st);
  tfs_output y = tfs_op_sum(g, "s", tfs_op_unary(g, "Exp", "e", c, st),
                            tfs_op_const_int32(g, "ax", 0, st), 0, st);
  TFS_ASSERT_OK(st);
  size_t n = tfs_graph_num_operations(g);
  tfs_output dy;
  tfs_gradients(g, NULL, &y, 1, &x, 1, NULL, &dy, st);
  CU_ASSERT_EQUAL(tfs_status_code(st), TFS_NOT_FOUND);
  TFS_ASSERT_MESSAGE(
      st, "No gradient defined for op: Zeta. Please see "
          "https://www.tensorflow.org/code/tensorflow/cc/gradients/README.md "
          "for instructions on how to add C++ gradients.");
  CU_ASSERT_EQUAL(tfs_graph_num_operations(g), n);
  CU_ASSERT_EQUAL(tfs_gradient_kind("Zeta"), -1);
  CU_ASSERT_EQUAL(tfs_gradient_kind("StopGradient"), 0);
  CU_ASSERT_EQUAL(tfs_gradient_kind("MatMul"), 1);
  teardown();
}

/* Differentiating a gradient that used the default OnesLike seed fails as
 * in TensorFlow: OnesLike has no gradient function. */
static void test_second_order_ones_like(void) {
  setup();
  tfs_output x = scalar_ph("x");
  tfs_output y = tfs_op_unary(g, "Square", "sq", x, st);
  tfs_output dy, ddy;
  tfs_gradients(g, NULL, &y, 1, &x, 1, NULL, &dy, st);
  TFS_ASSERT_OK(st);
  tfs_gradients(g, NULL, &dy, 1, &x, 1, NULL, &ddy, st);
  TFS_ASSERT_ERROR(st, TFS_NOT_FOUND, "No gradient defined for op: OnesLike.");
  /* with explicit seeds the second derivative is 2 */
  tfs_output one = tfs_op_const_float(g, "one", 1.0f, st);
  tfs_gradients(g, NULL, &y, 1, &x, 1, &one, &dy, st);
  TFS_ASSERT_OK(st);
  tfs_gradients(g, NULL, &dy, 1, &x, 1, &one, &ddy, st);
  TFS_ASSERT_OK(st);
  TFS_ASSERT_FLOAT_NEAR(eval(ddy, x, 5.0f), 2.0f, 0);
  teardown();
}

/* A path through an op without a gradient leaves {NULL, -1}, no error. */
static void test_stop_gradient(void) {
  setup();
  tfs_output x = scalar_ph("x");
  tfs_output s = tfs_op_unary(g, "StopGradient", "sg", x, st);
  tfs_output y = tfs_op_unary(g, "Exp", "e", s, st);
  tfs_output dy = {NULL, 5};
  tfs_gradients(g, NULL, &y, 1, &x, 1, NULL, &dy, st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_PTR_NULL(dy.oper);
  CU_ASSERT_EQUAL(dy.index, -1);
  /* and the other branch still counts: y2 = exp(sg(x)) + x */
  tfs_output y2 = tfs_op_add(g, "y2", y, x, st);
  tfs_gradients(g, NULL, &y2, 1, &x, 1, NULL, &dy, st);
  TFS_ASSERT_OK(st);
  TFS_ASSERT_FLOAT_NEAR(eval(dy, x, 1.0f), 1.0f, 0);
  teardown();
}

/* x is output 0 of a two-output Split whose other output is used too. */
static void test_multi_output_x(void) {
  setup();
  int64_t dims[1] = {4};
  tfs_output v = tfs_op_placeholder(g, "v", TFS_FLOAT, dims, 1, st);
  tfs_op_desc *d = tfs_op_desc_new(g, "Split", "sp");
  tfs_op_desc_add_input(d, tfs_op_const_int32(g, "ax", 0, st));
  tfs_op_desc_add_input(d, v);
  tfs_op_desc_set_attr_int(d, "num_split", 2);
  tfs_operation *sp = tfs_op_desc_finish(d, st);
  TFS_ASSERT_OK(st);
  tfs_output a = {sp, 0}, b = {sp, 1};
  tfs_output prod = tfs_op_mul(g, "p", a, b, st);
  tfs_output y = tfs_op_sum(g, "s", prod, tfs_op_const_int32(g, "z", 0, st),
                            0, st);
  tfs_output dy;
  tfs_gradients(g, NULL, &y, 1, &a, 1, NULL, &dy, st);
  TFS_ASSERT_OK(st);
  tfs_session *s = tfs_session_new(g, NULL, st);
  float vals[4] = {1, 2, 3, 4};
  tfs_tensor *vt = tu_floats(dims, 1, vals);
  tfs_tensor *out = tu_run1(s, dy, &v, &vt, 1);
  const float *o = tfs_tensor_data(out);
  CU_ASSERT_EQUAL(tfs_tensor_num_elements(out), 2);
  TFS_ASSERT_FLOAT_NEAR(o[0], 3.0f, 0); /* d(a.b)/da = b */
  TFS_ASSERT_FLOAT_NEAR(o[1], 4.0f, 0);
  tfs_tensor_free(out);
  tfs_tensor_free(vt);
  tfs_session_free(s);
  teardown();
}

/* ReadVariableOp passes the gradient to the resource handle, so a
 * resource variable's VarHandleOp:0 is an x. */
static void test_resource_variable(void) {
  setup();
  tfs_output h = tfs_op_var_handle(g, "w", TFS_FLOAT, NULL, 0, st);
  TFS_ASSERT_OK(st);
  tfs_output init = tfs_op_const_float(g, "w0", 1.5f, st);
  tfs_operation *assign = tfs_op_assign_variable(g, "w/assign", h, init, st);
  tfs_output r = tfs_op_read_variable(g, "w/read", h, TFS_FLOAT, st);
  tfs_output y = tfs_op_unary(g, "Square", "y", r, st);
  TFS_ASSERT_OK(st);
  tfs_output dy;
  tfs_gradients(g, NULL, &y, 1, &h, 1, NULL, &dy, st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_EQUAL(tfs_operation_output_type(dy), TFS_FLOAT);
  tfs_session *s = tfs_session_new(g, NULL, st);
  tfs_session_run(s, NULL, NULL, 0, NULL, NULL, 0, &assign, 1, st);
  TFS_ASSERT_OK(st);
  tfs_tensor *out = tu_run1(s, dy, NULL, NULL, 0);
  TFS_ASSERT_FLOAT_NEAR(tu_scalar_float(out), 3.0f, 0);
  tfs_tensor_free(out);
  tfs_session_free(s);
  teardown();
}

static void test_prevent_gradient(void) {
  setup();
  tfs_output x = scalar_ph("x");
  tfs_op_desc *d = tfs_op_desc_new(g, "PreventGradient", "pg");
  tfs_op_desc_add_input(d, x);
  tfs_op_desc_set_attr_string(d, "message", "no second order", 15);
  tfs_output p = {tfs_op_desc_finish(d, st), 0};
  tfs_output y = tfs_op_unary(g, "Exp", "e", p, st);
  TFS_ASSERT_OK(st);
  tfs_output dy;
  tfs_gradients(g, NULL, &y, 1, &x, 1, NULL, &dy, st);
  CU_ASSERT_EQUAL(tfs_status_code(st), TFS_INVALID_ARGUMENT);
  TFS_ASSERT_MESSAGE(st,
                     "Gradient explicitly disabled. Reason: no second order");
  teardown();
}

static void test_bad_arguments(void) {
  setup();
  tfs_output x = scalar_ph("x");
  tfs_output bad = {x.oper, 3}, dy;
  tfs_gradients(g, NULL, &bad, 1, &x, 1, NULL, &dy, st);
  CU_ASSERT_EQUAL(tfs_status_code(st), TFS_INVALID_ARGUMENT);
  TFS_ASSERT_MESSAGE(st, "y[0] is not an output of an operation of this "
                         "graph");
  tfs_graph *other = tfs_graph_new();
  tfs_output ox = tfs_op_placeholder(other, "x", TFS_FLOAT, NULL, 0, st);
  tfs_gradients(g, NULL, &x, 1, &ox, 1, NULL, &dy, st);
  TFS_ASSERT_MESSAGE(st, "x[0] is not an output of an operation of this "
                         "graph");
  tfs_graph_free(other);
  teardown();
}

#ifndef TFS_TEST_SRCDIR
#define TFS_TEST_SRCDIR "."
#endif
#define TRAIN_DIR TFS_TEST_SRCDIR "/models/digits/train"

static tfs_tensor *read_npy(const char *file) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", TRAIN_DIR, file);
  tfs_tensor *t = tfs_npy_read(path, st);
  TFS_ASSERT_OK(st);
  return t;
}

static tfs_tensor *batch_rows(const tfs_tensor *t, int64_t start, int64_t n) {
  int r = tfs_tensor_ndims(t);
  int64_t dims[2] = {n, r > 1 ? tfs_tensor_dim(t, 1) : 1};
  size_t row = tfs_tensor_byte_size(t) / (size_t)tfs_tensor_dim(t, 0);
  tfs_tensor *b = tfs_tensor_new_copy(
      tfs_tensor_dtype(t), dims, r,
      (const char *)tfs_tensor_data(t) + (size_t)start * row,
      (size_t)n * row, st);
  TFS_ASSERT_OK(st);
  return b;
}

/* TensorFlow's own training graph (tf.gradients' subgraph with
 * BroadcastGradientArgs, ReluGrad, BiasAddGrad and the Mean gradient,
 * GradientDescentOptimizer, the Saver's nodes), imported and run: the
 * initial values come from TensorFlow's checkpoint through the graph's
 * save/restore_all and equal what the graph's own seeded initializers
 * give; 100 steps reproduce TensorFlow's losses. */
static void test_tensorflow_training_graph(void) {
  setup();
  char path[512];
  snprintf(path, sizeof path, "%s/train.pb", TRAIN_DIR);
  FILE *f = fopen(path, "rb");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  static char bytes[1 << 16];
  size_t len = fread(bytes, 1, sizeof bytes, f);
  fclose(f);
  tfs_import_results *r = tfs_graph_import_graphdef(g, bytes, len, NULL, st);
  TFS_ASSERT_OK(st);
  tfs_import_results_free(r);
  tfs_session *s = tfs_session_new(g, NULL, st);
  TFS_ASSERT_OK(st);
  tfs_operation *init = tfs_graph_operation_by_name(g, "init");
  tfs_operation *restore = tfs_graph_operation_by_name(g, "save/restore_all");
  tfs_operation *train = tfs_graph_operation_by_name(g, "train");
  tfs_output kernel = tfs_graph_output_by_name(g, "dense/kernel", st);
  tfs_output loss = tfs_graph_output_by_name(g, "loss", st);
  tfs_output prefix = tfs_graph_output_by_name(g, "save/Const", st);
  tfs_output x = tfs_graph_output_by_name(g, "x", st);
  tfs_output y = tfs_graph_output_by_name(g, "y", st);
  TFS_ASSERT_OK(st);
  /* the seeded initializers give the checkpoint's values bit for bit */
  tfs_session_run(s, NULL, NULL, 0, NULL, NULL, 0, &init, 1, st);
  TFS_ASSERT_OK(st);
  tfs_tensor *from_init = tu_run1(s, kernel, NULL, NULL, 0);
  snprintf(path, sizeof path, "%s/init", TRAIN_DIR);
  tfs_tensor *p = tfs_tensor_scalar_string(path, strlen(path));
  tfs_session_run(s, &prefix, &p, 1, NULL, NULL, 0, &restore, 1, st);
  TFS_ASSERT_OK(st);
  tfs_tensor_free(p);
  tfs_tensor *restored = tu_run1(s, kernel, NULL, NULL, 0);
  CU_ASSERT_EQUAL(memcmp(tfs_tensor_data(from_init), tfs_tensor_data(restored),
                         tfs_tensor_byte_size(restored)),
                  0);
  tfs_tensor_free(from_init);
  tfs_tensor_free(restored);
  tfs_tensor *xs = read_npy("x_train.npy"), *ys = read_npy("y_train.npy");
  tfs_tensor *want = read_npy("tf_loss.npy");
  const float *wl = tfs_tensor_data(want);
  double worst = 0;
  for (int k = 0; k < 100; k++) {
    tfs_output feeds[2] = {x, y};
    tfs_tensor *fv[2] = {batch_rows(xs, (k % 10) * 64, 64),
                         batch_rows(ys, (k % 10) * 64, 64)};
    tfs_tensor *l = NULL;
    tfs_session_run(s, feeds, fv, 2, &loss, &l, 1, &train, 1, st);
    TFS_ASSERT_OK(st);
    double d = fabs(tu_scalar_float(l) - wl[k]) / fabs(wl[k]);
    if (d > worst) worst = d;
    tfs_tensor_free(l);
    tfs_tensor_free(fv[0]);
    tfs_tensor_free(fv[1]);
  }
  if (worst >= 1e-3) fprintf(stderr, "\n  loss differs by %g\n", worst);
  CU_ASSERT(worst < 1e-3);
  tfs_tensor_free(xs);
  tfs_tensor_free(ys);
  tfs_tensor_free(want);
  tfs_session_free(s);
  teardown();
}

static const tfs_test_case kCases[] = {
    {"square", test_square},
    {"prefix", test_prefix},
    {"seed_and_sum_of_ys", test_seed_and_sum_of_ys},
    {"unreachable", test_unreachable},
    {"no_gradient_defined", test_no_gradient_defined},
    {"second_order_ones_like", test_second_order_ones_like},
    {"stop_gradient", test_stop_gradient},
    {"multi_output_x", test_multi_output_x},
    {"resource_variable", test_resource_variable},
    {"prevent_gradient", test_prevent_gradient},
    {"bad_arguments", test_bad_arguments},
    {"tensorflow_training_graph", test_tensorflow_training_graph},
    {NULL, NULL},
};

const tfs_test_suite tfs_test_suites[] = {
    {"gradients", kCases},
    {NULL, NULL},
};
