/*
 * backends/cpu/queue.c - TF1 FIFO queues: FIFOQueueV2 makes (or finds) a
 * queue in the session's resources and outputs its handle; the enqueue,
 * dequeue, close, size and is-closed kernels act on it, with
 * TensorFlow's semantics and messages.
 */

/*
 * A queue holds tuples of tensor references in a ring.  Enqueues (and
 * closes without cancel_pending_enqueues) form one line and dequeues
 * another, each served in arrival order as TensorFlow's attempt lists
 * are: only the head of a line acts, so a blocked DequeueMany(5) holds
 * back a later Dequeue, and a Close waits behind the enqueues before it.
 * A kernel that must wait sleeps on the queue's condition variable; it is
 * TFS_KERNEL_BLOCKING, so it waits on its own run's calling thread, never
 * on an inter-op thread another run needs.  It wakes when the queue
 * changes, at the run's deadline, and when the session closes
 * (tfs_resource_mgr_wake_all), and leaves with TensorFlow's CANCELLED
 * "Dequeue operation was cancelled" (or Enqueue) then.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "backends/cpu/array_util.h"
#include "backends/cpu/cpu_tables.h"
#include "core/alloc.h"
#include "core/util.h"

#define DEFAULT_CONTAINER "localhost"
#define QUEUE_TYPE "FIFOQueue"

/* A kernel waiting in a line (on its own stack). */
typedef struct waiter {
  struct waiter *prev, *next;
  int cancelled; /* close(cancel_pending_enqueues) */
} waiter;

typedef struct line {
  waiter *first, *last;
} line;

typedef struct fifo_queue {
  pthread_mutex_t mu;
  pthread_cond_t cv;      /* any change: elements, lines, closed */
  char *name;             /* TensorFlow's queue name, for messages */
  int ncomp;
  tfs_dtype *dtypes;
  int nshapes;            /* 0 or ncomp */
  tfs_shape *shapes;
  int64_t capacity;       /* INT32_MAX: unbounded */
  tfs_tensor **ring;      /* alloc * ncomp; guarded by: mu */
  int64_t head, count, alloc;
  int closed;
  line enq, deq;
} fifo_queue;

static void line_push(line *l, waiter *w) {
  w->prev = l->last;
  w->next = NULL;
  w->cancelled = 0;
  if (l->last)
    l->last->next = w;
  else
    l->first = w;
  l->last = w;
}

static void line_remove(line *l, waiter *w) {
  if (w->prev)
    w->prev->next = w->next;
  else
    l->first = w->next;
  if (w->next)
    w->next->prev = w->prev;
  else
    l->last = w->prev;
}

static void queue_free(void *p) {
  fifo_queue *q = p;
  if (!q) return;
  for (int64_t i = 0; q->ring && i < q->count; i++) {
    int64_t at = (q->head + i) % q->alloc;
    for (int k = 0; k < q->ncomp; k++)
      tfs_tensor_free(q->ring[at * q->ncomp + k]);
  }
  tfs_free(q->ring);
  tfs_free(q->dtypes);
  tfs_free(q->shapes);
  tfs_free(q->name);
  pthread_cond_destroy(&q->cv);
  pthread_mutex_destroy(&q->mu);
  tfs_free(q);
}

static void queue_wake(void *p) {
  fifo_queue *q = p;
  pthread_mutex_lock(&q->mu);
  pthread_cond_broadcast(&q->cv);
  pthread_mutex_unlock(&q->mu);
}

static const tfs_resource_kind kQueueKind = {QUEUE_TYPE, queue_free,
                                             queue_wake};

static void append_types(char *buf, size_t cap, const tfs_dtype *t, int n);
static void append_shapes(char *buf, size_t cap, const tfs_shape *s, int n);

/* ---- FIFOQueueV2 -------------------------------------------------------- */

typedef struct queue_state {
  char *container;
  char *key;         /* the resource's name in the manager */
  char *node;
  int shared;        /* shared_name given */
  int ncomp, nshapes;
  tfs_dtype *dtypes;
  tfs_shape *shapes;
  int64_t capacity;
} queue_state;

