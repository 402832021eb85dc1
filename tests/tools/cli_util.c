/*
 * tests/tools/cli_util.c - see cli_util.h.
 */
#include "cli_util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "iotest.h"

void result_free(result *r) {
  free(r->out);
  free(r->err);
}

result tfsess(const char *fmt, ...) {
  char args[8192], cmd[16384];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(args, sizeof args, fmt, ap);
  va_end(ap);
  snprintf(cmd, sizeof cmd, "cd '%s' && '%s/tfsess' %s >'%s' 2>'%s'",
           it_srcdir(), it_builddir(), args, it_tmp("stdout"),
           it_tmp("stderr"));
  result r = {0, NULL, NULL};
  int st = system(cmd);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128;
  size_t n;
  r.out = (char *)it_read_file(it_tmp("stdout"), &n);
  r.out = realloc(r.out, n + 1);
  r.out[n] = 0;
  r.err = (char *)it_read_file(it_tmp("stderr"), &n);
  r.err = realloc(r.err, n + 1);
  r.err[n] = 0;
  return r;
}

int count_lines(const char *s) {
  int n = 0;
  for (; *s; s++) n += *s == '\n';
  return n;
}

void assert_fails(result *r, int status, const char *needle) {
  int ok = r->status == status && count_lines(r->err) == 1 &&
           strstr(r->err, needle) != NULL;
  if (!ok)
    fprintf(stderr,
            "\n  expected exit %d and one line with \"%s\"\n  got "
            "exit %d, stderr: %s",
            status, needle, r->status, r->err);
  CU_ASSERT_TRUE(ok);
  result_free(r);
}

tfs_tensor *load(const char *path) {
  tfs_status *st = tfs_status_new();
  tfs_tensor *t = tfs_npy_read(path, st);
  TFS_ASSERT_OK(st);
  tfs_status_free(st);
  return t;
}
