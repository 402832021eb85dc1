/*
 * optimizer/pass_remap.c - remapper: replaces op patterns by fused ops
 * with CPU kernels (backends/cpu/fused_*.c):
 *   MatMul + BiasAdd [+ act]                -> _FusedMatMul
 *   Conv2D + BiasAdd [+ act]                -> _FusedConv2D
 *   Conv2D + FusedBatchNorm(V3, inference) [+ act]
 *       -> _FusedConv2D with the batch norm folded into the filter and a
 *          bias when filter and statistics are constants, else
 *          fused_ops ["FusedBatchNorm", act]
 *   DepthwiseConv2dNative + BiasAdd | constant batch norm [+ act]
 *                                          -> _FusedDepthwiseConv2dNative
 *   inference FusedBatchNorm with constant statistics, not after a
 *   convolution                             -> Mul + Add
 *   BatchMatMulV2 * scalar                  -> _FusedBatchMatMulV2
 *   Transposes (constant perms) around BatchMatMulV2 / BatchMatMul /
 *   _FusedBatchMatMulV2                     -> _TfsPermutedBatchMatMul
 *   x * Sigmoid(x) (Keras: and its IdentityN)
 *       -> _TfsSwish, or after a contraction + BiasAdd fused_ops
 *          ["BiasAdd", "_MklSwish"]
 *   0.5 * x * Erfc(-x / sqrt(2)), 0.5 * x * (1 + Erf(x / sqrt(2)))
 *       -> _TfsGelu(approximate=false), after MatMul + BiasAdd
 *          _FusedMatMul ["BiasAdd", "GeluExact"]
 *   0.5 * x * (1 + Tanh(sqrt(2/pi) * (x + 0.044715 * x^3)))
 *       -> _TfsGelu(approximate=true), after MatMul + BiasAdd
 *          _FusedMatMul ["BiasAdd", "GeluApproximate"]
 *   x * Relu6(x + 3) / 6 (Keras's hard_swish)
 *       -> _TfsHardSwish, or after a contraction + BiasAdd fused_ops
 *          ["BiasAdd", "_TfsHardSwish"]
 *   AddV2 | Add(_FusedConv2D (bias only, NHWC), z), z of the
 *   convolution's output shape, both fully known (a residual connection)
 *                                           -> _FusedConv2D with fused_ops
 *      ["BiasAdd", "Add"] (TensorFlow's oneDNN form), an activation after
 *      it joining as for the other fused ops
 *   _FusedConv2D (NHWC) -> MaxPool (NHWC, VALID, strides equal to the
 *   window)                                 -> _TfsFusedConv2DMaxPool
 *   _FusedConv2D (bias [+ act], a constant 1x1 or strided filter) ->
 *   _FusedDepthwiseConv2dNative (bias [+ act]), NHWC
 *                                           -> _TfsFusedConv2DDepthwise
 *   _TfsFusedConv2DDepthwise (float) -> _FusedConv2D (bias [+ Add], a
 *   constant 1x1 filter, stride 1, NHWC)
 *                                   -> _TfsFusedConv2DDepthwiseConv2D
 *   _FusedDepthwiseConv2dNative (float, bias [+ act], NHWC) -> the same
 *   projection                      -> _TfsFusedDepthwiseConv2DConv2D
 *   BiasAdd (float32) of Cast(MatMul in bfloat16) [+ act]
 *                                           -> _TfsFusedMatMulFloatOut
 *   _TfsFusedMatMulFloatOut -> Cast to bfloat16
 *                   -> _TfsFusedMatMulFloatOut with out_type bfloat16
 *   [Relu | Relu6](x * scale + offset), per-channel constants (what is
 *   left of a batch norm no contraction precedes)
 *                                           -> _TfsScaleShift
 *   _FusedConv2D(x * s + t), scalar constants (Keras's Rescaling)
 *       -> _FusedConv2D(x) mapping its input as it reads it
 *   MaxPool (NHWC, VALID) of a constant Pad / PadV2 of height and width
 *       -> MaxPool (EXPLICIT, the padding read as the Pad's value)
 * act: Relu, Relu6, Elu, LeakyRelu, Tanh, Sigmoid.  float only, except
 * the contraction chains (MatMul / Conv2D / DepthwiseConv2dNative +
 * BiasAdd [+ act], the residual Add) and _TfsFusedConv2DDepthwise in
 * bfloat16 too (after auto mixed precision);
 * only nodes requested on no device or a CPU are fused.  Inner
 * nodes must have one consumer and not be preserved; the fused node takes
 * the last node's name.  The activation subgraphs become fused or
 * standalone ops only where the op has a kernel and the fused kernel's
 * prepare accepts the activation.  When the output must load in
 * TensorFlow, tfsess's own ops and the activation subgraphs are not
 * rewritten, and a depthwise convolution only
 * gets its constant batch norm folded into the filter and a BiasAdd
 * (stock TensorFlow runs _FusedDepthwiseConv2dNative in oneDNN builds
 * only).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/status.h"
#include "optimizer/arith_weights.h"
#include "optimizer/opt_util.h"
#include "optimizer/remap_util.h"

static const char *const kActs[] = {"Relu",      "Relu6", "Elu",
                                    "LeakyRelu", "Tanh",  "Sigmoid"};

static int is_activation(const tfs_ograph *g, int v) {
  for (size_t i = 0; i < sizeof(kActs) / sizeof(kActs[0]); i++)
    if (tfs_og__is(g, v, kActs[i])) return 1;
  return 0;
}

int tfs_remap__is_float_node(const tfs_ograph *g, int v) {
  return g->n[v].nout >= 1 && g->n[v].out_types[0] == TFS_FLOAT;
}

/* Float, or bfloat16: auto mixed precision's contraction + BiasAdd [+
 * act] chains fuse too (match_mid allows no bfloat16 batch norm). */
