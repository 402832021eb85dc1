/*
 * backends/cpu/lstm_seq.c - _TfsLstmSequence: the While loop of a Keras
 * LSTM layer in one kernel (an optimizer pass replaces the loop by it;
 * its inputs are the loop's variables).  With n = max(0, min(
 * max_iterations - counter, time_limit - time)) steps, for t = time, ...,
 * time + n - 1:
 *
 *   x = TensorListGetItem(input_list, t)                  [B, depth]
 *   z = x . kernel + h . recurrent_kernel + bias          [B, 4 units]
 *   i, f, g, o = the column blocks gate_order[0..3] of z
 *   c = Sigmoid(f) * c + Sigmoid(i) * Tanh(g);  h = Sigmoid(o) * Tanh(c)
 *   output_list = TensorListSetItem(output_list, output_index < 0 ? t :
 *                                   output_index, h)
 *
 * and it returns counter + n, time + n, the list, h and c (with n == 0,
 * the inputs as they are: nothing is checked but the four scalars).
 * Every check the loop's ops would make is made before any step runs,
 * with TensorFlow's message and, in parentheses, the inputs it concerns
 * (GetItem's and SetItem's, MatMul's, AddV2's and Mul's broadcasting,
 * BiasAdd's, Split's); shapes the loop would take but this op does not (a
 * c that broadcasts along its columns, steps of different shapes) get
 * messages of our own.  Rows of x, h and c broadcast as the loop's AddV2
 * and Mul broadcast them: each has the batch's rows or one.  Unset
 * elements of input_list read as GetItem reads them (zeros of the
 * list's element shape merged with its set elements').  The output list
 * is input_list's own when the kernel holds it alone, else a copy
 * (list_ops.c's rule); each step's h is a new element (one buffer for
 * all of them).
 *
 * What makes it fast (lstm_seq.h, lstm_seq_run.c, lstm_seq_simd.h): the
 * weights are reordered once, at prepare when they are constants, into
 * chunks of 16 units (8 on AVX2 and in portable C) whose four gates are
 * adjacent columns; the input projections x . kernel + bias of up to
 * 2 MiB of steps are one packed GEMM over the intra-op pool; and a step
 * is, chunk by chunk, a register-blocked product of h by the chunk's
 * recurrent weights, then the gates of up to 8 chunks at once while
 * their z are in L1, c updated in place.  Steps with enough work are
 * shared by one task per thread of the pool for a whole block of steps,
 * claiming groups of chunks with atomics (their own first) and waiting
 * for the step before by spinning, never by a parallel loop per step.
 * Measured (Xeon, AVX-512, 2.6 GHz; units 128, input 64, 32 steps; the
 * op alone): batch 1 ~100 us on one thread (the recurrent weights are
 * read from L2 at ~2.2 us a step), batch 8 ~450 us on one thread and
 * ~320 us on two (bench/lstm_seq_bench).
 *
 * Bits: each chunk is computed the same way whichever thread runs it
 * and however chunks are grouped, and the depth of no product is split
 * across threads, so any number of threads gives the same bits, run
 * after run.  The c line's products and sum are rounded one by one (the
 * Mul and AddV2 kernels' bits) and the activations are vmath.h's (the
 * Sigmoid and Tanh kernels'); z is accumulated in the projection's and
 * the step's order, so it is within float rounding of the loop's MatMuls
 * and adds, not their bits.  The AVX-512, AVX2 and portable paths differ
 * by rounding (FMA or not, and their order of sums).
 */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "core/tensor_list.h"
#include "core/util.h"
#include "backends/cpu/cpu_tables.h"
#include "backends/cpu/elementwise.h"
#include "backends/cpu/gemm.h"
#include "backends/cpu/list_util.h"
#include "backends/cpu/lstm_seq.h"
#include "ops/batch_matmul_check.h"
#include "ops/nn_checks.h"

enum {
  IN_COUNTER, IN_MAX, IN_TIME, IN_LIMIT, IN_OUT_LIST, IN_H, IN_C, IN_LIST,
  IN_KERNEL, IN_REC, IN_BIAS
};
enum { OUT_COUNTER, OUT_TIME, OUT_LIST, OUT_H, OUT_C };

/* ---- reordered weights ---------------------------------------------- */

static int64_t nchunks_of(int64_t units, int lanes) {
  return (units + lanes - 1) / lanes;
}

