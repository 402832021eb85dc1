/*
 * tests/session/test_executor.c - the executor, memory plans, callables
 * and pools: identical results on both paths and from 8 threads x 1,000
 * runs, timeouts and cancellation without leaks, in-place reuse, arenas
 * and their fallbacks, every callable error, pool sizes from the options.
 */
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "core/alloc.h"
#include "core/tensor.h"
#include "session/exec.h"
#include "testutil.h"

static tfs_graph *g;
static tfs_status *st;

/* The parallel path's tests need it whatever the intra-op pool's width
 * (overlap_policy tests the rule itself). */
static void setup(void) {
  g = tfs_graph_new();
  st = tfs_status_new();
  tfs_session__force_overlap(1);
}

static void teardown(void) {
  tfs_graph_free(g);
  tfs_status_free(st);
  tfs_session__force_overlap(-1);
}

/* A [r, c] float tensor of small pseudo-random values. */
static tfs_tensor *rand_matrix(int64_t r, int64_t c, unsigned seed) {
  int64_t dims[2] = {r, c};
  tfs_tensor *t = tfs_tensor_new(TFS_FLOAT, dims, 2, st);
  TFS_ASSERT_OK(st);
  float *d = tfs_tensor_data(t);
  for (int64_t i = 0; i < r * c; i++) {
    seed = seed * 1103515245u + 12345u;
    d[i] = (float)((seed >> 16) % 200) / 100.0f - 1.0f;
  }
  return t;
}

static tfs_output const_matrix(int64_t r, int64_t c, unsigned seed) {
  tfs_tensor *t = rand_matrix(r, c, seed);
  tfs_output o = tfs_op_const(g, NULL, t, st);
  tfs_tensor_free(t);
  return o;
}

/* relu(x W + b) */
static tfs_output dense(tfs_output x, int64_t in, int64_t out,
                        unsigned seed) {
  int64_t bd[1] = {out};
  tfs_tensor *b = tfs_tensor_new(TFS_FLOAT, bd, 1, st);
  float *bp = tfs_tensor_data(b);
  for (int64_t i = 0; i < out; i++) bp[i] = 0.01f * (float)(i % 7);
  tfs_output bo = tfs_op_const(g, NULL, b, st);
  tfs_tensor_free(b);
  tfs_output m = tfs_op_matmul(g, NULL, x, const_matrix(in, out, seed), 0,
                               0, st);
  return tfs_op_unary(g, "Relu", NULL, tfs_op_bias_add(g, NULL, m, bo, st),
                      st);
}

/* Two branches whose MatMuls can overlap, joined by an Add. */
static tfs_output branchy_model(tfs_output x) {
  tfs_output a = dense(dense(x, 32, 48, 1), 48, 16, 2);
  tfs_output b = dense(dense(x, 32, 48, 3), 48, 16, 4);
  return tfs_op_unary(g, "Softmax", "probs", tfs_op_add(g, NULL, a, b, st),
                      st);
}

static int same_tensor(const tfs_tensor *a, const tfs_tensor *b) {
  return a && b && tfs_tensor_dtype(a) == tfs_tensor_dtype(b) &&
         tfs_tensor_byte_size(a) == tfs_tensor_byte_size(b) &&
         memcmp(tfs_tensor_data(a), tfs_tensor_data(b),
                tfs_tensor_byte_size(a)) == 0;
}

static const tfs_node_stats *stats_of(const tfs_step_stats *ss,
                                      const char *name);

static tfs_callable *make1(tfs_session *s, tfs_output *feed, int nfeeds,
                           tfs_output fetch, const tfs_callable_options *o) {
  tfs_callable *c =
      tfs_session_make_callable(s, feed, nfeeds, &fetch, 1, NULL, 0, o, st);
  TFS_ASSERT_OK(st);
  return c;
}

static tfs_tensor *call1(tfs_callable *c, tfs_tensor *feed) {
  tfs_tensor *out = NULL;
  tfs_callable_run(c, &feed, feed ? 1 : 0, &out, 1, st);
  TFS_ASSERT_OK(st);
  return out;
}

/* ---- paths ----------------------------------------------------------------- */

static void test_parallel_matches_sequential(void) {
  setup();
  int64_t dims[2] = {-1, 32};
  tfs_output x = tfs_op_placeholder(g, "x", TFS_FLOAT, dims, 2, st);
  tfs_output y = branchy_model(x);
  TFS_ASSERT_OK(st);
  tfs_session *s = tfs_session_new(g, NULL, st);
  tfs_callable_options *inl = tfs_callable_options_new();
  tfs_callable_options_set_run_in_caller_thread(inl, 1);
  tfs_callable *par = make1(s, &x, 1, y, NULL);
  tfs_callable *seq = make1(s, &x, 1, y, inl);
  CU_ASSERT_TRUE(tfs_callable__plan(par)->exec->overlap);
  long before = tfs_exec__parallel_runs();
  for (int r = 0; r < 20; r++) {
    tfs_tensor *in = rand_matrix(1 + r % 5, 32, (unsigned)r);
    tfs_tensor *a = call1(par, in), *b = call1(seq, in);
    tfs_tensor *c = tu_run1(s, y, &x, &in, 1);
    CU_ASSERT_TRUE(same_tensor(a, b));
    CU_ASSERT_TRUE(same_tensor(a, c));
    tfs_tensor_free(a);
    tfs_tensor_free(b);
    tfs_tensor_free(c);
    tfs_tensor_free(in);
  }
  CU_ASSERT_TRUE(tfs_exec__parallel_runs() - before >= 20);
  tfs_callable_free(par);
  tfs_callable_free(seq);
  tfs_callable_options_free(inl);
  tfs_session_free(s);
  teardown();
}

/* Step stats from the parallel path: every node once, with its thread and
 * the time it became ready. */
