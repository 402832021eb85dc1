/*
 * tests/kernels/test_fused_conv_add.c - _FusedConv2D with fused_ops
 * ["BiasAdd", "Add" (, activation)], the remapper's residual connection:
 * the convolution, its bias, then a tensor of the output's shape added
 * and the activation, per finished block of the output (NHWC) or over
 * the whole output (NCHW, an input without elements); and the plain
 * [BiasAdd (, activation)] epilogue (bias, Relu, Relu6 and hard-swish in
 * the GEMM's store, the others after it) on the same paths.  Against
 * Conv2D's output on the same GEMM family with the bias and the sum
 * applied in the test and the activation op run on that (the bits of the
 * unfused ops), a NaN in the addend and one in the input kept, on every
 * family this CPU has, patches in place and packed, 1 and 4 threads; and
 * the kernel's errors.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "conv_paths.h"
#include "nn_test_util.h"

typedef struct add_case {
  int n, h, w, c, k, s, kc, kn;
  const char *padding;
  int nchw;
} add_case;

static const add_case kCases[] = {
    /* n h w c  k s kc kn */
    {1, 8, 7, 32, 1, 1, 32, 48, "VALID", 0}, /* 1x1: A read in place */
    {2, 10, 9, 16, 3, 1, 16, 24, "SAME", 0}, /* 3x3 stride 1 */
    {1, 9, 9, 12, 3, 2, 12, 20, "SAME", 0},  /* strided */
    {1, 1, 1, 40, 1, 1, 40, 70, "VALID", 0}, /* thin product */
    {1, 4, 5, 48, 3, 1, 48, 75, "SAME", 0},  /* partial panel */
    /* few rows, many channels */
    {1, 2, 3, 64, 1, 1, 64, 200, "VALID", 0},
    {1, 5, 5, 24, 3, 2, 24, 136, "SAME", 0},
    {2, 6, 5, 8, 3, 1, 8, 8, "SAME", 1},     /* NCHW */
    {1, 4, 4, 0, 3, 1, 1, 6, "SAME", 0},     /* input depth 0 */
};

static const char *const kActs[] = {NULL,        "Relu", "Relu6",
                                    "LeakyRelu", "Elu",  "_TfsHardSwish"};

static int64_t out_dim(const add_case *k, int64_t in) {
  return strcmp(k->padding, "SAME") == 0 ? (in + k->s - 1) / k->s
                                         : (in - k->k) / k->s + 1;
}

static void out_dims(const add_case *k, int64_t *yd) {
  int64_t oh = out_dim(k, k->h), ow = out_dim(k, k->w);
  int64_t d[4] = {k->n, k->nchw ? k->kn : oh, k->nchw ? oh : ow,
                  k->nchw ? ow : k->kn};
  memcpy(yd, d, sizeof d);
}

/* Conv2D (act "-") or _FusedConv2D [BiasAdd, Add (, act)] of case k on
 * x and z (fed), filter fv and bias bv (constants), or [BiasAdd (, act)]
 * without z when zv is NULL, on `threads` intra-op threads.  Returns the
 * status code; *out receives the output. */
