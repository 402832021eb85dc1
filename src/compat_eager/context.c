/*
 * compat_eager/context.c - eager, graph and tracing contexts and the value
 * handles they hand out.
 */
#include <stdlib.h>
#include <string.h>

#include "compat_eager/eager_internal.h"
#include "core/alloc.h"
#include "core/status.h"

static tfs_ctx *ctx_alloc(tfs_ctx_kind kind, tfs_status *st) {
  tfs_ctx *c = tfs_calloc(1, sizeof(*c));
  if (!c) {
    TFS_OOM(st);
    return NULL;
  }
  c->kind = kind;
  pthread_rwlock_init(&c->cache_lock, NULL);
  pthread_mutex_init(&c->build_mu, NULL);
  return c;
}

tfs_ctx *tfs_eager_ctx_new(const tfs_session_options *opts, tfs_status *st) {
  tfs_ctx *c = ctx_alloc(TFS_CTX_EAGER, st);
  if (!c) return NULL;
  if (opts) c->opts = *opts;
  c->graph = tfs_graph_new();
  c->owns_graph = 1;
  if (!c->graph) {
    TFS_OOM(st);
    tfs_ctx_free(c);
    return NULL;
  }
  c->session = tfs_session_new(c->graph, opts, st);
  if (!c->session) {
    tfs_ctx_free(c);
    return NULL;
  }
  c->session->no_optimizer = 1; /* one-node plans, as TF's eager ops */
  tfs_status_clear(st);
  return c;
}

tfs_ctx *tfs_graph_ctx_new(tfs_graph *g, tfs_status *st) {
  TFS_CHECK_ARG(g != NULL, st, NULL);
  tfs_ctx *c = ctx_alloc(TFS_CTX_GRAPH, st);
  if (!c) return NULL;
  c->graph = g;
  tfs_status_clear(st);
  return c;
}

tfs_ctx *tfs_trace__ctx_new(tfs_ctx *eager, tfs_status *st) {
  tfs_ctx *c = ctx_alloc(TFS_CTX_TRACING, st);
  if (!c) return NULL;
  c->graph = tfs_graph_new();
  c->owns_graph = 1;
  c->trace = tfs_calloc(1, sizeof(tfs_trace));
  if (!c->graph || !c->trace) {
    TFS_OOM(st);
    tfs_ctx_free(c);
    return NULL;
  }
  c->trace->eager = eager;
  c->opts = eager->opts;
  return c;
}

void tfs_ctx_free(tfs_ctx *c) {
  if (!c) return;
  for (tfs_value *v = c->owned; v;) {
    tfs_value *next = v->next_owned;
    tfs_tensor_free(v->tensor);
    tfs_free(v);
    v = next;
  }
  const tfs_map_entry *e;
  for (size_t i = 0; tfs_map_next(&c->cache, &i, &e);) {
    tfs_eager_entry *ce = e->value;
    tfs_plan__unref(ce->plan);
    tfs_free(ce);
  }
  tfs_map_free(&c->cache);
  for (size_t i = 0; tfs_map_next(&c->fast, &i, &e);) tfs_free(e->value);
  tfs_map_free(&c->fast);
  if (c->trace) {
    for (int i = 0; i < c->trace->ncaptures; i++)
      tfs_tensor_free(c->trace->capture_values[i]);
    tfs_free(c->trace->capture_values);
    tfs_free(c->trace->capture_outputs);
    tfs_free(c->trace);
  }
  tfs_session_free(c->session);
  if (c->owns_graph) tfs_graph_free(c->graph);
  pthread_rwlock_destroy(&c->cache_lock);
  pthread_mutex_destroy(&c->build_mu);
  tfs_free(c);
}

tfs_ctx_kind tfs_ctx_get_kind(const tfs_ctx *c) {
  return c ? c->kind : TFS_CTX_EAGER;
}

int tfs_ctx_cache_size(tfs_ctx *c) {
  if (!c) return 0;
  pthread_rwlock_rdlock(&c->cache_lock);
  int n = (int)c->cache.count;
  pthread_rwlock_unlock(&c->cache_lock);
  return n;
}

/* ---- values ------------------------------------------------------------ */

tfs_value *tfs_eager__value(tfs_ctx *c, tfs_tensor *t, tfs_status *st) {
  tfs_value *v = tfs_calloc(1, sizeof(*v));
  if (!v) {
    TFS_OOM(st);
    return NULL;
  }
  v->ctx = c;
  v->tensor = tfs_tensor_ref(t);
  v->out.index = -1;
  return v;
}

tfs_value *tfs_eager__value_take(tfs_ctx *c, tfs_tensor *t,
                                 tfs_status *st) {
  tfs_value *v = tfs_malloc(sizeof(*v));
  if (!v) {
    tfs_tensor_free(t);
    TFS_OOM(st);
    return NULL;
  }
  v->ctx = c;
  v->owned_by_ctx = 0;
  v->tensor = t;
  v->out.oper = NULL;
  v->out.index = -1;
  v->next_owned = NULL;
  return v;
}

