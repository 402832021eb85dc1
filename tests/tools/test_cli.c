/*
 * tests/tools/test_cli.c - the `tfsess` program as a user runs it: --help
 * of every subcommand, exit statuses and one-line errors, `run` on a
 * conformance case and on the bundled digits model, the 10,000-row
 * `--batch 256` run against an unbatched run and TensorFlow's outputs
 * (every 97th row in full, every row's class, each column's sum),
 * `inspect`, `ops` and `tensorboard` (with a graph's function library).
 */
#include <math.h>
#include <stdlib.h>

#include "cli_util.h"
#include "conformance.h"
#include "io/events.h"
#include "iotest.h"
#include "proto/config.pb-c.h"
#include "proto/event.pb-c.h"
#include "proto/graph.pb-c.h"
#include "testutil.h"

/* ---- help and errors ----------------------------------------------------- */

static void test_cli_help(void) {
  static const char *cmds[] = {"run", "inspect", "ops", "tensorboard"};
  result r = tfsess("--help");
  CU_ASSERT_EQUAL(r.status, 0);
  for (size_t i = 0; i < 4; i++) CU_ASSERT_PTR_NOT_NULL(strstr(r.out, cmds[i]));
  result_free(&r);
  for (size_t i = 0; i < 4; i++) {
    char usage[64];
    snprintf(usage, sizeof usage, "usage: tfsess %s", cmds[i]);
    r = tfsess("%s --help", cmds[i]);
    CU_ASSERT_EQUAL(r.status, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, usage));
    CU_ASSERT_STRING_EQUAL(r.err, "");
    result_free(&r);
    r = tfsess("help %s", cmds[i]);
    CU_ASSERT_EQUAL(r.status, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, usage));
    result_free(&r);
  }
  r = tfsess("run --help");
  CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "--batch N"));
  CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "--intra N"));
  CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "--config CONFIG.pb"));
  result_free(&r);
  r = tfsess("--version");
  CU_ASSERT_EQUAL(r.status, 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(r.out, TFS_VERSION_STRING));
  result_free(&r);
}

static void test_cli_errors_are_one_line(void) {
  result r = tfsess("frobnicate");
  assert_fails(&r, 2, "tfsess: unknown command 'frobnicate'");
  r = tfsess("");
  CU_ASSERT_EQUAL(r.status, 2);
  result_free(&r);
  r = tfsess("run");
  assert_fails(&r, 2, "tfsess run: missing arguments; usage: tfsess run");
  r = tfsess("run models/digits/graph.pb --fetch probs --bogus 1");
  assert_fails(&r, 2, "tfsess run: unknown option '--bogus'");
  r = tfsess("run models/digits/graph.pb --fetch probs --batch 0");
  assert_fails(&r, 2, "--batch needs an integer from 1");
  r = tfsess("run models/digits/graph.pb");
  assert_fails(&r, 2, "nothing to run: give --fetch or --target");
  r = tfsess("run no/such/model.pb --fetch y");
  assert_fails(&r, 1,
               "tfsess run: no/such/model.pb: cannot read: No such "
               "file or directory");
  r = tfsess("run tests/io/data/f32_c.npy --fetch y");
  assert_fails(&r, 1, "tfsess run: tests/io/data/f32_c.npy: ");
  r = tfsess("run models/digits/graph.pb --fetch nope:0");
  assert_fails(&r, 1, "fetch 'nope:0': ");
  r = tfsess("run models/digits/graph.pb --fetch probs --fetch probs:0");
  assert_fails(&r, 2, "fetch 'probs:0' is given twice");
  r = tfsess("run models/digits/graph.pb --fetch probs --feed x");
  assert_fails(&r, 2, "--feed 'x': expected NAME[:INDEX]=FILE.npy");
  r = tfsess("run models/digits/graph.pb --fetch probs --feed x=none.npy");
  assert_fails(&r, 1, "feed 'x': none.npy: cannot open");
  /* A feed of the wrong dtype: the session's error, on one line. */
  r = tfsess(
      "run models/digits/graph.pb --fetch probs "
      "--feed x=models/digits/y_test.npy");
  assert_fails(&r, 1, "tfsess run: ");
  r = tfsess("run models/digits/graph.pb --fetch probs --target nosuchop");
  assert_fails(&r, 1, "target 'nosuchop': no operation of that name");
  r = tfsess("run models/digits/graph.pb --fetch probs --config none.pb");
  assert_fails(&r, 1, "none.pb: cannot read");
  r = tfsess("inspect missing.pb");
  assert_fails(&r, 1, "tfsess inspect: missing.pb: cannot read");
  r = tfsess("inspect tests/io/data/f32_c.npy");
  assert_fails(&r, 1, "f32_c.npy: Invalid GraphDef");
  r = tfsess("tensorboard models/digits/graph.pb");
  assert_fails(&r, 2, "--logdir DIR is required");
  r = tfsess("ops NoSuchOpAnywhere");
  assert_fails(&r, 1, "Op type not registered 'NoSuchOpAnywhere'");
}

/* ---- run ----------------------------------------------------------------- */

static void test_cli_run_conformance_case(void) {
  const char *dir = "tests/conformance/mlp/mlp_softmax";
  result r = tfsess(
      "run %s/graph.pb --feed x:0=%s/feed0.npy --fetch probs:0 "
      "--fetch dense/Relu --out '%s'",
      dir, dir, it_tmp("o1"));
  CU_ASSERT_EQUAL_FATAL(r.status, 0);
  CU_ASSERT_STRING_EQUAL(r.err, "");
  CU_ASSERT_EQUAL(count_lines(r.out), 2);
  char line[512];
  snprintf(line, sizeof line, "probs:0: float [5,3] min ");
  CU_ASSERT_PTR_NOT_NULL(strstr(r.out, line));
  snprintf(line, sizeof line, " -> %s/dense__Relu_0.npy\n", it_tmp("o1"));
  CU_ASSERT_PTR_NOT_NULL(strstr(r.out, line));
  result_free(&r);
  char path[4200], err[1024];
  snprintf(path, sizeof path, "%s/probs_0.npy", it_tmp("o1"));
  tfs_tensor *got = load(path);
  snprintf(path, sizeof path, "%s/%s/fetch0.npy", it_srcdir(), dir);
  tfs_tensor *want = load(path);
  int rc = tc_compare(got, want, -1, -1, err, sizeof err);
  if (rc) fprintf(stderr, "\n  %s\n", err);
  CU_ASSERT_EQUAL(rc, 0);
  tfs_tensor_free(got);
  tfs_tensor_free(want);
  /* --quiet prints nothing; a ConfigProto and thread flags are taken. */
  r = tfsess(
      "run tests/conformance/seed/session_config/graph.pb --fetch "
      "product --config tests/conformance/seed/session_config/"
      "config.pb --intra 1 --inter 1 --quiet --out '%s'",
      it_tmp("o2"));
  CU_ASSERT_EQUAL(r.status, 0);
  CU_ASSERT_STRING_EQUAL(r.out, "");
  result_free(&r);
  snprintf(path, sizeof path, "%s/product_0.npy", it_tmp("o2"));
  got = load(path);
  CU_ASSERT_EQUAL(*(const int32_t *)tfs_tensor_data(got), 15);
  tfs_tensor_free(got);
}

