/*
 * backends/cpu/array_einsum.c - Einsum for one or two operands.  Labels are
 * sorted into batch (both inputs and the output), contracted (both inputs
 * only), free (one input and the output) and reduced (one input only);
 * each operand is brought to [batch, free, contract] (no copy when it is
 * already in that order or its transpose), the contraction is a batched
 * GEMM (OpenBLAS for float and double; half and bfloat16 go through
 * float), and the result is laid out in the output's label order.
 * Repeated labels take diagonals (inputs) or write them (output);
 * ellipsis dims broadcast.
 */
#include <cblas.h>
#include <string.h>

#include "core/alloc.h"
#include "core/half.h"
#include "backends/cpu/array_util.h"
#include "backends/cpu/gemm.h"
#include "ops/einsum_spec.h"

#define NL TFS_EINSUM_MAX_LABELS

/* The working type: float for float/half/bfloat16, else the dtype. */
typedef struct {
  tfs_dtype dt;  /* TFS_FLOAT, TFS_DOUBLE, TFS_INT32 or TFS_INT64 */
  size_t size;
} work_type;

/* One operand: its distinct labels with sizes and element strides. */
typedef struct {
  const char *data;
  int n;
  int lab[TFS_MAX_RANK];
  int64_t size[TFS_MAX_RANK], stride[TFS_MAX_RANK];
  int plain; /* no diagonal: the data is contiguous in label order */
} ein_view;

typedef struct {
  int n;
  int lab[NL];
} label_list;

static void view_of(const tfs_einsum_dims *d, int i, const tfs_shape *s,
                    const char *data, ein_view *v) {
  int64_t strides[TFS_MAX_RANK];
  tfs_arr_strides(s->dims, s->rank, strides);
  v->data = data;
  v->n = 0;
  v->plain = 1;
  for (int a = 0; a < s->rank; a++) {
    int lab = d->in_labels[i][a];
    int64_t dim = s->dims[a];
    if (dim == 1 && d->label_dim[lab] != 1) continue; /* broadcast */
    int k = 0;
    while (k < v->n && v->lab[k] != lab) k++;
    if (k < v->n) { /* repeated label: the diagonal */
      v->stride[k] += strides[a];
      v->plain = 0;
      continue;
    }
    v->lab[v->n] = lab;
    v->size[v->n] = dim;
    v->stride[v->n] = strides[a];
    v->n++;
  }
}

static int has(const ein_view *v, int lab) {
  for (int k = 0; k < v->n; k++)
    if (v->lab[k] == lab) return k;
  return -1;
}

static int64_t label_size(const ein_view *v, int lab) {
  int k = has(v, lab);
  return k < 0 ? 1 : v->size[k];
}

/* Whether v's data is contiguous in the order a ++ b (labels of size 1
 * aside). */
static int in_order(const ein_view *v, const label_list *a,
                    const label_list *b) {
  if (!v->plain) return 0;
  int seq[2 * NL], n = 0;
  for (int k = 0; k < a->n; k++)
    if (label_size(v, a->lab[k]) != 1) seq[n++] = a->lab[k];
  for (int k = 0; k < b->n; k++)
    if (label_size(v, b->lab[k]) != 1) seq[n++] = b->lab[k];
  int m = 0;
  for (int k = 0; k < v->n; k++) {
    if (v->size[k] == 1) continue;
    if (m >= n || seq[m] != v->lab[k]) return 0;
    m++;
  }
  return m == n;
}

/* ---- reductions and GEMM per working type -------------------------------- */

/* out[r] = sum of in[r*red .. r*red+red). */
static void sum_rows(work_type w, const void *in, void *out, int64_t rows,
                     int64_t red) {
  for (int64_t r = 0; r < rows; r++) {
    switch (w.dt) {
#define SUM(T)                                                             \
  {                                                                        \
    const T *p = (const T *)in + r * red;                                  \
    T acc = 0;                                                             \
    for (int64_t i = 0; i < red; i++) acc = (T)(acc + p[i]);               \
    ((T *)out)[r] = acc;                                                   \
    break;                                                                 \
  }
    case TFS_FLOAT: SUM(float)
    case TFS_DOUBLE: SUM(double)
    case TFS_INT32: SUM(uint32_t)
    default: SUM(uint64_t)
#undef SUM
    }
  }
}

typedef struct {
  work_type w;
  int ta, tb;
  int64_t m, n, k;
  const char *a, *b;
  char *c;
  const int64_t *aoff, *boff; /* per batch, in elements */
} gemm_job;

