/*
 * tests/optimizer/test_orig_names.c - the user's node names survive the
 * optimizer: fused and folded nodes carry NodeDef experimental_debug_info
 * original_node_names (through GraphDef bytes too, and accumulated over
 * rewrites of rewritten nodes), and a traced run's step stats name the
 * user's nodes, the record of the last one holding the fused kernel's
 * time and the others zero-length, each label naming the kernel that ran.
 */
#include <string.h>

#include "config_proto/config.h"
#include "graph_builder/graph_internal.h"
#include "opttest.h"
#include "proto/config.pb-c.h"
#include "proto/graph.pb-c.h"

/* ---- helpers ------------------------------------------------------------- */

/* A session on g, the optimizer on (defaults) or off. */
static tfs_session *session_opt(int on) {
  tfs_session_options *o = tfs_session_options_new();
  if (!on) {
    tfs_config cp;
    tfs_config__init(&cp);
    cp.has_graph_options = 1;
    cp.graph_options.has_rewrite_options = 1;
    cp.graph_options.rewrite_options.disable_meta_optimizer = 1;
    tfs_buffer *b = tfs_buffer_new();
    tfs_config__serialize(&cp, b, st);
    TFS_ASSERT_OK(st);
    tfs_session_options_set_config(o, b->data, b->length, st);
    TFS_ASSERT_OK(st);
    tfs_buffer_free(b);
    tfs_config__clear(&cp);
  }
  tfs_session *s = tfs_session_new(g, o, st);
  tfs_session_options_free(o);
  TFS_ASSERT_OK(st);
  return s;
}

/* A FULL_TRACE run fetching `fetch` with x (an ot_placeholder of that
 * rank) fed; the RunMetadata. */
static Tensorflow__RunMetadata *traced_run(tfs_session *s, tfs_output x,
                                           int rank, tfs_output fetch) {
  static const uint8_t full_trace[] = {0x08, 0x03}; /* trace_level: 3 */
  int64_t d2[2] = {2, 3}, d4[4] = {1, 5, 5, 3};
  const int64_t *d = rank == 4 ? d4 : d2;
  tfs_tensor *xv = tfs_tensor_new(TFS_FLOAT, d, rank, st);
  float *p = tfs_tensor_data(xv);
  for (int64_t i = 0; i < tfs_tensor_num_elements(xv); i++)
    p[i] = (float)(i % 7) - 3.0f;
  tfs_buffer *ro = tfs_buffer_new_copy(full_trace, sizeof full_trace);
  tfs_buffer *md = tfs_buffer_new();
  tfs_tensor *out = NULL;
  tfs_session_run_ex(s, ro, &x, &xv, 1, &fetch, &out, 1, NULL, 0, md, st);
  TFS_ASSERT_OK(st);
  Tensorflow__RunMetadata *m =
      tensorflow__run_metadata__unpack(NULL, md->length, md->data);
  CU_ASSERT_PTR_NOT_NULL_FATAL(m);
  CU_ASSERT_PTR_NOT_NULL_FATAL(m->step_stats);
  tfs_tensor_free(out);
  tfs_tensor_free(xv);
  tfs_buffer_free(ro);
  tfs_buffer_free(md);
  return m;
}

/* The record of node `name` and how many there are. */
static const Tensorflow__NodeExecStats *stats_of(
    const Tensorflow__RunMetadata *m, const char *name, int *count) {
  const Tensorflow__NodeExecStats *found = NULL;
  *count = 0;
  for (size_t d = 0; d < m->step_stats->n_dev_stats; d++) {
    const Tensorflow__DeviceStepStats *ds = m->step_stats->dev_stats[d];
    for (size_t i = 0; i < ds->n_node_stats; i++)
      if (strcmp(ds->node_stats[i]->node_name, name) == 0) {
        found = ds->node_stats[i];
        ++*count;
      }
  }
  return found;
}

/* Every record names a node of the user's graph, or a helper constant
 * a pass added (the scalar of Add(x, x) -> Mul(x, 2)). */