/* --save-config writes the ConfigProto the session ran with, in the
 * bytes TensorFlow writes: flags over an empty config, and a config
 * TensorFlow serialized (tests/data/wire) passed through unchanged. */
static void test_cli_save_config(void) {
  const char *g = "tests/conformance/seed/session_config/graph.pb";
  result r = tfsess("run %s --fetch product --quiet --force --out '%s' "
                    "--intra 3 --inter 2 --save-config '%s'",
                    g, it_tmp("sc"), it_tmp("flags.pb"));
  CU_ASSERT_EQUAL(r.status, 0);
  result_free(&r);
  size_t n;
  uint8_t *got = it_read_file(it_tmp("flags.pb"), &n);
  /* intra_op_parallelism_threads: 3, inter_op_parallelism_threads: 2 */
  CU_ASSERT_EQUAL_FATAL(n, 4);
  CU_ASSERT_EQUAL(memcmp(got, "\x10\x03\x28\x02", 4), 0);
  free(got);
  r = tfsess("run %s --fetch product --quiet --force --out '%s' --config "
             "tests/data/wire/config_defaults.pb --save-config '%s'",
             g, it_tmp("sc"), it_tmp("same.pb"));
  CU_ASSERT_EQUAL(r.status, 0);
  result_free(&r);
  size_t m;
  uint8_t *tf = it_read_file(it_src("tests/data/wire/config_defaults.pb"), &m);
  got = it_read_file(it_tmp("same.pb"), &n);
  CU_ASSERT_EQUAL_FATAL(n, m);
  CU_ASSERT_EQUAL(memcmp(got, tf, m), 0);
  free(got);
  free(tf);
  r = tfsess("run %s --fetch product --quiet --force --out '%s' "
             "--save-config '%s/no/such/dir/c.pb'",
             g, it_tmp("sc"), it_tmpdir());
  assert_fails(&r, 1, "/no/such/dir/c.pb: cannot write");
}

static void test_cli_run_digits_equals_tensorflow(void) {
  result r = tfsess(
      "run models/digits/graph.pb --feed x=models/digits/"
      "x_test.npy --fetch probs --out '%s'",
      it_tmp("d"));
  CU_ASSERT_EQUAL_FATAL(r.status, 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "probs: float [360,10] min "));
  result_free(&r);
  char path[4200], err[1024];
  snprintf(path, sizeof path, "%s/probs_0.npy", it_tmp("d"));
  tfs_tensor *got = load(path);
  tfs_tensor *want = load(it_src("models/digits/tf_probs.npy"));
  int rc = tc_compare(got, want, -1, -1, err, sizeof err);
  if (rc) fprintf(stderr, "\n  %s\n", err);
  CU_ASSERT_EQUAL(rc, 0);
  tfs_tensor_free(got);
  tfs_tensor_free(want);
  /* The demo's scoring helper agrees with TensorFlow's predictions. */
  char cmd[8192];
  snprintf(cmd, sizeof cmd,
           "cd '%s' && '%s/tools/npy_accuracy' '%s' "
           "models/digits/y_test.npy models/digits/tf_predictions.npy "
           ">/dev/null",
           it_srcdir(), it_builddir(), path);
  CU_ASSERT_EQUAL(system(cmd), 0);
}

/* Every one of the 10,000 rows against TensorFlow's digests of them
 * (scripts/fixtures/gen_digits_batch.py): its arg-max class (a different
 * class only where the two top probabilities tie within float32 rounding)
 * and each column's sum over all rows. */
static void check_all_10k_rows(const tfs_tensor *probs) {
  tfs_tensor *classes = load(it_src("models/digits/gen10k_tf_classes.npy"));
  tfs_tensor *colsum = load(it_src("models/digits/gen10k_tf_colsum.npy"));
  CU_ASSERT_EQUAL_FATAL(tfs_tensor_num_elements(classes), 10000);
  CU_ASSERT_EQUAL_FATAL(tfs_tensor_num_elements(colsum), 10);
  const float *p = tfs_tensor_data(probs);
  const uint8_t *want = tfs_tensor_data(classes);
  double sums[10] = {0};
  int differ = 0;
  for (int i = 0; i < 10000; i++) {
    const float *row = p + i * 10;
    int best = 0;
    for (int k = 0; k < 10; k++) {
      sums[k] += row[k];
      if (row[k] > row[best]) best = k;
    }
    if (best != want[i] &&
        fabsf(row[best] - row[want[i]]) > 1e-5f * row[best] + 1e-7f) {
      if (differ++ < 3)
        fprintf(stderr, "\n  row %d: class %d, TensorFlow's %d\n", i, best,
                want[i]);
    }
  }
  CU_ASSERT_EQUAL(differ, 0);
  const double *tf = tfs_tensor_data(colsum);
  for (int k = 0; k < 10; k++) {
    int ok = fabs(sums[k] - tf[k]) <= 1e-5 * fabs(tf[k]) + 1e-4;
    if (!ok)
      fprintf(stderr, "\n  column %d sums to %.6f, TensorFlow's %.6f\n", k,
              sums[k], tf[k]);
    CU_ASSERT_TRUE(ok);
  }
  tfs_tensor_free(classes);
  tfs_tensor_free(colsum);
}

/* The "done when": 10,000 generated rows through --batch 256 give
 * what an unbatched run gives and what TensorFlow gives. */
