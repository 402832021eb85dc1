/*
 * device/placer_internal.h - the placer's working state (one colocation
 * member per node, union-find over nodes) shared by placer.c and the
 * message builders in placer_msg.c.
 */
#ifndef TFS_DEVICE_PLACER_INTERNAL_H
#define TFS_DEVICE_PLACER_INTERNAL_H

#include "device/device.h"

#define TFS_PLACER_MAX_TYPES 8

/* ColocationGraph's Member; only a group's root carries the group's
 * merged requests, supported types and assignment. */
typedef struct tfs_member {
  int parent, rank;
  tfs_device_name requested; /* merged requests of the group */
  tfs_device_name resource;  /* requests of resource generators */
  unsigned supported;        /* bit t: types[t] has kernels for all */
  tfs_device *assigned;      /* set once a member is placed */
} tfs_member;

typedef struct tfs_placer {
  tfs_operation *const *nodes;
  int n;
  const tfs_graph *graph;
  const tfs_device_set *ds;
  const tfs_placer_options *opts;
  int soft;
  tfs_member *m;
  tfs_device **out;          /* the caller's result array */
  int *order;                /* node indices by operation id */
  int *index;                /* operation id -> node index or -1 */
  size_t nindex;
  int ntypes;                /* device types by priority, then name */
  const tfs_device_type *types[TFS_PLACER_MAX_TYPES];
  tfs_device *type_dev[TFS_PLACER_MAX_TYPES]; /* one device of each */
} tfs_placer;

int tfs_placer__root(tfs_placer *p, int i);
int tfs_placer__index(const tfs_placer *p, const tfs_operation *op);
int tfs_placer__colocate(tfs_placer *p, int x, int y, tfs_status *st);
unsigned tfs_placer__supported_types(tfs_placer *p, const tfs_operation *op);
int tfs_placer__candidates(const tfs_placer *p, const tfs_device_name *spec,
                           unsigned supported, tfs_device **out);

/* ---- messages (placer_msg.c) -------------------------------------------- */

/* ColocationGraph::DebugInfo of the group rooted at `root`: "\nColocation
 * Debug Info:\n..." (malloc'd; NULL on OOM). */
char *tfs_placer__debug_info(tfs_placer *p, int root);

/* "No OpKernel was registered to support Op 'X' used by {{node n}} with
 * these attrs: [...]\nRegistered devices: [CPU]\nRegistered kernels:\n..."
 * with the node suffix.  Returns -1. */
int tfs_placer__no_kernel_error(tfs_placer *p, const tfs_operation *op,
                                tfs_status *st);

/* The explicit-request failures of GetDevicesForNode ("{{node a}} was
 * explicitly assigned to ... but available devices are [ ... ]", "Could
 * not satisfy explicit device specification ..."). Returns -1. */
int tfs_placer__unsatisfiable_error(tfs_placer *p, int i, int root,
                                    tfs_status *st);

/* "Node had no OpKernel registered to support this operation: Operation
 * was X and inputs were [float, float].\n<debug info>".  Returns -1. */
int tfs_placer__no_device_error(tfs_placer *p, int i, int root,
                                tfs_status *st);

#endif
