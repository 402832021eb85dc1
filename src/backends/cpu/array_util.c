/*
 * backends/cpu/array_util.c - element copies by size, the strided copy
 * engine (dimension collapsing, contiguous inner rows, outer rows split
 * over the intra-op pool) and small helpers of the array kernels.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "core/variant.h"
#include "backends/cpu/array_util.h"

static int copy_strings(tfs_tstring *d, const tfs_tstring *s, int64_t n) {
  for (int64_t i = 0; i < n; i++)
    if (tfs_tstring_copy(&d[i], tfs_tstring_data(&s[i]),
                         tfs_tstring_size(&s[i])))
      return -1;
  return 0;
}

/* Variant values shared by reference, the values replaced released. */
static void copy_variants(tfs_variant **d, tfs_variant *const *s,
                          int64_t n, int64_t step) {
  for (int64_t i = 0; i < n; i++) {
    tfs_variant *old = d[i];
    d[i] = tfs_variant_ref(s[i * step]);
    tfs_variant_unref(old);
  }
}

int tfs_elem_copy(tfs_elem e, void *dst, const void *src, int64_t n) {
  if (n <= 0) return 0;
  if (e.is_string) return copy_strings(dst, src, n);
  if (e.is_variant) {
    copy_variants(dst, src, n, 1);
    return 0;
  }
  memcpy(dst, src, (size_t)n * e.size);
  return 0;
}

int tfs_elem_fill(tfs_elem e, void *dst, const void *value, int64_t n) {
  if (n <= 0) return 0;
  if (e.is_variant) {
    copy_variants(dst, value, n, 0);
    return 0;
  }
  if (e.is_string) {
    const tfs_tstring *v = value;
    tfs_tstring *d = dst;
    for (int64_t i = 0; i < n; i++)
      if (tfs_tstring_copy(&d[i], tfs_tstring_data(v), tfs_tstring_size(v)))
        return -1;
    return 0;
  }
  char *d = dst;
  /* zero (Pad's default, Fill of 0): memset, which is vectorized */
  const unsigned char *vb = value;
  size_t nz = 0;
  while (nz < e.size && vb[nz] == 0) nz++;
  if (nz == e.size) {
    memset(d, 0, (size_t)n * e.size);
    return 0;
  }
  switch (e.size) {
  case 1:
    memset(d, *(const uint8_t *)value, (size_t)n);
    return 0;
  case 2: {
    uint16_t v;
    memcpy(&v, value, 2);
    for (int64_t i = 0; i < n; i++) memcpy(d + 2 * i, &v, 2);
    return 0;
  }
  case 4: {
    uint32_t v;
    memcpy(&v, value, 4);
    for (int64_t i = 0; i < n; i++) memcpy(d + 4 * i, &v, 4);
    return 0;
  }
  case 8: {
    uint64_t v;
    memcpy(&v, value, 8);
    for (int64_t i = 0; i < n; i++) memcpy(d + 8 * i, &v, 8);
    return 0;
  }
  default:
    /* doubling copies: log(n) memcpy calls */
    memcpy(d, value, e.size);
    for (int64_t done = 1; done < n;) {
      int64_t k = done < n - done ? done : n - done;
      memcpy(d + (size_t)done * e.size, d, (size_t)k * e.size);
      done += k;
    }
    return 0;
  }
}

void tfs_arr_strides(const int64_t *dims, int rank, int64_t *strides) {
  int64_t s = 1;
  for (int i = rank - 1; i >= 0; i--) {
    strides[i] = s;
    s *= dims[i];
  }
}

int64_t tfs_arr_prod(const int64_t *dims, int from, int to) {
  int64_t p = 1;
  for (int i = from; i < to; i++) p *= dims[i];
  return p;
}

/* ---- strided copy -------------------------------------------------------- */

typedef struct {
  tfs_elem e;
  char *dst;
  const char *src;
  int orank;                       /* outer dims (all but the inner one) */
  int64_t dims[2 * TFS_MAX_RANK];
  int64_t ds[2 * TFS_MAX_RANK];    /* outer strides in bytes */
  int64_t ss[2 * TFS_MAX_RANK];
  int64_t inner;                   /* elements per row */
  int64_t ids, iss;                /* inner strides in bytes */
  atomic_int oom;
} sc_job;

