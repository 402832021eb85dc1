/*
 * backends/cpu/scatter_nd.c - kernels that write slices into a dense
 * tensor at indices read from a tensor: TensorScatterUpdate/Add/Sub/Max/
 * Min (a copy of `tensor` updated in order, duplicates applied one after
 * another) and SparseToDense (validate_indices: in bounds, sorted, no
 * repeats).  Every index is checked against its bound before it is used;
 * a bad one fails the node with TensorFlow's message.
 */
#include <complex.h>
#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "core/half.h"
#include "backends/cpu/array_util.h"

enum { TS_UPDATE, TS_ADD, TS_SUB, TS_MAX, TS_MIN };

/* dst[0..n) = dst OP src for dtype dt; update copies (strings too).
 * Returns -1 on OOM (strings), 1 for a dtype the op does not know. */
static int apply(int op, tfs_dtype dt, char *dst, const char *src,
                 int64_t n) {
  if (op == TS_UPDATE) return tfs_elem_copy(tfs_elem_of(dt), dst, src, n);
#define LOOP(T, ADD, SUB, MAX, MIN)                                        \
  for (int64_t i = 0; i < n; i++) {                                        \
    T x, y;                                                                \
    memcpy(&x, dst + i * (int64_t)sizeof(T), sizeof x);                    \
    memcpy(&y, src + i * (int64_t)sizeof(T), sizeof y);                    \
    x = op == TS_ADD ? (ADD) : op == TS_SUB ? (SUB) : op == TS_MAX ? (MAX) \
                                                                 : (MIN);  \
    memcpy(dst + i * (int64_t)sizeof(T), &x, sizeof x);                    \
  }                                                                        \
  return 0;
#define NUM(T, U)                                                          \
  LOOP(T, (T)(U)(1u * (U)x + (U)y), (T)(U)(1u * (U)x - (U)y),             \
       x < y ? y : x, y < x ? y : x)
#define FLT(T) LOOP(T, x + y, x - y, x < y ? y : x, y < x ? y : x)
#define F16(TO, FROM)                                                      \
  LOOP(uint16_t, FROM(TO(x) + TO(y)), FROM(TO(x) - TO(y)),                 \
       TO(x) < TO(y) ? y : x, TO(y) < TO(x) ? y : x)
  switch (dt) {
  case TFS_FLOAT: FLT(float)
  case TFS_DOUBLE: FLT(double)
  case TFS_HALF: F16(tfs_half_to_float, tfs_float_to_half)
  case TFS_BFLOAT16: F16(tfs_bf16_to_float, tfs_float_to_bf16)
  case TFS_INT8: NUM(int8_t, uint8_t)
  case TFS_INT16: NUM(int16_t, uint16_t)
  case TFS_INT32: NUM(int32_t, uint32_t)
  case TFS_INT64: NUM(int64_t, uint64_t)
  case TFS_UINT8: NUM(uint8_t, uint8_t)
  case TFS_UINT16: NUM(uint16_t, uint16_t)
  case TFS_UINT32: NUM(uint32_t, uint32_t)
  case TFS_UINT64: NUM(uint64_t, uint64_t)
  case TFS_COMPLEX64:
    LOOP(float _Complex, x + y, x - y, x, x)
  case TFS_COMPLEX128:
    LOOP(double _Complex, x + y, x - y, x, x)
  default:
    return 1;
  }
#undef F16
#undef FLT
#undef NUM
#undef LOOP
}

/* "[i,j]" of flat index `flat` in dims[0..rank). */
static const char *bracket_index(int64_t flat, const int64_t *dims, int rank,
                                 char *buf, size_t cap) {
  buf[0] = '[';
  tfs_arr_index_str(flat, dims, rank, buf + 1, cap - 2);
  size_t n = strlen(buf);
  buf[n] = ']';
  buf[n + 1] = 0;
  return buf;
}

/* "a, b, c": index row i of k values. */
static const char *row_str(const tfs_tensor *ix, int64_t i, int64_t k,
                           const char *sep, char *buf, size_t cap) {
  size_t off = 0;
  buf[0] = 0;
  for (int64_t d = 0; d < k && off + 24 < cap; d++)
    off += (size_t)snprintf(buf + off, cap - off, "%s%lld", d ? sep : "",
                            (long long)tfs_tensor__get_as_int64(ix, i * k + d));
  return buf;
}

