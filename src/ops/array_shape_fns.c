/*
 * ops/array_shape_fns.c - shape functions of the joining, splitting,
 * slicing, padding and tiling array ops (Concat, Pack, Unpack, Split,
 * SplitV, Slice, StridedSlice, Pad, Tile, BroadcastTo, Transpose), with
 * TensorFlow's shape-inference messages.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/status.h"
#include "ops/array_shape_fns.h"
#include "ops/strided_slice.h"

int64_t tfs_sc_dim(const tfs_shape *s, int i) {
  if (s->rank < 0) return -1;
  if (i < 0) i += s->rank;
  return i >= 0 && i < s->rank ? s->dims[i] : -1;
}

int tfs_sc_merge_shapes(tfs_shape_ctx *c, const tfs_shape *a,
                        const tfs_shape *b, tfs_shape *out) {
  if (a->rank < 0) {
    *out = *b;
    return 0;
  }
  if (b->rank < 0) {
    *out = *a;
    return 0;
  }
  if (a->rank != b->rank)
    return tfs_sc_error(c, "Shapes must be equal rank, but are %d and %d",
                        a->rank, b->rank);
  tfs_shape m = *a;
  for (int i = 0; i < a->rank; i++) {
    int64_t x = a->dims[i], y = b->dims[i];
    if (x >= 0 && y >= 0 && x != y) {
      char sa[TFS_SHAPE_STRLEN], sb[TFS_SHAPE_STRLEN];
      return tfs_sc_error(c, "Dimension %d in both shapes must be equal, "
                          "but are %lld and %lld. Shapes are %s and %s.", i,
                          (long long)x, (long long)y,
                          tfs_shape_str(a, sa, sizeof sa),
                          tfs_shape_str(b, sb, sizeof sb));
    }
    m.dims[i] = x >= 0 ? x : y;
  }
  *out = m;
  return 0;
}

/* ---- Concat / ConcatV2 --------------------------------------------------- */

/* Merges dims [from, to) of a and b like tfs_sc_merge_shapes does whole
 * shapes (TensorFlow merges the parts before and after the axis). */
static int merge_part(tfs_shape_ctx *c, const tfs_shape *a,
                      const tfs_shape *b, int from, int to) {
  tfs_shape x = {.rank = to - from}, y = {.rank = to - from}, m;
  for (int i = from; i < to; i++) {
    x.dims[i - from] = a->dims[i];
    y.dims[i - from] = b->dims[i];
  }
  return tfs_sc_merge_shapes(c, &x, &y, &m);
}

int tfs_shape_fn_concat(tfs_shape_ctx *c) {
  int v2 = strcmp(c->op->name, "ConcatV2") == 0;
  int axis_in = v2 ? c->ninputs - 1 : 0, first = v2 ? 0 : 1;
  int last = v2 ? c->ninputs - 1 : c->ninputs;
  if (tfs_sc_with_rank(c, axis_in, 0)) return -1;
  int rank = -1;
  for (int i = first; i < last && rank < 0; i++) rank = c->in_shapes[i].rank;
  if (rank == 0)
    return tfs_sc_error(c, "Can't concatenate scalars (use tf.stack "
                        "instead)");
  for (int i = first; rank > 0 && i < last; i++)
    if (tfs_sc_with_rank(c, i, rank)) return -1;
  if (rank < 0) return tfs_shape_fn_unknown(c);
  int64_t axis;
  tfs_shape out;
  tfs_shape_unknown_dims(&out, rank);
  if (tfs_sc_const_scalar(c, axis_in, &axis)) {
    c->out_shapes[0] = out;
    return 0;
  }
  /* every input of known rank has `rank` dims (checked above); the int64
   * axis is checked against it before it indexes dims */
  if (axis < -rank || axis >= rank)
    return tfs_sc_error(c, "ConcatOp : Expected concatenating dimensions in "
                        "the range [%d, %d), but got %lld", -rank, rank,
                        (long long)axis);
  if (axis < 0) axis += rank;
  int64_t middle = 0;
  for (int i = last - 1; i >= first; i--) {
    const tfs_shape *s = &c->in_shapes[i];
    if (s->rank < 0) {
      middle = -1;
      continue;
    }
    if (middle >= 0 && tfs_sc_add_dim(c, middle, s->dims[axis], &middle))
      return -1;
    if (i < last - 1 &&
        (merge_part(c, s, &out, 0, (int)axis) ||
         merge_part(c, s, &out, (int)axis + 1, rank)))
      return -1;
    for (int k = 0; k < rank; k++)
      if (k != axis && s->dims[k] >= 0) out.dims[k] = s->dims[k];
  }
  out.dims[axis] = middle;
  c->out_shapes[0] = out;
  return 0;
}

