/*
 * graph_builder/graph.c - graph lifetime, lookups, iteration, name scopes
 * and unique names, and shape queries.
 */
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/status.h"
#include "graph_builder/function_lib.h"
#include "graph_builder/graph_internal.h"

tfs_graph *tfs_graph_new(void) {
  tfs_graph *g = tfs_calloc(1, sizeof(*g));
  if (!g) return NULL;
  pthread_mutex_init(&g->mu, NULL);
  return g;
}

static void op_destroy(tfs_operation *op) {
  tfs_free(op->name);
  tfs_free(op->device);
  tfs_attrs_clear(&op->attrs);
  tfs_free(op->inputs);
  tfs_free(op->in_types);
  tfs_free(op->control_inputs);
  tfs_free(op->out_types);
  tfs_free(op->out_shapes);
  tfs_free(op->in_arg_start);
  tfs_free(op->in_arg_len);
  tfs_free(op->out_arg_start);
  tfs_free(op->out_arg_len);
  if (op->consumers) {
    for (int i = 0; i < op->noutputs; i++) tfs_free(op->consumers[i].v);
    tfs_free(op->consumers);
  }
  tfs_free(op->control_outputs);
  tfs_graph__free_orig_names(op);
  tfs_free(op);
}

static void graph_destroy(tfs_graph *g) {
  for (size_t i = 0; i < g->nops; i++) op_destroy(g->ops[i]);
  tfs_free(g->ops);
  tfs_map_free(&g->by_name);
  tfs_map_free(&g->name_uses);
  for (size_t i = 0; i < g->nname_keys; i++) tfs_free(g->name_keys[i]);
  tfs_free(g->name_keys);
  for (int i = 0; i < g->nscopes; i++) tfs_free(g->scopes[i]);
  tfs_free(g->scopes);
  tfs_flib__free(g->lib);
  pthread_mutex_destroy(&g->mu);
  tfs_free(g);
}

void tfs_graph_free(tfs_graph *g) {
  if (!g) return;
  pthread_mutex_lock(&g->mu);
  if (g->nsessions > 0) {
    g->free_requested = 1;
    pthread_mutex_unlock(&g->mu);
    return;
  }
  pthread_mutex_unlock(&g->mu);
  graph_destroy(g);
}

void tfs_graph__retain(tfs_graph *g) {
  pthread_mutex_lock(&g->mu);
  g->nsessions++;
  pthread_mutex_unlock(&g->mu);
}

void tfs_graph__release(tfs_graph *g) {
  pthread_mutex_lock(&g->mu);
  int destroy = --g->nsessions == 0 && g->free_requested;
  pthread_mutex_unlock(&g->mu);
  if (destroy) graph_destroy(g);
}

void tfs_graph__truncate(tfs_graph *g, size_t nops) {
  /* Unlink every removed op before destroying any: a back edge makes an
   * earlier op the consumer of a later one. */
  for (size_t n = g->nops; n > nops; n--) {
    tfs_operation *op = g->ops[n - 1];
    tfs_map_remove(&g->by_name, op->name, strlen(op->name));
    /* unlink from producers' consumer lists */
    for (int i = 0; i < op->ninputs; i++) {
      tfs_operation *p = op->inputs[i].oper;
      if (!p) continue;
      tfs_consumer_list *cl = &p->consumers[op->inputs[i].index];
      for (int k = cl->n - 1; k >= 0; k--) {
        if (cl->v[k].oper == op) {
          memmove(&cl->v[k], &cl->v[k + 1],
                  sizeof(tfs_input) * (size_t)(cl->n - k - 1));
          cl->n--;
        }
      }
    }
    for (int i = 0; i < op->ncontrol; i++) {
      tfs_operation *p = op->control_inputs[i];
      for (int k = p->ncontrol_out - 1; k >= 0; k--) {
        if (p->control_outputs[k] == op) {
          memmove(&p->control_outputs[k], &p->control_outputs[k + 1],
                  sizeof(tfs_operation *) * (size_t)(p->ncontrol_out - k - 1));
          p->ncontrol_out--;
        }
      }
    }
  }
  while (g->nops > nops) op_destroy(g->ops[--g->nops]);
}

