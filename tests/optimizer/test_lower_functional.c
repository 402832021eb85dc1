/*
 * tests/optimizer/test_lower_functional.c - the function optimizer:
 * inlining of PartitionedCall / StatefulPartitionedCall and lowering of
 * If, Case and While to TF1 control flow.  Unit tests look at the
 * rewritten graph (node types, names, attrs) and run it; the
 * differential test runs every TensorFlow-made case under
 * tests/conformance/{functional,functions,control} with the passes on and
 * off against TensorFlow's outputs.  The keras suite runs the cases of
 * tests/conformance/keras (what Keras 3 and tf.nn write: decomposed batch
 * norms, swish, GELU, Pow) with the optimizer on and off, and checks what
 * the optimizer made of them.
 */
#include <CUnit/CUnit.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "config_proto/config.h"
#include "conformance.h"
#include "graph_builder/graph_internal.h"
#include "iotest.h"
#include "optimizer/opt_util.h"
#include "optimizer/optimizer.h"
#include "testutil.h"

/* ---- helpers ------------------------------------------------------------- */

static const char *const kFunctional[] = {
    "PartitionedCall", "StatefulPartitionedCall", "If", "StatelessIf",
    "Case", "StatelessCase", "While", "StatelessWhile"};

/* Imports tests/conformance/<rel>/graph.pb. */
static tfs_graph *load(const char *rel) {
  char path[4200];
  snprintf(path, sizeof path, "%s/%s/graph.pb", it_src("tests/conformance"),
           rel);
  size_t len;
  uint8_t *bytes = it_read_file(path, &len);
  CU_ASSERT_PTR_NOT_NULL_FATAL(bytes);
  tfs_status *st = tfs_status_new();
  tfs_graph *g = tfs_graph_new();
  tfs_import_results_free(
      tfs_graph_import_graphdef(g, bytes, len, NULL, st));
  free(bytes);
  TFS_ASSERT_OK(st);
  tfs_status_free(st);
  return g;
}

static int count(tfs_graph *g, const char *type) {
  int n = 0;
  for (size_t i = 0; i < g->nops; i++)
    n += strcmp(g->ops[i]->def->name, type) == 0;
  return n;
}

static int count_functional(tfs_graph *g) {
  int n = 0;
  for (size_t k = 0; k < sizeof kFunctional / sizeof kFunctional[0]; k++)
    n += count(g, kFunctional[k]);
  return n;
}

static const char *type_of(tfs_graph *g, const char *name) {
  tfs_operation *op = tfs_graph_operation_by_name(g, name);
  return op ? op->def->name : "(missing)";
}

/* Options of one optimization. */
#define OPT_MAX_IO 12
typedef struct opt_req {
  const char *fetches[OPT_MAX_IO];
  const char *feeds[OPT_MAX_IO];
  int function_opt; /* a TFS_TOGGLE_* */
  int no_lowering;  /* experimental.disable_functional_ops_lowering */
  int only_function; /* RewriterConfig.optimizers = ["function"] */
} opt_req;

/* Optimizes g as a plan would for req; returns the new graph (NULL when
 * the optimizer changed nothing). */
static tfs_graph *optimize(tfs_graph *g, const opt_req *r) {
  tfs_status *st = tfs_status_new();
  tfs_output feeds[OPT_MAX_IO], fetches[OPT_MAX_IO];
  int nfeeds = 0, nfetches = 0;
  for (; nfeeds < OPT_MAX_IO && r->feeds[nfeeds]; nfeeds++) {
    feeds[nfeeds] = tfs_graph_output_by_name(g, r->feeds[nfeeds], st);
    TFS_ASSERT_OK(st);
  }
  for (; nfetches < OPT_MAX_IO && r->fetches[nfetches]; nfetches++) {
    fetches[nfetches] = tfs_graph_output_by_name(g, r->fetches[nfetches], st);
    TFS_ASSERT_OK(st);
  }
  tfs_config cfg;
  tfs_config__init(&cfg);
  cfg.has_graph_options = 1;
  cfg.graph_options.has_rewrite_options = 1;
  cfg.graph_options.rewrite_options.min_graph_nodes = -1;
  cfg.graph_options.rewrite_options.function_optimization = r->function_opt;
  cfg.has_experimental = 1;
  cfg.disable_functional_ops_lowering = r->no_lowering;
  char *only[] = {"function"};
  if (r->only_function) {
    cfg.graph_options.rewrite_options.noptimizers = 1;
    cfg.graph_options.rewrite_options.optimizers = only;
  }
  tfs_graph *out = NULL;
  pthread_mutex_lock(&g->mu);
  int rc = tfs_optimizer__optimize_for_plan(g, feeds, nfeeds, fetches,
                                            nfetches, NULL, 0, NULL, &cfg,
                                            &out, NULL, st);
  pthread_mutex_unlock(&g->mu);
  CU_ASSERT_EQUAL(rc, 0);
  TFS_ASSERT_OK(st);
  cfg.graph_options.rewrite_options.noptimizers = 0;
  cfg.graph_options.rewrite_options.optimizers = NULL;
  tfs_config__clear(&cfg);
  tfs_status_free(st);
  return out;
}

/* Runs case `rel` (TensorFlow's outputs) with the process-wide option
 * `option` set to `value`; returns 0 when it matches. */
