/*
 * backends/cpu/fft_ops.c - the FFT family's CPU kernels: FFT, IFFT and
 * their 2D and 3D forms over complex64 and complex128, and the real
 * transforms RFFT, IRFFT (1D, 2D, 3D) with fft_length.  TensorFlow's
 * validation order and messages; every transform runs in double
 * precision on a complex work array of the full transform shape
 * [batch, n1, ..., nr], one axis at a time (fft.c does each line), with
 * the lines of an axis split over the intra-op pool.
 *
 * The real transforms read the input cropped to fft_length (the inner
 * dim of an inverse input to fft_length/2 + 1).  RFFT transforms the
 * last axis of the real input as complex values, then the outer axes of
 * the first n/2 + 1 columns, which it keeps; IRFFT runs the inverse
 * transforms of the outer axes on the half spectrum, rebuilds the
 * negative frequencies of the last axis as conjugates and keeps the real
 * part, so the imaginary parts of the zero and Nyquist frequencies do
 * not count, as in TensorFlow.  Lines of the outer axes are gathered a
 * block at a time; an input with no elements gives zeros.
 */
#include <stdatomic.h>
#include <string.h>

#include "backends/cpu/cpu_tables.h"
#include "backends/cpu/fft.h"
#include "core/alloc.h"
#include "core/util.h"

#define MAX_DIMS 4 /* batch + up to three transformed axes */

/* ---- moving values between tensors and the work array ----------------- */

static void load_row(tfs_fft_cd *dst, const void *src, tfs_dtype dt,
                     int64_t off, int64_t n) {
  switch (dt) {
    case TFS_FLOAT: {
      const float *s = (const float *)src + off;
      for (int64_t i = 0; i < n; i++) dst[i] = CMPLX(s[i], 0.0);
      break;
    }
    case TFS_DOUBLE: {
      const double *s = (const double *)src + off;
      for (int64_t i = 0; i < n; i++) dst[i] = CMPLX(s[i], 0.0);
      break;
    }
    case TFS_COMPLEX64: {
      const float *s = (const float *)src + 2 * off;
      for (int64_t i = 0; i < n; i++)
        dst[i] = CMPLX(s[2 * i], s[2 * i + 1]);
      break;
    }
    default: memcpy(dst, (const tfs_fft_cd *)src + off, (size_t)n * 16);
  }
}

static void store_row(void *dst, tfs_dtype dt, int64_t off,
                      const tfs_fft_cd *src, int64_t n, double scale) {
  switch (dt) {
    case TFS_FLOAT: {
      float *d = (float *)dst + off;
      for (int64_t i = 0; i < n; i++) d[i] = (float)(creal(src[i]) * scale);
      break;
    }
    case TFS_DOUBLE: {
      double *d = (double *)dst + off;
      for (int64_t i = 0; i < n; i++) d[i] = creal(src[i]) * scale;
      break;
    }
    case TFS_COMPLEX64: {
      float *d = (float *)dst + 2 * off;
      for (int64_t i = 0; i < n; i++) {
        d[2 * i] = (float)(creal(src[i]) * scale);
        d[2 * i + 1] = (float)(cimag(src[i]) * scale);
      }
      break;
    }
    default: {
      double *d = (double *)dst + 2 * off;
      for (int64_t i = 0; i < n; i++) {
        d[2 * i] = creal(src[i]) * scale;
        d[2 * i + 1] = cimag(src[i]) * scale;
      }
    }
  }
}

/* Row-major strides of `nd` dims. */
static void strides_of(int nd, const int64_t *dims, int64_t *st) {
  int64_t s = 1;
  for (int d = nd - 1; d >= 0; d--) {
    st[d] = s;
    s *= dims[d];
  }
}

/* Copies the region [0, reg) of an nd-dim array `t` (dims td, dtype dt)
 * to or from the work array (dims wd): load (t -> work) or store (work
 * -> t, times scale). */
