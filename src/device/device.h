/*
 * device/device.h - the device layer: parsed device names, the device
 * vtable (STYLE #10), device types and the process's device set, the
 * placer, and cross-device copies.  How the session plugs these in:
 * docs/DEVICES.md, "Integration with plans".
 */
#ifndef TFS_DEVICE_DEVICE_H
#define TFS_DEVICE_DEVICE_H

#include <stdio.h>

#include "config_proto/config.h"
#include "graph_builder/graph_internal.h"
#include "kernels/kernel.h"
#include "tfsess/device.h"

/* ---- names (device_name.c) ----------------------------------------------- */

#define TFS_DEVICE_JOB_MAX 64
#define TFS_DEVICE_TYPE_MAX 32
/* Room for any canonical name of parts within the limits above. */
#define TFS_DEVICE_NAME_MAX 192

/* TensorFlow's DeviceNameUtils::ParsedName: each part may be absent (a
 * partial specification) or a wildcard (absent too). */
typedef struct tfs_device_name {
  uint8_t has_job, has_replica, has_task, has_type, has_id;
  int replica, task, id;
  char job[TFS_DEVICE_JOB_MAX];
  char type[TFS_DEVICE_TYPE_MAX];
} tfs_device_name;

/* Parses a device specification: TensorFlow's full and partial forms
 * ("/job:localhost/replica:0/task:0/device:GPU:0", "/device:GPU:*",
 * "/job:w/task:1"), the legacy "/cpu:0" and "/gpu:1" (any case; the type
 * becomes "CPU"/"GPU"), local names ("GPU:0") and Python's short forms
 * ("gpu", "cpu:0", "GPU:*": a known type in any case).  "" and "/" parse
 * to an empty specification.  A type given in the "/device:" form keeps
 * its case, as TensorFlow's (so "/device:gpu:0" names no device).
 * Returns 0, or -1 when `s` is not a device specification. */
int tfs_device_name__parse(const char *s, tfs_device_name *out);

/* The same, failing with INVALID_ARGUMENT "Could not parse S into a device
 * specification." */
int tfs_device_name__parse_status(const char *s, tfs_device_name *out,
                                  tfs_status *st);

/* TensorFlow's ParsedNameToString: "/job:J/replica:R/task:T/device:TYPE:ID"
 * with absent parts left out and "*" for an absent id after a type.
 * Writes into buf (cap >= TFS_DEVICE_NAME_MAX is always enough); returns
 * buf. */
char *tfs_device_name__str(const tfs_device_name *n, char *buf, size_t cap);

/* Non-zero when any part is present (DeviceNameUtils::HasSomeDetails). */
int tfs_device_name__has_details(const tfs_device_name *n);

/* Every part present in `pattern` equals the same part of `name`, which
 * is complete (IsCompleteSpecification: "does device `name` match?"). */
int tfs_device_name__matches(const tfs_device_name *pattern,
                             const tfs_device_name *name);

/* No part present in both differs (AreCompatibleDevNames). */
int tfs_device_name__compatible(const tfs_device_name *a,
                                const tfs_device_name *b);

/* Equal, part by part (absent parts equal absent parts). */
int tfs_device_name__equal(const tfs_device_name *a,
                           const tfs_device_name *b);

/* TensorFlow's MergeDevNames: adds the parts of `other` to `target`.
 * Conflicting jobs, replicas or tasks fail; conflicting types or ids
 * fail unless allow_soft, when they are dropped from the target instead.
 * Errors: INVALID_ARGUMENT "Cannot merge devices with incompatible types:
 * '/device:CPU:0' and '/device:GPU:0'" (jobs, replicas, tasks, types,
 * ids); target is unchanged on failure. */
int tfs_device_name__merge(tfs_device_name *target,
                           const tfs_device_name *other, int allow_soft,
                           tfs_status *st);

/* Copies every part present in `less` into `more` (EnsureSpecification). */
void tfs_device_name__ensure(tfs_device_name *more,
                             const tfs_device_name *less);

/* A complete local name: job localhost, replica 0, task 0. */
void tfs_device_name__local(tfs_device_name *out, const char *type, int id);

/* Registers a device type name that the short forms accept in any case
 * ("fake" -> "FAKE").  CPU and GPU are always known.  Thread-safe. */
void tfs_device_name__add_known_type(const char *type);

/* ---- devices ---------------------------------------------------------------- */

typedef struct tfs_device tfs_device;
typedef struct tfs_device_type tfs_device_type;

