/*
 * ops/ops_nn3d.c - volumetric convolution and pooling (Conv3D,
 * Conv3DBackpropInputV2, MaxPool3D, AvgPool3D) and ExtractImagePatches.
 * Signatures are TensorFlow 2.21's; shape functions follow TensorFlow's
 * Conv3DShape, Pool3DShape and ExtractImagePatches shape inference and
 * their messages.
 */
#include <string.h>

#include "core/tensor.h"
#include "ops/nn_window3d.h"
#include "ops/op_tables.h"
#include "ops/shape_ctx.h"

/* Dims N, D, H, W, C of input i (rank 5 or unknown; -1 unknown). */
static void read_ndhwc(const tfs_shape_ctx *c, int i, const tfs_window3d *w,
                       int64_t d[5]) {
  const tfs_shape *s = &c->in_shapes[i];
  int pos[5] = {0, tfs_window3d_spatial(w, 0), tfs_window3d_spatial(w, 1),
                tfs_window3d_spatial(w, 2), tfs_window3d_channel(w)};
  for (int k = 0; k < 5; k++) d[k] = s->rank == 5 ? s->dims[pos[k]] : -1;
}

static void set_ndhwc(tfs_shape *s, const tfs_window3d *w, const int64_t d[5]) {
  s->rank = 5;
  s->dims[0] = d[0];
  for (int k = 0; k < 3; k++) s->dims[tfs_window3d_spatial(w, k)] = d[1 + k];
  s->dims[tfs_window3d_channel(w)] = d[4];
}

static int read_window(tfs_shape_ctx *c, tfs_window3d *w) {
  if (tfs_window3d_read(c->attrs, w, c->st)) return -1;
  return 0;
}

/* Output D, H, W from the input's and the window's (k[i] the window of
 * spatial dim i, -1 unknown). */
static int spatial_out3(tfs_shape_ctx *c, const tfs_window3d *w,
                        const int64_t in[5], const int64_t k[3],
                        int dilate, int64_t out[5]) {
  for (int i = 0; i < 3; i++) {
    int pos = tfs_window3d_spatial(w, i);
    if (tfs_window_output_dim(in[1 + i], k[i],
                              dilate ? w->dilations[pos] : 1,
                              w->strides[pos], w->padding, 0, 0, &out[1 + i],
                              c->st))
      return -1;
  }
  return 0;
}

static int conv3d_shape(tfs_shape_ctx *c) {
  tfs_window3d w;
  if (tfs_sc_with_rank(c, 0, 5) || tfs_sc_with_rank(c, 1, 5)) return -1;
  if (read_window(c, &w) || tfs_window3d_check_conv(&w, c->st)) return -1;
  int64_t in[5], out[5], fd[5] = {-1, -1, -1, -1, -1};
  read_ndhwc(c, 0, &w, in);
  if (c->in_shapes[1].rank == 5)
    memcpy(fd, c->in_shapes[1].dims, sizeof fd);
  if (in[4] >= 0 && fd[3] > 0) {
    if (in[4] % fd[3] != 0)
      return tfs_sc_error(c, "Depth of input (%lld) is not a multiple of "
                          "input depth of filter (%lld)", (long long)in[4],
                          (long long)fd[3]);
    int64_t groups = in[4] / fd[3];
    if (fd[4] >= 0 && groups > 0 && fd[4] % groups != 0)
      return tfs_sc_error(c, "Depth of output (%lld) is not a multiple of "
                          "the number of groups (%lld)", (long long)fd[4],
                          (long long)groups);
  }
  if (spatial_out3(c, &w, in, fd, 1, out)) return -1;
  out[0] = in[0];
  out[4] = fd[4];
  set_ndhwc(&c->out_shapes[0], &w, out);
  return 0;
}

/* Conv3DBackpropInputV2: the output is input_sizes, of 5 values. */
static int conv3d_backprop_input_shape(tfs_shape_ctx *c) {
  tfs_shape s;
  if (tfs_sc_input_as_shape(c, 0, &s)) return -1;
  if (s.rank < 0) {
    tfs_shape_unknown_dims(&c->out_shapes[0], 5);
    return 0;
  }
  if (s.rank != 5)
    return tfs_sc_error(c, "Shape must be rank 5 but is rank %d", s.rank);
  c->out_shapes[0] = s;
  return 0;
}