int tfs_remap__is_fusable_node(const tfs_ograph *g, int v) {
  return g->n[v].nout >= 1 && (g->n[v].out_types[0] == TFS_FLOAT ||
                               g->n[v].out_types[0] == TFS_BFLOAT16);
}

/* Producer of input k of v for fusion: live, not fed, output port 0,
 * used only by v, removable, of v's type (float or bfloat16), on v's
 * device. */
int tfs_remap__fusable_input(const tfs_ograph *g, int v, int k) {
  int p = tfs_og__producer(g, v, k);
  if (p < 0 || g->n[v].in[k].port != 0 || !tfs_opt__single_use(g, p) ||
      !tfs_remap__is_fusable_node(g, p) ||
      g->n[p].out_types[0] != g->n[v].out_types[0] ||
      strcmp(g->n[p].device, g->n[v].device) != 0)
    return -1;
  return p;
}

static int is_inference_bn(const tfs_ograph *g, int p) {
  if (!tfs_og__is(g, p, "FusedBatchNorm") &&
      !tfs_og__is(g, p, "FusedBatchNormV3"))
    return 0;
  int training = 1;
  tfs_attrs_get_bool(g->n[p].attrs, "is_training", &training);
  if (training) return 0;
  for (int port = 1; port < g->n[p].nout; port++)
    if (tfs_og__port_uses(g, p, port)) return 0;
  return tfs_og__type_attr(g, p, "U") == TFS_INVALID ||
         tfs_og__type_attr(g, p, "U") == TFS_FLOAT;
}

static int same_format(const tfs_ograph *g, int a, int b) {
  int na = tfs_opt__attr_is(g, a, "data_format", "NCHW");
  int nb = tfs_opt__attr_is(g, b, "data_format", "NCHW");
  return na == nb;
}

/* Fills m from the BiasAdd or batch norm `mid` down to the contraction
 * below it; returns 1 on a match. */
static int match_mid(tfs_opt_ctx *c, int mid, tfs_remap_match *m) {
  tfs_ograph *g = c->g;
  if (tfs_og__is(g, mid, "BiasAdd")) {
    m->kind = TFS_REMAP_BIAS;
  } else if (is_inference_bn(g, mid)) {
    m->kind = TFS_REMAP_BN;
  } else {
    return 0;
  }
  m->mid = mid;
  int q = tfs_remap__fusable_input(g, mid, 0);
  if (q < 0) return 0;
  m->contraction = q;
  if (tfs_og__is(g, q, "MatMul")) {
    if (m->kind != TFS_REMAP_BIAS) return 0;
    m->op = TFS_REMAP_MATMUL;
  } else if (tfs_og__is(g, q, "Conv2D")) {
    if (!same_format(g, q, mid)) return 0;
    m->op = TFS_REMAP_CONV;
  } else if (tfs_og__is(g, q, "DepthwiseConv2dNative")) {
    if (!same_format(g, q, mid)) return 0;
    m->op = TFS_REMAP_DEPTHWISE;
  } else {
    return 0;
  }
  /* bfloat16 (auto mixed precision's): the contraction and a BiasAdd of
   * its type, whose bias the epilogue widens */
  tfs_dtype t = tfs_og__type_attr(g, q, "T");
  if (t != TFS_FLOAT && (t != TFS_BFLOAT16 || m->kind != TFS_REMAP_BIAS))
    return 0;
  /* TensorFlow's _FusedConv2D has no bfloat16 kernel: tfsess's only */
  if (t == TFS_BFLOAT16 && m->op == TFS_REMAP_CONV && c->cfg->tf_compatible)
    return 0;
  if (m->kind == TFS_REMAP_BN && !tfs_remap__bn_constant(g, m) &&
      m->op != TFS_REMAP_CONV)
    return 0;
  return 1;
}

/* Matches the chain ending at `root`: [act] <- (BiasAdd | BN) <-
 * contraction.  Fills m; returns 1 on a match. */
