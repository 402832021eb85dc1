/*
 * ops/conv2d_check.c - Conv2D's and DepthwiseConv2dNative's runtime input
 * checks and geometry (TensorFlow's ComputeConv2DDimension and the
 * depthwise kernel's checks), shared by the CPU and the CUDA kernels.
 */
#include "ops/conv2d_check.h"

#include <string.h>

void tfs_conv_geom_window(const tfs_window *w, tfs_conv_dims *g) {
  int h = tfs_window_dim(w, 'H'), wd = tfs_window_dim(w, 'W');
  g->sh = w->strides[h];
  g->sw = w->strides[wd];
  g->dh = w->dilations[h];
  g->dw = w->dilations[wd];
  tfs_window_pads(w, 'H', &g->pt, &g->pb);
  tfs_window_pads(w, 'W', &g->pl, &g->pr);
}

void tfs_conv_geom_input(const tfs_window *w, const tfs_shape *s,
                         tfs_conv_dims *g) {
  g->n = s->dims[0];
  g->h = s->dims[tfs_window_dim(w, 'H')];
  g->w = s->dims[tfs_window_dim(w, 'W')];
  g->c = s->dims[tfs_window_dim(w, 'C')];
}

int tfs_conv_dims_output(const tfs_window *w, tfs_conv_dims *g,
                         tfs_status *st) {
  if (tfs_window_output_size(g->h, g->kh, g->dh, g->sh, w->padding, &g->pt,
                             &g->pb, &g->oh, st) ||
      tfs_window_output_size(g->w, g->kw, g->dw, g->sw, w->padding, &g->pl,
                             &g->pr, &g->ow, st))
    return -1;
  return 0;
}

static int check_ranks(int depthwise, const tfs_shape *x, const tfs_shape *f,
                       tfs_status *st) {
  char buf[TFS_SHAPE_STRLEN];
  if (x->rank != 4) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    depthwise ? "input must be 4-dimensional%s"
                              : "convolution input must be 4-dimensional: %s",
                    tfs_shape_str(x, buf, sizeof buf));
    return -1;
  }
  if (f->rank != 4) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "%sfilter must be 4-dimensional: %s",
                    depthwise ? "" : "convolution ",
                    tfs_shape_str(f, buf, sizeof buf));
    return -1;
  }
  return 0;
}

/* The filter's input depth: Conv2D's divides the input depth (groups),
 * DepthwiseConv2dNative's equals it. */
static int check_depth(int depthwise, const tfs_conv_dims *g,
                       tfs_status *st) {
  const char *fmt = NULL;
  if (depthwise && g->c != g->kc) {
    fmt = "input and filter must have the same depth: %lld vs %lld";
  } else if (!depthwise && g->kc <= 0) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "filter depth must be stricly positive, got %lld",
                    (long long)g->kc);
    return -1;
  } else if (!depthwise && g->c % g->kc != 0) {
    fmt = "input depth must be evenly divisible by filter depth: %lld vs "
          "%lld";
  }
  if (!fmt) return 0;
  tfs_status_setf(st, TFS_INVALID_ARGUMENT, fmt, (long long)g->c,
                  (long long)g->kc);
  return -1;
}

int tfs_conv2d_check(const tfs_window *w, int depthwise, const tfs_shape *x,
                     const tfs_shape *f, tfs_conv_dims *g, tfs_status *st) {
  if (check_ranks(depthwise, x, f, st)) return -1;
  memset(g, 0, sizeof *g);
  tfs_conv_geom_window(w, g);
  tfs_conv_geom_input(w, x, g);
  g->kh = f->dims[0], g->kw = f->dims[1];
  g->kc = f->dims[2], g->kn = f->dims[3];
  if (check_depth(depthwise, g, st)) return -1;
  if (tfs_conv_dims_output(w, g, st)) return -1;
  g->groups = depthwise ? 1 : g->c / g->kc;
  g->oc = depthwise ? g->c * g->kn : g->kn;
  return 0;
}

int tfs_conv2d_check_filter(const tfs_shape *f, tfs_status *st) {
  if (tfs_shape_num_elements(f) != 0) return 0;
  tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                  "filter must not have zero elements (i.e. all dimensions "
                  "must be non-zero)");
  return -1;
}

int tfs_conv2d_check_groups(const tfs_conv_dims *g, tfs_status *st) {
  if (g->groups > 0 && g->kn % g->groups == 0 && g->kn >= g->groups)
    return 0;
  tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                  "output depth must be evenly divisible by number of "
                  "groups: %lld vs %lld", (long long)g->kn,
                  (long long)g->groups);
  return -1;
}
