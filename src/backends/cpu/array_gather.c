/*
 * backends/cpu/array_gather.c - indexing kernels: GatherV2 (axis,
 * batch_dims), GatherNd, ScatterNd (duplicates accumulate: sum, logical or
 * for bool, concatenation for strings) and OneHot.  Every index is checked
 * against its bound before any element moves; a bad one fails the node
 * with TensorFlow's message (or, under bad_indices_policy IGNORE, gives
 * zeros / is skipped).
 */
#include <complex.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/half.h"
#include "backends/cpu/array_util.h"

/* "[i,j]" (or "" for a scalar) of flat index i in dims[0..rank). */
static const char *slice_str(int64_t flat, const int64_t *dims, int rank,
                             char *buf, size_t cap) {
  if (rank == 0) {
    buf[0] = 0;
    return buf;
  }
  buf[0] = '[';
  tfs_arr_index_str(flat, dims, rank, buf + 1, cap - 2);
  size_t n = strlen(buf);
  buf[n] = ']';
  buf[n + 1] = 0;
  return buf;
}

/* ---- GatherV2 ------------------------------------------------------------ */

typedef struct {
  tfs_elem e;
  const char *params;
  char *out;
  const tfs_tensor *idx;
  int64_t outer, gather, n, inner; /* per batch: [outer, gather, inner] */
  atomic_int oom;
} gather_job;

static void gather_range(void *arg, int64_t begin, int64_t end) {
  gather_job *j = arg;
  size_t es = j->e.size;
  for (int64_t r = begin; r < end; r++) {
    int64_t k = r % j->n, bo = r / j->n, b = bo / j->outer;
    int64_t v = tfs_tensor__get_as_int64(j->idx, b * j->n + k);
    const char *s = j->params + (size_t)((bo * j->gather + v) * j->inner) * es;
    if (tfs_elem_copy(j->e, j->out + (size_t)(r * j->inner) * es, s,
                      j->inner))
      atomic_store(&j->oom, 1);
  }
}

/* batch_dims and axis after TensorFlow's checks. */
static int gather_dims(tfs_kernel_ctx *c, const tfs_tensor *p,
                       const tfs_tensor *ix, int64_t *axis,
                       int64_t *batch_dims) {
  /* Gather (V1) has no axis input: axis 0 */
  const tfs_tensor *at = c->ninputs > 2 ? c->inputs[2] : NULL;
  if (p->shape.rank < 1) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "params must be at least 1 dimensional");
    return -1;
  }
  if (at && at->shape.rank != 0) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "axis must be scalar");
    return -1;
  }
  int64_t a = at ? tfs_arr_scalar(at) : 0, pr = p->shape.rank, ir = ix->shape.rank;
  int64_t min = a < 0 ? -a : a + 1;
  if (pr < min) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Shape must be at least rank %lld but is rank %lld",
                  (long long)min, (long long)pr);
    return -1;
  }
  if (a < 0) a += pr;
  int64_t bd = *batch_dims;
  if (bd != 0) {
    if (bd < -ir || bd > ir) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "Expected batch_dims in the range [%lld, %lld], but got "
                    "%lld", (long long)-ir, (long long)ir, (long long)bd);
      return -1;
    }
    if (bd < 0) bd += ir;
    if (bd >= pr) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "batch_dims (%lld) must be less than rank(params) "
                    "(%lld).", (long long)bd, (long long)pr);
      return -1;
    }
    if (a < bd) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "batch_dims (%lld) must be less than or equal to axis "
                    "(%lld).", (long long)bd, (long long)a);
      return -1;
    }
    for (int i = 0; i < bd; i++) {
      if (p->shape.dims[i] != ix->shape.dims[i]) {
        tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                      "params.shape[%d]: %lld should be equal to "
                      "indices.shape[%d]: %lld", i,
                      (long long)p->shape.dims[i], i,
                      (long long)ix->shape.dims[i]);
        return -1;
      }
    }
  }
  *axis = a;
  *batch_dims = bd;
  return 0;
}

