/*
 * tfsess/graphdef.h - TensorFlow's GraphDef on the wire: importing the
 * bytes TensorFlow writes (frozen .pb files) into a graph, and exporting a
 * graph back.  Mirrors TF_GraphImportGraphDef and its options/results.
 *
 * Import is all or nothing: when it fails, the graph is unchanged.
 * Attrs a GraphDef omits because they hold their default are filled from
 * the op registry; `_`-prefixed attrs (`_class`, `_output_shapes`, ...) are
 * kept.  Errors name the node, in TensorFlow's wording.
 */
#ifndef TFSESS_GRAPHDEF_H
#define TFSESS_GRAPHDEF_H

#include "buffer.h"
#include "common.h"
#include "graph.h"
#include "status.h"

TFS_BEGIN_DECLS

typedef struct tfs_import_options tfs_import_options;
typedef struct tfs_import_results tfs_import_results;

/* Returns new default options; caller frees with tfs_import_options_free.
 * NULL only when memory runs out. */
TFS_API tfs_import_options *tfs_import_options_new(void);
TFS_API void tfs_import_options_free(tfs_import_options *o);

/* Every imported node's name gets "prefix/" in front. */
TFS_API void tfs_import_options_set_prefix(tfs_import_options *o,
                                           const char *prefix);
/* Device for nodes that request none. */
TFS_API void tfs_import_options_set_default_device(tfs_import_options *o,
                                                   const char *device);
/* Rename imported nodes whose names clash ("a" -> "a_1"). */
TFS_API void tfs_import_options_set_uniquify_names(tfs_import_options *o,
                                                   int uniquify);
/* Make the prefix itself unique in the graph. */
TFS_API void tfs_import_options_set_uniquify_prefix(tfs_import_options *o,
                                                    int uniquify);
/* Limits for GraphDefs from untrusted sources (docs/SECURITY.md):
 * messages nested deeper than `depth` (1..100; other values: 100, the
 * default, as TensorFlow's parser) are refused as "Invalid GraphDef";
 * more than `nodes` nodes (> 0; 0 or less: no limit, the default) give
 * RESOURCE_EXHAUSTED before anything is imported. */
TFS_API void tfs_import_options_set_max_nesting(tfs_import_options *o,
                                                int depth);
TFS_API void tfs_import_options_set_max_nodes(tfs_import_options *o,
                                              int64_t nodes);
/* Uses of src_name:src_index in the GraphDef become `dst` (an output
 * already in the graph). */
TFS_API void tfs_import_options_add_input_mapping(tfs_import_options *o,
                                                  const char *src_name,
                                                  int src_index,
                                                  tfs_output dst);
/* Control inputs "^src_name" in the GraphDef become control inputs on
 * `dst`. */
TFS_API void tfs_import_options_remap_control_dependency(
    tfs_import_options *o, const char *src_name, tfs_operation *dst);
/* Every imported node without inputs gets a control input on `op`. */
TFS_API void tfs_import_options_add_control_dependency(tfs_import_options *o,
                                                       tfs_operation *op);
/* Ask for outputs / operations of the imported graph by their GraphDef
 * names; they come back in the results in this order. */
TFS_API void tfs_import_options_add_return_output(tfs_import_options *o,
                                                  const char *oper_name,
                                                  int index);
TFS_API int tfs_import_options_num_return_outputs(
    const tfs_import_options *o);
TFS_API void tfs_import_options_add_return_operation(tfs_import_options *o,
                                                     const char *oper_name);
TFS_API int tfs_import_options_num_return_operations(
    const tfs_import_options *o);

/* Imports serialized GraphDef bytes into `g` (opts may be NULL).  Returns
 * the results (caller frees with tfs_import_results_free), or NULL with an
 * error; on error the graph is unchanged.  Attrs a node's op does not
 * declare are kept and ignored, with a warning, as TensorFlow does.
 * Errors are TensorFlow's: "Invalid GraphDef" for bytes that do not parse,
 * "Node 'y': Unknown input node 'z'", "Op type not registered ...",
 * NodeDef validation against the op's definition, and so on. */
TFS_API tfs_import_results *tfs_graph_import_graphdef(
    tfs_graph *g, const void *data, size_t len,
    const tfs_import_options *opts, tfs_status *st);

/* Borrowed arrays, valid until the results are freed. */
TFS_API void tfs_import_results_return_outputs(tfs_import_results *r,
                                               int *n, tfs_output **outputs);
TFS_API void tfs_import_results_return_operations(tfs_import_results *r,
                                                  int *n,
                                                  tfs_operation ***opers);
/* Input mappings that matched no input in the GraphDef. */
TFS_API void tfs_import_results_missing_unused_input_mappings(
    tfs_import_results *r, int *n, const char ***src_names,
    int **src_indexes);
TFS_API void tfs_import_results_free(tfs_import_results *r);

/* Serializes the whole graph as a GraphDef into `out`, which must be
 * empty ("Passing non-empty TF_Buffer is invalid." otherwise).  The bytes
 * are freed by tfs_buffer_free(out).  Attrs are written in sorted order,
 * so equal graphs give equal bytes. */
TFS_API void tfs_graph_to_graphdef(tfs_graph *g, tfs_buffer *out,
                                   tfs_status *st);

/* Same for the subgraph that `fetches` and `targets` need (their
 * ancestors), as a pruned export for a frozen model. */
TFS_API void tfs_graph_to_graphdef_pruned(tfs_graph *g,
                                          const tfs_output *fetches,
                                          int nfetches,
                                          tfs_operation *const *targets,
                                          int ntargets, tfs_buffer *out,
                                          tfs_status *st);

/* The graph as a text GraphDef (a .pbtxt, protobuf's text format) in the
 * empty buffer `out` (freed by tfs_buffer_free; the text is followed by a
 * NUL byte that `length` does not count).  The text is what TensorFlow's
 * Python text_format.MessageToString prints for the GraphDef that
 * tfs_graph_to_graphdef exports, byte for byte: fields in field-number
 * order, two-space indentation, attrs as key / value blocks sorted by key,
 * strings C-escaped (octal escapes for non-printable bytes), floats in
 * their shortest round-trip form, dtypes by name. */
TFS_API void tfs_graph_to_graphdef_text(tfs_graph *g, tfs_buffer *out,
                                        tfs_status *st);

/* tfs_graph_import_graphdef for a text GraphDef: `len` bytes of `text`
 * (NUL not needed) as tf.io.write_graph(as_text=True) or
 * text_format.MessageToString writes them, any syntax protobuf's text
 * parser accepts (comments, `<>` blocks, lists, both quote kinds).  Text
 * that does not parse fails with INVALID_ARGUMENT "Invalid GraphDef text:
 * LINE:COLUMN: problem" in protobuf's wording; the rest (options, results,
 * errors, the graph unchanged on error) is tfs_graph_import_graphdef's. */
TFS_API tfs_import_results *tfs_graph_import_graphdef_text(
    tfs_graph *g, const char *text, size_t len,
    const tfs_import_options *opts, tfs_status *st);

TFS_END_DECLS

#endif /* TFSESS_GRAPHDEF_H */
