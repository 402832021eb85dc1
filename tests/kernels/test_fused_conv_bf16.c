/*
 * tests/kernels/test_fused_conv_bf16.c - the fused convolutions in
 * bfloat16 (auto mixed precision's, after the remapper): _FusedConv2D
 * with [BiasAdd (, activation)] and [BiasAdd, Add (, activation)] on each
 * bfloat16 path (AMX and vdpbf16ps: the epilogue on each block's float
 * sums before one rounding; widened: the float kernel on float copies),
 * with the filter fed and constant (packed at prepare); and
 * _FusedDepthwiseConv2dNative and DepthwiseConv2dNative in bfloat16 (a
 * band of input rows widened per task), with strides, dilation, a
 * channel multiplier, padding, batches and images of several bands, on 1
 * and 4 threads.  Against the float op on the same bfloat16 values: the
 * convolutions within one bfloat16 rounding of the output (their float
 * sums run in another order), the depthwise ones equal to the float
 * result rounded.  And the bfloat16 addend's and bias's errors.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/cpu.h"
#include "core/half.h"
#include "backends/cpu/conv_common.h"
#include "backends/cpu/fused_conv_dw.h"
#include "nn_test_util.h"

typedef struct fc_case {
  int64_t n, h, w, c, k, s, d, kn; /* kn: the multiplier when depthwise */
  const char *pad;
} fc_case;

static int64_t out_dim(const fc_case *k, int64_t in) {
  int64_t span = (k->k - 1) * k->d + 1;
  return strcmp(k->pad, "SAME") == 0 ? (in + k->s - 1) / k->s
                                     : (in - span) / k->s + 1;
}

/* A tensor of dims whose values are bfloat16 numbers in [-1, 1]: as
 * bfloat16 (dt TFS_BFLOAT16) or as the same values in float. */
static tfs_tensor *values(tfs_dtype dt, const int64_t *dims, int nd,
                          uint32_t seed) {
  tfs_tensor *t = nt_tensor(dt, dims, nd, NULL);
  int64_t n = tfs_tensor_num_elements(t);
  for (int64_t i = 0; i < n; i++) {
    uint16_t h = tfs_float_to_bf16(nt_rand(&seed));
    if (dt == TFS_BFLOAT16)
      ((uint16_t *)tfs_tensor_data(t))[i] = h;
    else
      ((float *)tfs_tensor_data(t))[i] = tfs_bf16_to_float(h);
  }
  return t;
}

/* Runs `op` of case k on x (fed), filter f (a Const when fconst, else
 * fed), for the fused ops bias b (a Const) and addend z (fed, or NULL)
 * with fused_ops ops[nops], on `threads` intra-op threads.  Returns the
 * status code; *out receives the output, msg the message. */
static tfs_code run_op(const fc_case *k, const char *op,
                       const char *const *ops, int nops, tfs_tensor *x,
                       tfs_tensor *f, tfs_tensor *b, tfs_tensor *z,
                       int fconst, int threads, tfs_tensor **out, char *msg,
                       size_t cap) {
  const int fused = op[0] == '_', dw = strstr(op, "Depthwise") != NULL;
  tfs_status *st = tfs_status_new();
  tfs_graph *g = tfs_graph_new();
  tfs_output feeds[3];
  tfs_tensor *vals[3];
  int nf = 0;
  tfs_output xo = tfs_op_placeholder(g, "x", tfs_tensor_dtype(x), NULL, -1,
                                     st);
  feeds[nf] = xo, vals[nf++] = x;
  tfs_output fo = fconst ? tfs_op_const(g, "f", f, st)
                         : tfs_op_placeholder(g, "f", tfs_tensor_dtype(f),
                                              NULL, -1, st);
  if (!fconst) feeds[nf] = fo, vals[nf++] = f;
  tfs_op_desc *d = tfs_op_desc_new(g, op, "node");
  tfs_op_desc_add_input(d, xo);
  tfs_op_desc_add_input(d, fo);
  if (fused) {
    tfs_output args[2] = {tfs_op_const(g, "b", b, st), {NULL, 0}};
    if (z) {
      args[1] = tfs_op_placeholder(g, "z", tfs_tensor_dtype(z), NULL, -1, st);
      feeds[nf] = args[1], vals[nf++] = z;
    }
    tfs_op_desc_add_input_list(d, args, z ? 2 : 1);
    if (!dw) tfs_op_desc_add_input_list(d, NULL, 0); /* host_args */
    const void *p[3];
    size_t lens[3];
    for (int i = 0; i < nops; i++) p[i] = ops[i], lens[i] = strlen(ops[i]);
    tfs_op_desc_set_attr_string_list(d, "fused_ops", p, lens, nops);
    tfs_op_desc_set_attr_int(d, "num_args", z ? 2 : 1);
  }
  nt_attr a[3] = {NT_LIST4("strides", 1, k->s, k->s, 1),
                  NT_STR("padding", k->pad),
                  NT_LIST4("dilations", 1, k->d, k->d, 1)};
  nt_set_attrs(d, a, 3);
  tfs_operation *o = tfs_op_desc_finish(d, st);
  TFS_ASSERT_OK(st);
  tfs_session_options *so = tfs_session_options_new();
  tu_own_pools(so, threads);
  tfs_session *s = tfs_session_new(g, so, st);
  TFS_ASSERT_OK(st);
  tfs_output fetch = {o, 0};
  *out = NULL;
  tfs_session_run(s, feeds, vals, nf, &fetch, out, 1, NULL, 0, st);
  tfs_code code = tfs_status_code(st);
  if (msg) snprintf(msg, cap, "%s", tfs_status_message(st));
  tfs_session_free(s);
  tfs_session_options_free(so);
  tfs_graph_free(g);
  tfs_status_free(st);
  return code;
}