static int match_contraction(tfs_opt_ctx *c, int root, tfs_remap_match *m) {
  tfs_ograph *g = c->g;
  memset(m, 0, sizeof(*m));
  m->root = root;
  m->act = -1;
  int mid = root;
  if (!is_activation(g, root) && tfs_opt__single_use(g, root)) {
    /* an activation below takes the whole chain */
    int below = g->n[root].fan[0].node;
    if (is_activation(g, below) && tfs_og__replaceable(g, below) &&
        tfs_remap__is_fusable_node(g, below))
      return 0;
  }
  if (is_activation(g, root)) {
    m->act = root;
    m->act_op = g->n[root].def->name;
    mid = tfs_remap__fusable_input(g, root, 0);
    if (mid < 0) return 0;
  }
  return match_mid(c, mid, m);
}

/* The chain below a matched activation subgraph: its input x must be a
 * BiasAdd (or batch norm) that only the subgraph reads, on a
 * contraction; GELU fuses after a MatMul only, as in TensorFlow (swish
 * and hard-swish after any contraction). */
static int match_below_act(tfs_opt_ctx *c, const tfs_remap_act *a,
                           tfs_remap_match *m) {
  tfs_ograph *g = c->g;
  int x = a->x.node;
  memset(m, 0, sizeof(*m));
  m->root = a->root;
  m->act = -1;
  m->act_op = tfs_remap__act_fused_name(a->kind);
  m->composite = a;
  if (a->x.port != 0 || (g->n[x].flags & TFS_ON_FED) ||
      !tfs_og__removable(g, x) || g->n[x].ncfan != 0 ||
      tfs_og__port_uses(g, x, 0) != a->x_uses || g->n[x].nfan != a->x_uses ||
      !tfs_remap__is_fusable_node(g, x) ||
      g->n[x].out_types[0] != g->n[a->root].out_types[0] ||
      strcmp(g->n[x].device, g->n[a->root].device))
    return 0;
  if (!match_mid(c, x, m)) return 0;
  return a->kind == TFS_REMAP_ACT_SWISH ||
         a->kind == TFS_REMAP_ACT_HARD_SWISH || m->op == TFS_REMAP_MATMUL;
}

/* Ops a pattern can end at. */
static int is_root_op(const tfs_ograph *g, int v) {
  return is_activation(g, v) || tfs_og__is(g, v, "BiasAdd") ||
         tfs_og__is(g, v, "Mul") || tfs_og__is(g, v, "FusedBatchNorm") ||
         tfs_og__is(g, v, "FusedBatchNormV3");
}

/* A batch norm a convolution fuses with (so it is not decomposed). */
static int after_convolution(const tfs_ograph *g, int bn) {
  int q = tfs_remap__fusable_input(g, bn, 0);
  return q >= 0 && (tfs_og__is(g, q, "Conv2D") ||
                    tfs_og__is(g, q, "DepthwiseConv2dNative"));
}

/* A matched activation subgraph as one op: _TfsSwish(x),
 * _TfsHardSwish(x) or _TfsGelu(x, approximate), when the op has a kernel
 * on the root's device. */
static int standalone_act(tfs_opt_ctx *c, const tfs_remap_act *a,
                          tfs_remap_stats *stats) {
  tfs_ograph *g = c->g;
  int hard = a->kind == TFS_REMAP_ACT_HARD_SWISH;
  int swish = a->kind == TFS_REMAP_ACT_SWISH || hard;
  const char *op = hard ? "_TfsHardSwish" : swish ? "_TfsSwish" : "_TfsGelu";
  const tfs_op_def *def = tfs_op_lookup(op);
  tfs_attrs at;
  tfs_attrs_init(&at);
  if (tfs_opt__set_type(&at, "T", g->n[a->root].out_types[0]) ||
      (!swish && tfs_opt__set_bool(&at, "approximate",
                                   a->kind == TFS_REMAP_ACT_GELU_TANH))) {
    tfs_attrs_clear(&at);
    TFS_OOM(c->st);
    return -1;
  }
  const tfs_onode *r = &g->n[a->root];
  if (!def || !tfs_opt__has_kernel(r->device, def, &at, r->name)) {
    tfs_attrs_clear(&at);
    return 0;
  }
  if (tfs_remap__replace_act(c, a, op, &at, 1, &a->x, -1, -1) < 0) return -1;
  tfs_remap__count(stats, hard    ? "x*Relu6(x+3)/6 -> _TfsHardSwish"
                          : swish ? "Sigmoid*x -> _TfsSwish"
                          : a->kind == TFS_REMAP_ACT_GELU_TANH
                              ? "GELU (tanh) -> _TfsGelu"
                              : "GELU (erf) -> _TfsGelu");
  return 1;
}

/* A swish, hard-swish or GELU subgraph ending at v: fused into the
 * contraction and BiasAdd below when the fused kernel implements the
 * activation, else one op.  Neither loads in stock TensorFlow (its fused
 * kernels know swish and GELU only in oneDNN builds, hard-swish not at
 * all). */
