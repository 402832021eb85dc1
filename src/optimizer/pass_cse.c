/*
 * optimizer/pass_cse.c - common_subgraph_elimination: nodes with the same
 * op, attrs, device, data inputs (sorted for two-input commutative ops)
 * and control inputs compute the same value; one representative stays and
 * the others' consumers move to it.  Visiting in topological order merges
 * whole duplicated subgraphs in one sweep.  Never merges side-effecting,
 * fed or input-less nodes (Consts excepted); a preserved duplicate becomes
 * the representative, two preserved ones both stay.
 */
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/status.h"
#include "optimizer/opt_util.h"

static uint64_t mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  return h;
}

static uint64_t hash_value(const tfs_attr_value *v) {
  uint64_t h = (uint64_t)v->type * 31 + v->is_list;
  if (v->is_list) {
    h = mix(h, (uint64_t)v->u.list.n);
    size_t es = 0;
    switch (v->type) {
      case TFS_ATTR_INT:
        es = sizeof(int64_t);
        break;
      case TFS_ATTR_FLOAT:
        es = sizeof(float);
        break;
      case TFS_ATTR_BOOL:
        es = 1;
        break;
      case TFS_ATTR_TYPE:
        es = sizeof(tfs_dtype);
        break;
      default:
        break;
    }
    if (es && v->u.list.n)
      h = mix(h, tfs_hash_bytes(v->u.list.v, es * (size_t)v->u.list.n, 7));
    if (v->type == TFS_ATTR_STRING)
      for (int i = 0; i < v->u.list.n; i++) {
        const tfs_bytes *b = &((const tfs_bytes *)v->u.list.v)[i];
        h = mix(h, tfs_hash_bytes(b->ptr, b->len, 3));
      }
    return h;
  }
  switch (v->type) {
    case TFS_ATTR_STRING:
      return mix(h, tfs_hash_bytes(v->u.s.ptr, v->u.s.len, 1));
    case TFS_ATTR_INT:
      return mix(h, (uint64_t)v->u.i);
    case TFS_ATTR_FLOAT:
      return mix(h, tfs_hash_bytes(&v->u.f, sizeof(float), 2));
    case TFS_ATTR_BOOL:
      return mix(h, v->u.b);
    case TFS_ATTR_TYPE:
      return mix(h, (uint64_t)v->u.type);
    case TFS_ATTR_SHAPE:
      if (!v->u.shape) return h;
      h = mix(h, (uint64_t)(int64_t)v->u.shape->rank);
      for (int i = 0; i < v->u.shape->rank; i++)
        h = mix(h, (uint64_t)v->u.shape->dims[i]);
      return h;
    case TFS_ATTR_TENSOR: {
      const tfs_tensor *t = v->u.tensor;
      if (!t) return h;
      h = mix(h, (uint64_t)t->dtype);
      h = mix(h, (uint64_t)t->nelems);
      if (t->buf && t->buf->elem_kind == 0)
        h = mix(h,
                tfs_hash_bytes(t->data, t->nbytes < 512 ? t->nbytes : 512, 5));
      return h;
    }
    case TFS_ATTR_FUNC:
      return v->u.func ? mix(h, tfs_hash_bytes(v->u.func->name,
                                               strlen(v->u.func->name), 9))
                       : h;
    default:
      return h;
  }
}

static int commutative2(const tfs_onode *n) {
  return (n->def->flags & TFS_OP_COMMUTATIVE) && n->nin == 2;
}

/* Data input k of n in canonical order. */
static tfs_oref canon_input(const tfs_onode *n, int k) {
  if (commutative2(n)) {
    tfs_oref a = n->in[0], b = n->in[1];
    int swap = a.node > b.node || (a.node == b.node && a.port > b.port);
    if (swap) return k == 0 ? b : a;
  }
  return n->in[k];
}

static int ctrl_contains(const tfs_onode *n, int c) {
  for (int k = 0; k < n->nctrl; k++)
    if (n->ctrl[k] == c) return 1;
  return 0;
}

static uint64_t node_hash(const tfs_ograph *g, int i) {
  const tfs_onode *n = &g->n[i];
  /* op defs are unique per op: the pointer stands for the name */
  uint64_t h = mix(11, (uint64_t)(uintptr_t)n->def);
  if (n->device[0])
    h = mix(h, tfs_hash_bytes(n->device, strlen(n->device), 13));
  for (int k = 0; k < n->nin; k++) {
    tfs_oref r = canon_input(n, k);
    h = mix(h, ((uint64_t)(uint32_t)r.node << 16) ^ (uint64_t)r.port);
  }
  uint64_t cs = 0; /* order-independent over control inputs */
  for (int k = 0; k < n->nctrl; k++)
    cs += (uint64_t)n->ctrl[k] * 0x9e3779b97f4a7c15ull;
  h = mix(h, cs);
  /* Nodes with inputs are told apart by them: attrs (loaded from all over
   * memory) are only compared on a hash match.  Input-less nodes (Consts)
   * hash their attrs, sorted by name (the same op has the same names). */
  if (n->nin == 0)
    for (int k = 0; k < n->attrs->n; k++)
      h = mix(h, hash_value(&n->attrs->e[k].value));
  return h;
}

