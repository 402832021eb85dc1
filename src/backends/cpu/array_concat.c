/*
 * backends/cpu/array_concat.c - joining and splitting along an axis:
 * ConcatV2, Concat, Pack, Unpack, Split, SplitV.  Every tensor is seen as
 * [outer, inner] around the axis; rows are copied with memcpy and split
 * over the intra-op pool.  Splits along the outermost non-trivial axis
 * return views of the input's buffer, as TensorFlow's aligned slices do.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "backends/cpu/array_util.h"

/* ---- the shared row mover ------------------------------------------------ */

/* n pieces; piece i is [outer, width[i]] and sits at column offset[i] of
 * the joined [outer, total] tensor. */
typedef struct {
  tfs_elem e;
  int n, join;
  int64_t outer, total;
  const int64_t *width, *offset;
  char *const *parts;  /* piece data (sources when joining) */
  char *whole;         /* the joined tensor */
  atomic_int oom;
} rows_job;

static void rows_range(void *arg, int64_t begin, int64_t end) {
  rows_job *j = arg;
  size_t es = j->e.size;
  for (int64_t r = begin; r < end; r++) {
    for (int i = 0; i < j->n; i++) {
      int64_t w = j->width[i];
      if (!w || !j->parts[i]) continue;
      char *whole = j->whole + (size_t)(r * j->total + j->offset[i]) * es;
      char *part = j->parts[i] + (size_t)(r * w) * es;
      int rc = j->join ? tfs_elem_copy(j->e, whole, part, w)
                       : tfs_elem_copy(j->e, part, whole, w);
      if (rc) atomic_store(&j->oom, 1);
    }
  }
}

static void move_rows(tfs_kernel_ctx *c, rows_job *j) {
  atomic_init(&j->oom, 0);
  int64_t cost = j->total * (int64_t)j->e.size / 8 + 10 * j->n;
  if (j->e.is_string) cost = j->total * 40;
  tfs_kctx_parallel_for(c, j->outer, cost, rows_range, j);
  if (atomic_load(&j->oom)) tfs_arr_oom(c);
}

/* Scratch arrays for n pieces: width, offset (int64) and parts. */
static int pieces(tfs_kernel_ctx *c, int n, int64_t **w, int64_t **off,
                  char ***parts) {
  size_t bytes = (size_t)n * (2 * sizeof(int64_t) + sizeof(char *));
  char *m = tfs_kctx_scratch(c, bytes ? bytes : 1);
  if (!m) return -1;
  *w = (int64_t *)m;
  *off = *w + n;
  *parts = (char **)(*off + n);
  return 0;
}

/* ---- ConcatV2 / Concat --------------------------------------------------- */

static int concat_check(tfs_kernel_ctx *c, int first, int n, int axis) {
  const tfs_shape *s0 = &c->inputs[first]->shape;
  char a[TFS_SHAPE_STRLEN], b[TFS_SHAPE_STRLEN];
  for (int i = 0; i < n; i++) {
    const tfs_shape *s = &c->inputs[first + i]->shape;
    if (s->rank != s0->rank) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "ConcatOp : Ranks of all input tensors should match: "
                    "shape[0] = %s vs. shape[%d] = %s",
                    tfs_shape_str(s0, a, sizeof a), i,
                    tfs_shape_str(s, b, sizeof b));
      return -1;
    }
    for (int k = 0; k < s->rank; k++) {
      if (k == axis || s->dims[k] == s0->dims[k]) continue;
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "ConcatOp : Dimension %d in both shapes must be equal: "
                    "shape[0] = %s vs. shape[%d] = %s", k,
                    tfs_shape_str(s0, a, sizeof a), i,
                    tfs_shape_str(s, b, sizeof b));
      return -1;
    }
  }
  return 0;
}

