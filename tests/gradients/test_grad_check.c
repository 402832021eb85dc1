/*
 * tests/gradients/test_grad_check.c - numeric against symbolic gradients
 * for every op the gradient registry differentiates.
 *
 * Each case builds a small graph around one op (or a few, for ops that
 * only make sense together) from double (or, for float-only kernels,
 * float) placeholders; grad_check_util.c compares the symbolic gradient
 * of a random weighting of its output with central differences.  The
 * coverage test fails when an op has a gradient function but no case, so
 * a new gradient is tested by adding a line to kCases.
 */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <string.h>

#include "grad_check_util.h"
#include "testutil.h"

#define B(name) static tfs_output name(tfs_graph *g, const tfs_output *x)
#define OP1(t, a, at) gc_op(g, (t), (tfs_output[]){(a)}, 1, (at))
#define OP2(t, a, b, at) gc_op(g, (t), (tfs_output[]){(a), (b)}, 2, (at))
#define OP3(t, a, b, c, at) \
  gc_op(g, (t), (tfs_output[]){(a), (b), (c)}, 3, (at))
#define I32(...)                                                  \
  gc_i32(g, (const int32_t[]){__VA_ARGS__},                        \
         (int)(sizeof((int32_t[]){__VA_ARGS__}) / sizeof(int32_t)))

#define UNARY(fn, type) \
  B(fn) { return OP1(type, x[0], NULL); }
#define BINARY(fn, type) \
  B(fn) { return OP2(type, x[0], x[1], NULL); }

UNARY(u_abs, "Abs")
UNARY(u_acos, "Acos")
UNARY(u_acosh, "Acosh")
UNARY(u_asin, "Asin")
UNARY(u_asinh, "Asinh")
UNARY(u_atan, "Atan")
UNARY(u_atanh, "Atanh")
UNARY(u_cos, "Cos")
UNARY(u_cosh, "Cosh")
UNARY(u_digamma, "Digamma")
UNARY(u_erf, "Erf")
UNARY(u_erfc, "Erfc")
UNARY(u_erfinv, "Erfinv")
UNARY(u_exp, "Exp")
UNARY(u_expm1, "Expm1")
UNARY(u_identity, "Identity")
UNARY(u_snapshot, "Snapshot")
UNARY(u_inv, "Inv")
UNARY(u_lgamma, "Lgamma")
UNARY(u_log, "Log")
UNARY(u_log1p, "Log1p")
UNARY(u_ndtri, "Ndtri")
UNARY(u_neg, "Neg")
UNARY(u_reciprocal, "Reciprocal")
UNARY(u_rsqrt, "Rsqrt")
UNARY(u_sigmoid, "Sigmoid")
UNARY(u_sin, "Sin")
UNARY(u_sinh, "Sinh")
UNARY(u_sqrt, "Sqrt")
UNARY(u_square, "Square")
UNARY(u_tan, "Tan")
UNARY(u_tanh, "Tanh")
UNARY(u_relu, "Relu")
UNARY(u_elu, "Elu")
UNARY(u_selu, "Selu")
UNARY(u_softplus, "Softplus")
UNARY(u_softsign, "Softsign")
UNARY(u_softmax, "Softmax")
UNARY(u_log_softmax, "LogSoftmax")
UNARY(u_l2loss, "L2Loss")
BINARY(b_add, "Add")
BINARY(b_addv2, "AddV2")
BINARY(b_sub, "Sub")
BINARY(b_mul, "Mul")
BINARY(b_div, "Div")
BINARY(b_realdiv, "RealDiv")
BINARY(b_divnonan, "DivNoNan")
BINARY(b_sqdiff, "SquaredDifference")
BINARY(b_pow, "Pow")
BINARY(b_maximum, "Maximum")
BINARY(b_minimum, "Minimum")
BINARY(b_atan2, "Atan2")
BINARY(b_bias_add, "BiasAdd")
BINARY(b_bias_add_v1, "BiasAddV1")

B(u_sign) { return OP2("Mul", OP1("Sign", x[0], NULL), x[0], NULL); }
B(u_check) { return OP1("CheckNumerics", x[0], "message=s:bad"); }
B(u_relu6) {
  return OP1("Relu6", OP2("Mul", x[0], gc_f64(g, 7.0), NULL), NULL);
}
B(u_leaky) { return OP1("LeakyRelu", x[0], "alpha=f:0.3"); }
B(u_leaky_grad) {
  static const double f[6] = {-0.7, 0.4, -0.2, 0.9, 0.3, -0.5};
  return OP2("LeakyReluGrad", x[0], gc_const(g, TFS_DOUBLE, "2x3", f, 6),
             "alpha=f:0.3");
}
B(u_cast) {
  tfs_output d = OP1("Cast", x[0], "DstT=t:double");
  return OP1("Exp", d, NULL);
}
/* An op whose first input is a list of n tensors, then `extra`. */
static tfs_output list_op(tfs_graph *g, const char *type, const tfs_output *l,
                          int n, const tfs_output *extra, int nextra,
                          const char *int_attr, int attr_val) {
  tfs_status *st = tfs_status_new();
  tfs_op_desc *d = tfs_op_desc_new(g, type, NULL);
  tfs_op_desc_add_input_list(d, l, n);
  for (int i = 0; i < nextra; i++) tfs_op_desc_add_input(d, extra[i]);
  if (int_attr) tfs_op_desc_set_attr_int(d, int_attr, attr_val);
  tfs_output o = {tfs_op_desc_finish(d, st), 0};
  if (!o.oper) fprintf(stderr, "\n  %s: %s\n", type, tfs_status_message(st));
  CU_ASSERT_PTR_NOT_NULL_FATAL(o.oper);
  tfs_status_free(st);
  return o;
}

