/*
 * tests/device/test_placer.c - the placer over the CPU, with the FAKE
 * device as the second type (a machine's GPUs left out of the device
 * set): device preference, requested devices, soft placement, colocation
 * groups, resource and ref edges, TensorFlow's heuristics, the placement
 * log and every error message.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "devtest.h"
#include "tfs_config.h"

#define ASSERT_DEV(p, node, want) CU_ASSERT_STRING_EQUAL(dt_device(p, node), want)

static tfs_config *config_with(const char *type, int count) {
  static tfs_config c;
  static tfs_config_device_count dc;
  static char tname[16];
  tfs_config__init(&c);
  snprintf(tname, sizeof tname, "%s", type);
  dc.type = tname;
  dc.count = count;
  c.ndevice_count = 1;
  c.device_count = &dc;
  return &c;
}

/* The placement these suites check: over the CPU and FAKE, with `cfg`'s
 * counts (NULL: defaults) and without the GPUs a machine may have. */
static tfs_code place(tfs_graph *g, const tfs_config *cfg, int soft, int log,
                      dt_placement *p) {
  return dt_place(g, dt_no_gpu(cfg), soft, log, p);
}

/* ---- preference --------------------------------------------------------- */

static void test_prefers_higher_priority_type(void) {
  tfs_graph *g = tfs_graph_new();
  tfs_output x = dt_placeholder(g, "x", TFS_FLOAT);
  tfs_output xx[2] = {x, x};
  dt_node(g, "AddV2", "a", NULL, xx, 2, TFS_FLOAT, NULL);
  dt_node(g, "MatMul", "mm", NULL, xx, 2, TFS_FLOAT, NULL);
  dt_placement p;
  CU_ASSERT_EQUAL(place(g, NULL, 0, 1, &p), TFS_OK);
  ASSERT_DEV(&p, "a", DT_FAKE0); /* FAKE has AddV2: preferred */
  ASSERT_DEV(&p, "mm", DT_CPU);  /* FAKE has no MatMul */
  /* the generator's consumers disagree: the first candidate (CPU, the
   * only type with a Placeholder kernel) */
  ASSERT_DEV(&p, "x", DT_CPU);
  CU_ASSERT_STRING_EQUAL(p.log,
                         "a: (AddV2): " DT_FAKE0 "\n"
                         "mm: (MatMul): " DT_CPU "\n"
                         "x: (Placeholder): " DT_CPU "\n");
  dt_placement_clear(&p);
  tfs_graph_free(g);
}

static void test_kernel_dtype_decides(void) {
  tfs_graph *g = tfs_graph_new();
  tfs_output x = dt_placeholder(g, "x", TFS_INT32);
  tfs_output xx[2] = {x, x};
  dt_node(g, "AddV2", "a", NULL, xx, 2, TFS_INT32, NULL);
  dt_placement p;
  CU_ASSERT_EQUAL(place(g, NULL, 0, 0, &p), TFS_OK);
  ASSERT_DEV(&p, "a", DT_CPU); /* FAKE's AddV2 is float only */
  CU_ASSERT_STRING_EQUAL(p.log, "");
  dt_placement_clear(&p);
  tfs_graph_free(g);
}

static void test_log_goes_to_stdout(void) {
  tfs_fake_device_register();
  tfs_graph *g = tfs_graph_new();
  tfs_output x = dt_placeholder(g, "x", TFS_FLOAT);
  tfs_output xx[2] = {x, x};
  dt_node(g, "AddV2", "add", NULL, xx, 2, TFS_FLOAT, NULL);
  tfs_status *st = tfs_status_new();
  tfs_device_set *ds = tfs_device_set__new(dt_no_gpu(NULL), st);
  tfs_operation *nodes[2] = {x.oper, tfs_graph_operation_by_name(g, "add")};
  tfs_device *dev[2];
  char path[] = "/tmp/tfs_placer_logXXXXXX";
  int fd = mkstemp(path);
  CU_ASSERT_FATAL(fd >= 0);
  fflush(stdout);
  int saved = dup(STDOUT_FILENO);
  dup2(fd, STDOUT_FILENO);
  tfs_placer_options o = {0, 1, NULL, NULL};
  tfs_placer__place(nodes, 2, ds, &o, dev, st);
  fflush(stdout);
  dup2(saved, STDOUT_FILENO);
  close(saved);
  TFS_ASSERT_OK(st);
  char buf[512] = {0};
  lseek(fd, 0, SEEK_SET);
  CU_ASSERT(read(fd, buf, sizeof buf - 1) > 0);
  close(fd);
  unlink(path);
  CU_ASSERT_STRING_EQUAL(buf, "add: (AddV2): " DT_FAKE0 "\n"
                              "x: (Placeholder): " DT_CPU "\n");
  tfs_device_set__free(ds);
  tfs_status_free(st);
  tfs_graph_free(g);
}