static void concat_common(tfs_kernel_ctx *c, int first, int n,
                          const tfs_tensor *axis_t, const char *axis_name) {
  char b[TFS_SHAPE_STRLEN];
  const tfs_shape *as = &axis_t->shape;
  if (!(as->rank == 0 || (as->rank == 1 && as->dims[0] == 1))) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "%s tensor should be a scalar integer, but got shape %s",
                  axis_name, tfs_shape_str(as, b, sizeof b));
    return;
  }
  const tfs_tensor *x0 = c->inputs[first];
  int r = x0->shape.rank;
  int64_t cd = tfs_arr_scalar(axis_t), axis = cd < 0 ? cd + r : cd;
  if (!((axis >= 0 && axis < r) || cd == 0)) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "ConcatOp : Expected concatenating dimensions in the range "
                  "[%d, %d), but got %lld", -r, r, (long long)cd);
    return;
  }
  if (r == 0) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "ConcatOp : Can't concatenate scalars (use tf.stack "
                  "instead)");
    return;
  }
  if (concat_check(c, first, n, (int)axis)) return;
  int64_t *w, *off;
  char **parts;
  if (pieces(c, n, &w, &off, &parts)) return;
  int64_t outer = tfs_arr_prod(x0->shape.dims, 0, (int)axis), total = 0;
  int64_t cat = 0;
  for (int i = 0; i < n; i++) {
    const tfs_tensor *x = c->inputs[first + i];
    cat += x->shape.dims[axis];
    w[i] = tfs_arr_prod(x->shape.dims, (int)axis, r);
    off[i] = total;
    total += w[i];
    parts[i] = x->data;
  }
  tfs_shape out = x0->shape;
  out.dims[axis] = cat;
  tfs_tensor *o = tfs_kctx_alloc_output(c, 0, &out);
  if (!o || o->nelems == 0) return;
  rows_job j = {tfs_elem_of(x0->dtype), n, 1, outer, total, w, off, parts,
                o->data, 0};
  move_rows(c, &j);
}

static void concat_v2_compute(tfs_kernel_ctx *c) {
  concat_common(c, 0, c->ninputs - 1, c->inputs[c->ninputs - 1], "axis");
}

static void concat_compute(tfs_kernel_ctx *c) {
  concat_common(c, 1, c->ninputs - 1, c->inputs[0], "concat_dim");
}

/* ---- Pack / Unpack ------------------------------------------------------- */

typedef struct {
  int64_t axis;
} axis_state;

static int axis_prepare(tfs_kernel_init *ki) {
  axis_state *s = tfs_calloc(1, sizeof(*s));
  if (!s) return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  tfs_attrs_get_int(ki->attrs, "axis", &s->axis);
  ki->state = s;
  return 0;
}

static void pack_compute(tfs_kernel_ctx *c) {
  const tfs_tensor *x0 = c->inputs[0];
  int n = c->ninputs, r = x0->shape.rank + 1;
  int64_t a0 = ((const axis_state *)c->state)->axis;
  int64_t axis = a0 < 0 ? a0 + r : a0;
  char a[TFS_SHAPE_STRLEN], b[TFS_SHAPE_STRLEN];
  if (axis < 0 || axis >= r) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "axis = %lld not in [%d, %d)",
                  (long long)a0, -r, r);
    return;
  }
  if (r > TFS_MAX_RANK) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Pack result has more than %d dimensions", TFS_MAX_RANK);
    return;
  }
  tfs_shape out;
  out.rank = r;
  for (int i = 0, k = 0; i < r; i++)
    out.dims[i] = i == axis ? n : x0->shape.dims[k++];
  if (n == 1) {
    tfs_arr_set_view(c, 0, x0, &out, 0);
    return;
  }
  for (int i = 1; i < n; i++) {
    if (!tfs_shape_equal(&c->inputs[i]->shape, &x0->shape)) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "Shapes of all inputs must match: values[0].shape = %s "
                    "!= values[%d].shape = %s",
                    tfs_shape_str(&x0->shape, a, sizeof a), i,
                    tfs_shape_str(&c->inputs[i]->shape, b, sizeof b));
      return;
    }
  }
  int64_t *w, *off;
  char **parts;
  if (pieces(c, n, &w, &off, &parts)) return;
  int64_t inner = tfs_arr_prod(x0->shape.dims, (int)axis, r - 1);
  for (int i = 0; i < n; i++) {
    w[i] = inner;
    off[i] = i * inner;
    parts[i] = c->inputs[i]->data;
  }
  tfs_tensor *o = tfs_kctx_alloc_output(c, 0, &out);
  if (!o || o->nelems == 0) return;
  rows_job j = {tfs_elem_of(x0->dtype), n, 1,
                tfs_arr_prod(x0->shape.dims, 0, (int)axis), inner * n, w, off,
                parts, o->data, 0};
  move_rows(c, &j);
}