static void region_copy(int load, int nd, const int64_t *reg, void *t,
                        tfs_dtype dt, const int64_t *td, tfs_fft_cd *work,
                        const int64_t *wd, double scale) {
  int64_t ts[MAX_DIMS], ws[MAX_DIMS], idx[MAX_DIMS] = {0};
  strides_of(nd, td, ts);
  strides_of(nd, wd, ws);
  int64_t rows = 1, len = reg[nd - 1];
  for (int d = 0; d < nd - 1; d++) rows *= reg[d];
  if (len == 0) return;
  for (int64_t r = 0; r < rows; r++) {
    int64_t to = 0, wo = 0;
    for (int d = 0; d < nd - 1; d++) {
      to += idx[d] * ts[d];
      wo += idx[d] * ws[d];
    }
    if (load)
      load_row(work + wo, t, dt, to, len);
    else
      store_row(t, dt, to, work + wo, len, scale);
    for (int d = nd - 2; d >= 0; d--) {
      if (++idx[d] < reg[d]) break;
      idx[d] = 0;
    }
  }
}

/* ---- one axis ----------------------------------------------------------- */

typedef struct {
  tfs_fft_cd *work;
  const tfs_fft_plan *plan;
  int64_t n;         /* the axis' length */
  int64_t stride;    /* distance of neighbours along the axis */
  int64_t last_len;  /* the last axis' length */
  int64_t active;    /* only lines at last-axis positions < active (the
                        outer axes of an IRFFT: the half spectrum) */
  int inverse;
  int64_t hermitian; /* > 0: the last axis of an IRFFT, this many values
                        given; the rest are conjugates */
  atomic_int oom;
} axis_job;

/* Lines of a strided axis are gathered AXIS_BLOCK at a time, so that
 * each row of the work array is read in runs rather than one element per
 * cache line. */
#define AXIS_BLOCK 16

static void axis_range(void *arg, int64_t begin, int64_t end) {
  axis_job *j = arg;
  int64_t n = j->n, s = j->stride;
  int64_t extra = tfs_fft_scratch_len(j->plan), bl = s > 1 ? AXIS_BLOCK : 1;
  tfs_fft_cd *buf = tfs_malloc((size_t)((bl + 1) * n + extra) * sizeof *buf);
  if (!buf) {
    atomic_store(&j->oom, 1);
    return;
  }
  tfs_fft_cd *res = buf + bl * n, *scratch = extra ? res + n : NULL;
  for (int64_t l = begin; l < end;) {
    int64_t outer = l / s, inner = l % s, cnt = bl;
    if (cnt > end - l) cnt = end - l;
    if (cnt > s - inner) cnt = s - inner;
    tfs_fft_cd *base = j->work + outer * n * s + inner;
    if (s == 1) { /* a contiguous line: transformed where it lies */
      for (int64_t k = j->hermitian; j->hermitian > 0 && k < n; k++)
        base[k] = conj(base[n - k]);
      tfs_fft_exec(j->plan, base, res, j->inverse, scratch);
      memcpy(base, res, (size_t)n * sizeof *res);
      l++;
      continue;
    }
    for (int64_t k = 0; k < n; k++)
      for (int64_t b = 0; b < cnt; b++) buf[b * n + k] = base[k * s + b];
    for (int64_t b = 0; b < cnt; b++) {
      if ((inner + b) % j->last_len >= j->active) continue;
      tfs_fft_cd *line = buf + b * n;
      tfs_fft_exec(j->plan, line, res, j->inverse, scratch);
      memcpy(line, res, (size_t)n * sizeof *res);
    }
    for (int64_t k = 0; k < n; k++)
      for (int64_t b = 0; b < cnt; b++) base[k * s + b] = buf[b * n + k];
    l += cnt;
  }
  tfs_free(buf);
}

