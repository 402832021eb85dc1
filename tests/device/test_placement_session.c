/*
 * tests/device/test_placement_session.c - placement through sessions, end
 * to end, with the FAKE device: the placement log of a plan, soft
 * placement and its errors from tfs_session_run, copies on cross-device
 * edges, fetched values in host memory, one placement per cached plan.
 * Passes once plan.c places nodes (docs/DEVICES.md, "Integration with
 * plans"); registered in tests/device/tests.am from then on.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "devtest.h"

static tfs_session *new_session(tfs_graph *g, int soft, int log) {
  tfs_fake_device_register();
  tfs_status *st = tfs_status_new();
  tfs_session_options *o = tfs_session_options_new();
  tfs_session_options_set_allow_soft_placement(o, soft);
  tfs_session_options_set_log_device_placement(o, log);
  tfs_session *s = tfs_session_new(g, o, st);
  TFS_ASSERT_OK(st);
  tfs_session_options_free(o);
  tfs_status_free(st);
  return s;
}

/* Runs `fetch` with stdout captured into buf. */
static tfs_code run_captured(tfs_session *s, tfs_output fetch,
                             const tfs_output *feeds,
                             tfs_tensor *const *values, int nfeeds,
                             tfs_tensor **out, char *buf, size_t cap,
                             char *msg, size_t msgcap) {
  char path[] = "/tmp/tfs_session_logXXXXXX";
  int fd = mkstemp(path);
  fflush(stdout);
  int saved = dup(STDOUT_FILENO);
  dup2(fd, STDOUT_FILENO);
  tfs_status *st = tfs_status_new();
  *out = NULL;
  tfs_session_run(s, feeds, values, nfeeds, &fetch, out, 1, NULL, 0, st);
  fflush(stdout);
  dup2(saved, STDOUT_FILENO);
  close(saved);
  lseek(fd, 0, SEEK_SET);
  ssize_t n = read(fd, buf, cap - 1);
  buf[n > 0 ? n : 0] = 0;
  close(fd);
  unlink(path);
  tfs_code c = tfs_status_code(st);
  snprintf(msg, msgcap, "%s", tfs_status_message(st));
  tfs_status_free(st);
  return c;
}

static tfs_graph *small_graph(tfs_output *x, tfs_output *y,
                              const char *mm_device) {
  tfs_graph *g = tfs_graph_new();
  *x = dt_placeholder(g, "x", TFS_FLOAT);
  tfs_output xx[2] = {*x, *x};
  tfs_output a = dt_node(g, "AddV2", "add", NULL, xx, 2, TFS_FLOAT, NULL);
  tfs_output r = dt_node(g, "Relu", "relu", NULL, &a, 1, TFS_FLOAT, NULL);
  tfs_output rr[2] = {r, r};
  *y = dt_node(g, "MatMul", "mm", mm_device, rr, 2, TFS_FLOAT, NULL);
  return g;
}

static void test_log_and_values(void) {
  tfs_output x, y;
  tfs_graph *g = small_graph(&x, &y, NULL);
  tfs_session *s = new_session(g, 0, 1);
  int64_t d[2] = {2, 2};
  static const float v[4] = {1, -2, 3, 4};
  tfs_tensor *xt = tu_floats(d, 2, v), *out = NULL;
  char log[2048], msg[1024];
  int64_t dev0, host0, dev1, host1;
  tfs_device__copy_counts(&dev0, &host0);
  CU_ASSERT_EQUAL(run_captured(s, y, &x, &xt, 1, &out, log, sizeof log, msg,
                               sizeof msg), TFS_OK);
  /* TensorFlow's placement log, one line per node of the plan */
  CU_ASSERT_PTR_NOT_NULL(strstr(log, "add: (AddV2): " DT_FAKE0 "\n"));
  CU_ASSERT_PTR_NOT_NULL(strstr(log, "relu: (Relu): " DT_FAKE0 "\n"));
  CU_ASSERT_PTR_NOT_NULL(strstr(log, "mm: (MatMul): " DT_CPU "\n"));
  tfs_device__copy_counts(&dev1, &host1);
  CU_ASSERT(dev1 > dev0);   /* the fed x went to FAKE */
  CU_ASSERT(host1 > host0); /* relu's output came back for the MatMul */
  CU_ASSERT_PTR_NULL(tfs_device__tensor_device(out));
  /* relu(2x) = [[2,0],[6,8]]; squared as a matrix */
  const float *o = tfs_tensor_data(out);
  CU_ASSERT_EQUAL(o[0], 4.0f);
  CU_ASSERT_EQUAL(o[1], 0.0f);
  CU_ASSERT_EQUAL(o[2], 60.0f);
  CU_ASSERT_EQUAL(o[3], 64.0f);
  tfs_tensor_free(out);
  /* the plan is cached: placement (and its log) happens once */
  CU_ASSERT_EQUAL(run_captured(s, y, &x, &xt, 1, &out, log, sizeof log, msg,
                               sizeof msg), TFS_OK);
  CU_ASSERT_STRING_EQUAL(log, "");
  tfs_tensor_free(out);
  tfs_tensor_free(xt);
  tfs_session_free(s);
  tfs_graph_free(g);
}