static void test_cli_batch_10k_rows(void) {
  const int64_t n = 10000;
  tfs_status *st = tfs_status_new();
  tfs_tensor *x = tfs_tensor_new(TFS_FLOAT, (int64_t[]){n, 64}, 2, st);
  for (int64_t i = 0; i < n; i++)
    tc_generated_row(i, (float *)tfs_tensor_data(x) + i * 64);
  tfs_npy_write(it_tmp("x10k.npy"), x, st);
  TFS_ASSERT_OK(st);
  tfs_tensor_free(x);
  result r = tfsess(
      "run models/digits/graph.pb --feed x='%s' --fetch probs "
      "--batch 256 --out '%s'",
      it_tmp("x10k.npy"), it_tmp("b256"));
  CU_ASSERT_EQUAL_FATAL(r.status, 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "probs: float [10000,10] min "));
  result_free(&r);
  r = tfsess(
      "run models/digits/graph.pb --feed x='%s' --fetch probs --out "
      "'%s' --quiet",
      it_tmp("x10k.npy"), it_tmp("whole"));
  CU_ASSERT_EQUAL_FATAL(r.status, 0);
  result_free(&r);
  char path[4200], err[1024];
  snprintf(path, sizeof path, "%s/probs_0.npy", it_tmp("b256"));
  tfs_tensor *batched = load(path);
  snprintf(path, sizeof path, "%s/probs_0.npy", it_tmp("whole"));
  tfs_tensor *whole = load(path);
  int rc = tc_compare(batched, whole, 1e-6, 1e-7, err, sizeof err);
  if (rc) fprintf(stderr, "\n  batched vs whole: %s\n", err);
  CU_ASSERT_EQUAL(rc, 0);
  /* TensorFlow's outputs for every 97th row. */
  tfs_tensor *rows = load(it_src("models/digits/gen10k_rows.npy"));
  tfs_tensor *want = load(it_src("models/digits/gen10k_tf_probs.npy"));
  int64_t k = tfs_tensor_num_elements(rows);
  tfs_tensor *sub = tfs_tensor_new(TFS_FLOAT, (int64_t[]){k, 10}, 2, st);
  for (int64_t i = 0; i < k; i++)
    memcpy((float *)tfs_tensor_data(sub) + i * 10,
           (const float *)tfs_tensor_data(batched) +
               ((const int64_t *)tfs_tensor_data(rows))[i] * 10,
           10 * sizeof(float));
  rc = tc_compare(sub, want, -1, -1, err, sizeof err);
  if (rc) fprintf(stderr, "\n  batched vs TensorFlow: %s\n", err);
  CU_ASSERT_EQUAL(rc, 0);
  tfs_tensor_free(sub);
  tfs_tensor_free(rows);
  tfs_tensor_free(want);
  check_all_10k_rows(batched);
  tfs_tensor_free(batched);
  tfs_tensor_free(whole);
  tfs_status_free(st);
}

static void test_cli_batch_errors(void) {
  tfs_status *st = tfs_status_new();
  tfs_tensor *a = tfs_tensor_new(TFS_FLOAT, (int64_t[]){10, 3}, 2, st);
  tfs_tensor *b = tfs_tensor_new(TFS_FLOAT, (int64_t[]){7, 3}, 2, st);
  tfs_npy_write(it_tmp("a.npy"), a, st);
  tfs_npy_write(it_tmp("b.npy"), b, st);
  TFS_ASSERT_OK(st);
  const char *g = "tests/conformance/mlp/placeholders_none_3/graph.pb";
  result r = tfsess(
      "run %s --feed x='%s' --feed y='%s' --fetch prod "
      "--batch 4",
      g, it_tmp("a.npy"), it_tmp("b.npy"));
  assert_fails(&r, 1, "--batch: feed 'y' has 7 rows but feed 'x' has 10");
  r = tfsess("run %s --feed x='%s' --feed y='%s' --fetch colmean --batch 4", g,
             it_tmp("a.npy"), it_tmp("a.npy"));
  assert_fails(&r, 1,
               "batch at rows 0-4: fetch 'colmean' has 3 rows for 4 "
               "input rows; with --batch every fetch needs one row "
               "per input row");
  r = tfsess(
      "run %s --feed x='%s' --feed y='%s' --fetch prod --fetch rowsum "
      "--batch 3 --out '%s'",
      g, it_tmp("a.npy"), it_tmp("a.npy"), it_tmp("b3"));
  CU_ASSERT_EQUAL(r.status, 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(r.out,
                                "rowsum: float [10] min 0 mean 0 "
                                "max 0"));
  result_free(&r);
  tfs_tensor_free(a);
  tfs_tensor_free(b);
  tfs_status_free(st);
}

/* ---- inspect, ops, tensorboard ------------------------------------------- */

static void test_cli_inspect(void) {
  result r = tfsess("inspect models/digits/graph.pb");
  CU_ASSERT_EQUAL(r.status, 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "Inputs (1):\n  x: float [?,64]\n"));
  CU_ASSERT_PTR_NOT_NULL(strstr(r.out,
                                "Likely outputs (1):\n  probs "
                                "(Softmax)\n"));
  CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "MatMul\n"));
  /* 64*32 + 32 + 32*10 + 10 weights and the 1/16 scale */
  CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "Parameters: 2411 in 5 Const nodes"));
  CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "Every op can run in this build."));
  result_free(&r);
  /* node {name: "n" op: "NoSuchOpAtAll" input: "m" input: "^m"}
   * node {name: "m" op: "NoOp"} */
  static const char gd[] =
      "\x0a\x19\x0a\x01n\x12\x0dNoSuchOpAtAll"
      "\x1a\x01m\x1a\x02^m"
      "\x0a\x09\x0a\x01m\x12\x04NoOp";
  it_write_file(it_tmp("odd.pb"), gd, sizeof gd - 1);
  r = tfsess("inspect '%s'", it_tmp("odd.pb"));
  CU_ASSERT_EQUAL(r.status, 1); /* an op that cannot run */
  CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "Cannot run (1 node):\n"));
  CU_ASSERT_PTR_NOT_NULL(strstr(r.out,
                                "  NoSuchOpAtAll: not registered in "
                                "this build: n\n"));
  CU_ASSERT_PTR_NOT_NULL(strstr(r.out,
                                "Likely outputs (1):\n  n "
                                "(NoSuchOpAtAll)\n"));
  result_free(&r);
}

