/*
 * tests/kernels/test_fused_conv_dw_pw.c - _TfsFusedConv2DDepthwiseConv2D,
 * an inverted residual block in one op: the expansion convolution and
 * the depthwise convolution (_TfsFusedConv2DDepthwise) with the 1x1
 * projection after them, its bias [+ the residual sum]; and
 * _TfsFusedDepthwiseConv2DConv2D, the same without the expansion.  The remapper
 * builds it from Keras-style ops; each band's depthwise rows go through
 * the projection while in cache, else (too few bands for the threads, no
 * indirect kernels, at most four pixels, an input without elements) the
 * projection runs apart over the depthwise output.  Bit for bit against
 * the same ops with the expansion's and the depthwise output fetched too
 * (which keeps the three ops apart), on every GEMM family, 1 and 2
 * threads, one-row bands and the default, vector and portable depthwise
 * rows, with the route each run takes asserted; the patterns the
 * remapper leaves alone; the kernel's errors.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "conv_paths.h"
#include "nn_test_util.h"
#include "backends/cpu/fused_conv_dw.h"
#include "backends/cpu/fused_pw.h"

static const char kOp[] = "_TfsFusedConv2DDepthwiseConv2D";
static const char kDwOp[] = "_TfsFusedDepthwiseConv2DConv2D";

typedef struct pw_case {
  int n, h, w, c, kh, ce, sh; /* input, expansion kh x kh, its stride */
  int dkh, dsh;               /* depthwise size and stride */
  const char *act2;           /* the depthwise's activation, or NULL */
  int co, residual;           /* projection depth; + the input */
  int apart2;  /* two threads, default tile: the projection apart */
  int apart;   /* always apart (at most 4 pixels, no input elements) */
  int noexp;   /* no expansion: the depthwise convolution reads x */
} pw_case;

static const pw_case kCases[] = {
    /* n h w c kh ce sh; dkh dsh act2; co res */
    /* MobileNetV2's 56x56 block, smaller: residual, stride 1 (one band
     * of the default tile: on two threads the ops over the pool) */
    {1, 20, 20, 24, 1, 144, 1, 3, 1, "Relu6", 24, 1, 1, 0},
    /* stride 2, odd sizes, no residual */
    {1, 21, 19, 16, 1, 96, 1, 3, 2, "Relu6", 24, 0, 1, 0},
    /* a map of several bands of the default tile on two threads */
    {1, 56, 40, 16, 1, 64, 1, 3, 1, "Relu6", 16, 1, 0, 0},
    /* the stem: a strided 3x3 expansion over a padded 3-channel image
     * (one band of the default tile: on two threads the ops over the
     * pool) */
    {1, 46, 46, 3, 3, 32, 2, 3, 1, "Relu6", 16, 0, 1, 0},
    /* a batch, 5x5 depthwise, an activation after the rows (Sigmoid),
     * projection depth not a multiple of 16 */
    {2, 9, 11, 40, 1, 72, 1, 5, 1, "Sigmoid", 40, 1, 0, 0},
    {1, 12, 12, 8, 1, 48, 1, 3, 1, NULL, 20, 0, 0, 0},
    /* 7x7 at batch 1: by channels on two threads, the projection apart */
    {1, 7, 7, 160, 1, 960, 1, 3, 1, "Relu6", 160, 1, 1, 0},
    /* four pixels: the projection's thin product, apart */
    {1, 2, 2, 16, 1, 64, 1, 3, 1, "Relu6", 16, 1, 0, 1},
    /* an input of depth 0: every expansion sum 0 */
    {1, 6, 6, 0, 1, 16, 1, 3, 1, "Relu6", 8, 0, 0, 1},
    /* no expansion (ce = c): MobileNetV3's first block, residual (one
     * band of the default tile, and two) */
    {1, 40, 40, 16, 0, 16, 1, 3, 1, "Relu", 16, 1, 1, 0, 1},
    {1, 64, 64, 16, 0, 16, 1, 3, 1, "Relu", 16, 1, 0, 0, 1},
    /* MobileNetV1: strided, 5x5, an activation after the rows */
    {1, 17, 15, 32, 0, 32, 1, 3, 2, "Relu6", 64, 0, 0, 0, 1},
    {2, 9, 9, 24, 0, 24, 1, 5, 1, "Sigmoid", 40, 0, 0, 0, 1},
    /* 5x5 at batch 1: one band, too little work for a second thread */
    {1, 5, 5, 64, 0, 64, 1, 3, 1, "Relu6", 128, 0, 0, 0, 1},
    /* four pixels */
    {1, 2, 2, 16, 0, 16, 1, 3, 1, "Relu6", 16, 1, 0, 1, 1},
};

