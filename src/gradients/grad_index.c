/*
 * gradients/grad_index.c - gradients of the indexing, data-flow and
 * layout ops TensorFlow's C++ registry differentiates
 * (cc/gradients/array_grad.cc, data_flow_grad.cc, manip_grad.cc,
 * linalg_grad.cc, math_grad.cc): GatherNd and ScatterNd, segment max and
 * min, dynamic stitch and partition, diagonals and bands, space/batch
 * and space/depth shuffles, ReverseSequence, Roll, Cumprod, Einsum of two
 * operands, BatchMatMulV3, Angle and quantize-dequantize's straight
 * through.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/status.h"
#include "gradients/grad_internal.h"

#define IN(k) tfs_gb_in(op, (k))
#define OUT(k) tfs_gb_out(op, (k))
#define MUL(a, b) tfs_gb_binary(c, "Mul", (a), (b))
#define UN(t, a) tfs_gb_unary(c, (t), (a))

static tfs_output op3(tfs_gctx *c, const char *type, tfs_output a,
                      tfs_output b, tfs_output d3, const tfs_operation *from,
                      const char *const *attrs) {
  tfs_op_desc *d = tfs_gb_desc(c, type);
  tfs_op_desc_add_input(d, a);
  tfs_op_desc_add_input(d, b);
  if (d3.oper) tfs_op_desc_add_input(d, d3);
  for (; attrs && *attrs; attrs++) tfs_op_desc__copy_attr(d, from, *attrs);
  return tfs_gb_out(tfs_gb_finish(c, d), 0);
}

/* Shape(x) in the dtype of `like` (int32 or int64). */
static tfs_output shape_as(tfs_gctx *c, tfs_output x, tfs_output like) {
  return tfs_gb_cast(c, tfs_gb_shape(c, x), tfs_gb_dtype(like));
}

/* ---- gathers and scatters ---------------------------------------------- */

static void g_gather_nd(tfs_gctx *c, tfs_operation *op, const tfs_output *dy,
                        tfs_output *dx) {
  dx[0] = op3(c, "ScatterNd", IN(1), dy[0], shape_as(c, IN(0), IN(1)), op,
              NULL);
}

static void g_scatter_nd(tfs_gctx *c, tfs_operation *op, const tfs_output *dy,
                         tfs_output *dx) {
  dx[1] = tfs_gb_binary(c, "GatherNd", dy[0], IN(0));
}

static tfs_output gather0(tfs_gctx *c, tfs_output params, tfs_output idx) {
  return op3(c, "GatherV2", params, idx, tfs_gb_i32(c, 0), NULL, NULL);
}

/* UnsortedSegmentMax/Min: the gradient is shared by the elements equal to
 * their segment's result (python/ops/math_grad.py). */
static void g_segment_min_max(tfs_gctx *c, tfs_operation *op,
                              const tfs_output *dy, tfs_output *dx) {
  tfs_output ids = IN(1), zero = tfs_gb_scalar(c, tfs_gb_dtype(ids), 0);
  int ir = tfs_gb_shape_of(ids)->rank, xr = tfs_gb_shape_of(IN(0))->rank;
  if (ir < 0 || xr < 0) {
    tfs_gb_fail(c, op, TFS_UNIMPLEMENTED,
                "needs data and segment ids of known rank");
    return;
  }
  tfs_output clipped = tfs_gb_binary(c, "Maximum", ids, zero);
  tfs_output valid = tfs_gb_binary(c, "GreaterEqual", ids, zero);
  if (xr > ir) { /* valid broadcast over the trailing data dims */
    int32_t ones[TFS_MAX_RANK];
    for (int i = 0; i < xr - ir; i++) ones[i] = 1;
    tfs_output parts[2] = {tfs_gb_shape(c, ids),
                           tfs_gb_i32_vec(c, ones, xr - ir)};
    tfs_op_desc *d = tfs_gb_desc(c, "ConcatV2");
    tfs_op_desc_add_input_list(d, parts, 2);
    tfs_op_desc_add_input(d, tfs_gb_i32(c, 0));
    valid = tfs_gb_reshape(c, valid, tfs_gb_out(tfs_gb_finish(c, d), 0));
  }
  /* rows of dropped ids compare with NaN, so none of them is picked */
  tfs_output nan = tfs_gb_scalar(c, tfs_gb_dtype(IN(0)), NAN);
  tfs_op_desc *sd = tfs_gb_desc(c, "SelectV2");
  tfs_op_desc_add_input(sd, valid);
  tfs_op_desc_add_input(sd, gather0(c, OUT(0), clipped));
  tfs_op_desc_add_input(sd, nan);
  tfs_output picked = tfs_gb_binary(c, "Equal", IN(0),
                                    tfs_gb_out(tfs_gb_finish(c, sd), 0));
  tfs_output ones = tfs_gb_cast(c, picked, tfs_gb_dtype(dy[0]));
  tfs_output count =
      op3(c, "UnsortedSegmentSum", ones, ids, IN(2), NULL, NULL);
  tfs_output share = tfs_gb_binary(c, "DivNoNan", dy[0], count);
  tfs_output g = gather0(c, share, clipped);
  tfs_op_desc *d = tfs_gb_desc(c, "SelectV2");
  tfs_op_desc_add_input(d, picked);
  tfs_op_desc_add_input(d, g);
  tfs_op_desc_add_input(d, UN("ZerosLike", g));
  dx[0] = tfs_gb_out(tfs_gb_finish(c, d), 0);
}

