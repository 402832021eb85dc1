/*
 * gradients/grad_reduce.c - gradients of reductions, matrix products,
 * cumulative sums and segment sums (cc/gradients/math_grad.cc,
 * python/ops/math_grad.py).
 *
 * A reduction's gradient is the incoming gradient reshaped to the input's
 * rank with the reduced dimensions kept as 1 ("kept dims") and broadcast
 * back to the input's shape.  The kept dims are a constant when the
 * input's shape and the axes are known when the graph is built, otherwise
 * computed in the graph as TensorFlow does (DynamicStitch of a Range and
 * the normalized axes).
 */
#include <string.h>

#include "core/status.h"
#include "gradients/grad_internal.h"
#include "tfsess/tensor.h"

#define IN(k) tfs_gb_in(op, (k))
#define OUT(k) tfs_gb_out(op, (k))
#define MUL(a, b) tfs_gb_binary(c, "Mul", (a), (b))
#define UN(t, a) tfs_gb_unary(c, (t), (a))

static int shape_known(const tfs_shape *s) {
  if (s->rank < 0) return 0;
  for (int i = 0; i < s->rank; i++)
    if (s->dims[i] < 0 || s->dims[i] > INT32_MAX) return 0;
  return 1;
}

/* Reads a constant axes tensor into the `reduced` flags; -1 when the axes
 * are not constant or out of range. */
static int const_axes(tfs_output axes, int rank, unsigned char *reduced) {
  const tfs_tensor *t = tfs_graph__const_value(axes);
  if (!t) return -1;
  int64_t n = tfs_tensor_num_elements(t);
  memset(reduced, 0, TFS_MAX_RANK);
  for (int64_t i = 0; i < n; i++) {
    int64_t a = tfs_tensor_dtype(t) == TFS_INT64
                    ? ((const int64_t *)tfs_tensor_data(t))[i]
                    : ((const int32_t *)tfs_tensor_data(t))[i];
    if (a < -rank || a >= rank) return -1;
    reduced[a < 0 ? a + rank : a] = 1;
  }
  return 0;
}

static tfs_output range0(tfs_gctx *c, tfs_output limit) {
  tfs_op_desc *d = tfs_gb_desc(c, "Range");
  tfs_op_desc_add_input(d, tfs_gb_i32(c, 0));
  tfs_op_desc_add_input(d, limit);
  tfs_op_desc_add_input(d, tfs_gb_i32(c, 1));
  return tfs_gb_out(tfs_gb_finish(c, d), 0);
}

/* The shape of x with the reduced axes set to 1, as an int32 vector. */
static tfs_output kept_dims(tfs_gctx *c, tfs_output x, tfs_output axes) {
  const tfs_shape *s = tfs_gb_shape_of(x);
  unsigned char red[TFS_MAX_RANK];
  if (shape_known(s) && const_axes(axes, s->rank, red) == 0) {
    int32_t v[TFS_MAX_RANK];
    for (int i = 0; i < s->rank; i++) v[i] = red[i] ? 1 : (int32_t)s->dims[i];
    return tfs_gb_i32_vec(c, v, s->rank);
  }
  tfs_output in_shape = tfs_gb_shape(c, x);
  tfs_output rank = UN("Size", in_shape);
  tfs_output ax = tfs_gb_cast(c, axes, TFS_INT32);
  ax = tfs_gb_binary(c, "FloorMod", tfs_gb_binary(c, "AddV2", ax, rank),
                     rank);
  tfs_output ones =
      tfs_gb_fill(c, tfs_gb_shape(c, ax), tfs_gb_i32(c, 1));
  tfs_output idx[2] = {range0(c, rank), ax}, data[2] = {in_shape, ones};
  tfs_op_desc *d = tfs_gb_desc(c, "DynamicStitch");
  tfs_op_desc_add_input_list(d, idx, 2);
  tfs_op_desc_add_input_list(d, data, 2);
  return tfs_gb_out(tfs_gb_finish(c, d), 0);
}

/* g of a reduction of x over axes, broadcast back to x's shape. */
static tfs_output spread(tfs_gctx *c, tfs_output x, tfs_output axes,
                         tfs_output g) {
  tfs_output kept = tfs_gb_reshape(c, g, kept_dims(c, x, axes));
  return tfs_gb_binary(c, "BroadcastTo", kept, tfs_gb_shape(c, x));
}

static void g_sum(tfs_gctx *c, tfs_operation *op, const tfs_output *dy,
                  tfs_output *dx) {
  dx[0] = spread(c, IN(0), IN(1), dy[0]);
}

