/*
 * tests/device/test_placement_session.c - placement through sessions, end
 * to end, with the FAKE device of fake_device.c as a second device type:
 * requested devices, soft placement and TensorFlow's messages, variables
 * placed with their writers and readers, the placement log and device
 * mapping, copies on cross-device edges (values equal to CPU-only runs,
 * sequential and parallel, with planned memory), fetched values in host
 * memory, step stats per device, the session's device list, and plans of
 * CPU-only placements left as they are without devices.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "devtest.h"
#include "proto/config.pb-c.h"
#include "session/exec.h"
#include "session/plan_place.h"
#include "tfs_config.h"
#include "tfsess/callable.h"
#ifdef TFS_TEST_C_API
#include "tensorflow/c/c_api.h"
#endif

/* ---- sessions and captured output ------------------------------------- */

enum { CPU_ONLY = 1, NO_OPTIMIZER = 2, ANY_GPU = 4 };

/* ConfigProto bytes: soft placement and the placement log as given;
 * device_count {GPU: 0}, so that sessions place over the CPU and FAKE
 * also on machines with a GPU (which the placer would prefer to both),
 * unless ANY_GPU; CPU_ONLY: device_count {FAKE: 0} too; NO_OPTIMIZER: the
 * graph runs as built (rewrite_options.disable_meta_optimizer). */
static tfs_session_options *options(int soft, int log, int flags) {
  Tensorflow__ConfigProto cp = TENSORFLOW__CONFIG_PROTO__INIT;
  Tensorflow__ConfigProto__DeviceCountEntry fake =
      TENSORFLOW__CONFIG_PROTO__DEVICE_COUNT_ENTRY__INIT;
  Tensorflow__ConfigProto__DeviceCountEntry gpu =
      TENSORFLOW__CONFIG_PROTO__DEVICE_COUNT_ENTRY__INIT;
  Tensorflow__ConfigProto__DeviceCountEntry *dc[2] = {NULL, NULL};
  Tensorflow__GraphOptions go = TENSORFLOW__GRAPH_OPTIONS__INIT;
  Tensorflow__RewriterConfig rw = TENSORFLOW__REWRITER_CONFIG__INIT;
  cp.allow_soft_placement = soft;
  cp.log_device_placement = log;
  fake.key = "FAKE";
  gpu.key = "GPU";
  if (!(flags & ANY_GPU)) dc[cp.n_device_count++] = &gpu;
  if (flags & CPU_ONLY) dc[cp.n_device_count++] = &fake;
  if (cp.n_device_count) cp.device_count = dc;
  if (flags & NO_OPTIMIZER) {
    rw.disable_meta_optimizer = 1;
    go.rewrite_options = &rw;
    cp.graph_options = &go;
  }
  size_t len = tensorflow__config_proto__get_packed_size(&cp);
  uint8_t *buf = malloc(len + 1);
  tensorflow__config_proto__pack(&cp, buf);
  tfs_status *st = tfs_status_new();
  tfs_session_options *o = tfs_session_options_new();
  tfs_session_options_set_config(o, buf, len, st);
  TFS_ASSERT_OK(st);
  tfs_status_free(st);
  free(buf);
  return o;
}

static tfs_session *new_session(tfs_graph *g, int soft, int log, int flags) {
  tfs_fake_device_register();
  tfs_status *st = tfs_status_new();
  tfs_session_options *o = options(soft, log, flags);
  tfs_session *s = tfs_session_new(g, o, st);
  TFS_ASSERT_OK(st);
  tfs_session_options_free(o);
  tfs_status_free(st);
  return s;
}

/* What a call wrote to stdout and stderr. */
typedef struct capture {
  char out[8192], err[8192];
  int fd_out, fd_err, saved_out, saved_err;
  char path_out[64], path_err[64];
} capture;

static void capture_begin(capture *c) {
  snprintf(c->path_out, sizeof c->path_out, "/tmp/tfs_place_outXXXXXX");
  snprintf(c->path_err, sizeof c->path_err, "/tmp/tfs_place_errXXXXXX");
  c->fd_out = mkstemp(c->path_out);
  c->fd_err = mkstemp(c->path_err);
  CU_ASSERT_FATAL(c->fd_out >= 0 && c->fd_err >= 0);
  fflush(stdout);
  fflush(stderr);
  c->saved_out = dup(STDOUT_FILENO);
  c->saved_err = dup(STDERR_FILENO);
  dup2(c->fd_out, STDOUT_FILENO);
  dup2(c->fd_err, STDERR_FILENO);
}

static void read_back(int fd, const char *path, char *buf, size_t cap) {
  lseek(fd, 0, SEEK_SET);
  ssize_t n = read(fd, buf, cap - 1);
  buf[n > 0 ? n : 0] = 0;
  close(fd);
  unlink(path);
}

static void capture_end(capture *c) {
  fflush(stdout);
  fflush(stderr);
  dup2(c->saved_out, STDOUT_FILENO);
  dup2(c->saved_err, STDERR_FILENO);
  close(c->saved_out);
  close(c->saved_err);
  read_back(c->fd_out, c->path_out, c->out, sizeof c->out);
  read_back(c->fd_err, c->path_err, c->err, sizeof c->err);
}

/* A session whose "Device mapping" lines (log on) are not looked at. */
static tfs_session *quiet_session(tfs_graph *g, int soft, int log,
                                  int flags) {
  capture c;
  capture_begin(&c);
  tfs_session *s = new_session(g, soft, log, flags);
  capture_end(&c);
  return s;
}

/* The device of node `name` in a placement log ("name: (Op): DEVICE"
 * lines), or "" when no line names it. */
static const char *logged_device(const char *log, const char *name) {
  static char dev[TFS_DEVICE_NAME_MAX];
  size_t len = strlen(name);
  for (const char *l = log; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1
                                                         : NULL) {
    if (strncmp(l, name, len) != 0 || strncmp(l + len, ": (", 3) != 0)
      continue;
    const char *d = strstr(l, "): ");
    const char *e = strchr(l, '\n');
    if (!d || (e && d > e)) continue;
    d += 3;
    size_t n = e ? (size_t)(e - d) : strlen(d);
    snprintf(dev, sizeof dev, "%.*s", (int)n, d);
    return dev;
  }
  return "";
}

/* Runs one fetch; returns the code and keeps the message in msg. */
static tfs_code run1(tfs_session *s, const tfs_output *feeds,
                     tfs_tensor *const *values, int nfeeds, tfs_output fetch,
                     tfs_tensor **out, char *msg, size_t cap) {
  tfs_status *st = tfs_status_new();
  *out = NULL;
  tfs_session_run(s, feeds, values, nfeeds, &fetch, out, 1, NULL, 0, st);
  tfs_code c = tfs_status_code(st);
  if (msg) snprintf(msg, cap, "%s", tfs_status_message(st));
  tfs_status_free(st);
  return c;
}