static int run_case_with(const char *rel, const char *option, int value) {
  tfs_status *st = tfs_status_new();
  tfs_optimizer_set_experimental_option(option, value, st);
  tfs_optimizer_set_experimental_option("min_graph_nodes", -1, st);
  TFS_ASSERT_OK(st);
  char dir[4200], err[2048] = "";
  snprintf(dir, sizeof dir, "%s/%s", it_src("tests/conformance"), rel);
  int rc = tc_run_case(dir, rel, 0, NULL, err, sizeof err);
  if (rc) fprintf(stderr, "\n  case %s (%s %d): %s\n", rel, option, value, err);
  tfs_optimizer_reset_experimental_options();
  tfs_status_free(st);
  return rc;
}

/* The same with the function optimizer on or off. */
static int run_case(const char *rel, int on) {
  return run_case_with(rel, "function_optimization", on);
}

/* ---- inlining ------------------------------------------------------------ */

static void test_lower_functional__inline_stateless(void) {
  tfs_graph *g = load("functions/call_stateless");
  opt_req r = {.fetches = {"y:0"}, .feeds = {"x:0", "w:0"},
               .only_function = 1};
  tfs_graph *og = optimize(g, &r);
  CU_ASSERT_PTR_NOT_NULL_FATAL(og);
  CU_ASSERT_EQUAL(count_functional(og), 0);
  /* TensorFlow's layout: Identities for the arguments and results */
  CU_ASSERT_STRING_EQUAL(type_of(og, "Func/PartitionedCall/input/_0"),
                         "Identity");
  CU_ASSERT_STRING_EQUAL(type_of(og, "Func/PartitionedCall/output/_0"),
                         "Identity");
  CU_ASSERT_TRUE(count(og, "MatMul") == 1);
  tfs_graph_free(og);
  tfs_graph_free(g);
  CU_ASSERT_EQUAL(run_case("functions/call_stateless", 1), 0);
}

/* A node whose op type is the function's name is inlined like a
 * PartitionedCall, and computes the same. */
static void test_lower_functional__function_named_op(void) {
  tfs_graph *g = load("functions/call_stateless");
  tfs_operation *call = tfs_graph_operation_by_name(g, "PartitionedCall");
  CU_ASSERT_PTR_NOT_NULL_FATAL(call);
  const tfs_attr_value *f = tfs_attrs_find(&call->attrs, "f");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  const char *fname = f->u.func->name;
  tfs_status *st = tfs_status_new();
  tfs_op_desc *d = tfs_op_desc_new(g, fname, "direct");
  tfs_op_desc_add_input(d, tfs_graph_output_by_name(g, "x:0", st));
  tfs_op_desc_add_input(d, tfs_graph_output_by_name(g, "w:0", st));
  CU_ASSERT_PTR_NOT_NULL_FATAL(tfs_op_desc_finish(d, st));
  TFS_ASSERT_OK(st);
  opt_req r = {.fetches = {"direct:0"}, .feeds = {"x:0", "w:0"},
               .only_function = 1};
  tfs_graph *og = optimize(g, &r);
  CU_ASSERT_PTR_NOT_NULL_FATAL(og);
  CU_ASSERT_EQUAL(count(og, fname), 0);
  CU_ASSERT_STRING_EQUAL(type_of(og, "Func/direct/input/_0"), "Identity");
  CU_ASSERT_TRUE(count(og, "MatMul") == 1);
  tfs_graph_free(og);
  /* the session (optimizer on) gives the call's result */
  tfs_session *s = tfs_session_new(g, NULL, st);
  TFS_ASSERT_OK(st);
  tfs_output feeds[2] = {tfs_graph_output_by_name(g, "x:0", st),
                         tfs_graph_output_by_name(g, "w:0", st)};
  char path[4200];
  tfs_tensor *vals[2];
  for (int k = 0; k < 2; k++) {
    snprintf(path, sizeof path, "%s/functions/call_stateless/feed%d.npy",
             it_src("tests/conformance"), k);
    vals[k] = tfs_npy_read(path, st);
    TFS_ASSERT_OK(st);
  }
  tfs_output fetches[2] = {tfs_graph_output_by_name(g, "direct:0", st),
                           tfs_graph_output_by_name(g, "y:0", st)};
  tfs_tensor *out[2] = {NULL, NULL};
  tfs_session_run(s, feeds, vals, 2, fetches, out, 2, NULL, 0, st);
  TFS_ASSERT_OK(st);
  char why[512];
  CU_ASSERT_EQUAL(tc_compare(out[0], out[1], -1, -1, why, sizeof why), 0);
  for (int k = 0; k < 2; k++) {
    tfs_tensor_free(vals[k]);
    tfs_tensor_free(out[k]);
  }
  tfs_session_free(s);
  tfs_graph_free(g);
  tfs_status_free(st);
}

