/*
 * tests/kernels/test_array_errors.c - every rejection of the array
 * kernels (wrong ranks, mismatched dims, out-of-range indices and axes,
 * bad permutations, paddings, crops and block sizes), each with
 * TensorFlow's message and the node named; and the shape functions'
 * rejections when the bad value is known while the graph is built.
 */
#include "arraytest.h"

#define X23 at_f32(2, D(2, 3), F32(0, 1, 2, 3, 4, 5))
#define X4 at_f32(4, D(1, 2, 2, 4), NULL)
#define BAD TFS_INVALID_ARGUMENT

#define EXPECT(call, code, msg, ...)                                       \
  do {                                                                     \
    tfs_tensor *in_[] = {__VA_ARGS__};                                     \
    at_expect_error((call), in_, (int)(sizeof in_ / sizeof in_[0]),        \
                    (code), (msg));                                        \
  } while (0)

static void test_squeeze_expand_dims(void) {
  at_attr a0[] = {AT_LIST("squeeze_dims", 1, 0), {NULL}};
  at_attr a5[] = {AT_LIST("squeeze_dims", 1, 5), {NULL}};
  at_call c = {"Squeeze", a0, 0, 0, NULL};
  EXPECT(&c, BAD, "Can not squeeze dim[0], expected a dimension of 1, got 2",
         X23);
  c.attrs = a5;
  EXPECT(&c, BAD, "Tried to squeeze dim index 5 for tensor with 2 "
         "dimensions.", X23);
  at_call e = {"ExpandDims", NULL, 0, 0, NULL};
  EXPECT(&e, BAD, "Tried to expand dim index 5 for tensor with 2 dimensions.",
         X23, at_si32(5));
  EXPECT(&e, BAD, "'dim' must be a tensor with a single value", X23,
         at_i32(1, D(2), I32(1, 2)));
}

static void test_transpose(void) {
  at_call c = {"Transpose", NULL, 0, 0, NULL};
  EXPECT(&c, BAD, "transpose expects a vector of size 2. But input(1) is a "
         "vector of size 1", X23, at_i32(1, D(1), I32(0)));
  EXPECT(&c, BAD, "1 is missing from {0,0}.", X23, at_i32(1, D(2), I32(0, 0)));
  EXPECT(&c, BAD, "2 is out of range [0 .. 2)", X23,
         at_i32(1, D(2), I32(0, 2)));
  EXPECT(&c, BAD, "perm must be rank 1, got shape [1,2]", X23,
         at_i32(2, D(1, 2), I32(0, 1)));
  at_call k = {"Transpose", NULL, 0, 0, "kc"}; /* caught by shape inference */
  EXPECT(&k, BAD, "perm dim 3 is out of range of input rank 2", X23,
         at_i32(1, D(2), I32(0, 3)));
}

static void test_concat(void) {
  at_call c = {"ConcatV2", NULL, 0, 2, NULL};
  EXPECT(&c, BAD, "ConcatOp : Expected concatenating dimensions in the range "
         "[-2, 2), but got 2", X23, X23, at_si32(2));
  EXPECT(&c, BAD, "ConcatOp : Ranks of all input tensors should match: "
         "shape[0] = [2,3] vs. shape[1] = [3]", X23,
         at_f32(1, D(3), F32(1, 2, 3)), at_si32(0));
  EXPECT(&c, BAD, "ConcatOp : Dimension 1 in both shapes must be equal: "
         "shape[0] = [2,3] vs. shape[1] = [2,2]", X23, at_f32(2, D(2, 2), NULL),
         at_si32(0));
  EXPECT(&c, BAD, "ConcatOp : Can't concatenate scalars (use tf.stack "
         "instead)", at_sf32(1), at_sf32(2), at_si32(0));
  EXPECT(&c, BAD, "axis tensor should be a scalar integer, but got shape "
         "[2]", X23, X23, at_i32(1, D(2), I32(0, 1)));
  at_call v1 = {"Concat", NULL, 1, 2, NULL};
  EXPECT(&v1, BAD, "ConcatOp : Expected concatenating dimensions in the "
         "range [-2, 2), but got -3", at_si32(-3), X23, X23);
  at_call k = {"ConcatV2", NULL, 0, 2, "kkc"};
  EXPECT(&k, BAD, "Can't concatenate scalars (use tf.stack instead)",
         at_sf32(1), at_sf32(2), at_si32(0));
}

static void test_pack_unpack(void) {
  at_call p = {"Pack", NULL, 0, 2, NULL};
  EXPECT(&p, BAD, "Shapes of all inputs must match: values[0].shape = [2,3] "
         "!= values[1].shape = [3]", X23, at_f32(1, D(3), NULL));
  at_attr a5[] = {AT_INT("axis", 5), {NULL}};
  p.attrs = a5;
  EXPECT(&p, BAD, "axis = 5 not in [-3, 3)", X23, X23);
  at_attr u5[] = {AT_INT("num", 2), AT_INT("axis", 5), {NULL}};
  at_call u = {"Unpack", u5, 0, 0, NULL};
  EXPECT(&u, BAD, "axis = 5 not in [-2, 2)", X23);
  at_attr u3[] = {AT_INT("num", 3), {NULL}};
  u.attrs = u3;
  EXPECT(&u, BAD, "Input shape axis 0 must equal 3, got shape [2,3]", X23);
}

