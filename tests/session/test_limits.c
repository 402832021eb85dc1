/*
 * tests/session/test_limits.c - resource limits and safe mode: each limit
 * refuses what goes over it before allocating, naming the node and the
 * size; safe mode's defaults and its refusal of ops that reach files;
 * the allow-list; the limits' trip through ConfigProto bytes; import
 * limits; constant folding never allocates past its cap.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "session/session_internal.h"
#include "testutil.h"

static tfs_graph *g;
static tfs_status *st;

static void setup(void) {
  g = tfs_graph_new();
  st = tfs_status_new();
}

static void teardown(void) {
  tfs_graph_free(g);
  tfs_status_free(st);
}

/* Fill(dims, 1.0) with dims fed at run time: nothing is known before. */
static tfs_output fill_graph(tfs_output *dims) {
  int64_t two = 2;
  *dims = tfs_op_placeholder(g, "dims", TFS_INT32, &two, 1, st);
  tfs_output one = tfs_op_const_float(g, "one", 1.0f, st);
  tfs_output f = tfs_op_fill(g, "big", *dims, one, st);
  TFS_ASSERT_OK(st);
  return f;
}

/* Runs fetches f[0..nf) with dims fed; returns the code, the message in
 * msg. */
static tfs_code run_fills(tfs_session *s, const tfs_output *f, int nf,
                          tfs_output dims, int32_t rows, int32_t cols,
                          char *msg, size_t cap) {
  int64_t two = 2;
  int32_t v[2] = {rows, cols};
  tfs_tensor *d = tu_int32s(&two, 1, v);
  tfs_tensor *outs[4] = {NULL, NULL, NULL, NULL};
  tfs_session_run(s, &dims, &d, 1, f, outs, nf, NULL, 0, st);
  tfs_code c = tfs_status_code(st);
  snprintf(msg, cap, "%s", tfs_status_message(st));
  for (int i = 0; i < nf; i++) {
    if (c != TFS_OK) CU_ASSERT_PTR_NULL(outs[i]);
    tfs_tensor_free(outs[i]);
  }
  tfs_tensor_free(d);
  return c;
}

static tfs_code run_fill(tfs_session *s, tfs_output f, tfs_output dims,
                         int32_t rows, int32_t cols, char *msg, size_t cap) {
  return run_fills(s, &f, 1, dims, rows, cols, msg, cap);
}

static tfs_session *session_with(tfs_session_options *o) {
  tfs_session *s = tfs_session_new(g, o, st);
  TFS_ASSERT_OK(st);
  return s;
}

/* ---- per-allocation limits ---------------------------------------------- */

static void test_tensor_bytes(void) {
  setup();
  tfs_output dims, f = fill_graph(&dims);
  tfs_session_options *o = tfs_session_options_new();
  tfs_session_options_set_limit(o, TFS_LIMIT_TENSOR_BYTES, 4096);
  CU_ASSERT_EQUAL(tfs_session_options_limit(o, TFS_LIMIT_TENSOR_BYTES), 4096);
  tfs_session *s = session_with(o);
  char msg[512];
  /* 100000 x 100000 floats: 40 GB, refused before anything is taken */
  CU_ASSERT_EQUAL(run_fill(s, f, dims, 100000, 100000, msg, sizeof msg),
                  TFS_RESOURCE_EXHAUSTED);
  CU_ASSERT_PTR_NOT_NULL(strstr(
      msg, "Output 0 of shape [100000,100000] and type float needs "
           "40000000000 bytes, over the session's limit of 4096 bytes per "
           "tensor"));
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "[[{{node big}}]]"));
  /* 1024 floats fit exactly */
  int64_t two = 2;
  int32_t v[2] = {32, 32};
  tfs_tensor *d = tu_int32s(&two, 1, v);
  tfs_tensor *t = tu_run1(s, f, &dims, &d, 1);
  CU_ASSERT_EQUAL(tfs_tensor_byte_size(t), 4096);
  tfs_tensor_free(t);
  tfs_tensor_free(d);
  tfs_session_free(s);
  tfs_session_options_free(o);
  teardown();
}

