/*
 * core/threadpool.c - persistent worker pools with an intrusive task queue,
 * cost-aware parallel_for in which the caller takes part, and the small
 * waiting primitives (event, latch) the executor uses: spin first, then
 * sleep on a futex (Linux) or yield.
 */
#define _GNU_SOURCE
#include "core/threadpool.h"

#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/alloc.h"
#include "core/log.h"
#include "core/status.h"

#ifdef __linux__
#include <linux/futex.h>
#include <sys/syscall.h>
#endif

/* How long an idle worker or a waiter spins before it sleeps: longer
 * than the runs of small single-threaded nodes between two parallel
 * kernels at batch 1 (squeeze-and-excitation blocks), whose wake-ups
 * otherwise cost more than the work they share (EfficientNetB0 batch 1
 * on two threads 7.25 -> 6.83 ms, MobileNetV3Large 3.40 -> 3.27 ms, from
 * 50 us; 1 ms gained nothing more). */
#define SPIN_NS 300000
/* At most this many helpers per parallel_for (bounded stack use). */
#define MAX_HELPERS 63
/* At most this many blocks per parallel_for (a slot's range is two 32-bit
 * halves of one atomic word). */
#define PF_MAX_BLOCKS ((int64_t)1 << 30)

/* ---- futex-or-yield sleeping --------------------------------------------- */

/* Sleeps while *a == val (or until woken / rel elapses). */
static void sleep_on(atomic_int *a, int val, int64_t rel_ns) {
#ifdef __linux__
  struct timespec ts, *tp = NULL;
  if (rel_ns > 0) {
    ts.tv_sec = rel_ns / 1000000000;
    ts.tv_nsec = rel_ns % 1000000000;
    tp = &ts;
  }
  syscall(SYS_futex, (int *)a, FUTEX_WAIT_PRIVATE, val, tp, NULL, 0);
#else
  (void)a;
  (void)val;
  (void)rel_ns;
  sched_yield();
#endif
}

