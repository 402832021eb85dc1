/*
 * tests/kernels/test_queue.c - FIFO queues across concurrent runs of one
 * session: a dequeue waits until another run enqueues, a close wakes it
 * (OUT_OF_RANGE), an enqueue into a full queue waits for a dequeue or
 * fails when the queue is closed with cancel_pending_enqueues, closing
 * the session releases a waiting run with CANCELLED, a run's deadline
 * ends a wait with DEADLINE_EXCEEDED, and many producer and consumer
 * threads move every element exactly once, also when more runs wait than
 * the inter-op pool has threads.  Also hostile sizes: a DequeueMany of
 * INT32_MAX, a 100-component tuple, a range next to INT64_MAX, a batch
 * size of INT64_MAX.  scripts/check runs it again under
 * ThreadSanitizer.
 */
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "testutil.h"

#define OUT(op, i) ((tfs_output){(op), (i)})

typedef struct fixture {
  tfs_graph *g;
  tfs_session *s;
  tfs_operation *q, *enq, *deq, *close, *cancel, *size;
  tfs_output x;       /* the enqueued value (a float32 scalar placeholder) */
} fixture;

static tfs_operation *fin(tfs_op_desc *d, tfs_status *st) {
  tfs_operation *op = tfs_op_desc_finish(d, st);
  TFS_ASSERT_OK(st);
  return op;
}

/* A float32 scalar queue of `capacity` (-1: unbounded) with its ops, and a
 * session with `inter` inter-op threads (0: the default). */
static void fixture_init(fixture *f, int capacity, int inter) {
  tfs_status *st = tfs_status_new();
  f->g = tfs_graph_new();
  tfs_dtype f32 = TFS_FLOAT;
  int nd = 0;
  const int64_t *dims[1] = {NULL};
  tfs_op_desc *d = tfs_op_desc_new(f->g, "FIFOQueueV2", "q");
  tfs_op_desc_set_attr_type_list(d, "component_types", &f32, 1);
  tfs_op_desc_set_attr_shape_list(d, "shapes", dims, &nd, 1);
  tfs_op_desc_set_attr_int(d, "capacity", capacity);
  f->q = fin(d, st);
  d = tfs_op_desc_new(f->g, "Placeholder", "x");
  tfs_op_desc_set_attr_type(d, "dtype", TFS_FLOAT);
  f->x = OUT(fin(d, st), 0);
  d = tfs_op_desc_new(f->g, "QueueEnqueueV2", "enq");
  tfs_op_desc_add_input(d, OUT(f->q, 0));
  tfs_op_desc_add_input_list(d, &f->x, 1);
  f->enq = fin(d, st);
  d = tfs_op_desc_new(f->g, "QueueDequeueV2", "deq");
  tfs_op_desc_add_input(d, OUT(f->q, 0));
  tfs_op_desc_set_attr_type_list(d, "component_types", &f32, 1);
  f->deq = fin(d, st);
  d = tfs_op_desc_new(f->g, "QueueCloseV2", "close");
  tfs_op_desc_add_input(d, OUT(f->q, 0));
  f->close = fin(d, st);
  d = tfs_op_desc_new(f->g, "QueueCloseV2", "cancel");
  tfs_op_desc_add_input(d, OUT(f->q, 0));
  tfs_op_desc_set_attr_bool(d, "cancel_pending_enqueues", 1);
  f->cancel = fin(d, st);
  d = tfs_op_desc_new(f->g, "QueueSizeV2", "size");
  tfs_op_desc_add_input(d, OUT(f->q, 0));
  f->size = fin(d, st);
  tfs_session_options *o = tfs_session_options_new();
  if (inter) tfs_session_options_set_inter_op_threads(o, inter);
  f->s = tfs_session_new(f->g, o, st);
  TFS_ASSERT_OK(st);
  tfs_session_options_free(o);
  tfs_status_free(st);
}

static void fixture_free(fixture *f) {
  tfs_session_free(f->s);
  tfs_graph_free(f->g);
}

static void target(fixture *f, tfs_operation *op, tfs_status *st) {
  tfs_session_run(f->s, NULL, NULL, 0, NULL, NULL, 0, &op, 1, st);
}

static void enqueue(fixture *f, float v, tfs_status *st) {
  tfs_tensor *t = tu_floats(NULL, 0, &v);
  tfs_session_run(f->s, &f->x, &t, 1, NULL, NULL, 0, &f->enq, 1, st);
  tfs_tensor_free(t);
}