void tfs_graph_update_edge(tfs_graph *g, tfs_output new_src, tfs_input dst,
                           tfs_status *st) {
  TFS_CHECK_ARG(g != NULL && new_src.oper != NULL && dst.oper != NULL, st, );
  TFS_CHECK_ARG(new_src.oper->graph == g && dst.oper->graph == g, st, );
  pthread_mutex_lock(&g->mu);
  if (new_src.index < 0 || new_src.index >= new_src.oper->noutputs) {
    tfs_status_setf(st, TFS_OUT_OF_RANGE,
                    "Cannot update edge. Output index [%d] is greater than "
                    "the number of total outputs [%d].",
                    new_src.index, new_src.oper->noutputs);
    goto done;
  }
  if (dst.index < 0 || dst.index >= dst.oper->ninputs) {
    tfs_status_setf(st, TFS_OUT_OF_RANGE,
                    "Cannot update edge. Input index [%d] is greater than "
                    "the number of total inputs [%d].",
                    dst.index, dst.oper->ninputs);
    goto done;
  }
  const tfs_shape *shape = &new_src.oper->out_shapes[new_src.index];
  tfs_output old = dst.oper->inputs[dst.index];
  tfs_shape unknown = {.rank = -1}, merged;
  const tfs_shape *have =
      old.oper ? &old.oper->out_shapes[old.index] : &unknown;
  if (tfs_shape_merge(shape, have, &merged)) {
    char a[TFS_SHAPE_STRLEN], b[TFS_SHAPE_STRLEN];
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "Cannot update edge, incompatible shapes: %s and %s.",
                    tfs_shape_str(shape, a, sizeof a),
                    tfs_shape_str(have, b, sizeof b));
    goto done;
  }
  tfs_graph__set_input(dst.oper, dst.index, new_src, st);
done:
  pthread_mutex_unlock(&g->mu);
}

size_t tfs_graph_num_operations(tfs_graph *g) {
  if (!g) return 0;
  pthread_mutex_lock(&g->mu);
  size_t n = g->nops;
  pthread_mutex_unlock(&g->mu);
  return n;
}

tfs_operation *tfs_graph_operation_by_name(tfs_graph *g, const char *name) {
  if (!g || !name) return NULL;
  pthread_mutex_lock(&g->mu);
  tfs_operation *op = tfs_map_get_str(&g->by_name, name);
  pthread_mutex_unlock(&g->mu);
  return op;
}

int tfs_graph__parse_tensor_name(const char *s, size_t *name_len,
                                 int *index) {
  const char *colon = strrchr(s, ':');
  *index = 0;
  *name_len = strlen(s);
  if (!colon) return 0;
  const char *p = colon + 1;
  if (!*p) return -1;
  long v = 0;
  for (; *p; p++) {
    if (*p < '0' || *p > '9') return -1;
    v = v * 10 + (*p - '0');
    if (v > 1000000000L) return -1;
  }
  *index = (int)v;
  *name_len = (size_t)(colon - s);
  return 0;
}

tfs_output tfs_graph_output_by_name(tfs_graph *g, const char *name,
                                    tfs_status *st) {
  tfs_output none = {NULL, -1};
  TFS_CHECK_ARG(g != NULL && name != NULL, st, none);
  size_t nlen;
  int idx;
  if (tfs_graph__parse_tensor_name(name, &nlen, &idx)) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "'%s' is not a valid tensor name", name);
    return none;
  }
  pthread_mutex_lock(&g->mu);
  tfs_operation *op = tfs_map_get(&g->by_name, name, nlen);
  pthread_mutex_unlock(&g->mu);
  if (!op) {
    tfs_status_setf(st, TFS_NOT_FOUND,
                    "The name '%s' refers to an Operation not in the graph.",
                    name);
    return none;
  }
  if (idx >= op->noutputs) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "The name '%s' refers to a Tensor which does not exist. "
                    "The operation, '%s', exists but only has %d outputs.",
                    name, op->name, op->noutputs);
    return none;
  }
  tfs_status_clear(st);
  tfs_output o = {op, idx};
  return o;
}

tfs_operation *tfs_graph_next_operation(tfs_graph *g, size_t *pos) {
  if (!g || !pos) return NULL;
  pthread_mutex_lock(&g->mu);
  tfs_operation *op = *pos < g->nops ? g->ops[*pos] : NULL;
  pthread_mutex_unlock(&g->mu);
  if (op) (*pos)++;
  return op;
}

static int check_output(tfs_output out, tfs_status *st) {
  if (!out.oper || out.index < 0 || out.index >= out.oper->noutputs) {
    tfs_status_setf(st, TFS_OUT_OF_RANGE,
                    "Node '%s' has %d outputs but the output index is %d",
                    out.oper ? out.oper->name : "(null)",
                    out.oper ? out.oper->noutputs : 0, out.index);
    return -1;
  }
  return 0;
}

int tfs_graph_tensor_num_dims(tfs_graph *g, tfs_output out, tfs_status *st) {
  TFS_CHECK_ARG(g != NULL, st, -1);
  if (check_output(out, st)) return -1;
  tfs_status_clear(st);
  return out.oper->out_shapes[out.index].rank;
}

