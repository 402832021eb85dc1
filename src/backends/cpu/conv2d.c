/*
 * backends/cpu/conv2d.c - Conv2D on the CPU, with grouped convolution,
 * SAME/VALID/EXPLICIT padding, strides and dilations.  Float (and 16-bit
 * floats, through float copies) runs the GEMM with patches packed straight
 * from the image and a constant filter packed once (conv_gemm.c); double
 * and int32 feed NHWC im2col blocks to their GEMM (a 1x1 stride-1
 * convolution is a GEMM straight on the input).  NCHW goes through an
 * NHWC copy; a constant 16-bit filter is converted once at prepare.
 * bfloat16 in NHWC runs the same blocks on the bfloat16 GEMM where a
 * dot-product family (AMX, vdpbf16ps) is in force: bfloat16 patches (or
 * the input itself), the HWIO filter as a [kh * kw * kc, kn] matrix
 * packed for the family (once at prepare when constant), float32 sums,
 * one rounding of each output.
 */
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "backends/cpu/bf16_convert.h"
#include "backends/cpu/conv_common.h"
#include "backends/cpu/conv_winograd.h"
#include "backends/cpu/cpu_tables.h"
#include "backends/cpu/gemm.h"

typedef struct conv2d_state {
  tfs_window w;
  float *filter_f32; /* constant half/bfloat16 filter as float, or NULL */
  int64_t filter_n;  /* its element count */
  tfs_conv_packed packed; /* constant filter packed for the GEMM */
  tfs_gemm_packed_bf16 *packed_bf16; /* constant bfloat16 filter, or NULL */
} conv2d_state;

static void conv2d_release(void *p) {
  conv2d_state *s = p;
  if (!s) return;
  tfs_conv_packed_clear(&s->packed);
  tfs_gemm_packed_bf16_free(s->packed_bf16);
  tfs_free(s->filter_f32);
  tfs_free(s);
}

tfs_gemm_packed_bf16 *tfs_conv_pack_filter_bf16(const tfs_tensor *f) {
  if (!f || f->shape.rank != 4 || f->nelems == 0 ||
      !tfs_gemm_bf16_dot_in_force())
    return NULL;
  const int64_t *d = f->shape.dims;
  tfs_gemm_packed_bf16 *p =
      tfs_gemm_pack_b_bf16(0, d[0] * d[1] * d[2], d[3], f->data, d[3]);
  if (p && !tfs_gemm_packed_bf16_dot(p)) {
    tfs_gemm_packed_bf16_free(p);
    p = NULL;
  }
  return p;
}

int tfs_conv2d_bf16_runs(const tfs_gemm_packed_bf16 *packed) {
  return packed || tfs_gemm_bf16_dot_in_force();
}

static int conv2d_prepare(tfs_kernel_init *ki) {
  conv2d_state *s = tfs_calloc(1, sizeof *s);
  if (!s) return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  ki->state = s;
  if (tfs_window_parse(ki->attrs, TFS_WINDOW_CONV2D, "Conv2D", &s->w, ki->st))
    return tfs_ki_error(ki, TFS_INVALID_ARGUMENT, "%s",
                        tfs_status_message(ki->st));
  if (tfs_conv_check_batch_depth(ki, &s->w, TFS_UNIMPLEMENTED)) return -1;
  if (tfs_conv_const_filter(ki, 1, &s->filter_f32, &s->filter_n) ||
      tfs_conv_packed_prepare(ki, &s->w, s->filter_f32, &s->packed))
    return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  if (ki->in_types[1] == TFS_BFLOAT16 && ki->in_consts && !s->w.nchw)
    s->packed_bf16 = tfs_conv_pack_filter_bf16(ki->in_consts[1]);
  return 0;
}

/* ---- the NHWC core ------------------------------------------------------- */

