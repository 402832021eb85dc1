/*
 * device/device_set.c - the device types of the process (CPU always, GPU in
 * CUDA builds, others registered by tests), the CPU device, the device set
 * a config sees, kernel lookup per device, and the public device list.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/status.h"
#include "core/strbuf.h"
#include "device/device.h"
#include "tfs_config.h"
#include "tfsess/device.h"

/* ---- the CPU device -------------------------------------------------------- */

static void *cpu_alloc(tfs_device *d, size_t bytes, tfs_status *st) {
  void *p = tfs_aligned_alloc(bytes);
  if (!p) TFS_OOM(st);
  return p;
}

static void cpu_free(tfs_device *d, void *p) { tfs_aligned_free(p); }

static int cpu_copy(tfs_device *d, void *dst, const void *src, size_t n,
                    tfs_status *st) {
  if (n) memcpy(dst, src, n);
  return 0;
}

static const tfs_kernel_def *cpu_find_kernel(tfs_device *d,
                                             const tfs_op_def *op,
                                             const tfs_attrs *attrs,
                                             const char *node,
                                             tfs_status *st) {
  return tfs_kernel_find(op, "CPU", attrs, node, st);
}

static const tfs_device_iface kCpuIface = {
    .alloc = cpu_alloc,
    .free = cpu_free,
    .copy_to_device = cpu_copy,
    .copy_to_host = cpu_copy,
    .copy_on_device = cpu_copy,
    .find_kernel = cpu_find_kernel,
};

#define MAX_CPUS 64
static tfs_device g_cpus[MAX_CPUS];
static pthread_mutex_t g_cpu_mu = PTHREAD_MUTEX_INITIALIZER;
static int g_ncpus; /* guarded by: g_cpu_mu; initialised prefix of g_cpus */

static int cpu_devices(const tfs_config *cfg, tfs_device **out, int cap,
                       int *n, tfs_status *st);

static const tfs_device_type kCpuType = {"CPU", 70, cpu_devices, 0,
                                         TFS_BFLOAT16};

static tfs_device *cpu_device(int id) {
  pthread_mutex_lock(&g_cpu_mu);
  while (g_ncpus <= id) {
    tfs_device *d = &g_cpus[g_ncpus];
    d->iface = &kCpuIface;
    d->type = &kCpuType;
    d->id = g_ncpus;
    d->host_memory = 1;
    tfs_device_name__local(&d->parsed, "CPU", g_ncpus);
    tfs_device_name__str(&d->parsed, d->name, sizeof d->name);
    g_ncpus++;
  }
  pthread_mutex_unlock(&g_cpu_mu);
  return &g_cpus[id];
}

tfs_device *tfs_device__cpu(void) { return cpu_device(0); }

/* device_count {"CPU": n}: n CPU devices (at least one: CPU:0 always). */
static int cpu_devices(const tfs_config *cfg, tfs_device **out, int cap,
                       int *n, tfs_status *st) {
  int want = cfg ? tfs_config__device_count(cfg, "CPU") : -1;
  if (want < 1) want = 1;
  if (want > MAX_CPUS) want = MAX_CPUS;
  if (want > cap) want = cap;
  for (int i = 0; i < want; i++) out[i] = cpu_device(i);
  *n = want;
  return 0;
}

/* ---- types ------------------------------------------------------------------ */

#define MAX_TYPES 8
static pthread_mutex_t g_types_mu = PTHREAD_MUTEX_INITIALIZER;
static const tfs_device_type *g_types[MAX_TYPES]; /* guarded by: g_types_mu */
static int g_ntypes;

static void types_init_locked(void) {
  if (g_ntypes) return;
  g_types[g_ntypes++] = &kCpuType;
  for (int i = 0; tfs_backend_device_types[i] && g_ntypes < MAX_TYPES; i++)
    g_types[g_ntypes++] = tfs_backend_device_types[i];
}

