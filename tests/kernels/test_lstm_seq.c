/*
 * tests/kernels/test_lstm_seq.c - _TfsLstmSequence, the Keras LSTM layer's
 * While loop in one kernel, run in graphs as the loop's variables reach
 * it (TensorListFromTensor of the sequence, TensorListReserve of the
 * outputs, constant or fed weights) against the recurrence computed in
 * double: every step's h or one index, Keras's and a permuted gate
 * order, units that fill no whole chunk, one-row h and c broadcast,
 * steps bounded by the counter or by time, a start past 0, no step at
 * all, empty batch, units and depth, long sequences cut into blocks, 1
 * and 4 threads bit for bit, each instruction-set path; and every error
 * the loop's ops would raise, by text.  No timings.
 */
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/alloc.h"
#include "core/cpu.h"
#include "backends/cpu/gemm.h"
#include "backends/cpu/lstm_seq.h"
#include "session/session_internal.h"
#include "testutil.h"

#define NODE "\n\t [[{{node n}}]]"

/* ---- values -------------------------------------------------------------- */

/* Tests whose steps several threads share end the program when they
 * take over two minutes (tasks waiting for each other forever fail the
 * suite instead of hanging it). */
static void on_alarm(int sig) {
  static const char m[] = "\n  lstm_seq: a threaded test did not finish in "
                          "120 s\n";
  (void)sig;
  if (write(2, m, sizeof m - 1) < 0) _exit(2);
  _exit(1);
}

static void watchdog(int on) {
  signal(SIGALRM, on_alarm);
  alarm(on ? 120 : 0);
}


static float frand(unsigned *s) {
  *s = *s * 1103515245u + 12345u;
  return (float)((*s >> 9) & 0xffff) / 32768.0f - 1.0f;
}

static tfs_tensor *randt(const int64_t *dims, int nd, float scale,
                         unsigned seed) {
  int64_t n = 1;
  for (int i = 0; i < nd; i++) n *= dims[i];
  float *v = malloc(sizeof(float) * (size_t)(n + 1));
  for (int64_t i = 0; i < n; i++) v[i] = scale * frand(&seed);
  tfs_tensor *t = tu_floats(dims, nd, v);
  free(v);
  return t;
}

static tfs_tensor *i32s(int nd, const int64_t *dims, const int32_t *v) {
  return tu_int32s(dims, nd, v);
}

/* ---- the graph ---------------------------------------------------------- */

/* One op and what feeds it.  The input list is TensorListFromTensor of x
 * ([T, rows, depth]), or when items is set a TensorListReserve of nitems
 * (element shape in_es) whose set items are items[i] (NULL: unset). */
typedef struct ls_in {
  tfs_tensor *x;
  tfs_tensor *const *items;
  int nitems;
  int64_t in_es[2];
  tfs_tensor *h, *c, *k, *r, *b;
  tfs_tensor *counter;        /* NULL: the scalar scal[0] */
  int32_t scal[4];            /* counter, max_iterations, time, time_limit */
  int64_t out_es[2];          /* the output list's element shape */
  int32_t out_n;              /* and length */
  int out_index;
  int64_t order[4];
  int norder;                 /* 0: the default order */
  int consts;                 /* weights as Const nodes, else fed */
  int threads;
  int64_t stack_es[2];        /* TensorListStack's element shape; rank 0:
                                 no stack fetched */
  int oom;                    /* first fail each allocation of a run in
                                 turn (tfs_alloc_fail_at) */
} ls_in;

/* Outputs: counter_out, time_out, h_out, c_out, the output list stacked. */
enum { NOUT = 5 };

static tfs_output const_t(tfs_graph *g, const char *name, tfs_tensor *t,
                          tfs_status *st) {
  tfs_output o = tfs_op_const(g, name, t, st);
  tfs_tensor_free(t);
  return o;
}

static tfs_output shape_const(tfs_graph *g, const char *name,
                              const int64_t *es, tfs_status *st) {
  int32_t v[2] = {(int32_t)es[0], (int32_t)es[1]};
  return const_t(g, name, i32s(1, (int64_t[]){2}, v), st);
}

static tfs_output list_op(tfs_graph *g, const char *op, const char *name,
                          tfs_output a, tfs_output b, tfs_dtype dt,
                          tfs_status *st) {
  tfs_op_desc *d = tfs_op_desc_new(g, op, name);
  tfs_op_desc_add_input(d, a);
  tfs_op_desc_add_input(d, b);
  tfs_op_desc_set_attr_type(d, "element_dtype", dt);
  tfs_op_desc_set_attr_type(d, "shape_type", TFS_INT32);
  tfs_operation *o = tfs_op_desc_finish(d, st);
  TFS_ASSERT_OK(st);
  return (tfs_output){o, 0};
}

/* The input list of `in`. */
static tfs_output input_list(tfs_graph *g, const ls_in *in, tfs_status *st) {
  if (!in->items) {
    tfs_output x = tfs_op_const(g, "x", in->x, st);
    int64_t es[2] = {-1, -1};
    return list_op(g, "TensorListFromTensor", "xl", x,
                   shape_const(g, "xes", es, st), tfs_tensor_dtype(in->x), st);
  }
  tfs_output l = list_op(g, "TensorListReserve", "xl",
                         shape_const(g, "xes", in->in_es, st),
                         tfs_op_const_int32(g, "xn", in->nitems, st),
                         TFS_FLOAT, st);
  for (int i = 0; i < in->nitems; i++) {
    if (!in->items[i]) continue;
    char name[32];
    snprintf(name, sizeof name, "set%d", i);
    tfs_op_desc *d = tfs_op_desc_new(g, "TensorListSetItem", name);
    tfs_op_desc_add_input(d, l);
    snprintf(name, sizeof name, "idx%d", i);
    tfs_op_desc_add_input(d, tfs_op_const_int32(g, name, i, st));
    snprintf(name, sizeof name, "item%d", i);
    tfs_op_desc_add_input(d, tfs_op_const(g, name, in->items[i], st));
    tfs_op_desc_set_attr_type(d, "element_dtype", TFS_FLOAT);
    l = (tfs_output){tfs_op_desc_finish(d, st), 0};
    TFS_ASSERT_OK(st);
  }
  return l;
}

