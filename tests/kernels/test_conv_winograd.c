/*
 * tests/kernels/test_conv_winograd.c - 3x3 stride-1 float convolutions on
 * the Winograd F(2x2, 3x3) and F(4x4, 3x3) paths (backends/cpu/
 * conv_winograd.h) and on the direct GEMM path, each against a float64
 * direct convolution (the tile forced either way, and the rule that
 * picks it): odd
 * images, channel counts off the vector width, SAME / VALID / EXPLICIT
 * padding, batches, one and four threads, several blocks; the AVX2 and
 * portable transforms give the same bits; the fused bias and Relu (in
 * the tile store) and Relu6 (per finished strip); the shapes that stay on
 * the direct path.  Errors are measured against the scale of each
 * output, sum |x| |w| over its window.
 */
#include <pthread.h>

#include "core/cpu.h"
#include "backends/cpu/conv_winograd.h"
#include "session/exec.h"
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

/* A new graph: x [?, ?, ?, c] (the depth known at prepare for the
 * filter's packing) -> Conv2D with constant filter fv (k's padding,
 * strides, dilations) [-> BiasAdd bv [-> act]] [-> MaxPool, VALID, window
 * and strides pool x pool, when pool > 0]; *x and *y its feed and
 * fetch. */
static tfs_graph *conv_graph(const wcase *k, tfs_tensor *fv, tfs_tensor *bv,
                             const char *act, int pool, tfs_output *x,
                             tfs_output *y) {
  tfs_status *st = tfs_status_new();
  tfs_graph *g = tfs_graph_new();
  int64_t xd[4] = {-1, -1, -1, k->c};
  *x = tfs_op_placeholder(g, "x", TFS_FLOAT, xd, 4, st);
  tfs_output f = tfs_op_const(g, "f", fv, st);
  tfs_op_desc *d = tfs_op_desc_new(g, "Conv2D", "conv");
  tfs_op_desc_add_input(d, *x);
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
  *y = (tfs_output){tfs_op_desc_finish(d, st), 0};
  if (bv) {
    tfs_output b = tfs_op_const(g, "b", bv, st);
    d = tfs_op_desc_new(g, "BiasAdd", "bias");
    tfs_op_desc_add_input(d, *y);
    tfs_op_desc_add_input(d, b);
    *y = (tfs_output){tfs_op_desc_finish(d, st), 0};
    if (act) {
      d = tfs_op_desc_new(g, act, "act");
      tfs_op_desc_add_input(d, *y);
      *y = (tfs_output){tfs_op_desc_finish(d, st), 0};
    }
  }
  if (pool) {
    d = tfs_op_desc_new(g, "MaxPool", "pool");
    tfs_op_desc_add_input(d, *y);
    nt_attr pa[3] = {NT_LIST4("ksize", 1, pool, pool, 1),
                     NT_LIST4("strides", 1, pool, pool, 1),
                     NT_STR("padding", "VALID")};
    nt_set_attrs(d, pa, 3);
    *y = (tfs_output){tfs_op_desc_finish(d, st), 0};
  }
  TFS_ASSERT_OK(st);
  tfs_status_free(st);
  return g;
}

/* A session over g on `threads` intra-op threads. */
static tfs_session *new_session(tfs_graph *g, int threads) {
  tfs_status *st = tfs_status_new();
  tfs_session_options *o = tfs_session_options_new();
  tu_own_pools(o, threads);
  tfs_session *s = tfs_session_new(g, o, st);
  TFS_ASSERT_OK(st);
  tfs_session_options_free(o);
  tfs_status_free(st);
  return s;
}

/* conv_graph's output for xv on `threads` threads, through a callable;
 * *fused: how many _TfsFusedConv2DMaxPool nodes its plan ran. */
