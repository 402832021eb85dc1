/*
 * mpi/mpi_collective.h - the collectives' shared pieces, built with or
 * without MPI: argument checks, the dtype conversions and scaling around a
 * reduction, one rank's local results, and the entry the graph kernels
 * use (initializing MPI lazily under mpirun, else acting as one rank).
 */
#ifndef TFS_MPI_COLLECTIVE_H
#define TFS_MPI_COLLECTIVE_H

#include "core/status.h"
#include "core/tensor.h"
#include "tfsess/mpi.h"

enum {
  TFS_MPI__ALLREDUCE = 0,
  TFS_MPI__ALLGATHER = 1,
  TFS_MPI__BROADCAST = 2
};

/* "allreduce", "allgather" or "broadcast". */
const char *tfs_mpi__kind_name(int kind);

/* Horovod's name of a dtype ("float32", "int64", "bool", ...). */
const char *tfs_mpi__dtype_name(tfs_dtype dt);

/* The dtype a reduction runs in: float for half and bfloat16, else dt. */
tfs_dtype tfs_mpi__wire_dtype(tfs_dtype dt);

/* Converts n elements of dt at src into the wire dtype at dst,
 * multiplying each by scale unless it is 1. */
void tfs_mpi__to_wire(tfs_dtype dt, const void *src, int64_t n,
                      double scale, void *dst);
/* The reverse: n wire elements at src into dt at dst, scaled. */
void tfs_mpi__from_wire(tfs_dtype dt, const void *src, int64_t n,
                        double scale, void *dst);

/* Checks one submission on this rank (kind, name, inputs, reduce op, root
 * against `size` ranks).  Returns 0, or -1 with st set. */
int tfs_mpi__check(int kind, const char *name, const tfs_tensor *const *in,
                   int n, int op, int root, int size, tfs_status *st);

/* The collective on a job of one rank: out[i] = in[i] scaled (allreduce)
 * or a copy.  Returns 0, or -1 with st set (out[] all NULL). */
int tfs_mpi__local(int kind, const tfs_tensor *const *in, int n,
                   double pre, double post, tfs_tensor **out,
                   tfs_status *st);

/* The collective as the graph kernels run it: MPI is initialized on first
 * use when the process was started by mpirun (and finalized at exit),
 * otherwise the process acts as rank 0 of 1.  Arguments as
 * tfs_mpi_grouped_allreduce's, plus kind and root. */
int tfs_mpi__kernel_run(int kind, const char *name,
                        const tfs_tensor *const *in, int n, int op,
                        double pre, double post, int root, tfs_tensor **out,
                        tfs_status *st);

/* For the kernels of HorovodRank and friends: initializes MPI lazily as
 * tfs_mpi__kernel_run does.  Returns 0, or -1 with st set. */
int tfs_mpi__kernel_world(tfs_status *st);

#endif
