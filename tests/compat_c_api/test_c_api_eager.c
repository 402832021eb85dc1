/*
 * tests/compat_c_api/test_c_api_eager.c - eager/c_api.h: contexts and
 * their options, tensor handles (resolve, device names, copies), ops with
 * type attrs inferred from inputs and "first set wins", attr and argument
 * queries, TensorFlow's eager errors, and one context used from many
 * threads at once.
 */
#include <pthread.h>
#include <stdlib.h>

#include "capitest.h"

static TF_Status *s;
static TFE_Context *ctx;

static void setup(void) {
  s = TF_NewStatus();
  TFE_ContextOptions *o = TFE_NewContextOptions();
  static const unsigned char threads[] = {0x10, 0x02, 0x28, 0x02};
  TFE_ContextOptionsSetConfig(o, threads, sizeof threads, s);
  CT_ASSERT_OK(s);
  TFE_ContextOptionsSetAsync(o, 0);
  TFE_ContextOptionsSetDevicePlacementPolicy(o, TFE_DEVICE_PLACEMENT_SILENT);
  ctx = TFE_NewContext(o, s);
  TFE_DeleteContextOptions(o); /* programs delete their options at once */
  CT_ASSERT_OK(s);
}

static void teardown(void) {
  TFE_DeleteContext(ctx);
  TF_DeleteStatus(s);
}

static TFE_TensorHandle *scalar(float v) {
  TF_Tensor *t = ct_floats(NULL, 0, &v);
  TFE_TensorHandle *h = TFE_NewTensorHandle(t, s);
  CT_ASSERT_OK(s);
  TF_DeleteTensor(t); /* the handle keeps what it needs */
  return h;
}

static float value_of(TFE_TensorHandle *h) {
  TF_Tensor *t = TFE_TensorHandleResolve(h, s);
  CT_ASSERT_OK(s);
  float v = *(float *)TF_TensorData(t);
  TF_DeleteTensor(t);
  return v;
}

/* Runs a two-input op and returns its single output. */
static TFE_TensorHandle *binary(const char *type, TFE_TensorHandle *a,
                                TFE_TensorHandle *b, TF_Status *st) {
  TFE_Op *op = TFE_NewOp(ctx, type, st);
  TFE_OpAddInput(op, a, st);
  TFE_OpAddInput(op, b, st);
  TFE_TensorHandle *r = NULL;
  int n = 1;
  TFE_Execute(op, &r, &n, st);
  TFE_DeleteOp(op);
  return r;
}

/* ---- handles ------------------------------------------------------------- */

static void test_handles(void) {
  setup();
  int64_t dims[2] = {2, 3};
  TF_Tensor *t = ct_floats(dims, 2, (float[]){1, 2, 3, 4, 5, 6});
  TFE_TensorHandle *h = TFE_NewTensorHandle(t, s);
  CT_ASSERT_OK(s);
  TF_DeleteTensor(t);
  CU_ASSERT_EQUAL(TFE_TensorHandleDataType(h), TF_FLOAT);
  CU_ASSERT_EQUAL(TFE_TensorHandleNumDims(h, s), 2);
  CU_ASSERT_EQUAL(TFE_TensorHandleDim(h, 1, s), 3);
  CU_ASSERT_EQUAL(TFE_TensorHandleNumElements(h, s), 6);
  TFE_TensorHandleDim(h, 2, s);
  CU_ASSERT_EQUAL(TF_GetCode(s), TF_INVALID_ARGUMENT);
  CU_ASSERT_STRING_EQUAL(TFE_TensorHandleDeviceName(h, s),
                         "/job:localhost/replica:0/task:0/device:CPU:0");
  CU_ASSERT_STRING_EQUAL(TFE_TensorHandleBackingDeviceName(h, s),
                         "/job:localhost/replica:0/task:0/device:CPU:0");
  TFE_TensorHandle *same = TFE_TensorHandleCopySharingTensor(h, s);
  TFE_TensorHandle *copy = TFE_TensorHandleCopyToDevice(h, ctx, "/device:CPU:0",
                                                        s);
  CT_ASSERT_OK(s);
  CU_ASSERT_PTR_NULL(TFE_TensorHandleCopyToDevice(h, ctx, "/device:GPU:7", s));
  CT_ASSERT_STATUS(s, TF_INVALID_ARGUMENT, "/device:GPU:7 unknown device.");
  TFE_DeleteTensorHandle(h);
  TF_Tensor *r = TFE_TensorHandleResolve(same, s);
  CT_ASSERT_OK(s);
  CU_ASSERT_EQUAL(((float *)TF_TensorData(r))[5], 6.0f);
  TF_DeleteTensor(r);
  TFE_TensorDebugInfo *di = TFE_TensorHandleTensorDebugInfo(copy, s);
  CU_ASSERT_EQUAL(TFE_TensorDebugInfoOnDeviceNumDims(di), 2);
  CU_ASSERT_EQUAL(TFE_TensorDebugInfoOnDeviceDim(di, 0), 2);
  TFE_DeleteTensorDebugInfo(di);
  TFE_DeleteTensorHandle(same);
  TFE_DeleteTensorHandle(copy);
  /* the CPU, then the machine's GPUs (none on most) */
  TF_DeviceList *dl = TFE_ContextListDevices(ctx, s);
  int n = 1 + tu_gpu_count();
  CU_ASSERT_EQUAL_FATAL(TF_DeviceListCount(dl), n);
  CU_ASSERT_STRING_EQUAL(TF_DeviceListType(dl, 0, s), "CPU");
  for (int i = 1; i < n; i++)
    CU_ASSERT_STRING_EQUAL(TF_DeviceListType(dl, i, s), "GPU");
  TF_DeleteDeviceList(dl);
  teardown();
}

