/*
 * ops/ops_io.c - the V2 checkpoint ops: SaveV2, RestoreV2,
 * MergeV2Checkpoints, ShardedFilename and ShardedFilespec.  Signatures
 * are TensorFlow 2.21's; shape functions follow its io_ops.cc, RestoreV2's
 * output shapes coming from constant shape_and_slices specs.
 */
#include "core/tensor.h"
#include "core/tstring.h"
#include "io/tensor_bundle.h"
#include "ops/op_tables.h"
#include "ops/shape_ctx.h"

/* Input i is a vector of `n` elements (TensorFlow's WithValue). */
static int with_length(tfs_shape_ctx *c, int i, int64_t n) {
  if (tfs_sc_with_rank(c, i, 1)) return -1;
  int64_t d = c->in_shapes[i].rank == 1 ? c->in_shapes[i].dims[0] : -1;
  if (d >= 0 && d != n)
    return tfs_sc_error(c, "Dimension must be %lld but is %lld",
                        (long long)n, (long long)d);
  return 0;
}

static int save_v2_shape(tfs_shape_ctx *c) {
  if (tfs_sc_with_rank(c, 0, 0)) return -1;
  for (int i = 1; i <= 2; i++)
    if (with_length(c, i, c->ninputs - 3)) return -1;
  return 0;
}

static int restore_v2_shape(tfs_shape_ctx *c) {
  if (tfs_sc_with_rank(c, 0, 0) || tfs_sc_with_rank(c, 1, 1) ||
      tfs_sc_with_rank(c, 2, 1))
    return -1;
  const tfs_shape *n = &c->in_shapes[1], *s2 = &c->in_shapes[2];
  int64_t unused;
  if (tfs_sc_merge_dim(c, n->rank == 1 ? n->dims[0] : -1,
                       s2->rank == 1 ? s2->dims[0] : -1, &unused))
    return -1;
  const tfs_tensor *specs = tfs_sc_const(c, 2);
  if (!specs) return tfs_shape_fn_unknown(c);
  if (specs->dtype != TFS_STRING)
    return tfs_sc_error(c, "Expected an input tensor of type string.");
  if (specs->nelems != c->noutputs)
    return tfs_sc_error(c, "The number of shape_and_slice doesn't match "
                        "tensor outputs.");
  const tfs_tstring *s = tfs_tensor__strings(specs);
  for (int i = 0; i < c->noutputs; i++) {
    size_t len = tfs_tstring_size(&s[i]);
    if (len == 0) continue; /* unknown: the checkpoint decides */
    tfs_slice_spec spec;
    tfs_status *st = tfs_status_new();
    int rc = tfs_slice_spec_parse(tfs_tstring_data(&s[i]), len, &spec, st);
    if (rc) tfs_sc_error(c, "%s", tfs_status_message(st));
    tfs_status_free(st);
    if (rc) return -1;
    c->out_shapes[i].rank = spec.rank;
    for (int d = 0; d < spec.rank; d++)
      c->out_shapes[i].dims[d] = spec.slice_dims[d];
  }
  return 0;
}

static int merge_shape(tfs_shape_ctx *c) {
  return tfs_sc_with_rank(c, 0, 1) || tfs_sc_with_rank(c, 1, 0) ? -1 : 0;
}

const tfs_op_spec tfs_ops_io[] = {
    {"SaveV2",
     "prefix: string; tensor_names: string; shape_and_slices: string; "
     "tensors: dtypes",
     "", "dtypes: list(type) >= 1", save_v2_shape,
     TFS_OP_STATEFUL | TFS_OP_NO_FOLD},
    {"RestoreV2", "prefix: string; tensor_names: string; "
     "shape_and_slices: string",
     "tensors: dtypes", "dtypes: list(type) >= 1", restore_v2_shape,
     TFS_OP_STATEFUL | TFS_OP_NO_FOLD},
    {"MergeV2Checkpoints",
     "checkpoint_prefixes: string; destination_prefix: string", "",
     "delete_old_dirs: bool = true; allow_missing_files: bool = false",
     merge_shape, TFS_OP_STATEFUL | TFS_OP_NO_FOLD},
    {"ShardedFilename", "basename: string; shard: int32; num_shards: int32",
     "filename: string", "", tfs_shape_fn_scalar, 0},
    {"ShardedFilespec", "basename: string; num_shards: int32",
     "filename: string", "", tfs_shape_fn_scalar, 0},
    {NULL, NULL, NULL, NULL, NULL, 0},
};
