/*
 * session/memplan.c - memory planning for sequential runs: per feed-shape
 * signature, trace the first run's allocations, place them in one arena
 * (greedy by size, by liveness), hand out arena slices afterwards and
 * check the planned lifetimes as the run goes.
 */

/*
 * Per feed-shape signature of a plan: if shape inference with the fed
 * shapes gives every output that is read a fully defined shape, the first
 * run traces its allocations (size, producing node, the plan position
 * where the buffer dies: views and in-place reuse included, since the
 * buffer's own reference count decides) and the plan places them in one
 * arena (64-byte aligned; buffers whose lifetimes overlap never share
 * bytes).  Later runs hand out arena slices instead of calling malloc and
 * check after each node that what the plan expects dead is dead; if not
 * (a kernel kept a buffer longer), the rest of that run allocates from the
 * heap.  Buffers that outlive the run (fetched outputs) are heap
 * allocated, so nothing is copied out.  Unknown shapes: heap allocation.
 * Each run state owns its arena, so concurrent runs never share one.
 */
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/log.h"
#include "core/status.h"
#include "ops/shape_ctx.h"
#include "session/exec.h"

#define ALIGN64(x) (((x) + 63) & ~(size_t)63)
#define KEY_MAX 128 /* int64s of feed signature kept on the stack */

/* ---- arenas ---------------------------------------------------------------- */

typedef struct arena_blk {
  tfs_buf buf;      /* handed to the tensor; released by arena_release */
  tfs_tensor t;     /* the tensor handed out (no malloc per output) */
  tfs_arena *arena;
  int idx;
} arena_blk;

struct tfs_arena {
  atomic_int refs;  /* 1 (its run state) + live blocks */
  char *base;
  size_t cap;
  int nblk;         /* capacity of live/blk */
  atomic_uchar *live;
  arena_blk *blk;
};

static void arena_destroy(tfs_arena *a) {
  tfs_aligned_free(a->base);
  tfs_free(a->live);
  tfs_free(a->blk);
  tfs_free(a);
}

void tfs_arena__free(tfs_arena *a) {
  if (a && atomic_fetch_sub_explicit(&a->refs, 1, memory_order_acq_rel) == 1)
    arena_destroy(a);
}

/* Buffer release callback of an arena block (any thread). */
static void arena_release(void *data, size_t len, void *arg) {
  (void)data;
  (void)len;
  arena_blk *b = arg;
  tfs_arena *a = b->arena;
  atomic_store_explicit(&a->live[b->idx], 0, memory_order_release);
  if (atomic_fetch_sub_explicit(&a->refs, 1, memory_order_acq_rel) == 1)
    arena_destroy(a);
}

/* An arena of the run state big enough for mp (no block live in it). */
static tfs_arena *arena_for(tfs_run_state *rs, const tfs_memplan *mp) {
  tfs_arena *a = rs->arena;
  if (!a) {
    a = tfs_calloc(1, sizeof(*a));
    if (!a) return NULL;
    atomic_init(&a->refs, 1);
    rs->arena = a;
  }
  if (a->cap < mp->arena_bytes) {
    tfs_aligned_free(a->base);
    a->base = tfs_aligned_alloc(mp->arena_bytes);
    a->cap = a->base ? mp->arena_bytes : 0;
    if (!a->base) return NULL;
  }
  if (a->nblk < mp->nblocks) {
    atomic_uchar *live = tfs_calloc((size_t)mp->nblocks, 1);
    arena_blk *blk = tfs_calloc((size_t)mp->nblocks, sizeof(arena_blk));
    if (!live || !blk) {
      tfs_free(live);
      tfs_free(blk);
      return NULL;
    }
    tfs_free(a->live);
    tfs_free(a->blk);
    a->live = live;
    a->blk = blk;
    a->nblk = mp->nblocks;
  }
  return a;
}

/* ---- traces ------------------------------------------------------------------ */

