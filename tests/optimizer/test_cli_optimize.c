/*
 * tests/optimizer/test_cli_optimize.c - `tfsess optimize` as a user runs
 * it (the written GraphDef, the report, usage errors) and the session
 * flags --no-optimize / --passes of `tfsess run` and `tfsess bench`.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <sys/wait.h>

#include "iotest.h"
#include "testutil.h"


typedef struct {
  int status;
  char *out, *err;
} result;

static void result_free(result *r) {
  free(r->out);
  free(r->err);
}

static char *read_text(const char *path) {
  size_t n = 0;
  char *s = (char *)it_read_file(path, &n);
  s = realloc(s, n + 1);
  s[n] = 0;
  return s;
}

/* Runs `tfsess ARGS`, capturing exit status, stdout and stderr. */
static result tfsess(const char *fmt, ...) {
  char args[4096], cmd[8192];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(args, sizeof args, fmt, ap);
  va_end(ap);
  snprintf(cmd, sizeof cmd, "'%s/tfsess' %s >'%s' 2>'%s'", it_builddir(),
           args, it_tmp("opt_stdout"), it_tmp("opt_stderr"));
  result r;
  int st = system(cmd);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128;
  r.out = read_text(it_tmp("opt_stdout"));
  r.err = read_text(it_tmp("opt_stderr"));
  return r;
}

/* x[2,3] -> MatMul -> BiasAdd -> Relu -> "y", written as a GraphDef. */
static void write_model(const char *path) {
  tfs_status *st = tfs_status_new();
  tfs_graph *g = tfs_graph_new();
  int64_t xd[2] = {2, 3}, wd[2] = {3, 4}, bd[1] = {4};
  float w[12], b[4] = {0.5f, -1, 0.25f, 2};
  for (int i = 0; i < 12; i++) w[i] = (float)(i % 5) - 2;
  tfs_output x = tfs_op_placeholder(g, "x", TFS_FLOAT, xd, 2, st);
  tfs_tensor *wt = tu_floats(wd, 2, w), *bt = tu_floats(bd, 1, b);
  tfs_output mm = tfs_op_matmul(g, "mm", x, tfs_op_const(g, "w", wt, st), 0,
                                0, st);
  tfs_output ba = tfs_op_bias_add(g, "ba", mm, tfs_op_const(g, "b", bt, st),
                                  st);
  tfs_op_unary(g, "Relu", "y", ba, st);
  TFS_ASSERT_OK(st);
  tfs_buffer *out = tfs_buffer_new();
  tfs_graph_to_graphdef(g, out, st);
  TFS_ASSERT_OK(st);
  FILE *f = fopen(path, "wb");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  fwrite(out->data, 1, out->length, f);
  fclose(f);
  float xv[6] = {1, -2, 3, 0.5f, 4, -1};
  tfs_tensor *xt = tu_floats(xd, 2, xv);
  tfs_npy_write(it_tmp("opt_x.npy"), xt, st);
  TFS_ASSERT_OK(st);
  tfs_tensor_free(xt);
  tfs_tensor_free(wt);
  tfs_tensor_free(bt);
  tfs_buffer_free(out);
  tfs_graph_free(g);
  tfs_status_free(st);
}

static void test_cli_optimize__writes_graph_and_report(void) {
  char model[1024], out[1024];
  snprintf(model, sizeof model, "%s", it_tmp("opt_model.pb"));
  snprintf(out, sizeof out, "%s", it_tmp("opt_out.pb"));
  write_model(model);
  result r = tfsess("optimize '%s' -o '%s' --fetch y --report", model, out);
  CU_ASSERT_EQUAL(r.status, 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "MatMul+BiasAdd+Relu -> _FusedMatMul"));
  CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "total: 6 -> 4 nodes"));
  result_free(&r);
  /* the output loads and holds the fused node under the fetch's name */
  size_t n;
  uint8_t *bytes = it_read_file(out, &n);
  tfs_status *st = tfs_status_new();
  tfs_graph *g = tfs_graph_new();
  tfs_import_results_free(tfs_graph_import_graphdef(g, bytes, n, NULL, st));
  TFS_ASSERT_OK(st);
  tfs_operation *y = tfs_graph_operation_by_name(g, "y");
  CU_ASSERT_PTR_NOT_NULL_FATAL(y);
  CU_ASSERT_STRING_EQUAL(tfs_operation_op_type(y), "_FusedMatMul");
  free(bytes);
  tfs_graph_free(g);
  tfs_status_free(st);
  /* without --report: one summary line */
  r = tfsess("optimize '%s' -o '%s' --passes pruning", model, out);
  CU_ASSERT_EQUAL(r.status, 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "6 -> 6 nodes"));
  result_free(&r);
}

