/*
 * bench/eager_bench.c - tfsess's side of the eager rows of the benchmark
 * harness: times one kind of work and prints one JSON line (per-call
 * microseconds of every sample, peak RSS, checksum), with the protocol of
 * tfs_bench.c and benchlib.py (warm up, then samples of back-to-back
 * calls).
 *
 *   eager_bench --work add|fn10|fn10_graph [--seconds S]
 *
 *   add         a cached eager AddV2 of two float32 [2,2] values
 *               (tfs_add + tfs_value_free: what one eager op costs)
 *   fn10        a traced function of 10 elementwise ops on float32 [2,2]
 *               (tfs_function_call + freeing its output)
 *   fn10_graph  the same 10 ops as a graph run through a callable: the
 *               graph's own work, so fn10 - fn10_graph is the fixed cost
 *               of a function call
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "core/util.h"
#include "tfsess/tfsess.h"

#define MAX_SAMPLES 400
#define FN_OPS 10

typedef struct bench bench;
struct bench {
  tfs_ctx *ctx;
  tfs_value *x, *y;
  tfs_function *fn;
  tfs_session *s;
  tfs_graph *g;
  tfs_callable *c;
  tfs_tensor *xt, *yt;
  double (*once)(bench *b, tfs_status *st);
};

static void die(const char *what, const tfs_status *st) {
  fprintf(stderr, "eager_bench: %s: %s\n", what,
          st ? tfs_status_message(st) : "");
  exit(1);
}

/* Sum of a float tensor's elements (the checksum). */
static double tensor_sum(const tfs_tensor *t) {
  const float *p = tfs_tensor_data(t);
  double s = 0;
  for (int64_t i = 0; i < tfs_tensor_num_elements(t); i++) s += p[i];
  return s;
}

static double value_sum(const tfs_value *v, tfs_status *st) {
  tfs_tensor *t = tfs_value_resolve(v, st);
  if (!t) die("resolve", st);
  double s = tensor_sum(t);
  tfs_tensor_free(t);
  return s;
}

static double once_add(bench *b, tfs_status *st) {
  tfs_value *z = tfs_add(b->ctx, b->x, b->y, st);
  if (!z) die("add", st);
  tfs_value_free(z);
  return 0;
}

/* The 10 ops of fn10: x*y+x-y, max, min, *, +, -, *, + over [2,2]. */
static tfs_value *ten_ops(tfs_ctx *c, tfs_value *x, tfs_value *y,
                          tfs_status *st) {
  tfs_value *v = tfs_mul(c, x, y, st), *w;
  for (int i = 1; v && i < FN_OPS; i++) {
    switch (i % 5) {
      case 0: w = tfs_mul(c, v, y, st); break;
      case 1: w = tfs_add(c, v, x, st); break;
      case 2: w = tfs_sub(c, v, y, st); break;
      case 3: w = tfs_maximum(c, v, x, st); break;
      default: w = tfs_minimum(c, v, y, st); break;
    }
    tfs_value_free(v);
    v = w;
  }
  return v;
}

static int fn10_body(tfs_ctx *c, tfs_value *const *in, int n,
                     tfs_value **out, int max, int *nout, void *user,
                     tfs_status *st) {
  (void)n;
  (void)max;
  (void)user;
  out[0] = ten_ops(c, in[0], in[1], st);
  *nout = out[0] != NULL;
  return out[0] ? 0 : -1;
}

static double once_fn10(bench *b, tfs_status *st) {
  tfs_value *in[2] = {b->x, b->y}, *out = NULL;
  if (tfs_function_call(b->fn, in, 2, &out, 1, st) != 1) die("call", st);
  tfs_value_free(out);
  return 0;
}

static double once_graph(bench *b, tfs_status *st) {
  tfs_tensor *in[2] = {b->xt, b->yt}, *out = NULL;
  tfs_callable_run(b->c, in, 2, &out, 1, st);
  if (!tfs_status_ok(st)) die("callable", st);
  tfs_tensor_free(out);
  return 0;
}

static tfs_tensor *floats22(float base) {
  int64_t d[2] = {2, 2};
  tfs_tensor *t = tfs_tensor_new(TFS_FLOAT, d, 2, NULL);
  float *p = tfs_tensor_data(t);
  for (int i = 0; i < 4; i++) p[i] = base + 0.25f * (float)i;
  return t;
}