/* Appends the varint v to buf[*n..). */
static void put_varint(uint8_t *buf, size_t *n, size_t v) {
  do {
    buf[(*n)++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
    v >>= 7;
  } while (v);
}

/* A GraphDef whose one node has an attr nested `depth` times:
 * AttrValue{func: NameAttrList{attr {key: "a" value: <inner>}}}, written
 * from the inside out (each level's length prefixes the one inside). */
static uint8_t *deep_graph_def(int depth, size_t *len) {
  size_t cap = (size_t)depth * 24 + 64, n = 0;
  uint8_t *in = malloc(cap), *out = malloc(cap), *t;
  for (int i = 0; i < depth; i++) {
    size_t m = 0, inner = n;
    uint8_t entry[16], list[16];
    size_t ne = 0, nl = 0;
    entry[ne++] = 0x0a; /* MapEntry.key "a" */
    entry[ne++] = 0x01;
    entry[ne++] = 'a';
    entry[ne++] = 0x12; /* MapEntry.value */
    put_varint(entry, &ne, inner);
    list[nl++] = 0x12; /* NameAttrList.attr */
    put_varint(list, &nl, ne + inner);
    out[m++] = 0x52; /* AttrValue.func */
    put_varint(out, &m, nl + ne + inner);
    memcpy(out + m, list, nl);
    memcpy(out + m + nl, entry, ne);
    memcpy(out + m + nl + ne, in, inner);
    n = m + nl + ne + inner;
    t = in;
    in = out;
    out = t;
  }
  /* NodeDef{name: "n" op: "Const" attr {key: "a" value: <in>}} */
  size_t m = 0, ne = 0;
  uint8_t entry[16], node[32];
  entry[ne++] = 0x0a;
  entry[ne++] = 0x01;
  entry[ne++] = 'a';
  entry[ne++] = 0x12;
  put_varint(entry, &ne, n);
  static const uint8_t head[] = {0x0a, 0x01, 'n', 0x12, 0x05,
                                 'C',  'o',  'n', 's',  't'};
  memcpy(node, head, sizeof head);
  size_t nn = sizeof head;
  node[nn++] = 0x2a; /* NodeDef.attr */
  put_varint(node, &nn, ne + n);
  out[m++] = 0x0a; /* GraphDef.node */
  put_varint(out, &m, nn + ne + n);
  memcpy(out + m, node, nn);
  memcpy(out + m + nn, entry, ne);
  memcpy(out + m + nn + ne, in, n);
  *len = m + nn + ne + n;
  free(in);
  return out;
}

/* `inspect` parses through the library's protobuf entry point, with its
 * nesting limit: 100,000 levels are refused (they overflowed the stack
 * when the command called protobuf-c directly), 20 are fine. */
static void test_cli_inspect_deep_nesting(void) {
  size_t len;
  uint8_t *deep = deep_graph_def(100000, &len);
  it_write_file(it_tmp("deep.pb"), deep, len);
  free(deep);
  result r = tfsess("inspect '%s'", it_tmp("deep.pb"));
  assert_fails(&r, 1, "deep.pb: Invalid GraphDef");
  r = tfsess("run '%s' --fetch n", it_tmp("deep.pb"));
  assert_fails(&r, 1, "Invalid GraphDef");
  uint8_t *ok = deep_graph_def(20, &len);
  it_write_file(it_tmp("nested.pb"), ok, len);
  free(ok);
  r = tfsess("inspect '%s'", it_tmp("nested.pb"));
  CU_ASSERT_EQUAL(r.status, 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "Graph: "));
  result_free(&r);
}

/* --safe, --limit and --allow-op: limits reach the run and the import,
 * and travel in --save-config's ConfigProto. */
static void test_cli_safe_mode(void) {
  const char *dir = "tests/conformance/mlp/mlp_softmax";
  result r = tfsess("run %s/graph.pb --feed x:0=%s/feed0.npy --fetch probs:0 "
                    "--safe --quiet --out '%s'",
                    dir, dir, it_tmp("safe1"));
  CU_ASSERT_EQUAL(r.status, 0);
  CU_ASSERT_STRING_EQUAL(r.err, "");
  result_free(&r);
  r = tfsess("run %s/graph.pb --feed x:0=%s/feed0.npy --fetch probs:0 "
             "--safe --limit tensor-bytes=16 --quiet --out '%s'",
             dir, dir, it_tmp("safe2"));
  assert_fails(&r, 1, "bytes, over the session's limit of 16 bytes per "
                      "tensor");
  r = tfsess("run %s/graph.pb --fetch probs:0 --limit tensor-size=1", dir);
  assert_fails(&r, 2, "--limit: expected NAME=VALUE");
  r = tfsess("run %s/graph.pb --fetch probs:0 --limit run-bytes=1X", dir);
  assert_fails(&r, 2, "--limit run-bytes: '1X' is not a positive integer");
  /* nesting: 20 attr levels (about 60 messages deep) import by default */
  size_t len;
  uint8_t *nested = deep_graph_def(20, &len);
  it_write_file(it_tmp("nested20.pb"), nested, len);
  free(nested);
  r = tfsess("run '%s' --fetch n --limit nesting=10", it_tmp("nested20.pb"));
  assert_fails(&r, 1, "nested20.pb: Invalid GraphDef");
  r = tfsess("run '%s' --fetch n --limit graph-nodes=0", it_tmp("nested20.pb"));
  assert_fails(&r, 2, "is not a positive integer");
  /* the limits as ConfigProto field 7600 */
  r = tfsess("run %s/graph.pb --feed x:0=%s/feed0.npy --fetch probs:0 "
             "--quiet --out '%s' --limit op-elements=1k --allow-op ReadFile "
             "--save-config '%s'",
             dir, dir, it_tmp("safe3"), it_tmp("limits.pb"));
  CU_ASSERT_EQUAL(r.status, 0);
  result_free(&r);
  uint8_t *got = it_read_file(it_tmp("limits.pb"), &len);
  static const uint8_t want[] = {0x82, 0xdb, 0x03, 0x0d, 0x30, 0x80, 0x08,
                                 0x3a, 0x08, 'R', 'e', 'a', 'd',
                                 'F', 'i', 'l', 'e'};
  CU_ASSERT_EQUAL(len, sizeof want);
  CU_ASSERT(len == sizeof want && memcmp(got, want, len) == 0);
  free(got);
}

/* inspect lists the library's functions and checks the ops inside their
 * bodies (an op renamed inside the bodies only is reported there). */
