/*
 * saved_model/fingerprint.c - a SavedModel's fingerprint.pb
 * (FingerprintDef) and its singleprint.  See tfsess/saved_model.h.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "config_proto/pb_util.h"
#include "core/alloc.h"
#include "core/status.h"
#include "core/util.h"
#include "proto/fingerprint.pb-c.h"
#include "saved_model/sm_internal.h"

int tfs_saved_model_read_fingerprint(const char *export_dir,
                                     tfs_saved_model_fingerprint *out,
                                     tfs_status *st) {
  TFS_CHECK_ARG(export_dir != NULL && out != NULL, st, -1);
  char *path = tfs_asprintf("%s/fingerprint.pb", export_dir);
  if (!path) {
    TFS_OOM(st);
    return -1;
  }
  size_t len = 0;
  char *data = NULL;
  int rc = tfs_sm__read_file(path, &data, &len, st);
  if (rc == 1)
    tfs_status_setf(st, TFS_NOT_FOUND, "%s; No such file or directory", path);
  if (rc) {
    tfs_free(path);
    return -1;
  }
  int oom = 0;
  Tensorflow__FingerprintDef *fp = (Tensorflow__FingerprintDef *)
      tfs_pb__unpack(&tensorflow__fingerprint_def__descriptor, data, len,
                     &oom);
  tfs_free(data);
  if (!fp) {
    if (oom)
      TFS_OOM(st);
    else
      tfs_status_setf(st, TFS_DATA_LOSS,
                      "Could not parse FingerprintDef from %s", path);
    tfs_free(path);
    return -1;
  }
  tfs_free(path);
  out->saved_model_checksum = fp->saved_model_checksum;
  out->graph_def_program_hash = fp->graph_def_program_hash;
  out->signature_def_hash = fp->signature_def_hash;
  out->saved_object_graph_hash = fp->saved_object_graph_hash;
  out->checkpoint_hash = fp->checkpoint_hash;
  out->producer = fp->version ? fp->version->producer : 0;
  tfs_pb__free(&fp->base);
  tfs_status_clear(st);
  return 0;
}

int tfs_saved_model_singleprint(const tfs_saved_model_fingerprint *fp,
                                char *buf, size_t cap) {
  if (!fp) return 0;
  return snprintf(buf, cap, "%" PRIu64 "/%" PRIu64 "/%" PRIu64 "/%" PRIu64,
                  fp->graph_def_program_hash, fp->signature_def_hash,
                  fp->saved_object_graph_hash, fp->checkpoint_hash);
}
