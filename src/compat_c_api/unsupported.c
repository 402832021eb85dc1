/*
 * compat_c_api/unsupported.c - the parts of TensorFlow's C API that
 * tfsess does not have (in-place graph edits): each
 * exists and reports TF_UNIMPLEMENTED naming itself where it has a
 * status.
 */
#include <string.h>

#include "compat_c_api/capi_internal.h"

/* ---- editing existing operations ---------------------------------------
 * tfsess operations never change once added (sessions may have planned
 * them), but for an input rewired with TF_UpdateEdge (graph.c); the
 * functions with a status say so, the others leave the graph as it is. */

static const char kImmutable[] =
    "operations cannot be changed once added to a tfsess graph";

void TF_AddOperationControlInput(TF_Graph *graph, TF_Operation *op,
                                 TF_Operation *input) {
  (void)graph, (void)op, (void)input;
}

void TF_SetAttr(TF_Graph *graph, TF_Operation *op, const char *attr_name,
                TF_Buffer *attr_value_proto, TF_Status *status) {
  (void)graph, (void)op, (void)attr_name, (void)attr_value_proto;
  tfs_capi__unimplemented(status, "TF_SetAttr", kImmutable);
}

void TF_ClearAttr(TF_Graph *graph, TF_Operation *op, const char *attr_name,
                  TF_Status *status) {
  (void)graph, (void)op, (void)attr_name;
  tfs_capi__unimplemented(status, "TF_ClearAttr", kImmutable);
}

void TF_SetFullType(TF_Graph *graph, TF_Operation *op,
                    const TF_Buffer *full_type_proto) {
  (void)graph, (void)op, (void)full_type_proto;
}

void TF_SetRequestedDevice(TF_Graph *graph, TF_Operation *op,
                           const char *device) {
  (void)graph, (void)op, (void)device;
}

void TF_RemoveAllControlInputs(TF_Graph *graph, TF_Operation *op) {
  (void)graph, (void)op;
}

/* tfsess always runs shape functions; every op has one. */
void TF_SetRequireShapeInferenceFns(TF_Graph *graph, bool require) {
  (void)graph, (void)require;
}

static void free_buffer_bytes(void *data, size_t len) {
  (void)len;
  tfs_free(data);
}

/* No resource handle carries shape data in tfsess: an empty
 * HandleShapeAndType (is_set false). */
TF_Buffer *TF_GetHandleShapeAndType(TF_Graph *graph, TF_Output output) {
  (void)graph, (void)output;
  TF_Buffer *b = TF_NewBuffer();
  if (b) {
    b->data = tfs_malloc(1);
    b->length = 0;
    b->data_deallocator = b->data ? free_buffer_bytes : NULL;
  }
  return b;
}

void TF_SetHandleShapeAndType(TF_Graph *graph, TF_Output output,
                              const void *proto, size_t proto_len,
                              TF_Status *status) {
  (void)graph, (void)output, (void)proto, (void)proto_len;
  tfs_capi__unimplemented(status, "TF_SetHandleShapeAndType", kImmutable);
}

void TF_AddWhileInputHack(TF_Graph *graph, TF_Output new_src,
                          TF_Operation *dst, TF_Status *status) {
  (void)graph, (void)new_src, (void)dst;
  tfs_capi__unimplemented(status, "TF_AddWhileInputHack", kImmutable);
}