static void test_parallel_step_stats(void) {
  setup();
  int64_t dims[2] = {-1, 32};
  tfs_output x = tfs_op_placeholder(g, "x", TFS_FLOAT, dims, 2, st);
  tfs_output y = branchy_model(x);
  tfs_session *s = tfs_session_new(g, NULL, st);
  tfs_callable *c = make1(s, &x, 1, y, NULL);
  tfs_plan *p = tfs_callable__plan(c);
  tfs_tensor *in = rand_matrix(4, 32, 1), *out = NULL;
  for (int r = 0; r < 5; r++) {
    tfs_step_stats ss;
    memset(&ss, 0, sizeof ss);
    tfs_plan__run(s, p, NULL, &in, &out, &ss, st);
    TFS_ASSERT_OK(st);
    CU_ASSERT_EQUAL(ss.n, p->nnodes);
    for (int i = 0; i < ss.n; i++) {
      CU_ASSERT_NOT_EQUAL(ss.nodes[i].thread_id, 0);
      CU_ASSERT_TRUE(ss.nodes[i].scheduled_nanos <=
                     ss.nodes[i].all_start_nanos + 1000);
      CU_ASSERT_TRUE(ss.nodes[i].all_end_rel_nanos >= 0);
    }
    const tfs_node_stats *probs = stats_of(&ss, "probs");
    CU_ASSERT_PTR_NOT_NULL(probs);
    if (probs) CU_ASSERT_EQUAL(probs->noutputs, 1);
    tfs_step_stats_clear(&ss);
    tfs_tensor_free(out);
  }
  tfs_tensor_free(in);
  tfs_callable_free(c);
  tfs_session_free(s);
  teardown();
}

/* A chain's expensive nodes never overlap: it runs sequentially. */
static void test_chain_is_sequential(void) {
  setup();
  int64_t dims[2] = {-1, 32};
  tfs_output x = tfs_op_placeholder(g, "x", TFS_FLOAT, dims, 2, st);
  tfs_output y = dense(dense(x, 32, 32, 1), 32, 8, 2);
  tfs_session *s = tfs_session_new(g, NULL, st);
  tfs_callable *c = make1(s, &x, 1, y, NULL);
  CU_ASSERT_FALSE(tfs_callable__plan(c)->exec->overlap);
  tfs_callable_free(c);
  tfs_session_free(s);
  teardown();
}

/* Expensive nodes overlap on the inter-op pool only while the intra-op
 * pool is narrower than the cores; TFS_INTER_OP_OVERLAP and the test hook
 * override that.  One at a time, every node runs on the caller's thread
 * and the values are the parallel path's. */
static void test_overlap_policy(void) {
  setup();
  tfs_session__force_overlap(-1);
  unsetenv("TFS_INTER_OP_OVERLAP");
  CU_ASSERT_EQUAL(tfs_session__overlap_policy(2, 2), 0);
  CU_ASSERT_EQUAL(tfs_session__overlap_policy(8, 2), 0);
  CU_ASSERT_EQUAL(tfs_session__overlap_policy(1, 2), 1);
  CU_ASSERT_EQUAL(tfs_session__overlap_policy(3, 4), 1);
  CU_ASSERT_EQUAL(tfs_session__overlap_policy(1, 1), 0);
  setenv("TFS_INTER_OP_OVERLAP", "always", 1);
  CU_ASSERT_EQUAL(tfs_session__overlap_policy(2, 2), 1);
  setenv("TFS_INTER_OP_OVERLAP", "never", 1);
  CU_ASSERT_EQUAL(tfs_session__overlap_policy(1, 2), 0);
  setenv("TFS_INTER_OP_OVERLAP", "sometimes", 1); /* unknown: the rule */
  CU_ASSERT_EQUAL(tfs_session__overlap_policy(1, 2), 1);
  setenv("TFS_INTER_OP_OVERLAP", "never", 1);
  tfs_session__force_overlap(1); /* the hook wins */
  CU_ASSERT_EQUAL(tfs_session__overlap_policy(1, 2), 1);
  tfs_session__force_overlap(-1);
  unsetenv("TFS_INTER_OP_OVERLAP");

  int64_t dims[2] = {-1, 32};
  tfs_output x = tfs_op_placeholder(g, "x", TFS_FLOAT, dims, 2, st);
  tfs_output y = branchy_model(x);
  TFS_ASSERT_OK(st);
  tfs_session_options *o = tfs_session_options_new();
  o->config.use_per_session_threads = 1;
  tfs_session_options_set_inter_op_threads(o, 2);
  int cores = tfs_num_cores();
  tfs_tensor *in = rand_matrix(5, 32, 7), *want = NULL;
  for (int wide = 0; wide < 2; wide++) {
    tfs_session_options_set_intra_op_threads(o, wide ? cores : 1);
    tfs_session *s = tfs_session_new(g, o, st);
    TFS_ASSERT_OK(st);
    CU_ASSERT_EQUAL(tfs_session__overlaps(s), wide ? 0 : cores > 1);
    tfs_callable *c = make1(s, &x, 1, y, NULL);
    tfs_plan *p = tfs_callable__plan(c);
    CU_ASSERT_TRUE(p->exec->overlap); /* the plan could */
    tfs_step_stats ss;
    memset(&ss, 0, sizeof ss);
    tfs_tensor *out = NULL;
    long before = tfs_exec__parallel_runs();
    tfs_plan__run(s, p, NULL, &in, &out, &ss, st);
    TFS_ASSERT_OK(st);
    CU_ASSERT_EQUAL(tfs_exec__parallel_runs() - before,
                    tfs_session__overlaps(s) ? 1 : 0);
    CU_ASSERT_EQUAL(ss.n, p->nnodes);
    if (wide)
      for (int i = 1; i < ss.n; i++)
        CU_ASSERT_EQUAL(ss.nodes[i].thread_id, ss.nodes[0].thread_id);
    if (!want)
      want = out;
    else {
      CU_ASSERT_TRUE(same_tensor(out, want));
      tfs_tensor_free(out);
    }
    tfs_step_stats_clear(&ss);
    tfs_callable_free(c);
    tfs_session_free(s);
  }
  tfs_tensor_free(want);
  tfs_tensor_free(in);
  tfs_session_options_free(o);
  teardown();
}