/* ---- requested devices ---------------------------------------------------- */

static void test_requested_devices(void) {
  tfs_graph *g = tfs_graph_new();
  tfs_output x = dt_placeholder(g, "x", TFS_FLOAT);
  tfs_output xx[2] = {x, x};
  dt_node(g, "AddV2", "on_cpu", "/cpu:0", xx, 2, TFS_FLOAT, NULL);
  dt_node(g, "AddV2", "on_fake", "/device:FAKE:0", xx, 2, TFS_FLOAT, NULL);
  dt_node(g, "AddV2", "short", "CPU:0", xx, 2, TFS_FLOAT, NULL);
  dt_node(g, "AddV2", "partial", "/job:localhost/device:FAKE:*", xx, 2,
          TFS_FLOAT, NULL);
  dt_node(g, "AddV2", "full", DT_CPU, xx, 2, TFS_FLOAT, NULL);
  dt_node(g, "AddV2", "job_only", "/job:localhost/replica:0", xx, 2,
          TFS_FLOAT, NULL);
  dt_placement p;
  CU_ASSERT_EQUAL(place(g, NULL, 0, 0, &p), TFS_OK);
  ASSERT_DEV(&p, "on_cpu", DT_CPU);
  ASSERT_DEV(&p, "on_fake", DT_FAKE0);
  ASSERT_DEV(&p, "short", DT_CPU);
  ASSERT_DEV(&p, "partial", DT_FAKE0);
  ASSERT_DEV(&p, "full", DT_CPU);
  ASSERT_DEV(&p, "job_only", DT_FAKE0);
  dt_placement_clear(&p);
  tfs_graph_free(g);
}

static void test_device_ids(void) {
  tfs_graph *g = tfs_graph_new();
  tfs_output x = dt_placeholder(g, "x", TFS_FLOAT);
  tfs_output xx[2] = {x, x};
  dt_node(g, "AddV2", "one", "/device:FAKE:1", xx, 2, TFS_FLOAT, NULL);
  dt_node(g, "AddV2", "any", "/device:FAKE:*", xx, 2, TFS_FLOAT, NULL);
  dt_node(g, "AddV2", "with_one", NULL, xx, 2, TFS_FLOAT, "one");
  dt_placement p;
  CU_ASSERT_EQUAL(place(g, config_with("FAKE", 2), 0, 0, &p), TFS_OK);
  ASSERT_DEV(&p, "one", DT_FAKE1);
  ASSERT_DEV(&p, "any", DT_FAKE0);
  ASSERT_DEV(&p, "with_one", DT_FAKE1);
  dt_placement_clear(&p);
  /* device_count {"FAKE": 0}: no FAKE device, everything on the CPU */
  tfs_graph *g2 = tfs_graph_new();
  x = dt_placeholder(g2, "x", TFS_FLOAT);
  tfs_output yy[2] = {x, x};
  dt_node(g2, "AddV2", "a", NULL, yy, 2, TFS_FLOAT, NULL);
  CU_ASSERT_EQUAL(place(g2, config_with("FAKE", 0), 0, 0, &p), TFS_OK);
  ASSERT_DEV(&p, "a", DT_CPU);
  dt_placement_clear(&p);
  tfs_graph_free(g);
  tfs_graph_free(g2);
}

