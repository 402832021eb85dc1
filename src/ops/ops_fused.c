/*
 * ops/ops_fused.c - the internal fused ops the remapper creates.
 * _FusedMatMul, _FusedConv2D and _FusedDepthwiseConv2dNative have
 * TensorFlow's names, arguments and attrs (so graphs using them load in
 * TensorFlow); _FusedBatchMatMulV2 (TensorFlow's oneDNN-only
 * _MklFusedBatchMatMulV2 under a plain name), _TfsSwish (TensorFlow's
 * Intel-only _MklSwish), _TfsHardSwish (Keras's hard_swish, x * relu6(x
 * + 3) / 6, in one op), _TfsGelu (GELU in one op: x Phi(x) with
 * approximate = false, the tanh form 0.5 x (1 + tanh(sqrt(2/pi) (x +
 * 0.044715 x^3))) with true), _TfsFusedConv2DMaxPool (a _FusedConv2D
 * whose output only feeds a non-overlapping VALID MaxPool),
 * _TfsFusedConv2DDepthwise (a _FusedConv2D with a bias whose output only
 * feeds a _FusedDepthwiseConv2dNative with a bias; the depthwise
 * convolution's attributes carry a dw_ prefix, fused_conv_dw.h),
 * _TfsFusedConv2DDepthwiseConv2D (a _TfsFusedConv2DDepthwise whose output
 * only feeds a 1x1 stride-1 _FusedConv2D, the pointwise projection of an
 * inverted residual block: pw_fused_ops ["BiasAdd"] with num_pw_args 0,
 * or ["BiasAdd", "Add"] with the residual addend as its one pw_args),
 * _TfsFusedDepthwiseConv2DConv2D (a _FusedDepthwiseConv2dNative whose
 * output only feeds such a projection, the depthwise attributes with a
 * dw_ prefix),
 * _TfsScaleShift (activation(x * scale + offset), scale and offset along
 * the last dimension, activation Identity, Relu or Relu6), _TfsMatMulSum
 * (MatMul(a, wa) + MatMul(b, wb), plus a bias along the last dimension
 * with num_args 1; node_names names the two MatMuls and the Add for its
 * shape errors), _TfsLstmGates, _TfsLstmSequence (a Keras LSTM layer's
 * While loop in one op: its inputs are the loop's variables, its outputs
 * the loop's results; backends/cpu/lstm_seq.c) and _TfsPermutedBatchMatMul
 * (transpose(BatchMatMulV2(transpose(x, perm_x), transpose(y, perm_y))
 * [* scale], perm_out), an empty permutation leaving its tensor as it
 * is; optimizer/remap_bmm_perm.c) and _TfsFusedMatMulFloatOut (a
 * bfloat16 _FusedMatMul whose bias and activation are float32 and whose
 * output is float32, or with out_type bfloat16 rounded once: auto mixed
 * precision's MatMul, Cast to float32, BiasAdd [+ activation] [, Cast to
 * bfloat16]) are tfsess's own.  Shapes are those of
 * the unfused ops.  tfsess's _FusedDepthwiseConv2dNative also takes
 * padding EXPLICIT with explicit_paddings (TensorFlow's has SAME and
 * VALID only), which the optimizer uses where it folds a zero Pad into
 * the convolution; tfsess's _FusedConv2D also takes T bfloat16 (auto
 * mixed precision's convolutions; TensorFlow's kernel has none), which
 * the optimizer does not write where it must stay loadable in
 * TensorFlow.
 *
 * fused_ops of _FusedMatMul, _FusedConv2D and _FusedDepthwiseConv2dNative:
 * a first op (BiasAdd; for _FusedConv2D also FusedBatchNorm or
 * FusedBatchNormV3), for _FusedConv2D after BiasAdd optionally Add (a
 * second argument of the output's shape, added before the activation:
 * TensorFlow's oneDNN residual fusion), then at most one activation:
 * Relu, Relu6, Elu, LeakyRelu, Tanh, Sigmoid, TensorFlow's fused-only
 * _MklSwish, GeluApproximate and GeluExact, and tfsess's _TfsHardSwish.
 * _FusedBatchMatMulV2 takes ["Mul"].
 */
