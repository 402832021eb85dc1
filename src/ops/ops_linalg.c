/*
 * ops/ops_linalg.c - complex numbers and linear algebra: Complex, Real,
 * Imag, Angle, Conj; MatrixInverse, MatrixSolve, MatrixTriangularSolve,
 * Cholesky, Qr, SelfAdjointEigV2 and Svd.  Signatures are TensorFlow
 * 2.21's; shape functions follow its linalg shape inference and wording.
 */
#include "core/status.h"
#include "ops/op_tables.h"
#include "ops/shape_ctx.h"

/* TensorFlow's Min of two dims: known values compare; a 0 wins over an
 * unknown dim. */
static int64_t min_dim(int64_t a, int64_t b) {
  if (a >= 0 && b >= 0) return a < b ? a : b;
  if (a == 0 || b == 0) return 0;
  return -1;
}

/* The batch part of shape s (all but the last two dims) followed by the
 * dims d0 (and d1 when nd is 2) into out; s has known rank >= 2. */
static void batch_then(const tfs_shape *s, int nd, int64_t d0, int64_t d1,
                       tfs_shape *out) {
  *out = *s;
  out->rank = s->rank - 2 + nd;
  out->dims[s->rank - 2] = d0;
  if (nd == 2) out->dims[s->rank - 1] = d1;
}

/* MakeBatchSquareMatrix: rank >= 2 and the last two dims merged.  Returns
 * the merged size in *n (-1 when unknown or when the rank is unknown). */
static int batch_square(tfs_shape_ctx *c, int i, int64_t *n) {
  const tfs_shape *in = &c->in_shapes[i];
  *n = -1;
  if (tfs_sc_with_rank_at_least(c, i, 2)) return -1;
  if (in->rank < 0) return 0;
  return tfs_sc_merge_dim(c, in->dims[in->rank - 2], in->dims[in->rank - 1], n);
}

/* MatrixInverse, Cholesky: the input's shape with its square dims merged. */
static int batch_unchanged_square_shape(tfs_shape_ctx *c) {
  int64_t n;
  if (batch_square(c, 0, &n)) return -1;
  const tfs_shape *in = &c->in_shapes[0];
  if (in->rank < 0) return tfs_shape_fn_unknown(c);
  batch_then(in, 2, n, n, &c->out_shapes[0]);
  return 0;
}

/* MatrixSolve: equal batch dims, a square lhs whose rows match rhs's. */
static int matrix_solve_shape(tfs_shape_ctx *c) {
  int64_t n;
  if (batch_square(c, 0, &n) || tfs_sc_with_rank_at_least(c, 1, 2)) return -1;
  const tfs_shape *a = &c->in_shapes[0], *b = &c->in_shapes[1];
  if (a->rank < 0 && b->rank < 0) return tfs_shape_fn_unknown(c);
  if (a->rank >= 0 && b->rank >= 0 && a->rank != b->rank)
    return tfs_sc_error(c, "Shapes must be equal rank, but are %d and %d",
                        a->rank - 2, b->rank - 2);
  const tfs_shape *known = a->rank >= 0 ? a : b;
  tfs_shape out = *known;
  for (int d = 0; d < known->rank - 2; d++) {
    int64_t x = a->rank >= 0 ? a->dims[d] : -1;
    int64_t y = b->rank >= 0 ? b->dims[d] : -1;
    if (x >= 0 && y >= 0 && x != y) {
      char s1[TFS_SHAPE_STRLEN], s2[TFS_SHAPE_STRLEN];
      tfs_shape ab = *a, bb = *b;
      ab.rank -= 2;
      bb.rank -= 2;
      return tfs_sc_error(c,
                          "Dimension %d in both shapes must be equal, "
                          "but are %lld and %lld. Shapes are %s and %s.",
                          d, (long long)x, (long long)y,
                          tfs_shape_str(&ab, s1, sizeof s1),
                          tfs_shape_str(&bb, s2, sizeof s2));
    }
    out.dims[d] = x >= 0 ? x : y;
  }
  int64_t m = a->rank >= 0 ? a->dims[a->rank - 2] : -1;
  if (b->rank >= 0 && tfs_sc_merge_dim(c, m, b->dims[b->rank - 2], &m))
    return -1;
  if (tfs_sc_merge_dim(c, m, n, &n)) return -1;
  out.dims[known->rank - 2] = n;
  out.dims[known->rank - 1] = b->rank >= 0 ? b->dims[b->rank - 1] : -1;
  c->out_shapes[0] = out;
  return 0;
}

/* MatrixTriangularSolve: the batch dims broadcast. */
static int matrix_triangular_solve_shape(tfs_shape_ctx *c) {
  int64_t n;
  if (batch_square(c, 0, &n) || tfs_sc_with_rank_at_least(c, 1, 2)) return -1;
  const tfs_shape *a = &c->in_shapes[0], *b = &c->in_shapes[1];
  if (a->rank < 0 || b->rank < 0) return tfs_shape_fn_unknown(c);
  tfs_shape ab = *a, bb = *b, out;
  ab.rank -= 2;
  bb.rank -= 2;
  if (tfs_shape_broadcast(&ab, &bb, &out)) {
    int r = ab.rank > bb.rank ? ab.rank : bb.rank;
    for (int i = 0; i < r; i++) {
      int ia = ab.rank - r + i, ib = bb.rank - r + i;
      int64_t x = ia >= 0 ? ab.dims[ia] : 1, y = ib >= 0 ? bb.dims[ib] : 1;
      if (x > 1 && y > 1 && x != y)
        return tfs_sc_error(c,
                            "Dimensions must be equal, but are %lld and "
                            "%lld",
                            (long long)x, (long long)y);
    }
    return tfs_sc_error(c, "Incompatible shapes for broadcasting");
  }
  int64_t m;
  if (tfs_sc_merge_dim(c, a->dims[a->rank - 1], b->dims[b->rank - 2], &m))
    return -1;
  out.dims[out.rank] = m;
  out.dims[out.rank + 1] = b->dims[b->rank - 1];
  out.rank += 2;
  c->out_shapes[0] = out;
  return 0;
}

