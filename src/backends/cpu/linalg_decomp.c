/*
 * backends/cpu/linalg_decomp.c - the decompositions: Qr (Householder as
 * Eigen's HouseholderQR makes its reflectors, so Q and R carry
 * TensorFlow's signs: R's diagonal is -sign(Re c0) times the column's
 * norm, Q the product of the reflectors applied to the identity),
 * SelfAdjointEigV2 (cyclic two-sided Jacobi on the Hermitian matrix its
 * lower triangle defines; eigenvalues ascending) and Svd (one-sided
 * Jacobi on the columns of A, or of A^H when A is wide; singular values
 * descending; U and V completed to orthonormal bases where a singular
 * value is zero or full_matrices asks for more columns).  Eigenvectors and
 * singular vectors are defined up to a sign (a phase for complex), which
 * may differ from Eigen's.  All in complex double (linalg.h).
 */
#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cpu/cpu_tables.h"
#include "backends/cpu/linalg.h"
#include "core/attr_value.h"

enum { MAX_SWEEPS = 80 };

static int nonfinite(const tfs_lz *a, int64_t n) {
  for (int64_t i = 0; i < n; i++)
    if (!isfinite(a[i].re) || !isfinite(a[i].im)) return 1;
  return 0;
}

/* ---- Qr ------------------------------------------------------------------ */

/* H = I - tau v v^H with v = (1, ess) applied on the left of the nr x nc
 * block at (r0, c0) of the row-major m (leading dim ld); ess has stride
 * es.  tmp holds nc values. */
static void householder_left(tfs_lz *m, int64_t ld, int64_t r0, int64_t c0,
                             int64_t nr, int64_t nc, const tfs_lz *ess,
                             int64_t es, tfs_lz tau, tfs_lz *tmp) {
  tfs_lz *row0 = m + r0 * ld + c0;
  if (nr == 1) {
    tfs_lz f = lz(1 - tau.re, -tau.im);
    for (int64_t c = 0; c < nc; c++) row0[c] = lz_mul(row0[c], f);
    return;
  }
  if (tau.re == 0 && tau.im == 0) return;
  for (int64_t c = 0; c < nc; c++) tmp[c] = row0[c];
  for (int64_t i = 1; i < nr; i++) {
    tfs_lz e = ess[(i - 1) * es];
    const tfs_lz *row = row0 + i * ld;
    for (int64_t c = 0; c < nc; c++)
      tmp[c] = lz_add(tmp[c], lz_cmul(e, row[c]));
  }
  for (int64_t c = 0; c < nc; c++) {
    tmp[c] = lz_mul(tau, tmp[c]);
    row0[c] = lz_sub(row0[c], tmp[c]);
  }
  for (int64_t i = 1; i < nr; i++) {
    tfs_lz e = ess[(i - 1) * es];
    tfs_lz *row = row0 + i * ld;
    for (int64_t c = 0; c < nc; c++) row[c] = lz_sub(row[c], lz_mul(e, tmp[c]));
  }
}

