/*
 * backends/cpu/conv_depthwise_grad.c - DepthwiseConv2dNativeBackpropInput
 * and DepthwiseConv2dNativeBackpropFilter, the gradients of
 * DepthwiseConv2dNative (filter [kh, kw, C, M], output channel c * M + m).
 *
 * The input gradient gathers, for each input pixel, the out_backprop
 * pixels whose windows cover it, so input rows split over the intra-op
 * pool without conflicts.  The filter gradient splits output rows over
 * the pool, each task summing into its own copy of the gradient; the
 * copies are added at the end.  Half and bfloat16 are computed in float.
 * Dilations, unequal strides and NCHW are supported (TensorFlow's CPU
 * kernels reject the last two and ignore dilations, computing the
 * gradient of the undilated convolution).
 */
#include <string.h>

#include "core/alloc.h"
#include "backends/cpu/conv_common.h"
#include "backends/cpu/cpu_tables.h"

typedef struct dg_state {
  tfs_window w;
  int filter_grad; /* BackpropFilter: input 1 holds filter_sizes */
  const char *label;
} dg_state;

static void dg_release(void *p) { tfs_free(p); }

static int dg_prepare(tfs_kernel_init *ki) {
  dg_state *s = tfs_calloc(1, sizeof *s);
  if (!s) return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  ki->state = s;
  s->filter_grad = ki->kdata != NULL;
  s->label = s->filter_grad ? "DepthwiseConv2DBackpropFilter"
                            : "DepthwiseConv2DBackpropInput";
  if (tfs_window_parse(ki->attrs, TFS_WINDOW_BACKPROP,
                       "DepthwiseConv2dNative", &s->w, ki->st))
    return tfs_ki_error(ki, TFS_INVALID_ARGUMENT, "%s",
                        tfs_status_message(ki->st));
  int n = tfs_window_dim(&s->w, 'N'), ch = tfs_window_dim(&s->w, 'C');
  if (s->w.strides[n] != 1 || s->w.strides[ch] != 1)
    return tfs_ki_error(ki, TFS_INVALID_ARGUMENT,
                        "Current implementation does not yet support "
                        "strides in the batch and depth dimensions.");
  return 0;
}

/* A shape from the sizes vector input `name` (input_sizes or
 * filter_sizes) as TensorFlow's depthwise gradients read it: every value
 * >= 0 and the element count within int64.  A length other than 4
 * gives rank 0, refused by the rank checks that follow. */
static int dg_sizes(tfs_kernel_ctx *c, const dg_state *s,
                    const tfs_tensor *t, const char *name, tfs_shape *out) {
  if (t->shape.rank != 1) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "%s: %s input must be 1-dim, not %d", s->label, name,
                  t->shape.rank);
    return -1;
  }
  const int32_t *v = t->data;
  int64_t total = 1;
  for (int64_t i = 0; i < t->nelems; i++) {
    if (v[i] < 0) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "Dimension %lld of %s must be >= 0", (long long)i, name);
      return -1;
    }
    if (v[i] != 0 && total > INT64_MAX / v[i]) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "Encountered overflow when multiplying %lld with %d, "
                    "result: %lld",
                    (long long)total, v[i],
                    (long long)(int64_t)((uint64_t)total * (uint64_t)v[i]));
      return -1;
    }
    total *= v[i];
  }
  out->rank = t->nelems == 4 ? 4 : 0;
  for (int i = 0; i < out->rank; i++) out->dims[i] = v[i];
  return 0;
}

static int dg_fail(tfs_kernel_ctx *c, const char *label, const char *what) {
  if (label)
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "%s: %s", label, what);
  else
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "%s", what);
  return -1;
}

/* TensorFlow's depthwise gradient checks, in its order.  Fills g (kn is
 * the depth multiplier M). */
