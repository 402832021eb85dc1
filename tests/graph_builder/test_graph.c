/*
 * tests/graph_builder/test_graph.c - building graphs: the operation builder
 * and its TensorFlow error messages, lookups, iteration, scopes, shape
 * inference and operation/attribute queries.
 */
#include <stdlib.h>

#include "testutil.h"

static tfs_graph *g;
static tfs_status *st;

static void setup(void) {
  g = tfs_graph_new();
  st = tfs_status_new();
}

static void teardown(void) {
  tfs_graph_free(g);
  tfs_status_free(st);
}

static tfs_output ph(const char *name, tfs_dtype dt, const int64_t *dims,
                     int nd) {
  tfs_output o = tfs_op_placeholder(g, name, dt, dims, nd, st);
  TFS_ASSERT_OK(st);
  return o;
}

/* ---- lookups and iteration ------------------------------------------------ */

static void test_lookup_and_iteration(void) {
  setup();
  tfs_output a = ph("a", TFS_FLOAT, NULL, 0);
  tfs_output b = ph("b", TFS_FLOAT, NULL, 0);
  tfs_output c = tfs_op_add(g, "c", a, b, st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_EQUAL(tfs_graph_num_operations(g), 3);
  CU_ASSERT_PTR_EQUAL(tfs_graph_operation_by_name(g, "c"), c.oper);
  CU_ASSERT_PTR_NULL(tfs_graph_operation_by_name(g, "nope"));
  CU_ASSERT_PTR_NULL(tfs_graph_operation_by_name(g, NULL));
  size_t pos = 0;
  const char *order[3] = {"a", "b", "c"};
  for (int i = 0; i < 3; i++) {
    tfs_operation *op = tfs_graph_next_operation(g, &pos);
    CU_ASSERT_STRING_EQUAL(tfs_operation_name(op), order[i]);
    CU_ASSERT_EQUAL(pos, (size_t)i + 1);
  }
  CU_ASSERT_PTR_NULL(tfs_graph_next_operation(g, &pos));
  tfs_output o = tfs_graph_output_by_name(g, "c:0", st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_PTR_EQUAL(o.oper, c.oper);
  o = tfs_graph_output_by_name(g, "c", st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_EQUAL(o.index, 0);
  o = tfs_graph_output_by_name(g, "c:3", st);
  CU_ASSERT_PTR_NULL(o.oper);
  TFS_ASSERT_MESSAGE(st, "The name 'c:3' refers to a Tensor which does not "
                         "exist. The operation, 'c', exists but only has 1 "
                         "outputs.");
  o = tfs_graph_output_by_name(g, "zz:0", st);
  TFS_ASSERT_ERROR(st, TFS_NOT_FOUND,
                   "The name 'zz:0' refers to an Operation not in the graph.");
  o = tfs_graph_output_by_name(g, "c:x", st);
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT, "'c:x' is not a valid tensor name");
  teardown();
}

static void test_scopes_and_unique_names(void) {
  setup();
  tfs_output a = ph("a", TFS_FLOAT, NULL, 0);
  tfs_graph_push_scope(g, "layer1", st);
  TFS_ASSERT_OK(st);
  tfs_output x = tfs_op_add(g, NULL, a, a, st);
  tfs_output y = tfs_op_add(g, NULL, a, a, st);
  CU_ASSERT_STRING_EQUAL(tfs_operation_name(x.oper), "layer1/AddV2");
  CU_ASSERT_STRING_EQUAL(tfs_operation_name(y.oper), "layer1/AddV2_1");
  tfs_graph_push_scope(g, "inner", st);
  char *n = tfs_graph_unique_name(g, "w");
  CU_ASSERT_STRING_EQUAL(n, "layer1/inner/w");
  free(n);
  n = tfs_graph_unique_name(g, "w");
  CU_ASSERT_STRING_EQUAL(n, "layer1/inner/w_1");
  free(n);
  tfs_graph_pop_scope(g);
  tfs_graph_pop_scope(g);
  tfs_graph_pop_scope(g); /* extra pops are harmless */
  n = tfs_graph_unique_name(g, "a"); /* taken by an op */
  CU_ASSERT_STRING_EQUAL(n, "a_1");
  free(n);
  tfs_graph_push_scope(g, "", st);
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT, "invalid argument");
  teardown();
}

/* ---- builder errors (TensorFlow's NodeDefBuilder wording) ---------------- */

static void test_unknown_op(void) {
  setup();
  tfs_op_desc *d = tfs_op_desc_new(g, "Bogus", "b");
  CU_ASSERT_PTR_NULL(tfs_op_desc_finish(d, st));
  TFS_ASSERT_ERROR(st, TFS_NOT_FOUND, "Op type not registered 'Bogus' in "
                                      "binary running on ");
  TFS_ASSERT_ERROR(st, TFS_NOT_FOUND, "Make sure the Op and Kernel are "
                                      "registered in the binary running in "
                                      "this process.");
  TFS_ASSERT_ERROR(st, TFS_NOT_FOUND, "while building NodeDef 'b'");
  CU_ASSERT_EQUAL(tfs_graph_num_operations(g), 0);
  teardown();
}

static void test_duplicate_name(void) {
  setup();
  ph("a", TFS_FLOAT, NULL, 0);
  tfs_op_placeholder(g, "a", TFS_FLOAT, NULL, 0, st);
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT, "Duplicate node name in graph: 'a'");
  TFS_ASSERT_MESSAGE(st, "Duplicate node name in graph: 'a'");
  CU_ASSERT_EQUAL(tfs_graph_num_operations(g), 1);
  teardown();
}

