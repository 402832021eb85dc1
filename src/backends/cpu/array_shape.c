/*
 * backends/cpu/array_shape.c - the cheap array kernels: IdentityN,
 * Snapshot, StopGradient, PreventGradient, Squeeze, ExpandDims (views),
 * ShapeN, Size, Rank, OnesLike, Range, InvertPermutation and Where.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/half.h"
#include "backends/cpu/array_util.h"

/* ---- identities ---------------------------------------------------------- */

static void identity_n_compute(tfs_kernel_ctx *c) {
  for (int i = 0; i < c->noutputs && i < c->ninputs; i++)
    tfs_kctx_set_output(c, i, tfs_tensor_ref(c->inputs[i]));
}

static void pass_through(tfs_kernel_ctx *c) {
  tfs_kctx_set_output(c, 0, tfs_tensor_ref(c->inputs[0]));
}

static void snapshot_compute(tfs_kernel_ctx *c) {
  tfs_arr_copy_input(c, 0, 0, &c->inputs[0]->shape);
}

/* ---- Squeeze / ExpandDims ------------------------------------------------ */

typedef struct {
  int n;
  int64_t dims[];
} squeeze_state;

static int squeeze_prepare(tfs_kernel_init *ki) {
  int n = 0;
  const int64_t *sq = tfs_attrs_get_int_list(ki->attrs, "squeeze_dims", &n);
  squeeze_state *s = tfs_malloc(sizeof(*s) + sizeof(int64_t) * (size_t)n);
  if (!s) return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  s->n = n;
  if (n) memcpy(s->dims, sq, sizeof(int64_t) * (size_t)n);
  ki->state = s;
  return 0;
}

static void squeeze_compute(tfs_kernel_ctx *c) {
  const tfs_tensor *in = c->inputs[0];
  const squeeze_state *st = c->state;
  int n = st->n, r = in->shape.rank;
  const int64_t *sq = st->dims;
  uint8_t pick[TFS_MAX_RANK] = {0};
  for (int i = 0; i < n; i++) {
    if (sq[i] < -r || sq[i] >= r) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "Tried to squeeze dim index %lld for tensor with %d "
                    "dimensions.", (long long)sq[i], r);
      return;
    }
    pick[sq[i] < 0 ? sq[i] + r : sq[i]] = 1;
  }
  tfs_shape out = {.rank = 0};
  for (int i = 0; i < r; i++) {
    int64_t d = in->shape.dims[i];
    if (n && pick[i] && d != 1) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "Can not squeeze dim[%d], expected a dimension of 1, "
                    "got %lld", i, (long long)d);
      return;
    }
    if ((n && !pick[i]) || (!n && d != 1)) out.dims[out.rank++] = d;
  }
  tfs_arr_set_view(c, 0, in, &out, 0);
}

static void expand_dims_compute(tfs_kernel_ctx *c) {
  const tfs_tensor *in = c->inputs[0], *d = c->inputs[1];
  if (d->nelems != 1) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "'dim' must be a tensor with a single value");
    return;
  }
  int r = in->shape.rank;
  int64_t dim = tfs_arr_scalar(d);
  if (dim < -1 - r || dim > r) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Tried to expand dim index %lld for tensor with %d "
                  "dimensions.", (long long)dim, r);
    return;
  }
  if (r >= TFS_MAX_RANK) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "ExpandDims result has more than %d dimensions",
                  TFS_MAX_RANK);
    return;
  }
  if (dim < 0) dim += r + 1;
  tfs_shape out;
  out.rank = r + 1;
  for (int i = 0, j = 0; i < out.rank; i++)
    out.dims[i] = i == dim ? 1 : in->shape.dims[j++];
  tfs_arr_set_view(c, 0, in, &out, 0);
}

/* ---- ShapeN / Size / Rank ------------------------------------------------ */

static int put_index(tfs_kernel_ctx *c, tfs_tensor *o, int64_t i,
                     int64_t v, const char *what) {
  if (o->dtype == TFS_INT64) {
    ((int64_t *)o->data)[i] = v;
    return 0;
  }
  if (v > INT32_MAX) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "%s", what);
    return -1;
  }
  ((int32_t *)o->data)[i] = (int32_t)v;
  return 0;
}

static void shape_n_compute(tfs_kernel_ctx *c) {
  for (int i = 0; i < c->ninputs && i < c->noutputs; i++) {
    const tfs_shape *s = &c->inputs[i]->shape;
    tfs_shape os;
    tfs_shape_1d(&os, s->rank);
    tfs_tensor *o = tfs_kctx_alloc_output(c, i, &os);
    if (!o) return;
    for (int k = 0; k < s->rank; k++)
      if (put_index(c, o, k, s->dims[k],
                    "ShapeN output type is 32-bit but dim is too large"))
        return;
  }
}