/* Chunk q of one row of [4 units] columns, reordered (lstm_seq.h):
 * 4 * lanes floats at d. */
static void chunk_cols(const float *row, int64_t units, const int *order,
                       int lanes, int64_t q, float *d) {
  int64_t n = units - q * lanes < lanes ? units - q * lanes : lanes;
  for (int g = 0; g < 4; g++, d += lanes) {
    memcpy(d, row + order[g] * units + q * lanes, sizeof(float) * (size_t)n);
    memset(d + n, 0, sizeof(float) * (size_t)(lanes - n));
  }
}

/* Each of `rows` rows of src [rows][4 units] reordered into dst
 * [rows][nchunks * 4 lanes]. */
static void reorder_cols(const float *src, int64_t rows, int64_t units,
                         const int *order, int lanes, float *dst) {
  int64_t nc = nchunks_of(units, lanes);
  for (int64_t r = 0; r < rows; r++)
    for (int64_t q = 0; q < nc; q++)
      chunk_cols(src + r * 4 * units, units, order, lanes, q,
                 dst + (r * nc + q) * 4 * lanes);
}

/* The recurrent kernel [units][4 units] reordered into chunk blocks
 * [units][4 lanes], chunk after chunk. */
static void reorder_rec(const float *src, int64_t units, const int *order,
                        int lanes, float *dst) {
  int64_t nc = nchunks_of(units, lanes);
  for (int64_t q = 0; q < nc; q++)
    for (int64_t k = 0; k < units; k++)
      chunk_cols(src + k * 4 * units, units, order, lanes, q,
                 dst + (q * units + k) * 4 * lanes);
}

typedef struct ls_state {
  int64_t out_index;
  int order[4];
  /* the constant weights reordered at prepare for `lanes` and `units`:
   * each with the tensor it came from (NULL: not prepared) */
  int lanes;
  int64_t units;
  const tfs_tensor *kt, *rt, *bt;
  tfs_gemm_packed *kp; /* kernel, packed */
  float *r, *b;
} ls_state;

static void ls_release(void *state) {
  ls_state *s = state;
  if (!s) return;
  tfs_gemm_packed_free(s->kp);
  tfs_aligned_free(s->r);
  tfs_aligned_free(s->b);
  tfs_free(s);
}

/* The units of a float kernel [depth][4 units], recurrent kernel
 * [units][4 units] (which IN_REC) or bias [4 units] (IN_BIAS); -1 when t
 * is none of these (or too large for the GEMM). */
static int64_t units_of(const tfs_tensor *t, int which) {
  if (!t || t->dtype != TFS_FLOAT) return -1;
  const tfs_shape *s = &t->shape;
  if (which == IN_BIAS)
    return s->rank == 1 && s->dims[0] % 4 == 0 ? s->dims[0] / 4 : -1;
  if (s->rank != 2 || s->dims[1] % 4 != 0 || s->dims[0] > INT32_MAX ||
      s->dims[1] > INT32_MAX / 2)
    return -1;
  int64_t u = s->dims[1] / 4;
  return which == IN_REC && s->dims[0] != u ? -1 : u;
}

/* Reorders the constant weights of one units count (those of another are
 * left to each run); memory running out leaves them to each run too. */
static void prepare_consts(tfs_kernel_init *ki, ls_state *s) {
  const tfs_tensor *t[3];
  tfs_lstm__chunk_path(&s->lanes);
  s->units = -1;
  for (int i = 0; i < 3; i++) {
    t[i] = ki->in_consts ? ki->in_consts[IN_KERNEL + i] : NULL;
    int64_t u = units_of(t[i], IN_KERNEL + i);
    if (u < 0 || (s->units >= 0 && u != s->units))
      t[i] = NULL;
    else
      s->units = u;
  }
  if (s->units <= 0) return;
  int64_t u = s->units, ld = nchunks_of(u, s->lanes) * 4 * s->lanes;
  int64_t depth = t[0] ? t[0]->shape.dims[0] : 0;
  if (depth > 0) {
    float *k = tfs_malloc(sizeof(float) * (size_t)(depth * ld));
    if (k) {
      reorder_cols(t[0]->data, depth, u, s->order, s->lanes, k);
      s->kp = tfs_gemm_pack_b_f32(0, depth, ld, k, ld);
      tfs_free(k);
      if (s->kp) s->kt = t[0];
    }
  }
  if (t[1] && (s->r = tfs_aligned_alloc(sizeof(float) * (size_t)(u * ld)))) {
    reorder_rec(t[1]->data, u, s->order, s->lanes, s->r);
    s->rt = t[1];
  }
  if (t[2] && (s->b = tfs_aligned_alloc(sizeof(float) * (size_t)ld))) {
    reorder_cols(t[2]->data, 1, u, s->order, s->lanes, s->b);
    s->bt = t[2];
  }
}