/* One row of `n` elements with byte strides ds/ss. */
static int copy_row(const sc_job *j, char *d, const char *s) {
  int64_t n = j->inner, ds = j->ids, ss = j->iss;
  size_t es = j->e.size;
  if (j->e.is_string) {
    for (int64_t i = 0; i < n; i++)
      if (copy_strings((tfs_tstring *)(d + i * ds),
                       (const tfs_tstring *)(s + i * ss), 1))
        return -1;
    return 0;
  }
  if (ds == (int64_t)es && ss == (int64_t)es) {
    memcpy(d, s, (size_t)n * es);
    return 0;
  }
  switch (es) {
#define ROW(T)                                                             \
  for (int64_t i = 0; i < n; i++) {                                        \
    T v;                                                                   \
    memcpy(&v, s + i * ss, sizeof v);                                      \
    memcpy(d + i * ds, &v, sizeof v);                                      \
  }                                                                        \
  break;
  case 1:
    ROW(uint8_t)
  case 2:
    ROW(uint16_t)
  case 4:
    ROW(uint32_t)
  case 8:
    ROW(uint64_t)
#undef ROW
  default:
    for (int64_t i = 0; i < n; i++) memcpy(d + i * ds, s + i * ss, es);
  }
  return 0;
}

static void sc_range(void *arg, int64_t begin, int64_t end) {
  sc_job *j = arg;
  int64_t idx[2 * TFS_MAX_RANK];
  int64_t doff = 0, soff = 0, rem = begin;
  for (int k = j->orank - 1; k >= 0; k--) {
    idx[k] = rem % j->dims[k];
    rem /= j->dims[k];
    doff += idx[k] * j->ds[k];
    soff += idx[k] * j->ss[k];
  }
  for (int64_t r = begin; r < end; r++) {
    if (copy_row(j, j->dst + doff, j->src + soff)) {
      atomic_store(&j->oom, 1);
      return;
    }
    for (int k = j->orank - 1; k >= 0; k--) {
      doff += j->ds[k];
      soff += j->ss[k];
      if (++idx[k] < j->dims[k]) break;
      doff -= j->ds[k] * j->dims[k];
      soff -= j->ss[k] * j->dims[k];
      idx[k] = 0;
    }
  }
}

/* ---- tiled 2-D transposes ---------------------------------------------- */

/* When the two innermost dims swap (dst [.., A, B] contiguous in B, src
 * contiguous in A), rows would read with a large stride: copy TILE x TILE
 * blocks instead so both sides stay in cache. */
#define TILE 32

typedef struct {
  size_t es;
  char *dst;
  const char *src;
  int orank;
  int64_t dims[2 * TFS_MAX_RANK], ds[2 * TFS_MAX_RANK], ss[2 * TFS_MAX_RANK];
  int64_t a, b, dsa, ssb; /* sizes; dst stride of a, src stride of b */
  int64_t atiles;
} tile_job;

/* dst[a * dsa + b] = src[a + b * ssb] for a in [a0, a1), b in [0, nb),
 * block by block. */
#define TILE_FN(NAME, T)                                                   \
  static void NAME(char *d, const char *s, int64_t a0, int64_t a1,         \
                   int64_t nb, int64_t dsa, int64_t ssb) {                 \
    T *restrict dst = (T *)d;                                              \
    const T *restrict src = (const T *)s;                                  \
    for (int64_t b0 = 0; b0 < nb; b0 += TILE) {                            \
      int64_t b1 = b0 + TILE < nb ? b0 + TILE : nb;                        \
      for (int64_t a = a0; a < a1; a++) {                                  \
        T *restrict dr = dst + a * dsa;                                    \
        const T *restrict sr = src + a;                                    \
        for (int64_t b = b0; b < b1; b++) dr[b] = sr[b * ssb];             \
      }                                                                    \
    }                                                                      \
  }

