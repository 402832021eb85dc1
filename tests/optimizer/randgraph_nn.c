/*
 * tests/optimizer/randgraph_nn.c - random graph templates for neural
 * network layers and for the patterns the optimizer rewrites: MatMul /
 * Conv2D / DepthwiseConv2dNative with BiasAdd or inference batch norm and
 * activations, scales next to contractions, pooling, x*Sigmoid(x),
 * BatchMatMulV2 * scalar, attention's head Transposes around
 * BatchMatMulV2, sums of identical inputs, common factors,
 * neutral elements, and what Keras 3 writes: batch norms as a constant
 * scale and shift after a contraction, Pow, swish and GELU subgraphs.
 */
#include "randgraph.h"

#include <stdlib.h>
#include <string.h>

static int keep(rg_graph *r, tfs_output o, tfs_status *st) {
  if (!o.oper) {
    tfs_status_clear(st);
    return 0;
  }
  rg_add_value(r, o);
  return 1;
}

static tfs_output bias_or_bn(rg_graph *r, tfs_output y, int64_t ch,
                             int allow_bn, tfs_status *st) {
  int64_t d[1] = {ch};
  if (!allow_bn || rg_unit(r) < 0.5)
    return tfs_op_bias_add(r->g, NULL, y,
                           rg_const(r, TFS_FLOAT, d, 1, -1, 1, st), st);
  tfs_op_desc *bn = tfs_op_desc_new(r->g, "FusedBatchNormV3", NULL);
  tfs_op_desc_add_input(bn, y);
  tfs_op_desc_add_input(bn, rg_const(r, TFS_FLOAT, d, 1, 0.5, 1.5, st));
  tfs_op_desc_add_input(bn, rg_const(r, TFS_FLOAT, d, 1, -1, 1, st));
  tfs_op_desc_add_input(bn, rg_const(r, TFS_FLOAT, d, 1, -1, 1, st));
  tfs_op_desc_add_input(bn, rg_const(r, TFS_FLOAT, d, 1, 0.5, 2, st));
  tfs_op_desc_set_attr_bool(bn, "is_training", 0);
  tfs_op_desc_set_attr_float(bn, "epsilon", 0.001f);
  tfs_operation *op = tfs_op_desc_finish(bn, st);
  return (tfs_output){op, op ? 0 : -1};
}

/* MatMul [+ BiasAdd] [+ act] [* scale]. */
static int t_matmul(rg_graph *r, tfs_status *st) {
  int i = rg_pick(r, TFS_FLOAT, 2, 2);
  if (i < 0) return 0;
  rg_value x = r->values[i];
  int64_t k = x.dims[1], n = rg_int(r, 1, 5);
  int tb = rg_unit(r) < 0.3;
  int64_t wd[2] = {tb ? n : k, tb ? k : n};
  tfs_output w = rg_const(r, TFS_FLOAT, wd, 2, -1, 1, st);
  tfs_output y = tfs_op_matmul(r->g, NULL, x.o, w, 0, tb, st);
  if (y.oper && rg_unit(r) < 0.3) { /* scale folded into the weights */
    int64_t sd[1] = {n};
    tfs_output s =
        rg_const(r, TFS_FLOAT, sd, rg_unit(r) < 0.5 ? 0 : 1, 0.5, 2, st);
    y = tfs_op_mul(r->g, NULL, y, s, st);
  }
  if (y.oper && rg_unit(r) < 0.75) y = bias_or_bn(r, y, n, 0, st);
  if (y.oper && rg_unit(r) < 0.6) y = rg_act(r, y, st);
  return keep(r, y, st);
}

