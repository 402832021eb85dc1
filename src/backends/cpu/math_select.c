/*
 * backends/cpu/math_select.c - elementwise ops over several inputs: Select
 * (TF1: a scalar, row-vector or same-shape condition), SelectV2 (numpy
 * broadcasting of all three), ClipByValue and AddN.  Messages are
 * TensorFlow's.
 */
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/tstring.h"
#include "backends/cpu/cpu_tables.h"
#include "backends/cpu/ew_loops.h"

static const char *shape_s(const tfs_tensor *t, char *buf) {
  return tfs_shape_str(&t->shape, buf, TFS_SHAPE_STRLEN);
}

/* "Inputs to operation X of type T must have the same size and shape.
 *  Input 0: [2] != input 1: [3]" (TensorFlow's ValidateInputsAreSameShape) */
static int same_shapes(tfs_kernel_ctx *c, int first, int n) {
  for (int i = first + 1; i < first + n; i++) {
    if (tfs_shape_equal(&c->inputs[first]->shape, &c->inputs[i]->shape))
      continue;
    char a[TFS_SHAPE_STRLEN], b[TFS_SHAPE_STRLEN];
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Inputs to operation %s of type %s must have the same size "
                  "and shape.  Input %d: %s != input %d: %s",
                  c->node_name, c->op_name, first, shape_s(c->inputs[first], a),
                  i, shape_s(c->inputs[i], b));
    return -1;
  }
  return 0;
}

/* ---- the select engine: out = cond ? then : else, strided ------------- */

typedef struct {
  const uint8_t *cond;
  const char *t, *e;
  char *o;
  size_t es;
  int is_string;
  int rank;                          /* >= 1 */
  int64_t dims[TFS_MAX_RANK];
  int64_t st[3][TFS_MAX_RANK];       /* element strides: cond, then, else */
  int rc;
} sel_job;

static int copy_elem(const sel_job *j, char *dst, const char *src) {
  switch (j->es) {
    case 1: *dst = *src; return 0;
    case 2: memcpy(dst, src, 2); return 0;
    case 4: memcpy(dst, src, 4); return 0;
    case 8: memcpy(dst, src, 8); return 0;
    case 16: memcpy(dst, src, 16); return 0;
    default: break;
  }
  if (j->is_string) {
    const tfs_tstring *s = (const tfs_tstring *)src;
    if ((const char *)dst == src) return 0;
    return tfs_tstring_copy((tfs_tstring *)dst, tfs_tstring_data(s),
                            tfs_tstring_size(s));
  }
  memcpy(dst, src, j->es);
  return 0;
}

static void sel_range(void *arg, int64_t begin, int64_t end) {
  sel_job *j = arg;
  int r = j->rank;
  int64_t inner = j->dims[r - 1];
  int64_t sc = j->st[0][r - 1], stt = j->st[1][r - 1], se = j->st[2][r - 1];
  for (int64_t row = begin; row < end; row++) {
    int64_t rem = row, oc = 0, ot = 0, oe = 0;
    for (int d = r - 2; d >= 0; d--) {
      int64_t idx = rem % j->dims[d];
      rem /= j->dims[d];
      oc += idx * j->st[0][d];
      ot += idx * j->st[1][d];
      oe += idx * j->st[2][d];
    }
    char *o = j->o + (size_t)(row * inner) * j->es;
    for (int64_t k = 0; k < inner; k++) {
      const char *src = j->cond[oc + k * sc]
                            ? j->t + (size_t)(ot + k * stt) * j->es
                            : j->e + (size_t)(oe + k * se) * j->es;
      if (copy_elem(j, o + (size_t)k * j->es, src))
        __atomic_store_n(&j->rc, 1, __ATOMIC_RELAXED);
    }
  }
}

/* Fills j's dims and strides for output shape `out` and three input
 * shapes that broadcast to it (numpy rules), merging contiguous dims. */
