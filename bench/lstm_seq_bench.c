/*
 * bench/lstm_seq_bench.c - _TfsLstmSequence by hand: a Keras LSTM layer
 * of 128 units over 32 steps of 64 inputs (constant weights, as the
 * optimizer leaves them), at batch 1 and 8, on 1 and 2 threads; the
 * median of many runs of the op alone (lists fed from a first run), of
 * the same graph running no step (the run's own cost), and of one step
 * of the loop's body as the optimizer fuses it when the loop stays
 * (_TfsMatMulSum and _TfsLstmGates, a session run a step: less than a
 * step of the loop costs).  Not part of `make check`.
 *
 *   bench/lstm_seq_bench [runs] [units] [depth] [steps] [batch] [threads]
 *
 * (batch and threads: only that batch, 1 or 8, and thread count, 1 or 2)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "backends/cpu/lstm_seq.h"
#include "session/session_internal.h"
#include "tfsess/tfsess.h"

static void check(tfs_status *st, const char *what) {
  if (tfs_status_code(st) == TFS_OK) return;
  fprintf(stderr, "%s: %s\n", what, tfs_status_message(st));
  exit(1);
}

static tfs_tensor *rand_tensor(const int64_t *dims, int nd, float scale,
                               unsigned seed, tfs_status *st) {
  int64_t n = 1;
  for (int i = 0; i < nd; i++) n *= dims[i];
  tfs_tensor *t = tfs_tensor_new(TFS_FLOAT, dims, nd, st);
  check(st, "tensor");
  float *v = tfs_tensor_data(t);
  for (int64_t i = 0; i < n; i++) {
    seed = seed * 1103515245u + 12345u;
    v[i] = scale * ((float)((seed >> 9) & 0xffff) / 32768.0f - 1.0f);
  }
  return t;
}

static tfs_output list_op(tfs_graph *g, const char *op, const char *name,
                          tfs_output a, tfs_output b, tfs_status *st) {
  tfs_op_desc *d = tfs_op_desc_new(g, op, name);
  tfs_op_desc_add_input(d, a);
  tfs_op_desc_add_input(d, b);
  tfs_op_desc_set_attr_type(d, "element_dtype", TFS_FLOAT);
  tfs_op_desc_set_attr_type(d, "shape_type", TFS_INT32);
  tfs_operation *o = tfs_op_desc_finish(d, st);
  check(st, op);
  return (tfs_output){o, 0};
}

static tfs_output shape2(tfs_graph *g, const char *name, int32_t a, int32_t b,
                         tfs_status *st) {
  int64_t d = 2;
  int32_t v[2] = {a, b};
  tfs_tensor *t = tfs_tensor_new_copy(TFS_INT32, &d, 1, v, sizeof v, st);
  tfs_output o = tfs_op_const(g, name, t, st);
  tfs_tensor_free(t);
  return o;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* Median microseconds of `runs` runs of the op over `steps` steps (0:
 * none). */