/* Builds the work; returns its checksum (the result's element sum). */
static double setup(bench *b, const char *work, tfs_status *st) {
  b->xt = floats22(1.0f);
  b->yt = floats22(-0.5f);
  if (!strcmp(work, "fn10_graph")) {
    b->g = tfs_graph_new();
    int64_t d[2] = {2, 2};
    tfs_output in[2] = {
        tfs_op_placeholder(b->g, "x", TFS_FLOAT, d, 2, st),
        tfs_op_placeholder(b->g, "y", TFS_FLOAT, d, 2, st)};
    /* the ops of ten_ops, by name through the graph builder */
    static const char *const kOps[5] = {"Mul", "AddV2", "Sub", "Maximum",
                                        "Minimum"};
    tfs_output out = tfs_op_binary(b->g, "Mul", "op0", in[0], in[1], st);
    for (int i = 1; i < FN_OPS; i++) {
      char name[16];
      snprintf(name, sizeof name, "op%d", i);
      tfs_output rhs = (i % 5 == 1 || i % 5 == 3) ? in[0] : in[1];
      out = tfs_op_binary(b->g, kOps[i % 5], name, out, rhs, st);
    }
    if (!tfs_status_ok(st)) die("graph", st);
    b->s = tfs_session_new(b->g, NULL, st);
    if (!b->s) die("session", st);
    b->c = tfs_session_make_callable(b->s, in, 2, &out, 1, NULL, 0, NULL, st);
    if (!b->c) die("callable", st);
    b->once = once_graph;
    tfs_tensor *ins[2] = {b->xt, b->yt}, *o = NULL;
    tfs_callable_run(b->c, ins, 2, &o, 1, st);
    if (!tfs_status_ok(st)) die("run", st);
    double sum = tensor_sum(o);
    tfs_tensor_free(o);
    return sum;
  }
  b->ctx = tfs_eager_ctx_new(NULL, st);
  if (!b->ctx) die("context", st);
  b->x = tfs_value_new(b->ctx, b->xt, st);
  b->y = tfs_value_new(b->ctx, b->yt, st);
  if (!b->x || !b->y) die("values", st);
  tfs_value *z = NULL;
  if (!strcmp(work, "add")) {
    b->once = once_add;
    z = tfs_add(b->ctx, b->x, b->y, st);
  } else if (!strcmp(work, "fn10")) {
    b->fn = tfs_function_new(b->ctx, fn10_body, NULL, NULL, st);
    if (!b->fn) die("function", st);
    b->once = once_fn10;
    tfs_value *in[2] = {b->x, b->y};
    if (tfs_function_call(b->fn, in, 2, &z, 1, st) != 1) die("call", st);
  } else {
    fprintf(stderr, "eager_bench: unknown --work '%s'\n", work);
    exit(2);
  }
  if (!z) die(work, st);
  double sum = value_sum(z, st);
  tfs_value_free(z);
  return sum;
}

static void teardown(bench *b) {
  tfs_callable_free(b->c);
  if (b->s) {
    tfs_status *st = tfs_status_new();
    tfs_session_close(b->s, st);
    tfs_session_free(b->s);
    tfs_status_free(st);
  }
  tfs_graph_free(b->g);
  tfs_function_free(b->fn);
  tfs_value_free(b->x);
  tfs_value_free(b->y);
  tfs_ctx_free(b->ctx);
  tfs_tensor_free(b->xt);
  tfs_tensor_free(b->yt);
}

static double sample(bench *b, int64_t k, tfs_status *st) {
  int64_t t0 = tfs_now_ns();
  for (int64_t i = 0; i < k; i++) b->once(b, st);
  return (double)(tfs_now_ns() - t0) / 1e3 / (double)k;
}

int main(int argc, char **argv) {
  const char *work = "add";
  double seconds = 1.0;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "--work")) work = argv[i + 1];
    else if (!strcmp(argv[i], "--seconds")) seconds = atof(argv[i + 1]);
  }
  tfs_status *st = tfs_status_new();
  bench b = {0};
  double checksum = setup(&b, work, st);
  /* warm-up: at least 20 calls and 0.3 s */
  int64_t t0 = tfs_now_ns(), warm = 0;
  while (warm < 20 || tfs_now_ns() - t0 < 300000000) {
    b.once(&b, st);
    warm++;
  }
  double per_call = (double)(tfs_now_ns() - t0) / 1e9 / (double)warm;
  int64_t k = (int64_t)ceil(0.02 / per_call);
  if (k < 1) k = 1;
  double us[MAX_SAMPLES];
  int n = 0;
  int64_t end = tfs_now_ns() + (int64_t)(seconds * 1e9);
  while (n < MAX_SAMPLES && (n < 7 || tfs_now_ns() < end))
    us[n++] = sample(&b, k, st);
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  printf("{\"engine\": \"tfsess\", \"work\": \"%s\", \"us\": [", work);
  for (int i = 0; i < n; i++) printf("%s%.4f", i ? ", " : "", us[i]);
  printf("], \"runs_per_sample\": %lld, \"rss_kb\": %ld, \"checksum\": %.6g}\n",
         (long long)k, ru.ru_maxrss, checksum);
  teardown(&b);
  tfs_status_free(st);
  return 0;
}
