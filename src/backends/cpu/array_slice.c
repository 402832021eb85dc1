/*
 * backends/cpu/array_slice.c - Slice, StridedSlice (all five masks, via the
 * spec in ops/strided_slice.h), Pad, PadV2 and MirrorPad.  Slices that are
 * one contiguous window of the input are returned as views of its buffer;
 * the rest go through the strided copy engine.
 */
#include <stdatomic.h>
#include <string.h>

#include "core/alloc.h"
#include "backends/cpu/array_util.h"
#include "ops/strided_slice.h"

/* Offset of the window when slicing [begin, begin + size*step) out of
 * dims is one contiguous run of the input, else -1. */
static int64_t window_offset(int r, const int64_t *dims,
                             const int64_t *begin, const int64_t *size,
                             const int64_t *step) {
  int64_t strides[TFS_MAX_RANK], off = 0;
  tfs_arr_strides(dims, r, strides);
  int p = 0;
  while (p < r && size[p] == 1) p++;
  for (int k = 0; k < r; k++) {
    if (size[k] == 0) return -1;
    if (k == p && size[k] > 1 && step[k] != 1) return -1;
    if (k > p && (size[k] != dims[k] || begin[k] != 0 || step[k] != 1))
      return -1;
    off += begin[k] * strides[k];
  }
  return off;
}

/* Copies the slice [begin_k + i*step_k] of x into a new output 0. */
static void copy_slice(tfs_kernel_ctx *c, const tfs_tensor *x,
                       const tfs_shape *out, const int64_t *begin,
                       const int64_t *size, const int64_t *step) {
  int r = x->shape.rank;
  int64_t win = window_offset(r, x->shape.dims, begin, size, step);
  if (win >= 0) {
    tfs_arr_set_view(c, 0, x, out, win);
    return;
  }
  tfs_tensor *o = tfs_kctx_alloc_output(c, 0, out);
  if (!o || o->nelems == 0) return;
  int64_t strides[TFS_MAX_RANK], base = 0;
  tfs_arr_strides(x->shape.dims, r, strides);
  tfs_strided p = {.rank = r};
  for (int k = 0; k < r; k++) {
    p.dims[k] = size[k];
    p.src_stride[k] = strides[k] * step[k];
    base += begin[k] * strides[k];
  }
  tfs_arr_strides(p.dims, r, p.dst_stride);
  tfs_elem e = tfs_elem_of(x->dtype);
  tfs_strided_copy(c, e, o->data,
                   (const char *)x->data + base * (int64_t)e.size, &p);
}

/* ---- Slice --------------------------------------------------------------- */

static void slice_compute(tfs_kernel_ctx *c) {
  const tfs_tensor *x = c->inputs[0], *bt = c->inputs[1], *st = c->inputs[2];
  char a[TFS_SHAPE_STRLEN], b[TFS_SHAPE_STRLEN];
  int r = x->shape.rank;
  if (bt->shape.rank != 1 || st->shape.rank != 1 || bt->nelems != r ||
      st->nelems != r) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Expected begin and size arguments to be 1-D tensors of "
                  "size %d, but got shapes %s and %s instead.", r,
                  tfs_shape_str(&bt->shape, a, sizeof a),
                  tfs_shape_str(&st->shape, b, sizeof b));
    return;
  }
  int64_t begin[TFS_MAX_RANK], size[TFS_MAX_RANK], step[TFS_MAX_RANK];
  tfs_shape out;
  out.rank = r;
  for (int i = 0; i < r; i++) {
    int64_t dim = x->shape.dims[i];
    begin[i] = tfs_tensor__get_as_int64(bt, i);
    size[i] = tfs_tensor__get_as_int64(st, i);
    step[i] = 1;
    if (size[i] == -1) size[i] = dim - begin[i];
    if (dim == 0) {
      if (begin[i] != 0 || size[i] != 0) {
        tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                      "Expected begin[%d] == 0 (got %lld) and size[%d] == 0 "
                      "(got %lld) when input.dim_size(%d) == 0", i,
                      (long long)begin[i], i, (long long)size[i], i);
        return;
      }
    } else if (begin[i] < 0 || begin[i] > dim) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "Expected begin[%d] in [0, %lld], but got %lld", i,
                    (long long)dim, (long long)begin[i]);
      return;
    } else if (size[i] < 0 || begin[i] + size[i] > dim) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "Expected size[%d] in [0, %lld], but got %lld", i,
                    (long long)(dim - begin[i]), (long long)size[i]);
      return;
    }
    out.dims[i] = size[i];
  }
  copy_slice(c, x, &out, begin, size, step);
}

