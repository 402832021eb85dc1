/*
 * bench/tfs_bench.c - tfsess's side of the benchmark harness: times a
 * GraphDef through tfs_session_run or a callable (one or more threads)
 * and prints one JSON line (per-run microseconds, peak RSS, checksum);
 * `--config FILE` sets the session's options from ConfigProto bytes;
 * `--target OP` runs OP with every fetch (a training step) and `--init
 * OP` runs OP once first (a variable initializer);
 * `--save-output FILE.npy` writes the first run's output (the harness
 * compares it with TensorFlow's);
 * `--gemm N` times N^3 SGEMM of tfsess against OpenBLAS instead;
 * `--bf16 N` times, on one thread, an N^3 product and a 784-512-512-10
 * MLP at batch 64 in float32 and in bfloat16 (AMX, vdpbf16ps, then widened
 * to float32; a path the CPU lacks reports 0) instead.
 */

/*
 * harness.py runs the same protocol in tf_bench.py and ort_bench.py
 * (benchlib.py): warm up, then samples of back-to-back runs.
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "config_proto/config.h"
#include "core/cpu.h"
#include "core/half.h"
#include "core/threadpool.h"
#include "core/util.h"
#include "backends/cpu/gemm.h"
#include "tfsess/tfsess.h"

extern char *openblas_get_corename(void) __attribute__((weak));
extern void openblas_set_num_threads(int n) __attribute__((weak));
extern void cblas_sgemm(int, int, int, int, int, int, float, const float *,
                        int, const float *, int, float, float *, int);

#define MAX_FEEDS 8
#define MAX_SAMPLES 400

typedef struct {
  const char *pb, *fetch, *mode, *config, *save, *target, *init;
  const char *feed_names[MAX_FEEDS], *feed_files[MAX_FEEDS];
  int nfeeds, threads, gemm, bf16;
  double seconds;
} args;

typedef struct {
  tfs_session *s;
  tfs_callable *c;
  tfs_output feeds[MAX_FEEDS], fetch;
  tfs_tensor *in[MAX_FEEDS];
  tfs_operation *target; /* run with each fetch (a training step), or NULL */
  int nfeeds, callable;
} engine;

static void die(const char *what, const tfs_status *st) {
  fprintf(stderr, "tfs_bench: %s: %s\n", what, st ? tfs_status_message(st)
                                                  : "");
  exit(1);
}

/* One run; returns the fetched tensor (caller frees). */
static tfs_tensor *run_once(engine *e, tfs_status *st) {
  tfs_tensor *out = NULL;
  if (e->callable)
    tfs_callable_run(e->c, e->in, e->nfeeds, &out, 1, st);
  else
    tfs_session_run(e->s, e->feeds, e->in, e->nfeeds, &e->fetch, &out, 1,
                    e->target ? &e->target : NULL, e->target ? 1 : 0, st);
  if (!tfs_status_ok(st)) die("run", st);
  return out;
}

typedef struct {
  engine *e;
  int64_t k;
  pthread_barrier_t *start;
} worker;

static void *work(void *arg) {
  worker *w = arg;
  tfs_status *st = tfs_status_new();
  pthread_barrier_wait(w->start);
  for (int64_t i = 0; i < w->k; i++) tfs_tensor_free(run_once(w->e, st));
  tfs_status_free(st);
  return NULL;
}

/* Wall time of `threads` threads doing k runs each, per run, in us. */
static double sample(engine *e, int threads, int64_t k) {
  tfs_status *st = tfs_status_new();
  double us;
  if (threads == 1) {
    int64_t t0 = tfs_now_ns();
    for (int64_t i = 0; i < k; i++) tfs_tensor_free(run_once(e, st));
    us = (double)(tfs_now_ns() - t0) / 1e3 / (double)k;
  } else {
    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, (unsigned)threads + 1);
    pthread_t th[64];
    worker w = {e, k, &start};
    for (int t = 0; t < threads; t++) pthread_create(&th[t], NULL, work, &w);
    pthread_barrier_wait(&start);
    int64_t t0 = tfs_now_ns();
    for (int t = 0; t < threads; t++) pthread_join(th[t], NULL);
    us = (double)(tfs_now_ns() - t0) / 1e3 / (double)(k * threads);
    pthread_barrier_destroy(&start);
  }
  tfs_status_free(st);
  return us;
}

static long rss_kb(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss;
}

