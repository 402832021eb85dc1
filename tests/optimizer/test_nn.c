/*
 * tests/optimizer/test_nn.c - targeted tests of the remapper (each fused
 * pattern, batch norm folding, preserved inner nodes, TensorFlow-loadable
 * mode, the batch norms, swish and GELU subgraphs Keras 3 writes, a zero
 * Pad folded into the convolution after it), the
 * layout pass (NHWC -> NCHW and back, transposes cancelled)
 * and auto mixed precision (bfloat16 on a CPU that has it).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opttest.h"
#include "core/cpu.h"
#include "optimizer/optimizer.h"
#include "optimizer/remap_util.h"

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

/* A SAME convolution `type` named `name` of x by a constant filter
 * `fname` of dims fd, strides s x s. */
static tfs_output same_conv(const char *type, const char *name, tfs_output x,
                            const char *fname, const int64_t *fd,
                            int64_t s) {
  int64_t st4[4] = {1, s, s, 1};
  tfs_op_desc *d = tfs_op_desc_new(g, type, name);
  tfs_op_desc_add_input(d, x);
  tfs_op_desc_add_input(d, ot_const_shape(fname, fd, 4));
  tfs_op_desc_set_attr_int_list(d, "strides", st4, 4);
  tfs_op_desc_set_attr_string(d, "padding", "SAME", 4);
  return (tfs_output){tfs_op_desc_finish(d, st), 0};
}

/* x -> Conv2D (ck x ck, stride cs, 3 -> 6 channels) + BiasAdd "cb" [+
 * Relu6 "e" when act] -> DepthwiseConv2dNative (3x3, stride ds) + BiasAdd
 * + Relu6 "y"; *mid is the convolution's last op. */
static tfs_output conv_then_depthwise(tfs_output x, int64_t ck, int64_t cs,
                                      int act, int64_t ds, tfs_output *mid) {
  int64_t bd[1] = {6}, cf[4] = {ck, ck, 3, 6}, fd[4] = {3, 3, 6, 1};
  tfs_output c = same_conv("Conv2D", "conv", x, "cf", cf, cs);
  tfs_output e =
      tfs_op_bias_add(g, "cb", c, ot_const_shape("cbias", bd, 1), st);
  if (act) e = tfs_op_unary(g, "Relu6", "e", e, st);
  *mid = e;
  tfs_output dw = same_conv("DepthwiseConv2dNative", "dw", e, "dwf", fd, ds);
  tfs_output db =
      tfs_op_bias_add(g, "db", dw, ot_const_shape("dbias", bd, 1), st);
  return tfs_op_unary(g, "Relu6", "y", db, st);
}

/* A 3x3 stride-1 convolution + BiasAdd, then a strided depthwise
 * convolution + BiasAdd + Relu6: two fused ops (Winograd may take the
 * convolution, so the two stay apart). */
static void test_optimizer_remap__conv_bias_and_depthwise(void) {
  ot_setup();
  tfs_output x = ot_placeholder("x", 4), mid;
  tfs_output y = conv_then_depthwise(x, 3, 1, 0, 2, &mid);
  TFS_ASSERT_OK(st);
  tfs_graph *og = ot_optimize(&x, 1, &y, 1, "remap");
  CU_ASSERT_STRING_EQUAL(ot_type(og, "cb"), "_FusedConv2D");
  CU_ASSERT_STRING_EQUAL(ot_type(og, "y"), "_FusedDepthwiseConv2dNative");
  ot_check_same(og, &x, 1, &y, 1, 1);
  tfs_graph_free(og);
  ot_teardown();
}

/* A convolution whose output only feeds a depthwise convolution, both
 * with a bias and Relu6, becomes one _TfsFusedConv2DDepthwise with the
 * same values when its filter is 1x1 (k 0) or strided (k 4); a 3x3
 * stride-1 filter (Winograd's), the convolution's output fetched too and
 * TensorFlow-loadable output keep the two ops. */
static void test_optimizer_remap__conv_depthwise(void) {
  for (int k = 0; k < 5; k++) {
    ot_setup();
    tfs_output x = ot_placeholder("x", 4), fetches[2]; /* [1, 5, 5, 3] */
    fetches[0] = conv_then_depthwise(x, k == 0 ? 1 : 3, k == 4 ? 2 : 1, 1,
                                     1, &fetches[1]);
    int nf = k == 2 ? 2 : 1, fused = k == 0 || k == 4;
    TFS_ASSERT_OK(st);
    ot_config.tf_compatible = k == 3;
    tfs_graph *og = ot_optimize(&x, 1, fetches, nf, "remap");
    /* TensorFlow-loadable: no _FusedDepthwiseConv2dNative either */
    CU_ASSERT_STRING_EQUAL(ot_type(og, "y"),
                           fused    ? "_TfsFusedConv2DDepthwise"
                           : k == 3 ? "Relu6"
                                    : "_FusedDepthwiseConv2dNative");
    CU_ASSERT_EQUAL(ot_count(og, "_FusedConv2D"), fused ? 0 : 1);
    const char *note = strstr(ot_summary(ot_entry("remapper")),
                              "_FusedConv2D+_FusedDepthwiseConv2dNative -> "
                              "_TfsFusedConv2DDepthwise: 1");
    CU_ASSERT_EQUAL(note != NULL, fused);
    ot_check_same(og, &x, 1, fetches, nf, 1);
    tfs_graph_free(og);
    ot_teardown();
  }
}

/* Pad(x, paddings) of a [4, 2] int32 constant; PadV2 with constant cv
 * when v2. */
static tfs_output pad_of(const char *name, tfs_output x, const int32_t *p,
                         int v2, float cv) {
  int64_t pd[2] = {4, 2};
  char n[64];
  snprintf(n, sizeof n, "%s_paddings", name);
  tfs_tensor *t = tfs_tensor_new(TFS_INT32, pd, 2, st);
  memcpy(tfs_tensor_data(t), p, sizeof(int32_t) * 8);
  tfs_output pc = tfs_op_const(g, n, t, st);
  tfs_tensor_free(t);
  tfs_op_desc *d = tfs_op_desc_new(g, v2 ? "PadV2" : "Pad", name);
  tfs_op_desc_add_input(d, x);
  tfs_op_desc_add_input(d, pc);
  if (v2) tfs_op_desc_add_input(d, tfs_op_const_float(g, NULL, cv, st));
  tfs_operation *op = tfs_op_desc_finish(d, st);
  return (tfs_output){op, op ? 0 : -1};
}

/* A 3x3 Conv2D (3 -> 4 channels) or DepthwiseConv2dNative of x with
 * `padding` (explicit: its 8 explicit_paddings) and stride s. */
static tfs_output conv_pad(const char *op, const char *name, tfs_output x,
                           const char *padding, const int64_t *explicit_pads,
                           int64_t s) {
  int depthwise = strcmp(op, "DepthwiseConv2dNative") == 0;
  int64_t fd[4] = {3, 3, 3, depthwise ? 1 : 4}, sv[4] = {1, s, s, 1};
  char fname[64];
  snprintf(fname, sizeof fname, "%s_filter", name);
  tfs_op_desc *d = tfs_op_desc_new(g, op, name);
  tfs_op_desc_add_input(d, x);
  tfs_op_desc_add_input(d, ot_const_shape(fname, fd, 4));
  tfs_op_desc_set_attr_int_list(d, "strides", sv, 4);
  tfs_op_desc_set_attr_string(d, "padding", padding, strlen(padding));
  if (explicit_pads)
    tfs_op_desc_set_attr_int_list(d, "explicit_paddings", explicit_pads, 8);
  tfs_operation *o = tfs_op_desc_finish(d, st);
  return (tfs_output){o, o ? 0 : -1};
}

/* explicit_paddings of node `name` in og, space-separated. */
static const char *explicit_pads(tfs_graph *og, const char *name) {
  static char buf[128];
  buf[0] = 0;
  tfs_operation *op = tfs_graph_operation_by_name(og, name);
  const tfs_attr_value *v =
      op ? tfs_attrs_find(&op->attrs, "explicit_paddings") : NULL;
  size_t used = 0;
  for (int i = 0; v && v->is_list && i < v->u.list.n && used < sizeof buf;
       i++)
    used += (size_t)snprintf(buf + used, sizeof buf - used, "%s%lld",
                             i ? " " : "",
                             (long long)((const int64_t *)v->u.list.v)[i]);
  return buf;
}

