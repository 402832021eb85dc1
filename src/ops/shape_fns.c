/*
 * ops/shape_fns.c - shape-function helpers and the shape functions many ops
 * share (unchanged, broadcast, reduction, matmul...).  Messages follow
 * TensorFlow's shape inference wording.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/status.h"
#include "ops/shape_ctx.h"

int tfs_sc_error(tfs_shape_ctx *c, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *m = tfs_vasprintf(fmt, ap);
  va_end(ap);
  tfs_status_set(c->st, TFS_INVALID_ARGUMENT, m ? m : "shape error");
  tfs_free(m);
  return -1;
}

int tfs_sc_with_rank(tfs_shape_ctx *c, int i, int64_t r) {
  const tfs_shape *s = &c->in_shapes[i];
  if (s->rank >= 0 && s->rank != r)
    return tfs_sc_error(c, "Shape must be rank %lld but is rank %d",
                        (long long)r, s->rank);
  return 0;
}

int tfs_sc_with_rank_at_least(tfs_shape_ctx *c, int i, int64_t r) {
  const tfs_shape *s = &c->in_shapes[i];
  if (s->rank >= 0 && s->rank < r)
    return tfs_sc_error(c, "Shape must be at least rank %lld but is rank %d",
                        (long long)r, s->rank);
  return 0;
}

int tfs_sc_with_rank_for_axis(tfs_shape_ctx *c, int i, int64_t axis) {
  const tfs_shape *s = &c->in_shapes[i];
  if (s->rank < 0 || (axis >= -s->rank && axis < s->rank)) return 0;
  /* -axis or axis + 1, computed in unsigned so that INT64_MIN and
   * INT64_MAX need no special case */
  uint64_t need = axis < 0 ? (uint64_t)(-(axis + 1)) + 1
                           : (uint64_t)axis + 1;
  return tfs_sc_error(c, "Shape must be at least rank %llu but is rank %d",
                      (unsigned long long)need, s->rank);
}

int tfs_sc_add_dim(tfs_shape_ctx *c, int64_t a, int64_t b, int64_t *out) {
  if (a == 0 || b == 0) {
    *out = a == 0 ? b : a;
    return 0;
  }
  if (a < 0 || b < 0) {
    *out = -1;
    return 0;
  }
  if (tfs_add_overflow_i64(a, b, out))
    return tfs_sc_error(c, "Dimension size overflow from adding %lld and "
                        "%lld", (long long)a, (long long)b);
  return 0;
}

int tfs_sc_mul_dim(tfs_shape_ctx *c, int64_t a, int64_t b, int64_t *out) {
  if (a == 0 || b == 0) {
    *out = 0;
    return 0;
  }
  if (a < 0 || b < 0) {
    *out = -1;
    return 0;
  }
  if (tfs_mul_overflow_i64(a, b, out))
    return tfs_sc_error(c, "Negative dimension size caused by overflow "
                        "when multiplying %lld and %lld", (long long)a,
                        (long long)b);
  return 0;
}

int tfs_sc_merge_dim(tfs_shape_ctx *c, int64_t a, int64_t b, int64_t *out) {
  if (a >= 0 && b >= 0 && a != b)
    return tfs_sc_error(c, "Dimensions must be equal, but are %lld and %lld",
                        (long long)a, (long long)b);
  *out = a >= 0 ? a : b;
  return 0;
}

int tfs_sc_const_scalar(tfs_shape_ctx *c, int i, int64_t *out) {
  const tfs_tensor *t = tfs_sc_const(c, i);
  if (!t || t->nelems != 1 ||
      (t->dtype != TFS_INT32 && t->dtype != TFS_INT64))
    return -1;
  *out = tfs_tensor__get_as_int64(t, 0);
  return 0;
}