static void test_op_elements(void) {
  setup();
  tfs_output dims, f = fill_graph(&dims);
  tfs_session_options *o = tfs_session_options_new();
  tfs_session_options_set_limit(o, TFS_LIMIT_OP_ELEMENTS, 100);
  tfs_session *s = session_with(o);
  char msg[512];
  CU_ASSERT_EQUAL(run_fill(s, f, dims, 10, 11, msg, sizeof msg),
                  TFS_RESOURCE_EXHAUSTED);
  CU_ASSERT_PTR_NOT_NULL(strstr(
      msg, "Output 0 of shape [10,11] has 110 elements, over the session's "
           "limit of 100 elements per op"));
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "{{node big}}"));
  CU_ASSERT_EQUAL(run_fill(s, f, dims, 10, 10, msg, sizeof msg), TFS_OK);
  tfs_session_free(s);
  tfs_session_options_free(o);
  teardown();
}

static void test_run_bytes(void) {
  setup();
  tfs_output dims, f = fill_graph(&dims);
  /* three 400-byte tensors in one run (all fetched, so none is reused)
   * against a 1000-byte budget */
  tfs_output a = tfs_op_add(g, "a", f, f, st);
  tfs_output b = tfs_op_add(g, "b", a, f, st);
  TFS_ASSERT_OK(st);
  tfs_session_options *o = tfs_session_options_new();
  tfs_session_options_set_limit(o, TFS_LIMIT_RUN_BYTES, 1000);
  tfs_session *s = session_with(o);
  char msg[512];
  tfs_output all[3] = {f, a, b};
  CU_ASSERT_EQUAL(run_fills(s, all, 2, dims, 10, 10, msg, sizeof msg),
                  TFS_OK);
  CU_ASSERT_EQUAL(run_fills(s, all, 3, dims, 10, 10, msg, sizeof msg),
                  TFS_RESOURCE_EXHAUSTED);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "over the session's limit of 1000 "
                                     "bytes per run"));
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "(400 bytes)"));
  /* the budget is per run: the smaller run still works afterwards */
  CU_ASSERT_EQUAL(run_fills(s, all, 2, dims, 10, 10, msg, sizeof msg),
                  TFS_OK);
  tfs_session_free(s);
  tfs_session_options_free(o);
  teardown();
}

static void test_no_limits_by_default(void) {
  tfs_session_options *o = tfs_session_options_new();
  CU_ASSERT_EQUAL(tfs_session_options_safe_mode(o), 0);
  CU_ASSERT_EQUAL(tfs_session_options_limit(o, TFS_LIMIT_TENSOR_BYTES), 0);
  CU_ASSERT_EQUAL(tfs_session_options_limit(o, TFS_LIMIT_RUN_BYTES), 0);
  CU_ASSERT_EQUAL(tfs_session_options_limit(o, TFS_LIMIT_GRAPH_NODES), 0);
  CU_ASSERT_EQUAL(tfs_session_options_limit(o, TFS_LIMIT_OP_ELEMENTS), 0);
  CU_ASSERT_EQUAL(tfs_session_options_limit(o, TFS_LIMIT_NESTING), 100);
  CU_ASSERT_EQUAL(tfs_session_options_limit(NULL, TFS_LIMIT_NESTING), 100);
  /* values over the parser's own limit are capped to it */
  tfs_session_options_set_limit(o, TFS_LIMIT_NESTING, 1000);
  CU_ASSERT_EQUAL(tfs_session_options_limit(o, TFS_LIMIT_NESTING), 100);
  tfs_session_options_free(o);
}

