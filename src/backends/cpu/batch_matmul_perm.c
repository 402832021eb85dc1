/*
 * backends/cpu/batch_matmul_perm.c - _TfsPermutedBatchMatMul(x, y[,
 * scale]): BatchMatMulV2 of transposed views of x and y, scaled by a
 * scalar when fused_ops is ["Mul"], written through a transposed view of
 * the output (optimizer/remap_bmm_perm.c folds attention's head
 * Transposes into it).  No transposed copy is made: each product reads
 * its operands where they lie, a row (or column) stride apart, and
 * writes its rows `ldc` apart into the permuted output.
 *
 * Each operand's permutation keeps its last dimension among the matrix
 * dimensions (so one of the matrix's strides is 1) and the output's
 * keeps the last dimension last; prepare rejects any other.  The
 * products are tfs_gemm_f32's, so the values are BatchMatMulV2's bits
 * on the transposed copies whenever the GEMM takes its packed path for
 * both (more than 8 rows, or neither operand read transposed).  In
 * bfloat16 (auto mixed precision's attention; no scale) they are
 * tfs_gemm_bf16's float32 sums, rounded as BatchMatMulV2's bfloat16
 * products round them, each row into its place.
 */
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/threadpool.h"
#include "backends/cpu/cpu_tables.h"
#include "backends/cpu/fused_epilogue.h"
#include "backends/cpu/gemm.h"
#include "ops/batch_matmul_check.h"

enum { PX, PY, PO };
static const char *const kPermName[3] = {"perm_x", "perm_y", "perm_out"};

typedef struct {
  int adj_x, adj_y, scaled;
  int np[3]; /* permutation lengths; 0: none */
  int perm[3][TFS_MAX_RANK];
} pbmm_state;

/* Reads attribute kPermName[w] into s: empty, or a permutation of 2 or
 * more dimensions whose last dimension lands where a matrix can still
 * be read with a unit stride. */
static int parse_perm(tfs_kernel_init *ki, int w, pbmm_state *s) {
  int n = 0;
  const int64_t *v = tfs_attrs_get_int_list(ki->attrs, kPermName[w], &n);
  s->np[w] = 0;
  if (!v || n == 0) return 0;
  if (n < 2 || n > TFS_MAX_RANK)
    return tfs_ki_error(ki, TFS_INVALID_ARGUMENT,
                        "%s must be empty or have 2 to %d elements, not %d",
                        kPermName[w], TFS_MAX_RANK, n);
  int seen[TFS_MAX_RANK] = {0};
  for (int i = 0; i < n; i++) {
    if (v[i] < 0 || v[i] >= n || seen[v[i]])
      return tfs_ki_error(ki, TFS_INVALID_ARGUMENT,
                          "%s is not a permutation of 0..%d", kPermName[w],
                          n - 1);
    seen[v[i]] = 1;
    s->perm[w][i] = (int)v[i];
  }
  int ok = w == PO ? v[n - 1] == n - 1
                   : v[n - 1] == n - 1 || v[n - 2] == n - 1;
  if (!ok)
    return tfs_ki_error(ki, TFS_INVALID_ARGUMENT,
                        w == PO ? "%s must keep the last dimension last"
                                : "%s must keep the last dimension among the "
                                  "last two",
                        kPermName[w]);
  s->np[w] = n;
  return 0;
}

static int pbmm_prepare(tfs_kernel_init *ki) {
  pbmm_state *s = tfs_calloc(1, sizeof(*s));
  if (!s) return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  ki->state = s;
  tfs_attrs_get_bool(ki->attrs, "adj_x", &s->adj_x);
  tfs_attrs_get_bool(ki->attrs, "adj_y", &s->adj_y);
  for (int w = PX; w <= PO; w++)
    if (parse_perm(ki, w, s)) return -1;
  const tfs_attr_value *ops = tfs_attrs_find(ki->attrs, "fused_ops");
  int nops = ops && ops->is_list ? ops->u.list.n : 0;
  if (nops == 0) {
    int64_t num_args = 0;
    tfs_attrs_get_int(ki->attrs, "num_args", &num_args);
    if (num_args != 0)
      return tfs_ki_error(ki, TFS_INVALID_ARGUMENT,
                          "num_args must be 0 without fused_ops, not %lld",
                          (long long)num_args);
    return 0;
  }
  tfs_fused_epilogue e;
  if (tfs_fused_parse(ki, 1u << TFS_FE_MUL, &e)) return -1;
  if (e.act) /* tfs_fused_parse's message, for a list it accepts */
    return tfs_ki_error(ki, TFS_UNIMPLEMENTED,
                        "Fusion is not implemented: [Mul,%s]",
                        ((const tfs_bytes *)ops->u.list.v)[1].ptr);
  if (ki->in_types[0] == TFS_BFLOAT16)
    return tfs_ki_error(ki, TFS_UNIMPLEMENTED,
                        "_TfsPermutedBatchMatMul with a scale is float only");
  s->scaled = 1;
  return 0;
}

