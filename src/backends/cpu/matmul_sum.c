/*
 * backends/cpu/matmul_sum.c - _TfsMatMulSum(a, b, wa, wb[, bias]) =
 * MatMul(a, wa) + MatMul(b, wb) [+ bias along the last dimension]: the
 * input and recurrent products of an RNN cell (optimizer/
 * remap_matmul_sum.c makes the op).  When a and b have as many rows, it
 * is one product of [a | b] (each row of a followed by the same row of
 * b) by wa stacked on wb, with the bias added to each tile as it is
 * finished: one GEMM with the depth of both (it splits over the intra-op
 * pool where the two halves would not) and no pass for the sum.  The
 * stacked weights of constant wa and wb are packed once at prepare.
 * The sum is accumulated over the whole depth, so the values are those
 * of MatMul(Concat([a, b], 1), Concat([wa, wb], 0)) [+ bias], not the
 * bits of two products rounded and added (within float rounding of
 * them).  Rows that broadcast (one operand with one row, as AddV2
 * broadcasts it) take two products and the broadcast sum.
 */
#include <string.h>

#include "core/alloc.h"
#include "core/util.h"
#include "backends/cpu/cpu_tables.h"
#include "backends/cpu/elementwise.h"
#include "backends/cpu/fused_epilogue.h"
#include "backends/cpu/gemm.h"
#include "ops/nn_checks.h"

typedef struct {
  const tfs_tensor *wa, *wb; /* the constants packed below */
  tfs_gemm_packed *w;        /* [wa; wb] packed, or NULL */
  char *names[3];            /* node_names: the two MatMuls', the Add's */
} ms_state;

/* wa [ka, n] stacked on wb [kb, n] (row-major, so one after the other),
 * packed; NULL when memory runs out. */
static tfs_gemm_packed *pack_stacked(const tfs_tensor *wa,
                                     const tfs_tensor *wb) {
  int64_t ka = wa->shape.dims[0], kb = wb->shape.dims[0];
  int64_t n = wa->shape.dims[1];
  float *w = tfs_malloc(sizeof(float) * (size_t)((ka + kb) * n) + 1);
  if (!w) return NULL;
  memcpy(w, wa->data, wa->nbytes);
  memcpy(w + ka * n, wb->data, wb->nbytes);
  tfs_gemm_packed *p = tfs_gemm_pack_b_f32(0, ka + kb, n, w, n);
  tfs_free(w);
  return p;
}

static int is_matrix(const tfs_tensor *t) {
  return t && t->dtype == TFS_FLOAT && t->shape.rank == 2;
}

static void ms_release(void *state) {
  ms_state *s = state;
  if (!s) return;
  tfs_gemm_packed_free(s->w);
  for (int i = 0; i < 3; i++) tfs_free(s->names[i]);
  tfs_free(s);
}

static int ms_prepare(tfs_kernel_init *ki) {
  int64_t nargs = 0;
  tfs_attrs_get_int(ki->attrs, "num_args", &nargs);
  if (nargs > 1)
    return tfs_ki_error(ki, TFS_INVALID_ARGUMENT,
                        "_TfsMatMulSum takes at most one bias (num_args 0 "
                        "or 1), got num_args %lld",
                        (long long)nargs);
  ms_state *s = tfs_calloc(1, sizeof(*s));
  if (!s) return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  const tfs_attr_value *nv = tfs_attrs_find(ki->attrs, "node_names");
  if (nv && nv->is_list && nv->type == TFS_ATTR_STRING)
    for (int i = 0; i < nv->u.list.n && i < 3; i++) {
      s->names[i] = tfs_strdup(((const tfs_bytes *)nv->u.list.v)[i].ptr);
      if (!s->names[i]) {
        ms_release(s);
        return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
      }
    }
  const tfs_tensor *wa = ki->in_consts ? ki->in_consts[2] : NULL;
  const tfs_tensor *wb = ki->in_consts ? ki->in_consts[3] : NULL;
  if (is_matrix(wa) && is_matrix(wb) &&
      wa->shape.dims[1] == wb->shape.dims[1] && wa->shape.dims[1] > 0 &&
      wa->nelems + wb->nelems > 0) {
    s->w = pack_stacked(wa, wb);
    if (s->w) { /* else: packed per run */
      s->wa = wa;
      s->wb = wb;
    }
  }
  ki->state = s;
  return 0;
}

