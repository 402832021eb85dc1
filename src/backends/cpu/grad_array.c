/*
 * backends/cpu/grad_array.c - the gradient ops that reduce or scatter:
 * BiasAddGrad (the sum over every dim but the channel one, NHWC or
 * NCHW), BroadcastGradientArgs (the axes each of two broadcast shapes
 * was stretched along, TensorFlow's BCast rules) and StridedSliceGrad
 * (dy written into zeros of the sliced input's shape, through the same
 * spec as StridedSlice: ops/strided_slice.h).
 */
#include <stdint.h>
#include <string.h>

#include "core/alloc.h"
#include "core/half.h"
#include "core/strbuf.h"
#include "backends/cpu/array_util.h"
#include "ops/strided_slice.h"

/* ---- BiasAddGrad --------------------------------------------------------- */

/* Sums x viewed as [outer, C, inner] over outer and inner, for channels
 * [c0, c1), in blocks of channels so that every row is read in order.
 * Floats accumulate in double, integers wrap, as TensorFlow's do. */
#define BIAS_BLOCK 256
#define BIAS_SUM(NAME, T, ACC, LOAD, STORE)                                 \
  static void NAME(const void *X, void *O, int64_t outer, int64_t C,        \
                   int64_t inner, int64_t c0, int64_t c1) {                 \
    const T *x = (const T *)X;                                              \
    T *o = (T *)O;                                                          \
    ACC acc[BIAS_BLOCK];                                                    \
    for (int64_t b0 = c0; b0 < c1; b0 += BIAS_BLOCK) {                      \
      int64_t b1 = b0 + BIAS_BLOCK < c1 ? b0 + BIAS_BLOCK : c1;             \
      for (int64_t c = b0; c < b1; c++) acc[c - b0] = 0;                    \
      for (int64_t n = 0; n < outer; n++)                                   \
        for (int64_t c = b0; c < b1; c++) {                                 \
          const T *p = x + (n * C + c) * inner;                             \
          ACC s = acc[c - b0];                                              \
          for (int64_t k = 0; k < inner; k++) s += LOAD(p[k]);              \
          acc[c - b0] = s;                                                  \
        }                                                                   \
      for (int64_t c = b0; c < b1; c++) o[c] = STORE(acc[c - b0]);          \
    }                                                                       \
  }

typedef void (*bias_sum_fn)(const void *x, void *o, int64_t outer, int64_t C,
                            int64_t inner, int64_t c0, int64_t c1);

#define LD_ID(v) (v)
#define LD_SIGNED(v) ((uint64_t)(int64_t)(v))
#define LD_H(v) ((double)tfs_half_to_float(v))
#define LD_B(v) ((double)tfs_bf16_to_float(v))
#define ST_H(s) tfs_float_to_half((float)(s))
#define ST_B(s) tfs_float_to_bf16((float)(s))
#define ST_F(s) ((float)(s))
#define ST_CF(s) ((float _Complex)(s))
BIAS_SUM(bsum_f32, float, double, LD_ID, ST_F)
BIAS_SUM(bsum_f64, double, double, LD_ID, LD_ID)
BIAS_SUM(bsum_f16, uint16_t, double, LD_H, ST_H)
BIAS_SUM(bsum_bf16, uint16_t, double, LD_B, ST_B)
BIAS_SUM(bsum_c64, float _Complex, double _Complex, LD_ID, ST_CF)
BIAS_SUM(bsum_c128, double _Complex, double _Complex, LD_ID, LD_ID)
BIAS_SUM(bsum_i8, int8_t, uint64_t, LD_SIGNED, (int8_t))
BIAS_SUM(bsum_i16, int16_t, uint64_t, LD_SIGNED, (int16_t))
BIAS_SUM(bsum_i32, int32_t, uint64_t, LD_SIGNED, (int32_t))
BIAS_SUM(bsum_i64, int64_t, uint64_t, LD_SIGNED, (int64_t))
BIAS_SUM(bsum_u8, uint8_t, uint64_t, LD_ID, (uint8_t))
BIAS_SUM(bsum_u16, uint16_t, uint64_t, LD_ID, (uint16_t))
BIAS_SUM(bsum_u32, uint32_t, uint64_t, LD_ID, (uint32_t))
BIAS_SUM(bsum_u64, uint64_t, uint64_t, LD_ID, (uint64_t))

