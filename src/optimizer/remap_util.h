/*
 * optimizer/remap_util.h - the remapper's building blocks: a matched
 * contraction chain, the rewrite into a fused node (with batch norms
 * folded into constant filters), batch-norm decomposition, the
 * activations Keras and tf.nn write as subgraphs (swish, the exact and the
 * tanh GELU, hard-swish), and the per-pattern counts the report prints.
 */
#ifndef TFS_OPTIMIZER_REMAP_UTIL_H
#define TFS_OPTIMIZER_REMAP_UTIL_H

#include "optimizer/optimizer.h"

enum { TFS_REMAP_BIAS, TFS_REMAP_BN };
enum { TFS_REMAP_MATMUL, TFS_REMAP_CONV, TFS_REMAP_DEPTHWISE };

/* Activations written as subgraphs. */
enum {
  TFS_REMAP_ACT_SWISH = 1,  /* x * Sigmoid(x) */
  TFS_REMAP_ACT_GELU_EXACT, /* 0.5 * x * Erfc(-x / sqrt(2)) and the like */
  TFS_REMAP_ACT_GELU_TANH,  /* 0.5 * x * (1 + Tanh(sqrt(2/pi) * (x +
                               0.044715 * x^3))) */
  TFS_REMAP_ACT_HARD_SWISH  /* x * Relu6(x + 3) / 6 */
};

#define TFS_REMAP_MAX_INNER 24

/* A matched activation subgraph ending at `root`. */
typedef struct tfs_remap_act {
  int kind;   /* TFS_REMAP_ACT_* */
  int root;   /* its last node (a Mul, or the IdentityN Keras puts after
                 its swish): the fused node takes its name */
  tfs_oref x; /* the activation's input */
  int x_uses; /* data edges from x into the subgraph */
  int ninner; /* the subgraph's other nodes (each used once, inside it) */
  int inner[TFS_REMAP_MAX_INNER];
} tfs_remap_act;

/* Matches an activation subgraph ending at `root` (float, every node on
 * root's device, inner nodes used only inside the subgraph, not
 * preserved or fed, without control inputs; constants scalars within a
 * relative 1e-6 of the formula's).  A Mul whose only consumer is an
 * IdentityN that the subgraph can end at instead does not match (the
 * IdentityN does).  Returns 1 and fills *a on a match. */
int tfs_remap__match_act(const tfs_ograph *g, int root, tfs_remap_act *a);

/* The name of a matched activation in fused_ops ("_MklSwish",
 * "GeluExact", "GeluApproximate", "_TfsHardSwish"). */
const char *tfs_remap__act_fused_name(int kind);

/* tfs_remap__replace for a matched activation: replaces a->root, then
 * removes the subgraph's nodes and the constants only they read, and the
 * inner nodes b1 and b2 (-1: none) of a contraction chain below. */
int tfs_remap__replace_act(tfs_opt_ctx *c, const tfs_remap_act *a,
                           const char *op, tfs_attrs *attrs, int nin,
                           const tfs_oref *in, int b1, int b2);

typedef struct tfs_remap_match {
  int root;        /* the last node: its name survives */
  int act;         /* activation node, or -1 */
  const char *act_op;             /* fused activation name, or NULL */
  const tfs_remap_act *composite; /* activation subgraph, or NULL */
  int mid;         /* BiasAdd or FusedBatchNorm */
  int contraction; /* MatMul, Conv2D or DepthwiseConv2dNative */
  int kind;        /* TFS_REMAP_BIAS / _BN */
  int op;          /* TFS_REMAP_MATMUL / ... */
} tfs_remap_match;

#define TFS_REMAP_MAX_PATTERNS 24

typedef struct tfs_remap_stats {
  int n;
  char what[TFS_REMAP_MAX_PATTERNS][112];
  int count[TFS_REMAP_MAX_PATTERNS];
} tfs_remap_stats;

void tfs_remap__count(tfs_remap_stats *s, const char *what);

/* Keras 3's layer normalization subgraph ending at the Add / AddV2 v ->
 * _TfsLayerNorm(x, gamma, beta) (remap_layer_norm.c); 1 when rewritten,
 * 0 when v does not end one (or the op has no kernel on its device, or
 * the output must load in TensorFlow), -1 on an error. */
int tfs_remap__layer_norm(tfs_opt_ctx *c, int v, tfs_remap_stats *stats);

