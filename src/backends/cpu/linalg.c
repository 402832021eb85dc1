/*
 * backends/cpu/linalg.c - the linear algebra kernels' shared machinery
 * (linalg.h) and the solvers: MatrixInverse and MatrixSolve (LU with
 * partial pivoting, Eigen's PartialPivLU: the largest modulus in the
 * column, the first on ties; TensorFlow's exact-zero pivot check),
 * MatrixTriangularSolve (substitution reading one triangle, batch dims
 * broadcast) and Cholesky (Eigen's LLT: the lower triangle read, the
 * diagonal's real part; a non-positive pivot leaves the lower triangle
 * NaN, as TensorFlow 2.21's CPU kernel returns it).  Every matrix is
 * computed in complex double (linalg.h) and rounded once to its dtype.
 */
#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cpu/cpu_tables.h"
#include "backends/cpu/linalg.h"
#include "core/alloc.h"
#include "core/attr_value.h"
#include "core/half.h"

/* ---- shared ---------------------------------------------------------- */

static double flush(double v, double tiny) {
  return fabs(v) < tiny ? 0.0 * v : v;
}

double tfs_linalg__tiny(tfs_dtype dt) {
  switch (dt) {
  case TFS_FLOAT:
  case TFS_COMPLEX64:
  case TFS_BFLOAT16:
    return FLT_MIN;
  case TFS_HALF:
    return 6.103515625e-05;
  default:
    return DBL_MIN;
  }
}

void tfs_linalg__load(const tfs_tensor *t, int64_t at, int64_t n, tfs_lz *dst) {
  switch (t->dtype) {
  case TFS_FLOAT: {
    const float *s = (const float *)t->data + at;
    for (int64_t i = 0; i < n; i++) dst[i] = lz(flush(s[i], FLT_MIN), 0);
    break;
  }
  case TFS_DOUBLE: {
    const double *s = (const double *)t->data + at;
    for (int64_t i = 0; i < n; i++) dst[i] = lz(flush(s[i], DBL_MIN), 0);
    break;
  }
  case TFS_COMPLEX64: {
    const float *s = (const float *)t->data + 2 * at;
    for (int64_t i = 0; i < n; i++)
      dst[i] = lz(flush(s[2 * i], FLT_MIN), flush(s[2 * i + 1], FLT_MIN));
    break;
  }
  case TFS_COMPLEX128: {
    const double *s = (const double *)t->data + 2 * at;
    for (int64_t i = 0; i < n; i++)
      dst[i] = lz(flush(s[2 * i], DBL_MIN), flush(s[2 * i + 1], DBL_MIN));
    break;
  }
  case TFS_HALF: {
    const uint16_t *s = (const uint16_t *)t->data + at;
    for (int64_t i = 0; i < n; i++)
      dst[i] = lz(tfs_half_to_float(s[i]), 0); /* a normal float */
    break;
  }
  case TFS_BFLOAT16: {
    const uint16_t *s = (const uint16_t *)t->data + at;
    for (int64_t i = 0; i < n; i++)
      dst[i] = lz(flush(tfs_bf16_to_float(s[i]), FLT_MIN), 0);
    break;
  }
  default:
    for (int64_t i = 0; i < n; i++) dst[i] = lz(0, 0);
  }
}

void tfs_linalg__store(tfs_tensor *t, int64_t at, int64_t n,
                       const tfs_lz *src) {
  switch (t->dtype) {
  case TFS_FLOAT: {
    float *d = (float *)t->data + at;
    for (int64_t i = 0; i < n; i++) d[i] = (float)src[i].re;
    break;
  }
  case TFS_DOUBLE: {
    double *d = (double *)t->data + at;
    for (int64_t i = 0; i < n; i++) d[i] = src[i].re;
    break;
  }
  case TFS_COMPLEX64: {
    float *d = (float *)t->data + 2 * at;
    for (int64_t i = 0; i < n; i++) {
      d[2 * i] = (float)src[i].re;
      d[2 * i + 1] = (float)src[i].im;
    }
    break;
  }
  case TFS_COMPLEX128: {
    double *d = (double *)t->data + 2 * at;
    for (int64_t i = 0; i < n; i++) {
      d[2 * i] = src[i].re;
      d[2 * i + 1] = src[i].im;
    }
    break;
  }
  case TFS_HALF: {
    uint16_t *d = (uint16_t *)t->data + at;
    for (int64_t i = 0; i < n; i++) d[i] = tfs_float_to_half((float)src[i].re);
    break;
  }
  case TFS_BFLOAT16: {
    uint16_t *d = (uint16_t *)t->data + at;
    for (int64_t i = 0; i < n; i++) d[i] = tfs_float_to_bf16((float)src[i].re);
    break;
  }
  default:
    break;
  }
}