static void gather_v2_compute(tfs_kernel_ctx *c) {
  const tfs_tensor *p = c->inputs[0], *ix = c->inputs[1];
  int64_t axis, bd = *(const int64_t *)c->state;
  if (gather_dims(c, p, ix, &axis, &bd)) return;
  const int64_t *pd = p->shape.dims;
  int pr = p->shape.rank, ir = ix->shape.rank;
  tfs_shape out = {.rank = 0};
  if (pr - 1 + ir - bd > TFS_MAX_RANK) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Gather result has more than %d dimensions", TFS_MAX_RANK);
    return;
  }
  for (int i = 0; i < axis; i++) out.dims[out.rank++] = pd[i];
  for (int i = (int)bd; i < ir; i++) out.dims[out.rank++] = ix->shape.dims[i];
  for (int i = (int)axis + 1; i < pr; i++) out.dims[out.rank++] = pd[i];
  tfs_tensor *o = tfs_kctx_alloc_output(c, 0, &out);
  if (!o) return;
  int64_t batch = tfs_arr_prod(pd, 0, (int)bd);
  int64_t outer = tfs_arr_prod(pd, (int)bd, (int)axis), g = pd[axis];
  int64_t n = tfs_arr_prod(ix->shape.dims, (int)bd, ir);
  int64_t inner = tfs_arr_prod(pd, (int)axis + 1, pr);
  if (n == 0 || inner == 0 || batch * outer == 0) return;
  char buf[TFS_SHAPE_STRLEN];
  for (int64_t t = 0; t < ix->nelems; t++) {
    int64_t v = tfs_tensor__get_as_int64(ix, t);
    if (v < 0 || v >= g) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "indices%s = %lld is not in [0, %lld)",
                    slice_str(t, ix->shape.dims, ir, buf, sizeof buf),
                    (long long)v, (long long)g);
      return;
    }
  }
  gather_job j = {tfs_elem_of(p->dtype), p->data, o->data, ix, outer, g, n,
                  inner, 0};
  tfs_kctx_parallel_for(c, batch * outer * n, inner + 20, gather_range, &j);
  if (atomic_load(&j.oom)) tfs_arr_oom(c);
}

static int batch_dims_prepare(tfs_kernel_init *ki) {
  int64_t *s = tfs_calloc(1, sizeof(int64_t));
  if (!s) return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  tfs_attrs_get_int(ki->attrs, "batch_dims", s);
  ki->state = s;
  return 0;
}

/* ---- bad_indices_policy -------------------------------------------------- */

static int policy_prepare(tfs_kernel_init *ki) {
  size_t len = 0;
  const char *p = tfs_attrs_get_string(ki->attrs, "bad_indices_policy", &len);
  int *s = tfs_calloc(1, sizeof(int));
  if (!s) return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  ki->state = s;
  if (!p || len == 0 || (len == 7 && !memcmp(p, "DEFAULT", 7)) ||
      (len == 5 && !memcmp(p, "ERROR", 5)))
    return 0;
  if (len == 6 && !memcmp(p, "IGNORE", 6)) {
    *s = 1;
    return 0;
  }
  return tfs_ki_error(ki, TFS_INVALID_ARGUMENT,
                      "Invalid bad_indices_policy: %.*s (expected one of "
                      "\"\", \"DEFAULT\", \"ERROR\", \"IGNORE\")", (int)len,
                      p);
}

/* Flat offset (in slices of `slice`) of index row i of [n, k] indices
 * into dims[0..k), or -1 when out of range. */
static int64_t nd_offset(const tfs_tensor *ix, int64_t i, int64_t k,
                         const int64_t *dims) {
  int64_t off = 0;
  for (int64_t d = 0; d < k; d++) {
    int64_t v = tfs_tensor__get_as_int64(ix, i * k + d);
    if (v < 0 || v >= dims[d]) return -1;
    off = off * dims[d] + v;
  }
  return off;
}

