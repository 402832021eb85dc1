/*
 * fuzz/fuzz_config.c - libFuzzer target: the input as ConfigProto bytes
 * (tfs_session_options_set_config, then get_config and set again, and
 * TF_SetConfig through the C API) and as RunOptions bytes
 * (tfs_session_run_ex on a tiny graph, one session kept for the whole
 * process, its RunMetadata written as a Chrome trace) and as RunMetadata
 * bytes (tfs_trace_json).  No session is made from the fuzzed
 * ConfigProto: its thread counts could ask for millions of threads.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "tensorflow/c/c_api.h"
#include "tfsess/tfsess.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A session on "c = Const(1.0)", made once and kept (reachable, so the
 * leak checker does not count it). */
static tfs_graph *graph;
static tfs_session *session;
static tfs_output fetch;

static void make_session(tfs_status *st) {
  tfs_op_desc *d;
  tfs_tensor *one;
  tfs_session_options *o;
  graph = tfs_graph_new();
  one = tfs_tensor_scalar_float(1.0f);
  d = tfs_op_desc_new(graph, "Const", "c");
  tfs_op_desc_set_attr_tensor(d, "value", one, st);
  tfs_op_desc_set_attr_type(d, "dtype", TFS_FLOAT);
  fetch.oper = tfs_op_desc_finish(d, st);
  fetch.index = 0;
  tfs_tensor_free(one);
  o = tfs_session_options_new();
  tfs_session_options_set_inter_op_threads(o, -1);
  tfs_session_options_set_intra_op_threads(o, 1);
  session = tfs_session_new(graph, o, st);
  tfs_session_options_free(o);
  tfs_status_clear(st);
}

static void config(const uint8_t *data, size_t size, tfs_status *st) {
  tfs_session_options *o = tfs_session_options_new();
  tfs_buffer *out = tfs_buffer_new();
  TF_SessionOptions *to = TF_NewSessionOptions();
  TF_Status *ts = TF_NewStatus();
  if (o && out) {
    tfs_session_options_set_config(o, data, size, st);
    if (tfs_status_ok(st)) {
      tfs_session_options_get_config(o, out, st);
      if (tfs_status_ok(st))
        tfs_session_options_set_config(o, out->data, out->length, st);
    }
  }
  if (to && ts) TF_SetConfig(to, data, size, ts);
  TF_DeleteStatus(ts);
  TF_DeleteSessionOptions(to);
  tfs_buffer_free(out);
  tfs_session_options_free(o);
  tfs_status_clear(st);
}

static void run_options(const uint8_t *data, size_t size, tfs_status *st) {
  tfs_buffer ro = {data, size, NULL};
  tfs_buffer *md = tfs_buffer_new();
  tfs_tensor *result = NULL;
  if (!session || !fetch.oper || !md) {
    tfs_buffer_free(md);
    return;
  }
  tfs_session_run_ex(session, &ro, NULL, NULL, 0, &fetch, &result, 1, NULL,
                     0, md, st);
  if (tfs_status_ok(st) && md->length)
    free(tfs_trace_json(md->data, md->length, graph, st));
  tfs_tensor_free(result);
  tfs_buffer_free(md);
  tfs_status_clear(st);
}

/* The input as a traced run's RunMetadata: the Chrome trace writer. */
static void trace_json(const uint8_t *data, size_t size, tfs_status *st) {
  free(tfs_trace_json(data, size, graph, st));
  tfs_status_clear(st);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  tfs_status *st = tfs_status_new();
  if (!st) return 0;
  if (!graph) make_session(st);
  config(data, size, st);
  run_options(data, size, st);
  trace_json(data, size, st);
  tfs_status_free(st);
  return 0;
}
