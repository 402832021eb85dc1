/*
 * backends/cpu/conv3d.c - Conv3D and Conv3DBackpropInputV2 on the CPU,
 * NDHWC only with dilations of 1 as TensorFlow's CPU kernels (other
 * layouts and dilations fail with TensorFlow's messages).  Both run the
 * shared convolution GEMM (conv_common.h) over blocks of output voxels:
 * Conv3D multiplies im2col rows of the volume by the filter as a
 * [kd * kh * kw * c, out_c] matrix; the input gradient multiplies
 * out_backprop rows by the transposed filter and adds the patch rows back
 * into the volume.  half and bfloat16 compute in float copies.
 */
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "backends/cpu/conv_common.h"
#include "backends/cpu/cpu_tables.h"
#include "ops/nn_window3d.h"

typedef struct conv3d_geom {
  int64_t n, in[3], c;   /* input N, D, H, W, C */
  int64_t k[3], oc;      /* filter [kd, kh, kw, c, oc] */
  int64_t out[3];        /* output D, H, W */
  int64_t s[3], pad[3];  /* strides, padding before */
} conv3d_geom;

/* TensorFlow's constructor checks of Conv3D (backprop = 0) and
 * Conv3DBackpropInputV2 (1). */
static int conv3d_prepare(tfs_kernel_init *ki) {
  tfs_window3d *w = tfs_calloc(1, sizeof *w);
  if (!w) return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  ki->state = w;
  int backprop = ki->kdata != NULL;
  if (tfs_window3d_read(ki->attrs, w, ki->st))
    return tfs_ki_error(ki, TFS_INVALID_ARGUMENT, "%s",
                        tfs_status_message(ki->st));
  if (backprop && w->ncdhw)
    return tfs_ki_error(ki, TFS_INVALID_ARGUMENT,
                        "Conv3DBackpropInputOpV2 only supports NDHWC on the "
                        "CPU.");
  int cd = tfs_window3d_channel(w);
  if (!backprop) {
    if (w->nstrides != 5)
      return tfs_ki_error(ki, TFS_INVALID_ARGUMENT,
                          "Sliding window strides field must specify 5 "
                          "dimensions");
    if (w->strides[0] != 1 || w->strides[cd] != 1)
      return tfs_ki_error(ki, TFS_INVALID_ARGUMENT,
                          "Current implementation does not yet support "
                          "strides in the batch and depth dimensions.");
    for (int i = 0; i < 3; i++)
      if (w->strides[tfs_window3d_spatial(w, i)] <= 0)
        return tfs_ki_error(ki, TFS_INVALID_ARGUMENT,
                            "Spatial strides should be larger than 0.");
  }
  if (w->ndilations >= 0 && w->ndilations != 5)
    return tfs_ki_error(ki, TFS_INVALID_ARGUMENT,
                        "Dilation rates field must specify 5 dimensions");
  if (w->dilations[0] != 1 || w->dilations[cd] != 1)
    return tfs_ki_error(ki, TFS_INVALID_ARGUMENT,
                        "Current implementation does not yet support "
                        "dilation rates in the batch and depth dimensions.");
  int dilated = 0;
  for (int i = 0; i < 3; i++) {
    int64_t d = w->dilations[tfs_window3d_spatial(w, i)];
    if (d <= 0 && !backprop)
      return tfs_ki_error(ki, TFS_INVALID_ARGUMENT,
                          "Dilated rates should be larger than 0.");
    dilated |= d != 1;
  }
  if (backprop) {
    if (dilated)
      return tfs_ki_error(ki, TFS_INVALID_ARGUMENT,
                          "Current CPU implementation does not yet support "
                          "dilation rates larger than 1.");
    if (w->nstrides != 5)
      return tfs_ki_error(ki, TFS_INVALID_ARGUMENT,
                          "Sliding window strides field must specify 5 "
                          "dimensions");
    if (w->strides[0] != 1 || w->strides[cd] != 1)
      return tfs_ki_error(ki, TFS_INVALID_ARGUMENT,
                          "Current implementation does not yet support "
                          "strides in the batch and depth dimensions.");
    return 0;
  }
  if (w->ncdhw)
    return tfs_ki_error(ki, TFS_INVALID_ARGUMENT,
                        "CPU implementation of Conv3D currently only "
                        "supports the NHWC tensor format.");
  if (dilated)
    return tfs_ki_error(ki, TFS_INVALID_ARGUMENT,
                        "CPU implementation of Conv3D currently only "
                        "supports dilated rates of 1.");
  return 0;
}

/* ---- staging: float copies of 16-bit tensors --------------------------- */