/* ---- Pack / Unpack ------------------------------------------------------- */

static int pack_axis(tfs_shape_ctx *c, int rank_after, int64_t *axis) {
  tfs_attrs_get_int(c->attrs, "axis", axis);
  if (*axis < -rank_after || *axis >= rank_after)
    return tfs_sc_error(c, "Invalid axis: %lld; must be in [%d,%d)",
                        (long long)*axis, -rank_after, rank_after);
  if (*axis < 0) *axis += rank_after;
  return 0;
}

int tfs_shape_fn_pack(tfs_shape_ctx *c) {
  tfs_shape cur = c->in_shapes[c->ninputs - 1];
  for (int i = c->ninputs - 2; i >= 0; i--) {
    if (tfs_sc_merge_shapes(c, &c->in_shapes[i], &cur, &cur)) {
      tfs_status_appendf(c->st, "\n\tFrom merging shape %d with other "
                         "shapes.", i);
      return -1;
    }
  }
  if (cur.rank < 0) return tfs_shape_fn_unknown(c);
  if (cur.rank >= TFS_MAX_RANK)
    return tfs_sc_error(c, "Pack result has more than %d dimensions",
                        TFS_MAX_RANK);
  int64_t axis = 0;
  if (pack_axis(c, cur.rank + 1, &axis)) return -1;
  tfs_shape out;
  out.rank = cur.rank + 1;
  for (int i = 0, j = 0; i < out.rank; i++)
    out.dims[i] = i == axis ? c->ninputs : cur.dims[j++];
  c->out_shapes[0] = out;
  return 0;
}

int tfs_shape_fn_unpack(tfs_shape_ctx *c) {
  const tfs_shape *s = &c->in_shapes[0];
  if (s->rank < 0) return tfs_shape_fn_unknown(c);
  int64_t axis = 0;
  if (pack_axis(c, s->rank, &axis)) return -1;
  int64_t d = s->dims[axis];
  if (d >= 0 && d != c->noutputs)
    return tfs_sc_error(c, "Dimension must be %d but is %lld", c->noutputs,
                        (long long)d);
  tfs_shape out;
  out.rank = s->rank - 1;
  for (int i = 0, j = 0; i < s->rank; i++)
    if (i != axis) out.dims[j++] = s->dims[i];
  for (int i = 0; i < c->noutputs; i++) c->out_shapes[i] = out;
  return 0;
}

/* ---- Split / SplitV ------------------------------------------------------ */

/* The split axis from constant scalar input i: 0 found, 1 unknown. */
static int split_axis(tfs_shape_ctx *c, int i, int rank, int64_t *axis) {
  if (tfs_sc_with_rank(c, i, 0)) return -1;
  if (tfs_sc_const_scalar(c, i, axis) || rank < 0) return 1;
  if (*axis < -rank || *axis >= rank)
    return tfs_sc_error(c, "Dimension size, given by scalar input %d, must "
                        "be in range [%d, %d)", i, -rank, rank);
  if (*axis < 0) *axis += rank;
  return 0;
}

int tfs_shape_fn_split(tfs_shape_ctx *c) {
  const tfs_shape *in = &c->in_shapes[1];
  int64_t axis;
  int rc = split_axis(c, 0, in->rank, &axis);
  if (rc < 0) return -1;
  tfs_shape out;
  if (rc) {
    if (in->rank >= 0)
      tfs_shape_unknown_dims(&out, in->rank);
    else
      out.rank = -1;
  } else {
    out = *in;
    int64_t d = in->dims[axis];
    if (d >= 0 && d % c->noutputs != 0)
      return tfs_sc_error(c, "Dimension size must be evenly divisible by %d "
                          "but is %lld\n\tNumber of ways to split should "
                          "evenly divide the split dimension", c->noutputs,
                          (long long)d);
    out.dims[axis] = d >= 0 ? d / c->noutputs : -1;
  }
  for (int i = 0; i < c->noutputs; i++) c->out_shapes[i] = out;
  return 0;
}

