/*
 * tests/torture/torture.c - the fault-injection driver's harness and
 * main(): for each scenario of scenarios.c, one unfailed run gives the
 * results and the number of allocations N; then for n = 1..N the n-th
 * allocation fails (tfs_alloc_fail_at).  A run must not crash; when it
 * reports success its results must equal the unfailed run's; when it
 * reports failure the status must hold an error code and a message, and
 * an allocation must really have failed.  LeakSanitizer (in a sanitizer
 * build) checks that every path freed what it made.
 *
 *   torture [SRCDIR]
 *
 * Environment: TORTURE_ONLY=NAME runs one scenario; TORTURE_N=n one
 * failing allocation; TORTURE_HEAD (default 2000) allocations fail in
 * turn, then one in k so that at most TORTURE_MAX_RUNS (default 6000)
 * runs are made per scenario; TORTURE_FULL=1 fails every allocation;
 * TORTURE_TRACE=1 names each run on stderr before it starts, and the
 * errors other than RESOURCE_EXHAUSTED after it; TORTURE_JOBS (default:
 * one per CPU, at most 4) processes share the work, each scenario cut into
 * one part per process, each process in a directory of its own.
 * Prints one line per scenario (per part) and the totals line the test
 * scripts count ("TFS-RESULT: passed=N failed=N", one test per
 * scenario).
 */
#include "torture.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/alloc.h"
#include "core/log.h"

/* Sanitizer hooks, present in a sanitizer build only. */
extern void __sanitizer_set_death_callback(void (*cb)(void))
    __attribute__((weak));
extern int __lsan_do_recoverable_leak_check(void) __attribute__((weak));

/* ---- results ---------------------------------------------------------- */

enum { TT_TENSOR, TT_BYTES, TT_INT };

typedef struct tt_entry {
  char *name;
  int kind;
  int dtype;
  int ndims;
  int64_t dims[TFS_MAX_RANK];
  unsigned char *data;
  size_t len;
  int64_t num;
} tt_entry;

struct tt_result {
  tt_entry *e;
  int n, cap;
};

static tt_result *result_new(void) {
  tt_result *r = calloc(1, sizeof(*r));
  if (!r) abort();
  return r;
}

static void result_free(tt_result *r) {
  if (!r) return;
  for (int i = 0; i < r->n; i++) {
    free(r->e[i].name);
    free(r->e[i].data);
  }
  free(r->e);
  free(r);
}

static tt_entry *result_add(tt_result *r, const char *name, int kind) {
  if (r->n == r->cap) {
    r->cap = r->cap ? 2 * r->cap : 8;
    r->e = realloc(r->e, (size_t)r->cap * sizeof(*r->e));
    if (!r->e) abort();
  }
  tt_entry *e = &r->e[r->n++];
  memset(e, 0, sizeof(*e));
  size_t n = strlen(name);
  e->name = malloc(n + 1);
  if (!e->name) abort();
  memcpy(e->name, name, n + 1);
  e->kind = kind;
  return e;
}

static void entry_set_data(tt_entry *e, const void *data, size_t len) {
  e->data = malloc(len ? len : 1);
  if (!e->data) abort();
  if (len) memcpy(e->data, data, len);
  e->len = len;
}

void tt_result_tensor(tt_result *r, const char *name, const tfs_tensor *t) {
  tt_entry *e = result_add(r, name, TT_TENSOR);
  if (!t) {
    e->dtype = -1;
    return;
  }
  e->dtype = (int)tfs_tensor_dtype(t);
  e->ndims = tfs_tensor_ndims(t);
  for (int i = 0; i < e->ndims && i < TFS_MAX_RANK; i++)
    e->dims[i] = tfs_tensor_dim(t, i);
  if (e->dtype != TFS_STRING) {
    entry_set_data(e, tfs_tensor_data(t), tfs_tensor_byte_size(t));
    return;
  }
  /* strings: each element as its length then its bytes */
  int64_t n = tfs_tensor_num_elements(t);
  size_t total = 0;
  for (int64_t i = 0; i < n; i++) {
    size_t len = 0;
    tfs_tensor_string_at(t, i, &len);
    total += sizeof(size_t) + len;
  }
  unsigned char *buf = malloc(total ? total : 1), *p = buf;
  if (!buf) abort();
  for (int64_t i = 0; i < n; i++) {
    size_t len = 0;
    const char *s = tfs_tensor_string_at(t, i, &len);
    memcpy(p, &len, sizeof(len));
    p += sizeof(len);
    if (len) memcpy(p, s, len);
    p += len;
  }
  e->data = buf;
  e->len = total;
}

