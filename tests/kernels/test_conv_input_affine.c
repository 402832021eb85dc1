/*
 * tests/kernels/test_conv_input_affine.c - a fused convolution that maps
 * its input as it reads it (_tfs_input_scale / _tfs_input_shift, the
 * remapper's fold of Keras's Rescaling): the bits of the same op without
 * the map fed the mapped input (product rounded, then the sum), on every
 * path a convolution can take: the indirect GEMM on a zero-padded copy
 * (where the map goes) or on a copy without padding, packed patches,
 * OpenBLAS, the thin pointwise product, Winograd, NCHW, the depthwise
 * op, and _TfsFusedConv2DMaxPool on its GEMM and Winograd paths; scale
 * only, shift only and both; 1 and 3 threads; NaN and infinities in the
 * input.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cpu/conv_winograd.h"
#include "conv_paths.h"
#include "nn_test_util.h"

typedef struct aff_case {
  const char *op;
  int n, h, w, c, k, s, kn; /* the filter k x k x c x kn (depthwise: x 1) */
  const char *padding;
  int nchw, pool, wino; /* wino: the Winograd path takes it */
} aff_case;

static const aff_case kCases[] = {
    {"_FusedConv2D", 1, 15, 13, 3, 3, 2, 16, "SAME", 0, 0, 0}, /* a stem */
    {"_FusedConv2D", 2, 6, 7, 8, 1, 1, 24, "VALID", 0, 0, 0}, /* no pad */
    {"_FusedConv2D", 1, 9, 8, 24, 3, 1, 32, "SAME", 0, 0, 1},
    {"_FusedConv2D", 1, 1, 2, 40, 1, 1, 56, "VALID", 0, 0, 0}, /* thin */
    {"_FusedConv2D", 1, 7, 6, 5, 3, 1, 12, "SAME", 1, 0, 0},   /* NCHW */
    {"_FusedDepthwiseConv2dNative", 1, 8, 9, 16, 3, 1, 1, "SAME", 0, 0, 0},
    {"_TfsFusedConv2DMaxPool", 1, 10, 8, 6, 3, 2, 20, "SAME", 0, 2, 0},
    {"_TfsFusedConv2DMaxPool", 1, 8, 8, 24, 3, 1, 24, "SAME", 0, 2, 1},
};

/* The op of case k on x (fed) with `map` (0: none, 1: scale, 2: shift,
 * 3: both) on `threads` intra-op threads; the output. */
static tfs_tensor *run_op(const aff_case *k, int map, float scale,
                          float shift, tfs_tensor *xv, tfs_tensor *fv,
                          tfs_tensor *bv, int threads) {
  tfs_status *st = tfs_status_new();
  tfs_graph *g = tfs_graph_new();
  /* the depth known at prepare: the filter packed (and transformed for
   * Winograd) once */
  const int64_t xd[4] = {-1, k->nchw ? k->c : -1, -1, k->nchw ? -1 : k->c};
  tfs_output x = tfs_op_placeholder(g, "x", TFS_FLOAT, xd, 4, st);
  tfs_op_desc *d = tfs_op_desc_new(g, k->op, "node");
  const int dw = strcmp(k->op, "_FusedDepthwiseConv2dNative") == 0;
  tfs_op_desc_add_input(d, x);
  tfs_op_desc_add_input(d, tfs_op_const(g, "f", fv, st));
  tfs_output b = tfs_op_const(g, "b", bv, st);
  tfs_op_desc_add_input_list(d, &b, 1);
  if (!dw) tfs_op_desc_add_input_list(d, NULL, 0); /* host_args */
  const void *ops[2] = {"BiasAdd", "Relu"};
  size_t lens[2] = {7, 4};
  tfs_op_desc_set_attr_string_list(d, "fused_ops", ops, lens, 2);
  tfs_op_desc_set_attr_int(d, "num_args", 1);
  if (map & 1) tfs_op_desc_set_attr_float(d, "_tfs_input_scale", scale);
  if (map & 2) tfs_op_desc_set_attr_float(d, "_tfs_input_shift", shift);
  nt_attr a[3] = {NT_LIST4("strides", 1, k->nchw ? 1 : k->s, k->s,
                           k->nchw ? k->s : 1),
                  NT_STR("padding", k->padding),
                  NT_STR("data_format", k->nchw ? "NCHW" : "NHWC")};
  nt_set_attrs(d, a, 3);
  if (k->pool) {
    nt_attr pa[2] = {NT_LIST4("pool_ksize", 1, k->pool, k->pool, 1),
                     NT_LIST4("pool_strides", 1, k->pool, k->pool, 1)};
    nt_set_attrs(d, pa, 2);
  }
  tfs_operation *o = tfs_op_desc_finish(d, st);
  TFS_ASSERT_OK(st);
  tfs_session_options *so = tfs_session_options_new();
  tu_own_pools(so, threads);
  tfs_session *s = tfs_session_new(g, so, st);
  TFS_ASSERT_OK(st);
  tfs_output fetch = {o, 0};
  tfs_tensor *out = NULL;
  tfs_session_run(s, &x, &xv, 1, &fetch, &out, 1, NULL, 0, st);
  TFS_ASSERT_OK(st);
  tfs_session_free(s);
  tfs_session_options_free(so);
  tfs_graph_free(g);
  tfs_status_free(st);
  return out;
}