static void size_compute(tfs_kernel_ctx *c) {
  tfs_shape s = {.rank = 0};
  tfs_tensor *o = tfs_kctx_alloc_output(c, 0, &s);
  if (o)
    put_index(c, o, 0, c->inputs[0]->nelems,
              "Number of elements was larger than representable by 32-bit "
              "output type");
}

static void rank_compute(tfs_kernel_ctx *c) {
  tfs_shape s = {.rank = 0};
  tfs_tensor *o = tfs_kctx_alloc_output(c, 0, &s);
  if (o) *(int32_t *)o->data = c->inputs[0]->shape.rank;
}

/* ---- OnesLike ------------------------------------------------------------ */

static void ones_like_compute(tfs_kernel_ctx *c) {
  const tfs_tensor *x = c->inputs[0];
  tfs_tensor *o = tfs_kctx_forward_or_alloc(c, 0, 0, &x->shape);
  if (!o) return;
  unsigned char one[16] = {0};
  switch (x->dtype) {
  case TFS_FLOAT:
  case TFS_COMPLEX64: {
    float v = 1.0f;
    memcpy(one, &v, 4);
    break;
  }
  case TFS_DOUBLE:
  case TFS_COMPLEX128: {
    double v = 1.0;
    memcpy(one, &v, 8);
    break;
  }
  case TFS_HALF: {
    uint16_t v = 0x3c00;
    memcpy(one, &v, 2);
    break;
  }
  case TFS_BFLOAT16: {
    uint16_t v = 0x3f80;
    memcpy(one, &v, 2);
    break;
  }
  default: { /* integers and bool, little-endian */
    one[0] = 1;
    break;
  }
  }
  tfs_elem_fill(tfs_elem_of(x->dtype), o->data, one, o->nelems);
}

/* ---- Range --------------------------------------------------------------- */

static int range_check_scalar(tfs_kernel_ctx *c, int i, const char *name) {
  const tfs_shape *s = &c->inputs[i]->shape;
  if (s->rank == 0 || (s->rank == 1 && s->dims[0] == 1)) return 0;
  char b[TFS_SHAPE_STRLEN];
  tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "%s must be a scalar, not shape %s",
                name, tfs_shape_str(s, b, sizeof b));
  return -1;
}

static int64_t range_int(tfs_kernel_ctx *c, const tfs_tensor *s,
                         const tfs_tensor *l, const tfs_tensor *d) {
  int is_u = s->dtype == TFS_UINT16 || s->dtype == TFS_UINT32 ||
             s->dtype == TFS_UINT64;
  __int128 start, limit, delta;
  if (is_u && s->dtype == TFS_UINT64) {
    start = *(const uint64_t *)s->data;
    limit = *(const uint64_t *)l->data;
    delta = *(const uint64_t *)d->data;
  } else {
    start = tfs_tensor__get_as_int64(s, 0);
    limit = tfs_tensor__get_as_int64(l, 0);
    delta = tfs_tensor__get_as_int64(d, 0);
  }
  long long ps = (long long)start, pl = (long long)limit;
  if (delta == 0) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "Requires delta != 0: 0");
    return -1;
  }
  if (delta > 0 && start > limit) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Requires start <= limit when delta > 0: %lld/%lld", ps,
                  pl);
    return -1;
  }
  if (delta < 0 && start < limit) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Requires start >= limit when delta < 0: %lld/%lld", ps,
                  pl);
    return -1;
  }
  __int128 range = limit > start ? limit - start : start - limit;
  __int128 ad = delta > 0 ? delta : -delta;
  __int128 size = (range + ad - 1) / ad;
  if (size > INT64_MAX) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Requires ((limit - start) / delta) <= "
                  "9223372036854775807");
    return -1;
  }
  return (int64_t)size;
}

static float round_to(tfs_dtype dt, float v) {
  if (dt == TFS_HALF) return tfs_half_to_float(tfs_float_to_half(v));
  if (dt == TFS_BFLOAT16) return tfs_bf16_to_float(tfs_float_to_bf16(v));
  return v;
}

static double load_float(const tfs_tensor *t) {
  switch (t->dtype) {
  case TFS_HALF:
    return tfs_half_to_float(*(const uint16_t *)t->data);
  case TFS_BFLOAT16:
    return tfs_bf16_to_float(*(const uint16_t *)t->data);
  case TFS_FLOAT:
    return *(const float *)t->data;
  default:
    return *(const double *)t->data;
  }
}