void tt_result_bytes(tt_result *r, const char *name, const void *data,
                     size_t len) {
  tt_entry *e = result_add(r, name, TT_BYTES);
  entry_set_data(e, data, len);
}

void tt_result_int(tt_result *r, const char *name, int64_t v) {
  result_add(r, name, TT_INT)->num = v;
}

void tt_result_floats(tt_result *r, const char *name, const int64_t *dims,
                      int ndims, const float *data) {
  tt_entry *e = result_add(r, name, TT_TENSOR);
  int64_t n = 1;
  e->dtype = TFS_FLOAT;
  e->ndims = ndims;
  for (int i = 0; i < ndims; i++) {
    e->dims[i] = dims[i];
    n *= dims[i];
  }
  entry_set_data(e, data, (size_t)n * sizeof(float));
}

static int near(double a, double b) {
  if (isnan(a) || isnan(b)) return isnan(a) && isnan(b);
  if (a == b) return 1;
  return fabs(a - b) <= 1e-6 + 1e-5 * fabs(b);
}

/* Why `got` differs from `want`, in `why`; 0 when they match. */
static int entry_differs(const tt_entry *want, const tt_entry *got,
                         char *why, size_t cap) {
  if (strcmp(want->name, got->name) != 0 || want->kind != got->kind) {
    snprintf(why, cap, "entry '%s' where '%s' was expected", got->name,
             want->name);
    return 1;
  }
  if (want->kind == TT_INT) {
    if (want->num == got->num) return 0;
    snprintf(why, cap, "'%s' is %lld, not %lld", got->name,
             (long long)got->num, (long long)want->num);
    return 1;
  }
  if (want->kind == TT_TENSOR &&
      (want->dtype != got->dtype || want->ndims != got->ndims ||
       memcmp(want->dims, got->dims, sizeof(want->dims)) != 0)) {
    snprintf(why, cap, "'%s' has dtype %d rank %d, not dtype %d rank %d "
             "(or other dims)", got->name, got->dtype, got->ndims,
             want->dtype, want->ndims);
    return 1;
  }
  if (want->len != got->len) {
    snprintf(why, cap, "'%s' holds %zu bytes, not %zu", got->name, got->len,
             want->len);
    return 1;
  }
  if (want->kind == TT_TENSOR &&
      (want->dtype == TFS_FLOAT || want->dtype == TFS_DOUBLE)) {
    int f = want->dtype == TFS_FLOAT;
    size_t n = want->len / (f ? sizeof(float) : sizeof(double));
    for (size_t i = 0; i < n; i++) {
      double a, b;
      if (f) {
        float fa, fb;
        memcpy(&fa, got->data + i * sizeof(float), sizeof(float));
        memcpy(&fb, want->data + i * sizeof(float), sizeof(float));
        a = fa;
        b = fb;
      } else {
        memcpy(&a, got->data + i * sizeof(double), sizeof(double));
        memcpy(&b, want->data + i * sizeof(double), sizeof(double));
      }
      if (!near(a, b)) {
        snprintf(why, cap, "'%s' element %zu is %.9g, not %.9g", got->name,
                 i, a, b);
        return 1;
      }
    }
    return 0;
  }
  if (want->len && memcmp(want->data, got->data, want->len) != 0) {
    snprintf(why, cap, "'%s' differs in its bytes", got->name);
    return 1;
  }
  return 0;
}

static int result_differs(const tt_result *want, const tt_result *got,
                          char *why, size_t cap) {
  int n = want->n < got->n ? want->n : got->n;
  for (int i = 0; i < n; i++)
    if (entry_differs(&want->e[i], &got->e[i], why, cap)) return 1;
  if (want->n != got->n) {
    snprintf(why, cap, "%d results, not %d", got->n, want->n);
    return 1;
  }
  return 0;
}

/* ---- injection -------------------------------------------------------- */

static long g_target;  /* the allocation that fails; LONG_MAX: counting */
static long g_used;    /* allocations counted so far in this run */
static int g_paused;

static void inject_start(long n) {
  g_target = n;
  g_used = 0;
  g_paused = 0;
  tfs_alloc_fail_at(n);
}

static long inject_stop(void) {
  if (!g_paused) g_used += tfs_alloc_fail_at(0);
  g_paused = 0;
  g_target = 0;
  return g_used;
}

void tt_pause(void) {
  if (g_paused || !g_target) return;
  g_used += tfs_alloc_fail_at(0);
  g_paused = 1;
}

void tt_resume(void) {
  if (!g_paused) return;
  g_paused = 0;
  /* past the failing allocation: go on counting without failing */
  tfs_alloc_fail_at(g_used < g_target ? g_target - g_used : LONG_MAX);
}

