/*
 * backends/cpu/array_misc.c - TopKV2 (a k-entry heap per row over
 * order-preserving integer keys: largest first, ties by lowest index,
 * always sorted), Cumsum and Cumprod (exclusive, reverse; 16-bit floats
 * round at every step as TensorFlow's do).  Rows are split over the
 * intra-op pool.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/half.h"
#include "backends/cpu/array_util.h"

/* ---- TopKV2 -------------------------------------------------------------- */

typedef struct {
  uint64_t key;
  int64_t idx;
} topk_entry;

static uint64_t float_key(uint32_t u) {
  return (u & 0x80000000u) ? (uint64_t)(~u) : (uint64_t)(u | 0x80000000u);
}

/* Order-preserving unsigned key of element i of a row. */
static uint64_t sort_key(const char *row, int64_t i, tfs_dtype dt) {
  switch (dt) {
  case TFS_FLOAT: {
    uint32_t u;
    memcpy(&u, row + 4 * i, 4);
    return float_key(u);
  }
  case TFS_HALF:
  case TFS_BFLOAT16: {
    uint16_t h;
    memcpy(&h, row + 2 * i, 2);
    float f = dt == TFS_HALF ? tfs_half_to_float(h) : tfs_bf16_to_float(h);
    uint32_t u;
    memcpy(&u, &f, 4);
    return float_key(u);
  }
  case TFS_DOUBLE: {
    uint64_t u;
    memcpy(&u, row + 8 * i, 8);
    return (u >> 63) ? ~u : u | (1ull << 63);
  }
  case TFS_INT8:
    return (uint64_t)(int64_t)((const int8_t *)row)[i] ^ (1ull << 63);
  case TFS_INT16: {
    int16_t v;
    memcpy(&v, row + 2 * i, 2);
    return (uint64_t)(int64_t)v ^ (1ull << 63);
  }
  case TFS_INT32: {
    int32_t v;
    memcpy(&v, row + 4 * i, 4);
    return (uint64_t)(int64_t)v ^ (1ull << 63);
  }
  case TFS_INT64: {
    int64_t v;
    memcpy(&v, row + 8 * i, 8);
    return (uint64_t)v ^ (1ull << 63);
  }
  case TFS_UINT8: return ((const uint8_t *)row)[i];
  case TFS_UINT16: {
    uint16_t v;
    memcpy(&v, row + 2 * i, 2);
    return v;
  }
  case TFS_UINT32: {
    uint32_t v;
    memcpy(&v, row + 4 * i, 4);
    return v;
  }
  default: {
    uint64_t v;
    memcpy(&v, row + 8 * i, 8);
    return v;
  }
  }
}

/* a ranks below b: smaller key, or equal key and larger index. */
static int worse(const topk_entry *a, const topk_entry *b) {
  return a->key < b->key || (a->key == b->key && a->idx > b->idx);
}

static void sift_down(topk_entry *h, int64_t n, int64_t i) {
  for (;;) {
    int64_t l = 2 * i + 1, m = i;
    if (l < n && worse(&h[l], &h[m])) m = l;
    if (l + 1 < n && worse(&h[l + 1], &h[m])) m = l + 1;
    if (m == i) return;
    topk_entry t = h[i];
    h[i] = h[m];
    h[m] = t;
    i = m;
  }
}

typedef struct {
  tfs_dtype dt, it;
  size_t es;
  int64_t n, k;
  const char *in;
  char *vals, *idx;
  atomic_int oom;
} topk_job;