static int64_t range_float(tfs_kernel_ctx *c, const tfs_tensor *s,
                           const tfs_tensor *l, const tfs_tensor *d) {
  double start = load_float(s), limit = load_float(l), delta = load_float(d);
  if (delta == 0) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "Requires delta != 0: %g", delta);
    return -1;
  }
  if (delta > 0 ? !(start <= limit) : !(start >= limit)) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  delta > 0 ? "Requires start <= limit when delta > 0: %g/%g"
                            : "Requires start >= limit when delta < 0: %g/%g",
                  start, limit);
    return -1;
  }
  double size;
  if (s->dtype == TFS_DOUBLE) {
    size = ceil(fabs((limit - start) / delta));
  } else {
    float diff = round_to(s->dtype, (float)limit - (float)start);
    float q = round_to(s->dtype, diff / (float)delta);
    size = ceilf(fabsf(q));
  }
  if (!(size <= 9.2233720368547748e18) || size >= 9.2233720368547758e18) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Requires ((limit - start) / delta) <= "
                  "9223372036854775807");
    return -1;
  }
  return (int64_t)size;
}

/* out[i] = start + i * delta, in the output type (TensorFlow's CPU
 * RangeFunctor; 16-bit floats round after each operation). */
static void range_fill(tfs_tensor *o, const tfs_tensor *s,
                       const tfs_tensor *d) {
  int64_t n = o->nelems;
  switch (o->dtype) {
#define FILL_INT(T)                                                        \
  {                                                                        \
    T v, dl;                                                               \
    memcpy(&v, s->data, sizeof v);                                         \
    memcpy(&dl, d->data, sizeof dl);                                       \
    T *p = o->data;                                                        \
    for (int64_t i = 0; i < n; i++)                                        \
      p[i] = (T)((uint64_t)v + (uint64_t)i * (uint64_t)dl);                \
    break;                                                                 \
  }
  case TFS_INT8: FILL_INT(int8_t)
  case TFS_INT16: FILL_INT(int16_t)
  case TFS_INT32: FILL_INT(int32_t)
  case TFS_INT64: FILL_INT(int64_t)
  case TFS_UINT16: FILL_INT(uint16_t)
  case TFS_UINT32: FILL_INT(uint32_t)
  case TFS_UINT64: FILL_INT(uint64_t)
#undef FILL_INT
  case TFS_FLOAT: {
    float v = *(const float *)s->data, dl = *(const float *)d->data;
    float *p = o->data;
    for (int64_t i = 0; i < n; i++) p[i] = v + (float)i * dl;
    break;
  }
  case TFS_DOUBLE: {
    double v = *(const double *)s->data, dl = *(const double *)d->data;
    double *p = o->data;
    for (int64_t i = 0; i < n; i++) p[i] = v + (double)i * dl;
    break;
  }
  default: { /* half, bfloat16 */
    float v = (float)load_float(s), dl = (float)load_float(d);
    uint16_t *p = o->data;
    for (int64_t i = 0; i < n; i++) {
      float r = round_to(o->dtype, v + round_to(o->dtype,
                                                round_to(o->dtype, (float)i) *
                                                    dl));
      p[i] = o->dtype == TFS_HALF ? tfs_float_to_half(r)
                                  : tfs_float_to_bf16(r);
    }
  }
  }
}

static void range_compute(tfs_kernel_ctx *c) {
  if (range_check_scalar(c, 0, "start") || range_check_scalar(c, 1, "limit") ||
      range_check_scalar(c, 2, "delta"))
    return;
  const tfs_tensor *s = c->inputs[0], *l = c->inputs[1], *d = c->inputs[2];
  tfs_dtype dt = s->dtype;
  int is_float = dt == TFS_FLOAT || dt == TFS_DOUBLE || dt == TFS_HALF ||
                 dt == TFS_BFLOAT16;
  int64_t n = is_float ? range_float(c, s, l, d) : range_int(c, s, l, d);
  if (n < 0) return;
  tfs_shape os;
  tfs_shape_1d(&os, n);
  tfs_tensor *o = tfs_kctx_alloc_output(c, 0, &os);
  if (o) range_fill(o, s, d);
}

/* ---- InvertPermutation --------------------------------------------------- */

