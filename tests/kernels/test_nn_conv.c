/*
 * tests/kernels/test_nn_conv.c - Conv2D, DepthwiseConv2dNative and
 * Conv2DBackpropInput against direct reference loops over every padding,
 * stride, dilation, group and layout variant, 16-bit and integer dtypes,
 * and every input the kernels reject (TensorFlow's messages).
 */
#include "core/cpu.h"
#include "core/half.h"
#include "backends/cpu/conv_common.h"
#include "backends/cpu/fused_conv_dw.h"
#include "backends/cpu/gemm.h"
#include "kernels/kernel.h"
#include "conv_paths.h"
#include "nn_test_util.h"

/* One configuration; filter is [kh, kw, kc, kn] (HWIO). */
typedef struct conv_case {
  int n, h, w, c, kh, kw, kc, kn;
  int sh, sw, dh, dw;
  const char *padding;
  int pads[4]; /* EXPLICIT: top, bottom, left, right */
  int nchw;
} conv_case;

static int64_t out_size(int in, int k, int d, int s, const char *p, int pb,
                        int pa, int *before) {
  int eff = (k - 1) * d + 1;
  if (strcmp(p, "SAME") == 0) {
    int o = (in + s - 1) / s;
    int need = (o - 1) * s + eff - in;
    if (need < 0) need = 0;
    *before = need / 2;
    return o;
  }
  if (strcmp(p, "VALID") == 0) pb = pa = 0;
  *before = pb;
  return (in + pb + pa - eff + s) / s;
}

/* NHWC index of (b, y, x, ch) in a tensor laid out as NHWC or NCHW. */
static int64_t idx(int nchw, int h, int w, int c, int b, int y, int x, int ch) {
  return nchw ? (((int64_t)b * c + ch) * h + y) * w + x
              : (((int64_t)b * h + y) * w + x) * c + ch;
}

/* Direct convolution (grouped when c > kc); depthwise when dw_mult. */
static void ref_conv(const conv_case *k, const float *x, const float *f,
                     float *y, int oh, int ow, int pt, int pl, int depthwise) {
  int oc = depthwise ? k->c * k->kn : k->kn;
  int groups = depthwise ? 1 : k->c / k->kc, cog = k->kn / groups;
  for (int b = 0; b < k->n; b++)
    for (int oy = 0; oy < oh; oy++)
      for (int ox = 0; ox < ow; ox++)
        for (int o = 0; o < oc; o++) {
          double acc = 0;
          for (int ky = 0; ky < k->kh; ky++)
            for (int kx = 0; kx < k->kw; kx++) {
              int iy = oy * k->sh - pt + ky * k->dh;
              int ix = ox * k->sw - pl + kx * k->dw;
              if (iy < 0 || iy >= k->h || ix < 0 || ix >= k->w) continue;
              if (depthwise) {
                int ch = o / k->kn, m = o % k->kn;
                acc += x[idx(k->nchw, k->h, k->w, k->c, b, iy, ix, ch)] *
                       f[((ky * k->kw + kx) * k->c + ch) * k->kn + m];
                continue;
              }
              int g = o / cog;
              for (int q = 0; q < k->kc; q++)
                acc += x[idx(k->nchw, k->h, k->w, k->c, b, iy, ix,
                             g * k->kc + q)] *
                       f[((ky * k->kw + kx) * k->kc + q) * k->kn + o];
            }
          y[idx(k->nchw, oh, ow, oc, b, oy, ox, o)] = (float)acc;
        }
}

static void conv_attrs(const conv_case *k, nt_attr *a, int *na) {
  int n = 0;
  if (k->nchw) {
    a[n++] = (nt_attr)NT_LIST4("strides", 1, 1, k->sh, k->sw);
    a[n++] = (nt_attr)NT_LIST4("dilations", 1, 1, k->dh, k->dw);
    a[n++] = (nt_attr)NT_STR("data_format", "NCHW");
  } else {
    a[n++] = (nt_attr)NT_LIST4("strides", 1, k->sh, k->sw, 1);
    a[n++] = (nt_attr)NT_LIST4("dilations", 1, k->dh, k->dw, 1);
  }
  a[n++] = (nt_attr)NT_STR("padding", k->padding);
  if (strcmp(k->padding, "EXPLICIT") == 0) {
    nt_attr e = {"explicit_paddings", 'l', 8, {0}, NULL, 0};
    int h = k->nchw ? 2 : 1, w = k->nchw ? 3 : 2;
    e.iv[2 * h] = k->pads[0];
    e.iv[2 * h + 1] = k->pads[1];
    e.iv[2 * w] = k->pads[2];
    e.iv[2 * w + 1] = k->pads[3];
    a[n++] = e;
  }
  *na = n;
}

static void run_conv_case(const conv_case *k, int depthwise, uint32_t seed) {
  int pt, pl;
  int oh = (int)out_size(k->h, k->kh, k->dh, k->sh, k->padding, k->pads[0],
                         k->pads[1], &pt);
  int ow = (int)out_size(k->w, k->kw, k->dw, k->sw, k->padding, k->pads[2],
                         k->pads[3], &pl);
  int oc = depthwise ? k->c * k->kn : k->kn;
  int64_t xd[4] = {k->n, k->nchw ? k->c : k->h, k->nchw ? k->h : k->w,
                   k->nchw ? k->w : k->c};
  int64_t fd[4] = {k->kh, k->kw, k->kc, k->kn};
  int64_t yd[4] = {k->n, k->nchw ? oc : oh, k->nchw ? oh : ow,
                   k->nchw ? ow : oc};
  tfs_tensor *in[2] = {nt_random(xd, 4, seed), nt_random(fd, 4, seed + 1)};
  nt_attr a[6];
  int na;
  conv_attrs(k, a, &na);
  int64_t ny = (int64_t)k->n * oh * ow * oc;
  float *want = malloc(sizeof(float) * (size_t)(ny ? ny : 1));
  ref_conv(k, tfs_tensor_data(in[0]), tfs_tensor_data(in[1]), want, oh, ow, pt,
           pl, depthwise);
  /* fed (kernel sees shapes at run time) and constant (prepared filter) */
  for (int consts = 0; consts < (ny > 0 ? 2 : 1); consts++) {
    tfs_tensor *y = NULL;
    char msg[1024];
    tfs_code code = nt_run_ex(depthwise ? "DepthwiseConv2dNative" : "Conv2D",
                              in, 2, a, na, &y, 1, msg, sizeof msg, consts);
    if (code != TFS_OK) fprintf(stderr, "\n  conv failed: %s\n", msg);
    CU_ASSERT_EQUAL_FATAL(code, TFS_OK);
    nt_check_f32(y, yd, 4, want, 1e-5, 1e-5);
    tfs_tensor_free(y);
  }
  free(want);
  for (int i = 0; i < 2; i++) tfs_tensor_free(in[i]);
}

static const conv_case kConvCases[] = {
    /* n h w c  kh kw kc kn  sh sw dh dw  padding */
    {1, 5, 5, 3, 3, 3, 3, 4, 1, 1, 1, 1, "SAME", {0}, 0},
    {2, 6, 7, 3, 3, 3, 3, 5, 1, 1, 1, 1, "VALID", {0}, 0},
    {2, 7, 6, 4, 3, 2, 4, 3, 2, 2, 1, 1, "SAME", {0}, 0},
    {1, 8, 8, 2, 3, 3, 2, 2, 2, 1, 1, 1, "VALID", {0}, 0},
    {1, 9, 9, 3, 3, 3, 3, 2, 1, 1, 2, 2, "SAME", {0}, 0},
    {1, 9, 8, 3, 2, 3, 3, 2, 1, 2, 3, 1, "VALID", {0}, 0},
    {2, 5, 5, 3, 3, 3, 3, 4, 1, 1, 1, 1, "EXPLICIT", {1, 2, 0, 3}, 0},
    {1, 6, 6, 2, 3, 3, 2, 3, 2, 2, 1, 1, "EXPLICIT", {2, 0, 1, 1}, 0},
    {2, 4, 4, 8, 1, 1, 8, 6, 1, 1, 1, 1, "VALID", {0}, 0}, /* 1x1 GEMM */
    {1, 5, 5, 8, 1, 1, 8, 6, 2, 2, 1, 1, "SAME", {0}, 0},  /* 1x1 strided */
    {1, 6, 6, 6, 3, 3, 2, 6, 1, 1, 1, 1, "SAME", {0}, 0},  /* 3 groups */
    {1, 4, 4, 4, 1, 1, 2, 4, 1, 1, 1, 1, "VALID", {0}, 0}, /* 1x1 groups */
    {2, 5, 6, 3, 3, 3, 3, 4, 2, 1, 1, 2, "SAME", {0}, 1},  /* NCHW */
    {1, 6, 6, 4, 3, 3, 2, 4, 1, 1, 1, 1, "EXPLICIT", {1, 1, 2, 0}, 1},
    {1, 5, 5, 3, 6, 3, 3, 2, 1, 1, 1, 1, "VALID", {0}, 0},     /* empty out */
    {1, 3, 3, 2, 5, 5, 2, 2, 1, 1, 1, 1, "SAME", {0}, 0},      /* k > input */
    {3, 20, 20, 16, 3, 3, 16, 32, 1, 1, 1, 1, "SAME", {0}, 0}, /* blocks */
};

static void test_conv2d_reference(void) {
  for (size_t i = 0; i < sizeof kConvCases / sizeof *kConvCases; i++)
    run_conv_case(&kConvCases[i], 0, 100 + (uint32_t)i);
}

/* Float convolutions run one of three GEMM paths: patches read in place
 * by the indirect kernels, patches gathered into packed panels (CPUs
 * without indirect kernels) and OpenBLAS on gathered rows.  Every case
 * against the reference on each path this CPU has, plus shapes with
 * partial tiles (channels not a multiple of 16, rows not of 6). */