static void test_lower_functional__noinline_kept(void) {
  tfs_graph *g = load("functions/call_noinline");
  opt_req r = {.fetches = {"y:0"}, .feeds = {"x:0"}};
  tfs_graph *og = optimize(g, &r);
  /* _noinline: the call stays (the graph may still change elsewhere) */
  CU_ASSERT_TRUE(!og || count(og, "PartitionedCall") == 1);
  tfs_graph_free(og);
  /* AGGRESSIVE ignores _noinline, as in TensorFlow */
  r.function_opt = TFS_TOGGLE_AGGRESSIVE;
  og = optimize(g, &r);
  CU_ASSERT_PTR_NOT_NULL_FATAL(og);
  CU_ASSERT_EQUAL(count(og, "PartitionedCall"), 0);
  tfs_graph_free(og);
  tfs_graph_free(g);
  CU_ASSERT_EQUAL(run_case("functions/call_noinline", 1), 0);
}

/* g optimized by the default pipeline for a graph that must load in
 * TensorFlow (tfs_optimizer_options_set_tf_compatible). */
static tfs_graph *optimize_tf_compatible(tfs_graph *g, const char *feed,
                                         const char *fetch) {
  tfs_status *st = tfs_status_new();
  tfs_output x = tfs_graph_output_by_name(g, feed, st);
  tfs_output y = tfs_graph_output_by_name(g, fetch, st);
  TFS_ASSERT_OK(st);
  tfs_optimizer_options *o = tfs_optimizer_options_new();
  tfs_optimizer_options_set_tf_compatible(o, 1);
  tfs_graph *og = tfs_graph_optimize(g, &x, 1, &y, 1, NULL, 0, o, NULL, st);
  TFS_ASSERT_OK(st);
  tfs_optimizer_options_free(o);
  tfs_status_free(st);
  return og;
}

/* A call marked for XLA (tf.function(jit_compile=True), which also puts
 * _noinline on the function): inlined, since tfsess has no XLA; kept for
 * a graph that must load in TensorFlow, as TensorFlow keeps it. */
static void test_lower_functional__xla_call_inlined(void) {
  tfs_graph *g = load("functions/call_xla");
  CU_ASSERT_EQUAL(count_functional(g), 1);
  opt_req r = {.fetches = {"y:0"}, .feeds = {"x:0"}};
  tfs_graph *og = optimize(g, &r);
  CU_ASSERT_PTR_NOT_NULL_FATAL(og);
  CU_ASSERT_EQUAL(count_functional(og), 0);
  tfs_graph_free(og);
  og = optimize_tf_compatible(g, "x:0", "y:0");
  CU_ASSERT_TRUE(!og || count_functional(og) == 1);
  tfs_graph_free(og);
  tfs_graph_free(g);
  CU_ASSERT_EQUAL(run_case("functions/call_xla", 1), 0);
  CU_ASSERT_EQUAL(run_case("functions/call_xla", 0), 0);
}

/* Keras's Conv2D(groups=channels), each in a jit_compile function: the
 * calls inlined, the grouped convolutions run as depthwise ones with
 * their bias (and Relu) fused; TensorFlow's values. */
static void test_lower_functional__keras_depthwise_groups(void) {
  tfs_graph *g = load("recurrent/keras_depthwise_groups");
  CU_ASSERT_EQUAL(count_functional(g), 2);
  opt_req r = {.fetches = {"Identity:0"}, .feeds = {"x:0"}};
  tfs_graph *og = optimize(g, &r);
  CU_ASSERT_PTR_NOT_NULL_FATAL(og);
  CU_ASSERT_EQUAL(count_functional(og), 0);
  CU_ASSERT_EQUAL(count(og, "Conv2D"), 0);
  CU_ASSERT_EQUAL(count(og, "_FusedDepthwiseConv2dNative"), 2);
  tfs_graph_free(og);
  tfs_graph_free(g);
  CU_ASSERT_EQUAL(run_case("recurrent/keras_depthwise_groups", 1), 0);
  CU_ASSERT_EQUAL(run_case("recurrent/keras_depthwise_groups", 0), 0);
}

static void test_lower_functional__fetched_call(void) {
  tfs_graph *g = load("functions/call_fetched");
  opt_req r = {.fetches = {"PartitionedCall:1", "a:0"}, .feeds = {"x:0"},
               .only_function = 1};
  tfs_graph *og = optimize(g, &r);
  CU_ASSERT_PTR_NOT_NULL_FATAL(og);
  /* the body is inlined; the call's name stays fetchable */
  CU_ASSERT_STRING_EQUAL(type_of(og, "PartitionedCall"), "IdentityN");
  CU_ASSERT_PTR_NOT_NULL(
      tfs_graph_operation_by_name(og, "Func/PartitionedCall/output/_1"));
  tfs_graph_free(og);
  tfs_graph_free(g);
  CU_ASSERT_EQUAL(run_case("functions/call_fetched", 1), 0);
}

static void test_lower_functional__fed_call_kept(void) {
  tfs_graph *g = load("functions/call_fetched");
  opt_req r = {.fetches = {"a:0"}, .feeds = {"PartitionedCall:0"}};
  tfs_graph *og = optimize(g, &r);
  CU_ASSERT_TRUE(!og || count(og, "PartitionedCall") == 0 ||
                 strcmp(type_of(og, "PartitionedCall"), "IdentityN") != 0);
  /* a fed call is cut off (a Placeholder in plan mode) or kept, never
   * inlined */
  CU_ASSERT_TRUE(!og || tfs_graph_operation_by_name(
                            og, "Func/PartitionedCall/input/_0") == NULL);
  tfs_graph_free(og);
  tfs_graph_free(g);
}