static void g_mean(tfs_gctx *c, tfs_operation *op, const tfs_output *dy,
                   tfs_output *dx) {
  tfs_output s = spread(c, IN(0), IN(1), dy[0]);
  const tfs_shape *si = tfs_gb_shape_of(IN(0)), *so = tfs_gb_shape_of(OUT(0));
  tfs_output factor;
  if (shape_known(si) && shape_known(so)) {
    double ni = 1, no = 1;
    for (int i = 0; i < si->rank; i++) ni *= (double)si->dims[i];
    for (int i = 0; i < so->rank; i++) no *= (double)so->dims[i];
    factor = tfs_gb_scalar(c, tfs_gb_dtype(dy[0]), no > 0 ? ni / no : 1.0);
  } else {
    tfs_output zero = tfs_gb_i32(c, 0);
    tfs_output pi = tfs_gb_reduce(c, "Prod", tfs_gb_shape(c, IN(0)), zero, 0);
    tfs_output po = tfs_gb_reduce(c, "Prod", tfs_gb_shape(c, OUT(0)), zero, 0);
    po = tfs_gb_binary(c, "Maximum", po, tfs_gb_i32(c, 1));
    factor = tfs_gb_cast(c, tfs_gb_binary(c, "FloorDiv", pi, po),
                         tfs_gb_dtype(dy[0]));
  }
  dx[0] = tfs_gb_binary(c, "RealDiv", s, factor);
}

/* Max, Min: the gradient is shared equally by the elements equal to the
 * result. */
static void g_min_max(tfs_gctx *c, tfs_operation *op, const tfs_output *dy,
                      tfs_output *dx) {
  tfs_output kept = kept_dims(c, IN(0), IN(1));
  tfs_output y = tfs_gb_reshape(c, OUT(0), kept);
  tfs_output g = tfs_gb_reshape(c, dy[0], kept);
  tfs_output ind = tfs_gb_cast(c, tfs_gb_binary(c, "Equal", y, IN(0)),
                               tfs_gb_dtype(dy[0]));
  tfs_output num = tfs_gb_sum(c, ind, IN(1), 1);
  dx[0] = MUL(tfs_gb_binary(c, "RealDiv", ind, num), g);
}

/* Prod: the product of all the other reduced elements, from exclusive
 * cumulative products from both ends over the reduced elements packed
 * into one leading dimension. */
static void g_prod(tfs_gctx *c, tfs_operation *op, const tfs_output *dy,
                   tfs_output *dx) {
  tfs_output x = IN(0);
  int rank = tfs_gb_shape_of(x)->rank;
  unsigned char red[TFS_MAX_RANK];
  if (rank < 0 || const_axes(IN(1), rank, red)) {
    tfs_gb_fail(c, op, TFS_UNIMPLEMENTED,
                "needs constant axes and an input of known rank");
    return;
  }
  tfs_output g = spread(c, x, IN(1), dy[0]);
  int32_t perm[TFS_MAX_RANK], inv[TFS_MAX_RANK], nred = 0, k = 0;
  for (int i = 0; i < rank; i++)
    if (red[i]) perm[k++] = i, nred++;
  for (int i = 0; i < rank; i++)
    if (!red[i]) perm[k++] = i;
  for (int i = 0; i < rank; i++) inv[perm[i]] = i;
  tfs_output shp = tfs_gb_shape(c, x);
  tfs_output zero = tfs_gb_i32(c, 0);
  tfs_output rid = tfs_gb_i32_vec(c, perm, nred);
  tfs_output oid = tfs_gb_i32_vec(c, perm + nred, rank - nred);
  tfs_output nums[2];
  tfs_output ids[2] = {rid, oid};
  for (int i = 0; i < 2; i++) {
    tfs_op_desc *d = tfs_gb_desc(c, "GatherV2");
    tfs_op_desc_add_input(d, shp);
    tfs_op_desc_add_input(d, ids[i]);
    tfs_op_desc_add_input(d, zero);
    nums[i] = tfs_gb_reduce(c, "Prod", tfs_gb_out(tfs_gb_finish(c, d), 0),
                            zero, 0);
  }
  tfs_op_desc *d = tfs_gb_desc(c, "Pack");
  tfs_op_desc_add_input_list(d, nums, 2);
  tfs_output two_d = tfs_gb_out(tfs_gb_finish(c, d), 0);
  tfs_output permuted = tfs_gb_transpose(c, x, tfs_gb_i32_vec(c, perm, rank));
  tfs_output flat = tfs_gb_reshape(c, permuted, two_d);
  tfs_output cp[2];
  for (int rev = 0; rev < 2; rev++) {
    d = tfs_gb_desc(c, "Cumprod");
    tfs_op_desc_add_input(d, flat);
    tfs_op_desc_add_input(d, zero);
    tfs_op_desc_set_attr_bool(d, "exclusive", 1);
    tfs_op_desc_set_attr_bool(d, "reverse", rev);
    cp[rev] = tfs_gb_out(tfs_gb_finish(c, d), 0);
  }
  tfs_output others = MUL(tfs_gb_conj(c, cp[0]), tfs_gb_conj(c, cp[1]));
  others = tfs_gb_reshape(c, others, tfs_gb_shape(c, permuted));
  others = tfs_gb_transpose(c, others, tfs_gb_i32_vec(c, inv, rank));
  dx[0] = MUL(g, others);
}