static void topk_row(const topk_job *j, topk_entry *h, int64_t r) {
  const char *row = j->in + (size_t)(r * j->n) * j->es;
  int64_t k = j->k, size = 0;
  for (int64_t i = 0; i < j->n; i++) {
    topk_entry e = {sort_key(row, i, j->dt), i};
    if (size < k) {
      h[size++] = e;
      if (size == k)
        for (int64_t p = k / 2 - 1; p >= 0; p--) sift_down(h, k, p);
    } else if (e.key > h[0].key) {
      h[0] = e;
      sift_down(h, k, 0);
    }
  }
  if (size < k)
    for (int64_t p = size / 2 - 1; p >= 0; p--) sift_down(h, size, p);
  /* pop the worst to the back: h ends up best first */
  for (int64_t end = size - 1; end > 0; end--) {
    topk_entry t = h[0];
    h[0] = h[end];
    h[end] = t;
    sift_down(h, end, 0);
  }
  char *vo = j->vals + (size_t)(r * k) * j->es;
  for (int64_t i = 0; i < k; i++) {
    memcpy(vo + (size_t)i * j->es, row + (size_t)h[i].idx * j->es, j->es);
    int64_t v = h[i].idx;
    if (j->it == TFS_INT64)
      memcpy(j->idx + 8 * (r * k + i), &v, 8);
    else if (j->it == TFS_INT32) {
      int32_t w = (int32_t)v;
      memcpy(j->idx + 4 * (r * k + i), &w, 4);
    } else {
      int16_t w = (int16_t)v;
      memcpy(j->idx + 2 * (r * k + i), &w, 2);
    }
  }
}

static void topk_range(void *arg, int64_t begin, int64_t end) {
  topk_job *j = arg;
  topk_entry *h = tfs_malloc(sizeof(topk_entry) * (size_t)j->k);
  if (!h) {
    atomic_store(&j->oom, 1);
    return;
  }
  for (int64_t r = begin; r < end; r++) topk_row(j, h, r);
  tfs_free(h);
}

static void top_k_compute(tfs_kernel_ctx *c) {
  const tfs_tensor *x = c->inputs[0], *kt = c->inputs[1];
  char b[TFS_SHAPE_STRLEN];
  if (kt->shape.rank != 0) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "k must be scalar, got shape %s",
                  tfs_shape_str(&kt->shape, b, sizeof b));
    return;
  }
  int64_t k = tfs_arr_scalar(kt);
  if (k < 0) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "Need k >= 0, got %lld",
                  (long long)k);
    return;
  }
  int r = x->shape.rank;
  if (r < 1) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "input must be >= 1-D, got shape %s",
                  tfs_shape_str(&x->shape, b, sizeof b));
    return;
  }
  int64_t n = x->shape.dims[r - 1];
  if (n < k) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "input must have at least k columns. Had %lld, needed %lld",
                  (long long)n, (long long)k);
    return;
  }
  if ((c->out_types[1] == TFS_INT16 && n > INT16_MAX) ||
      (c->out_types[1] == TFS_INT32 && n > INT32_MAX)) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "TopKV2 index type %s cannot hold %lld columns",
                  tfs_dtype_name(c->out_types[1]), (long long)n);
    return;
  }
  tfs_shape out = x->shape;
  out.dims[r - 1] = k;
  tfs_tensor *v = tfs_kctx_alloc_output(c, 0, &out);
  tfs_tensor *ix = v ? tfs_kctx_alloc_output(c, 1, &out) : NULL;
  if (!ix || v->nelems == 0) return;
  topk_job j = {x->dtype, c->out_types[1], tfs_dtype__storage_size(x->dtype),
                n, k, x->data, v->data, ix->data, 0};
  tfs_kctx_parallel_for(c, x->nelems / n, n * 4 + 20, topk_range, &j);
  if (atomic_load(&j.oom)) tfs_arr_oom(c);
}

/* ---- Cumsum -------------------------------------------------------------- */

/* One slab [n, inner] restricted to inner columns [i0, i1). */
typedef void (*scan_fn)(const char *in, char *out, int64_t n, int64_t inner,
                        int64_t i0, int64_t i1, int excl, int rev);

#define SCAN(NAME, T, ADD) SCAN_ID(NAME, T, ADD, 0)

/* ONE: the identity an exclusive scan starts from. */
#define SCAN_ID(NAME, T, ADD, ONE)                                          \
  static void NAME(const char *in, char *out, int64_t n, int64_t inner,     \
                   int64_t i0, int64_t i1, int excl, int rev) {             \
    const T *x = (const T *)in;                                             \
    T *y = (T *)out;                                                        \
    for (int64_t s = 0; s < n; s++) {                                       \
      int64_t cur = rev ? n - 1 - s : s, prev = rev ? cur + 1 : cur - 1;    \
      T *yc = y + cur * inner;                                              \
      if (s == 0) {                                                         \
        if (excl)                                                           \
          for (int64_t i = i0; i < i1; i++) yc[i] = (T)(ONE);               \
        else                                                                \
          memcpy(yc + i0, x + cur * inner + i0,                             \
                 sizeof(T) * (size_t)(i1 - i0));                            \
        continue;                                                           \
      }                                                                     \
      const T *yp = y + prev * inner;                                       \
      const T *xs = x + (excl ? prev : cur) * inner;                        \
      for (int64_t i = i0; i < i1; i++) {                                   \
        T a = yp[i], b = xs[i];                                             \
        yc[i] = (ADD);                                                      \
      }                                                                     \
    }                                                                       \
  }

