/*
 * kernels/cpu/reduce.c - Sum and Mean over any set of axes.
 *
 * The input is walked once in memory order.  Adjacent axes that are both
 * reduced or both kept are merged first, so the innermost loop is either a
 * contiguous sum or a contiguous vector accumulate.  Floats accumulate in
 * double, integers in wrapping 64-bit arithmetic.
 */
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/half.h"
#include "kernels/cpu/cpu_tables.h"

typedef struct {
  int n;
  int64_t size[TFS_MAX_RANK];
  int64_t istride[TFS_MAX_RANK];
  int64_t ostride[TFS_MAX_RANK]; /* 0 for reduced dims */
  uint8_t red[TFS_MAX_RANK];
} red_plan;

enum { OP_SUM = 0, OP_MEAN = 1 };

#define ACCUMULATE(NAME, T, ACC, LOAD)                                      \
  static void NAME(const red_plan *p, int d, const T *in, ACC *acc) {       \
    int64_t n = p->size[d];                                                 \
    if (d == p->n - 1) {                                                    \
      if (p->red[d]) {                                                      \
        ACC s = 0;                                                          \
        for (int64_t i = 0; i < n; i++) s += (ACC)LOAD(in[i]);              \
        acc[0] += s;                                                        \
      } else {                                                              \
        for (int64_t i = 0; i < n; i++) acc[i] += (ACC)LOAD(in[i]);         \
      }                                                                     \
      return;                                                               \
    }                                                                       \
    for (int64_t i = 0; i < n; i++)                                         \
      NAME(p, d + 1, in + i * p->istride[d], acc + i * p->ostride[d]);      \
  }

#define ID(x) (x)
#define U64(x) ((uint64_t)(x))
ACCUMULATE(acc_f32, float, double, ID)
ACCUMULATE(acc_f64, double, double, ID)
ACCUMULATE(acc_f16, uint16_t, double, tfs_half_to_float)
ACCUMULATE(acc_bf16, uint16_t, double, tfs_bf16_to_float)
ACCUMULATE(acc_i8, int8_t, uint64_t, U64)
ACCUMULATE(acc_i16, int16_t, uint64_t, U64)
ACCUMULATE(acc_i32, int32_t, uint64_t, U64)
ACCUMULATE(acc_i64, int64_t, uint64_t, U64)
ACCUMULATE(acc_u8, uint8_t, uint64_t, U64)
ACCUMULATE(acc_u16, uint16_t, uint64_t, U64)
ACCUMULATE(acc_u32, uint32_t, uint64_t, U64)
ACCUMULATE(acc_u64, uint64_t, uint64_t, U64)

static int build_plan(tfs_kernel_ctx *c, const tfs_tensor *in,
                      const tfs_tensor *axes, red_plan *p, tfs_shape *out,
                      int keep) {
  int r = in->shape.rank;
  uint8_t red[TFS_MAX_RANK] = {0};
  char buf[TFS_SHAPE_STRLEN];
  if (axes->shape.rank > 1) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "reduction_indices must be a scalar or vector, got %s",
                  tfs_shape_str(&axes->shape, buf, sizeof buf));
    return -1;
  }
  for (int64_t i = 0; i < axes->nelems; i++) {
    int64_t a = tfs_tensor__get_as_int64(axes, i);
    if (a < -r || a >= r) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "Invalid reduction dimension (%lld for input with %d "
                    "dimension(s)", (long long)a, r);
      return -1;
    }
    red[a < 0 ? a + r : a] = 1;
  }
  out->rank = 0;
  for (int d = 0; d < r; d++) {
    if (!red[d])
      out->dims[out->rank++] = in->shape.dims[d];
    else if (keep)
      out->dims[out->rank++] = 1;
  }
  /* collapse, dropping size-1 dims */
  p->n = 0;
  for (int d = 0; d < r; d++) {
    int64_t sz = in->shape.dims[d];
    if (sz == 1) continue;
    if (p->n && p->red[p->n - 1] == red[d]) {
      p->size[p->n - 1] *= sz;
    } else {
      p->size[p->n] = sz;
      p->red[p->n] = red[d];
      p->n++;
    }
  }
  if (p->n == 0) {
    p->size[0] = 1;
    p->red[0] = 0;
    p->n = 1;
  }
  int64_t is = 1, os = 1;
  for (int d = p->n - 1; d >= 0; d--) {
    p->istride[d] = is;
    is *= p->size[d];
    p->ostride[d] = p->red[d] ? 0 : os;
    if (!p->red[d]) os *= p->size[d];
  }
  return 0;
}