static int dg_dims(tfs_kernel_ctx *c, const dg_state *s, const tfs_shape *xs,
                   const tfs_shape *fs, const tfs_shape *dys, conv_geom *g) {
  const char *l = s->label;
  if (xs->rank != 4) return dg_fail(c, l, "input must be 4-dimensional");
  if (fs->rank != 4) return dg_fail(c, l, "filter must be 4-dimensional");
  if (dys->rank != 4)
    return dg_fail(c, l, "out_backprop must be 4-dimensional");
  memset(g, 0, sizeof *g);
  tfs_conv_geom_window(&s->w, g);
  tfs_conv_geom_input(&s->w, xs, g);
  conv_geom d;
  tfs_conv_geom_input(&s->w, dys, &d);
  if (g->n != d.n)
    return dg_fail(c, l, "input and out_backprop must have the same batch "
                         "size");
  if (g->h > INT32_MAX) return dg_fail(c, NULL, "Input rows too large");
  if (g->w > INT32_MAX) return dg_fail(c, NULL, "Input cols too large");
  if (d.h > INT32_MAX) return dg_fail(c, NULL, "Output rows too large");
  if (d.w > INT32_MAX) return dg_fail(c, NULL, "Output cols too large");
  g->kh = fs->dims[0], g->kw = fs->dims[1];
  g->kc = fs->dims[2], g->kn = fs->dims[3];
  if (g->c != g->kc)
    return dg_fail(c, l, "input and filter must have the same in_depth");
  if (d.c > INT32_MAX) return dg_fail(c, NULL, "Output depth is too large");
  if (g->kn * g->c != d.c)
    return dg_fail(c, l, "depth_multiplier * in_depth not equal to "
                         "out_depth");
  g->oc = d.c;
  if (tfs_conv_geom_output(c, &s->w, g)) return -1;
  if (d.h != g->oh || d.w != g->ow) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "%s: Number of %s of out_backprop doesn't match computed: "
                  "actual = %lld, computed = %lld",
                  l, d.h != g->oh ? "rows" : "cols",
                  (long long)(d.h != g->oh ? d.h : d.w),
                  (long long)(d.h != g->oh ? g->oh : g->ow));
    return -1;
  }
  return 0;
}

typedef struct dg_job {
  const conv_geom *g;
  int dbl;               /* double, else float */
  const void *a, *b;     /* input grad: filter, dy; filter grad: x, dy */
  void *out;             /* input grad: dx; filter grad: nslots copies */
  int64_t nslots, fsize; /* filter grad */
} dg_job;

/* dx for input rows [r0, r1) (each one (b, iy)): T float or double. */
#define DX_ROWS(NAME, T)                                                     \
  static void NAME(const dg_job *j, int64_t r0, int64_t r1) {                \
    const conv_geom *g = j->g;                                               \
    const T *f = j->a, *dy = j->b;                                           \
    const int64_t C = g->c, M = g->kn, CM = C * M;                           \
    for (int64_t r = r0; r < r1; r++) {                                      \
      const int64_t b = r / g->h, iy = r % g->h;                             \
      for (int64_t ix = 0; ix < g->w; ix++) {                                \
        T *acc = (T *)j->out + (r * g->w + ix) * C;                          \
        for (int64_t q = 0; q < C; q++) acc[q] = 0;                          \
        for (int64_t ky = 0; ky < g->kh; ky++) {                             \
          int64_t ty = iy + g->pt - ky * g->dh;                              \
          if (ty < 0 || ty % g->sh) continue;                                \
          int64_t oy = ty / g->sh;                                           \
          if (oy >= g->oh) continue;                                         \
          for (int64_t kx = 0; kx < g->kw; kx++) {                           \
            int64_t tx = ix + g->pl - kx * g->dw;                            \
            if (tx < 0 || tx % g->sw) continue;                              \
            int64_t ox = tx / g->sw;                                         \
            if (ox >= g->ow) continue;                                       \
            const T *gp = dy + ((b * g->oh + oy) * g->ow + ox) * CM;         \
            const T *fp = f + (ky * g->kw + kx) * CM;                        \
            if (M == 1) {                                                    \
              for (int64_t q = 0; q < C; q++) acc[q] += fp[q] * gp[q];       \
            } else {                                                         \
              for (int64_t q = 0; q < C; q++) {                              \
                T sum = 0;                                                   \
                for (int64_t m = 0; m < M; m++)                              \
                  sum += fp[q * M + m] * gp[q * M + m];                      \
                acc[q] += sum;                                               \
              }                                                              \
            }                                                                \
          }                                                                  \
        }                                                                    \
      }                                                                      \
    }                                                                        \
  }
DX_ROWS(dx_rows_f32, float)
DX_ROWS(dx_rows_f64, double)