/* The whole file; *len gets its size.  Caller frees. */
static char *read_file(const char *path, long *len) {
  FILE *f = fopen(path, "rb");
  if (!f) die(path, NULL);
  fseek(f, 0, SEEK_END);
  *len = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *bytes = malloc((size_t)*len + 1);
  if (!bytes || fread(bytes, 1, (size_t)*len, f) != (size_t)*len)
    die(path, NULL);
  fclose(f);
  return bytes;
}

static int run_model(const args *a) {
  tfs_status *st = tfs_status_new();
  long len;
  char *bytes = read_file(a->pb, &len);
  tfs_graph *g = tfs_graph_new();
  tfs_import_results *r = tfs_graph_import_graphdef(g, bytes, (size_t)len,
                                                    NULL, st);
  if (!r) die("import", st);
  tfs_import_results_free(r);
  free(bytes);
  engine e = {0};
  tfs_session_options *opts = NULL;
  if (a->config) {
    opts = tfs_session_options_new();
    bytes = read_file(a->config, &len);
    tfs_session_options_set_config(opts, bytes, (size_t)len, st);
    if (!tfs_status_ok(st)) die(a->config, st);
    free(bytes);
  }
  e.s = tfs_session_new(g, opts, st);
  tfs_session_options_free(opts);
  if (!e.s) die("session", st);
  e.nfeeds = a->nfeeds;
  e.callable = strcmp(a->mode, "callable") == 0;
  for (int i = 0; i < a->nfeeds; i++) {
    e.feeds[i] = tfs_graph_output_by_name(g, a->feed_names[i], st);
    if (!e.feeds[i].oper) die(a->feed_names[i], st);
    e.in[i] = tfs_npy_read(a->feed_files[i], st);
    if (!e.in[i]) die(a->feed_files[i], st);
  }
  e.fetch = tfs_graph_output_by_name(g, a->fetch, st);
  if (!e.fetch.oper) die(a->fetch, st);
  if (a->target && !(e.target = tfs_graph_operation_by_name(g, a->target)))
    die(a->target, NULL);
  if (a->init) {
    tfs_operation *init = tfs_graph_operation_by_name(g, a->init);
    if (!init) die(a->init, NULL);
    tfs_session_run(e.s, NULL, NULL, 0, NULL, NULL, 0, &init, 1, st);
    if (!tfs_status_ok(st)) die(a->init, st);
  }
  if (e.callable) {
    e.c = tfs_session_make_callable(e.s, e.feeds, e.nfeeds, &e.fetch, 1,
                                    e.target ? &e.target : NULL,
                                    e.target ? 1 : 0, NULL, st);
    if (!e.c) die("callable", st);
  }
  /* checksum of one output, then warm up (plans, memory plans, caches) */
  tfs_tensor *out = run_once(&e, st);
  double sum = 0;
  const float *d = tfs_tensor_data(out);
  for (int64_t i = 0; i < tfs_tensor_num_elements(out); i++) sum += d[i];
  if (a->save) {
    tfs_npy_write(a->save, out, st);
    if (!tfs_status_ok(st)) die(a->save, st);
  }
  tfs_tensor_free(out);
  int64_t t0 = tfs_now_ns(), warm = 0;
  while (warm < 20 || tfs_now_ns() - t0 < 300000000LL) {
    tfs_tensor_free(run_once(&e, st));
    warm++;
  }
  double per_run_ns = (double)(tfs_now_ns() - t0) / (double)warm;
  int64_t k = (int64_t)ceil(20e6 / per_run_ns / a->threads);
  if (k < 1) k = 1;
  double us[MAX_SAMPLES];
  int n = 0;
  int64_t end = tfs_now_ns() + (int64_t)(a->seconds * 1e9);
  while (n < MAX_SAMPLES && (n < 7 || tfs_now_ns() < end))
    us[n++] = sample(&e, a->threads, k);
  printf("{\"engine\": \"tfsess\", \"us\": [");
  for (int i = 0; i < n; i++) printf("%s%.4f", i ? ", " : "", us[i]);
  printf("], \"runs_per_sample\": %lld, \"rss_kb\": %ld, "
         "\"checksum\": %.6g, \"gemm\": \"%s\"}\n",
         (long long)k, rss_kb(), sum, tfs_gemm_describe());
  for (int i = 0; i < e.nfeeds; i++) tfs_tensor_free(e.in[i]);
  tfs_callable_free(e.c);
  tfs_session_free(e.s);
  tfs_graph_free(g);
  tfs_status_free(st);
  return 0;
}

