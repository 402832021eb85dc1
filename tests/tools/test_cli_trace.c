/*
 * tests/tools/test_cli_trace.c - `tfsess run --trace`, `tfsess bench
 * --trace / --profile / --input-shape`: the trace files parsed as JSON
 * (one event per node with the graph's op type, the device and shapes),
 * the profile table's header and op types, random inputs of every kind
 * of dtype, and the messages naming a bad input.
 */
#include <stdlib.h>
#include <string.h>

#include "cli_util.h"
#include "iotest.h"
#include "json_mini.h"

#define MLP "tests/conformance/mlp/mlp_softmax"
#define SM "tests/data/saved_models/tf1_simple"

/* The graph's nodes that run (fused ones keep their own names). */
static const char *const kMlpOps[][4] = {
    {"dense/kernel", "Const", "Const", "1"},
    {"dense/bias", "Const", "Const", "1"},
    {"logits/kernel", "Const", "Const", "1"},
    {"logits/bias", "Const", "Const", "1"},
    /* the optimizer fuses MatMul + BiasAdd (+ Relu): every user node
     * shows, with the kernel that ran; the fused node's time and outputs
     * are on the last of the chain, the others are zero-length */
    {"dense/MatMul", "MatMul", "_FusedMatMul", "0"},
    {"dense/BiasAdd", "BiasAdd", "_FusedMatMul", "0"},
    {"dense/Relu", "Relu", "_FusedMatMul", "1"},
    {"logits/MatMul", "MatMul", "_FusedMatMul", "0"},
    {"logits/BiasAdd", "BiasAdd", "_FusedMatMul", "1"},
    {"probs", "Softmax", "Softmax", "1"}};
#define NMLP (int)(sizeof kMlpOps / sizeof *kMlpOps)

/* The graph's op types, for the profile. */
static const char *const kMlpTypes[] = {"Const", "BiasAdd", "MatMul",
                                        "Placeholder", "Relu", "Softmax"};

static json_val *load_json(const char *path) {
  size_t n;
  char *text = (char *)it_read_file(path, &n);
  CU_ASSERT_PTR_NOT_NULL_FATAL(text);
  char *z = realloc(text, n + 1);
  CU_ASSERT_PTR_NOT_NULL_FATAL(z);
  z[n] = 0;
  char err[200];
  json_val *v = json_parse(z, err, sizeof err);
  if (!v) fprintf(stderr, "\n  %s: invalid JSON: %s\n", path, err);
  free(z);
  CU_ASSERT_PTR_NOT_NULL_FATAL(v);
  return v;
}

static int is_dims2(const json_val *v, double d0, double d1) {
  return v && v->kind == JSON_ARR && v->n == 2 && v->items[0].num == d0 &&
         v->items[1].num == d1;
}

/* Every node of the MLP once, with its op type and device; probs with
 * its shapes (rows: the batch fed). */