static const bias_sum_fn kBiasSum[24] = {
    [TFS_FLOAT] = bsum_f32,    [TFS_DOUBLE] = bsum_f64,
    [TFS_HALF] = bsum_f16,     [TFS_BFLOAT16] = bsum_bf16,
    [TFS_COMPLEX64] = bsum_c64, [TFS_COMPLEX128] = bsum_c128,
    [TFS_INT8] = bsum_i8,      [TFS_INT16] = bsum_i16,
    [TFS_INT32] = bsum_i32,    [TFS_INT64] = bsum_i64,
    [TFS_UINT8] = bsum_u8,     [TFS_UINT16] = bsum_u16,
    [TFS_UINT32] = bsum_u32,   [TFS_UINT64] = bsum_u64,
};

typedef struct {
  bias_sum_fn fn;
  int nchw;
} bias_state;

static int bias_grad_prepare(tfs_kernel_init *ki) {
  tfs_dtype dt = ki->in_types[0];
  bias_sum_fn fn = (unsigned)dt < 24 ? kBiasSum[dt] : NULL;
  if (!fn) /* every registered dtype has a table entry */
    return tfs_ki_error(ki, TFS_INTERNAL,
                        "BiasAddGrad: no sum for registered dtype %s",
                        tfs_dtype_name(dt));
  bias_state *s = tfs_malloc(sizeof *s);
  if (!s) return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  size_t len = 0;
  const char *fmt = tfs_attrs_get_string(ki->attrs, "data_format", &len);
  s->fn = fn;
  s->nchw = fmt && len == 4 && memcmp(fmt, "NCHW", 4) == 0;
  ki->state = s;
  return 0;
}

typedef struct {
  bias_sum_fn fn;
  const void *x;
  void *o;
  int64_t outer, C, inner;
} bias_job;

static void bias_range(void *arg, int64_t begin, int64_t end) {
  const bias_job *j = arg;
  j->fn(j->x, j->o, j->outer, j->C, j->inner, begin, end);
}

static void bias_add_grad_compute(tfs_kernel_ctx *c) {
  const bias_state *s = c->state;
  const tfs_tensor *x = c->inputs[0];
  int r = x->shape.rank;
  char a[TFS_SHAPE_STRLEN];
  if (r < 2) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Input tensor must be at least 2D: %s",
                  tfs_shape_str(&x->shape, a, sizeof a));
    return;
  }
  if (x->nelems >= INT32_MAX) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "BiasGrad requires tensor size <= int32 max");
    return;
  }
  int cd = s->nchw ? 1 : r - 1;
  int64_t C = x->shape.dims[cd];
  tfs_shape os;
  tfs_shape_1d(&os, C);
  tfs_tensor *o = tfs_kctx_alloc_output(c, 0, &os);
  if (!o || C == 0) return;
  if (x->nelems == 0) {
    memset(o->data, 0, o->nbytes);
    return;
  }
  bias_job j = {s->fn, x->data, o->data, tfs_arr_prod(x->shape.dims, 0, cd),
                C, tfs_arr_prod(x->shape.dims, cd + 1, r)};
  tfs_kctx_parallel_for(c, C, j.outer * j.inner + 1, bias_range, &j);
}

/* ---- BroadcastGradientArgs ----------------------------------------------- */

/* Dim j (of n, aligned to the right) of shape vector v, 1 where v is
 * shorter. */
static int64_t bcast_dim(const tfs_tensor *v, int64_t n, int64_t j) {
  int64_t off = n - v->nelems;
  return j < off ? 1 : tfs_tensor__get_as_int64(v, j - off);
}

