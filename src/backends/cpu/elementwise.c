/*
 * backends/cpu/elementwise.c - broadcasting, dimension collapsing and work
 * splitting for elementwise kernels.
 */
#include "backends/cpu/elementwise.h"

#include <string.h>

#include "core/alloc.h"

typedef struct {
  tfs_bin_fn fn;
  tfs_un_fn ufn;
  size_t esize;  /* input element size */
  size_t oesize; /* output element size */
  const char *error;
  int64_t cost;
  tfs_code code;
} ew_state;

static int prepare(tfs_kernel_init *ki, int binary) {
  tfs_dtype dt = ki->in_types[0];
  tfs_bin_fn fn = NULL;
  tfs_un_fn ufn = NULL;
  const char *error;
  int cost;
  tfs_code code;
  if (binary) {
    const tfs_bin_table *t = ki->kdata;
    fn = (unsigned)dt < 24 ? t->fn[dt] : NULL;
    error = t->error;
    cost = t->cost ? t->cost : 1;
    code = t->code;
  } else {
    const tfs_un_table *t = ki->kdata;
    ufn = (unsigned)dt < 24 ? t->fn[dt] : NULL;
    error = t->error;
    cost = t->cost ? t->cost : 4;
    code = t->code;
  }
  if (!fn && !ufn)
    return tfs_ki_error(ki, TFS_UNIMPLEMENTED, "%s is not implemented for %s",
                        ki->op->name, tfs_dtype_name(dt));
  ew_state *s = tfs_malloc(sizeof(*s));
  if (!s) return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  s->fn = fn;
  s->ufn = ufn;
  s->esize = tfs_dtype__storage_size(dt);
  s->oesize = tfs_dtype__storage_size(ki->out_types[0]);
  s->error = error;
  s->cost = cost;
  s->code = code ? code : TFS_INVALID_ARGUMENT;
  ki->state = s;
  return 0;
}

int tfs_binary_prepare(tfs_kernel_init *ki) { return prepare(ki, 1); }
int tfs_unary_prepare(tfs_kernel_init *ki) { return prepare(ki, 0); }

int tfs_broadcast_shapes(const tfs_shape *a, const tfs_shape *b,
                         tfs_shape *out, tfs_status *st) {
  if (tfs_shape_broadcast(a, b, out) == 0) return 0;
  char x[TFS_SHAPE_STRLEN], y[TFS_SHAPE_STRLEN];
  tfs_status_setf(st, TFS_INVALID_ARGUMENT, "Incompatible shapes: %s vs. %s",
                  tfs_shape_str(a, x, sizeof x), tfs_shape_str(b, y, sizeof y));
  return -1;
}

/* Chunks run on several pool threads at once; a failing chunk records its
 * code with an atomic store so that concurrent chunks never race on the
 * job's result (any non-zero code selects the same message). */
static inline void record_rc(int *dst, int rc) {
  if (rc) __atomic_store_n(dst, rc, __ATOMIC_RELAXED);
}

/* ---- contiguous case: split [0, n) over the pool ------------------------ */

typedef struct {
  const ew_state *s;
  const char *a, *b;
  char *o;
  int mode;
  int rc;
} flat_job;

static void flat_range(void *arg, int64_t begin, int64_t end) {
  flat_job *j = arg;
  size_t es = j->s->esize;
  const char *a = j->a + (j->mode == TFS_BIN_SV ? 0 : (size_t)begin * es);
  const char *b = j->b + (j->mode == TFS_BIN_VS ? 0 : (size_t)begin * es);
  record_rc(&j->rc, j->s->fn(a, b, j->o + (size_t)begin * j->s->oesize,
                             end - begin, j->mode));
}

/* ---- general case: strided outer loop, contiguous inner ------------------ */

typedef struct {
  const ew_state *s;
  const char *a, *b;
  char *o;
  int rank;            /* collapsed rank, >= 2 */
  int64_t dims[TFS_MAX_RANK];
  int64_t sa[TFS_MAX_RANK], sb[TFS_MAX_RANK]; /* element strides */
  int mode;            /* of the innermost dimension */
  int rc;
} bcast_job;

static void bcast_range(void *arg, int64_t begin, int64_t end) {
  bcast_job *j = arg;
  int r = j->rank;
  int64_t inner = j->dims[r - 1];
  size_t es = j->s->esize;
  for (int64_t row = begin; row < end; row++) {
    /* offsets of this row from its multi-index */
    int64_t rem = row, oa = 0, ob = 0;
    for (int d = r - 2; d >= 0; d--) {
      int64_t idx = rem % j->dims[d];
      rem /= j->dims[d];
      oa += idx * j->sa[d];
      ob += idx * j->sb[d];
    }
    record_rc(&j->rc, j->s->fn(j->a + (size_t)oa * es, j->b + (size_t)ob * es,
                               j->o + (size_t)(row * inner) * j->s->oesize,
                               inner, j->mode));
  }
}

