/*
 * core/util.c - string formatting, growable arrays and clocks.
 */
#include "core/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/alloc.h"

char *tfs_vasprintf(const char *fmt, va_list ap) {
  va_list ap2;
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, fmt, ap2);
  va_end(ap2);
  if (n < 0) return NULL;
  char *buf = tfs_malloc((size_t)n + 1);
  if (!buf) return NULL;
  vsnprintf(buf, (size_t)n + 1, fmt, ap);
  return buf;
}

char *tfs_asprintf(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *s = tfs_vasprintf(fmt, ap);
  va_end(ap);
  return s;
}

char *tfs_strdup(const char *s) {
  if (!s) return NULL;
  return tfs_strndup(s, strlen(s));
}

char *tfs_strndup(const char *s, size_t n) {
  char *d = tfs_malloc(n + 1);
  if (!d) return NULL;
  if (n) memcpy(d, s, n);
  d[n] = 0;
  return d;
}

int tfs_grow(void **ptr, size_t *cap, size_t need, size_t elem) {
  if (need <= *cap) return 0;
  size_t nc = *cap ? *cap * 2 : 8;
  while (nc < need) nc *= 2;
  if (nc > SIZE_MAX / elem) return -1;
  void *p = tfs_realloc(*ptr, nc * elem);
  if (!p) return -1;
  *ptr = p;
  *cap = nc;
  return 0;
}

int64_t tfs_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int64_t tfs_now_wall_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (int64_t)ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}
