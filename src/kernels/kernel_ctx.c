/*
 * kernels/kernel_ctx.c - what a kernel can do through its context:
 * allocate or forward outputs, fail naming its node, split work, reach
 * the session's resources.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/util.h"
#include "kernels/kernel.h"

const char *tfs_ki_input_str(const tfs_kernel_init *ki, int i, char *buf,
                             size_t cap) {
  if (!ki->in_src_nodes || i < 0 || i >= ki->ninputs ||
      !ki->in_src_nodes[i]) {
    snprintf(buf, cap, "%s", ki->node_name ? ki->node_name : "");
  } else if (ki->in_src_ports[i] == 0) {
    snprintf(buf, cap, "%s", ki->in_src_nodes[i]);
  } else {
    snprintf(buf, cap, "%s:%d", ki->in_src_nodes[i], ki->in_src_ports[i]);
  }
  return buf;
}

int tfs_ki_error(tfs_kernel_init *ki, tfs_code code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *m = tfs_vasprintf(fmt, ap);
  va_end(ap);
  tfs_status_setf(ki->st, code, "%s\n\t [[{{node %s}}]]", m ? m : "",
                  ki->node_name);
  tfs_free(m);
  return -1;
}

/* After a core call failed into c->st: add the node suffix once. */
static void failed_in_st(tfs_kernel_ctx *c) {
  if (c->failed) return;
  c->failed = 1;
  tfs_status_appendf(c->st, "\n\t [[{{node %s}}]]", c->node_name);
}

/* ---- resource limits ----------------------------------------------------- */

static int64_t sat_mul(int64_t a, int64_t b) {
  int64_t r;
  return tfs_mul_overflow_i64(a, b, &r) ? INT64_MAX : r;
}

/* Charges `bytes` to the run; fails (naming `what`) when the run would
 * go over its limit. */
static int charge_run(tfs_kernel_ctx *c, const tfs_run_limits *l,
                      int64_t bytes, const char *what) {
  if (l->run_bytes <= 0) return 0;
  int64_t before = atomic_fetch_add(&c->run->bytes_used, bytes);
  int64_t total;
  if (tfs_add_overflow_i64(before, bytes, &total)) total = INT64_MAX;
  if (total <= l->run_bytes) return 0;
  atomic_fetch_sub(&c->run->bytes_used, bytes);
  tfs_kctx_fail(c, TFS_RESOURCE_EXHAUSTED,
                "%s would bring this run's allocations to %lld bytes, over "
                "the session's limit of %lld bytes per run",
                what, (long long)total, (long long)l->run_bytes);
  return -1;
}

/* Checks output i of `shape` against the run's limits before it is
 * allocated. */
int tfs_kctx_check_output(tfs_kernel_ctx *c, int i, const tfs_shape *shape) {
  const tfs_run_limits *l = c->run ? c->run->limits : NULL;
  if (!l) return 0;
  int64_t ne = 1;
  for (int d = 0; d < shape->rank; d++)
    ne = shape->dims[d] < 0 ? ne : sat_mul(ne, shape->dims[d]);
  size_t es = tfs_dtype__storage_size(c->out_types[i]);
  int64_t bytes = sat_mul(ne, es ? (int64_t)es : 1);
  char sb[128], what[256];
  tfs_shape_str(shape, sb, sizeof sb);
  if (l->op_elements > 0 && ne > l->op_elements) {
    tfs_kctx_fail(c, TFS_RESOURCE_EXHAUSTED,
                  "Output %d of shape %s has %lld elements, over the "
                  "session's limit of %lld elements per op",
                  i, sb, (long long)ne, (long long)l->op_elements);
    return -1;
  }
  if (l->tensor_bytes > 0 && bytes > l->tensor_bytes) {
    tfs_kctx_fail(c, TFS_RESOURCE_EXHAUSTED,
                  "Output %d of shape %s and type %s needs %lld bytes, over "
                  "the session's limit of %lld bytes per tensor",
                  i, sb, tfs_dtype_name(c->out_types[i]), (long long)bytes,
                  (long long)l->tensor_bytes);
    return -1;
  }
  snprintf(what, sizeof what, "Output %d of shape %s and type %s (%lld "
           "bytes)", i, sb, tfs_dtype_name(c->out_types[i]),
           (long long)bytes);
  return charge_run(c, l, bytes, what);
}