static void queue_state_release(void *p) {
  queue_state *s = p;
  if (!s) return;
  tfs_free(s->container);
  tfs_free(s->key);
  tfs_free(s->node);
  tfs_free(s->dtypes);
  tfs_free(s->shapes);
  tfs_free(s);
}

static int queue_prepare(tfs_kernel_init *ki) {
  queue_state *s = tfs_calloc(1, sizeof(*s));
  if (!s) return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  ki->state = s;
  size_t len;
  const char *container = tfs_attrs_get_string(ki->attrs, "container", &len);
  const char *shared = tfs_attrs_get_string(ki->attrs, "shared_name", &len);
  s->shared = shared && *shared;
  s->container = tfs_strdup(container && *container ? container
                                                     : DEFAULT_CONTAINER);
  /* without a shared_name the queue belongs to its node (TensorFlow's
   * kernel makes it once and every run of the session reuses it) */
  s->key = s->shared ? tfs_asprintf("s/%s", shared)
                     : tfs_asprintf("n/%s", ki->node_name);
  s->node = tfs_strdup(ki->node_name);
  if (!s->container || !s->key || !s->node)
    return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  const tfs_dtype *types = tfs_attrs_get_type_list(
      ki->attrs, "component_types", &s->ncomp);
  if (!types || s->ncomp < 1)
    return tfs_ki_error(ki, TFS_INVALID_ARGUMENT,
                        "component_types must not be empty");
  const tfs_attr_value *sh = tfs_attrs_find(ki->attrs, "shapes");
  if (sh && sh->is_list && sh->u.list.n > 0) s->nshapes = sh->u.list.n;
  s->dtypes = tfs_malloc(sizeof(tfs_dtype) * (size_t)s->ncomp);
  s->shapes = tfs_malloc(sizeof(tfs_shape) * (size_t)(s->nshapes + 1));
  if (!s->dtypes || !s->shapes)
    return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  memcpy(s->dtypes, types, sizeof(tfs_dtype) * (size_t)s->ncomp);
  if (s->nshapes)
    memcpy(s->shapes, sh->u.list.v, sizeof(tfs_shape) * (size_t)s->nshapes);
  for (int i = 0; i < s->nshapes; i++) {
    char buf[TFS_SHAPE_STRLEN];
    if (!tfs_shape_is_fully_defined(&s->shapes[i]))
      return tfs_ki_error(ki, TFS_INVALID_ARGUMENT,
                          "Shape %s is not fully defined",
                          tfs_shape_str(&s->shapes[i], buf, sizeof buf));
  }
  if (s->nshapes && s->nshapes != s->ncomp) {
    char types[512] = "", shapes[1024] = "";
    append_types(types, sizeof types, s->dtypes, s->ncomp);
    append_shapes(shapes, sizeof shapes, s->shapes, s->nshapes);
    return tfs_ki_error(ki, TFS_INVALID_ARGUMENT,
                        "Different number of component types.  Types: %s, "
                        "Shapes: %s", types, shapes);
  }
  int64_t cap = -1;
  tfs_attrs_get_int(ki->attrs, "capacity", &cap);
  s->capacity = cap < 0 || cap > INT32_MAX ? INT32_MAX : cap;
  return 0;
}

