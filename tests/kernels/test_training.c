/*
 * tests/kernels/test_training.c - the optimizer update kernels under
 * concurrency and on hostile input: two threads running one update op on
 * one variable many times (ref and resource forms) give exactly the
 * sequential result while a third reads whole, never torn, values; sparse
 * indices at the ends of int64, gradients of the wrong rank and a slot of
 * another dtype fail with errors, never an abort.
 */
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "testutil.h"

#define N 16384
#define STEPS 500

static tfs_graph *g;
static tfs_status *st;

static void setup(void) {
  g = tfs_graph_new();
  st = tfs_status_new();
}

static void teardown(void) {
  tfs_graph_free(g);
  tfs_status_free(st);
}

static tfs_output const_of(const char *name, tfs_dtype dt, const int64_t *dims,
                           int ndims, const void *data, size_t len) {
  tfs_tensor *t = tfs_tensor_new_copy(dt, dims, ndims, data, len, st);
  TFS_ASSERT_OK(st);
  tfs_output o = tfs_op_const(g, name, t, st);
  tfs_tensor_free(t);
  TFS_ASSERT_OK(st);
  return o;
}

static tfs_operation *op_of(const char *type, const char *name,
                            const tfs_output *in, int nin, int locking) {
  tfs_op_desc *d = tfs_op_desc_new(g, type, name);
  for (int i = 0; i < nin; i++) tfs_op_desc_add_input(d, in[i]);
  tfs_op_desc_set_attr_bool(d, "use_locking", (unsigned char)locking);
  tfs_operation *op = tfs_op_desc_finish(d, st);
  TFS_ASSERT_OK(st);
  return op;
}

typedef struct {
  tfs_session *s;
  tfs_operation *target;
  tfs_output read;
  int steps;
  int bad;
  volatile int *stop;
} job;

static void *updater(void *arg) {
  job *j = arg;
  tfs_status *lst = tfs_status_new();
  for (int i = 0; i < j->steps; i++) {
    tfs_session_run(j->s, NULL, NULL, 0, NULL, NULL, 0, &j->target, 1, lst);
    if (!tfs_status_ok(lst)) j->bad++;
  }
  tfs_status_free(lst);
  return NULL;
}

/* Every value read must be whole: all elements equal, a multiple of -1. */
static void *reader(void *arg) {
  job *j = arg;
  tfs_status *lst = tfs_status_new();
  while (!*j->stop) {
    tfs_tensor *out = NULL;
    tfs_session_run(j->s, NULL, NULL, 0, &j->read, &out, 1, NULL, 0, lst);
    if (!tfs_status_ok(lst) || !out) {
      j->bad++;
      break;
    }
    const float *v = tfs_tensor_data(out);
    for (int i = 1; i < N; i++)
      if (v[i] != v[0]) j->bad++;
    tfs_tensor_free(out);
  }
  tfs_status_free(lst);
  return NULL;
}

/* Two updaters and a reader; the final value is -2 * STEPS everywhere. */
static void race(tfs_session *s, tfs_operation *target, tfs_output read) {
  volatile int stop = 0;
  job a = {s, target, read, STEPS, 0, &stop};
  job b = a, r = a;
  pthread_t ta, tb, tr;
  pthread_create(&ta, NULL, updater, &a);
  pthread_create(&tb, NULL, updater, &b);
  pthread_create(&tr, NULL, reader, &r);
  pthread_join(ta, NULL);
  pthread_join(tb, NULL);
  stop = 1;
  pthread_join(tr, NULL);
  CU_ASSERT_EQUAL(a.bad + b.bad + r.bad, 0);
  tfs_tensor *out = tu_run1(s, read, NULL, NULL, 0);
  const float *v = tfs_tensor_data(out);
  int exact = 1;
  for (int i = 0; i < N; i++) exact &= v[i] == -2.0f * STEPS;
  CU_ASSERT_TRUE(exact);
  tfs_tensor_free(out);
}

static float zeros[N], ones[N]; /* large enough that unlocked updates overlap */

static void init_arrays(void) {
  for (int i = 0; i < N; i++) {
    zeros[i] = 0;
    ones[i] = 1;
  }
}

static void test_concurrent_ref_updates(void) {
  setup();
  init_arrays();
  int64_t dims[] = {N};
  tfs_output v = tfs_op_variable(g, "v", TFS_FLOAT, dims, 1, st);
  tfs_output z = const_of("z", TFS_FLOAT, dims, 1, zeros, sizeof zeros);
  tfs_output init = tfs_op_assign(g, "init", v, z, st);
  tfs_output in[] = {v, tfs_op_const_float(g, "alpha", 1.0f, st),
                     const_of("delta", TFS_FLOAT, dims, 1, ones,
                              sizeof ones)};
  tfs_operation *upd = op_of("ApplyGradientDescent", "update", in, 3, 1);
  tfs_output read = tfs_op_identity(g, "read", v, st);
  TFS_ASSERT_OK(st);
  tfs_session *s = tfs_session_new(g, NULL, st);
  TFS_ASSERT_OK(st);
  tfs_session_run(s, NULL, NULL, 0, NULL, NULL, 0, &init.oper, 1, st);
  TFS_ASSERT_OK(st);
  race(s, upd, read);
  tfs_session_free(s);
  teardown();
}