static const char *index_row_str(const tfs_tensor *ix, int64_t i, int64_t k,
                                 char *buf, size_t cap) {
  size_t off = 0;
  buf[0] = 0;
  for (int64_t d = 0; d < k && off + 24 < cap; d++)
    off += (size_t)snprintf(buf + off, cap - off, d ? ", %lld" : "%lld",
                            (long long)tfs_tensor__get_as_int64(ix, i * k + d));
  return buf;
}

/* ---- GatherNd ------------------------------------------------------------ */

static void gather_nd_compute(tfs_kernel_ctx *c) {
  const tfs_tensor *p = c->inputs[0], *ix = c->inputs[1];
  int ignore = *(const int *)c->state, ir = ix->shape.rank;
  char a[TFS_SHAPE_STRLEN], b[TFS_SHAPE_STRLEN], r[TFS_SHAPE_STRLEN];
  if (p->shape.rank < 1 || ir < 1) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "%s must be at least a vector",
                  p->shape.rank < 1 ? "params" : "indices");
    return;
  }
  int64_t k = ix->shape.dims[ir - 1];
  if (k > p->shape.rank) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "index innermost dimension length must be <= params rank; "
                  "saw: %lld vs. %d", (long long)k, p->shape.rank);
    return;
  }
  tfs_shape out = {.rank = 0};
  if (ir - 1 + p->shape.rank - k > TFS_MAX_RANK) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "GatherNd result has more than %d dimensions", TFS_MAX_RANK);
    return;
  }
  for (int i = 0; i < ir - 1; i++) out.dims[out.rank++] = ix->shape.dims[i];
  for (int i = (int)k; i < p->shape.rank; i++)
    out.dims[out.rank++] = p->shape.dims[i];
  int64_t n = tfs_arr_prod(ix->shape.dims, 0, ir - 1);
  int64_t slice = tfs_arr_prod(p->shape.dims, (int)k, p->shape.rank);
  tfs_tensor *o = tfs_kctx_alloc_output(c, 0, &out);
  if (!o || n == 0) return;
  if (p->nelems == 0) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Requested more than 0 entries, but params is empty.  "
                  "Params shape: %s", tfs_shape_str(&p->shape, a, sizeof a));
    return;
  }
  tfs_elem e = tfs_elem_of(p->dtype);
  for (int64_t i = 0; i < n; i++) {
    int64_t off = nd_offset(ix, i, k, p->shape.dims);
    char *d = (char *)o->data + (size_t)(i * slice) * e.size;
    if (off < 0) {
      if (ignore) {
        if (!e.is_string) memset(d, 0, (size_t)slice * e.size);
        continue;
      }
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "indices%s = [%s] does not index into param shape %s, "
                    "node name: %s",
                    slice_str(i, ix->shape.dims, ir - 1, r, sizeof r),
                    index_row_str(ix, i, k, b, sizeof b),
                    tfs_shape_str(&p->shape, a, sizeof a), c->node_name);
      return;
    }
    if (tfs_elem_copy(e, d,
                      (const char *)p->data + (size_t)(off * slice) * e.size,
                      slice)) {
      tfs_arr_oom(c);
      return;
    }
  }
}

/* ---- ScatterNd ----------------------------------------------------------- */

