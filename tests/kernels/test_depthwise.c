/*
 * tests/kernels/test_depthwise.c - the float depthwise convolution
 * (backends/cpu/conv_depthwise.h) on every vector path this CPU runs
 * (AVX-512, AVX2, portable C) against a direct double-precision loop:
 * strides, dilations, filter sizes and shapes, every padding, channel
 * counts around the vector widths, channel multipliers, batches, odd
 * images; the bias / Relu / Relu6 epilogue; the interior pieces of the
 * MobileNet shapes; the split over a pool with its per-part callback; and
 * DepthwiseConv2dNative / _FusedDepthwiseConv2dNative through sessions.
 */
#include "core/cpu.h"
#include "core/threadpool.h"
#include "core/util.h"
#include "backends/cpu/conv_depthwise.h"
#include "nn_test_util.h"

/* ---- geometry and reference ------------------------------------------ */

/* One case: image n x h x w x c, filter kh x kw x c x m, strides,
 * dilations, padding 'S' (SAME), 'V' (VALID) or 'E' (EXPLICIT: pads). */
typedef struct dw_case {
  int n, h, w, c, m, kh, kw, sh, sw, dh, dw;
  char pad;
  int pads[4]; /* top, bottom, left, right */
} dw_case;

static void case_geom(const dw_case *k, conv_geom *g) {
  memset(g, 0, sizeof *g);
  g->n = k->n;
  g->h = k->h;
  g->w = k->w;
  g->c = k->c;
  g->kh = k->kh;
  g->kw = k->kw;
  g->kc = k->c;
  g->kn = k->m;
  g->sh = k->sh;
  g->sw = k->sw;
  g->dh = k->dh;
  g->dw = k->dw;
  g->oc = (int64_t)k->c * k->m;
  int64_t in[2] = {k->h, k->w}, ks[2] = {k->kh, k->kw}, s[2] = {k->sh, k->sw};
  int64_t d[2] = {k->dh, k->dw}, out[2], before[2], after[2];
  for (int i = 0; i < 2; i++) {
    int64_t eff = (ks[i] - 1) * d[i] + 1;
    if (k->pad == 'S') {
      out[i] = (in[i] + s[i] - 1) / s[i];
      int64_t need = (out[i] - 1) * s[i] + eff - in[i];
      if (need < 0) need = 0;
      before[i] = need / 2;
      after[i] = need - need / 2;
    } else {
      before[i] = k->pad == 'E' ? k->pads[2 * i] : 0;
      after[i] = k->pad == 'E' ? k->pads[2 * i + 1] : 0;
      int64_t span = in[i] + before[i] + after[i] - eff;
      out[i] = span < 0 ? 0 : span / s[i] + 1;
    }
  }
  g->oh = out[0];
  g->ow = out[1];
  g->pt = before[0];
  g->pb = after[0];
  g->pl = before[1];
  g->pr = after[1];
}

/* Direct loop in double precision. */
static void ref_dw(const conv_geom *g, const float *x, const float *f,
                   float *y) {
  int64_t oc = g->c * g->kn;
  for (int64_t b = 0; b < g->n; b++)
    for (int64_t oy = 0; oy < g->oh; oy++)
      for (int64_t ox = 0; ox < g->ow; ox++)
        for (int64_t o = 0; o < oc; o++) {
          double acc = 0;
          int64_t ch = o / g->kn;
          for (int64_t ky = 0; ky < g->kh; ky++)
            for (int64_t kx = 0; kx < g->kw; kx++) {
              int64_t iy = oy * g->sh - g->pt + ky * g->dh;
              int64_t ix = ox * g->sw - g->pl + kx * g->dw;
              if (iy < 0 || iy >= g->h || ix < 0 || ix >= g->w) continue;
              acc += (double)x[((b * g->h + iy) * g->w + ix) * g->c + ch] *
                     f[(ky * g->kw + kx) * oc + o];
            }
          y[((b * g->oh + oy) * g->ow + ox) * oc + o] = (float)acc;
        }
}