/* ---- TensorScatter* ----------------------------------------------------- */

/* TensorFlow's checks of indices and updates against `out`; 0 or -1
 * after failing c. */
static int tscatter_check(tfs_kernel_ctx *c, const tfs_tensor *ix,
                          const tfs_tensor *up, const tfs_shape *out) {
  char a[TFS_SHAPE_STRLEN], b[TFS_SHAPE_STRLEN];
  int ir = ix->shape.rank, ur = up->shape.rank;
  if (ir < 1 || ur < 1) {
    const tfs_tensor *t = ir < 1 ? ix : up;
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "%s shape must have rank at least one. Found:%s",
                  t == ix ? "Indices" : "Updates",
                  tfs_shape_str(&t->shape, a, sizeof a));
    return -1;
  }
  /* TensorFlow's ValidEmptyOutputShape: no indices and no updates, or
   * all three non-empty */
  int64_t on = tfs_shape_num_elements(out);
  if (!((ix->nelems == 0 && up->nelems == 0) ||
        (on != 0 && ix->nelems != 0 && up->nelems != 0))) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Indices and updates specified for empty output shape");
    return -1;
  }
  int outer = ir - 1;
  int bad = ur < outer;
  for (int i = 0; !bad && i < outer; i++)
    bad = ix->shape.dims[i] != up->shape.dims[i];
  if (bad) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Outer dimensions of indices and update must match. "
                  "Indices shape: %s, updates shape:%s",
                  tfs_shape_str(&ix->shape, a, sizeof a),
                  tfs_shape_str(&up->shape, b, sizeof b));
    return -1;
  }
  int64_t k = ix->shape.dims[outer];
  if (k > out->rank || ur - outer != out->rank - k) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Inner dimensions of output shape must match inner "
                  "dimensions of updates shape. Output: %s updates: %s",
                  tfs_shape_str(out, a, sizeof a),
                  tfs_shape_str(&up->shape, b, sizeof b));
    return -1;
  }
  for (int i = 0; i + outer < ur; i++) {
    if (up->shape.dims[i + outer] != out->dims[k + i]) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "The inner %d dimensions of output.shape=%s must match "
                    "the inner %d dimensions of updates.shape=%s",
                    ur - outer, tfs_shape_str(out, a, sizeof a), ur - outer,
                    tfs_shape_str(&up->shape, b, sizeof b));
      return -1;
    }
  }
  /* TensorFlow handles 1 to 7 index columns; its message says 5 */
  if (on > 0 && (k < 1 || k > 7)) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Only indices.shape[-1] values between 1 and 5 are "
                  "currently supported.  Requested rank: %lld",
                  (long long)k);
    return -1;
  }
  return 0;
}

/* state: the op (TS_*) plus TS_IGNORE under bad_indices_policy IGNORE */
#define TS_IGNORE 8

static void tscatter_compute(tfs_kernel_ctx *c) {
  int op = (int)(intptr_t)c->state & (TS_IGNORE - 1);
  int ignore = ((int)(intptr_t)c->state & TS_IGNORE) != 0;
  const tfs_tensor *x = c->inputs[0], *ix = c->inputs[1], *up = c->inputs[2];
  if (tscatter_check(c, ix, up, &x->shape)) return;
  tfs_tensor *o = tfs_arr_copy_input(c, 0, 0, &x->shape);
  int ir = ix->shape.rank;
  int64_t k = ix->shape.dims[ir - 1];
  int64_t n = tfs_arr_prod(ix->shape.dims, 0, ir - 1);
  if (!o || o->nelems == 0 || n == 0) return;
  int64_t slice = tfs_arr_prod(x->shape.dims, (int)k, x->shape.rank);
  size_t es = tfs_dtype__storage_size(o->dtype);
  char a[TFS_SHAPE_STRLEN], b[TFS_SHAPE_STRLEN], r[TFS_SHAPE_STRLEN];
  for (int64_t i = 0; i < n; i++) {
    int64_t off = 0;
    for (int64_t d = 0; d < k && off >= 0; d++) {
      int64_t v = tfs_tensor__get_as_int64(ix, i * k + d);
      off = v < 0 || v >= x->shape.dims[d] ? -1 : off * x->shape.dims[d] + v;
    }
    if (off < 0 && ignore) continue;
    if (off < 0) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "indices%s = [%s] does not index into shape %s",
                    bracket_index(i, ix->shape.dims, ir - 1, r, sizeof r),
                    row_str(ix, i, k, ", ", b, sizeof b),
                    tfs_shape_str(&x->shape, a, sizeof a));
      return;
    }
    int rc = apply(op, o->dtype, (char *)o->data + (size_t)(off * slice) * es,
                   (const char *)up->data + (size_t)(i * slice) * es, slice);
    if (rc) {
      tfs_arr_oom(c);
      return;
    }
  }
}

