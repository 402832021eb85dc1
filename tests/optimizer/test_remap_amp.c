/*
 * tests/optimizer/test_remap_amp.c - the arithmetic pass and the
 * remapper after auto mixed precision on a MobileNetV2 block as Keras 3
 * writes it (1x1 expansion, depthwise 3x3, 1x1 projection, each followed
 * by the decomposed batch norm x * C1 + C2, Relu6 after the first two,
 * the residual sum): the bfloat16 scales fold into the bfloat16 weights,
 * the shifts become biases, and each convolution fuses with its bias,
 * Relu6 and the sum as in float32.  The fused graph's output is at least
 * as close to the float32 graph's as the unfused bfloat16 graph's.  In
 * output that must load in TensorFlow (whose _FusedConv2D has no
 * bfloat16 kernel) the bfloat16 Conv2D stays unfused.  Before all that,
 * constant folding pushes a constant Mul after a Conv2D into its filter
 * (TensorFlow's MulConvPushDown), so the scale meets the weights in
 * float32: where it applies and where it must not.  And a bfloat16
 * MatMul whose BiasAdd stays float32 becomes one
 * _TfsFusedMatMulFloatOut.
 */
#include <math.h>
#include <string.h>

#include "core/cpu.h"
#include "opttest.h"

static const int64_t kImg[4] = {1, 12, 10, 8};

/* x * C1 + C2 (Keras's inference batch norm after constant folding),
 * named name_mul and name_add; c channels. */
static tfs_output bn(const char *name, tfs_output x, int64_t c) {
  int64_t d[1] = {c};
  char a[64], b[64], m[64], s[64];
  snprintf(a, sizeof a, "%s_scale", name);
  snprintf(b, sizeof b, "%s_shift", name);
  snprintf(m, sizeof m, "%s_mul", name);
  snprintf(s, sizeof s, "%s_add", name);
  tfs_output y = tfs_op_binary(g, "Mul", m, x, ot_const_shape(a, d, 1), st);
  return tfs_op_binary(g, "AddV2", s, y, ot_const_shape(b, d, 1), st);
}

/* A SAME convolution of x by a constant filter fd (depthwise: a
 * DepthwiseConv2dNative), stride 1. */
static tfs_output conv(const char *name, tfs_output x, const int64_t *fd,
                       int depthwise) {
  int64_t s[4] = {1, 1, 1, 1};
  char f[64];
  snprintf(f, sizeof f, "%s_filter", name);
  tfs_op_desc *d = tfs_op_desc_new(
      g, depthwise ? "DepthwiseConv2dNative" : "Conv2D", name);
  tfs_op_desc_add_input(d, x);
  tfs_op_desc_add_input(d, ot_const_shape(f, fd, 4));
  tfs_op_desc_set_attr_int_list(d, "strides", s, 4);
  tfs_op_desc_set_attr_string(d, "padding", "SAME", 4);
  return (tfs_output){tfs_op_desc_finish(d, st), 0};
}

enum { ACT_RELU6, ACT_SWISH, ACT_HARD_SWISH };

static tfs_output scalar(const char *name, float v) {
  tfs_tensor *t = tfs_tensor_new(TFS_FLOAT, NULL, 0, st);
  *(float *)tfs_tensor_data(t) = v;
  tfs_output c = tfs_op_const(g, name, t, st);
  tfs_tensor_free(t);
  return c;
}

/* The activation `kind` of x, its last node (swish: its Mul) named
 * `name`: Relu6; Keras's swish (x * Sigmoid(1 * x) and the IdentityN of
 * its gradient); Keras's hard_swish (x * (Relu6(x + 3) / 6)). */
