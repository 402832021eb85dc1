/*
 * tests/optimizer/test_session_opt.c - the optimizer inside sessions: the
 * same graphs run on a session with the optimizer on (the default) and
 * on one with disable_meta_optimizer give the same fetches (MLP, conv +
 * batch norm, foldable constants, variables across runs and plans, fed
 * intermediates, fetched inner nodes of a fusion); RunMetadata shows the
 * fused nodes; ConfigProto toggles, min_graph_nodes and the process-wide
 * options switch it; the user's graph is never changed.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "config_proto/config.h"
#include "opttest.h"
#include "session/exec.h"

/* ---- sessions and configs ------------------------------------------------ */

enum { CFG_DEFAULT = -1000 };

typedef struct cfg_t {
  int disable;         /* disable_meta_optimizer */
  int min_graph_nodes; /* CFG_DEFAULT: unset */
  int remap_off;       /* remapping: OFF */
  int constfold_off;   /* constant_folding: OFF */
} cfg_t;

/* A session on g with ConfigProto bytes from *c (NULL: the optimizer's
 * defaults) and device_count {GPU: 0}: the fusions checked here are the
 * remapper's for CPU placements, also on machines with a GPU. */
static tfs_session *session_for(const cfg_t *c) {
  tfs_session_options *o = tfs_session_options_new();
  static char gpu[] = "GPU";
  tfs_config_device_count no_gpu = {gpu, 0};
  tfs_config cp;
  tfs_config__init(&cp);
  cp.ndevice_count = 1;
  cp.device_count = &no_gpu;
  if (c) {
    cp.has_graph_options = 1;
    cp.graph_options.has_rewrite_options = 1;
    tfs_rewriter_config *rc = &cp.graph_options.rewrite_options;
    rc->disable_meta_optimizer = c->disable;
    if (c->min_graph_nodes != CFG_DEFAULT)
      rc->min_graph_nodes = c->min_graph_nodes;
    if (c->remap_off) rc->remapping = TFS_TOGGLE_OFF;
    if (c->constfold_off) rc->constant_folding = TFS_TOGGLE_OFF;
  }
  tfs_buffer *b = tfs_buffer_new();
  tfs_config__serialize(&cp, b, st);
  TFS_ASSERT_OK(st);
  tfs_session_options_set_config(o, b->data, b->length, st);
  TFS_ASSERT_OK(st);
  tfs_buffer_free(b);
  cp.ndevice_count = 0; /* not the config's to free */
  cp.device_count = NULL;
  tfs_config__clear(&cp);
  tfs_session *s = tfs_session_new(g, o, st);
  tfs_session_options_free(o);
  TFS_ASSERT_OK(st);
  return s;
}

static const cfg_t kOff = {1, CFG_DEFAULT, 0, 0};

static tfs_tensor *floats(const int64_t *dims, int rank, float scale) {
  tfs_tensor *t = tfs_tensor_new(TFS_FLOAT, dims, rank, st);
  float *d = tfs_tensor_data(t);
  for (int64_t i = 0; i < tfs_tensor_num_elements(t); i++)
    d[i] = scale * ((float)((i * 5 + 3) % 13) / 4.0f - 1.5f);
  return t;
}

/* Asserts a and b hold the same values: exactly for non-float dtypes,
 * within 1e-4 relative (plus 1e-5 of the largest magnitude) for float. */
