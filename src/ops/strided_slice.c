/*
 * ops/strided_slice.c - StridedSlice's sparse-to-dense spec expansion and
 * per-dim canonicalisation (TensorFlow's ValidateStridedSliceOp rules),
 * shared by the shape function and the CPU kernel.
 */
#include "ops/strided_slice.h"

#define NEW_AXIS (-1)
#define SHRINK_AXIS (-2)

typedef struct {
  int dims;                      /* input rank */
  int64_t begin_mask, end_mask, shrink_mask;
  int64_t begin[TFS_MAX_RANK], end[TFS_MAX_RANK], stride[TFS_MAX_RANK];
  int gather[2 * TFS_MAX_RANK + 1]; /* final shape: dense index or mark */
  int ngather;
} dense_spec;

static int bit(int64_t mask, int i) { return i < 63 && ((mask >> i) & 1); }

static int push_gather(dense_spec *d, int v, tfs_status *st) {
  if (d->ngather >= TFS_MAX_RANK * 2) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "StridedSlice spec has too many dimensions");
    return -1;
  }
  d->gather[d->ngather++] = v;
  return 0;
}

/* Expands the sparse spec (with its single ellipsis) into one entry per
 * input dim. */
static int build_dense(int sparse_dims, const tfs_sslice_masks *m,
                       int64_t ellipsis, int after_ellipsis,
                       const tfs_tensor *b, const tfs_tensor *e,
                       const tfs_tensor *s, dense_spec *d, tfs_status *st) {
  int full = 0;
  for (int i = 0; i < sparse_dims; i++) {
    if (bit(ellipsis, i)) {
      int next = d->dims - (sparse_dims - i) + 1 + after_ellipsis;
      if (next > d->dims) next = d->dims;
      for (; full < next; full++) {
        d->begin[full] = d->end[full] = 0;
        d->stride[full] = 1;
        d->begin_mask |= 1ll << full;
        d->end_mask |= 1ll << full;
        if (push_gather(d, full, st)) return -1;
      }
    } else if (bit(m->new_axis, i)) {
      if (push_gather(d, NEW_AXIS, st)) return -1;
    } else {
      if (full == d->dims) {
        tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                        "Index out of range using input dim %d; input has "
                        "only %d dims", full, d->dims);
        return -1;
      }
      d->begin[full] = b ? tfs_tensor__get_as_int64(b, i) : 0;
      d->end[full] = e ? tfs_tensor__get_as_int64(e, i) : 0;
      d->stride[full] = tfs_tensor__get_as_int64(s, i);
      if (bit(m->begin, i)) d->begin_mask |= 1ll << full;
      if (bit(m->end, i)) d->end_mask |= 1ll << full;
      if (bit(m->shrink_axis, i)) {
        if (push_gather(d, SHRINK_AXIS, st)) return -1;
        d->shrink_mask |= 1ll << full;
      } else if (push_gather(d, full, st)) {
        return -1;
      }
      full++;
    }
  }
  return 0;
}

static int64_t canonical(int64_t x, int c, int64_t stride, int64_t dim,
                         int masked) {
  int64_t lo = stride > 0 ? 0 : -1, hi = stride > 0 ? dim : dim - 1;
  if (masked) {
    if (stride > 0) return c == 0 ? lo : hi;
    return c == 0 ? hi : lo;
  }
  int64_t fwd = x < 0 ? dim + x : x;
  return fwd < lo ? lo : fwd > hi ? hi : fwd;
}