static tfs_output act(const char *name, tfs_output x, int kind) {
  char n1[64], n2[64];
  snprintf(n1, sizeof n1, "%s_c1", name);
  snprintf(n2, sizeof n2, "%s_c2", name);
  if (kind == ACT_RELU6) return tfs_op_unary(g, "Relu6", name, x, st);
  if (kind == ACT_HARD_SWISH) {
    tfs_output t = tfs_op_binary(g, "AddV2", NULL, x, scalar(n1, 3), st);
    tfs_output r = tfs_op_unary(g, "Relu6", NULL, t, st);
    tfs_output q = tfs_op_binary(g, "RealDiv", NULL, r, scalar(n2, 6), st);
    return tfs_op_binary(g, "Mul", name, x, q, st);
  }
  tfs_output beta = scalar(n1, 1);
  tfs_output s = tfs_op_unary(g, "Sigmoid", NULL,
                              tfs_op_binary(g, "Mul", NULL, beta, x, st), st);
  tfs_output in[3] = {tfs_op_binary(g, "Mul", name, x, s, st), x, beta};
  snprintf(n2, sizeof n2, "%s_identity_n", name); /* pruning removes it */
  tfs_op_desc *d = tfs_op_desc_new(g, "IdentityN", n2);
  tfs_op_desc_add_input_list(d, in, 3);
  return (tfs_output){tfs_op_desc_finish(d, st), 0};
}

/* A 1x1 convolution with its batch norm ("stem"), the block after it
 * (activations of `kind`) and a 1x1 convolution "head" of the block's
 * output "out" (so that auto mixed precision makes the block bfloat16);
 * returns Identity "y" of the head (the fetch, which it keeps float32). */
static tfs_output block(tfs_output in, int kind) {
  static const int64_t kStem[4] = {1, 1, 8, 8};
  tfs_output x = bn("stem_bn", conv("stem", in, kStem, 0), 8);
  static const int64_t kExpand[4] = {1, 1, 8, 24}, kDw[4] = {3, 3, 24, 1};
  static const int64_t kProject[4] = {1, 1, 24, 8};
  tfs_output e = act("expand_act",
                     bn("expand_bn", conv("expand", x, kExpand, 0), 24), kind);
  tfs_output d = act("dw_act", bn("dw_bn", conv("dw", e, kDw, 1), 24), kind);
  tfs_output p = bn("project_bn", conv("project", d, kProject, 0), 8);
  tfs_output out = tfs_op_binary(g, "AddV2", "out", x, p, st);
  return tfs_op_unary(g, "Identity", "y", conv("head", out, kStem, 0), st);
}

/* 1 when a summary of `pass` (any iteration) contains `what`. */
static int noted(const char *pass, const char *what) {
  for (int i = 0; i < tfs_optimizer_report_num_entries(ot_report); i++)
    if (strcmp(tfs_optimizer_report_pass(ot_report, i), pass) == 0 &&
        strstr(ot_summary(i), what))
      return 1;
  return 0;
}

static tfs_dtype type_of(tfs_graph *og, const char *name) {
  tfs_operation *op = tfs_graph_operation_by_name(og, name);
  CU_ASSERT_PTR_NOT_NULL_FATAL(op);
  return tfs_operation_attr_type(op, "T", st);
}

/* The largest difference between a and b (float tensors of one size). */
static double max_diff(const tfs_tensor *a, const tfs_tensor *b) {
  const float *x = tfs_tensor_data(a), *y = tfs_tensor_data(b);
  int64_t n = tfs_tensor_num_elements(a);
  CU_ASSERT_EQUAL_FATAL(n, tfs_tensor_num_elements(b));
  double d = 0;
  for (int64_t i = 0; i < n; i++) {
    double e = fabs((double)x[i] - y[i]);
    if (!(e <= d)) d = e; /* NaN too */
  }
  return d;
}

static double max_abs(const tfs_tensor *a) {
  const float *x = tfs_tensor_data(a);
  double m = 0;
  for (int64_t i = 0; i < tfs_tensor_num_elements(a); i++)
    if (fabs(x[i]) > m) m = fabs(x[i]);
  return m;
}

/* g optimized under AMP (the bfloat16 decision forced on): *plain by
 * the rewrite and constant folding alone, *og by the whole pipeline. */