/* ws: a (m*n), tau (p), q (m*qc), tmp (max(n, m)). */
static int qr_one(const tfs_linalg_job *j, int64_t b, tfs_lz *ws) {
  int64_t m = j->m, n = j->n, p = m < n ? m : n;
  int full = j->flag[0];
  int64_t qc = full ? m : p, rr = full ? m : p;
  tfs_lz *a = ws, *tau = a + m * n, *q = tau + p, *tmp = q + m * qc;
  tfs_linalg__load(j->in[0], b * m * n, m * n, a);
  for (int64_t k = 0; k < p; k++) {
    tfs_lz c0 = a[k * n + k];
    double tail = 0;
    for (int64_t i = k + 1; i < m; i++) tail += lz_abs2(a[i * n + k]);
    double beta;
    if (tail <= j->tiny && c0.im * c0.im <= j->tiny) {
      tau[k] = lz(0, 0);
      beta = c0.re;
      for (int64_t i = k + 1; i < m; i++) a[i * n + k] = lz(0, 0);
    } else {
      beta = sqrt(lz_abs2(c0) + tail);
      if (c0.re >= 0) beta = -beta;
      tfs_lz d = lz_sub(c0, lz(beta, 0));
      for (int64_t i = k + 1; i < m; i++)
        a[i * n + k] = lz_div(a[i * n + k], d);
      tau[k] = lz_conj(lz_div(lz_sub(lz(beta, 0), c0), lz(beta, 0)));
    }
    a[k * n + k] = lz(beta, 0);
    householder_left(a, n, k, k + 1, m - k, n - k - 1, a + (k + 1) * n + k, n,
                     tau[k], tmp);
  }
  for (int64_t i = 0; i < m * qc; i++) q[i] = lz(i / qc == i % qc, 0);
  for (int64_t k = p - 1; k >= 0; k--)
    householder_left(q, qc, k, 0, m - k, qc, a + (k + 1) * n + k, n,
                     lz_conj(tau[k]), tmp);
  tfs_linalg__store(j->out[0], b * m * qc, m * qc, q);
  for (int64_t i = 0; i < rr; i++)
    for (int64_t c = 0; c < i && c < n; c++) a[i * n + c] = lz(0, 0);
  tfs_linalg__store(j->out[1], b * rr * n, rr * n, a);
  return 0;
}

static void qr_compute(tfs_kernel_ctx *c) {
  int64_t batch;
  if (tfs_linalg__check_inputs(c, 1, &batch)) return;
  const tfs_tensor *x = c->inputs[0];
  int r = x->shape.rank;
  tfs_linalg_job j = {.in = {x}};
  j.flag[0] = ((const tfs_linalg_attrs *)c->state)->full;
  int64_t m = x->shape.dims[r - 2], n = x->shape.dims[r - 1];
  int64_t p = m < n ? m : n, qc = j.flag[0] ? m : p;
  tfs_shape qs, rs;
  tfs_linalg__out_shape(&x->shape, 2, m, qc, &qs);
  tfs_linalg__out_shape(&x->shape, 2, qc, n, &rs);
  tfs_tensor *q = tfs_kctx_alloc_output(c, 0, &qs);
  tfs_tensor *rt = q ? tfs_kctx_alloc_output(c, 1, &rs) : NULL;
  if (!rt || (q->nelems == 0 && rt->nelems == 0)) return;
  j.out[0] = q;
  j.out[1] = rt;
  j.m = m;
  j.n = n;
  j.tiny = tfs_linalg__tiny(x->dtype);
  j.fn = qr_one;
  /* m * qc fits: the output q holds that many per matrix */
  j.ws_elems = tfs_linalg__ws_elems(m + 1, n, m * qc + p + m);
  double cost = (double)m * (double)n * (double)(p + qc + 1) + 16;
  tfs_linalg__run(c, &j, batch, cost > 1e15 ? (int64_t)1e15 : (int64_t)cost);
}

/* ---- Jacobi rotations ---------------------------------------------------- */

/* t of the rotation zeroing the off-diagonal g >= 0 between diagonal
 * values app and aqq. */
static void jacobi_cs(double app, double aqq, double g, double *c, double *s) {
  double zeta = (aqq - app) / (2 * g);
  double t = (zeta >= 0 ? 1 : -1) / (fabs(zeta) + hypot(1, zeta));
  *c = 1 / sqrt(1 + t * t);
  *s = *c * t;
}

/* Columns p, q of the column-major x (rows r): x_q *= ph, then
 * (x_p, x_q) <- (c x_p - s x_q, s x_p + c x_q). */
static void rotate_cols(tfs_lz *x, int64_t r, int64_t p, int64_t q, tfs_lz ph,
                        double c, double s) {
  tfs_lz *xp = x + p * r, *xq = x + q * r;
  for (int64_t i = 0; i < r; i++) {
    tfs_lz u = xp[i], w = lz_mul(xq[i], ph);
    xp[i] = lz_sub(lz_scale(u, c), lz_scale(w, s));
    xq[i] = lz_add(lz_scale(u, s), lz_scale(w, c));
  }
}

