/*
 * tests/optimizer/test_nn.c - targeted tests of the remapper (each fused
 * pattern, batch norm folding, preserved inner nodes, TensorFlow-loadable
 * mode), the layout pass (NHWC -> NCHW and back, transposes cancelled)
 * and auto mixed precision (bfloat16 on a CPU that has it).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opttest.h"
#include "core/cpu.h"
#include "optimizer/optimizer.h"

static tfs_output mm_bias(tfs_output x, const char *bias_name) {
  tfs_output w = ot_matrix("w", 3, 4);
  tfs_output mm = tfs_op_matmul(g, "mm", x, w, 0, 0, st);
  int64_t bd[1] = {4};
  return tfs_op_bias_add(g, bias_name, mm, ot_const_shape("b", bd, 1), st);
}

static void test_optimizer_remap__matmul_bias_activations(void) {
  static const char *const kActs[] = {"Relu",      "Relu6", "Elu",
                                      "LeakyRelu", "Tanh",  "Sigmoid"};
  for (int a = 0; a < 6; a++) {
    ot_setup();
    tfs_output x = ot_placeholder("x", 2);
    tfs_output ba = mm_bias(x, "ba");
    tfs_op_desc *d = tfs_op_desc_new(g, kActs[a], "act");
    tfs_op_desc_add_input(d, ba);
    if (a == 3) tfs_op_desc_set_attr_float(d, "alpha", 0.3f);
    tfs_operation *act = tfs_op_desc_finish(d, st);
    TFS_ASSERT_OK(st);
    tfs_output y = {act, 0};
    tfs_graph *og = ot_optimize(&x, 1, &y, 1, "remap");
    CU_ASSERT_STRING_EQUAL(ot_type(og, "act"), "_FusedMatMul");
    CU_ASSERT_EQUAL(ot_count(og, "MatMul") + ot_count(og, "BiasAdd"), 0);
    char want[96];
    snprintf(want, sizeof want, "MatMul+BiasAdd+%s -> _FusedMatMul: 1",
             kActs[a]);
    CU_ASSERT_PTR_NOT_NULL(strstr(ot_summary(0), want));
    ot_check_same(og, &x, 1, &y, 1, 1);
    tfs_graph_free(og);
    ot_teardown();
  }
}

static void test_optimizer_remap__preserved_inner_node(void) {
  ot_setup();
  tfs_output x = ot_placeholder("x", 2);
  tfs_output ba = mm_bias(x, "ba");
  tfs_output r = tfs_op_unary(g, "Relu", "r", ba, st);
  TFS_ASSERT_OK(st);
  tfs_output fetches[2] = {r, ba}; /* ba is fetched: Relu is not fused */
  tfs_graph *og = ot_optimize(&x, 1, fetches, 2, "remap");
  CU_ASSERT_STRING_EQUAL(ot_type(og, "ba"), "_FusedMatMul");
  CU_ASSERT_STRING_EQUAL(ot_type(og, "r"), "Relu");
  ot_check_same(og, &x, 1, fetches, 2, 1);
  tfs_graph_free(og);
  ot_teardown();
}

static tfs_output on_device(const char *type, const char *name,
                            const char *device, tfs_output a, tfs_output b) {
  tfs_op_desc *d = tfs_op_desc_new(g, type, name);
  tfs_op_desc_add_input(d, a);
  if (b.oper) tfs_op_desc_add_input(d, b);
  tfs_op_desc_set_device(d, device);
  tfs_operation *op = tfs_op_desc_finish(d, st);
  return (tfs_output){op, op ? 0 : -1};
}

/* The fused ops have CPU kernels only: nodes requested on a GPU keep
 * their ops; requested on the CPU they are fused. */
static void test_optimizer_remap__gpu_request_not_fused(void) {
  const char *devices[2] = {"/device:GPU:0", "/job:localhost/device:CPU:0"};
  for (int i = 0; i < 2; i++) {
    ot_setup();
    tfs_output x = ot_placeholder("x", 2), none = {NULL, -1};
    int64_t bd[1] = {4};
    tfs_output mm = on_device("MatMul", "mm", devices[i], x,
                              ot_matrix("w", 3, 4));
    tfs_output ba = on_device("BiasAdd", "ba", devices[i], mm,
                              ot_const_shape("b", bd, 1));
    tfs_output r = on_device("Relu", "r", devices[i], ba, none);
    TFS_ASSERT_OK(st);
    tfs_graph *og = ot_optimize(&x, 1, &r, 1, "remap");
    CU_ASSERT_STRING_EQUAL(ot_type(og, "r"), i ? "_FusedMatMul" : "Relu");
    CU_ASSERT_EQUAL(ot_count(og, "MatMul"), i ? 0 : 1);
    tfs_graph_free(og);
    ot_teardown();
  }
}

