/*
 * ops/array_shape_fns_index.c - shape functions of the indexing and
 * rearranging array ops: GatherV2, GatherNd, ScatterNd, OneHot, Range,
 * TopKV2, SpaceToBatchND, BatchToSpaceND, DepthToSpace, SpaceToDepth,
 * the image resizes and Einsum, with TensorFlow's messages.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/half.h"
#include "core/status.h"
#include "ops/array_shape_fns.h"
#include "ops/einsum_spec.h"

static int append(tfs_shape_ctx *c, tfs_shape *out, const tfs_shape *s,
                  int from, int to) {
  for (int i = from; i < to; i++) {
    if (out->rank >= TFS_MAX_RANK)
      return tfs_sc_error(c, "Result has more than %d dimensions",
                          TFS_MAX_RANK);
    out->dims[out->rank++] = s->dims[i];
  }
  return 0;
}

/* ---- GatherV2 / GatherNd / ScatterNd ------------------------------------- */

/* batch_dims against the ranks that are known (TensorFlow's GatherV2:
 * -rank(indices) <= batch_dims <= rank(indices), a negative one counts
 * from rank(indices), then batch_dims < rank(params)); *bd becomes the
 * non-negative value, or -1 when a negative one meets an unknown rank. */
static int gather_batch_dims(tfs_shape_ctx *c, const tfs_shape *p,
                             const tfs_shape *ix, int64_t *bd) {
  if (ix->rank >= 0) {
    if (*bd < -ix->rank || *bd > ix->rank)
      return tfs_sc_error(c, "Expected batch_dims in the range [%d, %d], "
                          "but got %lld", -ix->rank, ix->rank,
                          (long long)*bd);
    if (*bd < 0) *bd += ix->rank;
  } else if (*bd < -TFS_MAX_RANK || *bd > TFS_MAX_RANK) {
    return tfs_sc_error(c, "Expected batch_dims in the range [%d, %d], but "
                        "got %lld", -TFS_MAX_RANK, TFS_MAX_RANK,
                        (long long)*bd);
  } else if (*bd < 0) {
    *bd = -1;
    return 0;
  }
  if (p->rank >= 0 && *bd >= p->rank)
    return tfs_sc_error(c, "batch_dims (%lld) must be less than rank(params) "
                        "(%d).", (long long)*bd, p->rank);
  return 0;
}

int tfs_shape_fn_gather_v2(tfs_shape_ctx *c) {
  const tfs_shape *p = &c->in_shapes[0], *ix = &c->in_shapes[1];
  if (tfs_sc_with_rank_at_least(c, 0, 1) || tfs_sc_with_rank(c, 2, 0))
    return -1;
  int64_t batch_dims = 0, axis;
  tfs_attrs_get_int(c->attrs, "batch_dims", &batch_dims);
  if (gather_batch_dims(c, p, ix, &batch_dims)) return -1;
  if (tfs_sc_const_scalar(c, 2, &axis)) {
    /* rank(params) + rank(indices) - 1 - batch_dims: up to 2 * 16 - 1
     * with the ranks in range, so it is checked like append() does */
    int64_t r = p->rank >= 0 && ix->rank >= 0 && batch_dims >= 0
                    ? (int64_t)p->rank + ix->rank - 1 - batch_dims
                    : -1;
    if (r > TFS_MAX_RANK)
      return tfs_sc_error(c, "Result has more than %d dimensions",
                          TFS_MAX_RANK);
    if (r >= 0)
      tfs_shape_unknown_dims(&c->out_shapes[0], (int)r);
    else
      c->out_shapes[0].rank = -1;
    return 0;
  }
  if (tfs_sc_with_rank_for_axis(c, 0, axis)) return -1;
  if (p->rank < 0 || ix->rank < 0) return tfs_shape_fn_unknown(c);
  if (axis < 0) axis += p->rank;
  if (batch_dims > axis)
    return tfs_sc_error(c, "batch_dims (%lld) must be less than or equal to "
                        "axis (%lld).", (long long)batch_dims,
                        (long long)axis);
  tfs_shape out = {.rank = 0};
  if (append(c, &out, p, 0, (int)axis) ||
      append(c, &out, ix, (int)batch_dims, ix->rank) ||
      append(c, &out, p, (int)axis + 1, p->rank))
    return -1;
  c->out_shapes[0] = out;
  return 0;
}