static void test_inconsistent_type_attr(void) {
  setup();
  tfs_output a = ph("a", TFS_FLOAT, NULL, 0);
  tfs_output b = ph("b", TFS_INT32, NULL, 0);
  tfs_op_mul(g, "mul", a, b, st);
  TFS_ASSERT_MESSAGE(
      st,
      "Inconsistent values for attr 'T' DT_FLOAT vs. DT_INT32 while building "
      "NodeDef 'mul' using Op<name=Mul; signature=x:T, y:T -> z:T; "
      "attr=T:type,allowed=[DT_BFLOAT16, DT_HALF, DT_FLOAT, DT_DOUBLE, "
      "DT_UINT8, DT_INT8, DT_UINT16, DT_INT16, DT_INT32, DT_UINT32, "
      "DT_UINT64, DT_INT64, DT_COMPLEX64, DT_COMPLEX128]; "
      "is_commutative=true>");
  CU_ASSERT_EQUAL(tfs_status_code(st), TFS_INVALID_ARGUMENT);
  /* an explicit attr set first conflicts with the inferred one */
  tfs_op_desc *d = tfs_op_desc_new(g, "Mul", "mul2");
  tfs_op_desc_set_attr_type(d, "T", TFS_INT32);
  tfs_op_desc_add_input(d, a);
  tfs_op_desc_add_input(d, a);
  CU_ASSERT_PTR_NULL(tfs_op_desc_finish(d, st));
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT,
                   "Inconsistent values for attr 'T' DT_INT32 vs. DT_FLOAT");
  CU_ASSERT_EQUAL(tfs_graph_num_operations(g), 2);
  teardown();
}

static void test_fixed_type_input_mismatch(void) {
  setup();
  tfs_output f = ph("f", TFS_FLOAT, NULL, 0);
  tfs_op_assert(g, "check", f, &f, 1, st);
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT,
                   "Input 'condition' passed float expected bool while "
                   "building NodeDef 'check' using Op<name=Assert; "
                   "signature=condition:bool, data:T -> ; "
                   "attr=T:list(type),min=1; attr=summarize:int,default=3; "
                   "is_stateful=true>");
  teardown();
}

static void test_input_count_errors(void) {
  setup();
  tfs_output a = ph("a", TFS_FLOAT, NULL, 0);
  tfs_op_desc *d = tfs_op_desc_new(g, "AddV2", "one");
  tfs_op_desc_add_input(d, a);
  CU_ASSERT_PTR_NULL(tfs_op_desc_finish(d, st));
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT,
                   "1 inputs specified of 2 inputs in Op while building "
                   "NodeDef 'one' using Op<name=AddV2;");
  d = tfs_op_desc_new(g, "Neg", "three");
  tfs_op_desc_add_input(d, a);
  tfs_op_desc_add_input(d, a);
  CU_ASSERT_PTR_NULL(tfs_op_desc_finish(d, st));
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT,
                   "More Input() calls than the 1 input_args while building "
                   "NodeDef 'three'");
  /* two problems are listed together */
  d = tfs_op_desc_new(g, "Neg", "two_errors");
  tfs_op_desc_add_input(d, a);
  tfs_op_desc_add_input(d, a);
  tfs_op_desc_add_input(d, a);
  CU_ASSERT_PTR_NULL(tfs_op_desc_finish(d, st));
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT,
                   "2 errors while building NodeDef 'two_errors' using "
                   "Op<name=Neg;");
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT,
                   ":\nMore Input() calls than the 1 input_args\nMore Input() "
                   "calls than the 1 input_args");
  CU_ASSERT_EQUAL(tfs_graph_num_operations(g), 1);
  teardown();
}

