/*
 * tests/session/test_session.c - running graphs: feeds, fetches and
 * targets with every TensorFlow 1 rule and error, plan caching, graphs
 * that grow, lifetimes, variables (ref and resource) and session options.
 */
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

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

static tfs_session *new_session(void) {
  tfs_session *s = tfs_session_new(g, NULL, st);
  TFS_ASSERT_OK(st);
  return s;
}

/* ---- success paths ---------------------------------------------------------- */

static void test_fetch_constant(void) {
  setup();
  tfs_output c = tfs_op_const_float(g, "c", 4.0f, st);
  tfs_session *s = new_session();
  tfs_tensor *t = tu_run1(s, c, NULL, NULL, 0);
  CU_ASSERT_EQUAL(tu_scalar_float(t), 4.0f);
  tfs_tensor_free(t);
  tfs_session_free(s);
  teardown();
}

static void test_feeds_and_multiple_fetches(void) {
  setup();
  tfs_output x = tfs_op_placeholder(g, "x", TFS_FLOAT, NULL, 0, st);
  tfs_output y = tfs_op_placeholder(g, "y", TFS_FLOAT, NULL, 0, st);
  tfs_output sum = tfs_op_add(g, "sum", x, y, st);
  tfs_output prod = tfs_op_mul(g, "prod", x, y, st);
  tfs_session *s = new_session();
  tfs_output feeds[2] = {x, y};
  tfs_tensor *vals[2] = {tfs_tensor_scalar_float(3), tfs_tensor_scalar_float(4)};
  tfs_output fetches[3] = {sum, prod, sum};
  tfs_tensor *outs[3];
  tfs_session_run(s, feeds, vals, 2, fetches, outs, 3, NULL, 0, st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_EQUAL(tu_scalar_float(outs[0]), 7.0f);
  CU_ASSERT_EQUAL(tu_scalar_float(outs[1]), 12.0f);
  CU_ASSERT_EQUAL(tu_scalar_float(outs[2]), 7.0f); /* same tensor twice */
  for (int i = 0; i < 3; i++) tfs_tensor_free(outs[i]);
  /* the caller may change its feed tensors between runs */
  *(float *)tfs_tensor_data(vals[0]) = 10.0f;
  tfs_tensor *t = NULL;
  tfs_session_run(s, feeds, vals, 2, &sum, &t, 1, NULL, 0, st);
  CU_ASSERT_EQUAL(tu_scalar_float(t), 14.0f);
  tfs_tensor_free(t);
  CU_ASSERT_TRUE(tfs_tensor_is_unique(vals[0])); /* no reference kept */
  tfs_tensor_free(vals[0]);
  tfs_tensor_free(vals[1]);
  tfs_session_free(s);
  teardown();
}

static void test_feed_any_tensor_cuts_graph(void) {
  setup();
  tfs_output x = tfs_op_placeholder(g, "x", TFS_FLOAT, NULL, 0, st);
  tfs_output mid = tfs_op_mul(g, "mid", x, x, st);
  tfs_output out = tfs_op_add(g, "out", mid, tfs_op_const_float(g, "one", 1, st), st);
  tfs_session *s = new_session();
  /* feeding `mid` means x is never needed */
  tfs_tensor *v = tfs_tensor_scalar_float(5);
  tfs_tensor *t = tu_run1(s, out, &mid, &v, 1);
  CU_ASSERT_EQUAL(tu_scalar_float(t), 6.0f);
  tfs_tensor_free(t);
  tfs_tensor_free(v);
  tfs_session_free(s);
  teardown();
}

static void test_targets_and_control_deps(void) {
  setup();
  tfs_output v = tfs_op_variable(g, "v", TFS_FLOAT, NULL, 0, st);
  tfs_output assign = tfs_op_assign(g, "assign", v, tfs_op_const_float(g, "c", 7, st), st);
  tfs_operation *init = tfs_op_group(g, "init", &assign.oper, 1, st);
  tfs_output read = tfs_op_with_dependencies(g, "read", v, &assign.oper, 1, st);
  TFS_ASSERT_OK(st);
  tfs_session *s = new_session();
  /* a NoOp target alone, no fetches */
  tfs_session_run(s, NULL, NULL, 0, NULL, NULL, 0, &init, 1, st);
  TFS_ASSERT_OK(st);
  tfs_tensor *t = tu_run1(s, v, NULL, NULL, 0);
  CU_ASSERT_EQUAL(tu_scalar_float(t), 7.0f);
  tfs_tensor_free(t);
  tfs_session_free(s);
  /* in a fresh session the control dependency runs the assign first */
  s = new_session();
  t = tu_run1(s, read, NULL, NULL, 0);
  CU_ASSERT_EQUAL(tu_scalar_float(t), 7.0f);
  tfs_tensor_free(t);
  tfs_session_free(s);
  teardown();
}

static void test_outputs_outlive_session_and_graph(void) {
  setup();
  int64_t d[1] = {3};
  float vals[3] = {1, 2, 3};
  tfs_tensor *cv = tu_floats(d, 1, vals);
  tfs_output c = tfs_op_const(g, "c", cv, st);
  tfs_tensor_free(cv);
  tfs_output sq = tfs_op_unary(g, "Square", "sq", c, st);
  tfs_session *s = new_session();
  tfs_output fetches[2] = {c, sq};
  tfs_tensor *outs[2];
  tfs_session_run(s, NULL, NULL, 0, fetches, outs, 2, NULL, 0, st);
  TFS_ASSERT_OK(st);
  tfs_session_free(s);
  tfs_graph_free(g);
  g = NULL;
  CU_ASSERT_EQUAL(((float *)tfs_tensor_data(outs[0]))[2], 3.0f);
  CU_ASSERT_EQUAL(((float *)tfs_tensor_data(outs[1]))[2], 9.0f);
  tfs_tensor_free(outs[0]);
  tfs_tensor_free(outs[1]);
  tfs_status_free(st);
}

static void test_graph_freed_before_session(void) {
  setup();
  tfs_output c = tfs_op_const_float(g, "c", 1.5f, st);
  tfs_session *s = new_session();
  tfs_graph_free(g); /* deferred: the session still uses it */
  tfs_tensor *t = tu_run1(s, c, NULL, NULL, 0);
  CU_ASSERT_EQUAL(tu_scalar_float(t), 1.5f);
  tfs_tensor_free(t);
  tfs_session_free(s); /* frees the graph */
  tfs_status_free(st);
}

static void test_graph_grows_after_session(void) {
  setup();
  tfs_output a = tfs_op_const_float(g, "a", 2, st);
  tfs_session *s = new_session();
  tfs_tensor *t = tu_run1(s, a, NULL, NULL, 0);
  tfs_tensor_free(t);
  tfs_output b = tfs_op_mul(g, "b", a, a, st); /* added after the session */
  t = tu_run1(s, b, NULL, NULL, 0);
  CU_ASSERT_EQUAL(tu_scalar_float(t), 4.0f);
  tfs_tensor_free(t);
  tfs_session_free(s);
  teardown();
}

static void test_plan_cache(void) {
  setup();
  tfs_output x = tfs_op_placeholder(g, "x", TFS_FLOAT, NULL, -1, st);
  tfs_output y = tfs_op_unary(g, "Neg", "y", x, st);
  tfs_output z = tfs_op_unary(g, "Exp", "z", x, st);
  tfs_session *s = new_session();
  tfs_tensor *v = tfs_tensor_scalar_float(0);
  for (int i = 0; i < 3; i++) tfs_tensor_free(tu_run1(s, y, &x, &v, 1));
  CU_ASSERT_EQUAL(tfs_session_num_plans(s), 1);
  tfs_tensor_free(tu_run1(s, z, &x, &v, 1));
  CU_ASSERT_EQUAL(tfs_session_num_plans(s), 2);
  /* a failing signature caches nothing */
  char msg[256];
  tu_run_error(s, z, NULL, NULL, 0, msg, sizeof msg);
  CU_ASSERT_EQUAL(tfs_session_num_plans(s), 3); /* plan ok; the run fails */
  tfs_tensor_free(v);
  tfs_session_free(s);
  teardown();
}

static int body_value;
static int scoped_body(tfs_session *s, void *user) {
  tfs_output *o = user;
  tfs_status *lst = tfs_status_new();
  tfs_tensor *t = NULL;
  tfs_session_run(s, NULL, NULL, 0, o, &t, 1, NULL, 0, lst);
  body_value = t ? (int)*(int32_t *)tfs_tensor_data(t) : -1;
  tfs_tensor_free(t);
  tfs_status_free(lst);
  return 42;
}

static void test_session_with_and_options(void) {
  setup();
  tfs_output c = tfs_op_add(g, "c", tfs_op_const_int32(g, "a", 10, st),
                            tfs_op_const_int32(g, "b", 20, st), st);
  CU_ASSERT_EQUAL(tfs_session_with(g, NULL, scoped_body, &c, st), 42);
  CU_ASSERT_EQUAL(body_value, 30);
  tfs_session_options *o = tfs_session_options_new();
  CU_ASSERT_EQUAL(tfs_session_options_intra_op_threads(o), 0);
  CU_ASSERT_EQUAL(tfs_session_options_inter_op_threads(o), 0);
  CU_ASSERT_EQUAL(tfs_session_options_allow_soft_placement(o), 0);
  CU_ASSERT_EQUAL(tfs_session_options_log_device_placement(o), 0);
  tfs_session_options_set_intra_op_threads(o, 2);
  tfs_session_options_set_inter_op_threads(o, 3);
  tfs_session_options_set_allow_soft_placement(o, 7);
  tfs_session_options_set_log_device_placement(o, 1);
  CU_ASSERT_EQUAL(tfs_session_options_intra_op_threads(o), 2);
  CU_ASSERT_EQUAL(tfs_session_options_inter_op_threads(o), 3);
  CU_ASSERT_EQUAL(tfs_session_options_allow_soft_placement(o), 1);
  CU_ASSERT_EQUAL(tfs_session_options_log_device_placement(o), 1);
  body_value = 0;
  CU_ASSERT_EQUAL(tfs_session_with(g, o, scoped_body, &c, st), 42);
  CU_ASSERT_EQUAL(body_value, 30);
  tfs_session_options_free(o);
  tfs_session_options_free(NULL);
  CU_ASSERT_EQUAL(tfs_session_with(NULL, NULL, scoped_body, &c, st), -1);
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT, "invalid argument");
  teardown();
}

