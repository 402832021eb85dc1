/*
 * session/exec_parallel.c - the executor's parallel path, for plans whose
 * expensive nodes can overlap: atomic pending counts, ready nodes run
 * inline or on the inter-op pool by TensorFlow's ScheduleReady rule, and
 * nothing leaks after an error, a cancellation or a timeout.
 */

/*
 * When a node finishes, its newly ready cheap successors run inline on the
 * same thread; expensive ones go to the inter-op pool except the last,
 * which stays inline when there is no other inline work.  The caller runs
 * the roots, then helps with queued tasks while it waits.  After an error,
 * a cancellation or a timeout the remaining nodes are skipped (their
 * inputs released), and the caller returns only when no task touches the
 * run any more.
 */
#include <pthread.h>
#include <stdlib.h>

#include "core/alloc.h"
#include "core/status.h"
#include "session/exec.h"

#define INLINE_MAX 64

static pthread_key_t g_st_key;
static pthread_once_t g_st_once = PTHREAD_ONCE_INIT;

static void st_key_init(void) {
  pthread_key_create(&g_st_key, (void (*)(void *))tfs_status_free);
}

/* A status per thread: kernels running at once must not share one. */
static tfs_status *thread_status(void) {
  static __thread tfs_status *st;
  if (!st) {
    pthread_once(&g_st_once, st_key_init);
    st = tfs_status_new();
    if (st) pthread_setspecific(g_st_key, st);
  }
  return st;
}

/* Records the run's first error and makes every later node skip. */
static void abort_run(tfs_exec_run *x, const tfs_status *err) {
  pthread_mutex_lock(&x->err_mu);
  if (!atomic_load_explicit(&x->aborted, memory_order_relaxed)) {
    if (err)
      tfs_status_copy(x->st, err);
    else
      TFS_OOM(x->st);
    atomic_store_explicit(&x->aborted, 1, memory_order_release);
  }
  pthread_mutex_unlock(&x->err_mu);
}

static void task_main(tfs_task *t);

static void schedule_node(tfs_exec_run *x, int i) {
  tfs_node_task *nt = &x->rs->tasks[i];
  nt->task.fn = task_main;
  nt->x = x;
  nt->node = i;
  tfs_threadpool_schedule(x->inter, &nt->task);
}

static void execute(tfs_exec_run *x, int i, tfs_status *st) {
  if (atomic_load_explicit(&x->aborted, memory_order_acquire)) {
    tfs_exec__skip_node(x, i, 1);
    return;
  }
  if (!st) {
    abort_run(x, NULL);
    tfs_exec__skip_node(x, i, 1);
    return;
  }
  int rc = tfs_exec__check_abort(x, st);
  if (rc == 0 && !x->stats) {
    rc = tfs_exec__run_node(x, i, 1, st);
  } else if (rc == 0) {
    int64_t wall = tfs_now_wall_us() * 1000, t0 = tfs_now_ns();
    rc = tfs_exec__run_node(x, i, 1, st);
    if (rc == 0)
      tfs_exec__record(x, i, x->rs->tasks[i].ready_ns, wall, t0,
                       tfs_now_ns(), 1);
  }
  if (rc) {
    abort_run(x, st);
    tfs_status_clear(st);
    tfs_exec__skip_node(x, i, 1);
  }
}

static void mark_ready(tfs_exec_run *x, int i) {
  if (x->stats) x->rs->tasks[i].ready_ns = tfs_now_wall_us() * 1000;
}

/* Runs `ready` (and whatever becomes ready after it) by the rule above. */
static void run_ready(tfs_exec_run *x, const int32_t *ready, int nready) {
  const tfs_plan_node *nodes = x->p->nodes;
  int stack[INLINE_MAX], sp = 0, keep = -1;
  for (int k = 0; k < nready; k++) {
    int r = ready[k];
    mark_ready(x, r);
    if (!nodes[r].expensive) {
      if (sp < INLINE_MAX)
        stack[sp++] = r;
      else
        schedule_node(x, r);
    } else {
      if (keep >= 0) schedule_node(x, keep);
      keep = r;
    }
  }
  if (keep >= 0) {
    if (sp == 0)
      stack[sp++] = keep;
    else
      schedule_node(x, keep);
  }
  tfs_status *st = thread_status();
  while (sp) {
    int i = stack[--sp];
    execute(x, i, st);
    const tfs_plan_node *pn = &nodes[i];
    keep = -1;
    for (int k = 0; k < pn->nsucc; k++) {
      int s = pn->succ[k];
      if (atomic_fetch_sub_explicit(&x->rs->pending[s], 1,
                                    memory_order_acq_rel) != 1)
        continue;
      mark_ready(x, s);
      if (!nodes[s].expensive) {
        if (sp < INLINE_MAX)
          stack[sp++] = s;
        else
          schedule_node(x, s);
      } else {
        if (keep >= 0) schedule_node(x, keep);
        keep = s;
      }
    }
    if (keep >= 0) {
      if (sp == 0)
        stack[sp++] = keep;
      else
        schedule_node(x, keep);
    }
    /* Successors are counted as outstanding until they finish, so the run
     * cannot end (and x go away) while this thread still holds work. */
    if (atomic_fetch_sub_explicit(&x->outstanding, 1,
                                  memory_order_acq_rel) == 1)
      tfs_event_notify(&x->done);
  }
}

static void task_main(tfs_task *t) {
  tfs_node_task *nt = (tfs_node_task *)t;
  int32_t node = nt->node;
  run_ready(nt->x, &node, 1);
}

static atomic_long g_parallel_runs;

long tfs_exec__parallel_runs(void) {
  return atomic_load_explicit(&g_parallel_runs, memory_order_relaxed);
}

void tfs_exec__run_parallel(tfs_exec_run *x, tfs_threadpool *pool) {
  const tfs_plan *p = x->p;
  atomic_fetch_add_explicit(&g_parallel_runs, 1, memory_order_relaxed);
  tfs_status_clear(x->st);
  x->inter = pool;
  pthread_mutex_init(&x->stats_mu, NULL);
  pthread_mutex_init(&x->err_mu, NULL);
  atomic_init(&x->outstanding, p->nnodes);
  atomic_init(&x->aborted, 0);
  tfs_event_init(&x->done);
  for (int i = 0; i < p->nnodes; i++)
    atomic_init(&x->rs->pending[i], p->nodes[i].npending);
  if (p->nnodes > 0) {
    run_ready(x, p->exec->roots, p->exec->nroots);
    int64_t deadline = x->deadline_ns;
    for (;;) {
      if (tfs_event_is_set(&x->done)) break;
      if (tfs_threadpool_run_one(pool)) continue;
      if (tfs_event_wait(&x->done, deadline)) break;
      /* TensorFlow's DirectSession: cancel the step, then wait for the
       * kernels still running. */
      tfs_status *st = thread_status();
      if (st)
        tfs_status_set(st, TFS_DEADLINE_EXCEEDED,
                       "Timed out waiting for notification");
      abort_run(x, st);
      tfs_status_clear(st);
      deadline = 0;
    }
  }
  pthread_mutex_destroy(&x->stats_mu);
  pthread_mutex_destroy(&x->err_mu);
}