static void test_list_vs_single(void) {
  setup();
  tfs_output a = ph("a", TFS_FLOAT, NULL, 0);
  tfs_output b = ph("b", TFS_BOOL, NULL, 0);
  tfs_op_desc *d = tfs_op_desc_new(g, "Assert", "s");
  tfs_op_desc_add_input(d, b);
  tfs_op_desc_add_input(d, a);
  CU_ASSERT_PTR_NULL(tfs_op_desc_finish(d, st));
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT,
                   "Single tensor passed to 'data', expected list");
  d = tfs_op_desc_new(g, "Neg", "l");
  tfs_op_desc_add_input_list(d, &a, 1);
  CU_ASSERT_PTR_NULL(tfs_op_desc_finish(d, st));
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT,
                   "List provided to input 'x' when single Tensor expected");
  /* an empty list violates the minimum length of the list(type) attr */
  d = tfs_op_desc_new(g, "Assert", "empty");
  tfs_op_desc_add_input(d, b);
  tfs_op_desc_add_input_list(d, NULL, 0);
  CU_ASSERT_PTR_NULL(tfs_op_desc_finish(d, st));
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT,
                   "Length for attr 'T' of 0 must be at least minimum 1\n\t; "
                   "NodeDef: {{node empty}}; Op<name=Assert;");
  teardown();
}

static void test_attr_validation(void) {
  setup();
  /* missing required attr */
  tfs_op_desc *d = tfs_op_desc_new(g, "Placeholder", "p");
  CU_ASSERT_PTR_NULL(tfs_op_desc_finish(d, st));
  TFS_ASSERT_MESSAGE(st, "NodeDef missing attr 'dtype' from "
                         "Op<name=Placeholder; signature= -> output:dtype; "
                         "attr=dtype:type; "
                         "attr=shape:shape,default=<unknown>>; NodeDef: "
                         "{{node p}}");
  /* an attr the op does not have: kept and ignored (TensorFlow 2.18 on
   * logs "NodeDef mentions attribute bogus which is not in the op
   * definition" and goes on) */
  d = tfs_op_desc_new(g, "Placeholder", "p_bogus");
  tfs_op_desc_set_attr_type(d, "dtype", TFS_FLOAT);
  tfs_op_desc_set_attr_int(d, "bogus", 1);
  tfs_operation *bogus = tfs_op_desc_finish(d, st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_PTR_NOT_NULL_FATAL(bogus);
  CU_ASSERT_EQUAL(tfs_operation_attr_int(bogus, "bogus", st), 1);
  TFS_ASSERT_OK(st);
  /* `_` attrs are always allowed */
  d = tfs_op_desc_new(g, "Placeholder", "p");
  tfs_op_desc_set_attr_type(d, "dtype", TFS_FLOAT);
  tfs_op_desc_set_attr_string(d, "_note", "hi", 2);
  CU_ASSERT_PTR_NOT_NULL(tfs_op_desc_finish(d, st));
  TFS_ASSERT_OK(st);
  /* wrong kind */
  d = tfs_op_desc_new(g, "Placeholder", "q");
  tfs_op_desc_set_attr_int(d, "dtype", 1);
  CU_ASSERT_PTR_NULL(tfs_op_desc_finish(d, st));
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT,
                   "AttrValue had value with type 'int' when 'type' "
                   "expected\n\t for attr 'dtype'\n\t; NodeDef: {{node q}}");
  /* dtype not allowed */
  tfs_output i = ph("i", TFS_INT32, NULL, 0);
  tfs_op_unary(g, "Sqrt", "sq", i, st);
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT,
                   "Value for attr 'T' of int32 is not in the list of allowed "
                   "values: bfloat16, half, float, double, complex64, "
                   "complex128\n\t; NodeDef: {{node sq}}; Op<name=Sqrt;");
  /* string not allowed */
  int64_t d2[2] = {2, 3}, d1[1] = {3};
  tfs_output v = ph("v", TFS_FLOAT, d2, 2);
  tfs_output bias = ph("bias", TFS_FLOAT, d1, 1);
  d = tfs_op_desc_new(g, "BiasAdd", "ba");
  tfs_op_desc_add_input(d, v);
  tfs_op_desc_add_input(d, bias);
  tfs_op_desc_set_attr_string(d, "data_format", "NCDHW", 5);
  CU_ASSERT_PTR_NULL(tfs_op_desc_finish(d, st));
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT,
                   "Value for attr 'data_format' of \"NCDHW\" is not in the "
                   "list of allowed values: \"NHWC\", \"NCHW\"");
  /* a type attr that is not a data type */
  d = tfs_op_desc_new(g, "Placeholder", "bad_dtype");
  tfs_op_desc_set_attr_type(d, "dtype", (tfs_dtype)77);
  CU_ASSERT_PTR_NULL(tfs_op_desc_finish(d, st));
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT,
                   "Value for attr 'dtype' of 77 is not a valid data type");
  teardown();
}

