/*
 * ops/ops_nn.c - neural-network ops: activations, BiasAdd, softmax,
 * convolutions, pooling, batch normalization, LRN, losses and InTopKV2.
 * Signatures are TensorFlow 2.21's; shape functions follow TensorFlow's
 * shape inference and its messages.
 */
#include <string.h>

#include "core/tensor.h"
#include "ops/nn_window.h"
#include "ops/op_tables.h"
#include "ops/shape_ctx.h"

static int softmax_shape(tfs_shape_ctx *c) {
  if (tfs_sc_with_rank_at_least(c, 0, 1)) return -1;
  c->out_shapes[0] = c->in_shapes[0];
  return 0;
}

/* BiasAdd: the channel is dim 1 for NCHW, the last dim otherwise. */
static int bias_add_shape(tfs_shape_ctx *c) {
  size_t len;
  const char *fmt = tfs_attrs_get_string(c->attrs, "data_format", &len);
  int nchw = fmt && strcmp(fmt, "NCHW") == 0;
  if (tfs_sc_with_rank_at_least(c, 0, nchw ? 3 : 2) ||
      tfs_sc_with_rank(c, 1, 1))
    return -1;
  const tfs_shape *v = &c->in_shapes[0];
  if (v->rank < 0) {
    c->out_shapes[0].rank = -1;
    return 0;
  }
  tfs_shape out = *v;
  int cdim = nchw ? 1 : v->rank - 1;
  int64_t b = c->in_shapes[1].rank == 1 ? c->in_shapes[1].dims[0] : -1;
  if (tfs_sc_merge_dim(c, v->dims[cdim], b, &out.dims[cdim])) return -1;
  c->out_shapes[0] = out;
  return 0;
}

static void set_nhwc(tfs_shape *s, int nchw, int64_t n, int64_t h,
                     int64_t w, int64_t ch) {
  s->rank = 4;
  s->dims[0] = n;
  s->dims[nchw ? 2 : 1] = h;
  s->dims[nchw ? 3 : 2] = w;
  s->dims[nchw ? 1 : 3] = ch;
}

/* Input dims N, H, W, C of a rank-4 (or unknown) input. */
static void read_nhwc(const tfs_shape *s, const tfs_window *w, int64_t d[4]) {
  static const char kDims[4] = {'N', 'H', 'W', 'C'};
  for (int i = 0; i < 4; i++)
    d[i] = s->rank == 4 ? s->dims[tfs_window_dim(w, kDims[i])] : -1;
}

static int spatial_out(tfs_shape_ctx *c, const tfs_window *w,
                       const int64_t in[4], int64_t kh, int64_t kw,
                       int64_t *oh, int64_t *ow) {
  int h = tfs_window_dim(w, 'H'), wd = tfs_window_dim(w, 'W');
  int64_t pt, pb, pl, pr;
  tfs_window_pads(w, 'H', &pt, &pb);
  tfs_window_pads(w, 'W', &pl, &pr);
  int64_t kh_ = kh, kw_ = kw;
  if (tfs_window_output_dim(in[1], kh_, w->dilations[h], w->strides[h],
                            w->padding, pt, pb, oh, c->st) ||
      tfs_window_output_dim(in[2], kw_, w->dilations[wd], w->strides[wd],
                            w->padding, pl, pr, ow, c->st))
    return -1;
  return 0;
}

static int conv2d_shape(tfs_shape_ctx *c) {
  tfs_window w;
  if (tfs_window_parse(c->attrs, TFS_WINDOW_CONV2D, "Conv2D", &w, c->st))
    return -1;
  if (tfs_sc_with_rank(c, 0, 4) || tfs_sc_with_rank(c, 1, 4)) return -1;
  const tfs_shape *f = &c->in_shapes[1];
  int64_t in[4], fd[4] = {-1, -1, -1, -1};
  read_nhwc(&c->in_shapes[0], &w, in);
  if (f->rank == 4) memcpy(fd, f->dims, sizeof fd);
  if (fd[2] == 0)
    return tfs_sc_error(c, "Depth of filter must not be 0");
  if (in[3] >= 0 && fd[2] > 0) {
    if (in[3] % fd[2] != 0)
      return tfs_sc_error(c, "Depth of input (%lld) is not a multiple of "
                          "input depth of filter (%lld)", (long long)in[3],
                          (long long)fd[2]);
    int64_t groups = in[3] / fd[2];
    if (fd[3] >= 0 && groups > 0 && fd[3] % groups != 0)
      return tfs_sc_error(c, "Depth of output (%lld) is not a multiple of "
                          "the number of groups (%lld)", (long long)fd[3],
                          (long long)groups);
  }
  int64_t oh, ow;
  if (spatial_out(c, &w, in, fd[0], fd[1], &oh, &ow)) return -1;
  set_nhwc(&c->out_shapes[0], w.nchw, in[0], oh, ow, fd[3]);
  return 0;
}

