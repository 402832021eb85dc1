/*
 * core/resource_mgr.c - the variable store of a session.
 */
#include "core/resource_mgr.h"

#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "core/hashmap.h"
#include "core/status.h"

struct tfs_resource_mgr {
  atomic_int refs;
  pthread_mutex_t mu;
  tfs_map map;          /* key "kind/container/name" -> tfs_variable; */
  char **keys;          /* guarded by: mu; owned keys */
  tfs_variable **vars;
  size_t n, cap;
  /* other resources (queues, iterators); guarded by: mu */
  struct other_res *others;
};

typedef struct other_res {
  struct other_res *next;
  const tfs_resource_kind *kind;
  char *container, *name;
  void *obj;
} other_res;

tfs_resource_mgr *tfs_resource_mgr_new(void) {
  tfs_resource_mgr *m = tfs_calloc(1, sizeof(*m));
  if (!m) return NULL;
  atomic_init(&m->refs, 1);
  pthread_mutex_init(&m->mu, NULL);
  return m;
}

tfs_resource_mgr *tfs_resource_mgr_ref(tfs_resource_mgr *m) {
  if (m) atomic_fetch_add(&m->refs, 1);
  return m;
}

void tfs_resource_mgr_free(tfs_resource_mgr *m) {
  if (!m || atomic_fetch_sub(&m->refs, 1) != 1) return;
  for (size_t i = 0; i < m->n; i++) {
    tfs_variable *v = m->vars[i];
    tfs_tensor_free(v->value);
    tfs_free(v->container);
    tfs_free(v->name);
    pthread_mutex_destroy(&v->mu);
    tfs_free(v);
    tfs_free(m->keys[i]);
  }
  for (other_res *r = m->others, *next; r; r = next) {
    next = r->next;
    r->kind->free_fn(r->obj);
    tfs_free(r->container);
    tfs_free(r->name);
    tfs_free(r);
  }
  tfs_free(m->vars);
  tfs_free(m->keys);
  tfs_map_free(&m->map);
  pthread_mutex_destroy(&m->mu);
  tfs_free(m);
}

static char *make_key(const char *container, const char *name,
                      tfs_var_kind kind) {
  return tfs_asprintf("%d/%s/%s", (int)kind, container ? container : "",
                      name ? name : "");
}

/* Allocates nothing, so that running out of memory never reads as a
 * missing variable: the key is built on the stack, and a key too long for
 * that is looked for by a scan. */
tfs_variable *tfs_resource_mgr_find(tfs_resource_mgr *m,
                                    const char *container, const char *name,
                                    tfs_var_kind kind) {
  char key[256];
  if (!container) container = "";
  if (!name) name = "";
  int n = snprintf(key, sizeof key, "%d/%s/%s", (int)kind, container, name);
  tfs_variable *v = NULL;
  pthread_mutex_lock(&m->mu);
  if (n >= 0 && (size_t)n < sizeof key) {
    v = tfs_map_get_str(&m->map, key);
  } else {
    for (size_t i = 0; i < m->n && !v; i++)
      if (m->vars[i]->kind == kind &&
          strcmp(m->vars[i]->container, container) == 0 &&
          strcmp(m->vars[i]->name, name) == 0)
        v = m->vars[i];
  }
  pthread_mutex_unlock(&m->mu);
  return v;
}

tfs_variable *tfs_resource_mgr_find_or_create(tfs_resource_mgr *m,
                                              const char *container,
                                              const char *name,
                                              tfs_var_kind kind,
                                              tfs_dtype dtype,
                                              const tfs_shape *shape,
                                              tfs_status *st) {
  char *key = make_key(container, name, kind);
  if (!key) {
    TFS_OOM(st);
    return NULL;
  }
  pthread_mutex_lock(&m->mu);
  tfs_variable *v = tfs_map_get_str(&m->map, key);
  if (v) {
    pthread_mutex_unlock(&m->mu);
    tfs_free(key);
    return v;
  }
  v = tfs_calloc(1, sizeof(*v));
  if (!v || tfs_grow((void **)&m->vars, &m->cap, m->n + 1, sizeof(void *)))
    goto oom;
  size_t kcap = m->cap;
  /* keys grows in lockstep with vars */
  char **nk = tfs_realloc(m->keys, sizeof(char *) * kcap);
  if (!nk) goto oom;
  m->keys = nk;
  pthread_mutex_init(&v->mu, NULL);
  v->kind = kind;
  v->dtype = dtype;
  if (shape)
    v->shape = *shape;
  else
    v->shape.rank = -1;
  v->container = tfs_strdup(container ? container : "");
  v->name = tfs_strdup(name ? name : "");
  if (!v->container || !v->name || tfs_map_put_str(&m->map, key, v)) {
    tfs_free(v->container);
    tfs_free(v->name);
    pthread_mutex_destroy(&v->mu);
    goto oom;
  }
  m->keys[m->n] = key;
  m->vars[m->n++] = v;
  pthread_mutex_unlock(&m->mu);
  return v;
oom:
  pthread_mutex_unlock(&m->mu);
  tfs_free(v);
  tfs_free(key);
  TFS_OOM(st);
  return NULL;
}

