/*
 * graph_builder/function_lib.c - a graph's function library: adding
 * FunctionDefs (from bytes, from a GraphDef's library, from another
 * graph), finding them, exporting them, and walking the ops they use.
 */
#include "graph_builder/function_lib.h"

#include <pthread.h>
#include <string.h>

#include "core/alloc.h"
#include "core/status.h"
#include "core/strbuf.h"
#include "core/util.h"
#include "graph_builder/attr_proto.h"
#include "ops/op_def.h"

void tfs_flib__free(struct tfs_flib *l) {
  if (!l) return;
  for (int i = 0; i < l->n; i++) {
    tfs_free(l->fns[i].name);
    tfs_pb__free(&l->fns[i].pb->base);
    tfs_free(l->fns[i].bytes);
  }
  tfs_free(l->fns);
  for (int i = 0; i < l->ngrad; i++) {
    tfs_free(l->grads[i].fn);
    tfs_free(l->grads[i].grad);
  }
  tfs_free(l->grads);
  tfs_free(l);
}

static struct tfs_flib *lib_of(tfs_graph *g, tfs_status *st) {
  if (!g->lib && !(g->lib = tfs_calloc(1, sizeof(struct tfs_flib))))
    TFS_OOM(st);
  return g->lib;
}

int tfs_flib__count(const tfs_graph *g) { return g->lib ? g->lib->n : 0; }

const tfs_flib_fn *tfs_flib__find(const tfs_graph *g, const char *name) {
  const struct tfs_flib *l = g->lib;
  for (int i = 0; l && name && i < l->n; i++)
    if (strcmp(l->fns[i].name, name) == 0) return &l->fns[i];
  return NULL;
}

const char *tfs_flib__gradient(const tfs_graph *g, const char *name) {
  const struct tfs_flib *l = g->lib;
  for (int i = 0; l && name && i < l->ngrad; i++)
    if (strcmp(l->grads[i].fn, name) == 0) return l->grads[i].grad;
  return NULL;
}

void tfs_flib__truncate(tfs_graph *g, int n, int ngrad) {
  struct tfs_flib *l = g->lib;
  if (!l) return;
  while (l->n > n) {
    tfs_flib_fn *f = &l->fns[--l->n];
    tfs_free(f->name);
    tfs_pb__free(&f->pb->base);
    tfs_free(f->bytes);
  }
  while (l->ngrad > ngrad) {
    tfs_flib_grad *gr = &l->grads[--l->ngrad];
    tfs_free(gr->fn);
    tfs_free(gr->grad);
  }
}

/* Takes `bytes` (owned) holding one FunctionDef. */
static int add_owned(tfs_graph *g, uint8_t *bytes, size_t len,
                     tfs_status *st) {
  int oom = 0;
  Tensorflow__FunctionDef *fd = (Tensorflow__FunctionDef *)tfs_pb__unpack(
      &tensorflow__function_def__descriptor, bytes, len, &oom);
  if (!fd) {
    tfs_free(bytes);
    if (oom) return TFS_OOM(st), -1;
    tfs_status_set(st, TFS_INVALID_ARGUMENT, "Invalid FunctionDef");
    return -1;
  }
  const char *name = fd->signature ? fd->signature->name : "";
  int rc = -1;
  if (!name || !*name) {
    tfs_status_set(st, TFS_INVALID_ARGUMENT,
                   "FunctionDef has no signature name");
    goto done;
  }
  const tfs_flib_fn *old = tfs_flib__find(g, name);
  if (old) {
    if (old->len == len && memcmp(old->bytes, bytes, len) == 0) {
      rc = 0;
      goto done;
    }
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "Cannot add function '%s' because a different function "
                    "with the same name already exists.",
                    name);
    goto done;
  }
  if (tfs_op_lookup(name)) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "Cannot add function '%s' because an op with the same "
                    "name already exists.",
                    name);
    goto done;
  }
  struct tfs_flib *l = lib_of(g, st);
  size_t cap = (size_t)(l ? l->cap : 0);
  char *nm = tfs_strdup(name);
  if (!l || !nm ||
      tfs_grow((void **)&l->fns, &cap, (size_t)l->n + 1, sizeof(*l->fns))) {
    tfs_free(nm);
    TFS_OOM(st);
    goto done;
  }
  l->cap = (int)cap;
  l->fns[l->n++] = (tfs_flib_fn){nm, fd, bytes, len};
  return 0;
