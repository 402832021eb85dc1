/*
 * backends/cpu/conv_depthwise_bf16.c - the depthwise convolution on
 * bfloat16 tensors (auto mixed precision's) without float32 copies of
 * them: each task takes a few output rows of one image, widens the input
 * rows they read into a float band of its own, runs the float rows of
 * conv_depthwise.c on it into a float block and rounds that block into
 * the output while both are still in cache.
 */
#include <stdatomic.h>
#include <string.h>

#include "core/alloc.h"
#include "core/threadpool.h"
#include "backends/cpu/bf16_convert.h"
#include "backends/cpu/conv_depthwise.h"

/* Float bytes a task's band and block may take together. */
#define DW16_TASK_BYTES (256 * 1024)

typedef struct dw16_job {
  const conv_geom *g;
  const uint16_t *in;
  const float *filt;
  uint16_t *out;
  const tfs_dw_epilogue *ep;
  tfs_dw16_after_fn after;
  void *after_arg;
  int64_t rpt, tpi;          /* output rows a task, tasks an image */
  int64_t band_max, out_max; /* floats of the largest band and block */
  atomic_int failed;
} dw16_job;

/* Input rows that `rows` consecutive output rows read. */
static int64_t span(const conv_geom *g, int64_t rows) {
  return (rows - 1) * g->sh + (g->kh - 1) * g->dh + 1;
}

int tfs_dw_bf16_band(const conv_geom *g, const float *band, int64_t lo,
                     int64_t nrows, const float *filt,
                     const tfs_dw_epilogue *ep, tfs_dw16_after_fn after,
                     void *after_arg, float *block, uint16_t *out,
                     int64_t oy0, int64_t oy1) {
  conv_geom sub = *g;
  sub.n = 1;
  sub.h = nrows;
  sub.oh = oy1 - oy0;
  /* input row lo is the band's row 0: output row oy0's window starts
   * pt + lo - oy0 * sh rows above it (>= 0: lo is 0 or oy0 * sh - pt) */
  sub.pt = g->pt + lo - oy0 * g->sh;
  if (tfs_dw_f32(&sub, band, filt, block, ep, NULL, NULL, NULL)) return -1;
  const int64_t npix = (oy1 - oy0) * g->ow, oc = g->c * g->kn;
  if (after) after(after_arg, block, npix);
  tfs_bf16_from_f32(block, out + oy0 * g->ow * oc, npix * oc);
  return 0;
}

/* Output rows [oy0, oy1) of image b: the band of input rows they read
 * (rows outside the image are padding), the float rows over it as an
 * image of its own whose output row 0 is oy0, then the rounding. */
static int dw16_rows(const dw16_job *j, float *band, float *block, int64_t b,
                     int64_t oy0, int64_t oy1) {
  const conv_geom *g = j->g;
  const int64_t oc = g->c * g->kn, row_in = g->w * g->c;
  int64_t lo = oy0 * g->sh - g->pt, hi = lo + span(g, oy1 - oy0);
  if (lo < 0) lo = 0;
  if (hi > g->h) hi = g->h;
  int64_t nrows = hi > lo ? hi - lo : 0;
  if (nrows)
    tfs_bf16_to_f32(j->in + (b * g->h + lo) * row_in, band, nrows * row_in);
  return tfs_dw_bf16_band(g, band, lo, nrows, j->filt, j->ep, j->after,
                          j->after_arg, block,
                          j->out + b * g->oh * g->ow * oc, oy0, oy1);
}

static void dw16_tasks(void *arg, int64_t t0, int64_t t1) {
  dw16_job *j = arg;
  /* slot 1, apart from the fused depthwise bands' tiles in slot 0 */
  float *band = tfs_kctx_task_buf(
      1, sizeof(float) * (size_t)(j->band_max + j->out_max + 1));
  if (!band) {
    atomic_store_explicit(&j->failed, 1, memory_order_relaxed);
    return;
  }
  for (int64_t t = t0; t < t1; t++) {
    int64_t b = t / j->tpi, oy0 = t % j->tpi * j->rpt;
    int64_t oy1 = oy0 + j->rpt < j->g->oh ? oy0 + j->rpt : j->g->oh;
    if (dw16_rows(j, band, band + j->band_max, b, oy0, oy1)) {
      atomic_store_explicit(&j->failed, 1, memory_order_relaxed);
      break;
    }
  }
}

int tfs_dw_bf16(const conv_geom *g, const uint16_t *in, const float *filt,
                uint16_t *out, const tfs_dw_epilogue *ep,
                tfs_dw16_after_fn after, void *after_arg,
                struct tfs_threadpool *pool) {
  const int64_t oc = g->c * g->kn, rows = g->n * g->oh;
  if (rows == 0 || g->ow == 0 || oc == 0) return 0;
  dw16_job j;
  memset(&j, 0, sizeof j);
  j.g = g;
  j.in = in;
  j.filt = filt;
  j.out = out;
  j.ep = ep;
  j.after = after;
  j.after_arg = after_arg;
  /* ns of one core per output row (tfs_dw_f32's estimate, plus the two
   * conversions) */
  const int64_t cost = g->ow * oc * (g->kh * g->kw + 4) / 32 + 1;
  const int64_t row_in = g->w * g->c, row_out = g->ow * oc;
  int64_t rpt = 1;
  while (rpt < g->oh &&
         (span(g, rpt + 1) * row_in + (rpt + 1) * row_out) *
                 (int64_t)sizeof(float) <= DW16_TASK_BYTES)
    rpt++;
  /* every thread several tasks where the rows allow */
  int nt = tfs_threadpool_plan_threads(pool, rows, cost);
  while (rpt > 1 && g->n * ((g->oh + rpt - 1) / rpt) < 4 * (int64_t)nt)
    rpt--;
  j.rpt = rpt;
  j.tpi = (g->oh + rpt - 1) / rpt;
  j.band_max = span(g, rpt) * row_in;
  if (j.band_max > g->h * row_in) j.band_max = g->h * row_in;
  j.out_max = rpt * row_out;
  tfs_threadpool_parallel_for(pool, g->n * j.tpi, cost * rpt, dw16_tasks,
                              &j);
  return atomic_load(&j.failed) ? -1 : 0;
}
