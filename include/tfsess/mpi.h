/*
 * tfsess/mpi.h - running over the ranks of an MPI job: the world (rank,
 * size, initialization) and Horovod-style collectives on tensors.
 *
 * tfsess uses the MPI library it was configured with (--with-mpi, Open
 * MPI); a build without MPI keeps these functions: tfs_mpi_built() is 0,
 * tfs_mpi_init fails with UNIMPLEMENTED, and a process is rank 0 of 1.
 *
 * MPI is initialized with MPI_THREAD_MULTIPLE (tfsess's collective engine
 * runs MPI on a thread of its own while the program may call MPI too)
 * unless the program initialized MPI itself, in which case tfsess uses it
 * as it is, needs MPI_THREAD_MULTIPLE from it and never finalizes it.
 * Every rank must call tfs_mpi_init and tfs_mpi_finalize the same number
 * of times (they are collective over MPI_COMM_WORLD).
 */
#ifndef TFSESS_MPI_H
#define TFSESS_MPI_H

#include "common.h"
#include "status.h"
#include "tensor.h"

TFS_BEGIN_DECLS

/* Returns 1 when this tfsess was built with MPI, else 0.  Thread-safe. */
TFS_API int tfs_mpi_built(void);

/* Returns 1 when this process was started by an MPI launcher (mpirun,
 * mpiexec or a batch system's srun: OMPI_COMM_WORLD_SIZE, PMI_SIZE or
 * PMIX_RANK is set), whether or not MPI is initialized yet, else 0.
 * Thread-safe. */
TFS_API int tfs_mpi_launched(void);

/* Initializes MPI for tfsess (see the file comment).  Reference counted:
 * every successful call is matched by one tfs_mpi_finalize.  Errors:
 * UNIMPLEMENTED (built without MPI), FAILED_PRECONDITION (the MPI library
 * gives less than MPI_THREAD_MULTIPLE, or MPI was already finalized: it
 * cannot be initialized twice in one process), INTERNAL (MPI failed; the
 * message carries MPI's error string).  Thread-safe, but collective: all
 * ranks call it. */
TFS_API void tfs_mpi_init(tfs_status *st);

/* Drops one reference.  The last one stops the collective engine (after
 * every rank stopped submitting; collectives still waiting fail with
 * ABORTED) and finalizes MPI when tfs_mpi_init initialized it.  Calling
 * it without a matching tfs_mpi_init does nothing.  Collective. */
TFS_API void tfs_mpi_finalize(void);

/* Returns 1 between a successful tfs_mpi_init and its last
 * tfs_mpi_finalize, else 0.  Thread-safe. */
TFS_API int tfs_mpi_initialized(void);

/* This process's rank in MPI_COMM_WORLD and the number of ranks (0 and 1
 * when MPI is not initialized).  The local ones count the ranks on this
 * host (MPI_COMM_TYPE_SHARED).  Thread-safe. */
TFS_API int tfs_mpi_rank(void);
TFS_API int tfs_mpi_size(void);
TFS_API int tfs_mpi_local_rank(void);
TFS_API int tfs_mpi_local_size(void);

