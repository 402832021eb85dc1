/*
 * backends/cpu/array_roll.c - kernels that move elements along axes by
 * amounts read from tensors: Roll (several axes, negative shifts, shifts
 * of one axis adding up) and ReverseSequence (each batch entry reverses
 * its own prefix along seq_dim).  Every amount is checked against its
 * dimension before any element moves.
 */
#include <stdatomic.h>
#include <string.h>

#include "core/alloc.h"
#include "backends/cpu/array_util.h"

/* ---- Roll ------------------------------------------------------------- */

typedef struct {
  tfs_elem e;
  const char *in;
  char *out;
  int rank;                  /* >= 1 */
  int64_t dims[TFS_MAX_RANK];
  int64_t shift[TFS_MAX_RANK]; /* in [0, dims[d]) */
  int64_t strides[TFS_MAX_RANK];
  atomic_int oom;
} roll_job;

/* One output row (the last dimension) per unit. */
static void roll_range(void *arg, int64_t begin, int64_t end) {
  roll_job *j = arg;
  int last = j->rank - 1;
  int64_t n = j->dims[last], s = j->shift[last];
  size_t es = j->e.size;
  for (int64_t row = begin; row < end; row++) {
    int64_t rem = row, src = 0;
    for (int d = last - 1; d >= 0; d--) {
      int64_t i = rem % j->dims[d];
      rem /= j->dims[d];
      int64_t k = i - j->shift[d];
      if (k < 0) k += j->dims[d];
      src += k * j->strides[d];
    }
    char *o = j->out + (size_t)(row * n) * es;
    const char *x = j->in + (size_t)src * es;
    /* out[s..n) = in[0..n-s), out[0..s) = in[n-s..n) */
    if (tfs_elem_copy(j->e, o + (size_t)s * es, x, n - s) ||
        tfs_elem_copy(j->e, o, x + (size_t)(n - s) * es, s))
      atomic_store(&j->oom, 1);
  }
}

static void roll_compute(tfs_kernel_ctx *c) {
  const tfs_tensor *x = c->inputs[0], *sh = c->inputs[1], *ax = c->inputs[2];
  char b[TFS_SHAPE_STRLEN];
  if (x->shape.rank < 1) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "input must be 1-D or higher");
    return;
  }
  if (sh->shape.rank > 1 || ax->shape.rank > 1) {
    const tfs_tensor *t = sh->shape.rank > 1 ? sh : ax;
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "%s must be a scalar or a 1-D vector. Found: %s",
                  t == sh ? "shift" : "axis",
                  tfs_shape_str(&t->shape, b, sizeof b));
    return;
  }
  if (!tfs_shape_equal(&sh->shape, &ax->shape)) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "shift and axis must have the same size");
    return;
  }
  roll_job j;
  memset(&j, 0, sizeof j);
  j.rank = x->shape.rank;
  for (int d = 0; d < j.rank; d++) j.dims[d] = x->shape.dims[d];
  for (int64_t i = 0; i < sh->nelems; i++) {
    int64_t a = tfs_tensor__get_as_int64(ax, i);
    if (a < 0) a += j.rank;
    if (a < 0 || a >= j.rank) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "axis %lld is out of range",
                    (long long)a);
      return;
    }
    int64_t ds = j.dims[a] > 1 ? j.dims[a] : 1;
    /* TensorFlow reads each shift as a 32-bit int */
    int64_t v = (int64_t)(int32_t)(uint32_t)tfs_tensor__get_as_int64(sh, i);
    j.shift[a] = ((j.shift[a] + v % ds) % ds + ds) % ds;
  }
  tfs_tensor *o = tfs_kctx_alloc_output(c, 0, &x->shape);
  if (!o || o->nelems == 0) return;
  tfs_arr_strides(j.dims, j.rank, j.strides);
  j.e = tfs_elem_of(x->dtype);
  j.in = x->data;
  j.out = o->data;
  int64_t n = j.dims[j.rank - 1];
  tfs_kctx_parallel_for(c, o->nelems / n, n + 4 * j.rank, roll_range, &j);
  if (atomic_load(&j.oom)) tfs_arr_oom(c);
}

/* ---- ReverseSequence -------------------------------------------------- */

typedef struct {
  int seq_dim, batch_dim;
} revseq_state;

