/*
 * session/plan_place.h - devices in sessions and plans: the session's
 * device set, placing a plan's nodes with the placer of src/device, and
 * the copies a plan runs between memory spaces.  docs/DEVICES.md,
 * "Integration with plans", has the rules; nothing here is public API.
 */
#ifndef TFS_SESSION_PLAN_PLACE_H
#define TFS_SESSION_PLAN_PLACE_H

#include "device/device.h"
#include "session/session_internal.h"

/* What a plan that uses a device other than CPU:0 owns besides its nodes:
 * the operations standing for its copy nodes (they are in no graph) and
 * the devices it must synchronize at the end of a run. */
typedef struct tfs_plan_devices {
  int ncopies;
  tfs_operation **copy_ops;  /* owned, with their names and arrays */
  int nsync;
  tfs_device **sync;         /* devices with a synchronize entry */
} tfs_plan_devices;

/* Creates s->devices from s->opts.config (the process's device types:
 * CPU, GPU in CUDA builds when a GPU is visible, types registered by
 * tests).  With log_device_placement it writes TensorFlow's "Device
 * mapping:" lines to stderr.  Returns 0, or -1 with the device factory's
 * error (TensorFlow's visible_device_list messages, OOM).  Called once by
 * tfs_session_new before the session is shared. */
int tfs_session__devices_init(tfs_session *s, tfs_status *st);

/* Frees s->devices (the devices themselves are process-wide). */
void tfs_session__devices_free(tfs_session *s);

/* Places the nodes a signature needs in the session's graph, before the
 * optimizer runs (TensorFlow places, then runs Grappler on the placed
 * graph): assigned[i] receives the full name of the device nodes[i]
 * landed on (borrowed from the session's device set), or NULL for all
 * when every node can only land on CPU:0.  With log_device_placement this
 * placement prints TensorFlow's lines.  Returns 0, or -1 with the
 * placer's error.  Caller holds the graph mutex (plan building). */
int tfs_plan__preplace(tfs_session *s, tfs_operation *const *nodes, int n,
                       const char **assigned, tfs_status *st);

/* Places the nodes of p (p->nodes[i].op, already in execution order)
 * over the session's devices with its allow_soft_placement and
 * log_device_placement options; or, to `settle` a plan whose nodes were
 * placed before the optimizer (tfs_plan__preplace), with soft placement
 * and no log: its nodes carry their assigned devices, which the placer
 * keeps, and the nodes the passes made carry the device of the node they
 * came from; one whose op has no kernel there (a rewrite such as Add(x,
 * x) -> Mul(x, 2) on a device without Mul) goes where soft placement
 * puts it, so an optimization never fails a graph.  When every node
 * lands on CPU:0 the plan is left untouched (pn->device stays NULL);
 * otherwise every node gets its device and p->devices is allocated.
 * Errors are the placer's (TensorFlow's "Cannot assign a device for
 * operation ..." messages).  Caller holds the graph mutex. */
int tfs_plan__place(tfs_session *s, tfs_plan *p, int log, tfs_status *st);

/* The kernel of a node placed on pn->device (non-NULL), or NULL with the
 * device's "No OpKernel was registered ..." error. */
const tfs_kernel_def *tfs_plan__device_kernel(const tfs_plan_node *pn,
                                              tfs_status *st);

/* Runs k's prepare for a node placed on pn->device, with that device as
 * the thread's current device (device kernels bind to it). */
int tfs_plan__device_prepare(const tfs_plan_node *pn,
                             const tfs_kernel_def *k, tfs_kernel_init *ki);

/* For a plan with p->devices: inserts a copy node wherever a value lives
 * in another memory space than the one its consumer reads (one copy per
 * value and target space, right after its producer; feeds first), and a
 * copy to host memory for every fetched value in device memory.  Slots,
 * use counts, successors and pending counts are updated; the copy nodes
 * run tfs_device_copy_kernel.  Call after the fetch slots are set and
 * before tfs_exec__prepare.  Returns 0, or -1 with OOM. */
int tfs_plan__add_copies(tfs_plan *p, tfs_status *st);

/* Frees p->devices (the copy operations).  Accepts a plan without. */
void tfs_plan__free_devices(tfs_plan *p);

/* End of a run of a plan with p->devices: waits for its devices (errors
 * of queued device work surface here).  0 or -1 with st set. */
int tfs_plan__sync_devices(const tfs_plan *p, tfs_status *st);

#endif
