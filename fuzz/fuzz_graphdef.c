/*
 * fuzz/fuzz_graphdef.c - libFuzzer target: GraphDef bytes through
 * tfs_graph_import_graphdef (twice: plain, then with a prefix and
 * uniquified names into the same graph), then exported back with
 * tfs_graph_to_graphdef and re-imported into a fresh graph.
 */
#include <stddef.h>
#include <stdint.h>

#include "tfsess/tfsess.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Exports `g` and imports the bytes into a new graph. */
static void roundtrip(tfs_graph *g, tfs_status *st) {
  tfs_buffer *out = tfs_buffer_new();
  tfs_graph *g2;
  tfs_import_results *r;
  if (!out) return;
  tfs_status_clear(st);
  tfs_graph_to_graphdef(g, out, st);
  if (tfs_status_ok(st)) {
    g2 = tfs_graph_new();
    if (g2) {
      r = tfs_graph_import_graphdef(g2, out->data, out->length, NULL, st);
      tfs_import_results_free(r);
      tfs_graph_free(g2);
    }
  }
  tfs_buffer_free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  tfs_status *st = tfs_status_new();
  tfs_graph *g = tfs_graph_new();
  tfs_import_options *o = tfs_import_options_new();
  tfs_import_results *r;
  if (!st || !g || !o) goto done;
  r = tfs_graph_import_graphdef(g, data, size, NULL, st);
  if (!r) goto done;
  tfs_import_results_free(r);
  tfs_import_options_set_prefix(o, "f");
  tfs_import_options_set_uniquify_names(o, 1);
  tfs_import_options_set_uniquify_prefix(o, 1);
  tfs_status_clear(st);
  r = tfs_graph_import_graphdef(g, data, size, o, st);
  tfs_import_results_free(r);
  roundtrip(g, st);
done:
  tfs_import_options_free(o);
  tfs_graph_free(g);
  tfs_status_free(st);
  return 0;
}
