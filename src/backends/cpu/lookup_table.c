/*
 * backends/cpu/lookup_table.c - scalar-to-scalar hash tables for the lookup
 * table kernels (lookup.c).  Entries are kept in a tfs_map keyed by the
 * key's bytes (an int64 for integer keys, the bytes of a string key).
 */
#include "backends/cpu/lookup_table.h"

#include <float.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/hashmap.h"

typedef struct entry {
  int64_t vi;       /* int32, int64, bool values */
  double vd;        /* float, double values */
  char *vs;         /* string values (owned) */
  size_t vlen;
  size_t klen;
  char key[];       /* the map's key bytes */
} entry;

struct tfs_lookup_table {
  pthread_mutex_t mu;
  pthread_mutex_t init_mu;
  tfs_table_kind kind;
  tfs_dtype kdt, vdt;
  int initialized;      /* guarded by: mu */
  tfs_map map;          /* guarded by: mu */
};

tfs_lookup_table *tfs_table__new(tfs_table_kind kind, tfs_dtype key_dtype,
                                 tfs_dtype value_dtype) {
  tfs_lookup_table *t = tfs_calloc(1, sizeof(*t));
  if (!t) return NULL;
  pthread_mutex_init(&t->mu, NULL);
  pthread_mutex_init(&t->init_mu, NULL);
  t->kind = kind;
  t->kdt = key_dtype;
  t->vdt = value_dtype;
  return t;
}

static void free_entry(entry *e) {
  tfs_free(e->vs);
  tfs_free(e);
}

static void clear_locked(tfs_lookup_table *t) {
  const tfs_map_entry *me;
  for (size_t pos = 0; tfs_map_next(&t->map, &pos, &me);)
    free_entry(me->value);
  tfs_map_free(&t->map);
  memset(&t->map, 0, sizeof t->map);
}

void tfs_table__free(void *table) {
  tfs_lookup_table *t = table;
  if (!t) return;
  clear_locked(t);
  pthread_mutex_destroy(&t->mu);
  pthread_mutex_destroy(&t->init_mu);
  tfs_free(t);
}

tfs_table_kind tfs_table__kind(const tfs_lookup_table *t) { return t->kind; }
tfs_dtype tfs_table__key_dtype(const tfs_lookup_table *t) { return t->kdt; }
tfs_dtype tfs_table__value_dtype(const tfs_lookup_table *t) { return t->vdt; }

int tfs_table__initialized(tfs_lookup_table *t) {
  pthread_mutex_lock(&t->mu);
  int r = t->initialized;
  pthread_mutex_unlock(&t->mu);
  return r;
}

void tfs_table__set_initialized(tfs_lookup_table *t) {
  pthread_mutex_lock(&t->mu);
  t->initialized = 1;
  pthread_mutex_unlock(&t->mu);
}

int64_t tfs_table__size(tfs_lookup_table *t) {
  pthread_mutex_lock(&t->mu);
  int64_t n = (int64_t)t->map.count;
  pthread_mutex_unlock(&t->mu);
  return n;
}

void tfs_table__clear(tfs_lookup_table *t) {
  pthread_mutex_lock(&t->mu);
  clear_locked(t);
  pthread_mutex_unlock(&t->mu);
}

void tfs_table__lock_init(tfs_lookup_table *t) {
  pthread_mutex_lock(&t->init_mu);
}

void tfs_table__unlock_init(tfs_lookup_table *t) {
  pthread_mutex_unlock(&t->init_mu);
}

/* ---- element access ----------------------------------------------------- */

/* Key i of a key tensor as the table's key: bytes and length. */
static const void *key_at(const tfs_tensor *k, int64_t i, int64_t *tmp,
                          size_t *len) {
  if (k->dtype == TFS_STRING) {
    tfs_tstring *s = &tfs_tensor__strings(k)[i];
    *len = tfs_tstring_size(s);
    return tfs_tstring_data(s);
  }
  *tmp = k->dtype == TFS_INT32 ? ((const int32_t *)k->data)[i]
                               : ((const int64_t *)k->data)[i];
  *len = sizeof *tmp;
  return tmp;
}

