/*
 * gradients/gradients.c - tfs_gradients: TensorFlow's symbolic gradient
 * builder (cc/framework/gradients.cc's algorithm, in C).
 *
 * 1. Backward reachability from the y's over data edges; every x must be
 *    reached.
 * 2. Forward walk from the x's over data edges into nodes the y's depend
 *    on, stopping at y nodes: those nodes' outputs get gradient lists and
 *    each node a count of the gradients it waits for.
 * 3. Seeds go to the y's; a node whose count reaches zero is ready: its
 *    output gradients are summed (AddN when several), recorded when an
 *    output is an x, and its gradient function sends one gradient per data
 *    input back to the producers.
 * On error the graph is truncated back to where it was.
 */
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/status.h"
#include "core/util.h"
#include "gradients/grad_internal.h"

#define NOT_FOUND_TAIL                                                  \
  "Please see "                                                         \
  "https://www.tensorflow.org/code/tensorflow/cc/gradients/README.md "  \
  "for instructions on how to add C++ gradients."

/* ---- registry ------------------------------------------------------------ */

static tfs_grad_entry *g_table;
static int g_ntable;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static int cmp_entry(const void *a, const void *b) {
  return strcmp(((const tfs_grad_entry *)a)->op_type,
                ((const tfs_grad_entry *)b)->op_type);
}

static void build_table(void) {
  const tfs_grad_entry *(*parts[])(int *) = {
      tfs_grad__math_table, tfs_grad__array_table, tfs_grad__reduce_table,
      tfs_grad__index_table, tfs_grad__nn_table};
  enum { NPARTS = sizeof parts / sizeof parts[0] };
  int n[NPARTS], total = 0;
  const tfs_grad_entry *t[NPARTS];
  for (int i = 0; i < NPARTS; i++) {
    t[i] = parts[i](&n[i]);
    total += n[i];
  }
  tfs_grad_entry *all = malloc((size_t)total * sizeof *all);
  if (!all) return;
  int k = 0;
  for (int i = 0; i < NPARTS; i++)
    for (int j = 0; j < n[i]; j++) all[k++] = t[i][j];
  qsort(all, (size_t)total, sizeof *all, cmp_entry);
  g_table = all;
  g_ntable = total;
}

const tfs_grad_entry *tfs_grad__lookup(const char *op_type) {
  pthread_once(&g_once, build_table);
  if (!op_type || !g_table) return NULL;
  tfs_grad_entry key = {op_type, NULL};
  return bsearch(&key, g_table, (size_t)g_ntable, sizeof key, cmp_entry);
}

int tfs_gradient_kind(const char *op_type) {
  const tfs_grad_entry *e = tfs_grad__lookup(op_type);
  return e ? (e->fn != NULL) : -1;
}

const char *tfs_gradient_op_type(int i) {
  pthread_once(&g_once, build_table);
  return (i >= 0 && i < g_ntable) ? g_table[i].op_type : NULL;
}

/* ---- the builder ------------------------------------------------------- */

typedef struct glist {
  int n, cap;
  tfs_output *v;
} glist;

typedef struct gbuild {
  tfs_gctx c;
  size_t n0;            /* ops in the graph before the call */
  unsigned char *reach; /* [n0] the y's depend on it */
  unsigned char *seen;  /* [n0] on a path from an x */
  int *pending;         /* [n0] gradients still expected */
  int *out_base;        /* [n0] first slot of its outputs in grads */
  glist *grads;         /* per output of a seen node */
  tfs_operation **ready;
  size_t nready, ready_cap, ready_head;
} gbuild;

static int push_grad(gbuild *b, tfs_output src, tfs_output grad) {
  int id = src.oper->id;
  if ((size_t)id >= b->n0 || !b->seen[id]) return 0; /* not wanted */
  glist *l = &b->grads[b->out_base[id] + src.index];
  if (tfs_gb_valid(grad)) {
    size_t cap = (size_t)l->cap;
    if (tfs_grow((void **)&l->v, &cap, (size_t)l->n + 1, sizeof *l->v)) {
      TFS_OOM(b->c.st);
      return -1;
    }
    l->cap = (int)cap;
    l->v[l->n++] = grad;
  }
  if (--b->pending[id] == 0) {
    if (tfs_grow((void **)&b->ready, &b->ready_cap, b->nready + 1,
                 sizeof *b->ready)) {
      TFS_OOM(b->c.st);
      return -1;
    }
    b->ready[b->nready++] = src.oper;
  }
  return 0;
}

static tfs_output sum_grads(gbuild *b, tfs_output o) {
  glist *l = &b->grads[b->out_base[o.oper->id] + o.index];
  if (l->n == 0) return TFS_GRAD_NONE;
  return tfs_gb_addn(&b->c, l->v, l->n);
}

