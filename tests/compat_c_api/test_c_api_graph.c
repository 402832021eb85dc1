/*
 * tests/compat_c_api/test_c_api_graph.c - c_api.h's graph half: building
 * operations with TF_NewOperation (inputs, lists, control inputs, every
 * attr setter), operation and attr queries with TensorFlow's storage
 * rules and messages, shapes, iteration, GraphDef import with options and
 * results, export, OpDef / NodeDef / OpList protos and constant folding.
 */
#define _GNU_SOURCE /* memmem */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capitest.h"

static TF_Status *s;
static TF_Graph *g;

static void setup(void) {
  s = TF_NewStatus();
  g = TF_NewGraph();
}

static void teardown(void) {
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
}

/* ---- building ------------------------------------------------------------ */

static void test_build_and_query(void) {
  setup();
  int64_t dims[2] = {-1, 3};
  TF_Operation *x = ct_placeholder(g, "x", TF_FLOAT, dims, 2);
  TF_Operation *c = ct_const_floats(g, "c", (float[]){1, 2, 3, 4, 5, 6},
                                    (int64_t[]){3, 2}, 2);
  TF_OperationDescription *d = TF_NewOperation(g, "MatMul", "mm");
  TF_AddInput(d, (TF_Output){x, 0});
  TF_AddInput(d, (TF_Output){c, 0});
  TF_SetDevice(d, "/device:CPU:0");
  TF_AddControlInput(d, c);
  TF_Operation *mm = TF_FinishOperation(d, s);
  CT_ASSERT_OK(s);
  CU_ASSERT_STRING_EQUAL(TF_OperationName(mm), "mm");
  CU_ASSERT_STRING_EQUAL(TF_OperationOpType(mm), "MatMul");
  CU_ASSERT_STRING_EQUAL(TF_OperationDevice(mm), "/device:CPU:0");
  CU_ASSERT_STRING_EQUAL(TF_OperationDevice(x), "");
  CU_ASSERT_EQUAL(TF_OperationNumInputs(mm), 2);
  CU_ASSERT_EQUAL(TF_OperationNumOutputs(mm), 1);
  CU_ASSERT_EQUAL(TF_OperationInputType((TF_Input){mm, 1}), TF_FLOAT);
  CU_ASSERT_EQUAL(TF_OperationOutputType((TF_Output){mm, 0}), TF_FLOAT);
  TF_Output in = TF_OperationInput((TF_Input){mm, 1});
  CU_ASSERT_PTR_EQUAL(in.oper, c);
  CU_ASSERT_EQUAL(in.index, 0);
  TF_Output all[2];
  TF_OperationAllInputs(mm, all, 2);
  CU_ASSERT_PTR_EQUAL(all[0].oper, x);
  CU_ASSERT_EQUAL(TF_OperationOutputNumConsumers((TF_Output){c, 0}), 1);
  TF_Input consumers[2];
  CU_ASSERT_EQUAL(TF_OperationOutputConsumers((TF_Output){c, 0}, consumers, 2),
                  1);
  CU_ASSERT_PTR_EQUAL(consumers[0].oper, mm);
  CU_ASSERT_EQUAL(consumers[0].index, 1);
  CU_ASSERT_EQUAL(TF_OperationNumControlInputs(mm), 1);
  CU_ASSERT_EQUAL(TF_OperationNumControlOutputs(c), 1);
  TF_Operation *ctl[1];
  CU_ASSERT_EQUAL(TF_OperationGetControlInputs(mm, ctl, 1), 1);
  CU_ASSERT_PTR_EQUAL(ctl[0], c);
  CU_ASSERT_EQUAL(TF_OperationGetControlOutputs(c, ctl, 1), 1);
  CU_ASSERT_PTR_EQUAL(ctl[0], mm);
  /* shapes: [?,3] x [3,2] */
  CU_ASSERT_EQUAL(TF_GraphGetTensorNumDims(g, (TF_Output){mm, 0}, s), 2);
  int64_t out[2];
  TF_GraphGetTensorShape(g, (TF_Output){mm, 0}, out, 2, s);
  CT_ASSERT_OK(s);
  CU_ASSERT_EQUAL(out[0], -1);
  CU_ASSERT_EQUAL(out[1], 2);
  TF_GraphGetTensorShape(g, (TF_Output){mm, 0}, out, 3, s);
  CT_ASSERT_STATUS(s, TF_INVALID_ARGUMENT,
                   "Expected rank is 3 but actual rank is 2");
  /* lookups and iteration */
  CU_ASSERT_PTR_EQUAL(TF_GraphOperationByName(g, "mm"), mm);
  CU_ASSERT_PTR_NULL(TF_GraphOperationByName(g, "mm:0"));
  CU_ASSERT_PTR_NULL(TF_GraphOperationByName(g, "nope"));
  /* pos is TensorFlow's node id: 2 for the first operation (ids 0 and 1
   * are its graphs' source and sink) */
  size_t pos = 0;
  const char *names[3] = {"x", "c", "mm"};
  for (int i = 0; i < 3; i++) {
    TF_Operation *op = TF_GraphNextOperation(g, &pos);
    CU_ASSERT_STRING_EQUAL(TF_OperationName(op), names[i]);
    CU_ASSERT_EQUAL(pos, (size_t)i + 2);
  }
  CU_ASSERT_PTR_NULL(TF_GraphNextOperation(g, &pos));
  teardown();
}