B(u_identity_n) {
  tfs_output n = list_op(g, "IdentityN", x, 2, NULL, 0, NULL, 0);
  return OP2("Mul", n, gc_out(n, 1), NULL);
}
B(m_addn) {
  tfs_output in[3] = {x[0], x[1], x[0]};
  return list_op(g, "AddN", in, 3, NULL, 0, NULL, 0);
}
B(m_select) {
  tfs_output c = OP2("Greater", x[0], x[1], NULL);
  return OP3("Select", c, OP1("Exp", x[0], NULL), OP1("Sin", x[1], NULL),
             NULL);
}
B(m_select_v2) {
  tfs_output c = OP2("Greater", x[0], gc_f64(g, 0.0), NULL);
  return OP3("SelectV2", c, OP1("Exp", x[0], NULL), x[1], NULL);
}
/* lo in [-0.8, -0.2], hi in [0.2, 0.8], so lo < hi */
B(m_clip) {
  tfs_output k = gc_f64(g, 0.3), h = gc_f64(g, 0.5);
  tfs_output lo = OP2("Sub", OP2("Mul", x[1], k, NULL), h, NULL);
  tfs_output hi = OP2("AddV2", OP2("Mul", x[2], k, NULL), h, NULL);
  return OP3("ClipByValue", x[0], lo, hi, NULL);
}
B(m_complex) {
  tfs_output z = OP2("Complex", x[0], x[1], "Tout=t:complex128");
  tfs_output a = OP1("ComplexAbs", z, "Tout=t:double");
  return a;
}
B(m_complex_parts) {
  tfs_output z = OP2("Complex", x[0], x[1], "Tout=t:complex128");
  tfs_output w = OP2("Mul", z, OP1("Conj", z, NULL), NULL);
  tfs_output zz = OP2("Mul", w, z, NULL);
  return OP2("AddV2", OP1("Real", zz, "Tout=t:double"),
             OP2("Mul", OP1("Imag", zz, "Tout=t:double"), gc_f64(g, 3.0),
                 NULL),
             NULL);
}

/* ---- reductions and products ---------------------------------------- */

B(r_sum) { return OP2("Sum", x[0], I32(1), "keep_dims=b:0"); }
B(r_sum_all) {
  return OP2("Sum", OP1("Square", x[0], NULL), I32(0, -1), "keep_dims=b:1");
}
B(r_mean) { return OP2("Mean", x[0], I32(0, 2), "keep_dims=b:0"); }
B(r_max) { return OP2("Max", x[0], I32(1), "keep_dims=b:0"); }
B(r_min) { return OP2("Min", x[0], I32(-1), "keep_dims=b:1"); }
B(r_prod) { return OP2("Prod", x[0], I32(1), "keep_dims=b:0"); }
B(r_matmul) { return OP2("MatMul", x[0], x[1], NULL); }
B(r_matmul_t) {
  return OP2("MatMul", x[0], x[1], "transpose_a=b:1;transpose_b=b:1");
}
B(r_bmm) { return OP2("BatchMatMul", x[0], x[1], "adj_y=b:1"); }
B(r_bmm_v2) { return OP2("BatchMatMulV2", x[0], x[1], "adj_x=b:1"); }
B(r_cumsum) {
  return OP2("Cumsum", x[0], gc_i32s(g, 1), "exclusive=b:1;reverse=b:0");
}
B(r_segment_sum) {
  return OP2("SegmentSum", x[0], I32(0, 0, 1, 3), NULL);
}
B(r_unsorted_segment_sum) {
  return OP3("UnsortedSegmentSum", x[0], I32(2, -1, 0, 2), gc_i32s(g, 3),
             NULL);
}

/* ---- shapes and indexing --------------------------------------------- */

