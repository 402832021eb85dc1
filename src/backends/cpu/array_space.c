/*
 * backends/cpu/array_space.c - rearranging blocks between space, depth and
 * batch: DepthToSpace, SpaceToDepth (NHWC and NCHW, through the strided
 * copy engine), SpaceToBatchND and BatchToSpaceND (rows copied or zeroed
 * per output position, split over the intra-op pool).
 */
#include <stdatomic.h>
#include <string.h>

#include "core/alloc.h"
#include "backends/cpu/array_util.h"

/* ---- DepthToSpace / SpaceToDepth ----------------------------------------- */

typedef struct {
  int64_t block;
  int nchw;
} ds_state;

static int ds_prepare(tfs_kernel_init *ki) {
  size_t len = 0;
  const char *fmt = tfs_attrs_get_string(ki->attrs, "data_format", &len);
  ds_state *s = tfs_calloc(1, sizeof(*s));
  if (!s) return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  s->block = 2;
  tfs_attrs_get_int(ki->attrs, "block_size", &s->block);
  s->nchw = fmt && len == 4 && memcmp(fmt, "NCHW", 4) == 0;
  ki->state = s;
  if (fmt && len > 4) {
    tfs_free(s);
    ki->state = NULL;
    return tfs_ki_error(ki, TFS_UNIMPLEMENTED,
                        "%s with data_format %.*s is not supported on CPU",
                        ki->op->name, (int)len, fmt);
  }
  return 0;
}

static void depth_to_space_compute(tfs_kernel_ctx *c) {
  const ds_state *s = c->state;
  const tfs_tensor *x = c->inputs[0];
  if (x->shape.rank != 4) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Input rank should be: 4 instead of: %d", x->shape.rank);
    return;
  }
  const int64_t *d = x->shape.dims, bs = s->block;
  int64_t B = d[0], C = d[s->nchw ? 1 : 3], H = d[s->nchw ? 2 : 1],
          W = d[s->nchw ? 3 : 2];
  if (C % (bs * bs) != 0) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Input depth dimension %lld should be divisible by: %lld",
                  (long long)C, (long long)(bs * bs));
    return;
  }
  int64_t oc = C / (bs * bs);
  tfs_shape out;
  out.rank = 4;
  tfs_strided p = {.rank = 0};
  if (s->nchw) {
    out.dims[0] = B, out.dims[1] = oc, out.dims[2] = H * bs;
    out.dims[3] = W * bs;
    tfs_strided_push(&p, B, 0, C * H * W);
    tfs_strided_push(&p, oc, 0, H * W);
    tfs_strided_push(&p, H, 0, W);
    tfs_strided_push(&p, bs, 0, bs * oc * H * W);
    tfs_strided_push(&p, W, 0, 1);
    tfs_strided_push(&p, bs, 0, oc * H * W);
  } else {
    out.dims[0] = B, out.dims[1] = H * bs, out.dims[2] = W * bs;
    out.dims[3] = oc;
    tfs_strided_push(&p, B, 0, H * W * C);
    tfs_strided_push(&p, H, 0, W * C);
    tfs_strided_push(&p, bs, 0, bs * oc);
    tfs_strided_push(&p, W, 0, C);
    tfs_strided_push(&p, bs, 0, oc);
    tfs_strided_push(&p, oc, 0, 1);
  }
  tfs_arr_strides(p.dims, p.rank, p.dst_stride);
  tfs_tensor *o = tfs_kctx_alloc_output(c, 0, &out);
  if (o) tfs_strided_copy(c, tfs_elem_of(x->dtype), o->data, x->data, &p);
}

