/*
 * mpi/mpi_internal.h - what the MPI modules share inside the library:
 * the engine's stop hook and the communicators.  Only compiled with MPI.
 */
#ifndef TFS_MPI_INTERNAL_H
#define TFS_MPI_INTERNAL_H

#include <mpi.h>

#include "core/status.h"

/* Sets st to INTERNAL with "WHAT: " and MPI's error string for rc. */
void tfs_mpi__error(tfs_status *st, const char *what, int rc);

/* The stop hook the collective engine installs when it starts; the world
 * calls it (with no lock held) when the last reference goes, before
 * MPI_Finalize.  NULL when no engine runs.  Set and read under the
 * world's lock (tfs_mpi__set_stop_hook). */
void tfs_mpi__set_stop_hook(void (*stop)(void));

#endif /* TFS_MPI_INTERNAL_H */