static int starts_with(const char *s, const char *prefix) {
  return strncmp(s, prefix, strlen(prefix)) == 0;
}

static int ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), k = strlen(suffix);
  return n >= k && strcmp(s + n - k, suffix) == 0;
}

static int same_floats(const tfs_tensor *a, const tfs_tensor *b) {
  if (!a || !b || tfs_tensor_num_elements(a) != tfs_tensor_num_elements(b))
    return 0;
  return memcmp(tfs_tensor_data(a), tfs_tensor_data(b),
                sizeof(float) * (size_t)tfs_tensor_num_elements(a)) == 0;
}

/* x -> add = AddV2(x, x) -> relu = Relu(add) -> mm = MatMul(relu, relu) */
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

/* ---- the placement log ------------------------------------------------- */

static void test_log_mapping_and_values(void) {
  tfs_output x, y;
  tfs_graph *g = small_graph(&x, &y, NULL);
  capture c;
  capture_begin(&c);
  tfs_session *s = new_session(g, 0, 1, NO_OPTIMIZER);
  capture_end(&c);
  /* DirectSession's device mapping: devices with a physical description */
  CU_ASSERT_PTR_NOT_NULL(strstr(c.err, "Device mapping:\n" DT_FAKE0
                                       " -> device: 0, name: fake test "
                                       "device\n"));
  int64_t d[2] = {2, 2};
  static const float v[4] = {1, -2, 3, 4};
  tfs_tensor *xt = tu_floats(d, 2, v), *out = NULL;
  int64_t dev0, host0, dev1, host1;
  tfs_device__copy_counts(&dev0, &host0);
  capture_begin(&c);
  tfs_code code = run1(s, &x, &xt, 1, y, &out, NULL, 0);
  capture_end(&c);
  CU_ASSERT_EQUAL_FATAL(code, TFS_OK);
  /* TensorFlow's lines, printed (stdout) and logged (stderr), in the
   * placer's order */
  static const char kLog[] = "add: (AddV2): " DT_FAKE0 "\n"
                             "relu: (Relu): " DT_FAKE0 "\n"
                             "mm: (MatMul): " DT_CPU "\n";
  CU_ASSERT_STRING_EQUAL(c.out, kLog);
  CU_ASSERT_STRING_EQUAL(c.err, kLog);
  tfs_device__copy_counts(&dev1, &host1);
  /* the fed x went to FAKE (FAKE's kernels move their own outputs there
   * too); relu's value came back once for the MatMul */
  CU_ASSERT(dev1 - dev0 >= 1);
  CU_ASSERT_EQUAL(host1 - host0, 1);
  CU_ASSERT_PTR_NULL(tfs_device__tensor_device(out));
  /* relu(2x) = [[2,0],[6,8]], squared as a matrix */
  const float *o = tfs_tensor_data(out);
  CU_ASSERT_EQUAL(o[0], 4.0f);
  CU_ASSERT_EQUAL(o[1], 0.0f);
  CU_ASSERT_EQUAL(o[2], 60.0f);
  CU_ASSERT_EQUAL(o[3], 64.0f);
  tfs_tensor_free(out);
  /* the plan is cached: placement and its log happen once */
  capture_begin(&c);
  code = run1(s, &x, &xt, 1, y, &out, NULL, 0);
  capture_end(&c);
  CU_ASSERT_EQUAL(code, TFS_OK);
  CU_ASSERT_STRING_EQUAL(c.out, "");
  CU_ASSERT_STRING_EQUAL(c.err, "");
  CU_ASSERT_EQUAL(tfs_session_num_plans(s), 1);
  tfs_tensor_free(out);
  tfs_session_free(s);
  /* without a device that has a description: TensorFlow's line */
  capture_begin(&c);
  s = new_session(g, 0, 1, CPU_ONLY);
  capture_end(&c);
  CU_ASSERT_STRING_EQUAL(c.err, "Device mapping: no known devices.\n");
  tfs_session_free(s);
  tfs_tensor_free(xt);
  tfs_graph_free(g);
}

/* As TensorFlow: the signature's nodes are placed before the optimizer
 * runs, so the log shows the graph as the user built it, once, and the
 * optimizer sees assigned devices: with the optimizer on, the same lines
 * as without, and the same values. */
static void test_log_before_optimizer(void) {
  tfs_output x, y;
  tfs_graph *g = small_graph(&x, &y, NULL);
  tfs_session *s = new_session(g, 0, 1, 0);
  int64_t d[2] = {2, 2};
  static const float v[4] = {1, -2, 3, 4};
  tfs_tensor *xt = tu_floats(d, 2, v), *out = NULL;
  capture c;
  capture_begin(&c);
  tfs_code code = run1(s, &x, &xt, 1, y, &out, NULL, 0);
  capture_end(&c);
  CU_ASSERT_EQUAL_FATAL(code, TFS_OK);
  static const char kLog[] = "add: (AddV2): " DT_FAKE0 "\n"
                             "relu: (Relu): " DT_FAKE0 "\n"
                             "mm: (MatMul): " DT_CPU "\n";
  CU_ASSERT_STRING_EQUAL(c.out, kLog);
  const float *o = tfs_tensor_data(out);
  CU_ASSERT_EQUAL(o[0], 4.0f);
  CU_ASSERT_EQUAL(o[2], 60.0f);
  CU_ASSERT_EQUAL(o[3], 64.0f);
  tfs_tensor_free(out);
  /* the plan: every node that kept its op kept the device it was given */
  tfs_status *st = tfs_status_new();
  tfs_callable *cl =
      tfs_session_make_callable(s, &x, 1, &y, 1, NULL, 0, NULL, st);
  TFS_ASSERT_OK(st);
  const tfs_plan *p = tfs_callable__plan(cl);
  int seen = 0;
  for (int i = 0; i < p->nnodes; i++) {
    const tfs_plan_node *pn = &p->nodes[i];
    const char *name = tfs_operation_name(pn->op);
    const char *type = tfs_operation_op_type(pn->op);
    if (strcmp(name, "relu") == 0 && strcmp(type, "Relu") == 0) {
      CU_ASSERT_PTR_NOT_NULL_FATAL(pn->device);
      CU_ASSERT_STRING_EQUAL(pn->device->name, DT_FAKE0);
      seen++;
    }
    if (strcmp(name, "mm") == 0) {
      CU_ASSERT_PTR_NOT_NULL_FATAL(pn->device);
      CU_ASSERT_STRING_EQUAL(pn->device->name, DT_CPU);
      seen++;
    }
  }
  CU_ASSERT_EQUAL(seen, 2);
  tfs_callable_free(cl);
  tfs_status_free(st);
  tfs_session_free(s);
  tfs_tensor_free(xt);
  tfs_graph_free(g);
}

