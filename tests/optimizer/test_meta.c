/*
 * tests/optimizer/test_meta.c - the meta-optimizer: RewriterConfig rules
 * (min_graph_nodes, iterations and the fixed point, the optimizers list,
 * CSE off with arithmetic, disable_meta_optimizer), process-wide options,
 * a failing pass rolled back (allocation failures injected), the plan
 * entry point with feeds cutting the graph, reports and GraphDef in/out.
 */
#include <stdlib.h>
#include <string.h>

#include "config_proto/config.h"
#include "core/alloc.h"
#include "core/log.h"
#include "opttest.h"
#include "optimizer/opt_graph.h"
#include "optimizer/opt_util.h"
#include "optimizer/optimizer.h"

/* x -> MatMul -> BiasAdd -> Relu, with a constant subexpression. */
static tfs_output small_mlp(tfs_output *x) {
  *x = ot_placeholder("x", 2);
  tfs_output w = ot_matrix("w", 3, 4);
  tfs_output mm = tfs_op_matmul(g, "mm", *x, w, 0, 0, st);
  int64_t bd[1] = {4};
  tfs_output b = tfs_op_add(g, "b", ot_const_shape("b0", bd, 1),
                            ot_const_shape("b1", bd, 1), st);
  tfs_output ba = tfs_op_bias_add(g, "ba", mm, b, st);
  tfs_output r = tfs_op_unary(g, "Relu", "r", ba, st);
  return tfs_op_identity(g, "out", r, st);
}

static int has_pass(const char *pass) {
  for (int i = 0; i < tfs_optimizer_report_num_entries(ot_report); i++)
    if (strcmp(tfs_optimizer_report_pass(ot_report, i), pass) == 0) return 1;
  return 0;
}

static int max_iteration(void) {
  int m = -1;
  for (int i = 0; i < tfs_optimizer_report_num_entries(ot_report); i++)
    if (tfs_optimizer_report_iteration(ot_report, i) > m)
      m = tfs_optimizer_report_iteration(ot_report, i);
  return m;
}

static void test_optimizer_meta__min_graph_nodes(void) {
  ot_setup();
  tfs_output x = ot_placeholder("x", 2);
  tfs_output y =
      tfs_op_unary(g, "Neg", "y", tfs_op_unary(g, "Neg", "n", x, st), st);
  TFS_ASSERT_OK(st);
  ot_config.min_graph_nodes = 0; /* TensorFlow's default: 4 */
  tfs_graph *og = ot_optimize(&x, 1, &y, 1, NULL);
  CU_ASSERT_EQUAL(tfs_graph_num_operations(og), 3); /* a copy */
  CU_ASSERT_PTR_NOT_NULL(strstr(tfs_optimizer_report_skipped(ot_report),
                                "fewer than min_graph_nodes (4)"));
  tfs_graph_free(og);
  ot_config.min_graph_nodes = -1;
  og = ot_optimize(&x, 1, &y, 1, NULL);
  CU_ASSERT_EQUAL(tfs_graph_num_operations(og), 2);
  tfs_graph_free(og);
  ot_teardown();
}

static void test_optimizer_meta__iterations_and_fixed_point(void) {
  ot_setup();
  tfs_output x;
  tfs_output y = small_mlp(&x);
  TFS_ASSERT_OK(st);
  tfs_graph *og = ot_optimize(&x, 1, &y, 1, NULL);
  CU_ASSERT_EQUAL(max_iteration(), 1); /* DEFAULT: two iterations */
  CU_ASSERT_STRING_EQUAL(ot_type(og, "r"), "_FusedMatMul");
  ot_check_same(og, &x, 1, &y, 1, 1);
  tfs_graph_free(og);
  ot_config.iterations = 1; /* ONE */
  og = ot_optimize(&x, 1, &y, 1, NULL);
  CU_ASSERT_EQUAL(max_iteration(), 0);
  tfs_graph_free(og);
  /* nothing to do: the first iteration is a fixed point */
  ot_config.iterations = 0;
  og = ot_optimize(&x, 1, &y, 1, "layout");
  CU_ASSERT_EQUAL(max_iteration(), 0);
  tfs_graph_free(og);
  ot_teardown();
}

