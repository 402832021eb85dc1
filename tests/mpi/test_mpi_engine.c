/*
 * tests/mpi/test_mpi_engine.c - the collective engine and Horovod's ops.
 *
 * Under mpirun with two ranks (tests/mpi/run_mpi.sh) both ranks run the
 * same cases: collectives with rank-dependent values and exact results,
 * fusion counted by tfs_mpi_get_stats, concurrent submission, the ranks'
 * disagreements, the stall timeout (TFS_MPI_STALL_TIMEOUT=2), a graph of
 * Horovod ops through a session, and a rank that stops first.  Built
 * without MPI (or run alone) it checks the one-rank behaviour.  Only rank
 * 0 prints CUnit's report; every rank writes its totals to
 * $TFS_MPI_RESULT_DIR/rank.N for the wrapper to check.
 */
#include <CUnit/Basic.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/half.h"
#include "testutil.h"

static int g_rank, g_size = 1;

/* A tensor of dt and shape dims whose element i is f(i). */
static tfs_tensor *make(tfs_dtype dt, const int64_t *dims, int nd,
                        double (*f)(int64_t)) {
  tfs_status *st = tfs_status_new();
  tfs_tensor *t = tfs_tensor_new(dt, dims, nd, st);
  tfs_status_free(st);
  if (!t) return NULL;
  void *p = tfs_tensor_data(t);
  for (int64_t i = 0; i < tfs_tensor_num_elements(t); i++) {
    double v = f(i);
    switch (dt) {
    case TFS_FLOAT: ((float *)p)[i] = (float)v; break;
    case TFS_DOUBLE: ((double *)p)[i] = v; break;
    case TFS_HALF: ((uint16_t *)p)[i] = tfs_float_to_half((float)v); break;
    case TFS_BFLOAT16: ((uint16_t *)p)[i] = tfs_float_to_bf16((float)v); break;
    case TFS_INT32: ((int32_t *)p)[i] = (int32_t)v; break;
    case TFS_INT64: ((int64_t *)p)[i] = (int64_t)v; break;
    case TFS_UINT8: ((uint8_t *)p)[i] = (uint8_t)v; break;
    case TFS_INT8: ((int8_t *)p)[i] = (int8_t)v; break;
    case TFS_BOOL: ((uint8_t *)p)[i] = v != 0; break;
    default: break;
    }
  }
  return t;
}

static double at(const tfs_tensor *t, int64_t i) {
  const void *p = tfs_tensor_data(t);
  switch (tfs_tensor_dtype(t)) {
  case TFS_FLOAT: return ((const float *)p)[i];
  case TFS_DOUBLE: return ((const double *)p)[i];
  case TFS_HALF: return tfs_half_to_float(((const uint16_t *)p)[i]);
  case TFS_BFLOAT16: return tfs_bf16_to_float(((const uint16_t *)p)[i]);
  case TFS_INT32: return ((const int32_t *)p)[i];
  case TFS_INT64: return (double)((const int64_t *)p)[i];
  case TFS_UINT8: return ((const uint8_t *)p)[i];
  case TFS_INT8: return ((const int8_t *)p)[i];
  case TFS_BOOL: return ((const uint8_t *)p)[i];
  default: return NAN;
  }
}

/* Element i on this rank: (i + 1) * (rank + 1). */
static double rank_value(int64_t i) { return (double)(i + 1) * (g_rank + 1); }

/* ---- two ranks ---------------------------------------------------------- */

static const tfs_dtype reduce_types[] = {TFS_FLOAT, TFS_DOUBLE, TFS_HALF,
                                         TFS_BFLOAT16, TFS_INT32, TFS_INT64,
                                         TFS_UINT8, TFS_INT8};