done:
  tfs_pb__free(&fd->base);
  tfs_free(bytes);
  return rc;
}

int tfs_flib__add_bytes(tfs_graph *g, const void *data, size_t len,
                        tfs_status *st) {
  uint8_t *copy = tfs_malloc(len ? len : 1);
  if (!copy) return TFS_OOM(st), -1;
  if (len) memcpy(copy, data, len);
  return add_owned(g, copy, len, st);
}

/* Adds a message: packed to bytes (the stored form) and parsed back. */
static int add_message(tfs_graph *g, const Tensorflow__FunctionDef *fd,
                       tfs_status *st) {
  size_t len = protobuf_c_message_get_packed_size(&fd->base);
  uint8_t *bytes = tfs_malloc(len ? len : 1);
  if (!bytes) return TFS_OOM(st), -1;
  protobuf_c_message_pack(&fd->base, bytes);
  return add_owned(g, bytes, len, st);
}

int tfs_flib__add_gradient(tfs_graph *g, const char *fn, const char *grad,
                        tfs_status *st) {
  const char *old = tfs_flib__gradient(g, fn);
  if (old) {
    if (strcmp(old, grad) == 0) return 0;
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "Cannot assign gradient function '%s' to '%s' because "
                    "it already has gradient function '%s'",
                    grad, fn, old);
    return -1;
  }
  struct tfs_flib *l = lib_of(g, st);
  if (!l) return -1;
  size_t cap = (size_t)l->gradcap;
  char *a = tfs_strdup(fn), *b = tfs_strdup(grad);
  if (!a || !b || tfs_grow((void **)&l->grads, &cap, (size_t)l->ngrad + 1,
                           sizeof(*l->grads))) {
    tfs_free(a);
    tfs_free(b);
    return TFS_OOM(st), -1;
  }
  l->gradcap = (int)cap;
  l->grads[l->ngrad++] = (tfs_flib_grad){a, b};
  return 0;
}

int tfs_flib__import(tfs_graph *g, const Tensorflow__FunctionDefLibrary *lib,
                     tfs_status *st) {
  int n0 = tfs_flib__count(g), g0 = g->lib ? g->lib->ngrad : 0;
  for (size_t i = 0; lib && i < lib->n_function; i++)
    if (add_message(g, lib->function[i], st)) goto fail;
  for (size_t i = 0; lib && i < lib->n_gradient; i++) {
    const Tensorflow__GradientDef *gd = lib->gradient[i];
    if (tfs_flib__add_gradient(g, gd->function_name ? gd->function_name : "",
                     gd->gradient_func ? gd->gradient_func : "", st))
      goto fail;
  }
  return 0;
fail:
  tfs_flib__truncate(g, n0, g0);
  return -1;
}

int tfs_flib__copy(tfs_graph *to, const tfs_graph *from, tfs_status *st) {
  const struct tfs_flib *l = from->lib;
  for (int i = 0; l && i < l->n; i++)
    if (tfs_flib__add_bytes(to, l->fns[i].bytes, l->fns[i].len, st))
      return -1;
  for (int i = 0; l && i < l->ngrad; i++)
    if (tfs_flib__add_gradient(to, l->grads[i].fn, l->grads[i].grad, st)) return -1;
  return 0;
}

