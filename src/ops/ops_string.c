/*
 * ops/ops_string.c - string ops: splitting (StringSplit, StringSplitV2),
 * joining (StringJoin, ReduceJoin), StringLength, Substr, case
 * (StringUpper, StringLower), StringStrip and the regex ops
 * (RegexReplace, RegexFullMatch and their Static forms).  Signatures are
 * TensorFlow 2.21's; shape functions follow its shape inference.
 */
#include "core/status.h"
#include "ops/array_shape_fns.h"
#include "ops/op_tables.h"
#include "ops/shape_ctx.h"

/* input: a vector; the separator: a scalar; outputs indices [?,2],
 * values [?], shape [2]. */
static int split_shape(tfs_shape_ctx *c) {
  if (tfs_sc_with_rank(c, 0, 1) || tfs_sc_with_rank(c, 1, 0)) return -1;
  tfs_shape_2d(&c->out_shapes[0], -1, 2);
  tfs_shape_1d(&c->out_shapes[1], -1);
  tfs_shape_1d(&c->out_shapes[2], 2);
  return 0;
}

/* A scalar when every input is one, else the merge of the inputs of
 * known non-zero rank (an input of unknown rank may be a scalar). */
static int string_join_shape(tfs_shape_ctx *c) {
  int all_scalar = 1;
  for (int i = 0; i < c->ninputs; i++)
    if (c->in_shapes[i].rank != 0) all_scalar = 0;
  if (all_scalar) return tfs_shape_fn_scalar(c);
  tfs_shape out;
  tfs_shape_unknown(&out);
  for (int i = 0; i < c->ninputs; i++)
    if (c->in_shapes[i].rank > 0 &&
        tfs_sc_merge_shapes(c, &out, &c->in_shapes[i], &out))
      return -1;
  c->out_shapes[0] = out;
  return 0;
}

/* pos and len of the same shape; the output broadcasts input with pos. */
static int substr_shape(tfs_shape_ctx *c) {
  const tfs_shape *pos = &c->in_shapes[1], *len = &c->in_shapes[2];
  if (len->rank >= 0 && tfs_sc_with_rank(c, 1, len->rank)) return -1;
  for (int i = 0; i < pos->rank && len->rank >= 0; i++)
    if (pos->dims[i] != len->dims[i]) {
      char a[TFS_SHAPE_STRLEN], b[TFS_SHAPE_STRLEN];
      return tfs_sc_error(c, "pos and len shapes must match: %s vs. %s",
                          tfs_shape_str(pos, a, sizeof a),
                          tfs_shape_str(len, b, sizeof b));
    }
  return tfs_shape_fn_broadcast(c);
}

/* The pattern (and the rewrite) scalars; the output is the input's. */
static int regex_shape(tfs_shape_ctx *c) {
  for (int i = 1; i < c->ninputs; i++)
    if (tfs_sc_with_rank(c, i, 0)) return -1;
  c->out_shapes[0] = c->in_shapes[0];
  return 0;
}

#define UNIT "unit: {'BYTE', 'UTF8_CHAR'} = 'BYTE'"
#define SPLIT_OUT "indices: int64; values: string; shape: int64"

const tfs_op_spec tfs_ops_string[] = {
    {"StringSplit", "input: string; delimiter: string", SPLIT_OUT,
     "skip_empty: bool = true", split_shape, 0},
    {"StringSplitV2", "input: string; sep: string", SPLIT_OUT,
     "maxsplit: int = -1", split_shape, 0},
    {"StringJoin", "inputs: N * string", "output: string",
     "N: int >= 0; separator: string = ''", string_join_shape, 0},
    {"ReduceJoin", "inputs: string; reduction_indices: int32",
     "output: string", "keep_dims: bool = false; separator: string = ''",
     tfs_shape_fn_reduction, 0},
    {"StringLength", "input: string", "output: int32", UNIT,
     tfs_shape_fn_unchanged, 0},
    {"Substr", "input: string; pos: T; len: T", "output: string",
     "T: {int32, int64}; " UNIT, substr_shape, 0},
    {"StringUpper", "input: string", "output: string",
     "encoding: string = ''", tfs_shape_fn_unchanged, 0},
    {"StringLower", "input: string", "output: string",
     "encoding: string = ''", tfs_shape_fn_unchanged, 0},
    {"StringStrip", "input: string", "output: string", "",
     tfs_shape_fn_unchanged, 0},
    {"RegexReplace", "input: string; pattern: string; rewrite: string",
     "output: string", "replace_global: bool = true", regex_shape, 0},
    {"StaticRegexReplace", "input: string", "output: string",
     "pattern: string; rewrite: string; replace_global: bool = true",
     tfs_shape_fn_unchanged, 0},
    {"RegexFullMatch", "input: string; pattern: string", "output: bool", "",
     regex_shape, 0},
    {"StaticRegexFullMatch", "input: string", "output: bool",
     "pattern: string", tfs_shape_fn_unchanged, 0},
    {NULL, NULL, NULL, NULL, NULL, 0},
};