/* Gather (V1): indices' shape, then params' without its first dim */
int tfs_shape_fn_gather(tfs_shape_ctx *c) {
  const tfs_shape *p = &c->in_shapes[0], *ix = &c->in_shapes[1];
  if (tfs_sc_with_rank_at_least(c, 0, 1)) return -1;
  if (p->rank < 0 || ix->rank < 0) return tfs_shape_fn_unknown(c);
  tfs_shape out = {.rank = 0};
  if (append(c, &out, ix, 0, ix->rank) || append(c, &out, p, 1, p->rank))
    return -1;
  c->out_shapes[0] = out;
  return 0;
}

int tfs_shape_fn_gather_nd(tfs_shape_ctx *c) {
  const tfs_shape *p = &c->in_shapes[0], *ix = &c->in_shapes[1];
  if (tfs_sc_with_rank_at_least(c, 0, 1) ||
      tfs_sc_with_rank_at_least(c, 1, 1))
    return -1;
  int64_t r = tfs_sc_dim(ix, -1);
  if (p->rank < 0 || r < 0) return tfs_shape_fn_unknown(c);
  if (r > p->rank) {
    char a[TFS_SHAPE_STRLEN], b[TFS_SHAPE_STRLEN];
    return tfs_sc_error(c, "indices.shape[-1] must be <= params.rank, but "
                        "saw indices shape: %s and params shape: %s",
                        tfs_shape_str(ix, a, sizeof a),
                        tfs_shape_str(p, b, sizeof b));
  }
  tfs_shape out = {.rank = 0};
  if (append(c, &out, ix, 0, ix->rank - 1) ||
      append(c, &out, p, (int)r, p->rank))
    return -1;
  c->out_shapes[0] = out;
  return 0;
}

/* s[from, to) with from and to clamped to [0, rank] (TensorFlow's
 * Subshape with a start past the end gives an empty shape). */
static tfs_shape sub(const tfs_shape *s, int64_t from, int64_t to) {
  tfs_shape r = {.rank = 0};
  if (s->rank < 0) {
    r.rank = -1;
    return r;
  }
  if (to > s->rank) to = s->rank;
  if (from < 0) from = 0;
  for (int64_t i = from; i < to; i++) r.dims[r.rank++] = s->dims[i];
  return r;
}

/* Merges a[a0,a1) with b[b0,b1); on a conflict, TensorFlow's ScatterNd
 * message around the merge error. */
static int merge_sub(tfs_shape_ctx *c, const char *what, const tfs_shape *a,
                     int64_t a0, int64_t a1, const tfs_shape *b, int b0,
                     int b1) {
  tfs_shape x = sub(a, a0, a1), y = sub(b, b0, b1), m;
  if (tfs_sc_merge_shapes(c, &x, &y, &m) == 0) return 0;
  char *why = tfs_strdup(tfs_status_message(c->st));
  char sa[TFS_SHAPE_STRLEN], sb[TFS_SHAPE_STRLEN];
  char sx[TFS_SHAPE_STRLEN], sy[TFS_SHAPE_STRLEN];
  tfs_sc_error(c, "Dimensions [%lld,%lld) of %s[shape=%s] = %s must match "
               "dimensions [%d,%d) of updates[shape=%s] = %s: %s",
               (long long)a0, (long long)a1, what,
               tfs_shape_str(a, sa, sizeof sa),
               tfs_shape_str(&x, sx, sizeof sx), b0, b1,
               tfs_shape_str(b, sb, sizeof sb),
               tfs_shape_str(&y, sy, sizeof sy), why ? why : "");
  tfs_free(why);
  return -1;
}