int tfs_sc_axis(tfs_shape_ctx *c, int64_t a, int rank, int64_t *out) {
  if (a < -rank || a >= rank)
    return tfs_sc_error(c, "Invalid axis: %lld. Expected an axis in the "
                        "range [%d, %d)", (long long)a, -rank, rank);
  *out = a < 0 ? a + rank : a;
  return 0;
}

int tfs_sc_input_as_shape(tfs_shape_ctx *c, int i, tfs_shape *out) {
  const tfs_tensor *t = tfs_sc_const(c, i);
  if (t && (t->dtype == TFS_INT32 || t->dtype == TFS_INT64)) {
    if (t->shape.rank == 0) {
      if (tfs_tensor__get_as_int64(t, 0) == -1) {
        out->rank = -1;
        return 0;
      }
      return tfs_sc_error(c, "Input tensor must be rank 1, or if its rank 0 "
                          "it must have value -1 (saw: %lld)",
                          (long long)tfs_tensor__get_as_int64(t, 0));
    }
    if (t->shape.rank != 1)
      return tfs_sc_error(c, "Shape must be rank 1 but is rank %d",
                          t->shape.rank);
    if (t->nelems > TFS_MAX_RANK)
      return tfs_sc_error(c, "Shape of rank %lld exceeds the maximum rank %d",
                          (long long)t->nelems, TFS_MAX_RANK);
    out->rank = (int)t->nelems;
    for (int k = 0; k < out->rank; k++) {
      int64_t d = tfs_tensor__get_as_int64(t, k);
      if (d < -1)
        return tfs_sc_error(c, "Dimension %d must be >= -1, got %lld", k,
                            (long long)d);
      out->dims[k] = d;
    }
    return 0;
  }
  if (c->input_as_shape && c->input_as_shape(c, i, out) == 0) return 0;
  const tfs_shape *s = &c->in_shapes[i];
  if (s->rank == 1 && s->dims[0] >= 0 && s->dims[0] <= TFS_MAX_RANK) {
    tfs_shape_unknown_dims(out, (int)s->dims[0]);
    return 0;
  }
  out->rank = -1;
  return 0;
}

int tfs_shape_fn_unknown(tfs_shape_ctx *c) {
  for (int i = 0; i < c->noutputs; i++) c->out_shapes[i].rank = -1;
  return 0;
}

int tfs_shape_fn_scalar(tfs_shape_ctx *c) {
  for (int i = 0; i < c->noutputs; i++) c->out_shapes[i].rank = 0;
  return 0;
}

int tfs_shape_fn_no_outputs(tfs_shape_ctx *c) {
  (void)c;
  return 0;
}

int tfs_shape_fn_unchanged(tfs_shape_ctx *c) {
  for (int i = 0; i < c->noutputs; i++)
    c->out_shapes[i] = c->ninputs ? c->in_shapes[0] : c->out_shapes[i];
  return 0;
}

int tfs_shape_fn_broadcast(tfs_shape_ctx *c) {
  const tfs_shape *a = &c->in_shapes[0], *b = &c->in_shapes[1];
  if (tfs_shape_broadcast(a, b, &c->out_shapes[0])) {
    /* find the offending pair for TensorFlow's message */
    int r = a->rank > b->rank ? a->rank : b->rank;
    for (int i = 0; i < r; i++) {
      int ia = a->rank - r + i, ib = b->rank - r + i;
      int64_t x = ia >= 0 ? a->dims[ia] : 1, y = ib >= 0 ? b->dims[ib] : 1;
      if (x > 1 && y > 1 && x != y)
        return tfs_sc_error(c, "Dimensions must be equal, but are %lld and "
                            "%lld", (long long)x, (long long)y);
    }
    return tfs_sc_error(c, "Incompatible shapes for broadcasting");
  }
  return 0;
}

int tfs_shape_fn_dtype_shape_attr(tfs_shape_ctx *c) {
  const tfs_shape *s = tfs_attrs_get_shape(c->attrs, "shape");
  c->out_shapes[0].rank = -1;
  if (s) c->out_shapes[0] = *s;
  return 0;
}