static void *queue_create(void *arg, tfs_status *st) {
  const queue_state *s = arg;
  fifo_queue *q = tfs_calloc(1, sizeof(*q));
  if (!q) goto oom;
  pthread_mutex_init(&q->mu, NULL);
  pthread_condattr_t ca;
  pthread_condattr_init(&ca);
  pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
  pthread_cond_init(&q->cv, &ca);
  pthread_condattr_destroy(&ca);
  q->ncomp = s->ncomp;
  q->nshapes = s->nshapes;
  q->capacity = s->capacity;
  q->dtypes = tfs_malloc(sizeof(tfs_dtype) * (size_t)s->ncomp);
  q->shapes = tfs_malloc(sizeof(tfs_shape) * (size_t)(s->nshapes + 1));
  /* TensorFlow's ContainerInfo: the shared name, else "_<id>_<node>" */
  q->name = s->shared ? tfs_strdup(s->key + 2)
                      : tfs_asprintf("_%lld_%s",
                                     (long long)tfs_resource_unique_id(),
                                     s->node);
  if (!q->dtypes || !q->shapes || !q->name) {
    queue_free(q);
    goto oom;
  }
  memcpy(q->dtypes, s->dtypes, sizeof(tfs_dtype) * (size_t)s->ncomp);
  if (s->nshapes)
    memcpy(q->shapes, s->shapes, sizeof(tfs_shape) * (size_t)s->nshapes);
  return q;
oom:
  TFS_OOM(st);
  return NULL;
}

static void append_types(char *buf, size_t cap, const tfs_dtype *t, int n) {
  size_t used = strlen(buf);
  for (int i = 0; i < n && used < cap; i++)
    used += (size_t)snprintf(buf + used, cap - used, "%s%s", i ? ", " : "",
                             tfs_dtype_name(t[i]));
}

static void append_shapes(char *buf, size_t cap, const tfs_shape *s, int n) {
  size_t used = strlen(buf);
  used += (size_t)snprintf(buf + used, cap > used ? cap - used : 0, "[");
  for (int i = 0; i < n && used < cap; i++) {
    char b[TFS_SHAPE_STRLEN];
    used += (size_t)snprintf(buf + used, cap - used, "%s%s", i ? ", " : "",
                             tfs_dims_str(s[i].dims, s[i].rank, b, sizeof b));
  }
  if (used < cap) snprintf(buf + used, cap - used, "]");
}

/* A shared queue found again must match the node (TensorFlow's
 * MatchesNodeDef): capacity, then component types, then shapes. */
static void check_shared(tfs_kernel_ctx *c, const queue_state *s,
                         const fifo_queue *q) {
  char have[512] = "", want[512] = "";
  if (q->capacity != s->capacity) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Shared queue '%s' has capacity %lld but requested "
                  "capacity was %lld", q->name,
                  (long long)(q->capacity == INT32_MAX ? INT32_MAX
                                                       : q->capacity),
                  (long long)s->capacity);
    return;
  }
  if (q->ncomp != s->ncomp ||
      memcmp(q->dtypes, s->dtypes, sizeof(tfs_dtype) * (size_t)q->ncomp)) {
    append_types(have, sizeof have, q->dtypes, q->ncomp);
    append_types(want, sizeof want, s->dtypes, s->ncomp);
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Shared queue '%s' has component types %s but requested "
                  "component types were %s", q->name, have, want);
    return;
  }
  int same = q->nshapes == s->nshapes;
  for (int i = 0; same && i < q->nshapes; i++)
    same = tfs_shape_equal(&q->shapes[i], &s->shapes[i]);
  if (!same) {
    append_shapes(have, sizeof have, q->shapes, q->nshapes);
    append_shapes(want, sizeof want, s->shapes, s->nshapes);
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Shared queue '%s' has component shapes %s but requested "
                  "component shapes were %s", q->name, have, want);
  }
}

static void queue_compute(tfs_kernel_ctx *c) {
  queue_state *s = c->state;
  int created;
  fifo_queue *q = tfs_resource_mgr_lookup_or_create(
      tfs_kctx_resources(c), s->container, s->key, &kQueueKind, queue_create,
      s, &created, c->st);
  if (!q) {
    tfs_kctx_fail_status(c, c->st);
    return;
  }
  if (!created && s->shared) {
    check_shared(c, s, q);
    if (c->failed) return;
  }
  tfs_resource_handle *h = tfs_resource_handle_new(
      s->container, s->key, QUEUE_TYPE, TFS_INVALID, NULL);
  tfs_tensor *t = h ? tfs_tensor__resource(h, c->st) : NULL;
  if (!t) {
    tfs_kctx_fail(c, TFS_RESOURCE_EXHAUSTED, "out of memory");
    return;
  }
  tfs_kctx_set_output(c, 0, t);
}

