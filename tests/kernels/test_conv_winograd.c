/*
 * tests/kernels/test_conv_winograd.c - 3x3 stride-1 float convolutions on
 * the Winograd F(2x2, 3x3) path (backends/cpu/conv_winograd.h) and on the
 * direct GEMM path, each against a float64 direct convolution: odd
 * images, channel counts off the vector width, SAME / VALID / EXPLICIT
 * padding, batches, one and four threads, several blocks; the AVX2 and
 * portable transforms give the same bits; the fused bias and Relu (in
 * the tile store) and Relu6 (per finished strip); the shapes that stay on
 * the direct path.  Errors are measured against the scale of each
 * output, sum |x| |w| over its window.
 */
#include "core/cpu.h"
#include "backends/cpu/conv_winograd.h"
#include "nn_test_util.h"

typedef struct wcase {
  int n, h, w, c, kn;
  const char *padding;
  int pads[4];       /* EXPLICIT: top, bottom, left, right */
  int stride, dil;   /* 0 for 1 */
} wcase;

/* Output size and padding before, as TensorFlow computes them. */
static int out_dim(int in, const char *pad, int pb, int pa, int *before) {
  if (strcmp(pad, "SAME") == 0) {
    int need = in - 1 + 3 - in;
    *before = need / 2;
    return in;
  }
  if (strcmp(pad, "VALID") == 0) pb = pa = 0;
  *before = pb;
  return in + pb + pa - 2;
}

/* Float64 direct convolution: want and the scale sum |x| |w|. */
static void reference(const wcase *k, const float *x, const float *f, int oh,
                      int ow, int pt, int pl, double *want, double *scale) {
  for (int b = 0; b < k->n; b++)
    for (int oy = 0; oy < oh; oy++)
      for (int ox = 0; ox < ow; ox++)
        for (int o = 0; o < k->kn; o++) {
          double acc = 0, mag = 0;
          for (int ky = 0; ky < 3; ky++)
            for (int kx = 0; kx < 3; kx++) {
              int iy = oy - pt + ky, ix = ox - pl + kx;
              if (iy < 0 || iy >= k->h || ix < 0 || ix >= k->w) continue;
              const float *xp =
                  x + (((int64_t)b * k->h + iy) * k->w + ix) * k->c;
              const float *fp = f + (int64_t)(ky * 3 + kx) * k->c * k->kn + o;
              for (int q = 0; q < k->c; q++) {
                double p = (double)xp[q] * fp[(int64_t)q * k->kn];
                acc += p;
                mag += fabs(p);
              }
            }
          int64_t i = (((int64_t)b * oh + oy) * ow + ox) * k->kn + o;
          want[i] = acc;
          scale[i] = mag;
        }
}

/* x (placeholder) -> Conv2D with constant filter fv [-> BiasAdd bv ->
 * act] on `threads` intra-op threads; returns the output. */
static tfs_tensor *run_graph(const wcase *k, tfs_tensor *xv, tfs_tensor *fv,
                             tfs_tensor *bv, const char *act, int threads) {
  tfs_status *st = tfs_status_new();
  tfs_graph *g = tfs_graph_new();
  /* the input's depth must be known at prepare for the filter's packing */
  int64_t xd[4] = {-1, -1, -1, k->c};
  tfs_output x = tfs_op_placeholder(g, "x", TFS_FLOAT, xd, 4, st);
  tfs_output f = tfs_op_const(g, "f", fv, st);
  tfs_op_desc *d = tfs_op_desc_new(g, "Conv2D", "conv");
  tfs_op_desc_add_input(d, x);
  tfs_op_desc_add_input(d, f);
  int sd = k->stride ? k->stride : 1, dd = k->dil ? k->dil : 1;
  nt_attr a[4] = {NT_LIST4("strides", 1, sd, sd, 1),
                  NT_LIST4("dilations", 1, dd, dd, 1),
                  NT_STR("padding", k->padding)};
  int na = 3;
  if (strcmp(k->padding, "EXPLICIT") == 0) {
    nt_attr e = {"explicit_paddings", 'l', 8, {0}, NULL, 0};
    e.iv[2] = k->pads[0]; /* NHWC: H is dimension 1, W 2 */
    e.iv[3] = k->pads[1];
    e.iv[4] = k->pads[2];
    e.iv[5] = k->pads[3];
    a[na++] = e;
  }
  nt_set_attrs(d, a, na);
  tfs_output y = {tfs_op_desc_finish(d, st), 0};
  if (bv) {
    tfs_output b = tfs_op_const(g, "b", bv, st);
    d = tfs_op_desc_new(g, "BiasAdd", "bias");
    tfs_op_desc_add_input(d, y);
    tfs_op_desc_add_input(d, b);
    y = (tfs_output){tfs_op_desc_finish(d, st), 0};
    d = tfs_op_desc_new(g, act, "act");
    tfs_op_desc_add_input(d, y);
    y = (tfs_output){tfs_op_desc_finish(d, st), 0};
  }
  TFS_ASSERT_OK(st);
  tfs_session_options *o = tfs_session_options_new();
  tfs_session_options_set_intra_op_threads(o, threads);
  tfs_session *s = tfs_session_new(g, o, st);
  TFS_ASSERT_OK(st);
  tfs_tensor *out = NULL;
  tfs_session_run(s, &x, &xv, 1, &y, &out, 1, NULL, 0, st);
  TFS_ASSERT_OK(st);
  tfs_session_free(s);
  tfs_session_options_free(o);
  tfs_graph_free(g);
  tfs_status_free(st);
  return out;
}

