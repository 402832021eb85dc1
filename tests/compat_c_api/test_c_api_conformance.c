/*
 * tests/compat_c_api/test_c_api_conformance.c - the TensorFlow-made
 * conformance cases of the control flow, function and recurrent groups
 * run the way a TF C API program runs them: TF_GraphImportGraphDef,
 * TF_NewSession with the case's ConfigProto (TF_SetConfig), init targets,
 * TF_SessionRun with TF_Tensor feeds, and TensorFlow's outputs or error
 * compared with what comes back.  One test per group; each failing case
 * is printed with the reason.
 */
#include <stdarg.h>
#include <stdlib.h>

#include "capitest.h"
#include "conformance.h"
#include "iotest.h"
#include "tfsess/io.h"

static int fail(char *err, size_t cap, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, cap, fmt, ap);
  va_end(ap);
  return -1;
}

/* A TF_Tensor holding a copy of a plain (non-string) tfsess tensor. */
static TF_Tensor *to_tf(const tfs_tensor *t) {
  int nd = tfs_tensor_ndims(t);
  int64_t dims[TFS_MAX_RANK];
  for (int i = 0; i < nd; i++) dims[i] = tfs_tensor_dim(t, i);
  size_t n = tfs_tensor_byte_size(t);
  TF_Tensor *r = TF_AllocateTensor((TF_DataType)tfs_tensor_dtype(t), dims, nd,
                                   n);
  if (r && n) memcpy(TF_TensorData(r), tfs_tensor_data(t), n);
  return r;
}

/* A tfsess copy of a plain TF_Tensor (for tc_compare). */
static tfs_tensor *from_tf(const TF_Tensor *t, tfs_status *st) {
  int nd = TF_NumDims(t);
  int64_t dims[TFS_MAX_RANK];
  for (int i = 0; i < nd && i < TFS_MAX_RANK; i++) dims[i] = TF_Dim(t, i);
  return tfs_tensor_new_copy((tfs_dtype)TF_TensorType(t), dims, nd,
                             TF_TensorData(t), TF_TensorByteSize(t), st);
}

/* "NAME:i" as a TF_Output of g. */
static int port(TF_Graph *g, const char *name, TF_Output *out, char *err,
                size_t cap) {
  char op[512];
  snprintf(op, sizeof op, "%s", name);
  char *colon = strrchr(op, ':');
  int index = 0;
  if (colon) {
    *colon = 0;
    index = atoi(colon + 1);
  }
  out->oper = TF_GraphOperationByName(g, op);
  out->index = index;
  return out->oper ? 0 : fail(err, cap, "'%s': no such operation", name);
}

typedef struct {
  TF_Graph *g;
  TF_Session *s;
  TF_Status *st;
  TF_Output feeds[TC_MAX_ITEMS], fetches[TC_MAX_ITEMS];
  TF_Tensor *values[TC_MAX_ITEMS], *out[TC_MAX_ITEMS];
  const TF_Operation *targets[TC_MAX_ITEMS];
} capi_run;

static int open_session(const char *dir, const tc_manifest *m, capi_run *r,
                        char *err, size_t cap) {
  char path[4200];
  size_t len;
  snprintf(path, sizeof path, "%s/graph.pb", dir);
  uint8_t *bytes = it_read_file(path, &len);
  if (!bytes) return fail(err, cap, "cannot read %s", path);
  TF_Buffer *gd = TF_NewBufferFromString(bytes, len);
  free(bytes);
  TF_ImportGraphDefOptions *io = TF_NewImportGraphDefOptions();
  TF_GraphImportGraphDef(r->g, gd, io, r->st);
  TF_DeleteImportGraphDefOptions(io);
  TF_DeleteBuffer(gd);
  if (TF_GetCode(r->st) != TF_OK)
    return fail(err, cap, "import: %s", TF_Message(r->st));
  TF_SessionOptions *so = TF_NewSessionOptions();
  if (m->config) {
    snprintf(path, sizeof path, "%s/%s", dir, m->config);
    uint8_t *cfg = it_read_file(path, &len);
    if (!cfg) {
      TF_DeleteSessionOptions(so);
      return fail(err, cap, "cannot read %s", path);
    }
    TF_SetConfig(so, cfg, len, r->st);
    free(cfg);
  }
  if (TF_GetCode(r->st) == TF_OK) r->s = TF_NewSession(r->g, so, r->st);
  TF_DeleteSessionOptions(so);
  return r->s ? 0 : fail(err, cap, "session: %s", TF_Message(r->st));
}