static void amp_optimize(tfs_output *x, tfs_output *y, tfs_graph **plain,
                         tfs_graph **og) {
  ot_config.amp = 1;
  tfs_cpu__set_bf16(1);
  *plain = ot_optimize(x, 1, y, 1,
                       "auto_mixed_precision_onednn_bfloat16,constfold");
  *og = ot_optimize(x, 1, y, 1, NULL);
  tfs_cpu__set_bf16(-1);
}

/* og's output y (float32) against the float32 graph's: at most twice the
 * unfused bfloat16 graph's error plus 1e-3 of the output's scale, and
 * within 2e-2 of it. */
static void check_closer(tfs_graph *plain, tfs_graph *og, tfs_output *x,
                         tfs_output y, const char *what) {
  tfs_tensor *want = ot_run1(g, x, 1, y);
  tfs_tensor *unfused = ot_run1(plain, x, 1, y);
  tfs_tensor *fused = ot_run1(og, x, 1, y);
  CU_ASSERT_EQUAL_FATAL(tfs_tensor_dtype(fused), TFS_FLOAT);
  double scale = max_abs(want), e0 = max_diff(want, unfused);
  double e1 = max_diff(want, fused);
  if (!(e1 <= 2 * e0 + 1e-3 * scale) || !(e1 <= 2e-2 * scale))
    fprintf(stderr, "\n  %s: scale %g, unfused error %g, fused error %g\n",
            what, scale, e0, e1);
  CU_ASSERT(e1 <= 2 * e0 + 1e-3 * scale);
  CU_ASSERT(e1 <= 2e-2 * scale);
  tfs_tensor_free(want);
  tfs_tensor_free(unfused);
  tfs_tensor_free(fused);
}

/* The block with activation `kind` under AMP: the convolutions fused in
 * bfloat16 with their bias, activation (the composite ones matched with
 * bfloat16 constants) and the residual sum, the expansion and the
 * depthwise convolution one _TfsFusedConv2DDepthwise, nothing else
 * left. */
static void amp_block_case(int kind) {
  static const char *const kFused[3] = {"BiasAdd,Relu6", "BiasAdd,_MklSwish",
                                        "BiasAdd,_TfsHardSwish"};
  static const char *const kGone[] = {"Mul",     "AddV2",     "Relu6",
                                      "Sigmoid", "IdentityN", "RealDiv",
                                      "BiasAdd"};
  ot_setup();
  tfs_output x = tfs_op_placeholder(g, "x", TFS_FLOAT, kImg, 4, st);
  tfs_output y = block(x, kind);
  TFS_ASSERT_OK(st);
  tfs_graph *plain, *og;
  amp_optimize(&x, &y, &plain, &og);
  /* the expansion and the depthwise convolution one op, as in float32 */
  CU_ASSERT_STRING_EQUAL(ot_type(og, "expand_act"), "(missing)");
  CU_ASSERT_STRING_EQUAL(ot_type(og, "dw_act"), "_TfsFusedConv2DDepthwise");
  CU_ASSERT_STRING_EQUAL(ot_fused_ops(og, "dw_act"), kFused[kind]);
  CU_ASSERT_STRING_EQUAL(ot_string_list(og, "dw_act", "dw_fused_ops"),
                         kFused[kind]);
  CU_ASSERT(noted("remapper", "_FusedConv2D+_FusedDepthwiseConv2dNative -> "
                              "_TfsFusedConv2DDepthwise: 1"));
  CU_ASSERT_STRING_EQUAL(ot_type(og, "out"), "_FusedConv2D");
  CU_ASSERT_STRING_EQUAL(ot_fused_ops(og, "out"), "BiasAdd,Add");
  CU_ASSERT_EQUAL(type_of(og, "dw_act"), TFS_BFLOAT16);
  CU_ASSERT_EQUAL(type_of(og, "out"), TFS_BFLOAT16);
  CU_ASSERT_STRING_EQUAL(ot_type(og, "stem_bn_add"), "_FusedConv2D");
  CU_ASSERT_EQUAL(ot_count(og, "_FusedConv2D"), 2);
  for (size_t i = 0; i < sizeof kGone / sizeof kGone[0]; i++)
    CU_ASSERT_EQUAL(ot_count(og, kGone[i]), 0);
  /* the Conv2Ds' scales in float32 before AMP (constant folding), the
   * depthwise one's in bfloat16 after it (arithmetic) */
  CU_ASSERT(noted("constant_folding",
                  "Mul pushed into a convolution's filter: 3"));
  CU_ASSERT(noted("arithmetic_optimizer", "Mul/Div folded into weights: 1"));
  CU_ASSERT(noted("remapper", "_FusedConv2D+AddV2 -> _FusedConv2D: 1"));
  check_closer(plain, og, &x, y, kFused[kind]);
  tfs_graph_free(plain);
  tfs_graph_free(og);
  ot_teardown();
}

