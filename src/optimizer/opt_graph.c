/*
 * optimizer/opt_graph.c - the optimizer's IR: the arena, edges with
 * maintained fan-outs, node removal, unique names and copy-on-first-change
 * snapshots.  Import, export and node creation are in opt_graph_io.c.
 */
#include <assert.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/status.h"
#include "optimizer/opt_graph.h"

/* ---- arena ------------------------------------------------------------------
 */

typedef struct arena_chunk {
  struct arena_chunk *next;
  size_t used, cap;
  max_align_t data[];
} arena_chunk;

struct tfs_oarena {
  arena_chunk *head;
  tfs_attrs **attrs; /* to clear when the arena goes */
  size_t nattrs, attrs_cap;
};

tfs_oarena *tfs_oarena__new(void) {
  return tfs_calloc(1, sizeof(tfs_oarena));
}

void tfs_oarena__free(tfs_oarena *a) {
  if (!a) return;
  for (size_t i = 0; i < a->nattrs; i++) tfs_attrs_clear(a->attrs[i]);
  tfs_free(a->attrs);
  for (arena_chunk *c = a->head; c;) {
    arena_chunk *next = c->next;
    tfs_free(c);
    c = next;
  }
  tfs_free(a);
}

void *tfs_oarena__alloc(tfs_oarena *a, size_t n) {
  n = (n + 15) & ~(size_t)15;
  if (!a->head || a->head->used + n > a->head->cap) {
    size_t cap = n > 60000 ? n : 60000;
    arena_chunk *c = tfs_malloc(sizeof(arena_chunk) + cap);
    if (!c) return NULL;
    c->cap = cap;
    c->used = 0;
    c->next = a->head;
    a->head = c;
  }
  void *p = (char *)a->head->data + a->head->used;
  a->head->used += n;
  memset(p, 0, n);
  return p;
}

char *tfs_oarena__strdup(tfs_oarena *a, const char *s) {
  size_t n = strlen(s) + 1;
  char *p = tfs_oarena__alloc(a, n);
  if (p) memcpy(p, s, n);
  return p;
}

char *tfs_oarena__printf(tfs_oarena *a, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *tmp = tfs_vasprintf(fmt, ap);
  va_end(ap);
  char *p = tmp ? tfs_oarena__strdup(a, tmp) : NULL;
  tfs_free(tmp);
  return p;
}

const tfs_attrs *tfs_oarena__keep_attrs(tfs_oarena *a, tfs_attrs *attrs) {
  tfs_attrs *kept = tfs_oarena__alloc(a, sizeof(tfs_attrs));
  if (!kept || tfs_grow((void **)&a->attrs, &a->attrs_cap, a->nattrs + 1,
                        sizeof(tfs_attrs *))) {
    tfs_attrs_clear(attrs);
    return NULL;
  }
  *kept = *attrs;
  tfs_attrs_init(attrs);
  a->attrs[a->nattrs++] = kept;
  return kept;
}

/* ---- graph lifetime -------------------------------------------------------
 */

void tfs_og__init(tfs_ograph *g, tfs_oarena *arena) {
  memset(g, 0, sizeof(*g));
  g->arena = arena;
}

static void node_free_arrays(tfs_onode *n) {
  if (n->incap > 0) tfs_free(n->in);
  if (n->ctrlcap > 0) tfs_free(n->ctrl);
  if (n->fancap > 0) tfs_free(n->fan);
  if (n->cfancap > 0) tfs_free(n->cfan);
  n->in = NULL;
  n->ctrl = NULL;
  n->fan = NULL;
  n->cfan = NULL;
  n->incap = n->ctrlcap = n->fancap = n->cfancap = 0;
}

static void free_storage(tfs_ograph *g) {
  for (int i = 0; i < g->nn; i++) node_free_arrays(&g->n[i]);
  tfs_free(g->n);
  for (int i = 0; i < g->nblocks; i++) tfs_free(g->blocks[i]);
  tfs_free(g->blocks);
  tfs_map_free(&g->names);
  g->n = NULL;
  g->blocks = NULL;
  g->nn = g->cap = g->nblocks = g->nlive = 0;
}

