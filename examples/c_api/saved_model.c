/*
 * examples/c_api/saved_model.c - serving SavedModels through TensorFlow's C
 * API as C programs do (cppflow's load_model, the TF C serving samples):
 * TF_LoadSessionFromSavedModel, then TF_SessionRun on the signature's
 * tensor names.  Loads a Keras model.export() (two inputs, two outputs), a
 * TF1 builder's second MetaGraph by its tag set {serve, extra} (a lookup
 * table filled by the main op), and a tf.Module whose "accumulate"
 * signature updates a variable its "predict" signature reads; then the
 * loader's errors.  The models are tests/data/saved_models/ (TensorFlow
 * 2.21's exports).  The same source builds against TensorFlow's C library
 * (scripts/c_api_compare), which printed the .expected file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tensorflow/c/c_api.h"

#ifndef EXAMPLE_DATA_DIR
#define EXAMPLE_DATA_DIR "tests/data/wire"
#endif

static void check(TF_Status *s, const char *what) {
  if (TF_GetCode(s) != TF_OK) {
    fprintf(stderr, "%s failed: %s\n", what, TF_Message(s));
    exit(1);
  }
}

static const char *model(const char *data_dir, const char *name) {
  static char buf[1024];
  snprintf(buf, sizeof buf, "%s/../saved_models/%s/model", data_dir, name);
  return buf;
}

static TF_Output out(TF_Graph *g, const char *op, int index) {
  TF_Output o = {TF_GraphOperationByName(g, op), index};
  if (!o.oper) {
    fprintf(stderr, "no operation %s\n", op);
    exit(1);
  }
  return o;
}

static TF_Tensor *floats(const int64_t *dims, int nd, float start,
                         float step) {
  int64_t n = 1;
  for (int i = 0; i < nd; i++) n *= dims[i];
  TF_Tensor *t = TF_AllocateTensor(TF_FLOAT, dims, nd,
                                   (size_t)n * sizeof(float));
  float *p = (float *)TF_TensorData(t);
  for (int64_t i = 0; i < n; i++) p[i] = start + step * (float)i;
  return t;
}

static void print_floats(const char *what, const TF_Tensor *t) {
  const float *p = (const float *)TF_TensorData(t);
  int64_t n = (int64_t)(TF_TensorByteSize(t) / sizeof(float));
  printf("%s [", what);
  for (int i = 0; i < TF_NumDims(t); i++)
    printf("%s%lld", i ? " " : "", (long long)TF_Dim(t, i));
  printf("]:");
  for (int64_t i = 0; i < n; i++) printf(" %.4f", p[i]);
  printf("\n");
}

/* Keras model.export(): serving_default takes features [?, 8] and extra
 * [?, 3] and returns probabilities and a score. */
static void keras_mlp(const char *dir, TF_Status *s) {
  TF_Graph *g = TF_NewGraph();
  TF_SessionOptions *opts = TF_NewSessionOptions();
  TF_Buffer *mg = TF_NewBuffer();
  const char *tags[] = {"serve"};
  TF_Session *sess = TF_LoadSessionFromSavedModel(
      opts, NULL, model(dir, "keras_mlp"), tags, 1, g, mg, s);
  check(s, "TF_LoadSessionFromSavedModel(keras_mlp)");
  /* a serialized MetaGraphDef starts with field 1, meta_info_def */
  printf("keras_mlp: loaded, MetaGraphDef %s, first byte 0x%02x\n",
         mg->length > 0 ? "returned" : "empty",
         mg->length ? ((const unsigned char *)mg->data)[0] : 0);
  int64_t d8[2] = {2, 8}, d3[2] = {2, 3};
  TF_Output in[2] = {out(g, "serving_default_features", 0),
                     out(g, "serving_default_extra", 0)};
  TF_Tensor *vals[2] = {floats(d8, 2, -1.0f, 0.125f),
                        floats(d3, 2, 0.5f, -0.25f)};
  TF_Output fetch[2] = {out(g, "StatefulPartitionedCall_1", 0),
                        out(g, "StatefulPartitionedCall_1", 1)};
  TF_Tensor *res[2] = {NULL, NULL};
  TF_SessionRun(sess, NULL, in, vals, 2, fetch, res, 2, NULL, 0, NULL, s);
  check(s, "TF_SessionRun(keras_mlp)");
  print_floats("  probabilities", res[0]);
  print_floats("  score", res[1]);
  for (int i = 0; i < 2; i++) {
    TF_DeleteTensor(vals[i]);
    TF_DeleteTensor(res[i]);
  }
  TF_CloseSession(sess, s);
  TF_DeleteSession(sess, s);
  TF_DeleteBuffer(mg);
  TF_DeleteSessionOptions(opts);
  TF_DeleteGraph(g);
}