static void test_cli_inspect_functions(void) {
  const char *g = "tests/conformance/functional/function_for_and_if/graph.pb";
  result r = tfsess("inspect %s", g);
  CU_ASSERT_EQUAL(r.status, 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(r.out, ", 5 library functions\n"));
  CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "Functions (5):\n"));
  CU_ASSERT_PTR_NOT_NULL(
      strstr(r.out, "  while_cond_320: 7 inputs, 1 output, 2 nodes\n"));
  CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "Every op can run in this build."));
  result_free(&r);
  size_t len;
  uint8_t *pb = it_read_file(it_src(g), &len);
  /* NodeDef.op "AddV2" (field 2, 5 bytes) -> "AddV9", bodies only */
  for (size_t i = 0; i + 7 <= len; i++)
    if (memcmp(pb + i, "\x12\x05" "AddV2", 7) == 0) pb[i + 6] = '9';
  it_write_file(it_tmp("renamed.pb"), pb, len);
  free(pb);
  r = tfsess("inspect '%s'", it_tmp("renamed.pb"));
  CU_ASSERT_EQUAL(r.status, 1);
  CU_ASSERT_PTR_NOT_NULL(strstr(
      r.out, "Cannot run (7 nodes):\n  AddV9: not registered in this build: "
             "while_body_321/add, while_body_321/add_1"));
  result_free(&r);
}

static void test_cli_ops(void) {
  result r = tfsess("ops");
  CU_ASSERT_EQUAL(r.status, 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "\nMatMul "));
  CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "CPU["));
  CU_ASSERT_PTR_NOT_NULL(strstr(r.out, " ops\n"));
  result_free(&r);
  r = tfsess("ops Softmax");
  CU_ASSERT_EQUAL(r.status, 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "Op<name=Softmax; signature="));
  CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "  kernels: CPU[float"));
  result_free(&r);
}

/* ckpt: a TensorFlow checkpoint's tensors as inspect_checkpoint names
 * them, a partitioned variable once with its full shape; values; the
 * missing-checkpoint message. */
static void test_cli_ckpt(void) {
  result r = tfsess("ckpt tests/data/checkpoints/partitioned/ckpt");
  CU_ASSERT_EQUAL(r.status, 0);
  CU_ASSERT_STRING_EQUAL(r.out, "bias (DT_INT64) [3]\nemb (DT_FLOAT) [7,3]\n"
                                "w (DT_FLOAT) [4,5]\n");
  result_free(&r);
  r = tfsess("ckpt tests/data/checkpoints/partitioned/ckpt --tensor bias "
             "--out '%s'", it_tmp("ckpt_out"));
  CU_ASSERT_EQUAL(r.status, 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "tensor_name:  bias\n[0 1 2]"));
  result_free(&r);
  r = tfsess("ckpt '%s'", it_tmp("no_such_ckpt"));
  assert_fails(&r, 1,
               "Unsuccessful TensorSliceReader constructor: Failed to find "
               "any matching files for");
  r = tfsess("ckpt tests/data/checkpoints/mixed/ckpt --tensor nope");
  assert_fails(&r, 1, "Key nope not found in checkpoint");
}

/* ops --missing-from: the listed ops without a CPU kernel, the coverage
 * line, exit 1 while any is missing; comments and blank lines skipped;
 * malformed lists refused with the file and line. */
static void test_cli_ops_missing_from(void) {
  static const char kList[] = "# ops of some list\nMatMul\n\n"
                              "  NoSuchOpAnywhere   # not an op\nSoftmax\n";
  it_write_file(it_tmp("ops.txt"), kList, sizeof kList - 1);
  result r = tfsess("ops --missing-from '%s'", it_tmp("ops.txt"));
  CU_ASSERT_EQUAL(r.status, 1);
  CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "NoSuchOpAnywhere"));
  CU_ASSERT_PTR_NOT_NULL(strstr(r.out, " not registered\n"));
  CU_ASSERT_PTR_NULL(strstr(r.out, "MatMul"));
  CU_ASSERT_PTR_NOT_NULL(strstr(
      r.out, "coverage: 2 of 3 listed ops have a CPU kernel (66.7%), "
             "1 missing\n"));
  result_free(&r);
  static const char kAll[] = "MatMul\nSoftmax\n";
  it_write_file(it_tmp("ops_all.txt"), kAll, sizeof kAll - 1);
  r = tfsess("ops --missing-from '%s'", it_tmp("ops_all.txt"));
  CU_ASSERT_EQUAL(r.status, 0);
  CU_ASSERT_STRING_EQUAL(
      r.out, "coverage: 2 of 2 listed ops have a CPU kernel (100.0%), "
             "0 missing\n");
  result_free(&r);
  static const char kBad[] = "MatMul\nSoftmax Relu\n";
  it_write_file(it_tmp("ops_bad.txt"), kBad, sizeof kBad - 1);
  r = tfsess("ops --missing-from '%s'", it_tmp("ops_bad.txt"));
  assert_fails(&r, 1, "ops_bad.txt:2: expected one op name per line");
  r = tfsess("ops --missing-from '%s'", it_tmp("no_such_list.txt"));
  assert_fails(&r, 1, "cannot open");
  r = tfsess("ops MatMul --missing-from '%s'", it_tmp("ops_all.txt"));
  assert_fails(&r, 2, "--missing-from takes no op names");
  /* the list the README's coverage figure comes from */
  r = tfsess("ops --missing-from tests/data/coverage/tf2onnx_ops.txt");
  CU_ASSERT_EQUAL(r.status, 1);
  CU_ASSERT_PTR_NOT_NULL(
      strstr(r.out, "coverage: 251 of 252 listed ops have a CPU kernel"));
  /* the one TensorFlow has no CPU kernel for either */
  CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "CudnnRNN "));
  result_free(&r);
  /* the op families of TensorFlow and Keras exports: every one */
  r = tfsess("ops --missing-from tests/data/coverage/export_families.txt");
  CU_ASSERT_EQUAL(r.status, 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(
      r.out, "coverage: 123 of 123 listed ops have a CPU kernel (100.0%)"));
  result_free(&r);
}

/* The traced run's profile names the graph's own nodes: the optimizer
 * fuses MatMul + BiasAdd + Relu, and the MatMul and BiasAdd are still
 * reported (zero-length, "[fused into ...]"), as is every MatMul. */
