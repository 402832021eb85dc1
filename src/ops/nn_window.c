/*
 * ops/nn_window.c - sliding-window attrs and output sizes for convolution
 * and pooling ops, with TensorFlow's messages (see nn_window.h).
 */
#include <stdint.h>
#include <string.h>

#include "ops/nn_window.h"

static int read_format(const tfs_attrs *attrs, tfs_window *w,
                       tfs_status *st) {
  size_t len = 0;
  const char *f = tfs_attrs_get_string(attrs, "data_format", &len);
  w->nchw = 0;
  w->vect_c = 0;
  if (!f || strcmp(f, "NHWC") == 0) return 0;
  if (strcmp(f, "NCHW") == 0) {
    w->nchw = 1;
    return 0;
  }
  if (strcmp(f, "NCHW_VECT_C") == 0) {
    w->nchw = 1;
    w->vect_c = 1;
    return 0;
  }
  tfs_status_setf(st, TFS_INVALID_ARGUMENT, "Invalid data format");
  return -1;
}

static int read_padding(const tfs_attrs *attrs, tfs_window *w,
                        tfs_status *st) {
  size_t len = 0;
  const char *p = tfs_attrs_get_string(attrs, "padding", &len);
  if (p && strcmp(p, "VALID") == 0)
    w->padding = TFS_PADDING_VALID;
  else if (p && strcmp(p, "SAME") == 0)
    w->padding = TFS_PADDING_SAME;
  else if (p && strcmp(p, "EXPLICIT") == 0)
    w->padding = TFS_PADDING_EXPLICIT;
  else {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT, "Invalid padding: %s",
                    p ? p : "");
    return -1;
  }
  return 0;
}

/* explicit_paddings: TensorFlow's CheckValidPadding. */
static int read_explicit(const tfs_attrs *attrs, tfs_window *w,
                         tfs_status *st) {
  int n = 0;
  const int64_t *v = tfs_attrs_get_int_list(attrs, "explicit_paddings", &n);
  memset(w->pads, 0, sizeof w->pads);
  if (w->padding != TFS_PADDING_EXPLICIT) {
    if (n > 0) {
      tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                      "explicit_paddings attribute must be empty if the "
                      "padding attribute is not EXPLICIT");
      return -1;
    }
    return 0;
  }
  if (n != 8) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "explicit_paddings attribute must contain 8 values, but "
                    "got: %d", n);
    return -1;
  }
  for (int i = 0; i < 8; i++) {
    if (v[i] < 0) {
      tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                      "All elements of explicit_paddings must be "
                      "nonnegative");
      return -1;
    }
    w->pads[i] = v[i];
  }
  int n_dim = tfs_window_dim(w, 'N'), c_dim = tfs_window_dim(w, 'C');
  if (w->pads[2 * n_dim] || w->pads[2 * n_dim + 1] || w->pads[2 * c_dim] ||
      w->pads[2 * c_dim + 1]) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "Nonzero explicit padding in the batch or depth "
                    "dimensions is not supported");
    return -1;
  }
  return 0;
}

int tfs_window_read_list(const tfs_attrs *attrs, const char *name,
                         int64_t *out, int len, int *n_out, tfs_status *st) {
  int n = 0;
  const int64_t *v = tfs_attrs_get_int_list(attrs, name, &n);
  *n_out = v ? n : -1;
  for (int i = 0; i < len; i++) out[i] = 1;
  for (int i = 0; v && i < n; i++) {
    if (v[i] < INT32_MIN || v[i] > INT32_MAX) {
      tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                      "Attr %s has value %lld out of range for an int32",
                      name, (long long)v[i]);
      return -1;
    }
  }
  if (v && n == len) memcpy(out, v, (size_t)len * sizeof(int64_t));
  return 0;
}

static int count_error(tfs_window_kind kind, const char *op,
                       const char *attr, const tfs_window *w, int n,
                       tfs_status *st) {
  if (kind == TFS_WINDOW_CONV2D && strcmp(attr, "stride") == 0)
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "%s on data format %s requires the stride attribute to "
                    "contain 4 values, but got: %d", op,
                    w->nchw ? "NCHW" : "NHWC", n);
  else
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "%s requires the %s attribute to contain 4 values, but "
                    "got: %d", op, attr, n);
  return -1;
}

static int check_spatial(const tfs_window *w, tfs_status *st) {
  int h = tfs_window_dim(w, 'H'), wd = tfs_window_dim(w, 'W');
  int64_t s[2] = {w->strides[h], w->strides[wd]};
  int64_t d[2] = {w->dilations[h], w->dilations[wd]};
  for (int i = 0; i < 2; i++) {
    if (s[i] <= 0) {
      tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                      "Stride must be > 0, but got %lld", (long long)s[i]);
      return -1;
    }
  }
  for (int i = 0; i < 2; i++) {
    if (d[i] < 1) {
      tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                      "Dilation rate must be >= 1, but got %lld",
                      (long long)d[i]);
      return -1;
    }
  }
  return 0;
}

