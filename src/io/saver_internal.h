/*
 * io/saver_internal.h - the saver object shared by saver.c (building the
 * save/restore subgraph) and saver_state.c (saving, restoring, the
 * checkpoint state file).
 */
#ifndef TFS_IO_SAVER_INTERNAL_H
#define TFS_IO_SAVER_INTERNAL_H

#include "tfsess/saver.h"

struct tfs_saver_options {
  int sharded;
  int max_to_keep;
  float keep_hours;
  char *name;     /* NULL: "save" */
  char *filename; /* NULL: "model" */
};

/* A recent checkpoint: its prefix and when it was saved (seconds). */
typedef struct {
  char *path;
  double time;
} tfs_saver__ckpt;

struct tfs_saver {
  tfs_graph *g;
  char *filename_tensor; /* "save/Const:0" */
  char *save_tensor;     /* "save/control_dependency:0" or "save/Identity:0" */
  char *restore_op;      /* "save/restore_all" */
  int sharded;
  int max_to_keep;
  float keep_hours;
  double next_keep_time; /* _next_checkpoint_time */
  tfs_saver__ckpt *last; /* oldest first */
  int nlast;
  tfs_saver__ckpt *doomed; /* _checkpoints_to_be_deleted */
  int ndoomed;
};

/* Wall-clock seconds (time.time()). */
double tfs_saver__now(void);

#endif