static tfs_tensor *run_pooled(const wcase *k, tfs_tensor *xv, tfs_tensor *fv,
                              tfs_tensor *bv, const char *act, int pool,
                              int threads, int *fused) {
  tfs_status *st = tfs_status_new();
  tfs_output x, y;
  tfs_graph *g = conv_graph(k, fv, bv, act, pool, &x, &y);
  tfs_session *s = new_session(g, threads);
  tfs_callable *cl =
      tfs_session_make_callable(s, &x, 1, &y, 1, NULL, 0, NULL, st);
  TFS_ASSERT_OK(st);
  const tfs_plan *p = tfs_callable__plan(cl);
  *fused = 0;
  for (int i = 0; i < p->nnodes; i++)
    *fused += strcmp(tfs_operation_op_type(p->nodes[i].op),
                     "_TfsFusedConv2DMaxPool") == 0;
  tfs_tensor *out = NULL;
  tfs_callable_run(cl, &xv, 1, &out, 1, st);
  TFS_ASSERT_OK(st);
  tfs_callable_free(cl);
  tfs_session_free(s);
  tfs_graph_free(g);
  tfs_status_free(st);
  return out;
}

/* x -> Conv2D [-> BiasAdd -> act] (conv_graph) on `threads` threads. */
static tfs_tensor *run_graph(const wcase *k, tfs_tensor *xv, tfs_tensor *fv,
                             tfs_tensor *bv, const char *act, int threads) {
  int fused;
  return run_pooled(k, xv, fv, bv, act, 0, threads, &fused);
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

/* The bound on |error| / sum |x| |w| of the direct path, F(2x2, 3x3) and
 * F(4x4, 3x3) (measured: 2.5e-7, 1.1e-7 and 2.3e-6; F(4x4)'s transforms
 * scale by up to 8 and 1/24, the error of each product with them). */
static const double kBound[3] = {4e-7, 4e-7, 4e-6};

/* Each case on the direct path and both Winograd tiles, one and four
 * threads: within kBound of the window's scale; the Winograd path ran
 * exactly when on, with the tile forced. */
static void test_paths(void) {
  double worst[3] = {0, 0, 0}, worst_max[3] = {0, 0, 0};
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
    for (int path = 2; path >= 0; path--) /* F(4x4), F(2x2), direct */
      for (int threads = 1; threads <= 4; threads += 3) {
        tfs_conv__set_winograd(path > 0);
        tfs_conv__set_winograd_tile(path == 2 ? 4 : 2);
        int64_t calls = tfs_conv__winograd_calls();
        int64_t calls4 = tfs_conv__winograd4_calls();
        tfs_tensor *y = run_graph(k, xv, fv, NULL, NULL, threads);
        CU_ASSERT_EQUAL(tfs_conv__winograd_calls() - calls, path > 0);
        CU_ASSERT_EQUAL(tfs_conv__winograd4_calls() - calls4, path == 2);
        CU_ASSERT_EQUAL_FATAL(tfs_tensor_num_elements(y), ny);
        double e1, e2;
        errors(y, want, scale, ny, &e1, &e2);
        if (e1 > kBound[path])
          fprintf(stderr, "\n  case %zu path %d: error %.3g of scale", ci,
                  path, e1);
        CU_ASSERT(e1 <= kBound[path]);
        if (e1 > worst[path]) worst[path] = e1;
        if (e2 > worst_max[path]) worst_max[path] = e2;
        tfs_tensor_free(y);
      }
    free(want);
    free(scale);
    tfs_tensor_free(xv);
    tfs_tensor_free(fv);
  }
  tfs_conv__set_winograd(-1);
  tfs_conv__set_winograd_tile(0);
  printf("\n  max error / sum|x||w|: direct %.3g, F(2x2) %.3g, F(4x4) %.3g; "
         "/ max|y|: direct %.3g, F(2x2) %.3g, F(4x4) %.3g\n",
         worst[0], worst[1], worst[2], worst_max[0], worst_max[1],
         worst_max[2]);
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
    for (size_t ci = 0; ci < 2 * sizeof kCases / sizeof *kCases; ci++) {
      const wcase *k = &kCases[ci / 2];
      tfs_conv__set_winograd_tile(ci % 2 ? 4 : 2);
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
  tfs_conv__set_winograd_tile(0);
}

/* The strips cut into blocks and dealt to threads (F(4x4)): one block
 * split over the pool phase by phase; blocks one a thread when they
 * share out evenly, their number a multiple of the threads (20 strips on
 * 4 and 2 threads); several blocks in phases when fewer than the threads
 * or when a thread would get too many strips (10 strips on 4 threads);
 * one thread; each within the F(4x4) bound of the reference, and the
 * same bits whatever the split (each output is one tile's sums). */
static void test_blocks(void) {
  static const struct {
    int n;             /* images of 40 x 40 x 32 -> 32: 10 strips each */
    int64_t bytes;     /* V and M of a block (0: the default) */
    int threads;
    int64_t nblocks, nslots;
  } kSplits[] = {
      {2, 0, 4, 1, 1},         /* 20 strips fit one block */
      {2, 200 << 10, 4, 12, 4}, /* 10 blocks of 2 -> 12 for 4 threads */
      {2, 200 << 10, 2, 10, 2},
      {2, 800 << 10, 4, 3, 1},  /* 3 blocks of 8 strips, in phases */
      {1, 200 << 10, 4, 5, 1},  /* 8 blocks: 3 strips for some thread */
      {2, 200 << 10, 1, 10, 1},
  };
  const wcase k = {2, 40, 40, 32, 32, "SAME", {0}};
  tfs_tensor *xv = nt_random((int64_t[]){2, 40, 40, 32}, 4, 71);
  tfs_tensor *x1 = nt_random((int64_t[]){1, 40, 40, 32}, 4, 71);
  tfs_tensor *fv = nt_random((int64_t[]){3, 3, 32, 32}, 4, 73);
  memcpy(tfs_tensor_data(x1), tfs_tensor_data(xv),
         sizeof(float) * 40 * 40 * 32);
  const int64_t ny = 2 * 40 * 40 * 32;
  double *want = malloc(sizeof(double) * (size_t)ny);
  double *scale = malloc(sizeof(double) * (size_t)ny);
  reference(&k, tfs_tensor_data(xv), tfs_tensor_data(fv), 40, 40, 1, 1, want,
            scale);
  tfs_conv__set_winograd(1);
  tfs_conv__set_winograd_tile(4);
  tfs_tensor *first = NULL;
  for (size_t i = 0; i < TFS_ARRAY_LEN(kSplits); i++) {
    wcase ki = k;
    ki.n = kSplits[i].n;
    tfs_conv__set_winograd_block_bytes(kSplits[i].bytes);
    tfs_tensor *y =
        run_graph(&ki, ki.n == 2 ? xv : x1, fv, NULL, NULL, kSplits[i].threads);
    int64_t nblocks = -1, nslots = -1;
    tfs_conv__winograd_last_split(&nblocks, &nslots);
    if (nblocks != kSplits[i].nblocks || nslots != kSplits[i].nslots)
      fprintf(stderr, "\n  split %zu: %lld blocks, %lld slots", i,
              (long long)nblocks, (long long)nslots);
    CU_ASSERT_EQUAL(nblocks, kSplits[i].nblocks);
    CU_ASSERT_EQUAL(nslots, kSplits[i].nslots);
    const int64_t n = tfs_tensor_num_elements(y);
    CU_ASSERT_EQUAL_FATAL(n, ny / 2 * ki.n);
    double e1, e2;
    errors(y, want, scale, n, &e1, &e2);
    CU_ASSERT(e1 <= kBound[2]);
    if (!first) {
      first = y;
      continue;
    }
    CU_ASSERT(memcmp(tfs_tensor_data(first), tfs_tensor_data(y),
                     sizeof(float) * (size_t)n) == 0);
    tfs_tensor_free(y);
  }
  tfs_conv__set_winograd_block_bytes(0);
  tfs_conv__set_winograd(-1);
  tfs_conv__set_winograd_tile(0);
  tfs_tensor_free(first);
  free(want);
  free(scale);
  tfs_tensor_free(xv);
  tfs_tensor_free(x1);
  tfs_tensor_free(fv);
}

/* Whether output (oy, ox) shares a tile of `tile` pixels a side with an
 * input tile ((tile + 2) a side, starting one pixel up and left: SAME)
 * holding pixel (py, px). */
static int tile_reaches(int tile, int oy, int ox, int py, int px) {
  int ty = oy / tile * tile - 1, tx = ox / tile * tile - 1;
  return py >= ty && py < ty + tile + 2 && px >= tx && px < tx + tile + 2;
}

/* Conv2D + BiasAdd + Relu / Relu6 (both in the tile store) / Elu (per
 * finished strip, the last one short: 11 rows) / hard-swish (in the
 * store) with a NaN pixel, on each tile: NaN in every 3x3 window over it;
 * F(2x2, 3x3) nowhere else (its transforms keep the direct sum's
 * dependencies), F(4x4, 3x3) also in the outputs of the tiles whose input
 * holds it; the rest within the path's kBound of the window's scale (+
 * 1e-6 |want| for the bias; hard-swish's slope reaches 1.5).  Hard-swish
 * in the store also gives the bits of _TfsHardSwish run on the output
 * with the bias alone, on every vector level of the output transform. */
static void hard_swish_bits(const wcase *k, tfs_tensor *xv, tfs_tensor *fv,
                            tfs_tensor *bv, int threads) {
  static const int caps[3] = {TFS_CPU_ISA_AVX512, TFS_CPU_ISA_AVX2,
                              TFS_CPU_ISA_BASELINE};
  const int64_t yd[4] = {k->n, k->h, k->w, k->kn};
  for (int ci = 0; ci < 3; ci++) {
    if (tu_isa_unavailable(caps[ci])) continue;
    tfs_cpu__set_max_isa(caps[ci]);
    int64_t calls = tfs_conv__winograd_calls();
    tfs_tensor *yb = run_graph(k, xv, fv, bv, NULL, threads);
    tfs_tensor *want = nt_run1("_TfsHardSwish", &yb, 1, NULL, 0);
    tfs_tensor *y = run_graph(k, xv, fv, bv, "_TfsHardSwish", threads);
    CU_ASSERT_EQUAL(tfs_conv__winograd_calls() - calls, 2);
    nt_check_f32(y, yd, 4, tfs_tensor_data(want), 0, 0);
    tfs_tensor_free(y);
    tfs_tensor_free(want);
    tfs_tensor_free(yb);
  }
  tfs_cpu__set_max_isa(-1);
}

static void test_fused(void) {
  static const wcase k = {2, 11, 9, 40, 36, "SAME", {0}};
  static const char *acts[] = {"Relu", "Relu6", "Elu", "_TfsHardSwish"};
  enum { PB = 1, PY = 4, PX = 6 }; /* the NaN pixel */
  tfs_tensor *xv = nt_random((int64_t[]){k.n, k.h, k.w, k.c}, 4, 5);
  tfs_tensor *fv = nt_random((int64_t[]){3, 3, k.c, k.kn}, 4, 6);
  float bias_v[36];
  for (int i = 0; i < 36; i++) bias_v[i] = 0.25f * (float)(i % 7) - 0.75f;
  tfs_tensor *bv = nt_f32((int64_t[]){k.kn}, 1, bias_v);
  ((float *)tfs_tensor_data(xv))[((PB * k.h + PY) * k.w + PX) * k.c + 3] =
      NAN;
  int64_t ny = (int64_t)k.n * k.h * k.w * k.kn;
  double *want = malloc(sizeof(double) * (size_t)ny);
  double *scale = malloc(sizeof(double) * (size_t)ny);
  reference(&k, tfs_tensor_data(xv), tfs_tensor_data(fv), k.h, k.w, 1, 1,
            want, scale);
  const float *bias = tfs_tensor_data(bv);
  for (int a = 0; a < 8; a++) {
    int tile = a < 4 ? 2 : 4, act = a % 4;
    float *w = malloc(sizeof(float) * (size_t)ny);
    int nans = 0;
    for (int64_t i = 0; i < ny; i++) {
      float v = (float)want[i] + bias[i % k.kn];
      nans += v != v;
      if (act == 2) {
        w[i] = v < 0 ? expm1f(v) : v;
        continue;
      }
      if (act == 3) {
        float t = v + 3.0f;
        t = t < 0 ? 0 : t > 6 ? 6 : t;
        w[i] = v * t / 6.0f;
        continue;
      }
      v = v < 0 ? 0 : v;
      w[i] = act == 1 && v > 6 ? 6 : v;
    }
    CU_ASSERT_EQUAL(nans, 9 * k.kn);
    tfs_conv__set_winograd_tile(tile);
    for (int threads = 1; threads <= 4; threads += 3) {
      tfs_conv__set_winograd(1);
      int64_t calls = tfs_conv__winograd4_calls();
      tfs_tensor *y = run_graph(&k, xv, fv, bv, acts[act], threads);
      CU_ASSERT_EQUAL(tfs_conv__winograd4_calls() - calls, tile == 4);
      CU_ASSERT_EQUAL_FATAL(tfs_tensor_num_elements(y), ny);
      const float *got = tfs_tensor_data(y);
      int bad = 0, extra = 0;
      for (int64_t i = 0; i < ny; i++) {
        int64_t px = i / k.kn;
        int ox = (int)(px % k.w), oy = (int)(px / k.w % k.h);
        int b = (int)(px / ((int64_t)k.w * k.h));
        if (w[i] != w[i]) {
          bad += got[i] == got[i];
        } else if (got[i] != got[i]) {
          extra++;
          bad += tile == 2 || b != PB || !tile_reaches(tile, oy, ox, PY, PX);
        } else {
          bad += fabs(got[i] - w[i]) >
                 (act == 3 ? 1.5 : 1) * kBound[tile / 2] * scale[i] +
                     1e-6 * fabs(w[i]);
        }
      }
      if (bad)
        fprintf(stderr, "\n  tile %d %s: %d outputs wrong", tile,
                acts[act], bad);
      CU_ASSERT_EQUAL(bad, 0);
      if (tile == 4) CU_ASSERT(extra > 0); /* the reach is real */
      tfs_tensor_free(y);
      if (act == 3) hard_swish_bits(&k, xv, fv, bv, threads);
    }
    free(w);
  }
  tfs_conv__set_winograd(-1);
  tfs_conv__set_winograd_tile(0);
  free(want);
  free(scale);
  tfs_tensor *t[] = {xv, fv, bv};
  for (int i = 0; i < 3; i++) tfs_tensor_free(t[i]);
}

/* The tile a prepared filter gets: F(4x4, 3x3) from 40 tiles of 4x4
 * output pixels in the static batch (1 when unknown), F(2x2, 3x3) below
 * or when the height or width is unknown; NCHW reads its own
 * dimensions; the override wins either way. */
static void test_pick_tile(void) {
  static const struct {
    int nchw;
    int64_t d[4];
    int want;
  } kCasesP[] = {
      {0, {1, 56, 56, 64}, 4},  {0, {1, 28, 28, 128}, 4}, /* 49 tiles */
      {0, {1, 24, 24, 128}, 2}, /* 36 */
      {0, {1, 14, 14, 256}, 2}, {0, {8, 14, 14, 256}, 4},
      {0, {8, 7, 7, 512}, 2},   {0, {-1, 28, 28, 64}, 4},
      {0, {-1, 14, 14, 64}, 2}, {0, {1, -1, 56, 64}, 2},
      {0, {4, 56, -1, 64}, 2},  {1, {1, 64, 56, 56}, 4},
      {1, {1, 256, 14, 14}, 2}, {0, {1, 20, 32, 64}, 4}, /* 5 x 8 */
  };
  for (size_t i = 0; i < sizeof kCasesP / sizeof *kCasesP; i++) {
    tfs_window w;
    memset(&w, 0, sizeof w);
    w.nchw = kCasesP[i].nchw;
    tfs_shape sh = {.rank = 4};
    memcpy(sh.dims, kCasesP[i].d, sizeof kCasesP[i].d);
    int got = tfs_wino_pick_tile(&w, &sh);
    if (got != kCasesP[i].want)
      fprintf(stderr, "\n  case %zu: tile %d, want %d", i, got,
              kCasesP[i].want);
    CU_ASSERT_EQUAL(got, kCasesP[i].want);
    tfs_conv__set_winograd_tile(6 - kCasesP[i].want);
    CU_ASSERT_EQUAL(tfs_wino_pick_tile(&w, &sh), 6 - kCasesP[i].want);
    tfs_conv__set_winograd_tile(0);
  }
  tfs_shape r3 = {.rank = 3, .dims = {56, 56, 64}};
  tfs_window w;
  memset(&w, 0, sizeof w);
  CU_ASSERT_EQUAL(tfs_wino_pick_tile(&w, &r3), 2);
}

/* Conv2D + BiasAdd + activation + MaxPool fused into one
 * _TfsFusedConv2DMaxPool on the Winograd path: both tiles, pools of 2
 * (whole strips of either tile pooled as they finish), 3 (rows left
 * over, the pools after the whole convolution) and 4 (strips of F(4x4)
 * only), Relu6 (stored with the tile) and Elu (after it), one and four
 * threads: the pooled bits of the unfused convolution on the same path,
 * pooled here. */
static void test_fused_pool(void) {
  static const wcase k = {3, 13, 11, 32, 40, "SAME", {0}};
  static const char *acts[] = {"Relu6", "Elu"};
  tfs_tensor *xv = nt_random((int64_t[]){k.n, k.h, k.w, k.c}, 4, 41);
  tfs_tensor *fv = nt_random((int64_t[]){3, 3, k.c, k.kn}, 4, 42);
  tfs_tensor *bv = nt_random((int64_t[]){k.kn}, 1, 43);
  tfs_conv__set_winograd(1);
  for (int v = 0; v < 2 * 2 * 3; v++) {
    int tile = v & 1 ? 4 : 2, act = (v >> 1) & 1, pool = 2 + v / 4;
    tfs_conv__set_winograd_tile(tile);
    int fused;
    tfs_tensor *conv = run_pooled(&k, xv, fv, bv, acts[act], 0, 1, &fused);
    CU_ASSERT_EQUAL(fused, 0);
    int ph = k.h / pool, pw = k.w / pool;
    int64_t np = (int64_t)k.n * ph * pw * k.kn;
    float *want = malloc(sizeof(float) * (size_t)np);
    const float *cv = tfs_tensor_data(conv);
    for (int b = 0; b < k.n; b++)
      for (int py = 0; py < ph; py++)
        for (int px = 0; px < pw; px++)
          for (int ch = 0; ch < k.kn; ch++) {
            float m = -3.4028235e38f;
            for (int dy = 0; dy < pool; dy++)
              for (int dx = 0; dx < pool; dx++) {
                float e = cv[(((int64_t)b * k.h + py * pool + dy) * k.w +
                              px * pool + dx) * k.kn + ch];
                if (e > m) m = e;
              }
            want[(((int64_t)b * ph + py) * pw + px) * k.kn + ch] = m;
          }
    for (int threads = 1; threads <= 4; threads += 3) {
      int64_t calls = tfs_conv__winograd_calls();
      int64_t calls4 = tfs_conv__winograd4_calls();
      tfs_tensor *y = run_pooled(&k, xv, fv, bv, acts[act], pool, threads,
                                 &fused);
      CU_ASSERT_EQUAL(fused, 1);
      CU_ASSERT_EQUAL(tfs_conv__winograd_calls() - calls, 1);
      CU_ASSERT_EQUAL(tfs_conv__winograd4_calls() - calls4, tile == 4);
      CU_ASSERT_EQUAL_FATAL(tfs_tensor_num_elements(y), np);
      int same = memcmp(tfs_tensor_data(y), want, sizeof(float) * (size_t)np)
                 == 0;
      if (!same)
        fprintf(stderr, "\n  tile %d %s pool %d threads %d: pooled bits "
                "differ", tile, acts[act], pool, threads);
      CU_ASSERT(same);
      tfs_tensor_free(y);
    }
    free(want);
    tfs_tensor_free(conv);
  }
  tfs_conv__set_winograd(-1);
  tfs_conv__set_winograd_tile(0);
  tfs_tensor *t[] = {xv, fv, bv};
  for (int i = 0; i < 3; i++) tfs_tensor_free(t[i]);
}

/* A session over conv_graph's x -> Conv2D (SAME, depth c) with constant
 * filter fv on `threads` threads; *gp, *x and *y its graph, feed and
 * fetch. */
static tfs_session *conv_session(int64_t c, tfs_tensor *fv, int threads,
                                 tfs_graph **gp, tfs_output *x,
                                 tfs_output *y) {
  wcase k = {1, 1, 1, (int)c, 1, "SAME", {0}, 0, 0};
  *gp = conv_graph(&k, fv, NULL, NULL, 0, x, y);
  return new_session(*gp, threads);
}

static tfs_tensor *conv_run(tfs_session *s, tfs_output x, tfs_output y,
                            tfs_tensor *xv) {
  tfs_status *st = tfs_status_new();
  tfs_tensor *out = NULL;
  tfs_session_run(s, &x, &xv, 1, &y, &out, 1, NULL, 0, st);
  TFS_ASSERT_OK(st);
  tfs_status_free(st);
  return out;
}

typedef struct open_run {
  tfs_session *s;
  tfs_output x, y;
  tfs_tensor *xv, *out;
} open_run;

static void *open_run_main(void *arg) {
  open_run *r = arg;
  r->out = conv_run(r->s, r->x, r->y, r->xv);
  return NULL;
}

/* With the batch (or the map) unknown at prepare, each call takes its
 * tile from its own batch: 8x8 maps hold 4 tiles of 4x4 an image, so one
 * image runs F(2x2) and 16 images (64 tiles) F(4x4), the same bits as
 * F(4x4) forced, within F(4x4)'s bound of the reference; a batch of one
 * afterwards is F(2x2) again; four threads that each run the first call
 * wanting F(4x4) at once get the same bytes.  A forced tile or a fully
 * known shape closes the choice (tfs_wino_tile_open). */
static void test_open_tile(void) {
  const int64_t c = 32, kn = 40;
  tfs_tensor *fv = nt_random((int64_t[]){3, 3, c, kn}, 4, 31);
  tfs_tensor *x1 = nt_random((int64_t[]){1, 8, 8, c}, 4, 32);
  tfs_tensor *x16 = nt_random((int64_t[]){16, 8, 8, c}, 4, 33);
  tfs_conv__set_winograd(1);
  /* F(4x4) forced: the bits to match */
  tfs_conv__set_winograd_tile(4);
  tfs_graph *g;
  tfs_output x, y;
  tfs_session *s = conv_session(c, fv, 1, &g, &x, &y);
  tfs_tensor *want16 = conv_run(s, x, y, x16);
  tfs_session_free(s);
  tfs_graph_free(g);
  tfs_conv__set_winograd_tile(2);
  s = conv_session(c, fv, 1, &g, &x, &y);
  tfs_tensor *want1 = conv_run(s, x, y, x1); /* F(2x2) */
  int64_t calls4 = tfs_conv__winograd4_calls();
  tfs_tensor *f2_16 = conv_run(s, x, y, x16); /* forced: stays F(2x2) */
  CU_ASSERT_EQUAL(tfs_conv__winograd4_calls(), calls4);
  tfs_tensor_free(f2_16);
  tfs_session_free(s);
  tfs_graph_free(g);
  tfs_conv__set_winograd_tile(0);

  s = conv_session(c, fv, 2, &g, &x, &y);
  int64_t calls = tfs_conv__winograd_calls();
  calls4 = tfs_conv__winograd4_calls();
  tfs_tensor *got1 = conv_run(s, x, y, x1);
  CU_ASSERT_EQUAL(tfs_conv__winograd_calls() - calls, 1);
  CU_ASSERT_EQUAL(tfs_conv__winograd4_calls(), calls4);
  CU_ASSERT_EQUAL(memcmp(tfs_tensor_data(got1), tfs_tensor_data(want1),
                         tfs_tensor_byte_size(want1)), 0);
  tfs_tensor *got16 = conv_run(s, x, y, x16);
  CU_ASSERT_EQUAL(tfs_conv__winograd4_calls() - calls4, 1);
  CU_ASSERT_EQUAL(memcmp(tfs_tensor_data(got16), tfs_tensor_data(want16),
                         tfs_tensor_byte_size(want16)), 0);
  tfs_tensor *again1 = conv_run(s, x, y, x1);
  CU_ASSERT_EQUAL(tfs_conv__winograd4_calls() - calls4, 1);
  CU_ASSERT_EQUAL(memcmp(tfs_tensor_data(again1), tfs_tensor_data(want1),
                         tfs_tensor_byte_size(want1)), 0);
  /* within F(4x4)'s bound of the float64 reference */
  wcase k = {16, 8, 8, (int)c, (int)kn, "SAME", {0}, 0, 0};
  int64_t ny = 16 * 8 * 8 * kn;
  double *want = malloc(sizeof(double) * (size_t)ny);
  double *scale = malloc(sizeof(double) * (size_t)ny);
  reference(&k, tfs_tensor_data(x16), tfs_tensor_data(fv), 8, 8, 1, 1, want,
            scale);
  double e1, e2;
  errors(got16, want, scale, ny, &e1, &e2);
  CU_ASSERT(e1 <= kBound[2]);
  free(want);
  free(scale);
  tfs_session_free(s);
  tfs_graph_free(g);

  /* a fresh session, four threads making the F(4x4) filter at once */
  s = conv_session(c, fv, 1, &g, &x, &y);
  open_run r[4];
  pthread_t t[4];
  for (int i = 0; i < 4; i++) {
    r[i] = (open_run){s, x, y, x16, NULL};
    CU_ASSERT_EQUAL_FATAL(pthread_create(&t[i], NULL, open_run_main, &r[i]),
                          0);
  }
  for (int i = 0; i < 4; i++) {
    pthread_join(t[i], NULL);
    CU_ASSERT_EQUAL(memcmp(tfs_tensor_data(r[i].out), tfs_tensor_data(want16),
                           tfs_tensor_byte_size(want16)), 0);
    tfs_tensor_free(r[i].out);
  }
  tfs_session_free(s);
  tfs_graph_free(g);

  /* which prepared shapes leave the tile open */
  static const struct {
    int64_t d[4];
    int open;
  } kOpen[] = {{{-1, 8, 8, 32}, 1},  {{1, -1, 8, 32}, 1},
               {{-1, -1, -1, 32}, 1}, {{16, 8, 8, 32}, 0},
               {{1, 8, 8, 32}, 0},    {{-1, 56, 56, 32}, 0}};
  tfs_window w;
  memset(&w, 0, sizeof w);
  for (size_t i = 0; i < sizeof kOpen / sizeof *kOpen; i++) {
    tfs_shape sh = {.rank = 4};
    memcpy(sh.dims, kOpen[i].d, sizeof kOpen[i].d);
    CU_ASSERT_EQUAL(tfs_wino_tile_open(&w, &sh), kOpen[i].open);
    tfs_conv__set_winograd_tile(2);
    CU_ASSERT_EQUAL(tfs_wino_tile_open(&w, &sh), 0);
    tfs_conv__set_winograd_tile(0);
  }
  conv_geom g1 = {.n = 1, .h = 8, .w = 8}, g16 = {.n = 16, .h = 8, .w = 8};
  CU_ASSERT_EQUAL(tfs_wino_call_tile(&g1), 2);
  CU_ASSERT_EQUAL(tfs_wino_call_tile(&g16), 4);
  tfs_conv__set_winograd(-1);
  tfs_tensor *all[] = {fv, x1, x16, want1, want16, got1, got16, again1};
  for (size_t i = 0; i < sizeof all / sizeof *all; i++) tfs_tensor_free(all[i]);
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
    {"blocks", test_blocks},
    {"fused", test_fused},
    {"pick_tile", test_pick_tile},
    {"open_tile", test_open_tile},
    {"fused_pool", test_fused_pool},
    {"not_taken", test_not_taken},
    {NULL, NULL},
};

const tfs_test_suite tfs_test_suites[] = {
    {"conv_winograd", kWino},
    {NULL, NULL},
};