/* Backward reachability from the y's. */
static int mark_reach(gbuild *b, const tfs_output *y, int ny) {
  tfs_operation **stack = malloc(b->n0 * sizeof *stack);
  if (!stack) return -1;
  size_t top = 0;
  for (int i = 0; i < ny; i++)
    if (!b->reach[y[i].oper->id]) {
      b->reach[y[i].oper->id] = 1;
      stack[top++] = y[i].oper;
    }
  while (top) {
    tfs_operation *op = stack[--top];
    for (int k = 0; k < op->ninputs; k++) {
      tfs_operation *p = op->inputs[k].oper;
      if (p && !b->reach[p->id]) {
        b->reach[p->id] = 1;
        stack[top++] = p;
      }
    }
  }
  free(stack);
  return 0;
}

/* Forward walk from the x's; counts pending gradients. */
static int mark_seen(gbuild *b, const tfs_output *y, int ny,
                     const tfs_output *x, int nx) {
  tfs_operation **queue = malloc(b->n0 * sizeof *queue);
  if (!queue) return -1;
  size_t head = 0, tail = 0;
  int nslots = 0;
  for (int i = 0; i < nx; i++)
    if (!b->seen[x[i].oper->id]) {
      b->seen[x[i].oper->id] = 1;
      queue[tail++] = x[i].oper;
    }
  while (head < tail) {
    tfs_operation *op = queue[head++];
    b->out_base[op->id] = nslots;
    nslots += op->noutputs;
    int is_y = 0, expected = 0;
    for (int i = 0; i < ny; i++)
      if (y[i].oper == op) is_y = 1, expected++;
    for (int o = 0; !is_y && o < op->noutputs; o++) {
      const tfs_consumer_list *cl = &op->consumers[o];
      for (int k = 0; k < cl->n; k++) {
        tfs_operation *dst = cl->v[k].oper;
        if ((size_t)dst->id >= b->n0 || !b->reach[dst->id]) continue;
        if (!b->seen[dst->id]) {
          b->seen[dst->id] = 1;
          queue[tail++] = dst;
        }
        expected++;
      }
    }
    b->pending[op->id] = expected;
  }
  free(queue);
  b->grads = calloc((size_t)nslots + 1, sizeof *b->grads);
  return b->grads ? 0 : -1;
}

/* One ready node: sums its output gradients and calls its function. */
static void process(gbuild *b, tfs_operation *op, const tfs_output *x, int nx,
                    tfs_output *dy_out) {
  tfs_gctx *c = &b->c;
  int ny = op->noutputs, nnone = 0;
  tfs_output *dy = calloc((size_t)ny + 1, sizeof *dy);
  tfs_output *dx = calloc((size_t)op->ninputs + 1, sizeof *dx);
  if (!dy || !dx) {
    TFS_OOM(c->st);
    goto out;
  }
  for (int i = 0; i < ny && tfs_gb_ok(c); i++) {
    dy[i] = sum_grads(b, (tfs_output){op, i});
    if (!tfs_gb_valid(dy[i])) nnone++;
    for (int j = 0; j < nx; j++)
      if (x[j].oper == op && x[j].index == i) dy_out[j] = dy[i];
  }
  int stop = 1;
  for (int k = 0; k < op->ninputs; k++) {
    tfs_operation *p = op->inputs[k].oper;
    if (p && (size_t)p->id < b->n0 && b->seen[p->id]) stop = 0;
  }
  if (stop || !tfs_gb_ok(c)) goto out;
  const tfs_grad_entry *e = tfs_grad__lookup(op->def->name);
  for (int k = 0; k < op->ninputs; k++) dx[k] = TFS_GRAD_NONE;
  if (e && (!e->fn || nnone == ny)) {
    /* no gradient: every input gets none */
  } else if (!e) {
    tfs_status_setf(c->st, TFS_NOT_FOUND, "No gradient defined for op: %s. %s",
                    op->def->name, NOT_FOUND_TAIL);
    goto out;
  } else {
    char *scope = tfs_asprintf("%s_grad", op->name);
    if (!scope) {
      TFS_OOM(c->st);
      goto out;
    }
    tfs_graph_push_scope(c->g, scope, c->st);
    tfs_free(scope);
    for (int i = 0; i < ny && tfs_gb_ok(c); i++)
      if (!tfs_gb_valid(dy[i]))
        dy[i] = tfs_gb_unary(c, "ZerosLike", (tfs_output){op, i});
    if (tfs_gb_ok(c)) e->fn(c, op, dy, dx);
    tfs_graph_pop_scope(c->g);
  }
  for (int k = 0; k < op->ninputs && tfs_gb_ok(c); k++)
    if (op->inputs[k].oper && push_grad(b, op->inputs[k], dx[k])) break;
out:
  free(dy);
  free(dx);
}