/* A zero Pad of the spatial dimensions before a convolution becomes the
 * convolution's explicit padding (Keras's ZeroPadding2D before a strided
 * DepthwiseConv2D, which then fuses with its bias and Relu6; PadV2 with a
 * zero constant before a Conv2D that already had explicit padding): no
 * Pad is left and the outputs are the same. */
static void test_optimizer_arith__pad_into_conv(void) {
  static const int32_t corr[8] = {0, 0, 0, 1, 0, 1, 0, 0};
  static const int32_t both[8] = {0, 0, 1, 1, 2, 0, 0, 0};
  static const int64_t had[8] = {0, 0, 1, 0, 0, 1, 0, 0};
  ot_setup();
  tfs_output x = ot_placeholder("x", 4);
  tfs_output p = pad_of("zp", x, corr, 0, 0);
  tfs_output dw = conv_pad("DepthwiseConv2dNative", "dw", p, "VALID", NULL, 2);
  int64_t bd[1] = {3};
  tfs_output db =
      tfs_op_bias_add(g, "db", dw, ot_const_shape("dbias", bd, 1), st);
  tfs_output y = tfs_op_unary(g, "Relu6", "y", db, st);
  tfs_output p2 = pad_of("zp2", x, both, 1, 0);
  tfs_output y2 = conv_pad("Conv2D", "y2", p2, "EXPLICIT", had, 1);
  TFS_ASSERT_OK(st);
  tfs_output fetches[2] = {y, y2};
  tfs_graph *og = ot_optimize(&x, 1, fetches, 2, "arithmetic,remap");
  CU_ASSERT_EQUAL(ot_count(og, "Pad") + ot_count(og, "PadV2"), 0);
  CU_ASSERT_STRING_EQUAL(ot_type(og, "y"), "_FusedDepthwiseConv2dNative");
  CU_ASSERT_STRING_EQUAL(explicit_pads(og, "y"), "0 0 0 1 0 1 0 0");
  CU_ASSERT_STRING_EQUAL(ot_type(og, "y2"), "Conv2D");
  CU_ASSERT_STRING_EQUAL(explicit_pads(og, "y2"), "0 0 2 1 2 1 0 0");
  int e = ot_entry("arithmetic_optimizer");
  CU_ASSERT_PTR_NOT_NULL(strstr(
      ot_summary(e), "zero Pad folded into a convolution's padding: 2"));
  ot_check_same(og, &x, 1, fetches, 2, 0);
  tfs_graph_free(og);
  ot_teardown();
}

/* One Pad read by two convolutions (NASNet pads once for a cell's two
 * depthwise convolutions, of different windows): each takes the Pad as
 * its explicit padding and the Pad goes; a Pad read by a convolution and
 * a Relu stays for both. */
static void test_optimizer_arith__pad_shared(void) {
  static const int32_t corr[8] = {0, 0, 1, 2, 2, 1, 0, 0};
  ot_setup();
  tfs_output x = ot_placeholder("x", 4);
  tfs_output p = pad_of("zp", x, corr, 0, 0);
  tfs_output a = conv_pad("DepthwiseConv2dNative", "a", p, "VALID", NULL, 2);
  tfs_output b = conv_pad("Conv2D", "b", p, "VALID", NULL, 1);
  tfs_output q = pad_of("zq", x, corr, 0, 0);
  tfs_output c = conv_pad("Conv2D", "c", q, "VALID", NULL, 2);
  tfs_output r = tfs_op_unary(g, "Relu", "r", q, st);
  TFS_ASSERT_OK(st);
  tfs_output fetches[4] = {a, b, c, r};
  tfs_graph *og = ot_optimize(&x, 1, fetches, 4, "arithmetic");
  CU_ASSERT_STRING_EQUAL(ot_type(og, "zp"), "(missing)");
  CU_ASSERT_STRING_EQUAL(explicit_pads(og, "a"), "0 0 1 2 2 1 0 0");
  CU_ASSERT_STRING_EQUAL(explicit_pads(og, "b"), "0 0 1 2 2 1 0 0");
  CU_ASSERT_STRING_EQUAL(ot_type(og, "zq"), "Pad");
  CU_ASSERT_STRING_EQUAL(explicit_pads(og, "c"), "");
  ot_check_same(og, &x, 1, fetches, 4, 0);
  tfs_graph_free(og);
  ot_teardown();
}

/* What keeps the Pad: another consumer (fetched too), padding of the
 * channels, a nonzero PadV2 constant, a SAME convolution. */
