/*
 * tests/optimizer/opttest.c - helpers of the targeted optimizer tests
 * (see opttest.h).
 */
#include "opttest.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config_proto/config.h"
#include "graph_builder/graph_internal.h"

tfs_graph *g;
tfs_status *st;
tfs_optimizer_report *ot_report;
ot_config_t ot_config;

void ot_setup(void) {
  g = tfs_graph_new();
  st = tfs_status_new();
  memset(&ot_config, 0, sizeof ot_config);
  ot_config.min_graph_nodes = -1;
  tfs_optimizer_reset_experimental_options();
}

void ot_teardown(void) {
  tfs_optimizer_report_free(ot_report);
  ot_report = NULL;
  tfs_graph_free(g);
  tfs_status_free(st);
  tfs_optimizer_reset_experimental_options();
}

tfs_output ot_placeholder(const char *name, int rank) {
  int64_t d2[2] = {2, 3}, d4[4] = {1, 5, 5, 3};
  return tfs_op_placeholder(g, name, TFS_FLOAT, rank == 4 ? d4 : d2,
                            rank == 4 ? 4 : 2, st);
}

tfs_output ot_const_shape(const char *name, const int64_t *dims, int rank) {
  tfs_tensor *t = tfs_tensor_new(TFS_FLOAT, dims, rank, st);
  float *d = tfs_tensor_data(t);
  for (int64_t i = 0; i < tfs_tensor_num_elements(t); i++)
    d[i] = (float)((i * 7) % 11) / 8.0f - 0.5f;
  tfs_output o = tfs_op_const(g, name, t, st);
  tfs_tensor_free(t);
  return o;
}

tfs_output ot_const_like(const char *name, float v) {
  int64_t d[2] = {2, 3};
  tfs_tensor *t = tfs_tensor_new(TFS_FLOAT, d, 2, st);
  for (int i = 0; i < 6; i++) ((float *)tfs_tensor_data(t))[i] = v + 0.125f * i;
  tfs_output o = tfs_op_const(g, name, t, st);
  tfs_tensor_free(t);
  return o;
}

tfs_output ot_matrix(const char *name, int64_t rows, int64_t cols) {
  int64_t d[2] = {rows, cols};
  return ot_const_shape(name, d, 2);
}

static tfs_output int_vector(const char *name, const int32_t *v, int n) {
  int64_t d[1] = {n};
  tfs_tensor *t =
      tfs_tensor_new_copy(TFS_INT32, d, 1, v, sizeof(int32_t) * (size_t)n, st);
  tfs_output o = tfs_op_const(g, name, t, st);
  tfs_tensor_free(t);
  return o;
}

tfs_output ot_transpose(const char *name, tfs_output x, const int32_t *perm) {
  char pn[64];
  snprintf(pn, sizeof pn, "%s_perm", name);
  int rank = tfs_graph_tensor_num_dims(g, x, st);
  tfs_output p = int_vector(pn, perm, rank);
  tfs_op_desc *d = tfs_op_desc_new(g, "Transpose", name);
  tfs_op_desc_add_input(d, x);
  tfs_op_desc_add_input(d, p);
  tfs_operation *op = tfs_op_desc_finish(d, st);
  return (tfs_output){op, op ? 0 : -1};
}

tfs_output ot_reshape(const char *name, tfs_output x, const int32_t *shape,
                      int n) {
  char sn[64];
  snprintf(sn, sizeof sn, "%s_shape", name);
  return tfs_op_reshape(g, name, x, int_vector(sn, shape, n), st);
}

tfs_buffer *ot_config_bytes(void) {
  tfs_config c;
  tfs_config__init(&c);
  c.has_graph_options = 1;
  c.graph_options.has_rewrite_options = 1;
  tfs_rewriter_config *rc = &c.graph_options.rewrite_options;
  rc->min_graph_nodes = ot_config.min_graph_nodes;
  rc->cpu_layout_conversion = ot_config.layout;
  rc->meta_optimizer_iterations = ot_config.iterations;
  rc->fail_on_optimizer_errors = ot_config.fail_on_errors;
  rc->disable_meta_optimizer = ot_config.disable;
  if (ot_config.amp) rc->auto_mixed_precision_onednn_bfloat16 = TFS_TOGGLE_ON;
  if (ot_config.arithmetic_off) rc->arithmetic_optimization = TFS_TOGGLE_OFF;
  if (ot_config.max_fold_bytes) {
    c.graph_options.has_optimizer_options = 1;
    c.graph_options.optimizer_options.max_folded_constant_in_bytes =
        ot_config.max_fold_bytes;
  }
  tfs_buffer *b = tfs_buffer_new();
  tfs_status *s = tfs_status_new();
  tfs_config__serialize(&c, b, s);
  CU_ASSERT_EQUAL(tfs_status_code(s), TFS_OK);
  tfs_status_free(s);
  tfs_config__clear(&c);
  return b;
}