/* Counts, per output element, how often a finished part covered it. */
typedef struct seen {
  const conv_geom *g;
  const float *out;
  unsigned char *hits;
} seen;

static void count_part(void *arg, float *row, int64_t c0, int64_t nc) {
  seen *s = arg;
  int64_t oc = s->g->c * s->g->kn;
  int64_t at = row - s->out; /* the row's first element */
  for (int64_t i = 0; i < s->g->ow; i++)
    for (int64_t j = 0; j < nc; j++) s->hits[at + i * oc + c0 + j]++;
}

/* The epilogue of case number i: none, a bias, bias and Relu, bias and
 * Relu6, Relu alone, bias and hard-swish, in turn (bias: NULL for
 * none). */
static void case_epilogue(int i, const float *bias, tfs_dw_epilogue *ep) {
  static const int acts[] = {TFS_DW_ACT_NONE,  TFS_DW_ACT_NONE,
                             TFS_DW_ACT_RELU,  TFS_DW_ACT_RELU6,
                             TFS_DW_ACT_RELU,  TFS_DW_ACT_HARD_SWISH};
  ep->bias = i % 6 == 0 || i % 6 == 4 ? NULL : bias;
  ep->act = acts[i % 6];
}

/* want[] after the epilogue, in float as BiasAdd and Relu / Relu6 do;
 * hard-swish as x * relu6(x + 3) / 6 in double (within the tolerance of
 * float's steps). */
static void ref_epilogue(const tfs_dw_epilogue *ep, int64_t oc, float *y,
                         int64_t n) {
  for (int64_t i = 0; i < n; i++) {
    float x = y[i];
    if (ep->bias) x = x + ep->bias[i % oc];
    if (ep->act == TFS_DW_ACT_HARD_SWISH) {
      double t = (double)x + 3;
      t = t < 0 ? 0 : t > 6 ? 6 : t;
      y[i] = (float)(x * t / 6);
      continue;
    }
    if (ep->act != TFS_DW_ACT_NONE) x = x > 0 ? x : 0.0f;
    if (ep->act == TFS_DW_ACT_RELU6 && x > 6.0f) x = 6.0f;
    y[i] = x;
  }
}

/* Runs one case on the current path, with the epilogue of case_epilogue
 * (ep_case; -1: none); returns the number of wrong elements (printing
 * the first). */
static int run_case_ep(const dw_case *k, uint32_t seed, tfs_threadpool *pool,
                       const char *path, int ep_case) {
  conv_geom g;
  case_geom(k, &g);
  int64_t nx = (int64_t)k->n * k->h * k->w * k->c;
  int64_t nf = (int64_t)k->kh * k->kw * k->c * k->m;
  int64_t ny = g.n * g.oh * g.ow * g.oc;
  float *x = malloc(sizeof(float) * (size_t)(nx + 1));
  float *f = malloc(sizeof(float) * (size_t)(nf + 1));
  float *want = malloc(sizeof(float) * (size_t)(ny + 1));
  float *got = malloc(sizeof(float) * (size_t)(ny + 1));
  unsigned char *hits = calloc((size_t)(ny + 1), 1);
  for (int64_t i = 0; i < nx; i++) x[i] = nt_rand(&seed);
  for (int64_t i = 0; i < nf; i++) f[i] = nt_rand(&seed);
  float *bias = malloc(sizeof(float) * (size_t)(g.oc + 1));
  for (int64_t i = 0; i < g.oc; i++) bias[i] = 2.0f * nt_rand(&seed);
  for (int64_t i = 0; i < ny; i++) got[i] = NAN; /* every one is written */
  ref_dw(&g, x, f, want);
  tfs_dw_epilogue ep = {NULL, TFS_DW_ACT_NONE};
  if (ep_case >= 0) case_epilogue(ep_case, bias, &ep);
  ref_epilogue(&ep, g.oc, want, ny);
  seen s = {&g, got, hits};
  int rc = tfs_dw_f32(&g, x, f, got, ep_case >= 0 ? &ep : NULL, count_part,
                      &s, pool);
  CU_ASSERT_EQUAL(rc, 0);
  int bad = 0;
  for (int64_t i = 0; i < ny; i++) {
    double tol = 1e-5 + 1e-5 * fabs(want[i]);
    if (!(fabs((double)got[i] - want[i]) <= tol) || hits[i] != 1) {
      if (bad++ == 0)
        fprintf(stderr,
                "\n  %s: n%d %dx%dx%d m%d k%dx%d s%d,%d d%d,%d %c "
                "[%d %d %d %d] epilogue %d: element %lld got %.8g want "
                "%.8g (parts %d)",
                path, k->n, k->h, k->w, k->c, k->m, k->kh, k->kw, k->sh,
                k->sw, k->dh, k->dw, k->pad, k->pads[0], k->pads[1],
                k->pads[2], k->pads[3], ep_case, (long long)i, got[i],
                want[i], hits[i]);
    }
  }
  free(x);
  free(f);
  free(bias);
  free(want);
  free(got);
  free(hits);
  return bad;
}