/* Writes the "Incompatible shapes: [..] vs. [..]" message. */
static void bcast_incompatible(tfs_kernel_ctx *c, const tfs_tensor *s0,
                               const tfs_tensor *s1) {
  tfs_strbuf b = TFS_STRBUF_INIT;
  const tfs_tensor *v[2] = {s0, s1};
  tfs_strbuf_puts(&b, "Incompatible shapes: [");
  for (int i = 0; i < 2; i++) {
    for (int64_t k = 0; k < v[i]->nelems; k++)
      tfs_strbuf_printf(&b, "%s%lld", k ? "," : "",
                        (long long)tfs_tensor__get_as_int64(v[i], k));
    tfs_strbuf_puts(&b, i == 0 ? "] vs. [" : "]");
  }
  if (b.oom)
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "Incompatible shapes");
  else
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "%s", tfs_strbuf_str(&b));
  tfs_strbuf_free(&b);
}

static int same_vectors(const tfs_tensor *s0, const tfs_tensor *s1) {
  if (s0->nelems != s1->nelems) return 0;
  for (int64_t k = 0; k < s0->nelems; k++)
    if (tfs_tensor__get_as_int64(s0, k) != tfs_tensor__get_as_int64(s1, k))
      return 0;
  return 1;
}

/* Counts (out == NULL) or writes the reduction axes of input `which`:
 * none when the two shapes are equal; else every axis where its dim is 1
 * and the other's is not, and every axis where both are 1.  Returns the
 * count, or -1 when the shapes do not broadcast. */
static int64_t bcast_axes(const tfs_tensor *s0, const tfs_tensor *s1,
                          int which, tfs_tensor *out) {
  int64_t n = s0->nelems > s1->nelems ? s0->nelems : s1->nelems, cnt = 0;
  if (same_vectors(s0, s1)) return 0;
  for (int64_t j = 0; j < n; j++) {
    int64_t x = bcast_dim(s0, n, j), y = bcast_dim(s1, n, j);
    if (x != y && x != 1 && y != 1) return -1;
    int64_t mine = which ? y : x;
    if (mine != 1) continue;
    if (out) {
      if (out->dtype == TFS_INT32)
        ((int32_t *)out->data)[cnt] = (int32_t)j;
      else
        ((int64_t *)out->data)[cnt] = j;
    }
    cnt++;
  }
  return cnt;
}

static void broadcast_gradient_args_compute(tfs_kernel_ctx *c) {
  const tfs_tensor *s0 = c->inputs[0], *s1 = c->inputs[1];
  char a[TFS_SHAPE_STRLEN];
  for (int i = 0; i < 2; i++) {
    const tfs_tensor *t = c->inputs[i];
    if (t->shape.rank != 1) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "In[%d] must be a vector.%s", i,
                    tfs_shape_str(&t->shape, a, sizeof a));
      return;
    }
  }
  if (bcast_axes(s0, s1, 0, NULL) < 0) {
    bcast_incompatible(c, s0, s1);
    return;
  }
  for (int i = 0; i < 2; i++) {
    tfs_shape os;
    tfs_shape_1d(&os, bcast_axes(s0, s1, i, NULL));
    tfs_tensor *o = tfs_kctx_alloc_output(c, i, &os);
    if (!o) return;
    bcast_axes(s0, s1, i, o);
  }
}

/* ---- StridedSliceGrad ---------------------------------------------------- */

static int ssg_prepare(tfs_kernel_init *ki) {
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

/* The sliced input's shape from input 0, as TensorShapeUtils::MakeShape
 * reads it.  0, or -1 after failing c. */
static int ssg_input_shape(tfs_kernel_ctx *c, const tfs_tensor *t,
                           tfs_shape *out) {
  char a[TFS_SHAPE_STRLEN];
  if (t->shape.rank != 1) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "shape must be 1-D, got shape.shape = %s",
                  tfs_shape_str(&t->shape, a, sizeof a));
    return -1;
  }
  if (t->nelems > TFS_MAX_RANK) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Shape of rank %lld exceeds the maximum rank %d",
                  (long long)t->nelems, TFS_MAX_RANK);
    return -1;
  }
  out->rank = (int)t->nelems;
  for (int k = 0; k < out->rank; k++) {
    out->dims[k] = tfs_tensor__get_as_int64(t, k);
    if (out->dims[k] < 0) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "Dimension %lld must be >= 0",
                    (long long)out->dims[k]);
      return -1;
    }
  }
  int64_t total = 1;
  for (int k = 0; k < out->rank; k++) {
    int64_t d = out->dims[k];
    if (d != 0 && total > INT64_MAX / d) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "Shape %s would have more than 2**63 - 1 elements",
                    tfs_shape_str(out, a, sizeof a));
      return -1;
    }
    total *= d;
  }
  return 0;
}

