/*
 * tests/torture/scenarios_api.c - the fault-injection scenarios above the
 * session: eager op calls, the TensorFlow C API and the graph optimizer
 * (in a session's plans and GraphDef to GraphDef).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef TFS_TORTURE_C_API
#include "tensorflow/c/c_api.h"
#endif
#include "fixtures.h"

/* ---- 5: eager ops -------------------------------------------------------- */

static tfs_value *g_ev[12];

static void eager_free_values(void) {
  for (int i = 0; i < 12; i++) {
    tfs_value_free(g_ev[i]);
    g_ev[i] = NULL;
  }
}

/* Records value v (resolved) under `name`; 0 ok. */
static int eager_record(tfs_value *v, const char *name, tfs_status *st,
                        tt_result *res) {
  tfs_tensor *t = tfs_value_resolve(v, st);
  if (!t) return -1;
  tt_result_tensor(res, name, t);
  tfs_tensor_free(t);
  return 0;
}

static int eager_ops(tfs_ctx *c, tfs_status *st, tt_result *res) {
  tfs_value **v = g_ev;
  int64_t ad[2] = {2, 3}, bd[2] = {3, 2};
  float a[6] = {1, -2, 3, -4, 5, -6}, b[6] = {0.5f, 1, -1, 2, 0.25f, -3};
  int32_t axes[1] = {1};
  int64_t shape[1] = {4};
  if (!(v[0] = tfs_value_floats(c, ad, 2, a, st))) return -1;
  if (!(v[1] = tfs_value_floats(c, bd, 2, b, st))) return -1;
  if (!(v[2] = tfs_matmul(c, v[0], v[1], 0, 0, st))) return -1;
  if (!(v[3] = tfs_value_float(c, 0.5f, st))) return -1;
  if (!(v[4] = tfs_add(c, v[2], v[3], st))) return -1;
  if (!(v[5] = tfs_relu(c, v[4], st))) return -1;
  if (!(v[6] = tfs_softmax(c, v[4], st))) return -1;
  if (!(v[7] = tfs_reduce_sum(c, v[6], axes, 1, 0, st))) return -1;
  if (!(v[8] = tfs_reshape(c, v[4], shape, 1, st))) return -1;
  if (!(v[9] = tfs_cast(c, v[8], TFS_INT32, st))) return -1;
  /* the same op again: a cache hit */
  if (!(v[10] = tfs_add(c, v[2], v[3], st))) return -1;
  const char *names[] = {"matmul", "add", "relu", "softmax", "sum",
                         "reshape", "cast", "add again"};
  const int which[] = {2, 4, 5, 6, 7, 8, 9, 10};
  for (int i = 0; i < 8; i++)
    if (eager_record(v[which[i]], names[i], st, res)) return -1;
  return 0;
}

static int eager_vars(tfs_ctx *c, tfs_status *st, tt_result *res) {
  int64_t d[1] = {3};
  float init[3] = {1, 2, 3}, delta[3] = {0.5f, -1, 2};
  tfs_value *iv = tfs_value_floats(c, d, 1, init, st);
  tfs_value *dv = iv ? tfs_value_floats(c, d, 1, delta, st) : NULL;
  tfs_var *var = dv ? tfs_var_new(c, iv, "v", st) : NULL;
  tfs_value *r = NULL;
  int rc = -1;
  if (var && tfs_var_assign_add(c, var, dv, st) == 0 &&
      tfs_var_assign_add(c, var, dv, st) == 0 &&
      (r = tfs_var_read(c, var, st)) != NULL)
    rc = eager_record(r, "variable", st, res);
  tfs_value_free(r);
  tfs_var_free(var);
  tfs_value_free(dv);
  tfs_value_free(iv);
  return rc;
}

int eager_run(tfs_status *st, tt_result *res) {
  tfs_session_options *o = tfs_session_options_new();
  if (!o) {
    tt_null(st, "tfs_session_options_new");
    return -1;
  }
  tfs_session_options_set_intra_op_threads(o, 1);
  tfs_session_options_set_inter_op_threads(o, -1);
  tfs_ctx *c = tfs_eager_ctx_new(o, st);
  tfs_session_options_free(o);
  if (!c) return -1;
  int rc = eager_ops(c, st, res);
  eager_free_values();
  if (rc == 0) rc = eager_vars(c, st, res);
  tfs_ctx_free(c);
  return rc;
}

