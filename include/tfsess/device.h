/*
 * tfsess/device.h - the devices a session runs on ("CPU:0" always, "GPU:n"
 * for each visible CUDA device in a CUDA build) and device names in
 * TensorFlow's forms ("/job:localhost/replica:0/task:0/device:GPU:0",
 * "/device:GPU:0", "/gpu:0", "GPU:0", "gpu").  docs/DEVICES.md has the
 * placement rules.
 */
#ifndef TFSESS_DEVICE_H
#define TFSESS_DEVICE_H

#include "common.h"
#include "session.h"
#include "status.h"

TFS_BEGIN_DECLS

typedef struct tfs_device_list tfs_device_list;

/* The devices a session created with `opts` (NULL: defaults) would use,
 * CPUs first, then each other type by TensorFlow's priority, as
 * TF_SessionListDevices lists them.  ConfigProto's device_count and
 * gpu_options.visible_device_list are honoured.  Returns a new list;
 * caller frees with tfs_device_list_free.  Errors are TensorFlow's
 * ("'visible_device_list' listed an invalid Device id '3' but visible
 * device count is 1"). */
TFS_API tfs_device_list *tfs_device_list_new(const tfs_session_options *opts,
                                             tfs_status *st);

/* How many devices of type `type` ("CPU", "GPU") this process sees: for
 * GPUs, every GPU CUDA shows it (CUDA_VISIBLE_DEVICES honoured), before a
 * session's visible_device_list and device_count choose among them; 0
 * for an unknown type or NULL, and for "GPU" in a build without CUDA.
 * Unlike tfs_device_list_new it makes no device: GPUs are process-wide
 * and the first options that make them fix their visible_device_list
 * and allocator, so a program picks those from this count first (one
 * GPU per MPI local rank, as Horovod's visible_device_list =
 * str(local_rank)).  Thread-safe.  Does not take ownership of any
 * argument. */
TFS_API int tfs_device_count_visible(const char *type);

/* The devices session `s` places its nodes on (fixed when it was
 * created, in the order above), as TF_SessionListDevices lists them.
 * Returns a new list; caller frees with tfs_device_list_free.  Thread-
 * safe; does not take ownership of `s`.  Errors: INVALID_ARGUMENT when s
 * is NULL, RESOURCE_EXHAUSTED. */
TFS_API tfs_device_list *tfs_session_list_devices(tfs_session *s,
                                                  tfs_status *st);

/* Frees a list.  Accepts NULL. */
TFS_API void tfs_device_list_free(tfs_device_list *l);

TFS_API int tfs_device_list_count(const tfs_device_list *l);

/* Full name of device i ("/job:localhost/replica:0/task:0/device:CPU:0").
 * Borrowed, valid until the list is freed. */
TFS_API const char *tfs_device_list_name(const tfs_device_list *l, int i);

/* Type of device i ("CPU", "GPU").  Borrowed, as above. */
TFS_API const char *tfs_device_list_type(const tfs_device_list *l, int i);

/* Memory of device i in bytes: what its allocator may use (for a GPU,
 * its memory times per_process_gpu_memory_fraction when that is set);
 * 0 for devices that compute in host memory. */
TFS_API int64_t tfs_device_list_memory_bytes(const tfs_device_list *l,
                                             int i);

/* A one-line description of the physical device ("device: 0, name:
 * NVIDIA H200, pci bus id: 0000:00:05.0, compute capability: 9.0"), "" for
 * CPUs.  Borrowed, as above. */
TFS_API const char *tfs_device_list_description(const tfs_device_list *l,
                                                int i);

/* Writes the canonical form of a (possibly partial) device specification
 * into buf (cap bytes, NUL-terminated, truncated if too small):
 * "/gpu:1" -> "/device:GPU:1", "cpu" -> "/device:CPU:*",
 * "/job:localhost/device:GPU:*" -> "/job:localhost/device:GPU:*", "" -> "".
 * Returns the length of the full canonical form (as snprintf), or -1 with
 * INVALID_ARGUMENT "Could not parse SPEC into a device specification."
 * Does not take ownership of any argument. */
TFS_API int tfs_device_name_canonicalize(const char *spec, char *buf,
                                         size_t cap, tfs_status *st);

TFS_END_DECLS

#endif /* TFSESS_DEVICE_H */
