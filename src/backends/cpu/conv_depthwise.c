/*
 * backends/cpu/conv_depthwise.c - DepthwiseConv2dNative: each input channel
 * convolved with its own `multiplier` filters.  Float runs the vector
 * rows of conv_depthwise_avx512.c / conv_depthwise_avx2.c where the CPU
 * has them (portable C rows otherwise, and for double), split over
 * output rows and, when there are few, channel blocks on the intra-op
 * pool; bfloat16 in NHWC on those rows a band at a time
 * (conv_depthwise_bf16.c).  Also runs what TensorFlow's CPU kernel
 * rejects: NCHW (through an NHWC copy), dilations and unequal strides.
 */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("tree-vectorize", "vect-cost-model=dynamic")
#endif

#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/cpu.h"
#include "core/threadpool.h"
#include "backends/cpu/conv_common.h"
#include "backends/cpu/conv_depthwise.h"
#include "backends/cpu/cpu_tables.h"
#include "backends/cpu/store_act.h"

typedef struct dw_state {
  tfs_window w;
  float *filter_f32; /* constant 16-bit filter as float */
  int64_t filter_n;
} dw_state;

static void dw_release(void *p) {
  dw_state *s = p;
  if (!s) return;
  tfs_free(s->filter_f32);
  tfs_free(s);
}

static int dw_prepare(tfs_kernel_init *ki) {
  dw_state *s = tfs_calloc(1, sizeof *s);
  if (!s) return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  ki->state = s;
  if (tfs_window_parse(ki->attrs, TFS_WINDOW_DEPTHWISE, "DepthwiseConv2D",
                       &s->w, ki->st))
    return tfs_ki_error(ki, TFS_INVALID_ARGUMENT, "%s",
                        tfs_status_message(ki->st));
  if (tfs_conv_check_batch_depth(ki, &s->w, TFS_INVALID_ARGUMENT)) return -1;
  if (tfs_conv_const_filter(ki, 1, &s->filter_f32, &s->filter_n))
    return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  return 0;
}

/* ---- portable rows (double, and float without AVX2) -------------------- */

typedef struct dw_job {
  const conv_geom *g;
  const void *in, *filt;
  void *out;
} dw_job;

/* Output row `row` (one (n, oy)), channels [c0, c1); T is float or
 * double.  Direct loops: the path of CPUs without AVX2. */
#define DW_ROW_C(NAME, T)                                                   \
  static void NAME(const dw_job *j, int64_t row, int64_t c0, int64_t c1) {  \
    const conv_geom *g = j->g;                                              \
    const T *in = j->in, *f = j->filt;                                      \
    const int64_t C = g->c, M = g->kn, OC = C * M;                          \
    const int64_t b = row / g->oh, oy = row % g->oh;                        \
    for (int64_t ox = 0; ox < g->ow; ox++) {                                \
      T *acc = (T *)j->out + (row * g->ow + ox) * OC;                       \
      for (int64_t k = c0; k < c1; k++) acc[k] = 0;                         \
      for (int64_t ky = 0; ky < g->kh; ky++) {                              \
        int64_t iy = oy * g->sh - g->pt + ky * g->dh;                       \
        if (iy < 0 || iy >= g->h) continue;                                 \
        for (int64_t kx = 0; kx < g->kw; kx++) {                            \
          int64_t ix = ox * g->sw - g->pl + kx * g->dw;                     \
          if (ix < 0 || ix >= g->w) continue;                               \
          const T *p = in + ((b * g->h + iy) * g->w + ix) * C;              \
          const T *fp = f + (ky * g->kw + kx) * OC;                         \
          if (M == 1) {                                                     \
            for (int64_t c = c0; c < c1; c++) acc[c] += p[c] * fp[c];       \
          } else {                                                          \
            int64_t o = c0, c = c0 / M, m = c0 % M;                         \
            for (; o < c1; c++, m = 0)                                      \
              for (; m < M && o < c1; m++, o++) acc[o] += p[c] * fp[o];     \
          }                                                                 \
        }                                                                   \
      }                                                                     \
    }                                                                       \
  }
