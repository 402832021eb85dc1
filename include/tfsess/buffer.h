/*
 * tfsess/buffer.h - a block of bytes with an optional deallocator: how
 * serialized protos (GraphDef, ConfigProto, RunOptions, RunMetadata) go in
 * and out.  Same layout as TensorFlow's TF_Buffer, and a public struct:
 * callers may fill the three fields themselves.
 */
#ifndef TFSESS_BUFFER_H
#define TFSESS_BUFFER_H

#include "common.h"

TFS_BEGIN_DECLS

typedef struct tfs_buffer {
  const void *data;
  size_t length;
  void (*data_deallocator)(void *data, size_t length);
} tfs_buffer;

/* Returns a new empty buffer {NULL, 0, NULL}; caller frees with
 * tfs_buffer_free.  NULL only when memory runs out. */
TFS_API tfs_buffer *tfs_buffer_new(void);

/* Returns a new buffer holding a copy of data[0..len) (freed by
 * tfs_buffer_free). */
TFS_API tfs_buffer *tfs_buffer_new_copy(const void *data, size_t len);

/* Calls data_deallocator(data, length) when set, then frees the struct.
 * Accepts NULL. */
TFS_API void tfs_buffer_free(tfs_buffer *b);

TFS_END_DECLS

#endif /* TFSESS_BUFFER_H */
