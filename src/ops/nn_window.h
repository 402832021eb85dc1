/*
 * ops/nn_window.h - sliding-window geometry shared by the convolution and
 * pooling ops: parsing data_format, padding, strides, dilations, ksize and
 * explicit_paddings with TensorFlow's messages, and TensorFlow's output-size
 * and padding arithmetic.  Used by shape functions and by CPU kernels.
 */
#ifndef TFS_OPS_NN_WINDOW_H
#define TFS_OPS_NN_WINDOW_H

#include "core/attr_value.h"
#include "core/status.h"

typedef enum tfs_padding {
  TFS_PADDING_VALID = 0,
  TFS_PADDING_SAME = 1,
  TFS_PADDING_EXPLICIT = 2
} tfs_padding;

/* Which op family's messages and attrs to use. */
typedef enum tfs_window_kind {
  TFS_WINDOW_CONV2D,     /* strides, dilations, explicit_paddings */
  TFS_WINDOW_DEPTHWISE,  /* same attrs, DepthwiseConv2D wording */
  TFS_WINDOW_BACKPROP,   /* Conv2DBackpropInput: attrs unchecked by shape */
  TFS_WINDOW_POOL        /* ksize, strides, maybe explicit_paddings */
} tfs_window_kind;

typedef struct tfs_window {
  int nchw;             /* channel-first layout (NCHW) */
  int vect_c;           /* NCHW_VECT_C (MaxPool only; rejected by kernels) */
  tfs_padding padding;
  int64_t strides[4];   /* in data-format order */
  int64_t dilations[4]; /* all 1 when the op has none */
  int64_t ksize[4];     /* pools; all 1 otherwise */
  int64_t pads[8];      /* explicit_paddings, zeros unless EXPLICIT */
} tfs_window;

/* Position of dimension 'N', 'H', 'W' or 'C' in a 4-D tensor of the
 * window's data format. */
static inline int tfs_window_dim(const tfs_window *w, char d) {
  switch (d) {
    case 'N': return 0;
    case 'C': return w->nchw ? 1 : 3;
    case 'H': return w->nchw ? 2 : 1;
    default: return w->nchw ? 3 : 2;
  }
}

/* Reads the window attrs of an op of `kind` named `op` ("Conv2D",
 * "MaxPool", ...) and checks them as TensorFlow's shape inference does
 * ("Conv2D on data format NHWC requires the stride attribute to contain 4
 * values, but got: 3", "Stride must be > 0, but got 0", "explicit_paddings
 * attribute must contain 8 values, but got: 4", "Attr strides has value
 * 4294967296 out of range for an int32", ...).  Returns 0, or -1 with
 * INVALID_ARGUMENT in st. */
/* Reads the int list attr `name` (strides, dilations, ksize: int32
 * lists in TensorFlow's kernels and shape functions, which reject wider
 * values with "Attr NAME has value V out of range for an int32") into
 * out[0..len): all 1 unless the attr has exactly len values.  *n_out is
 * the attr's length, -1 when absent.  0, or -1 with st set. */
int tfs_window_read_list(const tfs_attrs *attrs, const char *name,
                         int64_t *out, int len, int *n_out, tfs_status *st);

int tfs_window_parse(const tfs_attrs *attrs, tfs_window_kind kind,
                     const char *op, tfs_window *w, tfs_status *st);

/* TensorFlow's GetWindowedOutputSizeVerbose for one spatial dimension.
 * For EXPLICIT, *pad_before and *pad_after are inputs; otherwise they are
 * set.  Errors (INVALID_ARGUMENT): "Computed output size would be
 * negative: -1 [input_size: 5, effective_filter_size: 7, stride: 1]". */
int tfs_window_output_size(int64_t in, int64_t k, int64_t dilation,
                           int64_t stride, tfs_padding p,
                           int64_t *pad_before, int64_t *pad_after,
                           int64_t *out, tfs_status *st);

/* Shape-inference variant on partial dims (-1 unknown; the result is -1
 * when in or k is unknown): "Negative dimension size caused by
 * subtracting 7 from 5". */
int tfs_window_output_dim(int64_t in, int64_t k, int64_t dilation,
                          int64_t stride, tfs_padding p, int64_t pad_before,
                          int64_t pad_after, int64_t *out, tfs_status *st);

/* Explicit padding of spatial dimension 'H' or 'W'. */
static inline void tfs_window_pads(const tfs_window *w, char d,
                                   int64_t *before, int64_t *after) {
  int i = tfs_window_dim(w, d);
  *before = w->pads[2 * i];
  *after = w->pads[2 * i + 1];
}

#endif