static void assert_same(const tfs_tensor *a, const tfs_tensor *b) {
  CU_ASSERT_PTR_NOT_NULL_FATAL(a);
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  CU_ASSERT_EQUAL_FATAL(tfs_tensor_dtype(a), tfs_tensor_dtype(b));
  CU_ASSERT_EQUAL_FATAL(tfs_tensor_ndims(a), tfs_tensor_ndims(b));
  for (int d = 0; d < tfs_tensor_ndims(a); d++)
    CU_ASSERT_EQUAL_FATAL(tfs_tensor_dim(a, d), tfs_tensor_dim(b, d));
  if (tfs_tensor_dtype(a) != TFS_FLOAT) {
    CU_ASSERT_EQUAL(memcmp(tfs_tensor_data(a), tfs_tensor_data(b),
                           tfs_tensor_byte_size(a)),
                    0);
    return;
  }
  const float *x = tfs_tensor_data(a), *y = tfs_tensor_data(b);
  int64_t n = tfs_tensor_num_elements(a);
  double amax = 0;
  for (int64_t k = 0; k < n; k++) amax = fmax(amax, fabs(x[k]));
  for (int64_t k = 0; k < n; k++) {
    int ok = fabs((double)x[k] - y[k]) <= 1e-4 * fabs(x[k]) + 1e-5 * amax;
    if (!ok)
      fprintf(stderr, "\n  element %lld: %.9g vs %.9g\n", (long long)k, x[k],
              y[k]);
    CU_ASSERT_TRUE(ok);
    if (!ok) return;
  }
}

/* Runs the signature on `on` and `off` and asserts equal fetches. */
static void check_same(tfs_session *on, tfs_session *off,
                       const tfs_output *feeds, tfs_tensor *const *vals,
                       int nfeeds, const tfs_output *fetches, int nfetches) {
  tfs_tensor *a[8] = {NULL}, *b[8] = {NULL};
  tfs_session_run(on, feeds, vals, nfeeds, fetches, a, nfetches, NULL, 0, st);
  TFS_ASSERT_OK(st);
  tfs_session_run(off, feeds, vals, nfeeds, fetches, b, nfetches, NULL, 0,
                  st);
  TFS_ASSERT_OK(st);
  for (int i = 0; i < nfetches; i++) {
    assert_same(a[i], b[i]);
    tfs_tensor_free(a[i]);
    tfs_tensor_free(b[i]);
  }
}

/* Whether a traced run of the signature executed a node whose
 * RunMetadata timeline label is "<name> = <op>(...)". */
static int ran_as(tfs_session *s, const tfs_output *feeds,
                  tfs_tensor *const *vals, int nfeeds, tfs_output fetch,
                  const char *name, const char *op) {
  static const uint8_t full_trace[] = {0x08, 0x03}; /* trace_level: 3 */
  tfs_buffer *ro = tfs_buffer_new_copy(full_trace, sizeof full_trace);
  tfs_buffer *md = tfs_buffer_new();
  tfs_tensor *out = NULL;
  tfs_session_run_ex(s, ro, feeds, vals, nfeeds, &fetch, &out, 1, NULL, 0,
                     md, st);
  TFS_ASSERT_OK(st);
  char label[128];
  snprintf(label, sizeof label, "%s = %s(", name, op);
  const char *data = md->data;
  int found = 0;
  for (size_t i = 0; !found && i + strlen(label) <= md->length; i++)
    found = memcmp(data + i, label, strlen(label)) == 0;
  tfs_tensor_free(out);
  tfs_buffer_free(ro);
  tfs_buffer_free(md);
  return found;
}

/* ---- graphs -------------------------------------------------------------- */

/* dense layer "<p>": MatMul "<p>/mm" + BiasAdd "<p>/b" [+ act "<p>/act"] */
static tfs_output dense(const char *p, tfs_output x, int64_t in, int64_t out,
                        const char *act) {
  char n[3][64];
  snprintf(n[0], sizeof n[0], "%s/w", p);
  snprintf(n[1], sizeof n[1], "%s/mm", p);
  snprintf(n[2], sizeof n[2], "%s/bias", p);
  tfs_output mm = tfs_op_matmul(g, n[1], x, ot_matrix(n[0], in, out), 0, 0,
                                st);
  int64_t bd[1] = {out};
  snprintf(n[0], sizeof n[0], "%s/b", p);
  tfs_output y = tfs_op_bias_add(g, n[0], mm, ot_const_shape(n[2], bd, 1),
                                 st);
  if (!act) return y;
  snprintf(n[0], sizeof n[0], "%s/act", p);
  return tfs_op_unary(g, act, n[0], y, st);
}