/* Conv2D or DepthwiseConv2dNative [+ BiasAdd | batch norm] [+ act]. */
static int t_conv(rg_graph *r, int depthwise, tfs_status *st) {
  int i = rg_pick(r, TFS_FLOAT, 4, 4);
  if (i < 0) return 0;
  rg_value x = r->values[i];
  int64_t c = x.dims[3], kh = rg_int(r, 1, 3), kw = rg_int(r, 1, 3);
  int64_t mult = depthwise ? rg_int(r, 1, 2) : rg_int(r, 1, 4);
  int64_t fd[4] = {kh, kw, c, mult};
  tfs_output f = rg_const(r, TFS_FLOAT, fd, 4, -1, 1, st);
  tfs_output in = x.o;
  if (rg_unit(r) < 0.2) /* a scalar scale on the input */
    in = tfs_op_mul(r->g, NULL, in, rg_const(r, TFS_FLOAT, NULL, 0, 0.5, 2, st),
                    st);
  int64_t s = rg_int(r, 1, 2);
  int64_t strides[4] = {1, s, s, 1};
  int valid = rg_unit(r) < 0.3 && x.dims[1] >= kh && x.dims[2] >= kw;
  tfs_op_desc *d = tfs_op_desc_new(
      r->g, depthwise ? "DepthwiseConv2dNative" : "Conv2D", NULL);
  tfs_op_desc_add_input(d, in);
  tfs_op_desc_add_input(d, f);
  tfs_op_desc_set_attr_int_list(d, "strides", strides, 4);
  tfs_op_desc_set_attr_string(d, "padding", valid ? "VALID" : "SAME",
                              valid ? 5 : 4);
  tfs_operation *op = tfs_op_desc_finish(d, st);
  if (!op) {
    tfs_status_clear(st);
    return 0;
  }
  tfs_output y = {op, 0};
  int64_t ch = depthwise ? c * mult : mult;
  if (rg_unit(r) < 0.8) y = bias_or_bn(r, y, ch, 1, st);
  if (y.oper && rg_unit(r) < 0.6) y = rg_act(r, y, st);
  return keep(r, y, st);
}

static int t_pool(rg_graph *r, tfs_status *st) {
  int i = rg_pick(r, TFS_FLOAT, 4, 4);
  if (i < 0) return 0;
  int64_t k[4] = {1, 2, 2, 1};
  tfs_op_desc *d =
      tfs_op_desc_new(r->g, rg_unit(r) < 0.5 ? "MaxPool" : "AvgPool", NULL);
  tfs_op_desc_add_input(d, r->values[i].o);
  tfs_op_desc_set_attr_int_list(d, "ksize", k, 4);
  tfs_op_desc_set_attr_int_list(d, "strides", k, 4);
  tfs_op_desc_set_attr_string(d, "padding", "SAME", 4);
  tfs_operation *op = tfs_op_desc_finish(d, st);
  return keep(r, (tfs_output){op, op ? 0 : -1}, st);
}

/* A batch norm not after a convolution (decomposed into Mul + Add). */
static int t_batch_norm(rg_graph *r, tfs_status *st) {
  int i = rg_pick(r, TFS_FLOAT, 4, 4);
  if (i < 0) return 0;
  tfs_output y = bias_or_bn(r, tfs_op_identity(r->g, NULL, r->values[i].o, st),
                            r->values[i].dims[3], 1, st);
  return keep(r, y, st);
}

static int t_swish(rg_graph *r, tfs_status *st) {
  int i = rg_pick(r, TFS_FLOAT, 0, 4);
  if (i < 0) return 0;
  tfs_output x = r->values[i].o;
  tfs_output s = tfs_op_unary(r->g, "Sigmoid", NULL, x, st);
  return keep(r,
              rg_unit(r) < 0.5 ? tfs_op_mul(r->g, NULL, x, s, st)
                               : tfs_op_mul(r->g, NULL, s, x, st),
              st);
}

