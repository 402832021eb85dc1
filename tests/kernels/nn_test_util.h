/*
 * tests/kernels/nn_test_util.h - helpers of the nn kernel suites: run one
 * op over fed placeholders (so the kernel, not shape inference, sees the
 * inputs) or over constants (so shape inference does), random tensors,
 * element access and comparison.
 */
#ifndef TFS_TESTS_NN_TEST_UTIL_H
#define TFS_TESTS_NN_TEST_UTIL_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "session/exec.h"
#include "testutil.h"

/* An attr: kind 'l' int list (n values in iv), 'i' int, 's' string,
 * 'S' string list (n = 0 or 1: empty, or the one string s), 'f' float,
 * 'b' bool, 't' type. */
typedef struct nt_attr {
  const char *name;
  char kind;
  int n;
  int64_t iv[8];
  const char *s;
  double f;
} nt_attr;

#define NT_LIST4(nm, a, b, c, d) \
  { nm, 'l', 4, {a, b, c, d}, NULL, 0 }
#define NT_STR(nm, v) \
  { nm, 's', 0, {0}, v, 0 }
#define NT_INT(nm, v) \
  { nm, 'i', 0, {v}, NULL, 0 }
#define NT_FLOAT(nm, v) \
  { nm, 'f', 0, {0}, NULL, v }
#define NT_BOOL(nm, v) \
  { nm, 'b', 0, {v}, NULL, 0 }

static inline void nt_set_attrs(tfs_op_desc *d, const nt_attr *a, int n) {
  for (int i = 0; i < n; i++) {
    switch (a[i].kind) {
      case 'l':
        tfs_op_desc_set_attr_int_list(d, a[i].name, a[i].iv, a[i].n);
        break;
      case 'i':
        tfs_op_desc_set_attr_int(d, a[i].name, a[i].iv[0]);
        break;
      case 's':
        tfs_op_desc_set_attr_string(d, a[i].name, a[i].s, strlen(a[i].s));
        break;
      case 'S': {
        const void *v[1] = {a[i].s};
        size_t len[1] = {a[i].s ? strlen(a[i].s) : 0};
        tfs_op_desc_set_attr_string_list(d, a[i].name, v, len, a[i].n);
        break;
      }
      case 'f':
        tfs_op_desc_set_attr_float(d, a[i].name, (float)a[i].f);
        break;
      case 'b':
        tfs_op_desc_set_attr_bool(d, a[i].name, (int)a[i].iv[0]);
        break;
      default:
        tfs_op_desc_set_attr_type(d, a[i].name, (tfs_dtype)a[i].iv[0]);
        break;
    }
  }
}

/* Node `name` running op on a, and b too when b.oper is not NULL, with
 * attrs at[0..nat). */
static inline tfs_output nt_node(tfs_graph *g, const char *op,
                                 const char *name, tfs_output a, tfs_output b,
                                 const nt_attr *at, int nat, tfs_status *st) {
  tfs_op_desc *d = tfs_op_desc_new(g, op, name);
  tfs_op_desc_add_input(d, a);
  if (b.oper) tfs_op_desc_add_input(d, b);
  nt_set_attrs(d, at, nat);
  return (tfs_output){tfs_op_desc_finish(d, st), 0};
}

/* MobileNet's expansion and depthwise step on x: Conv2D(x, c[0]) with
 * strides sh and SAME padding, BiasAdd(c[1]) [, act1] (its output into
 * *mid), DepthwiseConv2dNative(c[2]) with strides dsh, padding dpad and
 * dilation dd, BiasAdd(c[3]) [, act2] (act NULL: none); c holds the four
 * constants.  Returns the last node's output. */
static inline tfs_output nt_conv_dw_chain(tfs_graph *g, tfs_output x,
                                          tfs_tensor *const *c, int64_t sh,
                                          const char *act1, int64_t dsh,
                                          const char *dpad, int64_t dd,
                                          const char *act2, tfs_output *mid,
                                          tfs_status *st) {
  const tfs_output none = {NULL, 0};
  nt_attr ca[2] = {NT_LIST4("strides", 1, sh, sh, 1),
                   NT_STR("padding", "SAME")};
  tfs_output y = nt_node(g, "Conv2D", "conv", x, tfs_op_const(g, "f", c[0], st),
                         ca, 2, st);
  y = nt_node(g, "BiasAdd", "bias", y, tfs_op_const(g, "b", c[1], st), NULL,
              0, st);
  if (act1) y = nt_node(g, act1, "act1", y, none, NULL, 0, st);
  *mid = y;
  nt_attr da[3] = {NT_LIST4("strides", 1, dsh, dsh, 1), NT_STR("padding", dpad),
                   NT_LIST4("dilations", 1, dd, dd, 1)};
  y = nt_node(g, "DepthwiseConv2dNative", "dw", y,
              tfs_op_const(g, "df", c[2], st), da, 3, st);
  y = nt_node(g, "BiasAdd", "dbias", y, tfs_op_const(g, "db", c[3], st), NULL,
              0, st);
  if (act2) y = nt_node(g, act2, "act2", y, none, NULL, 0, st);
  return y;
}

