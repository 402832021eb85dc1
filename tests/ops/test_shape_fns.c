/*
 * tests/ops/test_shape_fns.c - shape functions on hostile values: axes,
 * batch_dims, dims and sizes anywhere in int64 (attrs, constants,
 * placeholder shapes) are range-checked and overflow-checked while the
 * graph is built, with TensorFlow's messages and the node named; never
 * an out-of-bounds index or a wrapped dim.
 */
#include <stdint.h>
#include <stdlib.h>

#include "testutil.h"

#define BIG (INT64_C(1) << 62)

static tfs_graph *g;
static tfs_status *st;
static tfs_output in[8];
static int nin;

static void begin(void) {
  g = tfs_graph_new();
  st = tfs_status_new();
  nin = 0;
}

static void end(void) {
  tfs_graph_free(g);
  tfs_status_free(st);
}

/* A placeholder input of partial shape dims[0..nd) (nd -1: unknown). */
static void ph(tfs_dtype dt, int nd, const int64_t *dims) {
  char name[16];
  snprintf(name, sizeof name, "in%d", nin);
  in[nin++] = tfs_op_placeholder(g, name, dt, dims, nd, st);
  TFS_ASSERT_OK(st);
}

/* A Const input holding an int32/int64 tensor of shape dims[0..nd). */
static void cst(tfs_dtype dt, int nd, const int64_t *dims, const int64_t *v) {
  char name[16];
  tfs_tensor *t = tfs_tensor_new(dt, dims, nd, st);
  TFS_ASSERT_OK(st);
  for (int64_t i = 0; i < tfs_tensor_num_elements(t); i++) {
    if (dt == TFS_INT64)
      ((int64_t *)tfs_tensor_data(t))[i] = v[i];
    else
      ((int32_t *)tfs_tensor_data(t))[i] = (int32_t)v[i];
  }
  snprintf(name, sizeof name, "in%d", nin);
  in[nin++] = tfs_op_const(g, name, t, st);
  tfs_tensor_free(t);
  TFS_ASSERT_OK(st);
}

static void scalar64(int64_t v) { cst(TFS_INT64, 0, NULL, &v); }

/* The node "n" of type `op` on the inputs so far, inputs
 * [list_at, list_at + list_n) passed as one list. */
static tfs_op_desc *node(const char *op, int list_at, int list_n) {
  tfs_op_desc *d = tfs_op_desc_new(g, op, "n");
  for (int i = 0; i < nin;) {
    if (list_n && i == list_at) {
      tfs_op_desc_add_input_list(d, in + i, list_n);
      i += list_n;
    } else {
      tfs_op_desc_add_input(d, in[i++]);
    }
  }
  return d;
}

/* Finishing d fails with INVALID_ARGUMENT, `needle` and the node named. */
static void expect_error(tfs_op_desc *d, const char *needle) {
  CU_ASSERT_PTR_NULL(tfs_op_desc_finish(d, st));
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT, needle);
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT, "{{node n}}");
  end();
}

/* Finishing d succeeds and output 0 has partial shape dims[0..nd). */
static void expect_shape(tfs_op_desc *d, int nd, const int64_t *dims) {
  tfs_operation *op = tfs_op_desc_finish(d, st);
  TFS_ASSERT_OK(st);
  tfs_output out = {op, 0};
  int got = tfs_graph_tensor_num_dims(g, out, st);
  CU_ASSERT_EQUAL_FATAL(got, nd);
  int64_t have[TFS_MAX_RANK];
  if (nd > 0) tfs_graph_tensor_shape(g, out, have, nd, st);
  for (int i = 0; i < nd; i++) {
    if (have[i] != dims[i])
      fprintf(stderr, "\n  dim %d: got %lld, expected %lld\n", i,
              (long long)have[i], (long long)dims[i]);
    CU_ASSERT_EQUAL(have[i], dims[i]);
  }
  end();
}

#define D(...) ((const int64_t[]){__VA_ARGS__})

/* ---- ConcatV2 / Concat --------------------------------------------------- */