static void assert_user_names(const Tensorflow__RunMetadata *m) {
  for (size_t d = 0; d < m->step_stats->n_dev_stats; d++) {
    const Tensorflow__DeviceStepStats *ds = m->step_stats->dev_stats[d];
    for (size_t i = 0; i < ds->n_node_stats; i++) {
      const char *n = ds->node_stats[i]->node_name;
      int ok = tfs_graph_operation_by_name(g, n) != NULL ||
               (strncmp(n, "ArithmeticOptimizer/", 20) == 0 &&
                strstr(ds->node_stats[i]->timeline_label, " = Const()"));
      if (!ok) fprintf(stderr, "\n  not a user node: %s\n", n);
      CU_ASSERT_TRUE(ok);
    }
  }
}

static int starts_with(const char *s, const char *p) {
  return s && strncmp(s, p, strlen(p)) == 0;
}

/* The original names of `name` in og, joined by ",". */
static const char *orig_of(tfs_graph *og, const char *name) {
  static char buf[512];
  buf[0] = 0;
  tfs_operation *op = tfs_graph_operation_by_name(og, name);
  if (!op) return "(missing)";
  for (int k = 0; k < op->norig; k++) {
    size_t l = strlen(buf);
    snprintf(buf + l, sizeof buf - l, "%s%s", k ? "," : "", op->orig_names[k]);
  }
  return buf;
}

/* Whether the comma-separated list has `name`. */
static int has_name(const char *list, const char *name) {
  size_t n = strlen(name);
  for (const char *p = list; p && *p;) {
    const char *e = strchr(p, ',');
    size_t l = e ? (size_t)(e - p) : strlen(p);
    if (l == n && strncmp(p, name, n) == 0) return 1;
    p = e ? e + 1 : NULL;
  }
  return 0;
}

/* x [1,5,5,3] -> Conv2D "conv/Conv2D" -> BiasAdd "conv/BiasAdd" -> Relu
 * "conv/Relu" */
static tfs_output conv_chain(tfs_output *x) {
  *x = ot_placeholder("x", 4);
  int64_t fd[4] = {1, 1, 3, 4}, bd[1] = {4};
  tfs_op_desc *d = tfs_op_desc_new(g, "Conv2D", "conv/Conv2D");
  tfs_op_desc_add_input(d, *x);
  tfs_op_desc_add_input(d, ot_const_shape("conv/filter", fd, 4));
  int64_t s[4] = {1, 1, 1, 1};
  tfs_op_desc_set_attr_int_list(d, "strides", s, 4);
  tfs_op_desc_set_attr_string(d, "padding", "SAME", 4);
  tfs_operation *conv = tfs_op_desc_finish(d, st);
  TFS_ASSERT_OK(st);
  tfs_output b = tfs_op_bias_add(g, "conv/BiasAdd", (tfs_output){conv, 0},
                                 ot_const_shape("conv/bias", bd, 1), st);
  tfs_output r = tfs_op_unary(g, "Relu", "conv/Relu", b, st);
  TFS_ASSERT_OK(st);
  return r;
}

/* ---- step stats ---------------------------------------------------------- */