static void test_shapes(void) {
  setup();
  TF_Operation *u = ct_placeholder(g, "u", TF_FLOAT, NULL, -2);
  CU_ASSERT_EQUAL(TF_GraphGetTensorNumDims(g, (TF_Output){u, 0}, s), -1);
  TF_Operation *sc = ct_placeholder(g, "sc", TF_FLOAT, NULL, 0);
  CU_ASSERT_EQUAL(TF_GraphGetTensorNumDims(g, (TF_Output){sc, 0}, s), 0);
  TF_Operation *ur = ct_placeholder(g, "ur", TF_FLOAT, NULL, -1);
  CU_ASSERT_EQUAL(TF_GraphGetTensorNumDims(g, (TF_Output){ur, 0}, s), -1);
  /* narrowing an inferred shape */
  TF_GraphSetTensorShape(g, (TF_Output){u, 0}, (int64_t[]){-1, 4}, 2, s);
  CT_ASSERT_OK(s);
  TF_GraphSetTensorShape(g, (TF_Output){u, 0}, (int64_t[]){2, -1}, 2, s);
  CT_ASSERT_OK(s);
  int64_t d[2];
  TF_GraphGetTensorShape(g, (TF_Output){u, 0}, d, 2, s);
  CU_ASSERT_EQUAL(d[0], 2);
  CU_ASSERT_EQUAL(d[1], 4);
  TF_GraphSetTensorShape(g, (TF_Output){u, 0}, (int64_t[]){3, 4}, 2, s);
  CT_ASSERT_STATUS(s, TF_INVALID_ARGUMENT,
                   "Dimension 0 in both shapes must be equal, but are 2 and "
                   "3. Shapes are [2,4] and [3,4].");
  TF_GraphSetTensorShape(g, (TF_Output){u, 0}, (int64_t[]){3}, 1, s);
  CT_ASSERT_STATUS(s, TF_INVALID_ARGUMENT,
                   "Shapes must be equal rank, but are 2 and 1");
  TF_GraphGetTensorNumDims(g, (TF_Output){u, 3}, s);
  CT_ASSERT_STATUS(s, TF_OUT_OF_RANGE,
                   "Node 'u' (type: 'Placeholder', num of outputs: 1) does "
                   "not have output 3");
  teardown();
}

static void test_input_list_and_lengths(void) {
  setup();
  int64_t two[1] = {2};
  TF_Operation *a = ct_const_floats(g, "a", (float[]){1, 2}, two, 1);
  TF_Operation *b = ct_const_floats(g, "b", (float[]){3, 4}, two, 1);
  TF_Operation *axis = ct_const_int32s(g, "axis", (int32_t[]){0}, NULL, 0);
  TF_OperationDescription *d = TF_NewOperation(g, "ConcatV2", "cc");
  TF_Output list[2] = {{a, 0}, {b, 0}};
  TF_AddInputList(d, list, 2);
  TF_AddInput(d, (TF_Output){axis, 0});
  TF_Operation *cc = TF_FinishOperation(d, s);
  CT_ASSERT_OK(s);
  CU_ASSERT_EQUAL(TF_OperationNumInputs(cc), 3);
  CU_ASSERT_EQUAL(TF_OperationInputListLength(cc, "values", s), 2);
  CT_ASSERT_OK(s);
  CU_ASSERT_EQUAL(TF_OperationOutputListLength(cc, "output", s), 1);
  TF_OperationInputListLength(cc, "nope", s);
  CT_ASSERT_STATUS(s, TF_INVALID_ARGUMENT, "Input arg 'nope' not found");
  TF_OperationOutputListLength(cc, "zz", s);
  CT_ASSERT_STATUS(s, TF_INVALID_ARGUMENT, "Output arg 'zz' not found");
  int64_t n;
  TF_OperationGetAttrInt(cc, "N", &n, s);
  CT_ASSERT_OK(s);
  CU_ASSERT_EQUAL(n, 2);
  int64_t dim;
  TF_GraphGetTensorShape(g, (TF_Output){cc, 0}, &dim, 1, s);
  CU_ASSERT_EQUAL(dim, 4);
  teardown();
}

/* ---- building errors (TensorFlow's exact messages) ----------------------- */

static void test_build_errors(void) {
  setup();
  int64_t dims[2] = {-1, 3};
  TF_Operation *x = ct_placeholder(g, "x", TF_FLOAT, dims, 2);
  TF_Operation *y = ct_placeholder(g, "y", TF_INT32, dims, 2);
  TF_OperationDescription *d = TF_NewOperation(g, "Placeholder", "x");
  TF_SetAttrType(d, "dtype", TF_FLOAT);
  CU_ASSERT_PTR_NULL(TF_FinishOperation(d, s));
  CT_ASSERT_STATUS(s, TF_INVALID_ARGUMENT,
                   "Duplicate node name in graph: 'x'");
  d = TF_NewOperation(g, "Foo", "foo");
  CU_ASSERT_PTR_NULL(TF_FinishOperation(d, s));
  CT_ASSERT_PREFIX(s, TF_INVALID_ARGUMENT, "Op type not registered 'Foo' in "
                                           "binary running on ");
  CU_ASSERT_PTR_NOT_NULL(strstr(TF_Message(s), "lazily registered when the "
                                               "module is first accessed. "
                                               "while building NodeDef "
                                               "'foo'"));
  static const char kMulSig[] =
      " while building NodeDef 'mul' using Op<name=Mul; signature=x:T, y:T "
      "-> z:T; attr=T:type,allowed=[DT_BFLOAT16, DT_HALF, DT_FLOAT, "
      "DT_DOUBLE, DT_UINT8, DT_INT8, DT_UINT16, DT_INT16, DT_INT32, "
      "DT_UINT32, DT_UINT64, DT_INT64, DT_COMPLEX64, DT_COMPLEX128]; "
      "is_commutative=true>";
  char want[1024];
  d = TF_NewOperation(g, "Mul", "mul");
  TF_AddInput(d, (TF_Output){x, 0});
  TF_AddInput(d, (TF_Output){y, 0});
  CU_ASSERT_PTR_NULL(TF_FinishOperation(d, s));
  snprintf(want, sizeof want, "Inconsistent values for attr 'T' DT_FLOAT vs. "
           "DT_INT32%s", kMulSig);
  CT_ASSERT_STATUS(s, TF_INVALID_ARGUMENT, want);
  d = TF_NewOperation(g, "Mul", "mul");
  TF_AddInput(d, (TF_Output){x, 0});
  CU_ASSERT_PTR_NULL(TF_FinishOperation(d, s));
  snprintf(want, sizeof want, "1 inputs specified of 2 inputs in Op%s",
           kMulSig);
  CT_ASSERT_STATUS(s, TF_INVALID_ARGUMENT, want);
  /* an input of the wrong dtype for a fixed-type argument */
  d = TF_NewOperation(g, "LogicalNot", "not");
  TF_AddInput(d, (TF_Output){x, 0});
  CU_ASSERT_PTR_NULL(TF_FinishOperation(d, s));
  CT_ASSERT_STATUS(s, TF_INVALID_ARGUMENT,
                   "Input 'x' passed float expected bool while building "
                   "NodeDef 'not' using Op<name=LogicalNot; signature=x:bool "
                   "-> y:bool>");
  /* a failed finish leaves the graph as it was */
  CU_ASSERT_PTR_NULL(TF_GraphOperationByName(g, "mul"));
  CU_ASSERT_PTR_NULL(TF_GraphOperationByName(g, "not"));
  teardown();
}