/* ---- 8 threads x 1,000 runs ---------------------------------------------------- */

#define NTHREADS 8
#define NRUNS 1000
#define NINPUTS 4

typedef struct {
  tfs_session *s;
  tfs_callable *c;
  tfs_output x, y;
  tfs_tensor *in[NINPUTS], *want[NINPUTS];
  int use_callable;
  int bad;
} conc_job;

static void *conc_main(void *arg) {
  conc_job *j = arg;
  tfs_status *lst = tfs_status_new();
  for (int i = 0; i < NRUNS; i++) {
    int k = i % NINPUTS;
    tfs_tensor *out = NULL;
    if (j->use_callable)
      tfs_callable_run(j->c, &j->in[k], 1, &out, 1, lst);
    else
      tfs_session_run(j->s, &j->x, &j->in[k], 1, &j->y, &out, 1, NULL, 0,
                      lst);
    if (!tfs_status_ok(lst) || !same_tensor(out, j->want[k])) j->bad++;
    tfs_tensor_free(out);
  }
  tfs_status_free(lst);
  return NULL;
}

static void test_concurrent_runs_match_serial(void) {
  setup();
  int64_t dims[2] = {-1, 32};
  tfs_output x = tfs_op_placeholder(g, "x", TFS_FLOAT, dims, 2, st);
  tfs_output y = branchy_model(x);
  TFS_ASSERT_OK(st);
  tfs_session *s = tfs_session_new(g, NULL, st);
  tfs_callable *c = make1(s, &x, 1, y, NULL);
  conc_job jobs[NTHREADS];
  for (int t = 0; t < NTHREADS; t++) {
    jobs[t] = (conc_job){.s = s, .c = c, .x = x, .y = y,
                         .use_callable = t % 2};
    for (int k = 0; k < NINPUTS; k++) {
      jobs[t].in[k] = rand_matrix(1 + (t + k) % 3, 32, (unsigned)(t * 7 + k));
      jobs[t].want[k] = tu_run1(s, y, &x, &jobs[t].in[k], 1); /* serial */
    }
  }
  pthread_t th[NTHREADS];
  for (int t = 0; t < NTHREADS; t++)
    pthread_create(&th[t], NULL, conc_main, &jobs[t]);
  for (int t = 0; t < NTHREADS; t++) {
    pthread_join(th[t], NULL);
    CU_ASSERT_EQUAL(jobs[t].bad, 0);
    for (int k = 0; k < NINPUTS; k++) {
      tfs_tensor_free(jobs[t].in[k]);
      tfs_tensor_free(jobs[t].want[k]);
    }
  }
  tfs_callable_free(c);
  tfs_session_free(s);
  teardown();
}

/* ---- timeouts and cancellation ------------------------------------------------------ */

/* `len` MatMuls by a [32,32] weight in a chain from x (or two chains
 * added, each with its own weight so that the optimizer cannot merge
 * them): ~4 MFLOP per node for a [2048,32] x. */
static tfs_output matmul_chain(tfs_output x, int len, int branches) {
  tfs_output sum = {NULL, -1};
  for (int b = 0; b < branches; b++) {
    tfs_output w = const_matrix(32, 32, 9 + b), h = x;
    for (int i = 0; i < len; i++) h = tfs_op_matmul(g, NULL, h, w, 0, 0, st);
    sum = b ? tfs_op_add(g, NULL, sum, h, st) : h;
  }
  return sum;
}

static void check_timeout(int branches) {
  setup();
  int64_t dims[2] = {2048, 32};
  tfs_output x = tfs_op_placeholder(g, "x", TFS_FLOAT, dims, 2, st);
  tfs_output y = matmul_chain(x, 300, branches);
  TFS_ASSERT_OK(st);
  tfs_session *s = tfs_session_new(g, NULL, st);
  tfs_callable_options *o = tfs_callable_options_new();
  tfs_callable_options_set_timeout_in_ms(o, 1);
  tfs_callable *c = make1(s, &x, 1, y, o);
  CU_ASSERT_EQUAL(tfs_callable__plan(c)->exec->overlap, branches > 1);
  tfs_tensor *in = rand_matrix(2048, 32, 5), *out = (tfs_tensor *)1;
  tfs_callable_run(c, &in, 1, &out, 1, st);
  TFS_ASSERT_ERROR(st, TFS_DEADLINE_EXCEEDED,
                   "Timed out waiting for notification");
  CU_ASSERT_PTR_NULL(out);
  /* the session still works afterwards */
  tfs_callable *ok = make1(s, &x, 1, tfs_op_unary(g, "Neg", NULL, x, st),
                           NULL);
  tfs_tensor *neg = call1(ok, in);
  CU_ASSERT_EQUAL(((float *)tfs_tensor_data(neg))[3],
                  -((float *)tfs_tensor_data(in))[3]);
  tfs_tensor_free(neg);
  tfs_tensor_free(in);
  tfs_callable_free(ok);
  tfs_callable_free(c);
  tfs_callable_options_free(o);
  tfs_session_free(s);
  teardown();
}

static void test_timeout_sequential(void) { check_timeout(1); }
static void test_timeout_parallel(void) { check_timeout(2); }