/* ---- SelfAdjointEigV2 ---------------------------------------------------- */

enum { ERR_EIG = 1 };

/* ws: h (n*n, column-major), v (n*n, column-major), e (n). */
static int eig_one(const tfs_linalg_job *j, int64_t b, tfs_lz *ws) {
  int64_t n = j->n;
  tfs_lz *h = ws, *v = h + n * n, *e = v + n * n;
  tfs_linalg__load(j->in[0], b * n * n, n * n, v);
  /* the lower triangle of the row-major input defines the matrix */
  int inf = 0;
  for (int64_t i = 0; i < n; i++)
    for (int64_t c = 0; c <= i; c++) {
      tfs_lz x = v[i * n + c];
      if (isnan(x.re) || isnan(x.im)) return ERR_EIG;
      if (isinf(x.re) || isinf(x.im)) inf = 1;
      if (c == i) x.im = 0;
      h[c * n + i] = x;
      h[i * n + c] = lz_conj(x);
    }
  for (int64_t i = 0; i < n * n; i++) v[i] = lz(i / n == i % n, 0);
  if (inf) {
    for (int64_t i = 0; i < n; i++) e[i] = lz(NAN, 0);
  } else {
    double norm = 0;
    for (int64_t i = 0; i < n * n; i++) norm += lz_abs2(h[i]);
    for (int sweep = 0; sweep < MAX_SWEEPS; sweep++) {
      double off = 0;
      for (int64_t q = 1; q < n; q++)
        for (int64_t p = 0; p < q; p++) off += lz_abs2(h[q * n + p]);
      if (off <= DBL_EPSILON * DBL_EPSILON * 1e-4 * norm) break;
      for (int64_t q = 1; q < n; q++)
        for (int64_t p = 0; p < q; p++) {
          tfs_lz apq = h[q * n + p]; /* row p, column q */
          double g = lz_abs(apq);
          if (g == 0) continue;
          tfs_lz ph = lz(apq.re / g, -apq.im / g), cph = lz_conj(ph);
          double c, s;
          jacobi_cs(h[p * n + p].re, h[q * n + q].re, g, &c, &s);
          rotate_cols(h, n, p, q, ph, c, s); /* H D R */
          for (int64_t k = 0; k < n; k++) {  /* R^T D^H (H D R) by rows */
            tfs_lz u = h[k * n + p], w = lz_mul(h[k * n + q], cph);
            h[k * n + p] = lz_sub(lz_scale(u, c), lz_scale(w, s));
            h[k * n + q] = lz_add(lz_scale(u, s), lz_scale(w, c));
          }
          h[q * n + p] = h[p * n + q] = lz(0, 0);
          h[p * n + p].im = h[q * n + q].im = 0;
          rotate_cols(v, n, p, q, ph, c, s);
        }
    }
    for (int64_t i = 0; i < n; i++) e[i] = lz(h[i * n + i].re, 0);
  }
  /* ascending, vectors alongside (selection: n is small) */
  for (int64_t i = 0; i < n; i++) {
    int64_t mi = i;
    for (int64_t k = i + 1; k < n; k++)
      if (e[k].re < e[mi].re) mi = k;
    if (mi == i) continue;
    tfs_lz t = e[i];
    e[i] = e[mi];
    e[mi] = t;
    for (int64_t k = 0; k < n; k++) {
      t = v[i * n + k];
      v[i * n + k] = v[mi * n + k];
      v[mi * n + k] = t;
    }
  }
  tfs_linalg__store(j->out[0], b * n, n, e);
  if (j->flag[0]) {
    for (int64_t i = 0; i < n; i++) /* to row-major in h */
      for (int64_t c = 0; c < n; c++) h[i * n + c] = v[c * n + i];
    tfs_linalg__store(j->out[1], b * n * n, n * n, h);
  }
  return 0;
}

/* Zeroes the scalar output i (TensorFlow's shape for an output not
 * computed; its value is left undefined there). */