int tfs_linalg__check_inputs(tfs_kernel_ctx *c, int nin, int64_t *batch) {
  const tfs_tensor *x0 = c->inputs[0];
  for (int i = 0; i < nin; i++) {
    const tfs_tensor *x = c->inputs[i];
    int r = x->shape.rank;
    if (i == 0) {
      if (r >= 2) continue;
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "Input tensor 0 must have rank >= 2, got %d", r);
      return -1;
    }
    if (r != x0->shape.rank) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "All input tensors must have the same rank.");
      return -1;
    }
    for (int d = 0; d < r - 2; d++)
      if (x->shape.dims[d] != x0->shape.dims[d]) {
        tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                      "All input tensors must have the same outer "
                      "dimensions.");
        return -1;
      }
  }
  int64_t b = 1;
  for (int d = 0; d < x0->shape.rank - 2; d++) b *= x0->shape.dims[d];
  *batch = b; /* a factor of the input's element count, or 0 */
  return 0;
}

int tfs_linalg__check_square(tfs_kernel_ctx *c, int64_t *batch, int64_t *n) {
  if (tfs_linalg__check_inputs(c, 1, batch)) return -1;
  const tfs_shape *s = &c->inputs[0]->shape;
  *n = s->dims[s->rank - 1];
  if (s->dims[s->rank - 2] != *n) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "Input matrix must be square.");
    return -1;
  }
  return 0;
}

void tfs_linalg__out_shape(const tfs_shape *in, int nd, int64_t d0, int64_t d1,
                           tfs_shape *out) {
  if (nd == 0) {
    tfs_shape_scalar(out);
    return;
  }
  *out = *in;
  out->rank = in->rank - 2 + nd;
  out->dims[in->rank - 2] = d0;
  if (nd == 2) out->dims[in->rank - 1] = d1;
}

size_t tfs_linalg__ws_elems(int64_t a, int64_t b, int64_t extra) {
  uint64_t ab, total, bytes;
  if (a < 0 || b < 0 || extra < 0) return 0;
  if (__builtin_mul_overflow((uint64_t)a, (uint64_t)b, &ab) ||
      __builtin_add_overflow(ab, (uint64_t)extra, &total) ||
      __builtin_mul_overflow(total, (uint64_t)sizeof(tfs_lz), &bytes) ||
      bytes > (uint64_t)PTRDIFF_MAX)
    return 0;
  return total ? (size_t)total : 1;
}

static void run_range(void *arg, int64_t begin, int64_t end) {
  tfs_linalg_job *j = arg;
  if (atomic_load(&j->err)) return;
  tfs_lz *ws = tfs_malloc(j->ws_elems * sizeof(tfs_lz));
  if (!ws) {
    int zero = 0;
    atomic_compare_exchange_strong(&j->err, &zero, -1);
    return;
  }
  for (int64_t b = begin; b < end; b++) {
    int rc = j->fn(j, b, ws);
    if (rc) {
      int zero = 0;
      atomic_compare_exchange_strong(&j->err, &zero, rc);
      break;
    }
  }
  tfs_free(ws);
}

int tfs_linalg__run(tfs_kernel_ctx *c, tfs_linalg_job *j, int64_t batch,
                    int64_t cost) {
  if (batch <= 0) return 0;
  if (!j->ws_elems) {
    tfs_kctx_fail(c, TFS_RESOURCE_EXHAUSTED,
                  "OOM when allocating the workspace of %s", c->node_name);
    return -1;
  }
  atomic_init(&j->err, 0);
  tfs_kctx_parallel_for(c, batch, cost, run_range, j);
  int rc = atomic_load(&j->err);
  if (rc == -1) {
    tfs_kctx_fail(c, TFS_RESOURCE_EXHAUSTED, "out of memory");
    return -1;
  }
  return rc;
}