static void test_invalid_inter_op_pool(void) {
  setup();
  tfs_output x = tfs_op_placeholder(g, "x", TFS_FLOAT, NULL, 0, st);
  tfs_output y = tfs_op_unary(g, "Neg", NULL, x, st);
  tfs_session *s = tfs_session_new(g, NULL, st);
  tfs_callable *c = make1(s, &x, 1, y, NULL);
  tfs_run_options ro = {0, 0, 3};
  tfs_tensor *in = tfs_tensor_scalar_float(2), *out = NULL;
  tfs_plan__run(s, tfs_callable__plan(c), &ro, &in, &out, NULL, st);
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT, "Invalid inter_op_thread_pool: 3");
  ro.inter_op_thread_pool = -1; /* the caller's thread */
  tfs_plan__run(s, tfs_callable__plan(c), &ro, &in, &out, NULL, st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_EQUAL(tu_scalar_float(out), -2.0f);
  tfs_tensor_free(out);
  tfs_tensor_free(in);
  tfs_callable_free(c);
  tfs_session_free(s);
  teardown();
}

typedef struct {
  tfs_callable *c;
  tfs_tensor *in;
  tfs_code code;
  char msg[200];
} cancel_job;

static void *cancel_main(void *arg) {
  cancel_job *j = arg;
  tfs_status *lst = tfs_status_new();
  tfs_tensor *out = NULL;
  tfs_callable_run(j->c, &j->in, 1, &out, 1, lst);
  j->code = tfs_status_code(lst);
  snprintf(j->msg, sizeof j->msg, "%s", tfs_status_message(lst));
  tfs_tensor_free(out);
  tfs_status_free(lst);
  return NULL;
}

static void test_close_cancels_running(void) {
  setup();
  int64_t dims[2] = {2048, 32};
  tfs_output x = tfs_op_placeholder(g, "x", TFS_FLOAT, dims, 2, st);
  tfs_output y = matmul_chain(x, 3000, 1);
  TFS_ASSERT_OK(st);
  tfs_session *s = tfs_session_new(g, NULL, st);
  tfs_callable *c = make1(s, &x, 1, y, NULL);
  cancel_job j = {c, rand_matrix(2048, 32, 1), TFS_OK, ""};
  pthread_t th;
  pthread_create(&th, NULL, cancel_main, &j);
  struct timespec ts = {0, 20 * 1000 * 1000};
  nanosleep(&ts, NULL);
  tfs_session_close(s, st);
  TFS_ASSERT_OK(st);
  pthread_join(th, NULL);
  CU_ASSERT_EQUAL(j.code, TFS_CANCELLED);
  CU_ASSERT_TRUE(strcmp(j.msg, "Run call was cancelled") == 0 ||
                 strcmp(j.msg, "Session has been closed.") == 0);
  /* a closed session's callable refuses to run */
  tfs_tensor *out = (tfs_tensor *)1;
  tfs_callable_run(c, &j.in, 1, &out, 1, st);
  TFS_ASSERT_ERROR(st, TFS_CANCELLED, "Session has been closed.");
  CU_ASSERT_PTR_NULL(out);
  tfs_session_free(s);
  tfs_callable_free(c); /* after the session: still fine */
  tfs_tensor_free(j.in);
  teardown();
}

static void test_parallel_error_names_node(void) {
  setup();
  tfs_output a = tfs_op_placeholder(g, "a", TFS_FLOAT, NULL, -1, st);
  tfs_output l = tfs_op_matmul(g, "left", a, const_matrix(4, 4, 1), 0, 0, st);
  tfs_output r = tfs_op_matmul(g, "right", a, const_matrix(3, 4, 2), 0, 0, st);
  tfs_output y = tfs_op_add(g, NULL, l, r, st);
  TFS_ASSERT_OK(st);
  tfs_session *s = tfs_session_new(g, NULL, st);
  tfs_tensor *in = rand_matrix(2, 4, 3);
  char msg[300];
  for (int i = 0; i < 20; i++) {
    CU_ASSERT_EQUAL(tu_run_error(s, y, &a, &in, 1, msg, sizeof msg),
                    TFS_INVALID_ARGUMENT);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "Matrix size-incompatible: In[0]: "
                                       "[2,4], In[1]: [3,4]"));
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "[[{{node right}}]]"));
  }
  tfs_tensor_free(in);
  tfs_session_free(s);
  teardown();
}

/* ---- in-place reuse and memory plans ---------------------------------------------- */

/* A session on g of the CPU alone: the memory plans checked here are the
 * host's (a GPU's nodes would allocate from its own allocator). */
static tfs_session *cpu_session(void) {
  tfs_session_options *o = tu_no_gpu_options();
  tfs_session *s = tfs_session_new(g, o, st);
  tfs_session_options_free(o);
  TFS_ASSERT_OK(st);
  return s;
}

static tfs_plan *build_plan(tfs_session *s, tfs_output *feeds, int nfeeds,
                            tfs_output fetch) {
  pthread_mutex_lock(&g->mu);
  pthread_mutex_lock(&s->mu);
  tfs_plan *p = tfs_plan__build(s, feeds, nfeeds, &fetch, 1, NULL, 0, st);
  pthread_mutex_unlock(&s->mu);
  pthread_mutex_unlock(&g->mu);
  TFS_ASSERT_OK(st);
  return p;
}

static const tfs_node_stats *stats_of(const tfs_step_stats *ss,
                                      const char *name) {
  for (int i = 0; i < ss->n; i++)
    if (strcmp(ss->nodes[i].node_name, name) == 0) return &ss->nodes[i];
  return NULL;
}