#include <string.h>

#include "ops/fused_conv_dw.h"
#include "ops/op_tables.h"
#include "ops/nn_window.h"
#include "ops/shape_ctx.h"

/* The shape of the contraction `op` from the first two inputs. */
static int contraction_shape(tfs_shape_ctx *c, const char *op) {
  const tfs_op_def *def = tfs_op_lookup(op);
  if (!def || !def->shape_fn || c->ninputs < 2) return tfs_shape_fn_unknown(c);
  tfs_shape_ctx c2 = *c;
  c2.op = def;
  c2.ninputs = 2;
  return def->shape_fn(&c2);
}

static int fused_matmul_shape(tfs_shape_ctx *c) {
  return contraction_shape(c, "MatMul");
}
static int fused_conv2d_shape(tfs_shape_ctx *c) {
  return contraction_shape(c, "Conv2D");
}
static int fused_depthwise_shape(tfs_shape_ctx *c) {
  return contraction_shape(c, "DepthwiseConv2dNative");
}
/* _FusedConv2D's shape, then the pool's VALID windows (pool_ksize and
 * pool_strides, NHWC). */
/* _TfsLstmGates: [rows, width / 4] broadcast with c_prev, for h and c. */
static int lstm_gates_shape(tfs_shape_ctx *c) {
  if (tfs_sc_with_rank(c, 0, 2)) return -1;
  const tfs_shape *z = &c->in_shapes[0];
  tfs_shape g = {.rank = 2, .dims = {-1, -1}}, o;
  if (z->rank == 2) {
    g.dims[0] = z->dims[0];
    if (z->dims[1] >= 0 && z->dims[1] % 4 != 0)
      return tfs_sc_error(c, "Dimension size must be evenly divisible by 4 "
                             "but is %lld", (long long)z->dims[1]);
    g.dims[1] = z->dims[1] < 0 ? -1 : z->dims[1] / 4;
  }
  if (tfs_shape_broadcast(&g, &c->in_shapes[1], &o))
    return tfs_sc_error(c, "Incompatible shapes for z's gates and c_prev");
  c->out_shapes[0] = o;
  c->out_shapes[1] = o;
  return 0;
}

/* _TfsLstmSequence: scalar counters and list; h and c keep their shapes
 * (the loop's, or the inputs themselves when it runs no step), but for a
 * first dimension of 1, which the batch may broadcast. */
static int lstm_seq_shape(tfs_shape_ctx *c) {
  for (int i = 0; i < 3; i++) tfs_shape_scalar(&c->out_shapes[i]);
  for (int k = 0; k < 2; k++) {
    tfs_shape s = c->in_shapes[5 + k];
    if (s.rank == 2 && s.dims[0] == 1) s.dims[0] = -1;
    c->out_shapes[3 + k] = s;
  }
  return 0;
}

/* _TfsMatMulSum: MatMul(a, wa) broadcast with MatMul(b, wb). */
static int matmul_sum_shape(tfs_shape_ctx *c) {
  const tfs_op_def *mm = tfs_op_lookup("MatMul");
  if (!mm || !mm->shape_fn || c->ninputs < 4) return tfs_shape_fn_unknown(c);
  tfs_shape prod[2];
  for (int k = 0; k < 2; k++) {
    tfs_shape_ctx c2 = *c;
    tfs_shape in[2] = {c->in_shapes[k], c->in_shapes[k + 2]};
    c2.op = mm;
    c2.ninputs = 2;
    c2.in_shapes = in;
    c2.in_consts = NULL;
    c2.noutputs = 1;
    c2.out_shapes = &prod[k];
    prod[k].rank = -1;
    if (mm->shape_fn(&c2)) return -1;
  }
  if (tfs_shape_broadcast(&prod[0], &prod[1], &c->out_shapes[0]))
    return tfs_sc_error(c, "Incompatible shapes of the two products");
  return 0;
}

