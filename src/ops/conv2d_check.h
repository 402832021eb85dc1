/*
 * ops/conv2d_check.h - the runtime input checks of Conv2D and
 * DepthwiseConv2dNative (ranks, depths, groups, output sizes) with
 * TensorFlow's messages, and the geometry of one call in NHWC terms;
 * called by the CPU and the CUDA kernels alike.
 */
#ifndef TFS_OPS_CONV2D_CHECK_H
#define TFS_OPS_CONV2D_CHECK_H

#include "core/shape.h"
#include "core/status.h"
#include "ops/nn_window.h"

/* Geometry of one 2-D convolution, always in NHWC terms. */
typedef struct tfs_conv_dims {
  int64_t n, h, w, c;     /* input */
  int64_t kh, kw, kc, kn; /* filter [kh, kw, kc, kn] (HWIO) */
  int64_t oh, ow, oc;     /* output */
  int64_t sh, sw, dh, dw; /* strides, dilations */
  int64_t pt, pb, pl, pr; /* padding */
  int64_t groups;         /* Conv2D: c / kc */
} tfs_conv_dims;

/* Strides and dilations of `w` into g (sh, sw, dh, dw), and explicit
 * padding (pt, pb, pl, pr) when EXPLICIT. */
void tfs_conv_geom_window(const tfs_window *w, tfs_conv_dims *g);

/* Input dims of a 4-D tensor in `w`'s layout into g->n, h, w, c. */
void tfs_conv_geom_input(const tfs_window *w, const tfs_shape *s,
                         tfs_conv_dims *g);

/* Output spatial sizes (oh, ow) and padding for the input h, w, filter
 * kh, kw, strides and dilations already in g.  Returns 0, or -1 with
 * INVALID_ARGUMENT in st (nn_window.h's tfs_window_output_size:
 * "Computed output size would be negative: ..."). */
int tfs_conv_dims_output(const tfs_window *w, tfs_conv_dims *g,
                         tfs_status *st);

/* The checks TensorFlow's Conv2D (depthwise = 0) and
 * DepthwiseConv2dNative (depthwise = 1) kernels make before allocating
 * their output: ranks of input x and filter f, the filter depth, output
 * sizes.  Fills g (memset first): geometry, output depth (oc) and, for
 * Conv2D, groups (0 when x has depth 0).  Returns 0, or -1 with
 * INVALID_ARGUMENT in st:
 *   Conv2D: "convolution input must be 4-dimensional: [4,4,3]",
 *     "convolution filter must be 4-dimensional: [2,2,3]",
 *     "filter depth must be stricly positive, got 0" (sic),
 *     "input depth must be evenly divisible by filter depth: 4 vs 3";
 *   Depthwise: "input must be 4-dimensional[4,4,3]",
 *     "filter must be 4-dimensional: [2,2,3]",
 *     "input and filter must have the same depth: 4 vs 3";
 *   and tfs_conv_dims_output's. */
int tfs_conv2d_check(const tfs_window *w, int depthwise, const tfs_shape *x,
                     const tfs_shape *f, tfs_conv_dims *g, tfs_status *st);

/* Conv2D's filter f must have elements: 0, or -1 with INVALID_ARGUMENT
 * "filter must not have zero elements (i.e. all dimensions must be
 * non-zero)". */
int tfs_conv2d_check_filter(const tfs_shape *f, tfs_status *st);

/* Conv2D's output depth (g->kn) divisible by its group count (g->groups,
 * from tfs_conv2d_check): 0, or -1 with INVALID_ARGUMENT "output depth
 * must be evenly divisible by number of groups: 3 vs 2". */
int tfs_conv2d_check_groups(const tfs_conv_dims *g, tfs_status *st);

#endif
