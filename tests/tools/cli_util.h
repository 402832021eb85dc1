/*
 * tests/tools/cli_util.h - running the `tfsess` program from the command
 * line suites (test_cli, test_cli_saved_model): exit status and captured
 * output, the one-line error check, .npy loading.
 */
#ifndef TFS_TESTS_TOOLS_CLI_UTIL_H
#define TFS_TESTS_TOOLS_CLI_UTIL_H

#include "testutil.h"
#include "tfsess/tfsess.h"

typedef struct {
  int status;
  char *out, *err;
} result;

void result_free(result *r);

/* Runs `tfsess ARGS` (a shell-quoted argument string) in the source tree,
 * capturing exit status, stdout and stderr. */
result tfsess(const char *fmt, ...);

int count_lines(const char *s);

/* Asserts a failure: the exit status and one stderr line containing
 * `needle`; frees the result. */
void assert_fails(result *r, int status, const char *needle);

/* Reads a .npy file, asserting success. */
tfs_tensor *load(const char *path);

#endif