static void test_concat_axis(void) {
  /* an unknown-rank first input used to let any axis through, truncated
   * to int, and dims[axis] was then read with the int64 one */
  begin();
  ph(TFS_FLOAT, -1, NULL);
  ph(TFS_FLOAT, 2, D(2, 3));
  scalar64((INT64_C(1) << 32) + 1);
  expect_error(node("ConcatV2", 0, 2),
               "ConcatOp : Expected concatenating dimensions in the range "
               "[-2, 2), but got 4294967297");
  begin();
  ph(TFS_FLOAT, 2, D(2, 3));
  ph(TFS_FLOAT, -1, NULL);
  scalar64(INT64_MIN);
  expect_error(node("ConcatV2", 0, 2),
               "ConcatOp : Expected concatenating dimensions in the range "
               "[-2, 2), but got -9223372036854775808");
  begin();
  ph(TFS_FLOAT, 2, D(2, 3));
  ph(TFS_FLOAT, 2, D(2, 5));
  scalar64(-3);
  expect_error(node("ConcatV2", 0, 2), "but got -3");
  begin();
  cst(TFS_INT32, 0, NULL, D(2));
  ph(TFS_FLOAT, 2, D(2, 3));
  ph(TFS_FLOAT, 2, D(2, 3));
  expect_error(node("Concat", 1, 2),
               "ConcatOp : Expected concatenating dimensions in the range "
               "[-2, 2), but got 2");
  /* in range: the known inputs give the shape */
  begin();
  ph(TFS_FLOAT, -1, NULL);
  ph(TFS_FLOAT, 2, D(2, 3));
  ph(TFS_FLOAT, 2, D(2, 5));
  scalar64(-1);
  expect_shape(node("ConcatV2", 0, 3), 2, D(2, -1));
  begin();
  ph(TFS_FLOAT, 2, D(2, 3));
  ph(TFS_FLOAT, 2, D(2, 5));
  scalar64(1);
  expect_shape(node("ConcatV2", 0, 2), 2, D(2, 8));
  /* the concatenated dim is added without wrapping */
  begin();
  ph(TFS_FLOAT, 2, D(BIG, 3));
  ph(TFS_FLOAT, 2, D(BIG, 3));
  scalar64(0);
  expect_error(node("ConcatV2", 0, 2),
               "Dimension size overflow from adding 4611686018427387904 and "
               "4611686018427387904");
}

/* ---- GatherV2 ------------------------------------------------------------ */

static tfs_op_desc *gather(int64_t batch_dims) {
  tfs_op_desc *d = node("GatherV2", 0, 0);
  tfs_op_desc_set_attr_int(d, "batch_dims", batch_dims);
  return d;
}

static void test_gather_batch_dims(void) {
  /* an unchecked batch_dims made the output rank anything: int64s were
   * written far past tfs_shape.dims */
  begin();
  ph(TFS_FLOAT, 2, D(2, 3));
  ph(TFS_INT32, 1, D(2));
  ph(TFS_INT32, 0, NULL); /* axis unknown */
  expect_error(gather(-1000), "Expected batch_dims in the range [-1, 1], "
                              "but got -1000");
  begin();
  ph(TFS_FLOAT, 2, D(2, 3));
  ph(TFS_INT32, 1, D(2));
  scalar64(1);
  expect_error(gather(1000), "Expected batch_dims in the range [-1, 1], "
                             "but got 1000");
  begin();
  ph(TFS_FLOAT, 2, D(2, 3));
  ph(TFS_INT32, -1, NULL);
  scalar64(1);
  expect_error(gather(INT64_MIN), "Expected batch_dims in the range [-16, "
                                  "16], but got -9223372036854775808");
  begin();
  ph(TFS_FLOAT, 2, D(2, 3));
  ph(TFS_INT32, 2, D(2, 3));
  ph(TFS_INT32, 0, NULL);
  expect_error(gather(2), "batch_dims (2) must be less than rank(params) "
                          "(2).");
  begin();
  ph(TFS_FLOAT, 3, D(2, 3, 4));
  ph(TFS_INT32, 2, D(2, 5));
  scalar64(0);
  expect_error(gather(1), "batch_dims (1) must be less than or equal to "
                          "axis (0).");
  /* a negative batch_dims counts from rank(indices) */
  begin();
  ph(TFS_FLOAT, 3, D(2, 3, 4));
  ph(TFS_INT32, 2, D(2, 5));
  scalar64(1);
  expect_shape(gather(-1), 3, D(2, 5, 4));
  begin();
  ph(TFS_FLOAT, 3, D(2, 3, 4));
  ph(TFS_INT32, 2, D(2, 5));
  ph(TFS_INT32, 0, NULL);
  expect_shape(gather(-1), 3, D(-1, -1, -1));
  /* the output rank stays within TFS_MAX_RANK */
  int64_t ones[16];
  for (int i = 0; i < 16; i++) ones[i] = 1;
  begin();
  ph(TFS_FLOAT, 16, ones);
  ph(TFS_INT32, 16, ones);
  ph(TFS_INT32, 0, NULL);
  expect_error(gather(0), "Result has more than 16 dimensions");
}