#define GEMM_LOOP(T)                                                       \
  {                                                                        \
    const T *A = (const T *)a, *B = (const T *)b;                          \
    T *C = (T *)c;                                                         \
    for (int64_t i = 0; i < j->m; i++)                                     \
      for (int64_t q = 0; q < j->n; q++) {                                 \
        T acc = 0;                                                         \
        for (int64_t p = 0; p < j->k; p++) {                               \
          T x = A[j->ta ? p * j->m + i : i * j->k + p];                    \
          T y = B[j->tb ? q * j->k + p : p * j->n + q];                    \
          acc = (T)(acc + x * y);                                          \
        }                                                                  \
        C[i * j->n + q] = acc;                                             \
      }                                                                    \
  }

static void gemm_one(const gemm_job *j, const char *a, const char *b,
                     char *c) {
  int lda = (int)(j->ta ? j->m : j->k), ldb = (int)(j->tb ? j->k : j->n);
  if (j->k == 0) {
    memset(c, 0, (size_t)(j->m * j->n) * j->w.size);
    return;
  }
  switch (j->w.dt) {
  case TFS_FLOAT:
    /* the project's GEMM, on this pool thread (batches are split over
     * the pool) */
    tfs_gemm_f32(j->ta, j->tb, j->m, j->n, j->k, 1.0f, (const float *)a, lda,
                 (const float *)b, ldb, 0.0f, (float *)c, j->n, NULL);
    break;
  case TFS_DOUBLE:
    cblas_dgemm(CblasRowMajor, j->ta ? CblasTrans : CblasNoTrans,
                j->tb ? CblasTrans : CblasNoTrans, (int)j->m, (int)j->n,
                (int)j->k, 1.0, (const double *)a, lda, (const double *)b,
                ldb, 0.0, (double *)c, (int)j->n);
    break;
  case TFS_INT32:
    GEMM_LOOP(uint32_t)
    break;
  default:
    GEMM_LOOP(uint64_t)
  }
}

static void gemm_range(void *arg, int64_t begin, int64_t end) {
  const gemm_job *j = arg;
  size_t es = j->w.size;
  for (int64_t t = begin; t < end; t++)
    gemm_one(j, j->a + (size_t)j->aoff[t] * es, j->b + (size_t)j->boff[t] * es,
             j->c + (size_t)(t * j->m * j->n) * es);
}

/* ---- operand preparation ------------------------------------------------- */

static int64_t prod_sizes(const ein_view *v, const label_list *l) {
  int64_t p = 1;
  for (int k = 0; k < l->n; k++) p *= label_size(v, l->lab[k]);
  return p;
}

/* Brings v to the contiguous order lead ++ tail ++ red and sums red away.
 * Returns the data (v's own when already in order), NULL after failing. */
static const char *arrange(tfs_kernel_ctx *c, work_type w, const ein_view *v,
                           const label_list *lead, const label_list *tail,
                           const label_list *red) {
  if (red->n == 0 && in_order(v, lead, tail)) return v->data;
  tfs_strided p = {.rank = 0};
  const label_list *parts[3] = {lead, tail, red};
  for (int s = 0; s < 3; s++)
    for (int k = 0; k < parts[s]->n; k++) {
      int at = has(v, parts[s]->lab[k]);
      tfs_strided_push(&p, at < 0 ? 1 : v->size[at], 0,
                       at < 0 ? 0 : v->stride[at]);
    }
  tfs_arr_strides(p.dims, p.rank, p.dst_stride);
  int64_t keep = prod_sizes(v, lead) * prod_sizes(v, tail);
  int64_t rsz = prod_sizes(v, red);
  char *buf = tfs_kctx_scratch(c, (size_t)(keep * rsz + 1) * w.size);
  if (!buf) return NULL;
  tfs_elem e = {w.size, 0};
  if (keep * rsz > 0 && tfs_strided_copy(c, e, buf, v->data, &p)) return NULL;
  if (red->n == 0) return buf;
  char *sum = tfs_kctx_scratch(c, (size_t)(keep + 1) * w.size);
  if (!sum) return NULL;
  sum_rows(w, buf, sum, keep, rsz);
  return sum;
}

/* ---- output placement ---------------------------------------------------- */

/* Writes `res` (labels `order`, contiguous) into out (d->out_labels,
 * repeated labels on the diagonal, zeros elsewhere). */
