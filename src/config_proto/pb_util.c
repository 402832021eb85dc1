/*
 * config_proto/pb_util.c - protobuf-c glue: the allocator, a nesting-depth
 * check run before unpacking (protobuf-c itself recurses without a
 * limit), packing into buffers, and the arena for hand-built messages.
 */
#include "config_proto/pb_util.h"

#include <stdint.h>
#include <string.h>

#include "core/alloc.h"
#include "core/status.h"

/* allocator_data, when set, points at a flag raised on a failed
 * allocation: protobuf-c reports a failed unpack without saying why. */
static void *pb_alloc(void *data, size_t n) {
  void *p = tfs_malloc(n);
  if (!p && data) *(int *)data = 1;
  return p;
}

static void pb_free(void *data, void *p) {
  (void)data;
  tfs_free(p);
}

ProtobufCAllocator tfs_pb__allocator = {pb_alloc, pb_free, NULL};

/* ---- nesting check ------------------------------------------------------- */

static int read_varint(const uint8_t **p, const uint8_t *end, uint64_t *v) {
  uint64_t r = 0;
  for (int shift = 0; shift < 70; shift += 7) {
    if (*p >= end) return -1;
    uint8_t b = *(*p)++;
    if (shift < 64) r |= (uint64_t)(b & 0x7f) << shift;
    if (!(b & 0x80)) {
      *v = r;
      return 0;
    }
  }
  return -1;
}

/* Walks the wire format of `desc` without building anything and fails
 * when messages nest deeper than TFS_PB_MAX_DEPTH or a field is cut off.
 * Recursion is bounded by the depth limit. */
static int check_depth(const ProtobufCMessageDescriptor *desc,
                       const uint8_t *p, const uint8_t *end, int depth,
                       int max_depth) {
  if (depth > max_depth) return -1;
  while (p < end) {
    uint64_t key, v;
    if (read_varint(&p, end, &key)) return -1;
    switch (key & 7) {
      case 0:
        if (read_varint(&p, end, &v)) return -1;
        break;
      case 1:
        if (end - p < 8) return -1;
        p += 8;
        break;
      case 5:
        if (end - p < 4) return -1;
        p += 4;
        break;
      case 2: {
        if (read_varint(&p, end, &v) || v > (uint64_t)(end - p)) return -1;
        const ProtobufCFieldDescriptor *f =
            desc && (key >> 3) <= UINT32_MAX
                ? protobuf_c_message_descriptor_get_field(
                      desc, (unsigned)(key >> 3))
                : NULL;
        if (f && f->type == PROTOBUF_C_TYPE_MESSAGE &&
            check_depth(f->descriptor, p, p + v, depth + 1, max_depth))
          return -1;
        p += v;
        break;
      }
      default:
        return -1; /* groups: protobuf-c does not take them either */
    }
  }
  return 0;
}

ProtobufCMessage *tfs_pb__unpack(const ProtobufCMessageDescriptor *desc,
                                 const void *data, size_t len, int *oom) {
  return tfs_pb__unpack_nested(desc, data, len, TFS_PB_MAX_DEPTH, oom);
}

ProtobufCMessage *tfs_pb__unpack_nested(const ProtobufCMessageDescriptor *desc,
                                        const void *data, size_t len,
                                        int max_depth, int *oom) {
  if (oom) *oom = 0;
  if (len && !data) return NULL;
  if (max_depth <= 0 || max_depth > TFS_PB_MAX_DEPTH)
    max_depth = TFS_PB_MAX_DEPTH;
  static const uint8_t empty[1] = {0};
  const uint8_t *p = len ? data : empty;
  if (check_depth(desc, p, p + len, 1, max_depth)) return NULL;
  int failed = 0;
  ProtobufCAllocator a = {pb_alloc, pb_free, &failed};
  ProtobufCMessage *m = protobuf_c_message_unpack(desc, &a, len, p);
  if (!m && oom) *oom = failed;
  return m;
}