void tt_null(tfs_status *st, const char *what) {
  char msg[160];
  snprintf(msg, sizeof msg, "%s returned NULL", what);
  tfs_status_set(st, TFS_RESOURCE_EXHAUSTED, msg);
}

static const char *g_current = "";
static long g_current_n;
static long g_flagged;   /* tt_fail calls in the current run */

void tt_fail(const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  g_flagged++;
  printf("torture %s: FAIL with allocation %ld failing: %s\n", g_current,
         g_current_n, msg);
}

/* ---- files ------------------------------------------------------------ */

static const char *g_srcdir = ".";
static char g_tmpdir[256];

char *tt_path(const char *rel) {
  size_t n = strlen(g_srcdir) + strlen(rel) + 2;
  char *p = malloc(n);
  if (!p) abort();
  snprintf(p, n, "%s/%s", g_srcdir, rel);
  return p;
}

void *tt_read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "torture: cannot open %s\n", path);
    return NULL;
  }
  size_t cap = 4096, n = 0;
  unsigned char *buf = malloc(cap);
  if (!buf) abort();
  size_t got;
  while ((got = fread(buf + n, 1, cap - n, f)) > 0) {
    n += got;
    if (n == cap) {
      cap *= 2;
      buf = realloc(buf, cap);
      if (!buf) abort();
    }
  }
  fclose(f);
  *len = n;
  return buf;
}

const char *tt_tmpdir(void) { return g_tmpdir; }

/* Removes `path` and, for a directory, what is in it. */
static void remove_tree(const char *path) {
  DIR *d = opendir(path);
  if (d) {
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
      if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
        continue;
      size_t n = strlen(path) + strlen(e->d_name) + 2;
      char *sub = malloc(n);
      if (!sub) break;
      snprintf(sub, n, "%s/%s", path, e->d_name);
      remove_tree(sub);
      free(sub);
    }
    closedir(d);
  }
  remove(path);
}

/* ---- the driver ------------------------------------------------------- */

static void on_death(void) {
  if (!g_current[0]) return; /* at exit: LeakSanitizer's report says it */
  fprintf(stderr, "torture: died in scenario %s with allocation %ld "
          "failing (rerun: TORTURE_ONLY=%s TORTURE_N=%ld)\n", g_current,
          g_current_n, g_current, g_current_n);
}

/* Zeroes stack below the caller, so that stale pointers left there by the
 * scenario do not keep leaked memory reachable for LeakSanitizer. */
static __attribute__((noinline)) void scrub_stack(void) {
  volatile char buf[1 << 16];
  memset((char *)buf, 0, sizeof buf);
}

static int leaked(void) {
  if (!__lsan_do_recoverable_leak_check) return 0;
  scrub_stack();
  return __lsan_do_recoverable_leak_check();
}

static long env_long(const char *name, long dflt) {
  const char *v = getenv(name);
  return v && *v ? strtol(v, NULL, 10) : dflt;
}

static int g_trace;  /* TORTURE_TRACE=1: each run on stderr first */

typedef struct tally {
  long runs, ok, errors, hit, bad;
  long codes[17];
} tally;

/* One run with allocation n failing (LONG_MAX: none). */
static void run_once(const tt_scenario *sc, long n, const tt_result *want,
                     tally *t) {
  tfs_status *st = tfs_status_new();
  tt_result *got = result_new();
  char why[512];
  g_current_n = n;
  g_flagged = 0;
  if (g_trace) fprintf(stderr, "torture %s: allocation %ld\n", sc->name, n);
  inject_start(n);
  int rc = sc->run(st, got);
  long used = inject_stop();
  int hit = used >= n;
  t->runs++;
  t->hit += hit;
  if (rc == 0) {
    t->ok++;
    if (result_differs(want, got, why, sizeof why)) {
      t->bad++;
      printf("torture %s: FAIL with allocation %ld failing: success with "
             "wrong results: %s\n", sc->name, n, why);
    }
  } else {
    tfs_code c = tfs_status_code(st);
    const char *msg = tfs_status_message(st);
    t->errors++;
    if (c > 0 && c < 17) t->codes[c]++;
    if (g_trace && c != TFS_RESOURCE_EXHAUSTED)
      fprintf(stderr, "torture %s: allocation %ld: %s: %s\n", sc->name, n,
              tfs_code_name(c), msg);
    if (c == TFS_OK || !msg[0] || !hit) {
      t->bad++;
      printf("torture %s: FAIL with allocation %ld failing: error %s "
             "\"%s\"%s\n", sc->name, n, tfs_code_name(c), msg,
             hit ? "" : " although no allocation failed");
    }
  }
  if (g_flagged) t->bad++;
  result_free(got);
  tfs_status_free(st);
}

