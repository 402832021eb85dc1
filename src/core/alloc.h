/*
 * core/alloc.h - the allocator every module uses.  Small objects go through
 * tfs_malloc/tfs_free; tensor buffers through tfs_aligned_alloc (64-byte
 * aligned).  A fault-injection hook makes the N-th allocation fail, for
 * tests that prove out-of-memory paths don't crash or leak.
 */
#ifndef TFS_CORE_ALLOC_H
#define TFS_CORE_ALLOC_H

#include <stddef.h>

void *tfs_malloc(size_t n);
void *tfs_calloc(size_t count, size_t n);
void *tfs_realloc(void *p, size_t n);
void tfs_free(void *p);

/* 64-byte aligned memory of at least n bytes (n may be 0); free with
 * tfs_aligned_free. */
void *tfs_aligned_alloc(size_t n);
void tfs_aligned_free(void *p);

/* Fault injection: after this call the `n`-th allocation from now (1-based)
 * fails; 0 turns it off.  Returns the number of allocations counted since
 * the last call.  For tests only; not thread-safe against allocation. */
long tfs_alloc_fail_at(long n);

#endif