/* A scalar Mul and/or Add (or Sub) on the input of the _FusedConv2D q
 * -> q mapping its input as it reads it (_tfs_input_scale,
 * _tfs_input_shift; remap_input_affine.c); 1 when rewritten, 0 when q
 * does not read one (or the output must load in TensorFlow), -1 on an
 * error. */
int tfs_remap__input_affine(tfs_opt_ctx *c, int q, tfs_remap_stats *stats);

/* 1 when node q maps its input so (the rewrites that copy a fixed set
 * of q's attrs into another op must leave q alone). */
int tfs_remap__has_input_affine(const tfs_ograph *g, int q);

/* [Relu | Relu6](Mul(x, scale) + offset) with per-channel constants,
 * ending at v -> _TfsScaleShift (remap_scale_shift.c); 1 when rewritten,
 * 0 when v does not end one (or the op has no kernel on its device, or
 * the output must load in TensorFlow), -1 on an error. */
int tfs_remap__scale_shift(tfs_opt_ctx *c, int v, tfs_remap_stats *stats);

/* A Keras LSTM cell's gates ending at the Mul v that makes h ->
 * _TfsLstmGates(z, c_prev) (remap_lstm.c); 1 when rewritten, 0 when v
 * does not end them (or the op has no kernel on its device, or the
 * output must load in TensorFlow), -1 on an error. */
int tfs_remap__lstm_gates(tfs_opt_ctx *c, int v, tfs_remap_stats *stats);

/* A Keras LSTM layer's While loop w (its body the cell, its condition
 * counter < max && time < limit) -> _TfsLstmSequence
 * (remap_lstm_loop.c), when the remapper is in the pipeline and not
 * tf_compatible; the loop's consumers move to the op or to the loop's
 * inputs.  1 when rewritten, 0 when w is not such a loop (or the op has
 * no kernel on its device), -1 on an error. */
int tfs_remap__lstm_loop(tfs_opt_ctx *c, int w);

/* [BiasAdd](AddV2(MatMul(a, wa), MatMul(b, wb))) with constant float
 * weights of as many columns, ending at v (a BiasAdd or an Add / AddV2)
 * -> _TfsMatMulSum(a, b, wa, wb[, bias]) (remap_matmul_sum.c); 1 when
 * rewritten, 0 when v does not end one (or the op has no kernel on its
 * device, or the output must load in TensorFlow), -1 on an error. */
int tfs_remap__matmul_sum(tfs_opt_ctx *c, int v, tfs_remap_stats *stats);

/* T float, adj_x, adj_y, and fused_ops ["Mul"] with num_args 1 when
 * `scaled`, else none: the attributes _FusedBatchMatMulV2 and
 * _TfsPermutedBatchMatMul share.  0, or -1 when memory runs out. */
int tfs_remap__bmm_attrs(tfs_attrs *a, int adj_x, int adj_y, int scaled);

/* A float BatchMatMulV2 / BatchMatMul / _FusedBatchMatMulV2 ["Mul"] at
 * v with constant-permutation Transposes on its inputs or its output ->
 * _TfsPermutedBatchMatMul (remap_bmm_perm.c); 1 when rewritten, 0 when
 * not applicable (or the output must load in TensorFlow), -1 on an
 * error. */
int tfs_remap__bmm_perm(tfs_opt_ctx *c, int v, tfs_remap_stats *stats);

/* _TfsFusedMatMulFloatOut v (float32 out) read only by a Cast to
 * bfloat16 becomes one op with out_type bfloat16 (remap_float_out.c):
 * 1 when rewritten, 0 when not applicable (or the output must load in
 * TensorFlow), -1 on an error. */
int tfs_remap__float_out_cast(tfs_opt_ctx *c, int v, tfs_remap_stats *stats);

/* Node p is a two-input float op on `device`, read once (one data
 * edge), removable, without control edges: an inner node of a match. */
int tfs_remap__inner_binary(const tfs_ograph *g, int p, const char *device);
/* The same for an op of output type t. */
int tfs_remap__inner_binary_of(const tfs_ograph *g, int p, const char *device,
                               tfs_dtype t);

/* pass_remap.c's shared tests of a node: its output 0 is float; it is
 * fusable (float or bfloat16); the producer of input k of v for fusion
 * (live, not fed, port 0, read by v alone, of v's type, on v's device),
 * else -1; fused_ops ["BiasAdd" ...] with one argument, NHWC, HWIO; its
 * fused_ops exactly ["BiasAdd"] (1) or ["BiasAdd", "Add"] (2), else 0. */