/* A rewrite into an op the assigned device has no kernel for (AddV2(x,
 * x) on FAKE, which has no Mul) does not fail the plan, soft placement
 * off: the rewritten node settles where its kernel is. */
static void test_rewrite_settles_off_device(void) {
  tfs_status *st = tfs_status_new();
  tfs_graph *g = tfs_graph_new();
  int64_t xd[2] = {2, 2};
  tfs_output x = tfs_op_placeholder(g, "x", TFS_FLOAT, xd, 2, st);
  tfs_output a = tfs_op_add(g, "a", x, x, st);
  tfs_output r = tfs_op_unary(g, "Relu", "r", a, st);
  TFS_ASSERT_OK(st);
  static const float v[4] = {1, -2, 3, 4};
  tfs_tensor *xt = tu_floats(xd, 2, v), *want = NULL, *got = NULL;
  tfs_session *cpu = new_session(g, 0, 0, CPU_ONLY);
  tfs_session *mixed = new_session(g, 0, 0, 0);
  CU_ASSERT_EQUAL_FATAL(run1(cpu, &x, &xt, 1, r, &want, NULL, 0), TFS_OK);
  char msg[512];
  CU_ASSERT_EQUAL(run1(mixed, &x, &xt, 1, r, &got, msg, sizeof msg), TFS_OK);
  if (got) CU_ASSERT_TRUE(same_floats(want, got));
  tfs_tensor_free(want);
  tfs_tensor_free(got);
  tfs_session_free(cpu);
  tfs_session_free(mixed);
  tfs_tensor_free(xt);
  tfs_graph_free(g);
  tfs_status_free(st);
}

/* ---- requested devices and soft placement ----------------------------- */

static void test_soft_placement(void) {
  tfs_output x, y;
  tfs_graph *g = small_graph(&x, &y, "/device:FAKE:0");
  int64_t d[2] = {2, 2};
  static const float v[4] = {1, 1, 1, 1};
  tfs_tensor *xt = tu_floats(d, 2, v), *out = NULL;
  char msg[4096];
  tfs_session *s = new_session(g, 0, 0, NO_OPTIMIZER);
  CU_ASSERT_EQUAL(run1(s, &x, &xt, 1, y, &out, msg, sizeof msg),
                  TFS_INVALID_ARGUMENT);
  CU_ASSERT_PTR_NULL(out);
  CU_ASSERT(starts_with(msg,
      "Cannot assign a device for operation mm: Could not satisfy explicit "
      "device specification '/device:FAKE:0' because no supported kernel "
      "for FAKE devices is available.\nColocation Debug Info:\n"
      "Colocation group had the following types and supported devices: \n"
      "Root Member(assigned_device_name_index_=-1 requested_device_name_="
      "'/device:FAKE:0' assigned_device_name_='' resource_device_name_='' "
      "supported_device_types_=[CPU] possible_devices_=[]\n"
      "MatMul: CPU \n"));
  CU_ASSERT(ends_with(msg, "\n\t [[{{node mm}}]]"));
  CU_ASSERT_EQUAL(tfs_session_num_plans(s), 0);
  tfs_session_free(s);
  s = quiet_session(g, 1, 1, NO_OPTIMIZER);
  capture c;
  capture_begin(&c);
  tfs_code code = run1(s, &x, &xt, 1, y, &out, msg, sizeof msg);
  capture_end(&c);
  CU_ASSERT_EQUAL_FATAL(code, TFS_OK);
  CU_ASSERT_STRING_EQUAL(logged_device(c.out, "mm"), DT_CPU);
  CU_ASSERT_STRING_EQUAL(logged_device(c.out, "relu"), DT_FAKE0);
  CU_ASSERT_EQUAL(((const float *)tfs_tensor_data(out))[0], 8.0f);
  tfs_tensor_free(out);
  tfs_tensor_free(xt);
  tfs_session_free(s);
  tfs_graph_free(g);
}

/* The message of TensorFlow's placer for a GPU that is not there, and the
 * same graph under soft placement. */
static void test_missing_gpu(void) {
  tfs_graph *g = tfs_graph_new();
  tfs_output x = dt_placeholder(g, "x", TFS_FLOAT);
  tfs_output xx[2] = {x, x};
  tfs_output a = dt_node(g, "AddV2", "a", "/device:GPU:0", xx, 2, TFS_FLOAT,
                         NULL);
  tfs_tensor *xt = tfs_tensor_scalar_float(1), *out = NULL;
  char msg[4096];
  tfs_session *s = new_session(g, 0, 0, CPU_ONLY);
  CU_ASSERT_EQUAL(run1(s, &x, &xt, 1, a, &out, msg, sizeof msg),
                  TFS_INVALID_ARGUMENT);
  CU_ASSERT_STRING_EQUAL(msg,
      "Cannot assign a device for operation a: {{node a}} was explicitly "
      "assigned to /device:GPU:0 but available devices are [ "
      "/job:localhost/replica:0/task:0/device:CPU:0 ]. Make sure the "
      "device specification refers to a valid device."
#ifndef TFS_HAVE_CUDA
      " The requested device appears to be a GPU, but CUDA is not enabled."
#endif
      "\n\t [[{{node a}}]]");
  tfs_session_free(s);
  /* every device of the session is listed, sorted by name */
  tfs_graph *g2 = tfs_graph_new();
  tfs_output x2 = dt_placeholder(g2, "x", TFS_FLOAT);
  tfs_output xx2[2] = {x2, x2};
  tfs_output b = dt_node(g2, "AddV2", "b", "/gpu:99", xx2, 2, TFS_FLOAT,
                         NULL);
  s = new_session(g2, 0, 0, 0);
  CU_ASSERT_EQUAL(run1(s, &x2, &xt, 1, b, &out, msg, sizeof msg),
                  TFS_INVALID_ARGUMENT);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "{{node b}} was explicitly assigned to "
                                     "/gpu:99 but available devices are [ "
                                     DT_CPU ", " DT_FAKE0 " ]."));
  tfs_session_free(s);
  tfs_graph_free(g2);
  s = new_session(g, 1, 0, CPU_ONLY);
  CU_ASSERT_EQUAL_FATAL(run1(s, &x, &xt, 1, a, &out, msg, sizeof msg),
                        TFS_OK);
  CU_ASSERT_EQUAL(*(const float *)tfs_tensor_data(out), 2.0f);
  tfs_tensor_free(out);
  tfs_session_free(s);
  tfs_tensor_free(xt);
  tfs_graph_free(g);
}