/* Dequeues one value; NAN with st set on error. */
static float dequeue(fixture *f, tfs_status *st) {
  tfs_tensor *t = NULL;
  tfs_output o = OUT(f->deq, 0);
  tfs_session_run(f->s, NULL, NULL, 0, &o, &t, 1, NULL, 0, st);
  float v = t ? *(const float *)tfs_tensor_data(t) : (float)NAN;
  tfs_tensor_free(t);
  return v;
}

static void pause_ms(int ms) {
  struct timespec ts = {0, ms * 1000000L};
  nanosleep(&ts, NULL);
}

/* ---- one waiting run ----------------------------------------------------- */

typedef struct waiter_arg {
  fixture *f;
  tfs_status *st;
  float value;
  int enqueue;   /* run an enqueue of value instead of a dequeue */
} waiter_arg;

static void *waiter_main(void *p) {
  waiter_arg *a = p;
  if (a->enqueue)
    enqueue(a->f, a->value, a->st);
  else
    a->value = dequeue(a->f, a->st);
  return NULL;
}

static void start(pthread_t *t, waiter_arg *a, fixture *f, int enq,
                  float v) {
  a->f = f;
  a->st = tfs_status_new();
  a->enqueue = enq;
  a->value = v;
  CU_ASSERT_EQUAL_FATAL(pthread_create(t, NULL, waiter_main, a), 0);
  pause_ms(30); /* let it reach its wait (the test holds either way) */
}

static void test_dequeue_waits_for_enqueue(void) {
  fixture f;
  fixture_init(&f, -1, 0);
  tfs_status *st = tfs_status_new();
  pthread_t t;
  waiter_arg a;
  start(&t, &a, &f, 0, 0);
  enqueue(&f, 42.0f, st);
  TFS_ASSERT_OK(st);
  pthread_join(t, NULL);
  TFS_ASSERT_OK(a.st);
  CU_ASSERT_EQUAL(a.value, 42.0f);
  tfs_status_free(a.st);
  tfs_status_free(st);
  fixture_free(&f);
}

static void test_close_wakes_dequeue(void) {
  fixture f;
  fixture_init(&f, -1, 0);
  tfs_status *st = tfs_status_new();
  pthread_t t;
  waiter_arg a;
  start(&t, &a, &f, 0, 0);
  target(&f, f.close, st);
  TFS_ASSERT_OK(st);
  pthread_join(t, NULL);
  TFS_ASSERT_ERROR(a.st, TFS_OUT_OF_RANGE,
                   "_q' is closed and has insufficient elements (requested "
                   "1, current size 0)\n\t [[{{node deq}}]]");
  tfs_status_free(a.st);
  tfs_status_free(st);
  fixture_free(&f);
}

static void test_full_queue_enqueue_waits(void) {
  fixture f;
  fixture_init(&f, 1, 0);
  tfs_status *st = tfs_status_new();
  enqueue(&f, 1.0f, st);
  TFS_ASSERT_OK(st);
  pthread_t t;
  waiter_arg a;
  start(&t, &a, &f, 1, 2.0f); /* waits: capacity 1 */
  CU_ASSERT_EQUAL(dequeue(&f, st), 1.0f);
  TFS_ASSERT_OK(st);
  pthread_join(t, NULL);
  TFS_ASSERT_OK(a.st);
  CU_ASSERT_EQUAL(dequeue(&f, st), 2.0f);
  /* closed without cancelling: the queue drains, then OUT_OF_RANGE */
  target(&f, f.close, st);
  TFS_ASSERT_OK(st);
  dequeue(&f, st);
  TFS_ASSERT_ERROR(st, TFS_OUT_OF_RANGE, "is closed and has insufficient");
  tfs_status_free(a.st);
  tfs_status_free(st);
  fixture_free(&f);
}

static void test_cancel_pending_enqueue(void) {
  fixture f;
  fixture_init(&f, 1, 0);
  tfs_status *st = tfs_status_new();
  enqueue(&f, 1.0f, st);
  pthread_t t;
  waiter_arg a;
  start(&t, &a, &f, 1, 2.0f);
  target(&f, f.cancel, st);
  TFS_ASSERT_OK(st);
  pthread_join(t, NULL);
  TFS_ASSERT_ERROR(a.st, TFS_CANCELLED, "Enqueue operation was cancelled");
  CU_ASSERT_EQUAL(dequeue(&f, st), 1.0f); /* what was queued stays */
  enqueue(&f, 3.0f, st);
  TFS_ASSERT_ERROR(st, TFS_CANCELLED, "_q' is closed.");
  tfs_status_free(a.st);
  tfs_status_free(st);
  fixture_free(&f);
}

