/*
 * fuzz/fuzz_saved_model.c - libFuzzer target: a SavedModel directory.  The
 * first input byte picks the file (bit 0 clear: saved_model.pb, set:
 * saved_model.pbtxt, the text format); the rest is its content, written
 * into a fresh /tmp directory without variables or assets.  The loader
 * picks the {serve} MetaGraph, imports its graph, opens a session (one
 * thread, limits on one op's output elements, 2^22, and a run's bytes,
 * 2^28; RunOptions timeout_in_ms 200 for the init op) and runs the init
 * op; then every signature record is walked and the MetaGraphDef
 * serialized back.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tfsess/tfsess.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* RunOptions { timeout_in_ms: 200 } (field 2, varint). */
static const unsigned char run_options_bytes[] = {0x10, 0xc8, 0x01};

static void walk(const tfs_saved_model *m) {
  for (int i = 0; i < tfs_saved_model_num_signatures(m); i++) {
    const tfs_signature *s = tfs_saved_model_signature(m, i);
    (void)tfs_signature_method_name(s);
    for (int k = 0; k < tfs_signature_num_inputs(s); k++) {
      const tfs_tensor_info *ti = tfs_signature_input(s, k);
      (void)tfs_tensor_info_name(ti);
      for (int d = 0; d < tfs_tensor_info_rank(ti); d++)
        (void)tfs_tensor_info_dim(ti, d);
      for (int c = 0; c < tfs_tensor_info_num_components(ti); c++)
        (void)tfs_tensor_info_name(tfs_tensor_info_component(ti, c));
    }
  }
  tfs_status *st = tfs_status_new();
  tfs_buffer *b = tfs_buffer_new();
  if (st && b) tfs_saved_model_meta_graph(m, b, st);
  tfs_buffer_free(b);
  tfs_status_free(st);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  char dir[] = "/tmp/tfs-fuzz-sm-XXXXXX", path[64];
  if (!mkdtemp(dir)) return 0;
  snprintf(path, sizeof path, "%s/%s", dir,
           data[0] & 1 ? "saved_model.pbtxt" : "saved_model.pb");
  FILE *f = fopen(path, "wb");
  int ok = f && (size == 1 || fwrite(data + 1, 1, size - 1, f) == size - 1);
  if (f && fclose(f)) ok = 0;
  if (ok) {
    tfs_status *st = tfs_status_new();
    tfs_session_options *o = tfs_session_options_new();
    if (st && o) {
      tfs_buffer ro = {run_options_bytes, sizeof run_options_bytes, NULL};
      tfs_session_options_set_inter_op_threads(o, -1);
      tfs_session_options_set_intra_op_threads(o, 1);
      tfs_session_options_set_limit(o, TFS_LIMIT_OP_ELEMENTS,
                                    (int64_t)1 << 22);
      tfs_session_options_set_limit(o, TFS_LIMIT_RUN_BYTES, (int64_t)1 << 28);
      tfs_saved_model *m = tfs_saved_model_load(dir, NULL, 0, o, &ro, st);
      if (m) walk(m);
      tfs_saved_model_free(m);
    }
    tfs_session_options_free(o);
    tfs_status_free(st);
  }
  unlink(path);
  rmdir(dir);
  return 0;
}
