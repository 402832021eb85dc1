/*
 * backends/cpu/fake_quant.c - simulated quantization:
 * FakeQuantWithMinMaxArgs, FakeQuantWithMinMaxVars,
 * FakeQuantWithMinMaxVarsPerChannel (float) and QuantizeAndDequantizeV2,
 * V3, V4 (float, double; whole tensor or per channel along `axis`).
 *
 * Values are TensorFlow's to the bit: the FakeQuant ops nudge [min, max]
 * so that zero is a quantized value, in float; FakeQuantWithMinMaxArgs
 * multiplies by the reciprocal of the scale where the Vars variants
 * divide.  The
 * QuantizeAndDequantize ops derive the scale from the side of the range
 * that limits it and compute in the tensor's type.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cpu/cpu_tables.h"
#include "core/alloc.h"

/* ---- FakeQuant ----------------------------------------------------------- */

typedef struct {
  int quant_min, quant_max;
  float min, max; /* FakeQuantWithMinMaxArgs */
  int args;       /* 1: FakeQuantWithMinMaxArgs */
} fq_state;

typedef struct {
  float nudged_min, nudged_max, scale;
} fq_nudge;

/* the zero point: quant_min .. quant_max, rounded half away from zero */
static float zero_point(float zp, int quant_min, int quant_max) {
  if (zp < (float)quant_min) return (float)quant_min;
  if (zp > (float)quant_max) return (float)quant_max;
  if (zp != zp) return 0.0f;
  return roundf(zp);
}

static fq_nudge nudge(float min, float max, int quant_min, int quant_max) {
  fq_nudge n;
  float qmin = (float)quant_min, qmax = (float)quant_max;
  n.scale = (max - min) / (qmax - qmin);
  float zp = zero_point(qmin - min / n.scale, quant_min, quant_max);
  n.nudged_min = (qmin - zp) * n.scale;
  n.nudged_max = (qmax - zp) * n.scale;
  return n;
}

/* std::min / std::max argument order, as Eigen's cwiseMin/cwiseMax */
static inline float clampf_(float x, float lo, float hi) {
  x = hi < x ? hi : x;
  return x < lo ? lo : x;
}

/* out[i * stride] for n values of one channel; `divide`: (x - min) /
 * scale (Vars), else (x - min) * (1 / scale) (Args).  The last step,
 * q * scale + min, rounds once, as TensorFlow's build of its kernel
 * does (a separate product and sum differ from it by an ulp). */
static void fq_apply(const float *in, float *out, int64_t n, int64_t stride,
                     fq_nudge q, int divide) {
  float inv = 1.0f / q.scale;
  for (int64_t i = 0; i < n; i++) {
    float x = clampf_(in[i * stride], q.nudged_min, q.nudged_max);
    float s = x - q.nudged_min;
    float t = divide ? s / q.scale : s * inv;
    out[i * stride] = fmaf(floorf(t + 0.5f), q.scale, q.nudged_min);
  }
}

static int fq_prepare(tfs_kernel_init *ki) {
  int64_t bits = 8;
  int narrow = 0;
  float mn = -6.0f, mx = 6.0f;
  int args = strcmp(ki->op->name, "FakeQuantWithMinMaxArgs") == 0;
  tfs_attrs_get_int(ki->attrs, "num_bits", &bits);
  tfs_attrs_get_bool(ki->attrs, "narrow_range", &narrow);
  if (args) {
    tfs_attrs_get_float(ki->attrs, "min", &mn);
    tfs_attrs_get_float(ki->attrs, "max", &mx);
    if (!(mn < mx))
      return tfs_ki_error(ki, TFS_INVALID_ARGUMENT,
                          "min has to be smaller than max, was: %g >= %g",
                          (double)mn, (double)mx);
  }
  if (bits < 2 || bits > 16)
    return tfs_ki_error(ki, TFS_INVALID_ARGUMENT,
                        "num_bits must be between 2 and 16, inclusive");
  fq_state *s = tfs_calloc(1, sizeof(*s));
  if (!s) return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  s->quant_min = narrow ? 1 : 0;
  s->quant_max = (1 << bits) - 1;
  s->min = mn;
  s->max = mx;
  s->args = args;
  ki->state = s;
  return 0;
}

