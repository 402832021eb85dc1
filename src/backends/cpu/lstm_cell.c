/*
 * backends/cpu/lstm_cell.c - LSTMBlockCell over half and float: one step
 * of an LSTM cell as TensorFlow's kernel computes it.
 *
 *   icfo = [x, h_prev] * w + b            (the project's GEMM)
 *   i  = sigmoid(icfo_i [+ cs_prev * wci])
 *   ci = tanh(icfo_c)
 *   f  = sigmoid(icfo_f + forget_bias [+ cs_prev * wcf])
 *   cs = clip(ci * i + cs_prev * f, cell_clip)  (when cell_clip > 0)
 *   co = tanh(cs)
 *   o  = sigmoid(icfo_o [+ cs * wco])
 *   h  = co * o
 *
 * the bracketed terms with use_peephole.  Float runs the product on the
 * project's GEMM.  Half computes in float and rounds every product, sum
 * and function value to half, as TensorFlow's kernel computes in
 * Eigen::half (its product included: one term at a time along k).
 */
#include <math.h>
#include <string.h>

#include "core/alloc.h"
#include "core/half.h"
#include "core/util.h"
#include "backends/cpu/cpu_tables.h"
#include "backends/cpu/gemm.h"

typedef struct {
  float forget_bias, cell_clip;
  int use_peephole;
} lstm_state;

static const char *const kInputNames[8] = {"x", "cs_prev", "h_prev", "w",
                                           "wci", "wcf", "wco", "b"};

static int lstm_prepare(tfs_kernel_init *ki) {
  lstm_state *s = tfs_calloc(1, sizeof(*s));
  if (!s) return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  s->forget_bias = 1.0f;
  s->cell_clip = 3.0f;
  tfs_attrs_get_float(ki->attrs, "forget_bias", &s->forget_bias);
  tfs_attrs_get_float(ki->attrs, "cell_clip", &s->cell_clip);
  tfs_attrs_get_bool(ki->attrs, "use_peephole", &s->use_peephole);
  ki->state = s;
  return 0;
}

static int dim_fail(tfs_kernel_ctx *c, const char *what, int64_t got,
                    int64_t want) {
  tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "%s: %lld vs. %lld", what,
                (long long)got, (long long)want);
  return -1;
}

/* Ranks (where TensorFlow's kernel would read past a shape), then
 * TensorFlow's dimension checks in its order. */
static int lstm_check(tfs_kernel_ctx *c, const lstm_state *s,
                      int64_t *batch, int64_t *input, int64_t *cell) {
  char sb[128];
  for (int k = 0; k < 8; k++) {
    int want = k < 4 ? 2 : 1;
    if (c->inputs[k]->shape.rank != want) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "%s must be rank %d but is rank %d, shape %s",
                    kInputNames[k], want, c->inputs[k]->shape.rank,
                    tfs_shape_str(&c->inputs[k]->shape, sb, sizeof sb));
      return -1;
    }
  }
  const tfs_shape *x = &c->inputs[0]->shape, *cs = &c->inputs[1]->shape,
                  *h = &c->inputs[2]->shape, *w = &c->inputs[3]->shape,
                  *b = &c->inputs[7]->shape;
  *batch = x->dims[0];
  *input = x->dims[1];
  *cell = cs->dims[1];
  int64_t xh, four;
  if (tfs_add_overflow_i64(*input, *cell, &xh) ||
      tfs_mul_overflow_i64(*cell, 4, &four)) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "input_size + cell_size or cell_size * 4 overflows: %lld, "
                  "%lld", (long long)*input, (long long)*cell);
    return -1;
  }
  if (cs->dims[0] != *batch)
    return dim_fail(c, "cs_prev.dims(0) != batch_size", cs->dims[0], *batch);
  if (h->dims[0] != *batch)
    return dim_fail(c, "h_prev.dims(0) != batch_size", h->dims[0], *batch);
  if (h->dims[1] != *cell)
    return dim_fail(c, "h_prev.dims(1) != cell_size", h->dims[1], *cell);
  if (w->dims[0] != xh)
    return dim_fail(c, "w.dim_size(0) != input_size + cell_size", w->dims[0],
                    xh);
  if (w->dims[1] != four)
    return dim_fail(c, "w.dim_size(1) != cell_size * 4", w->dims[1], four);
  if (b->dims[0] != four)
    return dim_fail(c, "b.dim_size(0) != cell_size * 4", b->dims[0], four);
  if (c->inputs[1]->nelems == 0) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "cs_prev_tensor is empty, has shape: (%lld,%lld).",
                  (long long)cs->dims[0], (long long)cs->dims[1]);
    return -1;
  }
  for (int k = 4; s->use_peephole && k < 7; k++)
    if (c->inputs[k]->nelems < *cell) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "%s must hold cell_size (%lld) values but has %lld",
                    kInputNames[k], (long long)*cell,
                    (long long)c->inputs[k]->nelems);
      return -1;
    }
  return 0;
}

/* Input t as float: its own data, or a widened copy in scratch. */
static const float *as_float(tfs_kernel_ctx *c, const tfs_tensor *t) {
  if (t->dtype == TFS_FLOAT) return t->data;
  float *f = tfs_kctx_scratch(c, sizeof(float) * (size_t)(t->nelems + 1));
  if (!f) return NULL;
  const uint16_t *h = t->data;
  for (int64_t i = 0; i < t->nelems; i++) f[i] = tfs_half_to_float(h[i]);
  return f;
}

static float sigmoidf(float v) { return 1.0f / (1.0f + expf(-v)); }

