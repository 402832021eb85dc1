/*
 * backends/cpu/fused_dw_pw.c - _TfsFusedDepthwiseConv2DConv2D: a
 * _FusedDepthwiseConv2dNative (bias [+ activation]) whose output only
 * feeds a 1x1 stride-1 _FusedConv2D (bias [+ the residual Add]): the
 * depthwise-separable convolution of MobileNetV1, and MobileNetV3's
 * first block (whose input also feeds the residual sum, so no expansion
 * joins it).  Each task walks down a stretch of an image's output in
 * bands of rows: the band's depthwise rows, read straight from the
 * input, into a tile of about 128 KiB, then through the projection
 * (fused_pw.h), so the depthwise output never goes to memory.  With
 * fewer bands than threads, a fed projection filter, no indirect
 * kernels or at most four pixels: the two ops one after the other over
 * the pool, the depthwise output in scratch.  The bits of the two ops.
 * float32, NHWC.
 */
#include <stdatomic.h>
#include <string.h>

#include "core/alloc.h"
#include "core/threadpool.h"
#include "ops/conv2d_check.h"
#include "ops/fused_conv_dw.h"
#include "backends/cpu/conv_common.h"
#include "backends/cpu/conv_depthwise.h"
#include "backends/cpu/cpu_tables.h"
#include "backends/cpu/fused_conv_dw.h"
#include "backends/cpu/fused_epilogue.h"
#include "backends/cpu/fused_pw.h"

/* The tile of a band's depthwise rows (bytes). */
static _Atomic int64_t g_tile_bytes = 128 << 10;

int64_t tfs_fused_dw_pw__set_tile_bytes(int64_t bytes) {
  return atomic_exchange(&g_tile_bytes, bytes > 0 ? bytes : 128 << 10);
}

typedef struct dpw_state {
  tfs_window w;             /* the depthwise convolution's */
  tfs_fused_epilogue e;     /* its bias [+ activation] */
  tfs_fused_pw_state pws;   /* the projection: pw_filter is input 3 */
} dpw_state;

static void dpw_release(void *p) {
  dpw_state *s = p;
  if (!s) return;
  tfs_fused_pw_clear(&s->pws);
  tfs_free(s);
}

static int dpw_prepare(tfs_kernel_init *ki) {
  dpw_state *s = tfs_calloc(1, sizeof(*s));
  if (!s) return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  ki->state = s;
  if (tfs_fused_dw_prepare(ki, &s->w, &s->e) ||
      tfs_conv_check_batch_depth(ki, &s->w, TFS_UNIMPLEMENTED))
    return -1;
  if (s->w.nchw)
    return tfs_ki_error(ki, TFS_UNIMPLEMENTED,
                        "_TfsFusedDepthwiseConv2DConv2D supports NHWC only");
  return tfs_fused_pw_prepare(ki, 3, &s->pws);
}

typedef struct dpw_job {
  const dpw_state *s;
  const conv_geom *g;
  const float *in, *filt;
  tfs_dw_epilogue ep;
  int later;                  /* the activation after the rows */
  const tfs_fused_pw *pw;
  int64_t band, segs;         /* output rows a band, stretches an image */
  atomic_int failed;
} dpw_job;

/* Output rows [ya, yb) of image b, band by band: the depthwise rows into
 * the tile, then the projection of them.  0, or -1 on OOM. */
static int dpw_walk(const dpw_job *j, float *tile, int64_t b, int64_t ya,
                    int64_t yb) {
  const conv_geom *g = j->g;
  const int64_t rowlen = g->w * g->c, oc = g->oc;
  const float *img = j->in + b * g->h * rowlen;
  for (int64_t oy0 = ya; oy0 < yb; oy0 += j->band) {
    int64_t oy1 = oy0 + j->band < yb ? oy0 + j->band : yb;
    int64_t lo, hi;
    tfs_dw_band_input(g, oy0, oy1, &lo, &hi);
    const int64_t npix = (oy1 - oy0) * g->ow;
    if (tfs_dw_f32_band_rows(g, img + lo * rowlen, lo, hi - lo, j->filt,
                             tile, &j->ep, oy0, oy1))
      return -1;
    if (j->later) tfs_fused_apply(&j->s->e, tile, npix, oc, oc, NULL, NULL);
    if (tfs_fused_pw_rows(j->pw, tile, (b * g->oh + oy0) * g->ow, npix))
      return -1;
  }
  return 0;
}