static int t_bmm_scale(rg_graph *r, tfs_status *st) {
  int i = rg_pick(r, TFS_FLOAT, 2, 3);
  if (i < 0) return 0;
  rg_value x = r->values[i];
  int64_t wd[2] = {x.dims[x.rank - 1], rg_int(r, 1, 4)};
  tfs_op_desc *d = tfs_op_desc_new(r->g, "BatchMatMulV2", NULL);
  tfs_op_desc_add_input(d, x.o);
  tfs_op_desc_add_input(d, rg_const(r, TFS_FLOAT, wd, 2, -1, 1, st));
  tfs_operation *op = tfs_op_desc_finish(d, st);
  if (!op) {
    tfs_status_clear(st);
    return 0;
  }
  tfs_output s = rg_const(r, TFS_FLOAT, NULL, 0, 0.1, 0.5, st);
  return keep(r, tfs_op_mul(r->g, NULL, (tfs_output){op, 0}, s, st), st);
}

static tfs_output transpose4(rg_graph *r, tfs_output x, const int32_t *perm,
                             tfs_status *st) {
  int64_t d[1] = {4};
  tfs_tensor *t = tfs_tensor_new(TFS_INT32, d, 1, st);
  if (!t) return (tfs_output){NULL, -1};
  memcpy(tfs_tensor_data(t), perm, sizeof(int32_t) * 4);
  tfs_output p = tfs_op_const(r->g, NULL, t, st);
  tfs_tensor_free(t);
  tfs_op_desc *o = tfs_op_desc_new(r->g, "Transpose", NULL);
  tfs_op_desc_add_input(o, x);
  tfs_op_desc_add_input(o, p);
  tfs_operation *op = tfs_op_desc_finish(o, st);
  return (tfs_output){op, op ? 0 : -1};
}

/* Attention's head transposes around BatchMatMulV2 (the remapper's
 * _TfsPermutedBatchMatMul): x [a, b, c, d] as [a, c, b, d] by a second
 * tensor of its shape as [a, c, d, b] (or [a, c, b, d] with adj_y), an
 * optional scale, the result joined back with [0, 2, 1, 3]. */
static int t_heads(rg_graph *r, tfs_status *st) {
  static const int32_t kHeads[4] = {0, 2, 1, 3}, kKeys[4] = {0, 2, 3, 1};
  int i = rg_pick(r, TFS_FLOAT, 4, 4);
  if (i < 0) return 0;
  rg_value x = r->values[i];
  tfs_output k = tfs_op_mul(
      r->g, NULL, x.o, rg_const(r, TFS_FLOAT, x.dims, 4, -1, 1, st), st);
  int adj = rg_unit(r) < 0.5;
  tfs_output xt = transpose4(r, x.o, kHeads, st);
  tfs_output kt = transpose4(r, k, adj ? kHeads : kKeys, st);
  tfs_op_desc *d = tfs_op_desc_new(r->g, "BatchMatMulV2", NULL);
  tfs_op_desc_add_input(d, xt);
  tfs_op_desc_add_input(d, kt);
  tfs_op_desc_set_attr_bool(d, "adj_y", adj);
  tfs_operation *op = tfs_op_desc_finish(d, st);
  if (!op) {
    tfs_status_clear(st);
    return 0;
  }
  tfs_output y = {op, 0};
  if (rg_unit(r) < 0.5)
    y = tfs_op_mul(r->g, NULL, y, rg_const(r, TFS_FLOAT, NULL, 0, 0.1, 0.5, st),
                   st);
  if (rg_unit(r) < 0.7) y = transpose4(r, y, kHeads, st);
  return keep(r, y, st);
}

/* Add(x, x), AddN(x, x, x). */
static int t_same_inputs(rg_graph *r, tfs_status *st) {
  int i = rg_pick(r, TFS_FLOAT, 0, 4);
  if (i < 0) return 0;
  tfs_output x = r->values[i].o;
  if (rg_unit(r) < 0.5) return keep(r, tfs_op_add(r->g, NULL, x, x, st), st);
  tfs_output xs[3] = {x, x, x};
  tfs_op_desc *d = tfs_op_desc_new(r->g, "AddN", NULL);
  tfs_op_desc_add_input_list(d, xs, rg_int(r, 2, 3));
  tfs_operation *op = tfs_op_desc_finish(d, st);
  return keep(r, (tfs_output){op, op ? 0 : -1}, st);
}

