/*
 * bench/sm_bench.c - tfsess's side of the harness's SavedModel rows: one
 * tfs_saved_model_load of a SavedModel directory in this (fresh) process,
 * then the first tfs_saved_model_run of a signature and a few more, and
 * one JSON line:
 *
 *   load_us         wall time of tfs_saved_model_load
 *   first_call_us   the first tfs_saved_model_run (plan, optimizer, memory
 *                   plan and the run itself)
 *   call_us         the median of the next 5 calls
 *   rss_kb_base     resident set before the load (the program and its
 *                   libraries, as TensorFlow's is after `import`)
 *   rss_kb_loaded   resident set right after the load
 *   rss_kb          the process's peak resident set (getrusage), which
 *                   includes the first calls
 *   checksum        the sum of the first call's output
 *
 *   sm_bench --dir DIR --input KEY=FILE.npy [--tag TAG]... [--signature K]
 *            [--output KEY] [--save-output FILE.npy]
 *
 * Peak RSS is per process, so the harness starts one process per load.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "core/util.h"
#include "tfsess/io.h"
#include "tfsess/saved_model.h"
#include "tfsess/tfsess.h"

#define MAX_TAGS 8
#define CALLS 5

static void die(const char *what, const tfs_status *st) {
  fprintf(stderr, "sm_bench: %s%s%s\n", what, st ? ": " : "",
          st ? tfs_status_message(st) : "");
  exit(1);
}

/* The resident set now, in KiB (/proc/self/statm), or -1. */
static long rss_now_kb(void) {
  FILE *f = fopen("/proc/self/statm", "r");
  long pages = -1, resident = -1;
  if (f) {
    if (fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = -1;
    fclose(f);
  }
  return resident < 0 ? -1 : resident * (sysconf(_SC_PAGESIZE) / 1024);
}

static long rss_peak_kb(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

typedef struct {
  const char *dir, *sig, *in_key, *in_file, *out_key, *save;
  const char *tags[MAX_TAGS];
  int ntags;
} args;

/* One call of the signature; returns its wall time in us and the output
 * in *out (caller frees). */
static double call(tfs_saved_model *m, const args *a, tfs_tensor *in,
                   tfs_tensor **out, tfs_status *st) {
  const char *in_key = a->in_key, *out_key = a->out_key;
  int64_t t0 = tfs_now_ns();
  tfs_saved_model_run(m, a->sig, &in_key, &in, 1, &out_key, out, 1, st);
  double us = (double)(tfs_now_ns() - t0) / 1e3;
  if (!tfs_status_ok(st)) die("run", st);
  return us;
}

static void parse(int argc, char **argv, args *a) {
  for (int i = 1; i < argc; i += 2) {
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!v) die("usage: sm_bench --dir DIR --input KEY=FILE.npy [--tag T]... "
                "[--signature KEY] [--output KEY] [--save-output FILE.npy]",
                NULL);
    if (!strcmp(argv[i], "--dir")) {
      a->dir = v;
    } else if (!strcmp(argv[i], "--tag") && a->ntags < MAX_TAGS) {
      a->tags[a->ntags++] = v;
    } else if (!strcmp(argv[i], "--signature")) {
      a->sig = v;
    } else if (!strcmp(argv[i], "--output")) {
      a->out_key = v;
    } else if (!strcmp(argv[i], "--save-output")) {
      a->save = v;
    } else if (!strcmp(argv[i], "--input")) {
      char *eq = strchr(argv[i + 1], '=');
      if (!eq) die("--input KEY=FILE.npy", NULL);
      *eq = 0;
      a->in_key = argv[i + 1];
      a->in_file = eq + 1;
    } else {
      die(argv[i], NULL);
    }
  }
  if (!a->dir || !a->in_key) die("--dir and --input are required", NULL);
}

int main(int argc, char **argv) {
  args a = {0};
  parse(argc, argv, &a);
  tfs_status *st = tfs_status_new();
  tfs_tensor *in = tfs_npy_read(a.in_file, st);
  if (!in) die(a.in_file, st);
  long base_kb = rss_now_kb();
  int64_t t0 = tfs_now_ns();
  tfs_saved_model *m =
      tfs_saved_model_load(a.dir, a.tags, a.ntags, NULL, NULL, st);
  double load_us = (double)(tfs_now_ns() - t0) / 1e3;
  if (!m) die("load", st);
  long loaded_kb = rss_now_kb();
  if (!a.out_key) { /* the signature's first output */
    const tfs_signature *s =
        tfs_saved_model_find_signature(m, a.sig ? a.sig : "serving_default");
    if (!s || tfs_signature_num_outputs(s) < 1) die("no such signature", NULL);
    a.out_key = tfs_tensor_info_key(tfs_signature_output(s, 0));
  }
  tfs_tensor *out = NULL;
  double first_us = call(m, &a, in, &out, st);
  double sum = 0;
  const float *d = tfs_tensor_data(out);
  for (int64_t i = 0; i < tfs_tensor_num_elements(out); i++) sum += d[i];
  if (a.save) {
    tfs_npy_write(a.save, out, st);
    if (!tfs_status_ok(st)) die(a.save, st);
  }
  tfs_tensor_free(out);
  double us[CALLS];
  for (int i = 0; i < CALLS; i++) {
    us[i] = call(m, &a, in, &out, st);
    tfs_tensor_free(out);
  }
  qsort(us, CALLS, sizeof us[0], cmp_double);
  printf("{\"engine\": \"tfsess\", \"loader\": \"tfs_saved_model_load\", "
         "\"load_us\": %.1f, \"first_call_us\": %.1f, \"call_us\": %.1f, "
         "\"rss_kb_base\": %ld, \"rss_kb_loaded\": %ld, \"rss_kb\": %ld, "
         "\"checksum\": %.6g}\n",
         load_us, first_us, us[CALLS / 2], base_kb, loaded_kb, rss_peak_kb(),
         sum);
  tfs_saved_model_free(m);
  tfs_tensor_free(in);
  tfs_status_free(st);
  return 0;
}
