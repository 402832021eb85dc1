/*
 * backends/cpu/unique.c - Unique, UniqueWithCounts and their V2 forms
 * along an axis (elements, or slices along the axis, in order of first
 * appearance; floats compare by value, so 0.0 and -0.0 are one element
 * and every NaN is its own), LowerBound/UpperBound (a binary search per
 * row) and Bincount/DenseBincount (values outside [0, size) are not
 * counted; negative ones fail as in TensorFlow).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/hashmap.h"
#include "core/tstring.h"
#include "backends/cpu/array_util.h"
#include "backends/cpu/segment_util.h"

/* ---- Unique -------------------------------------------------------------- */

/* The input seen as [outer, n, inner]: slice j is every (i, j, k). */
typedef struct {
  const tfs_tensor *x;
  int64_t outer, n, inner;
  size_t es;
} uniq_view;

static const char *elem_at(const uniq_view *v, int64_t i, int64_t j,
                           int64_t k) {
  return (const char *)v->x->data +
         (size_t)((i * v->n + j) * v->inner + k) * v->es;
}

static uint64_t elem_hash(tfs_dtype dt, const char *p, size_t es,
                          uint64_t h) {
  if (dt == TFS_STRING) {
    const tfs_tstring *s = (const tfs_tstring *)p;
    return tfs_hash_bytes(tfs_tstring_data(s), tfs_tstring_size(s), h);
  }
  if (tfs_sval_kind(dt) == TFS_SV_FLOAT) {
    double d = tfs_sval_load(dt, p, 0).f;
    if (d == 0) d = 0; /* -0.0 hashes as 0.0 */
    return tfs_hash_bytes(&d, sizeof d, h);
  }
  return tfs_hash_bytes(p, es, h);
}

static int elem_eq(tfs_dtype dt, const char *a, const char *b, size_t es) {
  if (dt == TFS_STRING) {
    const tfs_tstring *s = (const tfs_tstring *)a, *t = (const tfs_tstring *)b;
    size_t n = tfs_tstring_size(s);
    return n == tfs_tstring_size(t) &&
           memcmp(tfs_tstring_data(s), tfs_tstring_data(t), n) == 0;
  }
  if (tfs_sval_kind(dt) == TFS_SV_FLOAT)
    return tfs_sval_load(dt, a, 0).f == tfs_sval_load(dt, b, 0).f;
  return memcmp(a, b, es) == 0;
}

static uint64_t slice_hash(const uniq_view *v, int64_t j) {
  uint64_t h = 0x9e3779b97f4a7c15ull;
  for (int64_t i = 0; i < v->outer; i++)
    for (int64_t k = 0; k < v->inner; k++)
      h = elem_hash(v->x->dtype, elem_at(v, i, j, k), v->es, h);
  return h;
}

static int slice_eq(const uniq_view *v, int64_t a, int64_t b) {
  for (int64_t i = 0; i < v->outer; i++)
    for (int64_t k = 0; k < v->inner; k++)
      if (!elem_eq(v->x->dtype, elem_at(v, i, a, k), elem_at(v, i, b, k),
                   v->es))
        return 0;
  return 1;
}

/* idx[j] = the number of the unique slice equal to slice j; first[u] =
 * the first slice of unique number u.  Returns the number of unique
 * slices, or -1 when memory ran out. */
static int64_t unique_slices(const uniq_view *v, int64_t *idx,
                             int64_t *first) {
  int64_t cap = 16;
  while (cap < 2 * v->n) cap *= 2;
  int64_t *table = tfs_malloc((size_t)cap * sizeof(int64_t));
  if (!table) return -1;
  for (int64_t t = 0; t < cap; t++) table[t] = -1;
  int64_t nu = 0;
  for (int64_t j = 0; j < v->n; j++) {
    int64_t t = (int64_t)(slice_hash(v, j) & (uint64_t)(cap - 1));
    while (table[t] >= 0 && !slice_eq(v, first[table[t]], j))
      t = (t + 1) & (cap - 1);
    if (table[t] < 0) {
      table[t] = nu;
      first[nu++] = j;
    }
    idx[j] = table[t];
  }
  tfs_free(table);
  return nu;
}