static void fq_compute(tfs_kernel_ctx *c) {
  const fq_state *s = c->state;
  const tfs_tensor *in = c->inputs[0];
  float mn = s->min, mx = s->max;
  if (!s->args) {
    const tfs_tensor *tmin = c->inputs[1], *tmax = c->inputs[2];
    if (tmin->shape.rank != 0 || tmax->shape.rank != 0) {
      const tfs_tensor *bad = tmin->shape.rank != 0 ? tmin : tmax;
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "`%s` must be rank 0 but is rank %d",
                    bad == tmin ? "min" : "max", bad->shape.rank);
      return;
    }
    mn = *(const float *)tmin->data;
    mx = *(const float *)tmax->data;
  }
  tfs_tensor *o = tfs_kctx_forward_or_alloc(c, 0, 0, &in->shape);
  if (!o) return;
  fq_apply(in->data, o->data, in->nelems, 1,
           nudge(mn, mx, s->quant_min, s->quant_max), !s->args);
}

static void fq_per_channel_compute(tfs_kernel_ctx *c) {
  const fq_state *s = c->state;
  const tfs_tensor *in = c->inputs[0];
  const tfs_tensor *tm[2] = {c->inputs[1], c->inputs[2]};
  if (in->shape.rank < 1) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "inputs must be at least rank 1 but is rank %d",
                  in->shape.rank);
    return;
  }
  int64_t depth = in->shape.dims[in->shape.rank - 1];
  for (int k = 0; k < 2; k++) {
    if (tm[k]->shape.rank != 1 || tm[k]->shape.dims[0] != depth) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "%s has incorrect size, expected %lld was %lld",
                    k ? "max" : "min", (long long)depth,
                    (long long)(tm[k]->shape.rank == 1
                                    ? tm[k]->shape.dims[0]
                                    : tm[k]->nelems));
      return;
    }
  }
  tfs_tensor *o = tfs_kctx_forward_or_alloc(c, 0, 0, &in->shape);
  if (!o || depth == 0) return;
  const float *mins = tm[0]->data, *maxs = tm[1]->data;
  int64_t rows = in->nelems / depth;
  for (int64_t d = 0; d < depth; d++)
    fq_apply((const float *)in->data + d, (float *)o->data + d, rows, depth,
             nudge(mins[d], maxs[d], s->quant_min, s->quant_max), 1);
}

/* ---- QuantizeAndDequantize ----------------------------------------------- */

typedef struct {
  int version; /* 2, 3 or 4 */
  int signed_input, range_given, narrow, half_up;
  int64_t num_bits, axis;
} qdq_state;

/* one channel's quantization range and scale, in the tensor's type T
 * (QDQ_T expands for float and double) */
#define QDQ_T(SUF, T, TMAX, RINT, FLOOR)                                     \
  static void qdq_range_##SUF(const qdq_state *s, int64_t bits, T *min_r,    \
                              T *max_r, T *scale, T *inv) {                  \
    int64_t min_q = s->signed_input                                          \
                        ? (s->narrow ? -(int64_t)(1ULL << (bits - 1)) + 1    \
                                     : -(int64_t)(1ULL << (bits - 1)))       \
                        : 0;                                                 \
    int64_t max_q = s->signed_input ? (int64_t)(1ULL << (bits - 1)) - 1      \
                                    : (int64_t)(1ULL << bits) - 1;           \
    T from_min = (T)min_q * *min_r > 0 ? (T)min_q / *min_r : TMAX;           \
    T from_max = (T)max_q * *max_r > 0 ? (T)max_q / *max_r : TMAX;           \
    if (from_min < from_max) {                                               \
      *scale = from_min;                                                     \
      *inv = *min_r / (T)min_q;                                              \
      *max_r = (T)max_q * *inv;                                              \
    } else {                                                                 \
      *scale = from_max;                                                     \
      *inv = *max_r / (T)max_q;                                              \
      *min_r = (T)min_q * *inv;                                              \
    }                                                                        \
  }                                                                          \
  /* the [outer, depth, inner] view; mins/maxs per channel (NULL: from   \
   * the data) */                                                            \
  static void qdq_run_##SUF(const qdq_state *s, int64_t bits, const T *in,   \
                            T *out, int64_t outer, int64_t depth,            \
                            int64_t inner, const T *mins, const T *maxs) {   \
    for (int64_t d = 0; d < depth; d++) {                                    \
      T lo, hi;                                                              \
      if (mins) {                                                            \
        lo = mins[d];                                                        \
        hi = maxs[d];                                                        \
      } else {                                                               \
        lo = TMAX;                                                           \
        hi = -TMAX;                                                          \
        for (int64_t o = 0; o < outer; o++)                                  \
          for (int64_t i = 0; i < inner; i++) {                              \
            T x = in[(o * depth + d) * inner + i];                           \
            lo = x < lo ? x : lo;                                            \
            hi = x > hi ? x : hi;                                            \
          }                                                                  \
      }                                                                      \
      T scale, inv;                                                          \
      qdq_range_##SUF(s, bits, &lo, &hi, &scale, &inv);                      \
      for (int64_t o = 0; o < outer; o++)                                    \
        for (int64_t i = 0; i < inner; i++) {                                \
          int64_t k = (o * depth + d) * inner + i;                           \
          T x = in[k];                                                       \
          if (mins) {                                                        \
            x = hi < x ? hi : x;                                             \
            x = x < lo ? lo : x;                                             \
          }                                                                  \
          x = x * scale;                                                     \
          x = s->half_up ? FLOOR(x + (T)0.5) : RINT(x);                      \
          out[k] = x * inv;                                                  \
        }                                                                    \
    }                                                                        \
  }