static void test_session_close_cancels(void) {
  fixture f;
  fixture_init(&f, -1, 0);
  tfs_status *st = tfs_status_new();
  pthread_t t;
  waiter_arg a;
  start(&t, &a, &f, 0, 0);
  tfs_session_close(f.s, st);
  TFS_ASSERT_OK(st);
  pthread_join(t, NULL);
  TFS_ASSERT_ERROR(a.st, TFS_CANCELLED,
                   "Dequeue operation was cancelled\n\t [[{{node deq}}]]");
  dequeue(&f, st);
  TFS_ASSERT_ERROR(st, TFS_CANCELLED, "Session has been closed.");
  tfs_status_free(a.st);
  tfs_status_free(st);
  fixture_free(&f);
}

static void test_deadline(void) {
  fixture f;
  fixture_init(&f, -1, 0);
  tfs_status *st = tfs_status_new();
  /* RunOptions { timeout_in_ms: 50 } */
  static const unsigned char opts[] = {0x10, 50};
  tfs_buffer ro = {opts, sizeof opts, NULL};
  tfs_tensor *v = NULL;
  tfs_output o = OUT(f.deq, 0);
  tfs_session_run_ex(f.s, &ro, NULL, NULL, 0, &o, &v, 1, NULL, 0, NULL, st);
  TFS_ASSERT_ERROR(st, TFS_DEADLINE_EXCEEDED,
                   "Timed out waiting for notification");
  CU_ASSERT_PTR_NULL(v);
  enqueue(&f, 5.0f, st); /* the queue still works */
  CU_ASSERT_EQUAL(dequeue(&f, st), 5.0f);
  TFS_ASSERT_OK(st);
  tfs_status_free(st);
  fixture_free(&f);
}

/* ---- many threads -------------------------------------------------------- */

#define PER_THREAD 200
#define NPROD 3
#define NCONS 3

typedef struct worker {
  fixture *f;
  int id;
  double sum;
  int errors;
} worker;

static void *producer(void *p) {
  worker *w = p;
  tfs_status *st = tfs_status_new();
  for (int i = 0; i < PER_THREAD; i++) {
    enqueue(w->f, (float)(w->id * PER_THREAD + i), st);
    w->errors += tfs_status_code(st) != TFS_OK;
  }
  tfs_status_free(st);
  return NULL;
}

static void *consumer(void *p) {
  worker *w = p;
  tfs_status *st = tfs_status_new();
  for (int i = 0; i < PER_THREAD; i++) {
    w->sum += dequeue(w->f, st);
    w->errors += tfs_status_code(st) != TFS_OK;
  }
  tfs_status_free(st);
  return NULL;
}

/* Producers and consumers on a small queue; inter-op pool of `inter`
 * threads, fewer than the runs that wait at once. */
static void run_many(int capacity, int inter) {
  fixture f;
  fixture_init(&f, capacity, inter);
  pthread_t t[NPROD + NCONS];
  worker w[NPROD + NCONS] = {{0}};
  for (int i = 0; i < NPROD + NCONS; i++) {
    w[i].f = &f;
    w[i].id = i;
    CU_ASSERT_EQUAL_FATAL(pthread_create(&t[i], NULL,
                                         i < NCONS ? consumer : producer,
                                         &w[i]), 0);
  }
  double sum = 0;
  int errors = 0;
  for (int i = 0; i < NPROD + NCONS; i++) {
    pthread_join(t[i], NULL);
    sum += w[i].sum;
    errors += w[i].errors;
  }
  CU_ASSERT_EQUAL(errors, 0);
  /* producer ids NCONS .. NCONS+NPROD-1 enqueued id*PER_THREAD + i */
  double want = 0;
  for (int id = NCONS; id < NCONS + NPROD; id++)
    for (int i = 0; i < PER_THREAD; i++) want += id * PER_THREAD + i;
  CU_ASSERT_DOUBLE_EQUAL(sum, want, 0.5);
  tfs_status *st = tfs_status_new();
  tfs_tensor *n = tu_run1(f.s, OUT(f.size, 0), NULL, NULL, 0);
  CU_ASSERT_EQUAL(*(const int32_t *)tfs_tensor_data(n), 0);
  tfs_tensor_free(n);
  tfs_status_free(st);
  fixture_free(&f);
}

