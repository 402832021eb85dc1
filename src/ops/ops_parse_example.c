/*
 * ops/ops_parse_example.c - the tf.Example parsing ops: ParseExample
 * (tf.compat.v1.io.parse_example's keys as inputs), ParseExampleV2
 * (tf.io.parse_example: keys as vectors, ragged features, a scalar or a
 * vector of protos) and ParseSingleExample.  Signatures are TensorFlow
 * 2.21's; the shape functions check the attrs as its ParseExampleAttrs
 * does, with its messages.
 */
#include "core/status.h"
#include "ops/op_tables.h"
#include "ops/shape_ctx.h"

static int list_len(tfs_shape_ctx *c, const char *name) {
  const tfs_attr_value *v = tfs_attrs_find(c->attrs, name);
  return v && v->is_list ? v->u.list.n : 0;
}

/* Dense shapes: every one of known rank and inner dims. */
static int check_dense_shapes(tfs_shape_ctx *c) {
  const tfs_attr_value *v = tfs_attrs_find(c->attrs, "dense_shapes");
  int n = v && v->is_list ? v->u.list.n : 0;
  const tfs_shape *s = n ? v->u.list.v : NULL;
  for (int i = 0; i < n; i++) {
    int ok = s[i].rank >= 0;
    for (int d = 1; ok && d < s[i].rank; d++) ok = s[i].dims[d] >= 0;
    if (!ok) {
      char b[TFS_SHAPE_STRLEN];
      return tfs_sc_error(c, "dense_shapes[%d] has unknown rank or unknown "
                          "inner dimensions: %s", i,
                          tfs_shape_str(&s[i], b, sizeof b));
    }
  }
  return 0;
}

/* ParseExampleAttrs' count checks (num_sparse and num_dense given). */
static int check_counts(tfs_shape_ctx *c, int64_t ns, int64_t nd, int v2) {
  if (ns != list_len(c, "sparse_types"))
    return tfs_sc_error(c, "len(sparse_keys) != len(sparse_types)");
  if (nd != list_len(c, "Tdense"))
    return tfs_sc_error(c, "len(dense_keys) != len(dense_types)");
  if (nd != list_len(c, "dense_shapes"))
    return tfs_sc_error(c, "len(dense_keys) != len(dense_shapes)");
  if (v2 && list_len(c, "ragged_value_types") !=
                list_len(c, "ragged_split_types"))
    return tfs_sc_error(c, "len(ragged_keys) != len(ragged_split_types)");
  return check_dense_shapes(c);
}

/* Sets the outputs from `o`: sparse (rank = the input's + 1), dense (the
 * input's shape then each dense shape), ragged when nr >= 0. */
static int set_outputs(tfs_shape_ctx *c, const tfs_shape *in, int64_t ns,
                       int64_t nd, int nr) {
  int o = 0;
  int64_t rank = in->rank >= 0 ? in->rank + 1 : -1;
  for (int64_t i = 0; i < ns; i++) tfs_shape_2d(&c->out_shapes[o++], -1, rank);
  for (int64_t i = 0; i < ns; i++) tfs_shape_1d(&c->out_shapes[o++], -1);
  for (int64_t i = 0; i < ns; i++) tfs_shape_1d(&c->out_shapes[o++], rank);
  const tfs_attr_value *v = tfs_attrs_find(c->attrs, "dense_shapes");
  const tfs_shape *ds = v && v->is_list ? v->u.list.v : NULL;
  for (int64_t i = 0; i < nd; i++, o++) {
    if (in->rank < 0) continue; /* left unknown */
    if (in->rank + ds[i].rank > TFS_MAX_RANK)
      return tfs_sc_error(c, "Shape must have rank at most %d",
                          TFS_MAX_RANK);
    tfs_shape s = *in;
    for (int d = 0; d < ds[i].rank; d++) s.dims[s.rank++] = ds[i].dims[d];
    c->out_shapes[o] = s;
  }
  if (nr < 0) return 0;
  int64_t splits = in->rank == 1 && in->dims[0] >= 0 ? in->dims[0] + 1 : -1;
  for (int i = 0; i < nr; i++) tfs_shape_1d(&c->out_shapes[o++], -1);
  for (int i = 0; i < nr; i++) tfs_shape_1d(&c->out_shapes[o++], splits);
  return 0;
}