tfs_tensor *tfs_variable_read(tfs_variable *v) {
  pthread_mutex_lock(&v->mu);
  tfs_tensor *t = tfs_tensor_ref(v->value);
  pthread_mutex_unlock(&v->mu);
  return t;
}

void tfs_variable_write(tfs_variable *v, tfs_tensor *t) {
  pthread_mutex_lock(&v->mu);
  tfs_tensor *old = v->value;
  v->value = t;
  pthread_mutex_unlock(&v->mu);
  tfs_tensor_free(old);
}

int tfs_resource_mgr_count(tfs_resource_mgr *m) {
  pthread_mutex_lock(&m->mu);
  int n = (int)m->n;
  pthread_mutex_unlock(&m->mu);
  return n;
}

int tfs_resource_mgr_has_container(tfs_resource_mgr *m,
                                   const char *container) {
  int found = 0;
  if (!container) container = "";
  pthread_mutex_lock(&m->mu);
  for (size_t i = 0; i < m->n && !found; i++)
    found = strcmp(m->vars[i]->container, container) == 0;
  pthread_mutex_unlock(&m->mu);
  return found;
}

/* ---- other session resources --------------------------------------------- */

static other_res *other_find(tfs_resource_mgr *m, const char *container,
                             const char *name, const tfs_resource_kind *kind) {
  for (other_res *r = m->others; r; r = r->next)
    if (r->kind == kind && strcmp(r->container, container) == 0 &&
        strcmp(r->name, name) == 0)
      return r;
  return NULL;
}

void *tfs_resource_mgr_lookup_or_create(tfs_resource_mgr *m,
                                        const char *container,
                                        const char *name,
                                        const tfs_resource_kind *kind,
                                        tfs_resource_create_fn create,
                                        void *arg, int *created,
                                        tfs_status *st) {
  if (!container) container = "";
  if (!name) name = "";
  *created = 0;
  pthread_mutex_lock(&m->mu);
  other_res *r = other_find(m, container, name, kind);
  if (r) {
    pthread_mutex_unlock(&m->mu);
    return r->obj;
  }
  r = tfs_calloc(1, sizeof(*r));
  if (r) {
    r->container = tfs_strdup(container);
    r->name = tfs_strdup(name);
  }
  if (!r || !r->container || !r->name) {
    pthread_mutex_unlock(&m->mu);
    if (r) {
      tfs_free(r->container);
      tfs_free(r->name);
    }
    tfs_free(r);
    TFS_OOM(st);
    return NULL;
  }
  r->kind = kind;
  r->obj = create(arg, st);
  if (!r->obj) {
    pthread_mutex_unlock(&m->mu);
    tfs_free(r->container);
    tfs_free(r->name);
    tfs_free(r);
    return NULL;
  }
  r->next = m->others;
  m->others = r;
  *created = 1;
  pthread_mutex_unlock(&m->mu);
  return r->obj;
}

void *tfs_resource_mgr_lookup(tfs_resource_mgr *m, const char *container,
                              const char *name,
                              const tfs_resource_kind *kind) {
  pthread_mutex_lock(&m->mu);
  other_res *r = other_find(m, container ? container : "", name ? name : "",
                            kind);
  void *obj = r ? r->obj : NULL;
  pthread_mutex_unlock(&m->mu);
  return obj;
}

void tfs_resource_mgr_wake_all(tfs_resource_mgr *m) {
  if (!m) return;
  pthread_mutex_lock(&m->mu);
  for (other_res *r = m->others; r; r = r->next)
    if (r->kind->wake_fn) r->kind->wake_fn(r->obj);
  pthread_mutex_unlock(&m->mu);
}