static int fused_conv_pool_shape(tfs_shape_ctx *c) {
  if (contraction_shape(c, "Conv2D")) return -1;
  tfs_shape *s = &c->out_shapes[0];
  if (s->rank != 4) return 0;
  const tfs_attr_value *k = tfs_attrs_find(c->attrs, "pool_ksize");
  const tfs_attr_value *st = tfs_attrs_find(c->attrs, "pool_strides");
  if (!k || !st || !k->is_list || !st->is_list || k->u.list.n != 4 ||
      st->u.list.n != 4)
    return tfs_sc_error(c, "pool_ksize and pool_strides must have 4 "
                           "elements");
  const int64_t *kv = k->u.list.v, *sv = st->u.list.v;
  for (int d = 1; d <= 2; d++) {
    if (s->dims[d] < 0) continue;
    if (tfs_window_output_dim(s->dims[d], kv[d], 1, sv[d], TFS_PADDING_VALID,
                              0, 0, &s->dims[d], c->st))
      return -1;
  }
  return 0;
}

int tfs_fused_conv_dw_attrs(const tfs_attrs *a, tfs_attrs *out) {
  tfs_attrs_init(out);
  for (int i = 0; i < a->n; i++) {
    const char *name = a->e[i].name;
    int dw = strncmp(name, "dw_", 3) == 0;
    if (!dw && strcmp(name, "T") != 0 && strcmp(name, "data_format") != 0)
      continue;
    tfs_attr_value v;
    if (tfs_attr_value_copy(&v, &a->e[i].value) ||
        tfs_attrs_set(out, dw ? name + 3 : name, &v)) {
      tfs_attrs_clear(out);
      return -1;
    }
  }
  return 0;
}

/* transpose(s, the int list attribute `name`) into out; s itself when
 * the list is empty or s's rank is unknown. */
static int permuted(tfs_shape_ctx *c, const char *name, const tfs_shape *s,
                    tfs_shape *out) {
  int n = 0;
  const int64_t *p = tfs_attrs_get_int_list(c->attrs, name, &n);
  *out = *s;
  if (!p || n == 0 || s->rank < 0) return 0;
  if (n != s->rank)
    return tfs_sc_error(c, "%s has %d elements but its tensor has rank %d",
                        name, n, s->rank);
  int seen[TFS_MAX_RANK] = {0};
  for (int i = 0; i < n; i++) {
    if (p[i] < 0 || p[i] >= n || seen[p[i]])
      return tfs_sc_error(c, "%s is not a permutation of 0..%d", name,
                          n - 1);
    seen[p[i]] = 1;
    out->dims[i] = s->dims[p[i]];
  }
  return 0;
}

/* _TfsPermutedBatchMatMul: BatchMatMulV2's shape from the permuted
 * operands, permuted by perm_out. */
static int permuted_bmm_shape(tfs_shape_ctx *c) {
  const tfs_op_def *def = tfs_op_lookup("BatchMatMulV2");
  if (!def || !def->shape_fn || c->ninputs < 2) return tfs_shape_fn_unknown(c);
  tfs_shape in[2], prod = {.rank = -1};
  if (permuted(c, "perm_x", &c->in_shapes[0], &in[0]) ||
      permuted(c, "perm_y", &c->in_shapes[1], &in[1]))
    return -1;
  tfs_shape_ctx c2 = *c;
  c2.op = def;
  c2.ninputs = 2;
  c2.in_shapes = in;
  c2.in_consts = NULL;
  c2.noutputs = 1;
  c2.out_shapes = &prod;
  if (def->shape_fn(&c2)) return -1;
  return permuted(c, "perm_out", &prod, &c->out_shapes[0]);
}

/* _TfsFusedConv2DDepthwise: Conv2D's shape from input and filter, then
 * DepthwiseConv2dNative's from that and dw_filter under the dw_
 * attributes. */