static void test_split(void) {
  at_attr n2[] = {AT_INT("num_split", 2), {NULL}};
  at_attr n3[] = {AT_INT("num_split", 3), {NULL}};
  at_call s = {"Split", n2, 0, 0, NULL};
  EXPECT(&s, BAD, "Number of ways to split should evenly divide the split "
         "dimension, but got split_dim 1 (size = 3) and num_split 2",
         at_si32(1), X23);
  EXPECT(&s, BAD, "-input rank(-2) <= split_dim < input rank (2), but got 3",
         at_si32(3), X23);
  at_call v = {"SplitV", n2, 0, 0, NULL};
  EXPECT(&v, BAD, "Determined shape must either match input shape along "
         "split_dim exactly if fully specified, or be less than the size of "
         "the input along split_dim if not fully specified.  Got: 2", X23,
         at_i32(1, D(2), I32(1, 1)), at_si32(1));
  EXPECT(&v, BAD, "size of the split_tensor must be 1-D and have the same "
         "elements as outputs got 1 -D and 3 elements", X23,
         at_i32(1, D(3), I32(1, 1, 1)), at_si32(1));
  EXPECT(&v, BAD, "-input rank(-2) <= split_dim < input rank (2), but got 4",
         X23, at_i32(1, D(2), I32(1, 2)), at_si32(4));
  EXPECT(&v, BAD, "Split size at index 0 must be >= 0. Got: -2", X23,
         at_i32(1, D(2), I32(-2, 5)), at_si32(1));
  EXPECT(&v, BAD, "split_dim_tensor must have exactly one element.", X23,
         at_i32(1, D(2), I32(1, 2)), at_i32(1, D(2), I32(1, 1)));
  v.attrs = n3;
  EXPECT(&v, BAD, "There can only be one -1 in the input.", X23,
         at_i32(1, D(3), I32(-1, -1, 1)), at_si32(1));
}

static void test_slice(void) {
  at_call c = {"Slice", NULL, 0, 0, NULL};
  EXPECT(&c, BAD, "Expected begin and size arguments to be 1-D tensors of "
         "size 2, but got shapes [1] and [2] instead.", X23,
         at_i32(1, D(1), I32(0)), at_i32(1, D(2), I32(1, 1)));
  EXPECT(&c, BAD, "Expected size[1] in [0, 1], but got 2", X23,
         at_i32(1, D(2), I32(0, 2)), at_i32(1, D(2), I32(1, 2)));
  EXPECT(&c, BAD, "Expected begin[0] in [0, 2], but got -1", X23,
         at_i32(1, D(2), I32(-1, 0)), at_i32(1, D(2), I32(1, 2)));
  EXPECT(&c, BAD, "Expected begin and size arguments to be 1-D tensors of "
         "size 2, but got shapes [1,2] and [1,2] instead.", X23,
         at_i32(2, D(1, 2), I32(0, 0)), at_i32(2, D(1, 2), I32(1, 1)));
  EXPECT(&c, BAD, "Expected begin[0] == 0 (got 1) and size[0] == 0 (got 0) "
         "when input.dim_size(0) == 0", at_f32(1, D(0), NULL),
         at_i32(1, D(1), I32(1)), at_i32(1, D(1), I32(0)));
}

static void test_strided_slice(void) {
  at_attr none[] = {{NULL}};
  at_attr sh[] = {AT_INT("shrink_axis_mask", 1), {NULL}};
  at_attr el[] = {AT_INT("ellipsis_mask", 3), {NULL}};
  at_call c = {"StridedSlice", none, 0, 0, NULL};
  EXPECT(&c, BAD, "strides[0] must be non-zero", X23, at_i32(1, D(1), I32(0)),
         at_i32(1, D(1), I32(1)), at_i32(1, D(1), I32(0)));
  EXPECT(&c, BAD, "Expected begin, end, and strides to be 1D equal size "
         "tensors, but got shapes [1], [2], and [1] instead.", X23,
         at_i32(1, D(1), I32(0)), at_i32(1, D(2), I32(1, 1)),
         at_i32(1, D(1), I32(1)));
  EXPECT(&c, BAD, "Index out of range using input dim 2; input has only 2 "
         "dims", X23, at_i32(1, D(3), I32(0, 0, 0)),
         at_i32(1, D(3), I32(1, 1, 1)), at_i32(1, D(3), I32(1, 1, 1)));
  c.attrs = sh;
  EXPECT(&c, BAD, "slice index 5 of dimension 0 out of bounds.", X23,
         at_i32(1, D(1), I32(5)), at_i32(1, D(1), I32(6)),
         at_i32(1, D(1), I32(1)));
  EXPECT(&c, BAD, "slice index -3 of dimension 0 out of bounds.", X23,
         at_i32(1, D(1), I32(-5)), at_i32(1, D(1), I32(6)),
         at_i32(1, D(1), I32(1)));
  EXPECT(&c, BAD, "only stride 1 allowed on non-range indexing.", X23,
         at_i32(1, D(1), I32(0)), at_i32(1, D(1), I32(1)),
         at_i32(1, D(1), I32(-1)));
  c.attrs = el;
  EXPECT(&c, BAD, "Multiple ellipses in slice spec not allowed", X23,
         at_i32(1, D(2), I32(0, 0)), at_i32(1, D(2), I32(1, 1)),
         at_i32(1, D(2), I32(1, 1)));
  at_call k = {"StridedSlice", sh, 0, 0, "kccc"}; /* shape inference */
  EXPECT(&k, BAD, "slice index 5 of dimension 0 out of bounds.", X23,
         at_i32(1, D(1), I32(5)), at_i32(1, D(1), I32(6)),
         at_i32(1, D(1), I32(1)));
}