static int revseq_prepare(tfs_kernel_init *ki) {
  int64_t sd = 0, bd = 0;
  tfs_attrs_get_int(ki->attrs, "seq_dim", &sd);
  tfs_attrs_get_int(ki->attrs, "batch_dim", &bd);
  if (bd < 0 || bd > INT32_MAX)
    return tfs_ki_error(ki, TFS_INVALID_ARGUMENT, "Invalid batch_dim %lld",
                        (long long)(int32_t)bd);
  if (sd < 0 || sd > INT32_MAX)
    return tfs_ki_error(ki, TFS_INVALID_ARGUMENT, "Invalid seq_dim %lld",
                        (long long)(int32_t)sd);
  revseq_state *s = tfs_calloc(1, sizeof(*s));
  if (!s) return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  s->seq_dim = (int)sd;
  s->batch_dim = (int)bd;
  ki->state = s;
  return 0;
}

typedef struct {
  tfs_elem e;
  const char *in;
  char *out;
  const tfs_tensor *lens;
  int rank, seq_dim, batch_dim;
  int64_t dims[TFS_MAX_RANK], strides[TFS_MAX_RANK];
  atomic_int oom;
} revseq_job;

static void revseq_range(void *arg, int64_t begin, int64_t end) {
  revseq_job *j = arg;
  size_t es = j->e.size;
  for (int64_t i = begin; i < end; i++) {
    int64_t t = i / j->strides[j->seq_dim] % j->dims[j->seq_dim];
    int64_t bi = i / j->strides[j->batch_dim] % j->dims[j->batch_dim];
    int64_t len = tfs_tensor__get_as_int64(j->lens, bi), src = i;
    if (t < len) src += (len - 1 - 2 * t) * j->strides[j->seq_dim];
    if (tfs_elem_copy(j->e, j->out + (size_t)i * es,
                      j->in + (size_t)src * es, 1))
      atomic_store(&j->oom, 1);
  }
}

/* TensorFlow's checks, in its order; 0 or -1 after failing c. */
static int revseq_check(tfs_kernel_ctx *c, const revseq_state *s,
                        const tfs_tensor *x, const tfs_tensor *lens) {
  int r = x->shape.rank;
  if (lens->shape.rank != 1) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "seq_lengths must be 1-dim, not %d",
                  lens->shape.rank);
    return -1;
  }
  if (s->batch_dim == s->seq_dim) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "batch_dim == seq_dim == %d",
                  s->seq_dim);
    return -1;
  }
  if (s->seq_dim >= r || s->batch_dim >= r) {
    int sq = s->seq_dim >= r;
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "%s must be < input rank ( %d vs. %d)",
                  sq ? "seq_dim" : "batch_dim",
                  sq ? s->seq_dim : s->batch_dim, r);
    return -1;
  }
  int64_t nb = x->shape.dims[s->batch_dim];
  if (lens->nelems != nb) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Length of seq_lengths != input.dims(%d), (%lld vs. %lld)",
                  s->batch_dim, (long long)lens->nelems, (long long)nb);
    return -1;
  }
  for (int64_t d = 0; d < lens->nelems; d++) {
    int64_t v = tfs_tensor__get_as_int64(lens, d);
    if (v < 0) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "seq_lens(%lld) < 0",
                    (long long)d);
      return -1;
    }
    if (v > x->shape.dims[s->seq_dim]) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "seq_lens(%lld) > input.dims(%d)", (long long)d,
                    s->seq_dim);
      return -1;
    }
  }
  if (r > 5) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "ReverseSequenceOp : Unhandled input dimensions: %d", r);
    return -1;
  }
  return 0;
}

static void revseq_compute(tfs_kernel_ctx *c) {
  const revseq_state *s = c->state;
  const tfs_tensor *x = c->inputs[0], *lens = c->inputs[1];
  if (revseq_check(c, s, x, lens)) return;
  tfs_tensor *o = tfs_kctx_alloc_output(c, 0, &x->shape);
  if (!o || o->nelems == 0) return;
  revseq_job j;
  memset(&j, 0, sizeof j);
  j.e = tfs_elem_of(x->dtype);
  j.in = x->data;
  j.out = o->data;
  j.lens = lens;
  j.rank = x->shape.rank;
  j.seq_dim = s->seq_dim;
  j.batch_dim = s->batch_dim;
  for (int d = 0; d < j.rank; d++) j.dims[d] = x->shape.dims[d];
  tfs_arr_strides(j.dims, j.rank, j.strides);
  tfs_kctx_parallel_for(c, o->nelems, 6, revseq_range, &j);
  if (atomic_load(&j.oom)) tfs_arr_oom(c);
}

const tfs_kernel_def tfs_cpu_kernels_array_roll[] = {
    {"Roll", "CPU", "T", TFS_DT_ARRAY, NULL, roll_compute, NULL, 0, NULL},
    {"ReverseSequence", "CPU", "T", TFS_DT_ARRAY, revseq_prepare,
     revseq_compute, tfs_free, 0, NULL},
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL},
};