/* gpu_options through the setters: copied, cleared, and the same bytes
 * TensorFlow writes for them, read back by set_config. */
static void test_gpu_options(void) {
  tfs_status *st = tfs_status_new();
  tfs_session_options *o = tfs_session_options_new();
  CU_ASSERT_PTR_NULL(tfs_session_options_visible_device_list(o));
  CU_ASSERT_EQUAL(tfs_session_options_allow_growth(o), 0);
  CU_ASSERT_EQUAL(tfs_session_options_per_process_gpu_memory_fraction(o), 0);
  char list[] = "1,0";
  tfs_session_options_set_visible_device_list(o, list, st);
  TFS_ASSERT_OK(st);
  list[0] = '7'; /* the options hold a copy */
  CU_ASSERT_STRING_EQUAL(tfs_session_options_visible_device_list(o), "1,0");
  tfs_session_options_set_allow_growth(o, 7);
  CU_ASSERT_EQUAL(tfs_session_options_allow_growth(o), 1);
  tfs_session_options_set_per_process_gpu_memory_fraction(o, 0.25);
  CU_ASSERT_EQUAL(tfs_session_options_per_process_gpu_memory_fraction(o),
                  0.25);
  tfs_buffer *b = tfs_buffer_new();
  tfs_session_options_get_config(o, b, st);
  TFS_ASSERT_OK(st);
  /* ConfigProto.gpu_options (6): fraction (1, double), allow_growth (4),
   * visible_device_list (5) */
  static const unsigned char expect[] = {
      0x32, 0x10, 0x09, 0, 0, 0, 0, 0, 0, 0xd0, 0x3f, /* 0.25 */
      0x20, 0x01, 0x2a, 0x03, '1', ',', '0'};
  CU_ASSERT_EQUAL(b->length, sizeof expect);
  CU_ASSERT(b->length == sizeof expect &&
            memcmp(b->data, expect, sizeof expect) == 0);
  tfs_session_options *o2 = tfs_session_options_new();
  tfs_session_options_set_config(o2, b->data, b->length, st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_STRING_EQUAL(tfs_session_options_visible_device_list(o2), "1,0");
  CU_ASSERT_EQUAL(tfs_session_options_allow_growth(o2), 1);
  CU_ASSERT_EQUAL(tfs_session_options_per_process_gpu_memory_fraction(o2),
                  0.25);
  tfs_buffer_free(b);
  /* "" and NULL clear the list; cleared options write nothing */
  tfs_session_options_set_visible_device_list(o2, "", st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_PTR_NULL(tfs_session_options_visible_device_list(o2));
  tfs_session_options_set_visible_device_list(o, NULL, st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_PTR_NULL(tfs_session_options_visible_device_list(o));
  tfs_session_options_set_allow_growth(o, 0);
  tfs_session_options_set_per_process_gpu_memory_fraction(o, 0);
  b = tfs_buffer_new();
  tfs_session_options_get_config(o, b, st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_EQUAL(b->length, 0);
  tfs_buffer_free(b);
  /* misuse */
  tfs_session_options_set_visible_device_list(NULL, "0", st);
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT, "");
  TFS_ASSERT_MESSAGE(st, "invalid argument to "
                         "tfs_session_options_set_visible_device_list: "
                         "o != NULL");
  CU_ASSERT_PTR_NULL(tfs_session_options_visible_device_list(NULL));
  CU_ASSERT_EQUAL(tfs_session_options_allow_growth(NULL), 0);
  CU_ASSERT_EQUAL(tfs_session_options_per_process_gpu_memory_fraction(NULL),
                  0);
  tfs_session_options_free(o2);
  tfs_session_options_free(o);
  tfs_status_free(st);
}

/* ---- TensorFlow 1's run errors ---------------------------------------------- */

static void test_unfed_placeholder(void) {
  setup();
  int64_t d[2] = {-1, 3};
  tfs_output x = tfs_op_placeholder(g, "x", TFS_FLOAT, d, 2, st);
  tfs_output s0 = tfs_op_placeholder(g, "s", TFS_INT32, NULL, 0, st);
  tfs_output u = tfs_op_placeholder(g, "u", TFS_FLOAT, NULL, -1, st);
  tfs_output y = tfs_op_unary(g, "Neg", "y", x, st);
  tfs_session *s = new_session();
  char msg[512];
  CU_ASSERT_EQUAL(tu_run_error(s, y, NULL, NULL, 0, msg, sizeof msg),
                  TFS_INVALID_ARGUMENT);
  CU_ASSERT_STRING_EQUAL(msg, "You must feed a value for placeholder tensor "
                              "'x' with dtype float and shape [?,3]\n\t "
                              "[[{{node x}}]]");
  CU_ASSERT_EQUAL(tu_run_error(s, s0, NULL, NULL, 0, msg, sizeof msg),
                  TFS_INVALID_ARGUMENT);
  CU_ASSERT_STRING_EQUAL(msg, "You must feed a value for placeholder tensor "
                              "'s' with dtype int32\n\t [[{{node s}}]]");
  tu_run_error(s, u, NULL, NULL, 0, msg, sizeof msg);
  CU_ASSERT_STRING_EQUAL(msg, "You must feed a value for placeholder tensor "
                              "'u' with dtype float\n\t [[{{node u}}]]");
  tfs_session_free(s);
  teardown();
}

static void test_feed_dtype_and_shape(void) {
  setup();
  int64_t d[1] = {3};
  tfs_output x = tfs_op_placeholder(g, "x", TFS_FLOAT, d, 1, st);
  tfs_output y = tfs_op_placeholder(g, "y", TFS_FLOAT, NULL, 0, st);
  tfs_output z = tfs_op_add(g, "z", x, y, st);
  tfs_session *s = new_session();
  tfs_output feeds[2] = {x, y};
  float three[3] = {1, 2, 3};
  tfs_tensor *good = tu_floats(d, 1, three);
  tfs_tensor *wrong_type = tfs_tensor_scalar_int32(1);
  tfs_tensor *vals[2] = {good, wrong_type};
  char msg[512];
  CU_ASSERT_EQUAL(tu_run_error(s, z, feeds, vals, 2, msg, sizeof msg),
                  TFS_INVALID_ARGUMENT);
  CU_ASSERT_STRING_EQUAL(msg, "Expects arg[1] to be float but int32 is "
                              "provided");
  tfs_tensor *str = tfs_tensor_scalar_string("x", 1);
  vals[0] = str;
  vals[1] = good;
  tu_run_error(s, z, feeds, vals, 2, msg, sizeof msg);
  CU_ASSERT_STRING_EQUAL(msg, "Expects arg[0] to be float but string is "
                              "provided");
  int64_t d2[1] = {2};
  tfs_tensor *short_vec = tu_floats(d2, 1, three);
  vals[0] = short_vec;
  vals[1] = tfs_tensor_scalar_float(1);
  tu_run_error(s, z, feeds, vals, 2, msg, sizeof msg);
  CU_ASSERT_STRING_EQUAL(msg, "Cannot feed value of shape [2] for Tensor x:0, "
                              "which has shape [3]");
  tfs_tensor_free(vals[1]);
  vals[0] = NULL;
  vals[1] = good;
  tu_run_error(s, z, feeds, vals, 2, msg, sizeof msg);
  CU_ASSERT_STRING_EQUAL(msg, "Feed value 0 for 'x:0' is NULL");
  tfs_tensor_free(good);
  tfs_tensor_free(wrong_type);
  tfs_tensor_free(str);
  tfs_tensor_free(short_vec);
  tfs_session_free(s);
  teardown();
}

static void test_signature_errors(void) {
  setup();
  tfs_output x = tfs_op_placeholder(g, "x", TFS_FLOAT, NULL, 0, st);
  tfs_output c = tfs_op_unary(g, "Neg", "c", x, st);
  tfs_operation *noop = tfs_op_group(g, "noop", NULL, 0, st);
  tfs_graph *other = tfs_graph_new();
  tfs_output foreign = tfs_op_const_float(other, "far", 1, st);
  tfs_session *s = new_session();
  tfs_tensor *v = tfs_tensor_scalar_float(1);
  char msg[512];
  /* nothing to do */
  tfs_session_run(s, NULL, NULL, 0, NULL, NULL, 0, NULL, 0, st);
  TFS_ASSERT_MESSAGE(st, "Must specify at least one target to fetch or "
                         "execute.");
  CU_ASSERT_EQUAL(tfs_status_code(st), TFS_INVALID_ARGUMENT);
  /* fetch index too large */
  tfs_output bad = {c.oper, 3};
  CU_ASSERT_EQUAL(tu_run_error(s, bad, &x, &v, 1, msg, sizeof msg),
                  TFS_INVALID_ARGUMENT);
  CU_ASSERT_STRING_EQUAL(msg, "FetchOutputs c:3: output index too large, "
                              "must be < 1");
  /* fetch from another graph */
  CU_ASSERT_EQUAL(tu_run_error(s, foreign, NULL, NULL, 0, msg, sizeof msg),
                  TFS_NOT_FOUND);
  CU_ASSERT_STRING_EQUAL(msg, "FetchOutputs node far:0: not found");
  /* fetch of an op without outputs */
  tfs_output nothing = {noop, 0};
  CU_ASSERT_EQUAL(tu_run_error(s, nothing, NULL, NULL, 0, msg, sizeof msg),
                  TFS_INVALID_ARGUMENT);
  CU_ASSERT_STRING_EQUAL(
      msg, "Tried to fetch data for 'noop:0', which produces no output.  To "
           "run to a node but not fetch any data, pass 'noop:0' as an "
           "argument to the 'target_node_names' argument of the Session::Run "
           "API.");
  /* feed index too large, unknown feed */
  tfs_output badfeed = {x.oper, 2};
  CU_ASSERT_EQUAL(tu_run_error(s, c, &badfeed, &v, 1, msg, sizeof msg),
                  TFS_INVALID_ARGUMENT);
  CU_ASSERT_STRING_EQUAL(msg, "FeedInputs: x:2 should have output index < 1");
  CU_ASSERT_EQUAL(tu_run_error(s, c, &foreign, &v, 1, msg, sizeof msg),
                  TFS_NOT_FOUND);
  CU_ASSERT_STRING_EQUAL(msg, "FeedInputs: unable to find feed output far:0");
  /* fed twice, fed and fetched */
  tfs_output twice[2] = {x, x};
  tfs_tensor *vv[2] = {v, v};
  tfs_tensor *out = NULL;
  tfs_session_run(s, twice, vv, 2, &c, &out, 1, NULL, 0, st);
  TFS_ASSERT_MESSAGE(st, "Endpoint \"x:0\" fed more than once.");
  CU_ASSERT_PTR_NULL(out);
  CU_ASSERT_EQUAL(tu_run_error(s, x, &x, &v, 1, msg, sizeof msg),
                  TFS_INVALID_ARGUMENT);
  CU_ASSERT_STRING_EQUAL(msg, "x:0 is both fed and fetched.");
  /* unknown target */
  tfs_session_run(s, NULL, NULL, 0, NULL, NULL, 0, &foreign.oper, 1, st);
  TFS_ASSERT_MESSAGE(st, "PruneForTargets: Some target nodes not found: far ");
  CU_ASSERT_EQUAL(tfs_status_code(st), TFS_NOT_FOUND);
  /* API misuse */
  tfs_session_run(NULL, NULL, NULL, 0, &c, &out, 1, NULL, 0, st);
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT, "invalid argument to "
                                             "tfs_session_run: s != NULL");
  tfs_session_run(s, NULL, NULL, 1, &c, &out, 1, NULL, 0, st);
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT, "feeds != NULL");
  tfs_tensor_free(v);
  tfs_session_free(s);
  tfs_graph_free(other);
  teardown();
}

static void test_closed_session(void) {
  setup();
  tfs_output c = tfs_op_const_float(g, "c", 1, st);
  tfs_session *s = new_session();
  tfs_session_close(s, st);
  TFS_ASSERT_OK(st);
  tfs_session_close(s, st); /* idempotent */
  TFS_ASSERT_OK(st);
  char msg[256];
  CU_ASSERT_EQUAL(tu_run_error(s, c, NULL, NULL, 0, msg, sizeof msg),
                  TFS_CANCELLED);
  CU_ASSERT_STRING_EQUAL(msg, "Session has been closed.");
  tfs_session_free(s);
  tfs_session_free(NULL);
  CU_ASSERT_PTR_NULL(tfs_session_new(NULL, NULL, st));
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT, "g != NULL");
  teardown();
}