static void test_gather_axis(void) {
  begin();
  ph(TFS_FLOAT, 2, D(2, 3));
  ph(TFS_INT32, 1, D(2));
  scalar64((INT64_C(1) << 32) + 1);
  expect_error(gather(0), "Shape must be at least rank 4294967298 but is "
                          "rank 2");
  begin();
  ph(TFS_FLOAT, 2, D(2, 3));
  ph(TFS_INT32, 1, D(2));
  scalar64(INT64_MIN);
  expect_error(gather(0), "Shape must be at least rank 9223372036854775808 "
                          "but is rank 2");
  begin();
  ph(TFS_FLOAT, 2, D(2, 3));
  ph(TFS_INT32, 1, D(5));
  scalar64(-1);
  expect_shape(gather(0), 2, D(2, 5));
}

/* ---- OneHot -------------------------------------------------------------- */

static void one_hot_inputs(int nd, const int64_t *dims) {
  ph(TFS_INT32, nd, dims);
  cst(TFS_INT32, 0, NULL, D(4));
  ph(TFS_FLOAT, 0, NULL);
  ph(TFS_FLOAT, 0, NULL);
}

static tfs_op_desc *one_hot(int64_t axis) {
  tfs_op_desc *d = node("OneHot", 0, 0);
  tfs_op_desc_set_attr_int(d, "axis", axis);
  return d;
}

static void test_one_hot_axis(void) {
  begin();
  one_hot_inputs(1, D(3));
  expect_error(one_hot(INT64_MAX), "Expected axis to be -1 or between [0, "
                                   "2).  But received: "
                                   "9223372036854775807");
  begin();
  one_hot_inputs(1, D(3));
  expect_error(one_hot(2), "Expected axis to be -1 or between [0, 2).  But "
                           "received: 2");
  begin();
  one_hot_inputs(1, D(3));
  expect_error(one_hot(INT64_MIN), "axis must be >= -1");
  begin();
  one_hot_inputs(1, D(3));
  expect_shape(one_hot(-1), 2, D(3, 4));
  begin();
  one_hot_inputs(1, D(3));
  expect_shape(one_hot(1), 2, D(3, 4));
  begin();
  one_hot_inputs(1, D(3));
  expect_shape(one_hot(0), 2, D(4, 3));
  begin();
  one_hot_inputs(2, D(3, 5));
  expect_shape(one_hot(1), 3, D(3, 4, 5));
}

/* ---- the other shape functions that index or size with values -------- */

