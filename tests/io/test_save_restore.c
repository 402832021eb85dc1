/*
 * tests/io/test_save_restore.c - the checkpoint ops (SaveV2, RestoreV2,
 * MergeV2Checkpoints, ShardedFilename/Filespec) run by tfsess:
 *
 * - the Saver graphs of tests/conformance/checkpoints (TensorFlow 2.21,
 *   scripts/fixtures/gen_saverestore.py) run their `init` and
 *   save/control_dependency into a temporary directory, and the files
 *   must be byte for byte the ones TensorFlow saved for the same graph
 *   and values (plain and partitioned variables, ref and resource); a
 *   fresh session then restores them;
 * - the kernels called directly: slices saved and restored, merging with
 *   renumbered shards and joined slice lists, and hostile inputs (huge and
 *   negative slice specs, names with NUL bytes, prefixes in missing
 *   directories, wrong ranks) failing with TensorFlow's messages.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "iotest.h"
#include "tfsess/checkpoint.h"
#include "tfsess/eager.h"
#include "tfsess/graphdef.h"
#include "tfsess/session.h"
#include "testutil.h"

/* ---- the Saver graphs --------------------------------------------------- */

static const char *case_file(const char *name, const char *file) {
  static char buf[4096];
  char rel[512];
  snprintf(rel, sizeof rel, "tests/conformance/checkpoints/%s/%s", name, file);
  snprintf(buf, sizeof buf, "%s", it_src(rel));
  return buf;
}

/* A scratch directory it_tmp(name), made now. */
static const char *tmp_dir(const char *name) {
  const char *d = it_tmp(name);
  mkdir(d, 0755);
  return d;
}

static tfs_graph *import_case(const char *name, tfs_status *st) {
  size_t len;
  uint8_t *pb = it_read_file(case_file(name, "graph.pb"), &len);
  if (!pb) return NULL;
  tfs_graph *g = tfs_graph_new();
  tfs_import_results *r = tfs_graph_import_graphdef(g, pb, len, NULL, st);
  free(pb);
  tfs_import_results_free(r);
  if (!tfs_status_ok(st)) {
    tfs_graph_free(g);
    return NULL;
  }
  return g;
}

static tfs_tensor *string_scalar(const char *s) {
  tfs_status *st = tfs_status_new();
  tfs_tensor *t = tfs_tensor_new_strings(NULL, 0, &s, NULL, st);
  tfs_status_free(st);
  return t;
}

/* Runs target `op` feeding save/Const:0 = prefix. */
static void run_with_prefix(tfs_session *s, tfs_graph *g, const char *op,
                            const char *prefix, tfs_status *st) {
  tfs_output feed = tfs_graph_output_by_name(g, "save/Const:0", st);
  tfs_operation *target = tfs_graph_operation_by_name(g, op);
  CU_ASSERT_PTR_NOT_NULL_FATAL(target);
  tfs_tensor *p = string_scalar(prefix);
  tfs_session_run(s, &feed, &p, 1, NULL, NULL, 0, &target, 1, st);
  tfs_tensor_free(p);
}

static int same_files(const char *a, const char *b) {
  size_t la, lb;
  uint8_t *da = it_read_file(a, &la), *db = it_read_file(b, &lb);
  int ok = da && db && la == lb && memcmp(da, db, la) == 0;
  if (!ok)
    fprintf(stderr, "\n  %s: %zu bytes, TensorFlow's %s: %zu\n", b,
            db ? lb : 0, a, da ? la : 0);
  free(da);
  free(db);
  return ok;
}