void tfs_og__clear(tfs_ograph *g) {
  if (g->snap) {
    free_storage(g->snap);
    tfs_free(g->snap);
    g->snap = NULL;
  }
  free_storage(g);
  tfs_free(g->spare_n);
  tfs_free(g->spare_block);
  g->spare_n = g->spare_block = NULL;
  g->snap_armed = 0;
}

int tfs_og__find(const tfs_ograph *g, const char *name) {
  void *v = tfs_map_get_str(&g->names, name);
  return v ? (int)((intptr_t)v - 1) : -1;
}


/* ---- snapshots -------------------------------------------------------------
 */

/* Copies g into *dst: node structs by value, the four edge arrays of all
 * nodes into one block; the name map is left empty (see rollback). */
static int clone_into(tfs_ograph *dst, tfs_ograph *g) {
  memset(dst, 0, sizeof(*dst));
  dst->arena = g->arena;
  size_t total = 0;
  for (int i = 0; i < g->nn; i++) {
    const tfs_onode *n = &g->n[i];
    total += sizeof(tfs_oref) * (size_t)(n->nin + n->nfan) +
             sizeof(int) * (size_t)(n->nctrl + n->ncfan);
  }
  /* the buffers of the last committed snapshot are reused (no page
   * faults on fresh memory for every pass) */
  size_t nbytes = sizeof(tfs_onode) * (size_t)(g->nn + 1);
  if (g->spare_n && g->spare_n_cap < nbytes) {
    tfs_free(g->spare_n);
    g->spare_n = NULL;
  }
  if (g->spare_block && g->spare_block_cap < total + 16) {
    tfs_free(g->spare_block);
    g->spare_block = NULL;
  }
  dst->n = g->spare_n ? g->spare_n : tfs_malloc(nbytes);
  char *block = g->spare_block ? g->spare_block : tfs_malloc(total + 16);
  dst->blocks = tfs_malloc(sizeof(void *));
  if (!dst->n || !block || !dst->blocks) {
    if (dst->n != g->spare_n) tfs_free(dst->n);
    if (block != g->spare_block) tfs_free(block);
    tfs_free(dst->blocks);
    memset(dst, 0, sizeof(*dst));
    return -1;
  }
  dst->spare_n_cap = g->spare_n == dst->n ? g->spare_n_cap : nbytes;
  dst->spare_block_cap =
      g->spare_block == block ? g->spare_block_cap : total + 16;
  g->spare_n = NULL;
  g->spare_block = NULL;
  dst->nn = dst->cap = g->nn;
  dst->nlive = g->nlive;
  dst->nedges = g->nedges;
  char *p = block;
  for (int i = 0; i < g->nn; i++) {
    const tfs_onode *s = &g->n[i];
    tfs_onode *d = &dst->n[i];
    *d = *s;
#define COPY_ARR(F, NF, CAPF, T)                         \
  d->F = (T *)(void *)p;                                 \
  if (s->NF) memcpy(p, s->F, sizeof(T) * (size_t)s->NF); \
  p += sizeof(T) * (size_t)s->NF;                        \
  d->CAPF = -s->NF;
    COPY_ARR(in, nin, incap, tfs_oref)
    COPY_ARR(fan, nfan, fancap, tfs_oref)
    COPY_ARR(ctrl, nctrl, ctrlcap, int)
    COPY_ARR(cfan, ncfan, cfancap, int)
#undef COPY_ARR
  }
  /* the name map is rebuilt only if the snapshot is ever restored */
  dst->blocks[0] = block;
  dst->nblocks = 1;
  return 0;
}

void tfs_og__arm_snapshot(tfs_ograph *g) {
  assert(!g->snap);
  g->snap_armed = 1;
  g->oom = 0;
}

/* Called by every change: copies the graph at the first one.  Returns -1
 * when the copy could not be made (the change must not happen). */
static int touch(tfs_ograph *g) {
  if (!g->snap_armed || g->snap) return 0;
  tfs_ograph *s = tfs_malloc(sizeof(*s));
  if (!s || clone_into(s, g)) {
    tfs_free(s);
    g->oom = 1;
    return -1;
  }
  g->snap = s;
  return 0;
}