static void test_split_slice_pad_tile(void) {
  begin();
  ph(TFS_FLOAT, 1, D(8));
  cst(TFS_INT64, 1, D(2), D(BIG, BIG));
  cst(TFS_INT32, 0, NULL, D(0));
  tfs_op_desc *d = node("SplitV", 0, 0);
  tfs_op_desc_set_attr_int(d, "num_split", 2);
  expect_error(d, "Dimension size overflow from adding 4611686018427387904 "
                  "and 4611686018427387904");
  begin();
  ph(TFS_FLOAT, 1, D(8));
  cst(TFS_INT64, 1, D(2), D(-5, 2));
  cst(TFS_INT32, 0, NULL, D(0));
  d = node("SplitV", 0, 0);
  tfs_op_desc_set_attr_int(d, "num_split", 2);
  expect_error(d, "Split size at index 0 must be >= 0. Got: -5");
  /* a begin vector of 2^32 + 2 elements does not pass for rank 2 */
  begin();
  ph(TFS_FLOAT, 2, D(2, 3));
  ph(TFS_INT64, 1, D((INT64_C(1) << 32) + 2));
  ph(TFS_INT64, 1, D(-1));
  expect_error(node("Slice", 0, 0), "Shape must be rank 4294967298 but is "
                                    "rank 2");
  begin();
  ph(TFS_FLOAT, 1, D(1));
  cst(TFS_INT64, 2, D(1, 2), D(BIG, BIG));
  expect_error(node("Pad", 0, 0), "Dimension size overflow from adding "
                                  "4611686018427387904 and "
                                  "4611686018427387904");
  begin();
  ph(TFS_FLOAT, 1, D(BIG));
  cst(TFS_INT32, 1, D(1), D(4));
  expect_error(node("Tile", 0, 0), "Negative dimension size caused by "
                                   "overflow when multiplying "
                                   "4611686018427387904 and 4");
  begin();
  ph(TFS_FLOAT, 1, D(3));
  cst(TFS_INT64, 1, D(1), D(INT64_MAX));
  cst(TFS_INT64, 1, D(1), D(INT64_MAX));
  cst(TFS_INT64, 1, D(1), D(1));
  d = node("StridedSlice", 0, 0);
  tfs_op_desc_set_attr_int(d, "shrink_axis_mask", 1);
  expect_error(d, "slice index 9223372036854775807 of dimension 0 out of "
                  "bounds.");
}

static void test_rearranging_ops(void) {
  begin();
  ph(TFS_FLOAT, 4, D(BIG, 4, 4, 1));
  cst(TFS_INT32, 1, D(2), D(4, 1));
  cst(TFS_INT32, 2, D(2, 2), D(0, 0, 0, 0));
  expect_error(node("SpaceToBatchND", 0, 0),
               "Negative dimension size caused by overflow when multiplying "
               "4611686018427387904 and 4");
  begin();
  ph(TFS_FLOAT, 4, D(4, BIG, 1, 1));
  cst(TFS_INT32, 1, D(2), D(4, 1));
  cst(TFS_INT32, 2, D(2, 2), D(0, 0, 0, 0));
  expect_error(node("BatchToSpaceND", 0, 0),
               "Negative dimension size caused by overflow when multiplying "
               "4611686018427387904 and 4");
  begin();
  ph(TFS_FLOAT, 4, D(1, 2, 2, 4));
  tfs_op_desc *d = node("DepthToSpace", 0, 0);
  tfs_op_desc_set_attr_int(d, "block_size", INT64_C(1) << 32);
  expect_error(d, "Negative dimension size caused by overflow when "
                  "multiplying 4294967296 and 4294967296");
  begin();
  ph(TFS_FLOAT, 4, D(1, 2, 2, BIG));
  d = node("SpaceToDepth", 0, 0);
  tfs_op_desc_set_attr_int(d, "block_size", 2);
  expect_error(d, "Negative dimension size caused by overflow when "
                  "multiplying 4611686018427387904 and 2");
  /* an innermost index dim past int (it was truncated, then indexed) */
  begin();
  ph(TFS_INT32, 2, D(1, INT64_C(1) << 31));
  ph(TFS_FLOAT, 2, D(1, 5));
  cst(TFS_INT32, 1, D(1), D(3));
  expect_error(node("ScatterNd", 0, 0),
               "Dimensions [2147483648,1) of input[shape=[3]] = [] must "
               "match dimensions [1,2) of updates[shape=[1,5]] = [5]");
}

