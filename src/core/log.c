/*
 * core/log.c - leveled logging to stderr.
 */
#include "core/log.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

static atomic_int g_level = -1;

static int level(void) {
  int l = atomic_load_explicit(&g_level, memory_order_relaxed);
  if (l >= 0) return l;
  const char *e = getenv("TFS_LOG_LEVEL");
  l = (e && *e >= '0' && *e <= '3') ? *e - '0' : TFS_LOG_WARN;
  atomic_store(&g_level, l);
  return l;
}

int tfs_log_enabled(int lvl) { return lvl >= level(); }

void tfs_log_set_level(int lvl) { atomic_store(&g_level, lvl); }

void tfs_log(int lvl, const char *fmt, ...) {
  static const char tags[] = "DIWE";
  if (lvl < level()) return;
  char *msg;
  va_list ap;
  va_start(ap, fmt);
  msg = tfs_vasprintf(fmt, ap);
  va_end(ap);
  if (!msg) return;
  fprintf(stderr, "tfsess %c: %s\n", tags[lvl < 0 ? 0 : lvl > 3 ? 3 : lvl],
          msg);
  free(msg);
}
