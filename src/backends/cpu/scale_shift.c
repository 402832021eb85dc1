/*
 * backends/cpu/scale_shift.c - _TfsScaleShift(x, scale, offset): y =
 * act(x * scale + offset) with scale and offset vectors along x's last
 * dimension and act Identity, Relu or Relu6, the op the remapper makes of
 * Mul + Add [+ Relu | Relu6] over per-channel constants (Keras's batch
 * normalization where no convolution precedes it, DenseNet's
 * pre-activations).  One pass over x where the ops it replaces made
 * three.  The product and the sum are rounded separately on every path
 * (no fused multiply-add), so y has the bits of the ops it replaces; Relu
 * and Relu6 pass NaN as TensorFlow's kernels do.  AVX-512, AVX2 or
 * portable C by tfs_cpu_has.
 */
#include <immintrin.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/cpu.h"
#include "backends/cpu/cpu_tables.h"
#include "backends/cpu/scale_shift.h"

/* ---- portable ------------------------------------------------------------ */

static float act1(int act, float v) {
  if (act == TFS_SS_IDENTITY || v != v) return v;
  v = v > 0.0f ? v : 0.0f;
  return act == TFS_SS_RELU6 && v > 6.0f ? 6.0f : v;
}

/* volatile keeps the product rounded to float before the sum on
 * compilers that would contract it */
static void rows_ref(int act, const float *x, float *y, int64_t nrows,
                     int64_t d, const float *scale, const float *offset,
                     int64_t from) {
  for (int64_t r = 0; r < nrows; r++)
    for (int64_t j = from; j < d; j++) {
      volatile float p = x[r * d + j] * scale[j];
      y[r * d + j] = act1(act, p + offset[j]);
    }
}

/* ---- AVX-512 ------------------------------------------------------------- */

#define T512 __attribute__((target("avx512f")))
#define T256 __attribute__((target("avx2")))
#define AI __attribute__((always_inline))

/* An empty asm the value must pass through: no multiply-add across it. */
#define SS_ROUNDED512(v) __asm__("" : "+v"(v))
#define SS_ROUNDED256(v) __asm__("" : "+x"(v))

static inline T512 AI __m512 act512(const int act, __m512 v) {
  if (act == TFS_SS_IDENTITY) return v;
  __m512 r = _mm512_max_ps(v, _mm512_setzero_ps());
  if (act == TFS_SS_RELU6) r = _mm512_min_ps(r, _mm512_set1_ps(6.0f));
  return _mm512_mask_blend_ps(_mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q), r, v);
}

static inline T512 AI void rows512(const int act, const float *x, float *y,
                                   int64_t nrows, int64_t d,
                                   const float *scale, const float *offset) {
  for (int64_t r = 0; r < nrows; r++) {
    const float *xr = x + r * d;
    float *yr = y + r * d;
    for (int64_t j = 0; j < d; j += 16) {
      __mmask16 m = d - j >= 16 ? (__mmask16)0xffff
                                : (__mmask16)((1u << (d - j)) - 1);
      __m512 p = _mm512_mul_ps(_mm512_maskz_loadu_ps(m, xr + j),
                               _mm512_maskz_loadu_ps(m, scale + j));
      SS_ROUNDED512(p);
      __m512 v = _mm512_add_ps(p, _mm512_maskz_loadu_ps(m, offset + j));
      _mm512_mask_storeu_ps(yr + j, m, act512(act, v));
    }
  }
}

/* ---- AVX2 ------------------------------------------------------------------ */

static inline T256 AI __m256 act256(const int act, __m256 v) {
  if (act == TFS_SS_IDENTITY) return v;
  __m256 r = _mm256_max_ps(v, _mm256_setzero_ps());
  if (act == TFS_SS_RELU6) r = _mm256_min_ps(r, _mm256_set1_ps(6.0f));
  return _mm256_blendv_ps(r, v, _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
}

/* eight channels at a time; the last d % 8 of each row in C */
static inline T256 AI void rows256(const int act, const float *x, float *y,
                                   int64_t nrows, int64_t d,
                                   const float *scale, const float *offset) {
  const int64_t full = d - d % 8;
  for (int64_t r = 0; r < nrows; r++) {
    const float *xr = x + r * d;
    float *yr = y + r * d;
    for (int64_t j = 0; j < full; j += 8) {
      __m256 p = _mm256_mul_ps(_mm256_loadu_ps(xr + j),
                               _mm256_loadu_ps(scale + j));
      SS_ROUNDED256(p);
      __m256 v = _mm256_add_ps(p, _mm256_loadu_ps(offset + j));
      _mm256_storeu_ps(yr + j, act256(act, v));
    }
  }
  if (full < d) rows_ref(act, x, y, nrows, d, scale, offset, full);
}

/* ---- instances and dispatch ------------------------------------------------ */

typedef void (*rows_fn)(const float *x, float *y, int64_t nrows, int64_t d,
                        const float *scale, const float *offset);

#define INST(PATH, TGT, ACT)                                                 \
  static TGT void PATH##_##ACT(const float *x, float *y, int64_t nrows,      \
                               int64_t d, const float *scale,               \
                               const float *offset) {                       \
    PATH(ACT, x, y, nrows, d, scale, offset);                               \
  }