/* ---- GEMM ------------------------------------------------------------------- */

static double best_gflops(int n, const float *a, const float *b, float *c,
                          int which, tfs_threadpool *pool) {
  double best = 0;
  for (int r = 0; r < 7; r++) {
    int64_t t0 = tfs_now_ns();
    if (which)
      tfs_gemm_f32(0, 0, n, n, n, 1.0f, a, n, b, n, 0.0f, c, n, pool);
    else
      cblas_sgemm(101 /* row major */, 111, 111, n, n, n, 1.0f, a, n, b, n,
                  0.0f, c, n);
    double s = (double)(tfs_now_ns() - t0) / 1e9;
    double gf = 2.0 * n * n * (double)n / s / 1e9;
    if (r > 0 && gf > best) best = gf; /* the first is warm-up */
  }
  return best;
}

static int run_gemm(int n) {
  float *a = malloc(sizeof(float) * (size_t)n * n);
  float *b = malloc(sizeof(float) * (size_t)n * n);
  float *c = malloc(sizeof(float) * (size_t)n * n);
  for (size_t i = 0; i < (size_t)n * n; i++) {
    a[i] = (float)((i * 7) % 13) / 13.0f - 0.5f;
    b[i] = (float)((i * 5) % 11) / 11.0f - 0.5f;
  }
  int cores = tfs_num_cores();
  /* OpenBLAS as the process loaded it (OPENBLAS_CORETYPE from the
   * environment is honoured).  Its multi-threaded run comes last: its
   * workers spin for a while after each call (and after loading, which
   * the one-thread run covers) and would take a core from tfsess's pool. */
  if (openblas_set_num_threads) openblas_set_num_threads(1);
  double ob1 = best_gflops(n, a, b, c, 0, NULL);
  tfs_status *st = tfs_status_new();
  tfs_threadpool *pool = tfs_threadpool_new("bench", cores, st);
  double t1 = best_gflops(n, a, b, c, 1, NULL);
  double tn = best_gflops(n, a, b, c, 1, pool);
  if (openblas_set_num_threads) openblas_set_num_threads(cores);
  double obn = best_gflops(n, a, b, c, 0, NULL);
  printf("{\"engine\": \"gemm\", \"n\": %d, \"cores\": %d, "
         "\"openblas_core\": \"%s\", \"openblas_1t\": %.2f, "
         "\"openblas_nt\": %.2f, \"tfsess_1t\": %.2f, \"tfsess_nt\": %.2f, "
         "\"tfsess_path\": \"%s\"}\n",
         n, cores, openblas_get_corename ? openblas_get_corename() : "?", ob1,
         obn, t1, tn, tfs_gemm_describe());
  tfs_threadpool_free(pool);
  tfs_status_free(st);
  free(a);
  free(b);
  free(c);
  return 0;
}

/* ---- bfloat16 --------------------------------------------------------- */

/* Best GFLOP/s of 7 runs (the first a warm-up) of an n^3 product in
 * float32 (bf == 0) or bfloat16 (bf == 1) on the path in force. */
static double best_bf16(int n, const float *af, const float *bf_,
                        const uint16_t *a, const uint16_t *b, float *c,
                        int bf) {
  double best = 0;
  for (int r = 0; r < 7; r++) {
    int64_t t0 = tfs_now_ns();
    if (bf)
      tfs_gemm_bf16(0, 0, n, n, n, a, n, b, n, c, n, NULL);
    else
      tfs_gemm_f32(0, 0, n, n, n, 1.0f, af, n, bf_, n, 0.0f, c, n, NULL);
    double s = (double)(tfs_now_ns() - t0) / 1e9;
    double gf = 2.0 * n * n * (double)n / s / 1e9;
    if (r > 0 && gf > best) best = gf;
  }
  return best;
}

