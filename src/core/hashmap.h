/*
 * core/hashmap.h - an open-addressing hash map from byte keys to pointers.
 * Keys are borrowed: the caller keeps each key's bytes alive while it is in
 * the map.  Not thread-safe; callers lock.
 */
#ifndef TFS_CORE_HASHMAP_H
#define TFS_CORE_HASHMAP_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct tfs_map_entry {
  const void *key;
  size_t klen;
  uint64_t hash;
  void *value;
} tfs_map_entry;

typedef struct tfs_map {
  tfs_map_entry *slots; /* key == NULL: empty; key == TOMBSTONE: deleted */
  size_t cap;           /* power of two or 0 */
  size_t count;
  size_t used;          /* count + tombstones */
} tfs_map;

#define TFS_MAP_INIT {NULL, 0, 0, 0}

uint64_t tfs_hash_bytes(const void *p, size_t n, uint64_t seed);

void tfs_map_free(tfs_map *m);
/* Inserts or replaces.  Returns 0, -1 when memory runs out. */
int tfs_map_put(tfs_map *m, const void *key, size_t klen, void *value);
void *tfs_map_get(const tfs_map *m, const void *key, size_t klen);
/* Removes; returns the old value or NULL. */
void *tfs_map_remove(tfs_map *m, const void *key, size_t klen);

static inline int tfs_map_put_str(tfs_map *m, const char *k, void *v) {
  return tfs_map_put(m, k, strlen(k), v);
}
static inline void *tfs_map_get_str(const tfs_map *m, const char *k) {
  return tfs_map_get(m, k, strlen(k));
}

/* Iteration: for (size_t i = 0; tfs_map_next(m, &i, &e);) ... */
int tfs_map_next(const tfs_map *m, size_t *pos, const tfs_map_entry **e);

#endif
