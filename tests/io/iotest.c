/*
 * tests/io/iotest.c - file helpers for the io, conformance and command
 * line suites (see iotest.h).
 */
#include "iotest.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef TFS_TEST_SRCDIR
#define TFS_TEST_SRCDIR "."
#endif

const char *it_srcdir(void) {
  const char *s = getenv("top_srcdir");
  return s && *s ? s : TFS_TEST_SRCDIR;
}

#ifndef TFS_TEST_BUILDDIR
#define TFS_TEST_BUILDDIR "."
#endif

const char *it_builddir(void) {
  const char *s = getenv("top_builddir");
  return s && *s ? s : TFS_TEST_BUILDDIR;
}

const char *it_src(const char *rel) {
  static char buf[4096];
  snprintf(buf, sizeof buf, "%s/%s", it_srcdir(), rel);
  return buf;
}

static char g_tmp[512];

const char *it_tmpdir(void) {
  if (!g_tmp[0]) {
    const char *base = getenv("TMPDIR");
    snprintf(g_tmp, sizeof g_tmp, "%s/tfs-test-XXXXXX",
             base && *base ? base : "/tmp");
    if (!mkdtemp(g_tmp)) {
      perror("mkdtemp");
      exit(2);
    }
    atexit(it_cleanup);
  }
  return g_tmp;
}

const char *it_tmp(const char *name) {
  static char bufs[4][4096];
  static int next;
  char *b = bufs[next++ & 3];
  snprintf(b, sizeof bufs[0], "%s/%s", it_tmpdir(), name);
  return b;
}

static void remove_tree(const char *path) {
  DIR *d = opendir(path);
  if (d) {
    struct dirent *e;
    while ((e = readdir(d))) {
      if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
      char sub[4096];
      snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
      remove_tree(sub);
    }
    closedir(d);
    rmdir(path);
  } else {
    unlink(path);
  }
}

void it_cleanup(void) {
  if (g_tmp[0] && !getenv("TFS_KEEP_TMP")) remove_tree(g_tmp);
  g_tmp[0] = 0;
}

uint8_t *it_read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 4096, n = 0;
  uint8_t *buf = malloc(cap);
  for (;;) {
    if (!buf) break;
    size_t got = fread(buf + n, 1, cap - n, f);
    n += got;
    if (n < cap) break;
    uint8_t *nb = realloc(buf, cap * 2);
    if (!nb) {
      free(buf);
      buf = NULL;
      break;
    }
    buf = nb;
    cap *= 2;
  }
  fclose(f);
  if (buf) *len = n;
  return buf;
}

int it_write_file(const char *path, const void *data, size_t len) {
  /* A new file rather than the old one truncated: ext4 flushes a file
   * that was truncated and rewritten when it is closed, which made the
   * fuzz loops wait on the disk. */
  unlink(path);
  FILE *f = fopen(path, "wb");
  if (!f) return -1;
  int ok = fwrite(data, 1, len, f) == len;
  return fclose(f) == 0 && ok ? 0 : -1;
}

uint64_t it_rand(uint64_t *s) {
  uint64_t x = *s ? *s : 0x9e3779b97f4a7c15ull;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  *s = x;
  return x * 0x2545f4914f6cdd1dull;
}