static int depthwise_shape(tfs_shape_ctx *c) {
  tfs_window w;
  if (tfs_window_parse(c->attrs, TFS_WINDOW_DEPTHWISE, "DepthwiseConv2D",
                       &w, c->st))
    return -1;
  if (tfs_sc_with_rank(c, 0, 4) || tfs_sc_with_rank(c, 1, 4)) return -1;
  const tfs_shape *f = &c->in_shapes[1];
  int64_t in[4], fd[4] = {-1, -1, -1, -1}, depth;
  read_nhwc(&c->in_shapes[0], &w, in);
  if (f->rank == 4) memcpy(fd, f->dims, sizeof fd);
  if (tfs_sc_merge_dim(c, in[3], fd[2], &depth)) return -1;
  int64_t oh, ow;
  if (spatial_out(c, &w, in, fd[0], fd[1], &oh, &ow)) return -1;
  int64_t out_c;
  if (tfs_sc_mul_dim(c, depth, fd[3], &out_c)) return -1;
  set_nhwc(&c->out_shapes[0], w.nchw, in[0], oh, ow, out_c);
  return 0;
}

/* Conv2DBackpropInput: the output is input_sizes (4 values, or H and W),
 * with the batch of out_backprop. */
static int backprop_input_shape(tfs_shape_ctx *c) {
  size_t len;
  const char *fmt = tfs_attrs_get_string(c->attrs, "data_format", &len);
  tfs_window w;
  memset(&w, 0, sizeof w);
  w.nchw = fmt && strcmp(fmt, "NCHW") == 0;
  if (tfs_sc_with_rank(c, 1, 4) || tfs_sc_with_rank(c, 2, 4)) return -1;
  const tfs_shape *f = &c->in_shapes[1], *g = &c->in_shapes[2];
  int64_t gd[4], depth;
  read_nhwc(g, &w, gd);
  if (tfs_sc_merge_dim(c, gd[3], f->rank == 4 ? f->dims[3] : -1, &depth))
    return -1;
  tfs_shape sizes;
  const tfs_tensor *t = tfs_sc_const(c, 0);
  if (t && t->shape.rank == 1 &&
      (t->dtype == TFS_INT32 || t->dtype == TFS_INT64)) {
    sizes.rank = t->nelems <= TFS_MAX_RANK ? (int)t->nelems : -1;
    for (int i = 0; i < sizes.rank; i++) {
      int64_t v = tfs_tensor__get_as_int64(t, i);
      if (v < -1)
        return tfs_sc_error(c, "Invalid value in tensor used for shape: "
                            "%lld", (long long)v);
      sizes.dims[i] = v;
    }
  } else if (tfs_sc_input_as_shape(c, 0, &sizes)) {
    return -1;
  }
  if (sizes.rank < 0) {
    c->out_shapes[0].rank = 4;
    for (int i = 0; i < 4; i++) c->out_shapes[0].dims[i] = -1;
    c->out_shapes[0].dims[0] = gd[0];
    return 0;
  }
  if (sizes.rank == 4) {
    c->out_shapes[0] = sizes;
    c->out_shapes[0].dims[0] = gd[0];
    return 0;
  }
  if (sizes.rank == 2) {
    set_nhwc(&c->out_shapes[0], w.nchw, gd[0], sizes.dims[0], sizes.dims[1],
             f->rank == 4 ? f->dims[2] : -1);
    return 0;
  }
  return tfs_sc_error(c, "Conv2DBackpropInput requires input_sizes to "
                      "contain 4 values or 2 values, but got: %d",
                      sizes.rank);
}