const tfs_device_type *tfs_device__type(const char *name) {
  const tfs_device_type *t = NULL;
  pthread_mutex_lock(&g_types_mu);
  types_init_locked();
  for (int i = 0; i < g_ntypes && !t; i++)
    if (strcmp(g_types[i]->name, name) == 0) t = g_types[i];
  pthread_mutex_unlock(&g_types_mu);
  return t;
}

int tfs_device__register_type(const tfs_device_type *t) {
  int rc = 0;
  pthread_mutex_lock(&g_types_mu);
  types_init_locked();
  int i = 0;
  while (i < g_ntypes && strcmp(g_types[i]->name, t->name) != 0) i++;
  if (i < g_ntypes && i > 0)
    g_types[i] = t;
  else if (i == g_ntypes && g_ntypes < MAX_TYPES)
    g_types[g_ntypes++] = t;
  else
    rc = -1;
  pthread_mutex_unlock(&g_types_mu);
  if (rc == 0) tfs_device_name__add_known_type(t->name);
  return rc;
}

void tfs_device__unregister_type(const char *name) {
  pthread_mutex_lock(&g_types_mu);
  types_init_locked();
  for (int i = 1; i < g_ntypes; i++) {
    if (strcmp(g_types[i]->name, name) == 0) {
      memmove(&g_types[i], &g_types[i + 1],
              sizeof(g_types[0]) * (size_t)(g_ntypes - i - 1));
      g_ntypes--;
      break;
    }
  }
  pthread_mutex_unlock(&g_types_mu);
}

/* ---- kernels ------------------------------------------------------------------ */

int tfs_device__supports(tfs_device *d, const tfs_op_def *op,
                         const tfs_attrs *attrs) {
  tfs_status *st = tfs_status_new();
  const tfs_kernel_def *k =
      st ? d->iface->find_kernel(d, op, attrs, "", st) : NULL;
  tfs_status_free(st);
  return k != NULL;
}

int tfs_device__prepare_kernel(tfs_device *d, const tfs_kernel_def *k,
                               tfs_kernel_init *ki) {
  ki->device = d ? d : tfs_device__cpu();
  if (!k->prepare) return 0;
  return k->prepare(ki);
}

/* ---- the set ----------------------------------------------------------------- */

#define MAX_SET 256

tfs_device_set *tfs_device_set__new(const tfs_config *cfg, tfs_status *st) {
  const tfs_device_type *types[MAX_TYPES];
  int ntypes;
  pthread_mutex_lock(&g_types_mu);
  types_init_locked();
  ntypes = g_ntypes;
  memcpy(types, g_types, sizeof(types[0]) * (size_t)ntypes);
  pthread_mutex_unlock(&g_types_mu);

  tfs_device_set *s = tfs_calloc(1, sizeof *s);
  tfs_device **all = tfs_calloc(MAX_SET, sizeof(tfs_device *));
  if (!s || !all) {
    tfs_free(s);
    tfs_free(all);
    TFS_OOM(st);
    return NULL;
  }
  int n = 0;
  for (int t = 0; t < ntypes; t++) {
    int got = 0;
    if (types[t]->devices(cfg, all + n, MAX_SET - n, &got, st)) {
      tfs_free(all);
      tfs_free(s);
      return NULL;
    }
    n += got;
  }
  s->n = n;
  s->devices = all;
  return s;
}

void tfs_device_set__free(tfs_device_set *s) {
  if (!s) return;
  tfs_free(s->devices);
  tfs_free(s);
}

tfs_device *tfs_device_set__find(const tfs_device_set *s, const char *name) {
  tfs_device_name p;
  if (!s || tfs_device_name__parse(name, &p)) return NULL;
  tfs_device *found = NULL;
  for (int i = 0; i < s->n; i++) {
    if (!tfs_device_name__matches(&p, &s->devices[i]->parsed)) continue;
    if (found) return NULL; /* ambiguous */
    found = s->devices[i];
  }
  return found;
}

