/*
 * tests/compat_c_api/test_c_api_core.c - tf_status.h, tf_buffer.h,
 * tf_datatype.h, tf_tensor.h and tf_tstring.h: status codes and payloads,
 * buffers as public structs, TF_NewTensor's ownership and deallocator
 * rules, TF_TString's small and large forms and its inline helpers, and
 * the legacy string encoding.
 */
#include <errno.h>
#include <stdlib.h>

#include "capitest.h"

/* ---- status -------------------------------------------------------------- */

static void test_status_basics(void) {
  TF_Status *s = TF_NewStatus();
  CU_ASSERT_EQUAL(TF_GetCode(s), TF_OK);
  CU_ASSERT_STRING_EQUAL(TF_Message(s), "");
  TF_SetStatus(s, TF_INVALID_ARGUMENT, "bad thing");
  CT_ASSERT_STATUS(s, TF_INVALID_ARGUMENT, "bad thing");
  TF_SetStatus(s, TF_OK, "ignored");
  CT_ASSERT_STATUS(s, TF_OK, "");
  CU_ASSERT_EQUAL(TF_UNAUTHENTICATED, 16);
  CU_ASSERT_EQUAL(TF_DATA_LOSS, 15);
  TF_DeleteStatus(s);
  TF_DeleteStatus(NULL);
}

/* Appends "key=value;" to the 128-byte buffer `capture`. */
static void visit(const char *key, const char *value, void *capture) {
  char *out = capture;
  size_t n = strlen(out);
  snprintf(out + n, 128 - n, "%s=%s;", key, value);
}

static void test_status_payloads(void) {
  TF_Status *s = TF_NewStatus();
  char seen[128] = "";
  TF_SetPayload(s, "ignored", "on ok");
  TF_SetStatus(s, TF_NOT_FOUND, "x");
  TF_SetPayload(s, "a", "1");
  TF_SetPayload(s, "b", "2");
  TF_SetPayload(s, "a", "3");
  TF_ForEachPayload(s, visit, seen);
  CU_ASSERT_STRING_EQUAL(seen, "a=3;b=2;");
  TF_SetStatus(s, TF_OK, "");
  seen[0] = 0;
  TF_ForEachPayload(s, visit, seen);
  CU_ASSERT_STRING_EQUAL(seen, "");
  TF_DeleteStatus(s);
}

static void test_status_io_error(void) {
  TF_Status *s = TF_NewStatus();
  TF_SetStatusFromIOError(s, ENOENT, "ctx");
  CT_ASSERT_STATUS(s, TF_NOT_FOUND, "ctx; No such file or directory");
  TF_SetStatusFromIOError(s, EACCES, "ctx");
  CT_ASSERT_STATUS(s, TF_PERMISSION_DENIED, "ctx; Permission denied");
  TF_SetStatusFromIOError(s, ENOSPC, "w");
  CU_ASSERT_EQUAL(TF_GetCode(s), TF_RESOURCE_EXHAUSTED);
  TF_DeleteStatus(s);
}

/* ---- buffers and dtypes -------------------------------------------------- */

static int g_buffer_freed;
static void buffer_dealloc(void *data, size_t len) {
  (void)len;
  g_buffer_freed++;
  free(data);
}

static void test_buffer(void) {
  TF_Buffer *b = TF_NewBuffer();
  CU_ASSERT_PTR_NULL(b->data);
  CU_ASSERT_EQUAL(b->length, 0);
  CU_ASSERT_PTR_NULL(b->data_deallocator);
  /* programs fill the public fields themselves */
  b->data = malloc(4);
  b->length = 4;
  b->data_deallocator = buffer_dealloc;
  TF_Buffer copy = TF_GetBuffer(b);
  CU_ASSERT_PTR_EQUAL(copy.data, b->data);
  CU_ASSERT_EQUAL(copy.length, 4);
  g_buffer_freed = 0;
  TF_DeleteBuffer(b);
  CU_ASSERT_EQUAL(g_buffer_freed, 1);
  b = TF_NewBufferFromString("abc", 3);
  CU_ASSERT_EQUAL(b->length, 3);
  CU_ASSERT_EQUAL(memcmp(b->data, "abc", 3), 0);
  CU_ASSERT_PTR_NOT_NULL(b->data_deallocator);
  TF_DeleteBuffer(b);
  TF_DeleteBuffer(NULL);
}

