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

TFS_END_DECLS

#endif /* TFSESS_MPI_H */