/* x [-1, 8] -> dense 16 Relu -> dense 4 -> Softmax "probs" */
static tfs_output mlp(tfs_output *x) {
  int64_t d[2] = {-1, 8};
  *x = tfs_op_placeholder(g, "x", TFS_FLOAT, d, 2, st);
  tfs_output h = dense("l1", *x, 8, 16, "Relu");
  tfs_output logits = dense("l2", h, 16, 4, NULL);
  tfs_output probs = tfs_op_unary(g, "Softmax", "probs", logits, st);
  TFS_ASSERT_OK(st);
  return probs;
}

static tfs_output op4(const char *type, const char *name, tfs_output x,
                      tfs_output w) {
  tfs_op_desc *d = tfs_op_desc_new(g, type, name);
  tfs_op_desc_add_input(d, x);
  tfs_op_desc_add_input(d, w);
  int64_t s[4] = {1, 1, 1, 1};
  tfs_op_desc_set_attr_int_list(d, "strides", s, 4);
  tfs_op_desc_set_attr_string(d, "padding", "SAME", 4);
  tfs_operation *op = tfs_op_desc_finish(d, st);
  return (tfs_output){op, op ? 0 : -1};
}

/* Inference batch norm with constant statistics; the variance is
 * Abs(Const), which constant folding has to fold first. */
static tfs_output batch_norm(const char *name, tfs_output y, int64_t ch) {
  int64_t d1[1] = {ch};
  char n[5][64];
  for (int i = 0; i < 5; i++) snprintf(n[i], sizeof n[i], "%s/p%d", name, i);
  tfs_op_desc *d = tfs_op_desc_new(g, "FusedBatchNormV3", name);
  tfs_op_desc_add_input(d, y);
  for (int i = 0; i < 3; i++)
    tfs_op_desc_add_input(d, ot_const_shape(n[i], d1, 1));
  tfs_op_desc_add_input(
      d, tfs_op_unary(g, "Abs", n[4], ot_const_shape(n[3], d1, 1), st));
  tfs_op_desc_set_attr_bool(d, "is_training", 0);
  tfs_op_desc_set_attr_float(d, "epsilon", 0.001f);
  tfs_operation *op = tfs_op_desc_finish(d, st);
  return (tfs_output){op, op ? 0 : -1};
}

/* ---- differential: optimizer on vs off ----------------------------------- */

static void test_optimizer_session__mlp(void) {
  ot_setup();
  tfs_output x, probs = mlp(&x);
  tfs_output logits = {tfs_graph_operation_by_name(g, "l2/b"), 0};
  tfs_session *on = session_for(NULL), *off = session_for(&kOff);
  for (int64_t batch = 1; batch <= 5; batch += 2) {
    int64_t d[2] = {batch, 8};
    tfs_tensor *xv = floats(d, 2, 1.0f);
    tfs_output fetches[2] = {probs, logits};
    check_same(on, off, &x, &xv, 1, fetches, 2);
    check_same(on, off, &x, &xv, 1, &probs, 1); /* a second plan */
    tfs_tensor_free(xv);
  }
  tfs_session_free(on);
  tfs_session_free(off);
  ot_teardown();
}