static void test_producers_consumers(void) { run_many(4, 0); }
static void test_more_waiters_than_pool_threads(void) { run_many(1, 2); }

/* ---- hostile sizes ------------------------------------------------------- */

static tfs_output const_scalar(tfs_graph *g, const char *name, tfs_dtype dt,
                               const void *v, tfs_status *st) {
  tfs_tensor *t = tfs_tensor_new_copy(dt, NULL, 0, v,
                                      dt == TFS_BOOL ? 1 : tfs_dtype_size(dt),
                                      st);
  TFS_ASSERT_OK(st);
  tfs_op_desc *d = tfs_op_desc_new(g, "Const", name);
  tfs_op_desc_set_attr_type(d, "dtype", dt);
  tfs_op_desc_set_attr_tensor(d, "value", t, st);
  tfs_tensor_free(t);
  return OUT(fin(d, st), 0);
}

/* DequeueMany of INT32_MAX elements from a closed queue fails at once
 * (nothing of that size is allocated); a 100-component tuple goes
 * through. */
static void test_huge_counts_and_wide_tuples(void) {
  tfs_status *st = tfs_status_new();
  tfs_graph *g = tfs_graph_new();
  enum { N = 100 };
  tfs_dtype types[N];
  const int64_t *dims[N];
  int nd[N];
  tfs_output comps[N];
  for (int i = 0; i < N; i++) {
    char name[16];
    float v = (float)i;
    types[i] = TFS_FLOAT;
    dims[i] = NULL;
    nd[i] = 0;
    snprintf(name, sizeof name, "c%d", i);
    comps[i] = const_scalar(g, name, TFS_FLOAT, &v, st);
  }
  tfs_op_desc *d = tfs_op_desc_new(g, "FIFOQueueV2", "q");
  tfs_op_desc_set_attr_type_list(d, "component_types", types, N);
  tfs_op_desc_set_attr_shape_list(d, "shapes", dims, nd, N);
  tfs_operation *q = fin(d, st);
  d = tfs_op_desc_new(g, "QueueEnqueueV2", "enq");
  tfs_op_desc_add_input(d, OUT(q, 0));
  tfs_op_desc_add_input_list(d, comps, N);
  tfs_operation *enq = fin(d, st);
  d = tfs_op_desc_new(g, "QueueCloseV2", "close");
  tfs_op_desc_add_input(d, OUT(q, 0));
  tfs_operation *close = fin(d, st);
  int32_t huge = INT32_MAX;
  tfs_output n = const_scalar(g, "n", TFS_INT32, &huge, st);
  d = tfs_op_desc_new(g, "QueueDequeueManyV2", "dm");
  tfs_op_desc_add_input(d, OUT(q, 0));
  tfs_op_desc_add_input(d, n);
  tfs_op_desc_set_attr_type_list(d, "component_types", types, N);
  tfs_operation *dm = fin(d, st);
  d = tfs_op_desc_new(g, "QueueDequeueV2", "deq");
  tfs_op_desc_add_input(d, OUT(q, 0));
  tfs_op_desc_set_attr_type_list(d, "component_types", types, N);
  tfs_operation *deq = fin(d, st);
  tfs_session *s = tfs_session_new(g, NULL, st);
  TFS_ASSERT_OK(st);
  tfs_session_run(s, NULL, NULL, 0, NULL, NULL, 0, &enq, 1, st);
  TFS_ASSERT_OK(st);
  tfs_session_run(s, NULL, NULL, 0, NULL, NULL, 0, &close, 1, st);
  TFS_ASSERT_OK(st);
  tfs_tensor *v = NULL;
  tfs_output o = OUT(dm, 0);
  tfs_session_run(s, NULL, NULL, 0, &o, &v, 1, NULL, 0, st);
  TFS_ASSERT_ERROR(st, TFS_OUT_OF_RANGE,
                   "(requested 2147483647, current size 1)");
  o = OUT(deq, N - 1);
  tfs_session_run(s, NULL, NULL, 0, &o, &v, 1, NULL, 0, st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_EQUAL(*(const float *)tfs_tensor_data(v), (float)(N - 1));
  tfs_tensor_free(v);
  tfs_session_free(s);
  tfs_graph_free(g);
  tfs_status_free(st);
}

/* A dataset op with the attrs every one has. */
static tfs_op_desc *dataset_desc(tfs_graph *g, const char *type,
                                 const char *name, tfs_dtype dt) {
  tfs_op_desc *d = tfs_op_desc_new(g, type, name);
  const int64_t *dims[1] = {NULL};
  int nd = 0;
  tfs_op_desc_set_attr_type_list(d, "output_types", &dt, 1);
  tfs_op_desc_set_attr_shape_list(d, "output_shapes", dims, &nd, 1);
  return d;
}

/* Range near INT64_MAX stops instead of overflowing; a batch size of
 * INT64_MAX makes one batch of what there is. */
static void test_dataset_extremes(void) {
  tfs_status *st = tfs_status_new();
  tfs_graph *g = tfs_graph_new();
  int64_t start = INT64_MAX - 7, stop = INT64_MAX, step = 5;
  int64_t big = INT64_MAX;
  unsigned char no = 0;
  tfs_op_desc *d = dataset_desc(g, "RangeDataset", "range", TFS_INT64);
  tfs_op_desc_add_input(d, const_scalar(g, "start", TFS_INT64, &start, st));
  tfs_op_desc_add_input(d, const_scalar(g, "stop", TFS_INT64, &stop, st));
  tfs_op_desc_add_input(d, const_scalar(g, "step", TFS_INT64, &step, st));
  tfs_operation *range = fin(d, st);
  d = dataset_desc(g, "BatchDatasetV2", "batch", TFS_INT64);
  tfs_op_desc_add_input(d, OUT(range, 0));
  tfs_op_desc_add_input(d, const_scalar(g, "bs", TFS_INT64, &big, st));
  tfs_op_desc_add_input(d, const_scalar(g, "drop", TFS_BOOL, &no, st));
  tfs_operation *batch = fin(d, st);
  d = dataset_desc(g, "IteratorV2", "it", TFS_INT64);
  tfs_op_desc_set_attr_string(d, "shared_name", "", 0);
  tfs_op_desc_set_attr_string(d, "container", "", 0);
  tfs_operation *it = fin(d, st);
  d = tfs_op_desc_new(g, "MakeIterator", "init");
  tfs_op_desc_add_input(d, OUT(batch, 0));
  tfs_op_desc_add_input(d, OUT(it, 0));
  tfs_operation *init = fin(d, st);
  d = dataset_desc(g, "IteratorGetNext", "next", TFS_INT64);
  tfs_op_desc_add_input(d, OUT(it, 0));
  tfs_operation *next = fin(d, st);
  tfs_session *s = tfs_session_new(g, NULL, st);
  TFS_ASSERT_OK(st);
  tfs_session_run(s, NULL, NULL, 0, NULL, NULL, 0, &init, 1, st);
  TFS_ASSERT_OK(st);
  tfs_tensor *v = NULL;
  tfs_output o = OUT(next, 0);
  tfs_session_run(s, NULL, NULL, 0, &o, &v, 1, NULL, 0, st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_EQUAL(tfs_tensor_ndims(v), 1);
  CU_ASSERT_EQUAL(tfs_tensor_dim(v, 0), 2);
  const int64_t *x = tfs_tensor_data(v);
  CU_ASSERT(x[0] == INT64_MAX - 7 && x[1] == INT64_MAX - 2);
  tfs_tensor_free(v);
  tfs_session_run(s, NULL, NULL, 0, &o, &v, 1, NULL, 0, st);
  TFS_ASSERT_ERROR(st, TFS_OUT_OF_RANGE, "End of sequence");
  tfs_session_free(s);
  tfs_graph_free(g);
  tfs_status_free(st);
}

static const tfs_test_case kCases[] = {
    {"dequeue_waits_for_enqueue", test_dequeue_waits_for_enqueue},
    {"close_wakes_dequeue", test_close_wakes_dequeue},
    {"full_queue_enqueue_waits", test_full_queue_enqueue_waits},
    {"cancel_pending_enqueue", test_cancel_pending_enqueue},
    {"session_close_cancels", test_session_close_cancels},
    {"deadline", test_deadline},
    {"producers_consumers", test_producers_consumers},
    {"more_waiters_than_pool_threads", test_more_waiters_than_pool_threads},
    {"huge_counts_and_wide_tuples", test_huge_counts_and_wide_tuples},
    {"dataset_extremes", test_dataset_extremes},
    {NULL, NULL},
};

const tfs_test_suite tfs_test_suites[] = {
    {"queue", kCases},
    {NULL, NULL},
};