/* a*b + a*c, b/a - c/a. */
static int t_common_factor(rg_graph *r, tfs_status *st) {
  int i = rg_pick(r, TFS_FLOAT, 0, 4);
  if (i < 0) return 0;
  rg_value a = r->values[i];
  tfs_output b = rg_const(r, TFS_FLOAT, a.dims, a.rank, -1, 1, st);
  tfs_output c = rg_const(r, TFS_FLOAT, a.dims, a.rank, -1, 1, st);
  int div = rg_unit(r) < 0.3;
  tfs_output den = div ? rg_const(r, TFS_FLOAT, NULL, 0, 1, 2, st) : a.o;
  tfs_output p = div ? tfs_op_realdiv(r->g, NULL, a.o, den, st)
                     : tfs_op_mul(r->g, NULL, a.o, b, st);
  tfs_output q = div ? tfs_op_realdiv(r->g, NULL, b, den, st)
                     : tfs_op_mul(r->g, NULL, c, a.o, st);
  return keep(r,
              rg_unit(r) < 0.5 ? tfs_op_add(r->g, NULL, p, q, st)
                               : tfs_op_sub(r->g, NULL, p, q, st),
              st);
}

/* x*1, x+0, x-0, Neg(Neg(x)). */
static int t_neutral(rg_graph *r, tfs_status *st) {
  int i = rg_pick(r, TFS_FLOAT, 0, 4);
  if (i < 0) return 0;
  tfs_output x = r->values[i].o;
  switch (rg_int(r, 0, 3)) {
    case 0:
      return keep(r,
                  tfs_op_mul(r->g, NULL, x,
                             tfs_op_const_float(r->g, NULL, 1.0f, st), st),
                  st);
    case 1:
      return keep(r,
                  tfs_op_add(r->g, NULL,
                             tfs_op_const_float(r->g, NULL, 0.0f, st), x, st),
                  st);
    case 2:
      return keep(r,
                  tfs_op_sub(r->g, NULL, x,
                             tfs_op_const_float(r->g, NULL, 0.0f, st), st),
                  st);
    default:
      return keep(r,
                  tfs_op_unary(r->g, "Neg", NULL,
                               tfs_op_unary(r->g, "Neg", NULL, x, st), st),
                  st);
  }
}

/* A duplicate of a contraction with its consumers (CSE on bigger nodes). */
static int t_twin_matmul(rg_graph *r, tfs_status *st) {
  int i = rg_pick(r, TFS_FLOAT, 2, 2);
  if (i < 0) return 0;
  rg_value x = r->values[i];
  int64_t wd[2] = {x.dims[1], 3};
  tfs_output w = rg_const(r, TFS_FLOAT, wd, 2, -1, 1, st);
  tfs_output a = tfs_op_matmul(r->g, NULL, x.o, w, 0, 0, st);
  tfs_output b = tfs_op_matmul(r->g, NULL, x.o, w, 0, 0, st);
  tfs_output ra = tfs_op_unary(r->g, "Relu", NULL, a, st);
  tfs_output rb = tfs_op_unary(r->g, "Relu", NULL, b, st);
  return keep(r, tfs_op_sub(r->g, NULL, ra, rb, st), st);
}

/* A batch norm as Keras 3 leaves it after a contraction: [BiasAdd] then
 * y * C1 + C2 or y * C1 - C2, C1 and C2 per channel of rank 1 or the
 * output's rank, or scalars. */