static int run_case(const dw_case *k, uint32_t seed, tfs_threadpool *pool,
                    const char *path) {
  return run_case_ep(k, seed, pool, path, -1);
}

/* ---- the paths ------------------------------------------------------- */

static const struct {
  const char *name;
  int isa;
} kPaths[] = {{"avx512", TFS_CPU_ISA_AVX512},
              {"avx2", TFS_CPU_ISA_AVX2},
              {"portable", TFS_CPU_ISA_BASELINE}};

/* Caps the CPU at path i and reports it; 0 when the path cannot run. */
static int use_path(size_t i) {
  const char *why = tu_isa_unavailable(kPaths[i].isa);
  tu_cpu_path("depthwise", kPaths[i].name, why);
  if (why) return 0;
  tfs_cpu__set_max_isa(kPaths[i].isa);
  return 1;
}

/* Every channel count 1..67 with multipliers 1-3, in a SAME stride-1 and
 * a VALID stride-2 geometry: each vector width's full, partial and
 * multiplier-permuted lanes. */
static void test_depthwise_channels(void) {
  for (size_t p = 0; p < TFS_ARRAY_LEN(kPaths); p++) {
    if (!use_path(p)) continue;
    int bad = 0;
    for (int c = 1; c <= 67; c++)
      for (int m = 1; m <= 3; m++) {
        dw_case a = {1, 6, 11, c, m, 3, 3, 1, 1, 1, 1, 'S', {0}};
        dw_case b = {2, 7, 9, c, m, 3, 2, 2, 2, 1, 1, 'V', {0}};
        bad += run_case(&a, (uint32_t)(c * 7 + m), NULL, kPaths[p].name);
        bad += run_case(&b, (uint32_t)(c * 11 + m), NULL, kPaths[p].name);
      }
    CU_ASSERT_EQUAL(bad, 0);
  }
  tfs_cpu__set_max_isa(-1);
}

/* The MobileNet, NASNet and ConvNeXt shapes whose rows run in pieces
 * (3x3, 5x5 and 7x7, stride 1 and 2, no dilation or multiplier), every
 * channel count 1..41,
 * rows wide enough for pieces of 8 and 4 pixels, SAME and the EXPLICIT
 * padding a folded Pad gives, each with every epilogue; and the same
 * with a multiplier or a dilation (the general pieces). */