int tfs_flib__export(const tfs_graph *g, tfs_pb_arena *a,
                     Tensorflow__FunctionDefLibrary **out) {
  *out = NULL;
  const struct tfs_flib *l = g->lib;
  if (!l || (l->n == 0 && l->ngrad == 0)) return 0;
  Tensorflow__FunctionDefLibrary *p = tfs_pb_arena_alloc(a, sizeof(*p));
  if (!p) return -1;
  tensorflow__function_def_library__init(p);
  if (l->n) {
    p->function = tfs_pb_arena_array(a, (size_t)l->n, sizeof(void *));
    if (!p->function) return -1;
    for (int i = 0; i < l->n; i++) p->function[i] = l->fns[i].pb;
    p->n_function = (size_t)l->n;
  }
  if (l->ngrad) {
    Tensorflow__GradientDef *gd =
        tfs_pb_arena_array(a, (size_t)l->ngrad, sizeof(*gd));
    p->gradient = tfs_pb_arena_array(a, (size_t)l->ngrad, sizeof(void *));
    if (!gd || !p->gradient) return -1;
    for (int i = 0; i < l->ngrad; i++) {
      tensorflow__gradient_def__init(&gd[i]);
      gd[i].function_name = l->grads[i].fn;
      gd[i].gradient_func = l->grads[i].grad;
      p->gradient[i] = &gd[i];
    }
    p->n_gradient = (size_t)l->ngrad;
  }
  *out = p;
  return 0;
}

/* ---- walking the ops functions use -------------------------------------- */

typedef struct walk {
  const tfs_graph *g;
  int (*fn)(const Tensorflow__NodeDef *, void *);
  void *arg;
  uint8_t *seen; /* per library function */
} walk;

static int walk_fn(walk *w, const char *name);

static int walk_attr(walk *w, const Tensorflow__AttrValue *v) {
  if (!v) return 0;
  if (v->value_case == TENSORFLOW__ATTR_VALUE__VALUE_FUNC && v->func) {
    int rc = walk_fn(w, v->func->name);
    for (size_t i = 0; !rc && i < v->func->n_attr; i++)
      rc = walk_attr(w, v->func->attr[i]->value);
    return rc;
  }
  if (v->value_case == TENSORFLOW__ATTR_VALUE__VALUE_LIST && v->list)
    for (size_t i = 0; i < v->list->n_func; i++) {
      int rc = walk_fn(w, v->list->func[i]->name);
      if (rc) return rc;
    }
  return 0;
}

static int walk_fn(walk *w, const char *name) {
  const tfs_flib_fn *f = tfs_flib__find(w->g, name);
  if (!f) return 0;
  int idx = (int)(f - w->g->lib->fns);
  if (w->seen[idx]) return 0;
  w->seen[idx] = 1;
  for (size_t i = 0; i < f->pb->n_node_def; i++) {
    const Tensorflow__NodeDef *nd = f->pb->node_def[i];
    const char *op = nd->op ? nd->op : "";
    int rc = tfs_flib__find(w->g, op) ? walk_fn(w, op) : w->fn(nd, w->arg);
    for (size_t k = 0; !rc && k < nd->n_attr; k++)
      rc = walk_attr(w, nd->attr[k]->value);
    if (rc) return rc;
  }
  return 0;
}

int tfs_flib__walk_nodes(const tfs_graph *g, const char *name,
                         int (*fn)(const Tensorflow__NodeDef *node, void *arg),
                         void *arg) {
  if (!g->lib || !tfs_flib__find(g, name)) return 0;
  walk w = {g, fn, arg, tfs_calloc((size_t)g->lib->n + 1, 1)};
  if (!w.seen) return -1;
  int rc = walk_fn(&w, name);
  tfs_free(w.seen);
  return rc;
}

/* ---- public API ------------------------------------------------------------ */