int tfs_shape_fn_scatter_nd(tfs_shape_ctx *c) {
  tfs_shape out;
  if (tfs_sc_with_rank_at_least(c, 0, 1) ||
      tfs_sc_with_rank_at_least(c, 1, 1) || tfs_sc_with_rank(c, 2, 1) ||
      tfs_sc_input_as_shape(c, 2, &out) ||
      tfs_sc_scatter_nd_check(c, &c->in_shapes[0], &c->in_shapes[1], &out))
    return -1;
  c->out_shapes[0] = out;
  return 0;
}

int tfs_sc_scatter_nd_check(tfs_shape_ctx *c, const tfs_shape *ix,
                            const tfs_shape *up, const tfs_shape *outp) {
  tfs_shape out = *outp;
  int64_t on = tfs_shape_num_elements(&out);
  int64_t in = tfs_shape_num_elements(ix), un = tfs_shape_num_elements(up);
  if (on == 0 && out.rank >= 0 && (in > 0 || un > 0))
    return tfs_sc_error(c, "Indices and updates specified for empty output "
                        "shape");
  int64_t k = tfs_sc_dim(ix, -1);
  if (ix->rank >= 0 && up->rank >= 0 && k >= 0 && out.rank >= 0) {
    int outer = ix->rank - 1;
    if (merge_sub(c, "indices", ix, 0, outer, up, 0, outer) ||
        merge_sub(c, "input", &out, k, out.rank, up, outer, up->rank))
      return -1;
  }
  return 0;
}

int tfs_shape_fn_one_hot(tfs_shape_ctx *c) {
  int64_t axis = -1, depth = -1;
  tfs_attrs_get_int(c->attrs, "axis", &axis);
  if (axis < -1) return tfs_sc_error(c, "axis must be >= -1");
  if (tfs_sc_const_scalar(c, 1, &depth) == 0 && depth < 0)
    return tfs_sc_error(c, "Dimension size, given by scalar input 1, must "
                        "be non-negative but is %lld", (long long)depth);
  const tfs_shape *ix = &c->in_shapes[0];
  if (ix->rank < 0) return tfs_shape_fn_unknown(c);
  if (ix->rank >= TFS_MAX_RANK)
    return tfs_sc_error(c, "OneHot result has more than %d dimensions",
                        TFS_MAX_RANK);
  int nr = ix->rank + 1;
  /* the kernel's check and message: the new dim goes at axis, which must
   * name one of the nr output dims (-1: the last) */
  if (axis >= nr)
    return tfs_sc_error(c, "Expected axis to be -1 or between [0, %d).  But "
                        "received: %lld", nr, (long long)axis);
  int at = axis < 0 ? nr - 1 : (int)axis;
  tfs_shape out;
  out.rank = nr;
  for (int i = 0, j = 0; i < nr; i++)
    out.dims[i] = i == at ? depth : ix->dims[j++];
  c->out_shapes[0] = out;
  return 0;
}

/* ---- Range / TopKV2 ------------------------------------------------------ */

static double scalar_value(const tfs_tensor *t) {
  if (t->dtype == TFS_HALF)
    return tfs_half_to_float(*(const uint16_t *)t->data);
  if (t->dtype == TFS_BFLOAT16)
    return tfs_bf16_to_float(*(const uint16_t *)t->data);
  return tfs_tensor__get_as_double(t, 0);
}

