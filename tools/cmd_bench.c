/*
 * tools/cmd_bench.c - `tfsess bench`: times a GraphDef's runs.  The
 * signature is made into a callable once (no lookups per run); warm-up
 * runs build the memory plan; then --runs timed runs (from --threads
 * threads at once, each timing its own runs).  The last line is
 * "bench: runs=N p50_us=X p90_us=Y mean_us=Z" for scripts.  Placeholders
 * without --feed get random values (bench_inputs.c).  --trace and
 * --profile trace runs after the timed ones, so that tracing costs the
 * timing nothing, after two traced runs that are not recorded: --trace
 * writes one such run (TensorFlow's timeline is per step), --profile
 * sums --runs of them by op type (cli_trace.c).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "backends/cpu/gemm.h"

typedef struct bench_args {
  tfs_cli_list feeds, fetches, targets, shapes;
  int64_t runs, warmup, threads;
  const char *trace; /* --trace FILE.json, or NULL */
  int profile;       /* --profile */
} bench_args;

static int add_feed(void *c, const char *v) {
  return tfs_cli_list_add(&((bench_args *)c)->feeds, v);
}
static int add_fetch(void *c, const char *v) {
  return tfs_cli_list_add(&((bench_args *)c)->fetches, v);
}
static int add_target(void *c, const char *v) {
  return tfs_cli_list_add(&((bench_args *)c)->targets, v);
}
static int set_runs(void *c, const char *v) {
  return tfs_cli_parse_int("runs", v, 1, 100000000, &((bench_args *)c)->runs);
}
static int set_warmup(void *c, const char *v) {
  return tfs_cli_parse_int("warmup", v, 0, 100000000,
                           &((bench_args *)c)->warmup);
}
static int set_threads(void *c, const char *v) {
  return tfs_cli_parse_int("threads", v, 1, 1024,
                           &((bench_args *)c)->threads);
}

static int add_shape(void *c, const char *v) {
  return tfs_cli_list_add(&((bench_args *)c)->shapes, v);
}
static int set_trace(void *c, const char *v) {
  ((bench_args *)c)->trace = v;
  return 0;
}
static int set_profile(void *c, const char *v) {
  ((bench_args *)c)->profile = 1;
  return 0;
}

static const tfs_cli_opt kBenchOpts[] = {
    {"feed", "NAME[:i]=FILE",
     "feed a tensor from FILE.npy, FILE.npz or FILE.npz:KEY (repeatable)",
     add_feed},
    {"fetch", "NAME[:i]", "fetch a tensor (repeatable)", add_fetch},
    {"target", "NODE", "run an operation for its effects (repeatable)",
     add_target},
    {"runs", "N", "timed runs (default 100; per thread with --threads)",
     set_runs},
    {"warmup", "N", "untimed runs first (default 10)", set_warmup},
    {"threads", "N", "call run from N threads at once (default 1)",
     set_threads},
    {"input-shape", "NAME=D0,D1,...",
     "shape of the random values fed to placeholder NAME (repeatable); "
     "without it a placeholder not given by --feed needs a fully defined "
     "shape",
     add_shape},
    {"trace", "FILE.json",
     "after the timing, run once more traced and write that run's step "
     "statistics as Chrome trace JSON (chrome://tracing, ui.perfetto.dev)",
     set_trace},
    {"profile", NULL,
     "after the timing, run --runs more times traced and print the time "
     "per op type (nodes, calls, total, mean, share), largest first",
     set_profile},
    {NULL, NULL, NULL, NULL}};

static const tfs_cli_help kBenchHelp = {
    "bench MODEL.pb [--feed NAME[:i]=FILE.npy ...] [--fetch NAME[:i] ...] "
    "[--target NODE ...] [--input-shape NAME=D0,D1,... ...] [--runs N] "
    "[--warmup N] [--threads N] [--trace FILE.json] [--profile] [options]",
    "Times runs of the graph in MODEL.pb with the given feeds (a callable:\n"
    "the signature is planned once) and prints the median, 90th percentile\n"
    "and mean wall time per run.  Every Placeholder without --feed gets\n"
    "random values (floats in [-1,1), integers in [0,10), bools) of its\n"
    "dtype, shaped by --input-shape or its own fully defined shape.\n"
    "--trace and --profile trace extra runs after the timed ones (tracing\n"
    "does not slow the timing), the first two of them warm-ups that are\n"
    "not recorded: --trace writes one, --profile prints a table of --runs of\n"
    "them by op type before the last line, which reads\n"
    "  bench: runs=N p50_us=X p90_us=Y mean_us=Z",
    1, 1};

/* the progress line of the runs (warm-up included), shared by threads */
static tfs_cli_progress g_progress = TFS_CLI_PROGRESS_INIT;

typedef struct bench_job {
  tfs_callable *c;
  tfs_tensor **in;
  int nfeeds, nfetches;
  int64_t runs, warmup;
  double *us;     /* runs entries */
  char err[512];  /* first error, or "" */
} bench_job;

