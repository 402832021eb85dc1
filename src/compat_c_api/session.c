/*
 * compat_c_api/session.c - TF_SessionOptions, TF_Session (a tfsess
 * session) and TF_SessionRun with TensorFlow's output and error rules,
 * the device list, and the deprecated name-based session (TF_Run,
 * TF_ExtendGraph).
 */
#include <string.h>

#include "compat_c_api/capi_internal.h"
#include "compat_c_api/legacy_string.h"
#include "session/session_internal.h"
#include "tfsess/device.h"

/* ---- session options ----------------------------------------------------- */

TF_SessionOptions *TF_NewSessionOptions(void) {
  TF_SessionOptions *o = tfs_calloc(1, sizeof(*o));
  if (!o) return NULL;
  o->opts = tfs_session_options_new();
  if (!o->opts) {
    tfs_free(o);
    return NULL;
  }
  return o;
}

void TF_SetTarget(TF_SessionOptions *options, const char *target) {
  char *t = tfs_strdup(target ? target : "");
  if (!t) return;
  tfs_free(options->target);
  options->target = t;
}

void TF_SetConfig(TF_SessionOptions *options, const void *proto,
                  size_t proto_len, TF_Status *status) {
  tfs_session_options_set_config(options->opts, proto, proto_len,
                                 ST(status));
}

void TF_DeleteSessionOptions(TF_SessionOptions *opts) {
  if (!opts) return;
  tfs_session_options_free(opts->opts);
  tfs_free(opts->target);
  tfs_free(opts);
}

/* "" and "local" mean this process; anything else is a remote master. */
static int check_target(const TF_SessionOptions *opts, TF_Status *status) {
  const char *t = opts ? opts->target : NULL;
  if (!t || !*t || strcmp(t, "local") == 0) return 0;
  tfs_status_setf(ST(status), TFS_UNIMPLEMENTED,
                  "Session target '%s' is not supported by tfsess: sessions "
                  "run in this process only (target \"\" or \"local\")", t);
  return -1;
}

/* ---- sessions ------------------------------------------------------------ */

TF_Session *TF_NewSession(TF_Graph *graph, const TF_SessionOptions *opts,
                          TF_Status *status) {
  if (check_target(opts, status)) return NULL;
  return tfs_session_new(graph, opts ? opts->opts : NULL, ST(status));
}

void TF_CloseSession(TF_Session *s, TF_Status *status) {
  tfs_session_close(s, ST(status));
}

void TF_DeleteSession(TF_Session *s, TF_Status *status) {
  tfs_session_free(s);
  if (status) tfs_status_clear(ST(status));
}

void TF_ExtendSession(TF_Session *session, TF_Status *status) {
  tfs_status *st = ST(status);
  pthread_mutex_lock(&session->mu);
  int closed = session->closed;
  pthread_mutex_unlock(&session->mu);
  if (closed)
    tfs_status_set(st, TFS_CANCELLED, "Session has been closed.");
  else
    tfs_status_clear(st);
}

/* Converted run arguments; small runs use the inline arrays. */
typedef struct run_args {
  tfs_output feeds_s[8], fetches_s[8];
  tfs_tensor *vals_s[8];
  tfs_output *feeds, *fetches;
  tfs_tensor **vals;
} run_args;

static void run_args_free(run_args *a) {
  if (a->feeds != a->feeds_s) tfs_free(a->feeds);
  if (a->fetches != a->fetches_s) tfs_free(a->fetches);
  if (a->vals != a->vals_s) tfs_free(a->vals);
}

static int run_args_init(run_args *a, const TF_Output *inputs, int ninputs,
                         const TF_Output *outputs, int noutputs,
                         tfs_status *st) {
  a->feeds = ninputs <= 8 ? a->feeds_s
                          : tfs_malloc(sizeof(tfs_output) * (size_t)ninputs);
  a->vals = ninputs <= 8 ? a->vals_s
                         : tfs_malloc(sizeof(tfs_tensor *) * (size_t)ninputs);
  a->fetches = noutputs <= 8
                   ? a->fetches_s
                   : tfs_malloc(sizeof(tfs_output) * (size_t)noutputs);
  if (!a->feeds || !a->vals || !a->fetches) {
    run_args_free(a);
    TFS_OOM(st);
    return -1;
  }
  for (int i = 0; i < ninputs; i++) {
    a->feeds[i] = tfs_capi__out(inputs[i]);
    if (tfs_capi__check_output(a->feeds[i], st)) goto fail;
  }
  for (int i = 0; i < noutputs; i++) {
    a->fetches[i] = tfs_capi__out(outputs[i]);
    if (tfs_capi__check_output(a->fetches[i], st)) goto fail;
  }
  return 0;
fail:
  run_args_free(a);
  return -1;
}