typedef struct conv_job {
  const conv_geom *g;
  tfs_dtype ct; /* computation type: float, double, int32 or bfloat16 */
  size_t es;
  const char *in, *filt;
  char *out;
  int64_t k, mb, cout_g, nblocks, nslots;
  char *scratch;                    /* nslots slots of slot_bytes */
  size_t slot_bytes, col_bytes;     /* a slot: im2col block, (bf16) float C */
  struct tfs_threadpool *gemm_pool; /* the pool when nslots == 1 */
  int direct; /* 1x1, stride 1, no padding: A is the input */
  const tfs_gemm_packed_bf16 *packed_bf16; /* bfloat16, one group: B */
  tfs_conv_bf16_epi_fn epi; /* bfloat16: on the float sums, or NULL */
  void *epi_arg;
  int failed; /* atomic: a bfloat16 product ran out of memory */
} conv_job;

static int64_t g_bf16_calls; /* atomic */

/* Bytes of float sums a bfloat16 block computes before its rounding. */
#define BF16_SUMS_BYTES (256 * 1024)

int64_t tfs_conv2d_bf16__calls(void) {
  return __atomic_load_n(&g_bf16_calls, __ATOMIC_RELAXED);
}

/* Rows [r0, r1) of group grp in bfloat16: float32 C in cf, rounded into
 * the output. */
static void bf16_product(conv_job *j, const void *a, int64_t lda,
                         int64_t grp, int64_t r0, int64_t r1, float *cf) {
  const conv_geom *g = j->g;
  int rc = j->packed_bf16
               ? tfs_gemm_bf16_packed(0, r1 - r0, a, lda, j->packed_bf16, cf,
                                      j->cout_g, j->gemm_pool)
               : tfs_gemm_bf16(0, 0, r1 - r0, j->cout_g, j->k, a, lda,
                               (const uint16_t *)j->filt + grp * j->cout_g,
                               g->kn, cf, j->cout_g, j->gemm_pool);
  if (rc) {
    __atomic_store_n(&j->failed, 1, __ATOMIC_RELAXED);
    return;
  }
  if (j->epi)
    j->epi(j->epi_arg, cf, j->cout_g, r0, r1 - r0, grp * j->cout_g,
           j->cout_g);
  uint16_t *o = (uint16_t *)j->out + r0 * g->kn + grp * j->cout_g;
  if (g->groups == 1) { /* the rows are contiguous in both */
    tfs_bf16_from_f32(cf, o, (r1 - r0) * j->cout_g);
    return;
  }
  for (int64_t r = r0; r < r1; r++)
    tfs_bf16_from_f32(cf + (r - r0) * j->cout_g, o + (r - r0) * g->kn,
                      j->cout_g);
}

static void conv_block(conv_job *j, int64_t blk, char *col) {
  const conv_geom *g = j->g;
  int64_t m = g->n * g->oh * g->ow;
  int64_t r0 = blk * j->mb, r1 = r0 + j->mb < m ? r0 + j->mb : m;
  for (int64_t grp = 0; grp < g->groups; grp++) {
    const char *a;
    int64_t lda;
    if (j->direct) {
      a = j->in + (size_t)(r0 * g->c + grp * g->kc) * j->es;
      lda = g->c;
    } else {
      tfs_conv_im2col(g, j->in, j->es, grp, r0, r1, col);
      a = col;
      lda = j->k;
    }
    if (j->ct == TFS_BFLOAT16) {
      bf16_product(j, a, lda, grp, r0, r1, (float *)(col + j->col_bytes));
      continue;
    }
    char *c = j->out + (size_t)(r0 * g->kn + grp * j->cout_g) * j->es;
    tfs_conv_gemm_on(j->ct, 0, r1 - r0, j->cout_g, j->k, a, lda,
                     j->filt + (size_t)(grp * j->cout_g) * j->es, g->kn, c,
                     g->kn, j->gemm_pool);
  }
}

/* Slot t computes blocks t, t + nslots, ... with its own scratch. */
static void conv_slots(void *arg, int64_t t0, int64_t t1) {
  conv_job *j = arg;
  for (int64_t t = t0; t < t1; t++) {
    char *col = j->scratch + (size_t)t * j->slot_bytes;
    for (int64_t blk = t; blk < j->nblocks; blk += j->nslots)
      conv_block(j, blk, col);
  }
}

