/*
 * mpi/mpi_engine.h - the collective engine's pieces, shared by
 * mpi_engine.c (the thread, its tick, submission and waiting),
 * mpi_negotiate.c (descriptors and the table every rank keeps alike) and
 * mpi_exec.c (running what the ranks agreed on).  Only with MPI.
 */
#ifndef TFS_MPI_ENGINE_H
#define TFS_MPI_ENGINE_H

#include <pthread.h>
#include <stdatomic.h>

#include "core/shape.h"
#include "mpi/mpi_collective.h"
#include "mpi/mpi_internal.h"

/* One submission on this rank, owned by the submitting thread (on its
 * stack) until `done`. */
typedef struct tfs_mpi_req {
  const char *name;
  int kind, op, root, n;
  double pre, post; /* post already divided by the ranks for Average */
  const tfs_tensor *const *in;
  tfs_tensor **out;
  tfs_status *st;
  int done;
  struct tfs_mpi_req *next;
} tfs_mpi_req;

/* One rank's view of a collective, as the negotiation carries it. */
typedef struct tfs_mpi_desc {
  int kind, op, root, n;
  tfs_dtype dtype;
  double pre, post;
  tfs_shape *shapes; /* n */
} tfs_mpi_desc;

/* A name some rank submitted: the same on every rank. */
typedef struct tfs_mpi_entry {
  char *name;
  tfs_mpi_desc **descs; /* per rank, NULL until that rank submits */
  int nhave;
  double t_first;       /* rank 0's clock when first announced */
  tfs_mpi_req *local;   /* this rank's request, or NULL */
  tfs_code code;        /* the decision: OK, or the error for all */
  char *msg;
} tfs_mpi_entry;

typedef struct tfs_mpi_engine {
  MPI_Comm comm;
  int rank, size;
  int64_t fusion_threshold; /* bytes; 0: no fusion */
  double stall_timeout;     /* seconds */
  pthread_t thread;
  pthread_mutex_t mu;
  pthread_cond_t work_cv;   /* the thread waits for submissions */
  pthread_cond_t done_cv;   /* submitters wait for completion */
  tfs_mpi_req *incoming;    /* submitted, not yet announced (under mu) */
  int stopping;             /* this rank asked to stop (under mu) */
  int stopped;              /* the thread ended (under mu) */
  tfs_code broken;          /* an MPI call failed: everything fails */
  char broken_msg[512];
  /* the engine thread's own */
  tfs_mpi_entry **table;
  int ntable, captable;
  unsigned char *stopped_ranks; /* per rank: asked to stop */
  void *fusion;
  size_t fusion_cap;
  void *scratch;            /* the ring's receive buffer */
  size_t scratch_cap;
  _Atomic int64_t collectives, reduce_calls, tensors_fused, bytes, ticks;
} tfs_mpi_engine;

/* Starts the engine on a world of more than one rank (collective: dups
 * MPI_COMM_WORLD) and installs its stop hook.  Returns 0 or -1 with st
 * set. */
int tfs_mpi__engine_start(tfs_status *st);

/* Submits one collective (already checked) and waits for it.  Returns 0,
 * or -1 with st set and out[] NULL. */
int tfs_mpi__engine_submit(int kind, const char *name,
                           const tfs_tensor *const *in, int n, int op,
                           double pre, double post, int root,
                           tfs_tensor **out, tfs_status *st);

/* Adds the engine's counters to *out. */
void tfs_mpi__engine_stats(tfs_mpi_stats *out);

/* Completes a request on this rank (code OK or an error with msg);
 * takes mu. */
void tfs_mpi__complete(tfs_mpi_engine *e, tfs_mpi_req *r, tfs_code code,
                       const char *msg);

/* Waits for a non-blocking MPI request with MPI_Test and short sleeps.
 * Returns MPI's code. */
int tfs_mpi__wait(MPI_Request *req);

/* ---- mpi_negotiate.c ---- */

/* Appends r's descriptor to the growing buffer *buf (*len, *cap).
 * Returns 0 or -1 when memory runs out. */
int tfs_mpi__encode(const tfs_mpi_req *r, unsigned char **buf, size_t *len,
                    size_t *cap);

/* Adds rank `from`'s descriptors in body[0..len) to the table; `mine`
 * lists this rank's requests in the order they were encoded when `from`
 * is this rank.  Returns 0, or -1 when the body does not parse or memory
 * runs out (st set). */
int tfs_mpi__table_add(tfs_mpi_engine *e, int from, const unsigned char *body,
                       size_t len, double clock, tfs_mpi_req **mine,
                       tfs_status *st);

/* The entry of `name`, or NULL. */
tfs_mpi_entry *tfs_mpi__table_find(tfs_mpi_engine *e, const char *name);

/* Takes out of the table, sorted by name, the entries this tick decides:
 * those every rank submitted (checked: a disagreement sets code and msg),
 * those a stopped rank will never submit (ABORTED) and those past the
 * stall timeout (DEADLINE_EXCEEDED).  *out is malloc'd (free it); returns
 * the count, or -1 when memory runs out. */
int tfs_mpi__decide(tfs_mpi_engine *e, double clock, tfs_mpi_entry ***out);

void tfs_mpi__entry_free(tfs_mpi_entry *en, int size);

/* ---- mpi_ring.c ---- */

/* Reduces n elements of the wire dtype at buf over the ranks, in place
 * (a ring of non-blocking sends and receives; n * size of the dtype at
 * most 1 GiB).  Returns MPI's code. */
int tfs_mpi__ring_allreduce(tfs_mpi_engine *e, void *buf, int64_t n,
                            tfs_dtype wire, int op);

/* ---- mpi_exec.c ---- */

/* Runs the decided entries in order (fusing allreduces), completes their
 * local requests and frees them.  Returns 0, or -1 when MPI failed (the
 * engine is broken; its message in e->broken_msg). */
int tfs_mpi__execute(tfs_mpi_engine *e, tfs_mpi_entry **ents, int n);

/* Opens (1, at engine start) or closes (0, at its end) the cache of the
 * fused outputs' memory, freeing what it holds. */
void tfs_mpi__exec_cache(int open);

#endif
