/*
 * ops/ops_matrix.c - matrix and sparse-structure ops: the MatrixDiag,
 * MatrixDiagPart and MatrixSetDiag families (V1, V2, V3),
 * MatrixDeterminant, SparseFillEmptyRows and SparseReshape.  Signatures
 * are TensorFlow 2.21's; shape functions follow its shape inference and
 * its wording.
 */
#include "core/status.h"
#include "ops/op_tables.h"
#include "ops/shape_ctx.h"

/* "Shape must be at most rank r but is rank k" for input i. */
static int with_rank_at_most(tfs_shape_ctx *c, int i, int r) {
  int k = c->in_shapes[i].rank;
  if (k > r)
    return tfs_sc_error(c, "Shape must be at most rank %d but is rank %d", r,
                        k);
  return 0;
}

/* TensorFlow's Min of two dims: known values compare; a 0 wins over an
 * unknown dim. */
static int64_t min_dim(int64_t a, int64_t b) {
  if (a >= 0 && b >= 0) return a < b ? a : b;
  if (a == 0 || b == 0) return 0;
  return -1;
}

/* The diagonal range of constant input i (k): 1 when read, 0 when the
 * input is not a constant, -1 after an error. */
static int read_diag_index(tfs_shape_ctx *c, int i, int64_t *lo,
                           int64_t *hi) {
  const tfs_tensor *k = tfs_sc_const(c, i);
  if (!k) return 0;
  if (k->shape.rank == 0 || k->nelems == 1) {
    if (k->nelems < 1) return 0;
    *lo = *hi = tfs_tensor__get_as_int64(k, 0);
  } else if (k->nelems == 2) {
    *lo = tfs_tensor__get_as_int64(k, 0);
    *hi = tfs_tensor__get_as_int64(k, 1);
  } else {
    return tfs_sc_error(c, "diag_index must be a vector with one or two "
                        "elements. It has %lld elements.",
                        (long long)k->nelems);
  }
  if (*lo > *hi)
    return tfs_sc_error(c, "lower_diag_index is greater than "
                        "upper_diag_index");
  return 1;
}

/* Both indices inside a known rows x cols matrix (0 always passes). */
static int check_diag_bounds(tfs_shape_ctx *c, int64_t rows, int64_t cols,
                             int64_t lo, int64_t hi) {
  if (rows < 0 || cols < 0) return 0;
  if (lo != 0 && (-rows >= lo || lo >= cols))
    return tfs_sc_error(c, "lower_diag_index is out of bound.");
  if (hi != 0 && (-rows >= hi || hi >= cols))
    return tfs_sc_error(c, "upper_diag_index is out of bound.");
  return 0;
}

static int matrix_diag_shape(tfs_shape_ctx *c) {
  const tfs_shape *in = &c->in_shapes[0];
  if (tfs_sc_with_rank_at_least(c, 0, 1)) return -1;
  if (in->rank < 0) return tfs_shape_fn_unknown(c);
  if (in->rank >= TFS_MAX_RANK)
    return tfs_sc_error(c, "MatrixDiag result has more than %d dimensions",
                        TFS_MAX_RANK);
  tfs_shape out = *in;
  out.dims[out.rank++] = in->dims[in->rank - 1];
  c->out_shapes[0] = out;
  return 0;
}

static int matrix_diag_part_shape(tfs_shape_ctx *c) {
  const tfs_shape *in = &c->in_shapes[0];
  if (tfs_sc_with_rank_at_least(c, 0, 2)) return -1;
  if (in->rank < 0) return tfs_shape_fn_unknown(c);
  tfs_shape out = *in;
  out.rank = in->rank - 1;
  out.dims[out.rank - 1] = min_dim(in->dims[in->rank - 2],
                                   in->dims[in->rank - 1]);
  c->out_shapes[0] = out;
  return 0;
}

/* The input's shape, with the batch dims filled in from the diagonal's
 * (its dims before the last `tail`) where the input leaves them open. */