/* [outer, n, inner] of x for axis input `ax` (NULL: Unique), or -1 after
 * failing c; *axis receives the axis (-1: the whole vector). */
static int unique_view_of(tfs_kernel_ctx *c, const tfs_tensor *x,
                          const tfs_tensor *ax, uniq_view *v, int *axis) {
  int r = x->shape.rank;
  v->x = x;
  v->es = tfs_dtype__storage_size(x->dtype);
  v->outer = v->inner = 1;
  v->n = x->nelems;
  *axis = -1;
  if (x->nelems > INT32_MAX) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "unique does not support input "
                  "tensors larger than 2147483647 elements");
    return -1;
  }
  if (ax) {
    if (ax->shape.rank != 1) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "axis expects a 1D vector.");
      return -1;
    }
    if (ax->nelems > 1) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "axis does not support input "
                    "tensors larger than 1 elements");
      return -1;
    }
  }
  if (!ax || ax->nelems == 0) {
    if (r != 1) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "unique expects a 1D vector.");
      return -1;
    }
    return 0;
  }
  int64_t a = tfs_arr_scalar(ax);
  if (a < 0) a += r;
  if (a < 0 || a >= r) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "axis has to be between [0, %d)",
                  r);
    return -1;
  }
  v->outer = tfs_arr_prod(x->shape.dims, 0, (int)a);
  v->n = x->shape.dims[a];
  v->inner = tfs_arr_prod(x->shape.dims, (int)a + 1, r);
  *axis = (int)a;
  return 0;
}

static void store_index(tfs_tensor *t, int64_t i, int64_t v) {
  if (t->dtype == TFS_INT32)
    ((int32_t *)t->data)[i] = (int32_t)v;
  else
    ((int64_t *)t->data)[i] = v;
}

/* y from the unique slices first[0..nu), x's shape with dim `axis` nu. */
static int unique_output(tfs_kernel_ctx *c, const uniq_view *v, int axis,
                         const int64_t *first, int64_t nu) {
  tfs_shape ys = v->x->shape;
  if (axis < 0) tfs_shape_1d(&ys, nu);
  else ys.dims[axis] = nu;
  tfs_tensor *y = tfs_kctx_alloc_output(c, 0, &ys);
  if (!y) return -1;
  tfs_elem e = tfs_elem_of(v->x->dtype);
  for (int64_t i = 0; i < v->outer; i++)
    for (int64_t u = 0; u < nu; u++) {
      char *d = (char *)y->data + (size_t)((i * nu + u) * v->inner) * v->es;
      if (tfs_elem_copy(e, d, elem_at(v, i, first[u], 0), v->inner)) {
        tfs_arr_oom(c);
        return -1;
      }
    }
  return 0;
}

static void unique_compute(tfs_kernel_ctx *c) {
  const tfs_tensor *x = c->inputs[0];
  const tfs_tensor *ax = c->ninputs > 1 ? c->inputs[1] : NULL;
  uniq_view v;
  int axis;
  if (unique_view_of(c, x, ax, &v, &axis)) return;
  tfs_shape is;
  tfs_shape_1d(&is, v.n);
  tfs_tensor *idx = tfs_kctx_alloc_output(c, 1, &is);
  if (!idx) return;
  size_t bytes = (size_t)(v.n > 0 ? v.n : 1) * sizeof(int64_t);
  int64_t *ix = tfs_malloc(bytes), *first = tfs_malloc(bytes);
  int64_t nu = ix && first ? unique_slices(&v, ix, first) : -1;
  if (nu < 0) {
    tfs_arr_oom(c);
    goto done;
  }
  for (int64_t j = 0; j < v.n; j++) store_index(idx, j, ix[j]);
  if (unique_output(c, &v, axis, first, nu)) goto done;
  if (c->noutputs > 2) {
    tfs_shape cs;
    tfs_shape_1d(&cs, nu);
    tfs_tensor *cnt = tfs_kctx_alloc_output(c, 2, &cs);
    if (!cnt) goto done;
    memset(cnt->data, 0, cnt->nbytes);
    for (int64_t j = 0; j < v.n; j++)
      store_index(cnt, ix[j],
                  (cnt->dtype == TFS_INT32 ? ((int32_t *)cnt->data)[ix[j]]
                                           : ((int64_t *)cnt->data)[ix[j]]) +
                      1);
  }
done:
  tfs_free(ix);
  tfs_free(first);
}