static void test_no_kernel_on_requested_type(void) {
  tfs_graph *g = tfs_graph_new();
  tfs_output x = dt_placeholder(g, "x", TFS_FLOAT);
  tfs_output xx[2] = {x, x};
  dt_node(g, "MatMul", "mm", "/device:FAKE:0", xx, 2, TFS_FLOAT, NULL);
  dt_placement p;
  CU_ASSERT_EQUAL(place(g, NULL, 0, 0, &p), TFS_INVALID_ARGUMENT);
  const char *m = tfs_status_message(p.st);
  CU_ASSERT_PTR_NOT_NULL(strstr(m,
      "Cannot assign a device for operation mm: Could not satisfy explicit "
      "device specification '/device:FAKE:0' because no supported kernel "
      "for FAKE devices is available.\n"
      "Colocation Debug Info:\n"
      "Colocation group had the following types and supported devices: \n"
      "Root Member(assigned_device_name_index_=-1 requested_device_name_='"
      "/device:FAKE:0' assigned_device_name_='' resource_device_name_='' "
      "supported_device_types_=[CPU] possible_devices_=[]\n"
      "MatMul: CPU \n\n"
      "Colocation members, user-requested devices, and framework assigned "
      "devices, if any:\n"
      "  mm (MatMul) /device:FAKE:0\n\n"
      "Op: MatMul\nNode attrs: T=DT_FLOAT, grad_a=false, grad_b=false, "
      "transpose_a=false, transpose_b=false\nRegistered kernels:\n"
      "  device='CPU'; T in [DT_FLOAT, "));
  size_t len = strlen(m);
  CU_ASSERT(len > 20 && strcmp(m + len - 18, "\n\t [[{{node mm}}]]") == 0);
  dt_placement_clear(&p);
  /* soft placement: the CPU */
  CU_ASSERT_EQUAL(place(g, NULL, 1, 0, &p), TFS_OK);
  ASSERT_DEV(&p, "mm", DT_CPU);
  dt_placement_clear(&p);
  tfs_graph_free(g);
}

static void test_missing_device(void) {
  tfs_graph *g = tfs_graph_new();
  tfs_output x = dt_placeholder(g, "x", TFS_FLOAT);
  tfs_output xx[2] = {x, x};
  dt_node(g, "AddV2", "a", "/device:GPU:99", xx, 2, TFS_FLOAT, NULL);
  dt_placement p;
  CU_ASSERT_EQUAL(place(g, config_with("CPU", 1), 0, 0, &p),
                  TFS_INVALID_ARGUMENT);
  const char *want_head =
      "Cannot assign a device for operation a: {{node a}} was explicitly "
      "assigned to /device:GPU:99 but available devices are [ " DT_CPU
      ", " DT_FAKE0 " ]. Make sure the device specification refers to a "
      "valid device.";
#ifndef TFS_HAVE_CUDA
  char want[1024];
  snprintf(want, sizeof want, "%s The requested device appears to be a GPU, "
           "but CUDA is not enabled.\n\t [[{{node a}}]]", want_head);
  TFS_ASSERT_MESSAGE(p.st, want);
#else
  CU_ASSERT_EQUAL(strncmp(tfs_status_message(p.st), want_head,
                          strlen(want_head)), 0);
#endif
  dt_placement_clear(&p);
  /* soft placement: the best device that has the kernel */
  CU_ASSERT_EQUAL(place(g, NULL, 1, 0, &p), TFS_OK);
  ASSERT_DEV(&p, "a", DT_FAKE0);
  dt_placement_clear(&p);
  tfs_graph_free(g);
}

static void test_malformed_and_no_devices(void) {
  tfs_graph *g = tfs_graph_new();
  tfs_output x = dt_placeholder(g, "x", TFS_FLOAT);
  tfs_output xx[2] = {x, x};
  dt_node(g, "AddV2", "a", "bogus spec", xx, 2, TFS_FLOAT, NULL);
  dt_placement p;
  CU_ASSERT_EQUAL(place(g, NULL, 1, 0, &p), TFS_INVALID_ARGUMENT);
  TFS_ASSERT_ERROR(p.st, TFS_INVALID_ARGUMENT,
                   "Malformed device specification 'bogus spec' in node: "
                   "{name:'a' id:1 op device:{requested: 'bogus spec', "
                   "assigned: ''} def:{{{node a}} = AddV2[");
  dt_placement_clear(&p);
  tfs_device_set empty = {0, NULL};
  CU_ASSERT_EQUAL(dt_place_on(g, &empty, 0, 0, &p), TFS_FAILED_PRECONDITION);
  TFS_ASSERT_MESSAGE(p.st, "No devices are registered");
  dt_placement_clear(&p);
  tfs_graph_free(g);
}

