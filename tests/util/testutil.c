/*
 * tests/util/testutil.c - the shared main() and helpers of the CUnit
 * suites.  main prints a machine-readable totals line that scripts/check
 * adds up: "TFS-RESULT: passed=N failed=N".
 */
#include "testutil.h"

#include <CUnit/Basic.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/cpu.h"
#include "session/session_internal.h"

tfs_tensor *tu_run1(tfs_session *s, tfs_output fetch, const tfs_output *feeds,
                    tfs_tensor *const *values, int nfeeds) {
  tfs_status *st = tfs_status_new();
  tfs_tensor *out = NULL;
  tfs_session_run(s, feeds, values, nfeeds, &fetch, &out, 1, NULL, 0, st);
  if (tfs_status_code(st) != TFS_OK)
    fprintf(stderr, "\n  run failed: %s\n", tfs_status_message(st));
  CU_ASSERT_EQUAL(tfs_status_code(st), TFS_OK);
  tfs_status_free(st);
  return out;
}

tfs_code tu_run_error(tfs_session *s, tfs_output fetch,
                      const tfs_output *feeds, tfs_tensor *const *values,
                      int nfeeds, char *msg, size_t cap) {
  tfs_status *st = tfs_status_new();
  tfs_tensor *out = (tfs_tensor *)1; /* must be reset to NULL */
  tfs_session_run(s, feeds, values, nfeeds, &fetch, &out, 1, NULL, 0, st);
  CU_ASSERT_PTR_NULL(out);
  tfs_code code = tfs_status_code(st);
  if (msg && cap) snprintf(msg, cap, "%s", tfs_status_message(st));
  tfs_status_free(st);
  return code;
}

tfs_tensor *tu_floats(const int64_t *dims, int ndims, const float *values) {
  tfs_status *st = tfs_status_new();
  int64_t n = 1;
  for (int i = 0; i < ndims; i++) n *= dims[i];
  tfs_tensor *t = tfs_tensor_new_copy(TFS_FLOAT, dims, ndims, values,
                                      (size_t)n * sizeof(float), st);
  CU_ASSERT_EQUAL_FATAL(tfs_status_code(st), TFS_OK);
  tfs_status_free(st);
  return t;
}

tfs_tensor *tu_int32s(const int64_t *dims, int ndims, const int32_t *values) {
  tfs_status *st = tfs_status_new();
  int64_t n = 1;
  for (int i = 0; i < ndims; i++) n *= dims[i];
  tfs_tensor *t = tfs_tensor_new_copy(TFS_INT32, dims, ndims, values,
                                      (size_t)n * sizeof(int32_t), st);
  CU_ASSERT_EQUAL_FATAL(tfs_status_code(st), TFS_OK);
  tfs_status_free(st);
  return t;
}

float tu_scalar_float(const tfs_tensor *t) {
  CU_ASSERT_PTR_NOT_NULL_FATAL(t);
  CU_ASSERT_EQUAL_FATAL(tfs_tensor_dtype(t), TFS_FLOAT);
  CU_ASSERT_EQUAL_FATAL(tfs_tensor_num_elements(t), 1);
  return *(const float *)tfs_tensor_data(t);
}

tfs_session_options *tu_no_gpu_options(void) {
  /* device_count (field 1, a map entry): key "GPU" (1), value 0 (2) */
  static const unsigned char kNoGpu[] = {0x0a, 0x07, 0x0a, 0x03, 'G',
                                         'P',  'U',  0x10, 0x00};
  tfs_status *st = tfs_status_new();
  tfs_session_options *o = tfs_session_options_new();
  tfs_session_options_set_config(o, kNoGpu, sizeof kNoGpu, st);
  CU_ASSERT_EQUAL_FATAL(tfs_status_code(st), TFS_OK);
  tfs_status_free(st);
  return o;
}

void tu_own_pools(tfs_session_options *o, int threads) {
  o->config.use_per_session_threads = 1;
  tfs_session_options_set_intra_op_threads(o, threads);
}

int tu_gpu_count(void) {
  tfs_status *st = tfs_status_new();
  tfs_device_list *l = tfs_device_list_new(NULL, st);
  CU_ASSERT_EQUAL_FATAL(tfs_status_code(st), TFS_OK);
  int n = 0;
  for (int i = 0; i < tfs_device_list_count(l); i++)
    n += strcmp(tfs_device_list_type(l, i), "GPU") == 0;
  tfs_device_list_free(l);
  tfs_status_free(st);
  return n;
}

static unsigned g_paths_skipped;