static void test_lower_functional__control_deps_stateful(void) {
  tfs_graph *g = load("functions/call_control_deps");
  opt_req r = {.fetches = {"after:0"}, .feeds = {"x:0"},
               .only_function = 1};
  tfs_graph *og = optimize(g, &r);
  CU_ASSERT_PTR_NOT_NULL_FATAL(og);
  CU_ASSERT_EQUAL(count(og, "StatefulPartitionedCall"), 0);
  CU_ASSERT_STRING_EQUAL(
      type_of(og, "Func/StatefulPartitionedCall/input_control_node/_0"),
      "NoOp");
  tfs_operation *oc = tfs_graph_operation_by_name(
      og, "Func/StatefulPartitionedCall/output_control_node/_0");
  CU_ASSERT_PTR_NOT_NULL_FATAL(oc);
  /* the output control node waits for the body's AssignAddVariableOp */
  CU_ASSERT_EQUAL(oc->ncontrol, 1);
  CU_ASSERT_STRING_EQUAL(oc->control_inputs[0]->def->name,
                         "AssignAddVariableOp");
  /* the reads the call gated now wait for the output control node */
  tfs_operation *rd = tfs_graph_operation_by_name(og, "Read/ReadVariableOp");
  CU_ASSERT_PTR_NOT_NULL_FATAL(rd);
  CU_ASSERT_EQUAL(rd->ncontrol, 1);
  CU_ASSERT_PTR_EQUAL(rd->control_inputs[0], oc);
  tfs_graph_free(og);
  tfs_graph_free(g);
  /* run twice: the variable keeps counting, as in TensorFlow */
  CU_ASSERT_EQUAL(run_case("functions/call_control_deps", 1), 0);
  CU_ASSERT_EQUAL(run_case("functions/call_stateful_variable", 1), 0);
}

static void test_lower_functional__nested(void) {
  tfs_graph *g = load("functions/call_nested");
  opt_req r = {.fetches = {"sum2:0", "rows:0", "positive:0"},
               .feeds = {"x:0", "w:0"}, .only_function = 1};
  tfs_graph *og = optimize(g, &r);
  CU_ASSERT_PTR_NOT_NULL_FATAL(og);
  CU_ASSERT_EQUAL(count_functional(og), 0);
  /* the inner call's body lands under the outer call's prefix */
  int nested = 0;
  for (size_t i = 0; i < og->nops; i++)
    nested += strncmp(og->ops[i]->name, "Func/PartitionedCall/", 21) == 0 &&
              strstr(og->ops[i]->name + 21, "PartitionedCall") != NULL;
  CU_ASSERT_TRUE(nested > 0);
  tfs_graph_free(og);
  tfs_graph_free(g);
  CU_ASSERT_EQUAL(run_case("functions/call_nested", 1), 0);
}

/* ---- lowering ------------------------------------------------------------ */

static void test_lower_functional__if_lowered(void) {
  tfs_graph *g = load("functional/if_true");
  opt_req r = {.fetches = {"r:0"}, .feeds = {"x:0", "y:0"}};
  tfs_graph *og = optimize(g, &r);
  CU_ASSERT_PTR_NOT_NULL_FATAL(og);
  CU_ASSERT_EQUAL(count_functional(og), 0);
  CU_ASSERT_STRING_EQUAL(type_of(og, "cond/switch_pred"), "Switch");
  CU_ASSERT_STRING_EQUAL(type_of(og, "cond/pivot_t"), "Identity");
  CU_ASSERT_STRING_EQUAL(type_of(og, "cond/output"), "Merge");
  CU_ASSERT_STRING_EQUAL(type_of(og, "cond/branch_executed"), "Merge");
  CU_ASSERT_STRING_EQUAL(type_of(og, "cond/then/mul_0"), "Mul");
  tfs_graph_free(og);
  /* lowering off: only calls would be inlined; the If stays */
  r.no_lowering = 1;
  og = optimize(g, &r);
  CU_ASSERT_TRUE(!og || count(og, "StatelessIf") == 1);
  tfs_graph_free(og);
  /* the function optimizer off: nothing */
  r.no_lowering = 0;
  r.function_opt = TFS_TOGGLE_OFF;
  og = optimize(g, &r);
  CU_ASSERT_TRUE(!og || count(og, "StatelessIf") == 1);
  tfs_graph_free(og);
  tfs_graph_free(g);
}

