/*
 * tests/optimizer/test_attention.c - the remapper on multi-head
 * attention as Keras and tf.compat.v1 code write it: the heads' Transposes
 * around the score and context products become _TfsPermutedBatchMatMul
 * (with the score's scale), giving the unfused graph's bits; Transposes
 * read elsewhere, permutations that move the last dimension, and output
 * that must load in TensorFlow are left alone.
 */
#include <stdio.h>
#include <string.h>

#include "opttest.h"

static const int32_t kHeads[4] = {0, 2, 1, 3}, kKeys[4] = {0, 2, 3, 1};

static tfs_output head_input(const char *name) {
  int64_t d[4] = {2, 12, 3, 8}; /* batch, sequence, heads, depth */
  return tfs_op_placeholder(g, name, TFS_FLOAT, d, 4, st);
}

/* softmax(q k^T * scale) v with the heads split and joined by
 * Transposes; the keys either as [0, 2, 3, 1] or as [0, 2, 1, 3] read
 * with adj_y.  Everything is folded; the values are the bits of the
 * unfused graph. */
static void test_attention_folded(void) {
  for (int adj = 0; adj < 2; adj++) {
    ot_setup();
    tfs_output q = head_input("q"), k = head_input("k"), v = head_input("v");
    tfs_output qt = ot_transpose("qt", q, kHeads);
    tfs_output kt = ot_transpose("kt", k, adj ? kHeads : kKeys);
    tfs_output s = ot_batch_matmul("scores", qt, kt, adj);
    tfs_output sc = tfs_op_mul(g, "scaled", s,
                               tfs_op_const_float(g, "c", 0.35f, st), st);
    tfs_output p = tfs_op_unary(g, "Softmax", "probs", sc, st);
    tfs_output vt = ot_transpose("vt", v, kHeads);
    tfs_output ctx = ot_batch_matmul("ctx", p, vt, 0);
    tfs_output out = ot_transpose("joined", ctx, kHeads);
    TFS_ASSERT_OK(st);
    tfs_output feeds[3] = {q, k, v};
    tfs_graph *og = ot_optimize(feeds, 3, &out, 1, "remap");
    CU_ASSERT_EQUAL(ot_count(og, "Transpose"), 0);
    CU_ASSERT_EQUAL(ot_count(og, "_TfsPermutedBatchMatMul"), 2);
    CU_ASSERT_STRING_EQUAL(ot_type(og, "scaled"), "_TfsPermutedBatchMatMul");
    CU_ASSERT_STRING_EQUAL(ot_type(og, "joined"), "_TfsPermutedBatchMatMul");
    CU_ASSERT_STRING_EQUAL(ot_type(og, "ctx"), "(missing)");
    const char *note = ot_summary(ot_entry("remapper"));
    CU_ASSERT_PTR_NOT_NULL(strstr(
        note, "Transpose(BatchMatMul) -> _TfsPermutedBatchMatMul: 1"));
    CU_ASSERT_PTR_NOT_NULL(strstr(
        note, "BatchMatMul(Transpose) -> _TfsPermutedBatchMatMul: 1"));
    ot_check_same(og, feeds, 3, &out, 1, 0);
    tfs_graph_free(og);
    ot_teardown();
  }
}

/* A Transpose also fetched, a permutation that moves the last dimension
 * out of the matrix, and an output permutation that moves it: those
 * Transposes stay (the fetched one feeds the product's rewrite no more);
 * with tf_compatible nothing changes. */
static void test_attention_kept(void) {
  static const int32_t kMoves[4] = {3, 1, 2, 0}, kSwap[4] = {0, 1, 3, 2};
  for (int compat = 0; compat < 2; compat++) {
    ot_setup();
    tfs_output q = head_input("q"), k = head_input("k");
    tfs_output qt = ot_transpose("qt", q, kHeads);
    tfs_output kt = ot_transpose("kt", k, kKeys);
    tfs_output s = ot_batch_matmul("scores", qt, kt, 0); /* qt also fetched */
    tfs_output out = ot_transpose("swapped", s, kSwap);
    tfs_output m = ot_transpose("moved", q, kMoves); /* [8, 12, 3, 2] */
    tfs_output s2 = ot_batch_matmul("s2", m, ot_transpose("mt", k, kMoves), 1);
    TFS_ASSERT_OK(st);
    ot_config.tf_compatible = compat;
    tfs_output feeds[2] = {q, k}, fetches[3] = {out, qt, s2};
    tfs_graph *og = ot_optimize(feeds, 2, fetches, 3, "remap");
    /* compat: all five; else kt folds into the scores' product */
    CU_ASSERT_EQUAL(ot_count(og, "Transpose"), compat ? 5 : 4);
    CU_ASSERT_STRING_EQUAL(ot_type(og, "scores"),
                           compat ? "BatchMatMulV2"
                                  : "_TfsPermutedBatchMatMul");
    CU_ASSERT_STRING_EQUAL(ot_type(og, "swapped"), "Transpose");
    CU_ASSERT_STRING_EQUAL(ot_type(og, "s2"), "BatchMatMulV2");
    ot_check_same(og, feeds, 2, fetches, 3, 0);
    tfs_graph_free(og);
    ot_teardown();
  }
}

/* Einsum "name" of x and y by equation eq. */
static tfs_output einsum(const char *name, const char *eq, tfs_output x,
                         tfs_output y) {
  tfs_op_desc *d = tfs_op_desc_new(g, "Einsum", name);
  tfs_output in[2] = {x, y};
  tfs_op_desc_add_input_list(d, in, 2);
  tfs_op_desc_set_attr_string(d, "equation", eq, strlen(eq));
  return (tfs_output){tfs_op_desc_finish(d, st), 0};
}

