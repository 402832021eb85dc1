/*
 * gradients/grad_array.c - gradients of the shape and indexing ops
 * (cc/gradients/array_grad.cc, python/ops/array_grad.py): reshapes,
 * transposes, concatenation and splitting, slicing, padding, tiling,
 * broadcasting, gathers, variable reads, and the ops that have none.
 *
 * Gathers give dense gradients (UnsortedSegmentSum of the incoming
 * gradient), where TensorFlow's Python gives IndexedSlices: the same
 * values, summed.
 */
#include <string.h>

#include "core/alloc.h"
#include "core/status.h"
#include "gradients/grad_internal.h"
#include "tfsess/tensor.h"

#define IN(k) tfs_gb_in(op, (k))
#define OUT(k) tfs_gb_out(op, (k))
#define UN(t, a) tfs_gb_unary(c, (t), (a))

/* A constant integer input's scalar value; -1 when not a constant
 * scalar/one-element integer tensor. */
static int const_int(tfs_output o, int64_t *v) {
  const tfs_tensor *t = tfs_graph__const_value(o);
  if (!t || tfs_tensor_num_elements(t) != 1) return -1;
  if (tfs_tensor_dtype(t) == TFS_INT32)
    *v = *(const int32_t *)tfs_tensor_data(t);
  else if (tfs_tensor_dtype(t) == TFS_INT64)
    *v = *(const int64_t *)tfs_tensor_data(t);
  else
    return -1;
  return 0;
}

/* A normalized constant axis in [0, rank); -1 with an error recorded. */
static int const_axis(tfs_gctx *c, tfs_operation *op, tfs_output axis,
                      int rank) {
  int64_t a;
  if (rank < 0 || const_int(axis, &a) || a < -rank || a >= rank) {
    tfs_gb_fail(c, op, TFS_UNIMPLEMENTED,
                "needs a constant axis and an input of known rank");
    return -1;
  }
  return (int)(a < 0 ? a + rank : a);
}

static tfs_output reshape_like(tfs_gctx *c, tfs_output g, tfs_output x) {
  return tfs_gb_reshape(c, g, tfs_gb_shape(c, x));
}

static tfs_output to_i32(tfs_gctx *c, tfs_output x) {
  return tfs_gb_cast(c, x, TFS_INT32);
}

static void g_reshape(tfs_gctx *c, tfs_operation *op, const tfs_output *dy,
                      tfs_output *dx) {
  dx[0] = reshape_like(c, dy[0], IN(0));
}

static void g_transpose(tfs_gctx *c, tfs_operation *op, const tfs_output *dy,
                        tfs_output *dx) {
  dx[0] = tfs_gb_transpose(c, dy[0], UN("InvertPermutation", IN(1)));
}

static void g_read_variable(tfs_gctx *c, tfs_operation *op,
                            const tfs_output *dy, tfs_output *dx) {
  (void)c, (void)op;
  dx[0] = dy[0];
}

/* The size of `x` along `axis` as a one-element int32 vector. */
static tfs_output dim_vec(tfs_gctx *c, tfs_output x, int axis) {
  const tfs_shape *s = tfs_gb_shape_of(x);
  if (s->rank > axis && s->dims[axis] >= 0 && s->dims[axis] <= INT32_MAX) {
    int32_t v = (int32_t)s->dims[axis];
    return tfs_gb_i32_vec(c, &v, 1);
  }
  int32_t b = axis, one = 1;
  tfs_op_desc *d = tfs_gb_desc(c, "Slice");
  tfs_op_desc_add_input(d, tfs_gb_shape(c, x));
  tfs_op_desc_add_input(d, tfs_gb_i32_vec(c, &b, 1));
  tfs_op_desc_add_input(d, tfs_gb_i32_vec(c, &one, 1));
  return tfs_gb_out(tfs_gb_finish(c, d), 0);
}