/* Transforms axis `a` of the work array (dims wd, nd of them). */
static int transform_axis(tfs_kernel_ctx *c, tfs_fft_cd *work, int nd,
                          const int64_t *wd, int a, int inverse,
                          int64_t active, int64_t hermitian) {
  int64_t n = wd[a], total = 1, stride = 1;
  for (int d = 0; d < nd; d++) total *= wd[d];
  for (int d = a + 1; d < nd; d++) stride *= wd[d];
  if (n <= 1 && hermitian == 0) return 0;
  tfs_fft_plan *plan = tfs_fft_plan_new(n);
  if (!plan) {
    tfs_kctx_fail(c, TFS_RESOURCE_EXHAUSTED,
                  "out of memory planning an FFT of length %lld",
                  (long long)n);
    return -1;
  }
  axis_job j = {work, plan, n, stride, wd[nd - 1], active,
                inverse, hermitian, 0};
  int64_t lg = 1;
  while (((int64_t)1 << lg) < n && lg < 62) lg++;
  int64_t cost = 8 * n * (lg + 1);
  if (tfs_fft_scratch_len(plan)) cost *= 6;
  tfs_kctx_parallel_for(c, total / n, cost, axis_range, &j);
  tfs_fft_plan_free(plan);
  if (atomic_load(&j.oom)) {
    tfs_kctx_fail(c, TFS_RESOURCE_EXHAUSTED, "out of memory in an FFT");
    return -1;
  }
  return 0;
}

/* ---- validation --------------------------------------------------------- */

typedef struct {
  int r;           /* transformed axes */
  int real, fwd;
  int64_t n[3];    /* fft lengths */
  tfs_shape out;   /* the output's shape */
} fft_args;

/* TensorFlow's checks in its order; fills a->n and a->out. */
static int check_args(tfs_kernel_ctx *c, fft_args *a) {
  const tfs_tensor *x = c->inputs[0];
  char b[TFS_SHAPE_STRLEN];
  int rank = x->shape.rank, r = a->r;
  if (rank < r) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Input must have rank of at least %d but got: %s", r,
                  tfs_shape_str(&x->shape, b, sizeof b));
    return -1;
  }
  a->out = x->shape;
  for (int i = 0; i < r; i++) a->n[i] = x->shape.dims[rank - r + i];
  if (!a->real) return 0;
  const tfs_tensor *len = c->inputs[1];
  if (len->shape.rank != 1 || len->shape.dims[0] != r) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "fft_length must have shape [%d]",
                  r);
    return -1;
  }
  for (int i = 0; i < r; i++) {
    int64_t v = ((const int32_t *)len->data)[i];
    if (v < 0) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "fft_length[%d] must >= 0, but got: %lld", i,
                    (long long)v);
      return -1;
    }
    int inner = i == r - 1, at = rank - r + i;
    int64_t need = !a->fwd && inner ? v / 2 + 1 : v;
    int64_t have = x->shape.dims[at];
    if (have != 0 && have < need) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "Input dimension %d must have length of at least %lld "
                    "but got: %lld", at, (long long)need, (long long)have);
      return -1;
    }
    a->n[i] = v;
    a->out.dims[at] = a->fwd && inner && v != 0 ? v / 2 + 1 : v;
  }
  return 0;
}

/* "Wrong types for forward real FFT: in=1 out=18" (enum numbers). */
static int check_types(tfs_kernel_ctx *c, const fft_args *a, tfs_dtype in,
                       tfs_dtype out) {
  if (!a->real) return 0;
  tfs_dtype re = a->fwd ? in : out, cx = a->fwd ? out : in;
  if ((re == TFS_FLOAT && cx == TFS_COMPLEX64) ||
      (re == TFS_DOUBLE && cx == TFS_COMPLEX128))
    return 0;
  tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                "Wrong types for %s real FFT: in=%d out=%d",
                a->fwd ? "forward" : "backward", (int)in, (int)out);
  return -1;
}

/* ---- the kernels -------------------------------------------------------- */