static int composite_act(tfs_opt_ctx *c, int v, tfs_remap_stats *stats) {
  tfs_ograph *g = c->g;
  tfs_remap_act a;
  if (c->cfg->tf_compatible || !tfs_remap__match_act(g, v, &a)) return 0;
  tfs_remap_match m;
  if (match_below_act(c, &a, &m)) {
    int r = tfs_remap__fuse_contraction(c, &m, stats);
    if (r) return r;
  }
  return standalone_act(c, &a, stats);
}

/* BatchMatMulV2(x, y) * scalar -> _FusedBatchMatMulV2(x, y, scalar). */
static int bmm_scale(tfs_opt_ctx *c, int v, tfs_remap_stats *stats) {
  tfs_ograph *g = c->g;
  if (c->cfg->tf_compatible || !tfs_og__is(g, v, "Mul") ||
      !tfs_remap__is_float_node(g, v) || g->n[v].nin != 2)
    return 0;
  for (int k = 0; k < 2; k++) {
    int b = tfs_remap__fusable_input(g, v, k);
    if (b < 0 || (!tfs_og__is(g, b, "BatchMatMulV2") &&
                  !tfs_og__is(g, b, "BatchMatMul")))
      continue;
    if (tfs_og__type_attr(g, b, "T") != TFS_FLOAT) continue;
    tfs_oref sc = g->n[v].in[1 - k];
    const tfs_shape *ss = tfs_og__shape(g, sc);
    const tfs_shape *bs = &g->n[b].out_shapes[0];
    if (tfs_shape_num_elements(ss) != 1 || ss->rank > bs->rank || bs->rank < 0)
      continue;
    int adj_x = 0, adj_y = 0;
    tfs_attrs_get_bool(g->n[b].attrs, "adj_x", &adj_x);
    tfs_attrs_get_bool(g->n[b].attrs, "adj_y", &adj_y);
    tfs_attrs a;
    tfs_attrs_init(&a);
    if (tfs_remap__bmm_attrs(&a, adj_x, adj_y, 1)) {
      tfs_attrs_clear(&a);
      TFS_OOM(c->st);
      return -1;
    }
    tfs_oref in[3] = {g->n[b].in[0], g->n[b].in[1], sc};
    if (tfs_remap__replace(c, v, "_FusedBatchMatMulV2", &a, 3, in, b, -1) < 0)
      return -1;
    tfs_remap__count(stats, "BatchMatMulV2*scalar -> _FusedBatchMatMulV2");
    return 1;
  }
  return 0;
}

/* A MaxPool over a _FusedConv2D's output, with VALID windows that do not
 * overlap (strides equal to ksize), both NHWC: one op pools each tile of
 * the convolution as it is computed. */
static int conv_pool(tfs_opt_ctx *c, int v, tfs_remap_stats *stats) {
  tfs_ograph *g = c->g;
  if (c->cfg->tf_compatible || !tfs_og__live(g, v) ||
      !tfs_og__replaceable(g, v) || !tfs_og__is(g, v, "MaxPool") ||
      !tfs_remap__is_float_node(g, v) ||
      tfs_opt__attr_is(g, v, "data_format", "NCHW") ||
      !tfs_opt__attr_is(g, v, "padding", "VALID"))
    return 0;
  int q = tfs_remap__fusable_input(g, v, 0);
  if (q < 0 || !tfs_og__is(g, q, "_FusedConv2D") || g->n[q].nin != 3 ||
      tfs_opt__attr_is(g, q, "data_format", "NCHW"))
    return 0;
  const tfs_attr_value *k = tfs_attrs_find(g->n[v].attrs, "ksize");
  const tfs_attr_value *st = tfs_attrs_find(g->n[v].attrs, "strides");
  if (!k || !st || !k->is_list || !st->is_list || k->u.list.n != 4 ||
      st->u.list.n != 4)
    return 0;
  const int64_t *kv = k->u.list.v, *sv = st->u.list.v;
  if (kv[0] != 1 || kv[3] != 1 || kv[1] < 1 || kv[2] < 1 ||
      memcmp(kv, sv, 4 * sizeof(int64_t)) != 0)
    return 0;
  int64_t host = 0;
  tfs_attrs_get_int(g->n[q].attrs, "num_host_args", &host);
  if (host != 0) return 0;
  tfs_attrs a;
  if (tfs_opt__copy_attrs(g, q, &a) ||
      tfs_opt__set_ints(&a, "pool_ksize", kv, 4) ||
      tfs_opt__set_ints(&a, "pool_strides", sv, 4)) {
    tfs_attrs_clear(&a);
    TFS_OOM(c->st);
    return -1;
  }
  if (tfs_remap__replace(c, v, "_TfsFusedConv2DMaxPool", &a, g->n[q].nin,
                         g->n[q].in, q, -1) < 0)
    return -1;
  tfs_remap__count(stats, "_FusedConv2D+MaxPool -> _TfsFusedConv2DMaxPool");
  return 1;
}

