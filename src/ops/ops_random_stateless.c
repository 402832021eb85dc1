/*
 * ops/ops_random_stateless.c - the stateless random ops: the V1 family
 * (StatelessRandomUniform, ..., seeded by a [2] seed input) and the V2
 * family (key, counter and alg inputs), with StatelessRandomGetKeyCounter,
 * StatelessRandomGetAlg and StatelessRandomGetKeyCounterAlg that turn a
 * seed into those inputs.  Their outputs depend only on their inputs.
 */
#include "ops/op_tables.h"
#include "ops/shape_ctx.h"

#define FLOATS "{half, bfloat16, float, double}"

/* Input i has rank 1 and, when known, `n` elements. */
static int vector_of(tfs_shape_ctx *c, int i, int64_t n) {
  if (tfs_sc_with_rank(c, i, 1)) return -1;
  const tfs_shape *s = &c->in_shapes[i];
  if (s->rank == 1 && s->dims[0] >= 0 && s->dims[0] != n)
    return tfs_sc_error(c, "Dimension must be %lld but is %lld",
                        (long long)n, (long long)s->dims[0]);
  return 0;
}

static int output_from_shape_input(tfs_shape_ctx *c) {
  tfs_shape s;
  if (tfs_sc_input_as_shape(c, 0, &s)) return -1;
  c->out_shapes[0] = s;
  return 0;
}

/* V1: seed (input 1) is a vector of 2 */
static int stateless_shape(tfs_shape_ctx *c) {
  if (vector_of(c, 1, 2)) return -1;
  return output_from_shape_input(c);
}

static int stateless_int_shape(tfs_shape_ctx *c) {
  if (tfs_sc_with_rank(c, 2, 0) || tfs_sc_with_rank(c, 3, 0)) return -1;
  return stateless_shape(c);
}

/* V2: key (1) a vector of 1, counter (2) a vector, alg (3) a scalar */
static int stateless_v2_shape(tfs_shape_ctx *c) {
  if (tfs_sc_with_rank(c, 1, 1) || tfs_sc_with_rank(c, 2, 1) ||
      tfs_sc_with_rank(c, 3, 0) || vector_of(c, 1, 1))
    return -1;
  return output_from_shape_input(c);
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

static int stateless_v2_int_shape(tfs_shape_ctx *c) {
  if (scalar_bound(c, 4, "minval") || scalar_bound(c, 5, "maxval"))
    return -1;
  return stateless_v2_shape(c);
}

static int key_counter_shape(tfs_shape_ctx *c) {
  if (vector_of(c, 0, 2)) return -1;
  for (int i = 0; i < c->noutputs; i++) c->out_shapes[i].rank = 0;
  c->out_shapes[0].rank = 1;
  c->out_shapes[0].dims[0] = 1;
  c->out_shapes[1].rank = 1;
  c->out_shapes[1].dims[0] = 2;
  return 0;
}

#define V1_IN "shape: T; seed: Tseed"
#define V1_ATTRS "T: {int32, int64} = int32; Tseed: {int32, int64} = int64"
#define V2_IN "shape: Tshape; key: uint64; counter: uint64; alg: int32"
#define V2_T "Tshape: {int32, int64} = int32"

const tfs_op_spec tfs_ops_random_stateless[] = {
    {"StatelessRandomUniform", V1_IN, "output: dtype",
     "dtype: " FLOATS " = float; " V1_ATTRS, stateless_shape, 0},
    {"StatelessRandomNormal", V1_IN, "output: dtype",
     "dtype: " FLOATS " = float; " V1_ATTRS, stateless_shape, 0},
    {"StatelessTruncatedNormal", V1_IN, "output: dtype",
     "dtype: " FLOATS " = float; " V1_ATTRS, stateless_shape, 0},
    {"StatelessRandomUniformInt", V1_IN "; minval: dtype; maxval: dtype",
     "output: dtype",
     "dtype: {int32, int64}; T: {int32, int64}; "
     "Tseed: {int32, int64} = int64",
     stateless_int_shape, 0},
    {"StatelessRandomUniformFullInt", V1_IN, "output: dtype",
     "dtype: {int32, int64, uint32, uint64} = uint64; "
     "T: {int32, int64} = int32; "
     "Tseed: {int32, int64, uint32, uint64} = int64",
     stateless_shape, 0},
    {"StatelessRandomUniformV2", V2_IN, "output: dtype",
     "dtype: " FLOATS " = float; " V2_T, stateless_v2_shape, 0},
    {"StatelessRandomNormalV2", V2_IN, "output: dtype",
     "dtype: " FLOATS " = float; " V2_T, stateless_v2_shape, 0},
    {"StatelessTruncatedNormalV2", V2_IN, "output: dtype",
     "dtype: " FLOATS " = float; " V2_T, stateless_v2_shape, 0},
    {"StatelessRandomUniformIntV2", V2_IN "; minval: dtype; maxval: dtype",
     "output: dtype", "dtype: {int32, int64, uint32, uint64}; " V2_T,
     stateless_v2_int_shape, 0},
    {"StatelessRandomUniformFullIntV2", V2_IN, "output: dtype",
     "dtype: {int32, int64, uint32, uint64} = uint64; " V2_T,
     stateless_v2_shape, 0},
    {"StatelessRandomGetKeyCounterAlg", "seed: Tseed",
     "key: uint64; counter: uint64; alg: int32",
     "Tseed: {int32, int64} = int64", key_counter_shape, 0},
    {"StatelessRandomGetKeyCounter", "seed: Tseed",
     "key: uint64; counter: uint64", "Tseed: {int32, int64} = int64",
     key_counter_shape, 0},
    {"StatelessRandomGetAlg", "", "alg: int32", "", tfs_shape_fn_scalar, 0},
    {NULL, NULL, NULL, NULL, NULL, 0},
};