static void reduce_compute(tfs_kernel_ctx *c) {
  int op = (int)(intptr_t)c->state;
  const tfs_tensor *in = c->inputs[0], *axes = c->inputs[1];
  int keep = 0;
  red_plan p;
  tfs_shape os;
  /* keep_dims lives in the prepared state's high bit */
  keep = op >> 8;
  op &= 0xff;
  if (build_plan(c, in, axes, &p, &os, keep)) return;
  tfs_tensor *o = tfs_kctx_alloc_output(c, 0, &os);
  if (!o) return;
  int64_t on = o->nelems;
  int64_t count = on ? in->nelems / on : 0;
  int is_float = in->dtype == TFS_FLOAT || in->dtype == TFS_DOUBLE ||
                 in->dtype == TFS_HALF || in->dtype == TFS_BFLOAT16;
  void *acc = tfs_calloc((size_t)(on ? on : 1), 8);
  if (!acc) {
    tfs_kctx_fail(c, TFS_RESOURCE_EXHAUSTED, "out of memory");
    return;
  }
  if (in->nelems > 0) {
    switch (in->dtype) {
      case TFS_FLOAT: acc_f32(&p, 0, in->data, acc); break;
      case TFS_DOUBLE: acc_f64(&p, 0, in->data, acc); break;
      case TFS_HALF: acc_f16(&p, 0, in->data, acc); break;
      case TFS_BFLOAT16: acc_bf16(&p, 0, in->data, acc); break;
      case TFS_INT8: acc_i8(&p, 0, in->data, acc); break;
      case TFS_INT16: acc_i16(&p, 0, in->data, acc); break;
      case TFS_INT32: acc_i32(&p, 0, in->data, acc); break;
      case TFS_INT64: acc_i64(&p, 0, in->data, acc); break;
      case TFS_UINT8: acc_u8(&p, 0, in->data, acc); break;
      case TFS_UINT16: acc_u16(&p, 0, in->data, acc); break;
      case TFS_UINT32: acc_u32(&p, 0, in->data, acc); break;
      case TFS_UINT64: acc_u64(&p, 0, in->data, acc); break;
      default: break;
    }
  }
  for (int64_t i = 0; i < on; i++) {
    if (is_float) {
      double v = ((double *)acc)[i];
      if (op == OP_MEAN) v = v / (double)count;
      switch (o->dtype) {
        case TFS_FLOAT: ((float *)o->data)[i] = (float)v; break;
        case TFS_DOUBLE: ((double *)o->data)[i] = v; break;
        case TFS_HALF:
          ((uint16_t *)o->data)[i] = tfs_float_to_half((float)v);
          break;
        default:
          ((uint16_t *)o->data)[i] = tfs_float_to_bf16((float)v);
          break;
      }
    } else {
      uint64_t u = ((uint64_t *)acc)[i];
      int is_signed = o->dtype == TFS_INT8 || o->dtype == TFS_INT16 ||
                      o->dtype == TFS_INT32 || o->dtype == TFS_INT64;
      if (op == OP_MEAN) {
        if (count == 0)
          u = 0;
        else if (is_signed) {
          /* the sum wrapped in the output width, as TensorFlow's does */
          int64_t sv;
          switch (o->dtype) {
            case TFS_INT8: sv = (int8_t)u; break;
            case TFS_INT16: sv = (int16_t)u; break;
            case TFS_INT32: sv = (int32_t)u; break;
            default: sv = (int64_t)u; break;
          }
          u = (uint64_t)(sv / count);
        } else {
          u = u / (uint64_t)count;
        }
      }
      switch (o->dtype) {
        case TFS_INT8: case TFS_UINT8: ((uint8_t *)o->data)[i] = (uint8_t)u; break;
        case TFS_INT16: case TFS_UINT16: ((uint16_t *)o->data)[i] = (uint16_t)u; break;
        case TFS_INT32: case TFS_UINT32: ((uint32_t *)o->data)[i] = (uint32_t)u; break;
        default: ((uint64_t *)o->data)[i] = u; break;
      }
    }
  }
  tfs_free(acc);
}

static int reduce_prepare(tfs_kernel_init *ki) {
  int keep = 0;
  tfs_attrs_get_bool(ki->attrs, "keep_dims", &keep);
  int op = strcmp(ki->op->name, "Mean") == 0 ? OP_MEAN : OP_SUM;
  ki->state = (void *)(intptr_t)(op | (keep ? 1 << 8 : 0));
  return 0;
}

const tfs_kernel_def tfs_cpu_kernels_reduce[] = {
    {"Sum", "CPU", "T", TFS_DT_REAL, reduce_prepare, reduce_compute, NULL, 0,
     NULL},
    {"Mean", "CPU", "T", TFS_DT_REAL, reduce_prepare, reduce_compute, NULL, 0,
     NULL},
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL},
};
