/*
 * tests/tools/test_cli_run.c - `tfsess run` around the session: the
 * progress line of --batch (under a pseudo-terminal, in a pipe, forced
 * and refused) and of bench, feed dtype conversion (float64 into float,
 * int64 into int32, out of range, --strict-dtypes, SavedModel inputs),
 * outputs written atomically (a failed or killed run leaves nothing, an
 * existing output needs --force), --save-config alone, inspect's exit
 * status, and text GraphDefs (.pbtxt) for run, inspect and optimize.
 */
#include <dirent.h>
#include <fcntl.h>
#include <pty.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli_util.h"
#include "conformance.h"
#include "iotest.h"
#include "testutil.h"

#define DIGITS "models/digits/graph.pb"
#define X_TEST "models/digits/x_test.npy" /* float [360,64] */

/* x (int32 [?]) -> y = Identity(x), as a text GraphDef. */
static const char kIdentityInt32[] =
    "node {\n  name: \"x\"\n  op: \"Placeholder\"\n"
    "  attr { key: \"dtype\" value { type: DT_INT32 } }\n"
    "  attr { key: \"shape\" value { shape { dim { size: -1 } } } }\n}\n"
    "node {\n  name: \"y\"\n  op: \"Identity\"\n  input: \"x\"\n"
    "  attr { key: \"T\" value { type: DT_INT32 } }\n}\n";

static void write_npy(const char *path, tfs_dtype dt, const int64_t *dims,
                      int nd, const void *data) {
  tfs_status *st = tfs_status_new();
  int64_t n = 1;
  for (int i = 0; i < nd; i++) n *= dims[i];
  tfs_tensor *t = tfs_tensor_new_copy(dt, dims, nd, data,
                                      (size_t)n * tfs_dtype_size(dt), st);
  TFS_ASSERT_OK(st);
  tfs_npy_write(path, t, st);
  TFS_ASSERT_OK(st);
  tfs_tensor_free(t);
  tfs_status_free(st);
}

static int count_char(const char *s, char c) {
  int n = 0;
  for (; *s; s++) n += *s == c;
  return n;
}

/* Entries of a directory (-1: it does not exist). */
static int dir_entries(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return -1;
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)))
    n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
  closedir(d);
  return n;
}

/* ---- progress ------------------------------------------------------------ */

/* The tfsess program, for exec after fork (static buffer). */
static const char *tfsess_program(void) {
  static char path[4096];
  snprintf(path, sizeof path, "%s/tfsess", it_builddir());
  return path;
}

/* Runs `tfsess ARGV...` on a pseudo-terminal (stdout and stderr both);
 * returns everything it printed (malloc'd) and its exit status. */
static char *run_on_pty(char *const *argv, int *status) {
  int master;
  const char *prog = tfsess_program();
  pid_t pid = forkpty(&master, NULL, NULL, NULL);
  CU_ASSERT_FATAL(pid >= 0);
  if (pid == 0) {
    if (chdir(it_srcdir()) != 0) _exit(126);
    setenv("TFSESS_PROGRESS_INTERVAL_MS", "0", 1);
    execv(prog, argv);
    _exit(127);
  }
  size_t cap = 1 << 16, len = 0;
  char *buf = malloc(cap);
  for (;;) {
    if (len + 4096 > cap) buf = realloc(buf, cap *= 2);
    ssize_t n = read(master, buf + len, 4096);
    if (n <= 0) break; /* EIO once the child is gone */
    len += (size_t)n;
  }
  buf[len] = 0;
  close(master);
  waitpid(pid, status, 0);
  return buf;
}