typedef struct rec_buf {
  tfs_buf buf;
  atomic_int state; /* 0 live, 1 released, 2 the trace let go of it */
  int32_t ev;       /* its event in the trace */
} rec_buf;

typedef struct trace_ev {
  int32_t node, out, first, last;
  size_t bytes, esize;
  uint8_t fetched;  /* handed to the caller: heap from now on */
  rec_buf *rb;      /* while live */
} trace_ev;

struct tfs_mem_trace {
  tfs_memplan_entry *entry;
  int n, cap;
  trace_ev *ev;
  int nlive, live_cap;
  int32_t *live;    /* indices of events whose buffer is live */
};

static void rec_release(void *data, size_t len, void *arg) {
  (void)len;
  rec_buf *rb = arg;
  tfs_aligned_free(data);
  if (atomic_exchange_explicit(&rb->state, 1, memory_order_acq_rel) == 2)
    tfs_free(rb);
}

static void trace_free(tfs_mem_trace *t) {
  if (!t) return;
  tfs_free(t->ev);
  tfs_free(t->live);
  tfs_free(t);
}

/* Bytes of a plannable output (plain numeric, fully defined), else 0. */
static size_t plannable_bytes(tfs_dtype dt, const tfs_shape *shape) {
  if (dt == TFS_STRING || dt == TFS_RESOURCE || dt == TFS_VARIANT ||
      tfs_dtype_is_ref(dt))
    return 0;
  int64_t n = tfs_shape_num_elements(shape);
  size_t es = tfs_dtype__storage_size(dt);
  if (n <= 0 || es == 0 || (uint64_t)n > (SIZE_MAX / 4) / es) return 0;
  return (size_t)n * es;
}

static tfs_tensor *over(tfs_dtype dt, const tfs_shape *shape, tfs_buf *b,
                        void *data) {
  return tfs_tensor__over_buf(dt, shape, b, data, NULL);
}

/* run->alloc while tracing: heap memory whose release we observe. */
static tfs_tensor *trace_alloc(tfs_run *run, tfs_kernel_ctx *c, int i,
                               const tfs_shape *shape) {
  tfs_exec_run *x = run->exec;
  tfs_mem_trace *t = x->trace;
  tfs_dtype dt = c->out_types[i];
  size_t bytes = plannable_bytes(dt, shape);
  if (!bytes) return NULL;
  size_t cap = (size_t)t->cap, lcap = (size_t)t->live_cap;
  if (tfs_grow((void **)&t->ev, &cap, (size_t)t->n + 1, sizeof(trace_ev)) ||
      tfs_grow((void **)&t->live, &lcap, (size_t)t->nlive + 1,
               sizeof(int32_t)))
    return NULL;
  t->cap = (int)cap;
  t->live_cap = (int)lcap;
  rec_buf *rb = tfs_malloc(sizeof(*rb));
  void *data = rb ? tfs_aligned_alloc(bytes) : NULL;
  if (!data) {
    tfs_free(rb);
    return NULL;
  }
  memset(&rb->buf, 0, sizeof rb->buf);
  atomic_init(&rb->buf.refs, 1);
  rb->buf.kind = TFS_BUF_ARENA;
  rb->buf.data = data;
  rb->buf.len = bytes;
  rb->buf.dealloc = rec_release;
  rb->buf.arg = rb;
  atomic_init(&rb->state, 0);
  tfs_tensor *ten = over(dt, shape, &rb->buf, data);
  if (!ten) { /* over() released the buffer: rec_release ran */
    tfs_free(rb);
    return NULL;
  }
  trace_ev *e = &t->ev[t->n];
  e->esize = bytes / (size_t)tfs_shape_num_elements(shape);
  e->node = c->node;
  e->out = i;
  e->first = c->node;
  e->last = -1;
  e->bytes = bytes;
  e->fetched = 0;
  e->rb = rb;
  rb->ev = t->n;
  t->live[t->nlive++] = t->n++;
  return ten;
}

