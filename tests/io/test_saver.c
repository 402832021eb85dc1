/*
 * tests/io/test_saver.c - tfsess's Saver (tfsess/saver.h) against
 * TensorFlow 2.21's tf.compat.v1.train.Saver (tests/data/saver, made by
 * scripts/fixtures/gen_saver.py):
 *
 * - the nodes it adds to the variables of vars.pb are TensorFlow's, name
 *   for name (op, attrs, device, inputs), plain and sharded, and so is
 *   the SaverDef;
 * - TensorFlow's checkpoint restores through it, and saving the restored
 *   values gives TensorFlow's bytes; a fresh session restores what it
 *   saved; the sharded form saves and restores too;
 * - the `checkpoint` state file and max_to_keep pruning are TensorFlow's
 *   byte for byte, latest_checkpoint reads them back;
 * - errors with TensorFlow's messages.
 *
 * With TFS_FIXTURE_PYTHON naming a Python with TensorFlow,
 * scripts/fixtures/check_saver.py also restores tfsess's checkpoint in
 * TensorFlow.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "graph_builder/graph_internal.h"
#include "iotest.h"
#include "testutil.h"
#include "tfsess/checkpoint.h"
#include "tfsess/graphdef.h"
#include "tfsess/saver.h"
#include "tfsess/session.h"

static const char *KEYS[] = {"a", "b", "s", "sc/c"};
static const char *READS[] = {"a:0", "b:0", "s:0",
                              "sc/c/Read/ReadVariableOp:0"};

static const char *data(const char *file) {
  static char buf[4096];
  char rel[512];
  snprintf(rel, sizeof rel, "tests/data/saver/%s", file);
  snprintf(buf, sizeof buf, "%s", it_src(rel));
  return buf;
}

static void import_file(tfs_graph *g, const char *file, tfs_status *st) {
  size_t len;
  uint8_t *pb = it_read_file(data(file), &len);
  CU_ASSERT_PTR_NOT_NULL_FATAL(pb);
  tfs_import_results *r = tfs_graph_import_graphdef(g, pb, len, NULL, st);
  free(pb);
  tfs_import_results_free(r);
}

static tfs_graph *vars_graph(tfs_status *st) {
  tfs_graph *g = tfs_graph_new();
  import_file(g, "vars.pb", st);
  TFS_ASSERT_OK(st);
  return g;
}

static int same_bytes(const char *a, const char *b) {
  size_t la, lb;
  uint8_t *da = it_read_file(a, &la), *db = it_read_file(b, &lb);
  int ok = da && db && la == lb && !memcmp(da, db, la);
  if (!ok)
    fprintf(stderr, "\n  %s (%zu bytes) differs from %s (%zu bytes)\n", b,
            db ? lb : 0, a, da ? la : 0);
  free(da);
  free(db);
  return ok;
}

static int exists(const char *p) {
  struct stat sb;
  return stat(p, &sb) == 0;
}

/* ---- the graph ----------------------------------------------------------- */

/* Every node of TensorFlow's graph under `scope`/ must be in g with the
 * same op, attrs, device and inputs, and g must have no other. */
static void compare_nodes(tfs_graph *g, tfs_graph *tf, const char *scope) {
  size_t pos = 0, len = strlen(scope);
  int n_tf = 0, n_ours = 0;
  for (tfs_operation *op; (op = tfs_graph_next_operation(tf, &pos));) {
    const char *name = tfs_operation_name(op);
    if (strncmp(name, scope, len) || name[len] != '/') continue;
    n_tf++;
    tfs_operation *mine = tfs_graph_operation_by_name(g, name);
    if (!mine) {
      fprintf(stderr, "\n  missing node %s\n", name);
      CU_FAIL("a node of TensorFlow's saver is missing");
      continue;
    }
    char *want = tfs_graph__summarize_node(op);
    char *got = tfs_graph__summarize_node(mine);
    CU_ASSERT_PTR_NOT_NULL_FATAL(want);
    CU_ASSERT_PTR_NOT_NULL_FATAL(got);
    if (strcmp(want, got))
      fprintf(stderr, "\n  TensorFlow: %s\n  tfsess:     %s\n", want, got);
    CU_ASSERT_STRING_EQUAL(want, got);
    free(want);
    free(got);
  }
  pos = 0;
  for (tfs_operation *op; (op = tfs_graph_next_operation(g, &pos));) {
    const char *name = tfs_operation_name(op);
    if (!strncmp(name, scope, len) && name[len] == '/') n_ours++;
  }
  CU_ASSERT(n_tf > 10);
  CU_ASSERT_EQUAL(n_ours, n_tf);
}