void tfs_graph_tensor_shape(tfs_graph *g, tfs_output out, int64_t *dims,
                            int ndims, tfs_status *st) {
  TFS_CHECK_ARG(g != NULL, st, );
  if (check_output(out, st)) return;
  const tfs_shape *s = &out.oper->out_shapes[out.index];
  if (s->rank != ndims) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "Expected rank is %d but actual rank is %d", ndims,
                    s->rank);
    return;
  }
  for (int i = 0; i < ndims; i++) dims[i] = s->dims[i];
  tfs_status_clear(st);
}

/* ---- scopes and unique names ------------------------------------------ */

void tfs_graph_push_scope(tfs_graph *g, const char *scope, tfs_status *st) {
  TFS_CHECK_ARG(g != NULL && scope != NULL && *scope, st, );
  size_t cap = (size_t)g->scopes_cap;
  char *s = NULL;
  if (g->nscopes)
    s = tfs_asprintf("%s/%s", g->scopes[g->nscopes - 1], scope);
  else
    s = tfs_strdup(scope);
  if (!s || tfs_grow((void **)&g->scopes, &cap, (size_t)g->nscopes + 1,
                     sizeof(char *))) {
    tfs_free(s);
    TFS_OOM(st);
    return;
  }
  g->scopes_cap = (int)cap;
  g->scopes[g->nscopes++] = s;
  tfs_status_clear(st);
}

void tfs_graph_pop_scope(tfs_graph *g) {
  if (!g || !g->nscopes) return;
  tfs_free(g->scopes[--g->nscopes]);
}

static int name_taken(tfs_graph *g, const char *n) {
  return tfs_map_get_str(&g->by_name, n) != NULL ||
         tfs_map_get_str(&g->name_uses, n) != NULL;
}

static int reserve_name(tfs_graph *g, char *owned) {
  if (tfs_grow((void **)&g->name_keys, &g->name_keys_cap,
               g->nname_keys + 1, sizeof(char *)) ||
      tfs_map_put_str(&g->name_uses, owned, (void *)(intptr_t)1))
    return -1;
  g->name_keys[g->nname_keys++] = owned;
  return 0;
}

char *tfs_graph_unique_name(tfs_graph *g, const char *base) {
  if (!g || !base) return NULL;
  pthread_mutex_lock(&g->mu);
  char *full = g->nscopes
                   ? tfs_asprintf("%s/%s", g->scopes[g->nscopes - 1], base)
                   : tfs_strdup(base);
  char *cand = full ? tfs_strdup(full) : NULL;
  for (int i = 1; cand && name_taken(g, cand); i++) {
    tfs_free(cand);
    cand = tfs_asprintf("%s_%d", full, i);
  }
  char *key = cand ? tfs_strdup(cand) : NULL;
  if (!key || reserve_name(g, key)) {
    tfs_free(key);
    tfs_free(cand);
    cand = NULL;
  }
  tfs_free(full);
  pthread_mutex_unlock(&g->mu);
  return cand;
}

/* ---- summaries ---------------------------------------------------------- */

char *tfs_graph__summarize_node(const tfs_operation *op) {
  tfs_strbuf b = TFS_STRBUF_INIT;
  tfs_strbuf_printf(&b, "{{node %s}} = %s[", op->name, op->def->name);
  int first = 1;
  for (int i = 0; i < op->attrs.n; i++) {
    if (!first) tfs_strbuf_puts(&b, ", ");
    first = 0;
    tfs_strbuf_printf(&b, "%s=", op->attrs.e[i].name);
    tfs_attr_value_summary(&b, &op->attrs.e[i].value);
  }
  if (op->device && *op->device) {
    if (!first) tfs_strbuf_puts(&b, ", ");
    tfs_strbuf_printf(&b, "_device=\"%s\"", op->device);
  }
  tfs_strbuf_puts(&b, "](");
  for (int i = 0; i < op->ninputs; i++) {
    if (i) tfs_strbuf_puts(&b, ", ");
    if (!op->inputs[i].oper) /* a back edge not set yet */
      tfs_strbuf_puts(&b, "?");
    else if (op->inputs[i].index)
      tfs_strbuf_printf(&b, "%s:%d", op->inputs[i].oper->name,
                        op->inputs[i].index);
    else
      tfs_strbuf_puts(&b, op->inputs[i].oper->name);
  }
  for (int i = 0; i < op->ncontrol; i++) {
    if (i || op->ninputs) tfs_strbuf_puts(&b, ", ");
    tfs_strbuf_printf(&b, "^%s", op->control_inputs[i]->name);
  }
  tfs_strbuf_puts(&b, ")");
  return tfs_strbuf_take(&b);
}

const tfs_tensor *tfs_graph__const_value(tfs_output o) {
  if (!o.oper || strcmp(o.oper->def->name, "Const") != 0) return NULL;
  return tfs_attrs_get_tensor(&o.oper->attrs, "value");
}
