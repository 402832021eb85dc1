/*
 * compat_eager/eager_cache.c - eager execution: each distinct (op, attrs,
 * input dtypes and shapes, device) becomes a one-node graph in the
 * context's private graph, planned once; later calls with the same
 * signature find the plan by a 128-bit fingerprint and run it directly.
 */
#include <stdlib.h>
#include <string.h>

#include "compat_eager/eager_internal.h"
#include "core/alloc.h"
#include "core/status.h"
#include "core/strbuf.h"

/* ---- fingerprint ---------------------------------------------------------- */

typedef struct {
  unsigned char small[512];
  unsigned char *p;
  size_t len, cap;
  int oom;
} keybuf;

static void kb_put(keybuf *k, const void *data, size_t n) {
  if (k->oom) return;
  if (k->len + n > k->cap) {
    size_t nc = k->cap * 2;
    while (nc < k->len + n) nc *= 2;
    unsigned char *q = k->p == k->small ? tfs_malloc(nc)
                                        : tfs_realloc(k->p, nc);
    if (!q) {
      k->oom = 1;
      return;
    }
    if (k->p == k->small) memcpy(q, k->small, k->len);
    k->p = q;
    k->cap = nc;
  }
  memcpy(k->p + k->len, data, n);
  k->len += n;
}

static void kb_u64(keybuf *k, uint64_t v) { kb_put(k, &v, sizeof v); }

static void kb_shape(keybuf *k, const tfs_shape *s) {
  kb_u64(k, (uint64_t)(int64_t)s->rank);
  if (s->rank > 0) kb_put(k, s->dims, sizeof(int64_t) * (size_t)s->rank);
}

static void kb_tensor(keybuf *k, const tfs_tensor *t) {
  kb_u64(k, (uint64_t)t->dtype);
  kb_shape(k, &t->shape);
  if (t->dtype == TFS_STRING) {
    for (int64_t i = 0; i < t->nelems; i++) {
      size_t n;
      const char *s = tfs_tensor_string_at(t, i, &n);
      kb_u64(k, n);
      kb_put(k, s, n);
    }
  } else if (t->dtype != TFS_RESOURCE && t->nbytes) {
    kb_put(k, t->data, t->nbytes);
  }
}

static void kb_attr_elem(keybuf *k, int type, const void *p) {
  switch (type) {
    case TFS_ATTR_STRING: {
      const tfs_bytes *b = p;
      kb_u64(k, b->len);
      kb_put(k, b->ptr, b->len);
      break;
    }
    case TFS_ATTR_INT: kb_put(k, p, sizeof(int64_t)); break;
    case TFS_ATTR_FLOAT: kb_put(k, p, sizeof(float)); break;
    case TFS_ATTR_BOOL: kb_put(k, p, 1); break;
    case TFS_ATTR_TYPE: kb_put(k, p, sizeof(tfs_dtype)); break;
    case TFS_ATTR_SHAPE: kb_shape(k, p); break;
    case TFS_ATTR_TENSOR: kb_tensor(k, *(tfs_tensor *const *)p); break;
    case TFS_ATTR_FUNC: {
      const tfs_func_attr *f = p;
      kb_put(k, f->name, strlen(f->name) + 1);
      break;
    }
    default: break;
  }
}

static void kb_attr(keybuf *k, const tfs_attr_value *v) {
  unsigned char tag[2] = {v->type, v->is_list};
  kb_put(k, tag, 2);
  if (v->is_list) {
    static const size_t sizes[] = {sizeof(tfs_bytes), sizeof(int64_t),
                                   sizeof(float), 1, sizeof(tfs_dtype),
                                   sizeof(tfs_shape), sizeof(void *), 0,
                                   sizeof(tfs_func_attr)};
    size_t es = v->type < 9 ? sizes[v->type] : 0;
    kb_u64(k, (uint64_t)v->u.list.n);
    for (int i = 0; i < v->u.list.n && es; i++)
      kb_attr_elem(k, v->type, (const char *)v->u.list.v + es * (size_t)i);
    return;
  }
  switch (v->type) {
    case TFS_ATTR_STRING: kb_attr_elem(k, v->type, &v->u.s); break;
    case TFS_ATTR_SHAPE: kb_attr_elem(k, v->type, v->u.shape); break;
    case TFS_ATTR_TENSOR: kb_attr_elem(k, v->type, &v->u.tensor); break;
    case TFS_ATTR_FUNC: kb_attr_elem(k, v->type, v->u.func); break;
    case TFS_ATTR_PLACEHOLDER:
      kb_put(k, v->u.placeholder, strlen(v->u.placeholder) + 1);
      break;
    default: kb_attr_elem(k, v->type, &v->u); break;
  }
}