/* x mapped by the Mul and AddV2 ops the map stands for. */
static tfs_tensor *mapped(tfs_tensor *xv, int map, float scale,
                          float shift) {
  tfs_tensor *t = xv;
  for (int step = 0; step < 2; step++) {
    if (!(map & (1 << step))) continue;
    float v = step ? shift : scale;
    tfs_tensor *in[2] = {t, nt_f32(NULL, 0, &v)};
    tfs_tensor *r = nt_run1(step ? "AddV2" : "Mul", in, 2, NULL, 0);
    tfs_tensor_free(in[1]);
    if (t != xv) tfs_tensor_free(t);
    t = r;
  }
  return t;
}

static void run_case(const aff_case *k, uint32_t seed) {
  const int dw = strcmp(k->op, "_FusedDepthwiseConv2dNative") == 0;
  int64_t xd[4] = {k->n, k->nchw ? k->c : k->h, k->nchw ? k->h : k->w,
                   k->nchw ? k->w : k->c};
  int64_t fd[4] = {k->k, k->k, k->c, dw ? 1 : k->kn};
  int64_t bd[1] = {dw ? k->c : k->kn};
  tfs_tensor *xv = nt_random(xd, 4, seed), *fv = nt_random(fd, 4, seed + 1);
  tfs_tensor *bv = nt_random(bd, 1, seed + 2);
  float *x = tfs_tensor_data(xv);
  for (int64_t i = 0; i < tfs_tensor_num_elements(xv); i++)
    x[i] = 255.0f * (x[i] + 1.0f) / 2.0f; /* an image's range */
  const int64_t nx = tfs_tensor_num_elements(xv);
  if (k->n * k->h * k->w > 2) { /* each reaches only its windows */
    x[nx / 3] = NAN;
    x[nx / 2] = INFINITY;
  }
  for (int map = 1; map <= 3; map++)
    for (int threads = 1; threads <= 3; threads += 2) {
      const float scale = 1.0f / 127.5f, shift = map == 2 ? -0.5f : -1.0f;
      tfs_tensor *xm = mapped(xv, map, scale, shift);
      tfs_tensor *want = run_op(k, 0, 0, 0, xm, fv, bv, threads);
      int64_t calls = tfs_conv__winograd_calls();
      tfs_tensor *got = run_op(k, map, scale, shift, xv, fv, bv, threads);
      CU_ASSERT_EQUAL(tfs_conv__winograd_calls() - calls, k->wino);
      CU_ASSERT_PTR_NOT_NULL_FATAL(want);
      CU_ASSERT_PTR_NOT_NULL_FATAL(got);
      CU_ASSERT_EQUAL_FATAL(tfs_tensor_byte_size(got),
                            tfs_tensor_byte_size(want));
      const float *w = tfs_tensor_data(want), *y = tfs_tensor_data(got);
      int bad = 0, nan = 0;
      for (int64_t i = 0; i < tfs_tensor_num_elements(got); i++) {
        nan += isnan(w[i]);
        bad += !(w[i] == y[i] || (isnan(w[i]) && isnan(y[i])));
      }
      if (bad)
        fprintf(stderr, "\n  %s %dx%dx%dx%d k%d s%d map %d threads %d: %d "
                "outputs not the unmapped op's on the mapped input", k->op,
                k->n, k->h, k->w, k->c, k->k, k->s, map, threads, bad);
      CU_ASSERT_EQUAL(bad, 0);
      /* the NaN's reach (MaxPool passes over NaN, as TensorFlow's) */
      if (k->n * k->h * k->w > 2 && !k->pool) CU_ASSERT(nan > 0);
      tfs_tensor_free(want);
      tfs_tensor_free(got);
      tfs_tensor_free(xm);
    }
  tfs_tensor_free(xv);
  tfs_tensor_free(fv);
  tfs_tensor_free(bv);
}

static void run_cases(void *arg) {
  (void)arg;
  for (size_t i = 0; i < sizeof kCases / sizeof kCases[0]; i++)
    run_case(&kCases[i], 900 + 10 * (uint32_t)i);
}

static void test_conv_input_affine(void) {
  CU_ASSERT_TRUE(nt_each_conv_path("conv-input-affine", run_cases, NULL) >=
                 1);
}

static const tfs_test_case kAffine[] = {
    {"paths", test_conv_input_affine},
    {NULL, NULL},
};

const tfs_test_suite tfs_test_suites[] = {
    {"conv_input_affine", kAffine},
    {NULL, NULL},
};