static void space_to_depth_compute(tfs_kernel_ctx *c) {
  const ds_state *s = c->state;
  const tfs_tensor *x = c->inputs[0];
  if (x->shape.rank != 4) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Input rank should be 4 instead of %d", x->shape.rank);
    return;
  }
  const int64_t *d = x->shape.dims, bs = s->block;
  int64_t B = d[0], C = d[s->nchw ? 1 : 3], H = d[s->nchw ? 2 : 1],
          W = d[s->nchw ? 3 : 2];
  if (H % bs != 0 || W % bs != 0) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Image width %lld and height %lld should be divisible by "
                  "block_size: %lld", (long long)W, (long long)H,
                  (long long)bs);
    return;
  }
  int64_t ho = H / bs, wo = W / bs;
  tfs_shape out;
  out.rank = 4;
  tfs_strided p = {.rank = 0};
  if (s->nchw) {
    out.dims[0] = B, out.dims[1] = C * bs * bs, out.dims[2] = ho;
    out.dims[3] = wo;
    tfs_strided_push(&p, B, 0, C * H * W);
    tfs_strided_push(&p, bs, 0, W);
    tfs_strided_push(&p, bs, 0, 1);
    tfs_strided_push(&p, C, 0, H * W);
    tfs_strided_push(&p, ho, 0, bs * W);
    tfs_strided_push(&p, wo, 0, bs);
  } else {
    out.dims[0] = B, out.dims[1] = ho, out.dims[2] = wo;
    out.dims[3] = C * bs * bs;
    tfs_strided_push(&p, B, 0, H * W * C);
    tfs_strided_push(&p, ho, 0, bs * W * C);
    tfs_strided_push(&p, wo, 0, bs * C);
    tfs_strided_push(&p, bs, 0, W * C);
    tfs_strided_push(&p, bs, 0, C);
    tfs_strided_push(&p, C, 0, 1);
  }
  tfs_arr_strides(p.dims, p.rank, p.dst_stride);
  tfs_tensor *o = tfs_kctx_alloc_output(c, 0, &out);
  if (o) tfs_strided_copy(c, tfs_elem_of(x->dtype), o->data, x->data, &p);
}

/* ---- SpaceToBatchND / BatchToSpaceND ------------------------------------- */

/* Both ops move rows of `inner` elements between a "space" tensor
 * [B, S_1..S_M, inner] and a "batch" tensor [prod(block)*B, O_1..O_M,
 * inner] with S_k + pad_k = O_k * block_k; pad holds the leading
 * padding (SpaceToBatch) or crop (BatchToSpace). */
typedef struct {
  tfs_elem e;
  int m, to_batch;
  int64_t batch, inner;
  int64_t block[TFS_MAX_RANK], pad[TFS_MAX_RANK];
  int64_t space[TFS_MAX_RANK];   /* S_k: input dims (to_batch) or output */
  int64_t bdims[TFS_MAX_RANK];   /* O_k */
  const char *src;
  char *dst;
  atomic_int oom;
} sb_job;

/* One row per position of the iterated tensor: the batch tensor for
 * SpaceToBatch (zero rows where the position lies in the padding), the
 * space tensor for BatchToSpace. */
static void sb_range(void *arg, int64_t begin, int64_t end) {
  sb_job *j = arg;
  size_t row = (size_t)j->inner * j->e.size;
  for (int64_t r = begin; r < end; r++) {
    int64_t rem = r, sp = 0, bp = 0, blk = 0, outside = 0;
    int64_t pos[TFS_MAX_RANK];
    const int64_t *it = j->to_batch ? j->bdims : j->space;
    for (int k = j->m - 1; k >= 0; k--) {
      pos[k] = rem % it[k];
      rem /= it[k];
    }
    int64_t b = rem % j->batch, boff = rem / j->batch;
    /* boff: block offset index (to_batch); spatial coords -> the other */
    int64_t blk_idx[TFS_MAX_RANK];
    for (int k = j->m - 1; k >= 0; k--) {
      blk_idx[k] = boff % j->block[k];
      boff /= j->block[k];
    }
    for (int k = 0; k < j->m; k++) {
      int64_t s, o, i;
      if (j->to_batch) {
        o = pos[k];
        i = blk_idx[k];
        s = o * j->block[k] + i - j->pad[k];
        if (s < 0 || s >= j->space[k]) outside = 1;
      } else {
        s = pos[k];
        int64_t full = s + j->pad[k];
        o = full / j->block[k];
        i = full % j->block[k];
      }
      sp = sp * j->space[k] + s;
      bp = bp * j->bdims[k] + o;
      blk = blk * j->block[k] + i;
    }
    int64_t bb = blk * j->batch + b; /* batch index in the batch tensor */
    int64_t sidx = (b * tfs_arr_prod(j->space, 0, j->m) + sp) * j->inner;
    int64_t bidx = (bb * tfs_arr_prod(j->bdims, 0, j->m) + bp) * j->inner;
    if (j->to_batch) {
      char *d = j->dst + (size_t)bidx * j->e.size;
      if (outside) {
        if (!j->e.is_string) memset(d, 0, row);
      } else if (tfs_elem_copy(j->e, d, j->src + (size_t)sidx * j->e.size,
                               j->inner)) {
        atomic_store(&j->oom, 1);
      }
    } else if (tfs_elem_copy(j->e, j->dst + (size_t)sidx * j->e.size,
                             j->src + (size_t)bidx * j->e.size, j->inner)) {
      atomic_store(&j->oom, 1);
    }
  }
}

