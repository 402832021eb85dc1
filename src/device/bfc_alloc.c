/*
 * device/bfc_alloc.c - the best-fit-with-coalescing caching allocator:
 * regions from a raw backend, chunks in address order within a region,
 * free chunks in size-class bins, split on allocation, coalesced on free.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "core/hashmap.h"
#include "core/log.h"
#include "device/bfc_alloc.h"

#define NBINS 21
#define FIRST_REGION (2u << 20) /* allow_growth starts with 2 MiB */

typedef struct chunk chunk;
typedef struct region region;

struct chunk {
  char *ptr;
  size_t size;
  int in_use;
  chunk *prev, *next;         /* neighbours in the region, by address */
  chunk *bin_prev, *bin_next; /* free list of the chunk's bin */
  region *reg;
};

struct region {
  void *raw;  /* what the backend returned */
  char *base; /* raw rounded up to TFS_BFC_ALIGN */
  size_t size;     /* usable bytes from base */
  size_t reserved; /* bytes taken from the backend */
  chunk *first;
  region *next;
};

struct tfs_bfc {
  pthread_mutex_t mu;
  char name[64];
  tfs_bfc_backend be;
  size_t limit;
  int allow_growth;
  size_t next_region; /* guarded by: mu */
  region *regions;    /* guarded by: mu */
  chunk *bins[NBINS]; /* guarded by: mu */
  tfs_map used;       /* ptr -> chunk in use; guarded by: mu */
  tfs_bfc_stats st;   /* guarded by: mu */
};

static size_t round_up(size_t n) {
  if (n == 0) n = 1;
  return (n + TFS_BFC_ALIGN - 1) & ~(size_t)(TFS_BFC_ALIGN - 1);
}

int tfs_bfc_bin(size_t bytes) {
  size_t units = bytes / TFS_BFC_ALIGN;
  int b = 0;
  while (units > 1 && b < NBINS - 1) {
    units >>= 1;
    b++;
  }
  return b;
}

static void bin_insert(tfs_bfc *a, chunk *c) {
  int b = tfs_bfc_bin(c->size);
  c->bin_prev = NULL;
  c->bin_next = a->bins[b];
  if (a->bins[b]) a->bins[b]->bin_prev = c;
  a->bins[b] = c;
}

static void bin_remove(tfs_bfc *a, chunk *c) {
  int b = tfs_bfc_bin(c->size);
  if (c->bin_prev)
    c->bin_prev->bin_next = c->bin_next;
  else
    a->bins[b] = c->bin_next;
  if (c->bin_next) c->bin_next->bin_prev = c->bin_prev;
  c->bin_prev = c->bin_next = NULL;
}

tfs_bfc *tfs_bfc_new(const char *name, size_t limit, int allow_growth,
                     tfs_bfc_backend backend) {
  tfs_bfc *a = tfs_calloc(1, sizeof *a);
  if (!a) return NULL;
  pthread_mutex_init(&a->mu, NULL);
  snprintf(a->name, sizeof a->name, "%s", name ? name : "bfc");
  a->be = backend;
  a->limit = limit & ~(size_t)(TFS_BFC_ALIGN - 1);
  a->allow_growth = allow_growth;
  a->next_region = allow_growth ? FIRST_REGION : a->limit;
  a->st.limit = (int64_t)a->limit;
  return a;
}

static void free_region(tfs_bfc *a, region *r) {
  chunk *c = r->first;
  while (c) {
    chunk *n = c->next;
    tfs_free(c);
    c = n;
  }
  a->be.raw_free(a->be.ctx, r->raw);
  a->st.reserved -= (int64_t)r->reserved;
  a->st.regions--;
  tfs_free(r);
}

void tfs_bfc_free_all(tfs_bfc *a) {
  if (!a) return;
  while (a->regions) {
    region *r = a->regions;
    a->regions = r->next;
    free_region(a, r);
  }
  tfs_map_free(&a->used);
  pthread_mutex_destroy(&a->mu);
  tfs_free(a);
}

/* Takes a region able to hold `need` bytes (TensorFlow's Extend, with its
 * back-off to 90% when the backend refuses). */
static int extend(tfs_bfc *a, size_t need) {
  size_t avail = a->limit - (size_t)a->st.reserved;
  if (need > avail) return -1;
  size_t want = a->next_region > need ? a->next_region : need;
  if (want == need && need + TFS_BFC_ALIGN <= avail) want += TFS_BFC_ALIGN;
  if (want > avail) want = avail;
  want = round_up(want);
  if (want > avail) want = avail & ~(size_t)(TFS_BFC_ALIGN - 1);
  void *mem = a->be.raw_alloc(a->be.ctx, want);
  while (!mem) {
    size_t smaller = round_up(want / 10 * 9);
    if (smaller < need || smaller >= want) return -1;
    want = smaller;
    mem = a->be.raw_alloc(a->be.ctx, want);
  }
  region *r = tfs_calloc(1, sizeof *r);
  chunk *c = tfs_calloc(1, sizeof *c);
  if (!r || !c) {
    tfs_free(r);
    tfs_free(c);
    a->be.raw_free(a->be.ctx, mem);
    return -1;
  }
  /* Backends that align less (host memory in tests) lose the slack. */
  uintptr_t skip = (TFS_BFC_ALIGN - (uintptr_t)mem % TFS_BFC_ALIGN) %
                   TFS_BFC_ALIGN;
  r->raw = mem;
  r->base = (char *)mem + skip;
  r->size = (want - skip) & ~(size_t)(TFS_BFC_ALIGN - 1);
  r->reserved = want;
  r->first = c;
  r->next = a->regions;
  a->regions = r;
  c->ptr = r->base;
  c->size = r->size;
  c->reg = r;
  bin_insert(a, c);
  a->st.reserved += (int64_t)want;
  a->st.regions++;
  if (a->allow_growth && want >= a->next_region && want < SIZE_MAX / 2)
    a->next_region = want * 2;
  return 0;
}

