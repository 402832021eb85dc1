/*
 * core/log.c - leveled logging to stderr, and the listeners that take
 * over what PrintV2 prints.
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

/* ---- listeners ----------------------------------------------------------- */

typedef void (*listener_fn)(const char *text);

static pthread_mutex_t g_listen_mu = PTHREAD_MUTEX_INITIALIZER;
static listener_fn *g_listeners; /* guarded by: g_listen_mu */
static int g_nlisteners_cap;     /* guarded by: g_listen_mu */
static atomic_int g_nlisteners;  /* written under g_listen_mu */

int tfs_log_add_listener(void (*listener)(const char *text)) {
  if (!listener) return 0;
  pthread_mutex_lock(&g_listen_mu);
  int n = atomic_load(&g_nlisteners);
  if (n == g_nlisteners_cap) {
    int cap = g_nlisteners_cap ? 2 * g_nlisteners_cap : 4;
    listener_fn *l = realloc(g_listeners, sizeof(*l) * (size_t)cap);
    if (!l) {
      pthread_mutex_unlock(&g_listen_mu);
      return -1;
    }
    g_listeners = l;
    g_nlisteners_cap = cap;
  }
  g_listeners[n] = listener;
  atomic_store(&g_nlisteners, n + 1);
  pthread_mutex_unlock(&g_listen_mu);
  return 0;
}

int tfs_log_to_listeners(const char *text) {
  if (atomic_load_explicit(&g_nlisteners, memory_order_acquire) == 0)
    return 0;
  /* a snapshot, called without the lock: a listener may register more */
  listener_fn local[8], *fns = local;
  pthread_mutex_lock(&g_listen_mu);
  int n = atomic_load(&g_nlisteners);
  if (n > 8) fns = malloc(sizeof(*fns) * (size_t)n);
  if (fns) {
    for (int i = 0; i < n; i++) fns[i] = g_listeners[i];
  } else {
    n = 8; /* out of memory: the first listeners still get the text */
    fns = local;
    for (int i = 0; i < n; i++) fns[i] = g_listeners[i];
  }
  pthread_mutex_unlock(&g_listen_mu);
  for (int i = 0; i < n; i++) fns[i](text);
  if (fns != local) free(fns);
  return n > 0;
}

int tfs_log_has_listeners(void) {
  return atomic_load_explicit(&g_nlisteners, memory_order_acquire) > 0;
}