/* Events whose buffer was released get `pos` as their last position. */
static void trace_scan(tfs_mem_trace *t, int pos) {
  for (int k = 0; k < t->nlive;) {
    trace_ev *e = &t->ev[t->live[k]];
    if (atomic_load_explicit(&e->rb->state, memory_order_acquire) == 1) {
      tfs_free(e->rb);
      e->rb = NULL;
      e->last = pos;
      t->live[k] = t->live[--t->nlive];
    } else {
      k++;
    }
  }
}

/* ---- planning ------------------------------------------------------------------ */

typedef struct {
  size_t bytes;
  int32_t first;
  int idx;
} size_key;

static int by_size_desc(const void *a, const void *b) {
  const size_key *x = a, *y = b;
  if (x->bytes != y->bytes) return x->bytes < y->bytes ? 1 : -1;
  return (x->first > y->first) - (x->first < y->first);
}

/* Greedy by size: each block at the lowest offset that overlaps no placed
 * block alive at the same time.  Returns the arena size or -1 (OOM). */
static int64_t place_blocks(tfs_mem_block *b, int n) {
  size_key *order = tfs_malloc(sizeof(size_key) * (size_t)(n + 1));
  int *placed = tfs_malloc(sizeof(int) * (size_t)(n + 1)); /* by offset */
  if (!order || !placed) {
    tfs_free(order);
    tfs_free(placed);
    return -1;
  }
  int np = 0;
  for (int i = 0; i < n; i++)
    order[i] = (size_key){b[i].bytes, b[i].first, i};
  qsort(order, (size_t)n, sizeof(size_key), by_size_desc);
  size_t total = 0;
  for (int oi = 0; oi < n; oi++) {
    tfs_mem_block *blk = &b[order[oi].idx];
    if (blk->heap) continue;
    size_t size = ALIGN64(blk->bytes), off = 0;
    int at = 0;
    for (int k = 0; k < np; k++) {
      const tfs_mem_block *p = &b[placed[k]];
      if (p->last < blk->first || blk->last < p->first) continue;
      if (off + size <= p->offset) break;
      size_t end = p->offset + ALIGN64(p->bytes);
      if (end > off) off = end;
    }
    blk->offset = off;
    while (at < np && b[placed[at]].offset <= off) at++;
    memmove(&placed[at + 1], &placed[at], sizeof(int) * (size_t)(np - at));
    placed[at] = order[oi].idx;
    np++;
    if (off + size > total) total = off + size;
  }
  tfs_free(order);
  tfs_free(placed);
  return (int64_t)total;
}

static void memplan_free(tfs_memplan *mp) {
  if (!mp) return;
  tfs_free(mp->blocks);
  tfs_free(mp->node_first);
  tfs_free(mp->death_first);
  tfs_free(mp->death_list);
  tfs_free(mp);
}

/* The plan of a finished trace (events are in allocation order, which is
 * node order in a sequential run). */