static void test_kernel_errors_name_the_node(void) {
  setup();
  /* an op whose dtype has no CPU kernel */
  tfs_output q = tfs_op_placeholder(g, "q", TFS_QINT8, NULL, 0, st);
  tfs_output r = tfs_op_unary(g, "Relu", "r", q, st);
  TFS_ASSERT_OK(st);
  tfs_session *s = new_session();
  char msg[1024];
  CU_ASSERT_EQUAL(tu_run_error(s, r, NULL, NULL, 0, msg, sizeof msg),
                  TFS_INVALID_ARGUMENT);
  /* the session's device types, as TensorFlow lists them */
  char want[256];
  snprintf(want, sizeof want, "No OpKernel was registered to support Op "
           "'Relu' used by {{node r}} with these attrs: [T=DT_QINT8]\n"
           "Registered devices: %s\nRegistered kernels:\n  device='CPU'; "
           "T in [DT_FLOAT,", tu_gpu_count() ? "[CPU, GPU]" : "[CPU]");
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, want));
  CU_ASSERT_EQUAL(tfs_session_num_plans(s), 0);
  tfs_session_free(s);
  teardown();
}

/* ---- variables ------------------------------------------------------------- */

static void test_ref_variables(void) {
  setup();
  int64_t d[1] = {2};
  tfs_output v = tfs_op_variable(g, "v", TFS_FLOAT, d, 1, st);
  float init_vals[2] = {1, 2};
  tfs_tensor *iv = tu_floats(d, 1, init_vals);
  tfs_output assign = tfs_op_assign(g, "v/Assign", v, tfs_op_const(g, "init_val", iv, st), st);
  tfs_tensor_free(iv);
  tfs_output delta = tfs_op_placeholder(g, "delta", TFS_FLOAT, NULL, -1, st);
  tfs_output add = tfs_op_assign_add(g, "add", v, delta, st);
  tfs_output sub = tfs_op_binary(g, "AssignSub", "sub", v, delta, st);
  tfs_output inited = tfs_op_unary(g, "IsVariableInitialized", "inited", v, st);
  tfs_output plus = tfs_op_add(g, "plus", v, v, st);
  TFS_ASSERT_OK(st);
  tfs_session *s = new_session();
  char msg[512];
  tfs_tensor *b = tu_run1(s, inited, NULL, NULL, 0);
  CU_ASSERT_EQUAL(*(uint8_t *)tfs_tensor_data(b), 0);
  tfs_tensor_free(b);
  CU_ASSERT_EQUAL(tu_run_error(s, plus, NULL, NULL, 0, msg, sizeof msg),
                  TFS_FAILED_PRECONDITION);
  CU_ASSERT_STRING_EQUAL(msg, "Attempting to use uninitialized value v\n\t "
                              "[[{{node plus}}]]");
  CU_ASSERT_EQUAL(tu_run_error(s, v, NULL, NULL, 0, msg, sizeof msg),
                  TFS_FAILED_PRECONDITION);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "Attempting to use uninitialized value v"));
  float dv[2] = {10, 20};
  tfs_tensor *dt = tu_floats(d, 1, dv);
  CU_ASSERT_EQUAL(tu_run_error(s, add, &delta, &dt, 1, msg, sizeof msg),
                  TFS_FAILED_PRECONDITION);
  CU_ASSERT_STRING_EQUAL(msg, "Attempting to use uninitialized value v\n\t "
                              "[[{{node add}}]]");
  tfs_tensor_free(tu_run1(s, assign, NULL, NULL, 0));
  tfs_tensor *t = tu_run1(s, add, &delta, &dt, 1);
  CU_ASSERT_EQUAL(((float *)tfs_tensor_data(t))[1], 22.0f);
  tfs_tensor *kept = t; /* a fetched value must not change later */
  t = tu_run1(s, sub, &delta, &dt, 1);
  CU_ASSERT_EQUAL(((float *)tfs_tensor_data(t))[1], 2.0f);
  CU_ASSERT_EQUAL(((float *)tfs_tensor_data(kept))[1], 22.0f);
  tfs_tensor_free(kept);
  tfs_tensor_free(t);
  t = tu_run1(s, plus, NULL, NULL, 0);
  CU_ASSERT_EQUAL(((float *)tfs_tensor_data(t))[0], 2.0f);
  tfs_tensor_free(t);
  b = tu_run1(s, inited, NULL, NULL, 0);
  CU_ASSERT_EQUAL(*(uint8_t *)tfs_tensor_data(b), 1);
  tfs_tensor_free(b);
  /* shape mismatches */
  int64_t d3[1] = {3};
  float three[3] = {1, 2, 3};
  tfs_tensor *bad = tu_floats(d3, 1, three);
  CU_ASSERT_EQUAL(tu_run_error(s, add, &delta, &bad, 1, msg, sizeof msg),
                  TFS_INVALID_ARGUMENT);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "Cannot update variable with shape [2] "
                                     "using a Tensor with shape [3], shapes "
                                     "must be equal."));
  tfs_output assign3 = tfs_op_assign(g, "assign3", v, tfs_op_const(g, "c3", bad, st), st);
  CU_ASSERT_PTR_NULL(assign3.oper); /* caught by shape inference */
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT, "Shapes must be equal rank, or "
                                             "be compatible: [2] vs. [3]");
  tfs_tensor_free(bad);
  tfs_tensor_free(dt);
  /* another session on the same graph has its own, uninitialised v */
  tfs_session *s2 = new_session();
  CU_ASSERT_EQUAL(tu_run_error(s2, plus, NULL, NULL, 0, msg, sizeof msg),
                  TFS_FAILED_PRECONDITION);
  tfs_session_free(s2);
  tfs_session_free(s);
  teardown();
}

