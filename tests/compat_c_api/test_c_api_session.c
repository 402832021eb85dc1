/*
 * tests/compat_c_api/test_c_api_session.c - c_api.h's session half: run
 * rules, outputs outliving session and graph, growing graphs, a frozen
 * MLP, variables, strings (also legacy-encoded), configs, devices, the
 * deprecated session, TensorFlow's error table, unsupported functions,
 * log listeners.
 */
#include <math.h>
#include <stdlib.h>

#include "capitest.h"

static TF_Status *s;
static TF_Graph *g;
static TF_SessionOptions *opts;
static TF_Session *sess;

static void setup(void) {
  s = TF_NewStatus();
  g = TF_NewGraph();
  opts = TF_NewSessionOptions();
}

static void open_session(void) {
  sess = TF_NewSession(g, opts, s);
  CT_ASSERT_OK(s);
}

static void teardown(void) {
  if (sess) {
    TF_CloseSession(sess, s);
    TF_DeleteSession(sess, s);
    sess = NULL;
  }
  TF_DeleteSessionOptions(opts);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
}

/* ---- runs ---------------------------------------------------------------- */

static void test_run_rules(void) {
  setup();
  TF_Operation *a = ct_scalar_float(g, "a", 3);
  TF_Operation *b = ct_scalar_float(g, "b", 4);
  TF_Operation *mul = ct_binary(g, "Mul", "mul", a, b);
  open_session();
  /* no feeds, a Const-only fetch; a preset output pointer is overwritten
   * (never freed) */
  TF_Tensor *out[2] = {(TF_Tensor *)8, (TF_Tensor *)8};
  TF_Output fetch[2] = {{mul, 0}, {a, 0}};
  TF_SessionRun(sess, NULL, NULL, NULL, 0, fetch, out, 2, NULL, 0, NULL, s);
  CT_ASSERT_OK(s);
  CU_ASSERT_EQUAL(*(float *)TF_TensorData(out[0]), 12.0f);
  CU_ASSERT_EQUAL(TF_NumDims(out[0]), 0);
  CU_ASSERT_EQUAL(TF_TensorByteSize(out[0]), 4);
  /* a NoOp target with no fetches */
  TF_OperationDescription *d = TF_NewOperation(g, "NoOp", "noop");
  TF_AddControlInput(d, mul);
  TF_Operation *noop = TF_FinishOperation(d, s);
  const TF_Operation *targets[1] = {noop};
  TF_SessionRun(sess, NULL, NULL, NULL, 0, NULL, NULL, 0, targets, 1, NULL,
                s);
  CT_ASSERT_OK(s);
  /* an empty RunOptions buffer and a RunMetadata to fill */
  TF_Buffer *ro = TF_NewBufferFromString("", 0);
  TF_Buffer *md = TF_NewBuffer();
  TF_Tensor *again = NULL;
  TF_SessionRun(sess, ro, NULL, NULL, 0, fetch, &again, 1, NULL, 0, md, s);
  CT_ASSERT_OK(s);
  CU_ASSERT_PTR_NOT_NULL(md->data);
  TF_DeleteTensor(again);
  TF_DeleteBuffer(ro);
  TF_DeleteBuffer(md);
  /* outputs outlive the session and the graph */
  TF_CloseSession(sess, s);
  TF_DeleteSession(sess, s);
  sess = NULL;
  TF_DeleteGraph(g);
  g = TF_NewGraph();
  CU_ASSERT_EQUAL(*(float *)TF_TensorData(out[0]), 12.0f);
  CU_ASSERT_EQUAL(*(float *)TF_TensorData(out[1]), 3.0f);
  TF_DeleteTensor(out[0]);
  TF_DeleteTensor(out[1]);
  teardown();
}