static void test_no_kernel_anywhere(void) {
  tfs_graph *g = tfs_graph_new();
  tfs_output x = dt_placeholder(g, "x", TFS_FLOAT);
  tfs_output xx[2] = {x, x};
  dt_node(g, "MatMul", "mm", NULL, xx, 2, TFS_FLOAT, NULL);
  tfs_device *fake = tfs_fake_device(0);
  tfs_device_set only_fake = {1, &fake};
  dt_placement p;
  CU_ASSERT_EQUAL(dt_place_on(g, &only_fake, 1, 0, &p),
                  TFS_INVALID_ARGUMENT);
  const char *m = tfs_status_message(p.st);
  /* x (Placeholder) comes first: nothing on FAKE runs it either */
  CU_ASSERT_PTR_NOT_NULL(strstr(m,
      "No OpKernel was registered to support Op 'Placeholder' used by "
      "{{node x}} with these attrs: [dtype=DT_FLOAT, shape=<unknown>]\n"
      "Registered devices: [FAKE]\nRegistered kernels:\n  device='CPU'"));
  CU_ASSERT_PTR_NOT_NULL(strstr(m, "\n\n\t [[{{node x}}]]"));
  dt_placement_clear(&p);
  tfs_graph_free(g);
}

/* ---- colocation ------------------------------------------------------------ */

static void test_colocation_intersects_types(void) {
  tfs_graph *g = tfs_graph_new();
  tfs_output x = dt_placeholder(g, "x", TFS_FLOAT);
  tfs_output xx[2] = {x, x};
  dt_node(g, "AddV2", "a", NULL, xx, 2, TFS_FLOAT, NULL);
  dt_node(g, "MatMul", "mm", NULL, xx, 2, TFS_FLOAT, "a");
  /* two nodes naming a group no node of the array is called */
  dt_node(g, "AddV2", "g1", NULL, xx, 2, TFS_FLOAT, "ghost");
  dt_node(g, "MatMul", "g2", NULL, xx, 2, TFS_FLOAT, "ghost");
  dt_node(g, "AddV2", "free", NULL, xx, 2, TFS_FLOAT, NULL);
  dt_placement p;
  CU_ASSERT_EQUAL(place(g, NULL, 0, 0, &p), TFS_OK);
  ASSERT_DEV(&p, "a", DT_CPU);
  ASSERT_DEV(&p, "mm", DT_CPU);
  ASSERT_DEV(&p, "g1", DT_CPU);
  ASSERT_DEV(&p, "g2", DT_CPU);
  ASSERT_DEV(&p, "free", DT_FAKE0);
  dt_placement_clear(&p);
  tfs_graph_free(g);
}

static void test_colocation_conflict(void) {
  tfs_graph *g = tfs_graph_new();
  tfs_output x = dt_placeholder(g, "x", TFS_FLOAT);
  tfs_output xx[2] = {x, x};
  dt_node(g, "AddV2", "a", "/cpu:0", xx, 2, TFS_FLOAT, NULL);
  dt_node(g, "AddV2", "b", "/device:FAKE:0", xx, 2, TFS_FLOAT, "a");
  dt_placement p;
  CU_ASSERT_EQUAL(place(g, NULL, 0, 0, &p), TFS_INVALID_ARGUMENT);
  TFS_ASSERT_MESSAGE(p.st,
                     "Cannot colocate nodes {{colocation_node b}} and "
                     "{{colocation_node a}}: Cannot merge devices with "
                     "incompatible types: '/device:FAKE:0' and "
                     "'/device:CPU:0'\n\t [[{{node b}}]]");
  dt_placement_clear(&p);
  /* soft placement: the conflicting type is dropped, the group stays */
  CU_ASSERT_EQUAL(place(g, NULL, 1, 0, &p), TFS_OK);
  ASSERT_DEV(&p, "a", DT_FAKE0);
  ASSERT_DEV(&p, "b", DT_FAKE0);
  dt_placement_clear(&p);
  tfs_graph_free(g);
}