static void test_depthwise_mobilenet(void) {
  static const dw_case shapes[] = {
      {1, 5, 23, 0, 1, 3, 3, 1, 1, 1, 1, 'S', {0}},
      {1, 6, 27, 0, 1, 5, 5, 1, 1, 1, 1, 'S', {0}},
      {1, 7, 29, 0, 1, 3, 3, 2, 2, 1, 1, 'E', {0, 1, 0, 1}},
      {1, 9, 33, 0, 1, 5, 5, 2, 2, 1, 1, 'E', {1, 2, 1, 2}},
      {2, 6, 26, 0, 1, 3, 3, 2, 2, 1, 1, 'S', {0}},
      {1, 5, 30, 0, 1, 5, 5, 2, 2, 1, 1, 'V', {0}},
      {1, 4, 18, 0, 1, 3, 3, 1, 1, 1, 1, 'E', {4, 0, 0, 0}},
      {1, 5, 21, 0, 2, 3, 3, 2, 2, 1, 1, 'S', {0}},
      {1, 5, 25, 0, 1, 3, 3, 1, 1, 1, 2, 'S', {0}},
      {1, 9, 28, 0, 1, 7, 7, 1, 1, 1, 1, 'S', {0}},
      {1, 8, 31, 0, 1, 7, 7, 2, 2, 1, 1, 'E', {3, 3, 3, 3}},
      {1, 7, 14, 0, 1, 7, 7, 1, 1, 1, 1, 'V', {0}},
  };
  for (size_t p = 0; p < TFS_ARRAY_LEN(kPaths); p++) {
    if (!use_path(p)) continue;
    int bad = 0;
    for (size_t i = 0; i < TFS_ARRAY_LEN(shapes); i++)
      for (int c = 1; c <= 41; c++) {
        dw_case k = shapes[i];
        k.c = c;
        bad += run_case_ep(&k, (uint32_t)(c * 13 + (int)i), NULL,
                           kPaths[p].name, c + (int)i);
      }
    CU_ASSERT_EQUAL(bad, 0);
  }
  tfs_cpu__set_max_isa(-1);
}

/* Rows of the shapes of the pieces whose windows reach past the left and
 * right edges run their end pixels in pieces that skip the columns
 * outside the image, and what is left of the interior after pieces of 8
 * and 4 in a piece overlapping them: the same bits as the same image
 * padded with explicit zero columns and convolved VALID (where those
 * columns are taps of zero, which leave every sum as it was, and every
 * pixel is in an interior piece), on each vector path, for rows from 4
 * to 28 pixels, every stride and filter of the pieces, channel counts
 * with and without a partial vector, under and over four vectors. */
static int edge_case(int kh, int s, int w, int c, uint32_t seed) {
  dw_case k = {1, 6, w, c, 1, kh, kh, s, s, 1, 1, 'S', {0}};
  conv_geom g, gp;
  case_geom(&k, &g);
  dw_case kp = {1, 6 + (int)(g.pt + g.pb), w + (int)(g.pl + g.pr), c, 1,
                kh, kh, s, s, 1, 1, 'V', {0}};
  case_geom(&kp, &gp);
  int64_t nx = 6LL * w * c, nxp = (int64_t)kp.h * kp.w * c;
  int64_t nf = (int64_t)kh * kh * c, ny = g.oh * g.ow * c;
  float *x = malloc(sizeof(float) * (size_t)nx);
  float *xp = calloc((size_t)nxp, sizeof(float));
  float *f = malloc(sizeof(float) * (size_t)nf);
  float *y = malloc(sizeof(float) * (size_t)ny);
  float *yp = malloc(sizeof(float) * (size_t)ny);
  for (int64_t i = 0; i < nx; i++) x[i] = nt_rand(&seed);
  for (int64_t i = 0; i < nf; i++) f[i] = nt_rand(&seed);
  for (int64_t r = 0; r < 6; r++)
    memcpy(xp + ((r + g.pt) * kp.w + g.pl) * c, x + r * w * c,
           sizeof(float) * (size_t)(w * c));
  CU_ASSERT_EQUAL(gp.oh * gp.ow, g.oh * g.ow);
  CU_ASSERT_EQUAL(tfs_dw_f32(&g, x, f, y, NULL, NULL, NULL, NULL), 0);
  CU_ASSERT_EQUAL(tfs_dw_f32(&gp, xp, f, yp, NULL, NULL, NULL, NULL), 0);
  int bad = memcmp(y, yp, sizeof(float) * (size_t)ny) != 0;
  if (bad)
    fprintf(stderr, "\n  %dx%d stride %d, width %d, %d channels: SAME "
            "differs from the zero-padded image", kh, kh, s, w, c);
  free(x);
  free(xp);
  free(f);
  free(y);
  free(yp);
  return bad;
}

