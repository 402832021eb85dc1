/*
 * backends/cpu/math_argminmax.c - ArgMax and ArgMin along one axis.  As
 * TensorFlow's (Eigen's tuple reducers): the scan starts from the type's
 * lowest (highest) value at index 0 and takes strictly greater (smaller)
 * values, so ties give the first index and NaN is never picked.
 */
#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "backends/cpu/cpu_tables.h"
#include "backends/cpu/ew_loops.h"

#define CHUNK 256 /* inner positions per work unit */

typedef struct {
  const void *in;
  void *out;
  tfs_dtype out_type;
  int64_t outer, axis, inner, nchunks;
} arg_job;

static void store_index(const arg_job *j, int64_t at, int64_t v) {
  switch (j->out_type) {
    case TFS_INT16: ((int16_t *)j->out)[at] = (int16_t)v; break;
    case TFS_UINT16: ((uint16_t *)j->out)[at] = (uint16_t)v; break;
    case TFS_INT32: ((int32_t *)j->out)[at] = (int32_t)v; break;
    default: ((int64_t *)j->out)[at] = v; break;
  }
}

/* NAME_range over work units (outer row, inner chunk); CT is the type
 * compared in, START the scan's starting value, BETTER(x, best). */
#define ARG_IMPL(NAME, T, CT, LOAD, START, BETTER)                          \
  static void NAME(void *arg, int64_t ub, int64_t ue) {                     \
    const arg_job *j = arg;                                                 \
    const T *in = j->in;                                                    \
    CT best[CHUNK];                                                         \
    int64_t idx[CHUNK];                                                     \
    for (int64_t u = ub; u < ue; u++) {                                     \
      int64_t o = u / j->nchunks, c0 = (u % j->nchunks) * CHUNK;            \
      int64_t w = j->inner - c0 < CHUNK ? j->inner - c0 : CHUNK;            \
      const T *base = in + o * j->axis * j->inner + c0;                     \
      for (int64_t k = 0; k < w; k++) {                                     \
        best[k] = START;                                                    \
        idx[k] = 0;                                                         \
      }                                                                     \
      for (int64_t a = 0; a < j->axis; a++) {                               \
        const T *row = base + a * j->inner;                                 \
        for (int64_t k = 0; k < w; k++) {                                   \
          CT x = (CT)LOAD(row[k]);                                          \
          if (BETTER(x, best[k])) {                                         \
            best[k] = x;                                                    \
            idx[k] = a;                                                     \
          }                                                                 \
        }                                                                   \
      }                                                                     \
      for (int64_t k = 0; k < w; k++)                                       \
        store_index(j, o * j->inner + c0 + k, idx[k]);                      \
    }                                                                       \
  }