static int fused_conv_dw_shape(tfs_shape_ctx *c) {
  const tfs_op_def *dw = tfs_op_lookup("DepthwiseConv2dNative");
  if (!dw || !dw->shape_fn || c->ninputs < 4) return tfs_shape_fn_unknown(c);
  if (contraction_shape(c, "Conv2D")) return -1;
  tfs_attrs da;
  if (tfs_fused_conv_dw_attrs(c->attrs, &da))
    return tfs_sc_error(c, "out of memory");
  tfs_shape in[2] = {c->out_shapes[0], c->in_shapes[3]};
  tfs_shape_ctx c2 = *c;
  c2.op = dw;
  c2.attrs = &da;
  c2.ninputs = 2;
  c2.in_shapes = in;
  c2.in_consts = NULL;
  c2.out_shapes[0].rank = -1;
  int rc = dw->shape_fn(&c2);
  tfs_attrs_clear(&da);
  return rc;
}

/* The depthwise output's shape in out_shapes[0] through a 1x1
 * convolution with stride 1 by pw_filter (input i) [1, 1, depth, out]. */
static int pw_shape(tfs_shape_ctx *c, int i) {
  const tfs_shape *pf = &c->in_shapes[i];
  tfs_shape *s = &c->out_shapes[0];
  if (pf->rank < 0) {
    if (s->rank == 4) s->dims[3] = -1;
    return 0;
  }
  if (pf->rank != 4 || (pf->dims[0] >= 0 && pf->dims[0] != 1) ||
      (pf->dims[1] >= 0 && pf->dims[1] != 1))
    return tfs_sc_error(c, "pw_filter must be a 1x1 filter [1, 1, in, out], "
                           "got rank %d", pf->rank);
  if (s->rank == 4 && s->dims[3] >= 0 && pf->dims[2] >= 0 &&
      s->dims[3] != pf->dims[2])
    return tfs_sc_error(c, "pw_filter's input depth %lld does not match the "
                           "depthwise convolution's output depth %lld",
                        (long long)pf->dims[2], (long long)s->dims[3]);
  if (s->rank == 4) s->dims[3] = pf->dims[3];
  return 0;
}

/* _TfsFusedConv2DDepthwiseConv2D: _TfsFusedConv2DDepthwise's shape, then
 * the projection's. */
static int fused_conv_dw_pw_shape(tfs_shape_ctx *c) {
  if (c->ninputs < 7) return tfs_shape_fn_unknown(c);
  if (fused_conv_dw_shape(c)) return -1;
  return pw_shape(c, 5);
}

/* _TfsFusedDepthwiseConv2DConv2D: DepthwiseConv2dNative's shape under the
 * dw_ attributes, then the projection's. */
static int fused_dw_pw_shape(tfs_shape_ctx *c) {
  const tfs_op_def *dw = tfs_op_lookup("DepthwiseConv2dNative");
  if (!dw || !dw->shape_fn || c->ninputs < 5) return tfs_shape_fn_unknown(c);
  tfs_attrs da;
  if (tfs_fused_conv_dw_attrs(c->attrs, &da))
    return tfs_sc_error(c, "out of memory");
  tfs_shape_ctx c2 = *c;
  c2.op = dw;
  c2.attrs = &da;
  c2.ninputs = 2;
  int rc = dw->shape_fn(&c2);
  tfs_attrs_clear(&da);
  return rc ? rc : pw_shape(c, 3);
}

static int fused_batch_matmul_shape(tfs_shape_ctx *c) {
  return contraction_shape(c, "BatchMatMulV2");
}

#define FUSED_ATTRS                                                        \
  "fused_ops: list(string) = []; epsilon: float = 9.999999747378752e-05; " \
  "leakyrelu_alpha: float = 0.20000000298023224"