/* A float32 MLP x[64,784] -> 512 -> 512 -> 10 (MatMul + BiasAdd + Relu). */
static tfs_graph *mlp_graph(tfs_output *x, tfs_output *y) {
  static const int64_t dims[4] = {784, 512, 512, 10};
  tfs_status *st = tfs_status_new();
  tfs_graph *g = tfs_graph_new();
  *x = tfs_op_placeholder(g, "x", TFS_FLOAT, NULL, -1, st);
  tfs_output h = *x;
  for (int l = 0; l < 3; l++) {
    int64_t wd[2] = {dims[l], dims[l + 1]};
    tfs_tensor *w = tfs_tensor_new(TFS_FLOAT, wd, 2, st);
    tfs_tensor *bias = tfs_tensor_new(TFS_FLOAT, wd + 1, 1, st);
    float *p = tfs_tensor_data(w), *q = tfs_tensor_data(bias);
    for (int64_t i = 0; i < wd[0] * wd[1]; i++)
      p[i] = (float)((i * 7) % 13) / 130.0f - 0.05f;
    for (int64_t i = 0; i < wd[1]; i++) q[i] = 0.01f * (float)(i % 5);
    char name[16];
    snprintf(name, sizeof name, "w%d", l);
    tfs_output wo = tfs_op_const(g, name, w, st);
    snprintf(name, sizeof name, "b%d", l);
    tfs_output bo = tfs_op_const(g, name, bias, st);
    snprintf(name, sizeof name, "m%d", l);
    h = tfs_op_matmul(g, name, h, wo, 0, 0, st);
    snprintf(name, sizeof name, "a%d", l);
    h = tfs_op_bias_add(g, name, h, bo, st);
    if (l < 2) {
      snprintf(name, sizeof name, "r%d", l);
      tfs_op_desc *d = tfs_op_desc_new(g, "Relu", name);
      tfs_op_desc_add_input(d, h);
      h = (tfs_output){tfs_op_desc_finish(d, st), 0};
    }
    tfs_tensor_free(w);
    tfs_tensor_free(bias);
  }
  if (!tfs_status_ok(st)) die("MLP", st);
  tfs_status_free(st);
  *y = h;
  return g;
}

/* Best microseconds per run of the MLP on one thread, auto mixed
 * precision on (amp) or off. */
static double mlp_us(tfs_graph *g, tfs_output x, tfs_output y, int amp) {
  tfs_status *st = tfs_status_new();
  tfs_session_options *o = tfs_session_options_new();
  tfs_session_options_set_intra_op_threads(o, 1);
  tfs_session_options_set_inter_op_threads(o, -1);
  if (amp) {
    tfs_config cfg;
    tfs_config__init(&cfg);
    cfg.has_graph_options = 1;
    cfg.graph_options.has_rewrite_options = 1;
    cfg.graph_options.rewrite_options.auto_mixed_precision_onednn_bfloat16 =
        TFS_TOGGLE_ON;
    tfs_buffer *buf = tfs_buffer_new();
    tfs_config__serialize(&cfg, buf, st);
    tfs_session_options_set_config(o, buf->data, buf->length, st);
    tfs_buffer_free(buf);
    tfs_config__clear(&cfg);
  }
  tfs_cpu__set_bf16(amp);
  tfs_session *s = tfs_session_new(g, o, st);
  if (!s) die("session", st);
  int64_t xd[2] = {64, 784};
  tfs_tensor *xt = tfs_tensor_new(TFS_FLOAT, xd, 2, st);
  float *p = tfs_tensor_data(xt);
  for (int64_t i = 0; i < 64 * 784; i++) p[i] = (float)(i % 17) / 17.0f;
  double best = 1e30;
  for (int r = 0; r < 40; r++) {
    tfs_tensor *out = NULL;
    int64_t t0 = tfs_now_ns();
    tfs_session_run(s, &x, &xt, 1, &y, &out, 1, NULL, 0, st);
    double us = (double)(tfs_now_ns() - t0) / 1e3;
    if (!out) die("run", st);
    tfs_tensor_free(out);
    if (r > 2 && us < best) best = us;
  }
  tfs_cpu__set_bf16(-1);
  tfs_tensor_free(xt);
  tfs_session_free(s);
  tfs_session_options_free(o);
  tfs_status_free(st);
  return best;
}

