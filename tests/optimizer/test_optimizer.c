/*
 * tests/optimizer/test_optimizer.c - targeted tests of the optimizer:
 * each rewrite and what the report says about it, preserved nodes (a
 * fetched Identity survives, stateful ops are neither folded nor merged,
 * feeds are not folded away), the RewriterConfig rules (min_graph_nodes,
 * iterations, the optimizers list, disable_meta_optimizer, CSE off with
 * arithmetic) and the process-wide options.  Pipeline, config and failure
 * handling are in test_meta.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opttest.h"

/* ---- pruning ---------------------------------------------------------------
 */

static void test_optimizer_pruning__identity_chains(void) {
  ot_setup();
  tfs_output x = ot_placeholder("x", 2);
  tfs_output a = tfs_op_identity(g, "a", x, st);
  tfs_output b = tfs_op_unary(g, "StopGradient", "b", a, st);
  tfs_output c = tfs_op_unary(g, "Relu", "c", b, st);
  tfs_output out = tfs_op_identity(g, "out", c, st); /* fetched */
  TFS_ASSERT_OK(st);
  tfs_graph *og = ot_optimize(&x, 1, &out, 1, "pruning");
  CU_ASSERT_PTR_NULL(tfs_graph_operation_by_name(og, "a"));
  CU_ASSERT_PTR_NULL(tfs_graph_operation_by_name(og, "b"));
  CU_ASSERT_STRING_EQUAL(ot_type(og, "out"), "Identity");
  CU_ASSERT_STRING_EQUAL(ot_type(og, "c"), "Relu");
  CU_ASSERT_PTR_NOT_NULL(strstr(ot_summary(0), "removed 2 trivial nodes"));
  ot_check_same(og, &x, 1, &out, 1, 0);
  tfs_graph_free(og);
  ot_teardown();
}

static void test_optimizer_pruning__unreachable(void) {
  ot_setup();
  tfs_output x = ot_placeholder("x", 2);
  tfs_output y = tfs_op_unary(g, "Tanh", "y", x, st);
  tfs_op_unary(g, "Exp", "unused1", x, st);
  tfs_op_unary(g, "Sigmoid", "unused2", x, st);
  tfs_output z = tfs_op_unary(g, "Neg", "z", y, st);
  TFS_ASSERT_OK(st);
  tfs_graph *og = ot_optimize(&x, 1, &z, 1, "pruning");
  CU_ASSERT_PTR_NULL(tfs_graph_operation_by_name(og, "unused1"));
  CU_ASSERT_PTR_NULL(tfs_graph_operation_by_name(og, "unused2"));
  CU_ASSERT_EQUAL(tfs_graph_num_operations(og), 3);
  CU_ASSERT_PTR_NOT_NULL(strstr(ot_summary(0), "pruned 2 nodes"));
  tfs_graph_free(og);
  ot_teardown();
}

static void test_optimizer_pruning__controlled_identity_stays(void) {
  ot_setup();
  tfs_output x = ot_placeholder("x", 2);
  tfs_output y = tfs_op_unary(g, "Tanh", "y", x, st);
  tfs_operation *deps[1] = {y.oper};
  tfs_output w = tfs_op_with_dependencies(g, "w", x, deps, 1, st);
  tfs_output z = tfs_op_add(g, "z", w, y, st);
  TFS_ASSERT_OK(st);
  tfs_graph *og = ot_optimize(&x, 1, &z, 1, "pruning");
  /* an Identity driven by a control edge orders work: it stays */
  CU_ASSERT_STRING_EQUAL(ot_type(og, "w"), "Identity");
  ot_check_same(og, &x, 1, &z, 1, 0);
  tfs_graph_free(og);
  ot_teardown();
}

/* IdentityN(a, b, c) of which one output alone is read forwards that
 * input (Keras's swish ends in one); kept when two outputs are read or a
 * control edge touches it. */
