/*
 * ops/nn_window3d.c - window attrs of the 3-D convolution and pooling ops
 * with TensorFlow's messages (see nn_window3d.h).
 */
#include <stdint.h>
#include <string.h>

#include "ops/nn_window3d.h"

int tfs_window3d_read(const tfs_attrs *attrs, tfs_window3d *w,
                      tfs_status *st) {
  memset(w, 0, sizeof *w);
  size_t len = 0;
  const char *f = tfs_attrs_get_string(attrs, "data_format", &len);
  if (f && strcmp(f, "NCDHW") == 0) {
    w->ncdhw = 1;
  } else if (f && strcmp(f, "NDHWC") != 0) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT, "Invalid data format");
    return -1;
  }
  const char *p = tfs_attrs_get_string(attrs, "padding", &len);
  if (p && strcmp(p, "SAME") == 0) {
    w->padding = TFS_PADDING_SAME;
  } else if (p && strcmp(p, "VALID") == 0) {
    w->padding = TFS_PADDING_VALID;
  } else {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT, "Invalid padding: %s",
                    p ? p : "");
    return -1;
  }
  if (tfs_window_read_list(attrs, "strides", w->strides, 5, &w->nstrides,
                           st) ||
      tfs_window_read_list(attrs, "dilations", w->dilations, 5,
                           &w->ndilations, st) ||
      tfs_window_read_list(attrs, "ksize", w->ksize, 5, &w->nksize, st))
    return -1;
  return 0;
}

static int check_strides(const tfs_window3d *w, int dilations,
                         tfs_status *st) {
  for (int i = 0; i < 3; i++) {
    int64_t s = w->strides[tfs_window3d_spatial(w, i)];
    if (s <= 0) {
      tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                      "Stride must be > 0, but got %lld", (long long)s);
      return -1;
    }
  }
  for (int i = 0; dilations && i < 3; i++) {
    int64_t d = w->dilations[tfs_window3d_spatial(w, i)];
    if (d < 1) {
      tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                      "Dilation rate must be >= 1, but got %lld",
                      (long long)d);
      return -1;
    }
  }
  return 0;
}

int tfs_window3d_check_conv(const tfs_window3d *w, tfs_status *st) {
  /* TensorFlow checks the dilations first */
  if (w->ndilations >= 0 && w->ndilations != 5) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "Conv3D requires the dilation attribute to contain 5 "
                    "values, but got: %d", w->ndilations);
    return -1;
  }
  if (w->nstrides != 5) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "Conv3D requires the stride attribute to contain 5 "
                    "values, but got: %d", w->nstrides < 0 ? 0 : w->nstrides);
    return -1;
  }
  return check_strides(w, 1, st);
}

int tfs_window3d_check_pool(const tfs_window3d *w, tfs_status *st) {
  if (w->nstrides != 5) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "Pool3D ops require the stride attribute to contain 5 "
                    "values, but got: %d", w->nstrides < 0 ? 0 : w->nstrides);
    return -1;
  }
  if (w->nksize != 5) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "Pool3D requires the ksize attribute to contain 5 "
                    "values, but got: %d", w->nksize < 0 ? 0 : w->nksize);
    return -1;
  }
  return check_strides(w, 0, st);
}