static void test_in_place_reuse(void) {
  setup();
  int64_t dims[1] = {1000};
  tfs_output x = tfs_op_placeholder(g, "x", TFS_FLOAT, dims, 1, st);
  tfs_output sq = tfs_op_unary(g, "Square", "sq", x, st);
  tfs_output neg = tfs_op_unary(g, "Neg", "neg", sq, st);
  tfs_output ab = tfs_op_unary(g, "Abs", "abs", neg, st);
  tfs_output two = tfs_op_unary(g, "Neg", "two", ab, st); /* 2 readers: */
  tfs_output y = tfs_op_add(g, "y", two, tfs_op_unary(g, "Abs", "side", two,
                                                       st), st);
  TFS_ASSERT_OK(st);
  tfs_session *s = cpu_session();
  tfs_plan *p = build_plan(s, &x, 1, y);
  tfs_tensor *in = tfs_tensor_new(TFS_FLOAT, dims, 1, st);
  for (int i = 0; i < 1000; i++) ((float *)tfs_tensor_data(in))[i] = i;
  for (int run = 0; run < 3; run++) { /* traced, then planned runs */
    tfs_step_stats ss;
    memset(&ss, 0, sizeof ss);
    tfs_tensor *out = NULL;
    tfs_plan__run(s, p, NULL, &in, &out, &ss, st);
    TFS_ASSERT_OK(st);
    const tfs_node_stats *a = stats_of(&ss, "sq"), *b = stats_of(&ss, "neg");
    const tfs_node_stats *c = stats_of(&ss, "abs"), *d = stats_of(&ss, "two");
    const tfs_node_stats *e = stats_of(&ss, "side");
    CU_ASSERT_FATAL(a && b && c && d && e);
    /* the fed x is the caller's: Square allocates; Neg and Abs take it */
    CU_ASSERT_NOT_EQUAL(a->outputs[0].ptr,
                        (uint64_t)(uintptr_t)tfs_tensor_data(in));
    CU_ASSERT_EQUAL(b->outputs[0].ptr, a->outputs[0].ptr);
    CU_ASSERT_EQUAL(c->outputs[0].ptr, a->outputs[0].ptr);
    CU_ASSERT_EQUAL(d->outputs[0].ptr, a->outputs[0].ptr);
    /* `two` has two readers: `side` must not write over it */
    CU_ASSERT_NOT_EQUAL(e->outputs[0].ptr, d->outputs[0].ptr);
    CU_ASSERT_NOT_EQUAL(e->thread_id, 0);
    /* y = two + |two| = 0 for every x */
    CU_ASSERT_EQUAL(((float *)tfs_tensor_data(out))[3], 0.0f);
    CU_ASSERT_EQUAL(((float *)tfs_tensor_data(out))[999], 0.0f);
    tfs_step_stats_clear(&ss);
    tfs_tensor_free(out);
  }
  tfs_tensor_free(in);
  tfs_plan__unref(p);
  tfs_session_free(s);
  teardown();
}

/* An MLP-like chain: the arena holds fewer bytes than its allocations,
 * results match, and a planned run allocates only the fetched output. */
static void test_arena_planning(void) {
  setup();
  int64_t dims[2] = {-1, 64};
  tfs_output x = tfs_op_placeholder(g, "x", TFS_FLOAT, dims, 2, st);
  tfs_output y = x;
  for (int i = 0; i < 5; i++) y = dense(y, 64, 64, (unsigned)i + 1);
  TFS_ASSERT_OK(st);
  tfs_session *s = cpu_session();
  tfs_callable *c = make1(s, &x, 1, y, NULL);
  tfs_plan *p = tfs_callable__plan(c);
  tfs_tensor *in = rand_matrix(8, 64, 7);
  size_t arena, peak;
  int nblocks;
  CU_ASSERT_EQUAL(tfs_mem__info(p, &in, &arena, &peak, &nblocks),
                  TFS_MP_EMPTY);
  tfs_tensor *first = call1(c, in); /* traced on the heap */
  CU_ASSERT_EQUAL(tfs_mem__info(p, &in, &arena, &peak, &nblocks),
                  TFS_MP_READY);
  /* five MatMul outputs of 8x64 floats (Relu/BiasAdd work in place); the
   * last is fetched (heap), the other four fit in two slots */
  CU_ASSERT_EQUAL(nblocks, 5);
  CU_ASSERT_EQUAL(peak, 2 * 8 * 64 * sizeof(float));
  CU_ASSERT_EQUAL(arena, 2 * 8 * 64 * sizeof(float));
  tfs_tensor *second = call1(c, in); /* planned */
  CU_ASSERT_TRUE(same_tensor(first, second));
  tfs_tensor_free(second);
  /* steady state: the output's data, buffer and tensor struct only */
  tfs_alloc_fail_at(LONG_MAX);
  tfs_tensor *third = call1(c, in);
  long allocs = tfs_alloc_fail_at(0);
  CU_ASSERT_EQUAL(allocs, 3);
  CU_ASSERT_TRUE(same_tensor(first, third));
  /* the fetched output was made on the heap, not copied out of an arena */
  CU_ASSERT_EQUAL(third->buf->kind, TFS_BUF_OWNED);
  /* another batch size is another signature */
  tfs_tensor *in2 = rand_matrix(3, 64, 8);
  tfs_tensor *o2 = call1(c, in2), *o3 = call1(c, in2);
  CU_ASSERT_TRUE(same_tensor(o2, o3));
  CU_ASSERT_EQUAL(tfs_mem__info(p, &in2, &arena, &peak, &nblocks),
                  TFS_MP_READY);
  CU_ASSERT_EQUAL(arena, 2 * 3 * 64 * sizeof(float));
  tfs_tensor_free(o2);
  tfs_tensor_free(o3);
  tfs_tensor_free(in2);
  tfs_tensor_free(first);
  tfs_tensor_free(third);
  tfs_tensor_free(in);
  tfs_callable_free(c);
  tfs_session_free(s);
  teardown();
}