static void strided_slice_grad_compute(tfs_kernel_ctx *c) {
  const tfs_tensor *bt = c->inputs[1], *et = c->inputs[2],
                   *st = c->inputs[3], *dy = c->inputs[4];
  char a[TFS_SHAPE_STRLEN], b[TFS_SHAPE_STRLEN];
  tfs_shape in;
  if (ssg_input_shape(c, c->inputs[0], &in)) return;
  tfs_sslice sl;
  if (tfs_sslice_compute_run(bt, et, st, &in, c->state, &sl, c->st)) {
    tfs_kctx_fail_status(c, c->st);
    return;
  }
  if (!tfs_shape_equal(&sl.final, &dy->shape)) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "shape of dy was %s instead of %s",
                  tfs_shape_str(&dy->shape, a, sizeof a),
                  tfs_shape_str(&sl.final, b, sizeof b));
    return;
  }
  tfs_tensor *o = tfs_kctx_alloc_output(c, 0, &in);
  if (!o || o->nelems == 0) return;
  static const unsigned char zero[32];
  tfs_elem e = tfs_elem_of(dy->dtype);
  if (e.size > sizeof zero || tfs_elem_fill(e, o->data, zero, o->nelems)) {
    tfs_arr_oom(c);
    return;
  }
  if (dy->nelems == 0) return;
  /* dst[begin_k + i_k * stride_k] = dy[i]; a negative stride walks the
   * same elements backwards from the last one, so that every destination
   * stride is positive */
  int r = in.rank;
  int64_t ostr[TFS_MAX_RANK], dstr[TFS_MAX_RANK], base = 0, src_base = 0;
  tfs_arr_strides(in.dims, r, ostr);
  tfs_arr_strides(sl.processing.dims, r, dstr);
  tfs_strided p = {.rank = r};
  for (int k = 0; k < r; k++) {
    int64_t n = sl.processing.dims[k], step = sl.stride[k];
    int64_t first = sl.begin[k];
    p.dims[k] = n;
    if (n == 1) { /* one element: the stride (perhaps INT64_MIN) unused */
      p.dst_stride[k] = p.src_stride[k] = 0;
    } else if (step < 0) {
      first += (n - 1) * step;
      src_base += (n - 1) * dstr[k];
      p.dst_stride[k] = -step * ostr[k];
      p.src_stride[k] = -dstr[k];
    } else {
      p.dst_stride[k] = step * ostr[k];
      p.src_stride[k] = dstr[k];
    }
    base += first * ostr[k];
  }
  tfs_strided_copy(c, e, (char *)o->data + base * (int64_t)e.size,
                   (const char *)dy->data + src_base * (int64_t)e.size, &p);
}

#define BIAS_TYPES                                                     \
  (TFS_DT_REAL | TFS_DT_BIT(TFS_COMPLEX64) | TFS_DT_BIT(TFS_COMPLEX128))

const tfs_kernel_def tfs_cpu_kernels_grad_array[] = {
    {"BiasAddGrad", "CPU", "T", BIAS_TYPES, bias_grad_prepare,
     bias_add_grad_compute, tfs_free, 0, NULL},
    {"BroadcastGradientArgs", "CPU", "T",
     TFS_DT_BIT(TFS_INT32) | TFS_DT_BIT(TFS_INT64), NULL,
     broadcast_gradient_args_compute, NULL, 0, NULL},
    {"StridedSliceGrad", "CPU", "T", TFS_DT_ARRAY, ssg_prepare,
     strided_slice_grad_compute, tfs_free, 0, NULL},
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL},
};
