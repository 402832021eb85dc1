/*
 * compat_c_api/saved_model.c - TF_LoadSessionFromSavedModel: TensorFlow's
 * SavedModel loader (saved_model/) into the caller's empty graph, handing
 * back the session and, when asked, the chosen MetaGraphDef.
 */
#include <pthread.h>

#include "compat_c_api/capi_internal.h"
#include "graph_builder/function_lib.h"
#include "graph_builder/graph_internal.h"
#include "saved_model/sm_internal.h"
#include "session/run_metadata.h"

/* A failed load leaves the caller's graph empty, as TensorFlow imports
 * into it only after loading. */
static void empty_graph(tfs_graph *g) {
  pthread_mutex_lock(&g->mu);
  tfs_graph__truncate(g, 0);
  tfs_flib__truncate(g, 0, 0);
  pthread_mutex_unlock(&g->mu);
}

TF_Session *TF_LoadSessionFromSavedModel(
    const TF_SessionOptions *session_options, const TF_Buffer *run_options,
    const char *export_dir, const char *const *tags, int tags_len,
    TF_Graph *graph, TF_Buffer *meta_graph_def, TF_Status *status) {
  tfs_status *st = ST(status);
  TFS_CHECK_ARG(graph != NULL && export_dir != NULL, st, NULL);
  if (tfs_graph_num_operations(graph) != 0) {
    tfs_status_set(st, TFS_INVALID_ARGUMENT, "Graph is non-empty.");
    return NULL;
  }
  tfs_buffer ro = tfs_capi__buf_in(run_options);
  if (run_options) {
    tfs_run_options parsed;
    if (tfs_run_options__parse(ro.data, ro.length, 0, &parsed, st))
      return NULL;
  }
  if (meta_graph_def && meta_graph_def->data) {
    /* TensorFlow finds out after loading; the answer is the same */
    tfs_status_set(st, TFS_INVALID_ARGUMENT,
                   "Passing non-empty TF_Buffer is invalid.");
    return NULL;
  }
  tfs_saved_model *m = tfs_sm__load(
      export_dir, tags, tags_len < 0 ? 0 : tags_len,
      session_options ? session_options->opts : NULL,
      run_options ? &ro : NULL, graph, st);
  if (!m) {
    empty_graph(graph);
    return NULL;
  }
  if (meta_graph_def) {
    tfs_buffer out = {NULL, 0, NULL};
    tfs_saved_model_meta_graph(m, &out, st);
    if (!tfs_status_ok(st)) {
      tfs_saved_model_free(m);
      empty_graph(graph);
      return NULL;
    }
    meta_graph_def->data = out.data;
    meta_graph_def->length = out.length;
    meta_graph_def->data_deallocator = out.data_deallocator;
  }
  TF_Session *s = tfs_sm__take_session(m);
  tfs_saved_model_free(m);
  tfs_status_clear(st);
  return s;
}
