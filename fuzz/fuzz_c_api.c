/*
 * fuzz/fuzz_c_api.c - libFuzzer target: the TensorFlow C API path,
 * TF_GraphImportGraphDef then one bounded TF_SessionRun.  Placeholders of
 * fixed-size dtypes get zeroed tensors (unknown dims as 1, at most 4096
 * elements); the input size's parity chooses between fetching
 * nothing and fetching output 0 of the last operation.  The session runs
 * everything on the caller's thread (ConfigProto) with RunOptions
 * timeout_in_ms 200, and bounds the work of one op and the memory of
 * the run through ConfigProto field 7600 (TfsessLimits): graphs that
 * ask for gigabytes or minutes of legitimate work (a SpaceToBatchND with
 * a padding of millions) are refused instead of timing out the fuzzer.
 * Graphs with Print ops are not run.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "tensorflow/c/c_api.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_FEEDS 64
#define MAX_ELEMENTS 4096
#define MAX_DIMS 16

/* ConfigProto { intra_op_parallelism_threads: 1,
 *               inter_op_parallelism_threads: -1,
 *               tfsess_limits (7600) { max_run_bytes: 2^28,
 *                                      max_op_elements: 2^22 } }. */
static const unsigned char config_bytes[] = {
    0x10, 0x01, 0x28, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    0xff, 0x01, 0x82, 0xdb, 0x03, 0x0b, 0x18, 0x80, 0x80, 0x80, 0x80,
    0x01, 0x30, 0x80, 0x80, 0x80, 0x02};
/* RunOptions { timeout_in_ms: 200 }. */
static const unsigned char run_options_bytes[] = {0x10, 0xc8, 0x01};

/* A zeroed tensor for placeholder output `out`, or NULL. */
static TF_Tensor *feed_value(TF_Graph *g, TF_Output out, TF_Status *st) {
  int64_t dims[MAX_DIMS];
  int64_t total = 1;
  TF_DataType dt = TF_OperationOutputType(out);
  size_t esize = TF_DataTypeSize(dt);
  TF_Tensor *t;
  int nd, i;
  if (dt == TF_STRING || dt == TF_RESOURCE || dt == TF_VARIANT ||
      esize == 0)
    return NULL;
  nd = TF_GraphGetTensorNumDims(g, out, st);
  if (TF_GetCode(st) != TF_OK || nd < 0) nd = 0;
  if (nd > MAX_DIMS) return NULL;
  if (nd > 0) {
    TF_GraphGetTensorShape(g, out, dims, nd, st);
    if (TF_GetCode(st) != TF_OK) return NULL;
  }
  for (i = 0; i < nd; i++) {
    if (dims[i] < 0) dims[i] = 1;
    if (dims[i] > MAX_ELEMENTS) return NULL;
    total *= dims[i];
    if (total > MAX_ELEMENTS) return NULL;
  }
  t = TF_AllocateTensor(dt, nd ? dims : NULL, nd, (size_t)total * esize);
  if (t && TF_TensorData(t)) memset(TF_TensorData(t), 0, TF_TensorByteSize(t));
  return t;
}

static void run_graph(TF_Graph *g, int fetch_one, TF_Status *st) {
  TF_Output feeds[MAX_FEEDS], fetch = {NULL, 0};
  TF_Tensor *values[MAX_FEEDS], *result = NULL;
  TF_SessionOptions *o = TF_NewSessionOptions();
  TF_Session *s = NULL;
  TF_Buffer ro = {run_options_bytes, sizeof run_options_bytes, NULL};
  TF_Operation *op;
  size_t pos = 0;
  int i, nfeeds = 0, nfetch = 0;
  if (!o) return;
  while ((op = TF_GraphNextOperation(g, &pos)) != NULL) {
    const char *type = TF_OperationOpType(op);
    if (strcmp(type, "Print") == 0 || strcmp(type, "PrintV2") == 0)
      goto out;
    if (strcmp(type, "Placeholder") == 0 && nfeeds < MAX_FEEDS &&
        TF_OperationNumOutputs(op) == 1) {
      TF_Output p = {op, 0};
      TF_Tensor *t = feed_value(g, p, st);
      if (t) {
        feeds[nfeeds] = p;
        values[nfeeds++] = t;
      }
    }
    if (TF_OperationNumOutputs(op) > 0) fetch.oper = op;
  }
  if (fetch_one && fetch.oper) nfetch = 1;
  TF_SetConfig(o, config_bytes, sizeof config_bytes, st);
  s = TF_NewSession(g, o, st);
  if (TF_GetCode(st) == TF_OK && s) {
    TF_SessionRun(s, &ro, feeds, values, nfeeds, &fetch, &result, nfetch,
                  NULL, 0, NULL, st);
    TF_CloseSession(s, st);
  }
  if (s) TF_DeleteSession(s, st);
  TF_DeleteTensor(result);
out:
  for (i = 0; i < nfeeds; i++) TF_DeleteTensor(values[i]);
  TF_DeleteSessionOptions(o);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  TF_Status *st = TF_NewStatus();
  TF_Graph *g = TF_NewGraph();
  TF_ImportGraphDefOptions *o = TF_NewImportGraphDefOptions();
  TF_Buffer *gd = TF_NewBufferFromString(data, size);
  if (st && g && o && gd) {
    TF_GraphImportGraphDef(g, gd, o, st);
    if (TF_GetCode(st) == TF_OK) run_graph(g, (int)(size & 1), st);
  }
  TF_DeleteBuffer(gd);
  if (o) TF_DeleteImportGraphDefOptions(o);
  if (g) TF_DeleteGraph(g);
  TF_DeleteStatus(st);
  return 0;
}