static int resolve(const char *dir, const tc_manifest *m, capi_run *r,
                   char *err, size_t cap) {
  tfs_status *st = tfs_status_new();
  int rc = 0;
  for (int i = 0; rc == 0 && i < m->nfeeds; i++) {
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, m->feeds[i].file);
    rc = port(r->g, m->feeds[i].name, &r->feeds[i], err, cap);
    tfs_tensor *v = rc ? NULL : tfs_npy_read(path, st);
    if (!rc && !v) rc = fail(err, cap, "%s", tfs_status_message(st));
    if (v && tfs_tensor_dtype(v) == TFS_STRING)
      rc = fail(err, cap, "feed %s: string feeds are not handled here",
                m->feeds[i].name);
    if (!rc) r->values[i] = to_tf(v);
    tfs_tensor_free(v);
  }
  for (int i = 0; rc == 0 && i < m->nfetches; i++)
    rc = port(r->g, m->fetches[i].name, &r->fetches[i], err, cap);
  for (int i = 0; rc == 0 && i < m->ntargets; i++)
    if (!(r->targets[i] = TF_GraphOperationByName(r->g, m->targets[i])))
      rc = fail(err, cap, "target %s: no such operation", m->targets[i]);
  tfs_status_free(st);
  return rc;
}

/* Init targets once, then `runs` runs.  0, -1 (setup failed) or 1 (the
 * run failed: r->st holds the error). */
static int run_all(const tc_manifest *m, capi_run *r, char *err,
                   size_t cap) {
  for (int i = 0; i < m->ninits; i++) {
    const TF_Operation *op = TF_GraphOperationByName(r->g, m->inits[i]);
    if (!op) return fail(err, cap, "init %s: no such operation", m->inits[i]);
    TF_SessionRun(r->s, NULL, NULL, NULL, 0, NULL, NULL, 0, &op, 1, NULL,
                  r->st);
    if (TF_GetCode(r->st) != TF_OK)
      return fail(err, cap, "init %s: %s", m->inits[i], TF_Message(r->st));
  }
  for (int k = 0; k < m->runs; k++) {
    for (int i = 0; i < m->nfetches; i++) {
      if (r->out[i]) TF_DeleteTensor(r->out[i]);
      r->out[i] = NULL;
    }
    TF_SessionRun(r->s, NULL, r->feeds, r->values, m->nfeeds, r->fetches,
                  r->out, m->nfetches, r->targets, m->ntargets, NULL, r->st);
    if (TF_GetCode(r->st) != TF_OK) return 1;
  }
  return 0;
}

static int check(const char *dir, const tc_manifest *m, capi_run *r,
                 char *err, size_t cap) {
  tfs_status *st = tfs_status_new();
  int rc = 0;
  for (int i = 0; rc == 0 && i < m->nfetches; i++) {
    char path[4200], why[1024];
    snprintf(path, sizeof path, "%s/%s", dir, m->fetches[i].file);
    tfs_tensor *want = tfs_npy_read(path, st);
    tfs_tensor *got = want ? from_tf(r->out[i], st) : NULL;
    if (!got)
      rc = fail(err, cap, "%s", tfs_status_message(st));
    else if (tc_compare(got, want, m->fetches[i].rtol, m->fetches[i].atol,
                        why, sizeof why))
      rc = fail(err, cap, "fetch '%s': %s", m->fetches[i].name, why);
    tfs_tensor_free(got);
    tfs_tensor_free(want);
  }
  tfs_status_free(st);
  return rc;
}