static void test_progress_on_terminal(void) {
  char *argv[] = {"tfsess", "run", DIGITS, "--feed", "x=" X_TEST,
                  "--fetch", "probs", "--batch", "8", "--quiet", NULL};
  int status;
  char *out = run_on_pty(argv, &status);
  CU_ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  /* redrawn in place: 45 batches, a '\r' before each line */
  CU_ASSERT_TRUE(count_char(out, '\r') >= 3);
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "\r8/360 rows  2.2%  "));
  CU_ASSERT_PTR_NOT_NULL(strstr(out, " rows/s  ETA "));
  /* the last line: the totals, then a newline (the pty writes \r\n) */
  char *last = strstr(out, "\r360/360 rows  100.0%  ");
  CU_ASSERT_PTR_NOT_NULL_FATAL(last);
  /* ... "  0.1 s" (blanks over the longer line before), the end */
  char *nl = strstr(last, "\r\n");
  CU_ASSERT_PTR_NOT_NULL_FATAL(nl);
  CU_ASSERT_EQUAL(nl[2], 0);
  CU_ASSERT_PTR_EQUAL(strchr(last + 1, '\r'), nl);
  CU_ASSERT_PTR_NOT_NULL(strstr(last, " s"));
  CU_ASSERT_PTR_NULL(strstr(last, "ETA"));
  free(out);
  /* --no-progress: nothing */
  char *quiet[] = {"tfsess", "run", DIGITS, "--feed", "x=" X_TEST,
                   "--fetch", "probs", "--batch", "8", "--quiet",
                   "--no-progress", NULL};
  out = run_on_pty(quiet, &status);
  CU_ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  CU_ASSERT_STRING_EQUAL(out, "");
  free(out);
}

static void test_progress_in_pipe(void) {
  /* not a terminal: nothing on stderr */
  result r = tfsess("run " DIGITS " --feed x=" X_TEST " --fetch probs "
                    "--batch 8 --quiet");
  CU_ASSERT_EQUAL(r.status, 0);
  CU_ASSERT_STRING_EQUAL(r.err, "");
  result_free(&r);
  /* --progress: drawn all the same, ending with the totals */
  r = tfsess("run " DIGITS " --feed x=" X_TEST " --fetch probs "
             "--batch 8 --quiet --progress");
  CU_ASSERT_EQUAL(r.status, 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "\r360/360 rows  100.0%  "));
  CU_ASSERT_EQUAL(count_lines(r.err), 1);
  result_free(&r);
  /* bench: runs instead of rows */
  r = tfsess("bench " DIGITS " --feed x=" X_TEST " --fetch probs "
             "--runs 5 --warmup 1 --progress");
  CU_ASSERT_EQUAL(r.status, 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "\r6/6 runs  100.0%  "));
  result_free(&r);
  r = tfsess("bench " DIGITS " --feed x=" X_TEST " --fetch probs --runs 5");
  CU_ASSERT_STRING_EQUAL(r.err, "");
  result_free(&r);
  r = tfsess("run --help");
  CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "--progress"));
  CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "--no-progress"));
  CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "--force"));
  CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "--strict-dtypes"));
  result_free(&r);
  r = tfsess("bench --help");
  CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "--progress"));
  result_free(&r);
}

/* ---- feed dtypes --------------------------------------------------------- */

