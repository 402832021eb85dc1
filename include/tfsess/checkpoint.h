/*
 * tfsess/checkpoint.h - TensorFlow's V2 checkpoints (TensorBundle): a
 * PREFIX.index table of entries (name -> dtype, shape, place in a data
 * file, masked CRC32C) and PREFIX.data-SSSSS-of-NNNNN files holding the
 * tensors back to back.  What tf.train.Saver, tf.train.Checkpoint and
 * SavedModel's variables/ directory write, read and written byte for byte
 * as TensorFlow does.
 *
 * Every file is user input: a malformed or truncated checkpoint gives
 * DATA_LOSS naming the file and what is wrong (TensorFlow's wording),
 * never a crash.  A writer or reader is used by one thread at a time;
 * different ones are independent.
 */
#ifndef TFSESS_CHECKPOINT_H
#define TFSESS_CHECKPOINT_H

#include "common.h"
#include "status.h"
#include "tensor.h"

TFS_BEGIN_DECLS

/* ---- writing ----------------------------------------------------------------
 *
 * One data shard, PREFIX.data-00000-of-00001, written as tensors are added
 * (in that order, as TensorFlow's SaveV2 does), then PREFIX.index with the
 * entries sorted by name.  Both go to temporary files renamed into place
 * by tfs_bundle_writer_finish, so a failed or abandoned save leaves an
 * existing checkpoint at PREFIX as it was.  The directory PREFIX names is
 * created when missing (one level, as TensorFlow's BundleWriter: a
 * missing parent of it is NOT_FOUND "DIR; No such file or directory"). */

typedef struct tfs_bundle_writer tfs_bundle_writer;

/* Starts a checkpoint at `prefix` (copied).  Returns NULL with an error
 * when the data file cannot be created. */
TFS_API tfs_bundle_writer *tfs_bundle_writer_open(const char *prefix,
                                                  tfs_status *st);

/* Appends `t` (not taken) under `key`.  Numeric, bool and string tensors
 * of any shape; INVALID_ARGUMENT for resource and variant tensors and
 * "Adding duplicate key: KEY" for a key added before.  After an error the
 * writer only accepts tfs_bundle_writer_free. */
TFS_API void tfs_bundle_writer_add(tfs_bundle_writer *w, const char *key,
                                   const tfs_tensor *t, tfs_status *st);

/* Appends `t` (not taken) as one slice of the partitioned tensor `key`
 * whose full shape is full_dims[0..rank): per dimension the slice starts
 * at start[d] and is length[d] long, -1 meaning the whole dimension; t's
 * shape must be the slice's.  As TensorFlow's BundleWriter::AddSlice: a
 * slice covering the whole tensor is a plain entry; otherwise the slice
 * is stored under its OrderedCode key and the parent entry `key` (dtype,
 * full shape, the list of slices, no data) gains it.  Slices of one key
 * must agree on dtype and full shape. */
TFS_API void tfs_bundle_writer_add_slice(tfs_bundle_writer *w,
                                         const char *key, int rank,
                                         const int64_t *full_dims,
                                         const int64_t *start,
                                         const int64_t *length,
                                         const tfs_tensor *t, tfs_status *st);

/* Writes the index and renames both files into place. */
TFS_API void tfs_bundle_writer_finish(tfs_bundle_writer *w, tfs_status *st);

/* Frees the writer; an unfinished checkpoint's temporary files are
 * removed.  NULL is a no-op. */
TFS_API void tfs_bundle_writer_free(tfs_bundle_writer *w);

/* ---- reading ------------------------------------------------------------------ */

typedef struct tfs_bundle_reader tfs_bundle_reader;

/* Reads PREFIX.index (the data files are opened on demand).  NOT_FOUND
 * "Unsuccessful TensorSliceReader constructor: Failed to find any
 * matching files for PREFIX" when there is no index, DATA_LOSS for a
 * corrupt one, and TensorFlow's version messages ("Checkpoint ...") for a
 * checkpoint of a newer format. */
TFS_API tfs_bundle_reader *tfs_bundle_reader_open(const char *prefix,
                                                  tfs_status *st);

/* The tensors in the checkpoint, sorted by name (the slices of a
 * partitioned tensor count as the one tensor they make up). */
TFS_API int tfs_bundle_reader_count(const tfs_bundle_reader *r);

/* Name, dtype and shape of tensor i (0 <= i < count).  Borrowed: valid
 * while the reader lives.  *dims gets TFS_MAX_RANK or fewer sizes. */
TFS_API const char *tfs_bundle_reader_name(const tfs_bundle_reader *r, int i);
TFS_API tfs_dtype tfs_bundle_reader_dtype(const tfs_bundle_reader *r, int i);
TFS_API int tfs_bundle_reader_shape(const tfs_bundle_reader *r, int i,
                                    const int64_t **dims);

/* Index of the tensor called `name`, or -1. */
TFS_API int tfs_bundle_reader_find(const tfs_bundle_reader *r,
                                   const char *name);

/* Reads tensor `name` (caller frees), assembling a partitioned tensor
 * from its slices.  NOT_FOUND "Key NAME not found in checkpoint";
 * DATA_LOSS for a size or checksum that does not match the data. */
TFS_API tfs_tensor *tfs_bundle_reader_read(tfs_bundle_reader *r,
                                           const char *name, tfs_status *st);

/* Reads one slice of tensor `name` into `out` (not taken), which must
 * have the tensor's dtype and the slice's shape: per dimension start[d]
 * and length[d] (-1: the whole dimension).  A partitioned tensor's slice
 * is put together from the stored slices it overlaps (INVALID_ARGUMENT
 * "Does not have sufficient slices for partitioned tensor NAME to restore
 * in slice_spec: SLICE" when they do not cover it); a plain tensor's is
 * cut from it. */
TFS_API void tfs_bundle_reader_read_slice(tfs_bundle_reader *r,
                                          const char *name,
                                          const int64_t *start,
                                          const int64_t *length,
                                          tfs_tensor *out, tfs_status *st);

/* Frees the reader and closes its data files.  NULL is a no-op. */
TFS_API void tfs_bundle_reader_free(tfs_bundle_reader *r);

/* ---- merging ------------------------------------------------------------------ */

/* TensorFlow's MergeBundles: merges the checkpoints at prefixes[0..n)
 * into one at `dest`.  Data files are renamed to
 * DEST.data-SSSSS-of-NNNNN, numbered in the order the inputs' entries
 * (key order, input by input) first use them; the merged index lists
 * every entry (a partitioned tensor's slice lists are joined) and the
 * inputs' .index files are deleted.  A missing input is
 * INVALID_ARGUMENT "allow_missing_files was set to false and P did not
 * exist...." unless allow_missing (then skipped; at least one must
 * exist); a tensor in two inputs is "Duplicate tensor keyed by K
 * encountered, when merging prefix: P". */
TFS_API void tfs_bundle_merge(const char *const *prefixes, int n,
                              const char *dest, int allow_missing,
                              tfs_status *st);

TFS_END_DECLS

#endif /* TFSESS_CHECKPOINT_H */