/* ---- the ops on a handle ------------------------------------------------- */

/* The queue input 0 names; NULL after failing c. */
static fifo_queue *queue_of(tfs_kernel_ctx *c) {
  const tfs_resource_handle *h = tfs_kctx_input_handle(c, 0);
  if (!h) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Expected a scalar queue resource handle");
    return NULL;
  }
  fifo_queue *q = tfs_resource_mgr_lookup(tfs_kctx_resources(c),
                                          h->container, h->name, &kQueueKind);
  if (!q)
    tfs_kctx_fail(c, TFS_NOT_FOUND,
                  "Resource %s/%s/N10tensorflow14QueueInterfaceE does not "
                  "exist.", h->container, h->name);
  return q;
}

/* TensorFlow's MatchSignature: the kernel's input and output dtypes
 * against [resource (, int32)] + the queue's component types. */
static int match_signature(tfs_kernel_ctx *c, const fifo_queue *q,
                           int enqueue) {
  int n = enqueue ? c->ninputs - 1 : c->noutputs, ok = n == q->ncomp;
  for (int i = 0; ok && i < n; i++)
    ok = (enqueue ? c->inputs[i + 1]->dtype : c->out_types[i]) ==
         q->dtypes[i];
  if (ok) return 0;
  char have[1024] = "", want[1024] = "";
  tfs_dtype in[2] = {TFS_RESOURCE, TFS_INT32};
  int nin = enqueue ? 1 : c->ninputs;
  append_types(have, sizeof have, in, nin);
  append_types(want, sizeof want, in, nin);
  size_t hl = strlen(have), wl = strlen(want);
  if (enqueue) {
    for (int i = 0; i < n && hl < sizeof have; i++)
      hl += (size_t)snprintf(have + hl, sizeof have - hl, ", %s",
                             tfs_dtype_name(c->inputs[i + 1]->dtype));
    for (int i = 0; i < q->ncomp && wl < sizeof want; i++)
      wl += (size_t)snprintf(want + wl, sizeof want - wl, ", %s",
                             tfs_dtype_name(q->dtypes[i]));
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Signature mismatch, have: %s-> expected: %s->", have,
                  want);
    return -1;
  }
  if (hl < sizeof have) snprintf(have + hl, sizeof have - hl, "->");
  if (wl < sizeof want) snprintf(want + wl, sizeof want - wl, "->");
  append_types(have, sizeof have, c->out_types, n);
  append_types(want, sizeof want, q->dtypes, q->ncomp);
  tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                "Signature mismatch, have: %s expected: %s", have, want);
  return -1;
}

/* Waits for a change of q (q->mu held).  0, or -1 after failing c when
 * the run is cancelled (the session closes) or reaches its deadline. */
static int queue_wait(tfs_kernel_ctx *c, fifo_queue *q, const char *what) {
  tfs_run *run = c->run;
  if (run && run->check_abort && run->check_abort(run, c->st)) {
    if (tfs_status_code(c->st) == TFS_CANCELLED) {
      tfs_status_clear(c->st);
      tfs_kctx_fail(c, TFS_CANCELLED, "%s operation was cancelled", what);
    } else {
      tfs_kctx_fail_status(c, c->st);
    }
    return -1;
  }
  int64_t deadline = run ? run->deadline_ns : 0;
  if (!deadline) {
    pthread_cond_wait(&q->cv, &q->mu);
    return 0;
  }
  struct timespec ts = {(time_t)(deadline / 1000000000),
                        (long)(deadline % 1000000000)};
  pthread_cond_timedwait(&q->cv, &q->mu, &ts);
  return 0;
}