static void test_feed_float64(void) {
  /* x_test's values as float64, as np.save(x.astype(np.float64)) */
  tfs_tensor *x = load(it_src(X_TEST));
  int64_t n = tfs_tensor_num_elements(x);
  double *d = malloc((size_t)n * sizeof *d);
  for (int64_t i = 0; i < n; i++) d[i] = ((const float *)tfs_tensor_data(x))[i];
  write_npy(it_tmp("x64.npy"), TFS_DOUBLE, tfs_tensor_dims(x), 2, d);
  result r = tfsess("run " DIGITS " --feed x='%s' --fetch probs --out '%s'",
                    it_tmp("x64.npy"), it_tmp("f64"));
  CU_ASSERT_EQUAL(r.status, 0);
  CU_ASSERT_STRING_EQUAL(r.err, ""); /* exact: no warning */
  result_free(&r);
  r = tfsess("run " DIGITS " --feed x=" X_TEST " --fetch probs --out '%s'",
             it_tmp("f32"));
  CU_ASSERT_EQUAL(r.status, 0);
  result_free(&r);
  char p1[4200], p2[4200], why[512];
  snprintf(p1, sizeof p1, "%s/probs_0.npy", it_tmp("f64"));
  snprintf(p2, sizeof p2, "%s/probs_0.npy", it_tmp("f32"));
  tfs_tensor *a = load(p1), *b = load(p2);
  CU_ASSERT_EQUAL(tc_compare(a, b, 0, 0, why, sizeof why), 0);
  tfs_tensor_free(a);
  tfs_tensor_free(b);
  /* a value float cannot hold exactly: converted, one warning */
  d[0] = 0.1;
  write_npy(it_tmp("x64b.npy"), TFS_DOUBLE, tfs_tensor_dims(x), 2, d);
  r = tfsess("run " DIGITS " --feed x='%s' --fetch probs --quiet",
             it_tmp("x64b.npy"));
  CU_ASSERT_EQUAL(r.status, 0);
  char want[4400];
  snprintf(want, sizeof want,
           "tfsess run: warning: feed 'x' (file %s): double values "
           "converted to float lose precision\n",
           it_tmp("x64b.npy"));
  CU_ASSERT_STRING_EQUAL(r.err, want);
  result_free(&r);
  /* batches warn once */
  r = tfsess("run " DIGITS " --feed x='%s' --fetch probs --quiet --batch 100",
             it_tmp("x64b.npy"));
  CU_ASSERT_EQUAL(r.status, 0);
  CU_ASSERT_EQUAL(count_lines(r.err), 1);
  result_free(&r);
  /* --strict-dtypes refuses it */
  r = tfsess("run " DIGITS " --feed x='%s' --fetch probs --strict-dtypes",
             it_tmp("x64.npy"));
  snprintf(want, sizeof want,
           "tfsess run: feed 'x' (file %s): expected float [?,64], got "
           "double [360,64] (--strict-dtypes)\n",
           it_tmp("x64.npy"));
  CU_ASSERT_EQUAL(r.status, 1);
  CU_ASSERT_STRING_EQUAL(r.err, want);
  result_free(&r);
  /* a shape that does not fit */
  int64_t dims[2] = {3, 5};
  write_npy(it_tmp("x35.npy"), TFS_DOUBLE, dims, 2, d);
  r = tfsess("run " DIGITS " --feed x='%s' --fetch probs", it_tmp("x35.npy"));
  snprintf(want, sizeof want,
           "tfsess run: feed 'x' (file %s): expected float [?,64], got "
           "double [3,5]\n",
           it_tmp("x35.npy"));
  CU_ASSERT_EQUAL(r.status, 1);
  CU_ASSERT_STRING_EQUAL(r.err, want);
  result_free(&r);
  free(d);
  tfs_tensor_free(x);
}

static void test_feed_int64(void) {
  it_write_file(it_tmp("id32.pbtxt"), kIdentityInt32,
                sizeof kIdentityInt32 - 1);
  int64_t v[6] = {1, -2, 3, 4, 5, 6}, dims[1] = {6};
  write_npy(it_tmp("i64.npy"), TFS_INT64, dims, 1, v);
  result r = tfsess("run '%s' --feed x='%s' --fetch y --out '%s'",
                    it_tmp("id32.pbtxt"), it_tmp("i64.npy"), it_tmp("i"));
  CU_ASSERT_EQUAL(r.status, 0);
  CU_ASSERT_STRING_EQUAL(r.err, "");
  CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "y: int32 [6] "));
  result_free(&r);
  char path[4200];
  snprintf(path, sizeof path, "%s/y_0.npy", it_tmp("i"));
  tfs_tensor *y = load(path);
  CU_ASSERT_EQUAL(tfs_tensor_dtype(y), TFS_INT32);
  CU_ASSERT_EQUAL(((const int32_t *)tfs_tensor_data(y))[1], -2);
  tfs_tensor_free(y);
  /* out of int32's range: an error, and (atomic outputs) no file even
   * though the first batches ran */
  v[5] = 4294967296LL;
  write_npy(it_tmp("big.npy"), TFS_INT64, dims, 1, v);
  r = tfsess("run '%s' --feed x='%s' --fetch y --out '%s' --batch 2",
             it_tmp("id32.pbtxt"), it_tmp("big.npy"), it_tmp("big"));
  char want[4400];
  snprintf(want, sizeof want,
           "tfsess run: feed 'x' (file %s): expected int32 [?], got int64 "
           "[2]; value 4294967296 is out of range for int32\n",
           it_tmp("big.npy"));
  CU_ASSERT_EQUAL(r.status, 1);
  CU_ASSERT_STRING_EQUAL(r.err, want);
  CU_ASSERT_EQUAL(dir_entries(it_tmp("big")), 0);
  result_free(&r);
  /* with a progress line drawn, the error starts a line of its own */
  setenv("TFSESS_PROGRESS_INTERVAL_MS", "0", 1);
  r = tfsess("run '%s' --feed x='%s' --fetch y --batch 2 --progress",
             it_tmp("id32.pbtxt"), it_tmp("big.npy"));
  unsetenv("TFSESS_PROGRESS_INTERVAL_MS");
  CU_ASSERT_EQUAL(r.status, 1);
  CU_ASSERT_EQUAL(strncmp(r.err, "\r2/6 rows  33.3%  ", 18), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "\ntfsess run: feed 'x' (file "));
  CU_ASSERT_EQUAL(count_lines(r.err), 2);
  result_free(&r);
  /* a string is not converted */
  r = tfsess("run '%s' --feed x=tests/io/data/f32_c.npy --fetch y",
             it_tmp("id32.pbtxt"));
  assert_fails(&r, 1, "feed 'x' (file tests/io/data/f32_c.npy): expected "
                      "int32 [?], got float [");
}