/* ---- StridedSlice -------------------------------------------------------- */

static int ss_prepare(tfs_kernel_init *ki) {
  tfs_sslice_masks *m = tfs_calloc(1, sizeof(*m));
  if (!m) return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  tfs_attrs_get_int(ki->attrs, "begin_mask", &m->begin);
  tfs_attrs_get_int(ki->attrs, "end_mask", &m->end);
  tfs_attrs_get_int(ki->attrs, "ellipsis_mask", &m->ellipsis);
  tfs_attrs_get_int(ki->attrs, "new_axis_mask", &m->new_axis);
  tfs_attrs_get_int(ki->attrs, "shrink_axis_mask", &m->shrink_axis);
  ki->state = m;
  return 0;
}

static void strided_slice_compute(tfs_kernel_ctx *c) {
  const tfs_tensor *x = c->inputs[0], *bt = c->inputs[1], *et = c->inputs[2],
                   *st = c->inputs[3];
  tfs_sslice sl;
  if (tfs_sslice_compute_run(bt, et, st, &x->shape, c->state, &sl, c->st)) {
    tfs_kctx_fail_status(c, c->st);
    return;
  }
  if (sl.is_identity) {
    tfs_arr_set_view(c, 0, x, &sl.final, 0);
    return;
  }
  copy_slice(c, x, &sl.final, sl.begin, sl.processing.dims, sl.stride);
}

/* ---- Pad / PadV2 --------------------------------------------------------- */

/* Reads paddings [rank, 2] after TensorFlow's checks. */
static int read_paddings(tfs_kernel_ctx *c, const tfs_tensor *x,
                         const tfs_tensor *p, const char *sep, int64_t *pad) {
  char a[TFS_SHAPE_STRLEN], b[TFS_SHAPE_STRLEN];
  if (p->shape.rank != 2 || p->shape.dims[1] != 2) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "paddings must be a matrix with 2 columns: %s",
                  tfs_shape_str(&p->shape, a, sizeof a));
    return -1;
  }
  if (p->shape.dims[0] != x->shape.rank) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "The first dimension of paddings must be the rank of "
                  "inputs%s%s%s", tfs_shape_str(&p->shape, a, sizeof a), sep,
                  tfs_shape_str(&x->shape, b, sizeof b));
    return -1;
  }
  for (int i = 0; i < 2 * x->shape.rank; i++)
    pad[i] = tfs_tensor__get_as_int64(p, i);
  return 0;
}

typedef struct {
  tfs_elem e;
  char *dst;
  const void *value;
} pad_fill_job;

static void pad_fill_range(void *arg, int64_t b, int64_t e) {
  const pad_fill_job *j = arg;
  tfs_elem_fill(j->e, j->dst + b * (int64_t)j->e.size, j->value, e - b);
}

/* Plain dtypes in one pass: each output row (all dimensions but the
 * last) is either wholly padding or the input row with its two pads, so
 * every output byte is written once and every input byte read once
 * (filling the whole output first, then copying the input over it, wrote
 * the interior twice: ResNet50's 112x112x64 pad before its max pool 702
 * -> 489 us on one Xeon thread). */
typedef struct pad_rows_job {
  tfs_elem e;
  int r; /* rank, at least 1 */
  const int64_t *pad;
  const tfs_shape *in, *out;
  const char *src;
  char *dst;
  const void *value;
} pad_rows_job;

static void pad_rows_range(void *arg, int64_t b, int64_t e) {
  const pad_rows_job *j = arg;
  const int r = j->r;
  const size_t es = j->e.size;
  const int64_t olast = j->out->dims[r - 1], ilast = j->in->dims[r - 1];
  const int64_t lo = j->pad[2 * (r - 1)];
  for (int64_t row = b; row < e; row++) {
    char *d = j->dst + (size_t)(row * olast) * es;
    /* the row's coordinates, last outer dimension first */
    int64_t rem = row, src_row = 0, mul = 1, inside = 1;
    for (int i = r - 2; i >= 0; i--) {
      int64_t q = rem % j->out->dims[i] - j->pad[2 * i];
      rem /= j->out->dims[i];
      if (q < 0 || q >= j->in->dims[i]) inside = 0;
      src_row += q * mul;
      mul *= j->in->dims[i];
    }
    if (!inside) {
      tfs_elem_fill(j->e, d, j->value, olast);
      continue;
    }
    tfs_elem_fill(j->e, d, j->value, lo);
    if (ilast > 0)
      memcpy(d + (size_t)lo * es, j->src + (size_t)(src_row * ilast) * es,
             (size_t)ilast * es);
    tfs_elem_fill(j->e, d + (size_t)(lo + ilast) * es, j->value,
                  olast - lo - ilast);
  }
}