void tfs_pb__free(ProtobufCMessage *m) {
  if (m) protobuf_c_message_free_unpacked(m, &tfs_pb__allocator);
}

/* ---- packing ------------------------------------------------------------- */

int tfs_pb__check_empty(const tfs_buffer *out, tfs_status *st) {
  if (!out || out->data != NULL) {
    tfs_status_set(st, TFS_INVALID_ARGUMENT,
                   "Passing non-empty TF_Buffer is invalid.");
    return -1;
  }
  return 0;
}

static void free_packed(void *data, size_t len) {
  (void)len;
  tfs_free(data);
}

int tfs_pb__pack(const ProtobufCMessage *m, tfs_buffer *out,
                 tfs_status *st) {
  if (tfs_pb__check_empty(out, st)) return -1;
  size_t n = protobuf_c_message_get_packed_size(m);
  if (n > INT32_MAX) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "Cannot serialize protocol buffer of type %s because "
                    "the message is too large (%zu bytes, the limit is "
                    "2147483647)", m->descriptor->name, n);
    return -1;
  }
  uint8_t *buf = tfs_malloc(n ? n : 1);
  if (!buf) {
    TFS_OOM(st);
    return -1;
  }
  size_t w = protobuf_c_message_pack(m, buf);
  if (w != n) {
    tfs_free(buf);
    tfs_status_setf(st, TFS_INTERNAL, "%s packed to %zu bytes, not %zu",
                    m->descriptor->name, w, n);
    return -1;
  }
  out->data = buf;
  out->length = n;
  out->data_deallocator = free_packed;
  tfs_status_clear(st);
  return 0;
}

/* ---- arena --------------------------------------------------------------- */

struct tfs_pb_chunk {
  struct tfs_pb_chunk *next;
  size_t used, cap;
  _Alignas(16) unsigned char mem[];
};

enum { CHUNK_BYTES = 8192 };

void *tfs_pb_arena_alloc(tfs_pb_arena *a, size_t n) {
  if (a->oom) return NULL;
  n = (n + 15) & ~(size_t)15;
  if (n == 0) n = 16;
  struct tfs_pb_chunk *c = a->head;
  if (!c || c->cap - c->used < n) {
    size_t cap = n > CHUNK_BYTES ? n : CHUNK_BYTES;
    if (cap > SIZE_MAX - sizeof(*c)) {
      a->oom = 1;
      return NULL;
    }
    c = tfs_malloc(sizeof(*c) + cap);
    if (!c) {
      a->oom = 1;
      return NULL;
    }
    c->used = 0;
    c->cap = cap;
    if (a->head && cap == n) {
      /* a big block: keep the current chunk for later small ones */
      c->next = a->head->next;
      a->head->next = c;
    } else {
      c->next = a->head;
      a->head = c;
    }
  }
  void *p = c->mem + c->used;
  c->used += n;
  memset(p, 0, n);
  return p;
}

void *tfs_pb_arena_array(tfs_pb_arena *a, size_t n, size_t size) {
  if (size && n > SIZE_MAX / size) {
    a->oom = 1;
    return NULL;
  }
  return tfs_pb_arena_alloc(a, n * size);
}

char *tfs_pb_arena_strndup(tfs_pb_arena *a, const char *s, size_t n) {
  char *d = tfs_pb_arena_alloc(a, n + 1);
  if (d && n) memcpy(d, s, n);
  return d;
}

char *tfs_pb_arena_strdup(tfs_pb_arena *a, const char *s) {
  return tfs_pb_arena_strndup(a, s ? s : "", s ? strlen(s) : 0);
}

void tfs_pb_arena_free(tfs_pb_arena *a) {
  struct tfs_pb_chunk *c = a->head;
  while (c) {
    struct tfs_pb_chunk *next = c->next;
    tfs_free(c);
    c = next;
  }
  a->head = NULL;
  a->oom = 0;
}
