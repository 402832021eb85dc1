/*
 * examples/c_api/graph_import.c - GraphDef round trip: serialize a graph,
 * import it twice into another graph (under a prefix, then with the
 * prefix made unique), map one of its inputs onto an existing tensor, ask
 * for return outputs and operations, and run the result.
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

static TF_Operation *scalar(TF_Graph *g, const char *name, float v,
                            TF_Status *s) {
  TF_Tensor *t = TF_AllocateTensor(TF_FLOAT, NULL, 0, sizeof v);
  memcpy(TF_TensorData(t), &v, sizeof v);
  TF_OperationDescription *d = TF_NewOperation(g, "Const", name);
  TF_SetAttrTensor(d, "value", t, s);
  TF_SetAttrType(d, "dtype", TF_FLOAT);
  TF_DeleteTensor(t);
  TF_Operation *op = TF_FinishOperation(d, s);
  check(s, name);
  return op;
}

static TF_Operation *binary(TF_Graph *g, const char *type, const char *name,
                            TF_Operation *x, TF_Operation *y, TF_Status *s) {
  TF_OperationDescription *d = TF_NewOperation(g, type, name);
  TF_AddInput(d, (TF_Output){x, 0});
  TF_AddInput(d, (TF_Output){y, 0});
  TF_Operation *op = TF_FinishOperation(d, s);
  check(s, name);
  return op;
}

static float run_scalar(TF_Graph *g, TF_Output fetch, TF_Status *s) {
  TF_SessionOptions *opts = TF_NewSessionOptions();
  TF_Session *sess = TF_NewSession(g, opts, s);
  TF_Tensor *out = NULL;
  TF_SessionRun(sess, NULL, NULL, NULL, 0, &fetch, &out, 1, NULL, 0, NULL, s);
  check(s, "TF_SessionRun");
  float v = *(float *)TF_TensorData(out);
  TF_DeleteTensor(out);
  TF_DeleteSession(sess, s);
  TF_DeleteSessionOptions(opts);
  return v;
}

int main(void) {
  TF_Status *s = TF_NewStatus();
  TF_Graph *src = TF_NewGraph();
  TF_Operation *a = scalar(src, "a", 2, s);
  TF_Operation *b = scalar(src, "b", 3, s);
  TF_Operation *prod = binary(src, "Mul", "prod", a, b, s);
  TF_OperationDescription *d = TF_NewOperation(src, "NoOp", "after");
  TF_AddControlInput(d, prod);
  TF_FinishOperation(d, s);
  check(s, "NoOp");
  TF_Buffer *gd = TF_NewBuffer();
  TF_GraphToGraphDef(src, gd, s);
  check(s, "TF_GraphToGraphDef");
  printf("exported a GraphDef (%s)\n", gd->length > 0 ? "non-empty" : "empty");

  TF_Graph *dst = TF_NewGraph();
  TF_Operation *ten = scalar(dst, "ten", 10, s);
  TF_ImportGraphDefOptions *o = TF_NewImportGraphDefOptions();
  TF_ImportGraphDefOptionsSetPrefix(o, "model");
  TF_ImportGraphDefOptionsAddReturnOutput(o, "prod", 0);
  TF_ImportGraphDefOptionsAddReturnOperation(o, "after");
  TF_ImportGraphDefResults *r = TF_GraphImportGraphDefWithResults(dst, gd, o,
                                                                  s);
  check(s, "import");
  int n;
  TF_Output *outs;
  TF_Operation **ops;
  TF_ImportGraphDefResultsReturnOutputs(r, &n, &outs);
  printf("return output: %s:%d\n", TF_OperationName(outs[0].oper),
         outs[0].index);
  TF_Output first = outs[0];
  TF_ImportGraphDefResultsReturnOperations(r, &n, &ops);
  printf("return operation: %s with %d control inputs\n",
         TF_OperationName(ops[0]), TF_OperationNumControlInputs(ops[0]));
  TF_DeleteImportGraphDefResults(r);
  TF_DeleteImportGraphDefOptions(o);

  /* again, with "a" replaced by dst's "ten" and the prefix made unique */
  o = TF_NewImportGraphDefOptions();
  TF_ImportGraphDefOptionsSetPrefix(o, "model");
  TF_ImportGraphDefOptionsSetUniquifyPrefix(o, 1);
  TF_ImportGraphDefOptionsAddInputMapping(o, "a", 0, (TF_Output){ten, 0});
  TF_ImportGraphDefOptionsAddInputMapping(o, "unused", 0, (TF_Output){ten, 0});
  TF_ImportGraphDefOptionsAddReturnOutput(o, "prod", 0);
  TF_Output second;
  TF_GraphImportGraphDefWithReturnOutputs(dst, gd, o, &second, 1, s);
  check(s, "second import");
  r = TF_GraphImportGraphDefWithResults(dst, gd, o, s);
  const char **names;
  int *idx;
  TF_ImportGraphDefResultsMissingUnusedInputMappings(r, &n, &names, &idx);
  printf("third import: %d unused input mapping(s): %s:%d\n", n, names[0],
         idx[0]);
  TF_DeleteImportGraphDefResults(r);
  TF_DeleteImportGraphDefOptions(o);
  printf("second import: %s, fed from %s\n", TF_OperationName(second.oper),
         TF_OperationName(TF_OperationInput((TF_Input){second.oper, 0}).oper));

  size_t pos = 0;
  TF_Operation *op;
  printf("operations of the importing graph:\n");
  while ((op = TF_GraphNextOperation(dst, &pos)) != NULL)
    printf("  %s (%s)\n", TF_OperationName(op), TF_OperationOpType(op));
  printf("model/prod = %g, %s = %g\n", run_scalar(dst, first, s),
         TF_OperationName(second.oper), run_scalar(dst, second, s));

  TF_DeleteBuffer(gd);
  TF_DeleteGraph(src);
  TF_DeleteGraph(dst);
  TF_DeleteStatus(s);
  return 0;
}
