/*
 * session/session_exec.c - a session's execution resources from its
 * ConfigProto, as DirectSession reads it: inter-op and intra-op pools,
 * the operation timeout, cancellation of in-flight runs on close, GEMM
 * and OpenBLAS setup.
 */

/*
 * Inter-op pools: session_inter_op_thread_pool, or one pool of
 * inter_op_parallelism_threads (0: one thread per core; negative: every
 * node on the caller's thread).  Intra-op: intra_op_parallelism_threads.
 * With use_per_session_threads the session owns its pools; otherwise they
 * are process-wide (the first session decides their sizes; a named pool is
 * shared by name).  Whether runs overlap expensive nodes on the inter-op
 * pool follows the intra-op pool's width (tfs_session__overlap_policy).
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/log.h"
#include "core/status.h"
#include "backends/backends.h"
#include "session/exec.h"

typedef struct named_pool {
  struct named_pool *next;
  char *name;
  int num_threads;            /* as configured (0: default) */
  tfs_threadpool *pool;
} named_pool;

static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static tfs_threadpool *g_inter, *g_intra; /* guarded by: g_mu */
static int g_made;                        /* guarded by: g_mu */
static named_pool *g_named;               /* guarded by: g_mu */

static int threads_of(int n) { return n > 0 ? n : tfs_num_cores(); }

/* A pool of n threads in all, or NULL (nothing to start) for n <= 1. */
static int make_pool(const char *name, int n, tfs_threadpool **out,
                     tfs_status *st) {
  *out = n > 1 ? tfs_threadpool_new(name, n, st) : NULL;
  return n > 1 && !*out ? -1 : 0;
}

/* The process-wide pools, made by the first session that asks. */
static int global_pools(int inter_n, int intra_n, tfs_status *st) {
  int rc = 0;
  pthread_mutex_lock(&g_mu);
  if (!g_made) {
    if (make_pool("inter", inter_n, &g_inter, st) ||
        make_pool("intra", intra_n, &g_intra, st)) {
      tfs_threadpool_free(g_inter);
      g_inter = NULL;
      rc = -1;
    } else {
      g_made = 1;
      if (tfs_log_enabled(TFS_LOG_DEBUG))
        tfs_log(TFS_LOG_DEBUG, "session: process-wide pools: inter-op %d, "
                "intra-op %d threads", inter_n, intra_n);
    }
  }
  pthread_mutex_unlock(&g_mu);
  return rc;
}

/* A named process-wide inter-op pool (ThreadPoolOptionProto.global_name):
 * TensorFlow's error when one name is configured with two sizes. */
static int named_global_pool(const tfs_config_thread_pool *o, int n,
                             tfs_threadpool **out, tfs_status *st) {
  int rc = 0;
  pthread_mutex_lock(&g_mu);
  named_pool *np = g_named;
  while (np && strcmp(np->name, o->global_name) != 0) np = np->next;
  if (np && np->num_threads != o->num_threads) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "Pool %s configured previously with num_threads=%d; "
                    "cannot re-configure with num_threads=%d",
                    o->global_name, np->num_threads, o->num_threads);
    rc = -1;
  } else if (!np) {
    np = tfs_calloc(1, sizeof(*np));
    char *name = tfs_strdup(o->global_name);
    if (!np || !name || make_pool(o->global_name, n, &np->pool, st)) {
      if (!np || !name) TFS_OOM(st);
      tfs_free(name);
      tfs_free(np);
      np = NULL;
      rc = -1;
    } else {
      np->name = name;
      np->num_threads = o->num_threads;
      np->next = g_named;
      g_named = np;
    }
  }
  if (np) *out = np->pool;
  pthread_mutex_unlock(&g_mu);
  return rc;
}