SCAN(scan_f32, float, a + b)
SCAN(scan_f64, double, a + b)
SCAN(scan_c64, float _Complex, a + b)
SCAN(scan_c128, double _Complex, a + b)
SCAN(scan_i8, uint8_t, (uint8_t)(a + b))
SCAN(scan_i16, uint16_t, (uint16_t)(a + b))
SCAN(scan_i32, uint32_t, a + b)
SCAN(scan_i64, uint64_t, a + b)
SCAN(scan_f16, uint16_t,
     tfs_float_to_half(tfs_half_to_float(a) + tfs_half_to_float(b)))
SCAN(scan_bf16, uint16_t,
     tfs_float_to_bf16(tfs_bf16_to_float(a) + tfs_bf16_to_float(b)))

/* products: integers wrap (unsigned multiplication in at least unsigned
 * int); 16-bit floats round after every step */
SCAN_ID(prod_f32, float, a * b, 1)
SCAN_ID(prod_f64, double, a * b, 1)
SCAN_ID(prod_c64, float _Complex, a * b, 1)
SCAN_ID(prod_c128, double _Complex, a * b, 1)
SCAN_ID(prod_i8, uint8_t, (uint8_t)(1u * a * b), 1)
SCAN_ID(prod_i16, uint16_t, (uint16_t)(1u * a * b), 1)
SCAN_ID(prod_i32, uint32_t, a * b, 1)
SCAN_ID(prod_i64, uint64_t, a * b, 1)
SCAN_ID(prod_f16, uint16_t,
        tfs_float_to_half(tfs_half_to_float(a) * tfs_half_to_float(b)),
        0x3C00)
SCAN_ID(prod_bf16, uint16_t,
        tfs_float_to_bf16(tfs_bf16_to_float(a) * tfs_bf16_to_float(b)),
        0x3F80)

static scan_fn prod_for(tfs_dtype dt) {
  switch (dt) {
  case TFS_FLOAT: return prod_f32;
  case TFS_DOUBLE: return prod_f64;
  case TFS_COMPLEX64: return prod_c64;
  case TFS_COMPLEX128: return prod_c128;
  case TFS_HALF: return prod_f16;
  case TFS_BFLOAT16: return prod_bf16;
  case TFS_INT8: case TFS_UINT8: return prod_i8;
  case TFS_INT16: case TFS_UINT16: return prod_i16;
  case TFS_INT32: case TFS_UINT32: return prod_i32;
  case TFS_INT64: case TFS_UINT64: return prod_i64;
  default: return NULL;
  }
}

static scan_fn scan_for(tfs_dtype dt) {
  switch (dt) {
  case TFS_FLOAT: return scan_f32;
  case TFS_DOUBLE: return scan_f64;
  case TFS_COMPLEX64: return scan_c64;
  case TFS_COMPLEX128: return scan_c128;
  case TFS_HALF: return scan_f16;
  case TFS_BFLOAT16: return scan_bf16;
  case TFS_INT8: case TFS_UINT8: case TFS_QINT8: case TFS_QUINT8:
    return scan_i8;
  case TFS_INT16: case TFS_UINT16: case TFS_QINT16: case TFS_QUINT16:
    return scan_i16;
  case TFS_INT32: case TFS_UINT32: case TFS_QINT32:
    return scan_i32;
  case TFS_INT64: case TFS_UINT64:
    return scan_i64;
  default:
    return NULL;
  }
}

#define SCAN_BLOCK 512

typedef struct {
  scan_fn fn;
  size_t es;
  const char *in;
  char *out;
  int64_t n, inner, nblocks;
  int excl, rev;
} scan_job;