/* ---- LowerBound / UpperBound --------------------------------------------- */

/* a < b for elements of dt. */
static int elem_less(tfs_dtype dt, const void *base, int64_t i,
                     const void *vbase, int64_t j) {
  tfs_sval a = tfs_sval_load(dt, base, i), b = tfs_sval_load(dt, vbase, j);
  int k = tfs_sval_kind(dt);
  if (k == TFS_SV_FLOAT) return a.f < b.f;
  if (k == TFS_SV_UNSIGNED) return (uint64_t)a.i < (uint64_t)b.i;
  return a.i < b.i;
}

static void bound_compute(tfs_kernel_ctx *c) {
  const tfs_tensor *s = c->inputs[0], *v = c->inputs[1];
  int upper = *(const int *)c->state;
  for (int i = 0; i < 2; i++)
    if (c->inputs[i]->shape.rank != 2) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "Shape must be rank 2 but is rank %d for `%s` argument",
                    c->inputs[i]->shape.rank,
                    i ? "values" : "sorted_inputs");
      return;
    }
  if (s->shape.dims[0] != v->shape.dims[0]) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Leading dim_size of both tensors must match.");
    return;
  }
  tfs_tensor *o = tfs_kctx_alloc_output(c, 0, &v->shape);
  if (!o || o->nelems == 0) return;
  int64_t b = s->shape.dims[0];
  int64_t n = b ? s->nelems / b : 0, m = b ? v->nelems / b : 0;
  if (o->dtype == TFS_INT32 && n > INT32_MAX) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "trying to cast index to int32 that is out of range");
    return;
  }
  for (int64_t r = 0; r < b; r++)
    for (int64_t j = 0; j < m; j++) {
      int64_t lo = 0, hi = n, vj = r * m + j;
      while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        int go_right = upper ? !elem_less(s->dtype, v->data, vj, s->data,
                                          r * n + mid)
                             : elem_less(s->dtype, s->data, r * n + mid,
                                         v->data, vj);
        if (go_right) lo = mid + 1;
        else hi = mid;
      }
      store_index(o, vj, lo);
    }
}

/* ---- Bincount / DenseBincount -------------------------------------------- */

/* out[row * size + value] gets 1 (binary), weight w[i] or a count. */
static void bin_add(tfs_tensor *o, int64_t at, const tfs_tensor *w,
                    int64_t i, int binary) {
  tfs_dtype dt = o->dtype;
  tfs_sval one = {.i = 1};
  if (tfs_sval_kind(dt) == TFS_SV_FLOAT) one.f = 1;
  if (binary) {
    tfs_sval_store(dt, o->data, at, one);
    return;
  }
  tfs_sval add = w->nelems ? tfs_sval_load(dt, w->data, i) : one;
  tfs_sval cur = tfs_sval_load(dt, o->data, at);
  tfs_sval_store(dt, o->data, at,
                 tfs_sval_combine(tfs_sval_kind(dt), TFS_SR_SUM, cur, add));
}

static int bincount_args(tfs_kernel_ctx *c, const tfs_tensor *arr,
                         const tfs_tensor *w, int64_t *size) {
  const tfs_tensor *st = c->inputs[1];
  char a[TFS_SHAPE_STRLEN];
  if (st->shape.rank != 0) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Shape must be rank 0 but is rank %d", st->shape.rank);
    return -1;
  }
  if (!c->state && w->nelems != 0 && w->nelems != arr->nelems) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Input indices and weights must have the same size.");
    return -1;
  }
  if (w->nelems != 0 && !tfs_shape_equal(&w->shape, &arr->shape)) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "`weights` must be the same shape as `arr` or a length-0 "
                  "`Tensor`, in which case it acts as all weights equal to "
                  "1. Received %s", tfs_shape_str(&w->shape, a, sizeof a));
    return -1;
  }
  *size = tfs_arr_scalar(st);
  if (*size < 0) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "size (%lld) must be non-negative",
                  (long long)*size);
    return -1;
  }
  for (int64_t i = 0; i < arr->nelems; i++) {
    int64_t v = tfs_tensor__get_as_int64(arr, i);
    if (v >= 0) continue;
    if (c->state && arr->shape.rank == 2)
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "Input 'in' must be non-negative! Negative input value "
                    "found: %lld", (long long)v);
    else
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "Input arr must be non-negative!");
    return -1;
  }
  return 0;
}