#ifndef NDEBUG
/* Debug builds: the edge count kept along equals a recount. */
static void check_edges(const tfs_ograph *g) {
  int64_t e = 0;
  for (int i = 0; i < g->nn; i++)
    if (!(g->n[i].flags & TFS_ON_DEAD)) e += g->n[i].nin + g->n[i].nctrl;
  assert(e == g->nedges);
  (void)e;
}
#endif

void tfs_og__commit(tfs_ograph *g) {
#ifndef NDEBUG
  if (!g->oom) check_edges(g);
#endif
  tfs_ograph *s = g->snap;
  if (s) {
    /* keep the snapshot's two buffers for the next one: its node arrays
     * all point into its single block (a snapshot is never changed) */
    tfs_free(g->spare_n);
    tfs_free(g->spare_block);
    g->spare_n = s->n;
    g->spare_n_cap = s->spare_n_cap;
    g->spare_block = s->nblocks == 1 ? s->blocks[0] : NULL;
    g->spare_block_cap = s->spare_block_cap;
    for (int i = 1; i < s->nblocks; i++) tfs_free(s->blocks[i]);
    if (s->nblocks != 1 && s->nblocks > 0) tfs_free(s->blocks[0]);
    tfs_free(s->blocks);
    tfs_map_free(&s->names);
    tfs_free(s);
    g->snap = NULL;
  }
  g->snap_armed = 0;
}

void tfs_og__rollback(tfs_ograph *g) {
  g->snap_armed = 0;
  if (!g->snap) return;
  tfs_ograph *s = g->snap;
  g->snap = NULL;
  /* the snapshot's arrays all live in its own block: g's storage goes */
  void *spare_n = g->spare_n, *spare_block = g->spare_block;
  size_t spare_n_cap = g->spare_n_cap, spare_block_cap = g->spare_block_cap;
  free_storage(g);
  *g = *s;
  g->spare_n = spare_n;
  g->spare_block = spare_block;
  g->spare_n_cap = spare_n_cap;
  g->spare_block_cap = spare_block_cap;
  g->snap = NULL;
  g->snap_armed = 0;
  g->oom = 0;
  tfs_free(s);
  for (int i = 0; i < g->nn; i++) {
    if (g->n[i].flags & TFS_ON_DEAD) continue;
    if (tfs_map_put_str(&g->names, g->n[i].name, (void *)(intptr_t)(i + 1)))
      g->oom = 1; /* names unusable: the caller stops optimizing */
  }
}

/* ---- edge arrays ----------------------------------------------------------
 */

/* Makes room for `need` elements in an array whose capacity is |*cap|
 * (negative: the memory is in a shared block and is not freed here). */
static int grow_arr(void **arr, int *cap, int n, int need, size_t elem) {
  int have = *cap < 0 ? -*cap : *cap;
  if (need <= have) return 0;
  int ncap = have < 2 ? 4 : have * 2;
  while (ncap < need) ncap *= 2;
  void *p = tfs_malloc(elem * (size_t)ncap);
  if (!p) return -1;
  if (n) memcpy(p, *arr, elem * (size_t)n);
  if (*cap > 0) tfs_free(*arr);
  *arr = p;
  *cap = ncap;
  return 0;
}

static int fan_add(tfs_ograph *g, int p, int c, int k) {
  tfs_onode *n = &g->n[p];
  if (grow_arr((void **)&n->fan, &n->fancap, n->nfan, n->nfan + 1,
               sizeof(tfs_oref)))
    return -1;
  n->fan[n->nfan].node = c;
  n->fan[n->nfan].port = k;
  n->nfan++;
  return 0;
}

static void fan_remove(tfs_ograph *g, int p, int c, int k) {
  tfs_onode *n = &g->n[p];
  for (int j = n->nfan - 1; j >= 0; j--) {
    if (n->fan[j].node == c && n->fan[j].port == k) {
      n->fan[j] = n->fan[--n->nfan];
      return;
    }
  }
}

static int cfan_add(tfs_ograph *g, int p, int c) {
  tfs_onode *n = &g->n[p];
  if (grow_arr((void **)&n->cfan, &n->cfancap, n->ncfan, n->ncfan + 1,
               sizeof(int)))
    return -1;
  n->cfan[n->ncfan++] = c;
  return 0;
}

