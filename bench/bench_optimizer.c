/*
 * bench/bench_optimizer.c - what the optimizer costs and what it saves.
 * On generated graphs of N nodes (default 1000, 10000, 100000): the
 * optimizer alone (wall and CPU time) and the first run of a new session
 * (session creation, plan building, one run) with the optimizer off
 * (disable_meta_optimizer) and on (the default), medians of --repeat R
 * measurements (default 3).  The graph repeats a small dense layer
 * (MatMul + BiasAdd + Relu, identities, a neutral Mul, a constant
 * subexpression, a duplicated branch) so every pass has work.  Usage:
 * bench_optimizer [N ...] [--repeat R] [--report] [--save F];
 * bench_optimizer --model M.pb [--fetch NAME] [--batch B] [--runs R]
 * times a model (feed "x", fetch NAME, default "y"; unknown dimensions of
 * x set to B, default 1) on two sessions, optimizer off and on, their R
 * runs (default 200) interleaved; prints the medians and their ratio.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "graph_builder/graph_internal.h"
#include "optimizer/optimizer.h"
#include "tfsess/tfsess.h"

/* Explicit names: the graph builder's automatic names cost O(n) each. */
static char g_name[32];
static int g_counter;
static const char *nm(void) {
  snprintf(g_name, sizeof g_name, "n%d", g_counter++);
  return g_name;
}

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static double cpu_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static tfs_output matrix(tfs_graph *g, int64_t r, int64_t c, float base,
                         tfs_status *st) {
  int64_t d[2] = {r, c};
  tfs_tensor *t = tfs_tensor_new(TFS_FLOAT, d, 2, st);
  float *p = tfs_tensor_data(t);
  for (int64_t i = 0; i < r * c; i++) p[i] = base + (float)(i % 7) * 0.01f;
  tfs_output o = tfs_op_const(g, nm(), t, st);
  tfs_tensor_free(t);
  return o;
}

static tfs_output vector(tfs_graph *g, int64_t n, float v, tfs_status *st) {
  int64_t d[1] = {n};
  tfs_tensor *t = tfs_tensor_new(TFS_FLOAT, d, 1, st);
  for (int64_t i = 0; i < n; i++) ((float *)tfs_tensor_data(t))[i] = v;
  tfs_output o = tfs_op_const(g, nm(), t, st);
  tfs_tensor_free(t);
  return o;
}

/* About 14 nodes per layer. */
static tfs_output layer(tfs_graph *g, tfs_output x, int i, tfs_status *st) {
  const int64_t w = 8;
  tfs_output mm = tfs_op_matmul(
      g, nm(), x, matrix(g, w, w, 0.001f * (float)i, st), 0, 0, st);
  tfs_output bias =
      tfs_op_add(g, nm(), vector(g, w, 0.1f + 0.001f * (float)i, st),
                 vector(g, w, -0.05f, st), st);
  tfs_output ba = tfs_op_bias_add(g, nm(), mm, bias, st);
  tfs_output r = tfs_op_unary(g, "Relu", nm(), ba, st);
  tfs_output id = tfs_op_identity(g, nm(), r, st);
  tfs_output one = tfs_op_const_float(g, nm(), 1.0f, st);
  tfs_output m = tfs_op_mul(g, nm(), id, one, st);
  tfs_output t1 = tfs_op_unary(g, "Tanh", nm(), m, st);
  tfs_output t2 = tfs_op_unary(g, "Tanh", nm(), m, st); /* duplicate */
  return tfs_op_add(g, nm(), t1, t2, st);
}

static tfs_graph *build(int nodes, tfs_output *x, tfs_output *y,
                        tfs_status *st) {
  tfs_graph *g = tfs_graph_new();
  int64_t d[2] = {4, 8};
  *x = tfs_op_placeholder(g, "x", TFS_FLOAT, d, 2, st);
  tfs_output h = *x;
  for (int i = 0; (int)tfs_graph_num_operations(g) < nodes - 1; i++)
    h = layer(g, h, i, st);
  *y = tfs_op_identity(g, "y", h, st);
  return g;
}

/* Session options with the optimizer on (the default) or off. */
static tfs_session_options *session_options(int optimize, tfs_status *st) {
  tfs_session_options *o = tfs_session_options_new();
  if (optimize || !o) return o;
  tfs_config c;
  tfs_config__init(&c);
  c.has_graph_options = 1;
  c.graph_options.has_rewrite_options = 1;
  c.graph_options.rewrite_options.disable_meta_optimizer = 1;
  tfs_buffer *b = tfs_buffer_new();
  tfs_config__serialize(&c, b, st);
  tfs_session_options_set_config(o, b->data, b->length, st);
  tfs_buffer_free(b);
  tfs_config__clear(&c);
  return o;
}

/* Wall and thread-CPU milliseconds from creating a session to the end
 * of its first run (a sequential plan: everything on this thread). */