static void check_mlp_trace(const char *path, int rows) {
  json_val *doc = load_json(path);
  const json_val *ev = json_get(doc, "traceEvents");
  CU_ASSERT_FATAL(ev && ev->kind == JSON_ARR);
  int seen[NMLP] = {0}, nx = 0, meta = 0;
  for (int i = 0; i < ev->n; i++) {
    const json_val *e = &ev->items[i];
    const char *ph = json_get_str(e, "ph"), *name = json_get_str(e, "name");
    CU_ASSERT_FATAL(ph && name);
    if (!strcmp(ph, "M")) meta += !strcmp(name, "thread_name");
    if (strcmp(ph, "X") != 0) continue;
    nx++;
    const json_val *args = json_get(e, "args");
    int k = 0;
    while (k < NMLP && strcmp(kMlpOps[k][0], name) != 0) k++;
    CU_ASSERT_FATAL(k < NMLP);
    seen[k]++;
    CU_ASSERT_STRING_EQUAL(json_get_str(args, "op"), kMlpOps[k][1]);
    CU_ASSERT_STRING_EQUAL(json_get_str(args, "kernel"), kMlpOps[k][2]);
    CU_ASSERT_PTR_NOT_NULL(strstr(json_get_str(args, "device"), "CPU:0"));
    CU_ASSERT_PTR_NOT_NULL(json_get(e, "tid"));
    int outs = atoi(kMlpOps[k][3]);
    CU_ASSERT_EQUAL(json_get(args, "output_shapes")->n, outs);
    if (!outs) CU_ASSERT_EQUAL(json_get(e, "dur")->num, 0);
    if (strcmp(name, "probs") == 0) {
      CU_ASSERT_STRING_EQUAL(json_get_str(args, "kernel"), "Softmax");
      CU_ASSERT(is_dims2(&json_get(args, "output_shapes")->items[0], rows, 3));
      CU_ASSERT(is_dims2(&json_get(args, "input_shapes")->items[0], rows, 3));
      CU_ASSERT_STRING_EQUAL(json_get(args, "output_dtypes")->items[0].str,
                             "float");
    }
  }
  CU_ASSERT_EQUAL(nx, NMLP);
  for (int k = 0; k < NMLP; k++) CU_ASSERT_EQUAL(seen[k], 1);
  CU_ASSERT(meta >= 1);
  json_free(doc);
}

static void test_run_trace(void) {
  char trace[4200]; /* it_tmp's buffers rotate: tfsess() uses them too */
  snprintf(trace, sizeof trace, "%s", it_tmp("run_trace.json"));
  result r = tfsess("run " MLP "/graph.pb --feed x:0=" MLP
                    "/feed0.npy --fetch probs:0 --quiet --trace '%s'",
                    trace);
  CU_ASSERT_EQUAL(r.status, 0);
  CU_ASSERT_STRING_EQUAL(r.err, "");
  result_free(&r);
  check_mlp_trace(trace, 5);
  /* the last of --runs */
  r = tfsess("run " MLP "/graph.pb --feed x:0=" MLP
             "/feed0.npy --fetch probs:0 --quiet --runs 3 --trace '%s'",
             trace);
  CU_ASSERT_EQUAL(r.status, 0);
  result_free(&r);
  check_mlp_trace(trace, 5);
  r = tfsess("run " MLP "/graph.pb --feed x:0=" MLP
             "/feed0.npy --fetch probs:0 --trace '%s'",
             it_tmp("no/such/dir/t.json"));
  assert_fails(&r, 1, "--trace");
}

/* A SavedModel's signature, traced through tfs_saved_model_run_ex. */
static void test_run_saved_model_trace(void) {
  char trace[4200];
  snprintf(trace, sizeof trace, "%s", it_tmp("sm_trace.json"));
  result r = tfsess("run " SM "/model --feed a=" SM "/0_in_a.npy --feed b=" SM
                    "/0_in_b.npy --quiet --trace '%s'",
                    trace);
  CU_ASSERT_EQUAL(r.status, 0);
  CU_ASSERT_STRING_EQUAL(r.err, "");
  result_free(&r);
  json_val *doc = load_json(trace);
  const json_val *ev = json_get(doc, "traceEvents");
  CU_ASSERT_FATAL(ev && ev->kind == JSON_ARR);
  int matmul = 0, relu = 0;
  for (int i = 0; i < ev->n; i++) {
    const json_val *e = &ev->items[i];
    const char *name = json_get_str(e, "name");
    const json_val *args = json_get(e, "args");
    if (!args || !name) continue;
    const json_val *os = json_get(args, "output_shapes");
    if (!strcmp(name, "MatMul")) {
      matmul++;
      CU_ASSERT_STRING_EQUAL(json_get_str(args, "op"), "MatMul");
      CU_ASSERT(os && os->n == 1 && is_dims2(&os->items[0], 2, 3));
    } else if (!strcmp(name, "s")) {
      relu++;
      CU_ASSERT_STRING_EQUAL(json_get_str(args, "op"), "Relu");
    }
  }
  CU_ASSERT_EQUAL(matmul, 1);
  CU_ASSERT_EQUAL(relu, 1);
  json_free(doc);
}