/* Splits x along `axis` into pieces of sizes[i] (all outputs allocated
 * here); views when nothing before the axis is larger than 1. */
static void split_along(tfs_kernel_ctx *c, const tfs_tensor *x, int axis,
                        const int64_t *sizes, int n, int drop_axis) {
  int r = x->shape.rank;
  int64_t outer = tfs_arr_prod(x->shape.dims, 0, axis);
  int64_t inner = tfs_arr_prod(x->shape.dims, axis + 1, r);
  int64_t *w, *off;
  char **parts;
  if (pieces(c, n, &w, &off, &parts)) return;
  int64_t at = 0;
  for (int i = 0; i < n; i++) {
    tfs_shape s = x->shape;
    s.dims[axis] = sizes[i];
    if (drop_axis) {
      memmove(&s.dims[axis], &s.dims[axis + 1],
              sizeof(int64_t) * (size_t)(r - axis - 1));
      s.rank--;
    }
    w[i] = sizes[i] * inner;
    off[i] = at;
    at += w[i];
    if (outer == 1 || x->nelems == 0) {
      if (tfs_arr_set_view(c, i, x, &s, x->nelems ? off[i] : 0)) return;
      parts[i] = NULL;
      continue;
    }
    tfs_tensor *o = tfs_kctx_alloc_output(c, i, &s);
    if (!o) return;
    parts[i] = o->data;
  }
  if (outer == 1 || x->nelems == 0) return;
  rows_job j = {tfs_elem_of(x->dtype), n, 0, outer, at, w, off, parts,
                x->data, 0};
  move_rows(c, &j);
}

static void unpack_compute(tfs_kernel_ctx *c) {
  const tfs_tensor *x = c->inputs[0];
  int n = c->noutputs, r = x->shape.rank;
  int64_t a0 = ((const axis_state *)c->state)->axis;
  int64_t axis = a0 < 0 ? a0 + r : a0;
  char b[TFS_SHAPE_STRLEN];
  if (axis < 0 || axis >= r) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "axis = %lld not in [%d, %d)",
                  (long long)a0, -r, r);
    return;
  }
  if (x->shape.dims[axis] != n) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Input shape axis %lld must equal %d, got shape %s",
                  (long long)axis, n, tfs_shape_str(&x->shape, b, sizeof b));
    return;
  }
  int64_t *ones = tfs_kctx_scratch(c, sizeof(int64_t) * (size_t)(n ? n : 1));
  if (!ones) return;
  for (int i = 0; i < n; i++) ones[i] = 1;
  split_along(c, x, (int)axis, ones, n, 1);
}

/* ---- Split / SplitV ------------------------------------------------------ */

static int split_dim(tfs_kernel_ctx *c, const tfs_tensor *d,
                     const tfs_tensor *x, int *axis) {
  int r = x->shape.rank;
  int64_t v = d->nelems ? tfs_arr_scalar(d) : 0;
  int64_t a = v < 0 ? v + r : v;
  if (a < 0 || a >= r) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "-input rank(-%d) <= split_dim < input rank (%d), but got "
                  "%lld", r, r, (long long)v);
    return -1;
  }
  *axis = (int)a;
  return 0;
}