static void test_pad(void) {
  at_call c = {"Pad", NULL, 0, 0, NULL};
  EXPECT(&c, BAD, "The first dimension of paddings must be the rank of "
         "inputs[1,2] [2,3]", X23, at_i32(2, D(1, 2), I32(1, 1)));
  EXPECT(&c, BAD, "Paddings must be non-negative: -1 0", X23,
         at_i32(2, D(2, 2), I32(1, 1, -1, 0)));
  EXPECT(&c, BAD, "paddings must be a matrix with 2 columns: [2,3]", X23,
         at_i32(2, D(2, 3), NULL));
  at_call v2 = {"PadV2", NULL, 0, 0, NULL};
  EXPECT(&v2, BAD, "constant_values must be a scalar. Found: [2]", X23,
         at_i32(2, D(2, 2), I32(1, 1, 0, 0)), at_f32(1, D(2), F32(1, 2)));
  at_attr refl[] = {AT_STR("mode", "REFLECT"), {NULL}};
  at_attr sym[] = {AT_STR("mode", "SYMMETRIC"), {NULL}};
  at_call m = {"MirrorPad", refl, 0, 0, NULL};
  EXPECT(&m, BAD, "paddings must be less than the dimension size: 2, 0 not "
         "less than 2", X23, at_i32(2, D(2, 2), I32(2, 0, 0, 0)));
  m.attrs = sym;
  EXPECT(&m, BAD, "paddings must be no greater than the dimension size: 3, 0 "
         "greater than 2", X23, at_i32(2, D(2, 2), I32(3, 0, 0, 0)));
  EXPECT(&m, BAD, "paddings must be non-negative: -1 0", X23,
         at_i32(2, D(2, 2), I32(-1, 0, 0, 0)));
  EXPECT(&m, BAD, "The first dimension of paddings must be the rank of "
         "inputs[1,2], [2,3]", X23, at_i32(2, D(1, 2), I32(1, 0)));
  at_call k = {"Pad", NULL, 0, 0, "kc"};
  EXPECT(&k, BAD, "Paddings must be non-negative", X23,
         at_i32(2, D(2, 2), I32(1, 1, -1, 0)));
}

static void test_tile_broadcast_to(void) {
  at_call c = {"Tile", NULL, 0, 0, NULL};
  EXPECT(&c, BAD, "Expected multiples argument to be a vector of length 2 "
         "but got length 1", X23, at_i32(1, D(1), I32(1)));
  EXPECT(&c, BAD, "Expected multiples[1] >= 0, but got -1", X23,
         at_i32(1, D(2), I32(1, -1)));
  EXPECT(&c, BAD, "Expected multiples to be 1-D, but got shape [1,2]", X23,
         at_i32(2, D(1, 2), I32(1, 1)));
  at_call b = {"BroadcastTo", NULL, 0, 0, NULL};
  EXPECT(&b, BAD, "Incompatible shapes: [2,3] vs. [2,4]", X23,
         at_i32(1, D(2), I32(2, 4)));
  EXPECT(&b, BAD, "Rank of input (2) must be no greater than rank of output "
         "shape (1).", X23, at_i32(1, D(1), I32(3)));
  EXPECT(&b, BAD, "Dimension -1 must be >= 0", X23,
         at_i32(1, D(2), I32(-1, 3)));
  EXPECT(&b, BAD, "shape must be a vector of {int32,int64}, got shape [1,2]",
         X23, at_i32(2, D(1, 2), I32(2, 3)));
  EXPECT(&b, BAD, "Unable to broadcast tensor of shape [2,3] to tensor of "
         "shape [1,3]", X23, at_i32(1, D(2), I32(1, 3)));
}

