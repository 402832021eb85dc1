/*
 * session/session.c - session lifetime, options, the plan cache and run.
 */
#include <stdlib.h>
#include <string.h>

#include "session/run_metadata.h"
#include "core/alloc.h"
#include "core/status.h"
#include "session/exec.h"
#include "session/limits.h"
#include "session/plan_place.h"
#include "session/session_internal.h"

/* ---- options --------------------------------------------------------------- */

tfs_session_options *tfs_session_options_new(void) {
  tfs_session_options *o = tfs_calloc(1, sizeof(tfs_session_options));
  if (o) tfs_config__init(&o->config);
  return o;
}

void tfs_session_options_free(tfs_session_options *o) {
  if (!o) return;
  tfs_config__clear(&o->config);
  tfs_free(o);
}

void tfs_session_options_set_intra_op_threads(tfs_session_options *o,
                                              int n) {
  if (o) o->config.intra_op_parallelism_threads = n;
}
void tfs_session_options_set_inter_op_threads(tfs_session_options *o,
                                              int n) {
  if (o) o->config.inter_op_parallelism_threads = n;
}
void tfs_session_options_set_allow_soft_placement(tfs_session_options *o,
                                                  int allow) {
  if (o) o->config.allow_soft_placement = allow != 0;
}
void tfs_session_options_set_log_device_placement(tfs_session_options *o,
                                                  int log) {
  if (o) o->config.log_device_placement = log != 0;
}
int tfs_session_options_intra_op_threads(const tfs_session_options *o) {
  return o ? o->config.intra_op_parallelism_threads : 0;
}
int tfs_session_options_inter_op_threads(const tfs_session_options *o) {
  return o ? o->config.inter_op_parallelism_threads : 0;
}
int tfs_session_options_allow_soft_placement(const tfs_session_options *o) {
  return o ? o->config.allow_soft_placement : 0;
}
int tfs_session_options_log_device_placement(const tfs_session_options *o) {
  return o ? o->config.log_device_placement : 0;
}

/* ---- GPU options (ConfigProto.gpu_options) ------------------------------- */

void tfs_session_options_set_visible_device_list(tfs_session_options *o,
                                                 const char *list,
                                                 tfs_status *st) {
  TFS_CHECK_ARG(o != NULL, st, );
  char *c = NULL;
  if (list && *list && !(c = tfs_strdup(list))) {
    TFS_OOM(st);
    return;
  }
  tfs_free(o->config.gpu_options.visible_device_list);
  o->config.gpu_options.visible_device_list = c;
  tfs_status_clear(st);
}

const char *tfs_session_options_visible_device_list(
    const tfs_session_options *o) {
  const char *v = o ? o->config.gpu_options.visible_device_list : NULL;
  return v && *v ? v : NULL;
}

void tfs_session_options_set_allow_growth(tfs_session_options *o,
                                          int allow) {
  if (o) o->config.gpu_options.allow_growth = allow != 0;
}

int tfs_session_options_allow_growth(const tfs_session_options *o) {
  return o ? o->config.gpu_options.allow_growth : 0;
}

void tfs_session_options_set_per_process_gpu_memory_fraction(
    tfs_session_options *o, double fraction) {
  if (o) o->config.gpu_options.per_process_gpu_memory_fraction = fraction;
}

double tfs_session_options_per_process_gpu_memory_fraction(
    const tfs_session_options *o) {
  return o ? o->config.gpu_options.per_process_gpu_memory_fraction : 0;
}

void tfs_session_options_set_limit(tfs_session_options *o, tfs_limit which,
                                   int64_t value) {
  if (!o) return;
  tfs_config_limits *l = &o->config.limits;
  switch (which) {
    case TFS_LIMIT_TENSOR_BYTES: l->max_tensor_bytes = value; break;
    case TFS_LIMIT_RUN_BYTES: l->max_run_bytes = value; break;
    case TFS_LIMIT_GRAPH_NODES: l->max_graph_nodes = value; break;
    case TFS_LIMIT_NESTING: l->max_nesting = value; break;
    case TFS_LIMIT_OP_ELEMENTS: l->max_op_elements = value; break;
  }
}

int64_t tfs_session_options_limit(const tfs_session_options *o,
                                  tfs_limit which) {
  tfs_config_limits none;
  memset(&none, 0, sizeof none);
  return tfs_limits__effective(o ? &o->config.limits : &none, (int)which);
}

void tfs_session_options_set_safe_mode(tfs_session_options *o, int on) {
  if (o) o->config.limits.safe_mode = on != 0;
}