/* ---- collectives (Horovod's semantics) -----------------------------------
 *
 * Each collective has a name that must be the same on every rank (a graph
 * op uses its node name, as Horovod does); the ranks may submit their
 * collectives in any order and from any number of threads at once.  A
 * background thread per process (started by tfs_mpi_init when the job has
 * more than one rank) agrees with the other ranks on which collectives
 * every rank has submitted, runs them in the same order everywhere, and
 * fuses allreduces of the same dtype, reduce op and scale factors into one
 * allreduce (up to TFS_MPI_FUSION_THRESHOLD bytes, default 64 MiB; 0 turns
 * fusion off).  One rank of one (size 1) computes locally: allreduce is
 * the input scaled, allgather and broadcast copy it.
 *
 * Errors of every collective: UNIMPLEMENTED (built without MPI; Adasum),
 * FAILED_PRECONDITION (tfs_mpi_init was not called), INVALID_ARGUMENT (a
 * dtype the collective does not take, a bad reduce op or root rank, a
 * name already in flight on this rank; and on every rank when the ranks
 * disagree on the collective's kind, dtype, shape, reduce op, factors or
 * root, in Horovod's words: "Mismatched allreduce tensor shapes: One rank
 * sent a tensor of shape [2,3], but another rank sent a tensor of shape
 * [3,3]."), DEADLINE_EXCEEDED (some ranks submitted the name and others
 * did not within TFS_MPI_STALL_TIMEOUT seconds, default 60, measured on
 * rank 0's clock; the message names the collective and the missing
 * ranks), ABORTED (a rank stopped its engine, tfs_mpi_finalize, before
 * submitting the name), INTERNAL (MPI failed).
 *
 * Every collective blocks until it is done on this rank, takes its input
 * tensors as borrowed (read while the call runs), and returns new tensors
 * (release with tfs_tensor_free) or NULL on error.  Thread-safe. */

/* Horovod's reduce ops, with Horovod's numbers. */
typedef enum tfs_mpi_reduce_op {
  TFS_MPI_AVERAGE = 0, /* the sum divided by the number of ranks */
  TFS_MPI_SUM = 1,
  TFS_MPI_ADASUM = 2,  /* Horovod's number, kept so graphs name it; this
                        * engine refuses it (UNIMPLEMENTED, naming the
                        * collective): only the exact reductions run */
  TFS_MPI_MIN = 3,
  TFS_MPI_MAX = 4,
  TFS_MPI_PRODUCT = 5
} tfs_mpi_reduce_op;

/* Reduces `t` over the ranks: every element is multiplied by
 * `prescale` before the reduction and by `postscale` after it (pass 1 and
 * 1 for none; integer results round toward zero).  dtypes: float,
 * double, half and bfloat16 (reduced as float), int8, uint8, int16,
 * uint16, int32, uint32, int64, uint64. */
TFS_API tfs_tensor *tfs_mpi_allreduce(const char *name, const tfs_tensor *t,
                                      tfs_mpi_reduce_op op, double prescale,
                                      double postscale, tfs_status *st);

/* Reduces n tensors together, as one collective (Horovod's grouped
 * allreduce: they always go out in the same fused MPI call).  On success
 * out[0..n) receive new tensors; on error they are all NULL.  Returns 0,
 * or -1 with st set. */
TFS_API int tfs_mpi_grouped_allreduce(const char *name,
                                      const tfs_tensor *const *ts, int n,
                                      tfs_mpi_reduce_op op, double prescale,
                                      double postscale, tfs_tensor **out,
                                      tfs_status *st);

/* Concatenates every rank's `t` along dimension 0, in rank order.  The
 * ranks' tensors must agree on dtype, rank (>= 1) and every dimension but
 * the first.  Any dtype of fixed size (bool included). */
TFS_API tfs_tensor *tfs_mpi_allgather(const char *name, const tfs_tensor *t,
                                      tfs_status *st);

/* Rank `root`'s `t` on every rank (each rank passes a tensor of the same
 * dtype and shape; only the root's values matter).  Any dtype of fixed
 * size. */
TFS_API tfs_tensor *tfs_mpi_broadcast(const char *name, const tfs_tensor *t,
                                      int root, tfs_status *st);

/* What the engine did since tfs_mpi_init, for tests and benchmarks. */
typedef struct tfs_mpi_stats {
  int64_t collectives;     /* collectives completed (a group counts one) */
  int64_t reduce_calls;    /* allreduces run over MPI (one per fused
                              buffer) */
  int64_t tensors_fused;   /* tensors that shared an allreduce call */
  int64_t bytes;           /* bytes of tensors the collectives moved */
  int64_t ticks;           /* negotiation rounds with the other ranks */
} tfs_mpi_stats;

/* Copies the counters into *out (all 0 without an engine).  Thread-safe. */
TFS_API void tfs_mpi_get_stats(tfs_mpi_stats *out);

TFS_END_DECLS

#endif /* TFSESS_MPI_H */
