/*
 * tests/saved_model/test_saved_model.c - the SavedModel loader against
 * SavedModels TensorFlow 2.21 (and tf_keras 2.21) exported (tests/data/saved_models, made by
 * scripts/fixtures/gen_saved_models.py): each model's recorded calls
 * give TensorFlow's answers through tfs_saved_model_run, in order on one
 * loaded model; then the signature records, the MetaGraphDef handed back,
 * and the loader's and runner's errors.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conformance.h"
#include "iotest.h"
#include "testutil.h"
#include "tfsess/io.h"
#include "tfsess/saved_model.h"

#define MAXT 8

static const char *model_dir(const char *name) {
  static char buf[4][1024];
  static int k;
  char *b = buf[k++ & 3];
  snprintf(b, sizeof buf[0], "%s/model",
           it_src(name));
  return b;
}

static const char *data_file(const char *name, const char *file) {
  static char buf[4][1024];
  static int k;
  char *b = buf[k++ & 3];
  snprintf(b, sizeof buf[0], "%s/%s", it_src(name), file);
  return b;
}

/* One recorded call of calls.txt. */
typedef struct call {
  char sig[128];
  int nin, nout;
  char in_key[MAXT][64], out_key[MAXT][64];
  char in_file[MAXT][128], out_file[MAXT][128];
} call;

/* Runs every call of tests/data/saved_models/NAME/calls.txt on one loaded
 * model and compares each output with TensorFlow's. */
static void check_model(const char *name) {
  char rel[256];
  snprintf(rel, sizeof rel, "tests/data/saved_models/%s", name);
  FILE *f = fopen(data_file(rel, "calls.txt"), "r");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  char line[512], *tags[MAXT];
  int ntags = 0, ncalls = 0;
  call *calls = calloc(16, sizeof *calls);
  while (fgets(line, sizeof line, f)) {
    line[strcspn(line, "\n")] = 0;
    char a[128] = "", b[128] = "";
    if (strncmp(line, "tags ", 5) == 0) {
      for (char *t = strtok(line + 5, " "); t && ntags < MAXT;
           t = strtok(NULL, " "))
        tags[ntags++] = strdup(t);
    } else if (sscanf(line, "call %127s", a) == 1 && ncalls < 16) {
      snprintf(calls[ncalls++].sig, sizeof calls[0].sig, "%s", a);
    } else if (sscanf(line, "in %127s %127s", a, b) == 2 && ncalls) {
      call *c = &calls[ncalls - 1];
      snprintf(c->in_key[c->nin], 64, "%.63s", a);
      snprintf(c->in_file[c->nin++], 128, "%s", b);
    } else if (sscanf(line, "out %127s %127s", a, b) == 2 && ncalls) {
      call *c = &calls[ncalls - 1];
      snprintf(c->out_key[c->nout], 64, "%.63s", a);
      snprintf(c->out_file[c->nout++], 128, "%s", b);
    }
  }
  fclose(f);
  CU_ASSERT_TRUE_FATAL(ncalls > 0 && ntags > 0);

  tfs_status *st = tfs_status_new();
  tfs_saved_model *m = tfs_saved_model_load(
      model_dir(rel), (const char *const *)tags, ntags, NULL, NULL, st);
  TFS_ASSERT_OK(st);
  for (int i = 0; i < ncalls; i++) {
    call *c = &calls[i];
    tfs_tensor *in[MAXT], *out[MAXT], *want[MAXT];
    const char *ik[MAXT], *ok[MAXT];
    for (int k = 0; k < c->nin; k++) {
      in[k] = tfs_npy_read(data_file(rel, c->in_file[k]), st);
      TFS_ASSERT_OK(st);
      ik[k] = c->in_key[k];
    }
    for (int k = 0; k < c->nout; k++) ok[k] = c->out_key[k];
    tfs_saved_model_run(m, c->sig, ik, in, c->nin, ok, out, c->nout, st);
    TFS_ASSERT_OK(st);
    for (int k = 0; k < c->nout; k++) {
      want[k] = tfs_npy_read(data_file(rel, c->out_file[k]), st);
      TFS_ASSERT_OK(st);
      char err[512];
      int rc = tc_compare(out[k], want[k], 1e-5, 1e-5, err, sizeof err);
      if (rc)
        fprintf(stderr, "\n  %s call %d (%s) output %s: %s\n", name, i,
                c->sig, c->out_key[k], err);
      CU_ASSERT_EQUAL(rc, 0);
      tfs_tensor_free(out[k]);
      tfs_tensor_free(want[k]);
    }
    for (int k = 0; k < c->nin; k++) tfs_tensor_free(in[k]);
  }
  tfs_saved_model_free(m);
  for (int i = 0; i < ntags; i++) free(tags[i]);
  free(calls);
  tfs_status_free(st);
}