void tu_cpu_path(const char *family, const char *path, const char *skipped) {
  /* CUnit's verbose mode has "Test: name ..." open on this line */
  if (skipped) {
    printf("\nTFS-CPU-PATH: %s %s skipped (%s)\n", family, path, skipped);
    g_paths_skipped++;
  } else {
    printf("\nTFS-CPU-PATH: %s %s ran\n", family, path);
  }
  fflush(stdout);
}

const char *tu_isa_unavailable(int isa) {
  static char why[96];
  if (tfs_cpu_has((tfs_cpu_isa)isa)) return NULL;
  if ((int)tfs_cpu_isa_detected() < isa)
    snprintf(why, sizeof why, "this CPU has no %s",
             tfs_cpu_isa_name((tfs_cpu_isa)isa));
  else
    snprintf(why, sizeof why, "capped at %s",
             tfs_cpu_isa_name(tfs_cpu_isa_max()));
  return why;
}

const int tu_vector_levels[TU_VECTOR_LEVELS] = {
    TFS_CPU_ISA_AVX512, TFS_CPU_ISA_AVX2, TFS_CPU_ISA_BASELINE};

int tu_cpu_level(const char *family, int isa) {
  const char *why = tu_isa_unavailable(isa);
  tu_cpu_path(family, tfs_cpu_isa_name((tfs_cpu_isa)isa), why);
  if (why) return 0;
  tfs_cpu__set_max_isa(isa);
  return 1;
}

const char *const tu_bf16_path_names[TU_BF16_PATHS] = {
    "amx_bf16", "avx512_bf16", "widen"};

const char *tu_bf16_path(int p) {
  tfs_cpu__set_amx(p == TU_BF16_AMX);
  tfs_cpu__set_bf16_dot(p == TU_BF16_DOT);
  if (p == TU_BF16_AMX && !tfs_cpu_has_amx())
    return tfs_cpu_amx_detected()
               ? tu_isa_unavailable(TFS_CPU_ISA_AVX512)
               : "this CPU has no AMX-BF16 (or the kernel does not grant "
                 "tile data)";
  if (p == TU_BF16_DOT && !tfs_cpu_has_bf16_dot())
    return tfs_cpu_bf16_dot_detected()
               ? tu_isa_unavailable(TFS_CPU_ISA_AVX512)
               : "this CPU has no avx512_bf16";
  return NULL;
}

void tu_bf16_paths_reset(void) {
  tfs_cpu__set_amx(-1);
  tfs_cpu__set_bf16_dot(-1);
}

static int matches(const char *filter, const char *suite, const char *name) {
  if (!filter) return 1;
  const char *sep = strstr(filter, "::");
  if (!sep) return strcmp(filter, suite) == 0;
  size_t n = (size_t)(sep - filter);
  return strlen(suite) == n && strncmp(filter, suite, n) == 0 &&
         (!name || strcmp(sep + 2, name) == 0);
}

int main(int argc, char **argv) {
  const char *filter = argc > 1 ? argv[1] : NULL;
  if (CU_initialize_registry() != CUE_SUCCESS) return 2;
  for (const tfs_test_suite *s = tfs_test_suites; s->name; s++) {
    if (!matches(filter, s->name, NULL)) continue;
    CU_pSuite suite = CU_add_suite(s->name, NULL, NULL);
    if (!suite) return 2;
    for (const tfs_test_case *c = s->cases; c->name; c++) {
      if (filter && strstr(filter, "::") && !matches(filter, s->name, c->name))
        continue;
      if (!CU_add_test(suite, c->name, c->fn)) return 2;
    }
  }
  CU_basic_set_mode(CU_BRM_VERBOSE);
  CU_basic_run_tests();
  unsigned run = CU_get_number_of_tests_run();
  unsigned failed = CU_get_number_of_tests_failed();
  unsigned asserts_failed = CU_get_number_of_failures();
  if (g_paths_skipped)
    printf("\nTFS-RESULT: passed=%u failed=%u skipped=%u\n", run - failed,
           failed, g_paths_skipped);
  else
    printf("\nTFS-RESULT: passed=%u failed=%u\n", run - failed, failed);
  CU_cleanup_registry();
  return (failed || asserts_failed) ? 1 : 0;
}

size_t tu_read_src(const char *rel, void *data, size_t cap) {
  const char *top = getenv("top_srcdir");
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", top && *top ? top : ".", rel);
  FILE *f = fopen(path, "rb");
  if (!f) fprintf(stderr, "\n  cannot open %s\n", path);
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  size_t len = fread(data, 1, cap, f);
  fclose(f);
  return len;
}