/* The table's header, op types of the graph only (Softmax among them),
 * shares summing to 100, then the bench line last; the trace of one run. */
static void test_bench_profile_and_trace(void) {
  char trace[4200];
  snprintf(trace, sizeof trace, "%s", it_tmp("bench_trace.json"));
  result r = tfsess("bench " MLP "/graph.pb --fetch probs --input-shape "
                    "x=7,4 --runs 3 --warmup 1 --profile --trace '%s'",
                    trace);
  CU_ASSERT_EQUAL_FATAL(r.status, 0);
  CU_ASSERT_STRING_EQUAL(r.err, "");
  const char *p = strstr(r.out, "op profile: 3 traced runs");
  CU_ASSERT_PTR_NOT_NULL_FATAL(p);
  p = strchr(p, '\n') + 1;
  CU_ASSERT(strncmp(p, "op type ", 8) == 0);
  const char *cols[] = {"nodes", "calls/run", "total_us", "mean_us",
                        "share"};
  const char *eol = strchr(p, '\n');
  for (size_t i = 0; i < 5; i++) {
    const char *c = strstr(p, cols[i]);
    CU_ASSERT(c && c < eol);
  }
  double share = 0, last_total = 1e300;
  int softmax = 0, rows = 0;
  for (p = eol + 1; strncmp(p, "bench: ", 7) != 0; p = strchr(p, '\n') + 1) {
    char op[64];
    long nodes;
    double calls, total, mean, sh;
    CU_ASSERT_EQUAL_FATAL(sscanf(p, "%63s %ld %lf %lf %lf %lf%%", op, &nodes,
                                 &calls, &total, &mean, &sh),
                          6);
    int known = 0;
    for (size_t i = 0; i < sizeof kMlpTypes / sizeof *kMlpTypes; i++)
      known |= !strcmp(op, kMlpTypes[i]);
    CU_ASSERT(known);
    softmax |= !strcmp(op, "Softmax");
    CU_ASSERT(nodes >= 1 && calls >= 1);
    /* every node once per recorded run: the unrecorded first traced run
     * is not in the table */
    CU_ASSERT_DOUBLE_EQUAL(calls, (double)nodes, 1e-9);
    CU_ASSERT(total <= last_total); /* sorted by total */
    last_total = total;
    share += sh;
    rows++;
  }
  CU_ASSERT(softmax);
  CU_ASSERT(rows >= 3);
  CU_ASSERT(share > 99.5 && share < 100.5);
  CU_ASSERT(strncmp(p, "bench: runs=3 ", 14) == 0);
  CU_ASSERT_EQUAL(count_lines(p), 1); /* the last line */
  result_free(&r);
  check_mlp_trace(trace, 7);
}

/* A graph of fully defined placeholders of three dtypes, written as a
 * GraphDef: bench feeds them random values without any flag. */
static const char *typed_graph(void) {
  tfs_status *st = tfs_status_new();
  tfs_graph *g = tfs_graph_new();
  int64_t d[2] = {2, 3};
  tfs_output f = tfs_op_placeholder(g, "f", TFS_FLOAT, d, 2, st);
  tfs_output i = tfs_op_placeholder(g, "i", TFS_INT32, d, 2, st);
  tfs_output b = tfs_op_placeholder(g, "b", TFS_BOOL, d, 2, st);
  tfs_op_identity(g, "fo", f, st);
  tfs_op_identity(g, "io", i, st);
  tfs_op_identity(g, "bo", b, st);
  int64_t u[1] = {-1};
  tfs_op_placeholder(g, "s", TFS_STRING, u, 1, st);
  TFS_ASSERT_OK(st);
  tfs_buffer *buf = tfs_buffer_new();
  tfs_graph_to_graphdef(g, buf, st);
  TFS_ASSERT_OK(st);
  const char *path = it_tmp("typed.pb");
  CU_ASSERT_EQUAL(it_write_file(path, buf->data, buf->length), 0);
  tfs_buffer_free(buf);
  tfs_graph_free(g);
  tfs_status_free(st);
  return path;
}