#define GT(x, b) ((x) > (b))
#define LT(x, b) ((x) < (b))
#define BOTH(SUF, T, CT, LOAD, LO, HI)                                      \
  ARG_IMPL(argmax_##SUF, T, CT, LOAD, LO, GT)                               \
  ARG_IMPL(argmin_##SUF, T, CT, LOAD, HI, LT)
BOTH(f32, float, float, EW_ID, -FLT_MAX, FLT_MAX)
BOTH(f64, double, double, EW_ID, -DBL_MAX, DBL_MAX)
BOTH(f16, uint16_t, float, H2F, -65504.0f, 65504.0f)
BOTH(bf16, uint16_t, float, B2F, -3.38953139e38f, 3.38953139e38f)
BOTH(i8, int8_t, int8_t, EW_ID, INT8_MIN, INT8_MAX)
BOTH(i16, int16_t, int16_t, EW_ID, INT16_MIN, INT16_MAX)
BOTH(i32, int32_t, int32_t, EW_ID, INT32_MIN, INT32_MAX)
BOTH(i64, int64_t, int64_t, EW_ID, INT64_MIN, INT64_MAX)
BOTH(u8, uint8_t, uint8_t, EW_ID, 0, UINT8_MAX)
BOTH(u16, uint16_t, uint16_t, EW_ID, 0, UINT16_MAX)
BOTH(u32, uint32_t, uint32_t, EW_ID, 0, UINT32_MAX)
BOTH(u64, uint64_t, uint64_t, EW_ID, 0, UINT64_MAX)
BOTH(bool, uint8_t, uint8_t, EW_ID, 0, 1)

#define PAIR(SUF) {argmax_##SUF, argmin_##SUF}
static const tfs_range_fn kArg[24][2] = {
    [TFS_FLOAT] = PAIR(f32),  [TFS_DOUBLE] = PAIR(f64),
    [TFS_HALF] = PAIR(f16),   [TFS_BFLOAT16] = PAIR(bf16),
    [TFS_INT8] = PAIR(i8),    [TFS_INT16] = PAIR(i16),
    [TFS_INT32] = PAIR(i32),  [TFS_INT64] = PAIR(i64),
    [TFS_UINT8] = PAIR(u8),   [TFS_UINT16] = PAIR(u16),
    [TFS_UINT32] = PAIR(u32), [TFS_UINT64] = PAIR(u64),
    [TFS_BOOL] = PAIR(bool),
};

static int arg_prepare(tfs_kernel_init *ki) {
  ki->state = (void *)(intptr_t)(strcmp(ki->op->name, "ArgMin") == 0);
  return 0;
}

static void arg_compute(tfs_kernel_ctx *c) {
  const tfs_tensor *in = c->inputs[0], *dim = c->inputs[1];
  char b[TFS_SHAPE_STRLEN];
  if (dim->shape.rank != 0) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "dim must be a scalar, but "
                  "received tensor of shape: %s",
                  tfs_shape_str(&dim->shape, b, sizeof b));
    return;
  }
  int r = in->shape.rank;
  int64_t d = tfs_tensor__get_as_int64(dim, 0);
  if (d < -r || d >= r) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "Expected dimension in the range "
                  "[%d, %d), but got %lld", -r, r, (long long)d);
    return;
  }
  int axis = (int)(d < 0 ? d + r : d);
  if (in->shape.dims[axis] == 0) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "Reduction axis %lld is empty in "
                  "shape %s", (long long)d,
                  tfs_shape_str(&in->shape, b, sizeof b));
    return;
  }
  arg_job j = {in->data, NULL, c->out_types[0], 1, in->shape.dims[axis], 1, 1};
  tfs_shape os;
  os.rank = 0;
  for (int i = 0; i < r; i++) {
    if (i < axis) j.outer *= in->shape.dims[i];
    if (i > axis) j.inner *= in->shape.dims[i];
    if (i != axis) os.dims[os.rank++] = in->shape.dims[i];
  }
  tfs_tensor *o = tfs_kctx_alloc_output(c, 0, &os);
  if (!o || o->nelems == 0) return;
  tfs_range_fn fn = (unsigned)in->dtype < 24
                        ? kArg[in->dtype][(intptr_t)c->state ? 1 : 0]
                        : NULL;
  if (!fn) {
    tfs_kctx_fail(c, TFS_UNIMPLEMENTED, "%s is not implemented for %s",
                  c->op_name, tfs_dtype_name(in->dtype));
    return;
  }
  j.out = o->data;
  j.nchunks = (j.inner + CHUNK - 1) / CHUNK;
  int64_t per = j.axis * (j.inner < CHUNK ? j.inner : CHUNK);
  tfs_kctx_parallel_for(c, j.outer * j.nchunks, per, fn, &j);
}

#define ARG_T \
  (TFS_DT_FLOATS | EW_DT_SIGNED | EW_DT_UNSIGNED | EW_DT(BOOL))

const tfs_kernel_def tfs_cpu_kernels_argminmax[] = {
    {"ArgMax", "CPU", "T", ARG_T, arg_prepare, arg_compute, NULL, 0, NULL},
    {"ArgMin", "CPU", "T", ARG_T, arg_prepare, arg_compute, NULL, 0, NULL},
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL},
};
