/*
 * tests/optimizer/test_arith_dense.c - the arithmetic optimizer's dense
 * layers written as batched products (Keras's EinsumDense, the
 * projections of MultiHeadAttention): a BatchMatMulV2 by a constant matrix
 * becomes a MatMul between Reshapes, a constant bias added after the
 * heads are split becomes a BiasAdd before the split, and with the
 * remapper the two fuse into one _FusedMatMul; the values are the
 * unfused graph's.  A per-channel scale after such a layer (ConvNeXt's
 * LayerScale) folds into its weights.  A computed matrix, adj_x, a batch
 * of matrices, a bias that does not split the last dimension and a split
 * also read elsewhere stay.
 */
#include <stdio.h>
#include <string.h>

#include "opttest.h"

static const int64_t kX[3] = {2, 5, 12};

static tfs_output bmm(const char *name, tfs_output x, tfs_output y, int adj_x,
                      int adj_y) {
  tfs_op_desc *d = tfs_op_desc_new(g, "BatchMatMulV2", name);
  tfs_op_desc_add_input(d, x);
  tfs_op_desc_add_input(d, y);
  tfs_op_desc_set_attr_bool(d, "adj_x", adj_x);
  tfs_op_desc_set_attr_bool(d, "adj_y", adj_y);
  return (tfs_output){tfs_op_desc_finish(d, st), 0};
}

static tfs_output add(const char *name, tfs_output x, tfs_output y) {
  return tfs_op_binary(g, "AddV2", name, x, y, st);
}

/* q = x W (W [12, 8], or [8, 12] with adj_y), split into [2, 5, 2, 4]
 * heads, + b [2, 4] (or [1, 2, 4]): with the arithmetic pass the product
 * is a MatMul under Reshapes and the bias a BiasAdd before the split;
 * with the remapper after it, one _FusedMatMul.  The values either way. */
static void test_arith_dense_heads(void) {
  for (int c = 0; c < 4; c++) {
    const int adj_y = c & 1, lead = c >> 1;
    ot_setup();
    tfs_output x = tfs_op_placeholder(g, "x", TFS_FLOAT, kX, 3, st);
    const int64_t wd[2] = {adj_y ? 8 : 12, adj_y ? 12 : 8};
    tfs_output q = bmm("q", x, ot_const_shape("w", wd, 2), 0, adj_y);
    const int32_t heads[4] = {2, 5, 2, 4};
    tfs_output split = ot_reshape("split", q, heads, 4);
    const int64_t bd[3] = {1, 2, 4};
    tfs_output y =
        add("add", split,
            ot_const_shape("b", lead ? bd : bd + 1, lead ? 3 : 2));
    TFS_ASSERT_OK(st);
    tfs_graph *og = ot_optimize(&x, 1, &y, 1, "arithmetic");
    CU_ASSERT_EQUAL(ot_count(og, "BatchMatMulV2"), 0);
    CU_ASSERT_EQUAL(ot_count(og, "MatMul"), 1);
    CU_ASSERT_EQUAL(ot_count(og, "BiasAdd"), 1);
    CU_ASSERT_EQUAL(ot_count(og, "AddV2"), 0);
    CU_ASSERT_STRING_EQUAL(ot_type(og, "add"), "Reshape");
    const char *note = ot_summary(ot_entry("arithmetic_optimizer"));
    if (!strstr(note, "BatchMatMul by a constant matrix -> MatMul: 1") ||
        !strstr(note, "bias of split heads -> BiasAdd before the Reshape: 1"))
      fprintf(stderr, "\n  note: %s", note);
    CU_ASSERT_PTR_NOT_NULL(
        strstr(note, "BatchMatMul by a constant matrix -> MatMul: 1"));
    CU_ASSERT_PTR_NOT_NULL(strstr(
        note, "bias of split heads -> BiasAdd before the Reshape: 1"));
    ot_check_same(og, &x, 1, &y, 1, 1);
    tfs_graph_free(og);
    og = ot_optimize(&x, 1, &y, 1, "arithmetic,remap");
    CU_ASSERT_EQUAL(ot_count(og, "_FusedMatMul"), 1);
    CU_ASSERT_EQUAL(ot_count(og, "MatMul") + ot_count(og, "BiasAdd"), 0);
    ot_check_same(og, &x, 1, &y, 1, 1);
    tfs_graph_free(og);
    ot_teardown();
  }
}

/* Left alone: a computed matrix, adj_x, a batch of matrices, a bias
 * along the heads only ([2, 1]: not the split's last dims), a bias wider
 * than the last dimension ([5, 2, 4]), a split also fetched. */
