/*
 * tests/optimizer/test_remap_add.c - the remapper on residual
 * connections (ResNet's blocks, MobileNetV2's and EfficientNet's
 * projections): AddV2 or Add of a _FusedConv2D with a bias only and a
 * tensor of its output's fully known shape joins the convolution's
 * epilogue as fused_ops ["BiasAdd", "Add"], an activation after it
 * joining too, with the unfused graph's bits.  Shapes not known or that
 * broadcast, a convolution read elsewhere, output that must load in
 * TensorFlow are left alone; a pool or a layout change after the rewrite
 * does not take the fused Add.
 */
#include <string.h>

#include "opttest.h"

static const int64_t kImg[4] = {1, 6, 5, 8};

/* A SAME k x k convolution of x (8 -> 8 channels, stride 1) by a
 * constant filter, + BiasAdd named `name` (the filter and bias named
 * after it). */
static tfs_output conv_bias(const char *name, tfs_output x, int64_t k) {
  int64_t fd[4] = {k, k, 8, 8}, bd[1] = {8}, s[4] = {1, 1, 1, 1};
  char fname[64], bname[64], cname[64];
  snprintf(fname, sizeof fname, "%s_f", name);
  snprintf(bname, sizeof bname, "%s_b", name);
  snprintf(cname, sizeof cname, "%s_conv", name);
  tfs_op_desc *d = tfs_op_desc_new(g, "Conv2D", cname);
  tfs_op_desc_add_input(d, x);
  tfs_op_desc_add_input(d, ot_const_shape(fname, fd, 4));
  tfs_op_desc_set_attr_int_list(d, "strides", s, 4);
  tfs_op_desc_set_attr_string(d, "padding", "SAME", 4);
  tfs_output c = {tfs_op_desc_finish(d, st), 0};
  return tfs_op_bias_add(g, name, c, ot_const_shape(bname, bd, 1), st);
}

static tfs_output add(const char *op, const char *name, tfs_output a,
                      tfs_output b) {
  tfs_op_desc *d = tfs_op_desc_new(g, op, name);
  tfs_op_desc_add_input(d, a);
  tfs_op_desc_add_input(d, b);
  return (tfs_output){tfs_op_desc_finish(d, st), 0};
}

/* x -> conv 3x3 + bias + Relu -> conv 1x1 + bias -> sum with x (on
 * either side, AddV2 or Add) [-> activation "out"]: two fused
 * convolutions, the second with ["BiasAdd", "Add"(, act)] and x as its
 * last input. */
static void test_remap_residual(void) {
  static const struct {
    const char *add, *act, *ops;
    int swap;
  } kCases[] = {
      {"AddV2", "Relu", "BiasAdd,Add,Relu", 0},
      {"AddV2", "Relu", "BiasAdd,Add,Relu", 1},
      {"Add", "Relu6", "BiasAdd,Add,Relu6", 0},
      {"AddV2", "Elu", "BiasAdd,Add,Elu", 1},
      {"AddV2", NULL, "BiasAdd,Add", 0},
  };
  for (size_t i = 0; i < sizeof kCases / sizeof kCases[0]; i++) {
    ot_setup();
    tfs_output x = tfs_op_placeholder(g, "x", TFS_FLOAT, kImg, 4, st);
    tfs_output h = tfs_op_unary(g, "Relu", "h", conv_bias("c1", x, 3), st);
    tfs_output p = conv_bias("c2", h, 1);
    tfs_output sum = kCases[i].swap ? add(kCases[i].add, "sum", p, x)
                                    : add(kCases[i].add, "sum", x, p);
    tfs_output out =
        kCases[i].act ? tfs_op_unary(g, kCases[i].act, "out", sum, st) : sum;
    TFS_ASSERT_OK(st);
    tfs_graph *og = ot_optimize(&x, 1, &out, 1, "remap");
    const char *root = kCases[i].act ? "out" : "sum";
    CU_ASSERT_STRING_EQUAL(ot_type(og, root), "_FusedConv2D");
    CU_ASSERT_STRING_EQUAL(ot_fused_ops(og, root), kCases[i].ops);
    CU_ASSERT_EQUAL(ot_count(og, "_FusedConv2D"), 2);
    CU_ASSERT_EQUAL(ot_count(og, kCases[i].add), 0);
    tfs_operation *r = tfs_graph_operation_by_name(og, root);
    CU_ASSERT_EQUAL_FATAL(tfs_operation_num_inputs(r), 4);
    tfs_output z = tfs_operation_input((tfs_input){r, 3});
    CU_ASSERT_STRING_EQUAL(tfs_operation_name(z.oper), "x");
    const char *note = ot_summary(ot_entry("remapper"));
    CU_ASSERT_PTR_NOT_NULL(
        strstr(note, "_FusedConv2D+AddV2 -> _FusedConv2D: 1"));
    ot_check_same(og, &x, 1, &out, 1, 0);
    tfs_graph_free(og);
    ot_teardown();
  }
}