static int qr_shape(tfs_shape_ctx *c) {
  if (tfs_sc_with_rank_at_least(c, 0, 2)) return -1;
  const tfs_shape *in = &c->in_shapes[0];
  if (in->rank < 0) return tfs_shape_fn_unknown(c);
  int full = 0;
  tfs_attrs_get_bool(c->attrs, "full_matrices", &full);
  int64_t m = in->dims[in->rank - 2], n = in->dims[in->rank - 1];
  int64_t p = min_dim(m, n);
  batch_then(in, 2, m, full ? m : p, &c->out_shapes[0]);
  batch_then(in, 2, full ? m : p, n, &c->out_shapes[1]);
  return 0;
}

static int self_adjoint_eig_v2_shape(tfs_shape_ctx *c) {
  int64_t n;
  if (batch_square(c, 0, &n)) return -1;
  const tfs_shape *in = &c->in_shapes[0];
  int compute_v = 1;
  tfs_attrs_get_bool(c->attrs, "compute_v", &compute_v);
  if (in->rank >= 0) batch_then(in, 1, n, 0, &c->out_shapes[0]);
  if (!compute_v)
    tfs_shape_1d(&c->out_shapes[1], 0);
  else if (in->rank >= 0)
    batch_then(in, 2, n, n, &c->out_shapes[1]);
  return 0;
}

static int svd_shape(tfs_shape_ctx *c) {
  if (tfs_sc_with_rank_at_least(c, 0, 2)) return -1;
  const tfs_shape *in = &c->in_shapes[0];
  int compute_uv = 1, full = 0;
  tfs_attrs_get_bool(c->attrs, "compute_uv", &compute_uv);
  tfs_attrs_get_bool(c->attrs, "full_matrices", &full);
  if (in->rank >= 0) {
    int64_t m = in->dims[in->rank - 2], n = in->dims[in->rank - 1];
    int64_t p = min_dim(m, n);
    batch_then(in, 1, p, 0, &c->out_shapes[0]);
    if (compute_uv) {
      batch_then(in, 2, m, full ? m : p, &c->out_shapes[1]);
      batch_then(in, 2, n, full ? n : p, &c->out_shapes[2]);
    }
  }
  if (!compute_uv) {
    tfs_shape_1d(&c->out_shapes[1], 0);
    tfs_shape_1d(&c->out_shapes[2], 0);
  }
  return 0;
}

/* ---- the table ----------------------------------------------------------- */

#define LINALG_T "T: {double, float, half, complex64, complex128}"
#define TO_REAL                                                                \
  "T: {complex64, complex128} = complex64; Tout: {float, double} = float"

const tfs_op_spec tfs_ops_linalg[] = {
    {"Complex", "real: T; imag: T", "out: Tout",
     "T: {float, double} = float; Tout: {complex64, complex128} = complex64",
     tfs_shape_fn_broadcast, TFS_OP_ELEMENTWISE},
    {"Real", "input: T", "output: Tout", TO_REAL, tfs_shape_fn_unchanged,
     TFS_OP_ELEMENTWISE},
    {"Imag", "input: T", "output: Tout", TO_REAL, tfs_shape_fn_unchanged,
     TFS_OP_ELEMENTWISE},
    {"Angle", "input: T", "output: Tout", TO_REAL, tfs_shape_fn_unchanged,
     TFS_OP_ELEMENTWISE},
    {"Conj", "input: T", "output: T",
     "T: {complex64, complex128, variant} = complex64", tfs_shape_fn_unchanged,
     TFS_OP_ELEMENTWISE},
    {"MatrixInverse", "input: T", "output: T",
     "adjoint: bool = false; " LINALG_T, batch_unchanged_square_shape, 0},
    {"MatrixSolve", "matrix: T; rhs: T", "output: T",
     "adjoint: bool = false; " LINALG_T, matrix_solve_shape, 0},
    {"MatrixTriangularSolve", "matrix: T; rhs: T", "output: T",
     "lower: bool = true; adjoint: bool = false; T: {bfloat16, double, "
     "float, half, complex64, complex128}",
     matrix_triangular_solve_shape, 0},
    {"Cholesky", "input: T", "output: T", LINALG_T,
     batch_unchanged_square_shape, 0},
    {"Qr", "input: T", "q: T; r: T", "full_matrices: bool = false; " LINALG_T,
     qr_shape, 0},
    {"SelfAdjointEigV2", "input: T", "e: T; v: T",
     "compute_v: bool = true; " LINALG_T, self_adjoint_eig_v2_shape, 0},
    {"Svd", "input: T", "s: T; u: T; v: T",
     "compute_uv: bool = true; full_matrices: bool = false; " LINALG_T,
     svd_shape, 0},
    {NULL, NULL, NULL, NULL, NULL, 0},
};