static const conv_case kPathCases[] = {
    {2, 11, 13, 5, 3, 3, 5, 20, 1, 1, 1, 1, "SAME", {0}, 0},
    {1, 17, 9, 7, 5, 3, 7, 33, 2, 1, 1, 1, "SAME", {0}, 0},
    {3, 8, 8, 12, 3, 3, 4, 9, 1, 2, 2, 1, "VALID", {0}, 0},
    {1, 32, 32, 3, 3, 3, 3, 32, 1, 1, 1, 1, "SAME", {0}, 0},
    /* depth beyond one L1 block: partial sums carried across blocks */
    {1, 6, 7, 64, 3, 3, 64, 20, 1, 1, 1, 1, "SAME", {0}, 0},
    {2, 7, 6, 80, 3, 3, 40, 6, 1, 1, 2, 1, "SAME", {0}, 0},
    /* pointwise on at most four pixels: the thin product */
    {1, 1, 1, 40, 1, 1, 40, 70, 1, 1, 1, 1, "VALID", {0}, 0},
    {2, 1, 2, 33, 1, 1, 33, 24, 1, 1, 1, 1, "SAME", {0}, 0},
    {1, 1, 5, 16, 1, 1, 16, 8, 1, 1, 1, 1, "VALID", {0}, 0},
};

/* The GEMM families a convolution can run on, with the level each needs
 * and whether it has indirect kernels (else patches are always packed). */
static const struct conv_path {
  const char *gemm;
  int isa, indirect;
} kConvPaths[] = {
    {"avx512", TFS_CPU_ISA_AVX512, 1},
    {"avx2", TFS_CPU_ISA_AVX2, 1},
    {"openblas", TFS_CPU_ISA_BASELINE, 0},
};

/* Forces GEMM family i; reports it (and its patch forms) as the "conv"
 * family; returns 0 when it runs here. */
static int force_conv_path(int i) {
  const struct conv_path *cp = &kConvPaths[i];
  const char *why = tu_isa_unavailable(cp->isa);
  CU_ASSERT_EQUAL(tfs_gemm__force_path(cp->gemm), why ? -1 : 0);
  char name[64];
  snprintf(name, sizeof name, "%s-%s", cp->gemm,
           cp->isa == TFS_CPU_ISA_BASELINE ? "im2col" : "packed");
  tu_cpu_path("conv", name, why);
  if (cp->indirect) {
    snprintf(name, sizeof name, "%s-indirect", cp->gemm);
    tu_cpu_path("conv", name, why);
  }
  return why ? -1 : 0;
}

static void test_conv2d_gemm_paths(void) {
  int tried = 0;
  for (int pi = 0; pi < 3; pi++) {
    if (force_conv_path(pi)) continue;
    for (int indirect = 1; indirect >= 0; indirect--) {
      tfs_gemm__set_indirect(indirect);
      for (size_t i = 0; i < sizeof kConvCases / sizeof *kConvCases; i++)
        run_conv_case(&kConvCases[i], 0, 300 + (uint32_t)i);
      for (size_t i = 0; i < sizeof kPathCases / sizeof *kPathCases; i++)
        run_conv_case(&kPathCases[i], 0, 400 + (uint32_t)i);
      tried++;
    }
  }
  tfs_gemm__set_indirect(1);
  tfs_gemm__force_path(NULL);
  CU_ASSERT_TRUE(tried >= 2); /* openblas runs anywhere, both ways */
}

/* A last panel of at most 8 output channels (24, 40, 72 channels) runs
 * the vector kernels' half-width tile: each channel must come out with
 * the bits it has when its panel is full.  oc channels against the same
 * filter widened to 16 more, for 3x3 and 1x1 filters, on each vector
 * path, patches in place and packed, filter fed and constant. */
static void panel_width_case(int kh, int64_t oc, uint32_t seed) {
  const int64_t wide = oc + 16, c = 12;
  int64_t xd[4] = {2, 9, 10, c}, fwd[4] = {kh, kh, c, wide},
          fnd[4] = {kh, kh, c, oc};
  tfs_tensor *x = nt_random(xd, 4, seed), *fw = nt_random(fwd, 4, seed + 1),
             *fn = nt_random(fnd, 4, seed + 2);
  const float *pw = tfs_tensor_data(fw);
  float *pn = tfs_tensor_data(fn);
  for (int64_t t = 0; t < (int64_t)kh * kh * c; t++)
    memcpy(pn + t * oc, pw + t * wide, sizeof(float) * (size_t)oc);
  conv_case k = {2, 9, 10, (int)c, kh, kh, (int)c, 0, 1, 1, 1, 1, "SAME",
                 {0}, 0};
  nt_attr a[6];
  int na;
  conv_attrs(&k, a, &na);
  for (int consts = 0; consts < 2; consts++) {
    tfs_tensor *yw = NULL, *yn = NULL, *iw[2] = {x, fw}, *in[2] = {x, fn};
    char msg[512];
    CU_ASSERT_EQUAL_FATAL(nt_run_ex("Conv2D", iw, 2, a, na, &yw, 1, msg,
                                    sizeof msg, consts), TFS_OK);
    CU_ASSERT_EQUAL_FATAL(nt_run_ex("Conv2D", in, 2, a, na, &yn, 1, msg,
                                    sizeof msg, consts), TFS_OK);
    const float *w = tfs_tensor_data(yw), *n = tfs_tensor_data(yn);
    int64_t px = 2 * 9 * 10, bad = 0;
    for (int64_t i = 0; i < px; i++)
      bad += memcmp(n + i * oc, w + i * wide, sizeof(float) * (size_t)oc) != 0;
    if (bad)
      fprintf(stderr, "\n  %dx%d conv, %lld channels: %lld pixels differ "
              "from the widened filter's", kh, kh, (long long)oc,
              (long long)bad);
    CU_ASSERT_EQUAL(bad, 0);
    tfs_tensor_free(yw);
    tfs_tensor_free(yn);
  }
  tfs_tensor_free(x);
  tfs_tensor_free(fw);
  tfs_tensor_free(fn);
}

static void test_conv_panel_width(void) {
  static const int64_t kOc[] = {5, 8, 24, 40};
  for (int pi = 0; pi < 2; pi++) { /* the vector paths */
    if (force_conv_path(pi)) continue;
    for (int indirect = 1; indirect >= 0; indirect--) {
      tfs_gemm__set_indirect(indirect);
      for (int kh = 1; kh <= 3; kh += 2)
        for (size_t i = 0; i < sizeof kOc / sizeof *kOc; i++)
          panel_width_case(kh, kOc[i], 500 + (uint32_t)(kh * 10 + i));
    }
  }
  tfs_gemm__set_indirect(1);
  tfs_gemm__force_path(NULL);
}

static const conv_case kDwCases[] = {
    {1, 5, 5, 3, 3, 3, 3, 1, 1, 1, 1, 1, "SAME", {0}, 0},
    {2, 6, 7, 4, 3, 3, 4, 2, 2, 2, 1, 1, "VALID", {0}, 0},
    {1, 7, 7, 2, 3, 2, 2, 3, 1, 2, 1, 1, "SAME", {0}, 0},
    {1, 9, 9, 3, 3, 3, 3, 1, 1, 1, 2, 2, "SAME", {0}, 0},
    {1, 6, 6, 2, 3, 3, 2, 2, 1, 1, 1, 1, "EXPLICIT", {1, 2, 2, 0}, 0},
    {2, 5, 6, 3, 3, 3, 3, 2, 2, 1, 1, 1, "SAME", {0}, 1},
    {1, 12, 12, 32, 3, 3, 32, 1, 2, 2, 1, 1, "SAME", {0}, 0},
};

static void test_depthwise_reference(void) {
  for (size_t i = 0; i < sizeof kDwCases / sizeof *kDwCases; i++)
    run_conv_case(&kDwCases[i], 1, 200 + (uint32_t)i);
}

/* Conv2DBackpropInput is the adjoint of Conv2D: <conv(x), dy> equals
 * <x, backprop(dy)> for every x, so check it on unit vectors. */
static void run_backprop_case(const conv_case *k, uint32_t seed) {
  int pt, pl;
  int oh = (int)out_size(k->h, k->kh, k->dh, k->sh, k->padding, k->pads[0],
                         k->pads[1], &pt);
  int ow = (int)out_size(k->w, k->kw, k->dw, k->sw, k->padding, k->pads[2],
                         k->pads[3], &pl);
  int64_t xd[4] = {k->n, k->nchw ? k->c : k->h, k->nchw ? k->h : k->w,
                   k->nchw ? k->w : k->c};
  int64_t fd[4] = {k->kh, k->kw, k->kc, k->kn};
  int64_t yd[4] = {k->n, k->nchw ? k->kn : oh, k->nchw ? oh : ow,
                   k->nchw ? ow : k->kn};
  int32_t sizes[4] = {(int32_t)xd[0], (int32_t)xd[1], (int32_t)xd[2],
                      (int32_t)xd[3]};
  tfs_tensor *in[3] = {nt_tensor(TFS_INT32, (int64_t[]){4}, 1, sizes),
                       nt_random(fd, 4, seed), nt_random(yd, 4, seed + 1)};
  nt_attr a[6];
  int na;
  conv_attrs(k, a, &na);
  tfs_tensor *dx = nt_run1("Conv2DBackpropInput", in, 3, a, na);
  CU_ASSERT_PTR_NOT_NULL_FATAL(dx);
  int64_t nx = (int64_t)k->n * k->h * k->w * k->c;
  int64_t ny = (int64_t)k->n * oh * ow * k->kn;
  float *x = calloc((size_t)nx, sizeof(float));
  float *y = malloc(sizeof(float) * (size_t)ny);
  float *want = malloc(sizeof(float) * (size_t)nx);
  const float *dy = tfs_tensor_data(in[2]);
  for (int64_t i = 0; i < nx; i++) {
    x[i] = 1;
    ref_conv(k, x, tfs_tensor_data(in[1]), y, oh, ow, pt, pl, 0);
    double s = 0;
    for (int64_t j = 0; j < ny; j++) s += (double)y[j] * dy[j];
    want[i] = (float)s;
    x[i] = 0;
  }
  nt_check_f32(dx, xd, 4, want, 1e-5, 1e-5);
  free(x);
  free(y);
  free(want);
  tfs_tensor_free(dx);
  for (int i = 0; i < 3; i++) tfs_tensor_free(in[i]);
}

static void test_backprop_reference(void) {
  static const conv_case k[] = {
      {1, 5, 5, 3, 3, 3, 3, 2, 1, 1, 1, 1, "SAME", {0}, 0},
      {2, 6, 6, 2, 3, 3, 2, 3, 2, 2, 1, 1, "SAME", {0}, 0},
      {1, 7, 6, 2, 3, 2, 2, 2, 2, 1, 1, 1, "VALID", {0}, 0},
      {1, 5, 5, 2, 3, 3, 2, 2, 2, 2, 1, 1, "EXPLICIT", {1, 0, 0, 1}, 0},
      {1, 7, 7, 2, 3, 3, 2, 2, 1, 1, 2, 2, "SAME", {0}, 0},
      {1, 6, 6, 4, 3, 3, 2, 4, 1, 1, 1, 1, "SAME", {0}, 0},
      {2, 5, 6, 3, 3, 3, 3, 2, 2, 1, 1, 1, "SAME", {0}, 1},
  };
  for (size_t i = 0; i < sizeof k / sizeof *k; i++)
    run_backprop_case(&k[i], 300 + (uint32_t)i);
}