static void test_remap_amp_block(void) {
  for (int kind = 0; kind < 3; kind++) amp_block_case(kind);
}

/* tf_compatible: the bfloat16 Conv2Ds keep their ops (the depthwise
 * convolution keeps its op too, as in float32 there). */
static void test_remap_amp_tf_compatible(void) {
  ot_setup();
  tfs_output x = tfs_op_placeholder(g, "x", TFS_FLOAT, kImg, 4, st);
  tfs_output y = block(x, ACT_RELU6);
  TFS_ASSERT_OK(st);
  ot_config.amp = 1;
  ot_config.tf_compatible = 1;
  tfs_cpu__set_bf16(1);
  tfs_graph *og = ot_optimize(&x, 1, &y, 1, NULL);
  tfs_cpu__set_bf16(-1);
  CU_ASSERT_EQUAL(ot_count(og, "_FusedConv2D"), 0);
  CU_ASSERT_EQUAL(ot_count(og, "Conv2D"), 4);
  /* the scales still fold into the weights (a plain Conv2D under the
   * Mul's name), the shifts into BiasAdds */
  CU_ASSERT_STRING_EQUAL(ot_type(og, "expand_bn_mul"), "Conv2D");
  CU_ASSERT_EQUAL(type_of(og, "expand_bn_mul"), TFS_BFLOAT16);
  CU_ASSERT_STRING_EQUAL(ot_type(og, "expand_bn_add"), "BiasAdd");
  ot_check_same(og, &x, 1, &y, 1, 2);
  tfs_graph_free(og);
  ot_teardown();
}

/* Mul(Conv2D(x, W), C) -> Conv2D(x, W * C) under the Mul's name, W * C
 * the Const "<conv>/merged_input": C per channel, C scalar, C first. */
static void test_constfold_mul_conv_push_down(void) {
  static const int64_t kFilter[4] = {3, 3, 8, 6}, kCh[1] = {6};
  for (int k = 0; k < 3; k++) {
    ot_setup();
    tfs_output x = tfs_op_placeholder(g, "x", TFS_FLOAT, kImg, 4, st);
    tfs_output c = conv("c", x, kFilter, 0);
    tfs_output s;
    if (k == 1) { /* a scalar */
      tfs_tensor *t = tfs_tensor_new(TFS_FLOAT, NULL, 0, st);
      *(float *)tfs_tensor_data(t) = 0.75f;
      s = tfs_op_const(g, "s", t, st);
      tfs_tensor_free(t);
    } else {
      s = ot_const_shape("s", kCh, 1);
    }
    tfs_output m = k == 2 ? tfs_op_binary(g, "Mul", "m", s, c, st)
                          : tfs_op_binary(g, "Mul", "m", c, s, st);
    tfs_output y = tfs_op_unary(g, "Relu", "y", m, st);
    TFS_ASSERT_OK(st);
    tfs_graph *og = ot_optimize(&x, 1, &y, 1, "constfold");
    CU_ASSERT_STRING_EQUAL(ot_type(og, "m"), "Conv2D");
    CU_ASSERT_STRING_EQUAL(ot_type(og, "c/merged_input"), "Const");
    CU_ASSERT_EQUAL(ot_count(og, "Mul"), 0);
    CU_ASSERT_EQUAL(ot_count(og, "Conv2D"), 1);
    CU_ASSERT(noted("constant_folding",
                    "Mul pushed into a convolution's filter: 1"));
    ot_check_same(og, &x, 1, &y, 1, 1);
    tfs_graph_free(og);
    ot_teardown();
  }
}