/* Best fit: the smallest free chunk of the first bin that has one. */
static chunk *find_fit(tfs_bfc *a, size_t size) {
  for (int b = tfs_bfc_bin(size); b < NBINS; b++) {
    chunk *best = NULL;
    for (chunk *c = a->bins[b]; c; c = c->bin_next)
      if (c->size >= size && (!best || c->size < best->size)) best = c;
    if (best) return best;
  }
  return NULL;
}

/* Cuts `c` to `size`, the rest becoming a free chunk. */
static void split(tfs_bfc *a, chunk *c, size_t size) {
  if (c->size - size < TFS_BFC_ALIGN) return;
  chunk *rest = tfs_calloc(1, sizeof *rest);
  if (!rest) return; /* keep the whole chunk */
  rest->ptr = c->ptr + size;
  rest->size = c->size - size;
  rest->reg = c->reg;
  rest->prev = c;
  rest->next = c->next;
  if (c->next) c->next->prev = rest;
  c->next = rest;
  c->size = size;
  bin_insert(a, rest);
}

/* Gives every region with no chunk in use back to the backend. */
static void release_free_regions(tfs_bfc *a) {
  region **pr = &a->regions;
  while (*pr) {
    region *r = *pr;
    if (!r->first->in_use && !r->first->next) {
      bin_remove(a, r->first);
      *pr = r->next;
      free_region(a, r);
    } else {
      pr = &r->next;
    }
  }
}

static chunk *alloc_locked(tfs_bfc *a, size_t size) {
  chunk *c = find_fit(a, size);
  if (!c && extend(a, size) == 0) c = find_fit(a, size);
  if (!c && a->regions) {
    release_free_regions(a);
    if (extend(a, size) == 0) c = find_fit(a, size);
  }
  return c;
}

void *tfs_bfc_alloc(tfs_bfc *a, size_t bytes) {
  size_t size = round_up(bytes);
  if (size < bytes) return NULL; /* overflow */
  pthread_mutex_lock(&a->mu);
  chunk *c = alloc_locked(a, size);
  if (c) {
    bin_remove(a, c);
    split(a, c, size);
    if (tfs_map_put(&a->used, &c->ptr, sizeof c->ptr, c)) {
      bin_insert(a, c);
      c = NULL;
    }
  }
  if (c) {
    c->in_use = 1;
    a->st.in_use += (int64_t)c->size;
    if (a->st.in_use > a->st.peak_in_use) a->st.peak_in_use = a->st.in_use;
    if ((int64_t)c->size > a->st.largest_alloc)
      a->st.largest_alloc = (int64_t)c->size;
    a->st.num_allocs++;
  } else if (tfs_log_enabled(TFS_LOG_WARN)) {
    tfs_log(TFS_LOG_WARN,
            "Allocator (%s) ran out of memory trying to allocate %zu bytes "
            "(in use %lld, reserved %lld, limit %lld)", a->name, size,
            (long long)a->st.in_use, (long long)a->st.reserved,
            (long long)a->st.limit);
  }
  pthread_mutex_unlock(&a->mu);
  return c ? c->ptr : NULL;
}

static void unlink_chunk(chunk *c) {
  if (c->prev)
    c->prev->next = c->next;
  else
    c->reg->first = c->next;
  if (c->next) c->next->prev = c->prev;
}

void tfs_bfc_free(tfs_bfc *a, void *p) {
  if (!p) return;
  char *ptr = p;
  pthread_mutex_lock(&a->mu);
  chunk *c = tfs_map_remove(&a->used, &ptr, sizeof ptr);
  if (!c) {
    pthread_mutex_unlock(&a->mu);
    tfs_log(TFS_LOG_ERROR, "%s: free of unknown pointer %p", a->name, p);
    return;
  }
  c->in_use = 0;
  a->st.in_use -= (int64_t)c->size;
  chunk *n = c->next;
  if (n && !n->in_use) { /* absorb the next chunk */
    bin_remove(a, n);
    c->size += n->size;
    unlink_chunk(n);
    tfs_free(n);
  }
  chunk *pv = c->prev;
  if (pv && !pv->in_use) { /* the previous chunk absorbs this one */
    bin_remove(a, pv);
    pv->size += c->size;
    unlink_chunk(c);
    tfs_free(c);
    c = pv;
  }
  bin_insert(a, c);
  pthread_mutex_unlock(&a->mu);
}

void tfs_bfc_get_stats(tfs_bfc *a, tfs_bfc_stats *out) {
  pthread_mutex_lock(&a->mu);
  *out = a->st;
  pthread_mutex_unlock(&a->mu);
}

const char *tfs_bfc_name(const tfs_bfc *a) { return a->name; }