static void test_colocation_without_common_type(void) {
  {
    /* the premise: no CPU kernel for the op on half */
    tfs_attrs a;
    tfs_attrs_init(&a);
    tfs_attr_value v;
    tfs_attr_type_val(&v, TFS_HALF);
    tfs_attrs_set(&a, "T", &v);
    tfs_status *st = tfs_status_new();
    const tfs_kernel_def *k =
        tfs_kernel_find(tfs_op_lookup(tfs_fake_only_op), "CPU", &a, "", st);
    tfs_status_free(st);
    tfs_attrs_clear(&a);
    if (k) return;
  }
  tfs_graph *g = tfs_graph_new();
  tfs_output h = dt_placeholder(g, "h", TFS_HALF);
  tfs_output x = dt_placeholder(g, "x", TFS_FLOAT);
  tfs_output xx[2] = {x, x};
  dt_node(g, tfs_fake_only_op, "r", NULL, &h, 1, TFS_HALF, NULL);
  dt_node(g, "MatMul", "m", NULL, xx, 2, TFS_FLOAT, "r");
  dt_placement p;
  CU_ASSERT_EQUAL(place(g, NULL, 0, 0, &p), TFS_INVALID_ARGUMENT);
  const char *m = tfs_status_message(p.st);
  CU_ASSERT_PTR_NOT_NULL(strstr(m,
      "Cannot colocate nodes {{colocation_node m}} and {{colocation_node r}} "
      "because no device type supports both of those nodes and the other "
      "nodes colocated with them.\nColocation Debug Info:\n"));
  CU_ASSERT_PTR_NOT_NULL(strstr(m, "\nRint: FAKE \n"));
  CU_ASSERT_PTR_NOT_NULL(strstr(m, "\nMatMul: CPU \n"));
  dt_placement_clear(&p);
  CU_ASSERT_EQUAL(place(g, NULL, 1, 0, &p), TFS_OK);
  ASSERT_DEV(&p, "r", DT_FAKE0);
  ASSERT_DEV(&p, "m", DT_CPU);
  dt_placement_clear(&p);
  tfs_graph_free(g);
}

static void test_colocated_with_incompatible_group(void) {
  tfs_graph *g = tfs_graph_new();
  tfs_output x = dt_placeholder(g, "x", TFS_FLOAT);
  tfs_output xx[2] = {x, x};
  dt_node(g, "AddV2", "a", "/device:FAKE:0", xx, 2, TFS_FLOAT, NULL);
  dt_node(g, "MatMul", "b", "/job:localhost", xx, 2, TFS_FLOAT, "a");
  dt_placement p;
  CU_ASSERT_EQUAL(place(g, NULL, 0, 0, &p), TFS_INVALID_ARGUMENT);
  TFS_ASSERT_ERROR(p.st, TFS_INVALID_ARGUMENT,
                   "Cannot assign a device for operation a: Could not "
                   "satisfy explicit device specification '/device:FAKE:0' "
                   "because the node {{colocation_node a}} was colocated "
                   "with a group of nodes that required incompatible device "
                   "'/job:localhost/device:FAKE:0'. All available devices "
                   "[" DT_CPU ", " DT_FAKE0 "]. \nColocation Debug Info:");
  dt_placement_clear(&p);
  tfs_graph_free(g);
}

/* ---- resources and refs ---------------------------------------------------- */

static tfs_output var_handle(tfs_graph *g, const char *name) {
  tfs_status *st = tfs_status_new();
  tfs_op_desc *d = tfs_op_desc_new(g, "VarHandleOp", name);
  tfs_op_desc_set_attr_type(d, "dtype", TFS_FLOAT);
  tfs_op_desc_set_attr_shape(d, "shape", NULL, 0);
  tfs_op_desc_set_attr_string(d, "shared_name", name, strlen(name));
  tfs_operation *o = tfs_op_desc_finish(d, st);
  TFS_ASSERT_OK(st);
  tfs_status_free(st);
  return (tfs_output){o, 0};
}