static int split_v_known(tfs_shape_ctx *c, const tfs_tensor *sizes,
                         int64_t axis) {
  const tfs_shape *in = &c->in_shapes[0];
  if (sizes->nelems != c->noutputs)
    return tfs_sc_error(c, "Length of size_splits should be equal to "
                        "num_outputs");
  int64_t total = 0;
  int neg = 0;
  for (int64_t i = 0; i < sizes->nelems; i++) {
    int64_t v = tfs_tensor__get_as_int64(sizes, i);
    if (v == -1) {
      if (neg)
        return tfs_sc_error(c, "size_splits can only have one -1");
      neg = 1;
    } else if (v < -1) {
      return tfs_sc_error(c, "Split size at index %lld must be >= 0. Got: "
                          "%lld", (long long)i, (long long)v);
    } else if (tfs_sc_add_dim(c, total, v, &total)) {
      return -1;
    }
  }
  int64_t dim = in->dims[axis];
  for (int i = 0; i < c->noutputs; i++) {
    int64_t v = tfs_tensor__get_as_int64(sizes, i);
    if (v == -1 && dim >= 0) v = dim - total;
    if (v < -1 || (v == -1 && dim >= 0))
      return tfs_sc_error(c, "Split size at index %d must be >= 0. Got: "
                          "%lld", i, (long long)v);
    c->out_shapes[i] = *in;
    c->out_shapes[i].dims[axis] = v;
  }
  if (dim >= 0 && (neg ? total > dim : total != dim)) {
    char buf[TFS_SHAPE_STRLEN] = "";
    size_t off = 0;
    for (int64_t i = 0; i < sizes->nelems && off + 24 < sizeof buf; i++)
      off += (size_t)snprintf(buf + off, sizeof buf - off, i ? ",%lld" : "%lld",
                              (long long)tfs_tensor__get_as_int64(sizes, i));
    return tfs_sc_error(c, "can't split axis of size %lld into pieces of "
                        "size [%s]", (long long)dim, buf);
  }
  return 0;
}

int tfs_shape_fn_split_v(tfs_shape_ctx *c) {
  const tfs_shape *in = &c->in_shapes[0];
  int64_t axis;
  int rc = split_axis(c, 2, in->rank, &axis);
  if (rc < 0) return -1;
  if (in->rank < 0) return tfs_shape_fn_unknown(c);
  if (in->rank == 0) return tfs_sc_error(c, "Can't split scalars");
  const tfs_tensor *sizes = tfs_sc_const(c, 1);
  if (rc == 0 && sizes) return split_v_known(c, sizes, axis);
  for (int i = 0; i < c->noutputs; i++) {
    if (rc == 0) {
      c->out_shapes[i] = *in;
      c->out_shapes[i].dims[axis] = -1;
    } else {
      tfs_shape_unknown_dims(&c->out_shapes[i], in->rank);
    }
  }
  return 0;
}

/* ---- Slice / StridedSlice ------------------------------------------------ */

int tfs_shape_fn_slice(tfs_shape_ctx *c) {
  if (tfs_sc_with_rank(c, 1, 1) || tfs_sc_with_rank(c, 2, 1)) return -1;
  tfs_shape bs;
  if (tfs_sc_merge_shapes(c, &c->in_shapes[1], &c->in_shapes[2], &bs))
    return -1;
  const tfs_shape *in = &c->in_shapes[0];
  int64_t n = tfs_sc_dim(&bs, 0);
  if (n >= 0 && tfs_sc_with_rank(c, 0, n)) return -1;
  const tfs_tensor *b = tfs_sc_const(c, 1), *sz = tfs_sc_const(c, 2);
  if (!sz) {
    if (n >= 0 && n <= TFS_MAX_RANK)
      tfs_shape_unknown_dims(&c->out_shapes[0], (int)n);
    else if (in->rank >= 0)
      tfs_shape_unknown_dims(&c->out_shapes[0], in->rank);
    else
      c->out_shapes[0].rank = -1;
    return 0;
  }
  if (sz->nelems > TFS_MAX_RANK)
    return tfs_sc_error(c, "Slice of rank %lld exceeds the maximum rank %d",
                        (long long)sz->nelems, TFS_MAX_RANK);
  tfs_shape out;
  out.rank = (int)sz->nelems;
  for (int i = 0; i < out.rank; i++) {
    int64_t s = tfs_tensor__get_as_int64(sz, i);
    if (s < -1)
      return tfs_sc_error(c, "Expected size[%d] in [0, inf) or -1, but got "
                          "%lld", i, (long long)s);
    out.dims[i] = s;
    if (s == -1) {
      int64_t d = tfs_sc_dim(in, i);
      int64_t bi = b ? tfs_tensor__get_as_int64(b, i) : -1;
      out.dims[i] = d >= 0 && bi >= 0 ? d - bi : -1;
      if (out.dims[i] < -1) out.dims[i] = -1;
    }
  }
  c->out_shapes[0] = out;
  return 0;
}