static int zero_scalar_output(tfs_kernel_ctx *c, int i) {
  tfs_shape s;
  tfs_shape_scalar(&s);
  tfs_tensor *t = tfs_kctx_alloc_output(c, i, &s);
  if (!t) return -1;
  memset(t->data, 0, tfs_dtype__storage_size(t->dtype));
  return 0;
}

static void eig_compute(tfs_kernel_ctx *c) {
  int64_t batch, n;
  if (tfs_linalg__check_square(c, &batch, &n)) return;
  const tfs_tensor *x = c->inputs[0];
  tfs_linalg_job j = {.in = {x}, .n = n};
  j.flag[0] = ((const tfs_linalg_attrs *)c->state)->compute;
  tfs_shape es;
  tfs_linalg__out_shape(&x->shape, 1, n, 0, &es);
  tfs_tensor *e = tfs_kctx_alloc_output(c, 0, &es);
  if (!e) return;
  tfs_tensor *v = NULL;
  if (j.flag[0]) {
    v = tfs_kctx_alloc_output(c, 1, &x->shape);
    if (!v) return;
  } else if (zero_scalar_output(c, 1)) {
    return;
  }
  if (e->nelems == 0) return;
  j.out[0] = e;
  j.out[1] = v;
  j.fn = eig_one;
  j.ws_elems = tfs_linalg__ws_elems(2 * n, n, n);
  double cost = 40.0 * (double)n * (double)n * (double)n + 16;
  if (tfs_linalg__run(c, &j, batch,
                      cost > 1e15 ? (int64_t)1e15 : (int64_t)cost) > 0)
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Self-adjoint eigen decomposition was not successful. The "
                  "input might not be valid.");
}

/* ---- Svd ----------------------------------------------------------------- */

/* Fills the columns [from, to) of the column-major x (r rows) marked
 * zero (norm 0) with unit vectors orthogonal to all the others, from the
 * standard basis by Gram-Schmidt twice. */
static void complete_basis(tfs_lz *x, int64_t r, int64_t cols,
                           const unsigned char *empty, tfs_lz *tmp) {
  int64_t next = 0;
  for (int64_t c = 0; c < cols; c++) {
    if (!empty[c]) continue;
    for (; next < r; next++) {
      for (int64_t i = 0; i < r; i++) tmp[i] = lz(i == next, 0);
      for (int pass = 0; pass < 2; pass++)
        for (int64_t o = 0; o < cols; o++) {
          if (o == c || (empty[o] && o > c)) continue;
          tfs_lz d = lz(0, 0);
          for (int64_t i = 0; i < r; i++)
            d = lz_add(d, lz_cmul(x[o * r + i], tmp[i]));
          for (int64_t i = 0; i < r; i++)
            tmp[i] = lz_sub(tmp[i], lz_mul(x[o * r + i], d));
        }
      double nn = 0;
      for (int64_t i = 0; i < r; i++) nn += lz_abs2(tmp[i]);
      if (nn > 0.25) {
        nn = sqrt(nn);
        for (int64_t i = 0; i < r; i++) x[c * r + i] = lz_scale(tmp[i], 1 / nn);
        next++;
        break;
      }
    }
  }
}

/* One-sided Jacobi on the column-major w (mm x nn, mm >= nn): w's
 * columns become orthogonal, v (nn x nn) accumulates the rotations. */
static void svd_jacobi(tfs_lz *w, int64_t mm, int64_t nn, tfs_lz *v) {
  for (int sweep = 0; sweep < MAX_SWEEPS; sweep++) {
    int rotated = 0;
    for (int64_t p = 0; p < nn; p++)
      for (int64_t q = p + 1; q < nn; q++) {
        double al = 0, be = 0;
        tfs_lz ga = lz(0, 0);
        for (int64_t i = 0; i < mm; i++) {
          al += lz_abs2(w[p * mm + i]);
          be += lz_abs2(w[q * mm + i]);
          ga = lz_add(ga, lz_cmul(w[p * mm + i], w[q * mm + i]));
        }
        double g = lz_abs(ga);
        if (g == 0 || g <= DBL_EPSILON * sqrt(al) * sqrt(be)) continue;
        rotated = 1;
        tfs_lz ph = lz(ga.re / g, -ga.im / g);
        double c, s;
        jacobi_cs(al, be, g, &c, &s);
        rotate_cols(w, mm, p, q, ph, c, s);
        rotate_cols(v, nn, p, q, ph, c, s);
      }
    if (!rotated) break;
  }
}