static tfs_code run_op(const add_case *k, const char *act, tfs_tensor *xv,
                       tfs_tensor *fv, tfs_tensor *bv, tfs_tensor *zv,
                       int threads, tfs_tensor **out, char *msg,
                       size_t cap) {
  const int fused = strcmp(act ? act : "", "-") != 0, add = zv != NULL;
  tfs_status *st = tfs_status_new();
  tfs_graph *g = tfs_graph_new();
  tfs_output x = tfs_op_placeholder(g, "x", TFS_FLOAT, NULL, -1, st);
  tfs_output z = tfs_op_placeholder(g, "z", add ? tfs_tensor_dtype(zv)
                                                : TFS_FLOAT,
                                    NULL, -1, st);
  tfs_op_desc *d =
      tfs_op_desc_new(g, fused ? "_FusedConv2D" : "Conv2D", "node");
  tfs_op_desc_add_input(d, x);
  tfs_op_desc_add_input(d, tfs_op_const(g, "f", fv, st));
  if (fused) {
    tfs_output args[2] = {tfs_op_const(g, "b", bv, st), z};
    tfs_op_desc_add_input_list(d, args, add ? 2 : 1);
    tfs_op_desc_add_input_list(d, NULL, 0); /* host_args */
    const void *ops[3] = {"BiasAdd", add ? "Add" : act, act};
    size_t lens[3] = {7, add ? 3 : act ? strlen(act) : 0,
                      act ? strlen(act) : 0};
    tfs_op_desc_set_attr_string_list(d, "fused_ops", ops, lens,
                                     1 + add + (act != NULL));
    tfs_op_desc_set_attr_int(d, "num_args", 1 + add);
    tfs_op_desc_set_attr_float(d, "leakyrelu_alpha", 0.3f);
  }
  nt_attr a[3] = {NT_LIST4("strides", 1, k->nchw ? 1 : k->s, k->s,
                           k->nchw ? k->s : 1),
                  NT_STR("padding", k->padding),
                  NT_STR("data_format", k->nchw ? "NCHW" : "NHWC")};
  nt_set_attrs(d, a, 3);
  tfs_operation *o = tfs_op_desc_finish(d, st);
  TFS_ASSERT_OK(st);
  tfs_session_options *so = tfs_session_options_new();
  tu_own_pools(so, threads);
  tfs_session *s = tfs_session_new(g, so, st);
  TFS_ASSERT_OK(st);
  tfs_output feeds[2] = {x, z}, fetch = {o, 0};
  tfs_tensor *vals[2] = {xv, zv};
  *out = NULL;
  tfs_session_run(s, feeds, vals, fused && add ? 2 : 1, &fetch, out, 1, NULL,
                  0, st);
  tfs_code code = tfs_status_code(st);
  if (msg) snprintf(msg, cap, "%s", tfs_status_message(st));
  tfs_session_free(s);
  tfs_session_options_free(so);
  tfs_graph_free(g);
  tfs_status_free(st);
  return code;
}

/* Case k with every activation: the fused op against Conv2D's output +
 * bias + z, then the activation op itself, bit for bit. */
static void run_case(const add_case *k, int threads, uint32_t seed) {
  int64_t xd[4] = {k->n, k->nchw ? k->c : k->h, k->nchw ? k->h : k->w,
                   k->nchw ? k->w : k->c};
  int64_t fd[4] = {k->k, k->k, k->kc, k->kn}, bd[1] = {k->kn}, yd[4];
  out_dims(k, yd);
  tfs_tensor *xv = nt_random(xd, 4, seed), *fv = nt_random(fd, 4, seed + 1);
  tfs_tensor *bv = nt_random(bd, 1, seed + 2), *zv = nt_random(yd, 4, seed + 3);
  float *z = tfs_tensor_data(zv);
  const int64_t ny = tfs_tensor_num_elements(zv);
  z[ny / 2] = NAN; /* stays NaN through every activation */
  if (k->n * k->h * k->w > 1 && k->c > 0) /* and in the windows over it */
    ((float *)tfs_tensor_data(xv))[tfs_tensor_num_elements(xv) / 3] = NAN;
  tfs_tensor *conv = NULL;
  char msg[1024];
  tfs_code code = run_op(k, "-", xv, fv, bv, zv, threads, &conv, msg,
                         sizeof msg);
  if (code != TFS_OK) fprintf(stderr, "\n  Conv2D failed: %s\n", msg);
  CU_ASSERT_EQUAL_FATAL(code, TFS_OK);
  const float *cv = tfs_tensor_data(conv), *b = tfs_tensor_data(bv);
  const int64_t plane = yd[2] * yd[3];
  /* with the addend, and (the plain fused op's epilogue in the GEMM's
   * store or after it) without */
  tfs_tensor *sums[2] = {nt_f32(yd, 4, NULL), nt_f32(yd, 4, NULL)};
  float *v = tfs_tensor_data(sums[0]), *vb = tfs_tensor_data(sums[1]);
  for (int64_t i = 0; i < ny; i++) {
    int64_t ch = k->nchw ? (i / plane) % k->kn : i % k->kn;
    vb[i] = cv[i] + b[ch];
    v[i] = vb[i] + z[i];
  }
  for (int plain = 0; plain < 2; plain++)
    for (size_t ai = 0; ai < sizeof kActs / sizeof kActs[0]; ai++) {
      const char *act = kActs[ai];
      nt_attr alpha = NT_FLOAT("alpha", 0.3f);
      tfs_tensor *want = act ? nt_run1(act, &sums[plain], 1, &alpha,
                                       strcmp(act, "LeakyRelu") == 0)
                             : NULL;
      tfs_tensor *y = NULL;
      code = run_op(k, act, xv, fv, bv, plain ? NULL : zv, threads, &y, msg,
                    sizeof msg);
      if (code != TFS_OK) fprintf(stderr, "\n  fused failed: %s\n", msg);
      CU_ASSERT_EQUAL_FATAL(code, TFS_OK);
      nt_check_f32(y, yd, 4, tfs_tensor_data(want ? want : sums[plain]), 0,
                   0);
      const float *got = tfs_tensor_data(y);
      if (!plain) CU_ASSERT(got[ny / 2] != got[ny / 2]);
      tfs_tensor_free(y);
      tfs_tensor_free(want);
    }
  tfs_tensor_free(sums[0]);
  tfs_tensor_free(sums[1]);
  tfs_tensor_free(conv);
  tfs_tensor *ts[] = {xv, fv, bv, zv};
  for (int i = 0; i < 4; i++) tfs_tensor_free(ts[i]);
}