/* Runs s once with each of its allocations failing in turn, until a run
 * makes none fail: each run succeeds or fails with RESOURCE_EXHAUSTED
 * (and frees all it made: the sanitizer build checks). */
static void fail_each_alloc(tfs_session *s, const tfs_output *feeds,
                            tfs_tensor *const *fed, int nfeeds,
                            const tfs_output *fetch, int nfetch) {
  tfs_status *st = tfs_status_new();
  for (long at = 0;; at++) { /* at 0: the run that plans */
    tfs_tensor *out[NOUT] = {NULL, NULL, NULL, NULL, NULL};
    tfs_alloc_fail_at(at);
    tfs_session_run(s, feeds, fed, nfeeds, fetch, out, nfetch, NULL, 0, st);
    long count = tfs_alloc_fail_at(0);
    tfs_code code = tfs_status_code(st);
    if (code != TFS_OK && code != TFS_RESOURCE_EXHAUSTED)
      fprintf(stderr, "\n  allocation %ld failed: %s\n", at,
              tfs_status_message(st));
    CU_ASSERT_TRUE(code == TFS_OK || code == TFS_RESOURCE_EXHAUSTED);
    for (int i = 0; i < NOUT; i++) tfs_tensor_free(out[i]);
    if (at > 0 && count < at) break;
  }
  tfs_status_free(st);
}

/* Builds and runs the op of `in` once.  Returns the code; on success
 * out[0..NOUT) are the outputs (out[4] NULL without a stack), else the
 * message is in msg. */
static tfs_code run_seq(const ls_in *in, tfs_tensor **out, char *msg,
                        size_t cap) {
  tfs_status *st = tfs_status_new();
  tfs_graph *g = tfs_graph_new();
  tfs_output in_list = input_list(g, in, st);
  tfs_output out_list = list_op(g, "TensorListReserve", "ol",
                                shape_const(g, "oes", in->out_es, st),
                                tfs_op_const_int32(g, "on", in->out_n, st),
                                TFS_FLOAT, st);
  static const char *const kScal[4] = {"counter", "max", "time", "limit"};
  tfs_output scal[4];
  for (int i = 0; i < 4; i++)
    scal[i] = i == 0 && in->counter
                  ? tfs_op_const(g, kScal[i], in->counter, st)
                  : tfs_op_const_int32(g, kScal[i], in->scal[i], st);
  tfs_tensor *vals[5] = {in->h, in->c, in->k, in->r, in->b};
  static const char *const kNames[5] = {"h", "c", "k", "r", "b"};
  tfs_output v[5], feeds[5];
  tfs_tensor *fed[5];
  int nfeeds = 0;
  for (int i = 0; i < 5; i++) {
    if (i >= 2 && in->consts) {
      v[i] = tfs_op_const(g, kNames[i], vals[i], st);
      continue;
    }
    v[i] = tfs_op_placeholder(g, kNames[i], TFS_FLOAT, NULL, -1, st);
    feeds[nfeeds] = v[i];
    fed[nfeeds++] = vals[i];
  }
  TFS_ASSERT_OK(st);
  tfs_op_desc *d = tfs_op_desc_new(g, "_TfsLstmSequence", "n");
  tfs_output args[11] = {scal[0], scal[1], scal[2], scal[3], out_list, v[0],
                         v[1], in_list, v[2], v[3], v[4]};
  for (int i = 0; i < 11; i++) tfs_op_desc_add_input(d, args[i]);
  tfs_op_desc_set_attr_int(d, "output_index", in->out_index);
  if (in->norder)
    tfs_op_desc_set_attr_int_list(d, "gate_order", in->order, in->norder);
  tfs_operation *op = tfs_op_desc_finish(d, st);
  TFS_ASSERT_OK(st);
  tfs_output fetch[NOUT] = {{op, 0}, {op, 1}, {op, 3}, {op, 4}, {NULL, 0}};
  int nfetch = 4;
  if (in->stack_es[0] || in->stack_es[1]) {
    tfs_op_desc *sd = tfs_op_desc_new(g, "TensorListStack", "stack");
    tfs_op_desc_add_input(sd, (tfs_output){op, 2});
    tfs_op_desc_add_input(sd, shape_const(g, "ses", in->stack_es, st));
    tfs_op_desc_set_attr_type(sd, "element_dtype", TFS_FLOAT);
    fetch[nfetch++] = (tfs_output){tfs_op_desc_finish(sd, st), 0};
    TFS_ASSERT_OK(st);
  }
  tfs_session_options *so = tu_no_gpu_options();
  tu_own_pools(so, in->threads ? in->threads : 1);
  tfs_session *s = tfs_session_new(g, so, st);
  TFS_ASSERT_OK(st);
  for (int i = 0; i < NOUT; i++) out[i] = NULL;
  if (in->oom) fail_each_alloc(s, feeds, fed, nfeeds, fetch, nfetch);
  tfs_session_run(s, feeds, fed, nfeeds, fetch, out, nfetch, NULL, 0, st);
  tfs_code code = tfs_status_code(st);
  snprintf(msg, cap, "%s", tfs_status_message(st));
  tfs_session_free(s);
  tfs_session_options_free(so);
  tfs_graph_free(g);
  tfs_status_free(st);
  return code;
}