/* What a device does.  Entries marked (optional) may be NULL. */
typedef struct tfs_device_iface {
  /* Device memory: `bytes` (may be 0) with 64-byte alignment, NULL with
   * RESOURCE_EXHAUSTED in st (TensorFlow's "OOM when allocating ..."
   * wording comes from the caller, who knows the shape). */
  void *(*alloc)(tfs_device *d, size_t bytes, tfs_status *st);
  void (*free)(tfs_device *d, void *p);
  /* Host -> device and device -> host copies of n bytes.  Asynchronous
   * devices order them against their compute stream: a copy to the
   * device is complete before any later kernel of the device reads it;
   * a copy to the host returns when the bytes are there.  0 or -1. */
  int (*copy_to_device)(tfs_device *d, void *dst, const void *host_src,
                        size_t n, tfs_status *st);
  int (*copy_to_host)(tfs_device *d, void *host_dst, const void *src,
                      size_t n, tfs_status *st);
  /* Device -> device on the same device (optional: else via the host). */
  int (*copy_on_device)(tfs_device *d, void *dst, const void *src,
                        size_t n, tfs_status *st);
  /* The kernel this device runs for a node (op, its complete attrs), or
   * NULL with TensorFlow's "No OpKernel was registered ..." in st.
   * supports_op is this returning non-NULL. */
  const tfs_kernel_def *(*find_kernel)(tfs_device *d, const tfs_op_def *op,
                                       const tfs_attrs *attrs,
                                       const char *node_name,
                                       tfs_status *st);
  /* Waits for everything queued on the device (optional). */
  int (*synchronize)(tfs_device *d, tfs_status *st);
  /* Bytes in use / limit of the device allocator (optional). */
  void (*memory_stats)(tfs_device *d, int64_t *in_use, int64_t *limit);
} tfs_device_iface;

struct tfs_device {
  const tfs_device_iface *iface;
  const tfs_device_type *type;
  int id;                         /* the N of TYPE:N, as the session sees it */
  int host_memory;                /* computes on host memory (no copies) */
  int64_t memory_limit;           /* bytes, 0 for host-memory devices */
  char name[TFS_DEVICE_NAME_MAX]; /* full name */
  char desc[160];                 /* physical device description or "" */
  tfs_device_name parsed;
  void *impl;
};

/* A device type: its name, TensorFlow's priority (GPU 210 > CPU 70; the
 * placer prefers higher) and a factory making the devices a config asks
 * for.  Devices are process-wide: the factory returns the same device
 * objects for the same physical device every time. */
struct tfs_device_type {
  const char *name;
  int priority;
  /* Fills out[0..*n) (at most `cap`) with the devices of this type for
   * `cfg` (device_count, visible_device_list...).  0 or -1. */
  int (*devices)(const tfs_config *cfg, tfs_device **out, int cap, int *n,
                 tfs_status *st);
  /* What the optimizer asks of a node placed on this type (zero: as the
   * CPU).  prefers_nchw: convolutions and pools run fastest in NCHW
   * (cuDNN), so the layout pass converts to it.  fast_16bit: the 16-bit
   * float type auto mixed precision lowers to here (TFS_HALF on GPUs;
   * TFS_BFLOAT16 on the CPU, when the CPU computes it natively). */
  int prefers_nchw;
  tfs_dtype fast_16bit;
  /* How many devices of this type the process sees, made or not, without
   * making any (tfs_device_count_visible; optional: without it the
   * factory's count for the default config). */
  int (*visible_count)(void);
};

/* The registered device type named `name` ("CPU", "GPU"), or NULL.
 * Types live for the process (until unregistered).  Thread-safe. */
const tfs_device_type *tfs_device__type(const char *name);

/* Adds a device type to the process (tests register a fake one).  A type
 * of the same name replaces the earlier one.  Thread-safe; 0 or -1. */
/* The device types the backends add to the CPU's (the CUDA device in
 * CUDA builds), NULL-terminated; defined by src/backends/backends.c, the
 * one list of backends, so the device layer includes none of them. */
extern const tfs_device_type *const tfs_backend_device_types[];

int tfs_device__register_type(const tfs_device_type *t);
/* Removes a registered type (tests).  CPU cannot be removed. */
void tfs_device__unregister_type(const char *name);

/* The CPU device (CPU:0), process-wide.  Never NULL. */
tfs_device *tfs_device__cpu(void);

/* Non-zero when device `d` has a kernel for the node. */
int tfs_device__supports(tfs_device *d, const tfs_op_def *op,
                         const tfs_attrs *attrs);

/* Runs kdef->prepare for a node placed on `d` (d NULL: CPU) with
 * ki->device set to it, which device kernels read in prepare to bind
 * their state to it.  Returns prepare's result (0 when there is none). */
int tfs_device__prepare_kernel(tfs_device *d, const tfs_kernel_def *k,
                               tfs_kernel_init *ki);

/* ---- the device set (device_set.c) ---------------------------------------- */

typedef struct tfs_device_set {
  int n;
  tfs_device **devices; /* CPUs first (CPU:0 is the client device), then
                           each other type's, GPU before types tests add */
} tfs_device_set;

/* The devices of this process under `cfg` (NULL: defaults).  Returns a
 * new set (free with tfs_device_set__free; the devices themselves are
 * process-wide and stay).  Errors: the GPU factory's ("'visible_device_
 * list' listed an invalid Device id ..."), RESOURCE_EXHAUSTED. */