void tfs_graph_add_function(tfs_graph *g, const void *fdef, size_t len,
                            tfs_status *st) {
  TFS_CHECK_ARG(g != NULL && (fdef != NULL || len == 0), st, );
  pthread_mutex_lock(&g->mu);
  int rc = tfs_flib__add_bytes(g, fdef, len, st);
  pthread_mutex_unlock(&g->mu);
  if (rc == 0) tfs_status_clear(st);
}

int tfs_graph_num_functions(tfs_graph *g) {
  if (!g) return 0;
  pthread_mutex_lock(&g->mu);
  int n = tfs_flib__count(g);
  pthread_mutex_unlock(&g->mu);
  return n;
}

const char *tfs_graph_function_name(tfs_graph *g, int i) {
  if (!g) return NULL;
  pthread_mutex_lock(&g->mu);
  const char *name = i >= 0 && i < tfs_flib__count(g) ? g->lib->fns[i].name
                                                      : NULL;
  pthread_mutex_unlock(&g->mu);
  return name;
}

static void free_bytes(void *data, size_t len) {
  (void)len;
  tfs_free(data);
}

void tfs_graph_get_function_def(tfs_graph *g, const char *name,
                                tfs_buffer *out, tfs_status *st) {
  TFS_CHECK_ARG(g != NULL && name != NULL, st, );
  if (tfs_pb__check_empty(out, st)) return;
  pthread_mutex_lock(&g->mu);
  const tfs_flib_fn *f = tfs_flib__find(g, name);
  uint8_t *copy = f ? tfs_malloc(f->len ? f->len : 1) : NULL;
  if (copy) {
    memcpy(copy, f->bytes, f->len);
    out->data = copy;
    out->length = f->len;
    out->data_deallocator = free_bytes;
    tfs_status_clear(st);
  } else if (f) {
    TFS_OOM(st);
  } else {
    tfs_status_setf(st, TFS_NOT_FOUND,
                    "Function '%s' is not in the graph's library.", name);
  }
  pthread_mutex_unlock(&g->mu);
}

/* ---- functions called by name ---------------------------------------------
 * A node whose op type names a library function gets the function's
 * signature as its op definition.  Definitions are interned for the life
 * of the process, keyed by the signature's bytes, so an operation's def
 * stays valid whatever happens to the library afterwards, and a graph
 * built from another graph's nodes (the optimizer's) finds them too. */

typedef struct fn_def_entry {
  uint8_t *key; /* the packed signature (owned) */
  size_t len;
  tfs_op_def *def;
} fn_def_entry;

static pthread_mutex_t g_fn_defs_mu = PTHREAD_MUTEX_INITIALIZER;
static fn_def_entry *g_fn_defs; /* guarded by: g_fn_defs_mu */
static size_t g_nfn_defs, g_fn_defs_cap;

static char *opt_strdup(const char *s, int *oom) {
  if (!s || !*s) return NULL;
  char *r = tfs_strdup(s);
  if (!r) *oom = 1;
  return r;
}

static void arg_from_proto(const Tensorflow__OpDef__ArgDef *p, tfs_arg_def *a,
                           int *oom) {
  a->name = tfs_strdup(p->name ? p->name : "");
  if (!a->name) *oom = 1;
  a->type = (tfs_dtype)p->type;
  a->type_attr = opt_strdup(p->type_attr, oom);
  a->number_attr = opt_strdup(p->number_attr, oom);
  a->type_list_attr = opt_strdup(p->type_list_attr, oom);
  a->is_ref = p->is_ref;
}

/* "list(type)" and the like into an attr def's kind; -1 if unknown. */
static int attr_kind(const char *s, tfs_attr_def *ad) {
  static const char *const kinds[] = {
      [TFS_ATTR_STRING] = "string", [TFS_ATTR_INT] = "int",
      [TFS_ATTR_FLOAT] = "float",   [TFS_ATTR_BOOL] = "bool",
      [TFS_ATTR_TYPE] = "type",     [TFS_ATTR_SHAPE] = "shape",
      [TFS_ATTR_TENSOR] = "tensor", [TFS_ATTR_FUNC] = "func"};
  size_t n = s ? strlen(s) : 0;
  ad->is_list = n > 6 && strncmp(s, "list(", 5) == 0 && s[n - 1] == ')';
  if (ad->is_list) {
    s += 5;
    n -= 6;
  }
  for (size_t k = 0; k < TFS_ARRAY_LEN(kinds); k++)
    if (kinds[k] && strlen(kinds[k]) == n && strncmp(kinds[k], s, n) == 0) {
      ad->type = (uint8_t)k;
      return 0;
    }
  return -1;
}