static void test_optimizer_session__conv_batch_norm(void) {
  ot_setup();
  int64_t xd[4] = {-1, 6, 6, 3}, fd[4] = {3, 3, 3, 4}, dd[4] = {3, 3, 4, 1};
  tfs_output x = tfs_op_placeholder(g, "x", TFS_FLOAT, xd, 4, st);
  tfs_output c1 = op4("Conv2D", "conv1", x, ot_const_shape("f1", fd, 4));
  tfs_output r1 = tfs_op_unary(g, "Relu6", "relu1",
                               batch_norm("bn1", c1, 4), st);
  tfs_output dw = op4("DepthwiseConv2dNative", "dw", r1,
                      ot_const_shape("fdw", dd, 4));
  tfs_output r2 = tfs_op_unary(g, "Relu", "relu2", batch_norm("bn2", dw, 4),
                               st);
  TFS_ASSERT_OK(st);
  tfs_session *on = session_for(NULL), *off = session_for(&kOff);
  int64_t d[4] = {2, 6, 6, 3};
  tfs_tensor *xv = floats(d, 4, 0.5f);
  check_same(on, off, &x, &xv, 1, &r2, 1);
  /* the batch norms were folded into the convolutions */
  CU_ASSERT_TRUE(ran_as(on, &x, &xv, 1, r2, "relu1", "_FusedConv2D"));
  CU_ASSERT_FALSE(ran_as(on, &x, &xv, 1, r2, "bn1", "FusedBatchNormV3"));
  CU_ASSERT_TRUE(ran_as(off, &x, &xv, 1, r2, "bn1", "FusedBatchNormV3"));
  tfs_tensor_free(xv);
  tfs_session_free(on);
  tfs_session_free(off);
  ot_teardown();
}

static void test_optimizer_session__constants_folded(void) {
  ot_setup();
  int64_t d[2] = {2, 3};
  tfs_output x = tfs_op_placeholder(g, "x", TFS_FLOAT, d, 2, st);
  tfs_output csum = tfs_op_add(g, "csum", ot_const_like("c1", 1.0f),
                               ot_const_like("c2", 0.5f), st);
  tfs_output k = tfs_op_unary(g, "Exp", "k", csum, st);
  tfs_output y = tfs_op_mul(g, "y", x, k, st);
  tfs_output shp = tfs_op_shape(g, "shp", x, st);
  TFS_ASSERT_OK(st);
  tfs_session *on = session_for(NULL), *off = session_for(&kOff);
  tfs_tensor *xv = floats(d, 2, 1.0f);
  tfs_output fetches[2] = {y, shp};
  check_same(on, off, &x, &xv, 1, fetches, 2);
  /* Add and Exp of constants became one constant */
  CU_ASSERT_FALSE(ran_as(on, &x, &xv, 1, y, "k", "Exp"));
  CU_ASSERT_TRUE(ran_as(off, &x, &xv, 1, y, "k", "Exp"));
  tfs_tensor_free(xv);
  tfs_session_free(on);
  tfs_session_free(off);
  ot_teardown();
}

/* Ref and resource variables updated by several plans of one session;
 * both sessions see the same sequence of values. */
static void test_optimizer_session__variables(void) {
  ot_setup();
  int64_t d[2] = {2, 3};
  tfs_output x = tfs_op_placeholder(g, "x", TFS_FLOAT, d, 2, st);
  tfs_output init_val = tfs_op_mul(g, "init_val", ot_const_like("i1", 1.0f),
                                   ot_const_like("i2", 2.0f), st);
  tfs_output v = tfs_op_variable(g, "v", TFS_FLOAT, d, 2, st);
  tfs_output init_v = tfs_op_assign(g, "init_v", v, init_val, st);
  tfs_output step = tfs_op_mul(g, "step", x, ot_const_like("f", 0.5f), st);
  tfs_output upd_v = tfs_op_assign_add(g, "upd_v", v, step, st);
  tfs_output read_v = tfs_op_add(
      g, "read_v", tfs_op_identity(g, "v_read", v, st),
      tfs_op_add(g, "bump", ot_const_like("b1", 0.25f),
                 ot_const_like("b2", 0.25f), st), st);
  tfs_output h = tfs_op_var_handle(g, "h", TFS_FLOAT, d, 2, st);
  tfs_operation *init_h = tfs_op_assign_variable(g, "init_h", h, init_val,
                                                 st);
  tfs_operation *upd_h = tfs_op_assign_add_variable(g, "upd_h", h, step, st);
  tfs_output read_h = tfs_op_mul(
      g, "read_h", tfs_op_read_variable(g, "rh", h, TFS_FLOAT, st),
      tfs_op_add(g, "two", ot_const_like("t1", 1.0f),
                 ot_const_like("t2", 1.0f), st), st);
  TFS_ASSERT_OK(st);
  tfs_session *ss[2] = {session_for(NULL), session_for(&kOff)};
  tfs_tensor *xv = floats(d, 2, 1.0f), *got[2][4][2];
  tfs_output reads[2] = {read_v, read_h};
  tfs_operation *inits[2] = {init_v.oper, init_h};
  tfs_operation *upds[2] = {upd_v.oper, upd_h};
  for (int k = 0; k < 2; k++) {
    tfs_session_run(ss[k], NULL, NULL, 0, NULL, NULL, 0, inits, 2, st);
    TFS_ASSERT_OK(st);
    for (int r = 0; r < 4; r++) {
      tfs_session_run(ss[k], &x, &xv, 1, NULL, NULL, 0, upds, 2, st);
      TFS_ASSERT_OK(st);
      tfs_session_run(ss[k], NULL, NULL, 0, reads, got[k][r], 2, NULL, 0, st);
      TFS_ASSERT_OK(st);
    }
  }
  for (int r = 0; r < 4; r++)
    for (int i = 0; i < 2; i++) {
      assert_same(got[0][r][i], got[1][r][i]);
      tfs_tensor_free(got[0][r][i]);
      tfs_tensor_free(got[1][r][i]);
    }
  tfs_tensor_free(xv);
  tfs_session_free(ss[0]);
  tfs_session_free(ss[1]);
  ot_teardown();
}