/* gate_order: a permutation of 0..3 into order. */
static int parse_gate_order(tfs_kernel_init *ki, int *order) {
  int n = 0, seen = 0;
  const int64_t *v = tfs_attrs_get_int_list(ki->attrs, "gate_order", &n);
  if (!v) return 0; /* the default, 0..3 */
  char text[128];
  size_t at = 0;
  for (int i = 0; i < n && at < sizeof text - 24; i++)
    at += (size_t)snprintf(text + at, sizeof text - at, "%s%lld",
                           i ? ", " : "", (long long)v[i]);
  text[at] = 0;
  for (int i = 0; i < n && n == 4; i++)
    if (v[i] >= 0 && v[i] < 4) seen |= 1 << v[i];
  if (n != 4 || seen != 15)
    return tfs_ki_error(ki, TFS_INVALID_ARGUMENT,
                        "gate_order must be a permutation of [0, 1, 2, 3] "
                        "(the column blocks of the input, forget, cell and "
                        "output gates), got [%s]",
                        text);
  for (int i = 0; i < 4; i++) order[i] = (int)v[i];
  return 0;
}

static int ls_prepare(tfs_kernel_init *ki) {
  int64_t oi = -1;
  tfs_attrs_get_int(ki->attrs, "output_index", &oi);
  if (oi < -1)
    return tfs_ki_error(ki, TFS_INVALID_ARGUMENT,
                        "output_index must be -1 (each step's h at its "
                        "time) or an index >= 0, got %lld",
                        (long long)oi);
  int order[4] = {0, 1, 2, 3};
  if (parse_gate_order(ki, order)) return -1;
  ls_state *s = tfs_calloc(1, sizeof(*s));
  if (!s) return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  s->out_index = oi;
  memcpy(s->order, order, sizeof order);
  prepare_consts(ki, s);
  ki->state = s;
  return 0;
}

/* ---- checks ------------------------------------------------------------- */

/* What the checks found. */
typedef struct ls_plan {
  int64_t n, time, out_index;
  tfs_tensor_list *in, *out;
  tfs_shape xs;            /* the shape of every x: [bx, depth] */
  int64_t bx, depth, rows, units, bh, bc;
  tfs_shape unset;         /* an unset element's shape, when have_unset */
  int have_unset;
} ls_plan;

/* Fails c with the message in c->st and, in parentheses, what it is
 * about. */
static int fail_about(tfs_kernel_ctx *c, const char *about) {
  tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "%s (%s)", tfs_status_message(c->st),
                about);
  return -1;
}

static int scalar_input(tfs_kernel_ctx *c, int in, const char *what,
                        int64_t *v) {
  const tfs_tensor *t = c->inputs[in];
  if (t->shape.rank != 0) {
    char s[TFS_SHAPE_STRLEN];
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "%s must be a scalar, got shape %s", what,
                  tfs_shape_str(&t->shape, s, sizeof s));
    return -1;
  }
  *v = tfs_tensor__get_as_int64(t, 0);
  return 0;
}

/* The float list input `in` holds, with list_ops.c's messages; NULL
 * after failing c. */
static tfs_tensor_list *float_list(tfs_kernel_ctx *c, int in) {
  const tfs_tensor *t = c->inputs[in];
  tfs_tensor_list *l = tfs_tensor_list_of(t);
  char s[TFS_SHAPE_STRLEN];
  if (!l && t->dtype == TFS_VARIANT && t->nelems == 1)
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Input handle is not a list. Saw: '%s'",
                  tfs_tensor__variant(t, 0)
                      ? tfs_tensor__variant(t, 0)->type->type_name
                      : "");
  else if (!l)
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Input list must be a scalar saw: %s",
                  tfs_shape_str(&t->shape, s, sizeof s));
  else if (l->element_dtype != TFS_FLOAT)
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Invalid data types; op elements float but list elements "
                  "%s",
                  tfs_dtype_name(l->element_dtype));
  else
    return l;
  return NULL;
}

