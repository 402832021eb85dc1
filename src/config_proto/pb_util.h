/*
 * config_proto/pb_util.h - what every protobuf-c user in tfsess shares:
 * parsing with a nesting limit and tfsess's allocator (so fault injection
 * reaches the parser), an arena for messages built by hand before they
 * are packed, and packing into a tfs_buffer.
 */
#ifndef TFS_CONFIG_PROTO_PB_UTIL_H
#define TFS_CONFIG_PROTO_PB_UTIL_H

#include <protobuf-c/protobuf-c.h>
#include <stddef.h>

#include "tfsess/buffer.h"
#include "tfsess/status.h"

/* Messages nested deeper than this are refused, as TensorFlow's protobuf
 * parser refuses them (its default recursion limit). */
#define TFS_PB_MAX_DEPTH 100

/* Allocator handed to protobuf-c: tfs_malloc / tfs_free. */
extern ProtobufCAllocator tfs_pb__allocator;

/* Parses `len` bytes as message type `desc`.  Returns the message (free
 * with tfs_pb__free) or NULL when the bytes are malformed, nest deeper
 * than TFS_PB_MAX_DEPTH, or memory runs out (*oom is then set when not
 * NULL).  Unknown fields are kept in the message. */
ProtobufCMessage *tfs_pb__unpack(const ProtobufCMessageDescriptor *desc,
                                 const void *data, size_t len, int *oom);
/* tfs_pb__unpack with a tighter nesting limit: messages nested deeper
 * than max_depth (1..TFS_PB_MAX_DEPTH; other values mean
 * TFS_PB_MAX_DEPTH) are refused. */
ProtobufCMessage *tfs_pb__unpack_nested(const ProtobufCMessageDescriptor *desc,
                                        const void *data, size_t len,
                                        int max_depth, int *oom);
void tfs_pb__free(ProtobufCMessage *m);

/* Fails with INVALID_ARGUMENT "Passing non-empty TF_Buffer is invalid."
 * unless `out` is empty (no data). */
int tfs_pb__check_empty(const tfs_buffer *out, tfs_status *st);

/* Packs `m` into the empty buffer `out`: malloc'd bytes with a deallocator
 * (tfs_buffer_free releases them); data is never NULL, even for 0 bytes.
 * Returns 0, or -1 with an error (non-empty buffer, out of memory, a
 * message over 2 GiB). */
int tfs_pb__pack(const ProtobufCMessage *m, tfs_buffer *out,
                 tfs_status *st);

/* ---- arena for hand-built messages --------------------------------------- */

/* Every allocation lives until tfs_pb_arena_free.  Running out of memory
 * is sticky: later calls return NULL and `oom` stays set. */
typedef struct tfs_pb_arena {
  struct tfs_pb_chunk *head;
  int oom;
} tfs_pb_arena;

#define TFS_PB_ARENA_INIT {NULL, 0}

/* n zeroed bytes, aligned for any type. */
void *tfs_pb_arena_alloc(tfs_pb_arena *a, size_t n);
/* Array of n zeroed elements of `size` bytes (overflow-checked). */
void *tfs_pb_arena_array(tfs_pb_arena *a, size_t n, size_t size);
char *tfs_pb_arena_strdup(tfs_pb_arena *a, const char *s);
char *tfs_pb_arena_strndup(tfs_pb_arena *a, const char *s, size_t n);
void tfs_pb_arena_free(tfs_pb_arena *a);

#endif