static int check_scratch_limits(tfs_kernel_ctx *c, size_t bytes) {
  const tfs_run_limits *l = c->run ? c->run->limits : NULL;
  if (!l) return 0;
  int64_t b = bytes > (size_t)INT64_MAX ? INT64_MAX : (int64_t)bytes;
  if (l->tensor_bytes > 0 && b > l->tensor_bytes) {
    tfs_kctx_fail(c, TFS_RESOURCE_EXHAUSTED,
                  "Scratch space of %lld bytes is over the session's limit "
                  "of %lld bytes per tensor",
                  (long long)b, (long long)l->tensor_bytes);
    return -1;
  }
  return 0; /* scratch is reused from compute to compute: not charged */
}

/* ---- outputs ---------------------------------------------------------------- */

tfs_tensor *tfs_kctx_alloc_output(tfs_kernel_ctx *c, int i,
                                  const tfs_shape *shape) {
  if (c->failed) return NULL;
  if (tfs_kctx_check_output(c, i, shape)) return NULL;
  tfs_tensor *t = c->run && c->run->alloc ? c->run->alloc(c->run, c, i, shape)
                                          : NULL;
  if (!t) t = tfs_tensor__alloc(c->out_types[i], shape, c->st);
  if (!t) {
    failed_in_st(c);
    return NULL;
  }
  tfs_tensor_free(c->outputs[i]);
  c->outputs[i] = t;
  return t;
}

tfs_tensor *tfs_kctx_forward_or_alloc(tfs_kernel_ctx *c, int in, int i,
                                      const tfs_shape *shape) {
  tfs_tensor *t = c->inputs[in];
  if ((c->forwardable >> in & 1) && c->input_slots && c->input_slots[in] &&
      *c->input_slots[in] == t && t->dtype == c->out_types[i] &&
      tfs_tensor__is_exclusive(t) &&
      tfs_shape_num_elements(shape) == t->nelems) {
    /* Steal the executor's reference: the slot no longer holds it. */
    *c->input_slots[in] = NULL;
    c->forwardable &= ~(1ull << in);
    t->shape = *shape;
    tfs_tensor_free(c->outputs[i]);
    c->outputs[i] = t;
    return t;
  }
  return tfs_kctx_alloc_output(c, i, shape);
}

tfs_tensor *tfs_kctx_take_input(tfs_kernel_ctx *c, int in) {
  tfs_tensor *t = c->inputs[in];
  if (!(c->forwardable >> in & 1) || !c->input_slots ||
      !c->input_slots[in] || *c->input_slots[in] != t ||
      !tfs_tensor__is_exclusive(t) || t->embedded ||
      t->buf->kind != TFS_BUF_OWNED)
    return NULL;
  *c->input_slots[in] = NULL;
  c->forwardable &= ~(1ull << in);
  return t;
}

void tfs_kctx_set_output(tfs_kernel_ctx *c, int i, tfs_tensor *t) {
  tfs_tensor_free(c->outputs[i]);
  c->outputs[i] = t;
}

void tfs_kctx_fail(tfs_kernel_ctx *c, tfs_code code, const char *fmt, ...) {
  if (c->failed) return;
  va_list ap;
  va_start(ap, fmt);
  char *m = tfs_vasprintf(fmt, ap);
  va_end(ap);
  tfs_status_setf(c->st, code, "%s\n\t [[{{node %s}}]]", m ? m : "",
                  c->node_name);
  tfs_free(m);
  c->failed = 1;
}

void tfs_kctx_fail_status(tfs_kernel_ctx *c, const tfs_status *st) {
  if (st == c->st) {
    failed_in_st(c);
    return;
  }
  tfs_kctx_fail(c, tfs_status_code(st), "%s", tfs_status_message(st));
}

void tfs_kctx_parallel_for(tfs_kernel_ctx *c, int64_t n,
                           int64_t cost_per_unit, tfs_range_fn fn,
                           void *arg) {
  tfs_threadpool_parallel_for(c->run ? c->run->intra_pool : NULL, n,
                              cost_per_unit, fn, arg);
}

tfs_threadpool *tfs_kctx_intra_pool(tfs_kernel_ctx *c) {
  return c->run ? c->run->intra_pool : NULL;
}

/* ---- scratch: a per-thread bump arena, reset when a compute starts ------ */

typedef struct scratch_chunk {
  struct scratch_chunk *next; /* retired chunks, freed at the next reset */
  size_t cap;
} scratch_chunk;

#define CHUNK_HDR 64 /* keeps the data 64-byte aligned */

typedef struct scratch_tls {
  scratch_chunk *cur;   /* NULL until first use */
  size_t used;
  scratch_chunk *retired;
  void *task[TFS_KCTX_TASK_SLOTS]; /* tfs_kctx_task_buf's, kept */
  size_t task_cap[TFS_KCTX_TASK_SLOTS];
} scratch_tls;

static pthread_key_t g_scratch_key;
static pthread_once_t g_scratch_once = PTHREAD_ONCE_INIT;