static tfs_memplan *build_plan(const tfs_mem_trace *t, int nnodes) {
  tfs_memplan *mp = tfs_calloc(1, sizeof(*mp));
  if (!mp) return NULL;
  int n = t->n;
  mp->nblocks = n;
  mp->blocks = tfs_calloc((size_t)n + 1, sizeof(tfs_mem_block));
  mp->node_first = tfs_calloc((size_t)nnodes + 2, sizeof(int32_t));
  mp->death_first = tfs_calloc((size_t)nnodes + 3, sizeof(int32_t));
  mp->death_list = tfs_calloc((size_t)n + 1, sizeof(int32_t));
  if (!mp->blocks || !mp->node_first || !mp->death_first || !mp->death_list)
    goto fail;
  for (int i = 0; i < n; i++) {
    const trace_ev *e = &t->ev[i];
    tfs_mem_block *b = &mp->blocks[i];
    b->node = e->node;
    b->out = e->out;
    b->bytes = e->bytes;
    b->esize = e->esize;
    b->first = e->first;
    b->last = e->last;
    b->heap = e->last < 0 || e->fetched;
    mp->node_first[e->node + 1]++;
    if (!b->heap) mp->death_first[b->last + 1]++;
  }
  for (int i = 0; i < nnodes; i++) mp->node_first[i + 1] += mp->node_first[i];
  for (int i = 0; i <= nnodes; i++)
    mp->death_first[i + 1] += mp->death_first[i];
  int32_t *fill = tfs_calloc((size_t)nnodes + 2, sizeof(int32_t));
  if (!fill) goto fail;
  for (int i = 0; i < n; i++) {
    const tfs_mem_block *b = &mp->blocks[i];
    if (b->heap) continue;
    mp->death_list[mp->death_first[b->last] + fill[b->last]++] = i;
  }
  tfs_free(fill);
  int64_t size = place_blocks(mp->blocks, n);
  if (size < 0) goto fail;
  mp->arena_bytes = (size_t)size;
  /* the peak: most bytes alive at one plan position */
  int64_t *delta = tfs_calloc((size_t)nnodes + 3, sizeof(int64_t));
  if (!delta) goto fail;
  for (int i = 0; i < n; i++) {
    const tfs_mem_block *b = &mp->blocks[i];
    if (b->heap) continue;
    delta[b->first] += (int64_t)b->bytes;
    delta[b->last + 1] -= (int64_t)b->bytes;
  }
  int64_t live = 0, peak = 0;
  for (int i = 0; i <= nnodes; i++) {
    live += delta[i];
    if (live > peak) peak = live;
  }
  tfs_free(delta);
  mp->peak_bytes = (size_t)peak;
  return mp;
fail:
  memplan_free(mp);
  return NULL;
}

/* ---- planned allocation ------------------------------------------------------------ */

static tfs_tensor *arena_alloc(tfs_run *run, tfs_kernel_ctx *c, int i,
                               const tfs_shape *shape) {
  tfs_exec_run *x = run->exec;
  const tfs_memplan *mp = x->mp;
  if (x->deviated) return NULL;
  tfs_dtype dt = c->out_types[i];
  int64_t n = tfs_shape_num_elements(shape);
  if (n <= 0) return NULL;
  int32_t end = mp->node_first[c->node + 1];
  tfs_arena *a = x->rs->arena;
  for (int32_t k = mp->node_first[c->node] + c->alloc_cursor; k < end; k++) {
    const tfs_mem_block *b = &mp->blocks[k];
    /* same output, same dtype (element size fixed per output), same
     * element count */
    if (b->out != i || (uint64_t)n * b->esize != b->bytes) continue;
    size_t bytes = b->bytes;
    c->alloc_cursor = k - mp->node_first[c->node] + 1;
    if (b->heap) return NULL;
    arena_blk *ab = &a->blk[k];
    memset(&ab->buf, 0, sizeof ab->buf);
    atomic_init(&ab->buf.refs, 1);
    ab->buf.kind = TFS_BUF_ARENA;
    ab->buf.data = a->base + b->offset;
    ab->buf.len = bytes;
    ab->buf.dealloc = arena_release;
    ab->buf.arg = ab;
    ab->arena = a;
    ab->idx = k;
    atomic_fetch_add_explicit(&a->refs, 1, memory_order_relaxed);
    atomic_store_explicit(&a->live[k], 1, memory_order_relaxed);
    tfs_tensor__init_embedded(&ab->t, dt, shape, &ab->buf, ab->buf.data);
    return &ab->t;
  }
  return NULL;
}

/* ---- signatures ------------------------------------------------------------------ */

static int is_feed_slot(const tfs_plan *p, int32_t slot) {
  for (int f = 0; f < p->nfeeds; f++)
    if (p->feed_slots[f] == slot) return 1;
  return 0;
}

