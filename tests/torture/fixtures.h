/*
 * tests/torture/fixtures.h - what the fault-injection scenarios share:
 * conformance models (GraphDef bytes and the tensor fed to x:0), the
 * ConfigProto bytes they run under, and helpers that import a model,
 * open a session and run and record its fetches.  Each helper returns 0
 * (or a new object) on success and -1 (or NULL) with `st` set otherwise.
 */
#ifndef TFS_TESTS_TORTURE_FIXTURES_H
#define TFS_TESTS_TORTURE_FIXTURES_H

#include "torture.h"

typedef struct model {
  const char *dir;             /* under tests/conformance/models */
  const char *fetch[3];        /* fetched tensors, "name:index" */
  int nfetch;
  void *pb;                    /* graph.pb */
  size_t pb_len;
  tfs_tensor *feed;            /* feed0.npy, fed to x:0 */
} model;

extern model g_mlp, g_lstm, g_cnn, g_mobilenet, g_transformer;

/* Reads graph.pb and feed0.npy (once); 0 ok. */
int model_load(model *m);
void model_unload(model *m);
/* Every model, at the end. */
void models_unload(void);

/* Splits "name:index"; 0 ok. */
int parse_output(const char *spec, char *name, size_t cap, int *index);
/* x:0 and the model's fetches in g; 0 ok. */
int find_outputs(tfs_graph *g, const model *m, tfs_output *x,
                 tfs_output *fetches, tfs_status *st);

/* ConfigProto bytes: intra_op_parallelism_threads 1 and
 * inter_op_parallelism_threads -1 (every node on the caller's thread, so
 * that each run allocates in the same order); the same with the meta
 * optimizer disabled; and that with allow_soft_placement and
 * operation_timeout_in_ms 60000. */
extern const unsigned char kThreads[13];
extern const unsigned char kThreadsNoOpt[20];
extern const unsigned char kRunConfig[26];

/* A session on g under ConfigProto bytes. */
tfs_session *session_with_config(tfs_graph *g, const void *config,
                                 size_t len, tfs_status *st);
/* Feeds the model's input, runs its fetches (run_options and md as for
 * tfs_session_run_ex, both may be NULL) and records them under `tag`. */
int run_model(tfs_session *s, tfs_graph *g, const model *m,
              const tfs_buffer *run_options, tfs_buffer *md,
              const char *tag, tfs_status *st, tt_result *res);
/* The model imported into a new graph; a failed import must leave the
 * graph empty. */
tfs_graph *import_model(const model *m, tfs_status *st);

/* Scenarios of scenarios_api.c. */
int eager_run(tfs_status *st, tt_result *res);
int function_run(tfs_status *st, tt_result *res);
int capi_setup(void);
int capi_run(tfs_status *st, tt_result *res);
int optimizer_setup(void);
int optimizer_run(tfs_status *st, tt_result *res);

#endif
