/*
 * tests/io/test_trace_json.c - Chrome trace JSON of a traced run
 * (tfs_trace_json): parsed back with a strict JSON parser, one complete
 * event per node execution with the graph's op type, device, thread and
 * shapes, metadata naming every process and thread; hostile names
 * escaped; RunMetadata that is no trace refused.
 */
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "iotest.h"
#include "json_mini.h"
#include "proto/config.pb-c.h"
#include "testutil.h"

/* The parsed trace, or NULL (asserted). */
static json_val *parse(const char *text) {
  char err[200];
  json_val *v = json_parse(text, err, sizeof err);
  if (!v) fprintf(stderr, "invalid JSON: %s\n%s\n", err, text);
  CU_ASSERT_PTR_NOT_NULL_FATAL(v);
  return v;
}

static const json_val *events(const json_val *doc) {
  const json_val *ev = json_get(doc, "traceEvents");
  CU_ASSERT_PTR_NOT_NULL_FATAL(ev);
  CU_ASSERT_EQUAL_FATAL(ev->kind, JSON_ARR);
  return ev;
}

/* The complete events named `name`; *count gets their number. */
static const json_val *find_event(const json_val *ev, const char *name,
                                  int *count) {
  const json_val *found = NULL;
  *count = 0;
  for (int i = 0; i < ev->n; i++) {
    const char *ph = json_get_str(&ev->items[i], "ph");
    const char *n = json_get_str(&ev->items[i], "name");
    if (ph && n && !strcmp(ph, "X") && !strcmp(n, name)) {
      found = &ev->items[i];
      (*count)++;
    }
  }
  return found;
}

/* Non-zero when a metadata event `what` exists for pid (and tid >= 0). */
static int has_meta(const json_val *ev, const char *what, double pid,
                    double tid) {
  for (int i = 0; i < ev->n; i++) {
    const json_val *e = &ev->items[i];
    const char *ph = json_get_str(e, "ph"), *n = json_get_str(e, "name");
    const json_val *p = json_get(e, "pid"), *t = json_get(e, "tid");
    if (!ph || strcmp(ph, "M") || !n || strcmp(n, what) || !p) continue;
    if (p->num != pid) continue;
    if (tid >= 0 && (!t || t->num != tid)) continue;
    if (!json_get_str(json_get(e, "args"), "name")) continue;
    return 1;
  }
  return 0;
}

static int is_dims(const json_val *v, const int64_t *dims, int n) {
  if (!v || v->kind != JSON_ARR || v->n != n) return 0;
  for (int i = 0; i < n; i++)
    if (v->items[i].kind != JSON_NUM || v->items[i].num != (double)dims[i])
      return 0;
  return 1;
}