/* The shape TensorListGetItem reads element t of the input list as
 * (GetItem's checks and messages; an unset element's shape is the list's
 * element shape merged with its set elements'). */
static int item_shape(tfs_kernel_ctx *c, ls_plan *p, int64_t t,
                      tfs_shape *out) {
  const tfs_tensor_list *l = p->in;
  char a[TFS_SHAPE_STRLEN], b[TFS_SHAPE_STRLEN];
  if (t < 0 || t >= l->n) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Trying to access element %lld in a list with %lld "
                  "elements.",
                  (long long)t, (long long)l->n);
    return -1;
  }
  if (l->items[t]) {
    *out = l->items[t]->shape;
    return 0;
  }
  if (!p->have_unset) {
    tfs_shape s = l->element_shape, m;
    int defined = tfs_shape_is_fully_defined(&s);
    for (int64_t i = 0; i < l->n && !defined; i++) {
      const tfs_tensor *e = l->items[i];
      if (!e) continue;
      if (tfs_shape_merge(&s, &e->shape, &m)) {
        tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                      "Incompatible shapes during merge: %s vs. %s",
                      tfs_shape_str(&s, a, sizeof a),
                      tfs_shape_str(&e->shape, b, sizeof b));
        return -1;
      }
      s = m;
    }
    if (!tfs_shape_is_fully_defined(&s)) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "Trying to read an uninitialized tensor but "
                    "element_shape is not fully defined: %s and no list "
                    "element is set.",
                    tfs_shape_str(&s, a, sizeof a));
      return -1;
    }
    p->unset = s;
    p->have_unset = 1;
  }
  *out = p->unset;
  return 0;
}

/* c against the gates [rows, units] as the loop's Mul sees it: TensorFlow's
 * broadcast error, or ours for a shape it would broadcast that this op
 * does not take.  Sets p->rows and p->bc. */
static int check_c(tfs_kernel_ctx *c, ls_plan *p, int64_t rows) {
  const tfs_shape *cs = &c->inputs[IN_C]->shape;
  tfs_shape gs, out;
  char a[TFS_SHAPE_STRLEN];
  tfs_shape_2d(&gs, rows, p->units);
  if (tfs_broadcast_shapes(&gs, cs, &out, c->st))
    return fail_about(c, "the gates vs. c");
  if (cs->rank != 2 || cs->dims[1] != p->units ||
      (cs->dims[0] != 1 && cs->dims[0] != out.dims[0])) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "c has shape %s: _TfsLstmSequence takes [%lld,%lld] or "
                  "[1,%lld]",
                  tfs_shape_str(cs, a, sizeof a), (long long)out.dims[0],
                  (long long)p->units, (long long)p->units);
    return -1;
  }
  p->rows = out.dims[0];
  p->bc = cs->dims[0];
  return 0;
}

/* The first step's ops on x of shape p->xs (element t): both products,
 * their sum, the bias, the split, c, and the next step's product. */
static int check_first(tfs_kernel_ctx *c, ls_plan *p, int64_t t) {
  const tfs_tensor *k = c->inputs[IN_KERNEL], *r = c->inputs[IN_REC];
  const tfs_tensor *h = c->inputs[IN_H];
  int64_t mx, kx, nx, mh, kh, nh;
  char about[96], a[TFS_SHAPE_STRLEN], b[TFS_SHAPE_STRLEN];
  snprintf(about, sizeof about, "In[0]: input_list element %lld, In[1]: "
           "kernel", (long long)t);
  if (tfs_matmul_check(&p->xs, &k->shape, 0, 0, &mx, &kx, &nx, c->st))
    return fail_about(c, about);
  if (tfs_matmul_check(&h->shape, &r->shape, 0, 0, &mh, &kh, &nh, c->st))
    return fail_about(c, "In[0]: h, In[1]: recurrent_kernel");
  tfs_shape xz, hz, z;
  tfs_shape_2d(&xz, mx, nx);
  tfs_shape_2d(&hz, mh, nh);
  if (tfs_broadcast_shapes(&xz, &hz, &z, c->st))
    return fail_about(c, "input_list element . kernel vs. h . "
                         "recurrent_kernel");
  if (nx != nh) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "kernel has shape %s and recurrent_kernel %s: "
                  "_TfsLstmSequence takes as many columns in both",
                  tfs_shape_str(&k->shape, a, sizeof a),
                  tfs_shape_str(&r->shape, b, sizeof b));
    return -1;
  }
  int cd;
  if (tfs_bias_add_check(&z, &c->inputs[IN_BIAS]->shape, 0, &cd, c->st))
    return fail_about(c, "bias");
  if (nx % 4 != 0) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Number of ways to split should evenly divide the split "
                  "dimension, but got split_dim 1 (size = %lld) and "
                  "num_split 4",
                  (long long)nx);
    return -1;
  }
  p->units = nx / 4;
  p->bx = mx;
  p->bh = mh;
  p->depth = kx;
  if (check_c(c, p, z.dims[0])) return -1;
  /* the next step multiplies the new h, [rows, units] */
  tfs_shape hn;
  tfs_shape_2d(&hn, p->rows, p->units);
  if (tfs_matmul_check(&hn, &r->shape, 0, 0, &mh, &kh, &nh, c->st))
    return fail_about(c, "In[0]: h after a step, In[1]: recurrent_kernel");
  if (kx > INT32_MAX || nx > INT32_MAX / 2) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "MatMul dimensions too large");
    return -1;
  }
  return 0;
}