/* The blocks of a double, int32 or bfloat16 convolution (packed_bf16:
 * a bfloat16 filter packed at prepare, or NULL; epi: bfloat16's
 * epilogue, or NULL).  Returns -1 with c failed when memory runs out. */
static int conv_blocks(tfs_kernel_ctx *c, const conv_geom *g, tfs_dtype ct,
                       const void *in, const void *filt, void *out,
                       const tfs_gemm_packed_bf16 *packed_bf16,
                       tfs_conv_bf16_epi_fn epi, void *epi_arg) {
  conv_job j;
  memset(&j, 0, sizeof j);
  j.epi = epi;
  j.epi_arg = epi_arg;
  j.g = g;
  j.ct = ct;
  j.es = ct == TFS_DOUBLE ? 8 : ct == TFS_BFLOAT16 ? 2 : 4;
  j.in = in;
  j.filt = filt;
  j.out = out;
  j.k = g->kh * g->kw * g->kc;
  j.cout_g = g->kn / g->groups;
  j.direct = g->kh == 1 && g->kw == 1 && g->sh == 1 && g->sw == 1 &&
             g->pt == 0 && g->pl == 0 && g->oh == g->h && g->ow == g->w;
  int64_t m = g->n * g->oh * g->ow;
  j.mb = tfs_conv_block_rows(m, j.k, j.es);
  if (ct == TFS_BFLOAT16) {
    /* a block's float sums stay in cache for the epilogue and the
     * rounding: at most BF16_SUMS_BYTES, whole 32-row tiles */
    int64_t cap = BF16_SUMS_BYTES / (j.cout_g * (int64_t)sizeof(float));
    cap = cap / 32 * 32;
    if (cap < 32) cap = 32;
    if (j.mb > cap) j.mb = cap;
  }
  j.nblocks = (m + j.mb - 1) / j.mb;
  /* the dot-product families do some four times the float kernels' work
   * a nanosecond */
  int speed = ct == TFS_BFLOAT16 ? 4 : 1;
  j.nslots = tfs_conv_slots(c, j.nblocks,
                            tfs_gemm_cost_ns(j.mb, g->kn, j.k) / speed + 1);
  if (j.nslots <= 1) j.gemm_pool = tfs_kctx_intra_pool(c);
  j.col_bytes = j.direct ? 0 : ((size_t)(j.mb * j.k) * j.es + 63) / 64 * 64;
  j.slot_bytes = j.col_bytes;
  tfs_gemm_packed_bf16 *own = NULL;
  if (ct == TFS_BFLOAT16) {
    __atomic_add_fetch(&g_bf16_calls, 1, __ATOMIC_RELAXED);
    j.slot_bytes += (size_t)(j.mb * j.cout_g) * sizeof(float);
    /* a packed filter serves one group; grouped products pack per call */
    j.packed_bf16 = g->groups == 1 ? packed_bf16 : NULL;
    if (!j.packed_bf16 && g->groups == 1) {
      own = tfs_gemm_pack_b_bf16(0, j.k, g->kn, filt, g->kn);
      if (!own) {
        tfs_kctx_fail(c, TFS_RESOURCE_EXHAUSTED, "out of memory");
        return -1;
      }
      j.packed_bf16 = own;
    }
  }
  if (j.slot_bytes) {
    j.scratch = tfs_kctx_scratch(c, (size_t)j.nslots * j.slot_bytes);
    if (!j.scratch) { /* tfs_kctx_scratch failed c */
      tfs_gemm_packed_bf16_free(own);
      return -1;
    }
  }
  if (j.nslots <= 1)
    conv_slots(&j, 0, 1);
  else
    tfs_kctx_parallel_for(
        c, j.nslots, tfs_gemm_cost_ns(m / j.nslots + 1, g->kn, j.k) / speed,
        conv_slots, &j);
  tfs_gemm_packed_bf16_free(own);
  if (__atomic_load_n(&j.failed, __ATOMIC_RELAXED)) {
    tfs_kctx_fail(c, TFS_RESOURCE_EXHAUSTED, "out of memory");
    return -1;
  }
  return 0;
}