static void test_optimizer_meta__optimizers_list(void) {
  ot_setup();
  tfs_output x;
  tfs_output y = small_mlp(&x);
  tfs_graph *og = ot_optimize(&x, 1, &y, 1, "constant_folding, remapper");
  CU_ASSERT_TRUE(has_pass("constant_folding"));
  CU_ASSERT_TRUE(has_pass("remapper"));
  CU_ASSERT_FALSE(has_pass("model_pruner"));
  CU_ASSERT_STRING_EQUAL(tfs_optimizer_report_pass(ot_report, 0),
                         "constant_folding");
  tfs_graph_free(og);
  tfs_optimizer_options *o = tfs_optimizer_options_new();
  tfs_optimizer_options_set_passes(o, "constfold,bogus", st);
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT, "Unknown optimizer 'bogus'");
  tfs_optimizer_options_free(o);
  ot_teardown();
}

static void test_optimizer_meta__cse_needs_arithmetic(void) {
  ot_setup();
  tfs_output x;
  tfs_output y = small_mlp(&x);
  tfs_graph *og = ot_optimize(&x, 1, &y, 1, NULL);
  CU_ASSERT_TRUE(has_pass("common_subgraph_elimination"));
  tfs_graph_free(og);
  ot_config.arithmetic_off = 1;
  og = ot_optimize(&x, 1, &y, 1, NULL);
  CU_ASSERT_FALSE(has_pass("common_subgraph_elimination"));
  CU_ASSERT_FALSE(has_pass("arithmetic_optimizer"));
  tfs_graph_free(og);
  ot_teardown();
}

static void test_optimizer_meta__experimental_options(void) {
  ot_setup();
  tfs_output x;
  tfs_output y = small_mlp(&x);
  tfs_optimizer_set_experimental_option("constant_folding", 0, st);
  TFS_ASSERT_OK(st);
  int64_t v = 7;
  CU_ASSERT_EQUAL(tfs_optimizer_get_experimental_option("constant_folding", &v),
                  1);
  CU_ASSERT_EQUAL(v, 0);
  tfs_graph *og = ot_optimize(&x, 1, &y, 1, NULL);
  CU_ASSERT_FALSE(has_pass("constant_folding"));
  CU_ASSERT_TRUE(has_pass("remapper"));
  tfs_graph_free(og);
  tfs_optimizer_set_experimental_option("disable_meta_optimizer", 1, st);
  og = ot_optimize(&x, 1, &y, 1, NULL);
  CU_ASSERT_PTR_NOT_NULL(strstr(tfs_optimizer_report_skipped(ot_report),
                                "disable_meta_optimizer"));
  tfs_graph_free(og);
  const char *names[2] = {"remapping", "no_such_option"};
  int64_t vals[2] = {0, 1};
  tfs_optimizer_set_experimental_options(names, vals, 2, st);
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT,
                   "Unknown optimizer option 'no_such_option'");
  CU_ASSERT_EQUAL(tfs_optimizer_get_experimental_option("remapping", &v), 0);
  CU_ASSERT_EQUAL(tfs_optimizer_get_experimental_option("bogus", &v), -1);
  tfs_optimizer_reset_experimental_options();
  CU_ASSERT_EQUAL(tfs_optimizer_get_experimental_option("constant_folding", &v),
                  0);
  ot_teardown();
}

/* Allocation failures at every point of one optimization: the optimizer
 * either fails cleanly or returns a graph computing the same values, with
 * failed passes rolled back and reported. */
