/*
 * tests/device/devtest.h - helpers of the device suites: building nodes
 * with requested devices and colocation, running the placer over a whole
 * graph with a log capture, and looking up where a node went.
 */
#ifndef TFS_TESTS_DEVTEST_H
#define TFS_TESTS_DEVTEST_H

#include "device/device.h"
#include "fake_device.h"
#include "testutil.h"

#define DT_MAX_NODES 64
#define DT_LOG_MAX 4096

/* One placement run over every node of a graph. */
typedef struct dt_placement {
  int n;
  tfs_operation *nodes[DT_MAX_NODES];
  tfs_device *dev[DT_MAX_NODES];
  char log[DT_LOG_MAX]; /* the placement log, one line per node */
  tfs_status *st;
} dt_placement;

/* A node of `op` named `name` on `device` (NULL: none) with inputs; when
 * T is not 0 the attr "T" is set to it; `coloc` (NULL: none) is a node
 * name for `_class` "loc:@coloc".  Asserts success. */
tfs_output dt_node(tfs_graph *g, const char *op, const char *name,
                   const char *device, const tfs_output *in, int nin,
                   tfs_dtype T, const char *coloc);
/* A float scalar Const. */
tfs_output dt_const(tfs_graph *g, const char *name, const char *device,
                    float v);
/* A placeholder of dtype dt and unknown shape. */
tfs_output dt_placeholder(tfs_graph *g, const char *name, tfs_dtype dt);

/* `cfg` (NULL: defaults) with device_count {"GPU": 0} added: the CPU and
 * FAKE these suites place over, also on machines with a GPU (which the
 * placer would prefer to both).  A static config, valid until the next
 * call; other counts are cfg's. */
const tfs_config *dt_no_gpu(const tfs_config *cfg);

/* Places every node of g over the devices `cfg` gives (NULL: defaults,
 * FAKE registered).  Returns the status code; p->st keeps the message. */
tfs_code dt_place(tfs_graph *g, const tfs_config *cfg, int soft, int log,
                  dt_placement *p);
/* Places over an explicit device set. */
tfs_code dt_place_on(tfs_graph *g, const tfs_device_set *ds, int soft,
                     int log, dt_placement *p);
void dt_placement_clear(dt_placement *p);

/* The full device name node `name` went to ("" when unplaced). */
const char *dt_device(const dt_placement *p, const char *name);

#define DT_CPU "/job:localhost/replica:0/task:0/device:CPU:0"
#define DT_FAKE0 "/job:localhost/replica:0/task:0/device:FAKE:0"
#define DT_FAKE1 "/job:localhost/replica:0/task:0/device:FAKE:1"

#endif