/* The fed shape cannot tell Reshape's output: heap allocation. */
static void test_unknown_shape_is_dynamic(void) {
  setup();
  tfs_output x = tfs_op_placeholder(g, "x", TFS_FLOAT, NULL, -1, st);
  int64_t sd[1] = {-1};
  tfs_output shp = tfs_op_placeholder(g, "shape", TFS_INT32, sd, 1, st);
  tfs_output sq = tfs_op_unary(g, "Square", NULL, x, st);
  tfs_output y = tfs_op_unary(g, "Neg", NULL,
                              tfs_op_reshape(g, NULL, sq, shp, st), st);
  TFS_ASSERT_OK(st);
  tfs_session *s = tfs_session_new(g, NULL, st);
  tfs_output feeds[2] = {x, shp};
  tfs_callable *c = tfs_session_make_callable(s, feeds, 2, &y, 1, NULL, 0,
                                              NULL, st);
  TFS_ASSERT_OK(st);
  tfs_tensor *in[2];
  in[0] = rand_matrix(4, 6, 1);
  int32_t newshape[2] = {3, 8};
  int64_t two = 2;
  in[1] = tu_int32s(&two, 1, newshape);
  for (int r = 0; r < 3; r++) {
    tfs_tensor *out = NULL;
    tfs_callable_run(c, in, 2, &out, 1, st);
    TFS_ASSERT_OK(st);
    CU_ASSERT_EQUAL(tfs_tensor_dim(out, 0), 3);
    float v = ((float *)tfs_tensor_data(in[0]))[5];
    CU_ASSERT_EQUAL(((float *)tfs_tensor_data(out))[5], -v * v);
    tfs_tensor_free(out);
  }
  size_t arena, peak;
  int nblocks;
  CU_ASSERT_EQUAL(tfs_mem__info(tfs_callable__plan(c), in, &arena, &peak,
                                &nblocks),
                  TFS_MP_DYNAMIC);
  CU_ASSERT_EQUAL(arena, 0);
  tfs_tensor_free(in[0]);
  tfs_tensor_free(in[1]);
  tfs_callable_free(c);
  tfs_session_free(s);
  teardown();
}

/* A fetched intermediate is kept on the heap, not copied out of an arena;
 * a view (Reshape) keeps its buffer alive past its planned end. */
static void test_fetch_and_views_with_plans(void) {
  setup();
  int64_t dims[2] = {4, 8};
  tfs_output x = tfs_op_placeholder(g, "x", TFS_FLOAT, dims, 2, st);
  tfs_output h = tfs_op_matmul(g, "h", x, const_matrix(8, 8, 2), 0, 0, st);
  int32_t flat[1] = {-1};
  int64_t one = 1;
  tfs_tensor *fs = tu_int32s(&one, 1, flat);
  tfs_output v_shape = tfs_op_const(g, NULL, fs, st);
  tfs_output v = tfs_op_reshape(g, "v", h, v_shape, st);
  tfs_tensor_free(fs);
  tfs_output h2 = tfs_op_matmul(g, "h2", h, const_matrix(8, 8, 3), 0, 0, st);
  tfs_output y = tfs_op_add(g, "y", tfs_op_sum(g, NULL, v,
                                              tfs_op_const_int32(g, NULL, 0,
                                                                 st),
                                              0, st),
                            tfs_op_sum(g, NULL, tfs_op_reshape(
                                           g, NULL, h2, v_shape, st),
                                       tfs_op_const_int32(g, NULL, 0, st), 0,
                                       st),
                            st);
  TFS_ASSERT_OK(st);
  tfs_session *s = tfs_session_new(g, NULL, st);
  tfs_output fetches[2] = {y, h};
  tfs_callable *c = tfs_session_make_callable(s, &x, 1, fetches, 2, NULL, 0,
                                              NULL, st);
  TFS_ASSERT_OK(st);
  tfs_tensor *in = rand_matrix(4, 8, 4), *first[2], *again[2];
  tfs_callable_run(c, &in, 1, first, 2, st);
  TFS_ASSERT_OK(st);
  for (int r = 0; r < 3; r++) {
    tfs_callable_run(c, &in, 1, again, 2, st);
    TFS_ASSERT_OK(st);
    CU_ASSERT_TRUE(same_tensor(first[0], again[0]));
    CU_ASSERT_TRUE(same_tensor(first[1], again[1]));
    tfs_tensor_free(again[0]);
    tfs_tensor_free(again[1]);
  }
  tfs_tensor_free(first[0]);
  tfs_tensor_free(first[1]);
  tfs_tensor_free(in);
  tfs_callable_free(c);
  tfs_session_free(s);
  teardown();
}

/* ---- callables ----------------------------------------------------------------------- */