static void test_explicit_requests(void) {
  tfs_graph *g = tfs_graph_new();
  tfs_output x = dt_placeholder(g, "x", TFS_FLOAT);
  tfs_output xx[2] = {x, x};
  /* FAKE is preferred; a CPU request keeps a node on the CPU, in any of
   * TensorFlow's spellings */
  tfs_output a = dt_node(g, "AddV2", "a", "/cpu:0", xx, 2, TFS_FLOAT, NULL);
  tfs_output aa[2] = {a, a};
  tfs_output b = dt_node(g, "AddV2", "b", NULL, aa, 2, TFS_FLOAT, NULL);
  tfs_output bb[2] = {b, b};
  tfs_output c = dt_node(g, "AddV2", "c", "/job:localhost/device:CPU:0", bb,
                         2, TFS_FLOAT, NULL);
  tfs_output cc[2] = {c, c};
  tfs_output e = dt_node(g, "AddV2", "e", "fake:0", cc, 2, TFS_FLOAT, NULL);
  tfs_output m = dt_node(g, "AddV2", "m", "/foo:bar", cc, 2, TFS_FLOAT,
                         NULL);
  tfs_tensor *xt = tfs_tensor_scalar_float(1), *out = NULL;
  tfs_session *s = quiet_session(g, 0, 1, NO_OPTIMIZER);
  capture cap;
  capture_begin(&cap);
  tfs_code code = run1(s, &x, &xt, 1, e, &out, NULL, 0);
  capture_end(&cap);
  CU_ASSERT_EQUAL_FATAL(code, TFS_OK);
  CU_ASSERT_STRING_EQUAL(logged_device(cap.out, "a"), DT_CPU);
  CU_ASSERT_STRING_EQUAL(logged_device(cap.out, "b"), DT_FAKE0);
  CU_ASSERT_STRING_EQUAL(logged_device(cap.out, "c"), DT_CPU);
  CU_ASSERT_STRING_EQUAL(logged_device(cap.out, "e"), DT_FAKE0);
  CU_ASSERT_EQUAL(*(const float *)tfs_tensor_data(out), 16.0f);
  tfs_tensor_free(out);
  char msg[4096];
  capture_begin(&cap);
  code = run1(s, &x, &xt, 1, m, &out, msg, sizeof msg);
  capture_end(&cap);
  CU_ASSERT_EQUAL(code, TFS_INVALID_ARGUMENT);
  CU_ASSERT(starts_with(msg, "Malformed device specification '/foo:bar' "
                             "in node: {name:'m' id:"));
  CU_ASSERT(ends_with(msg, "\n\t [[{{node m}}]]"));
  tfs_session_free(s);
  tfs_tensor_free(xt);
  tfs_graph_free(g);
}

/* ---- colocation ---------------------------------------------------------- */

/* A TF1 variable "v", float [2], and "assign" setting it to {1, 2} from
 * the Const "init"; *it: that value (caller frees). */
static tfs_output ref_var(tfs_graph *g, tfs_output *assign, tfs_tensor **it) {
  tfs_status *st = tfs_status_new();
  int64_t two = 2;
  static const float iv[2] = {1, 2};
  tfs_output v = tfs_op_variable(g, "v", TFS_FLOAT, &two, 1, st);
  *it = tu_floats(&two, 1, iv);
  tfs_output init = tfs_op_const(g, "init", *it, st);
  *assign = tfs_op_assign(g, "assign", v, init, st);
  TFS_ASSERT_OK(st);
  tfs_status_free(st);
  return v;
}

/* A TF1 variable: v (VariableV2, CPU only), its Assign and its read
 * (`_class` loc:@v) stay together even where FAKE is asked for; a reader
 * outside the group goes to FAKE through a copy of the variable's value. */
static void test_ref_variable_colocation(void) {
  tfs_status *st = tfs_status_new();
  tfs_graph *g = tfs_graph_new();
  tfs_tensor *it;
  tfs_output assign, v = ref_var(g, &assign, &it);
  tfs_output read = dt_node(g, "Identity", "read", "/device:FAKE:0", &v, 1,
                            0, "v");
  tfs_output read2 = dt_node(g, "Identity", "read2", NULL, &v, 1, 0, NULL);
  tfs_output rr[2] = {read2, read2};
  tfs_output twice = dt_node(g, "AddV2", "twice", NULL, rr, 2, TFS_FLOAT,
                             NULL);
  /* an explicit FAKE request inside the group fails without soft
   * placement: no FAKE kernel for VariableV2 */
  tfs_session *s = new_session(g, 0, 0, NO_OPTIMIZER);
  char msg[4096];
  tfs_tensor *out = NULL;
  CU_ASSERT_EQUAL(run1(s, NULL, NULL, 0, read, &out, msg, sizeof msg),
                  TFS_INVALID_ARGUMENT);
  CU_ASSERT(starts_with(msg, "Cannot assign a device for operation "));
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "Colocation Debug Info"));
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "\n  read (Identity) /device:FAKE:0"));
  tfs_session_free(s);

  s = quiet_session(g, 1, 1, NO_OPTIMIZER);
  /* a reader through a copy before the variable is set: TF's message */
  capture c;
  capture_begin(&c);
  tfs_code code = run1(s, NULL, NULL, 0, twice, &out, msg, sizeof msg);
  capture_end(&c);
  CU_ASSERT_EQUAL(code, TFS_FAILED_PRECONDITION);
  /* the node that reads, not the copy that carries the value */
  CU_ASSERT_STRING_EQUAL(msg, "Attempting to use uninitialized value v\n\t "
                              "[[{{node read2}}]]");
  capture_begin(&c);
  code = run1(s, NULL, NULL, 0, assign, &out, msg, sizeof msg);
  capture_end(&c);
  CU_ASSERT_EQUAL_FATAL(code, TFS_OK);
  tfs_tensor_free(out);
  CU_ASSERT_STRING_EQUAL(logged_device(c.out, "v"), DT_CPU);
  CU_ASSERT_STRING_EQUAL(logged_device(c.out, "assign"), DT_CPU);
  CU_ASSERT_STRING_EQUAL(logged_device(c.out, "init"), DT_CPU);
  tfs_output fetch[2] = {read, twice};
  tfs_tensor *outs[2] = {NULL, NULL};
  capture_begin(&c);
  tfs_session_run(s, NULL, NULL, 0, fetch, outs, 2, NULL, 0, st);
  capture_end(&c);
  TFS_ASSERT_OK(st);
  CU_ASSERT_STRING_EQUAL(logged_device(c.out, "v"), DT_CPU);
  CU_ASSERT_STRING_EQUAL(logged_device(c.out, "read"), DT_CPU);
  CU_ASSERT_STRING_EQUAL(logged_device(c.out, "read2"), DT_FAKE0);
  CU_ASSERT_STRING_EQUAL(logged_device(c.out, "twice"), DT_FAKE0);
  CU_ASSERT_PTR_NOT_NULL(strstr(c.out, "read: (Identity): " DT_CPU "\n"));
  CU_ASSERT_TRUE(same_floats(outs[0], it));
  const float *t = tfs_tensor_data(outs[1]);
  CU_ASSERT_EQUAL(t[0], 2.0f);
  CU_ASSERT_EQUAL(t[1], 4.0f);
  CU_ASSERT_PTR_NULL(tfs_device__tensor_device(outs[1]));
  tfs_tensor_free(outs[0]);
  tfs_tensor_free(outs[1]);
  tfs_session_free(s);
  tfs_tensor_free(it);
  tfs_graph_free(g);
  tfs_status_free(st);
}