static void pad_compute(tfs_kernel_ctx *c) {
  const tfs_tensor *x = c->inputs[0];
  char a[TFS_SHAPE_STRLEN];
  int64_t pad[2 * TFS_MAX_RANK];
  if (read_paddings(c, x, c->inputs[1], " ", pad)) return;
  static const unsigned char zero[24];
  const void *value = zero;
  if (c->ninputs == 3) {
    const tfs_tensor *cv = c->inputs[2];
    if (cv->shape.rank != 0) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "constant_values must be a scalar. Found: %s",
                    tfs_shape_str(&cv->shape, a, sizeof a));
      return;
    }
    value = cv->data;
  }
  int r = x->shape.rank;
  tfs_shape out;
  out.rank = r;
  int64_t base = 0, ostr[TFS_MAX_RANK];
  for (int i = 0; i < r; i++) {
    if (pad[2 * i] < 0 || pad[2 * i + 1] < 0) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "Paddings must be non-negative: %lld %lld",
                    (long long)pad[2 * i], (long long)pad[2 * i + 1]);
      return;
    }
    out.dims[i] = x->shape.dims[i] + pad[2 * i] + pad[2 * i + 1];
  }
  tfs_tensor *o = tfs_kctx_alloc_output(c, 0, &out);
  if (!o || o->nelems == 0) return;
  tfs_elem e = tfs_elem_of(x->dtype);
  if (!e.is_string && !e.is_variant && r >= 1) {
    /* the dimensions after the last padded one are copied whole: a row
     * of the job is that dimension times their product (NASNet's
     * 111x111x32 map padded on H and W: 112 rows of 112 x 32 floats,
     * not 12544 of 32, each with its own coordinates and calls) */
    int k = r - 1;
    while (k > 0 && pad[2 * k] == 0 && pad[2 * k + 1] == 0) k--;
    tfs_shape cin = x->shape, cout = out;
    int64_t inner = 1, cpad[2 * TFS_MAX_RANK];
    for (int i = k + 1; i < r; i++) inner *= x->shape.dims[i];
    memcpy(cpad, pad, sizeof(int64_t) * 2 * (size_t)(k + 1));
    cin.rank = cout.rank = k + 1;
    cin.dims[k] *= inner;
    cout.dims[k] *= inner;
    cpad[2 * k] *= inner;
    cpad[2 * k + 1] *= inner;
    pad_rows_job pj = {e, k + 1, cpad, &cin, &cout, x->data, o->data, value};
    int64_t olast = cout.dims[k];
    tfs_kctx_parallel_for(c, o->nelems / olast,
                          olast * (int64_t)e.size / 16 + 1, pad_rows_range,
                          &pj);
    return;
  }
  if (!e.is_string && !e.is_variant) {
    /* over the pool, each thread filling the part of the output it then
     * copies into (the fill cannot fail) */
    pad_fill_job fj = {e, o->data, value};
    tfs_kctx_parallel_for(c, o->nelems, 1, pad_fill_range, &fj);
  } else if (tfs_elem_fill(e, o->data, value, o->nelems)) {
    tfs_arr_oom(c);
    return;
  }
  tfs_arr_strides(out.dims, r, ostr);
  tfs_strided p = {.rank = r};
  tfs_arr_strides(x->shape.dims, r, p.src_stride);
  for (int i = 0; i < r; i++) {
    p.dims[i] = x->shape.dims[i];
    p.dst_stride[i] = ostr[i];
    base += pad[2 * i] * ostr[i];
  }
  tfs_strided_copy(c, e, (char *)o->data + base * (int64_t)e.size, x->data,
                   &p);
}

/* ---- MirrorPad ----------------------------------------------------------- */

typedef struct {
  int64_t offset; /* 1: REFLECT, 0: SYMMETRIC */
} mirror_state;

static int mirror_prepare(tfs_kernel_init *ki) {
  size_t len = 0;
  const char *mode = tfs_attrs_get_string(ki->attrs, "mode", &len);
  mirror_state *s = tfs_calloc(1, sizeof(*s));
  if (!s) return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  s->offset = mode && len == 7 && memcmp(mode, "REFLECT", 7) == 0;
  ki->state = s;
  return 0;
}

typedef struct {
  tfs_elem e;
  int r;
  const int64_t *odims, *istr;
  const int64_t *map[TFS_MAX_RANK]; /* output index -> input index */
  const char *src;
  char *dst;
  atomic_int oom;
} mirror_job;