/* ws: w (M*M), v (N*N), u (M*M), s (N), tmp (M), marks (M bytes). */
static int svd_one(const tfs_linalg_job *j, int64_t b, tfs_lz *ws) {
  int64_t m = j->m, n = j->n, wide = m < n;
  int64_t M = wide ? n : m, N = wide ? m : n;
  int compute = j->flag[0], full = j->flag[1];
  tfs_lz *w = ws, *v = w + M * M, *u = v + N * N, *s = u + M * M, *tmp = s + N;
  unsigned char *empty = (unsigned char *)(tmp + M);
  tfs_linalg__load(j->in[0], b * m * n, m * n, u);
  for (int64_t i = 0; i < m; i++) /* row-major A to column-major W */
    for (int64_t c = 0; c < n; c++) {
      tfs_lz x = u[i * n + c];
      if (wide)
        w[i * M + c] = lz_conj(x); /* W = A^H: column i, row c */
      else
        w[c * M + i] = x;
    }
  int bad = nonfinite(w, M * N);
  for (int64_t i = 0; i < N * N; i++) v[i] = lz(i / N == i % N, 0);
  if (!bad) svd_jacobi(w, M, N, v);
  for (int64_t c = 0; c < N; c++) {
    double nn = 0;
    for (int64_t i = 0; i < M; i++) nn += lz_abs2(w[c * M + i]);
    s[c] = lz(bad ? NAN : sqrt(nn), 0);
  }
  for (int64_t i = 0; i < N; i++) { /* descending */
    int64_t mi = i;
    for (int64_t k = i + 1; k < N; k++)
      if (s[k].re > s[mi].re) mi = k;
    if (mi == i) continue;
    tfs_lz t = s[i];
    s[i] = s[mi];
    s[mi] = t;
    for (int64_t k = 0; k < M; k++) {
      t = w[i * M + k];
      w[i * M + k] = w[mi * M + k];
      w[mi * M + k] = t;
    }
    for (int64_t k = 0; k < N; k++) {
      t = v[i * N + k];
      v[i * N + k] = v[mi * N + k];
      v[mi * N + k] = t;
    }
  }
  tfs_linalg__store(j->out[0], b * N, N, s);
  if (!compute) return 0;
  int64_t uc = full ? M : N; /* columns of W's left vectors */
  memset(empty, 0, (size_t)M);
  for (int64_t c = 0; c < M * M; c++) u[c] = lz(0, 0);
  for (int64_t c = 0; c < uc; c++) {
    if (c >= N || !(s[c].re > 0)) {
      empty[c] = 1;
      continue;
    }
    for (int64_t i = 0; i < M; i++)
      u[c * M + i] = lz_scale(w[c * M + i], 1 / s[c].re);
  }
  if (bad) {
    for (int64_t c = 0; c < M * M; c++) u[c] = lz(NAN, 0);
    for (int64_t c = 0; c < N * N; c++) v[c] = lz(NAN, 0);
  } else {
    complete_basis(u, M, uc, empty, tmp);
  }
  /* A's U is W's u (tall) or W's v (wide); A's V the other */
  const tfs_lz *au = wide ? v : u, *av = wide ? u : v;
  int64_t aur = m, auc = wide ? N : uc, avr = n, avc = wide ? uc : N;
  int64_t ld_u = wide ? N : M, ld_v = wide ? M : N;
  for (int64_t i = 0; i < aur; i++)
    for (int64_t c = 0; c < auc; c++) w[i * auc + c] = au[c * ld_u + i];
  tfs_linalg__store(j->out[1], b * aur * auc, aur * auc, w);
  for (int64_t i = 0; i < avr; i++)
    for (int64_t c = 0; c < avc; c++) w[i * avc + c] = av[c * ld_v + i];
  tfs_linalg__store(j->out[2], b * avr * avc, avr * avc, w);
  return 0;
}