/* A fed node is never folded away: feeding the constant expression, or a
 * Const it is made of, or a fusion's root, changes the result. */
static void test_optimizer_session__fed_intermediates(void) {
  ot_setup();
  int64_t d[2] = {2, 3};
  tfs_output x = tfs_op_placeholder(g, "x", TFS_FLOAT, d, 2, st);
  tfs_output c1 = ot_const_like("c1", 1.0f);
  tfs_output csum = tfs_op_add(g, "csum", c1, ot_const_like("c2", 0.5f), st);
  tfs_output y = tfs_op_mul(g, "y", x, csum, st);
  TFS_ASSERT_OK(st);
  tfs_session *on = session_for(NULL), *off = session_for(&kOff);
  tfs_tensor *xv = floats(d, 2, 1.0f), *fv = floats(d, 2, 3.0f);
  tfs_output feeds[2] = {x, csum};
  tfs_tensor *vals[2] = {xv, fv};
  check_same(on, off, feeds, vals, 2, &y, 1);
  tfs_tensor *got = tu_run1(on, y, feeds, vals, 2);
  const float *xs = tfs_tensor_data(xv), *fs = tfs_tensor_data(fv);
  for (int i = 0; i < 6; i++)
    TFS_ASSERT_FLOAT_NEAR(((float *)tfs_tensor_data(got))[i], xs[i] * fs[i],
                          1e-6);
  tfs_tensor_free(got);
  feeds[1] = c1; /* a fed Const */
  check_same(on, off, feeds, vals, 2, &y, 1);
  tfs_tensor_free(xv);
  tfs_tensor_free(fv);
  tfs_session_free(on);
  tfs_session_free(off);
  /* the hidden layer of an MLP, the root of a MatMul+BiasAdd+Relu fusion */
  ot_teardown();
  ot_setup();
  tfs_output mx, probs = mlp(&mx);
  tfs_output hidden = {tfs_graph_operation_by_name(g, "l1/act"), 0};
  on = session_for(NULL);
  off = session_for(&kOff);
  int64_t hd[2] = {3, 16};
  tfs_tensor *hv = floats(hd, 2, 0.5f);
  check_same(on, off, &hidden, &hv, 1, &probs, 1);
  tfs_tensor_free(hv);
  tfs_session_free(on);
  tfs_session_free(off);
  ot_teardown();
}