static void sel_layout(sel_job *j, const tfs_shape *out,
                       const tfs_shape *const in[3]) {
  int r = out->rank;
  int64_t st[3][TFS_MAX_RANK];
  for (int k = 0; k < 3; k++) {
    int64_t acc = 1;
    for (int d = r - 1; d >= 0; d--) {
      int id = in[k]->rank - r + d;
      int64_t dim = id >= 0 ? in[k]->dims[id] : 1;
      st[k][d] = dim == 1 ? 0 : acc;
      acc *= dim;
    }
  }
  int n = 0;
  for (int d = 0; d < r; d++) {
    if (out->dims[d] == 1) continue;
    int merge = n > 0;
    for (int k = 0; merge && k < 3; k++) {
      int64_t p = j->st[k][n - 1], q = st[k][d];
      merge = (p == 0 && q == 0) || (q != 0 && p == q * out->dims[d]);
    }
    if (merge) {
      j->dims[n - 1] *= out->dims[d];
      for (int k = 0; k < 3; k++) j->st[k][n - 1] = st[k][d];
      continue;
    }
    j->dims[n] = out->dims[d];
    for (int k = 0; k < 3; k++) j->st[k][n] = st[k][d];
    n++;
  }
  if (n == 0) {
    j->dims[0] = 1;
    for (int k = 0; k < 3; k++) j->st[k][0] = 0;
    n = 1;
  }
  j->rank = n;
}

/* Runs the select over output shape `os` with broadcast input shapes. */
static void run_select(tfs_kernel_ctx *c, const tfs_shape *os,
                       const tfs_shape *const in[3]) {
  const tfs_tensor *cond = c->inputs[0], *t = c->inputs[1], *e = c->inputs[2];
  tfs_tensor *o;
  if (tfs_shape_equal(&t->shape, os))
    o = tfs_kctx_forward_or_alloc(c, 1, 0, os);
  else if (tfs_shape_equal(&e->shape, os))
    o = tfs_kctx_forward_or_alloc(c, 2, 0, os);
  else
    o = tfs_kctx_alloc_output(c, 0, os);
  if (!o || o->nelems == 0) return;
  sel_job j;
  memset(&j, 0, sizeof j);
  j.cond = cond->data;
  j.t = t->data;
  j.e = e->data;
  j.o = o->data;
  j.es = tfs_dtype__storage_size(t->dtype);
  j.is_string = t->dtype == TFS_STRING;
  sel_layout(&j, os, in);
  int64_t inner = j.dims[j.rank - 1];
  tfs_kctx_parallel_for(c, o->nelems / inner, inner * 2, sel_range, &j);
  if (j.rc)
    tfs_kctx_fail(c, TFS_RESOURCE_EXHAUSTED, "out of memory copying strings");
}

static void select_prepared_scalar(tfs_kernel_ctx *c) {
  const tfs_tensor *t = c->inputs[1], *e = c->inputs[2];
  int pick_then = *(const uint8_t *)c->inputs[0]->data != 0;
  tfs_kctx_set_output(c, 0, tfs_tensor_ref((tfs_tensor *)(pick_then ? t : e)));
}

static int check_then_else(tfs_kernel_ctx *c) {
  const tfs_tensor *t = c->inputs[1], *e = c->inputs[2];
  if (tfs_shape_equal(&t->shape, &e->shape)) return 0;
  char a[TFS_SHAPE_STRLEN], b[TFS_SHAPE_STRLEN];
  tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                "'then' and 'else' must have the same size.  but received: "
                "%s vs. %s", shape_s(t, a), shape_s(e, b));
  return -1;
}

static void select_compute(tfs_kernel_ctx *c) {
  const tfs_tensor *cond = c->inputs[0], *t = c->inputs[1];
  char a[TFS_SHAPE_STRLEN];
  if (cond->shape.rank == 0) {
    if (check_then_else(c) == 0) select_prepared_scalar(c);
    return;
  }
  if (cond->shape.rank == 1 && t->shape.rank != 1) {
    /* one condition per row of then/else */
    if (t->shape.rank < 1) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "'then' must be at least a "
                    "vector, but saw shape: %s", shape_s(t, a));
      return;
    }
    if (t->shape.dims[0] != cond->nelems) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "Number of batches of 'then' must match size of 'cond', "
                    "but saw: %lld vs. %lld", (long long)t->shape.dims[0],
                    (long long)cond->nelems);
      return;
    }
    if (check_then_else(c)) return;
    tfs_shape cs = t->shape;
    for (int d = 1; d < cs.rank; d++) cs.dims[d] = 1;
    const tfs_shape *in[3] = {&cs, &t->shape, &t->shape};
    run_select(c, &t->shape, in);
    return;
  }
  if (same_shapes(c, 0, 3)) return;
  const tfs_shape *in[3] = {&t->shape, &t->shape, &t->shape};
  run_select(c, &t->shape, in);
}