/* Same dtype, shape and elements (strings element by element). */
static int same_tensor(const tfs_tensor *a, const tfs_tensor *b) {
  if (!a || !b || tfs_tensor_dtype(a) != tfs_tensor_dtype(b) ||
      tfs_tensor_ndims(a) != tfs_tensor_ndims(b))
    return 0;
  for (int d = 0; d < tfs_tensor_ndims(a); d++)
    if (tfs_tensor_dim(a, d) != tfs_tensor_dim(b, d)) return 0;
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

/* Checks every "fetch NAME FILE" of the case's manifest in session s. */
static void check_fetches(const char *name, tfs_session *s, tfs_graph *g,
                          tfs_status *st) {
  size_t len;
  char *m = (char *)it_read_file(case_file(name, "manifest.txt"), &len);
  CU_ASSERT_PTR_NOT_NULL_FATAL(m);
  char *text = realloc(m, len + 1);
  text[len] = 0;
  int checked = 0;
  for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
    char fetch[256], file[256];
    if (sscanf(line, "fetch %255s %255s", fetch, file) != 2) continue;
    tfs_output out = tfs_graph_output_by_name(g, fetch, st);
    TFS_ASSERT_OK(st);
    tfs_tensor *got = NULL;
    tfs_session_run(s, NULL, NULL, 0, &out, &got, 1, NULL, 0, st);
    TFS_ASSERT_OK(st);
    tfs_tensor *want = tfs_npy_read(case_file(name, file), st);
    TFS_ASSERT_OK(st);
    if (!same_tensor(got, want)) fprintf(stderr, "\n  %s: %s\n", name, fetch);
    CU_ASSERT(same_tensor(got, want));
    tfs_tensor_free(got);
    tfs_tensor_free(want);
    checked++;
  }
  CU_ASSERT(checked > 0);
  free(text);
}

/* Saves with the case's graph after `init`, compares with TensorFlow's
 * files, restores into a fresh session and checks the values. */