static void test_ref_inputs(void) {
  setup();
  tfs_output v = tfs_op_variable(g, "v", TFS_FLOAT, NULL, 0, st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_EQUAL(tfs_operation_output_type(v),
                  (tfs_dtype)(TFS_FLOAT + TFS_DTYPE_REF_OFFSET));
  tfs_output f = ph("f", TFS_FLOAT, NULL, 0);
  tfs_op_assign(g, "bad", f, f, st);
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT,
                   "Input 'ref' passed float expected ref type while "
                   "building NodeDef 'bad'");
  tfs_output ok = tfs_op_assign(g, "ok", v, f, st);
  TFS_ASSERT_OK(st);
  /* a ref output feeds a non-ref input */
  tfs_op_add(g, "use", v, f, st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_EQUAL(tfs_operation_output_type(ok),
                  (tfs_dtype)(TFS_FLOAT + TFS_DTYPE_REF_OFFSET));
  teardown();
}

static void test_invalid_input_port(void) {
  setup();
  tfs_output a = ph("a", TFS_FLOAT, NULL, 0);
  tfs_output bad = {a.oper, 3};
  tfs_op_add(g, "x", a, bad, st);
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT,
                   "Node 'x': Connecting to invalid output 3 of source node "
                   "a which has 1 outputs.");
  tfs_output none = {NULL, 0};
  tfs_op_desc *d = tfs_op_desc_new(g, "Neg", "n");
  tfs_op_desc_add_input(d, none);
  CU_ASSERT_PTR_NULL(tfs_op_desc_finish(d, st));
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT, "Empty input node name");
  CU_ASSERT_PTR_NULL(tfs_op_desc_finish(NULL, st));
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT, "invalid argument");
  tfs_op_desc_free(tfs_op_desc_new(g, "Neg", "freed"));
  tfs_op_desc_free(NULL);
  CU_ASSERT_PTR_NULL(tfs_graph_operation_by_name(g, "freed"));
  teardown();
}

static void test_builders_chain_after_failure(void) {
  setup();
  tfs_output a = ph("a", TFS_FLOAT, NULL, 0);
  tfs_output bad = tfs_op_unary(g, "Bogus", "b", a, st);
  CU_ASSERT_PTR_NULL(bad.oper);
  tfs_code code = tfs_status_code(st);
  tfs_output c = tfs_op_add(g, "c", bad, a, st);
  CU_ASSERT_PTR_NULL(c.oper);
  CU_ASSERT_EQUAL(tfs_status_code(st), code); /* the first error stays */
  TFS_ASSERT_ERROR(st, TFS_NOT_FOUND, "'Bogus'");
  CU_ASSERT_EQUAL(tfs_graph_num_operations(g), 1);
  teardown();
}

/* ---- shape inference --------------------------------------------------------- */