static int broadcast3(const tfs_shape *const in[3], tfs_shape *out) {
  tfs_shape ab;
  if (tfs_shape_broadcast(in[0], in[1], &ab)) return -1;
  return tfs_shape_broadcast(&ab, in[2], out);
}

static void select_v2_compute(tfs_kernel_ctx *c) {
  const tfs_shape *in[3] = {&c->inputs[0]->shape, &c->inputs[1]->shape,
                            &c->inputs[2]->shape};
  tfs_shape os;
  if (broadcast3(in, &os)) {
    char a[TFS_SHAPE_STRLEN], b[TFS_SHAPE_STRLEN], d[TFS_SHAPE_STRLEN];
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "condition %s, then %s, and else %s must be broadcastable",
                  shape_s(c->inputs[0], a), shape_s(c->inputs[1], b),
                  shape_s(c->inputs[2], d));
    return;
  }
  run_select(c, &os, in);
}

/* ---- ClipByValue: max(min(t, hi), lo), componentwise for complex -------- */

typedef void (*clip_fn)(const void *t, const void *lo, const void *hi,
                        void *o, int64_t n, int lo_s, int hi_s);

#define CLIP1(T, x, l, h) \
  ({ T m_ = (h) < (x) ? (h) : (x); m_ < (l) ? (l) : m_; })
#define MK_CLIP(NAME, T, ST, LOAD, STORE)                                   \
  static void NAME(const void *X, const void *L, const void *H, void *O,    \
                   int64_t n, int lo_s, int hi_s) {                         \
    const ST *x = X, *l = L, *h = H;                                        \
    ST *o = O;                                                              \
    TFS_IVDEP for (int64_t i = 0; i < n; i++) {                             \
      T v = LOAD(x[i]), lv = LOAD(l[lo_s ? 0 : i]);                         \
      T hv = LOAD(h[hi_s ? 0 : i]);                                         \
      o[i] = STORE(CLIP1(T, v, lv, hv));                                    \
    }                                                                       \
  }
MK_CLIP(clip_f32, float, float, EW_ID, EW_ID)
MK_CLIP(clip_f64, double, double, EW_ID, EW_ID)
MK_CLIP(clip_f16, float, uint16_t, H2F, F2H)
MK_CLIP(clip_bf16, float, uint16_t, B2F, F2B)
MK_CLIP(clip_i8, int8_t, int8_t, EW_ID, EW_ID)
MK_CLIP(clip_i16, int16_t, int16_t, EW_ID, EW_ID)
MK_CLIP(clip_i32, int32_t, int32_t, EW_ID, EW_ID)
MK_CLIP(clip_i64, int64_t, int64_t, EW_ID, EW_ID)
MK_CLIP(clip_u8, uint8_t, uint8_t, EW_ID, EW_ID)
MK_CLIP(clip_u16, uint16_t, uint16_t, EW_ID, EW_ID)

/* complex: the real and imaginary parts clip separately, as floats */
static clip_fn clip_for(tfs_dtype dt) {
  switch (dt) {
    case TFS_FLOAT: case TFS_COMPLEX64: return clip_f32;
    case TFS_DOUBLE: case TFS_COMPLEX128: return clip_f64;
    case TFS_HALF: return clip_f16;
    case TFS_BFLOAT16: return clip_bf16;
    case TFS_INT8: return clip_i8;
    case TFS_INT16: return clip_i16;
    case TFS_INT32: return clip_i32;
    case TFS_INT64: return clip_i64;
    case TFS_UINT8: return clip_u8;
    case TFS_UINT16: return clip_u16;
    default: return NULL;
  }
}