static void test_depthwise_edges(void) {
  static const int widths[] = {4, 5, 7, 8, 9, 12, 14, 17, 22, 28};
  static const int chans[] = {8, 13, 16, 44, 72};
  for (size_t p = 0; p < 2; p++) { /* the vector paths */
    if (!use_path(p)) continue;
    int bad = 0;
    for (int kh = 3; kh <= 7; kh += 2)
      for (int s = 1; s <= 2; s++)
        for (size_t wi = 0; wi < TFS_ARRAY_LEN(widths); wi++)
          for (size_t ci = 0; ci < TFS_ARRAY_LEN(chans); ci++)
            bad += edge_case(kh, s, widths[wi], chans[ci],
                             (uint32_t)(kh * 1000 + s * 100 + wi * 10 + ci));
    CU_ASSERT_EQUAL(bad, 0);
  }
  tfs_cpu__set_max_isa(-1);
}

/* Geometry drawn from every combination's axes: filters 1x1..5x5 and
 * non-square, strides 1-3 per axis, dilations 1-2 per axis, SAME, VALID
 * and asymmetric EXPLICIT padding (also wider than the filter), channel
 * counts around 8 and 16, multipliers 1-3, batches 1-2, odd images from
 * 1x1 (windows mostly in padding) to 13x12. */
static void test_depthwise_geometry(void) {
  static const int ks[][2] = {{1, 1}, {2, 2}, {3, 3}, {5, 5}, {1, 3},
                              {3, 1}, {2, 5}, {4, 3}, {5, 2}};
  static const int hw[][2] = {{1, 1}, {5, 7}, {9, 6}, {13, 12}, {3, 17},
                              {2, 2}};
  static const int chans[] = {1, 5, 8, 16, 17, 23, 33, 48};
  static const char pads[] = {'S', 'V', 'E'};
  for (size_t p = 0; p < TFS_ARRAY_LEN(kPaths); p++) {
    if (!use_path(p)) continue;
    uint32_t r = 12345;
    int bad = 0;
    for (int i = 0; i < 900; i++) {
      uint32_t v[12];
      for (int j = 0; j < 12; j++) {
        r = r * 1664525u + 1013904223u;
        v[j] = r >> 8;
      }
      dw_case k;
      memset(&k, 0, sizeof k);
      k.n = 1 + (int)(v[0] % 2);
      k.h = hw[v[1] % TFS_ARRAY_LEN(hw)][0];
      k.w = hw[v[1] % TFS_ARRAY_LEN(hw)][1];
      k.c = chans[v[2] % TFS_ARRAY_LEN(chans)];
      k.m = 1 + (int)(v[3] % 3);
      k.kh = ks[v[4] % TFS_ARRAY_LEN(ks)][0];
      k.kw = ks[v[4] % TFS_ARRAY_LEN(ks)][1];
      k.sh = 1 + (int)(v[5] % 3);
      k.sw = 1 + (int)(v[6] % 3);
      k.dh = 1 + (int)(v[7] % 2);
      k.dw = 1 + (int)(v[8] % 2);
      k.pad = pads[v[9] % 3];
      for (int j = 0; j < 4; j++) k.pads[j] = (int)((v[10] >> (4 * j)) % 6);
      /* a transposed image too, for each draw */
      bad += run_case_ep(&k, v[11], NULL, kPaths[p].name, i);
      int t = k.h;
      k.h = k.w;
      k.w = t;
      bad += run_case(&k, v[11] + 1, NULL, kPaths[p].name);
    }
    CU_ASSERT_EQUAL(bad, 0);
  }
  tfs_cpu__set_max_isa(-1);
}

/* On a pool, few rows with many channels are cut into channel blocks
 * (each part reported once, with its own channels); many rows are not. */
