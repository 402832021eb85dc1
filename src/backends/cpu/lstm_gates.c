/*
 * backends/cpu/lstm_gates.c - _TfsLstmGates(z, c_prev) -> (h, c): the
 * gates of a Keras LSTM cell after its products, the subgraph
 *
 *   i, f, g, o = Split(z, 4, axis 1)
 *   c = Sigmoid(f) * c_prev + Sigmoid(i) * Tanh(g)
 *   h = Sigmoid(o) * Tanh(c)
 *
 * in one pass over each row of the gates, where the ten ops of the
 * subgraph each wrote a tensor (optimizer/remap_lstm.c makes the op).
 * The activations are the Sigmoid and Tanh kernels' (vmath.h) and the
 * products and sum are rounded as the Mul and AddV2 kernels round them,
 * so the results are the subgraph's bits.  c_prev broadcasts against the
 * [batch, units] gates as Mul broadcasts it.
 */
#include <string.h>

#include "core/alloc.h"
#include "core/util.h"
#include "backends/cpu/cpu_tables.h"
#include "backends/cpu/elementwise.h"
#include "backends/cpu/vmath.h"

typedef struct {
  const float *z, *cp;
  float *act, *h, *c;
  int64_t units, len;      /* units per gate; the output's last dim */
  int rank;                /* of the output */
  int64_t dims[TFS_MAX_RANK];
  int64_t sg[TFS_MAX_RANK], sc[TFS_MAX_RANK]; /* strides in the output */
} gates_job;

/* Rows [b, e) of the gates: sigmoid of i and f, tanh of g, sigmoid of o,
 * in z's layout. */
static void act_rows(void *arg, int64_t b, int64_t e) {
  const gates_job *j = arg;
  int64_t u = j->units;
  for (int64_t r = b; r < e; r++) {
    const float *z = j->z + r * 4 * u;
    float *a = j->act + r * 4 * u;
    tfs_vm_sigmoid_f32(z, a, 2 * u);
    tfs_vm_tanh_f32(z + 2 * u, a + 2 * u, u);
    tfs_vm_sigmoid_f32(z + 3 * u, a + 3 * u, u);
  }
}

/* Output rows [b, e) (every dimension but the last), for any
 * broadcast. */
static void out_rows(void *arg, int64_t b, int64_t e) {
  const gates_job *j = arg;
  int r = j->rank;
  int64_t u = j->units, len = j->len;
  int64_t gl = j->sg[r - 1], cl = j->sc[r - 1];
  for (int64_t q = b; q < e; q++) {
    int64_t og = 0, oc = 0, rest = q;
    for (int d = r - 2; d >= 0; d--) {
      int64_t x = rest % j->dims[d];
      rest /= j->dims[d];
      og += x * j->sg[d];
      oc += x * j->sc[d];
    }
    float *c = j->c + q * len, *h = j->h + q * len;
    const float *a = j->act + og, *cp = j->cp + oc;
    for (int64_t k = 0; k < len; k++) {
      float fc = a[u + k * gl] * cp[k * cl];
      float ig = a[k * gl] * a[2 * u + k * gl];
      c[k] = fc + ig;
    }
    tfs_vm_tanh_f32(c, h, len);
    for (int64_t k = 0; k < len; k++) h[k] = a[3 * u + k * gl] * h[k];
  }
}

/* Strides of the gates ([rows, units], rows 4 * units apart in act)
 * and of c_prev (contiguous) along each dimension of the output, 0 where
 * they broadcast. */
static void set_strides(gates_job *j, int64_t rows, const tfs_shape *cs) {
  int r = j->rank, off = r - cs->rank;
  memset(j->sg, 0, sizeof j->sg);
  j->sg[r - 1] = j->units == 1 ? 0 : 1;
  j->sg[r - 2] = rows == 1 ? 0 : 4 * j->units;
  int64_t st = 1;
  for (int d = r - 1; d >= 0; d--) {
    int sd = d - off;
    j->sc[d] = sd < 0 || cs->dims[sd] == 1 ? 0 : st;
    if (sd >= 0) st *= cs->dims[sd];
  }
}

static void gates_compute(tfs_kernel_ctx *c) {
  const tfs_tensor *z = c->inputs[0], *cp = c->inputs[1];
  char sb[TFS_SHAPE_STRLEN];
  if (z->shape.rank != 2) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "z must be 2-dimensional, got shape %s",
                  tfs_shape_str(&z->shape, sb, sizeof sb));
    return;
  }
  int64_t rows = z->shape.dims[0], width = z->shape.dims[1];
  if (width % 4 != 0) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Number of ways to split should evenly divide the split "
                  "dimension, but got split_dim 1 (size = %lld) and "
                  "num_split 4",
                  (long long)width);
    return;
  }
  tfs_shape gs = {.rank = 2, .dims = {rows, width / 4}}, os;
  if (tfs_broadcast_shapes(&gs, &cp->shape, &os, c->st)) {
    tfs_kctx_fail_status(c, c->st);
    return;
  }
  gates_job j;
  memset(&j, 0, sizeof j);
  j.units = width / 4;
  j.rank = os.rank;
  memcpy(j.dims, os.dims, sizeof(int64_t) * (size_t)os.rank);
  j.len = os.dims[os.rank - 1];
  int64_t n = tfs_shape_num_elements(&os);
  int same = tfs_shape_equal(&os, &cp->shape);
  /* c may take c_prev's buffer: each element is read before written */
  tfs_tensor *ct = same ? tfs_kctx_forward_or_alloc(c, 1, 1, &os)
                        : tfs_kctx_alloc_output(c, 1, &os);
  tfs_tensor *ht = ct ? tfs_kctx_alloc_output(c, 0, &os) : NULL;
  if (!ht || n == 0) return;
  size_t abytes = sizeof(float) * (size_t)(rows * width);
  j.act = tfs_kctx_scratch(c, abytes + 64);
  if (!j.act) return;
  j.z = z->data;
  j.cp = cp->data; /* ct's when forwarded: the same buffer */
  j.c = ct->data;
  j.h = ht->data;
  set_strides(&j, rows, &cp->shape);
  /* about 2 ns an element for the vector sigmoid and tanh and the
   * products (AVX2, measured: 8 x 512 gates in ~2 us): a batch-8 step is
   * not worth waking a second thread for */
  tfs_kctx_parallel_for(c, rows, 2 * width, act_rows, &j);
  tfs_kctx_parallel_for(c, n / (j.len ? j.len : 1), 2 * j.len, out_rows,
                        &j);
}

const tfs_kernel_def tfs_cpu_kernels_lstm_gates[] = {
    {"_TfsLstmGates", "CPU", "T", TFS_DT_BIT(TFS_FLOAT), NULL, gates_compute,
     NULL, 0, NULL},
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL},
};