/* Whether every output of the plan that something reads has a fully
 * defined shape when the feeds have these shapes (shape inference rerun
 * over the plan; outputs nobody reads, such as FusedBatchNorm's reserve
 * spaces at inference, do not matter).  On 0, *why names the first node
 * (or -1 when inference itself failed or memory ran out). */
static int shapes_known(const tfs_plan *p, tfs_tensor *const *feeds,
                        int *why) {
  *why = -1;
  tfs_shape *ss = tfs_malloc(sizeof(tfs_shape) * (size_t)(p->nslots + 1));
  int ok = ss != NULL, maxin = 1;
  for (int i = 0; i < p->nnodes; i++)
    if (p->nodes[i].ninputs > maxin) maxin = p->nodes[i].ninputs;
  tfs_shape *in = tfs_malloc(sizeof(tfs_shape) * (size_t)maxin);
  tfs_dtype *dts = tfs_malloc(sizeof(tfs_dtype) * (size_t)maxin);
  const tfs_tensor **cs = tfs_calloc((size_t)maxin, sizeof(void *));
  tfs_status *st = tfs_status_new();
  if (!in || !dts || !cs || !st) ok = 0;
  for (int i = 0; ok && i < p->nnodes; i++)
    for (int k = 0; k < p->nodes[i].noutputs; k++)
      ss[p->nodes[i].out_slot + k] = p->nodes[i].op->out_shapes[k];
  for (int i = 0; ok && i < p->nfeeds; i++)
    ss[p->feed_slots[i]] = feeds[i]->shape;
  for (int i = 0; ok && i < p->nnodes; i++) {
    const tfs_plan_node *pn = &p->nodes[i];
    tfs_operation *op = pn->op;
    for (int k = 0; k < pn->ninputs; k++) {
      in[k] = ss[pn->in_slots[k]];
      dts[k] = op->inputs[k].oper->out_types[op->inputs[k].index];
      cs[k] = is_feed_slot(p, pn->in_slots[k])
                  ? NULL
                  : tfs_graph__const_value(op->inputs[k]);
    }
    tfs_shape *out = &ss[pn->out_slot];
    if (op->def->shape_fn) {
      for (int k = 0; k < pn->noutputs; k++) out[k].rank = -1;
      tfs_shape_ctx c = {
          .op = op->def, .node_name = op->name, .attrs = &op->attrs,
          .ninputs = pn->ninputs, .in_dtypes = dts, .in_shapes = in,
          .in_consts = cs, .noutputs = pn->noutputs,
          .out_dtypes = op->out_types, .out_shapes = out, .st = st,
      };
      if (op->def->shape_fn(&c)) ok = 0;
    }
    for (int k = 0; ok && k < pn->noutputs; k++) {
      tfs_dtype dt = op->out_types[k];
      if (dt == TFS_STRING || dt == TFS_RESOURCE || dt == TFS_VARIANT ||
          tfs_dtype_is_ref(dt) || p->slot_uses[pn->out_slot + k] == 0)
        continue;
      if (!tfs_shape_is_fully_defined(&out[k])) {
        ok = 0;
        *why = i;
      }
    }
  }
  tfs_free(ss);
  tfs_free(in);
  tfs_free(dts);
  tfs_free(cs);
  tfs_status_free(st);
  return ok;
}

/* The signature key of the feeds into key[0..*len); 0 if it is too long. */
static int make_key(const tfs_plan *p, tfs_tensor *const *feeds,
                    int64_t *key, size_t *len) {
  size_t n = 0;
  for (int i = 0; i < p->nfeeds; i++) {
    const tfs_tensor *t = feeds[i];
    if (n + 2 + (size_t)t->shape.rank > KEY_MAX) return 0;
    key[n++] = t->dtype;
    key[n++] = t->shape.rank;
    for (int d = 0; d < t->shape.rank; d++) key[n++] = t->shape.dims[d];
  }
  *len = n;
  return 1;
}

