/*
 * tfsess/saved_model.h - loads a SavedModel directory as TensorFlow's C++
 * loader (LoadSavedModel) does and serves its signatures.
 *
 * Loading reads saved_model.pb (or saved_model.pbtxt), takes the first
 * MetaGraphDef whose tag set equals the requested one, imports its graph
 * with the function library into a new graph, opens a session on it,
 * restores the variables from variables/variables through the graph's own
 * Saver restore op, and runs the init op (signature
 * __saved_model_init_op, else the collection saved_model_main_op, else
 * legacy_init_op), feeding every asset tensor with its path under
 * assets/.  TF1 exports (simple_save, SavedModelBuilder) and TF2 exports
 * (tf.saved_model.save, Keras model.export) load alike.
 *
 * A loaded model owns its graph and session; the signature records are
 * read-only and live as long as the model.  tfs_saved_model_run and the
 * accessors may be called from several threads at once;
 * tfs_saved_model_free must not race with them.
 *
 * Errors are TensorFlow's: NOT_FOUND "Could not find SavedModel .pb or
 * .pbtxt at supplied export directory path: DIR. ...", NOT_FOUND "Could
 * not find meta graph def matching supplied tags: { serve }. ...", the
 * importer's and the session's errors for the graph, the restore and the
 * init op.
 */
#ifndef TFSESS_SAVED_MODEL_H
#define TFSESS_SAVED_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "buffer.h"
#include "common.h"
#include "dtype.h"
#include "graph.h"
#include "session.h"
#include "status.h"
#include "tensor.h"

TFS_BEGIN_DECLS

typedef struct tfs_saved_model tfs_saved_model;
typedef struct tfs_signature tfs_signature;
typedef struct tfs_tensor_info tfs_tensor_info;

/* ---- loading ------------------------------------------------------------- */

/* Loads the SavedModel in export_dir for the tag set tags[0..ntags)
 * (duplicates collapse, order does not matter; ntags 0 means { serve }).
 * opts NULL: default session options; run_options: RunOptions bytes for
 * the restore and init runs (NULL or empty: none).  Returns the model
 * (caller frees with tfs_saved_model_free) or NULL with an error. */
TFS_API tfs_saved_model *tfs_saved_model_load(const char *export_dir,
                                              const char *const *tags,
                                              int ntags,
                                              const tfs_session_options *opts,
                                              const tfs_buffer *run_options,
                                              tfs_status *st);

/* Closes the session and frees the model with its graph and signatures.
 * NULL is a no-op. */
TFS_API void tfs_saved_model_free(tfs_saved_model *m);

/* The graph and session the model owns: borrowed, valid until
 * tfs_saved_model_free.  The session may be run directly with any of the
 * graph's tensors. */
TFS_API tfs_graph *tfs_saved_model_graph(const tfs_saved_model *m);
TFS_API tfs_session *tfs_saved_model_session(const tfs_saved_model *m);

/* Serializes the chosen MetaGraphDef into the empty buffer `out` (freed by
 * tfs_buffer_free), unknown fields (TF2's object graph) included. */
TFS_API void tfs_saved_model_meta_graph(const tfs_saved_model *m,
                                        tfs_buffer *out, tfs_status *st);

/* The chosen MetaGraph's tags, in the file's order: borrowed. */
TFS_API int tfs_saved_model_num_tags(const tfs_saved_model *m);
TFS_API const char *tfs_saved_model_tag(const tfs_saved_model *m, int i);

/* ---- fingerprint --------------------------------------------------------- */

/* fingerprint.pb of a SavedModel directory (TensorFlow 2.11 and later
 * write it; loading never needs it), as
 * tf.saved_model.experimental.read_fingerprint reads it. */
typedef struct tfs_saved_model_fingerprint {
  uint64_t saved_model_checksum;
  uint64_t graph_def_program_hash;
  uint64_t signature_def_hash;
  uint64_t saved_object_graph_hash;
  uint64_t checkpoint_hash;
  int32_t producer; /* version.producer of the fingerprint format */
} tfs_saved_model_fingerprint;

/* Reads export_dir/fingerprint.pb into *out.  0, or -1 with NOT_FOUND
 * "DIR/fingerprint.pb; No such file or directory" or DATA_LOSS for bytes
 * that do not parse.  Thread-safe. */
TFS_API int tfs_saved_model_read_fingerprint(const char *export_dir,
                                             tfs_saved_model_fingerprint *out,
                                             tfs_status *st);

/* The "singleprint" of a fingerprint, as Fingerprint.singleprint() makes
 * it: "graph_def_program_hash/signature_def_hash/saved_object_graph_hash/
 * checkpoint_hash" in decimal, written into buf (cap bytes, truncated,
 * always NUL-terminated when cap > 0).  Returns the length it needs. */
TFS_API int tfs_saved_model_singleprint(const tfs_saved_model_fingerprint *fp,
                                        char *buf, size_t cap);

/* ---- signatures ---------------------------------------------------------- */

/* Signatures sorted by key, __saved_model_init_op and
 * __saved_model_train_op included (as saved_model_cli lists them).
 * Borrowed records, valid until the model is freed. */