int tfs_window_parse(const tfs_attrs *attrs, tfs_window_kind kind,
                     const char *op, tfs_window *w, tfs_status *st) {
  int ns = 0, nd = 0, nk = 0;
  memset(w, 0, sizeof *w);
  if (read_format(attrs, w, st) || read_padding(attrs, w, st)) return -1;
  if (tfs_window_read_list(attrs, "strides", w->strides, 4, &ns, st) ||
      tfs_window_read_list(attrs, "dilations", w->dilations, 4, &nd, st) ||
      tfs_window_read_list(attrs, "ksize", w->ksize, 4, &nk, st))
    return -1;
  if (kind == TFS_WINDOW_BACKPROP) {
    /* TensorFlow's shape function leaves these to the kernel. */
    if (ns != 4 || nd != 4) {
      tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                      "Sliding window %s field must specify 4 dimensions",
                      ns != 4 ? "strides" : "dilations");
      return -1;
    }
  } else if (kind == TFS_WINDOW_POOL) {
    if (nk != 4) return count_error(kind, op, "ksize", w, nk, st);
    if (ns != 4) return count_error(kind, op, "stride", w, ns, st);
  } else {
    if (ns != 4) return count_error(kind, op, "stride", w, ns, st);
    if (nd != 4)
      return count_error(kind, op,
                         kind == TFS_WINDOW_DEPTHWISE ? "dilations"
                                                      : "dilation",
                         w, nd, st);
  }
  if (check_spatial(w, st)) return -1;
  return read_explicit(attrs, w, st);
}

int tfs_window_output_size(int64_t in, int64_t k, int64_t dilation,
                           int64_t stride, tfs_padding p,
                           int64_t *pad_before, int64_t *pad_after,
                           int64_t *out, tfs_status *st) {
  if (stride <= 0) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "Stride must be > 0, but got %lld", (long long)stride);
    return -1;
  }
  if (dilation < 1) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "Dilation rate must be >= 1, but got %lld",
                    (long long)dilation);
    return -1;
  }
  /* Sizes come from tensors (< 2^62 elements) and attrs; keep the
   * arithmetic in range before multiplying. */
  if (k < 0 || k > (INT64_C(1) << 40) || dilation > (INT64_C(1) << 20) ||
      stride > (INT64_C(1) << 40)) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT, "filter too large");
    return -1;
  }
  int64_t eff = (k - 1) * dilation + 1;
  int64_t o;
  switch (p) {
    case TFS_PADDING_VALID:
      o = (in - eff + stride) / stride;
      *pad_before = *pad_after = 0;
      break;
    case TFS_PADDING_EXPLICIT: {
      /* explicit paddings are attrs: any non-negative int64 */
      int64_t padded;
      if (tfs_add_overflow_i64(in, *pad_before, &padded) ||
          tfs_add_overflow_i64(padded, *pad_after, &padded)) {
        tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                        "Dimension size overflow from adding %lld and %lld "
                        "+ %lld", (long long)in, (long long)*pad_before,
                        (long long)*pad_after);
        return -1;
      }
      o = padded >= eff ? (padded - eff) / stride + 1
                        : (padded - eff + stride) / stride;
      break;
    }
    default: {
      o = (in + stride - 1) / stride;
      int64_t need = (o - 1) * stride + eff - in;
      if (need < 0) need = 0;
      *pad_before = need / 2;
      *pad_after = need - need / 2;
      break;
    }
  }
  if (o < 0) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "Computed output size would be negative: %lld "
                    "[input_size: %lld, effective_filter_size: %lld, "
                    "stride: %lld]", (long long)o, (long long)in,
                    (long long)eff, (long long)stride);
    return -1;
  }
  *out = o;
  return 0;
}

int tfs_window_output_dim(int64_t in, int64_t k, int64_t dilation,
                          int64_t stride, tfs_padding p, int64_t pad_before,
                          int64_t pad_after, int64_t *out, tfs_status *st) {
  if (stride <= 0 || dilation < 1 || in < 0) {
    *out = -1;
    return 0;
  }
  if (p == TFS_PADDING_SAME) {
    *out = in / stride + (in % stride != 0);
    return 0;
  }
  if (k < 0) {
    *out = -1;
    return 0;
  }
  if (p == TFS_PADDING_VALID) pad_before = pad_after = 0;
  /* dims, pads (>= 0) and filter sizes may be anything up to INT64_MAX:
   * sums and the dilated filter are checked, not wrapped */
  int64_t padded, pads, eff = k;
  if (tfs_add_overflow_i64(pad_before, pad_after, &pads) ||
      tfs_add_overflow_i64(in, pads, &padded)) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "Dimension size overflow from adding %lld and %lld + "
                    "%lld", (long long)in, (long long)pad_before,
                    (long long)pad_after);
    return -1;
  }
  if (k > 0 && dilation > 1 &&
      (tfs_mul_overflow_i64(k - 1, dilation, &eff) ||
       tfs_add_overflow_i64(eff, 1, &eff))) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "Negative dimension size caused by overflow when "
                    "multiplying %lld and %lld", (long long)(k - 1),
                    (long long)dilation);
    return -1;
  }
  if (padded < eff) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "Negative dimension size caused by subtracting %lld "
                    "from %lld", (long long)eff, (long long)padded);
    return -1;
  }
  *out = (padded - eff) / stride + 1;
  return 0;
}