/* The Mul stays: the convolution's output read elsewhere too, its filter
 * fed, a scale that would broadcast the output bigger, one per channel in
 * NCHW. */
static void test_constfold_mul_conv_kept(void) {
  static const int64_t kFilter[4] = {3, 3, 8, 6}, kCh[1] = {6};
  static const int64_t kBig[4] = {2, 1, 1, 6}, kFd[4] = {1, 1, 8, 6};
  for (int k = 0; k < 4; k++) {
    ot_setup();
    tfs_output feeds[2];
    int nf = 1;
    tfs_output x = tfs_op_placeholder(g, "x", TFS_FLOAT, kImg, 4, st);
    feeds[0] = x;
    tfs_output c;
    if (k == 1) {
      feeds[nf++] = tfs_op_placeholder(g, "f", TFS_FLOAT, kFd, 4, st);
      int64_t s1[4] = {1, 1, 1, 1};
      tfs_op_desc *d = tfs_op_desc_new(g, "Conv2D", "c");
      tfs_op_desc_add_input(d, x);
      tfs_op_desc_add_input(d, feeds[1]);
      tfs_op_desc_set_attr_int_list(d, "strides", s1, 4);
      tfs_op_desc_set_attr_string(d, "padding", "SAME", 4);
      c = (tfs_output){tfs_op_desc_finish(d, st), 0};
    } else if (k == 3) {
      int64_t nchw[4] = {1, 8, 12, 10}, s1[4] = {1, 1, 1, 1};
      tfs_output xn = tfs_op_placeholder(g, "xn", TFS_FLOAT, nchw, 4, st);
      feeds[0] = xn;
      tfs_op_desc *d = tfs_op_desc_new(g, "Conv2D", "c");
      tfs_op_desc_add_input(d, xn);
      tfs_op_desc_add_input(d, ot_const_shape("f", kFilter, 4));
      tfs_op_desc_set_attr_int_list(d, "strides", s1, 4);
      tfs_op_desc_set_attr_string(d, "padding", "SAME", 4);
      tfs_op_desc_set_attr_string(d, "data_format", "NCHW", 4);
      c = (tfs_output){tfs_op_desc_finish(d, st), 0};
    } else {
      c = conv("c", x, kFilter, 0);
    }
    static const int64_t kNchwCh[3] = {6, 1, 1};
    tfs_output s = k == 2   ? ot_const_shape("s", kBig, 4)
                   : k == 3 ? ot_const_shape("s", kNchwCh, 3)
                            : ot_const_shape("s", kCh, 1);
    tfs_output m = tfs_op_binary(g, "Mul", "m", c, s, st);
    tfs_output y = k == 0 ? tfs_op_binary(g, "AddV2", "y", m, c, st)
                          : tfs_op_unary(g, "Relu", "y", m, st);
    TFS_ASSERT_OK(st);
    tfs_graph *og = ot_optimize(feeds, nf, &y, 1, "constfold");
    CU_ASSERT_STRING_EQUAL(ot_type(og, "m"), "Mul");
    CU_ASSERT_STRING_EQUAL(ot_type(og, "c/merged_input"), "(missing)");
    tfs_graph_free(og);
    ot_teardown();
  }
}

/* The first node of op `type` in og, or NULL. */
static tfs_operation *first_of(tfs_graph *og, const char *type) {
  size_t pos = 0;
  tfs_operation *op;
  while ((op = tfs_graph_next_operation(og, &pos)))
    if (strcmp(tfs_operation_op_type(op), type) == 0) return op;
  return NULL;
}