static void check_saver_def(const tfs_saver *sv, const char *file) {
  tfs_status *st = tfs_status_new();
  tfs_buffer buf = {NULL, 0, NULL};
  tfs_saver_to_saver_def(sv, &buf, st);
  TFS_ASSERT_OK(st);
  size_t len;
  uint8_t *want = it_read_file(data(file), &len);
  CU_ASSERT_PTR_NOT_NULL_FATAL(want);
  CU_ASSERT(buf.length == len && !memcmp(buf.data, want, len));
  free(want);
  buf.data_deallocator((void *)buf.data, buf.length);
  tfs_status_free(st);
}

static void test_graph_plain(void) {
  tfs_status *st = tfs_status_new();
  tfs_graph *g = vars_graph(st);
  tfs_saver *sv = tfs_saver_new(g, NULL, 0, NULL, st);
  TFS_ASSERT_OK(st);
  tfs_graph *tf = tfs_graph_new();
  import_file(tf, "saver.pb", st);
  TFS_ASSERT_OK(st);
  compare_nodes(g, tf, "save");
  CU_ASSERT_STRING_EQUAL(tfs_saver_filename_tensor_name(sv), "save/Const:0");
  CU_ASSERT_STRING_EQUAL(tfs_saver_save_tensor_name(sv),
                         "save/control_dependency:0");
  CU_ASSERT_STRING_EQUAL(tfs_saver_restore_op_name(sv), "save/restore_all");
  CU_ASSERT_EQUAL(tfs_saver_max_to_keep(sv), 5);
  CU_ASSERT_EQUAL(tfs_saver_version(sv), 2);
  check_saver_def(sv, "saver_def.pb");
  /* a second saver gets the next scope, as TensorFlow's name_scope */
  tfs_saver *sv2 = tfs_saver_new(g, NULL, 0, NULL, st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_STRING_EQUAL(tfs_saver_restore_op_name(sv2),
                         "save_1/restore_all");
  tfs_saver_free(sv2);
  tfs_saver_free(sv);
  tfs_graph_free(tf);
  tfs_graph_free(g);
  tfs_status_free(st);
}

static tfs_saver *sharded_saver(tfs_graph *g, tfs_status *st) {
  tfs_saver_options *o = tfs_saver_options_new();
  tfs_saver_options_set_sharded(o, 1);
  tfs_saver_options_set_max_to_keep(o, 3);
  tfs_saver_options_set_name(o, "ckpt");
  tfs_saver *sv = tfs_saver_new(g, NULL, 0, o, st);
  tfs_saver_options_free(o);
  return sv;
}

static void test_graph_sharded(void) {
  tfs_status *st = tfs_status_new();
  tfs_graph *g = vars_graph(st);
  tfs_saver *sv = sharded_saver(g, st);
  TFS_ASSERT_OK(st);
  tfs_graph *tf = tfs_graph_new();
  import_file(tf, "saver_sharded.pb", st);
  TFS_ASSERT_OK(st);
  compare_nodes(g, tf, "ckpt");
  CU_ASSERT_STRING_EQUAL(tfs_saver_save_tensor_name(sv), "ckpt/Identity:0");
  CU_ASSERT(tfs_saver_sharded(sv));
  check_saver_def(sv, "saver_def_sharded.pb");
  tfs_saver_free(sv);
  tfs_graph_free(tf);
  tfs_graph_free(g);
  tfs_status_free(st);
}

/* ---- saving and restoring ------------------------------------------------ */

static int same_tensor(const tfs_tensor *a, const tfs_tensor *b) {
  if (!a || !b || tfs_tensor_dtype(a) != tfs_tensor_dtype(b) ||
      tfs_tensor_num_elements(a) != tfs_tensor_num_elements(b))
    return 0;
  if (tfs_tensor_dtype(a) != TFS_STRING)
    return tfs_tensor_byte_size(a) == tfs_tensor_byte_size(b) &&
           !memcmp(tfs_tensor_data(a), tfs_tensor_data(b),
                   tfs_tensor_byte_size(a));
  for (int64_t i = 0; i < tfs_tensor_num_elements(a); i++) {
    size_t la, lb;
    const char *x = tfs_tensor_string_at(a, i, &la);
    const char *y = tfs_tensor_string_at(b, i, &lb);
    if (la != lb || memcmp(x, y, la)) return 0;
  }
  return 1;
}

/* The variables hold want_KEY.npy (saved 1) or their initial values
 * (saved 0: compared with a session that ran init). */
static void check_values(tfs_session *s, tfs_graph *g) {
  tfs_status *st = tfs_status_new();
  for (int k = 0; k < 4; k++) {
    tfs_output out = tfs_graph_output_by_name(g, READS[k], st);
    TFS_ASSERT_OK(st);
    tfs_tensor *got = NULL;
    tfs_session_run(s, NULL, NULL, 0, &out, &got, 1, NULL, 0, st);
    TFS_ASSERT_OK(st);
    char file[64];
    snprintf(file, sizeof file, "want_%s.npy", k == 3 ? "sc_c" : KEYS[k]);
    tfs_tensor *want = tfs_npy_read(data(file), st);
    TFS_ASSERT_OK(st);
    if (!same_tensor(got, want)) fprintf(stderr, "\n  %s differs\n", KEYS[k]);
    CU_ASSERT(same_tensor(got, want));
    tfs_tensor_free(got);
    tfs_tensor_free(want);
  }
  tfs_status_free(st);
}

static void run_init(tfs_session *s, tfs_graph *g, tfs_status *st) {
  tfs_operation *init = tfs_graph_operation_by_name(g, "init");
  CU_ASSERT_PTR_NOT_NULL_FATAL(init);
  tfs_session_run(s, NULL, NULL, 0, NULL, NULL, 0, &init, 1, st);
}

/* Runs check_saver.py on `prefix` when TFS_FIXTURE_PYTHON is set. */
static void check_in_tensorflow(const char *prefix) {
  const char *py = getenv("TFS_FIXTURE_PYTHON");
  if (!py || !*py || access(py, X_OK)) return;
  char cmd[8192];
  snprintf(cmd, sizeof cmd,
           "cd '%s' && TF_CPP_MIN_LOG_LEVEL=3 '%s' check_saver.py '%s'",
           it_src("scripts/fixtures"), py, prefix);
  CU_ASSERT_EQUAL(system(cmd), 0);
}

static void test_restore_tf_checkpoint(void) {
  tfs_status *st = tfs_status_new();
  tfs_graph *g = vars_graph(st);
  tfs_saver *sv = tfs_saver_new(g, NULL, 0, NULL, st);
  TFS_ASSERT_OK(st);
  char tf_prefix[4096];
  snprintf(tf_prefix, sizeof tf_prefix, "%s", data("tf_ckpt"));
  /* TensorFlow's checkpoint into a session that never ran init */
  tfs_session *s = tfs_session_new(g, NULL, st);
  tfs_saver_restore(sv, s, tf_prefix, st);
  TFS_ASSERT_OK(st);
  check_values(s, g);
  /* saved again by tfsess: TensorFlow's bytes */
  char prefix[4200];
  mkdir(it_tmp("plain"), 0755);
  snprintf(prefix, sizeof prefix, "%s/ckpt", it_tmp("plain"));
  char *got = tfs_saver_save(sv, s, prefix, NULL, NULL, 0, st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_STRING_EQUAL(got, prefix);
  free(got);
  tfs_session_free(s);
  const char *suffix[] = {".index", ".data-00000-of-00001"};
  for (int k = 0; k < 2; k++) {
    char a[4200], b[4200];
    snprintf(a, sizeof a, "%s%s", tf_prefix, suffix[k]);
    snprintf(b, sizeof b, "%s%s", prefix, suffix[k]);
    CU_ASSERT(same_bytes(a, b));
  }
  /* write_state 0: no state file */
  char state[4200];
  snprintf(state, sizeof state, "%s/checkpoint", it_tmp("plain"));
  CU_ASSERT(!exists(state));
  /* a fresh session after init restores tfsess's checkpoint */
  s = tfs_session_new(g, NULL, st);
  run_init(s, g, st);
  TFS_ASSERT_OK(st);
  tfs_saver_restore(sv, s, prefix, st);
  TFS_ASSERT_OK(st);
  check_values(s, g);
  tfs_session_free(s);
  check_in_tensorflow(prefix);
  tfs_saver_free(sv);
  tfs_graph_free(g);
  tfs_status_free(st);
}

static void test_sharded_round_trip(void) {
  tfs_status *st = tfs_status_new();
  tfs_graph *g = vars_graph(st);
  tfs_saver *sv = sharded_saver(g, st);
  TFS_ASSERT_OK(st);
  tfs_session *s = tfs_session_new(g, NULL, st);
  tfs_saver_restore(sv, s, data("tf_ckpt"), st);
  TFS_ASSERT_OK(st);
  check_values(s, g);
  char dir[4096], prefix[4200], path[4300];
  snprintf(dir, sizeof dir, "%s", it_tmp("sharded"));
  mkdir(dir, 0755);
  snprintf(prefix, sizeof prefix, "%s/model", dir);
  int64_t step = 7;
  char *got = tfs_saver_save(sv, s, prefix, &step, NULL, 1, st);
  TFS_ASSERT_OK(st);
  snprintf(path, sizeof path, "%s-7", prefix);
  CU_ASSERT_STRING_EQUAL(got, path);
  free(got);
  tfs_session_free(s);
  /* merged into one data file, the temporary directory gone */
  snprintf(path, sizeof path, "%s-7.data-00000-of-00001", prefix);
  CU_ASSERT(exists(path));
  snprintf(path, sizeof path, "%s-7_temp", prefix);
  CU_ASSERT(!exists(path));
  snprintf(path, sizeof path, "%s-7.index", prefix);
  CU_ASSERT(same_bytes(data("tf_ckpt.index"), path));
  /* the state file names it with an absolute path */
  char *latest = tfs_latest_checkpoint(dir, NULL, st);
  TFS_ASSERT_OK(st);
  snprintf(path, sizeof path, "%s-7", prefix);
  CU_ASSERT(latest && !strcmp(latest, path));
  s = tfs_session_new(g, NULL, st);
  run_init(s, g, st);
  tfs_saver_restore(sv, s, latest, st);
  TFS_ASSERT_OK(st);
  check_values(s, g);
  free(latest);
  tfs_session_free(s);
  tfs_saver_free(sv);
  tfs_graph_free(g);
  tfs_status_free(st);
}

/* max_to_keep 2, steps 1..3 under a relative save path: TensorFlow's
 * state file and the same files left. */
static void test_state_file(void) {
  tfs_status *st = tfs_status_new();
  tfs_graph *g = vars_graph(st);
  tfs_saver_options *o = tfs_saver_options_new();
  tfs_saver_options_set_max_to_keep(o, 2);
  tfs_saver *sv = tfs_saver_new(g, NULL, 0, o, st);
  tfs_saver_options_free(o);
  TFS_ASSERT_OK(st);
  char want[4096], cwd[4096];
  snprintf(want, sizeof want, "%s", data("state/checkpoint"));
  CU_ASSERT_PTR_NOT_NULL_FATAL(getcwd(cwd, sizeof cwd));
  const char *dir = it_tmp("state");
  mkdir(dir, 0755);
  CU_ASSERT_EQUAL_FATAL(chdir(dir), 0);
  mkdir("ckpts", 0755);
  tfs_session *s = tfs_session_new(g, NULL, st);
  run_init(s, g, st);
  TFS_ASSERT_OK(st);
  for (int64_t step = 1; step <= 3; step++) {
    char *p = tfs_saver_save(sv, s, "ckpts/model", &step, NULL, 1, st);
    TFS_ASSERT_OK(st);
    free(p);
  }
  CU_ASSERT(same_bytes(want, "ckpts/checkpoint"));
  CU_ASSERT(!exists("ckpts/model-1.index"));
  CU_ASSERT(!exists("ckpts/model-1.data-00000-of-00001"));
  CU_ASSERT(exists("ckpts/model-2.index") && exists("ckpts/model-3.index"));
  CU_ASSERT_EQUAL(tfs_saver_num_last_checkpoints(sv), 2);
  CU_ASSERT_STRING_EQUAL(tfs_saver_last_checkpoint(sv, 0), "ckpts/model-2");
  char *latest = tfs_latest_checkpoint("ckpts", NULL, st);
  TFS_ASSERT_OK(st);
  CU_ASSERT(latest && !strcmp(latest, "ckpts/model-3"));
  free(latest);
  tfs_checkpoint_state *cs = tfs_checkpoint_state_read("ckpts", NULL, st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_EQUAL(tfs_checkpoint_state_num_paths(cs), 2);
  CU_ASSERT_STRING_EQUAL(tfs_checkpoint_state_path(cs, 0), "ckpts/model-2");
  tfs_checkpoint_state_free(cs);
  /* recover_last_checkpoints keeps those still on disk */
  const char *paths[] = {"ckpts/model-1", "ckpts/model-2", "ckpts/model-3"};
  tfs_saver_recover_last_checkpoints(sv, paths, 3, st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_EQUAL(tfs_saver_num_last_checkpoints(sv), 2);
  /* a state file in TensorFlow's syntax variants; a broken one is None */
  const char *text = "# c\nmodel_checkpoint_path: 'ckpts/' \"model-2\";\n"
                     "all_model_checkpoint_paths: [\"/abs\", 'x\\055y']\n"
                     "all_model_checkpoint_timestamps: 1.5e9\n";
  it_write_file("alt", text, strlen(text));
  cs = tfs_checkpoint_state_read(".", "alt", st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_STRING_EQUAL(tfs_checkpoint_state_model_path(cs),
                         "./ckpts/model-2");
  CU_ASSERT_STRING_EQUAL(tfs_checkpoint_state_path(cs, 0), "/abs");
  CU_ASSERT_STRING_EQUAL(tfs_checkpoint_state_path(cs, 1), "./x-y");
  tfs_checkpoint_state_free(cs);
  it_write_file("bad", "model_checkpoint_path: \"x", 25);
  CU_ASSERT_PTR_NULL(tfs_checkpoint_state_read(".", "bad", st));
  TFS_ASSERT_OK(st);
  it_write_file("empty", "all_model_checkpoint_paths: \"x\"\n", 32);
  CU_ASSERT_PTR_NULL(tfs_checkpoint_state_read(".", "empty", st));
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT,
                   "Invalid checkpoint state loaded from .");
  tfs_status_clear(st);
  CU_ASSERT_PTR_NULL(tfs_latest_checkpoint("nowhere", NULL, st));
  TFS_ASSERT_OK(st);
  /* a state file naming a checkpoint that is gone */
  it_write_file("gone", "model_checkpoint_path: \"ckpts/model-1\"\n", 39);
  CU_ASSERT_PTR_NULL(tfs_latest_checkpoint(".", "gone", st));
  TFS_ASSERT_OK(st);
  tfs_session_free(s);
  CU_ASSERT_EQUAL(chdir(cwd), 0);
  tfs_saver_free(sv);
  tfs_graph_free(g);
  tfs_status_free(st);
}

/* ---- keys, resource handles, errors -------------------------------------- */

static tfs_operation *var_handle(tfs_graph *g, const char *name,
                                 tfs_status *st) {
  tfs_op_desc *d = tfs_op_desc_new(g, "VarHandleOp", name);
  tfs_op_desc_set_attr_type(d, "dtype", TFS_FLOAT);
  int64_t dims[] = {2, 3};
  tfs_op_desc_set_attr_shape(d, "shape", dims, 2);
  tfs_op_desc_set_attr_string(d, "shared_name", name, strlen(name));
  return tfs_op_desc_finish(d, st);
}

static void test_keyed_and_handle(void) {
  tfs_status *st = tfs_status_new();
  tfs_graph *g = vars_graph(st);
  tfs_operation *h = var_handle(g, "h", st);
  TFS_ASSERT_OK(st);
  /* "a" of TensorFlow's checkpoint into the resource variable h */
  const char *keys[] = {"a"};
  tfs_saver *sv = tfs_saver_new_keyed(g, keys, &h, 1, NULL, st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_PTR_NOT_NULL(
      tfs_graph_operation_by_name(g, "h/Read/ReadVariableOp"));
  tfs_session *s = tfs_session_new(g, NULL, st);
  tfs_saver_restore(sv, s, data("tf_ckpt"), st);
  TFS_ASSERT_OK(st);
  tfs_output out = tfs_graph_output_by_name(g, "h/Read/ReadVariableOp", st);
  tfs_tensor *got = NULL;
  tfs_session_run(s, NULL, NULL, 0, &out, &got, 1, NULL, 0, st);
  TFS_ASSERT_OK(st);
  tfs_tensor *want = tfs_npy_read(data("want_a.npy"), st);
  CU_ASSERT(same_tensor(got, want));
  /* the variable keeps the restored tensor itself: an update after the
   * read leaves the read value alone */
  int64_t dims[] = {2, 3};
  tfs_tensor *ones = tu_floats(dims, 2, (const float[]){1, 1, 1, 1, 1, 1});
  tfs_output one = tfs_op_const(g, "ones", ones, st);
  tfs_operation *inc =
      tfs_op_assign_add_variable(g, "inc", (tfs_output){h, 0}, one, st);
  TFS_ASSERT_OK(st);
  tfs_session_run(s, NULL, NULL, 0, NULL, NULL, 0, &inc, 1, st);
  TFS_ASSERT_OK(st);
  CU_ASSERT(same_tensor(got, want));
  tfs_tensor *after = NULL;
  tfs_session_run(s, NULL, NULL, 0, &out, &after, 1, NULL, 0, st);
  TFS_ASSERT_OK(st);
  for (int i = 0; after && i < 6; i++)
    CU_ASSERT_EQUAL(((const float *)tfs_tensor_data(after))[i],
                    ((const float *)tfs_tensor_data(want))[i] + 1.0f);
  tfs_tensor_free(after);
  tfs_tensor_free(ones);
  tfs_tensor_free(got);
  tfs_tensor_free(want);
  /* saved under the key */
  char prefix[4096];
  snprintf(prefix, sizeof prefix, "%s", it_tmp("keyed"));
  char *p = tfs_saver_save(sv, s, prefix, NULL, NULL, 0, st);
  TFS_ASSERT_OK(st);
  free(p);
  tfs_bundle_reader *r = tfs_bundle_reader_open(prefix, st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_EQUAL(tfs_bundle_reader_count(r), 1);
  CU_ASSERT(tfs_bundle_reader_find(r, "a") == 0);
  tfs_bundle_reader_free(r);
  tfs_session_free(s);
  tfs_saver_free(sv);
  tfs_graph_free(g);
  tfs_status_free(st);
}

static void test_build_errors(void) {
  tfs_status *st = tfs_status_new();
  tfs_graph *empty = tfs_graph_new();
  CU_ASSERT_PTR_NULL(tfs_saver_new(empty, NULL, 0, NULL, st));
  TFS_ASSERT_MESSAGE(st, "No variables to save");
  tfs_status_clear(st);
  tfs_graph *g = vars_graph(st);
  tfs_operation *a = tfs_graph_operation_by_name(g, "a");
  tfs_operation *b = tfs_graph_operation_by_name(g, "b");
  tfs_operation *two[] = {a, b};
  const char *same[] = {"k", "k"};
  CU_ASSERT_PTR_NULL(tfs_saver_new_keyed(g, same, two, 2, NULL, st));
  TFS_ASSERT_MESSAGE(st, "At least two variables have the same name: k");
  tfs_status_clear(st);
  tfs_operation *twice[] = {a, a};
  const char *names[] = {"x", "y"};
  CU_ASSERT_PTR_NULL(tfs_saver_new_keyed(g, names, twice, 2, NULL, st));
  TFS_ASSERT_MESSAGE(st,
                     "The same saveable will be restored with two names: y");
  tfs_status_clear(st);
  tfs_operation *init = tfs_graph_operation_by_name(g, "init");
  CU_ASSERT_PTR_NULL(tfs_saver_new(g, &init, 1, NULL, st));
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT, "Not a variable: init");
  tfs_status_clear(st);
  tfs_graph_free(g);
  tfs_graph_free(empty);
  tfs_status_free(st);
}

static void test_run_errors(void) {
  tfs_status *st = tfs_status_new();
  tfs_graph *g = vars_graph(st);
  /* a variable the checkpoint lacks */
  tfs_op_desc *d = tfs_op_desc_new(g, "VariableV2", "extra");
  tfs_op_desc_set_attr_type(d, "dtype", TFS_FLOAT);
  tfs_op_desc_set_attr_shape(d, "shape", NULL, 0);
  tfs_op_desc_finish(d, st);
  TFS_ASSERT_OK(st);
  tfs_saver *sv = tfs_saver_new(g, NULL, 0, NULL, st);
  TFS_ASSERT_OK(st);
  tfs_session *s = tfs_session_new(g, NULL, st);
  tfs_saver_restore(sv, s, data("tf_ckpt"), st);
  TFS_ASSERT_ERROR(st, TFS_NOT_FOUND,
                   "Restoring from checkpoint failed. This is most likely "
                   "due to a Variable name or other graph key that is "
                   "missing from the checkpoint. Please ensure that you have "
                   "not altered the graph expected based on the checkpoint. "
                   "Original error:\n\n");
  TFS_ASSERT_ERROR(st, TFS_NOT_FOUND, "Key extra not found in checkpoint");
  tfs_status_clear(st);
  tfs_saver_restore(sv, s, NULL, st);
  TFS_ASSERT_MESSAGE(st, "Can't load save_path when it is None.");
  tfs_status_clear(st);
  tfs_saver_restore(sv, s, "/nonexistent/x", st);
  TFS_ASSERT_MESSAGE(st, "The passed save_path is not a valid checkpoint: "
                         "/nonexistent/x");
  tfs_status_clear(st);
  run_init(s, g, st);
  tfs_status_clear(st); /* extra has no initializer */
  char prefix[4200];
  snprintf(prefix, sizeof prefix, "%s/model", it_tmpdir());
  char *p = tfs_saver_save(sv, s, prefix, NULL, NULL, 1, st);
  CU_ASSERT_PTR_NULL(p);
  TFS_ASSERT_ERROR(st, TFS_FAILED_PRECONDITION, "uninitialized value extra");
  tfs_status_clear(st);
  tfs_saver_free(sv);
  tfs_session_free(s);
  /* the variables initialised: only the directory is wrong */
  sv = tfs_saver_new(g, (tfs_operation *[]){
                             tfs_graph_operation_by_name(g, "a")},
                     1, NULL, st);
  TFS_ASSERT_OK(st);
  s = tfs_session_new(g, NULL, st);
  run_init(s, g, st);
  TFS_ASSERT_OK(st);
  p = tfs_saver_save(sv, s, "/nonexistent/dir/model", NULL, NULL, 1, st);
  CU_ASSERT_PTR_NULL(p);
  TFS_ASSERT_MESSAGE(st, "Parent directory of /nonexistent/dir/model "
                         "doesn't exist, can't save.");
  tfs_status_clear(st);
  p = tfs_saver_save(sv, s, "x/model", NULL, "a/checkpoint", 1, st);
  TFS_ASSERT_MESSAGE(st, "'latest_filename' must not contain path "
                         "components");
  tfs_status_clear(st);
  p = tfs_saver_save(sv, s, "x/checkpoint", NULL, NULL, 1, st);
  TFS_ASSERT_MESSAGE(st, "'latest_filename' collides with 'save_path': "
                         "'checkpoint' and 'x/checkpoint'");
  tfs_status_clear(st);
  CU_ASSERT_PTR_NULL(p);
  /* a dtype that differs: the mismatch wording */
  const char *keys[] = {"b"};
  tfs_operation *a = tfs_graph_operation_by_name(g, "a");
  tfs_saver *wrong = tfs_saver_new_keyed(g, keys, &a, 1, NULL, st);
  TFS_ASSERT_OK(st);
  tfs_saver_restore(wrong, s, data("tf_ckpt"), st);
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT,
                   "This is most likely due to a mismatch between the "
                   "current graph and the graph from the checkpoint.");
  tfs_status_clear(st);
  tfs_saver_free(wrong);
  tfs_session_free(s);
  /* the state file may not be the checkpoint itself */
  const char *dir = it_tmp("conflict");
  mkdir(dir, 0755);
  char model[4200];
  snprintf(model, sizeof model, "%s/checkpoint", dir);
  tfs_checkpoint_state_write(dir, model, NULL, 0, NULL, st);
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT,
                   "conflicts with path used for checkpoint state.  Please "
                   "use a different save path.");
  tfs_status_clear(st);
  tfs_saver_free(sv);
  tfs_graph_free(g);
  tfs_status_free(st);
}

static const tfs_test_case kGraphCases[] = {
    {"plain", test_graph_plain},
    {"sharded", test_graph_sharded},
    {NULL, NULL},
};

static const tfs_test_case kRunCases[] = {
    {"restore_tf_checkpoint", test_restore_tf_checkpoint},
    {"sharded_round_trip", test_sharded_round_trip},
    {"state_file", test_state_file},
    {"keyed_and_handle", test_keyed_and_handle},
    {"build_errors", test_build_errors},
    {"run_errors", test_run_errors},
    {NULL, NULL},
};

const tfs_test_suite tfs_test_suites[] = {
    {"saver_graph", kGraphCases},
    {"saver_run", kRunCases},
    {NULL, NULL},
};
