/*
 * ops/ops_ragged.c - ragged-tensor ops: RaggedRange, RaggedTensorToTensor,
 * RaggedTensorToSparse, RaggedGather, RaggedTensorToVariant and
 * RaggedTensorFromVariant.  A ragged tensor travels as its
 * nested row partitions (row splits, value row ids, the first dimension's
 * size) and its flat values.  Signatures are TensorFlow 2.21's; shape
 * functions follow its shape inference and its wording.
 */
#include <stdio.h>
#include <string.h>

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

static int64_t int_attr(tfs_shape_ctx *c, const char *name) {
  int64_t v = 0;
  tfs_attrs_get_int(c->attrs, name, &v);
  return v;
}

/* ---- RaggedRange --------------------------------------------------------- */

static int ragged_range_shape(tfs_shape_ctx *c) {
  for (int i = 0; i < 3; i++)
    if (with_rank_at_most(c, i, 1)) return -1;
  int64_t dim = -1;
  int scalars = 0;
  for (int i = 0; i < 3; i++) {
    const tfs_shape *s = &c->in_shapes[i];
    if (s->rank == 1 && tfs_sc_merge_dim(c, s->dims[0], dim, &dim))
      return -1;
    scalars += s->rank == 0;
  }
  int64_t n = -1;
  if (dim >= 0)
    n = dim + 1;
  else if (scalars == 3)
    n = 2;
  tfs_shape_1d(&c->out_shapes[0], n);
  tfs_shape_1d(&c->out_shapes[1], -1);
  return 0;
}

/* ---- RaggedTensorToTensor ------------------------------------------------ */

/* "[2,?,3]" of a partial shape, TensorShape::DebugString's form ("<unknown>"
 * for an unknown rank). */
static const char *debug_shape(const tfs_shape *s, char *buf, size_t cap) {
  if (s->rank < 0) {
    snprintf(buf, cap, "<unknown>");
    return buf;
  }
  size_t off = 0;
  off += (size_t)snprintf(buf + off, cap - off, "[");
  for (int i = 0; i < s->rank && off + 24 < cap; i++) {
    if (s->dims[i] < 0)
      off += (size_t)snprintf(buf + off, cap - off, i ? ",?" : "?");
    else
      off += (size_t)snprintf(buf + off, cap - off, i ? ",%lld" : "%lld",
                              (long long)s->dims[i]);
  }
  snprintf(buf + off, cap - off, "]");
  return buf;
}

/* The partition types of the node, checked as TensorFlow's shape function
 * checks them.  Returns the ragged rank, or -1 after an error. */
static int to_tensor_types(tfs_shape_ctx *c, int nparts) {
  const tfs_attr_value *v = tfs_attrs_find(c->attrs, "row_partition_types");
  int n = v && v->is_list ? v->u.list.n : 0;
  const tfs_bytes *t = n ? v->u.list.v : NULL;
  static const char *const known[] = {"FIRST_DIM_SIZE", "VALUE_ROWIDS",
                                      "ROW_SPLITS", "ROW_LENGTHS",
                                      "ROW_LIMITS", "ROW_STARTS"};
  for (int i = 0; i < n; i++) {
    int k = 0;
    while (k < 6 && strcmp(t[i].ptr, known[k]) != 0) k++;
    if (k == 6)
      return tfs_sc_error(c, "Unknown string for partition info type: %s",
                          t[i].ptr);
    if (k >= 3)
      return tfs_sc_error(c, "Unsupported partition type: %s", t[i].ptr);
  }
  if (n == 0)
    return tfs_sc_error(c, "Partition info types should not be empty");
  for (int i = 1; i < n; i++)
    if (strcmp(t[i].ptr, "FIRST_DIM_SIZE") == 0)
      return tfs_sc_error(c, "FIRST_DIM_SIZE must be first");
  int first_size = strcmp(t[0].ptr, "FIRST_DIM_SIZE") == 0;
  if (first_size && (n < 2 || strcmp(t[1].ptr, "VALUE_ROWIDS") != 0))
    return tfs_sc_error(c, "FIRST_DIM_SIZE must be followed by "
                        "VALUE_ROWIDS");
  if (strcmp(t[0].ptr, "VALUE_ROWIDS") == 0)
    return tfs_sc_error(c, "VALUE_ROWIDS cannot be first");
  if (nparts != n)
    return tfs_sc_error(c, "Number of row partition tensors (%d) does not "
                        "equal the number of row partition types(%d).",
                        nparts, n);
  for (int i = 0; i < n; i++) {
    int r = c->in_shapes[3 + i].rank;
    if (r < 0) continue;
    if (i == 0 && first_size && r != 0)
      return tfs_sc_error(c, "FIRST_DIM_SIZE must be a scalar.");
    if ((i > 0 || !first_size) && r != 1)
      return tfs_sc_error(c, "Row partition must be a vector.");
  }
  return first_size ? n - 1 : n;
}

