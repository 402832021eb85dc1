/*
 * tests/util/testutil.h - the CUnit harness every suite uses: tables of
 * cases, assertions that print the status message, graph helpers.
 *
 * A test file defines `const tfs_test_suite tfs_test_suites[]` ending with
 * {NULL}; the shared main() registers and runs them.  Run one case with
 * `./test_x suite::case`, one suite with `./test_x suite`.
 */
#ifndef TFS_TESTS_TESTUTIL_H
#define TFS_TESTS_TESTUTIL_H

#include <CUnit/CUnit.h>
#include <stdio.h>
#include <string.h>

#include "tfsess/tfsess.h"

typedef struct tfs_test_case {
  const char *name;
  void (*fn)(void);
} tfs_test_case;

typedef struct tfs_test_suite {
  const char *name;
  const tfs_test_case *cases; /* ends with {NULL, NULL} */
} tfs_test_suite;

extern const tfs_test_suite tfs_test_suites[];

/* Fails (fatally) unless st is OK, printing the message. */
#define TFS_ASSERT_OK(st)                                                  \
  do {                                                                     \
    if (tfs_status_code(st) != TFS_OK)                                     \
      fprintf(stderr, "\n  %s:%d: unexpected error %s: %s\n", __FILE__,    \
              __LINE__, tfs_code_name(tfs_status_code(st)),                \
              tfs_status_message(st));                                     \
    CU_ASSERT_EQUAL_FATAL(tfs_status_code(st), TFS_OK);                    \
  } while (0)

/* Asserts code and that the message contains `needle`. */
#define TFS_ASSERT_ERROR(st, code, needle)                                 \
  do {                                                                     \
    int ok_ = tfs_status_code(st) == (code) &&                             \
              strstr(tfs_status_message(st), (needle)) != NULL;            \
    if (!ok_)                                                              \
      fprintf(stderr,                                                      \
              "\n  %s:%d: expected %s containing \"%s\"\n    got %s: %s\n",\
              __FILE__, __LINE__, tfs_code_name(code), (needle),           \
              tfs_code_name(tfs_status_code(st)), tfs_status_message(st)); \
    CU_ASSERT_TRUE(ok_);                                                   \
  } while (0)

/* Asserts the message equals `expected` exactly. */
#define TFS_ASSERT_MESSAGE(st, expected)                                   \
  do {                                                                     \
    int ok_ = strcmp(tfs_status_message(st), (expected)) == 0;             \
    if (!ok_)                                                              \
      fprintf(stderr, "\n  %s:%d: expected message\n    \"%s\"\n  got\n"   \
              "    \"%s\"\n", __FILE__, __LINE__, (expected),              \
              tfs_status_message(st));                                     \
    CU_ASSERT_TRUE(ok_);                                                   \
  } while (0)

#define TFS_ASSERT_FLOAT_NEAR(a, b, tol)                                   \
  CU_ASSERT_DOUBLE_EQUAL((double)(a), (double)(b), (double)(tol))

/* ---- helpers --------------------------------------------------------------- */

/* Runs `fetch` with optional feeds and returns the fetched tensor (the
 * caller frees), asserting success. */
tfs_tensor *tu_run1(tfs_session *s, tfs_output fetch, const tfs_output *feeds,
                    tfs_tensor *const *values, int nfeeds);
/* Same, but expects failure and returns the status code; the message is
 * copied to msg (cap bytes). */
tfs_code tu_run_error(tfs_session *s, tfs_output fetch,
                      const tfs_output *feeds, tfs_tensor *const *values,
                      int nfeeds, char *msg, size_t cap);
/* A float tensor of shape dims with the given values (caller frees). */
tfs_tensor *tu_floats(const int64_t *dims, int ndims, const float *values);
tfs_tensor *tu_int32s(const int64_t *dims, int ndims, const int32_t *values);
/* A scalar float of a fetched tensor, asserting dtype and size. */
float tu_scalar_float(const tfs_tensor *t);
/* Reads the file `rel` under $top_srcdir (the current directory without
 * it) into data, at most cap bytes; returns its length.  A file that
 * cannot be opened is a fatal assertion (naming the path). */
size_t tu_read_src(const char *rel, void *data, size_t cap);

/* ---- GPUs -----------------------------------------------------------------
 * Suites that check what the CPU (and the FAKE test device) do keep real
 * GPUs out of their sessions with TensorFlow's ConfigProto device_count
 * {"GPU": 0}, since the placer prefers a GPU; suites that check the device
 * lists users see count the GPUs present instead. */

/* New session options whose ConfigProto holds only device_count
 * {"GPU": 0} (caller frees). */
tfs_session_options *tu_no_gpu_options(void);

/* Gives sessions made with o intra-op pools of their own, `threads`
 * threads each (ConfigProto.use_per_session_threads): without it, every
 * session shares the process-wide pools the process's first session
 * sized (TensorFlow's rule), so a suite's later sessions would not run on
 * the threads they ask for. */
void tu_own_pools(tfs_session_options *o, int threads);
/* The GPUs in this process's default device list (0 in CPU builds and
 * on machines without one). */
int tu_gpu_count(void);

/* ---- CPU-dispatched paths ------------------------------------------------
 * A test that forces a path the CPU would choose (a GEMM family, the AVX2
 * pooling loop, the SSE4.2 CRC32C, ...) reports it: "TFS-CPU-PATH: family
 * path ran" or "TFS-CPU-PATH: family path skipped (reason)", which
 * scripts/check sums up into its "cpu paths:" line.  Skipped paths are
 * counted in the suite's TFS-RESULT line (skipped=N). */
void tu_cpu_path(const char *family, const char *path, const char *skipped);

/* Why code of instruction-set level `isa` (a tfs_cpu_isa) cannot run in
 * this process ("this CPU has no avx512", "TFS_CPU_MAX_ISA caps at
 * avx2"), or NULL when it can.  The text is static. */
const char *tu_isa_unavailable(int isa);

/* The vector levels a path test walks, widest first: avx512, avx2,
 * baseline (tfs_cpu_isa values). */
#define TU_VECTOR_LEVELS 3
extern const int tu_vector_levels[TU_VECTOR_LEVELS];

/* For family `family`: caps the CPU at level `isa` and reports the path
 * as ran (returns 1), or reports it skipped with the reason (returns 0)
 * where this process cannot run that level.  The caller lifts the cap
 * with tfs_cpu__set_max_isa(-1) when done. */
int tu_cpu_level(const char *family, int isa);

/* The bfloat16 GEMM's paths, in the order it prefers them, and their
 * names for tu_cpu_path. */
enum { TU_BF16_AMX, TU_BF16_DOT, TU_BF16_WIDEN, TU_BF16_PATHS };
extern const char *const tu_bf16_path_names[TU_BF16_PATHS];

/* Puts bfloat16 path p in force (tfs_cpu__set_amx, tfs_cpu__set_bf16_dot)
 * where this process can run it; returns why it cannot, or NULL.  The
 * caller returns to the defaults with tu_bf16_paths_reset. */
const char *tu_bf16_path(int p);
void tu_bf16_paths_reset(void);

#endif
