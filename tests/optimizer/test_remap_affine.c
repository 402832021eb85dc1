/*
 * tests/optimizer/test_remap_affine.c - the remapper's fold of a scalar
 * affine map into the convolution that reads it (Keras's Rescaling before
 * a model's first convolution): Mul and/or Add, AddV2 or Sub by float
 * scalar constants, either operand order, disappear into the
 * _FusedConv2D's _tfs_input_scale / _tfs_input_shift attrs with the
 * unfused graph's bits (SAME padding: the padding stays zero; a 1x1
 * convolution; a 3x3 one Winograd takes; a pool after it).  Maps read
 * elsewhere, of vector constants, on a depthwise convolution, or in a
 * graph that must load in TensorFlow stay.
 */
#include <string.h>

#include "opttest.h"

static const int64_t kImg[4] = {1, 9, 7, 24};

static tfs_output scalar(const char *name, float v) {
  tfs_tensor *t = tfs_tensor_new(TFS_FLOAT, NULL, 0, st);
  *(float *)tfs_tensor_data(t) = v;
  tfs_output o = tfs_op_const(g, name, t, st);
  tfs_tensor_free(t);
  return o;
}

/* x -> `op` (Conv2D: k x k, 24 -> 24 channels; DepthwiseConv2dNative:
 * k x k x 24 x 1; SAME, stride s) "c" + BiasAdd "conv" [+ Relu "act"]. */
static tfs_output conv_op(const char *op, tfs_output x, int64_t k, int64_t s,
                          int act) {
  const int dw = strcmp(op, "Conv2D") != 0;
  int64_t fd[4] = {k, k, 24, dw ? 1 : 24}, bd[1] = {24};
  int64_t sv[4] = {1, s, s, 1};
  tfs_op_desc *d = tfs_op_desc_new(g, op, "c");
  tfs_op_desc_add_input(d, x);
  tfs_op_desc_add_input(d, ot_const_shape("f", fd, 4));
  tfs_op_desc_set_attr_int_list(d, "strides", sv, 4);
  tfs_op_desc_set_attr_string(d, "padding", "SAME", 4);
  tfs_output c = {tfs_op_desc_finish(d, st), 0};
  c = tfs_op_bias_add(g, "conv", c, ot_const_shape("b", bd, 1), st);
  return act ? tfs_op_unary(g, "Relu", "act", c, st) : c;
}

static tfs_output conv(tfs_output x, int64_t k, int64_t s, int act) {
  return conv_op("Conv2D", x, k, s, act);
}

/* The map of case i on x: 0 x * s + t (Keras), 1 t + s * x, 2 x * s,
 * 3 x + t, 4 x - t. */
static tfs_output map(int i, tfs_output x) {
  tfs_output s = scalar("s", 1.0f / 127.5f), t = scalar("t", -1.0f);
  switch (i) {
    case 0:
      return tfs_op_add(g, "add", tfs_op_mul(g, "mul", x, s, st), t, st);
    case 1:
      return tfs_op_add(g, "add", t, tfs_op_mul(g, "mul", s, x, st), st);
    case 2:
      return tfs_op_mul(g, "mul", x, s, st);
    case 3:
      return tfs_op_add(g, "add", x, t, st);
    default:
      return tfs_op_sub(g, "add", x, scalar("u", 0.75f), st);
  }
}

static float attr_or(tfs_graph *og, const char *node, const char *attr,
                     float dflt) {
  tfs_operation *op = tfs_graph_operation_by_name(og, node);
  tfs_status *s = tfs_status_new();
  float v = op ? tfs_operation_attr_float(op, attr, s) : dflt;
  if (tfs_status_code(s) != TFS_OK) v = dflt;
  tfs_status_free(s);
  return v;
}

/* Every map form before a 3x3 SAME convolution (stride 1: Winograd's
 * shape; stride 2: the indirect GEMM on a padded copy), a 1x1 one, and
 * one whose output a 2x2 MaxPool reads: the map's nodes go, the attrs
 * hold its constants, the values are the unfused graph's. */