/* og's one _TfsFusedMatMulFloatOut, whose fused_ops are `ops`. */
static tfs_operation *the_float_out(tfs_graph *og, const char *ops) {
  CU_ASSERT_EQUAL(ot_count(og, "_TfsFusedMatMulFloatOut"), 1);
  tfs_operation *f = first_of(og, "_TfsFusedMatMulFloatOut");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  CU_ASSERT_STRING_EQUAL(ot_fused_ops(og, tfs_operation_name(f)), ops);
  return f;
}

/* Keras's Dense on a 3-D input (Reshape, MatMul, Reshape, BiasAdd [,
 * Relu]) before an op that keeps its input float32 (Exp): under AMP the
 * MatMul is bfloat16, a Cast to float32 follows it and the bias stays
 * float32; the arithmetic pass moves the Cast and the BiasAdd before the
 * Reshape and the remapper makes the three (and the Relu) one
 * _TfsFusedMatMulFloatOut, whose output is never rounded to bfloat16. */
static void test_remap_amp_float_bias(void) {
  static const int64_t kX[3] = {2, 5, 8}, kW[2] = {8, 6}, kB[1] = {6};
  for (int relu = 0; relu < 2; relu++) {
    ot_setup();
    tfs_output x = tfs_op_placeholder(g, "x", TFS_FLOAT, kX, 3, st);
    int32_t flat[2] = {-1, 8}, back[3] = {2, 5, 6};
    tfs_output r = ot_reshape("r", x, flat, 2);
    tfs_output m = tfs_op_matmul(g, "m", r, ot_const_shape("w", kW, 2), 0, 0,
                                 st);
    tfs_output b = tfs_op_bias_add(g, "b", ot_reshape("r2", m, back, 3),
                                   ot_const_shape("bias", kB, 1), st);
    if (relu) b = tfs_op_unary(g, "Relu", "relu", b, st);
    tfs_output y = tfs_op_unary(g, "Exp", "y", b, st);
    TFS_ASSERT_OK(st);
    tfs_graph *plain, *og;
    amp_optimize(&x, &y, &plain, &og);
    tfs_operation *f = the_float_out(og, relu ? "BiasAdd,Relu" : "BiasAdd");
    CU_ASSERT_EQUAL(tfs_operation_output_type((tfs_output){f, 0}),
                    TFS_FLOAT);
    /* the input's Cast to bfloat16 alone is left */
    CU_ASSERT_EQUAL(ot_count(og, "Cast"), 1);
    CU_ASSERT_EQUAL(ot_count(og, "MatMul") + ot_count(og, "BiasAdd") +
                        ot_count(og, "Relu"),
                    0);
    check_closer(plain, og, &x, y, relu ? "Dense + Relu" : "Dense");
    tfs_graph_free(plain);
    tfs_graph_free(og);
    /* TensorFlow-loadable output keeps its ops */
    ot_config.tf_compatible = 1;
    tfs_cpu__set_bf16(1);
    og = ot_optimize(&x, 1, &y, 1, NULL);
    tfs_cpu__set_bf16(-1);
    CU_ASSERT_EQUAL(ot_count(og, "_TfsFusedMatMulFloatOut"), 0);
    tfs_graph_free(og);
    ot_teardown();
  }
}

/* A transformer's feed-forward: Dense, tanh-GELU (its Pow keeps it
 * float32 under AMP), MatMul (then Exp, float32).  The first product's
 * float32 bias and GELU join it (_TfsFusedMatMulFloatOut) and so does
 * the Cast to bfloat16 the second product reads (out_type bfloat16). */