/* bfloat16 Conv2D on each bfloat16 GEMM path (AMX, vdpbf16ps: the patch
 * matrix times the filter on the dot-product kernels; widened: the float
 * convolution rounded), with the filter fed and constant (packed at
 * prepare), against the float convolution of the same bfloat16 values:
 * within one bfloat16 rounding of the output plus float sums.  1x1 on the
 * input in place, im2col with padding, strides, dilation, two groups
 * (3x3 and 1x1) and a batch of several blocks; the dot-product paths
 * counted. */
typedef struct bf_case {
  int64_t n, h, w, c, kh, kw, kc, kn, s, d;
  const char *pad;
} bf_case;

static void conv_bf16_case(const bf_case *k, int path, unsigned seed) {
  int64_t xd[4] = {k->n, k->h, k->w, k->c}, fd[4] = {k->kh, k->kw, k->kc,
                                                      k->kn};
  int64_t nx = k->n * k->h * k->w * k->c, nf = k->kh * k->kw * k->kc * k->kn;
  float *xv = malloc(sizeof(float) * (size_t)nx);
  float *fv = malloc(sizeof(float) * (size_t)nf);
  tfs_status *st = tfs_status_new();
  tfs_tensor *xb = tfs_tensor_new(TFS_BFLOAT16, xd, 4, st);
  tfs_tensor *fb = tfs_tensor_new(TFS_BFLOAT16, fd, 4, st);
  uint16_t *xp = tfs_tensor_data(xb), *fp = tfs_tensor_data(fb);
  for (int64_t i = 0; i < nx + nf; i++) {
    seed = seed * 1103515245u + 12345u;
    uint16_t h = tfs_float_to_bf16((float)((seed >> 16) % 2001) / 1000 - 1);
    if (i < nx) xp[i] = h, xv[i] = tfs_bf16_to_float(h);
    else fp[i - nx] = h, fv[i - nx] = tfs_bf16_to_float(h);
  }
  nt_attr a[3] = {NT_LIST4("strides", 1, k->s, k->s, 1),
                  NT_STR("padding", k->pad),
                  NT_LIST4("dilations", 1, k->d, k->d, 1)};
  tfs_tensor *ref_in[2] = {nt_f32(xd, 4, xv), nt_f32(fd, 4, fv)};
  tfs_tensor *ref = nt_run1("Conv2D", ref_in, 2, a, 3);
  const float *rv = tfs_tensor_data(ref);
  for (int consts = 0; consts < 2; consts++) {
    int64_t before = tfs_conv2d_bf16__calls();
    tfs_tensor *in[2] = {xb, fb}, *y = NULL;
    char msg[256];
    tfs_code code =
        nt_run_ex("Conv2D", in, 2, a, 3, &y, 1, msg, sizeof msg, consts);
    CU_ASSERT_EQUAL_FATAL(code, TFS_OK);
    CU_ASSERT_EQUAL(tfs_conv2d_bf16__calls() > before,
                    path != TU_BF16_WIDEN);
    const uint16_t *o = tfs_tensor_data(y);
    int64_t bad = 0;
    for (int64_t e = 0; e < tfs_tensor_num_elements(ref); e++) {
      double got = tfs_bf16_to_float(o[e]), want = rv[e];
      bad += !(fabs(got - want) <= ldexp(fabs(want), -8) + 1e-4);
    }
    if (bad)
      fprintf(stderr, "\n  bf16 conv path %d consts %d %lldx%lldx%lld: "
              "%lld bad\n", path, consts, (long long)k->h, (long long)k->kh,
              (long long)k->kn, (long long)bad);
    CU_ASSERT_EQUAL(bad, 0);
    tfs_tensor_free(y);
  }
  tfs_tensor_free(ref);
  tfs_tensor_free(ref_in[0]);
  tfs_tensor_free(ref_in[1]);
  tfs_tensor_free(xb);
  tfs_tensor_free(fb);
  tfs_status_free(st);
  free(xv);
  free(fv);
}

static void test_conv_bf16_paths(void) {
  static const bf_case k[] = {
      {2, 5, 6, 16, 1, 1, 16, 40, 1, 1, "VALID"},
      {1, 7, 7, 8, 3, 3, 8, 33, 1, 1, "SAME"},
      {2, 9, 8, 5, 3, 3, 5, 17, 2, 1, "VALID"},
      {1, 9, 9, 3, 5, 5, 3, 8, 1, 2, "SAME"},
      {1, 6, 6, 8, 3, 3, 4, 6, 1, 1, "SAME"},
      {1, 8, 8, 16, 1, 1, 16, 32, 2, 1, "SAME"},
      {1, 4, 5, 8, 1, 1, 4, 6, 1, 1, "VALID"},
      {2, 33, 33, 24, 3, 3, 24, 64, 1, 1, "SAME"}};
  for (int path = 0; path < TU_BF16_PATHS; path++) {
    const char *why = tu_bf16_path(path);
    tu_cpu_path("conv-bf16", tu_bf16_path_names[path], why);
    if (why) continue;
    for (size_t i = 0; i < sizeof k / sizeof *k; i++)
      conv_bf16_case(&k[i], path, 40 + (unsigned)i);
  }
  tu_bf16_paths_reset();
}

/* half, bfloat16, double and int32 against the float result. */
static void test_conv_dtypes(void) {
  static const tfs_dtype kTypes[4] = {TFS_HALF, TFS_BFLOAT16, TFS_DOUBLE,
                                      TFS_INT32};
  int64_t xd[4] = {1, 4, 4, 3}, fd[4] = {3, 3, 3, 2};
  nt_attr a[2] = {NT_LIST4("strides", 1, 1, 1, 1), NT_STR("padding", "SAME")};
  float xv[48], fv[54];
  for (int i = 0; i < 48; i++) xv[i] = (float)((i * 5) % 7 - 3);
  for (int i = 0; i < 54; i++) fv[i] = (float)((i * 3) % 5 - 2);
  tfs_tensor *ref_in[2] = {nt_f32(xd, 4, xv), nt_f32(fd, 4, fv)};
  tfs_tensor *ref = nt_run1("Conv2D", ref_in, 2, a, 2);
  const float *rv = tfs_tensor_data(ref);
  for (int t = 0; t < 4; t++) {
    tfs_status *st = tfs_status_new();
    tfs_tensor *in[2];
    for (int i = 0; i < 2; i++) {
      const float *src = i ? fv : xv;
      int64_t n = i ? 54 : 48;
      in[i] = tfs_tensor_new(kTypes[t], i ? fd : xd, 4, st);
      for (int64_t e = 0; e < n; e++) {
        void *p = tfs_tensor_data(in[i]);
        if (kTypes[t] == TFS_HALF)
          ((uint16_t *)p)[e] = tfs_float_to_half(src[e]);
        if (kTypes[t] == TFS_BFLOAT16)
          ((uint16_t *)p)[e] = tfs_float_to_bf16(src[e]);
        if (kTypes[t] == TFS_DOUBLE) ((double *)p)[e] = src[e];
        if (kTypes[t] == TFS_INT32) ((int32_t *)p)[e] = (int32_t)src[e];
      }
    }
    tfs_tensor *y = nt_run1("Conv2D", in, 2, a, 2);
    CU_ASSERT_EQUAL_FATAL(tfs_tensor_dtype(y), kTypes[t]);
    const void *p = tfs_tensor_data(y);
    for (int64_t e = 0; e < 32; e++) {
      double v = kTypes[t] == TFS_HALF ? tfs_half_to_float(((uint16_t *)p)[e])
                 : kTypes[t] == TFS_BFLOAT16
                     ? tfs_bf16_to_float(((uint16_t *)p)[e])
                 : kTypes[t] == TFS_DOUBLE ? ((double *)p)[e]
                                           : ((int32_t *)p)[e];
      /* small integers are exact in every type */
      CU_ASSERT_DOUBLE_EQUAL(v, rv[e], 0);
    }
    tfs_tensor_free(y);
    for (int i = 0; i < 2; i++) tfs_tensor_free(in[i]);
    tfs_status_free(st);
  }
  tfs_tensor_free(ref);
  for (int i = 0; i < 2; i++) tfs_tensor_free(ref_in[i]);
}

static void test_conv_empty(void) {
  nt_attr a[2] = {NT_LIST4("strides", 1, 1, 1, 1), NT_STR("padding", "SAME")};
  tfs_tensor *in[2] = {nt_f32((int64_t[]){0, 4, 4, 3}, 4, NULL),
                       nt_random((int64_t[]){3, 3, 3, 2}, 4, 1)};
  tfs_tensor *y = nt_run1("Conv2D", in, 2, a, 2);
  CU_ASSERT(tfs_tensor_dim(y, 0) == 0 && tfs_tensor_dim(y, 3) == 2);
  tfs_tensor_free(y);
  y = nt_run1("DepthwiseConv2dNative", in, 2, a, 2);
  CU_ASSERT(tfs_tensor_dim(y, 0) == 0 && tfs_tensor_dim(y, 3) == 6);
  tfs_tensor_free(y);
  tfs_tensor_free(in[1]);
  /* no output channels */
  in[1] = nt_f32((int64_t[]){3, 3, 3, 0}, 4, NULL);
  tfs_tensor_free(in[0]);
  in[0] = nt_random((int64_t[]){1, 4, 4, 3}, 4, 2);
  y = nt_run1("Conv2D", in, 2, a, 2);
  CU_ASSERT_EQUAL(tfs_tensor_num_elements(y), 0);
  tfs_tensor_free(y);
  for (int i = 0; i < 2; i++) tfs_tensor_free(in[i]);
}

