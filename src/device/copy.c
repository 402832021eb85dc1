/*
 * device/copy.c - memory spaces and cross-device copies: which arguments
 * of a node live in host memory on a device (TensorFlow's HostMemory
 * arguments and host-only dtypes), tensors in device memory, copying a
 * tensor between spaces, and the _Copy kernel the plan puts on an edge
 * whose ends are in different spaces.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "core/status.h"
#include "device/device.h"

/* ---- memory types ----------------------------------------------------------- */

#define LAST_INPUT (1ull << 63) /* ConcatV2's axis is its last input */
#define ALL ~0ull

/* TensorFlow's HostMemory arguments of its GPU kernels, by op. */
static const struct {
  const char *op;
  uint64_t in, out;
} kHostArgs[] = {
    {"Reshape", 1u << 1, 0},        {"ExpandDims", 1u << 1, 0},
    {"Sum", 1u << 1, 0},            {"Mean", 1u << 1, 0},
    {"Max", 1u << 1, 0},            {"Min", 1u << 1, 0},
    {"Prod", 1u << 1, 0},           {"All", 1u << 1, 0},
    {"Any", 1u << 1, 0},            {"ArgMax", 1u << 1, 0},
    {"ArgMin", 1u << 1, 0},         {"Shape", 0, ALL},
    {"ShapeN", 0, ALL},             {"Size", 0, ALL},
    {"Rank", 0, ALL},               {"Fill", 1u << 0, 0},
    {"Transpose", 1u << 1, 0},      {"ConcatV2", LAST_INPUT, 0},
    {"Concat", 1u << 0, 0},         {"Tile", 1u << 1, 0},
    {"Pad", 1u << 1, 0},            {"PadV2", 1u << 1, 0},
    {"MirrorPad", 1u << 1, 0},      {"Slice", 3u << 1, 0},
    {"StridedSlice", 7u << 1, 0},   {"BroadcastTo", 1u << 1, 0},
    {"Split", 1u << 0, 0},          {"SplitV", 3u << 1, 0},
    {"GatherV2", 1u << 2, 0},       {"Cumsum", 1u << 1, 0},
    {"Range", ALL, ALL},            {"OneHot", 1u << 1, 0},
    {"TopKV2", 1u << 1, 0},         {"ResizeBilinear", 1u << 1, 0},
    {"ResizeNearestNeighbor", 1u << 1, 0},
    {"ReverseV2", 1u << 1, 0},      {"RandomUniform", 1u << 0, 0},
    {"RandomStandardNormal", 1u << 0, 0},
    {"TruncatedNormal", 1u << 0, 0},
};

/* Dtypes that never live in device memory: TensorFlow keeps int32 in host
 * memory on GPUs, and strings, resources, variants and refs are host
 * objects. */
static int host_only_dtype(tfs_dtype dt) {
  return tfs_dtype_is_ref(dt) || dt == TFS_INT32 || dt == TFS_STRING ||
         dt == TFS_RESOURCE || dt == TFS_VARIANT;
}

void tfs_device__memory_types(const tfs_device *d, const tfs_operation *op,
                              uint64_t *host_inputs, uint64_t *host_outputs) {
  if (!d || d->host_memory) {
    *host_inputs = *host_outputs = ALL;
    return;
  }
  uint64_t in = 0, out = 0;
  for (size_t k = 0; k < sizeof kHostArgs / sizeof kHostArgs[0]; k++) {
    if (strcmp(kHostArgs[k].op, op->def->name) != 0) continue;
    in = kHostArgs[k].in;
    out = kHostArgs[k].out;
    if ((in & LAST_INPUT) && in != ALL) {
      in &= ~LAST_INPUT;
      if (op->ninputs > 0 && op->ninputs <= 63)
        in |= 1ull << (op->ninputs - 1);
    }
    break;
  }
  for (int i = 0; i < op->ninputs && i < 64; i++)
    if (host_only_dtype(op->in_types[i])) in |= 1ull << i;
  for (int i = 0; i < op->noutputs && i < 64; i++)
    if (host_only_dtype(op->out_types[i])) out |= 1ull << i;
  *host_inputs = in;
  *host_outputs = out;
}

tfs_device *tfs_device__input_space(tfs_device *d, const tfs_operation *op,
                                    int input) {
  uint64_t in, out;
  tfs_device__memory_types(d, op, &in, &out);
  return input < 64 && (in >> input & 1) ? NULL : d;
}

tfs_device *tfs_device__output_space(tfs_device *d, const tfs_operation *op,
                                     int output) {
  uint64_t in, out;
  tfs_device__memory_types(d, op, &in, &out);
  return output < 64 && (out >> output & 1) ? NULL : d;
}

/* ---- tensors in device memory ---------------------------------------------- */