/* Canonical begin/end of dense dim i and its slice length (-1 unknown). */
static int process_dim(dense_spec *d, int i, int64_t dim, int known,
                       tfs_sslice *out, tfs_status *st) {
  int64_t *bi = &d->begin[i], *ei = &d->end[i], si = d->stride[i];
  int shrink = bit(d->shrink_mask, i);
  if (si == 0) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT, "strides[%d] must be non-zero",
                    i);
    return -1;
  }
  if (dim < 0) {
    out->processing.dims[i] = shrink ? 1 : -1;
    out->is_identity = 0;
    return 0;
  }
  if (shrink && si <= 0) {
    tfs_status_set(st, TFS_INVALID_ARGUMENT,
                   "only stride 1 allowed on non-range indexing.");
    return -1;
  }
  int both = bit(d->begin_mask, i) && bit(d->end_mask, i);
  int64_t len = 0;
  int known_len = 0;
  if (known) {
    if (shrink) {
      int64_t fwd = *bi < 0 ? dim + *bi : *bi;
      if (fwd < 0 || fwd >= dim) { /* before fwd + 1 can overflow */
        tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                        "slice index %lld of dimension %d out of bounds.",
                        (long long)fwd, i);
        return -1;
      }
      *bi = fwd;
      *ei = fwd + 1;
    } else {
      *bi = canonical(*bi, 0, si, dim, bit(d->begin_mask, i));
      *ei = canonical(*ei, 1, si, dim, bit(d->end_mask, i));
    }
    len = *ei - *bi;
    known_len = 1;
    if (!(si == 1 && *bi == 0 && *ei == dim)) out->is_identity = 0;
  } else {
    out->is_identity &= si == 1 && both;
    if (shrink) {
      len = 1;
      known_len = 1;
    } else if (both) {
      len = si < 0 ? -dim : dim;
      known_len = 1;
    }
  }
  if (!known_len) {
    out->processing.dims[i] = -1;
  } else if (len == 0 || ((len < 0) != (si < 0))) {
    out->processing.dims[i] = 0;
  } else {
    out->processing.dims[i] = len / si + (len % si != 0 ? 1 : 0);
  }
  return 0;
}

int tfs_sslice_compute(const tfs_tensor *begin, const tfs_tensor *end,
                       const tfs_tensor *strides, const tfs_shape *in,
                       const tfs_sslice_masks *m, tfs_sslice *out,
                       tfs_status *st) {
  int sparse_dims = (int)strides->nelems;
  if (strides->nelems > 62) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "StridedSlice spec of %lld dims is too long",
                    (long long)strides->nelems);
    return -1;
  }
  if (m->ellipsis && (m->ellipsis & (m->ellipsis - 1)) != 0) {
    tfs_status_set(st, TFS_INVALID_ARGUMENT,
                   "Multiple ellipses in slice spec not allowed");
    return -1;
  }
  int seen = 0, after = 0;
  int64_t ellipsis = m->ellipsis;
  for (int i = 0; i < sparse_dims; i++) {
    if (seen && bit(m->new_axis, i)) after++;
    if (bit(ellipsis, i)) seen = 1;
  }
  if (!seen) ellipsis |= 1ll << sparse_dims++;
  dense_spec d = {.dims = in->rank};
  if (build_dense(sparse_dims, m, ellipsis, after, begin, end, strides, &d,
                  st))
    return -1;
  int known = begin && end;
  out->processing.rank = in->rank;
  out->is_identity = 1;
  for (int i = 0; i < in->rank; i++) {
    if (process_dim(&d, i, in->dims[i], known, out, st)) return -1;
    out->begin[i] = d.begin[i];
    out->end[i] = d.end[i];
    out->stride[i] = d.stride[i];
  }
  out->final.rank = 0;
  for (int k = 0; k < d.ngather; k++) {
    int g = d.gather[k];
    if (g == SHRINK_AXIS) continue;
    if (out->final.rank >= TFS_MAX_RANK) {
      tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                      "StridedSlice result has more than %d dimensions",
                      TFS_MAX_RANK);
      return -1;
    }
    out->final.dims[out->final.rank++] =
        g == NEW_AXIS ? 1 : out->processing.dims[g];
  }
  return 0;
}

int tfs_sslice_compute_run(const tfs_tensor *begin, const tfs_tensor *end,
                           const tfs_tensor *strides, const tfs_shape *in,
                           const tfs_sslice_masks *m, tfs_sslice *out,
                           tfs_status *st) {
  const tfs_shape *b = &begin->shape, *e = &end->shape, *s = &strides->shape;
  if (b->rank != 1 || e->rank != 1 || s->rank != 1 ||
      begin->nelems != end->nelems || begin->nelems != strides->nelems) {
    char x[TFS_SHAPE_STRLEN], y[TFS_SHAPE_STRLEN], z[TFS_SHAPE_STRLEN];
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "Expected begin, end, and strides to be 1D equal size "
                    "tensors, but got shapes %s, %s, and %s instead.",
                    tfs_shape_str(b, x, sizeof x), tfs_shape_str(e, y, sizeof y),
                    tfs_shape_str(s, z, sizeof z));
    return -1;
  }
  return tfs_sslice_compute(begin, end, strides, in, m, out, st);
}
