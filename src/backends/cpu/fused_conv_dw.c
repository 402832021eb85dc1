/*
 * backends/cpu/fused_conv_dw.c - _TfsFusedConv2DDepthwise: a _FusedConv2D
 * (bias [+ activation]) whose output only feeds a
 * _FusedDepthwiseConv2dNative (bias [+ activation]), MobileNet's and
 * EfficientNet's expansion and depthwise convolution.  Each task walks
 * down a stretch of one image's depthwise output in bands of rows: it
 * computes the rows of the convolution that band reads into a tile of
 * about 256 KiB (keeping the rows the previous band computed that this
 * one reads again), then the band's depthwise rows from the tile, so the
 * expanded map never goes to memory (MobileNetV2's first expansion is
 * 4.8 MB a picture: at batch 8, 38 MB, more than the L3).  With fewer
 * bands than threads (a batch of one, small maps), each thread takes a
 * share of the channels of both ops (cdw_cols_tasks) where the filter is
 * packed in panels; else, or on OpenBLAS, the two ops run one after the
 * other instead, each over the pool, the expanded map in scratch.  The
 * convolution is Conv2D's direct path (conv_gemm.c's plan rows: a
 * constant filter packed at prepare) and the depthwise rows are
 * tfs_dw_f32's, so every element has the bits of the two ops run one
 * after the other (a 3x3 stride-1 convolution that would take Winograd
 * there takes the direct path here).  In bfloat16 (auto mixed
 * precision's), the bands run the convolution rows on the bfloat16 GEMM
 * (a filter packed at prepare for AMX or vdpbf16ps) into a float tile,
 * with the epilogue and one rounding to bfloat16 as the bfloat16
 * _FusedConv2D stores them, and round each band of depthwise rows once
 * into the output, as the bfloat16 _FusedDepthwiseConv2dNative does;
 * otherwise the two bfloat16 ops one after the other.  NHWC only.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/threadpool.h"
#include "ops/conv2d_check.h"
#include "ops/fused_conv_dw.h"
#include "backends/cpu/bf16_convert.h"
#include "backends/cpu/conv_common.h"
#include "backends/cpu/conv_depthwise.h"
#include "backends/cpu/conv_winograd.h"
#include "backends/cpu/cpu_tables.h"
#include "backends/cpu/fused_conv_dw.h"
#include "backends/cpu/fused_epilogue.h"
#include "backends/cpu/fused_pw.h"
#include "backends/cpu/gemm.h"

/* The tile's target size: about half of a Zen 3 or Skylake-SP core's L2
 * (MobileNetV2 batch 8 on one thread: 70.9-73.4 ms from 256 KiB to 2
 * MiB, against 80.5-81.1 ms for the two ops apart). */
static _Atomic int64_t g_tile_bytes = 256 << 10;

int64_t tfs_fused_conv_dw__set_tile_bytes(int64_t bytes) {
  return atomic_exchange(&g_tile_bytes, bytes > 0 ? bytes : 256 << 10);
}

/* Calls that took the op by channels (cdw_cols_tasks; tests). */
static atomic_llong g_cols_calls;

int64_t tfs_fused_conv_dw__cols_calls(void) {
  return atomic_load_explicit(&g_cols_calls, memory_order_relaxed);
}

/* bfloat16 calls that ran in bands on the bfloat16 GEMM (tests). */
static atomic_llong g_bf16_band_calls;

int64_t tfs_fused_conv_dw__bf16_band_calls(void) {
  return atomic_load_explicit(&g_bf16_band_calls, memory_order_relaxed);
}

typedef struct cdw_state {
  tfs_window w1, w2;            /* the convolution's, the depthwise's */
  tfs_fused_epilogue e1, e2;    /* both a bias [+ activation] */
  tfs_conv_packed packed;       /* a constant filter, packed once */
  /* bfloat16: the constant filter packed for the bfloat16 GEMM (NULL: no
   * dot-product family in force at prepare, or fed), and constant
   * filters as float (the depthwise one; the convolution's when it is
   * not packed) */
  tfs_gemm_packed_bf16 *packed_bf16;
  float *f32, *dwf32;
  int64_t f32_n, dwf32_n;
  /* _TfsFusedConv2DDepthwiseConv2D: the pointwise projection after the
   * depthwise convolution */
  int pw;
  tfs_fused_pw_state pws;
} cdw_state;

static void cdw_release(void *p) {
  cdw_state *s = p;
  if (!s) return;
  tfs_conv_packed_clear(&s->packed);
  tfs_gemm_packed_bf16_free(s->packed_bf16);
  tfs_fused_pw_clear(&s->pws);
  tfs_free(s->f32);
  tfs_free(s->dwf32);
  tfs_free(s);
}