static int place(tfs_kernel_ctx *c, work_type w, const tfs_einsum_dims *d,
                 const label_list *order, const char *res, char *out,
                 int64_t out_n) {
  int64_t ostr[TFS_MAX_RANK], dims[TFS_MAX_RANK];
  int repeated = 0;
  for (int k = 0; k < d->out_rank; k++)
    dims[k] = d->label_dim[d->out_labels[k]];
  tfs_arr_strides(dims, d->out_rank, ostr);
  tfs_strided p = {.rank = 0};
  for (int k = 0; k < order->n; k++) {
    int64_t ds = 0, cnt = 0;
    for (int q = 0; q < d->out_rank; q++)
      if (d->out_labels[q] == order->lab[k]) {
        ds += ostr[q];
        cnt++;
      }
    repeated |= cnt > 1;
    tfs_strided_push(&p, d->label_dim[order->lab[k]], ds, 0);
  }
  tfs_arr_strides(p.dims, p.rank, p.src_stride);
  if (repeated) memset(out, 0, (size_t)out_n * w.size);
  if (out_n == 0) return 0;
  tfs_elem e = {w.size, 0};
  return tfs_strided_copy(c, e, out, res, &p);
}

/* ---- the kernel ---------------------------------------------------------- */

typedef struct {
  tfs_einsum_spec spec;
} ein_state;

static int einsum_prepare(tfs_kernel_init *ki) {
  size_t len = 0;
  const char *eq = tfs_attrs_get_string(ki->attrs, "equation", &len);
  ein_state *s = tfs_calloc(1, sizeof(*s));
  if (!s) return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  ki->state = s;
  if (tfs_einsum_parse(eq ? eq : "", eq ? len : 0, ki->ninputs, &s->spec,
                       ki->st)) {
    char *m = tfs_strdup(tfs_status_message(ki->st));
    tfs_ki_error(ki, TFS_INVALID_ARGUMENT, "%s", m ? m : "bad equation");
    tfs_free(m);
    return -1;
  }
  return 0;
}

/* The inputs in the working type (converted copies for 16-bit floats). */
static const char *work_data(tfs_kernel_ctx *c, const tfs_tensor *x) {
  if (x->dtype != TFS_HALF && x->dtype != TFS_BFLOAT16) return x->data;
  float *f = tfs_kctx_scratch(c, sizeof(float) * (size_t)(x->nelems + 1));
  if (!f) return NULL;
  const uint16_t *h = x->data;
  for (int64_t i = 0; i < x->nelems; i++)
    f[i] = x->dtype == TFS_HALF ? tfs_half_to_float(h[i])
                                : tfs_bf16_to_float(h[i]);
  return (const char *)f;
}

/* Classifies labels and runs the contraction of two views into a result
 * laid out as `order`. */
static const char *contract2(tfs_kernel_ctx *c, work_type w,
                             const tfs_einsum_dims *d, const ein_view *va,
                             const ein_view *vb, label_list *order) {
  uint8_t in_out[NL] = {0};
  for (int k = 0; k < d->out_rank; k++) in_out[d->out_labels[k]] = 1;
  label_list batch = {0}, fa = {0}, fb = {0}, con = {0}, ra = {0}, rb = {0};
  for (int k = 0; k < d->out_rank; k++) { /* output order, first time */
    int l = d->out_labels[k], dup = 0;
    for (int q = 0; q < k; q++) dup |= d->out_labels[q] == l;
    if (dup) continue;
    int ina = has(va, l) >= 0, inb = has(vb, l) >= 0;
    if (ina && inb) batch.lab[batch.n++] = l;
    else if (ina) fa.lab[fa.n++] = l;
    else if (inb) fb.lab[fb.n++] = l;
  }
  for (int k = 0; k < va->n; k++) {
    int l = va->lab[k];
    if (in_out[l]) continue;
    if (has(vb, l) >= 0) con.lab[con.n++] = l;
    else ra.lab[ra.n++] = l;
  }
  for (int k = 0; k < vb->n; k++)
    if (!in_out[vb->lab[k]] && has(va, vb->lab[k]) < 0)
      rb.lab[rb.n++] = vb->lab[k];
  label_list bfa = batch, bfb = batch, bc = batch;
  for (int k = 0; k < fa.n; k++) bfa.lab[bfa.n++] = fa.lab[k];
  for (int k = 0; k < fb.n; k++) bfb.lab[bfb.n++] = fb.lab[k];
  for (int k = 0; k < con.n; k++) bc.lab[bc.n++] = con.lab[k];
  gemm_job j = {.w = w};
  const char *a, *b;
  j.ta = ra.n == 0 && !in_order(va, &bfa, &con) && in_order(va, &bc, &fa);
  a = j.ta ? va->data : arrange(c, w, va, &bfa, &con, &ra);
  j.tb = rb.n == 0 && !in_order(vb, &bc, &fb) && in_order(vb, &bfb, &con);
  b = !a ? NULL : j.tb ? vb->data : arrange(c, w, vb, &bc, &fb, &rb);
  if (!b) return NULL;
  int64_t nb = 1;
  for (int k = 0; k < batch.n; k++) nb *= d->label_dim[batch.lab[k]];
  j.m = prod_sizes(va, &fa);
  j.n = prod_sizes(vb, &fb);
  j.k = prod_sizes(va, &con);
  int64_t *offs = tfs_kctx_scratch(c, sizeof(int64_t) * (size_t)(2 * nb + 1));
  char *res = tfs_kctx_scratch(c, (size_t)(nb * j.m * j.n + 1) * w.size);
  if (!offs || !res) return NULL;
  for (int64_t t = 0; t < nb; t++) {
    offs[t] = t * j.m * j.k;
    offs[nb + t] = t * j.k * j.n;
  }
  j.a = a, j.b = b, j.c = res, j.aoff = offs, j.boff = offs + nb;
  *order = bfa;
  for (int k = 0; k < fb.n; k++) order->lab[order->n++] = fb.lab[k];
  if (nb * j.m * j.n > 0)
    tfs_kctx_parallel_for(c, nb, j.m * j.n * (j.k + 1) / 8 + 1000,
                          gemm_range, &j);
  return res;
}