/* What op gives for element i over two ranks (values i+1 and 2(i+1)). */
static double expected(int op, tfs_dtype dt, int64_t i) {
  double a = (double)(i + 1), b = 2.0 * (double)(i + 1);
  switch (op) {
  case TFS_MPI_SUM: return a + b;
  case TFS_MPI_AVERAGE:
    return dt == TFS_FLOAT || dt == TFS_DOUBLE || dt == TFS_HALF ||
                   dt == TFS_BFLOAT16
               ? (a + b) / 2
               : trunc((a + b) / 2);
  case TFS_MPI_MIN: return a;
  case TFS_MPI_MAX: return b;
  default: return a * b;
  }
}

static void test_allreduce_ops(void) {
  static const int ops[] = {TFS_MPI_SUM, TFS_MPI_AVERAGE, TFS_MPI_MIN,
                            TFS_MPI_MAX, TFS_MPI_PRODUCT};
  int64_t dims[] = {2, 3};
  tfs_status *st = tfs_status_new();
  for (size_t d = 0; d < sizeof reduce_types / sizeof *reduce_types; d++) {
    for (size_t o = 0; o < sizeof ops / sizeof *ops; o++) {
      tfs_dtype dt = reduce_types[d];
      char name[64];
      snprintf(name, sizeof name, "ar_%s_%d", tfs_dtype_name(dt), ops[o]);
      tfs_tensor *in = make(dt, dims, 2, rank_value);
      tfs_tensor *out = tfs_mpi_allreduce(name, in, ops[o], 1, 1, st);
      TFS_ASSERT_OK(st);
      CU_ASSERT_EQUAL(tfs_tensor_dtype(out), dt);
      CU_ASSERT_EQUAL(tfs_tensor_num_elements(out), 6);
      for (int64_t i = 0; i < 6; i++) {
        if (at(out, i) != expected(ops[o], dt, i))
          fprintf(stderr, "%s[%lld] = %g, expected %g\n", name, (long long)i,
                  at(out, i), expected(ops[o], dt, i));
        CU_ASSERT_EQUAL(at(out, i), expected(ops[o], dt, i));
      }
      tfs_tensor_free(in);
      tfs_tensor_free(out);
    }
  }
  tfs_status_free(st);
}

static void test_allreduce_scale(void) {
  int64_t dims[] = {5};
  tfs_status *st = tfs_status_new();
  tfs_tensor *in = make(TFS_FLOAT, dims, 1, rank_value);
  /* (2a + 2b) * 0.25 = 1.5 (i + 1) */
  tfs_tensor *out = tfs_mpi_allreduce("scaled", in, TFS_MPI_SUM, 2, 0.25, st);
  TFS_ASSERT_OK(st);
  for (int64_t i = 0; i < 5; i++) CU_ASSERT_EQUAL(at(out, i), 1.5 * (i + 1));
  tfs_tensor_free(out);
  out = tfs_mpi_allreduce("adasum", in, TFS_MPI_ADASUM, 1, 1, st);
  CU_ASSERT_PTR_NULL(out);
  CU_ASSERT_EQUAL(tfs_status_code(st), TFS_UNIMPLEMENTED);
  tfs_tensor_free(in);
  tfs_status_free(st);
}

