/*
 * mpi/mpi_exec.c - runs the collectives the ranks agreed on, in the
 * agreed order.  Allreduces of the same dtype, reduce op and factors that
 * became ready in the same tick share one buffer and one ring allreduce
 * (mpi_ring.c; half and bfloat16 reduced as float), up to the fusion
 * threshold; a grouped allreduce always goes out whole.
 */
#include "tfs_config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "mpi/mpi_engine.h"

#define CHUNK_BYTES (1LL << 30) /* at most this per MPI call */

static int64_t elems(const tfs_shape *s) {
  int64_t n = 1;
  for (int i = 0; i < s->rank; i++) n *= s->dims[i];
  return n;
}

/* Wire bytes of an allreduce entry. */
static int64_t wire_bytes(const tfs_mpi_entry *en) {
  const tfs_mpi_desc *d = en->descs[0];
  int64_t n = 0;
  for (int i = 0; i < d->n; i++) n += elems(&d->shapes[i]);
  return n * (int64_t)tfs_dtype_size(tfs_mpi__wire_dtype(d->dtype));
}

static int fusable(const tfs_mpi_desc *a, const tfs_mpi_desc *b) {
  return b->kind == TFS_MPI__ALLREDUCE && a->dtype == b->dtype &&
         a->op == b->op && a->pre == b->pre && a->post == b->post;
}

/* The ring allreduce over buf in chunks of at most CHUNK_BYTES. */
static int reduce_buffer(tfs_mpi_engine *e, void *buf, int64_t n,
                         tfs_dtype wire, int op) {
  size_t ws = tfs_dtype_size(wire);
  int64_t step = CHUNK_BYTES / (int64_t)ws;
  for (int64_t off = 0; off < n; off += step) {
    int cnt = (int)(n - off < step ? n - off : step);
    int rc = tfs_mpi__ring_allreduce(e, (char *)buf + off * (int64_t)ws, cnt,
                                     wire, op);
    if (rc != MPI_SUCCESS) return rc;
    atomic_fetch_add(&e->reduce_calls, 1);
  }
  return MPI_SUCCESS;
}

/* Allocates a request's outputs in the shapes of its inputs. */
static tfs_code alloc_outputs(tfs_mpi_req *r, tfs_status *st) {
  for (int i = 0; i < r->n; i++) {
    tfs_dtype dt = tfs_tensor_dtype(r->in[i]);
    r->out[i] = tfs_tensor_new(dt, tfs_tensor_dims(r->in[i]),
                               tfs_tensor_ndims(r->in[i]), st);
    if (!r->out[i]) return tfs_status_code(st);
  }
  return TFS_OK;
}

/* One tensor reduced in its own output (no fusion buffer). */
static int reduce_alone(tfs_mpi_engine *e, tfs_mpi_entry *en,
                        tfs_status *st) {
  tfs_mpi_req *r = en->local;
  tfs_dtype dt = en->descs[0]->dtype;
  int64_t n = tfs_tensor_num_elements(r->in[0]);
  tfs_code code = alloc_outputs(r, st);
  void *buf = r->out[0] ? tfs_tensor_data(r->out[0]) : NULL;
  int rc;
  if (!buf) {
    /* still take part: reduce a copy the other ranks can count on */
    buf = malloc((size_t)n * tfs_dtype_size(dt) + 1);
    if (!buf) return MPI_ERR_NO_MEM;
  }
  memcpy(buf, tfs_tensor_data(r->in[0]), (size_t)n * tfs_dtype_size(dt));
  rc = reduce_buffer(e, buf, n, dt, en->descs[0]->op);
  if (code != TFS_OK) free(buf);
  if (rc != MPI_SUCCESS) return rc;
  if (code == TFS_OK) tfs_mpi__from_wire(dt, buf, n, r->post, buf);
  atomic_fetch_add(&e->bytes, (int64_t)tfs_tensor_byte_size(r->in[0]));
  atomic_fetch_add(&e->collectives, 1);
  tfs_mpi__complete(e, r, code, code == TFS_OK ? NULL : tfs_status_message(st));
  return MPI_SUCCESS;
}