static void test_orig_names__conv_stats(void) {
  ot_setup();
  tfs_output x, y = conv_chain(&x);
  tfs_session *on = session_opt(1), *off = session_opt(0);
  Tensorflow__RunMetadata *m = traced_run(on, x, 4, y);
  static const char *names[3] = {"conv/Conv2D", "conv/BiasAdd", "conv/Relu"};
  const Tensorflow__NodeExecStats *ns[3];
  for (int i = 0; i < 3; i++) {
    int count;
    ns[i] = stats_of(m, names[i], &count);
    CU_ASSERT_EQUAL(count, 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ns[i]);
    CU_ASSERT_PTR_NOT_NULL(strstr(ns[i]->timeline_label, "_FusedConv2D("));
  }
  assert_user_names(m);
  /* the last node holds the kernel's time and outputs */
  CU_ASSERT_TRUE(starts_with(ns[2]->timeline_label,
                             "conv/Relu = _FusedConv2D(x, conv/filter, "
                             "conv/bias)"));
  CU_ASSERT_PTR_NULL(strstr(ns[2]->timeline_label, "fused into"));
  CU_ASSERT_EQUAL(ns[2]->n_output, 1);
  CU_ASSERT_TRUE(ns[2]->all_end_rel_nanos >= ns[2]->op_end_rel_nanos);
  for (int i = 0; i < 2; i++) {
    CU_ASSERT_TRUE(starts_with(ns[i]->timeline_label, names[i]));
    CU_ASSERT_PTR_NOT_NULL(
        strstr(ns[i]->timeline_label, "[fused into conv/Relu]"));
    CU_ASSERT_EQUAL(ns[i]->all_start_nanos, ns[2]->all_start_nanos);
    CU_ASSERT_EQUAL(ns[i]->op_end_rel_nanos, 0);
    CU_ASSERT_EQUAL(ns[i]->all_end_rel_nanos, 0);
    CU_ASSERT_EQUAL(ns[i]->n_output, 0);
    CU_ASSERT_EQUAL(ns[i]->thread_id, ns[2]->thread_id);
  }
  tensorflow__run_metadata__free_unpacked(m, NULL);

  /* optimizer off: the stats as before, one record per node that ran */
  m = traced_run(off, x, 4, y);
  const char *ops[3] = {"Conv2D", "BiasAdd", "Relu"};
  for (int i = 0; i < 3; i++) {
    int count;
    const Tensorflow__NodeExecStats *n = stats_of(m, names[i], &count);
    CU_ASSERT_EQUAL(count, 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(n);
    char want[64];
    snprintf(want, sizeof want, "%s = %s(", names[i], ops[i]);
    CU_ASSERT_TRUE(starts_with(n->timeline_label, want));
    CU_ASSERT_PTR_NULL(strstr(n->timeline_label, "fused"));
    CU_ASSERT_EQUAL(n->n_output, 1);
  }
  assert_user_names(m);
  tensorflow__run_metadata__free_unpacked(m, NULL);
  tfs_session_free(on);
  tfs_session_free(off);
  ot_teardown();
}

/* ---- the optimized GraphDef ---------------------------------------------- */

static void test_orig_names__graphdef_round_trip(void) {
  ot_setup();
  tfs_output x, y = conv_chain(&x);
  tfs_graph *og = ot_optimize(&x, 1, &y, 1, NULL);
  CU_ASSERT_STRING_EQUAL(ot_type(og, "conv/Relu"), "_FusedConv2D");
  CU_ASSERT_STRING_EQUAL(orig_of(og, "conv/Relu"),
                         "conv/Conv2D,conv/BiasAdd,conv/Relu");
  /* untouched nodes carry nothing */
  CU_ASSERT_STRING_EQUAL(orig_of(og, "x"), "");
  CU_ASSERT_STRING_EQUAL(orig_of(og, "conv/filter"), "");

  tfs_buffer *b = tfs_buffer_new();
  tfs_graph_to_graphdef(og, b, st);
  TFS_ASSERT_OK(st);
  Tensorflow__GraphDef *gd =
      tensorflow__graph_def__unpack(NULL, b->length, b->data);
  CU_ASSERT_PTR_NOT_NULL_FATAL(gd);
  int seen = 0;
  for (size_t i = 0; i < gd->n_node; i++) {
    const Tensorflow__NodeDef *nd = gd->node[i];
    if (strcmp(nd->name, "conv/Relu") != 0) {
      CU_ASSERT_PTR_NULL(nd->experimental_debug_info);
      continue;
    }
    seen = 1;
    CU_ASSERT_PTR_NOT_NULL_FATAL(nd->experimental_debug_info);
    CU_ASSERT_EQUAL_FATAL(
        nd->experimental_debug_info->n_original_node_names, 3);
    CU_ASSERT_STRING_EQUAL(
        nd->experimental_debug_info->original_node_names[0], "conv/Conv2D");
    CU_ASSERT_STRING_EQUAL(
        nd->experimental_debug_info->original_node_names[2], "conv/Relu");
  }
  CU_ASSERT_TRUE(seen);
  tensorflow__graph_def__free_unpacked(gd, NULL);

  /* bytes -> graph -> the same bytes */
  tfs_graph *back = tfs_graph_new();
  tfs_import_results *r =
      tfs_graph_import_graphdef(back, b->data, b->length, NULL, st);
  TFS_ASSERT_OK(st);
  tfs_import_results_free(r);
  CU_ASSERT_STRING_EQUAL(orig_of(back, "conv/Relu"),
                         "conv/Conv2D,conv/BiasAdd,conv/Relu");
  tfs_buffer *b2 = tfs_buffer_new();
  tfs_graph_to_graphdef(back, b2, st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_EQUAL(b2->length, b->length);
  if (b2->length == b->length)
    CU_ASSERT_EQUAL(memcmp(b2->data, b->data, b->length), 0);
  tfs_buffer_free(b2);
  tfs_buffer_free(b);
  tfs_graph_free(back);
  tfs_graph_free(og);
  ot_teardown();
}

/* ---- accumulation -------------------------------------------------------- */

/* Two copies of MatMul + BiasAdd + Relu on the same inputs, added:
 * common subgraph elimination merges the copies, then the remapper fuses
 * the survivors; the fused node stands for all six. */
static tfs_output twin_chain(tfs_output *x) {
  *x = ot_placeholder("x", 2);
  tfs_output w = ot_matrix("w", 3, 4);
  int64_t bd[1] = {4};
  tfs_output bias = ot_const_shape("bias", bd, 1);
  tfs_output r[2];
  for (int i = 0; i < 2; i++) {
    char n[3][16];
    snprintf(n[0], sizeof n[0], "mm_%c", 'a' + i);
    snprintf(n[1], sizeof n[1], "b_%c", 'a' + i);
    snprintf(n[2], sizeof n[2], "r_%c", 'a' + i);
    tfs_output mm = tfs_op_matmul(g, n[0], *x, w, 0, 0, st);
    tfs_output b = tfs_op_bias_add(g, n[1], mm, bias, st);
    r[i] = tfs_op_unary(g, "Relu", n[2], b, st);
  }
  tfs_op_desc *d = tfs_op_desc_new(g, "AddV2", "sum");
  tfs_op_desc_add_input(d, r[0]);
  tfs_op_desc_add_input(d, r[1]);
  tfs_operation *sum = tfs_op_desc_finish(d, st);
  TFS_ASSERT_OK(st);
  return (tfs_output){sum, 0};
}

static const char *kTwins[6] = {"mm_a", "mm_b", "b_a", "b_b", "r_a", "r_b"};

static void test_orig_names__accumulate(void) {
  ot_setup();
  tfs_output x, y = twin_chain(&x);
  /* one optimization: merged, then fused */
  tfs_graph *og =
      ot_optimize(&x, 1, &y, 1, "common_subgraph_elimination,remap");
  CU_ASSERT_STRING_EQUAL(ot_type(og, "r_a"), "_FusedMatMul");
  const char *o = orig_of(og, "r_a");
  for (int i = 0; i < 6; i++) CU_ASSERT_TRUE(has_name(o, kTwins[i]));
  tfs_graph_free(og);

  /* two optimizations with the GraphDef in between: the second fuses
   * nodes that the first merged, and the lists add up */
  og = ot_optimize(&x, 1, &y, 1, "common_subgraph_elimination");
  CU_ASSERT_STRING_EQUAL(ot_type(og, "r_a"), "Relu");
  CU_ASSERT_TRUE(has_name(orig_of(og, "mm_a"), "mm_b"));
  tfs_buffer *b = tfs_buffer_new();
  tfs_graph_to_graphdef(og, b, st);
  TFS_ASSERT_OK(st);
  tfs_graph_free(og);
  tfs_graph *user = g;
  g = tfs_graph_new();
  tfs_import_results *r = tfs_graph_import_graphdef(g, b->data, b->length,
                                                    NULL, st);
  TFS_ASSERT_OK(st);
  tfs_import_results_free(r);
  tfs_buffer_free(b);
  tfs_output x2 = {tfs_graph_operation_by_name(g, "x"), 0};
  tfs_output y2 = {tfs_graph_operation_by_name(g, "sum"), 0};
  og = ot_optimize(&x2, 1, &y2, 1, "remap");
  CU_ASSERT_STRING_EQUAL(ot_type(og, "r_a"), "_FusedMatMul");
  o = orig_of(og, "r_a");
  for (int i = 0; i < 6; i++) CU_ASSERT_TRUE(has_name(o, kTwins[i]));
  tfs_graph_free(og);
  tfs_graph_free(g);
  g = user;

  /* a session reports all six */
  tfs_session *on = session_opt(1);
  Tensorflow__RunMetadata *m = traced_run(on, x, 2, y);
  for (int i = 0; i < 6; i++) {
    int count;
    const Tensorflow__NodeExecStats *n = stats_of(m, kTwins[i], &count);
    CU_ASSERT_EQUAL(count, 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(n);
    CU_ASSERT_PTR_NOT_NULL(strstr(n->timeline_label, "_FusedMatMul("));
  }
  assert_user_names(m);
  tensorflow__run_metadata__free_unpacked(m, NULL);
  tfs_session_free(on);
  ot_teardown();
}

/* A folded constant stands for the nodes folded into it. */
static void test_orig_names__constant_folding(void) {
  ot_setup();
  tfs_output x = ot_placeholder("x", 2);
  tfs_output c = tfs_op_unary(g, "Neg", "neg",
                              tfs_op_unary(g, "Abs", "abs",
                                           ot_const_like("c", -2.0f), st),
                              st);
  tfs_op_desc *d = tfs_op_desc_new(g, "Mul", "y");
  tfs_op_desc_add_input(d, x);
  tfs_op_desc_add_input(d, c);
  tfs_operation *y = tfs_op_desc_finish(d, st);
  TFS_ASSERT_OK(st);
  tfs_output yo = {y, 0};
  tfs_graph *og = ot_optimize(&x, 1, &yo, 1, "constfold");
  CU_ASSERT_STRING_EQUAL(ot_type(og, "neg"), "Const");
  const char *o = orig_of(og, "neg");
  CU_ASSERT_TRUE(has_name(o, "neg"));
  CU_ASSERT_TRUE(has_name(o, "abs"));
  CU_ASSERT_TRUE(has_name(o, "c"));
  tfs_graph_free(og);
  ot_teardown();
}

/* A long folded chain: the list stops at TFS_OG_MAX_ORIG names and keeps
 * the node's own. */
static void test_orig_names__long_fold_capped(void) {
  ot_setup();
  tfs_output x = ot_placeholder("x", 2);
  tfs_output c = ot_const_like("c", 1.5f);
  char name[32];
  for (int i = 0; i < 100; i++) {
    snprintf(name, sizeof name, "neg%d", i);
    c = tfs_op_unary(g, "Neg", name, c, st);
  }
  tfs_op_desc *d = tfs_op_desc_new(g, "Mul", "y");
  tfs_op_desc_add_input(d, x);
  tfs_op_desc_add_input(d, c);
  tfs_operation *y = tfs_op_desc_finish(d, st);
  TFS_ASSERT_OK(st);
  tfs_output yo = {y, 0};
  tfs_graph *og = ot_optimize(&x, 1, &yo, 1, "constfold");
  CU_ASSERT_STRING_EQUAL(ot_type(og, "neg99"), "Const");
  tfs_operation *op = tfs_graph_operation_by_name(og, "neg99");
  CU_ASSERT_PTR_NOT_NULL_FATAL(op);
  CU_ASSERT_EQUAL(op->norig, 64);
  CU_ASSERT_TRUE(has_name(orig_of(og, "neg99"), "neg99"));
  CU_ASSERT_TRUE(has_name(orig_of(og, "neg99"), "neg98"));
  tfs_graph_free(og);
  ot_teardown();
}

static const tfs_test_case cases[] = {
    {"conv_stats", test_orig_names__conv_stats},
    {"graphdef_round_trip", test_orig_names__graphdef_round_trip},
    {"accumulate", test_orig_names__accumulate},
    {"constant_folding", test_orig_names__constant_folding},
    {"long_fold_capped", test_orig_names__long_fold_capped},
    {NULL, NULL}};

const tfs_test_suite tfs_test_suites[] = {{"orig_names", cases},
                                          {NULL, NULL}};