/* A SavedModel signature's input dtypes: float64 into float inputs. */
static void test_feed_saved_model(void) {
  const char *sm = "tests/data/saved_models/tf1_simple";
  const char *in[2] = {"0_in_a.npy", "0_in_b.npy"};
  char path[4200];
  for (int k = 0; k < 2; k++) {
    snprintf(path, sizeof path, "%s/%s", sm, in[k]);
    tfs_tensor *t = load(it_src(path));
    int64_t n = tfs_tensor_num_elements(t);
    double d[64];
    CU_ASSERT_FATAL(n <= 64);
    for (int64_t i = 0; i < n; i++)
      d[i] = ((const float *)tfs_tensor_data(t))[i];
    write_npy(it_tmp(k ? "b64.npy" : "a64.npy"), TFS_DOUBLE,
              tfs_tensor_dims(t), tfs_tensor_ndims(t), d);
    tfs_tensor_free(t);
  }
  char a64[4200], b64[4200];
  snprintf(a64, sizeof a64, "%s", it_tmp("a64.npy"));
  snprintf(b64, sizeof b64, "%s", it_tmp("b64.npy"));
  result r = tfsess("run %s/model --feed a='%s' --feed b='%s' --fetch s "
                    "--out '%s'",
                    sm, a64, b64, it_tmp("sm64"));
  CU_ASSERT_EQUAL(r.status, 0);
  CU_ASSERT_STRING_EQUAL(r.err, "");
  result_free(&r);
  snprintf(path, sizeof path, "%s/s.npy", it_tmp("sm64"));
  tfs_tensor *got = load(path);
  snprintf(path, sizeof path, "%s/0_out_s.npy", sm);
  tfs_tensor *want = load(it_src(path));
  char why[512];
  CU_ASSERT_EQUAL(tc_compare(got, want, -1, -1, why, sizeof why), 0);
  tfs_tensor_free(got);
  tfs_tensor_free(want);
  r = tfsess("run %s/model --feed a='%s' --feed b='%s' --fetch s "
             "--strict-dtypes",
             sm, a64, b64);
  char msg[4400];
  snprintf(msg, sizeof msg,
           "feed 'a' (file %s): expected float [?,5], got double [2,5] "
           "(--strict-dtypes)",
           a64);
  assert_fails(&r, 1, msg);
}

/* ---- atomic outputs ------------------------------------------------------ */