QDQ_T(f32, float, FLT_MAX, rintf, floorf)
QDQ_T(f64, double, DBL_MAX, rint, floor)

static int qdq_prepare(tfs_kernel_init *ki) {
  qdq_state *s = tfs_calloc(1, sizeof(*s));
  if (!s) return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  const char *name = ki->op->name;
  s->version = name[strlen(name) - 1] - '0';
  s->signed_input = 1;
  s->num_bits = 8;
  s->axis = -1;
  s->range_given = s->version == 3;
  tfs_attrs_get_bool(ki->attrs, "signed_input", &s->signed_input);
  tfs_attrs_get_bool(ki->attrs, "range_given", &s->range_given);
  tfs_attrs_get_bool(ki->attrs, "narrow_range", &s->narrow);
  tfs_attrs_get_int(ki->attrs, "num_bits", &s->num_bits);
  tfs_attrs_get_int(ki->attrs, "axis", &s->axis);
  const char *rm = tfs_attrs_get_string(ki->attrs, "round_mode", NULL);
  s->half_up = rm && strcmp(rm, "HALF_UP") == 0;
  if (s->version != 3 &&
      (s->num_bits <= 0 || s->num_bits >= (s->signed_input ? 62 : 63))) {
    int64_t bits = s->num_bits;
    int sig = s->signed_input;
    tfs_free(s);
    return tfs_ki_error(ki, TFS_INVALID_ARGUMENT,
                        "num_bits is out of range: %lld with signed_input_ %d",
                        (long long)bits, sig);
  }
  ki->state = s;
  return 0;
}

/* `axis` as a dimension index (V3 also takes -rank..-2) */
static int qdq_axis(const qdq_state *s, int rank) {
  return (int)(s->axis < 0 ? s->axis + rank : s->axis);
}

/* the checks of TensorFlow's kernels that need the inputs; the number of
 * bits into *bits */