static void saver_bytes(const char *name) {
  tfs_status *st = tfs_status_new();
  tfs_graph *g = import_case(name, st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_PTR_NOT_NULL_FATAL(g);
  tfs_session *s = tfs_session_new(g, NULL, st);
  TFS_ASSERT_OK(st);
  tfs_operation *init = tfs_graph_operation_by_name(g, "init");
  CU_ASSERT_PTR_NOT_NULL_FATAL(init);
  tfs_session_run(s, NULL, NULL, 0, NULL, NULL, 0, &init, 1, st);
  TFS_ASSERT_OK(st);
  char prefix[4096];
  snprintf(prefix, sizeof prefix, "%s/ckpt", tmp_dir(name));
  run_with_prefix(s, g, "save/control_dependency", prefix, st);
  TFS_ASSERT_OK(st);
  tfs_session_free(s);
  const char *suffix[] = {".index", ".data-00000-of-00001"};
  for (int k = 0; k < 2; k++) {
    char a[4200], b[4200];
    snprintf(a, sizeof a, "%s%s", case_file(name, "ckpt"), suffix[k]);
    snprintf(b, sizeof b, "%s%s", prefix, suffix[k]);
    CU_ASSERT(same_files(a, b));
  }
  s = tfs_session_new(g, NULL, st);
  run_with_prefix(s, g, "save/restore_all", prefix, st);
  TFS_ASSERT_OK(st);
  check_fetches(name, s, g, st);
  tfs_session_free(s);
  tfs_graph_free(g);
  tfs_status_free(st);
}

static void test_ref_vars(void) { saver_bytes("ref_vars"); }
static void test_resource_vars(void) { saver_bytes("resource_vars"); }
static void test_mixed_vars(void) { saver_bytes("mixed_scoped_vars"); }
static void test_partitioned_ref(void) { saver_bytes("partitioned_ref"); }
static void test_partitioned_resource(void) {
  saver_bytes("partitioned_resource");
}
static void test_renamed(void) { saver_bytes("var_list_renamed"); }

/* ---- the kernels, called eagerly ---------------------------------------- */

static tfs_ctx *g_ctx; /* one eager context per test */

static void begin(void) {
  tfs_status *st = tfs_status_new();
  g_ctx = tfs_eager_ctx_new(NULL, st);
  TFS_ASSERT_OK(st);
  tfs_status_free(st);
}

static void end(void) {
  tfs_ctx_free(g_ctx);
  g_ctx = NULL;
}


static tfs_value *val(tfs_tensor *t) {
  tfs_status *st = tfs_status_new();
  tfs_value *v = tfs_value_new(g_ctx, t, st);
  tfs_tensor_free(t);
  tfs_status_free(st);
  return v;
}

/* A string vector of n NUL-terminated strings (lens NULL) or of lens. */
static tfs_value *strings(int n, const char *const *s, const size_t *lens) {
  tfs_status *st = tfs_status_new();
  int64_t d = n;
  tfs_tensor *t = tfs_tensor_new_strings(&d, 1, s, lens, st);
  tfs_status_free(st);
  return val(t);
}

static tfs_value *floats(int n, const float *v) {
  tfs_status *st = tfs_status_new();
  int64_t d = n;
  tfs_tensor *t = tfs_tensor_new_copy(TFS_FLOAT, &d, 1, v, sizeof *v * n, st);
  tfs_status_free(st);
  return val(t);
}

static void free_values(tfs_value **v, int n) {
  for (int i = 0; i < n; i++) tfs_value_free(v[i]);
}

/* SaveV2(prefix, names, specs, tensors); returns the status code. */
static tfs_code save(const char *prefix, int n, const char *const *names,
                     const char *const *specs, tfs_value **tensors, int nt,
                     tfs_status *st) {
  tfs_value *in[3] = {val(string_scalar(prefix)), strings(n, names, NULL),
                      strings(n, specs, NULL)};
  tfs_op_call *c = tfs_op_call_new(g_ctx, "SaveV2", st);
  for (int i = 0; i < 3; i++) tfs_op_call_add_input(c, in[i], st);
  tfs_op_call_add_input_list(c, tensors, nt, st);
  int nout;
  if (tfs_status_ok(st)) tfs_op_call_execute(c, NULL, 0, &nout, st);
  tfs_op_call_free(c);
  free_values(in, 3);
  return tfs_status_code(st);
}

/* RestoreV2 of n names as float; the outputs' tensors in out[]. */
static tfs_code restore(const char *prefix, int n, const char *const *names,
                        const size_t *lens, const char *const *specs,
                        tfs_tensor **out, tfs_status *st) {
  tfs_value *in[3] = {val(string_scalar(prefix)), strings(n, names, lens),
                      strings(n, specs, NULL)};
  tfs_dtype dt[8];
  for (int i = 0; i < n; i++) dt[i] = TFS_FLOAT;
  tfs_op_call *c = tfs_op_call_new(g_ctx, "RestoreV2", st);
  for (int i = 0; i < 3; i++) tfs_op_call_add_input(c, in[i], st);
  tfs_op_call_set_attr_type_list(c, "dtypes", dt, n);
  tfs_value *vs[8] = {0};
  int nout = 0;
  if (tfs_status_ok(st)) tfs_op_call_execute(c, vs, 8, &nout, st);
  for (int i = 0; i < nout; i++) {
    out[i] = tfs_value_resolve(vs[i], st);
    tfs_value_free(vs[i]);
  }
  tfs_op_call_free(c);
  free_values(in, 3);
  return tfs_status_code(st);
}

static int float_eq(const tfs_tensor *t, int n, const float *want) {
  return t && tfs_tensor_num_elements(t) == n &&
         !memcmp(tfs_tensor_data(t), want, sizeof *want * n);
}

static void test_slices_round_trip(void) {
  begin();
  tfs_status *st = tfs_status_new();
  char prefix[4096];
  snprintf(prefix, sizeof prefix, "%s/sl", tmp_dir("slices"));
  const char *names[] = {"w", "w", "v"};
  const char *specs[] = {"6 0,2", "6 4,2", ""};
  float a[2] = {1, 2}, b[2] = {5, 6}, c[1] = {9};
  tfs_value *t[3] = {floats(2, a), floats(2, b), floats(1, c)};
  CU_ASSERT_EQUAL(save(prefix, 3, names, specs, t, 3, st), TFS_OK);
  TFS_ASSERT_OK(st);
  /* the slices that were saved, and parts of them */
  const char *rn[] = {"w", "w", "v"};
  const char *rs[] = {"6 4,2", "6 1,1", "1 -"};
  tfs_tensor *out[3] = {0};
  CU_ASSERT_EQUAL(restore(prefix, 3, rn, NULL, rs, out, st), TFS_OK);
  CU_ASSERT(float_eq(out[0], 2, b));
  CU_ASSERT(float_eq(out[1], 1, a + 1));
  CU_ASSERT(float_eq(out[2], 1, c));
  for (int i = 0; i < 3; i++) tfs_tensor_free(out[i]);
  /* rows 2..4 were never saved */
  const char *gap[] = {"6 1,2"};
  tfs_tensor *o1 = NULL;
  tfs_status_clear(st);
  restore(prefix, 1, rn, NULL, gap, &o1, st);
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT,
                   "Does not have sufficient slices for partitioned tensor w "
                   "to restore in slice_spec: 1,2");
  tfs_status_clear(st);
  const char *whole[] = {""};
  restore(prefix, 1, rn, NULL, whole, &o1, st);
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT, "slice_spec: -");
  /* a slice of the wrong shape for its tensor */
  tfs_status_clear(st);
  const char *bad[] = {"6 0,3"};
  save(prefix, 1, names, bad, t, 1, st);
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT,
                   "Slice in shape_and_slice specification does not match "
                   "the shape of the tensor to  save: 6 0,3, tensor: [2]");
  free_values(t, 3);
  tfs_status_free(st);
  end();
}