int tfs_shape_fn_range(tfs_shape_ctx *c) {
  static const char *const names[] = {"start", "limit", "delta"};
  for (int i = 0; i < 3; i++) {
    if (tfs_sc_with_rank(c, i, 0)) {
      tfs_status_appendf(c->st, " for '%s'", names[i]);
      return -1;
    }
  }
  const tfs_tensor *s = tfs_sc_const(c, 0), *l = tfs_sc_const(c, 1),
                   *d = tfs_sc_const(c, 2);
  tfs_shape_1d(&c->out_shapes[0], -1);
  if (!s || !l || !d) return 0;
  int is_int = s->dtype != TFS_FLOAT && s->dtype != TFS_DOUBLE &&
               s->dtype != TFS_HALF && s->dtype != TFS_BFLOAT16;
  double start = scalar_value(s), limit = scalar_value(l),
         delta = scalar_value(d);
  if (start > limit && delta > 0)
    return tfs_sc_error(c, "Requires start <= limit when delta > 0: %g/%g",
                        start, limit);
  if (start < limit && delta < 0)
    return tfs_sc_error(c, "Requires start >= limit when delta < 0: %g/%g",
                        start, limit);
  if (delta == 0) return tfs_sc_error(c, "Requires delta != 0");
  double size = is_int ? floor((fabs(limit - start) + fabs(delta) - 1) /
                               fabs(delta))
                       : ceil(fabs((limit - start) / delta));
  if (!(size <= 9.2233720368547748e18))
    return tfs_sc_error(c, "Requires ((limit - start) / delta) <= "
                        "9223372036854775807");
  c->out_shapes[0].dims[0] = (int64_t)size;
  return 0;
}

int tfs_shape_fn_top_k(tfs_shape_ctx *c) {
  if (tfs_sc_with_rank_at_least(c, 0, 1) || tfs_sc_with_rank(c, 1, 0))
    return -1;
  int64_t k = -1;
  if (tfs_sc_const_scalar(c, 1, &k) == 0 && k < 0)
    return tfs_sc_error(c, "Dimension size, given by scalar input 1, must "
                        "be non-negative but is %lld", (long long)k);
  const tfs_shape *in = &c->in_shapes[0];
  if (in->rank < 0) return tfs_shape_fn_unknown(c);
  int64_t last = in->dims[in->rank - 1];
  if (last >= 0 && k >= 0 && last < k)
    return tfs_sc_error(c, "input must have last dimension >= k = %lld but "
                        "is %lld", (long long)k, (long long)last);
  tfs_shape out = *in;
  out.dims[in->rank - 1] = k;
  c->out_shapes[0] = c->out_shapes[1] = out;
  return 0;
}

/* ---- SpaceToBatchND / BatchToSpaceND ------------------------------------- */

/* Common checks; *m receives the number of block dims. */
static int block_dims(tfs_shape_ctx *c, int *m) {
  const tfs_shape *b = &c->in_shapes[1], *p = &c->in_shapes[2];
  if (b->rank != 1) return tfs_sc_error(c, "block_shape must have rank 1.");
  if (b->dims[0] < 0)
    return tfs_sc_error(c, "block_shape must have known size.");
  if (tfs_sc_with_rank(c, 2, 2)) return -1;
  if (p->rank == 2 && p->dims[1] >= 0 && p->dims[1] != 2)
    return tfs_sc_error(c, "Dimension must be 2 but is %lld",
                        (long long)p->dims[1]);
  if (b->dims[0] >= TFS_MAX_RANK)
    return tfs_sc_error(c, "block_shape has too many dimensions");
  *m = (int)b->dims[0];
  if (tfs_sc_with_rank_at_least(c, 0, *m + 1)) return -1;
  if (p->rank == 2 && p->dims[0] >= 0 && p->dims[0] != *m)
    return tfs_sc_error(c, "Dimension 0 in both shapes must be equal, but "
                        "are %lld and %d. Shapes are [%lld,2] and [%d,2].",
                        (long long)p->dims[0], *m, (long long)p->dims[0],
                        *m);
  const tfs_tensor *bt = tfs_sc_const(c, 1);
  for (int i = 0; bt && i < *m; i++)
    if (tfs_tensor__get_as_int64(bt, i) < 1)
      return tfs_sc_error(c, "block_shape must be positive");
  return 0;
}

