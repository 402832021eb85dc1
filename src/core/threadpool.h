/*
 * core/threadpool.h - persistent worker pools: the inter-op pool runs
 * independent kernels, the intra-op pool splits the work of one kernel.
 * The calling thread always takes part, so a pool of parallelism N has
 * N-1 workers.  Idle workers spin briefly, then sleep (no CPU is burned
 * between runs).
 */

/*
 * Threads: every function may be called from any thread, including from
 * inside a task or a parallel_for body of the same pool (nested calls never
 * deadlock: a caller only waits for helpers that have already started).
 * tfs_threadpool_free must not race with other calls on the same pool.
 */
#ifndef TFS_CORE_THREADPOOL_H
#define TFS_CORE_THREADPOOL_H

#include <stdatomic.h>
#include <stdint.h>

#include "tfsess/status.h"

typedef struct tfs_threadpool tfs_threadpool;

/* A unit of asynchronous work.  Intrusive: the caller owns the struct and
 * keeps it alive until fn has returned (or tfs_threadpool_cancel took it
 * back).  No allocation happens on schedule. */
typedef struct tfs_task {
  void (*fn)(struct tfs_task *t);
  struct tfs_task *next, *prev; /* queue links; owned by the pool */
  uint8_t queued;               /* guarded by the pool's mutex */
} tfs_task;

/* Body of a parallel loop: runs [begin, end). */
typedef void (*tfs_range_fn)(void *arg, int64_t begin, int64_t end);

/* Returns a new pool of `parallelism` threads in all (the caller counts as
 * one, so parallelism - 1 workers start; parallelism <= 1 starts none);
 * free with tfs_threadpool_free.  `name` is borrowed for the call (worker
 * thread names, "tfs-NAME-i").  NULL with RESOURCE_EXHAUSTED when threads
 * or memory cannot be had. */
tfs_threadpool *tfs_threadpool_new(const char *name, int parallelism,
                                   tfs_status *st);

/* Runs whatever is still queued, stops and joins the workers, frees the
 * pool.  Accepts NULL. */
void tfs_threadpool_free(tfs_threadpool *p);

/* Total parallelism (workers + the caller); 1 for NULL. */
int tfs_threadpool_parallelism(const tfs_threadpool *p);

/* Queues `t` to run on a worker (inline at once when the pool has no
 * workers or p is NULL). */
void tfs_threadpool_schedule(tfs_threadpool *p, tfs_task *t);

/* Takes `t` back if no worker has started it; returns 1 then, 0 if it is
 * running or has run. */
int tfs_threadpool_cancel(tfs_threadpool *p, tfs_task *t);

/* Runs one queued task on the calling thread (the caller helping while it
 * waits); returns 1 if it ran one. */
int tfs_threadpool_run_one(tfs_threadpool *p);

/* Runs fn over [0, n) and returns when all of it is done.  The range is
 * split over the pool only when the estimated total cost
 * (n * cost_per_unit, in nanoseconds of one core) pays for waking threads:
 * each thread gets at least TFS_PARALLEL_MIN_NS of work, so small loops
 * run inline on the caller with no synchronisation at all.  The range is
 * cut into chunks whose sizes differ by one unit at most (chunk c of nc
 * starts at floor(n * c / nc)), handed out dynamically: thread i of nt
 * starts on the chunks of its own contiguous share, chunks [nc * i / nt,
 * nc * (i + 1) / nt), and then takes the others' last chunks; loops
 * whose units differ in cost balance best with equal work in each share.
 * fn must
 * tolerate any split into contiguous ranges.  p may be NULL (inline). */
void tfs_threadpool_parallel_for(tfs_threadpool *p, int64_t n,
                                 int64_t cost_per_unit, tfs_range_fn fn,
                                 void *arg);

/* The least work, in nanoseconds, worth handing to one more thread
 * (NASNetMobile's depthwise convolutions of 15-30 us at batch 1 now take
 * two threads: 9.7 -> 8.5 ms on two; 5 us made the LSTM 30% slower). */
#define TFS_PARALLEL_MIN_NS 10000
/* Work per block handed out by parallel_for in long loops. */
#define TFS_PARALLEL_BLOCK_NS 50000

/* How many threads parallel_for would use for this much work (1 means
 * inline); kernels use it to size per-thread scratch. */
int tfs_threadpool_plan_threads(const tfs_threadpool *p, int64_t n,
                                int64_t cost_per_unit);

/* Number of cores this process may run on (at least 1). */
int tfs_num_cores(void);

/* A small id of the calling thread (step stats' thread_id). */
uint32_t tfs_thread_id(void);

/* ---- waiting ------------------------------------------------------------- */

/* A one-shot event: wait until notified, spinning briefly and then
 * sleeping.  Zero-initialise (or tfs_event_init) before use. */
typedef struct tfs_event {
  atomic_int state; /* 0 not set, 1 set, 2 not set and someone sleeps */
} tfs_event;

static inline void tfs_event_init(tfs_event *e) { atomic_init(&e->state, 0); }
void tfs_event_notify(tfs_event *e);
/* Waits until notified or until the monotonic clock reaches deadline_ns
 * (0: no deadline).  Returns 1 if notified, 0 on timeout. */
int tfs_event_wait(tfs_event *e, int64_t deadline_ns);
static inline int tfs_event_is_set(tfs_event *e) {
  return atomic_load_explicit(&e->state, memory_order_acquire) == 1;
}

/* A countdown latch: tfs_latch_wait returns once the count reaches 0.
 * The count may be raised while it is above 0.  The thread that brings
 * it to 0 touches no memory of the latch afterwards, so the waiter may
 * free it as soon as it returns. */
typedef struct tfs_latch {
  atomic_int v; /* 2 * count + (1 if the waiter sleeps) */
} tfs_latch;

static inline void tfs_latch_init(tfs_latch *l, int count) {
  atomic_init(&l->v, 2 * count);
}
static inline void tfs_latch_add(tfs_latch *l, int n) {
  atomic_fetch_add_explicit(&l->v, 2 * n, memory_order_relaxed);
}
void tfs_latch_count_down(tfs_latch *l);
void tfs_latch_wait(tfs_latch *l);

/* A spin-wait hint to the CPU (x86 pause, AArch64 yield; nothing
 * elsewhere), for loops that poll an atomic another thread sets. */
static inline void tfs_cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ __volatile__("yield");
#endif
}

#endif