static void assert_shape(tfs_output o, int rank, const int64_t *want) {
  int r = tfs_graph_tensor_num_dims(g, o, st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_EQUAL_FATAL(r, rank);
  if (rank <= 0) return;
  int64_t dims[16];
  tfs_graph_tensor_shape(g, o, dims, rank, st);
  TFS_ASSERT_OK(st);
  for (int i = 0; i < rank; i++) CU_ASSERT_EQUAL(dims[i], want[i]);
}

static void test_shape_inference(void) {
  setup();
  int64_t xd[2] = {-1, 3}, wd[2] = {3, 4};
  tfs_output x = ph("x", TFS_FLOAT, xd, 2);
  tfs_output w = ph("w", TFS_FLOAT, wd, 2);
  tfs_output u = ph("u", TFS_FLOAT, NULL, -1);
  assert_shape(u, -1, NULL);
  tfs_output mm = tfs_op_matmul(g, "mm", x, w, 0, 0, st);
  int64_t want[2] = {-1, 4};
  assert_shape(mm, 2, want);
  tfs_output mt = tfs_op_matmul(g, "mt", w, w, 1, 0, st);
  int64_t want2[2] = {4, 4};
  assert_shape(mt, 2, want2);
  /* broadcasting */
  int64_t bd[1] = {4};
  tfs_output b = ph("b", TFS_FLOAT, bd, 1);
  tfs_output sum = tfs_op_add(g, "s", mm, b, st);
  assert_shape(sum, 2, want);
  /* reshape with -1 from a constant */
  int32_t shape_vals[2] = {-1, 2};
  int64_t sd[1] = {2};
  tfs_tensor *sv = tu_int32s(sd, 1, shape_vals);
  tfs_output shape_c = tfs_op_const(g, "shape", sv, st);
  tfs_tensor_free(sv);
  tfs_output r = tfs_op_reshape(g, "r", w, shape_c, st);
  int64_t want3[2] = {6, 2};
  assert_shape(r, 2, want3);
  /* reductions */
  int32_t axis_val[1] = {1};
  int64_t ad[1] = {1};
  tfs_tensor *av = tu_int32s(ad, 1, axis_val);
  tfs_output axis = tfs_op_const(g, "axis", av, st);
  tfs_tensor_free(av);
  tfs_output s1 = tfs_op_sum(g, "sum", x, axis, 0, st);
  int64_t want4[1] = {-1};
  assert_shape(s1, 1, want4);
  tfs_output s2 = tfs_op_mean(g, "mean", x, axis, 1, st);
  int64_t want5[2] = {-1, 1};
  assert_shape(s2, 2, want5);
  /* Shape and Fill */
  tfs_output shp = tfs_op_shape(g, "shp", w, st);
  int64_t want6[1] = {2};
  assert_shape(shp, 1, want6);
  tfs_output fill = tfs_op_fill(g, "fill", shp, tfs_op_const_float(g, "one", 1, st), st);
  assert_shape(fill, 2, wd);
  /* rank queries */
  tfs_graph_tensor_shape(g, mm, NULL, 3, st);
  TFS_ASSERT_MESSAGE(st, "Expected rank is 3 but actual rank is 2");
  tfs_output bad = {mm.oper, 5};
  tfs_graph_tensor_num_dims(g, bad, st);
  TFS_ASSERT_ERROR(st, TFS_OUT_OF_RANGE, "has 1 outputs but the output index is 5");
  teardown();
}

static void test_shape_inference_errors(void) {
  setup();
  int64_t ad[2] = {2, 3}, bd[2] = {4, 5};
  tfs_output a = ph("a", TFS_FLOAT, ad, 2);
  tfs_output b = ph("b", TFS_FLOAT, bd, 2);
  tfs_op_matmul(g, "mm", a, b, 0, 0, st);
  TFS_ASSERT_MESSAGE(
      st, "Dimensions must be equal, but are 3 and 4 for '{{node mm}} = "
          "MatMul[T=DT_FLOAT, grad_a=false, grad_b=false, transpose_a=false, "
          "transpose_b=false](a, b)' with input shapes: [2,3], [4,5].");
  int64_t cd[1] = {4};
  tfs_output c = ph("c", TFS_FLOAT, cd, 1);
  tfs_op_add(g, "add", a, c, st);
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT,
                   "Dimensions must be equal, but are 3 and 4 for '{{node "
                   "add}} = AddV2[T=DT_FLOAT](a, c)' with input shapes: "
                   "[2,3], [4].");
  int64_t vd[1] = {3};
  tfs_output v = ph("v", TFS_FLOAT, vd, 1);
  tfs_op_matmul(g, "mv", a, v, 0, 0, st);
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT,
                   "Shape must be rank 2 but is rank 1 for '{{node mv}}");
  int32_t sv[1] = {4};
  int64_t sd[1] = {1};
  tfs_tensor *t = tu_int32s(sd, 1, sv);
  tfs_output shape = tfs_op_const(g, "target", t, st);
  tfs_tensor_free(t);
  tfs_op_reshape(g, "rs", a, shape, st);
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT,
                   "Cannot reshape a tensor with 6 elements to shape [4] (4 "
                   "elements) for '{{node rs}}");
  CU_ASSERT_EQUAL(tfs_graph_num_operations(g), 5);
  teardown();
}

