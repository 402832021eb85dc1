/*
 * tests/device/test_device.c - device names (parsing, canonical forms,
 * matching, merging with TensorFlow's messages), the device set and the
 * public device list, the caching allocator, memory types, and copies
 * between host and FAKE memory (the _Copy kernel included).
 */
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "device/bfc_alloc.h"
#include "devrun.h"
#include "devtest.h"
#include "optimizer/opt_util.h"
#include "tfsess/device.h"

/* ---- names ---------------------------------------------------------------- */

static void test_parse_forms(void) {
  static const struct {
    const char *in, *canon;
  } kCases[] = {
      {"", ""},
      {"/", ""},
      {"/cpu:0", "/device:CPU:0"},
      {"/CPU:1", "/device:CPU:1"},
      {"/gpu:1", "/device:GPU:1"},
      {"/Gpu:*", "/device:GPU:*"},
      {"/device:GPU:0", "/device:GPU:0"},
      {"/device:GPU", "/device:GPU:*"},
      {"/device:gpu:0", "/device:gpu:0"}, /* "/device:" keeps the case */
      {"CPU:0", "/device:CPU:0"},
      {"GPU", "/device:GPU:*"},
      {"gpu", "/device:GPU:*"},
      {"cpu:*", "/device:CPU:*"},
      {"XLA_CPU:3", "/device:XLA_CPU:3"}, /* a local name of any type */
      {"/job:localhost/replica:0/task:0/device:CPU:0",
       "/job:localhost/replica:0/task:0/device:CPU:0"},
      {"/job:localhost/device:GPU:*", "/job:localhost/device:GPU:*"},
      {"/job:*/replica:1", "/replica:1"},
      {"/job:worker/task:2/cpu:0", "/job:worker/task:2/device:CPU:0"},
      {"/device:*:1", ""}, /* an id without a type prints nothing */
      {"job:w/gpu:0", "/job:w/device:GPU:0"},
  };
  for (size_t i = 0; i < sizeof kCases / sizeof kCases[0]; i++) {
    tfs_device_name n;
    char buf[TFS_DEVICE_NAME_MAX];
    int rc = tfs_device_name__parse(kCases[i].in, &n);
    if (rc != 0) fprintf(stderr, "\n  failed to parse '%s'\n", kCases[i].in);
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT_STRING_EQUAL(tfs_device_name__str(&n, buf, sizeof buf),
                           kCases[i].canon);
  }
}

static void test_parse_errors(void) {
  static const char *const kBad[] = {
      "/XPU:3",        "/job:1abc",      "/replica:x",    "/device:GPU:-1",
      "GPU:0/",        "/job:a//cpu:0", "foo",           "/device:",
      "/task:99999999999", "XPU",        "/job:localhost:0", "gpu:0:1",
      "/device:GPU:0 ",
  };
  for (size_t i = 0; i < sizeof kBad / sizeof kBad[0]; i++) {
    tfs_device_name n;
    int rc = tfs_device_name__parse(kBad[i], &n);
    if (rc == 0) fprintf(stderr, "\n  parsed bad '%s'\n", kBad[i]);
    CU_ASSERT_EQUAL(rc, -1);
  }
  tfs_status *st = tfs_status_new();
  char buf[64];
  CU_ASSERT_EQUAL(tfs_device_name_canonicalize("foo", buf, sizeof buf, st),
                  -1);
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT, "");
  TFS_ASSERT_MESSAGE(st, "Could not parse foo into a device specification.");
  CU_ASSERT_EQUAL(tfs_device_name_canonicalize("/gpu:1", buf, sizeof buf, st),
                  13);
  TFS_ASSERT_OK(st);
  CU_ASSERT_STRING_EQUAL(buf, "/device:GPU:1");
  /* truncation as snprintf */
  CU_ASSERT_EQUAL(tfs_device_name_canonicalize("/cpu:0", buf, 5, st), 13);
  CU_ASSERT_STRING_EQUAL(buf, "/dev");
  tfs_status_free(st);
}

static void parse_ok(const char *s, tfs_device_name *n) {
  CU_ASSERT_EQUAL_FATAL(tfs_device_name__parse(s, n), 0);
}

