/*
 * bench/bench_optimizer.c - how long the optimizer takes on generated
 * graphs of N nodes (default 1000, 10000, 100000), per pass and in all,
 * and what the first run of a session costs with and without it.  The
 * graph repeats a small dense layer (MatMul + BiasAdd + Relu, identities,
 * a neutral Mul, a constant subexpression, a duplicated branch) so every
 * pass has work.  Usage: bench_optimizer [N ...] [--report] [--save F];
 * bench_optimizer --model M.pb [BATCH] times a model ("x" -> "y") with
 * and without the optimizer (median of 50 runs).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

static double first_run(tfs_graph *g, tfs_output x, const char *yname,
                        tfs_tensor *xv, tfs_status *st) {
  double t0 = now_ms();
  tfs_session *s = tfs_session_new(g, NULL, st);
  tfs_output xo = tfs_graph_output_by_name(g, tfs_operation_name(x.oper), st);
  tfs_output yo = tfs_graph_output_by_name(g, yname, st);
  tfs_tensor *out = NULL;
  tfs_session_run(s, &xo, &xv, 1, &yo, &out, 1, NULL, 0, st);
  double t = now_ms() - t0;
  if (!tfs_status_ok(st)) fprintf(stderr, "run: %s\n", tfs_status_message(st));
  tfs_tensor_free(out);
  tfs_session_free(s);
  return t;
}

/* ---- --model: a GraphDef run with and without the optimizer ---------- */

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Median milliseconds of `runs` runs of y for feed x (after 3 warm-ups). */
static double time_runs(tfs_graph *g, tfs_tensor *xv, int runs,
                        tfs_status *st) {
  tfs_session *s = tfs_session_new(g, NULL, st);
  tfs_output x = tfs_graph_output_by_name(g, "x", st);
  tfs_output y = tfs_graph_output_by_name(g, "y", st);
  double *t = calloc((size_t)runs, sizeof(double));
  for (int i = -3; i < runs && tfs_status_ok(st); i++) {
    tfs_tensor *out = NULL;
    double t0 = now_ms();
    tfs_session_run(s, &x, &xv, 1, &y, &out, 1, NULL, 0, st);
    if (i >= 0) t[i] = now_ms() - t0;
    tfs_tensor_free(out);
  }
  qsort(t, (size_t)runs, sizeof(double), cmp_double);
  double med = t[runs / 2];
  free(t);
  tfs_session_free(s);
  return med;
}

static int bench_model(const char *path, int batch, int runs) {
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
  tfs_output y = tfs_graph_output_by_name(g, "y", st);
  tfs_optimizer_report *rep = NULL;
  tfs_graph *og = tfs_graph_optimize(g, &x, 1, &y, 1, NULL, 0, NULL, &rep,
                                     st);
  if (!og) return fprintf(stderr, "%s\n", tfs_status_message(st)), 1;
  double plain = time_runs(g, xv, runs, st);
  double opt = time_runs(og, xv, runs, st);
  printf("%-24s batch %3d: %zu -> %zu nodes, %.3f ms -> %.3f ms per run "
         "(%.2fx), optimizer %.2f ms\n", path, batch,
         tfs_graph_num_operations(g), tfs_graph_num_operations(og), plain,
         opt, plain / opt, tfs_optimizer_report_total_time_us(rep) / 1e3);
  tfs_optimizer_report_free(rep);
  tfs_graph_free(og);
  tfs_graph_free(g);
  tfs_tensor_free(xv);
  tfs_status_free(st);
  return 0;
}

int main(int argc, char **argv) {
  for (int i = 1; i + 1 < argc; i++)
    if (strcmp(argv[i], "--model") == 0) {
      int batch = i + 2 < argc ? atoi(argv[i + 2]) : 1;
      return bench_model(argv[i + 1], batch > 0 ? batch : 1, 50);
    }
  int sizes[16], nsizes = 0, report = 0;
  const char *save = NULL; /* --save FILE: the last graph as a GraphDef */
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--report") == 0)
      report = 1;
    else if (strcmp(argv[i], "--save") == 0 && i + 1 < argc)
      save = argv[++i];
    else if (nsizes < 16)
      sizes[nsizes++] = atoi(argv[i]);
  }
  if (!nsizes) {
    sizes[0] = 1000, sizes[1] = 10000, sizes[2] = 100000;
    nsizes = 3;
  }
  tfs_status *st = tfs_status_new();
  printf("%8s %8s %10s %10s %10s %12s %12s %10s\n", "nodes", "after",
         "optimize", "cpu", "cpu/1k", "run1 plain", "run1 opt", "total opt");
  for (int k = 0; k < nsizes; k++) {
    tfs_output x, y;
    tfs_graph *g = build(sizes[k], &x, &y, st);
    if (!tfs_status_ok(st)) {
      fprintf(stderr, "build: %s\n", tfs_status_message(st));
      return 1;
    }
    int64_t d[2] = {4, 8};
    tfs_tensor *xv = tfs_tensor_new(TFS_FLOAT, d, 2, st);
    memset(tfs_tensor_data(xv), 0, tfs_tensor_byte_size(xv));
    tfs_graph *og = NULL;
    tfs_optimizer_report *rep = NULL;
    double t0 = now_ms(), c0 = cpu_ms();
    tfs_optimizer__optimize_for_plan(g, &x, 1, &y, 1, NULL, 0, NULL, &og, &rep,
                                     st);
    double topt = now_ms() - t0, copt = cpu_ms() - c0;
    double plain = first_run(g, x, "y", xv, st);
    double opt = og ? first_run(og, x, "y", xv, st) : plain;
    size_t n0 = tfs_graph_num_operations(g);
    printf("%8zu %8zu %8.2fms %8.2fms %8.3fms %10.2fms %10.2fms %8.2fms\n", n0,
           og ? tfs_graph_num_operations(og) : n0, topt, copt,
           copt / ((double)n0 / 1000.0), plain, opt, topt + opt);
    if (report) {
      char *txt = tfs_optimizer_report_to_string(rep);
      printf("%s\n", txt ? txt : "");
      free(txt);
    }
    tfs_optimizer_report_free(rep);
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
    tfs_graph_free(og);
    tfs_graph_free(g);
    tfs_tensor_free(xv);
  }
  tfs_status_free(st);
  return 0;
}