/* ---- ops ----------------------------------------------------------------- */

static void test_execute(void) {
  setup();
  TFE_TensorHandle *a = scalar(2), *b = scalar(5);
  TFE_Op *op = TFE_NewOp(ctx, "Mul", s);
  CT_ASSERT_OK(s);
  CU_ASSERT_STRING_EQUAL(TFE_OpGetName(op, s), "Mul");
  CU_ASSERT_PTR_EQUAL(TFE_OpGetContext(op, s), ctx);
  CU_ASSERT_STRING_EQUAL(TFE_OpGetDevice(op, s), "");
  TFE_OpAddInput(op, a, s);
  TFE_OpAddInput(op, b, s);
  CT_ASSERT_OK(s);
  TFE_DeleteTensorHandle(b); /* the op holds its own reference */
  CU_ASSERT_EQUAL(TFE_OpGetFlatInputCount(op, s), 2);
  CU_ASSERT_EQUAL(TFE_TensorHandleDataType(TFE_OpGetFlatInput(op, 1, s)),
                  TF_FLOAT);
  unsigned char is_list = 9;
  CU_ASSERT_EQUAL(TFE_OpGetAttrType(op, "T", &is_list, s), TF_ATTR_TYPE);
  CU_ASSERT_EQUAL(is_list, 0);
  TFE_OpGetAttrType(op, "zz", &is_list, s);
  CT_ASSERT_STATUS(s, TF_INVALID_ARGUMENT,
                   "Attribute 'zz' does not exist for this operation");
  CU_ASSERT_EQUAL(TFE_OpGetInputLength(op, "x", s), 1);
  CU_ASSERT_EQUAL(TFE_OpGetOutputLength(op, "z", s), 1);
  TFE_OpGetInputLength(op, "zz", s);
  CT_ASSERT_STATUS(s, TF_INVALID_ARGUMENT, "Input 'zz' not found");
  TFE_TensorHandle *r[2] = {NULL, NULL};
  int n = 0;
  TFE_Execute(op, r, &n, s);
  CT_ASSERT_STATUS(s, TF_INVALID_ARGUMENT,
                   "Expecting 1 outputs, but *num_retvals is 0");
  n = 2;
  TFE_Execute(op, r, &n, s);
  CT_ASSERT_OK(s);
  CU_ASSERT_EQUAL(n, 1);
  CU_ASSERT_EQUAL(value_of(r[0]), 10.0f);
  TFE_DeleteTensorHandle(r[0]);
  n = 1;
  TFE_Execute(op, r, &n, s); /* an op may run again */
  CT_ASSERT_OK(s);
  CU_ASSERT_EQUAL(value_of(r[0]), 10.0f);
  CU_ASSERT_STRING_EQUAL(TFE_OpGetDevice(op, s),
                         "/job:localhost/replica:0/task:0/device:CPU:0");
  TFE_DeleteTensorHandle(r[0]);
  TFE_DeleteOp(op);
  unsigned char list = 0;
  CU_ASSERT_EQUAL(TFE_OpNameGetAttrType(ctx, "ConcatV2", "N", &list, s),
                  TF_ATTR_INT);
  TFE_DeleteTensorHandle(a);
  teardown();
}