static void test_gather(void) {
  at_call c = {"GatherV2", NULL, 0, 0, NULL};
  EXPECT(&c, BAD, "indices[0,1] = 5 is not in [0, 3)", X23,
         at_i32(2, D(1, 2), I32(0, 5)), at_si32(1));
  EXPECT(&c, BAD, "indices[0] = -1 is not in [0, 2)", X23,
         at_i32(1, D(1), I32(-1)), at_si32(0));
  EXPECT(&c, BAD, "indices = 5 is not in [0, 2)", X23, at_si32(5),
         at_si32(0));
  EXPECT(&c, BAD, "Shape must be at least rank 3 but is rank 2", X23,
         at_i32(1, D(1), I32(0)), at_si32(2));
  EXPECT(&c, BAD, "axis must be scalar", X23, at_i32(1, D(1), I32(0)),
         at_i32(1, D(1), I32(0)));
  EXPECT(&c, BAD, "params must be at least 1 dimensional", at_sf32(1),
         at_i32(1, D(1), I32(0)), at_si32(0));
  at_attr b2[] = {AT_INT("batch_dims", 2), {NULL}};
  at_attr b1[] = {AT_INT("batch_dims", 1), {NULL}};
  at_attr bm3[] = {AT_INT("batch_dims", -3), {NULL}};
  c.attrs = b2;
  EXPECT(&c, BAD, "batch_dims (2) must be less than rank(params) (2).", X23,
         at_i32(2, D(2, 3), NULL), at_si32(1));
  c.attrs = b1;
  EXPECT(&c, BAD, "params.shape[0]: 2 should be equal to indices.shape[0]: 3",
         X23, at_i32(2, D(3, 1), NULL), at_si32(1));
  EXPECT(&c, BAD, "batch_dims (1) must be less than or equal to axis (0).",
         X23, at_i32(2, D(2, 1), NULL), at_si32(0));
  c.attrs = bm3;
  EXPECT(&c, BAD, "Expected batch_dims in the range [-2, 2], but got -3", X23,
         at_i32(2, D(2, 1), NULL), at_si32(1));
}

static void test_gather_nd(void) {
  at_call c = {"GatherNd", NULL, 0, 0, NULL};
  EXPECT(&c, BAD, "indices[0] = [0, 3] does not index into param shape "
         "[2,3], node name: n", X23, at_i32(2, D(1, 2), I32(0, 3)));
  EXPECT(&c, BAD, "indices[0,1] = [0, 3] does not index into param shape "
         "[2,3], node name: n", X23, at_i32(3, D(1, 2, 2), I32(0, 1, 0, 3)));
  EXPECT(&c, BAD, "indices = [5] does not index into param shape [2,3]", X23,
         at_i32(1, D(1), I32(5)));
  EXPECT(&c, BAD, "index innermost dimension length must be <= params rank; "
         "saw: 3 vs. 2", X23, at_i32(2, D(1, 3), NULL));
  EXPECT(&c, BAD, "indices must be at least a vector", X23, at_si32(0));
  EXPECT(&c, BAD, "params must be at least a vector", at_sf32(1),
         at_i32(1, D(1), I32(0)));
  EXPECT(&c, BAD, "Requested more than 0 entries, but params is empty.  "
         "Params shape: [0,3]", at_f32(2, D(0, 3), NULL),
         at_i32(2, D(1, 1), I32(0)));
}

static void test_scatter_nd(void) {
  at_call c = {"ScatterNd", NULL, 0, 0, NULL};
  EXPECT(&c, BAD, "indices[0] = [5] does not index into shape [3]",
         at_i32(2, D(1, 1), I32(5)), at_f32(1, D(1), F32(1)),
         at_i32(1, D(1), I32(3)));
  EXPECT(&c, BAD, "indices[1] = [-1] does not index into shape [3]",
         at_i32(2, D(2, 1), I32(0, -1)), at_f32(1, D(2), F32(1, 2)),
         at_i32(1, D(1), I32(3)));
  EXPECT(&c, BAD, "Dimensions [0,1) of indices[shape=[1,1]] must match "
         "dimensions [0,1) of updates[shape=[2]]",
         at_i32(2, D(1, 1), I32(1)), at_f32(1, D(2), F32(1, 2)),
         at_i32(1, D(1), I32(3)));
  EXPECT(&c, BAD, "Dimensions [2,1) of input[shape=[3]] must match "
         "dimensions [1,1) of updates[shape=[1]]",
         at_i32(2, D(1, 2), I32(1, 1)), at_f32(1, D(1), F32(1)),
         at_i32(1, D(1), I32(3)));
  EXPECT(&c, BAD, "Dimension -3 must be >= 0", at_i32(2, D(1, 1), I32(1)),
         at_f32(1, D(1), F32(1)), at_i32(1, D(1), I32(-3)));
  EXPECT(&c, BAD, "Shape must be a vector", at_i32(2, D(1, 1), I32(1)),
         at_f32(1, D(1), F32(1)), at_i32(2, D(1, 1), I32(3)));
  EXPECT(&c, BAD, "Indices shape must have rank at least one. Found:[]",
         at_si32(0), at_sf32(1), at_i32(1, D(1), I32(3)));
  EXPECT(&c, BAD, "Indices and updates specified for empty output.  indices "
         "shape: [1,1]", at_i32(2, D(1, 1), I32(0)), at_f32(1, D(1), F32(1)),
         at_i32(1, D(1), I32(0)));
  EXPECT(&c, BAD, "Indices and updates specified for empty output shape",
         at_i32(2, D(1, 0), NULL), at_f32(1, D(1), F32(1)),
         at_i32(1, D(0), NULL));
}