/* got (bfloat16) against want (float): exact (the rounded value) or
 * within one bfloat16 rounding plus float sums; returns the count of
 * elements off. */
static int64_t count_off(const tfs_tensor *got, const tfs_tensor *want,
                         int exact) {
  CU_ASSERT_EQUAL_FATAL(tfs_tensor_dtype(got), TFS_BFLOAT16);
  CU_ASSERT_EQUAL_FATAL(tfs_tensor_num_elements(got),
                        tfs_tensor_num_elements(want));
  const uint16_t *o = tfs_tensor_data(got);
  const float *w = tfs_tensor_data(want);
  int64_t bad = 0;
  for (int64_t e = 0; e < tfs_tensor_num_elements(want); e++) {
    double g = tfs_bf16_to_float(o[e]);
    double r = exact ? tfs_bf16_to_float(tfs_float_to_bf16(w[e])) : w[e];
    bad += exact ? !(g == r) : !(fabs(g - r) <= ldexp(fabs(r), -8) + 1e-4);
  }
  return bad;
}

/* The epilogues tried: fused_ops and whether they take the addend. */
static const struct {
  const char *ops[3];
  int nops, add;
} kEpis[] = {
    {{"BiasAdd"}, 1, 0},
    {{"BiasAdd", "Relu6"}, 2, 0},
    {{"BiasAdd", "Elu"}, 2, 0},
    {{"BiasAdd", "Add"}, 2, 1},
    {{"BiasAdd", "Add", "Relu"}, 3, 1},
};

/* _FusedConv2D of case k on bfloat16 path `path`, every epilogue, the
 * filter fed and constant. */
