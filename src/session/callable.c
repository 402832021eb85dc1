/*
 * session/callable.c - callables (MakeCallable / RunCallable /
 * ReleaseCallable): a private plan per callable, run straight from the
 * handle.  Runs are counted per callable with one atomic so a run takes
 * no lock; closing the session marks its callables closed, waits for
 * their runs and detaches them.
 */
#include <sched.h>
#include <stdlib.h>

#include "core/alloc.h"
#include "core/status.h"
#include "session/exec.h"
#include "tfsess/callable.h"

struct tfs_callable_options {
  int64_t timeout_in_ms;
  int caller_thread;
};

struct tfs_callable {
  tfs_session *s;          /* runs use it only while not `closed` */
  tfs_plan *plan;          /* owned reference */
  tfs_run_options ro;
  atomic_int active;       /* runs in flight */
  atomic_int closed;
  atomic_int refs;         /* the caller's + the session list's */
  int attached;            /* in the session's list; guarded by: g_mu */
  tfs_callable *next, *prev; /* the session's list; guarded by: g_mu */
};

/* One lock for every session's callable list, so that a callable can be
 * freed after (or while) its session closes.  Nobody waits while holding
 * it. */
static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;

static void unref(tfs_callable *c, int n) {
  if (atomic_fetch_sub(&c->refs, n) == n) {
    tfs_plan__unref(c->plan);
    tfs_free(c);
  }
}

tfs_callable_options *tfs_callable_options_new(void) {
  return tfs_calloc(1, sizeof(tfs_callable_options));
}

void tfs_callable_options_free(tfs_callable_options *o) { tfs_free(o); }

void tfs_callable_options_set_timeout_in_ms(tfs_callable_options *o,
                                            int64_t ms) {
  if (o) o->timeout_in_ms = ms;
}

void tfs_callable_options_set_run_in_caller_thread(tfs_callable_options *o,
                                                   int on) {
  if (o) o->caller_thread = on != 0;
}

static void closed_error(tfs_status *st) {
  tfs_status_set(st, TFS_CANCELLED, "Session has been closed.");
}

tfs_callable *tfs_session_make_callable(
    tfs_session *s, const tfs_output *feeds, int nfeeds,
    const tfs_output *fetches, int nfetches, tfs_operation *const *targets,
    int ntargets, const tfs_callable_options *opts, tfs_status *st) {
  TFS_CHECK_ARG(s != NULL, st, NULL);
  TFS_CHECK_ARG(nfeeds >= 0 && nfetches >= 0 && ntargets >= 0, st, NULL);
  TFS_CHECK_ARG(nfeeds == 0 || feeds != NULL, st, NULL);
  TFS_CHECK_ARG(nfetches == 0 || fetches != NULL, st, NULL);
  TFS_CHECK_ARG(ntargets == 0 || targets != NULL, st, NULL);
  tfs_callable *c = tfs_calloc(1, sizeof(*c));
  if (!c) {
    TFS_OOM(st);
    return NULL;
  }
  c->ro.timeout_in_ms = opts ? opts->timeout_in_ms : 0;
  c->ro.inter_op_thread_pool = opts && opts->caller_thread ? -1 : 0;
  atomic_init(&c->active, 0);
  atomic_init(&c->closed, 0);
  /* built holding the graph mutex only: runs of the session go on */
  if (tfs_session__enter(s, st) == 0) {
    pthread_mutex_lock(&s->graph->mu);
    c->plan = tfs_plan__build(s, feeds, nfeeds, fetches, nfetches, targets,
                              ntargets, st);
    pthread_mutex_unlock(&s->graph->mu);
    tfs_session__leave(s);
  }
  if (!c->plan) {
    tfs_free(c);
    return NULL;
  }
  atomic_init(&c->refs, 2);
  c->s = s;
  pthread_mutex_lock(&g_mu);
  c->attached = 1;
  c->next = s->exec->callables;
  if (c->next) c->next->prev = c;
  s->exec->callables = c;
  pthread_mutex_unlock(&g_mu);
  tfs_status_clear(st);
  return c;
}

