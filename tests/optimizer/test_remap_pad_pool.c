/*
 * tests/optimizer/test_remap_pad_pool.c - the remapper's fold of a
 * constant Pad / PadV2 into the VALID MaxPool that alone reads it
 * (Keras's ZeroPadding2D before ResNet's and DenseNet's first pool): the
 * Pad goes, the pool takes EXPLICIT padding with the Pad's value
 * (_tfs_pad_value), the values are the two ops'.  Pads that are fetched,
 * that pad the channels, reach the window's size or are not constant, a
 * SAME pool, and a graph that must load in TensorFlow stay.
 */
#include <string.h>

#include "graph_builder/graph_internal.h"
#include "opttest.h"

static const int64_t kImg[4] = {2, 9, 8, 19};

/* A [4, 2] paddings constant of type dt (TFS_INT32 or TFS_INT64). */
static tfs_output paddings(const int64_t *p, tfs_dtype dt) {
  const int64_t dims[2] = {4, 2};
  tfs_tensor *t = tfs_tensor_new(dt, dims, 2, st);
  for (int i = 0; i < 8; i++) {
    if (dt == TFS_INT32)
      ((int32_t *)tfs_tensor_data(t))[i] = (int32_t)p[i];
    else
      ((int64_t *)tfs_tensor_data(t))[i] = p[i];
  }
  tfs_output o = tfs_op_const(g, "paddings", t, st);
  tfs_tensor_free(t);
  return o;
}

/* Pad (value NULL) or PadV2 (*value) "pad" of x by pd. */
static tfs_output pad(tfs_output x, tfs_output pd, const float *value) {
  tfs_op_desc *d = tfs_op_desc_new(g, value ? "PadV2" : "Pad", "pad");
  tfs_op_desc_add_input(d, x);
  tfs_op_desc_add_input(d, pd);
  if (value)
    tfs_op_desc_add_input(d, tfs_op_const_float(g, "value", *value, st));
  return (tfs_output){tfs_op_desc_finish(d, st), 0};
}

/* MaxPool "pool" of x: k x k, strides s, padding `padding`. */
static tfs_output maxpool(tfs_output x, int64_t k, int64_t s,
                          const char *padding) {
  const int64_t kv[4] = {1, k, k, 1}, sv[4] = {1, s, s, 1};
  tfs_op_desc *d = tfs_op_desc_new(g, "MaxPool", "pool");
  tfs_op_desc_add_input(d, x);
  tfs_op_desc_set_attr_int_list(d, "ksize", kv, 4);
  tfs_op_desc_set_attr_int_list(d, "strides", sv, 4);
  tfs_op_desc_set_attr_string(d, "padding", padding, strlen(padding));
  return (tfs_output){tfs_op_desc_finish(d, st), 0};
}

/* ResNet's 3x3 / 2 pool over a 1-pixel zero padding, an asymmetric
 * padding under a 3x3 / 1 pool, PadV2 with a negative value, int64
 * paddings: the pool alone remains, EXPLICIT with the Pad's sides and
 * value, the same values. */