/* TF_Code of a code name ("INVALID_ARGUMENT"). */
static int code_of(const char *name) {
  for (int c = 0; c <= 16; c++)
    if (!strcmp(tfs_code_name((tfs_code)c), name)) return c;
  return -1;
}

static int run_case(const char *dir, char *err, size_t cap) {
  tc_manifest m;
  capi_run r;
  memset(&r, 0, sizeof r);
  r.g = TF_NewGraph();
  r.st = TF_NewStatus();
  int rc = tc_manifest_parse(dir, &m, err, cap);
  if (!rc) {
    rc = open_session(dir, &m, &r, err, cap);
    /* a graph TensorFlow refuses to import: the same error at import */
    if (rc && m.error_code && !r.s && code_of(m.error_code) ==
        (int)TF_GetCode(r.st) && strstr(TF_Message(r.st), m.error_text))
      rc = 0, m.runs = 0;
    else if (!rc)
      rc = resolve(dir, &m, &r, err, cap);
  }
  if (!rc && r.s) {
    rc = run_all(&m, &r, err, cap);
    if (rc > 0 && !m.error_code) {
      rc = fail(err, cap, "run failed: %s", TF_Message(r.st));
    } else if (rc > 0) {
      rc = code_of(m.error_code) != (int)TF_GetCode(r.st) ||
                   !strstr(TF_Message(r.st), m.error_text)
               ? fail(err, cap, "expected %s containing \"%s\", got %d: %s",
                      m.error_code, m.error_text, (int)TF_GetCode(r.st),
                      TF_Message(r.st))
               : 0;
    } else if (rc == 0 && m.error_code) {
      rc = fail(err, cap, "expected %s containing \"%s\", but the run "
                "succeeded", m.error_code, m.error_text);
    } else if (rc == 0) {
      rc = check(dir, &m, &r, err, cap);
    }
  }
  for (int i = 0; i < TC_MAX_ITEMS; i++) {
    if (r.values[i]) TF_DeleteTensor(r.values[i]);
    if (r.out[i]) TF_DeleteTensor(r.out[i]);
  }
  if (r.s) {
    TF_CloseSession(r.s, r.st);
    TF_DeleteSession(r.s, r.st);
  }
  TF_DeleteGraph(r.g);
  TF_DeleteStatus(r.st);
  tc_manifest_free(&m);
  return rc ? -1 : 0;
}

static void test_groups(void) {
  int failed = 0;
  int ran = tc_run_groups(it_srcdir(), tc_control_flow_groups, run_case,
                          "TF C API", &failed);
  printf("(%d cases) ", ran);
  CU_ASSERT_TRUE(ran >= 40);
  CU_ASSERT_EQUAL(failed, 0);
}

/* The runner itself must notice a wrong answer: a case whose recorded
 * output is not what the graph computes fails. */
static void test_runner_notices_mismatch(void) {
  char dir[4200], err[2048];
  snprintf(dir, sizeof dir, "%s/tests/conformance/functional/if_true",
           it_srcdir());
  CU_ASSERT_EQUAL(run_case(dir, err, sizeof err), 0);
  const char *tmp = it_tmp("capi_mismatch");
  char cmd[9000];
  snprintf(cmd, sizeof cmd, "rm -rf '%s' && cp -r '%s' '%s' && cp '%s/feed0.npy' "
           "'%s/fetch0.npy'", tmp, dir, tmp, tmp, tmp);
  CU_ASSERT_EQUAL_FATAL(system(cmd), 0);
  CU_ASSERT_EQUAL(run_case(tmp, err, sizeof err), -1);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, "fetch 'r:0'"));
}

static const tfs_test_case kCases[] = {
    {"control_flow_and_function_cases", test_groups},
    {"runner_notices_mismatch", test_runner_notices_mismatch},
    {NULL, NULL},
};

const tfs_test_suite tfs_test_suites[] = {
    {"c_api_conformance", kCases},
    {NULL, NULL},
};