static void free_outs(tfs_tensor **out) {
  for (int i = 0; i < NOUT; i++) tfs_tensor_free(out[i]);
}

/* Runs `in` expecting INVALID_ARGUMENT with `needle` in the message and
 * the node named. */
static void expect_error(const ls_in *in, const char *needle) {
  tfs_tensor *out[NOUT];
  char msg[2048];
  tfs_code code = run_seq(in, out, msg, sizeof msg);
  int ok = code == TFS_INVALID_ARGUMENT && strstr(msg, needle) &&
           strstr(msg, NODE);
  if (!ok)
    fprintf(stderr, "\n  expected INVALID_ARGUMENT containing \"%s\"\n"
            "  got %s: %s\n", needle, tfs_code_name(code), msg);
  CU_ASSERT_TRUE(ok);
  free_outs(out);
}

/* ---- the recurrence in double -------------------------------------------- */

typedef struct ls_case {
  int T, bx, depth, units, bh, bc;
  int counter, max_iter, time, limit;
  int out_n, out_index;
  int64_t order[4]; /* {0, 0, 0, 0}: Keras's, by default */
  int consts, threads;
} ls_case;

/* The batch: x's, h's and c's rows broadcast (1 against any). */
static int case_rows(const ls_case *k) {
  int r = k->bx == 1 ? k->bh : k->bx;
  return r == 1 ? k->bc : r;
}

static int case_steps(const ls_case *k) {
  int a = k->max_iter - k->counter, b = k->limit - k->time;
  int n = a < b ? a : b;
  return n < 0 ? 0 : n;
}

static double sigm(double v) { return 1.0 / (1.0 + exp(-v)); }

/* The loop in double: h and c [rows][units] in and out, the list's
 * elements written into hs ([out_n][rows][units], left as they are where
 * not written). */
static void reference(const ls_case *k, const float *x, const float *W,
                      const float *R, const float *b, double *h, double *c,
                      double *hs) {
  const int rows = case_rows(k), U = k->units, D = k->depth, n = case_steps(k);
  const int64_t *o = k->order[1] ? k->order : (const int64_t[]){0, 1, 2, 3};
  double *z = malloc(sizeof(double) * (size_t)(4 * U + 1));
  double *hn = malloc(sizeof(double) * (size_t)(rows * U + 1));
  for (int s = 0; s < n; s++) {
    int t = k->time + s;
    for (int r = 0; r < rows; r++) {
      const float *xr = x + ((int64_t)t * k->bx + (k->bx == 1 ? 0 : r)) * D;
      for (int j = 0; j < 4 * U; j++) {
        double v = b[j];
        for (int i = 0; i < D; i++) v += (double)xr[i] * W[i * 4 * U + j];
        for (int i = 0; i < U; i++) v += h[r * U + i] * R[i * 4 * U + j];
        z[j] = v;
      }
      for (int u = 0; u < U; u++) {
        double ig = sigm(z[o[0] * U + u]), fg = sigm(z[o[1] * U + u]);
        double gg = tanh(z[o[2] * U + u]), og = sigm(z[o[3] * U + u]);
        c[r * U + u] = fg * c[r * U + u] + ig * gg;
        hn[r * U + u] = og * tanh(c[r * U + u]);
      }
    }
    memcpy(h, hn, sizeof(double) * (size_t)(rows * U));
    int at = k->out_index < 0 ? t : k->out_index;
    memcpy(hs + (int64_t)at * rows * U, h, sizeof(double) * (size_t)(rows * U));
  }
  free(z);
  free(hn);
}

/* Asserts t is float [d0, d1] (or [d0, d1, d2] with nd 3) and within
 * 1e-5 (relative and absolute) of want. */
static void check_near(const tfs_tensor *t, int nd, const int64_t *dims,
                       const double *want, double tol, const char *what) {
  CU_ASSERT_PTR_NOT_NULL_FATAL(t);
  CU_ASSERT_EQUAL_FATAL(tfs_tensor_ndims(t), nd);
  int64_t n = 1;
  for (int i = 0; i < nd; i++) {
    CU_ASSERT_EQUAL_FATAL(tfs_tensor_dim(t, i), dims[i]);
    n *= dims[i];
  }
  const float *g = tfs_tensor_data((tfs_tensor *)t);
  double worst = 0;
  int64_t at = 0;
  for (int64_t i = 0; i < n; i++) {
    double e = fabs(g[i] - want[i]) / (1.0 + fabs(want[i]));
    if (!(e <= worst)) worst = e, at = i;
  }
  if (!(worst <= tol))
    fprintf(stderr, "\n  %s: error %g at %lld (got %g, want %g)\n", what,
            worst, (long long)at, g[at], want[at]);
  CU_ASSERT_TRUE(worst <= tol);
}