static void first_run(tfs_graph *g, tfs_output x, tfs_output y,
                      tfs_tensor *xv, int optimize, double *wall, double *cpu,
                      tfs_status *st) {
  tfs_session_options *o = session_options(optimize, st);
  double t0 = now_ms(), c0 = cpu_ms();
  tfs_session *s = tfs_session_new(g, o, st);
  tfs_tensor *out = NULL;
  tfs_session_run(s, &x, &xv, 1, &y, &out, 1, NULL, 0, st);
  *wall = now_ms() - t0;
  *cpu = cpu_ms() - c0;
  if (!tfs_status_ok(st)) fprintf(stderr, "run: %s\n", tfs_status_message(st));
  tfs_tensor_free(out);
  tfs_session_free(s);
  tfs_session_options_free(o);
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof(double), cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* ---- --model: a GraphDef run with and without the optimizer ---------- */

/* Median milliseconds per run on a session with the optimizer off ([0])
 * and one with it on ([1]), their runs interleaved so that both see the
 * same machine (after 5 warm-ups each). */
static void time_runs(tfs_graph *g, tfs_tensor *xv, const char *fetch,
                      int runs, double med[2], tfs_status *st) {
  tfs_output x = tfs_graph_output_by_name(g, "x", st);
  tfs_output y = tfs_graph_output_by_name(g, fetch, st);
  tfs_session *s[2];
  double *t[2];
  for (int k = 0; k < 2; k++) {
    tfs_session_options *o = session_options(k, st);
    s[k] = tfs_session_new(g, o, st);
    tfs_session_options_free(o);
    t[k] = calloc((size_t)runs, sizeof(double));
  }
  for (int i = -5; i < runs && tfs_status_ok(st); i++) {
    for (int k = 0; k < 2 && tfs_status_ok(st); k++) {
      tfs_tensor *out = NULL;
      double t0 = now_ms();
      tfs_session_run(s[k], &x, &xv, 1, &y, &out, 1, NULL, 0, st);
      if (i >= 0) t[k][i] = now_ms() - t0;
      tfs_tensor_free(out);
    }
  }
  for (int k = 0; k < 2; k++) {
    med[k] = median(t[k], runs);
    free(t[k]);
    tfs_session_free(s[k]);
  }
}

static int bench_model(const char *path, const char *fetch, int batch,
                       int runs) {
  tfs_status *st = tfs_status_new();
  FILE *f = fopen(path, "rb");
  if (!f) return fprintf(stderr, "cannot read %s\n", path), 1;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *bytes = malloc((size_t)n);
  size_t got = fread(bytes, 1, (size_t)n, f);
  fclose(f);
  tfs_graph *g = tfs_graph_new();
  tfs_import_results_free(
      tfs_graph_import_graphdef(g, bytes, got, NULL, st));
  free(bytes);
  tfs_output x = tfs_graph_output_by_name(g, "x", st);
  if (!tfs_status_ok(st)) return fprintf(stderr, "%s\n",
                                         tfs_status_message(st)), 1;
  int64_t dims[8];
  int rank = tfs_graph_tensor_num_dims(g, x, st);
  tfs_graph_tensor_shape(g, x, dims, rank, st);
  for (int i = 0; i < rank; i++)
    if (dims[i] < 0) dims[i] = batch;
  tfs_tensor *xv = tfs_tensor_new(TFS_FLOAT, dims, rank, st);
  float *p = tfs_tensor_data(xv);
  for (int64_t i = 0; i < tfs_tensor_num_elements(xv); i++)
    p[i] = (float)((i * 7919) % 1000) / 500.0f - 1.0f;
  tfs_output y = tfs_graph_output_by_name(g, fetch, st);
  if (!tfs_status_ok(st)) return fprintf(stderr, "%s\n",
                                         tfs_status_message(st)), 1;
  tfs_optimizer_report *rep = NULL;
  tfs_graph *og = tfs_graph_optimize(g, &x, 1, &y, 1, NULL, 0, NULL, &rep,
                                     st);
  if (!og) return fprintf(stderr, "%s\n", tfs_status_message(st)), 1;
  double med[2] = {0, 0};
  time_runs(g, xv, fetch, runs, med, st);
  if (!tfs_status_ok(st)) return fprintf(stderr, "%s\n",
                                         tfs_status_message(st)), 1;
  printf("%s batch %d: %zu -> %zu nodes, off %.2f us, on %.2f us per run "
         "(off/on %.2fx), optimizer %.3f ms\n", path, batch,
         tfs_graph_num_operations(g), tfs_graph_num_operations(og),
         med[0] * 1e3, med[1] * 1e3, med[0] / med[1],
         tfs_optimizer_report_total_time_us(rep) / 1e3);
  tfs_optimizer_report_free(rep);
  tfs_graph_free(og);
  tfs_graph_free(g);
  tfs_tensor_free(xv);
  tfs_status_free(st);
  return 0;
}

/* One size: medians of `repeat` measurements; prints a table row. */
static int bench_size(int nodes, int repeat, int report, const char *save,
                      tfs_status *st) {
  tfs_output x, y;
  tfs_graph *g = build(nodes, &x, &y, st);
  if (!tfs_status_ok(st)) {
    fprintf(stderr, "build: %s\n", tfs_status_message(st));
    tfs_graph_free(g);
    return 1;
  }
  int64_t d[2] = {4, 8};
  tfs_tensor *xv = tfs_tensor_new(TFS_FLOAT, d, 2, st);
  memset(tfs_tensor_data(xv), 0, tfs_tensor_byte_size(xv));
  enum { OPT_WALL, OPT_CPU, OFF_WALL, OFF_CPU, ON_WALL, ON_CPU, NCOL };
  double *m = calloc((size_t)repeat * NCOL, sizeof(double)), med[NCOL];
  size_t n0 = tfs_graph_num_operations(g), n1 = n0;
  tfs_optimizer_report *rep = NULL;
  for (int r = 0; r < repeat; r++) {
    tfs_graph *og = NULL;
    tfs_optimizer_report_free(rep);
    rep = NULL;
    double t0 = now_ms(), c0 = cpu_ms();
    pthread_mutex_lock(&g->mu);
    tfs_optimizer__optimize_for_plan(g, &x, 1, &y, 1, NULL, 0, NULL, NULL,
                                     &og, &rep, st);
    pthread_mutex_unlock(&g->mu);
    m[OPT_WALL * repeat + r] = now_ms() - t0;
    m[OPT_CPU * repeat + r] = cpu_ms() - c0;
    if (og) n1 = tfs_graph_num_operations(og);
    tfs_graph_free(og);
    first_run(g, x, y, xv, 0, &m[OFF_WALL * repeat + r],
              &m[OFF_CPU * repeat + r], st);
    first_run(g, x, y, xv, 1, &m[ON_WALL * repeat + r],
              &m[ON_CPU * repeat + r], st);
  }
  for (int c = 0; c < NCOL; c++) med[c] = median(m + c * repeat, repeat);
  printf("%8zu %8zu %9.2f/%-9.2f %8.3f %9.2f/%-9.2f %9.2f/%-9.2f %6.2fx\n",
         n0, n1, med[OPT_WALL], med[OPT_CPU],
         med[OPT_CPU] / ((double)n0 / 1000.0), med[OFF_WALL], med[OFF_CPU],
         med[ON_WALL], med[ON_CPU], med[ON_CPU] / med[OFF_CPU]);
  if (report) {
    char *txt = tfs_optimizer_report_to_string(rep);
    printf("%s\n", txt ? txt : "");
    free(txt);
  }
  if (save) {
    tfs_buffer *b = tfs_buffer_new();
    tfs_graph_to_graphdef(g, b, st);
    FILE *f = fopen(save, "wb");
    if (f) {
      fwrite(b->data, 1, b->length, f);
      fclose(f);
    }
    tfs_buffer_free(b);
  }
  tfs_optimizer_report_free(rep);
  free(m);
  tfs_graph_free(g);
  tfs_tensor_free(xv);
  return 0;
}

int main(int argc, char **argv) {
  const char *model = NULL, *fetch = "y";
  int batch = 1, runs = 200;
  for (int i = 1; i + 1 < argc; i++) {
    if (strcmp(argv[i], "--model") == 0) model = argv[i + 1];
    if (strcmp(argv[i], "--fetch") == 0) fetch = argv[i + 1];
    if (strcmp(argv[i], "--batch") == 0) batch = atoi(argv[i + 1]);
    if (strcmp(argv[i], "--runs") == 0) runs = atoi(argv[i + 1]);
  }
  if (model)
    return bench_model(model, fetch, batch > 0 ? batch : 1,
                       runs > 0 ? runs : 200);
  int sizes[16], nsizes = 0, report = 0, repeat = 3;
  const char *save = NULL; /* --save FILE: the last graph as a GraphDef */
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--report") == 0)
      report = 1;
    else if (strcmp(argv[i], "--save") == 0 && i + 1 < argc)
      save = argv[++i];
    else if (strcmp(argv[i], "--repeat") == 0 && i + 1 < argc)
      repeat = atoi(argv[++i]);
    else if (nsizes < 16)
      sizes[nsizes++] = atoi(argv[i]);
  }
  if (repeat < 1) repeat = 1;
  if (!nsizes) {
    sizes[0] = 1000, sizes[1] = 10000, sizes[2] = 100000;
    nsizes = 3;
  }
  tfs_status *st = tfs_status_new();
  printf("milliseconds, wall/cpu, medians of %d; run1: new session + first "
         "run\n", repeat);
  printf("%8s %8s %19s %8s %19s %19s %7s\n", "nodes", "after", "optimizer",
         "cpu/1k", "run1 off", "run1 on", "on/off");
  int rc = 0;
  for (int k = 0; k < nsizes && !rc; k++)
    rc = bench_size(sizes[k], repeat, report, save, st);
  tfs_status_free(st);
  return rc;
}