int tfs_session_options_safe_mode(const tfs_session_options *o) {
  return o ? o->config.limits.safe_mode : 0;
}

void tfs_session_options_allow_op(tfs_session_options *o,
                                  const char *op_type, tfs_status *st) {
  TFS_CHECK_ARG(o != NULL && op_type != NULL, st, );
  tfs_config_limits *l = &o->config.limits;
  for (int i = 0; i < l->nallowed_ops; i++)
    if (strcmp(l->allowed_ops[i], op_type) == 0) {
      tfs_status_clear(st);
      return;
    }
  char *c = tfs_strdup(op_type);
  char **v = c ? tfs_realloc(l->allowed_ops,
                             sizeof(char *) * (size_t)(l->nallowed_ops + 1))
               : NULL;
  if (!v) {
    tfs_free(c);
    TFS_OOM(st);
    return;
  }
  v[l->nallowed_ops++] = c;
  l->allowed_ops = v;
  tfs_status_clear(st);
}

/* As TF_SetConfig: the bytes replace every option. */
void tfs_session_options_set_config(tfs_session_options *o,
                                    const void *proto, size_t len,
                                    tfs_status *st) {
  TFS_CHECK_ARG(o != NULL && (proto != NULL || len == 0), st, );
  tfs_config c;
  if (tfs_config__parse(proto, len, &c, st)) return;
  tfs_config__clear(&o->config);
  o->config = c;
}

void tfs_session_options_get_config(const tfs_session_options *o,
                                    tfs_buffer *out, tfs_status *st) {
  TFS_CHECK_ARG(o != NULL && out != NULL, st, );
  tfs_config__serialize(&o->config, out, st);
}

/* ---- sessions -------------------------------------------------------------- */

tfs_session *tfs_session_new(tfs_graph *g, const tfs_session_options *opts,
                             tfs_status *st) {
  TFS_CHECK_ARG(g != NULL, st, NULL);
  tfs_session *s = tfs_calloc(1, sizeof(*s));
  if (!s) {
    TFS_OOM(st);
    return NULL;
  }
  s->resources = tfs_resource_mgr_new();
  if (!s->resources) {
    tfs_free(s);
    TFS_OOM(st);
    return NULL;
  }
  if (opts && tfs_config__copy(&s->opts.config, &opts->config)) {
    tfs_resource_mgr_free(s->resources);
    tfs_free(s);
    TFS_OOM(st);
    return NULL;
  }
  if (tfs_session__devices_init(s, st)) { /* device set (plan_place.c) */
    tfs_config__clear(&s->opts.config);
    tfs_resource_mgr_free(s->resources);
    tfs_free(s);
    return NULL;
  }
  if (tfs_session__exec_init(s, st)) { /* thread pools, GEMM setup */
    tfs_session__devices_free(s);
    tfs_config__clear(&s->opts.config);
    tfs_resource_mgr_free(s->resources);
    tfs_free(s);
    return NULL;
  }
  tfs_limits__resolve(&s->opts.config.limits, &s->limits);
  tfs_session__functions_init(s);
  s->graph = g;
  pthread_mutex_init(&s->mu, NULL);
  pthread_cond_init(&s->idle, NULL);
  atomic_init(&s->next_step, 1);
  tfs_graph__retain(g);
  tfs_status_clear(st);
  return s;
}

static void drop_plans(tfs_session *s) {
  const tfs_map_entry *e;
  for (size_t i = 0; tfs_map_next(&s->plans, &i, &e);)
    tfs_plan__unref(e->value);
  tfs_map_free(&s->plans);
}

void tfs_session_close(tfs_session *s, tfs_status *st) {
  TFS_CHECK_ARG(s != NULL, st, );
  tfs_session__exec_close(s); /* cancels in-flight runs, detaches callables */
  pthread_mutex_lock(&s->mu);
  s->closed = 1;
  /* kernels waiting on a queue see the cancellation now */
  tfs_resource_mgr_wake_all(s->resources);
  while (s->active_runs > 0) pthread_cond_wait(&s->idle, &s->mu);
  drop_plans(s);
  tfs_session__functions_free(s);
  tfs_resource_mgr_free(s->resources);
  s->resources = NULL;
  pthread_mutex_unlock(&s->mu);
  tfs_status_clear(st);
}

void tfs_session_free(tfs_session *s) {
  if (!s) return;
  tfs_session_close(s, NULL);
  tfs_session__exec_free(s);
  tfs_session__devices_free(s);
  pthread_mutex_destroy(&s->mu);
  pthread_mutex_destroy(&s->fn_mu);
  pthread_cond_destroy(&s->idle);
  tfs_graph *g = s->graph;
  tfs_config__clear(&s->opts.config);
  tfs_free(s);
  tfs_graph__release(g);
}

