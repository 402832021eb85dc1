/*
 * examples/c_api/variables.c - a counter in a resource variable: the
 * graph assigns 10, adds 1.5 per step and reads the value back; the
 * value lives in the session across runs, and a second session on the
 * same graph starts without it.
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

static TF_Operation *var_op(TF_Graph *g, const char *type, const char *name,
                            TF_Operation *var, TF_Operation *value,
                            TF_Status *s) {
  TF_OperationDescription *d = TF_NewOperation(g, type, name);
  TF_AddInput(d, (TF_Output){var, 0});
  if (value) TF_AddInput(d, (TF_Output){value, 0});
  else TF_SetAttrType(d, "dtype", TF_FLOAT);
  TF_Operation *op = TF_FinishOperation(d, s);
  check(s, name);
  return op;
}

static void run_target(TF_Session *sess, TF_Operation *op, TF_Status *s) {
  const TF_Operation *targets[1] = {op};
  TF_SessionRun(sess, NULL, NULL, NULL, 0, NULL, NULL, 0, targets, 1, NULL, s);
  check(s, TF_OperationName(op));
}

static void read_value(TF_Session *sess, TF_Operation *read, TF_Status *s) {
  TF_Output fetch = {read, 0};
  TF_Tensor *out = NULL;
  TF_SessionRun(sess, NULL, NULL, NULL, 0, &fetch, &out, 1, NULL, 0, NULL, s);
  if (TF_GetCode(s) != TF_OK) {
    printf("read failed with code %d\n", (int)TF_GetCode(s));
    return;
  }
  printf("counter = %g\n", *(float *)TF_TensorData(out));
  TF_DeleteTensor(out);
}

int main(void) {
  TF_Status *s = TF_NewStatus();
  TF_Graph *g = TF_NewGraph();
  TF_OperationDescription *d = TF_NewOperation(g, "VarHandleOp", "counter");
  TF_SetAttrType(d, "dtype", TF_FLOAT);
  TF_SetAttrShape(d, "shape", NULL, 0);
  TF_SetAttrString(d, "shared_name", "counter", 7);
  TF_Operation *var = TF_FinishOperation(d, s);
  check(s, "VarHandleOp");
  TF_Operation *init = var_op(g, "AssignVariableOp", "init", var,
                              scalar(g, "ten", 10, s), s);
  TF_Operation *step = var_op(g, "AssignAddVariableOp", "step", var,
                              scalar(g, "delta", 1.5f, s), s);
  TF_Operation *read = var_op(g, "ReadVariableOp", "read", var, NULL, s);

  TF_SessionOptions *opts = TF_NewSessionOptions();
  TF_Session *sess = TF_NewSession(g, opts, s);
  check(s, "TF_NewSession");
  read_value(sess, read, s);
  run_target(sess, init, s);
  read_value(sess, read, s);
  for (int i = 0; i < 4; i++) run_target(sess, step, s);
  read_value(sess, read, s);

  TF_Session *other = TF_NewSession(g, opts, s);
  check(s, "TF_NewSession");
  printf("second session: ");
  read_value(other, read, s);
  TF_DeleteSession(other, s); /* without TF_CloseSession */
  check(s, "TF_DeleteSession");

  TF_CloseSession(sess, s);
  TF_DeleteSession(sess, s);
  TF_DeleteSessionOptions(opts);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
  return 0;
}