static void bincount_compute(tfs_kernel_ctx *c) {
  const tfs_tensor *arr = c->inputs[0], *w = c->inputs[2];
  const int *binary_attr = c->state;
  int binary = binary_attr ? *binary_attr : 0;
  int64_t size;
  if (binary_attr && arr->shape.rank > 2) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Shape must be at most rank 2 but is rank %d",
                  arr->shape.rank);
    return;
  }
  if (bincount_args(c, arr, w, &size)) return;
  int rows2 = binary_attr && arr->shape.rank == 2;
  int64_t nrows = rows2 ? arr->shape.dims[0] : 1;
  tfs_shape os;
  if (rows2) tfs_shape_2d(&os, nrows, size);
  else tfs_shape_1d(&os, size);
  tfs_tensor *o = tfs_kctx_alloc_output(c, 0, &os);
  if (!o) return;
  memset(o->data, 0, o->nbytes);
  int64_t per_row = nrows ? arr->nelems / (nrows ? nrows : 1) : 0;
  for (int64_t i = 0; i < arr->nelems; i++) {
    int64_t val = tfs_tensor__get_as_int64(arr, i);
    if (val >= size) continue;
    int64_t row = rows2 && per_row ? i / per_row : 0;
    bin_add(o, row * size + val, w, i, binary);
  }
}

static int bound_prepare(tfs_kernel_init *ki) {
  ki->state = (void *)ki->kdata;
  return 0;
}

static int dense_bincount_prepare(tfs_kernel_init *ki) {
  int *s = tfs_calloc(1, sizeof(int));
  if (!s) return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  tfs_attrs_get_bool(ki->attrs, "binary_output", s);
  ki->state = s;
  return 0;
}

static const int kLower = 0, kUpper = 1;

#define UNIQUE_TYPES                                                       \
  (TFS_DT_REAL | TFS_DT_BIT(TFS_BOOL) | TFS_DT_BIT(TFS_STRING))
#define BIN_TYPES                                                          \
  (TFS_DT_BIT(TFS_INT32) | TFS_DT_BIT(TFS_INT64) | TFS_DT_BIT(TFS_FLOAT) | \
   TFS_DT_BIT(TFS_DOUBLE))

const tfs_kernel_def tfs_cpu_kernels_unique[] = {
    {"Unique", "CPU", "T", UNIQUE_TYPES, NULL, unique_compute, NULL, 0, NULL},
    {"UniqueV2", "CPU", "T", UNIQUE_TYPES, NULL, unique_compute, NULL, 0,
     NULL},
    {"UniqueWithCounts", "CPU", "T", UNIQUE_TYPES, NULL, unique_compute, NULL,
     0, NULL},
    {"UniqueWithCountsV2", "CPU", "T", UNIQUE_TYPES, NULL, unique_compute,
     NULL, 0, NULL},
    {"LowerBound", "CPU", "T", TFS_DT_REAL, bound_prepare, bound_compute,
     NULL, 0, &kLower},
    {"UpperBound", "CPU", "T", TFS_DT_REAL, bound_prepare, bound_compute,
     NULL, 0, &kUpper},
    {"Bincount", "CPU", "T", BIN_TYPES, NULL, bincount_compute, NULL, 0,
     NULL},
    {"DenseBincount", "CPU", "T", BIN_TYPES, dense_bincount_prepare,
     bincount_compute, tfs_free, 0, NULL},
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL},
};