typedef struct stage3d {
  tfs_dtype ct; /* TFS_FLOAT or TFS_DOUBLE */
  size_t es;
} stage3d;

/* Tensor data as the computation type: the data itself, or a float copy
 * in scratch.  NULL after failing c. */
static const void *as_compute(tfs_kernel_ctx *c, const tfs_tensor *t) {
  if (t->dtype != TFS_HALF && t->dtype != TFS_BFLOAT16) return t->data;
  float *f = tfs_kctx_scratch(c, (size_t)t->nelems * sizeof(float) + 1);
  if (f) tfs_conv_to_float(t->data, f, t->nelems, t->dtype);
  return f;
}

/* Where the result goes: y's data, or a float buffer for 16-bit y. */
static void *out_compute(tfs_kernel_ctx *c, tfs_tensor *y) {
  if (y->dtype != TFS_HALF && y->dtype != TFS_BFLOAT16) return y->data;
  return tfs_kctx_scratch(c, (size_t)y->nelems * sizeof(float) + 1);
}

static void out_finish(tfs_tensor *y, void *buf) {
  if (buf != y->data)
    tfs_conv_from_float(buf, y->data, y->nelems, y->dtype);
}

/* ---- patch rows ---------------------------------------------------- */

/* Decodes output voxel r into its batch and input corner. */
static void voxel(const conv3d_geom *g, int64_t r, int64_t *b,
                  int64_t at[3]) {
  int64_t x = r % g->out[2], rest = r / g->out[2];
  int64_t y = rest % g->out[1];
  rest /= g->out[1];
  int64_t z = rest % g->out[0];
  *b = rest / g->out[0];
  at[0] = z * g->s[0] - g->pad[0];
  at[1] = y * g->s[1] - g->pad[1];
  at[2] = x * g->s[2] - g->pad[2];
}

/* Rows [r0, r1) of the patch matrix (kd * kh * kw * c per row) into col;
 * zeros where a tap falls in padding. */
static void im2col3d(const conv3d_geom *g, const char *in, size_t es,
                     int64_t r0, int64_t r1, char *col) {
  size_t run = (size_t)g->c * es;
  for (int64_t r = r0; r < r1; r++) {
    int64_t b, at[3];
    voxel(g, r, &b, at);
    for (int64_t kz = 0; kz < g->k[0]; kz++)
      for (int64_t ky = 0; ky < g->k[1]; ky++)
        for (int64_t kx = 0; kx < g->k[2]; kx++, col += run) {
          int64_t z = at[0] + kz, y = at[1] + ky, x = at[2] + kx;
          if (z < 0 || z >= g->in[0] || y < 0 || y >= g->in[1] || x < 0 ||
              x >= g->in[2])
            memset(col, 0, run);
          else
            memcpy(col,
                   in + (size_t)(((b * g->in[0] + z) * g->in[1] + y) *
                                     g->in[2] + x) * run,
                   run);
        }
  }
}

/* Adds rows [r0, r1) of a patch matrix back into the volume `out`. */
#define COL2IM(NAME, T)                                                     \
  static void NAME(const conv3d_geom *g, const T *col, int64_t r0,         \
                   int64_t r1, T *out) {                                    \
    for (int64_t r = r0; r < r1; r++) {                                     \
      int64_t b, at[3];                                                     \
      voxel(g, r, &b, at);                                                  \
      for (int64_t kz = 0; kz < g->k[0]; kz++)                              \
        for (int64_t ky = 0; ky < g->k[1]; ky++)                            \
          for (int64_t kx = 0; kx < g->k[2]; kx++, col += g->c) {           \
            int64_t z = at[0] + kz, y = at[1] + ky, x = at[2] + kx;         \
            if (z < 0 || z >= g->in[0] || y < 0 || y >= g->in[1] ||         \
                x < 0 || x >= g->in[2])                                     \
              continue;                                                     \
            T *o = out + ((((b * g->in[0] + z) * g->in[1] + y) * g->in[2] + \
                           x) * g->c);                                      \
            for (int64_t ch = 0; ch < g->c; ch++) o[ch] += col[ch];         \
          }                                                                 \
    }                                                                       \
  }
COL2IM(col2im_f32, float)
COL2IM(col2im_f64, double)

/* ---- Conv3D -------------------------------------------------------- */