static void test_optimizer_meta__failing_pass_rolls_back(void) {
  ot_setup();
  tfs_output x;
  tfs_output y = small_mlp(&x);
  tfs_output z = tfs_op_add(g, "z", y, y, st);
  TFS_ASSERT_OK(st);
  tfs_optimizer_options *o = tfs_optimizer_options_new();
  tfs_buffer *b = ot_config_bytes();
  tfs_optimizer_options_set_config(o, b->data, b->length, st);
  tfs_buffer_free(b);
  int rolled_back = 0, failed = 0, fatal_n = -1;
  tfs_log_set_level(TFS_LOG_ERROR + 1); /* the failures are expected */
  for (long n = 1; n < 4000; n++) {
    tfs_optimizer_report *rep = NULL;
    tfs_alloc_fail_at(n);
    tfs_graph *og = tfs_graph_optimize(g, &x, 1, &z, 1, NULL, 0, o, &rep, st);
    long used = tfs_alloc_fail_at(0);
    if (!og) failed++;
    for (int i = 0; rep && i < tfs_optimizer_report_num_entries(rep); i++)
      if (tfs_optimizer_report_code(rep, i) == TFS_RESOURCE_EXHAUSTED) {
        rolled_back++;
        if (fatal_n < 0) fatal_n = (int)n;
      }
    if (og) ot_check_same(og, &x, 1, &z, 1, 1);
    tfs_graph_free(og);
    tfs_optimizer_report_free(rep);
    if (used < n) break; /* the whole run fit below n */
  }
  tfs_log_set_level(TFS_LOG_WARN);
  CU_ASSERT_TRUE(rolled_back > 0);
  CU_ASSERT_TRUE(failed > 0);
  /* the same failure is an error under fail_on_optimizer_errors */
  if (fatal_n > 0) {
    ot_config.fail_on_errors = 1;
    b = ot_config_bytes();
    tfs_optimizer_options_set_config(o, b->data, b->length, st);
    tfs_buffer_free(b);
    tfs_log_set_level(TFS_LOG_ERROR + 1);
    tfs_alloc_fail_at(fatal_n);
    tfs_graph *og = tfs_graph_optimize(g, &x, 1, &z, 1, NULL, 0, o, NULL, st);
    tfs_alloc_fail_at(0);
    tfs_log_set_level(TFS_LOG_WARN);
    CU_ASSERT_PTR_NULL(og);
    CU_ASSERT_EQUAL(tfs_status_code(st), TFS_RESOURCE_EXHAUSTED);
    tfs_graph_free(og);
  }
  tfs_optimizer_options_free(o);
  ot_teardown();
}

static void test_optimizer_meta__plan_entry_point(void) {
  ot_setup();
  tfs_output x = ot_placeholder("x", 2);
  tfs_output a = tfs_op_unary(g, "Tanh", "a", x, st);
  tfs_output b = tfs_op_unary(g, "Exp", "b", a, st);
  tfs_output c = tfs_op_mul(g, "c", b, tfs_op_const_float(g, "one", 1, st), st);
  tfs_output y = tfs_op_unary(g, "Neg", "y", c, st);
  tfs_output y2 = tfs_op_identity(g, "y2", y, st);
  TFS_ASSERT_OK(st);
  /* feeding b cuts x and a off */
  tfs_graph *og = NULL;
  tfs_optimizer_report *rep = NULL;
  CU_ASSERT_EQUAL(tfs_optimizer__optimize_for_plan(g, &b, 1, &y2, 1, NULL, 0,
                                                   NULL, NULL, &og, &rep, st),
                  0);
  TFS_ASSERT_OK(st);
  CU_ASSERT_PTR_NOT_NULL_FATAL(og);
  CU_ASSERT_STRING_EQUAL(ot_type(og, "b"), "Placeholder");
  CU_ASSERT_PTR_NULL(tfs_graph_operation_by_name(og, "a"));
  CU_ASSERT_PTR_NULL(tfs_graph_operation_by_name(og, "c"));
  CU_ASSERT_STRING_EQUAL(ot_type(og, "y2"), "Identity");
  tfs_optimizer_report_free(rep);
  ot_check_same(og, &b, 1, &y2, 1, 0);
  tfs_graph_free(og);
  /* too small to optimize: NULL means "plan on the source graph" */
  og = (tfs_graph *)1;
  CU_ASSERT_EQUAL(tfs_optimizer__optimize_for_plan(g, &x, 1, &a, 1, NULL, 0,
                                                   NULL, NULL, &og, NULL, st),
                  0);
  CU_ASSERT_PTR_NULL(og);
  ot_teardown();
}