static void test_lower_functional__while_lowered(void) {
  tfs_graph *g = load("functional/while_sum");
  opt_req r = {.fetches = {"i:0", "s:0"}, .feeds = {"n:0"}};
  tfs_graph *og = optimize(g, &r);
  CU_ASSERT_PTR_NOT_NULL_FATAL(og);
  CU_ASSERT_EQUAL(count_functional(og), 0);
  /* a variable the body changes: Enter, Merge, Switch, Exit,
   * NextIteration; one it passes on (the maximum): a constant Enter and,
   * after the loop, an Identity of the input */
  int changing = 0, invariant = 0, after = 0;
  for (size_t i = 0; i < og->nops; i++) {
    int c = 0;
    if (strcmp(og->ops[i]->def->name, "Enter") == 0) {
      tfs_attrs_get_bool(&og->ops[i]->attrs, "is_constant", &c);
      changing += !c;
      invariant += c;
    }
    after += strncmp(og->ops[i]->name, "while/Invariant", 15) == 0;
  }
  CU_ASSERT_TRUE(changing >= 2);
  CU_ASSERT_TRUE(invariant >= 1);
  CU_ASSERT_EQUAL(after, invariant);
  CU_ASSERT_EQUAL(changing, count(og, "Exit"));
  CU_ASSERT_EQUAL(changing, count(og, "NextIteration"));
  CU_ASSERT_EQUAL(changing, count(og, "Merge"));
  CU_ASSERT_EQUAL(count(og, "LoopCond"), 1);
  /* the inlined functions' argument and return Identities are gone */
  for (size_t i = 0; i < og->nops; i++)
    CU_ASSERT_TRUE(strncmp(og->ops[i]->name, "Func/", 5) != 0);
  tfs_operation *src_while = tfs_graph_operation_by_name(g, "while");
  CU_ASSERT_PTR_NOT_NULL_FATAL(src_while);
  int64_t want_par = 0, par = 0;
  tfs_attrs_get_int(&src_while->attrs, "parallel_iterations", &want_par);
  for (size_t i = 0; i < og->nops; i++) {
    tfs_operation *op = og->ops[i];
    if (strcmp(op->def->name, "Enter") != 0) continue;
    size_t len;
    const char *frame = tfs_attrs_get_string(&op->attrs, "frame_name", &len);
    CU_ASSERT_TRUE(frame && len == 5 && memcmp(frame, "while", 5) == 0);
    tfs_attrs_get_int(&op->attrs, "parallel_iterations", &par);
    CU_ASSERT_EQUAL(par, want_par);
  }
  tfs_graph_free(og);
  tfs_graph_free(g);
  CU_ASSERT_EQUAL(run_case("functional/while_sum", 1), 0);
}

static void test_lower_functional__non_bool_predicates(void) {
  static const struct {
    const char *rel, *fetch, *feeds[2];
  } kCases[] = {
      /* marked for lowering (tests/optimizer/data/README.md) */
      {"../optimizer/data/if_float_pred_zero", "r:0", {"p:0", "x:0"}},
      {"../optimizer/data/if_float_pred_nonzero", "r:0", {"p:0", "x:0"}},
      {"../optimizer/data/while_int_cond", "total:0", {"n:0", NULL}},
  };
  for (size_t k = 0; k < sizeof kCases / sizeof kCases[0]; k++) {
    tfs_graph *g = load(kCases[k].rel);
    opt_req r = {.fetches = {kCases[k].fetch},
                 .feeds = {kCases[k].feeds[0], kCases[k].feeds[1]}};
    tfs_graph *og = optimize(g, &r);
    CU_ASSERT_PTR_NOT_NULL_FATAL(og);
    CU_ASSERT_EQUAL(count_functional(og), 0);
    /* ToBool of a scalar: compared with zero before the Switch */
    CU_ASSERT_TRUE(count(og, "NotEqual") >= 1);
    tfs_graph_free(og);
    tfs_graph_free(g);
    CU_ASSERT_EQUAL(run_case(kCases[k].rel, 1), 0);
  }
}

static void test_lower_functional__case_lowered(void) {
  tfs_graph *g = load("functional/case_out_of_range");
  opt_req r = {.fetches = {"r:0"}, .feeds = {"k:0", "x:0"}};
  tfs_graph *og = optimize(g, &r);
  CU_ASSERT_PTR_NOT_NULL_FATAL(og);
  CU_ASSERT_EQUAL(count_functional(og), 0);
  CU_ASSERT_TRUE(count(og, "Switch") >= 2);
  CU_ASSERT_TRUE(count(og, "Merge") >= 2);
  tfs_graph_free(og);
  tfs_graph_free(g);
  CU_ASSERT_EQUAL(run_case("functional/case_out_of_range", 1), 0);
  CU_ASSERT_EQUAL(run_case("functional/case_1", 1), 0);
}

/* A graph built here around an imported function: a target that waits
 * for the call through a control edge still sees its effect. */
static void test_lower_functional__api_control_target(void) {
  tfs_graph *g = load("functions/call_control_deps");
  tfs_status *st = tfs_status_new();
  tfs_operation *call =
      tfs_graph_operation_by_name(g, "StatefulPartitionedCall");
  CU_ASSERT_PTR_NOT_NULL_FATAL(call);
  tfs_op_desc *d = tfs_op_desc_new(g, "NoOp", "after_call");
  tfs_op_desc_add_control_input(d, call);
  tfs_operation *gate = tfs_op_desc_finish(d, st);
  TFS_ASSERT_OK(st);
  tfs_output v = tfs_graph_output_by_name(g, "v/Read/ReadVariableOp:0", st);
  tfs_output x = tfs_graph_output_by_name(g, "x:0", st);
  TFS_ASSERT_OK(st);
  tfs_optimizer_set_experimental_option("min_graph_nodes", -1, st);
  for (int on = 0; on <= 1; on++) {
    tfs_optimizer_set_experimental_option("function_optimization", on, st);
    tfs_session *s = tfs_session_new(g, NULL, st);
    TFS_ASSERT_OK(st);
    tfs_operation *init = tfs_graph_operation_by_name(g, "init");
    tfs_session_run(s, NULL, NULL, 0, NULL, NULL, 0, &init, 1, st);
    TFS_ASSERT_OK(st);
    tfs_tensor *xv = tu_floats(NULL, 0, (const float[]){4.0f});
    for (int k = 0; k < 2; k++) {
      tfs_session_run(s, &x, &xv, 1, NULL, NULL, 0, &gate, 1, st);
      TFS_ASSERT_OK(st);
    }
    tfs_tensor *got = tu_run1(s, v, NULL, NULL, 0);
    CU_ASSERT_DOUBLE_EQUAL(tu_scalar_float(got), 9.0, 1e-6);
    tfs_tensor_free(got);
    tfs_tensor_free(xv);
    tfs_session_free(s);
  }
  tfs_optimizer_reset_experimental_options();
  tfs_status_free(st);
  tfs_graph_free(g);
}

