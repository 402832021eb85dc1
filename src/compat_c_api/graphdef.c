/*
 * compat_c_api/graphdef.c - graph lookups and iteration, GraphDef /
 * OpDef / NodeDef / VersionDef serialization, GraphDef import with its
 * options and results, the registry as an OpList, and constant
 * evaluation (TF_TryEvaluateConstant).
 */
#include <string.h>

#include "compat_c_api/capi_internal.h"
#include "graph_builder/graphdef_internal.h"

TF_Operation *TF_GraphOperationByName(TF_Graph *graph, const char *oper_name) {
  return tfs_graph_operation_by_name(graph, oper_name);
}

/* TensorFlow's graphs hold two sentinel nodes (source and sink) with ids 0
 * and 1, and *pos is the id of the node returned: 2 for the first
 * operation.  Programs print it, so tfsess counts the same way. */
TF_Operation *TF_GraphNextOperation(TF_Graph *graph, size_t *pos) {
  size_t id = *pos == 0 ? 2 : *pos + 1;
  tfs_operation *op = NULL;
  pthread_mutex_lock(&graph->mu);
  if (id - 2 < graph->nops) op = graph->ops[id - 2];
  pthread_mutex_unlock(&graph->mu);
  *pos = id;
  return op;
}

void TF_GraphToGraphDef(TF_Graph *graph, TF_Buffer *output_graph_def,
                        TF_Status *status) {
  tfs_status *st = ST(status);
  tfs_buffer b = tfs_capi__buf_in(output_graph_def);
  tfs_graph_to_graphdef(graph, &b, st);
  if (tfs_status_ok(st)) tfs_capi__buf_out(output_graph_def, &b);
}

void TF_GraphGetOpDef(TF_Graph *graph, const char *op_name,
                      TF_Buffer *output_op_def, TF_Status *status) {
  tfs_status *st = ST(status);
  (void)graph;
  const tfs_op_def *def = op_name ? tfs_op_lookup(op_name) : NULL;
  if (!def) {
    tfs_op_not_registered(op_name ? op_name : "", st);
    return;
  }
  tfs_buffer b = tfs_capi__buf_in(output_op_def);
  if (tfs_op_def__serialize(def, &b, st) == 0) {
    tfs_capi__buf_out(output_op_def, &b);
    tfs_status_clear(st);
  }
}

static void free_bytes(void *data, size_t len) {
  (void)len;
  tfs_free(data);
}

/* Appends `v` as a varint field `tag` (skipped when 0, as proto3 does). */
static size_t put_varint_field(uint8_t *p, uint8_t tag, unsigned v) {
  size_t n = 0;
  if (!v) return 0;
  p[n++] = tag;
  while (v >= 0x80) {
    p[n++] = (uint8_t)(v | 0x80);
    v >>= 7;
  }
  p[n++] = (uint8_t)v;
  return n;
}

void TF_GraphVersions(TF_Graph *graph, TF_Buffer *output_version_def,
                      TF_Status *status) {
  tfs_status *st = ST(status);
  tfs_buffer b = tfs_capi__buf_in(output_version_def);
  if (tfs_pb__check_empty(&b, st)) return;
  tfs_graph *g = graph;
  pthread_mutex_lock(&g->mu);
  int producer = g->has_versions ? g->producer : TFS_GRAPH_DEF_VERSION;
  int min_consumer = g->has_versions ? g->min_consumer : 0;
  pthread_mutex_unlock(&g->mu);
  /* VersionDef { producer (field 1), min_consumer (field 2) }: two
   * varints of at most 5 bytes, each after a tag byte */
  uint8_t *p = tfs_malloc(12);
  if (!p) {
    TFS_OOM(st);
    return;
  }
  size_t n = put_varint_field(p, 0x08, (unsigned)producer);
  n += put_varint_field(p + n, 0x10, (unsigned)min_consumer);
  output_version_def->data = p;
  output_version_def->length = n;
  output_version_def->data_deallocator = free_bytes;
  tfs_status_clear(st);
}

void TF_OperationToNodeDef(TF_Operation *oper, TF_Buffer *output_node_def,
                           TF_Status *status) {
  tfs_status *st = ST(status);
  tfs_buffer b = tfs_capi__buf_in(output_node_def);
  if (tfs_graph__node_def(oper, &b, st) == 0) {
    tfs_capi__buf_out(output_node_def, &b);
    tfs_status_clear(st);
  }
}

