/*
 * graph_builder/graphdef_text.c - GraphDefs in protobuf's text format
 * (.pbtxt): export prints the binary GraphDef with the text writer, import
 * parses the text and imports the parsed message as the binary path does.
 */
#include <string.h>

#include "config_proto/pb_text.h"
#include "config_proto/pb_util.h"
#include "core/alloc.h"
#include "core/status.h"
#include "graph_builder/graphdef_import.h"
#include "proto/graph.pb-c.h"
#include "tfsess/graphdef.h"

void tfs_graph_to_graphdef_text(tfs_graph *g, tfs_buffer *out,
                                tfs_status *st) {
  TFS_CHECK_ARG(g != NULL && out != NULL, st, );
  if (tfs_pb__check_empty(out, st)) return;
  tfs_buffer bin = {NULL, 0, NULL};
  tfs_graph_to_graphdef(g, &bin, st);
  if (tfs_status_code(st) != TFS_OK) return;
  int oom = 0;
  ProtobufCMessage *gd = tfs_pb__unpack(&tensorflow__graph_def__descriptor,
                                        bin.data, bin.length, &oom);
  if (bin.data_deallocator)
    bin.data_deallocator((void *)bin.data, bin.length);
  if (!gd) {
    if (oom)
      TFS_OOM(st);
    else
      tfs_status_set(st, TFS_INTERNAL, "exported GraphDef does not parse");
    return;
  }
  tfs_pb__print_text(gd, out, st);
  tfs_pb__free(gd);
}

tfs_import_results *tfs_graph_import_graphdef_text(
    tfs_graph *g, const char *text, size_t len,
    const tfs_import_options *opts, tfs_status *st) {
  TFS_CHECK_ARG(g != NULL && (text != NULL || len == 0), st, NULL);
  ProtobufCMessage *gd = tfs_pb__parse_text(
      &tensorflow__graph_def__descriptor, text ? text : "", len, NULL, st);
  if (!gd) {
    if (tfs_status_code(st) == TFS_INVALID_ARGUMENT) {
      char *msg = tfs_strdup(tfs_status_message(st));
      if (msg)
        tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                        "Invalid GraphDef text: %s", msg);
      tfs_free(msg);
    }
    return NULL;
  }
  tfs_import_results *r = tfs_graph__import_parsed(
      g, (const Tensorflow__GraphDef *)gd, opts, st);
  tfs_pb__free(gd);
  return r;
}