/* ---- differential: every case, passes on and off ------------------------- */

/* Case directories under tests/conformance/<group> (sorted). */
static int list_cases(const char *group, char names[][160], int max) {
  char path[4200];
  snprintf(path, sizeof path, "%s/%s", it_src("tests/conformance"), group);
  DIR *dir = opendir(path);
  int n = 0;
  struct dirent *e;
  while (dir && (e = readdir(dir)) && n < max) {
    if (e->d_name[0] == '.' || strlen(e->d_name) + strlen(group) > 100)
      continue;
    snprintf(names[n], 160, "%.20s/%.100s", group, e->d_name);
    char m[4400];
    struct stat sb;
    snprintf(m, sizeof m, "%.4200s/%.100s/manifest.txt", path, e->d_name);
    if (stat(m, &sb) == 0) n++;
  }
  if (dir) closedir(dir);
  qsort(names, (size_t)n, 160, (int (*)(const void *, const void *))strcmp);
  return n;
}

/* The feeds and fetches of case `rel`'s manifest (up to OPT_MAX_IO each)
 * into *r (names in static storage, valid until the next call). */
static void manifest_req(const char *rel, opt_req *r) {
  char path[4200];
  snprintf(path, sizeof path, "%s/%s/manifest.txt",
           it_src("tests/conformance"), rel);
  FILE *f = fopen(path, "r");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  static char fetch[OPT_MAX_IO][128], feed[OPT_MAX_IO][128];
  memset(r, 0, sizeof(*r));
  int nf = 0, nd = 0;
  char line[512];
  while (fgets(line, sizeof line, f)) {
    char kind[16], name[128];
    if (sscanf(line, "%15s %127s", kind, name) != 2) continue;
    if (!strcmp(kind, "fetch") && nf < OPT_MAX_IO) {
      snprintf(fetch[nf], sizeof fetch[nf], "%s", name);
      r->fetches[nf] = fetch[nf];
      nf++;
    } else if (!strcmp(kind, "feed") && nd < OPT_MAX_IO) {
      snprintf(feed[nd], sizeof feed[nd], "%s", name);
      r->feeds[nd] = feed[nd];
      nd++;
    }
  }
  fclose(f);
}

/* Whether the optimizer inlined and lowered everything in case `rel`
 * (every fetch of its manifest). */
static int fully_rewritten(const char *rel) {
  opt_req r;
  manifest_req(rel, &r);
  tfs_graph *g = load(rel);
  tfs_graph *og = optimize(g, &r);
  int left = og ? count_functional(og) : count_functional(g);
  tfs_graph_free(og);
  tfs_graph_free(g);
  return left == 0;
}

static void test_lower_functional__differential(void) {
  static const char *const kGroups[] = {"functional", "functions", "control"};
  static char names[64][160];
  int total = 0;
  for (size_t k = 0; k < 3; k++) {
    int n = list_cases(kGroups[k], names, 64);
    CU_ASSERT_TRUE(n > 0);
    for (int i = 0; i < n; i++) {
      CU_ASSERT_EQUAL(run_case(names[i], 1), 0);
      CU_ASSERT_EQUAL(run_case(names[i], 0), 0);
      /* the rewrite really happened where it can: all but _noinline and
       * the raw If/While without _lower_using_switch_merge */
      if (k < 2 && !strstr(names[i], "noinline") &&
          !strstr(names[i], "_pred_") && !strstr(names[i], "int_cond")) {
        int ok = fully_rewritten(names[i]);
        if (!ok) fprintf(stderr, "\n  case %s: not rewritten\n", names[i]);
        CU_ASSERT_TRUE(ok);
      }
      total++;
    }
  }
  CU_ASSERT_TRUE(total >= 30);
}

/* ---- Keras 3 export patterns: tests/conformance/keras ------------------- */

/* Whether _TfsGelu, which the remapper makes of GELU subgraphs, has a
 * CPU kernel in this build (else those subgraphs stay). */
static int have_gelu(void) {
  const tfs_op_def *def = tfs_op_lookup("_TfsGelu");
  tfs_attrs a;
  tfs_attrs_init(&a);
  tfs_attr_value v;
  tfs_attr_type_val(&v, TFS_FLOAT);
  int ok = def && tfs_attrs_set(&a, "T", &v) == 0 &&
           tfs_opt__has_kernel("", def, &a, "gelu");
  tfs_attrs_clear(&a);
  return ok;
}