static void test_assign_validate_shape_at_run(void) {
  setup();
  tfs_output v = tfs_op_variable(g, "v", TFS_FLOAT, NULL, -1, st);
  tfs_output val = tfs_op_placeholder(g, "val", TFS_FLOAT, NULL, -1, st);
  tfs_output assign = tfs_op_assign(g, "assign", v, val, st);
  tfs_session *s = new_session();
  int64_t d2[1] = {2}, d3[1] = {3};
  float f[3] = {1, 2, 3};
  tfs_tensor *a = tu_floats(d2, 1, f), *b = tu_floats(d3, 1, f);
  tfs_tensor_free(tu_run1(s, assign, &val, &a, 1));
  char msg[512];
  CU_ASSERT_EQUAL(tu_run_error(s, assign, &val, &b, 1, msg, sizeof msg),
                  TFS_INVALID_ARGUMENT);
  CU_ASSERT_STRING_EQUAL(msg, "Assign requires shapes of both tensors to "
                              "match. lhs shape= [2] rhs shape= [3]\n\t "
                              "[[{{node assign}}]]");
  tfs_tensor_free(a);
  tfs_tensor_free(b);
  tfs_session_free(s);
  teardown();
}

static void test_resource_variables(void) {
  setup();
  tfs_output h = tfs_op_var_handle(g, "w", TFS_FLOAT, NULL, 0, st);
  tfs_output read = tfs_op_read_variable(g, "read", h, TFS_FLOAT, st);
  tfs_operation *init = tfs_op_assign_variable(g, "init", h, tfs_op_const_float(g, "three", 3, st), st);
  tfs_operation *inc = tfs_op_assign_add_variable(g, "inc", h, tfs_op_const_float(g, "one", 1, st), st);
  tfs_output is_init = tfs_op_unary(g, "VarIsInitializedOp", "is_init", h, st);
  tfs_output wrong = tfs_op_read_variable(g, "wrong", h, TFS_INT32, st);
  tfs_operation *bad_assign = tfs_op_assign_variable(g, "bad_assign", h, tfs_op_const_int32(g, "i", 1, st), st);
  TFS_ASSERT_OK(st);
  tfs_session *s = new_session();
  char msg[512];
  CU_ASSERT_EQUAL(tu_run_error(s, read, NULL, NULL, 0, msg, sizeof msg),
                  TFS_FAILED_PRECONDITION);
  CU_ASSERT_STRING_EQUAL(msg, "Could not find variable w. This could mean "
                              "that the variable has been deleted. In TF1, it "
                              "can also mean the variable is uninitialized. "
                              "Debug info: container=localhost, status error "
                              "message=Container localhost does not exist. "
                              "(Could not find resource: localhost/w)"
                              "\n\t [[{{node read}}]]");
  tfs_tensor *b = tu_run1(s, is_init, NULL, NULL, 0);
  CU_ASSERT_EQUAL(*(uint8_t *)tfs_tensor_data(b), 0);
  tfs_tensor_free(b);
  tfs_session_run(s, NULL, NULL, 0, NULL, NULL, 0, &init, 1, st);
  TFS_ASSERT_OK(st);
  tfs_session_run(s, NULL, NULL, 0, NULL, NULL, 0, &inc, 1, st);
  TFS_ASSERT_OK(st);
  tfs_tensor *t = tu_run1(s, read, NULL, NULL, 0);
  CU_ASSERT_EQUAL(tu_scalar_float(t), 4.0f);
  tfs_tensor_free(t);
  b = tu_run1(s, is_init, NULL, NULL, 0);
  CU_ASSERT_EQUAL(*(uint8_t *)tfs_tensor_data(b), 1);
  tfs_tensor_free(b);
  tu_run_error(s, wrong, NULL, NULL, 0, msg, sizeof msg);
  CU_ASSERT_STRING_EQUAL(msg, "Trying to read variable with wrong dtype. "
                              "Expected float got int32\n\t "
                              "[[{{node wrong}}]]");
  tfs_session_run(s, NULL, NULL, 0, NULL, NULL, 0, &bad_assign, 1, st);
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT,
                   "Trying to assign variable with wrong dtype. Expected "
                   "float got int32");
  tfs_session_free(s);
  teardown();
}