static void test_match_and_compatible(void) {
  tfs_device_name cpu, gpu1, spec, any;
  tfs_device_name__local(&cpu, "CPU", 0);
  tfs_device_name__local(&gpu1, "GPU", 1);
  parse_ok("/job:localhost/device:GPU:*", &spec);
  parse_ok("", &any);
  CU_ASSERT_TRUE(tfs_device_name__matches(&spec, &gpu1));
  CU_ASSERT_FALSE(tfs_device_name__matches(&spec, &cpu));
  CU_ASSERT_TRUE(tfs_device_name__matches(&any, &cpu));
  CU_ASSERT_FALSE(tfs_device_name__has_details(&any));
  CU_ASSERT_TRUE(tfs_device_name__has_details(&spec));
  tfs_device_name a, b;
  parse_ok("/job:w/device:GPU:0", &a);
  parse_ok("/replica:1/gpu:0", &b);
  CU_ASSERT_TRUE(tfs_device_name__compatible(&a, &b));
  parse_ok("/job:v", &b);
  CU_ASSERT_FALSE(tfs_device_name__compatible(&a, &b));
  tfs_device_name__ensure(&b, &gpu1);
  char buf[TFS_DEVICE_NAME_MAX];
  CU_ASSERT_STRING_EQUAL(tfs_device_name__str(&b, buf, sizeof buf),
                         "/job:localhost/replica:0/task:0/device:GPU:1");
}

static void test_merge(void) {
  tfs_status *st = tfs_status_new();
  tfs_device_name t, o;
  char buf[TFS_DEVICE_NAME_MAX];
  parse_ok("/job:localhost", &t);
  parse_ok("/device:GPU:0", &o);
  CU_ASSERT_EQUAL(tfs_device_name__merge(&t, &o, 0, st), 0);
  CU_ASSERT_STRING_EQUAL(tfs_device_name__str(&t, buf, sizeof buf),
                         "/job:localhost/device:GPU:0");
  parse_ok("/device:GPU:1", &o);
  CU_ASSERT_EQUAL(tfs_device_name__merge(&t, &o, 0, st), -1);
  TFS_ASSERT_MESSAGE(st, "Cannot merge devices with incompatible ids: "
                         "'/job:localhost/device:GPU:0' and '/device:GPU:1'");
  CU_ASSERT_STRING_EQUAL(tfs_device_name__str(&t, buf, sizeof buf),
                         "/job:localhost/device:GPU:0"); /* unchanged */
  CU_ASSERT_EQUAL(tfs_device_name__merge(&t, &o, 1, st), 0); /* soft */
  CU_ASSERT_STRING_EQUAL(tfs_device_name__str(&t, buf, sizeof buf),
                         "/job:localhost/device:GPU:*");
  parse_ok("/cpu:0", &o);
  CU_ASSERT_EQUAL(tfs_device_name__merge(&t, &o, 0, st), -1);
  TFS_ASSERT_MESSAGE(st, "Cannot merge devices with incompatible types: "
                         "'/job:localhost/device:GPU:*' and '/device:CPU:0'");
  CU_ASSERT_EQUAL(tfs_device_name__merge(&t, &o, 1, st), 0);
  CU_ASSERT_STRING_EQUAL(tfs_device_name__str(&t, buf, sizeof buf),
                         "/job:localhost");
  parse_ok("/job:worker", &o);
  CU_ASSERT_EQUAL(tfs_device_name__merge(&t, &o, 1, st), -1);
  TFS_ASSERT_MESSAGE(st, "Cannot merge devices with incompatible jobs: "
                         "'/job:localhost' and '/job:worker'");
  parse_ok("/replica:0", &t);
  parse_ok("/replica:1", &o);
  CU_ASSERT_EQUAL(tfs_device_name__merge(&t, &o, 1, st), -1);
  TFS_ASSERT_MESSAGE(st, "Cannot merge devices with incompatible replicas: "
                         "'/replica:0' and '/replica:1'");
  parse_ok("/task:0", &t);
  parse_ok("/task:1", &o);
  CU_ASSERT_EQUAL(tfs_device_name__merge(&t, &o, 1, st), -1);
  TFS_ASSERT_MESSAGE(st, "Cannot merge devices with incompatible tasks: "
                         "'/task:0' and '/task:1'");
  tfs_status_free(st);
}

/* ---- the device set and the public list ---------------------------------- */