int tfs_shape_fn_reduction(tfs_shape_ctx *c) {
  const tfs_shape *in = &c->in_shapes[0];
  int keep = 0;
  tfs_attrs_get_bool(c->attrs, "keep_dims", &keep);
  const tfs_tensor *axes = tfs_sc_const(c, 1);
  if (tfs_sc_with_rank_at_least(c, 1, 0)) return -1;
  if (c->in_shapes[1].rank > 1)
    return tfs_sc_error(c, "Shape must be at most rank 1 but is rank %d",
                        c->in_shapes[1].rank);
  if (!axes || in->rank < 0) {
    if (keep && in->rank >= 0)
      tfs_shape_unknown_dims(&c->out_shapes[0], in->rank);
    else
      c->out_shapes[0].rank = -1;
    return 0;
  }
  uint8_t reduce[TFS_MAX_RANK] = {0};
  for (int64_t k = 0; k < axes->nelems; k++) {
    int64_t a = tfs_tensor__get_as_int64(axes, k), ca;
    if (a < -in->rank || a >= in->rank)
      return tfs_sc_error(c, "Invalid reduction dimension %lld for input "
                          "with %d dimensions.", (long long)a, in->rank);
    ca = a < 0 ? a + in->rank : a;
    reduce[ca] = 1;
  }
  tfs_shape out;
  out.rank = 0;
  for (int d = 0; d < in->rank; d++) {
    if (reduce[d]) {
      if (keep) out.dims[out.rank++] = 1;
    } else {
      out.dims[out.rank++] = in->dims[d];
    }
  }
  c->out_shapes[0] = out;
  return 0;
}

int tfs_shape_fn_matmul(tfs_shape_ctx *c) {
  int ta = 0, tb = 0;
  tfs_attrs_get_bool(c->attrs, "transpose_a", &ta);
  tfs_attrs_get_bool(c->attrs, "transpose_b", &tb);
  if (tfs_sc_with_rank(c, 0, 2) || tfs_sc_with_rank(c, 1, 2)) return -1;
  const tfs_shape *a = &c->in_shapes[0], *b = &c->in_shapes[1];
  int64_t m = -1, n = -1, ka = -1, kb = -1, k;
  if (a->rank == 2) {
    m = a->dims[ta ? 1 : 0];
    ka = a->dims[ta ? 0 : 1];
  }
  if (b->rank == 2) {
    kb = b->dims[tb ? 1 : 0];
    n = b->dims[tb ? 0 : 1];
  }
  if (tfs_sc_merge_dim(c, ka, kb, &k)) return -1;
  tfs_shape_2d(&c->out_shapes[0], m, n);
  return 0;
}

int tfs_shape_fn_bias_add(tfs_shape_ctx *c) {
  size_t len;
  const char *fmt = tfs_attrs_get_string(c->attrs, "data_format", &len);
  int nchw = fmt && strcmp(fmt, "NCHW") == 0;
  const tfs_shape *v = &c->in_shapes[0];
  if (tfs_sc_with_rank(c, 1, 1)) return -1;
  if (v->rank < 0) {
    c->out_shapes[0].rank = -1;
    return 0;
  }
  if (v->rank < 2)
    return tfs_sc_error(c, "Shape must be at least rank 2 but is rank %d",
                        v->rank);
  if (nchw && v->rank < 3)
    return tfs_sc_error(c, "Shape must be at least rank 3 but is rank %d",
                        v->rank);
  tfs_shape out = *v;
  int cdim = nchw ? v->rank - 3 : v->rank - 1;
  if (tfs_sc_merge_dim(c, v->dims[cdim], c->in_shapes[1].rank == 1
                                             ? c->in_shapes[1].dims[0]
                                             : -1,
                       &out.dims[cdim]))
    return -1;
  c->out_shapes[0] = out;
  return 0;
}