/* Every case with the optimizer on and off against TensorFlow's outputs,
 * and what the optimizer must have made of the Keras layers: batch norms
 * folded into the convolutions and Dense layers, the fused contractions,
 * no Sigmoid / IdentityN of swish, no Pow, and no GELU subgraph where
 * _TfsGelu has a kernel. */
static void test_lower_functional__keras_patterns(void) {
  static const struct {
    const char *name;
    const char *gone[6];
    const char *fused;
    int nfused;
    int gelu; /* the GELU subgraph goes where _TfsGelu has a kernel */
  } kCases[] = {
      {"conv_bn_relu",
       {"Mul", "AddV2", "Rsqrt", "BiasAdd", "Relu"},
       "_FusedConv2D",
       1,
       0},
      {"depthwise_bn_relu6",
       {"Mul", "AddV2", "BiasAdd", "Relu6"},
       "_FusedDepthwiseConv2dNative",
       1,
       0},
      {"conv_nobias_bn_swish",
       {"Mul", "AddV2", "Sigmoid", "IdentityN", "BiasAdd"},
       "_FusedConv2D",
       1,
       0},
      {"conv_silu",
       {"Mul", "Sigmoid", "IdentityN", "BiasAdd"},
       "_FusedConv2D",
       1,
       0},
      {"dense_swish",
       {"Mul", "Sigmoid", "IdentityN", "BiasAdd"},
       "_FusedMatMul",
       1,
       0},
      {"dense_bn", {"Mul", "AddV2", "BiasAdd"}, "_FusedMatMul", 1, 0},
      {"residual_block",
       {"Mul", "Sub", "BiasAdd", "Rsqrt"},
       "_FusedConv2D",
       2,
       0},
      {"dense_gelu_tanh", {"Pow", "BiasAdd"}, "_FusedMatMul", 1, 1},
      {"dense_gelu_exact", {"BiasAdd"}, "_FusedMatMul", 1, 1},
      {"tf_nn_activations", {"Pow", "Sigmoid", "IdentityN"}, NULL, 0, 1},
      {"pow_exponents", {NULL}, NULL, 0, 0},
  };
  static const char *const kGelu[] = {"Mul", "Erfc", "Tanh", "Square"};
  int gelu = have_gelu();
  for (size_t i = 0; i < sizeof kCases / sizeof kCases[0]; i++) {
    char rel[160];
    snprintf(rel, sizeof rel, "keras/%s", kCases[i].name);
    CU_ASSERT_EQUAL(run_case_with(rel, "disable_meta_optimizer", 0), 0);
    CU_ASSERT_EQUAL(run_case_with(rel, "disable_meta_optimizer", 1), 0);
    opt_req r;
    manifest_req(rel, &r);
    tfs_graph *g = load(rel);
    tfs_graph *og = optimize(g, &r);
    CU_ASSERT_PTR_NOT_NULL_FATAL(og);
    /* of the Pows, 2.5 and the two exponents that broadcast v stay */
    if (strcmp(kCases[i].name, "pow_exponents") == 0) {
      CU_ASSERT_EQUAL(count(og, "Pow"), 3);
    }
    for (int k = 0; k < 6 && kCases[i].gone[k]; k++) {
      int n = count(og, kCases[i].gone[k]);
      if (n) fprintf(stderr, "\n  %s: %d %s left\n", rel, n, kCases[i].gone[k]);
      CU_ASSERT_EQUAL(n, 0);
    }
    if (kCases[i].fused) {
      CU_ASSERT_EQUAL(count(og, kCases[i].fused), kCases[i].nfused);
    }
    for (int k = 0; kCases[i].gelu && gelu && k < 4; k++) {
      CU_ASSERT_EQUAL(count(og, kGelu[k]), 0);
    }
    tfs_graph_free(og);
    tfs_graph_free(g);
  }
}

/* ---- LSTM loops: tests/conformance/recurrent ---------------------------- */

/* The first _TfsLstmSequence of og, or NULL. */
static tfs_operation *first_sequence(tfs_graph *og) {
  for (size_t i = 0; og && i < og->nops; i++)
    if (strcmp(og->ops[i]->def->name, "_TfsLstmSequence") == 0)
      return og->ops[i];
  return NULL;
}

/* Keras LSTM layers (forward, backward, stacked, with their states) and
 * an LSTM loop written by hand become _TfsLstmSequence ops, with the
 * output list's index and the gate order of each; loops that compute
 * something else (another activation, no bias, a sum of h carried along,
 * a GRU) stay loops.  Each case matches TensorFlow's outputs with the
 * optimizer on and off. */