typedef struct {
  clip_fn fn;
  const char *t, *lo, *hi;
  char *o;
  size_t es;   /* bytes per scalar lane */
  int lo_s, hi_s;
} clip_job;

static void clip_range(void *arg, int64_t b, int64_t e) {
  clip_job *j = arg;
  size_t off = (size_t)b * j->es;
  j->fn(j->t + off, j->lo + (j->lo_s ? 0 : off), j->hi + (j->hi_s ? 0 : off),
        j->o + off, e - b, j->lo_s, j->hi_s);
}

static void clip_compute(tfs_kernel_ctx *c) {
  const tfs_tensor *t = c->inputs[0], *lo = c->inputs[1], *hi = c->inputs[2];
  int lo_s = lo->shape.rank == 0, hi_s = hi->shape.rank == 0;
  if ((!lo_s && !tfs_shape_equal(&lo->shape, &t->shape)) ||
      (!hi_s && !tfs_shape_equal(&hi->shape, &t->shape))) {
    char a[TFS_SHAPE_STRLEN], b[TFS_SHAPE_STRLEN], d[TFS_SHAPE_STRLEN];
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "clip_value_min and clip_value_max must be either of the "
                  "same shape as input, or a scalar. input shape: %s"
                  "clip_value_min shape: %sclip_value_max shape: %s",
                  shape_s(t, a), shape_s(lo, b), shape_s(hi, d));
    return;
  }
  tfs_tensor *o = tfs_kctx_forward_or_alloc(c, 0, 0, &t->shape);
  if (!o || t->nelems == 0) return;
  int lanes = t->dtype == TFS_COMPLEX64 || t->dtype == TFS_COMPLEX128 ? 2 : 1;
  clip_job j = {clip_for(t->dtype), t->data, lo->data, hi->data, o->data,
                tfs_dtype__storage_size(t->dtype) / (size_t)lanes, lo_s,
                hi_s};
  if (lanes == 2 && (lo_s || hi_s)) {
    /* a scalar bound has two lanes: clip each lane with its own part */
    for (int64_t i = 0; i < t->nelems; i++) {
      size_t off = (size_t)i * 2 * j.es;
      for (int p = 0; p < 2; p++) {
        size_t lane = off + (size_t)p * j.es;
        j.fn(j.t + lane, j.lo + (lo_s ? (size_t)p * j.es : lane),
             j.hi + (hi_s ? (size_t)p * j.es : lane), j.o + lane, 1, 1, 1);
      }
    }
    return;
  }
  tfs_kctx_parallel_for(c, t->nelems * lanes, 2, clip_range, &j);
}

/* ---- AddN ------------------------------------------------------------- */

typedef void (*addn_fn)(const void *a, const void *b, void *o, int64_t n);
#define MK_ADDN(NAME, ST, T, LOAD, STORE, OP)                                \
  static void NAME(const void *A, const void *B, void *O, int64_t n) {       \
    const ST *a = A, *b = B;                                                 \
    ST *o = O;                                                               \
    TFS_IVDEP for (int64_t i = 0; i < n; i++) {                              \
      T x = LOAD(a[i]), y = LOAD(b[i]);                                      \
      o[i] = STORE(OP);                                                      \
    }                                                                        \
  }
MK_ADDN(addn_f32, float, float, EW_ID, EW_ID, x + y)
MK_ADDN(addn_f64, double, double, EW_ID, EW_ID, x + y)
MK_ADDN(addn_f16, uint16_t, float, H2F, F2H, x + y)
MK_ADDN(addn_bf16, uint16_t, float, B2F, F2B, x + y)
MK_ADDN(addn_c64, tfs_c64, tfs_c64, EW_ID, EW_ID, x + y)
MK_ADDN(addn_c128, tfs_c128, tfs_c128, EW_ID, EW_ID, x + y)
MK_ADDN(addn_8, uint8_t, uint8_t, EW_ID, EW_ID, (uint8_t)(x + y))
MK_ADDN(addn_16, uint16_t, uint16_t, EW_ID, EW_ID, (uint16_t)(x + y))
MK_ADDN(addn_32, uint32_t, uint32_t, EW_ID, EW_ID, x + y)
MK_ADDN(addn_64, uint64_t, uint64_t, EW_ID, EW_ID, x + y)