int tfs_shape_fn_strided_slice(tfs_shape_ctx *c) {
  for (int i = 1; i < 4; i++)
    if (tfs_sc_with_rank(c, i, 1)) return -1;
  tfs_shape bs;
  if (tfs_sc_merge_shapes(c, &c->in_shapes[1], &c->in_shapes[2], &bs) ||
      tfs_sc_merge_shapes(c, &bs, &c->in_shapes[3], &bs))
    return -1;
  const tfs_tensor *strides = tfs_sc_const(c, 3);
  if (c->in_shapes[0].rank < 0 || tfs_sc_dim(&bs, 0) < 0 || !strides)
    return tfs_shape_fn_unknown(c);
  tfs_sslice_masks m = {0, 0, 0, 0, 0};
  tfs_attrs_get_int(c->attrs, "begin_mask", &m.begin);
  tfs_attrs_get_int(c->attrs, "end_mask", &m.end);
  tfs_attrs_get_int(c->attrs, "ellipsis_mask", &m.ellipsis);
  tfs_attrs_get_int(c->attrs, "new_axis_mask", &m.new_axis);
  tfs_attrs_get_int(c->attrs, "shrink_axis_mask", &m.shrink_axis);
  tfs_sslice sl;
  if (tfs_sslice_compute(tfs_sc_const(c, 1), tfs_sc_const(c, 2), strides,
                         &c->in_shapes[0], &m, &sl, c->st))
    return -1;
  c->out_shapes[0] = sl.final;
  return 0;
}

/* ---- Pad ----------------------------------------------------------------- */

int tfs_shape_fn_pad(tfs_shape_ctx *c) {
  if (tfs_sc_with_rank(c, 1, 2)) return -1;
  const tfs_shape *p = &c->in_shapes[1];
  if (p->rank == 2 && p->dims[1] >= 0 && p->dims[1] != 2)
    return tfs_sc_error(c, "Dimension must be 2 but is %lld",
                        (long long)p->dims[1]);
  if (c->ninputs == 3 && tfs_sc_with_rank(c, 2, 0)) return -1;
  int64_t n = tfs_sc_dim(p, 0);
  const tfs_shape *in = &c->in_shapes[0];
  if (n >= 0 && tfs_sc_with_rank(c, 0, n)) return -1;
  if (n < 0 && in->rank >= 0) n = in->rank;
  const tfs_tensor *pt = tfs_sc_const(c, 1);
  if (!pt) {
    if (n >= 0 && n <= TFS_MAX_RANK)
      tfs_shape_unknown_dims(&c->out_shapes[0], (int)n);
    else
      c->out_shapes[0].rank = -1;
    return 0;
  }
  int64_t rows = pt->shape.dims[0];
  if (rows > TFS_MAX_RANK)
    return tfs_sc_error(c, "Pad of rank %lld exceeds the maximum rank %d",
                        (long long)rows, TFS_MAX_RANK);
  if (tfs_sc_with_rank(c, 0, rows)) return -1;
  tfs_shape out;
  out.rank = (int)rows;
  for (int i = 0; i < out.rank; i++) {
    int64_t a = tfs_tensor__get_as_int64(pt, 2 * i);
    int64_t b = tfs_tensor__get_as_int64(pt, 2 * i + 1);
    if (a < 0 || b < 0)
      return tfs_sc_error(c, "Paddings must be non-negative");
    int64_t ab;
    if (tfs_sc_add_dim(c, a, b, &ab) ||
        tfs_sc_add_dim(c, tfs_sc_dim(in, i), ab, &out.dims[i]))
      return -1;
  }
  c->out_shapes[0] = out;
  return 0;
}