/* Equal rows: [a | b] times the stacked weights. */
static void stacked(tfs_kernel_ctx *c, const ms_state *s, const tfs_tensor *a,
                    const tfs_tensor *b, const float *bias, float *out,
                    int64_t m, int64_t n) {
  const tfs_tensor *wa = c->inputs[2], *wb = c->inputs[3];
  int64_t ka = a->shape.dims[1], kb = b->shape.dims[1], k = ka + kb;
  float *x = tfs_kctx_scratch(c, sizeof(float) * (size_t)(m * k) + 1);
  if (!x) return;
  const float *ad = a->data, *bd = b->data;
  for (int64_t r = 0; r < m; r++) {
    memcpy(x + r * k, ad + r * ka, sizeof(float) * (size_t)ka);
    memcpy(x + r * k + ka, bd + r * kb, sizeof(float) * (size_t)kb);
  }
  tfs_gemm_packed *w = s->w && wa == s->wa && wb == s->wb ? s->w : NULL;
  tfs_gemm_packed *own = w ? NULL : pack_stacked(wa, wb);
  if (!w && !own) {
    tfs_kctx_fail(c, TFS_RESOURCE_EXHAUSTED, "out of memory");
    return;
  }
  tfs_fused_bias_job j = {out, bias, n};
  tfs_gemm_f32_packed_done(0, m, 1.0f, x, k, w ? w : own, 0.0f, out, n,
                           tfs_kctx_intra_pool(c),
                           bias ? tfs_fused_bias_done : NULL, &j);
  tfs_gemm_packed_free(own);
}

/* Products that broadcast against each other (one row, or one column,
 * as AddV2 broadcasts them), or of no depth: both products, then their
 * broadcast sum (and the bias), rounded as AddV2 and BiasAdd round
 * them. */
static void broadcast(tfs_kernel_ctx *c, const tfs_tensor *a,
                      const tfs_tensor *b, const float *bias, float *out,
                      int64_t m, int64_t n) {
  const tfs_tensor *wa = c->inputs[2], *wb = c->inputs[3];
  int64_t ma = a->shape.dims[0], mb = b->shape.dims[0];
  int64_t ka = a->shape.dims[1], kb = b->shape.dims[1];
  int64_t na = wa->shape.dims[1], nb = wb->shape.dims[1];
  float *pa = tfs_kctx_scratch(c, sizeof(float) *
                                      (size_t)(ma * na + mb * nb + 1));
  if (!pa) return;
  float *pb = pa + ma * na;
  tfs_threadpool *pool = tfs_kctx_intra_pool(c);
  tfs_gemm_f32(0, 0, ma, na, ka, 1.0f, a->data, ka, wa->data, na, 0.0f, pa,
               na, pool);
  tfs_gemm_f32(0, 0, mb, nb, kb, 1.0f, b->data, kb, wb->data, nb, 0.0f, pb,
               nb, pool);
  for (int64_t r = 0; r < m; r++) {
    const float *x = pa + (ma == 1 ? 0 : r) * na;
    const float *y = pb + (mb == 1 ? 0 : r) * nb;
    float *o = out + r * n;
    for (int64_t q = 0; q < n; q++)
      o[q] = x[na == 1 ? 0 : q] + y[nb == 1 ? 0 : q];
    if (bias)
      for (int64_t q = 0; q < n; q++) o[q] += bias[q];
  }
}

static void ms_compute(tfs_kernel_ctx *c) {
  const ms_state *s = c->state;
  const tfs_tensor *a = c->inputs[0], *b = c->inputs[1];
  int64_t ma, mb, ka, kb, na, nb;
  tfs_shape sa, sb, os;
  /* each check's error names the op TensorFlow would have raised it in */
  const char *self = c->node_name;
  c->node_name = s->names[0] ? s->names[0] : self;
  int bad = tfs_matmul_check_2d(c, a, c->inputs[2], 0, 0, &ma, &ka, &na);
  c->node_name = s->names[1] ? s->names[1] : self;
  bad = bad || tfs_matmul_check_2d(c, b, c->inputs[3], 0, 0, &mb, &kb, &nb);
  if (!bad) {
    c->node_name = s->names[2] ? s->names[2] : self;
    tfs_shape_2d(&sa, ma, na);
    tfs_shape_2d(&sb, mb, nb);
    if ((bad = tfs_broadcast_shapes(&sa, &sb, &os, c->st)))
      tfs_kctx_fail_status(c, c->st);
  }
  c->node_name = self;
  if (bad) return;
  const float *bias = NULL;
  if (c->ninputs > 4) {
    int cd;
    if (tfs_bias_add_check(&os, &c->inputs[4]->shape, 0, &cd, c->st)) {
      tfs_kctx_fail_status(c, c->st);
      return;
    }
    bias = c->inputs[4]->data;
  }
  tfs_tensor *o = tfs_kctx_alloc_output(c, 0, &os);
  int64_t m = os.dims[0], n = os.dims[1];
  if (!o || m == 0 || n == 0) return;
  if (m > INT32_MAX || n > INT32_MAX || ka + kb > INT32_MAX) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "MatMul dimensions too large");
    return;
  }
  if (ma == mb && na == nb && ka + kb > 0)
    stacked(c, s, a, b, bias, o->data, m, n);
  else
    broadcast(c, a, b, bias, o->data, m, n);
}

const tfs_kernel_def tfs_cpu_kernels_matmul_sum[] = {
    {"_TfsMatMulSum", "CPU", "T", TFS_DT_BIT(TFS_FLOAT), ms_prepare,
     ms_compute, ms_release, TFS_KERNEL_EXPENSIVE, NULL},
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL},
};