static tfs_output concat(tfs_gctx *c, const tfs_output *xs, int n,
                         tfs_output axis) {
  tfs_op_desc *d = tfs_gb_desc(c, "ConcatV2");
  tfs_op_desc_add_input_list(d, xs, n);
  tfs_op_desc_add_input(d, axis);
  return tfs_gb_out(tfs_gb_finish(c, d), 0);
}

/* Splits g along `axis` back into the n inputs' sizes. */
static void split_back(tfs_gctx *c, tfs_operation *op, tfs_output g,
                       const tfs_output *xs, int n, tfs_output axis_in,
                       tfs_output *dx) {
  if (n == 1) {
    dx[0] = g;
    return;
  }
  int axis = const_axis(c, op, axis_in, tfs_gb_shape_of(xs[0])->rank);
  if (axis < 0) return;
  tfs_output sizes[64], *sz = sizes;
  if (n > 64 && !(sz = tfs_malloc((size_t)n * sizeof *sz))) {
    TFS_OOM(c->st);
    return;
  }
  for (int i = 0; i < n; i++) sz[i] = dim_vec(c, xs[i], axis);
  tfs_output size_splits = concat(c, sz, n, tfs_gb_i32(c, 0));
  if (sz != sizes) tfs_free(sz);
  tfs_op_desc *d = tfs_gb_desc(c, "SplitV");
  tfs_op_desc_add_input(d, g);
  tfs_op_desc_add_input(d, size_splits);
  tfs_op_desc_add_input(d, tfs_gb_i32(c, axis));
  tfs_op_desc_set_attr_int(d, "num_split", n);
  tfs_operation *s = tfs_gb_finish(c, d);
  for (int i = 0; i < n; i++) dx[i] = tfs_gb_out(s, i);
}

static void g_concat_v2(tfs_gctx *c, tfs_operation *op, const tfs_output *dy,
                        tfs_output *dx) {
  int n = op->ninputs - 1;
  split_back(c, op, dy[0], op->inputs, n, IN(n), dx);
}

static void g_concat_v1(tfs_gctx *c, tfs_operation *op, const tfs_output *dy,
                        tfs_output *dx) {
  split_back(c, op, dy[0], op->inputs + 1, op->ninputs - 1, IN(0), dx + 1);
}

static int64_t attr_int(const tfs_operation *op, const char *name) {
  int64_t v = 0;
  tfs_attrs_get_int(&op->attrs, name, &v);
  return v;
}

static void g_pack(tfs_gctx *c, tfs_operation *op, const tfs_output *dy,
                   tfs_output *dx) {
  tfs_op_desc *d = tfs_gb_desc(c, "Unpack");
  tfs_op_desc_add_input(d, dy[0]);
  tfs_op_desc_set_attr_int(d, "num", op->ninputs);
  tfs_op_desc_set_attr_int(d, "axis", attr_int(op, "axis"));
  tfs_operation *u = tfs_gb_finish(c, d);
  for (int i = 0; i < op->ninputs; i++) dx[i] = tfs_gb_out(u, i);
}

static void g_unpack(tfs_gctx *c, tfs_operation *op, const tfs_output *dy,
                     tfs_output *dx) {
  tfs_op_desc *d = tfs_gb_desc(c, "Pack");
  tfs_op_desc_add_input_list(d, dy, op->noutputs);
  tfs_op_desc_set_attr_int(d, "axis", attr_int(op, "axis"));
  dx[0] = tfs_gb_out(tfs_gb_finish(c, d), 0);
}

static void g_split(tfs_gctx *c, tfs_operation *op, const tfs_output *dy,
                    tfs_output *dx) {
  dx[1] = concat(c, dy, op->noutputs, IN(0));
}

static void g_split_v(tfs_gctx *c, tfs_operation *op, const tfs_output *dy,
                      tfs_output *dx) {
  dx[0] = concat(c, dy, op->noutputs, IN(2));
}