static int init_pools(tfs_session_exec *sx, const tfs_config *c,
                      tfs_status *st) {
  int inter_n = threads_of(c->inter_op_parallelism_threads);
  int intra_n = threads_of(c->intra_op_parallelism_threads);
  int caller_only = c->inter_op_parallelism_threads < 0;
  sx->npools = c->nthread_pools > 0 ? c->nthread_pools : 1;
  sx->pools = tfs_calloc((size_t)sx->npools, sizeof(tfs_threadpool *));
  sx->own_pool = tfs_calloc((size_t)sx->npools, 1);
  if (!sx->pools || !sx->own_pool) {
    TFS_OOM(st);
    return -1;
  }
  if (c->use_per_session_threads) {
    sx->own_intra = 1;
    if (make_pool("intra", intra_n, &sx->intra, st)) return -1;
  } else {
    if (global_pools(caller_only ? 1 : inter_n, intra_n, st)) return -1;
    pthread_mutex_lock(&g_mu);
    sx->intra = g_intra;
    sx->pools[0] = g_inter;
    pthread_mutex_unlock(&g_mu);
  }
  for (int i = 0; i < c->nthread_pools; i++) {
    const tfs_config_thread_pool *o = &c->session_inter_op_thread_pool[i];
    int n = o->num_threads > 0 ? o->num_threads : inter_n;
    if (o->global_name && o->global_name[0]) {
      if (named_global_pool(o, n, &sx->pools[i], st)) return -1;
    } else {
      sx->own_pool[i] = 1;
      if (make_pool("inter", n, &sx->pools[i], st)) return -1;
    }
  }
  if (!c->nthread_pools && c->use_per_session_threads) {
    sx->own_pool[0] = 1;
    if (make_pool("inter", caller_only ? 1 : inter_n, &sx->pools[0], st))
      return -1;
  }
  if (caller_only && !c->nthread_pools) sx->pools[0] = NULL;
  sx->inter = sx->pools[0];
  return 0;
}

static atomic_int g_force_overlap = -1;

void tfs_session__force_overlap(int mode) {
  atomic_store(&g_force_overlap, mode < 0 ? -1 : mode != 0);
}

int tfs_session__overlap_policy(int intra_threads, int cores) {
  int forced = atomic_load(&g_force_overlap);
  if (forced >= 0) return forced;
  const char *env = getenv("TFS_INTER_OP_OVERLAP");
  if (env && strcmp(env, "always") == 0) return 1;
  if (env && strcmp(env, "never") == 0) return 0;
  return intra_threads < cores;
}

int tfs_session__overlaps(const tfs_session *s) { return s->exec->overlap; }

int tfs_session__exec_init(tfs_session *s, tfs_status *st) {
  tfs_backends_init();
  tfs_session_exec *sx = tfs_calloc(1, sizeof(*sx));
  if (!sx) {
    TFS_OOM(st);
    return -1;
  }
  pthread_mutex_init(&sx->callables_mu, NULL);
  atomic_init(&sx->closing, 0);
  s->exec = sx;
  const tfs_config *c = &s->opts.config;
  sx->operation_timeout_ms = c->operation_timeout_in_ms;
  if (init_pools(sx, c, st)) {
    tfs_session__exec_free(s);
    return -1;
  }
  sx->overlap = tfs_session__overlap_policy(
      tfs_threadpool_parallelism(sx->intra), tfs_num_cores());
  if (tfs_log_enabled(TFS_LOG_DEBUG))
    tfs_log(TFS_LOG_DEBUG, "session: %d inter-op pool(s), the first of %d "
            "threads; intra-op %d threads (%s); expensive nodes %s; GEMM: "
            "%s", sx->npools, tfs_threadpool_parallelism(sx->inter),
            tfs_threadpool_parallelism(sx->intra),
            c->use_per_session_threads ? "per session" : "process-wide",
            sx->overlap ? "overlap" : "one at a time",
            tfs_backends_describe());
  tfs_status_clear(st);
  return 0;
}

void tfs_session__exec_close(tfs_session *s) {
  tfs_session_exec *sx = s->exec;
  if (!sx) return;
  atomic_store(&sx->closing, 1);
  tfs_callable__detach_all(s);
}

void tfs_session__exec_free(tfs_session *s) {
  tfs_session_exec *sx = s->exec;
  if (!sx) return;
  for (int i = 0; sx->pools && sx->own_pool && i < sx->npools; i++)
    if (sx->own_pool[i]) tfs_threadpool_free(sx->pools[i]);
  if (sx->own_intra) tfs_threadpool_free(sx->intra);
  tfs_free(sx->pools);
  tfs_free(sx->own_pool);
  pthread_mutex_destroy(&sx->callables_mu);
  tfs_free(sx);
  s->exec = NULL;
}

void tfs_session__pool_sizes(tfs_session *s, int *inter, int *intra) {
  *inter = tfs_threadpool_parallelism(s->exec->inter);
  *intra = tfs_threadpool_parallelism(s->exec->intra);
}