static void conv_case(const fc_case *k, int path, uint32_t seed) {
  int64_t oh = out_dim(k, k->h), ow = out_dim(k, k->w);
  int64_t xd[4] = {k->n, k->h, k->w, k->c}, fd[4] = {k->k, k->k, k->c, k->kn};
  int64_t bd[1] = {k->kn}, yd[4] = {k->n, oh, ow, k->kn};
  tfs_tensor *in16[4] = {values(TFS_BFLOAT16, xd, 4, seed),
                         values(TFS_BFLOAT16, fd, 4, seed + 1),
                         values(TFS_BFLOAT16, bd, 1, seed + 2),
                         values(TFS_BFLOAT16, yd, 4, seed + 3)};
  tfs_tensor *in32[4] = {values(TFS_FLOAT, xd, 4, seed),
                         values(TFS_FLOAT, fd, 4, seed + 1),
                         values(TFS_FLOAT, bd, 1, seed + 2),
                         values(TFS_FLOAT, yd, 4, seed + 3)};
  char msg[512];
  for (size_t e = 0; e < sizeof kEpis / sizeof kEpis[0]; e++) {
    tfs_tensor *want = NULL;
    tfs_code code = run_op(k, "_FusedConv2D", kEpis[e].ops, kEpis[e].nops,
                           in32[0], in32[1], in32[2],
                           kEpis[e].add ? in32[3] : NULL, 1, 1, &want, msg,
                           sizeof msg);
    CU_ASSERT_EQUAL_FATAL(code, TFS_OK);
    for (int fconst = 0; fconst < 2; fconst++) {
      int64_t before = tfs_conv2d_bf16__calls();
      tfs_tensor *y = NULL;
      code = run_op(k, "_FusedConv2D", kEpis[e].ops, kEpis[e].nops, in16[0],
                    in16[1], in16[2], kEpis[e].add ? in16[3] : NULL, fconst,
                    fconst ? 4 : 1, &y, msg, sizeof msg);
      if (code != TFS_OK) fprintf(stderr, "\n  bf16 failed: %s\n", msg);
      CU_ASSERT_EQUAL_FATAL(code, TFS_OK);
      /* the dot-product paths run the bfloat16 blocks */
      CU_ASSERT_EQUAL(tfs_conv2d_bf16__calls() > before,
                      path != TU_BF16_WIDEN);
      int64_t bad = count_off(y, want, 0);
      if (bad)
        fprintf(stderr,
                "\n  _FusedConv2D bf16 path %d %s%s%s (%lldx%lld k%lld): %lld "
                "off\n",
                path, kEpis[e].ops[0], kEpis[e].nops > 1 ? "," : "",
                kEpis[e].nops > 1 ? kEpis[e].ops[kEpis[e].nops - 1] : "",
                (long long)k->h, (long long)k->w, (long long)k->k,
                (long long)bad);
      CU_ASSERT_EQUAL(bad, 0);
      tfs_tensor_free(y);
    }
    tfs_tensor_free(want);
  }
  for (int i = 0; i < 4; i++) {
    tfs_tensor_free(in16[i]);
    tfs_tensor_free(in32[i]);
  }
}

static void test_fused_conv_bf16_paths(void) {
  static const fc_case k[] = {
      {1, 8, 7, 32, 1, 1, 1, 48, "VALID"}, /* 1x1: the input in place */
      {2, 10, 9, 16, 3, 1, 1, 24, "SAME"}, /* 3x3: patches */
      {1, 9, 9, 12, 3, 2, 1, 20, "SAME"},  /* strided */
      {1, 9, 9, 5, 3, 1, 2, 7, "VALID"},   /* dilated, odd depths */
      {2, 40, 40, 8, 1, 1, 1, 96, "SAME"}, /* several blocks of rows */
  };
  for (int path = 0; path < TU_BF16_PATHS; path++) {
    const char *why = tu_bf16_path(path);
    tu_cpu_path("fused-conv-bf16", tu_bf16_path_names[path], why);
    if (why) continue;
    for (size_t i = 0; i < sizeof k / sizeof *k; i++)
      conv_case(&k[i], path, 90 + 10 * (uint32_t)i);
  }
  tu_bf16_paths_reset();
}

/* DepthwiseConv2dNative and _FusedDepthwiseConv2dNative ([BiasAdd,
 * Relu6]: the activation in the store; [BiasAdd, Elu]: after it) of case
 * k in bfloat16 against the float ops, rounded. */