static int cdw_prepare(tfs_kernel_init *ki) {
  cdw_state *s = tfs_calloc(1, sizeof(*s));
  if (!s) return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  ki->state = s;
  if (tfs_window_parse(ki->attrs, TFS_WINDOW_CONV2D, "Conv2D", &s->w1,
                       ki->st))
    return tfs_ki_error(ki, TFS_INVALID_ARGUMENT, "%s",
                        tfs_status_message(ki->st));
  if (tfs_conv_check_batch_depth(ki, &s->w1, TFS_UNIMPLEMENTED) ||
      tfs_fused_parse(ki, 1u << TFS_FE_BIAS, &s->e1) ||
      tfs_fused_dw_prepare(ki, &s->w2, &s->e2) ||
      tfs_conv_check_batch_depth(ki, &s->w2, TFS_UNIMPLEMENTED))
    return -1;
  if (s->w1.nchw || s->w2.nchw)
    return tfs_ki_error(ki, TFS_UNIMPLEMENTED,
                        "_TfsFusedConv2DDepthwise supports NHWC only");
  if (tfs_conv_packed_prepare(ki, &s->w1, NULL, &s->packed))
    return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  if (ki->kdata) { /* the projection, pw_filter input 5 */
    s->pw = 1;
    if (tfs_fused_pw_prepare(ki, 5, &s->pws)) return -1;
  }
  if (ki->in_types[1] == TFS_BFLOAT16) {
    if (ki->in_consts && ki->in_consts[1])
      s->packed_bf16 = tfs_conv_pack_filter_bf16(ki->in_consts[1]);
    if ((!s->packed_bf16 && tfs_conv_const_filter(ki, 1, &s->f32, &s->f32_n)) ||
        tfs_conv_const_filter(ki, 3, &s->dwf32, &s->dwf32_n))
      return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  }
  /* the bands run on the direct path (tfs_conv_plan_rows) */
  tfs_wino_filter_free(s->packed.wino);
  s->packed.wino = NULL;
  return 0;
}

/* Depthwise output rows a band, stretches an image, and the convolution
 * rows a band's tile holds (cdw_cut). */
typedef struct cdw_bands {
  int64_t band, segs, tile_rows;
} cdw_bands;

typedef struct cdw_job {
  const cdw_state *s;
  const conv_geom *g1, *g2;
  const tfs_conv_plan *plan;
  int in_store;                 /* the GEMM adds the bias [+ Relu(6)] */
  const float *scale1, *shift1; /* the convolution's epilogue */
  const float *dwf;
  tfs_dw_epilogue ep2;
  int later2;                   /* the depthwise activation after its rows */
  float *out;
  float *mid;                   /* cdw_whole, cdw_cols: the convolution's
                                   output */
  cdw_bands bands;
  int64_t align, units, ntasks; /* cdw_cols: channels in units of align */
  int failed;                   /* atomic */
  /* _TfsFusedConv2DDepthwiseConv2D in bands: each band's depthwise rows
   * go through the projection (else NULL: the depthwise rows go to out) */
  const tfs_fused_pw *pw;
} cdw_job;

/* One task's band buffers: the job, and with a projection the band's
 * depthwise rows. */
typedef struct cdw_band_ctx {
  const cdw_job *j;
  float *rows;
} cdw_band_ctx;

/* Rows [from, hi) of image b's convolution output into the tile, whose
 * first row is row lo, with the convolution's epilogue. */
static int cdw_conv_rows(const cdw_job *j, float *tile, int64_t b,
                         int64_t lo, int64_t from, int64_t hi) {
  const conv_geom *g1 = j->g1;
  const int64_t rowlen = g1->ow * g1->oc;
  int64_t r0 = (b * g1->oh + from) * g1->ow, mb = (hi - from) * g1->ow;
  float *dst = tile + (from - lo) * rowlen;
  if (tfs_conv_plan_rows(j->plan, r0, mb, dst, g1->oc, NULL, NULL, NULL))
    return -1;
  tfs_fused_apply_rest(&j->s->e1, j->in_store, dst, mb, g1->oc, g1->oc,
                       j->scale1, j->shift1);
  return 0;
}

/* A band's two steps: the convolution's rows [from, hi) of image b into
 * the tile (whose first row is row lo), then output rows [oy0, oy1) of
 * image b from the tile's rows [lo, hi).  Each returns 0, or -1 when
 * memory runs out. */
typedef struct cdw_steps {
  int (*conv)(void *ctx, float *tile, int64_t b, int64_t lo, int64_t from,
              int64_t hi);
  int (*dw)(void *ctx, const float *tile, int64_t b, int64_t lo, int64_t hi,
            int64_t oy0, int64_t oy1);
  void *ctx;
} cdw_steps;

/* Output rows [ya, yb) of image b, band by band, the rows the last band
 * computed that this one reads again kept in the tile. */
static int cdw_walk(const conv_geom *g1, const conv_geom *g2,
                    const cdw_bands *bd, float *tile, int64_t b, int64_t ya,
                    int64_t yb, const cdw_steps *st) {
  const int64_t rowlen = g1->ow * g1->oc;
  int64_t tlo = 0, thi = 0; /* the rows the tile holds */
  for (int64_t oy0 = ya; oy0 < yb; oy0 += bd->band) {
    int64_t oy1 = oy0 + bd->band < yb ? oy0 + bd->band : yb;
    int64_t lo, hi;
    tfs_dw_band_input(g2, oy0, oy1, &lo, &hi);
    int64_t from = lo;
    if (lo >= tlo && lo < thi) { /* rows the last band computed */
      int64_t keep = (thi < hi ? thi : hi) - lo;
      if (lo > tlo)
        memmove(tile, tile + (lo - tlo) * rowlen,
                sizeof(float) * (size_t)(keep * rowlen));
      from = lo + keep;
    }
    if (hi > from && st->conv(st->ctx, tile, b, lo, from, hi)) return -1;
    tlo = lo;
    thi = hi;
    if (st->dw(st->ctx, tile, b, lo, hi, oy0, oy1)) return -1;
  }
  return 0;
}

static int cdw_conv_step(void *ctx, float *tile, int64_t b, int64_t lo,
                         int64_t from, int64_t hi) {
  return cdw_conv_rows(((const cdw_band_ctx *)ctx)->j, tile, b, lo, from, hi);
}

/* The depthwise rows straight into the output, the activation they
 * cannot apply after them; with a projection, into the band's rows and
 * through the projection. */