static int qdq_check(tfs_kernel_ctx *c, const qdq_state *s, int64_t *bits) {
  const tfs_tensor *in = c->inputs[0];
  int rank = in->shape.rank;
  *bits = s->num_bits;
  if (s->version == 3) {
    if (!(-rank <= s->axis && s->axis < rank)) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "Axis requested is larger than input dimensions. Axis: "
                    "%lld Input Dimensions: %d", (long long)s->axis, rank);
      return -1;
    }
    const tfs_tensor *nb = c->inputs[3];
    if (nb->shape.rank != 0) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "Invalid shape. The `num_bits` tensor should be a "
                    "scalar. Got dimensions: %d", nb->shape.rank);
      return -1;
    }
    *bits = *(const int32_t *)nb->data;
    if (*bits <= 0 || *bits >= (s->signed_input ? 62 : 63)) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "num_bits is out of range: %lld with `signed_input_` %d",
                    (long long)*bits, s->signed_input);
      return -1;
    }
  } else {
    if (s->axis < -1) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "Axis must be at least -1. Found %lld",
                    (long long)s->axis);
      return -1;
    }
    if (s->axis != -1 && s->axis >= rank) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "Shape must be at least rank %lld but is rank %d",
                    (long long)s->axis + 1, rank);
      return -1;
    }
  }
  if (!s->range_given) return 0;
  /* TensorFlow 2.21's V2 and V4 kernels take input_min and input_max as
   * scalars whenever range_given is set, per channel too (so they refuse
   * a per-channel range) */
  for (int k = 1; k <= 2 && s->version != 3; k++) {
    if (c->inputs[k]->shape.rank != 0) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "%s must be a scalar.",
                    k == 1 ? "input_min" : "input_max");
      return -1;
    }
  }
  int64_t depth = s->axis == -1 ? 1 : in->shape.dims[qdq_axis(s, rank)];
  for (int k = 1; k <= 2; k++) {
    const tfs_tensor *m = c->inputs[k];
    const char *what = k == 1 ? "input_min" : "input_max";
    if (s->axis == -1 && m->shape.rank != 0) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "%s must be a scalar if axis is unspecified", what);
      return -1;
    }
    if (s->axis != -1 &&
        (m->shape.rank != 1 || m->shape.dims[0] != depth)) {
      char sh[TFS_SHAPE_STRLEN];
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "%s_tensor has incorrect size, was %lld expected %lld to "
                    "match dim %lld of the input %s", what,
                    (long long)(m->shape.rank > 0 ? m->shape.dims[0] : 1),
                    (long long)depth, (long long)s->axis,
                    tfs_shape_str(&m->shape, sh, sizeof sh));
      return -1;
    }
  }
  if (s->axis == -1) {
    int dbl = in->dtype == TFS_DOUBLE;
    double lo = dbl ? *(const double *)c->inputs[1]->data
                    : *(const float *)c->inputs[1]->data;
    double hi = dbl ? *(const double *)c->inputs[2]->data
                    : *(const float *)c->inputs[2]->data;
    if (lo > hi) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "Invalid range: input_min %g > input_max %g", lo, hi);
      return -1;
    }
  }
  return 0;
}

static void qdq_compute(tfs_kernel_ctx *c) {
  const qdq_state *s = c->state;
  const tfs_tensor *in = c->inputs[0];
  int64_t bits;
  if (qdq_check(c, s, &bits)) return;
  tfs_tensor *o = tfs_kctx_alloc_output(c, 0, &in->shape);
  if (!o || in->nelems == 0) return;
  int64_t outer = 1, depth = 1, inner = 1;
  if (s->axis != -1) {
    int ax = qdq_axis(s, in->shape.rank);
    for (int d = 0; d < in->shape.rank; d++) {
      if (d < ax) outer *= in->shape.dims[d];
      if (d > ax) inner *= in->shape.dims[d];
    }
    depth = in->shape.dims[ax];
  } else {
    inner = in->nelems;
  }
  const void *mins = s->range_given ? c->inputs[1]->data : NULL;
  const void *maxs = s->range_given ? c->inputs[2]->data : NULL;
  if (in->dtype == TFS_DOUBLE)
    qdq_run_f64(s, bits, in->data, o->data, outer, depth, inner, mins, maxs);
  else
    qdq_run_f32(s, bits, in->data, o->data, outer, depth, inner, mins, maxs);
}

#define FQ(OP, COMPUTE) {OP, "CPU", NULL, 0, fq_prepare, COMPUTE, free, 0, NULL}
#define QDQ(OP)                                                       \
  {OP, "CPU", "T", TFS_DT_BIT(TFS_FLOAT) | TFS_DT_BIT(TFS_DOUBLE),    \
   qdq_prepare, qdq_compute, free, 0, NULL}

const tfs_kernel_def tfs_cpu_kernels_fake_quant[] = {
    FQ("FakeQuantWithMinMaxArgs", fq_compute),
    FQ("FakeQuantWithMinMaxVars", fq_compute),
    FQ("FakeQuantWithMinMaxVarsPerChannel", fq_per_channel_compute),
    QDQ("QuantizeAndDequantizeV2"),
    QDQ("QuantizeAndDequantizeV3"),
    QDQ("QuantizeAndDequantizeV4"),
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL},
};
