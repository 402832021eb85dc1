/*
 * tests/device/fake_device.c - the FAKE device type for placement and copy
 * tests: a subset of the CPU kernels, host memory behind a caching
 * allocator of its own (so tensors on it are "device" tensors and edges to
 * it need copies), registered by tests only.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/status.h"
#include "device/bfc_alloc.h"
#include "fake_device.h"

#define MAX_FAKE 4
#define FAKE_LIMIT (64u << 20)

#define FAKE_ONLY_OP "Rint"
const char *const tfs_fake_only_op = FAKE_ONLY_OP;

typedef struct fake_impl {
  tfs_bfc *bfc;
} fake_impl;

static void *host_alloc(void *ctx, size_t n) { return tfs_aligned_alloc(n); }
static void host_free(void *ctx, void *p) { tfs_aligned_free(p); }

static void *fake_alloc(tfs_device *d, size_t bytes, tfs_status *st) {
  fake_impl *f = d->impl;
  void *p = tfs_bfc_alloc(f->bfc, bytes);
  if (!p)
    tfs_status_setf(st, TFS_RESOURCE_EXHAUSTED,
                    "Allocator (%s) ran out of memory", tfs_bfc_name(f->bfc));
  return p;
}

static void fake_free(tfs_device *d, void *p) {
  fake_impl *f = d->impl;
  tfs_bfc_free(f->bfc, p);
}

static int fake_copy(tfs_device *d, void *dst, const void *src, size_t n,
                     tfs_status *st) {
  if (n) memcpy(dst, src, n);
  return 0;
}

/* A kernel for the FAKE-only op: placement never runs it. */
static void fake_only_compute(tfs_kernel_ctx *c) {
  tfs_kctx_fail(c, TFS_UNIMPLEMENTED, "the FAKE-only op does not run");
}
static const tfs_kernel_def kFakeOnly = {
    FAKE_ONLY_OP, "FAKE", NULL, 0, NULL, fake_only_compute, NULL, 0, NULL};

/* FAKE's kernels run the CPU kernels, then move their outputs into FAKE
 * memory (except host-memory outputs: Shape's, int32), so that values on
 * FAKE really are device values and every consumer elsewhere needs a
 * copy, as with a GPU. */
typedef struct wrap_state {
  tfs_device *dev;
  const tfs_kernel_def *cpu;
  void *cpu_state;
  uint64_t host_outputs;
} wrap_state;

static int wrap_prepare(tfs_kernel_init *ki) {
  wrap_state *s = tfs_calloc(1, sizeof *s);
  if (!s) return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  s->dev = ki->device;
  s->cpu = tfs_kernel_find(ki->op, "CPU", ki->attrs, ki->node_name, ki->st);
  for (int i = 0; i < ki->noutputs && i < 64; i++)
    if (strcmp(ki->op->name, "Shape") == 0 || ki->out_types[i] == TFS_INT32)
      s->host_outputs |= 1ull << i;
  int rc = 0;
  if (!s->cpu) {
    rc = -1;
  } else if (s->cpu->prepare) {
    ki->kdata = s->cpu->data;
    rc = s->cpu->prepare(ki);
    s->cpu_state = ki->state;
  }
  ki->state = s;
  return rc;
}

static void wrap_release(void *p) {
  wrap_state *s = p;
  if (s && s->cpu && s->cpu->release && s->cpu_state)
    s->cpu->release(s->cpu_state);
  tfs_free(s);
}

static void wrap_compute(tfs_kernel_ctx *c) {
  wrap_state *s = c->state;
  c->state = s->cpu_state;
  s->cpu->compute(c);
  c->state = s;
  for (int i = 0; i < c->noutputs && !c->failed; i++) {
    tfs_tensor *o = c->outputs[i];
    if (!o || (s->host_outputs >> i & 1) ||
        tfs_device__tensor_device(o) == s->dev)
      continue;
    tfs_tensor *moved = tfs_device__copy_tensor(o, s->dev, c->st);
    if (!moved) {
      tfs_kctx_fail_status(c, c->st);
      return;
    }
    tfs_kctx_set_output(c, i, moved);
  }
}

static const char *const kOps[] = {"AddV2", "Identity", "Const", "Relu",
                                   "Shape", NULL};
#define WRAP(OP) {OP, "FAKE", NULL, 0, wrap_prepare, wrap_compute, \
                  wrap_release, 0, NULL}
