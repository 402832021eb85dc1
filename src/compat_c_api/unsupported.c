/*
 * compat_c_api/unsupported.c - the parts of TensorFlow's C API that
 * tfsess does not have yet (functions made from graphs, while loops,
 * gradients, SavedModels, in-place graph edits): each exists and reports
 * TF_UNIMPLEMENTED naming itself where it has a status.
 */
#include <string.h>

#include "compat_c_api/capi_internal.h"

static const char kNoFunctions[] =
    "functions made from graphs are not available yet (FunctionDefs can "
    "be imported with TF_FunctionImportFunctionDef)";

/* ---- functions from graphs ------------------------------------------------ */

TF_Function *TF_GraphToFunction(
    const TF_Graph *fn_body, const char *fn_name,
    unsigned char append_hash_to_fn_name, int num_opers,
    const TF_Operation *const *opers, int ninputs, const TF_Output *inputs,
    int noutputs, const TF_Output *outputs, const char *const *output_names,
    const TF_FunctionOptions *opts, const char *description,
    TF_Status *status) {
  (void)fn_body, (void)fn_name, (void)append_hash_to_fn_name, (void)num_opers;
  (void)opers, (void)ninputs, (void)inputs, (void)noutputs, (void)outputs;
  (void)output_names, (void)opts, (void)description;
  tfs_capi__unimplemented(status, "TF_GraphToFunction", kNoFunctions);
  return NULL;
}

TF_Function *TF_GraphToFunctionWithControlOutputs(
    const TF_Graph *fn_body, const char *fn_name,
    unsigned char append_hash_to_fn_name, int num_opers,
    const TF_Operation *const *opers, int ninputs, const TF_Output *inputs,
    int noutputs, const TF_Output *outputs, const char *const *output_names,
    int ncontrol_outputs, const TF_Operation *const *control_outputs,
    const char *const *control_output_names, const TF_FunctionOptions *opts,
    const char *description, TF_Status *status) {
  (void)fn_body, (void)fn_name, (void)append_hash_to_fn_name, (void)num_opers;
  (void)opers, (void)ninputs, (void)inputs, (void)noutputs, (void)outputs;
  (void)output_names, (void)ncontrol_outputs, (void)control_outputs;
  (void)control_output_names, (void)opts, (void)description;
  tfs_capi__unimplemented(status, "TF_GraphToFunctionWithControlOutputs",
                          kNoFunctions);
  return NULL;
}

/* ---- while loops and gradients ------------------------------------------- */

TF_WhileParams TF_NewWhile(TF_Graph *g, TF_Output *inputs, int ninputs,
                           TF_Status *status) {
  TF_WhileParams p = {0, NULL, NULL, {NULL, 0}, NULL, NULL, NULL, NULL};
  (void)g, (void)inputs, (void)ninputs;
  tfs_capi__unimplemented(status, "TF_NewWhile",
                          "building while loops (Enter/Exit/NextIteration "
                          "frames) is not available yet");
  return p;
}

void TF_FinishWhile(const TF_WhileParams *params, TF_Status *status,
                    TF_Output *outputs) {
  (void)params, (void)outputs;
  tfs_capi__unimplemented(status, "TF_FinishWhile",
                          "building while loops is not available yet");
}

/* TF_NewWhile never succeeds, so there is nothing to discard. */
void TF_AbortWhile(const TF_WhileParams *params) { (void)params; }

void TF_AddGradients(TF_Graph *g, TF_Output *y, int ny, TF_Output *x, int nx,
                     TF_Output *dx, TF_Status *status, TF_Output *dy) {
  (void)g, (void)y, (void)ny, (void)x, (void)nx, (void)dx, (void)dy;
  tfs_capi__unimplemented(status, "TF_AddGradients",
                          "symbolic gradients are not available yet");
}

void TF_AddGradientsWithPrefix(TF_Graph *g, const char *prefix, TF_Output *y,
                               int ny, TF_Output *x, int nx, TF_Output *dx,
                               TF_Status *status, TF_Output *dy) {
  (void)g, (void)prefix, (void)y, (void)ny, (void)x, (void)nx, (void)dx;
  (void)dy;
  tfs_capi__unimplemented(status, "TF_AddGradientsWithPrefix",
                          "symbolic gradients are not available yet");
}

/* ---- SavedModel ---------------------------------------------------------- */

TF_Session *TF_LoadSessionFromSavedModel(
    const TF_SessionOptions *session_options, const TF_Buffer *run_options,
    const char *export_dir, const char *const *tags, int tags_len,
    TF_Graph *graph, TF_Buffer *meta_graph_def, TF_Status *status) {
  (void)session_options, (void)run_options, (void)export_dir, (void)tags;
  (void)tags_len, (void)graph, (void)meta_graph_def;
  tfs_capi__unimplemented(status, "TF_LoadSessionFromSavedModel",
                          "SavedModels need graph functions and checkpoint "
                          "restore, which are not available yet; import a "
                          "frozen GraphDef with TF_GraphImportGraphDef");
  return NULL;
}

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