static void test_optimizer_arith__pad_kept(void) {
  static const int32_t corr[8] = {0, 0, 0, 1, 0, 1, 0, 0};
  static const int32_t chans[8] = {0, 0, 1, 1, 1, 1, 0, 0};
  ot_setup();
  tfs_output x = ot_placeholder("x", 4);
  tfs_output p0 = pad_of("p0", x, corr, 0, 0);
  tfs_output y0 = conv_pad("DepthwiseConv2dNative", "y0", p0, "VALID", NULL, 2);
  tfs_output p1 = pad_of("p1", x, chans, 0, 0);
  tfs_output y1 = tfs_op_unary(g, "Relu", "y1", p1, st);
  tfs_output p2 = pad_of("p2", x, corr, 1, 1.0f);
  tfs_output y2 = conv_pad("Conv2D", "y2", p2, "VALID", NULL, 1);
  tfs_output p3 = pad_of("p3", x, corr, 0, 0);
  tfs_output y3 = conv_pad("Conv2D", "y3", p3, "SAME", NULL, 2);
  TFS_ASSERT_OK(st);
  tfs_output fetches[5] = {y0, p0, y1, y2, y3};
  tfs_graph *og = ot_optimize(&x, 1, fetches, 5, "arithmetic,remap");
  CU_ASSERT_EQUAL(ot_count(og, "Pad"), 3);
  CU_ASSERT_EQUAL(ot_count(og, "PadV2"), 1);
  CU_ASSERT_STRING_EQUAL(explicit_pads(og, "y0"), "");
  CU_ASSERT_STRING_EQUAL(explicit_pads(og, "y2"), "");
  CU_ASSERT_STRING_EQUAL(explicit_pads(og, "y3"), "");
  ot_check_same(og, &x, 1, fetches, 5, 0);
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

/* An inference batch norm after no contraction becomes x * s + o, which
 * is one _TfsScaleShift unless the output must load in TensorFlow. */
static void test_optimizer_remap__batch_norm_decomposed(void) {
  for (int tf = 0; tf < 2; tf++) {
    ot_setup();
    tfs_output x = ot_placeholder("x", 4);
    tfs_output t = tfs_op_unary(g, "Tanh", "t", x, st);
    tfs_output bn = batch_norm(t, "bn", 3, (tfs_output){NULL, -1});
    TFS_ASSERT_OK(st);
    ot_config.tf_compatible = tf;
    tfs_graph *og = ot_optimize(&x, 1, &bn, 1, "constfold,remap");
    CU_ASSERT_STRING_EQUAL(ot_type(og, "bn"), tf ? "AddV2" : "_TfsScaleShift");
    CU_ASSERT_EQUAL(ot_count(og, "Mul"), tf ? 1 : 0);
    CU_ASSERT_EQUAL(ot_count(og, "FusedBatchNormV3"), 0);
    ot_check_same(og, &x, 1, &bn, 1, 1);
    tfs_graph_free(og);
    ot_teardown();
  }
}

/* ---- Keras 3 export patterns ------------------------------------------------
 */

static tfs_output cf(float v) { return tfs_op_const_float(g, NULL, v, st); }

static tfs_output const_of(const char *name, const int64_t *dims, int rank,
                           const float *v) {
  tfs_tensor *t = tu_floats(dims, rank, v);
  tfs_output o = tfs_op_const(g, name, t, st);
  tfs_tensor_free(t);
  return o;
}

/* Whether a one-node graph of `op` runs on the CPU: `act` NULL builds
 * the activation op itself (features [2, 3]); else _FusedMatMul or
 * _FusedConv2D with fused_ops ["BiasAdd", act].  Tells the tests whether
 * the kernels a rewrite needs are there. */
static int kernel_runs(const char *op, const char *act) {
  tfs_graph *gk = tfs_graph_new();
  tfs_status *s = tfs_status_new();
  int conv = strcmp(op, "_FusedConv2D") == 0;
  int64_t xd[4] = {1, 2, 2, 2}, wd[4] = {1, 1, 2, 2}, bd[1] = {2};
  float v[8] = {0.5f, -1, 2, 0.25f, -0.75f, 1, 1.5f, -2};
  tfs_tensor *xt = tu_floats(conv ? xd : xd + 2, conv ? 4 : 2, v);
  tfs_tensor *wt = tu_floats(conv ? wd : xd + 2, conv ? 4 : 2, v);
  tfs_tensor *bt = tu_floats(bd, 1, v);
  tfs_op_desc *d = tfs_op_desc_new(gk, op, "k");
  tfs_op_desc_add_input(d, tfs_op_const(gk, "x", xt, s));
  if (act) {
    tfs_output b = tfs_op_const(gk, "b", bt, s);
    tfs_op_desc_add_input(d, tfs_op_const(gk, "w", wt, s));
    tfs_op_desc_add_input_list(d, &b, 1);
    const void *ops[2] = {"BiasAdd", act};
    size_t lens[2] = {7, strlen(act)};
    tfs_op_desc_set_attr_string_list(d, "fused_ops", ops, lens, 2);
    tfs_op_desc_set_attr_int(d, "num_args", 1);
  }
  if (conv) {
    int64_t strides[4] = {1, 1, 1, 1};
    tfs_op_desc_add_input_list(d, NULL, 0); /* host_args */
    tfs_op_desc_set_attr_int_list(d, "strides", strides, 4);
    tfs_op_desc_set_attr_string(d, "padding", "VALID", 5);
  }
  tfs_operation *k = tfs_op_desc_finish(d, s);
  int ok = 0;
  if (k) {
    tfs_session *sess = tfs_session_new(gk, NULL, s);
    tfs_output out = {k, 0};
    tfs_tensor *res = NULL;
    if (sess) tfs_session_run(sess, NULL, NULL, 0, &out, &res, 1, NULL, 0, s);
    ok = tfs_status_ok(s) && res;
    tfs_tensor_free(res);
    tfs_session_free(sess);
  }
  tfs_tensor_free(xt);
  tfs_tensor_free(wt);
  tfs_tensor_free(bt);
  tfs_status_free(s);
  tfs_graph_free(gk);
  return ok;
}

/* A batch norm as Keras 3 leaves it after constant folding: y * C1 + C2
 * (or - C2), C1 and C2 of shape [ch] or [1, ..., 1, ch]. */
static tfs_output affine(tfs_output y, const char *name, int64_t ch, int rank,
                         int sub, int const_first) {
  int64_t d[4] = {1, 1, 1, 1};
  d[rank - 1] = ch;
  float c1[16], c2[16];
  for (int j = 0; j < ch; j++) {
    c1[j] = (j % 2 ? -0.5f : 1.25f) + 0.1f * (float)j;
    c2[j] = 0.3f - 0.2f * (float)j;
  }
  char n[64];
  snprintf(n, sizeof n, "%s_mul", name);
  tfs_output m = tfs_op_mul(g, n, y, const_of(NULL, d, rank, c1), st);
  tfs_output k = const_of(NULL, d, rank, c2);
  if (sub) return tfs_op_sub(g, name, m, k, st);
  return const_first ? tfs_op_add(g, name, k, m, st)
                     : tfs_op_add(g, name, m, k, st);
}

static tfs_output depthwise(tfs_output x, const char *name, int64_t cin,
                            int64_t mult) {
  int64_t fd[4] = {3, 3, cin, mult}, s[4] = {1, 1, 1, 1};
  char fname[64];
  snprintf(fname, sizeof fname, "%s_filter", name);
  tfs_op_desc *d = tfs_op_desc_new(g, "DepthwiseConv2dNative", name);
  tfs_op_desc_add_input(d, x);
  tfs_op_desc_add_input(d, ot_const_shape(fname, fd, 4));
  tfs_op_desc_set_attr_int_list(d, "strides", s, 4);
  tfs_op_desc_set_attr_string(d, "padding", "SAME", 4);
  tfs_operation *op = tfs_op_desc_finish(d, st);
  return (tfs_output){op, op ? 0 : -1};
}

/* Keras 3 BatchNormalization after Conv2D (with and without bias),
 * DepthwiseConv2D and Dense (transpose_b, constant first): folded into
 * the weights and a BiasAdd, then fused with the activation. */
static void test_optimizer_remap__keras_batch_norm_folded(void) {
  static const struct {
    int op; /* 0 Conv2D, 1 conv without bias, 2 depthwise, 3 MatMul */
    int rank, sub, const_first;
    const char *act, *fused, *ops, *arith;
  } kCases[] = {
      {0, 1, 0, 0, "Relu", "_FusedConv2D", "BiasAdd,Relu",
       "constant scale/shift folded into weights and BiasAdd: 2"},
      {1, 4, 0, 1, "Relu", "_FusedConv2D", "BiasAdd,Relu",
       "Mul/Div folded into weights: 1; constant scale/shift folded into "
       "weights and BiasAdd: 1"},
      {2, 4, 1, 0, "Relu6", "_FusedDepthwiseConv2dNative", "BiasAdd,Relu6",
       "constant scale/shift folded into weights and BiasAdd: 2"},
      {3, 2, 0, 1, NULL, "_FusedMatMul", "BiasAdd",
       "constant scale/shift folded into weights and BiasAdd: 2"},
  };
  for (size_t i = 0; i < sizeof kCases / sizeof kCases[0]; i++) {
    ot_setup();
    int op = kCases[i].op;
    tfs_output x = ot_placeholder("x", op == 3 ? 2 : 4);
    int64_t ch = op == 2 ? 6 : 4, bd[1] = {ch};
    tfs_output c;
    if (op == 3) {
      c = tfs_op_matmul(g, "c", x, ot_matrix("w", 4, 3), 0, 1, st);
    } else if (op == 2) {
      c = depthwise(x, "c", 3, 2);
    } else {
      c = conv(x, "c", 3, 4, NULL);
    }
    tfs_output b =
        op == 1 ? c
                : tfs_op_bias_add(g, "b", c, ot_const_shape("bias", bd, 1), st);
    tfs_output y = affine(b, "bn", ch, kCases[i].rank, kCases[i].sub,
                          kCases[i].const_first);
    if (kCases[i].act) y = tfs_op_unary(g, kCases[i].act, "y", y, st);
    TFS_ASSERT_OK(st);
    tfs_graph *og = ot_optimize(&x, 1, &y, 1, "arithmetic,remap");
    const char *root = kCases[i].act ? "y" : "bn";
    CU_ASSERT_STRING_EQUAL(ot_type(og, root), kCases[i].fused);
    CU_ASSERT_STRING_EQUAL(ot_fused_ops(og, root), kCases[i].ops);
    CU_ASSERT_EQUAL(ot_count(og, "Mul") + ot_count(og, "AddV2") +
                        ot_count(og, "Sub") + ot_count(og, "BiasAdd"),
                    0);
    int e = ot_entry("arithmetic_optimizer");
    CU_ASSERT_PTR_NOT_NULL(strstr(ot_summary(e), kCases[i].arith));
    ot_check_same(og, &x, 1, &y, 1, 1);
    tfs_graph_free(og);
    ot_teardown();
  }
}

/* What must stop the folding: the BiasAdd fetched, the filter read by
 * another convolution, a scale that broadcasts the output to a bigger
 * shape. */
static void test_optimizer_remap__keras_batch_norm_kept(void) {
  for (int k = 0; k < 3; k++) {
    ot_setup();
    tfs_output x = ot_placeholder("x", 4); /* [1, 5, 5, 3] */
    int64_t bd[1] = {4};
    tfs_output c = conv(x, "c", 3, 4, NULL);
    tfs_output b =
        tfs_op_bias_add(g, "b", c, ot_const_shape("bias", bd, 1), st);
    tfs_output y, fetches[2];
    int nf = 1;
    if (k == 2) {
      int64_t d[4] = {2, 1, 1, 4};
      float s[8] = {1, 2, 3, 4, 5, 6, 7, 8};
      y = tfs_op_mul(g, "y", b, const_of("s", d, 4, s), st);
    } else {
      y = affine(b, "y", 4, 1, 0, 0);
    }
    if (k == 0) fetches[nf++] = b;
    if (k == 1) {
      int64_t s[4] = {1, 1, 1, 1};
      tfs_op_desc *d = tfs_op_desc_new(g, "Conv2D", "c2");
      tfs_op_desc_add_input(d, x);
      tfs_op_desc_add_input(
          d, (tfs_output){tfs_graph_operation_by_name(g, "c_filter"), 0});
      tfs_op_desc_set_attr_int_list(d, "strides", s, 4);
      tfs_op_desc_set_attr_string(d, "padding", "VALID", 5);
      fetches[nf++] = (tfs_output){tfs_op_desc_finish(d, st), 0};
    }
    fetches[0] = y;
    TFS_ASSERT_OK(st);
    tfs_graph *og = ot_optimize(&x, 1, fetches, nf, "arithmetic");
    CU_ASSERT_EQUAL(ot_count(og, "Mul"), 1);
    CU_ASSERT_STRING_EQUAL(ot_type(og, "b"), "BiasAdd");
    ot_check_same(og, &x, 1, fetches, nf, 1);
    tfs_graph_free(og);
    ot_teardown();
  }
}

/* activation attr of node `name` in og ("" when none) */
static const char *activation_of(tfs_graph *og, const char *name) {
  static char buf[32];
  tfs_operation *op = tfs_graph_operation_by_name(og, name);
  const tfs_attr_value *v =
      op ? tfs_attrs_find(&op->attrs, "activation") : NULL;
  snprintf(buf, sizeof buf, "%.*s", v ? (int)v->u.s.len : 0,
           v ? v->u.s.ptr : "");
  return buf;
}

/* A batch norm with no contraction before it (y * C1 + C2, as Keras 3
 * leaves it) and its activation: one _TfsScaleShift with the unfused
 * graph's bits.  Kept: the Add read elsewhere (then the Mul and Add alone
 * are fused, and the Relu stays), a scale that is not per channel, and
 * output that must load in TensorFlow. */
static void test_optimizer_remap__scale_shift(void) {
  static const struct {
    const char *act; /* NULL: the Add is the root */
    int const_first, fetch_add, bad_scale, tf;
    const char *root_type, *act_attr, *note;
  } kCases[] = {
      {"Relu", 0, 0, 0, 0, "_TfsScaleShift", "Relu",
       "Mul+Add+activation -> _TfsScaleShift: 1"},
      {"Relu6", 1, 0, 0, 0, "_TfsScaleShift", "Relu6",
       "Mul+Add+activation -> _TfsScaleShift: 1"},
      {NULL, 0, 0, 0, 0, "_TfsScaleShift", "Identity",
       "Mul+Add -> _TfsScaleShift: 1"},
      {"Relu", 0, 1, 0, 0, "Relu", "", "Mul+Add -> _TfsScaleShift: 1"},
      {"Relu", 0, 0, 1, 0, "Relu", "", NULL},
      {"Relu", 0, 0, 0, 1, "Relu", "", NULL},
  };
  for (size_t k = 0; k < sizeof kCases / sizeof kCases[0]; k++) {
    ot_setup();
    tfs_output x = ot_placeholder("x", 4); /* [1, 5, 5, 3] */
    tfs_output t = tfs_op_unary(g, "Tanh", "t", x, st);
    tfs_output a;
    if (kCases[k].bad_scale) {
      int64_t d[4] = {1, 5, 1, 3};
      a = tfs_op_add(g, "a",
                     tfs_op_mul(g, "a_mul", t, ot_const_shape("s", d, 4), st),
                     ot_const_shape("o", d + 3, 1), st);
    } else {
      a = affine(t, "a", 3, 1 + (int)(k % 4), 0, kCases[k].const_first);
    }
    tfs_output fetches[2];
    int nf = 1;
    fetches[0] = kCases[k].act ? tfs_op_unary(g, kCases[k].act, "r", a, st) : a;
    if (kCases[k].fetch_add) fetches[nf++] = a;
    TFS_ASSERT_OK(st);
    ot_config.tf_compatible = kCases[k].tf;
    tfs_graph *og = ot_optimize(&x, 1, fetches, nf, "remap");
    const char *root = kCases[k].act ? "r" : "a";
    CU_ASSERT_STRING_EQUAL(ot_type(og, root), kCases[k].root_type);
    CU_ASSERT_STRING_EQUAL(activation_of(og, root), kCases[k].act_attr);
    if (kCases[k].fetch_add) {
      CU_ASSERT_STRING_EQUAL(ot_type(og, "a"), "_TfsScaleShift");
      CU_ASSERT_STRING_EQUAL(activation_of(og, "a"), "Identity");
    }
    int fused = strcmp(ot_type(og, "a"), "_TfsScaleShift") == 0 ||
                strcmp(ot_type(og, root), "_TfsScaleShift") == 0;
    CU_ASSERT_EQUAL(ot_count(og, "Mul"), fused ? 0 : 1);
    if (kCases[k].note)
      CU_ASSERT_PTR_NOT_NULL(
          strstr(ot_summary(ot_entry("remapper")), kCases[k].note));
    ot_check_same(og, &x, 1, fetches, nf, 0);
    tfs_graph_free(og);
    ot_teardown();
  }
}

/* The activations as Keras 3 and tf.nn write them: swish (Mul by beta,
 * Sigmoid, Mul, and the IdentityN of its gradient), the exact GELU
 * (0.5 * x * Erfc(-x * (1/sqrt2))), the exact GELU of older TensorFlow
 * (0.5 * x * (1 + Erf(x / sqrt2))) and the tanh GELU (Pow(x, 3)).  The
 * root is named `name`; scale perturbs the leading 0.5 (the tests' wrong
 * constant). */
static tfs_output keras_swish(const char *name, tfs_output x) {
  tfs_output beta = cf(1.0f);
  tfs_output s =
      tfs_op_unary(g, "Sigmoid", NULL, tfs_op_mul(g, NULL, beta, x, st), st);
  tfs_output m = tfs_op_mul(g, NULL, x, s, st);
  tfs_output in[3] = {m, x, beta};
  tfs_op_desc *d = tfs_op_desc_new(g, "IdentityN", name);
  tfs_op_desc_add_input_list(d, in, 3);
  tfs_operation *op = tfs_op_desc_finish(d, st);
  return (tfs_output){op, 0};
}

/* Swish after Conv2D + BiasAdd and after MatMul + BiasAdd: fused with
 * "_MklSwish" when the fused kernel has it, else _TfsSwish after the
 * fused contraction; the IdentityN goes either way. */
static void test_optimizer_remap__keras_swish(void) {
  for (int k = 0; k < 3; k++) {
    ot_setup();
    int mm = k == 1;
    tfs_output x = ot_placeholder("x", mm ? 2 : 4);
    int64_t bd[1] = {4};
    tfs_output c = mm ? tfs_op_matmul(g, "c", x, ot_matrix("w", 3, 4), 0, 0, st)
                      : conv(x, "c", 3, 4, NULL);
    tfs_output b =
        tfs_op_bias_add(g, "b", c, ot_const_shape("bias", bd, 1), st);
    tfs_output a;
    if (k == 2) { /* x * Sigmoid(x), no IdentityN */
      a = tfs_op_mul(g, "act", tfs_op_unary(g, "Sigmoid", NULL, b, st), b, st);
    } else {
      a = keras_swish("act", b);
    }
    tfs_output y = tfs_op_identity(g, "y", a, st);
    TFS_ASSERT_OK(st);
    tfs_graph *og = ot_optimize(&x, 1, &y, 1, "arithmetic,remap");
    const char *fused = mm ? "_FusedMatMul" : "_FusedConv2D";
    if (kernel_runs(fused, "_MklSwish")) {
      CU_ASSERT_STRING_EQUAL(ot_type(og, "act"), fused);
      CU_ASSERT_STRING_EQUAL(ot_fused_ops(og, "act"), "BiasAdd,_MklSwish");
      CU_ASSERT_PTR_NULL(tfs_graph_operation_by_name(og, "b"));
    } else {
      CU_ASSERT_STRING_EQUAL(ot_type(og, "act"), "_TfsSwish");
      CU_ASSERT_STRING_EQUAL(ot_type(og, "b"), fused);
      CU_ASSERT_PTR_NOT_NULL(strstr(ot_summary(ot_entry("remapper")),
                                    "Sigmoid*x -> _TfsSwish: 1"));
    }
    CU_ASSERT_EQUAL(ot_count(og, "Sigmoid") + ot_count(og, "IdentityN") +
                        ot_count(og, "Mul"),
                    0);
    ot_check_same(og, &x, 1, &y, 1, 1);
    tfs_graph_free(og);
    ot_teardown();
  }
}

/* The GELU forms after MatMul + BiasAdd and on their own: _FusedMatMul
 * ["BiasAdd", "GeluExact" / "GeluApproximate"] when the fused kernel has
 * them, else _TfsGelu when it is registered with a kernel, else nothing
 * (an op without a kernel is never made). */
static void test_optimizer_remap__gelu(void) {
  int have_gelu = kernel_runs("_TfsGelu", NULL);
  for (int k = 0; k < 6; k++) {
    int form = k % 3, alone = k >= 3, approx = form == OT_GELU_TANH;
    const char *act = approx ? "GeluApproximate" : "GeluExact";
    ot_setup();
    tfs_output x = ot_placeholder("x", 2), b = x;
    if (!alone) {
      int64_t bd[1] = {4};
      tfs_output c = tfs_op_matmul(g, "c", x, ot_matrix("w", 3, 4), 0, 0, st);
      b = tfs_op_bias_add(g, "b", c, ot_const_shape("bias", bd, 1), st);
    }
    tfs_output y = ot_gelu("gelu", b, form, 0.5f);
    TFS_ASSERT_OK(st);
    tfs_graph *og = ot_optimize(&x, 1, &y, 1, "arithmetic,remap");
    if (!alone && kernel_runs("_FusedMatMul", act)) {
      CU_ASSERT_STRING_EQUAL(ot_type(og, "gelu"), "_FusedMatMul");
      char want[64];
      snprintf(want, sizeof want, "BiasAdd,%s", act);
      CU_ASSERT_STRING_EQUAL(ot_fused_ops(og, "gelu"), want);
      CU_ASSERT_EQUAL(ot_count(og, "MatMul") + ot_count(og, "BiasAdd"), 0);
    } else if (have_gelu) {
      CU_ASSERT_STRING_EQUAL(ot_type(og, "gelu"), "_TfsGelu");
      tfs_operation *op = tfs_graph_operation_by_name(og, "gelu");
      CU_ASSERT_EQUAL(tfs_operation_attr_bool(op, "approximate", st), approx);
      if (!alone) CU_ASSERT_STRING_EQUAL(ot_type(og, "b"), "_FusedMatMul");
    } else {
      CU_ASSERT_STRING_EQUAL(ot_type(og, "gelu"), "Mul");
    }
    if (have_gelu) {
      CU_ASSERT_EQUAL(ot_count(og, "Mul") + ot_count(og, "Erfc") +
                          ot_count(og, "Erf") + ot_count(og, "Tanh") +
                          ot_count(og, "Square") + ot_count(og, "Pow"),
                      0);
    }
    ot_check_same(og, &x, 1, &y, 1, 1);
    tfs_graph_free(og);
    ot_teardown();
  }
}

/* GELU lookalikes and blocked fusions: a wrong constant, a fetched inner
 * node, a BiasAdd read elsewhere too (the GELU may become one op, but not
 * part of the MatMul), and a TensorFlow-loadable graph. */
static void test_optimizer_remap__gelu_kept(void) {
  for (int k = 0; k < 4; k++) {
    ot_setup();
    tfs_output x = ot_placeholder("x", 2);
    int64_t bd[1] = {4};
    tfs_output c = tfs_op_matmul(g, "c", x, ot_matrix("w", 3, 4), 0, 0, st);
    tfs_output b =
        tfs_op_bias_add(g, "b", c, ot_const_shape("bias", bd, 1), st);
    tfs_output y = ot_gelu("gelu", b, OT_GELU_ERFC, k == 0 ? 0.6f : 0.5f);
    tfs_output fetches[2] = {y, b};
    int nf = 1;
    if (k == 1) {
      fetches[nf++] = (tfs_output){tfs_graph_operation_by_name(g, "erfc"), 0};
    }
    if (k == 2) fetches[nf++] = tfs_op_unary(g, "Relu", "r", b, st);
    ot_config.tf_compatible = k == 3;
    TFS_ASSERT_OK(st);
    tfs_graph *og = ot_optimize(&x, 1, fetches, nf, "remap");
    const char *want = k < 2 || k == 3                 ? "Mul"
                       : kernel_runs("_TfsGelu", NULL) ? "_TfsGelu"
                                                       : "Mul";
    CU_ASSERT_STRING_EQUAL(ot_type(og, "gelu"), want);
    CU_ASSERT_EQUAL(ot_count(og, "Erfc"), strcmp(want, "Mul") == 0);
    /* b stays for the Relu: MatMul + BiasAdd fuse alone */
    if (k == 2) CU_ASSERT_STRING_EQUAL(ot_type(og, "b"), "_FusedMatMul");
    ot_check_same(og, &x, 1, fetches, nf, 1);
    tfs_graph_free(og);
    ot_teardown();
  }
}

/* Keras 3's hard_swish: x * (Relu6(x + 3) / 6); with div 0 the older
 * form x * (Relu6(x + 3) * (1/6)). */
static tfs_output hard_swish(const char *name, tfs_output x, int div) {
  tfs_output r = tfs_op_unary(g, "Relu6", NULL,
                              tfs_op_add(g, NULL, x, cf(3.0f), st), st);
  tfs_output q = div ? tfs_op_realdiv(g, NULL, r, cf(6.0f), st)
                     : tfs_op_mul(g, NULL, r, cf(1.0f / 6.0f), st);
  return tfs_op_mul(g, name, x, q, st);
}

/* Hard-swish alone (inputs reaching both ends of Relu6: bit-identical to
 * the unfused graph), after Conv2D, DepthwiseConv2dNative and MatMul +
 * BiasAdd (fused with "_TfsHardSwish"), and left alone for TensorFlow. */
static void test_optimizer_remap__hard_swish(void) {
  for (int k = 0; k < 5; k++) {
    ot_setup();
    int mm = k == 3, compat = k == 4;
    tfs_output x = ot_placeholder("x", mm ? 2 : 4), in;
    int64_t ch = k == 2 ? 6 : 4, bd[1] = {ch};
    if (k == 0 || compat) {
      in = tfs_op_mul(g, "in", x, cf(4.0f), st);
    } else {
      tfs_output c = mm       ? tfs_op_matmul(g, "c", x, ot_matrix("w", 3, 4),
                                              0, 0, st)
                     : k == 2 ? depthwise(x, "c", 3, 2)
                              : conv(x, "c", 3, 4, NULL);
      in = tfs_op_bias_add(g, "b", c, ot_const_shape("bias", bd, 1), st);
    }
    tfs_output a = hard_swish("act", in, k % 2);
    tfs_output y = tfs_op_identity(g, "y", a, st);
    TFS_ASSERT_OK(st);
    ot_config.tf_compatible = compat;
    tfs_graph *og = ot_optimize(&x, 1, &y, 1, "remap");
    if (compat) {
      CU_ASSERT_STRING_EQUAL(ot_type(og, "act"), "Mul");
      CU_ASSERT_EQUAL(ot_count(og, "Relu6"), 1);
    } else if (k == 0) {
      CU_ASSERT_STRING_EQUAL(ot_type(og, "act"), "_TfsHardSwish");
      CU_ASSERT_PTR_NOT_NULL(strstr(ot_summary(ot_entry("remapper")),
                                    "x*Relu6(x+3)/6 -> _TfsHardSwish: 1"));
    } else {
      CU_ASSERT_STRING_EQUAL(ot_type(og, "act"),
                             mm       ? "_FusedMatMul"
                             : k == 2 ? "_FusedDepthwiseConv2dNative"
                                      : "_FusedConv2D");
      CU_ASSERT_STRING_EQUAL(ot_fused_ops(og, "act"), "BiasAdd,_TfsHardSwish");
      CU_ASSERT_PTR_NULL(tfs_graph_operation_by_name(og, "b"));
    }
    if (!compat)
      CU_ASSERT_EQUAL(ot_count(og, "Relu6") + ot_count(og, "RealDiv") +
                          ot_count(og, "AddV2") + ot_count(og, "Mul"),
                      k == 0); /* the input's Mul stays */
    ot_check_same(og, &x, 1, &y, 1, k == 0 || compat ? 0 : 1);
    tfs_graph_free(og);
    ot_teardown();
  }
}

/* An int32 vector constant. */
static tfs_output ivec(const char *name, const int32_t *v, int64_t n) {
  tfs_tensor *t = tfs_tensor_new(TFS_INT32, &n, 1, st);
  memcpy(tfs_tensor_data(t), v, sizeof(int32_t) * (size_t)n);
  tfs_output o = tfs_op_const(g, name, t, st);
  tfs_tensor_free(t);
  return o;
}

/* Keras's Dense on a 3-D input: MatMul, Reshape to [1,2,4], BiasAdd,
 * activation.  The arithmetic optimizer moves the BiasAdd and the
 * activation before the Reshape, so the remapper fuses the three (the
 * GELU in the second iteration, after it became _TfsGelu); the Reshape
 * takes the activation's name.  A Reshape that changes the last
 * dimension keeps the BiasAdd behind it. */
static void test_optimizer_remap__dense_3d(void) {
  static const int32_t s3[3] = {1, 2, 4}, s3b[3] = {1, 4, 2};
  for (int k = 0; k < 3; k++) {
    ot_setup();
    tfs_output x = ot_placeholder("x", 2);
    int64_t bd[1] = {k == 2 ? 2 : 4};
    tfs_output mm = tfs_op_matmul(g, "mm", x, ot_matrix("w", 3, 4), 0, 0, st);
    tfs_output r = tfs_op_reshape(g, "r", mm, ivec("s", k == 2 ? s3b : s3, 3),
                                  st);
    tfs_output b = tfs_op_bias_add(g, "b", r, ot_const_shape("bias", bd, 1),
                                   st);
    tfs_output a = k == 1 ? ot_gelu("act", b, OT_GELU_TANH, 0.5f)
                          : tfs_op_unary(g, "Relu", "act", b, st);
    tfs_output y = tfs_op_identity(g, "y", a, st);
    TFS_ASSERT_OK(st);
    tfs_graph *og = ot_optimize(&x, 1, &y, 1, NULL);
    if (k == 2) {
      CU_ASSERT_EQUAL(ot_count(og, "BiasAdd"), 1);
      CU_ASSERT_EQUAL(ot_count(og, "_FusedMatMul"), 0);
    } else {
      CU_ASSERT_STRING_EQUAL(ot_type(og, "act"), "Reshape");
      CU_ASSERT_EQUAL(ot_count(og, "_FusedMatMul"), 1);
      CU_ASSERT_EQUAL(ot_count(og, "BiasAdd"), 0);
      CU_ASSERT_EQUAL(ot_count(og, "Reshape"), 1);
      CU_ASSERT_STRING_EQUAL(
          ot_fused_ops(og, "ArithmeticOptimizer/SinkReshape_act"),
          k == 1 ? "BiasAdd,GeluApproximate" : "BiasAdd,Relu");
      /* the first iteration moves the BiasAdd (and the Relu); the GELU
       * moves in the second, once it is one op */
      CU_ASSERT_PTR_NOT_NULL(strstr(
          ot_summary(ot_entry("arithmetic_optimizer")),
          k == 1 ? "BiasAdd, activation or Cast moved before a Reshape: 1"
                 : "BiasAdd, activation or Cast moved before a Reshape: 2"));
    }
    ot_check_same(og, &x, 1, &y, 1, 1);
    tfs_graph_free(og);
    ot_teardown();
  }
}

/* Keras 3's LayerNormalization after constant folding (gamma and beta as
 * constants of shape [3]); `extra` gives the mean a consumer outside. */
static tfs_output layer_norm(const char *name, tfs_output x, int extra) {
  int64_t d[1] = {3};
  tfs_output ax = tfs_op_const_int32(g, NULL, -1, st);
  tfs_output mean = tfs_op_mean(g, "mean", x, ax, 1, st);
  tfs_output sqd =
      tfs_op_binary(g, "SquaredDifference", NULL, x, mean, st);
  tfs_output var = tfs_op_mean(g, NULL, sqd, ax, 1, st);
  tfs_output r = tfs_op_unary(
      g, "Rsqrt", NULL, tfs_op_add(g, NULL, var, cf(1e-3f), st), st);
  tfs_output m = tfs_op_mul(g, NULL, r, ot_const_shape("gamma", d, 1), st);
  tfs_output mul2 = tfs_op_mul(g, NULL, x, m, st);
  tfs_output mul1 =
      tfs_op_mul(g, NULL, tfs_op_unary(g, "Neg", NULL, mean, st), m, st);
  tfs_output add1 = tfs_op_add(g, NULL, mul1, ot_const_shape("beta", d, 1),
                               st);
  if (extra) tfs_op_identity(g, "mean_out", mean, st);
  return tfs_op_add(g, name, mul2, add1, st);
}

/* The layer norm subgraph becomes one _TfsLayerNorm with the same
 * values; a mean read elsewhere keeps it, as does TensorFlow-loadable
 * output. */
static void test_optimizer_remap__layer_norm(void) {
  for (int k = 0; k < 3; k++) {
    ot_setup();
    tfs_output x = ot_placeholder("x", 2);
    tfs_output y = tfs_op_identity(g, "y", layer_norm("ln", x, k == 1), st);
    TFS_ASSERT_OK(st);
    ot_config.tf_compatible = k == 2;
    tfs_graph *og = ot_optimize(&x, 1, &y, 1, "remap");
    if (k == 0) {
      CU_ASSERT_STRING_EQUAL(ot_type(og, "ln"), "_TfsLayerNorm");
      CU_ASSERT_EQUAL(ot_count(og, "Mean") + ot_count(og, "Rsqrt") +
                          ot_count(og, "Mul") + ot_count(og, "Neg"),
                      0);
      CU_ASSERT_PTR_NOT_NULL(strstr(ot_summary(ot_entry("remapper")),
                                    "layer normalization -> _TfsLayerNorm: 1"));
    } else {
      CU_ASSERT_STRING_EQUAL(ot_type(og, "ln"), "AddV2");
      CU_ASSERT_EQUAL(ot_count(og, "Mean"), 2);
    }
    ot_check_same(og, &x, 1, &y, 1, 1);
    tfs_graph_free(og);
    ot_teardown();
  }
}

/* A residual sum under the layer norm, AddV2(x, r), joins it:
 * _TfsAddLayerNorm (the sum's node gone, the values of the unfused
 * graph); left
 * alone: an r that broadcasts ([3] against [2,3]), a sum read elsewhere
 * too, TensorFlow-loadable output. */
static void test_optimizer_remap__layer_norm_residual(void) {
  for (int k = 0; k < 4; k++) {
    ot_setup();
    int64_t d[2] = {2, 3};
    tfs_output x = ot_placeholder("x", 2);
    tfs_output r = k == 1 ? ot_const_shape("r", d + 1, 1)
                          : tfs_op_placeholder(g, "r", TFS_FLOAT, d, 2, st);
    tfs_output sum = tfs_op_add(g, "sum", x, r, st);
    tfs_output y[2];
    y[0] = tfs_op_identity(g, "y", layer_norm("ln", sum, 0), st);
    if (k == 2) y[1] = tfs_op_identity(g, "sum_out", sum, st);
    TFS_ASSERT_OK(st);
    ot_config.tf_compatible = k == 3;
    tfs_output feeds[2] = {x, r};
    int nfeeds = k == 1 ? 1 : 2, nfetch = k == 2 ? 2 : 1;
    tfs_graph *og = ot_optimize(feeds, nfeeds, y, nfetch, "remap");
    const char *summary = ot_summary(ot_entry("remapper"));
    int fused = k == 0;
    CU_ASSERT_STRING_EQUAL(ot_type(og, "ln"), k == 3 ? "AddV2"
                                              : fused ? "_TfsAddLayerNorm"
                                                      : "_TfsLayerNorm");
    CU_ASSERT_STRING_EQUAL(ot_type(og, "sum"), fused ? "(missing)" : "AddV2");
    CU_ASSERT_EQUAL(
        strstr(summary, "residual sum -> _TfsAddLayerNorm: 1") != NULL,
        fused);
    if (fused) {
      tfs_operation *ln = tfs_graph_operation_by_name(og, "ln");
      CU_ASSERT_EQUAL(ln->ninputs, 4);
    }
    ot_check_same(og, feeds, nfeeds, y, nfetch, 1);
    tfs_graph_free(og);
    ot_teardown();
  }
}

/* How many of the three names are among the fused node's original
 * names (each counted once per entry). */
static int orig_hits(const tfs_operation *fused, const char *a,
                     const char *b, const char *c) {
  int seen = 0;
  for (int i = 0; i < fused->norig; i++)
    seen += !strcmp(fused->orig_names[i], a) +
            !strcmp(fused->orig_names[i], b) + !strcmp(fused->orig_names[i], c);
  return seen;
}

/* A Keras LSTM cell's gates on z = x W ([2,8]: two units): Split in
 * four, c = sigmoid(f) c_prev + sigmoid(i) tanh(g), h = sigmoid(o)
 * tanh(c). */
static tfs_output lstm_gates(tfs_output z, tfs_output cp, tfs_output *c) {
  tfs_op_desc *d = tfs_op_desc_new(g, "Split", "split");
  tfs_op_desc_add_input(d, tfs_op_const_int32(g, NULL, 1, st));
  tfs_op_desc_add_input(d, z);
  tfs_op_desc_set_attr_int(d, "num_split", 4);
  tfs_operation *sp = tfs_op_desc_finish(d, st);
  tfs_output s[4];
  for (int i = 0; i < 4; i++) s[i] = (tfs_output){sp, i};
  tfs_output ig = tfs_op_unary(g, "Sigmoid", NULL, s[0], st);
  tfs_output fg = tfs_op_unary(g, "Sigmoid", NULL, s[1], st);
  tfs_output gg = tfs_op_unary(g, "Tanh", NULL, s[2], st);
  tfs_output og = tfs_op_unary(g, "Sigmoid", NULL, s[3], st);
  *c = tfs_op_add(g, "c", tfs_op_mul(g, NULL, fg, cp, st),
                  tfs_op_mul(g, NULL, ig, gg, st), st);
  return tfs_op_mul(g, "h", og, tfs_op_unary(g, "Tanh", NULL, *c, st), st);
}

/* The gates become one _TfsLstmGates with the same bits, h and c both
 * read; c_prev of the gates' shape, broadcast into it, or broadcasting
 * them to a larger output; TensorFlow-loadable output keeps the ops. */
static void test_optimizer_remap__lstm_gates(void) {
  for (int k = 0; k < 4; k++) {
    ot_setup();
    tfs_output x = ot_placeholder("x", 2);
    tfs_output z = tfs_op_matmul(g, "z", x, ot_matrix("w", 3, 8), 0, 0, st);
    int64_t d1[1] = {2}, d3[3] = {3, 1, 2};
    tfs_output cp = k == 1 ? ot_const_shape("cp", d1, 1)
                  : k == 2 ? ot_const_shape("cp", d3, 3)
                           : tfs_op_matmul(g, "cp", x, ot_matrix("u", 3, 2),
                                           0, 0, st);
    tfs_output c, h = lstm_gates(z, cp, &c);
    tfs_output y[2] = {tfs_op_identity(g, "h_out", h, st),
                       tfs_op_identity(g, "c_out", c, st)};
    TFS_ASSERT_OK(st);
    ot_config.tf_compatible = k == 3;
    tfs_graph *og = ot_optimize(&x, 1, y, 2, "remap");
    if (k < 3) {
      CU_ASSERT_STRING_EQUAL(ot_type(og, "h"), "_TfsLstmGates");
      CU_ASSERT_EQUAL(ot_count(og, "Split") + ot_count(og, "Sigmoid") +
                          ot_count(og, "Tanh") + ot_count(og, "Mul") +
                          ot_count(og, "AddV2"),
                      0);
      CU_ASSERT_PTR_NOT_NULL(strstr(ot_summary(ot_entry("remapper")),
                                    "LSTM cell gates -> _TfsLstmGates: 1"));
      /* it stands for the ten nodes of the cell (step stats name them) */
      tfs_operation *fused = tfs_graph_operation_by_name(og, "h");
      CU_ASSERT_EQUAL_FATAL(fused->norig, 10);
      CU_ASSERT_EQUAL(orig_hits(fused, "split", "c", "h"), 3);
    } else {
      CU_ASSERT_STRING_EQUAL(ot_type(og, "h"), "Mul");
      CU_ASSERT_EQUAL(ot_count(og, "Sigmoid"), 3);
    }
    ot_check_same(og, &x, 1, y, 2, 0);
    tfs_graph_free(og);
    ot_teardown();
  }
}

/* An RNN cell's products, z = [BiasAdd](x W + h U) with constant W and
 * U ([2,3] x [3,8] and [2,4] x [4,8]), become one _TfsMatMulSum (with
 * the bias, and without it when the sum is read as it is); kept when a
 * product is transposed, when the weights' columns differ (they
 * broadcast), and when the output must load in TensorFlow. */
static void test_optimizer_remap__matmul_sum(void) {
  for (int k = 0; k < 5; k++) {
    ot_setup();
    tfs_output x = ot_placeholder("x", 2);
    tfs_output h = tfs_op_unary(g, "Tanh", "h",
                                tfs_op_matmul(g, "hx", x, ot_matrix("v", 3, 4),
                                              0, 0, st),
                                st);
    tfs_output xw = tfs_op_matmul(g, "xw", x, ot_matrix("w", 3, 8), 0, 0, st);
    tfs_output hu = k == 2 ? tfs_op_matmul(g, "hu", h, ot_matrix("u", 8, 4),
                                           0, 1, st)
                  : k == 3 ? tfs_op_matmul(g, "hu", h, ot_matrix("u", 4, 1),
                                           0, 0, st)
                           : tfs_op_matmul(g, "hu", h, ot_matrix("u", 4, 8),
                                           0, 0, st);
    tfs_output z = tfs_op_add(g, "z", xw, hu, st);
    int64_t bd[1] = {8};
    tfs_output y = k == 1 ? tfs_op_identity(g, "y", z, st)
                          : tfs_op_identity(
                                g, "y",
                                tfs_op_bias_add(g, "zb", z,
                                                ot_const_shape("bias", bd, 1),
                                                st),
                                st);
    TFS_ASSERT_OK(st);
    ot_config.tf_compatible = k == 4;
    tfs_graph *og = ot_optimize(&x, 1, &y, 1, "remap");
    const char *root = k == 1 ? "z" : "zb";
    if (k < 2) {
      CU_ASSERT_STRING_EQUAL(ot_type(og, root), "_TfsMatMulSum");
      CU_ASSERT_EQUAL(tfs_graph_operation_by_name(og, root)->ninputs,
                      k == 1 ? 4 : 5);
      CU_ASSERT_EQUAL(ot_count(og, "AddV2") + ot_count(og, "BiasAdd"), 0);
      CU_ASSERT_EQUAL(ot_count(og, "MatMul"), 1); /* h's own */
      CU_ASSERT_PTR_NOT_NULL(strstr(
          ot_summary(ot_entry("remapper")),
          k == 1 ? "MatMul+MatMul -> _TfsMatMulSum: 1"
                 : "MatMul+MatMul+BiasAdd -> _TfsMatMulSum: 1"));
      /* it stands for the products and the sum (step stats name them) */
      tfs_operation *fused = tfs_graph_operation_by_name(og, root);
      CU_ASSERT_EQUAL(orig_hits(fused, "xw", "hu", "z"), 3);
    } else {
      CU_ASSERT_EQUAL(ot_count(og, "_TfsMatMulSum"), 0);
      CU_ASSERT_STRING_EQUAL(ot_type(og, "z"), "AddV2");
    }
    /* one sum over both depths: within float rounding of the graph's */
    ot_check_same(og, &x, 1, &y, 1, k < 2 ? 1 : 0);
    tfs_graph_free(og);
    ot_teardown();
  }
}

/* The subgraph matcher itself, on the optimizer's graph (no kernel
 * needed): which activation, its input, how often the subgraph reads
 * it. */
static int match(const char *root, int *x_uses, const char **x_name) {
  tfs_oarena *ar = tfs_oarena__new();
  tfs_ograph og;
  tfs_og__init(&og, ar);
  int *map = malloc(sizeof(int) * (g->nops + 1));
  for (size_t i = 0; i < g->nops; i++) map[i] = -1;
  int kind = -1;
  if (tfs_og__import(&og, g, NULL, map, st) == 0) {
    tfs_remap_act a;
    int r = tfs_og__find(&og, root);
    kind = r >= 0 && tfs_remap__match_act(&og, r, &a) ? a.kind : 0;
    *x_uses = kind ? a.x_uses : 0;
    *x_name = kind ? og.n[a.x.node].name : "";
  }
  TFS_ASSERT_OK(st);
  free(map);
  tfs_og__clear(&og);
  tfs_oarena__free(ar);
  return kind;
}

static void test_optimizer_remap__match_activation_subgraphs(void) {
  ot_setup();
  tfs_output x = ot_placeholder("x", 2);
  tfs_op_identity(g, "y1",
                  keras_swish("swish_n", tfs_op_identity(g, "x1", x, st)), st);
  tfs_output x2 = tfs_op_identity(g, "x2", x, st);
  tfs_op_mul(g, "swish", x2, tfs_op_unary(g, "Sigmoid", NULL, x2, st), st);
  ot_gelu("g_erfc", tfs_op_identity(g, "x3", x, st), OT_GELU_ERFC, 0.5f);
  ot_gelu("g_erf", tfs_op_identity(g, "x4", x, st), OT_GELU_ERF, 0.5f);
  ot_gelu("g_tanh", tfs_op_identity(g, "x5", x, st), OT_GELU_TANH, 0.5f);
  ot_gelu("g_bad", tfs_op_identity(g, "x6", x, st), OT_GELU_TANH, 0.55f);
  hard_swish("hs", tfs_op_identity(g, "x8", x, st), 1);
  hard_swish("hs_mul", tfs_op_identity(g, "x9", x, st), 0);
  /* Relu6(x + 3) / 6 times another tensor is no hard-swish */
  tfs_output x10 = tfs_op_identity(g, "x10", x, st);
  tfs_op_mul(g, "hs_bad", tfs_op_identity(g, "x11", x, st),
             tfs_op_realdiv(g, NULL,
                            tfs_op_unary(g, "Relu6", NULL,
                                         tfs_op_add(g, NULL, x10, cf(3.0f), st),
                                         st),
                            cf(6.0f), st),
             st);
  /* the tanh GELU after ConvertPow: x * Square(x) */
  tfs_output x7 = tfs_op_identity(g, "x7", x, st);
  tfs_output cube =
      tfs_op_mul(g, NULL, x7, tfs_op_unary(g, "Square", NULL, x7, st), st);
  tfs_output inner = tfs_op_mul(
      g, NULL, cf(0.7978846f),
      tfs_op_add(g, NULL, x7, tfs_op_mul(g, NULL, cube, cf(0.044715f), st), st),
      st);
  tfs_op_mul(g, "g_square", tfs_op_mul(g, NULL, x7, cf(0.5f), st),
             tfs_op_add(g, NULL, tfs_op_unary(g, "Tanh", NULL, inner, st),
                        cf(1.0f), st),
             st);
  TFS_ASSERT_OK(st);
  static const struct {
    const char *root, *x;
    int kind, uses;
  } kWant[] = {
      {"swish_n", "x1", TFS_REMAP_ACT_SWISH, 3},
      {"swish", "x2", TFS_REMAP_ACT_SWISH, 2},
      {"g_erfc", "x3", TFS_REMAP_ACT_GELU_EXACT, 2},
      {"g_erf", "x4", TFS_REMAP_ACT_GELU_EXACT, 2},
      {"g_tanh", "x5", TFS_REMAP_ACT_GELU_TANH, 3},
      {"g_square", "x7", TFS_REMAP_ACT_GELU_TANH, 4},
      {"g_bad", "", 0, 0},
      {"hs", "x8", TFS_REMAP_ACT_HARD_SWISH, 2},
      {"hs_mul", "x9", TFS_REMAP_ACT_HARD_SWISH, 2},
      {"hs_bad", "", 0, 0},
  };
  for (size_t i = 0; i < sizeof kWant / sizeof kWant[0]; i++) {
    int uses;
    const char *xn;
    int kind = match(kWant[i].root, &uses, &xn);
    if (kind != kWant[i].kind)
      fprintf(stderr, "\n  %s: kind %d, expected %d\n", kWant[i].root, kind,
              kWant[i].kind);
    CU_ASSERT_EQUAL(kind, kWant[i].kind);
    if (uses != kWant[i].uses)
      fprintf(stderr, "\n  %s: x read %d times, expected %d\n", kWant[i].root,
              uses, kWant[i].uses);
    CU_ASSERT_EQUAL(uses, kWant[i].uses);
    CU_ASSERT_STRING_EQUAL(xn, kWant[i].x);
  }
  /* the Mul under an IdentityN that can end the subgraph does not match
   * on its own */
  tfs_operation *idn = tfs_graph_operation_by_name(g, "swish_n");
  tfs_output m = tfs_operation_input((tfs_input){idn, 0});
  int uses;
  const char *xn;
  CU_ASSERT_EQUAL(match(tfs_operation_name(m.oper), &uses, &xn), 0);
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
    {"remap_conv_depthwise", test_optimizer_remap__conv_depthwise},
    {"remap_conv_bias_and_depthwise",
     test_optimizer_remap__conv_bias_and_depthwise},
    {"arith_pad_into_conv", test_optimizer_arith__pad_into_conv},
    {"arith_pad_shared", test_optimizer_arith__pad_shared},
    {"arith_pad_kept", test_optimizer_arith__pad_kept},
    {"remap_hard_swish", test_optimizer_remap__hard_swish},
    {"remap_dense_3d", test_optimizer_remap__dense_3d},
    {"remap_scale_shift", test_optimizer_remap__scale_shift},
    {"remap_layer_norm", test_optimizer_remap__layer_norm},
    {"remap_layer_norm_residual", test_optimizer_remap__layer_norm_residual},
    {"remap_lstm_gates", test_optimizer_remap__lstm_gates},
    {"remap_matmul_sum", test_optimizer_remap__matmul_sum},
    {"remap_swish_and_batch_matmul",
     test_optimizer_remap__swish_and_batch_matmul},
    {"remap_batch_norm_decomposed",
     test_optimizer_remap__batch_norm_decomposed},
    {"remap_keras_batch_norm_folded",
     test_optimizer_remap__keras_batch_norm_folded},
    {"remap_keras_batch_norm_kept",
     test_optimizer_remap__keras_batch_norm_kept},
    {"remap_keras_swish", test_optimizer_remap__keras_swish},
    {"remap_gelu", test_optimizer_remap__gelu},
    {"remap_gelu_kept", test_optimizer_remap__gelu_kept},
    {"remap_match_activation_subgraphs",
     test_optimizer_remap__match_activation_subgraphs},
    {"layout_to_nchw_and_back", test_optimizer_layout__to_nchw_and_back},
    {"layout_nchw_to_nhwc", test_optimizer_layout__nchw_to_nhwc},
    {"amp_bfloat16_matmuls", test_optimizer_amp__bfloat16_matmuls},
    {NULL, NULL},
};