static void test_optimizer_pruning__identity_n(void) {
  for (int k = 0; k < 4; k++) {
    ot_setup();
    tfs_output x = ot_placeholder("x", 2);
    tfs_output a = tfs_op_unary(g, "Tanh", "a", x, st);
    tfs_output b = tfs_op_unary(g, "Exp", "b", x, st);
    tfs_output c = tfs_op_unary(g, "Neg", "c", x, st);
    tfs_output in[3] = {a, b, c};
    tfs_op_desc *d = tfs_op_desc_new(g, "IdentityN", "idn");
    tfs_op_desc_add_input_list(d, in, 3);
    if (k == 3) tfs_op_desc_add_control_input(d, a.oper);
    tfs_operation *idn = tfs_op_desc_finish(d, st);
    /* k 0: output 0 read, k 1: output 2, k 2: outputs 0 and 1 */
    tfs_output r0 = {idn, k == 1 ? 2 : 0};
    tfs_output y = tfs_op_unary(g, "Relu", "y", r0, st);
    if (k == 2) y = tfs_op_add(g, "y2", y, (tfs_output){idn, 1}, st);
    TFS_ASSERT_OK(st);
    tfs_graph *og = ot_optimize(&x, 1, &y, 1, "pruning");
    const int gone = k < 2;
    CU_ASSERT_EQUAL(ot_count(og, "IdentityN"), gone ? 0 : 1);
    if (gone) {
      tfs_operation *r = tfs_graph_operation_by_name(og, "y");
      CU_ASSERT_PTR_NOT_NULL_FATAL(r);
      tfs_output src = tfs_operation_input((tfs_input){r, 0});
      CU_ASSERT_STRING_EQUAL(tfs_operation_name(src.oper), k ? "c" : "a");
      /* the inputs nothing else reads went with it */
      CU_ASSERT_EQUAL(ot_count(og, "Exp"), 0);
      CU_ASSERT_PTR_NOT_NULL(strstr(ot_summary(0), "(1 Identity"));
    }
    ot_check_same(og, &x, 1, &y, 1, 0);
    tfs_graph_free(og);
    ot_teardown();
  }
}

/* ---- constant folding ------------------------------------------------------
 */

static void test_optimizer_constfold__folds_and_keeps_names(void) {
  ot_setup();
  tfs_output x = ot_placeholder("x", 2);
  tfs_output a = tfs_op_const_float(g, "a", 2.0f, st);
  tfs_output b = tfs_op_const_float(g, "b", 3.0f, st);
  tfs_output s = tfs_op_add(g, "s", a, b, st);
  tfs_output e = tfs_op_unary(g, "Exp", "e", s, st);
  tfs_output y = tfs_op_mul(g, "y", x, e, st);
  TFS_ASSERT_OK(st);
  tfs_graph *og = ot_optimize(&x, 1, &y, 1, "constfold");
  CU_ASSERT_STRING_EQUAL(ot_type(og, "e"), "Const");
  CU_ASSERT_PTR_NULL(tfs_graph_operation_by_name(og, "s"));
  CU_ASSERT_PTR_NULL(tfs_graph_operation_by_name(og, "a"));
  CU_ASSERT_EQUAL(tfs_graph_num_operations(og), 3);
  CU_ASSERT_PTR_NOT_NULL(strstr(ot_summary(0),
                                "folded 2 nodes into 1 "
                                "constant"));
  ot_check_same(og, &x, 1, &y, 1, 0);
  tfs_graph_free(og);
  ot_teardown();
}

static void test_optimizer_constfold__shapes(void) {
  ot_setup();
  tfs_output x = ot_placeholder("x", 2); /* [2, 3] */
  tfs_output shp = tfs_op_shape(g, "shp", x, st);
  tfs_output f = tfs_op_cast(g, "f", shp, TFS_FLOAT, st);
  tfs_output y =
      tfs_op_sum(g, "y", f, tfs_op_const_int32(g, "ax", 0, st), 0, st);
  tfs_output z = tfs_op_mul(g, "z", x, y, st);
  TFS_ASSERT_OK(st);
  tfs_graph *og = ot_optimize(&x, 1, &z, 1, "constfold");
  CU_ASSERT_STRING_EQUAL(ot_type(og, "y"), "Const");
  CU_ASSERT_PTR_NULL(tfs_graph_operation_by_name(og, "shp"));
  CU_ASSERT_PTR_NOT_NULL(strstr(ot_summary(0), "materialized 1 shape"));
  ot_check_same(og, &x, 1, &z, 1, 0);
  tfs_graph_free(og);
  ot_teardown();
}

/* BroadcastGradientArgs of two constant shapes folds through its CPU
 * kernel into two constants (the ones its consumers read). */