static int conv3d_geometry(tfs_kernel_ctx *c, const tfs_window3d *w,
                           const tfs_tensor *x, const tfs_tensor *f,
                           conv3d_geom *g) {
  if (x->shape.rank != 5) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "input must be 5-dimensional");
    return -1;
  }
  if (f->shape.rank != 5) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "filter must be 5-dimensional");
    return -1;
  }
  const int64_t *xd = x->shape.dims, *fd = f->shape.dims;
  if (fd[3] == 0) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "filter_depth must be non-zero");
    return -1;
  }
  if (xd[4] % fd[3] != 0) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Input depth must be evenly divisible by filter depth: "
                  "%lld vs %lld", (long long)xd[4], (long long)fd[3]);
    return -1;
  }
  if (f->nelems == 0) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "filter must not have zero elements (i.e. all dimensions "
                  "must be non-zero)");
    return -1;
  }
  memset(g, 0, sizeof *g);
  g->n = xd[0], g->c = xd[4], g->oc = fd[4];
  for (int i = 0; i < 3; i++) {
    int64_t after;
    g->in[i] = xd[1 + i], g->k[i] = fd[i], g->s[i] = w->strides[1 + i];
    if (tfs_window_output_size(g->in[i], g->k[i], 1, g->s[i], w->padding,
                               &g->pad[i], &after, &g->out[i], c->st)) {
      tfs_kctx_fail_status(c, c->st);
      return -1;
    }
  }
  return 0;
}

static void conv3d_compute(tfs_kernel_ctx *c) {
  const tfs_window3d *w = c->state;
  const tfs_tensor *x = c->inputs[0], *f = c->inputs[1];
  conv3d_geom g;
  if (conv3d_geometry(c, w, x, f, &g)) return;
  tfs_shape os = {5, {g.n, g.out[0], g.out[1], g.out[2], g.oc}};
  tfs_tensor *y = tfs_kctx_alloc_output(c, 0, &os);
  if (!y || y->nelems == 0) return;
  if (g.c != f->shape.dims[3]) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Number of channels in filter (%lld) must match last "
                  "dimension of input (%lld)", (long long)f->shape.dims[3],
                  (long long)g.c);
    return;
  }
  stage3d st = {x->dtype == TFS_DOUBLE ? TFS_DOUBLE : TFS_FLOAT,
                x->dtype == TFS_DOUBLE ? 8 : 4};
  const char *in = as_compute(c, x);
  const void *filt = in ? as_compute(c, f) : NULL;
  char *out = filt ? out_compute(c, y) : NULL;
  if (!out) return;
  int64_t m = g.n * g.out[0] * g.out[1] * g.out[2];
  int64_t k = g.k[0] * g.k[1] * g.k[2] * g.c;
  int64_t mb = tfs_conv_block_rows(m, k, st.es);
  char *col = tfs_kctx_scratch(c, (size_t)(mb * k) * st.es);
  if (!col) return;
  for (int64_t r0 = 0; r0 < m; r0 += mb) {
    int64_t r1 = r0 + mb < m ? r0 + mb : m;
    im2col3d(&g, in, st.es, r0, r1, col);
    tfs_conv_gemm_on(st.ct, 0, r1 - r0, g.oc, k, col, k, filt, g.oc,
                     out + (size_t)(r0 * g.oc) * st.es, g.oc,
                     tfs_kctx_intra_pool(c));
  }
  out_finish(y, out);
}

/* ---- Conv3DBackpropInputV2 ----------------------------------------- */

/* input_sizes as a shape: TensorFlow's MakeShape checks. */
static int read_sizes(tfs_kernel_ctx *c, const tfs_tensor *t, tfs_shape *s) {
  char buf[TFS_SHAPE_STRLEN];
  if (t->shape.rank != 1) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "shape must be a vector of {int32,int64}, got shape %s",
                  tfs_shape_str(&t->shape, buf, sizeof buf));
    return -1;
  }
  if (t->nelems > TFS_MAX_RANK) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "input tensor must have 5 "
                  "dimensions");
    return -1;
  }
  s->rank = (int)t->nelems;
  for (int i = 0; i < s->rank; i++) {
    s->dims[i] = tfs_tensor__get_as_int64(t, i);
    if (s->dims[i] < 0) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "Dimension %lld must be >= 0",
                    (long long)s->dims[i]);
      return -1;
    }
  }
  return 0;
}