/* fused_ops of node i starts with BiasAdd and it has that one argument
 * (three inputs), NHWC, HWIO, no host arguments. */
int tfs_remap__bias_fused_nhwc(const tfs_ograph *g, int i) {
  const tfs_attr_value *f = tfs_attrs_find(g->n[i].attrs, "fused_ops");
  int64_t nargs = -1, host = 0;
  tfs_attrs_get_int(g->n[i].attrs, "num_args", &nargs);
  tfs_attrs_get_int(g->n[i].attrs, "num_host_args", &host);
  return f && f->is_list && f->type == TFS_ATTR_STRING && f->u.list.n >= 1 &&
         strcmp(((const tfs_bytes *)f->u.list.v)[0].ptr, "BiasAdd") == 0 &&
         g->n[i].nin == 3 && nargs == 1 && host == 0 &&
         !tfs_opt__attr_is(g, i, "data_format", "NCHW") &&
         (!tfs_attrs_find(g->n[i].attrs, "filter_format") ||
          tfs_opt__attr_is(g, i, "filter_format", "HWIO"));
}

/* fused_ops' name for activation node v after a fused contraction of
 * kind `q_op`, or NULL: the single-op activations, and the activation
 * ops the remapper makes (_TfsGelu after a MatMul only, as in
 * TensorFlow; _TfsSwish and _TfsHardSwish after any). */
static const char *fused_act_name(const tfs_ograph *g, int v,
                                  int after_matmul) {
  if (is_activation(g, v)) return g->n[v].def->name;
  if (tfs_og__is(g, v, "_TfsSwish")) return "_MklSwish";
  if (tfs_og__is(g, v, "_TfsHardSwish")) return "_TfsHardSwish";
  if (tfs_og__is(g, v, "_TfsGelu") && after_matmul) {
    int approximate = 0;
    tfs_attrs_get_bool(g->n[v].attrs, "approximate", &approximate);
    return approximate ? "GeluApproximate" : "GeluExact";
  }
  return NULL;
}

/* fused_ops of node q is exactly ["BiasAdd"] (1), or ["BiasAdd", "Add"]
 * (2); else 0. */
int tfs_remap__fused_bias_only(const tfs_ograph *g, int q) {
  const tfs_attr_value *f = tfs_attrs_find(g->n[q].attrs, "fused_ops");
  if (!f || !f->is_list || f->type != TFS_ATTR_STRING || f->u.list.n < 1 ||
      f->u.list.n > 2)
    return 0;
  const tfs_bytes *ops = (const tfs_bytes *)f->u.list.v;
  if (ops[0].len != 7 || memcmp(ops[0].ptr, "BiasAdd", 7) != 0) return 0;
  if (f->u.list.n == 1) return 1;
  return ops[1].len == 3 && memcmp(ops[1].ptr, "Add", 3) == 0 ? 2 : 0;
}

/* Shapes a and b are the same, every dimension known. */
static int same_known_shape(const tfs_shape *a, const tfs_shape *b) {
  if (a->rank < 0 || a->rank != b->rank) return 0;
  for (int d = 0; d < a->rank; d++)
    if (a->dims[d] < 0 || a->dims[d] != b->dims[d]) return 0;
  return 1;
}

/* AddV2 | Add v of a _FusedConv2D whose fused_ops is ["BiasAdd"] (NHWC,
 * read only by v) and a tensor of its type and the same, fully known shape:
 * the sum joins the convolution's epilogue (["BiasAdd", "Add"], the
 * tensor its last argument), added as each block of the output is
 * finished rather than in a pass of its own (ResNet's residual
 * connections; MobileNetV2's and EfficientNet's after their
 * projections).  Shapes that may broadcast are left to the Add. */
static int conv_add(tfs_opt_ctx *c, int v, tfs_remap_stats *stats) {
  tfs_ograph *g = c->g;
  if (c->cfg->tf_compatible || !tfs_og__replaceable(g, v) ||
      !tfs_remap__is_fusable_node(g, v) || g->n[v].nin != 2 ||
      (!tfs_og__is(g, v, "AddV2") && !tfs_og__is(g, v, "Add")))
    return 0;
  const tfs_dtype t = g->n[v].out_types[0];
  for (int k = 0; k < 2; k++) {
    int q = tfs_remap__fusable_input(g, v, k);
    tfs_oref z = g->n[v].in[1 - k];
    if (q < 0 || !tfs_og__is(g, q, "_FusedConv2D") ||
        tfs_remap__fused_bias_only(g, q) != 1 ||
        !tfs_remap__bias_fused_nhwc(g, q) ||
        tfs_og__dtype(g, z) != t ||
        !same_known_shape(&g->n[q].out_shapes[0], tfs_og__shape(g, z)) ||
        !same_known_shape(&g->n[q].out_shapes[0], &g->n[v].out_shapes[0]))
      continue;
    static const char *const kOps[2] = {"BiasAdd", "Add"};
    /* the bias keeps its type (float, or the bfloat16 of the sum) */
    const tfs_dtype args[2] = {tfs_og__dtype(g, g->n[q].in[2]), t};
    tfs_attrs a;
    if (tfs_opt__copy_attrs(g, q, &a) ||
        tfs_opt__set_strings(&a, "fused_ops", kOps, 2) ||
        tfs_opt__set_int(&a, "num_args", 2) ||
        tfs_opt__set_types(&a, "TArgs", args, 2)) {
      tfs_attrs_clear(&a);
      TFS_OOM(c->st);
      return -1;
    }
    tfs_oref in[4] = {g->n[q].in[0], g->n[q].in[1], g->n[q].in[2], z};
    int r = tfs_remap__replace_if_kernel(c, v, "_FusedConv2D", &a, 4, in, q,
                                         -1);
    if (r == -2) return 0;
    if (r < 0) return -1;
    tfs_remap__count(stats, "_FusedConv2D+AddV2 -> _FusedConv2D");
    return 1;
  }
  return 0;
}