static int check_outputs(tfs_graph *g, const tfs_output *o, int n,
                         const char *what, tfs_status *st) {
  for (int i = 0; i < n; i++) {
    if (!o[i].oper || o[i].oper->graph != g || o[i].index < 0 ||
        o[i].index >= o[i].oper->noutputs) {
      tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                      "%s[%d] is not an output of an operation of this graph",
                      what, i);
      return -1;
    }
  }
  return 0;
}

/* Pushes the gradient scope: `prefix`, or "gradients" made unique. */
static int push_prefix(tfs_graph *g, const char *prefix, tfs_status *st) {
  if (!prefix) {
    char *u = tfs_graph_unique_name(g, "gradients");
    if (!u) {
      TFS_OOM(st);
      return -1;
    }
    const char *last = strrchr(u, '/');
    tfs_graph_push_scope(g, last ? last + 1 : u, st);
    free(u);
    return tfs_status_ok(st) ? 0 : -1;
  }
  size_t plen = strlen(prefix);
  for (size_t i = 0; i < g->nops; i++) {
    const char *n = g->ops[i]->name;
    if (!strncmp(n, prefix, plen) && (n[plen] == 0 || n[plen] == '/')) {
      tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                      "prefix [%s] conflicts with existing node in the graph "
                      "named [%s]",
                      prefix, n);
      return -1;
    }
  }
  tfs_graph_push_scope(g, prefix, st);
  return tfs_status_ok(st) ? 0 : -1;
}

static void run_builder(gbuild *b, const tfs_output *y, int ny,
                        const tfs_output *x, int nx, const tfs_output *seed,
                        tfs_output *dy) {
  tfs_gctx *c = &b->c;
  if (mark_reach(b, y, ny)) goto oom;
  for (int i = 0; i < nx; i++)
    if (!b->reach[x[i].oper->id]) {
      tfs_status_setf(c->st, TFS_INVALID_ARGUMENT,
                      "Cannot compute the partial derivative for node '%s' "
                      "as it's unreachable from the output node(s).",
                      x[i].oper->name);
      return;
    }
  if (mark_seen(b, y, ny, x, nx)) goto oom;
  for (int i = 0; i < ny && tfs_gb_ok(c); i++) {
    tfs_output s = seed ? seed[i] : tfs_gb_unary(c, "OnesLike", y[i]);
    if (tfs_gb_ok(c)) push_grad(b, y[i], s);
  }
  while (b->ready_head < b->nready && tfs_gb_ok(c))
    process(b, b->ready[b->ready_head++], x, nx, dy);
  /* x's whose node still waits on outputs nobody asked about */
  for (int i = 0; i < nx && tfs_gb_ok(c); i++)
    if (b->pending[x[i].oper->id] > 0) dy[i] = sum_grads(b, x[i]);
  return;
oom:
  TFS_OOM(c->st);
}

void tfs_gradients(tfs_graph *g, const char *prefix, const tfs_output *y,
                   int ny, const tfs_output *x, int nx, const tfs_output *dx,
                   tfs_output *dy, tfs_status *st) {
  TFS_CHECK_ARG(g != NULL && ny >= 0 && nx >= 0 && (y || !ny) &&
                    (x || !nx) && (dy || !nx),
                st, );
  if (check_outputs(g, y, ny, "y", st) || check_outputs(g, x, nx, "x", st) ||
      (dx && check_outputs(g, dx, ny, "dx", st)))
    return;
  gbuild b = {.c = {g, st}, .n0 = g->nops};
  tfs_output *res = calloc((size_t)nx + 1, sizeof *res);
  b.reach = calloc(b.n0 + 1, 1);
  b.seen = calloc(b.n0 + 1, 1);
  b.pending = calloc(b.n0 + 1, sizeof *b.pending);
  b.out_base = calloc(b.n0 + 1, sizeof *b.out_base);
  int nscopes = g->nscopes;
  if (!res || !b.reach || !b.seen || !b.pending || !b.out_base) {
    TFS_OOM(st);
  } else if (push_prefix(g, prefix, st) == 0) {
    tfs_status_clear(st);
    for (int i = 0; i < nx; i++) res[i] = TFS_GRAD_NONE;
    run_builder(&b, y, ny, x, nx, dx, res);
  }
  while (g->nscopes > nscopes) tfs_graph_pop_scope(g);
  if (tfs_status_ok(st))
    memcpy(dy, res, (size_t)nx * sizeof *dy);
  else
    tfs_graph__truncate(g, b.n0);
  if (b.grads) {
    for (size_t i = 0; i < b.n0; i++) {
      if (!b.seen[i]) continue;
      for (int o = 0; o < g->ops[i]->noutputs; o++)
        free(b.grads[b.out_base[i] + o].v);
    }
  }
  free(b.grads);
  free(b.ready);
  free(res);
  free(b.reach);
  free(b.seen);
  free(b.pending);
  free(b.out_base);
}