static void test_bench_input_shape(void) {
  char pb[4200];
  snprintf(pb, sizeof pb, "%s", typed_graph());
  /* the string placeholder cannot be made up: it must be fed */
  result r = tfsess("bench '%s' --fetch fo --fetch io --fetch bo --runs 2",
                    pb);
  assert_fails(&r, 1, "input 's': cannot make random values of dtype string");
  char npy[4200];
  snprintf(npy, sizeof npy, "%s", it_tmp("s.npy"));
  int64_t one = 1;
  tfs_tensor *s = tfs_tensor_new(TFS_STRING, &one, 1, NULL);
  tfs_tensor_set_string(s, 0, "a", 1, NULL);
  tfs_status *st = tfs_status_new();
  tfs_npy_write(npy, s, st);
  TFS_ASSERT_OK(st);
  tfs_status_free(st);
  tfs_tensor_free(s);
  r = tfsess("bench '%s' --feed s='%s' --fetch fo --fetch io --fetch bo "
             "--runs 2 --warmup 0",
             pb, npy);
  CU_ASSERT_EQUAL(r.status, 0);
  CU_ASSERT_STRING_EQUAL(r.err, "");
  CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "model: 4 feeds, 3 fetches"));
  CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "bench: runs=2 "));
  result_free(&r);
  /* x is [?,4]: its shape has to be given */
  r = tfsess("bench " MLP "/graph.pb --fetch probs --runs 1");
  assert_fails(&r, 2,
               "input 'x' (float [?,4]) has no fully defined shape: give "
               "--input-shape x=");
  r = tfsess("bench " MLP "/graph.pb --fetch probs --input-shape x=2,4 "
             "--runs 1");
  CU_ASSERT_EQUAL(r.status, 0);
  result_free(&r);
  r = tfsess("bench " MLP "/graph.pb --fetch probs --input-shape x:0=2,4 "
             "--runs 1");
  CU_ASSERT_EQUAL(r.status, 0);
  result_free(&r);
  static const char *const bad[][2] = {
      {"x=2,a", "--input-shape x=2,a: bad dimension 'a'"},
      {"x=2,-4", "bad dimension '-4' (want a non-negative integer)"},
      {"x=2,", "empty dimension"},
      {"x=2,4,1", "rank 3 does not match the placeholder's shape [?,4]"},
      {"x=2,5", "dimension 1 is 5 but the placeholder's shape [?,4] says 4"},
      {"nope=1", "no placeholder named 'nope'"},
      {"probs=1", "'probs' is a Softmax, not a Placeholder"},
      {"x", "expected NAME=D0,D1,..."}};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    r = tfsess("bench " MLP "/graph.pb --fetch probs --input-shape '%s'",
               bad[i][0]);
    assert_fails(&r, 2, bad[i][1]);
  }
  r = tfsess("bench " MLP "/graph.pb --fetch probs --input-shape x=2,4 "
             "--feed x:0=" MLP "/feed0.npy");
  assert_fails(&r, 2, "input 'x' is given by --feed and by --input-shape");
}

static void test_help_texts(void) {
  result r = tfsess("bench --help");
  CU_ASSERT_EQUAL(r.status, 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "--input-shape"));
  CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "--profile"));
  CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "--trace"));
  result_free(&r);
  r = tfsess("run --help");
  CU_ASSERT_EQUAL(r.status, 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "--trace"));
  result_free(&r);
}

static const tfs_test_case cases[] = {
    {"run_trace", test_run_trace},
    {"run_saved_model_trace", test_run_saved_model_trace},
    {"bench_profile_and_trace", test_bench_profile_and_trace},
    {"bench_input_shape", test_bench_input_shape},
    {"help_texts", test_help_texts},
    {NULL, NULL}};

const tfs_test_suite tfs_test_suites[] = {{"cli_trace", cases},
                                          {NULL, NULL}};
