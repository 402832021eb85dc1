/*
 * tests/kernels/arraytest.c - helpers of the array op suites (see
 * arraytest.h).
 */
#include "arraytest.h"

#include <math.h>
#include <stdlib.h>

static char g_msg[4096];

const char *at_msg(void) { return g_msg; }

/* A list(string) attr from "A,B,C" (at most 16 items). */
static void set_string_list(tfs_op_desc *d, const char *name,
                            const char *s) {
  const void *items[16];
  size_t lens[16];
  int n = 0;
  while (*s && n < 16) {
    const char *e = strchr(s, ',');
    size_t len = e ? (size_t)(e - s) : strlen(s);
    items[n] = s;
    lens[n++] = len;
    s += len + (e != NULL);
  }
  tfs_op_desc_set_attr_string_list(d, name, items, lens, n);
}

static void set_attrs(tfs_op_desc *d, const at_attr *a, tfs_status *st) {
  for (; a && a->name; a++) {
    switch (a->kind) {
    case 'i': tfs_op_desc_set_attr_int(d, a->name, a->i); break;
    case 'b': tfs_op_desc_set_attr_bool(d, a->name, (int)a->i); break;
    case 's':
      tfs_op_desc_set_attr_string(d, a->name, a->s, strlen(a->s));
      break;
    case 't': tfs_op_desc_set_attr_type(d, a->name, a->t); break;
    case 'l': tfs_op_desc_set_attr_int_list(d, a->name, a->list, a->n); break;
    case 'S': set_string_list(d, a->name, a->s); break;
    default: tfs_status_set(st, TFS_INTERNAL, "bad attr kind");
    }
  }
}

static tfs_operation *build(tfs_graph *g, const at_call *c,
                            tfs_tensor *const *in, int n, tfs_output *ph,
                            tfs_status *st) {
  for (int i = 0; i < n; i++) {
    char name[16];
    char mode = c->shapes ? c->shapes[i] : 'u';
    int64_t dims[TFS_MAX_RANK];
    int nd = mode == 'u' ? -1 : tfs_tensor_ndims(in[i]);
    for (int k = 0; k < nd; k++)
      dims[k] = mode == 'k' ? tfs_tensor_dim(in[i], k) : -1;
    snprintf(name, sizeof name, "in%d", i);
    if (mode == 'c')
      ph[i] = tfs_op_const(g, name, in[i], st);
    else
      ph[i] = tfs_op_placeholder(g, name, tfs_tensor_dtype(in[i]), dims, nd,
                                 st);
    if (tfs_status_code(st) != TFS_OK) return NULL;
  }
  tfs_op_desc *d = tfs_op_desc_new(g, c->op, "n");
  for (int i = 0; i < n;) {
    if (c->list_n && i == c->list_at) {
      tfs_op_desc_add_input_list(d, ph + i, c->list_n);
      i += c->list_n;
    } else {
      tfs_op_desc_add_input(d, ph[i++]);
    }
  }
  set_attrs(d, c->attrs, st);
  return tfs_op_desc_finish(d, st);
}

tfs_code at_run(const at_call *c, tfs_tensor *const *in, int n,
                tfs_tensor **out, int nout) {
  tfs_graph *g = tfs_graph_new();
  tfs_status *st = tfs_status_new();
  tfs_output ph[32], fetch[32];
  tfs_session *s = NULL;
  CU_ASSERT_FATAL(n <= 32 && nout <= 32);
  for (int i = 0; i < nout; i++) out[i] = NULL;
  tfs_operation *op = build(g, c, in, n, ph, st);
  if (op) s = tfs_session_new(g, NULL, st);
  if (s) {
    for (int i = 0; i < nout; i++) {
      fetch[i].oper = op;
      fetch[i].index = i;
    }
    tfs_output feeds[32];
    tfs_tensor *vals[32];
    int nf = 0;
    for (int i = 0; i < n; i++) {
      if (c->shapes && c->shapes[i] == 'c') continue;
      feeds[nf] = ph[i];
      vals[nf++] = in[i];
    }
    tfs_session_run(s, feeds, vals, nf, fetch, out, nout, NULL, 0, st);
  }
  tfs_code code = tfs_status_code(st);
  snprintf(g_msg, sizeof g_msg, "%s", tfs_status_message(st));
  tfs_session_free(s);
  tfs_graph_free(g);
  tfs_status_free(st);
  return code;
}

tfs_tensor *at_eval(const at_call *c, tfs_tensor *const *in, int n) {
  tfs_tensor *out = NULL;
  tfs_code code = at_run(c, in, n, &out, 1);
  if (code != TFS_OK) fprintf(stderr, "\n  %s failed: %s\n", c->op, g_msg);
  at_free(in, n);
  CU_ASSERT_EQUAL_FATAL(code, TFS_OK);
  CU_ASSERT_PTR_NOT_NULL_FATAL(out);
  return out;
}