/* DynamicStitch(indices..., data...): data i gets its rows back. */
static void g_dynamic_stitch(tfs_gctx *c, tfs_operation *op,
                             const tfs_output *dy, tfs_output *dx) {
  int n = op->ninputs / 2;
  for (int i = 0; i < n; i++) dx[n + i] = gather0(c, dy[0], IN(i));
}

/* DynamicPartition(data, partitions): stitch the outputs' gradients back
 * at the positions the partition took them from. */
static void g_dynamic_partition(tfs_gctx *c, tfs_operation *op,
                                const tfs_output *dy, tfs_output *dx) {
  int n = op->noutputs;
  tfs_op_desc *d = tfs_gb_desc(c, "Range");
  tfs_op_desc_add_input(d, tfs_gb_i32(c, 0));
  tfs_op_desc_add_input(d, UN("Size", IN(1)));
  tfs_op_desc_add_input(d, tfs_gb_i32(c, 1));
  tfs_output pos = tfs_gb_reshape(c, tfs_gb_out(tfs_gb_finish(c, d), 0),
                                  tfs_gb_shape(c, IN(1)));
  d = tfs_gb_desc(c, "DynamicPartition");
  tfs_op_desc_add_input(d, pos);
  tfs_op_desc_add_input(d, IN(1));
  tfs_op_desc_set_attr_int(d, "num_partitions", n);
  tfs_operation *parts = tfs_gb_finish(c, d);
  if (!parts) return;
  tfs_output idx[64];
  if (n > 64) {
    tfs_gb_fail(c, op, TFS_UNIMPLEMENTED, "more than 64 partitions");
    return;
  }
  for (int i = 0; i < n; i++) idx[i] = tfs_gb_out(parts, i);
  d = tfs_gb_desc(c, "DynamicStitch");
  tfs_op_desc_add_input_list(d, idx, n);
  tfs_op_desc_add_input_list(d, dy, n);
  dx[0] = tfs_gb_reshape(c, tfs_gb_out(tfs_gb_finish(c, d), 0),
                         tfs_gb_shape(c, IN(0)));
}

/* ---- diagonals and bands ------------------------------------------------- */

static void g_matrix_diag(tfs_gctx *c, tfs_operation *op,
                          const tfs_output *dy, tfs_output *dx) {
  dx[0] = UN("MatrixDiagPart", dy[0]);
}

static void g_matrix_diag_part(tfs_gctx *c, tfs_operation *op,
                               const tfs_output *dy, tfs_output *dx) {
  /* the part's gradient on a zero matrix of the input's shape */
  dx[0] = tfs_gb_binary(c, "MatrixSetDiag", UN("ZerosLike", IN(0)), dy[0]);
}

static void g_matrix_set_diag(tfs_gctx *c, tfs_operation *op,
                              const tfs_output *dy, tfs_output *dx) {
  dx[0] = tfs_gb_binary(c, "MatrixSetDiag", dy[0],
                        UN("ZerosLike", UN("MatrixDiagPart", IN(0))));
  dx[1] = UN("MatrixDiagPart", dy[0]);
}

static void g_matrix_band_part(tfs_gctx *c, tfs_operation *op,
                               const tfs_output *dy, tfs_output *dx) {
  dx[0] = op3(c, "MatrixBandPart", dy[0], IN(1), IN(2), NULL, NULL);
}

/* ---- layout shuffles ----------------------------------------------------- */