static void test_datatype_size(void) {
  CU_ASSERT_EQUAL(TF_DataTypeSize(TF_FLOAT), 4);
  CU_ASSERT_EQUAL(TF_DataTypeSize(TF_DOUBLE), 8);
  CU_ASSERT_EQUAL(TF_DataTypeSize(TF_INT64), 8);
  CU_ASSERT_EQUAL(TF_DataTypeSize(TF_BOOL), 1);
  CU_ASSERT_EQUAL(TF_DataTypeSize(TF_HALF), 2);
  CU_ASSERT_EQUAL(TF_DataTypeSize(TF_BFLOAT16), 2);
  CU_ASSERT_EQUAL(TF_DataTypeSize(TF_COMPLEX128), 16);
  CU_ASSERT_EQUAL(TF_DataTypeSize(TF_STRING), 0);
  CU_ASSERT_EQUAL(TF_DataTypeSize(TF_RESOURCE), 0);
  CU_ASSERT_EQUAL(TF_DataTypeSize(TF_VARIANT), 0);
  CU_ASSERT_EQUAL(TF_DataTypeSize(TF_FLOAT8_E5M2), 1);
  CU_ASSERT_EQUAL(TF_DataTypeSize(TF_INT4), 1);
  CU_ASSERT_EQUAL(TF_DataTypeSize((TF_DataType)0), 0);
  CU_ASSERT_EQUAL(TF_DataTypeSize((TF_DataType)99), 0);
  CU_ASSERT_STRING_EQUAL(TF_Version(), "2.21.0");
}

/* ---- tensors ------------------------------------------------------------- */

static int g_dealloc_calls;
static void *g_dealloc_data;
static void tensor_dealloc(void *data, size_t len, void *arg) {
  (void)len;
  g_dealloc_calls++;
  g_dealloc_data = data;
  CU_ASSERT_PTR_EQUAL(arg, &g_dealloc_calls);
}

static float g_aligned[64] __attribute__((aligned(64)));

static void test_new_tensor_aligned(void) {
  int64_t dims[2] = {2, 3};
  g_dealloc_calls = 0;
  TF_Tensor *t = TF_NewTensor(TF_FLOAT, dims, 2, g_aligned, 6 * sizeof(float),
                              tensor_dealloc, &g_dealloc_calls);
  CU_ASSERT_PTR_NOT_NULL_FATAL(t);
  CU_ASSERT_PTR_EQUAL(TF_TensorData(t), g_aligned); /* not copied */
  CU_ASSERT_EQUAL(g_dealloc_calls, 0);
  CU_ASSERT_TRUE(TF_TensorIsAligned(t));
  CU_ASSERT_EQUAL(TF_NumDims(t), 2);
  CU_ASSERT_EQUAL(TF_Dim(t, 1), 3);
  CU_ASSERT_EQUAL(TF_TensorElementCount(t), 6);
  CU_ASSERT_EQUAL(TF_TensorByteSize(t), 24);
  CU_ASSERT_EQUAL(TF_TensorType(t), TF_FLOAT);
  TF_DeleteTensor(t);
  CU_ASSERT_EQUAL(g_dealloc_calls, 1); /* exactly once, at delete */
  CU_ASSERT_PTR_EQUAL(g_dealloc_data, g_aligned);
}

static void test_new_tensor_misaligned(void) {
  int64_t dims[1] = {3};
  char *raw = (char *)g_aligned + 4; /* 4 mod 64 */
  memcpy(raw, (float[]){1, 2, 3}, 12);
  g_dealloc_calls = 0;
  TF_Tensor *t = TF_NewTensor(TF_FLOAT, dims, 1, raw, 12, tensor_dealloc,
                              &g_dealloc_calls);
  CU_ASSERT_PTR_NOT_NULL_FATAL(t);
  CU_ASSERT_EQUAL(g_dealloc_calls, 1); /* copied, handed back at once */
  CU_ASSERT_PTR_NOT_EQUAL(TF_TensorData(t), raw);
  CU_ASSERT_EQUAL(TF_TensorDefaultAlignment(), 64);
  CU_ASSERT_TRUE(TF_TensorIsAligned(t));
  CU_ASSERT_EQUAL(((float *)TF_TensorData(t))[2], 3.0f);
  TF_DeleteTensor(t);
  CU_ASSERT_EQUAL(g_dealloc_calls, 1);
}