static int space_batch(tfs_shape_ctx *c, int to_batch) {
  int m = 0;
  if (block_dims(c, &m)) return -1;
  const tfs_shape *in = &c->in_shapes[0];
  if (in->rank < 0) return tfs_shape_fn_unknown(c);
  const tfs_tensor *bt = tfs_sc_const(c, 1), *pt = tfs_sc_const(c, 2);
  tfs_shape out = *in;
  for (int i = 0; i <= m; i++) out.dims[i] = -1;
  int64_t batch = in->dims[0];
  for (int i = 0; bt && i < m && batch >= 0; i++) {
    int64_t b = tfs_tensor__get_as_int64(bt, i);
    if (to_batch) {
      if (tfs_sc_mul_dim(c, batch, b, &batch)) return -1;
    } else if (batch % b) {
      return tfs_sc_error(c, "Dimension size must be evenly divisible by "
                          "%lld but is %lld", (long long)b, (long long)batch);
    } else {
      batch /= b;
    }
  }
  out.dims[0] = bt || m == 0 ? batch : -1;
  for (int i = 0; pt && i < m; i++) {
    int64_t a = tfs_tensor__get_as_int64(pt, 2 * i);
    int64_t e = tfs_tensor__get_as_int64(pt, 2 * i + 1);
    if (a < 0 || e < 0)
      return tfs_sc_error(c, to_batch ? "paddings cannot be negative"
                                      : "crops cannot be negative");
    int64_t d = in->dims[i + 1];
    if (!bt || d < 0) continue;
    int64_t b = tfs_tensor__get_as_int64(bt, i), ae, v;
    if (tfs_sc_add_dim(c, a, e, &ae)) return -1;
    if (to_batch) {
      if (tfs_sc_add_dim(c, d, ae, &v)) return -1;
      if (v % b)
        return tfs_sc_error(c, "Dimension size must be evenly divisible by "
                            "%lld but is %lld", (long long)b, (long long)v);
      out.dims[i + 1] = v / b;
    } else {
      if (tfs_sc_mul_dim(c, d, b, &v)) return -1;
      if (v < ae)
        return tfs_sc_error(c, "Negative dimension size caused by "
                            "subtracting %lld from %lld", (long long)ae,
                            (long long)v);
      out.dims[i + 1] = v - ae;
    }
  }
  c->out_shapes[0] = out;
  return 0;
}

int tfs_shape_fn_space_to_batch(tfs_shape_ctx *c) {
  return space_batch(c, 1);
}

int tfs_shape_fn_batch_to_space(tfs_shape_ctx *c) {
  return space_batch(c, 0);
}

/* ---- DepthToSpace / SpaceToDepth ----------------------------------------- */

static int depth_space(tfs_shape_ctx *c, int to_space) {
  size_t len;
  const char *fmt = tfs_attrs_get_string(c->attrs, "data_format", &len);
  int nchw = fmt && len == 4 && memcmp(fmt, "NCHW", 4) == 0;
  if (fmt && len > 4) return tfs_shape_fn_unknown(c); /* NCHW_VECT_C */
  if (tfs_sc_with_rank(c, 0, 4)) return -1;
  const tfs_shape *in = &c->in_shapes[0];
  if (in->rank < 0) {
    tfs_shape_unknown_dims(&c->out_shapes[0], 4);
    return 0;
  }
  int64_t bs = 2;
  tfs_attrs_get_int(c->attrs, "block_size", &bs);
  int hd = nchw ? 2 : 1, wd = nchw ? 3 : 2, cd = nchw ? 1 : 3;
  tfs_shape out = *in;
  int64_t h = in->dims[hd], w = in->dims[wd], d = in->dims[cd];
  int64_t div = bs;
  /* block_size >= 2 (its attr minimum), but any larger int64 may come */
  if (to_space && tfs_sc_mul_dim(c, bs, bs, &div)) return -1;
  if (to_space) {
    if (d >= 0 && d % div)
      return tfs_sc_error(c, "Dimension size must be evenly divisible by "
                          "%lld but is %lld", (long long)div, (long long)d);
    if (tfs_sc_mul_dim(c, h, bs, &out.dims[hd]) ||
        tfs_sc_mul_dim(c, w, bs, &out.dims[wd]))
      return -1;
    out.dims[cd] = d < 0 ? -1 : d / div;
  } else {
    if ((h >= 0 && h % bs) || (w >= 0 && w % bs))
      return tfs_sc_error(c, "Dimension size must be evenly divisible by "
                          "%lld but is %lld", (long long)bs,
                          (long long)(h >= 0 && h % bs ? h : w));
    out.dims[hd] = h < 0 ? -1 : h / bs;
    out.dims[wd] = w < 0 ? -1 : w / bs;
    if (tfs_sc_mul_dim(c, d, bs, &out.dims[cd]) ||
        tfs_sc_mul_dim(c, out.dims[cd], bs, &out.dims[cd]))
      return -1;
  }
  c->out_shapes[0] = out;
  return 0;
}