static void test_optimizer_constfold__broadcast_gradient_args(void) {
  ot_setup();
  tfs_output x = ot_placeholder("x", 2);
  const int32_t v0[] = {2, 3, 1}, v1[] = {3, 5};
  const int64_t d0[] = {3}, d1[] = {2};
  tfs_tensor *t0 = tfs_tensor_new_copy(TFS_INT32, d0, 1, v0, sizeof v0, st);
  tfs_tensor *t1 = tfs_tensor_new_copy(TFS_INT32, d1, 1, v1, sizeof v1, st);
  tfs_output s0 = tfs_op_const(g, "s0", t0, st);
  tfs_output s1 = tfs_op_const(g, "s1", t1, st);
  tfs_tensor_free(t0);
  tfs_tensor_free(t1);
  tfs_op_desc *d = tfs_op_desc_new(g, "BroadcastGradientArgs", "bga");
  tfs_op_desc_add_input(d, s0);
  tfs_op_desc_add_input(d, s1);
  tfs_operation *bga = tfs_op_desc_finish(d, st);
  TFS_ASSERT_OK(st);
  tfs_output r0 = tfs_op_identity(g, "r0", (tfs_output){bga, 0}, st);
  tfs_output r1 = tfs_op_identity(g, "r1", (tfs_output){bga, 1}, st);
  tfs_output c0 = tfs_op_cast(g, "c0", r0, TFS_FLOAT, st);
  tfs_output c1 = tfs_op_cast(g, "c1", r1, TFS_FLOAT, st);
  tfs_output ax = tfs_op_const_int32(g, "ax", 0, st);
  tfs_output a = tfs_op_sum(g, "a", c0, ax, 0, st);
  tfs_output b = tfs_op_sum(g, "b", c1, ax, 0, st);
  tfs_output y = tfs_op_mul(g, "y", x, tfs_op_add(g, "ab", a, b, st), st);
  TFS_ASSERT_OK(st);
  tfs_graph *og = ot_optimize(&x, 1, &y, 1, "constfold");
  CU_ASSERT_PTR_NULL(tfs_graph_operation_by_name(og, "bga"));
  CU_ASSERT_EQUAL(ot_count(og, "BroadcastGradientArgs"), 0);
  ot_check_same(og, &x, 1, &y, 1, 0);
  tfs_graph_free(og);
  ot_teardown();
}

static void test_optimizer_constfold__feeds_not_folded(void) {
  ot_setup();
  tfs_output x = ot_placeholder("x", 2);
  tfs_output c = tfs_op_const_float(g, "c", 2.0f, st);
  tfs_output d = tfs_op_unary(g, "Neg", "d", c, st);
  tfs_output y = tfs_op_mul(g, "y", x, d, st);
  TFS_ASSERT_OK(st);
  /* c is fed: neither it nor what depends on it may be folded */
  tfs_output feeds[2] = {x, c};
  tfs_graph *og = ot_optimize(feeds, 2, &y, 1, "constfold");
  CU_ASSERT_STRING_EQUAL(ot_type(og, "d"), "Neg");
  CU_ASSERT_STRING_EQUAL(ot_type(og, "c"), "Const");
  ot_check_same(og, feeds, 2, &y, 1, 0);
  tfs_graph_free(og);
  ot_teardown();
}

static void test_optimizer_constfold__stateful_not_folded(void) {
  ot_setup();
  tfs_output x = ot_placeholder("x", 2);
  int32_t dims[2] = {2, 3};
  int64_t d1[1] = {2};
  tfs_tensor *dt = tfs_tensor_new_copy(TFS_INT32, d1, 1, dims, sizeof dims, st);
  tfs_output shape = tfs_op_const(g, "shape", dt, st);
  tfs_tensor_free(dt);
  tfs_op_desc *d = tfs_op_desc_new(g, "RandomUniform", "r");
  tfs_op_desc_add_input(d, shape);
  tfs_op_desc_set_attr_type(d, "dtype", TFS_FLOAT);
  tfs_op_desc_set_attr_int(d, "seed", 7);
  tfs_op_desc_set_attr_int(d, "seed2", 9);
  tfs_operation *r = tfs_op_desc_finish(d, st);
  TFS_ASSERT_OK(st);
  tfs_output y = tfs_op_add(g, "y", x, (tfs_output){r, 0}, st);
  TFS_ASSERT_OK(st);
  tfs_graph *og = ot_optimize(&x, 1, &y, 1, "constfold");
  CU_ASSERT_STRING_EQUAL(ot_type(og, "r"), "RandomUniform");
  tfs_graph_free(og);
  ot_teardown();
}