static int pool_shape_window(tfs_shape_ctx *c, const tfs_window *wp,
                             int depth_pool) {
  tfs_window w = *wp;
  if (tfs_sc_with_rank(c, 0, w.vect_c ? 5 : 4)) return -1;
  if (w.vect_c) {
    c->out_shapes[0].rank = -1;
    return 0;
  }
  int64_t in[4];
  read_nhwc(&c->in_shapes[0], &w, in);
  int h = tfs_window_dim(&w, 'H'), wd = tfs_window_dim(&w, 'W');
  int cd = tfs_window_dim(&w, 'C');
  int64_t oh, ow, oc = in[3];
  if (spatial_out(c, &w, in, w.ksize[h], w.ksize[wd], &oh, &ow)) return -1;
  if (depth_pool &&
      tfs_window_output_dim(in[3], w.ksize[cd], 1, w.strides[cd],
                            w.padding == TFS_PADDING_SAME ? w.padding
                                                          : TFS_PADDING_VALID,
                            0, 0, &oc, c->st))
    return -1;
  set_nhwc(&c->out_shapes[0], w.nchw, in[0], oh, ow, oc);
  return 0;
}

static int pool_shape(tfs_shape_ctx *c, const char *op, int depth_pool) {
  tfs_window w;
  if (tfs_window_parse(c->attrs, TFS_WINDOW_POOL, op, &w, c->st))
    return -1;
  return pool_shape_window(c, &w, depth_pool);
}

/* MaxPoolWithArgmax: MaxPool's shape, positive window sizes, and the
 * argmax of the same shape. */
static int max_pool_argmax_shape(tfs_shape_ctx *c) {
  tfs_window w;
  if (tfs_window_parse(c->attrs, TFS_WINDOW_POOL, "MaxPool", &w, c->st))
    return -1;
  for (int i = 0; i < 4; i++)
    if (w.ksize[i] <= 0)
      return tfs_sc_error(c, "ksize must be a positive int32 value, got:%lld",
                          (long long)w.ksize[i]);
  if (pool_shape_window(c, &w, 1)) return -1;
  c->out_shapes[1] = c->out_shapes[0];
  return 0;
}

/* MaxPoolV2: ksize and strides are 4-vectors; the output is known when
 * both are constants. */
static int max_pool_v2_shape(tfs_shape_ctx *c) {
  for (int i = 1; i <= 2; i++) {
    const tfs_shape *s = &c->in_shapes[i];
    if (tfs_sc_with_rank(c, i, 1)) return -1;
    if (s->rank == 1 && s->dims[0] >= 0 && s->dims[0] != 4)
      return tfs_sc_error(c, "Dimension must be 4 but is %lld",
                          (long long)s->dims[0]);
  }
  const tfs_tensor *k = tfs_sc_const(c, 1), *st = tfs_sc_const(c, 2);
  if (!k || !st || k->nelems != 4 || st->nelems != 4) {
    c->out_shapes[0].rank = -1;
    return 0;
  }
  tfs_window w;
  memset(&w, 0, sizeof w);
  size_t len;
  const char *fmt = tfs_attrs_get_string(c->attrs, "data_format", &len);
  const char *pad = tfs_attrs_get_string(c->attrs, "padding", &len);
  w.nchw = fmt && strncmp(fmt, "NCHW", 4) == 0;
  w.vect_c = fmt && strcmp(fmt, "NCHW_VECT_C") == 0;
  w.padding = pad && strcmp(pad, "SAME") == 0 ? TFS_PADDING_SAME
                                               : TFS_PADDING_VALID;
  for (int i = 0; i < 4; i++) {
    w.ksize[i] = tfs_tensor__get_as_int64(k, i);
    w.strides[i] = tfs_tensor__get_as_int64(st, i);
    w.dilations[i] = 1;
    if (w.strides[i] <= 0)
      return tfs_sc_error(c, "Stride must be > 0, but got %lld",
                          (long long)w.strides[i]);
  }
  return pool_shape_window(c, &w, 1);
}

static int max_pool_shape(tfs_shape_ctx *c) {
  return pool_shape(c, "MaxPool", 1);
}
static int avg_pool_shape(tfs_shape_ctx *c) {
  return pool_shape(c, "AvgPool", 0);
}