/* The {serve, extra} MetaGraph of a TF1 SavedModelBuilder export: its main
 * op fills a string -> int64 table, and a variable scales x. */
static void tf1_builder(const char *dir, TF_Status *s) {
  TF_Graph *g = TF_NewGraph();
  TF_SessionOptions *opts = TF_NewSessionOptions();
  const char *tags[] = {"extra", "serve"};
  TF_Session *sess = TF_LoadSessionFromSavedModel(
      opts, NULL, model(dir, "tf1_builder"), tags, 2, g, NULL, s);
  check(s, "TF_LoadSessionFromSavedModel(tf1_builder)");
  static const char *const words[] = {"green", "violet", "red"};
  int64_t n = 3;
  TF_Tensor *w = TF_AllocateTensor(TF_STRING, &n, 1, 3 * sizeof(TF_TString));
  TF_TString *e = (TF_TString *)TF_TensorData(w);
  for (int i = 0; i < 3; i++) {
    TF_StringInit(&e[i]);
    TF_StringCopy(&e[i], words[i], strlen(words[i]));
  }
  TF_Tensor *x = floats(&n, 1, 1.0f, 1.0f);
  TF_Output in[2] = {out(g, "words", 0), out(g, "x", 0)};
  TF_Tensor *vals[2] = {w, x};
  TF_Output fetch[2] = {out(g, "ids", 0), out(g, "y", 0)};
  TF_Tensor *res[2] = {NULL, NULL};
  TF_SessionRun(sess, NULL, in, vals, 2, fetch, res, 2, NULL, 0, NULL, s);
  check(s, "TF_SessionRun(tf1_builder)");
  const int64_t *ids = (const int64_t *)TF_TensorData(res[0]);
  printf("tf1_builder {serve, extra}: ids of green violet red: %lld %lld "
         "%lld\n",
         (long long)ids[0], (long long)ids[1], (long long)ids[2]);
  print_floats("  y = 2.5 x", res[1]);
  for (int i = 0; i < 2; i++) {
    TF_DeleteTensor(vals[i]);
    TF_DeleteTensor(res[i]);
  }
  TF_CloseSession(sess, s);
  TF_DeleteSession(sess, s);
  TF_DeleteSessionOptions(opts);
  TF_DeleteGraph(g);
}

/* tf.Module: "accumulate" adds delta to a variable that "predict" adds to
 * x before its matmul; the state lives in the session. */
