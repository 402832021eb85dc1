/*
 * mpi/mpi_world.c - MPI's world for tfsess: initialization (reference
 * counted, MPI_THREAD_MULTIPLE), rank and size, and the hook that stops
 * the collective engine before MPI is finalized.
 *
 * Without MPI the same functions say so: built 0, init UNIMPLEMENTED,
 * rank 0 of 1.
 */
#include "tfs_config.h"

#include <pthread.h>
#include <stdlib.h>

#include "core/status.h"
#include "tfsess/mpi.h"

#ifdef TFS_HAVE_MPI
#include "mpi/mpi_engine.h"
#include "mpi/mpi_internal.h"
#endif

int tfs_mpi_launched(void) {
  static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE",
                                     "PMIX_RANK", "MPI_LOCALNRANKS"};
  for (size_t i = 0; i < sizeof vars / sizeof *vars; i++) {
    const char *v = getenv(vars[i]);
    if (v && *v) return 1;
  }
  return 0;
}

#ifndef TFS_HAVE_MPI

int tfs_mpi_built(void) { return 0; }
void tfs_mpi_init(tfs_status *st) {
  tfs_status_set(st, TFS_UNIMPLEMENTED,
                 "tfsess was built without MPI (configure --with-mpi)");
}
void tfs_mpi_finalize(void) {}
int tfs_mpi_initialized(void) { return 0; }
int tfs_mpi_rank(void) { return 0; }
int tfs_mpi_size(void) { return 1; }
int tfs_mpi_local_rank(void) { return 0; }
int tfs_mpi_local_size(void) { return 1; }

#else

static pthread_mutex_t world_mu = PTHREAD_MUTEX_INITIALIZER;
static int world_refs;        /* successful inits not yet finalized */
static int world_owns_mpi;    /* tfs_mpi_init called MPI_Init_thread */
static int world_finalized;   /* MPI was finalized by tfsess */
static int world_rank, world_size = 1, world_local_rank,
           world_local_size = 1;
static void (*world_stop)(void);

int tfs_mpi_built(void) { return 1; }

void tfs_mpi__error(tfs_status *st, const char *what, int rc) {
  char msg[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (MPI_Error_string(rc, msg, &len) != MPI_SUCCESS || len <= 0)
    len = 0;
  msg[len < MPI_MAX_ERROR_STRING ? len : MPI_MAX_ERROR_STRING - 1] = 0;
  tfs_status_setf(st, TFS_INTERNAL, "%s: %s (MPI error %d)", what,
                  len ? msg : "unknown error", rc);
}

void tfs_mpi__set_stop_hook(void (*stop)(void)) {
  pthread_mutex_lock(&world_mu);
  world_stop = stop;
  pthread_mutex_unlock(&world_mu);
}

/* MPI_Init_thread (unless the program did it), then rank, size and the
 * ranks on this host.  Called with world_mu held. */
static void world_start(tfs_status *st) {
  int inited = 0, finalized = 0, provided = 0, rc;
  MPI_Initialized(&inited);
  MPI_Finalized(&finalized);
  if (finalized || world_finalized) {
    tfs_status_set(st, TFS_FAILED_PRECONDITION,
                   "MPI was finalized; it cannot be initialized again in "
                   "one process");
    return;
  }
  if (!inited) {
    rc = MPI_Init_thread(NULL, NULL, MPI_THREAD_MULTIPLE, &provided);
    if (rc != MPI_SUCCESS) {
      tfs_mpi__error(st, "MPI_Init_thread", rc);
      return;
    }
    world_owns_mpi = 1;
  } else {
    MPI_Query_thread(&provided);
  }
  if (provided < MPI_THREAD_MULTIPLE) {
    tfs_status_setf(st, TFS_FAILED_PRECONDITION,
                    "the MPI library provides thread level %d; tfsess "
                    "needs MPI_THREAD_MULTIPLE (%d)",
                    provided, MPI_THREAD_MULTIPLE);
    if (world_owns_mpi) {
      MPI_Finalize();
      world_owns_mpi = 0;
      world_finalized = 1;
    }
    return;
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world_size);
  MPI_Comm local;
  rc = MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, world_rank,
                           MPI_INFO_NULL, &local);
  if (rc == MPI_SUCCESS) {
    MPI_Comm_rank(local, &world_local_rank);
    MPI_Comm_size(local, &world_local_size);
    MPI_Comm_free(&local);
  } else {
    world_local_rank = 0;
    world_local_size = 1;
  }
}

void tfs_mpi_init(tfs_status *st) {
  pthread_mutex_lock(&world_mu);
  int first = world_refs == 0;
  if (first) world_start(st);
  if (tfs_status_code(st) == TFS_OK) world_refs++;
  int size = world_size;
  pthread_mutex_unlock(&world_mu);
  /* the collective engine starts with the world, on every rank at once
   * (it dups MPI_COMM_WORLD); it installs its stop hook itself */
  if (first && tfs_status_code(st) == TFS_OK && size > 1 &&
      tfs_mpi__engine_start(st) != 0)
    tfs_mpi_finalize();
}

void tfs_mpi_finalize(void) {
  pthread_mutex_lock(&world_mu);
  if (world_refs == 0 || --world_refs > 0) {
    pthread_mutex_unlock(&world_mu);
    return;
  }
  void (*stop)(void) = world_stop;
  world_stop = NULL;
  pthread_mutex_unlock(&world_mu);
  if (stop) stop(); /* the engine's thread may take world_mu itself */
  pthread_mutex_lock(&world_mu);
  if (world_refs == 0 && world_owns_mpi) {
    MPI_Finalize();
    world_owns_mpi = 0;
    world_finalized = 1;
  }
  world_rank = world_local_rank = 0;
  world_size = world_local_size = 1;
  pthread_mutex_unlock(&world_mu);
}

/* Reads one of the world's numbers under the lock. */
static int world_get(const int *v) {
  pthread_mutex_lock(&world_mu);
  int r = *v;
  pthread_mutex_unlock(&world_mu);
  return r;
}

int tfs_mpi_initialized(void) { return world_get(&world_refs) > 0; }
int tfs_mpi_rank(void) { return world_get(&world_rank); }
int tfs_mpi_size(void) { return world_get(&world_size); }
int tfs_mpi_local_rank(void) { return world_get(&world_local_rank); }
int tfs_mpi_local_size(void) { return world_get(&world_local_size); }

#endif /* TFS_HAVE_MPI */