static void test_safe_mode_defaults(void) {
  tfs_session_options *o = tfs_session_options_new();
  tfs_session_options_set_safe_mode(o, 1);
  CU_ASSERT_EQUAL(tfs_session_options_safe_mode(o), 1);
  CU_ASSERT_EQUAL(tfs_session_options_limit(o, TFS_LIMIT_TENSOR_BYTES),
                  (int64_t)1 << 30);
  CU_ASSERT_EQUAL(tfs_session_options_limit(o, TFS_LIMIT_RUN_BYTES),
                  (int64_t)4 << 30);
  CU_ASSERT_EQUAL(tfs_session_options_limit(o, TFS_LIMIT_GRAPH_NODES),
                  1000000);
  CU_ASSERT_EQUAL(tfs_session_options_limit(o, TFS_LIMIT_NESTING), 32);
  CU_ASSERT_EQUAL(tfs_session_options_limit(o, TFS_LIMIT_OP_ELEMENTS),
                  (int64_t)1 << 28);
  /* an explicit value wins, and a negative one lifts the limit */
  tfs_session_options_set_limit(o, TFS_LIMIT_TENSOR_BYTES, 123);
  tfs_session_options_set_limit(o, TFS_LIMIT_RUN_BYTES, -1);
  CU_ASSERT_EQUAL(tfs_session_options_limit(o, TFS_LIMIT_TENSOR_BYTES), 123);
  CU_ASSERT_EQUAL(tfs_session_options_limit(o, TFS_LIMIT_RUN_BYTES), 0);
  tfs_session_options_free(o);
}

/* A 20 GB Fill in safe mode: refused by the default tensor limit. */
static void test_safe_mode_refuses_huge_tensor(void) {
  setup();
  tfs_output dims, f = fill_graph(&dims);
  tfs_session_options *o = tfs_session_options_new();
  tfs_session_options_set_safe_mode(o, 1);
  tfs_session *s = session_with(o);
  char msg[512];
  CU_ASSERT_EQUAL(run_fill(s, f, dims, 5, 1000000000, msg, sizeof msg),
                  TFS_RESOURCE_EXHAUSTED);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "has 5000000000 elements, over the "
                                     "session's limit of 268435456"));
  tfs_session_free(s);
  tfs_session_options_free(o);
  teardown();
}

/* ---- graph size and nesting --------------------------------------------- */

static void test_graph_nodes(void) {
  setup();
  tfs_output x = tfs_op_const_float(g, "x", 1.0f, st);
  tfs_output y = tfs_op_add(g, "y", x, x, st);
  tfs_output z = tfs_op_add(g, "z", y, x, st);
  TFS_ASSERT_OK(st);
  tfs_session_options *o = tfs_session_options_new();
  tfs_session_options_set_limit(o, TFS_LIMIT_GRAPH_NODES, 3);
  tfs_session *s = session_with(o);
  tfs_tensor *t = tu_run1(s, z, NULL, NULL, 0);
  TFS_ASSERT_FLOAT_NEAR(tu_scalar_float(t), 3.0f, 0);
  tfs_tensor_free(t);
  /* the graph grows past the limit: the next plan is refused */
  tfs_output w = tfs_op_add(g, "w", z, x, st);
  TFS_ASSERT_OK(st);
  char msg[512];
  CU_ASSERT_EQUAL(tu_run_error(s, w, NULL, NULL, 0, msg, sizeof msg),
                  TFS_RESOURCE_EXHAUSTED);
  CU_ASSERT_STRING_EQUAL(msg, "Graph has 4 nodes, over the session's limit "
                              "of 3 nodes");
  tfs_session_free(s);
  tfs_session_options_free(o);
  teardown();
}

/* RunOptions nested past the session's limit: trace_level is field 1;
 * field 5 of RunOptions is Experimental, whose field 8 is
 * RunHandlerPoolOptions; each level is one more message. */