/* One operand: transpose to the output's first-occurrence order and sum
 * the labels the output lacks. */
static const char *contract1(tfs_kernel_ctx *c, work_type w,
                             const tfs_einsum_dims *d, const ein_view *v,
                             label_list *order) {
  label_list keep = {0}, red = {0}, none = {0};
  for (int k = 0; k < d->out_rank; k++) {
    int l = d->out_labels[k], dup = 0;
    for (int q = 0; q < k; q++) dup |= d->out_labels[q] == l;
    if (!dup && has(v, l) >= 0) keep.lab[keep.n++] = l;
  }
  for (int k = 0; k < v->n; k++) {
    int found = 0;
    for (int q = 0; q < d->out_rank; q++)
      found |= d->out_labels[q] == v->lab[k];
    if (!found) red.lab[red.n++] = v->lab[k];
  }
  *order = keep;
  return arrange(c, w, v, &keep, &none, &red);
}

static void store_output(tfs_tensor *o, const float *src) {
  uint16_t *h = o->data;
  for (int64_t i = 0; i < o->nelems; i++)
    h[i] = o->dtype == TFS_HALF ? tfs_float_to_half(src[i])
                                : tfs_float_to_bf16(src[i]);
}

static void einsum_compute(tfs_kernel_ctx *c) {
  const ein_state *s = c->state;
  const tfs_shape *shapes[2] = {&c->inputs[0]->shape,
                                &c->inputs[c->ninputs - 1]->shape};
  tfs_einsum_dims d;
  if (tfs_einsum_resolve(&s->spec, shapes, 0, &d, c->st)) {
    tfs_kctx_fail_status(c, c->st);
    return;
  }
  tfs_dtype dt = c->inputs[0]->dtype;
  work_type w = {dt == TFS_HALF || dt == TFS_BFLOAT16 ? TFS_FLOAT : dt, 0};
  w.size = tfs_dtype_size(w.dt);
  tfs_shape out;
  out.rank = d.out_rank;
  for (int k = 0; k < d.out_rank; k++)
    out.dims[k] = d.label_dim[d.out_labels[k]];
  tfs_tensor *o = tfs_kctx_alloc_output(c, 0, &out);
  if (!o) return;
  ein_view v[2];
  for (int i = 0; i < c->ninputs; i++) {
    const char *data = work_data(c, c->inputs[i]);
    if (!data) return;
    view_of(&d, i, shapes[i], data, &v[i]);
  }
  label_list order;
  const char *res = c->ninputs == 2 ? contract2(c, w, &d, &v[0], &v[1], &order)
                                    : contract1(c, w, &d, &v[0], &order);
  if (!res) return;
  char *dst = o->data;
  if (w.dt != dt) {
    dst = tfs_kctx_scratch(c, (size_t)(o->nelems + 1) * w.size);
    if (!dst) return;
  }
  if (place(c, w, &d, &order, res, dst, o->nelems)) return;
  if (w.dt != dt) store_output(o, (const float *)dst);
}

#define EINSUM_TYPES                                                       \
  (TFS_DT_FLOATS | TFS_DT_BIT(TFS_INT32) | TFS_DT_BIT(TFS_INT64))

const tfs_kernel_def tfs_cpu_kernels_array_einsum[] = {
    {"Einsum", "CPU", "T", EINSUM_TYPES, einsum_prepare, einsum_compute,
     tfs_free, TFS_KERNEL_EXPENSIVE, NULL},
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL},
};