/* Makes room for one more element (mu held).  -1 on OOM. */
static int ring_reserve(fifo_queue *q) {
  if (q->count < q->alloc) return 0;
  int64_t n = q->alloc ? q->alloc * 2 : 16, bytes;
  if (n > q->capacity) n = q->capacity;
  if (tfs_mul_overflow_i64(n, q->ncomp * (int64_t)sizeof(void *), &bytes))
    return -1;
  tfs_tensor **r = tfs_malloc((size_t)bytes);
  if (!r) return -1;
  for (int64_t i = 0; i < q->count; i++)
    memcpy(&r[i * q->ncomp], &q->ring[((q->head + i) % q->alloc) * q->ncomp],
           sizeof(void *) * (size_t)q->ncomp);
  tfs_free(q->ring);
  q->ring = r;
  q->head = 0;
  q->alloc = n;
  return 0;
}

static tfs_tensor **ring_at(fifo_queue *q, int64_t i) {
  return &q->ring[((q->head + i) % q->alloc) * q->ncomp];
}

/* Enqueue and dequeue kernels: TensorFlow's kernels refuse a timeout. */
static int access_prepare(tfs_kernel_init *ki) {
  int64_t timeout = -1;
  tfs_attrs_get_int(ki->attrs, "timeout_ms", &timeout);
  if (timeout != -1)
    return tfs_ki_error(ki, TFS_INVALID_ARGUMENT,
                        "Timeout not supported yet.");
  return 0;
}

/* ---- enqueue ------------------------------------------------------------ */

/* TensorFlow's ValidateTuple / ValidateManyTuple. */
static int validate_tuple(tfs_kernel_ctx *c, const fifo_queue *q, int many) {
  char want[TFS_SHAPE_STRLEN], got[TFS_SHAPE_STRLEN];
  for (int i = 0; i < q->ncomp; i++)
    if (many && c->inputs[i + 1]->shape.rank < 1) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "Shape must be at least rank 1 but is rank 0 in tuple "
                    "component %d", i);
      return -1;
    }
  int64_t batch = many ? c->inputs[1]->shape.dims[0] : 0;
  for (int i = 0; i < q->ncomp; i++) {
    const tfs_shape *s = &c->inputs[i + 1]->shape;
    if (!q->nshapes) {
      if (many && s->dims[0] != batch) {
        tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                      "All input tensors must have the same size in the 0th "
                      "dimension. Component %d has %lld, and should have "
                      "%lld", i, (long long)s->dims[0], (long long)batch);
        return -1;
      }
      continue;
    }
    tfs_shape e = q->shapes[i];
    if (many) {
      if (e.rank + 1 > TFS_MAX_RANK) e.rank = TFS_MAX_RANK; /* cannot match */
      memmove(&e.dims[1], &e.dims[0], sizeof(int64_t) * (size_t)(e.rank));
      e.dims[0] = batch;
      e.rank++;
    }
    if (!tfs_shape_equal(&e, s)) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "Shape mismatch in tuple component %d. Expected %s, got "
                    "%s", i, tfs_dims_str(e.dims, e.rank, want, sizeof want),
                    tfs_dims_str(s->dims, s->rank, got, sizeof got));
      return -1;
    }
  }
  return 0;
}

/* Element `row` of component k of the batch (a new owned tensor). */
static tfs_tensor *batch_row(tfs_kernel_ctx *c, const tfs_tensor *b,
                             int64_t row) {
  tfs_shape s = b->shape;
  memmove(&s.dims[0], &s.dims[1], sizeof(int64_t) * (size_t)(s.rank - 1));
  s.rank--;
  tfs_tensor *t = tfs_tensor__alloc(b->dtype, &s, c->st);
  if (!t) {
    tfs_kctx_fail_status(c, c->st);
    return NULL;
  }
  tfs_elem e = tfs_elem_of(b->dtype);
  if (t->nelems && tfs_elem_copy(e, t->data,
                                 (const char *)b->data +
                                     row * t->nelems * (int64_t)e.size,
                                 t->nelems)) {
    tfs_tensor_free(t);
    tfs_kctx_fail(c, TFS_RESOURCE_EXHAUSTED, "out of memory");
    return NULL;
  }
  return t;
}