static void test_graph_grows_after_session(void) {
  setup();
  open_session();
  TF_Buffer *gd = ct_read_file("tests/data/wire/graph_mlp.pb");
  CU_ASSERT_PTR_NOT_NULL_FATAL(gd);
  TF_ImportGraphDefOptions *o = TF_NewImportGraphDefOptions();
  TF_GraphImportGraphDef(g, gd, o, s); /* after TF_NewSession */
  CT_ASSERT_OK(s);
  TF_DeleteImportGraphDefOptions(o);
  TF_DeleteBuffer(gd);
  TF_Buffer *xb = ct_read_file("tests/data/wire/mlp_x.f32");
  TF_Buffer *yb = ct_read_file("tests/data/wire/mlp_y.f32");
  CU_ASSERT_EQUAL_FATAL(xb->length, 5 * 3 * 4);
  TF_Tensor *x = ct_floats((int64_t[]){5, 3}, 2, xb->data);
  TF_Output feed = {TF_GraphOperationByName(g, "x"), 0};
  TF_Output fetch = {TF_GraphOperationByName(g, "y"), 0};
  TF_Tensor *y = ct_run1(sess, fetch, &feed, &x, 1);
  CU_ASSERT_EQUAL(TF_Dim(y, 0), 5);
  CU_ASSERT_EQUAL(TF_Dim(y, 1), 2);
  const float *got = TF_TensorData(y), *want = yb->data;
  for (int i = 0; i < 10; i++) TFS_ASSERT_FLOAT_NEAR(got[i], want[i], 1e-5);
  TF_DeleteTensor(y);
  /* the caller overwrites its input in place and runs again */
  memset(TF_TensorData(x), 0, TF_TensorByteSize(x));
  y = ct_run1(sess, fetch, &feed, &x, 1);
  TFS_ASSERT_FLOAT_NEAR(((float *)TF_TensorData(y))[0] +
                            ((float *)TF_TensorData(y))[1], 1.0, 1e-6);
  CU_ASSERT_TRUE(fabsf(((float *)TF_TensorData(y))[0] - want[0]) > 1e-4);
  TF_DeleteTensor(y);
  /* more nodes, added after runs, are seen by the next run */
  TF_Operation *y2 = ct_unary(g, "Identity", "y2", fetch.oper);
  y = ct_run1(sess, (TF_Output){y2, 0}, &feed, &x, 1);
  CU_ASSERT_EQUAL(TF_Dim(y, 0), 5);
  TF_DeleteTensor(y);
  /* zero rows give an empty tensor, not NULL */
  TF_Tensor *none = ct_floats((int64_t[]){0, 3}, 2, NULL);
  y = ct_run1(sess, fetch, &feed, &none, 1);
  CU_ASSERT_PTR_NOT_NULL(y);
  CU_ASSERT_EQUAL(TF_TensorElementCount(y), 0);
  TF_DeleteTensor(y);
  TF_DeleteTensor(none);
  TF_DeleteTensor(x);
  TF_DeleteBuffer(xb);
  TF_DeleteBuffer(yb);
  teardown();
}

/* ---- TensorFlow's error table -------------------------------------------- */

/* Runs and expects `code` / `msg`, with every output left NULL. */
static void expect_run_error(const TF_Output *feeds, TF_Tensor *const *vals,
                             int nfeeds, const TF_Output *fetches,
                             int nfetches, TF_Code code, const char *msg) {
  TF_Tensor *out[2] = {(TF_Tensor *)8, (TF_Tensor *)8};
  TF_SessionRun(sess, NULL, feeds, vals, nfeeds, fetches, out, nfetches, NULL,
                0, NULL, s);
  CT_ASSERT_STATUS(s, code, msg);
  for (int i = 0; i < nfetches; i++) CU_ASSERT_PTR_NULL(out[i]);
}

static void test_feed_fetch_errors(void) {
  setup();
  TF_Operation *x = ct_placeholder(g, "x", TF_FLOAT, (int64_t[]){-1, 3}, 2);
  TF_Operation *u = ct_placeholder(g, "u", TF_FLOAT, NULL, -2);
  TF_Operation *idn = ct_unary(g, "Identity", "idn", x);
  TF_OperationDescription *d = TF_NewOperation(g, "NoOp", "noop");
  TF_Operation *noop = TF_FinishOperation(d, s);
  open_session();
  TF_Output fx = {x, 0}, fu = {u, 0}, fi = {idn, 0};
  expect_run_error(NULL, NULL, 0, &fi, 1, TF_INVALID_ARGUMENT,
                   "You must feed a value for placeholder tensor 'x' with "
                   "dtype float and shape [?,3]\n\t [[{{node x}}]]");
  expect_run_error(NULL, NULL, 0, &fu, 1, TF_INVALID_ARGUMENT,
                   "You must feed a value for placeholder tensor 'u' with "
                   "dtype float\n\t [[{{node u}}]]");
  expect_run_error(NULL, NULL, 0, NULL, 0, TF_INVALID_ARGUMENT,
                   "Must specify at least one target to fetch or execute.");
  TF_Tensor *str = ct_strings(NULL, 0, (const char *[]){"a"}, NULL);
  expect_run_error(&fx, &str, 1, &fi, 1, TF_INVALID_ARGUMENT,
                   "Expects arg[0] to be float but string is provided");
  expect_run_error(&fx, &str, 1, &fx, 1, TF_INVALID_ARGUMENT,
                   "x:0 is both fed and fetched.");
  TF_Tensor *ft = ct_floats((int64_t[]){1, 3}, 2, (float[]){1, 2, 3});
  TF_Output two[2] = {fx, fx};
  TF_Tensor *vals[2] = {ft, ft};
  expect_run_error(two, vals, 2, &fi, 1, TF_INVALID_ARGUMENT,
                   "Endpoint \"x:0\" fed more than once.");
  TF_Output bad = {x, 5};
  expect_run_error(NULL, NULL, 0, &bad, 1, TF_OUT_OF_RANGE,
                   "Node 'x' (type: 'Placeholder', num of outputs: 1) does "
                   "not have output 5");
  bad.index = 4;
  expect_run_error(&bad, &ft, 1, &fi, 1, TF_OUT_OF_RANGE,
                   "Node 'x' (type: 'Placeholder', num of outputs: 1) does "
                   "not have output 4");
  TF_Output fnoop = {noop, 0};
  expect_run_error(NULL, NULL, 0, &fnoop, 1, TF_OUT_OF_RANGE,
                   "Node 'noop' (type: 'NoOp', num of outputs: 0) does not "
                   "have output 0");
  /* run options and metadata */
  TF_Tensor *out = NULL;
  TF_Buffer *md = TF_NewBufferFromString("x", 1);
  TF_SessionRun(sess, NULL, &fx, &ft, 1, &fi, &out, 1, NULL, 0, md, s);
  CT_ASSERT_STATUS(s, TF_INVALID_ARGUMENT,
                   "Passing non-empty run_metadata is invalid.");
  TF_DeleteBuffer(md);
  TF_Buffer *ro = TF_NewBufferFromString("\xff\xff", 2);
  TF_SessionRun(sess, ro, &fx, &ft, 1, &fi, &out, 1, NULL, 0, NULL, s);
  CT_ASSERT_STATUS(s, TF_INVALID_ARGUMENT, "Unparseable RunOptions proto");
  CU_ASSERT_PTR_NULL(out);
  TF_DeleteBuffer(ro);
  /* a closed session */
  TF_CloseSession(sess, s);
  CT_ASSERT_OK(s);
  expect_run_error(&fx, &ft, 1, &fi, 1, TF_CANCELLED,
                   "Session has been closed.");
  TF_DeleteTensor(ft);
  TF_DeleteTensor(str);
  teardown();
}