int tfs_conv2d_bf16(tfs_kernel_ctx *c, const conv_geom *g,
                    const uint16_t *in, const uint16_t *filt,
                    const tfs_gemm_packed_bf16 *packed, uint16_t *out,
                    tfs_conv_bf16_epi_fn epi, void *epi_arg) {
  return conv_blocks(c, g, TFS_BFLOAT16, in, filt, out, packed, epi,
                     epi_arg);
}

/* out[n, oh, ow, kn] = conv(in[n, h, w, c], filt[kh, kw, kc, kn]).
 * Returns -1 with c failed when memory runs out. */
static int conv_nhwc(tfs_kernel_ctx *c, const conv2d_state *s,
                     const conv_geom *g, tfs_dtype ct, const void *in,
                     const void *filt, void *out) {
  const tfs_wino_filter *wf =
      ct == TFS_FLOAT ? tfs_conv_wino_for(&s->packed, g, filt) : NULL;
  if (wf) return tfs_wino_conv_f32(c, g, in, wf, out, NULL, 0, NULL, NULL);
  if (ct == TFS_FLOAT)
    return tfs_conv_f32_gemm(c, g, in, NULL,
                             tfs_conv_packed_for(&s->packed, g), filt, out,
                             NULL, NULL, 0, NULL, NULL);
  return conv_blocks(c, g, ct, in, filt, out, s->packed_bf16, NULL, NULL);
}

static void conv2d_run(tfs_kernel_ctx *c, const conv2d_state *s,
                       const conv_geom *g, const tfs_tensor *x,
                       const tfs_tensor *f, tfs_tensor *y) {
  if (x->dtype == TFS_BFLOAT16 && !s->w.nchw &&
      tfs_conv2d_bf16_runs(s->packed_bf16)) {
    conv_nhwc(c, s, g, TFS_BFLOAT16, x->data, f->data, y->data);
    return; /* on failure c has failed */
  }
  conv_stage st;
  int ok = tfs_conv_stage_begin(&st, s->w.nchw, x, f, s->filter_f32,
                                s->filter_n, y) == 0;
  if (ok && conv_nhwc(c, s, g, st.ct, st.in, st.filt, st.out)) {
    tfs_conv_stage_free(&st);
    return; /* the GEMM or tfs_kctx_scratch failed c */
  }
  if (ok) ok = tfs_conv_stage_end(&st, s->w.nchw, y) == 0;
  tfs_conv_stage_free(&st);
  if (!ok) tfs_kctx_fail(c, TFS_RESOURCE_EXHAUSTED, "out of memory");
}

static void conv2d_compute(tfs_kernel_ctx *c) {
  const conv2d_state *s = c->state;
  const tfs_tensor *x = c->inputs[0], *f = c->inputs[1];
  conv_geom g;
  if (tfs_conv_check_inputs(c, &s->w, 0, x, f, &g)) return;
  tfs_shape os;
  tfs_conv_shape(&s->w, g.n, g.oh, g.ow, g.kn, &os);
  tfs_tensor *y = tfs_kctx_alloc_output(c, 0, &os);
  if (!y || y->nelems == 0) return;
  if (x->nelems == 0) { /* depth 0, or every window in padding */
    memset(y->data, 0, y->nbytes);
    return;
  }
  if (tfs_conv_check_groups(c, f, &g)) return;
  conv2d_run(c, s, &g, x, f, y);
}

const tfs_kernel_def tfs_cpu_kernels_conv2d[] = {
    {"Conv2D", "CPU", "T", TFS_DT_FLOATS | TFS_DT_BIT(TFS_INT32),
     conv2d_prepare, conv2d_compute, conv2d_release, TFS_KERNEL_EXPENSIVE,
     NULL},
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL},
};