int tfs_session_num_plans(tfs_session *s) {
  if (!s) return 0;
  pthread_mutex_lock(&s->mu);
  int n = (int)s->plans.count;
  pthread_mutex_unlock(&s->mu);
  return n;
}

static int closed_error(tfs_status *st) {
  tfs_status_set(st, TFS_CANCELLED, "Session has been closed.");
  return -1;
}

int tfs_session__enter(tfs_session *s, tfs_status *st) {
  pthread_mutex_lock(&s->mu);
  int closed = s->closed;
  if (!closed) s->active_runs++;
  pthread_mutex_unlock(&s->mu);
  return closed ? closed_error(st) : 0;
}

void tfs_session__leave(tfs_session *s) {
  pthread_mutex_lock(&s->mu);
  if (--s->active_runs == 0) pthread_cond_broadcast(&s->idle);
  pthread_mutex_unlock(&s->mu);
}

/* The cached plan for key (a new reference), or NULL. Caller holds s->mu. */
static tfs_plan *cached_plan(tfs_session *s, const int32_t *key,
                             size_t klen) {
  tfs_plan *plan = tfs_map_get(&s->plans, key, klen);
  if (plan) atomic_fetch_add(&plan->refs, 1);
  return plan;
}

/* Builds the plan for a signature that missed the cache and caches it.
 * Holds the graph mutex only, so runs of cached plans never wait for a
 * new one; the build counts as an active run (close waits for it).  When
 * another thread cached the same signature meanwhile, its plan wins. */
static tfs_plan *build_plan(tfs_session *s, const int32_t *key, size_t klen,
                            const tfs_output *feeds, int nfeeds,
                            const tfs_output *fetches, int nfetches,
                            tfs_operation *const *targets, int ntargets,
                            tfs_status *st) {
  if (tfs_session__enter(s, st)) return NULL;
  pthread_mutex_lock(&s->graph->mu);
  tfs_plan *plan = tfs_plan__build(s, feeds, nfeeds, fetches, nfetches,
                                   targets, ntargets, st);
  pthread_mutex_unlock(&s->graph->mu);
  if (!plan) {
    tfs_session__leave(s);
    return NULL;
  }
  pthread_mutex_lock(&s->mu);
  tfs_plan *other = cached_plan(s, key, klen);
  if (other) {
    tfs_plan__unref(plan);
    plan = other;
  } else if (tfs_map_put(&s->plans, plan->key, plan->keylen, plan) == 0) {
    atomic_fetch_add(&plan->refs, 1); /* the cache's reference */
  } /* else: out of memory for the cache; this run still has its plan */
  pthread_mutex_unlock(&s->mu);
  return plan; /* the run stays active: release_run ends it */
}

/* Finds or builds the plan and marks a run active. */
static tfs_plan *acquire_plan(tfs_session *s, const tfs_output *feeds,
                              int nfeeds, const tfs_output *fetches,
                              int nfetches, tfs_operation *const *targets,
                              int ntargets, tfs_status *st) {
  int32_t small[64];
  size_t n = tfs_plan__key_len(nfeeds, nfetches, ntargets);
  int32_t *key = n <= 64 ? small : tfs_malloc(n * sizeof(int32_t));
  if (!key) {
    TFS_OOM(st);
    return NULL;
  }
  tfs_plan__key_fill(key, feeds, nfeeds, fetches, nfetches, targets,
                     ntargets);
  size_t klen = n * sizeof(int32_t);
  tfs_plan *plan = NULL;
  pthread_mutex_lock(&s->mu);
  if (s->closed) {
    pthread_mutex_unlock(&s->mu);
    closed_error(st);
    goto out;
  }
  plan = cached_plan(s, key, klen);
  if (plan) s->active_runs++;
  pthread_mutex_unlock(&s->mu);
  if (!plan)
    plan = build_plan(s, key, klen, feeds, nfeeds, fetches, nfetches,
                      targets, ntargets, st);
out:
  if (key != small) tfs_free(key);
  return plan;
}

static void release_run(tfs_session *s, tfs_plan *plan) {
  tfs_plan__unref(plan);
  tfs_session__leave(s);
}