static int fingerprint(const tfs_op_call *call, tfs_tensor *const *inputs,
                       uint8_t key[16]) {
  keybuf k;
  k.p = k.small;
  k.len = 0;
  k.cap = sizeof k.small;
  k.oom = 0;
  kb_put(&k, &call->def, sizeof call->def);
  if (call->device) kb_put(&k, call->device, strlen(call->device));
  kb_put(&k, "", 1);
  for (int i = 0; i < call->attrs.n; i++) {
    kb_put(&k, call->attrs.e[i].name, strlen(call->attrs.e[i].name) + 1);
    kb_attr(&k, &call->attrs.e[i].value);
  }
  for (int i = 0; i < call->ninputs; i++) {
    kb_u64(&k, (uint64_t)inputs[i]->dtype);
    kb_shape(&k, &inputs[i]->shape);
  }
  int oom = k.oom;
  uint64_t h1 = tfs_hash_bytes(k.p, k.len, 0x9e3779b97f4a7c15ULL);
  uint64_t h2 = tfs_hash_bytes(k.p, k.len, 0xc2b2ae3d27d4eb4fULL);
  memcpy(key, &h1, 8);
  memcpy(key + 8, &h2, 8);
  if (k.p != k.small) tfs_free(k.p);
  return oom ? -1 : 0;
}

/* ---- the typed-op fast key ----------------------------------------------- */

size_t tfs_eager__fast_key(const tfs_op_def *def, tfs_tensor *const *in,
                           int n, unsigned char *buf) {
  size_t len = 0;
  if (n > 2) return 0;
  memcpy(buf, &def, sizeof def);
  len += sizeof def;
  for (int i = 0; i < n; i++) {
    const tfs_tensor *t = in[i];
    int32_t head[2] = {(int32_t)t->dtype, t->shape.rank};
    size_t dl = sizeof(int64_t) * (size_t)(t->shape.rank > 0 ? t->shape.rank
                                                            : 0);
    if (len + sizeof head + dl > TFS_EAGER_FAST_MAX) return 0;
    memcpy(buf + len, head, sizeof head);
    len += sizeof head;
    if (dl) memcpy(buf + len, t->shape.dims, dl);
    len += dl;
  }
  return len;
}

tfs_eager_entry *tfs_eager__fast_get(tfs_ctx *c, const unsigned char *key,
                                     size_t len) {
  pthread_rwlock_rdlock(&c->cache_lock);
  tfs_eager_fast *f = tfs_map_get(&c->fast, key, len);
  pthread_rwlock_unlock(&c->cache_lock);
  return f ? f->entry : NULL;
}

/* Registers e under the call's fast key; without memory the call simply
 * keeps taking the generic path. */
static void fast_put(tfs_ctx *c, const tfs_op_call *call, tfs_eager_entry *e) {
  tfs_eager_fast *f = tfs_malloc(sizeof(*f) + call->fast_len);
  if (!f) return;
  f->entry = e;
  f->len = call->fast_len;
  memcpy(f->key, call->fast_key, call->fast_len);
  pthread_rwlock_wrlock(&c->cache_lock);
  int fresh = !tfs_map_get(&c->fast, f->key, f->len) &&
              tfs_map_put(&c->fast, f->key, f->len, f) == 0;
  pthread_rwlock_unlock(&c->cache_lock);
  if (!fresh) tfs_free(f);
}

/* ---- building a one-node plan --------------------------------------------- */

static tfs_operation *add_placeholder(tfs_graph *g, const char *name,
                                      const tfs_tensor *t, tfs_status *st) {
  tfs_attrs a;
  tfs_attr_value v;
  tfs_attrs_init(&a);
  tfs_attr_type_val(&v, t->dtype);
  if (tfs_attrs_set(&a, "dtype", &v) || tfs_attr_shape(&v, &t->shape) ||
      tfs_attrs_set(&a, "shape", &v)) {
    tfs_attrs_clear(&a);
    TFS_OOM(st);
    return NULL;
  }
  tfs_node_spec spec = {.name = name, .op_type = "Placeholder",
                        .attrs = &a};
  return tfs_graph__add_node(g, &spec, st);
}