/* ---- threads ------------------------------------------------------------- */

typedef struct {
  tfs_session *s;
  tfs_output x, y;
  int ok;
} thread_job;

static void *thread_main(void *arg) {
  thread_job *j = arg;
  tfs_status *lst = tfs_status_new();
  j->ok = 1;
  for (int i = 0; i < 200; i++) {
    tfs_tensor *v = tfs_tensor_scalar_float((float)i);
    tfs_tensor *out = NULL;
    tfs_session_run(j->s, &j->x, &v, 1, &j->y, &out, 1, NULL, 0, lst);
    if (!tfs_status_ok(lst) || *(float *)tfs_tensor_data(out) != 2.0f * i + 1)
      j->ok = 0;
    tfs_tensor_free(out);
    tfs_tensor_free(v);
  }
  tfs_status_free(lst);
  return NULL;
}

static void test_concurrent_runs(void) {
  setup();
  tfs_output x = tfs_op_placeholder(g, "x", TFS_FLOAT, NULL, 0, st);
  tfs_output y = tfs_op_add(g, "y", tfs_op_add(g, NULL, x, x, st),
                            tfs_op_const_float(g, "one", 1, st), st);
  tfs_session *s = new_session();
  pthread_t th[4];
  thread_job jobs[4];
  for (int i = 0; i < 4; i++) {
    jobs[i] = (thread_job){s, x, y, 0};
    pthread_create(&th[i], NULL, thread_main, &jobs[i]);
  }
  for (int i = 0; i < 4; i++) {
    pthread_join(th[i], NULL);
    CU_ASSERT_TRUE(jobs[i].ok);
  }
  CU_ASSERT_EQUAL(tfs_session_num_plans(s), 1);
  tfs_session_free(s);
  teardown();
}

