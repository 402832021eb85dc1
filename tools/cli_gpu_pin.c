/*
 * tools/cli_gpu_pin.c - one GPU per local rank for `run --batch` under
 * mpirun (Horovod's visible_device_list = str(local_rank)): the decision,
 * a pure function, and applying it to session options.  Nothing here
 * calls MPI or CUDA: cli_mpi.c passes the local rank and size and the
 * GPU count in.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

void tfs_cli_gpu_pin_decide(int local_rank, int local_size, int ngpus,
                            int user_list, int user_memory,
                            tfs_cli_gpu_pin *out) {
  memset(out, 0, sizeof *out);
  if (local_size <= 1 || ngpus <= 0 || user_list || local_rank < 0 ||
      local_rank >= local_size)
    return;
  int gpu = local_rank % ngpus;
  snprintf(out->list, sizeof out->list, "%d", gpu);
  /* ranks on this GPU: gpu, gpu + ngpus, ... below local_size */
  int sharing = (local_size - 1 - gpu) / ngpus + 1;
  out->allow_growth = sharing > 1 && !user_memory;
}

int tfs_cli_gpu_pin_apply(tfs_session_options *o, int local_rank,
                          int local_size, int ngpus, tfs_cli_gpu_pin *out,
                          tfs_status *st) {
  /* the CUDA allocator reads exactly "true" and "false" */
  const char *env = getenv("TF_FORCE_GPU_ALLOW_GROWTH");
  int forced = env && (strcmp(env, "true") == 0 || strcmp(env, "false") == 0);
  int user_memory =
      forced || tfs_session_options_allow_growth(o) ||
      tfs_session_options_per_process_gpu_memory_fraction(o) > 0;
  tfs_cli_gpu_pin_decide(local_rank, local_size, ngpus,
                         tfs_session_options_visible_device_list(o) != NULL,
                         user_memory, out);
  tfs_status_clear(st);
  if (out->list[0]) {
    tfs_session_options_set_visible_device_list(o, out->list, st);
    if (!tfs_status_ok(st)) return -1;
  }
  if (out->allow_growth) tfs_session_options_set_allow_growth(o, 1);
  return 0;
}
