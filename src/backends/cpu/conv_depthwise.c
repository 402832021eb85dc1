/*
 * backends/cpu/conv_depthwise.c - DepthwiseConv2dNative: each input channel
 * convolved with its own `multiplier` filters.  NHWC rows are computed
 * with the inner loop over contiguous channels, output rows split over
 * the intra-op pool.  Also runs what TensorFlow's CPU kernel rejects:
 * NCHW (through an NHWC copy), dilations and unequal strides.
 */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("tree-vectorize", "vect-cost-model=dynamic")
#endif

#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "backends/cpu/conv_common.h"
#include "backends/cpu/cpu_tables.h"

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

typedef struct dw_job {
  const conv_geom *g;
  const void *in, *filt;
  void *out;
} dw_job;

/* Output rows [r0, r1) (one row: one (n, oy)); T is float or double. */
#define DW_ROWS(NAME, T)                                                    \
  static void NAME(void *arg, int64_t r0, int64_t r1) {                     \
    const dw_job *j = arg;                                                  \
    const conv_geom *g = j->g;                                              \
    const T *in = j->in, *f = j->filt;                                      \
    T *out = j->out;                                                        \
    const int64_t C = g->c, M = g->kn, OC = C * M;                          \
    for (int64_t r = r0; r < r1; r++) {                                     \
      int64_t b = r / g->oh, oy = r % g->oh;                                \
      for (int64_t ox = 0; ox < g->ow; ox++) {                              \
        T *acc = out + ((b * g->oh + oy) * g->ow + ox) * OC;                \
        for (int64_t k = 0; k < OC; k++) acc[k] = 0;                        \
        for (int64_t ky = 0; ky < g->kh; ky++) {                            \
          int64_t iy = oy * g->sh - g->pt + ky * g->dh;                     \
          if (iy < 0 || iy >= g->h) continue;                               \
          for (int64_t kx = 0; kx < g->kw; kx++) {                          \
            int64_t ix = ox * g->sw - g->pl + kx * g->dw;                   \
            if (ix < 0 || ix >= g->w) continue;                             \
            const T *p = in + ((b * g->h + iy) * g->w + ix) * C;            \
            const T *fp = f + (ky * g->kw + kx) * OC;                       \
            if (M == 1) {                                                   \
              for (int64_t c = 0; c < C; c++) acc[c] += p[c] * fp[c];       \
            } else {                                                        \
              for (int64_t c = 0; c < C; c++)                               \
                for (int64_t m = 0; m < M; m++)                             \
                  acc[c * M + m] += p[c] * fp[c * M + m];                   \
            }                                                               \
          }                                                                 \
        }                                                                   \
      }                                                                     \
    }                                                                       \
  }
DW_ROWS(dw_rows_f32, float)
DW_ROWS(dw_rows_f64, double)

static void dw_run(tfs_kernel_ctx *c, const dw_state *s, const conv_geom *g,
                   const tfs_tensor *x, const tfs_tensor *f, tfs_tensor *y) {
  conv_stage st;
  int ok = tfs_conv_stage_begin(&st, s->w.nchw, x, f, s->filter_f32,
                                s->filter_n, y) == 0;
  if (ok) {
    dw_job j = {g, st.in, st.filt, st.out};
    int64_t cost = g->ow * g->c * g->kn * g->kh * g->kw + 1;
    tfs_kctx_parallel_for(c, g->n * g->oh, cost,
                          st.ct == TFS_DOUBLE ? dw_rows_f64 : dw_rows_f32,
                          &j);
    ok = tfs_conv_stage_end(&st, s->w.nchw, y) == 0;
  }
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