static int to_tensor_shape(tfs_shape_ctx *c) {
  tfs_shape shape;
  if (c->in_shapes[0].rank == 0)
    tfs_shape_unknown(&shape);
  else if (tfs_sc_input_as_shape(c, 0, &shape))
    return -1;
  int ragged = to_tensor_types(c, c->ninputs - 3);
  if (ragged < 0) return -1;
  const tfs_shape *vs = &c->in_shapes[1], *ds = &c->in_shapes[2];
  char a[TFS_SHAPE_STRLEN], b[TFS_SHAPE_STRLEN];
  if (vs->rank >= 0 && ds->rank >= 0) {
    if (ds->rank >= vs->rank)
      return tfs_sc_error(c, "default_value.shape=%s and "
                          "rt_input.flat_values.shape=%s are incompatible: "
                          "default_value.rank = %d  must be less than "
                          "rt_input.flat_values.rank = %d",
                          debug_shape(ds, a, sizeof a),
                          debug_shape(vs, b, sizeof b), ds->rank, vs->rank);
    for (int i = 0; i < ds->rank && i < vs->rank - 1; i++) {
      int64_t d = ds->dims[i], v = vs->dims[i + 1];
      if (d >= 0 && v >= 0 && d != 1 && d != v)
        return tfs_sc_error(c, "default_value.shape=%s and "
                            "rt_input.flat_values.shape=%s are incompatible: "
                            "default_value.shape[%d] = %lld but "
                            "rt_input.flat_values.shape[%d] = %lld",
                            debug_shape(ds, a, sizeof a),
                            debug_shape(vs, b, sizeof b), i - ds->rank,
                            (long long)d, i - ds->rank, (long long)v);
    }
  }
  if (vs->rank < 0 && shape.rank < 0) return tfs_shape_fn_unknown(c);
  tfs_shape out = shape;
  if (shape.rank < 0) {
    if ((int64_t)ragged + vs->rank > TFS_MAX_RANK)
      return tfs_sc_error(c, "Shape of rank %d is too large",
                          ragged + vs->rank);
    out.rank = ragged + vs->rank;
    for (int i = 0; i < out.rank; i++) out.dims[i] = -1;
  }
  if (vs->rank >= 0) {
    if (ragged + vs->rank != out.rank)
      return tfs_sc_error(c, "rt_input.shape and shape=%s are incompatible: "
                          "rt_input.rank = %d but shape.rank = %d",
                          debug_shape(&shape, a, sizeof a),
                          ragged + vs->rank, out.rank);
    for (int i = 1; i < vs->rank; i++) {
      int64_t v = vs->dims[i], *o = &out.dims[out.rank - vs->rank + i];
      if (v < 0) continue;
      if (*o >= 0 && *o != v)
        return tfs_sc_error(c, "rt_input.shape and shape=%s are "
                            "incompatible: rt_input.shape[%d] = %lld but "
                            "shape[%d] = %lld",
                            debug_shape(&shape, a, sizeof a), i + ragged,
                            (long long)v, i + ragged, (long long)*o);
      *o = v;
    }
  }
  c->out_shapes[0] = out;
  return 0;
}

/* ---- RaggedTensorToSparse ------------------------------------------------ */

static int to_sparse_shape(tfs_shape_ctx *c) {
  int64_t n = int_attr(c, "RAGGED_RANK");
  if (n < 1) return tfs_sc_error(c, "Requires RAGGED_RANK>0");
  if (tfs_sc_with_rank_at_least(c, (int)n, 1)) return -1;
  for (int64_t i = 0; i < n; i++)
    if (tfs_sc_with_rank(c, (int)i, 1)) return -1;
  const tfs_shape *v = &c->in_shapes[n];
  int64_t dims = v->rank >= 0 ? v->rank + n : -1;
  int64_t nv = tfs_shape_num_elements(v);
  tfs_shape_2d(&c->out_shapes[0], nv, dims);
  tfs_shape_1d(&c->out_shapes[1], nv);
  tfs_shape_1d(&c->out_shapes[2], dims);
  return 0;
}

/* ---- RaggedGather -------------------------------------------------------- */