/* The largest |got - want| / scale, and |got - want| / max |want|. */
static void errors(const tfs_tensor *t, const double *want,
                   const double *scale, int64_t n, double *rel_scale,
                   double *rel_max) {
  const float *got = tfs_tensor_data(t);
  double e1 = 0, e2 = 0, top = 0;
  for (int64_t i = 0; i < n; i++) {
    double e = fabs(got[i] - want[i]);
    if (scale[i] > 0 && e / scale[i] > e1) e1 = e / scale[i];
    if (e > e2) e2 = e;
    if (fabs(want[i]) > top) top = fabs(want[i]);
  }
  *rel_scale = e1;
  *rel_max = top > 0 ? e2 / top : e2;
}

static const wcase kCases[] = {
    {1, 8, 8, 32, 32, "SAME", {0}},
    {1, 4, 5, 24, 24, "SAME", {0}},       /* the smallest that runs */
    {2, 7, 7, 64, 72, "SAME", {0}},       /* 7 x 7: half-empty tiles */
    {2, 9, 11, 33, 40, "SAME", {0}},      /* odd sizes, channel tails */
    {1, 13, 10, 48, 35, "VALID", {0}},    /* 11 x 8 */
    {3, 17, 16, 64, 64, "SAME", {0}},
    {1, 12, 9, 37, 70, "EXPLICIT", {1, 2, 0, 1}}, /* 13 x 8 */
    {1, 30, 30, 96, 48, "SAME", {0}},     /* several blocks */
    {2, 40, 40, 32, 32, "SAME", {0}},     /* several blocks, threads */
};

/* Each case on both paths, one and four threads: within 4e-7 of the
 * window's scale; the Winograd path ran exactly when on. */
static void test_paths(void) {
  double worst[2] = {0, 0}, worst_max[2] = {0, 0};
  for (size_t ci = 0; ci < sizeof kCases / sizeof *kCases; ci++) {
    const wcase *k = &kCases[ci];
    int pt, pl;
    int oh = out_dim(k->h, k->padding, k->pads[0], k->pads[1], &pt);
    int ow = out_dim(k->w, k->padding, k->pads[2], k->pads[3], &pl);
    tfs_tensor *xv = nt_random((int64_t[]){k->n, k->h, k->w, k->c}, 4,
                               11 + (uint32_t)ci);
    tfs_tensor *fv = nt_random((int64_t[]){3, 3, k->c, k->kn}, 4,
                               23 + (uint32_t)ci);
    int64_t ny = (int64_t)k->n * oh * ow * k->kn;
    double *want = malloc(sizeof(double) * (size_t)ny);
    double *scale = malloc(sizeof(double) * (size_t)ny);
    reference(k, tfs_tensor_data(xv), tfs_tensor_data(fv), oh, ow, pt, pl,
              want, scale);
    for (int on = 1; on >= 0; on--)
      for (int threads = 1; threads <= 4; threads += 3) {
        tfs_conv__set_winograd(on);
        int64_t calls = tfs_conv__winograd_calls();
        tfs_tensor *y = run_graph(k, xv, fv, NULL, NULL, threads);
        CU_ASSERT_EQUAL(tfs_conv__winograd_calls() - calls, on);
        CU_ASSERT_EQUAL_FATAL(tfs_tensor_num_elements(y), ny);
        double e1, e2;
        errors(y, want, scale, ny, &e1, &e2);
        if (e1 > 4e-7)
          fprintf(stderr, "\n  case %zu winograd=%d: error %.3g of scale",
                  ci, on, e1);
        CU_ASSERT(e1 <= 4e-7);
        if (e1 > worst[on]) worst[on] = e1;
        if (e2 > worst_max[on]) worst_max[on] = e2;
        tfs_tensor_free(y);
      }
    free(want);
    free(scale);
    tfs_tensor_free(xv);
    tfs_tensor_free(fv);
  }
  tfs_conv__set_winograd(-1);
  printf("\n  max error / sum|x||w|: direct %.3g, winograd %.3g; "
         "/ max|y|: direct %.3g, winograd %.3g\n",
         worst[0], worst[1], worst_max[0], worst_max[1]);
}