int tfs_device_set__synchronize(const tfs_device_set *s, tfs_status *st) {
  for (int i = 0; s && i < s->n; i++) {
    tfs_device *d = s->devices[i];
    if (d->iface->synchronize && d->iface->synchronize(d, st)) return -1;
  }
  return 0;
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

char *tfs_device_set__type_list(const tfs_device_set *s) {
  const char *names[MAX_SET];
  int n = 0;
  for (int i = 0; s && i < s->n; i++) {
    int seen = 0;
    for (int k = 0; k < n; k++)
      if (strcmp(names[k], s->devices[i]->type->name) == 0) seen = 1;
    if (!seen) names[n++] = s->devices[i]->type->name;
  }
  qsort(names, (size_t)n, sizeof names[0], cmp_str);
  tfs_strbuf b = TFS_STRBUF_INIT;
  tfs_strbuf_putc(&b, '[');
  for (int k = 0; k < n; k++)
    tfs_strbuf_printf(&b, "%s%s", k ? ", " : "", names[k]);
  tfs_strbuf_putc(&b, ']');
  return tfs_strbuf_take(&b);
}

/* ---- the public list ------------------------------------------------------ */

struct tfs_device_list {
  int n;
  tfs_device **d;
};

int tfs_device_count_visible(const char *type) {
  const tfs_device_type *t = type ? tfs_device__type(type) : NULL;
  if (!t) return 0;
  if (t->visible_count) return t->visible_count();
  tfs_device **all = tfs_calloc(MAX_SET, sizeof(tfs_device *));
  tfs_status *st = tfs_status_new();
  int n = 0;
  if (!all || !st || t->devices(NULL, all, MAX_SET, &n, st)) n = 0;
  tfs_status_free(st);
  tfs_free(all);
  return n;
}

tfs_device_list *tfs_device_list__from_config(const tfs_config *cfg,
                                              tfs_status *st) {
  tfs_device_set *s = tfs_device_set__new(cfg, st);
  if (!s) return NULL;
  tfs_device_list *l = tfs_malloc(sizeof *l);
  if (!l) {
    tfs_device_set__free(s);
    TFS_OOM(st);
    return NULL;
  }
  l->n = s->n;
  l->d = s->devices;
  tfs_free(s);
  tfs_status_clear(st);
  return l;
}

tfs_device_list *tfs_device_list__from_set(const tfs_device_set *s,
                                           tfs_status *st) {
  tfs_device_list *l = tfs_malloc(sizeof *l);
  int n = s ? s->n : 0;
  tfs_device **d = tfs_malloc(sizeof(tfs_device *) * (size_t)(n + 1));
  if (!l || !d) {
    tfs_free(l);
    tfs_free(d);
    TFS_OOM(st);
    return NULL;
  }
  if (n) memcpy(d, s->devices, sizeof(tfs_device *) * (size_t)n);
  l->n = n;
  l->d = d;
  tfs_status_clear(st);
  return l;
}

void tfs_device_list_free(tfs_device_list *l) {
  if (!l) return;
  tfs_free(l->d);
  tfs_free(l);
}

int tfs_device_list_count(const tfs_device_list *l) { return l ? l->n : 0; }

static const tfs_device *list_at(const tfs_device_list *l, int i) {
  return l && i >= 0 && i < l->n ? l->d[i] : NULL;
}

const char *tfs_device_list_name(const tfs_device_list *l, int i) {
  const tfs_device *d = list_at(l, i);
  return d ? d->name : NULL;
}

const char *tfs_device_list_type(const tfs_device_list *l, int i) {
  const tfs_device *d = list_at(l, i);
  return d ? d->type->name : NULL;
}

int64_t tfs_device_list_memory_bytes(const tfs_device_list *l, int i) {
  const tfs_device *d = list_at(l, i);
  return d ? d->memory_limit : 0;
}

const char *tfs_device_list_description(const tfs_device_list *l, int i) {
  const tfs_device *d = list_at(l, i);
  return d ? d->desc : NULL;
}