int tfs_linalg__prepare(tfs_kernel_init *ki) {
  tfs_linalg_attrs *a = tfs_malloc(sizeof *a);
  if (!a) return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  a->adjoint = a->full = 0;
  a->lower = a->compute = 1;
  tfs_attrs_get_bool(ki->attrs, "adjoint", &a->adjoint);
  tfs_attrs_get_bool(ki->attrs, "lower", &a->lower);
  tfs_attrs_get_bool(ki->attrs, "full_matrices", &a->full);
  tfs_attrs_get_bool(ki->attrs, "compute_v", &a->compute);
  tfs_attrs_get_bool(ki->attrs, "compute_uv", &a->compute);
  ki->state = a;
  return 0;
}

/* n^3 work per matrix, saturated for the thread pool's cost model. */
static int64_t cube_cost(int64_t a, int64_t b) {
  double v = (double)a * (double)a * (double)(b + 1) + 16;
  return v > 1e15 ? (int64_t)1e15 : (int64_t)v;
}

/* ---- LU ---------------------------------------------------------------- */

/* In-place LU of the n x n row-major a with partial pivoting; perm[k] the
 * row swapped with k.  Returns 1 when Eigen's min |u_kk| > 0 holds. */
static int lu_factor(tfs_lz *a, int64_t n, int64_t *perm) {
  for (int64_t k = 0; k < n; k++) {
    int64_t p = k;
    double best = lz_abs(a[k * n + k]);
    for (int64_t i = k + 1; i < n; i++) {
      double v = lz_abs(a[i * n + k]);
      if (v > best) {
        best = v;
        p = i;
      }
    }
    perm[k] = p;
    if (p != k)
      for (int64_t jj = 0; jj < n; jj++) {
        tfs_lz t = a[k * n + jj];
        a[k * n + jj] = a[p * n + jj];
        a[p * n + jj] = t;
      }
    tfs_lz piv = a[k * n + k];
    if (best != 0)
      for (int64_t i = k + 1; i < n; i++)
        a[i * n + k] = lz_div(a[i * n + k], piv);
    for (int64_t i = k + 1; i < n; i++) {
      tfs_lz l = a[i * n + k];
      if (l.re == 0 && l.im == 0) continue;
      for (int64_t jj = k + 1; jj < n; jj++)
        a[i * n + jj] = lz_sub(a[i * n + jj], lz_mul(l, a[k * n + jj]));
    }
  }
  /* Eigen's minCoeff keeps the running minimum when a NaN comes later */
  double mn = n ? lz_abs(a[0]) : 1;
  for (int64_t k = 1; k < n; k++) {
    double v = lz_abs(a[k * n + k]);
    if (v < mn) mn = v;
  }
  return mn > 0;
}

/* Solves LU x = P b in place for the n x k row-major b. */
static void lu_solve(const tfs_lz *a, const int64_t *perm, int64_t n, tfs_lz *b,
                     int64_t k) {
  for (int64_t i = 0; i < n; i++)
    if (perm[i] != i)
      for (int64_t c = 0; c < k; c++) {
        tfs_lz t = b[i * k + c];
        b[i * k + c] = b[perm[i] * k + c];
        b[perm[i] * k + c] = t;
      }
  for (int64_t i = 0; i < n; i++)
    for (int64_t jj = 0; jj < i; jj++) {
      tfs_lz l = a[i * n + jj];
      for (int64_t c = 0; c < k; c++)
        b[i * k + c] = lz_sub(b[i * k + c], lz_mul(l, b[jj * k + c]));
    }
  for (int64_t i = n - 1; i >= 0; i--) {
    for (int64_t jj = i + 1; jj < n; jj++) {
      tfs_lz u = a[i * n + jj];
      for (int64_t c = 0; c < k; c++)
        b[i * k + c] = lz_sub(b[i * k + c], lz_mul(u, b[jj * k + c]));
    }
    for (int64_t c = 0; c < k; c++)
      b[i * k + c] = lz_div(b[i * k + c], a[i * n + i]);
  }
}

