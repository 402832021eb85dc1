/*
 * core/buffer.c - byte buffers for serialized protos.
 */
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "tfsess/buffer.h"

tfs_buffer *tfs_buffer_new(void) { return calloc(1, sizeof(tfs_buffer)); }

static void free_bytes(void *data, size_t len) {
  (void)len;
  free(data);
}

tfs_buffer *tfs_buffer_new_copy(const void *data, size_t len) {
  tfs_buffer *b = tfs_buffer_new();
  if (!b) return NULL;
  void *copy = malloc(len ? len : 1);
  if (!copy) {
    free(b);
    return NULL;
  }
  if (len) memcpy(copy, data, len);
  b->data = copy;
  b->length = len;
  b->data_deallocator = free_bytes;
  return b;
}

void tfs_buffer_free(tfs_buffer *b) {
  if (!b) return;
  if (b->data_deallocator) b->data_deallocator((void *)b->data, b->length);
  free(b);
}