/* A handful of entries with short keys: comparing beats hashing. */
static tfs_memplan_entry *find_entry(tfs_plan_exec *e, const int64_t *key,
                                     size_t len) {
  for (int i = 0; i < TFS_MEMPLAN_CACHE; i++) {
    tfs_memplan_entry *en = &e->mp[i];
    if (atomic_load_explicit(&en->state, memory_order_acquire) ==
        TFS_MP_EMPTY)
      return NULL; /* entries fill in order */
    if (en->keylen == len &&
        memcmp(en->key, key, len * sizeof(int64_t)) == 0)
      return en;
  }
  return NULL;
}

/* Finds or makes the entry; the new entry's state is RECORDING (claimed
 * by the caller) or DYNAMIC.  NULL when the cache is full. */
static tfs_memplan_entry *insert_entry(tfs_plan *p, tfs_tensor *const *feeds,
                                       const int64_t *key, size_t len,
                                       int *claimed) {
  tfs_plan_exec *e = p->exec;
  *claimed = 0;
  pthread_mutex_lock(&e->mp_mu);
  tfs_memplan_entry *en = find_entry(e, key, len);
  for (int i = 0; !en && i < TFS_MEMPLAN_CACHE; i++) {
    if (atomic_load_explicit(&e->mp[i].state, memory_order_relaxed) !=
        TFS_MP_EMPTY)
      continue;
    int64_t *k = tfs_malloc(sizeof(int64_t) * (len + 1));
    if (!k) break;
    memcpy(k, key, sizeof(int64_t) * len);
    en = &e->mp[i];
    en->key = k;
    en->keylen = len;
    en->mp = NULL;
    int why;
    int known = shapes_known(p, feeds, &why);
    *claimed = known;
    atomic_store_explicit(&en->state, known ? TFS_MP_RECORDING
                                            : TFS_MP_DYNAMIC,
                          memory_order_release);
    if (!known && tfs_log_enabled(TFS_LOG_DEBUG))
      tfs_log(TFS_LOG_DEBUG, "memplan: %d nodes: the shape of %s%s%s is "
              "unknown for these feed shapes; dynamic allocation",
              p->nnodes, why >= 0 ? "node '" : "some output",
              why >= 0 ? p->nodes[why].op->name : "", why >= 0 ? "'" : "");
  }
  pthread_mutex_unlock(&e->mp_mu);
  return en;
}

void tfs_mem__begin(tfs_exec_run *x, tfs_tensor *const *feeds) {
  tfs_plan *p = x->p;
  tfs_plan_exec *e = p->exec;
  if (e->memplan_off || p->nnodes == 0) return;
  int64_t key[KEY_MAX];
  size_t len;
  if (!make_key(p, feeds, key, &len)) return;
  tfs_memplan_entry *en = find_entry(e, key, len);
  int claimed = 0;
  if (!en) en = insert_entry(p, feeds, key, len, &claimed);
  if (!en) return;
  int state = atomic_load_explicit(&en->state, memory_order_acquire);
  if (state == TFS_MP_READY) {
    if (!arena_for(x->rs, en->mp)) return;
    x->mp = en->mp;
    x->run.alloc = arena_alloc;
    return;
  }
  if (state == TFS_MP_RETRY &&
      atomic_compare_exchange_strong(&en->state, &state, TFS_MP_RECORDING))
    claimed = 1;
  if (!claimed) return; /* dynamic, or another run is tracing */
  tfs_mem_trace *t = tfs_calloc(1, sizeof(*t));
  if (!t) {
    atomic_store(&en->state, TFS_MP_DYNAMIC);
    return;
  }
  t->entry = en;
  x->trace = t;
  x->run.alloc = trace_alloc;
}

void tfs_mem__fetched(tfs_exec_run *x, const tfs_tensor *t) {
  if (x->trace && t->buf->kind == TFS_BUF_ARENA &&
      t->buf->dealloc == rec_release)
    x->trace->ev[((const rec_buf *)t->buf)->ev].fetched = 1;
}