static void test_one_hot(void) {
  at_call c = {"OneHot", NULL, 0, 0, NULL};
  EXPECT(&c, BAD, "depth must be non-negative, got: -1",
         at_i32(1, D(1), I32(1)), at_si32(-1), at_sf32(1), at_sf32(0));
  EXPECT(&c, BAD, "on_value must be a scalar, but got: [1]",
         at_i32(1, D(1), I32(1)), at_si32(3), at_f32(1, D(1), F32(1)),
         at_sf32(0));
  EXPECT(&c, BAD, "off_value must be a scalar, but got: [1]",
         at_i32(1, D(1), I32(1)), at_si32(3), at_sf32(1),
         at_f32(1, D(1), F32(0)));
  EXPECT(&c, BAD, "depth must be a scalar, but got: [1]",
         at_i32(1, D(1), I32(1)), at_i32(1, D(1), I32(3)), at_sf32(1),
         at_sf32(0));
  at_attr a3[] = {AT_INT("axis", 3), {NULL}};
  c.attrs = a3;
  EXPECT(&c, BAD, "Expected axis to be -1 or between [0, 2).  But received: "
         "3", at_i32(1, D(1), I32(1)), at_si32(3), at_sf32(1), at_sf32(0));
  at_attr am2[] = {AT_INT("axis", -2), {NULL}};
  c.attrs = am2;
  EXPECT(&c, BAD, "axis must be >= -1", at_i32(1, D(1), I32(1)), at_si32(3),
         at_sf32(1), at_sf32(0));
}

static void test_range(void) {
  at_call c = {"Range", NULL, 0, 0, NULL};
  EXPECT(&c, BAD, "Requires delta != 0", at_si32(0), at_si32(5), at_si32(0));
  EXPECT(&c, BAD, "Requires start >= limit when delta < 0: 0/5", at_si32(0),
         at_si32(5), at_si32(-1));
  EXPECT(&c, BAD, "Requires start <= limit when delta > 0: 5/0", at_si32(5),
         at_si32(0), at_si32(1));
  EXPECT(&c, BAD, "start must be a scalar, not shape [2]",
         at_i32(1, D(2), I32(0, 1)), at_si32(5), at_si32(1));
  EXPECT(&c, BAD, "limit must be a scalar, not shape [2]", at_si32(0),
         at_i32(1, D(2), I32(5, 1)), at_si32(1));
  EXPECT(&c, BAD, "delta must be a scalar, not shape [2]", at_si32(0),
         at_si32(5), at_i32(1, D(2), I32(1, 1)));
  EXPECT(&c, BAD, "Requires ((limit - start) / delta) <= 9223372036854775807",
         tfs_tensor_scalar_int64(-(1ll << 62)),
         tfs_tensor_scalar_int64(1ll << 62), tfs_tensor_scalar_int64(1));
  EXPECT(&c, BAD, "Requires start <= limit when delta > 0: 0/nan", at_sf32(0),
         at_sf32(__builtin_nanf("")), at_sf32(1));
  at_call k = {"Range", NULL, 0, 0, "kkk"};
  EXPECT(&k, BAD, "Shape must be rank 0 but is rank 1 for 'start'",
         at_i32(1, D(2), I32(0, 1)), at_si32(5), at_si32(1));
}

static void test_reverse_where_invperm(void) {
  at_call c = {"ReverseV2", NULL, 0, 0, NULL};
  EXPECT(&c, BAD, "'axis'[0] = 2 is out of valid range [0, 1", X23,
         at_i32(1, D(1), I32(2)));
  EXPECT(&c, BAD, "axis 1 specified more than once.", X23,
         at_i32(1, D(2), I32(1, -1)));
  EXPECT(&c, BAD, "'dims' must be 1-dimension, not 2", X23,
         at_i32(2, D(1, 1), I32(1)));
  at_call w = {"Where", NULL, 0, 0, NULL};
  EXPECT(&w, BAD, "WhereOp : Unhandled input dimensions: 0",
         tfs_tensor_scalar_bool(1));
  at_call p = {"InvertPermutation", NULL, 0, 0, NULL};
  EXPECT(&p, BAD, "0 is duplicated in the input.",
         at_i32(1, D(3), I32(0, 0, 1)));
  EXPECT(&p, BAD, "3 is not between 0 and 3", at_i32(1, D(3), I32(0, 3, 1)));
  EXPECT(&p, BAD, "invert_permutation expects a 1D vector.",
         at_i32(2, D(1, 1), I32(0)));
}

static void test_top_k_cumsum(void) {
  at_call c = {"TopKV2", NULL, 0, 0, NULL};
  EXPECT(&c, BAD, "input must have at least k columns. Had 3, needed 4", X23,
         at_si32(4));
  EXPECT(&c, BAD, "Need k >= 0, got -1", X23, at_si32(-1));
  EXPECT(&c, BAD, "input must be >= 1-D, got shape []", at_sf32(1),
         at_si32(1));
  EXPECT(&c, BAD, "k must be scalar, got shape [1]", X23,
         at_i32(1, D(1), I32(1)));
  at_call s = {"Cumsum", NULL, 0, 0, NULL};
  EXPECT(&s, BAD, "ScanOp: Expected scan axis in the range [-2, 2), but got 2",
         X23, at_si32(2));
  EXPECT(&s, BAD, "ScanOp: axis must be a scalar, not [1]", X23,
         at_i32(1, D(1), I32(0)));
}

