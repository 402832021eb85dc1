/*
 * tests/optimizer/test_attention.c - the remapper on multi-head
 * attention as Keras and tf.compat.v1 code write it: the heads' Transposes
 * around the score and context products become _TfsPermutedBatchMatMul
 * (with the score's scale), giving the unfused graph's bits; Transposes
 * read elsewhere, permutations that move the last dimension, and output
 * that must load in TensorFlow are left alone.
 */
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

const tfs_test_case tfs_optimizer_attention_cases[] = {
    {"remap_attention_folded", test_attention_folded},
    {"remap_attention_kept", test_attention_kept},
    {NULL, NULL},
};