/* Appends element `row` of the inputs (or the inputs themselves when
 * row < 0) to q (mu held).  -1 after failing c. */
static int push_element(tfs_kernel_ctx *c, fifo_queue *q, int64_t row) {
  int n = q->ncomp;
  if (ring_reserve(q)) {
    tfs_kctx_fail(c, TFS_RESOURCE_EXHAUSTED, "out of memory");
    return -1;
  }
  /* the slot after the last element, filled in place */
  tfs_tensor **el = ring_at(q, q->count);
  for (int k = 0; k < n; k++) {
    el[k] = row < 0 ? tfs_tensor__retainable(c->inputs[k + 1], c->st)
                    : batch_row(c, c->inputs[k + 1], row);
    if (!el[k]) {
      if (row < 0) tfs_kctx_fail_status(c, c->st);
      for (int j = 0; j < k; j++) tfs_tensor_free(el[j]);
      return -1;
    }
  }
  q->count++;
  return 0;
}

static void enqueue(tfs_kernel_ctx *c, int many) {
  fifo_queue *q = queue_of(c);
  if (!q || match_signature(c, q, 1) || validate_tuple(c, q, many)) return;
  int64_t total = many ? c->inputs[1]->shape.dims[0] : 1, done = 0;
  if (total == 0) return;
  if (many) {
    for (int k = 0; k < q->ncomp; k++)
      if (!(TFS_DT_ARRAY & TFS_DT_BIT(c->inputs[k + 1]->dtype))) {
        tfs_kctx_fail(c, TFS_UNIMPLEMENTED,
                      "CopySliceToElement Unhandled data type: %d",
                      (int)c->inputs[k + 1]->dtype);
        return;
      }
  }
  waiter w;
  pthread_mutex_lock(&q->mu);
  line_push(&q->enq, &w);
  for (;;) {
    if (w.cancelled) {
      tfs_kctx_fail(c, TFS_CANCELLED, "Enqueue operation was cancelled");
      break;
    }
    if (q->enq.first == &w) {
      if (q->closed) {
        tfs_kctx_fail(c, TFS_CANCELLED, "FIFOQueue '%s' is closed.",
                      q->name);
        break;
      }
      int64_t before = done;
      while (done < total && q->count < q->capacity &&
             push_element(c, q, many ? done : -1) == 0)
        done++;
      if (done != before) pthread_cond_broadcast(&q->cv);
      if (done == total || c->failed) break;
    }
    if (queue_wait(c, q, "Enqueue")) break;
  }
  line_remove(&q->enq, &w);
  pthread_cond_broadcast(&q->cv);
  pthread_mutex_unlock(&q->mu);
}

static void enqueue_compute(tfs_kernel_ctx *c) { enqueue(c, 0); }
static void enqueue_many_compute(tfs_kernel_ctx *c) { enqueue(c, 1); }

/* ---- dequeue ------------------------------------------------------------- */

enum { DEQ_ONE, DEQ_MANY, DEQ_UP_TO };

/* Pops one element into outputs (mu held). */
static void pop_one(tfs_kernel_ctx *c, fifo_queue *q) {
  tfs_tensor **el = ring_at(q, 0);
  for (int k = 0; k < q->ncomp; k++) tfs_kctx_set_output(c, k, el[k]);
  q->head = (q->head + 1) % q->alloc;
  q->count--;
}

/* Pops n elements stacked into [n] + shape outputs (mu held).  The
 * elements stay queued when an output cannot be made. */