static void test_new_tensor_too_short(void) {
  int64_t dims[1] = {4};
  g_dealloc_calls = 0;
  TF_Tensor *t = TF_NewTensor(TF_FLOAT, dims, 1, g_aligned, 8, tensor_dealloc,
                              &g_dealloc_calls);
  CU_ASSERT_PTR_NULL(t);
  CU_ASSERT_EQUAL(g_dealloc_calls, 1); /* TensorFlow hands it back too */
  t = TF_NewTensor(TF_FLOAT, dims, 1, g_aligned, 8, NULL, NULL);
  CU_ASSERT_PTR_NULL(t);
}

static void test_allocate_tensor(void) {
  TF_Tensor *t = TF_AllocateTensor(TF_FLOAT, NULL, 0, 4);
  CU_ASSERT_PTR_NOT_NULL_FATAL(t);
  CU_ASSERT_EQUAL(TF_NumDims(t), 0);
  CU_ASSERT_EQUAL(TF_TensorByteSize(t), 4);
  CU_ASSERT_EQUAL(TF_TensorElementCount(t), 1);
  CU_ASSERT_TRUE(TF_TensorIsAligned(t));
  CU_ASSERT_PTR_EQUAL(TF_TensorMaybeMove(t), t);
  TF_DeleteTensor(t);
  int64_t dims[2] = {2, 2};
  CU_ASSERT_PTR_NULL(TF_AllocateTensor(TF_INT32, dims, 2, 8));
  t = TF_AllocateTensor(TF_INT32, dims, 2, 16);
  int64_t flat[1] = {4};
  TF_SetShape(t, flat, 1);
  CU_ASSERT_EQUAL(TF_NumDims(t), 1);
  CU_ASSERT_EQUAL(TF_Dim(t, 0), 4);
  int64_t bad[1] = {5};
  TF_SetShape(t, bad, 1); /* another element count: ignored */
  CU_ASSERT_EQUAL(TF_Dim(t, 0), 4);
  TF_DeleteTensor(t);
  int64_t empty[2] = {0, 3};
  t = TF_AllocateTensor(TF_FLOAT, empty, 2, 0);
  CU_ASSERT_PTR_NOT_NULL(t);
  CU_ASSERT_EQUAL(TF_TensorElementCount(t), 0);
  TF_DeleteTensor(t);
}

static void test_bitcast(void) {
  TF_Status *s = TF_NewStatus();
  int64_t d4[1] = {4}, d2[1] = {2}, d3[1] = {3};
  TF_Tensor *from = ct_int32s(d4, 1, (int32_t[]){1, 2, 3, 4});
  TF_Tensor *to = TF_AllocateTensor(TF_INT64, d2, 1, 16);
  TF_TensorBitcastFrom(from, TF_INT64, to, d2, 1, s);
  CT_ASSERT_OK(s);
  CU_ASSERT_PTR_EQUAL(TF_TensorData(to), TF_TensorData(from));
  CU_ASSERT_EQUAL(TF_TensorType(to), TF_INT64);
  CU_ASSERT_EQUAL(((int64_t *)TF_TensorData(to))[0], ((int64_t)2 << 32) | 1);
  TF_TensorBitcastFrom(from, TF_INT64, to, d3, 1, s);
  CT_ASSERT_STATUS(s, TF_INVALID_ARGUMENT,
                   "input and output shapes/data type sizes are not "
                   "compatible");
  TF_DeleteTensor(from);
  CU_ASSERT_EQUAL(((int32_t *)TF_TensorData(to))[3], 4); /* shared, alive */
  TF_DeleteTensor(to);
  TF_DeleteStatus(s);
}

