/*
 * gradients/grad_nn.c - gradients of the neural-network ops
 * (cc/gradients/nn_grad.cc, python/ops/nn_grad.py): activations, softmax
 * and the losses, BiasAdd, convolutions, pooling, batch norm, LRN and
 * resizing.  Most emit TensorFlow's own backprop kernels (ReluGrad,
 * Conv2DBackpropFilter, MaxPoolGrad, FusedBatchNormGradV3, ...) with the
 * forward op's attrs.
 */
#include <string.h>

#include "core/status.h"
#include "gradients/grad_internal.h"

#define IN(k) tfs_gb_in(op, (k))
#define OUT(k) tfs_gb_out(op, (k))
#define MUL(a, b) tfs_gb_binary(c, "Mul", (a), (b))
#define SUB(a, b) tfs_gb_binary(c, "Sub", (a), (b))
#define UN(t, a) tfs_gb_unary(c, (t), (a))

/* Copies the listed attrs (NULL-terminated) of op onto d. */
static void copy_attrs(tfs_op_desc *d, const tfs_operation *op,
                       const char *const *names) {
  for (; *names; names++) tfs_op_desc__copy_attr(d, op, *names);
}

static tfs_output build(tfs_gctx *c, const char *type, const tfs_output *in,
                        int n, const tfs_operation *op,
                        const char *const *attrs) {
  tfs_op_desc *d = tfs_gb_desc(c, type);
  for (int i = 0; i < n; i++) tfs_op_desc_add_input(d, in[i]);
  if (attrs) copy_attrs(d, op, attrs);
  return tfs_gb_out(tfs_gb_finish(c, d), 0);
}

/* ---- activations --------------------------------------------------------- */

/* <Op>Grad(g, features) */
static void act_x(tfs_gctx *c, tfs_operation *op, const tfs_output *dy,
                  tfs_output *dx, const char *type) {
  static const char *const alpha[] = {"alpha", NULL};
  tfs_output in[2] = {dy[0], IN(0)};
  dx[0] = build(c, type, in, 2, op, alpha);
}

/* <Op>Grad(g, outputs) */
static void act_y(tfs_gctx *c, tfs_operation *op, const tfs_output *dy,
                  tfs_output *dx, const char *type) {
  tfs_output in[2] = {dy[0], OUT(0)};
  dx[0] = build(c, type, in, 2, op, NULL);
}

#define ACT(fn, how, type)                                                  \
  static void fn(tfs_gctx *c, tfs_operation *op, const tfs_output *dy,     \
                 tfs_output *dx) {                                          \
    how(c, op, dy, dx, type);                                               \
  }
ACT(g_relu, act_x, "ReluGrad")
ACT(g_relu6, act_x, "Relu6Grad")
ACT(g_leaky_relu, act_x, "LeakyReluGrad")
ACT(g_softplus, act_x, "SoftplusGrad")
ACT(g_softsign, act_x, "SoftsignGrad")
ACT(g_elu, act_y, "EluGrad")
ACT(g_selu, act_y, "SeluGrad")

/* LeakyReluGrad(g, x): d/dg = LeakyReluGrad(gg, x); x gets none. */
static void g_leaky_relu_grad(tfs_gctx *c, tfs_operation *op,
                              const tfs_output *dy, tfs_output *dx) {
  static const char *const alpha[] = {"alpha", NULL};
  tfs_output in[2] = {dy[0], IN(1)};
  dx[0] = build(c, "LeakyReluGrad", in, 2, op, alpha);
}

/* ---- softmax and losses ------------------------------------------------ */

static tfs_output last_axis_sum(tfs_gctx *c, tfs_output x) {
  return tfs_gb_sum(c, x, tfs_gb_i32(c, -1), 1);
}

static void g_softmax(tfs_gctx *c, tfs_operation *op, const tfs_output *dy,
                      tfs_output *dx) {
  tfs_output y = OUT(0);
  tfs_output s = last_axis_sum(c, MUL(dy[0], y));
  dx[0] = MUL(SUB(dy[0], s), y);
}