/* FusedBatchNorm / V3: x of rank 4 (5 for NDHWC/NCDHW); scale, offset and
 * (in inference or with an averaging factor) mean and variance of [C]. */
static int batch_norm_shape(tfs_shape_ctx *c) {
  size_t len;
  const char *fmt = tfs_attrs_get_string(c->attrs, "data_format", &len);
  int training = 1;
  float factor = 1.0f;
  tfs_attrs_get_bool(c->attrs, "is_training", &training);
  tfs_attrs_get_float(c->attrs, "exponential_avg_factor", &factor);
  int rank5 = fmt && (strcmp(fmt, "NDHWC") == 0 || strcmp(fmt, "NCDHW") == 0);
  int cfirst = fmt && (strcmp(fmt, "NCHW") == 0 || strcmp(fmt, "NCDHW") == 0);
  int rank = rank5 ? 5 : 4;
  if (tfs_sc_with_rank(c, 0, rank)) return -1;
  int nvec = !training || factor != 1.0f ? 5 : 3;
  for (int i = 1; i < nvec; i++)
    if (tfs_sc_with_rank(c, i, 1)) return -1;
  tfs_shape y = c->in_shapes[0];
  if (y.rank < 0) tfs_shape_unknown_dims(&y, rank);
  int cdim = cfirst ? 1 : rank - 1;
  int64_t ch = y.dims[cdim];
  for (int i = 1; i < nvec; i++) {
    const tfs_shape *v = &c->in_shapes[i];
    if (tfs_sc_merge_dim(c, ch, v->rank == 1 ? v->dims[0] : -1, &ch))
      return -1;
  }
  y.dims[cdim] = ch;
  c->out_shapes[0] = y;
  for (int i = 1; i < 5 && i < c->noutputs; i++)
    tfs_shape_1d(&c->out_shapes[i], ch);
  if (c->noutputs > 5) c->out_shapes[5].rank = -1;
  return 0;
}

static int rank4_unchanged(tfs_shape_ctx *c) {
  if (tfs_sc_with_rank(c, 0, 4)) return -1;
  c->out_shapes[0] = c->in_shapes[0];
  if (c->out_shapes[0].rank < 0) tfs_shape_unknown_dims(&c->out_shapes[0], 4);
  return 0;
}

static int xent_shape(tfs_shape_ctx *c) {
  const tfs_shape *f = &c->in_shapes[0], *l = &c->in_shapes[1];
  tfs_shape in, out;
  if (f->rank < 0)
    tfs_shape_unknown_dims(&in, 2);
  else
    in = *f;
  if (in.rank == 2 && tfs_shape_merge(&in, l, &out) == 0) {
    tfs_shape_1d(&c->out_shapes[0], out.dims[0]);
    c->out_shapes[1] = out;
    return 0;
  }
  if (tfs_shape_fn_broadcast(c)) return -1;
  out = c->out_shapes[0];
  if (out.rank < 0)
    return tfs_sc_error(c, "Shape must be broadcasted with rank 2, but is "
                        "rank is unknown.");
  if (out.rank != 2)
    return tfs_sc_error(c, "Shape must be broadcasted with rank 2, but is "
                        "rank %d", out.rank);
  tfs_shape_1d(&c->out_shapes[0], out.dims[0]);
  c->out_shapes[1] = out;
  return 0;
}

/* SparseSoftmaxCrossEntropyWithLogits and InTopKV2: a [batch, classes]
 * matrix and a [batch] vector. */
static int batch_rows(tfs_shape_ctx *c, int64_t *batch, int64_t *classes) {
  if (tfs_sc_with_rank(c, 0, 2) || tfs_sc_with_rank(c, 1, 1)) return -1;
  const tfs_shape *f = &c->in_shapes[0], *l = &c->in_shapes[1];
  *classes = f->rank == 2 ? f->dims[1] : -1;
  return tfs_sc_merge_dim(c, f->rank == 2 ? f->dims[0] : -1,
                          l->rank == 1 ? l->dims[0] : -1, batch);
}

