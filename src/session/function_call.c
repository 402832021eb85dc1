/*
 * session/function_call.c - the session's function runtime: what
 * PartitionedCall and its kin call.  Each (function, attrs) pair is
 * instantiated once per session (graph_builder/function_inst.c) and runs
 * on a session of its own graph that shares this session's variables,
 * options and thread pools, as a callable on the caller's thread.  Calls
 * nest at most the session's nesting limit deep (TFS_LIMIT_NESTING).
 */
#include <string.h>

#include "core/alloc.h"
#include "core/hashmap.h"
#include "core/status.h"
#include "core/util.h"
#include "graph_builder/attr_proto.h"
#include "graph_builder/function_inst.h"
#include "graph_builder/graph_internal.h"
#include "session/exec.h"
#include "session/session_internal.h"
#include "tfsess/callable.h"

typedef struct fn_instance {
  void *key;               /* the map's key bytes (owned) */
  char *name;              /* the function's name (owned) */
  tfs_fn_body body;
  tfs_session *sub;
  tfs_callable *callable;
} fn_instance;

static void instance_free(fn_instance *fi) {
  if (!fi) return;
  tfs_callable_free(fi->callable);
  tfs_session_free(fi->sub);
  tfs_fn_body__clear(&fi->body);
  tfs_free(fi->name);
  tfs_free(fi->key);
  tfs_free(fi);
}

void tfs_session__functions_free(tfs_session *s) {
  const tfs_map_entry *e;
  for (size_t i = 0; tfs_map_next(&s->fn_instances, &i, &e);)
    instance_free(e->value);
  tfs_map_free(&s->fn_instances);
}

int tfs_session__function_instances(tfs_session *s, int *with_consts) {
  int n = 0, c = 0;
  const tfs_map_entry *e;
  pthread_mutex_lock(&s->fn_mu);
  for (size_t i = 0; tfs_map_next(&s->fn_instances, &i, &e);) {
    const fn_instance *fi = e->value;
    n++;
    c += fi->body.const_args != NULL;
  }
  pthread_mutex_unlock(&s->fn_mu);
  if (with_consts) *with_consts = c;
  return n;
}

/* The cache key of a call: the func attr's AttrValue bytes (attrs are
 * kept sorted, so equal bindings give equal bytes). */
static int call_key(const tfs_func_attr *f, tfs_buffer *out, tfs_status *st) {
  tfs_attr_value v;
  memset(&v, 0, sizeof v);
  v.type = TFS_ATTR_FUNC;
  v.u.func = (tfs_func_attr *)f;
  return tfs_attr_value__serialize(&v, out, st);
}

/* The arguments fed to fi's callable: those that are not Consts. */
static int fed_args(const fn_instance *fi, tfs_output *out) {
  int n = 0;
  for (int i = 0; i < fi->body.nargs; i++)
    if (!fi->body.const_args || !fi->body.const_args[i])
      out[n++] = fi->body.args[i];
  return n;
}

static fn_instance *instantiate(tfs_session *s, const tfs_func_attr *f,
                                const tfs_tensor *const *values, int nvalues,
                                tfs_status *st) {
  if (s->fn_depth + 1 > s->limits.nesting) {
    tfs_status_setf(st, TFS_RESOURCE_EXHAUSTED,
                    "Function '%s': calls nest deeper than the session's "
                    "limit of %d",
                    f->name, s->limits.nesting);
    return NULL;
  }
  fn_instance *fi = tfs_calloc(1, sizeof(*fi));
  if (!fi) return TFS_OOM(st), NULL;
  fi->name = tfs_strdup(f->name);
  if (!fi->name) {
    TFS_OOM(st);
    goto fail;
  }
  if (tfs_fn_body__instantiate_consts(s->graph, f->name, f->attrs, values,
                                      nvalues, &fi->body, st))
    goto fail;
  fi->sub = tfs_session_new(fi->body.graph, &s->opts, st);
  if (!fi->sub) goto fail;
  /* the caller's variables, one level deeper */
  tfs_resource_mgr_free(fi->sub->resources);
  fi->sub->resources = tfs_resource_mgr_ref(s->resources);
  fi->sub->fn_depth = s->fn_depth + 1;
  tfs_callable_options *co = tfs_callable_options_new();
  if (!co) {
    TFS_OOM(st);
    goto fail;
  }
  tfs_callable_options_set_run_in_caller_thread(co, 1);
  tfs_output *feeds =
      tfs_malloc(sizeof(tfs_output) * (size_t)(fi->body.nargs + 1));
  if (feeds)
    fi->callable = tfs_session_make_callable(
        fi->sub, feeds, fed_args(fi, feeds), fi->body.rets, fi->body.nrets,
        fi->body.ctrl, fi->body.nctrl, co, st);
  else
    TFS_OOM(st);
  tfs_free(feeds);
  tfs_callable_options_free(co);
  if (!fi->callable) {
    tfs_status_prependf(st, "Function '%s': ", f->name);
    goto fail;
  }
  return fi;
fail:
  instance_free(fi);
  return NULL;
}