static void g_space_to_batch_nd(tfs_gctx *c, tfs_operation *op,
                                const tfs_output *dy, tfs_output *dx) {
  dx[0] = op3(c, "BatchToSpaceND", dy[0], IN(1), IN(2), NULL, NULL);
}

static void g_batch_to_space_nd(tfs_gctx *c, tfs_operation *op,
                                const tfs_output *dy, tfs_output *dx) {
  dx[0] = op3(c, "SpaceToBatchND", dy[0], IN(1), IN(2), NULL, NULL);
}

static void g_space_to_depth(tfs_gctx *c, tfs_operation *op,
                             const tfs_output *dy, tfs_output *dx) {
  static const char *const attrs[] = {"block_size", "data_format", NULL};
  tfs_op_desc *d = tfs_gb_desc(c, !strcmp(op->def->name, "SpaceToDepth")
                                      ? "DepthToSpace"
                                      : "SpaceToDepth");
  tfs_op_desc_add_input(d, dy[0]);
  for (const char *const *a = attrs; *a; a++)
    tfs_op_desc__copy_attr(d, op, *a);
  dx[0] = tfs_gb_out(tfs_gb_finish(c, d), 0);
}

static void g_reverse_sequence(tfs_gctx *c, tfs_operation *op,
                               const tfs_output *dy, tfs_output *dx) {
  static const char *const attrs[] = {"seq_dim", "batch_dim", NULL};
  dx[0] = op3(c, "ReverseSequence", dy[0], IN(1), TFS_GRAD_NONE, op, attrs);
}

static void g_roll(tfs_gctx *c, tfs_operation *op, const tfs_output *dy,
                   tfs_output *dx) {
  dx[0] = op3(c, "Roll", dy[0], UN("Neg", IN(1)), IN(2), NULL, NULL);
}

/* Cumprod: the reverse cumulative sum of prod * g, divided by x
 * (python/ops/math_grad.py; x must have no zeros). */
static void g_cumprod(tfs_gctx *c, tfs_operation *op, const tfs_output *dy,
                      tfs_output *dx) {
  int ex = 0, rev = 0;
  tfs_attrs_get_bool(&op->attrs, "exclusive", &ex);
  tfs_attrs_get_bool(&op->attrs, "reverse", &rev);
  tfs_op_desc *d = tfs_gb_desc(c, "Cumsum");
  tfs_op_desc_add_input(d, MUL(OUT(0), dy[0]));
  tfs_op_desc_add_input(d, IN(1));
  tfs_op_desc_set_attr_bool(d, "exclusive", ex);
  tfs_op_desc_set_attr_bool(d, "reverse", !rev);
  tfs_output s = tfs_gb_out(tfs_gb_finish(c, d), 0);
  dx[0] = tfs_gb_binary(c, "RealDiv", s, tfs_gb_conj(c, IN(0)));
}

/* ---- Einsum ---------------------------------------------------------------- */

/* Splits "xs,ys->os"; 0 when the equation has two operands, no ellipsis
 * and no label repeated inside one operand. */
static int parse_einsum(const char *eq, char *xs, char *ys, char *os) {
  const char *comma = strchr(eq, ','), *arrow = strstr(eq, "->");
  if (!comma || !arrow || comma > arrow || strchr(comma + 1, ',') ||
      strchr(eq, '.') || arrow - eq > 120 || strlen(arrow + 2) > 60)
    return -1;
  size_t nx = (size_t)(comma - eq), ny = (size_t)(arrow - comma - 1);
  memcpy(xs, eq, nx);
  xs[nx] = 0;
  memcpy(ys, comma + 1, ny);
  ys[ny] = 0;
  memcpy(os, arrow + 2, strlen(arrow + 2) + 1);
  const char *all[3] = {xs, ys, os};
  for (int k = 0; k < 3; k++)
    for (const char *p = all[k]; *p; p++)
      if (strchr(p + 1, *p)) return -1;
  return 0;
}

/* Every label of a appears in b or c. */
static int covered(const char *a, const char *b, const char *c) {
  for (; *a; a++)
    if (!strchr(b, *a) && !strchr(c, *a)) return 0;
  return 1;
}

static tfs_output einsum2(tfs_gctx *c, const char *eq, tfs_output a,
                          tfs_output b) {
  tfs_output in[2] = {a, b};
  tfs_op_desc *d = tfs_gb_desc(c, "Einsum");
  tfs_op_desc_add_input_list(d, in, 2);
  tfs_op_desc_set_attr_string(d, "equation", eq, strlen(eq));
  return tfs_gb_out(tfs_gb_finish(c, d), 0);
}