static int same_node(const tfs_ograph *g, int a, int b) {
  const tfs_onode *x = &g->n[a], *y = &g->n[b];
  if (x->def != y->def || x->nin != y->nin || x->nctrl != y->nctrl ||
      strcmp(x->device, y->device) != 0)
    return 0;
  for (int k = 0; k < x->nin; k++) {
    tfs_oref p = canon_input(x, k), q = canon_input(y, k);
    if (p.node != q.node || p.port != q.port) return 0;
  }
  for (int k = 0; k < x->nctrl; k++)
    if (!ctrl_contains(y, x->ctrl[k])) return 0;
  return x->attrs == y->attrs || tfs_attrs_equal(x->attrs, y->attrs);
}

static int candidate(const tfs_ograph *g, int i) {
  const tfs_onode *n = &g->n[i];
  if (!tfs_og__replaceable(g, i) || n->nout == 0) return 0;
  if (n->nin == 0 && strcmp(n->def->name, "Const") != 0) return 0;
  return 1;
}

/* Moves every consumer of `dup` to `keep` and removes dup. */
static int merge(tfs_opt_ctx *c, int keep, int dup) {
  tfs_ograph *g = c->g;
  for (int p = 0; p < g->n[dup].nout; p++) {
    tfs_oref from = {dup, p}, to = {keep, p};
    if (tfs_og__forward(g, from, to)) return -1;
  }
  if (tfs_og__forward_ctrl(g, dup, &keep, 1)) return -1;
  /* keep computes dup's value from now on: it stands for dup too */
  if (tfs_og__add_origins(g, keep, dup)) return -1;
  tfs_og__kill(g, dup);
  return 0;
}

int tfs_pass__cse(tfs_opt_ctx *c) {
  tfs_ograph *g = c->g;
  int n0 = g->nn;
  int *order = tfs_malloc(sizeof(int) * ((size_t)n0 + 1));
  uint64_t *hashes = tfs_malloc(sizeof(uint64_t) * ((size_t)n0 + 1));
  int *next = tfs_malloc(sizeof(int) * ((size_t)n0 + 1));
  tfs_map buckets = TFS_MAP_INIT; /* hash -> first index + 1 */
  int rc = -1, merged = 0;
  if (!order || !hashes || !next) {
    TFS_OOM(c->st);
    goto done;
  }
  int cnt = tfs_og__topo_order(g, order, c->st);
  if (cnt < 0) goto done;
  for (int j = 0; j < cnt; j++) {
    int v = order[j];
    if (!tfs_og__live(g, v) || !candidate(g, v)) continue;
    hashes[v] = node_hash(g, v);
    int head = (int)(intptr_t)tfs_map_get(&buckets, &hashes[v], 8) - 1;
    int match = -1;
    for (int r = head; r >= 0; r = next[r])
      if (tfs_og__live(g, r) && same_node(g, r, v)) {
        match = r;
        break;
      }
    if (match < 0) {
      next[v] = head;
      if (tfs_map_put(&buckets, &hashes[v], 8, (void *)(intptr_t)(v + 1))) {
        TFS_OOM(c->st);
        goto done;
      }
      continue;
    }
    int pv = g->n[v].flags & TFS_ON_PRESERVED;
    int pm = g->n[match].flags & TFS_ON_PRESERVED;
    if (pv && pm) continue;
    if (pm || !pv) {
      if (merge(c, match, v)) goto oom;
    } else {
      /* v is preserved: it takes the representative's place */
      if (merge(c, v, match)) goto oom;
      next[v] = next[match];
      hashes[v] = hashes[match];
      /* re-point the bucket chain at v */
      int h = (int)(intptr_t)tfs_map_get(&buckets, &hashes[v], 8) - 1;
      if (h == match) {
        if (tfs_map_put(&buckets, &hashes[v], 8, (void *)(intptr_t)(v + 1)))
          goto oom;
      } else {
        for (int r = h; r >= 0; r = next[r])
          if (next[r] == match) next[r] = v;
      }
    }
    merged++;
  }
  if (merged)
    tfs_opt__note(c, "merged %d duplicate node%s", merged,
                  merged == 1 ? "" : "s");
  c->changes += merged;
  rc = g->oom ? (TFS_OOM(c->st), -1) : 0;
  goto done;
oom:
  TFS_OOM(c->st);
done:
  tfs_map_free(&buckets);
  tfs_free(order);
  tfs_free(hashes);
  tfs_free(next);
  return rc;
}