/* dst[0..n) += src[0..n) for dtype dt.  Returns -1 on OOM (strings). */
static int accumulate(tfs_dtype dt, char *dst, const char *src, int64_t n) {
  switch (dt) {
#define ACC(T, EXPR)                                                       \
  for (int64_t i = 0; i < n; i++) {                                        \
    T x, y;                                                                \
    memcpy(&x, dst + i * (int64_t)sizeof(T), sizeof x);                    \
    memcpy(&y, src + i * (int64_t)sizeof(T), sizeof y);                    \
    x = (EXPR);                                                            \
    memcpy(dst + i * (int64_t)sizeof(T), &x, sizeof x);                    \
  }                                                                        \
  return 0;
  case TFS_FLOAT: ACC(float, x + y)
  case TFS_DOUBLE: ACC(double, x + y)
  case TFS_COMPLEX64: ACC(float _Complex, x + y)
  case TFS_COMPLEX128: ACC(double _Complex, x + y)
  case TFS_INT8: ACC(int8_t, (int8_t)(uint8_t)((uint8_t)x + (uint8_t)y))
  case TFS_UINT8: ACC(uint8_t, (uint8_t)(x + y))
  case TFS_INT16: ACC(int16_t, (int16_t)(uint16_t)((uint16_t)x + (uint16_t)y))
  case TFS_UINT16: ACC(uint16_t, (uint16_t)(x + y))
  case TFS_INT32: ACC(int32_t, (int32_t)((uint32_t)x + (uint32_t)y))
  case TFS_UINT32: ACC(uint32_t, x + y)
  case TFS_INT64: ACC(int64_t, (int64_t)((uint64_t)x + (uint64_t)y))
  case TFS_UINT64: ACC(uint64_t, x + y)
  case TFS_BOOL: ACC(uint8_t, (uint8_t)(x || y))
  case TFS_HALF:
    ACC(uint16_t, tfs_float_to_half(tfs_half_to_float(x) +
                                    tfs_half_to_float(y)))
  case TFS_BFLOAT16:
    ACC(uint16_t, tfs_float_to_bf16(tfs_bf16_to_float(x) +
                                    tfs_bf16_to_float(y)))
#undef ACC
  case TFS_STRING: {
    tfs_tstring *d = (tfs_tstring *)dst;
    const tfs_tstring *s = (const tfs_tstring *)src;
    for (int64_t i = 0; i < n; i++) {
      size_t a = tfs_tstring_size(&d[i]), b = tfs_tstring_size(&s[i]);
      char *cat = tfs_malloc(a + b + 1);
      if (!cat) return -1;
      memcpy(cat, tfs_tstring_data(&d[i]), a);
      memcpy(cat + a, tfs_tstring_data(&s[i]), b);
      int rc = tfs_tstring_copy(&d[i], cat, a + b);
      tfs_free(cat);
      if (rc) return -1;
    }
    return 0;
  }
  default:
    return 0;
  }
}

static int scatter_check(tfs_kernel_ctx *c, const tfs_tensor *ix,
                         const tfs_tensor *up, const tfs_shape *out) {
  char a[TFS_SHAPE_STRLEN], b[TFS_SHAPE_STRLEN];
  int ir = ix->shape.rank, ur = up->shape.rank;
  int64_t slice_dim = ir > 1 ? ix->shape.dims[ir - 1] : 1;
  int batch_dim = ir > 1 ? ir - 1 : 1;
  int pre = ur < batch_dim, suf = 0;
  if (!pre) {
    if (out->rank < slice_dim + (ur - batch_dim) ||
        ur != batch_dim + out->rank - slice_dim)
      suf = 1;
  }
  for (int d = 0; !pre && !suf && d < batch_dim; d++)
    pre = up->shape.dims[d] != ix->shape.dims[d];
  for (int d = 0; !pre && !suf && d < ur - batch_dim; d++)
    suf = up->shape.dims[d + batch_dim] != out->dims[d + slice_dim];
  if (pre)
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Dimensions [0,%d) of indices[shape=%s] must match "
                  "dimensions [0,%d) of updates[shape=%s]", batch_dim,
                  tfs_shape_str(&ix->shape, a, sizeof a), batch_dim,
                  tfs_shape_str(&up->shape, b, sizeof b));
  else if (suf)
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Dimensions [%lld,%d) of input[shape=%s] must match "
                  "dimensions [%d,%d) of updates[shape=%s]",
                  (long long)slice_dim, out->rank,
                  tfs_shape_str(out, a, sizeof a), batch_dim, ur,
                  tfs_shape_str(&up->shape, b, sizeof b));
  return pre || suf ? -1 : 0;
}

