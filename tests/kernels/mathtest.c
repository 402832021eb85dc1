/*
 * tests/kernels/mathtest.c - helpers of the math, random and logging op
 * suites (see mathtest.h).
 */
#include "mathtest.h"

#include <math.h>
#include <stdlib.h>

#include "core/half.h"
#include "core/tensor.h"

static char g_msg[4096];
static int g_threads;

void mt_set_threads(int n) { g_threads = n; }

/* Builds the graph; returns the fetch or {NULL, 0} with st set. */
static tfs_output build(tfs_graph *g, const mt_op *op,
                        tfs_tensor *const *vals, int n, tfs_output *ph,
                        tfs_status *st) {
  tfs_output none = {NULL, 0};
  for (int i = 0; i < n; i++) {
    char name[16];
    snprintf(name, sizeof name, "in%d", i);
    ph[i] = tfs_op_placeholder(g, name, tfs_tensor_dtype(vals[i]), NULL, -1,
                               st);
    if (tfs_status_code(st) != TFS_OK) return none;
  }
  tfs_op_desc *d = tfs_op_desc_new(g, op->op, "op");
  int fixed = op->list_from >= 0 ? op->list_from : n;
  for (int i = 0; i < fixed; i++) tfs_op_desc_add_input(d, ph[i]);
  if (op->list_from >= 0)
    tfs_op_desc_add_input_list(d, ph + fixed, n - fixed);
  if (op->attrs) op->attrs(d, op->arg);
  tfs_operation *o = tfs_op_desc_finish(d, st);
  if (!o) return none;
  tfs_output out = {o, 0};
  return out;
}

static tfs_code eval(const mt_op *op, tfs_tensor *const *vals, int n,
                     tfs_tensor **out) {
  tfs_graph *g = tfs_graph_new();
  tfs_status *st = tfs_status_new();
  tfs_output ph[16];
  tfs_session *s = NULL;
  *out = NULL;
  CU_ASSERT_FATAL(n <= 16);
  tfs_output fetch = build(g, op, vals, n, ph, st);
  if (fetch.oper) {
    tfs_session_options *o = tfs_session_options_new();
    if (g_threads > 0) tu_own_pools(o, g_threads);
    s = tfs_session_new(g, o, st);
    tfs_session_options_free(o);
  }
  if (s) {
    tfs_session_run(s, ph, vals, n, &fetch, out, 1, NULL, 0, st);
  }
  tfs_code code = tfs_status_code(st);
  snprintf(g_msg, sizeof g_msg, "%s", tfs_status_message(st));
  tfs_session_free(s);
  tfs_graph_free(g);
  tfs_status_free(st);
  return code;
}

tfs_tensor *mt_eval(const mt_op *op, tfs_tensor *const *vals, int n) {
  tfs_tensor *out;
  tfs_code code = eval(op, vals, n, &out);
  if (code != TFS_OK)
    fprintf(stderr, "\n  %s failed: %s\n", op->op, g_msg);
  CU_ASSERT_EQUAL_FATAL(code, TFS_OK);
  CU_ASSERT_PTR_NOT_NULL_FATAL(out);
  return out;
}

tfs_code mt_eval_fail(const mt_op *op, tfs_tensor *const *vals, int n,
                      const char **msg) {
  tfs_tensor *out;
  tfs_code code = eval(op, vals, n, &out);
  CU_ASSERT_PTR_NULL(out);
  tfs_tensor_free(out);
  CU_ASSERT_NOT_EQUAL(code, TFS_OK);
  *msg = g_msg;
  return code;
}

static void set_elem(tfs_tensor *t, int64_t i, double v, double im) {
  void *d = tfs_tensor_data(t);
  switch (tfs_tensor_dtype(t)) {
    case TFS_FLOAT: ((float *)d)[i] = (float)v; break;
    case TFS_DOUBLE: ((double *)d)[i] = v; break;
    case TFS_HALF: ((uint16_t *)d)[i] = tfs_float_to_half((float)v); break;
    case TFS_BFLOAT16: ((uint16_t *)d)[i] = tfs_float_to_bf16((float)v); break;
    case TFS_INT8: ((int8_t *)d)[i] = (int8_t)v; break;
    case TFS_INT16: ((int16_t *)d)[i] = (int16_t)v; break;
    case TFS_INT32: ((int32_t *)d)[i] = (int32_t)v; break;
    case TFS_INT64: ((int64_t *)d)[i] = (int64_t)v; break;
    case TFS_UINT8: ((uint8_t *)d)[i] = (uint8_t)v; break;
    case TFS_UINT16: ((uint16_t *)d)[i] = (uint16_t)v; break;
    case TFS_UINT32: ((uint32_t *)d)[i] = (uint32_t)v; break;
    case TFS_UINT64: ((uint64_t *)d)[i] = (uint64_t)v; break;
    case TFS_BOOL: ((uint8_t *)d)[i] = v != 0; break;
    case TFS_COMPLEX64:
      ((float *)d)[2 * i] = (float)v;
      ((float *)d)[2 * i + 1] = (float)im;
      break;
    case TFS_COMPLEX128:
      ((double *)d)[2 * i] = v;
      ((double *)d)[2 * i + 1] = im;
      break;
    default: CU_FAIL("unsupported dtype in mt_t");
  }
}