/* Hostile specs: each fails with its message, none crashes. */
static void test_hostile_specs(void) {
  begin();
  tfs_status *st = tfs_status_new();
  char prefix[4096];
  snprintf(prefix, sizeof prefix, "%s/h", tmp_dir("hostile"));
  const char *names[] = {"x"};
  const char *plain[] = {""};
  float v[2] = {1, 2};
  tfs_value *t[1] = {floats(2, v)};
  CU_ASSERT_EQUAL(save(prefix, 1, names, plain, t, 1, st), TFS_OK);
  static const struct {
    const char *spec;
    tfs_code code;
    const char *text;
  } kBad[] = {
      {"2 9223372036854775807,2", TFS_INTERNAL,
       "Extent in dimension 0 out of bounds"},
      {"9223372036854775807 9223372036854775806,1", TFS_INVALID_ARGUMENT,
       "does not match the shape stored in checkpoint: [2]"},
      {"2 -5,1", TFS_INVALID_ARGUMENT,
       "Expected non-negative start and positive length but got start = -5"},
      {"2 0,-1", TFS_INVALID_ARGUMENT, "length = -1"},
      {"-2 0,1", TFS_INVALID_ARGUMENT, "Dimension -2 must be >= 0"},
      {"2 0,99999999999999999999", TFS_INVALID_ARGUMENT,
       "Expected a pair of numbers or '-'"},
      {"1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 "
       "1 1 1 1 1 1 -:-:-:-:-:-:-:-:-:-:-:-:-:-:-:-:-:-:-:-:-:-:-:-:-:-:-:-:"
       "-:-:-:-:-:-:-:-:-:-:-:-", TFS_INVALID_ARGUMENT, "more than"},
      {"2 ", TFS_INTERNAL, "Mismatching ranks: shape = [2], slice = "},
      {"2 0,1,2", TFS_INVALID_ARGUMENT, "Expected a pair of numbers"},
      {" ", TFS_INVALID_ARGUMENT, "Non numerical dimension"},
  };
  for (size_t i = 0; i < sizeof kBad / sizeof *kBad; i++) {
    tfs_status_clear(st);
    tfs_tensor *o = NULL;
    const char *spec[] = {kBad[i].spec};
    restore(prefix, 1, names, NULL, spec, &o, st);
    if (tfs_status_code(st) != kBad[i].code ||
        !strstr(tfs_status_message(st), kBad[i].text))
      fprintf(stderr, "\n  spec '%s': %s\n", kBad[i].spec,
              tfs_status_message(st));
    TFS_ASSERT_ERROR(st, kBad[i].code, kBad[i].text);
    tfs_tensor_free(o);
  }
  free_values(t, 1);
  tfs_status_free(st);
  end();
}