/* ---- traced functions ---------------------------------------------------- */

/* tanh(x * x + x) summed over the last axis, with a variable added. */
static int fn_body(tfs_ctx *c, tfs_value *const *in, int nin, tfs_value **out,
                   int max_out, int *nout, void *user, tfs_status *st) {
  tfs_var *var = user;
  int32_t axes[1] = {1};
  tfs_value *sq = tfs_mul(c, in[0], in[0], st);
  tfs_value *sum = sq ? tfs_add(c, sq, in[0], st) : NULL;
  tfs_value *t = sum ? tfs_tanh(c, sum, st) : NULL;
  tfs_value *r = t ? tfs_reduce_sum(c, t, axes, 1, 0, st) : NULL;
  tfs_value *v = r ? tfs_var_read(c, var, st) : NULL;
  tfs_value *o = v ? tfs_add(c, r, v, st) : NULL;
  tfs_value_free(sq);
  tfs_value_free(sum);
  tfs_value_free(t);
  tfs_value_free(r);
  tfs_value_free(v);
  if (!o) return -1;
  out[0] = o;
  *nout = 1;
  return 0;
}

/* Calls f on a [rows, 3] input and records the result; 0 ok. */
static int fn_call(tfs_ctx *c, tfs_function *f, int64_t rows, tfs_status *st,
                   tt_result *res) {
  float data[12];
  int64_t dims[2] = {rows, 3};
  for (int i = 0; i < rows * 3; i++) data[i] = (float)i * 0.1f - 0.5f;
  tfs_value *x = tfs_value_floats(c, dims, 2, data, st);
  tfs_value *y = NULL;
  int rc = -1;
  if (x && tfs_function_call(f, &x, 1, &y, 1, st) == 1)
    rc = eager_record(y, "function", st, res);
  tfs_value_free(y);
  tfs_value_free(x);
  return rc;
}

static int fn_calls(tfs_ctx *c, tfs_var *var, tfs_status *st,
                    tt_result *res) {
  tfs_function_options fo = {"torture_fn", NULL, 0, 0, 1};
  tfs_function *f = tfs_function_new(c, fn_body, var, &fo, st);
  if (!f) return -1;
  /* a trace, the cached concrete function, then a new shape: a retrace */
  int rc = fn_call(c, f, 2, st, res);
  if (rc == 0) rc = fn_call(c, f, 2, st, res);
  if (rc == 0) rc = fn_call(c, f, 4, st, res);
  if (rc == 0) {
    tt_result_int(res, "traces", tfs_function_trace_count(f));
    tt_result_int(res, "concrete", tfs_function_num_concrete(f));
  }
  tfs_function_free(f);
  return rc;
}

int function_run(tfs_status *st, tt_result *res) {
  tfs_session_options *o = tfs_session_options_new();
  if (!o) {
    tt_null(st, "tfs_session_options_new");
    return -1;
  }
  tfs_session_options_set_intra_op_threads(o, 1);
  tfs_session_options_set_inter_op_threads(o, -1);
  tfs_ctx *c = tfs_eager_ctx_new(o, st);
  tfs_session_options_free(o);
  if (!c) return -1;
  int rc = -1;
  tfs_value *init = tfs_value_float(c, 0.25f, st);
  tfs_var *var = init ? tfs_var_new(c, init, "bias", st) : NULL;
  if (var) rc = fn_calls(c, var, st, res);
  tfs_var_free(var);
  tfs_value_free(init);
  tfs_ctx_free(c);
  return rc;
}

/* ---- 6: the TensorFlow C API --------------------------------------------- */

#ifdef TFS_TORTURE_C_API

/* The run's status: the TF status's error, or RESOURCE_EXHAUSTED when a
 * TF_New* constructor returned NULL with the status still OK. */
static void tf_to_tfs(const TF_Status *s, tfs_status *st) {
  if (TF_GetCode(s) == TF_OK)
    tt_null(st, "a TF_New* constructor");
  else
    tfs_status_set(st, (tfs_code)TF_GetCode(s), TF_Message(s));
}