static void test_depthwise_pool(void) {
  static const dw_case cases[] = {
      {1, 2, 64, 1024, 1, 3, 3, 1, 1, 1, 1, 'S', {0}}, /* 2 rows */
      {1, 3, 48, 345, 3, 3, 3, 1, 2, 1, 1, 'S', {0}},  /* odd depth */
      {1, 1, 96, 1000, 1, 1, 5, 1, 1, 1, 2, 'E', {0, 0, 3, 1}},
      {2, 40, 40, 40, 2, 3, 3, 2, 2, 1, 1, 'V', {0}}, /* many rows */
  };
  tfs_status *st = tfs_status_new();
  tfs_threadpool *pool = tfs_threadpool_new("dw", 4, st);
  TFS_ASSERT_OK(st);
  for (size_t p = 0; p < TFS_ARRAY_LEN(kPaths); p++) {
    if (!use_path(p)) continue;
    int bad = 0;
    for (size_t i = 0; i < TFS_ARRAY_LEN(cases); i++) {
      bad += run_case(&cases[i], 7 + (uint32_t)i, pool, kPaths[p].name);
      bad += run_case(&cases[i], 9 + (uint32_t)i, NULL, kPaths[p].name);
    }
    CU_ASSERT_EQUAL(bad, 0);
  }
  tfs_cpu__set_max_isa(-1);
  tfs_threadpool_free(pool);
  tfs_status_free(st);
}

/* ---- through sessions ------------------------------------------------- */

/* x (placeholder) -> _FusedDepthwiseConv2dNative with BiasAdd (bv) and
 * act (NULL: none); returns the output for x (caller frees). */
static tfs_tensor *run_fused(const dw_case *k, tfs_tensor *xv, tfs_tensor *fv,
                             tfs_tensor *bv, const char *act) {
  tfs_status *st = tfs_status_new();
  tfs_graph *g = tfs_graph_new();
  tfs_output x = tfs_op_placeholder(g, "x", TFS_FLOAT, NULL, -1, st);
  tfs_output f = tfs_op_const(g, "f", fv, st);
  tfs_output b = tfs_op_const(g, "b", bv, st);
  tfs_op_desc *d = tfs_op_desc_new(g, "_FusedDepthwiseConv2dNative", "dw");
  tfs_op_desc_add_input(d, x);
  tfs_op_desc_add_input(d, f);
  tfs_op_desc_add_input_list(d, &b, 1);
  const char *ops[2] = {"BiasAdd", act};
  size_t lens[2] = {7, act ? strlen(act) : 0};
  tfs_op_desc_set_attr_string_list(d, "fused_ops", (const void *const *)ops,
                                   lens, act ? 2 : 1);
  tfs_op_desc_set_attr_int(d, "num_args", 1);
  nt_attr a[3] = {NT_LIST4("strides", 1, k->sh, k->sw, 1),
                  NT_LIST4("dilations", 1, k->dh, k->dw, 1),
                  NT_STR("padding", k->pad == 'S' ? "SAME" : "VALID")};
  nt_set_attrs(d, a, 3);
  tfs_output y = {tfs_op_desc_finish(d, st), 0};
  TFS_ASSERT_OK(st);
  tfs_session *s = tfs_session_new(g, NULL, st);
  TFS_ASSERT_OK(st);
  tfs_tensor *out = tu_run1(s, y, &x, &xv, 1);
  tfs_session_free(s);
  tfs_graph_free(g);
  tfs_status_free(st);
  return out;
}

/* The op and its fused form (bias, Relu6 per finished part) on every
 * path, over images big enough to be split over the session's pool; the
 * fused form with hard-swish (applied as each part is stored) gives the
 * bits of _TfsHardSwish run on its output with the bias alone. */