static void invert_permutation_compute(tfs_kernel_ctx *c) {
  const tfs_tensor *x = c->inputs[0];
  if (x->shape.rank != 1) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "invert_permutation expects a 1D vector.");
    return;
  }
  if (x->nelems > INT32_MAX) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "permutation of nonnegative int32s must have <= int32 max "
                  "elements");
    return;
  }
  tfs_tensor *o = tfs_kctx_alloc_output(c, 0, &x->shape);
  if (!o) return;
  int64_t n = x->nelems;
  int is64 = x->dtype == TFS_INT64;
  for (int64_t i = 0; i < n; i++) {
    if (is64)
      ((int64_t *)o->data)[i] = -1;
    else
      ((int32_t *)o->data)[i] = -1;
  }
  for (int64_t i = 0; i < n; i++) {
    int64_t d = tfs_tensor__get_as_int64(x, i);
    if (d < 0 || d >= n) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "%lld is not between 0 and %lld",
                    (long long)d, (long long)n);
      return;
    }
    int64_t cur = is64 ? ((int64_t *)o->data)[d] : ((int32_t *)o->data)[d];
    if (cur != -1) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "%lld is duplicated in the input.",
                    (long long)d);
      return;
    }
    if (is64)
      ((int64_t *)o->data)[d] = i;
    else
      ((int32_t *)o->data)[d] = (int32_t)i;
  }
}

/* ---- Where --------------------------------------------------------------- */

static int is_true(const char *p, tfs_dtype dt) {
  switch (dt) {
  case TFS_FLOAT: {
    float v;
    memcpy(&v, p, 4);
    return v != 0;
  }
  case TFS_DOUBLE: {
    double v;
    memcpy(&v, p, 8);
    return v != 0;
  }
  case TFS_COMPLEX64: {
    float v[2];
    memcpy(v, p, 8);
    return v[0] != 0 || v[1] != 0;
  }
  case TFS_COMPLEX128: {
    double v[2];
    memcpy(v, p, 16);
    return v[0] != 0 || v[1] != 0;
  }
  case TFS_HALF:
  case TFS_BFLOAT16: {
    uint16_t v;
    memcpy(&v, p, 2);
    return (v & 0x7fff) != 0;
  }
  default: {
    size_t es = tfs_dtype__storage_size(dt);
    for (size_t k = 0; k < es; k++)
      if (p[k]) return 1;
    return 0;
  }
  }
}

static void where_compute(tfs_kernel_ctx *c) {
  const tfs_tensor *x = c->inputs[0];
  int r = x->shape.rank;
  if (r == 0) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "WhereOp : Unhandled input dimensions: 0");
    return;
  }
  size_t es = tfs_dtype__storage_size(x->dtype);
  const char *p = x->data;
  int64_t count = 0;
  for (int64_t i = 0; i < x->nelems; i++)
    count += is_true(p + i * es, x->dtype);
  tfs_shape os;
  tfs_shape_2d(&os, count, r);
  tfs_tensor *o = tfs_kctx_alloc_output(c, 0, &os);
  if (!o || count == 0) return;
  int64_t *out = o->data, idx[TFS_MAX_RANK] = {0};
  for (int64_t i = 0; i < x->nelems; i++) {
    if (is_true(p + i * es, x->dtype)) {
      memcpy(out, idx, sizeof(int64_t) * (size_t)r);
      out += r;
    }
    for (int k = r - 1; k >= 0; k--) {
      if (++idx[k] < x->shape.dims[k]) break;
      idx[k] = 0;
    }
  }
}

#define ANY NULL, 0
#define ARR "T", TFS_DT_ARRAY

const tfs_kernel_def tfs_cpu_kernels_array_shape[] = {
    {"IdentityN", "CPU", ANY, NULL, identity_n_compute, NULL, 0, NULL},
    {"Snapshot", "CPU", ARR, NULL, snapshot_compute, NULL, 0, NULL},
    {"StopGradient", "CPU", ANY, NULL, pass_through, NULL, 0, NULL},
    {"PreventGradient", "CPU", ANY, NULL, pass_through, NULL, 0, NULL},
    {"Squeeze", "CPU", ANY, squeeze_prepare, squeeze_compute, tfs_free, 0,
     NULL},
    {"ExpandDims", "CPU", ANY, NULL, expand_dims_compute, NULL, 0, NULL},
    {"ShapeN", "CPU", ANY, NULL, shape_n_compute, NULL, 0, NULL},
    {"Size", "CPU", ANY, NULL, size_compute, NULL, 0, NULL},
    {"Rank", "CPU", ANY, NULL, rank_compute, NULL, 0, NULL},
    {"OnesLike", "CPU", ANY, NULL, ones_like_compute, NULL, 0, NULL},
    {"Range", "CPU", ANY, NULL, range_compute, NULL, 0, NULL},
    {"InvertPermutation", "CPU", ANY, NULL, invert_permutation_compute, NULL, 0,
     NULL},
    {"Where", "CPU", ANY, NULL, where_compute, NULL, 0, NULL},
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL},
};