/* Runs fetch[0..nf) of g with x fed xv, in a callable of a session with
 * a pool of `threads` intra-op threads of its own; *count receives how
 * many nodes of type op_type its plan holds.  Returns the first output
 * (the caller frees it). */
static inline tfs_tensor *nt_run_plan(tfs_graph *g, tfs_output x,
                                      tfs_tensor *xv, const tfs_output *fetch,
                                      int nf, int threads,
                                      const char *op_type, int *count,
                                      tfs_status *st) {
  tfs_session_options *o = tfs_session_options_new();
  tu_own_pools(o, threads);
  tfs_session *s = tfs_session_new(g, o, st);
  TFS_ASSERT_OK(st);
  tfs_callable *cl =
      tfs_session_make_callable(s, &x, 1, fetch, nf, NULL, 0, NULL, st);
  TFS_ASSERT_OK(st);
  const tfs_plan *p = tfs_callable__plan(cl);
  *count = 0;
  for (int i = 0; i < p->nnodes; i++)
    *count += strcmp(tfs_operation_op_type(p->nodes[i].op), op_type) == 0;
  tfs_tensor *out[8] = {NULL};
  tfs_callable_run(cl, &xv, 1, out, nf, st);
  TFS_ASSERT_OK(st);
  for (int i = 1; i < nf; i++) tfs_tensor_free(out[i]);
  tfs_callable_free(cl);
  tfs_session_free(s);
  tfs_session_options_free(o);
  return out[0];
}

/* Runs `op` on inputs fed through unknown-shape placeholders (consts=0)
 * or held in Const nodes (consts=1); fetches outputs 0..nout-1.  Returns
 * the status code; on error msg receives the message and outs stay
 * NULL. */
static inline tfs_code nt_run_ex(const char *op, tfs_tensor *const *in,
                                 int nin, const nt_attr *attrs, int nattrs,
                                 tfs_tensor **outs, int nout, char *msg,
                                 size_t cap, int consts) {
  tfs_status *st = tfs_status_new();
  tfs_graph *g = tfs_graph_new();
  tfs_output feeds[8];
  for (int i = 0; i < nin; i++) {
    char name[16];
    snprintf(name, sizeof name, "in%d", i);
    feeds[i] = consts ? tfs_op_const(g, name, in[i], st)
                      : tfs_op_placeholder(g, name, tfs_tensor_dtype(in[i]),
                                           NULL, -1, st);
    TFS_ASSERT_OK(st);
  }
  tfs_op_desc *d = tfs_op_desc_new(g, op, "node");
  for (int i = 0; i < nin; i++) tfs_op_desc_add_input(d, feeds[i]);
  nt_set_attrs(d, attrs, nattrs);
  tfs_operation *o = tfs_op_desc_finish(d, st);
  tfs_code code = tfs_status_code(st);
  if (o) {
    tfs_session *s = tfs_session_new(g, NULL, st);
    TFS_ASSERT_OK(st);
    tfs_output fetch[8];
    for (int i = 0; i < nout; i++) fetch[i] = (tfs_output){o, i};
    tfs_session_run(s, consts ? NULL : feeds, consts ? NULL : in,
                    consts ? 0 : nin, fetch, outs, nout, NULL, 0, st);
    code = tfs_status_code(st);
    tfs_session_free(s);
  }
  if (msg && cap) snprintf(msg, cap, "%s", tfs_status_message(st));
  tfs_graph_free(g);
  tfs_status_free(st);
  return code;
}

static inline tfs_code nt_run(const char *op, tfs_tensor *const *in,
                              int nin, const nt_attr *attrs, int nattrs,
                              tfs_tensor **outs, int nout, char *msg,
                              size_t cap) {
  return nt_run_ex(op, in, nin, attrs, nattrs, outs, nout, msg, cap, 0);
}

/* Runs and asserts success; returns output 0 (caller frees). */
static inline tfs_tensor *nt_run1(const char *op, tfs_tensor *const *in,
                                  int nin, const nt_attr *attrs,
                                  int nattrs) {
  tfs_tensor *out = NULL;
  char msg[2048];
  tfs_code code = nt_run(op, in, nin, attrs, nattrs, &out, 1, msg, sizeof msg);
  if (code != TFS_OK) fprintf(stderr, "\n  %s failed: %s\n", op, msg);
  CU_ASSERT_EQUAL(code, TFS_OK);
  return out;
}