static void test_tensor_from_proto(void) {
  TF_Status *s = TF_NewStatus();
  /* TensorProto {dtype: DT_INT32, tensor_shape {dim {size: 2}},
   * int_val: [7, 9]} (unpacked) */
  static const unsigned char proto[] = {0x08, 0x03, 0x12, 0x04, 0x12, 0x02,
                                        0x08, 0x02, 0x38, 0x07, 0x38, 0x09};
  TF_Buffer *b = TF_NewBufferFromString(proto, sizeof proto);
  TF_Tensor *t = TF_AllocateTensor(TF_FLOAT, NULL, 0, 4);
  TF_TensorFromProto(b, t, s);
  CT_ASSERT_OK(s);
  CU_ASSERT_EQUAL(TF_TensorType(t), TF_INT32);
  CU_ASSERT_EQUAL(TF_Dim(t, 0), 2);
  CU_ASSERT_EQUAL(((int32_t *)TF_TensorData(t))[1], 9);
  TF_DeleteBuffer(b);
  b = TF_NewBufferFromString("\xff\xff", 2);
  TF_TensorFromProto(b, t, s);
  CT_ASSERT_STATUS(s, TF_INVALID_ARGUMENT,
                   "Unparseable tensorflow.TensorProto proto");
  TF_DeleteBuffer(b);
  TF_DeleteTensor(t);
  TF_DeleteStatus(s);
}

/* ---- TF_TString ---------------------------------------------------------- */

static void test_tstring_layout(void) {
  CU_ASSERT_EQUAL(sizeof(TF_TString), 24);
  CU_ASSERT_EQUAL(TF_TString_SmallCapacity, 22);
  TF_TString t;
  TF_StringInit(&t);
  CU_ASSERT_EQUAL(TF_StringGetType(&t), TF_TSTR_SMALL);
  CU_ASSERT_EQUAL(TF_StringGetSize(&t), 0);
  TF_StringCopy(&t, "hello", 5);
  CU_ASSERT_EQUAL(TF_StringGetType(&t), TF_TSTR_SMALL);
  CU_ASSERT_EQUAL(t.u.raw.raw[0], 5 << 2); /* size << 2 | SMALL */
  CU_ASSERT_EQUAL(TF_StringGetCapacity(&t), 22);
  CU_ASSERT_EQUAL(memcmp(TF_StringGetDataPointer(&t), "hello", 6), 0);
  static const char big[] = "0123456789012345678901234567890";
  TF_StringCopy(&t, big, 31);
  CU_ASSERT_EQUAL(TF_StringGetType(&t), TF_TSTR_LARGE);
  CU_ASSERT_EQUAL(TF_StringGetSize(&t), 31);
  CU_ASSERT_EQUAL(TF_StringGetCapacity(&t), 31); /* 16-aligned less one */
  CU_ASSERT_EQUAL(t.u.large.size, (31u << 2) | 1);
  CU_ASSERT_STRING_EQUAL(TF_StringGetDataPointer(&t), big);
  TF_StringCopy(&t, big, 22); /* back to small, memory freed */
  CU_ASSERT_EQUAL(TF_StringGetType(&t), TF_TSTR_SMALL);
  TF_StringAssignView(&t, big, 10);
  CU_ASSERT_EQUAL(TF_StringGetType(&t), TF_TSTR_VIEW);
  CU_ASSERT_PTR_EQUAL(TF_StringGetDataPointer(&t), big);
  CU_ASSERT_EQUAL(TF_StringGetSize(&t), 10);
  CU_ASSERT_EQUAL(TF_StringGetCapacity(&t), 0);
  TF_StringDealloc(&t);
}