static void g_log_softmax(tfs_gctx *c, tfs_operation *op, const tfs_output *dy,
                          tfs_output *dx) {
  tfs_output s = last_axis_sum(c, dy[0]);
  dx[0] = SUB(dy[0], MUL(UN("Exp", OUT(0)), s));
}

/* True when g is the ZerosLike the builder put in for a missing
 * gradient, as TensorFlow's IsZero checks. */
static int is_zeros(tfs_output g) {
  return g.oper && !strcmp(g.oper->def->name, "ZerosLike");
}

static tfs_output expand_last(tfs_gctx *c, tfs_output g) {
  return tfs_gb_binary(c, "ExpandDims", g, tfs_gb_i32(c, -1));
}

/* outputs (loss, backprop); inputs (logits, labels) */
static void g_softmax_xent(tfs_gctx *c, tfs_operation *op,
                           const tfs_output *dy, tfs_output *dx) {
  tfs_output gl = expand_last(c, dy[0]);
  tfs_output dlogits = MUL(gl, OUT(1));
  if (!is_zeros(dy[1])) {
    /* second order: through the backprop output, softmax - labels */
    tfs_output sm = UN("Softmax", IN(0));
    tfs_output gg = dy[1];
    tfs_output dot = last_axis_sum(c, MUL(gg, sm));
    dlogits = tfs_gb_binary(c, "AddV2", dlogits, MUL(SUB(gg, dot), sm));
  }
  dx[0] = dlogits;
  dx[1] = MUL(gl, UN("Neg", UN("LogSoftmax", IN(0))));
}

static void g_sparse_softmax_xent(tfs_gctx *c, tfs_operation *op,
                                  const tfs_output *dy, tfs_output *dx) {
  tfs_output dlogits = MUL(expand_last(c, dy[0]), OUT(1));
  if (!is_zeros(dy[1])) {
    tfs_output sm = UN("Softmax", IN(0));
    tfs_output dot = last_axis_sum(c, MUL(dy[1], sm));
    dlogits = tfs_gb_binary(c, "AddV2", dlogits, MUL(SUB(dy[1], dot), sm));
  }
  dx[0] = dlogits;
}

static void g_l2_loss(tfs_gctx *c, tfs_operation *op, const tfs_output *dy,
                      tfs_output *dx) {
  dx[0] = MUL(IN(0), dy[0]);
}

static void g_bias_add(tfs_gctx *c, tfs_operation *op, const tfs_output *dy,
                       tfs_output *dx) {
  static const char *const fmt[] = {"data_format", NULL};
  dx[0] = dy[0];
  dx[1] = build(c, "BiasAddGrad", dy, 1, op, fmt);
}

/* ---- convolutions -------------------------------------------------------- */

static const char *const k_conv_attrs[] = {
    "strides",   "padding",     "explicit_paddings", "dilations",
    "data_format", "use_cudnn_on_gpu", NULL};

static void g_conv2d(tfs_gctx *c, tfs_operation *op, const tfs_output *dy,
                     tfs_output *dx) {
  tfs_output bi[3] = {tfs_gb_shape(c, IN(0)), IN(1), dy[0]};
  dx[0] = build(c, "Conv2DBackpropInput", bi, 3, op, k_conv_attrs);
  tfs_output bf[3] = {IN(0), tfs_gb_shape(c, IN(1)), dy[0]};
  dx[1] = build(c, "Conv2DBackpropFilter", bf, 3, op, k_conv_attrs);
}

/* Conv2DBackpropInput(input_sizes, filter, out_backprop) */
static void g_conv2d_backprop_input(tfs_gctx *c, tfs_operation *op,
                                    const tfs_output *dy, tfs_output *dx) {
  tfs_output bf[3] = {dy[0], tfs_gb_shape(c, IN(1)), IN(2)};
  dx[1] = build(c, "Conv2DBackpropFilter", bf, 3, op, k_conv_attrs);
  tfs_output fw[2] = {dy[0], IN(1)};
  dx[2] = build(c, "Conv2D", fw, 2, op, k_conv_attrs);
}