static void test_depth_space(void) {
  at_attr b3[] = {AT_INT("block_size", 3), {NULL}};
  at_attr b2[] = {AT_INT("block_size", 2), {NULL}};
  at_call d = {"DepthToSpace", b3, 0, 0, NULL};
  EXPECT(&d, BAD, "Input depth dimension 4 should be divisible by: 9", X4);
  d.attrs = b2;
  EXPECT(&d, BAD, "Input rank should be: 4 instead of: 2", X23);
  at_call s = {"SpaceToDepth", b3, 0, 0, NULL};
  EXPECT(&s, BAD, "Image width 2 and height 2 should be divisible by "
         "block_size: 3", X4);
  s.attrs = b2;
  EXPECT(&s, BAD, "Input rank should be 4 instead of 2", X23);
  at_attr vc[] = {AT_INT("block_size", 2),
                  AT_STR("data_format", "NCHW_VECT_C"), {NULL}};
  s.attrs = vc;
  EXPECT(&s, TFS_UNIMPLEMENTED, "SpaceToDepth with data_format NCHW_VECT_C "
         "is not supported on CPU", X4);
}

static void test_space_batch(void) {
  at_call c = {"SpaceToBatchND", NULL, 0, 0, "ukr"};
  EXPECT(&c, BAD, "padded_shape[0]=2 is not divisible by block_shape[0]=3", X4,
         at_i32(1, D(2), I32(3, 1)), at_i32(2, D(2, 2), NULL));
  EXPECT(&c, BAD, "All values in block_shape must be positive, got value, 0 "
         "at index 0.", X4, at_i32(1, D(2), I32(0, 1)),
         at_i32(2, D(2, 2), NULL));
  EXPECT(&c, BAD, "Paddings must be non-negative", X4,
         at_i32(1, D(2), I32(2, 1)), at_i32(2, D(2, 2), I32(-1, 1, 0, 0)));
  EXPECT(&c, BAD, "paddings should have shape [2, 2] instead of [1,2]", X4,
         at_i32(1, D(2), I32(2, 1)), at_i32(2, D(1, 2), NULL));
  EXPECT(&c, BAD, "input rank should be >= 3 instead of 2", X23,
         at_i32(1, D(2), I32(1, 1)), at_i32(2, D(2, 2), NULL));
  at_call b = {"BatchToSpaceND", NULL, 0, 0, "ukr"};
  EXPECT(&b, BAD, "Input batch dimension (1) is not divisible by product of "
         "block sizes (2)", X4, at_i32(1, D(2), I32(2, 1)),
         at_i32(2, D(2, 2), NULL));
  EXPECT(&b, BAD, "cropped_shape[0]=-1 must be non-negative", X4,
         at_i32(1, D(2), I32(1, 1)), at_i32(2, D(2, 2), I32(2, 1, 0, 0)));
  EXPECT(&b, BAD, "Crops must be non-negative", X4,
         at_i32(1, D(2), I32(1, 1)), at_i32(2, D(2, 2), I32(-1, 0, 0, 0)));
  EXPECT(&b, BAD, "Product of block sizes must be positive, got 0", X4,
         at_i32(1, D(2), I32(0, 1)), at_i32(2, D(2, 2), NULL));
  EXPECT(&b, BAD, "crops should have shape [2, 2] instead of [1,2]", X4,
         at_i32(1, D(2), I32(1, 1)), at_i32(2, D(1, 2), NULL));
  /* sizes from the graph that overflow int64 are errors, not UB */
  EXPECT(&c, BAD, "Encountered overflow when multiplying", X4,
         at_i64(1, D(2), I64(INT64_MAX / 2, 4)), at_i64(2, D(2, 2), NULL));
  EXPECT(&c, BAD, "Encountered overflow when adding", X4,
         at_i64(1, D(2), I64(1, 1)),
         at_i64(2, D(2, 2), I64(INT64_MAX - 1, 0, 0, 0)));
  EXPECT(&c, BAD, "Encountered overflow when multiplying", X4,
         at_i64(1, D(2), I64(1, 1)),
         at_i64(2, D(2, 2), I64(INT64_MAX / 3, INT64_MAX / 3 + 1, 0, 0)));
  EXPECT(&b, BAD, "Encountered overflow when multiplying", X4,
         at_i64(1, D(2), I64((int64_t)1 << 32, (int64_t)1 << 32)),
         at_i64(2, D(2, 2), NULL));
  at_call u = {"SpaceToBatchND", NULL, 0, 0, NULL};
  EXPECT(&u, BAD, "block_shape must have rank 1.", X4,
         at_i32(1, D(2), I32(1, 1)), at_i32(2, D(2, 2), NULL));
}