static void test_soft_placement_through_run(void) {
  tfs_output x, y;
  tfs_graph *g = small_graph(&x, &y, "/device:FAKE:0");
  int64_t d[2] = {2, 2};
  static const float v[4] = {1, 1, 1, 1};
  tfs_tensor *xt = tu_floats(d, 2, v), *out = NULL;
  char log[2048], msg[2048];
  tfs_session *s = new_session(g, 0, 0);
  CU_ASSERT_EQUAL(run_captured(s, y, &x, &xt, 1, &out, log, sizeof log, msg,
                               sizeof msg), TFS_INVALID_ARGUMENT);
  CU_ASSERT_PTR_NULL(out);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg,
      "Cannot assign a device for operation mm: Could not satisfy explicit "
      "device specification '/device:FAKE:0' because no supported kernel "
      "for FAKE devices is available."));
  tfs_session_free(s);
  s = new_session(g, 1, 1);
  CU_ASSERT_EQUAL(run_captured(s, y, &x, &xt, 1, &out, log, sizeof log, msg,
                               sizeof msg), TFS_OK);
  CU_ASSERT_PTR_NOT_NULL(strstr(log, "mm: (MatMul): " DT_CPU "\n"));
  const float *o = tfs_tensor_data(out);
  CU_ASSERT_EQUAL(o[0], 8.0f);
  tfs_tensor_free(out);
  tfs_tensor_free(xt);
  tfs_session_free(s);
  tfs_graph_free(g);
}

static void test_missing_gpu_without_soft_placement(void) {
  tfs_graph *g = tfs_graph_new();
  tfs_output x = dt_placeholder(g, "x", TFS_FLOAT);
  tfs_output xx[2] = {x, x};
  tfs_output a = dt_node(g, "AddV2", "a", "/device:GPU:99", xx, 2, TFS_FLOAT,
                         NULL);
  tfs_session *s = new_session(g, 0, 0);
  tfs_tensor *xt = tfs_tensor_scalar_float(1), *out = NULL;
  char log[256], msg[2048];
  CU_ASSERT_EQUAL(run_captured(s, a, &x, &xt, 1, &out, log, sizeof log, msg,
                               sizeof msg), TFS_INVALID_ARGUMENT);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "Cannot assign a device for operation "
                                     "a: {{node a}} was explicitly assigned "
                                     "to /device:GPU:99 but available "
                                     "devices are [ "));
  tfs_session_free(s);
  s = new_session(g, 1, 0);
  CU_ASSERT_EQUAL(run_captured(s, a, &x, &xt, 1, &out, log, sizeof log, msg,
                               sizeof msg), TFS_OK);
  CU_ASSERT_EQUAL(*(const float *)tfs_tensor_data(out), 2.0f);
  tfs_tensor_free(out);
  tfs_tensor_free(xt);
  tfs_session_free(s);
  tfs_graph_free(g);
}

static const tfs_test_case kSession[] = {
    {"log_and_values", test_log_and_values},
    {"soft_placement", test_soft_placement_through_run},
    {"missing_gpu", test_missing_gpu_without_soft_placement},
    {NULL, NULL}};

const tfs_test_suite tfs_test_suites[] = {{"session", kSession},
                                          {NULL, NULL}};