/* An activation after a fused contraction whose fused_ops is
 * ["BiasAdd"]: the activation joins the list.  The pair meets when a
 * rewrite has moved a Reshape from between them after the contraction
 * fused (Keras's Dense on 3-D inputs). */
static int extend_fused(tfs_opt_ctx *c, int v, tfs_remap_stats *stats) {
  tfs_ograph *g = c->g;
  if (!tfs_og__replaceable(g, v) || !tfs_remap__is_fusable_node(g, v) ||
      g->n[v].nin != 1)
    return 0;
  int q = tfs_remap__fusable_input(g, v, 0);
  int nops = q < 0 ? 0 : tfs_remap__fused_bias_only(g, q);
  if (!nops || g->n[q].nctrl) return 0;
  const char *qop = g->n[q].def->name;
  int mm = strcmp(qop, "_FusedMatMul") == 0 ||
           strcmp(qop, "_TfsFusedMatMulFloatOut") == 0;
  if (!mm && strcmp(qop, "_FusedConv2D") != 0 &&
      strcmp(qop, "_FusedDepthwiseConv2dNative") != 0)
    return 0;
  const char *act = fused_act_name(g, v, mm);
  if (!act || (c->cfg->tf_compatible && act[0] == '_') ||
      (c->cfg->tf_compatible && strncmp(act, "Gelu", 4) == 0))
    return 0;
  tfs_attrs a;
  const char *ops[3] = {"BiasAdd", nops == 2 ? "Add" : act, act};
  float alpha = 0.2f;
  tfs_attrs_get_float(g->n[v].attrs, "alpha", &alpha);
  if (tfs_opt__copy_attrs(g, q, &a) ||
      tfs_opt__set_strings(&a, "fused_ops", ops, nops + 1) ||
      tfs_opt__set_float(&a, "leakyrelu_alpha", alpha)) {
    tfs_attrs_clear(&a);
    TFS_OOM(c->st);
    return -1;
  }
  const tfs_onode *r = &g->n[v];
  if (!tfs_opt__kernel_accepts(g, r->device, qop, &a, g->n[q].nin,
                               g->n[q].in, r->out_types[0],
                               &r->out_shapes[0], r->name)) {
    tfs_attrs_clear(&a);
    return 0;
  }
  char what[96];
  snprintf(what, sizeof what, "%s+%s -> %s", qop, act, qop);
  tfs_oref in[6];
  int nin = g->n[q].nin < 6 ? g->n[q].nin : 6;
  memcpy(in, g->n[q].in, sizeof(tfs_oref) * (size_t)nin);
  if (tfs_remap__replace(c, v, qop, &a, nin, in, q, -1) < 0) return -1;
  tfs_remap__count(stats, what);
  return 1;
}

/* Node p, read only by node v (output 0), on v's device, without control
 * inputs, is op `op` of output type t. */
static int chain_link(const tfs_ograph *g, int p, int v, const char *op,
                      tfs_dtype t) {
  return p >= 0 && tfs_og__is(g, p, op) && tfs_opt__single_use(g, p) &&
         g->n[p].nctrl == 0 && g->n[p].nout >= 1 &&
         g->n[p].out_types[0] == t &&
         strcmp(g->n[p].device, g->n[v].device) == 0;
}

/* BiasAdd v (float32) of Cast(MatMul in bfloat16) [+ an activation]:
 * auto mixed precision's Dense layer whose bias stays float32 (a layer
 * normalization or another float32 op reads it; the arithmetic pass
 * moved the Cast and the BiasAdd before Keras's Reshape).  One
 * _TfsFusedMatMulFloatOut: the product's float32 sums get the bias and
 * the activation and are stored as float32, not rounded to bfloat16 and
 * widened again.  tfsess-only. */