INST(rows512, T512, TFS_SS_IDENTITY)
INST(rows512, T512, TFS_SS_RELU)
INST(rows512, T512, TFS_SS_RELU6)
INST(rows256, T256, TFS_SS_IDENTITY)
INST(rows256, T256, TFS_SS_RELU)
INST(rows256, T256, TFS_SS_RELU6)

static const rows_fn k512[3] = {rows512_TFS_SS_IDENTITY, rows512_TFS_SS_RELU,
                                rows512_TFS_SS_RELU6};
static const rows_fn k256[3] = {rows256_TFS_SS_IDENTITY, rows256_TFS_SS_RELU,
                                rows256_TFS_SS_RELU6};

void tfs_scale_shift_f32(int act, const float *x, float *y, int64_t nrows,
                         int64_t d, const float *scale, const float *offset) {
  if (act < 0 || act > TFS_SS_RELU6 || nrows <= 0 || d <= 0) return;
  if (tfs_cpu_has(TFS_CPU_ISA_AVX512))
    k512[act](x, y, nrows, d, scale, offset);
  else if (tfs_cpu_has(TFS_CPU_ISA_AVX2))
    k256[act](x, y, nrows, d, scale, offset);
  else
    rows_ref(act, x, y, nrows, d, scale, offset, 0);
}

int tfs_scale_shift_act(const char *name) {
  static const char *const kNames[] = {"Identity", "Relu", "Relu6"};
  for (int a = 0; a < 3; a++)
    if (name && strcmp(name, kNames[a]) == 0) return a;
  return -1;
}

/* ---- the kernel ------------------------------------------------------------ */

typedef struct {
  const float *x, *scale, *offset;
  float *y;
  int64_t d;
  int act;
} ss_job;

static void ss_rows(void *arg, int64_t b, int64_t e) {
  const ss_job *j = arg;
  tfs_scale_shift_f32(j->act, j->x + b * j->d, j->y + b * j->d, e - b, j->d,
                      j->scale, j->offset);
}

static int ss_prepare(tfs_kernel_init *ki) {
  size_t len = 0;
  const char *name = tfs_attrs_get_string(ki->attrs, "activation", &len);
  if (!name) name = "Identity", len = 8;
  char buf[16];
  snprintf(buf, sizeof buf, "%.*s", (int)(len < 15 ? len : 15), name);
  int act = tfs_scale_shift_act(buf);
  if (act < 0 || len > 15)
    return tfs_ki_error(ki, TFS_INVALID_ARGUMENT,
                        "activation must be Identity, Relu or Relu6, got "
                        "'%.*s'",
                        (int)(len > 64 ? 64 : len), name);
  int *state = tfs_malloc(sizeof *state);
  if (!state) return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  *state = act;
  ki->state = state;
  return 0;
}

int64_t tfs_channel_vectors_check(tfs_kernel_ctx *c) {
  const tfs_tensor *x = c->inputs[0], *s = c->inputs[1], *o = c->inputs[2];
  if (x->shape.rank < 1) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "x must be at least 1-dimensional, got shape []");
    return -1;
  }
  int64_t d = x->shape.dims[x->shape.rank - 1];
  if (s->nelems != d || o->nelems != d) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "scale and offset must have %lld elements (the last "
                  "dimension of x), got %lld and %lld",
                  (long long)d, (long long)s->nelems, (long long)o->nelems);
    return -1;
  }
  return d;
}

static void ss_compute(tfs_kernel_ctx *c) {
  const tfs_tensor *x = c->inputs[0], *s = c->inputs[1], *o = c->inputs[2];
  int64_t d = tfs_channel_vectors_check(c);
  if (d < 0) return;
  tfs_tensor *y = tfs_kctx_forward_or_alloc(c, 0, 0, &x->shape);
  if (!y || x->nelems == 0) return;
  ss_job j = {x->data, s->data, o->data, y->data, d,
              *(const int *)c->state};
  tfs_kctx_parallel_for(c, x->nelems / d, 2 * d, ss_rows, &j);
}

const tfs_kernel_def tfs_cpu_kernels_scale_shift[] = {
    {"_TfsScaleShift", "CPU", "T", TFS_DT_BIT(TFS_FLOAT), ss_prepare,
     ss_compute, tfs_free, 0, NULL},
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL},
};