static double time_op(int batch, int threads, int units, int depth, int steps,
                      int nsteps, int runs) {
  tfs_status *st = tfs_status_new();
  tfs_graph *g = tfs_graph_new();
  int64_t xd[3] = {steps, batch, depth}, hd[2] = {batch, units};
  int64_t kd[2] = {depth, 4 * units}, rd[2] = {units, 4 * units};
  int64_t bd[1] = {4 * units};
  tfs_tensor *x = rand_tensor(xd, 3, 1.0f, 1, st);
  tfs_tensor *w[3] = {rand_tensor(kd, 2, 0.15f, 2, st),
                      rand_tensor(rd, 2, 0.15f, 3, st),
                      rand_tensor(bd, 1, 0.5f, 4, st)};
  tfs_tensor *hc = rand_tensor(hd, 2, 0.5f, 5, st);
  tfs_output xl = list_op(g, "TensorListFromTensor", "xl",
                          tfs_op_const(g, "x", x, st),
                          shape2(g, "xes", -1, depth, st), st);
  tfs_output ol = list_op(g, "TensorListReserve", "ol",
                          shape2(g, "oes", -1, units, st),
                          tfs_op_const_int32(g, "on", steps, st), st);
  /* the timed graph: the lists and h, c fed */
  tfs_output fx = tfs_op_placeholder(g, "fx", TFS_VARIANT, NULL, 0, st);
  tfs_output fo = tfs_op_placeholder(g, "fo", TFS_VARIANT, NULL, 0, st);
  tfs_output fh = tfs_op_placeholder(g, "fh", TFS_FLOAT, hd, 2, st);
  tfs_output fc = tfs_op_placeholder(g, "fc", TFS_FLOAT, hd, 2, st);
  tfs_op_desc *d = tfs_op_desc_new(g, "_TfsLstmSequence", "lstm");
  tfs_op_desc_add_input(d, tfs_op_const_int32(g, "counter", 0, st));
  tfs_op_desc_add_input(d, tfs_op_const_int32(g, "max", nsteps, st));
  tfs_op_desc_add_input(d, tfs_op_const_int32(g, "time", 0, st));
  tfs_op_desc_add_input(d, tfs_op_const_int32(g, "limit", steps, st));
  tfs_op_desc_add_input(d, fo);
  tfs_op_desc_add_input(d, fh);
  tfs_op_desc_add_input(d, fc);
  tfs_op_desc_add_input(d, fx);
  tfs_op_desc_add_input(d, tfs_op_const(g, "k", w[0], st));
  tfs_op_desc_add_input(d, tfs_op_const(g, "r", w[1], st));
  tfs_op_desc_add_input(d, tfs_op_const(g, "b", w[2], st));
  tfs_operation *op = tfs_op_desc_finish(d, st);
  check(st, "_TfsLstmSequence");
  tfs_session_options *o = tfs_session_options_new();
  o->config.use_per_session_threads = 1;
  tfs_session_options_set_intra_op_threads(o, threads);
  tfs_session *s = tfs_session_new(g, o, st);
  check(st, "session");
  tfs_output lists[2] = {xl, ol};
  tfs_tensor *lv[2];
  tfs_session_run(s, NULL, NULL, 0, lists, lv, 2, NULL, 0, st);
  check(st, "lists");
  tfs_output feeds[4] = {fx, fo, fh, fc}, fetch = {op, 3};
  tfs_tensor *vals[4] = {lv[0], lv[1], hc, hc};
  double *us = malloc(sizeof(double) * (size_t)runs);
  for (int i = -runs / 10 - 2; i < runs; i++) {
    tfs_tensor *h = NULL;
    int64_t t0 = tfs_now_ns();
    tfs_session_run(s, feeds, vals, 4, &fetch, &h, 1, NULL, 0, st);
    int64_t t1 = tfs_now_ns();
    check(st, "run");
    tfs_tensor_free(h);
    if (i >= 0) us[i] = (double)(t1 - t0) / 1000.0;
  }
  qsort(us, (size_t)runs, sizeof(double), cmp_double);
  double med = us[runs / 2];
  free(us);
  tfs_tensor_free(lv[0]);
  tfs_tensor_free(lv[1]);
  tfs_session_free(s);
  tfs_session_options_free(o);
  tfs_graph_free(g);
  tfs_tensor_free(x);
  tfs_tensor_free(hc);
  for (int i = 0; i < 3; i++) tfs_tensor_free(w[i]);
  tfs_status_free(st);
  return med;
}

/* Median microseconds of one step of the loop's body as the optimizer
 * leaves it when it does not replace the loop (_TfsMatMulSum of x and h
 * by constant weights and the bias, then _TfsLstmGates), one session run
 * a step: what a step of the loop costs at least, without the loop's
 * own nodes (GetItem, SetItem, counters, the While). */