static void g_depthwise(tfs_gctx *c, tfs_operation *op, const tfs_output *dy,
                        tfs_output *dx) {
  tfs_output bi[3] = {tfs_gb_shape(c, IN(0)), IN(1), dy[0]};
  dx[0] = build(c, "DepthwiseConv2dNativeBackpropInput", bi, 3, op,
                k_conv_attrs);
  tfs_output bf[3] = {IN(0), tfs_gb_shape(c, IN(1)), dy[0]};
  dx[1] = build(c, "DepthwiseConv2dNativeBackpropFilter", bf, 3, op,
                k_conv_attrs);
}

/* ---- pooling ----------------------------------------------------------- */

static const char *const k_pool_attrs[] = {
    "ksize", "strides", "padding", "explicit_paddings", "data_format", NULL};

static void g_max_pool(tfs_gctx *c, tfs_operation *op, const tfs_output *dy,
                       tfs_output *dx) {
  tfs_output in[3] = {IN(0), OUT(0), dy[0]};
  dx[0] = build(c, "MaxPoolGrad", in, 3, op, k_pool_attrs);
}

static void g_max_pool_v2(tfs_gctx *c, tfs_operation *op,
                          const tfs_output *dy, tfs_output *dx) {
  tfs_output in[5] = {IN(0), OUT(0), dy[0], IN(1), IN(2)};
  dx[0] = build(c, "MaxPoolGradV2", in, 5, op, k_pool_attrs);
}

static void g_avg_pool(tfs_gctx *c, tfs_operation *op, const tfs_output *dy,
                       tfs_output *dx) {
  tfs_output in[2] = {tfs_gb_shape(c, IN(0)), dy[0]};
  dx[0] = build(c, "AvgPoolGrad", in, 2, op, k_pool_attrs);
}

static void g_lrn(tfs_gctx *c, tfs_operation *op, const tfs_output *dy,
                  tfs_output *dx) {
  static const char *const attrs[] = {"depth_radius", "bias", "alpha", "beta",
                                      NULL};
  tfs_output in[3] = {dy[0], IN(0), OUT(0)};
  dx[0] = build(c, "LRNGrad", in, 3, op, attrs);
}

/* ---- batch norm ---------------------------------------------------------- */

/* FusedBatchNorm, V2, V3: (x, scale, offset, mean, variance); the grads of
 * x, scale and offset from FusedBatchNormGrad*.  Training passes the
 * forward op's saved batch statistics (outputs 3, 4 and, for V3, 5);
 * inference the population mean and variance (inputs 3 and 4), in NHWC
 * (the CPU kernels refuse channels-first inference, so an NCHW graph is
 * transposed around the call), as python/ops/nn_grad.py does. */
static void g_fused_bn(tfs_gctx *c, tfs_operation *op, const tfs_output *dy,
                       tfs_output *dx) {
  static const char *const attrs[] = {"epsilon", "is_training", NULL};
  const char *fwd = op->def->name;
  int v3 = !strcmp(fwd, "FusedBatchNormV3");
  const char *type = v3                                   ? "FusedBatchNormGradV3"
                     : !strcmp(fwd, "FusedBatchNormV2") ? "FusedBatchNormGradV2"
                                                          : "FusedBatchNormGrad";
  int training = 1;
  tfs_attrs_get_bool(&op->attrs, "is_training", &training);
  size_t len = 0;
  const char *fmt = tfs_attrs_get_string(&op->attrs, "data_format", &len);
  int nchw = !training && fmt && !strcmp(fmt, "NCHW");
  tfs_output g = dy[0], x = IN(0);
  if (nchw) {
    int32_t to_nhwc[4] = {0, 2, 3, 1};
    g = tfs_gb_transpose(c, g, tfs_gb_i32_vec(c, to_nhwc, 4));
    x = tfs_gb_transpose(c, x, tfs_gb_i32_vec(c, to_nhwc, 4));
  }
  tfs_output in[6] = {g, x, IN(1), training ? OUT(3) : IN(3),
                      training ? OUT(4) : IN(4), OUT(5)};
  tfs_op_desc *d = tfs_gb_desc(c, type);
  for (int i = 0; i < (v3 ? 6 : 5); i++) tfs_op_desc_add_input(d, in[i]);
  copy_attrs(d, op, attrs);
  if (nchw)
    tfs_op_desc_set_attr_string(d, "data_format", "NHWC", 4);
  else
    tfs_op_desc__copy_attr(d, op, "data_format");
  tfs_operation *bg = tfs_gb_finish(c, d);
  for (int i = 0; i < 3; i++) dx[i] = tfs_gb_out(bg, i);
  if (nchw) {
    int32_t to_nchw[4] = {0, 3, 1, 2};
    dx[0] = tfs_gb_transpose(c, dx[0], tfs_gb_i32_vec(c, to_nchw, 4));
  }
}