const tfs_op_spec tfs_ops_fused[] = {
    {"_FusedMatMul", "a: T; b: T; args: num_args * T", "product: T",
     "transpose_a: bool = false; transpose_b: bool = false; T: {bfloat16, "
     "half, float}; num_args: int >= 0; " FUSED_ATTRS,
     fused_matmul_shape, 0},
    {"_TfsFusedMatMulFloatOut", "a: T; b: T; args: num_args * float",
     "product: out_type",
     "transpose_a: bool = false; transpose_b: bool = false; T: {bfloat16} "
     "= bfloat16; out_type: {float, bfloat16} = float; num_args: int >= 0; "
     FUSED_ATTRS,
     fused_matmul_shape, 0},
    {"_FusedConv2D",
     "input: T; filter: T; args: TArgs; host_args: num_host_args * float",
     "output: T",
     "T: {half, bfloat16, float, double, int8, qint8}; TArgs: list(type) "
     ">= 1; "
     "num_args: int >= 0; num_host_args: int >= 0 = 0; strides: list(int); "
     "padding: {'SAME', 'VALID', 'EXPLICIT'}; explicit_paddings: list(int) "
     "= []; data_format: {'NHWC', 'NCHW', 'NCHW_VECT_C'} = 'NHWC'; "
     "filter_format: {'HWIO', 'OIHW', 'OIHW_VECT_I'} = 'HWIO'; dilations: "
     "list(int) = [1, 1, 1, 1]; use_cudnn_on_gpu: bool = true; " FUSED_ATTRS,
     fused_conv2d_shape, 0},
    {"_FusedDepthwiseConv2dNative", "input: T; filter: T; args: num_args * T",
     "output: T",
     "T: {half, bfloat16, float, double}; num_args: int >= 0; strides: "
     "list(int); padding: {'SAME', 'VALID', 'EXPLICIT'}; explicit_paddings: "
     "list(int) = []; data_format: {'NHWC', 'NCHW'} = 'NHWC'; dilations: "
     "list(int) = [1, 1, 1, 1]; " FUSED_ATTRS,
     fused_depthwise_shape, 0},
    {"_FusedBatchMatMulV2", "x: T; y: T; args: num_args * T", "output: T",
     "T: {bfloat16, float, half}; adj_x: bool = false; adj_y: bool = false; "
     "num_args: int >= 0; " FUSED_ATTRS,
     fused_batch_matmul_shape, 0},
    {"_TfsPermutedBatchMatMul", "x: T; y: T; args: num_args * T",
     "output: T",
     "T: {float, bfloat16} = float; adj_x: bool = false; adj_y: bool = "
     "false; perm_x: list(int) = []; perm_y: list(int) = []; perm_out: "
     "list(int) = "
     "[]; num_args: int >= 0 = 0; " FUSED_ATTRS,
     permuted_bmm_shape, 0},
    {"_TfsSwish", "features: T", "activations: T",
     "T: {bfloat16, float, double} = float", tfs_shape_fn_unchanged,
     TFS_OP_ELEMENTWISE},
    {"_TfsHardSwish", "features: T", "activations: T",
     "T: {bfloat16, float, double} = float", tfs_shape_fn_unchanged,
     TFS_OP_ELEMENTWISE},
    {"_TfsLayerNorm", "x: T; scale: T; offset: T", "y: T",
     "T: {float} = float; epsilon: float = 0.001", tfs_shape_fn_unchanged,
     0},
    {"_TfsAddLayerNorm", "x: T; scale: T; offset: T; addend: T", "y: T",
     "T: {float} = float; epsilon: float = 0.001", tfs_shape_fn_unchanged,
     0},
    {"_TfsScaleShift", "x: T; scale: T; offset: T", "y: T",
     "T: {float} = float; activation: {'Identity', 'Relu', 'Relu6'} = "
     "'Identity'",
     tfs_shape_fn_unchanged, 0},
    {"_TfsGelu", "features: T", "activations: T",
     "T: {half, bfloat16, float, double} = float; approximate: bool = false",
     tfs_shape_fn_unchanged, TFS_OP_ELEMENTWISE},
    {"_TfsFusedConv2DMaxPool",
     "input: T; filter: T; args: TArgs; host_args: num_host_args * float",
     "output: T",
     "T: {float}; TArgs: list(type) >= 1; num_args: int >= 0; "
     "num_host_args: int >= 0 = 0; strides: list(int); padding: {'SAME', "
     "'VALID', 'EXPLICIT'}; explicit_paddings: list(int) = []; "
     "data_format: {'NHWC'} = 'NHWC'; filter_format: {'HWIO'} = 'HWIO'; "
     "dilations: list(int) = [1, 1, 1, 1]; use_cudnn_on_gpu: bool = true; "
     "pool_ksize: list(int); pool_strides: list(int); " FUSED_ATTRS,
     fused_conv_pool_shape, 0},
    {"_TfsFusedConv2DDepthwise",
     "input: T; filter: T; bias: T; dw_filter: T; dw_bias: T",
     "output: T",
     "T: {float, bfloat16} = float; strides: list(int); padding: {'SAME', "
     "'VALID', 'EXPLICIT'}; explicit_paddings: list(int) = []; data_format: "
     "{'NHWC'} = 'NHWC'; filter_format: {'HWIO'} = 'HWIO'; dilations: "
     "list(int) = [1, 1, 1, 1]; fused_ops: list(string) = []; "
     "leakyrelu_alpha: float = 0.20000000298023224; dw_strides: list(int); "
     "dw_padding: {'SAME', 'VALID', 'EXPLICIT'}; dw_explicit_paddings: "
     "list(int) = []; dw_dilations: list(int) = [1, 1, 1, 1]; "
     "dw_fused_ops: list(string) = []; dw_leakyrelu_alpha: float = "
     "0.20000000298023224",
     fused_conv_dw_shape, 0},
    {"_TfsFusedConv2DDepthwiseConv2D",
     "input: T; filter: T; bias: T; dw_filter: T; dw_bias: T; pw_filter: T; "
     "pw_bias: T; pw_args: num_pw_args * T",
     "output: T",
     "T: {float} = float; strides: list(int); padding: {'SAME', 'VALID', "
     "'EXPLICIT'}; explicit_paddings: list(int) = []; data_format: {'NHWC'} "
     "= 'NHWC'; filter_format: {'HWIO'} = 'HWIO'; dilations: list(int) = "
     "[1, 1, 1, 1]; fused_ops: list(string) = []; leakyrelu_alpha: float = "
     "0.20000000298023224; dw_strides: list(int); dw_padding: {'SAME', "
     "'VALID', 'EXPLICIT'}; dw_explicit_paddings: list(int) = []; "
     "dw_dilations: list(int) = [1, 1, 1, 1]; dw_fused_ops: list(string) = "
     "[]; dw_leakyrelu_alpha: float = 0.20000000298023224; pw_fused_ops: "
     "list(string) = []; num_pw_args: int >= 0 = 0",
     fused_conv_dw_pw_shape, 0},
    {"_TfsFusedDepthwiseConv2DConv2D",
     "input: T; dw_filter: T; dw_bias: T; pw_filter: T; pw_bias: T; "
     "pw_args: num_pw_args * T",
     "output: T",
     "T: {float} = float; data_format: {'NHWC'} = 'NHWC'; dw_strides: "
     "list(int); dw_padding: {'SAME', 'VALID', 'EXPLICIT'}; "
     "dw_explicit_paddings: list(int) = []; dw_dilations: list(int) = [1, "
     "1, 1, 1]; dw_fused_ops: list(string) = []; dw_leakyrelu_alpha: float "
     "= 0.20000000298023224; pw_fused_ops: list(string) = []; num_pw_args: "
     "int >= 0 = 0",
     fused_dw_pw_shape, 0},
    {"_TfsMatMulSum", "a: T; b: T; wa: T; wb: T; bias: num_args * T",
     "product: T",
     "T: {float} = float; num_args: int >= 0 = 0; node_names: list(string) "
     "= []",
     matmul_sum_shape, 0},
    {"_TfsLstmGates", "z: T; c_prev: T", "h: T; c: T", "T: {float} = float",
     lstm_gates_shape, 0},
    {"_TfsLstmSequence",
     "counter: int32; max_iterations: int32; time: int32; time_limit: "
     "int32; output_list: variant; h: T; c: T; input_list: variant; "
     "kernel: T; recurrent_kernel: T; bias: T",
     "counter_out: int32; time_out: int32; output_list_out: variant; "
     "h_out: T; c_out: T",
     "T: {float} = float; output_index: int = -1; gate_order: list(int) = "
     "[0, 1, 2, 3]",
     lstm_seq_shape, TFS_OP_NO_FOLD},
    {NULL, NULL, NULL, NULL, NULL, 0},
};
