/*
 * tests/conformance/conformance.h - the conformance case runner (one case
 * directory: import, apply the manifest, run, compare with TensorFlow's
 * outputs), the tensor comparison it uses (also used by the command line
 * tests), and the bundled-model checks.
 */
#ifndef TFS_TESTS_CONFORMANCE_H
#define TFS_TESTS_CONFORMANCE_H

#include <stddef.h>

#include "testutil.h"

/* A case's manifest.txt (format in scripts/fixtures/fixturelib.py). */
#define TC_MAX_ITEMS 64

enum { TC_PATH_FILE = 1, TC_PATH_IN_NPY = 2 };

typedef struct tc_item {
  char *name, *file;
  double rtol, atol; /* < 0: the dtype's default */
  /* feeds: TC_PATH_FILE ("path"): the value is "<case dir>/<file>";
   * TC_PATH_IN_NPY ("feedpath"): the .npy's string is a path relative to
   * the case directory, fed joined to it; both also to the init runs */
  int is_path;
} tc_item;

typedef struct tc_manifest {
  /* feeds; `path` feeds (a string scalar holding the case directory's
   * FILE) are marked with is_path and also fed to the init ops */
  tc_item feeds[TC_MAX_ITEMS], fetches[TC_MAX_ITEMS];
  char *inits[TC_MAX_ITEMS], *targets[TC_MAX_ITEMS];
  int nfeeds, nfetches, ninits, ntargets;
  char *config;                  /* ConfigProto file, or NULL */
  char *error_code, *error_text; /* the expected error, or NULL */
  int runs;
} tc_manifest;

/* Reads dir/manifest.txt into *m (cleared first).  Returns 0, or -1
 * with what went wrong in err ("manifest: cannot understand '...'"); free
 * with tc_manifest_free either way. */
int tc_manifest_parse(const char *dir, tc_manifest *m, char *err, size_t cap);
void tc_manifest_free(tc_manifest *m);

/* The groups whose cases also run through the TF C API and `tfsess run`:
 * control flow, functions, recurrent layers, TensorArrays (NULL-ended). */
extern const char *const tc_control_flow_groups[];

/* Runs fn on every case directory (holding manifest.txt) of each group
 * under root/tests/conformance, in name order; prints each failure as
 * "case GROUP/NAME (way): reason".  Returns how many ran; *failed counts
 * the failures. */
typedef int (*tc_case_fn)(const char *dir, char *err, size_t cap);
int tc_run_groups(const char *root, const char *const *groups, tc_case_fn fn,
                  const char *way, int *failed);

/* Runs the case in `dir` (named `name` in messages).  With `reexport`
 * the imported graph is exported, the export imported into a fresh graph
 * and that graph run instead (and exporting it again must give the same
 * bytes).  When `export_dir` is not NULL, a re-exported case is also
 * written to export_dir/name (graph.pb plus the case's other files).
 * Returns 0, or -1 with what went wrong in err. */
int tc_run_case(const char *dir, const char *name, int reexport,
                const char *export_dir, char *err, size_t cap);

/* Compares `got` with TensorFlow's `want`: same dtype and shape; integers,
 * bool and strings exactly; floats within atol + rtol * |want| (NaN
 * equals NaN).  rtol/atol < 0 pick the dtype's default (float32: 1e-5 and
 * 1e-6, float64: 1e-10 and 1e-12, float16: 1e-3 and 1e-3).  Returns 0,
 * or -1 with "element 7 (index [1,3]): got ..., expected ..." in err. */
int tc_compare(const tfs_tensor *got, const tfs_tensor *want, double rtol,
               double atol, char *err, size_t cap);

/* Row i of the generated 10,000-row input of the batch tests (64 floats,
 * the formula of scripts/fixtures/gen_digits.py generated_rows). */
void tc_generated_row(int64_t i, float *row);

/* Builds a few graphs with tfsess's builder API, runs them and writes
 * them as cases under root/native/ (native.c).  Returns 0, or -1 with
 * what failed in err. */
int tc_write_native_cases(const char *root, char *err, size_t cap);

/* The "models" suite (models.c). */
extern const tfs_test_case tc_model_cases[];

#endif