int tfs_remap__is_float_node(const tfs_ograph *g, int v);
int tfs_remap__is_fusable_node(const tfs_ograph *g, int v);
int tfs_remap__fusable_input(const tfs_ograph *g, int v, int k);
int tfs_remap__bias_fused_nhwc(const tfs_ograph *g, int i);
int tfs_remap__fused_bias_only(const tfs_ograph *g, int q);

/* The depthwise blocks (remap_conv_dw.c): a _FusedDepthwiseConv2dNative v
 * over a _FusedConv2D's output -> _TfsFusedConv2DDepthwise; a 1x1
 * _FusedConv2D v over a _TfsFusedConv2DDepthwise or a
 * _FusedDepthwiseConv2dNative -> _TfsFusedConv2DDepthwiseConv2D or
 * _TfsFusedDepthwiseConv2DConv2D.  1 when rewritten, 0 when not
 * applicable (or the output must load in TensorFlow), -1 on an error. */
int tfs_remap__conv_depthwise(tfs_opt_ctx *c, int v, tfs_remap_stats *stats);
int tfs_remap__conv_depthwise_project(tfs_opt_ctx *c, int v,
                                      tfs_remap_stats *stats);

/* A MaxPool v (float, NHWC, VALID) over a constant Pad / PadV2 of height
 * and width that only it reads -> MaxPool with EXPLICIT padding read as
 * the Pad's value (_tfs_pad_value; remap_pad_pool.c).  1 when rewritten,
 * 0 when not applicable (or the output must load in TensorFlow), -1 on
 * an error. */
int tfs_remap__pad_maxpool(tfs_opt_ctx *c, int v, tfs_remap_stats *stats);

/* Replaces `root` by a new node (root's name, device, and the control
 * inputs of root and of the inner nodes a and b, which may be -1), then
 * removes the inner nodes left unused.  attrs are consumed. */
int tfs_remap__replace(tfs_opt_ctx *c, int root, const char *op,
                       tfs_attrs *attrs, int nin, const tfs_oref *in, int a,
                       int b);

/* Replaces `root` by `op` (as tfs_remap__replace; attrs consumed) when
 * op has a kernel on root's device for these attrs: the new node, -2
 * when it has none (the graph unchanged), -1 on an error. */
int tfs_remap__replace_if_kernel(tfs_opt_ctx *c, int root, const char *op,
                                 tfs_attrs *attrs, int nin,
                                 const tfs_oref *in, int a, int b);

/* After a rewrite into node `r`: removes the `n` matched inner nodes
 * (entries -1 skipped) that nothing else reads, and records each one
 * removed among r's original names (computed by r now).  0, or -1 on
 * OOM (reported in c->st). */
int tfs_remap__drop_inner(tfs_opt_ctx *c, int r, const int *inner, int n);

/* The batch norm's scale/offset/mean/variance and the contraction's
 * filter are float constants. */
int tfs_remap__bn_constant(const tfs_ograph *g, const tfs_remap_match *m);

/* Rewrites a matched chain; returns 1, or -1 on error. */
/* Conv2D v with one input channel a group (filter [kh, kw, 1, C * m] on
 * C channels) -> DepthwiseConv2dNative with the filter as [kh, kw, C, m]
 * (remap_grouped.c); 1 when rewritten, 0 when v is not one (or the
 * depthwise op has no kernel for it on its device), -1 on an error. */
int tfs_remap__grouped_depthwise(tfs_opt_ctx *c, int v,
                                 tfs_remap_stats *stats);

/* A float two-operand Einsum v that is a batched matrix product up to a
 * permutation of each side -> BatchMatMulV2 with Transposes that
 * remap_bmm_perm.c then reads in place (remap_einsum.c); 1 when
 * rewritten, 0 when v is not one (or the output must load in
 * TensorFlow), -1 on an error. */
int tfs_remap__einsum_bmm(tfs_opt_ctx *c, int v, tfs_remap_stats *stats);

int tfs_remap__fuse_contraction(tfs_opt_ctx *c, const tfs_remap_match *m,
                                tfs_remap_stats *stats);

/* Inference batch norm v with constant statistics -> x * s + o; returns
 * 1 when rewritten, 0 when not applicable, -1 on error. */
int tfs_remap__decompose_bn(tfs_opt_ctx *c, int v, tfs_remap_stats *stats);

#endif
