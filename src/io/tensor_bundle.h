/*
 * io/tensor_bundle.h - what the checkpoint writer and reader share: file
 * names of a bundle and the OrderedCode key of a tensor slice.
 */
#ifndef TFS_IO_TENSOR_BUNDLE_H
#define TFS_IO_TENSOR_BUNDLE_H

#include <stddef.h>
#include <stdint.h>

#include "proto/tensor_bundle.pb-c.h"
#include "tfsess/buffer.h"
#include "tfsess/checkpoint.h"

/* "PREFIX.data-SSSSS-of-NNNNN" (malloc'd; NULL when memory runs out). */
char *tfs_bundle__data_name(const char *prefix, int shard, int num_shards);

/* "PREFIX.index" (malloc'd; NULL when memory runs out). */
char *tfs_bundle__index_name(const char *prefix);

/* The index key of a slice of tensor `name`: OrderedCode of 0, the name,
 * the rank and, per dimension, start and length (-1 for a whole
 * dimension).  Writes up to `cap` bytes to out and returns the key's
 * length (more than cap: the key did not fit). */
size_t tfs_bundle__slice_key(const char *name, int rank, const int64_t *start,
                             const int64_t *length, uint8_t *out, size_t cap);

/* Where tensor i's data starts in its shard (-1 for a partitioned
 * tensor, whose data are its slices): sorting by it gives the order the
 * tensors were written in. */
int64_t tfs_bundle__offset(const tfs_bundle_reader *r, int i);

/* Creates the directory `prefix` is in (one level, as TensorFlow's
 * BundleWriter does: an existing one is fine, a missing parent of it is
 * NOT_FOUND "DIR; No such file or directory"). */
int tfs_bundle__make_parent_dir(const char *prefix, tfs_status *st);

/* The header entry's bytes: num_shards, little-endian, producer 1. */
int tfs_bundle__pack_header(int num_shards, tfs_buffer *out, tfs_status *st);

/* The reader's raw index: entries in key order (the header excluded,
 * slice entries included) and the header's shard count. */
int tfs_bundle__num_entries(const tfs_bundle_reader *r);
const Tensorflow__BundleEntryProto *tfs_bundle__entry(
    const tfs_bundle_reader *r, int i, const char **key, size_t *klen);
int tfs_bundle__num_shards(const tfs_bundle_reader *r);

/* ---- shape-and-slice specs ("d0 d1 ... slice") ---- */

typedef struct {
  int rank;
  int64_t dims[TFS_MAX_RANK];   /* the full shape */
  int64_t start[TFS_MAX_RANK];
  int64_t length[TFS_MAX_RANK]; /* -1: the whole dimension */
  int64_t slice_dims[TFS_MAX_RANK];
} tfs_slice_spec;

/* Parses a non-empty spec of `len` bytes with TensorFlow's
 * ParseShapeAndSlice rules and messages (INVALID_ARGUMENT for syntax,
 * INTERNAL "Mismatching ranks" / "Extent in dimension d out of bounds"
 * when the slice does not fit the shape). */
int tfs_slice_spec_parse(const char *s, size_t len, tfs_slice_spec *out,
                         tfs_status *st);

/* TensorSlice::DebugString of (start, length) over rank dims: "-" for a
 * whole dimension, else "start,length", joined with ':'. */
void tfs_slice_str(int rank, const int64_t *start, const int64_t *length,
                   char *buf, size_t cap);

#endif /* TFS_IO_TENSOR_BUNDLE_H */