static void test_optimizer_constfold__size_cap(void) {
  ot_setup();
  tfs_output x = ot_placeholder("x", 2);
  int32_t dims[2] = {512, 512};
  int64_t d1[1] = {2};
  tfs_tensor *dt = tfs_tensor_new_copy(TFS_INT32, d1, 1, dims, sizeof dims, st);
  tfs_output shape = tfs_op_const(g, "shape", dt, st);
  tfs_tensor_free(dt);
  tfs_output big =
      tfs_op_fill(g, "big", shape, tfs_op_const_float(g, "v", 1.5f, st), st);
  tfs_output s =
      tfs_op_sum(g, "s", big, tfs_op_const_int32(g, "ax", 0, st), 0, st);
  tfs_output y = tfs_op_identity(g, "y", s, st);
  TFS_ASSERT_OK(st);
  ot_config.max_fold_bytes = 4096; /* the 1 MiB Fill result is over it */
  tfs_graph *og = ot_optimize(&x, 1, &y, 1, "constfold");
  CU_ASSERT_STRING_EQUAL(ot_type(og, "big"), "Fill");
  CU_ASSERT_PTR_NOT_NULL(strstr(ot_summary(0), "constant cap"));
  tfs_graph_free(og);
  ot_teardown();
}

/* ---- common subgraph elimination ------------------------------------------
 */

static void test_optimizer_cse__merges_duplicates(void) {
  ot_setup();
  tfs_output x = ot_placeholder("x", 2);
  tfs_output a1 = tfs_op_unary(g, "Tanh", "a1", x, st);
  tfs_output a2 = tfs_op_unary(g, "Tanh", "a2", x, st);
  tfs_output b1 = tfs_op_mul(g, "b1", a1, x, st);
  tfs_output b2 = tfs_op_mul(g, "b2", x, a2, st); /* commuted */
  tfs_output y = tfs_op_sub(g, "y", b1, b2, st);
  TFS_ASSERT_OK(st);
  tfs_graph *og = ot_optimize(&x, 1, &y, 1, "common_subgraph_elimination");
  CU_ASSERT_EQUAL(tfs_graph_num_operations(og), 4);
  CU_ASSERT_PTR_NOT_NULL(strstr(ot_summary(0), "merged 2 duplicate nodes"));
  ot_check_same(og, &x, 1, &y, 1, 0);
  tfs_graph_free(og);
  ot_teardown();
}

static void test_optimizer_cse__stateful_not_merged(void) {
  ot_setup();
  tfs_output x = ot_placeholder("x", 2);
  tfs_output shape = tfs_op_shape(g, "shape", x, st);
  tfs_operation *r[2];
  for (int i = 0; i < 2; i++) {
    tfs_op_desc *d = tfs_op_desc_new(g, "RandomUniform", i ? "r1" : "r0");
    tfs_op_desc_add_input(d, shape);
    tfs_op_desc_set_attr_type(d, "dtype", TFS_FLOAT);
    r[i] = tfs_op_desc_finish(d, st);
  }
  TFS_ASSERT_OK(st);
  tfs_output y =
      tfs_op_sub(g, "y", (tfs_output){r[0], 0}, (tfs_output){r[1], 0}, st);
  tfs_graph *og = ot_optimize(&x, 1, &y, 1, "common_subgraph_elimination");
  CU_ASSERT_PTR_NOT_NULL(tfs_graph_operation_by_name(og, "r0"));
  CU_ASSERT_PTR_NOT_NULL(tfs_graph_operation_by_name(og, "r1"));
  tfs_graph_free(og);
  ot_teardown();
}

static void test_optimizer_cse__preserved_duplicate_kept(void) {
  ot_setup();
  tfs_output x = ot_placeholder("x", 2);
  tfs_output a1 = tfs_op_unary(g, "Tanh", "a1", x, st);
  tfs_output a2 = tfs_op_unary(g, "Tanh", "a2", x, st);
  tfs_output y = tfs_op_add(g, "y", a1, x, st);
  TFS_ASSERT_OK(st);
  tfs_output fetches[2] = {y, a2}; /* a2 is fetched: it stays, a1 goes */
  tfs_graph *og = ot_optimize(&x, 1, fetches, 2, "common_subgraph_elimination");
  CU_ASSERT_PTR_NULL(tfs_graph_operation_by_name(og, "a1"));
  CU_ASSERT_PTR_NOT_NULL(tfs_graph_operation_by_name(og, "a2"));
  ot_check_same(og, &x, 1, fetches, 2, 0);
  tfs_graph_free(og);
  ot_teardown();
}

/* ---- arithmetic ---------------------------------------------------------- */