static void test_remap_amp_float_out_cast(void) {
  static const int64_t kX[3] = {2, 5, 8}, kB[1] = {16};
  ot_setup();
  tfs_output x = tfs_op_placeholder(g, "x", TFS_FLOAT, kX, 3, st);
  int32_t flat[2] = {-1, 8};
  tfs_output m = tfs_op_matmul(g, "m", ot_reshape("r", x, flat, 2),
                               ot_matrix("w", 8, 16), 0, 0, st);
  tfs_output b = tfs_op_bias_add(g, "b", m, ot_const_shape("bias", kB, 1), st);
  tfs_output a = ot_gelu("gelu", b, OT_GELU_TANH, 0.5f);
  tfs_output y = tfs_op_unary(
      g, "Exp", "y",
      tfs_op_matmul(g, "m2", a, ot_matrix("w2", 16, 6), 0, 0, st), st);
  TFS_ASSERT_OK(st);
  tfs_graph *plain, *og;
  amp_optimize(&x, &y, &plain, &og);
  tfs_operation *f = the_float_out(og, "BiasAdd,GeluApproximate");
  CU_ASSERT_EQUAL(tfs_operation_output_type((tfs_output){f, 0}),
                  TFS_BFLOAT16);
  CU_ASSERT_EQUAL(tfs_operation_attr_type(f, "out_type", st), TFS_BFLOAT16);
  /* the input's, the second product's output's */
  CU_ASSERT_EQUAL(ot_count(og, "Cast"), 2);
  CU_ASSERT(noted("remapper", "_TfsFusedMatMulFloatOut+Cast -> "
                              "_TfsFusedMatMulFloatOut (bfloat16 out): 1"));
  check_closer(plain, og, &x, y, "Dense + GELU + Dense");
  tfs_graph_free(plain);
  tfs_graph_free(og);
  ot_teardown();
}

/* Multi-head attention under AMP (q, k and v from one input): the heads'
 * Transposes join the bfloat16 score and context products as they do
 * the float32 ones (_TfsPermutedBatchMatMul in bfloat16, BatchMatMulV2's
 * bits on the transposed copies). */
static void test_remap_amp_attention(void) {
  static const int64_t kIn[4] = {2, 12, 3, 8};
  static const int32_t kHeads[4] = {0, 2, 1, 3}, kKeys[4] = {0, 2, 3, 1};
  ot_setup();
  tfs_output x = tfs_op_placeholder(g, "x", TFS_FLOAT, kIn, 4, st);
  tfs_output k = tfs_op_mul(g, "k", x,
                            tfs_op_const_float(g, "ck", 0.5f, st), st);
  tfs_output v = tfs_op_mul(g, "v", x,
                            tfs_op_const_float(g, "cv", -0.7f, st), st);
  tfs_output s = ot_batch_matmul("scores", ot_transpose("qt", x, kHeads),
                                 ot_transpose("kt", k, kKeys), 0);
  tfs_output p = tfs_op_unary(g, "Softmax", "probs", s, st);
  tfs_output ctx =
      ot_batch_matmul("ctx", p, ot_transpose("vt", v, kHeads), 0);
  tfs_output y = tfs_op_unary(g, "Exp", "y",
                              ot_transpose("joined", ctx, kHeads), st);
  TFS_ASSERT_OK(st);
  tfs_graph *plain, *og;
  amp_optimize(&x, &y, &plain, &og);
  CU_ASSERT_EQUAL(ot_count(og, "Transpose"), 0);
  CU_ASSERT_EQUAL(ot_count(og, "_TfsPermutedBatchMatMul"), 2);
  CU_ASSERT_EQUAL(type_of(og, "scores"), TFS_BFLOAT16);
  CU_ASSERT_EQUAL(type_of(og, "joined"), TFS_BFLOAT16);
  check_closer(plain, og, &x, y, "attention");
  tfs_graph_free(plain);
  tfs_graph_free(og);
  ot_teardown();
}

const tfs_test_case tfs_optimizer_remap_amp_cases[] = {
    {"remap_amp_attention", test_remap_amp_attention},
    {"remap_amp_float_bias", test_remap_amp_float_bias},
    {"remap_amp_float_out_cast", test_remap_amp_float_out_cast},
    {"constfold_mul_conv_push_down", test_constfold_mul_conv_push_down},
    {"constfold_mul_conv_kept", test_constfold_mul_conv_kept},
    {"remap_amp_block", test_remap_amp_block},
    {"remap_amp_tf_compatible", test_remap_amp_tf_compatible},
    {NULL, NULL},
};