static void module(const char *dir, TF_Status *s) {
  TF_Graph *g = TF_NewGraph();
  TF_SessionOptions *opts = TF_NewSessionOptions();
  const char *tags[] = {"serve"};
  TF_Session *sess = TF_LoadSessionFromSavedModel(
      opts, NULL, model(dir, "module"), tags, 1, g, NULL, s);
  check(s, "TF_LoadSessionFromSavedModel(module)");
  int64_t d4 = 4, dx[2] = {1, 4};
  TF_Tensor *delta = floats(&d4, 1, 0.5f, 0.5f);
  TF_Tensor *x = floats(dx, 2, 1.0f, -0.5f);
  TF_Output acc_in = out(g, "accumulate_delta", 0);
  TF_Output acc_out = out(g, "StatefulPartitionedCall", 0);
  TF_Output pred_in = out(g, "predict_x", 0);
  TF_Output pred_out = out(g, "StatefulPartitionedCall_1", 1);
  for (int round = 0; round < 2; round++) {
    TF_Tensor *total = NULL, *y = NULL;
    TF_SessionRun(sess, NULL, &acc_in, &delta, 1, &acc_out, &total, 1, NULL,
                  0, NULL, s);
    check(s, "TF_SessionRun(accumulate)");
    TF_SessionRun(sess, NULL, &pred_in, &x, 1, &pred_out, &y, 1, NULL, 0,
                  NULL, s);
    check(s, "TF_SessionRun(predict)");
    printf("module round %d:\n", round + 1);
    print_floats("  total", total);
    print_floats("  y", y);
    TF_DeleteTensor(total);
    TF_DeleteTensor(y);
  }
  TF_DeleteTensor(delta);
  TF_DeleteTensor(x);
  TF_CloseSession(sess, s);
  TF_DeleteSession(sess, s);
  TF_DeleteSessionOptions(opts);
  TF_DeleteGraph(g);
}

static const char *code_name(TF_Code c) {
  switch (c) {
    case TF_INVALID_ARGUMENT: return "INVALID_ARGUMENT";
    case TF_NOT_FOUND: return "NOT_FOUND";
    case TF_OK: return "OK";
    default: return "other";
  }
}

/* The message up to the first "/": the export directory differs between
 * checkouts. */
static void print_error(const char *what, TF_Status *s) {
  const char *msg = TF_Message(s);
  const char *slash = strchr(msg, '/');
  int n = slash ? (int)(slash - msg) : (int)strlen(msg);
  printf("%s: %s: %.*s%s\n", what, code_name(TF_GetCode(s)), n, msg,
         slash ? "..." : "");
}

static void errors(const char *dir, TF_Status *s) {
  TF_Graph *g = TF_NewGraph();
  TF_SessionOptions *opts = TF_NewSessionOptions();
  const char *train[] = {"train"};
  TF_Session *sess = TF_LoadSessionFromSavedModel(
      opts, NULL, model(dir, "module"), train, 1, g, NULL, s);
  print_error("tags {train}", s);
  printf("  session %s, graph has %s operations\n", sess ? "set" : "NULL",
         TF_GraphNextOperation(g, &(size_t){0}) ? "" : "no");
  sess = TF_LoadSessionFromSavedModel(opts, NULL, "/nonexistent/model",
                                      train, 1, g, NULL, s);
  print_error("missing directory", s);
  const char *serve[] = {"serve"};
  sess = TF_LoadSessionFromSavedModel(opts, NULL, model(dir, "module"), serve,
                                      1, g, NULL, s);
  check(s, "TF_LoadSessionFromSavedModel(module)");
  TF_Graph *g2 = g;
  TF_Session *again = TF_LoadSessionFromSavedModel(
      opts, NULL, model(dir, "module"), serve, 1, g2, NULL, s);
  print_error("the same graph again", s);
  printf("  session %s\n", again ? "set" : "NULL");
  static const char garbage[] = "\xff\xff\xff";
  TF_Buffer *ro = TF_NewBufferFromString(garbage, 3);
  TF_Graph *g3 = TF_NewGraph();
  again = TF_LoadSessionFromSavedModel(opts, ro, model(dir, "module"), serve,
                                       1, g3, NULL, s);
  print_error("bad RunOptions", s);
  TF_DeleteBuffer(ro);
  TF_DeleteGraph(g3);
  TF_CloseSession(sess, s);
  TF_DeleteSession(sess, s);
  TF_DeleteSessionOptions(opts);
  TF_DeleteGraph(g);
}

int main(int argc, char **argv) {
  const char *dir = argc > 1 ? argv[1] : EXAMPLE_DATA_DIR;
  TF_Status *s = TF_NewStatus();
  keras_mlp(dir, s);
  tf1_builder(dir, s);
  module(dir, s);
  errors(dir, s);
  TF_DeleteStatus(s);
  return 0;
}