/* Grows the fusion buffer to bytes. */
static int fusion_reserve(tfs_mpi_engine *e, size_t bytes) {
  if (bytes <= e->fusion_cap) return 0;
  free(e->fusion);
  e->fusion = malloc(bytes);
  e->fusion_cap = e->fusion ? bytes : 0;
  return e->fusion ? 0 : -1;
}

/* One block of memory that several output tensors share. */
typedef struct shared_block {
  _Atomic int refs;
  void *mem;
  size_t size;
} shared_block;

/* The last block every output let go of, kept for the next fused
 * allreduce so that its pages are mapped already (as a caching
 * allocator keeps them); only while the engine runs. */
static pthread_mutex_t cache_mu = PTHREAD_MUTEX_INITIALIZER;
static void *cache_mem;
static size_t cache_size;
static int cache_open;

/* A block of at least `size` bytes: the cached one when it is not much
 * larger, else a new one.  NULL when memory runs out. */
static void *block_get(size_t size, size_t *got) {
  void *mem = NULL;
  pthread_mutex_lock(&cache_mu);
  if (cache_mem && cache_size >= size && cache_size / 2 <= size + 4096) {
    mem = cache_mem;
    *got = cache_size;
    cache_mem = NULL;
  }
  pthread_mutex_unlock(&cache_mu);
  if (!mem && (mem = tfs_aligned_alloc(size))) *got = size;
  return mem;
}

static void block_put(void *mem, size_t size) {
  pthread_mutex_lock(&cache_mu);
  if (cache_open && (!cache_mem || size > cache_size)) {
    void *old = cache_mem;
    cache_mem = mem;
    cache_size = size;
    mem = old;
  }
  pthread_mutex_unlock(&cache_mu);
  tfs_aligned_free(mem);
}

void tfs_mpi__exec_cache(int open) {
  pthread_mutex_lock(&cache_mu);
  void *old = cache_mem;
  cache_mem = NULL;
  cache_size = 0;
  cache_open = open;
  pthread_mutex_unlock(&cache_mu);
  tfs_aligned_free(old);
}

static void block_release(void *data, size_t len, void *arg) {
  shared_block *b = arg;
  (void)data;
  (void)len;
  if (atomic_fetch_sub(&b->refs, 1) == 1) {
    block_put(b->mem, b->size);
    free(b);
  }
}

#define ALIGN_UP(x) (((x) + TFS_TENSOR_ALIGNMENT - 1) & \
                     ~(int64_t)(TFS_TENSOR_ALIGNMENT - 1))

/* A fused allreduce of dtypes reduced as they are: the inputs are copied
 * (prescaled) into one block that the outputs then share, at 64-byte
 * aligned offsets (the gaps zeroed), and reduced there in place: one copy
 * per tensor, as MPI_Allreduce itself makes.  Returns MPI's code, or
 * MPI_ERR_NO_MEM before anything ran when the block cannot be had. */