static void run_cases(void *arg) {
  (void)arg;
  for (size_t i = 0; i < sizeof kCases / sizeof kCases[0]; i++)
    for (int threads = 1; threads <= 4; threads += 3)
      run_case(&kCases[i], threads, 700 + 10 * (uint32_t)i);
}

static void test_fused_conv_add_paths(void) {
  CU_ASSERT_TRUE(nt_each_conv_path("conv-add", run_cases, NULL) >= 1);
}

/* Runs a one-node graph of `op` on x [1, 4, 4, 8], filter, args and the
 * given fused_ops; asserts it fails with `code` and `needle`. */
static void expect_error(const char *op, const char *const *ops, int nops,
                         int64_t num_args, tfs_tensor *const *args, int nargs,
                         tfs_code code, const char *needle) {
  tfs_status *st = tfs_status_new();
  tfs_graph *g = tfs_graph_new();
  const int dw = strcmp(op, "_FusedDepthwiseConv2dNative") == 0;
  int64_t xd[4] = {1, 4, 4, 8}, fd[4] = {1, 1, 8, dw ? 1 : 8};
  tfs_tensor *xv = nt_random(xd, 4, 1), *fv = nt_random(fd, 4, 2);
  tfs_op_desc *d = tfs_op_desc_new(g, op, "node");
  tfs_op_desc_add_input(d, tfs_op_const(g, "x", xv, st));
  tfs_op_desc_add_input(d, tfs_op_const(g, "f", fv, st));
  tfs_output a[4];
  for (int i = 0; i < nargs; i++) {
    char name[16];
    snprintf(name, sizeof name, "a%d", i);
    a[i] = tfs_op_placeholder(g, name, tfs_tensor_dtype(args[i]), NULL, -1,
                              st);
  }
  tfs_op_desc_add_input_list(d, a, nargs);
  if (!dw) tfs_op_desc_add_input_list(d, NULL, 0); /* host_args */
  const void *p[4];
  size_t lens[4];
  for (int i = 0; i < nops; i++) p[i] = ops[i], lens[i] = strlen(ops[i]);
  tfs_op_desc_set_attr_string_list(d, "fused_ops", p, lens, nops);
  tfs_op_desc_set_attr_int(d, "num_args", num_args);
  nt_attr at[2] = {NT_LIST4("strides", 1, 1, 1, 1), NT_STR("padding", "SAME")};
  nt_set_attrs(d, at, 2);
  if (strcmp(op, "_TfsFusedConv2DMaxPool") == 0) {
    nt_attr pa[2] = {NT_LIST4("pool_ksize", 1, 2, 2, 1),
                     NT_LIST4("pool_strides", 1, 2, 2, 1)};
    nt_set_attrs(d, pa, 2);
  }
  tfs_operation *o = tfs_op_desc_finish(d, st);
  TFS_ASSERT_OK(st);
  tfs_session *s = tfs_session_new(g, NULL, st);
  TFS_ASSERT_OK(st);
  tfs_output fetch = {o, 0};
  tfs_tensor *out = NULL;
  tfs_session_run(s, a, (tfs_tensor **)args, nargs, &fetch, &out, 1, NULL, 0,
                  st);
  const char *m = tfs_status_message(st);
  int ok = tfs_status_code(st) == code && strstr(m, needle) &&
           strstr(m, "{{node node}}");
  if (!ok)
    fprintf(stderr, "\n  expected %s \"%s\"\n    got %s: %s\n",
            tfs_code_name(code), needle, tfs_code_name(tfs_status_code(st)),
            m);
  CU_ASSERT_TRUE(ok);
  tfs_tensor_free(out);
  tfs_tensor_free(xv);
  tfs_tensor_free(fv);
  tfs_session_free(s);
  tfs_graph_free(g);
  tfs_status_free(st);
}

