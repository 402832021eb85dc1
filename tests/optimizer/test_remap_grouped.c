/*
 * tests/optimizer/test_remap_grouped.c - the remapper's grouped
 * convolutions with one input channel a group (Keras 3's
 * Conv2D(groups=channels), ConvNeXt's depthwise layers): they become
 * DepthwiseConv2dNative with the filter as [kh, kw, C, m] (a new constant,
 * or a Reshape of a fed filter) and their BiasAdd fuses into the depthwise
 * op; the values are the grouped convolution's.  Groups of two channels,
 * one channel, NCHW and an unknown channel count stay Conv2D.
 */
#include <string.h>

#include "graph_builder/graph_internal.h"
#include "opttest.h"

/* Conv2D "conv" of x by f: strides s, dilations d, padding `padding`,
 * data format `fmt`. */
static tfs_output conv(tfs_output x, tfs_output f, int64_t s, int64_t d,
                       const char *padding, const char *fmt) {
  const int nchw = strcmp(fmt, "NCHW") == 0;
  const int64_t sv[4] = {1, nchw ? 1 : s, nchw ? s : s, nchw ? s : 1};
  const int64_t dv[4] = {1, nchw ? 1 : d, d, nchw ? d : 1};
  tfs_op_desc *desc = tfs_op_desc_new(g, "Conv2D", "conv");
  tfs_op_desc_add_input(desc, x);
  tfs_op_desc_add_input(desc, f);
  tfs_op_desc_set_attr_int_list(desc, "strides", sv, 4);
  tfs_op_desc_set_attr_int_list(desc, "dilations", dv, 4);
  tfs_op_desc_set_attr_string(desc, "padding", padding, strlen(padding));
  tfs_op_desc_set_attr_string(desc, "data_format", fmt, strlen(fmt));
  return (tfs_output){tfs_op_desc_finish(desc, st), 0};
}

/* BiasAdd "bias" of x with a constant of n values. */
static tfs_output bias_add(tfs_output x, int64_t n) {
  tfs_op_desc *d = tfs_op_desc_new(g, "BiasAdd", "bias");
  tfs_op_desc_add_input(d, x);
  tfs_op_desc_add_input(d, ot_const_shape("b", &n, 1));
  return (tfs_output){tfs_op_desc_finish(d, st), 0};
}

static const char kNote[] = "grouped Conv2D -> DepthwiseConv2dNative: 1";

/* ConvNeXt's 7x7 (multiplier 1), a multiplier of 3 with stride 2 and
 * VALID padding, a dilated 3x3, each alone and under a BiasAdd (which
 * then fuses into the depthwise op): no Conv2D left, the filter's new
 * shape, the grouped convolution's values. */
static void test_remap_grouped_depthwise(void) {
  static const struct {
    int64_t img[4], k, m, s, d;
    const char *padding;
  } kCases[] = {
      {{1, 12, 11, 6}, 7, 1, 1, 1, "SAME"},
      {{2, 9, 10, 5}, 3, 3, 2, 1, "VALID"},
      {{1, 10, 10, 4}, 3, 2, 1, 2, "SAME"},
  };
  for (size_t i = 0; i < sizeof kCases / sizeof kCases[0]; i++)
    for (int with_bias = 0; with_bias < 2; with_bias++) {
      ot_setup();
      const int64_t ch = kCases[i].img[3];
      const int64_t fd[4] = {kCases[i].k, kCases[i].k, 1, ch * kCases[i].m};
      tfs_output x =
          tfs_op_placeholder(g, "x", TFS_FLOAT, kCases[i].img, 4, st);
      tfs_output y = conv(x, ot_const_shape("f", fd, 4), kCases[i].s,
                          kCases[i].d, kCases[i].padding, "NHWC");
      if (with_bias) y = bias_add(y, fd[3]);
      TFS_ASSERT_OK(st);
      tfs_graph *og = ot_optimize(&x, 1, &y, 1, "remap");
      CU_ASSERT_EQUAL(ot_count(og, "Conv2D"), 0);
      CU_ASSERT_STRING_EQUAL(ot_type(og, with_bias ? "bias" : "conv"),
                             with_bias ? "_FusedDepthwiseConv2dNative"
                                       : "DepthwiseConv2dNative");
      tfs_operation *op =
          tfs_graph_operation_by_name(og, with_bias ? "bias" : "conv");
      CU_ASSERT_PTR_NOT_NULL_FATAL(op);
      const tfs_output fo = op->inputs[1];
      const tfs_shape *fs = &fo.oper->out_shapes[fo.index];
      CU_ASSERT_EQUAL(fs->rank, 4);
      CU_ASSERT(fs->dims[2] == ch && fs->dims[3] == kCases[i].m);
      CU_ASSERT_STRING_EQUAL(fo.oper->def->name, "Const");
      const char *note = ot_summary(ot_entry("remapper"));
      if (!strstr(note, kNote)) fprintf(stderr, "\n  note: %s", note);
      CU_ASSERT_PTR_NOT_NULL(strstr(note, kNote));
      ot_check_same(og, &x, 1, &y, 1, 1);
      tfs_graph_free(og);
      ot_teardown();
    }
}