static int t_keras_batch_norm(rg_graph *r, tfs_status *st) {
  int conv = rg_unit(r) < 0.6;
  int i = rg_pick(r, TFS_FLOAT, conv ? 4 : 2, conv ? 4 : 2);
  if (i < 0) return 0;
  rg_value x = r->values[i];
  int64_t ch = rg_int(r, 1, 4), c = x.dims[x.rank - 1];
  tfs_output y;
  if (conv) {
    int dw = rg_unit(r) < 0.4;
    int64_t fd[4] = {rg_int(r, 1, 3), rg_int(r, 1, 3), c, dw ? 2 : ch};
    int64_t strides[4] = {1, 1, 1, 1};
    tfs_op_desc *d =
        tfs_op_desc_new(r->g, dw ? "DepthwiseConv2dNative" : "Conv2D", NULL);
    tfs_op_desc_add_input(d, x.o);
    tfs_op_desc_add_input(d, rg_const(r, TFS_FLOAT, fd, 4, -1, 1, st));
    tfs_op_desc_set_attr_int_list(d, "strides", strides, 4);
    tfs_op_desc_set_attr_string(d, "padding", "SAME", 4);
    tfs_operation *op = tfs_op_desc_finish(d, st);
    if (!op) {
      tfs_status_clear(st);
      return 0;
    }
    y = (tfs_output){op, 0};
    if (dw) ch = 2 * c;
  } else {
    int tb = rg_unit(r) < 0.3;
    int64_t wd[2] = {tb ? ch : c, tb ? c : ch};
    y = tfs_op_matmul(r->g, NULL, x.o, rg_const(r, TFS_FLOAT, wd, 2, -1, 1, st),
                      0, tb, st);
  }
  if (y.oper && rg_unit(r) < 0.7) y = bias_or_bn(r, y, ch, 0, st);
  int rank = rg_unit(r) < 0.2 ? 0 : rg_unit(r) < 0.5 ? 1 : conv ? 4 : 2;
  int64_t d[4] = {1, 1, 1, 1};
  if (rank) d[rank - 1] = ch;
  tfs_output c1 = rg_const(r, TFS_FLOAT, d, rank, -1.5, 1.5, st);
  tfs_output c2 = rg_const(r, TFS_FLOAT, d, rank, -1, 1, st);
  if (y.oper) y = tfs_op_mul(r->g, NULL, c1, y, st);
  if (y.oper) {
    switch (rg_int(r, 0, 2)) {
      case 0:
        y = tfs_op_add(r->g, NULL, y, c2, st);
        break;
      case 1:
        y = tfs_op_add(r->g, NULL, c2, y, st);
        break;
      default:
        y = tfs_op_sub(r->g, NULL, y, c2, st);
    }
  }
  if (y.oper && rg_unit(r) < 0.6) y = rg_act(r, y, st);
  return keep(r, y, st);
}

/* Pow(x, c) with the exponents ConvertPow rewrites (and one it does
 * not), fractional ones on a positive base, c a scalar or all-equal. */
static int t_pow(rg_graph *r, tfs_status *st) {
  static const float kExp[] = {2, 3, 0.5f, -0.5f, -1, 1, 0, 2.5f};
  int i = rg_pick(r, TFS_FLOAT, 0, 4);
  if (i < 0) return 0;
  rg_value x = r->values[i];
  float e = kExp[rg_int(r, 0, 7)];
  tfs_output base = x.o;
  if (e != 2 && e != 3 && e != 1 && e != 0) {
    tfs_output a = tfs_op_unary(r->g, "Abs", NULL, base, st);
    base =
        tfs_op_add(r->g, NULL, a, tfs_op_const_float(r->g, NULL, 0.5f, st), st);
  }
  tfs_output c;
  if (x.rank > 0 && rg_unit(r) < 0.3) {
    int64_t d[1] = {x.dims[x.rank - 1]};
    c = rg_const(r, TFS_FLOAT, d, 1, e, e, st);
  } else {
    c = tfs_op_const_float(r->g, NULL, e, st);
  }
  return keep(r, tfs_op_pow(r->g, NULL, base, c, st), st);
}