static void pop_many(tfs_kernel_ctx *c, fifo_queue *q, int64_t n) {
  for (int k = 0; k < q->ncomp; k++) {
    tfs_shape s = q->shapes[k];
    memmove(&s.dims[1], &s.dims[0], sizeof(int64_t) * (size_t)s.rank);
    s.dims[0] = n;
    s.rank++;
    tfs_tensor *o = tfs_kctx_alloc_output(c, k, &s);
    if (!o) return;
    tfs_elem e = tfs_elem_of(q->dtypes[k]);
    int64_t per = n ? o->nelems / n : 0;
    for (int64_t i = 0; i < n && per; i++)
      if (tfs_elem_copy(e, (char *)o->data + i * per * (int64_t)e.size,
                        ring_at(q, i)[k]->data, per)) {
        tfs_kctx_fail(c, TFS_RESOURCE_EXHAUSTED, "out of memory");
        return;
      }
  }
  for (int64_t i = 0; i < n; i++) {
    tfs_tensor **el = ring_at(q, i);
    for (int k = 0; k < q->ncomp; k++) tfs_tensor_free(el[k]);
  }
  if (n) q->head = (q->head + n) % q->alloc;
  q->count -= n;
}

static void insufficient(tfs_kernel_ctx *c, const fifo_queue *q, int64_t n) {
  tfs_kctx_fail(c, TFS_OUT_OF_RANGE,
                "FIFOQueue '%s' is closed and has insufficient elements "
                "(requested %lld, current size %lld)", q->name, (long long)n,
                (long long)q->count);
}

/* One step of the head of the dequeue line (mu held): 1 when done
 * (outputs set or c failed), 0 to wait. */
static int try_dequeue(tfs_kernel_ctx *c, fifo_queue *q, int mode,
                       int64_t n) {
  if (mode == DEQ_ONE) {
    if (q->count > 0) {
      pop_one(c, q);
      return 1;
    }
    if (q->closed) insufficient(c, q, 1);
    return q->closed;
  }
  if (q->count >= n) {
    pop_many(c, q, n);
    return 1;
  }
  if (!q->closed) return 0;
  if (mode == DEQ_UP_TO && q->count > 0) {
    pop_many(c, q, q->count);
    return 1;
  }
  /* DequeueUpTo waits for enqueues still in line before the close */
  if (mode == DEQ_UP_TO && q->enq.first) return 0;
  insufficient(c, q, n);
  return 1;
}

static void dequeue(tfs_kernel_ctx *c, int mode) {
  int64_t n = 1;
  if (mode != DEQ_ONE) {
    const tfs_tensor *nt = c->inputs[1];
    if (nt->nelems != 1) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "n must be a scalar, got a tensor of %lld elements",
                    (long long)nt->nelems);
      return;
    }
    n = *(const int32_t *)nt->data;
    if (n < 0) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "%s requested %lld < 0 elements",
                    mode == DEQ_MANY ? "DequeueManyOp" : "DequeueUpToOp",
                    (long long)n);
      return;
    }
  }
  fifo_queue *q = queue_of(c);
  if (!q || match_signature(c, q, 0)) return;
  if (mode != DEQ_ONE) {
    if (!q->nshapes) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "FIFOQueue's DequeueMany and DequeueUpTo require the "
                    "components to have specified shapes.");
      return;
    }
    for (int k = 0; k < q->ncomp; k++)
      if (!(TFS_DT_ARRAY & TFS_DT_BIT(q->dtypes[k]))) {
        tfs_kctx_fail(c, TFS_UNIMPLEMENTED,
                      "CopyElementToSlice Unhandled data type: %d",
                      (int)q->dtypes[k]);
        return;
      }
    if (n == 0) { /* empty batches at once, closed or not */
      pthread_mutex_lock(&q->mu);
      pop_many(c, q, 0);
      pthread_mutex_unlock(&q->mu);
      return;
    }
  }
  waiter w;
  pthread_mutex_lock(&q->mu);
  line_push(&q->deq, &w);
  while (!(q->deq.first == &w && try_dequeue(c, q, mode, n)) &&
         queue_wait(c, q, "Dequeue") == 0) {
  }
  line_remove(&q->deq, &w);
  pthread_cond_broadcast(&q->cv);
  pthread_mutex_unlock(&q->mu);
}

static void dequeue_compute(tfs_kernel_ctx *c) { dequeue(c, DEQ_ONE); }
static void dequeue_many_compute(tfs_kernel_ctx *c) { dequeue(c, DEQ_MANY); }
static void dequeue_up_to_compute(tfs_kernel_ctx *c) {
  dequeue(c, DEQ_UP_TO);
}