/* Element t of shape xs, unlike the first step's x: the loop's MatMul and
 * AddV2 errors where they fail, else ours. */
static int check_later(tfs_kernel_ctx *c, const ls_plan *p, int64_t t,
                       const tfs_shape *xs) {
  char about[96], a[TFS_SHAPE_STRLEN], b[TFS_SHAPE_STRLEN];
  int64_t m, k, n;
  snprintf(about, sizeof about, "In[0]: input_list element %lld, In[1]: "
           "kernel", (long long)t);
  if (tfs_matmul_check(xs, &c->inputs[IN_KERNEL]->shape, 0, 0, &m, &k, &n,
                       c->st))
    return fail_about(c, about);
  tfs_shape xz, hz, z;
  tfs_shape_2d(&xz, m, n);
  tfs_shape_2d(&hz, p->rows, n);
  snprintf(about, sizeof about, "input_list element %lld . kernel vs. h . "
           "recurrent_kernel", (long long)t);
  if (tfs_broadcast_shapes(&xz, &hz, &z, c->st)) return fail_about(c, about);
  tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                "input_list element %lld has shape %s and element %lld %s: "
                "_TfsLstmSequence takes one shape for every step",
                (long long)t, tfs_shape_str(xs, a, sizeof a),
                (long long)p->time, tfs_shape_str(&p->xs, b, sizeof b));
  return -1;
}

/* TensorListSetItem of h at index i of the output list. */
static int check_set(tfs_kernel_ctx *c, ls_plan *p, int64_t i) {
  if (!p->out && !(p->out = float_list(c, IN_OUT_LIST))) return -1;
  const tfs_tensor_list *l = p->out;
  char a[TFS_SHAPE_STRLEN], b[TFS_SHAPE_STRLEN];
  if (i < 0 || i >= l->n) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Trying to modify element %lld in a list with %lld "
                  "elements.",
                  (long long)i, (long long)l->n);
    return -1;
  }
  tfs_shape hs, m;
  tfs_shape_2d(&hs, p->rows, p->units);
  if (tfs_shape_merge(&l->element_shape, &hs, &m)) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Tried to set item with incompatible shape. Item element "
                  "shape: %s list shape: %s",
                  tfs_shape_str(&hs, a, sizeof a),
                  tfs_shape_str(&l->element_shape, b, sizeof b));
    return -1;
  }
  return 0;
}

/* Every step's checks, in the loop's order: GetItem, the cell, SetItem. */
static int check_steps(tfs_kernel_ctx *c, ls_plan *p) {
  if (!(p->in = float_list(c, IN_LIST))) return -1;
  for (int64_t s = 0; s < p->n; s++) {
    int64_t t = p->time + s;
    tfs_shape xs;
    if (item_shape(c, p, t, &xs)) return -1;
    if (s == 0) {
      p->xs = xs;
      if (check_first(c, p, t)) return -1;
    } else if (!tfs_shape_equal(&xs, &p->xs) && check_later(c, p, t, &xs)) {
      return -1;
    }
    if ((s == 0 || p->out_index < 0) &&
        check_set(c, p, p->out_index < 0 ? t : p->out_index))
      return -1;
  }
  return 0;
}