static void test_eager_errors(void) {
  setup();
  CU_ASSERT_PTR_NULL(TFE_NewOp(ctx, "Nope", s));
  CT_ASSERT_PREFIX(s, TF_NOT_FOUND,
                   "'Nope' is neither a type of a primitive operation nor a "
                   "name of a function registered in binary running on ");
  TFE_TensorHandle *f = scalar(1);
  TF_Tensor *it = ct_int32s(NULL, 0, (int32_t[]){3});
  TFE_TensorHandle *i = TFE_NewTensorHandle(it, s);
  TF_DeleteTensor(it);
  CU_ASSERT_PTR_NULL(binary("AddV2", f, i, s));
  CT_ASSERT_STATUS(s, TF_INVALID_ARGUMENT,
                   "cannot compute AddV2 as input #1(zero-based) was "
                   "expected to be a float tensor but is a int32 tensor");
  TFE_Op *op = TFE_NewOp(ctx, "Mul", s);
  TFE_OpSetDevice(op, "garbage!!", s);
  CT_ASSERT_PREFIX(s, TF_INVALID_ARGUMENT,
                   "Malformed device specification 'garbage!!' in eager op");
  TFE_DeleteOp(op);
  TFE_ContextAddFunctionDef(ctx, "", 0, s);
  CT_ASSERT_PREFIX(s, TF_UNIMPLEMENTED,
                   "TFE_ContextAddFunctionDef is not supported by tfsess");
  TFE_ContextSetServerDef(ctx, 0, "", 0, s);
  CU_ASSERT_EQUAL(TF_GetCode(s), TF_UNIMPLEMENTED);
  CU_ASSERT_EQUAL(TFE_ContextHasFunction(ctx, "f"), 0);
  TFE_DeleteTensorHandle(f);
  TFE_DeleteTensorHandle(i);
  teardown();
}

/* Fill with int64 dims, then an explicit index_type = int32: the inferred
 * int64 wins and the op works, as in TensorFlow. */
static void test_first_set_wins(void) {
  setup();
  int64_t two[1] = {2};
  TF_Tensor *dt = TF_AllocateTensor(TF_INT64, two, 1, 16);
  ((int64_t *)TF_TensorData(dt))[0] = 2;
  ((int64_t *)TF_TensorData(dt))[1] = 3;
  TFE_TensorHandle *dims = TFE_NewTensorHandle(dt, s);
  TF_DeleteTensor(dt);
  TFE_TensorHandle *v = scalar(7);
  TFE_Op *op = TFE_NewOp(ctx, "Fill", s);
  TFE_OpAddInput(op, dims, s);
  TFE_OpAddInput(op, v, s);
  TFE_OpSetAttrType(op, "index_type", TF_INT32);
  TFE_OpSetAttrType(op, "T", TF_INT32);
  TFE_TensorHandle *r = NULL;
  int n = 1;
  TFE_Execute(op, &r, &n, s);
  CT_ASSERT_OK(s);
  CU_ASSERT_EQUAL(TFE_TensorHandleDataType(r), TF_FLOAT);
  CU_ASSERT_EQUAL(TFE_TensorHandleDim(r, 1, s), 3);
  TF_Tensor *t = TFE_TensorHandleResolve(r, s);
  CU_ASSERT_EQUAL(((float *)TF_TensorData(t))[5], 7.0f);
  TF_DeleteTensor(t);
  TFE_DeleteTensorHandle(r);
  TFE_DeleteOp(op);
  /* Shape with out_type int64 */
  op = TFE_NewOp(ctx, "Shape", s);
  TFE_OpAddInput(op, dims, s);
  TFE_OpSetAttrType(op, "out_type", TF_INT64);
  n = 1;
  TFE_Execute(op, &r, &n, s);
  CT_ASSERT_OK(s);
  CU_ASSERT_EQUAL(TFE_TensorHandleDataType(r), TF_INT64);
  TFE_DeleteTensorHandle(r);
  TFE_DeleteOp(op);
  TFE_DeleteTensorHandle(dims);
  TFE_DeleteTensorHandle(v);
  teardown();
}