static void callable_run(tfs_callable *c, tfs_tensor *const *feed_values,
                         tfs_tensor **taken, int nfeeds,
                         tfs_tensor **fetch_values, int nfetches,
                         tfs_status *st) {
  for (int i = 0; fetch_values && i < nfetches; i++) fetch_values[i] = NULL;
  TFS_CHECK_ARG(c != NULL, st, );
  const tfs_plan *p = c->plan;
  if (nfeeds != p->nfeeds) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "Expected %d feed tensors, but got %d", p->nfeeds, nfeeds);
    return;
  }
  if (nfeeds > 0 && !feed_values) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "Expected %d feed tensors, but got none", p->nfeeds);
    return;
  }
  if (p->nfetches > 0 && !fetch_values) {
    tfs_status_set(st, TFS_INVALID_ARGUMENT,
                   "`fetch_tensors` must be provided when the callable has "
                   "one or more outputs.");
    return;
  }
  if (nfetches != p->nfetches) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "Expected %d fetch tensors, but got %d", p->nfetches,
                    nfetches);
    return;
  }
  /* Announce the run, then look at `closed` (close does the reverse):
   * either close waits for us or we see it closed. */
  atomic_fetch_add(&c->active, 1);
  if (atomic_load(&c->closed)) {
    atomic_fetch_sub(&c->active, 1);
    closed_error(st);
    return;
  }
  if (taken)
    tfs_plan__run_taking(c->s, c->plan, &c->ro, taken, fetch_values, st);
  else
    tfs_plan__run(c->s, c->plan, &c->ro, feed_values, fetch_values, NULL, st);
  atomic_fetch_sub_explicit(&c->active, 1, memory_order_release);
}

void tfs_callable_run(tfs_callable *c, tfs_tensor *const *feed_values,
                      int nfeeds, tfs_tensor **fetch_values, int nfetches,
                      tfs_status *st) {
  callable_run(c, feed_values, NULL, nfeeds, fetch_values, nfetches, st);
}

void tfs_callable__run_taking(tfs_callable *c, tfs_tensor **feed_values,
                              int nfeeds, tfs_tensor **fetch_values,
                              int nfetches, tfs_status *st) {
  callable_run(c, feed_values, feed_values, nfeeds, fetch_values, nfetches,
               st);
}

tfs_plan *tfs_callable__plan(const tfs_callable *c) { return c->plan; }

int tfs_callable_num_feeds(const tfs_callable *c) {
  return c ? c->plan->nfeeds : 0;
}

int tfs_callable_num_fetches(const tfs_callable *c) {
  return c ? c->plan->nfetches : 0;
}

static void unlink_locked(tfs_callable *c) {
  if (c->prev)
    c->prev->next = c->next;
  else
    c->s->exec->callables = c->next;
  if (c->next) c->next->prev = c->prev;
  c->next = c->prev = NULL;
  c->attached = 0;
}

void tfs_callable_free(tfs_callable *c) {
  if (!c) return;
  pthread_mutex_lock(&g_mu);
  int attached = c->attached;
  if (attached) unlink_locked(c);
  pthread_mutex_unlock(&g_mu);
  unref(c, attached ? 2 : 1);
}

void tfs_callable__detach_all(tfs_session *s) {
  pthread_mutex_lock(&g_mu);
  tfs_callable *list = s->exec->callables;
  for (tfs_callable *c = list; c; c = c->next) {
    atomic_store(&c->closed, 1);
    c->attached = 0; /* the list's reference is now ours */
  }
  s->exec->callables = NULL;
  pthread_mutex_unlock(&g_mu);
  while (list) {
    tfs_callable *c = list;
    list = c->next;
    c->next = c->prev = NULL;
    /* Runs in flight see `closing` and stop at the next node. */
    while (atomic_load_explicit(&c->active, memory_order_acquire) > 0)
      sched_yield();
    unref(c, 1);
  }
}