static void free_key(void *data, size_t len) {
  (void)len;
  tfs_free(data);
}

/* Appends the known argument values to a call's key: per value, its
 * index, dtype, rank, dims, byte count and a hash of its bytes (values
 * are of fixed-size dtypes); same_values then compares the bytes. */
static int values_key(tfs_buffer *key, const tfs_tensor *const *values,
                      int nvalues, tfs_status *st) {
  size_t len = key->length;
  for (int i = 0; i < nvalues; i++)
    if (values[i])
      len += sizeof(int64_t) * (5 + (size_t)values[i]->shape.rank);
  if (len == key->length) return 0;
  unsigned char *k = tfs_malloc(len);
  if (!k) return TFS_OOM(st), -1;
  memcpy(k, key->data, key->length);
  size_t at = key->length;
  for (int i = 0; i < nvalues; i++) {
    const tfs_tensor *v = values[i];
    if (!v) continue;
    int64_t head[5] = {i, v->dtype, v->shape.rank, (int64_t)v->nbytes,
                       (int64_t)tfs_hash_bytes(v->data, v->nbytes, 0)};
    memcpy(k + at, head, sizeof head);
    at += sizeof head;
    memcpy(k + at, v->shape.dims, sizeof(int64_t) * (size_t)v->shape.rank);
    at += sizeof(int64_t) * (size_t)v->shape.rank;
  }
  if (key->data_deallocator)
    key->data_deallocator((void *)key->data, key->length);
  key->data = k;
  key->length = len;
  key->data_deallocator = free_key;
  return 0;
}

/* Whether fi's constant arguments hold `values` (a hash can collide). */
static int same_values(const fn_instance *fi, const tfs_tensor *const *values,
                       int nvalues) {
  for (int i = 0; i < fi->body.nargs; i++) {
    if (!fi->body.const_args || !fi->body.const_args[i]) continue;
    const tfs_tensor *c = tfs_graph__const_value(fi->body.args[i]);
    const tfs_tensor *v = i < nvalues ? values[i] : NULL;
    if (!c || !v || c->nbytes != v->nbytes ||
        (c->data != v->data && memcmp(c->data, v->data, v->nbytes) != 0))
      return 0;
  }
  return 1;
}

static fn_instance *instance_for(tfs_session *s, const tfs_func_attr *f,
                                 const tfs_tensor *const *values,
                                 int nvalues, tfs_status *st) {
  tfs_buffer key = {NULL, 0, NULL};
  if (call_key(f, &key, st)) return NULL;
  if (values && values_key(&key, values, nvalues, st)) {
    if (key.data_deallocator)
      key.data_deallocator((void *)key.data, key.length);
    return NULL;
  }
  pthread_mutex_lock(&s->fn_mu);
  fn_instance *fi = tfs_map_get(&s->fn_instances, key.data, key.length);
  if (!fi) {
    /* built under fn_mu: a second caller of the same function waits */
    fi = instantiate(s, f, values, nvalues, st);
    if (fi) {
      fi->key = (void *)key.data; /* the map borrows it from here on */
      key.data = NULL;
      if (tfs_map_put(&s->fn_instances, fi->key, key.length, fi)) {
        instance_free(fi);
        fi = NULL;
        TFS_OOM(st);
      }
    }
  }
  pthread_mutex_unlock(&s->fn_mu);
  if (key.data && key.data_deallocator)
    key.data_deallocator((void *)key.data, key.length);
  /* two sets of values with one hash: the second gets the plain body */
  if (fi && values && !same_values(fi, values, nvalues))
    return instance_for(s, f, NULL, 0, st);
  return fi;
}

