/*
 * tfsess/saver.h - tf.compat.v1.train.Saver for C programs: adds to a
 * graph the save and restore subgraph TensorFlow's Saver builds for the
 * same variables (write_version V2, the same node names, ops, attrs and
 * wiring, sharded or not), saves and restores through a session, keeps
 * the `checkpoint` state file (CheckpointState text proto) with
 * max_to_keep pruning, and finds the latest checkpoint of a directory.
 * A checkpoint saved by either side restores in the other.
 *
 * Building adds operations to the graph: as for any graph change, no
 * other thread may add to the same graph meanwhile.  Saving and restoring
 * run the session (thread-safe) but update the saver's list of recent
 * checkpoints: one thread at a time per saver.  The state-file functions
 * are independent of any saver.
 *
 * Errors are TensorFlow's: the session's ("Key X not found in
 * checkpoint", a dtype or shape mismatch) wrapped as tf.train.Saver
 * wraps them, and Python's ValueError messages of Saver.save / restore
 * reported as INVALID_ARGUMENT.
 */
#ifndef TFSESS_SAVER_H
#define TFSESS_SAVER_H

#include <stdint.h>

#include "buffer.h"
#include "common.h"
#include "graph.h"
#include "session.h"
#include "status.h"

TFS_BEGIN_DECLS

/* ---- options ------------------------------------------------------------- */

typedef struct tfs_saver_options tfs_saver_options;

/* New options with tf.compat.v1.train.Saver's defaults: not sharded,
 * max_to_keep 5, keep_checkpoint_every_n_hours 10000, name scope "save",
 * default filename "model".  Caller frees with tfs_saver_options_free
 * (NULL is a no-op).  NULL only when memory runs out. */
TFS_API tfs_saver_options *tfs_saver_options_new(void);
TFS_API void tfs_saver_options_free(tfs_saver_options *o);

/* Saver(sharded=...): one SaveV2 per device, merged by
 * MergeV2Checkpoints (save/ShardedFilename, save/MergeV2Checkpoints,
 * save/Identity, save/restore_shard). */
TFS_API void tfs_saver_options_set_sharded(tfs_saver_options *o, int on);
/* Saver(max_to_keep=...): how many recent checkpoints save keeps; 0 keeps
 * all of them and leaves the list of recent ones empty. */
TFS_API void tfs_saver_options_set_max_to_keep(tfs_saver_options *o, int n);
/* Saver(keep_checkpoint_every_n_hours=...): a checkpoint pruned by
 * max_to_keep is kept anyway when it is this many hours after the last
 * one so kept (the first: the saver's creation). */
TFS_API void tfs_saver_options_set_keep_every_n_hours(tfs_saver_options *o,
                                                      float hours);
/* Saver(name=...): the name scope (made unique as TensorFlow's
 * name_scope does: "save", then "save_1", ...; NULL or "": "save").
 * Copied. */
TFS_API void tfs_saver_options_set_name(tfs_saver_options *o,
                                        const char *name);
/* Saver(filename=...): the default value of save/filename.  Copied. */
TFS_API void tfs_saver_options_set_filename(tfs_saver_options *o,
                                            const char *filename);

/* ---- building ------------------------------------------------------------ */

typedef struct tfs_saver tfs_saver;

/* Adds the save/restore subgraph for vars[0..n) to `g`, each saved under
 * its operation name.  A variable is a VariableV2 (or Variable) op, a
 * VarHandleOp, or the ReadVariableOp TensorFlow uses as a resource
 * variable's graph element; a VarHandleOp is saved through its
 * ReadVariableOp NAME/Read/ReadVariableOp (through another ReadVariableOp
 * of it when that one is missing, created when it has none).  vars NULL
 * with n 0 takes every VariableV2, Variable and VarHandleOp of the graph.
 * opts NULL: the defaults.  Does not take ownership of anything; the
 * saver (caller frees with tfs_saver_free) refers to g, which must
 * outlive it.  Errors: INVALID_ARGUMENT "No variables to save", "The same
 * saveable will be added more than once.", "At least two variables have
 * the same name: K", and an operation that is not a variable; the graph
 * is left with whatever operations were added before the error. */
TFS_API tfs_saver *tfs_saver_new(tfs_graph *g, tfs_operation *const *vars,
                                 int n, const tfs_saver_options *opts,
                                 tfs_status *st);

/* As tfs_saver_new with the checkpoint keys given: Saver(var_list={keys[i]:
 * vars[i]}). */
TFS_API tfs_saver *tfs_saver_new_keyed(tfs_graph *g,
                                       const char *const *keys,
                                       tfs_operation *const *vars, int n,
                                       const tfs_saver_options *opts,
                                       tfs_status *st);

/* Frees the saver (not the operations it added).  NULL is a no-op. */
TFS_API void tfs_saver_free(tfs_saver *s);

/* The SaverDef fields.  Strings are borrowed, valid while the saver
 * lives: filename_tensor_name ("save/Const:0"), save_tensor_name
 * ("save/control_dependency:0", sharded "save/Identity:0"),
 * restore_op_name ("save/restore_all"). */