/* Fetches of the lstm model, as TF_Outputs; 0 ok. */
static int capi_outputs(TF_Graph *g, TF_Output *x, TF_Output *fetches) {
  const model *m = &g_lstm;
  x->oper = TF_GraphOperationByName(g, "x");
  x->index = 0;
  if (!x->oper) {
    tt_fail("imported graph lacks x");
    return -1;
  }
  for (int i = 0; i < m->nfetch; i++) {
    char name[128];
    parse_output(m->fetch[i], name, sizeof name, &fetches[i].index);
    fetches[i].oper = TF_GraphOperationByName(g, name);
    if (!fetches[i].oper) {
      tt_fail("imported graph lacks %s", name);
      return -1;
    }
  }
  return 0;
}

static void capi_record(TF_Tensor *const *out, tt_result *res) {
  for (int i = 0; i < g_lstm.nfetch; i++) {
    int64_t dims[TFS_MAX_RANK];
    int nd = TF_NumDims(out[i]);
    for (int k = 0; k < nd && k < TFS_MAX_RANK; k++)
      dims[k] = TF_Dim(out[i], k);
    if (TF_TensorType(out[i]) != TF_FLOAT)
      tt_fail("fetch %d has dtype %d", i, (int)TF_TensorType(out[i]));
    else
      tt_result_floats(res, g_lstm.fetch[i], dims, nd, TF_TensorData(out[i]));
  }
}

/* A session on g, one run of the lstm model; 0 ok, else st is set. */
static int capi_session(TF_Graph *g, TF_Status *s, tfs_status *st,
                        tt_result *res) {
  const tfs_tensor *f = g_lstm.feed;
  TF_SessionOptions *o = TF_NewSessionOptions();
  TF_Session *sess = NULL;
  TF_Tensor *feed = NULL, *out[3] = {NULL, NULL, NULL};
  TF_Output x, fetches[3];
  int rc = -1;
  if (capi_outputs(g, &x, fetches)) {
    tfs_status_set(st, TFS_NOT_FOUND, "fetch");
    goto out;
  }
  if (!o) goto fail;
  TF_SetConfig(o, kThreads, sizeof kThreads, s);
  if (TF_GetCode(s) != TF_OK) goto fail;
  if (!(sess = TF_NewSession(g, o, s))) goto fail;
  feed = TF_AllocateTensor(TF_FLOAT, tfs_tensor_dims(f), tfs_tensor_ndims(f),
                           tfs_tensor_byte_size(f));
  if (!feed) goto fail;
  memcpy(TF_TensorData(feed), tfs_tensor_data(f), tfs_tensor_byte_size(f));
  TF_SessionRun(sess, NULL, &x, &feed, 1, fetches, out, g_lstm.nfetch, NULL,
                0, NULL, s);
  if (TF_GetCode(s) != TF_OK) goto fail;
  capi_record(out, res);
  rc = 0;
  goto out;
fail:
  tf_to_tfs(s, st);
out:
  for (int i = 0; i < 3; i++) TF_DeleteTensor(out[i]);
  TF_DeleteTensor(feed);
  if (sess) {
    TF_CloseSession(sess, s);
    TF_DeleteSession(sess, s);
  }
  TF_DeleteSessionOptions(o);
  return rc;
}

int capi_run(tfs_status *st, tt_result *res) {
  TF_Status *s = TF_NewStatus();
  TF_Graph *g = s ? TF_NewGraph() : NULL;
  TF_ImportGraphDefOptions *o = g ? TF_NewImportGraphDefOptions() : NULL;
  TF_Buffer *gd = o ? TF_NewBufferFromString(g_lstm.pb, g_lstm.pb_len) : NULL;
  int rc = -1;
  if (!gd) {
    tt_null(st, "TF_NewStatus, TF_NewGraph, TF_NewImportGraphDefOptions or "
                "TF_NewBufferFromString");
    goto out;
  }
  TF_GraphImportGraphDef(g, gd, o, s);
  if (TF_GetCode(s) == TF_OK) {
    rc = capi_session(g, s, st, res);
  } else {
    tf_to_tfs(s, st);
    size_t pos = 0;
    if (TF_GraphNextOperation(g, &pos))
      tt_fail("failed TF_GraphImportGraphDef left operations in the graph");
  }
out:
  TF_DeleteBuffer(gd);
  if (o) TF_DeleteImportGraphDefOptions(o);
  if (g) TF_DeleteGraph(g);
  if (s) TF_DeleteStatus(s);
  return rc;
}

