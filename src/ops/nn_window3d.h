/*
 * ops/nn_window3d.h - the window attrs of the 3-D convolution and pooling
 * ops (Conv3D, Conv3DBackpropInputV2, MaxPool3D, AvgPool3D): data_format
 * NDHWC or NCDHW, padding, and 5-value strides, dilations and ksize, with
 * the checks and messages of TensorFlow's shape functions.  Output sizes
 * use nn_window.h's arithmetic.  Used by shape functions and CPU kernels.
 */
#ifndef TFS_OPS_NN_WINDOW3D_H
#define TFS_OPS_NN_WINDOW3D_H

#include "core/attr_value.h"
#include "core/status.h"
#include "ops/nn_window.h"

typedef struct tfs_window3d {
  int ncdhw;            /* channel-first layout (NCDHW) */
  tfs_padding padding;  /* SAME or VALID */
  int64_t strides[5];   /* in data-format order; 1 where absent */
  int64_t dilations[5];
  int64_t ksize[5];
  int nstrides, ndilations, nksize; /* values given, -1 when absent */
} tfs_window3d;

/* Position of spatial dimension i (0: D, 1: H, 2: W) in a 5-D tensor of
 * the window's layout. */
static inline int tfs_window3d_spatial(const tfs_window3d *w, int i) {
  return (w->ncdhw ? 2 : 1) + i;
}

/* Position of the channel dimension. */
static inline int tfs_window3d_channel(const tfs_window3d *w) {
  return w->ncdhw ? 1 : 4;
}

/* Reads data_format, padding, strides, dilations and ksize (values that
 * do not fit an int32 fail as "Attr strides has value 4294967296 out of
 * range for an int32"); counts are not checked.  Returns 0, or -1 with
 * INVALID_ARGUMENT in st. */
int tfs_window3d_read(const tfs_attrs *attrs, tfs_window3d *w,
                      tfs_status *st);

/* Conv3D's shape-function checks: "Conv3D requires the dilation
 * attribute to contain 5 values, but got: 4", "Conv3D requires the stride
 * attribute to contain 5 values, but got: 6", then the spatial "Stride
 * must be > 0, but got 0" and "Dilation rate must be >= 1, but got 0".
 * Returns 0, or -1 with INVALID_ARGUMENT in st. */
int tfs_window3d_check_conv(const tfs_window3d *w, tfs_status *st);

/* MaxPool3D's and AvgPool3D's: "Pool3D ops require the stride attribute
 * to contain 5 values, but got: 6", "Pool3D requires the ksize attribute
 * to contain 5 values, but got: 4", and spatial strides > 0. */
int tfs_window3d_check_pool(const tfs_window3d *w, tfs_status *st);

#endif