/* Reads matrix b of input 0 (n x n), conjugate-transposed when adj. */
static void load_square(const tfs_tensor *t, int64_t b, int64_t n, int adj,
                        tfs_lz *dst, tfs_lz *tmp) {
  if (!adj) {
    tfs_linalg__load(t, b * n * n, n * n, dst);
    return;
  }
  tfs_linalg__load(t, b * n * n, n * n, tmp);
  for (int64_t i = 0; i < n; i++)
    for (int64_t jj = 0; jj < n; jj++)
      dst[jj * n + i] = lz_conj(tmp[i * n + jj]);
}

enum { ERR_SINGULAR = 1 };

/* ws: a (n*n), the right-hand sides (n*k), perm (n, as int64 in lz). */
static int inverse_one(const tfs_linalg_job *j, int64_t b, tfs_lz *ws) {
  int64_t n = j->n;
  tfs_lz *a = ws, *x = ws + n * n;
  int64_t *perm = (int64_t *)(x + n * n);
  load_square(j->in[0], b, n, j->flag[0], a, x);
  if (!lu_factor(a, n, perm)) return ERR_SINGULAR;
  for (int64_t i = 0; i < n * n; i++) x[i] = lz(i % (n + 1) == 0, 0);
  lu_solve(a, perm, n, x, n);
  tfs_linalg__store(j->out[0], b * n * n, n * n, x);
  return 0;
}

static void inverse_compute(tfs_kernel_ctx *c) {
  int64_t batch, n;
  if (tfs_linalg__check_square(c, &batch, &n)) return;
  const tfs_tensor *x = c->inputs[0];
  tfs_tensor *o = tfs_kctx_alloc_output(c, 0, &x->shape);
  if (!o || o->nelems == 0) return;
  tfs_linalg_job j = {.in = {x}, .out = {o}, .n = n};
  j.flag[0] = ((const tfs_linalg_attrs *)c->state)->adjoint;
  j.fn = inverse_one;
  j.ws_elems = tfs_linalg__ws_elems(3 * n, n, n);
  if (tfs_linalg__run(c, &j, batch, cube_cost(n, n)) > 0)
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "Input is not invertible.");
}

/* ws: a (n*n), x (n*k), tmp (n*n), perm (n). */
static int solve_one(const tfs_linalg_job *j, int64_t b, tfs_lz *ws) {
  int64_t n = j->n, k = j->k;
  tfs_lz *a = ws, *x = a + n * n, *tmp = x + n * k;
  int64_t *perm = (int64_t *)(tmp + n * n);
  load_square(j->in[0], b, n, j->flag[0], a, tmp);
  if (!lu_factor(a, n, perm)) return ERR_SINGULAR;
  tfs_linalg__load(j->in[1], b * n * k, n * k, x);
  lu_solve(a, perm, n, x, k);
  tfs_linalg__store(j->out[0], b * n * k, n * k, x);
  return 0;
}

static void solve_compute(tfs_kernel_ctx *c) {
  int64_t batch;
  if (tfs_linalg__check_inputs(c, 2, &batch)) return;
  const tfs_tensor *a = c->inputs[0], *rhs = c->inputs[1];
  int r = a->shape.rank;
  int64_t n = a->shape.dims[r - 1], k = rhs->shape.dims[r - 1];
  if (a->shape.dims[r - 2] != n) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "First input (lhs) must be a square matrix.");
    return;
  }
  if (rhs->shape.dims[r - 2] != n) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Input matrix and rhs are incompatible.");
    return;
  }
  tfs_shape os;
  tfs_linalg__out_shape(&a->shape, 2, n, k, &os);
  tfs_tensor *o = tfs_kctx_alloc_output(c, 0, &os);
  if (!o || o->nelems == 0) return;
  tfs_linalg_job j = {.in = {a, rhs}, .out = {o}, .n = n, .k = k};
  j.flag[0] = ((const tfs_linalg_attrs *)c->state)->adjoint;
  j.fn = solve_one;
  /* n * k fits: the output holds that many elements */
  j.ws_elems = tfs_linalg__ws_elems(2 * n + 1, n, n * k);
  if (tfs_linalg__run(c, &j, batch, cube_cost(n, n + k)) > 0)
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "Input matrix is not invertible.");
}

/* ---- MatrixTriangularSolve ------------------------------------------- */

/* The batch index of each operand for output matrix b, from the
 * broadcast batch dims. */