/* Fetching a node a fusion would swallow keeps it fetchable. */
static void test_optimizer_session__fetch_inner_node(void) {
  ot_setup();
  tfs_output x, probs = mlp(&x);
  tfs_output inner[3] = {{tfs_graph_operation_by_name(g, "l1/mm"), 0},
                         {tfs_graph_operation_by_name(g, "l1/b"), 0},
                         {tfs_graph_operation_by_name(g, "l2/mm"), 0}};
  tfs_session *on = session_for(NULL), *off = session_for(&kOff);
  int64_t d[2] = {3, 8};
  tfs_tensor *xv = floats(d, 2, 1.0f);
  for (int i = 0; i < 3; i++) {
    tfs_output fetches[2] = {probs, inner[i]};
    check_same(on, off, &x, &xv, 1, fetches, 2);
    check_same(on, off, &x, &xv, 1, &inner[i], 1);
  }
  tfs_tensor_free(xv);
  tfs_session_free(on);
  tfs_session_free(off);
  ot_teardown();
}

/* ---- the optimizer ran, and its switches --------------------------------- */

static void test_optimizer_session__fused_in_run_metadata(void) {
  ot_setup();
  tfs_output x, probs = mlp(&x);
  int64_t d[2] = {2, 8};
  tfs_tensor *xv = floats(d, 2, 1.0f);
  tfs_session *on = session_for(NULL), *off = session_for(&kOff);
  CU_ASSERT_TRUE(ran_as(on, &x, &xv, 1, probs, "l1/act", "_FusedMatMul"));
  CU_ASSERT_TRUE(ran_as(on, &x, &xv, 1, probs, "l2/b", "_FusedMatMul"));
  CU_ASSERT_FALSE(ran_as(on, &x, &xv, 1, probs, "l1/mm", "MatMul"));
  CU_ASSERT_TRUE(ran_as(off, &x, &xv, 1, probs, "l1/mm", "MatMul"));
  CU_ASSERT_TRUE(ran_as(off, &x, &xv, 1, probs, "l1/act", "Relu"));
  CU_ASSERT_FALSE(ran_as(off, &x, &xv, 1, probs, "l1/act", "_FusedMatMul"));
  /* a callable gets the optimized plan too */
  tfs_callable *c =
      tfs_session_make_callable(on, &x, 1, &probs, 1, NULL, 0, NULL, st);
  TFS_ASSERT_OK(st);
  tfs_plan *p = tfs_callable__plan(c);
  CU_ASSERT_PTR_NOT_NULL(p->opt.graph);
  int fused = 0;
  for (int i = 0; i < p->nnodes; i++)
    fused += strcmp(tfs_operation_op_type(p->nodes[i].op), "_FusedMatMul") == 0;
  CU_ASSERT_EQUAL(fused, 2);
  tfs_tensor *a = NULL, *b = NULL;
  tfs_callable_run(c, &xv, 1, &a, 1, st);
  TFS_ASSERT_OK(st);
  tfs_session_run(off, &x, &xv, 1, &probs, &b, 1, NULL, 0, st);
  TFS_ASSERT_OK(st);
  assert_same(a, b);
  tfs_tensor_free(a);
  tfs_tensor_free(b);
  tfs_callable_free(c);
  tfs_tensor_free(xv);
  tfs_session_free(on);
  tfs_session_free(off);
  ot_teardown();
}