static tfs_output conv(tfs_output x, const char *name, int64_t cin,
                       int64_t cout, const char *format) {
  int64_t fd[4] = {3, 3, cin, cout};
  char fname[64];
  snprintf(fname, sizeof fname, "%s_filter", name);
  tfs_op_desc *d = tfs_op_desc_new(g, "Conv2D", name);
  tfs_op_desc_add_input(d, x);
  tfs_op_desc_add_input(d, ot_const_shape(fname, fd, 4));
  int64_t s[4] = {1, 1, 1, 1};
  tfs_op_desc_set_attr_int_list(d, "strides", s, 4);
  tfs_op_desc_set_attr_string(d, "padding", "SAME", 4);
  if (format) tfs_op_desc_set_attr_string(d, "data_format", format, 4);
  tfs_operation *op = tfs_op_desc_finish(d, st);
  return (tfs_output){op, op ? 0 : -1};
}

static tfs_output batch_norm(tfs_output y, const char *name, int64_t ch,
                             tfs_output scale) {
  int64_t d1[1] = {ch};
  char n[4][64];
  for (int i = 0; i < 4; i++) snprintf(n[i], sizeof n[i], "%s_p%d", name, i);
  tfs_op_desc *d = tfs_op_desc_new(g, "FusedBatchNormV3", name);
  tfs_op_desc_add_input(d, y);
  tfs_op_desc_add_input(d, scale.oper ? scale : ot_const_shape(n[0], d1, 1));
  tfs_op_desc_add_input(d, ot_const_shape(n[1], d1, 1));
  tfs_op_desc_add_input(d, ot_const_shape(n[2], d1, 1));
  tfs_output var =
      tfs_op_unary(g, "Abs", NULL, ot_const_shape(n[3], d1, 1), st);
  tfs_op_desc_add_input(d, var);
  tfs_op_desc_set_attr_bool(d, "is_training", 0);
  tfs_operation *op = tfs_op_desc_finish(d, st);
  return (tfs_output){op, op ? 0 : -1};
}

static void test_optimizer_remap__conv_batch_norm_folded(void) {
  ot_setup();
  tfs_output x = ot_placeholder("x", 4);
  tfs_output c = conv(x, "conv", 3, 4, NULL);
  tfs_output bn = batch_norm(c, "bn", 4, (tfs_output){NULL, -1});
  tfs_output y = tfs_op_unary(g, "Relu", "y", bn, st);
  TFS_ASSERT_OK(st);
  /* constant folding first makes Abs(variance) a constant */
  tfs_graph *og = ot_optimize(&x, 1, &y, 1, "constfold,remap");
  CU_ASSERT_STRING_EQUAL(ot_type(og, "y"), "_FusedConv2D");
  CU_ASSERT_EQUAL(ot_count(og, "FusedBatchNormV3") + ot_count(og, "Conv2D"), 0);
  int e = ot_entry("remapper");
  CU_ASSERT_PTR_NOT_NULL(strstr(ot_summary(e),
                                "Conv2D+FusedBatchNormV3+Relu -> _FusedConv2D "
                                "(batch norm folded into the filter): 1"));
  ot_check_same(og, &x, 1, &y, 1, 1);
  tfs_graph_free(og);
  ot_teardown();
}

static void test_optimizer_remap__conv_batch_norm_runtime_params(void) {
  ot_setup();
  tfs_output x = ot_placeholder("x", 4);
  int64_t d1[1] = {4};
  tfs_output scale = tfs_op_placeholder(g, "scale", TFS_FLOAT, d1, 1, st);
  tfs_output c = conv(x, "conv", 3, 4, NULL);
  tfs_output bn = batch_norm(c, "bn", 4, scale);
  TFS_ASSERT_OK(st);
  tfs_output feeds[2] = {x, scale};
  tfs_graph *og = ot_optimize(feeds, 2, &bn, 1, "constfold,remap");
  CU_ASSERT_STRING_EQUAL(ot_type(og, "bn"), "_FusedConv2D");
  ot_check_same(og, feeds, 2, &bn, 1, 1);
  tfs_graph_free(og);
  ot_teardown();
}