static tfs_operation *with_dtype(tfs_graph *g, const char *op,
                                 const char *name, const char *device,
                                 const tfs_output *in, int nin) {
  tfs_status *st = tfs_status_new();
  tfs_op_desc *d = tfs_op_desc_new(g, op, name);
  for (int i = 0; i < nin; i++) tfs_op_desc_add_input(d, in[i]);
  tfs_op_desc_set_attr_type(d, "dtype", TFS_FLOAT);
  if (device) tfs_op_desc_set_device(d, device);
  tfs_operation *o = tfs_op_desc_finish(d, st);
  TFS_ASSERT_OK(st);
  tfs_status_free(st);
  return o;
}

static void test_resource_variables_stay_together(void) {
  tfs_graph *g = tfs_graph_new();
  tfs_output v = var_handle(g, "v");
  tfs_output c = dt_const(g, "c", NULL, 1.0f);
  tfs_output vc[2] = {v, c};
  with_dtype(g, "AssignVariableOp", "assign", NULL, vc, 2);
  with_dtype(g, "ReadVariableOp", "read", "/device:FAKE:0", &v, 1);
  dt_placement p;
  /* the reader's request cannot be met: FAKE has no ReadVariableOp; the
   * first member placed (the assign, in node order) reports it */
  CU_ASSERT_EQUAL(place(g, NULL, 0, 0, &p), TFS_INVALID_ARGUMENT);
  TFS_ASSERT_ERROR(p.st, TFS_INVALID_ARGUMENT,
                   "Cannot assign a device for operation assign: Could not "
                   "satisfy explicit device specification '' because the "
                   "node {{colocation_node assign}} was colocated with a "
                   "group of nodes that required incompatible device "
                   "'/device:FAKE:0'.");
  CU_ASSERT_PTR_NOT_NULL(strstr(tfs_status_message(p.st),
                                "\nVarHandleOp: CPU \nAssignVariableOp: CPU "
                                "\nReadVariableOp: CPU \n"));
  CU_ASSERT_PTR_NOT_NULL(strstr(tfs_status_message(p.st),
                                "  v (VarHandleOp) \n  assign "
                                "(AssignVariableOp) \n  read "
                                "(ReadVariableOp) /device:FAKE:0\n"));
  dt_placement_clear(&p);
  CU_ASSERT_EQUAL(place(g, NULL, 1, 1, &p), TFS_OK);
  ASSERT_DEV(&p, "v", DT_CPU);
  ASSERT_DEV(&p, "assign", DT_CPU);
  ASSERT_DEV(&p, "read", DT_CPU);
  /* the Const goes with its only consumer, not to the preferred FAKE */
  ASSERT_DEV(&p, "c", DT_CPU);
  dt_placement_clear(&p);
  tfs_graph_free(g);
}

static void test_ref_edges_follow_the_variable(void) {
  tfs_graph *g = tfs_graph_new();
  tfs_status *st = tfs_status_new();
  tfs_op_desc *d = tfs_op_desc_new(g, "VariableV2", "var");
  tfs_op_desc_set_attr_type(d, "dtype", TFS_FLOAT);
  tfs_op_desc_set_attr_shape(d, "shape", NULL, 0);
  tfs_op_desc_set_device(d, "/cpu:0");
  tfs_operation *var = tfs_op_desc_finish(d, st);
  TFS_ASSERT_OK(st);
  tfs_status_free(st);
  tfs_output c = dt_const(g, "c", NULL, 2.0f);
  tfs_output vc[2] = {{var, 0}, c};
  /* the Assign asks for FAKE; the ref edge overrides its request */
  dt_node(g, "Assign", "assign", "/device:FAKE:0", vc, 2, TFS_FLOAT, NULL);
  dt_placement p;
  CU_ASSERT_EQUAL(place(g, NULL, 0, 1, &p), TFS_OK);
  ASSERT_DEV(&p, "var", DT_CPU);
  ASSERT_DEV(&p, "assign", DT_CPU);
  ASSERT_DEV(&p, "c", DT_CPU);
  CU_ASSERT_STRING_EQUAL(p.log, "var: (VariableV2): " DT_CPU "\n"
                                "assign: (Assign): " DT_CPU "\n"
                                "c: (Const): " DT_CPU "\n");
  dt_placement_clear(&p);
  tfs_graph_free(g);
}