static void depthwise_case(const fc_case *k, uint32_t seed) {
  static const char *const kRelu6[2] = {"BiasAdd", "Relu6"};
  static const char *const kElu[2] = {"BiasAdd", "Elu"};
  const char *const *epis[3] = {NULL, kRelu6, kElu};
  int64_t xd[4] = {k->n, k->h, k->w, k->c}, fd[4] = {k->k, k->k, k->c, k->kn};
  int64_t bd[1] = {k->c * k->kn};
  tfs_tensor *in16[3] = {values(TFS_BFLOAT16, xd, 4, seed),
                         values(TFS_BFLOAT16, fd, 4, seed + 1),
                         values(TFS_BFLOAT16, bd, 1, seed + 2)};
  tfs_tensor *in32[3] = {values(TFS_FLOAT, xd, 4, seed),
                         values(TFS_FLOAT, fd, 4, seed + 1),
                         values(TFS_FLOAT, bd, 1, seed + 2)};
  nt_attr a[3] = {NT_LIST4("strides", 1, k->s, k->s, 1),
                  NT_STR("padding", k->pad),
                  NT_LIST4("dilations", 1, k->d, k->d, 1)};
  char msg[512];
  for (int e = 0; e < 3; e++) {
    const char *op =
        epis[e] ? "_FusedDepthwiseConv2dNative" : "DepthwiseConv2dNative";
    tfs_tensor *want = NULL;
    tfs_code code = TFS_OK;
    if (epis[e])
      code = run_op(k, op, epis[e], 2, in32[0], in32[1], in32[2], NULL, 1, 1,
                    &want, msg, sizeof msg);
    else
      want = nt_run1(op, in32, 2, a, 3);
    CU_ASSERT_EQUAL_FATAL(code, TFS_OK);
    for (int threads = 1; threads <= 4; threads += 3) {
      tfs_tensor *y = NULL;
      code = run_op(k, op, epis[e], 2, in16[0], in16[1], in16[2], NULL,
                    threads == 4, threads, &y, msg, sizeof msg);
      if (code != TFS_OK) fprintf(stderr, "\n  bf16 failed: %s\n", msg);
      CU_ASSERT_EQUAL_FATAL(code, TFS_OK);
      int64_t bad = count_off(y, want, 1);
      if (bad)
        fprintf(stderr,
                "\n  %s bf16 %s (%lldx%lldx%lld k%lld s%lld d%lld m%lld, %d "
                "threads): %lld off\n",
                op, epis[e] ? epis[e][1] : "", (long long)k->h,
                (long long)k->w, (long long)k->c, (long long)k->k,
                (long long)k->s, (long long)k->d, (long long)k->kn, threads,
                (long long)bad);
      CU_ASSERT_EQUAL(bad, 0);
      tfs_tensor_free(y);
    }
    tfs_tensor_free(want);
  }
  for (int i = 0; i < 3; i++) {
    tfs_tensor_free(in16[i]);
    tfs_tensor_free(in32[i]);
  }
}

static void test_depthwise_bf16(void) {
  static const fc_case k[] = {
      {1, 12, 10, 32, 3, 1, 1, 1, "SAME"},
      {2, 13, 11, 24, 3, 2, 1, 1, "SAME"}, /* strided, odd sizes */
      {1, 14, 9, 20, 3, 1, 1, 2, "VALID"}, /* multiplier 2 */
      {1, 15, 12, 16, 3, 1, 2, 1, "SAME"}, /* dilated */
      {1, 11, 11, 8, 5, 2, 1, 1, "SAME"},  /* 5x5 */
      {2, 64, 20, 32, 3, 1, 1, 1, "SAME"}, /* several bands an image */
      {1, 9, 600, 64, 3, 1, 1, 1, "SAME"}, /* one row a band */
      {1, 3, 3, 8, 5, 1, 1, 1, "SAME"},    /* windows past every edge */
  };
  for (size_t i = 0; i < sizeof k / sizeof *k; i++)
    depthwise_case(&k[i], 300 + 10 * (uint32_t)i);
}

/* ---- _TfsFusedConv2DDepthwise in bfloat16 ---- */

/* A bfloat16 Conv2D + BiasAdd [+ act1] feeding a DepthwiseConv2dNative +
 * BiasAdd [+ act2], which the remapper makes one bfloat16
 * _TfsFusedConv2DDepthwise. */
typedef struct cdw16_case {
  int64_t n, h, w, c, kh, ce, sh; /* input, the first filter, its stride */
  const char *act1;               /* NULL: none */
  int64_t dkh, dsh, dd, mult;     /* the depthwise filter */
  const char *act2;
} cdw16_case;

/* Case k on bfloat16 path `path`: the fused op against the two ops apart,
 * bit for bit, on 1 and 2 threads, with the default tile and 16 KiB ones
 * (a band of a row or two), the CPU as it is and capped to portable code
 * (no dot-product family: the ops apart, widened); the dot paths run in
 * bands where there are bands for the threads. */