static void cfan_remove(tfs_ograph *g, int p, int c) {
  tfs_onode *n = &g->n[p];
  for (int j = n->ncfan - 1; j >= 0; j--) {
    if (n->cfan[j] == c) {
      n->cfan[j] = n->cfan[--n->ncfan];
      return;
    }
  }
}

/* Links a freshly appended node's inputs into its producers' fan-outs. */
int tfs_og__link_new(tfs_ograph *g, int i);
int tfs_og__link_new(tfs_ograph *g, int i) {
  tfs_onode *n = &g->n[i];
  g->nedges += n->nin + n->nctrl;
  for (int k = 0; k < n->nin; k++)
    if (fan_add(g, n->in[k].node, i, k)) return -1;
  for (int k = 0; k < n->nctrl; k++)
    if (cfan_add(g, n->ctrl[k], i)) return -1;
  return 0;
}

/* Exposed to opt_graph_io.c. */
int tfs_og__touch(tfs_ograph *g);
int tfs_og__touch(tfs_ograph *g) {
  return touch(g);
}

int tfs_og__set_input(tfs_ograph *g, int i, int k, tfs_oref src) {
  tfs_onode *n = &g->n[i];
  if (n->in[k].node == src.node && n->in[k].port == src.port) return 0;
  if (touch(g)) return -1;
  if (fan_add(g, src.node, i, k)) {
    g->oom = 1;
    return -1;
  }
  fan_remove(g, n->in[k].node, i, k);
  n->in[k] = src;
  return 0;
}

int tfs_og__add_ctrl(tfs_ograph *g, int i, int c) {
  tfs_onode *n = &g->n[i];
  /* a fed node's value exists before the run starts: an edge on it would
   * only make the plan run the node itself */
  if (i == c || (g->n[c].flags & TFS_ON_FED)) return 0;
  for (int k = 0; k < n->nctrl; k++)
    if (n->ctrl[k] == c) return 0;
  if (touch(g)) return -1;
  if (grow_arr((void **)&n->ctrl, &n->ctrlcap, n->nctrl, n->nctrl + 1,
               sizeof(int)) ||
      cfan_add(g, c, i)) {
    g->oom = 1;
    return -1;
  }
  n->ctrl[n->nctrl++] = c;
  g->nedges++;
  return 0;
}

void tfs_og__remove_ctrl(tfs_ograph *g, int i, int c) {
  tfs_onode *n = &g->n[i];
  for (int k = 0; k < n->nctrl; k++) {
    if (n->ctrl[k] != c) continue;
    if (touch(g)) return;
    memmove(&n->ctrl[k], &n->ctrl[k + 1],
            sizeof(int) * (size_t)(n->nctrl - k - 1));
    n->nctrl--;
    g->nedges--;
    cfan_remove(g, c, i);
    return;
  }
}

void tfs_og__clear_ctrl(tfs_ograph *g, int i) {
  tfs_onode *n = &g->n[i];
  if (!n->nctrl || touch(g)) return;
  for (int k = 0; k < n->nctrl; k++) cfan_remove(g, n->ctrl[k], i);
  g->nedges -= n->nctrl;
  n->nctrl = 0;
}

int tfs_og__forward(tfs_ograph *g, tfs_oref from, tfs_oref to) {
  tfs_onode *f = &g->n[from.node];
  if (from.node == to.node && from.port == to.port) return 0;
  /* collect first: set_input edits f->fan */
  int cnt = 0;
  for (int j = 0; j < f->nfan; j++) {
    tfs_oref c = f->fan[j];
    if (g->n[c.node].in[c.port].port == from.port && c.node != to.node) cnt++;
  }
  if (!cnt) return 0;
  tfs_oref *list = tfs_malloc(sizeof(tfs_oref) * (size_t)cnt);
  if (!list) {
    g->oom = 1;
    return -1;
  }
  cnt = 0;
  for (int j = 0; j < f->nfan; j++) {
    tfs_oref c = f->fan[j];
    if (g->n[c.node].in[c.port].port == from.port && c.node != to.node)
      list[cnt++] = c;
  }
  int rc = 0;
  for (int j = 0; j < cnt && !rc; j++)
    rc = tfs_og__set_input(g, list[j].node, list[j].port, to);
  tfs_free(list);
  return rc;
}