static void test_resize(void) {
  at_call c = {"ResizeBilinear", NULL, 0, 0, NULL};
  EXPECT(&c, BAD, "output dimensions must be positive", X4,
         at_i32(1, D(2), I32(0, 2)));
  EXPECT(&c, BAD, "shape_t must have two elements[1]", X4,
         at_i32(1, D(1), I32(2)));
  EXPECT(&c, BAD, "shape_t must be 1-dimensional[1,2]", X4,
         at_i32(2, D(1, 2), I32(2, 2)));
  EXPECT(&c, BAD, "input must be 4-dimensional[2,3]", X23,
         at_i32(1, D(2), I32(2, 2)));
  at_attr both[] = {AT_BOOL("align_corners", 1),
                    AT_BOOL("half_pixel_centers", 1), {NULL}};
  c.attrs = both;
  EXPECT(&c, BAD, "If half_pixel_centers is True, align_corners must be "
         "False.", X4, at_i32(1, D(2), I32(3, 3)));
  at_call n = {"ResizeNearestNeighbor", NULL, 0, 0, NULL};
  EXPECT(&n, BAD, "output dimensions must be positive", X4,
         at_i32(1, D(2), I32(-1, 2)));
  EXPECT(&n, BAD, "input image must be of non-zero size",
         at_f32(4, D(1, 0, 2, 1), NULL), at_i32(1, D(2), I32(2, 2)));
  EXPECT(&n, BAD, "image must have at least one channel",
         at_f32(4, D(1, 2, 2, 0), NULL), at_i32(1, D(2), I32(2, 2)));
}

static void test_band_part(void) {
  at_call c = {"MatrixBandPart", NULL, 0, 0, NULL};
  tfs_tensor *(*s64)(int64_t) = tfs_tensor_scalar_int64;
  EXPECT(&c, BAD, "input must be at least 2-dim, received shape: [3]",
         at_f32(1, D(3), NULL), s64(0), s64(0));
  EXPECT(&c, BAD, "num_lower must be negative or less or equal to number of "
         "rows (2) got: 3", X23, s64(3), s64(0));
  EXPECT(&c, BAD, "num_upper must be negative or less or equal to number of "
         "columns (3) got: 4", X23, s64(0), s64(4));
  EXPECT(&c, BAD, "num_lower must be scalar, got shape [1]", X23,
         at_i64(1, D(1), I64(0)), s64(0));
  EXPECT(&c, BAD, "num_upper must be scalar, got shape [1]", X23, s64(0),
         at_i64(1, D(1), I64(0)));
}

static void test_einsum(void) {
  at_attr ij[] = {AT_STR("equation", "ij,jk->ik"), {NULL}};
  at_call c = {"Einsum", ij, 0, 2, NULL};
  EXPECT(&c, BAD, "Expected dimension 3 at axis 0 of the input shaped [2,3] "
         "but got dimension 2", X23, X23);
  EXPECT(&c, BAD, "Expected input 1 to have rank 2 but got: 1", X23,
         at_f32(1, D(3), NULL));
  at_attr bc[] = {AT_STR("equation", "...ij,...jk->...ik"), {NULL}};
  c.attrs = bc;
  EXPECT(&c, BAD, "Invalid broadcasting dimensions: [2,2,3] vs. [3,3,4]",
         at_f32(3, D(2, 2, 3), NULL), at_f32(3, D(3, 3, 4), NULL));
  at_attr ne[] = {AT_STR("equation", "...j->j"), {NULL}};
  at_call one = {"Einsum", ne, 0, 1, NULL};
  EXPECT(&one, BAD, "Output contains 1 broadcasting dimension(s) but no "
         "ellipsis (...) was found in the output subscripts.", X23);
  at_attr di[] = {AT_STR("equation", "ii->i"), {NULL}};
  one.attrs = di;
  EXPECT(&one, BAD, "Expected dimension 2 at axis 1 of the input shaped "
         "[2,3] but got dimension 3", X23);
  at_attr p1[] = {AT_STR("equation", "ij,jk"), {NULL}};
  c.attrs = p1;
  EXPECT(&c, BAD, "Expecting exactly one '->' in einsum equation: ij,jk", X23,
         X23);
  at_attr p2[] = {AT_STR("equation", "ij->ik"), {NULL}};
  c.attrs = p2;
  EXPECT(&c, BAD, "Expected 1 inputs for equation ij->ik but got: 2", X23,
         X23);
  at_attr p3[] = {AT_STR("equation", "ij,jk->iz"), {NULL}};
  c.attrs = p3;
  EXPECT(&c, BAD, "Einsum output subscripts for equation 'ij,jk->iz' has "
         "label 'z' which is not present in the input subscripts", X23, X23);
  at_attr p4[] = {AT_STR("equation", "i...j...->ij"), {NULL}};
  one.attrs = p4;
  EXPECT(&one, BAD, "Expected at most one ellipsis (...), but found 6 "
         "periods (.) in the input subscript: i...j...", X23);
  at_attr p5[] = {AT_STR("equation", "ij,jk,kl->il"), {NULL}};
  at_call three = {"Einsum", p5, 0, 3, NULL};
  EXPECT(&three, BAD, "Expecting 1 or 2 input subscripts in equation "
         "'ij,jk,kl->il' but got: 3", X23, X23, X23);
  at_call k = {"Einsum", ij, 0, 2, "kk"}; /* shape inference */
  EXPECT(&k, BAD, "Dimensions must be equal, but are 3 and 2", X23, X23);
  at_call sc = {"ScatterNd", NULL, 0, 0, "kkc"};
  EXPECT(&sc, BAD, "Dimensions [0,1) of indices[shape=[1,1]] = [1] must "
         "match dimensions [0,1) of updates[shape=[2]] = [2]: Dimension 0 in "
         "both shapes must be equal, but are 1 and 2. Shapes are [1] and "
         "[2].", at_i32(2, D(1, 1), I32(1)), at_f32(1, D(2), F32(1, 2)),
         at_i32(1, D(1), I32(3)));
  at_call cc = {"ConcatV2", NULL, 0, 2, "kkc"};
  EXPECT(&cc, BAD, "Dimension 0 in both shapes must be equal, but are 3 and "
         "2. Shapes are [3] and [2].", X23, at_f32(2, D(2, 2), NULL),
         at_si32(0));
}