static void g_einsum(tfs_gctx *c, tfs_operation *op, const tfs_output *dy,
                     tfs_output *dx) {
  size_t len = 0;
  const char *eq = tfs_attrs_get_string(&op->attrs, "equation", &len);
  char xs[128], ys[128], os[64], e[400];
  if (op->ninputs != 2 || !eq || parse_einsum(eq, xs, ys, os) ||
      !covered(xs, os, ys) || !covered(ys, os, xs)) {
    tfs_gb_fail(c, op, TFS_UNIMPLEMENTED,
                "a gradient for \"%s\": only two operands without ellipsis, "
                "repeated labels or labels summed inside one operand",
                eq ? eq : "");
    return;
  }
  snprintf(e, sizeof e, "%s,%s->%s", os, ys, xs);
  dx[0] = einsum2(c, e, dy[0], tfs_gb_conj(c, IN(1)));
  snprintf(e, sizeof e, "%s,%s->%s", xs, os, ys);
  dx[1] = einsum2(c, e, tfs_gb_conj(c, IN(0)), dy[0]);
}

/* ---- the rest ------------------------------------------------------------- */

/* angle(z) = atan2(im, re): d/dz = -g / conj(im + i re)
 * (python/ops/math_grad.py _AngleGrad) */
static void g_angle(tfs_gctx *c, tfs_operation *op, const tfs_output *dy,
                    tfs_output *dx) {
  tfs_dtype ct = tfs_gb_dtype(IN(0)), rt = tfs_gb_dtype(dy[0]);
  tfs_op_desc *d;
  tfs_output part[2];
  const char *names[2] = {"Real", "Imag"};
  for (int i = 0; i < 2; i++) {
    d = tfs_gb_desc(c, names[i]);
    tfs_op_desc_add_input(d, IN(0));
    tfs_op_desc_set_attr_type(d, "Tout", rt);
    part[i] = tfs_gb_out(tfs_gb_finish(c, d), 0);
  }
  d = tfs_gb_desc(c, "Complex");
  tfs_op_desc_add_input(d, part[1]);
  tfs_op_desc_add_input(d, part[0]);
  tfs_op_desc_set_attr_type(d, "Tout", ct);
  tfs_output z = UN("Reciprocal", tfs_gb_out(tfs_gb_finish(c, d), 0));
  d = tfs_gb_desc(c, "Complex");
  tfs_op_desc_add_input(d, dy[0]);
  tfs_op_desc_add_input(d, UN("ZerosLike", dy[0]));
  tfs_op_desc_set_attr_type(d, "Tout", ct);
  tfs_output gz = tfs_gb_out(tfs_gb_finish(c, d), 0);
  dx[0] = UN("Neg", MUL(gz, z));
}

/* QuantizeAndDequantizeV2/V3: the straight-through estimator; the range
 * inputs get none (cc/gradients/array_grad.cc). */
static void g_straight_through(tfs_gctx *c, tfs_operation *op,
                               const tfs_output *dy, tfs_output *dx) {
  (void)c, (void)op;
  dx[0] = dy[0];
}

static const tfs_grad_entry k_index[] = {
    {"Angle", g_angle},
    {"BatchToSpaceND", g_batch_to_space_nd},
    {"Cumprod", g_cumprod},
    {"DepthToSpace", g_space_to_depth},
    {"DynamicPartition", g_dynamic_partition},
    {"DynamicStitch", g_dynamic_stitch},
    {"Einsum", g_einsum},
    {"GatherNd", g_gather_nd},
    {"MatrixBandPart", g_matrix_band_part},
    {"MatrixDiag", g_matrix_diag},
    {"MatrixDiagPart", g_matrix_diag_part},
    {"MatrixSetDiag", g_matrix_set_diag},
    {"ParallelDynamicStitch", g_dynamic_stitch},
    {"QuantizeAndDequantizeV2", g_straight_through},
    {"QuantizeAndDequantizeV3", g_straight_through},
    {"ReverseSequence", g_reverse_sequence},
    {"Roll", g_roll},
    {"ScatterNd", g_scatter_nd},
    {"SpaceToBatchND", g_space_to_batch_nd},
    {"SpaceToDepth", g_space_to_depth},
    {"UnsortedSegmentMax", g_segment_min_max},
    {"UnsortedSegmentMin", g_segment_min_max},
};

const tfs_grad_entry *tfs_grad__index_table(int *n) {
  *n = (int)(sizeof k_index / sizeof k_index[0]);
  return k_index;
}