TF_Buffer *TF_GetAllOpList(void) {
  TF_Buffer *out = TF_NewBuffer();
  tfs_status *st = tfs_status_new();
  tfs_buffer b = {NULL, 0, NULL};
  if (out && st && tfs_op_list__serialize(&b, st) == 0)
    tfs_capi__buf_out(out, &b);
  tfs_status_free(st);
  return out;
}

/* ---- import options and results ------------------------------------------ */

TF_ImportGraphDefOptions *TF_NewImportGraphDefOptions(void) {
  return tfs_import_options_new();
}

void TF_DeleteImportGraphDefOptions(TF_ImportGraphDefOptions *opts) {
  tfs_import_options_free(opts);
}

void TF_ImportGraphDefOptionsSetPrefix(TF_ImportGraphDefOptions *opts,
                                       const char *prefix) {
  tfs_import_options_set_prefix(opts, prefix);
}

void TF_ImportGraphDefOptionsSetDefaultDevice(TF_ImportGraphDefOptions *opts,
                                              const char *device) {
  tfs_import_options_set_default_device(opts, device);
}

void TF_ImportGraphDefOptionsSetUniquifyNames(TF_ImportGraphDefOptions *opts,
                                              unsigned char uniquify_names) {
  tfs_import_options_set_uniquify_names(opts, uniquify_names);
}

void TF_ImportGraphDefOptionsSetUniquifyPrefix(TF_ImportGraphDefOptions *opts,
                                               unsigned char uniquify_prefix) {
  tfs_import_options_set_uniquify_prefix(opts, uniquify_prefix);
}

void TF_ImportGraphDefOptionsAddInputMapping(TF_ImportGraphDefOptions *opts,
                                             const char *src_name,
                                             int src_index, TF_Output dst) {
  tfs_import_options_add_input_mapping(opts, src_name, src_index,
                                       tfs_capi__out(dst));
}

void TF_ImportGraphDefOptionsRemapControlDependency(
    TF_ImportGraphDefOptions *opts, const char *src_name, TF_Operation *dst) {
  tfs_import_options_remap_control_dependency(opts, src_name, dst);
}

void TF_ImportGraphDefOptionsAddControlDependency(
    TF_ImportGraphDefOptions *opts, TF_Operation *oper) {
  tfs_import_options_add_control_dependency(opts, oper);
}

void TF_ImportGraphDefOptionsAddReturnOutput(TF_ImportGraphDefOptions *opts,
                                             const char *oper_name,
                                             int index) {
  tfs_import_options_add_return_output(opts, oper_name, index);
}

int TF_ImportGraphDefOptionsNumReturnOutputs(
    const TF_ImportGraphDefOptions *opts) {
  return tfs_import_options_num_return_outputs(opts);
}

void TF_ImportGraphDefOptionsAddReturnOperation(
    TF_ImportGraphDefOptions *opts, const char *oper_name) {
  tfs_import_options_add_return_operation(opts, oper_name);
}

int TF_ImportGraphDefOptionsNumReturnOperations(
    const TF_ImportGraphDefOptions *opts) {
  return tfs_import_options_num_return_operations(opts);
}

void TF_ImportGraphDefResultsReturnOutputs(TF_ImportGraphDefResults *results,
                                           int *num_outputs,
                                           TF_Output **outputs) {
  tfs_output *o = NULL;
  tfs_import_results_return_outputs(results, num_outputs, &o);
  /* TF_Output and tfs_output are the same {operation, index} pair. */
  *outputs = (TF_Output *)(void *)o;
}

void TF_ImportGraphDefResultsReturnOperations(
    TF_ImportGraphDefResults *results, int *num_opers,
    TF_Operation ***opers) {
  tfs_import_results_return_operations(results, num_opers, opers);
}

void TF_ImportGraphDefResultsMissingUnusedInputMappings(
    TF_ImportGraphDefResults *results, int *num_missing_unused_input_mappings,
    const char ***src_names, int **src_indexes) {
  tfs_import_results_missing_unused_input_mappings(
      results, num_missing_unused_input_mappings, src_names, src_indexes);
}

void TF_DeleteImportGraphDefResults(TF_ImportGraphDefResults *results) {
  tfs_import_results_free(results);
}

/* ---- import -------------------------------------------------------------- */