static void test_kernel_errors(void) {
  setup();
  TF_Operation *p1 = ct_placeholder(g, "p1", TF_FLOAT, NULL, -2);
  TF_Operation *p2 = ct_placeholder(g, "p2", TF_FLOAT, NULL, -2);
  TF_Operation *mm = ct_binary(g, "MatMul", "mm", p1, p2);
  TF_Operation *add = ct_binary(g, "AddV2", "add", p1, p2);
  open_session();
  TF_Output feeds[2] = {{p1, 0}, {p2, 0}};
  TF_Tensor *a = ct_floats((int64_t[]){1, 5}, 2, (float[5]){0});
  TF_Tensor *b = ct_floats((int64_t[]){4, 5}, 2, (float[20]){0});
  TF_Tensor *vals[2] = {a, b};
  TF_Output f = {mm, 0};
  expect_run_error(feeds, vals, 2, &f, 1, TF_INVALID_ARGUMENT,
                   "Matrix size-incompatible: In[0]: [1,5], In[1]: [4,5]\n\t "
                   "[[{{node mm}}]]");
  TF_DeleteTensor(a);
  TF_DeleteTensor(b);
  vals[0] = a = ct_floats((int64_t[]){2, 3}, 2, (float[6]){0});
  vals[1] = b = ct_floats((int64_t[]){4}, 1, (float[4]){0});
  f.oper = add;
  expect_run_error(feeds, vals, 2, &f, 1, TF_INVALID_ARGUMENT,
                   "Incompatible shapes: [2,3] vs. [4]\n\t [[{{node add}}]]");
  TF_DeleteTensor(a);
  TF_DeleteTensor(b);
  teardown();
}

/* ---- variables ----------------------------------------------------------- */