/* Reads and checks block_shape and paddings/crops; fills j->block/pad. */
static int sb_inputs(tfs_kernel_ctx *c, sb_job *j, const char *what) {
  const tfs_tensor *x = c->inputs[0], *bs = c->inputs[1], *pd = c->inputs[2];
  char b[TFS_SHAPE_STRLEN];
  if (bs->shape.rank != 1) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "block_shape rank should be 1 instead of %d",
                  bs->shape.rank);
    return -1;
  }
  int m = (int)bs->shape.dims[0];
  if (bs->shape.dims[0] + 1 > x->shape.rank) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "input rank should be >= %lld instead of %d",
                  (long long)bs->shape.dims[0] + 1, x->shape.rank);
    return -1;
  }
  if (pd->shape.rank != 2 || pd->shape.dims[0] != m ||
      pd->shape.dims[1] != 2) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "%s should have shape [%d, 2] instead of %s", what, m,
                  tfs_shape_str(&pd->shape, b, sizeof b));
    return -1;
  }
  j->m = m;
  for (int k = 0; k < m; k++) {
    j->block[k] = tfs_tensor__get_as_int64(bs, k);
    j->pad[k] = tfs_tensor__get_as_int64(pd, 2 * k);
  }
  j->inner = tfs_arr_prod(x->shape.dims, m + 1, x->shape.rank);
  j->e = tfs_elem_of(x->dtype);
  j->src = x->data;
  atomic_init(&j->oom, 0);
  return 0;
}

/* *out = a * b, or fails c with TensorFlow's overflow text.  Sizes come
 * from the graph (block shapes, paddings, crops), so any may be huge. */
static int mul_checked(tfs_kernel_ctx *c, int64_t a, int64_t b,
                       int64_t *out) {
  if (tfs_mul_overflow_i64(a, b, out)) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Encountered overflow when multiplying %lld with %lld, "
                  "result: -1",
                  (long long)a, (long long)b);
    return -1;
  }
  return 0;
}

static int add_checked(tfs_kernel_ctx *c, int64_t a, int64_t b,
                       int64_t *out) {
  if (tfs_add_overflow_i64(a, b, out)) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Encountered overflow when adding %lld and %lld",
                  (long long)a, (long long)b);
    return -1;
  }
  return 0;
}

/* Output rows (batch times the blocked dims), checked. */
static int sb_rows(tfs_kernel_ctx *c, int64_t batch, const int64_t *dims,
                   int m, int64_t *rows) {
  *rows = batch;
  for (int k = 0; k < m; k++)
    if (mul_checked(c, *rows, dims[k], rows)) return -1;
  return 0;
}

static void sb_run(tfs_kernel_ctx *c, sb_job *j, const tfs_shape *out,
                   int64_t rows) {
  tfs_tensor *o = tfs_kctx_alloc_output(c, 0, out);
  if (!o || o->nelems == 0) return;
  j->dst = o->data;
  tfs_kctx_parallel_for(c, rows, j->inner * (int64_t)j->e.size / 8 + 20,
                        sb_range, j);
  if (atomic_load(&j->oom)) tfs_arr_oom(c);
}