/* ---- matrix products --------------------------------------------------- */

static int attr_bool(const tfs_operation *op, const char *name) {
  int v = 0;
  tfs_attrs_get_bool(&op->attrs, name, &v);
  return v;
}

/* The four transpose cases of d(A B): returns dA, dB. */
static void matmul_cases(tfs_gctx *c, const char *type, tfs_output a,
                         tfs_output b, tfs_output g, int ta, int tb,
                         tfs_output *da, tfs_output *db) {
  if (!ta && !tb) {
    *da = tfs_gb_matmul(c, type, g, b, 0, 1);
    *db = tfs_gb_matmul(c, type, a, g, 1, 0);
  } else if (!ta && tb) {
    *da = tfs_gb_matmul(c, type, g, b, 0, 0);
    *db = tfs_gb_matmul(c, type, g, a, 1, 0);
  } else if (ta && !tb) {
    *da = tfs_gb_matmul(c, type, b, g, 0, 1);
    *db = tfs_gb_matmul(c, type, a, g, 0, 0);
  } else {
    *da = tfs_gb_matmul(c, type, b, g, 1, 1);
    *db = tfs_gb_matmul(c, type, g, a, 1, 1);
  }
}

static void g_matmul(tfs_gctx *c, tfs_operation *op, const tfs_output *dy,
                     tfs_output *dx) {
  matmul_cases(c, "MatMul", IN(0), IN(1), dy[0],
               attr_bool(op, "transpose_a"), attr_bool(op, "transpose_b"),
               &dx[0], &dx[1]);
}

/* The batch dims of x: its shape without the last two, int32. */
static tfs_output batch_shape(tfs_gctx *c, tfs_output x, int rank) {
  int32_t b = 0, n = rank - 2;
  tfs_op_desc *d = tfs_gb_desc(c, "Slice");
  tfs_op_desc_add_input(d, tfs_gb_shape(c, x));
  tfs_op_desc_add_input(d, tfs_gb_i32_vec(c, &b, 1));
  tfs_op_desc_add_input(d, tfs_gb_i32_vec(c, &n, 1));
  return tfs_gb_out(tfs_gb_finish(c, d), 0);
}

static int same_batch(const tfs_shape *a, const tfs_shape *b) {
  if (!shape_known(a) || !shape_known(b) || a->rank != b->rank) return 0;
  for (int i = 0; i < a->rank - 2; i++)
    if (a->dims[i] != b->dims[i]) return 0;
  return 1;
}

static void g_batch_matmul(tfs_gctx *c, tfs_operation *op,
                           const tfs_output *dy, tfs_output *dx) {
  int v1 = !strcmp(op->def->name, "BatchMatMul");
  const char *type = v1 ? "BatchMatMul" : "BatchMatMulV2";
  tfs_output a = IN(0), b = IN(1);
  if (tfs_gb_dtype(a) != tfs_gb_dtype(OUT(0)) ||
      tfs_gb_dtype(b) != tfs_gb_dtype(OUT(0))) {
    tfs_gb_fail(c, op, TFS_UNIMPLEMENTED,
                "inputs of types %s and %s with a %s output",
                tfs_dtype_name(tfs_gb_dtype(a)), tfs_dtype_name(tfs_gb_dtype(b)),
                tfs_dtype_name(tfs_gb_dtype(OUT(0))));
    return;
  }
  tfs_output da, db;
  matmul_cases(c, type, a, b, dy[0], attr_bool(op, "adj_x"),
               attr_bool(op, "adj_y"), &da, &db);
  const tfs_shape *sa = tfs_gb_shape_of(a), *sb = tfs_gb_shape_of(b);
  if (v1 || same_batch(sa, sb)) {
    dx[0] = da;
    dx[1] = db;
    return;
  }
  if (sa->rank < 2 || sb->rank < 2) {
    tfs_gb_fail(c, op, TFS_UNIMPLEMENTED,
                "broadcasting batch dims need inputs of known rank");
    return;
  }
  tfs_op_desc *d = tfs_gb_desc(c, "BroadcastGradientArgs");
  tfs_op_desc_add_input(d, batch_shape(c, a, sa->rank));
  tfs_op_desc_add_input(d, batch_shape(c, b, sb->rank));
  tfs_operation *bga = tfs_gb_finish(c, d);
  dx[0] = tfs_gb_reshape(c, tfs_gb_sum(c, da, tfs_gb_out(bga, 0), 0),
                         tfs_gb_shape(c, a));
  dx[1] = tfs_gb_reshape(c, tfs_gb_sum(c, db, tfs_gb_out(bga, 1), 0),
                         tfs_gb_shape(c, b));
}

