/*
 * fuzz/fuzz_run.c - libFuzzer target: GraphDef bytes imported, then one
 * bounded session run.  Every Placeholder whose dtype has a fixed size is
 * fed a zeroed tensor of its inferred shape (unknown dims as 1, unknown
 * rank as a scalar, at most 4096 elements); up to 8 outputs of the last
 * operations are fetched, with RunOptions timeout_in_ms 200, all work
 * on the caller's thread, and limits on one op's output elements (2^22)
 * and a run's bytes (2^28).  Graphs with Print ops are imported but not run
 * (they would only flood the log).
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "tfsess/tfsess.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_FEEDS 64
#define MAX_FETCHES 8
#define MAX_ELEMENTS 4096

/* RunOptions { timeout_in_ms: 200 } (field 2, varint). */
static const unsigned char run_options_bytes[] = {0x10, 0xc8, 0x01};

/* A zeroed tensor for placeholder output `out`, or NULL when its dtype
 * cannot be fed here or its shape is too large. */
static tfs_tensor *feed_value(tfs_graph *g, tfs_output out, tfs_status *st) {
  int64_t dims[TFS_MAX_RANK];
  int64_t total = 1;
  tfs_dtype dt = tfs_operation_output_type(out);
  int nd, i;
  if (!tfs_dtype_is_valid(dt) || dt == TFS_STRING || dt == TFS_RESOURCE ||
      dt == TFS_VARIANT || tfs_dtype_size(dt) == 0)
    return NULL;
  tfs_status_clear(st);
  nd = tfs_graph_tensor_num_dims(g, out, st);
  if (!tfs_status_ok(st) || nd < 0) nd = 0;
  if (nd > TFS_MAX_RANK) return NULL;
  if (nd > 0) {
    tfs_graph_tensor_shape(g, out, dims, nd, st);
    if (!tfs_status_ok(st)) return NULL;
  }
  for (i = 0; i < nd; i++) {
    if (dims[i] < 0) dims[i] = 1;
    if (dims[i] > MAX_ELEMENTS) return NULL;
    total *= dims[i];
    if (total > MAX_ELEMENTS) return NULL;
  }
  tfs_status_clear(st);
  return tfs_tensor_new(dt, dims, nd, st);
}

/* Nonzero when the graph holds an op we do not want to run. */
static int unwanted(tfs_graph *g) {
  size_t pos = 0;
  tfs_operation *op;
  while ((op = tfs_graph_next_operation(g, &pos)) != NULL) {
    const char *t = tfs_operation_op_type(op);
    if (strcmp(t, "Print") == 0 || strcmp(t, "PrintV2") == 0) return 1;
  }
  return 0;
}

typedef struct run_args {
  tfs_output feeds[MAX_FEEDS];
  tfs_tensor *values[MAX_FEEDS];
  int nfeeds;
  tfs_output fetches[MAX_FETCHES]; /* the last MAX_FETCHES outputs */
  tfs_tensor *results[MAX_FETCHES];
  int nfetches, next_fetch;
} run_args;

/* Fills the feeds and fetches from the graph's operations. */
static void collect(tfs_graph *g, run_args *a, tfs_status *st) {
  size_t pos = 0;
  tfs_operation *op;
  while ((op = tfs_graph_next_operation(g, &pos)) != NULL) {
    int i, n = tfs_operation_num_outputs(op);
    if (strcmp(tfs_operation_op_type(op), "Placeholder") == 0 && n == 1 &&
        a->nfeeds < MAX_FEEDS) {
      tfs_output out = {op, 0};
      tfs_tensor *t = feed_value(g, out, st);
      if (t) {
        a->feeds[a->nfeeds] = out;
        a->values[a->nfeeds++] = t;
      }
    }
    for (i = 0; i < n && i < MAX_FETCHES; i++) {
      tfs_output out = {op, i};
      a->fetches[a->next_fetch] = out;
      a->next_fetch = (a->next_fetch + 1) % MAX_FETCHES;
      if (a->nfetches < MAX_FETCHES) a->nfetches++;
    }
  }
}

static void run_graph(tfs_graph *g, tfs_status *st) {
  run_args a;
  tfs_session_options *o = tfs_session_options_new();
  tfs_session *s = NULL;
  tfs_buffer ro = {run_options_bytes, sizeof run_options_bytes, NULL};
  int i;
  memset(&a, 0, sizeof a);
  if (!o) return;
  tfs_session_options_set_inter_op_threads(o, -1);
  tfs_session_options_set_intra_op_threads(o, 1);
  /* legitimate but huge work (an op asking for millions of elements)
   * is refused rather than timing the fuzzer out */
  tfs_session_options_set_limit(o, TFS_LIMIT_OP_ELEMENTS, (int64_t)1 << 22);
  tfs_session_options_set_limit(o, TFS_LIMIT_RUN_BYTES, (int64_t)1 << 28);
  collect(g, &a, st);
  tfs_status_clear(st);
  s = tfs_session_new(g, o, st);
  if (s) {
    tfs_session_run_ex(s, &ro, a.feeds, a.values, a.nfeeds, a.fetches,
                       a.results, a.nfetches, NULL, 0, NULL, st);
    tfs_status_clear(st);
    tfs_session_close(s, st);
  }
  for (i = 0; i < a.nfetches; i++) tfs_tensor_free(a.results[i]);
  for (i = 0; i < a.nfeeds; i++) tfs_tensor_free(a.values[i]);
  tfs_session_free(s);
  tfs_session_options_free(o);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  tfs_status *st = tfs_status_new();
  tfs_graph *g = tfs_graph_new();
  tfs_import_results *r = NULL;
  if (st && g) r = tfs_graph_import_graphdef(g, data, size, NULL, st);
  if (r && !unwanted(g)) run_graph(g, st);
  tfs_import_results_free(r);
  tfs_graph_free(g);
  tfs_status_free(st);
  return 0;
}
