/*
 * tests/compat_c_api/test_c_api_saved_model.c - every SavedModel of
 * tests/data/saved_models served the way a TF C API program serves one:
 * TF_LoadSessionFromSavedModel with the model's tag set and a
 * meta_graph_def buffer, the signature's tensor names read from that
 * MetaGraphDef, then TF_SessionRun with TF_Tensor feeds for each recorded
 * call; TensorFlow's outputs compared with what comes back.
 */
#include <stdlib.h>

#include "capitest.h"
#include "conformance.h"
#include "iotest.h"
#include "proto/meta_graph.pb-c.h"
#include "tfsess/io.h"

#define MAXT 8

/* A TF_Tensor holding a copy of a tfsess tensor (strings element by
 * element). */
static TF_Tensor *to_tf(const tfs_tensor *t) {
  int nd = tfs_tensor_ndims(t);
  int64_t dims[TFS_MAX_RANK];
  for (int i = 0; i < nd; i++) dims[i] = tfs_tensor_dim(t, i);
  size_t n = tfs_tensor_byte_size(t);
  TF_Tensor *r = TF_AllocateTensor((TF_DataType)tfs_tensor_dtype(t), dims, nd,
                                   n);
  if (!r) return NULL;
  if (tfs_tensor_dtype(t) != TFS_STRING) {
    if (n) memcpy(TF_TensorData(r), tfs_tensor_data(t), n);
    return r;
  }
  TF_TString *e = (TF_TString *)TF_TensorData(r);
  for (int64_t i = 0; i < tfs_tensor_num_elements(t); i++) {
    size_t len;
    const char *s = tfs_tensor_string_at(t, i, &len);
    TF_StringInit(&e[i]);
    TF_StringCopy(&e[i], s, len);
  }
  return r;
}

/* A tfsess copy of a TF_Tensor (for tc_compare). */
static tfs_tensor *from_tf(const TF_Tensor *t, tfs_status *st) {
  int nd = TF_NumDims(t);
  int64_t dims[TFS_MAX_RANK], n = 1;
  for (int i = 0; i < nd && i < TFS_MAX_RANK; i++) {
    dims[i] = TF_Dim(t, i);
    n *= dims[i];
  }
  if (TF_TensorType(t) != TF_STRING)
    return tfs_tensor_new_copy((tfs_dtype)TF_TensorType(t), dims, nd,
                               TF_TensorData(t), TF_TensorByteSize(t), st);
  const TF_TString *e = (const TF_TString *)TF_TensorData(t);
  const char **strs = calloc((size_t)n + 1, sizeof *strs);
  size_t *lens = calloc((size_t)n + 1, sizeof *lens);
  for (int64_t i = 0; i < n; i++) {
    strs[i] = TF_StringGetDataPointer(&e[i]);
    lens[i] = TF_StringGetSize(&e[i]);
  }
  tfs_tensor *r = tfs_tensor_new_strings(dims, nd, strs, lens, st);
  free(strs);
  free(lens);
  return r;
}

/* The graph tensor a signature key names in the MetaGraphDef. */
static TF_Output sig_tensor(TF_Graph *g, const Tensorflow__MetaGraphDef *mg,
                            const char *sig, const char *key, int input) {
  TF_Output o = {NULL, 0};
  for (size_t i = 0; i < mg->n_signature_def; i++) {
    if (strcmp(mg->signature_def[i]->key, sig)) continue;
    const Tensorflow__SignatureDef *sd = mg->signature_def[i]->value;
    size_t n = input ? sd->n_inputs : sd->n_outputs;
    for (size_t j = 0; j < n; j++) {
      const char *k = input ? sd->inputs[j]->key : sd->outputs[j]->key;
      const Tensorflow__TensorInfo *ti =
          input ? sd->inputs[j]->value : sd->outputs[j]->value;
      if (strcmp(k, key)) continue;
      char op[512];
      snprintf(op, sizeof op, "%s", ti->name);
      char *colon = strrchr(op, ':');
      if (colon) {
        *colon = 0;
        o.index = atoi(colon + 1);
      }
      o.oper = TF_GraphOperationByName(g, op);
    }
  }
  return o;
}

typedef struct call {
  char sig[128];
  int nin, nout;
  char in_key[MAXT][64], out_key[MAXT][64];
  char in_file[MAXT][128], out_file[MAXT][128];
} call;

typedef struct calls {
  int ntags, n;
  char tags[MAXT][32];
  call c[16];
} calls;

static int read_calls(const char *dir, calls *cs) {
  char path[4400], line[512];
  snprintf(path, sizeof path, "%s/calls.txt", dir);
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  memset(cs, 0, sizeof *cs);
  while (fgets(line, sizeof line, f)) {
    line[strcspn(line, "\n")] = 0;
    char a[128] = "", b[128] = "";
    if (strncmp(line, "tags ", 5) == 0) {
      for (char *t = strtok(line + 5, " "); t && cs->ntags < MAXT;
           t = strtok(NULL, " "))
        snprintf(cs->tags[cs->ntags++], 32, "%s", t);
    } else if (sscanf(line, "call %127s", a) == 1 && cs->n < 16) {
      snprintf(cs->c[cs->n++].sig, 128, "%s", a);
    } else if (sscanf(line, "in %127s %127s", a, b) == 2 && cs->n) {
      call *c = &cs->c[cs->n - 1];
      snprintf(c->in_key[c->nin], 64, "%.63s", a);
      snprintf(c->in_file[c->nin++], 128, "%s", b);
    } else if (sscanf(line, "out %127s %127s", a, b) == 2 && cs->n) {
      call *c = &cs->c[cs->n - 1];
      snprintf(c->out_key[c->nout], 64, "%.63s", a);
      snprintf(c->out_file[c->nout++], 128, "%s", b);
    }
  }
  fclose(f);
  return cs->n && cs->ntags ? 0 : -1;
}