/* ---- the weights of a run ---------------------------------------------- */

/* The prepared weights where they fit this run, else reordered into
 * scratch.  -1 after failing c. */
static int run_weights(tfs_kernel_ctx *c, const ls_state *s, const ls_plan *p,
                       int lanes, tfs_lstm_seq *w) {
  int64_t u = p->units, ld = nchunks_of(u, lanes) * 4 * lanes;
  int same = s->lanes == lanes && s->units == u;
  if (same && s->kt == c->inputs[IN_KERNEL]) {
    w->kp = s->kp;
  } else if (p->depth > 0) {
    float *k = tfs_kctx_scratch(c, sizeof(float) * (size_t)(p->depth * ld));
    if (!k) return -1;
    reorder_cols(c->inputs[IN_KERNEL]->data, p->depth, u, s->order, lanes, k);
    w->k = k;
  }
  if (same && s->rt == c->inputs[IN_REC]) {
    w->rec = s->r;
  } else {
    float *r = tfs_kctx_scratch(c, sizeof(float) * (size_t)(u * ld));
    if (!r) return -1;
    reorder_rec(c->inputs[IN_REC]->data, u, s->order, lanes, r);
    w->rec = r;
  }
  if (same && s->bt == c->inputs[IN_BIAS]) {
    w->b = s->b;
  } else {
    float *b = tfs_kctx_scratch(c, sizeof(float) * (size_t)ld);
    if (!b) return -1;
    reorder_cols(c->inputs[IN_BIAS]->data, 1, u, s->order, lanes, b);
    w->b = b;
  }
  return 0;
}

/* ---- outputs ------------------------------------------------------------ */

/* A new [rows, units] tensor set as element i of w, over `all`'s buffer
 * at `at` when all is not NULL; its data, or NULL after failing c. */
static float *new_item(tfs_kernel_ctx *c, tfs_tensor_list *w, int64_t i,
                       const tfs_shape *hs, const tfs_tensor *all,
                       float *at) {
  tfs_tensor *t;
  if (all) {
    tfs_buf__ref(all->buf);
    t = tfs_tensor__over_buf(TFS_FLOAT, hs, all->buf, at, c->st);
  } else {
    t = tfs_tensor__alloc(TFS_FLOAT, hs, c->st);
  }
  if (!t) {
    tfs_kctx_fail_status(c, c->st);
    return NULL;
  }
  tfs_tensor_list_set(w, i, t);
  return t->data;
}

/* Where each step writes h: its own element of w, all of them over one
 * buffer (one allocation); or, for a constant index, two buffers taking
 * turns, the last step's being h's output.  -1 after failing c. */
static int step_outputs(tfs_kernel_ctx *c, const ls_plan *p,
                        tfs_tensor_list *w, tfs_tensor *ho, float **hout) {
  int64_t per = p->rows * p->units;
  tfs_shape hs, as;
  tfs_shape_2d(&hs, p->rows, p->units);
  if (p->out_index >= 0) {
    float *hb = tfs_kctx_scratch(c, sizeof(float) * (size_t)per + 1);
    if (!hb) return -1;
    for (int64_t i = 0; i < p->n; i++)
      hout[i] = (p->n - 1 - i) % 2 == 0 ? (float *)ho->data : hb;
    return 0;
  }
  as.rank = 3;
  as.dims[0] = p->n;
  as.dims[1] = p->rows;
  as.dims[2] = p->units;
  tfs_tensor *all = per ? tfs_tensor__alloc(TFS_FLOAT, &as, c->st) : NULL;
  if (per && !all) {
    tfs_kctx_fail_status(c, c->st);
    return -1;
  }
  for (int64_t i = 0; i < p->n && !c->failed; i++)
    hout[i] = new_item(c, w, p->time + i, &hs, all,
                       all ? (float *)all->data + i * per : NULL);
  tfs_tensor_free(all);
  return c->failed ? -1 : 0;
}

static int scalar_output(tfs_kernel_ctx *c, int out, int64_t v) {
  tfs_shape s;
  tfs_shape_scalar(&s);
  tfs_tensor *t = tfs_kctx_alloc_output(c, out, &s);
  if (!t) return -1;
  *(int32_t *)t->data = (int32_t)v;
  return 0;
}

/* c's output, holding c's rows (broadcast); c's buffer itself when the
 * kernel holds it alone and it is not also h's. */