/* ---- operation and attribute queries --------------------------------------- */

static void test_operation_queries(void) {
  setup();
  tfs_output a = ph("a", TFS_FLOAT, NULL, 0);
  tfs_output b = ph("b", TFS_BOOL, NULL, 0);
  tfs_operation *grp = tfs_op_group(g, "grp", &a.oper, 1, st);
  tfs_op_desc *d = tfs_op_desc_new(g, "Assert", "chk");
  tfs_op_desc_add_input(d, b);
  tfs_output data[3] = {a, a, b};
  tfs_op_desc_add_input_list(d, data, 3);
  tfs_op_desc_add_control_input(d, grp);
  tfs_op_desc_set_device(d, "/cpu:0");
  tfs_op_desc_colocate_with(d, a.oper);
  tfs_operation *chk = tfs_op_desc_finish(d, st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_STRING_EQUAL(tfs_operation_op_type(chk), "Assert");
  CU_ASSERT_STRING_EQUAL(tfs_operation_device(chk), "/cpu:0");
  CU_ASSERT_STRING_EQUAL(tfs_operation_device(a.oper), "");
  CU_ASSERT_EQUAL(tfs_operation_num_inputs(chk), 4);
  CU_ASSERT_EQUAL(tfs_operation_num_outputs(chk), 0);
  tfs_input in3 = {chk, 3};
  CU_ASSERT_EQUAL(tfs_operation_input_type(in3), TFS_BOOL);
  CU_ASSERT_PTR_EQUAL(tfs_operation_input(in3).oper, b.oper);
  tfs_input bad = {chk, 9};
  CU_ASSERT_PTR_NULL(tfs_operation_input(bad).oper);
  CU_ASSERT_EQUAL(tfs_operation_input(bad).index, -1);
  CU_ASSERT_EQUAL(tfs_operation_input_type(bad), TFS_INVALID);
  CU_ASSERT_EQUAL(tfs_operation_input_list_length(chk, "data", st), 3);
  TFS_ASSERT_OK(st);
  CU_ASSERT_EQUAL(tfs_operation_input_list_length(chk, "nope", st), -1);
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT, "has no argument named 'nope'");
  CU_ASSERT_EQUAL(tfs_operation_output_list_length(a.oper, "output", st), 1);
  CU_ASSERT_EQUAL(tfs_operation_output_num_consumers(a), 2);
  tfs_input cons[4];
  CU_ASSERT_EQUAL(tfs_operation_output_consumers(a, cons, 4), 2);
  CU_ASSERT_PTR_EQUAL(cons[0].oper, chk);
  CU_ASSERT_EQUAL(cons[1].index, 2);
  CU_ASSERT_EQUAL(tfs_operation_num_control_inputs(chk), 1);
  tfs_operation *ctl[2];
  CU_ASSERT_EQUAL(tfs_operation_control_inputs(chk, ctl, 2), 1);
  CU_ASSERT_PTR_EQUAL(ctl[0], grp);
  CU_ASSERT_EQUAL(tfs_operation_num_control_outputs(a.oper), 1);
  CU_ASSERT_EQUAL(tfs_operation_control_outputs(grp, ctl, 2), 1);
  CU_ASSERT_PTR_EQUAL(ctl[0], chk);
  /* attrs: _class from colocation, T list, summarize default */
  tfs_attr_metadata m = tfs_operation_attr_metadata(chk, "_class", st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_EQUAL(m.is_list, 1);
  CU_ASSERT_EQUAL(m.list_size, 1);
  CU_ASSERT_EQUAL(m.type, TFS_ATTR_KIND_STRING);
  CU_ASSERT_EQUAL(m.total_size, 6); /* "loc:@a" */
  tfs_dtype types[4];
  CU_ASSERT_EQUAL(tfs_operation_attr_type_list(chk, "T", types, 4, st), 3);
  CU_ASSERT_EQUAL(types[2], TFS_BOOL);
  CU_ASSERT_EQUAL(tfs_operation_attr_int(chk, "summarize", st), 3);
  CU_ASSERT_EQUAL(tfs_operation_num_attrs(chk), 3);
  CU_ASSERT_STRING_EQUAL(tfs_operation_attr_name(chk, 0), "T");
  CU_ASSERT_PTR_NULL(tfs_operation_attr_name(chk, 3));
  tfs_operation_attr_int(chk, "missing", st);
  TFS_ASSERT_MESSAGE(st, "Operation 'chk' has no attr named 'missing'.");
  tfs_operation_attr_float(chk, "summarize", st);
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT,
                   "Attribute 'summarize' is not float but int");
  teardown();
}