static int with_rank_at_most_1(tfs_shape_ctx *c, int i) {
  int k = c->in_shapes[i].rank;
  if (k > 1)
    return tfs_sc_error(c, "Shape must be at most rank 1 but is rank %d", k);
  return 0;
}

static int parse_example_shape(tfs_shape_ctx *c) {
  int64_t ns = 0, nd = 0;
  tfs_attrs_get_int(c->attrs, "Nsparse", &ns);
  tfs_attrs_get_int(c->attrs, "Ndense", &nd);
  if (check_counts(c, ns, nd, 0)) return -1;
  if (tfs_sc_with_rank(c, 0, 1) || tfs_sc_with_rank(c, 1, 1)) return -1;
  return set_outputs(c, &c->in_shapes[0], ns, nd, -1);
}

static int parse_example_v2_shape(tfs_shape_ctx *c) {
  int64_t ns = 0, nd = list_len(c, "Tdense");
  tfs_attrs_get_int(c->attrs, "num_sparse", &ns);
  if (check_counts(c, ns, nd, 1)) return -1;
  if (with_rank_at_most_1(c, 0) || with_rank_at_most_1(c, 1)) return -1;
  return set_outputs(c, &c->in_shapes[0], ns, nd,
                     list_len(c, "ragged_value_types"));
}

static int parse_single_example_shape(tfs_shape_ctx *c) {
  int64_t ns = 0;
  tfs_attrs_get_int(c->attrs, "num_sparse", &ns);
  int nk = list_len(c, "sparse_keys"), nt = list_len(c, "sparse_types");
  if (ns != nk || ns != nt)
    return tfs_sc_error(c, "num_sparse (%lld) must match the size of "
                        "sparse_keys (%d) and sparse_types (%d)",
                        (long long)ns, nk, nt);
  int nd = list_len(c, "dense_keys");
  if (check_counts(c, ns, nd, 0)) return -1;
  if (tfs_sc_with_rank(c, 0, 0)) return -1;
  return set_outputs(c, &c->in_shapes[0], ns, nd, -1);
}

/* ---- the table ----------------------------------------------------------- */

#define FEATURE_TYPES "list({float, int64, string}) >= 0"

const tfs_op_spec tfs_ops_parse_example[] = {
    {"ParseExample",
     "serialized: string; names: string; sparse_keys: Nsparse * string; "
     "dense_keys: Ndense * string; dense_defaults: Tdense",
     "sparse_indices: Nsparse * int64; sparse_values: sparse_types; "
     "sparse_shapes: Nsparse * int64; dense_values: Tdense",
     "Nsparse: int >= 0; Ndense: int >= 0; sparse_types: " FEATURE_TYPES
     "; Tdense: " FEATURE_TYPES "; dense_shapes: list(shape) >= 0",
     parse_example_shape, 0},
    {"ParseExampleV2",
     "serialized: string; names: string; sparse_keys: string; "
     "dense_keys: string; ragged_keys: string; dense_defaults: Tdense",
     "sparse_indices: num_sparse * int64; sparse_values: sparse_types; "
     "sparse_shapes: num_sparse * int64; dense_values: Tdense; "
     "ragged_values: ragged_value_types; "
     "ragged_row_splits: ragged_split_types",
     "Tdense: " FEATURE_TYPES "; num_sparse: int >= 0; "
     "sparse_types: " FEATURE_TYPES "; ragged_value_types: " FEATURE_TYPES
     "; ragged_split_types: list({int32, int64}) >= 0; "
     "dense_shapes: list(shape) >= 0",
     parse_example_v2_shape, 0},
    {"ParseSingleExample", "serialized: string; dense_defaults: Tdense",
     "sparse_indices: num_sparse * int64; sparse_values: sparse_types; "
     "sparse_shapes: num_sparse * int64; dense_values: Tdense",
     "num_sparse: int >= 0; sparse_keys: list(string) >= 0; "
     "dense_keys: list(string) >= 0; sparse_types: " FEATURE_TYPES
     "; Tdense: " FEATURE_TYPES "; dense_shapes: list(shape) >= 0",
     parse_single_example_shape, 0},
    {NULL, NULL, NULL, NULL, NULL, 0},
};