/* The sums stay: the other operand of unknown batch or of a shape that
 * broadcasts, the convolution's output also fetched, tf_compatible (the
 * oneDNN form does not load in stock TensorFlow); and a fused Add the
 * remapper made is not pooled into _TfsFusedConv2DMaxPool nor converted
 * by a layout pass after it. */
static void test_remap_residual_kept(void) {
  static const int64_t kAnyBatch[4] = {-1, 6, 5, 8}, kRow[4] = {1, 1, 1, 8};
  for (int c = 0; c < 4; c++) {
    ot_setup();
    tfs_output x = tfs_op_placeholder(g, "x", TFS_FLOAT, kImg, 4, st);
    tfs_output z = tfs_op_placeholder(g, "z", TFS_FLOAT,
                                      c == 0 ? kAnyBatch : c == 1 ? kRow
                                                                  : kImg,
                                      4, st);
    tfs_output p = conv_bias("c", x, 3);
    tfs_output out = tfs_op_unary(g, "Relu", "out", add("AddV2", "sum", p, z),
                                  st);
    TFS_ASSERT_OK(st);
    ot_config.tf_compatible = c == 3;
    tfs_output feeds[2] = {x, z}, fetches[2] = {out, p};
    tfs_graph *og = ot_optimize(feeds, 2, fetches, c == 2 ? 2 : 1, "remap");
    CU_ASSERT_STRING_EQUAL(ot_type(og, "sum"), "AddV2");
    CU_ASSERT_STRING_EQUAL(ot_type(og, "out"), "Relu");
    CU_ASSERT_STRING_EQUAL(ot_fused_ops(og, "c"), "BiasAdd");
    CU_ASSERT_PTR_NULL(strstr(ot_summary(ot_entry("remapper")), "AddV2"));
    tfs_graph_free(og);
    ot_teardown();
  }
  /* Add, then a VALID 2x2 MaxPool; then a layout pass preferring NCHW */
  for (int layout = 0; layout < 2; layout++) {
    ot_setup();
    tfs_output x = tfs_op_placeholder(g, "x", TFS_FLOAT, kImg, 4, st);
    tfs_output z = tfs_op_placeholder(g, "z", TFS_FLOAT, kImg, 4, st);
    tfs_output sum = add("AddV2", "sum", conv_bias("c", x, 1), z);
    tfs_output out = sum;
    if (!layout) {
      int64_t k[4] = {1, 2, 2, 1};
      tfs_op_desc *d = tfs_op_desc_new(g, "MaxPool", "pool");
      tfs_op_desc_add_input(d, sum);
      tfs_op_desc_set_attr_int_list(d, "ksize", k, 4);
      tfs_op_desc_set_attr_int_list(d, "strides", k, 4);
      tfs_op_desc_set_attr_string(d, "padding", "VALID", 5);
      out = (tfs_output){tfs_op_desc_finish(d, st), 0};
    }
    TFS_ASSERT_OK(st);
    ot_config.layout = layout ? 2 : 0; /* NHWC_TO_NCHW */
    tfs_output feeds[2] = {x, z};
    tfs_graph *og =
        ot_optimize(feeds, 2, &out, 1, layout ? "remap,layout" : "remap");
    CU_ASSERT_STRING_EQUAL(ot_type(og, "sum"), "_FusedConv2D");
    CU_ASSERT_STRING_EQUAL(ot_fused_ops(og, "sum"), "BiasAdd,Add");
    if (!layout) CU_ASSERT_STRING_EQUAL(ot_type(og, "pool"), "MaxPool");
    CU_ASSERT_EQUAL(ot_count(og, "Transpose"), 0);
    ot_check_same(og, feeds, 2, &out, 1, 0);
    tfs_graph_free(og);
    ot_teardown();
  }
}

const tfs_test_case tfs_optimizer_remap_add_cases[] = {
    {"remap_residual", test_remap_residual},
    {"remap_residual_kept", test_remap_residual_kept},
    {NULL, NULL},
};