int tfs_shape_fn_depth_to_space(tfs_shape_ctx *c) {
  return depth_space(c, 1);
}

int tfs_shape_fn_space_to_depth(tfs_shape_ctx *c) {
  return depth_space(c, 0);
}

/* ---- ResizeBilinear / ResizeNearestNeighbor ------------------------------ */

int tfs_shape_fn_resize(tfs_shape_ctx *c) {
  if (tfs_sc_with_rank(c, 0, 4) || tfs_sc_with_rank(c, 1, 1)) return -1;
  const tfs_shape *sz = &c->in_shapes[1];
  if (sz->rank == 1 && sz->dims[0] >= 0 && sz->dims[0] != 2)
    return tfs_sc_error(c, "Dimension must be 2 but is %lld",
                        (long long)sz->dims[0]);
  const tfs_tensor *st = tfs_sc_const(c, 1);
  const tfs_shape *in = &c->in_shapes[0];
  tfs_shape out;
  tfs_shape_unknown_dims(&out, 4);
  out.dims[0] = tfs_sc_dim(in, 0);
  out.dims[3] = tfs_sc_dim(in, 3);
  if (st && st->nelems == 2) {
    int64_t h = tfs_tensor__get_as_int64(st, 0);
    int64_t w = tfs_tensor__get_as_int64(st, 1);
    out.dims[1] = h >= 0 ? h : -1;
    out.dims[2] = w >= 0 ? w : -1;
  }
  c->out_shapes[0] = out;
  return 0;
}

/* ---- Einsum -------------------------------------------------------------- */

int tfs_shape_fn_einsum(tfs_shape_ctx *c) {
  size_t len;
  const char *eq = tfs_attrs_get_string(c->attrs, "equation", &len);
  tfs_einsum_spec s;
  if (!eq) return tfs_sc_error(c, "Einsum has no equation");
  if (tfs_einsum_parse(eq, len, c->ninputs, &s, c->st)) return -1;
  const tfs_shape *in[2] = {&c->in_shapes[0],
                            &c->in_shapes[c->ninputs > 1 ? 1 : 0]};
  for (int i = 0; i < c->ninputs; i++) {
    if (in[i]->rank < 0) {
      if (s.out.has_ellipsis) return tfs_shape_fn_unknown(c);
      tfs_shape_unknown_dims(&c->out_shapes[0], s.out.n);
      return 0;
    }
  }
  tfs_einsum_dims d;
  if (tfs_einsum_resolve(&s, in, 1, &d, c->st)) return -1;
  tfs_shape out;
  out.rank = d.out_rank;
  for (int i = 0; i < d.out_rank; i++)
    out.dims[i] = d.label_dim[d.out_labels[i]];
  c->out_shapes[0] = out;
  return 0;
}