static float *cell_state(tfs_kernel_ctx *c, const ls_plan *p,
                         const tfs_shape *hs) {
  const tfs_tensor *ci = c->inputs[IN_C];
  int own = ci->buf != c->inputs[IN_H]->buf && tfs_shape_equal(&ci->shape, hs);
  tfs_tensor *co = own ? tfs_kctx_forward_or_alloc(c, IN_C, OUT_C, hs)
                       : tfs_kctx_alloc_output(c, OUT_C, hs);
  if (!co) return NULL;
  float *d = co->data;
  if (d != ci->data)
    for (int64_t r = 0; r < p->rows; r++)
      memcpy(d + r * p->units,
             (const float *)ci->data + (p->bc == 1 ? 0 : r * p->units),
             sizeof(float) * (size_t)p->units);
  return d;
}

/* The outputs of n > 0 checked steps, and the steps. */
static void run_steps(tfs_kernel_ctx *c, const ls_state *s, const ls_plan *p) {
  tfs_lstm_seq r;
  memset(&r, 0, sizeof r);
  r.chunk = tfs_lstm__chunk_path(&r.lanes);
  r.n = p->n;
  r.rows = p->rows;
  r.units = p->units;
  r.depth = p->depth;
  r.nchunks = nchunks_of(p->units, r.lanes);
  r.ld = r.nchunks * 4 * r.lanes;
  r.bx = p->bx;
  r.items = p->in->items + p->time;
  r.h0 = c->inputs[IN_H]->data;
  r.h0_rs = p->bh == 1 ? 0 : p->units;
  tfs_shape hs;
  tfs_shape_2d(&hs, p->rows, p->units);
  size_t hbytes = sizeof(float) * (size_t)(p->rows * p->units);
  tfs_tensor *ho = tfs_kctx_alloc_output(c, OUT_H, &hs);
  float **hout = ho ? tfs_kctx_scratch(c, sizeof(float *) * (size_t)p->n)
                    : NULL;
  if (!hout || !(r.c = cell_state(c, p, &hs))) return;
  tfs_tensor_list *w = tfs_list__writable(c, IN_OUT_LIST, OUT_LIST);
  if (!w || step_outputs(c, p, w, ho, hout)) return;
  r.hout = hout;
  if (p->rows > 0 && p->units > 0) {
    if (run_weights(c, s, p, r.lanes, &r)) return;
    tfs_lstm__run(c, &r);
    if (c->failed) return;
  }
  if (p->out_index < 0) {
    if (hbytes) memcpy(ho->data, hout[p->n - 1], hbytes);
    return;
  }
  float *last = new_item(c, w, p->out_index, &hs, NULL, NULL);
  if (last && hbytes) memcpy(last, ho->data, hbytes);
}

static void ls_compute(tfs_kernel_ctx *c) {
  static const char *const kNames[4] = {"counter", "max_iterations", "time",
                                        "time_limit"};
  const ls_state *s = c->state;
  int64_t v[4];
  for (int i = 0; i < 4; i++)
    if (scalar_input(c, IN_COUNTER + i, kNames[i], &v[i])) return;
  int64_t n = v[1] - v[0] < v[3] - v[2] ? v[1] - v[0] : v[3] - v[2];
  if (n < 0) n = 0;
  if (scalar_output(c, OUT_COUNTER, v[0] + n) ||
      scalar_output(c, OUT_TIME, v[2] + n))
    return;
  if (n == 0) { /* the loop does not run: its variables as they are */
    tfs_kctx_set_output(c, OUT_LIST, tfs_tensor_ref(c->inputs[IN_OUT_LIST]));
    tfs_kctx_set_output(c, OUT_H, tfs_tensor_ref(c->inputs[IN_H]));
    tfs_kctx_set_output(c, OUT_C, tfs_tensor_ref(c->inputs[IN_C]));
    return;
  }
  ls_plan p;
  memset(&p, 0, sizeof p);
  p.n = n;
  p.time = v[2];
  p.out_index = s->out_index;
  if (check_steps(c, &p)) return;
  run_steps(c, s, &p);
}

const tfs_kernel_def tfs_cpu_kernels_lstm_seq[] = {
    {"_TfsLstmSequence", "CPU", "T", TFS_DT_BIT(TFS_FLOAT), ls_prepare,
     ls_compute, ls_release, TFS_KERNEL_EXPENSIVE, NULL},
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL},
};