static int cdw_dw_step(void *ctx, const float *tile, int64_t b, int64_t lo,
                       int64_t hi, int64_t oy0, int64_t oy1) {
  const cdw_band_ctx *bc = ctx;
  const cdw_job *j = bc->j;
  const conv_geom *g2 = j->g2;
  const int64_t oc = g2->oc, npix = (oy1 - oy0) * g2->ow;
  float *rows = bc->rows ? bc->rows
                         : j->out + (b * g2->oh + oy0) * g2->ow * oc;
  if (tfs_dw_f32_band_rows(g2, tile, lo, hi - lo, j->dwf, rows, &j->ep2, oy0,
                           oy1))
    return -1;
  if (j->later2) tfs_fused_apply(&j->s->e2, rows, npix, oc, oc, NULL, NULL);
  return bc->rows ? tfs_fused_pw_rows(j->pw, bc->rows,
                                      (b * g2->oh + oy0) * g2->ow, npix)
                  : 0;
}

/* parallel_for body: task t is stretch t % segs of image t / segs.  The
 * tile starts at the output's offset in its 4 KiB page: the depthwise
 * rows load from the tile and store to the output in step, and where the
 * allocator put the tile, loads kept hitting the page offsets of stores
 * still in flight (4K aliasing on Intel).  Interleaved `bench/tfs_bench`
 * rounds on an Intel Xeon, one thread: MobileNetV2 batch 8 48.4 -> 43.1
 * ms, MobileNetV3Large 39.5 -> 37.4, EfficientNetB0 85.4 -> 79.1; batch 1
 * within noise (other offsets from the output, 1024 and 3072 bytes, gave
 * 43.6 and 42.9 ms on MobileNetV2). */
static void cdw_tasks(void *arg, int64_t t0, int64_t t1) {
  cdw_job *j = arg;
  const int64_t rowlen = j->g1->ow * j->g1->oc, oh = j->g2->oh;
  const int64_t tile_n = j->bands.tile_rows * rowlen;
  /* with a projection, a band's depthwise rows after the tile (64-byte
   * aligned) */
  const int64_t rows_n =
      j->pw ? (j->bands.band * j->g2->ow * j->g2->oc + 15) / 16 * 16 : 0;
  char *mem = tfs_kctx_task_buf(
      0, sizeof(float) * (size_t)(tile_n + rows_n) + 4096 + 64);
  if (!mem) {
    __atomic_store_n(&j->failed, 1, __ATOMIC_RELAXED);
    return;
  }
  const void *near = j->pw ? (const void *)j->pw->out : (const void *)j->out;
  float *tile = (float *)(mem + (((uintptr_t)near - (uintptr_t)mem) &
                                 (uintptr_t)4095));
  cdw_band_ctx bc = {j, NULL};
  if (j->pw)
    bc.rows = (float *)(((uintptr_t)(tile + tile_n) + 63) & ~(uintptr_t)63);
  const cdw_steps steps = {cdw_conv_step, cdw_dw_step, &bc};
  for (int64_t t = t0; t < t1; t++) {
    int64_t b = t / j->bands.segs, sg = t % j->bands.segs;
    if (cdw_walk(j->g1, j->g2, &j->bands, tile, b, oh * sg / j->bands.segs,
                 oh * (sg + 1) / j->bands.segs, &steps)) {
      __atomic_store_n(&j->failed, 1, __ATOMIC_RELAXED);
      break;
    }
  }
}

/* cdw_whole's epilogues: the convolution's on each finished tile, the
 * depthwise activation on each finished part of a row. */
static void cdw_whole_conv_done(void *arg, int64_t r0, int64_t mb, int64_t c0,
                                int64_t nb) {
  const cdw_job *j = arg;
  const int64_t ld = j->g1->oc;
  tfs_fused_apply_rest(&j->s->e1, j->in_store, j->mid + r0 * ld + c0, mb,
                       nb, ld, j->scale1 ? j->scale1 + c0 : NULL,
                       j->shift1 ? j->shift1 + c0 : NULL);
}

static void cdw_whole_dw_done(void *arg, float *row, int64_t c0,
                              int64_t nc) {
  const cdw_job *j = arg;
  tfs_fused_apply(&j->s->e2, row + c0, j->g2->ow, nc, j->g2->oc, NULL, NULL);
}

/* Scratch for the convolution's whole output (cdw_whole, cdw_cols,
 * cdw_empty_input); NULL after failing c. */
static float *cdw_mid(tfs_kernel_ctx *c, const conv_geom *g1) {
  return tfs_kctx_scratch(
      c, sizeof(float) * (size_t)(g1->n * g1->oh * g1->ow * g1->oc + 1));
}

/* The convolution's epilogue on each finished tile of the expanded map,
 * unless the GEMM's store applies all of it. */
static tfs_conv_done_fn cdw_mid_done(const cdw_job *j) {
  return j->in_store && tfs_fused_act_in_store(&j->s->e1)
             ? NULL
             : cdw_whole_conv_done;
}

/* Too little work to give every thread bands of its own (batch 1, small
 * maps), or OpenBLAS products (whose bits depend on how many rows one
 * call multiplies): the two ops one after the other as _FusedConv2D and
 * _FusedDepthwiseConv2dNative run them, each over the pool, the
 * convolution's output in scratch.  -1 when c failed. */