/* Runs instance fi (of function `name`); `taken` (NULL or inputs):
 * the references the run takes. */
static int instance_call(fn_instance *fi, const char *name,
                         tfs_tensor *const *inputs, tfs_tensor **taken,
                         int nin, tfs_tensor **outputs, int nout,
                         tfs_status *st) {
  if (nin != fi->body.nargs || nout != fi->body.nrets) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "Function '%s' takes %d inputs and returns %d outputs; "
                    "the call has %d and %d",
                    name, fi->body.nargs, fi->body.nrets, nin, nout);
    return -1;
  }
  const unsigned char *cst = fi->body.const_args;
  if (cst) { /* the Consts' inputs are not fed (and stay the caller's) */
    tfs_tensor *few[32]; /* a loop body's variables: no malloc per step */
    tfs_tensor **fed =
        nin <= 32 ? few : tfs_malloc(sizeof(tfs_tensor *) * (size_t)nin);
    if (!fed) return TFS_OOM(st), -1;
    int n = 0;
    for (int i = 0; i < nin; i++)
      if (!cst[i]) fed[n++] = taken ? taken[i] : inputs[i];
    if (taken) {
      tfs_callable__run_taking(fi->callable, fed, n, outputs, nout, st);
      for (int i = 0, k = 0; i < nin; i++) /* what the run took */
        if (!cst[i]) taken[i] = fed[k++];
    } else {
      tfs_callable_run(fi->callable, fed, n, outputs, nout, st);
    }
    if (fed != few) tfs_free(fed);
  } else if (taken) {
    tfs_callable__run_taking(fi->callable, taken, nin, outputs, nout, st);
  } else {
    tfs_callable_run(fi->callable, inputs, nin, outputs, nout, st);
  }
  return tfs_status_ok(st) ? 0 : -1;
}

static int fn_call(void *ctx, const tfs_func_attr *f,
                   tfs_tensor *const *inputs, int nin, tfs_tensor **outputs,
                   int nout, tfs_status *st) {
  fn_instance *fi = instance_for(ctx, f, NULL, 0, st);
  if (!fi) return -1;
  return instance_call(fi, f->name, inputs, NULL, nin, outputs, nout, st);
}

/* Instances live as long as the session, so longer than any run that
 * resolved one. */
static void *fn_resolve(void *ctx, const tfs_func_attr *f, tfs_status *st) {
  return instance_for(ctx, f, NULL, 0, st);
}

/* An instance per function, attrs and known values (compared by
 * content, so plans that come and go share one). */
static void *fn_resolve_consts(void *ctx, const tfs_func_attr *f,
                               const tfs_tensor *const *values, int nvalues,
                               tfs_status *st) {
  tfs_session *s = ctx;
  /* only the arguments the body returns as is count (a loop counter's
   * first value neither makes nor splits an instance) */
  unsigned char *ret = tfs_malloc((size_t)nvalues + 1);
  const tfs_tensor **kept = tfs_calloc((size_t)nvalues + 1, sizeof(*kept));
  if (!ret || !kept) {
    tfs_free(ret);
    tfs_free(kept);
    return TFS_OOM(st), NULL;
  }
  int any = 0;
  if (tfs_fn_body__returned_args(s->graph, f->name, ret, nvalues) > 0)
    for (int i = 0; i < nvalues; i++)
      any |= (kept[i] = ret[i] ? values[i] : NULL) != NULL;
  void *fi = instance_for(s, f, any ? kept : NULL, nvalues, st);
  tfs_free(ret);
  tfs_free(kept);
  return fi;
}

static int fn_call_resolved(void *ctx, void *fn, tfs_tensor **inputs,
                            int nin, tfs_tensor **outputs, int nout, int take,
                            tfs_status *st) {
  fn_instance *fi = fn;
  return instance_call(fi, fi->name, inputs, take ? inputs : NULL, nin,
                       outputs, nout, st);
}

void tfs_session__functions_init(tfs_session *s) {
  pthread_mutex_init(&s->fn_mu, NULL);
  s->fn_instances = (tfs_map)TFS_MAP_INIT;
  s->fnrt.ctx = s;
  s->fnrt.call = fn_call;
  s->fnrt.resolve = fn_resolve;
  s->fnrt.call_resolved = fn_call_resolved;
  s->fnrt.resolve_consts = fn_resolve_consts;
}