/* The transform of a->r trailing axes of a non-empty input into o. */
static void run_fft(tfs_kernel_ctx *c, const fft_args *a, tfs_tensor *o) {
  const tfs_tensor *x = c->inputs[0];
  int r = a->r, nd = r + 1, rank = x->shape.rank;
  int64_t wd[MAX_DIMS], xd[MAX_DIMS], od[MAX_DIMS], reg[MAX_DIMS];
  int64_t batch = 1, total;
  for (int d = 0; d < rank - r; d++) batch *= x->shape.dims[d];
  wd[0] = xd[0] = od[0] = reg[0] = batch;
  total = batch;
  for (int i = 0; i < r; i++) {
    wd[i + 1] = a->n[i];
    xd[i + 1] = x->shape.dims[rank - r + i];
    od[i + 1] = o->shape.dims[rank - r + i];
    if (tfs_mul_overflow_i64(total, a->n[i], &total) ||
        total > INT64_MAX / 16) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "FFT shape too large");
      return;
    }
  }
  tfs_fft_cd *work = tfs_kctx_scratch(c, (size_t)total * 16);
  if (!work) return;
  int64_t h = a->n[r - 1] / 2 + 1;
  for (int d = 1; d < nd; d++) reg[d] = wd[d];
  if (a->real && !a->fwd) {
    memset(work, 0, (size_t)total * 16);
    reg[r] = h;
  }
  region_copy(1, nd, reg, x->data, x->dtype, xd, work, wd, 1.0);
  int inverse = !a->fwd;
  /* RFFT: the last axis first, then the outer axes on the n/2 + 1
   * columns kept; IRFFT: the outer axes on the half spectrum, then the
   * last axis from it; FFT: every column. */
  int64_t active = a->real ? h : wd[r];
  if (a->real && a->fwd && transform_axis(c, work, nd, wd, r, 0, 1, 0))
    return;
  for (int d = 1; d < r; d++)
    if (transform_axis(c, work, nd, wd, d, inverse, active, 0)) return;
  if (!a->real && transform_axis(c, work, nd, wd, r, inverse, 1, 0)) return;
  if (a->real && !a->fwd && transform_axis(c, work, nd, wd, r, 1, 1, h))
    return;
  double scale = 1.0;
  if (inverse)
    for (int i = 0; i < r; i++) scale /= (double)a->n[i];
  for (int d = 1; d < nd; d++) reg[d] = od[d];
  region_copy(0, nd, reg, o->data, o->dtype, od, work, wd, scale);
}

static void fft_compute(tfs_kernel_ctx *c, int r, int real, int fwd) {
  fft_args a = {r, real, fwd, {0, 0, 0}, {0}};
  if (check_args(c, &a)) return;
  tfs_tensor *o = tfs_kctx_alloc_output(c, 0, &a.out);
  if (!o || check_types(c, &a, c->inputs[0]->dtype, o->dtype)) return;
  if (o->nelems == 0) return;
  if (c->inputs[0]->nelems == 0) {
    memset(o->data, 0, (size_t)o->nelems * tfs_dtype__storage_size(o->dtype));
    return;
  }
  run_fft(c, &a, o);
}

#define FFT_KERNEL(fn, r, real, fwd) \
  static void fn(tfs_kernel_ctx *c) { fft_compute(c, r, real, fwd); }

FFT_KERNEL(fft1_compute, 1, 0, 1)
FFT_KERNEL(ifft1_compute, 1, 0, 0)
FFT_KERNEL(fft2_compute, 2, 0, 1)
FFT_KERNEL(ifft2_compute, 2, 0, 0)
FFT_KERNEL(fft3_compute, 3, 0, 1)
FFT_KERNEL(ifft3_compute, 3, 0, 0)
FFT_KERNEL(rfft1_compute, 1, 1, 1)
FFT_KERNEL(irfft1_compute, 1, 1, 0)
FFT_KERNEL(rfft2_compute, 2, 1, 1)
FFT_KERNEL(irfft2_compute, 2, 1, 0)
FFT_KERNEL(rfft3_compute, 3, 1, 1)
FFT_KERNEL(irfft3_compute, 3, 1, 0)

#define CX (TFS_DT_BIT(TFS_COMPLEX64) | TFS_DT_BIT(TFS_COMPLEX128))
#define K(op, fn) {op, "CPU", "Tcomplex", CX, NULL, fn, NULL, 0, NULL}

const tfs_kernel_def tfs_cpu_kernels_fft[] = {
    K("FFT", fft1_compute),     K("IFFT", ifft1_compute),
    K("FFT2D", fft2_compute),   K("IFFT2D", ifft2_compute),
    K("FFT3D", fft3_compute),   K("IFFT3D", ifft3_compute),
    K("RFFT", rfft1_compute),   K("IRFFT", irfft1_compute),
    K("RFFT2D", rfft2_compute), K("IRFFT2D", irfft2_compute),
    K("RFFT3D", rfft3_compute), K("IRFFT3D", irfft3_compute),
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL},
};
