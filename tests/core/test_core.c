/*
 * tests/core/test_core.c - status, dtypes, shapes, tensors, string records,
 * attribute values, hash maps and text formatting.
 */
#include <stdlib.h>

#include "core/alloc.h"
#include "core/attr_value.h"
#include "core/half.h"
#include "core/hashmap.h"
#include "core/shape.h"
#include "core/status.h"
#include "core/strbuf.h"
#include "core/tensor.h"
#include "core/tstring.h"
#include "testutil.h"

/* ---- status ------------------------------------------------------------- */

static void test_status_lifecycle(void) {
  tfs_status *st = tfs_status_new();
  CU_ASSERT_EQUAL(tfs_status_code(st), TFS_OK);
  CU_ASSERT_STRING_EQUAL(tfs_status_message(st), "");
  CU_ASSERT_TRUE(tfs_status_ok(st));
  tfs_status_set(st, TFS_NOT_FOUND, "no such thing");
  CU_ASSERT_EQUAL(tfs_status_code(st), TFS_NOT_FOUND);
  CU_ASSERT_STRING_EQUAL(tfs_status_message(st), "no such thing");
  CU_ASSERT_FALSE(tfs_status_ok(st));
  tfs_status_set(st, TFS_OK, "ignored");
  CU_ASSERT_STRING_EQUAL(tfs_status_message(st), "");
  tfs_status_set(st, TFS_INTERNAL, NULL);
  CU_ASSERT_STRING_EQUAL(tfs_status_message(st), "");
  tfs_status_clear(st);
  CU_ASSERT_EQUAL(tfs_status_code(st), TFS_OK);
  tfs_status_free(st);
  tfs_status_free(NULL);
  CU_ASSERT_EQUAL(tfs_status_code(NULL), TFS_OK);
}

static void test_status_codes_are_tensorflows(void) {
  CU_ASSERT_EQUAL(TFS_CANCELLED, 1);
  CU_ASSERT_EQUAL(TFS_INVALID_ARGUMENT, 3);
  CU_ASSERT_EQUAL(TFS_NOT_FOUND, 5);
  CU_ASSERT_EQUAL(TFS_FAILED_PRECONDITION, 9);
  CU_ASSERT_EQUAL(TFS_UNIMPLEMENTED, 12);
  CU_ASSERT_EQUAL(TFS_UNAUTHENTICATED, 16);
  CU_ASSERT_STRING_EQUAL(tfs_code_name(TFS_INVALID_ARGUMENT),
                         "INVALID_ARGUMENT");
  CU_ASSERT_STRING_EQUAL(tfs_code_name(TFS_DATA_LOSS), "DATA_LOSS");
  CU_ASSERT_STRING_EQUAL(tfs_code_name((tfs_code)99), "UNKNOWN_CODE");
}

static void test_status_format_helpers(void) {
  tfs_status *st = tfs_status_new();
  tfs_status_setf(st, TFS_INVALID_ARGUMENT, "bad %d", 7);
  tfs_status_appendf(st, " [%s]", "x");
  tfs_status_prependf(st, "node: ");
  CU_ASSERT_STRING_EQUAL(tfs_status_message(st), "node: bad 7 [x]");
  tfs_status *c = tfs_status_new();
  tfs_status_copy(c, st);
  CU_ASSERT_EQUAL(tfs_status_code(c), TFS_INVALID_ARGUMENT);
  CU_ASSERT_STRING_EQUAL(tfs_status_message(c), "node: bad 7 [x]");
  tfs_status_clear(st);
  tfs_status_appendf(st, "ignored when OK");
  CU_ASSERT_STRING_EQUAL(tfs_status_message(st), "");
  tfs_status_copy(c, st);
  CU_ASSERT_EQUAL(tfs_status_code(c), TFS_OK);
  tfs_status_free(c);
  tfs_status_free(st);
}

static void test_version(void) {
  CU_ASSERT_STRING_EQUAL(tfs_version(), TFS_VERSION_STRING);
}

/* ---- dtypes ------------------------------------------------------------- */