static void mirror_range(void *arg, int64_t begin, int64_t end) {
  mirror_job *j = arg;
  int r = j->r;
  int64_t w = j->odims[r - 1];
  const int64_t *m = j->map[r - 1];
  size_t es = j->e.size;
  for (int64_t row = begin; row < end; row++) {
    int64_t rem = row, soff = 0;
    for (int k = r - 2; k >= 0; k--) {
      soff += j->map[k][rem % j->odims[k]] * j->istr[k];
      rem /= j->odims[k];
    }
    char *d = j->dst + (size_t)(row * w) * es;
    const char *s = j->src + (size_t)soff * es;
    for (int64_t o = 0; o < w;) {
      int64_t run = 1; /* extend runs of consecutive source indices */
      while (o + run < w && m[o + run] == m[o] + run) run++;
      if (tfs_elem_copy(j->e, d + (size_t)o * es, s + (size_t)m[o] * es,
                        run))
        atomic_store(&j->oom, 1);
      o += run;
    }
  }
}

static int mirror_check(tfs_kernel_ctx *c, const tfs_tensor *x,
                        const int64_t *pad, int64_t offset) {
  for (int i = 0; i < x->shape.rank; i++) {
    int64_t a = pad[2 * i], b = pad[2 * i + 1], d = x->shape.dims[i];
    if (a < 0 || b < 0) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "paddings must be non-negative: %lld %lld", (long long)a,
                    (long long)b);
      return -1;
    }
    if (offset == 0 && (a > d || b > d)) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "paddings must be no greater than the dimension size: "
                    "%lld, %lld greater than %lld", (long long)a,
                    (long long)b, (long long)d);
      return -1;
    }
    if (offset == 1 && (a >= d || b >= d)) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "paddings must be less than the dimension size: %lld, "
                    "%lld not less than %lld", (long long)a, (long long)b,
                    (long long)d);
      return -1;
    }
  }
  return 0;
}

static void mirror_pad_compute(tfs_kernel_ctx *c) {
  const tfs_tensor *x = c->inputs[0];
  int64_t pad[2 * TFS_MAX_RANK], offset = ((mirror_state *)c->state)->offset;
  if (read_paddings(c, x, c->inputs[1], ", ", pad) ||
      mirror_check(c, x, pad, offset))
    return;
  int r = x->shape.rank;
  tfs_shape out;
  out.rank = r;
  int64_t total = 0, istr[TFS_MAX_RANK];
  for (int i = 0; i < r; i++) {
    out.dims[i] = x->shape.dims[i] + pad[2 * i] + pad[2 * i + 1];
    total += out.dims[i];
  }
  if (r == 0) {
    tfs_arr_copy_input(c, 0, 0, &x->shape);
    return;
  }
  tfs_tensor *o = tfs_kctx_alloc_output(c, 0, &out);
  if (!o || o->nelems == 0) return;
  int64_t *maps = tfs_kctx_scratch(c, sizeof(int64_t) * (size_t)total);
  mirror_job *j = tfs_kctx_scratch(c, sizeof(mirror_job));
  if (!maps || !j) return;
  tfs_arr_strides(x->shape.dims, r, istr);
  for (int i = 0; i < r; i++) {
    int64_t a = pad[2 * i], d = x->shape.dims[i];
    for (int64_t k = 0; k < out.dims[i]; k++) {
      int64_t v = k - a;
      if (v < 0) v = -v - 1 + offset;
      else if (v >= d) v = d - 1 - (v - d) - offset;
      maps[k] = v;
    }
    j->map[i] = maps;
    maps += out.dims[i];
  }
  j->e = tfs_elem_of(x->dtype);
  j->r = r;
  j->odims = out.dims;
  j->istr = istr;
  j->src = x->data;
  j->dst = o->data;
  atomic_init(&j->oom, 0);
  int64_t w = out.dims[r - 1];
  tfs_kctx_parallel_for(c, o->nelems / w, w + 10, mirror_range, j);
  if (atomic_load(&j->oom)) tfs_arr_oom(c);
}

#define ARR "T", TFS_DT_ARRAY

const tfs_kernel_def tfs_cpu_kernels_array_slice[] = {
    {"Slice", "CPU", ARR, NULL, slice_compute, NULL, 0, NULL},
    {"StridedSlice", "CPU", ARR, ss_prepare, strided_slice_compute, tfs_free,
     0, NULL},
    {"Pad", "CPU", ARR, NULL, pad_compute, NULL, 0, NULL},
    {"PadV2", "CPU", ARR, NULL, pad_compute, NULL, 0, NULL},
    {"MirrorPad", "CPU", ARR, mirror_prepare, mirror_pad_compute, tfs_free, 0,
     NULL},
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL},
};