/* dims and element strides of transpose(t, perm) (perm NULL: t). */
static void view(const tfs_shape *t, const int *perm, int64_t *dims,
                 int64_t *st) {
  int64_t cs[TFS_MAX_RANK], acc = 1;
  for (int i = t->rank - 1; i >= 0; i--) {
    cs[i] = acc;
    acc *= t->dims[i];
  }
  for (int j = 0; j < t->rank; j++) {
    int p = perm ? perm[j] : j;
    dims[j] = t->dims[p];
    st[j] = cs[p];
  }
}

typedef struct {
  int64_t m, n, k;
  int ta, tb;
  int64_t lda, ldb, ldc;
  int nb;                    /* batch rank of the product */
  int64_t bdims[TFS_MAX_RANK];
  int64_t xst[TFS_MAX_RANK], yst[TFS_MAX_RANK], ost[TFS_MAX_RANK];
  const float *x, *y;
  float *o;
  float alpha;
  tfs_threadpool *pool; /* the GEMM's own split, or NULL */
  /* bfloat16: operands and output as 16-bit elements, each product's
   * float32 sums in of (m x n a batch) before its rounding */
  const uint16_t *x16, *y16;
  uint16_t *o16;
  float *of;
  atomic_int failed;
} pbmm_job;

/* Batch b of a bfloat16 product at element offsets xo, yo, oo: the
 * float32 sums (as BatchMatMulV2's bfloat16 products: tfs_gemm_bf16,
 * the operands read where they lie), then each output row rounded into
 * its place. */
static void pbmm_one_bf16(pbmm_job *j, int64_t b, int64_t xo, int64_t yo,
                          int64_t oo) {
  float *of = j->of + b * j->m * j->n;
  if (tfs_gemm_bf16(j->ta, j->tb, j->m, j->n, j->k, j->x16 + xo, j->lda,
                    j->y16 + yo, j->ldb, of, j->n, j->pool)) {
    atomic_store(&j->failed, 1);
    return;
  }
  for (int64_t i = 0; i < j->m; i++)
    tfs_gemm_round_bf16(of + i * j->n, j->o16 + oo + i * j->ldc, j->n);
}

/* op(V) of `rows` x `cols` whose element (i, p) lies at i * rs + p * cs:
 * as tfs_gemm_f32 reads it, plain with ld = rs or transposed with ld =
 * cs (one of them is 1, by the permutation's rule). */
static void as_matrix(int64_t rs, int64_t cs, int64_t cols, int *trans,
                      int64_t *ld) {
  if (cs == 1) {
    *trans = 0;
    *ld = rs > cols ? rs : cols;
  } else {
    *trans = 1;
    *ld = cs;
  }
}

static void pbmm_range(void *arg, int64_t b0, int64_t b1) {
  pbmm_job *j = arg;
  for (int64_t b = b0; b < b1; b++) {
    int64_t rem = b, xo = 0, yo = 0, oo = 0;
    for (int d = j->nb - 1; d >= 0; d--) {
      int64_t i = rem % j->bdims[d];
      rem /= j->bdims[d];
      xo += i * j->xst[d];
      yo += i * j->yst[d];
      oo += i * j->ost[d];
    }
    if (j->of) {
      pbmm_one_bf16(j, b, xo, yo, oo);
      continue;
    }
    tfs_gemm_f32(j->ta, j->tb, j->m, j->n, j->k, j->alpha, j->x + xo, j->lda,
                 j->y + yo, j->ldb, 0.0f, j->o + oo, j->ldc, j->pool);
  }
}

/* The batch strides of an operand of rank r (dims d, strides st) against
 * the product's nb batch dims: 0 where it broadcasts. */
static void batch_strides(int r, const int64_t *d, const int64_t *st, int nb,
                          int64_t *out) {
  for (int i = 0; i < nb; i++) {
    int k = i - (nb - (r - 2));
    out[i] = k >= 0 && d[k] != 1 ? st[k] : 0;
  }
}

static int check_rank(tfs_kernel_ctx *c, const pbmm_state *s, int w,
                      int rank, const char *what) {
  if (s->np[w] == 0 || s->np[w] == rank) return 0;
  tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                "%s has %d elements but %s has rank %d", kPermName[w],
                s->np[w], what, rank);
  return -1;
}