B(a_reshape) { return OP2("Reshape", OP1("Exp", x[0], NULL), I32(3, 4), NULL); }
B(a_expand) {
  return OP2("Mul", OP2("ExpandDims", x[0], gc_i32s(g, 1), NULL), x[1],
             NULL);
}
B(a_squeeze) { return OP1("Squeeze", x[0], "squeeze_dims=li:1"); }
B(a_ensure) { return OP1("EnsureShape", x[0], "shape=sh:3,2"); }
B(a_transpose) { return OP2("Transpose", x[0], I32(2, 0, 1), NULL); }
B(a_concat_v2) {
  tfs_output axis = gc_i32s(g, 1);
  return OP1("Square", list_op(g, "ConcatV2", x, 2, &axis, 1, NULL, 0), NULL);
}
B(a_pack) {
  return OP1("Square", list_op(g, "Pack", x, 2, NULL, 0, "axis", 1), NULL);
}
B(a_unpack) {
  tfs_output u = OP1("Unpack", x[0], "num=i:3;axis=i:1");
  return OP2("Mul", u, OP1("Exp", gc_out(u, 2), NULL), NULL);
}
B(a_split) {
  tfs_output s = OP2("Split", gc_i32s(g, 1), x[0], "num_split=i:2");
  return OP2("Mul", s, OP1("Sin", gc_out(s, 1), NULL), NULL);
}
B(a_split_v) {
  tfs_output s =
      OP3("SplitV", x[0], I32(1, 3), gc_i32s(g, 1), "num_split=i:2");
  return OP2("MatMul", s, OP1("Square", gc_out(s, 1), NULL),
             "transpose_a=b:1");
}
B(a_slice) { return OP3("Slice", x[0], I32(1, 0), I32(2, -1), NULL); }
B(a_strided_slice) {
  return gc_op(g, "StridedSlice",
               (tfs_output[]){x[0], I32(0, 3), I32(3, 0), I32(2, -1)}, 4,
               "shrink_axis_mask=i:0;end_mask=i:0");
}
B(a_pad) {
  return OP2("Pad", x[0], OP2("Reshape", I32(1, 0, 2, 1), I32(2, 2), NULL),
             NULL);
}
B(a_pad_v2) {
  tfs_output p = OP2("Reshape", I32(1, 0, 2, 1), I32(2, 2), NULL);
  return OP3("PadV2", OP1("Exp", x[0], NULL), p, gc_f64(g, 0.5), NULL);
}
B(a_tile) { return OP2("Tile", x[0], I32(2, 3), NULL); }
B(a_broadcast_to) { return OP2("BroadcastTo", x[0], I32(2, 3, 4), NULL); }
B(a_gather) {
  return OP3("GatherV2", x[0], I32(2, 0, 2, 1), gc_i32s(g, 0), NULL);
}
B(a_gather_axis1) {
  tfs_output idx = OP2("Reshape", I32(1, 0, 2, 2), I32(2, 2), NULL);
  return OP3("GatherV2", x[0], idx, gc_i32s(g, 1), NULL);
}
B(a_gather_v1) { return OP2("Gather", x[0], I32(1, 1, 0), NULL); }
B(a_fill) { return OP2("Mul", OP2("Fill", I32(2, 3), x[0], NULL), x[1], NULL); }
B(a_reverse) { return OP2("ReverseV2", x[0], I32(1), NULL); }
B(a_concat_v1) {
  tfs_status *st = tfs_status_new();
  tfs_op_desc *d = tfs_op_desc_new(g, "Concat", NULL);
  tfs_op_desc_add_input(d, gc_i32s(g, 0));
  tfs_op_desc_add_input_list(d, x, 2);
  tfs_output o = {tfs_op_desc_finish(d, st), 0};
  CU_ASSERT_PTR_NOT_NULL_FATAL(o.oper);
  tfs_status_free(st);
  return OP1("Exp", o, NULL);
}

/* ---- nn ---------------------------------------------------------------- */

B(n_conv2d) {
  return OP2("Conv2D", x[0], x[1], "strides=li:1,2,2,1;padding=s:SAME");
}
B(n_conv2d_valid) {
  return OP2("Conv2D", x[0], x[1],
             "strides=li:1,1,1,1;padding=s:VALID;dilations=li:1,2,2,1");
}
B(n_conv2d_bi) {
  return OP3("Conv2DBackpropInput", I32(1, 5, 5, 2), x[0], x[1],
             "strides=li:1,2,2,1;padding=s:SAME");
}
B(n_depthwise) {
  return OP2("DepthwiseConv2dNative", x[0], x[1],
             "strides=li:1,1,1,1;padding=s:SAME");
}
B(n_max_pool) {
  return OP1("MaxPool", x[0],
             "ksize=li:1,2,2,1;strides=li:1,2,2,1;padding=s:VALID");
}
B(n_max_pool_v2) {
  return OP3("MaxPoolV2", x[0], I32(1, 3, 3, 1), I32(1, 2, 2, 1),
             "padding=s:SAME");
}
B(n_avg_pool) {
  return OP1("AvgPool", x[0],
             "ksize=li:1,3,3,1;strides=li:1,2,2,1;padding=s:SAME");
}
B(n_xent) {
  tfs_output lab = OP1("Softmax", x[1], NULL);
  return OP2("SoftmaxCrossEntropyWithLogits", x[0], lab, NULL);
}
B(n_sparse_xent) {
  return OP2("SparseSoftmaxCrossEntropyWithLogits", x[0], I32(2, 0, 3),
             NULL);
}
B(n_lrn) {
  return OP1("LRN", x[0], "depth_radius=i:2;bias=f:1;alpha=f:0.5;beta=f:0.75");
}
B(n_resize_bilinear) {
  return OP2("ResizeBilinear", x[0], I32(5, 7), "half_pixel_centers=b:1");
}
B(n_resize_nearest) {
  return OP2("ResizeNearestNeighbor", x[0], I32(6, 6), NULL);
}
B(n_mirror_pad) {
  tfs_output p = OP2("Reshape", I32(0, 0, 1, 2, 2, 1, 0, 0), I32(4, 2), NULL);
  return OP2("MirrorPad", x[0], p, "mode=s:REFLECT");
}
/* x, scale and offset are differentiated; the population mean and
 * variance are constants (they get no gradient in TensorFlow). */