int tfs_og__forward_ctrl(tfs_ograph *g, int from, const int *to, int n) {
  tfs_onode *f = &g->n[from];
  if (!f->ncfan) return 0;
  int cnt = f->ncfan;
  int *list = tfs_malloc(sizeof(int) * (size_t)cnt);
  if (!list) {
    g->oom = 1;
    return -1;
  }
  memcpy(list, f->cfan, sizeof(int) * (size_t)cnt);
  int rc = 0;
  for (int j = 0; j < cnt && !rc; j++) {
    int c = list[j];
    tfs_og__remove_ctrl(g, c, from);
    for (int k = 0; k < n && !rc; k++)
      if (to[k] != c) rc = tfs_og__add_ctrl(g, c, to[k]);
  }
  tfs_free(list);
  return rc;
}

void tfs_og__kill(tfs_ograph *g, int i) {
  tfs_onode *n = &g->n[i];
  if (n->flags & TFS_ON_DEAD) return;
  if (touch(g)) return;
  assert(n->nfan == 0 && n->ncfan == 0);
  for (int k = 0; k < n->nin; k++) fan_remove(g, n->in[k].node, i, k);
  for (int k = 0; k < n->nctrl; k++) cfan_remove(g, n->ctrl[k], i);
  /* a leftover consumer (a pass bug) loses its edge rather than dangle */
  for (int j = 0; j < n->ncfan; j++) {
    tfs_onode *c = &g->n[n->cfan[j]];
    for (int k = 0; k < c->nctrl; k++)
      if (c->ctrl[k] == i) {
        c->ctrl[k] = c->ctrl[--c->nctrl];
        g->nedges--;
      }
  }
  g->nedges -= n->nin + n->nctrl;
  n->nin = n->nctrl = n->nfan = n->ncfan = 0;
  n->flags |= TFS_ON_DEAD;
  /* a replacement may already own the name */
  if (tfs_og__find(g, n->name) == i)
    tfs_map_remove(&g->names, n->name, strlen(n->name));
  g->nlive--;
}

int tfs_og__kill_unused(tfs_ograph *g, int i) {
  int killed = 0;
  int small[64];
  int *stack = small;
  size_t cap = sizeof small / sizeof small[0], sp = 0;
  stack[sp++] = i;
  while (sp) {
    int v = stack[--sp];
    tfs_onode *n = &g->n[v];
    if ((n->flags & TFS_ON_DEAD) || n->nfan || n->ncfan) continue;
    if (!tfs_og__removable(g, v)) continue;
    /* producers may become unused: revisit them after the kill */
    size_t need = sp + (size_t)n->nin + (size_t)n->nctrl;
    if (need > cap) {
      size_t ncap = cap * 2 > need ? cap * 2 : need;
      int *p = tfs_malloc(sizeof(int) * ncap);
      if (!p) {
        g->oom = 1;
        break;
      }
      memcpy(p, stack, sizeof(int) * sp);
      if (stack != small) tfs_free(stack);
      stack = p;
      cap = ncap;
    }
    for (int k = 0; k < n->nin; k++) stack[sp++] = n->in[k].node;
    for (int k = 0; k < n->nctrl; k++) stack[sp++] = n->ctrl[k];
    size_t base = sp - (size_t)n->nin - (size_t)n->nctrl;
    tfs_og__kill(g, v);
    if (!(n->flags & TFS_ON_DEAD)) {
      sp = base;
      break;
    }
    killed++;
  }
  if (stack != small) tfs_free(stack);
  return killed;
}

/* The originals of node i: its list, else its name when imported. */
static int origins(const tfs_ograph *g, int i, const char *const **out) {
  const tfs_onode *n = &g->n[i];
  if (n->norig > 0) {
    *out = n->orig;
    return n->norig;
  }
  *out = &n->name;
  return n->src ? 1 : 0;
}

