/*
 * examples/c_api/hello_tf.c - the first TensorFlow C API program: build
 * a graph of two constants and their sum, run it in a session and print
 * the result.  Plain TF C API code: it builds unchanged against
 * TensorFlow's libtensorflow or against tfsess.
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

/* A float Const holding `n` values of shape dims[0..ndims). */
static TF_Operation *const_floats(TF_Graph *g, const char *name,
                                  const float *v, const int64_t *dims,
                                  int ndims, TF_Status *s) {
  size_t n = 1;
  for (int i = 0; i < ndims; i++) n *= (size_t)dims[i];
  TF_Tensor *t = TF_AllocateTensor(TF_FLOAT, dims, ndims, n * sizeof(float));
  memcpy(TF_TensorData(t), v, n * sizeof(float));
  TF_OperationDescription *d = TF_NewOperation(g, "Const", name);
  TF_SetAttrTensor(d, "value", t, s);
  check(s, "TF_SetAttrTensor");
  TF_SetAttrType(d, "dtype", TF_FLOAT);
  TF_Operation *op = TF_FinishOperation(d, s);
  check(s, "TF_FinishOperation");
  TF_DeleteTensor(t);
  return op;
}

int main(void) {
  printf("TensorFlow C library version %s\n", TF_Version());
  TF_Status *s = TF_NewStatus();
  TF_Graph *g = TF_NewGraph();
  int64_t dims[1] = {3};
  TF_Operation *a = const_floats(g, "a", (float[]){1, 2, 3}, dims, 1, s);
  TF_Operation *b = const_floats(g, "b", (float[]){10, 20, 30}, dims, 1, s);
  TF_OperationDescription *d = TF_NewOperation(g, "AddV2", "sum");
  TF_AddInput(d, (TF_Output){a, 0});
  TF_AddInput(d, (TF_Output){b, 0});
  TF_Operation *sum = TF_FinishOperation(d, s);
  check(s, "AddV2");

  TF_SessionOptions *opts = TF_NewSessionOptions();
  TF_Session *sess = TF_NewSession(g, opts, s);
  check(s, "TF_NewSession");
  TF_Output fetch = {sum, 0};
  TF_Tensor *out = NULL;
  TF_SessionRun(sess, NULL, NULL, NULL, 0, &fetch, &out, 1, NULL, 0, NULL, s);
  check(s, "TF_SessionRun");

  const float *v = (const float *)TF_TensorData(out);
  printf("%s = [%g %g %g] (dtype %d, %d dims, %zu bytes)\n",
         TF_OperationName(sum), v[0], v[1], v[2], (int)TF_TensorType(out),
         TF_NumDims(out), TF_TensorByteSize(out));

  TF_DeleteTensor(out);
  TF_CloseSession(sess, s);
  TF_DeleteSession(sess, s);
  TF_DeleteSessionOptions(opts);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
  return 0;
}
