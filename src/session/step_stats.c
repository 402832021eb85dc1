/*
 * session/step_stats.c - freeing recorded step statistics.
 */
#include "session/step_stats.h"

#include <string.h>

#include "core/alloc.h"

void tfs_step_stats_clear(tfs_step_stats *s) {
  if (!s) return;
  for (int i = 0; i < s->n; i++) tfs_free(s->nodes[i].outputs);
  tfs_free(s->nodes);
  memset(s, 0, sizeof(*s));
  s->device = "/job:localhost/replica:0/task:0/device:CPU:0";
}