static void test_attr_getters(void) {
  setup();
  int64_t dims[2] = {-1, 7};
  tfs_output p = ph("p", TFS_HALF, dims, 2);
  CU_ASSERT_EQUAL(tfs_operation_attr_type(p.oper, "dtype", st), TFS_HALF);
  int64_t got[4];
  CU_ASSERT_EQUAL(tfs_operation_attr_shape(p.oper, "shape", got, 4, st), 2);
  CU_ASSERT_EQUAL(got[0], -1);
  CU_ASSERT_EQUAL(got[1], 7);
  tfs_attr_metadata m = tfs_operation_attr_metadata(p.oper, "shape", st);
  CU_ASSERT_EQUAL(m.type, TFS_ATTR_KIND_SHAPE);
  CU_ASSERT_EQUAL(m.total_size, 2);
  tfs_output f = tfs_op_const_float(g, "f", 2.5f, st);
  tfs_tensor *t = tfs_operation_attr_tensor(f.oper, "value", st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_EQUAL(*(float *)tfs_tensor_data(t), 2.5f);
  tfs_tensor_free(t);
  /* every setter and getter kind on a NoOp's `_` attrs */
  tfs_op_desc *d = tfs_op_desc_new(g, "NoOp", "n");
  const void *strs[2] = {"x", "yz"};
  size_t lens[2] = {1, 2};
  int64_t ints[3] = {1, 2, 3};
  float floats[2] = {0.5f, 1.5f};
  unsigned char bools[2] = {1, 0};
  tfs_dtype dts[2] = {TFS_INT8, TFS_UINT64};
  const int64_t *shapes[2] = {ints, NULL};
  int ranks[2] = {3, -1};
  tfs_op_desc_set_attr_string(d, "_s", "abc", 3);
  tfs_op_desc_set_attr_string_list(d, "_sl", strs, lens, 2);
  tfs_op_desc_set_attr_int_list(d, "_il", ints, 3);
  tfs_op_desc_set_attr_float(d, "_f", 0.25f);
  tfs_op_desc_set_attr_float_list(d, "_fl", floats, 2);
  tfs_op_desc_set_attr_bool(d, "_b", 1);
  tfs_op_desc_set_attr_bool_list(d, "_bl", bools, 2);
  tfs_op_desc_set_attr_type_list(d, "_tl", dts, 2);
  tfs_op_desc_set_attr_shape_list(d, "_shl", shapes, ranks, 2);
  tfs_op_desc_set_attr_func_name(d, "_fn", "my_func", 7);
  tfs_op_desc_set_attr_placeholder(d, "_ph", "T");
  tfs_tensor *tl[2] = {tfs_tensor_scalar_int32(4), tfs_tensor_scalar_bool(1)};
  tfs_op_desc_set_attr_tensor_list(d, "_tens", tl, 2, st);
  TFS_ASSERT_OK(st);
  tfs_tensor_free(tl[0]);
  tfs_tensor_free(tl[1]);
  tfs_operation *n = tfs_op_desc_finish(d, st);
  TFS_ASSERT_OK(st);
  size_t len;
  const char *s = tfs_operation_attr_string(n, "_s", &len, st);
  CU_ASSERT_EQUAL(len, 3);
  CU_ASSERT_EQUAL(memcmp(s, "abc", 3), 0);
  m = tfs_operation_attr_metadata(n, "_sl", st);
  CU_ASSERT_EQUAL(m.list_size, 2);
  CU_ASSERT_EQUAL(m.total_size, 3);
  int64_t iv[2];
  CU_ASSERT_EQUAL(tfs_operation_attr_int_list(n, "_il", iv, 2, st), 3);
  CU_ASSERT_EQUAL(iv[1], 2);
  CU_ASSERT_EQUAL(tfs_operation_attr_float(n, "_f", st), 0.25f);
  float fv[2];
  CU_ASSERT_EQUAL(tfs_operation_attr_float_list(n, "_fl", fv, 2, st), 2);
  CU_ASSERT_EQUAL(fv[1], 1.5f);
  CU_ASSERT_EQUAL(tfs_operation_attr_bool(n, "_b", st), 1);
  unsigned char bv[2];
  CU_ASSERT_EQUAL(tfs_operation_attr_bool_list(n, "_bl", bv, 2, st), 2);
  CU_ASSERT_EQUAL(bv[1], 0);
  tfs_dtype tv[2];
  CU_ASSERT_EQUAL(tfs_operation_attr_type_list(n, "_tl", tv, 2, st), 2);
  CU_ASSERT_EQUAL(tv[1], TFS_UINT64);
  m = tfs_operation_attr_metadata(n, "_shl", st);
  CU_ASSERT_EQUAL(m.total_size, 3);
  m = tfs_operation_attr_metadata(n, "_fn", st);
  CU_ASSERT_EQUAL(m.type, TFS_ATTR_KIND_FUNC);
  m = tfs_operation_attr_metadata(n, "_ph", st);
  CU_ASSERT_EQUAL(m.type, TFS_ATTR_KIND_PLACEHOLDER);
  m = tfs_operation_attr_metadata(n, "_tens", st);
  CU_ASSERT_EQUAL(m.type, TFS_ATTR_KIND_TENSOR);
  CU_ASSERT_EQUAL(m.list_size, 2);
  /* setting an attr twice with different values is an error */
  d = tfs_op_desc_new(g, "NoOp", "twice");
  tfs_op_desc_set_attr_int(d, "_x", 1);
  tfs_op_desc_set_attr_int(d, "_x", 2);
  CU_ASSERT_PTR_NULL(tfs_op_desc_finish(d, st));
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT,
                   "Inconsistent values for attr '_x' 1 vs. 2");
  /* shape attr of too many dims */
  int64_t many[TFS_MAX_RANK + 1] = {0};
  d = tfs_op_desc_new(g, "NoOp", "many");
  tfs_op_desc_set_attr_shape(d, "_sh", many, TFS_MAX_RANK + 1);
  CU_ASSERT_PTR_NULL(tfs_op_desc_finish(d, st));
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT, "is not supported (at most 16 dims)");
  teardown();
}

static const tfs_test_case cases[] = {
    {"lookup_and_iteration", test_lookup_and_iteration},
    {"scopes_and_unique_names", test_scopes_and_unique_names},
    {"unknown_op", test_unknown_op},
    {"duplicate_name", test_duplicate_name},
    {"inconsistent_type_attr", test_inconsistent_type_attr},
    {"fixed_type_input_mismatch", test_fixed_type_input_mismatch},
    {"input_count_errors", test_input_count_errors},
    {"list_vs_single", test_list_vs_single},
    {"attr_validation", test_attr_validation},
    {"ref_inputs", test_ref_inputs},
    {"invalid_input_port", test_invalid_input_port},
    {"builders_chain_after_failure", test_builders_chain_after_failure},
    {"shape_inference", test_shape_inference},
    {"shape_inference_errors", test_shape_inference_errors},
    {"operation_queries", test_operation_queries},
    {"attr_getters", test_attr_getters},
    {NULL, NULL}};

const tfs_test_suite tfs_test_suites[] = {{"graph", cases}, {NULL, NULL}};