static int mixed_matmul(tfs_opt_ctx *c, int v, tfs_remap_stats *stats) {
  tfs_ograph *g = c->g;
  if (c->cfg->tf_compatible || !tfs_og__replaceable(g, v) ||
      !tfs_og__is(g, v, "BiasAdd") || !tfs_remap__is_float_node(g, v) ||
      g->n[v].nin != 2 || g->n[v].in[0].port != 0 ||
      tfs_opt__attr_is(g, v, "data_format", "NCHW") ||
      tfs_og__dtype(g, g->n[v].in[1]) != TFS_FLOAT)
    return 0;
  int cast = tfs_og__producer(g, v, 0);
  if (!chain_link(g, cast, v, "Cast", TFS_FLOAT) ||
      g->n[cast].in[0].port != 0)
    return 0;
  int mm = tfs_og__producer(g, cast, 0);
  if (!chain_link(g, mm, cast, "MatMul", TFS_BFLOAT16)) return 0;
  int root = v, below = -1;
  const char *act = NULL;
  if (tfs_opt__single_use(g, v) && g->n[v].fan[0].port == 0) {
    below = g->n[v].fan[0].node;
    act = tfs_og__replaceable(g, below) && tfs_remap__is_float_node(g, below) &&
                  g->n[below].nin == 1 &&
                  strcmp(g->n[below].device, g->n[v].device) == 0
              ? fused_act_name(g, below, 1)
              : NULL;
    if (act) root = below;
  }
  tfs_attrs a;
  const char *ops[2] = {"BiasAdd", act};
  int ta = 0, tb = 0;
  float alpha = 0.2f;
  tfs_attrs_get_bool(g->n[mm].attrs, "transpose_a", &ta);
  tfs_attrs_get_bool(g->n[mm].attrs, "transpose_b", &tb);
  if (act) tfs_attrs_get_float(g->n[root].attrs, "alpha", &alpha);
  tfs_attrs_init(&a);
  if (tfs_opt__set_type(&a, "T", TFS_BFLOAT16) ||
      tfs_opt__set_bool(&a, "transpose_a", ta) ||
      tfs_opt__set_bool(&a, "transpose_b", tb) ||
      tfs_opt__set_int(&a, "num_args", 1) ||
      tfs_opt__set_strings(&a, "fused_ops", ops, act ? 2 : 1) ||
      tfs_opt__set_float(&a, "leakyrelu_alpha", alpha)) {
    tfs_attrs_clear(&a);
    TFS_OOM(c->st);
    return -1;
  }
  tfs_oref in[3] = {g->n[mm].in[0], g->n[mm].in[1], g->n[v].in[1]};
  int r = tfs_remap__replace_if_kernel(c, root, "_TfsFusedMatMulFloatOut", &a,
                                       3, in, act ? v : cast, mm);
  if (r == -2) return 0;
  if (r < 0) return -1;
  /* the Cast the replacement did not take: the fused node stands for it */
  if (act && tfs_og__live(g, cast)) {
    if (tfs_opt__absorb(c, r, cast)) return -1;
    tfs_og__kill_unused(g, cast);
  }
  tfs_remap__count(stats, act ? "MatMul+Cast+BiasAdd+activation -> "
                                "_TfsFusedMatMulFloatOut"
                              : "MatMul+Cast+BiasAdd -> "
                                "_TfsFusedMatMulFloatOut");
  return 1;
}

/* The fused ops have CPU kernels only: a node placed (or, outside a
 * plan, requested) on another device keeps its ops (fusing it would move
 * it to the CPU). */
static int on_cpu(const char *device) {
  return tfs_opt__device_is(device, "CPU");
}

/* A rewrite tried at one node v: 1 when it rewrote, 0 when it did not
 * apply, -1 on an error. */
typedef int (*remap_rule)(tfs_opt_ctx *c, int v, tfs_remap_stats *stats);

/* `rule` at every live node placed on a CPU (or on no device), in node
 * order; the rewrites added to *total.  0, or -1 on an error. */
static int each_cpu_node(tfs_opt_ctx *c, remap_rule rule,
                         tfs_remap_stats *stats, int *total) {
  tfs_ograph *g = c->g;
  for (int v = 0; v < g->nn; v++) {
    if (!tfs_og__live(g, v) || !on_cpu(g->n[v].device)) continue;
    int r = rule(c, v, stats);
    if (r < 0) return -1;
    *total += r;
  }
  return 0;
}