/* The AVX-512 and AVX2 transforms give the portable ones' bits (the
 * GEMM is the same in every run: its family is chosen once): each level
 * this CPU has against the portable forms, capped by
 * tfs_cpu__set_max_isa. */
static void test_transforms_same_bits(void) {
  static const struct {
    const char *name;
    int isa;
  } kLevels[] = {{"avx512", TFS_CPU_ISA_AVX512}, {"avx2", TFS_CPU_ISA_AVX2}};
  tu_cpu_path("winograd", "portable", NULL);
  tfs_conv__set_winograd(1);
  for (size_t li = 0; li < sizeof kLevels / sizeof kLevels[0]; li++) {
    const char *why = tu_isa_unavailable(kLevels[li].isa);
    tu_cpu_path("winograd", kLevels[li].name, why);
    if (why) continue;
    for (size_t ci = 0; ci < sizeof kCases / sizeof *kCases; ci++) {
      const wcase *k = &kCases[ci];
      tfs_tensor *xv = nt_random((int64_t[]){k->n, k->h, k->w, k->c}, 4,
                                 31 + (uint32_t)ci);
      tfs_tensor *fv = nt_random((int64_t[]){3, 3, k->c, k->kn}, 4,
                                 37 + (uint32_t)ci);
      tfs_cpu__set_max_isa(kLevels[li].isa);
      tfs_tensor *y1 = run_graph(k, xv, fv, NULL, NULL, 1);
      tfs_cpu__set_max_isa(TFS_CPU_ISA_SSE42);
      tfs_tensor *y0 = run_graph(k, xv, fv, NULL, NULL, 1);
      tfs_cpu__set_max_isa(-1);
      CU_ASSERT_EQUAL_FATAL(tfs_tensor_num_elements(y0),
                            tfs_tensor_num_elements(y1));
      CU_ASSERT(memcmp(tfs_tensor_data(y0), tfs_tensor_data(y1),
                       sizeof(float) *
                           (size_t)tfs_tensor_num_elements(y0)) == 0);
      tfs_tensor_free(y0);
      tfs_tensor_free(y1);
      tfs_tensor_free(xv);
      tfs_tensor_free(fv);
    }
  }
  tfs_conv__set_winograd(-1);
}

/* Conv2D + BiasAdd + Relu (bias and Relu in the tile store) and + Relu6
 * (the epilogue per finished strip) with a NaN pixel: NaN stays in the
 * 3x3 windows over it and nowhere else. */