static int cdw_whole(tfs_kernel_ctx *c, cdw_job *j, const tfs_tensor *x,
                     const tfs_tensor *f) {
  const conv_geom *g1 = j->g1;
  j->mid = cdw_mid(c, g1);
  if (!j->mid ||
      tfs_conv_f32_gemm(c, g1, x->data, NULL,
                        tfs_conv_packed_for(&j->s->packed, g1), f->data,
                        j->mid, j->in_store ? j->shift1 : NULL, NULL,
                        j->in_store ? tfs_fused_store_relu(&j->s->e1) : 0,
                        cdw_mid_done(j), j))
    return -1;
  if (tfs_dw_f32(j->g2, j->mid, j->dwf, j->out, &j->ep2,
                 j->later2 ? cdw_whole_dw_done : NULL, j,
                 tfs_kctx_intra_pool(c))) {
    tfs_kctx_fail(c, TFS_RESOURCE_EXHAUSTED, "out of memory");
    return -1;
  }
  return 0;
}

/* Too few bands for the threads (batch 1, 7x7 maps) and a small map:
 * task k of ntasks computes output channels [c0, c1) of the convolution,
 * every pixel, and then the depthwise rows of the same channels, so
 * that no task reads what another wrote and none waits, where the two
 * ops over the pool meet at a barrier with the expanded map split across
 * the cores.  MobileNetV2's 7x7 blocks at batch 1 on two threads of an
 * AVX2 EPYC: 364-373 -> 313-318 us each, the model 12.12 -> 11.97 ms
 * (five interleaved rounds, ahead in all).  Not where there are bands
 * enough (MobileNetV2's 14x14 blocks: faster alone, 278 -> 199-225 us,
 * but slower in the model, 211-227 -> 318-352 us: the ops around them
 * split by rows, and a core reading or overwriting the lines the other
 * one wrote costs more there than the rows the bands compute twice). */
static void cdw_cols_tasks(void *arg, int64_t t0, int64_t t1) {
  cdw_job *j = arg;
  const conv_geom *g1 = j->g1;
  const int64_t oc = g1->oc, m = g1->n * g1->oh * g1->ow;
  for (int64_t t = t0; t < t1; t++) {
    int64_t c0 = t * j->units / j->ntasks * j->align;
    int64_t c1 = (t + 1) * j->units / j->ntasks * j->align;
    if (c1 > oc) c1 = oc;
    if (c1 <= c0) continue;
    if (tfs_conv_plan_cols(j->plan, 0, m, c0, c1 - c0, j->mid, oc,
                           cdw_mid_done(j), j) ||
        tfs_dw_f32_cols(j->g2, j->mid, j->dwf, j->out, &j->ep2, c0, c1,
                        j->later2 ? cdw_whole_dw_done : NULL, j)) {
      __atomic_store_n(&j->failed, 1, __ATOMIC_RELAXED);
      return;
    }
  }
}

/* Whether cdw_cols_tasks can take the op on nt threads: fewer images
 * than threads, one group, a multiplier of 1, the filter packed in
 * panels, a unit of channels (a multiple of 16 and of the panel width)
 * for each task, and a task's share of the expanded map within a tile;
 * sets the units. */
static int cdw_cols_plan(cdw_job *j, const tfs_gemm_packed *b, int nt) {
  const conv_geom *g1 = j->g1, *g2 = j->g2;
  int nr = b && tfs_gemm_panel_rows() > 1 ? tfs_gemm_packed_nr(b) : 0;
  if (nt < 2 || g2->n >= nt || g1->groups != 1 || g2->kn != 1 || nr <= 0)
    return 0;
  int64_t align = 16; /* the depthwise rows' blocks, and whole panels */
  while (align % nr) align += 16;
  int64_t units = (g1->oc + align - 1) / align;
  int64_t share = (int64_t)sizeof(float) * g1->n * g1->oh * g1->ow *
                  g1->oc / nt;
  if (units < nt || share > atomic_load(&g_tile_bytes)) return 0;
  j->align = align;
  j->units = units;
  j->ntasks = nt;
  return 1;
}

/* Bands of depthwise rows whose convolution rows fill about a tile,
 * and a stretch for each thread (each stretch computes kh - stride rows
 * of the convolution twice and starts with a cold tile; two a thread
 * were slower: MobileNetV2 at batch 1 on two Xeon threads 3.20 -> 3.01
 * ms with one, on one thread 5.38 -> 5.20, MobileNetV3Large 3.08 ->
 * 3.03 and 5.24 -> 5.01, interleaved medians).  Returns 0 when there
 * are fewer bands than threads (cdw_cols_tasks or cdw_whole instead). */
static int cdw_cut(const conv_geom *g1, const conv_geom *g2, int nt,
                   cdw_bands *bd) {
  const int64_t rowbytes = (int64_t)sizeof(float) * g1->ow * g1->oc;
  const int64_t span = (g2->kh - 1) * g2->dh + 1;
  int64_t rows = atomic_load(&g_tile_bytes) / (rowbytes > 0 ? rowbytes : 1);
  if (rows < span) rows = span;
  bd->band = (rows - span) / g2->sh + 1;
  if (bd->band > g2->oh) bd->band = g2->oh;
  if (bd->band < 1) bd->band = 1;
  bd->tile_rows = (bd->band - 1) * g2->sh + span;
  int64_t want = nt, bands = (g2->oh + bd->band - 1) / bd->band;
  if (nt > 1 && g2->n * bands < want) return 0;
  bd->segs = g2->n >= want ? 1 : (want + g2->n - 1) / g2->n;
  if (bd->segs > bands) bd->segs = bands;
  if (bd->segs < 1) bd->segs = 1;
  return 1;
}

/* The checks of the two ops (the convolution's first, then the
 * depthwise's on the convolution's shape) and both biases.  -1 when c
 * failed. */