/* Conv2D(x, c[0]) + BiasAdd(c[1]) + Relu6 (into *mid),
 * DepthwiseConv2dNative(c[2]) + BiasAdd(c[3]) [+ act2] (into *dw),
 * Conv2D(c[4]) with strides pstride + BiasAdd(c[5]) [+ AddV2 with x]
 * [+ act3]. */
static tfs_output ir_chain(tfs_graph *g, tfs_output x, const pw_case *k,
                           tfs_tensor *const *c, int pstride,
                           const char *act3, tfs_output *mid,
                           tfs_output *dw, tfs_status *st) {
  const tfs_output none = {NULL, 0};
  if (k->noexp) {
    nt_attr da[2] = {NT_LIST4("strides", 1, k->dsh, k->dsh, 1),
                     NT_STR("padding", "SAME")};
    *mid = x;
    *dw = nt_node(g, "DepthwiseConv2dNative", "dw", x,
                  tfs_op_const(g, "df", c[2], st), da, 2, st);
    *dw = nt_node(g, "BiasAdd", "dbias", *dw, tfs_op_const(g, "db", c[3], st),
                  NULL, 0, st);
    if (k->act2) *dw = nt_node(g, k->act2, "act2", *dw, none, NULL, 0, st);
  } else {
    *dw = nt_conv_dw_chain(g, x, c, k->sh, "Relu6", k->dsh, "SAME", 1,
                           k->act2, mid, st);
  }
  nt_attr pa[2] = {NT_LIST4("strides", 1, pstride, pstride, 1),
                   NT_STR("padding", "SAME")};
  tfs_output y = nt_node(g, "Conv2D", "pw", *dw,
                         tfs_op_const(g, "pf", c[4], st), pa, 2, st);
  y = nt_node(g, "BiasAdd", "pbias", y, tfs_op_const(g, "pb", c[5], st),
              NULL, 0, st);
  if (k->residual) y = nt_node(g, "AddV2", "res", y, x, NULL, 0, st);
  if (act3) y = nt_node(g, act3, "act3", y, none, NULL, 0, st);
  return y;
}

/* The six constants of case k, the projection pk x pk. */
static void ir_consts(const pw_case *k, int pk, uint32_t seed,
                      tfs_tensor **c) {
  c[0] = nt_random((int64_t[]){k->kh ? k->kh : 1, k->kh ? k->kh : 1,
                               k->c ? k->c : 4, k->ce},
                   4, seed);
  c[1] = nt_random((int64_t[]){k->ce}, 1, seed + 1);
  c[2] = nt_random((int64_t[]){k->dkh, k->dkh, k->ce, 1}, 4, seed + 2);
  c[3] = nt_random((int64_t[]){k->ce}, 1, seed + 3);
  c[4] = nt_random((int64_t[]){pk, pk, k->ce, k->co}, 4, seed + 4);
  c[5] = nt_random((int64_t[]){k->co}, 1, seed + 5);
}

/* Whether this GEMM family multiplies an indirect A now (the family and
 * the indirect kernels nt_each_conv_path has in force). */
static int indirect_now(void) {
  float one = 1.0f;
  tfs_gemm_packed *b = tfs_gemm_pack_b_f32(0, 1, 1, &one, 1);
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  int ok = tfs_gemm_indirect_ok(b);
  tfs_gemm_packed_free(b);
  return ok;
}