static void test_resource_variables(void) {
  setup();
  TF_OperationDescription *d = TF_NewOperation(g, "VarHandleOp", "v");
  TF_SetAttrType(d, "dtype", TF_FLOAT);
  TF_SetAttrShape(d, "shape", NULL, 0);
  TF_SetAttrString(d, "shared_name", "v", 1);
  TF_Operation *v = TF_FinishOperation(d, s);
  CT_ASSERT_OK(s);
  TF_Operation *init = ct_scalar_float(g, "init", 10);
  TF_Operation *one = ct_scalar_float(g, "one", 1);
  d = TF_NewOperation(g, "AssignVariableOp", "assign");
  TF_AddInput(d, (TF_Output){v, 0});
  TF_AddInput(d, (TF_Output){init, 0});
  TF_Operation *assign = TF_FinishOperation(d, s);
  CT_ASSERT_OK(s);
  d = TF_NewOperation(g, "AssignAddVariableOp", "inc");
  TF_AddInput(d, (TF_Output){v, 0});
  TF_AddInput(d, (TF_Output){one, 0});
  TF_Operation *inc = TF_FinishOperation(d, s);
  CT_ASSERT_OK(s);
  d = TF_NewOperation(g, "ReadVariableOp", "read");
  TF_AddInput(d, (TF_Output){v, 0});
  TF_SetAttrType(d, "dtype", TF_FLOAT);
  TF_Operation *read = TF_FinishOperation(d, s);
  CT_ASSERT_OK(s);
  d = TF_NewOperation(g, "VarHandleOp", "w");
  TF_SetAttrType(d, "dtype", TF_FLOAT);
  TF_SetAttrShape(d, "shape", NULL, 0);
  TF_SetAttrString(d, "shared_name", "w", 1);
  TF_Operation *w = TF_FinishOperation(d, s);
  CT_ASSERT_OK(s);
  d = TF_NewOperation(g, "AssignVariableOp", "assign_w");
  TF_AddInput(d, (TF_Output){w, 0});
  TF_AddInput(d, (TF_Output){init, 0});
  TF_Operation *assign_w = TF_FinishOperation(d, s);
  CT_ASSERT_OK(s);
  open_session();
  TF_Output fr = {read, 0};
  TF_Tensor *out = (TF_Tensor *)8;
  TF_SessionRun(sess, NULL, NULL, NULL, 0, &fr, &out, 1, NULL, 0, NULL, s);
  /* TensorFlow 2.21's words; nothing is in the container yet */
  CT_ASSERT_STATUS(s, TF_FAILED_PRECONDITION,
                   "Could not find variable v. This could mean that the "
                   "variable has been deleted. In TF1, it can also mean the "
                   "variable is uninitialized. Debug info: "
                   "container=localhost, status error message=Container "
                   "localhost does not exist. (Could not find resource: "
                   "localhost/v)\n\t [[{{node read}}]]");
  CU_ASSERT_PTR_NULL(out);
  const TF_Operation *t1[1] = {assign}, *t2[1] = {inc}, *tw[1] = {assign_w};
  TF_SessionRun(sess, NULL, NULL, NULL, 0, NULL, NULL, 0, t2, 1, NULL, s);
  CT_ASSERT_STATUS(s, TF_NOT_FOUND,
                   "Container localhost does not exist. (Could not find "
                   "resource: localhost/v)\n\t [[{{node inc}}]]");
  /* once another variable lives in the container, only v is missing */
  TF_SessionRun(sess, NULL, NULL, NULL, 0, NULL, NULL, 0, tw, 1, NULL, s);
  CT_ASSERT_OK(s);
  TF_SessionRun(sess, NULL, NULL, NULL, 0, &fr, &out, 1, NULL, 0, NULL, s);
  CT_ASSERT_STATUS(s, TF_FAILED_PRECONDITION,
                   "Could not find variable v. This could mean that the "
                   "variable has been deleted. In TF1, it can also mean the "
                   "variable is uninitialized. Debug info: "
                   "container=localhost, status error message=Resource "
                   "localhost/v/N10tensorflow3VarE does not exist.\n\t "
                   "[[{{node read}}]]");
  TF_SessionRun(sess, NULL, NULL, NULL, 0, NULL, NULL, 0, t2, 1, NULL, s);
  CT_ASSERT_STATUS(s, TF_NOT_FOUND,
                   "Resource localhost/v/N10tensorflow3VarE does not "
                   "exist.\n\t [[{{node inc}}]]");
  TF_SessionRun(sess, NULL, NULL, NULL, 0, NULL, NULL, 0, t1, 1, NULL, s);
  CT_ASSERT_OK(s);
  for (int i = 0; i < 3; i++) {
    TF_SessionRun(sess, NULL, NULL, NULL, 0, NULL, NULL, 0, t2, 1, NULL, s);
    CT_ASSERT_OK(s);
  }
  out = ct_run1(sess, fr, NULL, NULL, 0);
  CU_ASSERT_EQUAL(*(float *)TF_TensorData(out), 13.0f);
  TF_DeleteTensor(out);
  /* a second session on the same graph has its own variables */
  TF_Session *other = TF_NewSession(g, opts, s);
  TF_SessionRun(other, NULL, NULL, NULL, 0, &fr, &out, 1, NULL, 0, NULL, s);
  CU_ASSERT_EQUAL(TF_GetCode(s), TF_FAILED_PRECONDITION);
  TF_DeleteSession(other, s); /* without TF_CloseSession */
  CT_ASSERT_OK(s);
  teardown();
}

static void test_ref_variable_uninitialized(void) {
  setup();
  TF_OperationDescription *d = TF_NewOperation(g, "VariableV2", "vv");
  TF_SetAttrType(d, "dtype", TF_FLOAT);
  TF_SetAttrShape(d, "shape", NULL, 0);
  TF_Operation *vv = TF_FinishOperation(d, s);
  CT_ASSERT_OK(s);
  TF_Operation *rv = ct_unary(g, "Identity", "rv", vv);
  open_session();
  TF_Output f = {rv, 0};
  expect_run_error(NULL, NULL, 0, &f, 1, TF_FAILED_PRECONDITION,
                   "Attempting to use uninitialized value vv\n\t "
                   "[[{{node rv}}]]");
  teardown();
}

/* ---- strings ------------------------------------------------------------- */