/* ---- close, size, is_closed ---------------------------------------------- */

static int close_prepare(tfs_kernel_init *ki) {
  int cancel = 0;
  tfs_attrs_get_bool(ki->attrs, "cancel_pending_enqueues", &cancel);
  ki->state = (void *)(intptr_t)(cancel ? 1 : 0);
  return 0;
}

static void close_compute(tfs_kernel_ctx *c) {
  fifo_queue *q = queue_of(c);
  if (!q) return;
  pthread_mutex_lock(&q->mu);
  if (c->state) {
    /* cancel_pending_enqueues: close now, fail every waiting enqueue */
    q->closed = 1;
    for (waiter *w = q->enq.first; w; w = w->next) w->cancelled = 1;
  } else {
    /* in the enqueue line: after the enqueues before it */
    waiter w;
    line_push(&q->enq, &w);
    while (q->enq.first != &w && !w.cancelled &&
           queue_wait(c, q, "Enqueue") == 0) {
    }
    if (w.cancelled)
      tfs_kctx_fail(c, TFS_CANCELLED, "Enqueue operation was cancelled");
    if (!c->failed) {
      if (q->closed)
        tfs_kctx_fail(c, TFS_ABORTED, "Queue '%s' is already closed.",
                      q->name);
      q->closed = 1;
    }
    line_remove(&q->enq, &w);
  }
  pthread_cond_broadcast(&q->cv);
  pthread_mutex_unlock(&q->mu);
}

static void scalar_out(tfs_kernel_ctx *c, int64_t v) {
  tfs_shape s = {.rank = 0};
  tfs_tensor *o = tfs_kctx_alloc_output(c, 0, &s);
  if (!o) return;
  if (o->dtype == TFS_BOOL)
    *(uint8_t *)o->data = (uint8_t)(v != 0);
  else
    *(int32_t *)o->data = (int32_t)v;
}

static void size_compute(tfs_kernel_ctx *c) {
  fifo_queue *q = queue_of(c);
  if (!q) return;
  pthread_mutex_lock(&q->mu);
  int64_t n = q->count;
  pthread_mutex_unlock(&q->mu);
  scalar_out(c, n);
}

static void is_closed_compute(tfs_kernel_ctx *c) {
  fifo_queue *q = queue_of(c);
  if (!q) return;
  pthread_mutex_lock(&q->mu);
  int closed = q->closed;
  pthread_mutex_unlock(&q->mu);
  scalar_out(c, closed);
}

/* ---- the table ----------------------------------------------------------- */

#define ANY NULL, 0
#define BLOCKS TFS_KERNEL_BLOCKING
const tfs_kernel_def tfs_cpu_kernels_queue[] = {
    {"FIFOQueueV2", "CPU", ANY, queue_prepare, queue_compute,
     queue_state_release, 0, NULL},
    {"QueueEnqueueV2", "CPU", ANY, access_prepare, enqueue_compute, NULL,
     BLOCKS, NULL},
    {"QueueEnqueueManyV2", "CPU", ANY, access_prepare, enqueue_many_compute,
     NULL, BLOCKS, NULL},
    {"QueueDequeueV2", "CPU", ANY, access_prepare, dequeue_compute, NULL,
     BLOCKS, NULL},
    {"QueueDequeueManyV2", "CPU", ANY, access_prepare, dequeue_many_compute,
     NULL, BLOCKS, NULL},
    {"QueueDequeueUpToV2", "CPU", ANY, access_prepare,
     dequeue_up_to_compute, NULL, BLOCKS, NULL},
    {"QueueCloseV2", "CPU", ANY, close_prepare, close_compute, NULL, BLOCKS,
     NULL},
    {"QueueSizeV2", "CPU", ANY, NULL, size_compute, NULL, 0, NULL},
    {"QueueIsClosedV2", "CPU", ANY, NULL, is_closed_compute, NULL, 0, NULL},
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL},
};