/* The activations Keras 3 writes as subgraphs, on a value or after
 * MatMul + BiasAdd: swish with its IdentityN, the exact GELU (Erfc) and
 * the tanh GELU (Pow(x, 3)). */
static int t_keras_activation(rg_graph *r, tfs_status *st) {
  int i = rg_pick(r, TFS_FLOAT, 1, 4);
  if (i < 0) return 0;
  rg_value v = r->values[i];
  tfs_output x = v.o;
  tfs_graph *g = r->g;
  if (v.rank == 2 && rg_unit(r) < 0.5) {
    int64_t n = rg_int(r, 1, 5), wd[2] = {v.dims[1], n};
    x = tfs_op_matmul(g, NULL, x, rg_const(r, TFS_FLOAT, wd, 2, -1, 1, st), 0,
                      0, st);
    if (x.oper) x = bias_or_bn(r, x, n, 0, st);
    if (!x.oper) return keep(r, x, st);
  }
  int form = rg_int(r, 0, 2);
  if (form == 0) {
    tfs_output beta = tfs_op_const_float(g, NULL, 1.0f, st);
    tfs_output s =
        tfs_op_unary(g, "Sigmoid", NULL, tfs_op_mul(g, NULL, beta, x, st), st);
    tfs_output in[3] = {tfs_op_mul(g, NULL, x, s, st), x, beta};
    tfs_op_desc *d = tfs_op_desc_new(g, "IdentityN", NULL);
    tfs_op_desc_add_input_list(d, in, 3);
    tfs_operation *op = tfs_op_desc_finish(d, st);
    return keep(r, (tfs_output){op, op ? 0 : -1}, st);
  }
  tfs_output h = tfs_op_mul(g, NULL, tfs_op_const_float(g, NULL, 0.5f, st), x,
                            st),
             f;
  if (form == 1) {
    tfs_output n = tfs_op_unary(g, "Neg", NULL, x, st);
    f = tfs_op_unary(
        g, "Erfc", NULL,
        tfs_op_mul(g, NULL, n, tfs_op_const_float(g, NULL, 0.70710677f, st),
                   st),
        st);
  } else {
    tfs_output p =
        tfs_op_pow(g, NULL, x, tfs_op_const_float(g, NULL, 3.0f, st), st);
    tfs_output a = tfs_op_add(
        g, NULL, x,
        tfs_op_mul(g, NULL, tfs_op_const_float(g, NULL, 0.044715f, st), p, st),
        st);
    tfs_output t = tfs_op_unary(
        g, "Tanh", NULL,
        tfs_op_mul(g, NULL, tfs_op_const_float(g, NULL, 0.7978846f, st), a, st),
        st);
    f = tfs_op_add(g, NULL, tfs_op_const_float(g, NULL, 1.0f, st), t, st);
  }
  return keep(r, tfs_op_mul(g, NULL, h, f, st), st);
}

int rg_nn_num_templates(void) {
  return 16;
}

int rg_nn_template(rg_graph *r, int which, tfs_status *st) {
  switch (which) {
    case 0:
      return t_matmul(r, st);
    case 1:
      return t_conv(r, 0, st);
    case 2:
      return t_conv(r, 1, st);
    case 3:
      return t_pool(r, st);
    case 4:
      return t_batch_norm(r, st);
    case 5:
      return t_swish(r, st);
    case 6:
      return t_bmm_scale(r, st);
    case 7:
      return t_same_inputs(r, st);
    case 8:
      return t_common_factor(r, st);
    case 9:
      return t_neutral(r, st);
    case 10:
      return t_twin_matmul(r, st);
    case 12:
      return t_keras_batch_norm(r, st);
    case 13:
      return t_pow(r, st);
    case 14:
      return t_keras_activation(r, st);
    case 15:
      return t_heads(r, st);
    default:
      return t_matmul(r, st);
  }
}