/* The inputs of case k (seeded by seed); the caller frees them. */
static void case_inputs(const ls_case *k, unsigned seed, ls_in *in) {
  const int U = k->units, D = k->depth;
  float a = 3.0f / sqrtf((float)(D + U > 0 ? D + U : 1));
  memset(in, 0, sizeof *in);
  in->x = randt((int64_t[]){k->T, k->bx, D}, 3, 1.0f, seed);
  in->h = randt((int64_t[]){k->bh, U}, 2, 0.8f, seed + 1);
  in->c = randt((int64_t[]){k->bc, U}, 2, 1.5f, seed + 2);
  in->k = randt((int64_t[]){D, 4 * U}, 2, a, seed + 3);
  in->r = randt((int64_t[]){U, 4 * U}, 2, a, seed + 4);
  in->b = randt((int64_t[]){4 * U}, 1, 0.5f, seed + 5);
  in->scal[0] = k->counter;
  in->scal[1] = k->max_iter;
  in->scal[2] = k->time;
  in->scal[3] = k->limit;
  in->out_es[0] = -1;
  in->out_es[1] = U;
  in->out_n = k->out_n;
  in->out_index = k->out_index;
  if (k->order[1]) {
    memcpy(in->order, k->order, sizeof in->order);
    in->norder = 4;
  }
  in->consts = k->consts;
  in->threads = k->threads;
  in->stack_es[0] = case_rows(k);
  in->stack_es[1] = U;
}

static void free_inputs(ls_in *in) {
  tfs_tensor *t[6] = {in->x, in->h, in->c, in->k, in->r, in->b};
  for (int i = 0; i < 6; i++) tfs_tensor_free(t[i]);
}

/* Runs case k and checks it against the reference; the outputs are left
 * in out (the caller frees them). */
static void run_case_out(const ls_case *k, unsigned seed, double tol,
                         tfs_tensor **out) {
  ls_in in;
  case_inputs(k, seed, &in);
  const int rows = case_rows(k), U = k->units, n = case_steps(k);
  size_t hc = (size_t)(rows * U + 1);
  double *h = malloc(sizeof(double) * hc), *c = malloc(sizeof(double) * hc);
  double *hs = calloc((size_t)(k->out_n * rows * U + 1), sizeof(double));
  const float *h0 = tfs_tensor_data(in.h), *c0 = tfs_tensor_data(in.c);
  for (int r = 0; r < rows; r++)
    for (int u = 0; u < U; u++) {
      h[r * U + u] = h0[(k->bh == 1 ? 0 : r) * U + u];
      c[r * U + u] = c0[(k->bc == 1 ? 0 : r) * U + u];
    }
  reference(k, tfs_tensor_data(in.x), tfs_tensor_data(in.k),
            tfs_tensor_data(in.r), tfs_tensor_data(in.b), h, c, hs);
  char msg[2048];
  tfs_code code = run_seq(&in, out, msg, sizeof msg);
  if (code != TFS_OK) fprintf(stderr, "\n  run failed: %s\n", msg);
  CU_ASSERT_EQUAL_FATAL(code, TFS_OK);
  CU_ASSERT_EQUAL(*(const int32_t *)tfs_tensor_data(out[0]), k->counter + n);
  CU_ASSERT_EQUAL(*(const int32_t *)tfs_tensor_data(out[1]), k->time + n);
  if (n == 0) { /* h and c as they came */
    CU_ASSERT_EQUAL(tfs_tensor_dim(out[2], 0), k->bh);
    CU_ASSERT_EQUAL(memcmp(tfs_tensor_data(out[2]), h0,
                           sizeof(float) * (size_t)(k->bh * U)), 0);
    CU_ASSERT_EQUAL(memcmp(tfs_tensor_data(out[3]), c0,
                           sizeof(float) * (size_t)(k->bc * U)), 0);
  } else {
    check_near(out[2], 2, (int64_t[]){rows, U}, h, tol, "h");
    check_near(out[3], 2, (int64_t[]){rows, U}, c, tol, "c");
  }
  check_near(out[4], 3, (int64_t[]){k->out_n, rows, U}, hs, tol, "list");
  free(h);
  free(c);
  free(hs);
  free_inputs(&in);
}

static void run_case(const ls_case *k, unsigned seed) {
  tfs_tensor *out[NOUT];
  run_case_out(k, seed, 1e-5, out);
  free_outs(out);
}

/* Runs case k with each allocation of a run failing in turn first (on a
 * planned session, so that the op's own allocations are among them). */
static void run_case_oom(const ls_case *k, unsigned seed) {
  ls_in in;
  case_inputs(k, seed, &in);
  in.oom = 1;
  tfs_tensor *out[NOUT];
  char msg[2048];
  tfs_code code = run_seq(&in, out, msg, sizeof msg);
  if (code != TFS_OK) fprintf(stderr, "\n  run failed: %s\n", msg);
  CU_ASSERT_EQUAL(code, TFS_OK);
  free_outs(out);
  free_inputs(&in);
}

/* Whether two runs' outputs hold the same bits. */
static int same_bits(tfs_tensor *const *a, tfs_tensor *const *b) {
  for (int i = 0; i < NOUT; i++) {
    if (!a[i] || !b[i]) {
      if (a[i] != b[i]) return 0;
      continue;
    }
    size_t n = tfs_tensor_byte_size(a[i]);
    if (n != tfs_tensor_byte_size(b[i]) ||
        memcmp(tfs_tensor_data(a[i]), tfs_tensor_data(b[i]), n) != 0)
      return 0;
  }
  return 1;
}

/* ---- results --------------------------------------------------------------
 * Fields: T, bx, depth, units, bh, bc, counter, max_iter, time, limit,
 * out_n, out_index, order, consts, threads. */

static void test_return_sequences(void) {
  /* 20 units: a chunk and a part of one on AVX-512, two and a half on
   * AVX2 */
  run_case(&(ls_case){20, 3, 5, 20, 3, 3, 0, 20, 0, 20, 20, -1, {0}, 1, 1},
           1);
  run_case(&(ls_case){20, 3, 5, 20, 3, 3, 0, 20, 0, 20, 20, -1, {0}, 0, 1},
           2);
}

