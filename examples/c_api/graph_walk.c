/*
 * examples/c_api/graph_walk.c - builds a small dense layer with
 * TF_NewOperation and walks the graph the way model-inspection tools do:
 * every operation's name, type, device, inputs and outputs with their
 * dtypes, the inferred shape of each output, and a few attrs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tensorflow/c/c_api.h>

static void check(TF_Status *s, const char *what) {
  if (TF_GetCode(s) != TF_OK) {
    fprintf(stderr, "%s failed: %s\n", what, TF_Message(s));
    exit(1);
  }
}

static TF_Operation *finish(TF_OperationDescription *d, TF_Status *s) {
  TF_Operation *op = TF_FinishOperation(d, s);
  check(s, "TF_FinishOperation");
  return op;
}

static TF_Operation *placeholder(TF_Graph *g, const char *name,
                                 TF_DataType dt, const int64_t *dims,
                                 int ndims, TF_Status *s) {
  TF_OperationDescription *d = TF_NewOperation(g, "Placeholder", name);
  TF_SetAttrType(d, "dtype", dt);
  if (ndims >= 0) TF_SetAttrShape(d, "shape", dims, ndims);
  return finish(d, s);
}

static TF_Operation *constant(TF_Graph *g, const char *name, TF_DataType dt,
                              const void *v, size_t elem,
                              const int64_t *dims, int ndims, TF_Status *s) {
  size_t n = 1;
  for (int i = 0; i < ndims; i++) n *= (size_t)dims[i];
  TF_Tensor *t = TF_AllocateTensor(dt, dims, ndims, n * elem);
  memcpy(TF_TensorData(t), v, n * elem);
  TF_OperationDescription *d = TF_NewOperation(g, "Const", name);
  TF_SetAttrTensor(d, "value", t, s);
  TF_SetAttrType(d, "dtype", dt);
  TF_DeleteTensor(t);
  return finish(d, s);
}

static TF_Operation *op1(TF_Graph *g, const char *type, const char *name,
                         TF_Operation *x, TF_Status *s) {
  TF_OperationDescription *d = TF_NewOperation(g, type, name);
  TF_AddInput(d, (TF_Output){x, 0});
  return finish(d, s);
}

static TF_Operation *op2(TF_Graph *g, const char *type, const char *name,
                         TF_Operation *x, TF_Operation *y, TF_Status *s) {
  TF_OperationDescription *d = TF_NewOperation(g, type, name);
  TF_AddInput(d, (TF_Output){x, 0});
  TF_AddInput(d, (TF_Output){y, 0});
  return finish(d, s);
}

static void print_shape(TF_Graph *g, TF_Output o, TF_Status *s) {
  int n = TF_GraphGetTensorNumDims(g, o, s);
  check(s, "TF_GraphGetTensorNumDims");
  if (n < 0) {
    printf("<unknown>");
    return;
  }
  int64_t dims[8];
  TF_GraphGetTensorShape(g, o, dims, n, s);
  check(s, "TF_GraphGetTensorShape");
  printf("[");
  for (int i = 0; i < n; i++) {
    if (dims[i] < 0) printf("%s?", i ? "," : "");
    else printf("%s%lld", i ? "," : "", (long long)dims[i]);
  }
  printf("]");
}

static void describe(TF_Graph *g, TF_Operation *op, size_t pos,
                     TF_Status *s) {
  int nin = TF_OperationNumInputs(op), nout = TF_OperationNumOutputs(op);
  printf("%zu. %s (%s) device '%s', %d inputs, %d outputs, %d control "
         "inputs\n",
         pos, TF_OperationName(op), TF_OperationOpType(op),
         TF_OperationDevice(op), nin, nout, TF_OperationNumControlInputs(op));
  for (int i = 0; i < nin; i++) {
    TF_Output src = TF_OperationInput((TF_Input){op, i});
    printf("   in %d: dtype %d from %s:%d\n", i,
           (int)TF_OperationInputType((TF_Input){op, i}),
           TF_OperationName(src.oper), src.index);
  }
  for (int i = 0; i < nout; i++) {
    TF_Output o = {op, i};
    printf("   out %d: dtype %d shape ", i, (int)TF_OperationOutputType(o));
    print_shape(g, o, s);
    printf(", %d consumers\n", TF_OperationOutputNumConsumers(o));
  }
}

int main(void) {
  TF_Status *s = TF_NewStatus();
  TF_Graph *g = TF_NewGraph();
  float w[12] = {0};
  float b[3] = {0.1f, 0.2f, 0.3f};
  TF_Operation *x = placeholder(g, "x", TF_FLOAT, (int64_t[]){-1, 4}, 2, s);
  TF_Operation *any = placeholder(g, "any", TF_FLOAT, NULL, -1, s);
  TF_Operation *wc = constant(g, "w", TF_FLOAT, w, 4, (int64_t[]){4, 3}, 2, s);
  TF_Operation *bc = constant(g, "b", TF_FLOAT, b, 4, (int64_t[]){3}, 1, s);
  TF_Operation *mm = op2(g, "MatMul", "dense/MatMul", x, wc, s);
  TF_Operation *ba = op2(g, "BiasAdd", "dense/BiasAdd", mm, bc, s);
  TF_Operation *relu = op1(g, "Relu", "dense/Relu", ba, s);
  TF_Operation *sm = op1(g, "Softmax", "probs", relu, s);
  TF_Operation *shape = op1(g, "Shape", "shape", sm, s);
  int32_t flat[1] = {-1};
  TF_Operation *fl = constant(g, "flat", TF_INT32, flat, 4, (int64_t[]){1}, 1,
                              s);
  op2(g, "Reshape", "flatten", sm, fl, s);
  op1(g, "Identity", "any_copy", any, s);
  TF_OperationDescription *d = TF_NewOperation(g, "NoOp", "done");
  TF_AddControlInput(d, sm);
  TF_SetDevice(d, "/device:CPU:0");
  finish(d, s);

  size_t pos = 0;
  TF_Operation *op;
  while ((op = TF_GraphNextOperation(g, &pos)) != NULL)
    describe(g, op, pos, s); /* pos: TensorFlow's node id */

  unsigned char ta = 1;
  TF_OperationGetAttrBool(mm, "transpose_a", &ta, s);
  check(s, "transpose_a");
  TF_DataType t;
  TF_OperationGetAttrType(shape, "out_type", &t, s);
  TF_AttrMetadata m = TF_OperationGetAttrMetadata(x, "shape", s);
  int64_t dims[2];
  TF_OperationGetAttrShape(x, "shape", dims, 2, s);
  printf("dense/MatMul transpose_a=%d, shape out_type=%d\n", ta, (int)t);
  printf("x shape attr: kind %d, rank %lld, dims %lld %lld\n", (int)m.type,
         (long long)m.total_size, (long long)dims[0], (long long)dims[1]);
  char fmt[8] = {0};
  TF_OperationGetAttrString(ba, "data_format", fmt, sizeof fmt - 1, s);
  printf("dense/BiasAdd data_format=%s\n", fmt);
  TF_OperationGetAttrMetadata(x, "nope", s);
  printf("missing attr: code %d: %s\n", (int)TF_GetCode(s), TF_Message(s));
  printf("lookup probs: %s, lookup probs:0: %s\n",
         TF_GraphOperationByName(g, "probs") ? "found" : "absent",
         TF_GraphOperationByName(g, "probs:0") ? "found" : "absent");

  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
  return 0;
}