/* A ref variable on the CPU updated in place (ApplyGradientDescent, no
 * FAKE kernel) and read on FAKE by a node with a control input on the
 * update: the copy to FAKE reads the variable after the update, as a read
 * on the CPU would (TensorFlow's value), run after run; before the
 * variable is set, the update (the first to read it) is the node named. */
static void test_ref_read_after_update(void) {
  tfs_status *st = tfs_status_new();
  tfs_graph *g = tfs_graph_new();
  int64_t two = 2;
  tfs_tensor *it;
  tfs_output assign, v = ref_var(g, &assign, &it);
  static const float ones[2] = {1, 1};
  tfs_tensor *dt = tu_floats(&two, 1, ones);
  tfs_output in[3] = {v, dt_const(g, "lr", "/device:CPU:0", 0.5f),
                      tfs_op_const(g, "delta", dt, st)};
  tfs_tensor_free(dt);
  tfs_output update = dt_node(g, "ApplyGradientDescent", "update", NULL, in,
                              3, TFS_FLOAT, NULL);
  tfs_op_desc *d = tfs_op_desc_new(g, "Identity", "after");
  tfs_op_desc_add_input(d, v);
  tfs_op_desc_add_control_input(d, update.oper);
  tfs_op_desc_set_device(d, "/device:FAKE:0");
  tfs_output after = {tfs_op_desc_finish(d, st), 0};
  TFS_ASSERT_OK(st);
  tfs_session *s = quiet_session(g, 1, 0, NO_OPTIMIZER);
  char msg[4096];
  tfs_tensor *out = NULL;
  CU_ASSERT_EQUAL(run1(s, NULL, NULL, 0, after, &out, msg, sizeof msg),
                  TFS_FAILED_PRECONDITION);
  CU_ASSERT_STRING_EQUAL(msg, "Attempting to use uninitialized value v\n\t "
                              "[[{{node update}}]]");
  CU_ASSERT_EQUAL_FATAL(run1(s, NULL, NULL, 0, assign, &out, msg, sizeof msg),
                        TFS_OK);
  tfs_tensor_free(out);
  for (int run = 1; run <= 3; run++) {
    out = NULL;
    CU_ASSERT_EQUAL_FATAL(run1(s, NULL, NULL, 0, after, &out, msg, sizeof msg),
                          TFS_OK);
    CU_ASSERT_STRING_EQUAL(tfs_device__tensor_device(out) ? "device" : "host",
                           "host");
    const float *t = tfs_tensor_data(out);
    CU_ASSERT_EQUAL(t[0], 1.0f - 0.5f * (float)run);
    CU_ASSERT_EQUAL(t[1], 2.0f - 0.5f * (float)run);
    tfs_tensor_free(out);
  }
  tfs_session_free(s);
  tfs_tensor_free(it);
  tfs_graph_free(g);
  tfs_status_free(st);
}

/* Resource variables: the handle, its writer and its reader are joined by
 * resource edges (TensorFlow colocates them); the value read goes to
 * FAKE for the AddV2. */
static void test_resource_variable_colocation(void) {
  tfs_status *st = tfs_status_new();
  tfs_graph *g = tfs_graph_new();
  int64_t two = 2;
  tfs_output h = tfs_op_var_handle(g, "h", TFS_FLOAT, &two, 1, st);
  static const float iv[2] = {3, 4};
  tfs_tensor *it = tu_floats(&two, 1, iv);
  tfs_output init = tfs_op_const(g, "init", it, st);
  tfs_operation *assign = tfs_op_assign_variable(g, "assign", h, init, st);
  tfs_output r = tfs_op_read_variable(g, "r", h, TFS_FLOAT, st);
  TFS_ASSERT_OK(st);
  tfs_output rr[2] = {r, r};
  tfs_output sum = dt_node(g, "AddV2", "sum", NULL, rr, 2, TFS_FLOAT, NULL);
  tfs_session *s = quiet_session(g, 0, 1, NO_OPTIMIZER);
  capture c;
  capture_begin(&c);
  tfs_session_run(s, NULL, NULL, 0, NULL, NULL, 0, &assign, 1, st);
  tfs_tensor *out = NULL;
  tfs_code code = run1(s, NULL, NULL, 0, sum, &out, NULL, 0);
  capture_end(&c);
  TFS_ASSERT_OK(st);
  CU_ASSERT_EQUAL_FATAL(code, TFS_OK);
  CU_ASSERT_STRING_EQUAL(logged_device(c.out, "h"), DT_CPU);
  CU_ASSERT_STRING_EQUAL(logged_device(c.out, "assign"), DT_CPU);
  CU_ASSERT_STRING_EQUAL(logged_device(c.out, "r"), DT_CPU);
  CU_ASSERT_STRING_EQUAL(logged_device(c.out, "sum"), DT_FAKE0);
  const float *t = tfs_tensor_data(out);
  CU_ASSERT_EQUAL(t[0], 6.0f);
  CU_ASSERT_EQUAL(t[1], 8.0f);
  tfs_tensor_free(out);
  tfs_session_free(s);
  tfs_tensor_free(it);
  tfs_graph_free(g);
  tfs_status_free(st);
}

/* ---- cross-device runs equal CPU-only runs ------------------------------- */

/* x [3,4] -> a = x + c (FAKE) -> r = Relu (FAKE) -> s = Shape(r) (FAKE,
 * host output) -> flat = Reshape(r, s) (CPU) -> mm = MatMul(flat, w) ->
 * i = Identity(mm) (FAKE) -> o = i + i (FAKE) */
