/*
 * tests/device/devrun.h - a small reference runner of whole graphs over
 * several devices, written apart from the session's plans: place every
 * node, take its kernel from its device, prepare it on that device, and
 * copy a value whenever the memory space it lives in is not the one its
 * consumer reads (docs/DEVICES.md).  The device suites and the GPU suite
 * run single ops and small graphs through it, independently of plans;
 * whole graphs through sessions are tested against CPU-only sessions.
 */
#ifndef TFS_TESTS_DEVRUN_H
#define TFS_TESTS_DEVRUN_H

#include "device/device.h"
#include "tfsess/tfsess.h"

#define DR_MAX_FEEDS 8

typedef struct dr_graph dr_graph;

/* Places and prepares every node of g except the fed placeholders, over
 * the devices of cfg (NULL: defaults).  Returns a new runner (free with
 * dr_graph_free) or NULL with the placer's or a kernel's error. */
dr_graph *dr_graph_new(tfs_graph *g, const tfs_config *cfg, int soft,
                       const tfs_output *feeds, int nfeeds, tfs_status *st);
void dr_graph_free(dr_graph *r);

/* Runs every node once with the feed values, and returns the fetched
 * tensors in host memory (new references).  0 or -1. */
int dr_graph_run(dr_graph *r, tfs_tensor *const *feed_values,
                 const tfs_output *fetches, int nfetches, tfs_tensor **out,
                 tfs_status *st);

/* Where node `name` was placed, or NULL. */
tfs_device *dr_graph_device(const dr_graph *r, const char *name);

/* Copies done by the runs so far (values that changed memory space). */
int64_t dr_graph_copies(const dr_graph *r);

/* One op on one device: Const inputs in[0..nin) (host tensors), attrs set
 * by `attrs` (may be NULL) on the op description, the node requested on
 * `device`; returns the outputs in host memory (new references). */
typedef void (*dr_attr_fn)(tfs_op_desc *d, const void *arg);
int dr_run_op(const char *op, dr_attr_fn attrs, const void *arg,
              const char *device, const tfs_config *cfg,
              tfs_tensor *const *in, int nin, tfs_tensor **out, int nout,
              tfs_status *st);

#endif