int capi_setup(void) { return model_load(&g_lstm); }
#endif

/* ---- 7: the optimizer --------------------------------------------------- */

int optimizer_setup(void) {
  return model_load(&g_cnn) || model_load(&g_mobilenet) ||
         model_load(&g_transformer);
}

/* A session with the default optimizations, on the caller's thread. */
static int optimized_session(const model *m, tfs_status *st, tt_result *res) {
  tfs_graph *g = import_model(m, st);
  if (!g) return -1;
  tfs_session_options *o = tfs_session_options_new();
  tfs_session *s = NULL;
  int rc = -1;
  if (!o) {
    tt_null(st, "tfs_session_options_new");
    goto out;
  }
  tfs_session_options_set_intra_op_threads(o, 1);
  tfs_session_options_set_inter_op_threads(o, -1);
  s = tfs_session_new(g, o, st);
  if (!s) goto out;
  rc = run_model(s, g, m, NULL, NULL, m->dir, st, res);
out:
  tfs_session_free(s);
  tfs_session_options_free(o);
  tfs_graph_free(g);
  return rc;
}

/* Runs optimized GraphDef bytes with the optimizer off and records the
 * fetches (not under injection: this only checks the bytes). */
static int run_optimized_bytes(const model *m, const tfs_buffer *b,
                               tt_result *res) {
  int bad = 0;
  tt_pause();
  model copy = *m;
  copy.pb = (void *)b->data;
  copy.pb_len = b->length;
  tfs_status *st = tfs_status_new();
  tfs_graph *g = import_model(&copy, st);
  tfs_session *s = g ? session_with_config(g, kThreadsNoOpt,
                                           sizeof kThreadsNoOpt, st)
                     : NULL;
  if (!s || run_model(s, g, &copy, NULL, NULL, "rewritten", st, res)) {
    tt_fail("the optimized GraphDef does not run: %s",
            tfs_status_message(st));
    bad = 1;
  }
  tfs_session_free(s);
  tfs_graph_free(g);
  tfs_status_free(st);
  tt_resume();
  return bad;
}

/* GraphDef in, GraphDef out, with a report; the result must compute what
 * the original computes. */
static int optimize_graphdef(const model *m, tfs_status *st, tt_result *res) {
  char fetches[256] = "";
  for (int i = 0; i < m->nfetch; i++) {
    size_t n = strlen(fetches);
    snprintf(fetches + n, sizeof fetches - n, "%s%s", i ? "," : "",
             m->fetch[i]);
  }
  tfs_optimizer_options *o = tfs_optimizer_options_new();
  tfs_buffer *out = tfs_buffer_new();
  tfs_optimizer_report *rep = NULL;
  int rc = -1;
  if (!o || !out) {
    tt_null(st, !o ? "tfs_optimizer_options_new" : "tfs_buffer_new");
    goto done;
  }
  tfs_optimize_graphdef(m->pb, m->pb_len, fetches, o, out, &rep, st);
  if (!tfs_status_ok(st)) {
    if (out->data) tt_fail("failed optimization wrote a GraphDef");
    goto done;
  }
  int flagged = run_optimized_bytes(m, out, res);
  if (flagged && getenv("TORTURE_TRACE")) {
    char *text = tfs_optimizer_report_to_string(rep);
    fprintf(stderr, "%s", text ? text : "(no report)\n");
    free(text);
  }
  rc = 0;
done:
  tfs_optimizer_report_free(rep);
  tfs_buffer_free(out);
  tfs_optimizer_options_free(o);
  return rc;
}

int optimizer_run(tfs_status *st, tt_result *res) {
  if (optimized_session(&g_cnn, st, res) ||
      optimized_session(&g_mobilenet, st, res))
    return -1;
  return optimize_graphdef(&g_transformer, st, res);
}