static void test_limits(void) {
  int64_t d16[16];
  for (int i = 0; i < 16; i++) d16[i] = 1;
  at_call e = {"ExpandDims", NULL, 0, 0, NULL};
  EXPECT(&e, BAD, "ExpandDims result has more than 16 dimensions",
         at_f32(16, d16, F32(1)), at_si32(0));
  at_call t = {"Tile", NULL, 0, 0, NULL};
  EXPECT(&t, BAD, "Tile output is too large", at_f32(1, D(2), F32(1, 2)),
         at_i64(1, D(1), I64(1ll << 62)));
  at_call b = {"BroadcastTo", NULL, 0, 0, NULL};
  EXPECT(&b, BAD, "[1099511627776,1099511627776]", at_sf32(1),
         at_i64(1, D(2), I64(1ll << 40, 1ll << 40)));
  at_attr n2[] = {AT_INT("num_split", 2), {NULL}};
  at_call s = {"Split", n2, 0, 0, NULL};
  EXPECT(&s, BAD, "split_dim must have exactly one element.",
         at_i32(1, D(2), I32(0, 1)), X23);
  at_attr n1[] = {AT_INT("num_split", 1), {NULL}};
  at_call v = {"SplitV", n1, 0, 0, NULL};
  EXPECT(&v, BAD, "If there is only one output, it must have the same size "
         "as the input. Input size: 3 output size: -1", X23,
         at_i32(1, D(1), I32(-1)), at_si32(1));
  at_attr foo[] = {AT_STR("bad_indices_policy", "FOO"), {NULL}};
  at_call g = {"GatherNd", foo, 0, 0, NULL};
  EXPECT(&g, BAD, "Invalid bad_indices_policy: FOO", X23,
         at_i32(2, D(1, 1), I32(0)));
  at_call sc = {"ScatterNd", NULL, 0, 0, NULL};
  EXPECT(&sc, BAD, "Updates shape must have rank at least one. Found:[]",
         at_i32(2, D(1, 1), I32(0)), at_sf32(1), at_i32(1, D(1), I32(3)));
  EXPECT(&sc, BAD, "Output must be at least 1-D, got shape: []",
         at_i32(1, D(0), NULL), at_f32(1, D(0), NULL), at_i32(1, D(0), NULL));
  at_attr i16[] = {AT_TYPE("index_type", TFS_INT16), {NULL}};
  at_call k = {"TopKV2", i16, 0, 0, NULL};
  EXPECT(&k, BAD, "TopKV2 index type int16 cannot hold 40000 columns",
         at_f32(1, D(40000), NULL), at_si32(1));
  at_call bs = {"BatchToSpaceND", NULL, 0, 0, "ukr"};
  EXPECT(&bs, BAD, "input rank should be >= 3 instead of 2", X23,
         at_i32(1, D(2), I32(1, 1)), at_i32(2, D(2, 2), NULL));
  at_attr vc[] = {AT_INT("block_size", 2),
                  AT_STR("data_format", "NCHW_VECT_C"), {NULL}};
  at_call d = {"DepthToSpace", vc, 0, 0, NULL};
  EXPECT(&d, TFS_UNIMPLEMENTED, "DepthToSpace with data_format NCHW_VECT_C "
         "is not supported on CPU", X4);
}

static const tfs_test_case kShape[] = {
    {"squeeze_expand_dims", test_squeeze_expand_dims},
    {"transpose", test_transpose},
    {"concat", test_concat},
    {"pack_unpack", test_pack_unpack},
    {"split", test_split},
    {"slice", test_slice},
    {"strided_slice", test_strided_slice},
    {"pad", test_pad},
    {"tile_broadcast_to", test_tile_broadcast_to},
    {"limits", test_limits},
    {NULL, NULL},
};

static const tfs_test_case kIndex[] = {
    {"gather", test_gather},
    {"gather_nd", test_gather_nd},
    {"scatter_nd", test_scatter_nd},
    {"one_hot", test_one_hot},
    {"range", test_range},
    {"reverse_where_invperm", test_reverse_where_invperm},
    {"top_k_cumsum", test_top_k_cumsum},
    {"depth_space", test_depth_space},
    {"space_batch", test_space_batch},
    {"resize", test_resize},
    {"band_part", test_band_part},
    {"einsum", test_einsum},
    {NULL, NULL},
};

const tfs_test_suite tfs_test_suites[] = {
    {"array_errors_shape", kShape},
    {"array_errors_index", kIndex},
    {NULL, NULL},
};