static void test_fused(void) {
  static const wcase k = {2, 11, 9, 40, 36, "SAME", {0}};
  static const char *acts[] = {"Relu", "Relu6"};
  tfs_tensor *xv = nt_random((int64_t[]){k.n, k.h, k.w, k.c}, 4, 5);
  tfs_tensor *fv = nt_random((int64_t[]){3, 3, k.c, k.kn}, 4, 6);
  float bias_v[36];
  for (int i = 0; i < 36; i++) bias_v[i] = 0.25f * (float)(i % 7) - 0.75f;
  tfs_tensor *bv = nt_f32((int64_t[]){k.kn}, 1, bias_v);
  ((float *)tfs_tensor_data(xv))[((k.h + 4) * k.w + 6) * k.c + 3] = NAN;
  int64_t ny = (int64_t)k.n * k.h * k.w * k.kn;
  double *want = malloc(sizeof(double) * (size_t)ny);
  double *scale = malloc(sizeof(double) * (size_t)ny);
  reference(&k, tfs_tensor_data(xv), tfs_tensor_data(fv), k.h, k.w, 1, 1,
            want, scale);
  const float *bias = tfs_tensor_data(bv);
  for (int a = 0; a < 2; a++) {
    float *w = malloc(sizeof(float) * (size_t)ny);
    int nans = 0;
    for (int64_t i = 0; i < ny; i++) {
      float v = (float)want[i] + bias[i % k.kn];
      v = v < 0 ? 0 : v;
      w[i] = a == 1 && v > 6 ? 6 : v;
      nans += v != v;
    }
    CU_ASSERT_EQUAL(nans, 9 * k.kn);
    for (int threads = 1; threads <= 4; threads += 3) {
      tfs_conv__set_winograd(1);
      int64_t calls = tfs_conv__winograd_calls();
      tfs_tensor *y = run_graph(&k, xv, fv, bv, acts[a], threads);
      CU_ASSERT_EQUAL(tfs_conv__winograd_calls() - calls, 1);
      nt_check_f32(y, (int64_t[]){k.n, k.h, k.w, k.kn}, 4, w, 1e-5, 1e-4);
      tfs_tensor_free(y);
    }
    free(w);
  }
  tfs_conv__set_winograd(-1);
  free(want);
  free(scale);
  tfs_tensor *t[] = {xv, fv, bv};
  for (int i = 0; i < 3; i++) tfs_tensor_free(t[i]);
}

/* What stays on the direct path (checked against the reference by
 * test_nn_conv): few channels, a small output, strides, dilations. */
static void test_not_taken(void) {
  static const wcase cases[] = {
      {1, 10, 10, 16, 32, "SAME", {0}, 0, 0},
      {1, 10, 10, 32, 16, "SAME", {0}, 0, 0},
      {1, 5, 6, 32, 32, "VALID", {0}, 0, 0}, /* 3 x 4 */
      {1, 3, 9, 32, 32, "SAME", {0}, 0, 0},
      {1, 12, 12, 32, 32, "SAME", {0}, 2, 0},
      {1, 12, 12, 32, 32, "SAME", {0}, 0, 2},
  };
  tfs_conv__set_winograd(1);
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    const wcase *k = &cases[i];
    tfs_tensor *xv = nt_random((int64_t[]){k->n, k->h, k->w, k->c}, 4, 3);
    tfs_tensor *fv = nt_random((int64_t[]){3, 3, k->c, k->kn}, 4, 4);
    int64_t calls = tfs_conv__winograd_calls();
    tfs_tensor *y = run_graph(k, xv, fv, NULL, NULL, 1);
    CU_ASSERT_EQUAL(tfs_conv__winograd_calls(), calls);
    tfs_tensor_free(y);
    tfs_tensor_free(xv);
    tfs_tensor_free(fv);
  }
  /* a filter fed at run time is not transformed */
  tfs_tensor *in[2] = {nt_random((int64_t[]){1, 10, 10, 32}, 4, 5),
                       nt_random((int64_t[]){3, 3, 32, 32}, 4, 6)};
  nt_attr a[2] = {NT_LIST4("strides", 1, 1, 1, 1), NT_STR("padding", "SAME")};
  int64_t calls = tfs_conv__winograd_calls();
  tfs_tensor *y = nt_run1("Conv2D", in, 2, a, 2);
  CU_ASSERT_EQUAL(tfs_conv__winograd_calls(), calls);
  tfs_tensor_free(y);
  tfs_tensor_free(in[0]);
  tfs_tensor_free(in[1]);
  tfs_conv__set_winograd(-1);
}

static const tfs_test_case kWino[] = {
    {"paths", test_paths},
    {"transforms_same_bits", test_transforms_same_bits},
    {"fused", test_fused},
    {"not_taken", test_not_taken},
    {NULL, NULL},
};

const tfs_test_suite tfs_test_suites[] = {
    {"conv_winograd", kWino},
    {NULL, NULL},
};