static void device_dealloc(void *data, size_t len, void *arg) {
  tfs_device *d = arg;
  d->iface->free(d, data);
}

tfs_device *tfs_device__tensor_device(const tfs_tensor *t) {
  if (t && t->buf && t->buf->kind == TFS_BUF_EXTERNAL &&
      t->buf->dealloc == device_dealloc)
    return t->buf->arg;
  return NULL;
}

static char *allocator_name(const tfs_device *d, char *buf, size_t cap) {
  snprintf(buf, cap, "%s_%d_bfc", d->type->name, d->id);
  return buf;
}

tfs_tensor *tfs_device__alloc_tensor(tfs_device *d, tfs_dtype dt,
                                     const tfs_shape *shape, tfs_status *st) {
  if (!d || d->host_memory) return tfs_tensor__alloc(dt, shape, st);
  size_t es = tfs_dtype__storage_size(dt);
  int64_t n = tfs_shape_num_elements(shape), bytes;
  if (es == 0 || n < 0 || tfs_mul_overflow_i64(n, (int64_t)es, &bytes)) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "Cannot allocate a %s tensor in device memory",
                    tfs_dtype_name(dt));
    return NULL;
  }
  void *p = d->iface->alloc(d, (size_t)bytes, st);
  if (!p) {
    char sh[TFS_SHAPE_STRLEN], an[64];
    tfs_status_setf(st, TFS_RESOURCE_EXHAUSTED,
                    "OOM when allocating tensor with shape%s and type %s on "
                    "%s by allocator %s", tfs_shape_str(shape, sh, sizeof sh),
                    tfs_dtype_name(dt), d->name,
                    allocator_name(d, an, sizeof an));
    return NULL;
  }
  tfs_tensor *t = tfs_tensor_wrap(dt, shape->dims, shape->rank, p,
                                  (size_t)bytes, device_dealloc, d, st);
  if (!t) d->iface->free(d, p);
  return t;
}

/* ---- copies --------------------------------------------------------------- */

static atomic_llong g_to_device, g_to_host;

void tfs_device__copy_counts(int64_t *to_device, int64_t *to_host) {
  *to_device = (int64_t)atomic_load(&g_to_device);
  *to_host = (int64_t)atomic_load(&g_to_host);
}

static int plain_dtype(tfs_dtype dt) {
  return !tfs_dtype_is_ref(dt) && dt != TFS_STRING && dt != TFS_RESOURCE &&
         dt != TFS_VARIANT && tfs_dtype__storage_size(dt) > 0;
}

static tfs_tensor *to_host(tfs_tensor *t, tfs_device *src, tfs_status *st) {
  tfs_tensor *h = tfs_tensor__alloc(t->dtype, &t->shape, st);
  if (!h) return NULL;
  if (src->iface->copy_to_host(src, h->data, t->data, t->nbytes, st)) {
    tfs_tensor_free(h);
    return NULL;
  }
  atomic_fetch_add(&g_to_host, 1);
  return h;
}

static tfs_tensor *to_device(tfs_tensor *h, tfs_device *dst, tfs_status *st) {
  tfs_tensor *t = tfs_device__alloc_tensor(dst, h->dtype, &h->shape, st);
  if (!t) return NULL;
  if (dst->iface->copy_to_device(dst, t->data, h->data, h->nbytes, st)) {
    tfs_tensor_free(t);
    return NULL;
  }
  atomic_fetch_add(&g_to_device, 1);
  return t;
}

tfs_tensor *tfs_device__copy_tensor(tfs_tensor *t, tfs_device *to,
                                    tfs_status *st) {
  if (to && to->host_memory) to = NULL;
  tfs_device *from = tfs_device__tensor_device(t);
  if (from == to) return tfs_tensor_ref(t);
  if (!plain_dtype(t->dtype)) {
    tfs_status_setf(st, TFS_INTERNAL,
                    "Cannot copy a %s tensor to %s: it lives in host memory",
                    tfs_dtype_name(t->dtype), to ? to->name : "the host");
    return NULL;
  }
  if (!from) return to_device(t, to, st);
  tfs_tensor *h = to_host(t, from, st);
  if (!h || !to) return h;
  tfs_tensor *r = to_device(h, to, st);
  tfs_tensor_free(h);
  return r;
}

/* ---- the _Copy kernel -------------------------------------------------------- */

static void copy_compute(tfs_kernel_ctx *c) {
  tfs_tensor *r = tfs_device__copy_tensor(c->inputs[0], c->state, c->st);
  if (!r) {
    tfs_kctx_fail_status(c, c->st);
    return;
  }
  tfs_kctx_set_output(c, 0, r);
}

const tfs_kernel_def tfs_device_copy_kernel = {
    "_Copy", "ANY", NULL, 0, NULL, copy_compute, NULL, 0, NULL};