static const tfs_kernel_def kWrapped[] = {WRAP("AddV2"), WRAP("Identity"),
                                          WRAP("Const"), WRAP("Relu"),
                                          WRAP("Shape")};

static const tfs_kernel_def *fake_find_kernel(tfs_device *d,
                                              const tfs_op_def *op,
                                              const tfs_attrs *attrs,
                                              const char *node,
                                              tfs_status *st) {
  if (strcmp(op->name, FAKE_ONLY_OP) == 0) return &kFakeOnly;
  int known = -1;
  for (int i = 0; kOps[i]; i++)
    if (strcmp(op->name, kOps[i]) == 0) known = i;
  tfs_dtype t = TFS_FLOAT;
  if (strcmp(op->name, "AddV2") == 0) tfs_attrs_get_type(attrs, "T", &t);
  if (known < 0 || t != TFS_FLOAT ||
      !tfs_kernel_find(op, "CPU", attrs, node, st)) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "No OpKernel was registered to support Op '%s' used by "
                    "{{node %s}} on FAKE", op->name, node);
    return NULL;
  }
  return &kWrapped[known];
}

static void fake_stats(tfs_device *d, int64_t *in_use, int64_t *limit) {
  tfs_bfc_stats s;
  tfs_bfc_get_stats(((fake_impl *)d->impl)->bfc, &s);
  *in_use = s.in_use;
  *limit = s.limit;
}

static const tfs_device_iface kFakeIface = {
    .alloc = fake_alloc,
    .free = fake_free,
    .copy_to_device = fake_copy,
    .copy_to_host = fake_copy,
    .copy_on_device = fake_copy,
    .find_kernel = fake_find_kernel,
    .memory_stats = fake_stats,
};

static int fake_devices(const tfs_config *cfg, tfs_device **out, int cap,
                        int *n, tfs_status *st);
static const tfs_device_type kFakeType = {"FAKE", 150, fake_devices};

static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static tfs_device g_dev[MAX_FAKE];
static fake_impl g_impl[MAX_FAKE];

static tfs_device *get_locked(int i) {
  tfs_device *d = &g_dev[i];
  if (d->iface) return d;
  char name[32];
  snprintf(name, sizeof name, "FAKE_%d_bfc", i);
  tfs_bfc_backend be = {host_alloc, host_free, NULL};
  g_impl[i].bfc = tfs_bfc_new(name, FAKE_LIMIT, 1, be);
  if (!g_impl[i].bfc) return NULL;
  d->iface = &kFakeIface;
  d->type = &kFakeType;
  d->id = i;
  d->host_memory = 0;
  d->memory_limit = FAKE_LIMIT;
  d->impl = &g_impl[i];
  tfs_device_name__local(&d->parsed, "FAKE", i);
  tfs_device_name__str(&d->parsed, d->name, sizeof d->name);
  snprintf(d->desc, sizeof d->desc, "device: %d, name: fake test device", i);
  return d;
}

static int fake_devices(const tfs_config *cfg, tfs_device **out, int cap,
                        int *n, tfs_status *st) {
  int want = cfg ? tfs_config__device_count(cfg, "FAKE") : -1;
  if (want < 0) want = 1;
  if (want > MAX_FAKE) want = MAX_FAKE;
  if (want > cap) want = cap;
  pthread_mutex_lock(&g_mu);
  int k = 0;
  for (int i = 0; i < want; i++) {
    tfs_device *d = get_locked(i);
    if (d) out[k++] = d;
  }
  pthread_mutex_unlock(&g_mu);
  *n = k;
  if (k < want) {
    TFS_OOM(st);
    return -1;
  }
  return 0;
}

void tfs_fake_device_register(void) { tfs_device__register_type(&kFakeType); }

void tfs_fake_device_unregister(void) { tfs_device__unregister_type("FAKE"); }

tfs_device *tfs_fake_device(int i) {
  tfs_fake_device_register();
  if (i < 0 || i >= MAX_FAKE) return NULL;
  pthread_mutex_lock(&g_mu);
  tfs_device *d = get_locked(i);
  pthread_mutex_unlock(&g_mu);
  return d;
}

int64_t tfs_fake_device_bytes_in_use(void) {
  int64_t total = 0;
  pthread_mutex_lock(&g_mu);
  for (int i = 0; i < MAX_FAKE; i++) {
    if (!g_dev[i].iface) continue;
    tfs_bfc_stats s;
    tfs_bfc_get_stats(g_impl[i].bfc, &s);
    total += s.in_use;
  }
  pthread_mutex_unlock(&g_mu);
  return total;
}
