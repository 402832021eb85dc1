/*
 * examples/c_api/frozen_mlp.c - the classic deployment program: read a
 * frozen GraphDef that TensorFlow wrote (a small MLP ending in Softmax),
 * import it into a graph the session already runs on, feed a batch read
 * from a file and print the probabilities.  The data directory is the
 * first argument, or EXAMPLE_DATA_DIR given at build time.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tensorflow/c/c_api.h>

#ifndef EXAMPLE_DATA_DIR
#define EXAMPLE_DATA_DIR "."
#endif

static void check(TF_Status *s, const char *what) {
  if (TF_GetCode(s) != TF_OK) {
    fprintf(stderr, "%s failed: %s\n", what, TF_Message(s));
    exit(1);
  }
}

static void free_file(void *data, size_t len) {
  (void)len;
  free(data);
}

/* The whole file in a TF_Buffer the program fills itself. */
static TF_Buffer *read_file(const char *dir, const char *name) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "cannot open %s\n", path);
    exit(1);
  }
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  void *data = malloc((size_t)n);
  if (fread(data, 1, (size_t)n, f) != (size_t)n) exit(1);
  fclose(f);
  TF_Buffer *b = TF_NewBuffer();
  b->data = data;
  b->length = (size_t)n;
  b->data_deallocator = free_file;
  return b;
}

int main(int argc, char **argv) {
  const char *dir = argc > 1 ? argv[1] : EXAMPLE_DATA_DIR;
  TF_Status *s = TF_NewStatus();
  TF_Graph *g = TF_NewGraph();
  TF_SessionOptions *opts = TF_NewSessionOptions();
  TF_Session *sess = TF_NewSession(g, opts, s); /* before the import */
  check(s, "TF_NewSession");

  TF_Buffer *gd = read_file(dir, "graph_mlp.pb");
  TF_ImportGraphDefOptions *io = TF_NewImportGraphDefOptions();
  TF_ImportGraphDefOptionsAddReturnOutput(io, "y", 0);
  TF_ImportGraphDefOptionsAddReturnOperation(io, "x");
  TF_ImportGraphDefResults *res = TF_GraphImportGraphDefWithResults(g, gd, io,
                                                                    s);
  check(s, "TF_GraphImportGraphDefWithResults");
  int nout, nops;
  TF_Output *outs;
  TF_Operation **ops;
  TF_ImportGraphDefResultsReturnOutputs(res, &nout, &outs);
  TF_ImportGraphDefResultsReturnOperations(res, &nops, &ops);
  TF_Output y = outs[0], x = {ops[0], 0};
  printf("imported: returns %s:%d and %s\n", TF_OperationName(y.oper),
         y.index, TF_OperationName(x.oper));
  TF_DeleteImportGraphDefResults(res);
  TF_DeleteImportGraphDefOptions(io);
  TF_DeleteBuffer(gd);

  size_t pos = 0;
  int count = 0;
  while (TF_GraphNextOperation(g, &pos)) count++;
  printf("%d operations\n", count);

  TF_Buffer *xb = read_file(dir, "mlp_x.f32");
  int64_t dims[2] = {(int64_t)(xb->length / (3 * sizeof(float))), 3};
  TF_Tensor *in = TF_AllocateTensor(TF_FLOAT, dims, 2, xb->length);
  memcpy(TF_TensorData(in), xb->data, xb->length);
  TF_DeleteBuffer(xb);

  TF_Output fetches[2] = {y, {TF_GraphOperationByName(g, "h"), 0}};
  TF_Tensor *out[2] = {NULL, NULL};
  TF_SessionRun(sess, NULL, &x, &in, 1, fetches, out, 2, NULL, 0, NULL, s);
  check(s, "TF_SessionRun");
  /* the outputs stay valid after the session and the graph are gone */
  TF_CloseSession(sess, s);
  TF_DeleteSession(sess, s);
  TF_DeleteGraph(g);

  const float *p = (const float *)TF_TensorData(out[0]);
  printf("y: %lld x %lld\n", (long long)TF_Dim(out[0], 0),
         (long long)TF_Dim(out[0], 1));
  for (int64_t i = 0; i < TF_Dim(out[0], 0); i++)
    printf("  row %lld: %.4f %.4f (class %d)\n", (long long)i, p[2 * i],
           p[2 * i + 1], p[2 * i + 1] > p[2 * i]);
  const float *h = (const float *)TF_TensorData(out[1]);
  printf("h: %lld x %lld, first row %.4f %.4f %.4f %.4f\n",
         (long long)TF_Dim(out[1], 0), (long long)TF_Dim(out[1], 1), h[0],
         h[1], h[2], h[3]);
  TF_DeleteTensor(out[0]);
  TF_DeleteTensor(out[1]);
  TF_DeleteTensor(in);
  TF_DeleteSessionOptions(opts);
  TF_DeleteStatus(s);
  return 0;
}