static int set_diag_output(tfs_shape_ctx *c, int tail) {
  const tfs_shape *in = &c->in_shapes[0], *dg = &c->in_shapes[1];
  c->out_shapes[0] = *in;
  if (dg->rank < tail || tfs_shape_is_fully_defined(in)) return 0;
  tfs_shape want = {.rank = dg->rank - tail + 2};
  for (int i = 0; i < dg->rank - tail; i++) want.dims[i] = dg->dims[i];
  want.dims[want.rank - 2] = want.dims[want.rank - 1] = -1;
  if (in->rank >= 0 && in->rank != want.rank)
    return tfs_sc_error(c, "Shapes must be equal rank, but are %d and %d",
                        in->rank, want.rank);
  for (int i = 0; i < want.rank && in->rank >= 0; i++)
    if (tfs_sc_merge_dim(c, in->dims[i], want.dims[i], &want.dims[i]))
      return -1;
  c->out_shapes[0] = want;
  return 0;
}

static int matrix_set_diag_shape(tfs_shape_ctx *c) {
  const tfs_shape *in = &c->in_shapes[0], *dg = &c->in_shapes[1];
  if (tfs_sc_with_rank_at_least(c, 0, 2) ||
      tfs_sc_with_rank_at_least(c, 1, 1))
    return -1;
  if (in->rank >= 0 && tfs_sc_with_rank(c, 1, in->rank - 1)) return -1;
  if (in->rank >= 0 && dg->rank >= 0) {
    int64_t m = min_dim(in->dims[in->rank - 2], in->dims[in->rank - 1]);
    if (tfs_sc_merge_dim(c, m, dg->dims[dg->rank - 1], &m)) return -1;
  }
  return set_diag_output(c, 1);
}

/* MatrixDiagV2 and V3. */
static int matrix_diag_v2_shape(tfs_shape_ctx *c) {
  const tfs_shape *in = &c->in_shapes[0];
  if (tfs_sc_with_rank_at_least(c, 0, 1) || with_rank_at_most(c, 1, 1) ||
      tfs_sc_with_rank(c, 2, 0) || tfs_sc_with_rank(c, 3, 0) ||
      tfs_sc_with_rank(c, 4, 0))
    return -1;
  int64_t lo = 0, hi = 0;
  int known = in->rank >= 0 ? read_diag_index(c, 1, &lo, &hi) : 0;
  if (known <= 0) return known < 0 ? -1 : tfs_shape_fn_unknown(c);
  int r = in->rank;
  if (lo < hi) {
    int64_t n = r >= 2 ? in->dims[r - 2] : in->dims[r - 1];
    if (n >= 0 && n != hi - lo + 1)
      return tfs_sc_error(c, "The number of rows of `diagonal` doesn't "
                          "match the number of diagonals implied from "
                          "`d_lower` and `d_upper`.\nnum_diags = %lld, "
                          "d_lower = %lld, d_upper = %lld %d %lld",
                          (long long)n, (long long)lo, (long long)hi, r,
                          (long long)in->dims[r - 1]);
    if (r < 2) return tfs_shape_fn_unknown(c);
  }
  if (lo == hi && r >= TFS_MAX_RANK)
    return tfs_sc_error(c, "MatrixDiag result has more than %d dimensions",
                        TFS_MAX_RANK);
  int64_t rows = -1, cols = -1;
  tfs_sc_const_scalar(c, 2, &rows);
  tfs_sc_const_scalar(c, 3, &cols);
  int64_t len = in->dims[r - 1];
  if (len >= 0) {
    int64_t min_rows = len - (hi < 0 ? hi : 0);
    int64_t min_cols = len + (lo > 0 ? lo : 0);
    if (rows == -1 && cols == -1) {
      rows = cols = min_rows > min_cols ? min_rows : min_cols;
    } else if (rows == -1) {
      rows = min_rows;
    } else if (cols == -1) {
      cols = min_cols;
    } else if (rows != min_rows && cols != min_cols) {
      return tfs_sc_error(c, "num_rows and num_cols are not consistent with "
                          "lower_diag_index, upper_diag_index, and the "
                          "length of the given diagonals.\nnum_rows = %lld "
                          "!= min_num_rows = %lld, num_cols = %lld != "
                          "min_num_cols = %lld", (long long)rows,
                          (long long)min_rows, (long long)cols,
                          (long long)min_cols);
    }
  }
  tfs_shape out = *in;
  if (lo == hi) {
    out.dims[r - 1] = rows < 0 ? -1 : rows;
    out.dims[out.rank++] = cols < 0 ? -1 : cols;
  } else {
    out.dims[r - 2] = rows < 0 ? -1 : rows;
    out.dims[r - 1] = cols < 0 ? -1 : cols;
  }
  c->out_shapes[0] = out;
  return 0;
}