static void run_case(const pw_case *k, uint32_t seed) {
  tfs_status *st = tfs_status_new();
  tfs_graph *g = tfs_graph_new();
  int64_t xd[4] = {k->n, k->h, k->w, k->c};
  tfs_tensor *xv = nt_random(xd, 4, seed), *cv[6];
  ir_consts(k, 1, seed + 1, cv);
  tfs_output x = tfs_op_placeholder(g, "x", TFS_FLOAT, xd, 4, st), mid, dw;
  tfs_output y = ir_chain(g, x, k, cv, 1, NULL, &mid, &dw, st);
  TFS_ASSERT_OK(st);
  const int ind = indirect_now() && tfs_gemm_panel_rows() > 1;
  static const int kCaps[2] = {-1, TFS_CPU_ISA_BASELINE};
  const char *op = k->noexp ? kDwOp : kOp;
  for (int v = 0; v < 8; v++) {
    int threads = v & 1 ? 2 : 1;
    tfs_cpu__set_max_isa(kCaps[(v >> 1) & 1]); /* the depthwise rows */
    /* small tiles: bands of one or two rows; the default: a few */
    tfs_fused_conv_dw__set_tile_bytes(v & 4 ? 16 << 10 : 0);
    tfs_fused_dw_pw__set_tile_bytes(v & 4 ? 4 << 10 : 0);
    int fused = 0, apart = 0;
    /* fetching the expansion's and the depthwise output too keeps the
     * ops apart */
    tfs_output three[3] = {y, dw, mid};
    tfs_tensor *want = nt_run_plan(g, x, xv, three, k->noexp ? 2 : 3,
                                   threads, op, &apart, st);
    int64_t before = tfs_fused_pw__apart_calls();
    tfs_tensor *got = nt_run_plan(g, x, xv, &y, 1, threads, op, &fused, st);
    int by_itself = tfs_fused_pw__apart_calls() > before;
    int expect = !ind || k->apart ||
                 (threads == 2 && !(v & 4) && k->apart2);
    if (by_itself != expect)
      fprintf(stderr, "\n  case %dx%dx%dx%d -> %d -> %d, threads %d, "
              "variant %d: the projection %sapart", k->n, k->h, k->w, k->c,
              k->ce, k->co, threads, v, by_itself ? "" : "not ");
    CU_ASSERT_EQUAL(by_itself, expect);
    CU_ASSERT_EQUAL(fused, 1);
    CU_ASSERT_EQUAL(apart, 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(got);
    CU_ASSERT_PTR_NOT_NULL_FATAL(want);
    CU_ASSERT_EQUAL_FATAL(tfs_tensor_byte_size(got),
                          tfs_tensor_byte_size(want));
    int same = memcmp(tfs_tensor_data(got), tfs_tensor_data(want),
                      tfs_tensor_byte_size(got)) == 0;
    if (!same)
      fprintf(stderr, "\n  case %dx%dx%dx%d -> %d -> %d, threads %d, "
              "variant %d: not the unfused bits", k->n, k->h, k->w, k->c,
              k->ce, k->co, threads, v);
    CU_ASSERT_TRUE(same);
    tfs_tensor_free(got);
    tfs_tensor_free(want);
  }
  tfs_cpu__set_max_isa(-1);
  tfs_fused_conv_dw__set_tile_bytes(0);
  tfs_fused_dw_pw__set_tile_bytes(0);
  tfs_tensor_free(xv);
  for (int i = 0; i < 6; i++) tfs_tensor_free(cv[i]);
  tfs_graph_free(g);
  tfs_status_free(st);
}

static void all_cases(void *arg) {
  (void)arg;
  for (size_t i = 0; i < sizeof kCases / sizeof *kCases; i++)
    run_case(&kCases[i], 100 + 10 * (uint32_t)i);
}

/* Every case on each GEMM family (indirect kernels on and off), and on
 * the families with indirect kernels with the kernels' scratch poisoned
 * (a depthwise row the projection reads before it is written gives
 * NaNs). */
static void test_paths(void) {
  CU_ASSERT_TRUE(nt_each_conv_path("fused-conv-dw-pw", all_cases, NULL) >=
                 1);
  int was = tfs_kctx__poison_scratch(1);
  all_cases(NULL);
  tfs_kctx__poison_scratch(was);
}

/* What the remapper leaves apart: a 3x3 or strided projection, an
 * activation after the projection, a depthwise output read twice. */
static void test_not_fused(void) {
  static const struct {
    int pk, pstride;
    const char *act3;
  } kNo[] = {{3, 1, NULL}, {1, 2, NULL}, {1, 1, "Relu"}};
  const pw_case k = {1, 10, 10, 16, 1, 64, 1, 3, 1, "Relu6", 24, 0, 0, 0};
  for (size_t i = 0; i < sizeof kNo / sizeof *kNo; i++) {
    tfs_status *st = tfs_status_new();
    tfs_graph *g = tfs_graph_new();
    int64_t xd[4] = {k.n, k.h, k.w, k.c};
    tfs_tensor *xv = nt_random(xd, 4, 7), *cv[6];
    ir_consts(&k, kNo[i].pk, 8, cv);
    tfs_output x = tfs_op_placeholder(g, "x", TFS_FLOAT, xd, 4, st), mid, dw;
    tfs_output y = ir_chain(g, x, &k, cv, kNo[i].pstride, kNo[i].act3, &mid,
                            &dw, st);
    TFS_ASSERT_OK(st);
    int fused = -1, two = -1;
    tfs_tensor *got = nt_run_plan(g, x, xv, &y, 1, 1, kOp, &fused, st);
    tfs_tensor_free(nt_run_plan(g, x, xv, &y, 1, 1,
                                "_TfsFusedConv2DDepthwise", &two, st));
    CU_ASSERT_EQUAL(fused, 0);
    CU_ASSERT_EQUAL(two, 1); /* the expansion and depthwise still fuse */
    CU_ASSERT_PTR_NOT_NULL(got);
    tfs_tensor_free(got);
    tfs_tensor_free(xv);
    for (int j = 0; j < 6; j++) tfs_tensor_free(cv[j]);
    tfs_graph_free(g);
    tfs_status_free(st);
  }
}

/* hand_case's constants: the expansion's filter [1, 1, 2, 3] and bias
 * (also the depthwise bias), the depthwise filter [3, 3, 3, 1], and x
 * [1, 4, 4, 2]; the caller frees them. */
static void hand_consts(tfs_tensor **fv, tfs_tensor **bv, tfs_tensor **dv,
                        tfs_tensor **xv) {
  *fv = nt_random((int64_t[]){1, 1, 2, 3}, 4, 1);
  *bv = nt_random((int64_t[]){3}, 1, 2);
  *dv = nt_random((int64_t[]){3, 3, 3, 1}, 4, 3);
  *xv = nt_random((int64_t[]){1, 4, 4, 2}, 4, 4);
}

/* The op built by hand over fed tensors: x [1, 4, 4, 2], the expansion
 * to 3 channels and its depthwise convolution (constants), the
 * projection's filter pf, bias pb and addend z (or NULL) fed.  Expects
 * code and a message holding needle, or with TFS_OK returns the output
 * (the caller frees it). */
static tfs_tensor *hand_case(const char *const *ops, int nops, int nargs,
                             tfs_tensor *pf, tfs_tensor *pb, tfs_tensor *z,
                             tfs_code code, const char *needle) {
  tfs_status *st = tfs_status_new();
  tfs_graph *g = tfs_graph_new();
  tfs_tensor *fv, *bv, *dv, *xv;
  hand_consts(&fv, &bv, &dv, &xv);
  tfs_output x = tfs_op_placeholder(g, "x", TFS_FLOAT, NULL, -1, st);
  tfs_output pfo = tfs_op_placeholder(g, "pf", TFS_FLOAT, NULL, -1, st);
  tfs_output pbo = tfs_op_placeholder(g, "pb", TFS_FLOAT, NULL, -1, st);
  tfs_output zo = tfs_op_placeholder(g, "z", TFS_FLOAT, NULL, -1, st);
  tfs_op_desc *d = tfs_op_desc_new(g, kOp, "node");
  tfs_op_desc_add_input(d, x);
  tfs_op_desc_add_input(d, tfs_op_const(g, "f", fv, st));
  tfs_op_desc_add_input(d, tfs_op_const(g, "b", bv, st));
  tfs_op_desc_add_input(d, tfs_op_const(g, "df", dv, st));
  tfs_op_desc_add_input(d, tfs_op_const(g, "db", bv, st));
  tfs_op_desc_add_input(d, pfo);
  tfs_op_desc_add_input(d, pbo);
  tfs_op_desc_add_input_list(d, &zo, z ? 1 : 0);
  const int64_t one[4] = {1, 1, 1, 1};
  const void *bias[1] = {"BiasAdd"}, *p[2];
  size_t blen[1] = {7}, plen[2];
  for (int i = 0; i < nops; i++) p[i] = ops[i], plen[i] = strlen(ops[i]);
  tfs_op_desc_set_attr_int_list(d, "strides", one, 4);
  tfs_op_desc_set_attr_string(d, "padding", "SAME", 4);
  tfs_op_desc_set_attr_string_list(d, "fused_ops", bias, blen, 1);
  tfs_op_desc_set_attr_int_list(d, "dw_strides", one, 4);
  tfs_op_desc_set_attr_string(d, "dw_padding", "SAME", 4);
  tfs_op_desc_set_attr_string_list(d, "dw_fused_ops", bias, blen, 1);
  tfs_op_desc_set_attr_string_list(d, "pw_fused_ops", p, plen, nops);
  tfs_op_desc_set_attr_int(d, "num_pw_args", nargs);
  tfs_output y = {tfs_op_desc_finish(d, st), 0};
  TFS_ASSERT_OK(st);
  tfs_session *s = tfs_session_new(g, NULL, st);
  TFS_ASSERT_OK(st);
  tfs_output feeds[4] = {x, pfo, pbo, zo};
  tfs_tensor *in[4] = {xv, pf, pb, z}, *out = NULL;
  tfs_session_run(s, feeds, in, z ? 4 : 3, &y, &out, 1, NULL, 0, st);
  const char *m = tfs_status_message(st);
  int ok = tfs_status_code(st) == code &&
           (code == TFS_OK ||
            (strstr(m, needle) && strstr(m, "{{node node}}")));
  if (!ok)
    fprintf(stderr, "\n  expected %s \"%s\"\n    got %s: %s\n",
            tfs_code_name(code), needle, tfs_code_name(tfs_status_code(st)),
            m);
  CU_ASSERT_TRUE(ok);
  if (code != TFS_OK) {
    tfs_tensor_free(out);
    out = NULL;
  }
  tfs_tensor *mine[4] = {fv, bv, dv, xv};
  for (int i = 0; i < 4; i++) tfs_tensor_free(mine[i]);
  tfs_session_free(s);
  tfs_graph_free(g);
  tfs_status_free(st);
  return out;
}

/* The projection's inputs are checked as _FusedConv2D checks its own
 * (TensorFlow's messages, naming the input), and pw_fused_ops takes the
 * bias [+ the residual sum] alone. */
static void expect_error(const char *const *ops, int nops, int nargs,
                         tfs_tensor *pf, tfs_tensor *pb, tfs_tensor *z,
                         tfs_code code, const char *needle) {
  tfs_tensor_free(hand_case(ops, nops, nargs, pf, pb, z, code, needle));
}

static void test_errors(void) {
  static const char *const kBias[1] = {"BiasAdd"};
  static const char *const kAdd[2] = {"BiasAdd", "Add"};
  static const char *const kRelu[2] = {"BiasAdd", "Relu"};
  tfs_tensor *pf = nt_random((int64_t[]){1, 1, 3, 5}, 4, 10);
  tfs_tensor *pf3 = nt_random((int64_t[]){3, 3, 3, 5}, 4, 11);
  tfs_tensor *pf7 = nt_random((int64_t[]){1, 1, 7, 5}, 4, 12);
  tfs_tensor *pb = nt_random((int64_t[]){5}, 1, 13);
  tfs_tensor *pb4 = nt_random((int64_t[]){4}, 1, 14);
  tfs_tensor *z = nt_random((int64_t[]){1, 4, 4, 5}, 4, 15);
  tfs_tensor *zrow = nt_random((int64_t[]){1, 1, 4, 5}, 4, 16);
  expect_error(kBias, 1, 0, pf, pb4, NULL, TFS_INVALID_ARGUMENT,
             "pw_bias must be a 1-D float vector of 5 values, got 4");
  expect_error(kAdd, 2, 1, pf, pb, zrow, TFS_INVALID_ARGUMENT,
             "the addend of a fused Add must be a float tensor of the "
             "convolution's output shape [1,4,4,5], got float [1,1,4,5]");
  expect_error(kBias, 1, 0, pf3, pb, NULL, TFS_INVALID_ARGUMENT,
             "pw_filter must be a 1x1 filter over the depthwise output's 3 "
             "channels, got [3,3,3,5]");
  expect_error(kBias, 1, 0, pf7, pb, NULL, TFS_INVALID_ARGUMENT,
             "input depth must be evenly divisible by filter depth: 3 vs 7");
  expect_error(kRelu, 2, 0, pf, pb, NULL, TFS_UNIMPLEMENTED,
             "pw_fused_ops must be [BiasAdd] or [BiasAdd, Add]");
  expect_error(kAdd, 2, 0, pf, pb, NULL, TFS_UNIMPLEMENTED,
             "with as many pw_args (num_pw_args 0)");
  tfs_tensor *all[] = {pf, pf3, pf7, pb, pb4, z, zrow};
  for (size_t i = 0; i < sizeof all / sizeof *all; i++)
    tfs_tensor_free(all[i]);
}

/* A fed projection filter (not packed at prepare: the projection apart,
 * its filter packed for the call) with a fed addend: the bits of the
 * same ops with the depthwise output fetched too. */
static void test_fed_filter(void) {
  static const char *const kAdd[2] = {"BiasAdd", "Add"};
  tfs_tensor *pf = nt_random((int64_t[]){1, 1, 3, 5}, 4, 20);
  tfs_tensor *pb = nt_random((int64_t[]){5}, 1, 21);
  tfs_tensor *z = nt_random((int64_t[]){1, 4, 4, 5}, 4, 22);
  int64_t before = tfs_fused_pw__apart_calls();
  tfs_tensor *got = hand_case(kAdd, 2, 1, pf, pb, z, TFS_OK, "");
  CU_ASSERT_TRUE(tfs_fused_pw__apart_calls() > before);
  /* hand_case's constants, as separate ops */
  tfs_status *st = tfs_status_new();
  tfs_graph *g = tfs_graph_new();
  tfs_tensor *fv, *bv, *dv, *xv;
  hand_consts(&fv, &bv, &dv, &xv);
  tfs_output x = tfs_op_placeholder(g, "x", TFS_FLOAT, NULL, -1, st);
  nt_attr ca[2] = {NT_LIST4("strides", 1, 1, 1, 1),
                   NT_STR("padding", "SAME")};
  tfs_output y = nt_node(g, "Conv2D", "c1", x, tfs_op_const(g, "f", fv, st),
                         ca, 2, st);
  y = nt_node(g, "BiasAdd", "b1", y, tfs_op_const(g, "b", bv, st), NULL, 0,
              st);
  y = nt_node(g, "DepthwiseConv2dNative", "c2", y,
              tfs_op_const(g, "df", dv, st), ca, 2, st);
  tfs_output dw = nt_node(g, "BiasAdd", "b2", y,
                          tfs_op_const(g, "db", bv, st), NULL, 0, st);
  y = nt_node(g, "Conv2D", "c3", dw, tfs_op_const(g, "pf", pf, st), ca, 2,
              st);
  y = nt_node(g, "BiasAdd", "b3", y, tfs_op_const(g, "pb", pb, st), NULL, 0,
              st);
  y = nt_node(g, "AddV2", "res", y, tfs_op_const(g, "z", z, st), NULL, 0,
              st);
  TFS_ASSERT_OK(st);
  int fused = -1;
  tfs_output both[2] = {y, dw};
  tfs_tensor *want = nt_run_plan(g, x, xv, both, 2, 1, kOp, &fused, st);
  CU_ASSERT_EQUAL(fused, 0);
  CU_ASSERT_PTR_NOT_NULL_FATAL(got);
  CU_ASSERT_PTR_NOT_NULL_FATAL(want);
  CU_ASSERT_EQUAL_FATAL(tfs_tensor_byte_size(got), tfs_tensor_byte_size(want));
  CU_ASSERT_EQUAL(memcmp(tfs_tensor_data(got), tfs_tensor_data(want),
                         tfs_tensor_byte_size(got)),
                  0);
  tfs_tensor *all[] = {got, want, pf, pb, z, fv, bv, dv, xv};
  for (size_t i = 0; i < sizeof all / sizeof *all; i++)
    tfs_tensor_free(all[i]);
  tfs_graph_free(g);
  tfs_status_free(st);
}

/* _TfsFusedDepthwiseConv2DConv2D built by hand with a fed dw_bias of
 * the wrong length: TensorFlow's message for a fused op's bias. */
static void test_dw_errors(void) {
  tfs_status *st = tfs_status_new();
  tfs_graph *g = tfs_graph_new();
  tfs_tensor *dv = nt_random((int64_t[]){3, 3, 4, 1}, 4, 30);
  tfs_tensor *pf = nt_random((int64_t[]){1, 1, 4, 6}, 4, 31);
  tfs_tensor *pb = nt_random((int64_t[]){6}, 1, 32);
  tfs_tensor *in[2] = {nt_random((int64_t[]){1, 5, 5, 4}, 4, 33),
                       nt_random((int64_t[]){3}, 1, 34)};
  tfs_output x = tfs_op_placeholder(g, "x", TFS_FLOAT, NULL, -1, st);
  tfs_output db = tfs_op_placeholder(g, "db", TFS_FLOAT, NULL, -1, st);
  tfs_op_desc *d = tfs_op_desc_new(g, kDwOp, "node");
  tfs_op_desc_add_input(d, x);
  tfs_op_desc_add_input(d, tfs_op_const(g, "df", dv, st));
  tfs_op_desc_add_input(d, db);
  tfs_op_desc_add_input(d, tfs_op_const(g, "pf", pf, st));
  tfs_op_desc_add_input(d, tfs_op_const(g, "pb", pb, st));
  tfs_op_desc_add_input_list(d, NULL, 0);
  const int64_t one[4] = {1, 1, 1, 1};
  const void *bias[1] = {"BiasAdd"};
  size_t blen[1] = {7};
  tfs_op_desc_set_attr_int_list(d, "dw_strides", one, 4);
  tfs_op_desc_set_attr_string(d, "dw_padding", "SAME", 4);
  tfs_op_desc_set_attr_string_list(d, "dw_fused_ops", bias, blen, 1);
  tfs_op_desc_set_attr_string_list(d, "pw_fused_ops", bias, blen, 1);
  tfs_output y = {tfs_op_desc_finish(d, st), 0};
  TFS_ASSERT_OK(st);
  tfs_session *s = tfs_session_new(g, NULL, st);
  TFS_ASSERT_OK(st);
  tfs_output feeds[2] = {x, db};
  tfs_tensor *out = NULL;
  tfs_session_run(s, feeds, in, 2, &y, &out, 1, NULL, 0, st);
  CU_ASSERT_EQUAL(tfs_status_code(st), TFS_INVALID_ARGUMENT);
  const char *m = tfs_status_message(st);
  if (!strstr(m, "dw_bias must be a 1-D float vector of 4 values, got 3"))
    fprintf(stderr, "\n  got: %s", m);
  CU_ASSERT_PTR_NOT_NULL(
      strstr(m, "dw_bias must be a 1-D float vector of 4 values, got 3"));
  CU_ASSERT_PTR_NOT_NULL(strstr(m, "{{node node}}"));
  tfs_tensor *all[] = {out, dv, pf, pb, in[0], in[1]};
  for (size_t i = 0; i < sizeof all / sizeof *all; i++)
    tfs_tensor_free(all[i]);
  tfs_session_free(s);
  tfs_graph_free(g);
  tfs_status_free(st);
}

/* The per-thread task buffers the band walks use: kept for the next call
 * on the same slot and thread (no allocation in steady state), grown on
 * demand, 64-byte aligned, one a slot, one a thread, poisoned under the
 * test hook; an unknown slot is NULL. */
static void *other_thread_buf(void *arg) {
  (void)arg;
  return tfs_kctx_task_buf(0, 1000);
}

static void test_task_buf(void) {
  char *p = tfs_kctx_task_buf(0, 1000);
  CU_ASSERT_PTR_NOT_NULL_FATAL(p);
  CU_ASSERT_EQUAL((uintptr_t)p % 64, 0);
  memset(p, 1, 1000);
  CU_ASSERT_PTR_EQUAL(tfs_kctx_task_buf(0, 500), p);
  CU_ASSERT_PTR_EQUAL(tfs_kctx_task_buf(0, 1000), p);
  char *q = tfs_kctx_task_buf(1, 1000);
  CU_ASSERT_PTR_NOT_NULL_FATAL(q);
  CU_ASSERT_PTR_NOT_EQUAL(q, p);
  char *big = tfs_kctx_task_buf(0, 1 << 20);
  CU_ASSERT_PTR_NOT_NULL_FATAL(big);
  memset(big, 2, 1 << 20); /* the whole size is usable */
  CU_ASSERT_PTR_EQUAL(tfs_kctx_task_buf(0, 1 << 20), big);
  CU_ASSERT_PTR_EQUAL(tfs_kctx_task_buf(1, 1000), q);
  CU_ASSERT_PTR_NULL(tfs_kctx_task_buf(TFS_KCTX_TASK_SLOTS, 8));
  CU_ASSERT_PTR_NULL(tfs_kctx_task_buf(-1, 8));
  pthread_t t;
  void *theirs = NULL;
  CU_ASSERT_EQUAL_FATAL(pthread_create(&t, NULL, other_thread_buf, NULL), 0);
  pthread_join(t, &theirs);
  CU_ASSERT_PTR_NOT_NULL(theirs);
  CU_ASSERT_PTR_NOT_EQUAL(theirs, big);
  int was = tfs_kctx__poison_scratch(1);
  unsigned char *z = tfs_kctx_task_buf(1, 64);
  int all = 1;
  for (int i = 0; i < 64; i++) all &= z[i] == 0xff;
  CU_ASSERT_TRUE(all);
  tfs_kctx__poison_scratch(was);
}

static const tfs_test_case kTests[] = {
    {"paths", test_paths},
    {"not_fused", test_not_fused},
    {"fed_filter", test_fed_filter},
    {"errors", test_errors},
    {"dw_errors", test_dw_errors},
    {"task_buf", test_task_buf},
    {NULL, NULL},
};

const tfs_test_suite tfs_test_suites[] = {
    {"fused_conv_dw_pw", kTests},
    {NULL, NULL},
};