static void test_optimizer_arithmetic__neutral_and_involutions(void) {
  ot_setup();
  tfs_output x = ot_placeholder("x", 2);
  tfs_output m = tfs_op_mul(g, "m", x, tfs_op_const_float(g, "one", 1, st), st);
  tfs_output a =
      tfs_op_add(g, "a", tfs_op_const_float(g, "zero", 0, st), m, st);
  tfs_output n1 = tfs_op_unary(g, "Neg", "n1", a, st);
  tfs_output n2 = tfs_op_unary(g, "Neg", "n2", n1, st);
  tfs_output y = tfs_op_unary(g, "Tanh", "y", n2, st);
  TFS_ASSERT_OK(st);
  tfs_graph *og = ot_optimize(&x, 1, &y, 1, "arithmetic");
  CU_ASSERT_EQUAL(tfs_graph_num_operations(og), 2);
  const char *s = ot_summary(0);
  CU_ASSERT_PTR_NOT_NULL(strstr(s, "neutral elements (x*1, x+0, ...): 2"));
  CU_ASSERT_PTR_NOT_NULL(strstr(s, "involutions (Neg(Neg x), ...): 1"));
  ot_check_same(og, &x, 1, &y, 1, 0);
  tfs_graph_free(og);
  ot_teardown();
}

static void test_optimizer_arithmetic__aggregation_and_hoisting(void) {
  ot_setup();
  tfs_output x = ot_placeholder("x", 2);
  tfs_output xx = tfs_op_add(g, "xx", x, x, st);
  tfs_output b = ot_const_like("b", 0.5f);
  tfs_output c = ot_const_like("c", -1.25f);
  tfs_output p = tfs_op_mul(g, "p", xx, b, st);
  tfs_output q = tfs_op_mul(g, "q", c, xx, st);
  tfs_output y = tfs_op_add(g, "y", p, q, st);
  TFS_ASSERT_OK(st);
  tfs_graph *og = ot_optimize(&x, 1, &y, 1, "arithmetic");
  CU_ASSERT_STRING_EQUAL(ot_type(og, "xx"), "Mul");
  CU_ASSERT_STRING_EQUAL(ot_type(og, "y"), "Mul");
  CU_ASSERT_PTR_NULL(tfs_graph_operation_by_name(og, "p"));
  const char *s = ot_summary(0);
  CU_ASSERT_PTR_NOT_NULL(strstr(s, "sums of identical inputs -> Mul: 1"));
  CU_ASSERT_PTR_NOT_NULL(strstr(s, "common factors hoisted: 1"));
  ot_check_same(og, &x, 1, &y, 1, 1);
  tfs_graph_free(og);
  ot_teardown();
}

/* Div / RealDiv of floats by a constant become Mul by a Const of the
 * reciprocal, named as TensorFlow names it; a division by a tensor and an
 * integer division stay. */