DW_ROW_C(dw_row_f32, float)
DW_ROW_C(dw_row_f64, double)

static void dw_rows_f64(void *arg, int64_t r0, int64_t r1) {
  const dw_job *j = arg;
  const int64_t oc = j->g->c * j->g->kn;
  for (int64_t r = r0; r < r1; r++) dw_row_f64(j, r, 0, oc);
}

/* ---- float: vector rows over (row, channel block) units --------------- */

typedef struct dw_units_job {
  tfs_dw_plan plan;
  tfs_dw_row_fn row; /* NULL: the portable row */
  int64_t nchunks, chunk;
  tfs_dw_done_fn done;
  void *done_arg;
} dw_units_job;

/* The epilogue on the portable path: channels [c0, c1) of the n pixels
 * at `row`, with the formulas of the fused epilogue (epilogue_rows.c). */
static void dw_epilogue_c(const tfs_dw_plan *p, float *row, int64_t n,
                          int64_t oc, int64_t c0, int64_t c1) {
  for (int64_t i = 0; i < n; i++)
    for (int64_t c = c0; c < c1; c++) {
      float x = row[i * oc + c];
      if (p->bias) x = x + p->bias[c];
      if (p->act == TFS_DW_ACT_HARD_SWISH) {
        x = tfs_hard_swish1(x);
      } else if (p->act != TFS_DW_ACT_NONE) {
        float r = x > 0 ? x : (x != x ? x : 0.0f);
        if (p->act == TFS_DW_ACT_RELU6 && r > 6.0f) r = 6.0f;
        x = r;
      }
      row[i * oc + c] = x;
    }
}

/* Channels [c0, c1) of output row `row` (image and row), then done. */
static void dw_part(const dw_units_job *j, int64_t row, int64_t c0,
                    int64_t c1) {
  const conv_geom *g = j->plan.g;
  const int64_t oc = g->c * g->kn;
  if (j->row) {
    j->row(&j->plan, row, c0, c1);
  } else {
    dw_job pj = {g, j->plan.in, j->plan.filt, j->plan.out};
    dw_row_f32(&pj, row, c0, c1);
    if (j->plan.bias || j->plan.act != TFS_DW_ACT_NONE)
      dw_epilogue_c(&j->plan, j->plan.out + row * g->ow * oc, g->ow, oc, c0,
                    c1);
  }
  if (j->done)
    j->done(j->done_arg, j->plan.out + row * g->ow * oc, c0, c1 - c0);
}

static void dw_units(void *arg, int64_t u0, int64_t u1) {
  const dw_units_job *j = arg;
  const int64_t oc = j->plan.g->c * j->plan.g->kn;
  for (int64_t u = u0; u < u1; u++) {
    int64_t row = u / j->nchunks, k = u % j->nchunks;
    int64_t c0 = k * j->chunk, c1 = c0 + j->chunk < oc ? c0 + j->chunk : oc;
    dw_part(j, row, c0, c1);
  }
}

/* Lane tables of a channel multiplier above 1: vector v covers output
 * channels [v * vl, v * vl + vl), output channel o reads input o / kn. */
static void dw_fill_blocks(const conv_geom *g, int vl, tfs_dw_block *bl,
                           int64_t nb) {
  for (int64_t v = 0; v < nb; v++) {
    int64_t o0 = v * vl, ic0 = o0 / g->kn;
    bl[v].ic0 = (int32_t)ic0;
    bl[v].cnt = (int32_t)(g->c - ic0 < vl ? g->c - ic0 : vl);
    memset(bl[v].idx, 0, sizeof bl[v].idx);
    for (int i = 0; i < vl && o0 + i < g->c * g->kn; i++)
      bl[v].idx[i] = (uint8_t)((o0 + i) / g->kn - ic0);
  }
}

/* The plan and row function of one call: the widest vector rows the CPU
 * has, and for a channel multiplier above 1 their lane tables (in
 * stack_blocks when 64 do, else malloc'd into *own).  Returns the vector
 * length (0: portable rows), or -1 when memory runs out. */