static addn_fn addn_for(tfs_dtype dt) {
  switch (dt) {
    case TFS_FLOAT: return addn_f32;
    case TFS_DOUBLE: return addn_f64;
    case TFS_HALF: return addn_f16;
    case TFS_BFLOAT16: return addn_bf16;
    case TFS_COMPLEX64: return addn_c64;
    case TFS_COMPLEX128: return addn_c128;
    case TFS_INT8: case TFS_UINT8: return addn_8;   /* wrapping */
    case TFS_INT16: case TFS_UINT16: return addn_16;
    case TFS_INT32: case TFS_UINT32: return addn_32;
    case TFS_INT64: case TFS_UINT64: return addn_64;
    default: return NULL;
  }
}

typedef struct {
  addn_fn fn;
  tfs_tensor **in;
  int n;
  char *o;
  size_t es;
} addn_job;

static void addn_range(void *arg, int64_t b, int64_t e) {
  addn_job *j = arg;
  size_t off = (size_t)b * j->es;
  const char *first = j->n > 1 ? (const char *)j->in[1]->data : NULL;
  j->fn((const char *)j->in[0]->data + off, first + off, j->o + off, e - b);
  for (int k = 2; k < j->n; k++)
    j->fn(j->o + off, (const char *)j->in[k]->data + off, j->o + off, e - b);
}

static void addn_compute(tfs_kernel_ctx *c) {
  if (same_shapes(c, 0, c->ninputs)) return;
  const tfs_tensor *x = c->inputs[0];
  if (c->ninputs == 1) {
    tfs_kctx_set_output(c, 0, tfs_tensor_ref(c->inputs[0]));
    return;
  }
  /* the output may take input 0's buffer unless another input shares it
   * (AddN(x, x, x) reads x after the first partial sum is written) */
  int shared = 0;
  for (int k = 1; k < c->ninputs; k++)
    shared |= c->inputs[k]->data == x->data;
  tfs_tensor *o = shared ? tfs_kctx_alloc_output(c, 0, &x->shape)
                         : tfs_kctx_forward_or_alloc(c, 0, 0, &x->shape);
  if (!o || o->nelems == 0) return;
  addn_job j = {addn_for(x->dtype), c->inputs, c->ninputs, o->data,
                tfs_dtype__storage_size(x->dtype)};
  if (!j.fn) {
    tfs_kctx_fail(c, TFS_UNIMPLEMENTED, "AddN is not implemented for %s",
                  tfs_dtype_name(x->dtype));
    return;
  }
  tfs_kctx_parallel_for(c, o->nelems, c->ninputs, addn_range, &j);
}

#define DT_ALL_FIXED                                                   \
  (TFS_DT_FLOATS | EW_DT_COMPLEX | EW_DT_SIGNED | EW_DT_UNSIGNED |     \
   EW_DT(BOOL))
#define CLIP_T                                                         \
  (TFS_DT_FLOATS | EW_DT_COMPLEX | EW_DT_SIGNED | EW_DT(UINT8) |       \
   EW_DT(UINT16))

const tfs_kernel_def tfs_cpu_kernels_select[] = {
    {"Select", "CPU", "T", DT_ALL_FIXED | EW_DT(STRING), NULL,
     select_compute, NULL, 0, NULL},
    {"SelectV2", "CPU", "T", DT_ALL_FIXED | EW_DT(STRING), NULL,
     select_v2_compute, NULL, 0, NULL},
    {"ClipByValue", "CPU", "T", CLIP_T, NULL, clip_compute, NULL, 0, NULL},
    {"AddN", "CPU", "T",
     TFS_DT_FLOATS | EW_DT_COMPLEX | EW_DT_SIGNED | EW_DT_UNSIGNED, NULL,
     addn_compute, NULL, 0, NULL},
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL},
};