static int pool3d_shape(tfs_shape_ctx *c) {
  tfs_window3d w;
  if (tfs_sc_with_rank(c, 0, 5)) return -1;
  if (read_window(c, &w) || tfs_window3d_check_pool(&w, c->st)) return -1;
  int64_t in[5], out[5], k[3];
  read_ndhwc(c, 0, &w, in);
  for (int i = 0; i < 3; i++) k[i] = w.ksize[tfs_window3d_spatial(&w, i)];
  if (spatial_out3(c, &w, in, k, 0, out)) return -1;
  out[0] = in[0];
  out[4] = in[4];
  set_ndhwc(&c->out_shapes[0], &w, out);
  return 0;
}

/* ExtractImagePatches: [N, rows, cols, ksize_rows * ksize_cols * C]. */
static int extract_patches_shape(tfs_shape_ctx *c) {
  static const char *const kAttr[3] = {"ksizes", "strides", "rates"};
  static const char *const kWord[3] = {"ksizes", "stride", "rates"};
  const int64_t *v[3];
  if (tfs_sc_with_rank(c, 0, 4)) return -1;
  for (int i = 0; i < 3; i++) {
    int n = 0;
    v[i] = tfs_attrs_get_int_list(c->attrs, kAttr[i], &n);
    if (!v[i] || n != 4)
      return tfs_sc_error(c, "ExtractImagePatches requires the %s attribute "
                          "to contain 4 values, but got: %d", kWord[i],
                          v[i] ? n : 0);
  }
  size_t len = 0;
  const char *p = tfs_attrs_get_string(c->attrs, "padding", &len);
  tfs_padding pad = p && strcmp(p, "SAME") == 0 ? TFS_PADDING_SAME
                                                : TFS_PADDING_VALID;
  const tfs_shape *s = &c->in_shapes[0];
  int64_t in[4] = {-1, -1, -1, -1};
  if (s->rank == 4) memcpy(in, s->dims, sizeof in);
  tfs_shape *o = &c->out_shapes[0];
  o->rank = 4;
  o->dims[0] = in[0];
  for (int i = 1; i <= 2; i++) {
    if (in[i] < 0) {
      o->dims[i] = -1;
      continue;
    }
    if (tfs_window_output_dim(in[i], v[0][i], v[2][i], v[1][i], pad, 0, 0,
                              &o->dims[i], c->st))
      return -1;
  }
  int64_t k;
  if (tfs_sc_mul_dim(c, v[0][1], v[0][2], &k) ||
      tfs_sc_mul_dim(c, in[3], k, &o->dims[3]))
    return -1;
  return 0;
}

#define FLOATS "{half, bfloat16, float, double}"
#define WIN3D                                                                \
  "strides: list(int) >= 5; padding: {'SAME', 'VALID'}; data_format: "      \
  "{'NDHWC', 'NCDHW'} = 'NDHWC'"

const tfs_op_spec tfs_ops_nn3d[] = {
    {"Conv3D", "input: T; filter: T", "output: T",
     "T: " FLOATS "; " WIN3D "; dilations: list(int) = [1, 1, 1, 1, 1]",
     conv3d_shape, 0},
    {"Conv3DBackpropInputV2",
     "input_sizes: Tshape; filter: T; out_backprop: T", "output: T",
     "T: " FLOATS "; " WIN3D "; dilations: list(int) = [1, 1, 1, 1, 1]; "
     "Tshape: {int32, int64} = int32",
     conv3d_backprop_input_shape, 0},
    {"MaxPool3D", "input: T", "output: T",
     "ksize: list(int) >= 5; " WIN3D "; T: {half, bfloat16, float}",
     pool3d_shape, 0},
    {"AvgPool3D", "input: T", "output: T",
     "ksize: list(int) >= 5; " WIN3D "; T: " FLOATS, pool3d_shape, 0},
    {"ExtractImagePatches", "images: T", "patches: T",
     "ksizes: list(int) >= 4; strides: list(int) >= 4; rates: list(int) >= "
     "4; T: {bfloat16, half, float, double, int8, int16, int32, int64, "
     "uint8, uint16, uint32, uint64, complex64, complex128, bool}; padding: "
     "{'SAME', 'VALID'}",
     extract_patches_shape, 0},
    {NULL, NULL, NULL, NULL, NULL, 0},
};
