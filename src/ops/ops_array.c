/*
 * ops/ops_array.c - array ops: constants, placeholders, identity, shape
 * manipulation.
 */
#include "core/status.h"
#include "ops/op_tables.h"
#include "ops/shape_ctx.h"

static int const_shape(tfs_shape_ctx *c) {
  const tfs_tensor *v = tfs_attrs_get_tensor(c->attrs, "value");
  tfs_dtype dt;
  if (!v) return tfs_sc_error(c, "Const node has no value");
  if (tfs_attrs_get_type(c->attrs, "dtype", &dt) == 0 && dt != v->dtype)
    return tfs_sc_error(c, "Const node's dtype attr is %s but its value "
                        "has dtype %s", tfs_dtype_name(dt),
                        tfs_dtype_name(v->dtype));
  c->out_shapes[0] = v->shape;
  return 0;
}

static int placeholder_with_default_shape(tfs_shape_ctx *c) {
  const tfs_shape *s = tfs_attrs_get_shape(c->attrs, "shape");
  if (!s) return tfs_shape_fn_unknown(c);
  if (!tfs_shape_is_compatible(s, &c->in_shapes[0]) &&
      c->in_shapes[0].rank >= 0) {
    char a[TFS_SHAPE_STRLEN], b[TFS_SHAPE_STRLEN];
    return tfs_sc_error(c, "Incompatible shapes: %s vs. %s",
                        tfs_shape_str(&c->in_shapes[0], a, sizeof a),
                        tfs_shape_str(s, b, sizeof b));
  }
  c->out_shapes[0] = *s;
  return 0;
}

static int shape_shape(tfs_shape_ctx *c) {
  const tfs_shape *s = &c->in_shapes[0];
  tfs_shape_1d(&c->out_shapes[0], s->rank);
  return 0;
}

static int fill_shape(tfs_shape_ctx *c) {
  if (tfs_sc_with_rank(c, 0, 1) || tfs_sc_with_rank(c, 1, 0)) return -1;
  tfs_shape s;
  if (tfs_sc_input_as_shape(c, 0, &s)) return -1;
  for (int i = 0; i < s.rank; i++)
    if (s.dims[i] < -1 || (tfs_sc_const(c, 0) && s.dims[i] < 0))
      return tfs_sc_error(c, "Fill dimensions must be >= 0");
  c->out_shapes[0] = s;
  return 0;
}

static int reshape_shape(tfs_shape_ctx *c) {
  const tfs_shape *in = &c->in_shapes[0];
  tfs_shape target;
  if (tfs_sc_input_as_shape(c, 1, &target)) return -1;
  if (target.rank < 0) {
    c->out_shapes[0].rank = -1;
    return 0;
  }
  int unknown_idx = -1;
  int64_t known = 1;
  const tfs_tensor *shape_const = tfs_sc_const(c, 1);
  for (int i = 0; i < target.rank; i++) {
    if (target.dims[i] < 0) {
      if (unknown_idx >= 0 && shape_const)
        return tfs_sc_error(c, "Only one input size may be -1, not both %d "
                            "and %d", unknown_idx, i);
      unknown_idx = i;
    } else if (tfs_mul_overflow_i64(known, target.dims[i], &known)) {
      return tfs_sc_error(c, "Reshape target has too many elements");
    }
  }
  int64_t in_n = tfs_shape_num_elements(in);
  if (in_n < 0 || !shape_const) {
    c->out_shapes[0] = target;
    return 0;
  }
  if (unknown_idx >= 0) {
    if (known == 0 ? in_n != 0 : in_n % known != 0)
      return tfs_sc_error(c, "Dimension size must be evenly divisible by "
                          "%lld but is %lld", (long long)known,
                          (long long)in_n);
    target.dims[unknown_idx] = known ? in_n / known : 0;
  } else if (in_n != known) {
    char b[TFS_SHAPE_STRLEN];
    return tfs_sc_error(c, "Cannot reshape a tensor with %lld elements to "
                        "shape %s (%lld elements)", (long long)in_n,
                        tfs_shape_str(&target, b, sizeof b),
                        (long long)known);
  }
  c->out_shapes[0] = target;
  return 0;
}

const tfs_op_spec tfs_ops_array[] = {
    {"Const", "", "output: dtype", "value: tensor; dtype: type", const_shape,
     TFS_OP_SOURCE | TFS_OP_CHEAP},
    {"Placeholder", "", "output: dtype",
     "dtype: type; shape: shape = <unknown>",
     tfs_shape_fn_dtype_shape_attr, TFS_OP_CHEAP},
    {"PlaceholderWithDefault", "input: dtype", "output: dtype",
     "dtype: type; shape: shape", placeholder_with_default_shape,
     TFS_OP_CHEAP},
    {"Identity", "input: T", "output: T", "T: type", tfs_shape_fn_unchanged,
     TFS_OP_CHEAP},
    {"Reshape", "tensor: T; shape: Tshape", "output: T",
     "T: type; Tshape: {int32, int64} = int32", reshape_shape, TFS_OP_CHEAP},
    {"Shape", "input: T", "output: out_type",
     "T: type; out_type: {int32, int64} = int32", shape_shape, TFS_OP_CHEAP},
    {"Fill", "dims: index_type; value: T", "output: T",
     "T: type; index_type: {int32, int64} = int32", fill_shape, 0},
    {"ZerosLike", "x: T", "y: T", "T: type", tfs_shape_fn_unchanged,
     TFS_OP_ELEMENTWISE},
    {NULL, NULL, NULL, NULL, NULL, 0},
};