static void test_optimizer_remap__conv_bias_and_depthwise(void) {
  ot_setup();
  tfs_output x = ot_placeholder("x", 4);
  int64_t bd[1] = {6};
  tfs_output c = conv(x, "conv", 3, 6, NULL);
  tfs_output cb =
      tfs_op_bias_add(g, "cb", c, ot_const_shape("cbias", bd, 1), st);
  int64_t fd[4] = {3, 3, 6, 1}, s[4] = {1, 2, 2, 1};
  tfs_op_desc *d = tfs_op_desc_new(g, "DepthwiseConv2dNative", "dw");
  tfs_op_desc_add_input(d, cb);
  tfs_op_desc_add_input(d, ot_const_shape("dwf", fd, 4));
  tfs_op_desc_set_attr_int_list(d, "strides", s, 4);
  tfs_op_desc_set_attr_string(d, "padding", "SAME", 4);
  tfs_output dw = {tfs_op_desc_finish(d, st), 0};
  tfs_output db =
      tfs_op_bias_add(g, "db", dw, ot_const_shape("dbias", bd, 1), st);
  tfs_output y = tfs_op_unary(g, "Relu6", "y", db, st);
  TFS_ASSERT_OK(st);
  tfs_graph *og = ot_optimize(&x, 1, &y, 1, "remap");
  CU_ASSERT_STRING_EQUAL(ot_type(og, "cb"), "_FusedConv2D");
  CU_ASSERT_STRING_EQUAL(ot_type(og, "y"), "_FusedDepthwiseConv2dNative");
  ot_check_same(og, &x, 1, &y, 1, 1);
  tfs_graph_free(og);
  ot_teardown();
}

static void test_optimizer_remap__swish_and_batch_matmul(void) {
  for (int compat = 0; compat < 2; compat++) {
    ot_setup();
    tfs_output x = ot_placeholder("x", 2);
    tfs_output sg = tfs_op_unary(g, "Sigmoid", "sg", x, st);
    tfs_output sw = tfs_op_mul(g, "sw", x, sg, st);
    tfs_op_desc *d = tfs_op_desc_new(g, "BatchMatMulV2", "bmm");
    tfs_op_desc_add_input(d, sw);
    tfs_op_desc_add_input(d, ot_matrix("w", 3, 2));
    tfs_output bmm = {tfs_op_desc_finish(d, st), 0};
    tfs_output y =
        tfs_op_mul(g, "y", bmm, tfs_op_const_float(g, "scale", 0.25f, st), st);
    TFS_ASSERT_OK(st);
    ot_config.tf_compatible = compat;
    tfs_graph *og = ot_optimize(&x, 1, &y, 1, "remap");
    CU_ASSERT_STRING_EQUAL(ot_type(og, "sw"), compat ? "Mul" : "_TfsSwish");
    CU_ASSERT_STRING_EQUAL(ot_type(og, "y"),
                           compat ? "Mul" : "_FusedBatchMatMulV2");
    ot_check_same(og, &x, 1, &y, 1, 1);
    tfs_graph_free(og);
    ot_teardown();
  }
}

static void test_optimizer_remap__batch_norm_decomposed(void) {
  ot_setup();
  tfs_output x = ot_placeholder("x", 4);
  tfs_output t = tfs_op_unary(g, "Tanh", "t", x, st);
  tfs_output bn = batch_norm(t, "bn", 3, (tfs_output){NULL, -1});
  TFS_ASSERT_OK(st);
  tfs_graph *og = ot_optimize(&x, 1, &bn, 1, "constfold,remap");
  CU_ASSERT_STRING_EQUAL(ot_type(og, "bn"), "AddV2");
  CU_ASSERT_EQUAL(ot_count(og, "FusedBatchNormV3"), 0);
  ot_check_same(og, &x, 1, &bn, 1, 1);
  tfs_graph_free(og);
  ot_teardown();
}

/* ---- layout ---------------------------------------------------------------
 */