static void test_dtype_numbers_and_names(void) {
  static const struct {
    tfs_dtype dt;
    int num;
    const char *name;
    size_t size;
  } cases[] = {
      {TFS_FLOAT, 1, "float", 4},     {TFS_DOUBLE, 2, "double", 8},
      {TFS_INT32, 3, "int32", 4},     {TFS_UINT8, 4, "uint8", 1},
      {TFS_INT16, 5, "int16", 2},     {TFS_INT8, 6, "int8", 1},
      {TFS_STRING, 7, "string", 0},   {TFS_COMPLEX64, 8, "complex64", 8},
      {TFS_INT64, 9, "int64", 8},     {TFS_BOOL, 10, "bool", 1},
      {TFS_BFLOAT16, 14, "bfloat16", 2}, {TFS_UINT16, 17, "uint16", 2},
      {TFS_COMPLEX128, 18, "complex128", 16}, {TFS_HALF, 19, "half", 2},
      {TFS_RESOURCE, 20, "resource", 0}, {TFS_VARIANT, 21, "variant", 0},
      {TFS_UINT32, 22, "uint32", 4},  {TFS_UINT64, 23, "uint64", 8},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    CU_ASSERT_EQUAL((int)cases[i].dt, cases[i].num);
    CU_ASSERT_STRING_EQUAL(tfs_dtype_name(cases[i].dt), cases[i].name);
    CU_ASSERT_EQUAL(tfs_dtype_size(cases[i].dt), cases[i].size);
    CU_ASSERT_EQUAL(tfs_dtype_from_name(cases[i].name), cases[i].dt);
    CU_ASSERT_TRUE(tfs_dtype_is_valid(cases[i].dt));
  }
  CU_ASSERT_STRING_EQUAL(tfs_dtype_enum_name(TFS_FLOAT), "DT_FLOAT");
  CU_ASSERT_EQUAL(tfs_dtype_from_name("DT_HALF"), TFS_HALF);
  CU_ASSERT_EQUAL(tfs_dtype_from_name("nope"), TFS_INVALID);
  CU_ASSERT_EQUAL(tfs_dtype_from_name(NULL), TFS_INVALID);
  CU_ASSERT_STRING_EQUAL(tfs_dtype_name((tfs_dtype)77), "invalid");
  CU_ASSERT_EQUAL(tfs_dtype_size((tfs_dtype)77), 0);
}

static void test_dtype_refs(void) {
  tfs_dtype r = (tfs_dtype)(TFS_FLOAT + TFS_DTYPE_REF_OFFSET);
  CU_ASSERT_TRUE(tfs_dtype_is_ref(r));
  CU_ASSERT_FALSE(tfs_dtype_is_ref(TFS_FLOAT));
  CU_ASSERT_EQUAL(tfs_dtype_base(r), TFS_FLOAT);
  CU_ASSERT_STRING_EQUAL(tfs_dtype_name(r), "float_ref");
  CU_ASSERT_STRING_EQUAL(tfs_dtype_enum_name(r), "DT_FLOAT_REF");
  CU_ASSERT_EQUAL(tfs_dtype_from_name("int32_ref"),
                  (tfs_dtype)(TFS_INT32 + TFS_DTYPE_REF_OFFSET));
  CU_ASSERT_EQUAL(tfs_dtype_size(r), 4);
}

/* ---- shapes ------------------------------------------------------------- */

static void test_shape_printing(void) {
  char buf[TFS_SHAPE_STRLEN];
  tfs_shape s;
  tfs_shape_unknown(&s);
  CU_ASSERT_STRING_EQUAL(tfs_shape_str(&s, buf, sizeof buf), "<unknown>");
  tfs_shape_scalar(&s);
  CU_ASSERT_STRING_EQUAL(tfs_shape_str(&s, buf, sizeof buf), "[]");
  tfs_shape_2d(&s, -1, 3);
  CU_ASSERT_STRING_EQUAL(tfs_shape_str(&s, buf, sizeof buf), "[?,3]");
  CU_ASSERT_FALSE(tfs_shape_is_fully_defined(&s));
  CU_ASSERT_EQUAL(tfs_shape_num_elements(&s), -1);
  tfs_shape_2d(&s, 2, 3);
  CU_ASSERT_EQUAL(tfs_shape_num_elements(&s), 6);
  /* truncated output stays NUL-terminated */
  char small[4];
  tfs_shape_str(&s, small, sizeof small);
  CU_ASSERT_EQUAL(strlen(small), 3);
}

static void test_shape_set_errors(void) {
  tfs_status *st = tfs_status_new();
  tfs_shape s;
  int64_t dims[TFS_MAX_RANK + 1] = {0};
  CU_ASSERT_EQUAL(tfs_shape_set(&s, dims, TFS_MAX_RANK + 1, st), -1);
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT, "exceeds the maximum rank");
  int64_t bad[2] = {2, -5};
  CU_ASSERT_EQUAL(tfs_shape_set(&s, bad, 2, st), -1);
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT,
                   "Dimension 1 in shape [2,?] must be >= -1, got -5");
  int64_t ok[2] = {-1, 4};
  CU_ASSERT_EQUAL(tfs_shape_set(&s, ok, 2, st), 0);
  CU_ASSERT_EQUAL(s.dims[1], 4);
  CU_ASSERT_EQUAL(tfs_shape_set(&s, NULL, -1, st), 0);
  CU_ASSERT_EQUAL(s.rank, -1);
  tfs_status_free(st);
}

static void test_shape_overflow(void) {
  tfs_status *st = tfs_status_new();
  tfs_shape s;
  int64_t big[3] = {INT64_MAX / 2, 4, 4};
  CU_ASSERT_EQUAL(tfs_shape_set(&s, big, 3, st), 0);
  CU_ASSERT_EQUAL(tfs_shape_num_elements(&s), -1);
  int64_t n;
  CU_ASSERT_EQUAL(tfs_shape_num_elements_checked(&s, &n, st), -1);
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT, "overflows int64");
  tfs_shape_2d(&s, -1, 2);
  CU_ASSERT_EQUAL(tfs_shape_num_elements_checked(&s, &n, st), -1);
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT, "is not fully defined");
  tfs_status_free(st);
}