static void test_optimizer_arithmetic__div_by_constant(void) {
  ot_setup();
  tfs_output x = ot_placeholder("x", 2);
  tfs_output d1 =
      tfs_op_realdiv(g, "d1", x, tfs_op_const_float(g, "six", 6.0f, st), st);
  tfs_output d2 = tfs_op_div(g, "d2", d1, ot_const_like("c", 3.0f), st);
  tfs_output d3 = tfs_op_realdiv(g, "d3", d2, x, st);
  tfs_output xi = tfs_op_cast(g, "xi", x, TFS_INT32, st);
  tfs_output d4 =
      tfs_op_div(g, "d4", xi, tfs_op_const_int32(g, "two", 2, st), st);
  tfs_output y[2] = {d3, d4};
  TFS_ASSERT_OK(st);
  tfs_graph *og = ot_optimize(&x, 1, y, 2, "arithmetic");
  CU_ASSERT_STRING_EQUAL(ot_type(og, "d1"), "Mul");
  CU_ASSERT_STRING_EQUAL(ot_type(og, "d2"), "Mul");
  CU_ASSERT_STRING_EQUAL(ot_type(og, "d3"), "RealDiv");
  CU_ASSERT_STRING_EQUAL(ot_type(og, "d4"), "Div");
  CU_ASSERT_PTR_NULL(tfs_graph_operation_by_name(og, "six"));
  tfs_operation *r =
      tfs_graph_operation_by_name(og, "ConstantFolding/d1_recip");
  CU_ASSERT_PTR_NOT_NULL_FATAL(r);
  tfs_tensor *v = tfs_operation_attr_tensor(r, "value", st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_EQUAL(*(const float *)tfs_tensor_data(v), 1.0f / 6.0f);
  tfs_tensor_free(v);
  CU_ASSERT_PTR_NOT_NULL(strstr(
      ot_summary(0), "Div by a constant -> Mul by its reciprocal: 2"));
  ot_check_same(og, &x, 1, y, 2, 1);
  tfs_graph_free(og);
  ot_teardown();
}

static void test_optimizer_arithmetic__transposes_and_reshapes(void) {
  ot_setup();
  tfs_output x = ot_placeholder("x", 2);
  int32_t perm[2] = {1, 0};
  tfs_output t1 = ot_transpose("t1", x, perm);
  tfs_output t2 = ot_transpose("t2", t1, perm);
  int32_t shp[1] = {6}, back[2] = {2, 3};
  tfs_output r1 = ot_reshape("r1", t2, shp, 1);
  tfs_output r2 = ot_reshape("r2", r1, back, 2);
  tfs_output y = tfs_op_unary(g, "Relu", "y", r2, st);
  TFS_ASSERT_OK(st);
  tfs_graph *og = ot_optimize(&x, 1, &y, 1, "arithmetic");
  CU_ASSERT_PTR_NULL(tfs_graph_operation_by_name(og, "t2"));
  CU_ASSERT_PTR_NULL(tfs_graph_operation_by_name(og, "r2"));
  CU_ASSERT_EQUAL(ot_count(og, "Transpose") + ot_count(og, "Reshape"), 0);
  ot_check_same(og, &x, 1, &y, 1, 0);
  tfs_graph_free(og);
  ot_teardown();
}

static void test_optimizer_arithmetic__scale_into_weights(void) {
  ot_setup();
  tfs_output x = ot_placeholder("x", 2); /* [2, 3] */
  tfs_output w = ot_matrix("w", 3, 4);
  tfs_output mm = tfs_op_matmul(g, "mm", x, w, 0, 0, st);
  float sv[4] = {0.5f, 2.0f, -1.0f, 3.0f};
  int64_t sd[1] = {4};
  tfs_tensor *t = tu_floats(sd, 1, sv);
  tfs_output s = tfs_op_const(g, "s", t, st);
  tfs_tensor_free(t);
  tfs_output y = tfs_op_mul(g, "y", mm, s, st);
  TFS_ASSERT_OK(st);
  tfs_graph *og = ot_optimize(&x, 1, &y, 1, "arithmetic");
  CU_ASSERT_STRING_EQUAL(ot_type(og, "y"), "MatMul");
  CU_ASSERT_EQUAL(ot_count(og, "Mul"), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(ot_summary(0), "folded into weights: 1"));
  ot_check_same(og, &x, 1, &y, 1, 1);
  tfs_graph_free(og);
  ot_teardown();
}

/* Pow(a, c) for a > 0 and a scalar c; returns the Pow. */
static tfs_output pow_of_positive(tfs_output x, const char *name, float c) {
  char an[64], cn[64];
  snprintf(an, sizeof an, "%s_base", name);
  snprintf(cn, sizeof cn, "%s_exp", name);
  tfs_output ab = tfs_op_unary(g, "Abs", NULL, x, st);
  tfs_output a =
      tfs_op_add(g, an, ab, tfs_op_const_float(g, NULL, 0.5f, st), st);
  return tfs_op_pow(g, name, a, tfs_op_const_float(g, cn, c, st), st);
}

/* TensorFlow's ConvertPow: each exponent and what the Pow becomes. */
static void test_optimizer_arithmetic__convert_pow(void) {
  static const struct {
    float e;
    const char *op;
  } kCases[] = {{2.0f, "Square"}, {3.0f, "Mul"},         {0.5f, "Sqrt"},
                {-0.5f, "Rsqrt"}, {-1.0f, "Reciprocal"}, {1.0f, "Identity"},
                {0.0f, "Const"}};
  for (size_t i = 0; i < sizeof kCases / sizeof kCases[0]; i++) {
    ot_setup();
    tfs_output x = ot_placeholder("x", 2);
    tfs_output p = pow_of_positive(x, "p", kCases[i].e);
    tfs_output y = tfs_op_unary(g, "Neg", "y", p, st);
    TFS_ASSERT_OK(st);
    tfs_graph *og = ot_optimize(&x, 1, &y, 1, "arithmetic");
    CU_ASSERT_STRING_EQUAL(ot_type(og, "p"), kCases[i].op);
    CU_ASSERT_EQUAL(ot_count(og, "Pow"), 0);
    CU_ASSERT_PTR_NULL(tfs_graph_operation_by_name(og, "p_exp"));
    CU_ASSERT_PTR_NOT_NULL(
        strstr(ot_summary(0), "Pow with a constant exponent simplified: 1"));
    if (kCases[i].e == 3.0f) {
      CU_ASSERT_EQUAL(ot_count(og, "Square"), 1);
    }
    if (kCases[i].e == 0.0f) {
      /* ones, still after the base (TensorFlow keeps x as a control
       * input) */
      tfs_operation *k = tfs_graph_operation_by_name(og, "p");
      CU_ASSERT_EQUAL(tfs_operation_num_control_inputs(k), 1);
    }
    ot_check_same(og, &x, 1, &y, 1, 1);
    tfs_graph_free(og);
    ot_teardown();
  }
}

/* Pows that stay: other exponents, unequal exponents, an exponent that
 * broadcasts x to a bigger shape, 0 on a partly unknown shape, integers,
 * and a GPU request for the cube (TensorFlow's CPU-only rule). */
static void test_optimizer_arithmetic__convert_pow_kept(void) {
  ot_setup();
  tfs_output x = ot_placeholder("x", 2); /* [2, 3] */
  int64_t d3[1] = {3}, d23[2] = {2, 3}, d13[2] = {1, 3}, du[2] = {-1, 3};
  tfs_output v = tfs_op_placeholder(g, "v", TFS_FLOAT, d3, 1, st);
  tfs_output u = tfs_op_placeholder(g, "u", TFS_FLOAT, du, 2, st);
  float twos[6] = {2, 2, 2, 2, 2, 2}, mixed[3] = {2, 3, 2};
  tfs_tensor *t23 = tu_floats(d23, 2, twos), *t13 = tu_floats(d13, 2, twos);
  tfs_tensor *tm = tu_floats(d3, 1, mixed);
  tfs_output p1 =
      tfs_op_pow(g, "p1", x, tfs_op_const_float(g, NULL, 2.5f, st), st);
  tfs_output p2 = tfs_op_pow(g, "p2", x, tfs_op_const(g, NULL, tm, st), st);
  tfs_output p3 = tfs_op_pow(g, "p3", v, tfs_op_const(g, NULL, t23, st), st);
  tfs_output p4 =
      tfs_op_pow(g, "p4", u, tfs_op_const_float(g, NULL, 0, st), st);
  tfs_output p5 = tfs_op_pow(g, "p5", x, tfs_op_const(g, NULL, t13, st), st);
  tfs_output xi = tfs_op_cast(g, "xi", x, TFS_INT32, st);
  tfs_output p6 =
      tfs_op_pow(g, "p6", xi, tfs_op_const_int32(g, NULL, 2, st), st);
  tfs_op_desc *d = tfs_op_desc_new(g, "Pow", "p7");
  tfs_op_desc_add_input(d, x);
  tfs_op_desc_add_input(d, tfs_op_const_float(g, NULL, 3, st));
  tfs_op_desc_set_device(d, "/device:GPU:0");
  tfs_output p7 = {tfs_op_desc_finish(d, st), 0};
  tfs_tensor_free(t23);
  tfs_tensor_free(t13);
  tfs_tensor_free(tm);
  TFS_ASSERT_OK(st);
  tfs_output feeds[3] = {x, v, u};
  tfs_output fetches[7] = {p1, p2, p3, p4, p5, p6, p7};
  tfs_graph *og = ot_optimize(feeds, 3, fetches, 7, "arithmetic");
  const char *pows[] = {"p1", "p2", "p3", "p4", "p6", "p7"};
  for (int i = 0; i < 6; i++)
    CU_ASSERT_STRING_EQUAL(ot_type(og, pows[i]), "Pow");
  /* an all-2 exponent of shape [1, 3] broadcasts into x's [2, 3] */
  CU_ASSERT_STRING_EQUAL(ot_type(og, "p5"), "Square");
  CU_ASSERT_PTR_NOT_NULL(
      strstr(ot_summary(0), "Pow with a constant exponent simplified: 1"));
  tfs_graph_free(og);
  ot_teardown();
}

/* ---- dependency -------------------------------------------------------------
 */

static void test_optimizer_dependency__control_edges(void) {
  ot_setup();
  tfs_output x = ot_placeholder("x", 2);
  tfs_output a = tfs_op_unary(g, "Tanh", "a", x, st);
  tfs_operation *da[1] = {a.oper};
  tfs_operation *noop = tfs_op_group(g, "noop", da, 1, st);
  tfs_operation *dn[2] = {noop, a.oper};
  tfs_output b = tfs_op_with_dependencies(g, "b", a, dn, 2, st);
  tfs_output y = tfs_op_unary(g, "Neg", "y", b, st);
  TFS_ASSERT_OK(st);
  tfs_graph *og = ot_optimize(&x, 1, &y, 1, "dependency");
  CU_ASSERT_PTR_NULL(tfs_graph_operation_by_name(og, "noop"));
  tfs_operation *bo = tfs_graph_operation_by_name(og, "b");
  CU_ASSERT_PTR_NOT_NULL_FATAL(bo);
  CU_ASSERT_EQUAL(tfs_operation_num_control_inputs(bo), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(ot_summary(0), "bypassed 1 NoOp"));
  ot_check_same(og, &x, 1, &y, 1, 0);
  tfs_graph_free(og);
  ot_teardown();
}

static const tfs_test_case kPasses[] = {
    {"pruning_identity_chains", test_optimizer_pruning__identity_chains},
    {"pruning_unreachable", test_optimizer_pruning__unreachable},
    {"pruning_identity_n", test_optimizer_pruning__identity_n},
    {"pruning_controlled_identity_stays",
     test_optimizer_pruning__controlled_identity_stays},
    {"constfold_folds_and_keeps_names",
     test_optimizer_constfold__folds_and_keeps_names},
    {"constfold_shapes", test_optimizer_constfold__shapes},
    {"constfold_feeds_not_folded", test_optimizer_constfold__feeds_not_folded},
    {"constfold_broadcast_gradient_args",
     test_optimizer_constfold__broadcast_gradient_args},
    {"constfold_stateful_not_folded",
     test_optimizer_constfold__stateful_not_folded},
    {"constfold_size_cap", test_optimizer_constfold__size_cap},
    {"cse_merges_duplicates", test_optimizer_cse__merges_duplicates},
    {"cse_stateful_not_merged", test_optimizer_cse__stateful_not_merged},
    {"cse_preserved_duplicate_kept",
     test_optimizer_cse__preserved_duplicate_kept},
    {"arithmetic_neutral_and_involutions",
     test_optimizer_arithmetic__neutral_and_involutions},
    {"arithmetic_aggregation_and_hoisting",
     test_optimizer_arithmetic__aggregation_and_hoisting},
    {"arithmetic_transposes_and_reshapes",
     test_optimizer_arithmetic__transposes_and_reshapes},
    {"arithmetic_div_by_constant",
     test_optimizer_arithmetic__div_by_constant},
    {"arithmetic_convert_pow", test_optimizer_arithmetic__convert_pow},
    {"arithmetic_convert_pow_kept",
     test_optimizer_arithmetic__convert_pow_kept},
    {"arithmetic_scale_into_weights",
     test_optimizer_arithmetic__scale_into_weights},
    {"dependency_control_edges", test_optimizer_dependency__control_edges},
    {NULL, NULL},
};

extern const tfs_test_case tfs_optimizer_nn_cases[];
extern const tfs_test_case tfs_optimizer_meta_cases[];
extern const tfs_test_case tfs_optimizer_attention_cases[];
extern const tfs_test_case tfs_optimizer_remap_add_cases[];
extern const tfs_test_case tfs_optimizer_remap_amp_cases[];
extern const tfs_test_case tfs_optimizer_remap_affine_cases[];
extern const tfs_test_case tfs_optimizer_remap_pad_pool_cases[];
extern const tfs_test_case tfs_optimizer_remap_grouped_cases[];
extern const tfs_test_case tfs_optimizer_arith_dense_cases[];

const tfs_test_suite tfs_test_suites[] = {
    {"optimizer_passes", kPasses},
    {"optimizer_nn", tfs_optimizer_nn_cases},
    {"optimizer_meta", tfs_optimizer_meta_cases},
    {"optimizer_attention", tfs_optimizer_attention_cases},
    {"optimizer_remap_add", tfs_optimizer_remap_add_cases},
    {"optimizer_remap_amp", tfs_optimizer_remap_amp_cases},
    {"optimizer_remap_affine", tfs_optimizer_remap_affine_cases},
    {"optimizer_remap_pad_pool", tfs_optimizer_remap_pad_pool_cases},
    {"optimizer_remap_grouped", tfs_optimizer_remap_grouped_cases},
    {"optimizer_arith_dense", tfs_optimizer_arith_dense_cases},
    {NULL, NULL},
};
