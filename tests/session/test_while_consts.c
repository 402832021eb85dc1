/*
 * tests/session/test_while_consts.c - a functional While's constant loop
 * invariants: the body instantiated with them as Consts (only arguments
 * the body returns as is at the same position, of the argument's dtype),
 * and a session that resolves its While body that way (its products
 * joined into one _TfsMatMulSum) computing, within float rounding, what
 * one where those inputs are fed (so not constant) computes.  The graph is
 * a Keras LSTM TensorFlow exported (tests/conformance/recurrent/
 * keras_lstm: its While passes the kernel, recurrent kernel and bias
 * through every iteration).
 */
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "graph_builder/function_inst.h"
#include "graph_builder/graph_internal.h"
#include "session/session_internal.h"
#include "testutil.h"

static tfs_graph *g;
static tfs_status *st;

/* Imports tests/conformance/recurrent/keras_lstm/graph.pb into g. */
static void load_lstm(void) {
  static uint8_t data[1 << 20];
  size_t len = tu_read_src("tests/conformance/recurrent/keras_lstm/graph.pb",
                           data, sizeof data);
  g = tfs_graph_new();
  st = tfs_status_new();
  tfs_import_results *r = tfs_graph_import_graphdef(g, data, len, NULL, st);
  TFS_ASSERT_OK(st);
  tfs_import_results_free(r);
}

static void unload(void) {
  tfs_graph_free(g);
  tfs_status_free(st);
}

/* The graph's While node. */
static tfs_operation *the_while(void) {
  for (size_t i = 0; i < g->nops; i++)
    if (strcmp(g->ops[i]->def->name, "While") == 0 ||
        strcmp(g->ops[i]->def->name, "StatelessWhile") == 0)
      return g->ops[i];
  CU_FAIL_FATAL("no While in keras_lstm");
  return NULL;
}

static const tfs_func_attr *body_of(tfs_operation *w) {
  const tfs_attr_value *b = tfs_attrs_find(&w->attrs, "body");
  CU_ASSERT_FATAL(b && b->type == TFS_ATTR_FUNC && b->u.func);
  return b->u.func;
}

/* Loads the LSTM; its While node, the While's body, its input count and
 * an array of as many (NULL) values, freed by the caller. */
static const tfs_tensor **lstm_while(tfs_operation **w,
                                     const tfs_func_attr **f, int *n) {
  load_lstm();
  *w = the_while();
  *f = body_of(*w);
  *n = (*w)->ninputs;
  return calloc((size_t)*n, sizeof(const tfs_tensor *));
}

/* Pass-through inputs that are Consts become Consts of the body; the loop
 * counter, a Const the body increments, stays a Placeholder. */