/* ---- Tile / BroadcastTo -------------------------------------------------- */

int tfs_shape_fn_tile(tfs_shape_ctx *c) {
  const tfs_shape *in = &c->in_shapes[0];
  tfs_shape m;
  if (tfs_sc_with_rank(c, 1, 1) || tfs_sc_input_as_shape(c, 1, &m))
    return -1;
  if (in->rank >= 0) {
    if (m.rank >= 0 && m.rank != in->rank)
      return tfs_sc_error(c, "Shape must be rank %d but is rank %d",
                          in->rank, m.rank);
    int64_t len = tfs_sc_dim(&c->in_shapes[1], 0);
    if (len >= 0 && len != in->rank)
      return tfs_sc_error(c, "Dimension 0 in both shapes must be equal, but "
                          "are %lld and %d. Shapes are [%lld] and [%d].",
                          (long long)len, in->rank, (long long)len,
                          in->rank);
    if (m.rank < 0) tfs_shape_unknown_dims(&m, in->rank);
  }
  if (m.rank < 0) return tfs_shape_fn_unknown(c);
  if (tfs_sc_with_rank(c, 0, m.rank)) return -1;
  tfs_shape out;
  out.rank = m.rank;
  for (int i = 0; i < m.rank; i++) {
    if (tfs_sc_mul_dim(c, tfs_sc_dim(in, i), m.dims[i], &out.dims[i]))
      return -1;
  }
  c->out_shapes[0] = out;
  return 0;
}

int tfs_shape_fn_broadcast_to(tfs_shape_ctx *c) {
  tfs_shape out;
  if (tfs_sc_with_rank(c, 1, 1) || tfs_sc_input_as_shape(c, 1, &out))
    return -1;
  const tfs_shape *in = &c->in_shapes[0];
  if (out.rank < 0 || in->rank < 0) {
    c->out_shapes[0] = out;
    return 0;
  }
  if (in->rank > out.rank)
    return tfs_sc_error(c, "Shape must be at most rank %d but is rank %d",
                        out.rank, in->rank);
  for (int i = 0; i < in->rank; i++) {
    int64_t d = in->dims[in->rank - 1 - i];
    int64_t *o = &out.dims[out.rank - 1 - i];
    if (d > 1) {
      if (*o >= 0 && *o != d)
        return tfs_sc_error(c, "Dimensions must be equal, but are %lld and "
                            "%lld", (long long)d, (long long)*o);
      *o = d;
    }
  }
  c->out_shapes[0] = out;
  return 0;
}

/* ---- Transpose ----------------------------------------------------------- */

int tfs_shape_fn_transpose(tfs_shape_ctx *c) {
  const tfs_shape *in = &c->in_shapes[0], *ps = &c->in_shapes[1];
  const tfs_tensor *perm = tfs_sc_const(c, 1);
  int64_t pn = ps->rank == 1 ? ps->dims[0] : ps->rank == 0 ? 1 : -1;
  if (in->rank < 0 && pn < 0 && !perm) return tfs_shape_fn_unknown(c);
  int64_t rank = in->rank >= 0 ? in->rank : pn >= 0 ? pn : perm->nelems;
  if (in->rank < 0 && rank < 2) {
    c->out_shapes[0] = *in;
    return 0;
  }
  if (rank > TFS_MAX_RANK)
    return tfs_sc_error(c, "Transpose of rank %lld exceeds the maximum rank "
                        "%d", (long long)rank, TFS_MAX_RANK);
  if (tfs_sc_with_rank(c, 0, rank) || tfs_sc_with_rank(c, 1, 1))
    return -1;
  if (pn >= 0 && pn != rank)
    return tfs_sc_error(c, "Dimension must be %lld but is %lld",
                        (long long)rank, (long long)pn);
  tfs_shape out;
  tfs_shape_unknown_dims(&out, (int)rank);
  for (int i = 0; perm && i < rank; i++) {
    int64_t p = tfs_tensor__get_as_int64(perm, i);
    if (p >= rank || p < -rank)
      return tfs_sc_error(c, "perm dim %lld is out of range of input rank "
                          "%lld", (long long)p, (long long)rank);
    out.dims[i] = tfs_sc_dim(in, (int)p);
  }
  c->out_shapes[0] = out;
  return 0;
}