static int cdw_check(tfs_kernel_ctx *c, const cdw_state *s, conv_geom *g1,
                     conv_geom *g2, const float **scale1,
                     const float **shift1) {
  const tfs_tensor *x = c->inputs[0], *f = c->inputs[1];
  const tfs_tensor *dwf = c->inputs[3], *dwb = c->inputs[4];
  const int wide = x->dtype == TFS_BFLOAT16;
  if (tfs_conv_check_inputs(c, &s->w1, 0, x, f, g1)) return -1;
  /* bfloat16 biases are widened (6 * oc: room for them) */
  float *params = tfs_kctx_scratch(
      c, sizeof(float) * (size_t)((wide ? 6 : 2) * g1->oc + 1));
  if (!params) return -1;
  tfs_shape mid;
  tfs_conv_shape(&s->w1, g1->n, g1->oh, g1->ow, g1->oc, &mid);
  if (tfs_conv2d_check(&s->w2, 1, &mid, &dwf->shape, g2, c->st)) {
    tfs_kctx_fail_status(c, c->st);
    return -1;
  }
  if (tfs_fused_channel_params_of(c, &s->e1, g1->oc, params, wide, scale1,
                                  shift1))
    return -1;
  return tfs_fused_check_channels_of(c, dwb, "dw_bias", g2->oc, wide);
}

/* cdw_check, then the output: NULL when c failed or the output has no
 * elements (nothing to compute). */
static tfs_tensor *cdw_begin(tfs_kernel_ctx *c, const cdw_state *s,
                             conv_geom *g1, conv_geom *g2,
                             const float **scale1, const float **shift1) {
  if (cdw_check(c, s, g1, g2, scale1, shift1)) return NULL;
  tfs_shape os;
  tfs_conv_shape(&s->w2, g2->n, g2->oh, g2->ow, g2->oc, &os);
  tfs_tensor *y = tfs_kctx_alloc_output(c, 0, &os);
  return y && y->nelems ? y : NULL;
}

/* An input without elements: every sum of the convolution is 0, so its
 * output is the epilogue of 0, which the depthwise convolution reads
 * from scratch. */
static void cdw_empty_input(tfs_kernel_ctx *c, const cdw_job *j) {
  const conv_geom *g1 = j->g1;
  int64_t m = g1->n * g1->oh * g1->ow;
  float *mid = cdw_mid(c, g1);
  if (!mid) return; /* c failed */
  memset(mid, 0, sizeof(float) * (size_t)(m * g1->oc));
  tfs_fused_apply(&j->s->e1, mid, m, g1->oc, g1->oc, j->scale1, j->shift1);
  if (tfs_dw_f32(j->g2, mid, j->dwf, j->out, &j->ep2, NULL, NULL,
                 tfs_kctx_intra_pool(c))) {
    tfs_kctx_fail(c, TFS_RESOURCE_EXHAUSTED, "out of memory");
    return;
  }
  if (j->later2)
    tfs_fused_apply(&j->s->e2, j->out, j->g2->n * j->g2->oh * j->g2->ow,
                    j->g2->oc, j->g2->oc, NULL, NULL);
}

/* ---- bfloat16 (auto mixed precision's expansions) ---- */

/* A bfloat16 call: the convolution on the bfloat16 GEMM, its float32 sums
 * given the epilogue and rounded to bfloat16 once, as the bfloat16
 * _FusedConv2D stores them; the depthwise rows read those values (held
 * as float in the tile) with the float filter and epilogue, and each
 * block of them is rounded once into the output, as the bfloat16
 * _FusedDepthwiseConv2dNative's tfs_dw_bf16 does: every element has the
 * bits of the two ops run one after the other. */
typedef struct cdw16_job {
  const cdw_state *s;
  const conv_geom *g1, *g2;
  const uint16_t *x;
  const tfs_gemm_packed_bf16 *packed;
  const float *scale1, *shift1;
  const float *dwf;
  tfs_dw_epilogue ep2;
  int later2;
  uint16_t *out;
  int direct; /* 1x1, stride 1, no padding: the GEMM's A is the input */
  int64_t k;  /* the convolution's depth: kh * kw * c */
  cdw_bands bands;
  int64_t block_max; /* floats of a band's depthwise rows */
  atomic_int failed;
} cdw16_job;

/* p[i] = p[i] rounded to bfloat16, for i in [0, n). */
static void cdw16_round(float *p, int64_t n) {
  enum { PIECE = 512 };
  uint16_t h[PIECE];
  for (int64_t i = 0; i < n; i += PIECE) {
    int64_t len = n - i < PIECE ? n - i : PIECE;
    tfs_bf16_from_f32(p + i, h, len);
    tfs_bf16_to_f32(h, p + i, len);
  }
}

/* Rows [from, hi) of image b's convolution output into the tile, whose
 * first row is row lo: the product, the epilogue, the rounding.  col:
 * im2col scratch for the rows (unless direct). */
static int cdw16_conv_rows(const cdw16_job *j, float *tile, uint16_t *col,
                           int64_t b, int64_t lo, int64_t from, int64_t hi) {
  const conv_geom *g1 = j->g1;
  const int64_t oc = g1->oc, r0 = (b * g1->oh + from) * g1->ow;
  const int64_t mb = (hi - from) * g1->ow;
  float *dst = tile + (from - lo) * g1->ow * oc;
  const uint16_t *a = j->x + r0 * g1->c;
  int64_t lda = g1->c;
  if (!j->direct) {
    tfs_conv_im2col(g1, j->x, sizeof(uint16_t), 0, r0, r0 + mb, col);
    a = col;
    lda = j->k;
  }
  if (tfs_gemm_bf16_packed(0, mb, a, lda, j->packed, dst, oc, NULL))
    return -1;
  tfs_fused_apply(&j->s->e1, dst, mb, oc, oc, j->scale1, j->shift1);
  cdw16_round(dst, mb * oc);
  return 0;
}