TFS_API const char *tfs_saver_filename_tensor_name(const tfs_saver *s);
TFS_API const char *tfs_saver_save_tensor_name(const tfs_saver *s);
TFS_API const char *tfs_saver_restore_op_name(const tfs_saver *s);
TFS_API int tfs_saver_max_to_keep(const tfs_saver *s);
TFS_API int tfs_saver_sharded(const tfs_saver *s);
TFS_API float tfs_saver_keep_every_n_hours(const tfs_saver *s);
/* SaverDef.version: 2 (V2). */
TFS_API int tfs_saver_version(const tfs_saver *s);

/* The SaverDef proto's bytes (what tf.train.Saver.as_saver_def()
 * serializes to) into `out`, which must be empty. */
TFS_API void tfs_saver_to_saver_def(const tfs_saver *s, tfs_buffer *out,
                                    tfs_status *st);

/* ---- saving and restoring ----------------------------------------------- */

/* Saver.save(sess, save_path, global_step, latest_filename, write_state):
 * runs the save tensor feeding the prefix save_path, or
 * "save_path-STEP" when global_step is not NULL, and returns the saved
 * prefix (malloc'd, caller frees with free(); NULL on error).  With
 * write_state, the prefix becomes the newest of the saver's recent
 * checkpoints, the state file latest_filename (NULL: "checkpoint") in
 * save_path's directory is rewritten and the oldest recent checkpoint
 * beyond max_to_keep is deleted (.index, data files, .meta).  No .meta
 * file is written.  Errors: "'latest_filename' must not contain path
 * components", "'latest_filename' collides with 'save_path': 'L' and
 * 'P'", "Parent directory of P doesn't exist, can't save.", the
 * session's errors. */
TFS_API char *tfs_saver_save(tfs_saver *s, tfs_session *sess,
                             const char *save_path,
                             const int64_t *global_step,
                             const char *latest_filename, int write_state,
                             tfs_status *st);

/* Saver.restore(sess, save_path): runs the restore op feeding save_path.
 * INVALID_ARGUMENT "Can't load save_path when it is None." (NULL), "The
 * passed save_path is not a valid checkpoint: P" (no P.index nor P);
 * a NOT_FOUND error of the run (a key missing from the checkpoint) is
 * prefixed "Restoring from checkpoint failed. This is most likely due to
 * a Variable name or other graph key that is missing from the
 * checkpoint. Please ensure that you have not altered the graph expected
 * based on the checkpoint. Original error:\n\n", an INVALID_ARGUMENT one
 * the same with "a mismatch between the current graph and the graph". */
TFS_API void tfs_saver_restore(tfs_saver *s, tfs_session *sess,
                               const char *save_path, tfs_status *st);

/* The saver's recent checkpoints, oldest first (Saver.last_checkpoints).
 * Borrowed: valid until the next save or recover. */
TFS_API int tfs_saver_num_last_checkpoints(const tfs_saver *s);
TFS_API const char *tfs_saver_last_checkpoint(const tfs_saver *s, int i);

/* Saver.recover_last_checkpoints(paths): the list becomes those of
 * paths[0..n) that still exist on disk (copied). */
TFS_API void tfs_saver_recover_last_checkpoints(tfs_saver *s,
                                                const char *const *paths,
                                                int n, tfs_status *st);

/* ---- the checkpoint state file ---------------------------------------- */

typedef struct tfs_checkpoint_state tfs_checkpoint_state;

/* tf.train.get_checkpoint_state(dir, latest_filename): reads
 * DIR/latest_filename (NULL: "checkpoint").  Relative paths in it are
 * joined to dir.  Returns NULL with an OK status when there is no such
 * file or it does not parse (TensorFlow returns None), INVALID_ARGUMENT
 * "Invalid checkpoint state loaded from DIR" when it names no model
 * checkpoint path.  Caller frees with tfs_checkpoint_state_free. */
TFS_API tfs_checkpoint_state *tfs_checkpoint_state_read(
    const char *dir, const char *latest_filename, tfs_status *st);
TFS_API void tfs_checkpoint_state_free(tfs_checkpoint_state *c);
/* Borrowed strings, valid while c lives; i out of range: NULL. */
TFS_API const char *tfs_checkpoint_state_model_path(
    const tfs_checkpoint_state *c);
TFS_API int tfs_checkpoint_state_num_paths(const tfs_checkpoint_state *c);
TFS_API const char *tfs_checkpoint_state_path(const tfs_checkpoint_state *c,
                                              int i);

/* tf.compat.v1.train.update_checkpoint_state: writes DIR/latest_filename
 * (NULL: "checkpoint") atomically with model_path and paths[0..n)
 * (model_path appended when it is not the last), paths made relative to
 * dir when dir is relative.  RuntimeError's message as INVALID_ARGUMENT
 * when the state file would be model_path itself ("Save path 'P'
 * conflicts with path used for checkpoint state.  Please use a different
 * save path."). */
TFS_API void tfs_checkpoint_state_write(const char *dir,
                                        const char *model_path,
                                        const char *const *paths, int n,
                                        const char *latest_filename,
                                        tfs_status *st);

/* tf.train.latest_checkpoint(dir, latest_filename): the state file's
 * model checkpoint path when PATH.index (or PATH) exists, else NULL (and
 * OK).  malloc'd; caller frees with free(). */
TFS_API char *tfs_latest_checkpoint(const char *dir,
                                    const char *latest_filename,
                                    tfs_status *st);

TFS_END_DECLS

#endif /* TFSESS_SAVER_H */