int64_t tfs_resource_unique_id(void) {
  static atomic_llong next;
  return (int64_t)atomic_fetch_add(&next, 1);
}

/* ---- per-step resources -------------------------------------------------- */

typedef struct step_res {
  char *name;           /* owned; the map's key */
  char *type;           /* owned */
  void *obj;
  tfs_step_resource_free_fn free_fn;
} step_res;

struct tfs_step_container {
  pthread_mutex_t mu;
  char *name;
  tfs_map map;          /* name -> step_res; guarded by: mu */
  step_res **res;       /* in creation order; guarded by: mu */
  size_t n, cap;
  atomic_llong next_id;
};

tfs_step_container *tfs_step_container_get(
    tfs_step_container *_Atomic *slot, int64_t step_id, tfs_status *st) {
  tfs_step_container *c = atomic_load_explicit(slot, memory_order_acquire);
  if (c) return c;
  c = tfs_calloc(1, sizeof(*c));
  if (c) c->name = tfs_asprintf("__per_step_%lld", (long long)step_id);
  if (!c || !c->name) {
    tfs_free(c);
    TFS_OOM(st);
    return NULL;
  }
  pthread_mutex_init(&c->mu, NULL);
  atomic_init(&c->next_id, 0);
  tfs_step_container *expected = NULL;
  if (!atomic_compare_exchange_strong_explicit(slot, &expected, c,
                                               memory_order_acq_rel,
                                               memory_order_acquire)) {
    tfs_step_container_free(c); /* another kernel made it first */
    return expected;
  }
  return c;
}

const char *tfs_step_container_name(const tfs_step_container *c) {
  return c->name;
}

int64_t tfs_step_container_next_id(tfs_step_container *c) {
  return (int64_t)atomic_fetch_add(&c->next_id, 1);
}

static void step_res_free(step_res *r) {
  if (!r) return;
  if (r->obj) r->free_fn(r->obj);
  tfs_free(r->name);
  tfs_free(r->type);
  tfs_free(r);
}

int tfs_step_container_add(tfs_step_container *c, const char *name,
                           const char *type, void *obj,
                           tfs_step_resource_free_fn free_fn,
                           tfs_status *st) {
  step_res *r = tfs_calloc(1, sizeof(*r));
  if (!r) {
    free_fn(obj);
    TFS_OOM(st);
    return -1;
  }
  r->obj = obj;
  r->free_fn = free_fn;
  r->name = tfs_strdup(name);
  r->type = tfs_strdup(type);
  if (!r->name || !r->type) goto oom;
  pthread_mutex_lock(&c->mu);
  /* one resource per name (TensorFlow also keys by type; no kernel of
   * ours reuses a name for another type) */
  step_res *old = tfs_map_get_str(&c->map, name);
  if (old) {
    tfs_status_setf(st, TFS_ALREADY_EXISTS,
                    "Resource %s/%s/%s already exists", c->name, name,
                    old->type);
    pthread_mutex_unlock(&c->mu);
    step_res_free(r);
    return -1;
  }
  if (tfs_grow((void **)&c->res, &c->cap, c->n + 1, sizeof(void *)) ||
      tfs_map_put_str(&c->map, r->name, r)) {
    pthread_mutex_unlock(&c->mu);
    goto oom;
  }
  c->res[c->n++] = r;
  pthread_mutex_unlock(&c->mu);
  return 0;
oom:
  step_res_free(r);
  TFS_OOM(st);
  return -1;
}

void *tfs_step_container_find(tfs_step_container *c, const char *name,
                              const char *type) {
  pthread_mutex_lock(&c->mu);
  step_res *r = tfs_map_get_str(&c->map, name);
  void *obj = r && strcmp(r->type, type) == 0 ? r->obj : NULL;
  pthread_mutex_unlock(&c->mu);
  return obj;
}

void tfs_step_container_free(tfs_step_container *c) {
  if (!c) return;
  for (size_t i = 0; i < c->n; i++) step_res_free(c->res[i]);
  tfs_free(c->res);
  tfs_map_free(&c->map);
  tfs_free(c->name);
  pthread_mutex_destroy(&c->mu);
  tfs_free(c);
}
