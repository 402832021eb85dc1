/*
 * tests/torture/torture.h - the fault-injection driver (`make
 * check-torture`): scenarios that go through the public API, run once
 * without failures to learn their results and how many allocations they
 * make, then once per allocation with that allocation failing.
 *
 * A scenario's run function does its work, records what it computed in a
 * tt_result and frees everything it made, on every path.  It returns 0 on
 * success and -1 with `st` holding the error otherwise.  Whatever the
 * harness itself allocates (results, fixture bytes) comes from malloc,
 * not from tfsess's allocator, so it never consumes an injected failure.
 */
#ifndef TFS_TESTS_TORTURE_H
#define TFS_TESTS_TORTURE_H

#include <stddef.h>
#include <stdint.h>

#include "tfsess/tfsess.h"

/* What one run computed: named entries (tensors or bytes), compared
 * entry by entry with the unfailed run's. */
typedef struct tt_result tt_result;

/* Records a copy of `t` under `name` (floats compare within a tolerance,
 * everything else exactly). */
void tt_result_tensor(tt_result *r, const char *name, const tfs_tensor *t);
/* Records raw bytes (compared exactly). */
void tt_result_bytes(tt_result *r, const char *name, const void *data,
                     size_t len);
/* Records a number (compared exactly). */
void tt_result_int(tt_result *r, const char *name, int64_t v);
/* Records float data of a given shape (as a float tensor). */
void tt_result_floats(tt_result *r, const char *name, const int64_t *dims,
                      int ndims, const float *data);

/* Injection off / back on around work a run does only to check its
 * results (exporting a graph, reading back what it wrote). */
void tt_pause(void);
void tt_resume(void);

/* Fills `st` for a constructor that returned NULL (out of memory). */
void tt_null(tfs_status *st, const char *what);
/* Flags the current run as a failure of the library (a state its API
 * promises not to leave, whatever the run returns). */
void tt_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The source tree (fixtures); a path under it, malloc'd. */
char *tt_path(const char *rel);
/* Reads a whole file with malloc; NULL (and a message) on error. */
void *tt_read_file(const char *path, size_t *len);
/* A scratch directory for files a scenario writes (removed at exit). */
const char *tt_tmpdir(void);

typedef struct tt_scenario {
  const char *name;
  int (*setup)(void);                           /* 0 ok */
  int (*run)(tfs_status *st, tt_result *res);   /* 0 ok, -1 error */
  void (*teardown)(void);
} tt_scenario;

extern const tt_scenario tt_scenarios[];   /* ends with {NULL} */

#endif