static int run_bf16(int n) {
  size_t nn = (size_t)n * n;
  float *af = malloc(sizeof(float) * nn), *bf = malloc(sizeof(float) * nn);
  float *c = malloc(sizeof(float) * nn);
  uint16_t *a = malloc(sizeof(uint16_t) * nn);
  uint16_t *b = malloc(sizeof(uint16_t) * nn);
  for (size_t i = 0; i < nn; i++) {
    af[i] = (float)((i * 7) % 13) / 13.0f - 0.5f;
    bf[i] = (float)((i * 5) % 11) / 11.0f - 0.5f;
    a[i] = tfs_float_to_bf16(af[i]);
    b[i] = tfs_float_to_bf16(bf[i]);
  }
  tfs_gemm_init();
  tfs_output x, y;
  tfs_graph *g = mlp_graph(&x, &y);
  double f32 = best_bf16(n, af, bf, a, b, c, 0), mf = mlp_us(g, x, y, 0);
  tfs_cpu__set_amx(1); /* where the CPU has it */
  int amx = tfs_cpu_has_amx();
  double xa = amx ? best_bf16(n, af, bf, a, b, c, 1) : 0;
  double mx = amx ? mlp_us(g, x, y, 1) : 0;
  tfs_cpu__set_amx(0);
  tfs_cpu__set_bf16_dot(1); /* where the CPU has it */
  int dot = tfs_cpu_has_bf16_dot();
  double d = dot ? best_bf16(n, af, bf, a, b, c, 1) : 0;
  double md = dot ? mlp_us(g, x, y, 1) : 0;
  tfs_cpu__set_bf16_dot(0);
  double w = best_bf16(n, af, bf, a, b, c, 1), mw = mlp_us(g, x, y, 1);
  tfs_cpu__set_bf16_dot(-1);
  tfs_cpu__set_amx(-1);
  printf("{\"engine\": \"bf16\", \"n\": %d, \"gflops_f32\": %.1f, "
         "\"gflops_bf16_amx\": %.1f, "
         "\"gflops_bf16_dot\": %.1f, \"gflops_bf16_widen\": %.1f, "
         "\"mlp_us_f32\": %.0f, \"mlp_us_amp_amx\": %.0f, "
         "\"mlp_us_amp_dot\": %.0f, "
         "\"mlp_us_amp_widen\": %.0f, \"f32_path\": \"%s\"}\n",
         n, f32, xa, d, w, mf, mx, md, mw, tfs_gemm_describe());
  tfs_graph_free(g);
  free(af);
  free(bf);
  free(c);
  free(a);
  free(b);
  return 0;
}

int main(int argc, char **argv) {
  args a = {.mode = "callable", .threads = 1, .seconds = 1.0};
  for (int i = 1; i < argc; i++) {
    const char *v = i + 1 < argc ? argv[i + 1] : "";
    if (!strcmp(argv[i], "--pb")) {
      a.pb = v, i++;
    } else if (!strcmp(argv[i], "--fetch")) {
      a.fetch = v, i++;
    } else if (!strcmp(argv[i], "--config")) {
      a.config = v, i++;
    } else if (!strcmp(argv[i], "--target")) {
      a.target = v, i++;
    } else if (!strcmp(argv[i], "--init")) {
      a.init = v, i++;
    } else if (!strcmp(argv[i], "--save-output")) {
      a.save = v, i++;
    } else if (!strcmp(argv[i], "--mode")) {
      a.mode = v, i++;
    } else if (!strcmp(argv[i], "--threads")) {
      a.threads = atoi(v), i++;
    } else if (!strcmp(argv[i], "--seconds")) {
      a.seconds = atof(v), i++;
    } else if (!strcmp(argv[i], "--gemm")) {
      a.gemm = atoi(v), i++;
    } else if (!strcmp(argv[i], "--bf16")) {
      a.bf16 = atoi(v), i++;
    } else if (!strcmp(argv[i], "--feed") && a.nfeeds < MAX_FEEDS) {
      char *eq = strchr(argv[i + 1], '=');
      if (!eq) die("--feed NAME=FILE.npy", NULL);
      *eq = 0;
      a.feed_names[a.nfeeds] = argv[i + 1];
      a.feed_files[a.nfeeds++] = eq + 1;
      i++;
    } else {
      fprintf(stderr, "usage: tfs_bench --pb MODEL.pb --feed NAME=FILE.npy "
                      "--fetch NAME [--target OP] [--init OP] "
                      "[--config CONFIG.pb] "
                      "[--save-output OUT.npy] "
                      "[--mode run|callable] [--threads N] [--seconds S] "
                      "| --gemm N | --bf16 N\n");
      return 2;
    }
  }
  if (a.threads < 1 || a.threads > 64) a.threads = 1;
  if (a.gemm > 0) return run_gemm(a.gemm);
  if (a.bf16 > 0) return run_bf16(a.bf16);
  if (!a.pb || !a.fetch) die("--pb and --fetch are required", NULL);
  return run_model(&a);
}