/* A bfloat16 task's scratch: im2col rows and a block of depthwise rows. */
typedef struct cdw16_task {
  const cdw16_job *j;
  uint16_t *col;
  float *block;
} cdw16_task;

static int cdw16_conv_step(void *ctx, float *tile, int64_t b, int64_t lo,
                           int64_t from, int64_t hi) {
  const cdw16_task *t = ctx;
  return cdw16_conv_rows(t->j, tile, t->col, b, lo, from, hi);
}

/* tfs_dw_bf16's hook: the depthwise activation its rows cannot apply. */
static void cdw16_after(void *arg, float *rows, int64_t npix) {
  const cdw16_job *j = arg;
  tfs_fused_apply(&j->s->e2, rows, npix, j->g2->oc, j->g2->oc, NULL, NULL);
}

/* The depthwise rows over the tile as tfs_dw_bf16 runs them over a
 * widened band: the activation they cannot apply, one rounding. */
static int cdw16_dw_step(void *ctx, const float *tile, int64_t b, int64_t lo,
                         int64_t hi, int64_t oy0, int64_t oy1) {
  const cdw16_task *t = ctx;
  const cdw16_job *j = t->j;
  const conv_geom *g2 = j->g2;
  return tfs_dw_bf16_band(g2, tile, lo, hi - lo, j->dwf, &j->ep2,
                          j->later2 ? cdw16_after : NULL, (void *)j,
                          t->block, j->out + b * g2->oh * g2->ow * g2->oc,
                          oy0, oy1);
}

/* parallel_for body: task t is stretch t % segs of image t / segs, with
 * a tile, im2col rows and a block of depthwise rows of its own. */
static void cdw16_tasks(void *arg, int64_t t0, int64_t t1) {
  cdw16_job *j = arg;
  const int64_t rows = j->bands.tile_rows * j->g1->ow;
  const size_t tile_b = sizeof(float) * (size_t)(rows * j->g1->oc);
  const size_t col_b = j->direct ? 0 : sizeof(uint16_t) * (size_t)(rows * j->k);
  const size_t block_b = sizeof(float) * (size_t)j->block_max;
  /* 64-byte aligned: the AMX tiles store whole lines of sums (a tile
   * on malloc's 16 bytes made AMP MobileNetV2 b1 4.0 -> 4.6 ms) */
  char *mem = tfs_kctx_task_buf(0, tile_b + col_b + block_b + 128);
  if (!mem) {
    atomic_store_explicit(&j->failed, 1, memory_order_relaxed);
    return;
  }
  float *tile = (float *)mem;
  uint16_t *col = (uint16_t *)(mem + (tile_b + 63) / 64 * 64);
  float *block =
      (float *)(mem + (tile_b + 63) / 64 * 64 + (col_b + 63) / 64 * 64);
  const cdw16_task task = {j, col, block};
  const cdw_steps steps = {cdw16_conv_step, cdw16_dw_step, (void *)&task};
  const int64_t oh = j->g2->oh, segs = j->bands.segs;
  for (int64_t t = t0; t < t1; t++) {
    int64_t b = t / segs, sg = t % segs;
    if (cdw_walk(j->g1, j->g2, &j->bands, tile, b, oh * sg / segs,
                 oh * (sg + 1) / segs, &steps)) {
      atomic_store_explicit(&j->failed, 1, memory_order_relaxed);
      break;
    }
  }
}

/* tfs_conv2d_bf16's epilogue: the convolution's, on each block's sums. */
static void cdw16_epi(void *arg, float *sums, int64_t ld, int64_t r0,
                      int64_t nr, int64_t c0, int64_t nc) {
  const cdw16_job *j = arg;
  (void)r0;
  tfs_fused_apply(&j->s->e1, sums, nr, nc, ld,
                  j->scale1 ? j->scale1 + c0 : NULL,
                  j->shift1 ? j->shift1 + c0 : NULL);
}

/* The convolution as the bfloat16 _FusedConv2D computes it where the
 * bfloat16 GEMM does not run it (no dot-product family, an empty input):
 * in float32 copies of input and filter, as the float op (cdw_whole's
 * half, the expanded map in scratch), rounded into mid.  -1 when c
 * failed. */
static int cdw16_conv_widened(tfs_kernel_ctx *c, cdw16_job *j,
                              const tfs_tensor *x, const tfs_tensor *f,
                              uint16_t *mid) {
  const conv_geom *g1 = j->g1;
  const int64_t m = g1->n * g1->oh * g1->ow;
  cdw_job fj;
  memset(&fj, 0, sizeof fj);
  fj.s = j->s;
  fj.g1 = g1;
  fj.scale1 = j->scale1;
  fj.shift1 = j->shift1;
  fj.in_store = !j->scale1;
  if (!(fj.mid = cdw_mid(c, g1))) return -1;
  if (x->nelems == 0) {
    memset(fj.mid, 0, sizeof(float) * (size_t)(m * g1->oc));
    tfs_fused_apply(&j->s->e1, fj.mid, m, g1->oc, g1->oc, j->scale1,
                    j->shift1);
  } else {
    float *xf = tfs_kctx_scratch(c, sizeof(float) * (size_t)x->nelems);
    const float *ff = tfs_conv_filter_f32(c, j->s->f32, j->s->f32_n, f);
    if (!xf || !ff) return -1;
    tfs_bf16_to_f32(x->data, xf, x->nelems);
    if (tfs_conv_f32_gemm(c, g1, xf, NULL, NULL, ff, fj.mid,
                          fj.in_store ? j->shift1 : NULL, NULL,
                          fj.in_store ? tfs_fused_store_relu(&j->s->e1) : 0,
                          cdw_mid_done(&fj), &fj))
      return -1;
  }
  tfs_bf16_from_f32(fj.mid, mid, m * g1->oc);
  return 0;
}