static void space_to_batch_compute(tfs_kernel_ctx *c) {
  const tfs_tensor *x = c->inputs[0], *pd = c->inputs[2];
  sb_job *j = tfs_kctx_scratch(c, sizeof(sb_job));
  if (!j || sb_inputs(c, j, "paddings")) return;
  int64_t prod = 1;
  for (int k = 0; k < j->m; k++) {
    if (j->block[k] < 1) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "All values in block_shape must be positive, got value, "
                    "%lld at index %d.", (long long)j->block[k], k);
      return;
    }
    if (mul_checked(c, prod, j->block[k], &prod)) return;
  }
  tfs_shape out = x->shape;
  if (mul_checked(c, x->shape.dims[0], prod, &out.dims[0])) return;
  for (int k = 0; k < j->m; k++) {
    int64_t a = j->pad[k], e = tfs_tensor__get_as_int64(pd, 2 * k + 1);
    if (a < 0 || e < 0) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "Paddings must be non-negative");
      return;
    }
    int64_t padded;
    if (add_checked(c, x->shape.dims[k + 1], a, &padded) ||
        add_checked(c, padded, e, &padded))
      return;
    if (padded % j->block[k] != 0) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "padded_shape[%d]=%lld is not divisible by "
                    "block_shape[%d]=%lld", k, (long long)padded, k,
                    (long long)j->block[k]);
      return;
    }
    j->space[k] = x->shape.dims[k + 1];
    j->bdims[k] = out.dims[k + 1] = padded / j->block[k];
  }
  j->batch = x->shape.dims[0];
  j->to_batch = 1;
  int64_t rows;
  if (sb_rows(c, out.dims[0], j->bdims, j->m, &rows)) return;
  sb_run(c, j, &out, rows);
}

static void batch_to_space_compute(tfs_kernel_ctx *c) {
  const tfs_tensor *x = c->inputs[0], *cr = c->inputs[2];
  sb_job *j = tfs_kctx_scratch(c, sizeof(sb_job));
  if (!j || sb_inputs(c, j, "crops")) return;
  int64_t prod = 1;
  int bad = 0;
  for (int k = 0; k < j->m; k++) {
    bad |= j->block[k] < 1;
    if (mul_checked(c, prod, j->block[k], &prod)) return;
  }
  if (prod <= 0 || bad) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Product of block sizes must be positive, got %lld",
                  (long long)prod);
    return;
  }
  if (x->shape.dims[0] % prod != 0) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Input batch dimension (%lld) is not divisible by product "
                  "of block sizes (%lld)", (long long)x->shape.dims[0],
                  (long long)prod);
    return;
  }
  tfs_shape out = x->shape;
  out.dims[0] = x->shape.dims[0] / prod;
  for (int k = 0; k < j->m; k++) {
    int64_t a = j->pad[k], e = tfs_tensor__get_as_int64(cr, 2 * k + 1);
    if (a < 0 || e < 0) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "Crops must be non-negative");
      return;
    }
    int64_t size;
    if (mul_checked(c, x->shape.dims[k + 1], j->block[k], &size)) return;
    size = size - a < 0 ? -1 : size - a - e; /* a, e >= 0: no overflow */
    if (size < 0) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "cropped_shape[%d]=%lld must be non-negative", k,
                    (long long)size);
      return;
    }
    j->bdims[k] = x->shape.dims[k + 1];
    j->space[k] = out.dims[k + 1] = size;
  }
  j->batch = out.dims[0];
  j->to_batch = 0;
  int64_t rows;
  if (sb_rows(c, out.dims[0], j->space, j->m, &rows)) return;
  sb_run(c, j, &out, rows);
}

#define ARR "T", TFS_DT_ARRAY

const tfs_kernel_def tfs_cpu_kernels_array_space[] = {
    {"DepthToSpace", "CPU", ARR, ds_prepare, depth_to_space_compute, tfs_free,
     0, NULL},
    {"SpaceToDepth", "CPU", ARR, ds_prepare, space_to_depth_compute, tfs_free,
     0, NULL},
    {"SpaceToBatchND", "CPU", ARR, NULL, space_to_batch_compute, NULL, 0,
     NULL},
    {"BatchToSpaceND", "CPU", ARR, NULL, batch_to_space_compute, NULL, 0,
     NULL},
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL},
};