static void cdw16_case_run(const cdw16_case *k, int path, uint32_t seed) {
  tfs_status *st = tfs_status_new();
  tfs_graph *g = tfs_graph_new();
  int64_t xd[4] = {k->n, k->h, k->w, k->c};
  int64_t fd[4] = {k->kh, k->kh, k->c ? k->c : 4, k->ce};
  int64_t bd[1] = {k->ce}, dd[4] = {k->dkh, k->dkh, k->ce, k->mult};
  int64_t dbd[1] = {k->ce * k->mult};
  tfs_tensor *xv = values(TFS_BFLOAT16, xd, 4, seed);
  tfs_tensor *cv[4] = {values(TFS_BFLOAT16, fd, 4, seed + 1),
                       values(TFS_BFLOAT16, bd, 1, seed + 2),
                       values(TFS_BFLOAT16, dd, 4, seed + 3),
                       values(TFS_BFLOAT16, dbd, 1, seed + 4)};
  tfs_output x = tfs_op_placeholder(g, "x", TFS_BFLOAT16, xd, 4, st), mid;
  tfs_output y = nt_conv_dw_chain(g, x, cv, k->sh, k->act1, k->dsh, "SAME",
                                  k->dd, k->act2, &mid, st);
  TFS_ASSERT_OK(st);
  static const int kCaps[2] = {-1, TFS_CPU_ISA_BASELINE};
  for (int v = 0; v < 8; v++) {
    int threads = v & 1 ? 2 : 1;
    tfs_cpu__set_max_isa(kCaps[(v >> 1) & 1]); /* the depthwise rows */
    tfs_fused_conv_dw__set_tile_bytes(v & 4 ? 16 << 10 : 0);
    int fused = 0, apart = 0;
    tfs_output both[2] = {y, mid};
    tfs_tensor *want = nt_run_plan(g, x, xv, both, 2, threads,
                                   "_TfsFusedConv2DDepthwise", &apart, st);
    int64_t bands = tfs_fused_conv_dw__bf16_band_calls();
    tfs_tensor *got = nt_run_plan(g, x, xv, &y, 1, threads,
                                  "_TfsFusedConv2DDepthwise", &fused, st);
    int in_bands = tfs_fused_conv_dw__bf16_band_calls() > bands;
    CU_ASSERT_EQUAL(fused, 1);
    CU_ASSERT_EQUAL(apart, 0);
    /* the two ops apart where no dot-product family packed the filter
     * at prepare (the widened path, or the CPU capped below them), or
     * the input is empty; else in bands where every thread gets bands
     * (all of these cases on one thread) */
    int dot = path != TU_BF16_WIDEN && !(v & 2);
    if (!dot || k->c == 0) CU_ASSERT_FALSE(in_bands);
    if (dot && k->c != 0 && threads == 1) CU_ASSERT_TRUE(in_bands);
    CU_ASSERT_PTR_NOT_NULL_FATAL(got);
    CU_ASSERT_EQUAL_FATAL(tfs_tensor_dtype(got), TFS_BFLOAT16);
    CU_ASSERT_EQUAL_FATAL(tfs_tensor_byte_size(got),
                          tfs_tensor_byte_size(want));
    int same = memcmp(tfs_tensor_data(got), tfs_tensor_data(want),
                      tfs_tensor_byte_size(got)) == 0;
    if (!same)
      fprintf(stderr,
              "\n  bf16 case %lldx%lldx%lldx%lld -> %lld, path %d, threads "
              "%d, variant %d: not the unfused bits\n",
              (long long)k->n, (long long)k->h, (long long)k->w,
              (long long)k->c, (long long)k->ce, path, threads, v);
    CU_ASSERT_TRUE(same);
    tfs_tensor_free(got);
    tfs_tensor_free(want);
  }
  tfs_cpu__set_max_isa(-1);
  tfs_fused_conv_dw__set_tile_bytes(0);
  tfs_tensor_free(xv);
  for (int i = 0; i < 4; i++) tfs_tensor_free(cv[i]);
  tfs_graph_free(g);
  tfs_status_free(st);
}

/* A 1x1 expansion (the input in place) and a 3x3 strided one (patches),
 * depthwise strides 1 and 2, dilation, a multiplier of 2, 5x5,
 * activations the depthwise rows store (Relu6, Relu, hard-swish) and
 * ones after them (Sigmoid), a batch of two, a small map (two threads
 * cannot all get bands: the ops apart), an input of depth 0. */
static void test_conv_depthwise_bf16(void) {
  static const cdw16_case k[] = {
      /* n h w c kh ce sh act1; dkh dsh dd mult act2 */
      {1, 40, 40, 8, 1, 96, 1, "Relu6", 3, 1, 1, 1, "Relu6"},
      {1, 41, 39, 8, 1, 96, 1, "Relu6", 3, 2, 1, 1, "Relu6"},
      {2, 30, 30, 16, 1, 64, 1, "Relu", 3, 1, 1, 2, NULL},
      {1, 33, 20, 8, 1, 48, 1, "Elu", 5, 2, 1, 1, "Sigmoid"},
      {1, 48, 48, 3, 3, 64, 2, "Relu6", 3, 1, 1, 1, "Relu6"},
      {1, 24, 24, 8, 1, 40, 1, "Relu6", 3, 1, 2, 1, "Relu6"},
      {1, 30, 30, 16, 1, 72, 1, "_TfsHardSwish", 3, 1, 1, 1,
       "_TfsHardSwish"},
      {1, 7, 7, 32, 1, 192, 1, "Relu6", 3, 1, 1, 1, "Relu6"},
      {1, 6, 6, 0, 1, 16, 1, "Relu6", 3, 1, 1, 1, "Relu6"},
  };
  for (int path = 0; path < TU_BF16_PATHS; path++) {
    const char *why = tu_bf16_path(path);
    tu_cpu_path("fused-conv-dw-bf16", tu_bf16_path_names[path], why);
    if (why) continue;
    for (size_t i = 0; i < sizeof k / sizeof *k; i++)
      cdw16_case_run(&k[i], path, 500 + 10 * (uint32_t)i);
  }
  tu_bf16_paths_reset();
}

