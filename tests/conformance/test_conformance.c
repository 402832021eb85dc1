/*
 * tests/conformance/test_conformance.c - runs every TensorFlow-generated
 * case under tests/conformance/<group>/<case>/ (graph.pb, manifest.txt,
 * .npy feeds and TensorFlow's outputs; format in
 * scripts/fixtures/fixturelib.py) and compares tfsess's outputs with
 * TensorFlow's; then the same after exporting the imported graph and
 * importing the export.  One CUnit test per case and way; a "models"
 * suite checks the bundled models/digits classifier against TensorFlow.
 *
 * Set TFS_EXPORT_DIR to also write each re-exported case there (for
 * scripts/gen_fixtures, which runs them in TensorFlow).
 */
#include <CUnit/Basic.h>
#include <dirent.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "conformance.h"
#include "iotest.h"
#include "testutil.h"

/* ---- discovery ----------------------------------------------------------- */

static char **g_cases;
static int g_ncases, g_cap;

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Adds every directory under root/rel holding manifest.txt. */
static void discover(const char *root, const char *rel, int depth) {
  char path[4096];
  snprintf(path, sizeof path, "%s%s%s", root, *rel ? "/" : "", rel);
  DIR *d = opendir(path);
  if (!d || depth > 8) {
    if (d) closedir(d);
    return;
  }
  struct dirent *e;
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.') continue;
    char sub[4096], full[8200];
    snprintf(sub, sizeof sub, "%s%s%s", rel, *rel ? "/" : "", e->d_name);
    snprintf(full, sizeof full, "%s/%s", root, sub);
    struct stat sb;
    if (stat(full, &sb) != 0 || !S_ISDIR(sb.st_mode)) continue;
    char manifest[8300];
    snprintf(manifest, sizeof manifest, "%s/manifest.txt", full);
    if (stat(manifest, &sb) == 0) {
      if (g_ncases == g_cap) {
        g_cap = g_cap ? g_cap * 2 : 64;
        g_cases = realloc(g_cases, sizeof(char *) * (size_t)g_cap);
      }
      g_cases[g_ncases++] = strdup(sub);
    } else {
      discover(root, sub, depth + 1);
    }
  }
  closedir(d);
}

static const char *conformance_root(void) {
  static char root[4096];
  snprintf(root, sizeof root, "%s", it_src("tests/conformance"));
  return root;
}

/* ---- one test per case: trampolines -------------------------------------- */

/* Trampoline n is a decimal literal: a block number 1-24, then four
 * base-4 digits; the case index is (block - 1) * 256 + that base-4
 * number. */
static int tramp_index(long n) {
  int idx = 0, scale = 1;
  for (int k = 0; k < 4; k++, n /= 10, scale *= 4) idx += (int)(n % 10) * scale;
  return (int)(n - 1) * 256 + idx;
}

static void check_case(long n, int reexport) {
  int i = tramp_index(n);
  CU_ASSERT_FATAL(i < g_ncases);
  char dir[8300], err[2048] = "";
  snprintf(dir, sizeof dir, "%s/%s", conformance_root(), g_cases[i]);
  int ok = tc_run_case(dir, g_cases[i], reexport, getenv("TFS_EXPORT_DIR"), err,
                       sizeof err) == 0;
  if (!ok)
    fprintf(stderr, "\n  case %s%s: %s\n", g_cases[i],
            reexport ? " (re-exported)" : "", err);
  CU_ASSERT_TRUE(ok);
}

#define TC_T1(n)                                     \
  static void tc_run_##n(void) { check_case(n, 0); } \
  static void tc_rex_##n(void) { check_case(n, 1); }
#define TC_T4(n) TC_T1(n##0) TC_T1(n##1) TC_T1(n##2) TC_T1(n##3)
#define TC_T16(n) TC_T4(n##0) TC_T4(n##1) TC_T4(n##2) TC_T4(n##3)
#define TC_T64(n) TC_T16(n##0) TC_T16(n##1) TC_T16(n##2) TC_T16(n##3)
#define TC_T256(n) TC_T64(n##0) TC_T64(n##1) TC_T64(n##2) TC_T64(n##3)
TC_T256(1)
TC_T256(2)
TC_T256(3)
TC_T256(4)
TC_T256(5)
TC_T256(6)
TC_T256(7)
TC_T256(8)
TC_T256(9)
TC_T256(10)
TC_T256(11)
TC_T256(12)
TC_T256(13)
TC_T256(14)
TC_T256(15)
TC_T256(16)
TC_T256(17)
TC_T256(18)
TC_T256(19)
TC_T256(20)
TC_T256(21)
TC_T256(22)
TC_T256(23)
TC_T256(24)