TILE_FN(tile_u8, uint8_t)
TILE_FN(tile_u16, uint16_t)
TILE_FN(tile_u32, uint32_t)
TILE_FN(tile_u64, uint64_t)
#undef TILE_FN

static void tile_block(const tile_job *j, char *d, const char *s, int64_t a0,
                       int64_t a1) {
  int64_t nb = j->b, dsa = j->dsa, ssb = j->ssb;
  size_t es = j->es;
  switch (es) {
  case 1:
    tile_u8(d, s, a0, a1, nb, dsa, ssb);
    return;
  case 2:
    tile_u16(d, s, a0, a1, nb, dsa, ssb);
    return;
  case 4:
    tile_u32(d, s, a0, a1, nb, dsa, ssb);
    return;
  case 8:
    tile_u64(d, s, a0, a1, nb, dsa, ssb);
    return;
  default:
    for (int64_t b0 = 0; b0 < nb; b0 += TILE) {
      int64_t b1 = b0 + TILE < nb ? b0 + TILE : nb;
      for (int64_t a = a0; a < a1; a++)
        for (int64_t b = b0; b < b1; b++)
          memcpy(d + (a * dsa + b) * (int64_t)es,
                 s + (a + b * ssb) * (int64_t)es, es);
    }
  }
}

static void tile_range(void *arg, int64_t begin, int64_t end) {
  const tile_job *j = arg;
  for (int64_t u = begin; u < end; u++) {
    int64_t t = u % j->atiles, rem = u / j->atiles, doff = 0, soff = 0;
    for (int k = j->orank - 1; k >= 0; k--) {
      int64_t i = rem % j->dims[k];
      rem /= j->dims[k];
      doff += i * j->ds[k];
      soff += i * j->ss[k];
    }
    int64_t a0 = t * TILE, a1 = a0 + TILE < j->a ? a0 + TILE : j->a;
    tile_block(j, j->dst + doff * (int64_t)j->es,
               j->src + soff * (int64_t)j->es, a0, a1);
  }
}

static void tiled_copy(tfs_kernel_ctx *c, size_t es, void *dst,
                       const void *src, int r, const int64_t *dims,
                       const int64_t *ds, const int64_t *ss, tile_job *j) {
  j->es = es;
  j->dst = dst;
  j->src = src;
  j->orank = r - 2;
  int64_t outer = 1;
  for (int k = 0; k < r - 2; k++) {
    j->dims[k] = dims[k];
    j->ds[k] = ds[k];
    j->ss[k] = ss[k];
    outer *= dims[k];
  }
  j->a = dims[r - 2];
  j->b = dims[r - 1];
  j->dsa = ds[r - 2];
  j->ssb = ss[r - 1];
  j->atiles = (j->a + TILE - 1) / TILE;
  tfs_kctx_parallel_for(c, outer * j->atiles, TILE * j->b * 2 + 10,
                        tile_range, j);
}

/* Drops size-1 dims and merges dims that are contiguous in both. */
static int collapse(const tfs_strided *p, int64_t *dims, int64_t *ds,
                    int64_t *ss) {
  int r = 0;
  for (int k = 0; k < p->rank; k++) {
    if (p->dims[k] == 0) return -1;
    if (p->dims[k] == 1) continue;
    if (r > 0 && ds[r - 1] == p->dims[k] * p->dst_stride[k] &&
        ss[r - 1] == p->dims[k] * p->src_stride[k]) {
      dims[r - 1] *= p->dims[k];
      ds[r - 1] = p->dst_stride[k];
      ss[r - 1] = p->src_stride[k];
      continue;
    }
    dims[r] = p->dims[k];
    ds[r] = p->dst_stride[k];
    ss[r] = p->src_stride[k];
    r++;
  }
  return r;
}