/* A bfloat16 _FusedConv2D's addend must be bfloat16 of the output's
 * shape; its bias float or bfloat16. */
static void test_fused_conv_bf16_errors(void) {
  static const fc_case k = {1, 4, 4, 8, 1, 1, 1, 8, "SAME"};
  static const char *const kAdd[2] = {"BiasAdd", "Add"};
  int64_t xd[4] = {1, 4, 4, 8}, fd[4] = {1, 1, 8, 8}, bd[1] = {8};
  int64_t bd2[1] = {6};
  tfs_tensor *x = values(TFS_BFLOAT16, xd, 4, 1);
  tfs_tensor *f = values(TFS_BFLOAT16, fd, 4, 2);
  tfs_tensor *b = values(TFS_BFLOAT16, bd, 1, 3);
  tfs_tensor *b6 = values(TFS_BFLOAT16, bd2, 1, 3);
  tfs_tensor *z32 = nt_random(xd, 4, 4);
  tfs_tensor *y = NULL;
  char msg[512];
  tfs_code code = run_op(&k, "_FusedConv2D", kAdd, 2, x, f, b, z32, 1, 1, &y,
                         msg, sizeof msg);
  CU_ASSERT_EQUAL(code, TFS_INVALID_ARGUMENT);
  CU_ASSERT_PTR_NOT_NULL(
      strstr(msg, "the addend of a fused Add must be a bfloat16 tensor of "
                  "the convolution's output shape [1,4,4,8], got float "
                  "[1,4,4,8]"));
  tfs_tensor_free(y);
  y = NULL;
  code = run_op(&k, "_FusedConv2D", kAdd, 1, x, f, b6, NULL, 1, 1, &y, msg,
                sizeof msg);
  CU_ASSERT_EQUAL(code, TFS_INVALID_ARGUMENT);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "bias must be a 1-D float or bfloat16 "
                                     "vector of 8 values, got 6 bfloat16"));
  tfs_tensor_free(y);
  /* a float bias of the same values gives the same output */
  float bv[8];
  for (int i = 0; i < 8; i++)
    bv[i] = tfs_bf16_to_float(((const uint16_t *)tfs_tensor_data(b))[i]);
  tfs_tensor *b32 = nt_f32(bd, 1, bv), *y16 = NULL;
  code = run_op(&k, "_FusedConv2D", kAdd, 1, x, f, b32, NULL, 1, 1, &y, msg,
                sizeof msg);
  CU_ASSERT_EQUAL_FATAL(code, TFS_OK);
  code = run_op(&k, "_FusedConv2D", kAdd, 1, x, f, b, NULL, 1, 1, &y16, msg,
                sizeof msg);
  CU_ASSERT_EQUAL_FATAL(code, TFS_OK);
  CU_ASSERT_EQUAL(memcmp(tfs_tensor_data(y), tfs_tensor_data(y16),
                         tfs_tensor_byte_size(y)),
                  0);
  tfs_tensor_free(y);
  tfs_tensor_free(y16);
  tfs_tensor *ts[] = {x, f, b, b6, z32, b32};
  for (int i = 0; i < 6; i++) tfs_tensor_free(ts[i]);
}

static const tfs_test_case kCases[] = {
    {"conv_paths", test_fused_conv_bf16_paths},
    {"depthwise", test_depthwise_bf16},
    {"conv_depthwise", test_conv_depthwise_bf16},
    {"errors", test_fused_conv_bf16_errors},
    {NULL, NULL},
};

const tfs_test_suite tfs_test_suites[] = {
    {"fused_conv_bf16", kCases},
    {NULL, NULL},
};