static void dx_range(void *arg, int64_t r0, int64_t r1) {
  const dg_job *j = arg;
  if (j->dbl)
    dx_rows_f64(j, r0, r1);
  else
    dx_rows_f32(j, r0, r1);
}

/* Adds the filter gradient of output rows [r0, r1) (each one (b, oy))
 * into acc. */
#define DF_ROWS(NAME, T)                                                     \
  static void NAME(const dg_job *j, int64_t r0, int64_t r1, T *acc) {        \
    const conv_geom *g = j->g;                                               \
    const T *x = j->a, *dy = j->b;                                           \
    const int64_t C = g->c, M = g->kn, CM = C * M;                           \
    for (int64_t r = r0; r < r1; r++) {                                      \
      const int64_t b = r / g->oh, oy = r % g->oh;                           \
      for (int64_t ox = 0; ox < g->ow; ox++) {                               \
        const T *gp = dy + (r * g->ow + ox) * CM;                            \
        for (int64_t ky = 0; ky < g->kh; ky++) {                             \
          int64_t iy = oy * g->sh - g->pt + ky * g->dh;                      \
          if (iy < 0 || iy >= g->h) continue;                                \
          for (int64_t kx = 0; kx < g->kw; kx++) {                           \
            int64_t ix = ox * g->sw - g->pl + kx * g->dw;                    \
            if (ix < 0 || ix >= g->w) continue;                              \
            const T *xp = x + ((b * g->h + iy) * g->w + ix) * C;             \
            T *ap = acc + (ky * g->kw + kx) * CM;                            \
            if (M == 1) {                                                    \
              for (int64_t q = 0; q < C; q++) ap[q] += xp[q] * gp[q];        \
            } else {                                                         \
              for (int64_t q = 0; q < C; q++)                                \
                for (int64_t m = 0; m < M; m++)                              \
                  ap[q * M + m] += xp[q] * gp[q * M + m];                    \
            }                                                                \
          }                                                                  \
        }                                                                    \
      }                                                                      \
    }                                                                        \
  }
DF_ROWS(df_rows_f32, float)
DF_ROWS(df_rows_f64, double)

/* Slot t: its share of the output rows into its own gradient copy. */
static void df_slots(void *arg, int64_t t0, int64_t t1) {
  const dg_job *j = arg;
  const int64_t rows = j->g->n * j->g->oh;
  const size_t es = j->dbl ? 8 : 4;
  for (int64_t t = t0; t < t1; t++) {
    char *acc = (char *)j->out + (size_t)(t * j->fsize) * es;
    memset(acc, 0, (size_t)j->fsize * es);
    int64_t r0 = rows * t / j->nslots, r1 = rows * (t + 1) / j->nslots;
    if (j->dbl)
      df_rows_f64(j, r0, r1, (double *)acc);
    else
      df_rows_f32(j, r0, r1, (float *)acc);
  }
}

static void df_reduce(const dg_job *j) {
  for (int64_t t = 1; t < j->nslots; t++) {
    if (j->dbl) {
      double *d = j->out;
      for (int64_t i = 0; i < j->fsize; i++) d[i] += d[t * j->fsize + i];
    } else {
      float *d = j->out;
      for (int64_t i = 0; i < j->fsize; i++) d[i] += d[t * j->fsize + i];
    }
  }
}

/* The result in the computation dtype, staged when out is 16-bit or
 * NCHW (input gradient), moved into out. */
static void dg_finish(const dg_state *s, const dg_job *j, tfs_dtype ct,
                      tfs_tensor *out, void *tmp) {
  const size_t es = ct == TFS_DOUBLE ? 8 : 4;
  const void *res = j->out;
  if (!s->filter_grad && s->w.nchw) {
    const int64_t *d = out->shape.dims;
    void *dst = ct == out->dtype ? out->data : tmp;
    tfs_conv_nhwc_to_nchw(res, dst, d[0], d[2] * d[3], d[1], es);
    res = dst;
  }
  if (ct != out->dtype)
    tfs_conv_from_float(res, out->data, out->nelems, out->dtype);
  else if (res != out->data)
    memcpy(out->data, res, out->nbytes);
}