static int scatter_shape(tfs_kernel_ctx *c, const tfs_tensor *ix,
                         const tfs_tensor *up, const tfs_tensor *sh,
                         tfs_shape *out) {
  char a[TFS_SHAPE_STRLEN];
  if (sh->shape.rank != 1) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "Shape must be a vector");
    return -1;
  }
  if (ix->shape.rank < 1 || up->shape.rank < 1) {
    const tfs_tensor *t = ix->shape.rank < 1 ? ix : up;
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "%s shape must have rank at least one. Found:%s",
                  t == ix ? "Indices" : "Updates",
                  tfs_shape_str(&t->shape, a, sizeof a));
    return -1;
  }
  if (sh->nelems > TFS_MAX_RANK) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "ScatterNd output of rank %lld exceeds the maximum rank %d",
                  (long long)sh->nelems, TFS_MAX_RANK);
    return -1;
  }
  out->rank = (int)sh->nelems;
  for (int i = 0; i < out->rank; i++) {
    out->dims[i] = tfs_tensor__get_as_int64(sh, i);
    if (out->dims[i] < 0) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "Dimension %lld must be >= 0",
                    (long long)out->dims[i]);
      return -1;
    }
  }
  int64_t on;
  if (tfs_shape_num_elements_checked(out, &on, c->st)) {
    tfs_kctx_fail_status(c, c->st);
    return -1;
  }
  int nonempty = ix->nelems > 0 || up->nelems > 0;
  if (out->rank == 0 && nonempty) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Indices and updates specified for empty output shape");
    return -1;
  }
  if (out->rank == 0) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Output must be at least 1-D, got shape: []");
    return -1;
  }
  if (on == 0 && nonempty) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Indices and updates specified for empty output.  indices "
                  "shape: %s", tfs_shape_str(&ix->shape, a, sizeof a));
    return -1;
  }
  return scatter_check(c, ix, up, out);
}

static void scatter_nd_compute(tfs_kernel_ctx *c) {
  const tfs_tensor *ix = c->inputs[0], *up = c->inputs[1];
  int ignore = *(const int *)c->state;
  tfs_shape out;
  if (scatter_shape(c, ix, up, c->inputs[2], &out)) return;
  tfs_tensor *o = tfs_kctx_alloc_output(c, 0, &out);
  if (!o || o->nelems == 0) return;
  tfs_elem e = tfs_elem_of(o->dtype);
  if (!e.is_string) memset(o->data, 0, o->nbytes);
  int ir = ix->shape.rank;
  int64_t k = ir > 1 ? ix->shape.dims[ir - 1] : 1;
  int64_t n = ir > 1 ? tfs_arr_prod(ix->shape.dims, 0, ir - 1)
                     : ix->shape.dims[0];
  int64_t slice = tfs_arr_prod(out.dims, (int)k, out.rank);
  char a[TFS_SHAPE_STRLEN], b[TFS_SHAPE_STRLEN], r[TFS_SHAPE_STRLEN];
  for (int64_t i = 0; i < n; i++) {
    int64_t off = nd_offset(ix, i, k, out.dims);
    if (off < 0) {
      if (ignore) continue;
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "indices%s = [%s] does not index into shape %s",
                    slice_str(i, ix->shape.dims, ir > 1 ? ir - 1 : 1, r,
                              sizeof r),
                    index_row_str(ix, i, k, b, sizeof b),
                    tfs_shape_str(&out, a, sizeof a));
      return;
    }
    if (accumulate(o->dtype, (char *)o->data + (size_t)(off * slice) * e.size,
                   (const char *)up->data + (size_t)(i * slice) * e.size,
                   slice)) {
      tfs_arr_oom(c);
      return;
    }
  }
}