TFS_API int tfs_saved_model_num_signatures(const tfs_saved_model *m);
TFS_API const tfs_signature *tfs_saved_model_signature(
    const tfs_saved_model *m, int i);
/* The signature with this key, or NULL. */
TFS_API const tfs_signature *tfs_saved_model_find_signature(
    const tfs_saved_model *m, const char *key);

TFS_API const char *tfs_signature_key(const tfs_signature *s);
/* e.g. "tensorflow/serving/predict"; "" when unset. */
TFS_API const char *tfs_signature_method_name(const tfs_signature *s);
/* Inputs and outputs sorted by key. */
TFS_API int tfs_signature_num_inputs(const tfs_signature *s);
TFS_API int tfs_signature_num_outputs(const tfs_signature *s);
TFS_API const tfs_tensor_info *tfs_signature_input(const tfs_signature *s,
                                                   int i);
TFS_API const tfs_tensor_info *tfs_signature_output(const tfs_signature *s,
                                                    int i);
/* By key, or NULL. */
TFS_API const tfs_tensor_info *tfs_signature_find_input(
    const tfs_signature *s, const char *key);
TFS_API const tfs_tensor_info *tfs_signature_find_output(
    const tfs_signature *s, const char *key);

/* How a TensorInfo names its tensor (its encoding oneof). */
typedef enum tfs_tensor_encoding {
  TFS_TENSOR_NAME = 1,       /* one graph tensor, "op:index" */
  TFS_TENSOR_COO_SPARSE = 4, /* values, indices and dense_shape tensors */
  TFS_TENSOR_COMPOSITE = 5,  /* a composite tensor's components */
  TFS_TENSOR_ENCODING_UNSET = 0
} tfs_tensor_encoding;

/* The key in its signature ("image", "output_0"). */
TFS_API const char *tfs_tensor_info_key(const tfs_tensor_info *ti);
TFS_API tfs_tensor_encoding tfs_tensor_info_encoding(
    const tfs_tensor_info *ti);
/* TFS_TENSOR_NAME: the tensor name ("serving_default_image:0");
 * TFS_TENSOR_COO_SPARSE: the values tensor's name; otherwise "". */
TFS_API const char *tfs_tensor_info_name(const tfs_tensor_info *ti);
/* TFS_TENSOR_COO_SPARSE only (else ""): the indices and dense_shape
 * tensors' names. */
TFS_API const char *tfs_tensor_info_indices_name(const tfs_tensor_info *ti);
TFS_API const char *tfs_tensor_info_dense_shape_name(
    const tfs_tensor_info *ti);
/* TFS_TENSOR_COMPOSITE only (else 0 / NULL): its component TensorInfos. */
TFS_API int tfs_tensor_info_num_components(const tfs_tensor_info *ti);
TFS_API const tfs_tensor_info *tfs_tensor_info_component(
    const tfs_tensor_info *ti, int i);
TFS_API tfs_dtype tfs_tensor_info_dtype(const tfs_tensor_info *ti);
/* Rank, -1 when unknown; dimension i is -1 when unknown. */
TFS_API int tfs_tensor_info_rank(const tfs_tensor_info *ti);
TFS_API int64_t tfs_tensor_info_dim(const tfs_tensor_info *ti, int i);

/* ---- serving ------------------------------------------------------------- */

/* Runs signature `key` ("serving_default" when NULL): feeds inputs[i]
 * under input key input_keys[i] and fetches the outputs named by
 * output_keys[0..noutputs) into outputs[] (caller frees each with
 * tfs_tensor_free); output_keys NULL fetches every output in key order
 * (noutputs must then equal tfs_signature_num_outputs).  Inputs the call
 * leaves out are fed from the signature's defaults when it has them.
 * On error every outputs[i] is NULL.  Errors: NOT_FOUND for an unknown
 * signature or key (naming the ones there are), INVALID_ARGUMENT for an
 * input of the wrong dtype, a key given twice, a missing input, or a
 * sparse or composite tensor (run the session on its component tensors),
 * and the session's errors. */
TFS_API void tfs_saved_model_run(tfs_saved_model *m, const char *key,
                                 const char *const *input_keys,
                                 tfs_tensor *const *inputs, int ninputs,
                                 const char *const *output_keys,
                                 tfs_tensor **outputs, int noutputs,
                                 tfs_status *st);
/* tfs_saved_model_run with RunOptions bytes and RunMetadata out, as
 * tfs_session_run_ex takes them (either may be NULL): a traced run of a
 * signature (trace_level FULL_TRACE) returns its step_stats. */
TFS_API void tfs_saved_model_run_ex(tfs_saved_model *m, const char *key,
                                    const tfs_buffer *run_options,
                                    const char *const *input_keys,
                                    tfs_tensor *const *inputs, int ninputs,
                                    const char *const *output_keys,
                                    tfs_tensor **outputs, int noutputs,
                                    tfs_buffer *run_metadata,
                                    tfs_status *st);

TFS_END_DECLS

#endif
