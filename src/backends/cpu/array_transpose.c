/*
 * backends/cpu/array_transpose.c - kernels that permute, mirror or repeat
 * elements through the strided copy engine: Transpose, ReverseV2, Tile,
 * BroadcastTo; and MatrixBandPart.  Each returns its input (no copy) when
 * the operation leaves the element order unchanged, as TensorFlow does.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "backends/cpu/array_util.h"

/* ---- Transpose ----------------------------------------------------------- */

static int check_perm(tfs_kernel_ctx *c, const tfs_tensor *x,
                      const tfs_tensor *p, int *perm) {
  char b[TFS_SHAPE_STRLEN];
  int r = x->shape.rank;
  if (p->shape.rank != 1) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "perm must be rank 1, got shape %s",
                  tfs_shape_str(&p->shape, b, sizeof b));
    return -1;
  }
  if (p->nelems != r) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "transpose expects a vector of size %d. But input(1) is a "
                  "vector of size %lld", r, (long long)p->nelems);
    return -1;
  }
  uint8_t seen[TFS_MAX_RANK] = {0};
  for (int i = 0; i < r; i++) {
    int64_t d = tfs_tensor__get_as_int64(p, i);
    if (d < 0) d += r;
    if (d < 0 || d >= r) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "%lld is out of range [0 .. %d)",
                    (long long)d, r);
      return -1;
    }
    perm[i] = (int)d;
    seen[d] = 1;
  }
  for (int i = 0; i < r; i++) {
    if (seen[i]) continue;
    size_t off = 0;
    for (int k = 0; k < r && off + 24 < sizeof b; k++)
      off += (size_t)snprintf(b + off, sizeof b - off, k ? ",%d" : "%d",
                              perm[k]);
    b[off] = 0;
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "%d is missing from {%s}.", i, b);
    return -1;
  }
  return 0;
}

static void transpose_compute(tfs_kernel_ctx *c) {
  const tfs_tensor *x = c->inputs[0];
  int perm[TFS_MAX_RANK], r = x->shape.rank;
  if (check_perm(c, x, c->inputs[1], perm)) return;
  tfs_shape out;
  out.rank = r;
  int aligned = 1, last = -1;
  for (int i = 0; i < r; i++) {
    out.dims[i] = x->shape.dims[perm[i]];
    if (out.dims[i] == 1) continue;
    if (perm[i] < last) aligned = 0;
    last = perm[i];
  }
  if (aligned) { /* only size-1 dims move: the order is unchanged */
    tfs_arr_set_view(c, 0, x, &out, 0);
    return;
  }
  tfs_tensor *o = tfs_kctx_alloc_output(c, 0, &out);
  if (!o) return;
  int64_t in_strides[TFS_MAX_RANK];
  tfs_arr_strides(x->shape.dims, r, in_strides);
  tfs_strided p = {.rank = r};
  tfs_arr_strides(out.dims, r, p.dst_stride);
  for (int i = 0; i < r; i++) {
    p.dims[i] = out.dims[i];
    p.src_stride[i] = in_strides[perm[i]];
  }
  tfs_strided_copy(c, tfs_elem_of(x->dtype), o->data, x->data, &p);
}

/* ---- ReverseV2 ----------------------------------------------------------- */

static void reverse_compute(tfs_kernel_ctx *c) {
  const tfs_tensor *x = c->inputs[0], *ax = c->inputs[1];
  int r = x->shape.rank;
  if (ax->shape.rank != 1) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "'dims' must be 1-dimension, not %d", ax->shape.rank);
    return;
  }
  uint8_t rev[TFS_MAX_RANK] = {0};
  for (int64_t i = 0; i < ax->nelems; i++) {
    int64_t a = tfs_tensor__get_as_int64(ax, i);
    int64_t k = a < 0 ? a + r : a;
    if (k < 0 || k >= r) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "'axis'[%lld] = %lld is out of valid range [0, %d",
                    (long long)i, (long long)a, r - 1);
      return;
    }
    if (rev[k]) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "axis %lld specified more than once.", (long long)k);
      return;
    }
    rev[k] = 1;
  }
  tfs_tensor *o = tfs_kctx_alloc_output(c, 0, &x->shape);
  if (!o || x->nelems == 0) return;
  tfs_strided p = {.rank = r};
  int64_t strides[TFS_MAX_RANK], start = 0;
  tfs_arr_strides(x->shape.dims, r, strides);
  for (int i = 0; i < r; i++) {
    p.dims[i] = x->shape.dims[i];
    p.dst_stride[i] = strides[i];
    p.src_stride[i] = rev[i] ? -strides[i] : strides[i];
    if (rev[i]) start += (x->shape.dims[i] - 1) * strides[i];
  }
  tfs_elem e = tfs_elem_of(x->dtype);
  tfs_strided_copy(c, e, o->data,
                   (const char *)x->data + start * (int64_t)e.size, &p);
}