tfs_value *tfs_eager__symbolic(tfs_ctx *c, tfs_output o, tfs_status *st) {
  tfs_value *v = tfs_calloc(1, sizeof(*v));
  if (!v) {
    TFS_OOM(st);
    return NULL;
  }
  v->ctx = c;
  v->owned_by_ctx = 1;
  v->out = o;
  v->next_owned = c->owned;
  c->owned = v;
  return v;
}

tfs_value *tfs_value_new(tfs_ctx *c, tfs_tensor *t, tfs_status *st) {
  TFS_CHECK_ARG(c != NULL && t != NULL, st, NULL);
  if (c->kind == TFS_CTX_EAGER) {
    tfs_value *v = tfs_eager__value(c, t, st);
    if (v) tfs_status_clear(st);
    return v;
  }
  /* graph and tracing contexts: a Const node */
  char *name = tfs_graph_unique_name(c->graph, "Const");
  if (!name) {
    TFS_OOM(st);
    return NULL;
  }
  tfs_op_desc *d = tfs_op_desc_new(c->graph, "Const", name);
  tfs_free(name);
  if (!d) {
    TFS_OOM(st);
    return NULL;
  }
  tfs_op_desc_set_attr_tensor(d, "value", t, st);
  tfs_op_desc_set_attr_type(d, "dtype", t->dtype);
  tfs_operation *op = tfs_op_desc_finish(d, st);
  if (!op) return NULL;
  tfs_output o = {op, 0};
  return tfs_eager__symbolic(c, o, st);
}

tfs_value *tfs_value_float(tfs_ctx *c, float v, tfs_status *st) {
  tfs_tensor *t = tfs_tensor_scalar_float(v);
  if (!t) {
    TFS_OOM(st);
    return NULL;
  }
  tfs_value *r = tfs_value_new(c, t, st);
  tfs_tensor_free(t);
  return r;
}

tfs_value *tfs_value_int32(tfs_ctx *c, int32_t v, tfs_status *st) {
  tfs_tensor *t = tfs_tensor_scalar_int32(v);
  if (!t) {
    TFS_OOM(st);
    return NULL;
  }
  tfs_value *r = tfs_value_new(c, t, st);
  tfs_tensor_free(t);
  return r;
}

tfs_value *tfs_value_floats(tfs_ctx *c, const int64_t *dims, int ndims,
                            const float *data, tfs_status *st) {
  tfs_tensor *t = tfs_tensor_new(TFS_FLOAT, dims, ndims, st);
  if (!t) return NULL;
  if (t->nbytes) memcpy(t->data, data, t->nbytes);
  tfs_value *r = tfs_value_new(c, t, st);
  tfs_tensor_free(t);
  return r;
}

void tfs_value_free(tfs_value *v) {
  if (!v || v->owned_by_ctx) return;
  tfs_tensor_free(v->tensor);
  tfs_free(v);
}

tfs_tensor *tfs_value_resolve(const tfs_value *v, tfs_status *st) {
  TFS_CHECK_ARG(v != NULL, st, NULL);
  if (!v->tensor) {
    tfs_status_setf(st, TFS_FAILED_PRECONDITION,
                    "Tensor %s:%d is symbolic (it belongs to a graph or a "
                    "traced function) and has no value to resolve",
                    v->out.oper ? tfs_operation_name(v->out.oper) : "?",
                    v->out.index);
    return NULL;
  }
  tfs_status_clear(st);
  return tfs_tensor_ref(v->tensor);
}

tfs_dtype tfs_value_dtype(const tfs_value *v) {
  if (!v) return TFS_INVALID;
  if (v->tensor) return v->tensor->dtype;
  return tfs_dtype_base(tfs_operation_output_type(v->out));
}

int tfs_value_num_dims(const tfs_value *v) {
  if (!v) return -1;
  if (v->tensor) return v->tensor->shape.rank;
  return v->out.oper->out_shapes[v->out.index].rank;
}

int64_t tfs_value_dim(const tfs_value *v, int i) {
  const tfs_shape *s;
  if (!v) return -1;
  s = v->tensor ? &v->tensor->shape : &v->out.oper->out_shapes[v->out.index];
  if (i < 0 || i >= s->rank) return -1;
  return s->dims[i];
}

const char *tfs_value_device(const tfs_value *v) {
  (void)v;
  return TFS_CPU_DEVICE;
}

tfs_output tfs_value_output(const tfs_value *v) {
  tfs_output none = {NULL, -1};
  return v && !v->tensor ? v->out : none;
}

tfs_ctx *tfs_value_ctx(const tfs_value *v) { return v ? v->ctx : NULL; }