/* parallel_for body: task t is stretch t % segs of image t / segs. */
static void dpw_tasks(void *arg, int64_t t0, int64_t t1) {
  dpw_job *j = arg;
  const conv_geom *g = j->g;
  float *tile = tfs_kctx_task_buf(
      0, sizeof(float) * (size_t)(j->band * g->ow * g->oc + 1));
  if (!tile) {
    atomic_store(&j->failed, 1);
    return;
  }
  for (int64_t t = t0; t < t1; t++) {
    int64_t b = t / j->segs, sg = t % j->segs;
    if (dpw_walk(j, tile, b, g->oh * sg / j->segs,
                 g->oh * (sg + 1) / j->segs)) {
      atomic_store(&j->failed, 1);
      break;
    }
  }
}

/* Bands of output rows whose depthwise rows fill about a tile, and a
 * stretch of an image for each thread: 0 when there are fewer bands
 * than threads (the two ops apart then). */
static int dpw_cut(const conv_geom *g, int nt, dpw_job *j) {
  const int64_t rowbytes = (int64_t)sizeof(float) * g->ow * g->oc;
  int64_t band = atomic_load(&g_tile_bytes) / (rowbytes > 0 ? rowbytes : 1);
  if (band < 1) band = 1;
  if (band > g->oh) band = g->oh;
  int64_t bands = (g->oh + band - 1) / band;
  if (nt > 1 && g->n * bands < nt) return 0;
  j->band = band;
  j->segs = g->n >= nt ? 1 : (nt + g->n - 1) / g->n;
  if (j->segs > bands) j->segs = bands;
  if (j->segs < 1) j->segs = 1;
  return 1;
}

/* The two ops one after the other: the depthwise convolution over the
 * pool into scratch, then the projection. */
static void dpw_apart(tfs_kernel_ctx *c, const dpw_job *j,
                      const conv_geom *g3) {
  const conv_geom *g = j->g;
  const int64_t npix = g->n * g->oh * g->ow;
  float *mid = tfs_kctx_scratch(c, sizeof(float) * (size_t)(npix * g->oc + 1));
  if (!mid) return; /* c failed */
  if (tfs_dw_f32(g, j->in, j->filt, mid, &j->ep, NULL, NULL,
                 tfs_kctx_intra_pool(c))) {
    tfs_kctx_fail(c, TFS_RESOURCE_EXHAUSTED, "out of memory");
    return;
  }
  if (j->later) tfs_fused_apply(&j->s->e, mid, npix, g->oc, g->oc, NULL, NULL);
  tfs_fused_pw_apart(c, &j->s->pws, g3, mid, j->pw);
}

static void dpw_compute(tfs_kernel_ctx *c) {
  const dpw_state *s = c->state;
  const tfs_tensor *x = c->inputs[0], *f = c->inputs[1], *bias = c->inputs[2];
  conv_geom g, g3;
  if (tfs_conv_check_inputs(c, &s->w, 1, x, f, &g) ||
      tfs_fused_check_channels_of(c, bias, "dw_bias", g.oc, 0))
    return;
  tfs_shape mid;
  tfs_conv_shape(&s->w, g.n, g.oh, g.ow, g.oc, &mid);
  tfs_fused_pw pw;
  memset(&pw, 0, sizeof pw);
  if (!tfs_fused_pw_begin(c, &s->pws, 3, &mid, &g3, &pw)) return;
  dpw_job j;
  memset(&j, 0, sizeof j);
  j.s = s;
  j.g = &g;
  j.in = x->data;
  j.filt = f->data;
  j.ep.bias = bias->data;
  j.ep.act = tfs_dw_store_act(&s->e);
  j.later = s->e.act != TFS_FA_NONE && j.ep.act == TFS_DW_ACT_NONE;
  j.pw = &pw;
  atomic_init(&j.failed, 0);
  const int64_t npix = g.n * g.oh * g.ow;
  int64_t cost = g.ow * g.oc * g.kh * g.kw / 8 +
                 tfs_gemm_cost_ns(g.ow, pw.n, pw.k) + 1; /* an output row */
  tfs_threadpool *pool = tfs_kctx_intra_pool(c);
  int nt = tfs_threadpool_plan_threads(pool, g.n * g.oh, cost);
  if (x->nelems == 0 || !tfs_fused_pw_bands_ok(&pw, npix) ||
      !dpw_cut(&g, nt, &j)) {
    dpw_apart(c, &j, &g3);
    return;
  }
  tfs_kctx_parallel_for(c, g.n * j.segs, cost * g.oh / j.segs + 1, dpw_tasks,
                        &j);
  if (atomic_load(&j.failed))
    tfs_kctx_fail(c, TFS_RESOURCE_EXHAUSTED, "out of memory");
}

const tfs_kernel_def tfs_cpu_kernels_fused_dw_pw[] = {
    {"_TfsFusedDepthwiseConv2DConv2D", "CPU", "T", TFS_DT_BIT(TFS_FLOAT),
     dpw_prepare, dpw_compute, dpw_release, TFS_KERNEL_EXPENSIVE, NULL},
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL},
};