static tfs_output bn(tfs_graph *g, const tfs_output *x, const char *type,
                     int training, const char *fmt) {
  static const double mean[2] = {0.1, -0.2}, var[2] = {0.8, 1.3};
  char at[96];
  snprintf(at, sizeof at, "epsilon=f:0.001;is_training=b:%d;data_format=s:%s",
           training, fmt);
  return gc_op(g, type,
               (tfs_output[]){x[0], x[1], x[2],
                              gc_const(g, TFS_FLOAT, "2", mean, 2),
                              gc_const(g, TFS_FLOAT, "2", var, 2)},
               5, at);
}
B(n_bn_v3) { return bn(g, x, "FusedBatchNormV3", 1, "NHWC"); }
B(n_bn_v3_inf) { return bn(g, x, "FusedBatchNormV3", 0, "NHWC"); }
B(n_bn_v3_nchw) { return bn(g, x, "FusedBatchNormV3", 1, "NCHW"); }
B(n_bn_v3_inf_nchw) { return bn(g, x, "FusedBatchNormV3", 0, "NCHW"); }
B(n_bn) { return bn(g, x, "FusedBatchNorm", 1, "NHWC"); }
B(n_bn_v2) { return bn(g, x, "FusedBatchNormV2", 0, "NHWC"); }

/* ---- indexing, data flow, layout ----------------------------------- */

B(i_gather_nd) {
  tfs_output idx = OP2("Reshape", I32(1, 0, 0, 2, 1, 0), I32(3, 2), NULL);
  return OP2("GatherNd", x[0], idx, NULL);
}
B(i_scatter_nd) {
  tfs_output idx = OP2("Reshape", I32(3, 0, 1), I32(3, 1), NULL);
  return OP3("ScatterNd", idx, x[0], I32(5, 2), NULL);
}
B(i_segment_max) {
  /* no empty segment: its lowest() value would swamp the differences */
  return OP3("UnsortedSegmentMax", x[0], I32(1, 0, 1, -1, 0), gc_i32s(g, 2),
             NULL);
}
B(i_segment_min) {
  return OP3("UnsortedSegmentMin", x[0], I32(2, 2, 0, 1), gc_i32s(g, 3),
             NULL);
}
B(i_dynamic_stitch) {
  tfs_output idx[2] = {I32(0, 3), I32(1, 2, 4)};
  tfs_status *st = tfs_status_new();
  tfs_op_desc *d = tfs_op_desc_new(g, "DynamicStitch", NULL);
  tfs_op_desc_add_input_list(d, idx, 2);
  tfs_op_desc_add_input_list(d, x, 2);
  tfs_output o = {tfs_op_desc_finish(d, st), 0};
  CU_ASSERT_PTR_NOT_NULL_FATAL(o.oper);
  tfs_status_free(st);
  return OP1("Square", o, NULL);
}
B(i_dynamic_partition) {
  tfs_output p = OP2("DynamicPartition", x[0], I32(1, 0, 2, 1, 1),
                     "num_partitions=i:3");
  tfs_output s0 = OP2("Sum", OP1("Square", p, NULL), I32(0), NULL);
  tfs_output s1 = OP2("Sum", OP1("Exp", gc_out(p, 1), NULL), I32(0), NULL);
  tfs_output s2 = OP2("Sum", gc_out(p, 2), I32(0), NULL);
  return OP2("AddV2", OP2("AddV2", s0, s1, NULL), s2, NULL);
}
B(i_matrix_diag) { return OP1("Square", OP1("MatrixDiag", x[0], NULL), NULL); }
B(i_matrix_diag_part) { return OP1("MatrixDiagPart", x[0], NULL); }
B(i_matrix_set_diag) { return OP2("MatrixSetDiag", x[0], x[1], NULL); }
B(i_band_part) {
  return OP3("MatrixBandPart", x[0], gc_i32s(g, 1), gc_i32s(g, 0), NULL);
}
B(i_space_to_batch) {
  tfs_output pad = OP2("Reshape", I32(0, 1, 1, 0), I32(2, 2), NULL);
  return OP3("SpaceToBatchND", x[0], I32(2, 2), pad, NULL);
}
B(i_batch_to_space) {
  tfs_output crop = OP2("Reshape", I32(0, 1, 1, 0), I32(2, 2), NULL);
  return OP3("BatchToSpaceND", x[0], I32(2, 2), crop, NULL);
}
B(i_space_to_depth) { return OP1("SpaceToDepth", x[0], "block_size=i:2"); }
B(i_depth_to_space) { return OP1("DepthToSpace", x[0], "block_size=i:2"); }
B(i_reverse_sequence) {
  return OP2("ReverseSequence", x[0], I32(2, 4, 1),
             "seq_dim=i:1;batch_dim=i:0");
}
B(i_roll) { return OP3("Roll", x[0], I32(2, -1), I32(0, 1), NULL); }
B(i_cumprod) {
  return OP2("Cumprod", x[0], gc_i32s(g, 1), "exclusive=b:0;reverse=b:1");
}
B(i_einsum) {
  tfs_output in[2] = {x[0], x[1]};
  tfs_status *st = tfs_status_new();
  tfs_op_desc *d = tfs_op_desc_new(g, "Einsum", NULL);
  tfs_op_desc_add_input_list(d, in, 2);
  tfs_op_desc_set_attr_string(d, "equation", "abc,cd->abd", 11);
  tfs_output o = {tfs_op_desc_finish(d, st), 0};
  CU_ASSERT_PTR_NOT_NULL_FATAL(o.oper);
  tfs_status_free(st);
  return o;
}
B(i_bmm_v3) {
  return OP2("BatchMatMulV3", x[0], x[1], "Tout=t:double;adj_y=b:1");
}
B(i_angle) {
  tfs_output z = OP2("Complex", x[0], x[1], "Tout=t:complex128");
  return OP1("Angle", z, "Tout=t:double");
}
/* the straight-through estimator: with 16 bits over [-2, 2] the steps
 * (6e-5) are far below the float case's difference step (1e-2) */