static void test_allgather(void) {
  int64_t dims[] = {g_rank + 1, 2};
  tfs_status *st = tfs_status_new();
  tfs_tensor *in = make(TFS_INT64, dims, 2, rank_value);
  tfs_tensor *out = tfs_mpi_allgather("gather", in, st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_EQUAL(tfs_tensor_ndims(out), 2);
  CU_ASSERT_EQUAL(tfs_tensor_dim(out, 0), 3);
  CU_ASSERT_EQUAL(tfs_tensor_dim(out, 1), 2);
  /* rank 0: 1 2; rank 1: 2 4 6 8 */
  static const double want[] = {1, 2, 2, 4, 6, 8};
  for (int i = 0; i < 6; i++) CU_ASSERT_EQUAL(at(out, i), want[i]);
  tfs_tensor_free(in);
  tfs_tensor_free(out);
  tfs_status_free(st);
}

static void test_broadcast(void) {
  int64_t dims[] = {4};
  tfs_status *st = tfs_status_new();
  static const tfs_dtype types[] = {TFS_FLOAT, TFS_INT32, TFS_BOOL};
  for (int k = 0; k < 3; k++) {
    char name[32];
    snprintf(name, sizeof name, "bcast_%d", k);
    tfs_tensor *in = make(types[k], dims, 1, rank_value);
    tfs_tensor *out = tfs_mpi_broadcast(name, in, 1, st);
    TFS_ASSERT_OK(st);
    for (int i = 0; i < 4; i++)
      CU_ASSERT_EQUAL(at(out, i), types[k] == TFS_BOOL ? 1 : 2.0 * (i + 1));
    tfs_tensor_free(in);
    tfs_tensor_free(out);
  }
  tfs_status_free(st);
}

static void test_grouped_fused(void) {
  enum { N = 8 };
  tfs_tensor *in[N], *out[N];
  tfs_status *st = tfs_status_new();
  for (int i = 0; i < N; i++) {
    int64_t dims[] = {i + 1};
    in[i] = make(TFS_FLOAT, dims, 1, rank_value);
  }
  tfs_mpi_stats a, b;
  tfs_mpi_get_stats(&a);
  CU_ASSERT_EQUAL(tfs_mpi_grouped_allreduce(
                      "group", (const tfs_tensor *const *)in, N,
                      TFS_MPI_SUM, 1, 1, out, st), 0);
  TFS_ASSERT_OK(st);
  tfs_mpi_get_stats(&b);
  CU_ASSERT_EQUAL(b.reduce_calls - a.reduce_calls, 1);
  CU_ASSERT_EQUAL(b.tensors_fused - a.tensors_fused, N);
  CU_ASSERT_EQUAL(b.collectives - a.collectives, 1);
  for (int i = 0; i < N; i++) {
    CU_ASSERT_EQUAL(tfs_tensor_num_elements(out[i]), i + 1);
    for (int j = 0; j <= i; j++) CU_ASSERT_EQUAL(at(out[i], j), 3.0 * (j + 1));
    tfs_tensor_free(in[i]);
    tfs_tensor_free(out[i]);
  }
  tfs_status_free(st);
}

enum { NTHREADS = 12 };
static pthread_barrier_t g_barrier;

typedef struct worker {
  int k;
  int ok;
} worker;

static void *submit_one(void *arg) {
  worker *w = arg;
  char name[32];
  int64_t dims[] = {w->k + 2};
  snprintf(name, sizeof name, "thread_%02d", w->k);
  tfs_status *st = tfs_status_new();
  tfs_tensor *in = make(TFS_FLOAT, dims, 1, rank_value);
  pthread_barrier_wait(&g_barrier);
  tfs_tensor *out = tfs_mpi_allreduce(name, in, TFS_MPI_SUM, 1, 1, st);
  w->ok = tfs_status_ok(st) && out && tfs_tensor_num_elements(out) == w->k + 2;
  for (int64_t i = 0; w->ok && i < w->k + 2; i++)
    w->ok = at(out, i) == 3.0 * (i + 1);
  if (!tfs_status_ok(st))
    fprintf(stderr, "%s: %s\n", name, tfs_status_message(st));
  tfs_tensor_free(in);
  tfs_tensor_free(out);
  tfs_status_free(st);
  return NULL;
}

/* NTHREADS threads submit an allreduce each at once; *d receives the
 * stats' change, and every result is checked. */
static void run_concurrent(tfs_mpi_stats *d) {
  pthread_t th[NTHREADS];
  worker w[NTHREADS];
  tfs_mpi_stats a, b;
  tfs_mpi_get_stats(&a);
  pthread_barrier_init(&g_barrier, NULL, NTHREADS);
  for (int i = 0; i < NTHREADS; i++) {
    /* rank 1 starts its threads in the opposite order */
    w[i].k = g_rank == 0 ? i : NTHREADS - 1 - i;
    w[i].ok = 0;
    pthread_create(&th[i], NULL, submit_one, &w[i]);
  }
  for (int i = 0; i < NTHREADS; i++) pthread_join(th[i], NULL);
  pthread_barrier_destroy(&g_barrier);
  tfs_mpi_get_stats(&b);
  for (int i = 0; i < NTHREADS; i++) CU_ASSERT_TRUE(w[i].ok);
  d->collectives = b.collectives - a.collectives;
  d->reduce_calls = b.reduce_calls - a.reduce_calls;
  d->tensors_fused = b.tensors_fused - a.tensors_fused;
}

static void test_concurrent(void) {
  tfs_mpi_stats d;
  run_concurrent(&d);
  CU_ASSERT_EQUAL(d.collectives, NTHREADS);
  /* some of them shared an MPI call */
  CU_ASSERT_TRUE(d.reduce_calls < NTHREADS);
  CU_ASSERT_TRUE(d.tensors_fused >= 2);
}

/* Run with TFS_MPI_FUSION_THRESHOLD=0 (run_mpi.sh's second run): the
 * same concurrent allreduces go out one MPI call each; a grouped
 * allreduce still goes out in one. */
static void test_fusion_off(void) {
  const char *v = getenv("TFS_MPI_FUSION_THRESHOLD");
  CU_ASSERT_STRING_EQUAL(v ? v : "(unset)", "0");
  tfs_mpi_stats d;
  run_concurrent(&d);
  CU_ASSERT_EQUAL(d.collectives, NTHREADS);
  CU_ASSERT_EQUAL(d.reduce_calls, NTHREADS);
  CU_ASSERT_EQUAL(d.tensors_fused, 0);
  test_grouped_fused();
}

static void test_mismatch(void) {
  tfs_status *st = tfs_status_new();
  int64_t dims[] = {2 + g_rank, 3};
  tfs_tensor *in = make(TFS_FLOAT, dims, 2, rank_value);
  tfs_tensor *out = tfs_mpi_allreduce("mismatch", in, TFS_MPI_SUM, 1, 1, st);
  CU_ASSERT_PTR_NULL(out);
  CU_ASSERT_EQUAL(tfs_status_code(st), TFS_INVALID_ARGUMENT);
  TFS_ASSERT_MESSAGE(st, "Mismatched allreduce tensor shapes: One rank sent "
                         "a tensor of shape [2,3], but another rank sent a "
                         "tensor of shape [3,3].");
  tfs_tensor_free(in);
  tfs_status_clear(st);
  in = make(g_rank ? TFS_INT32 : TFS_FLOAT, dims + 1, 1, rank_value);
  out = tfs_mpi_allreduce("mismatch_type", in, TFS_MPI_SUM, 1, 1, st);
  CU_ASSERT_PTR_NULL(out);
  TFS_ASSERT_MESSAGE(st, "Mismatched data types: One rank had type float32, "
                         "but another rank had type int32.");
  tfs_tensor_free(in);
  tfs_status_clear(st);
  in = make(TFS_FLOAT, dims + 1, 1, rank_value);
  out = tfs_mpi_broadcast("mismatch_root", in, g_rank, st);
  CU_ASSERT_PTR_NULL(out);
  TFS_ASSERT_MESSAGE(st, "Mismatched broadcast root ranks: One rank "
                         "specified root rank 0, but another rank specified "
                         "root rank 1.");
  tfs_status_clear(st);
  /* the engine goes on */
  out = tfs_mpi_allreduce("after_mismatch", in, TFS_MPI_MAX, 1, 1, st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_EQUAL(at(out, 2), 6);
  tfs_tensor_free(out);
  tfs_tensor_free(in);
  tfs_status_free(st);
}

static void test_stall(void) {
  tfs_status *st = tfs_status_new();
  int64_t dims[] = {3};
  tfs_tensor *in = make(TFS_FLOAT, dims, 1, rank_value);
  if (g_rank == 0) {
    int64_t t0 = (int64_t)time(NULL);
    tfs_tensor *out = tfs_mpi_allreduce("stalled", in, TFS_MPI_SUM, 1, 1, st);
    CU_ASSERT_PTR_NULL(out);
    CU_ASSERT_EQUAL(tfs_status_code(st), TFS_DEADLINE_EXCEEDED);
    TFS_ASSERT_MESSAGE(st, "allreduce 'stalled' was submitted by rank(s) 0 "
                           "but not by rank(s) 1 within the stall timeout "
                           "of 2 seconds (TFS_MPI_STALL_TIMEOUT); missing "
                           "ranks: 1");
    CU_ASSERT_TRUE((int64_t)time(NULL) - t0 <= 10);
  } else {
    /* rank 1 skips it and waits about as long as rank 0 does, so that
     * the two ranks' "after_stall" stay well within the timeout */
    struct timespec ts = {2, 200000000};
    nanosleep(&ts, NULL);
  }
  tfs_status_clear(st);
  tfs_tensor *out = tfs_mpi_allreduce("after_stall", in, TFS_MPI_SUM, 1, 1,
                                      st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_EQUAL(at(out, 0), 3);
  tfs_tensor_free(out);
  tfs_tensor_free(in);
  tfs_status_free(st);
}

/* ---- graphs ------------------------------------------------------------- */

static tfs_operation *add_op(tfs_graph *g, const char *type, const char *name,
                             const tfs_output *in, int nin, int64_t op,
                             int64_t root) {
  tfs_status *st = tfs_status_new();
  tfs_op_desc *d = tfs_op_desc_new(g, type, name);
  if (nin > 1)
    tfs_op_desc_add_input_list(d, in, nin);
  else if (nin == 1)
    tfs_op_desc_add_input(d, in[0]);
  if (!strcmp(type, "HorovodAllreduce") ||
      !strcmp(type, "HorovodGroupedAllreduce")) {
    tfs_op_desc_set_attr_int(d, "reduce_op", op);
    tfs_op_desc_set_attr_float(d, "prescale_factor", 1.0f);
    tfs_op_desc_set_attr_float(d, "postscale_factor", 1.0f);
  }
  if (!strcmp(type, "HorovodGroupedAllreduce"))
    tfs_op_desc_set_attr_int(d, "num_tensors", nin);
  if (!strcmp(type, "HorovodBroadcast"))
    tfs_op_desc_set_attr_int(d, "root_rank", root);
  if (!strcmp(type, "Placeholder")) {
    int64_t dims[] = {3};
    tfs_op_desc_set_attr_type(d, "dtype", TFS_FLOAT);
    tfs_op_desc_set_attr_shape(d, "shape", dims, 1);
  }
  tfs_operation *o = tfs_op_desc_finish(d, st);
  TFS_ASSERT_OK(st);
  tfs_status_free(st);
  return o;
}

/* Runs a graph of Horovod ops on x = rank_value and checks every output
 * against what g_size ranks give. */
static void run_graph(void) {
  tfs_status *st = tfs_status_new();
  tfs_graph *g = tfs_graph_new();
  tfs_output x = {add_op(g, "Placeholder", "x", NULL, 0, 0, 0), 0};
  tfs_output outs[8];
  outs[0] = (tfs_output){add_op(g, "HorovodAllreduce", "sum", &x, 1, 1, 0), 0};
  outs[1] = (tfs_output){add_op(g, "HorovodAllreduce", "avg", &x, 1, 0, 0), 0};
  outs[2] = (tfs_output){add_op(g, "HorovodAllreduce", "max", &x, 1, 4, 0), 0};
  outs[3] = (tfs_output){add_op(g, "HorovodAllgather", "gathered", &x, 1, 0,
                                0), 0};
  outs[4] = (tfs_output){add_op(g, "HorovodBroadcast", "bcast", &x, 1, 0,
                                g_size - 1), 0};
  outs[5] = (tfs_output){add_op(g, "HorovodSize", "size", NULL, 0, 0, 0), 0};
  outs[6] = (tfs_output){add_op(g, "HorovodRank", "rank", NULL, 0, 0, 0), 0};
  tfs_output pair[2] = {x, outs[0]};
  tfs_operation *grp = add_op(g, "HorovodGroupedAllreduce", "grouped", pair,
                              2, 1, 0);
  outs[7] = (tfs_output){grp, 1};
  tfs_session *s = tfs_session_new(g, NULL, st);
  TFS_ASSERT_OK(st);
  int64_t dims[] = {3};
  tfs_tensor *xv = make(TFS_FLOAT, dims, 1, rank_value);
  for (int run = 0; run < 2; run++) {
    tfs_tensor *vals[8] = {0};
    tfs_session_run(s, &x, &xv, 1, outs, vals, 8, NULL, 0, st);
    TFS_ASSERT_OK(st);
    double n = g_size, sum_ranks = n * (n + 1) / 2;
    for (int i = 0; i < 3; i++) {
      CU_ASSERT_EQUAL(at(vals[0], i), (i + 1) * sum_ranks);
      CU_ASSERT_EQUAL(at(vals[1], i), (i + 1) * sum_ranks / n);
      CU_ASSERT_EQUAL(at(vals[2], i), (i + 1) * n);
      CU_ASSERT_EQUAL(at(vals[4], i), (i + 1) * n);
      /* grouped: sum over the ranks of sum */
      CU_ASSERT_EQUAL(at(vals[7], i), (i + 1) * sum_ranks * n);
    }
    CU_ASSERT_EQUAL(tfs_tensor_dim(vals[3], 0), 3 * g_size);
    CU_ASSERT_EQUAL(at(vals[3], 3 * g_size - 1), 3 * n);
    CU_ASSERT_EQUAL(*(int32_t *)tfs_tensor_data(vals[5]), g_size);
    CU_ASSERT_EQUAL(*(int32_t *)tfs_tensor_data(vals[6]), g_rank);
    for (int i = 0; i < 8; i++) tfs_tensor_free(vals[i]);
  }
  tfs_tensor_free(xv);
  tfs_session_free(s);
  tfs_graph_free(g);
  tfs_status_free(st);
}

/* The last case: rank 1 stops its engine; rank 0's next collective fails
 * naming it. */
static void test_stop_first(void) {
  tfs_status *st = tfs_status_new();
  if (g_rank == 1) {
    tfs_mpi_finalize(); /* returns once rank 0 stopped too */
    CU_ASSERT_FALSE(tfs_mpi_initialized());
  } else {
    int64_t dims[] = {2};
    tfs_tensor *in = make(TFS_FLOAT, dims, 1, rank_value);
    tfs_tensor *out = tfs_mpi_allreduce("after_stop", in, TFS_MPI_SUM, 1, 1,
                                        st);
    CU_ASSERT_PTR_NULL(out);
    CU_ASSERT_EQUAL(tfs_status_code(st), TFS_ABORTED);
    TFS_ASSERT_MESSAGE(st, "allreduce 'after_stop' cannot complete: rank 1 "
                           "stopped its collective engine (tfs_mpi_finalize) "
                           "without submitting it");
    tfs_tensor_free(in);
  }
  tfs_status_free(st);
}

/* ---- one rank ----------------------------------------------------------- */

static void test_single_api(void) {
  tfs_status *st = tfs_status_new();
  int64_t dims[] = {3};
  tfs_tensor *in = make(TFS_FLOAT, dims, 1, rank_value);
  tfs_tensor *out = tfs_mpi_allreduce("x", in, TFS_MPI_SUM, 2, 1, st);
  if (!tfs_mpi_built()) {
    CU_ASSERT_PTR_NULL(out);
    CU_ASSERT_EQUAL(tfs_status_code(st), TFS_UNIMPLEMENTED);
    tfs_status_clear(st);
    CU_ASSERT_PTR_NULL(tfs_mpi_allgather("x", in, st));
    CU_ASSERT_EQUAL(tfs_status_code(st), TFS_UNIMPLEMENTED);
  } else {
    TFS_ASSERT_OK(st);
    for (int i = 0; i < 3; i++) CU_ASSERT_EQUAL(at(out, i), 2.0 * (i + 1));
  }
  tfs_mpi_stats s;
  tfs_mpi_get_stats(&s);
  CU_ASSERT_EQUAL(s.reduce_calls, 0);
  tfs_tensor_free(out);
  tfs_tensor_free(in);
  tfs_status_free(st);
}

static const tfs_test_case two_rank_cases[] = {
    {"allreduce_ops", test_allreduce_ops},
    {"allreduce_scale", test_allreduce_scale},
    {"allgather", test_allgather},
    {"broadcast", test_broadcast},
    {"grouped_fused", test_grouped_fused},
    {"concurrent", test_concurrent},
    {"mismatch", test_mismatch},
    {"stall", test_stall},
    {"graph", run_graph},
    {"stop_first", test_stop_first},
    {NULL, NULL},
};

static const tfs_test_case one_rank_cases[] = {
    {"api", test_single_api},
    {"graph", run_graph},
    {NULL, NULL},
};

static const tfs_test_case fusion_off_cases[] = {
    {"fusion_off", test_fusion_off},
    {NULL, NULL},
};

const tfs_test_suite tfs_test_suites[] = {
    {"mpi", two_rank_cases},
    {"single", one_rank_cases},
    {"mpi_fusion_off", fusion_off_cases},
    {NULL, NULL},
};

/* Writes this rank's totals for run_mpi.sh. */
static void write_result(unsigned run, unsigned failed) {
  const char *dir = getenv("TFS_MPI_RESULT_DIR");
  if (!dir) return;
  char path[4096];
  snprintf(path, sizeof path, "%s/rank.%d", dir, g_rank);
  FILE *f = fopen(path, "w");
  if (!f) return;
  fprintf(f, "passed=%u failed=%u\n", run - failed, failed);
  fclose(f);
}

/* `test_mpi_engine` runs the two-rank cases (or the one-rank ones
 * alone); `test_mpi_engine fusion-off` the case for
 * TFS_MPI_FUSION_THRESHOLD=0. */
int main(int argc, char **argv) {
  int fusion_off = argc > 1 && strcmp(argv[1], "fusion-off") == 0;
  tfs_status *st = tfs_status_new();
  if (tfs_mpi_built()) {
    tfs_mpi_init(st);
    if (tfs_status_code(st) != TFS_OK) {
      fprintf(stderr, "tfs_mpi_init: %s\n", tfs_status_message(st));
      return 1;
    }
    g_rank = tfs_mpi_rank();
    g_size = tfs_mpi_size();
  }
  tfs_status_free(st);
  if (CU_initialize_registry() != CUE_SUCCESS) return 2;
  const tfs_test_suite *s =
      &tfs_test_suites[fusion_off ? 2 : g_size > 1 ? 0 : 1];
  CU_pSuite suite = CU_add_suite(s->name, NULL, NULL);
  for (const tfs_test_case *c = s->cases; c->name && suite; c++)
    CU_add_test(suite, c->name, c->fn);
  /* rank 0 reports; the others only list their failures on stderr */
  if (g_rank != 0 && !freopen("/dev/null", "w", stdout)) return 2;
  CU_basic_set_mode(g_rank == 0 ? CU_BRM_VERBOSE : CU_BRM_SILENT);
  CU_basic_run_tests();
  unsigned run = CU_get_number_of_tests_run();
  unsigned failed = CU_get_number_of_tests_failed();
  unsigned asserts = CU_get_number_of_failures();
  if (g_rank == 0)
    printf("\nTFS-RESULT: passed=%u failed=%u\n", run - failed, failed);
  for (CU_pFailureRecord f = CU_get_failure_list(); g_rank && f;
       f = f->pNext)
    fprintf(stderr, "rank %d: %s: %s:%u: %s\n", g_rank,
            f->pTest ? f->pTest->pName : "?", f->strFileName, f->uiLineNumber,
            f->strCondition);
  write_result(run, failed);
  CU_cleanup_registry();
  if (tfs_mpi_initialized()) tfs_mpi_finalize();
  return failed || asserts ? 1 : 0;
}