static double time_cell(int batch, int threads, int units, int depth,
                        int runs) {
  tfs_status *st = tfs_status_new();
  tfs_graph *g = tfs_graph_new();
  int64_t xd[2] = {batch, depth}, hd[2] = {batch, units};
  int64_t kd[2] = {depth, 4 * units}, rd[2] = {units, 4 * units};
  int64_t bd[1] = {4 * units};
  tfs_tensor *x = rand_tensor(xd, 2, 1.0f, 1, st);
  tfs_tensor *hc = rand_tensor(hd, 2, 0.5f, 5, st);
  tfs_tensor *w[3] = {rand_tensor(kd, 2, 0.15f, 2, st),
                      rand_tensor(rd, 2, 0.15f, 3, st),
                      rand_tensor(bd, 1, 0.5f, 4, st)};
  tfs_output fx = tfs_op_placeholder(g, "fx", TFS_FLOAT, xd, 2, st);
  tfs_output fh = tfs_op_placeholder(g, "fh", TFS_FLOAT, hd, 2, st);
  tfs_output fc = tfs_op_placeholder(g, "fc", TFS_FLOAT, hd, 2, st);
  tfs_op_desc *d = tfs_op_desc_new(g, "_TfsMatMulSum", "z");
  tfs_op_desc_add_input(d, fx);
  tfs_op_desc_add_input(d, fh);
  tfs_op_desc_add_input(d, tfs_op_const(g, "k", w[0], st));
  tfs_op_desc_add_input(d, tfs_op_const(g, "r", w[1], st));
  tfs_output bias = tfs_op_const(g, "b", w[2], st);
  tfs_op_desc_add_input_list(d, &bias, 1);
  tfs_op_desc_set_attr_int(d, "num_args", 1);
  tfs_operation *z = tfs_op_desc_finish(d, st);
  check(st, "_TfsMatMulSum");
  d = tfs_op_desc_new(g, "_TfsLstmGates", "gates");
  tfs_op_desc_add_input(d, (tfs_output){z, 0});
  tfs_op_desc_add_input(d, fc);
  tfs_operation *op = tfs_op_desc_finish(d, st);
  check(st, "_TfsLstmGates");
  tfs_session_options *o = tfs_session_options_new();
  o->config.use_per_session_threads = 1;
  tfs_session_options_set_intra_op_threads(o, threads);
  tfs_session *s = tfs_session_new(g, o, st);
  check(st, "session");
  tfs_output feeds[3] = {fx, fh, fc}, fetch[2] = {{op, 0}, {op, 1}};
  tfs_tensor *vals[3] = {x, hc, hc};
  double *us = malloc(sizeof(double) * (size_t)runs);
  for (int i = -runs / 10 - 2; i < runs; i++) {
    tfs_tensor *out[2] = {NULL, NULL};
    int64_t t0 = tfs_now_ns();
    tfs_session_run(s, feeds, vals, 3, fetch, out, 2, NULL, 0, st);
    int64_t t1 = tfs_now_ns();
    check(st, "cell run");
    tfs_tensor_free(out[0]);
    tfs_tensor_free(out[1]);
    if (i >= 0) us[i] = (double)(t1 - t0) / 1000.0;
  }
  qsort(us, (size_t)runs, sizeof(double), cmp_double);
  double med = us[runs / 2];
  free(us);
  tfs_session_free(s);
  tfs_session_options_free(o);
  tfs_graph_free(g);
  tfs_tensor_free(x);
  tfs_tensor_free(hc);
  for (int i = 0; i < 3; i++) tfs_tensor_free(w[i]);
  tfs_status_free(st);
  return med;
}

int main(int argc, char **argv) {
  int runs = argc > 1 ? atoi(argv[1]) : 400;
  int units = argc > 2 ? atoi(argv[2]) : 128;
  int depth = argc > 3 ? atoi(argv[3]) : 64;
  int steps = argc > 4 ? atoi(argv[4]) : 32;
  /* TFS_LSTM_MIN_STEP_NS: tfs_lstm_seq__set_min_step_ns (0: share every
   * step over the threads) */
  const char *min_ns = getenv("TFS_LSTM_MIN_STEP_NS");
  if (min_ns) tfs_lstm_seq__set_min_step_ns(atoll(min_ns));
  if (runs < 1 || units < 1 || depth < 1 || steps < 1) {
    fprintf(stderr, "usage: %s [runs] [units] [depth] [steps]\n", argv[0]);
    return 2;
  }
  printf("_TfsLstmSequence, units %d, input %d, %d steps; median of %d "
         "runs (us)\n",
         units, depth, steps, runs);
  printf("batch threads   op run  no-step run  per step  cell step  "
         "cell x steps\n");
  const int batches[2] = {1, 8}, threads[2] = {1, 2};
  int only_b = argc > 5 ? atoi(argv[5]) : 0;
  int only_t = argc > 6 ? atoi(argv[6]) : 0;
  for (int b = 0; b < 2; b++)
    for (int t = 0; t < 2; t++) {
      if ((only_b && batches[b] != only_b) || (only_t && threads[t] != only_t))
        continue;
      double full = time_op(batches[b], threads[t], units, depth, steps,
                            steps, runs);
      double none = time_op(batches[b], threads[t], units, depth, steps, 0,
                            runs);
      double cell = time_cell(batches[b], threads[t], units, depth, runs);
      printf("%5d %7d %8.1f %12.1f %9.2f %10.2f %13.1f\n", batches[b],
             threads[t], full, none, (full - none) / steps, cell,
             cell * steps);
    }
  return 0;
}