static void split_compute(tfs_kernel_ctx *c) {
  const tfs_tensor *x = c->inputs[1];
  int n = c->noutputs, axis;
  if (c->inputs[0]->nelems != 1) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "split_dim must have exactly one element.");
    return;
  }
  if (split_dim(c, c->inputs[0], x, &axis)) return;
  int64_t d = x->shape.dims[axis];
  if (d % n != 0) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Number of ways to split should evenly divide the split "
                  "dimension, but got split_dim %d (size = %lld) and "
                  "num_split %d", axis, (long long)d, n);
    return;
  }
  if (n == 1) {
    tfs_kctx_set_output(c, 0, tfs_tensor_ref(c->inputs[1]));
    return;
  }
  int64_t *sizes = tfs_kctx_scratch(c, sizeof(int64_t) * (size_t)n);
  if (!sizes) return;
  for (int i = 0; i < n; i++) sizes[i] = d / n;
  split_along(c, x, axis, sizes, n, 0);
}

static int split_v_sizes(tfs_kernel_ctx *c, const tfs_tensor *st,
                         int64_t dim, int64_t *sizes, int n) {
  int neg = -1;
  int64_t det = 0;
  for (int i = 0; i < n; i++) {
    sizes[i] = tfs_tensor__get_as_int64(st, i);
    if (sizes[i] == -1) {
      if (neg >= 0) {
        tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                      "There can only be one -1 in the input.");
        return -1;
      }
      neg = i;
    } else {
      det += sizes[i];
    }
  }
  if (!((neg < 0 && det == dim) || (neg >= 0 && det <= dim))) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Determined shape must either match input shape along "
                  "split_dim exactly if fully specified, or be less than the "
                  "size of the input along split_dim if not fully specified. "
                  " Got: %lld", (long long)det);
    return -1;
  }
  if (neg >= 0) sizes[neg] = dim - det;
  for (int i = 0; i < n; i++) {
    if (sizes[i] < 0) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "Split size at index %d must be >= 0. Got: %lld", i,
                    (long long)sizes[i]);
      return -1;
    }
  }
  return 0;
}

static void split_v_compute(tfs_kernel_ctx *c) {
  const tfs_tensor *x = c->inputs[0], *st = c->inputs[1], *sd = c->inputs[2];
  int n = c->noutputs, axis;
  if (sd->nelems != 1) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "split_dim_tensor must have exactly one element.");
    return;
  }
  if (st->shape.rank != 1 || st->nelems != n) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "size of the split_tensor must be 1-D and have the same "
                  "elements as outputs got %d -D and %lld elements",
                  st->shape.rank, (long long)st->nelems);
    return;
  }
  if (split_dim(c, sd, x, &axis)) return;
  int64_t dim = x->shape.dims[axis];
  if (n == 1) {
    int64_t s0 = tfs_tensor__get_as_int64(st, 0);
    if (s0 != dim) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "If there is only one output, it must have the same size "
                    "as the input. Input size: %lld output size: %lld",
                    (long long)dim, (long long)s0);
      return;
    }
    tfs_kctx_set_output(c, 0, tfs_tensor_ref(c->inputs[0]));
    return;
  }
  int64_t *sizes = tfs_kctx_scratch(c, sizeof(int64_t) * (size_t)n);
  if (!sizes || split_v_sizes(c, st, dim, sizes, n)) return;
  split_along(c, x, axis, sizes, n, 0);
}

#define ARR "T", TFS_DT_ARRAY

const tfs_kernel_def tfs_cpu_kernels_array_concat[] = {
    {"ConcatV2", "CPU", ARR, NULL, concat_v2_compute, NULL, 0, NULL},
    {"Concat", "CPU", ARR, NULL, concat_compute, NULL, 0, NULL},
    {"Pack", "CPU", "T", TFS_DT_ARRAY | TFS_DT_BIT(TFS_VARIANT),
     axis_prepare, pack_compute, tfs_free, 0, NULL},
    {"Unpack", "CPU", ARR, axis_prepare, unpack_compute, tfs_free, 0, NULL},
    {"Split", "CPU", ARR, NULL, split_compute, NULL, 0, NULL},
    {"SplitV", "CPU", ARR, NULL, split_v_compute, NULL, 0, NULL},
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL},
};