static void test_instantiate_marks_invariants(void) {
  tfs_operation *w;
  const tfs_func_attr *f;
  int n;
  const tfs_tensor **values = lstm_while(&w, &f, &n);
  int nconst_inputs = 0;
  for (int i = 0; i < n; i++)
    nconst_inputs += (values[i] = tfs_graph__const_value(w->inputs[i])) != 0;
  /* the counter, the trip count, h, c and the three weights */
  CU_ASSERT_TRUE(nconst_inputs >= 5);
  CU_ASSERT_PTR_NOT_NULL_FATAL(values[0]); /* loop_counter: Const 0 */
  tfs_fn_body b;
  CU_ASSERT_EQUAL(tfs_fn_body__instantiate_consts(g, f->name, f->attrs, values, n, &b, st), 0);
  TFS_ASSERT_OK(st);
  CU_ASSERT_EQUAL_FATAL(b.nargs, n);
  CU_ASSERT_PTR_NOT_NULL_FATAL(b.const_args);
  CU_ASSERT_EQUAL(b.const_args[0], 0); /* counter + 1 each iteration */
  int made = 0, floats = 0;
  for (int i = 0; i < n; i++) {
    const char *op = b.args[i].oper->def->name;
    if (!b.const_args[i]) {
      CU_ASSERT_STRING_EQUAL(op, "Placeholder");
      continue;
    }
    made++;
    CU_ASSERT_STRING_EQUAL(op, "Const");
    CU_ASSERT_PTR_NOT_NULL_FATAL(values[i]);
    const tfs_tensor *v = tfs_graph__const_value(b.args[i]);
    CU_ASSERT_PTR_NOT_NULL_FATAL(v);
    CU_ASSERT_PTR_EQUAL(v, values[i]); /* the caller's tensor, shared */
    CU_ASSERT_EQUAL(v->dtype, values[i]->dtype);
    CU_ASSERT_EQUAL(v->nbytes, values[i]->nbytes);
    CU_ASSERT_EQUAL(memcmp(v->data, values[i]->data, v->nbytes), 0);
    floats += v->dtype == TFS_FLOAT && v->shape.rank >= 1;
    /* returned as is: the return value reads the argument */
    CU_ASSERT_STRING_EQUAL(b.rets[i].oper->def->name, "Identity");
    CU_ASSERT_PTR_EQUAL(b.rets[i].oper->inputs[0].oper, b.args[i].oper);
  }
  CU_ASSERT_TRUE(made < n);
  CU_ASSERT_EQUAL(floats, 3); /* kernel, recurrent kernel, bias */
  /* the arguments returned as is: those made Consts and the others
   * (the trip count, the input TensorList), never the counter, h, c */
  unsigned char *ret = calloc((size_t)n, 1);
  int nret = tfs_fn_body__returned_args(g, f->name, ret, n);
  CU_ASSERT_TRUE(nret >= made && nret < n);
  CU_ASSERT_EQUAL(ret[0], 0);
  for (int i = 0; i < n; i++)
    if (b.const_args[i]) CU_ASSERT_EQUAL(ret[i], 1);
  CU_ASSERT_EQUAL(tfs_fn_body__returned_args(g, "no_such_fn", ret, n), 0);
  free(ret);
  tfs_fn_body__clear(&b);
  free(values);
  unload();
}

/* A value of another dtype than the argument's is not used; with no value
 * at all the body is the plain instance (no const_args). */
static void test_instantiate_ignores_mismatch(void) {
  tfs_operation *w;
  const tfs_func_attr *f;
  int n;
  const tfs_tensor **values = lstm_while(&w, &f, &n);
  int64_t one = 1;
  int32_t v = 3;
  tfs_tensor *wrong = tu_int32s(&one, 1, &v);
  int target = -1;
  for (int i = 0; i < n; i++) {
    const tfs_tensor *c = tfs_graph__const_value(w->inputs[i]);
    if (c && c->dtype == TFS_FLOAT && c->shape.rank == 2 && target < 0)
      target = i;
  }
  CU_ASSERT_FATAL(target >= 0);
  values[target] = wrong;
  tfs_fn_body b;
  CU_ASSERT_EQUAL(tfs_fn_body__instantiate_consts(g, f->name, f->attrs, values, n, &b, st), 0);
  TFS_ASSERT_OK(st);
  CU_ASSERT_PTR_NULL(b.const_args);
  CU_ASSERT_STRING_EQUAL(b.args[target].oper->def->name, "Placeholder");
  tfs_fn_body__clear(&b);
  CU_ASSERT_EQUAL(tfs_fn_body__instantiate(g, f->name, f->attrs, &b, st), 0);
  TFS_ASSERT_OK(st);
  CU_ASSERT_PTR_NULL(b.const_args);
  tfs_fn_body__clear(&b);
  tfs_tensor_free(wrong);
  free(values);
  unload();
}

/* The LSTM run with its While's weights constant (the body resolved with
 * them: its two products become one _TfsMatMulSum, one sum over both
 * depths) and with the same weights fed (not constant: the plain body)
 * agree within float rounding, and each gives the same bytes at 1 and 2
 * intra-op threads, with batches of 1 and 8 rows (the product's rows
 * split 4 + 4 in the packed path).  The loop's h is fetched too, so the
 * loop stays a loop (else the remapper makes it one _TfsLstmSequence). */