static void test_conv2d_errors(void) {
  nt_attr a[2] = {NT_LIST4("strides", 1, 1, 1, 1), NT_STR("padding", "SAME")};
  tfs_tensor *in[2] = {nt_random((int64_t[]){5, 5, 4}, 3, 1),
                       nt_random((int64_t[]){3, 3, 4, 2}, 4, 2)};
  NT_EXPECT_ERROR("Conv2D", in, 2, a, 2, TFS_INVALID_ARGUMENT,
                  "convolution input must be 4-dimensional: [5,5,4]");
  NT_EXPECT_BUILD_ERROR("Conv2D", in, 2, a, 2,
                        "Shape must be rank 4 but is rank 3");
  tfs_tensor_free(in[0]);
  in[0] = nt_random((int64_t[]){1, 5, 5, 4}, 4, 1);
  tfs_tensor_free(in[1]);
  in[1] = nt_random((int64_t[]){3, 4, 2}, 3, 2);
  NT_EXPECT_ERROR("Conv2D", in, 2, a, 2, TFS_INVALID_ARGUMENT,
                  "convolution filter must be 4-dimensional: [3,4,2]");
  tfs_tensor_free(in[1]);
  in[1] = nt_random((int64_t[]){3, 3, 3, 2}, 4, 2);
  NT_EXPECT_ERROR("Conv2D", in, 2, a, 2, TFS_INVALID_ARGUMENT,
                  "input depth must be evenly divisible by filter depth: 4 vs "
                  "3");
  NT_EXPECT_BUILD_ERROR("Conv2D", in, 2, a, 2,
                        "Depth of input (4) is not a multiple of input depth "
                        "of filter (3)");
  tfs_tensor_free(in[1]);
  in[1] = nt_f32((int64_t[]){3, 3, 0, 2}, 4, NULL);
  NT_EXPECT_ERROR("Conv2D", in, 2, a, 2, TFS_INVALID_ARGUMENT,
                  "filter depth must be stricly positive, got 0");
  NT_EXPECT_BUILD_ERROR("Conv2D", in, 2, a, 2, "Depth of filter must not be 0");
  tfs_tensor_free(in[1]);
  in[1] = nt_f32((int64_t[]){0, 3, 4, 2}, 4, NULL);
  NT_EXPECT_ERROR("Conv2D", in, 2, a, 2, TFS_INVALID_ARGUMENT,
                  "filter must not have zero elements (i.e. all dimensions "
                  "must be non-zero)");
  tfs_tensor_free(in[1]);
  in[1] = nt_random((int64_t[]){3, 3, 2, 3}, 4, 2);
  NT_EXPECT_ERROR("Conv2D", in, 2, a, 2, TFS_INVALID_ARGUMENT,
                  "output depth must be evenly divisible by number of "
                  "groups: 3 vs 2");
  NT_EXPECT_BUILD_ERROR("Conv2D", in, 2, a, 2,
                        "Depth of output (3) is not a multiple of the number "
                        "of groups (2)");
  tfs_tensor_free(in[1]);
  in[1] = nt_random((int64_t[]){7, 3, 4, 2}, 4, 2);
  nt_attr v[2] = {NT_LIST4("strides", 1, 1, 1, 1), NT_STR("padding", "VALID")};
  NT_EXPECT_ERROR("Conv2D", in, 2, v, 2, TFS_INVALID_ARGUMENT,
                  "Computed output size would be negative: -1 [input_size: "
                  "5, effective_filter_size: 7, stride: 1]");
  NT_EXPECT_BUILD_ERROR("Conv2D", in, 2, v, 2,
                        "Negative dimension size caused by subtracting 7 "
                        "from 5");
  nt_attr sb[2] = {NT_LIST4("strides", 2, 1, 1, 1), NT_STR("padding", "SAME")};
  NT_EXPECT_ERROR("Conv2D", in, 2, sb, 2, TFS_UNIMPLEMENTED,
                  "Current implementation does not yet support strides in "
                  "the batch and depth dimensions.");
  nt_attr db[3] = {NT_LIST4("strides", 1, 1, 1, 1), NT_STR("padding", "SAME"),
                   NT_LIST4("dilations", 1, 1, 1, 2)};
  NT_EXPECT_ERROR("Conv2D", in, 2, db, 3, TFS_UNIMPLEMENTED,
                  "Current implementation does not yet support dilations in "
                  "the batch and depth dimensions.");
  for (int i = 0; i < 2; i++) tfs_tensor_free(in[i]);
}

static void test_conv_attr_errors(void) {
  tfs_tensor *in[2] = {nt_random((int64_t[]){1, 5, 5, 4}, 4, 1),
                       nt_random((int64_t[]){3, 3, 4, 2}, 4, 2)};
  nt_attr s3[2] = {{"strides", 'l', 3, {1, 1, 1}, NULL, 0},
                   NT_STR("padding", "SAME")};
  NT_EXPECT_BUILD_ERROR("Conv2D", in, 2, s3, 2,
                        "Conv2D on data format NHWC requires the stride "
                        "attribute to contain 4 values, but got: 3");
  NT_EXPECT_BUILD_ERROR("DepthwiseConv2dNative", in, 2, s3, 2,
                        "DepthwiseConv2D requires the stride attribute to "
                        "contain 4 values, but got: 3");
  nt_attr s0[2] = {NT_LIST4("strides", 1, 0, 1, 1), NT_STR("padding", "SAME")};
  NT_EXPECT_BUILD_ERROR("Conv2D", in, 2, s0, 2,
                        "Stride must be > 0, but got 0");
  nt_attr d3[3] = {NT_LIST4("strides", 1, 1, 1, 1),
                   NT_STR("padding", "SAME"),
                   {"dilations", 'l', 3, {1, 1, 1}, NULL, 0}};
  NT_EXPECT_BUILD_ERROR("Conv2D", in, 2, d3, 3,
                        "Conv2D requires the dilation attribute to contain 4 "
                        "values, but got: 3");
  nt_attr d0[3] = {NT_LIST4("strides", 1, 1, 1, 1), NT_STR("padding", "SAME"),
                   NT_LIST4("dilations", 1, 0, 1, 1)};
  NT_EXPECT_BUILD_ERROR("Conv2D", in, 2, d0, 3,
                        "Dilation rate must be >= 1, but got 0");
  nt_attr e4[3] = {NT_LIST4("strides", 1, 1, 1, 1),
                   NT_STR("padding", "EXPLICIT"),
                   NT_LIST4("explicit_paddings", 0, 0, 1, 1)};
  NT_EXPECT_BUILD_ERROR("Conv2D", in, 2, e4, 3,
                        "explicit_paddings attribute must contain 8 values, "
                        "but got: 4");
  nt_attr en[3] = {
      NT_LIST4("strides", 1, 1, 1, 1),
      NT_STR("padding", "EXPLICIT"),
      {"explicit_paddings", 'l', 8, {0, 0, -1, 1, 1, 1, 0, 0}, NULL, 0}};
  NT_EXPECT_BUILD_ERROR("Conv2D", in, 2, en, 3,
                        "All elements of explicit_paddings must be "
                        "nonnegative");
  nt_attr eb[3] = {
      NT_LIST4("strides", 1, 1, 1, 1),
      NT_STR("padding", "EXPLICIT"),
      {"explicit_paddings", 'l', 8, {1, 0, 1, 1, 1, 1, 0, 0}, NULL, 0}};
  NT_EXPECT_BUILD_ERROR("Conv2D", in, 2, eb, 3,
                        "Nonzero explicit padding in the batch or depth "
                        "dimensions is not supported");
  nt_attr es[3] = {
      NT_LIST4("strides", 1, 1, 1, 1),
      NT_STR("padding", "SAME"),
      {"explicit_paddings", 'l', 8, {0, 0, 1, 1, 1, 1, 0, 0}, NULL, 0}};
  NT_EXPECT_BUILD_ERROR("Conv2D", in, 2, es, 3,
                        "explicit_paddings attribute must be empty if the "
                        "padding attribute is not EXPLICIT");
  /* strides and dilations are int32 lists in TensorFlow */
  nt_attr sw[2] = {NT_LIST4("strides", 1, INT64_C(1) << 40, 1, 1),
                   NT_STR("padding", "SAME")};
  NT_EXPECT_BUILD_ERROR("Conv2D", in, 2, sw, 2,
                        "Attr strides has value 1099511627776 out of range "
                        "for an int32");
  nt_attr dw[3] = {NT_LIST4("strides", 1, 1, 1, 1), NT_STR("padding", "SAME"),
                   NT_LIST4("dilations", 1, 1, -(INT64_C(1) << 33), 1)};
  NT_EXPECT_BUILD_ERROR("DepthwiseConv2dNative", in, 2, dw, 3,
                        "Attr dilations has value -8589934592 out of range "
                        "for an int32");
  int32_t sizes[4] = {1, 5, 5, 4};
  tfs_tensor *bp[3] = {nt_tensor(TFS_INT32, (int64_t[]){4}, 1, sizes), in[1],
                       nt_random((int64_t[]){1, 5, 5, 2}, 4, 3)};
  NT_EXPECT_ERROR("Conv2DBackpropInput", bp, 3, sw, 2, TFS_INVALID_ARGUMENT,
                  "Attr strides has value 1099511627776 out of range for an "
                  "int32");
  /* TensorFlow 2.21's kernel divides by a zero stride (SIGFPE) */
  NT_EXPECT_ERROR("Conv2DBackpropInput", bp, 3, s0, 2, TFS_INVALID_ARGUMENT,
                  "Stride must be > 0, but got 0");
  tfs_tensor_free(bp[0]);
  tfs_tensor_free(bp[2]);
  for (int i = 0; i < 2; i++) tfs_tensor_free(in[i]);
}