static int tscatter_prepare(tfs_kernel_init *ki) {
  size_t len = 0;
  const char *p = tfs_attrs_get_string(ki->attrs, "bad_indices_policy", &len);
  int op = *(const int *)ki->kdata;
  if (p && len == 6 && !memcmp(p, "IGNORE", 6))
    op |= TS_IGNORE;
  else if (p && len > 0 && !(len == 7 && !memcmp(p, "DEFAULT", 7)) &&
           !(len == 5 && !memcmp(p, "ERROR", 5)))
    return tfs_ki_error(ki, TFS_INVALID_ARGUMENT,
                        "Unknown bad indices handling attribute: %.*s",
                        (int)len, p);
  ki->state = (void *)(intptr_t)op;
  return 0;
}

/* ---- SparseToDense ------------------------------------------------------ */

/* The output shape from output_shape after TensorFlow's checks of every
 * input; 0 or -1 after failing c.  *n and *k: index rows and columns. */
static int s2d_shape(tfs_kernel_ctx *c, tfs_shape *out, int64_t *n,
                     int64_t *k) {
  const tfs_tensor *ix = c->inputs[0], *os = c->inputs[1];
  const tfs_tensor *vals = c->inputs[2], *def = c->inputs[3];
  char a[TFS_SHAPE_STRLEN];
  if (ix->shape.rank > 2) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "sparse_indices should be a scalar, vector, or matrix, got "
                  "shape %s", tfs_shape_str(&ix->shape, a, sizeof a));
    return -1;
  }
  *n = ix->shape.rank > 0 ? ix->shape.dims[0] : 1;
  *k = ix->shape.rank > 1 ? ix->shape.dims[1] : 1;
  if (os->shape.rank != 1) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "output_shape must be rank 1, got shape %s",
                  tfs_shape_str(&os->shape, a, sizeof a));
    return -1;
  }
  if (os->nelems != *k) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "output_shape has incorrect number of elements: %lld "
                  "should be: %lld", (long long)os->nelems, (long long)*k);
    return -1;
  }
  if (!(vals->shape.rank == 0 ||
        (vals->shape.rank == 1 && vals->nelems == *n))) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "sparse_values has incorrect shape %s, should be [] or "
                  "[%lld]", tfs_shape_str(&vals->shape, a, sizeof a),
                  (long long)*n);
    return -1;
  }
  if (def->shape.rank != 0) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "default_value should be a scalar.");
    return -1;
  }
  if (*k > TFS_MAX_RANK) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "SparseToDense output of rank %lld exceeds the maximum "
                  "rank %d", (long long)*k, TFS_MAX_RANK);
    return -1;
  }
  out->rank = (int)*k;
  for (int i = 0; i < out->rank; i++) {
    out->dims[i] = tfs_tensor__get_as_int64(os, i);
    if (out->dims[i] < 0) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "Dimension %lld must be >= 0",
                    (long long)out->dims[i]);
      return -1;
    }
  }
  int64_t total;
  if (tfs_shape_num_elements_checked(out, &total, c->st)) {
    tfs_kctx_fail_status(c, c->st);
    return -1;
  }
  return 0;
}

/* "2,3" for shape [2,3]. */
static const char *dims_str(const tfs_shape *s, char *buf, size_t cap) {
  size_t off = 0;
  buf[0] = 0;
  for (int d = 0; d < s->rank && off + 24 < cap; d++)
    off += (size_t)snprintf(buf + off, cap - off, d ? ",%lld" : "%lld",
                            (long long)s->dims[d]);
  return buf;
}

/* validate_indices: every row in bounds, rows in increasing order.
 * Returns the first bad row's message in c, or 0. */