static void test_callable_errors(void) {
  setup();
  int64_t dims[1] = {2};
  tfs_output x = tfs_op_placeholder(g, "x", TFS_FLOAT, dims, 1, st);
  tfs_output y = tfs_op_unary(g, "Neg", "y", x, st);
  tfs_session *s = tfs_session_new(g, NULL, st);
  CU_ASSERT_PTR_NULL(tfs_session_make_callable(s, NULL, 0, NULL, 0, NULL, 0,
                                               NULL, st));
  TFS_ASSERT_MESSAGE(st, "Must specify at least one target to fetch or "
                         "execute.");
  CU_ASSERT_PTR_NULL(tfs_session_make_callable(s, &y, 1, &y, 1, NULL, 0,
                                               NULL, st));
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT, "y:0 is both fed and fetched.");
  CU_ASSERT_PTR_NULL(tfs_session_make_callable(NULL, &x, 1, &y, 1, NULL, 0,
                                               NULL, st));
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT, "s != NULL");
  tfs_callable *c = make1(s, &x, 1, y, NULL);
  CU_ASSERT_EQUAL(tfs_callable_num_feeds(c), 1);
  CU_ASSERT_EQUAL(tfs_callable_num_fetches(c), 1);
  float v[2] = {1, 2};
  tfs_tensor *in = tu_floats(dims, 1, v), *out = (tfs_tensor *)1;
  tfs_tensor *two[2] = {in, in};
  tfs_callable_run(c, two, 2, &out, 1, st);
  TFS_ASSERT_MESSAGE(st, "Expected 1 feed tensors, but got 2");
  CU_ASSERT_PTR_NULL(out);
  tfs_callable_run(c, &in, 1, NULL, 1, st);
  TFS_ASSERT_MESSAGE(st, "`fetch_tensors` must be provided when the callable "
                         "has one or more outputs.");
  tfs_tensor *outs[2];
  tfs_callable_run(c, &in, 1, outs, 2, st);
  TFS_ASSERT_MESSAGE(st, "Expected 1 fetch tensors, but got 2");
  int32_t iv[2] = {1, 2};
  tfs_tensor *bad = tu_int32s(dims, 1, iv);
  tfs_callable_run(c, &bad, 1, &out, 1, st);
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT,
                   "Expects arg[0] to be float but int32 is provided");
  int64_t d3[1] = {3};
  float v3[3] = {1, 2, 3};
  tfs_tensor *wrong = tu_floats(d3, 1, v3);
  tfs_callable_run(c, &wrong, 1, &out, 1, st);
  TFS_ASSERT_MESSAGE(st, "Cannot feed value of shape [3] for Tensor x:0, "
                         "which has shape [2]");
  tfs_tensor *nul = NULL;
  tfs_callable_run(c, &nul, 1, &out, 1, st);
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT, "is NULL");
  out = call1(c, in);
  CU_ASSERT_EQUAL(((float *)tfs_tensor_data(out))[1], -2.0f);
  tfs_tensor_free(out);
  /* targets only */
  tfs_operation *target = y.oper;
  tfs_callable *t = tfs_session_make_callable(s, &x, 1, NULL, 0, &target, 1,
                                              NULL, st);
  TFS_ASSERT_OK(st);
  tfs_callable_run(t, &in, 1, NULL, 0, st);
  TFS_ASSERT_OK(st);
  tfs_callable_free(t);
  tfs_callable_free(NULL);
  tfs_session_close(s, st);
  CU_ASSERT_PTR_NULL(tfs_session_make_callable(s, &x, 1, &y, 1, NULL, 0,
                                               NULL, st));
  TFS_ASSERT_ERROR(st, TFS_CANCELLED, "Session has been closed.");
  tfs_callable_run(c, &in, 1, &out, 1, st);
  TFS_ASSERT_ERROR(st, TFS_CANCELLED, "Session has been closed.");
  tfs_callable_free(c);
  tfs_tensor_free(in);
  tfs_tensor_free(bad);
  tfs_tensor_free(wrong);
  tfs_session_free(s);
  teardown();
}

/* ---- pools ------------------------------------------------------------------------------ */

static void test_pool_sizes(void) {
  setup();
  /* The first session of the process sizes the process-wide pools (0:
   * one thread per core); later ones share them whatever they ask. */
  tfs_session *dflt = tfs_session_new(g, NULL, st);
  TFS_ASSERT_OK(st);
  int inter, intra;
  tfs_session__pool_sizes(dflt, &inter, &intra);
  CU_ASSERT_EQUAL(inter, tfs_num_cores());
  CU_ASSERT_EQUAL(intra, tfs_num_cores());
  tfs_session_options *o = tfs_session_options_new();
  tfs_session_options_set_inter_op_threads(o, -1);
  tfs_session_options_set_intra_op_threads(o, 7);
  tfs_session *caller = tfs_session_new(g, o, st);
  TFS_ASSERT_OK(st);
  int inter2, intra2;
  tfs_session__pool_sizes(caller, &inter2, &intra2);
  CU_ASSERT_EQUAL(inter2, 1); /* negative: every node on the caller */
  CU_ASSERT_EQUAL(intra2, intra);
  tfs_session_free(caller);
  /* use_per_session_threads: the session's own pools, sized as asked */
  o->config.use_per_session_threads = 1;
  tfs_session_options_set_inter_op_threads(o, 2);
  tfs_session_options_set_intra_op_threads(o, 3);
  tfs_session *own = tfs_session_new(g, o, st);
  TFS_ASSERT_OK(st);
  tfs_session__pool_sizes(own, &inter2, &intra2);
  CU_ASSERT_EQUAL(inter2, 2);
  CU_ASSERT_EQUAL(intra2, 3);
  tfs_session_free(own);
  tfs_session_free(dflt);
  tfs_session_options_free(o);
  teardown();
}

/* session_inter_op_thread_pool: RunOptions picks the pool; a named pool
 * is shared and cannot change size. */