/* The run shared by TF_SessionRun and TF_Run. */
static void session_run(tfs_session *s, const TF_Buffer *run_options,
                        const TF_Output *inputs, TF_Tensor *const *input_values,
                        int ninputs, const TF_Output *outputs,
                        TF_Tensor **output_values, int noutputs,
                        tfs_operation *const *targets, int ntargets,
                        TF_Buffer *run_metadata, tfs_status *st) {
  run_args a;
  for (int i = 0; i < noutputs; i++) output_values[i] = NULL;
  if (ninputs < 0 || noutputs < 0 || ntargets < 0) {
    tfs_status_set(st, TFS_INVALID_ARGUMENT, "Negative argument count");
    return;
  }
  if (run_args_init(&a, inputs, ninputs, outputs, noutputs, st)) return;
  if (tfs_capi__tensors_in(input_values, ninputs, a.vals, st)) {
    run_args_free(&a);
    return;
  }
  if (!run_options && !run_metadata) {
    tfs_session_run(s, a.feeds, a.vals, ninputs, a.fetches, output_values,
                    noutputs, targets, ntargets, st);
  } else {
    tfs_buffer ro = tfs_capi__buf_in(run_options);
    tfs_buffer md = tfs_capi__buf_in(run_metadata);
    tfs_session_run_ex(s, run_options ? &ro : NULL, a.feeds, a.vals, ninputs,
                       a.fetches, output_values, noutputs, targets, ntargets,
                       run_metadata ? &md : NULL, st);
    /* the RunMetadata is written whether or not the run succeeded (as
     * TensorFlow's): the caller gets it, and frees it, either way */
    if (run_metadata && md.data && md.data != run_metadata->data)
      tfs_capi__buf_out(run_metadata, &md);
  }
  tfs_capi__tensors_release(input_values, a.vals, ninputs);
  run_args_free(&a);
}

void TF_SessionRun(TF_Session *session, const TF_Buffer *run_options,
                   const TF_Output *inputs, TF_Tensor *const *input_values,
                   int ninputs, const TF_Output *outputs,
                   TF_Tensor **output_values, int noutputs,
                   const TF_Operation *const *target_opers, int ntargets,
                   TF_Buffer *run_metadata, TF_Status *status) {
  session_run(session, run_options, inputs, input_values, ninputs, outputs,
              output_values, noutputs, (tfs_operation *const *)target_opers,
              ntargets, run_metadata, ST(status));
}

/* ---- partial runs -------------------------------------------------------- */

void TF_SessionPRunSetup(TF_Session *session, const TF_Output *inputs,
                         int ninputs, const TF_Output *outputs, int noutputs,
                         const TF_Operation *const *target_opers,
                         int ntargets, const char **handle,
                         TF_Status *status) {
  (void)session, (void)inputs, (void)ninputs, (void)outputs, (void)noutputs;
  (void)target_opers, (void)ntargets;
  if (handle) *handle = NULL;
  tfs_capi__unimplemented(status, "TF_SessionPRunSetup",
                          "partial runs are not available; use "
                          "TF_SessionRun");
}

void TF_SessionPRun(TF_Session *session, const char *handle,
                    const TF_Output *inputs, TF_Tensor *const *input_values,
                    int ninputs, const TF_Output *outputs,
                    TF_Tensor **output_values, int noutputs,
                    const TF_Operation *const *target_opers, int ntargets,
                    TF_Status *status) {
  (void)session, (void)handle, (void)inputs, (void)input_values;
  (void)ninputs, (void)outputs, (void)target_opers, (void)ntargets;
  for (int i = 0; i < noutputs; i++) output_values[i] = NULL;
  tfs_capi__unimplemented(status, "TF_SessionPRun",
                          "partial runs are not available; use "
                          "TF_SessionRun");
}

void TF_DeletePRunHandle(const char *handle) { tfs_free((void *)handle); }

/* ---- devices ------------------------------------------------------------- */

