/*
 * mpi/mpi_ring.c - the engine's allreduce: a ring over non-blocking
 * point-to-point messages (reduce-scatter, then allgather), waited for
 * with MPI_Test and short sleeps.  Open MPI's MPI_Iallreduce (libnbc)
 * moved about half the bytes per second of its blocking MPI_Allreduce on
 * two ranks here, while the ring, which reduces each chunk once and sends
 * it straight on, matched or beat the blocking call.  Every element is
 * combined in the same order on every rank, so all ranks get the same
 * bits.
 */
#if defined(__GNUC__) && !defined(__clang__)
/* the reduce loops vectorized (gcc -O2 alone leaves them scalar) */
#pragma GCC optimize("tree-vectorize", "vect-cost-model=dynamic")
#endif
#include "tfs_config.h"

#include <stdlib.h>
#include <string.h>

#include "mpi/mpi_engine.h"

#define RING_TAG 0x7f5

#define REDUCE_LOOP(T)                                                    \
  do {                                                                    \
    T *restrict d = dst;                                                  \
    const T *restrict s = src;                                            \
    switch (op) {                                                         \
    case TFS_MPI_MIN:                                                     \
      for (int64_t i = 0; i < n; i++) d[i] = s[i] < d[i] ? s[i] : d[i];   \
      break;                                                              \
    case TFS_MPI_MAX:                                                     \
      for (int64_t i = 0; i < n; i++) d[i] = s[i] > d[i] ? s[i] : d[i];   \
      break;                                                              \
    case TFS_MPI_PRODUCT:                                                 \
      for (int64_t i = 0; i < n; i++) d[i] = (T)(d[i] * s[i]);            \
      break;                                                              \
    default:                                                              \
      for (int64_t i = 0; i < n; i++) d[i] = (T)(d[i] + s[i]);            \
      break;                                                              \
    }                                                                     \
  } while (0)

/* dst[i] = dst[i] op src[i] for n elements of the wire dtype.  Integer
 * sums and products wrap as MPI's do (through unsigned arithmetic for
 * the signed types). */
static void reduce_into(tfs_dtype wire, int op, void *dst, const void *src,
                        int64_t n) {
  int arith = op != TFS_MPI_MIN && op != TFS_MPI_MAX;
  switch (wire) {
  case TFS_FLOAT: REDUCE_LOOP(float); break;
  case TFS_DOUBLE: REDUCE_LOOP(double); break;
  case TFS_INT8:
    if (arith) REDUCE_LOOP(uint8_t); else REDUCE_LOOP(int8_t);
    break;
  case TFS_UINT8: REDUCE_LOOP(uint8_t); break;
  case TFS_INT16:
    if (arith) REDUCE_LOOP(uint16_t); else REDUCE_LOOP(int16_t);
    break;
  case TFS_UINT16: REDUCE_LOOP(uint16_t); break;
  case TFS_INT32:
    if (arith) REDUCE_LOOP(uint32_t); else REDUCE_LOOP(int32_t);
    break;
  case TFS_UINT32: REDUCE_LOOP(uint32_t); break;
  case TFS_INT64:
    if (arith) REDUCE_LOOP(uint64_t); else REDUCE_LOOP(int64_t);
    break;
  default: REDUCE_LOOP(uint64_t); break;
  }
}

/* Sends `sn` bytes at `sb` to the right neighbour and receives `rn` bytes
 * into `rb` from the left one; waits for both. */
static int shift(tfs_mpi_engine *e, const void *sb, int64_t sn, void *rb,
                 int64_t rn) {
  int right = (e->rank + 1) % e->size;
  int left = (e->rank + e->size - 1) % e->size;
  MPI_Request req[2];
  int rc = MPI_Irecv(rb, (int)rn, MPI_BYTE, left, RING_TAG, e->comm, &req[0]);
  if (rc != MPI_SUCCESS) return rc;
  rc = MPI_Isend(sb, (int)sn, MPI_BYTE, right, RING_TAG, e->comm, &req[1]);
  if (rc != MPI_SUCCESS) {
    MPI_Cancel(&req[0]);
    MPI_Request_free(&req[0]);
    return rc;
  }
  rc = tfs_mpi__wait(&req[1]);
  int rc2 = tfs_mpi__wait(&req[0]);
  return rc != MPI_SUCCESS ? rc : rc2;
}

int tfs_mpi__ring_allreduce(tfs_mpi_engine *e, void *buf, int64_t n,
                            tfs_dtype wire, int op) {
  int p = e->size;
  int64_t ws = (int64_t)tfs_dtype_size(wire), base = n / p, extra = n % p;
  /* chunk c: base elements, one more for the first `extra` chunks */
#define CHUNK_OFF(c) ((c) * base + ((c) < extra ? (c) : extra))
#define CHUNK_LEN(c) (base + ((c) < extra ? 1 : 0))
  size_t need = (size_t)((base + 1) * ws);
  if (need > e->scratch_cap) {
    void *s = realloc(e->scratch, need);
    if (!s) return MPI_ERR_NO_MEM;
    e->scratch = s;
    e->scratch_cap = need;
  }
  char *b = buf;
  for (int s = 0; s < p - 1; s++) {
    int sc = ((e->rank - s) % p + p) % p, rcv = (sc + p - 1) % p;
    int rc = shift(e, b + CHUNK_OFF(sc) * ws, CHUNK_LEN(sc) * ws, e->scratch,
                   CHUNK_LEN(rcv) * ws);
    if (rc != MPI_SUCCESS) return rc;
    reduce_into(wire, op, b + CHUNK_OFF(rcv) * ws, e->scratch,
                CHUNK_LEN(rcv));
  }
  /* this rank now holds chunk rank+1 reduced; pass the chunks round */
  for (int s = 0; s < p - 1; s++) {
    int sc = ((e->rank + 1 - s) % p + p) % p, rcv = (sc + p - 1) % p;
    int rc = shift(e, b + CHUNK_OFF(sc) * ws, CHUNK_LEN(sc) * ws,
                   b + CHUNK_OFF(rcv) * ws, CHUNK_LEN(rcv) * ws);
    if (rc != MPI_SUCCESS) return rc;
  }
#undef CHUNK_OFF
#undef CHUNK_LEN
  return MPI_SUCCESS;
}