/* ---- scans and segments ------------------------------------------------- */

static void g_cumsum(tfs_gctx *c, tfs_operation *op, const tfs_output *dy,
                     tfs_output *dx) {
  tfs_op_desc *d = tfs_gb_desc(c, "Cumsum");
  tfs_op_desc_add_input(d, dy[0]);
  tfs_op_desc_add_input(d, IN(1));
  tfs_op_desc_set_attr_bool(d, "exclusive", attr_bool(op, "exclusive"));
  tfs_op_desc_set_attr_bool(d, "reverse", !attr_bool(op, "reverse"));
  dx[0] = tfs_gb_out(tfs_gb_finish(c, d), 0);
}

static tfs_output gather0(tfs_gctx *c, tfs_output params, tfs_output idx) {
  tfs_op_desc *d = tfs_gb_desc(c, "GatherV2");
  tfs_op_desc_add_input(d, params);
  tfs_op_desc_add_input(d, idx);
  tfs_op_desc_add_input(d, tfs_gb_i32(c, 0));
  return tfs_gb_out(tfs_gb_finish(c, d), 0);
}

static void g_segment_sum(tfs_gctx *c, tfs_operation *op,
                          const tfs_output *dy, tfs_output *dx) {
  dx[0] = gather0(c, dy[0], IN(1));
}

/* UnsortedSegmentSum: gather the gradient rows back; ids < 0 were
 * dropped, so their rows get zeros. */
static void g_unsorted_segment_sum(tfs_gctx *c, tfs_operation *op,
                                   const tfs_output *dy, tfs_output *dx) {
  tfs_output ids = IN(1);
  tfs_output zero = tfs_gb_scalar(c, tfs_gb_dtype(ids), 0);
  tfs_output clipped = tfs_gb_binary(c, "Maximum", ids, zero);
  tfs_output rows = gather0(c, dy[0], clipped);
  tfs_output keep = tfs_gb_binary(c, "GreaterEqual", ids, zero);
  int ir = tfs_gb_shape_of(ids)->rank, rr = tfs_gb_shape_of(rows)->rank;
  if (ir < 0 || rr < 0) {
    tfs_gb_fail(c, op, TFS_UNIMPLEMENTED,
                "needs data and segment ids of known rank");
    return;
  }
  int32_t shp[TFS_MAX_RANK];
  for (int i = 0; i < rr; i++) shp[i] = i < ir ? -1 : 1;
  if (ir > 0) {
    /* keep's own shape, then ones for the trailing data dims */
    tfs_output parts[2] = {tfs_gb_shape(c, ids),
                           tfs_gb_i32_vec(c, shp + ir, rr - ir)};
    tfs_op_desc *d = tfs_gb_desc(c, "ConcatV2");
    tfs_op_desc_add_input_list(d, parts, 2);
    tfs_op_desc_add_input(d, tfs_gb_i32(c, 0));
    keep = tfs_gb_reshape(c, keep, tfs_gb_out(tfs_gb_finish(c, d), 0));
  }
  tfs_op_desc *d = tfs_gb_desc(c, "SelectV2");
  tfs_op_desc_add_input(d, keep);
  tfs_op_desc_add_input(d, rows);
  tfs_op_desc_add_input(d, UN("ZerosLike", rows));
  dx[0] = tfs_gb_out(tfs_gb_finish(c, d), 0);
}

static const tfs_grad_entry k_reduce[] = {
    {"BatchMatMul", g_batch_matmul},
    {"BatchMatMulV2", g_batch_matmul},
    {"BatchMatMulV3", g_batch_matmul},
    {"Cumsum", g_cumsum},
    {"MatMul", g_matmul},
    {"Max", g_min_max},
    {"Mean", g_mean},
    {"Min", g_min_max},
    {"Prod", g_prod},
    {"SegmentSum", g_segment_sum},
    {"Sum", g_sum},
    {"UnsortedSegmentSum", g_unsorted_segment_sum},
};

const tfs_grad_entry *tfs_grad__reduce_table(int *n) {
  *n = (int)(sizeof k_reduce / sizeof k_reduce[0]);
  return k_reduce;
}