static void check_profile_names(const Tensorflow__GraphDef *gd,
                                const ProtobufCBinaryData *bytes) {
  Tensorflow__RunMetadata *m =
      tensorflow__run_metadata__unpack(NULL, bytes->len, bytes->data);
  CU_ASSERT_PTR_NOT_NULL_FATAL(m);
  CU_ASSERT_PTR_NOT_NULL_FATAL(m->step_stats);
  int fused = 0, matmuls = 0, in_graph_matmuls = 0;
  for (size_t i = 0; i < gd->n_node; i++)
    in_graph_matmuls += strcmp(gd->node[i]->op, "MatMul") == 0;
  for (size_t d = 0; d < m->step_stats->n_dev_stats; d++) {
    const Tensorflow__DeviceStepStats *ds = m->step_stats->dev_stats[d];
    for (size_t k = 0; k < ds->n_node_stats; k++) {
      const Tensorflow__NodeExecStats *ns = ds->node_stats[k];
      const Tensorflow__NodeDef *nd = NULL;
      for (size_t i = 0; i < gd->n_node && !nd; i++)
        if (strcmp(gd->node[i]->name, ns->node_name) == 0) nd = gd->node[i];
      CU_ASSERT_PTR_NOT_NULL(nd);
      fused += strstr(ns->timeline_label, "[fused into ") != NULL;
      matmuls += nd && strcmp(nd->op, "MatMul") == 0;
    }
  }
  CU_ASSERT(fused >= 2);
  CU_ASSERT_EQUAL(matmuls, in_graph_matmuls);
  tensorflow__run_metadata__free_unpacked(m, NULL);
}

static void test_cli_tensorboard(void) {
  result r = tfsess(
      "tensorboard models/digits/graph.pb --logdir '%s' "
      "--feed x=models/digits/x_test.npy --fetch probs",
      it_tmp("tb"));
  CU_ASSERT_EQUAL_FATAL(r.status, 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "(graph and a traced run)"));
  char *path = strstr(r.out, "wrote ");
  CU_ASSERT_PTR_NOT_NULL_FATAL(path);
  path += 6;
  *strstr(path, " (") = 0;
  CU_ASSERT_PTR_NOT_NULL(strstr(path, "/" TFS_EVENTS_FILE_PREFIX));
  tfs_status *st = tfs_status_new();
  tfs_record_reader *rd = tfs_record_reader_open(path, st);
  TFS_ASSERT_OK(st);
  const void *d;
  size_t len;
  int kinds[4] = {0}, n = 0;
  Tensorflow__GraphDef *gd = NULL;
  while (n < 4 && tfs_record_reader_next(rd, &d, &len, st) == 1) {
    Tensorflow__Event *ev = tensorflow__event__unpack(NULL, len, d);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ev);
    kinds[n++] = ev->what_case;
    if (ev->what_case == TENSORFLOW__EVENT__WHAT_GRAPH_DEF && !gd)
      gd = tensorflow__graph_def__unpack(NULL, ev->graph_def.len,
                                         ev->graph_def.data);
    if (ev->what_case == TENSORFLOW__EVENT__WHAT_TAGGED_RUN_METADATA) {
      CU_ASSERT_STRING_EQUAL(ev->tagged_run_metadata->tag, TFS_EVENTS_RUN_TAG);
      CU_ASSERT(ev->tagged_run_metadata->run_metadata.len > 10);
      CU_ASSERT_PTR_NOT_NULL_FATAL(gd);
      check_profile_names(gd, &ev->tagged_run_metadata->run_metadata);
    }
    tensorflow__event__free_unpacked(ev, NULL);
  }
  tensorflow__graph_def__free_unpacked(gd, NULL);
  TFS_ASSERT_OK(st);
  CU_ASSERT_EQUAL(n, 3);
  CU_ASSERT_EQUAL(kinds[0], TENSORFLOW__EVENT__WHAT_FILE_VERSION);
  CU_ASSERT_EQUAL(kinds[1], TENSORFLOW__EVENT__WHAT_GRAPH_DEF);
  CU_ASSERT_EQUAL(kinds[2], TENSORFLOW__EVENT__WHAT_TAGGED_RUN_METADATA);
  tfs_record_reader_free(rd);
  tfs_status_free(st);
  result_free(&r);
  r = tfsess("tensorboard models/digits/graph.pb --logdir '%s'", it_tmp("tb2"));
  CU_ASSERT_EQUAL(r.status, 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "(graph)\n"));
  result_free(&r);
}

/* The GraphDef of the graph_def event in the event file `path` (the
 * second record, after file_version), or NULL. */
static Tensorflow__GraphDef *read_event_graph(const char *path) {
  tfs_status *st = tfs_status_new();
  tfs_record_reader *rd = tfs_record_reader_open(path, st);
  TFS_ASSERT_OK(st);
  Tensorflow__GraphDef *gd = NULL;
  const void *d;
  size_t len;
  int n = 0, graphs = 0;
  while (rd && tfs_record_reader_next(rd, &d, &len, st) == 1) {
    Tensorflow__Event *ev = tensorflow__event__unpack(NULL, len, d);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ev);
    CU_ASSERT_EQUAL(ev->what_case, n == 0 ? TENSORFLOW__EVENT__WHAT_FILE_VERSION
                                          : TENSORFLOW__EVENT__WHAT_GRAPH_DEF);
    if (ev->what_case == TENSORFLOW__EVENT__WHAT_GRAPH_DEF) {
      graphs++;
      CU_ASSERT_EQUAL(ev->step, 0);
      if (!gd)
        gd = tensorflow__graph_def__unpack(NULL, ev->graph_def.len,
                                           ev->graph_def.data);
    }
    tensorflow__event__free_unpacked(ev, NULL);
    n++;
  }
  TFS_ASSERT_OK(st);
  CU_ASSERT_EQUAL(n, 2);
  CU_ASSERT_EQUAL(graphs, 1);
  tfs_record_reader_free(rd);
  tfs_status_free(st);
  return gd;
}

/* Runs `tfsess tensorboard` on `model` into `logdir`; returns the event
 * file's GraphDef (NULL on failure) and its stdout in *out. */
static Tensorflow__GraphDef *tensorboard_graph(const char *model,
                                               const char *logdir,
                                               result *out) {
  *out = tfsess("tensorboard %s --logdir '%s'", model, logdir);
  CU_ASSERT_EQUAL(out->status, 0);
  const char *w = strstr(out->out, "wrote ");
  const char *e = w ? strstr(w, " (graph)\n") : NULL;
  CU_ASSERT_PTR_NOT_NULL(e);
  if (!e) return NULL;
  char path[4096];
  snprintf(path, sizeof path, "%.*s", (int)(e - w - 6), w + 6);
  return read_event_graph(path);
}