static void test_run_trace(void) {
  tfs_status *st = tfs_status_new();
  tfs_graph *g = tfs_graph_new();
  int64_t xd[2] = {-1, 3}, wd[2] = {3, 4};
  float wv[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  tfs_output x = tfs_op_placeholder(g, "x", TFS_FLOAT, xd, 2, st);
  tfs_tensor *wt = tu_floats(wd, 2, wv);
  tfs_output w = tfs_op_const(g, "w", wt, st);
  tfs_output mm = tfs_op_matmul(g, "mm", x, w, 0, 0, st);
  tfs_output out = tfs_op_identity(g, "out", mm, st);
  TFS_ASSERT_OK(st);
  tfs_session *s = tfs_session_new(g, NULL, st);
  TFS_ASSERT_OK(st);
  int64_t in_d[2] = {2, 3};
  float in_v[6] = {1, 0, 0, 0, 1, 0};
  tfs_tensor *xt = tu_floats(in_d, 2, in_v), *res = NULL;
  tfs_buffer ro = {"\x08\x03", 2, NULL}; /* trace_level: FULL_TRACE */
  tfs_buffer *md = tfs_buffer_new();
  tfs_session_run_ex(s, &ro, &x, &xt, 1, &out, &res, 1, NULL, 0, md, st);
  TFS_ASSERT_OK(st);
  char *text = tfs_trace_json(md->data, md->length, g, st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_PTR_NOT_NULL_FATAL(text);
  json_val *doc = parse(text);
  const json_val *ev = events(doc);
  int nx = 0;
  for (int i = 0; i < ev->n; i++) {
    const json_val *e = &ev->items[i];
    const char *ph = json_get_str(e, "ph");
    CU_ASSERT_PTR_NOT_NULL_FATAL(ph);
    if (strcmp(ph, "X") != 0) continue;
    nx++;
    const json_val *args = json_get(e, "args"), *pid = json_get(e, "pid"),
                   *tid = json_get(e, "tid"), *ts = json_get(e, "ts"),
                   *dur = json_get(e, "dur");
    CU_ASSERT_PTR_NOT_NULL_FATAL(args);
    CU_ASSERT_FATAL(pid && tid && ts && dur);
    CU_ASSERT(ts->kind == JSON_NUM && ts->num > 1e15); /* since the epoch */
    CU_ASSERT(dur->kind == JSON_NUM && dur->num >= 0);
    const char *name = json_get_str(e, "name");
    CU_ASSERT_STRING_EQUAL(json_get_str(args, "name"), name);
    /* the op type is the graph's node's */
    tfs_operation *op = tfs_graph_operation_by_name(g, name);
    CU_ASSERT_PTR_NOT_NULL_FATAL(op);
    CU_ASSERT_STRING_EQUAL(json_get_str(args, "op"),
                           tfs_operation_op_type(op));
    CU_ASSERT_PTR_NOT_NULL(strstr(json_get_str(args, "device"), "CPU:0"));
    CU_ASSERT_EQUAL(json_get(args, "thread_id")->num, tid->num);
    CU_ASSERT(has_meta(ev, "process_name", pid->num, -1));
    CU_ASSERT(has_meta(ev, "thread_name", pid->num, tid->num));
  }
  CU_ASSERT(nx >= 2);
  int count;
  const json_val *e = find_event(ev, "mm", &count);
  CU_ASSERT_EQUAL_FATAL(count, 1);
  const json_val *args = json_get(e, "args");
  CU_ASSERT_STRING_EQUAL(json_get_str(args, "op"), "MatMul");
  CU_ASSERT_STRING_EQUAL(json_get_str(args, "kernel"), "MatMul");
  CU_ASSERT_STRING_EQUAL(json_get_str(args, "label"), "mm = MatMul(x, w)");
  int64_t mm_d[2] = {2, 4};
  const json_val *os = json_get(args, "output_shapes");
  CU_ASSERT_FATAL(os && os->kind == JSON_ARR && os->n == 1);
  CU_ASSERT(is_dims(&os->items[0], mm_d, 2));
  const json_val *odt = json_get(args, "output_dtypes");
  CU_ASSERT_FATAL(odt && odt->n == 1);
  CU_ASSERT_STRING_EQUAL(odt->items[0].str, "float");
  const json_val *ins = json_get(args, "inputs"),
                 *ish = json_get(args, "input_shapes");
  CU_ASSERT_FATAL(ins && ins->n == 2 && ish && ish->n == 2);
  CU_ASSERT_STRING_EQUAL(ins->items[0].str, "x");
  CU_ASSERT_STRING_EQUAL(ins->items[1].str, "w");
  /* w ran in this step: its shape; x was fed: known or null */
  CU_ASSERT(is_dims(&ish->items[1], wd, 2));
  CU_ASSERT(ish->items[0].kind == JSON_NULL ||
            is_dims(&ish->items[0], in_d, 2));
  e = find_event(ev, "out", &count);
  CU_ASSERT_EQUAL(count, 1);
  CU_ASSERT(is_dims(&json_get(json_get(e, "args"), "output_shapes")->items[0],
                    mm_d, 2));
  json_free(doc);
  free(text);
  /* the same text into a file */
  const char *path = it_tmp("trace.json");
  tfs_trace_json_write(path, md->data, md->length, g, st);
  TFS_ASSERT_OK(st);
  FILE *f = fopen(path, "rb");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  char buf[64] = {0};
  CU_ASSERT(fread(buf, 1, sizeof buf - 1, f) > 0);
  fclose(f);
  CU_ASSERT_EQUAL(strncmp(buf, "{\"displayTimeUnit\"", 18), 0);
  tfs_trace_json_write(it_tmp("no/such/dir/t.json"), md->data, md->length,
                       g, st);
  CU_ASSERT_EQUAL(tfs_status_code(st), TFS_NOT_FOUND);
  tfs_buffer_free(md);
  tfs_tensor_free(xt);
  tfs_tensor_free(res);
  tfs_tensor_free(wt);
  tfs_session_free(s);
  tfs_graph_free(g);
  tfs_status_free(st);
}

/* A RunMetadata made by hand: one node with a hostile name. */
static void test_escapes_and_fields(void) {
  Tensorflow__RunMetadata md = TENSORFLOW__RUN_METADATA__INIT;
  Tensorflow__StepStats ss = TENSORFLOW__STEP_STATS__INIT;
  Tensorflow__DeviceStepStats ds = TENSORFLOW__DEVICE_STEP_STATS__INIT;
  Tensorflow__NodeExecStats ns = TENSORFLOW__NODE_EXEC_STATS__INIT;
  Tensorflow__DeviceStepStats *dsp = &ds;
  Tensorflow__NodeExecStats *nsp = &ns;
  md.step_stats = &ss;
  ss.n_dev_stats = 1;
  ss.dev_stats = &dsp;
  ds.device = "/device:\"odd\"";
  ds.n_node_stats = 1;
  ds.node_stats = &nsp;
  ns.node_name = "a\"b\\c\nd\x01\xff\xc3\xa9/\xe2\x82";
  ns.timeline_label = "n = Foo(x:1, y, ^c)";
  ns.all_start_nanos = 1234567;
  ns.all_end_rel_nanos = 5;
  ns.thread_id = 7;
  uint8_t buf[512];
  size_t len = tensorflow__run_metadata__pack(&md, buf);
  tfs_status *st = tfs_status_new();
  char *text = tfs_trace_json(buf, len, NULL, st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_PTR_NOT_NULL_FATAL(text);
  json_val *doc = parse(text);
  const json_val *ev = events(doc);
  int count;
  const json_val *e =
      find_event(ev,
                 "a\"b\\c\nd\x01\xef\xbf\xbd\xc3\xa9/"
                 "\xef\xbf\xbd\xef\xbf\xbd",
                 &count);
  CU_ASSERT_EQUAL_FATAL(count, 1);
  CU_ASSERT_EQUAL(json_get(e, "ts")->num, 1234.567);
  CU_ASSERT_EQUAL(json_get(e, "dur")->num, 0.005);
  CU_ASSERT_EQUAL(json_get(e, "tid")->num, 7);
  const json_val *args = json_get(e, "args");
  CU_ASSERT_STRING_EQUAL(json_get_str(args, "op"), "Foo"); /* no graph */
  CU_ASSERT_STRING_EQUAL(json_get_str(args, "kernel"), "Foo");
  CU_ASSERT_STRING_EQUAL(json_get_str(args, "device"), "/device:\"odd\"");
  const json_val *ins = json_get(args, "inputs");
  CU_ASSERT_FATAL(ins && ins->n == 2);
  CU_ASSERT_STRING_EQUAL(ins->items[0].str, "x:1");
  CU_ASSERT_STRING_EQUAL(ins->items[1].str, "y");
  CU_ASSERT_EQUAL(json_get(args, "input_shapes")->items[0].kind, JSON_NULL);
  CU_ASSERT_EQUAL(json_get(args, "output_shapes")->n, 0);
  CU_ASSERT(has_meta(ev, "process_name", 0, -1));
  CU_ASSERT(has_meta(ev, "thread_name", 0, 7));
  json_free(doc);
  free(text);
  tfs_status_free(st);
}

/* Every allocation fails in turn: NULL with RESOURCE_EXHAUSTED, or the
 * whole text (no crash, no leak: the sanitizer build checks). */
static void test_survives_failed_allocations(void) {
  Tensorflow__RunMetadata md = TENSORFLOW__RUN_METADATA__INIT;
  Tensorflow__StepStats ss = TENSORFLOW__STEP_STATS__INIT;
  Tensorflow__DeviceStepStats ds = TENSORFLOW__DEVICE_STEP_STATS__INIT;
  Tensorflow__NodeExecStats ns[2] = {TENSORFLOW__NODE_EXEC_STATS__INIT,
                                     TENSORFLOW__NODE_EXEC_STATS__INIT};
  Tensorflow__NodeOutput no = TENSORFLOW__NODE_OUTPUT__INIT;
  Tensorflow__NodeOutput *nop = &no;
  Tensorflow__TensorDescription td = TENSORFLOW__TENSOR_DESCRIPTION__INIT;
  Tensorflow__DeviceStepStats *dsp = &ds;
  Tensorflow__NodeExecStats *nsp[2] = {&ns[0], &ns[1]};
  md.step_stats = &ss;
  ss.n_dev_stats = 1;
  ss.dev_stats = &dsp;
  ds.device = "/device:CPU:0";
  ds.n_node_stats = 2;
  ds.node_stats = nsp;
  ns[0].node_name = "a";
  ns[0].timeline_label = "a = Const()";
  ns[0].n_output = 1;
  ns[0].output = &nop;
  no.tensor_description = &td;
  td.dtype = TENSORFLOW__DATA_TYPE__DT_FLOAT;
  ns[1].node_name = "b";
  ns[1].timeline_label = "b = Neg(a, ^a)";
  uint8_t buf[512];
  size_t len = tensorflow__run_metadata__pack(&md, buf);
  tfs_status *st = tfs_status_new();
  int done = 0;
  for (long n = 1; n < 200 && !done; n++) {
    tfs_status_clear(st);
    tfs_alloc_fail_at(n);
    char *text = tfs_trace_json(buf, len, NULL, st);
    long used = tfs_alloc_fail_at(0);
    if (text) {
      TFS_ASSERT_OK(st);
      done = used < n; /* nothing failed: every allocation was tried */
    } else {
      TFS_ASSERT_ERROR(st, TFS_RESOURCE_EXHAUSTED, "");
    }
    free(text);
  }
  CU_ASSERT(done);
  tfs_status_free(st);
}

static void test_not_a_trace(void) {
  tfs_status *st = tfs_status_new();
  CU_ASSERT_PTR_NULL(tfs_trace_json("\xff\xff\xff", 3, NULL, st));
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT, "Unparseable RunMetadata");
  tfs_status_clear(st);
  CU_ASSERT_PTR_NULL(tfs_trace_json("", 0, NULL, st));
  TFS_ASSERT_ERROR(st, TFS_FAILED_PRECONDITION, "not traced");
  tfs_status_free(st);
}

static void test_json_parser_is_strict(void) {
  static const char *bad[] = {"{\"a\":1,}", "[1 2]", "\"a\x01\"", "01",
                              "{\"a\"}", "[1]x", "\"\\ud800\"", "nul"};
  char err[100];
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
    CU_ASSERT_PTR_NULL(json_parse(bad[i], err, sizeof err));
  json_val *v = json_parse(" {\"k\":[1.5e2,-0,true,null,\"\\u00e9\"]} ",
                           err, sizeof err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(v);
  const json_val *k = json_get(v, "k");
  CU_ASSERT_EQUAL(k->n, 5);
  CU_ASSERT_EQUAL(k->items[0].num, 150);
  CU_ASSERT_STRING_EQUAL(k->items[4].str, "\xc3\xa9");
  json_free(v);
}

static const tfs_test_case trace_cases[] = {
    {"run_trace", test_run_trace},
    {"escapes_and_fields", test_escapes_and_fields},
    {"not_a_trace", test_not_a_trace},
    {"survives_failed_allocations", test_survives_failed_allocations},
    {"json_parser_is_strict", test_json_parser_is_strict},
    {NULL, NULL}};

const tfs_test_suite tfs_test_suites[] = {{"trace_json", trace_cases},
                                          {NULL, NULL}};
