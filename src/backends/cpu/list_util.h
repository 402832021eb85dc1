/*
 * backends/cpu/list_util.h - what the TensorList kernels (list_ops.c)
 * share with other kernels that return a changed list (lstm_seq.c).
 */
#ifndef TFS_BACKENDS_CPU_LIST_UTIL_H
#define TFS_BACKENDS_CPU_LIST_UTIL_H

#include "core/tensor_list.h"
#include "kernels/kernel.h"

/* The node's output `out` as its input list `in` itself when the kernel
 * holds it alone (tensor, buffer and value: the input is then taken from
 * its slot), else as a new shallow copy, so two consumers of one list
 * never see each other's writes.  Returns the list to change (owned by
 * the output), or NULL after failing c (out of memory). */
tfs_tensor_list *tfs_list__writable(tfs_kernel_ctx *c, int in, int out);

#endif