int tfs_strided_copy(tfs_kernel_ctx *c, tfs_elem e, void *dst,
                     const void *src, const tfs_strided *p) {
  int64_t dims[2 * TFS_MAX_RANK], ds[2 * TFS_MAX_RANK], ss[2 * TFS_MAX_RANK];
  int r = collapse(p, dims, ds, ss);
  if (r < 0) return 0; /* empty */
  if (r >= 2 && !e.is_string && ss[r - 2] == 1 && ds[r - 1] == 1 &&
      ss[r - 1] != 1 && dims[r - 1] >= 4 && dims[r - 2] >= 4) {
    tile_job *t = tfs_malloc(sizeof(*t));
    if (!t) {
      tfs_arr_oom(c);
      return -1;
    }
    tiled_copy(c, e.size, dst, src, r, dims, ds, ss, t);
    tfs_free(t);
    return 0;
  }
  sc_job *j = tfs_malloc(sizeof(*j));
  if (!j) {
    tfs_arr_oom(c);
    return -1;
  }
  j->e = e;
  j->dst = dst;
  j->src = src;
  atomic_init(&j->oom, 0);
  if (r == 0) {
    j->inner = 1;
    j->ids = j->iss = (int64_t)e.size;
    j->orank = 0;
  } else {
    j->inner = dims[r - 1];
    j->ids = ds[r - 1] * (int64_t)e.size;
    j->iss = ss[r - 1] * (int64_t)e.size;
    j->orank = r - 1;
  }
  int64_t rows = 1;
  for (int k = 0; k < j->orank; k++) {
    j->dims[k] = dims[k];
    j->ds[k] = ds[k] * (int64_t)e.size;
    j->ss[k] = ss[k] * (int64_t)e.size;
    rows *= dims[k];
  }
  int contiguous = j->ids == (int64_t)e.size && j->iss == (int64_t)e.size;
  int64_t cost = contiguous ? j->inner * (int64_t)e.size / 16 + 10
                            : j->inner * 2 + 10;
  if (e.is_string) cost = j->inner * 40 + 10;
  tfs_kctx_parallel_for(c, rows, cost, sc_range, j);
  int oom = atomic_load(&j->oom);
  tfs_free(j);
  if (oom) {
    tfs_arr_oom(c);
    return -1;
  }
  return 0;
}

/* ---- outputs ------------------------------------------------------------- */

int tfs_arr_set_view(tfs_kernel_ctx *c, int i, const tfs_tensor *in,
                     const tfs_shape *shape, int64_t offset) {
  tfs_buf__ref(in->buf);
  char *data = (char *)in->data + (size_t)offset * tfs_dtype__storage_size(
                                                       in->dtype);
  tfs_tensor *v = tfs_tensor__over_buf(in->dtype, shape, in->buf, data,
                                       c->st);
  if (!v) {
    tfs_kctx_fail_status(c, c->st);
    return -1;
  }
  tfs_kctx_set_output(c, i, v);
  return 0;
}

tfs_tensor *tfs_arr_copy_input(tfs_kernel_ctx *c, int in, int i,
                               const tfs_shape *shape) {
  const tfs_tensor *x = c->inputs[in];
  tfs_tensor *o = tfs_kctx_forward_or_alloc(c, in, i, shape);
  if (!o || o == x) return o;
  if (tfs_elem_copy(tfs_elem_of(x->dtype), o->data, x->data, x->nelems)) {
    tfs_arr_oom(c);
    return NULL;
  }
  return o;
}

const char *tfs_arr_index_str(int64_t flat, const int64_t *dims, int rank,
                              char *buf, size_t cap) {
  int64_t idx[TFS_MAX_RANK];
  for (int k = rank - 1; k >= 0; k--) {
    idx[k] = dims[k] ? flat % dims[k] : 0;
    flat = dims[k] ? flat / dims[k] : 0;
  }
  size_t off = 0;
  buf[0] = 0;
  for (int k = 0; k < rank && off < cap; k++) {
    int n = snprintf(buf + off, cap - off, k ? ",%lld" : "%lld",
                     (long long)idx[k]);
    if (n < 0) break;
    off += (size_t)n;
  }
  return buf;
}

void tfs_arr_oom(tfs_kernel_ctx *c) {
  tfs_kctx_fail(c, TFS_RESOURCE_EXHAUSTED, "out of memory");
}