static void free_chunks(scratch_chunk *ch) {
  while (ch) {
    scratch_chunk *next = ch->next;
    tfs_aligned_free(ch);
    ch = next;
  }
}

static void scratch_destroy(void *p) {
  scratch_tls *s = p;
  free_chunks(s->retired);
  tfs_aligned_free(s->cur);
  for (int i = 0; i < TFS_KCTX_TASK_SLOTS; i++) tfs_aligned_free(s->task[i]);
  free(s);
}

static void scratch_key_init(void) {
  pthread_key_create(&g_scratch_key, scratch_destroy);
}

static scratch_tls *scratch_state(void) {
  static __thread scratch_tls *s;
  if (!s) {
    pthread_once(&g_scratch_once, scratch_key_init);
    s = calloc(1, sizeof(*s));
    if (s) pthread_setspecific(g_scratch_key, s);
  }
  return s;
}

static atomic_int g_poison_scratch;

int tfs_kctx__poison_scratch(int on) {
  return atomic_exchange(&g_poison_scratch, on != 0);
}

void *tfs_kctx_scratch(tfs_kernel_ctx *c, size_t bytes) {
  if (c->failed) return NULL;
  if (check_scratch_limits(c, bytes)) return NULL;
  scratch_tls *s = scratch_state();
  if (!s) goto oom;
  if (!c->scratch_used) { /* first call of this compute: reset */
    s->used = 0;
    free_chunks(s->retired);
    s->retired = NULL;
    c->scratch_used = 1;
  }
  size_t need = (bytes + 63) & ~(size_t)63;
  if (need < bytes || need > SIZE_MAX / 4) goto oom;
  if (!s->cur || s->used + need > s->cur->cap) {
    size_t cap = s->cur ? s->cur->cap * 2 : 1u << 16;
    while (cap < need) cap *= 2;
    scratch_chunk *ch = tfs_aligned_alloc(CHUNK_HDR + cap);
    if (!ch) goto oom;
    ch->cap = cap;
    ch->next = NULL;
    if (s->cur && s->used) { /* earlier pointers stay valid */
      s->cur->next = s->retired;
      s->retired = s->cur;
    } else {
      tfs_aligned_free(s->cur);
    }
    s->cur = ch;
    s->used = 0;
  }
  void *p = (char *)s->cur + CHUNK_HDR + s->used;
  s->used += need;
  if (atomic_load_explicit(&g_poison_scratch, memory_order_relaxed))
    memset(p, 0xff, bytes);
  return p;
oom:
  tfs_kctx_fail(c, TFS_RESOURCE_EXHAUSTED,
                "OOM when allocating %zu bytes of scratch memory", bytes);
  return NULL;
}

void *tfs_kctx_task_buf(int slot, size_t bytes) {
  scratch_tls *s = scratch_state();
  if (!s || slot < 0 || slot >= TFS_KCTX_TASK_SLOTS) return NULL;
  if (s->task_cap[slot] < bytes || !s->task[slot]) {
    tfs_aligned_free(s->task[slot]);
    s->task[slot] = tfs_aligned_alloc(bytes ? bytes : 1);
    s->task_cap[slot] = s->task[slot] ? bytes : 0;
    if (!s->task[slot]) return NULL;
  }
  if (atomic_load_explicit(&g_poison_scratch, memory_order_relaxed))
    memset(s->task[slot], 0xff, bytes);
  return s->task[slot];
}

tfs_resource_mgr *tfs_kctx_resources(tfs_kernel_ctx *c) {
  return c->run->resources;
}

const tfs_resource_handle *tfs_kctx_input_handle(const tfs_kernel_ctx *c,
                                                 int i) {
  const tfs_tensor *t = c->inputs[i];
  return t->dtype == TFS_RESOURCE && t->nelems == 1 ? tfs_tensor__handle(t, 0)
                                                    : NULL;
}

tfs_variable *tfs_kctx_input_ref(tfs_kernel_ctx *c, int i) {
  return tfs_tensor__ref_target(c->inputs[i]);
}

void tfs_kctx_set_ref_output(tfs_kernel_ctx *c, int i, tfs_variable *v) {
  if (c->failed) return;
  tfs_tensor *t = tfs_tensor__ref_to(v, v->dtype, c->st);
  if (!t)
    failed_in_st(c);
  else
    tfs_kctx_set_output(c, i, t);
}

void tfs_kctx_log(tfs_kernel_ctx *c, const char *text) {
  if (c->run && c->run->log) {
    c->run->log(text);
    return;
  }
  fputs(text, stderr);
  fflush(stderr);
}