static int gather_shape(tfs_shape_ctx *c) {
  int64_t pr = int_attr(c, "PARAMS_RAGGED_RANK");
  int64_t orr = int_attr(c, "OUTPUT_RAGGED_RANK");
  if (tfs_sc_with_rank(c, (int)pr + 1, orr - pr + 1)) return -1;
  for (int64_t i = 0; i < pr; i++)
    if (tfs_sc_with_rank(c, (int)i, 1)) return -1;
  if (tfs_sc_with_rank_at_least(c, (int)pr, 1)) return -1;
  for (int64_t i = 0; i < orr; i++) tfs_shape_1d(&c->out_shapes[i], -1);
  const tfs_shape *v = &c->in_shapes[pr];
  tfs_shape out;
  tfs_shape_unknown(&out);
  if (v->rank >= 1) {
    out = *v;
    out.dims[0] = -1;
  }
  c->out_shapes[orr] = out;
  return 0;
}

/* ---- RaggedTensorToVariant, RaggedTensorFromVariant ---------------------- */

static int to_variant_shape(tfs_shape_ctx *c) {
  int64_t n = int_attr(c, "RAGGED_RANK");
  int batched = 0;
  tfs_attrs_get_bool(c->attrs, "batched_input", &batched);
  if (n > 0 && tfs_sc_with_rank_at_least(c, (int)n, 1)) return -1;
  for (int64_t i = 0; i < n; i++)
    if (tfs_sc_with_rank(c, (int)i, 1)) return -1;
  if (!batched) return tfs_shape_fn_scalar(c);
  const tfs_shape *first = &c->in_shapes[0];
  int64_t d = first->rank >= 1 ? first->dims[0] : -1;
  if (n > 0 && d >= 0) d -= 1;
  tfs_shape_1d(&c->out_shapes[0], d);
  return 0;
}

static int from_variant_shape(tfs_shape_ctx *c) {
  int64_t in = int_attr(c, "input_ragged_rank");
  int64_t out = int_attr(c, "output_ragged_rank");
  if (c->in_shapes[0].rank >= 0 && in >= 0 &&
      tfs_sc_with_rank(c, 0, out - in))
    return -1;
  for (int64_t i = 0; i < out; i++) tfs_shape_1d(&c->out_shapes[i], -1);
  tfs_shape_unknown(&c->out_shapes[out]);
  return 0;
}

/* ---- the table ----------------------------------------------------------- */

const tfs_op_spec tfs_ops_ragged[] = {
    {"RaggedRange", "starts: T; limits: T; deltas: T",
     "rt_nested_splits: Tsplits; rt_dense_values: T",
     "T: {bfloat16, float, double, int32, int64} = int32; "
     "Tsplits: {int32, int64} = int64",
     ragged_range_shape, 0},
    {"RaggedTensorToTensor",
     "shape: Tshape; values: T; default_value: T; "
     "row_partition_tensors: num_row_partition_tensors * Tindex",
     "result: T",
     "T: type; Tindex: {int64, int32}; Tshape: {int64, int32}; "
     "num_row_partition_tensors: int; row_partition_types: list(string)",
     to_tensor_shape, 0},
    {"RaggedTensorToSparse",
     "rt_nested_splits: RAGGED_RANK * Tsplits; rt_dense_values: T",
     "sparse_indices: int64; sparse_values: T; sparse_dense_shape: int64",
     "RAGGED_RANK: int >= 1; T: type; Tsplits: {int32, int64} = int64",
     to_sparse_shape, 0},
    {"RaggedGather",
     "params_nested_splits: PARAMS_RAGGED_RANK * Tsplits; "
     "params_dense_values: Tvalues; indices: Tindices",
     "output_nested_splits: OUTPUT_RAGGED_RANK * Tsplits; "
     "output_dense_values: Tvalues",
     "Tvalues: type; Tindices: {int32, int64}; "
     "Tsplits: {int32, int64} = int64; PARAMS_RAGGED_RANK: int >= 1; "
     "OUTPUT_RAGGED_RANK: int >= 0",
     gather_shape, 0},
    {"RaggedTensorToVariant",
     "rt_nested_splits: RAGGED_RANK * Tsplits; rt_dense_values: Tvalues",
     "encoded_ragged: variant",
     "RAGGED_RANK: int >= 0; Tvalues: type; "
     "Tsplits: {int32, int64} = int64; batched_input: bool",
     to_variant_shape, 0},
    {"RaggedTensorFromVariant", "encoded_ragged: variant",
     "output_nested_splits: output_ragged_rank * Tsplits; "
     "output_dense_values: Tvalues",
     "input_ragged_rank: int >= -1; output_ragged_rank: int >= 0; "
     "Tvalues: type; Tsplits: {int32, int64} = int64",
     from_variant_shape, 0},
    {NULL, NULL, NULL, NULL, NULL, 0},
};