static tfs_graph *mixed_graph(tfs_output *x, tfs_output *fetch) {
  tfs_status *st = tfs_status_new();
  tfs_graph *g = tfs_graph_new();
  int64_t xd[2] = {3, 4}, cd[1] = {4}, wd[2] = {4, 2};
  *x = tfs_op_placeholder(g, "x", TFS_FLOAT, xd, 2, st);
  static const float cv[4] = {0.5f, -1, 2, -3};
  static const float wv[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  tfs_tensor *ct = tu_floats(cd, 1, cv), *wt = tu_floats(wd, 2, wv);
  tfs_output c = tfs_op_const(g, "c", ct, st);
  tfs_output w = tfs_op_const(g, "w", wt, st);
  tfs_output a = tfs_op_add(g, "a", *x, c, st);
  tfs_output r = tfs_op_unary(g, "Relu", "r", a, st);
  tfs_output sh = tfs_op_shape(g, "s", r, st);
  tfs_output flat = tfs_op_reshape(g, "flat", r, sh, st);
  tfs_output mm = tfs_op_matmul(g, "mm", flat, w, 0, 0, st);
  tfs_output i = tfs_op_identity(g, "i", mm, st);
  tfs_output o = tfs_op_add(g, "o", i, i, st);
  TFS_ASSERT_OK(st);
  fetch[0] = o;
  fetch[1] = r;
  fetch[2] = sh;
  tfs_tensor_free(ct);
  tfs_tensor_free(wt);
  tfs_status_free(st);
  return g;
}

static void run3(tfs_session *s, tfs_output x, tfs_tensor *xt,
                 const tfs_output *fetch, tfs_tensor **out) {
  tfs_status *st = tfs_status_new();
  tfs_session_run(s, &x, &xt, 1, fetch, out, 3, NULL, 0, st);
  TFS_ASSERT_OK(st);
  tfs_status_free(st);
}

/* The memory plan state (TFS_MP_*) of s's plan for (x -> fetch[0..n))
 * after two runs of it as a callable; the first fetch must equal `want`. */
static int memplan_state(tfs_session *s, tfs_output x, tfs_tensor *xt,
                         const tfs_output *fetch, int n,
                         const tfs_tensor *want) {
  tfs_status *st = tfs_status_new();
  tfs_tensor *got[4];
  tfs_callable *c =
      tfs_session_make_callable(s, &x, 1, fetch, n, NULL, 0, NULL, st);
  TFS_ASSERT_OK(st);
  for (int round = 0; c && round < 2; round++) {
    tfs_callable_run(c, &xt, 1, got, n, st);
    TFS_ASSERT_OK(st);
    if (!tfs_status_ok(st)) break;
    CU_ASSERT_EQUAL(memcmp(tfs_tensor_data(got[0]), tfs_tensor_data(want),
                           tfs_tensor_byte_size(want)), 0);
    for (int k = 0; k < n; k++) tfs_tensor_free(got[k]);
  }
  size_t arena, peak;
  int nblocks,
      state = c ? tfs_mem__info(tfs_callable__plan(c), &xt, &arena, &peak,
                                &nblocks)
                : -1;
  tfs_callable_free(c);
  tfs_status_free(st);
  return state;
}

/* The graph above on FAKE and the CPU, as built and as the optimizer
 * rewrites it; with `as_built`, the copies to the host are counted. */
static void cross_device_case(int flags) {
  tfs_output x, fetch[3];
  tfs_graph *g = mixed_graph(&x, fetch);
  int64_t xd[2] = {3, 4};
  float xv[12];
  for (int k = 0; k < 12; k++) xv[k] = (float)(k % 5) - 1.5f * (float)(k % 3);
  tfs_tensor *xt = tu_floats(xd, 2, xv);
  int64_t fake_before = tfs_fake_device_bytes_in_use();
  tfs_session *cpu = new_session(g, 0, 0, CPU_ONLY | flags);
  tfs_session *mixed = new_session(g, 0, 0, flags);
  tfs_tensor *want[3], *got[3];
  run3(cpu, x, xt, fetch, want);
  int64_t d0, h0, d1, h1;
  tfs_device__copy_counts(&d0, &h0);
  /* the first run traces memory, later ones run planned */
  for (int round = 0; round < 4; round++) {
    run3(mixed, x, xt, fetch, got);
    for (int k = 0; k < 3; k++) {
      CU_ASSERT_PTR_NULL(tfs_device__tensor_device(got[k]));
      CU_ASSERT_EQUAL(tfs_tensor_dtype(got[k]), tfs_tensor_dtype(want[k]));
      CU_ASSERT_EQUAL_FATAL(tfs_tensor_byte_size(got[k]),
                            tfs_tensor_byte_size(want[k]));
      CU_ASSERT_EQUAL(memcmp(tfs_tensor_data(got[k]),
                             tfs_tensor_data(want[k]),
                             tfs_tensor_byte_size(want[k])), 0);
      tfs_tensor_free(got[k]);
    }
  }
  tfs_device__copy_counts(&d1, &h1);
  /* memory planning decides the same with and without devices */
  CU_ASSERT_EQUAL(memplan_state(mixed, x, xt, fetch, 3, want[0]),
                  memplan_state(cpu, x, xt, fetch, 3, want[0]));
  CU_ASSERT(d1 - d0 >= 4 * 2); /* x and mm, to FAKE */
  /* as built, per run: r (read by the Reshape and fetched) and o
   * (fetched) to the host; s is already there */
  if (flags & NO_OPTIMIZER) CU_ASSERT_EQUAL(h1 - h0, 4 * 2);
  for (int k = 0; k < 3; k++) tfs_tensor_free(want[k]);
  tfs_session_free(cpu);
  tfs_session_free(mixed);
  /* every FAKE buffer went back to its allocator */
  CU_ASSERT_EQUAL(tfs_fake_device_bytes_in_use(), fake_before);
  tfs_tensor_free(xt);
  tfs_graph_free(g);
}

static void test_cross_device_equals_cpu(void) {
  cross_device_case(NO_OPTIMIZER);
  cross_device_case(0);
}

/* Two expensive branches that can overlap run on the inter-op pool; the
 * copies are nodes like any other there. */
static void test_parallel_with_copies(void) {
  tfs_status *st = tfs_status_new();
  tfs_graph *g = tfs_graph_new();
  int64_t xd[2] = {16, 16};
  tfs_output x = tfs_op_placeholder(g, "x", TFS_FLOAT, xd, 2, st);
  tfs_output a = tfs_op_add(g, "a", x, x, st);
  tfs_output b = tfs_op_unary(g, "Relu", "b", a, st);
  tfs_output m1 = tfs_op_matmul(g, "m1", a, b, 0, 0, st);
  tfs_output m2 = tfs_op_matmul(g, "m2", b, a, 1, 0, st);
  tfs_output z = tfs_op_add(g, "z", m1, m2, st);
  TFS_ASSERT_OK(st);
  float xv[256];
  for (int k = 0; k < 256; k++) xv[k] = (float)((k * 7) % 11) - 5.0f;
  tfs_tensor *xt = tu_floats(xd, 2, xv), *want = NULL, *got = NULL;
  tfs_session *cpu = new_session(g, 0, 0, CPU_ONLY);
  tfs_session *mixed = new_session(g, 0, 0, 0);
  CU_ASSERT_EQUAL_FATAL(run1(cpu, &x, &xt, 1, z, &want, NULL, 0), TFS_OK);
  /* the plan's MatMuls can overlap: runs go through the inter-op pool */
  tfs_callable *c = tfs_session_make_callable(mixed, &x, 1, &z, 1, NULL, 0,
                                              NULL, st);
  TFS_ASSERT_OK(st);
  tfs_plan *p = tfs_callable__plan(c);
  CU_ASSERT_PTR_NOT_NULL(p->devices);
  CU_ASSERT_TRUE(p->exec->overlap);
  tfs_callable_free(c);
  for (int round = 0; round < 10; round++) {
    CU_ASSERT_EQUAL_FATAL(run1(mixed, &x, &xt, 1, z, &got, NULL, 0), TFS_OK);
    CU_ASSERT_TRUE(same_floats(got, want));
    tfs_tensor_free(got);
  }
  tfs_tensor_free(want);
  tfs_session_free(cpu);
  tfs_session_free(mixed);
  tfs_tensor_free(xt);
  tfs_graph_free(g);
  tfs_status_free(st);
}

/* ---- plans --------------------------------------------------------------- */

static tfs_plan *callable_plan(tfs_session *s, tfs_output x, tfs_output y,
                               tfs_callable **c) {
  tfs_status *st = tfs_status_new();
  *c = tfs_session_make_callable(s, &x, 1, &y, 1, NULL, 0, NULL, st);
  TFS_ASSERT_OK(st);
  tfs_status_free(st);
  return *c ? tfs_callable__plan(*c) : NULL;
}

static void test_plans(void) {
  tfs_output x, y;
  tfs_graph *g = small_graph(&x, &y, NULL);
  /* CPU only: the plan of a session without devices, node for node */
  tfs_session *s = new_session(g, 0, 0, CPU_ONLY | NO_OPTIMIZER);
  tfs_callable *c;
  tfs_plan *p = callable_plan(s, x, y, &c);
  CU_ASSERT_PTR_NOT_NULL_FATAL(p);
  CU_ASSERT_PTR_NULL(p->devices);
  CU_ASSERT_EQUAL(p->nnodes, 3); /* add, relu, mm */
  CU_ASSERT_EQUAL(p->nslots, 4); /* their outputs and the feed */
  for (int i = 0; i < p->nnodes; i++) {
    CU_ASSERT_PTR_NULL(p->nodes[i].device);
    CU_ASSERT_STRING_NOT_EQUAL(p->nodes[i].op->def->name, "_Copy");
  }
  tfs_callable_free(c);
  tfs_session_free(s);
  /* FAKE present but a graph it has no kernels for: the same */
  tfs_graph *g2 = tfs_graph_new();
  tfs_output x2 = dt_placeholder(g2, "x", TFS_FLOAT);
  tfs_output xx[2] = {x2, x2};
  tfs_output mm = dt_node(g2, "MatMul", "mm", NULL, xx, 2, TFS_FLOAT, NULL);
  s = new_session(g2, 0, 0, NO_OPTIMIZER);
  p = callable_plan(s, x2, mm, &c);
  CU_ASSERT_PTR_NOT_NULL_FATAL(p);
  CU_ASSERT_PTR_NULL(p->devices);
  CU_ASSERT_EQUAL(p->nnodes, 1);
  tfs_callable_free(c);
  tfs_session_free(s);
  tfs_graph_free(g2);
  /* with FAKE: a copy of the feed to FAKE first, one of relu back after
   * it; every node knows its device */
  s = new_session(g, 0, 0, NO_OPTIMIZER);
  p = callable_plan(s, x, y, &c);
  CU_ASSERT_PTR_NOT_NULL_FATAL(p);
  CU_ASSERT_PTR_NOT_NULL_FATAL(p->devices);
  CU_ASSERT_EQUAL_FATAL(p->nnodes, 5);
  static const char *const kOrder[5] = {"x/_copy_0_to_FAKE_0", "add", "relu",
                                        "relu/_copy_0_to_host", "mm"};
  static const char *const kDev[5] = {DT_FAKE0, DT_FAKE0, DT_FAKE0, DT_FAKE0,
                                      DT_CPU};
  for (int i = 0; i < 5; i++) {
    CU_ASSERT_STRING_EQUAL(p->nodes[i].op->name, kOrder[i]);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p->nodes[i].device);
    CU_ASSERT_STRING_EQUAL(p->nodes[i].device->name, kDev[i]);
  }
  CU_ASSERT_EQUAL(p->devices->ncopies, 2);
  CU_ASSERT_EQUAL(p->nodes[0].npending, 0); /* a root */
  CU_ASSERT_EQUAL(p->nodes[4].npending, 2); /* relu and its copy */
  /* mm reads the copy's slot twice; the copy reads relu's slot once */
  CU_ASSERT_EQUAL(p->nodes[4].in_slots[0], p->nodes[3].out_slot);
  CU_ASSERT_EQUAL(p->nodes[4].in_slots[1], p->nodes[3].out_slot);
  CU_ASSERT_EQUAL(p->slot_uses[p->nodes[3].out_slot], 2);
  CU_ASSERT_EQUAL(p->slot_uses[p->nodes[2].out_slot], 1);
  int64_t d[2] = {2, 2};
  static const float v[4] = {1, -2, 3, 4};
  tfs_tensor *xt = tu_floats(d, 2, v), *out = NULL;
  tfs_status *st = tfs_status_new();
  for (int round = 0; round < 2; round++) { /* traced, then planned */
    tfs_callable_run(c, &xt, 1, &out, 1, st);
    TFS_ASSERT_OK(st);
    CU_ASSERT_EQUAL(((const float *)tfs_tensor_data(out))[3], 64.0f);
    tfs_tensor_free(out);
  }
  size_t arena, peak;
  int nblocks;
  CU_ASSERT_EQUAL(tfs_mem__info(p, &xt, &arena, &peak, &nblocks),
                  TFS_MP_READY);
  CU_ASSERT(nblocks > 0);
  tfs_tensor_free(xt);
  tfs_status_free(st);
  tfs_callable_free(c);
  tfs_session_free(s);
  tfs_graph_free(g);
}