static int count_format(tfs_graph *og, const char *fmt) {
  size_t pos = 0, len;
  int n = 0;
  tfs_operation *op;
  tfs_status *s = tfs_status_new();
  while ((op = tfs_graph_next_operation(og, &pos))) {
    const char *f = tfs_operation_attr_string(op, "data_format", &len, s);
    n += f && len == strlen(fmt) && memcmp(f, fmt, len) == 0;
  }
  tfs_status_free(s);
  return n;
}

static void test_optimizer_layout__to_nchw_and_back(void) {
  ot_setup();
  tfs_output x = ot_placeholder("x", 4);
  int64_t bd[1] = {4};
  tfs_output c1 = conv(x, "c1", 3, 4, NULL);
  tfs_output b1 =
      tfs_op_bias_add(g, "b1", c1, ot_const_shape("bias", bd, 1), st);
  tfs_output r1 = tfs_op_unary(g, "Relu", "r1", b1, st);
  tfs_output c2 = conv(r1, "c2", 4, 2, NULL);
  tfs_output y = tfs_op_unary(g, "Tanh", "y", c2, st);
  TFS_ASSERT_OK(st);
  ot_config.layout = 2; /* NHWC_TO_NCHW: a CPU that prefers NCHW */
  tfs_graph *og = ot_optimize(&x, 1, &y, 1, "layout");
  CU_ASSERT_EQUAL(count_format(og, "NCHW"), 3);
  CU_ASSERT_EQUAL(count_format(og, "NHWC"), 0);
  /* one Transpose in, one out: the ones between the ops cancelled */
  CU_ASSERT_EQUAL(ot_count(og, "Transpose"), 2);
  CU_ASSERT_PTR_NOT_NULL(strstr(ot_summary(0), "converted 3 ops to NCHW"));
  CU_ASSERT_PTR_NOT_NULL(strstr(ot_summary(0), "cancelled"));
  ot_check_same(og, &x, 1, &y, 1, 1);
  tfs_graph_free(og);
  /* the default keeps CPU graphs as they are */
  ot_config.layout = 0;
  og = ot_optimize(&x, 1, &y, 1, "layout");
  CU_ASSERT_EQUAL(ot_count(og, "Transpose"), 0);
  tfs_graph_free(og);
  ot_teardown();
}

static void test_optimizer_layout__nchw_to_nhwc(void) {
  ot_setup();
  int64_t d[4] = {1, 3, 5, 5};
  tfs_output x = tfs_op_placeholder(g, "x", TFS_FLOAT, d, 4, st);
  tfs_output c = conv(x, "c", 3, 2, "NCHW");
  TFS_ASSERT_OK(st);
  ot_config.layout = 1; /* NCHW_TO_NHWC */
  tfs_graph *og = ot_optimize(&x, 1, &c, 1, "layout");
  CU_ASSERT_EQUAL(count_format(og, "NHWC"), 1);
  CU_ASSERT_STRING_EQUAL(ot_type(og, "c"), "Transpose");
  ot_check_same(og, &x, 1, &c, 1, 1);
  tfs_graph_free(og);
  ot_teardown();
}

/* ---- auto mixed precision
 * ---------------------------------------------------- */

/* The bfloat16 rewrite on every host: forced on (our bfloat16 kernels
 * compute in float32 and round, so its values are checked anywhere), and
 * forced off, as on a CPU without native bfloat16. */
static void amp_graph(tfs_output *x, tfs_output *y) {
  *x = ot_placeholder("x", 2);
  tfs_output m1 = tfs_op_matmul(g, "m1", *x, ot_matrix("w1", 3, 8), 0, 0, st);
  tfs_output r = tfs_op_unary(g, "Relu", "r", m1, st);
  tfs_output m2 = tfs_op_matmul(g, "m2", r, ot_matrix("w2", 8, 2), 0, 0, st);
  *y = tfs_op_unary(g, "Exp", "y", m2, st); /* deny: float32 */
  TFS_ASSERT_OK(st);
}

static tfs_dtype amp_type(tfs_graph *og, const char *name) {
  tfs_operation *op = tfs_graph_operation_by_name(og, name);
  CU_ASSERT_PTR_NOT_NULL_FATAL(op);
  return tfs_operation_attr_type(op, "T", st);
}