tfs_graph *ot_optimize(const tfs_output *feeds, int nfeeds,
                       const tfs_output *fetches, int nfetches,
                       const char *passes) {
  tfs_optimizer_options *o = tfs_optimizer_options_new();
  tfs_buffer *b = ot_config_bytes();
  tfs_optimizer_options_set_config(o, b->data, b->length, st);
  tfs_buffer_free(b);
  TFS_ASSERT_OK(st);
  if (passes) tfs_optimizer_options_set_passes(o, passes, st);
  TFS_ASSERT_OK(st);
  tfs_optimizer_options_set_tf_compatible(o, ot_config.tf_compatible);
  tfs_optimizer_report_free(ot_report);
  ot_report = NULL;
  tfs_graph *og = tfs_graph_optimize(g, feeds, nfeeds, fetches, nfetches, NULL,
                                     0, o, &ot_report, st);
  tfs_optimizer_options_free(o);
  TFS_ASSERT_OK(st);
  CU_ASSERT_PTR_NOT_NULL_FATAL(og);
  return og;
}

const char *ot_summary(int i) {
  const char *s = tfs_optimizer_report_summary(ot_report, i);
  return s ? s : "";
}

int ot_entry(const char *pass) {
  for (int i = 0; i < tfs_optimizer_report_num_entries(ot_report); i++)
    if (strcmp(tfs_optimizer_report_pass(ot_report, i), pass) == 0 &&
        tfs_optimizer_report_iteration(ot_report, i) == 0)
      return i;
  return -1;
}

const char *ot_type(tfs_graph *og, const char *name) {
  tfs_operation *op = tfs_graph_operation_by_name(og, name);
  return op ? tfs_operation_op_type(op) : "(missing)";
}

int ot_count(tfs_graph *og, const char *type) {
  size_t pos = 0;
  int n = 0;
  tfs_operation *op;
  while ((op = tfs_graph_next_operation(og, &pos)))
    n += strcmp(tfs_operation_op_type(op), type) == 0;
  return n;
}

/* Feed values from the placeholder's shape, the same for both graphs. */
static tfs_tensor *feed_value(tfs_output f) {
  int rank = tfs_graph_tensor_num_dims(g, f, st);
  int64_t dims[8] = {0};
  tfs_graph_tensor_shape(g, f, dims, rank, st);
  tfs_dtype dt = tfs_operation_output_type(f);
  tfs_tensor *t = tfs_tensor_new(dt, dims, rank, st);
  int64_t n = tfs_tensor_num_elements(t);
  for (int64_t i = 0; i < n; i++) {
    float v = (float)((i * 5 + 3) % 13) / 4.0f - 1.5f;
    if (dt == TFS_FLOAT) ((float *)tfs_tensor_data(t))[i] = v;
  }
  return t;
}

static void run(tfs_graph *gg, const tfs_output *feeds, tfs_tensor **vals,
                int nfeeds, const tfs_output *fetches, tfs_tensor **outs,
                int nfetches) {
  tfs_output f2[8], o2[8];
  for (int i = 0; i < nfeeds; i++) {
    f2[i] = tfs_graph_output_by_name(gg, tfs_operation_name(feeds[i].oper), st);
    f2[i].index = feeds[i].index;
  }
  for (int i = 0; i < nfetches; i++) {
    o2[i] =
        tfs_graph_output_by_name(gg, tfs_operation_name(fetches[i].oper), st);
    o2[i].index = fetches[i].index;
  }
  TFS_ASSERT_OK(st);
  tfs_session_options *so = tfs_session_options_new();
  ot_config_t saved = ot_config;
  memset(&ot_config, 0, sizeof ot_config);
  ot_config.disable = 1; /* the session must not optimize again */
  tfs_buffer *b = ot_config_bytes();
  ot_config = saved;
  tfs_session_options_set_config(so, b->data, b->length, st);
  tfs_buffer_free(b);
  tfs_session *s = tfs_session_new(gg, so, st);
  TFS_ASSERT_OK(st);
  tfs_session_run(s, f2, vals, nfeeds, o2, outs, nfetches, NULL, 0, st);
  TFS_ASSERT_OK(st);
  tfs_session_free(s);
  tfs_session_options_free(so);
}

tfs_tensor *ot_run1(tfs_graph *gg, const tfs_output *feeds, int nfeeds,
                    tfs_output fetch) {
  tfs_tensor *vals[8], *out = NULL;
  for (int i = 0; i < nfeeds; i++) vals[i] = feed_value(feeds[i]);
  run(gg, feeds, vals, nfeeds, &fetch, &out, 1);
  for (int i = 0; i < nfeeds; i++) tfs_tensor_free(vals[i]);
  return out;
}