/* ---- step stats and device lists ----------------------------------------- */

static void test_step_stats_per_device(void) {
  tfs_output x, y;
  tfs_graph *g = small_graph(&x, &y, NULL);
  tfs_session *s = new_session(g, 0, 0, NO_OPTIMIZER);
  static const uint8_t kFullTrace[2] = {0x08, 0x03}; /* trace_level: 3 */
  tfs_buffer *ro = tfs_buffer_new_copy(kFullTrace, sizeof kFullTrace);
  tfs_buffer *md = tfs_buffer_new();
  int64_t d[2] = {2, 2};
  static const float v[4] = {1, -2, 3, 4};
  tfs_tensor *xt = tu_floats(d, 2, v), *out = NULL;
  tfs_status *st = tfs_status_new();
  tfs_session_run_ex(s, ro, &x, &xt, 1, &y, &out, 1, NULL, 0, md, st);
  TFS_ASSERT_OK(st);
  Tensorflow__RunMetadata *m =
      tensorflow__run_metadata__unpack(NULL, md->length, md->data);
  CU_ASSERT_PTR_NOT_NULL_FATAL(m);
  CU_ASSERT_PTR_NOT_NULL_FATAL(m->step_stats);
  CU_ASSERT_EQUAL_FATAL(m->step_stats->n_dev_stats, 2);
  const Tensorflow__DeviceStepStats *cpu = m->step_stats->dev_stats[0];
  const Tensorflow__DeviceStepStats *fake = m->step_stats->dev_stats[1];
  CU_ASSERT_STRING_EQUAL(cpu->device, DT_CPU);
  CU_ASSERT_STRING_EQUAL(fake->device, DT_FAKE0);
  /* CPU: mm; FAKE: x's copy, add, relu and relu's copy to the host */
  CU_ASSERT_EQUAL_FATAL(cpu->n_node_stats, 1);
  CU_ASSERT_STRING_EQUAL(cpu->node_stats[0]->node_name, "mm");
  CU_ASSERT_EQUAL_FATAL(fake->n_node_stats, 4);
  CU_ASSERT_STRING_EQUAL(fake->node_stats[1]->node_name, "add");
  CU_ASSERT_STRING_EQUAL(fake->node_stats[1]->timeline_label,
                         "add = AddV2(x, x)");
  CU_ASSERT_STRING_EQUAL(fake->node_stats[3]->timeline_label,
                         "relu/_copy_0_to_host = _Copy(relu)");
  const Tensorflow__NodeOutput *o = fake->node_stats[1]->output[0];
  CU_ASSERT_STRING_EQUAL(
      o->tensor_description->allocation_description->allocator_name,
      "FAKE_0_bfc");
  o = cpu->node_stats[0]->output[0];
  CU_ASSERT_STRING_EQUAL(
      o->tensor_description->allocation_description->allocator_name, "cpu");
  tensorflow__run_metadata__free_unpacked(m, NULL);
  tfs_tensor_free(out);
  tfs_tensor_free(xt);
  tfs_buffer_free(ro);
  tfs_buffer_free(md);
  tfs_status_free(st);
  tfs_session_free(s);
  tfs_graph_free(g);
}

