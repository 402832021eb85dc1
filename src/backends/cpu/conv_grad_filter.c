/*
 * backends/cpu/conv_grad_filter.c - Conv2DBackpropFilter and
 * Conv2DBackpropFilterV2, the gradient of Conv2D with respect to its
 * filter: for each block of output pixels the patch matrix (im2col),
 * transposed, times the block's out_backprop rows through the shared GEMM
 * adds into the [kh * kw * kc, kn] filter gradient.  The pixels are split
 * over the intra-op pool, each task summing into its own copy of the
 * gradient; the copies are added at the end.  Half and bfloat16 are
 * computed in float.  Supports groups, dilations and NCHW, which
 * TensorFlow's CPU kernel rejects.
 */
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "backends/cpu/conv_common.h"
#include "backends/cpu/cpu_tables.h"
#include "backends/cpu/gemm.h"

#define LABEL "Conv2DCustomBackpropFilter"

/* Bytes of patch blocks, and of per-task gradient copies, one call aims
 * to stay under. */
static const int64_t kScratchCap = (int64_t)64 << 20;

typedef struct bf_state {
  tfs_window w;
  int v2; /* the filter shape comes from input 1's shape */
} bf_state;

static void bf_release(void *p) { tfs_free(p); }

static int bf_prepare(tfs_kernel_init *ki) {
  bf_state *s = tfs_calloc(1, sizeof *s);
  if (!s) return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  ki->state = s;
  s->v2 = ki->kdata != NULL;
  if (tfs_window_parse(ki->attrs, TFS_WINDOW_BACKPROP, "Conv2DBackpropFilter",
                       &s->w, ki->st))
    return tfs_ki_error(ki, TFS_INVALID_ARGUMENT, "%s",
                        tfs_status_message(ki->st));
  return tfs_conv_check_batch_depth(ki, &s->w, TFS_INVALID_ARGUMENT);
}

/* The filter shape from filter_sizes, as TensorFlow's MakeShape: every
 * value >= 0, the element count within int64.  A vector of another
 * length than 4 gives a shape of rank 0 here, refused by the rank check
 * that follows ("filter must be 4-dimensional"). */
static int bf_filter_shape(tfs_kernel_ctx *c, const tfs_tensor *sizes,
                           tfs_shape *out) {
  if (sizes->shape.rank != 1) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  LABEL ": filter_sizes input must be 1-dim, not %d",
                  sizes->shape.rank);
    return -1;
  }
  const int32_t *v = sizes->data;
  int64_t n = sizes->nelems, total = 1;
  int overflow = 0;
  for (int64_t i = 0; i < n; i++) {
    if (v[i] < 0) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "Dimension %d must be >= 0",
                    v[i]);
      return -1;
    }
    if (!overflow && v[i] != 0 && total > INT64_MAX / v[i]) overflow = 1;
    if (!overflow) total *= v[i];
  }
  if (overflow && n == 4) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Shape [%d,%d,%d,%d] would have more than 2**63 - 1 "
                  "elements",
                  v[0], v[1], v[2], v[3]);
    return -1;
  }
  out->rank = n == 4 ? 4 : 0;
  for (int i = 0; i < out->rank; i++) out->dims[i] = v[i];
  return 0;
}

typedef struct bf_job {
  const conv_geom *g;
  tfs_dtype ct;
  size_t es;
  const char *x, *dy;
  char *acc;     /* nslots gradients of fsize elements */
  char *scratch; /* nslots patch blocks of mb * k elements */
  int64_t k, mb, cout_g, fsize, nslots, rows;
  struct tfs_threadpool *gemm_pool; /* the pool when nslots == 1 */
} bf_job;

/* acc[K, group's columns] (+)= col[rows, K]^T * dy[rows, group's columns] */
static void bf_gemm(const bf_job *j, int64_t rows, const char *col,
                    const char *dy, char *acc, int first) {
  const int64_t kn = j->g->kn;
  if (j->ct == TFS_FLOAT)
    tfs_gemm_f32(1, 0, j->k, j->cout_g, rows, 1.0f, (const float *)col, j->k,
                 (const float *)dy, kn, first ? 0.0f : 1.0f, (float *)acc, kn,
                 j->gemm_pool);
  else
    tfs_gemm_f64(1, 0, j->k, j->cout_g, rows, 1.0, (const double *)col, j->k,
                 (const double *)dy, kn, first ? 0.0 : 1.0, (double *)acc, kn,
                 j->gemm_pool);
}

/* Slot t sums the pixels of its share of the rows into its gradient. */
static void bf_slots(void *arg, int64_t t0, int64_t t1) {
  const bf_job *j = arg;
  const conv_geom *g = j->g;
  for (int64_t t = t0; t < t1; t++) {
    char *col = j->scratch + (size_t)(t * j->mb * j->k) * j->es;
    char *acc = j->acc + (size_t)(t * j->fsize) * j->es;
    int64_t nb = (j->rows + j->mb - 1) / j->mb;
    int64_t b0 = nb * t / j->nslots, b1 = nb * (t + 1) / j->nslots;
    if (b0 == b1) {
      memset(acc, 0, (size_t)j->fsize * j->es);
      continue;
    }
    for (int64_t b = b0; b < b1; b++) {
      int64_t r0 = b * j->mb;
      int64_t r1 = r0 + j->mb < j->rows ? r0 + j->mb : j->rows;
      for (int64_t grp = 0; grp < g->groups; grp++) {
        tfs_conv_im2col(g, j->x, j->es, grp, r0, r1, col);
        bf_gemm(j, r1 - r0, col,
                j->dy + (size_t)(r0 * g->kn + grp * j->cout_g) * j->es,
                acc + (size_t)(grp * j->cout_g) * j->es, b == b0);
      }
    }
  }
}