static void scalar_at(const tfs_tensor *v, int64_t i, tfs_table_scalar *o) {
  memset(o, 0, sizeof *o);
  switch (v->dtype) {
    case TFS_STRING: {
      tfs_tstring *s = &tfs_tensor__strings(v)[i];
      o->s = tfs_tstring_data(s);
      o->len = tfs_tstring_size(s);
      break;
    }
    case TFS_INT32: o->i = ((const int32_t *)v->data)[i]; break;
    case TFS_INT64: o->i = ((const int64_t *)v->data)[i]; break;
    case TFS_BOOL: o->i = ((const uint8_t *)v->data)[i] != 0; break;
    case TFS_FLOAT: o->d = ((const float *)v->data)[i]; break;
    case TFS_DOUBLE: o->d = ((const double *)v->data)[i]; break;
    default: break;
  }
}

/* Writes value `src` to element i of `out` (strings copied). */
static int put_value(tfs_tensor *out, int64_t i, const tfs_table_scalar *src) {
  switch (out->dtype) {
    case TFS_STRING:
      return tfs_tstring_copy(&tfs_tensor__strings(out)[i], src->s, src->len);
    case TFS_INT32: ((int32_t *)out->data)[i] = (int32_t)src->i; break;
    case TFS_INT64: ((int64_t *)out->data)[i] = src->i; break;
    case TFS_BOOL: ((uint8_t *)out->data)[i] = src->i != 0; break;
    case TFS_FLOAT: ((float *)out->data)[i] = (float)src->d; break;
    case TFS_DOUBLE: ((double *)out->data)[i] = src->d; break;
    default: break;
  }
  return 0;
}

static void entry_value(const entry *e, tfs_table_scalar *o) {
  o->i = e->vi;
  o->d = e->vd;
  o->s = e->vs ? e->vs : "";
  o->len = e->vlen;
}

static int same_value(tfs_dtype dt, const entry *e,
                      const tfs_table_scalar *v) {
  if (dt == TFS_STRING)
    return e->vlen == v->len && (v->len == 0 || !memcmp(e->vs, v->s, v->len));
  if (dt == TFS_FLOAT || dt == TFS_DOUBLE) return e->vd == v->d;
  return e->vi == v->i;
}

/* A scalar as TensorFlow's StrCat writes it (shortest float form that
 * reads back). */
static void fmt_scalar(tfs_dtype dt, const tfs_table_scalar *v, char *buf,
                       size_t cap) {
  if (dt == TFS_STRING) {
    snprintf(buf, cap, "%.*s", (int)(v->len > 200 ? 200 : v->len), v->s);
  } else if (dt == TFS_FLOAT) {
    float f = (float)v->d;
    snprintf(buf, cap, "%.*g", FLT_DIG, f);
    if (strtof(buf, NULL) != f) snprintf(buf, cap, "%.*g", FLT_DIG + 3, f);
  } else if (dt == TFS_DOUBLE) {
    snprintf(buf, cap, "%.*g", DBL_DIG, v->d);
    if (strtod(buf, NULL) != v->d)
      snprintf(buf, cap, "%.*g", DBL_DIG + 2, v->d);
  } else {
    snprintf(buf, cap, "%lld", (long long)v->i);
  }
}

static int set_entry_value(tfs_lookup_table *t, entry *e,
                           const tfs_table_scalar *v) {
  if (t->vdt == TFS_STRING) {
    char *s = tfs_malloc(v->len + 1);
    if (!s) return -1;
    if (v->len) memcpy(s, v->s, v->len);
    s[v->len] = 0;
    tfs_free(e->vs);
    e->vs = s;
    e->vlen = v->len;
  } else {
    e->vi = v->i;
    e->vd = v->d;
  }
  return 0;
}

/* Adds or (mutable tables) replaces one entry; mu held. */
static int insert_locked(tfs_lookup_table *t, const void *kbytes, size_t klen,
                         const tfs_table_scalar *key,
                         const tfs_table_scalar *v, tfs_status *st) {
  entry *e = tfs_map_get(&t->map, kbytes, klen);
  if (e) {
    if (t->kind == TFS_TABLE_MUTABLE) {
      if (set_entry_value(t, e, v)) goto oom;
      return 0;
    }
    if (same_value(t->vdt, e, v)) return 0;
    char k[256], a[256], b[256];
    tfs_table_scalar old;
    entry_value(e, &old);
    fmt_scalar(t->kdt == TFS_STRING ? TFS_STRING : TFS_INT64, key, k,
               sizeof k);
    fmt_scalar(t->vdt, &old, a, sizeof a);
    fmt_scalar(t->vdt, v, b, sizeof b);
    tfs_status_setf(st, TFS_FAILED_PRECONDITION,
                    "HashTable has different value for same key. Key %s has "
                    "%s and trying to add value %s",
                    k, a, b);
    return -1;
  }
  e = tfs_calloc(1, sizeof(*e) + klen + 1);
  if (!e) goto oom;
  memcpy(e->key, kbytes, klen);
  e->klen = klen;
  if (set_entry_value(t, e, v) || tfs_map_put(&t->map, e->key, klen, e)) {
    free_entry(e);
    goto oom;
  }
  return 0;
oom:
  TFS_OOM(st);
  return -1;
}