/* MatrixDiagPartV2 and V3. */
static int matrix_diag_part_v2_shape(tfs_shape_ctx *c) {
  const tfs_shape *in = &c->in_shapes[0];
  if (tfs_sc_with_rank_at_least(c, 0, 2) || with_rank_at_most(c, 1, 1) ||
      tfs_sc_with_rank(c, 2, 0))
    return -1;
  int64_t lo = 0, hi = 0;
  int known = in->rank >= 0 ? read_diag_index(c, 1, &lo, &hi) : 0;
  if (known <= 0) return known < 0 ? -1 : tfs_shape_fn_unknown(c);
  int r = in->rank;
  int64_t rows = in->dims[r - 2], cols = in->dims[r - 1], len = -1;
  if (check_diag_bounds(c, rows, cols, lo, hi)) return -1;
  if (rows >= 0 && cols >= 0) {
    int64_t a = rows + (hi < 0 ? hi : 0), b = cols - (lo > 0 ? lo : 0);
    len = a < b ? a : b;
  }
  tfs_shape out = *in;
  out.rank = r - 2;
  if (lo < hi) out.dims[out.rank++] = hi - lo + 1;
  out.dims[out.rank++] = len;
  c->out_shapes[0] = out;
  return 0;
}

/* MatrixSetDiagV2 and V3. */
static int matrix_set_diag_v2_shape(tfs_shape_ctx *c) {
  const tfs_shape *in = &c->in_shapes[0];
  if (tfs_sc_with_rank_at_least(c, 0, 2) ||
      tfs_sc_with_rank_at_least(c, 1, 1) || with_rank_at_most(c, 2, 1))
    return -1;
  int64_t lo = 0, hi = 0;
  int known = read_diag_index(c, 2, &lo, &hi);
  if (known < 0) return -1;
  if (in->rank >= 0) {
    int r = in->rank;
    if (known) {
      if (tfs_sc_with_rank(c, 1, lo == hi ? r - 1 : r)) return -1;
    } else if (tfs_sc_with_rank_at_least(c, 1, r - 1) ||
               with_rank_at_most(c, 1, r)) {
      return -1;
    }
    if (check_diag_bounds(c, in->dims[r - 2], in->dims[r - 1], lo, hi))
      return -1;
  }
  return set_diag_output(c, lo == hi ? 1 : 2);
}

static int determinant_shape(tfs_shape_ctx *c) {
  const tfs_shape *in = &c->in_shapes[0];
  if (tfs_sc_with_rank_at_least(c, 0, 2)) return -1;
  if (in->rank < 0) return tfs_shape_fn_unknown(c);
  int64_t unused;
  if (tfs_sc_merge_dim(c, in->dims[in->rank - 1], in->dims[in->rank - 2],
                       &unused))
    return -1;
  tfs_shape out = *in;
  out.rank = in->rank - 2;
  c->out_shapes[0] = out;
  return 0;
}