static void test_remap_pad_maxpool(void) {
  static const struct {
    int64_t p[8];
    int64_t k, s;
    int v2;
    float value;
    tfs_dtype dt;
  } kCases[] = {
      {{0, 0, 1, 1, 1, 1, 0, 0}, 3, 2, 0, 0.0f, TFS_INT32},
      {{0, 0, 0, 2, 1, 0, 0, 0}, 3, 1, 0, 0.0f, TFS_INT64},
      {{0, 0, 1, 0, 0, 1, 0, 0}, 2, 2, 1, -2.5f, TFS_INT32},
      {{0, 0, 2, 2, 2, 2, 0, 0}, 3, 3, 1, 0.75f, TFS_INT64},
  };
  for (size_t i = 0; i < sizeof kCases / sizeof kCases[0]; i++) {
    ot_setup();
    tfs_output x = tfs_op_placeholder(g, "x", TFS_FLOAT, kImg, 4, st);
    tfs_output y = maxpool(pad(x, paddings(kCases[i].p, kCases[i].dt),
                               kCases[i].v2 ? &kCases[i].value : NULL),
                           kCases[i].k, kCases[i].s, "VALID");
    TFS_ASSERT_OK(st);
    tfs_graph *og = ot_optimize(&x, 1, &y, 1, "remap");
    CU_ASSERT_STRING_EQUAL(ot_type(og, "pool"), "MaxPool");
    CU_ASSERT_STRING_EQUAL(ot_type(og, "pad"), "(missing)");
    tfs_operation *op = tfs_graph_operation_by_name(og, "pool");
    CU_ASSERT_PTR_NOT_NULL_FATAL(op);
    size_t len = 0;
    const char *padding = tfs_attrs_get_string(&op->attrs, "padding", &len);
    CU_ASSERT(padding && len == 8 && memcmp(padding, "EXPLICIT", 8) == 0);
    int n = 0;
    const int64_t *ep =
        tfs_attrs_get_int_list(&op->attrs, "explicit_paddings", &n);
    CU_ASSERT_EQUAL_FATAL(n, 8);
    CU_ASSERT(memcmp(ep, kCases[i].p, sizeof kCases[i].p) == 0);
    float value = -99.0f;
    CU_ASSERT_EQUAL(tfs_attrs_get_float(&op->attrs, "_tfs_pad_value", &value),
                    0);
    CU_ASSERT_EQUAL(value, kCases[i].v2 ? kCases[i].value : 0.0f);
    const char *note = ot_summary(ot_entry("remapper"));
    if (!strstr(note, "Pad+MaxPool -> MaxPool (padding as values): 1"))
      fprintf(stderr, "\n  note: %s", note);
    CU_ASSERT_PTR_NOT_NULL(
        strstr(note, "Pad+MaxPool -> MaxPool (padding as values): 1"));
    ot_check_same(og, &x, 1, &y, 1, 0);
    tfs_graph_free(og);
    ot_teardown();
  }
}

/* The Pad stays: its output fetched too, the channels padded, a side as
 * wide as the window, paddings fed, a SAME pool, a graph that must load
 * in TensorFlow. */
static void test_remap_pad_maxpool_kept(void) {
  static const int64_t kResNet[8] = {0, 0, 1, 1, 1, 1, 0, 0},
                       kChannels[8] = {0, 0, 1, 1, 1, 1, 0, 1},
                       kWide[8] = {0, 0, 3, 0, 0, 0, 0, 0};
  for (int c = 0; c < 6; c++) {
    ot_setup();
    tfs_output x = tfs_op_placeholder(g, "x", TFS_FLOAT, kImg, 4, st);
    const int64_t pd_dims[2] = {4, 2};
    tfs_output pd =
        c == 3 ? tfs_op_placeholder(g, "paddings", TFS_INT32, pd_dims, 2, st)
               : paddings(c == 1 ? kChannels : c == 2 ? kWide : kResNet,
                          TFS_INT32);
    tfs_output p = pad(x, pd, NULL);
    tfs_output y = maxpool(p, 3, 2, c == 4 ? "SAME" : "VALID");
    TFS_ASSERT_OK(st);
    ot_config.tf_compatible = c == 5;
    tfs_output feeds[2] = {x, pd}, fetches[2] = {y, p};
    tfs_graph *og =
        ot_optimize(feeds, c == 3 ? 2 : 1, fetches, c == 0 ? 2 : 1, "remap");
    CU_ASSERT_STRING_EQUAL(ot_type(og, "pad"), "Pad");
    CU_ASSERT_PTR_NULL(strstr(ot_summary(ot_entry("remapper")),
                              "Pad+MaxPool"));
    tfs_operation *op = tfs_graph_operation_by_name(og, "pool");
    CU_ASSERT_PTR_NULL(op ? tfs_attrs_find(&op->attrs, "_tfs_pad_value")
                          : NULL);
    if (c != 3) ot_check_same(og, &x, 1, &y, 1, 0);
    tfs_graph_free(og);
    ot_teardown();
  }
}

const tfs_test_case tfs_optimizer_remap_pad_pool_cases[] = {
    {"remap_pad_maxpool", test_remap_pad_maxpool},
    {"remap_pad_maxpool_kept", test_remap_pad_maxpool_kept},
    {NULL, NULL},
};