static void test_shape_merge_compat_broadcast(void) {
  tfs_shape a, b, o, u;
  tfs_shape_2d(&a, -1, 3);
  tfs_shape_2d(&b, 2, -1);
  CU_ASSERT_EQUAL(tfs_shape_merge(&a, &b, &o), 0);
  CU_ASSERT_EQUAL(o.dims[0], 2);
  CU_ASSERT_EQUAL(o.dims[1], 3);
  tfs_shape_2d(&b, 2, 4);
  CU_ASSERT_EQUAL(tfs_shape_merge(&a, &b, &o), -1);
  tfs_shape_unknown(&u);
  CU_ASSERT_EQUAL(tfs_shape_merge(&u, &b, &o), 0);
  CU_ASSERT_TRUE(tfs_shape_equal(&o, &b));
  CU_ASSERT_TRUE(tfs_shape_is_compatible(&u, &b));
  CU_ASSERT_FALSE(tfs_shape_is_compatible(&a, &b));
  tfs_shape_1d(&o, 3);
  CU_ASSERT_FALSE(tfs_shape_is_compatible(&a, &o));
  /* broadcasting [2,3] with [3] and [4] */
  tfs_shape_2d(&a, 2, 3);
  tfs_shape_1d(&b, 3);
  CU_ASSERT_EQUAL(tfs_shape_broadcast(&a, &b, &o), 0);
  CU_ASSERT_TRUE(tfs_shape_equal(&o, &a));
  tfs_shape_1d(&b, 4);
  CU_ASSERT_EQUAL(tfs_shape_broadcast(&a, &b, &o), -1);
  tfs_shape_2d(&b, 1, -1);
  CU_ASSERT_EQUAL(tfs_shape_broadcast(&a, &b, &o), 0);
  CU_ASSERT_EQUAL(o.dims[1], 3);
  CU_ASSERT_EQUAL(tfs_shape_broadcast(&u, &b, &o), 0);
  CU_ASSERT_EQUAL(o.rank, -1);
}

/* ---- tensors ------------------------------------------------------------ */

static void test_tensor_new_and_queries(void) {
  tfs_status *st = tfs_status_new();
  int64_t dims[2] = {2, 3};
  tfs_tensor *t = tfs_tensor_new(TFS_FLOAT, dims, 2, st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_EQUAL(tfs_tensor_dtype(t), TFS_FLOAT);
  CU_ASSERT_EQUAL(tfs_tensor_ndims(t), 2);
  CU_ASSERT_EQUAL(tfs_tensor_dim(t, 1), 3);
  CU_ASSERT_EQUAL(tfs_tensor_dim(t, 2), -1);
  CU_ASSERT_EQUAL(tfs_tensor_dims(t)[0], 2);
  CU_ASSERT_EQUAL(tfs_tensor_num_elements(t), 6);
  CU_ASSERT_EQUAL(tfs_tensor_byte_size(t), 24);
  CU_ASSERT_EQUAL((uintptr_t)tfs_tensor_data(t) % TFS_TENSOR_ALIGNMENT, 0);
  const float *f = tfs_tensor_data(t);
  for (int i = 0; i < 6; i++) CU_ASSERT_EQUAL(f[i], 0.0f);
  CU_ASSERT_TRUE(tfs_tensor_is_unique(t));
  tfs_tensor *r = tfs_tensor_ref(t);
  CU_ASSERT_PTR_EQUAL(r, t);
  CU_ASSERT_FALSE(tfs_tensor_is_unique(t));
  tfs_tensor_free(r);
  char buf[64];
  CU_ASSERT_STRING_EQUAL(tfs_tensor_shape_string(t, buf, sizeof buf), "[2,3]");
  tfs_tensor_free(t);
  tfs_tensor_free(NULL);
  /* scalar from NULL dims */
  t = tfs_tensor_new(TFS_INT64, NULL, 0, st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_EQUAL(tfs_tensor_ndims(t), 0);
  CU_ASSERT_EQUAL(tfs_tensor_byte_size(t), 8);
  tfs_tensor_free(t);
  tfs_status_free(st);
}

static void test_tensor_new_errors(void) {
  tfs_status *st = tfs_status_new();
  int64_t neg[2] = {2, -1};
  CU_ASSERT_PTR_NULL(tfs_tensor_new(TFS_FLOAT, neg, 2, st));
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT,
                   "Dimension 1 of tensor shape [2,?] is negative");
  int64_t huge[3] = {INT64_MAX / 4, 8, 8};
  CU_ASSERT_PTR_NULL(tfs_tensor_new(TFS_FLOAT, huge, 3, st));
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT, "overflows int64");
  int64_t big[2] = {INT64_MAX / 4, 2};
  CU_ASSERT_PTR_NULL(tfs_tensor_new(TFS_DOUBLE, big, 2, st));
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT, "is too large");
  /* variant tensors hold empty variants until a kernel sets them */
  int64_t two = 2;
  tfs_tensor *v = tfs_tensor_new(TFS_VARIANT, &two, 1, st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_EQUAL(tfs_tensor_dtype(v), TFS_VARIANT);
  char *vs = tfs_tensor_to_string(v, 3);
  CU_ASSERT_STRING_EQUAL(vs, "[[empty variant] [empty variant]]");
  free(vs);
  tfs_tensor_free(v);
  CU_ASSERT_PTR_NULL(tfs_tensor_wrap(TFS_VARIANT, &two, 1, &two, 16, NULL,
                                     NULL, st));
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT,
                   "Variant tensors cannot wrap caller memory");
  CU_ASSERT_PTR_NULL(tfs_tensor_new((tfs_dtype)(TFS_FLOAT + 100), NULL, 0, st));
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT, "float_ref");
  int64_t d[TFS_MAX_RANK + 1];
  for (int i = 0; i <= TFS_MAX_RANK; i++) d[i] = 1;
  CU_ASSERT_PTR_NULL(tfs_tensor_new(TFS_FLOAT, d, TFS_MAX_RANK + 1, st));
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT, "exceeds the maximum rank");
  CU_ASSERT_PTR_NULL(tfs_tensor_new(TFS_FLOAT, NULL, 2, st));
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT, "Invalid tensor shape");
  tfs_status_free(st);
}