/* ---- Tile / BroadcastTo -------------------------------------------------- */

static void tile_compute(tfs_kernel_ctx *c) {
  const tfs_tensor *x = c->inputs[0], *m = c->inputs[1];
  char b[TFS_SHAPE_STRLEN];
  int r = x->shape.rank;
  if (m->shape.rank != 1) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Expected multiples to be 1-D, but got shape %s",
                  tfs_shape_str(&m->shape, b, sizeof b));
    return;
  }
  if (m->nelems != r) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Expected multiples argument to be a vector of length %d "
                  "but got length %lld", r, (long long)m->shape.dims[0]);
    return;
  }
  if (r == 0) {
    tfs_kctx_set_output(c, 0, tfs_tensor_ref(c->inputs[0]));
    return;
  }
  tfs_shape out;
  out.rank = r;
  int no_tile = 1;
  tfs_strided p = {.rank = 0};
  int64_t strides[TFS_MAX_RANK];
  tfs_arr_strides(x->shape.dims, r, strides);
  for (int i = 0; i < r; i++) {
    int64_t k = tfs_tensor__get_as_int64(m, i);
    if (k < 0) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "Expected multiples[%d] >= 0, but got %lld", i,
                    (long long)k);
      return;
    }
    if (tfs_mul_overflow_i64(x->shape.dims[i], k, &out.dims[i])) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "Tile output is too large");
      return;
    }
    no_tile &= k == 1;
    tfs_strided_push(&p, k, 0, 0);
    tfs_strided_push(&p, x->shape.dims[i], 0, strides[i]);
  }
  if (no_tile) {
    tfs_kctx_set_output(c, 0, tfs_tensor_ref(c->inputs[0]));
    return;
  }
  tfs_tensor *o = tfs_kctx_alloc_output(c, 0, &out);
  if (!o || o->nelems == 0) return;
  tfs_arr_strides(p.dims, p.rank, p.dst_stride);
  tfs_strided_copy(c, tfs_elem_of(x->dtype), o->data, x->data, &p);
}

static int shape_from_tensor(tfs_kernel_ctx *c, const tfs_tensor *t,
                             tfs_shape *s) {
  char b[TFS_SHAPE_STRLEN];
  if (t->shape.rank != 1) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "shape must be a vector of {int32,int64}, got shape %s",
                  tfs_shape_str(&t->shape, b, sizeof b));
    return -1;
  }
  if (t->nelems > TFS_MAX_RANK) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Shape of rank %lld exceeds the maximum rank %d",
                  (long long)t->nelems, TFS_MAX_RANK);
    return -1;
  }
  s->rank = (int)t->nelems;
  for (int i = 0; i < s->rank; i++) {
    s->dims[i] = tfs_tensor__get_as_int64(t, i);
    if (s->dims[i] < 0) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "Dimension %lld must be >= 0",
                    (long long)s->dims[i]);
      return -1;
    }
  }
  int64_t n;
  if (tfs_shape_num_elements_checked(s, &n, c->st)) {
    tfs_kctx_fail_status(c, c->st);
    return -1;
  }
  return 0;
}

static void broadcast_to_compute(tfs_kernel_ctx *c) {
  const tfs_tensor *x = c->inputs[0];
  tfs_shape out;
  char a[TFS_SHAPE_STRLEN], b[TFS_SHAPE_STRLEN];
  if (shape_from_tensor(c, c->inputs[1], &out)) return;
  if (tfs_shape_equal(&out, &x->shape)) {
    tfs_kctx_set_output(c, 0, tfs_tensor_ref(c->inputs[0]));
    return;
  }
  int r = out.rank, xr = x->shape.rank;
  if (xr > r) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Rank of input (%d) must be no greater than rank of output "
                  "shape (%d).", xr, r);
    return;
  }
  tfs_tensor *o = tfs_kctx_alloc_output(c, 0, &out);
  if (!o || o->nelems == 0) return;
  tfs_strided p = {.rank = r};
  int64_t xs[TFS_MAX_RANK];
  tfs_arr_strides(x->shape.dims, xr, xs);
  tfs_arr_strides(out.dims, r, p.dst_stride);
  int incompatible = 0, unable = 0;
  for (int i = 0; i < r; i++) {
    int k = i - (r - xr);
    int64_t d = k >= 0 ? x->shape.dims[k] : 1;
    p.dims[i] = out.dims[i];
    p.src_stride[i] = d == 1 ? 0 : xs[k];
    if (d != 1 && d != out.dims[i]) {
      if (out.dims[i] == 1)
        unable = 1;
      else
        incompatible = 1;
    }
  }
  if (incompatible || unable) {
    if (incompatible)
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "Incompatible shapes: %s vs. %s",
                    tfs_shape_str(&x->shape, a, sizeof a),
                    tfs_shape_str(&out, b, sizeof b));
    else
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "Unable to broadcast tensor of shape %s to tensor of "
                    "shape %s", tfs_shape_str(&x->shape, a, sizeof a),
                    tfs_shape_str(&out, b, sizeof b));
    return;
  }
  tfs_strided_copy(c, tfs_elem_of(x->dtype), o->data, x->data, &p);
}