int tfs_pass__remap(tfs_opt_ctx *c) {
  tfs_ograph *g = c->g;
  tfs_remap_stats stats;
  memset(&stats, 0, sizeof stats);
  int total = 0;
  /* grouped convolutions that are depthwise ones, before the depthwise
   * fusions see them */
  if (each_cpu_node(c, tfs_remap__grouped_depthwise, &stats, &total))
    return -1;
  /* Einsums that are batched products, before their scales join them */
  if (each_cpu_node(c, tfs_remap__einsum_bmm, &stats, &total)) return -1;
  const int n0 = g->nn;
  for (int v = 0; v < n0; v++) {
    int r = tfs_remap__lstm_loop(c, v);
    if (r < 0) return -1;
    if (r) tfs_remap__count(&stats, "Keras LSTM loop -> _TfsLstmSequence");
    total += r;
  }
  for (int v = 0; v < n0; v++) {
    if (!tfs_og__live(g, v) || !on_cpu(g->n[v].device) ||
        !tfs_og__is(g, v, "Mul"))
      continue;
    int r = tfs_remap__lstm_gates(c, v, &stats);
    if (r < 0) return -1;
    total += r;
  }
  /* activation subgraphs first: their input's BiasAdd must not be fused
   * alone before */
  for (int v = 0; v < n0; v++) {
    if (!tfs_og__live(g, v) || !on_cpu(g->n[v].device) ||
        (!tfs_og__is(g, v, "Mul") && !tfs_og__is(g, v, "IdentityN")))
      continue;
    int r = composite_act(c, v, &stats);
    if (r < 0) return -1;
    total += r;
  }
  /* the sums of two products, those under a BiasAdd first (it joins
   * them) */
  for (int pass = 0; pass < 2; pass++)
    for (int v = 0; v < n0; v++) {
      if (!tfs_og__live(g, v) || !on_cpu(g->n[v].device)) continue;
      int root = pass ? tfs_og__is(g, v, "AddV2") || tfs_og__is(g, v, "Add")
                      : tfs_og__is(g, v, "BiasAdd");
      if (!root) continue;
      int r = tfs_remap__matmul_sum(c, v, &stats);
      if (r < 0) return -1;
      total += r;
    }
  for (int v = 0; v < n0; v++) {
    if (!tfs_og__live(g, v) || !on_cpu(g->n[v].device) ||
        (!tfs_og__is(g, v, "AddV2") && !tfs_og__is(g, v, "Add")))
      continue;
    int r = tfs_remap__layer_norm(c, v, &stats);
    if (r < 0) return -1;
    total += r;
  }
  for (int v = 0; v < n0; v++) {
    if (!tfs_og__live(g, v) || !tfs_og__replaceable(g, v)) continue;
    if (!tfs_remap__is_fusable_node(g, v) || !is_root_op(g, v)) continue;
    int r = 0, cpu = on_cpu(g->n[v].device);
    tfs_remap_match m;
    /* bfloat16: contraction chains only */
    if (!tfs_remap__is_float_node(g, v)) {
      if (cpu && match_contraction(c, v, &m))
        r = tfs_remap__fuse_contraction(c, &m, &stats);
      if (r < 0) return -1;
      total += r;
      continue;
    }
    if (cpu && match_contraction(c, v, &m))
      r = tfs_remap__fuse_contraction(c, &m, &stats);
    else if (is_inference_bn(g, v) && !after_convolution(g, v))
      r = tfs_remap__decompose_bn(c, v, &stats);
    if (!r && cpu) r = bmm_scale(c, v, &stats);
    if (r < 0) return -1;
    total += r;
  }
  /* auto mixed precision's bfloat16 products with a float32 bias, then
   * the residual sums after the convolutions fused above */
  if (each_cpu_node(c, mixed_matmul, &stats, &total) ||
      each_cpu_node(c, conv_add, &stats, &total))
    return -1;
  /* activations that meet a fused contraction, pools over the
   * convolutions fused above, and the per-channel scale and shift left
   * outside contractions */
  for (int v = 0; v < g->nn; v++) {
    if (!tfs_og__live(g, v) || !on_cpu(g->n[v].device))
      continue;
    int r = extend_fused(c, v, &stats);
    if (!r) r = conv_pool(c, v, &stats);
    if (!r) r = tfs_remap__scale_shift(c, v, &stats);
    if (r < 0) return -1;
    total += r;
  }
  static const remap_rule kLater[] = {
      /* auto mixed precision's Casts after float32-out products, once
       * these have their activations */
      tfs_remap__float_out_cast,
      /* attention's head transposes, once the scales joined the
       * products */
      tfs_remap__bmm_perm,
      /* convolutions whose output only a depthwise convolution reads,
       * once both have their activations */
      tfs_remap__conv_depthwise,
      /* ... and the pointwise projections that alone read those */
      tfs_remap__conv_depthwise_project,
      /* constant paddings that only a max pool reads */
      tfs_remap__pad_maxpool,
      /* scalar maps on a convolution's input (Keras's Rescaling), once
       * the convolutions have their final ops */
      tfs_remap__input_affine,
  };
  for (size_t i = 0; i < sizeof kLater / sizeof kLater[0]; i++)
    if (each_cpu_node(c, kLater[i], &stats, &total)) return -1;
  for (int i = 0; i < stats.n; i++)
    tfs_opt__note(c, "%s: %d", stats.what[i], stats.count[i]);
  c->changes += total;
  return g->oom ? (TFS_OOM(c->st), -1) : 0;
}