static void test_output_index(void) {
  /* a constant index: only the last step's h is written there */
  run_case(&(ls_case){20, 2, 7, 6, 2, 2, 0, 20, 0, 20, 4, 2, {0}, 1, 1}, 3);
  run_case(&(ls_case){12, 2, 7, 6, 2, 2, 0, 12, 0, 12, 1, 0, {0}, 0, 1}, 4);
}

static void test_gate_order(void) {
  run_case(&(ls_case){20, 2, 4, 6, 2, 2, 0, 20, 0, 20, 20, -1, {2, 0, 3, 1},
                      1, 1},
           5);
  run_case(&(ls_case){20, 3, 9, 20, 3, 3, 0, 20, 0, 20, 20, -1, {3, 2, 1, 0},
                      0, 1},
           6);
}

static void test_keras_sizes(void) {
  watchdog(1);
  /* units 128 and input 64, batch 1 and 8 */
  run_case(&(ls_case){20, 1, 64, 128, 1, 1, 0, 20, 0, 20, 20, -1, {0}, 1, 1},
           7);
  run_case(&(ls_case){20, 8, 64, 128, 8, 8, 0, 20, 0, 20, 20, -1, {0}, 1, 1},
           8);
  run_case(&(ls_case){20, 8, 64, 128, 8, 8, 0, 20, 0, 20, 20, 5, {0}, 0, 2},
           9);
  watchdog(0);
}

static void test_broadcast(void) {
  /* h and c of one row for a batch of 4; x of one row for h of 3 */
  run_case(&(ls_case){20, 4, 5, 20, 1, 1, 0, 20, 0, 20, 20, -1, {0}, 1, 1},
           10);
  run_case(&(ls_case){20, 4, 5, 20, 4, 1, 0, 20, 0, 20, 20, -1, {0}, 0, 1},
           11);
  run_case(&(ls_case){20, 1, 5, 6, 3, 3, 0, 20, 0, 20, 20, -1, {0}, 1, 1},
           12);
  run_case(&(ls_case){20, 1, 5, 6, 1, 3, 0, 20, 0, 20, 20, -1, {0}, 1, 1},
           13);
}

static void test_step_count(void) {
  /* no step: the inputs as they are */
  run_case(&(ls_case){8, 2, 3, 6, 2, 2, 5, 5, 0, 8, 8, -1, {0}, 1, 1}, 14);
  run_case(&(ls_case){8, 2, 3, 6, 2, 1, 0, 9, 8, 8, 8, -1, {0}, 0, 1}, 15);
  run_case(&(ls_case){8, 2, 3, 6, 1, 1, 7, 3, 2, 1, 8, 1, {0}, 1, 1}, 16);
  /* the counter stops the loop first; time starts past 0 */
  run_case(&(ls_case){20, 2, 3, 6, 2, 2, 3, 10, 2, 20, 20, -1, {0}, 1, 1},
           17);
  run_case(&(ls_case){20, 2, 3, 6, 2, 2, 0, 30, 5, 20, 20, -1, {0}, 0, 1},
           18);
  run_case(&(ls_case){20, 2, 3, 6, 2, 2, -4, 30, 15, 20, 20, 3, {0}, 1, 1},
           19);
}

static void test_empty(void) {
  /* batch 0, units 0, depth 0 */
  run_case(&(ls_case){5, 0, 3, 6, 0, 0, 0, 5, 0, 5, 5, -1, {0}, 1, 1}, 20);
  run_case(&(ls_case){5, 0, 3, 6, 1, 1, 0, 5, 0, 5, 5, -1, {0}, 0, 2}, 21);
  run_case(&(ls_case){5, 2, 3, 0, 2, 2, 0, 5, 0, 5, 5, -1, {0}, 1, 1}, 22);
  run_case(&(ls_case){5, 2, 3, 0, 2, 2, 0, 5, 0, 5, 5, 1, {0}, 0, 1}, 23);
  run_case(&(ls_case){5, 2, 0, 6, 2, 2, 0, 5, 0, 5, 5, -1, {0}, 1, 1}, 24);
  run_case(&(ls_case){5, 2, 0, 20, 2, 2, 0, 5, 0, 5, 5, -1, {0}, 0, 1}, 25);
}

static void test_long_sequence(void) {
  watchdog(1);
  /* 300 steps of 8 x 512 projections: blocks of 128 steps */
  tfs_tensor *out[NOUT];
  run_case_out(&(ls_case){300, 8, 8, 128, 8, 8, 0, 300, 0, 300, 300, -1,
                          {0}, 1, 2},
               26, 1e-4, out);
  free_outs(out);
  watchdog(0);
}

/* 1 and 4 threads, sharing every step (and by the default rule), give
 * the same bits; so do constant and fed weights.  Batches 8, 9, 13 and
 * 16 on four threads split their rows (two to four a task, their own
 * input projections where x has a row each; h and c, or x, broadcast),
 * batch 7 and 1 share each step's chunks.  Batch 13 on one thread has a
 * last block of one row, batch 16 on four a task of four rows (three
 * and one on AVX2): a group of one row sums in the order of the others
 * unless the batch is one row. */