/* ---- resizing ------------------------------------------------------------ */

static void g_resize_bilinear(tfs_gctx *c, tfs_operation *op,
                              const tfs_output *dy, tfs_output *dx) {
  static const char *const attrs[] = {"align_corners", "half_pixel_centers",
                                      NULL};
  tfs_output in[2] = {dy[0], IN(0)};
  dx[0] = build(c, "ResizeBilinearGrad", in, 2, op, attrs);
}

static void g_resize_nearest(tfs_gctx *c, tfs_operation *op,
                             const tfs_output *dy, tfs_output *dx) {
  static const char *const attrs[] = {"align_corners", "half_pixel_centers",
                                      NULL};
  int32_t b = 1, n = 2;
  tfs_op_desc *d = tfs_gb_desc(c, "Slice");
  tfs_op_desc_add_input(d, tfs_gb_shape(c, IN(0)));
  tfs_op_desc_add_input(d, tfs_gb_i32_vec(c, &b, 1));
  tfs_op_desc_add_input(d, tfs_gb_i32_vec(c, &n, 1));
  tfs_output hw = tfs_gb_out(tfs_gb_finish(c, d), 0);
  tfs_output in[2] = {dy[0], hw};
  dx[0] = build(c, "ResizeNearestNeighborGrad", in, 2, op, attrs);
}

static const tfs_grad_entry k_nn[] = {
    {"AvgPool", g_avg_pool},
    {"BiasAdd", g_bias_add},
    {"BiasAddV1", g_bias_add},
    {"Conv2D", g_conv2d},
    {"Conv2DBackpropInput", g_conv2d_backprop_input},
    {"DepthwiseConv2dNative", g_depthwise},
    {"Elu", g_elu},
    {"FusedBatchNorm", g_fused_bn},
    {"FusedBatchNormV2", g_fused_bn},
    {"FusedBatchNormV3", g_fused_bn},
    {"L2Loss", g_l2_loss},
    {"LRN", g_lrn},
    {"LeakyRelu", g_leaky_relu},
    {"LeakyReluGrad", g_leaky_relu_grad},
    {"LogSoftmax", g_log_softmax},
    {"MaxPool", g_max_pool},
    {"MaxPoolV2", g_max_pool_v2},
    {"Relu", g_relu},
    {"Relu6", g_relu6},
    {"ResizeBilinear", g_resize_bilinear},
    {"ResizeNearestNeighbor", g_resize_nearest},
    {"Selu", g_selu},
    {"Softmax", g_softmax},
    {"SoftmaxCrossEntropyWithLogits", g_softmax_xent},
    {"Softplus", g_softplus},
    {"Softsign", g_softsign},
    {"SparseSoftmaxCrossEntropyWithLogits", g_sparse_softmax_xent},
};

const tfs_grad_entry *tfs_grad__nn_table(int *n) {
  *n = (int)(sizeof k_nn / sizeof k_nn[0]);
  return k_nn;
}