static void print_codes(const char *name, const tally *t) {
  if (!t->errors) return;
  printf("torture %s: error codes:", name);
  for (int c = 1; c < 17; c++)
    if (t->codes[c])
      printf(" %s %ld", tfs_code_name((tfs_code)c), t->codes[c]);
  printf("\n");
}

/* Runs one scenario, or its part `part` of `nparts` (the failing runs
 * dealt round-robin: run k when k % nparts == part); 0 when it passed. */
static int run_scenario(const tt_scenario *sc, int part, int nparts) {
  char label[96];
  if (nparts > 1)
    snprintf(label, sizeof label, "%s (part %d of %d)", sc->name, part + 1,
             nparts);
  else
    snprintf(label, sizeof label, "%s", sc->name);
  g_current = sc->name;
  g_current_n = 0;
  if (sc->setup && sc->setup() != 0) {
    printf("torture %s: FAIL: set-up failed\n", sc->name);
    return 1;
  }
  tfs_status *st = tfs_status_new();
  tt_result *want = result_new(), *again = result_new();
  char why[512];
  int failed = 0;
  /* twice unfailed: the first fills process-wide caches, the second
   * counts what every later run allocates */
  g_flagged = 0;
  inject_start(LONG_MAX);
  int rc = sc->run(st, want);
  inject_stop();
  if (rc == 0) {
    inject_start(LONG_MAX);
    rc = sc->run(st, again);
  }
  long total = inject_stop();
  if (rc != 0) {
    printf("torture %s: FAIL: the unfailed run failed: %s: %s\n", sc->name,
           tfs_code_name(tfs_status_code(st)), tfs_status_message(st));
    failed = 1;
  } else if (g_flagged) {
    failed = 1;
  } else if (result_differs(want, again, why, sizeof why)) {
    printf("torture %s: FAIL: two unfailed runs differ: %s\n", sc->name,
           why);
    failed = 1;
  }
  tally t;
  memset(&t, 0, sizeof t);
  long head = env_long("TORTURE_HEAD", 2000);
  long max_runs = env_long("TORTURE_MAX_RUNS", 6000);
  long only_n = env_long("TORTURE_N", 0);
  long step = 1;
  if (!env_long("TORTURE_FULL", 0) && total > max_runs && max_runs > head)
    step = (total - head + (max_runs - head) - 1) / (max_runs - head);
  time_t t0 = time(NULL);
  long k = 0;
  for (long n = only_n ? only_n : 1; !failed && n <= total;
       n += n < head ? 1 : step, k++) {
    if (k % nparts == part) run_once(sc, n, want, &t);
    if (only_n) break;
  }
  printf("torture %s: %ld allocations failed in turn, %ld ok, %ld errors\n",
         label, t.runs, t.ok, t.errors);
  printf("torture %s: the scenario makes %ld allocations; ", label, total);
  if (step > 1)
    printf("failed each of the first %ld, then one in %ld", head, step);
  else if (only_n)
    printf("failed allocation %ld only", only_n);
  else
    printf("failed every one");
  if (nparts > 1) printf(", one run in %d here", nparts);
  printf("; %ld runs hit the failure; %lds\n", t.hit,
         (long)(time(NULL) - t0));
  print_codes(label, &t);
  if (t.bad) failed = 1;
  result_free(want);
  result_free(again);
  tfs_status_free(st);
  if (sc->teardown) sc->teardown();
  g_current = "";
  return failed;
}

/* Runs scenario `sc` (its part `part` of `nparts`), then checks for
 * leaks (reported once per process); 1 when it failed. */
static int run_checked(const tt_scenario *sc, int part, int nparts,
                       int *leaks_seen) {
  int bad = run_scenario(sc, part, nparts);
  if (!*leaks_seen && leaked()) {
    printf("torture %s: FAIL: memory leaked (LeakSanitizer's report "
           "above)\n", sc->name);
    *leaks_seen = bad = 1;
  }
  return bad;
}

/* A worker of run_parallel: takes work items from `queue` (one byte
 * each: scenario index * 4 + part) until it is empty, in a directory of
 * its own, and writes "SCENARIO FAILED\n" to `result` for each. */