/* Pads g with `before` (an int32 vector) and what is left of x's shape. */
static tfs_output pad_back(tfs_gctx *c, tfs_output g, tfs_output x,
                           tfs_output before) {
  int32_t col[2] = {-1, 1};
  tfs_output shp = tfs_gb_i32_vec(c, col, 2);
  tfs_output after = tfs_gb_binary(
      c, "Sub", tfs_gb_binary(c, "Sub", tfs_gb_shape(c, x), tfs_gb_shape(c, g)),
      before);
  tfs_output parts[2] = {tfs_gb_reshape(c, before, shp),
                         tfs_gb_reshape(c, after, shp)};
  tfs_output paddings = concat(c, parts, 2, tfs_gb_i32(c, 1));
  return tfs_gb_binary(c, "Pad", g, paddings);
}

static void g_slice(tfs_gctx *c, tfs_operation *op, const tfs_output *dy,
                    tfs_output *dx) {
  dx[0] = pad_back(c, dy[0], IN(0), to_i32(c, IN(1)));
}

static void g_strided_slice(tfs_gctx *c, tfs_operation *op,
                            const tfs_output *dy, tfs_output *dx) {
  static const char *const masks[] = {"begin_mask", "end_mask",
                                      "ellipsis_mask", "new_axis_mask",
                                      "shrink_axis_mask"};
  tfs_op_desc *d = tfs_gb_desc(c, "StridedSliceGrad");
  tfs_op_desc_add_input(d, tfs_gb_cast(c, tfs_gb_shape(c, IN(0)),
                                       tfs_gb_dtype(IN(1))));
  for (int k = 1; k <= 3; k++) tfs_op_desc_add_input(d, IN(k));
  tfs_op_desc_add_input(d, dy[0]);
  for (int i = 0; i < 5; i++)
    tfs_op_desc_set_attr_int(d, masks[i], attr_int(op, masks[i]));
  dx[0] = tfs_gb_out(tfs_gb_finish(c, d), 0);
}

/* Pad, PadV2: slice the padding off again. */
static void g_pad(tfs_gctx *c, tfs_operation *op, const tfs_output *dy,
                  tfs_output *dx) {
  int32_t b[2] = {0, 0}, s[2] = {-1, 1}, flat = -1;
  tfs_op_desc *d = tfs_gb_desc(c, "Slice");
  tfs_op_desc_add_input(d, to_i32(c, IN(1)));
  tfs_op_desc_add_input(d, tfs_gb_i32_vec(c, b, 2));
  tfs_op_desc_add_input(d, tfs_gb_i32_vec(c, s, 2));
  tfs_output first = tfs_gb_out(tfs_gb_finish(c, d), 0);
  tfs_output begin = tfs_gb_reshape(c, first, tfs_gb_i32_vec(c, &flat, 1));
  d = tfs_gb_desc(c, "Slice");
  tfs_op_desc_add_input(d, dy[0]);
  tfs_op_desc_add_input(d, begin);
  tfs_op_desc_add_input(d, tfs_gb_shape(c, IN(0)));
  dx[0] = tfs_gb_out(tfs_gb_finish(c, d), 0);
}

static void g_mirror_pad(tfs_gctx *c, tfs_operation *op, const tfs_output *dy,
                         tfs_output *dx) {
  size_t len = 0;
  const char *mode = tfs_attrs_get_string(&op->attrs, "mode", &len);
  tfs_op_desc *d = tfs_gb_desc(c, "MirrorPadGrad");
  tfs_op_desc_add_input(d, dy[0]);
  tfs_op_desc_add_input(d, IN(1));
  tfs_op_desc_set_attr_string(d, "mode", mode ? mode : "", len);
  dx[0] = tfs_gb_out(tfs_gb_finish(c, d), 0);
}