/* The two ops one after the other, each over the pool, the expanded map
 * in bfloat16 scratch: too few bands for the threads, a grouped
 * convolution, an empty input, or no filter packed at prepare (the
 * convolution then runs as the bfloat16 _FusedConv2D would: packed per
 * call where a dot-product family is in force, else widened). */
static void cdw16_apart(tfs_kernel_ctx *c, cdw16_job *j, const tfs_tensor *x,
                        const tfs_tensor *f) {
  const conv_geom *g1 = j->g1;
  uint16_t *mid = tfs_kctx_scratch(
      c, sizeof(uint16_t) * (size_t)(g1->n * g1->oh * g1->ow * g1->oc + 1));
  if (!mid) return; /* c failed */
  if (x->nelems != 0 && tfs_conv2d_bf16_runs(j->packed)) {
    if (tfs_conv2d_bf16(c, g1, x->data, f->data, j->packed, mid, cdw16_epi,
                        j))
      return;
  } else if (cdw16_conv_widened(c, j, x, f, mid)) {
    return;
  }
  if (tfs_dw_bf16(j->g2, mid, j->dwf, j->out, &j->ep2,
                  j->later2 ? cdw16_after : NULL, j, tfs_kctx_intra_pool(c)))
    tfs_kctx_fail(c, TFS_RESOURCE_EXHAUSTED, "out of memory");
}

/* The depthwise bias as float (a bfloat16 one widened into scratch), or
 * NULL after failing c. */
static const float *cdw16_dw_bias(tfs_kernel_ctx *c, const tfs_tensor *b) {
  if (b->dtype == TFS_FLOAT) return b->data;
  float *w = tfs_kctx_scratch(c, sizeof(float) * (size_t)(b->nelems + 1));
  if (w) tfs_bf16_to_f32(b->data, w, b->nelems);
  return w;
}

static void cdw16_compute(tfs_kernel_ctx *c) {
  const cdw_state *s = c->state;
  const tfs_tensor *x = c->inputs[0], *f = c->inputs[1];
  conv_geom g1, g2;
  cdw16_job j;
  memset(&j, 0, sizeof j);
  tfs_tensor *y = cdw_begin(c, s, &g1, &g2, &j.scale1, &j.shift1);
  if (!y) return;
  j.s = s;
  j.g1 = &g1;
  j.g2 = &g2;
  j.x = x->data;
  j.out = y->data;
  if (!(j.dwf = tfs_conv_filter_f32(c, s->dwf32, s->dwf32_n, c->inputs[3])) ||
      !(j.ep2.bias = cdw16_dw_bias(c, c->inputs[4])))
    return; /* c failed */
  j.ep2.act = tfs_dw_store_act(&s->e2);
  j.later2 = s->e2.act != TFS_FA_NONE && j.ep2.act == TFS_DW_ACT_NONE;
  if (x->nelems != 0 && tfs_conv_check_groups(c, f, &g1)) return;
  j.packed = s->packed_bf16;
  j.k = g1.kh * g1.kw * g1.kc;
  tfs_threadpool *pool = tfs_kctx_intra_pool(c);
  int64_t cost = tfs_gemm_cost_ns(g1.oh * g1.ow, g1.oc, j.k) / 4 +
                 g2.oh * g2.ow * g2.oc * g2.kh * g2.kw / 8 + 1;
  int nt = tfs_threadpool_plan_threads(pool, g2.n * g2.oh, cost / g2.oh + 1);
  if (!j.packed || g1.groups != 1 || x->nelems == 0 ||
      !cdw_cut(&g1, &g2, nt, &j.bands)) {
    cdw16_apart(c, &j, x, f);
    return;
  }
  j.direct = g1.kh == 1 && g1.kw == 1 && g1.sh == 1 && g1.sw == 1 &&
             g1.pt == 0 && g1.pl == 0 && g1.oh == g1.h && g1.ow == g1.w;
  j.block_max = j.bands.band * g2.ow * g2.oc;
  atomic_init(&j.failed, 0);
  atomic_fetch_add_explicit(&g_bf16_band_calls, 1, memory_order_relaxed);
  tfs_kctx_parallel_for(c, g2.n * j.bands.segs, cost / j.bands.segs + 1,
                        cdw16_tasks, &j);
  if (atomic_load(&j.failed))
    tfs_kctx_fail(c, TFS_RESOURCE_EXHAUSTED, "out of memory");
}

/* Scratch for the depthwise output, which the projection reads apart;
 * NULL after failing c. */
static float *cdw_dw_scratch(tfs_kernel_ctx *c, const conv_geom *g2) {
  return tfs_kctx_scratch(
      c, sizeof(float) * (size_t)(g2->n * g2->oh * g2->ow * g2->oc + 1));
}

/* The convolution and the depthwise convolution by the route the shapes
 * and the pool allow: bands, channels, or the two ops one after the
 * other, the depthwise output into j->out.  With pw (a projection after
 * them), bands project their own rows where the projection's filter is
 * packed for the indirect kernels (*projected = 1); else the depthwise
 * output goes to scratch (j->out) for the projection apart.  Returns 0,
 * or -1 when c failed. */
