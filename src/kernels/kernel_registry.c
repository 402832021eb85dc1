/*
 * kernels/kernel_registry.c - finds the kernel for a node: by op name,
 * device and the dtype of the kernel's constraint attr, among the tables
 * every backend lists (tfs_backend_kernel_lists).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/hashmap.h"
#include "core/log.h"
#include "core/strbuf.h"
#include "kernels/kernel.h"

typedef struct {
  int n, cap;
  const tfs_kernel_def **v;
} kernel_list;

static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static tfs_map g_by_op = TFS_MAP_INIT; /* op name -> kernel_list */
static kernel_list *g_lists;
static const tfs_kernel_def **g_all;
static int g_nall, g_declared;

/* Registers one kernel under its op; logs and drops a kernel of an op
 * the registry does not have (tests/ops/test_registry counts them). */
static void add_kernel(const tfs_kernel_def *k, int *nlists) {
  if (!tfs_op_lookup(k->op)) {
    tfs_log(TFS_LOG_ERROR, "kernel for unregistered op '%s'", k->op);
    return;
  }
  kernel_list *l = tfs_map_get_str(&g_by_op, k->op);
  size_t cap = l ? (size_t)l->cap : 0;
  if (!l) {
    l = &g_lists[(*nlists)++];
    if (tfs_map_put_str(&g_by_op, k->op, l)) l = NULL;
  }
  if (!l ||
      tfs_grow((void **)&l->v, &cap, (size_t)l->n + 1, sizeof(void *))) {
    tfs_log(TFS_LOG_ERROR, "out of memory registering a kernel of '%s'",
            k->op);
    return;
  }
  l->cap = (int)cap;
  l->v[l->n++] = k;
  g_all[g_nall++] = k;
}

/* Every kernel of every backend's tables (tfs_backend_kernel_lists). */
static void build(void) {
  const tfs_kernel_def *const *const *lists = tfs_backend_kernel_lists;
  int total = 0;
  for (int b = 0; lists[b]; b++)
    for (int t = 0; lists[b][t]; t++)
      for (const tfs_kernel_def *k = lists[b][t]; k->op; k++) total++;
  g_declared = total;
  g_all = tfs_calloc((size_t)total + 1, sizeof(*g_all));
  g_lists = tfs_calloc((size_t)total + 1, sizeof(kernel_list));
  if (!g_all || !g_lists) return;
  int nlists = 0;
  for (int b = 0; lists[b]; b++)
    for (int t = 0; lists[b][t]; t++)
      for (const tfs_kernel_def *k = lists[b][t]; k->op; k++)
        add_kernel(k, &nlists);
}

static void types_string(tfs_strbuf *b, uint64_t types) {
  int first = 1;
  tfs_strbuf_putc(b, '[');
  for (int d = 1; d < 64; d++) {
    if (!(types & TFS_DT_BIT(d)) || !tfs_dtype_is_valid((tfs_dtype)d))
      continue;
    if (!first) tfs_strbuf_puts(b, ", ");
    first = 0;
    tfs_strbuf_puts(b, tfs_dtype_enum_name((tfs_dtype)d));
  }
  tfs_strbuf_putc(b, ']');
}

/* ---- library functions called by name ----------------------------------
 * A node whose op type names a library function has the function's
 * signature as its op definition, one the registry does not hold
 * (graph_builder/function_lib.c).  Its kernel calls the function through
 * the run's function runtime, as PartitionedCall calls its `f`, with the
 * node's attrs bound. */

static int fn_call_prepare(tfs_kernel_init *ki) {
  tfs_func_attr *f = tfs_calloc(1, sizeof(*f));
  if (!f) return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  f->name = ki->op->name;              /* interned: lives as long */
  f->attrs = (tfs_attrs *)ki->attrs;   /* the node's: outlive the plan */
  ki->state = f;
  return 0;
}

static void fn_call_compute(tfs_kernel_ctx *c) {
  const tfs_func_attr *f = c->state;
  const tfs_fn_runtime *rt = c->run ? c->run->fnrt : NULL;
  if (!rt) {
    tfs_kctx_fail(c, TFS_UNIMPLEMENTED,
                  "Function '%s' cannot be called here (no function "
                  "runtime)",
                  f->name);
    return;
  }
  if (rt->call(rt->ctx, f, c->inputs, c->ninputs, c->outputs, c->noutputs,
               c->st))
    tfs_kctx_fail_status(c, c->st);
}

static const tfs_kernel_def k_fn_call = {
    "(function call)", "CPU", NULL, 0, fn_call_prepare, fn_call_compute,
    tfs_free, 0, NULL};

const tfs_kernel_def *tfs_kernel_find(const tfs_op_def *op,
                                      const char *device,
                                      const tfs_attrs *attrs,
                                      const char *node_name,
                                      tfs_status *st) {
  pthread_once(&g_once, build);
  if (strcmp(device, "CPU") == 0 && tfs_op_lookup(op->name) != op)
    return &k_fn_call;
  kernel_list *l = tfs_map_get_str(&g_by_op, op->name);
  for (int i = 0; l && i < l->n; i++) {
    const tfs_kernel_def *k = l->v[i];
    if (strcmp(k->device, device) != 0) continue;
    if (!k->type_attr || !k->types) return k;
    tfs_dtype dt;
    if (tfs_attrs_get_type(attrs, k->type_attr, &dt) == 0 &&
        (unsigned)dt < 64 && (k->types & TFS_DT_BIT(dt)))
      return k;
  }
  /* TensorFlow's message: the node's type attrs, then what exists. */
  tfs_strbuf b = TFS_STRBUF_INIT;
  tfs_strbuf_printf(&b, "No OpKernel was registered to support Op '%s' "
                    "used by {{node %s}} with these attrs: [", op->name,
                    node_name);
  int first = 1;
  for (int i = 0; attrs && i < attrs->n; i++) {
    if (attrs->e[i].name[0] == '_') continue;
    if (!first) tfs_strbuf_puts(&b, ", ");
    first = 0;
    tfs_strbuf_printf(&b, "%s=", attrs->e[i].name);
    tfs_attr_value_summary(&b, &attrs->e[i].value);
  }
  tfs_strbuf_printf(&b, "]\nRegistered devices: [CPU]\nRegistered "
                    "kernels:\n");
  if (!l || !l->n) tfs_strbuf_puts(&b, "  <no registered kernels>\n");
  for (int i = 0; l && i < l->n; i++) {
    const tfs_kernel_def *k = l->v[i];
    tfs_strbuf_printf(&b, "  device='%s'", k->device);
    if (k->type_attr && k->types) {
      tfs_strbuf_printf(&b, "; %s in ", k->type_attr);
      types_string(&b, k->types);
    }
    tfs_strbuf_putc(&b, '\n');
  }
  tfs_status_set(st, TFS_INVALID_ARGUMENT, tfs_strbuf_str(&b));
  tfs_strbuf_free(&b);
  return NULL;
}

int tfs_kernel_registry_declared(void) {
  pthread_once(&g_once, build);
  return g_declared;
}

const tfs_kernel_def *const *tfs_kernel_all(int *n) {
  pthread_once(&g_once, build);
  *n = g_nall;
  return g_all;
}
