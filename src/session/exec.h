/*
 * session/exec.h - executor internals shared by the executor (sequential
 * and parallel paths), the memory planner, the session's thread pools and
 * callables.  Nothing here is public API.
 */

/*
 * Per plan (tfs_plan_exec): facts fixed at plan time (roots, whether the
 * expensive nodes can overlap, feed checks), a small pool of run states
 * (slot arrays reused across runs: a run mallocs no bookkeeping) and the
 * memory plans keyed by the feed-shape signature.  Per session
 * (tfs_session_exec): the inter-op and intra-op pools, the operation
 * timeout, cancellation of in-flight runs on close, live callables.
 */
#ifndef TFS_SESSION_EXEC_H
#define TFS_SESSION_EXEC_H

#include <pthread.h>
#include <stdatomic.h>

#include "core/threadpool.h"
#include "session/session_internal.h"

struct tfs_callable;

/* ---- memory plans ------------------------------------------------------ */

/* One allocation of a traced run, placed in the arena. */
typedef struct tfs_mem_block {
  int32_t node;      /* producer (plan position) */
  int32_t out;       /* output index */
  size_t bytes;      /* exact requested size */
  size_t esize;      /* element size of its dtype */
  size_t offset;     /* in the arena, 64-byte aligned */
  int32_t first;     /* live from this plan position ... */
  int32_t last;      /* ... through this one (nnodes: until the end) */
  uint8_t heap;      /* escapes the run (fetched/kept): always heap */
} tfs_mem_block;

typedef struct tfs_memplan {
  size_t arena_bytes;     /* size of one arena */
  size_t peak_bytes;      /* most bytes live at once in the traced run */
  int nblocks;
  tfs_mem_block *blocks;  /* grouped by node, in allocation order */
  int32_t *node_first;    /* nnodes + 1: node i owns [node_first[i],
                             node_first[i + 1]) */
  int32_t *death_first;   /* nnodes + 2: arena blocks whose last is i */
  int32_t *death_list;
} tfs_memplan;

enum {
  TFS_MP_EMPTY = 0,
  TFS_MP_RECORDING = 1, /* a run is tracing its allocations */
  TFS_MP_READY = 2,     /* offsets computed */
  TFS_MP_DYNAMIC = 3,   /* some shape is unknown: heap allocation */
  TFS_MP_RETRY = 4      /* the tracing run failed: trace the next one */
};

#define TFS_MEMPLAN_CACHE 8

typedef struct tfs_memplan_entry {
  atomic_int state;
  int64_t *key;           /* feed dtypes and dims; owned */
  size_t keylen;          /* in int64s */
  tfs_memplan *mp;        /* when READY; owned */
} tfs_memplan_entry;

/* Arena memory of one run state.  Blocks handed out hold a reference, so
 * a tensor kept past its run keeps the arena alive (it is then abandoned
 * by the run state and freed by the last block). */
typedef struct tfs_arena tfs_arena;

/* ---- run states ----------------------------------------------------------- */

typedef struct tfs_node_task {
  tfs_task task;             /* first member */
  struct tfs_exec_run *x;
  int node;
  int64_t ready_ns;          /* when it became ready (step stats) */
} tfs_node_task;

/* Everything a run needs besides the plan, allocated once per concurrent
 * run and reused. */
typedef struct tfs_run_state {
  tfs_tensor **slots;        /* nslots */
  atomic_int *uses;          /* nslots: remaining reads */
  atomic_int *pending;       /* nnodes: unfinished predecessors */
  tfs_node_task *tasks;      /* nnodes */
  tfs_arena *arena;          /* NULL until a planned run needs one */
} tfs_run_state;

#define TFS_RUN_STATE_CACHE 8

typedef struct tfs_plan_exec {
  int nroots;
  int32_t *roots;            /* nodes with no predecessors */
  int overlap;               /* two expensive nodes may run at once */
  int control_flow;          /* has TF1 control-flow nodes */
  int blocking;              /* has a TFS_KERNEL_BLOCKING kernel: runs on
                                the caller's thread */
  tfs_dtype *feed_dtypes;    /* nfeeds */
  const tfs_shape **feed_declared; /* placeholder shapes (or NULL) */
  _Atomic(tfs_run_state *) states[TFS_RUN_STATE_CACHE];
  pthread_mutex_t mp_mu;     /* inserting memplan entries */
  tfs_memplan_entry mp[TFS_MEMPLAN_CACHE];
  int memplan_off;           /* no memory planning for this plan */
  struct tfs_cf_plan *cf;    /* control_flow: frames and edges
                                (exec_cf.h) */
} tfs_plan_exec;