TF_ImportGraphDefResults *TF_GraphImportGraphDefWithResults(
    TF_Graph *graph, const TF_Buffer *graph_def,
    const TF_ImportGraphDefOptions *options, TF_Status *status) {
  tfs_status *st = ST(status);
  if (!graph_def) {
    tfs_status_set(st, TFS_INVALID_ARGUMENT, "Invalid GraphDef");
    return NULL;
  }
  return tfs_graph_import_graphdef(graph, graph_def->data, graph_def->length,
                                   options, st);
}

TF_ImportGraphDefResults *TF_GraphImportGraphDefWithResultsNoSerialization(
    TF_Graph *graph, const TF_Buffer *graph_def,
    const TF_ImportGraphDefOptions *options, TF_Status *status) {
  (void)graph;
  (void)graph_def;
  (void)options;
  tfs_capi__unimplemented(status,
                          "TF_GraphImportGraphDefWithResultsNoSerialization",
                          "it takes a C++ GraphDef object; pass serialized "
                          "bytes to TF_GraphImportGraphDefWithResults");
  return NULL;
}

void TF_GraphImportGraphDefWithReturnOutputs(
    TF_Graph *graph, const TF_Buffer *graph_def,
    const TF_ImportGraphDefOptions *options, TF_Output *return_outputs,
    int num_return_outputs, TF_Status *status) {
  tfs_status *st = ST(status);
  int want = options ? tfs_import_options_num_return_outputs(options) : 0;
  if (num_return_outputs != want) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "Expected 'num_return_outputs' to be %d, got %d", want,
                    num_return_outputs);
    return;
  }
  tfs_import_results *r =
      TF_GraphImportGraphDefWithResults(graph, graph_def, options, status);
  if (!r) return;
  int n = 0;
  tfs_output *o = NULL;
  tfs_import_results_return_outputs(r, &n, &o);
  for (int i = 0; i < n && i < num_return_outputs; i++)
    return_outputs[i] = tfs_capi__tf_out(o[i]);
  tfs_import_results_free(r);
}

void TF_GraphImportGraphDef(TF_Graph *graph, const TF_Buffer *graph_def,
                            const TF_ImportGraphDefOptions *options,
                            TF_Status *status) {
  tfs_import_results *r =
      TF_GraphImportGraphDefWithResults(graph, graph_def, options, status);
  tfs_import_results_free(r);
}

/* ---- constant evaluation ------------------------------------------------- */

/* Non-zero when `op` and everything it depends on can be computed without
 * feeds or state. */
static int is_constant(tfs_operation *op, uint8_t *seen) {
  if (seen[op->id]) return seen[op->id] == 1;
  seen[op->id] = 2; /* until proven constant */
  if (op->def->flags & (TFS_OP_STATEFUL | TFS_OP_NO_FOLD | TFS_OP_PLACEHOLDER))
    return 0;
  for (int i = 0; i < op->ninputs; i++)
    if (!is_constant(op->inputs[i].oper, seen)) return 0;
  for (int i = 0; i < op->ncontrol; i++)
    if (!is_constant(op->control_inputs[i], seen)) return 0;
  seen[op->id] = 1;
  return 1;
}

unsigned char TF_TryEvaluateConstant(TF_Graph *graph, TF_Output output,
                                     TF_Tensor **result, TF_Status *status) {
  tfs_status *st = ST(status);
  tfs_output o = tfs_capi__out(output);
  *result = NULL;
  if (tfs_capi__check_output(o, st)) return 0;
  pthread_mutex_lock(&graph->mu);
  size_t nops = graph->nops;
  pthread_mutex_unlock(&graph->mu);
  uint8_t *seen = tfs_calloc(nops ? nops : 1, 1);
  if (!seen) {
    TFS_OOM(st);
    return 0;
  }
  int constant = is_constant(o.oper, seen);
  tfs_free(seen);
  tfs_status_clear(st);
  if (!constant) return 0;
  const tfs_tensor *c = tfs_graph__const_value(o);
  if (c) {
    *result = tfs_tensor__copy(c, st);
    return *result != NULL;
  }
  tfs_session *s = tfs_session_new(graph, NULL, st);
  if (!s) return 0;
  tfs_session_run(s, NULL, NULL, 0, &o, result, 1, NULL, 0, st);
  tfs_session_free(s);
  return *result != NULL;
}