/* ---- MatrixBandPart ------------------------------------------------------ */

typedef struct {
  tfs_elem e;
  const char *src;
  char *dst;
  int64_t rows, cols, lower, upper;
  int in_place;
  atomic_int oom;
} band_job;

static void band_range(void *arg, int64_t begin, int64_t end) {
  band_job *j = arg;
  size_t es = j->e.size;
  for (int64_t r = begin; r < end; r++) {
    int64_t i = r % j->rows;
    int64_t lo = j->lower < 0 ? 0 : i - j->lower;
    int64_t hi = j->upper < 0 ? j->cols : i + j->upper + 1;
    /* a row below the band's reach (more rows than columns) is all zero */
    if (lo < 0) lo = 0;
    if (lo > j->cols) lo = j->cols;
    if (hi > j->cols) hi = j->cols;
    if (hi < lo) hi = lo;
    char *d = j->dst + (size_t)(r * j->cols) * es;
    const char *s = j->src + (size_t)(r * j->cols) * es;
    if (!j->e.is_string) {
      memset(d, 0, (size_t)lo * es);
      memset(d + (size_t)hi * es, 0, (size_t)(j->cols - hi) * es);
    }
    if (!j->in_place &&
        tfs_elem_copy(j->e, d + (size_t)lo * es, s + (size_t)lo * es,
                      hi - lo))
      atomic_store(&j->oom, 1);
  }
}

static void band_part_compute(tfs_kernel_ctx *c) {
  const tfs_tensor *x = c->inputs[0];
  char b[TFS_SHAPE_STRLEN];
  int r = x->shape.rank;
  if (r < 2) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "input must be at least 2-dim, received shape: %s",
                  tfs_shape_str(&x->shape, b, sizeof b));
    return;
  }
  static const char *const names[] = {"num_lower", "num_upper"};
  int64_t lim[2] = {x->shape.dims[r - 2], x->shape.dims[r - 1]}, v[2];
  for (int k = 0; k < 2; k++) {
    const tfs_tensor *t = c->inputs[1 + k];
    if (t->shape.rank != 0) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "%s must be scalar, got shape %s",
                    names[k], tfs_shape_str(&t->shape, b, sizeof b));
      return;
    }
    v[k] = tfs_arr_scalar(t);
    if (v[k] > lim[k]) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "%s must be negative or less or equal to number of %s "
                    "(%lld) got: %lld", names[k], k ? "columns" : "rows",
                    (long long)lim[k], (long long)v[k]);
      return;
    }
  }
  if (x->nelems == 0 || ((v[0] < 0 || v[0] == lim[0]) &&
                         (v[1] < 0 || v[1] == lim[1]))) {
    tfs_kctx_set_output(c, 0, tfs_tensor_ref(c->inputs[0]));
    return;
  }
  tfs_tensor *o = tfs_kctx_forward_or_alloc(c, 0, 0, &x->shape);
  if (!o) return;
  band_job j = {tfs_elem_of(x->dtype), x->data, o->data, lim[0], lim[1],
                v[0], v[1], o == x, 0};
  tfs_kctx_parallel_for(c, x->nelems / lim[1], lim[1] + 4, band_range, &j);
  if (atomic_load(&j.oom)) tfs_arr_oom(c);
}

#define ANY NULL, 0
#define ARR "T", TFS_DT_ARRAY

const tfs_kernel_def tfs_cpu_kernels_array_transpose[] = {
    {"Transpose", "CPU", ARR, NULL, transpose_compute, NULL, 0, NULL},
    {"ReverseV2", "CPU", ARR, NULL, reverse_compute, NULL, 0, NULL},
    {"Tile", "CPU", ARR, NULL, tile_compute, NULL, 0, NULL},
    {"BroadcastTo", "CPU", ARR, NULL, broadcast_to_compute, NULL, 0, NULL},
    {"MatrixBandPart", "CPU", ARR, NULL, band_part_compute, NULL, 0, NULL},
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL},
};