/* Wakes every sleeper on a.  Reads no memory at a (it may be gone). */
static void wake_all(atomic_int *a) {
#ifdef __linux__
  syscall(SYS_futex, (int *)a, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
#else
  (void)a;
#endif
}

void tfs_event_notify(tfs_event *e) {
  if (atomic_exchange_explicit(&e->state, 1, memory_order_acq_rel) == 2)
    wake_all(&e->state);
}

int tfs_event_wait(tfs_event *e, int64_t deadline_ns) {
  int64_t spin_end = tfs_now_ns() + SPIN_NS;
  for (int i = 0;; i++) {
    if (atomic_load_explicit(&e->state, memory_order_acquire) == 1) return 1;
    if ((i & 63) == 63 && tfs_now_ns() >= spin_end) break;
    tfs_cpu_relax();
  }
  for (;;) {
    int s = atomic_load_explicit(&e->state, memory_order_acquire);
    if (s == 1) return 1;
    int64_t rel = 0;
    if (deadline_ns) {
      rel = deadline_ns - tfs_now_ns();
      if (rel <= 0) return 0;
    }
    if (s == 0 && !atomic_compare_exchange_weak_explicit(
                      &e->state, &s, 2, memory_order_acq_rel,
                      memory_order_acquire))
      continue;
    sleep_on(&e->state, 2, rel);
  }
}

void tfs_latch_count_down(tfs_latch *l) {
  int v = atomic_fetch_sub_explicit(&l->v, 2, memory_order_acq_rel);
  if ((v >> 1) == 1 && (v & 1)) wake_all(&l->v);
}

void tfs_latch_wait(tfs_latch *l) {
  int64_t spin_end = tfs_now_ns() + SPIN_NS;
  for (int i = 0;; i++) {
    if ((atomic_load_explicit(&l->v, memory_order_acquire) >> 1) == 0) return;
    if ((i & 63) == 63 && tfs_now_ns() >= spin_end) break;
    tfs_cpu_relax();
  }
  for (;;) {
    int v = atomic_load_explicit(&l->v, memory_order_acquire);
    if ((v >> 1) == 0) return;
    if (!(v & 1)) {
      if (!atomic_compare_exchange_weak_explicit(&l->v, &v, v | 1,
                                                 memory_order_acq_rel,
                                                 memory_order_acquire))
        continue;
      v |= 1;
    }
    sleep_on(&l->v, v, 0);
  }
}

/* ---- the pool ------------------------------------------------------------- */

struct tfs_threadpool {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  tfs_task *head, *tail; /* guarded by: mu */
  int nsleeping;         /* guarded by: mu */
  int stop;              /* guarded by: mu */
  atomic_int nqueued;    /* queue length, read without mu by spinners */
  int nworkers;
  pthread_t *threads;
  char name[24];
};

static tfs_task *pop_locked(tfs_threadpool *p) {
  tfs_task *t = p->head;
  if (!t) return NULL;
  p->head = t->next;
  if (p->head)
    p->head->prev = NULL;
  else
    p->tail = NULL;
  t->next = t->prev = NULL;
  t->queued = 0;
  atomic_fetch_sub_explicit(&p->nqueued, 1, memory_order_relaxed);
  return t;
}

static void unlink_locked(tfs_threadpool *p, tfs_task *t) {
  if (t->prev)
    t->prev->next = t->next;
  else
    p->head = t->next;
  if (t->next)
    t->next->prev = t->prev;
  else
    p->tail = t->prev;
  t->next = t->prev = NULL;
  t->queued = 0;
  atomic_fetch_sub_explicit(&p->nqueued, 1, memory_order_relaxed);
}

static void *worker_main(void *arg) {
  tfs_threadpool *p = arg;
  pthread_mutex_lock(&p->mu);
  for (;;) {
    tfs_task *t = pop_locked(p);
    if (t) {
      pthread_mutex_unlock(&p->mu);
      t->fn(t);
      pthread_mutex_lock(&p->mu);
      continue;
    }
    if (p->stop) break;
    /* Spin a little outside the lock: work often comes right back (the
     * next node of a run, the next parallel loop of a kernel). */
    pthread_mutex_unlock(&p->mu);
    int64_t end = tfs_now_ns() + SPIN_NS;
    for (int i = 0;
         atomic_load_explicit(&p->nqueued, memory_order_relaxed) == 0; i++) {
      if ((i & 63) == 63 && tfs_now_ns() >= end) break;
      tfs_cpu_relax();
    }
    pthread_mutex_lock(&p->mu);
    if (p->head || p->stop) continue;
    p->nsleeping++;
    pthread_cond_wait(&p->cv, &p->mu);
    p->nsleeping--;
  }
  pthread_mutex_unlock(&p->mu);
  return NULL;
}

tfs_threadpool *tfs_threadpool_new(const char *name, int parallelism,
                                   tfs_status *st) {
  tfs_threadpool *p = tfs_calloc(1, sizeof(*p));
  if (!p) {
    TFS_OOM(st);
    return NULL;
  }
  pthread_mutex_init(&p->mu, NULL);
  pthread_cond_init(&p->cv, NULL);
  atomic_init(&p->nqueued, 0);
  snprintf(p->name, sizeof p->name, "%s", name ? name : "pool");
  int nw = parallelism > 1 ? parallelism - 1 : 0;
  if (nw) {
    p->threads = tfs_calloc((size_t)nw, sizeof(pthread_t));
    if (!p->threads) {
      tfs_threadpool_free(p);
      TFS_OOM(st);
      return NULL;
    }
  }
  for (int i = 0; i < nw; i++) {
    if (pthread_create(&p->threads[i], NULL, worker_main, p) != 0) {
      tfs_threadpool_free(p);
      tfs_status_setf(st, TFS_RESOURCE_EXHAUSTED,
                      "Could not start thread %d of the %s pool", i,
                      name ? name : "");
      return NULL;
    }
    p->nworkers++;
#ifdef __linux__
    char tn[24];
    snprintf(tn, sizeof tn, "tfs-%.6s-%d", p->name, i % 1000);
    tn[15] = 0; /* the kernel's limit */
    pthread_setname_np(p->threads[i], tn);
#endif
  }
  tfs_status_clear(st);
  return p;
}

void tfs_threadpool_free(tfs_threadpool *p) {
  if (!p) return;
  pthread_mutex_lock(&p->mu);
  p->stop = 1;
  pthread_cond_broadcast(&p->cv);
  pthread_mutex_unlock(&p->mu);
  for (int i = 0; i < p->nworkers; i++) pthread_join(p->threads[i], NULL);
  /* Workers drain the queue before stopping; anything left (no workers)
   * runs here. */
  while (tfs_threadpool_run_one(p)) {
  }
  pthread_cond_destroy(&p->cv);
  pthread_mutex_destroy(&p->mu);
  tfs_free(p->threads);
  tfs_free(p);
}

int tfs_threadpool_parallelism(const tfs_threadpool *p) {
  return p ? p->nworkers + 1 : 1;
}

void tfs_threadpool_schedule(tfs_threadpool *p, tfs_task *t) {
  if (!p || p->nworkers == 0) {
    t->fn(t);
    return;
  }
  pthread_mutex_lock(&p->mu);
  t->next = NULL;
  t->prev = p->tail;
  if (p->tail)
    p->tail->next = t;
  else
    p->head = t;
  p->tail = t;
  t->queued = 1;
  atomic_fetch_add_explicit(&p->nqueued, 1, memory_order_relaxed);
  if (p->nsleeping) pthread_cond_signal(&p->cv);
  pthread_mutex_unlock(&p->mu);
}

int tfs_threadpool_cancel(tfs_threadpool *p, tfs_task *t) {
  if (!p || p->nworkers == 0) return 0;
  pthread_mutex_lock(&p->mu);
  int taken = t->queued;
  if (taken) unlink_locked(p, t);
  pthread_mutex_unlock(&p->mu);
  return taken;
}

int tfs_threadpool_run_one(tfs_threadpool *p) {
  if (!p || atomic_load_explicit(&p->nqueued, memory_order_relaxed) == 0)
    return 0;
  pthread_mutex_lock(&p->mu);
  tfs_task *t = pop_locked(p);
  pthread_mutex_unlock(&p->mu);
  if (!t) return 0;
  t->fn(t);
  return 1;
}

/* ---- parallel_for ----------------------------------------------------------- */

/* The blocks of a parallel loop are dealt out as contiguous ranges, one
 * per participant (the caller is slot 0, helper i slot i + 1), each a
 * [lo, hi) pair in one atomic word: the owner takes blocks from the front
 * and, once its own range is empty, steals from the back of the others'.
 * A thread thus works on the same part of the data in consecutive loops
 * (the rows a convolution wrote are the rows the next one reads, still in
 * that core's cache), and a thread that starts late or is slowed down
 * still leaves the others nothing but single blocks to wait for. */
typedef struct pf_slot {
  _Alignas(64) atomic_ullong range; /* lo << 32 | hi */
} pf_slot;

typedef struct pf_job {
  tfs_range_fn fn;
  void *arg;
  int64_t n, nblocks, q, r; /* block b: [b q + b r / nblocks, ...) */
  int nslots;
  tfs_latch helpers; /* helpers that may still touch the job */
  pf_slot slot[MAX_HELPERS + 1];
} pf_job;

typedef struct pf_helper {
  tfs_task task; /* first member: the task pointer is the helper's */
  pf_job *job;
  int slot;
} pf_helper;

/* Takes one block from the front (back) of a slot's range; -1 when it is
 * empty. */
static int64_t take_block(pf_slot *s, int back) {
  unsigned long long x = atomic_load_explicit(&s->range, memory_order_relaxed);
  for (;;) {
    unsigned long long lo = x >> 32, hi = x & 0xffffffffu;
    if (lo >= hi) return -1;
    unsigned long long y = back ? (lo << 32) | (hi - 1) : ((lo + 1) << 32) | hi;
    if (atomic_compare_exchange_weak_explicit(&s->range, &x, y,
                                              memory_order_relaxed,
                                              memory_order_relaxed))
      return (int64_t)(back ? hi - 1 : lo);
  }
}

/* The first index of block b, floor(n b / nblocks) without overflow (n =
 * q nblocks + r, r b < 2^60): blocks of q or q + 1 indices, the longer
 * ones spread evenly, so the slots' shares differ by at most one index
 * and a block (36 products in 8 blocks: 18 and 18, where blocks of 5
 * gave 20 and 16). */
static int64_t block_start(const pf_job *j, int64_t b) {
  return b * j->q + b * j->r / j->nblocks;
}

static void run_block_of(pf_job *j, int64_t b) {
  j->fn(j->arg, block_start(j, b), block_start(j, b + 1));
}

/* Slot `self`'s blocks, then everyone else's. */
static void run_blocks(pf_job *j, int self) {
  int64_t b;
  while ((b = take_block(&j->slot[self], 0)) >= 0) run_block_of(j, b);
  for (int k = 1; k < j->nslots; k++) {
    pf_slot *v = &j->slot[(self + k) % j->nslots];
    while ((b = take_block(v, 1)) >= 0) run_block_of(j, b);
  }
}

static void helper_main(tfs_task *t) {
  pf_helper *h = (pf_helper *)t;
  pf_job *j = h->job;
  run_blocks(j, h->slot);
  tfs_latch_count_down(&j->helpers); /* last touch of the job */
}

int tfs_threadpool_plan_threads(const tfs_threadpool *p, int64_t n,
                                int64_t cost_per_unit) {
  int maxp = tfs_threadpool_parallelism(p);
  if (maxp <= 1 || n <= 1) return 1;
  double total = (double)n * (double)(cost_per_unit > 0 ? cost_per_unit : 1);
  double t = total / TFS_PARALLEL_MIN_NS;
  if (t < 2) return 1;
  int nt = t > maxp ? maxp : (int)t;
  if (nt > n) nt = (int)n;
  if (nt > MAX_HELPERS + 1) nt = MAX_HELPERS + 1;
  return nt;
}

void tfs_threadpool_parallel_for(tfs_threadpool *p, int64_t n,
                                 int64_t cost_per_unit, tfs_range_fn fn,
                                 void *arg) {
  if (n <= 0) return;
  int nt = tfs_threadpool_plan_threads(p, n, cost_per_unit);
  if (nt <= 1) {
    fn(arg, 0, n);
    return;
  }
  pf_job j;
  j.fn = fn;
  j.arg = arg;
  j.n = n;
  /* A few blocks per thread balance uneven chunks without much traffic
   * on the block counter; long loops get blocks of about
   * TFS_PARALLEL_BLOCK_NS, so that a thread slowed down (another process
   * on its core) leaves the others at most that much work at the end. */
  int64_t want = (int64_t)nt * 4;
  double by_cost = (double)n * (double)(cost_per_unit > 0 ? cost_per_unit : 1) /
                   TFS_PARALLEL_BLOCK_NS;
  if (by_cost > (double)want) want = by_cost > (double)n ? n : (int64_t)by_cost;
  if (want > n) want = n;
  if (want > PF_MAX_BLOCKS) want = PF_MAX_BLOCKS;
  int64_t nblocks = want;
  j.nblocks = nblocks;
  j.q = n / nblocks;
  j.r = n % nblocks;
  j.nslots = nt;
  for (int i = 0; i < nt; i++) {
    unsigned long long lo = (unsigned long long)(nblocks * i / nt);
    unsigned long long hi = (unsigned long long)(nblocks * (i + 1) / nt);
    atomic_init(&j.slot[i].range, lo << 32 | hi);
  }
  int nh = nt - 1;
  tfs_latch_init(&j.helpers, nh);
  pf_helper helpers[MAX_HELPERS];
  for (int i = 0; i < nh; i++) {
    helpers[i].task.fn = helper_main;
    helpers[i].task.queued = 0;
    helpers[i].job = &j;
    helpers[i].slot = i + 1;
    tfs_threadpool_schedule(p, &helpers[i].task);
  }
  run_blocks(&j, 0);
  /* Helpers that no worker picked up yet are taken back: the caller only
   * waits for those already running (no deadlock when nested). */
  for (int i = 0; i < nh; i++)
    if (tfs_threadpool_cancel(p, &helpers[i].task))
      tfs_latch_count_down(&j.helpers);
  tfs_latch_wait(&j.helpers);
}

/* ---- machine facts ------------------------------------------------------------ */

int tfs_num_cores(void) {
#ifdef __linux__
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    int n = CPU_COUNT(&set);
    if (n > 0) return n;
  }
#endif
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? (int)n : 1;
}

uint32_t tfs_thread_id(void) {
  static __thread uint32_t id;
  if (!id) {
#ifdef __linux__
    id = (uint32_t)syscall(SYS_gettid);
#else
    static atomic_uint next = 1;
    id = atomic_fetch_add(&next, 1);
#endif
  }
  return id;
}