static int attr_from_proto(const Tensorflow__OpDef__AttrDef *p,
                           tfs_attr_def *ad, const char *fn, tfs_status *st) {
  ad->name = tfs_strdup(p->name ? p->name : "");
  if (!ad->name) return TFS_OOM(st), -1;
  if (attr_kind(p->type, ad)) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "Function '%s': attr '%s' has an unknown type '%s'", fn,
                    ad->name, p->type ? p->type : "");
    return -1;
  }
  ad->has_min = p->has_minimum;
  ad->min = p->minimum;
  if (p->default_value &&
      p->default_value->value_case != TENSORFLOW__ATTR_VALUE__VALUE__NOT_SET) {
    if (tfs_attr_value__from_proto(p->default_value, ad, &ad->def, st) < 0)
      return -1;
    ad->has_default = 1;
  }
  if (p->allowed_values &&
      p->allowed_values->value_case == TENSORFLOW__ATTR_VALUE__VALUE_LIST) {
    tfs_attr_def as_list = *ad;
    as_list.is_list = 1;
    if (tfs_attr_value__from_proto(p->allowed_values, &as_list, &ad->allowed,
                                   st) < 0)
      return -1;
  }
  return 0;
}

/* TensorFlow's SummarizeOpDef text of a signature, for messages. */
static char *summarize_sig(const tfs_op_def *d) {
  tfs_strbuf b = TFS_STRBUF_INIT;
  tfs_strbuf_printf(&b, "Op<name=%s; signature=", d->name);
  for (int side = 0; side < 2; side++) {
    const tfs_arg_def *args = side ? d->outputs : d->inputs;
    int n = side ? d->noutputs : d->ninputs;
    if (side) tfs_strbuf_puts(&b, " -> ");
    for (int i = 0; i < n; i++) {
      const tfs_arg_def *a = &args[i];
      tfs_strbuf_printf(&b, "%s%s:%s%s%s", i ? ", " : "", a->name,
                        a->number_attr ? a->number_attr : "",
                        a->number_attr ? "*" : "",
                        a->type_attr        ? a->type_attr
                        : a->type_list_attr ? a->type_list_attr
                                            : tfs_dtype_name(a->type));
    }
  }
  for (int i = 0; i < d->nattrs; i++)
    tfs_strbuf_printf(&b, "; attr=%s:%s", d->attrs[i].name,
                      tfs_attr_def__type_string(&d->attrs[i]));
  if (d->flags & TFS_OP_STATEFUL) tfs_strbuf_puts(&b, "; is_stateful=true");
  tfs_strbuf_putc(&b, '>');
  return tfs_strbuf_take(&b);
}

/* A new op definition from function signature `sig`, or NULL with st
 * set. */