void at_expect_error(const at_call *c, tfs_tensor *const *in, int n,
                     tfs_code code, const char *needle) {
  tfs_tensor *out[8];
  tfs_code got = at_run(c, in, n, out, 1);
  int ok = got == code && strstr(g_msg, needle) != NULL &&
           strstr(g_msg, "{{node n}}") != NULL;
  if (!ok)
    fprintf(stderr, "\n  %s: expected %s containing \"%s\"\n    got %s: %s\n",
            c->op, tfs_code_name(code), needle, tfs_code_name(got), g_msg);
  CU_ASSERT_TRUE(ok);
  CU_ASSERT_PTR_NULL(out[0]);
  tfs_tensor_free(out[0]);
  at_free(in, n);
}

tfs_tensor *at_t(tfs_dtype dt, int nd, const int64_t *dims,
                 const void *data) {
  tfs_status *st = tfs_status_new();
  tfs_tensor *t = tfs_tensor_new(dt, dims, nd, st);
  TFS_ASSERT_OK(st);
  tfs_status_free(st);
  if (data && tfs_tensor_byte_size(t))
    memcpy(tfs_tensor_data(t), data, tfs_tensor_byte_size(t));
  return t;
}

tfs_tensor *at_strs(int nd, const int64_t *dims, const char *const *s) {
  tfs_status *st = tfs_status_new();
  tfs_tensor *t = tfs_tensor_new_strings(dims, nd, s, NULL, st);
  TFS_ASSERT_OK(st);
  tfs_status_free(st);
  return t;
}

tfs_tensor *at_si32(int32_t v) { return tfs_tensor_scalar_int32(v); }
tfs_tensor *at_sf32(float v) { return tfs_tensor_scalar_float(v); }

static int check_shape(const tfs_tensor *t, tfs_dtype dt, int nd,
                       const int64_t *dims) {
  CU_ASSERT_PTR_NOT_NULL_FATAL(t);
  int ok = tfs_tensor_dtype(t) == dt && tfs_tensor_ndims(t) == nd;
  for (int i = 0; ok && i < nd; i++) ok = tfs_tensor_dim(t, i) == dims[i];
  if (!ok) {
    char b[400];
    fprintf(stderr, "\n  got %s %s, expected %s of rank %d\n",
            tfs_dtype_name(tfs_tensor_dtype(t)),
            tfs_tensor_shape_string(t, b, sizeof b), tfs_dtype_name(dt), nd);
  }
  CU_ASSERT_TRUE(ok);
  return ok;
}

void at_check(tfs_tensor *t, tfs_dtype dt, int nd, const int64_t *dims,
              const void *data) {
  if (check_shape(t, dt, nd, dims)) {
    int64_t n = tfs_tensor_num_elements(t);
    if (dt == TFS_FLOAT || dt == TFS_DOUBLE) {
      for (int64_t i = 0; i < n; i++) {
        double g = dt == TFS_FLOAT ? ((const float *)tfs_tensor_data(t))[i]
                                   : ((const double *)tfs_tensor_data(t))[i];
        double w = dt == TFS_FLOAT ? ((const float *)data)[i]
                                   : ((const double *)data)[i];
        if (!(fabs(g - w) <= 1e-6 + 1e-5 * fabs(w))) {
          fprintf(stderr, "\n  element %lld: got %g, expected %g\n",
                  (long long)i, g, w);
          CU_FAIL("value mismatch");
          break;
        }
      }
    } else if (n && memcmp(tfs_tensor_data(t), data,
                           tfs_tensor_byte_size(t)) != 0) {
      char *s = tfs_tensor_to_string(t, 50);
      fprintf(stderr, "\n  unexpected values: %s\n", s ? s : "?");
      free(s);
      CU_FAIL("value mismatch");
    }
  }
  tfs_tensor_free(t);
}

void at_check_strs(tfs_tensor *t, int nd, const int64_t *dims,
                   const char *const *s) {
  if (check_shape(t, TFS_STRING, nd, dims)) {
    for (int64_t i = 0; i < tfs_tensor_num_elements(t); i++) {
      size_t len;
      const char *got = tfs_tensor_string_at(t, i, &len);
      int ok = len == strlen(s[i]) && memcmp(got, s[i], len) == 0;
      if (!ok)
        fprintf(stderr, "\n  element %lld: got \"%.*s\", expected \"%s\"\n",
                (long long)i, (int)len, got, s[i]);
      CU_ASSERT_TRUE(ok);
    }
  }
  tfs_tensor_free(t);
}

void at_free(tfs_tensor *const *t, int n) {
  for (int i = 0; i < n; i++) tfs_tensor_free(t[i]);
}