static void test_threads_bits(void) {
  watchdog(1);
  static const ls_case kCases[] = {
      {24, 8, 64, 128, 8, 8, 0, 24, 0, 24, 24, -1, {0}, 1, 1},
      {24, 7, 9, 100, 1, 7, 0, 24, 0, 24, 24, 3, {1, 3, 0, 2}, 0, 1},
      {24, 1, 64, 128, 1, 1, 2, 24, 1, 24, 24, -1, {0}, 1, 1},
      /* rows split with one row of h and c for all, then of x */
      {24, 8, 9, 20, 1, 1, 0, 24, 0, 24, 24, -1, {0}, 0, 1},
      {24, 1, 9, 20, 9, 9, 0, 24, 0, 24, 24, 2, {0}, 1, 1},
      {12, 13, 9, 20, 13, 13, 0, 12, 0, 12, 12, -1, {0}, 1, 1},
      {12, 16, 9, 20, 16, 16, 0, 12, 0, 12, 12, -1, {0}, 0, 1},
  };
  for (size_t i = 0; i < sizeof kCases / sizeof kCases[0]; i++) {
    tfs_tensor *one[NOUT], *four[NOUT], *dflt[NOUT];
    ls_case k = kCases[i];
    run_case_out(&k, 30 + (unsigned)i, 1e-5, one);
    int64_t old = tfs_lstm_seq__set_min_step_ns(0);
    k.threads = 4;
    int64_t split = tfs_lstm_seq__row_blocks();
    int64_t shared = tfs_lstm_seq__split_projections();
    int64_t own = tfs_lstm_seq__task_projections();
    run_case_out(&k, 30 + (unsigned)i, 1e-5, four);
    CU_ASSERT_EQUAL(tfs_lstm_seq__row_blocks() > split, case_rows(&k) >= 8);
    /* OpenBLAS's sums depend on a call's rows: there, one call a block */
    CU_ASSERT_EQUAL(tfs_lstm_seq__split_projections() > shared,
                    tfs_gemm_panel_rows() > 1);
    CU_ASSERT_EQUAL(tfs_lstm_seq__task_projections() > own,
                    tfs_gemm_panel_rows() > 1 && case_rows(&k) >= 8 &&
                        k.bx > 1);
    tfs_lstm_seq__set_min_step_ns(old);
    run_case_out(&k, 30 + (unsigned)i, 1e-5, dflt);
    CU_ASSERT_TRUE(same_bits(one, four));
    CU_ASSERT_TRUE(same_bits(one, dflt));
    free_outs(four);
    k.consts = !k.consts;
    run_case_out(&k, 30 + (unsigned)i, 1e-5, four);
    CU_ASSERT_TRUE(same_bits(one, four));
    free_outs(one);
    free_outs(four);
    free_outs(dflt);
  }
  watchdog(0);
}

/* Each instruction-set path this CPU runs, in this process. */
static void test_paths(void) {
  watchdog(1);
  static const struct {
    int isa;
    const char *name;
  } kPaths[] = {{TFS_CPU_ISA_AVX512, "avx512"},
                {TFS_CPU_ISA_AVX2, "avx2"},
                {TFS_CPU_ISA_BASELINE, "portable"}};
  for (int i = 0; i < 3; i++) {
    const char *why = tu_isa_unavailable(kPaths[i].isa);
    tu_cpu_path("lstm_seq", kPaths[i].name, why);
    if (why) continue;
    tfs_cpu__set_max_isa(kPaths[i].isa);
    int lanes;
    tfs_lstm__chunk_path(&lanes);
    CU_ASSERT_EQUAL(lanes, kPaths[i].isa == TFS_CPU_ISA_AVX512 ? 16 : 8);
    run_case(&(ls_case){20, 7, 5, 20, 7, 1, 0, 20, 0, 20, 20, -1,
                        {2, 0, 3, 1}, 1, 1},
             40 + (unsigned)i);
    run_case(&(ls_case){20, 1, 6, 37, 1, 1, 0, 20, 0, 20, 20, 0, {0}, 0, 1},
             50 + (unsigned)i);
    int64_t old = tfs_lstm_seq__set_min_step_ns(0);
    run_case(&(ls_case){20, 3, 6, 37, 3, 3, 0, 20, 0, 20, 20, -1, {0}, 1, 3},
             60 + (unsigned)i);
    tfs_lstm_seq__set_min_step_ns(old);
    tfs_cpu__set_max_isa(-1);
  }
  watchdog(0);
}

/* ---- errors ----------------------------------------------------------------
 * A valid loop (5 steps, batch 2, depth 5, 6 units) with one thing
 * changed at a time. */

static const ls_case kBase = {5, 2, 5, 6, 2, 2, 0, 5, 0, 5, 5, -1, {0}, 0, 1};

static void replace(tfs_tensor **slot, tfs_tensor *t) {
  tfs_tensor_free(*slot);
  *slot = t;
}

static void test_error_list_reads(void) {
  ls_in in;
  ls_case k = kBase;
  k.T = 7;
  k.max_iter = k.limit = 9;
  k.out_n = 9;
  case_inputs(&k, 70, &in);
  expect_error(&in, "Trying to access element 7 in a list with 7 elements.");
  in.scal[2] = -1; /* time */
  expect_error(&in, "Trying to access element -1 in a list with 7 elements.");
  free_inputs(&in);
  /* unset elements read as TensorListGetItem reads them: zeros of the
   * list's element shape merged with its set elements', which must be
   * fully defined */
  case_inputs(&kBase, 71, &in);
  tfs_tensor *items[5] = {NULL, NULL, NULL, NULL, NULL};
  in.items = items;
  in.nitems = 5;
  in.in_es[0] = -1;
  in.in_es[1] = 5;
  expect_error(&in, "Trying to read an uninitialized tensor but "
                    "element_shape is not fully defined: [?,5] and no list "
                    "element is set.");
  free_inputs(&in);
  /* an int32 list */
  case_inputs(&kBase, 72, &in);
  int32_t iv[50] = {0};
  replace(&in.x, i32s(3, (int64_t[]){5, 2, 5}, iv));
  expect_error(&in, "Invalid data types; op elements float but list "
                    "elements int32");
  free_inputs(&in);
  /* a counter that is not a scalar */
  case_inputs(&kBase, 73, &in);
  in.counter = i32s(1, (int64_t[]){2}, (int32_t[]){0, 0});
  expect_error(&in, "counter must be a scalar, got shape [2]");
  tfs_tensor_free(in.counter);
  free_inputs(&in);
}