static void test_optimizer_meta__report_and_graphdef(void) {
  ot_setup();
  tfs_output x;
  tfs_output y = small_mlp(&x);
  TFS_ASSERT_OK(st);
  tfs_buffer *gd = tfs_buffer_new();
  tfs_graph_to_graphdef(g, gd, st);
  TFS_ASSERT_OK(st);
  tfs_buffer *out = tfs_buffer_new();
  tfs_optimizer_options *o = tfs_optimizer_options_new();
  tfs_optimizer_options_set_tf_compatible(o, 1);
  tfs_optimizer_report *rep = NULL;
  tfs_optimize_graphdef(gd->data, gd->length, "out", o, out, &rep, st);
  TFS_ASSERT_OK(st);
  char *txt = tfs_optimizer_report_to_string(rep);
  CU_ASSERT_PTR_NOT_NULL(strstr(txt, "remapper"));
  CU_ASSERT_PTR_NOT_NULL(strstr(txt, "total: "));
  free(txt);
  CU_ASSERT_TRUE(tfs_optimizer_report_total_nodes_after(rep) <
                 tfs_optimizer_report_total_nodes_before(rep));
  CU_ASSERT_PTR_NULL(tfs_optimizer_report_pass(rep, 999));
  CU_ASSERT_EQUAL(tfs_optimizer_report_iteration(rep, -1), -1);
  CU_ASSERT_TRUE(tfs_optimizer_report_time_us(rep, 0) >= 0);
  tfs_optimizer_report_free(rep);
  tfs_graph *og = tfs_graph_new();
  tfs_import_results *res =
      tfs_graph_import_graphdef(og, out->data, out->length, NULL, st);
  TFS_ASSERT_OK(st);
  tfs_import_results_free(res);
  CU_ASSERT_STRING_EQUAL(ot_type(og, "r"), "_FusedMatMul");
  ot_check_same(og, &x, 1, &y, 1, 1);
  tfs_optimize_graphdef("garbage", 7, NULL, o, out, NULL, st);
  CU_ASSERT_NOT_EQUAL(tfs_status_code(st), TFS_OK);
  tfs_graph_free(og);
  tfs_optimizer_options_free(o);
  tfs_buffer_free(out);
  tfs_buffer_free(gd);
  ot_teardown();
}

/* A meta_optimizer_timeout_ms too large to add to the clock is no
 * deadline (it wrapped into the past and abandoned every pass). */
static void test_optimizer_meta__huge_timeout(void) {
  ot_setup();
  tfs_output x = ot_placeholder("x", 2);
  tfs_output n = tfs_op_unary(g, "Neg", "n", x, st);
  tfs_output y = tfs_op_unary(g, "Neg", "y", tfs_op_unary(g, "Neg", "m", n,
                                                          st), st);
  TFS_ASSERT_OK(st);
  static const int64_t kTimeouts[] = {INT64_MAX, 9300000000000LL};
  for (int i = 0; i < 2; i++) {
    tfs_config c;
    tfs_config__init(&c);
    c.has_graph_options = 1;
    c.graph_options.has_rewrite_options = 1;
    c.graph_options.rewrite_options.min_graph_nodes = -1;
    c.graph_options.rewrite_options.meta_optimizer_timeout_ms = kTimeouts[i];
    tfs_graph *og = NULL;
    CU_ASSERT_EQUAL(tfs_optimizer__optimize_for_plan(g, &x, 1, &y, 1, NULL, 0,
                                                     NULL, &c, &og, NULL, st),
                    0);
    TFS_ASSERT_OK(st);
    CU_ASSERT_PTR_NOT_NULL_FATAL(og); /* the passes ran: Neg(Neg(n)) */
    CU_ASSERT_TRUE(ot_count(og, "Neg") < 3);
    tfs_graph_free(og);
    tfs_config__clear(&c);
  }
  ot_teardown();
}

/* In plan mode the passes see the devices the nodes were placed on: a
 * MatMul + BiasAdd + Relu placed on a GPU keeps its ops (the fused op is
 * CPU-only), the same placed on the CPU is fused, and what the rewrite
 * makes carries the assigned device. */
static void test_optimizer_meta__placed_devices(void) {
  static const char kGpu[] = "/job:localhost/replica:0/task:0/device:GPU:0";
  static const char kCpu[] = "/job:localhost/replica:0/task:0/device:CPU:0";
  for (int on_gpu = 0; on_gpu < 2; on_gpu++) {
    ot_setup();
    tfs_output x;
    tfs_output out = small_mlp(&x);
    TFS_ASSERT_OK(st);
    size_t n = tfs_graph_num_operations(g);
    const char **assigned = calloc(n + 1, sizeof(char *));
    for (size_t i = 0; i < n; i++) assigned[i] = on_gpu ? kGpu : kCpu;
    tfs_graph *og = NULL;
    CU_ASSERT_EQUAL(tfs_optimizer__optimize_for_plan(g, &x, 1, &out, 1, NULL,
                                                     0, assigned, NULL, &og,
                                                     NULL, st),
                    0);
    TFS_ASSERT_OK(st);
    CU_ASSERT_PTR_NOT_NULL_FATAL(og);
    CU_ASSERT_EQUAL(ot_count(og, "_FusedMatMul"), on_gpu ? 0 : 1);
    CU_ASSERT_EQUAL(ot_count(og, "MatMul"), on_gpu ? 1 : 0);
    tfs_operation *r = tfs_graph_operation_by_name(og, "r");
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    CU_ASSERT_STRING_EQUAL(tfs_operation_device(r), on_gpu ? kGpu : kCpu);
    tfs_graph_free(og);
    free((void *)assigned);
    ot_teardown();
  }
}