static void worker(long j, int nparts, int queue, int result) {
  size_t l = strlen(g_tmpdir);
  snprintf(g_tmpdir + l, sizeof g_tmpdir - l, "/%ld", j);
  if (mkdir(g_tmpdir, 0700) != 0) _exit(1);
  int leaks_seen = 0, ok = 1;
  unsigned char b;
  while (read(queue, &b, 1) == 1) {
    int f = run_checked(&tt_scenarios[b / 4], b % 4, nparts, &leaks_seen);
    char line[32];
    int n = snprintf(line, sizeof line, "%d %d\n", b / 4, f);
    fflush(stdout);
    ok = ok && write(result, line, (size_t)n) == n;
  }
  fflush(stdout);
  _exit(ok ? 0 : 1);
}

/* The scenarios over `jobs` processes (at most 4), each scenario cut
 * into `jobs` parts (its failing runs dealt round-robin) so that the
 * largest one does not keep one process busy while the others are done;
 * the processes take the parts from a queue, the last scenario's (the
 * largest) first.  A scenario passes when all its parts reported and
 * passed. */
static void run_parallel(long jobs, int *passed, int *failed) {
  int total = 0, queue[2], result[2];
  for (const tt_scenario *sc = tt_scenarios; sc->name; sc++) total++;
  if (total > 63 || pipe(queue) != 0 || pipe(result) != 0) {
    printf("torture: cannot start the processes\n");
    *failed += total;
    return;
  }
  for (int i = total - 1; i >= 0; i--) {
    for (long part = 0; part < jobs; part++) {
      unsigned char b = (unsigned char)(i * 4 + part);
      if (write(queue[1], &b, 1) != 1) break;
    }
  }
  close(queue[1]);
  pid_t pids[4];
  for (long j = 0; j < jobs; j++) {
    fflush(stdout);
    pids[j] = fork();
    if (pids[j] == 0) {
      close(result[0]);
      worker(j, (int)jobs, queue[0], result[1]);
    }
  }
  close(queue[0]);
  close(result[1]);
  for (long j = 0; j < jobs; j++)
    if (pids[j] > 0) waitpid(pids[j], NULL, 0);
  FILE *r = fdopen(result[0], "r");
  int parts[64] = {0}, bad[64] = {0}, i, f, missing = 0;
  while (r && fscanf(r, "%d %d", &i, &f) == 2) {
    if (i < 0 || i >= total) continue;
    parts[i]++;
    bad[i] |= f != 0;
  }
  if (r) fclose(r);
  else close(result[0]);
  for (i = 0; i < total; i++) {
    if (parts[i] < jobs) missing++;
    if (parts[i] < jobs || bad[i]) (*failed)++;
    else (*passed)++;
  }
  if (missing) printf("torture: %d scenarios did not report\n", missing);
}

int main(int argc, char **argv) {
  if (argc > 1) g_srcdir = argv[1];
  else if (getenv("TFS_TEST_SRCDIR")) g_srcdir = getenv("TFS_TEST_SRCDIR");
#ifdef TFS_TEST_SRCDIR
  else g_srcdir = TFS_TEST_SRCDIR;
#endif
  const char *tmp = getenv("TMPDIR");
  snprintf(g_tmpdir, sizeof g_tmpdir, "%s/tfs-torture-XXXXXX",
           tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(g_tmpdir)) {
    perror("torture: mkdtemp");
    return 1;
  }
  if (__sanitizer_set_death_callback) __sanitizer_set_death_callback(on_death);
  /* injected failures make the library warn; those warnings are expected
   * (TFS_LOG_LEVEL shows them) */
  if (!getenv("TFS_LOG_LEVEL")) tfs_log_set_level(TFS_LOG_ERROR + 1);
  setvbuf(stdout, NULL, _IOLBF, 0);
  const char *only = getenv("TORTURE_ONLY");
  g_trace = (int)env_long("TORTURE_TRACE", 0);
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  long jobs = env_long("TORTURE_JOBS", cpus < 1 ? 1 : cpus > 4 ? 4 : cpus);
  if (jobs < 1 || (only && *only)) jobs = 1;
  if (jobs > 4) jobs = 4;
  int passed = 0, failed = 0;
  if (jobs == 1) {
    int leaks_seen = 0;
    for (const tt_scenario *sc = tt_scenarios; sc->name; sc++) {
      if (only && *only && strcmp(only, sc->name) != 0) continue;
      if (run_checked(sc, 0, 1, &leaks_seen)) failed++;
      else passed++;
    }
  } else {
    run_parallel(jobs, &passed, &failed);
  }
  /* what failed runs left behind, and the directory */
  remove_tree(g_tmpdir);
  printf("\nTFS-RESULT: passed=%d failed=%d\n", passed, failed);
  return failed ? 1 : 0;
}