/* Tile: reshape g to [m0, d0, m1, d1, ...] and sum the m axes. */
static void g_tile(tfs_gctx *c, tfs_operation *op, const tfs_output *dy,
                   tfs_output *dx) {
  tfs_output parts[2] = {to_i32(c, IN(1)), tfs_gb_shape(c, IN(0))};
  tfs_op_desc *d = tfs_gb_desc(c, "Pack");
  tfs_op_desc_add_input_list(d, parts, 2);
  tfs_output packed = tfs_gb_out(tfs_gb_finish(c, d), 0);
  int32_t perm[2] = {1, 0}, flat = -1;
  tfs_output split_shape = tfs_gb_reshape(
      c, tfs_gb_transpose(c, packed, tfs_gb_i32_vec(c, perm, 2)),
      tfs_gb_i32_vec(c, &flat, 1));
  d = tfs_gb_desc(c, "Range");
  tfs_op_desc_add_input(d, tfs_gb_i32(c, 0));
  tfs_op_desc_add_input(d, UN("Size", split_shape));
  tfs_op_desc_add_input(d, tfs_gb_i32(c, 2));
  tfs_output axes = tfs_gb_out(tfs_gb_finish(c, d), 0);
  dx[0] = tfs_gb_sum(c, tfs_gb_reshape(c, dy[0], split_shape), axes, 0);
}

static void g_broadcast_to(tfs_gctx *c, tfs_operation *op,
                           const tfs_output *dy, tfs_output *dx) {
  tfs_output sx = tfs_gb_shape(c, IN(0));
  tfs_op_desc *d = tfs_gb_desc(c, "BroadcastGradientArgs");
  tfs_op_desc_add_input(d, sx);
  tfs_op_desc_add_input(d, to_i32(c, IN(1)));
  tfs_operation *bga = tfs_gb_finish(c, d);
  tfs_output s = tfs_gb_sum(c, dy[0], tfs_gb_out(bga, 0), 1);
  dx[0] = tfs_gb_reshape(c, s, sx);
}

static tfs_output perm_const(tfs_gctx *c, const int32_t *p, int n) {
  return tfs_gb_i32_vec(c, p, n);
}

/* Dense gradient of params for out = gather(params, indices, axis). */
static tfs_output gather_back(tfs_gctx *c, tfs_operation *op, tfs_output g,
                              tfs_output params, tfs_output indices,
                              int axis) {
  int pr = tfs_gb_shape_of(params)->rank;
  int ir = tfs_gb_shape_of(indices)->rank;
  if (axis > 0 && (pr < 0 || ir < 0)) {
    tfs_gb_fail(c, op, TFS_UNIMPLEMENTED,
                "axis %d needs params and indices of known rank", axis);
    return TFS_GRAD_NONE;
  }
  tfs_output num = tfs_gb_reshape(c, dim_vec(c, params, axis),
                                  tfs_gb_i32_vec(c, NULL, 0));
  if (axis == 0) {
    tfs_op_desc *d = tfs_gb_desc(c, "UnsortedSegmentSum");
    tfs_op_desc_add_input(d, g);
    tfs_op_desc_add_input(d, indices);
    tfs_op_desc_add_input(d, num);
    return tfs_gb_out(tfs_gb_finish(c, d), 0);
  }
  int gr = pr - 1 + ir, k = 0;
  int32_t p1[TFS_MAX_RANK * 2], p2[TFS_MAX_RANK];
  for (int i = 0; i < ir; i++) p1[k++] = axis + i;
  for (int i = 0; i < axis; i++) p1[k++] = i;
  for (int i = axis + ir; i < gr; i++) p1[k++] = i;
  tfs_output gt = tfs_gb_transpose(c, g, perm_const(c, p1, gr));
  tfs_op_desc *d = tfs_gb_desc(c, "UnsortedSegmentSum");
  tfs_op_desc_add_input(d, gt);
  tfs_op_desc_add_input(d, indices);
  tfs_op_desc_add_input(d, num);
  tfs_output s = tfs_gb_out(tfs_gb_finish(c, d), 0);
  k = 0;
  for (int i = 1; i <= axis; i++) p2[k++] = i;
  p2[k++] = 0;
  for (int i = axis + 1; i < pr; i++) p2[k++] = i;
  return tfs_gb_transpose(c, s, perm_const(c, p2, pr));
}