static void test_device_set(void) {
  tfs_fake_device_register();
  tfs_status *st = tfs_status_new();
  static tfs_config_device_count dc[2] = {{"CPU", 2}, {"FAKE", 2}};
  tfs_config cfg;
  tfs_config__init(&cfg);
  cfg.ndevice_count = 2;
  cfg.device_count = dc;
  /* CPU and FAKE only: a machine's GPUs would come between them */
  tfs_device_set *s = tfs_device_set__new(dt_no_gpu(&cfg), st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_EQUAL_FATAL(s->n, 4);
  CU_ASSERT_STRING_EQUAL(s->devices[0]->name, DT_CPU);
  CU_ASSERT_STRING_EQUAL(s->devices[1]->name,
                         "/job:localhost/replica:0/task:0/device:CPU:1");
  CU_ASSERT_STRING_EQUAL(s->devices[2]->name, DT_FAKE0);
  CU_ASSERT_STRING_EQUAL(s->devices[3]->name, DT_FAKE1);
  CU_ASSERT_PTR_EQUAL(s->devices[0], tfs_device__cpu());
  CU_ASSERT_PTR_EQUAL(tfs_device_set__find(s, "/cpu:1"), s->devices[1]);
  CU_ASSERT_PTR_EQUAL(tfs_device_set__find(s, "fake:1"), s->devices[3]);
  CU_ASSERT_PTR_NULL(tfs_device_set__find(s, "/device:FAKE:*")); /* two */
  CU_ASSERT_PTR_NULL(tfs_device_set__find(s, "/gpu:0"));
  char *types = tfs_device_set__type_list(s);
  CU_ASSERT_STRING_EQUAL(types, "[CPU, FAKE]");
  tfs_free(types);
  CU_ASSERT_EQUAL(tfs_device_set__synchronize(s, st), 0);
  tfs_device_set__free(s);
  /* the same devices, process-wide */
  s = tfs_device_set__new(dt_no_gpu(NULL), st);
  CU_ASSERT_EQUAL(s->n, 2);
  CU_ASSERT_PTR_EQUAL(s->devices[1], tfs_fake_device(0));
  tfs_device_set__free(s);
  tfs_status_free(st);
}

static void test_public_list(void) {
  tfs_fake_device_register();
  tfs_status *st = tfs_status_new();
  tfs_session_options *o = tu_no_gpu_options(); /* the CPU and FAKE */
  tfs_device_list *l = tfs_device_list_new(o, st);
  TFS_ASSERT_OK(st);
  tfs_session_options_free(o);
  CU_ASSERT_EQUAL_FATAL(tfs_device_list_count(l), 2);
  CU_ASSERT_STRING_EQUAL(tfs_device_list_name(l, 0), DT_CPU);
  CU_ASSERT_STRING_EQUAL(tfs_device_list_type(l, 0), "CPU");
  CU_ASSERT_EQUAL(tfs_device_list_memory_bytes(l, 0), 0);
  CU_ASSERT_STRING_EQUAL(tfs_device_list_description(l, 0), "");
  CU_ASSERT_STRING_EQUAL(tfs_device_list_type(l, 1), "FAKE");
  CU_ASSERT_EQUAL(tfs_device_list_memory_bytes(l, 1), 64 << 20);
  CU_ASSERT_PTR_NULL(tfs_device_list_name(l, 2));
  tfs_device_list_free(l);
  /* device_count from the session options' ConfigProto */
  tfs_config cfg;
  tfs_config__init(&cfg);
  static tfs_config_device_count dc[2] = {{"FAKE", 0}, {"GPU", 0}};
  cfg.ndevice_count = 2;
  cfg.device_count = dc;
  tfs_buffer *bytes = tfs_buffer_new();
  tfs_config__serialize(&cfg, bytes, st);
  TFS_ASSERT_OK(st);
  o = tfs_session_options_new();
  tfs_session_options_set_config(o, bytes->data, bytes->length, st);
  TFS_ASSERT_OK(st);
  l = tfs_device_list_new(o, st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_EQUAL(tfs_device_list_count(l), 1);
  tfs_device_list_free(l);
  tfs_device_list_free(NULL);
  tfs_session_options_free(o);
  tfs_buffer_free(bytes);
  tfs_status_free(st);
}

/* ---- the caching allocator ------------------------------------------------- */

typedef struct {
  size_t refuse_above; /* the backend refuses bigger requests */
  int calls, frees;
} backend_ctx;

static void *be_alloc(void *c, size_t n) {
  backend_ctx *b = c;
  b->calls++;
  return n > b->refuse_above ? NULL : tfs_aligned_alloc(n);
}

static void be_free(void *c, void *p) {
  ((backend_ctx *)c)->frees++;
  tfs_aligned_free(p);
}

static void test_bfc_growth(void) {
  backend_ctx be = {SIZE_MAX, 0, 0};
  tfs_bfc *a = tfs_bfc_new("T_0_bfc", 64u << 20, 1,
                           (tfs_bfc_backend){be_alloc, be_free, &be});
  CU_ASSERT_STRING_EQUAL(tfs_bfc_name(a), "T_0_bfc");
  void *p1 = tfs_bfc_alloc(a, 1000);
  void *p2 = tfs_bfc_alloc(a, 1);
  void *p0 = tfs_bfc_alloc(a, 0);
  CU_ASSERT_PTR_NOT_NULL(p1);
  CU_ASSERT_PTR_NOT_NULL(p2);
  CU_ASSERT_PTR_NOT_NULL(p0);
  CU_ASSERT_EQUAL((uintptr_t)p1 % TFS_BFC_ALIGN, 0);
  CU_ASSERT_EQUAL((uintptr_t)p2 % TFS_BFC_ALIGN, 0);
  tfs_bfc_stats s;
  tfs_bfc_get_stats(a, &s);
  CU_ASSERT_EQUAL(s.in_use, 1024 + 256 + 256);
  CU_ASSERT_EQUAL(s.reserved, 2 << 20); /* the first region: 2 MiB */
  CU_ASSERT_EQUAL(s.regions, 1);
  CU_ASSERT_EQUAL(s.num_allocs, 3);
  /* a 3 MiB request takes a second region; the next one doubles */
  void *big = tfs_bfc_alloc(a, 3u << 20);
  CU_ASSERT_PTR_NOT_NULL(big);
  tfs_bfc_get_stats(a, &s);
  CU_ASSERT_EQUAL(s.regions, 2);
  CU_ASSERT_EQUAL(s.reserved, (2 << 20) + (4 << 20));
  /* freeing coalesces: the whole first region is one chunk again */
  tfs_bfc_free(a, p2);
  tfs_bfc_free(a, p1);
  tfs_bfc_free(a, p0);
  void *again = tfs_bfc_alloc(a, 1u << 20);
  CU_ASSERT_PTR_NOT_NULL(again);
  tfs_bfc_get_stats(a, &s);
  CU_ASSERT_EQUAL(s.regions, 2); /* served from the cache */
  CU_ASSERT_EQUAL(s.peak_in_use, (3 << 20) + (1 << 20)); /* big + again */
  tfs_bfc_free(a, big);
  tfs_bfc_free(a, again);
  tfs_bfc_free(a, NULL);
  tfs_bfc_get_stats(a, &s);
  CU_ASSERT_EQUAL(s.in_use, 0);
  /* over the limit: free regions go back first, then it fails */
  CU_ASSERT_PTR_NULL(tfs_bfc_alloc(a, 65u << 20));
  void *most = tfs_bfc_alloc(a, 60u << 20);
  CU_ASSERT_PTR_NOT_NULL(most);
  tfs_bfc_get_stats(a, &s);
  CU_ASSERT(s.reserved <= 64 << 20);
  tfs_bfc_free(a, most);
  tfs_bfc_free_all(a);
  CU_ASSERT(be.calls >= 3);
  CU_ASSERT_EQUAL(be.frees, be.calls); /* every region went back */
  tfs_bfc_free_all(NULL);
}

static void test_bfc_whole_limit(void) {
  /* without allow_growth: one region of the whole limit, backing off by
   * 10% steps when the backend refuses */
  backend_ctx be = {7u << 20, 0, 0};
  tfs_bfc *a = tfs_bfc_new("T_1_bfc", 8u << 20, 0,
                           (tfs_bfc_backend){be_alloc, be_free, &be});
  void *p = tfs_bfc_alloc(a, 100);
  CU_ASSERT_PTR_NOT_NULL(p);
  tfs_bfc_stats s;
  tfs_bfc_get_stats(a, &s);
  CU_ASSERT_EQUAL(s.regions, 1);
  CU_ASSERT(s.reserved <= 7 << 20 && s.reserved > 6 << 20);
  CU_ASSERT_EQUAL(s.limit, 8 << 20);
  void *q[8];
  int got = 0;
  for (int i = 0; i < 8; i++) got += (q[i] = tfs_bfc_alloc(a, 1u << 20)) != NULL;
  /* 6 MiB fit in the first region; a second takes the rest of the limit
   * and holds one more; then the limit is reached */
  CU_ASSERT_EQUAL(got, 7);
  tfs_bfc_get_stats(a, &s);
  CU_ASSERT_EQUAL(s.regions, 2);
  CU_ASSERT_EQUAL(s.reserved, 8 << 20);
  for (int i = 0; i < 8; i++) tfs_bfc_free(a, q[i]);
  tfs_bfc_free(a, p);
  tfs_bfc_free_all(a);
  CU_ASSERT_EQUAL(be.frees, 2);
}

static void test_bfc_bins(void) {
  CU_ASSERT_EQUAL(tfs_bfc_bin(256), 0);
  CU_ASSERT_EQUAL(tfs_bfc_bin(511), 0);
  CU_ASSERT_EQUAL(tfs_bfc_bin(512), 1);
  CU_ASSERT_EQUAL(tfs_bfc_bin(1u << 20), 12);
  CU_ASSERT_EQUAL(tfs_bfc_bin((size_t)1 << 40), 20);
}

/* ---- memory types and copies ----------------------------------------------- */

static void test_memory_types(void) {
  tfs_graph *g = tfs_graph_new();
  tfs_output x = dt_placeholder(g, "x", TFS_FLOAT);
  tfs_status *st = tfs_status_new();
  int64_t one = 1;
  int32_t minus_one = -1;
  tfs_tensor *sv = tu_int32s(&one, 1, &minus_one);
  tfs_output shape = tfs_op_const(g, "shape", sv, st);
  tfs_tensor_free(sv);
  TFS_ASSERT_OK(st);
  tfs_output r = tfs_op_reshape(g, "r", x, shape, st);
  TFS_ASSERT_OK(st);
  tfs_output sh = dt_node(g, "Shape", "s", NULL, &x, 1, TFS_FLOAT, NULL);
  tfs_device *fake = tfs_fake_device(0), *cpu = tfs_device__cpu();
  uint64_t in, out;
  tfs_device__memory_types(fake, r.oper, &in, &out);
  CU_ASSERT_EQUAL(in, 2u); /* Reshape's shape */
  CU_ASSERT_EQUAL(out, 0u);
  CU_ASSERT_PTR_EQUAL(tfs_device__input_space(fake, r.oper, 0), fake);
  CU_ASSERT_PTR_NULL(tfs_device__input_space(fake, r.oper, 1));
  CU_ASSERT_PTR_EQUAL(tfs_device__output_space(fake, r.oper, 0), fake);
  CU_ASSERT_PTR_NULL(tfs_device__output_space(fake, sh.oper, 0));
  CU_ASSERT_PTR_NULL(tfs_device__output_space(cpu, r.oper, 0));
  CU_ASSERT_PTR_NULL(tfs_device__output_space(fake, shape.oper, 0)); /* int32 */
  tfs_status_free(st);
  tfs_graph_free(g);
}

static void test_copies(void) {
  tfs_device *fake = tfs_fake_device(0);
  tfs_status *st = tfs_status_new();
  const float v[6] = {1, 2, 3, 4, 5, 6};
  int64_t dims[2] = {2, 3};
  tfs_tensor *h = tu_floats(dims, 2, v);
  int64_t d0, h0, d1, h1;
  int64_t before = tfs_fake_device_bytes_in_use();
  tfs_device__copy_counts(&d0, &h0);
  tfs_tensor *on = tfs_device__copy_tensor(h, fake, st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_PTR_EQUAL(tfs_device__tensor_device(on), fake);
  CU_ASSERT_PTR_NULL(tfs_device__tensor_device(h));
  CU_ASSERT(tfs_fake_device_bytes_in_use() > before);
  tfs_tensor *same = tfs_device__copy_tensor(on, fake, st);
  CU_ASSERT_PTR_EQUAL(same, on); /* already there: a reference */
  tfs_tensor_free(same);
  tfs_tensor *back = tfs_device__copy_tensor(on, NULL, st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_PTR_NULL(tfs_device__tensor_device(back));
  CU_ASSERT_EQUAL(memcmp(tfs_tensor_data(back), v, sizeof v), 0);
  CU_ASSERT_EQUAL(tfs_tensor_ndims(back), 2);
  tfs_device__copy_counts(&d1, &h1);
  CU_ASSERT_EQUAL(d1 - d0, 1);
  CU_ASSERT_EQUAL(h1 - h0, 1);
  /* FAKE:0 -> FAKE:1 goes through the host */
  tfs_tensor *other = tfs_device__copy_tensor(on, tfs_fake_device(1), st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_PTR_EQUAL(tfs_device__tensor_device(other), tfs_fake_device(1));
  tfs_tensor_free(other);
  tfs_tensor_free(back);
  tfs_tensor_free(on);
  CU_ASSERT_EQUAL(tfs_fake_device_bytes_in_use(), before);
  /* strings stay in host memory */
  const char *s[1] = {"x"};
  int64_t one = 1;
  tfs_tensor *str = tfs_tensor_new_strings(&one, 1, s, NULL, st);
  CU_ASSERT_PTR_NULL(tfs_device__copy_tensor(str, fake, st));
  TFS_ASSERT_ERROR(st, TFS_INTERNAL, "Cannot copy a string tensor to "
                   DT_FAKE0 ": it lives in host memory");
  tfs_tensor_free(str);
  tfs_tensor_free(h);
  tfs_status_free(st);
}

static void test_alloc_oom_and_copy_kernel(void) {
  tfs_device *fake = tfs_fake_device(0);
  tfs_status *st = tfs_status_new();
  tfs_shape huge = {.rank = 2, .dims = {1 << 20, 1 << 10}};
  CU_ASSERT_PTR_NULL(tfs_device__alloc_tensor(fake, TFS_FLOAT, &huge, st));
  TFS_ASSERT_MESSAGE(st, "OOM when allocating tensor with shape[1048576,1024] "
                         "and type float on " DT_FAKE0
                         " by allocator FAKE_0_bfc");
  tfs_status_clear(st);
  tfs_shape small = {.rank = 1, .dims = {3}};
  tfs_tensor *t = tfs_device__alloc_tensor(NULL, TFS_FLOAT, &small, st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_PTR_NULL(tfs_device__tensor_device(t));
  /* the _Copy kernel, driven as the executor drives kernels */
  tfs_tensor *in[1] = {t}, *out[1] = {NULL};
  tfs_dtype ot[1] = {TFS_FLOAT};
  tfs_kernel_ctx c = {.node_name = "x/_copy", .op_name = "_Copy",
                      .state = fake, .ninputs = 1, .inputs = in,
                      .noutputs = 1, .outputs = out, .out_types = ot,
                      .st = st};
  tfs_device_copy_kernel.compute(&c);
  TFS_ASSERT_OK(st);
  CU_ASSERT_PTR_EQUAL(tfs_device__tensor_device(out[0]), fake);
  CU_ASSERT_STRING_EQUAL(tfs_device_copy_kernel.op, "_Copy");
  tfs_tensor_free(out[0]);
  tfs_tensor_free(t);
  tfs_status_free(st);
}

static tfs_device *g_seen;

static int record_prepare(tfs_kernel_init *ki) {
  g_seen = ki->device;
  return 0;
}

/* A kernel's prepare finds its device in the init struct (no global). */
static void test_prepare_sets_current_device(void) {
  tfs_kernel_def k = {"Identity", "FAKE", NULL, 0, record_prepare, NULL,
                      NULL, 0, NULL};
  tfs_kernel_init ki = {0};
  CU_ASSERT_EQUAL(tfs_device__prepare_kernel(tfs_fake_device(0), &k, &ki), 0);
  CU_ASSERT_PTR_EQUAL(g_seen, tfs_fake_device(0));
  CU_ASSERT_EQUAL(tfs_device__prepare_kernel(NULL, &k, &ki), 0);
  CU_ASSERT_PTR_EQUAL(g_seen, tfs_device__cpu());
  k.prepare = NULL;
  CU_ASSERT_EQUAL(tfs_device__prepare_kernel(NULL, &k, &ki), 0);
  CU_ASSERT_PTR_EQUAL(ki.device, tfs_device__cpu());
}

/* ---- whole graphs across devices (the reference runner) -------------------- */

static tfs_output const_tensor(tfs_graph *g, const char *name,
                               const int64_t *dims, int nd,
                               const float *v) {
  tfs_status *st = tfs_status_new();
  tfs_tensor *t = tu_floats(dims, nd, v);
  tfs_output o = tfs_op_const(g, name, t, st);
  TFS_ASSERT_OK(st);
  tfs_tensor_free(t);
  tfs_status_free(st);
  return o;
}

/* x[2,3] -> MatMul (CPU) -> AddV2 bias (FAKE) -> Relu (FAKE) -> MatMul */
static tfs_graph *mlp_graph(tfs_output *x, tfs_output *y) {
  tfs_graph *g = tfs_graph_new();
  static const float w1[12] = {1, -2, 3, 0.5f, -1, 2, 0, 1, 2, 2, -3, 1};
  static const float b1[4] = {0.5f, -4, 1, 0};
  static const float w2[8] = {1, 0, 0, 1, 1, 1, -1, 2};
  int64_t d34[2] = {3, 4}, d4[1] = {4}, d42[2] = {4, 2};
  tfs_status *st = tfs_status_new();
  int64_t xd[2] = {2, 3};
  *x = tfs_op_placeholder(g, "x", TFS_FLOAT, xd, 2, st);
  tfs_output w = const_tensor(g, "w1", d34, 2, w1);
  tfs_output b = const_tensor(g, "b1", d4, 1, b1);
  tfs_output w2o = const_tensor(g, "w2", d42, 2, w2);
  tfs_output in1[2] = {*x, w};
  tfs_output mm = dt_node(g, "MatMul", "mm1", NULL, in1, 2, TFS_FLOAT, NULL);
  tfs_output in2[2] = {mm, b};
  tfs_output a = dt_node(g, "AddV2", "bias1", NULL, in2, 2, TFS_FLOAT, NULL);
  tfs_output r = dt_node(g, "Relu", "relu1", NULL, &a, 1, TFS_FLOAT, NULL);
  tfs_output in3[2] = {r, w2o};
  *y = dt_node(g, "MatMul", "mm2", NULL, in3, 2, TFS_FLOAT, NULL);
  TFS_ASSERT_OK(st);
  tfs_status_free(st);
  return g;
}

static void test_runner_across_devices(void) {
  tfs_fake_device_register();
  tfs_output x, y;
  tfs_graph *g = mlp_graph(&x, &y);
  tfs_status *st = tfs_status_new();
  static const float xv[6] = {1, 2, 3, -1, 0.5f, 2};
  int64_t xd[2] = {2, 3};
  tfs_tensor *xt = tu_floats(xd, 2, xv);
  tfs_tensor *feeds[1] = {xt}, *with_fake = NULL, *cpu_only = NULL;
  int64_t before = tfs_fake_device_bytes_in_use();
  dr_graph *r = dr_graph_new(g, dt_no_gpu(NULL), 0, &x, 1, st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_PTR_EQUAL(dr_graph_device(r, "bias1"), tfs_fake_device(0));
  CU_ASSERT_PTR_EQUAL(dr_graph_device(r, "relu1"), tfs_fake_device(0));
  CU_ASSERT_PTR_EQUAL(dr_graph_device(r, "mm1"), tfs_device__cpu());
  CU_ASSERT_EQUAL(dr_graph_run(r, feeds, &y, 1, &with_fake, st), 0);
  TFS_ASSERT_OK(st);
  /* mm1 -> bias1, b1 -> bias1 (b1 went to the CPU with... its consumer
   * is on FAKE: it goes there itself), relu1 -> mm2: values moved */
  CU_ASSERT(dr_graph_copies(r) >= 2);
  dr_graph_free(r);
  tfs_config cfg;
  tfs_config__init(&cfg);
  static tfs_config_device_count none[1] = {{"FAKE", 0}};
  cfg.ndevice_count = 1;
  cfg.device_count = none;
  r = dr_graph_new(g, dt_no_gpu(&cfg), 0, &x, 1, st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_EQUAL(dr_graph_run(r, feeds, &y, 1, &cpu_only, st), 0);
  CU_ASSERT_EQUAL(dr_graph_copies(r), 0);
  dr_graph_free(r);
  CU_ASSERT_PTR_NOT_NULL_FATAL(with_fake);
  CU_ASSERT_PTR_NOT_NULL_FATAL(cpu_only);
  CU_ASSERT_EQUAL(memcmp(tfs_tensor_data(with_fake), tfs_tensor_data(cpu_only),
                         4 * sizeof(float)), 0);
  /* relu(x w1 + b1) w2 for the first row: relu([5.5, 4, -5, 5.5]) w2 */
  const float *o = tfs_tensor_data(with_fake);
  TFS_ASSERT_FLOAT_NEAR(o[0], 0.0f, 1e-5);
  TFS_ASSERT_FLOAT_NEAR(o[1], 15.0f, 1e-5);
  CU_ASSERT_EQUAL(tfs_fake_device_bytes_in_use(), before); /* all freed */
  tfs_tensor_free(with_fake);
  tfs_tensor_free(cpu_only);
  tfs_tensor_free(xt);
  tfs_status_free(st);
  tfs_graph_free(g);
}

static void set_t_float(tfs_op_desc *d, const void *arg) {
  tfs_op_desc_set_attr_type(d, "T", TFS_FLOAT);
}

static void test_run_op_on_fake(void) {
  tfs_fake_device_register();
  tfs_status *st = tfs_status_new();
  int64_t d2[1] = {2};
  static const float a[2] = {1, 2}, b[2] = {10, 20};
  tfs_tensor *in[2] = {tu_floats(d2, 1, a), tu_floats(d2, 1, b)}, *out[1];
  CU_ASSERT_EQUAL(dr_run_op("AddV2", set_t_float, NULL, "/device:FAKE:0",
                            NULL, in, 2, out, 1, st), 0);
  TFS_ASSERT_OK(st);
  const float *o = tfs_tensor_data(out[0]);
  CU_ASSERT_EQUAL(o[0], 11.0f);
  CU_ASSERT_EQUAL(o[1], 22.0f);
  CU_ASSERT_PTR_NULL(tfs_device__tensor_device(out[0]));
  tfs_tensor_free(out[0]);
  /* MatMul cannot go there */
  int64_t d12[2] = {1, 2}, d21[2] = {2, 1};
  tfs_tensor *mi[2] = {tu_floats(d12, 2, a), tu_floats(d21, 2, b)};
  CU_ASSERT_EQUAL(dr_run_op("MatMul", set_t_float, NULL, "/device:FAKE:0",
                            NULL, mi, 2, out, 1, st), -1);
  tfs_tensor_free(mi[0]);
  tfs_tensor_free(mi[1]);
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT,
                   "Cannot assign a device for operation op: Could not "
                   "satisfy explicit device specification '/device:FAKE:0' "
                   "because no supported kernel for FAKE devices");
  tfs_tensor_free(in[0]);
  tfs_tensor_free(in[1]);
  tfs_status_free(st);
}

/* The optimizer asks a node's device type what it prefers: a registered
 * type answers for itself; the CPU says NHWC and bfloat16. */
static int no_devices(const tfs_config *cfg, tfs_device **out, int cap,
                      int *n, tfs_status *st) {
  (void)cfg, (void)out, (void)cap, (void)st;
  *n = 0;
  return 0;
}

static void test_type_capabilities(void) {
  static const tfs_device_type kNchw = {"NCHWDEV", 5, no_devices, 1,
                                        TFS_HALF};
  CU_ASSERT_EQUAL(tfs_device__register_type(&kNchw), 0);
  CU_ASSERT_PTR_EQUAL(tfs_device__type("NCHWDEV"), &kNchw);
  tfs_opt_device_caps caps;
  tfs_opt__device_caps("/job:localhost/replica:0/task:0/device:NCHWDEV:0",
                       &caps);
  CU_ASSERT_EQUAL(caps.prefers_nchw, 1);
  CU_ASSERT_EQUAL(caps.fast_16bit, TFS_HALF);
  tfs_opt__device_caps("/job:localhost/replica:0/task:0/device:CPU:0", &caps);
  CU_ASSERT_EQUAL(caps.prefers_nchw, 0);
  CU_ASSERT_EQUAL(caps.fast_16bit, TFS_BFLOAT16);
  tfs_opt__device_caps("", &caps); /* no device: the CPU */
  CU_ASSERT_EQUAL(caps.prefers_nchw, 0);
  tfs_device__unregister_type("NCHWDEV");
  CU_ASSERT_PTR_NULL(tfs_device__type("NCHWDEV"));
  CU_ASSERT_PTR_NOT_NULL(tfs_device__type("CPU"));
}

/* tfs_device_count_visible: a type's own count when it has one (the
 * GPU's, which makes no device), else its factory's for the defaults. */
static int three_visible(void) { return 3; }

static void test_count_visible(void) {
  static const tfs_device_type kCounted = {"COUNTED", 5, no_devices, 0,
                                           TFS_HALF, three_visible};
  CU_ASSERT_EQUAL(tfs_device_count_visible("CPU"), 1);
  CU_ASSERT_EQUAL(tfs_device_count_visible("GPU"), tu_gpu_count());
  CU_ASSERT_EQUAL(tfs_device_count_visible("NOSUCH"), 0);
  CU_ASSERT_EQUAL(tfs_device_count_visible(NULL), 0);
  CU_ASSERT_EQUAL(tfs_device__register_type(&kCounted), 0);
  CU_ASSERT_EQUAL(tfs_device_count_visible("COUNTED"), 3);
  tfs_device__unregister_type("COUNTED");
  CU_ASSERT_EQUAL(tfs_device_count_visible("COUNTED"), 0);
  int had_fake = tfs_device__type("FAKE") != NULL;
  tfs_fake_device_register(); /* no count of its own: one by default */
  CU_ASSERT_EQUAL(tfs_device_count_visible("FAKE"), 1);
  if (!had_fake) tfs_fake_device_unregister();
}

static const tfs_test_case kNames[] = {
    {"parse_forms", test_parse_forms},
    {"parse_errors", test_parse_errors},
    {"match_and_compatible", test_match_and_compatible},
    {"merge", test_merge},
    {NULL, NULL}};

static const tfs_test_case kSet[] = {
    {"device_set", test_device_set},
    {"public_list", test_public_list},
    {"current_device", test_prepare_sets_current_device},
    {"type_capabilities", test_type_capabilities},
    {"count_visible", test_count_visible},
    {NULL, NULL}};

static const tfs_test_case kAlloc[] = {
    {"growth", test_bfc_growth},
    {"whole_limit", test_bfc_whole_limit},
    {"bins", test_bfc_bins},
    {NULL, NULL}};

static const tfs_test_case kCopy[] = {
    {"memory_types", test_memory_types},
    {"copies", test_copies},
    {"alloc_oom_and_copy_kernel", test_alloc_oom_and_copy_kernel},
    {NULL, NULL}};

static const tfs_test_case kRunner[] = {
    {"across_devices", test_runner_across_devices},
    {"run_op_on_fake", test_run_op_on_fake},
    {NULL, NULL}};

const tfs_test_suite tfs_test_suites[] = {
    {"names", kNames}, {"set", kSet},       {"alloc", kAlloc},
    {"copy", kCopy},   {"runner", kRunner}, {NULL, NULL}};