int tfs_table__insert(tfs_lookup_table *t, const tfs_tensor *keys,
                      const tfs_tensor *values, tfs_status *st) {
  int rc = 0;
  pthread_mutex_lock(&t->mu);
  for (int64_t i = 0; i < keys->nelems && rc == 0; i++) {
    int64_t tmp;
    size_t len;
    const void *kb = key_at(keys, i, &tmp, &len);
    tfs_table_scalar k, v;
    scalar_at(keys, i, &k);
    scalar_at(values, i, &v);
    rc = insert_locked(t, kb, len, &k, &v, st);
  }
  pthread_mutex_unlock(&t->mu);
  return rc;
}

int tfs_table__insert_one(tfs_lookup_table *t, const tfs_table_scalar *key,
                          const tfs_table_scalar *value, tfs_status *st) {
  const void *kb = &key->i;
  size_t len = sizeof key->i;
  if (t->kdt == TFS_STRING) {
    kb = key->s;
    len = key->len;
  }
  pthread_mutex_lock(&t->mu);
  int rc = insert_locked(t, kb, len, key, value, st);
  pthread_mutex_unlock(&t->mu);
  return rc;
}

void tfs_table__find(tfs_lookup_table *t, const tfs_tensor *keys,
                     const tfs_tensor *default_value, int per_key,
                     tfs_tensor *out) {
  pthread_mutex_lock(&t->mu);
  for (int64_t i = 0; i < keys->nelems; i++) {
    int64_t tmp;
    size_t len;
    const void *kb = key_at(keys, i, &tmp, &len);
    entry *e = tfs_map_get(&t->map, kb, len);
    tfs_table_scalar v;
    if (e)
      entry_value(e, &v);
    else
      scalar_at(default_value, per_key ? i : 0, &v);
    put_value(out, i, &v);
  }
  pthread_mutex_unlock(&t->mu);
}

void tfs_table__remove(tfs_lookup_table *t, const tfs_tensor *keys) {
  pthread_mutex_lock(&t->mu);
  for (int64_t i = 0; i < keys->nelems; i++) {
    int64_t tmp;
    size_t len;
    const void *kb = key_at(keys, i, &tmp, &len);
    entry *e = tfs_map_remove(&t->map, kb, len);
    if (e) free_entry(e);
  }
  pthread_mutex_unlock(&t->mu);
}

int tfs_table__export(tfs_lookup_table *t, tfs_tensor **keys,
                      tfs_tensor **values, tfs_status *st) {
  pthread_mutex_lock(&t->mu);
  tfs_shape s;
  s.rank = 1;
  s.dims[0] = (int64_t)t->map.count;
  tfs_tensor *k = tfs_tensor__alloc(t->kdt, &s, st);
  tfs_tensor *v = k ? tfs_tensor__alloc(t->vdt, &s, st) : NULL;
  const tfs_map_entry *me;
  int64_t i = 0;
  int rc = v ? 0 : -1;
  for (size_t pos = 0; rc == 0 && tfs_map_next(&t->map, &pos, &me); i++) {
    const entry *e = me->value;
    tfs_table_scalar kv, vv;
    memset(&kv, 0, sizeof kv);
    if (t->kdt == TFS_STRING) {
      kv.s = e->key;
      kv.len = e->klen;
    } else {
      memcpy(&kv.i, e->key, sizeof kv.i);
    }
    entry_value(e, &vv);
    if (put_value(k, i, &kv) || put_value(v, i, &vv)) {
      TFS_OOM(st);
      rc = -1;
    }
  }
  pthread_mutex_unlock(&t->mu);
  if (rc) {
    tfs_tensor_free(k);
    tfs_tensor_free(v);
    return -1;
  }
  *keys = k;
  *values = v;
  return 0;
}