static tfs_op_def *def_from_signature(const Tensorflow__OpDef *sig,
                                      tfs_status *st) {
  tfs_op_def *d = tfs_calloc(1, sizeof(*d));
  int oom = !d;
  if (d) {
    d->name = tfs_strdup(sig->name);
    d->inputs = tfs_calloc(sig->n_input_arg + 1, sizeof(tfs_arg_def));
    d->outputs = tfs_calloc(sig->n_output_arg + 1, sizeof(tfs_arg_def));
    d->attrs = tfs_calloc(sig->n_attr + 1, sizeof(tfs_attr_def));
    oom = !d->name || !d->inputs || !d->outputs || !d->attrs;
  }
  /* never folded: a call needs the session's function runtime */
  if (d) d->flags = TFS_OP_NO_FOLD | (sig->is_stateful ? TFS_OP_STATEFUL : 0);
  /* counts first: tfs_op_def_clear frees a half-built last entry too */
  for (size_t i = 0; !oom && i < sig->n_attr; i++)
    if (attr_from_proto(sig->attr[i], &d->attrs[d->nattrs++], sig->name,
                        st))
      goto fail;
  for (size_t i = 0; !oom && i < sig->n_input_arg; i++)
    arg_from_proto(sig->input_arg[i], &d->inputs[d->ninputs++], &oom);
  for (size_t i = 0; !oom && i < sig->n_output_arg; i++)
    arg_from_proto(sig->output_arg[i], &d->outputs[d->noutputs++], &oom);
  if (!oom && !(d->summary = summarize_sig(d))) oom = 1;
  if (!oom) return d;
  TFS_OOM(st);
fail:
  if (d) {
    tfs_op_def_clear(d);
    tfs_free(d);
  }
  return NULL;
}

/* The interned definition for signature `sig`. */
static const tfs_op_def *intern_signature(const Tensorflow__OpDef *sig,
                                          tfs_status *st) {
  size_t len = protobuf_c_message_get_packed_size(&sig->base);
  uint8_t *key = tfs_malloc(len ? len : 1);
  if (!key) return TFS_OOM(st), NULL;
  protobuf_c_message_pack(&sig->base, key);
  const tfs_op_def *found = NULL;
  pthread_mutex_lock(&g_fn_defs_mu);
  for (size_t i = 0; i < g_nfn_defs && !found; i++)
    if (g_fn_defs[i].len == len && memcmp(g_fn_defs[i].key, key, len) == 0)
      found = g_fn_defs[i].def;
  if (!found) {
    tfs_op_def *d = def_from_signature(sig, st);
    if (d && tfs_grow((void **)&g_fn_defs, &g_fn_defs_cap, g_nfn_defs + 1,
                      sizeof(*g_fn_defs)) == 0) {
      g_fn_defs[g_nfn_defs++] = (fn_def_entry){key, len, d};
      key = NULL;
      found = d;
    } else if (d) {
      tfs_op_def_clear(d);
      tfs_free(d);
      TFS_OOM(st);
    }
  }
  pthread_mutex_unlock(&g_fn_defs_mu);
  tfs_free(key);
  return found;
}

int tfs_flib__is_function_op(const tfs_op_def *def) {
  int r = 0;
  pthread_mutex_lock(&g_fn_defs_mu);
  for (size_t i = 0; i < g_nfn_defs && !r; i++) r = g_fn_defs[i].def == def;
  pthread_mutex_unlock(&g_fn_defs_mu);
  return r;
}

/* The interned definition whose name is the string `name` itself (a node
 * spec copied from another graph's node names its op with def->name). */
static const tfs_op_def *interned_by_name_ptr(const char *name) {
  const tfs_op_def *r = NULL;
  pthread_mutex_lock(&g_fn_defs_mu);
  for (size_t i = 0; i < g_nfn_defs && !r; i++)
    if (g_fn_defs[i].def->name == name) r = g_fn_defs[i].def;
  pthread_mutex_unlock(&g_fn_defs_mu);
  return r;
}

const tfs_op_def *tfs_graph__lookup_op(const tfs_graph *g, const char *type,
                                       tfs_status *st) {
  const tfs_op_def *def = type ? tfs_op_lookup(type) : NULL;
  if (def) return def;
  const tfs_flib_fn *f = g ? tfs_flib__find(g, type) : NULL;
  if (f && f->pb->signature) return intern_signature(f->pb->signature, st);
  if (type && (def = interned_by_name_ptr(type))) return def;
  tfs_op_not_registered(type ? type : "", st);
  return NULL;
}