static void test_lower_functional__lstm_loops(void) {
  static const struct {
    const char *name;
    int fused, loops; /* _TfsLstmSequence and While left */
    int64_t index;    /* output_index of the first fused */
    int64_t gates[4];
  } kCases[] = {
      {"keras_lstm", 1, 0, -1, {0, 1, 2, 3}},
      {"keras_bilstm", 2, 0, 0, {0, 1, 2, 3}},
      {"lstm_state_backwards", 1, 0, 0, {0, 1, 2, 3}},
      {"lstm_stacked", 2, 0, -1, {0, 1, 2, 3}},
      {"lstm_custom_ifgo", 1, 0, -1, {0, 2, 1, 3}},
      {"lstm_custom_accum", 0, 1, 0, {0}},
      {"lstm_hard_sigmoid", 0, 1, 0, {0}},
      {"lstm_no_bias", 0, 1, 0, {0}},
      {"keras_gru", 0, 1, 0, {0}},
  };
  const tfs_op_def *def = tfs_op_lookup("_TfsLstmSequence");
  CU_ASSERT_PTR_NOT_NULL_FATAL(def);
  for (size_t i = 0; i < sizeof kCases / sizeof kCases[0]; i++) {
    char rel[160];
    snprintf(rel, sizeof rel, "recurrent/%s", kCases[i].name);
    CU_ASSERT_EQUAL(run_case_with(rel, "disable_meta_optimizer", 0), 0);
    CU_ASSERT_EQUAL(run_case_with(rel, "disable_meta_optimizer", 1), 0);
    opt_req r;
    manifest_req(rel, &r);
    r.function_opt = TFS_TOGGLE_ON;
    tfs_graph *g = load(rel);
    tfs_graph *og = optimize(g, &r);
    tfs_graph *res = og ? og : g;
    int fused = count(res, "_TfsLstmSequence");
    int loops = count(res, "While") + count(res, "StatelessWhile");
    if (fused != kCases[i].fused || loops != kCases[i].loops)
      fprintf(stderr, "\n  %s: %d fused, %d loops\n", rel, fused, loops);
    CU_ASSERT_EQUAL(fused, kCases[i].fused);
    CU_ASSERT_EQUAL(loops, kCases[i].loops);
    tfs_operation *op = first_sequence(og);
    if (op) {
      int64_t index = -2, gates[4] = {-1, -1, -1, -1};
      int n = 0;
      CU_ASSERT_EQUAL(tfs_attrs_get_int(&op->attrs, "output_index", &index),
                      0);
      CU_ASSERT_EQUAL(index, kCases[i].index);
      const tfs_attr_value *v = tfs_attrs_find(&op->attrs, "gate_order");
      CU_ASSERT_TRUE_FATAL(v && v->is_list && v->u.list.n == 4);
      for (; n < 4; n++) gates[n] = ((const int64_t *)v->u.list.v)[n];
      CU_ASSERT_EQUAL(memcmp(gates, kCases[i].gates, sizeof gates), 0);
    }
    tfs_graph_free(og);
    tfs_graph_free(g);
  }
}

/* A loop whose outputs are fetched keeps its name and outputs: it stays
 * a loop. */
static void test_lower_functional__lstm_loop_fetched(void) {
  opt_req r;
  manifest_req("recurrent/keras_lstm", &r);
  int nf = 0;
  while (nf < OPT_MAX_IO && r.fetches[nf]) nf++;
  CU_ASSERT_TRUE_FATAL(nf < OPT_MAX_IO);
  r.fetches[nf] = "functional_1/lstm_1/while:4";
  tfs_graph *g = load("recurrent/keras_lstm");
  tfs_graph *og = optimize(g, &r);
  tfs_graph *res = og ? og : g;
  CU_ASSERT_EQUAL(count(res, "_TfsLstmSequence"), 0);
  CU_ASSERT_EQUAL(count(res, "While"), 1);
  tfs_graph_free(og);
  tfs_graph_free(g);
}

static const tfs_test_case inline_cases[] = {
    {"function_named_op", test_lower_functional__function_named_op},
    {"inline_stateless", test_lower_functional__inline_stateless},
    {"noinline_kept", test_lower_functional__noinline_kept},
    {"xla_call_inlined", test_lower_functional__xla_call_inlined},
    {"keras_depthwise_groups", test_lower_functional__keras_depthwise_groups},
    {"fetched_call", test_lower_functional__fetched_call},
    {"fed_call_kept", test_lower_functional__fed_call_kept},
    {"control_deps_stateful", test_lower_functional__control_deps_stateful},
    {"nested", test_lower_functional__nested},
    {"api_control_target", test_lower_functional__api_control_target},
    {NULL, NULL}};
static const tfs_test_case lower_cases[] = {
    {"if_lowered", test_lower_functional__if_lowered},
    {"while_lowered", test_lower_functional__while_lowered},
    {"case_lowered", test_lower_functional__case_lowered},
    {"non_bool_predicates", test_lower_functional__non_bool_predicates},
    {NULL, NULL}};
static const tfs_test_case diff_cases[] = {
    {"all_cases_on_and_off", test_lower_functional__differential},
    {NULL, NULL}};
static const tfs_test_case keras_cases[] = {
    {"keras_patterns", test_lower_functional__keras_patterns}, {NULL, NULL}};
static const tfs_test_case lstm_cases[] = {
    {"lstm_loops", test_lower_functional__lstm_loops},
    {"lstm_loop_fetched", test_lower_functional__lstm_loop_fetched},
    {NULL, NULL}};

const tfs_test_suite tfs_test_suites[] = {{"inline", inline_cases},
                                          {"lower", lower_cases},
                                          {"differential", diff_cases},
                                          {"keras", keras_cases},
                                          {"lstm", lstm_cases},
                                          {NULL, NULL}};