void ot_check_same(tfs_graph *og, const tfs_output *feeds, int nfeeds,
                   const tfs_output *fetches, int nfetches, int tol) {
  tfs_tensor *vals[8], *a[8] = {NULL}, *b[8] = {NULL};
  for (int i = 0; i < nfeeds; i++) vals[i] = feed_value(feeds[i]);
  run(g, feeds, vals, nfeeds, fetches, a, nfetches);
  run(og, feeds, vals, nfeeds, fetches, b, nfetches);
  for (int i = 0; i < nfetches; i++) {
    CU_ASSERT_EQUAL_FATAL(tfs_tensor_dtype(a[i]), tfs_tensor_dtype(b[i]));
    CU_ASSERT_EQUAL_FATAL(tfs_tensor_num_elements(a[i]),
                          tfs_tensor_num_elements(b[i]));
    int64_t n = tfs_tensor_num_elements(a[i]);
    if (tfs_tensor_dtype(a[i]) != TFS_FLOAT) {
      CU_ASSERT_EQUAL(memcmp(tfs_tensor_data(a[i]), tfs_tensor_data(b[i]),
                             tfs_tensor_byte_size(a[i])),
                      0);
      continue;
    }
    const float *x = tfs_tensor_data(a[i]), *y = tfs_tensor_data(b[i]);
    double amax = 0;
    for (int64_t k = 0; k < n; k++)
      if (fabs(x[k]) > amax) amax = fabs(x[k]);
    for (int64_t k = 0; k < n; k++) {
      double bound = tol == 0   ? 0
                     : tol == 1 ? 1e-4 * fabs(x[k]) + 1e-5 * (1 + amax)
                                : 0.05 * fabs(x[k]) + 0.05 * (1 + amax);
      int ok = x[k] == y[k] || fabs((double)x[k] - y[k]) <= bound;
      if (!ok)
        fprintf(stderr, "\n  fetch %d element %lld: %.9g vs %.9g\n", i,
                (long long)k, x[k], y[k]);
      CU_ASSERT_TRUE(ok);
      if (!ok) break;
    }
  }
  for (int i = 0; i < nfeeds; i++) tfs_tensor_free(vals[i]);
  for (int i = 0; i < nfetches; i++) {
    tfs_tensor_free(a[i]);
    tfs_tensor_free(b[i]);
  }
}

const char *ot_fused_ops(tfs_graph *og, const char *name) {
  return ot_string_list(og, name, "fused_ops");
}

const char *ot_string_list(tfs_graph *og, const char *name,
                           const char *attr) {
  static char buf[128];
  buf[0] = 0;
  tfs_operation *op = tfs_graph_operation_by_name(og, name);
  const tfs_attr_value *v = op ? tfs_attrs_find(&op->attrs, attr) : NULL;
  size_t used = 0;
  for (int i = 0; v && v->is_list && i < v->u.list.n; i++) {
    const tfs_bytes *s = &((const tfs_bytes *)v->u.list.v)[i];
    used += (size_t)snprintf(buf + used, sizeof buf - used, "%s%.*s",
                             i ? "," : "", (int)s->len, s->ptr);
    if (used >= sizeof buf) break;
  }
  return buf;
}

tfs_output ot_gelu(const char *name, tfs_output x, int form, float half) {
  tfs_output h = tfs_op_mul(g, NULL, tfs_op_const_float(g, NULL, half, st),
                            x, st),
             f;
  if (form == OT_GELU_ERFC) {
    tfs_output n = tfs_op_unary(g, "Neg", NULL, x, st);
    f = tfs_op_unary(
        g, "Erfc", "erfc",
        tfs_op_mul(g, NULL, n, tfs_op_const_float(g, NULL, 0.70710677f, st),
                   st),
        st);
  } else if (form == OT_GELU_ERF) {
    tfs_output e = tfs_op_unary(
        g, "Erf", NULL,
        tfs_op_realdiv(g, NULL, x,
                       tfs_op_const_float(g, NULL, 1.4142135f, st), st),
        st);
    f = tfs_op_add(g, NULL, tfs_op_const_float(g, NULL, 1.0f, st), e, st);
  } else {
    tfs_output c = tfs_op_mul(
        g, NULL, tfs_op_const_float(g, NULL, 0.044715f, st),
        tfs_op_pow(g, NULL, x, tfs_op_const_float(g, NULL, 3.0f, st), st),
        st);
    tfs_output a = tfs_op_add(g, NULL, x, c, st);
    tfs_output t = tfs_op_unary(
        g, "Tanh", NULL,
        tfs_op_mul(g, NULL, tfs_op_const_float(g, NULL, 0.7978846f, st), a,
                   st),
        st);
    f = tfs_op_add(g, NULL, tfs_op_const_float(g, NULL, 1.0f, st), t, st);
  }
  return tfs_op_mul(g, name, h, f, st);
}

tfs_output ot_batch_matmul(const char *name, tfs_output x, tfs_output y,
                           int adj_y) {
  tfs_op_desc *d = tfs_op_desc_new(g, "BatchMatMulV2", name);
  tfs_op_desc_add_input(d, x);
  tfs_op_desc_add_input(d, y);
  tfs_op_desc_set_attr_bool(d, "adj_y", adj_y);
  return (tfs_output){tfs_op_desc_finish(d, st), 0};
}