/* A fed filter: a Reshape of it to [3, 3, 4, 2] feeds the depthwise
 * convolution, the same values. */
static void test_remap_grouped_fed_filter(void) {
  ot_setup();
  const int64_t img[4] = {2, 8, 7, 4}, fd[4] = {3, 3, 1, 8};
  tfs_output x = tfs_op_placeholder(g, "x", TFS_FLOAT, img, 4, st);
  tfs_output f = tfs_op_placeholder(g, "f", TFS_FLOAT, fd, 4, st);
  tfs_output y = conv(x, f, 1, 1, "SAME", "NHWC");
  TFS_ASSERT_OK(st);
  tfs_output feeds[2] = {x, f};
  tfs_graph *og = ot_optimize(feeds, 2, &y, 1, "remap");
  CU_ASSERT_STRING_EQUAL(ot_type(og, "conv"), "DepthwiseConv2dNative");
  tfs_operation *op = tfs_graph_operation_by_name(og, "conv");
  CU_ASSERT_PTR_NOT_NULL_FATAL(op);
  CU_ASSERT_STRING_EQUAL(op->inputs[1].oper->def->name, "Reshape");
  const tfs_shape *fs = &op->inputs[1].oper->out_shapes[0];
  CU_ASSERT(fs->rank == 4 && fs->dims[2] == 4 && fs->dims[3] == 2);
  ot_check_same(og, feeds, 2, &y, 1, 1);
  tfs_graph_free(og);
  ot_teardown();
}

/* Conv2D stays: two channels a group, one input channel (an ordinary
 * convolution), NCHW, an unknown channel count. */
static void test_remap_grouped_kept(void) {
  for (int c = 0; c < 4; c++) {
    ot_setup();
    int64_t img[4] = {1, 8, 8, 6}, fd[4] = {3, 3, c == 0 ? 2 : 1, 6};
    if (c == 1) img[3] = 1;
    if (c == 2) img[1] = 6, img[3] = 8; /* NCHW: 6 channels */
    if (c == 3) img[3] = -1;
    tfs_output x = tfs_op_placeholder(g, "x", TFS_FLOAT, img, 4, st);
    tfs_output y = conv(x, ot_const_shape("f", fd, 4), 1, 1, "SAME",
                        c == 2 ? "NCHW" : "NHWC");
    TFS_ASSERT_OK(st);
    tfs_graph *og = ot_optimize(&x, 1, &y, 1, "remap");
    CU_ASSERT_STRING_EQUAL(ot_type(og, "conv"), "Conv2D");
    CU_ASSERT_PTR_NULL(strstr(ot_summary(ot_entry("remapper")),
                              "grouped Conv2D"));
    if (c < 2) ot_check_same(og, &x, 1, &y, 1, 0);
    tfs_graph_free(og);
    ot_teardown();
  }
}

const tfs_test_case tfs_optimizer_remap_grouped_cases[] = {
    {"remap_grouped_depthwise", test_remap_grouped_depthwise},
    {"remap_grouped_fed_filter", test_remap_grouped_fed_filter},
    {"remap_grouped_kept", test_remap_grouped_kept},
    {NULL, NULL},
};