/* Adds the slots' gradients into slot 0's. */
static void bf_reduce(const bf_job *j) {
  for (int64_t t = 1; t < j->nslots; t++) {
    if (j->ct == TFS_FLOAT) {
      float *d = (float *)j->acc;
      const float *src = d + t * j->fsize;
      for (int64_t i = 0; i < j->fsize; i++) d[i] += src[i];
    } else {
      double *d = (double *)j->acc;
      const double *src = d + t * j->fsize;
      for (int64_t i = 0; i < j->fsize; i++) d[i] += src[i];
    }
  }
}

static void bf_run(tfs_kernel_ctx *c, const bf_state *s, const conv_geom *g,
                   const tfs_tensor *x, const tfs_tensor *dy, tfs_tensor *df) {
  bf_job j;
  memset(&j, 0, sizeof j);
  void *tmp_x = NULL, *tmp_dy = NULL;
  int is16 = x->dtype == TFS_HALF || x->dtype == TFS_BFLOAT16;
  j.g = g;
  j.ct = is16 ? TFS_FLOAT : x->dtype;
  j.es = j.ct == TFS_DOUBLE ? 8 : 4;
  j.x = tfs_conv_nhwc_data(x, s->w.nchw, j.ct, &tmp_x);
  j.dy = tfs_conv_nhwc_data(dy, s->w.nchw, j.ct, &tmp_dy);
  if (!j.x || !j.dy) {
    tfs_free(tmp_x);
    tfs_free(tmp_dy);
    tfs_kctx_fail(c, TFS_RESOURCE_EXHAUSTED, "out of memory");
    return;
  }
  j.k = g->kh * g->kw * g->kc;
  j.cout_g = g->kn / g->groups;
  j.fsize = df->nelems;
  j.rows = g->n * g->oh * g->ow;
  j.mb = tfs_conv_block_rows(j.rows, j.k, j.es);
  /* filters far larger than the image: fewer rows per block, fewer
   * tasks, so the scratch stays bounded */
  if (j.mb > 1 && j.mb * j.k * (int64_t)j.es > kScratchCap)
    j.mb = kScratchCap / (j.k * (int64_t)j.es) + 1;
  int64_t nb = (j.rows + j.mb - 1) / j.mb;
  int64_t cost = tfs_gemm_cost_ns(j.mb, g->kn, j.k) + 1;
  j.nslots = tfs_conv_slots(c, nb, cost);
  if (j.nslots > 1 && j.nslots * j.fsize * (int64_t)j.es > kScratchCap)
    j.nslots = kScratchCap / (j.fsize * (int64_t)j.es) + 1;
  if (j.nslots <= 1) j.gemm_pool = tfs_kctx_intra_pool(c);
  j.scratch = tfs_kctx_scratch(c, (size_t)(j.nslots * j.mb * j.k) * j.es);
  /* one task on a float or double gradient sums straight into it */
  if (j.nslots == 1 && !is16)
    j.acc = df->data;
  else
    j.acc = tfs_kctx_scratch(c, (size_t)(j.nslots * j.fsize) * j.es);
  if (j.scratch && j.acc) {
    if (j.nslots <= 1)
      bf_slots(&j, 0, 1);
    else
      tfs_kctx_parallel_for(c, j.nslots, cost * (nb / j.nslots + 1), bf_slots,
                            &j);
    bf_reduce(&j);
    if (is16)
      tfs_conv_from_float((const float *)j.acc, df->data, j.fsize, x->dtype);
    else if (j.acc != df->data)
      memcpy(df->data, j.acc, (size_t)j.fsize * j.es);
  }
  tfs_free(tmp_x);
  tfs_free(tmp_dy);
}

static void bf_compute(tfs_kernel_ctx *c) {
  const bf_state *s = c->state;
  const tfs_tensor *x = c->inputs[0], *dy = c->inputs[2];
  tfs_shape fs;
  if (s->v2)
    fs = c->inputs[1]->shape;
  else if (bf_filter_shape(c, c->inputs[1], &fs))
    return;
  conv_geom g;
  if (tfs_conv_backprop_dims(c, LABEL, &s->w, &x->shape, &fs, &dy->shape, &g))
    return;
  tfs_tensor *df = tfs_kctx_alloc_output(c, 0, &fs);
  if (!df || df->nelems == 0) return;
  if (x->nelems == 0 || dy->nelems == 0) {
    memset(df->data, 0, df->nbytes);
    return;
  }
  bf_run(c, s, &g, x, dy, df);
}

static const int kV2 = 1;

const tfs_kernel_def tfs_cpu_kernels_conv_grad_filter[] = {
    {"Conv2DBackpropFilter", "CPU", "T", TFS_DT_FLOATS, bf_prepare,
     bf_compute, bf_release, TFS_KERNEL_EXPENSIVE, NULL},
    {"Conv2DBackpropFilterV2", "CPU", "T", TFS_DT_FLOATS, bf_prepare,
     bf_compute, bf_release, TFS_KERNEL_EXPENSIVE, &kV2},
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL},
};