static void test_outputs_atomic(void) {
  char dir[4200], path[4300];
  snprintf(dir, sizeof dir, "%s", it_tmp("atomic"));
  snprintf(path, sizeof path, "%s/probs_0.npy", dir);
  /* a run that fails leaves no output and no temporary */
  result r = tfsess("run " DIGITS " --feed x=" X_TEST " --fetch probs "
                    "--fetch nosuch --out '%s'",
                    dir);
  CU_ASSERT_EQUAL(r.status, 1);
  result_free(&r);
  CU_ASSERT_TRUE(dir_entries(dir) <= 0);
  r = tfsess("run " DIGITS " --feed x=" X_TEST " --fetch probs --out '%s' "
             "--quiet",
             dir);
  CU_ASSERT_EQUAL(r.status, 0);
  result_free(&r);
  CU_ASSERT_EQUAL(dir_entries(dir), 1);
  /* an existing output is refused, and left as it was */
  struct stat before, after;
  CU_ASSERT_EQUAL(stat(path, &before), 0);
  /* the permissions of a new file (not mkstemp's 0600) */
  mode_t mask = umask(0);
  umask(mask);
  CU_ASSERT_EQUAL(before.st_mode & 0777, 0666 & ~mask);
  r = tfsess("run " DIGITS " --feed x=" X_TEST " --fetch probs --out '%s'",
             dir);
  char want[4400];
  snprintf(want, sizeof want,
           "tfsess run: %s: already exists (use --force to overwrite)\n",
           path);
  CU_ASSERT_EQUAL(r.status, 1);
  CU_ASSERT_STRING_EQUAL(r.err, want);
  result_free(&r);
  r = tfsess("run " DIGITS " --feed x=" X_TEST " --fetch probs --out '%s' "
             "--batch 100",
             dir);
  CU_ASSERT_STRING_EQUAL(r.err, want);
  result_free(&r);
  CU_ASSERT_EQUAL(stat(path, &after), 0);
  CU_ASSERT_EQUAL(before.st_ino, after.st_ino);
  /* --force replaces it (a new file renamed over it), --batch too */
  r = tfsess("run " DIGITS " --feed x=" X_TEST " --fetch probs --out '%s' "
             "--batch 100 --force --quiet",
             dir);
  CU_ASSERT_EQUAL(r.status, 0);
  result_free(&r);
  CU_ASSERT_EQUAL(stat(path, &after), 0);
  CU_ASSERT_NOT_EQUAL(before.st_ino, after.st_ino);
  CU_ASSERT_EQUAL(dir_entries(dir), 1);
  tfs_tensor *t = load(path);
  CU_ASSERT_EQUAL(tfs_tensor_dim(t, 0), 360);
  tfs_tensor_free(t);
}

/* SIGTERM in the middle of a --batch run: the temporary goes too. */
static void test_outputs_interrupted(void) {
  tfs_tensor *x = load(it_src(X_TEST));
  enum { ROWS = 20000 };
  float *big = malloc(sizeof(float) * ROWS * 64);
  for (int i = 0; i < ROWS * 64; i++)
    big[i] = ((const float *)tfs_tensor_data(x))[i % (360 * 64)];
  int64_t dims[2] = {ROWS, 64};
  write_npy(it_tmp("x20k.npy"), TFS_FLOAT, dims, 2, big);
  free(big);
  tfs_tensor_free(x);
  char dir[4200], feed[4300];
  snprintf(dir, sizeof dir, "%s", it_tmp("killed"));
  snprintf(feed, sizeof feed, "x=%s", it_tmp("x20k.npy"));
  CU_ASSERT_EQUAL_FATAL(mkdir(dir, 0777), 0);
  const char *prog = tfsess_program();
  pid_t pid = fork();
  CU_ASSERT_FATAL(pid >= 0);
  if (pid == 0) {
    if (chdir(it_srcdir()) != 0) _exit(126);
    int devnull = open("/dev/null", O_WRONLY);
    dup2(devnull, 1);
    dup2(devnull, 2);
    execl(prog, "tfsess", "run", DIGITS, "--feed",
          feed, "--fetch", "probs", "--batch", "1", "--out", dir, "--quiet",
          (char *)NULL);
    _exit(127);
  }
  /* wait for the temporary to appear, then stop the run */
  int seen = 0;
  for (int i = 0; i < 5000 && !seen; i++) {
    seen = dir_entries(dir) > 0;
    if (!seen) {
      struct timespec ts = {0, 1000000};
      nanosleep(&ts, NULL);
    }
  }
  CU_ASSERT_TRUE(seen);
  kill(pid, SIGTERM);
  int status;
  waitpid(pid, &status, 0);
  CU_ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
  /* No temporary is left.  On a loaded machine the signal may come after
   * the rename: then the output is there, and whole. */
  DIR *d = opendir(dir);
  struct dirent *e;
  while (d && (e = readdir(d))) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    CU_ASSERT_STRING_EQUAL(e->d_name, "probs_0.npy");
    char path[4400];
    snprintf(path, sizeof path, "%s/probs_0.npy", dir);
    tfs_tensor *t = load(path);
    CU_ASSERT_EQUAL(tfs_tensor_dim(t, 0), ROWS);
    tfs_tensor_free(t);
  }
  if (d) closedir(d);
}