static void test_hostile_names_and_prefixes(void) {
  begin();
  tfs_status *st = tfs_status_new();
  char prefix[4096];
  snprintf(prefix, sizeof prefix, "%s/n", tmp_dir("names"));
  const char *plain[] = {""};
  float v[1] = {3};
  tfs_value *t[1] = {floats(1, v)};
  /* a name with a NUL byte cannot be stored or found */
  const char *nul_name[] = {"a\0b"};
  size_t nul_len[] = {3};
  tfs_value *in[3] = {val(string_scalar(prefix)),
                      strings(1, nul_name, nul_len), strings(1, plain, NULL)};
  tfs_op_call *c = tfs_op_call_new(g_ctx, "SaveV2", st);
  for (int i = 0; i < 3; i++) tfs_op_call_add_input(c, in[i], st);
  tfs_op_call_add_input_list(c, t, 1, st);
  int nout;
  tfs_op_call_execute(c, NULL, 0, &nout, st);
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT, "contains a NUL byte");
  tfs_op_call_free(c);
  free_values(in, 3);
  tfs_status_clear(st);
  const char *names[] = {"a"};
  CU_ASSERT_EQUAL(save(prefix, 1, names, plain, t, 1, st), TFS_OK);
  tfs_tensor *o = NULL;
  restore(prefix, 1, nul_name, nul_len, plain, &o, st);
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT, "contains a NUL byte");
  /* one missing directory is made, two are NOT_FOUND */
  char p1[4200], p2[4200];
  snprintf(p1, sizeof p1, "%s/new/ck", tmp_dir("dirs"));
  snprintf(p2, sizeof p2, "%s/no/such/ck", it_tmp("dirs"));
  tfs_status_clear(st);
  CU_ASSERT_EQUAL(save(p1, 1, names, plain, t, 1, st), TFS_OK);
  save(p2, 1, names, plain, t, 1, st);
  TFS_ASSERT_ERROR(st, TFS_NOT_FOUND, "/no/such; No such file or directory");
  tfs_status_clear(st);
  restore(p2, 1, names, NULL, plain, &o, st);
  TFS_ASSERT_ERROR(st, TFS_NOT_FOUND,
                   "Unsuccessful TensorSliceReader constructor: Failed to "
                   "find any matching files for ");
  /* dtype mismatches come together, in name order */
  tfs_status_clear(st);
  tfs_value *two[2] = {val(tfs_tensor_scalar_float(1)),
                       val(tfs_tensor_scalar_float(2))};
  const char *yx[] = {"y", "x"}, *xy[] = {"x", "y"}, *e2[] = {"", ""};
  CU_ASSERT_EQUAL(save(prefix, 2, xy, e2, two, 2, st), TFS_OK);
  tfs_value *in2[3] = {val(string_scalar(prefix)), strings(2, yx, NULL),
                       strings(2, e2, NULL)};
  c = tfs_op_call_new(g_ctx, "RestoreV2", st);
  for (int i = 0; i < 3; i++) tfs_op_call_add_input(c, in2[i], st);
  tfs_dtype dts[2] = {TFS_INT32, TFS_DOUBLE};
  tfs_op_call_set_attr_type_list(c, "dtypes", dts, 2);
  tfs_value *outs[2] = {0};
  tfs_op_call_execute(c, outs, 2, &nout, st);
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT,
                   "tensor_name = x; expected dtype double does not equal "
                   "original dtype float\ntensor_name = y; expected dtype "
                   "int32 does not equal original dtype float");
  tfs_op_call_free(c);
  free_values(in2, 3);
  free_values(two, 2);
  free_values(t, 1);
  tfs_status_free(st);
  end();
}

static int exists(const char *p) {
  struct stat sb;
  return stat(p, &sb) == 0;
}

static void merge(const char *const *prefixes, int n, const char *dest,
                  int allow_missing, tfs_status *st) {
  tfs_value *in[2] = {strings(n, prefixes, NULL), val(string_scalar(dest))};
  tfs_op_call *c = tfs_op_call_new(g_ctx, "MergeV2Checkpoints", st);
  for (int i = 0; i < 2; i++) tfs_op_call_add_input(c, in[i], st);
  tfs_op_call_set_attr_bool(c, "allow_missing_files", allow_missing);
  int nout;
  if (tfs_status_ok(st)) tfs_op_call_execute(c, NULL, 0, &nout, st);
  tfs_op_call_free(c);
  free_values(in, 2);
}