/* ---- OneHot -------------------------------------------------------------- */

static void one_hot_compute(tfs_kernel_ctx *c) {
  const tfs_tensor *ix = c->inputs[0];
  int64_t axis = *(const int64_t *)c->state;
  int ir = ix->shape.rank, outr = ir + 1;
  char a[TFS_SHAPE_STRLEN];
  if (!(axis == -1 || (axis >= 0 && axis < outr))) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Expected axis to be -1 or between [0, %d).  But "
                  "received: %lld", outr, (long long)axis);
    return;
  }
  static const char *const names[] = {"depth", "on_value", "off_value"};
  for (int i = 1; i < 4; i++) {
    if (c->inputs[i]->shape.rank != 0) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "%s must be a scalar, but got: %s",
                    names[i - 1],
                    tfs_shape_str(&c->inputs[i]->shape, a, sizeof a));
      return;
    }
  }
  int64_t depth = tfs_arr_scalar(c->inputs[1]);
  if (depth < 0) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "depth must be non-negative, got: %lld", (long long)depth);
    return;
  }
  if (outr > TFS_MAX_RANK) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "OneHot result has more than %d dimensions", TFS_MAX_RANK);
    return;
  }
  int at = axis == -1 ? ir : (int)axis;
  tfs_shape out;
  out.rank = outr;
  for (int i = 0, j = 0; i < outr; i++)
    out.dims[i] = i == at ? depth : ix->shape.dims[j++];
  tfs_tensor *o = tfs_kctx_alloc_output(c, 0, &out);
  if (!o || o->nelems == 0) return;
  tfs_elem e = tfs_elem_of(o->dtype);
  if (tfs_elem_fill(e, o->data, c->inputs[3]->data, o->nelems)) {
    tfs_arr_oom(c);
    return;
  }
  int64_t suffix = tfs_arr_prod(ix->shape.dims, at, ir);
  for (int64_t t = 0; t < ix->nelems; t++) {
    int64_t v = tfs_tensor__get_as_int64(ix, t);
    if (v < 0 || v >= depth) continue;
    int64_t p = t / suffix, s = t % suffix;
    char *d = (char *)o->data + (size_t)((p * depth + v) * suffix + s) * e.size;
    if (tfs_elem_copy(e, d, c->inputs[2]->data, 1)) {
      tfs_arr_oom(c);
      return;
    }
  }
}

static int axis_prepare(tfs_kernel_init *ki) {
  int64_t *s = tfs_calloc(1, sizeof(int64_t));
  if (!s) return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  *s = -1;
  tfs_attrs_get_int(ki->attrs, "axis", s);
  ki->state = s;
  return 0;
}

#define SCATTER_TYPES                                                      \
  (TFS_DT_REAL | TFS_DT_BIT(TFS_BOOL) | TFS_DT_BIT(TFS_STRING) |           \
   TFS_DT_BIT(TFS_COMPLEX64) | TFS_DT_BIT(TFS_COMPLEX128))

const tfs_kernel_def tfs_cpu_kernels_array_gather[] = {
    {"GatherV2", "CPU", "Tparams", TFS_DT_ARRAY, batch_dims_prepare,
     gather_v2_compute, tfs_free, 0, NULL},
    {"Gather", "CPU", "Tparams", TFS_DT_ARRAY, batch_dims_prepare,
     gather_v2_compute, tfs_free, 0, NULL},
    {"GatherNd", "CPU", "Tparams", TFS_DT_ARRAY, policy_prepare,
     gather_nd_compute, tfs_free, 0, NULL},
    {"ScatterNd", "CPU", "T", SCATTER_TYPES, policy_prepare,
     scatter_nd_compute, tfs_free, 0, NULL},
    {"OneHot", "CPU", "T", TFS_DT_ARRAY, axis_prepare, one_hot_compute,
     tfs_free, 0, NULL},
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL},
};