TF_DeviceList *tfs_capi__device_list(tfs_device_list *dl, tfs_status *st) {
  if (!dl) return NULL;
  int n = tfs_device_list_count(dl);
  TF_DeviceList *l = tfs_calloc(1, sizeof(*l));
  tfs_capi_device *d = tfs_calloc((size_t)n + 1, sizeof(*d));
  if (!l || !d) {
    tfs_free(l);
    tfs_free(d);
    tfs_device_list_free(dl);
    TFS_OOM(st);
    return NULL;
  }
  l->devices = d;
  for (int i = 0; i < n; i++) {
    if (!(d[i].name = tfs_strdup(tfs_device_list_name(dl, i)))) goto oom;
    l->n = i + 1;
    d[i].type = tfs_device_list_type(dl, i); /* process-wide */
    d[i].memory = tfs_device_list_memory_bytes(dl, i);
    /* TensorFlow's figure for its CPU device */
    if (d[i].memory == 0) d[i].memory = 268435456;
    d[i].incarnation = 0;
  }
  tfs_device_list_free(dl);
  tfs_status_clear(st);
  return l;
oom:
  tfs_device_list_free(dl);
  TF_DeleteDeviceList(l);
  TFS_OOM(st);
  return NULL;
}

TF_DeviceList *TF_SessionListDevices(TF_Session *session, TF_Status *status) {
  tfs_status *st = ST(status);
  return tfs_capi__device_list(tfs_session_list_devices(session, st), st);
}

TF_DeviceList *TF_DeprecatedSessionListDevices(TF_DeprecatedSession *session,
                                               TF_Status *status) {
  tfs_status *st = ST(status);
  return tfs_capi__device_list(
      tfs_session_list_devices(session ? session->session : NULL, st), st);
}

void TF_DeleteDeviceList(TF_DeviceList *list) {
  if (!list) return;
  for (int i = 0; i < list->n; i++) tfs_free(list->devices[i].name);
  tfs_free(list->devices);
  tfs_free(list);
}

int TF_DeviceListCount(const TF_DeviceList *list) {
  return list ? list->n : -1;
}

/* The device at `index`, or NULL with TensorFlow's messages. */
static const tfs_capi_device *device_at(const TF_DeviceList *list, int index,
                                        TF_Status *status) {
  tfs_status *st = ST(status);
  if (!list) {
    tfs_status_set(st, TFS_INVALID_ARGUMENT, "list is null!");
    return NULL;
  }
  if (index < 0 || index >= list->n) {
    tfs_status_set(st, TFS_INVALID_ARGUMENT, "index out of bounds");
    return NULL;
  }
  tfs_status_clear(st);
  return &list->devices[index];
}

const char *TF_DeviceListName(const TF_DeviceList *list, int index,
                              TF_Status *status) {
  const tfs_capi_device *d = device_at(list, index, status);
  return d ? d->name : NULL;
}

const char *TF_DeviceListType(const TF_DeviceList *list, int index,
                              TF_Status *status) {
  const tfs_capi_device *d = device_at(list, index, status);
  return d ? d->type : NULL;
}

int64_t TF_DeviceListMemoryBytes(const TF_DeviceList *list, int index,
                                 TF_Status *status) {
  const tfs_capi_device *d = device_at(list, index, status);
  return d ? d->memory : -1;
}

uint64_t TF_DeviceListIncarnation(const TF_DeviceList *list, int index,
                                  TF_Status *status) {
  const tfs_capi_device *d = device_at(list, index, status);
  return d ? d->incarnation : 0;
}

/* ---- the deprecated session ---------------------------------------------- */

TF_DeprecatedSession *TF_NewDeprecatedSession(const TF_SessionOptions *opts,
                                              TF_Status *status) {
  tfs_status *st = ST(status);
  if (check_target(opts, status)) return NULL;
  TF_DeprecatedSession *d = tfs_calloc(1, sizeof(*d));
  if (!d || !(d->graph = tfs_graph_new())) {
    tfs_free(d);
    TFS_OOM(st);
    return NULL;
  }
  d->session = tfs_session_new(d->graph, opts ? opts->opts : NULL, st);
  if (!d->session) {
    tfs_graph_free(d->graph);
    tfs_free(d);
    return NULL;
  }
  return d;
}

void TF_CloseDeprecatedSession(TF_DeprecatedSession *s, TF_Status *status) {
  tfs_session_close(s->session, ST(status));
}

void TF_DeleteDeprecatedSession(TF_DeprecatedSession *s, TF_Status *status) {
  if (status) tfs_status_clear(ST(status));
  if (!s) return;
  tfs_session_free(s->session);
  tfs_graph_free(s->graph);
  tfs_free(s);
}