/* Asserts that running op fails with `code` and a message containing
 * `needle` followed by TensorFlow's node suffix. */
#define NT_EXPECT_ERROR(op, in, nin, attrs, nattrs, code, needle)           \
  do {                                                                      \
    char m_[4096];                                                          \
    tfs_tensor *o_[8] = {NULL};                                             \
    tfs_code c_ = nt_run(op, in, nin, attrs, nattrs, o_, 1, m_, sizeof m_); \
    int ok_ = c_ == (code) && strstr(m_, needle) != NULL &&                 \
              strstr(m_, "{{node node}}") != NULL;                          \
    if (!ok_)                                                               \
      fprintf(stderr, "\n  %s:%d: expected %s \"%s\"\n    got %s: %s\n",    \
              __FILE__, __LINE__, tfs_code_name(code), needle,              \
              tfs_code_name(c_), m_);                                       \
    CU_ASSERT_TRUE(ok_);                                                    \
    tfs_tensor_free(o_[0]);                                                 \
  } while (0)

/* Same with Const inputs: shape inference rejects the node at build. */
#define NT_EXPECT_BUILD_ERROR(op, in, nin, attrs, nattrs, needle)       \
  do {                                                                  \
    char m_[4096];                                                      \
    tfs_tensor *o_[8] = {NULL};                                         \
    tfs_code c_ =                                                       \
        nt_run_ex(op, in, nin, attrs, nattrs, o_, 1, m_, sizeof m_, 1); \
    int ok_ = c_ == TFS_INVALID_ARGUMENT && strstr(m_, needle) != NULL; \
    if (!ok_)                                                           \
      fprintf(stderr,                                                   \
              "\n  %s:%d: expected build error \"%s\"\n    got %s: "    \
              "%s\n",                                                   \
              __FILE__, __LINE__, needle, tfs_code_name(c_), m_);       \
    CU_ASSERT_TRUE(ok_);                                                \
    tfs_tensor_free(o_[0]);                                             \
  } while (0)

static inline tfs_tensor *nt_tensor(tfs_dtype dt, const int64_t *dims,
                                    int nd, const void *data) {
  tfs_status *st = tfs_status_new();
  tfs_tensor *t = tfs_tensor_new(dt, dims, nd, st);
  TFS_ASSERT_OK(st);
  if (data) memcpy(tfs_tensor_data(t), data, tfs_tensor_byte_size(t));
  tfs_status_free(st);
  return t;
}

static inline tfs_tensor *nt_f32(const int64_t *dims, int nd, const float *v) {
  return nt_tensor(TFS_FLOAT, dims, nd, v);
}

/* Deterministic pseudo-random floats in [-1, 1). */
static inline float nt_rand(uint32_t *s) {
  *s = *s * 1664525u + 1013904223u;
  return (float)((*s >> 8) & 0xffffff) / 8388608.0f - 1.0f;
}

static inline tfs_tensor *nt_random(const int64_t *dims, int nd,
                                    uint32_t seed) {
  tfs_tensor *t = nt_tensor(TFS_FLOAT, dims, nd, NULL);
  float *p = tfs_tensor_data(t);
  for (int64_t i = 0; i < tfs_tensor_num_elements(t); i++)
    p[i] = nt_rand(&seed);
  return t;
}

/* Asserts t is float with these dims and close to `want` (relative and
 * absolute tolerance). */
static inline void nt_check_f32(const tfs_tensor *t, const int64_t *dims,
                                int nd, const float *want, double rtol,
                                double atol) {
  CU_ASSERT_PTR_NOT_NULL_FATAL(t);
  CU_ASSERT_EQUAL_FATAL(tfs_tensor_dtype(t), TFS_FLOAT);
  CU_ASSERT_EQUAL_FATAL(tfs_tensor_ndims(t), nd);
  for (int i = 0; i < nd; i++)
    CU_ASSERT_EQUAL_FATAL(tfs_tensor_dim(t, i), dims[i]);
  const float *got = tfs_tensor_data(t);
  int bad = 0;
  for (int64_t i = 0; i < tfs_tensor_num_elements(t); i++) {
    double g = got[i], w = want[i];
    int ok = (isnan(g) && isnan(w)) || g == w ||
             fabs(g - w) <= atol + rtol * fabs(w);
    if (!ok && bad++ < 5)
      fprintf(stderr, "\n  element %lld: got %.9g want %.9g", (long long)i, g,
              w);
  }
  CU_ASSERT_EQUAL(bad, 0);
}

#endif