static void test_arith_dense_kept(void) {
  ot_setup();
  tfs_output x = tfs_op_placeholder(g, "x", TFS_FLOAT, kX, 3, st);
  const int64_t wd[2] = {12, 8}, w3[3] = {2, 12, 8}, xt[3] = {2, 12, 5};
  tfs_output wf = tfs_op_placeholder(g, "wf", TFS_FLOAT, wd, 2, st);
  tfs_output xa = tfs_op_placeholder(g, "xa", TFS_FLOAT, xt, 3, st);
  tfs_output fetches[7];
  fetches[0] = bmm("computed", x, wf, 0, 0);
  fetches[1] = bmm("adj_x", xa, ot_const_shape("w1", wd, 2), 1, 0);
  fetches[2] = bmm("batched", x, ot_const_shape("w3", w3, 3), 0, 0);
  const int32_t heads[4] = {2, 5, 2, 4};
  const int64_t b1[2] = {2, 1}, b2[3] = {5, 2, 4}, b3[2] = {2, 4};
  fetches[3] = add("per_head", ot_reshape("s1", fetches[0], heads, 4),
                   ot_const_shape("b1", b1, 2));
  fetches[4] = add("wide", ot_reshape("s2", fetches[1], heads, 4),
                   ot_const_shape("b2", b2, 3));
  tfs_output s3 = ot_reshape("s3", fetches[2], heads, 4);
  fetches[5] = add("shared", s3, ot_const_shape("b3", b3, 2));
  fetches[6] = s3;
  TFS_ASSERT_OK(st);
  tfs_output feeds[3] = {x, wf, xa};
  tfs_graph *og = ot_optimize(feeds, 3, fetches, 7, "arithmetic");
  CU_ASSERT_STRING_EQUAL(ot_type(og, "computed"), "BatchMatMulV2");
  CU_ASSERT_STRING_EQUAL(ot_type(og, "adj_x"), "BatchMatMulV2");
  CU_ASSERT_STRING_EQUAL(ot_type(og, "batched"), "BatchMatMulV2");
  CU_ASSERT_STRING_EQUAL(ot_type(og, "per_head"), "AddV2");
  CU_ASSERT_STRING_EQUAL(ot_type(og, "wide"), "AddV2");
  CU_ASSERT_STRING_EQUAL(ot_type(og, "shared"), "AddV2");
  CU_ASSERT_EQUAL(ot_count(og, "MatMul") + ot_count(og, "BiasAdd"), 0);
  ot_check_same(og, feeds, 3, fetches, 7, 0);
  tfs_graph_free(og);
  ot_teardown();
}

/* Keras's Dense on a 3-D input (Reshape, MatMul, Reshape, BiasAdd)
 * followed by ConvNeXt's LayerScale, a Mul by one value per channel ([8],
 * or [1, 8]): the Mul moves before the Reshape with the BiasAdd and
 * folds into the weights and the bias, one MatMul and one BiasAdd left;
 * the values.  A scale that is not per channel ([5, 8]), or that is the
 * Mul's first input, stays. */
static void test_arith_dense_layer_scale(void) {
  for (int c = 0; c < 4; c++) {
    ot_setup();
    tfs_output x = tfs_op_placeholder(g, "x", TFS_FLOAT, kX, 3, st);
    const int32_t rows[2] = {-1, 12}, back[3] = {2, 5, 8};
    const int64_t wd[2] = {12, 8}, b[1] = {8}, s1[2] = {1, 8},
                  s2[2] = {5, 8};
    tfs_output mm = tfs_op_matmul(g, "mm", ot_reshape("rows", x, rows, 2),
                                  ot_const_shape("w", wd, 2), 0, 0, st);
    tfs_output y = ot_reshape("back", mm, back, 3);
    tfs_op_desc *d = tfs_op_desc_new(g, "BiasAdd", "bias");
    tfs_op_desc_add_input(d, y);
    tfs_op_desc_add_input(d, ot_const_shape("b", b, 1));
    y = (tfs_output){tfs_op_desc_finish(d, st), 0};
    tfs_output gamma = ot_const_shape("gamma", c == 1 ? s1 : c == 2 ? s2 : b,
                                      c == 1 || c == 2 ? 2 : 1);
    y = c == 3 ? tfs_op_mul(g, "scale", gamma, y, st)
               : tfs_op_mul(g, "scale", y, gamma, st);
    TFS_ASSERT_OK(st);
    tfs_graph *og = ot_optimize(&x, 1, &y, 1, "arithmetic");
    CU_ASSERT_EQUAL(ot_count(og, "MatMul"), 1);
    CU_ASSERT_EQUAL(ot_count(og, "BiasAdd"), 1);
    CU_ASSERT_EQUAL(ot_count(og, "Mul"), c >= 2);
    CU_ASSERT_STRING_EQUAL(ot_type(og, "scale"), c >= 2 ? "Mul" : "Reshape");
    ot_check_same(og, &x, 1, &y, 1, 1);
    tfs_graph_free(og);
    ot_teardown();
  }
}

const tfs_test_case tfs_optimizer_arith_dense_cases[] = {
    {"arith_dense_heads", test_arith_dense_heads},
    {"arith_dense_kept", test_arith_dense_kept},
    {"arith_dense_layer_scale", test_arith_dense_layer_scale},
    {NULL, NULL},
};