/* A plan build that waits, inside the build, until the test lets it go:
 * runs of cached plans on other threads must go on meanwhile, and two
 * threads building the same signature get one cached plan. */
typedef struct gate {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int entered, open, cached_done;
} gate;

static gate g_gate = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0,
                      0, 0};

static void gate_hook(void *arg) {
  gate *gt = arg;
  pthread_mutex_lock(&gt->mu);
  gt->entered++;
  pthread_cond_broadcast(&gt->cv);
  while (!gt->open) pthread_cond_wait(&gt->cv, &gt->mu);
  pthread_mutex_unlock(&gt->mu);
}

/* Waits (at most `seconds`) for *flag >= want; returns whether it was. */
static int gate_wait(gate *gt, const int *flag, int want, int seconds) {
  struct timespec until;
  clock_gettime(CLOCK_REALTIME, &until);
  until.tv_sec += seconds;
  pthread_mutex_lock(&gt->mu);
  while (*flag < want)
    if (pthread_cond_timedwait(&gt->cv, &gt->mu, &until)) break;
  int ok = *flag >= want;
  pthread_mutex_unlock(&gt->mu);
  return ok;
}

typedef struct {
  tfs_session *s;
  tfs_output x, fetch;
  float want; /* for x = 1 */
  int runs, ok;
} gate_job;