/* tfs_og__replace: a replacement whose output dtype differs is refused
 * with the port and both dtypes named, and leaves the graph as it was;
 * tfs_og__replace_retyped accepts it and rewires the consumers. */
static void test_optimizer_meta__replace_checks_outputs(void) {
  ot_setup();
  tfs_output x = ot_placeholder("x", 2);
  tfs_output r = tfs_op_unary(g, "Relu", "r", x, st);
  tfs_op_unary(g, "Exp", "y", r, st);
  TFS_ASSERT_OK(st);
  tfs_oarena *arena = tfs_oarena__new();
  tfs_ograph og;
  tfs_og__init(&og, arena);
  int map[8] = {-1, -1, -1, -1, -1, -1, -1, -1};
  CU_ASSERT_FATAL(tfs_graph_num_operations(g) <= 8);
  CU_ASSERT_EQUAL_FATAL(tfs_og__import(&og, g, NULL, map, st), 0);
  int ri = tfs_og__find(&og, "r"), yi = tfs_og__find(&og, "y");
  int xi = tfs_og__find(&og, "x");
  int live = og.nlive;
  int64_t edges = tfs_og__num_edges(&og);
  for (int retype = 0; retype < 2; retype++) {
    tfs_attrs a;
    tfs_attrs_init(&a);
    CU_ASSERT_EQUAL(tfs_opt__set_type(&a, "SrcT", TFS_FLOAT), 0);
    CU_ASSERT_EQUAL(tfs_opt__set_type(&a, "DstT", TFS_INT32), 0);
    tfs_oref in[1] = {{xi, 0}};
    tfs_onode_spec spec = {.op = "Cast", .attrs = &a, .nin = 1, .in = in};
    int nw = retype ? tfs_og__replace_retyped(&og, ri, &spec, st)
                    : tfs_og__replace(&og, ri, &spec, st);
    if (!retype) {
      CU_ASSERT_EQUAL(nw, -1);
      CU_ASSERT_EQUAL(tfs_status_code(st), TFS_INTERNAL);
      CU_ASSERT_STRING_EQUAL(tfs_status_message(st),
                             "optimizer: replacement of 'r' (Cast) has "
                             "output 0 of type int32, its consumers expect "
                             "float");
      /* as before: r keeps its name and its consumer */
      CU_ASSERT_EQUAL(tfs_og__find(&og, "r"), ri);
      CU_ASSERT_TRUE(tfs_og__live(&og, ri));
      CU_ASSERT_EQUAL(og.n[yi].in[0].node, ri);
      CU_ASSERT_EQUAL(og.nlive, live);
      CU_ASSERT_EQUAL(tfs_og__num_edges(&og), edges);
      CU_ASSERT_EQUAL(og.oom, 0);
      tfs_status_clear(st);
    } else {
      CU_ASSERT_TRUE(nw > ri);
      TFS_ASSERT_OK(st);
      CU_ASSERT_EQUAL(tfs_og__find(&og, "r"), nw);
      CU_ASSERT_FALSE(tfs_og__live(&og, ri));
      CU_ASSERT_EQUAL(og.n[yi].in[0].node, nw);
      CU_ASSERT_EQUAL(tfs_og__dtype(&og, og.n[yi].in[0]), TFS_INT32);
    }
  }
  tfs_og__clear(&og);
  tfs_oarena__free(arena);
  ot_teardown();
}

const tfs_test_case tfs_optimizer_meta_cases[] = {
    {"replace_checks_outputs", test_optimizer_meta__replace_checks_outputs},
    {"placed_devices", test_optimizer_meta__placed_devices},
    {"huge_timeout", test_optimizer_meta__huge_timeout},
    {"min_graph_nodes", test_optimizer_meta__min_graph_nodes},
    {"iterations_and_fixed_point",
     test_optimizer_meta__iterations_and_fixed_point},
    {"optimizers_list", test_optimizer_meta__optimizers_list},
    {"cse_needs_arithmetic", test_optimizer_meta__cse_needs_arithmetic},
    {"experimental_options", test_optimizer_meta__experimental_options},
    {"failing_pass_rolls_back", test_optimizer_meta__failing_pass_rolls_back},
    {"plan_entry_point", test_optimizer_meta__plan_entry_point},
    {"report_and_graphdef", test_optimizer_meta__report_and_graphdef},
    {NULL, NULL},
};