static void test_fed_or_constant(void) {
  load_lstm();
  tfs_operation *w = the_while();
  tfs_output x = {tfs_graph_operation_by_name(g, "x"), 0};
  tfs_output y = {tfs_graph_operation_by_name(g, "Identity"), 0};
  CU_ASSERT_PTR_NOT_NULL_FATAL(x.oper);
  CU_ASSERT_PTR_NOT_NULL_FATAL(y.oper);
  tfs_output feeds[16];
  tfs_tensor *in[16];
  int nw = 0;
  for (int i = 0; i < w->ninputs && nw < 15; i++) {
    const tfs_tensor *c = tfs_graph__const_value(w->inputs[i]);
    if (!c || c->dtype != TFS_FLOAT || c->shape.rank < 1) continue;
    feeds[1 + nw] = w->inputs[i];
    in[1 + nw] = tfs_tensor_ref((tfs_tensor *)c);
    nw++;
  }
  CU_ASSERT_EQUAL_FATAL(nw, 3);
  feeds[0] = x;
  for (int rows = 1; rows <= 8; rows += 7) {
    int64_t dims[3] = {rows, 7, 5};
    float *xv = malloc(sizeof(float) * (size_t)(rows * 35));
    for (int i = 0; i < rows * 35; i++)
      xv[i] = (float)((i * 37) % 23 - 11) / 7.0f;
    in[0] = tu_floats(dims, 3, xv);
    tfs_tensor *a[2] = {NULL, NULL}, *b[2] = {NULL, NULL};
    for (int threads = 1; threads <= 2; threads++) {
      tfs_session_options *o = tu_no_gpu_options();
      tu_own_pools(o, threads);
      tfs_session *s = tfs_session_new(g, o, st);
      TFS_ASSERT_OK(st);
      int with_consts = -1;
      tfs_output ys[2] = {y, {w, 4}};
      tfs_tensor *got[2] = {NULL, NULL};
      tfs_session_run(s, feeds, in, 1, ys, got, 2, NULL, 0, st);
      a[threads - 1] = got[0];
      tfs_tensor_free(got[1]);
      TFS_ASSERT_OK(st);
      /* the body resolved with the weights (and the cond, plain) */
      CU_ASSERT_EQUAL(tfs_session__function_instances(s, &with_consts), 2);
      CU_ASSERT_EQUAL(with_consts, 1);
      got[0] = got[1] = NULL;
      tfs_session_run(s, feeds, in, 1 + nw, ys, got, 2, NULL, 0, st);
      b[threads - 1] = got[0];
      tfs_tensor_free(got[1]);
      TFS_ASSERT_OK(st);
      /* fed: the plain body too */
      CU_ASSERT_EQUAL(tfs_session__function_instances(s, &with_consts), 3);
      CU_ASSERT_EQUAL(with_consts, 1);
      CU_ASSERT_PTR_NOT_NULL_FATAL(a[threads - 1]);
      CU_ASSERT_PTR_NOT_NULL_FATAL(b[threads - 1]);
      tfs_session_free(s);
      tfs_session_options_free(o);
    }
    size_t len = tfs_tensor_byte_size(a[0]);
    CU_ASSERT_EQUAL_FATAL(len, tfs_tensor_byte_size(b[0]));
    CU_ASSERT_EQUAL(memcmp(tfs_tensor_data(a[0]), tfs_tensor_data(a[1]), len),
                    0);
    CU_ASSERT_EQUAL(memcmp(tfs_tensor_data(b[0]), tfs_tensor_data(b[1]), len),
                    0);
    const float *av = tfs_tensor_data(a[0]), *bv = tfs_tensor_data(b[0]);
    int nonzero = 0, far = 0;
    double amax = 0;
    for (size_t i = 0; i < len / sizeof(float); i++)
      if (fabs(bv[i]) > amax) amax = fabs(bv[i]);
    for (size_t i = 0; i < len / sizeof(float); i++) {
      nonzero += av[i] != 0.0f;
      far += fabs((double)av[i] - bv[i]) > 1e-5 * (1 + amax);
    }
    CU_ASSERT_TRUE(nonzero > 0);
    CU_ASSERT_EQUAL(far, 0);
    for (int t = 0; t < 2; t++) {
      tfs_tensor_free(a[t]);
      tfs_tensor_free(b[t]);
    }
    tfs_tensor_free(in[0]);
    free(xv);
  }
  for (int i = 0; i < nw; i++) tfs_tensor_free(in[1 + i]);
  unload();
}

static const tfs_test_case cases[] = {
    {"instantiate_marks_invariants", test_instantiate_marks_invariants},
    {"instantiate_ignores_mismatch", test_instantiate_ignores_mismatch},
    {"fed_or_constant", test_fed_or_constant},
    {NULL, NULL},
};

const tfs_test_suite tfs_test_suites[] = {{"while_consts", cases},
                                          {NULL, NULL}};
