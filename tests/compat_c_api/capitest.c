/*
 * tests/compat_c_api/capitest.c - graph and tensor helpers of the
 * TensorFlow C API suites, written with TF_* calls only.
 */
#include "capitest.h"

#include <stdlib.h>

TF_Operation *ct_placeholder(TF_Graph *g, const char *name, TF_DataType dt,
                             const int64_t *dims, int ndims) {
  TF_Status *s = TF_NewStatus();
  TF_OperationDescription *d = TF_NewOperation(g, "Placeholder", name);
  TF_SetAttrType(d, "dtype", dt);
  if (ndims >= -1) TF_SetAttrShape(d, "shape", dims, ndims);
  TF_Operation *op = TF_FinishOperation(d, s);
  CT_ASSERT_OK(s);
  TF_DeleteStatus(s);
  return op;
}

static TF_Operation *make_const(TF_Graph *g, const char *name, TF_Tensor *t) {
  TF_Status *s = TF_NewStatus();
  TF_OperationDescription *d = TF_NewOperation(g, "Const", name);
  TF_SetAttrTensor(d, "value", t, s);
  CT_ASSERT_OK(s);
  TF_SetAttrType(d, "dtype", TF_TensorType(t));
  TF_DeleteTensor(t); /* TF_SetAttrTensor copied it */
  TF_Operation *op = TF_FinishOperation(d, s);
  CT_ASSERT_OK(s);
  TF_DeleteStatus(s);
  return op;
}

TF_Operation *ct_const_floats(TF_Graph *g, const char *name,
                              const float *values, const int64_t *dims,
                              int ndims) {
  return make_const(g, name, ct_floats(dims, ndims, values));
}

TF_Operation *ct_const_int32s(TF_Graph *g, const char *name,
                              const int32_t *values, const int64_t *dims,
                              int ndims) {
  return make_const(g, name, ct_int32s(dims, ndims, values));
}

TF_Operation *ct_scalar_float(TF_Graph *g, const char *name, float v) {
  return ct_const_floats(g, name, &v, NULL, 0);
}

TF_Operation *ct_unary(TF_Graph *g, const char *type, const char *name,
                       TF_Operation *x) {
  TF_Status *s = TF_NewStatus();
  TF_OperationDescription *d = TF_NewOperation(g, type, name);
  TF_Output in = {x, 0};
  TF_AddInput(d, in);
  TF_Operation *op = TF_FinishOperation(d, s);
  CT_ASSERT_OK(s);
  TF_DeleteStatus(s);
  return op;
}

TF_Operation *ct_binary(TF_Graph *g, const char *type, const char *name,
                        TF_Operation *x, TF_Operation *y) {
  TF_Status *s = TF_NewStatus();
  TF_OperationDescription *d = TF_NewOperation(g, type, name);
  TF_Output a = {x, 0}, b = {y, 0};
  TF_AddInput(d, a);
  TF_AddInput(d, b);
  TF_Operation *op = TF_FinishOperation(d, s);
  CT_ASSERT_OK(s);
  TF_DeleteStatus(s);
  return op;
}

static size_t count(const int64_t *dims, int ndims) {
  size_t n = 1;
  for (int i = 0; i < ndims; i++) n *= (size_t)dims[i];
  return n;
}

TF_Tensor *ct_floats(const int64_t *dims, int ndims, const float *values) {
  size_t n = count(dims, ndims);
  TF_Tensor *t = TF_AllocateTensor(TF_FLOAT, dims, ndims, n * sizeof(float));
  CU_ASSERT_PTR_NOT_NULL_FATAL(t);
  if (n) memcpy(TF_TensorData(t), values, n * sizeof(float));
  return t;
}

TF_Tensor *ct_int32s(const int64_t *dims, int ndims, const int32_t *values) {
  size_t n = count(dims, ndims);
  TF_Tensor *t = TF_AllocateTensor(TF_INT32, dims, ndims, n * sizeof(int32_t));
  CU_ASSERT_PTR_NOT_NULL_FATAL(t);
  if (n) memcpy(TF_TensorData(t), values, n * sizeof(int32_t));
  return t;
}

TF_Tensor *ct_strings(const int64_t *dims, int ndims, const char *const *str,
                      const size_t *lens) {
  size_t n = count(dims, ndims);
  TF_Tensor *t = TF_AllocateTensor(TF_STRING, dims, ndims,
                                   n * sizeof(TF_TString));
  CU_ASSERT_PTR_NOT_NULL_FATAL(t);
  TF_TString *e = (TF_TString *)TF_TensorData(t);
  for (size_t i = 0; i < n; i++) {
    TF_StringInit(&e[i]);
    TF_StringCopy(&e[i], str[i], lens ? lens[i] : strlen(str[i]));
  }
  return t;
}

TF_Buffer *ct_read_file(const char *relpath) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", TFS_TEST_SRCDIR, relpath);
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *data = malloc(n > 0 ? (size_t)n : 1);
  size_t got = data ? fread(data, 1, (size_t)n, f) : 0;
  fclose(f);
  TF_Buffer *b = TF_NewBufferFromString(data, got);
  free(data);
  return b;
}

TF_Tensor *ct_run1(TF_Session *sess, TF_Output fetch, const TF_Output *feeds,
                   TF_Tensor *const *values, int nfeeds) {
  TF_Status *s = TF_NewStatus();
  TF_Tensor *out = NULL;
  TF_SessionRun(sess, NULL, feeds, values, nfeeds, &fetch, &out, 1, NULL, 0,
                NULL, s);
  CT_ASSERT_OK(s);
  TF_DeleteStatus(s);
  return out;
}
