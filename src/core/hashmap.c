/*
 * core/hashmap.c - open addressing with linear probing and tombstones.
 */
#include "core/hashmap.h"

#include "core/alloc.h"

static const char kTomb;
#define TOMB ((const void *)&kTomb)

uint64_t tfs_hash_bytes(const void *p, size_t n, uint64_t seed) {
  /* FNV-1a over 8-byte words, then a final avalanche (splitmix64). */
  const unsigned char *s = p;
  uint64_t h = 0xcbf29ce484222325ULL ^ seed;
  while (n >= 8) {
    uint64_t w;
    memcpy(&w, s, 8);
    h = (h ^ w) * 0x100000001b3ULL;
    h ^= h >> 29;
    s += 8;
    n -= 8;
  }
  while (n--) h = (h ^ *s++) * 0x100000001b3ULL;
  h ^= h >> 30;
  h *= 0xbf58476d1ce4e5b9ULL;
  h ^= h >> 27;
  h *= 0x94d049bb133111ebULL;
  h ^= h >> 31;
  return h;
}

void tfs_map_free(tfs_map *m) {
  tfs_free(m->slots);
  m->slots = NULL;
  m->cap = m->count = m->used = 0;
}

static tfs_map_entry *find(const tfs_map *m, const void *key, size_t klen,
                           uint64_t h, tfs_map_entry **first_free) {
  if (!m->cap) return NULL;
  size_t mask = m->cap - 1;
  *first_free = NULL;
  for (size_t i = h & mask;; i = (i + 1) & mask) {
    tfs_map_entry *e = &m->slots[i];
    if (!e->key) {
      if (!*first_free) *first_free = e;
      return NULL;
    }
    if (e->key == TOMB) {
      if (!*first_free) *first_free = e;
      continue;
    }
    if (e->hash == h && e->klen == klen && memcmp(e->key, key, klen) == 0)
      return e;
  }
}

static int rehash(tfs_map *m, size_t ncap) {
  tfs_map_entry *old = m->slots;
  size_t ocap = m->cap;
  tfs_map_entry *ns = tfs_calloc(ncap, sizeof(*ns));
  if (!ns) return -1;
  m->slots = ns;
  m->cap = ncap;
  m->used = m->count;
  for (size_t i = 0; i < ocap; i++) {
    tfs_map_entry *e = &old[i];
    if (!e->key || e->key == TOMB) continue;
    size_t mask = ncap - 1;
    size_t j = e->hash & mask;
    while (ns[j].key) j = (j + 1) & mask;
    ns[j] = *e;
  }
  tfs_free(old);
  return 0;
}

int tfs_map_put(tfs_map *m, const void *key, size_t klen, void *value) {
  if ((m->used + 1) * 4 >= m->cap * 3) {
    size_t nc = m->cap ? m->cap : 16;
    while ((m->count + 1) * 2 >= nc) nc *= 2;
    if (rehash(m, nc)) return -1;
  }
  uint64_t h = tfs_hash_bytes(key, klen, 0);
  tfs_map_entry *freeslot;
  tfs_map_entry *e = find(m, key, klen, h, &freeslot);
  if (e) {
    e->value = value;
    return 0;
  }
  if (!freeslot->key) m->used++;
  freeslot->key = key;
  freeslot->klen = klen;
  freeslot->hash = h;
  freeslot->value = value;
  m->count++;
  return 0;
}

void *tfs_map_get(const tfs_map *m, const void *key, size_t klen) {
  tfs_map_entry *freeslot;
  tfs_map_entry *e = find(m, key, klen, tfs_hash_bytes(key, klen, 0),
                          &freeslot);
  return e ? e->value : NULL;
}

void *tfs_map_remove(tfs_map *m, const void *key, size_t klen) {
  tfs_map_entry *freeslot;
  tfs_map_entry *e = find(m, key, klen, tfs_hash_bytes(key, klen, 0),
                          &freeslot);
  if (!e) return NULL;
  void *v = e->value;
  e->key = TOMB;
  e->value = NULL;
  m->count--;
  return v;
}

int tfs_map_next(const tfs_map *m, size_t *pos, const tfs_map_entry **e) {
  while (*pos < m->cap) {
    const tfs_map_entry *x = &m->slots[(*pos)++];
    if (x->key && x->key != TOMB) {
      *e = x;
      return 1;
    }
  }
  return 0;
}