static int g_string_deallocs;
static void free_strings(void *data, size_t len, void *arg) {
  (void)arg;
  for (size_t i = 0; i < len / sizeof(TF_TString); i++)
    TF_StringDealloc((TF_TString *)data + i);
  free(data);
  g_string_deallocs++;
}

static void test_strings_through_identity(void) {
  setup();
  TF_Operation *p = ct_placeholder(g, "p", TF_STRING, NULL, -2);
  TF_Operation *idn = ct_unary(g, "Identity", "idn", p);
  open_session();
  static const char big[] = "a string longer than twenty-two bytes";
  const char *strs[4] = {"a\0b", "", big, "xyz"};
  size_t lens[4] = {3, 0, sizeof big - 1, 3};
  TF_Tensor *in = ct_strings((int64_t[]){2, 2}, 2, strs, lens);
  TF_Output feed = {p, 0}, fetch = {idn, 0};
  TF_Tensor *out = ct_run1(sess, fetch, &feed, &in, 1);
  CU_ASSERT_EQUAL(TF_TensorType(out), TF_STRING);
  CU_ASSERT_EQUAL(TF_TensorByteSize(out), 4 * sizeof(TF_TString));
  const TF_TString *e = TF_TensorData(out);
  for (int i = 0; i < 4; i++) {
    CU_ASSERT_EQUAL(TF_StringGetSize(&e[i]), lens[i]);
    CU_ASSERT_EQUAL(memcmp(TF_StringGetDataPointer(&e[i]), strs[i], lens[i]),
                    0);
  }
  CU_ASSERT_EQUAL(TF_TString_GetType(&e[2]), TF_TSTR_LARGE);
  TF_DeleteTensor(out);
  TF_DeleteTensor(in);
  /* a scalar string built on a caller's TF_TString array: the output may
   * share the caller's memory, which goes back through the deallocator
   * once the last tensor using it is deleted */
  TF_TString *mine = aligned_alloc(64, 64);
  TF_StringInit(mine);
  TF_StringCopy(mine, big, sizeof big - 1);
  g_string_deallocs = 0;
  in = TF_NewTensor(TF_STRING, NULL, 0, mine, sizeof(TF_TString),
                    free_strings, NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL(in);
  out = ct_run1(sess, fetch, &feed, &in, 1);
  TF_DeleteTensor(in);
  CU_ASSERT_EQUAL(TF_NumDims(out), 0);
  CU_ASSERT_EQUAL(TF_StringGetSize(TF_TensorData(out)), sizeof big - 1);
  CU_ASSERT_EQUAL(memcmp(TF_StringGetDataPointer(TF_TensorData(out)), big,
                         sizeof big - 1), 0);
  TF_DeleteTensor(out);
  CU_ASSERT_EQUAL(g_string_deallocs, 1);
  teardown();
}

static void test_legacy_string_tensors(void) {
  setup();
  TF_Operation *p = ct_placeholder(g, "p", TF_STRING, NULL, -2);
  TF_Operation *idn = ct_unary(g, "Identity", "idn", p);
  open_session();
  /* two elements: offsets table, then varint-prefixed bytes */
  const char *src[2] = {"hello", "tf"};
  size_t len = 2 * sizeof(uint64_t);
  for (int i = 0; i < 2; i++) len += TF_StringEncodedSize(strlen(src[i]));
  TF_Tensor *t = TF_AllocateTensor(TF_STRING, (int64_t[]){2}, 1, len);
  CU_ASSERT_EQUAL(TF_TensorByteSize(t), len);
  char *base = TF_TensorData(t), *data = base + 2 * sizeof(uint64_t);
  uint64_t off = 0;
  for (int i = 0; i < 2; i++) {
    memcpy(base + i * sizeof(uint64_t), &off, sizeof off);
    off += TF_StringEncode(src[i], strlen(src[i]), data + off,
                           len - 16 - off, s);
    CT_ASSERT_OK(s);
  }
  TF_Output feed = {p, 0}, fetch = {idn, 0};
  TF_Tensor *out = ct_run1(sess, fetch, &feed, &t, 1);
  const TF_TString *e = TF_TensorData(out);
  CU_ASSERT_EQUAL(TF_StringGetSize(&e[1]), 2);
  CU_ASSERT_EQUAL(memcmp(TF_StringGetDataPointer(&e[0]), "hello", 5), 0);
  TF_DeleteTensor(out);
  /* an offset past the data */
  uint64_t far = 1000;
  memcpy(base + sizeof(uint64_t), &far, sizeof far);
  expect_run_error(&feed, &t, 1, &fetch, 1, TF_INVALID_ARGUMENT,
                   "Malformed TF_STRING tensor; element 1 out of range");
  TF_DeleteTensor(t);
  /* too short to hold the offsets of 4 elements */
  t = TF_AllocateTensor(TF_STRING, (int64_t[]){4}, 1, 20);
  CU_ASSERT_EQUAL(TF_TensorByteSize(t), 20);
  expect_run_error(&feed, &t, 1, &fetch, 1, TF_INVALID_ARGUMENT,
                   "Malformed TF_STRING tensor; too short to hold number of "
                   "elements");
  TF_DeleteTensor(t);
  teardown();
}

/* ---- configs, devices ---------------------------------------------------- */

static void test_config_and_devices(void) {
  setup();
  /* intra_op_parallelism_threads: 1, inter_op_parallelism_threads: 1 */
  static const unsigned char threads[] = {0x10, 0x01, 0x28, 0x01};
  TF_SetConfig(opts, threads, sizeof threads, s);
  CT_ASSERT_OK(s);
  /* gpu_options {per_process_gpu_memory_fraction: 0.5 allow_growth: true}
   * allow_soft_placement: true */
  static const unsigned char gpu[] = {0x32, 0x0b, 0x09, 0x00, 0x00, 0x00,
                                      0x00, 0x00, 0x00, 0xe0, 0x3f, 0x20,
                                      0x01, 0x38, 0x01};
  TF_SetConfig(opts, gpu, sizeof gpu, s);
  CT_ASSERT_OK(s);
  TF_SetConfig(opts, "\xff\xff", 2, s);
  CT_ASSERT_STATUS(s, TF_INVALID_ARGUMENT, "Unparseable ConfigProto");
  /* far more threads than cores */
  static const unsigned char many[] = {0x10, 0x40, 0x28, 0x40};
  TF_SetConfig(opts, many, sizeof many, s);
  CT_ASSERT_OK(s);
  TF_Operation *c = ct_scalar_float(g, "c", 2);
  TF_Operation *sq = ct_binary(g, "Mul", "sq", c, c);
  open_session();
  TF_Tensor *out = ct_run1(sess, (TF_Output){sq, 0}, NULL, NULL, 0);
  CU_ASSERT_EQUAL(*(float *)TF_TensorData(out), 4.0f);
  TF_DeleteTensor(out);
  /* the CPU, then the machine's GPUs (none on most) */
  TF_DeviceList *dl = TF_SessionListDevices(sess, s);
  CT_ASSERT_OK(s);
  int n = 1 + tu_gpu_count();
  CU_ASSERT_EQUAL(TF_DeviceListCount(dl), n);
  CU_ASSERT_STRING_EQUAL(TF_DeviceListName(dl, 0, s),
                         "/job:localhost/replica:0/task:0/device:CPU:0");
  CU_ASSERT_STRING_EQUAL(TF_DeviceListType(dl, 0, s), "CPU");
  CU_ASSERT_EQUAL(TF_DeviceListMemoryBytes(dl, 0, s), 268435456);
  for (int i = 1; i < n; i++)
    CU_ASSERT_STRING_EQUAL(TF_DeviceListType(dl, i, s), "GPU");
  TF_DeviceListName(dl, n, s);
  CT_ASSERT_STATUS(s, TF_INVALID_ARGUMENT, "index out of bounds");
  TF_DeviceListType(NULL, 0, s);
  CT_ASSERT_STATUS(s, TF_INVALID_ARGUMENT, "list is null!");
  TF_DeleteDeviceList(dl);
  TF_ExtendSession(sess, s);
  CT_ASSERT_OK(s);
  teardown();
  setup();
  TF_SetTarget(opts, "grpc://localhost:2222");
  CU_ASSERT_PTR_NULL(TF_NewSession(g, opts, s));
  CT_ASSERT_PREFIX(s, TF_UNIMPLEMENTED, "Session target 'grpc://");
  TF_SetTarget(opts, "local");
  open_session();
  teardown();
}

/* tfsess's limits travel in ConfigProto field 7600 (TensorFlow keeps it
 * as an unknown field): TF_SetConfig turns them on. */
static void test_config_limits(void) {
  setup();
  /* tfsess_limits { max_tensor_bytes: 16 } */
  static const unsigned char lim[] = {0x82, 0xdb, 0x03, 0x02, 0x10, 0x10};
  TF_SetConfig(opts, lim, sizeof lim, s);
  CT_ASSERT_OK(s);
  int64_t two = 2;
  TF_Operation *dims = ct_placeholder(g, "dims", TF_INT32, &two, 1);
  TF_Operation *one = ct_scalar_float(g, "one", 1);
  TF_OperationDescription *d = TF_NewOperation(g, "Fill", "fill");
  TF_AddInput(d, (TF_Output){dims, 0});
  TF_AddInput(d, (TF_Output){one, 0});
  TF_Operation *fill = TF_FinishOperation(d, s);
  CT_ASSERT_OK(s);
  open_session();
  int32_t small[2] = {2, 2}, big[2] = {2, 3};
  TF_Output in = {dims, 0}, out = {fill, 0};
  TF_Tensor *v = ct_int32s(&two, 1, small);
  TF_Tensor *r = ct_run1(sess, out, &in, &v, 1);
  CU_ASSERT_EQUAL(TF_TensorByteSize(r), 16);
  TF_DeleteTensor(r);
  TF_DeleteTensor(v);
  v = ct_int32s(&two, 1, big);
  r = NULL;
  TF_SessionRun(sess, NULL, &in, &v, 1, &out, &r, 1, NULL, 0, NULL, s);
  CT_ASSERT_STATUS(s, TF_RESOURCE_EXHAUSTED,
                   "Output 0 of shape [2,3] and type float needs 24 bytes, "
                   "over the session's limit of 16 bytes per tensor\n\t "
                   "[[{{node fill}}]]");
  CU_ASSERT_PTR_NULL(r);
  TF_DeleteTensor(v);
  teardown();
}

/* ---- the deprecated session ---------------------------------------------- */

static void test_deprecated_session(void) {
  setup();
  TF_Operation *x = ct_placeholder(g, "x", TF_FLOAT, NULL, 0);
  TF_Operation *two = ct_scalar_float(g, "two", 2);
  ct_binary(g, "Mul", "y", x, two);
  TF_Buffer *gd = TF_NewBuffer();
  TF_GraphToGraphDef(g, gd, s);
  CT_ASSERT_OK(s);
  TF_DeprecatedSession *ds = TF_NewDeprecatedSession(opts, s);
  CT_ASSERT_OK(s);
  TF_ExtendGraph(ds, gd->data, gd->length, s);
  CT_ASSERT_OK(s);
  TF_ExtendGraph(ds, "\xff", 1, s);
  CT_ASSERT_STATUS(s, TF_INVALID_ARGUMENT, "Invalid GraphDef");
  TF_DeleteBuffer(gd);
  TF_Tensor *in = ct_floats(NULL, 0, (float[]){21});
  const char *feeds[1] = {"x:0"}, *fetches[1] = {"y:0"};
  TF_Tensor *out = NULL;
  TF_Run(ds, NULL, feeds, &in, 1, fetches, &out, 1, NULL, 0, NULL, s);
  CT_ASSERT_OK(s);
  CU_ASSERT_EQUAL(*(float *)TF_TensorData(out), 42.0f);
  TF_DeleteTensor(out);
  const char *missing[1] = {"nope:0"}, *bad_index[1] = {"y:3"};
  TF_Run(ds, NULL, feeds, &in, 1, missing, &out, 1, NULL, 0, NULL, s);
  CT_ASSERT_STATUS(s, TF_INVALID_ARGUMENT,
                   "Tensor nope:0, specified in either feed_devices or "
                   "fetch_devices was not found in the Graph");
  TF_Run(ds, NULL, missing, &in, 1, fetches, &out, 1, NULL, 0, NULL, s);
  CT_ASSERT_STATUS(s, TF_INVALID_ARGUMENT,
                   "Tensor nope:0, specified in either feed_devices or "
                   "fetch_devices was not found in the Graph");
  TF_Run(ds, NULL, feeds, &in, 1, bad_index, &out, 1, NULL, 0, NULL, s);
  CT_ASSERT_STATUS(s, TF_OUT_OF_RANGE,
                   "Node 'y' (type: 'Mul', num of outputs: 1) does not have "
                   "output 3");
  CU_ASSERT_PTR_NULL(out);
  const char *targets[1] = {"nope"};
  TF_Run(ds, NULL, NULL, NULL, 0, NULL, NULL, 0, targets, 1, NULL, s);
  CT_ASSERT_STATUS(s, TF_NOT_FOUND,
                   "PruneForTargets: Some target nodes not found: nope ");
  TF_DeviceList *dl = TF_DeprecatedSessionListDevices(ds, s);
  CU_ASSERT_EQUAL(TF_DeviceListCount(dl), 1 + tu_gpu_count());
  TF_DeleteDeviceList(dl);
  TF_DeleteTensor(in);
  TF_CloseDeprecatedSession(ds, s);
  TF_DeleteDeprecatedSession(ds, s);
  CT_ASSERT_OK(s);
  teardown();
}

/* ---- what tfsess does not support ---------------------------------------- */

static void expect_unimplemented(const char *fn) {
  CU_ASSERT_EQUAL(TF_GetCode(s), TF_UNIMPLEMENTED);
  char want[128];
  snprintf(want, sizeof want, "%s is not supported by tfsess", fn);
  CT_ASSERT_PREFIX(s, TF_UNIMPLEMENTED, want);
}

static void test_unsupported(void) {
  setup();
  const char *tags[1] = {"serve"};
  /* SavedModels load (tests/saved_model, examples/c_api/saved_model);
   * a missing one is TensorFlow's NOT_FOUND */
  CU_ASSERT_PTR_NULL(TF_LoadSessionFromSavedModel(opts, NULL, "/nonexistent",
                                                  tags, 1, g, NULL, s));
  CT_ASSERT_PREFIX(s, TF_NOT_FOUND,
                   "Could not find SavedModel .pb or .pbtxt at supplied "
                   "export directory path: /nonexistent.");
  CU_ASSERT_PTR_NULL(TF_LoadLibrary("libfoo.so", s));
  expect_unimplemented("TF_LoadLibrary");
  CU_ASSERT_PTR_NULL(TF_NewServer("", 0, s));
  expect_unimplemented("TF_NewServer");
  TF_Operation *x = ct_scalar_float(g, "x", 1);
  TF_Output y = {x, 0};
  /* x has no input 0 */
  TF_UpdateEdge(g, y, (TF_Input){x, 0}, s);
  CT_ASSERT_STATUS(s, TF_OUT_OF_RANGE, "Cannot update edge. Input index [0] "
                   "is greater than the number of total inputs [0].");
  open_session();
  const char *handle = "x";
  TF_SessionPRunSetup(sess, NULL, 0, &y, 1, NULL, 0, &handle, s);
  expect_unimplemented("TF_SessionPRunSetup");
  CU_ASSERT_PTR_NULL(handle);
  TF_Buffer ol = TF_GetOpList(NULL);
  CU_ASSERT_EQUAL(ol.length, 0);
  CU_ASSERT_PTR_NULL(TF_NewApiDefMap(NULL, s));
  expect_unimplemented("TF_NewApiDefMap");
  teardown();
}

static const tfs_test_case run_cases[] = {
    {"run_rules", test_run_rules},
    {"graph_grows_after_session", test_graph_grows_after_session},
    {"feed_fetch_errors", test_feed_fetch_errors},
    {"kernel_errors", test_kernel_errors},
    {NULL, NULL}};

static const tfs_test_case state_cases[] = {
    {"resource_variables", test_resource_variables},
    {"ref_variable_uninitialized", test_ref_variable_uninitialized},
    {"strings_through_identity", test_strings_through_identity},
    {"legacy_string_tensors", test_legacy_string_tensors},
    {NULL, NULL}};

/* ---- log listeners ------------------------------------------------------- */

static char g_heard[256];

static void listener(const char *text) {
  size_t n = strlen(g_heard);
  snprintf(g_heard + n, sizeof g_heard - n, "%s", text);
}

/* PrintV2 hands its text to the listeners instead of writing it; the
 * legacy Print op does not (it writes to stderr), as in TensorFlow 2.21.
 * Listeners stay registered, so this runs last. */
static void test_log_listener(void) {
  setup();
  TF_Operation *x = ct_scalar_float(g, "x", 3);
  TF_OperationDescription *d = TF_NewOperation(g, "Print", "print");
  TF_AddInput(d, (TF_Output){x, 0});
  TF_AddInputList(d, (TF_Output[]){{x, 0}}, 1);
  TF_SetAttrString(d, "message", "value: ", 7);
  TF_Operation *print = TF_FinishOperation(d, s);
  CT_ASSERT_OK(s);
  TF_Tensor *hello = ct_strings(NULL, 0, (const char *[]){"hello"}, NULL);
  d = TF_NewOperation(g, "Const", "hello");
  TF_SetAttrTensor(d, "value", hello, s);
  TF_SetAttrType(d, "dtype", TF_STRING);
  TF_Operation *h = TF_FinishOperation(d, s);
  CT_ASSERT_OK(s);
  TF_DeleteTensor(hello);
  d = TF_NewOperation(g, "PrintV2", "print_v2");
  TF_AddInput(d, (TF_Output){h, 0});
  TF_SetAttrString(d, "output_stream", "stdout", 6);
  TF_SetAttrString(d, "end", "!\n", 2);
  TF_Operation *print_v2 = TF_FinishOperation(d, s);
  CT_ASSERT_OK(s);
  TF_RegisterLogListener(listener);
  open_session();
  TF_Tensor *out = ct_run1(sess, (TF_Output){print, 0}, NULL, NULL, 0);
  CU_ASSERT_EQUAL(*(float *)TF_TensorData(out), 3.0f);
  TF_DeleteTensor(out);
  const TF_Operation *t[1] = {print_v2};
  TF_SessionRun(sess, NULL, NULL, NULL, 0, NULL, NULL, 0, t, 1, NULL, s);
  CT_ASSERT_OK(s);
  CU_ASSERT_STRING_EQUAL(g_heard, "hello!\n");
  teardown();
}

static const tfs_test_case misc_cases[] = {
    {"config_and_devices", test_config_and_devices},
    {"config_limits", test_config_limits},
    {"deprecated_session", test_deprecated_session},
    {"unsupported", test_unsupported},
    {"log_listener", test_log_listener},
    {NULL, NULL}};

const tfs_test_suite tfs_test_suites[] = {
    {"c_api_run", run_cases},
    {"c_api_state", state_cases},
    {"c_api_misc", misc_cases},
    {NULL, NULL}};
