/*
 * ops/registry.c - the op registry: every family table parsed once, on
 * first use, into definitions looked up by name.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/alloc.h"
#include "core/hashmap.h"
#include "core/log.h"
#include "core/status.h"
#include "ops/op_tables.h"

extern const tfs_op_spec tfs_ops_tensor_array[]; /* ops_tensor_array.c */

static const tfs_op_spec *const kFamilies[] = {
    tfs_ops_array, tfs_ops_math,    tfs_ops_nn,
    tfs_ops_state, tfs_ops_logging, tfs_ops_control,
    tfs_ops_random, tfs_ops_random_stateless, tfs_ops_random_sampling,
    tfs_ops_fused,
    tfs_ops_control_flow,
    tfs_ops_functional, tfs_ops_tensor_array,
    tfs_ops_list, tfs_ops_segment, tfs_ops_bits, tfs_ops_special, tfs_ops_image,
    tfs_ops_matrix, tfs_ops_parse_example,
    tfs_ops_grad,
    tfs_ops_linalg,
    tfs_ops_lookup,
    tfs_ops_io,
    tfs_ops_nn3d,
    tfs_ops_spectral,
    tfs_ops_ragged,
    tfs_ops_input,
    tfs_ops_extra,
    tfs_ops_string,
    tfs_ops_training,
    tfs_ops_conv_grad,
    tfs_ops_nn_grad,
    tfs_ops_mpi,
};

static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static tfs_op_def *g_defs;
static const tfs_op_def **g_sorted;
static int g_n, g_declared;
static tfs_map g_map = TFS_MAP_INIT;

static int cmp_def(const void *a, const void *b) {
  const tfs_op_def *x = *(const tfs_op_def *const *)a;
  const tfs_op_def *y = *(const tfs_op_def *const *)b;
  return strcmp(x->name, y->name);
}

static void build(void) {
  int total = 0;
  for (size_t f = 0; f < TFS_ARRAY_LEN(kFamilies); f++)
    for (const tfs_op_spec *s = kFamilies[f]; s->name; s++) total++;
  g_declared = total;
  g_defs = tfs_calloc((size_t)total, sizeof(tfs_op_def));
  g_sorted = tfs_calloc((size_t)total, sizeof(*g_sorted));
  if (!g_defs || !g_sorted) {
    tfs_log(TFS_LOG_ERROR, "out of memory building the op registry");
    return;
  }
  tfs_status *st = tfs_status_new();
  int n = 0;
  for (size_t f = 0; f < TFS_ARRAY_LEN(kFamilies); f++) {
    for (const tfs_op_spec *s = kFamilies[f]; s->name; s++) {
      if (tfs_map_get_str(&g_map, s->name)) {
        tfs_log(TFS_LOG_ERROR, "op '%s' is declared twice", s->name);
        continue;
      }
      if (tfs_op_def_parse(s, &g_defs[n], st)) {
        /* A bad spec is a bug in tfsess itself; say so loudly. */
        tfs_log(TFS_LOG_ERROR, "%s", tfs_status_message(st));
        continue;
      }
      if (tfs_map_put_str(&g_map, g_defs[n].name, &g_defs[n])) {
        tfs_log(TFS_LOG_ERROR, "out of memory registering op '%s'",
                s->name);
        tfs_op_def_clear(&g_defs[n]);
        continue;
      }
      g_sorted[n] = &g_defs[n];
      n++;
    }
  }
  tfs_status_free(st);
  qsort(g_sorted, (size_t)n, sizeof(*g_sorted), cmp_def);
  g_n = n;
}

const tfs_op_def *tfs_op_lookup(const char *name) {
  pthread_once(&g_once, build);
  if (!name) return NULL;
  return tfs_map_get_str(&g_map, name);
}

int tfs_op_registry_declared(void) {
  pthread_once(&g_once, build);
  return g_declared;
}

const tfs_op_def *const *tfs_op_all(int *n) {
  pthread_once(&g_once, build);
  *n = g_n;
  return g_sorted;
}

void tfs_op_not_registered(const char *name, tfs_status *st) {
  char host[256] = "localhost";
  if (gethostname(host, sizeof host - 1) != 0)
    memcpy(host, "localhost", sizeof "localhost");
  host[sizeof host - 1] = 0;
  tfs_status_setf(
      st, TFS_NOT_FOUND,
      "Op type not registered '%s' in binary running on %s. Make sure the "
      "Op and Kernel are registered in the binary running in this process. "
      "Note that if you are loading a saved graph which used ops from "
      "tf.contrib (e.g. `tf.contrib.resampler`), accessing should be done "
      "before importing the graph, as contrib ops are lazily registered "
      "when the module is first accessed.",
      name, host);
}