/* keras.layers.MultiHeadAttention's Einsums: the scores
 * "aecd,abcd->acbe" (keys first) with their scale, and the context
 * "acbe,aecd->abcd": each becomes one _TfsPermutedBatchMatMul reading
 * the heads where they lie (the scale joined), no Einsum or Transpose
 * left, the Einsums' values; also "bhqd,bhkd->bhqk" (the second side read
 * transposed) and a plain "bij,bjk->bik". */
static void test_attention_einsum(void) {
  ot_setup();
  tfs_output q = head_input("q"), k = head_input("k"), v = head_input("v");
  tfs_output s = einsum("scores", "aecd,abcd->acbe", k, q);
  tfs_output sc = tfs_op_mul(g, "scaled", s,
                             tfs_op_const_float(g, "c", 0.35f, st), st);
  tfs_output p = tfs_op_unary(g, "Softmax", "probs", sc, st);
  tfs_output ctx = einsum("ctx", "acbe,aecd->abcd", p, v);
  tfs_output qt = ot_transpose("qt", q, kHeads); /* [2, 3, 12, 8] */
  tfs_output kt = ot_transpose("kt", k, kHeads);
  tfs_output s2 = einsum("s2", "bhqd,bhkd->bhqk", qt, kt);
  const int32_t rs[3] = {6, 12, 8};
  tfs_output plain = einsum("plain", "bij,bjk->bik", ot_reshape("q3", q, rs, 3),
                            ot_const_shape("w", (int64_t[]){6, 8, 5}, 3));
  TFS_ASSERT_OK(st);
  tfs_output feeds[3] = {q, k, v}, fetches[3] = {ctx, s2, plain};
  tfs_graph *og = ot_optimize(feeds, 3, fetches, 3, "remap");
  CU_ASSERT_EQUAL(ot_count(og, "Einsum"), 0);
  CU_ASSERT_STRING_EQUAL(ot_type(og, "scaled"), "_TfsPermutedBatchMatMul");
  CU_ASSERT_STRING_EQUAL(ot_type(og, "ctx"), "_TfsPermutedBatchMatMul");
  CU_ASSERT_STRING_EQUAL(ot_type(og, "plain"), "BatchMatMulV2");
  /* the heads' Transposes of s2's inputs fold too */
  CU_ASSERT_EQUAL(ot_count(og, "Transpose"), 0);
  const char *note = ot_summary(ot_entry("remapper"));
  if (!strstr(note, "Einsum -> BatchMatMulV2 (+ Transposes): 4"))
    fprintf(stderr, "\n  note: %s", note);
  CU_ASSERT_PTR_NOT_NULL(
      strstr(note, "Einsum -> BatchMatMulV2 (+ Transposes): 4"));
  ot_check_same(og, feeds, 3, fetches, 3, 1);
  tfs_graph_free(og);
  ot_teardown();
}

/* Einsums left alone: an ellipsis, two free labels on one side, a label
 * summed over one input, an outer product, int32, and any with
 * tf_compatible. */
static void test_attention_einsum_kept(void) {
  static const char *const kEq[] = {"...ij,...jk->...ik", "abc,cd->abd",
                                    "bij,bjk->bk", "ij,kl->ijkl"};
  for (int compat = 0; compat < 2; compat++) {
    ot_setup();
    const int32_t rs[3] = {6, 12, 8};
    tfs_output x = ot_reshape("x3", head_input("x"), rs, 3); /* [6, 12, 8] */
    tfs_output w = ot_const_shape("w", (int64_t[]){6, 8, 5}, 3);
    tfs_output w2 = ot_const_shape("w2", (int64_t[]){8, 5}, 2);
    tfs_output m = ot_const_shape("m", (int64_t[]){2, 3}, 2);
    tfs_output fetches[6];
    fetches[0] = einsum("e0", kEq[0], x, w);
    fetches[1] = einsum("e1", kEq[1], x, w2);
    fetches[2] = einsum("e2", kEq[2], x, w);
    fetches[3] = einsum("e3", kEq[3], m, m);
    const int64_t id[3] = {2, 4, 3};
    tfs_output xi = tfs_op_placeholder(g, "xi", TFS_INT32, id, 3, st);
    tfs_output yi = tfs_op_placeholder(g, "yi", TFS_INT32, id, 3, st);
    fetches[4] = einsum("e4", "bij,bkj->bik", xi, yi);
    fetches[5] = einsum("e5", "bij,bjk->bik", x, w); /* taken unless compat */
    TFS_ASSERT_OK(st);
    ot_config.tf_compatible = compat;
    tfs_output feeds[1] = {{tfs_graph_operation_by_name(g, "x"), 0}};
    tfs_graph *og = ot_optimize(feeds, 1, fetches, 6, "remap");
    CU_ASSERT_EQUAL(ot_count(og, "Einsum"), compat ? 6 : 5);
    for (int i = 0; i < 5; i++) {
      char name[8];
      snprintf(name, sizeof name, "e%d", i);
      CU_ASSERT_STRING_EQUAL(ot_type(og, name), "Einsum");
    }
    ot_check_same(og, feeds, 1, fetches, 4, 0);
    tfs_graph_free(og);
    ot_teardown();
  }
}

const tfs_test_case tfs_optimizer_attention_cases[] = {
    {"remap_attention_folded", test_attention_folded},
    {"remap_attention_kept", test_attention_kept},
    {"remap_attention_einsum", test_attention_einsum},
    {"remap_attention_einsum_kept", test_attention_einsum_kept},
    {NULL, NULL},
};
