/*
 * tests/core/test_threadpool.c - worker pools: parallel_for covers every
 * index exactly once whatever the split (a participant held up has its
 * blocks taken by the others), small loops stay on the caller,
 * nested loops finish, tasks can be taken back, events time out, and
 * pools start and stop cleanly.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

#include "core/threadpool.h"
#include "core/util.h"
#include "testutil.h"

typedef struct {
  atomic_int *hits;
  atomic_int calls;
  uint32_t caller;
  atomic_int off_caller;
  atomic_llong shortest, longest; /* range lengths; start at n and 0 */
} cover_job;

static void cover(void *arg, int64_t b, int64_t e) {
  cover_job *j = arg;
  atomic_fetch_add(&j->calls, 1);
  long long len = e - b, x = atomic_load(&j->shortest);
  while (len < x && !atomic_compare_exchange_weak(&j->shortest, &x, len)) {
  }
  x = atomic_load(&j->longest);
  while (len > x && !atomic_compare_exchange_weak(&j->longest, &x, len)) {
  }
  if (tfs_thread_id() != j->caller) atomic_fetch_add(&j->off_caller, 1);
  for (int64_t i = b; i < e; i++) atomic_fetch_add(&j->hits[i], 1);
}

static void test_parallel_for_covers_once(void) {
  tfs_status *st = tfs_status_new();
  tfs_threadpool *p = tfs_threadpool_new("test", 4, st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_EQUAL(tfs_threadpool_parallelism(p), 4);
  static const int64_t ns[] = {1, 2, 3, 7, 36, 64, 1000, 100003};
  static const int64_t costs[] = {1, 100, 100000};
  for (size_t a = 0; a < TFS_ARRAY_LEN(ns); a++) {
    for (size_t b = 0; b < TFS_ARRAY_LEN(costs); b++) {
      int64_t n = ns[a];
      cover_job j = {.caller = tfs_thread_id()};
      atomic_init(&j.shortest, n);
      atomic_init(&j.longest, 0);
      j.hits = calloc((size_t)n, sizeof(atomic_int));
      tfs_threadpool_parallel_for(p, n, costs[b], cover, &j);
      int ok = 1;
      for (int64_t i = 0; i < n; i++) ok &= atomic_load(&j.hits[i]) == 1;
      CU_ASSERT_TRUE(ok);
      /* blocks differ by one index at most (36 in 8: 4 and 5, not 5 and
       * a last block of 1) */
      CU_ASSERT_TRUE(atomic_load(&j.longest) - atomic_load(&j.shortest) <= 1);
      /* below TFS_PARALLEL_MIN_NS of work per thread: one inline call */
      if ((double)n * costs[b] < 2.0 * TFS_PARALLEL_MIN_NS) {
        CU_ASSERT_EQUAL(atomic_load(&j.calls), 1);
        CU_ASSERT_EQUAL(atomic_load(&j.off_caller), 0);
      }
      free(j.hits);
    }
  }
  CU_ASSERT_EQUAL(tfs_threadpool_plan_threads(p, 10, 1), 1);
  CU_ASSERT_EQUAL(tfs_threadpool_plan_threads(p, 1000, 1000000), 4);
  CU_ASSERT_EQUAL(tfs_threadpool_plan_threads(NULL, 1000, 1000000), 1);
  tfs_threadpool_free(p);
  tfs_status_free(st);
}

/* A participant held up in its first block: the others run their own
 * ranges, then take its remaining blocks from the back; every index
 * still runs exactly once. */
static void cover_slow_caller(void *arg, int64_t b, int64_t e) {
  cover_job *j = arg;
  if (b == 0 && tfs_thread_id() == j->caller) {
    struct timespec ts = {0, 20 * 1000 * 1000};
    nanosleep(&ts, NULL);
  }
  cover(arg, b, e);
}

static void test_parallel_for_steals(void) {
  tfs_threadpool *p = tfs_threadpool_new("steal", 3, NULL);
  for (int round = 0; round < 3; round++) {
    int64_t n = 1000 + round;
    cover_job j = {.caller = tfs_thread_id()};
    j.hits = calloc((size_t)n, sizeof(atomic_int));
    tfs_threadpool_parallel_for(p, n, 100000, cover_slow_caller, &j);
    int ok = 1;
    for (int64_t i = 0; i < n; i++) ok &= atomic_load(&j.hits[i]) == 1;
    CU_ASSERT_TRUE(ok);
    free(j.hits);
  }
  tfs_threadpool_free(p);
}

typedef struct {
  tfs_threadpool *p;
  atomic_llong sum;
} nest_job;

static void inner(void *arg, int64_t b, int64_t e) {
  nest_job *j = arg;
  for (int64_t i = b; i < e; i++) atomic_fetch_add(&j->sum, i);
}

static void outer(void *arg, int64_t b, int64_t e) {
  nest_job *j = arg;
  for (int64_t i = b; i < e; i++)
    tfs_threadpool_parallel_for(j->p, 1000, 100000, inner, j);
}

static void test_nested_parallel_for(void) {
  tfs_threadpool *p = tfs_threadpool_new("nest", 3, NULL);
  nest_job j = {p, 0};
  tfs_threadpool_parallel_for(p, 16, 10000000, outer, &j);
  CU_ASSERT_EQUAL(atomic_load(&j.sum), 16LL * (999 * 1000 / 2));
  tfs_threadpool_free(p);
}

typedef struct {
  tfs_task task;
  atomic_int ran;
  tfs_latch *latch;
} count_task;

static void count_main(tfs_task *t) {
  count_task *c = (count_task *)t;
  atomic_fetch_add(&c->ran, 1);
  tfs_latch_count_down(c->latch);
}

static void test_schedule_and_cancel(void) {
  tfs_threadpool *p = tfs_threadpool_new("sched", 2, NULL);
  enum { N = 200 };
  count_task *ts = calloc(N, sizeof(count_task));
  tfs_latch latch;
  tfs_latch_init(&latch, N);
  for (int i = 0; i < N; i++) {
    ts[i].task.fn = count_main;
    ts[i].latch = &latch;
    tfs_threadpool_schedule(p, &ts[i].task);
  }
  int taken = 0;
  for (int i = N - 1; i >= 0; i--) {
    if (tfs_threadpool_cancel(p, &ts[i].task)) {
      taken++;
      tfs_latch_count_down(&latch);
    }
  }
  while (tfs_threadpool_run_one(p)) {
  }
  tfs_latch_wait(&latch);
  int ran = 0;
  for (int i = 0; i < N; i++) ran += atomic_load(&ts[i].ran);
  CU_ASSERT_EQUAL(ran + taken, N);
  /* a task that ran cannot be taken back */
  CU_ASSERT_EQUAL(tfs_threadpool_cancel(p, &ts[0].task), 0);
  free(ts);
  tfs_threadpool_free(p);
  /* no workers: tasks run inline at once */
  tfs_threadpool *one = tfs_threadpool_new("one", 1, NULL);
  count_task c = {.task.fn = count_main, .latch = &latch};
  tfs_latch_init(&latch, 1);
  tfs_threadpool_schedule(one, &c.task);
  CU_ASSERT_EQUAL(atomic_load(&c.ran), 1);
  tfs_threadpool_free(one);
  tfs_threadpool_free(NULL);
}

static void test_event_timeout(void) {
  tfs_event e;
  tfs_event_init(&e);
  int64_t t0 = tfs_now_ns();
  CU_ASSERT_EQUAL(tfs_event_wait(&e, t0 + 2000000), 0);
  CU_ASSERT_TRUE(tfs_now_ns() - t0 >= 2000000);
  tfs_event_notify(&e);
  CU_ASSERT_TRUE(tfs_event_is_set(&e));
  CU_ASSERT_EQUAL(tfs_event_wait(&e, 0), 1);
  CU_ASSERT_TRUE(tfs_num_cores() >= 1);
  CU_ASSERT_NOT_EQUAL(tfs_thread_id(), 0);
}

static const tfs_test_case pool_cases[] = {
    {"parallel_for_covers_once", test_parallel_for_covers_once},
    {"parallel_for_steals", test_parallel_for_steals},
    {"nested_parallel_for", test_nested_parallel_for},
    {"schedule_and_cancel", test_schedule_and_cancel},
    {"event_timeout", test_event_timeout},
    {NULL, NULL}};

const tfs_test_suite tfs_test_suites[] = {{"threadpool", pool_cases},
                                          {NULL, NULL}};
