/*
 * compat_eager/shared_session.c - sessions for traced functions: each
 * concrete function runs on a session of its own graph that shares the
 * eager context's variables (one resource manager, reference counted).
 */
#include "compat_eager/eager_internal.h"

tfs_session *tfs_eager__shared_session(tfs_graph *g, tfs_session *with,
                                       tfs_status *st) {
  tfs_session *s = tfs_session_new(g, NULL, st);
  if (!s) return NULL;
  pthread_mutex_lock(&s->mu);
  tfs_resource_mgr_free(s->resources);
  s->resources = tfs_resource_mgr_ref(with->resources);
  pthread_mutex_unlock(&s->mu);
  return s;
}