static void test_depthwise_errors(void) {
  nt_attr a[2] = {NT_LIST4("strides", 1, 1, 1, 1), NT_STR("padding", "SAME")};
  tfs_tensor *in[2] = {nt_random((int64_t[]){5, 5, 4}, 3, 1),
                       nt_random((int64_t[]){3, 3, 4, 2}, 4, 2)};
  NT_EXPECT_ERROR("DepthwiseConv2dNative", in, 2, a, 2, TFS_INVALID_ARGUMENT,
                  "input must be 4-dimensional[5,5,4]");
  tfs_tensor_free(in[0]);
  in[0] = nt_random((int64_t[]){1, 5, 5, 4}, 4, 1);
  tfs_tensor_free(in[1]);
  in[1] = nt_random((int64_t[]){3, 4, 2}, 3, 2);
  NT_EXPECT_ERROR("DepthwiseConv2dNative", in, 2, a, 2, TFS_INVALID_ARGUMENT,
                  "filter must be 4-dimensional: [3,4,2]");
  tfs_tensor_free(in[1]);
  in[1] = nt_random((int64_t[]){3, 3, 3, 2}, 4, 2);
  NT_EXPECT_ERROR("DepthwiseConv2dNative", in, 2, a, 2, TFS_INVALID_ARGUMENT,
                  "input and filter must have the same depth: 4 vs 3");
  NT_EXPECT_BUILD_ERROR("DepthwiseConv2dNative", in, 2, a, 2,
                        "Dimensions must be equal, but are 4 and 3");
  tfs_tensor_free(in[1]);
  in[1] = nt_random((int64_t[]){7, 3, 4, 2}, 4, 2);
  nt_attr v[2] = {NT_LIST4("strides", 1, 1, 1, 1), NT_STR("padding", "VALID")};
  NT_EXPECT_ERROR("DepthwiseConv2dNative", in, 2, v, 2, TFS_INVALID_ARGUMENT,
                  "Computed output size would be negative: -1 [input_size: "
                  "5, effective_filter_size: 7, stride: 1]");
  nt_attr sb[2] = {NT_LIST4("strides", 2, 1, 1, 1), NT_STR("padding", "SAME")};
  NT_EXPECT_ERROR("DepthwiseConv2dNative", in, 2, sb, 2, TFS_INVALID_ARGUMENT,
                  "Current implementation does not yet support strides in "
                  "the batch and depth dimensions.");
  for (int i = 0; i < 2; i++) tfs_tensor_free(in[i]);
}

static void test_backprop_errors(void) {
  nt_attr a[2] = {NT_LIST4("strides", 1, 1, 1, 1), NT_STR("padding", "SAME")};
  int32_t s4[4] = {1, 5, 5, 4}, s3[3] = {1, 5, 5}, sn[4] = {1, -5, 5, 4};
  tfs_tensor *in[3] = {nt_tensor(TFS_INT32, (int64_t[]){1, 4}, 2, s4),
                       nt_random((int64_t[]){3, 3, 4, 2}, 4, 1),
                       nt_random((int64_t[]){1, 5, 5, 2}, 4, 2)};
  NT_EXPECT_ERROR("Conv2DBackpropInput", in, 3, a, 2, TFS_INVALID_ARGUMENT,
                  "Conv2DBackpropInput: input_sizes input must be 1-dim, not "
                  "2");
  tfs_tensor_free(in[0]);
  in[0] = nt_tensor(TFS_INT32, (int64_t[]){3}, 1, s3);
  NT_EXPECT_ERROR("Conv2DBackpropInput", in, 3, a, 2, TFS_INVALID_ARGUMENT,
                  "Conv2DBackpropInput requires input_sizes to contain 4 "
                  "values or 2 values, but got: 3");
  NT_EXPECT_BUILD_ERROR("Conv2DBackpropInput", in, 3, a, 2,
                        "Conv2DBackpropInput requires input_sizes to contain "
                        "4 values or 2 values, but got: 3");
  tfs_tensor_free(in[0]);
  in[0] = nt_tensor(TFS_INT32, (int64_t[]){4}, 1, sn);
  NT_EXPECT_ERROR("Conv2DBackpropInput", in, 3, a, 2, TFS_INVALID_ARGUMENT,
                  "Dimension -5 must be >= 0");
  NT_EXPECT_BUILD_ERROR("Conv2DBackpropInput", in, 3, a, 2,
                        "Invalid value in tensor used for shape: -5");
  tfs_tensor_free(in[0]);
  in[0] = nt_tensor(TFS_INT32, (int64_t[]){4}, 1, s4);
  tfs_tensor_free(in[2]);
  in[2] = nt_random((int64_t[]){5, 5, 2}, 3, 2);
  NT_EXPECT_ERROR("Conv2DBackpropInput", in, 3, a, 2, TFS_INVALID_ARGUMENT,
                  "input_sizes must be 4-dimensional, got: 3");
  tfs_tensor_free(in[2]);
  in[2] = nt_random((int64_t[]){1, 4, 5, 2}, 4, 2);
  NT_EXPECT_ERROR("Conv2DBackpropInput", in, 3, a, 2, TFS_INVALID_ARGUMENT,
                  "Conv2DCustomBackpropInput: Size of out_backprop doesn't "
                  "match computed: actual = 4, computed = 5 spatial_dim: 1 "
                  "input: 5 filter: 3 output: 4 stride: 1 dilation: 1");
  tfs_tensor_free(in[2]);
  in[2] = nt_random((int64_t[]){1, 5, 5, 3}, 4, 2);
  NT_EXPECT_ERROR("Conv2DBackpropInput", in, 3, a, 2, TFS_INVALID_ARGUMENT,
                  "Conv2DCustomBackpropInput: filter and out_backprop must "
                  "have the same out_depth");
  NT_EXPECT_BUILD_ERROR("Conv2DBackpropInput", in, 3, a, 2,
                        "Dimensions must be equal, but are 3 and 2");
  tfs_tensor_free(in[2]);
  in[2] = nt_random((int64_t[]){2, 5, 5, 2}, 4, 2);
  NT_EXPECT_ERROR("Conv2DBackpropInput", in, 3, a, 2, TFS_INVALID_ARGUMENT,
                  "Conv2DCustomBackpropInput: input and out_backprop must "
                  "have the same batch size. Input batch: 1, outbackprop "
                  "batch: 2, batch_dim: 0");
  tfs_tensor_free(in[2]);
  in[2] = nt_random((int64_t[]){1, 5, 5, 2}, 4, 2);
  tfs_tensor_free(in[1]);
  in[1] = nt_random((int64_t[]){3, 3, 3, 2}, 4, 1);
  NT_EXPECT_ERROR("Conv2DBackpropInput", in, 3, a, 2, TFS_INVALID_ARGUMENT,
                  "Conv2DCustomBackpropInput: input depth must be evenly "
                  "divisible by filter depth");
  tfs_tensor_free(in[1]);
  in[1] = nt_random((int64_t[]){3, 4, 2}, 3, 1);
  NT_EXPECT_ERROR("Conv2DBackpropInput", in, 3, a, 2, TFS_INVALID_ARGUMENT,
                  "Conv2DCustomBackpropInput: filter must be 4-dimensional");
  tfs_tensor_free(in[1]);
  in[1] = nt_f32((int64_t[]){3, 3, 0, 2}, 4, NULL);
  NT_EXPECT_ERROR("Conv2DBackpropInput", in, 3, a, 2, TFS_INVALID_ARGUMENT,
                  "Conv2DCustomBackpropInput: filter depth must be strictly "
                  "greated than zero");
  /* an input of depth 0 has an empty gradient (no group to divide by) */
  int32_t s0[4] = {1, 5, 5, 0};
  tfs_tensor_free(in[0]);
  in[0] = nt_tensor(TFS_INT32, (int64_t[]){4}, 1, s0);
  tfs_tensor_free(in[1]);
  in[1] = nt_random((int64_t[]){3, 3, 1, 2}, 4, 1);
  tfs_tensor *dx = nt_run1("Conv2DBackpropInput", in, 3, a, 2);
  CU_ASSERT_EQUAL(tfs_tensor_ndims(dx), 4);
  CU_ASSERT_EQUAL(tfs_tensor_dim(dx, 3), 0);
  tfs_tensor_free(dx);
  for (int i = 0; i < 3; i++) tfs_tensor_free(in[i]);
}

/* x -> Conv2D "conv" (constant filter fv "f", NHWC strides sh, sw) ->
 * BiasAdd "bias" (constant bv "b") -> Relu named `relu`: the chain the
 * optimizer fuses into _FusedConv2D. */
static tfs_output conv_bias_relu(tfs_graph *g, tfs_output x, tfs_tensor *fv,
                                 tfs_tensor *bv, int sh, int sw,
                                 const char *padding, const char *relu,
                                 tfs_status *st) {
  tfs_output f = tfs_op_const(g, "f", fv, st);
  tfs_output b = tfs_op_const(g, "b", bv, st);
  tfs_op_desc *d = tfs_op_desc_new(g, "Conv2D", "conv");
  tfs_op_desc_add_input(d, x);
  tfs_op_desc_add_input(d, f);
  nt_attr a[2] = {NT_LIST4("strides", 1, sh, sw, 1),
                  NT_STR("padding", padding)};
  nt_set_attrs(d, a, 2);
  tfs_output c = {tfs_op_desc_finish(d, st), 0};
  d = tfs_op_desc_new(g, "BiasAdd", "bias");
  tfs_op_desc_add_input(d, c);
  tfs_op_desc_add_input(d, b);
  tfs_output ba = {tfs_op_desc_finish(d, st), 0};
  d = tfs_op_desc_new(g, "Relu", relu);
  tfs_op_desc_add_input(d, ba);
  tfs_output y = {tfs_op_desc_finish(d, st), 0};
  return y;
}

/* The fused convolution the optimizer makes of Conv2D + BiasAdd + Relu
 * rejects what Conv2D rejects, with Conv2D's messages, and computes an
 * input without elements as Conv2D does (zeros, then bias and Relu). */
static void test_fused_conv_inputs(void) {
  tfs_status *st = tfs_status_new();
  tfs_graph *g = tfs_graph_new();
  tfs_output x = tfs_op_placeholder(g, "x", TFS_FLOAT, NULL, -1, st);
  tfs_tensor *fv = nt_random((int64_t[]){3, 3, 1, 2}, 4, 1);
  float bias[2] = {0.5f, -0.25f};
  tfs_tensor *bv = nt_f32((int64_t[]){2}, 1, bias);
  tfs_output y = conv_bias_relu(g, x, fv, bv, 1, 1, "SAME", "out", st);
  TFS_ASSERT_OK(st);
  tfs_session *s = tfs_session_new(g, NULL, st);
  TFS_ASSERT_OK(st);
  /* input depth 0: the filter's depth 1 divides it, no groups */
  tfs_tensor *x0 = nt_f32((int64_t[]){1, 2, 2, 0}, 4, NULL), *out = NULL;
  tfs_session_run(s, &x, &x0, 1, &y, &out, 1, NULL, 0, st);
  TFS_ASSERT_OK(st);
  if (out) {
    const float *o = tfs_tensor_data(out);
    CU_ASSERT_EQUAL(tfs_tensor_num_elements(out), 8);
    for (int i = 0; i < 8; i += 2)
      CU_ASSERT(o[i] == 0.5f && o[i + 1] == 0.0f);
  }
  tfs_tensor_free(out);
  out = NULL;
  tfs_tensor *x3 = nt_random((int64_t[]){5, 5, 1}, 3, 2);
  tfs_session_run(s, &x, &x3, 1, &y, &out, 1, NULL, 0, st);
  CU_ASSERT_EQUAL(tfs_status_code(st), TFS_INVALID_ARGUMENT);
  CU_ASSERT_PTR_NOT_NULL(strstr(tfs_status_message(st),
                                "convolution input must be 4-dimensional: "
                                "[5,5,1]"));
  /* the fused node keeps the name of the last node it replaces */
  CU_ASSERT_PTR_NOT_NULL(strstr(tfs_status_message(st), "{{node out}}"));
  tfs_tensor *x2 = nt_random((int64_t[]){1, 5, 5, 3}, 4, 3);
  tfs_session_run(s, &x, &x2, 1, &y, &out, 1, NULL, 0, st);
  CU_ASSERT_EQUAL(tfs_status_code(st), TFS_INVALID_ARGUMENT);
  CU_ASSERT_PTR_NOT_NULL(strstr(tfs_status_message(st),
                                "output depth must be evenly divisible by "
                                "number of groups: 2 vs 3"));
  tfs_tensor *tensors[] = {fv, bv, x0, x3, x2};
  for (int i = 0; i < 5; i++) tfs_tensor_free(tensors[i]);
  tfs_session_free(s);
  tfs_graph_free(g);
  tfs_status_free(st);
}