tfs_device_set *tfs_device_set__new(const tfs_config *cfg, tfs_status *st);
void tfs_device_set__free(tfs_device_set *s);

/* The device with this full or partial-but-unique name, or NULL. */
tfs_device *tfs_device_set__find(const tfs_device_set *s, const char *name);

/* Waits for every device of the set (end of a run). */
int tfs_device_set__synchronize(const tfs_device_set *s, tfs_status *st);

/* Sorted "[a, b]" list of the type names present ("[CPU, GPU]"), for
 * messages; malloc'd. */
char *tfs_device_set__type_list(const tfs_device_set *s);

/* The public list of the devices of `s` (a session's set), in its
 * order.  Returns a new list (tfs_device_list_free); NULL with OOM. */
tfs_device_list *tfs_device_list__from_set(const tfs_device_set *s,
                                           tfs_status *st);

/* The public list of the devices a session with ConfigProto `cfg` would
 * have (tfs_device_list_new, which the session module implements: the
 * device module knows configs, not session options).  Returns a new
 * list, or NULL with the device factory's error. */
tfs_device_list *tfs_device_list__from_config(const tfs_config *cfg,
                                              tfs_status *st);

/* ---- the placer (placer.c) ------------------------------------------------ */

typedef struct tfs_placer_options {
  int allow_soft_placement;
  int log_device_placement;
  /* Where the placement log goes when log_device_placement is set: NULL
   * prints to stdout with printf, as TensorFlow's LogDeviceAssignment. */
  void (*log)(void *arg, const char *line);
  void *log_arg;
} tfs_placer_options;

/* Assigns a device of `ds` to each of the n nodes (a plan's pruned nodes,
 * any order; edges to nodes outside the array are ignored): requested
 * devices, colocation groups (`_class` "loc:@x", and TensorFlow's rule
 * that ref and resource edges join their ends), a device with a kernel
 * for the node's op and dtypes (the highest-priority type first: GPU over
 * CPU), soft placement, TensorFlow's heuristics (a generator goes with its
 * consumers, Shape/Size/Rank with their input).  out[i] receives node i's
 * device.  Errors are TensorFlow's: INVALID_ARGUMENT "Cannot assign a
 * device for operation X: ..." with the colocation debug info and the
 * node suffix "\n\t [[{{node X}}]]", "Cannot colocate nodes ...",
 * "Malformed device specification ...".  Logs one line per node when
 * opts->log_device_placement: "name: (Op): /job:localhost/replica:0/
 * task:0/device:CPU:0". */
int tfs_placer__place(tfs_operation *const *nodes, int n,
                      const tfs_device_set *ds,
                      const tfs_placer_options *opts, tfs_device **out,
                      tfs_status *st);

/* ---- memory spaces and copies (copy.c) ------------------------------------ */

/* Which of a node's inputs / outputs live in host memory when it runs on
 * `d` (bit i; ~0 for host-memory devices): TensorFlow's HostMemory
 * arguments (Reshape's shape, reductions' axes, Shape's output ...) and
 * every argument of a dtype that never lives on a device (int32, string,
 * resource, variant, refs). */
void tfs_device__memory_types(const tfs_device *d, const tfs_operation *op,
                              uint64_t *host_inputs, uint64_t *host_outputs);

/* The memory space of a value: NULL for host memory, else the device. */
tfs_device *tfs_device__input_space(tfs_device *d, const tfs_operation *op,
                                    int input);
tfs_device *tfs_device__output_space(tfs_device *d, const tfs_operation *op,
                                     int output);

/* The device whose memory holds t's buffer, or NULL for host memory. */
tfs_device *tfs_device__tensor_device(const tfs_tensor *t);

/* A tensor of `dt` and `shape` in d's memory (host memory when d is NULL
 * or a host-memory device).  New reference.  RESOURCE_EXHAUSTED with
 * TensorFlow's "OOM when allocating tensor with shape[2,3] and type float
 * on /job:localhost/replica:0/task:0/device:GPU:0 by allocator GPU_0_bfc". */
tfs_tensor *tfs_device__alloc_tensor(tfs_device *d, tfs_dtype dt,
                                     const tfs_shape *shape, tfs_status *st);

/* Copies t into the memory space `to` (NULL: host).  Returns a new
 * reference: t itself when it already lives there.  Numeric and bool
 * dtypes only (others are always in host memory). */
tfs_tensor *tfs_device__copy_tensor(tfs_tensor *t, tfs_device *to,
                                    tfs_status *st);

/* The copy kernel the plan inserts on a cross-device edge: one input, one
 * output, compute copies its input into the space named by the node's
 * prepared state (a tfs_device *, NULL meaning host memory), so a plan
 * node gets kdef = &tfs_device_copy_kernel and kstate = the target device
 * (no release).  Op name "_Copy". */
extern const tfs_kernel_def tfs_device_copy_kernel;

/* Counters for tests: copies done to devices / to the host. */
void tfs_device__copy_counts(int64_t *to_device, int64_t *to_host);

#endif