static void dg_run(tfs_kernel_ctx *c, const dg_state *s, const conv_geom *g,
                   const tfs_tensor *a, const tfs_tensor *dy,
                   tfs_tensor *out) {
  dg_job j;
  memset(&j, 0, sizeof j);
  tfs_dtype ct = dy->dtype == TFS_DOUBLE ? TFS_DOUBLE : TFS_FLOAT;
  const size_t es = ct == TFS_DOUBLE ? 8 : 4;
  void *tmp_a = NULL, *tmp_dy = NULL;
  j.g = g;
  j.dbl = ct == TFS_DOUBLE;
  /* the filter has no layout: only its dtype may change */
  j.a = tfs_conv_nhwc_data(a, s->filter_grad ? s->w.nchw : 0, ct, &tmp_a);
  j.b = tfs_conv_nhwc_data(dy, s->w.nchw, ct, &tmp_dy);
  const int64_t cm = g->c * g->kn;
  int ok = j.a && j.b;
  void *tmp = NULL;
  if (ok && s->filter_grad) {
    int64_t rows = g->n * g->oh;
    int64_t cost = g->ow * g->kh * g->kw * cm * 2 + 1;
    j.fsize = out->nelems;
    j.nslots = tfs_conv_slots(c, rows, cost);
    /* per-task gradient copies of at most about 64 MB together */
    const int64_t cap = (int64_t)64 << 20, copy = j.fsize * (int64_t)es;
    if (j.nslots > 1 && j.nslots * copy > cap) j.nslots = cap / copy + 1;
    ok = (j.out = tfs_kctx_scratch(c, (size_t)(j.nslots * j.fsize) * es)) !=
         NULL;
    if (ok) {
      tfs_kctx_parallel_for(c, j.nslots, cost * (rows / j.nslots + 1),
                            df_slots, &j);
      df_reduce(&j);
    }
  } else if (ok) {
    /* staged when converted or transposed; a 16-bit NCHW result is
     * transposed into tmp before its conversion */
    int staged = ct != out->dtype || s->w.nchw;
    size_t bytes = (size_t)out->nelems * es;
    j.out = staged ? tfs_kctx_scratch(c, bytes) : out->data;
    if (j.out && ct != out->dtype && s->w.nchw)
      tmp = tfs_kctx_scratch(c, bytes);
    ok = j.out && (tmp || ct == out->dtype || !s->w.nchw);
    if (ok)
      tfs_kctx_parallel_for(c, g->n * g->h,
                            g->w * g->kh * g->kw * cm * 2 + 1, dx_range, &j);
  }
  if (ok)
    dg_finish(s, &j, ct, out, tmp);
  else if (!j.a || !j.b)
    tfs_kctx_fail(c, TFS_RESOURCE_EXHAUSTED, "out of memory");
  tfs_free(tmp_a);
  tfs_free(tmp_dy);
}

static void dg_compute(tfs_kernel_ctx *c) {
  const dg_state *s = c->state;
  const tfs_tensor *dy = c->inputs[2];
  const tfs_tensor *a = s->filter_grad ? c->inputs[0] : c->inputs[1];
  tfs_shape sizes, xs, fs;
  if (dg_sizes(c, s, s->filter_grad ? c->inputs[1] : c->inputs[0],
               s->filter_grad ? "filter_sizes" : "input_sizes", &sizes))
    return;
  xs = s->filter_grad ? a->shape : sizes;
  fs = s->filter_grad ? sizes : a->shape;
  conv_geom g;
  if (dg_dims(c, s, &xs, &fs, &dy->shape, &g)) return;
  tfs_tensor *out = tfs_kctx_alloc_output(c, 0, &sizes);
  if (!out || out->nelems == 0) return;
  if (a->nelems == 0 || dy->nelems == 0) {
    memset(out->data, 0, out->nbytes);
    return;
  }
  dg_run(c, s, &g, a, dy, out);
}

static const int kFilterGrad = 1;

const tfs_kernel_def tfs_cpu_kernels_conv_depthwise_grad[] = {
    {"DepthwiseConv2dNativeBackpropInput", "CPU", "T", TFS_DT_FLOATS,
     dg_prepare, dg_compute, dg_release, TFS_KERNEL_EXPENSIVE, NULL},
    {"DepthwiseConv2dNativeBackpropFilter", "CPU", "T", TFS_DT_FLOATS,
     dg_prepare, dg_compute, dg_release, TFS_KERNEL_EXPENSIVE, &kFilterGrad},
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL},
};