static tfs_eager_entry *build_entry(tfs_ctx *c, const tfs_op_call *call,
                                    tfs_tensor *const *inputs,
                                    const uint8_t key[16], tfs_status *st) {
  tfs_graph *g = c->graph;
  size_t start = g->nops;
  int ni = call->ninputs;
  tfs_output *feeds = tfs_calloc((size_t)ni + 1, sizeof(tfs_output));
  tfs_attrs attrs;
  tfs_attrs_init(&attrs);
  tfs_eager_entry *e = NULL;
  char *base = NULL;
  if (!feeds || tfs_attrs_copy(&attrs, &call->attrs)) goto oom;
  base = tfs_asprintf("%s_%zu", call->def->name, start);
  if (!base) goto oom;
  for (int i = 0; i < ni; i++) {
    char name[64 + 32];
    snprintf(name, sizeof name, "%.64s/input_%d", base, i);
    feeds[i].oper = add_placeholder(g, name, inputs[i], st);
    if (!feeds[i].oper) goto fail;
  }
  tfs_node_spec spec = {.name = base,
                        .op_type = call->def->name,
                        .device = call->device,
                        .attrs = &attrs,
                        .ninputs = ni,
                        .inputs = feeds};
  tfs_operation *op = tfs_graph__add_node(g, &spec, st);
  if (!op) goto fail;
  tfs_output *fetches = tfs_calloc((size_t)op->noutputs + 1,
                                   sizeof(tfs_output));
  if (!fetches) goto oom;
  for (int i = 0; i < op->noutputs; i++) {
    fetches[i].oper = op;
    fetches[i].index = i;
  }
  tfs_plan *plan = tfs_plan__build(c->session, feeds, ni, fetches,
                                   op->noutputs, &op, op->noutputs ? 0 : 1,
                                   st);
  tfs_free(fetches);
  if (!plan) goto fail;
  e = tfs_calloc(1, sizeof(*e));
  if (!e) {
    tfs_plan__unref(plan);
    goto oom;
  }
  memcpy(e->key, key, 16);
  e->plan = plan;
  e->noutputs = op->noutputs;
  tfs_free(feeds);
  tfs_free(base);
  return e;
oom:
  TFS_OOM(st);
fail:
  tfs_attrs_clear(&attrs);
  tfs_graph__truncate(g, start);
  tfs_free(feeds);
  tfs_free(base);
  return NULL;
}

void tfs_eager__run_plan(tfs_session *s, tfs_plan *p,
                         tfs_tensor *const *feeds, tfs_tensor **fetches,
                         tfs_status *st) {
  tfs_plan__run(s, p, NULL, feeds, fetches, NULL, st);
}

int tfs_eager__execute(tfs_op_call *call, tfs_tensor **inputs,
                       int (*check)(tfs_op_call *call, tfs_status *st),
                       tfs_tensor ***outputs, int *noutputs, tfs_status *st) {
  tfs_ctx *c = call->ctx;
  uint8_t key[16];
  if (fingerprint(call, inputs, key)) {
    TFS_OOM(st);
    return -1;
  }
  pthread_rwlock_rdlock(&c->cache_lock);
  tfs_eager_entry *e = tfs_map_get(&c->cache, key, 16);
  pthread_rwlock_unlock(&c->cache_lock);
  if (!e) {
    /* A miss: validate, then build outside the cache lock; one builder at
     * a time keeps the private graph consistent (lock order: graph, then
     * session). */
    if (check(call, st) < 0) return -1;
    pthread_mutex_lock(&c->build_mu);
    pthread_rwlock_rdlock(&c->cache_lock);
    e = tfs_map_get(&c->cache, key, 16);
    pthread_rwlock_unlock(&c->cache_lock);
    if (!e) {
      pthread_mutex_lock(&c->graph->mu);
      e = build_entry(c, call, inputs, key, st);
      pthread_mutex_unlock(&c->graph->mu);
      if (e) {
        pthread_rwlock_wrlock(&c->cache_lock);
        int rc = tfs_map_put(&c->cache, e->key, 16, e);
        pthread_rwlock_unlock(&c->cache_lock);
        if (rc) {
          tfs_plan__unref(e->plan);
          tfs_free(e);
          e = NULL;
          TFS_OOM(st);
        }
      }
    }
    pthread_mutex_unlock(&c->build_mu);
    if (!e) return -1;
  }
  if (call->fast_key) fast_put(c, call, e);
  tfs_tensor **outs = *outputs;
  if (e->noutputs > TFS_EAGER_OUT_STACK) {
    outs = tfs_calloc((size_t)e->noutputs, sizeof(void *));
    if (!outs) {
      TFS_OOM(st);
      return -1;
    }
  }
  tfs_eager__run_plan(c->session, e->plan, inputs, outs, st);
  if (!tfs_status_ok(st)) {
    if (outs != *outputs) tfs_free(outs);
    return -1;
  }
  *outputs = outs;
  *noutputs = e->noutputs;
  return 0;
}