/* ---- attribute setters and getters --------------------------------------- */

static TF_Operation *attr_op(void) {
  /* StridedSlice-free: a Placeholder carries dtype and shape; the other
   * kinds go on an op with many attrs (AvgPool: ksize, strides, padding,
   * data_format, T). */
  TF_Operation *x = ct_placeholder(g, "img", TF_FLOAT,
                                   (int64_t[]){1, 4, 4, 1}, 4);
  TF_OperationDescription *d = TF_NewOperation(g, "AvgPool", "pool");
  TF_AddInput(d, (TF_Output){x, 0});
  TF_SetAttrIntList(d, "ksize", (int64_t[]){1, 2, 2, 1}, 4);
  TF_SetAttrIntList(d, "strides", (int64_t[]){1, 2, 2, 1}, 4);
  TF_SetAttrString(d, "padding", "VALID", 5);
  TF_Operation *op = TF_FinishOperation(d, s);
  CT_ASSERT_OK(s);
  return op;
}

static void test_attr_getters(void) {
  setup();
  TF_Operation *pool = attr_op();
  TF_AttrMetadata m = TF_OperationGetAttrMetadata(pool, "ksize", s);
  CT_ASSERT_OK(s);
  CU_ASSERT_EQUAL(m.is_list, 1);
  CU_ASSERT_EQUAL(m.list_size, 4);
  CU_ASSERT_EQUAL(m.type, TF_ATTR_INT);
  m = TF_OperationGetAttrMetadata(pool, "padding", s);
  CU_ASSERT_EQUAL(m.is_list, 0);
  CU_ASSERT_EQUAL(m.type, TF_ATTR_STRING);
  CU_ASSERT_EQUAL(m.total_size, 5);
  m = TF_OperationGetAttrMetadata(pool, "T", s);
  CU_ASSERT_EQUAL(m.type, TF_ATTR_TYPE);
  CU_ASSERT_EQUAL(m.list_size, -1);
  CU_ASSERT_EQUAL(m.total_size, -1);
  TF_Operation *img = TF_GraphOperationByName(g, "img");
  m = TF_OperationGetAttrMetadata(img, "shape", s);
  CU_ASSERT_EQUAL(m.type, TF_ATTR_SHAPE);
  CU_ASSERT_EQUAL(m.total_size, 4);
  TF_OperationGetAttrMetadata(img, "nope", s);
  CT_ASSERT_STATUS(s, TF_INVALID_ARGUMENT,
                   "Operation 'img' has no attr named 'nope'.");

  char pad[8] = {0};
  TF_OperationGetAttrString(pool, "padding", pad, sizeof pad, s);
  CT_ASSERT_OK(s);
  CU_ASSERT_STRING_EQUAL(pad, "VALID");
  TF_OperationGetAttrString(pool, "T", pad, sizeof pad, s);
  CT_ASSERT_STATUS(s, TF_INVALID_ARGUMENT, "Attribute 'T' is not a string");
  int64_t ks[4];
  TF_OperationGetAttrIntList(pool, "ksize", ks, 4, s);
  CT_ASSERT_OK(s);
  CU_ASSERT_EQUAL(ks[1], 2);
  TF_DataType t;
  TF_OperationGetAttrType(pool, "T", &t, s);
  CU_ASSERT_EQUAL(t, TF_FLOAT);
  int64_t i;
  TF_OperationGetAttrInt(img, "dtype", &i, s);
  CT_ASSERT_STATUS(s, TF_INVALID_ARGUMENT,
                   "AttrValue had value with type 'type' when 'int' "
                   "expected");
  TF_OperationGetAttrInt(img, "nope", &i, s);
  CT_ASSERT_STATUS(s, TF_NOT_FOUND,
                   "No attr named 'nope' in NodeDef:\n\t [[{{node img}}]]");
  int64_t shape[4];
  TF_OperationGetAttrShape(img, "shape", shape, 4, s);
  CT_ASSERT_OK(s);
  CU_ASSERT_EQUAL(shape[1], 4);
  /* attr enumeration (tfsess lists names sorted) */
  int na = TF_OperationGetNumAttrs(pool);
  CU_ASSERT_EQUAL(na, 5);
  char name[32];
  int found = 0;
  for (int k = 0; k < na; k++) {
    int len = TF_OperationGetAttrNameLength(pool, k);
    memset(name, 0, sizeof name);
    TF_OperationGetAttrName(pool, k, name, s);
    CT_ASSERT_OK(s);
    CU_ASSERT_EQUAL((size_t)len, strlen(name));
    found += strcmp(name, "data_format") == 0;
  }
  CU_ASSERT_EQUAL(found, 1);
  CU_ASSERT_EQUAL(TF_OperationGetAttrNameLength(pool, na), -1);
  /* the serialized AttrValue of shape [1,4,4,1] */
  TF_Buffer *b = TF_NewBuffer();
  TF_OperationGetAttrValueProto(img, "dtype", b, s);
  CT_ASSERT_OK(s);
  CU_ASSERT_EQUAL(b->length, 2);
  CU_ASSERT_EQUAL(memcmp(b->data, "\x30\x01", 2), 0); /* type: DT_FLOAT */
  TF_OperationGetAttrValueProto(img, "dtype", b, s);
  CT_ASSERT_STATUS(s, TF_INVALID_ARGUMENT,
                   "Passing non-empty TF_Buffer is invalid.");
  TF_DeleteBuffer(b);
  b = TF_NewBuffer();
  TF_OperationGetAttrTensorShapeProto(img, "shape", b, s);
  CT_ASSERT_OK(s);
  CU_ASSERT_TRUE(b->length > 0);
  TF_DeleteBuffer(b);
  teardown();
}