/* Unset elements of a fully defined shape are zeros; set ones of another
 * shape than the first step's are refused (or fail as the loop's AddV2
 * fails). */
static void test_unset_and_mixed_items(void) {
  ls_in in;
  case_inputs(&kBase, 74, &in);
  tfs_tensor *x0 = randt((int64_t[]){2, 5}, 2, 1.0f, 75);
  tfs_tensor *items[5] = {NULL, x0, NULL, NULL, NULL};
  in.items = items;
  in.nitems = 5;
  in.in_es[0] = in.in_es[1] = -1;
  tfs_tensor *with_items[NOUT];
  char msg[2048];
  tfs_code code = run_seq(&in, with_items, msg, sizeof msg);
  if (code != TFS_OK) fprintf(stderr, "\n  %s\n", msg);
  CU_ASSERT_EQUAL_FATAL(code, TFS_OK);
  /* the same loop over a sequence of zeros but at step 1 */
  float *xv = tfs_tensor_data(in.x);
  memset(xv, 0, sizeof(float) * 50);
  memcpy(xv + 10, tfs_tensor_data(x0), sizeof(float) * 10);
  in.items = NULL;
  tfs_tensor *with_x[NOUT];
  code = run_seq(&in, with_x, msg, sizeof msg);
  CU_ASSERT_EQUAL_FATAL(code, TFS_OK);
  CU_ASSERT_TRUE(same_bits(with_items, with_x));
  free_outs(with_items);
  free_outs(with_x);
  /* an unset element's shape merges every set one's */
  in.items = items;
  items[3] = randt((int64_t[]){1, 5}, 2, 1.0f, 76);
  expect_error(&in, "Incompatible shapes during merge: [2,5] vs. [1,5]");
  items[0] = items[2] = items[4] = x0;
  expect_error(&in, "input_list element 3 has shape [1,5] and element 0 "
                    "[2,5]: _TfsLstmSequence takes one shape for every "
                    "step");
  replace(&items[3], randt((int64_t[]){3, 5}, 2, 1.0f, 77));
  expect_error(&in, "Incompatible shapes: [3,24] vs. [2,24] (input_list "
                    "element 3 . kernel vs. h . recurrent_kernel)");
  replace(&items[3], randt((int64_t[]){2, 4}, 2, 1.0f, 78));
  expect_error(&in, "Matrix size-incompatible: In[0]: [2,4], In[1]: [5,24] "
                    "(In[0]: input_list element 3, In[1]: kernel)");
  tfs_tensor_free(items[3]);
  tfs_tensor_free(x0);
  free_inputs(&in);
}

static void test_error_shapes(void) {
  ls_in in;
  case_inputs(&kBase, 80, &in);
  replace(&in.k, randt((int64_t[]){4, 24}, 2, 0.3f, 81));
  expect_error(&in, "Matrix size-incompatible: In[0]: [2,5], In[1]: [4,24] "
                    "(In[0]: input_list element 0, In[1]: kernel)");
  free_inputs(&in);
  case_inputs(&kBase, 82, &in);
  replace(&in.h, randt((int64_t[]){2, 5}, 2, 0.3f, 83));
  expect_error(&in, "Matrix size-incompatible: In[0]: [2,5], In[1]: [6,24] "
                    "(In[0]: h, In[1]: recurrent_kernel)");
  replace(&in.h, randt((int64_t[]){3, 6}, 2, 0.3f, 84));
  expect_error(&in, "Incompatible shapes: [2,24] vs. [3,24]");
  replace(&in.h, randt((int64_t[]){2, 6}, 2, 0.3f, 85));
  replace(&in.c, randt((int64_t[]){3, 6}, 2, 0.3f, 86));
  expect_error(&in, "Incompatible shapes: [2,6] vs. [3,6] (the gates vs. c)");
  replace(&in.c, randt((int64_t[]){2, 1}, 2, 0.3f, 87));
  expect_error(&in, "c has shape [2,1]: _TfsLstmSequence takes [2,6] or "
                    "[1,6]");
  replace(&in.c, randt((int64_t[]){6}, 1, 0.3f, 88));
  expect_error(&in, "c has shape [6]: _TfsLstmSequence takes [2,6] or "
                    "[1,6]");
  replace(&in.c, randt((int64_t[]){2, 6}, 2, 0.3f, 89));
  replace(&in.b, randt((int64_t[]){20}, 1, 0.3f, 90));
  expect_error(&in, "Must provide as many biases as the last dimension of "
                    "the input tensor: [20] vs. [2,24] (bias)");
  free_inputs(&in);
  /* 10 gate columns do not split in 4 */
  case_inputs(&kBase, 91, &in);
  replace(&in.k, randt((int64_t[]){5, 10}, 2, 0.3f, 92));
  replace(&in.r, randt((int64_t[]){6, 10}, 2, 0.3f, 93));
  replace(&in.b, randt((int64_t[]){10}, 1, 0.3f, 94));
  expect_error(&in, "Number of ways to split should evenly divide the split "
                    "dimension, but got split_dim 1 (size = 10) and "
                    "num_split 4");
  free_inputs(&in);
  /* the recurrent kernel takes h of 5 units but the gates give 6: the
   * second step's product fails */
  case_inputs(&kBase, 95, &in);
  replace(&in.h, randt((int64_t[]){2, 5}, 2, 0.3f, 96));
  replace(&in.r, randt((int64_t[]){5, 24}, 2, 0.3f, 97));
  expect_error(&in, "Matrix size-incompatible: In[0]: [2,6], In[1]: [5,24] "
                    "(In[0]: h after a step, In[1]: recurrent_kernel)");
  replace(&in.r, randt((int64_t[]){5, 1}, 2, 0.3f, 98));
  expect_error(&in, "kernel has shape [5,24] and recurrent_kernel [5,1]: "
                    "_TfsLstmSequence takes as many columns in both");
  free_inputs(&in);
}