/* An empty matrix: U and V the identities when full_matrices asks for
 * them, as TensorFlow does. */
static void svd_empty(tfs_tensor *t, int64_t batch, int64_t r, int64_t cols) {
  if (t->nelems == 0) return;
  memset(t->data, 0, (size_t)t->nelems * tfs_dtype__storage_size(t->dtype));
  tfs_lz one = lz(1, 0);
  for (int64_t b = 0; b < batch; b++)
    for (int64_t i = 0; i < r && i < cols; i++)
      tfs_linalg__store(t, (b * r + i) * cols + i, 1, &one);
}

static void svd_compute(tfs_kernel_ctx *c) {
  int64_t batch;
  if (tfs_linalg__check_inputs(c, 1, &batch)) return;
  const tfs_tensor *x = c->inputs[0];
  int r = x->shape.rank;
  tfs_linalg_job j = {.in = {x}};
  j.flag[0] = ((const tfs_linalg_attrs *)c->state)->compute;
  j.flag[1] = ((const tfs_linalg_attrs *)c->state)->full;
  int64_t m = x->shape.dims[r - 2], n = x->shape.dims[r - 1];
  int64_t p = m < n ? m : n, full = j.flag[1];
  tfs_shape ss, us, vs;
  tfs_linalg__out_shape(&x->shape, 1, p, 0, &ss);
  tfs_linalg__out_shape(&x->shape, j.flag[0] ? 2 : 0, m, full ? m : p, &us);
  tfs_linalg__out_shape(&x->shape, j.flag[0] ? 2 : 0, n, full ? n : p, &vs);
  tfs_tensor *s = tfs_kctx_alloc_output(c, 0, &ss);
  tfs_tensor *u = s ? tfs_kctx_alloc_output(c, 1, &us) : NULL;
  tfs_tensor *v = u ? tfs_kctx_alloc_output(c, 2, &vs) : NULL;
  if (!v) return;
  if (!j.flag[0]) {
    memset(u->data, 0, tfs_dtype__storage_size(u->dtype));
    memset(v->data, 0, tfs_dtype__storage_size(v->dtype));
  }
  if (batch == 0) return;
  if (p == 0) {
    if (j.flag[0]) {
      svd_empty(u, batch, m, full ? m : p);
      svd_empty(v, batch, n, full ? n : p);
    }
    return;
  }
  j.out[0] = s;
  j.out[1] = u;
  j.out[2] = v;
  j.m = m;
  j.n = n;
  j.fn = svd_one;
  int64_t M = m > n ? m : n, N = p;
  /* M * N fits (the input's size); M * M is checked here */
  size_t mm = tfs_linalg__ws_elems(M, M, 0);
  j.ws_elems = mm ? tfs_linalg__ws_elems(2 * M + 2, M, N * N + N) : 0;
  double cost = 30.0 * (double)M * (double)N * (double)N + 16;
  tfs_linalg__run(c, &j, batch, cost > 1e15 ? (int64_t)1e15 : (int64_t)cost);
}

#define FC                                                                     \
  (TFS_DT_BIT(TFS_FLOAT) | TFS_DT_BIT(TFS_DOUBLE) |                            \
   TFS_DT_BIT(TFS_COMPLEX64) | TFS_DT_BIT(TFS_COMPLEX128))

const tfs_kernel_def tfs_cpu_kernels_linalg_decomp[] = {
    {"Qr", "CPU", "T", FC | TFS_DT_BIT(TFS_HALF), tfs_linalg__prepare,
     qr_compute, free, TFS_KERNEL_EXPENSIVE, NULL},
    {"SelfAdjointEigV2", "CPU", "T", FC, tfs_linalg__prepare, eig_compute, free,
     TFS_KERNEL_EXPENSIVE, NULL},
    {"Svd", "CPU", "T", FC, tfs_linalg__prepare, svd_compute, free,
     TFS_KERNEL_EXPENSIVE, NULL},
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL},
};