static int reduce_in_block(tfs_mpi_engine *e, tfs_mpi_entry **b, int k,
                           tfs_status *st) {
  const tfs_mpi_desc *d0 = b[0]->descs[0];
  tfs_dtype dt = d0->dtype;
  size_t ws = tfs_dtype_size(dt);
  int64_t size = 0, bytes = 0, ntensors = 0;
  for (int j = 0; j < k; j++)
    for (int i = 0; i < b[j]->local->n; i++)
      size += ALIGN_UP((int64_t)tfs_tensor_byte_size(b[j]->local->in[i]));
  shared_block *blk = malloc(sizeof *blk);
  void *mem = blk ? block_get((size_t)size + 1, &blk->size) : NULL;
  if (!mem) {
    free(blk);
    return MPI_ERR_NO_MEM;
  }
  blk->mem = mem;
  atomic_init(&blk->refs, 1); /* this function's, dropped at the end */
  char *p = mem;
  for (int j = 0; j < k; j++) {
    tfs_mpi_req *r = b[j]->local;
    for (int i = 0; i < r->n; i++) {
      size_t nb = tfs_tensor_byte_size(r->in[i]);
      int64_t n = tfs_tensor_num_elements(r->in[i]);
      tfs_mpi__to_wire(dt, tfs_tensor_data(r->in[i]), n, r->pre, p);
      memset(p + nb, 0, (size_t)(ALIGN_UP((int64_t)nb) - (int64_t)nb));
      atomic_fetch_add(&blk->refs, 1);
      r->out[i] = tfs_tensor_wrap(dt, tfs_tensor_dims(r->in[i]),
                                  tfs_tensor_ndims(r->in[i]), p, nb,
                                  block_release, blk, st);
      if (!r->out[i]) atomic_fetch_sub(&blk->refs, 1);
      p += ALIGN_UP((int64_t)nb);
      bytes += (int64_t)nb;
      ntensors++;
    }
  }
  int rc = reduce_buffer(e, mem, size / (int64_t)ws, dt, d0->op);
  if (rc == MPI_SUCCESS) {
    atomic_fetch_add(&e->collectives, k);
    atomic_fetch_add(&e->bytes, bytes);
    if (ntensors > 1) atomic_fetch_add(&e->tensors_fused, ntensors);
  }
  for (int j = 0; j < k && rc == MPI_SUCCESS; j++) {
    tfs_mpi_req *r = b[j]->local;
    int ok = 1;
    for (int i = 0; i < r->n; i++) {
      ok = ok && r->out[i];
      if (r->out[i] && r->post != 1.0)
        tfs_mpi__from_wire(dt, tfs_tensor_data(r->out[i]),
                           tfs_tensor_num_elements(r->out[i]), r->post,
                           tfs_tensor_data(r->out[i]));
    }
    tfs_mpi__complete(e, r, ok ? TFS_OK : TFS_RESOURCE_EXHAUSTED,
                      ok ? NULL : "out of memory wrapping an output");
  }
  block_release(NULL, 0, blk);
  return rc;
}

/* The entries of one fused allreduce: copy in, reduce, copy out. */
static int reduce_fused(tfs_mpi_engine *e, tfs_mpi_entry **b, int k,
                        tfs_status *st) {
  const tfs_mpi_desc *d0 = b[0]->descs[0];
  tfs_dtype dt = d0->dtype, wire = tfs_mpi__wire_dtype(dt);
  size_t ws = tfs_dtype_size(wire);
  int64_t total = 0, ntensors = 0, bytes = 0;
  for (int j = 0; j < k; j++) {
    total += wire_bytes(b[j]) / (int64_t)ws;
    ntensors += b[j]->descs[0]->n;
  }
  if (fusion_reserve(e, (size_t)total * ws + 1) != 0) return MPI_ERR_NO_MEM;
  tfs_code *codes = calloc((size_t)k, sizeof *codes);
  char **msgs = calloc((size_t)k, sizeof *msgs);
  if (!codes || !msgs) {
    free(codes);
    free(msgs);
    return MPI_ERR_NO_MEM;
  }
  char *p = e->fusion;
  for (int j = 0; j < k; j++) {
    tfs_mpi_req *r = b[j]->local;
    tfs_status_clear(st);
    codes[j] = alloc_outputs(r, st);
    if (codes[j] != TFS_OK) msgs[j] = tfs_strdup(tfs_status_message(st));
    for (int i = 0; i < r->n; i++) {
      int64_t n = tfs_tensor_num_elements(r->in[i]);
      tfs_mpi__to_wire(dt, tfs_tensor_data(r->in[i]), n, r->pre, p);
      p += n * (int64_t)ws;
      bytes += (int64_t)tfs_tensor_byte_size(r->in[i]);
    }
  }
  int rc = reduce_buffer(e, e->fusion, total, wire, d0->op);
  if (rc == MPI_SUCCESS) {
    /* counted before a waiter can wake and read them */
    atomic_fetch_add(&e->collectives, k);
    atomic_fetch_add(&e->bytes, bytes);
    if (ntensors > 1) atomic_fetch_add(&e->tensors_fused, ntensors);
  }
  p = e->fusion;
  for (int j = 0; j < k && rc == MPI_SUCCESS; j++) {
    tfs_mpi_req *r = b[j]->local;
    for (int i = 0; i < r->n; i++) {
      int64_t n = tfs_tensor_num_elements(r->in[i]);
      if (codes[j] == TFS_OK)
        tfs_mpi__from_wire(dt, p, n, r->post, tfs_tensor_data(r->out[i]));
      p += n * (int64_t)ws;
    }
    tfs_mpi__complete(e, r, codes[j], msgs[j]);
  }
  for (int j = 0; j < k; j++) free(msgs[j]);
  free(codes);
  free(msgs);
  return rc;
}