void tfs_mem__after_node(tfs_exec_run *x, int i) {
  if (x->trace) {
    trace_scan(x->trace, i);
    return;
  }
  const tfs_memplan *mp = x->mp;
  if (!mp || x->deviated) return;
  const tfs_arena *a = x->rs->arena;
  for (int32_t k = mp->death_first[i]; k < mp->death_first[i + 1]; k++) {
    if (atomic_load_explicit(&a->live[mp->death_list[k]],
                             memory_order_acquire)) {
      x->deviated = 1; /* later blocks may overlap this one: heap now */
      if (tfs_log_enabled(TFS_LOG_DEBUG))
        tfs_log(TFS_LOG_DEBUG, "memplan: a buffer of node '%s' outlived its "
                "plan; heap allocation for the rest of the run",
                x->p->nodes[mp->blocks[mp->death_list[k]].node].op->name);
      return;
    }
  }
}

static void end_trace(tfs_exec_run *x, int ok) {
  tfs_mem_trace *t = x->trace;
  tfs_plan *p = x->p;
  trace_scan(t, p->nnodes);
  for (int k = 0; k < t->nlive; k++) { /* still alive: kept past the run */
    trace_ev *e = &t->ev[t->live[k]];
    if (atomic_exchange_explicit(&e->rb->state, 2, memory_order_acq_rel) ==
        1) {
      tfs_free(e->rb);
      e->last = p->nnodes;
    }
    e->rb = NULL;
  }
  tfs_memplan *mp = ok ? build_plan(t, p->nnodes) : NULL;
  tfs_memplan_entry *en = t->entry;
  if (mp) {
    en->mp = mp;
    atomic_store_explicit(&en->state, TFS_MP_READY, memory_order_release);
    if (tfs_log_enabled(TFS_LOG_DEBUG))
      tfs_log(TFS_LOG_DEBUG, "memplan: %d nodes, %d allocations, arena %zu "
              "bytes, peak %zu bytes", p->nnodes, mp->nblocks,
              mp->arena_bytes, mp->peak_bytes);
  } else {
    /* A failed run traces again next time; a plan we could not build
     * (out of memory) leaves the signature dynamic. */
    atomic_store_explicit(&en->state, ok ? TFS_MP_DYNAMIC : TFS_MP_RETRY,
                          memory_order_release);
  }
  trace_free(t);
  x->trace = NULL;
}

void tfs_mem__end(tfs_exec_run *x, int ok) {
  if (x->trace) end_trace(x, ok);
  tfs_arena *a = x->rs->arena;
  if (x->mp && a &&
      atomic_load_explicit(&a->refs, memory_order_acquire) != 1) {
    /* A tensor kept past the run still uses the arena: let it go. */
    x->rs->arena = NULL;
    tfs_arena__free(a);
  }
  x->mp = NULL;
  x->run.alloc = NULL;
}

void tfs_mem__free_plans(tfs_plan_exec *e) {
  for (int i = 0; i < TFS_MEMPLAN_CACHE; i++) {
    memplan_free(e->mp[i].mp);
    tfs_free(e->mp[i].key);
  }
}

int tfs_mem__info(tfs_plan *p, tfs_tensor *const *feeds, size_t *arena,
                  size_t *peak, int *nblocks) {
  int64_t key[KEY_MAX];
  size_t len;
  *arena = *peak = 0;
  *nblocks = 0;
  if (!make_key(p, feeds, key, &len)) return TFS_MP_DYNAMIC;
  tfs_memplan_entry *en = find_entry(p->exec, key, len);
  if (!en) return TFS_MP_EMPTY;
  int state = atomic_load_explicit(&en->state, memory_order_acquire);
  if (state == TFS_MP_READY) {
    *arena = en->mp->arena_bytes;
    *peak = en->mp->peak_bytes;
    *nblocks = en->mp->nblocks;
  }
  return state;
}