static void test_run_options_nesting(void) {
  setup();
  tfs_output x = tfs_op_const_float(g, "x", 2.0f, st);
  TFS_ASSERT_OK(st);
  tfs_session_options *o = tfs_session_options_new();
  tfs_session_options_set_limit(o, TFS_LIMIT_NESTING, 1);
  tfs_session *s = session_with(o);
  /* RunOptions { experimental { } }: depth 2 */
  static const unsigned char nested[] = {0x42, 0x00};
  static const unsigned char flat[] = {0x08, 0x00};
  tfs_buffer ro = {nested, sizeof nested, NULL};
  tfs_tensor *out = NULL;
  tfs_session_run_ex(s, &ro, NULL, NULL, 0, &x, &out, 1, NULL, 0, NULL, st);
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT, "Unparseable RunOptions proto");
  CU_ASSERT_PTR_NULL(out);
  ro.data = flat;
  ro.length = sizeof flat;
  tfs_session_run_ex(s, &ro, NULL, NULL, 0, &x, &out, 1, NULL, 0, NULL, st);
  TFS_ASSERT_OK(st);
  tfs_tensor_free(out);
  tfs_session_free(s);
  /* the default (100) takes depth 2 */
  s = session_with(NULL);
  ro.data = nested;
  ro.length = sizeof nested;
  tfs_session_run_ex(s, &ro, NULL, NULL, 0, &x, &out, 1, NULL, 0, NULL, st);
  TFS_ASSERT_OK(st);
  tfs_tensor_free(out);
  tfs_session_free(s);
  tfs_session_options_free(o);
  teardown();
}

/* A GraphDef node (field 1) with name (field 1) "a" and op "NoOp". */
static void test_import_limits(void) {
  setup();
  static const unsigned char gd[] = {
      0x0a, 0x09, 0x0a, 0x01, 'a', 0x12, 0x04, 'N', 'o', 'O', 'p',
      0x0a, 0x09, 0x0a, 0x01, 'b', 0x12, 0x04, 'N', 'o', 'O', 'p'};
  tfs_import_options *io = tfs_import_options_new();
  tfs_import_options_set_max_nodes(io, 1);
  tfs_import_results *r =
      tfs_graph_import_graphdef(g, gd, sizeof gd, io, st);
  CU_ASSERT_PTR_NULL(r);
  TFS_ASSERT_MESSAGE(st, "GraphDef has 2 nodes, over the import's limit of "
                         "1 nodes");
  CU_ASSERT_EQUAL(tfs_status_code(st), TFS_RESOURCE_EXHAUSTED);
  CU_ASSERT_EQUAL(tfs_graph_num_operations(g), 0);
  /* nesting 2 refuses GraphDef > NodeDef > (nothing deeper is needed) */
  tfs_import_options_set_max_nodes(io, 0);
  tfs_import_options_set_max_nesting(io, 1);
  r = tfs_graph_import_graphdef(g, gd, sizeof gd, io, st);
  CU_ASSERT_PTR_NULL(r);
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT, "Invalid GraphDef");
  tfs_import_options_set_max_nesting(io, 2);
  r = tfs_graph_import_graphdef(g, gd, sizeof gd, io, st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_EQUAL(tfs_graph_num_operations(g), 2);
  tfs_import_results_free(r);
  tfs_import_options_free(io);
  teardown();
}

/* ---- safe mode: ops that reach the file system ------------------------- */

static tfs_operation *print_to(const char *stream) {
  const char *text = "hello";
  size_t len = 5;
  tfs_tensor *str = tfs_tensor_new_strings(NULL, 0, &text, &len, st);
  tfs_output c = tfs_op_const(g, "text", str, st);
  tfs_tensor_free(str);
  tfs_op_desc *d = tfs_op_desc_new(g, "PrintV2", "print");
  tfs_op_desc_add_input(d, c);
  tfs_op_desc_set_attr_string(d, "output_stream", stream, strlen(stream));
  tfs_operation *op = tfs_op_desc_finish(d, st);
  TFS_ASSERT_OK(st);
  return op;
}