static int sparse_xent_shape(tfs_shape_ctx *c) {
  int64_t b, k;
  if (batch_rows(c, &b, &k)) return -1;
  tfs_shape_1d(&c->out_shapes[0], b);
  tfs_shape_2d(&c->out_shapes[1], b, k);
  return 0;
}

static int in_top_k_shape(tfs_shape_ctx *c) {
  int64_t b, k;
  if (batch_rows(c, &b, &k)) return -1;
  tfs_shape_1d(&c->out_shapes[0], b);
  return 0;
}

#define FLOATS "{half, bfloat16, float, double}"
#define WINDOW_ATTRS                                                        \
  "strides: list(int); padding: {'SAME', 'VALID', 'EXPLICIT'}; "            \
  "explicit_paddings: list(int) = []; data_format: {'NHWC', 'NCHW'} = "     \
  "'NHWC'; dilations: list(int) = [1, 1, 1, 1]"
#define BN_OUTS                                                             \
  "y: T; batch_mean: U; batch_variance: U; reserve_space_1: U; "            \
  "reserve_space_2: U"
#define BN_ATTRS                                                            \
  "epsilon: float = 9.999999747378752e-05; exponential_avg_factor: float "  \
  "= 1.0"

const tfs_op_spec tfs_ops_nn[] = {
    {"Relu", "features: T", "activations: T",
     "T: {float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, "
     "half, uint32, uint64, qint8}",
     tfs_shape_fn_unchanged, TFS_OP_ELEMENTWISE},
    {"Relu6", "features: T", "activations: T",
     "T: {float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, "
     "half, uint32, uint64}",
     tfs_shape_fn_unchanged, TFS_OP_ELEMENTWISE},
    {"Elu", "features: T", "activations: T", "T: " FLOATS,
     tfs_shape_fn_unchanged, TFS_OP_ELEMENTWISE},
    {"Selu", "features: T", "activations: T", "T: " FLOATS,
     tfs_shape_fn_unchanged, TFS_OP_ELEMENTWISE},
    {"LeakyRelu", "features: T", "activations: T",
     "alpha: float = 0.20000000298023224; T: " FLOATS " = float",
     tfs_shape_fn_unchanged, TFS_OP_ELEMENTWISE},
    {"Softplus", "features: T", "activations: T", "T: " FLOATS,
     tfs_shape_fn_unchanged, TFS_OP_ELEMENTWISE},
    {"Softsign", "features: T", "activations: T", "T: " FLOATS,
     tfs_shape_fn_unchanged, TFS_OP_ELEMENTWISE},
    {"BiasAdd", "value: T; bias: T", "output: T",
     "T: {float, double, int32, uint8, int16, int8, complex64, int64, qint8, "
     "quint8, qint32, bfloat16, qint16, quint16, uint16, complex128, half, "
     "uint32, uint64}; data_format: {'NHWC', 'NCHW'} = 'NHWC'",
     bias_add_shape, 0},
    {"BiasAddV1", "value: T; bias: T", "output: T",
     "T: {float, double, int32, uint8, int16, int8, complex64, int64, qint8, "
     "quint8, qint32, bfloat16, qint16, quint16, uint16, complex128, half, "
     "uint32, uint64}",
     bias_add_shape, 0},
    {"Softmax", "logits: T", "softmax: T", "T: " FLOATS, softmax_shape, 0},
    {"LogSoftmax", "logits: T", "logsoftmax: T", "T: " FLOATS, softmax_shape,
     0},
    {"Conv2D", "input: T; filter: T", "output: T",
     "T: {half, bfloat16, float, double, int32}; strides: list(int); "
     "use_cudnn_on_gpu: bool = true; padding: {'SAME', 'VALID', 'EXPLICIT'}; "
     "explicit_paddings: list(int) = []; data_format: {'NHWC', 'NCHW'} = "
     "'NHWC'; dilations: list(int) = [1, 1, 1, 1]",
     conv2d_shape, 0},
    {"DepthwiseConv2dNative", "input: T; filter: T", "output: T",
     "T: " FLOATS "; " WINDOW_ATTRS, depthwise_shape, 0},
    {"Conv2DBackpropInput", "input_sizes: int32; filter: T; out_backprop: T",
     "output: T",
     "T: {half, bfloat16, float, double, int32}; strides: list(int); "
     "use_cudnn_on_gpu: bool = true; padding: {'SAME', 'VALID', 'EXPLICIT'}; "
     "explicit_paddings: list(int) = []; data_format: {'NHWC', 'NCHW'} = "
     "'NHWC'; dilations: list(int) = [1, 1, 1, 1]",
     backprop_input_shape, 0},
    {"MaxPool", "input: T", "output: T",
     "T: {half, bfloat16, float, double, int32, int64, uint8, int16, int8, "
     "uint16, qint8} = float; ksize: list(int) >= 4; strides: list(int) >= 4; "
     "padding: {'SAME', 'VALID', 'EXPLICIT'}; explicit_paddings: list(int) = "
     "[]; data_format: {'NHWC', 'NCHW', 'NCHW_VECT_C'} = 'NHWC'",
     max_pool_shape, 0},
    {"MaxPoolV2", "input: T; ksize: int32; strides: int32", "output: T",
     "T: {half, bfloat16, float, double, int32, int64, uint8, int16, int8, "
     "uint16, qint8} = float; padding: {'SAME', 'VALID'}; data_format: "
     "{'NHWC', 'NCHW', 'NCHW_VECT_C'} = 'NHWC'",
     max_pool_v2_shape, 0},
    {"MaxPoolWithArgmax", "input: T", "output: T; argmax: Targmax",
     "ksize: list(int) >= 4; strides: list(int) >= 4; Targmax: {int32, "
     "int64} = int64; padding: {'SAME', 'VALID'}; include_batch_in_index: "
     "bool = false; T: {float, double, int32, uint8, int16, int8, int64, "
     "bfloat16, uint16, half, uint32, uint64}",
     max_pool_argmax_shape, 0},
    {"AvgPool", "value: T", "output: T",
     "ksize: list(int) >= 4; strides: list(int) >= 4; padding: {'SAME', "
     "'VALID'}; data_format: {'NHWC', 'NCHW'} = 'NHWC'; T: " FLOATS,
     avg_pool_shape, 0},
    {"FusedBatchNorm", "x: T; scale: T; offset: T; mean: T; variance: T",
     "y: T; batch_mean: T; batch_variance: T; reserve_space_1: T; "
     "reserve_space_2: T",
     "T: {float}; " BN_ATTRS "; data_format: {'NHWC', 'NCHW'} = 'NHWC'; "
     "is_training: bool = true",
     batch_norm_shape, 0},
    {"FusedBatchNormV2", "x: T; scale: U; offset: U; mean: U; variance: U",
     BN_OUTS,
     "T: {half, bfloat16, float}; U: {float}; " BN_ATTRS
     "; data_format: {'NHWC', 'NCHW'} = 'NHWC'; is_training: bool = true",
     batch_norm_shape, 0},
    {"FusedBatchNormV3", "x: T; scale: U; offset: U; mean: U; variance: U",
     BN_OUTS "; reserve_space_3: U",
     "T: {half, bfloat16, float}; U: {bfloat16, float}; " BN_ATTRS
     "; data_format: {'NHWC', 'NCHW', 'NDHWC', 'NCDHW'} = 'NHWC'; "
     "is_training: bool = true",
     batch_norm_shape, 0},
    {"LRN", "input: T", "output: T",
     "depth_radius: int = 5; bias: float = 1.0; alpha: float = 1.0; beta: "
     "float = 0.5; T: {half, bfloat16, float} = float",
     rank4_unchanged, 0},
    {"L2Loss", "t: T", "output: T", "T: " FLOATS, tfs_shape_fn_scalar, 0},
    {"SoftmaxCrossEntropyWithLogits", "features: T; labels: T",
     "loss: T; backprop: T", "T: " FLOATS, xent_shape, 0},
    {"SparseSoftmaxCrossEntropyWithLogits", "features: T; labels: Tlabels",
     "loss: T; backprop: T",
     "T: " FLOATS "; Tlabels: {int32, int64} = int64", sparse_xent_shape, 0},
    {"InTopKV2", "predictions: float; targets: T; k: T", "precision: bool",
     "T: {int32, int64} = int32", in_top_k_shape, 0},
    {NULL, NULL, NULL, NULL, NULL, 0},
};