static int dw_setup(const conv_geom *g, const float *in, const float *filt,
                    float *out, const tfs_dw_epilogue *ep, dw_units_job *j,
                    tfs_dw_block *stack_blocks, tfs_dw_block **own) {
  const int64_t oc = g->c * g->kn;
  memset(j, 0, sizeof *j);
  *own = NULL;
  j->plan = (tfs_dw_plan){g, in, filt, out, NULL, ep ? ep->bias : NULL,
                          ep ? ep->act : TFS_DW_ACT_NONE};
  int vl = 0;
  if (tfs_cpu_has(TFS_CPU_ISA_AVX512)) {
    j->row = tfs_dw_row_avx512;
    vl = 16;
  } else if (tfs_cpu_has(TFS_CPU_ISA_AVX2)) {
    j->row = tfs_dw_row_avx2;
    vl = 8;
  }
  if (vl && g->kn > 1) {
    int64_t nb = (oc + vl - 1) / vl;
    tfs_dw_block *blocks =
        nb <= 64 ? stack_blocks : malloc(sizeof(*blocks) * (size_t)nb);
    if (!blocks) return -1;
    if (blocks != stack_blocks) *own = blocks;
    dw_fill_blocks(g, vl, blocks, nb);
    j->plan.blocks = blocks;
  }
  j->nchunks = 1;
  j->chunk = oc;
  return vl;
}

int tfs_dw_f32(const conv_geom *g, const float *in, const float *filt,
               float *out, const tfs_dw_epilogue *ep, tfs_dw_done_fn done,
               void *done_arg, tfs_threadpool *pool) {
  const int64_t oc = g->c * g->kn, nrows = g->n * g->oh;
  if (nrows == 0 || g->ow == 0 || oc == 0) return 0;
  dw_units_job j;
  tfs_dw_block stack_blocks[64], *own;
  int vl = dw_setup(g, in, filt, out, ep, &j, stack_blocks, &own);
  if (vl < 0) return -1;
  j.done = done;
  j.done_arg = done_arg;
  /* ns of one core per row: about an FMA per vector lane, plus moving
   * each output vector */
  int64_t taps = g->kh * g->kw;
  int64_t cost = vl ? g->ow * oc * (taps + 2) / (2 * vl) + 1
                    : g->ow * oc * taps + 1;
  /* Few rows (batch 1, 7x7 maps): cut the channels too, in multiples of
   * 16, so that every thread gets several units. */
  int nt = tfs_threadpool_plan_threads(pool, nrows, cost);
  if (vl && nt > 1 && nrows < 4 * nt) {
    int64_t want = (4 * nt + nrows - 1) / nrows, nb16 = (oc + 15) / 16;
    if (want > nb16) want = nb16;
    j.chunk = (nb16 + want - 1) / want * 16;
    j.nchunks = (oc + j.chunk - 1) / j.chunk;
  }
  tfs_threadpool_parallel_for(pool, nrows * j.nchunks, cost / j.nchunks + 1,
                              dw_units, &j);
  free(own);
  return 0;
}

int tfs_dw_f32_cols(const conv_geom *g, const float *in, const float *filt,
                    float *out, const tfs_dw_epilogue *ep, int64_t c0,
                    int64_t c1, tfs_dw_done_fn done, void *done_arg) {
  const int64_t oc = g->c * g->kn, nrows = g->n * g->oh;
  if (nrows == 0 || g->ow == 0 || c1 <= c0) return 0;
  if (c0 < 0 || c0 % 16 || c1 > oc) return -1;
  dw_units_job j;
  tfs_dw_block stack_blocks[64], *own;
  if (dw_setup(g, in, filt, out, ep, &j, stack_blocks, &own) < 0) return -1;
  j.done = done;
  j.done_arg = done_arg;
  for (int64_t row = 0; row < nrows; row++) dw_part(&j, row, c0, c1);
  free(own);
  return 0;
}