static void test_error_list_writes(void) {
  ls_in in;
  case_inputs(&kBase, 100, &in);
  in.out_n = 1;
  in.scal[2] = 3; /* time */
  expect_error(&in, "Trying to modify element 3 in a list with 1 elements.");
  in.out_index = 4;
  in.scal[2] = 0;
  expect_error(&in, "Trying to modify element 4 in a list with 1 elements.");
  in.out_index = -1;
  in.out_n = 5;
  in.out_es[0] = 3;
  expect_error(&in, "Tried to set item with incompatible shape. Item "
                    "element shape: [2,6] list shape: [3,6]");
  free_inputs(&in);
}

static void test_error_attrs(void) {
  ls_in in;
  case_inputs(&kBase, 110, &in);
  int64_t bad[4] = {0, 1, 1, 3};
  memcpy(in.order, bad, sizeof bad);
  in.norder = 4;
  expect_error(&in, "gate_order must be a permutation of [0, 1, 2, 3] (the "
                    "column blocks of the input, forget, cell and output "
                    "gates), got [0, 1, 1, 3]");
  in.norder = 3;
  expect_error(&in, "got [0, 1, 1]");
  in.norder = 0;
  in.out_index = -2;
  expect_error(&in, "output_index must be -1 (each step's h at its time) or "
                    "an index >= 0, got -2");
  free_inputs(&in);
}

/* The shape function: scalars and the list; h and c keep their shapes
 * but for a first dimension of 1, which the batch may broadcast. */
static void test_shapes(void) {
  tfs_status *st = tfs_status_new();
  tfs_graph *g = tfs_graph_new();
  tfs_output in[11];
  static const int64_t kH[2] = {3, 6}, kC[2] = {1, 6};
  for (int i = 0; i < 11; i++) {
    char name[8];
    snprintf(name, sizeof name, "in%d", i);
    tfs_dtype dt = i < 4 ? TFS_INT32 : i == 4 || i == 7 ? TFS_VARIANT
                                                         : TFS_FLOAT;
    in[i] = tfs_op_placeholder(g, name, dt, i == 5 ? kH : kC,
                               i == 5 || i == 6 ? 2 : -1, st);
  }
  tfs_op_desc *d = tfs_op_desc_new(g, "_TfsLstmSequence", "n");
  for (int i = 0; i < 11; i++) tfs_op_desc_add_input(d, in[i]);
  tfs_operation *op = tfs_op_desc_finish(d, st);
  TFS_ASSERT_OK(st);
  for (int i = 0; i < 3; i++)
    CU_ASSERT_EQUAL(tfs_graph_tensor_num_dims(g, (tfs_output){op, i}, st), 0);
  int64_t dims[2];
  tfs_graph_tensor_shape(g, (tfs_output){op, 3}, dims, 2, st);
  CU_ASSERT_TRUE(dims[0] == 3 && dims[1] == 6);
  tfs_graph_tensor_shape(g, (tfs_output){op, 4}, dims, 2, st);
  CU_ASSERT_TRUE(dims[0] == -1 && dims[1] == 6);
  TFS_ASSERT_OK(st);
  tfs_graph_free(g);
  tfs_status_free(st);
}

/* Out of memory anywhere in a run: an error, nothing leaked. */
static void test_out_of_memory(void) {
  watchdog(1);
  int64_t old = tfs_lstm_seq__set_min_step_ns(0);
  run_case_oom(&(ls_case){6, 2, 5, 20, 2, 1, 0, 6, 0, 6, 6, -1, {0}, 1, 2},
               120);
  tfs_lstm_seq__set_min_step_ns(old);
  run_case_oom(&(ls_case){6, 2, 5, 20, 1, 2, 0, 6, 0, 6, 6, 2, {0}, 0, 1},
               121);
  watchdog(0);
}

static const tfs_test_case kCases[] = {
    {"shapes", test_shapes},
    {"return_sequences", test_return_sequences},
    {"output_index", test_output_index},
    {"gate_order", test_gate_order},
    {"keras_sizes", test_keras_sizes},
    {"broadcast", test_broadcast},
    {"step_count", test_step_count},
    {"empty", test_empty},
    {"long_sequence", test_long_sequence},
    {"threads_bits", test_threads_bits},
    {"paths", test_paths},
    {"error_list_reads", test_error_list_reads},
    {"unset_and_mixed_items", test_unset_and_mixed_items},
    {"error_shapes", test_error_shapes},
    {"error_list_writes", test_error_list_writes},
    {"error_attrs", test_error_attrs},
    {"out_of_memory", test_out_of_memory},
    {NULL, NULL},
};

const tfs_test_suite tfs_test_suites[] = {
    {"lstm_seq", kCases},
    {NULL, NULL},
};
