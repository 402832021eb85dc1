/*
 * backends/cpu/conv_transpose.c - Conv2DBackpropInput, the transposed
 * convolution: for each block of out_backprop pixels a GEMM with the
 * transposed filter gives their patch gradients, which col2im adds into
 * the input gradient (NHWC).  Images are split over the intra-op pool.
 * Supports groups, SAME/VALID/EXPLICIT padding and strides, and also
 * dilations and NCHW (TensorFlow's CPU kernel rejects both).
 */
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "backends/cpu/conv_common.h"
#include "backends/cpu/cpu_tables.h"
#include "backends/cpu/gemm.h"

#define LABEL "Conv2DCustomBackpropInput"

typedef struct bp_state {
  tfs_window w;
  float *filter_f32;
  int64_t filter_n;
} bp_state;

static void bp_release(void *p) {
  bp_state *s = p;
  if (!s) return;
  tfs_free(s->filter_f32);
  tfs_free(s);
}

static int bp_prepare(tfs_kernel_init *ki) {
  bp_state *s = tfs_calloc(1, sizeof *s);
  if (!s) return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  ki->state = s;
  if (tfs_window_parse(ki->attrs, TFS_WINDOW_BACKPROP, "Conv2DBackpropInput",
                       &s->w, ki->st))
    return tfs_ki_error(ki, TFS_INVALID_ARGUMENT, "%s",
                        tfs_status_message(ki->st));
  if (tfs_conv_check_batch_depth(ki, &s->w, TFS_UNIMPLEMENTED)) return -1;
  if (tfs_conv_const_filter(ki, 1, &s->filter_f32, &s->filter_n))
    return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  return 0;
}

/* The input shape from input_sizes (4 values, or H and W). */
static int bp_input_shape(tfs_kernel_ctx *c, const bp_state *s,
                          const tfs_tensor *sizes, const tfs_tensor *f,
                          const tfs_tensor *dy, tfs_shape *out) {
  if (sizes->shape.rank != 1) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Conv2DBackpropInput: input_sizes input must be 1-dim, "
                  "not %d",
                  sizes->shape.rank);
    return -1;
  }
  const int32_t *v = sizes->data;
  if (sizes->nelems == 4) {
    out->rank = 4;
    for (int i = 0; i < 4; i++) {
      if (v[i] < 0) {
        tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "Dimension %d must be >= 0",
                      v[i]);
        return -1;
      }
      out->dims[i] = v[i];
    }
    return 0;
  }
  if (sizes->nelems == 2) {
    if (v[0] < 0 || v[1] < 0) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "Dimension %d must be >= 0",
                    v[0] < 0 ? v[0] : v[1]);
      return -1;
    }
    int64_t depth = f->shape.rank == 4 ? f->shape.dims[2] : 0;
    tfs_conv_shape(&s->w, dy->shape.dims[0], v[0], v[1], depth, out);
    return 0;
  }
  tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                "Conv2DBackpropInput requires input_sizes to contain 4 "
                "values or 2 values, but got: %lld",
                (long long)sizes->nelems);
  return -1;
}

/* Adds rows [r0, r1) of the patch-gradient matrix `col` (group grp) into
 * dx. */
#define COL2IM(NAME, T, ADD)                                                  \
  static void NAME(const conv_geom *g, const T *col, int64_t grp, int64_t r0, \
                   int64_t r1, T *dx) {                                       \
    const int64_t C = g->c, kc = g->kc, opix = g->oh * g->ow;                 \
    for (int64_t r = r0; r < r1; r++) {                                       \
      int64_t b = r / opix, rem = r % opix;                                   \
      int64_t iy0 = (rem / g->ow) * g->sh - g->pt;                            \
      int64_t ix0 = (rem % g->ow) * g->sw - g->pl;                            \
      const T *src = col + (r - r0) * g->kh * g->kw * kc;                     \
      for (int64_t ky = 0; ky < g->kh; ky++) {                                \
        int64_t iy = iy0 + ky * g->dh;                                        \
        for (int64_t kx = 0; kx < g->kw; kx++, src += kc) {                   \
          int64_t ix = ix0 + kx * g->dw;                                      \
          if (iy < 0 || iy >= g->h || ix < 0 || ix >= g->w) continue;         \
          T *d = dx + ((b * g->h + iy) * g->w + ix) * C + grp * kc;           \
          for (int64_t q = 0; q < kc; q++) d[q] = ADD(d[q], src[q]);          \
        }                                                                     \
      }                                                                       \
    }                                                                         \
  }
#define PLUS(a, b) ((a) + (b))
#define WRAP_ADD(a, b) ((int32_t)((uint32_t)(a) + (uint32_t)(b)))
COL2IM(col2im_f32, float, PLUS)
COL2IM(col2im_f64, double, PLUS)
COL2IM(col2im_i32, int32_t, WRAP_ADD)

typedef struct bp_job {
  const conv_geom *g;
  tfs_dtype ct;
  size_t es;
  const char *dy, *filt;
  char *dx;
  int64_t k, mb, cout_g, nslots;
  char *scratch;                    /* nslots patch-gradient blocks */
  struct tfs_threadpool *gemm_pool; /* the pool when nslots == 1 */
} bp_job;