B(i_qdq) {
  static const double lo = -2.0, hi = 2.0;
  return OP3("QuantizeAndDequantizeV2", x[0],
             gc_const(g, TFS_FLOAT, "s", &lo, 1),
             gc_const(g, TFS_FLOAT, "s", &hi, 1),
             "num_bits=i:16;range_given=b:1");
}

static const gc_case kCases[] = {
    {"Abs", "3x4", GC_AWAY, TFS_DOUBLE, u_abs},
    {"Acos", "7", GC_UNIT, TFS_DOUBLE, u_acos},
    {"Acosh", "7", GC_GT1, TFS_DOUBLE, u_acosh},
    {"Asin", "7", GC_UNIT, TFS_DOUBLE, u_asin},
    {"Asinh", "7", GC_ALL, TFS_DOUBLE, u_asinh},
    {"Atan", "7", GC_WIDE, TFS_DOUBLE, u_atan},
    {"Atanh", "7", GC_UNIT, TFS_DOUBLE, u_atanh},
    {"Cos", "7", GC_WIDE, TFS_DOUBLE, u_cos},
    {"Cosh", "7", GC_ALL, TFS_DOUBLE, u_cosh},
    {"Digamma", "7", GC_POS, TFS_DOUBLE, u_digamma},
    {"Erf", "7", GC_WIDE, TFS_DOUBLE, u_erf},
    {"Erfc", "7", GC_WIDE, TFS_DOUBLE, u_erfc},
    {"Erfinv", "7", GC_UNIT, TFS_DOUBLE, u_erfinv},
    {"Exp", "2x3", GC_ALL, TFS_DOUBLE, u_exp},
    {"Expm1", "7", GC_ALL, TFS_DOUBLE, u_expm1},
    {"Identity", "5", GC_ALL, TFS_DOUBLE, u_identity},
    {"Snapshot", "5", GC_ALL, TFS_DOUBLE, u_snapshot},
    {"Inv", "7", GC_AWAY, TFS_DOUBLE, u_inv},
    {"Lgamma", "7", GC_POS, TFS_DOUBLE, u_lgamma},
    {"Log", "7", GC_POS, TFS_DOUBLE, u_log},
    {"Log1p", "7", GC_POS, TFS_DOUBLE, u_log1p},
    {"Ndtri", "7", GC_PROB, TFS_DOUBLE, u_ndtri},
    {"Neg", "7", GC_ALL, TFS_DOUBLE, u_neg},
    {"Reciprocal", "7", GC_AWAY, TFS_DOUBLE, u_reciprocal},
    {"Rsqrt", "7", GC_POS, TFS_DOUBLE, u_rsqrt},
    {"Sigmoid", "2x3", GC_WIDE, TFS_DOUBLE, u_sigmoid},
    {"Sign", "7", GC_AWAY, TFS_DOUBLE, u_sign},
    {"Sin", "7", GC_WIDE, TFS_DOUBLE, u_sin},
    {"Sinh", "7", GC_ALL, TFS_DOUBLE, u_sinh},
    {"Sqrt", "7", GC_POS, TFS_DOUBLE, u_sqrt},
    {"Square", "7", GC_ALL, TFS_DOUBLE, u_square},
    {"Tan", "7", GC_UNIT, TFS_DOUBLE, u_tan},
    {"Tanh", "2x3", GC_WIDE, TFS_DOUBLE, u_tanh},
    {"CheckNumerics", "4", GC_ALL, TFS_DOUBLE, u_check},
    {"Cast", "6", GC_ALL, TFS_FLOAT, u_cast},
    {"IdentityN", "4;4", GC_ALL, TFS_DOUBLE, u_identity_n},
    {"Add", "2x3;3", GC_ALL, TFS_DOUBLE, b_add},
    {"AddV2", "2x1x3;4x1", GC_ALL, TFS_DOUBLE, b_addv2},
    {"Sub", "3;2x3", GC_ALL, TFS_DOUBLE, b_sub},
    {"Mul", "2x3;2x1", GC_ALL, TFS_DOUBLE, b_mul},
    {"Mul", "2x3;2x3", GC_ALL, TFS_DOUBLE, b_mul},
    {"Div", "2x3;3", GC_AWAY, TFS_DOUBLE, b_div},
    {"RealDiv", "2x3;s", GC_AWAY, TFS_DOUBLE, b_realdiv},
    {"DivNoNan", "3;2x3", GC_AWAY, TFS_DOUBLE, b_divnonan},
    {"SquaredDifference", "2x3;3", GC_ALL, TFS_DOUBLE, b_sqdiff},
    {"Pow", "2x3;3", GC_POS, TFS_DOUBLE, b_pow},
    {"Maximum", "2x3;3", GC_ALL, TFS_DOUBLE, b_maximum},
    {"Minimum", "3;2x3", GC_ALL, TFS_DOUBLE, b_minimum},
    {"Atan2", "2x3;3", GC_AWAY, TFS_DOUBLE, b_atan2},
    {"AddN", "2x3;2x3", GC_ALL, TFS_DOUBLE, m_addn},
    {"Select", "2x3;2x3", GC_ALL, TFS_DOUBLE, m_select},
    {"SelectV2", "2x3;3", GC_AWAY, TFS_DOUBLE, m_select_v2},
    {"ClipByValue", "2x3;s;2x3", GC_ALL, TFS_DOUBLE, m_clip},
    {"Complex,ComplexAbs", "2x3;3", GC_AWAY, TFS_DOUBLE, m_complex},
    {"Conj,Real,Imag", "5;5", GC_ALL, TFS_DOUBLE, m_complex_parts},
    {"Sum", "2x3x2", GC_ALL, TFS_DOUBLE, r_sum},
    {"Sum", "2x3x2", GC_ALL, TFS_DOUBLE, r_sum_all},
    {"Mean", "2x3x2", GC_ALL, TFS_DOUBLE, r_mean},
    {"Max", "3x4", GC_ALL, TFS_DOUBLE, r_max},
    {"Min", "3x4", GC_ALL, TFS_DOUBLE, r_min},
    {"Prod", "3x4x2", GC_AWAY, TFS_DOUBLE, r_prod},
    {"MatMul", "2x3;3x4", GC_ALL, TFS_DOUBLE, r_matmul},
    {"MatMul", "3x2;4x3", GC_ALL, TFS_DOUBLE, r_matmul_t},
    {"BatchMatMul", "2x2x3;2x4x3", GC_ALL, TFS_DOUBLE, r_bmm},
    {"BatchMatMulV2", "2x1x3x2;3x3x4", GC_ALL, TFS_DOUBLE, r_bmm_v2},
    {"Cumsum", "2x4", GC_ALL, TFS_DOUBLE, r_cumsum},
    {"SegmentSum", "4x2", GC_ALL, TFS_DOUBLE, r_segment_sum},
    {"UnsortedSegmentSum", "4x2", GC_ALL, TFS_DOUBLE,
     r_unsorted_segment_sum},
    {"Reshape", "2x6", GC_ALL, TFS_DOUBLE, a_reshape},
    {"ExpandDims", "2x3;2x4x3", GC_ALL, TFS_DOUBLE, a_expand},
    {"Squeeze", "3x1x2", GC_ALL, TFS_DOUBLE, a_squeeze},
    {"EnsureShape", "3x2", GC_ALL, TFS_DOUBLE, a_ensure},
    {"Transpose", "2x3x4", GC_ALL, TFS_DOUBLE, a_transpose},
    {"ConcatV2", "2x3;2x2", GC_ALL, TFS_DOUBLE, a_concat_v2},
    {"Concat", "2x3;1x3", GC_ALL, TFS_DOUBLE, a_concat_v1},
    {"Pack", "2x3;2x3", GC_ALL, TFS_DOUBLE, a_pack},
    {"Unpack", "2x3x2", GC_ALL, TFS_DOUBLE, a_unpack},
    {"Split", "2x4", GC_ALL, TFS_DOUBLE, a_split},
    {"SplitV", "3x4", GC_ALL, TFS_DOUBLE, a_split_v},
    {"Slice", "4x3", GC_ALL, TFS_DOUBLE, a_slice},
    {"StridedSlice", "4x5", GC_ALL, TFS_DOUBLE, a_strided_slice},
    {"Pad", "2x3", GC_ALL, TFS_DOUBLE, a_pad},
    {"PadV2", "2x3", GC_ALL, TFS_DOUBLE, a_pad_v2},
    {"MirrorPad", "1x3x4x2", GC_ALL, TFS_DOUBLE, n_mirror_pad},
    {"Tile", "2x1", GC_ALL, TFS_DOUBLE, a_tile},
    {"BroadcastTo", "3x1", GC_ALL, TFS_DOUBLE, a_broadcast_to},
    {"GatherV2", "3x2", GC_ALL, TFS_DOUBLE, a_gather},
    {"GatherV2", "2x3x2", GC_ALL, TFS_DOUBLE, a_gather_axis1},
    {"Gather", "3x2", GC_ALL, TFS_DOUBLE, a_gather_v1},
    {"Fill", "s;2x3", GC_ALL, TFS_DOUBLE, a_fill},
    {"ReverseV2", "2x3", GC_ALL, TFS_DOUBLE, a_reverse},
    {"Relu", "3x4", GC_AWAY, TFS_DOUBLE, u_relu},
    {"Relu6", "3x4", GC_AWAY, TFS_DOUBLE, u_relu6},
    {"Elu", "3x4", GC_AWAY, TFS_DOUBLE, u_elu},
    {"Selu", "3x4", GC_AWAY, TFS_DOUBLE, u_selu},
    {"LeakyRelu", "3x4", GC_AWAY, TFS_DOUBLE, u_leaky},
    {"LeakyReluGrad", "2x3", GC_AWAY, TFS_DOUBLE, u_leaky_grad},
    {"Softplus", "3x4", GC_WIDE, TFS_DOUBLE, u_softplus},
    {"Softsign", "3x4", GC_WIDE, TFS_DOUBLE, u_softsign},
    {"Softmax", "2x5", GC_WIDE, TFS_DOUBLE, u_softmax},
    {"LogSoftmax", "2x5", GC_WIDE, TFS_DOUBLE, u_log_softmax},
    {"L2Loss", "2x5", GC_ALL, TFS_DOUBLE, u_l2loss},
    {"BiasAdd", "2x3x4;4", GC_ALL, TFS_DOUBLE, b_bias_add},
    {"BiasAddV1", "3x4;4", GC_ALL, TFS_DOUBLE, b_bias_add_v1},
    {"SoftmaxCrossEntropyWithLogits", "3x4;3x4", GC_WIDE, TFS_DOUBLE,
     n_xent},
    {"SparseSoftmaxCrossEntropyWithLogits", "3x4", GC_WIDE, TFS_DOUBLE,
     n_sparse_xent},
    {"Conv2D", "1x5x5x2;3x3x2x3", GC_ALL, TFS_DOUBLE, n_conv2d},
    {"Conv2D", "2x6x5x2;2x2x2x2", GC_ALL, TFS_DOUBLE, n_conv2d_valid},
    {"Conv2DBackpropInput", "3x3x2x3;1x3x3x3", GC_ALL, TFS_DOUBLE,
     n_conv2d_bi},
    {"DepthwiseConv2dNative", "1x4x4x2;3x3x2x2", GC_ALL, TFS_DOUBLE,
     n_depthwise},
    {"MaxPool", "1x4x4x2", GC_ALL, TFS_DOUBLE, n_max_pool},
    {"MaxPoolV2", "1x5x5x2", GC_ALL, TFS_DOUBLE, n_max_pool_v2},
    {"AvgPool", "1x5x5x2", GC_ALL, TFS_DOUBLE, n_avg_pool},
    {"LRN", "1x2x2x5", GC_ALL, TFS_FLOAT, n_lrn},
    {"ResizeBilinear", "1x3x4x2", GC_ALL, TFS_FLOAT, n_resize_bilinear},
    {"ResizeNearestNeighbor", "1x3x4x2", GC_ALL, TFS_FLOAT,
     n_resize_nearest},
    {"FusedBatchNormV3", "2x3x3x2;2;2", GC_ALL, TFS_FLOAT, n_bn_v3},
    {"FusedBatchNormV3", "2x3x3x2;2;2", GC_ALL, TFS_FLOAT, n_bn_v3_inf},
    {"FusedBatchNormV3", "2x2x3x3;2;2", GC_ALL, TFS_FLOAT, n_bn_v3_nchw},
    {"FusedBatchNormV3", "2x2x3x3;2;2", GC_ALL, TFS_FLOAT, n_bn_v3_inf_nchw},
    {"GatherNd", "3x4", GC_ALL, TFS_DOUBLE, i_gather_nd},
    {"ScatterNd", "3x2", GC_ALL, TFS_DOUBLE, i_scatter_nd},
    {"UnsortedSegmentMax", "5x2", GC_ALL, TFS_DOUBLE, i_segment_max},
    {"UnsortedSegmentMin", "4", GC_ALL, TFS_DOUBLE, i_segment_min},
    {"DynamicStitch", "2x2;3x2", GC_ALL, TFS_DOUBLE, i_dynamic_stitch},
    {"DynamicPartition", "5x2", GC_ALL, TFS_DOUBLE, i_dynamic_partition},
    {"MatrixDiag", "2x3", GC_ALL, TFS_DOUBLE, i_matrix_diag},
    {"MatrixDiagPart", "2x3x4", GC_ALL, TFS_DOUBLE, i_matrix_diag_part},
    {"MatrixSetDiag", "2x3x4;2x3", GC_ALL, TFS_DOUBLE, i_matrix_set_diag},
    {"MatrixBandPart", "4x4", GC_ALL, TFS_DOUBLE, i_band_part},
    {"SpaceToBatchND", "1x3x3x2", GC_ALL, TFS_DOUBLE, i_space_to_batch},
    {"BatchToSpaceND", "4x2x2x1", GC_ALL, TFS_DOUBLE, i_batch_to_space},
    {"SpaceToDepth", "1x4x4x2", GC_ALL, TFS_DOUBLE, i_space_to_depth},
    {"DepthToSpace", "1x2x2x8", GC_ALL, TFS_DOUBLE, i_depth_to_space},
    {"ReverseSequence", "3x4x2", GC_ALL, TFS_DOUBLE, i_reverse_sequence},
    {"Roll", "3x4", GC_ALL, TFS_DOUBLE, i_roll},
    {"Cumprod", "2x4", GC_AWAY, TFS_DOUBLE, i_cumprod},
    {"Einsum", "2x3x4;4x5", GC_ALL, TFS_DOUBLE, i_einsum},
    {"BatchMatMulV3", "2x2x3;2x4x3", GC_ALL, TFS_DOUBLE, i_bmm_v3},
    {"Angle", "2x3;2x3", GC_AWAY, TFS_DOUBLE, i_angle},
    {"QuantizeAndDequantizeV2", "2x3", GC_ALL, TFS_FLOAT, i_qdq},
    {"FusedBatchNorm", "2x2x3x2;2;2", GC_ALL, TFS_FLOAT, n_bn},
    {"FusedBatchNormV2", "2x2x3x2;2;2", GC_ALL, TFS_FLOAT, n_bn_v2},
};