static void test_optimizer_session__toggles(void) {
  ot_setup();
  tfs_output x, probs = mlp(&x);
  int64_t d[2] = {2, 8};
  tfs_tensor *xv = floats(d, 2, 1.0f);
  /* remapping OFF in the ConfigProto: no fusion, other passes still run */
  cfg_t no_remap = {0, CFG_DEFAULT, 1, 0};
  tfs_session *s = session_for(&no_remap);
  CU_ASSERT_TRUE(ran_as(s, &x, &xv, 1, probs, "l1/act", "Relu"));
  tfs_session_free(s);
  /* process-wide: disable_meta_optimizer turns a default session off */
  tfs_optimizer_set_experimental_option("disable_meta_optimizer", 1, st);
  TFS_ASSERT_OK(st);
  s = session_for(NULL);
  CU_ASSERT_TRUE(ran_as(s, &x, &xv, 1, probs, "l1/mm", "MatMul"));
  tfs_session_free(s);
  tfs_optimizer_reset_experimental_options();
  /* process-wide remapping OFF wins over the config's default */
  tfs_optimizer_set_experimental_option("remapping", 0, st);
  cfg_t plain = {0, CFG_DEFAULT, 0, 0};
  s = session_for(&plain);
  CU_ASSERT_TRUE(ran_as(s, &x, &xv, 1, probs, "l1/act", "Relu"));
  tfs_session_free(s);
  /* ... and process-wide ON wins over the config's OFF */
  tfs_optimizer_set_experimental_option("remapping", 1, st);
  s = session_for(&no_remap);
  CU_ASSERT_TRUE(ran_as(s, &x, &xv, 1, probs, "l1/act", "_FusedMatMul"));
  tfs_session_free(s);
  tfs_optimizer_reset_experimental_options();
  tfs_tensor_free(xv);
  ot_teardown();
}

/* min_graph_nodes counts the session's whole graph, as TensorFlow counts
 * the graph it is handed, not only what the fetches need. */
static void test_optimizer_session__min_graph_nodes(void) {
  ot_setup();
  int64_t d[2] = {-1, 8};
  tfs_output x = tfs_op_placeholder(g, "x", TFS_FLOAT, d, 2, st);
  tfs_output y = dense("l", x, 8, 4, NULL); /* 5 nodes */
  TFS_ASSERT_OK(st);
  int64_t xd[2] = {2, 8};
  tfs_tensor *xv = floats(xd, 2, 1.0f);
  const struct {
    int min, fused;
  } cases[] = {{6, 0}, {5, 1}, {-1, 1}, {CFG_DEFAULT, 1}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    cfg_t c = {0, cases[i].min, 0, 0};
    tfs_session *s = session_for(&c);
    CU_ASSERT_EQUAL(ran_as(s, &x, &xv, 1, y, "l/b", "_FusedMatMul"),
                    cases[i].fused);
    tfs_session_free(s);
  }
  /* two nodes the fetch does not need still count */
  tfs_op_unary(g, "Neg", "other", ot_const_like("unused", 1.0f), st);
  TFS_ASSERT_OK(st);
  cfg_t seven = {0, 7, 0, 0}, eight = {0, 8, 0, 0};
  tfs_session *s = session_for(&seven);
  CU_ASSERT_TRUE(ran_as(s, &x, &xv, 1, y, "l/b", "_FusedMatMul"));
  tfs_session_free(s);
  s = session_for(&eight);
  CU_ASSERT_TRUE(ran_as(s, &x, &xv, 1, y, "l/b", "BiasAdd"));
  tfs_session_free(s);
  tfs_tensor_free(xv);
  ot_teardown();
}

/* ---- what the user sees -------------------------------------------------- */

