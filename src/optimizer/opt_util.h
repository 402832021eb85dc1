/*
 * optimizer/opt_util.h - helpers the passes share: bypassing a node whose
 * value equals one of its inputs, constants, single-consumer checks,
 * attr building and element access on small constant tensors.
 */
#ifndef TFS_OPTIMIZER_OPT_UTIL_H
#define TFS_OPTIMIZER_OPT_UTIL_H

#include "optimizer/optimizer.h"

/* Makes the consumers of output 0 of node n read `src` instead (n's
 * control inputs are added to them so ordering is kept), then removes n
 * and whatever that leaves unused.  A preserved n is replaced by an
 * Identity of `src` under its name instead.  Returns 0 or -1 with an
 * error. */
int tfs_opt__bypass(tfs_opt_ctx *c, int n, tfs_oref src);

/* The same for the consumers of output `port` of n, whose other outputs
 * have none; port > 0 needs a removable n (tfs_og__removable). */
int tfs_opt__bypass_port(tfs_opt_ctx *c, int n, int port, tfs_oref src);

/* Replaces node `old` by a node of `op` with `attrs` (consumed) and
 * inputs, keeping old's name, device and control inputs. */
/* When node `gone` was removed, node dst stands for it from now on: its
 * original names go to dst's (tfs_og__add_origins).  0, or -1 with an
 * out-of-memory error. */
int tfs_opt__absorb(tfs_opt_ctx *c, int dst, int gone);
int tfs_opt__rebuild(tfs_opt_ctx *c, int old, const char *op, tfs_attrs *attrs,
                     int nin, const tfs_oref *in);

/* A scalar Const of `dtype` holding `v` (numeric dtypes). */
int tfs_opt__scalar_const(tfs_opt_ctx *c, tfs_dtype dtype, double v,
                          const char *base, const char *device);

/* A rank-1 int32 Const of the n values v (a shape or a permutation). */
int tfs_opt__int32_const(tfs_opt_ctx *c, const int64_t *v, int n,
                         const char *base, const char *device);

/* A Const from a tensor (new reference taken). */
int tfs_opt__const(tfs_opt_ctx *c, tfs_tensor *t, const char *base,
                   const char *device);

/* Node i's only consumer is one data input (no control consumers) and it
 * may be fused or removed. */
int tfs_opt__single_use(const tfs_ograph *g, int i);

/* Every element of t equals v (numeric dtypes). */
int tfs_opt__tensor_all(const tfs_tensor *t, double v);

/* Element i of a numeric tensor as double / set from double. */
double tfs_opt__get(const tfs_tensor *t, int64_t i);
void tfs_opt__set(tfs_tensor *t, int64_t i, double v);

/* A fresh numeric tensor of dtype and shape (uninitialised); NULL on OOM
 * with st set. */
tfs_tensor *tfs_opt__tensor(tfs_dtype dt, const tfs_shape *s, tfs_status *st);

/* The type of a node's device: in a plan the device the node was placed
 * on (".../device:GPU:0" is "GPU"), elsewhere its request; "CPU", the
 * optimizer's default target, when it names no type or does not parse.
 * Returns buf. */
const char *tfs_opt__device_type(const char *device, char *buf, size_t cap);

/* 1 when the device's type (tfs_opt__device_type) is `type`. */
int tfs_opt__device_is(const char *device, const char *type);

/* What a node's device type says of itself (tfs_device_type's
 * prefers_nchw and fast_16bit), asked of the registered type.  A type
 * this process has not registered (a GPU request optimized in a build
 * without CUDA) counts as a GPU when named "GPU", else as the CPU. */
typedef struct tfs_opt_device_caps {
  int prefers_nchw;
  tfs_dtype fast_16bit;
} tfs_opt_device_caps;
void tfs_opt__device_caps(const char *device, tfs_opt_device_caps *out);

/* 1 when the type of node device `device` has a kernel for `def` with
 * `attrs` (complete, with the dtype the rewrite would give it). */
int tfs_opt__has_kernel(const char *device, const tfs_op_def *def,
                        const tfs_attrs *attrs, const char *node_name);

/* 1 when the kernel of op `op` on the type of `device` exists for
 * `attrs` (defaults are filled in a copy) and its prepare accepts them
 * for the inputs in[0..nin) of g (their dtypes and inferred shapes, no
 * constant values) and one output of `out_type` and `out_shape`: what a
 * rewrite asks before it builds a node whose attrs a kernel may refuse
 * (a fused op list the kernel does not implement).  The prepared state
 * is released at once.  `node_name` names the node in the kernel's
 * (discarded) messages. */
int tfs_opt__kernel_accepts(const tfs_ograph *g, const char *device,
                            const char *op, const tfs_attrs *attrs, int nin,
                            const tfs_oref *in, tfs_dtype out_type,
                            const tfs_shape *out_shape, const char *node_name);

/* Copies node i's attrs into *out (initialised here); -1 on OOM. */
int tfs_opt__copy_attrs(const tfs_ograph *g, int i, tfs_attrs *out);

/* Attr setters on a map (-1 on OOM). */
int tfs_opt__set_type(tfs_attrs *a, const char *name, tfs_dtype t);
int tfs_opt__set_int(tfs_attrs *a, const char *name, int64_t v);
int tfs_opt__set_float(tfs_attrs *a, const char *name, float v);
int tfs_opt__set_bool(tfs_attrs *a, const char *name, int v);
int tfs_opt__set_string(tfs_attrs *a, const char *name, const char *s);
int tfs_opt__set_strings(tfs_attrs *a, const char *name, const char *const *s,
                         int n);
int tfs_opt__set_ints(tfs_attrs *a, const char *name, const int64_t *v, int n);
int tfs_opt__set_types(tfs_attrs *a, const char *name, const tfs_dtype *v,
                       int n);

/* String attr equals `s` (absent: 0). */
int tfs_opt__attr_is(const tfs_ograph *g, int i, const char *name,
                     const char *s);

/* Floating dtypes the rewrites that change rounding accept. */
static inline int tfs_opt__is_float(tfs_dtype t) {
  return t == TFS_FLOAT || t == TFS_DOUBLE || t == TFS_HALF ||
         t == TFS_BFLOAT16;
}

/* Shape `small` broadcast against `big` leaves `big` unchanged. */
int tfs_opt__broadcasts_into(const tfs_shape *small, const tfs_shape *big);

#endif