/* The function named `name` in `lib`, or NULL. */
static const Tensorflow__FunctionDef *lib_function(
    const Tensorflow__FunctionDefLibrary *lib, const char *name) {
  for (size_t i = 0; lib && i < lib->n_function; i++)
    if (lib->function[i]->signature &&
        strcmp(lib->function[i]->signature->name, name) == 0)
      return lib->function[i];
  return NULL;
}

/* TensorBoard draws a graph's functions from the GraphDef's `library`
 * (each as its own graph in the "function library" area); TensorFlow's
 * summary writers keep it.  The event file must hold the library with
 * every function and body, and the tool names each function it wrote. */
static void test_cli_tensorboard_functions(void) {
  result r;
  Tensorflow__GraphDef *gd = tensorboard_graph(
      "tests/conformance/functional/while_sum/graph.pb", it_tmp("tbf1"), &r);
  CU_ASSERT_PTR_NOT_NULL_FATAL(gd);
  CU_ASSERT_EQUAL(gd->n_node, 13);
  CU_ASSERT_PTR_NOT_NULL_FATAL(gd->library);
  CU_ASSERT_EQUAL(gd->library->n_function, 2);
  const Tensorflow__FunctionDef *body =
      lib_function(gd->library, "while_body_138");
  const Tensorflow__FunctionDef *cond =
      lib_function(gd->library, "while_cond_137");
  CU_ASSERT_PTR_NOT_NULL_FATAL(body);
  CU_ASSERT_PTR_NOT_NULL_FATAL(cond);
  CU_ASSERT_EQUAL(body->n_node_def, 8);
  CU_ASSERT_EQUAL(cond->n_node_def, 1);
  CU_ASSERT_EQUAL(body->signature->n_input_arg, 5);
  CU_ASSERT_EQUAL(body->signature->n_output_arg, 5);
  CU_ASSERT_EQUAL(body->n_ret, 5);
  CU_ASSERT_PTR_NOT_NULL(strstr(r.out, " (graph)\n"
                                       "  function while_body_138: 8 nodes\n"
                                       "  function while_cond_137: 1 node\n"));
  CU_ASSERT_EQUAL(count_lines(r.out), 3);
  tensorflow__graph_def__free_unpacked(gd, NULL);
  result_free(&r);

  /* tf.function calling While and If: the event file's library is the
   * model's, function for function and byte for byte */
  const char *model =
      "tests/conformance/functional/function_for_and_if/graph.pb";
  gd = tensorboard_graph(model, it_tmp("tbf2"), &r);
  CU_ASSERT_PTR_NOT_NULL_FATAL(gd);
  size_t len;
  uint8_t *pb = it_read_file(it_src(model), &len);
  Tensorflow__GraphDef *want = tensorflow__graph_def__unpack(NULL, len, pb);
  free(pb);
  CU_ASSERT_PTR_NOT_NULL_FATAL(want);
  CU_ASSERT_PTR_NOT_NULL_FATAL(want->library);
  CU_ASSERT_PTR_NOT_NULL_FATAL(gd->library);
  CU_ASSERT_EQUAL(want->library->n_function, 5);
  CU_ASSERT_EQUAL(gd->n_node, want->n_node);
  CU_ASSERT_EQUAL_FATAL(gd->library->n_function, want->library->n_function);
  CU_ASSERT_EQUAL(count_lines(r.out), 1 + (int)want->library->n_function);
  for (size_t i = 0; i < want->library->n_function; i++) {
    const Tensorflow__FunctionDef *w = want->library->function[i];
    const Tensorflow__FunctionDef *got =
        lib_function(gd->library, w->signature->name);
    CU_ASSERT_PTR_NOT_NULL_FATAL(got);
    CU_ASSERT_EQUAL(got->n_node_def, w->n_node_def);
    size_t n1 = protobuf_c_message_get_packed_size(&w->base);
    size_t n2 = protobuf_c_message_get_packed_size(&got->base);
    CU_ASSERT_EQUAL_FATAL(n1, n2);
    uint8_t *b1 = malloc(n1 + 1), *b2 = malloc(n2 + 1);
    protobuf_c_message_pack(&w->base, b1);
    protobuf_c_message_pack(&got->base, b2);
    CU_ASSERT(memcmp(b1, b2, n1) == 0);
    free(b1);
    free(b2);
    char line[512];
    snprintf(line, sizeof line, "\n  function %s: %zu node%s\n",
             w->signature->name, w->n_node_def,
             w->n_node_def == 1 ? "" : "s");
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, line));
  }
  CU_ASSERT_PTR_NOT_NULL(
      strstr(r.out, "\n  function __inference_clipped_steps_395: 22 nodes\n"));
  tensorflow__graph_def__free_unpacked(want, NULL);
  tensorflow__graph_def__free_unpacked(gd, NULL);
  result_free(&r);

  /* no library, no function lines */
  r = tfsess("tensorboard models/digits/graph.pb --logdir '%s'",
             it_tmp("tbf3"));
  CU_ASSERT_EQUAL(r.status, 0);
  CU_ASSERT_EQUAL(count_lines(r.out), 1);
  CU_ASSERT_PTR_NULL(strstr(r.out, "function"));
  result_free(&r);
}

/* ---- control flow and function cases through `tfsess run` -------------- */

/* Appends " --flag 'DIR/value'" to the command (with_dir: a file). */
static void arg(char *cmd, size_t cap, const char *flag, const char *dir,
                const char *value) {
  size_t n = strlen(cmd);
  if (dir)
    snprintf(cmd + n, cap - n, " --%s '%s/%s'", flag, dir, value);
  else
    snprintf(cmd + n, cap - n, " --%s '%s'", flag, value);
}

/* Copies s with every run of white space made one space (the CLI prints
 * an error on one line). */
static char *squash(const char *s) {
  char *r = malloc(strlen(s) + 1), *o = r;
  for (; *s; s++) {
    int sp = *s == ' ' || *s == '\n' || *s == '\t';
    if (sp && o > r && o[-1] == ' ') continue;
    *o++ = sp ? ' ' : *s;
  }
  *o = 0;
  return r;
}