int tfs_og__add_origins(tfs_ograph *g, int dst, int src) {
  const char *const *from;
  int nfrom = origins(g, src, &from);
  if (nfrom == 0 || dst == src) return 0;
  const char *const *have;
  int nhave = origins(g, dst, &have);
  if (nfrom > TFS_OG_MAX_ORIG) nfrom = TFS_OG_MAX_ORIG;
  const char *tmp[2 * TFS_OG_MAX_ORIG];
  int n = 0;
  for (int j = 0; j < nhave && j < TFS_OG_MAX_ORIG; j++) tmp[n++] = have[j];
  for (int k = 0; k < nfrom; k++) {
    int dup = 0;
    for (int j = 0; j < n && !dup; j++) dup = strcmp(tmp[j], from[k]) == 0;
    if (!dup) tmp[n++] = from[k];
  }
  if (n == nhave) return 0;
  if (n > TFS_OG_MAX_ORIG) {
    /* full: the node's own name stays (its record gets the time) */
    for (int j = TFS_OG_MAX_ORIG; j < n; j++)
      if (strcmp(tmp[j], g->n[dst].name) == 0)
        tmp[TFS_OG_MAX_ORIG - 1] = tmp[j];
    n = TFS_OG_MAX_ORIG;
  }
  if (tfs_og__touch(g)) goto oom;
  const char **v = tfs_oarena__alloc(g->arena, sizeof(char *) * (size_t)n);
  if (!v) goto oom;
  memcpy(v, tmp, sizeof(char *) * (size_t)n);
  g->n[dst].orig = v;
  g->n[dst].norig = n;
  return 0;
oom:
  g->oom = 1;
  return -1;
}

void tfs_og__export_origins(const tfs_ograph *g, int i, tfs_node_spec *spec) {
  const tfs_onode *n = &g->n[i];
  spec->norig = 0;
  spec->orig_names = NULL;
  if (n->norig == 0 || (n->norig == 1 && strcmp(n->orig[0], n->name) == 0))
    return;
  spec->norig = n->norig;
  spec->orig_names = n->orig;
}

const char *tfs_og__unique_name(tfs_ograph *g, const char *base) {
  if (tfs_og__find(g, base) < 0) return tfs_oarena__strdup(g->arena, base);
  for (int k = 1;; k++) {
    char *cand = tfs_asprintf("%s_%d", base, k);
    if (!cand) return NULL;
    if (tfs_og__find(g, cand) < 0) {
      char *r = tfs_oarena__strdup(g->arena, cand);
      tfs_free(cand);
      return r;
    }
    tfs_free(cand);
  }
}

/* ---- queries
 * ------------------------------------------------------------------ */

int tfs_og__producer(const tfs_ograph *g, int i, int k) {
  int p = g->n[i].in[k].node;
  return (g->n[p].flags & TFS_ON_FED) ? -1 : p;
}

const tfs_tensor *tfs_og__const_value(const tfs_ograph *g, tfs_oref s) {
  const tfs_onode *n = &g->n[s.node];
  if ((n->flags & (TFS_ON_FED | TFS_ON_DEAD)) ||
      strcmp(n->def->name, "Const") != 0)
    return NULL;
  return tfs_attrs_get_tensor(n->attrs, "value");
}

int tfs_og__port_uses(const tfs_ograph *g, int i, int port) {
  const tfs_onode *n = &g->n[i];
  int c = 0;
  for (int j = 0; j < n->nfan; j++)
    if (g->n[n->fan[j].node].in[n->fan[j].port].port == port) c++;
  return c;
}

tfs_dtype tfs_og__type_attr(const tfs_ograph *g, int i, const char *name) {
  tfs_dtype t;
  if (tfs_attrs_get_type(g->n[i].attrs, name ? name : "T", &t))
    return TFS_INVALID;
  return t;
}

unsigned tfs_og__classify(const tfs_op_def *def, const tfs_dtype *in, int nin,
                          const tfs_dtype *out, int nout) {
  if (def->flags & (TFS_OP_STATEFUL | TFS_OP_NO_FOLD | TFS_OP_CONTROL_FLOW))
    return TFS_ON_SIDE_EFFECT;
  if (def->flags & TFS_OP_PLACEHOLDER) return TFS_ON_SIDE_EFFECT;
  for (int k = 0; k < nin; k++)
    if (tfs_dtype_is_ref(in[k]) || in[k] == TFS_RESOURCE ||
        in[k] == TFS_VARIANT)
      return TFS_ON_SIDE_EFFECT;
  for (int k = 0; k < nout; k++)
    if (tfs_dtype_is_ref(out[k]) || out[k] == TFS_RESOURCE ||
        out[k] == TFS_VARIANT)
      return TFS_ON_SIDE_EFFECT;
  return 0;
}