/* Built with the plan; NULL with st set on OOM. */
tfs_plan_exec *tfs_exec__prepare(tfs_plan *p, tfs_status *st);
void tfs_exec__free(tfs_plan *p);

tfs_run_state *tfs_exec__take_state(tfs_plan *p);
void tfs_exec__give_state(tfs_plan *p, tfs_run_state *rs);

/* ---- one run -------------------------------------------------------------- */

typedef struct tfs_mem_trace tfs_mem_trace;

typedef struct tfs_exec_run {
  tfs_session *s;
  tfs_plan *p;
  tfs_run_state *rs;
  tfs_run run;
  tfs_step_stats *stats;
  pthread_mutex_t stats_mu;  /* parallel path only */
  /* memory: at most one of trace / planned */
  tfs_mem_trace *trace;
  const tfs_memplan *mp;
  int deviated;              /* a planned block outlived its plan */
  int64_t deadline_ns;       /* 0: none */
  /* parallel path */
  tfs_threadpool *inter;
  atomic_int outstanding;
  atomic_int aborted;
  tfs_event done;
  pthread_mutex_t err_mu;
  tfs_status *st;            /* the caller's; first error (err_mu) */
} tfs_exec_run;

/* Runs node i of the plan.  `parallel`: slots/uses are shared with other
 * threads.  Returns 0, or -1 with st set. */
int tfs_exec__run_node(tfs_exec_run *x, int i, int parallel, tfs_status *st);

/* The value of the variable a ref slot value `t` points to (a fed plain
 * value as it is), for input `src` of node pn: a new reference, or NULL
 * with TensorFlow's "Attempting to use uninitialized value" error, naming
 * pn (or, for a copy across devices, the node it reads for).
 * Inline: both executors read ref edges through it. */
static inline tfs_tensor *tfs_exec__deref(const tfs_tensor *t,
                                          const tfs_plan_node *pn,
                                          tfs_output src, tfs_status *st) {
  tfs_variable *v = tfs_tensor__ref_target(t);
  if (!v) return tfs_tensor_ref((tfs_tensor *)t); /* a fed plain value */
  tfs_tensor *val = tfs_variable_read(v);
  if (!val) {
    const char *node = pn->reader ? pn->reader->name : pn->op->name;
    if (src.index)
      tfs_status_setf(st, TFS_FAILED_PRECONDITION,
                      "Attempting to use uninitialized value %s:%d\n\t "
                      "[[{{node %s}}]]",
                      src.oper->name, src.index, node);
    else
      tfs_status_setf(st, TFS_FAILED_PRECONDITION,
                      "Attempting to use uninitialized value %s\n\t "
                      "[[{{node %s}}]]",
                      src.oper->name, node);
  }
  return val;
}

/* Releases node i's inputs without running it (a skipped node after an
 * error or cancellation). */
void tfs_exec__skip_node(tfs_exec_run *x, int i, int parallel);

/* The parallel path: returns when every node has finished or been
 * skipped (after an error, cancellation or timeout). */
void tfs_exec__run_parallel(tfs_exec_run *x, tfs_threadpool *pool);

/* How many runs have taken the parallel path in this process (tests).
 * Thread-safe. */
long tfs_exec__parallel_runs(void);

/* Cancellation/timeout check between nodes: 0, or -1 with st set. */
int tfs_exec__check_abort(tfs_exec_run *x, tfs_status *st);

/* Appends node i's record to x->stats (locks when parallel). */
void tfs_exec__record(tfs_exec_run *x, int i, int64_t ready_wall_ns,
                      int64_t start_wall_ns, int64_t start,
                      int64_t end, int parallel);

/* ---- TF1 control flow (exec_cf_plan.c, exec_cf.c) -------------------------- */

/* A plan with Switch, Merge, Enter, Exit, NextIteration or LoopCond
 * nodes runs on the control-flow executor, sequentially on the caller's
 * thread, without memory planning; other plans never reach it. */
typedef struct tfs_cf_plan tfs_cf_plan;

/* The plan-time facts of such a plan: frames (TensorFlow's
 * BuildControlFlowInfo, with its "has inputs from different frames"
 * error), edges and pending counts.  NULL with st set. */
tfs_cf_plan *tfs_cf__prepare(const tfs_plan *p, tfs_status *st);
void tfs_cf__free(tfs_cf_plan *cf);