static void *gate_run(void *arg) {
  gate_job *j = arg;
  tfs_status *lst = tfs_status_new();
  j->ok = 1;
  for (int i = 0; i < j->runs; i++) {
    tfs_tensor *v = tfs_tensor_scalar_float(1), *out = NULL;
    tfs_session_run(j->s, &j->x, &v, 1, &j->fetch, &out, 1, NULL, 0, lst);
    if (!tfs_status_ok(lst) || *(float *)tfs_tensor_data(out) != j->want)
      j->ok = 0;
    tfs_tensor_free(out);
    tfs_tensor_free(v);
  }
  tfs_status_free(lst);
  if (j->runs > 1) { /* the cached runs' thread */
    pthread_mutex_lock(&g_gate.mu);
    g_gate.cached_done = 1;
    pthread_cond_broadcast(&g_gate.cv);
    pthread_mutex_unlock(&g_gate.mu);
  }
  return NULL;
}

static void test_plans_built_outside_session_lock(void) {
  setup();
  tfs_output x = tfs_op_placeholder(g, "x", TFS_FLOAT, NULL, 0, st);
  tfs_output y = tfs_op_add(g, "y", x, tfs_op_const_float(g, "one", 1, st),
                            st);
  tfs_output z = tfs_op_mul(g, "z", x, tfs_op_const_float(g, "two", 2, st),
                            st);
  TFS_ASSERT_OK(st);
  tfs_session *s = new_session();
  gate_job cached = {s, x, y, 2.0f, 1, 0};
  gate_run(&cached); /* y's plan is cached before the gate closes */
  CU_ASSERT_TRUE(cached.ok);
  g_gate.entered = g_gate.open = g_gate.cached_done = 0;
  tfs_plan__set_build_hook(gate_hook, &g_gate);
  /* two threads build z's plan; both stop in the build */
  gate_job build[2] = {{s, x, z, 2.0f, 1, 0}, {s, x, z, 2.0f, 1, 0}};
  pthread_t bt[2], ct;
  for (int i = 0; i < 2; i++) pthread_create(&bt[i], NULL, gate_run, &build[i]);
  CU_ASSERT_TRUE(gate_wait(&g_gate, &g_gate.entered, 1, 10));
  /* meanwhile y's cached plan runs 200 times */
  cached.runs = 200;
  pthread_create(&ct, NULL, gate_run, &cached);
  int went_on = gate_wait(&g_gate, &g_gate.cached_done, 1, 20);
  CU_ASSERT_TRUE(went_on); /* else the cached runs waited for the build */
  pthread_mutex_lock(&g_gate.mu);
  g_gate.open = 1;
  pthread_cond_broadcast(&g_gate.cv);
  pthread_mutex_unlock(&g_gate.mu);
  pthread_join(ct, NULL);
  for (int i = 0; i < 2; i++) {
    pthread_join(bt[i], NULL);
    CU_ASSERT_TRUE(build[i].ok);
  }
  tfs_plan__set_build_hook(NULL, NULL);
  CU_ASSERT_TRUE(cached.ok);
  CU_ASSERT_EQUAL(tfs_session_num_plans(s), 2);
  tfs_session_free(s);
  teardown();
}

/* A close while a plan is being built waits for the build; the build's
 * run then fails as a run of a closed session does. */