/* One recorded call through TF_SessionRun; 0 when every output matches. */
static int run_call(const char *dir, TF_Graph *g, TF_Session *s,
                    const Tensorflow__MetaGraphDef *mg, const call *c) {
  tfs_status *st = tfs_status_new();
  TF_Status *ts = TF_NewStatus();
  TF_Output in[MAXT], out[MAXT];
  TF_Tensor *vals[MAXT] = {NULL}, *res[MAXT] = {NULL};
  int bad = 0;
  char path[4400], err[512];
  for (int k = 0; k < c->nin; k++) {
    in[k] = sig_tensor(g, mg, c->sig, c->in_key[k], 1);
    snprintf(path, sizeof path, "%s/%s", dir, c->in_file[k]);
    tfs_tensor *v = tfs_npy_read(path, st);
    vals[k] = v ? to_tf(v) : NULL;
    tfs_tensor_free(v);
    bad |= !in[k].oper || !vals[k];
  }
  for (int k = 0; k < c->nout; k++) {
    out[k] = sig_tensor(g, mg, c->sig, c->out_key[k], 0);
    bad |= !out[k].oper;
  }
  if (!bad) {
    TF_SessionRun(s, NULL, in, vals, c->nin, out, res, c->nout, NULL, 0, NULL,
                  ts);
    if (TF_GetCode(ts) != TF_OK) {
      fprintf(stderr, "\n  %s %s: %s\n", dir, c->sig, TF_Message(ts));
      bad = 1;
    }
  }
  for (int k = 0; !bad && k < c->nout; k++) {
    snprintf(path, sizeof path, "%s/%s", dir, c->out_file[k]);
    tfs_tensor *want = tfs_npy_read(path, st), *got = from_tf(res[k], st);
    if (!want || !got ||
        tc_compare(got, want, 1e-5, 1e-5, err, sizeof err)) {
      fprintf(stderr, "\n  %s %s output %s: %s\n", dir, c->sig, c->out_key[k],
              want && got ? err : tfs_status_message(st));
      bad = 1;
    }
    tfs_tensor_free(want);
    tfs_tensor_free(got);
  }
  for (int k = 0; k < MAXT; k++) {
    if (vals[k]) TF_DeleteTensor(vals[k]);
    if (res[k]) TF_DeleteTensor(res[k]);
  }
  TF_DeleteStatus(ts);
  tfs_status_free(st);
  return bad;
}

static const char *const kModels[] = {
    "keras_mlp", "keras_cnn",   "keras_lstm",  "tf_keras_gru",
    "module",    "tf1_simple",  "tf1_builder", "text_vocab",
    "estimator_style", NULL};

static void test_saved_models(void) {
  int failed = 0, ran = 0;
  for (int i = 0; kModels[i]; i++) {
    char dir[4200], mdir[4300];
    snprintf(dir, sizeof dir, "%s/tests/data/saved_models/%s", it_srcdir(),
             kModels[i]);
    snprintf(mdir, sizeof mdir, "%s/model", dir);
    calls cs;
    CU_ASSERT_EQUAL_FATAL(read_calls(dir, &cs), 0);
    const char *tags[MAXT];
    for (int t = 0; t < cs.ntags; t++) tags[t] = cs.tags[t];
    TF_Status *ts = TF_NewStatus();
    TF_Graph *g = TF_NewGraph();
    TF_SessionOptions *so = TF_NewSessionOptions();
    TF_Buffer *mgb = TF_NewBuffer();
    TF_Session *s = TF_LoadSessionFromSavedModel(so, NULL, mdir, tags,
                                                 cs.ntags, g, mgb, ts);
    if (!s) {
      fprintf(stderr, "\n  %s: %s\n", kModels[i], TF_Message(ts));
      failed++;
    } else {
      Tensorflow__MetaGraphDef *mg = tensorflow__meta_graph_def__unpack(
          NULL, mgb->length, mgb->data);
      CU_ASSERT_PTR_NOT_NULL_FATAL(mg);
      for (int k = 0; k < cs.n; k++, ran++)
        failed += run_call(dir, g, s, mg, &cs.c[k]);
      tensorflow__meta_graph_def__free_unpacked(mg, NULL);
      TF_CloseSession(s, ts);
      TF_DeleteSession(s, ts);
    }
    TF_DeleteBuffer(mgb);
    TF_DeleteSessionOptions(so);
    TF_DeleteGraph(g);
    TF_DeleteStatus(ts);
  }
  printf("(%d calls) ", ran);
  CU_ASSERT_TRUE(ran >= 10);
  CU_ASSERT_EQUAL(failed, 0);
}

static const tfs_test_case kCases[] = {
    {"saved_models", test_saved_models},
    {NULL, NULL},
};

const tfs_test_suite tfs_test_suites[] = {
    {"c_api_saved_model", kCases},
    {NULL, NULL},
};
