/*
 * ops/ops_lookup.c - lookup tables (HashTableV2, MutableHashTableV2 and the
 * ops on their handles: find, insert, remove, size, export, import and the
 * initializers) and the string hashing ops that feature columns put in
 * front of them (StringToHashBucket, ...Fast, ...Strong), and Fingerprint.  Signatures are
 * TensorFlow 2.21's; shape functions follow its shape inference and its
 * wording.
 */
#include <string.h>

#include "core/status.h"
#include "core/tensor.h"
#include "ops/array_shape_fns.h"
#include "ops/op_tables.h"
#include "ops/shape_ctx.h"

/* The table handle (input 0) is a scalar. */
static int handle_scalar(tfs_shape_ctx *c) {
  return tfs_sc_with_rank(c, 0, 0);
}

static int handle_only_shape(tfs_shape_ctx *c) {
  return handle_scalar(c);
}

static int size_shape(tfs_shape_ctx *c) {
  if (handle_scalar(c)) return -1;
  tfs_shape_scalar(&c->out_shapes[0]);
  return 0;
}

/* Values are scalars in these tables: the result has the keys' shape. */
static int find_shape(tfs_shape_ctx *c) {
  if (handle_scalar(c)) return -1;
  c->out_shapes[0] = c->in_shapes[1];
  return 0;
}

static int remove_shape(tfs_shape_ctx *c) {
  if (handle_scalar(c)) return -1;
  return tfs_sc_with_rank_at_least(c, 1, 1);
}

static int export_shape(tfs_shape_ctx *c) {
  if (handle_scalar(c)) return -1;
  c->out_shapes[0].rank = -1;
  c->out_shapes[1].rank = -1;
  return 0;
}

/* LookupTableImportV2: keys a vector as long as the values' first dim. */
static int import_shape(tfs_shape_ctx *c) {
  if (handle_scalar(c) || tfs_sc_with_rank(c, 1, 1)) return -1;
  const tfs_shape *k = &c->in_shapes[1], *v = &c->in_shapes[2];
  if (k->rank == 1 && v->rank >= 1) {
    int64_t m;
    return tfs_sc_merge_dim(c, k->dims[0], v->dims[0], &m);
  }
  return 0;
}

/* InitializeTableV2: keys a vector, values of the same shape. */
static int init_shape(tfs_shape_ctx *c) {
  if (handle_scalar(c) || tfs_sc_with_rank(c, 1, 1)) return -1;
  tfs_shape m;
  return tfs_sc_merge_shapes(c, &c->in_shapes[1], &c->in_shapes[2], &m);
}

static int init_text_shape(tfs_shape_ctx *c) {
  if (handle_scalar(c)) return -1;
  return tfs_sc_with_rank(c, 1, 0);
}

/* Fingerprint: [dim 0 of data, 8] when the method is a known constant. */
static int fingerprint_shape(tfs_shape_ctx *c) {
  if (tfs_sc_with_rank_at_least(c, 0, 1) || tfs_sc_with_rank(c, 1, 0))
    return -1;
  int64_t size = -1;
  const tfs_tensor *m = tfs_sc_const(c, 1);
  if (m && m->dtype == TFS_STRING && m->nelems == 1) {
    tfs_tstring *s = tfs_tensor__strings(m);
    size_t n = tfs_tstring_size(s);
    const char *p = tfs_tstring_data(s);
    if (n != 10 || memcmp(p, "farmhash64", 10) != 0)
      return tfs_sc_error(c, "Unsupported method: %.*s",
                          (int)(n > 100 ? 100 : n), p);
    size = 8;
  }
  tfs_shape *o = &c->out_shapes[0];
  o->rank = 2;
  o->dims[0] = c->in_shapes[0].rank > 0 ? c->in_shapes[0].dims[0] : -1;
  o->dims[1] = size;
  return 0;
}

#define TABLE_ATTRS                                                        \
  "container: string = ''; shared_name: string = ''; "                    \
  "use_node_name_sharing: bool = false; key_dtype: type; value_dtype: type"

const tfs_op_spec tfs_ops_lookup[] = {
    {"HashTableV2", "", "table_handle: resource", TABLE_ATTRS,
     tfs_shape_fn_scalar, TFS_OP_STATEFUL},
    {"MutableHashTableV2", "", "table_handle: resource", TABLE_ATTRS,
     tfs_shape_fn_scalar, TFS_OP_STATEFUL},
    {"LookupTableFindV2",
     "table_handle: resource; keys: Tin; default_value: Tout",
     "values: Tout", "Tin: type; Tout: type", find_shape, TFS_OP_STATEFUL},
    {"LookupTableInsertV2", "table_handle: resource; keys: Tin; values: Tout",
     "", "Tin: type; Tout: type", handle_only_shape, TFS_OP_STATEFUL},
    {"LookupTableRemoveV2", "table_handle: resource; keys: Tin", "",
     "Tin: type", remove_shape, TFS_OP_STATEFUL},
    {"LookupTableSizeV2", "table_handle: resource", "size: int64", "",
     size_shape, TFS_OP_STATEFUL},
    {"LookupTableExportV2", "table_handle: resource",
     "keys: Tkeys; values: Tvalues", "Tkeys: type; Tvalues: type",
     export_shape, TFS_OP_STATEFUL},
    {"LookupTableImportV2", "table_handle: resource; keys: Tin; values: Tout",
     "", "Tin: type; Tout: type", import_shape, TFS_OP_STATEFUL},
    {"InitializeTableV2", "table_handle: resource; keys: Tkey; values: Tval",
     "", "Tkey: type; Tval: type", init_shape, TFS_OP_STATEFUL},
    {"InitializeTableFromTextFileV2",
     "table_handle: resource; filename: string", "",
     "key_index: int >= -2; value_index: int >= -2; vocab_size: int >= -1 = "
     "-1; delimiter: string = '\t'; offset: int = 0",
     init_text_shape, TFS_OP_STATEFUL},
    {"StringToHashBucket", "string_tensor: string", "output: int64",
     "num_buckets: int >= 1", tfs_shape_fn_unchanged, 0},
    {"StringToHashBucketFast", "input: string", "output: int64",
     "num_buckets: int >= 1", tfs_shape_fn_unchanged, 0},
    {"StringToHashBucketStrong", "input: string", "output: int64",
     "num_buckets: int >= 1; key: list(int)", tfs_shape_fn_unchanged, 0},
    {"Fingerprint", "data: T; method: string", "fingerprint: uint8",
     "T: type", fingerprint_shape, 0},
    {NULL, NULL, NULL, NULL, NULL, 0},
};