static int sparse_fill_empty_rows_shape(tfs_shape_ctx *c) {
  if (tfs_sc_with_rank(c, 0, 2) || tfs_sc_with_rank(c, 1, 1) ||
      tfs_sc_with_rank(c, 2, 1) || tfs_sc_with_rank(c, 3, 0))
    return -1;
  const tfs_shape *ix = &c->in_shapes[0], *v = &c->in_shapes[1],
                  *ds = &c->in_shapes[2];
  int64_t n = ix->rank == 2 ? ix->dims[0] : -1, rank = -1, unused;
  if (v->rank == 1 && tfs_sc_merge_dim(c, n, v->dims[0], &n)) return -1;
  if (ds->rank == 1) rank = ds->dims[0];
  if (ix->rank == 2 &&
      tfs_sc_merge_dim(c, ix->dims[1], rank, &unused))
    return -1;
  if (rank == 0) return tfs_sc_error(c, "dense_shape must not be empty");
  int64_t rows = -1;
  const tfs_tensor *s = tfs_sc_const(c, 2);
  if (s && s->shape.rank == 1 && s->nelems > 0) {
    rows = tfs_tensor__get_as_int64(s, 0);
    if (rows < 0) rows = -1;
  }
  tfs_shape_2d(&c->out_shapes[0], -1, rank);
  tfs_shape_1d(&c->out_shapes[1], -1);
  tfs_shape_1d(&c->out_shapes[2], rows);
  tfs_shape_1d(&c->out_shapes[3], n);
  return 0;
}

static int sparse_reshape_shape(tfs_shape_ctx *c) {
  if (tfs_sc_with_rank(c, 0, 2) || tfs_sc_with_rank(c, 1, 1) ||
      tfs_sc_with_rank(c, 2, 1))
    return -1;
  const tfs_shape *ix = &c->in_shapes[0], *ns = &c->in_shapes[2];
  tfs_shape_2d(&c->out_shapes[0], ix->rank == 2 ? ix->dims[0] : -1,
               ns->rank == 1 ? ns->dims[0] : -1);
  tfs_shape_1d(&c->out_shapes[1], ns->rank == 1 ? ns->dims[0] : -1);
  return 0;
}

/* ---- the table ----------------------------------------------------------- */

#define ALIGN                                                             \
  "align: {'LEFT_RIGHT', 'RIGHT_LEFT', 'LEFT_LEFT', 'RIGHT_RIGHT'} = "    \
  "'RIGHT_LEFT'"

const tfs_op_spec tfs_ops_matrix[] = {
    {"MatrixDiag", "diagonal: T", "output: T", "T: type", matrix_diag_shape,
     0},
    {"MatrixDiagV2",
     "diagonal: T; k: int32; num_rows: int32; num_cols: int32; "
     "padding_value: T",
     "output: T", "T: type", matrix_diag_v2_shape, 0},
    {"MatrixDiagV3",
     "diagonal: T; k: int32; num_rows: int32; num_cols: int32; "
     "padding_value: T",
     "output: T", "T: type; " ALIGN, matrix_diag_v2_shape, 0},
    {"MatrixDiagPart", "input: T", "diagonal: T", "T: type",
     matrix_diag_part_shape, 0},
    {"MatrixDiagPartV2", "input: T; k: int32; padding_value: T",
     "diagonal: T", "T: type", matrix_diag_part_v2_shape, 0},
    {"MatrixDiagPartV3", "input: T; k: int32; padding_value: T",
     "diagonal: T", "T: type; " ALIGN, matrix_diag_part_v2_shape, 0},
    {"MatrixSetDiag", "input: T; diagonal: T", "output: T", "T: type",
     matrix_set_diag_shape, 0},
    {"MatrixSetDiagV2", "input: T; diagonal: T; k: int32", "output: T",
     "T: type", matrix_set_diag_v2_shape, 0},
    {"MatrixSetDiagV3", "input: T; diagonal: T; k: int32", "output: T",
     "T: type; " ALIGN, matrix_set_diag_v2_shape, 0},
    {"MatrixDeterminant", "input: T", "output: T",
     "T: {half, float, double, complex64, complex128}", determinant_shape,
     0},
    {"SparseFillEmptyRows",
     "indices: int64; values: T; dense_shape: int64; default_value: T",
     "output_indices: int64; output_values: T; empty_row_indicator: bool; "
     "reverse_index_map: int64",
     "T: type", sparse_fill_empty_rows_shape, 0},
    {"SparseReshape",
     "input_indices: int64; input_shape: int64; new_shape: int64",
     "output_indices: int64; output_shape: int64", "",
     sparse_reshape_shape, 0},
    {NULL, NULL, NULL, NULL, NULL, 0},
};