static void test_input_lists_and_attrs(void) {
  setup();
  TFE_TensorHandle *h[3] = {scalar(1), scalar(2), scalar(4)};
  TFE_Op *op = TFE_NewOp(ctx, "AddN", s);
  TFE_OpAddInputList(op, h, 3, s);
  CT_ASSERT_OK(s);
  CU_ASSERT_EQUAL(TFE_OpGetInputLength(op, "inputs", s), 3);
  TFE_TensorHandle *r = NULL;
  int n = 1;
  TFE_Execute(op, &r, &n, s);
  CT_ASSERT_OK(s);
  CU_ASSERT_EQUAL(value_of(r), 7.0f);
  TFE_DeleteTensorHandle(r);
  TFE_DeleteOp(op);
  /* Reshape with a tensor attr-free shape input; then StringFormat with
   * string, int and type-list attrs (the list inferred from the inputs) */
  op = TFE_NewOp(ctx, "StringFormat", s);
  TFE_OpAddInputList(op, h, 2, s);
  TFE_OpSetAttrString(op, "template", "{} and {}", 9);
  TFE_OpSetAttrInt(op, "summarize", 3);
  TFE_OpSetAttrString(op, "placeholder", "{}", 2);
  n = 1;
  TFE_Execute(op, &r, &n, s);
  CT_ASSERT_OK(s);
  TF_Tensor *t = TFE_TensorHandleResolve(r, s);
  const TF_TString *str = TF_TensorData(t);
  CU_ASSERT_EQUAL(TF_StringGetSize(str), 7);
  CU_ASSERT_EQUAL(memcmp(TF_StringGetDataPointer(str), "1 and 2", 7), 0);
  TF_DeleteTensor(t);
  TFE_DeleteTensorHandle(r);
  TFE_DeleteOp(op);
  /* the other setters are accepted (first set wins for each) */
  op = TFE_NewOp(ctx, "Placeholder", s);
  TFE_OpSetAttrFloat(op, "_f", 1.5f);
  TFE_OpSetAttrBool(op, "_b", 1);
  TFE_OpSetAttrIntList(op, "_il", (int64_t[]){1, 2}, 2);
  TFE_OpSetAttrFloatList(op, "_fl", (float[]){1, 2}, 2);
  TFE_OpSetAttrBoolList(op, "_bl", (unsigned char[]){1}, 1);
  TFE_OpSetAttrTypeList(op, "_tl", (TF_DataType[]){TF_FLOAT}, 1);
  const void *sv[1] = {"a"};
  size_t sl[1] = {1};
  TFE_OpSetAttrStringList(op, "_sl", sv, sl, 1);
  const int64_t d0[1] = {3};
  const int64_t *dl[1] = {d0};
  int nd[1] = {1};
  TFE_OpSetAttrShapeList(op, "_shl", dl, nd, 1, s);
  CT_ASSERT_OK(s);
  TFE_OpSetAttrShape(op, "shape", (int64_t[]){2}, 1, s);
  CT_ASSERT_OK(s);
  TFE_OpSetAttrShape(op, "_big", (int64_t[40]){0}, 40, s);
  CU_ASSERT_EQUAL(TF_GetCode(s), TF_INVALID_ARGUMENT);
  TF_Tensor *tv = ct_floats(NULL, 0, (float[]){1});
  TFE_OpSetAttrTensor(op, "_t", tv, s);
  CT_ASSERT_OK(s);
  TF_DeleteTensor(tv);
  TFE_OpSetAttrFunctionName(op, "_fn", "f", 1);
  TFE_OpSetAttrFunction(op, "_fn2", op);
  TFE_OpSetAttrFunctionList(op, "_fns", NULL, 0);
  TFE_DeleteOp(op);
  for (int i = 0; i < 3; i++) TFE_DeleteTensorHandle(h[i]);
  teardown();
}

/* ---- threads ------------------------------------------------------------- */