/* ---- --save-config alone, inspect, .pbtxt -------------------------------- */

static void test_save_config_only(void) {
  result r = tfsess("run " DIGITS " --intra 3 --save-config '%s'",
                    it_tmp("only.pb"));
  CU_ASSERT_EQUAL(r.status, 0);
  CU_ASSERT_STRING_EQUAL(r.out, "");
  CU_ASSERT_STRING_EQUAL(r.err, "");
  result_free(&r);
  size_t n;
  uint8_t *got = it_read_file(it_tmp("only.pb"), &n);
  CU_ASSERT_EQUAL_FATAL(n, 2); /* intra_op_parallelism_threads: 3 */
  CU_ASSERT_EQUAL(memcmp(got, "\x10\x03", 2), 0);
  free(got);
  /* without --save-config there is still nothing to run */
  r = tfsess("run " DIGITS " --intra 3");
  assert_fails(&r, 2, "nothing to run: give --fetch or --target");
}

static void test_inspect_exit_status(void) {
  static const char unknown[] =
      "node { name: \"x\" op: \"Placeholder\" "
      "attr { key: \"dtype\" value { type: DT_FLOAT } } }\n"
      "node { name: \"n\" op: \"NoSuchOpAtAll\" input: \"x\" }\n";
  it_write_file(it_tmp("unknown.pbtxt"), unknown, sizeof unknown - 1);
  result r = tfsess("inspect '%s'", it_tmp("unknown.pbtxt"));
  CU_ASSERT_EQUAL(r.status, 1);
  CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "Cannot run (1 node):\n"
                                       "  NoSuchOpAtAll: not registered in "
                                       "this build: n\n"));
  CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "Inputs (1):\n  x: float "));
  result_free(&r);
  /* an op only a library function's body uses */
  static const char in_function[] =
      "library { function {\n"
      "  signature { name: \"f\" input_arg { name: \"a\" type: DT_FLOAT }\n"
      "    output_arg { name: \"o\" type: DT_FLOAT } }\n"
      "  node_def { name: \"m\" op: \"NoSuchBodyOp\" input: \"a\" }\n"
      "  ret { key: \"o\" value: \"m:z:0\" } } }\n"
      "node { name: \"x\" op: \"Placeholder\" "
      "attr { key: \"dtype\" value { type: DT_FLOAT } } }\n"
      "node { name: \"c\" op: \"f\" input: \"x\" }\n";
  it_write_file(it_tmp("infn.pbtxt"), in_function, sizeof in_function - 1);
  r = tfsess("inspect '%s'", it_tmp("infn.pbtxt"));
  CU_ASSERT_EQUAL(r.status, 1);
  CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "  NoSuchBodyOp: not registered in "
                                       "this build: f/m\n"));
  result_free(&r);
  /* a function nothing calls never runs: not reported */
  static const char uncalled[] =
      "library { function {\n"
      "  signature { name: \"f\" input_arg { name: \"a\" type: DT_FLOAT }\n"
      "    output_arg { name: \"o\" type: DT_FLOAT } }\n"
      "  node_def { name: \"m\" op: \"NoSuchBodyOp\" input: \"a\" }\n"
      "  ret { key: \"o\" value: \"m:z:0\" } } }\n"
      "node { name: \"x\" op: \"Placeholder\" "
      "attr { key: \"dtype\" value { type: DT_FLOAT } } }\n";
  it_write_file(it_tmp("uncalled.pbtxt"), uncalled, sizeof uncalled - 1);
  r = tfsess("inspect '%s'", it_tmp("uncalled.pbtxt"));
  CU_ASSERT_EQUAL(r.status, 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "Every op can run in this build.\n"));
  result_free(&r);
  r = tfsess("inspect " DIGITS);
  CU_ASSERT_EQUAL(r.status, 0);
  result_free(&r);
  /* text that does not parse */
  it_write_file(it_tmp("bad.pbtxt"), "node { name: ", 13);
  r = tfsess("inspect '%s'", it_tmp("bad.pbtxt"));
  assert_fails(&r, 1, "bad.pbtxt: Invalid GraphDef text: 1:");
}

