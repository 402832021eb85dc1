/*
 * device/bfc_alloc.h - a best-fit-with-coalescing caching allocator (after
 * TensorFlow's BFCAllocator) over a raw allocator such as cudaMalloc:
 * regions taken from the backend are cut into 256-byte aligned chunks kept
 * in power-of-two size-class bins, split on allocation and coalesced on
 * free.  With allow_growth it takes regions as needed (2 MiB, doubling);
 * without, one region of the whole limit at the first allocation.  The
 * backend is pluggable, so tests drive it on host memory.
 */
#ifndef TFS_DEVICE_BFC_ALLOC_H
#define TFS_DEVICE_BFC_ALLOC_H

#include <stddef.h>
#include <stdint.h>

typedef struct tfs_bfc_backend {
  void *(*raw_alloc)(void *ctx, size_t bytes); /* NULL when it cannot */
  void (*raw_free)(void *ctx, void *p);
  void *ctx;
} tfs_bfc_backend;

typedef struct tfs_bfc_stats {
  int64_t in_use;       /* bytes handed out (rounded) */
  int64_t peak_in_use;
  int64_t reserved;     /* bytes taken from the backend */
  int64_t limit;
  int64_t num_allocs;   /* successful allocations so far */
  int64_t largest_alloc;
  int regions;
} tfs_bfc_stats;

typedef struct tfs_bfc tfs_bfc;

#define TFS_BFC_ALIGN 256

/* A new allocator named `name` (for messages, "GPU_0_bfc") that never
 * holds more than `limit` bytes of the backend's memory.  NULL on OOM. */
tfs_bfc *tfs_bfc_new(const char *name, size_t limit, int allow_growth,
                     tfs_bfc_backend backend);

/* Returns every region to the backend; chunks still in use are lost.
 * Accepts NULL. */
void tfs_bfc_free_all(tfs_bfc *a);

/* `bytes` (0 allowed) aligned to TFS_BFC_ALIGN, or NULL when the limit or
 * the backend is exhausted.  Thread-safe. */
void *tfs_bfc_alloc(tfs_bfc *a, size_t bytes);

/* Returns memory from tfs_bfc_alloc (NULL ignored).  Thread-safe. */
void tfs_bfc_free(tfs_bfc *a, void *p);

void tfs_bfc_get_stats(tfs_bfc *a, tfs_bfc_stats *out);

/* The allocator's name. */
const char *tfs_bfc_name(const tfs_bfc *a);

/* The size class (bin) a request of `bytes` falls in: bin b holds chunks
 * of [256 << b, 512 << b) bytes; the last bin holds everything larger. */
int tfs_bfc_bin(size_t bytes);

#endif