static void test_close_waits_for_plan_build(void) {
  setup();
  tfs_output x = tfs_op_placeholder(g, "x", TFS_FLOAT, NULL, 0, st);
  tfs_output y = tfs_op_add(g, "y", x, tfs_op_const_float(g, "one", 1, st),
                            st);
  TFS_ASSERT_OK(st);
  tfs_session *s = new_session();
  g_gate.entered = g_gate.open = g_gate.cached_done = 0;
  tfs_plan__set_build_hook(gate_hook, &g_gate);
  gate_job build = {s, x, y, 2.0f, 1, 0};
  pthread_t bt;
  pthread_create(&bt, NULL, gate_run, &build);
  CU_ASSERT_TRUE(gate_wait(&g_gate, &g_gate.entered, 1, 10));
  pthread_mutex_lock(&g_gate.mu);
  g_gate.open = 1;
  pthread_cond_broadcast(&g_gate.cv);
  pthread_mutex_unlock(&g_gate.mu);
  tfs_session_close(s, st);
  TFS_ASSERT_OK(st);
  pthread_join(bt, NULL);
  tfs_plan__set_build_hook(NULL, NULL);
  /* the build finished before or after the close: either its run
   * succeeded, or it failed cleanly; the plan cache is empty after */
  CU_ASSERT_EQUAL(tfs_session_num_plans(s), 0);
  tfs_session_free(s);
  teardown();
}

static const tfs_test_case run_cases[] = {
    {"fetch_constant", test_fetch_constant},
    {"feeds_and_multiple_fetches", test_feeds_and_multiple_fetches},
    {"feed_any_tensor_cuts_graph", test_feed_any_tensor_cuts_graph},
    {"targets_and_control_deps", test_targets_and_control_deps},
    {"outputs_outlive_session_and_graph",
     test_outputs_outlive_session_and_graph},
    {"graph_freed_before_session", test_graph_freed_before_session},
    {"graph_grows_after_session", test_graph_grows_after_session},
    {"plan_cache", test_plan_cache},
    {"session_with_and_options", test_session_with_and_options},
    {"gpu_options", test_gpu_options},
    {"concurrent_runs", test_concurrent_runs},
    {"plans_built_outside_session_lock",
     test_plans_built_outside_session_lock},
    {"close_waits_for_plan_build", test_close_waits_for_plan_build},
    {NULL, NULL}};
static const tfs_test_case error_cases[] = {
    {"unfed_placeholder", test_unfed_placeholder},
    {"feed_dtype_and_shape", test_feed_dtype_and_shape},
    {"signature_errors", test_signature_errors},
    {"closed_session", test_closed_session},
    {"kernel_errors_name_the_node", test_kernel_errors_name_the_node},
    {NULL, NULL}};
/* AssignVariableOp keeps its value tensor only when nothing else holds it:
 * a fed tensor, a fetched one and an earlier read stay what they were. */
static void test_assign_variable_value_ownership(void) {
  setup();
  int64_t two = 2;
  tfs_output x = tfs_op_placeholder(g, "x", TFS_FLOAT, &two, 1, st);
  tfs_output h = tfs_op_var_handle(g, "v", TFS_FLOAT, &two, 1, st);
  tfs_output y = tfs_op_add(g, "y", x, x, st);
  tfs_operation *set_x = tfs_op_assign_variable(g, "set_x", h, x, st);
  tfs_operation *set_y = tfs_op_assign_variable(g, "set_y", h, y, st);
  tfs_output read = tfs_op_read_variable(g, "read", h, TFS_FLOAT, st);
  TFS_ASSERT_OK(st);
  tfs_session *s = new_session();
  tfs_tensor *xv = tu_floats(&two, 1, (const float[]){1, 2});
  /* the caller's feed */
  tfs_session_run(s, &x, &xv, 1, NULL, NULL, 0, &set_x, 1, st);
  TFS_ASSERT_OK(st);
  ((float *)tfs_tensor_data(xv))[0] = 100;
  tfs_tensor *r1 = tu_run1(s, read, NULL, NULL, 0);
  CU_ASSERT_EQUAL(((float *)tfs_tensor_data(r1))[0], 1.0f);
  /* a value also fetched */
  tfs_tensor *yv = NULL;
  tfs_session_run(s, &x, &xv, 1, &y, &yv, 1, &set_y, 1, st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_PTR_NOT_NULL_FATAL(yv);
  CU_ASSERT_EQUAL(((float *)tfs_tensor_data(yv))[1], 4.0f);
  ((float *)tfs_tensor_data(yv))[1] = -1;
  tfs_tensor *r2 = tu_run1(s, read, NULL, NULL, 0);
  CU_ASSERT_EQUAL(((float *)tfs_tensor_data(r2))[0], 200.0f);
  CU_ASSERT_EQUAL(((float *)tfs_tensor_data(r2))[1], 4.0f);
  /* a value nothing else reads (kept by the variable): earlier reads keep
   * theirs */
  ((float *)tfs_tensor_data(xv))[0] = 7;
  tfs_session_run(s, &x, &xv, 1, NULL, NULL, 0, &set_y, 1, st);
  TFS_ASSERT_OK(st);
  tfs_tensor *r3 = tu_run1(s, read, NULL, NULL, 0);
  CU_ASSERT_EQUAL(((float *)tfs_tensor_data(r3))[0], 14.0f);
  CU_ASSERT_EQUAL(((float *)tfs_tensor_data(r1))[0], 1.0f);
  CU_ASSERT_EQUAL(((float *)tfs_tensor_data(r2))[0], 200.0f);
  CU_ASSERT_EQUAL(((float *)tfs_tensor_data(r2))[1], 4.0f);
  tfs_tensor_free(r1);
  tfs_tensor_free(r2);
  tfs_tensor_free(r3);
  tfs_tensor_free(yv);
  tfs_tensor_free(xv);
  tfs_session_free(s);
  teardown();
}

static const tfs_test_case var_cases[] = {
    {"ref_variables", test_ref_variables},
    {"assign_validate_shape_at_run", test_assign_validate_shape_at_run},
    {"resource_variables", test_resource_variables},
    {"assign_variable_value_ownership",
     test_assign_variable_value_ownership},
    {NULL, NULL}};

const tfs_test_suite tfs_test_suites[] = {{"run", run_cases},
                                          {"errors", error_cases},
                                          {"variables", var_cases},
                                          {NULL, NULL}};
