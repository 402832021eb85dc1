/*
 * backends/cpu/conv2d_bf16.c - NHWC Conv2D in bfloat16 on the bfloat16
 * GEMM's dot-product families (AMX tiles, vdpbf16ps): the patch matrix
 * in bfloat16 (the input itself for a 1x1 stride-1 convolution without
 * padding, else im2col blocks) times the HWIO filter read as a [kh * kw *
 * kc, kn] matrix, float32 sums, one rounding of each output to bfloat16.
 * Where no dot-product family is in force, Conv2D widens to float32
 * instead (conv2d.c).
 */
#include "backends/cpu/conv2d_bf16.h"

#include <string.h>

#include "backends/cpu/bf16_convert.h"
#include "backends/cpu/gemm.h"

typedef struct bf_job {
  const conv_geom *g;
  const uint16_t *in, *filt;
  const tfs_gemm_packed_bf16 *packed; /* the whole filter, or NULL */
  uint16_t *out;
  int64_t k, mb, cout_g, nblocks, nslots;
  char *scratch;                    /* per slot: im2col block, float C */
  size_t slot_bytes, col_bytes;
  struct tfs_threadpool *gemm_pool; /* the pool when nslots == 1 */
  int direct;                       /* A is the input */
  int failed;                       /* atomic: a product ran out of memory */
} bf_job;

static void bf_block(bf_job *j, int64_t blk, uint16_t *col, float *cf) {
  const conv_geom *g = j->g;
  int64_t m = g->n * g->oh * g->ow;
  int64_t r0 = blk * j->mb, r1 = r0 + j->mb < m ? r0 + j->mb : m;
  for (int64_t grp = 0; grp < g->groups; grp++) {
    const uint16_t *a = col;
    int64_t lda = j->k;
    if (j->direct) {
      a = j->in + r0 * g->c + grp * g->kc;
      lda = g->c;
    } else {
      tfs_conv_im2col(g, j->in, sizeof(uint16_t), grp, r0, r1, col);
    }
    int rc = j->packed
                 ? tfs_gemm_bf16_packed(0, r1 - r0, a, lda, j->packed, cf,
                                        j->cout_g, j->gemm_pool)
                 : tfs_gemm_bf16(0, 0, r1 - r0, j->cout_g, j->k, a, lda,
                                 j->filt + grp * j->cout_g, g->kn, cf,
                                 j->cout_g, j->gemm_pool);
    if (rc) {
      __atomic_store_n(&j->failed, 1, __ATOMIC_RELAXED);
      return;
    }
    for (int64_t r = r0; r < r1; r++)
      tfs_bf16_from_f32(cf + (r - r0) * j->cout_g,
                        j->out + r * g->kn + grp * j->cout_g, j->cout_g);
  }
}

/* Slot t computes blocks t, t + nslots, ... with its own scratch. */
static void bf_slots(void *arg, int64_t t0, int64_t t1) {
  bf_job *j = arg;
  for (int64_t t = t0; t < t1; t++) {
    char *base = j->scratch + (size_t)t * j->slot_bytes;
    uint16_t *col = (uint16_t *)base;
    float *cf = (float *)(base + j->col_bytes);
    for (int64_t blk = t; blk < j->nblocks; blk += j->nslots)
      bf_block(j, blk, col, cf);
  }
}

static int64_t g_calls; /* atomic */

int64_t tfs_conv2d_bf16__calls(void) {
  return __atomic_load_n(&g_calls, __ATOMIC_RELAXED);
}

int tfs_conv2d_bf16_usable(const conv_geom *g, int nchw) {
  (void)g;
  return !nchw && tfs_gemm_bf16_dot_in_force();
}

tfs_gemm_packed_bf16 *tfs_conv2d_bf16_pack(const tfs_tensor *f) {
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

int tfs_conv2d_bf16(tfs_kernel_ctx *c, const conv_geom *g, const void *in,
                    const void *filt, const tfs_gemm_packed_bf16 *packed,
                    void *out) {
  bf_job j;
  memset(&j, 0, sizeof j);
  __atomic_add_fetch(&g_calls, 1, __ATOMIC_RELAXED);
  j.g = g;
  j.in = in;
  j.filt = filt;
  j.out = out;
  j.k = g->kh * g->kw * g->kc;
  j.cout_g = g->kn / g->groups;
  /* a packed filter serves one group; grouped products pack per call */
  j.packed = g->groups == 1 ? packed : NULL;
  j.direct = g->kh == 1 && g->kw == 1 && g->sh == 1 && g->sw == 1 &&
             g->pt == 0 && g->pl == 0 && g->oh == g->h && g->ow == g->w;
  int64_t m = g->n * g->oh * g->ow;
  j.mb = tfs_conv_block_rows(m, j.k, sizeof(uint16_t));
  j.nblocks = (m + j.mb - 1) / j.mb;
  /* the dot-product families do some four times the float kernels' work
   * a nanosecond */
  int64_t cost = tfs_gemm_cost_ns(j.mb, g->kn, j.k) / 4 + 1;
  j.nslots = tfs_conv_slots(c, j.nblocks, cost);
  if (j.nslots <= 1) j.gemm_pool = tfs_kctx_intra_pool(c);
  tfs_gemm_packed_bf16 *own = NULL;
  if (!j.packed && g->groups == 1) {
    own = tfs_gemm_pack_b_bf16(0, j.k, g->kn, filt, g->kn);
    if (!own) {
      tfs_kctx_fail(c, TFS_RESOURCE_EXHAUSTED, "out of memory");
      return -1;
    }
    j.packed = own;
  }
  j.col_bytes = j.direct ? 0
                         : ((size_t)(j.mb * j.k) * sizeof(uint16_t) + 63) /
                               64 * 64;
  j.slot_bytes = j.col_bytes + (size_t)(j.mb * j.cout_g) * sizeof(float);
  j.scratch = tfs_kctx_scratch(c, (size_t)j.nslots * j.slot_bytes);
  if (!j.scratch) { /* tfs_kctx_scratch failed c */
    tfs_gemm_packed_bf16_free(own);
    return -1;
  }
  if (j.nslots <= 1)
    bf_slots(&j, 0, 1);
  else
    tfs_kctx_parallel_for(c, j.nslots, cost * (j.nblocks / j.nslots + 1),
                          bf_slots, &j);
  tfs_gemm_packed_bf16_free(own);
  if (__atomic_load_n(&j.failed, __ATOMIC_RELAXED)) {
    tfs_kctx_fail(c, TFS_RESOURCE_EXHAUSTED, "out of memory");
    return -1;
  }
  return 0;
}