static void test_keras_mlp(void) { check_model("keras_mlp"); }
static void test_keras_cnn(void) { check_model("keras_cnn"); }
static void test_keras_lstm(void) { check_model("keras_lstm"); }
static void test_tf_keras_gru(void) { check_model("tf_keras_gru"); }
static void test_module(void) { check_model("module"); }
static void test_tf1_simple(void) { check_model("tf1_simple"); }
static void test_tf1_builder(void) { check_model("tf1_builder"); }
static void test_text_vocab(void) { check_model("text_vocab"); }
static void test_estimator_style(void) { check_model("estimator_style"); }

static tfs_saved_model *load(const char *name, tfs_status *st) {
  char rel[256];
  snprintf(rel, sizeof rel, "tests/data/saved_models/%s", name);
  return tfs_saved_model_load(model_dir(rel), NULL, 0, NULL, NULL, st);
}

/* The records of keras_mlp's serving_default: two inputs and two outputs
 * sorted by key, dtypes and shapes as exported. */
static void test_signature_records(void) {
  tfs_status *st = tfs_status_new();
  tfs_saved_model *m = load("keras_mlp", st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_EQUAL(tfs_saved_model_num_signatures(m), 3);
  CU_ASSERT_STRING_EQUAL(
      tfs_signature_key(tfs_saved_model_signature(m, 0)),
      "__saved_model_init_op");
  CU_ASSERT_STRING_EQUAL(tfs_signature_key(tfs_saved_model_signature(m, 1)),
                         "serve");
  const tfs_signature *s = tfs_saved_model_find_signature(m,
                                                          "serving_default");
  CU_ASSERT_PTR_NOT_NULL_FATAL(s);
  CU_ASSERT_STRING_EQUAL(tfs_signature_method_name(s),
                         "tensorflow/serving/predict");
  CU_ASSERT_EQUAL(tfs_signature_num_inputs(s), 2);
  CU_ASSERT_EQUAL(tfs_signature_num_outputs(s), 2);
  const tfs_tensor_info *in0 = tfs_signature_input(s, 0);
  CU_ASSERT_STRING_EQUAL(tfs_tensor_info_key(in0), "extra");
  CU_ASSERT_STRING_EQUAL(tfs_tensor_info_name(in0),
                         "serving_default_extra:0");
  CU_ASSERT_EQUAL(tfs_tensor_info_encoding(in0), TFS_TENSOR_NAME);
  CU_ASSERT_EQUAL(tfs_tensor_info_dtype(in0), TFS_FLOAT);
  CU_ASSERT_EQUAL(tfs_tensor_info_rank(in0), 2);
  CU_ASSERT_EQUAL(tfs_tensor_info_dim(in0, 0), -1);
  CU_ASSERT_EQUAL(tfs_tensor_info_dim(in0, 1), 3);
  const tfs_tensor_info *f = tfs_signature_find_input(s, "features");
  CU_ASSERT_PTR_EQUAL(f, tfs_signature_input(s, 1));
  CU_ASSERT_EQUAL(tfs_tensor_info_dim(f, 1), 8);
  CU_ASSERT_STRING_EQUAL(tfs_tensor_info_key(tfs_signature_output(s, 1)),
                         "output_1");
  CU_ASSERT_PTR_NULL(tfs_signature_find_output(s, "output_2"));
  CU_ASSERT_EQUAL(tfs_saved_model_num_tags(m), 1);
  CU_ASSERT_STRING_EQUAL(tfs_saved_model_tag(m, 0), "serve");
  tfs_saved_model_free(m);
  tfs_status_free(st);
}

/* Fetching every output in key order (output_keys NULL), and running the
 * session directly on the signature's tensor names. */
static void test_all_outputs_and_session(void) {
  tfs_status *st = tfs_status_new();
  tfs_saved_model *m = load("tf1_simple", st);
  TFS_ASSERT_OK(st);
  const char *rel = "tests/data/saved_models/tf1_simple";
  tfs_tensor *in[2] = {tfs_npy_read(data_file(rel, "0_in_a.npy"), st),
                       tfs_npy_read(data_file(rel, "0_in_b.npy"), st)};
  TFS_ASSERT_OK(st);
  const char *keys[2] = {"b", "a"};
  tfs_tensor *swapped[2] = {in[1], in[0]};
  tfs_tensor *out[2];
  tfs_saved_model_run(m, NULL, keys, swapped, 2, NULL, out, 2, st);
  TFS_ASSERT_OK(st);
  tfs_tensor *want_d = tfs_npy_read(data_file(rel, "0_out_d.npy"), st);
  tfs_tensor *want_s = tfs_npy_read(data_file(rel, "0_out_s.npy"), st);
  char err[256];
  CU_ASSERT_EQUAL(tc_compare(out[0], want_d, 1e-5, 1e-5, err, sizeof err), 0);
  CU_ASSERT_EQUAL(tc_compare(out[1], want_s, 1e-5, 1e-5, err, sizeof err), 0);
  tfs_tensor_free(out[0]);
  tfs_tensor_free(out[1]);
  /* the session itself: s:0 from a:0 and b:0 */
  tfs_graph *g = tfs_saved_model_graph(m);
  tfs_output feeds[2] = {{tfs_graph_operation_by_name(g, "a"), 0},
                         {tfs_graph_operation_by_name(g, "b"), 0}};
  tfs_output fetch = {tfs_graph_operation_by_name(g, "s"), 0};
  tfs_tensor *got = NULL;
  tfs_session_run(tfs_saved_model_session(m), feeds, in, 2, &fetch, &got, 1,
                  NULL, 0, st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_EQUAL(tc_compare(got, want_s, 1e-5, 1e-5, err, sizeof err), 0);
  tfs_tensor_free(got);
  tfs_tensor_free(want_d);
  tfs_tensor_free(want_s);
  tfs_tensor_free(in[0]);
  tfs_tensor_free(in[1]);
  tfs_saved_model_free(m);
  tfs_status_free(st);
}

/* The MetaGraphDef handed back parses and is the one chosen by tags. */
static void test_meta_graph_bytes(void) {
  tfs_status *st = tfs_status_new();
  const char *tags[] = {"extra", "serve", "serve"};
  tfs_saved_model *m = tfs_saved_model_load(
      model_dir("tests/data/saved_models/tf1_builder"), tags, 3, NULL, NULL,
      st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_EQUAL(tfs_saved_model_num_tags(m), 2);
  CU_ASSERT_PTR_NOT_NULL(tfs_saved_model_find_signature(m, "scale"));
  tfs_buffer *b = tfs_buffer_new();
  tfs_saved_model_meta_graph(m, b, st);
  TFS_ASSERT_OK(st);
  /* field 1 (meta_info_def) comes first and holds both tags */
  CU_ASSERT_TRUE(b->length > 100);
  CU_ASSERT_EQUAL(((const unsigned char *)b->data)[0], 0x0a);
  CU_ASSERT_PTR_NOT_NULL(memmem(b->data, b->length, "extra", 5));
  tfs_saved_model_meta_graph(m, b, st);
  TFS_ASSERT_MESSAGE(st, "Passing non-empty TF_Buffer is invalid.");
  tfs_buffer_free(b);
  tfs_saved_model_free(m);
  tfs_status_free(st);
}

static void test_load_errors(void) {
  tfs_status *st = tfs_status_new();
  CU_ASSERT_PTR_NULL(tfs_saved_model_load("/nonexistent/model", NULL, 0,
                                          NULL, NULL, st));
  TFS_ASSERT_ERROR(st, TFS_NOT_FOUND,
                   "Could not find SavedModel .pb or .pbtxt at supplied "
                   "export directory path: /nonexistent/model. Check that "
                   "the directory exists and that you have the right "
                   "permissions for accessing it.");
  const char *tags[] = {"train"};
  CU_ASSERT_PTR_NULL(tfs_saved_model_load(
      model_dir("tests/data/saved_models/module"), tags, 1, NULL, NULL, st));
  TFS_ASSERT_MESSAGE(st,
                     "Could not find meta graph def matching supplied tags: "
                     "{ train }. To inspect available tag-sets in the "
                     "SavedModel, please use the SavedModel CLI: "
                     "`saved_model_cli`");
  CU_ASSERT_EQUAL(tfs_status_code(st), TFS_NOT_FOUND);
  /* a subset of a tag set does not match */
  const char *extra[] = {"extra"};
  CU_ASSERT_PTR_NULL(tfs_saved_model_load(
      model_dir("tests/data/saved_models/tf1_builder"), extra, 1, NULL, NULL,
      st));
  TFS_ASSERT_ERROR(st, TFS_NOT_FOUND, "tags: { extra }.");
  /* bytes that are not a SavedModel */
  const char *dir = it_tmp("bad_model");
  char path[1100];
  snprintf(path, sizeof path, "mkdir -p %s", dir);
  CU_ASSERT_EQUAL(system(path), 0);
  snprintf(path, sizeof path, "%s/saved_model.pb", dir);
  CU_ASSERT_EQUAL(it_write_file(path, "\xff\xff\xff", 3), 0);
  CU_ASSERT_PTR_NULL(tfs_saved_model_load(dir, NULL, 0, NULL, NULL, st));
  TFS_ASSERT_ERROR(st, TFS_DATA_LOSS, "Could not parse SavedModel proto");
  tfs_status_free(st);
}

/* Loads a saved_model.pbtxt holding `text` from a scratch directory. */
static tfs_saved_model *load_text(const char *name, const char *text,
                                  tfs_status *st) {
  const char *dir = it_tmp(name);
  char path[1200];
  snprintf(path, sizeof path, "mkdir -p %s", dir);
  CU_ASSERT_EQUAL(system(path), 0);
  snprintf(path, sizeof path, "%s/saved_model.pbtxt", dir);
  CU_ASSERT_EQUAL(it_write_file(path, text, strlen(text)), 0);
  return tfs_saved_model_load(dir, NULL, 0, NULL, NULL, st);
}

/* TensorFlow's checks before the session is created, in graph nodes and
 * function bodies; an init op collection with two ops. */
static void test_graph_checks(void) {
  tfs_status *st = tfs_status_new();
  CU_ASSERT_PTR_NULL(load_text(
      "no_value", "meta_graphs { meta_info_def { tags: \"serve\" } "
      "graph_def { node { name: \"c\" op: \"Const\" } } }", st));
  TFS_ASSERT_MESSAGE(st, "Saved model contains node \"c\" which is a "
                         "constant tensor but no value has been provided");
  CU_ASSERT_EQUAL(tfs_status_code(st), TFS_FAILED_PRECONDITION);
  CU_ASSERT_PTR_NULL(load_text(
      "unknown_elems",
      "meta_graphs { meta_info_def { tags: \"serve\" } graph_def { "
      "library { function { signature { name: \"f\" } node_def { "
      "name: \"k\" op: \"Const\" attr { key: \"value\" value { tensor { "
      "dtype: DT_FLOAT tensor_shape { dim { size: -1 } } } } } } } } } }",
      st));
  TFS_ASSERT_MESSAGE(st, "Saved model contains node \"k\" (op \"Const\") "
                         "which initializes from a tensor with -1 elements");
  CU_ASSERT_PTR_NULL(load_text(
      "recursive",
      "meta_graphs { meta_info_def { tags: \"serve\" } graph_def { "
      "library { function { signature { name: \"f\" } node_def { "
      "name: \"again\" op: \"f\" } } } } }", st));
  TFS_ASSERT_MESSAGE(st, "Function f is self recursive and TensorFlow does "
                         "not support this scenario.");
  CU_ASSERT_PTR_NULL(load_text(
      "two_main_ops",
      "meta_graphs { meta_info_def { tags: \"serve\" } graph_def { "
      "node { name: \"a\" op: \"NoOp\" } node { name: \"b\" op: "
      "\"NoOp\" } } collection_def { key: \"legacy_init_op\" value { "
      "node_list { value: \"a\" value: \"b\" } } } }", st));
  TFS_ASSERT_ERROR(st, TFS_FAILED_PRECONDITION,
                   "Expected exactly one main op in : ");
  /* a SavedModel without variables or Saver loads; its init op runs */
  tfs_saved_model *m = load_text(
      "init_only",
      "meta_graphs { meta_info_def { tags: \"serve\" } graph_def { "
      "node { name: \"a\" op: \"NoOp\" } } collection_def { key: "
      "\"saved_model_main_op\" value { node_list { value: \"a\" } } } }",
      st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_EQUAL(tfs_saved_model_num_signatures(m), 0);
  tfs_saved_model_free(m);
  /* one asset tensor listed twice is fed once */
  m = load_text(
      "asset_twice",
      "meta_graphs { meta_info_def { tags: \"serve\" } graph_def { "
      "node { name: \"p\" op: \"Placeholder\" attr { key: \"dtype\" "
      "value { type: DT_STRING } } } node { name: \"init\" op: "
      "\"Identity\" input: \"p\" attr { key: \"T\" value { type: "
      "DT_STRING } } } } collection_def { key: \"saved_model_main_op\" "
      "value { node_list { value: \"init\" } } } asset_file_def { "
      "tensor_info { name: \"p:0\" } filename: \"v.txt\" } "
      "asset_file_def { tensor_info { name: \"p:0\" } filename: "
      "\"v.txt\" } }",
      st);
  TFS_ASSERT_OK(st);
  tfs_saved_model_free(m);
  tfs_status_free(st);
}

static void test_run_errors(void) {
  tfs_status *st = tfs_status_new();
  tfs_saved_model *m = load("module", st);
  TFS_ASSERT_OK(st);
  int64_t dims[2] = {1, 4};
  float v[4] = {1, 2, 3, 4};
  tfs_tensor *x = tu_floats(dims, 2, v);
  tfs_tensor *out[2] = {NULL, NULL};
  const char *k_x[] = {"x"}, *k_y[] = {"y"}, *k_bad[] = {"z"};
  tfs_saved_model_run(m, "nope", k_x, &x, 1, k_y, out, 1, st);
  TFS_ASSERT_MESSAGE(st, "Could not find signature \"nope\". Please choose "
                         "from: __saved_model_init_op, accumulate, predict");
  CU_ASSERT_EQUAL(tfs_status_code(st), TFS_NOT_FOUND);
  tfs_saved_model_run(m, NULL, k_x, &x, 1, k_y, out, 1, st);
  TFS_ASSERT_ERROR(st, TFS_NOT_FOUND, "signature \"serving_default\"");
  tfs_saved_model_run(m, "predict", k_bad, &x, 1, k_y, out, 1, st);
  TFS_ASSERT_MESSAGE(st, "Signature \"predict\" has no input named \"z\"; "
                         "its inputs: x");
  tfs_saved_model_run(m, "predict", k_x, &x, 1, k_bad, out, 1, st);
  TFS_ASSERT_MESSAGE(st, "Signature \"predict\" has no output named \"z\"; "
                         "its outputs: norm, y");
  tfs_saved_model_run(m, "predict", NULL, NULL, 0, k_y, out, 1, st);
  TFS_ASSERT_MESSAGE(st, "Signature \"predict\" input \"x\" is missing and "
                         "has no default");
  tfs_tensor *xi = tfs_tensor_scalar_int32(3);
  tfs_saved_model_run(m, "predict", k_x, &xi, 1, k_y, out, 1, st);
  TFS_ASSERT_MESSAGE(st, "Signature \"predict\" input \"x\" expects a float "
                         "tensor, got int32");
  tfs_tensor *two[2] = {x, x};
  const char *k_xx[] = {"x", "x"};
  tfs_saved_model_run(m, "predict", k_xx, two, 2, k_y, out, 1, st);
  TFS_ASSERT_MESSAGE(st, "Signature \"predict\" input \"x\" is given twice");
  tfs_saved_model_run(m, "predict", k_x, &x, 1, NULL, out, 1, st);
  TFS_ASSERT_MESSAGE(st, "Signature \"predict\" has 2 outputs; 1 were asked "
                         "for");
  CU_ASSERT_PTR_NULL(out[0]);
  /* a shape the graph rejects: the session's own error */
  int64_t bad[2] = {1, 3};
  tfs_tensor *x3 = tu_floats(bad, 2, v);
  tfs_saved_model_run(m, "predict", k_x, &x3, 1, k_y, out, 1, st);
  CU_ASSERT_NOT_EQUAL(tfs_status_code(st), TFS_OK);
  CU_ASSERT_PTR_NULL(out[0]);
  tfs_tensor_free(x3);
  tfs_tensor_free(xi);
  tfs_tensor_free(x);
  tfs_saved_model_free(m);
  tfs_status_free(st);
}

/* The same SavedModel written as text (saved_model.pbtxt, the
 * tests/data/pbtxt copy TensorFlow printed) with the binary's variables:
 * TensorFlow's answers again; a broken text names line and column. */
static void test_pbtxt(void) {
  const char *dir = it_tmp("pbtxt_model");
  char cmd[4096], text[1024], vars[1024];
  /* it_src returns one static buffer: copy before the next call */
  snprintf(text, sizeof text, "%s",
           it_src("tests/data/pbtxt/tf1_simple.pbtxt"));
  snprintf(vars, sizeof vars, "%s/variables",
           model_dir("tests/data/saved_models/tf1_simple"));
  snprintf(cmd, sizeof cmd,
           "rm -rf %s && mkdir -p %s && cp %s %s/saved_model.pbtxt && "
           "cp -r %s %s/",
           dir, dir, text, dir, vars, dir);
  CU_ASSERT_EQUAL_FATAL(system(cmd), 0);
  tfs_status *st = tfs_status_new();
  tfs_saved_model *m = tfs_saved_model_load(dir, NULL, 0, NULL, NULL, st);
  TFS_ASSERT_OK(st);
  const char *rel = "tests/data/saved_models/tf1_simple";
  tfs_tensor *in[2] = {tfs_npy_read(data_file(rel, "0_in_a.npy"), st),
                       tfs_npy_read(data_file(rel, "0_in_b.npy"), st)};
  TFS_ASSERT_OK(st);
  const char *keys[2] = {"a", "b"}, *okeys[1] = {"s"};
  tfs_tensor *got = NULL;
  tfs_saved_model_run(m, "serving_default", keys, in, 2, okeys, &got, 1, st);
  TFS_ASSERT_OK(st);
  tfs_tensor *want = tfs_npy_read(data_file(rel, "0_out_s.npy"), st);
  char err[256];
  CU_ASSERT_EQUAL(tc_compare(got, want, 1e-5, 1e-5, err, sizeof err), 0);
  tfs_tensor_free(got);
  tfs_tensor_free(want);
  tfs_tensor_free(in[0]);
  tfs_tensor_free(in[1]);
  tfs_saved_model_free(m);
  snprintf(cmd, sizeof cmd, "%s/saved_model.pbtxt", dir);
  static const char bad[] = "saved_model_schema_version: 1\n"
                            "meta_graphs { bogus: 2 }\n";
  CU_ASSERT_EQUAL(it_write_file(cmd, bad, strlen(bad)), 0);
  CU_ASSERT_PTR_NULL(tfs_saved_model_load(dir, NULL, 0, NULL, NULL, st));
  TFS_ASSERT_ERROR(st, TFS_DATA_LOSS, "saved_model.pbtxt: 2:20: Message type "
                   "\"tensorflow.MetaGraphDef\" has no field named "
                   "\"bogus\".");
  tfs_status_free(st);
}

/* fingerprint.pb read as tf.saved_model.experimental.read_fingerprint
 * reads it (fingerprint.txt holds TensorFlow's values); TF1 exports have
 * none. */
static void test_fingerprints(void) {
  static const char *const names[] = {"keras_mlp", "keras_cnn", "keras_lstm",
                                      "tf_keras_gru", "module", "text_vocab",
                                      NULL};
  tfs_status *st = tfs_status_new();
  for (int i = 0; names[i]; i++) {
    char rel[256], key[64], want_single[256], got_single[256];
    snprintf(rel, sizeof rel, "tests/data/saved_models/%s", names[i]);
    tfs_saved_model_fingerprint fp;
    CU_ASSERT_EQUAL(tfs_saved_model_read_fingerprint(model_dir(rel), &fp, st),
                    0);
    TFS_ASSERT_OK(st);
    FILE *f = fopen(data_file(rel, "fingerprint.txt"), "r");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    unsigned long long want[5];
    for (int k = 0; k < 5; k++)
      CU_ASSERT_EQUAL(fscanf(f, "%63s %llu", key, &want[k]), 2);
    CU_ASSERT_EQUAL(fscanf(f, " singleprint %255s", want_single), 1);
    fclose(f);
    CU_ASSERT_EQUAL(fp.saved_model_checksum, want[0]);
    CU_ASSERT_EQUAL(fp.graph_def_program_hash, want[1]);
    CU_ASSERT_EQUAL(fp.signature_def_hash, want[2]);
    CU_ASSERT_EQUAL(fp.saved_object_graph_hash, want[3]);
    CU_ASSERT_EQUAL(fp.checkpoint_hash, want[4]);
    int n = tfs_saved_model_singleprint(&fp, got_single, sizeof got_single);
    CU_ASSERT_EQUAL(n, (int)strlen(want_single));
    CU_ASSERT_STRING_EQUAL(got_single, want_single);
  }
  tfs_saved_model_fingerprint fp;
  const char *dir = model_dir("tests/data/saved_models/tf1_simple");
  CU_ASSERT_EQUAL(tfs_saved_model_read_fingerprint(dir, &fp, st), -1);
  char want[1200];
  snprintf(want, sizeof want, "%s/fingerprint.pb; No such file or directory",
           dir);
  TFS_ASSERT_MESSAGE(st, want);
  CU_ASSERT_EQUAL(tfs_status_code(st), TFS_NOT_FOUND);
  tfs_status_free(st);
}

static const tfs_test_case kModelCases[] = {
    {"keras_mlp", test_keras_mlp},
    {"keras_cnn", test_keras_cnn},
    {"keras_lstm", test_keras_lstm},
    {"tf_keras_gru", test_tf_keras_gru},
    {"module", test_module},
    {"tf1_simple", test_tf1_simple},
    {"tf1_builder", test_tf1_builder},
    {"text_vocab", test_text_vocab},
    {"estimator_style", test_estimator_style},
    {"pbtxt", test_pbtxt},
    {"fingerprints", test_fingerprints},
    {NULL, NULL},
};

static const tfs_test_case kApiCases[] = {
    {"signature_records", test_signature_records},
    {"all_outputs_and_session", test_all_outputs_and_session},
    {"meta_graph_bytes", test_meta_graph_bytes},
    {"load_errors", test_load_errors},
    {"graph_checks", test_graph_checks},
    {"run_errors", test_run_errors},
    {NULL, NULL},
};

const tfs_test_suite tfs_test_suites[] = {
    {"saved_model", kModelCases},
    {"saved_model_api", kApiCases},
    {NULL, NULL},
};