/* TensorFlow's ConvBackpropComputeDimensions for 3 spatial dims. */
static int backprop_geometry(tfs_kernel_ctx *c, const tfs_window3d *w,
                             const tfs_shape *xs, const tfs_tensor *f,
                             const tfs_tensor *dy, conv3d_geom *g) {
  const char *why = xs->rank != 5            ? "input tensor"
                    : f->shape.rank != 5     ? "filter_sizes tensor"
                    : dy->shape.rank != 5    ? "out_backprop tensor"
                                             : NULL;
  if (why) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "%s must have 5 dimensions", why);
    return -1;
  }
  const int64_t *xd = xs->dims, *fd = f->shape.dims, *dd = dy->shape.dims;
  if (xd[0] != dd[0]) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "input and out_backprop must have the same batch size, "
                  "input batch: %lld outbackprop batch: %lld batch_dim: 0",
                  (long long)xd[0], (long long)dd[0]);
    return -1;
  }
  if (xd[4] != fd[3]) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "input and filter_sizes must have the same number of "
                  "channels. Got %lld for input and %lld for filter_sizes",
                  (long long)xd[4], (long long)fd[3]);
    return -1;
  }
  if (dd[4] != fd[4]) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "out_backprop and filter_sizes must have the same number "
                  "of channels. Got %lld for out_backprop and %lld for "
                  "filter_sizes", (long long)dd[4], (long long)fd[4]);
    return -1;
  }
  memset(g, 0, sizeof *g);
  g->n = xd[0], g->c = xd[4], g->oc = fd[4];
  for (int i = 0; i < 3; i++) {
    int64_t after, o;
    g->in[i] = xd[1 + i], g->k[i] = fd[i], g->s[i] = w->strides[1 + i];
    if (tfs_window_output_size(g->in[i], g->k[i], 1, g->s[i], w->padding,
                               &g->pad[i], &after, &o, c->st)) {
      tfs_kctx_fail_status(c, c->st);
      return -1;
    }
    if (o != dd[1 + i]) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "Conv3DBackpropInputOp: Size of out_backprop doesn't "
                    "match computed: actual = %lld, computed = %lld "
                    "spatial_dim: %d input: %lld filter: %lld output: %lld "
                    "stride: %lld dilation: 1", (long long)dd[1 + i],
                    (long long)o, 1 + i, (long long)g->in[i],
                    (long long)g->k[i], (long long)dd[1 + i],
                    (long long)g->s[i]);
      return -1;
    }
    g->out[i] = o;
  }
  return 0;
}

static void backprop_compute(tfs_kernel_ctx *c) {
  const tfs_window3d *w = c->state;
  const tfs_tensor *f = c->inputs[1], *dy = c->inputs[2];
  tfs_shape xs;
  conv3d_geom g;
  if (read_sizes(c, c->inputs[0], &xs) ||
      backprop_geometry(c, w, &xs, f, dy, &g))
    return;
  tfs_tensor *y = tfs_kctx_alloc_output(c, 0, &xs);
  if (!y || y->nelems == 0) return;
  stage3d st = {y->dtype == TFS_DOUBLE ? TFS_DOUBLE : TFS_FLOAT,
                y->dtype == TFS_DOUBLE ? 8 : 4};
  char *out = out_compute(c, y);
  if (!out) return;
  memset(out, 0, (size_t)y->nelems * st.es);
  if (f->nelems == 0 || dy->nelems == 0) {
    out_finish(y, out);
    return;
  }
  const char *d = as_compute(c, dy);
  const void *filt = d ? as_compute(c, f) : NULL;
  if (!filt) return;
  int64_t m = g.n * g.out[0] * g.out[1] * g.out[2];
  int64_t k = g.k[0] * g.k[1] * g.k[2] * g.c;
  int64_t mb = tfs_conv_block_rows(m, k, st.es);
  char *col = tfs_kctx_scratch(c, (size_t)(mb * k) * st.es);
  if (!col) return;
  for (int64_t r0 = 0; r0 < m; r0 += mb) {
    int64_t r1 = r0 + mb < m ? r0 + mb : m;
    /* col[rows, k] = dy[rows, oc] * filter[k, oc]^T */
    tfs_conv_gemm_on(st.ct, 1, r1 - r0, k, g.oc,
                     d + (size_t)(r0 * g.oc) * st.es, g.oc, filt, g.oc, col,
                     k, tfs_kctx_intra_pool(c));
    if (st.ct == TFS_DOUBLE)
      col2im_f64(&g, (const double *)col, r0, r1, (double *)out);
    else
      col2im_f32(&g, (const float *)col, r0, r1, (float *)out);
  }
  out_finish(y, out);
}

static const int kBackprop = 1;

const tfs_kernel_def tfs_cpu_kernels_conv3d[] = {
    {"Conv3D", "CPU", "T", TFS_DT_FLOATS, conv3d_prepare, conv3d_compute,
     free, TFS_KERNEL_EXPENSIVE, NULL},
    {"Conv3DBackpropInputV2", "CPU", "T", TFS_DT_FLOATS, conv3d_prepare,
     backprop_compute, free, TFS_KERNEL_EXPENSIVE, &kBackprop},
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL},
};