static void test_convolutions(void) {
  static const int64_t ones[4] = {1, 1, 1, 1};
  begin();
  ph(TFS_FLOAT, 4, D(1, 4, 4, BIG));
  ph(TFS_FLOAT, 4, D(1, 1, BIG, 4));
  tfs_op_desc *d = node("DepthwiseConv2dNative", 0, 0);
  tfs_op_desc_set_attr_int_list(d, "strides", ones, 4);
  tfs_op_desc_set_attr_string(d, "padding", "VALID", 5);
  expect_error(d, "Negative dimension size caused by overflow when "
                  "multiplying 4611686018427387904 and 4");
  /* a dilated filter, and explicit paddings, past INT64_MAX */
  begin();
  ph(TFS_FLOAT, 4, D(1, BIG, 4, 1));
  ph(TFS_FLOAT, 4, D(INT64_C(1) << 61, 1, 1, 1));
  d = node("Conv2D", 0, 0);
  tfs_op_desc_set_attr_int_list(d, "strides", ones, 4);
  tfs_op_desc_set_attr_int_list(d, "dilations", D(1, 8, 1, 1), 4);
  tfs_op_desc_set_attr_string(d, "padding", "VALID", 5);
  expect_error(d, "Negative dimension size caused by overflow when "
                  "multiplying 2305843009213693951 and 8");
  begin();
  ph(TFS_FLOAT, 4, D(1, BIG, 4, 1));
  ph(TFS_FLOAT, 4, D(1, 1, 1, 1));
  d = node("Conv2D", 0, 0);
  tfs_op_desc_set_attr_int_list(d, "strides", ones, 4);
  tfs_op_desc_set_attr_string(d, "padding", "EXPLICIT", 8);
  tfs_op_desc_set_attr_int_list(d, "explicit_paddings",
                                D(0, 0, BIG, BIG, 0, 0, 0, 0), 8);
  expect_error(d, "Dimension size overflow from adding 4611686018427387904 "
                  "and 4611686018427387904 + 4611686018427387904");
  /* shapes unknown until the run: the kernel's window arithmetic checks
   * the same sums */
  begin();
  ph(TFS_FLOAT, -1, NULL);
  ph(TFS_FLOAT, 4, D(1, 1, 1, 1));
  d = node("Conv2D", 0, 0);
  tfs_op_desc_set_attr_int_list(d, "strides", ones, 4);
  tfs_op_desc_set_attr_string(d, "padding", "EXPLICIT", 8);
  tfs_op_desc_set_attr_int_list(d, "explicit_paddings",
                                D(0, 0, BIG, BIG, 0, 0, 0, 0), 8);
  tfs_output conv = {tfs_op_desc_finish(d, st), 0};
  TFS_ASSERT_OK(st);
  tfs_session *s = tfs_session_new(g, NULL, st);
  TFS_ASSERT_OK(st);
  tfs_tensor *feeds[2] = {tfs_tensor_new(TFS_FLOAT, D(1, 2, 2, 1), 4, st),
                          tfs_tensor_new(TFS_FLOAT, D(1, 1, 1, 1), 4, st)};
  char msg[512];
  CU_ASSERT_EQUAL(tu_run_error(s, conv, in, feeds, 2, msg, sizeof msg),
                  TFS_INVALID_ARGUMENT);
  if (!strstr(msg, "Dimension size overflow from adding 2 and "
                   "4611686018427387904 + 4611686018427387904"))
    fprintf(stderr, "\n  got: %s\n", msg);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "Dimension size overflow from adding 2 "
                                     "and 4611686018427387904 + "
                                     "4611686018427387904"));
  tfs_tensor_free(feeds[0]);
  tfs_tensor_free(feeds[1]);
  tfs_session_free(s);
  end();
  begin();
  ph(TFS_FLOAT, 4, D(1, INT64_MAX, 4, 1));
  ph(TFS_FLOAT, 4, D(1, 1, 1, 1));
  d = node("Conv2D", 0, 0);
  tfs_op_desc_set_attr_int_list(d, "strides", D(1, 3, 1, 1), 4);
  tfs_op_desc_set_attr_string(d, "padding", "SAME", 4);
  expect_shape(d, 4, D(1, INT64_MAX / 3 + 1, 4, 1));
}

/* Image ops: sizes from constant scalars and vectors are checked while
 * the graph is built; negative crop sizes leave the dims unknown. */