static void g_gather_v2(tfs_gctx *c, tfs_operation *op, const tfs_output *dy,
                        tfs_output *dx) {
  if (attr_int(op, "batch_dims") != 0) {
    tfs_gb_fail(c, op, TFS_UNIMPLEMENTED,
                "batch_dims %lld: only batch_dims 0 has a gradient",
                (long long)attr_int(op, "batch_dims"));
    return;
  }
  int axis = const_axis(c, op, IN(2), tfs_gb_shape_of(IN(0))->rank);
  if (axis < 0) return;
  dx[0] = gather_back(c, op, dy[0], IN(0), IN(1), axis);
}

static void g_gather(tfs_gctx *c, tfs_operation *op, const tfs_output *dy,
                     tfs_output *dx) {
  dx[0] = gather_back(c, op, dy[0], IN(0), IN(1), 0);
}

static void g_fill(tfs_gctx *c, tfs_operation *op, const tfs_output *dy,
                   tfs_output *dx) {
  (void)op;
  tfs_op_desc *d = tfs_gb_desc(c, "Range");
  tfs_op_desc_add_input(d, tfs_gb_i32(c, 0));
  tfs_op_desc_add_input(d, UN("Rank", dy[0]));
  tfs_op_desc_add_input(d, tfs_gb_i32(c, 1));
  dx[1] = tfs_gb_sum(c, dy[0], tfs_gb_out(tfs_gb_finish(c, d), 0), 0);
}

static void g_reverse_v2(tfs_gctx *c, tfs_operation *op, const tfs_output *dy,
                         tfs_output *dx) {
  dx[0] = tfs_gb_binary(c, "ReverseV2", dy[0], IN(1));
}

static void g_prevent(tfs_gctx *c, tfs_operation *op, const tfs_output *dy,
                      tfs_output *dx) {
  (void)dy, (void)dx;
  size_t len = 0;
  const char *msg = tfs_attrs_get_string(&op->attrs, "message", &len);
  tfs_status_setf(c->st, TFS_INVALID_ARGUMENT,
                  "Gradient explicitly disabled. Reason: %s",
                  msg ? msg : "");
}

static const tfs_grad_entry k_array[] = {
    {"BroadcastGradientArgs", NULL},
    {"BroadcastTo", g_broadcast_to},
    {"Concat", g_concat_v1},
    {"ConcatV2", g_concat_v2},
    {"Const", NULL},
    {"EnsureShape", g_reshape},
    {"ExpandDims", g_reshape},
    {"Fill", g_fill},
    {"Gather", g_gather},
    {"GatherV2", g_gather_v2},
    {"InvertPermutation", NULL},
    {"MirrorPad", g_mirror_pad},
    {"OneHot", NULL},
    {"Pack", g_pack},
    {"Pad", g_pad},
    {"PadV2", g_pad},
    {"PreventGradient", g_prevent},
    {"Range", NULL},
    {"Rank", NULL},
    {"ReadVariableOp", g_read_variable},
    {"Reshape", g_reshape},
    {"ReverseV2", g_reverse_v2},
    {"Shape", NULL},
    {"ShapeN", NULL},
    {"Size", NULL},
    {"Slice", g_slice},
    {"Split", g_split},
    {"SplitV", g_split_v},
    {"Squeeze", g_reshape},
    {"StopGradient", NULL},
    {"StridedSlice", g_strided_slice},
    {"Tile", g_tile},
    {"Transpose", g_transpose},
    {"Unpack", g_unpack},
    {"Where", NULL},
    {"ZerosLike", NULL},
};

const tfs_grad_entry *tfs_grad__array_table(int *n) {
  *n = (int)(sizeof k_array / sizeof k_array[0]);
  return k_array;
}