static void test_optimizer_amp__bfloat16_matmuls(void) {
  ot_setup();
  tfs_output x, y;
  amp_graph(&x, &y);
  ot_config.amp = 1;
  tfs_cpu__set_bf16(1);
  tfs_graph *og =
      ot_optimize(&x, 1, &y, 1, "auto_mixed_precision_onednn_bfloat16");
  tfs_cpu__set_bf16(-1);
  CU_ASSERT_PTR_NOT_NULL_FATAL(og);
  CU_ASSERT_EQUAL(amp_type(og, "m1"), TFS_BFLOAT16);
  CU_ASSERT_EQUAL(amp_type(og, "r"), TFS_BFLOAT16);
  CU_ASSERT_EQUAL(amp_type(og, "m2"), TFS_BFLOAT16);
  CU_ASSERT_EQUAL(amp_type(og, "y"), TFS_FLOAT);
  /* x and the two weights in, m2's result back out */
  CU_ASSERT_EQUAL(ot_count(og, "Cast"), 4);
  const char *sum = ot_summary(0);
  if (!strstr(sum, "3 ops to bfloat16, 1 Cast back to float32"))
    fprintf(stderr, "\n  summary: %s\n", sum);
  CU_ASSERT_PTR_NOT_NULL(
      strstr(sum, "3 ops to bfloat16, 1 Cast back to float32"));
  /* y's input is the Cast back, fed by m2 */
  tfs_operation *yop = tfs_graph_operation_by_name(og, "y");
  tfs_output yin = tfs_operation_input(
      (tfs_input){.oper = yop, .index = 0});
  CU_ASSERT_STRING_EQUAL(tfs_operation_op_type(yin.oper), "Cast");
  ot_check_same(og, &x, 1, &y, 1, 2);
  tfs_graph_free(og);
  /* forced off: the pass says why it did nothing */
  tfs_cpu__set_bf16(0);
  og = ot_optimize(&x, 1, &y, 1, "auto_mixed_precision_onednn_bfloat16");
  tfs_cpu__set_bf16(-1);
  CU_ASSERT_PTR_NOT_NULL_FATAL(og);
  CU_ASSERT_EQUAL(amp_type(og, "m1"), TFS_FLOAT);
  CU_ASSERT_EQUAL(ot_count(og, "Cast"), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(ot_summary(0), "no native bfloat16"));
  tfs_graph_free(og);
  tu_cpu_path("bf16", "amp-forced-on", NULL);
  tu_cpu_path("bf16", "amp-forced-off", NULL);
  /* no override: the CPU decides (TFS_CPU_BF16 may still say) */
  og = ot_optimize(&x, 1, &y, 1, "auto_mixed_precision_onednn_bfloat16");
  CU_ASSERT_PTR_NOT_NULL_FATAL(og);
  CU_ASSERT_EQUAL(amp_type(og, "m1"),
                  tfs_cpu_bf16() ? TFS_BFLOAT16 : TFS_FLOAT);
  tfs_graph_free(og);
  int native = tfs_cpu_bf16_detected();
  tu_cpu_path("bf16", "amp-auto-native",
              native ? NULL : "this CPU has no native bfloat16");
  tu_cpu_path("bf16", "amp-auto-none",
              native ? "this CPU has native bfloat16" : NULL);
  ot_teardown();
}

const tfs_test_case tfs_optimizer_nn_cases[] = {
    {"remap_matmul_bias_activations",
     test_optimizer_remap__matmul_bias_activations},
    {"remap_preserved_inner_node", test_optimizer_remap__preserved_inner_node},
    {"remap_gpu_request_not_fused",
     test_optimizer_remap__gpu_request_not_fused},
    {"remap_conv_batch_norm_folded",
     test_optimizer_remap__conv_batch_norm_folded},
    {"remap_conv_batch_norm_runtime_params",
     test_optimizer_remap__conv_batch_norm_runtime_params},
    {"remap_conv_bias_and_depthwise",
     test_optimizer_remap__conv_bias_and_depthwise},
    {"remap_swish_and_batch_matmul",
     test_optimizer_remap__swish_and_batch_matmul},
    {"remap_batch_norm_decomposed",
     test_optimizer_remap__batch_norm_decomposed},
    {"layout_to_nchw_and_back", test_optimizer_layout__to_nchw_and_back},
    {"layout_nchw_to_nhwc", test_optimizer_layout__nchw_to_nhwc},
    {"amp_bfloat16_matmuls", test_optimizer_amp__bfloat16_matmuls},
    {NULL, NULL},
};