static int collapse(const tfs_shape *out, const tfs_shape *a,
                    const tfs_shape *b, bcast_job *j) {
  int r = out->rank;
  int64_t sa[TFS_MAX_RANK], sb[TFS_MAX_RANK];
  int64_t ca = 1, cb = 1;
  for (int d = r - 1; d >= 0; d--) {
    int ia = a->rank - r + d, ib = b->rank - r + d;
    int64_t da = ia >= 0 ? a->dims[ia] : 1, db = ib >= 0 ? b->dims[ib] : 1;
    sa[d] = da == 1 ? 0 : ca;
    sb[d] = db == 1 ? 0 : cb;
    ca *= da;
    cb *= db;
  }
  int n = 0;
  for (int d = 0; d < r; d++) {
    if (out->dims[d] == 1) continue;
    if (n > 0) {
      int p = n - 1;
      int64_t dd = out->dims[d];
      /* p is the merged dimension before d: compare with its strides */
      int ok_a = (j->sa[p] == 0 && sa[d] == 0) ||
                 (sa[d] != 0 && j->sa[p] == sa[d] * dd);
      int ok_b = (j->sb[p] == 0 && sb[d] == 0) ||
                 (sb[d] != 0 && j->sb[p] == sb[d] * dd);
      if (ok_a && ok_b) {
        j->dims[p] *= dd;
        j->sa[p] = sa[d];
        j->sb[p] = sb[d];
        continue;
      }
    }
    j->dims[n] = out->dims[d];
    j->sa[n] = sa[d];
    j->sb[n] = sb[d];
    n++;
  }
  return n;
}

void tfs_binary_compute(tfs_kernel_ctx *c) {
  const ew_state *s = c->state;
  const tfs_tensor *a = c->inputs[0], *b = c->inputs[1];
  tfs_shape os;
  if (tfs_broadcast_shapes(&a->shape, &b->shape, &os, c->st)) {
    tfs_kctx_fail_status(c, c->st);
    return;
  }
  int64_t n = tfs_shape_num_elements(&os);
  int same_a = tfs_shape_equal(&a->shape, &os);
  int same_b = tfs_shape_equal(&b->shape, &os);
  tfs_tensor *o;
  if (same_a)
    o = tfs_kctx_forward_or_alloc(c, 0, 0, &os);
  else if (same_b)
    o = tfs_kctx_forward_or_alloc(c, 1, 0, &os);
  else
    o = tfs_kctx_alloc_output(c, 0, &os);
  if (!o || n == 0) return;
  int rc = 0;
  if ((same_a && same_b) || (same_a && b->nelems == 1) ||
      (same_b && a->nelems == 1)) {
    flat_job j = {s, a->data, b->data, o->data,
                  same_a && same_b ? TFS_BIN_VV
                  : same_a         ? TFS_BIN_VS
                                   : TFS_BIN_SV,
                  0};
    tfs_kctx_parallel_for(c, n, s->cost, flat_range, &j);
    rc = __atomic_load_n(&j.rc, __ATOMIC_RELAXED);
  } else {
    bcast_job j;
    memset(&j, 0, sizeof j);
    j.s = s;
    j.a = a->data;
    j.b = b->data;
    j.o = o->data;
    int r = collapse(&os, &a->shape, &b->shape, &j);
    if (r == 0) { /* every dim is 1 */
      j.dims[0] = 1;
      j.sa[0] = j.sb[0] = 0;
      r = 1;
    }
    if (r == 1) { /* shift to rank 2 with one row */
      j.dims[1] = j.dims[0];
      j.sa[1] = j.sa[0];
      j.sb[1] = j.sb[0];
      j.dims[0] = 1;
      j.sa[0] = j.sb[0] = 0;
      r = 2;
    }
    j.rank = r;
    int64_t ia = j.sa[r - 1], ib = j.sb[r - 1];
    j.mode = ia && ib ? TFS_BIN_VV : ia ? TFS_BIN_VS : TFS_BIN_SV;
    int64_t rows = n / j.dims[r - 1];
    tfs_kctx_parallel_for(c, rows, j.dims[r - 1] * s->cost, bcast_range, &j);
    rc = __atomic_load_n(&j.rc, __ATOMIC_RELAXED);
  }
  if (rc) tfs_kctx_fail(c, s->code, "%s", s->error);
}

typedef struct {
  const ew_state *s;
  const char *x;
  char *o;
  int rc;
} un_job;

static void un_range(void *arg, int64_t begin, int64_t end) {
  un_job *j = arg;
  size_t es = j->s->esize;
  record_rc(&j->rc, j->s->ufn(j->x + (size_t)begin * es,
                              j->o + (size_t)begin * j->s->oesize,
                              end - begin));
}

void tfs_unary_compute(tfs_kernel_ctx *c) {
  const ew_state *s = c->state;
  const tfs_tensor *x = c->inputs[0];
  tfs_tensor *o = tfs_kctx_forward_or_alloc(c, 0, 0, &x->shape);
  if (!o || x->nelems == 0) return;
  un_job j = {s, x->data, o->data, 0};
  tfs_kctx_parallel_for(c, x->nelems, s->cost, un_range, &j);
  if (__atomic_load_n(&j.rc, __ATOMIC_RELAXED))
    tfs_kctx_fail(c, s->code, "%s", s->error);
}