/* Rounding after each operation: none in float, to half in half. */
typedef float (*round_fn)(float);
static float keep(float v) { return v; }
static float to_half(float v) {
  return tfs_half_to_float(tfs_float_to_half(v));
}

/* The gates of row r from icfo (4 * cell wide) into out[7][batch*cell],
 * each operation rounded by rd as TensorFlow's kernel rounds it in T. */
static void lstm_row(const lstm_state *s, round_fn rd, const float *icfo,
                     const float *cs_prev, const float *const *peep,
                     int64_t r, int64_t cell, float *const *out) {
  float fb = rd(s->forget_bias), clip = rd(s->cell_clip);
  for (int64_t j = 0; j < cell; j++) {
    int64_t k = r * cell + j;
    const float *g = icfo + r * 4 * cell;
    float cp = cs_prev[k];
    float i = peep ? rd(g[j] + rd(cp * peep[0][j])) : g[j];
    i = rd(sigmoidf(i));
    float ci = rd(tanhf(g[cell + j]));
    float f = rd(g[2 * cell + j] + fb);
    if (peep) f = rd(f + rd(cp * peep[1][j]));
    f = rd(sigmoidf(f));
    float cs = rd(rd(ci * i) + rd(f * cp));
    if (s->cell_clip > 0.0f) {
      if (cs < -clip) cs = -clip;
      if (cs > clip) cs = clip;
    }
    float co = rd(tanhf(cs));
    float o = peep ? rd(g[3 * cell + j] + rd(cs * peep[2][j]))
                   : g[3 * cell + j];
    o = rd(sigmoidf(o));
    float v[7] = {i, cs, f, o, ci, co, rd(co * o)};
    for (int q = 0; q < 7; q++) out[q][k] = v[q];
  }
}

/* icfo = xh * w + b.  Float: the project's GEMM.  Half: one product and
 * one sum at a time along k, each rounded to half, as TensorFlow's Eigen
 * contraction accumulates in half. */
static void lstm_icfo(tfs_kernel_ctx *c, int is_half, const float *xh,
                      const float *w, const float *b, int64_t batch,
                      int64_t k, int64_t n, float *icfo) {
  if (!is_half) {
    tfs_gemm_f32(0, 0, batch, n, k, 1.0f, xh, k, w, n, 0.0f, icfo, n,
                 tfs_kctx_intra_pool(c));
    for (int64_t r = 0; r < batch; r++)
      for (int64_t j = 0; j < n; j++) icfo[r * n + j] += b[j];
    return;
  }
  for (int64_t r = 0; r < batch; r++)
    for (int64_t j = 0; j < n; j++) {
      float acc = 0.0f;
      for (int64_t p = 0; p < k; p++)
        acc = to_half(acc + to_half(xh[r * k + p] * w[p * n + j]));
      icfo[r * n + j] = to_half(acc + b[j]);
    }
}

static void lstm_compute(tfs_kernel_ctx *c) {
  const lstm_state *s = c->state;
  int64_t batch, input, cell;
  if (lstm_check(c, s, &batch, &input, &cell)) return;
  int64_t k = input + cell, n = 4 * cell;
  if (batch > INT32_MAX || k > INT32_MAX || n > INT32_MAX) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "LSTMBlockCell dimensions too large for the GEMM: batch "
                  "%lld, input_size + cell_size %lld, cell_size * 4 %lld",
                  (long long)batch, (long long)k, (long long)n);
    return;
  }
  const float *fin[8];
  for (int q = 0; q < 8; q++)
    if (!(fin[q] = as_float(c, c->inputs[q]))) return;
  /* batch * k and batch * n are bounded by the inputs' element counts */
  float *xh = tfs_kctx_scratch(c, sizeof(float) * (size_t)(batch * k));
  float *icfo = xh ? tfs_kctx_scratch(c, sizeof(float) * (size_t)(batch * n))
                   : NULL;
  if (!icfo) return;
  for (int64_t r = 0; r < batch; r++) {
    memcpy(xh + r * k, fin[0] + r * input, sizeof(float) * (size_t)input);
    memcpy(xh + r * k + input, fin[2] + r * cell,
           sizeof(float) * (size_t)cell);
  }
  int is_half = c->inputs[0]->dtype == TFS_HALF;
  lstm_icfo(c, is_half, xh, fin[3], fin[7], batch, k, n, icfo);
  tfs_shape os;
  tfs_shape_2d(&os, batch, cell);
  float *out[7];
  for (int q = 0; q < 7; q++) {
    tfs_tensor *o = tfs_kctx_alloc_output(c, q, &os);
    if (!o) return;
    out[q] = is_half ? tfs_kctx_scratch(c, sizeof(float) *
                                               (size_t)(batch * cell))
                     : o->data;
    if (!out[q]) return;
  }
  const float *peep[3] = {fin[4], fin[5], fin[6]};
  for (int64_t r = 0; r < batch; r++)
    lstm_row(s, is_half ? to_half : keep, icfo, fin[1],
             s->use_peephole ? peep : NULL, r, cell, out);
  for (int q = 0; is_half && q < 7; q++) {
    uint16_t *h = c->outputs[q]->data;
    for (int64_t i = 0; i < batch * cell; i++)
      h[i] = tfs_float_to_half(out[q][i]);
  }
}

const tfs_kernel_def tfs_cpu_kernels_lstm_cell[] = {
    {"LSTMBlockCell", "CPU", "T",
     TFS_DT_BIT(TFS_HALF) | TFS_DT_BIT(TFS_FLOAT), lstm_prepare,
     lstm_compute, tfs_free, 0, NULL},
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL},
};