tfs_tensor *mt_t(tfs_dtype dt, int nd, const int64_t *dims,
                 const double *values) {
  tfs_status *st = tfs_status_new();
  tfs_tensor *t = tfs_tensor_new(dt, dims, nd, st);
  TFS_ASSERT_OK(st);
  tfs_status_free(st);
  for (int64_t i = 0; i < tfs_tensor_num_elements(t); i++)
    set_elem(t, i, values ? values[i] : 0, 0);
  return t;
}

tfs_tensor *mt_complex(tfs_dtype dt, int nd, const int64_t *dims,
                       const double *pairs) {
  tfs_tensor *t = mt_t(dt, nd, dims, NULL);
  for (int64_t i = 0; i < tfs_tensor_num_elements(t); i++)
    set_elem(t, i, pairs[2 * i], pairs[2 * i + 1]);
  return t;
}

tfs_tensor *mt_scalar(tfs_dtype dt, double v) {
  return mt_t(dt, 0, NULL, &v);
}

double mt_get(const tfs_tensor *t, int64_t i) {
  const void *d = tfs_tensor_data(t);
  switch (tfs_tensor_dtype(t)) {
    case TFS_COMPLEX64: return ((const float *)d)[2 * i];
    case TFS_COMPLEX128: return ((const double *)d)[2 * i];
    default: return tfs_tensor__get_as_double(t, i);
  }
}

double mt_imag(const tfs_tensor *t, int64_t i) {
  const void *d = tfs_tensor_data(t);
  switch (tfs_tensor_dtype(t)) {
    case TFS_COMPLEX64: return ((const float *)d)[2 * i + 1];
    case TFS_COMPLEX128: return ((const double *)d)[2 * i + 1];
    default: return 0;
  }
}

static int close_enough(double got, double want, double tol) {
  if (isnan(want)) return isnan(got);
  if (isinf(want)) return got == want;
  if (tol == 0) return got == want;
  return fabs(got - want) <= tol * (1 + fabs(want));
}

static void expect_shape(const tfs_tensor *t, tfs_dtype dt, int nd,
                         const int64_t *dims) {
  CU_ASSERT_PTR_NOT_NULL_FATAL(t);
  CU_ASSERT_EQUAL_FATAL(tfs_tensor_dtype(t), dt);
  CU_ASSERT_EQUAL_FATAL(tfs_tensor_ndims(t), nd);
  for (int i = 0; i < nd; i++) CU_ASSERT_EQUAL(tfs_tensor_dim(t, i), dims[i]);
}

void mt_expect(const tfs_tensor *t, tfs_dtype dt, int nd, const int64_t *dims,
               const double *expected, double tol) {
  expect_shape(t, dt, nd, dims);
  for (int64_t i = 0; i < tfs_tensor_num_elements(t); i++) {
    double got = mt_get(t, i);
    if (!close_enough(got, expected[i], tol)) {
      fprintf(stderr, "\n  element %lld: got %.17g, expected %.17g\n",
              (long long)i, got, expected[i]);
      CU_FAIL("value mismatch");
      return;
    }
  }
}

void mt_expect_complex(const tfs_tensor *t, tfs_dtype dt, int nd,
                       const int64_t *dims, const double *pairs, double tol) {
  expect_shape(t, dt, nd, dims);
  for (int64_t i = 0; i < tfs_tensor_num_elements(t); i++) {
    double re = mt_get(t, i), im = mt_imag(t, i);
    if (!close_enough(re, pairs[2 * i], tol) ||
        !close_enough(im, pairs[2 * i + 1], tol)) {
      fprintf(stderr, "\n  element %lld: got (%.9g, %.9g), expected "
              "(%.9g, %.9g)\n", (long long)i, re, im, pairs[2 * i],
              pairs[2 * i + 1]);
      CU_FAIL("value mismatch");
      return;
    }
  }
}

static tfs_tensor **g_tmp;
static int g_ntmp, g_captmp;

static void free_tmp(void) {
  for (int i = 0; i < g_ntmp; i++) tfs_tensor_free(g_tmp[i]);
  free(g_tmp);
  g_tmp = NULL;
  g_ntmp = g_captmp = 0;
}

tfs_tensor *mt_tmp(tfs_tensor *t) {
  if (g_ntmp == g_captmp) {
    if (!g_tmp) atexit(free_tmp);
    int cap = g_captmp ? 2 * g_captmp : 64;
    tfs_tensor **v = realloc(g_tmp, sizeof(*v) * (size_t)cap);
    CU_ASSERT_PTR_NOT_NULL_FATAL(v);
    g_tmp = v;
    g_captmp = cap;
  }
  g_tmp[g_ntmp++] = t;
  return t;
}

void mt_free_all(tfs_tensor **ts, int n) {
  for (int i = 0; i < n; i++) tfs_tensor_free(ts[i]);
}