static void test_remap_input_affine(void) {
  static const char *const kNote[] = {
      "scalar Mul+Add -> convolution input: 1",
      "scalar Mul+Add -> convolution input: 1",
      "scalar Mul -> convolution input: 1",
      "scalar Add -> convolution input: 1",
      "scalar Add -> convolution input: 1"};
  for (int i = 0; i < 5; i++)
    for (int shape = 0; shape < 4; shape++) {
      ot_setup();
      tfs_output x = tfs_op_placeholder(g, "x", TFS_FLOAT, kImg, 4, st);
      tfs_output y = conv(map(i, x), shape == 1 ? 1 : 3, shape == 2 ? 2 : 1,
                          i % 2);
      const char *root = i % 2 ? "act" : "conv";
      if (shape == 3) {
        int64_t k[4] = {1, 2, 2, 1};
        tfs_op_desc *d = tfs_op_desc_new(g, "MaxPool", "pool");
        tfs_op_desc_add_input(d, y);
        tfs_op_desc_set_attr_int_list(d, "ksize", k, 4);
        tfs_op_desc_set_attr_int_list(d, "strides", k, 4);
        tfs_op_desc_set_attr_string(d, "padding", "VALID", 5);
        y = (tfs_output){tfs_op_desc_finish(d, st), 0};
        root = "pool";
      }
      TFS_ASSERT_OK(st);
      tfs_graph *og = ot_optimize(&x, 1, &y, 1, "remap");
      CU_ASSERT_STRING_EQUAL(ot_type(og, root), shape == 3
                                                    ? "_TfsFusedConv2DMaxPool"
                                                    : "_FusedConv2D");
      CU_ASSERT_EQUAL(ot_count(og, "Mul") + ot_count(og, "AddV2") +
                          ot_count(og, "Sub"),
                      0);
      float want_s = i == 3 || i == 4 ? -9 : 1.0f / 127.5f;
      float want_t = i == 2 ? -9 : i == 4 ? -0.75f : -1.0f;
      CU_ASSERT_EQUAL(attr_or(og, root, "_tfs_input_scale", -9), want_s);
      CU_ASSERT_EQUAL(attr_or(og, root, "_tfs_input_shift", -9), want_t);
      const char *note = ot_summary(ot_entry("remapper"));
      if (!strstr(note, kNote[i])) fprintf(stderr, "\n  note: %s", note);
      CU_ASSERT_PTR_NOT_NULL(strstr(note, kNote[i]));
      ot_check_same(og, &x, 1, &y, 1, 0);
      tfs_graph_free(og);
      ot_teardown();
    }
}

/* The map stays: its output also fetched, a vector constant, the
 * constant first in a Sub (t - x), before a depthwise convolution, and in
 * a graph that must load in TensorFlow. */
static void test_remap_input_affine_kept(void) {
  static const int64_t k24[1] = {24};
  for (int c = 0; c < 5; c++) {
    ot_setup();
    tfs_output x = tfs_op_placeholder(g, "x", TFS_FLOAT, kImg, 4, st);
    tfs_output s = c == 1 ? ot_const_shape("s", k24, 1) : scalar("s", 0.5f);
    tfs_output m = c == 2 ? tfs_op_sub(g, "mul", s, x, st)
                          : tfs_op_mul(g, "mul", x, s, st);
    tfs_output y = c == 3 ? conv_op("DepthwiseConv2dNative", m, 3, 1, 0)
                          : conv(m, 3, 2, 0);
    TFS_ASSERT_OK(st);
    ot_config.tf_compatible = c == 4;
    tfs_output fetches[2] = {y, m};
    tfs_graph *og = ot_optimize(&x, 1, fetches, c == 0 ? 2 : 1, "remap");
    CU_ASSERT_STRING_EQUAL(ot_type(og, "mul"), c == 2 ? "Sub" : "Mul");
    CU_ASSERT_EQUAL(attr_or(og, "conv", "_tfs_input_scale", -9), -9);
    CU_ASSERT_PTR_NULL(strstr(ot_summary(ot_entry("remapper")),
                              "convolution input"));
    ot_check_same(og, &x, 1, &y, 1, 0);
    tfs_graph_free(og);
    ot_teardown();
  }
}

const tfs_test_case tfs_optimizer_remap_affine_cases[] = {
    {"remap_input_affine", test_remap_input_affine},
    {"remap_input_affine_kept", test_remap_input_affine_kept},
    {NULL, NULL},
};