static void test_attr_lists_with_storage(void) {
  setup();
  TF_OperationDescription *d = TF_NewOperation(g, "Placeholder", "p");
  TF_SetAttrType(d, "dtype", TF_FLOAT);
  TF_SetAttrShape(d, "shape", NULL, -1);
  /* private attrs carry any kind; programs use them for metadata */
  const void *strs[2] = {"ab", "cde"};
  size_t lens[2] = {2, 3};
  TF_SetAttrStringList(d, "_names", strs, lens, 2);
  const int64_t s0[2] = {2, 3}, s1[1] = {5};
  const int64_t *shapes[3] = {s0, s1, NULL};
  int ranks[3] = {2, 1, -1};
  TF_SetAttrShapeList(d, "_shapes", shapes, ranks, 3);
  TF_SetAttrFloatList(d, "_floats", (float[]){1.5f, 2.5f}, 2);
  TF_SetAttrBoolList(d, "_bools", (unsigned char[]){1, 0, 1}, 3);
  TF_DataType types[2] = {TF_INT32, TF_STRING};
  TF_SetAttrTypeList(d, "_types", types, 2);
  TF_SetAttrFloat(d, "_f", 0.25f);
  TF_SetAttrBool(d, "_b", 1);
  TF_Operation *p = TF_FinishOperation(d, s);
  CT_ASSERT_OK(s);

  void *vals[2];
  size_t got[2];
  char storage[5];
  TF_OperationGetAttrStringList(p, "_names", vals, got, 2, storage, 5, s);
  CT_ASSERT_OK(s);
  CU_ASSERT_EQUAL(got[1], 3);
  CU_ASSERT_EQUAL(memcmp(vals[1], "cde", 3), 0);
  TF_OperationGetAttrStringList(p, "_names", vals, got, 2, storage, 4, s);
  CT_ASSERT_STATUS(s, TF_INVALID_ARGUMENT,
                   "Not enough storage to hold the requested list of "
                   "strings");
  TF_OperationGetAttrStringList(p, "_f", vals, got, 2, storage, 4, s);
  CT_ASSERT_STATUS(s, TF_INVALID_ARGUMENT, "Value for '_f' is not a list");

  int64_t *dims[3], store[3];
  int nd[3];
  TF_OperationGetAttrShapeList(p, "_shapes", dims, nd, 3, store, 3, s);
  CT_ASSERT_OK(s);
  CU_ASSERT_EQUAL(nd[0], 2);
  CU_ASSERT_EQUAL(nd[2], -1);
  CU_ASSERT_EQUAL(dims[1][0], 5);
  TF_OperationGetAttrShapeList(p, "_shapes", dims, nd, 3, store, 2, s);
  CT_ASSERT_STATUS(s, TF_INVALID_ARGUMENT,
                   "Not enough storage to hold the requested list of "
                   "shapes");
  TF_AttrMetadata m = TF_OperationGetAttrMetadata(p, "_names", s);
  CU_ASSERT_EQUAL(m.total_size, 5);
  m = TF_OperationGetAttrMetadata(p, "_shapes", s);
  CU_ASSERT_EQUAL(m.total_size, 3);

  float fl[2];
  TF_OperationGetAttrFloatList(p, "_floats", fl, 2, s);
  CU_ASSERT_EQUAL(fl[1], 2.5f);
  unsigned char bl[3];
  TF_OperationGetAttrBoolList(p, "_bools", bl, 3, s);
  CU_ASSERT_EQUAL(bl[2], 1);
  TF_DataType tl[2];
  TF_OperationGetAttrTypeList(p, "_types", tl, 2, s);
  CU_ASSERT_EQUAL(tl[1], TF_STRING);
  float f;
  TF_OperationGetAttrFloat(p, "_f", &f, s);
  CU_ASSERT_EQUAL(f, 0.25f);
  unsigned char bv;
  TF_OperationGetAttrBool(p, "_b", &bv, s);
  CU_ASSERT_EQUAL(bv, 1);
  TF_Buffer *protos[3];
  TF_OperationGetAttrTensorShapeProtoList(p, "_shapes", protos, 3, s);
  CT_ASSERT_OK(s);
  for (int i = 0; i < 3; i++) TF_DeleteBuffer(protos[i]);
  teardown();
}