/* Runs one case with `tfsess run` and compares its .npy outputs (or its
 * error) with TensorFlow's.  Returns 0 or -1 with the reason in err. */
static int cli_case(const char *dir, char *err, size_t cap) {
  tc_manifest m;
  int rc = tc_manifest_parse(dir, &m, err, cap);
  char cmd[16384], out[4200];
  snprintf(out, sizeof out, "%s", it_tmp("cases"));
  snprintf(cmd, sizeof cmd, "run '%s/graph.pb' --quiet --force --out '%s'",
           dir, out);
  for (int i = 0; i < m.nfeeds; i++) {
    char f[9000];
    snprintf(f, sizeof f, "%s=%s/%s", m.feeds[i].name, dir, m.feeds[i].file);
    arg(cmd, sizeof cmd, "feed", NULL, f);
  }
  for (int i = 0; i < m.nfetches; i++)
    arg(cmd, sizeof cmd, "fetch", NULL, m.fetches[i].name);
  for (int i = 0; i < m.ntargets; i++)
    arg(cmd, sizeof cmd, "target", NULL, m.targets[i]);
  for (int i = 0; i < m.ninits; i++)
    arg(cmd, sizeof cmd, "init", NULL, m.inits[i]);
  if (m.config) arg(cmd, sizeof cmd, "config", dir, m.config);
  if (m.runs > 1) {
    size_t n = strlen(cmd);
    snprintf(cmd + n, sizeof cmd - n, " --runs %d", m.runs);
  }
  result r = tfsess("%s", cmd);
  if (rc) {
    /* manifest error already in err */
  } else if (m.error_code) {
    char *want = squash(m.error_text), *got = squash(r.err);
    if (r.status == 0 || !strstr(got, want))
      rc = -1, snprintf(err, cap, "expected an error containing \"%s\", "
                        "got exit %d: %s", m.error_text, r.status, r.err);
    free(want);
    free(got);
  } else if (r.status != 0) {
    rc = -1, snprintf(err, cap, "exit %d: %s", r.status, r.err);
  }
  for (int i = 0; rc == 0 && !m.error_code && i < m.nfetches; i++) {
    const char *name = m.fetches[i].name, *colon = strrchr(name, ':');
    char path[4400], want_path[9000];
    size_t k = snprintf(path, sizeof path, "%s/", out);
    for (const char *p = name; *p && p != colon && k + 3 < sizeof path; p++)
      k += *p == '/' ? (size_t)snprintf(path + k, sizeof path - k, "__")
                     : (size_t)snprintf(path + k, sizeof path - k, "%c", *p);
    snprintf(path + k, sizeof path - k, "_%s.npy", colon ? colon + 1 : "0");
    snprintf(want_path, sizeof want_path, "%s/%s", dir, m.fetches[i].file);
    tfs_tensor *got = load(path), *want = load(want_path);
    char why[1024];
    if (!got || !want ||
        tc_compare(got, want, m.fetches[i].rtol, m.fetches[i].atol, why,
                   sizeof why)) {
      rc = -1;
      snprintf(err, cap, "fetch '%s': %s", name,
               got && want ? why : "missing output");
    }
    tfs_tensor_free(got);
    tfs_tensor_free(want);
  }
  result_free(&r);
  tc_manifest_free(&m);
  return rc;
}

static void test_cli_runs_control_flow_cases(void) {
  int failed = 0;
  int ran = tc_run_groups(it_srcdir(), tc_control_flow_groups, cli_case,
                          "tfsess run", &failed);
  printf("(%d cases) ", ran);
  CU_ASSERT_TRUE(ran >= 40);
  CU_ASSERT_EQUAL(failed, 0);
}

/* --init runs before the first run, --runs repeats it (state carries). */
static void test_cli_init_and_runs(void) {
  const char *dir = "tests/conformance/functions/call_stateful_variable";
  result r = tfsess("run %s/graph.pb --feed x:0=%s/feed0.npy --fetch after:0 "
                    "--init init --runs 3 --quiet --out '%s'",
                    dir, dir, it_tmp("runs"));
  CU_ASSERT_EQUAL(r.status, 0);
  result_free(&r);
  char path[4200];
  snprintf(path, sizeof path, "%s/after_0.npy", it_tmp("runs"));
  tfs_tensor *got = load(path);
  snprintf(path, sizeof path, "%s/%s/fetch0.npy", it_srcdir(), dir);
  tfs_tensor *want = load(path);
  char why[512];
  CU_ASSERT_EQUAL(tc_compare(got, want, -1, -1, why, sizeof why), 0);
  tfs_tensor_free(got);
  tfs_tensor_free(want);
  r = tfsess("run %s/graph.pb --fetch after:0 --init nosuch", dir);
  assert_fails(&r, 1, "target 'nosuch': no operation of that name");
  r = tfsess("run %s/graph.pb --fetch after:0 --runs 2 --batch 4", dir);
  assert_fails(&r, 2, "--runs and --batch cannot be combined");
  r = tfsess("run %s/graph.pb --fetch after:0 --runs 0", dir);
  CU_ASSERT_NOT_EQUAL(r.status, 0);
  result_free(&r);
}

static const tfs_test_case cli_cases[] = {
    {"help", test_cli_help},
    {"errors_are_one_line", test_cli_errors_are_one_line},
    {"run_conformance_case", test_cli_run_conformance_case},
    {"save_config", test_cli_save_config},
    {"run_digits_equals_tensorflow", test_cli_run_digits_equals_tensorflow},
    {"batch_10k_rows", test_cli_batch_10k_rows},
    {"batch_errors", test_cli_batch_errors},
    {"inspect", test_cli_inspect},
    {"inspect_deep_nesting", test_cli_inspect_deep_nesting},
    {"safe_mode", test_cli_safe_mode},
    {"inspect_functions", test_cli_inspect_functions},
    {"ops", test_cli_ops},
    {"ops_missing_from", test_cli_ops_missing_from},
    {"ckpt", test_cli_ckpt},
    {"tensorboard", test_cli_tensorboard},
    {"tensorboard_functions", test_cli_tensorboard_functions},
    {"runs_control_flow_cases", test_cli_runs_control_flow_cases},
    {"init_and_runs", test_cli_init_and_runs},
    {NULL, NULL}};

const tfs_test_suite tfs_test_suites[] = {{"cli", cli_cases}, {NULL, NULL}};