static void test_tensor_new_copy(void) {
  tfs_status *st = tfs_status_new();
  int32_t v[3] = {1, 2, 3};
  int64_t dims[1] = {3};
  tfs_tensor *t = tfs_tensor_new_copy(TFS_INT32, dims, 1, v, sizeof v, st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_EQUAL(((int32_t *)tfs_tensor_data(t))[2], 3);
  tfs_tensor_free(t);
  CU_ASSERT_PTR_NULL(tfs_tensor_new_copy(TFS_INT32, dims, 1, v, 8, st));
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT,
                   "Expected 12 bytes of int32 data for shape, got 8");
  CU_ASSERT_PTR_NULL(tfs_tensor_new_copy(TFS_STRING, dims, 1, v, 8, st));
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT, "tfs_tensor_new_strings");
  tfs_status_free(st);
}

static int g_dealloc_calls;
static void count_dealloc(void *data, size_t len, void *arg) {
  (void)data;
  (void)len;
  g_dealloc_calls++;
  CU_ASSERT_PTR_EQUAL(arg, &g_dealloc_calls);
}

static void test_tensor_wrap(void) {
  tfs_status *st = tfs_status_new();
  float *aligned = tfs_aligned_alloc(4 * sizeof(float));
  for (int i = 0; i < 4; i++) aligned[i] = (float)i;
  int64_t dims[1] = {4};
  g_dealloc_calls = 0;
  tfs_tensor *t = tfs_tensor_wrap(TFS_FLOAT, dims, 1, aligned, 16,
                                  count_dealloc, &g_dealloc_calls, st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_PTR_EQUAL(tfs_tensor_data(t), aligned); /* no copy */
  CU_ASSERT_EQUAL(g_dealloc_calls, 0);
  tfs_tensor *r = tfs_tensor_ref(t);
  tfs_tensor_free(t);
  CU_ASSERT_EQUAL(g_dealloc_calls, 0);
  tfs_tensor_free(r);
  CU_ASSERT_EQUAL(g_dealloc_calls, 1); /* exactly once, at the last ref */
  tfs_aligned_free(aligned);

  /* misaligned data: copied, deallocator called at once */
  char *raw = tfs_aligned_alloc(64 + 16);
  float *mis = (float *)(raw + 4);
  for (int i = 0; i < 4; i++) mis[i] = (float)(10 + i);
  g_dealloc_calls = 0;
  t = tfs_tensor_wrap(TFS_FLOAT, dims, 1, mis, 16, count_dealloc,
                      &g_dealloc_calls, st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_EQUAL(g_dealloc_calls, 1);
  CU_ASSERT_PTR_NOT_EQUAL(tfs_tensor_data(t), mis);
  CU_ASSERT_EQUAL(((float *)tfs_tensor_data(t))[3], 13.0f);
  tfs_tensor_free(t);
  CU_ASSERT_EQUAL(g_dealloc_calls, 1);
  tfs_aligned_free(raw);

  /* too short */
  float small[2];
  CU_ASSERT_PTR_NULL(tfs_tensor_wrap(TFS_FLOAT, dims, 1, small, 8, NULL,
                                     NULL, st));
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT,
                   "Buffer of 8 bytes is too small for a float tensor that "
                   "needs 16 bytes");
  tfs_status_free(st);
}

static void test_tensor_strings(void) {
  tfs_status *st = tfs_status_new();
  const char *strs[3] = {"a", "", "a rather long string over 22 bytes"};
  size_t lens[3] = {1, 0, strlen(strs[2])};
  int64_t dims[1] = {3};
  tfs_tensor *t = tfs_tensor_new_strings(dims, 1, strs, lens, st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_EQUAL(tfs_tensor_byte_size(t), 3 * 24);
  size_t n;
  CU_ASSERT_STRING_EQUAL(tfs_tensor_string_at(t, 0, &n), "a");
  CU_ASSERT_EQUAL(n, 1);
  CU_ASSERT_STRING_EQUAL(tfs_tensor_string_at(t, 1, &n), "");
  CU_ASSERT_EQUAL(n, 0);
  CU_ASSERT_STRING_EQUAL(tfs_tensor_string_at(t, 2, NULL), strs[2]);
  CU_ASSERT_PTR_NULL(tfs_tensor_string_at(t, 3, &n));
  tfs_tensor_set_string(t, 1, "x\0y", 3, st);
  TFS_ASSERT_OK(st);
  const char *p = tfs_tensor_string_at(t, 1, &n);
  CU_ASSERT_EQUAL(n, 3);
  CU_ASSERT_EQUAL(memcmp(p, "x\0y", 3), 0);
  tfs_tensor_set_string(t, 7, "z", 1, st);
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT, "Cannot set element 7");
  tfs_tensor *c = tfs_tensor_clone(t, st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_STRING_EQUAL(tfs_tensor_string_at(c, 2, NULL), strs[2]);
  tfs_tensor_free(c);
  tfs_tensor *r = tfs_tensor_ref(t);
  tfs_tensor_set_string(t, 0, "z", 1, st); /* shared: refused */
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT, "unshared string tensor");
  tfs_tensor_free(r);
  tfs_tensor_free(t);
  tfs_tensor *s = tfs_tensor_scalar_string("hello", 5);
  CU_ASSERT_STRING_EQUAL(tfs_tensor_string_at(s, 0, NULL), "hello");
  tfs_tensor_free(s);
  /* NUL-terminated strings without lengths */
  t = tfs_tensor_new_strings(dims, 1, strs, NULL, st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_STRING_EQUAL(tfs_tensor_string_at(t, 2, NULL), strs[2]);
  tfs_tensor_free(t);
  tfs_status_free(st);
}

static void test_tstring_layout(void) {
  tfs_tstring s;
  tfs_tstring_init(&s);
  CU_ASSERT_EQUAL(sizeof s, 24);
  CU_ASSERT_EQUAL(tfs_tstring_type(&s), TFS_TSTR_SMALL);
  CU_ASSERT_EQUAL(tfs_tstring_copy(&s, "hi", 2), 0);
  CU_ASSERT_EQUAL(s.u.raw[0], 2 << 2); /* size shifted by two, type small */
  CU_ASSERT_EQUAL(tfs_tstring_capacity(&s), 22);
  char big[40];
  memset(big, 'q', sizeof big);
  CU_ASSERT_EQUAL(tfs_tstring_copy(&s, big, sizeof big), 0);
  CU_ASSERT_EQUAL(tfs_tstring_type(&s), TFS_TSTR_LARGE);
  CU_ASSERT_EQUAL(tfs_tstring_size(&s), 40);
  CU_ASSERT_EQUAL(tfs_tstring_capacity(&s), 40);
  tfs_tstring_assign_view(&s, "view", 4);
  CU_ASSERT_EQUAL(tfs_tstring_type(&s), TFS_TSTR_VIEW);
  CU_ASSERT_EQUAL(tfs_tstring_size(&s), 4);
  CU_ASSERT_EQUAL(memcmp(tfs_tstring_data(&s), "view", 4), 0);
  CU_ASSERT_EQUAL(tfs_tstring_capacity(&s), 0);
  tfs_tstring_dealloc(&s);
}

static void test_tensor_scalars_and_format(void) {
  tfs_tensor *a = tfs_tensor_scalar_float(2.5f);
  tfs_tensor *b = tfs_tensor_scalar_double(0.1);
  tfs_tensor *c = tfs_tensor_scalar_int32(-7);
  tfs_tensor *d = tfs_tensor_scalar_int64(1LL << 40);
  tfs_tensor *e = tfs_tensor_scalar_bool(1);
  char *s;
  s = tfs_tensor_to_string(a, 3);
  CU_ASSERT_STRING_EQUAL(s, "2.5");
  free(s);
  s = tfs_tensor_to_string(b, 3);
  CU_ASSERT_STRING_EQUAL(s, "0.1");
  free(s);
  s = tfs_tensor_to_string(c, 3);
  CU_ASSERT_STRING_EQUAL(s, "-7");
  free(s);
  s = tfs_tensor_to_string(d, 3);
  CU_ASSERT_STRING_EQUAL(s, "1099511627776");
  free(s);
  s = tfs_tensor_to_string(e, 3);
  CU_ASSERT_STRING_EQUAL(s, "1");
  free(s);
  tfs_tensor_free(a);
  tfs_tensor_free(b);
  tfs_tensor_free(c);
  tfs_tensor_free(d);
  tfs_tensor_free(e);
  float v[6] = {1, 2, 3, 4, 5, 6};
  int64_t dims[2] = {2, 3};
  tfs_tensor *m = tu_floats(dims, 2, v);
  s = tfs_tensor_to_string(m, 3);
  CU_ASSERT_STRING_EQUAL(s, "[[1 2 3]\n [4 5 6]]");
  free(s);
  s = tfs_tensor__summarize(m, 3);
  CU_ASSERT_STRING_EQUAL(s, "[1 2 3]...");
  free(s);
  /* rank 3: tf.print separates the outer blocks with a blank line, as
   * StringFormat does (one formatter) */
  {
    float v8[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    int64_t d3[3] = {2, 2, 2};
    tfs_tensor *r3 = tu_floats(d3, 3, v8);
    char *t3 = tfs_tensor_to_string(r3, 3);
    CU_ASSERT_STRING_EQUAL(t3, "[[[0 1]\n  [2 3]]\n\n [[4 5]\n  [6 7]]]");
    free(t3);
    tfs_tensor_free(r3);
  }
  s = tfs_tensor__summarize(m, -1);
  CU_ASSERT_STRING_EQUAL(s, "[1 2 3][4 5 6]");
  free(s);
  tfs_tensor_free(m);
  float w[10] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
  int64_t d1[1] = {10};
  m = tu_floats(d1, 1, w);
  s = tfs_tensor_to_string(m, 3);
  CU_ASSERT_STRING_EQUAL(s, "[0 1 2 ... 7 8 9]");
  free(s);
  s = tfs_tensor__summarize(m, 3);
  CU_ASSERT_STRING_EQUAL(s, "0 1 2...");
  free(s);
  tfs_tensor_free(m);
  int64_t d0[1] = {0};
  m = tu_floats(d0, 1, w);
  s = tfs_tensor_to_string(m, 3);
  CU_ASSERT_STRING_EQUAL(s, "[]");
  free(s);
  tfs_tensor_free(m);
  const char *strs[2] = {"a\"b", "c"};
  int64_t d2[1] = {2};
  tfs_status *st = tfs_status_new();
  m = tfs_tensor_new_strings(d2, 1, strs, NULL, st);
  s = tfs_tensor_to_string(m, 3);
  CU_ASSERT_STRING_EQUAL(s, "[\"a\\\"b\" \"c\"]");
  free(s);
  tfs_tensor_free(m);
  tfs_status_free(st);
}

static void test_half_conversions(void) {
  CU_ASSERT_EQUAL(tfs_float_to_half(1.0f), 0x3c00);
  CU_ASSERT_EQUAL(tfs_float_to_half(-2.0f), 0xc000);
  CU_ASSERT_EQUAL(tfs_float_to_half(65504.0f), 0x7bff);
  CU_ASSERT_EQUAL(tfs_float_to_half(1e6f), 0x7c00);
  CU_ASSERT_EQUAL(tfs_half_to_float(0x3555), 0.333251953125f);
  CU_ASSERT_EQUAL(tfs_half_to_float(0x0001), 5.9604644775390625e-8f);
  CU_ASSERT_EQUAL(tfs_float_to_half(5.9604644775390625e-8f), 0x0001);
  CU_ASSERT_TRUE(isnan(tfs_half_to_float(tfs_float_to_half(NAN))));
  CU_ASSERT_EQUAL(tfs_float_to_bf16(1.0f), 0x3f80);
  CU_ASSERT_EQUAL(tfs_bf16_to_float(0x4049), 3.140625f);
  CU_ASSERT_EQUAL(tfs_float_to_bf16(3.14159f), 0x4049);
  /* round to nearest even at the halfway point */
  CU_ASSERT_EQUAL(tfs_float_to_half(1.0f + 1.0f / 2048), 0x3c00);
  CU_ASSERT_EQUAL(tfs_float_to_half(1.0f + 3.0f / 2048), 0x3c02);
}

/* ---- attr values ------------------------------------------------------------ */

static void test_attr_values(void) {
  tfs_attr_value a, b;
  tfs_strbuf sb = TFS_STRBUF_INIT;
  tfs_attr_int(&a, 3);
  tfs_attr_value_summary(&sb, &a);
  CU_ASSERT_STRING_EQUAL(tfs_strbuf_str(&sb), "3");
  tfs_strbuf_free(&sb);
  CU_ASSERT_EQUAL(tfs_attr_string(&a, "NHWC", 4), 0);
  tfs_attr_value_summary(&sb, &a);
  CU_ASSERT_STRING_EQUAL(tfs_strbuf_str(&sb), "\"NHWC\"");
  tfs_strbuf_free(&sb);
  CU_ASSERT_EQUAL(tfs_attr_value_copy(&b, &a), 0);
  CU_ASSERT_TRUE(tfs_attr_value_equal(&a, &b));
  tfs_attr_value_clear(&b);
  tfs_attr_value_clear(&a);
  int64_t ints[4] = {1, 2, 2, 1};
  CU_ASSERT_EQUAL(tfs_attr_list(&a, TFS_ATTR_INT, 4, ints), 0);
  tfs_attr_value_summary(&sb, &a);
  CU_ASSERT_STRING_EQUAL(tfs_strbuf_str(&sb), "[1, 2, 2, 1]");
  tfs_strbuf_free(&sb);
  CU_ASSERT_STRING_EQUAL(tfs_attr_type_string(&a), "list(int)");
  tfs_attr_value_copy(&b, &a);
  CU_ASSERT_TRUE(tfs_attr_value_equal(&a, &b));
  ((int64_t *)b.u.list.v)[3] = 9;
  CU_ASSERT_FALSE(tfs_attr_value_equal(&a, &b));
  tfs_attr_value_clear(&a);
  tfs_attr_value_clear(&b);
  tfs_dtype types[2] = {TFS_FLOAT, TFS_INT32};
  tfs_attr_list(&a, TFS_ATTR_TYPE, 2, types);
  tfs_attr_value_summary(&sb, &a);
  CU_ASSERT_STRING_EQUAL(tfs_strbuf_str(&sb), "[DT_FLOAT, DT_INT32]");
  tfs_strbuf_free(&sb);
  tfs_attr_value_clear(&a);
  tfs_shape s;
  tfs_shape_2d(&s, -1, 3);
  tfs_attr_shape(&a, &s);
  tfs_attr_value_summary(&sb, &a);
  CU_ASSERT_STRING_EQUAL(tfs_strbuf_str(&sb), "[?,3]");
  tfs_strbuf_free(&sb);
  tfs_attr_value_clear(&a);
  tfs_tensor *t = tfs_tensor_scalar_float(1.0f);
  tfs_attr_tensor(&a, t);
  tfs_attr_value_summary(&sb, &a);
  CU_ASSERT_STRING_EQUAL(tfs_strbuf_str(&sb),
                         "<Tensor<type: float shape: [] values: 1>>");
  tfs_strbuf_free(&sb);
  tfs_attr_value_copy(&b, &a);
  CU_ASSERT_TRUE(tfs_attr_value_equal(&a, &b));
  tfs_attr_value_clear(&a);
  tfs_attr_value_clear(&b);
  tfs_tensor_free(t);
  tfs_attr_float(&a, 1e-5f);
  tfs_attr_value_summary(&sb, &a);
  CU_ASSERT_STRING_EQUAL(tfs_strbuf_str(&sb), "1e-05");
  tfs_strbuf_free(&sb);
  tfs_attr_bool(&a, 1);
  tfs_attr_value_summary(&sb, &a);
  CU_ASSERT_STRING_EQUAL(tfs_strbuf_str(&sb), "true");
  tfs_strbuf_free(&sb);
  tfs_attr_func(&a, "my_fn", 5);
  tfs_attr_value_summary(&sb, &a);
  CU_ASSERT_STRING_EQUAL(tfs_strbuf_str(&sb), "my_fn");
  tfs_strbuf_free(&sb);
  tfs_attr_value_copy(&b, &a);
  CU_ASSERT_TRUE(tfs_attr_value_equal(&a, &b));
  tfs_attr_value_clear(&a);
  tfs_attr_value_clear(&b);
  tfs_attr_placeholder(&a, "T");
  tfs_attr_value_summary(&sb, &a);
  CU_ASSERT_STRING_EQUAL(tfs_strbuf_str(&sb), "$T");
  tfs_strbuf_free(&sb);
  tfs_attr_value_clear(&a);
}

static void test_attr_map(void) {
  tfs_attrs m;
  tfs_attrs_init(&m);
  tfs_attr_value v;
  tfs_attr_int(&v, 1);
  CU_ASSERT_EQUAL(tfs_attrs_set(&m, "zeta", &v), 0);
  tfs_attr_bool(&v, 1);
  tfs_attrs_set(&m, "alpha", &v);
  tfs_attr_type_val(&v, TFS_HALF);
  tfs_attrs_set(&m, "T", &v);
  CU_ASSERT_EQUAL(m.n, 3);
  CU_ASSERT_STRING_EQUAL(m.e[0].name, "T"); /* sorted */
  CU_ASSERT_STRING_EQUAL(m.e[1].name, "alpha");
  int64_t i;
  int b;
  tfs_dtype dt;
  CU_ASSERT_EQUAL(tfs_attrs_get_int(&m, "zeta", &i), 0);
  CU_ASSERT_EQUAL(i, 1);
  CU_ASSERT_EQUAL(tfs_attrs_get_bool(&m, "alpha", &b), 0);
  CU_ASSERT_EQUAL(tfs_attrs_get_type(&m, "T", &dt), 0);
  CU_ASSERT_EQUAL(dt, TFS_HALF);
  CU_ASSERT_EQUAL(tfs_attrs_get_int(&m, "alpha", &i), -1); /* wrong kind */
  CU_ASSERT_EQUAL(tfs_attrs_get_int(&m, "nope", &i), -1);
  tfs_attr_int(&v, 5);
  tfs_attrs_set(&m, "zeta", &v); /* replace */
  tfs_attrs_get_int(&m, "zeta", &i);
  CU_ASSERT_EQUAL(i, 5);
  tfs_attrs c;
  CU_ASSERT_EQUAL(tfs_attrs_copy(&c, &m), 0);
  CU_ASSERT_TRUE(tfs_attrs_equal(&c, &m));
  CU_ASSERT_EQUAL(tfs_attrs_remove(&c, "alpha"), 0);
  CU_ASSERT_EQUAL(tfs_attrs_remove(&c, "alpha"), -1);
  CU_ASSERT_FALSE(tfs_attrs_equal(&c, &m));
  tfs_attrs_clear(&c);
  tfs_attrs_clear(&m);
}

/* ---- hash map and strings ----------------------------------------------------- */

static void test_hashmap(void) {
  tfs_map m = TFS_MAP_INIT;
  char keys[500][16];
  for (int i = 0; i < 500; i++) {
    snprintf(keys[i], sizeof keys[i], "key%d", i);
    CU_ASSERT_EQUAL(tfs_map_put_str(&m, keys[i], (void *)(intptr_t)(i + 1)), 0);
  }
  CU_ASSERT_EQUAL(m.count, 500);
  for (int i = 0; i < 500; i += 7)
    CU_ASSERT_EQUAL((intptr_t)tfs_map_get_str(&m, keys[i]), i + 1);
  CU_ASSERT_PTR_NULL(tfs_map_get_str(&m, "missing"));
  for (int i = 0; i < 500; i += 2) tfs_map_remove(&m, keys[i], strlen(keys[i]));
  CU_ASSERT_EQUAL(m.count, 250);
  CU_ASSERT_PTR_NULL(tfs_map_get_str(&m, keys[0]));
  CU_ASSERT_EQUAL((intptr_t)tfs_map_get_str(&m, keys[1]), 2);
  size_t pos = 0, seen = 0;
  const tfs_map_entry *e;
  while (tfs_map_next(&m, &pos, &e)) seen++;
  CU_ASSERT_EQUAL(seen, 250);
  tfs_map_free(&m);
}

static void test_strbuf_and_floats(void) {
  tfs_strbuf b = TFS_STRBUF_INIT;
  CU_ASSERT_STRING_EQUAL(tfs_strbuf_str(&b), "");
  tfs_strbuf_puts(&b, "ab");
  tfs_strbuf_putc(&b, 'c');
  tfs_strbuf_printf(&b, "%d", 42);
  char *s = tfs_strbuf_take(&b);
  CU_ASSERT_STRING_EQUAL(s, "abc42");
  free(s);
  char buf[64];
  tfs_format_float(buf, sizeof buf, 0.1f);
  CU_ASSERT_STRING_EQUAL(buf, "0.1");
  tfs_format_float(buf, sizeof buf, 1.0f / 3.0f);
  CU_ASSERT_STRING_EQUAL(buf, "0.333333343");
  tfs_format_float(buf, sizeof buf, INFINITY);
  CU_ASSERT_STRING_EQUAL(buf, "inf");
  tfs_format_float(buf, sizeof buf, -INFINITY);
  CU_ASSERT_STRING_EQUAL(buf, "-inf");
  tfs_format_float(buf, sizeof buf, NAN);
  CU_ASSERT_STRING_EQUAL(buf, "nan");
  tfs_format_double(buf, sizeof buf, 0.1);
  CU_ASSERT_STRING_EQUAL(buf, "0.1");
}

static void test_alloc_failure_is_reported(void) {
  tfs_status *st = tfs_status_new();
  int64_t dims[1] = {4};
  tfs_alloc_fail_at(1);
  tfs_tensor *t = tfs_tensor_new(TFS_FLOAT, dims, 1, st);
  tfs_alloc_fail_at(0);
  CU_ASSERT_PTR_NULL(t);
  TFS_ASSERT_ERROR(st, TFS_RESOURCE_EXHAUSTED, "out of memory");
  tfs_status_free(st);
}

static const tfs_test_case status_cases[] = {
    {"lifecycle", test_status_lifecycle},
    {"codes_are_tensorflows", test_status_codes_are_tensorflows},
    {"format_helpers", test_status_format_helpers},
    {"version", test_version},
    {NULL, NULL}};
static const tfs_test_case dtype_cases[] = {
    {"numbers_and_names", test_dtype_numbers_and_names},
    {"refs", test_dtype_refs},
    {"half_conversions", test_half_conversions},
    {NULL, NULL}};
static const tfs_test_case shape_cases[] = {
    {"printing", test_shape_printing},
    {"set_errors", test_shape_set_errors},
    {"overflow", test_shape_overflow},
    {"merge_compat_broadcast", test_shape_merge_compat_broadcast},
    {NULL, NULL}};
static const tfs_test_case tensor_cases[] = {
    {"new_and_queries", test_tensor_new_and_queries},
    {"new_errors", test_tensor_new_errors},
    {"new_copy", test_tensor_new_copy},
    {"wrap", test_tensor_wrap},
    {"strings", test_tensor_strings},
    {"tstring_layout", test_tstring_layout},
    {"scalars_and_format", test_tensor_scalars_and_format},
    {"alloc_failure_is_reported", test_alloc_failure_is_reported},
    {NULL, NULL}};
static const tfs_test_case util_cases[] = {
    {"attr_values", test_attr_values},
    {"attr_map", test_attr_map},
    {"hashmap", test_hashmap},
    {"strbuf_and_floats", test_strbuf_and_floats},
    {NULL, NULL}};

const tfs_test_suite tfs_test_suites[] = {
    {"status", status_cases}, {"dtype", dtype_cases},
    {"shape", shape_cases},   {"tensor", tensor_cases},
    {"util", util_cases},     {NULL, NULL}};