/* A pointwise convolution of at most four output pixels (squeeze-and-
 * excitation after global pooling) runs as a thin product with the
 * epilogue after it: Conv2D + BiasAdd + Relu (fused) against the
 * reference, a NaN kept through Relu, at 1 to 5 pixels. */
static void test_fused_conv_pointwise(void) {
  static const int64_t pix[][3] = {{1, 1, 1}, {2, 1, 2}, {1, 2, 2}, {1, 1, 5}};
  for (size_t t = 0; t < sizeof pix / sizeof pix[0]; t++) {
    conv_case k = {(int)pix[t][0], (int)pix[t][1], (int)pix[t][2], 40, 1, 1,
                   40, 70, 1, 1, 1, 1, "VALID", {0}, 0};
    tfs_status *st = tfs_status_new();
    tfs_graph *g = tfs_graph_new();
    tfs_output x = tfs_op_placeholder(g, "x", TFS_FLOAT, NULL, -1, st);
    tfs_tensor *xv = nt_random((int64_t[]){k.n, k.h, k.w, k.c}, 4, 17);
    tfs_tensor *fv = nt_random((int64_t[]){1, 1, k.kc, k.kn}, 4, 18);
    tfs_tensor *bv = nt_random((int64_t[]){k.kn}, 1, 19);
    tfs_output y = conv_bias_relu(g, x, fv, bv, 1, 1, "VALID", "out", st);
    TFS_ASSERT_OK(st);
    ((float *)tfs_tensor_data(xv))[3] = NAN;
    int64_t np = (int64_t)k.n * k.h * k.w, ny = np * k.kn;
    float *want = malloc(sizeof(float) * (size_t)ny);
    ref_conv(&k, tfs_tensor_data(xv), tfs_tensor_data(fv), want, k.h, k.w,
             0, 0, 0);
    const float *bias = tfs_tensor_data(bv);
    for (int64_t i = 0; i < ny; i++) {
      float v = want[i] + bias[i % k.kn];
      want[i] = v > 0 || v != v ? v : 0;
    }
    tfs_session *s = tfs_session_new(g, NULL, st);
    TFS_ASSERT_OK(st);
    tfs_tensor *out = NULL;
    tfs_session_run(s, &x, &xv, 1, &y, &out, 1, NULL, 0, st);
    TFS_ASSERT_OK(st);
    nt_check_f32(out, (int64_t[]){k.n, k.h, k.w, k.kn}, 4, want, 1e-5, 1e-5);
    tfs_tensor_free(out);
    tfs_session_free(s);
    free(want);
    tfs_tensor *tensors[] = {xv, fv, bv};
    for (int i = 0; i < 3; i++) tfs_tensor_free(tensors[i]);
    tfs_graph_free(g);
    tfs_status_free(st);
  }
}

/* The fused epilogue runs per finished tile: with 4 intra-op threads a
 * small image with many output channels is split into column chunks,
 * each getting its own slice of the bias.  Conv2D + BiasAdd + Relu (fused
 * by the optimizer) against the reference, on both patch paths. */
static void test_fused_conv_tiles(void) {
  /* 75 channels: four full 16-column panels and a partial one */
  static const conv_case k = {1, 4, 5, 48, 3, 3, 48, 75, 1, 1, 1, 1, "SAME",
                              {0}, 0};
  tfs_status *st = tfs_status_new();
  tfs_graph *g = tfs_graph_new();
  tfs_output x = tfs_op_placeholder(g, "x", TFS_FLOAT, NULL, -1, st);
  tfs_tensor *xv = nt_random((int64_t[]){k.n, k.h, k.w, k.c}, 4, 7);
  tfs_tensor *fv = nt_random((int64_t[]){k.kh, k.kw, k.kc, k.kn}, 4, 8);
  tfs_tensor *bv = nt_random((int64_t[]){k.kn}, 1, 9);
  tfs_output y = conv_bias_relu(g, x, fv, bv, 1, 1, "SAME", "out", st);
  TFS_ASSERT_OK(st);
  /* a NaN pixel: the windows over it stay NaN through Relu, as in TF */
  ((float *)tfs_tensor_data(xv))[(2 * k.w + 3) * k.c + 5] = NAN;
  int64_t ny = (int64_t)k.h * k.w * k.kn;
  float *want = malloc(sizeof(float) * (size_t)ny);
  ref_conv(&k, tfs_tensor_data(xv), tfs_tensor_data(fv), want, k.h, k.w, 1,
           1, 0);
  const float *bias = tfs_tensor_data(bv);
  int nans = 0;
  for (int64_t i = 0; i < ny; i++) {
    float v = want[i] + bias[i % k.kn];
    want[i] = v > 0 || v != v ? v : 0;
    nans += v != v;
  }
  CU_ASSERT_EQUAL(nans, 9 * k.kn); /* the 3x3 windows over the pixel */
  tfs_session_options *o = tfs_session_options_new();
  tu_own_pools(o, 4);
  /* every GEMM family this CPU has (the partial panel's masked epilogue
   * of each), both patch forms */
  for (int pi = 0; pi < 3; pi++) {
    if (force_conv_path(pi)) continue;
    for (int indirect = 1; indirect >= 0; indirect--) {
      tfs_gemm__set_indirect(indirect);
      tfs_session *s = tfs_session_new(g, o, st);
      TFS_ASSERT_OK(st);
      for (int run = 0; run < 3; run++) {
        tfs_tensor *out = NULL;
        tfs_session_run(s, &x, &xv, 1, &y, &out, 1, NULL, 0, st);
        TFS_ASSERT_OK(st);
        nt_check_f32(out, (int64_t[]){k.n, k.h, k.w, k.kn}, 4, want, 1e-5,
                     1e-5);
        tfs_tensor_free(out);
      }
      tfs_session_free(s);
    }
  }
  tfs_gemm__set_indirect(1);
  tfs_gemm__force_path(NULL);
  tfs_session_options_free(o);
  free(want);
  tfs_tensor *tensors[] = {xv, fv, bv};
  for (int i = 0; i < 3; i++) tfs_tensor_free(tensors[i]);
  tfs_graph_free(g);
  tfs_status_free(st);
}

/* Conv2D + BiasAdd + Relu + MaxPool (VALID, strides equal to the window)
 * becomes one _TfsFusedConv2DMaxPool that pools each convolution tile as
 * it is computed.  Against a reference (NaN never wins a pool window but
 * survives Relu), with windows that leave rows and columns out, uneven
 * windows, a depth beyond one L1 block, 1 and 4 threads, every GEMM
 * family this CPU has with both patch forms, and both pooling loops (AVX2
 * and scalar); the plan must hold the fused op. */
typedef struct pool_case {
  conv_case k;
  int pkh, pkw;
} pool_case;

static void run_conv_pool_case(const pool_case *pc, uint32_t seed) {
  const conv_case *k = &pc->k;
  int pt, pl;
  int oh = (int)out_size(k->h, k->kh, k->dh, k->sh, k->padding, 0, 0, &pt);
  int ow = (int)out_size(k->w, k->kw, k->dw, k->sw, k->padding, 0, 0, &pl);
  int ph = oh / pc->pkh, pw = ow / pc->pkw;
  tfs_status *st = tfs_status_new();
  tfs_graph *g = tfs_graph_new();
  tfs_output x = tfs_op_placeholder(g, "x", TFS_FLOAT, NULL, -1, st);
  tfs_tensor *xv = nt_random((int64_t[]){k->n, k->h, k->w, k->c}, 4, seed);
  tfs_tensor *fv =
      nt_random((int64_t[]){k->kh, k->kw, k->kc, k->kn}, 4, seed + 1);
  tfs_tensor *bv = nt_random((int64_t[]){k->kn}, 1, seed + 2);
  ((float *)tfs_tensor_data(xv))[k->c + 1] = NAN;
  tfs_output r =
      conv_bias_relu(g, x, fv, bv, k->sh, k->sw, k->padding, "relu", st);
  tfs_op_desc *d = tfs_op_desc_new(g, "MaxPool", "pool");
  tfs_op_desc_add_input(d, r);
  nt_attr pa[3] = {NT_LIST4("ksize", 1, pc->pkh, pc->pkw, 1),
                   NT_LIST4("strides", 1, pc->pkh, pc->pkw, 1),
                   NT_STR("padding", "VALID")};
  nt_set_attrs(d, pa, 3);
  tfs_output y = {tfs_op_desc_finish(d, st), 0};
  TFS_ASSERT_OK(st);
  /* the reference */
  int64_t nc = (int64_t)k->n * oh * ow * k->kn;
  int64_t np = (int64_t)k->n * ph * pw * k->kn;
  float *conv = malloc(sizeof(float) * (size_t)nc);
  float *want = malloc(sizeof(float) * (size_t)(np ? np : 1));
  ref_conv(k, tfs_tensor_data(xv), tfs_tensor_data(fv), conv, oh, ow, pt, pl,
           0);
  const float *bias = tfs_tensor_data(bv);
  for (int64_t i = 0; i < nc; i++) {
    float v = conv[i] + bias[i % k->kn];
    conv[i] = v > 0 || v != v ? v : 0;
  }
  for (int bi = 0; bi < k->n; bi++)
    for (int py = 0; py < ph; py++)
      for (int px = 0; px < pw; px++)
        for (int ch = 0; ch < k->kn; ch++) {
          float m = -3.4028235e38f;
          for (int dy = 0; dy < pc->pkh; dy++)
            for (int dx = 0; dx < pc->pkw; dx++) {
              float v = conv[(((int64_t)bi * oh + py * pc->pkh + dy) * ow +
                              px * pc->pkw + dx) * k->kn + ch];
              if (v > m) m = v;
            }
          want[(((int64_t)bi * ph + py) * pw + px) * k->kn + ch] = m;
        }
  for (int v = 0; v < 3 * 2 * 2 * 2; v++) {
    int path = v / 8, threads = v & 4 ? 4 : 1, indirect = (v >> 1) & 1;
    int pool_isa = v & 1 ? TFS_CPU_ISA_AVX2 : TFS_CPU_ISA_BASELINE;
    if (tu_isa_unavailable(kConvPaths[path].isa) ||
        tu_isa_unavailable(pool_isa) ||
        (indirect && !kConvPaths[path].indirect))
      continue;
    tfs_cpu__set_max_isa(-1);
    CU_ASSERT_EQUAL(tfs_gemm__force_path(kConvPaths[path].gemm), 0);
    tfs_cpu__set_max_isa(pool_isa); /* the pooling of each tile */
    tfs_gemm__set_indirect(indirect);
    int fused = 0;
    tfs_tensor *out = nt_run_plan(g, x, xv, &y, 1, threads,
                                  "_TfsFusedConv2DMaxPool", &fused, st);
    CU_ASSERT_EQUAL(fused, 1);
    nt_check_f32(out, (int64_t[]){k->n, ph, pw, k->kn}, 4, want, 1e-5, 1e-5);
    tfs_tensor_free(out);
  }
  tfs_cpu__set_max_isa(-1);
  tfs_gemm__force_path(NULL);
  tfs_gemm__set_indirect(1);
  free(conv);
  free(want);
  tfs_tensor *tensors[] = {xv, fv, bv};
  for (int i = 0; i < 3; i++) tfs_tensor_free(tensors[i]);
  tfs_graph_free(g);
  tfs_status_free(st);
}