static void *bench_main(void *arg) {
  bench_job *j = arg;
  tfs_status *st = tfs_status_new();
  tfs_tensor **out = calloc((size_t)j->nfetches + 1, sizeof *out);
  if (!st || !out) {
    snprintf(j->err, sizeof j->err, "out of memory");
    goto done;
  }
  for (int64_t r = 0; r < j->warmup + j->runs; r++) {
    int64_t t0 = tfs_now_ns();
    tfs_callable_run(j->c, j->in, j->nfeeds, out, j->nfetches, st);
    int64_t t1 = tfs_now_ns();
    if (!tfs_status_ok(st)) {
      snprintf(j->err, sizeof j->err, "%s", tfs_status_message(st));
      break;
    }
    for (int i = 0; i < j->nfetches; i++) {
      tfs_tensor_free(out[i]);
      out[i] = NULL;
    }
    if (r >= j->warmup) j->us[r - j->warmup] = (double)(t1 - t0) / 1000.0;
    tfs_cli_progress_add(&g_progress, 1);
  }
done:
  free(out);
  tfs_status_free(st);
  return NULL;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double percentile(const double *sorted, int64_t n, double p) {
  int64_t i = (int64_t)(p * (double)(n - 1) + 0.5);
  return sorted[i < n ? i : n - 1];
}

/* The runs of --trace and --profile, through tfs_session_run_ex (a
 * callable takes no RunOptions); returns an exit status. */
static int traced_runs(const bench_args *a, tfs_graph *g, tfs_session *s,
                       const tfs_output *fports, tfs_tensor *const *in,
                       int nf, const tfs_output *tports, int nt,
                       tfs_operation *const *targets) {
  /* two more first, not recorded: the traced runs go through
   * tfs_session_run_ex, whose run state is not the callable's, so its
   * first run plans memory from heap allocations (MobileNetV3 at batch 8:
   * one 1x1 convolution took 22 ms in that run, 3.5 ms after) and the
   * second is the first in the new arena, whose pages it touches first
   * (ResNet50 at batch 1: its Pad before the max pool took 1.4 ms in that
   * run, 0.25 ms after) */
  enum { UNRECORDED = 2 };
  int64_t n = (a->profile ? a->runs : 1) + UNRECORDED;
  tfs_tensor **out = calloc((size_t)nt + 1, sizeof *out);
  tfs_cli_profile *prof = a->profile ? tfs_cli_profile_new() : NULL;
  tfs_status *st = tfs_status_new();
  int rc = !out || !st || (a->profile && !prof)
               ? tfs_cli_error("out of memory") : TFS_CLI_OK;
  for (int64_t r = 0; rc == TFS_CLI_OK && r < n; r++) {
    tfs_buffer *md = tfs_buffer_new();
    if (!md) {
      rc = tfs_cli_error("out of memory");
      break;
    }
    tfs_cli_run_traced(s, fports, in, nf, tports, out, nt, targets,
                       a->targets.n, md, st);
    if (!tfs_status_ok(st))
      rc = tfs_cli_status_error(st);
    else if (r >= UNRECORDED && prof && tfs_cli_profile_add(prof, md, g))
      rc = TFS_CLI_FAILED;
    if (rc == TFS_CLI_OK && a->trace && r == n - 1) {
      tfs_trace_json_write(a->trace, md->data, md->length, g, st);
      if (!tfs_status_ok(st))
        rc = tfs_cli_error("--trace %s", tfs_status_message(st));
    }
    tfs_buffer_free(md);
    for (int i = 0; i < nt; i++) {
      tfs_tensor_free(out[i]);
      out[i] = NULL;
    }
  }
  if (rc == TFS_CLI_OK && prof) tfs_cli_profile_print(stdout, prof);
  tfs_cli_profile_free(prof);
  tfs_status_free(st);
  free(out);
  return rc;
}

/* Builds the callable and times it; returns an exit status. */
static int bench(bench_args *a, tfs_graph *g, tfs_session *s) {
  int nf = a->feeds.n, nt = a->fetches.n, rc = TFS_CLI_OK;
  tfs_cli_feed *feeds = calloc((size_t)nf + 1, sizeof *feeds);
  tfs_output *fports = calloc((size_t)nf + 1, sizeof *fports);
  tfs_output *tports = calloc((size_t)nt + 1, sizeof *tports);
  tfs_operation **targets = calloc((size_t)a->targets.n + 1, sizeof(void *));
  tfs_tensor **in = calloc((size_t)nf + 1, sizeof *in);
  int64_t nthreads = a->threads, total = a->runs * nthreads;
  bench_job *jobs = calloc((size_t)nthreads, sizeof *jobs);
  double *us = calloc((size_t)total, sizeof *us);
  pthread_t *th = calloc((size_t)nthreads, sizeof *th);
  tfs_callable *c = NULL;
  if (!feeds || !fports || !tports || !targets || !in || !jobs || !us ||
      !th) {
    rc = tfs_cli_error("out of memory");
    goto out;
  }
  for (int i = 0; rc == TFS_CLI_OK && i < nf; i++) {
    rc = tfs_cli_feed_parse(g, a->feeds.v[i], &feeds[i]);
    fports[i] = feeds[i].port;
    if (rc == TFS_CLI_OK && !(in[i] = tfs_cli_feed_load(&feeds[i])))
      rc = TFS_CLI_FAILED;
  }
  if (rc == TFS_CLI_OK)
    rc = tfs_cli_random_inputs(g, &a->shapes, &fports, &in, &nf);
  for (int i = 0; rc == TFS_CLI_OK && i < nt; i++)
    if (tfs_cli_resolve(g, a->fetches.v[i], "fetch", &tports[i]))
      rc = TFS_CLI_FAILED;
  if (rc == TFS_CLI_OK && tfs_cli_resolve_targets(g, &a->targets, targets))
    rc = TFS_CLI_FAILED;
  if (rc != TFS_CLI_OK) goto out;
  tfs_status *st = tfs_status_new();
  c = tfs_session_make_callable(s, fports, nf, tports, nt, targets,
                                a->targets.n, NULL, st);
  if (!c) rc = tfs_cli_status_error(st);
  tfs_status_free(st);
  if (!c) goto out;
  tfs_cli_progress_start(&g_progress, "runs",
                         (a->warmup + a->runs) * nthreads);
  for (int64_t t = 0; t < nthreads; t++) {
    jobs[t] = (bench_job){c, in, nf, nt, a->runs, a->warmup,
                          us + t * a->runs, ""};
    if (nthreads == 1)
      bench_main(&jobs[0]);
    else if (pthread_create(&th[t], NULL, bench_main, &jobs[t]) != 0) {
      jobs[t].runs = 0; /* not started: nothing to join */
      snprintf(jobs[t].err, sizeof jobs[t].err, "cannot start a thread");
    }
  }
  for (int64_t t = 0; nthreads > 1 && t < nthreads; t++)
    if (jobs[t].runs) pthread_join(th[t], NULL);
  tfs_cli_progress_finish(&g_progress, 1);
  for (int64_t t = 0; t < nthreads; t++)
    if (jobs[t].err[0]) {
      rc = tfs_cli_error("%s", jobs[t].err);
      goto out;
    }
  qsort(us, (size_t)total, sizeof *us, cmp_double);
  double sum = 0;
  for (int64_t i = 0; i < total; i++) sum += us[i];
  printf("model: %d feeds, %d fetches, %lld threads; intra-op GEMM: %s\n",
         nf, nt, (long long)nthreads, tfs_gemm_describe());
  printf("min_us=%.3f max_us=%.3f\n", us[0], us[total - 1]);
  if ((a->trace || a->profile) &&
      (rc = traced_runs(a, g, s, fports, in, nf, tports, nt, targets)))
    goto out;
  printf("bench: runs=%lld p50_us=%.3f p90_us=%.3f mean_us=%.3f\n",
         (long long)total, percentile(us, total, 0.5),
         percentile(us, total, 0.9), sum / (double)total);
out:
  tfs_callable_free(c);
  for (int i = 0; feeds && i < a->feeds.n; i++) tfs_cli_feed_clear(&feeds[i]);
  for (int i = 0; in && i < nf; i++) tfs_tensor_free(in[i]);
  free(feeds);
  free(fports);
  free(tports);
  free(targets);
  free(in);
  free(jobs);
  free(us);
  free(th);
  return rc;
}

int tfs_cli_cmd_bench(int argc, char **argv) {
  bench_args a = {{0}, {0}, {0}, {0}, 100, 10, 1, NULL, 0};
  tfs_cli_session sess = TFS_CLI_SESSION_INIT;
  tfs_cli_group groups[] = {{"Benchmark", kBenchOpts, &a},
                            {"Progress", tfs_cli_progress_opts, &g_progress},
                            {"Session", tfs_cli_session_opts, &sess}};
  char *pos[1];
  int npos = 0, rc;
  rc = tfs_cli_parse(argc, argv, &kBenchHelp, groups, 3, pos, &npos);
  if (rc) {
    rc = rc > 0 ? TFS_CLI_OK : TFS_CLI_USAGE;
    goto done;
  }
  if (a.fetches.n == 0 && a.targets.n == 0) {
    rc = tfs_cli_usage_error("nothing to run: give --fetch or --target");
    goto done;
  }
  tfs_graph *g = tfs_cli_load_graph(pos[0]);
  if (!g) {
    rc = TFS_CLI_FAILED;
    goto done;
  }
  tfs_session_options *opts = tfs_cli_session_options(&sess);
  tfs_session *s = NULL;
  if (opts) {
    tfs_status *st = tfs_status_new();
    s = tfs_session_new(g, opts, st);
    if (!s) tfs_cli_status_error(st);
    tfs_status_free(st);
    tfs_session_options_free(opts);
  }
  rc = s ? bench(&a, g, s) : TFS_CLI_FAILED;
  tfs_session_free(s);
  tfs_graph_free(g);
done:
  tfs_cli_list_free(&a.feeds);
  tfs_cli_list_free(&a.fetches);
  tfs_cli_list_free(&a.targets);
  tfs_cli_list_free(&a.shapes);
  return rc;
}
