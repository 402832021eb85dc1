/*
 * io/tensor_bundle.h - what the checkpoint writer and reader share: file
 * names of a bundle and the OrderedCode key of a tensor slice.
 */
#ifndef TFS_IO_TENSOR_BUNDLE_H
#define TFS_IO_TENSOR_BUNDLE_H

#include <stddef.h>
#include <stdint.h>

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

#endif /* TFS_IO_TENSOR_BUNDLE_H */