static void test_attr_tensor_and_protos(void) {
  setup();
  /* TF_SetAttrTensor copies: the caller deletes its tensor at once */
  TF_Operation *c = ct_const_floats(g, "c", (float[]){1, 2, 3},
                                    (int64_t[]){3}, 1);
  TF_Tensor *v = NULL;
  TF_OperationGetAttrTensor(c, "value", &v, s);
  CT_ASSERT_OK(s);
  CU_ASSERT_EQUAL(((float *)TF_TensorData(v))[2], 3.0f);
  TF_DeleteTensor(v);
  /* shape from a TensorShapeProto {dim {size: 2} dim {size: -1}} */
  static const unsigned char shape_proto[] = {
      0x12, 0x02, 0x08, 0x02, 0x12, 0x0b, 0x08, 0xff, 0xff, 0xff, 0xff,
      0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
  TF_OperationDescription *d = TF_NewOperation(g, "Placeholder", "p");
  TF_SetAttrType(d, "dtype", TF_INT32);
  TF_SetAttrTensorShapeProto(d, "shape", shape_proto, sizeof shape_proto, s);
  CT_ASSERT_OK(s);
  TF_SetAttrTensorShapeProto(d, "_bad", "\xff", 1, s);
  CT_ASSERT_STATUS(s, TF_INVALID_ARGUMENT, "Unparseable TensorShapeProto");
  /* AttrValue {i: 7} */
  TF_SetAttrValueProto(d, "_seven", "\x18\x07", 2, s);
  CT_ASSERT_OK(s);
  TF_SetAttrValueProto(d, "_bad", "\xff", 1, s);
  CT_ASSERT_STATUS(s, TF_INVALID_ARGUMENT, "Unparseable AttrValue proto");
  TF_Operation *p = TF_FinishOperation(d, s);
  CT_ASSERT_OK(s);
  int64_t dims[2];
  TF_GraphGetTensorShape(g, (TF_Output){p, 0}, dims, 2, s);
  CU_ASSERT_EQUAL(dims[0], 2);
  CU_ASSERT_EQUAL(dims[1], -1);
  int64_t seven;
  TF_OperationGetAttrInt(p, "_seven", &seven, s);
  CU_ASSERT_EQUAL(seven, 7);
  teardown();
}

/* ---- protos -------------------------------------------------------------- */

static void test_graphdef_roundtrip(void) {
  setup();
  TF_Operation *x = ct_placeholder(g, "x", TF_FLOAT, (int64_t[]){2}, 1);
  TF_Operation *c = ct_const_floats(g, "c", (float[]){10, 20},
                                    (int64_t[]){2}, 1);
  ct_binary(g, "AddV2", "sum", x, c);
  TF_Buffer *gd = TF_NewBuffer();
  TF_GraphToGraphDef(g, gd, s);
  CT_ASSERT_OK(s);
  CU_ASSERT_TRUE(gd->length > 0);
  TF_GraphToGraphDef(g, gd, s);
  CT_ASSERT_STATUS(s, TF_INVALID_ARGUMENT,
                   "Passing non-empty TF_Buffer is invalid.");

  TF_Graph *g2 = TF_NewGraph();
  TF_ImportGraphDefOptions *o = TF_NewImportGraphDefOptions();
  TF_ImportGraphDefOptionsSetPrefix(o, "imp");
  TF_ImportGraphDefOptionsAddReturnOutput(o, "sum", 0);
  TF_ImportGraphDefOptionsAddReturnOperation(o, "c");
  CU_ASSERT_EQUAL(TF_ImportGraphDefOptionsNumReturnOutputs(o), 1);
  CU_ASSERT_EQUAL(TF_ImportGraphDefOptionsNumReturnOperations(o), 1);
  TF_ImportGraphDefResults *r = TF_GraphImportGraphDefWithResults(g2, gd, o, s);
  CT_ASSERT_OK(s);
  int n;
  TF_Output *outs;
  TF_ImportGraphDefResultsReturnOutputs(r, &n, &outs);
  CU_ASSERT_EQUAL(n, 1);
  CU_ASSERT_STRING_EQUAL(TF_OperationName(outs[0].oper), "imp/sum");
  TF_Operation **ops;
  TF_ImportGraphDefResultsReturnOperations(r, &n, &ops);
  CU_ASSERT_STRING_EQUAL(TF_OperationName(ops[0]), "imp/c");
  const char **names;
  int *idx;
  TF_ImportGraphDefResultsMissingUnusedInputMappings(r, &n, &names, &idx);
  CU_ASSERT_EQUAL(n, 0);
  TF_DeleteImportGraphDefResults(r);

  /* a second import with its prefix made unique, and return outputs */
  TF_ImportGraphDefOptionsSetUniquifyPrefix(o, 1);
  TF_Output ret;
  TF_GraphImportGraphDefWithReturnOutputs(g2, gd, o, &ret, 1, s);
  CT_ASSERT_OK(s);
  CU_ASSERT_STRING_EQUAL(TF_OperationName(ret.oper), "imp_1/sum");
  TF_GraphImportGraphDefWithReturnOutputs(g2, gd, o, &ret, 2, s);
  CT_ASSERT_STATUS(s, TF_INVALID_ARGUMENT,
                   "Expected 'num_return_outputs' to be 1, got 2");
  TF_DeleteImportGraphDefOptions(o);

  /* an input mapping: imported x becomes g2's own placeholder */
  TF_Operation *mine = ct_placeholder(g2, "mine", TF_FLOAT, (int64_t[]){2}, 1);
  o = TF_NewImportGraphDefOptions();
  TF_ImportGraphDefOptionsSetPrefix(o, "m");
  TF_ImportGraphDefOptionsAddInputMapping(o, "x", 0, (TF_Output){mine, 0});
  TF_ImportGraphDefOptionsAddInputMapping(o, "zzz", 0, (TF_Output){mine, 0});
  r = TF_GraphImportGraphDefWithResults(g2, gd, o, s);
  CT_ASSERT_OK(s);
  TF_ImportGraphDefResultsMissingUnusedInputMappings(r, &n, &names, &idx);
  CU_ASSERT_EQUAL(n, 1);
  CU_ASSERT_STRING_EQUAL(names[0], "zzz");
  TF_Operation *sum = TF_GraphOperationByName(g2, "m/sum");
  CU_ASSERT_PTR_EQUAL(TF_OperationInput((TF_Input){sum, 0}).oper, mine);
  TF_DeleteImportGraphDefResults(r);
  TF_DeleteImportGraphDefOptions(o);

  TF_Buffer *bad = TF_NewBufferFromString("\xff\xff\xff", 3);
  TF_GraphImportGraphDef(g2, bad, NULL, s);
  CT_ASSERT_STATUS(s, TF_INVALID_ARGUMENT, "Invalid GraphDef");
  TF_DeleteBuffer(bad);
  CU_ASSERT_PTR_NULL(TF_GraphImportGraphDefWithResultsNoSerialization(
      g2, gd, NULL, s));
  CU_ASSERT_EQUAL(TF_GetCode(s), TF_UNIMPLEMENTED);
  TF_DeleteGraph(g2);
  TF_DeleteBuffer(gd);
  teardown();
}

static void test_import_errors(void) {
  setup();
  /* GraphDef { node { name: "a" op: "Identity" input: "missing"
   *                   attr { key: "T" value { type: DT_FLOAT } } } } */
  static const unsigned char gd[] = {
      0x0a, 0x1f, 0x0a, 0x01, 0x61, 0x12, 0x08, 0x49, 0x64, 0x65, 0x6e,
      0x74, 0x69, 0x74, 0x79, 0x1a, 0x07, 0x6d, 0x69, 0x73, 0x73, 0x69,
      0x6e, 0x67, 0x2a, 0x07, 0x0a, 0x01, 0x54, 0x12, 0x02, 0x30, 0x01};
  /* programs point a TF_NewBuffer at bytes they own */
  TF_Buffer *b = TF_NewBuffer();
  b->data = gd;
  b->length = sizeof gd;
  TF_GraphImportGraphDef(g, b, NULL, s);
  CT_ASSERT_STATUS(s, TF_INVALID_ARGUMENT,
                   "Node 'a': Unknown input node 'missing'");
  size_t pos = 0;
  CU_ASSERT_PTR_NULL(TF_GraphNextOperation(g, &pos)); /* nothing added */
  /* mapping the missing input makes the same bytes import */
  TF_Operation *m = ct_placeholder(g, "m", TF_FLOAT, NULL, -2);
  TF_ImportGraphDefOptions *o = TF_NewImportGraphDefOptions();
  TF_ImportGraphDefOptionsAddInputMapping(o, "missing", 0, (TF_Output){m, 0});
  TF_GraphImportGraphDef(g, b, o, s);
  CT_ASSERT_OK(s);
  CU_ASSERT_PTR_NOT_NULL(TF_GraphOperationByName(g, "a"));
  TF_DeleteImportGraphDefOptions(o);
  b->data = NULL; /* not ours to free */
  TF_DeleteBuffer(b);
  teardown();
}

static void test_frozen_mlp_import(void) {
  setup();
  TF_Buffer *gd = ct_read_file("tests/data/wire/graph_mlp.pb");
  CU_ASSERT_PTR_NOT_NULL_FATAL(gd);
  TF_ImportGraphDefOptions *o = TF_NewImportGraphDefOptions();
  TF_GraphImportGraphDef(g, gd, o, s);
  CT_ASSERT_OK(s);
  TF_DeleteImportGraphDefOptions(o);
  TF_DeleteBuffer(gd);
  TF_Operation *y = TF_GraphOperationByName(g, "y");
  CU_ASSERT_PTR_NOT_NULL_FATAL(y);
  CU_ASSERT_STRING_EQUAL(TF_OperationOpType(y), "Softmax");
  int64_t dims[2];
  TF_GraphGetTensorShape(g, (TF_Output){y, 0}, dims, 2, s);
  CT_ASSERT_OK(s);
  CU_ASSERT_EQUAL(dims[0], -1);
  CU_ASSERT_EQUAL(dims[1], 2);
  TF_Operation *copy = TF_GraphOperationByName(g, "y_copy");
  void *vals[1];
  size_t lens[1];
  char storage[16];
  TF_OperationGetAttrStringList(copy, "_class", vals, lens, 1, storage,
                                sizeof storage, s);
  CT_ASSERT_OK(s);
  CU_ASSERT_EQUAL(lens[0], 6);
  CU_ASSERT_EQUAL(memcmp(vals[0], "loc:@y", 6), 0);
  TF_Operation *strs = TF_GraphOperationByName(g, "strs");
  TF_Tensor *t = NULL;
  TF_OperationGetAttrTensor(strs, "value", &t, s);
  CT_ASSERT_OK(s);
  CU_ASSERT_EQUAL(TF_TensorByteSize(t), 3 * sizeof(TF_TString));
  TF_TString *e = (TF_TString *)TF_TensorData(t);
  CU_ASSERT_EQUAL(TF_StringGetSize(&e[2]), 3);
  CU_ASSERT_EQUAL(memcmp(TF_StringGetDataPointer(&e[2]), "xyz", 3), 0);
  TF_DeleteTensor(t);
  teardown();
}

static void test_op_protos(void) {
  setup();
  TF_Operation *x = ct_placeholder(g, "x", TF_FLOAT, NULL, -2);
  TF_Buffer *b = TF_NewBuffer();
  TF_OperationToNodeDef(x, b, s);
  CT_ASSERT_OK(s);
  CU_ASSERT_TRUE(b->length > 10);
  CU_ASSERT_PTR_NOT_NULL(memchr(b->data, 'x', b->length));
  TF_DeleteBuffer(b);
  b = TF_NewBuffer();
  TF_GraphGetOpDef(g, "MatMul", b, s);
  CT_ASSERT_OK(s);
  CU_ASSERT_TRUE(b->length > 20);
  TF_DeleteBuffer(b);
  b = TF_NewBuffer();
  TF_GraphGetOpDef(g, "Nope", b, s);
  CT_ASSERT_PREFIX(s, TF_NOT_FOUND, "Op type not registered 'Nope'");
  TF_DeleteBuffer(b);
  b = TF_NewBuffer();
  TF_GraphVersions(g, b, s);
  CT_ASSERT_OK(s);
  CU_ASSERT_EQUAL(b->length, 3);
  CU_ASSERT_EQUAL(memcmp(b->data, "\x08\xaa\x13", 3), 0); /* producer 2474 */
  TF_DeleteBuffer(b);
  /* an import keeps the lower producer and the higher min_consumer:
   * GraphDef { versions (field 4) { producer: 21 min_consumer: 3 } } */
  TF_Buffer *old_gd = TF_NewBufferFromString("\x22\x04\x08\x15\x10\x03", 6);
  TF_GraphImportGraphDef(g, old_gd, NULL, s);
  CT_ASSERT_OK(s);
  TF_DeleteBuffer(old_gd);
  b = TF_NewBuffer();
  TF_GraphVersions(g, b, s);
  CT_ASSERT_OK(s);
  CU_ASSERT_EQUAL(b->length, 4);
  CU_ASSERT_EQUAL(memcmp(b->data, "\x08\x15\x10\x03", 4), 0);
  TF_DeleteBuffer(b);
  b = TF_GetAllOpList();
  CU_ASSERT_TRUE(b->length > 10000);
  /* OpList {op {name: "Abs" ...}}: the first op, sorted by name */
  CU_ASSERT_EQUAL(((const unsigned char *)b->data)[0], 0x0a);
  CU_ASSERT_PTR_NOT_NULL(memmem(b->data, b->length, "MatMul", 6));
  /* the whole buffer is a sequence of `op` (field 1) entries, and one of
   * them is MatMul's OpDef exactly as TF_GraphGetOpDef gives it */
  TF_Buffer *mm = TF_NewBuffer();
  TF_GraphGetOpDef(g, "MatMul", mm, s);
  CT_ASSERT_OK(s);
  const unsigned char *p = b->data, *end = p + b->length;
  int nops = 0, found = 0, well_formed = 1;
  while (p < end && well_formed) {
    uint64_t len = 0;
    int shift = 0;
    well_formed = *p++ == 0x0a;
    while (well_formed && p < end && shift < 64) {
      len |= (uint64_t)(*p & 0x7f) << shift;
      shift += 7;
      if (!(*p++ & 0x80)) break;
    }
    if (!well_formed || len > (uint64_t)(end - p)) {
      well_formed = 0;
      break;
    }
    if (len == mm->length && memcmp(p, mm->data, len) == 0) found = 1;
    p += len;
    nops++;
  }
  CU_ASSERT_TRUE(well_formed);
  CU_ASSERT_PTR_EQUAL(p, end);
  CU_ASSERT_TRUE(nops > 100);
  CU_ASSERT_TRUE(found);
  TF_DeleteBuffer(mm);
  TF_DeleteBuffer(b);
  b = TF_GetRegisteredKernelsForOp("MatMul", s);
  CT_ASSERT_OK(s);
  CU_ASSERT_PTR_NOT_NULL(memmem(b->data, b->length, "CPU", 3));
  TF_DeleteBuffer(b);
  b = TF_GetAllRegisteredKernels(s);
  CT_ASSERT_OK(s);
  CU_ASSERT_TRUE(b->length > 1000);
  TF_DeleteBuffer(b);
  teardown();
}

static void test_try_evaluate_constant(void) {
  setup();
  TF_Operation *c = ct_const_floats(g, "c", (float[]){1, 2}, (int64_t[]){2},
                                    1);
  TF_Operation *sum = ct_binary(g, "AddV2", "sum", c, c);
  TF_Operation *x = ct_placeholder(g, "x", TF_FLOAT, (int64_t[]){2}, 1);
  TF_Operation *xs = ct_binary(g, "AddV2", "xs", x, c);
  TF_Tensor *r = NULL;
  CU_ASSERT_EQUAL(TF_TryEvaluateConstant(g, (TF_Output){sum, 0}, &r, s), 1);
  CT_ASSERT_OK(s);
  CU_ASSERT_PTR_NOT_NULL_FATAL(r);
  CU_ASSERT_EQUAL(((float *)TF_TensorData(r))[1], 4.0f);
  TF_DeleteTensor(r);
  r = (TF_Tensor *)1;
  CU_ASSERT_EQUAL(TF_TryEvaluateConstant(g, (TF_Output){xs, 0}, &r, s), 0);
  CT_ASSERT_OK(s);
  CU_ASSERT_PTR_NULL(r);
  teardown();
}

/* The library of a TensorFlow GraphDef through the C API: listed, copied
 * out as TF_Functions and into another graph (with a gradient), attrs
 * set and read, and the nested calls run through TF_SessionRun with
 * TensorFlow's outputs. */
static void test_functions(void) {
  TF_Status *s = TF_NewStatus();
  TF_Graph *g = TF_NewGraph();
  TF_Buffer *pb = ct_read_file("tests/conformance/functions/call_nested/"
                               "graph.pb");
  TF_ImportGraphDefOptions *io = TF_NewImportGraphDefOptions();
  TF_GraphImportGraphDef(g, pb, io, s);
  CT_ASSERT_OK(s);
  TF_DeleteImportGraphDefOptions(io);
  TF_DeleteBuffer(pb);
  CU_ASSERT_EQUAL_FATAL(TF_GraphNumFunctions(g), 3);
  TF_Function *fns[4] = {NULL, NULL, NULL, NULL};
  CU_ASSERT_EQUAL(TF_GraphGetFunctions(g, fns, 4, s), 3);
  CT_ASSERT_OK(s);
  CU_ASSERT_EQUAL(TF_GraphGetFunctions(g, fns + 3, 0, s), 0);
  /* FunctionDef bytes out and back in */
  TF_Buffer *def = TF_NewBuffer();
  TF_FunctionToFunctionDef(fns[0], def, s);
  CT_ASSERT_OK(s);
  TF_Function *again = TF_FunctionImportFunctionDef(def->data, def->length, s);
  CT_ASSERT_OK(s);
  CU_ASSERT_STRING_EQUAL(TF_FunctionName(again), TF_FunctionName(fns[0]));
  CU_ASSERT_PTR_NULL(TF_FunctionImportFunctionDef("\xff\xff", 2, s));
  CT_ASSERT_STATUS(s, TF_INVALID_ARGUMENT,
                   "Invalid FunctionDef given to "
                   "TF_FunctionImportFunctionDef");
  /* attrs: _noinline = true, read back */
  static const unsigned char yes[] = {0x28, 0x01}; /* AttrValue{b: true} */
  TF_FunctionSetAttrValueProto(again, "_noinline", yes, sizeof yes, s);
  CT_ASSERT_OK(s);
  TF_Buffer *av = TF_NewBuffer();
  TF_FunctionGetAttrValueProto(again, "_noinline", av, s);
  CT_ASSERT_OK(s);
  CU_ASSERT(av->length == 2 && memcmp(av->data, yes, 2) == 0);
  TF_DeleteBuffer(av);
  av = TF_NewBuffer();
  TF_FunctionGetAttrValueProto(again, "missing", av, s);
  CU_ASSERT_EQUAL(TF_GetCode(s), TF_INVALID_ARGUMENT);
  TF_DeleteBuffer(av);
  /* into a fresh graph, the second function as the first's gradient */
  TF_Graph *g2 = TF_NewGraph();
  TF_GraphCopyFunction(g2, fns[0], fns[1], s);
  CT_ASSERT_OK(s);
  CU_ASSERT_EQUAL(TF_GraphNumFunctions(g2), 2);
  TF_GraphCopyFunction(g2, again, NULL, s); /* same name, other attrs */
  char want[256];
  snprintf(want, sizeof want, "Cannot add function '%s' because a "
           "different function with the same name already exists.",
           TF_FunctionName(again));
  CT_ASSERT_STATUS(s, TF_INVALID_ARGUMENT, want);
  TF_GraphCopyFunction(g2, NULL, NULL, s);
  CT_ASSERT_STATUS(s, TF_INVALID_ARGUMENT, "'func' argument to "
                   "TF_GraphCopyFunction cannot be null");
  TF_Buffer *gd = TF_NewBuffer();
  TF_GraphToGraphDef(g2, gd, s);
  CT_ASSERT_OK(s);
  CU_ASSERT(gd->length > def->length); /* the library and its gradient */
  TF_DeleteBuffer(gd);
  TF_DeleteGraph(g2);
  TF_DeleteBuffer(def);
  TF_DeleteFunction(again);
  for (int i = 0; i < 3; i++) TF_DeleteFunction(fns[i]);
  /* the calls run */
  TF_SessionOptions *so = TF_NewSessionOptions();
  TF_Session *sess = TF_NewSession(g, so, s);
  CT_ASSERT_OK(s);
  TF_Output feeds[2] = {{TF_GraphOperationByName(g, "x"), 0},
                        {TF_GraphOperationByName(g, "w"), 0}};
  int64_t dx[2] = {3, 4}, dw[2] = {4, 5};
  float xv[12], wv[20];
  for (int i = 0; i < 12; i++) xv[i] = (float)(i % 5) - 1.0f;
  for (int i = 0; i < 20; i++) wv[i] = (float)(i % 3) * 0.5f;
  TF_Tensor *in[2] = {ct_floats(dx, 2, xv), ct_floats(dw, 2, wv)};
  TF_Output rows = {TF_GraphOperationByName(g, "rows"), 0};
  TF_Tensor *r = ct_run1(sess, rows, feeds, in, 2);
  CU_ASSERT_EQUAL(*(int32_t *)TF_TensorData(r), 3);
  TF_DeleteTensor(r);
  /* sum2 = 2 * rowsum(relu(x w + 0.5)), computed here */
  TF_Output sum2 = {TF_GraphOperationByName(g, "sum2"), 0};
  r = ct_run1(sess, sum2, feeds, in, 2);
  for (int i = 0; i < 3; i++) {
    float want = 0;
    for (int j = 0; j < 5; j++) {
      float h = 0.5f;
      for (int k = 0; k < 4; k++) h += xv[i * 4 + k] * wv[k * 5 + j];
      want += h > 0 ? h : 0;
    }
    CU_ASSERT_DOUBLE_EQUAL(((float *)TF_TensorData(r))[i], 2 * want, 1e-4);
  }
  TF_DeleteTensor(r);
  for (int i = 0; i < 2; i++) TF_DeleteTensor(in[i]);
  TF_CloseSession(sess, s);
  TF_DeleteSession(sess, s);
  TF_DeleteSessionOptions(so);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
}

static const tfs_test_case build_cases[] = {
    {"build_and_query", test_build_and_query},
    {"shapes", test_shapes},
    {"input_list_and_lengths", test_input_list_and_lengths},
    {"build_errors", test_build_errors},
    {NULL, NULL}};

static const tfs_test_case attr_cases[] = {
    {"getters", test_attr_getters},
    {"lists_with_storage", test_attr_lists_with_storage},
    {"tensor_and_protos", test_attr_tensor_and_protos},
    {NULL, NULL}};

static const tfs_test_case proto_cases[] = {
    {"graphdef_roundtrip", test_graphdef_roundtrip},
    {"import_errors", test_import_errors},
    {"frozen_mlp_import", test_frozen_mlp_import},
    {"op_protos", test_op_protos},
    {"try_evaluate_constant", test_try_evaluate_constant},
    {"functions", test_functions},
    {NULL, NULL}};

const tfs_test_suite tfs_test_suites[] = {
    {"c_api_build", build_cases},
    {"c_api_attrs", attr_cases},
    {"c_api_protos", proto_cases},
    {NULL, NULL}};