/* Concatenates every rank's tensor along dimension 0. */
static int allgather(tfs_mpi_engine *e, tfs_mpi_entry *en, tfs_status *st) {
  tfs_mpi_req *r = en->local;
  const tfs_shape *s0 = &en->descs[e->rank]->shapes[0];
  size_t row = tfs_dtype_size(en->descs[0]->dtype);
  for (int i = 1; i < s0->rank; i++) row *= (size_t)s0->dims[i];
  int *counts = calloc((size_t)e->size * 2, sizeof *counts);
  if (!counts) return MPI_ERR_NO_MEM;
  int64_t dims[TFS_MAX_RANK], total = 0;
  memcpy(dims, s0->dims, sizeof dims);
  for (int q = 0; q < e->size; q++) {
    int64_t d = en->descs[q]->shapes[0].dims[0];
    counts[q] = (int)(d * (int64_t)row);
    counts[e->size + q] = q ? counts[e->size + q - 1] + counts[q - 1] : 0;
    total += d;
  }
  dims[0] = total;
  r->out[0] = tfs_tensor_new(en->descs[0]->dtype, dims, s0->rank, st);
  void *dst = r->out[0] ? tfs_tensor_data(r->out[0])
                        : malloc((size_t)total * row + 1);
  if (!dst) {
    free(counts);
    return MPI_ERR_NO_MEM;
  }
  MPI_Request req;
  int rc = MPI_Iallgatherv(tfs_tensor_data(r->in[0]), counts[e->rank],
                           MPI_BYTE, dst, counts, counts + e->size, MPI_BYTE,
                           e->comm, &req);
  if (rc == MPI_SUCCESS) rc = tfs_mpi__wait(&req);
  free(counts);
  if (!r->out[0]) free(dst);
  if (rc != MPI_SUCCESS) return rc;
  atomic_fetch_add(&e->collectives, 1);
  atomic_fetch_add(&e->bytes, (int64_t)((size_t)total * row));
  tfs_mpi__complete(e, r, tfs_status_code(st),
                    r->out[0] ? NULL : tfs_status_message(st));
  return MPI_SUCCESS;
}

/* The root's tensor to every rank. */
static int broadcast(tfs_mpi_engine *e, tfs_mpi_entry *en, tfs_status *st) {
  tfs_mpi_req *r = en->local;
  int root = en->descs[0]->root;
  size_t bytes = tfs_tensor_byte_size(r->in[0]);
  r->out[0] = e->rank == root ? tfs_tensor_clone(r->in[0], st)
                              : tfs_tensor_new(tfs_tensor_dtype(r->in[0]),
                                               tfs_tensor_dims(r->in[0]),
                                               tfs_tensor_ndims(r->in[0]),
                                               st);
  char *buf = r->out[0] ? tfs_tensor_data(r->out[0]) : malloc(bytes + 1);
  if (!buf) return MPI_ERR_NO_MEM;
  int rc = MPI_SUCCESS;
  for (size_t off = 0; off < bytes && rc == MPI_SUCCESS;
       off += (size_t)CHUNK_BYTES) {
    size_t cnt = bytes - off < (size_t)CHUNK_BYTES ? bytes - off
                                                   : (size_t)CHUNK_BYTES;
    MPI_Request req;
    rc = MPI_Ibcast(buf + off, (int)cnt, MPI_BYTE, root, e->comm, &req);
    if (rc == MPI_SUCCESS) rc = tfs_mpi__wait(&req);
  }
  if (!r->out[0]) free(buf);
  if (rc != MPI_SUCCESS) return rc;
  atomic_fetch_add(&e->collectives, 1);
  atomic_fetch_add(&e->bytes, (int64_t)bytes);
  tfs_mpi__complete(e, r, tfs_status_code(st),
                    r->out[0] ? NULL : tfs_status_message(st));
  return MPI_SUCCESS;
}