static void test_pbtxt_optimize_and_run(void) {
  char txt[4200], back[4200];
  snprintf(txt, sizeof txt, "%s", it_tmp("digits_opt.pbtxt"));
  snprintf(back, sizeof back, "%s", it_tmp("digits_back.pb"));
  result r = tfsess("optimize " DIGITS " -o '%s' --fetch probs", txt);
  CU_ASSERT_EQUAL(r.status, 0);
  result_free(&r);
  size_t n;
  char *text = (char *)it_read_file(txt, &n);
  CU_ASSERT_FATAL(text != NULL && n > 6);
  CU_ASSERT_EQUAL(memcmp(text, "node {\n", 7), 0);
  free(text);
  /* the text graph runs, inspects and goes back to binary */
  r = tfsess("run '%s' --feed x=" X_TEST " --fetch probs --out '%s' --quiet",
             txt, it_tmp("txt_run"));
  CU_ASSERT_EQUAL(r.status, 0);
  result_free(&r);
  r = tfsess("inspect '%s'", txt);
  CU_ASSERT_EQUAL(r.status, 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "Inputs (1):\n  x: float [?,64]\n"));
  result_free(&r);
  r = tfsess("optimize '%s' -o '%s' --fetch probs", txt, back);
  CU_ASSERT_EQUAL(r.status, 0);
  result_free(&r);
  r = tfsess("run '%s' --feed x=" X_TEST " --fetch probs --out '%s' --quiet",
             back, it_tmp("bin_run"));
  CU_ASSERT_EQUAL(r.status, 0);
  result_free(&r);
  char p1[4300], p2[4300], why[512];
  snprintf(p1, sizeof p1, "%s/probs_0.npy", it_tmp("txt_run"));
  snprintf(p2, sizeof p2, "%s/probs_0.npy", it_tmp("bin_run"));
  tfs_tensor *a = load(p1), *b = load(p2);
  CU_ASSERT_EQUAL(tc_compare(a, b, 0, 0, why, sizeof why), 0);
  tfs_tensor_free(a);
  tfs_tensor_free(b);
}

/* optimize -o and --save-config write through a temporary: an existing
 * file is replaced whole, a failed write leaves nothing behind. */
static void test_single_file_outputs(void) {
  char dir[4200], out[4300], cfg[4300];
  snprintf(dir, sizeof dir, "%s", it_tmp("single"));
  mkdir(dir, 0755);
  snprintf(out, sizeof out, "%s/o.pb", dir);
  snprintf(cfg, sizeof cfg, "%s/c.pb", dir);
  for (int i = 0; i < 2; i++) { /* the second time over the first */
    result r = tfsess("optimize " DIGITS " -o '%s' --fetch probs", out);
    CU_ASSERT_EQUAL(r.status, 0);
    result_free(&r);
    r = tfsess("run " DIGITS " --intra 2 --save-config '%s'", cfg);
    CU_ASSERT_EQUAL(r.status, 0);
    result_free(&r);
    CU_ASSERT_EQUAL(dir_entries(dir), 2);
  }
  result r = tfsess("optimize " DIGITS " -o '%s/no/such/o.pb'", dir);
  CU_ASSERT_EQUAL(r.status, 1);
  CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "/no/such/o.pb: cannot write (a "
                                       "temporary file next to it): No such "
                                       "file or directory"));
  result_free(&r);
  CU_ASSERT_EQUAL(dir_entries(dir), 2);
}

static const tfs_test_case run_cases[] = {
    {"progress_on_terminal", test_progress_on_terminal},
    {"single_file_outputs", test_single_file_outputs},
    {"progress_in_pipe", test_progress_in_pipe},
    {"feed_float64", test_feed_float64},
    {"feed_int64", test_feed_int64},
    {"feed_saved_model", test_feed_saved_model},
    {"outputs_atomic", test_outputs_atomic},
    {"outputs_interrupted", test_outputs_interrupted},
    {"save_config_only", test_save_config_only},
    {"inspect_exit_status", test_inspect_exit_status},
    {"pbtxt_optimize_and_run", test_pbtxt_optimize_and_run},
    {NULL, NULL}};

const tfs_test_suite tfs_test_suites[] = {{"cli_run", run_cases},
                                          {NULL, NULL}};