static void test_tstring_inline_helpers(void) {
  TF_TString a, b;
  TF_TString_Init(&a);
  TF_TString_Init(&b);
  TF_TString_Copy(&a, "abc", 3);
  TF_TString_AppendN(&a, "defghijklmnopqrstuvwxyz", 23);
  CU_ASSERT_EQUAL(TF_TString_GetType(&a), TF_TSTR_LARGE);
  CU_ASSERT_EQUAL(TF_TString_GetSize(&a), 26);
  CU_ASSERT_EQUAL(memcmp(TF_TString_GetDataPointer(&a),
                         "abcdefghijklmnopqrstuvwxyz", 26), 0);
  TF_TString_Assign(&b, &a); /* a large string gets its own copy */
  CU_ASSERT_PTR_NOT_EQUAL(TF_TString_GetDataPointer(&b),
                          TF_TString_GetDataPointer(&a));
  TF_TString_Resize(&b, 30, '!');
  CU_ASSERT_EQUAL(TF_TString_GetDataPointer(&b)[29], '!');
  TF_TString_Resize(&b, 2, 0);
  CU_ASSERT_EQUAL(TF_TString_GetType(&b), TF_TSTR_SMALL);
  CU_ASSERT_EQUAL(memcmp(TF_TString_GetDataPointer(&b), "ab", 3), 0);
  TF_TString_Reserve(&b, 100);
  CU_ASSERT_EQUAL(TF_TString_GetType(&b), TF_TSTR_LARGE);
  CU_ASSERT_TRUE(TF_TString_GetCapacity(&b) >= 100);
  CU_ASSERT_EQUAL(TF_TString_GetSize(&b), 2);
  TF_TString_Append(&b, &a);
  CU_ASSERT_EQUAL(TF_TString_GetSize(&b), 28);
  TF_TString_Move(&b, &a);
  CU_ASSERT_EQUAL(TF_TString_GetSize(&b), 26);
  CU_ASSERT_EQUAL(TF_TString_GetSize(&a), 0);
  TF_TString_AssignView(&a, "view!", 5);
  char *m = TF_TString_GetMutableDataPointer(&a); /* copies the view */
  CU_ASSERT_EQUAL(TF_TString_GetType(&a), TF_TSTR_SMALL);
  m[0] = 'V';
  CU_ASSERT_EQUAL(memcmp(TF_TString_GetDataPointer(&a), "View!", 5), 0);
  TF_TString_ReserveAmortized(&a, 40);
  CU_ASSERT_TRUE(TF_TString_GetCapacity(&a) >= 44);
  TF_TString_Dealloc(&a);
  TF_TString_Dealloc(&b);
}

/* An owner that counts its references (TensorFlow 2.21's shared views). */
typedef struct {
  TStringOwnerCApi base;
  int refs;
} counted_owner;

static void owner_ref(TStringOwnerCApi *o) { ((counted_owner *)o)->refs++; }
static bool owner_unref(TStringOwnerCApi *o) {
  return --((counted_owner *)o)->refs == 0;
}

static void test_tstring_owned_views(void) {
  static const char text[] = "bytes that belong to an owner object";
  counted_owner o = {{owner_ref, owner_unref, NULL}, 1};
  TF_TString a, b;
  TF_TString_Init(&a);
  TF_TString_Init(&b);
  TF_TString_AssignViewWithOwner(&a, text, 5, &o.base);
  CU_ASSERT_EQUAL(o.refs, 2);
  CU_ASSERT_EQUAL(TF_TString_GetType(&a), TF_TSTR_VIEW);
  CU_ASSERT_PTR_EQUAL(a.u.view.owner_ref, &o.base);
  CU_ASSERT_PTR_EQUAL(TF_TString_GetDataPointer(&a), text);
  TF_TString_Assign(&b, &a); /* a copied view holds its own reference */
  CU_ASSERT_EQUAL(o.refs, 3);
  TF_TString_Dealloc(&b);
  CU_ASSERT_EQUAL(o.refs, 2);
  CU_ASSERT_EQUAL(TF_TString_GetSize(&b), 0);
  TF_TString_Move(&b, &a); /* moved, not copied */
  CU_ASSERT_EQUAL(o.refs, 2);
  CU_ASSERT_EQUAL(TF_TString_GetType(&a), TF_TSTR_SMALL);
  char *m = TF_TString_GetMutableDataPointer(&b); /* owned copy: unref */
  CU_ASSERT_EQUAL(o.refs, 1);
  CU_ASSERT_EQUAL(memcmp(m, "bytes", 5), 0);
  TF_TString_AssignViewWithOwner(&b, text, sizeof text - 1, &o.base);
  TF_TString_Reserve(&b, 64); /* a large copy: unref */
  CU_ASSERT_EQUAL(o.refs, 1);
  CU_ASSERT_EQUAL(TF_TString_GetType(&b), TF_TSTR_LARGE);
  CU_ASSERT_STRING_EQUAL(TF_TString_GetDataPointer(&b), text);
  TF_TString_AssignView(&a, text, 3); /* no owner */
  CU_ASSERT_PTR_NULL(a.u.view.owner_ref);
  TF_TString_Dealloc(&a);
  TF_TString_Dealloc(&b);
  /* a tensor that tfsess allocated releases its views' owners */
  TF_Tensor *t = TF_AllocateTensor(TF_STRING, (int64_t[]){2}, 1,
                                   2 * sizeof(TF_TString));
  TF_TString *el = (TF_TString *)TF_TensorData(t);
  TF_StringInit(&el[0]);
  TF_StringInit(&el[1]);
  TF_TString_AssignViewWithOwner(&el[0], text, 4, &o.base);
  TF_TString_AssignViewWithOwner(&el[1], text + 4, 4, &o.base);
  CU_ASSERT_EQUAL(o.refs, 3);
  TF_DeleteTensor(t);
  CU_ASSERT_EQUAL(o.refs, 1);
}

