/*
 * core/alloc.c - malloc wrappers with an optional fault-injection counter.
 */
#include "core/alloc.h"

#include <stdatomic.h>
#include <stdlib.h>

static atomic_long g_fail_at;   /* 0: off */
static atomic_long g_count;

static int should_fail(void) {
  long at = atomic_load_explicit(&g_fail_at, memory_order_relaxed);
  if (at <= 0) return 0;
  long c = atomic_fetch_add(&g_count, 1) + 1;
  return c == at;
}

long tfs_alloc_fail_at(long n) {
  long c = atomic_exchange(&g_count, 0);
  atomic_store(&g_fail_at, n);
  return c;
}

void *tfs_malloc(size_t n) {
  if (should_fail()) return NULL;
  return malloc(n ? n : 1);
}

void *tfs_calloc(size_t count, size_t n) {
  if (should_fail()) return NULL;
  if (!count || !n) return calloc(1, 1);
  return calloc(count, n);
}

void *tfs_realloc(void *p, size_t n) {
  if (should_fail()) return NULL;
  return realloc(p, n ? n : 1);
}

void tfs_free(void *p) { free(p); }

void *tfs_aligned_alloc(size_t n) {
  if (should_fail()) return NULL;
  void *p = NULL;
  size_t sz = (n + 63) & ~(size_t)63;
  if (sz < n) return NULL; /* overflow */
  if (posix_memalign(&p, 64, sz ? sz : 64) != 0) return NULL;
  return p;
}

void tfs_aligned_free(void *p) { free(p); }
