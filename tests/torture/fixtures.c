/*
 * tests/torture/fixtures.c - what the fault-injection scenarios share:
 * the conformance models they load from the source tree, the ConfigProto
 * bytes they run under, importing a model and running its fetches.
 */
#include "fixtures.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

model g_mlp = {"mlp", {"probs:0", "logits/BiasAdd:0"}, 2};
model g_lstm = {"lstm", {"h:0", "c:0", "out/BiasAdd:0"}, 3};
model g_cnn = {"cnn", {"probs:0", "logits/BiasAdd:0"}, 2};
model g_mobilenet = {"mobilenet", {"probs:0", "block1/residual:0"}, 2};
model g_transformer = {
    "transformer", {"out:0", "attention/probs:0", "residual1:0"}, 3};

int model_load(model *m) {
  if (m->pb) return 0;
  char rel[256];
  snprintf(rel, sizeof rel, "tests/conformance/models/%s/graph.pb", m->dir);
  char *path = tt_path(rel);
  m->pb = tt_read_file(path, &m->pb_len);
  free(path);
  snprintf(rel, sizeof rel, "tests/conformance/models/%s/feed0.npy", m->dir);
  path = tt_path(rel);
  tfs_status *st = tfs_status_new();
  m->feed = tfs_npy_read(path, st);
  if (!m->feed) fprintf(stderr, "torture: %s\n", tfs_status_message(st));
  tfs_status_free(st);
  free(path);
  return m->pb && m->feed ? 0 : -1;
}

void model_unload(model *m) {
  free(m->pb);
  tfs_tensor_free(m->feed);
  m->pb = NULL;
  m->feed = NULL;
}

/* Splits "name:index"; 0 ok. */
int parse_output(const char *spec, char *name, size_t cap, int *index) {
  const char *colon = strrchr(spec, ':');
  size_t n = colon ? (size_t)(colon - spec) : strlen(spec);
  if (n >= cap) return -1;
  memcpy(name, spec, n);
  name[n] = 0;
  *index = colon ? atoi(colon + 1) : 0;
  return 0;
}

int find_outputs(tfs_graph *g, const model *m, tfs_output *x,
                        tfs_output *fetches, tfs_status *st) {
  char name[128];
  int index;
  x->oper = tfs_graph_operation_by_name(g, "x");
  x->index = 0;
  for (int i = 0; i < m->nfetch; i++) {
    parse_output(m->fetch[i], name, sizeof name, &index);
    fetches[i].oper = tfs_graph_operation_by_name(g, name);
    fetches[i].index = index;
    if (!fetches[i].oper) {
      tfs_status_set(st, TFS_NOT_FOUND, m->fetch[i]);
      tt_fail("imported graph lacks %s", m->fetch[i]);
      return -1;
    }
  }
  if (!x->oper) {
    tfs_status_set(st, TFS_NOT_FOUND, "x");
    tt_fail("imported graph lacks x");
    return -1;
  }
  return 0;
}

/* ConfigProto bytes: intra_op_parallelism_threads 1,
 * inter_op_parallelism_threads -1 (every node on the caller's thread, so
 * the order of allocations is the same in every run). */
#define THREADS_CONFIG                                                     \
  0x10, 0x01, 0x28, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,  \
      0x01
const unsigned char kThreads[13] = {THREADS_CONFIG};
/* ... and graph_options.rewrite_options.disable_meta_optimizer true. */
const unsigned char kThreadsNoOpt[20] = {
    THREADS_CONFIG, 0x52, 0x05, 0x52, 0x03, 0x98, 0x01, 0x01};
/* ... the same, with allow_soft_placement true and
 * operation_timeout_in_ms 60000. */
const unsigned char kRunConfig[26] = {
    THREADS_CONFIG, 0x38, 0x01, 0x58, 0xe0, 0xd4, 0x03,
    0x52, 0x05, 0x52, 0x03, 0x98, 0x01, 0x01};

/* A session on `g` with `config` bytes; NULL with st set. */
tfs_session *session_with_config(tfs_graph *g, const void *config,
                                        size_t len, tfs_status *st) {
  tfs_session_options *o = tfs_session_options_new();
  if (!o) {
    tt_null(st, "tfs_session_options_new");
    return NULL;
  }
  tfs_session *s = NULL;
  tfs_session_options_set_config(o, config, len, st);
  if (tfs_status_ok(st)) s = tfs_session_new(g, o, st);
  tfs_session_options_free(o);
  return s;
}

/* Runs the model's fetches (run_options / metadata as for run_ex) and
 * records them under `tag`; 0 ok. */
int run_model(tfs_session *s, tfs_graph *g, const model *m,
                     const tfs_buffer *run_options, tfs_buffer *md,
                     const char *tag, tfs_status *st, tt_result *res) {
  tfs_output x, fetches[3];
  tfs_tensor *out[3] = {NULL, NULL, NULL};
  if (find_outputs(g, m, &x, fetches, st)) return -1;
  tfs_session_run_ex(s, run_options, &x, &m->feed, 1, fetches, out,
                     m->nfetch, NULL, 0, md, st);
  int ok = tfs_status_ok(st);
  for (int i = 0; i < m->nfetch; i++) {
    if (ok) {
      char name[160];
      snprintf(name, sizeof name, "%s %s", tag, m->fetch[i]);
      if (!out[i]) tt_fail("run succeeded without fetch %d", i);
      tt_result_tensor(res, name, out[i]);
    } else if (out[i]) {
      tt_fail("run failed but fetch %d is set", i);
    }
    tfs_tensor_free(out[i]);
  }
  return ok ? 0 : -1;
}

/* Imports m into a new graph; NULL with st set. */
tfs_graph *import_model(const model *m, tfs_status *st) {
  tfs_graph *g = tfs_graph_new();
  if (!g) {
    tt_null(st, "tfs_graph_new");
    return NULL;
  }
  tfs_import_results *r =
      tfs_graph_import_graphdef(g, m->pb, m->pb_len, NULL, st);
  if (!r) {
    if (tfs_status_ok(st)) tt_fail("import returned NULL with status OK");
    if (tfs_graph_num_operations(g) != 0)
      tt_fail("failed import left %zu operations in the graph",
              tfs_graph_num_operations(g));
    tfs_graph_free(g);
    return NULL;
  }
  tfs_import_results_free(r);
  return g;
}

void models_unload(void) {
  model_unload(&g_mlp);
  model_unload(&g_lstm);
  model_unload(&g_cnn);
  model_unload(&g_mobilenet);
  model_unload(&g_transformer);
}