#define TC_P1(n) {tc_run_##n, tc_rex_##n},
#define TC_P4(n) TC_P1(n##0) TC_P1(n##1) TC_P1(n##2) TC_P1(n##3)
#define TC_P16(n) TC_P4(n##0) TC_P4(n##1) TC_P4(n##2) TC_P4(n##3)
#define TC_P64(n) TC_P16(n##0) TC_P16(n##1) TC_P16(n##2) TC_P16(n##3)
#define TC_P256(n) TC_P64(n##0) TC_P64(n##1) TC_P64(n##2) TC_P64(n##3)

/* In the order of their indexes (see tramp_index). */
static const struct {
  CU_TestFunc run, rex;
} kTramp[] = {TC_P256(1) TC_P256(2) TC_P256(3) TC_P256(4) TC_P256(5) TC_P256(6)
                  TC_P256(7) TC_P256(8) TC_P256(9) TC_P256(10) TC_P256(11)
                      TC_P256(12) TC_P256(13) TC_P256(14) TC_P256(15)
                          TC_P256(16) TC_P256(17) TC_P256(18) TC_P256(19)
                              TC_P256(20) TC_P256(21) TC_P256(22)
                                  TC_P256(23) TC_P256(24)};
#define TC_MAX ((int)(sizeof kTramp / sizeof kTramp[0]))

static void test_case_count_fits(void) {
  if (g_ncases > TC_MAX)
    fprintf(stderr, "\n  %d conformance cases, only %d can be registered\n",
            g_ncases, TC_MAX);
  CU_ASSERT_TRUE(g_ncases <= TC_MAX);
  CU_ASSERT_TRUE(g_ncases > 0);
}

static void test_native_graphs_written(void) {
  char err[2048] = "";
  int rc = tc_write_native_cases(getenv("TFS_EXPORT_DIR"), err, sizeof err);
  if (rc) fprintf(stderr, "\n  native cases: %s\n", err);
  CU_ASSERT_EQUAL(rc, 0);
}

/* ---- main ---------------------------------------------------------------- */

static int matches(const char *filter, const char *suite, const char *name) {
  if (!filter) return 1;
  const char *sep = strstr(filter, "::");
  size_t n = sep ? (size_t)(sep - filter) : strlen(filter);
  if (strlen(suite) != n || strncmp(filter, suite, n) != 0) return 0;
  return !sep || !name || strcmp(sep + 2, name) == 0 ||
         (strlen(sep + 2) < strlen(name) &&
          strncmp(sep + 2, name, strlen(sep + 2)) == 0 &&
          name[strlen(sep + 2)] == '/');
}

static int add(CU_pSuite s, const char *filter, const char *suite,
               const char *name, CU_TestFunc fn) {
  if (!matches(filter, suite, name)) return 0;
  return CU_add_test(s, name, fn) ? 0 : -1;
}

int main(int argc, char **argv) {
  const char *filter = argc > 1 ? argv[1] : NULL;
  discover(conformance_root(), "", 0);
  qsort(g_cases, (size_t)g_ncases, sizeof(char *), cmp_str);
  if (CU_initialize_registry() != CUE_SUCCESS) return 2;
  CU_pSuite run = CU_add_suite("conformance", NULL, NULL);
  CU_pSuite rex = CU_add_suite("reexported", NULL, NULL);
  CU_pSuite models = CU_add_suite("models", NULL, NULL);
  if (!run || !rex || !models) return 2;
  if (add(run, filter, "conformance", "case_count_fits", test_case_count_fits))
    return 2;
  /* TFS_CONFORMANCE_NO_REEXPORT=1 (tests/cpu_paths.sh, which reruns the
   * kernels at lower instruction-set levels): export and re-import do not
   * depend on the CPU's level */
  const char *nr = getenv("TFS_CONFORMANCE_NO_REEXPORT");
  int reexport = !(nr && strcmp(nr, "1") == 0);
  for (int i = 0; i < g_ncases && i < TC_MAX; i++) {
    if (add(run, filter, "conformance", g_cases[i], kTramp[i].run) ||
        (reexport &&
         add(rex, filter, "reexported", g_cases[i], kTramp[i].rex)))
      return 2;
  }
  if (getenv("TFS_EXPORT_DIR") &&
      add(rex, filter, "reexported", "native_graphs_written",
          test_native_graphs_written))
    return 2;
  for (const tfs_test_case *c = tc_model_cases; c->name; c++)
    if (add(models, filter, "models", c->name, c->fn)) return 2;
  CU_basic_set_mode(CU_BRM_VERBOSE);
  CU_basic_run_tests();
  unsigned nrun = CU_get_number_of_tests_run();
  unsigned failed = CU_get_number_of_tests_failed();
  unsigned asserts_failed = CU_get_number_of_failures();
  printf("\nTFS-RESULT: passed=%u failed=%u\n", nrun - failed, failed);
  CU_cleanup_registry();
  for (int i = 0; i < g_ncases; i++) free(g_cases[i]);
  free(g_cases);
  return (failed || asserts_failed) ? 1 : 0;
}