/* ---- legacy string encoding ---------------------------------------------- */

static void test_legacy_encode_decode(void) {
  TF_Status *s = TF_NewStatus();
  char dst[300];
  CU_ASSERT_EQUAL(TF_StringEncodedSize(5), 6);
  CU_ASSERT_EQUAL(TF_StringEncodedSize(200), 202);
  size_t n = TF_StringEncode("hello", 5, dst, sizeof dst, s);
  CT_ASSERT_OK(s);
  CU_ASSERT_EQUAL(n, 6);
  CU_ASSERT_EQUAL(dst[0], 5);
  const char *out;
  size_t len;
  CU_ASSERT_EQUAL(TF_StringDecode(dst, n, &out, &len, s), 6);
  CT_ASSERT_OK(s);
  CU_ASSERT_EQUAL(len, 5);
  CU_ASSERT_PTR_EQUAL(out, dst + 1);
  TF_StringEncode("hello", 5, dst, 3, s);
  CT_ASSERT_STATUS(s, TF_INVALID_ARGUMENT,
                   "dst_len (3) too small to encode a 5-byte string");
  TF_StringDecode("\x80", 1, &out, &len, s);
  CT_ASSERT_STATUS(s, TF_INVALID_ARGUMENT,
                   "invalid string encoding or truncated src buffer");
  /* a length past the end of src, and one that would wrap the count of
   * bytes consumed */
  TF_StringDecode("\x05" "ab", 3, &out, &len, s);
  CT_ASSERT_STATUS(s, TF_INVALID_ARGUMENT,
                   "invalid string encoding or truncated src buffer");
  TF_StringDecode("\xfe\xff\xff\xff\xff\xff\xff\xff\xff\x01x", 11, &out,
                  &len, s);
  CT_ASSERT_STATUS(s, TF_INVALID_ARGUMENT,
                   "invalid string encoding or truncated src buffer");
  TF_DeleteStatus(s);
}

static const tfs_test_case status_cases[] = {
    {"basics", test_status_basics},
    {"payloads", test_status_payloads},
    {"io_error", test_status_io_error},
    {"buffer", test_buffer},
    {"datatype_size", test_datatype_size},
    {NULL, NULL}};

static const tfs_test_case tensor_cases[] = {
    {"new_aligned", test_new_tensor_aligned},
    {"new_misaligned", test_new_tensor_misaligned},
    {"new_too_short", test_new_tensor_too_short},
    {"allocate", test_allocate_tensor},
    {"bitcast", test_bitcast},
    {"from_proto", test_tensor_from_proto},
    {"tstring_layout", test_tstring_layout},
    {"tstring_inline_helpers", test_tstring_inline_helpers},
    {"tstring_owned_views", test_tstring_owned_views},
    {"legacy_encode_decode", test_legacy_encode_decode},
    {NULL, NULL}};

const tfs_test_suite tfs_test_suites[] = {
    {"c_api_status", status_cases},
    {"c_api_tensor", tensor_cases},
    {NULL, NULL}};