static void test_inter_op_pool_list(void) {
  setup();
  tfs_output x = tfs_op_placeholder(g, "x", TFS_FLOAT, NULL, 0, st);
  tfs_output y = tfs_op_unary(g, "Neg", NULL, x, st);
  tfs_session_options *o = tfs_session_options_new();
  tfs_config *c = &o->config;
  c->nthread_pools = 2;
  c->session_inter_op_thread_pool =
      tfs_calloc(2, sizeof(tfs_config_thread_pool));
  c->session_inter_op_thread_pool[0].num_threads = 2;
  c->session_inter_op_thread_pool[1].num_threads = 3;
  c->session_inter_op_thread_pool[1].global_name = tfs_strdup("shared");
  tfs_session *s = tfs_session_new(g, o, st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_EQUAL(s->exec->npools, 2);
  CU_ASSERT_EQUAL(tfs_threadpool_parallelism(s->exec->pools[1]), 3);
  tfs_callable *call = make1(s, &x, 1, y, NULL);
  tfs_tensor *in = tfs_tensor_scalar_float(4), *out = NULL;
  tfs_run_options ro = {0, 0, 1};
  tfs_plan__run(s, tfs_callable__plan(call), &ro, &in, &out, NULL, st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_EQUAL(tu_scalar_float(out), -4.0f);
  tfs_tensor_free(out);
  ro.inter_op_thread_pool = 2;
  tfs_plan__run(s, tfs_callable__plan(call), &ro, &in, &out, NULL, st);
  TFS_ASSERT_MESSAGE(st, "Invalid inter_op_thread_pool: 2");
  tfs_session *same = tfs_session_new(g, o, st); /* shares "shared" */
  TFS_ASSERT_OK(st);
  CU_ASSERT_PTR_EQUAL(same->exec->pools[1], s->exec->pools[1]);
  tfs_session_free(same);
  c->session_inter_op_thread_pool[1].num_threads = 4;
  CU_ASSERT_PTR_NULL(tfs_session_new(g, o, st));
  TFS_ASSERT_MESSAGE(st, "Pool shared configured previously with "
                         "num_threads=3; cannot re-configure with "
                         "num_threads=4");
  tfs_tensor_free(in);
  tfs_callable_free(call);
  tfs_session_free(s);
  tfs_session_options_free(o);
  teardown();
}

/* ConfigProto.operation_timeout_in_ms applies to every run. */
static void test_operation_timeout(void) {
  setup();
  int64_t dims[2] = {2048, 32};
  tfs_output x = tfs_op_placeholder(g, "x", TFS_FLOAT, dims, 2, st);
  tfs_output y = matmul_chain(x, 300, 1);
  tfs_session_options *o = tfs_session_options_new();
  o->config.operation_timeout_in_ms = 1;
  tfs_session *s = tfs_session_new(g, o, st);
  TFS_ASSERT_OK(st);
  tfs_tensor *in = rand_matrix(2048, 32, 5);
  char msg[200];
  CU_ASSERT_EQUAL(tu_run_error(s, y, &x, &in, 1, msg, sizeof msg),
                  TFS_DEADLINE_EXCEEDED);
  CU_ASSERT_STRING_EQUAL(msg, "Timed out waiting for notification");
  tfs_tensor_free(in);
  tfs_session_free(s);
  tfs_session_options_free(o);
  teardown();
}

/* Timeouts so large that now + timeout passes INT64_MAX nanoseconds mean
 * no practical deadline (they used to wrap into the past and fail every
 * run with DEADLINE_EXCEEDED), from RunOptions and from ConfigProto, on
 * both executor paths. */
static void test_huge_timeouts(void) {
  static const int64_t huge[] = {INT64_C(9300000000000), INT64_MAX,
                                 INT64_MAX / 1000000 + 1};
  setup();
  tfs_output x = tfs_op_placeholder(g, "x", TFS_FLOAT, NULL, 0, st);
  tfs_output y = tfs_op_unary(g, "Neg", NULL, x, st);
  for (size_t i = 0; i < sizeof huge / sizeof huge[0]; i++) {
    tfs_session_options *o = tfs_session_options_new();
    o->config.operation_timeout_in_ms = huge[i];
    tfs_session *s = tfs_session_new(g, o, st);
    TFS_ASSERT_OK(st);
    tfs_callable *c = make1(s, &x, 1, y, NULL);
    tfs_tensor *in = tfs_tensor_scalar_float(2), *out = NULL;
    for (int pool = -1; pool <= 0; pool++) {
      tfs_run_options ro = {0, huge[i], pool};
      tfs_plan__run(s, tfs_callable__plan(c), &ro, &in, &out, NULL, st);
      TFS_ASSERT_OK(st);
      CU_ASSERT_EQUAL(tu_scalar_float(out), -2.0f);
      tfs_tensor_free(out);
      ro.timeout_in_ms = 0; /* the session's operation timeout */
      tfs_plan__run(s, tfs_callable__plan(c), &ro, &in, &out, NULL, st);
      TFS_ASSERT_OK(st);
      tfs_tensor_free(out);
    }
    tfs_tensor_free(in);
    tfs_callable_free(c);
    tfs_session_free(s);
    tfs_session_options_free(o);
  }
  teardown();
}

static const tfs_test_case exec_cases[] = {
    {"pool_sizes", test_pool_sizes},
    {"parallel_matches_sequential", test_parallel_matches_sequential},
    {"chain_is_sequential", test_chain_is_sequential},
    {"parallel_step_stats", test_parallel_step_stats},
    {"overlap_policy", test_overlap_policy},
    {"concurrent_runs_match_serial", test_concurrent_runs_match_serial},
    {"timeout_sequential", test_timeout_sequential},
    {"timeout_parallel", test_timeout_parallel},
    {"invalid_inter_op_pool", test_invalid_inter_op_pool},
    {"inter_op_pool_list", test_inter_op_pool_list},
    {"operation_timeout", test_operation_timeout},
    {"huge_timeouts", test_huge_timeouts},
    {"close_cancels_running", test_close_cancels_running},
    {"parallel_error_names_node", test_parallel_error_names_node},
    {NULL, NULL}};
static const tfs_test_case memory_cases[] = {
    {"in_place_reuse", test_in_place_reuse},
    {"arena_planning", test_arena_planning},
    {"unknown_shape_is_dynamic", test_unknown_shape_is_dynamic},
    {"fetch_and_views_with_plans", test_fetch_and_views_with_plans},
    {NULL, NULL}};
static const tfs_test_case callable_cases[] = {
    {"errors", test_callable_errors},
    {NULL, NULL}};

const tfs_test_suite tfs_test_suites[] = {{"executor", exec_cases},
                                          {"memory", memory_cases},
                                          {"callable", callable_cases},
                                          {NULL, NULL}};