typedef struct {
  int rank;
  int64_t dims[TFS_MAX_RANK];
  int64_t sa[TFS_MAX_RANK], sb[TFS_MAX_RANK]; /* 0 where broadcast */
} bcast_map;

static void bcast_index(const bcast_map *m, int64_t b, int64_t *ia,
                        int64_t *ib) {
  *ia = *ib = 0;
  for (int d = m->rank - 1; d >= 0; d--) {
    int64_t i = b % m->dims[d];
    b /= m->dims[d];
    *ia += i * m->sa[d];
    *ib += i * m->sb[d];
  }
}

/* ws: the matrix (n*n), then x (n*k). */
static int tri_one(const tfs_linalg_job *j, int64_t b, tfs_lz *ws) {
  int64_t n = j->n, k = j->k, ia, ib;
  bcast_index(j->extra, b, &ia, &ib);
  tfs_lz *a = ws, *x = ws + n * n;
  tfs_linalg__load(j->in[0], ia * n * n, n * n, a);
  tfs_linalg__load(j->in[1], ib * n * k, n * k, x);
  int lower = j->flag[0], adj = j->flag[1];
  /* forward when the effective matrix is lower triangular */
  int fwd = lower != adj;
  for (int64_t s = 0; s < n; s++) {
    int64_t i = fwd ? s : n - 1 - s;
    for (int64_t t = 0; t < s; t++) {
      int64_t jj = fwd ? t : n - 1 - t;
      tfs_lz e = adj ? lz_conj(a[jj * n + i]) : a[i * n + jj];
      for (int64_t c = 0; c < k; c++)
        x[i * k + c] = lz_sub(x[i * k + c], lz_mul(e, x[jj * k + c]));
    }
    tfs_lz d = adj ? lz_conj(a[i * n + i]) : a[i * n + i];
    for (int64_t c = 0; c < k; c++) x[i * k + c] = lz_div(x[i * k + c], d);
  }
  tfs_linalg__store(j->out[0], b * n * k, n * k, x);
  return 0;
}

/* TensorFlow's MatMulBCast over the batch dims of a and b: out's batch
 * shape and the map; -1 when they do not broadcast. */
static int tri_bcast(const tfs_shape *a, const tfs_shape *b, bcast_map *m,
                     tfs_shape *out) {
  int ra = a->rank - 2, rb = b->rank - 2;
  int r = ra > rb ? ra : rb;
  int64_t stra = 1, strb = 1;
  m->rank = r;
  out->rank = r;
  for (int d = r - 1; d >= 0; d--) {
    int da = d - (r - ra), db = d - (r - rb);
    int64_t x = da >= 0 ? a->dims[da] : 1, y = db >= 0 ? b->dims[db] : 1;
    if (x != y && x != 1 && y != 1) return -1;
    int64_t o = x == 1 ? y : x;
    m->dims[d] = o;
    out->dims[d] = o;
    m->sa[d] = x == 1 ? 0 : stra;
    m->sb[d] = y == 1 ? 0 : strb;
    stra *= x;
    strb *= y;
  }
  if (r == 0) { /* one matrix each */
    m->rank = 1;
    m->dims[0] = 1;
    m->sa[0] = m->sb[0] = 0;
  }
  return 0;
}