static void test_fused_conv_pool(void) {
  static const pool_case cases[] = {
      /* n h w c  kh kw kc kn  sh sw dh dw  padding;  pool */
      {{2, 9, 11, 5, 3, 3, 5, 20, 1, 1, 1, 1, "SAME", {0}, 0}, 2, 2},
      {{1, 12, 12, 16, 3, 3, 16, 24, 1, 1, 1, 1, "VALID", {0}, 0}, 3, 3},
      {{1, 8, 10, 3, 3, 3, 3, 32, 1, 1, 1, 1, "SAME", {0}, 0}, 1, 2},
      {{3, 6, 6, 64, 3, 3, 64, 20, 1, 1, 1, 1, "SAME", {0}, 0}, 2, 2},
      {{2, 16, 16, 3, 3, 3, 3, 16, 2, 2, 1, 1, "SAME", {0}, 0}, 2, 2},
      /* enough tiles to share out whole (few tiles split each product) */
      {{8, 16, 16, 8, 3, 3, 8, 16, 1, 1, 1, 1, "SAME", {0}, 0}, 2, 2},
      /* batch 1 over the pool: smaller groups give every thread tiles,
       * and three pooled rows for two threads (one product instead) */
      {{1, 16, 16, 32, 3, 3, 32, 64, 1, 1, 1, 1, "SAME", {0}, 0}, 2, 2},
      {{1, 6, 6, 128, 3, 3, 128, 128, 1, 1, 1, 1, "SAME", {0}, 0}, 2, 2},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
    run_conv_pool_case(&cases[i], 500 + 3 * (uint32_t)i);
}

/* ---- _TfsFusedConv2DDepthwise ------------------------------------------ */

/* A convolution + BiasAdd [+ act1] feeding a depthwise convolution +
 * BiasAdd [+ act2] (MobileNet's expansion and depthwise step). */
typedef struct cdw_case {
  int n, h, w, c, kh, ce, sh;   /* input, first filter kh x kh, stride */
  const char *act1;             /* NULL: none */
  int dkh, dsh, dd, mult;       /* depthwise size, stride, dilation */
  const char *dpad, *act2;
  int cols; /* by channels on two threads with the default tile */
} cdw_case;

static void run_cdw_case(const cdw_case *k, uint32_t seed) {
  tfs_status *st = tfs_status_new();
  tfs_graph *g = tfs_graph_new();
  int64_t xd[4] = {k->n, k->h, k->w, k->c};
  tfs_tensor *xv = nt_random(xd, 4, seed);
  /* an input of depth 0 (every sum 0) against a filter of depth 4 */
  tfs_tensor *fv = nt_random((int64_t[]){k->kh, k->kh, k->c ? k->c : 4,
                                         k->ce}, 4, seed + 1);
  tfs_tensor *bv = nt_random((int64_t[]){k->ce}, 1, seed + 2);
  tfs_tensor *dv = nt_random((int64_t[]){k->dkh, k->dkh, k->ce, k->mult}, 4,
                             seed + 3);
  tfs_tensor *dbv = nt_random((int64_t[]){(int64_t)k->ce * k->mult}, 1,
                              seed + 4);
  tfs_output x = tfs_op_placeholder(g, "x", TFS_FLOAT, xd, 4, st), mid;
  tfs_tensor *consts[4] = {fv, bv, dv, dbv};
  tfs_output y = nt_conv_dw_chain(g, x, consts, k->sh, k->act1, k->dsh,
                                  k->dpad, k->dd, k->act2, &mid, st);
  TFS_ASSERT_OK(st);
  static const int kCaps[2] = {-1, TFS_CPU_ISA_BASELINE};
  for (int v = 0; v < 8; v++) {
    int threads = v & 1 ? 2 : 1;
    tfs_cpu__set_max_isa(kCaps[(v >> 1) & 1]); /* the depthwise rows */
    /* 16 KiB tiles: a band of one or two rows (many bands, rows carried
     * over); the default: a few bands, or on two threads the two ops
     * one after the other over the pool */
    tfs_fused_conv_dw__set_tile_bytes(v & 4 ? 16 << 10 : 0);
    int fused = 0, apart = 0;
    /* fetching the convolution's output too keeps the two ops apart */
    tfs_output both[2] = {y, mid};
    tfs_tensor *want = nt_run_plan(g, x, xv, both, 2, threads,
                                   "_TfsFusedConv2DDepthwise", &apart, st);
    int64_t cols = tfs_fused_conv_dw__cols_calls();
    tfs_tensor *got = nt_run_plan(g, x, xv, &y, 1, threads,
                                  "_TfsFusedConv2DDepthwise", &fused, st);
    int by_cols = tfs_fused_conv_dw__cols_calls() > cols;
    if (by_cols != (k->cols && threads == 2 && !(v & 4) &&
                    tfs_gemm_panel_rows() > 1))
      fprintf(stderr, "\n  case %dx%dx%dx%d -> %d, threads %d, variant %d: "
              "%s by channels", k->n, k->h, k->w, k->c, k->ce, threads, v,
              by_cols ? "" : "not");
    CU_ASSERT_EQUAL(by_cols, k->cols && threads == 2 && !(v & 4) &&
                                 tfs_gemm_panel_rows() > 1);
    CU_ASSERT_EQUAL(fused, 1);
    CU_ASSERT_EQUAL(apart, 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(got);
    CU_ASSERT_EQUAL_FATAL(tfs_tensor_byte_size(got),
                          tfs_tensor_byte_size(want));
    int same = memcmp(tfs_tensor_data(got), tfs_tensor_data(want),
                      tfs_tensor_byte_size(got)) == 0;
    if (!same)
      fprintf(stderr, "\n  case %dx%dx%dx%d -> %d, threads %d, variant %d: "
              "not the unfused bits", k->n, k->h, k->w, k->c, k->ce, threads,
              v);
    CU_ASSERT_TRUE(same);
    tfs_tensor_free(got);
    tfs_tensor_free(want);
  }
  tfs_cpu__set_max_isa(-1);
  tfs_fused_conv_dw__set_tile_bytes(0);
  tfs_tensor *tensors[] = {xv, fv, bv, dv, dbv};
  for (int i = 0; i < 5; i++) tfs_tensor_free(tensors[i]);
  tfs_graph_free(g);
  tfs_status_free(st);
}

/* The fused op gives the bits of the two ops one after the other: bands
 * of rows with the rows they share carried over (40 rows of 96 channels:
 * 15 KiB a row), each thread a share of the channels of both ops when
 * there are too few bands for the threads (batch 1, small maps: 16-wide
 * units, a last share that is not; a 3x3 first convolution over a
 * padded image; activations stored with the tiles or applied after; a
 * strided and a 5x5 depthwise), the two ops over the pool where that
 * cannot be (a channel multiplier), strides 1 and 2, odd sizes, VALID,
 * dilation, a channel multiplier, activations the GEMM applies as it
 * stores (Relu, Relu6, hard-swish) and ones applied after (Elu,
 * Sigmoid), a strided 3x3 first convolution, a batch of small maps, a
 * row wider than a tile, an input of depth 0; 1 and 2 threads, vector
 * and portable depthwise rows. */
static void test_fused_conv_depthwise(void) {
  static const cdw_case cases[] = {
      /* n h w c kh ce sh act1; dkh dsh dd mult dpad act2 */
      {1, 40, 40, 8, 1, 96, 1, "Relu6", 3, 1, 1, 1, "SAME", "Relu6"},
      {1, 41, 39, 8, 1, 96, 1, "Relu6", 3, 2, 1, 1, "SAME", "Relu6"},
      {2, 30, 30, 16, 1, 64, 1, "Relu", 3, 1, 1, 2, "VALID", NULL},
      {1, 33, 20, 8, 1, 48, 1, "Elu", 5, 2, 1, 1, "SAME", "Sigmoid", 1},
      /* 64 channels: two units of 32 whether the panels are 16 wide
       * (AVX2) or 32 (AVX-512); 32 channels are one unit on AVX-512 */
      {1, 48, 48, 3, 3, 64, 2, "Relu6", 3, 1, 1, 1, "SAME", "Relu6", 1},
      {3, 7, 7, 16, 1, 64, 1, NULL, 3, 2, 1, 1, "SAME", "Relu"},
      {1, 16, 16, 8, 1, 40, 1, "Relu6", 3, 1, 2, 1, "SAME", "Relu6"},
      {1, 6, 220, 4, 1, 256, 1, "Relu6", 3, 1, 1, 1, "SAME", "Relu6"},
      {1, 6, 6, 0, 1, 16, 1, "Elu", 3, 1, 1, 1, "SAME", "Relu6"},
      /* MobileNetV3's hard-swish after both, stored with the tiles */
      {1, 30, 30, 16, 1, 72, 1, "_TfsHardSwish", 3, 1, 1, 1, "SAME",
       "_TfsHardSwish"},
      {1, 17, 15, 8, 1, 40, 1, "_TfsHardSwish", 5, 2, 1, 1, "SAME",
       "_TfsHardSwish"},
      /* by channels (MobileNetV2's 7x7 blocks, smaller) */
      {1, 7, 7, 160, 1, 960, 1, "Relu6", 3, 1, 1, 1, "SAME", "Relu6", 1},
      {1, 7, 7, 96, 1, 200, 1, "Elu", 3, 1, 1, 1, "SAME", "Sigmoid", 1},
      {1, 7, 7, 112, 1, 672, 1, "_TfsHardSwish", 5, 1, 1, 1, "SAME",
       "_TfsHardSwish", 1},
      {1, 10, 10, 96, 1, 576, 1, "Relu6", 3, 2, 1, 1, "SAME", "Relu6", 1},
      {1, 15, 15, 32, 3, 256, 2, "Relu6", 3, 1, 1, 1, "VALID", NULL, 1},
      {1, 7, 7, 64, 1, 256, 1, "Relu", 3, 1, 1, 2, "SAME", NULL, 0},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
    run_cdw_case(&cases[i], 700 + 5 * (uint32_t)i);
}

/* Scratch filled with NaN bytes before each kernel gets it: the padded
 * image the indirect kernels read is filled row by row as tasks first
 * need a row, so a row left out (or read before its filler finished)
 * gives NaNs, not the values an earlier run left in the arena.  The
 * reference cases on every GEMM family and patch form, the pooled cases
 * (1 and 4 threads) and the fused depthwise cases (1 and 2 threads). */
static void poisoned_conv_cases(void *arg) {
  (void)arg;
  for (size_t i = 0; i < sizeof kConvCases / sizeof *kConvCases; i++)
    run_conv_case(&kConvCases[i], 0, 900 + (uint32_t)i);
  for (size_t i = 0; i < sizeof kPathCases / sizeof *kPathCases; i++)
    run_conv_case(&kPathCases[i], 0, 950 + (uint32_t)i);
}

static void test_conv_scratch_poisoned(void) {
  int was = tfs_kctx__poison_scratch(1);
  /* OpenBLAS's runs on any CPU */
  CU_ASSERT_TRUE(nt_each_conv_path("conv-poisoned", poisoned_conv_cases,
                                   NULL) >= 1);
  test_fused_conv_pool();
  test_fused_conv_depthwise();
  tfs_kctx__poison_scratch(was);
}

/* Shapes that inference computes for the convolution ops. */
static void test_conv_shapes(void) {
  tfs_status *st = tfs_status_new();
  tfs_graph *g = tfs_graph_new();
  int64_t xd[4] = {-1, 9, 9, 4};
  tfs_output x = tfs_op_placeholder(g, "x", TFS_FLOAT, xd, 4, st);
  tfs_tensor *fv = nt_random((int64_t[]){3, 3, 4, 6}, 4, 1);
  tfs_output f = tfs_op_const(g, "f", fv, st);
  tfs_op_desc *d = tfs_op_desc_new(g, "Conv2D", "c");
  tfs_op_desc_add_input(d, x);
  tfs_op_desc_add_input(d, f);
  nt_attr a[3] = {NT_LIST4("strides", 1, 2, 2, 1), NT_STR("padding", "VALID"),
                  NT_LIST4("dilations", 1, 2, 1, 1)};
  nt_set_attrs(d, a, 3);
  tfs_operation *c = tfs_op_desc_finish(d, st);
  TFS_ASSERT_OK(st);
  int64_t got[4];
  tfs_graph_tensor_shape(g, (tfs_output){c, 0}, got, 4, st);
  TFS_ASSERT_OK(st);
  /* rows: (9 - 5 + 2) / 2 = 3; cols: (9 - 3 + 2) / 2 = 4 */
  CU_ASSERT(got[0] == -1 && got[1] == 3 && got[2] == 4 && got[3] == 6);
  d = tfs_op_desc_new(g, "DepthwiseConv2dNative", "dw");
  tfs_op_desc_add_input(d, x);
  tfs_op_desc_add_input(d, f);
  nt_attr s[2] = {NT_LIST4("strides", 1, 2, 2, 1), NT_STR("padding", "SAME")};
  nt_set_attrs(d, s, 2);
  tfs_operation *dw = tfs_op_desc_finish(d, st);
  TFS_ASSERT_OK(st);
  tfs_graph_tensor_shape(g, (tfs_output){dw, 0}, got, 4, st);
  CU_ASSERT(got[1] == 5 && got[2] == 5 && got[3] == 24);
  tfs_tensor_free(fv);
  tfs_graph_free(g);
  tfs_status_free(st);
}

static const tfs_test_case kConv[] = {
    {"conv2d_reference", test_conv2d_reference},
    {"conv2d_gemm_paths", test_conv2d_gemm_paths},
    {"conv_panel_width", test_conv_panel_width},
    {"fused_conv_tiles", test_fused_conv_tiles},
    {"fused_conv_pointwise", test_fused_conv_pointwise},
    {"fused_conv_pool", test_fused_conv_pool},
    {"fused_conv_depthwise", test_fused_conv_depthwise},
    {"depthwise_reference", test_depthwise_reference},
    {"backprop_reference", test_backprop_reference},
    {"dtypes", test_conv_dtypes},
    {"bf16_paths", test_conv_bf16_paths},
    {"empty", test_conv_empty},
    {"shapes", test_conv_shapes},
    {"scratch_poisoned", test_conv_scratch_poisoned},
    {NULL, NULL},
};

/* _TfsFusedConv2DDepthwise built by hand with a bias or dw_bias of the
 * wrong length (fed, so the graph cannot see it): TensorFlow's message
 * for a fused op's bias, naming the input. */
static void cdw_bias_case(int which, const char *needle) {
  tfs_status *st = tfs_status_new();
  tfs_graph *g = tfs_graph_new();
  tfs_output x = tfs_op_placeholder(g, "x", TFS_FLOAT, NULL, -1, st);
  tfs_output b = tfs_op_placeholder(g, "b", TFS_FLOAT, NULL, -1, st);
  tfs_output db = tfs_op_placeholder(g, "db", TFS_FLOAT, NULL, -1, st);
  tfs_tensor *fv = nt_random((int64_t[]){1, 1, 2, 3}, 4, 1);
  tfs_tensor *dv = nt_random((int64_t[]){3, 3, 3, 1}, 4, 2);
  tfs_op_desc *d = tfs_op_desc_new(g, "_TfsFusedConv2DDepthwise", "cdw");
  tfs_op_desc_add_input(d, x);
  tfs_op_desc_add_input(d, tfs_op_const(g, "f", fv, st));
  tfs_op_desc_add_input(d, b);
  tfs_op_desc_add_input(d, tfs_op_const(g, "df", dv, st));
  tfs_op_desc_add_input(d, db);
  const int64_t one[4] = {1, 1, 1, 1};
  const void *ops[1] = {"BiasAdd"};
  size_t lens[1] = {7};
  tfs_op_desc_set_attr_int_list(d, "strides", one, 4);
  tfs_op_desc_set_attr_string(d, "padding", "SAME", 4);
  tfs_op_desc_set_attr_string_list(d, "fused_ops", ops, lens, 1);
  tfs_op_desc_set_attr_int_list(d, "dw_strides", one, 4);
  tfs_op_desc_set_attr_string(d, "dw_padding", "SAME", 4);
  tfs_op_desc_set_attr_string_list(d, "dw_fused_ops", ops, lens, 1);
  tfs_output y = {tfs_op_desc_finish(d, st), 0};
  TFS_ASSERT_OK(st);
  tfs_session *s = tfs_session_new(g, NULL, st);
  TFS_ASSERT_OK(st);
  tfs_tensor *in[3] = {nt_random((int64_t[]){1, 4, 4, 2}, 4, 3),
                       nt_random((int64_t[]){which == 0 ? 2 : 3}, 1, 4),
                       nt_random((int64_t[]){which == 1 ? 4 : 3}, 1, 5)};
  tfs_output feeds[3] = {x, b, db};
  tfs_tensor *out = NULL;
  tfs_session_run(s, feeds, in, 3, &y, &out, 1, NULL, 0, st);
  CU_ASSERT_EQUAL(tfs_status_code(st), TFS_INVALID_ARGUMENT);
  if (!strstr(tfs_status_message(st), needle))
    fprintf(stderr, "\n  got: %s", tfs_status_message(st));
  CU_ASSERT_PTR_NOT_NULL(strstr(tfs_status_message(st), needle));
  CU_ASSERT_PTR_NOT_NULL(strstr(tfs_status_message(st), "{{node cdw}}"));
  tfs_tensor_free(out);
  for (int i = 0; i < 3; i++) tfs_tensor_free(in[i]);
  tfs_tensor_free(fv);
  tfs_tensor_free(dv);
  tfs_session_free(s);
  tfs_graph_free(g);
  tfs_status_free(st);
}

static void test_fused_conv_dw_bias_errors(void) {
  cdw_bias_case(0, "bias must be a 1-D float vector of 3 values, got 2");
  cdw_bias_case(1, "dw_bias must be a 1-D float vector of 3 values, got 4");
}

static const tfs_test_case kConvErrors[] = {
    {"conv2d", test_conv2d_errors},
    {"attrs", test_conv_attr_errors},
    {"depthwise", test_depthwise_errors},
    {"backprop", test_backprop_errors},
    {"fused", test_fused_conv_inputs},
    {"fused_conv_dw_bias", test_fused_conv_dw_bias_errors},
    {NULL, NULL},
};

const tfs_test_suite tfs_test_suites[] = {
    {"nn_conv", kConv},
    {"nn_conv_errors", kConvErrors},
    {NULL, NULL},
};