/* ---- heuristics ------------------------------------------------------------- */

static void test_generators_follow_consumers(void) {
  tfs_graph *g = tfs_graph_new();
  tfs_output c1 = dt_const(g, "c1", NULL, 1.0f);
  tfs_output c2 = dt_const(g, "c2", NULL, 2.0f);
  tfs_output c3 = dt_const(g, "c3", NULL, 3.0f);
  dt_node(g, "Neg", "neg", NULL, &c1, 1, TFS_FLOAT, NULL);
  tfs_output cc[2] = {c2, c2};
  dt_node(g, "AddV2", "add", NULL, cc, 2, TFS_FLOAT, NULL);
  dt_placement p;
  CU_ASSERT_EQUAL(place(g, NULL, 0, 0, &p), TFS_OK);
  ASSERT_DEV(&p, "c1", DT_CPU);   /* with Neg (CPU only) */
  ASSERT_DEV(&p, "c2", DT_FAKE0); /* with AddV2 */
  ASSERT_DEV(&p, "c3", DT_FAKE0); /* no consumer: the preferred device */
  (void)c3;
  dt_placement_clear(&p);
  tfs_graph_free(g);
}

static void test_metadata_ops_follow_their_input(void) {
  tfs_graph *g = tfs_graph_new();
  tfs_output x = dt_placeholder(g, "x", TFS_FLOAT);
  tfs_output xx[2] = {x, x};
  tfs_output n = dt_node(g, "Neg", "neg", NULL, &x, 1, TFS_FLOAT, NULL);
  tfs_output a = dt_node(g, "AddV2", "add", NULL, xx, 2, TFS_FLOAT, NULL);
  dt_node(g, "Shape", "shape_of_neg", NULL, &n, 1, TFS_FLOAT, NULL);
  dt_node(g, "Shape", "shape_of_add", NULL, &a, 1, TFS_FLOAT, NULL);
  dt_placement p;
  CU_ASSERT_EQUAL(place(g, NULL, 0, 0, &p), TFS_OK);
  ASSERT_DEV(&p, "neg", DT_CPU);
  ASSERT_DEV(&p, "shape_of_neg", DT_CPU); /* though FAKE has Shape */
  ASSERT_DEV(&p, "shape_of_add", DT_FAKE0);
  dt_placement_clear(&p);
  tfs_graph_free(g);
}

static const tfs_test_case kPreference[] = {
    {"prefers_higher_priority_type", test_prefers_higher_priority_type},
    {"kernel_dtype_decides", test_kernel_dtype_decides},
    {"log_goes_to_stdout", test_log_goes_to_stdout},
    {NULL, NULL}};

static const tfs_test_case kRequested[] = {
    {"requested_devices", test_requested_devices},
    {"device_ids", test_device_ids},
    {"no_kernel_on_requested_type", test_no_kernel_on_requested_type},
    {"missing_device", test_missing_device},
    {"malformed_and_no_devices", test_malformed_and_no_devices},
    {"no_kernel_anywhere", test_no_kernel_anywhere},
    {NULL, NULL}};

static const tfs_test_case kColocation[] = {
    {"intersects_types", test_colocation_intersects_types},
    {"conflict", test_colocation_conflict},
    {"without_common_type", test_colocation_without_common_type},
    {"incompatible_group", test_colocated_with_incompatible_group},
    {"resource_variables", test_resource_variables_stay_together},
    {"ref_edges", test_ref_edges_follow_the_variable},
    {NULL, NULL}};

static const tfs_test_case kHeuristics[] = {
    {"generators_follow_consumers", test_generators_follow_consumers},
    {"metadata_follows_input", test_metadata_ops_follow_their_input},
    {NULL, NULL}};

const tfs_test_suite tfs_test_suites[] = {
    {"preference", kPreference},
    {"requested", kRequested},
    {"colocation", kColocation},
    {"heuristics", kHeuristics},
    {NULL, NULL}};