/* use_locking=false: tfsess serializes updates all the same. */
static void test_concurrent_resource_updates(void) {
  setup();
  init_arrays();
  int64_t dims[] = {N};
  tfs_output h = tfs_op_var_handle(g, "v", TFS_FLOAT, dims, 1, st);
  tfs_output z = const_of("z", TFS_FLOAT, dims, 1, zeros, sizeof zeros);
  tfs_operation *init = tfs_op_assign_variable(g, "init", h, z, st);
  tfs_output in[] = {h, tfs_op_const_float(g, "alpha", 0.5f, st),
                     const_of("delta", TFS_FLOAT, dims, 1, ones,
                              sizeof ones)};
  /* two ops on one variable: 0.5 + 0.5 per step pair */
  tfs_operation *u1 = op_of("ResourceApplyGradientDescent", "u1", in, 3, 0);
  tfs_operation *u2 = op_of("ResourceApplyGradientDescent", "u2", in, 3, 0);
  tfs_op_desc *d = tfs_op_desc_new(g, "NoOp", "both");
  tfs_op_desc_add_control_input(d, u1);
  tfs_op_desc_add_control_input(d, u2);
  tfs_operation *both = tfs_op_desc_finish(d, st);
  tfs_output read = tfs_op_read_variable(g, "read", h, TFS_FLOAT, st);
  TFS_ASSERT_OK(st);
  tfs_session *s = tfs_session_new(g, NULL, st);
  TFS_ASSERT_OK(st);
  tfs_session_run(s, NULL, NULL, 0, NULL, NULL, 0, &init, 1, st);
  TFS_ASSERT_OK(st);
  race(s, both, read);
  tfs_session_free(s);
  teardown();
}

/* Runs `target` expecting `code` and a message containing `text`. */
static void expect_error(tfs_session *s, tfs_operation *target, tfs_code code,
                         const char *text) {
  tfs_session_run(s, NULL, NULL, 0, NULL, NULL, 0, &target, 1, st);
  TFS_ASSERT_ERROR(st, code, text);
}

/* Sparse updates with indices at the ends of int64, a gradient of
 * higher rank than the variable and a slot of another dtype. */
static void test_sparse_hostile(void) {
  setup();
  int64_t vd[] = {3, 2};
  float init[6] = {1, 2, 3, 4, 5, 6};
  tfs_output var = tfs_op_var_handle(g, "var", TFS_FLOAT, vd, 2, st);
  tfs_output acc = tfs_op_var_handle(g, "acc", TFS_FLOAT, vd, 2, st);
  tfs_output dacc = tfs_op_var_handle(g, "dacc", TFS_DOUBLE, vd, 2, st);
  tfs_output iv = const_of("iv", TFS_FLOAT, vd, 2, init, sizeof init);
  double dinit[6] = {1, 1, 1, 1, 1, 1};
  tfs_output div = const_of("div", TFS_DOUBLE, vd, 2, dinit, sizeof dinit);
  tfs_operation *inits[] = {tfs_op_assign_variable(g, "i1", var, iv, st),
                            tfs_op_assign_variable(g, "i2", acc, iv, st),
                            tfs_op_assign_variable(g, "i3", dacc, div, st)};
  int64_t gd[] = {2, 2}, g3[] = {1, 2, 1}, id[] = {2}, one[] = {1};
  float gv[4] = {1, 1, 1, 1};
  int64_t huge[2] = {INT64_MAX, INT64_MIN}, ok[1] = {0};
  tfs_output grad = const_of("grad", TFS_FLOAT, gd, 2, gv, sizeof gv);
  tfs_output lr = tfs_op_const_float(g, "lr", 0.5f, st);
  tfs_output ix = const_of("ix", TFS_INT64, id, 1, huge, sizeof huge);
  tfs_output in1[] = {var, acc, lr, grad, ix};
  tfs_operation *far = op_of("ResourceSparseApplyAdagrad", "far", in1, 5, 0);
  /* unknown shape to the shape functions, which would refuse it */
  tfs_output grad3 = tfs_op_placeholder_with_default(
      g, "grad3", const_of("g3", TFS_FLOAT, g3, 3, gv, 2 * sizeof(float)),
      NULL, -1, st);
  tfs_output ix1 = const_of("ix1", TFS_INT64, one, 1, ok, sizeof ok);
  tfs_output in2[] = {var, acc, lr, grad3, ix1,
                      tfs_op_const_float(g, "mom", 0.5f, st)};
  tfs_operation *deep = op_of("ResourceSparseApplyMomentum", "deep", in2, 6,
                              0);
  tfs_output in3[] = {var, dacc, lr, grad, ix};
  tfs_operation *mixed = op_of("ResourceSparseApplyAdagrad", "mixed", in3, 5,
                               0);
  TFS_ASSERT_OK(st);
  tfs_session *s = tfs_session_new(g, NULL, st);
  TFS_ASSERT_OK(st);
  tfs_session_run(s, NULL, NULL, 0, NULL, NULL, 0, inits, 3, st);
  TFS_ASSERT_OK(st);
  expect_error(s, far, TFS_INVALID_ARGUMENT,
               "Index 9223372036854775807 at offset 0 in indices is out of "
               "range");
  expect_error(s, deep, TFS_INVALID_ARGUMENT,
               "var and grad must match in dimension 2");
  expect_error(s, mixed, TFS_INVALID_ARGUMENT,
               "Trying to update variable accum of dtype double");
  /* the variable is unchanged by the failed updates */
  tfs_output read = tfs_op_read_variable(g, "read", var, TFS_FLOAT, st);
  TFS_ASSERT_OK(st);
  tfs_tensor *t = tu_run1(s, read, NULL, NULL, 0);
  CU_ASSERT_EQUAL(memcmp(tfs_tensor_data(t), init, sizeof init), 0);
  tfs_tensor_free(t);
  tfs_session_free(s);
  teardown();
}

static const tfs_test_case cases[] = {
    {"concurrent_ref_updates", test_concurrent_ref_updates},
    {"concurrent_resource_updates", test_concurrent_resource_updates},
    {"sparse_hostile", test_sparse_hostile},
    {NULL, NULL}};

const tfs_test_suite tfs_test_suites[] = {{"training", cases}, {NULL, NULL}};