static void scan_range(void *arg, int64_t begin, int64_t end) {
  const scan_job *j = arg;
  for (int64_t u = begin; u < end; u++) {
    int64_t o = u / j->nblocks, blk = u % j->nblocks;
    int64_t i0 = blk * SCAN_BLOCK, i1 = i0 + SCAN_BLOCK;
    if (i1 > j->inner) i1 = j->inner;
    size_t off = (size_t)(o * j->n * j->inner) * j->es;
    j->fn(j->in + off, j->out + off, j->n, j->inner, i0, i1, j->excl, j->rev);
  }
}

typedef struct {
  int excl, rev;
  scan_fn fn;
} scan_state;

/* Cumsum (kdata NULL) and Cumprod (kdata non-NULL). */
static int cumsum_prepare(tfs_kernel_init *ki) {
  scan_fn fn = ki->kdata ? prod_for(ki->in_types[0])
                         : scan_for(ki->in_types[0]);
  if (!fn)
    return tfs_ki_error(ki, TFS_UNIMPLEMENTED, "%s is not implemented for %s",
                        ki->op->name, tfs_dtype_name(ki->in_types[0]));
  scan_state *s = tfs_calloc(1, sizeof(*s));
  if (!s) return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  tfs_attrs_get_bool(ki->attrs, "exclusive", &s->excl);
  tfs_attrs_get_bool(ki->attrs, "reverse", &s->rev);
  s->fn = fn;
  ki->state = s;
  return 0;
}

static void cumsum_compute(tfs_kernel_ctx *c) {
  const scan_state *s = c->state;
  const tfs_tensor *x = c->inputs[0], *at = c->inputs[1];
  char b[TFS_SHAPE_STRLEN];
  if (at->shape.rank != 0) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "ScanOp: axis must be a scalar, not %s",
                  tfs_shape_str(&at->shape, b, sizeof b));
    return;
  }
  int r = x->shape.rank;
  int64_t a = tfs_arr_scalar(at);
  if (a < 0) a += r;
  if (a < 0 || a >= r) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "ScanOp: Expected scan axis in the range [%d, %d), but got "
                  "%lld", -r, r, (long long)a);
    return;
  }
  tfs_tensor *o = tfs_kctx_alloc_output(c, 0, &x->shape);
  if (!o || o->nelems == 0) return;
  int64_t n = x->shape.dims[a],
          inner = tfs_arr_prod(x->shape.dims, (int)a + 1, r);
  int64_t outer = x->nelems / (n * inner);
  scan_job j = {s->fn, tfs_dtype__storage_size(x->dtype), x->data,
                o->data, n, inner, (inner + SCAN_BLOCK - 1) / SCAN_BLOCK,
                s->excl, s->rev};
  int64_t per = n * (inner < SCAN_BLOCK ? inner : SCAN_BLOCK);
  tfs_kctx_parallel_for(c, outer * j.nblocks, per + 10, scan_range, &j);
}

#define TOPK_TYPES (TFS_DT_REAL)
#define PROD_TYPES \
  (TFS_DT_REAL | TFS_DT_BIT(TFS_COMPLEX64) | TFS_DT_BIT(TFS_COMPLEX128))
#define SCAN_TYPES                                                         \
  (TFS_DT_REAL | TFS_DT_BIT(TFS_COMPLEX64) | TFS_DT_BIT(TFS_COMPLEX128) |  \
   TFS_DT_BIT(TFS_QINT8) | TFS_DT_BIT(TFS_QUINT8) | TFS_DT_BIT(TFS_QINT16) | \
   TFS_DT_BIT(TFS_QUINT16) | TFS_DT_BIT(TFS_QINT32))

const tfs_kernel_def tfs_cpu_kernels_array_misc[] = {
    {"TopKV2", "CPU", "T", TOPK_TYPES, NULL, top_k_compute, NULL, 0, NULL},
    {"Cumsum", "CPU", "T", SCAN_TYPES, cumsum_prepare, cumsum_compute,
     tfs_free, 0, NULL},
    {"Cumprod", "CPU", "T", PROD_TYPES, cumsum_prepare, cumsum_compute,
     tfs_free, 0, "prod"},
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL},
};
