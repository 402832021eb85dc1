/*
 * tests/device/fake_device.h - a second device type for tests, "FAKE"
 * (priority 150: preferred over CPU, below GPU), with kernels for a few
 * ops only (AddV2 on float, Identity, Const, Relu, Shape, and the op
 * of tfs_fake_only_op).  Its kernels run the CPU kernels' code and move
 * their outputs into FAKE memory, host memory behind a caching allocator
 * of its own, so values on FAKE are device values: every placement,
 * fallback and copy path runs on machines without a GPU.
 */
#ifndef TFS_TESTS_FAKE_DEVICE_H
#define TFS_TESTS_FAKE_DEVICE_H

#include "device/device.h"

/* Registers the FAKE type (idempotent).  Devices: device_count["FAKE"]
 * of them (default 1, at most 4), each with a 64 MiB allocator. */
void tfs_fake_device_register(void);
void tfs_fake_device_unregister(void);

/* FAKE:i (registering first); the same object every time. */
tfs_device *tfs_fake_device(int i);

/* Bytes the FAKE devices' allocators hold for tensors right now. */
int64_t tfs_fake_device_bytes_in_use(void);

/* An op FAKE claims to run for every dtype ("Rint"), while the CPU has
 * no half kernel for it: the "no device type supports both" paths. */
extern const char *const tfs_fake_only_op;

#endif