enum { kThreads = 16, kOpsPerThread = 300 };

static void *worker(void *arg) {
  int id = (int)(intptr_t)arg, bad = 0;
  TF_Status *st = TF_NewStatus();
  float v = (float)id;
  TF_Tensor *t = TF_AllocateTensor(TF_FLOAT, NULL, 0, 4);
  memcpy(TF_TensorData(t), &v, 4);
  TFE_TensorHandle *acc = TFE_NewTensorHandle(t, st);
  TFE_TensorHandle *one = TFE_NewTensorHandle(t, st);
  TF_DeleteTensor(t);
  for (int i = 0; i < kOpsPerThread && !bad; i++) {
    TFE_TensorHandle *next =
        binary(i % 2 ? "Mul" : "AddV2", acc, one, st);
    if (TF_GetCode(st) != TF_OK || !next) {
      bad = 1;
      break;
    }
    TFE_DeleteTensorHandle(acc);
    acc = next;
  }
  /* for id 1 every step adds 1 or multiplies by 1 */
  if (!bad && id == 1) {
    TF_Tensor *r = TFE_TensorHandleResolve(acc, st);
    bad = *(float *)TF_TensorData(r) != 1.0f + kOpsPerThread / 2;
    TF_DeleteTensor(r);
  }
  TFE_DeleteTensorHandle(acc);
  TFE_DeleteTensorHandle(one);
  TF_DeleteStatus(st);
  return (void *)(intptr_t)bad;
}

static void test_many_threads(void) {
  setup();
  pthread_t th[kThreads];
  for (int i = 0; i < kThreads; i++)
    pthread_create(&th[i], NULL, worker, (void *)(intptr_t)(i + 1));
  int failures = 0;
  for (int i = 0; i < kThreads; i++) {
    void *rc;
    pthread_join(th[i], &rc);
    failures += (int)(intptr_t)rc;
  }
  CU_ASSERT_EQUAL(failures, 0);
  teardown();
}

static void test_context_misc(void) {
  setup();
  CU_ASSERT_EQUAL(TFE_ContextGetDevicePlacementPolicy(ctx),
                  TFE_DEVICE_PLACEMENT_SILENT);
  TFE_ContextSetThreadLocalDevicePlacementPolicy(ctx,
                                                 TFE_DEVICE_PLACEMENT_WARN);
  CU_ASSERT_EQUAL(TFE_ContextGetDevicePlacementPolicy(ctx),
                  TFE_DEVICE_PLACEMENT_WARN);
  TFE_ContextEnableRunMetadata(ctx);
  TFE_ContextStartStep(ctx);
  TFE_ContextEndStep(ctx);
  TF_Buffer *md = TF_NewBuffer();
  TFE_ContextExportRunMetadata(ctx, md, s);
  CT_ASSERT_OK(s);
  TF_DeleteBuffer(md);
  TFE_ContextDisableRunMetadata(ctx);
  TFE_ContextClearCaches(ctx);
  TFE_ContextRemoveFunction(ctx, "f", s);
  CU_ASSERT_EQUAL(TF_GetCode(s), TF_INVALID_ARGUMENT);
  TFE_ContextOptions *o = TFE_NewContextOptions();
  TFE_ContextOptionsSetConfig(o, "\xff\xff", 2, s);
  CT_ASSERT_STATUS(s, TF_INVALID_ARGUMENT, "Unparseable ConfigProto");
  TFE_DeleteContextOptions(o);
  TFE_Context *plain = TFE_NewContext(NULL, s);
  CT_ASSERT_OK(s);
  TFE_DeleteContext(plain);
  teardown();
}

static const tfs_test_case handle_cases[] = {
    {"handles", test_handles},
    {"context_misc", test_context_misc},
    {NULL, NULL}};

static const tfs_test_case op_cases[] = {
    {"execute", test_execute},
    {"errors", test_eager_errors},
    {"first_set_wins", test_first_set_wins},
    {"input_lists_and_attrs", test_input_lists_and_attrs},
    {"many_threads", test_many_threads},
    {NULL, NULL}};

const tfs_test_suite tfs_test_suites[] = {
    {"c_api_eager_handles", handle_cases},
    {"c_api_eager_ops", op_cases},
    {NULL, NULL}};