static void test_image_sizes(void) {
  int64_t v;
  begin();
  ph(TFS_FLOAT, 2, D(6, 4));
  ph(TFS_FLOAT, 1, D(6));
  v = -1;
  cst(TFS_INT32, 0, NULL, &v);
  ph(TFS_FLOAT, 0, NULL);
  ph(TFS_FLOAT, 0, NULL);
  tfs_op_desc *d = node("NonMaxSuppressionV4", 0, 0);
  tfs_op_desc_set_attr_bool(d, "pad_to_max_output_size", 1);
  expect_error(d, "Dimension size, given by scalar input 2, must be "
                  "non-negative but is -1");
  begin();
  ph(TFS_FLOAT, 2, D(6, 4));
  ph(TFS_FLOAT, 1, D(6));
  v = INT32_MAX;
  cst(TFS_INT32, 0, NULL, &v);
  ph(TFS_FLOAT, 0, NULL);
  ph(TFS_FLOAT, 0, NULL);
  d = node("NonMaxSuppressionV4", 0, 0);
  tfs_op_desc_set_attr_bool(d, "pad_to_max_output_size", 1);
  expect_shape(d, 1, D(INT32_MAX));
  begin();
  ph(TFS_FLOAT, 2, D(6, 5));
  ph(TFS_FLOAT, 1, D(6));
  cst(TFS_INT32, 0, NULL, &v);
  ph(TFS_FLOAT, 0, NULL);
  ph(TFS_FLOAT, 0, NULL);
  expect_error(node("NonMaxSuppressionV3", 0, 0),
               "Dimension must be 4 but is 5");
  /* CombinedNonMaxSuppression: pad_per_class caps the size at
   * per_class * classes, computed without overflow */
  begin();
  ph(TFS_FLOAT, 4, D(2, 5, 1, 4));
  ph(TFS_FLOAT, 3, D(2, 5, BIG));
  v = INT32_MAX;
  cst(TFS_INT32, 0, NULL, &v);
  cst(TFS_INT32, 0, NULL, &v);
  ph(TFS_FLOAT, 0, NULL);
  ph(TFS_FLOAT, 0, NULL);
  d = node("CombinedNonMaxSuppression", 0, 0);
  tfs_op_desc_set_attr_bool(d, "pad_per_class", 1);
  expect_shape(d, 3, D(2, INT32_MAX, 4));
  begin();
  ph(TFS_FLOAT, 4, D(2, 5, 1, 4));
  ph(TFS_FLOAT, 3, D(2, 5, 3));
  v = 2;
  cst(TFS_INT32, 0, NULL, &v);
  v = 0;
  cst(TFS_INT32, 0, NULL, &v);
  ph(TFS_FLOAT, 0, NULL);
  ph(TFS_FLOAT, 0, NULL);
  expect_error(node("CombinedNonMaxSuppression", 0, 0),
               "max_total_size should be > 0");
  /* CropAndResize: a negative crop size is an unknown dim */
  begin();
  ph(TFS_FLOAT, 4, D(1, 8, 8, 3));
  ph(TFS_FLOAT, 2, D(BIG, 4));
  ph(TFS_INT32, 1, D(-1));
  cst(TFS_INT32, 1, D(2), D(-5, INT32_MAX));
  expect_shape(node("CropAndResize", 0, 0), 4, D(BIG, -1, INT32_MAX, 3));
  begin();
  ph(TFS_FLOAT, 4, D(1, 8, 8, 3));
  ph(TFS_FLOAT, 2, D(4, 4));
  ph(TFS_INT32, 1, D(3));
  cst(TFS_INT32, 1, D(2), D(2, 2));
  expect_error(node("CropAndResize", 0, 0),
               "Dimensions must be equal, but are 4 and 3");
}

static const tfs_test_case cases[] = {
    {"concat_axis", test_concat_axis},
    {"gather_batch_dims", test_gather_batch_dims},
    {"gather_axis", test_gather_axis},
    {"one_hot_axis", test_one_hot_axis},
    {"split_slice_pad_tile", test_split_slice_pad_tile},
    {"rearranging_ops", test_rearranging_ops},
    {"convolutions", test_convolutions},
    {"image_sizes", test_image_sizes},
    {NULL, NULL}};

const tfs_test_suite tfs_test_suites[] = {{"shape_fns", cases},
                                          {NULL, NULL}};