static void test_cli_optimize__usage_errors(void) {
  char model[1024];
  snprintf(model, sizeof model, "%s", it_tmp("opt_model.pb"));
  write_model(model);
  result r = tfsess("optimize --help");
  CU_ASSERT_EQUAL(r.status, 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "--passes"));
  result_free(&r);
  r = tfsess("optimize '%s'", model);
  CU_ASSERT_EQUAL(r.status, 2);
  CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "missing -o OUT.pb"));
  result_free(&r);
  r = tfsess("optimize '%s' -o '%s' --passes constfold,bogus", model,
             it_tmp("opt_bad.pb"));
  CU_ASSERT_EQUAL(r.status, 2);
  CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "Unknown optimizer 'bogus'"));
  result_free(&r);
  r = tfsess("optimize '%s' -o '%s' --fetch nope", model,
             it_tmp("opt_bad.pb"));
  CU_ASSERT_NOT_EQUAL(r.status, 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "nope"));
  result_free(&r);
}

static void test_cli_optimize__run_flags(void) {
  char model[1024];
  snprintf(model, sizeof model, "%s", it_tmp("opt_model.pb"));
  write_model(model);
  const char *flags[3] = {"--no-optimize", "--passes remap,constfold",
                          "--passes none"};
  for (int i = 0; i < 3; i++) {
    result r = tfsess("run '%s' --feed 'x=%s' --fetch y %s", model,
                      it_tmp("opt_x.npy"), flags[i]);
    if (r.status != 0) fprintf(stderr, "\n  %s: %s", flags[i], r.err);
    CU_ASSERT_EQUAL(r.status, 0);
    result_free(&r);
  }
  result r = tfsess("run '%s' --feed 'x=%s' --fetch y --passes bogus", model,
                    it_tmp("opt_x.npy"));
  CU_ASSERT_EQUAL(r.status, 2);
  CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "Unknown optimizer 'bogus'"));
  result_free(&r);
}

/* With debug logging, every plan logs what the optimizer did: `run` and
 * `bench` optimize by default, and --no-optimize / --passes really
 * reach the session. */
static void test_cli_optimize__flags_reach_the_session(void) {
  char model[1024];
  snprintf(model, sizeof model, "%s", it_tmp("opt_model.pb"));
  write_model(model);
  const struct {
    const char *cmd, *flags, *want, *absent;
  } cases[] = {
      {"run", "", "MatMul+BiasAdd+Relu -> _FusedMatMul: 1", "skipped"},
      {"bench", "", "MatMul+BiasAdd+Relu -> _FusedMatMul: 1", "skipped"},
      {"run", "--no-optimize", "disable_meta_optimizer is set",
       "_FusedMatMul"},
      {"bench", "--no-optimize", "disable_meta_optimizer is set",
       "_FusedMatMul"},
      {"bench", "--passes constfold", "constant_folding", "_FusedMatMul"},
      {"bench", "--passes none", "disable_meta_optimizer is set",
       "_FusedMatMul"},
  };
  setenv("TFS_LOG_LEVEL", "0", 1);
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    const char *extra = strcmp(cases[i].cmd, "bench") == 0
                            ? "--runs 2 --warmup 1"
                            : "";
    result r = tfsess("%s '%s' --feed 'x=%s' --fetch y %s %s", cases[i].cmd,
                      model, it_tmp("opt_x.npy"), extra, cases[i].flags);
    int ok = r.status == 0 && strstr(r.err, cases[i].want) &&
             !strstr(r.err, cases[i].absent);
    if (!ok)
      fprintf(stderr, "\n  %s %s: status %d, stderr:\n%s", cases[i].cmd,
              cases[i].flags, r.status, r.err);
    CU_ASSERT_TRUE(ok);
    result_free(&r);
  }
  unsetenv("TFS_LOG_LEVEL");
}

static const tfs_test_case kCases[] = {
    {"writes_graph_and_report", test_cli_optimize__writes_graph_and_report},
    {"usage_errors", test_cli_optimize__usage_errors},
    {"run_flags", test_cli_optimize__run_flags},
    {"flags_reach_the_session", test_cli_optimize__flags_reach_the_session},
    {NULL, NULL},
};

const tfs_test_suite tfs_test_suites[] = {
    {"cli_optimize", kCases},
    {NULL, NULL},
};