static void pbmm_compute(tfs_kernel_ctx *c) {
  const pbmm_state *s = c->state;
  const tfs_tensor *x = c->inputs[0], *y = c->inputs[1];
  int rx = x->shape.rank, ry = y->shape.rank;
  if (check_rank(c, s, PX, rx, "x") || check_rank(c, s, PY, ry, "y")) return;
  if (s->scaled && c->inputs[2]->nelems != 1) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "the scale must have one element, not %lld",
                  (long long)c->inputs[2]->nelems);
    return;
  }
  tfs_shape xs = {.rank = rx}, ys = {.rank = ry}, ps;
  int64_t sx[TFS_MAX_RANK], sy[TFS_MAX_RANK];
  view(&x->shape, s->np[PX] ? s->perm[PX] : NULL, xs.dims, sx);
  view(&y->shape, s->np[PY] ? s->perm[PY] : NULL, ys.dims, sy);
  if (tfs_batch_matmul_check(&xs, &ys, 2, s->adj_x, s->adj_y, &ps, c->st)) {
    tfs_kctx_fail_status(c, c->st);
    return;
  }
  int rp = ps.rank;
  if (check_rank(c, s, PO, rp, "the product")) return;
  tfs_shape os = {.rank = rp};
  int64_t so[TFS_MAX_RANK], sp[TFS_MAX_RANK];
  for (int i = 0; i < rp; i++)
    os.dims[i] = ps.dims[s->np[PO] ? s->perm[PO][i] : i];
  /* the product's element strides in the output: the output's own
   * strides, permuted back */
  view(&os, NULL, os.dims, so);
  for (int i = 0; i < rp; i++) sp[s->np[PO] ? s->perm[PO][i] : i] = so[i];
  tfs_tensor *o = tfs_kctx_alloc_output(c, 0, &os);
  if (!o || o->nelems == 0) return;
  pbmm_job j;
  memset(&j, 0, sizeof j);
  j.m = ps.dims[rp - 2];
  j.n = ps.dims[rp - 1];
  j.k = xs.dims[rx - (s->adj_x ? 2 : 1)];
  if (j.k == 0) {
    memset(o->data, 0, o->nbytes);
    return;
  }
  int64_t xr = sx[rx - 2], xc = sx[rx - 1], yr = sy[ry - 2], yc = sy[ry - 1];
  if (s->adj_x) xr = sx[rx - 1], xc = sx[rx - 2];
  if (s->adj_y) yr = sy[ry - 1], yc = sy[ry - 2];
  as_matrix(xr, xc, j.k, &j.ta, &j.lda);
  as_matrix(yr, yc, j.n, &j.tb, &j.ldb);
  j.ldc = sp[rp - 2] > j.n ? sp[rp - 2] : j.n;
  /* the BLAS fallback takes int sizes and strides; past them an input
   * holds 2^31 elements or more */
  if (j.m > INT32_MAX || j.n > INT32_MAX || j.k > INT32_MAX ||
      j.lda > INT32_MAX || j.ldb > INT32_MAX || j.ldc > INT32_MAX) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "BatchMatMul dimensions too "
                  "large for the BLAS");
    return;
  }
  j.nb = rp - 2;
  int64_t nbatch = 1;
  for (int i = 0; i < j.nb; i++) {
    j.bdims[i] = ps.dims[i];
    j.ost[i] = sp[i];
    nbatch *= ps.dims[i];
  }
  batch_strides(rx, xs.dims, sx, j.nb, j.xst);
  batch_strides(ry, ys.dims, sy, j.nb, j.yst);
  j.x = x->data;
  j.y = y->data;
  j.o = o->data;
  j.alpha = s->scaled ? ((const float *)c->inputs[2]->data)[0] : 1.0f;
  if (x->dtype == TFS_BFLOAT16) {
    j.x16 = x->data;
    j.y16 = y->data;
    j.o16 = o->data;
    j.of = tfs_kctx_scratch(c, sizeof(float) * (size_t)(nbatch * j.m * j.n));
    if (!j.of) return; /* c failed */
  }
  /* as BatchMatMulV2: many matrices go whole to the pool's threads, a
   * few big ones are each split over it */
  tfs_threadpool *pool = tfs_kctx_intra_pool(c);
  int64_t cost = tfs_gemm_cost_ns(j.m, j.n, j.k);
  int nt = tfs_threadpool_parallelism(pool);
  if (nbatch % nt == 0 || nbatch >= 4 * nt ||
      cost < 2 * nt * (int64_t)TFS_PARALLEL_MIN_NS) {
    tfs_kctx_parallel_for(c, nbatch, cost, pbmm_range, &j);
  } else {
    j.pool = pool;
    pbmm_range(&j, 0, nbatch);
  }
  if (atomic_load(&j.failed))
    tfs_kctx_fail(c, TFS_RESOURCE_EXHAUSTED, "out of memory");
}

const tfs_kernel_def tfs_cpu_kernels_batch_matmul_perm[] = {
    {"_TfsPermutedBatchMatMul", "CPU", "T",
     TFS_DT_BIT(TFS_FLOAT) | TFS_DT_BIT(TFS_BFLOAT16),
     pbmm_prepare, pbmm_compute, free, TFS_KERNEL_EXPENSIVE, NULL},
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL},
};