void TF_Reset(const TF_SessionOptions *opt, const char **containers,
              int ncontainers, TF_Status *status) {
  (void)opt, (void)containers, (void)ncontainers;
  tfs_capi__unimplemented(status, "TF_Reset",
                          "it clears containers on a distributed target, "
                          "and tfsess has none");
}

void TF_ExtendGraph(TF_DeprecatedSession *s, const void *proto,
                    size_t proto_len, TF_Status *status) {
  tfs_import_results *r =
      tfs_graph_import_graphdef(s->graph, proto, proto_len, NULL, ST(status));
  tfs_import_results_free(r);
}

/* Resolves "op:index" names into outputs with TensorFlow's messages. */
static int resolve_names(tfs_graph *g, const char **names, int n,
                         TF_Output *out, tfs_status *st) {
  for (int i = 0; i < n; i++) {
    size_t len;
    int index = 0;
    tfs_operation *op = NULL;
    if (tfs_graph__parse_tensor_name(names[i], &len, &index) == 0) {
      char *name = tfs_strndup(names[i], len);
      if (!name) {
        TFS_OOM(st);
        return -1;
      }
      op = tfs_graph_operation_by_name(g, name);
      tfs_free(name);
    }
    if (!op) {
      tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                      "Tensor %s, specified in either feed_devices or "
                      "fetch_devices was not found in the Graph",
                      names[i]);
      return -1;
    }
    tfs_output o = {op, index};
    if (tfs_capi__check_output(o, st)) return -1;
    out[i] = tfs_capi__tf_out(o);
  }
  return 0;
}

void TF_Run(TF_DeprecatedSession *s, const TF_Buffer *run_options,
            const char **input_names, TF_Tensor **inputs, int ninputs,
            const char **output_names, TF_Tensor **outputs, int noutputs,
            const char **target_oper_names, int ntargets,
            TF_Buffer *run_metadata, TF_Status *status) {
  tfs_status *st = ST(status);
  int n = ninputs + noutputs;
  TF_Output *ports = tfs_malloc(sizeof(TF_Output) * (size_t)(n > 0 ? n : 1));
  tfs_operation **targets =
      tfs_malloc(sizeof(void *) * (size_t)(ntargets > 0 ? ntargets : 1));
  for (int i = 0; i < noutputs; i++) outputs[i] = NULL;
  if (!ports || !targets) {
    TFS_OOM(st);
    goto done;
  }
  if (resolve_names(s->graph, input_names, ninputs, ports, st) ||
      resolve_names(s->graph, output_names, noutputs, ports + ninputs, st))
    goto done;
  for (int i = 0; i < ntargets; i++) {
    targets[i] = tfs_graph_operation_by_name(s->graph, target_oper_names[i]);
    if (!targets[i]) {
      tfs_status_setf(st, TFS_NOT_FOUND,
                      "PruneForTargets: Some target nodes not found: %s ",
                      target_oper_names[i]);
      goto done;
    }
  }
  session_run(s->session, run_options, ports, inputs, ninputs, ports + ninputs,
              outputs, noutputs, targets, ntargets, run_metadata, st);
done:
  tfs_free(ports);
  tfs_free(targets);
}

void TF_PRunSetup(TF_DeprecatedSession *s, const char **input_names,
                  int ninputs, const char **output_names, int noutputs,
                  const char **target_oper_names, int ntargets,
                  const char **handle, TF_Status *status) {
  (void)s, (void)input_names, (void)ninputs, (void)output_names;
  (void)noutputs, (void)target_oper_names, (void)ntargets;
  if (handle) *handle = NULL;
  tfs_capi__unimplemented(status, "TF_PRunSetup",
                          "partial runs are not available; use TF_Run");
}

void TF_PRun(TF_DeprecatedSession *s, const char *handle,
             const char **input_names, TF_Tensor **inputs, int ninputs,
             const char **output_names, TF_Tensor **outputs, int noutputs,
             const char **target_oper_names, int ntargets,
             TF_Status *status) {
  (void)s, (void)handle, (void)input_names, (void)inputs, (void)ninputs;
  (void)output_names, (void)target_oper_names, (void)ntargets;
  for (int i = 0; i < noutputs; i++) outputs[i] = NULL;
  tfs_capi__unimplemented(status, "TF_PRun",
                          "partial runs are not available; use TF_Run");
}