/* Runs the plan of x (feeds already in their slots): fetched values end
 * in their slots, as on the other paths.  A fetch no live value reached
 * is INVALID_ARGUMENT "Retval[i] does not have value" (i: its place among
 * the sorted fetch names).  Checks cancellation and the deadline before
 * every node.  0, or -1 with st set. */
int tfs_cf__run(tfs_exec_run *x, tfs_status *st);

/* Tests: the most iteration states the last control-flow run in the
 * process held at once. */
int64_t tfs_cf__last_peak_iterations(void);

/* ---- memory planning (memplan.c) ------------------------------------------ */

/* Chooses the memory mode of a sequential run from the feed shapes:
 * sets x->trace (first run of a signature) or x->mp (planned), or neither
 * (dynamic), and x->run.alloc. */
void tfs_mem__begin(tfs_exec_run *x, tfs_tensor *const *feeds);
/* A fetched tensor: while tracing, its buffer is marked to come from the
 * heap in later runs (no copy out of an arena). */
void tfs_mem__fetched(tfs_exec_run *x, const tfs_tensor *t);
/* After node i ran (sequential path): trace deaths / check planned
 * lifetimes. */
void tfs_mem__after_node(tfs_exec_run *x, int i);
/* After the slots were released: finish a trace (build the plan when
 * `ok`), keep or abandon the arena. */
void tfs_mem__end(tfs_exec_run *x, int ok);
void tfs_mem__free_plans(tfs_plan_exec *e);
void tfs_arena__free(tfs_arena *a);

/* Memory-plan facts for tests and logs: for the feed-shape signature of
 * `feeds`, whether it is planned (TFS_MP_*), the arena size and the peak.
 * Returns the state. */
int tfs_mem__info(tfs_plan *p, tfs_tensor *const *feeds, size_t *arena,
                  size_t *peak, int *nblocks);

/* ---- session runtime (session_exec.c) -------------------------------------- */

typedef struct tfs_session_exec {
  int npools;                /* inter-op pools: RunOptions picks one */
  tfs_threadpool **pools;    /* NULL entry: the caller's thread only */
  uint8_t *own_pool;         /* per pool: freed with the session */
  tfs_threadpool *inter;     /* pools[0] */
  tfs_threadpool *intra;
  int own_intra;
  /* runs may overlap expensive nodes on the inter-op pool (plans whose
   * exec->overlap allows it); tfs_session__overlap_policy */
  int overlap;
  int64_t operation_timeout_ms;
  atomic_int closing;        /* close cancels in-flight runs */
  pthread_mutex_t callables_mu;
  struct tfs_callable *callables; /* guarded by: callables_mu */
} tfs_session_exec;

/* Called by session.c: pools from the options (or the process-wide ones),
 * GEMM/OpenBLAS setup.  -1 with st set on failure. */
int tfs_session__exec_init(tfs_session *s, tfs_status *st);
/* Start of close: cancels in-flight runs and detaches callables. */
void tfs_session__exec_close(tfs_session *s);
void tfs_session__exec_free(tfs_session *s);

/* Callables of a closing session (callable.c). */
void tfs_callable__detach_all(tfs_session *s);
/* tfs_callable_run taking the feeds' references as
 * tfs_plan__run_taking does (functions called in a loop). */
void tfs_callable__run_taking(struct tfs_callable *c, tfs_tensor **feed_values,
                              int nfeeds, tfs_tensor **fetch_values,
                              int nfetches, tfs_status *st);
/* The private plan of a callable (tests). */
tfs_plan *tfs_callable__plan(const struct tfs_callable *c);

/* Sizes a session resolved (tests): parallelism of its pools. */
void tfs_session__pool_sizes(tfs_session *s, int *inter, int *intra);

/* Whether a session's runs overlap expensive nodes on the inter-op pool
 * (TensorFlow's executor does): with an intra-op pool at least as wide as
 * the cores this process may use (tfs_num_cores), every expensive node
 * can already fill the cores by itself, and two at once only compete for
 * them (and give up the memory plan of the sequential path), so such a
 * session runs its nodes one after another on the caller's thread; with a
 * narrower intra-op pool they overlap as in TensorFlow.  The environment
 * variable TFS_INTER_OP_OVERLAP=always|never, read when a session is
 * created, overrides that; so does tfs_session__force_overlap.  Decided
 * once per session. */
int tfs_session__overlap_policy(int intra_threads, int cores);

/* Tests: 1 always overlap, 0 never, -1 back to the environment and the
 * rule above; for sessions created afterwards.  Thread-safe. */
void tfs_session__force_overlap(int mode);

/* Whether session s overlaps expensive nodes (tests). */
int tfs_session__overlaps(const tfs_session *s);

#endif