static void test_optimizer_session__user_graph_untouched(void) {
  ot_setup();
  tfs_output x, probs = mlp(&x);
  tfs_buffer *before = tfs_buffer_new(), *after = tfs_buffer_new();
  tfs_graph_to_graphdef(g, before, st);
  TFS_ASSERT_OK(st);
  size_t nops = tfs_graph_num_operations(g);
  tfs_session *s = session_for(NULL);
  int64_t d[2] = {2, 8};
  tfs_tensor *xv = floats(d, 2, 1.0f);
  CU_ASSERT_TRUE(ran_as(s, &x, &xv, 1, probs, "l1/act", "_FusedMatMul"));
  tfs_output hidden = {tfs_graph_operation_by_name(g, "l1/act"), 0};
  tfs_tensor_free(tu_run1(s, hidden, &x, &xv, 1));
  CU_ASSERT_EQUAL(tfs_graph_num_operations(g), nops);
  CU_ASSERT_STRING_EQUAL(
      tfs_operation_op_type(tfs_graph_operation_by_name(g, "l1/act")), "Relu");
  tfs_graph_to_graphdef(g, after, st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_EQUAL_FATAL(before->length, after->length);
  CU_ASSERT_EQUAL(memcmp(before->data, after->data, before->length), 0);
  tfs_buffer_free(before);
  tfs_buffer_free(after);
  tfs_tensor_free(xv);
  tfs_session_free(s);
  ot_teardown();
}

/* The same error with the optimizer on and off, and one raised by a
 * fused kernel names a node of the user's graph. */
static void test_optimizer_session__errors_name_user_nodes(void) {
  ot_setup();
  tfs_output x, probs = mlp(&x);
  tfs_session *on = session_for(NULL), *off = session_for(&kOff);
  char m_on[512], m_off[512];
  CU_ASSERT_EQUAL(tu_run_error(on, probs, NULL, NULL, 0, m_on, sizeof m_on),
                  TFS_INVALID_ARGUMENT);
  CU_ASSERT_PTR_NOT_NULL(strstr(
      m_on, "You must feed a value for placeholder tensor 'x' with dtype "
            "float and shape [?,8]"));
  tu_run_error(off, probs, NULL, NULL, 0, m_off, sizeof m_off);
  CU_ASSERT_STRING_EQUAL(m_on, m_off);
  int64_t d[2] = {2, 5};
  tfs_tensor *bad = floats(d, 2, 1.0f);
  CU_ASSERT_EQUAL(tu_run_error(on, probs, &x, &bad, 1, m_on, sizeof m_on),
                  TFS_INVALID_ARGUMENT);
  CU_ASSERT_PTR_NOT_NULL(strstr(m_on, "Tensor x:0"));
  tu_run_error(off, probs, &x, &bad, 1, m_off, sizeof m_off);
  CU_ASSERT_STRING_EQUAL(m_on, m_off);
  tfs_session_free(on);
  tfs_session_free(off);
  ot_teardown();
  /* x of unknown shape: the inner dimensions meet only at run time */
  ot_setup();
  tfs_output ux = tfs_op_placeholder(g, "x", TFS_FLOAT, NULL, -1, st);
  tfs_output y = dense("l1", ux, 8, 16, "Relu");
  TFS_ASSERT_OK(st);
  on = session_for(NULL);
  CU_ASSERT_EQUAL(tu_run_error(on, y, &ux, &bad, 1, m_on, sizeof m_on),
                  TFS_INVALID_ARGUMENT);
  const char *at = strstr(m_on, "{{node ");
  CU_ASSERT_PTR_NOT_NULL_FATAL(at);
  char name[64] = "";
  sscanf(at + 7, "%63[^}]", name);
  CU_ASSERT_PTR_NOT_NULL(tfs_graph_operation_by_name(g, name));
  tfs_tensor_free(bad);
  tfs_session_free(on);
  ot_teardown();
}

static const tfs_test_case diff_cases[] = {
    {"mlp", test_optimizer_session__mlp},
    {"conv_batch_norm", test_optimizer_session__conv_batch_norm},
    {"constants_folded", test_optimizer_session__constants_folded},
    {"variables", test_optimizer_session__variables},
    {"fed_intermediates", test_optimizer_session__fed_intermediates},
    {"fetch_inner_node", test_optimizer_session__fetch_inner_node},
    {NULL, NULL}};
static const tfs_test_case switch_cases[] = {
    {"fused_in_run_metadata", test_optimizer_session__fused_in_run_metadata},
    {"toggles", test_optimizer_session__toggles},
    {"min_graph_nodes", test_optimizer_session__min_graph_nodes},
    {NULL, NULL}};
static const tfs_test_case user_cases[] = {
    {"user_graph_untouched", test_optimizer_session__user_graph_untouched},
    {"errors_name_user_nodes", test_optimizer_session__errors_name_user_nodes},
    {NULL, NULL}};

const tfs_test_suite tfs_test_suites[] = {{"session_diff", diff_cases},
                                          {"session_switches", switch_cases},
                                          {"session_user_view", user_cases},
                                          {NULL, NULL}};