static void test_merge(void) {
  begin();
  tfs_status *st = tfs_status_new();
  char p0[4200], p1[4200], dest[4200];
  const char *dir = tmp_dir("merge");
  snprintf(p0, sizeof p0, "%s/tmp_a/part-00000-of-00002", dir);
  snprintf(p1, sizeof p1, "%s/tmp_a/part-00001-of-00002", dir);
  snprintf(dest, sizeof dest, "%s/model", dir);
  const char *n0[] = {"w", "b"}, *s0[] = {"4 0,2", ""};
  const char *n1[] = {"w", "a"}, *s1[] = {"4 2,2", ""};
  float w0[2] = {1, 2}, w1[2] = {3, 4}, b[1] = {7}, a[1] = {8};
  tfs_value *t0[2] = {floats(2, w0), floats(1, b)};
  tfs_value *t1[2] = {floats(2, w1), floats(1, a)};
  CU_ASSERT_EQUAL(save(p0, 2, n0, s0, t0, 2, st), TFS_OK);
  CU_ASSERT_EQUAL(save(p1, 2, n1, s1, t1, 2, st), TFS_OK);
  const char *ins[] = {p0, p1};
  merge(ins, 2, dest, 0, st);
  TFS_ASSERT_OK(st);
  char f[4300];
  snprintf(f, sizeof f, "%s.data-00001-of-00002", dest);
  CU_ASSERT(exists(f));
  snprintf(f, sizeof f, "%s/tmp_a", dir);
  CU_ASSERT(!exists(f)); /* delete_old_dirs */
  const char *rn[] = {"w", "a", "b"}, *rs[] = {"", "", ""};
  tfs_tensor *out[3] = {0};
  CU_ASSERT_EQUAL(restore(dest, 3, rn, NULL, rs, out, st), TFS_OK);
  float w[4] = {1, 2, 3, 4};
  CU_ASSERT(float_eq(out[0], 4, w));
  CU_ASSERT(float_eq(out[1], 1, a));
  CU_ASSERT(float_eq(out[2], 1, b));
  for (int i = 0; i < 3; i++) tfs_tensor_free(out[i]);
  /* TensorFlow's messages for missing and duplicate inputs */
  tfs_status_clear(st);
  const char *miss[] = {p0};
  merge(miss, 1, dest, 0, st);
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT,
                   "allow_missing_files was set to false and ");
  CU_ASSERT(strstr(tfs_status_message(st), "did not exist.NOT_FOUND: ") !=
            NULL);
  tfs_status_clear(st);
  merge(miss, 1, dest, 1, st);
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT,
                   "At least one prefix checkpoint file must exist, but "
                   "none existed.");
  tfs_status_clear(st);
  CU_ASSERT_EQUAL(save(p0, 1, n0 + 1, s0 + 1, t0 + 1, 1, st), TFS_OK);
  CU_ASSERT_EQUAL(save(p1, 1, n0 + 1, s0 + 1, t0 + 1, 1, st), TFS_OK);
  merge(ins, 2, dest, 0, st);
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT,
                   "Duplicate tensor keyed by b encountered, when merging "
                   "prefix: ");
  free_values(t0, 2);
  free_values(t1, 2);
  tfs_status_free(st);
  end();
}

static void test_sharded_names(void) {
  begin();
  tfs_status *st = tfs_status_new();
  tfs_value *in[3] = {val(string_scalar("m")), val(tfs_tensor_scalar_int32(7)),
                      val(tfs_tensor_scalar_int32(100000))};
  tfs_op_call *c = tfs_op_call_new(g_ctx, "ShardedFilename", st);
  for (int i = 0; i < 3; i++) tfs_op_call_add_input(c, in[i], st);
  tfs_value *out = NULL;
  int nout;
  tfs_op_call_execute(c, &out, 1, &nout, st);
  TFS_ASSERT_OK(st);
  tfs_tensor *t = tfs_value_resolve(out, st);
  size_t len;
  const char *s = t ? tfs_tensor_string_at(t, 0, &len) : "";
  CU_ASSERT(t && len == 17 && !memcmp(s, "m-00007-of-100000", 17));
  tfs_tensor_free(t);
  tfs_value_free(out);
  tfs_op_call_free(c);
  free_values(in, 3);
  tfs_status_free(st);
  end();
}

static const tfs_test_case kSaverCases[] = {
    {"ref_vars", test_ref_vars},
    {"resource_vars", test_resource_vars},
    {"mixed_scoped_vars", test_mixed_vars},
    {"partitioned_ref", test_partitioned_ref},
    {"partitioned_resource", test_partitioned_resource},
    {"var_list_renamed", test_renamed},
    {NULL, NULL},
};

static const tfs_test_case kKernelCases[] = {
    {"slices_round_trip", test_slices_round_trip},
    {"hostile_specs", test_hostile_specs},
    {"hostile_names_and_prefixes", test_hostile_names_and_prefixes},
    {"merge", test_merge},
    {"sharded_names", test_sharded_names},
    {NULL, NULL},
};

const tfs_test_suite tfs_test_suites[] = {
    {"saver_bytes", kSaverCases},
    {"save_restore_kernels", kKernelCases},
    {NULL, NULL},
};