/* The addend must have the output's shape and be float (no
 * broadcasting: the remapper fuses equal shapes only); "Add" only after
 * "BiasAdd", on _FusedConv2D alone, with its two arguments (and a bias
 * alone with one). */
static void test_fused_conv_add_errors(void) {
  static const char *const kAdd[2] = {"BiasAdd", "Add"};
  static const char *const kLate[3] = {"BiasAdd", "Relu", "Add"};
  static const char *const kBn[2] = {"FusedBatchNorm", "Add"};
  int64_t bd[1] = {8}, row[4] = {1, 1, 1, 8}, full[4] = {1, 4, 4, 8};
  static const float kBias[8] = {0.5f, -1, 2, 0, 1, -0.25f, 3, 1};
  tfs_tensor *bias = nt_f32(bd, 1, kBias), *zrow = nt_random(row, 4, 4);
  tfs_tensor *zint = nt_tensor(TFS_INT32, full, 4, NULL);
  memset(tfs_tensor_data(zint), 0, tfs_tensor_byte_size(zint));
  tfs_tensor *a1[2] = {bias, zrow}, *a2[2] = {bias, zint}, *a0[1] = {bias};
  expect_error("_FusedConv2D", kAdd, 2, 2, a1, 2, TFS_INVALID_ARGUMENT,
               "the addend of a fused Add must be a float tensor of the "
               "convolution's output shape [1,4,4,8], got float [1,1,1,8]");
  expect_error("_FusedConv2D", kAdd, 2, 2, a2, 2, TFS_INVALID_ARGUMENT,
               "output shape [1,4,4,8], got int32 [1,4,4,8]");
  expect_error("_FusedConv2D", kAdd, 2, 1, a0, 1, TFS_UNIMPLEMENTED,
               "Fusion is not implemented: [BiasAdd,Add]");
  expect_error("_FusedConv2D", kAdd, 2, 2, a0, 1, TFS_INVALID_ARGUMENT,
               "Fused Conv2D with Add must have two extra arguments: bias "
               "and addend.");
  expect_error("_FusedConv2D", kAdd, 1, 1, a1, 2, TFS_INVALID_ARGUMENT,
               "Fused Conv2D must have one extra argument: bias.");
  expect_error("_FusedConv2D", kLate, 3, 2, a1, 2, TFS_UNIMPLEMENTED,
               "Fusion is not implemented: [BiasAdd,Relu,Add]");
  expect_error("_FusedConv2D", kBn, 2, 5, a1, 2, TFS_UNIMPLEMENTED,
               "Fusion is not implemented: [FusedBatchNorm,Add]");
  expect_error("_FusedDepthwiseConv2dNative", kAdd, 2, 2, a1, 2,
               TFS_UNIMPLEMENTED, "Fusion is not implemented: [BiasAdd,Add]");
  expect_error("_TfsFusedConv2DMaxPool", kAdd, 2, 2, a1, 2,
               TFS_UNIMPLEMENTED,
               "Fusion is not implemented: [BiasAdd,Add] with a pool");
  tfs_tensor_free(bias);
  tfs_tensor_free(zrow);
  tfs_tensor_free(zint);
}

static const tfs_test_case kCasesAdd[] = {
    {"paths", test_fused_conv_add_paths},
    {"errors", test_fused_conv_add_errors},
    {NULL, NULL},
};

const tfs_test_suite tfs_test_suites[] = {
    {"fused_conv_add", kCasesAdd},
    {NULL, NULL},
};