static void test_device_lists(void) {
  tfs_graph *g = tfs_graph_new();
  /* every device of the process, as the C API's session with default
   * options below has them */
  tfs_session *s = new_session(g, 0, 0, ANY_GPU);
  tfs_status *st = tfs_status_new();
  tfs_device_list *l = tfs_session_list_devices(s, st);
  TFS_ASSERT_OK(st);
  int n = tfs_device_list_count(l), fake = -1;
  CU_ASSERT(n >= 2);
  CU_ASSERT_STRING_EQUAL(tfs_device_list_name(l, 0), DT_CPU);
  CU_ASSERT_STRING_EQUAL(tfs_device_list_type(l, 0), "CPU");
  for (int i = 0; i < n; i++)
    if (strcmp(tfs_device_list_type(l, i), "FAKE") == 0) fake = i;
  CU_ASSERT_FATAL(fake > 0);
  CU_ASSERT_STRING_EQUAL(tfs_device_list_name(l, fake), DT_FAKE0);
  CU_ASSERT_EQUAL(tfs_device_list_memory_bytes(l, fake), 64 << 20);
  tfs_device_list_free(l);
  CU_ASSERT_PTR_NULL(tfs_session_list_devices(NULL, st));
  CU_ASSERT_EQUAL(tfs_status_code(st), TFS_INVALID_ARGUMENT);
  tfs_session_free(s);
  s = new_session(g, 0, 0, CPU_ONLY);
  l = tfs_session_list_devices(s, st);
  CU_ASSERT_EQUAL(tfs_device_list_count(l), 1);
  tfs_device_list_free(l);
  tfs_session_free(s);
#ifdef TFS_TEST_C_API
  /* TF_SessionListDevices lists the same devices */
  TF_Status *ts = TF_NewStatus();
  TF_SessionOptions *so = TF_NewSessionOptions();
  TF_Graph *tg = TF_NewGraph();
  TF_Session *sess = TF_NewSession(tg, so, ts);
  CU_ASSERT_EQUAL_FATAL(TF_GetCode(ts), TF_OK);
  TF_DeviceList *dl = TF_SessionListDevices(sess, ts);
  CU_ASSERT_EQUAL(TF_GetCode(ts), TF_OK);
  CU_ASSERT_EQUAL(TF_DeviceListCount(dl), n);
  CU_ASSERT_STRING_EQUAL(TF_DeviceListName(dl, fake, ts), DT_FAKE0);
  CU_ASSERT_STRING_EQUAL(TF_DeviceListType(dl, fake, ts), "FAKE");
  CU_ASSERT_EQUAL(TF_DeviceListMemoryBytes(dl, fake, ts), 64 << 20);
  CU_ASSERT_EQUAL(TF_DeviceListMemoryBytes(dl, 0, ts), 268435456);
  TF_DeleteDeviceList(dl);
  TF_CloseSession(sess, ts);
  TF_DeleteSession(sess, ts);
  TF_DeleteGraph(tg);
  TF_DeleteSessionOptions(so);
  TF_DeleteStatus(ts);
#endif
  tfs_status_free(st);
  tfs_graph_free(g);
}

static const tfs_test_case kLog[] = {
    {"log_mapping_and_values", test_log_mapping_and_values},
    {"before_optimizer", test_log_before_optimizer},
    {"rewrite_settles_off_device", test_rewrite_settles_off_device},
    {NULL, NULL}};
static const tfs_test_case kRequests[] = {
    {"soft_placement", test_soft_placement},
    {"missing_gpu", test_missing_gpu},
    {"explicit_requests", test_explicit_requests},
    {NULL, NULL}};
static const tfs_test_case kColocation[] = {
    {"ref_variable", test_ref_variable_colocation},
    {"ref_read_after_update", test_ref_read_after_update},
    {"resource_variable", test_resource_variable_colocation},
    {NULL, NULL}};
static const tfs_test_case kCopies[] = {
    {"cross_device_equals_cpu", test_cross_device_equals_cpu},
    {"parallel_with_copies", test_parallel_with_copies},
    {"plans", test_plans},
    {NULL, NULL}};
static const tfs_test_case kStats[] = {
    {"step_stats_per_device", test_step_stats_per_device},
    {"device_lists", test_device_lists},
    {NULL, NULL}};

const tfs_test_suite tfs_test_suites[] = {{"log", kLog},
                                          {"requests", kRequests},
                                          {"colocation", kColocation},
                                          {"copies", kCopies},
                                          {"stats", kStats},
                                          {NULL, NULL}};