static int cdw_run(tfs_kernel_ctx *c, cdw_job *j, const tfs_tensor *x,
                   const tfs_tensor *f, const tfs_fused_pw *pw,
                   int *projected) {
  const cdw_state *s = j->s;
  const conv_geom *g1 = j->g1, *g2 = j->g2;
  *projected = 0;
  tfs_threadpool *pool = tfs_kctx_intra_pool(c);
  int64_t k = g1->kh * g1->kw * g1->kc, pix = g1->oh * g1->ow;
  int64_t cost = tfs_gemm_cost_ns(pix, g1->oc, k) +
                 g2->oh * g2->ow * g2->oc * g2->kh * g2->kw / 8 + 1;
  if (pw) cost += tfs_gemm_cost_ns(g2->oh * g2->ow, pw->n, pw->k);
  int nt = tfs_threadpool_plan_threads(pool, g2->n * g2->oh, cost / g2->oh + 1);
  tfs_gemm_packed *const *packed = tfs_conv_packed_for(&s->packed, g1);
  const int full = x->nelems != 0;
  int bands =
      full && tfs_gemm_panel_rows() > 1 && cdw_cut(g1, g2, nt, &j->bands);
  int cols = full && !bands && cdw_cols_plan(j, packed ? packed[0] : NULL, nt);
  if (pw && bands && tfs_fused_pw_bands_ok(pw, g2->n * g2->oh * g2->ow)) {
    j->pw = pw;
    *projected = 1;
  } else if (pw && !(j->out = cdw_dw_scratch(c, g2))) {
    return -1;
  }
  if (x->nelems == 0) {
    cdw_empty_input(c, j);
    return c->failed ? -1 : 0;
  }
  if (tfs_conv_check_groups(c, f, g1)) return -1;
  if (!bands && !cols) return cdw_whole(c, j, x, f);
  if (cols && !(j->mid = cdw_mid(c, g1))) return -1;
  tfs_conv_plan *plan = tfs_conv_plan_new(
      c, g1, x->data, NULL, packed, f->data, j->in_store ? j->shift1 : NULL,
      NULL, j->in_store ? tfs_fused_store_relu(&s->e1) : 0);
  if (!plan) return -1;
  j->plan = plan;
  if (cols) {
    atomic_fetch_add_explicit(&g_cols_calls, 1, memory_order_relaxed);
    tfs_threadpool_parallel_for(pool, nt, 1000000000, cdw_cols_tasks, j);
  } else {
    tfs_kctx_parallel_for(c, g2->n * j->bands.segs,
                          cost / j->bands.segs + 1, cdw_tasks, j);
  }
  tfs_conv_plan_free(plan);
  if (__atomic_load_n(&j->failed, __ATOMIC_RELAXED)) {
    tfs_kctx_fail(c, TFS_RESOURCE_EXHAUSTED, "out of memory");
    return -1;
  }
  return 0;
}

/* _TfsFusedConv2DDepthwiseConv2D: cdw_check, then the projection's
 * checks, the output and pw (tfs_fused_pw_begin): NULL when c failed or
 * the output has no elements. */
static tfs_tensor *cdw_pw_begin(tfs_kernel_ctx *c, const cdw_state *s,
                                conv_geom *g1, conv_geom *g2, conv_geom *g3,
                                cdw_job *j, tfs_fused_pw *pw) {
  if (cdw_check(c, s, g1, g2, &j->scale1, &j->shift1)) return NULL;
  tfs_shape mid;
  tfs_conv_shape(&s->w2, g2->n, g2->oh, g2->ow, g2->oc, &mid);
  return tfs_fused_pw_begin(c, &s->pws, 5, &mid, g3, pw);
}

static void cdw_compute(tfs_kernel_ctx *c) {
  const cdw_state *s = c->state;
  const tfs_tensor *x = c->inputs[0], *f = c->inputs[1];
  if (x->dtype == TFS_BFLOAT16) {
    cdw16_compute(c);
    return;
  }
  conv_geom g1, g2, g3;
  cdw_job j;
  tfs_fused_pw pw;
  memset(&j, 0, sizeof j);
  memset(&pw, 0, sizeof pw);
  tfs_tensor *y = s->pw ? cdw_pw_begin(c, s, &g1, &g2, &g3, &j, &pw)
                        : cdw_begin(c, s, &g1, &g2, &j.scale1, &j.shift1);
  if (!y) return;
  j.s = s;
  j.g1 = &g1;
  j.g2 = &g2;
  j.dwf = c->inputs[3]->data;
  j.out = s->pw ? NULL : y->data;
  j.ep2.bias = c->inputs[4]->data;
  j.ep2.act = tfs_dw_store_act(&s->e2);
  j.later2 = s->e2.act != TFS_FA_NONE && j.ep2.act == TFS_DW_ACT_NONE;
  j.in_store = !j.scale1;
  int projected = 0;
  if (cdw_run(c, &j, x, f, s->pw ? &pw : NULL, &projected) || !s->pw ||
      projected)
    return;
  tfs_fused_pw_apart(c, &s->pws, &g3, j.out, &pw);
}

/* The kernel data of the op with a projection. */
static const int kProjection = 1;

const tfs_kernel_def tfs_cpu_kernels_fused_conv_dw[] = {
    {"_TfsFusedConv2DDepthwise", "CPU", "T",
     TFS_DT_BIT(TFS_FLOAT) | TFS_DT_BIT(TFS_BFLOAT16),
     cdw_prepare, cdw_compute, cdw_release, TFS_KERNEL_EXPENSIVE, NULL},
    {"_TfsFusedConv2DDepthwiseConv2D", "CPU", "T", TFS_DT_BIT(TFS_FLOAT),
     cdw_prepare, cdw_compute, cdw_release, TFS_KERNEL_EXPENSIVE,
     &kProjection},
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL},
};
