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
#include "core/status.h"
#include "core/util.h"
#include "graph_builder/attr_proto.h"
#include "graph_builder/function_inst.h"
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

/* The cache key of a call: the func attr's AttrValue bytes (attrs are
 * kept sorted, so equal bindings give equal bytes). */
static int call_key(const tfs_func_attr *f, tfs_buffer *out, tfs_status *st) {
  tfs_attr_value v;
  memset(&v, 0, sizeof v);
  v.type = TFS_ATTR_FUNC;
  v.u.func = (tfs_func_attr *)f;
  return tfs_attr_value__serialize(&v, out, st);
}

static fn_instance *instantiate(tfs_session *s, const tfs_func_attr *f,
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
  if (tfs_fn_body__instantiate(s->graph, f->name, f->attrs, &fi->body, st))
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
  fi->callable = tfs_session_make_callable(
      fi->sub, fi->body.args, fi->body.nargs, fi->body.rets, fi->body.nrets,
      fi->body.ctrl, fi->body.nctrl, co, st);
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

static fn_instance *instance_for(tfs_session *s, const tfs_func_attr *f,
                                 tfs_status *st) {
  tfs_buffer key = {NULL, 0, NULL};
  if (call_key(f, &key, st)) return NULL;
  pthread_mutex_lock(&s->fn_mu);
  fn_instance *fi = tfs_map_get(&s->fn_instances, key.data, key.length);
  if (!fi) {
    /* built under fn_mu: a second caller of the same function waits */
    fi = instantiate(s, f, st);
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
  if (taken)
    tfs_callable__run_taking(fi->callable, taken, nin, outputs, nout, st);
  else
    tfs_callable_run(fi->callable, inputs, nin, outputs, nout, st);
  return tfs_status_ok(st) ? 0 : -1;
}

static int fn_call(void *ctx, const tfs_func_attr *f,
                   tfs_tensor *const *inputs, int nin, tfs_tensor **outputs,
                   int nout, tfs_status *st) {
  fn_instance *fi = instance_for(ctx, f, st);
  if (!fi) return -1;
  return instance_call(fi, f->name, inputs, NULL, nin, outputs, nout, st);
}

/* Instances live as long as the session, so longer than any run that
 * resolved one. */
static void *fn_resolve(void *ctx, const tfs_func_attr *f, tfs_status *st) {
  return instance_for(ctx, f, st);
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
}