static void test_safe_mode_refuses_file_ops(void) {
  setup();
  char path[64], stream[80];
  snprintf(path, sizeof path, "/tmp/tfs_limits_%d.txt", (int)getpid());
  snprintf(stream, sizeof stream, "file://%s", path);
  unlink(path);
  tfs_operation *pr = print_to(stream);
  tfs_session_options *o = tfs_session_options_new();
  tfs_session_options_set_safe_mode(o, 1);
  tfs_session *s = session_with(o);
  tfs_session_run(s, NULL, NULL, 0, NULL, NULL, 0, &pr, 1, st);
  TFS_ASSERT_MESSAGE(st, "Node 'print' (op PrintV2) writes files, which "
                         "safe mode refuses; allow the op type in the "
                         "session's options to run it");
  CU_ASSERT_EQUAL(tfs_status_code(st), TFS_PERMISSION_DENIED);
  CU_ASSERT_EQUAL(access(path, F_OK), -1); /* nothing was written */
  tfs_session_free(s);
  /* allow-listed, it runs */
  tfs_session_options_allow_op(o, "PrintV2", st);
  TFS_ASSERT_OK(st);
  tfs_session_options_allow_op(o, "PrintV2", st); /* twice is once */
  CU_ASSERT_EQUAL(o->config.limits.nallowed_ops, 1);
  s = session_with(o);
  tfs_session_run(s, NULL, NULL, 0, NULL, NULL, 0, &pr, 1, st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_EQUAL(access(path, F_OK), 0);
  unlink(path);
  tfs_session_free(s);
  tfs_session_options_free(o);
  teardown();
}

static void test_safe_mode_allows_stderr_print(void) {
  setup();
  tfs_operation *pr = print_to("stderr");
  tfs_session_options *o = tfs_session_options_new();
  tfs_session_options_set_safe_mode(o, 1);
  tfs_session *s = session_with(o);
  tfs_session_run(s, NULL, NULL, 0, NULL, NULL, 0, &pr, 1, st);
  TFS_ASSERT_OK(st);
  tfs_session_free(s);
  tfs_session_options_free(o);
  teardown();
}

/* Nodes the signature does not need are not refused. */
static void test_safe_mode_checks_only_what_runs(void) {
  setup();
  print_to("file:///tmp/never_written");
  tfs_output x = tfs_op_const_float(g, "x", 5.0f, st);
  TFS_ASSERT_OK(st);
  tfs_session_options *o = tfs_session_options_new();
  tfs_session_options_set_safe_mode(o, 1);
  tfs_session *s = session_with(o);
  tfs_tensor *t = tu_run1(s, x, NULL, NULL, 0);
  TFS_ASSERT_FLOAT_NEAR(tu_scalar_float(t), 5.0f, 0);
  tfs_tensor_free(t);
  tfs_session_free(s);
  tfs_session_options_free(o);
  teardown();
}

/* ---- ConfigProto -------------------------------------------------------- */

static void test_config_round_trip(void) {
  st = tfs_status_new();
  tfs_session_options *o = tfs_session_options_new();
  tfs_session_options_set_safe_mode(o, 1);
  tfs_session_options_set_limit(o, TFS_LIMIT_TENSOR_BYTES, 1000);
  tfs_session_options_set_limit(o, TFS_LIMIT_RUN_BYTES, -1);
  tfs_session_options_allow_op(o, "ReadFile", st);
  tfs_buffer *b = tfs_buffer_new();
  tfs_session_options_get_config(o, b, st);
  TFS_ASSERT_OK(st);
  /* field 7600, length-delimited: key (7600 << 3 | 2) as a varint */
  static const unsigned char expect[] = {
      0x82, 0xdb, 0x03, 0x1a,                     /* tfsess_limits */
      0x08, 0x01,                                 /* safe_mode */
      0x10, 0xe8, 0x07,                           /* max_tensor_bytes 1000 */
      0x18, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,   /* max_run_bytes -1 */
      0xff, 0xff, 0xff, 0x01,
      0x3a, 0x08, 'R', 'e', 'a', 'd', 'F', 'i', 'l', 'e'};
  CU_ASSERT_EQUAL(b->length, sizeof expect);
  CU_ASSERT(b->length == sizeof expect &&
            memcmp(b->data, expect, sizeof expect) == 0);
  /* and back, as TF_SetConfig would pass it */
  tfs_session_options *o2 = tfs_session_options_new();
  tfs_session_options_set_config(o2, b->data, b->length, st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_EQUAL(tfs_session_options_safe_mode(o2), 1);
  CU_ASSERT_EQUAL(tfs_session_options_limit(o2, TFS_LIMIT_TENSOR_BYTES), 1000);
  CU_ASSERT_EQUAL(tfs_session_options_limit(o2, TFS_LIMIT_RUN_BYTES), 0);
  CU_ASSERT_EQUAL(tfs_session_options_limit(o2, TFS_LIMIT_GRAPH_NODES),
                  1000000);
  CU_ASSERT_EQUAL(o2->config.limits.nallowed_ops, 1);
  CU_ASSERT_STRING_EQUAL(o2->config.limits.allowed_ops[0], "ReadFile");
  tfs_session_options_free(o2);
  tfs_buffer_free(b);
  /* no limits set: nothing is written */
  tfs_session_options *o3 = tfs_session_options_new();
  b = tfs_buffer_new();
  tfs_session_options_get_config(o3, b, st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_EQUAL(b->length, 0);
  tfs_buffer_free(b);
  tfs_session_options_free(o3);
  tfs_session_options_free(o);
  tfs_status_free(st);
}

/* ---- constant folding ---------------------------------------------------- */

/* Fill([60000, 60000], 1) from constants: 14.4 GB the folder must not
 * allocate.  The session's default optimizer runs; the run itself is
 * refused by the tensor limit. */
static void test_folding_never_allocates_past_cap(void) {
  setup();
  int64_t two = 2;
  int32_t v[2] = {60000, 60000};
  tfs_tensor *dv = tu_int32s(&two, 1, v);
  tfs_output dims = tfs_op_const(g, "dims", dv, st);
  tfs_tensor_free(dv);
  tfs_output one = tfs_op_const_float(g, "one", 1.0f, st);
  tfs_output f = tfs_op_fill(g, "big", dims, one, st);
  tfs_output r = tfs_op_shape(g, "shape", f, st);
  TFS_ASSERT_OK(st);
  tfs_session_options *o = tfs_session_options_new();
  tfs_session_options_set_safe_mode(o, 1);
  tfs_session *s = session_with(o);
  /* Shape of the Fill folds to a constant without materializing it */
  tfs_tensor *t = tu_run1(s, r, NULL, NULL, 0);
  CU_ASSERT_EQUAL(((const int32_t *)tfs_tensor_data(t))[0], 60000);
  tfs_tensor_free(t);
  char msg[512];
  CU_ASSERT_EQUAL(tu_run_error(s, f, NULL, NULL, 0, msg, sizeof msg),
                  TFS_RESOURCE_EXHAUSTED);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "per op"));
  tfs_session_free(s);
  tfs_session_options_free(o);
  teardown();
}

static const tfs_test_case limit_cases[] = {
    {"tensor_bytes", test_tensor_bytes},
    {"op_elements", test_op_elements},
    {"run_bytes", test_run_bytes},
    {"no_limits_by_default", test_no_limits_by_default},
    {"graph_nodes", test_graph_nodes},
    {"run_options_nesting", test_run_options_nesting},
    {"import_limits", test_import_limits},
    {"config_round_trip", test_config_round_trip},
    {"folding_never_allocates_past_cap",
     test_folding_never_allocates_past_cap},
    {NULL, NULL}};
static const tfs_test_case safe_cases[] = {
    {"defaults", test_safe_mode_defaults},
    {"refuses_huge_tensor", test_safe_mode_refuses_huge_tensor},
    {"refuses_file_ops", test_safe_mode_refuses_file_ops},
    {"allows_stderr_print", test_safe_mode_allows_stderr_print},
    {"checks_only_what_runs", test_safe_mode_checks_only_what_runs},
    {NULL, NULL}};

const tfs_test_suite tfs_test_suites[] = {{"limits", limit_cases},
                                          {"safe_mode", safe_cases},
                                          {NULL, NULL}};