void tfs_session_run(tfs_session *s, const tfs_output *feeds,
                     tfs_tensor *const *feed_values, int nfeeds,
                     const tfs_output *fetches, tfs_tensor **fetch_values,
                     int nfetches, tfs_operation *const *targets,
                     int ntargets, tfs_status *st) {
  for (int i = 0; fetch_values && i < nfetches; i++) fetch_values[i] = NULL;
  TFS_CHECK_ARG(s != NULL, st, );
  TFS_CHECK_ARG(nfeeds >= 0 && nfetches >= 0 && ntargets >= 0, st, );
  TFS_CHECK_ARG(nfeeds == 0 || (feeds != NULL && feed_values != NULL), st, );
  TFS_CHECK_ARG(nfetches == 0 || (fetches != NULL && fetch_values != NULL),
                st, );
  TFS_CHECK_ARG(ntargets == 0 || targets != NULL, st, );
  tfs_plan *plan = acquire_plan(s, feeds, nfeeds, fetches, nfetches, targets,
                                ntargets, st);
  if (!plan) return;
  tfs_plan__run(s, plan, NULL, feed_values, fetch_values, NULL, st);
  release_run(s, plan);
}

/* RunMetadata for run_ex.  As TensorFlow's TF_SessionRun, it is written
 * whether or not the run succeeded; the run's own error wins over one
 * from serializing. */
static void write_run_metadata(const tfs_step_stats *stats, tfs_buffer *out,
                               tfs_tensor **fetch_values, int nfetches,
                               tfs_status *st) {
  tfs_status *ms = tfs_status_new();
  if (ms && tfs_run_metadata__serialize(stats, out, ms) == 0) {
    tfs_status_free(ms);
    return;
  }
  if (tfs_status_ok(st)) {
    if (ms)
      tfs_status_copy(st, ms);
    else
      TFS_OOM(st);
    for (int i = 0; i < nfetches; i++) {
      tfs_tensor_free(fetch_values[i]);
      fetch_values[i] = NULL;
    }
  }
  tfs_status_free(ms);
}

void tfs_session_run_ex(tfs_session *s, const tfs_buffer *run_options,
                        const tfs_output *feeds,
                        tfs_tensor *const *feed_values, int nfeeds,
                        const tfs_output *fetches, tfs_tensor **fetch_values,
                        int nfetches, tfs_operation *const *targets,
                        int ntargets, tfs_buffer *run_metadata,
                        tfs_status *st) {
  for (int i = 0; fetch_values && i < nfetches; i++) fetch_values[i] = NULL;
  TFS_CHECK_ARG(s != NULL, st, );
  TFS_CHECK_ARG(nfeeds >= 0 && nfetches >= 0 && ntargets >= 0, st, );
  TFS_CHECK_ARG(nfeeds == 0 || (feeds != NULL && feed_values != NULL), st, );
  TFS_CHECK_ARG(nfetches == 0 || (fetches != NULL && fetch_values != NULL),
                st, );
  TFS_CHECK_ARG(ntargets == 0 || targets != NULL, st, );
  tfs_run_options ro;
  if (tfs_run_options__parse(run_options ? run_options->data : NULL,
                             run_options ? run_options->length : 0,
                             s->limits.nesting, &ro, st))
    return;
  if (run_metadata && run_metadata->data) {
    tfs_status_set(st, TFS_INVALID_ARGUMENT,
                   "Passing non-empty run_metadata is invalid.");
    return;
  }
  tfs_step_stats stats;
  memset(&stats, 0, sizeof stats);
  tfs_step_stats_clear(&stats); /* sets the device name */
  int trace = ro.trace_level > TFS_TRACE_NONE;
  tfs_plan *plan = acquire_plan(s, feeds, nfeeds, fetches, nfetches, targets,
                                ntargets, st);
  if (plan)
    tfs_plan__run(s, plan, &ro, feed_values, fetch_values,
                  trace ? &stats : NULL, st);
  /* records of rewritten nodes name the user's nodes they replaced */
  if (trace && plan && tfs_step_stats__attribute_originals(&stats))
    stats.oom = 1;
  if (run_metadata) /* node names belong to the plan's graph */
    write_run_metadata(trace && plan ? &stats : NULL, run_metadata,
                       fetch_values, nfetches, st);
  if (plan) release_run(s, plan);
  tfs_step_stats_clear(&stats);
}

int tfs_session_with(tfs_graph *g, const tfs_session_options *opts,
                     tfs_session_body body, void *user, tfs_status *st) {
  TFS_CHECK_ARG(g != NULL && body != NULL, st, -1);
  tfs_session *s = tfs_session_new(g, opts, st);
  if (!s) return -1;
  int rc = body(s, user);
  tfs_session_free(s);
  return rc;
}