int tfs_dw_f32_band_rows(const conv_geom *g, const float *in, int64_t lo,
                         int64_t nrows, const float *filt, float *rows,
                         const tfs_dw_epilogue *ep, int64_t oy0,
                         int64_t oy1) {
  if (oy1 <= oy0 || g->ow == 0 || g->c * g->kn == 0) return 0;
  /* the band as an image of its own whose output row 0 is row oy0: input
   * row lo + t is row t, the padding above is what lies above row lo for
   * output row oy0 (pt + lo - oy0 * sh >= 0, as lo is the first row oy0
   * reads or 0), and rows the band does not hold lie outside the image
   * (padding) */
  conv_geom band = *g;
  band.n = 1;
  band.h = nrows;
  band.pt = g->pt + lo - oy0 * g->sh;
  band.oh = oy1 - oy0;
  dw_units_job j;
  tfs_dw_block stack_blocks[64], *own;
  if (dw_setup(&band, in, filt, rows, ep, &j, stack_blocks, &own) < 0)
    return -1;
  dw_units(&j, 0, oy1 - oy0);
  free(own);
  return 0;
}

int tfs_dw_f32_band(const conv_geom *g, const float *in, int64_t lo,
                    int64_t nrows, const float *filt, float *out,
                    const tfs_dw_epilogue *ep, int64_t oy0, int64_t oy1) {
  return tfs_dw_f32_band_rows(g, in, lo, nrows, filt,
                              out + oy0 * g->ow * g->c * g->kn, ep, oy0, oy1);
}

/* bfloat16 NHWC: tfs_dw_bf16 with the float filter (widened at prepare
 * when constant). */
static void dw_run_bf16(tfs_kernel_ctx *c, const dw_state *s,
                        const conv_geom *g, const tfs_tensor *x,
                        const tfs_tensor *f, tfs_tensor *y) {
  const float *filt = tfs_conv_filter_f32(c, s->filter_f32, s->filter_n, f);
  if (!filt) return; /* failed c */
  if (tfs_dw_bf16(g, x->data, filt, y->data, NULL, NULL, NULL,
                  tfs_kctx_intra_pool(c)))
    tfs_kctx_fail(c, TFS_RESOURCE_EXHAUSTED, "out of memory");
}

static void dw_run(tfs_kernel_ctx *c, const dw_state *s, const conv_geom *g,
                   const tfs_tensor *x, const tfs_tensor *f, tfs_tensor *y) {
  if (x->dtype == TFS_BFLOAT16 && !s->w.nchw && x->nelems != 0) {
    dw_run_bf16(c, s, g, x, f, y);
    return;
  }
  conv_stage st;
  int ok = tfs_conv_stage_begin(&st, s->w.nchw, x, f, s->filter_f32,
                                s->filter_n, y) == 0;
  if (ok && st.ct == TFS_DOUBLE) {
    dw_job j = {g, st.in, st.filt, st.out};
    int64_t cost = g->ow * g->c * g->kn * g->kh * g->kw + 1;
    tfs_kctx_parallel_for(c, g->n * g->oh, cost, dw_rows_f64, &j);
  } else if (ok) {
    ok = tfs_dw_f32(g, st.in, st.filt, st.out, NULL, NULL, NULL,
                    tfs_kctx_intra_pool(c)) == 0;
  }
  if (ok) ok = tfs_conv_stage_end(&st, s->w.nchw, y) == 0;
  tfs_conv_stage_free(&st);
  if (!ok) tfs_kctx_fail(c, TFS_RESOURCE_EXHAUSTED, "out of memory");
}

static void dw_compute(tfs_kernel_ctx *c) {
  const dw_state *s = c->state;
  const tfs_tensor *x = c->inputs[0], *f = c->inputs[1];
  conv_geom g;
  if (tfs_conv_check_inputs(c, &s->w, 1, x, f, &g)) return;
  tfs_shape os;
  tfs_conv_shape(&s->w, g.n, g.oh, g.ow, g.oc, &os);
  tfs_tensor *y = tfs_kctx_alloc_output(c, 0, &os);
  if (!y || y->nelems == 0) return;
  dw_run(c, s, &g, x, f, y);
}

const tfs_kernel_def tfs_cpu_kernels_conv_depthwise[] = {
    {"DepthwiseConv2dNative", "CPU", "T", TFS_DT_FLOATS, dw_prepare,
     dw_compute, dw_release, TFS_KERNEL_EXPENSIVE, NULL},
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL},
};