/* The input gradient of image b, using `col` as scratch. */
static void bp_image(const bp_job *j, int64_t b, char *col) {
  const conv_geom *g = j->g;
  const int64_t opix = g->oh * g->ow;
  memset(j->dx + (size_t)(b * g->h * g->w * g->c) * j->es, 0,
         (size_t)(g->h * g->w * g->c) * j->es);
  for (int64_t r0 = b * opix; r0 < (b + 1) * opix; r0 += j->mb) {
    int64_t r1 = r0 + j->mb < (b + 1) * opix ? r0 + j->mb : (b + 1) * opix;
    for (int64_t grp = 0; grp < g->groups; grp++) {
      /* col[r, K] = dy[r, group's outputs] * filter[K, group's outputs]^T */
      tfs_conv_gemm_on(j->ct, 1, r1 - r0, j->k, j->cout_g,
                       j->dy + (size_t)(r0 * g->kn + grp * j->cout_g) * j->es,
                       g->kn, j->filt + (size_t)(grp * j->cout_g) * j->es,
                       g->kn, col, j->k, j->gemm_pool);
      if (j->ct == TFS_FLOAT)
        col2im_f32(g, (const float *)col, grp, r0, r1, (float *)j->dx);
      else if (j->ct == TFS_DOUBLE)
        col2im_f64(g, (const double *)col, grp, r0, r1, (double *)j->dx);
      else
        col2im_i32(g, (const int32_t *)col, grp, r0, r1, (int32_t *)j->dx);
    }
  }
}

/* Slot t computes images t, t + nslots, ... with its own scratch. */
static void bp_slots(void *arg, int64_t t0, int64_t t1) {
  const bp_job *j = arg;
  for (int64_t t = t0; t < t1; t++) {
    char *col = j->scratch + (size_t)(t * j->mb * j->k) * j->es;
    for (int64_t b = t; b < j->g->n; b += j->nslots) bp_image(j, b, col);
  }
}

static void bp_run(tfs_kernel_ctx *c, const bp_state *s, const conv_geom *g,
                   const tfs_tensor *f, const tfs_tensor *dy, tfs_tensor *dx) {
  conv_stage st;
  int ok = tfs_conv_stage_begin(&st, s->w.nchw, dy, f, s->filter_f32,
                                s->filter_n, dx) == 0;
  if (ok) {
    bp_job j;
    memset(&j, 0, sizeof j);
    j.g = g;
    j.ct = st.ct;
    j.es = st.es;
    j.dy = st.in;
    j.filt = st.filt;
    j.dx = st.out;
    j.k = g->kh * g->kw * g->kc;
    j.cout_g = g->kn / g->groups;
    j.mb = tfs_conv_block_rows(g->oh * g->ow, j.k, j.es);
    int64_t cost = tfs_gemm_cost_ns(g->oh * g->ow, j.k, g->kn) + 1;
    j.nslots = tfs_conv_slots(c, g->n, cost);
    if (j.nslots <= 1) j.gemm_pool = tfs_kctx_intra_pool(c);
    j.scratch = tfs_kctx_scratch(c, (size_t)(j.nslots * j.mb * j.k) * j.es);
    if (!j.scratch) {
      tfs_conv_stage_free(&st);
      return; /* tfs_kctx_scratch recorded the error */
    }
    if (j.nslots <= 1)
      bp_slots(&j, 0, 1);
    else
      tfs_kctx_parallel_for(c, j.nslots, cost * (g->n / j.nslots + 1), bp_slots,
                            &j);
    ok = tfs_conv_stage_end(&st, s->w.nchw, dx) == 0;
  }
  tfs_conv_stage_free(&st);
  if (!ok) tfs_kctx_fail(c, TFS_RESOURCE_EXHAUSTED, "out of memory");
}

static void bp_compute(tfs_kernel_ctx *c) {
  const bp_state *s = c->state;
  const tfs_tensor *sizes = c->inputs[0], *f = c->inputs[1];
  const tfs_tensor *dy = c->inputs[2];
  if (dy->shape.rank != 4) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "input_sizes must be 4-dimensional, got: %d", dy->shape.rank);
    return;
  }
  tfs_shape xs;
  conv_geom g;
  if (bp_input_shape(c, s, sizes, f, dy, &xs) ||
      tfs_conv_backprop_dims(c, LABEL, &s->w, &xs, &f->shape, &dy->shape, &g))
    return;
  tfs_tensor *dx = tfs_kctx_alloc_output(c, 0, &xs);
  if (!dx || dx->nelems == 0) return;
  if (dy->nelems == 0 || f->nelems == 0) {
    memset(dx->data, 0, dx->nbytes);
    return;
  }
  bp_run(c, s, &g, f, dy, dx);
}

const tfs_kernel_def tfs_cpu_kernels_conv_transpose[] = {
    {"Conv2DBackpropInput", "CPU", "T", TFS_DT_FLOATS | TFS_DT_BIT(TFS_INT32),
     bp_prepare, bp_compute, bp_release, TFS_KERNEL_EXPENSIVE, NULL},
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL},
};
