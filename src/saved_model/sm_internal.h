/*
 * saved_model/sm_internal.h - the records behind tfsess/saved_model.h,
 * shared by the loader (loader.c, loader_steps.c) and the signature
 * accessors and runner (signatures.c).
 */
#ifndef TFS_SAVED_MODEL_SM_INTERNAL_H
#define TFS_SAVED_MODEL_SM_INTERNAL_H

#include "proto/meta_graph.pb-c.h"
#include "proto/saved_model.pb-c.h"
#include "tfsess/saved_model.h"

struct tfs_tensor_info {
  char *key;
  tfs_tensor_encoding enc;
  char *name;        /* NAME: the tensor; COO_SPARSE: the values */
  char *indices;     /* COO_SPARSE */
  char *dense_shape; /* COO_SPARSE */
  int ncomp;         /* COMPOSITE */
  struct tfs_tensor_info *comp;
  tfs_dtype dtype;
  int rank;          /* -1: unknown */
  int64_t *dims;     /* rank entries, -1 unknown */
};

struct tfs_signature {
  char *key, *method;
  int nin, nout;
  tfs_tensor_info *in, *out; /* sorted by key */
  int ndef;                  /* defaults, sorted by key */
  char **def_keys;
  tfs_tensor **defs;
};

struct tfs_saved_model {
  char *dir;
  tfs_graph *g;
  int borrowed_graph; /* g is the caller's (TF_LoadSessionFromSavedModel) */
  tfs_session *s;
  int ntags;
  char **tags;
  int nsig;
  tfs_signature *sigs; /* sorted by key */
  tfs_buffer *mg;      /* the chosen MetaGraphDef, serialized */
};

/* Reads a whole file into *out (free with tfs_free).  0; 1 when it does
 * not exist (nothing set); -1 with an error (PERMISSION_DENIED "PATH;
 * reason", DATA_LOSS on a read error, RESOURCE_EXHAUSTED). */
int tfs_sm__read_file(const char *path, char **out, size_t *len,
                      tfs_status *st);

/* The SavedModel proto of `dir`: saved_model.pb, else saved_model.pbtxt
 * (the object graph skipped).  Free with tfs_pb__free.  NULL with
 * TensorFlow's NOT_FOUND when neither exists, DATA_LOSS when the file does
 * not parse. */
Tensorflow__SavedModel *tfs_sm__read(const char *dir, tfs_status *st);

/* tfs_saved_model_load, importing into `into` (the caller's graph, which
 * the model then does not free) when not NULL. */
tfs_saved_model *tfs_sm__load(const char *export_dir, const char *const *tags,
                              int ntags, const tfs_session_options *opts,
                              const tfs_buffer *run_options, tfs_graph *into,
                              tfs_status *st);

/* Hands the model's session to the caller (tfs_saved_model_free then
 * leaves it open). */
tfs_session *tfs_sm__take_session(tfs_saved_model *m);

/* Fills m->sigs from the MetaGraphDef's signature_def map.  0, or -1
 * with an error (a malformed tensor shape or default). */
int tfs_sm__build_signatures(tfs_saved_model *m,
                             const Tensorflow__MetaGraphDef *mg,
                             tfs_status *st);
void tfs_sm__free_signatures(tfs_saved_model *m);

/* The TensorFlow C++ loader's steps after the graph is imported and the
 * session open: restore the variables (when the MetaGraph has a Saver
 * and variables/variables.index exists), then run the init op, both with
 * the asset feeds.  0, or -1 with the session's error. */
int tfs_sm__restore_and_init(tfs_saved_model *m,
                             const Tensorflow__MetaGraphDef *mg,
                             const tfs_buffer *run_options, tfs_status *st);

/* TensorFlow's check before Session::Create: a Const without a value, or
 * a value attr whose shape is not fully known, fails (graph nodes and
 * library function bodies). */
int tfs_sm__validate_consts(const Tensorflow__GraphDef *gd, tfs_status *st);

/* The graph tensor named "op:index" (":0" when no index), or -1 with
 * INVALID_ARGUMENT "Tensor X, specified in either feed_devices or
 * fetch_devices was not found in the Graph". */
int tfs_sm__find_tensor(tfs_graph *g, const char *name, tfs_output *out,
                        tfs_status *st);

#endif