/* Collects the allreduces fused with ents[i] into b; marks them taken. */
static int collect_batch(tfs_mpi_engine *e, tfs_mpi_entry **ents, int n,
                         int i, char *taken, tfs_mpi_entry **b) {
  int k = 0;
  int64_t bytes = wire_bytes(ents[i]);
  b[k++] = ents[i];
  taken[i] = 1;
  for (int j = i + 1; j < n && e->fusion_threshold > 0; j++) {
    if (taken[j] || ents[j]->code != TFS_OK ||
        !fusable(ents[i]->descs[0], ents[j]->descs[0]))
      continue;
    int64_t bj = wire_bytes(ents[j]);
    if (bytes + bj > e->fusion_threshold) continue;
    bytes += bj;
    b[k++] = ents[j];
    taken[j] = 1;
  }
  return k;
}

int tfs_mpi__execute(tfs_mpi_engine *e, tfs_mpi_entry **ents, int n) {
  char *taken = calloc((size_t)n + 1, 1);
  tfs_mpi_entry **b = calloc((size_t)n + 1, sizeof *b);
  tfs_status *st = tfs_status_new();
  int rc = taken && b && st ? MPI_SUCCESS : MPI_ERR_NO_MEM;
  for (int i = 0; i < n && rc == MPI_SUCCESS; i++) {
    tfs_mpi_entry *en = ents[i];
    if (taken[i]) continue;
    tfs_status_clear(st);
    if (en->code != TFS_OK) {
      taken[i] = 1;
      if (en->local) tfs_mpi__complete(e, en->local, en->code, en->msg);
      continue;
    }
    const tfs_mpi_desc *d = en->descs[0];
    if (d->kind == TFS_MPI__ALLGATHER) {
      taken[i] = 1;
      rc = allgather(e, en, st);
    } else if (d->kind == TFS_MPI__BROADCAST) {
      taken[i] = 1;
      rc = broadcast(e, en, st);
    } else {
      int k = collect_batch(e, ents, n, i, taken, b);
      if (k == 1 && d->n == 1 && d->pre == 1.0 &&
          tfs_mpi__wire_dtype(d->dtype) == d->dtype) {
        rc = reduce_alone(e, en, st);
      } else if (tfs_mpi__wire_dtype(d->dtype) == d->dtype) {
        rc = reduce_in_block(e, b, k, st);
        if (rc == MPI_ERR_NO_MEM) rc = reduce_fused(e, b, k, st);
      } else {
        rc = reduce_fused(e, b, k, st);
      }
    }
  }
  if (rc != MPI_SUCCESS) {
    tfs_status *err = tfs_status_new();
    tfs_mpi__error(err, "running a collective", rc);
    pthread_mutex_lock(&e->mu);
    if (e->broken == TFS_OK) {
      e->broken = TFS_INTERNAL;
      snprintf(e->broken_msg, sizeof e->broken_msg, "%s",
               err ? tfs_status_message(err) : "MPI failed");
    }
    pthread_mutex_unlock(&e->mu);
    tfs_status_free(err);
    /* what was not run fails too */
    for (int i = 0; i < n; i++)
      if (ents[i]->local && !ents[i]->local->done)
        tfs_mpi__complete(e, ents[i]->local, TFS_INTERNAL, e->broken_msg);
  }
  for (int i = 0; i < n; i++) tfs_mpi__entry_free(ents[i], e->size);
  free(taken);
  free(b);
  tfs_status_free(st);
  return rc == MPI_SUCCESS ? 0 : -1;
}