#define NCASES ((int)(sizeof kCases / sizeof kCases[0]))

/* Ops with a gradient function checked by test_gradients.c instead of a
 * numeric case: they need variables or a disabled gradient. */
static const char *const kElsewhere[] = {"ReadVariableOp", "PreventGradient",
                                         "ParallelDynamicStitch",
                                         "QuantizeAndDequantizeV3"};

static void test_all_cases(void) {
  int failed = 0;
  for (int i = 0; i < NCASES; i++) failed += gc_check(&kCases[i]) != 0;
  if (failed) fprintf(stderr, "\n  %d of %d gradient checks failed\n", failed,
                      NCASES);
  CU_ASSERT_EQUAL(failed, 0);
}

static int covered(const char *op) {
  for (size_t i = 0; i < sizeof kElsewhere / sizeof kElsewhere[0]; i++)
    if (!strcmp(kElsewhere[i], op)) return 1;
  size_t n = strlen(op);
  for (int i = 0; i < NCASES; i++) {
    const char *p = kCases[i].ops;
    while ((p = strstr(p, op))) {
      int start = p == kCases[i].ops || p[-1] == ',';
      int end = p[n] == 0 || p[n] == ',';
      if (start && end) return 1;
      p += n;
    }
  }
  return 0;
}

/* Every op with a gradient function has a numeric check. */
static void test_coverage(void) {
  int missing = 0, with_fn = 0;
  for (int i = 0; tfs_gradient_op_type(i); i++) {
    const char *op = tfs_gradient_op_type(i);
    if (tfs_gradient_kind(op) != 1) continue;
    with_fn++;
    if (!covered(op)) {
      fprintf(stderr, "\n  no gradient check for %s\n", op);
      missing++;
    }
  }
  CU_ASSERT_EQUAL(missing, 0);
  CU_ASSERT(with_fn > 100);
}

static const tfs_test_case kTests[] = {
    {"coverage", test_coverage},
    {"numeric", test_all_cases},
    {NULL, NULL},
};

const tfs_test_suite tfs_test_suites[] = {
    {"grad_check", kTests},
    {NULL, NULL},
};