static int s2d_validate(tfs_kernel_ctx *c, const tfs_shape *out, int64_t n,
                        int64_t k) {
  const tfs_tensor *ix = c->inputs[0];
  char a[TFS_SHAPE_STRLEN], b[TFS_SHAPE_STRLEN];
  for (int64_t i = 0; i < n; i++) {
    int cmp = i == 0 ? 1 : 0;
    for (int64_t d = 0; d < k; d++) {
      int64_t v = tfs_tensor__get_as_int64(ix, i * k + d);
      if (v < 0 || v >= out->dims[d]) {
        tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                      "indices[%lld] = [%s] is out of bounds: need 0 <= "
                      "index < [%s]", (long long)i,
                      row_str(ix, i, k, ",", a, sizeof a),
                      dims_str(out, b, sizeof b));
        return -1;
      }
      if (cmp == 0) {
        int64_t p = tfs_tensor__get_as_int64(ix, (i - 1) * k + d);
        cmp = v > p ? 1 : v < p ? -1 : 0;
      }
    }
    if (cmp <= 0) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    cmp < 0 ? "indices[%lld] = [%s] is out of order. Many "
                              "sparse ops require sorted indices.\n    Use "
                              "`tf.sparse.reorder` to create a correctly "
                              "ordered copy.\n\n"
                            : "indices[%lld] = [%s] is repeated",
                    (long long)i, row_str(ix, i, k, ",", a, sizeof a));
      return -1;
    }
  }
  return 0;
}

static void s2d_compute(tfs_kernel_ctx *c) {
  int validate = (int)(intptr_t)c->state;
  const tfs_tensor *ix = c->inputs[0], *vals = c->inputs[2];
  tfs_shape out;
  int64_t n, k;
  if (s2d_shape(c, &out, &n, &k)) return;
  if (validate && s2d_validate(c, &out, n, k)) return;
  tfs_tensor *o = tfs_kctx_alloc_output(c, 0, &out);
  if (!o) return;
  tfs_elem e = tfs_elem_of(o->dtype);
  if (o->nelems > 0 && tfs_elem_fill(e, o->data, c->inputs[3]->data,
                                     o->nelems)) {
    tfs_arr_oom(c);
    return;
  }
  char a[TFS_SHAPE_STRLEN];
  for (int64_t i = 0; i < n; i++) {
    int64_t off = 0;
    for (int64_t d = 0; d < k && off >= 0; d++) {
      int64_t v = tfs_tensor__get_as_int64(ix, i * k + d);
      off = v < 0 || v >= out.dims[d] ? -1 : off * out.dims[d] + v;
    }
    if (off < 0) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "Indices are not valid (out of bounds).  Shape: %s",
                    tfs_shape_str(&out, a, sizeof a));
      return;
    }
    const char *v = (const char *)vals->data +
                    (vals->shape.rank == 0 ? 0 : (size_t)i * e.size);
    if (tfs_elem_copy(e, (char *)o->data + (size_t)off * e.size, v, 1)) {
      tfs_arr_oom(c);
      return;
    }
  }
}

static int s2d_prepare(tfs_kernel_init *ki) {
  int v = 1;
  tfs_attrs_get_bool(ki->attrs, "validate_indices", &v);
  ki->state = (void *)(intptr_t)v;
  return 0;
}

static const int kUpdate = TS_UPDATE, kAdd = TS_ADD, kSub = TS_SUB,
                 kMax = TS_MAX, kMin = TS_MIN;

#define NUMBER_T                                                          \
  (TFS_DT_REAL | TFS_DT_BIT(TFS_COMPLEX64) | TFS_DT_BIT(TFS_COMPLEX128))
#define TS(OP, TYPES, KIND)                                               \
  {OP, "CPU", "T", TYPES, tscatter_prepare, tscatter_compute, NULL, 0,    \
   &KIND}

const tfs_kernel_def tfs_cpu_kernels_scatter_nd[] = {
    TS("TensorScatterUpdate", TFS_DT_ARRAY, kUpdate),
    TS("TensorScatterAdd", NUMBER_T, kAdd),
    TS("TensorScatterSub", NUMBER_T, kSub),
    TS("TensorScatterMax", TFS_DT_REAL, kMax),
    TS("TensorScatterMin", TFS_DT_REAL, kMin),
    {"SparseToDense", "CPU", "T", TFS_DT_ARRAY, s2d_prepare, s2d_compute,
     NULL, 0, NULL},
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL},
};
