/*
 * ops/ops_random.c - the stateful random ops TF1 initializers use:
 * RandomUniform, RandomStandardNormal, TruncatedNormal, RandomUniformInt,
 * with TensorFlow's seed/seed2 attrs.  The output shape is the value of
 * the `shape` input.
 */
#include "ops/op_tables.h"
#include "ops/shape_ctx.h"

#define RANDOM (TFS_OP_STATEFUL | TFS_OP_NO_FOLD)
#define SEEDS "seed: int = 0; seed2: int = 0; "

static int random_shape(tfs_shape_ctx *c) {
  if (tfs_sc_with_rank(c, 0, 1)) return -1;
  tfs_shape s;
  if (tfs_sc_input_as_shape(c, 0, &s)) return -1;
  c->out_shapes[0] = s;
  return 0;
}

static int scalar_bound(tfs_shape_ctx *c, int i, const char *what) {
  const tfs_shape *s = &c->in_shapes[i];
  if (s->rank > 0) {
    char b[TFS_SHAPE_STRLEN];
    return tfs_sc_error(c, "%s must be a scalar; got a tensor of shape %s",
                        what, tfs_shape_str(s, b, sizeof b));
  }
  return 0;
}

static int random_int_shape(tfs_shape_ctx *c) {
  if (scalar_bound(c, 1, "minval") || scalar_bound(c, 2, "maxval"))
    return -1;
  return random_shape(c);
}

const tfs_op_spec tfs_ops_random[] = {
    {"RandomUniform", "shape: T", "output: dtype",
     SEEDS "dtype: {half, bfloat16, float, double}; T: {int32, int64}",
     random_shape, RANDOM},
    {"RandomStandardNormal", "shape: T", "output: dtype",
     SEEDS "dtype: {half, bfloat16, float, double}; T: {int32, int64}",
     random_shape, RANDOM},
    {"TruncatedNormal", "shape: T", "output: dtype",
     SEEDS "dtype: {half, bfloat16, float, double}; T: {int32, int64}",
     random_shape, RANDOM},
    {"RandomUniformInt", "shape: T; minval: Tout; maxval: Tout",
     "output: Tout", SEEDS "Tout: {int32, int64}; T: {int32, int64}",
     random_int_shape, RANDOM},
    {NULL, NULL, NULL, NULL, NULL, 0},
};
