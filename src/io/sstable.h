/*
 * io/sstable.h - the sorted string table of a V2 checkpoint's .index file
 * (LevelDB's table layout as TensorFlow's table library writes it):
 * prefix-compressed data blocks with a restart every 16 keys, an empty
 * metaindex block, an index block with a restart at every key, a 5-byte
 * trailer (type byte, masked CRC32C) after each block, and the 48-byte
 * footer with the magic 0xdb4775248b80fb57.  Blocks are never
 * compressed.  docs/CONTROL_FLOW_CHECKPOINTS.md section 1.2 has the
 * layout.  Builders and readers are used by one thread at a time.
 */
#ifndef TFS_IO_SSTABLE_H
#define TFS_IO_SSTABLE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tfsess/status.h"

/* TensorFlow's default block size for bundle index tables. */
#define TFS_SST_BLOCK_SIZE 262144

typedef struct tfs_sst_builder tfs_sst_builder;

/* A builder writing to `f` (not taken: the caller closes it) from its
 * current position, which must be offset 0 of the table.  NULL when
 * memory runs out. */
tfs_sst_builder *tfs_sst_builder_new(FILE *f, size_t block_size);

/* Adds key -> value; keys must come in strictly increasing memcmp order
 * (the caller sorts them).  Returns 0, or -1 when writing or memory
 * fails. */
int tfs_sst_builder_add(tfs_sst_builder *b, const void *key, size_t klen,
                        const void *val, size_t vlen);

/* Writes the last data block, the metaindex and index blocks and the
 * footer.  Returns 0 or -1 (write error, out of memory). */
int tfs_sst_builder_finish(tfs_sst_builder *b);

void tfs_sst_builder_free(tfs_sst_builder *b);

/* Called for every entry in key order; returns 0 to go on, non-zero to
 * stop (tfs_sst_scan then returns -1 with whatever `st` holds). */
typedef int (*tfs_sst_visit)(void *ctx, const uint8_t *key, size_t klen,
                             const uint8_t *val, size_t vlen);

/* Walks every entry of the table held in data[0..len).  Checks the
 * footer's magic, every block's trailer and CRC and every length;
 * corrupt input is DATA_LOSS "<path>: <what>" in TensorFlow's words
 * ("not an sstable (bad magic number)", "block checksum mismatch", ...).
 * Returns 0 or -1. */
int tfs_sst_scan(const uint8_t *data, size_t len, const char *path,
                 tfs_sst_visit visit, void *ctx, tfs_status *st);

#endif /* TFS_IO_SSTABLE_H */