static void test_depthwise_ops(void) {
  static const dw_case cases[] = {
      {1, 9, 13, 67, 1, 3, 3, 1, 1, 1, 1, 'S', {0}},
      {2, 12, 10, 24, 3, 5, 5, 2, 1, 1, 2, 'S', {0}},
      {1, 2, 30, 600, 1, 3, 3, 1, 1, 1, 1, 'S', {0}},
      {1, 11, 11, 17, 2, 3, 2, 3, 2, 2, 1, 'V', {0}},
  };
  for (size_t p = 0; p < TFS_ARRAY_LEN(kPaths); p++) {
    if (!use_path(p)) continue;
    for (size_t i = 0; i < TFS_ARRAY_LEN(cases); i++) {
      const dw_case *k = &cases[i];
      conv_geom g;
      case_geom(k, &g);
      int64_t xd[4] = {k->n, k->h, k->w, k->c};
      int64_t fd[4] = {k->kh, k->kw, k->c, k->m};
      int64_t yd[4] = {g.n, g.oh, g.ow, g.oc}, bd[1] = {g.oc};
      tfs_tensor *xv = nt_random(xd, 4, 30 + (uint32_t)i);
      tfs_tensor *fv = nt_random(fd, 4, 40 + (uint32_t)i);
      tfs_tensor *bv = nt_f32(bd, 1, NULL);
      uint32_t seed = 50 + (uint32_t)i;
      for (int64_t e = 0; e < g.oc; e++)
        ((float *)tfs_tensor_data(bv))[e] = nt_rand(&seed);
      int64_t ny = g.n * g.oh * g.ow * g.oc;
      float *want = malloc(sizeof(float) * (size_t)ny);
      ref_dw(&g, tfs_tensor_data(xv), tfs_tensor_data(fv), want);
      tfs_tensor *in[2] = {xv, fv};
      nt_attr a[3] = {NT_LIST4("strides", 1, k->sh, k->sw, 1),
                      NT_LIST4("dilations", 1, k->dh, k->dw, 1),
                      NT_STR("padding", k->pad == 'S' ? "SAME" : "VALID")};
      tfs_tensor *y = nt_run1("DepthwiseConv2dNative", in, 2, a, 3);
      nt_check_f32(y, yd, 4, want, 1e-5, 1e-5);
      tfs_tensor_free(y);
      const float *b = tfs_tensor_data(bv);
      for (int64_t e = 0; e < ny; e++) {
        float v = (want[e] + b[e % g.oc]) * 4.0f; /* reach 6 too */
        want[e] = v < 0 ? 0 : v > 6 ? 6 : v;
      }
      /* the fused op's bias is scaled by 4 with its filter */
      float *fp = tfs_tensor_data(fv), *bp = tfs_tensor_data(bv);
      for (int64_t e = 0; e < tfs_tensor_num_elements(fv); e++) fp[e] *= 4;
      for (int64_t e = 0; e < g.oc; e++) bp[e] *= 4;
      y = run_fused(k, xv, fv, bv, "Relu6");
      nt_check_f32(y, yd, 4, want, 1e-5, 4e-5);
      tfs_tensor_free(y);
      tfs_tensor *yb = run_fused(k, xv, fv, bv, NULL);
      tfs_tensor *hs = nt_run1("_TfsHardSwish", &yb, 1, NULL, 0);
      y = run_fused(k, xv, fv, bv, "_TfsHardSwish");
      nt_check_f32(y, yd, 4, tfs_tensor_data(hs), 0, 0);
      tfs_tensor_free(y);
      tfs_tensor_free(hs);
      tfs_tensor_free(yb);
      free(want);
      tfs_tensor_free(xv);
      tfs_tensor_free(fv);
      tfs_tensor_free(bv);
    }
  }
  tfs_cpu__set_max_isa(-1);
}

static const tfs_test_case kDepthwise[] = {
    {"channels", test_depthwise_channels},
    {"mobilenet", test_depthwise_mobilenet},
    {"edges", test_depthwise_edges},
    {"geometry", test_depthwise_geometry},
    {"pool", test_depthwise_pool},
    {"ops", test_depthwise_ops},
    {NULL, NULL},
};

const tfs_test_suite tfs_test_suites[] = {
    {"depthwise", kDepthwise},
    {NULL, NULL},
};