static void tri_compute(tfs_kernel_ctx *c) {
  const tfs_tensor *a = c->inputs[0], *rhs = c->inputs[1];
  int ra = a->shape.rank, rb = rhs->shape.rank;
  char s1[TFS_SHAPE_STRLEN], s2[TFS_SHAPE_STRLEN];
  if (ra < 2 || rb < 2) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "In[%d] ndims must be >= 2: %d",
                  ra < 2 ? 0 : 1, ra < 2 ? ra : rb);
    return;
  }
  int64_t n = a->shape.dims[ra - 1];
  if (a->shape.dims[ra - 2] != n) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "In[0] matrices in the last dimensions must be square "
                  "(%lld =/= %lld)",
                  (long long)n, (long long)a->shape.dims[ra - 2]);
    return;
  }
  bcast_map map;
  tfs_shape os;
  if (tri_bcast(&a->shape, &rhs->shape, &map, &os)) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "In[0] and In[1] must have compatible batch dimensions: "
                  "%s vs. %s",
                  tfs_shape_str(&a->shape, s1, sizeof s1),
                  tfs_shape_str(&rhs->shape, s2, sizeof s2));
    return;
  }
  tfs_linalg_job j = {.in = {a, rhs}, .n = n, .k = rhs->shape.dims[rb - 1]};
  j.flag[0] = ((const tfs_linalg_attrs *)c->state)->lower;
  j.flag[1] = ((const tfs_linalg_attrs *)c->state)->adjoint;
  if (rhs->shape.dims[rb - 2] != n) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "In[0] mismatch In[1] shape: %lld vs. %lld: %s %s %d %d",
                  (long long)n, (long long)rhs->shape.dims[rb - 2],
                  tfs_shape_str(&a->shape, s1, sizeof s1),
                  tfs_shape_str(&rhs->shape, s2, sizeof s2), j.flag[0],
                  j.flag[1]);
    return;
  }
  os.dims[os.rank] = n;
  os.dims[os.rank + 1] = j.k;
  os.rank += 2;
  tfs_tensor *o = tfs_kctx_alloc_output(c, 0, &os);
  if (!o || o->nelems == 0) return;
  j.out[0] = o;
  j.extra = &map;
  j.fn = tri_one;
  j.ws_elems = tfs_linalg__ws_elems(n, n, n * j.k);
  tfs_linalg__run(c, &j, o->nelems / (n * j.k), cube_cost(n, j.k));
}

/* ---- Cholesky ---------------------------------------------------------- */

static int cholesky_one(const tfs_linalg_job *j, int64_t b, tfs_lz *ws) {
  int64_t n = j->n;
  tfs_lz *a = ws;
  tfs_linalg__load(j->in[0], b * n * n, n * n, a);
  int ok = 1;
  for (int64_t k = 0; k < n && ok; k++) {
    double x = a[k * n + k].re;
    for (int64_t t = 0; t < k; t++) x -= lz_abs2(a[k * n + t]);
    if (x <= 0) {
      ok = 0;
      break;
    }
    x = sqrt(x);
    a[k * n + k] = lz(x, 0);
    for (int64_t i = k + 1; i < n; i++) {
      tfs_lz s = a[i * n + k];
      for (int64_t t = 0; t < k; t++)
        s = lz_sub(s, lz_mul(a[i * n + t], lz_conj(a[k * n + t])));
      a[i * n + k] = lz(s.re / x, s.im / x);
    }
  }
  for (int64_t i = 0; i < n; i++)
    for (int64_t t = 0; t < n; t++)
      if (t > i)
        a[i * n + t] = lz(0, 0);
      else if (!ok)
        a[i * n + t] = lz(NAN, 0);
  tfs_linalg__store(j->out[0], b * n * n, n * n, a);
  return 0;
}

static void cholesky_compute(tfs_kernel_ctx *c) {
  int64_t batch, n;
  if (tfs_linalg__check_square(c, &batch, &n)) return;
  const tfs_tensor *x = c->inputs[0];
  tfs_tensor *o = tfs_kctx_alloc_output(c, 0, &x->shape);
  if (!o || o->nelems == 0) return;
  tfs_linalg_job j = {.in = {x}, .out = {o}, .n = n};
  j.fn = cholesky_one;
  j.ws_elems = tfs_linalg__ws_elems(n, n, 0);
  tfs_linalg__run(c, &j, batch, cube_cost(n, 0) / 3 + 16);
}

#define FC                                                                     \
  (TFS_DT_BIT(TFS_FLOAT) | TFS_DT_BIT(TFS_DOUBLE) |                            \
   TFS_DT_BIT(TFS_COMPLEX64) | TFS_DT_BIT(TFS_COMPLEX128))

const tfs_kernel_def tfs_cpu_kernels_linalg[] = {
    {"MatrixInverse", "CPU", "T", FC | TFS_DT_BIT(TFS_HALF),
     tfs_linalg__prepare, inverse_compute, free, 0, NULL},
    {"MatrixSolve", "CPU", "T", FC, tfs_linalg__prepare, solve_compute, free, 0,
     NULL},
    {"MatrixTriangularSolve", "CPU", "T", FC, tfs_linalg__prepare, tri_compute,
     free, 0, NULL},
    {"Cholesky", "CPU", "T", FC, tfs_linalg__prepare, cholesky_compute, free, 0,
     NULL},
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL},
};
