/*
 * tests/device/gpu_bench.c - the GPU benchmark of scripts/gpu-check: the
 * MLP 784-512-512-10 (batch 1, 256) and the CNN (conv-BN-ReLU-pool x3,
 * dense; batch 1, 32) of bench/models.py, with random weights, run through
 * sessions: one placed on GPU:0 (the plan copies the feed in and the fetch
 * out and synchronizes the GPU per run) and a CPU-only one.  Prints one
 * JSON line per (model, device) with the median and 90th percentile of
 * tfs_session_run in microseconds and the copies per run, and the NMSE
 * between the GPU's and the CPU's outputs.
 *
 *   gpu_bench [SECONDS_PER_CASE]     (exits 77 without a GPU)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/status.h"
#include "core/util.h"
#include "device/device.h"
#include "tfsess/tfsess.h"

#define MAX_SAMPLES 2000

static uint64_t g_rng = 42;

static float randn(void) {
  double u1, u2;
  do {
    g_rng = g_rng * 6364136223846793005ull + 1442695040888963407ull;
    u1 = (double)(g_rng >> 11) / (double)(1ull << 53);
  } while (u1 <= 1e-12);
  g_rng = g_rng * 6364136223846793005ull + 1442695040888963407ull;
  u2 = (double)(g_rng >> 11) / (double)(1ull << 53);
  return (float)(sqrt(-2 * log(u1)) * cos(6.283185307179586 * u2));
}

static tfs_tensor *rand_floats(const int64_t *dims, int nd, float scale,
                               float offset) {
  tfs_status *st = tfs_status_new();
  tfs_tensor *t = tfs_tensor_new(TFS_FLOAT, dims, nd, st);
  tfs_status_free(st);
  float *p = tfs_tensor_data(t);
  for (int64_t i = 0; i < tfs_tensor_num_elements(t); i++)
    p[i] = offset + scale * randn();
  return t;
}

static tfs_output konst(tfs_graph *g, const char *name, tfs_tensor *t,
                        tfs_status *st) {
  tfs_output o = tfs_op_const(g, name, t, st);
  tfs_tensor_free(t);
  return o;
}

static tfs_output node(tfs_graph *g, const char *op, const char *name,
                       const tfs_output *in, int n, tfs_status *st) {
  tfs_op_desc *d = tfs_op_desc_new(g, op, name);
  for (int i = 0; i < n; i++) tfs_op_desc_add_input(d, in[i]);
  return (tfs_output){tfs_op_desc_finish(d, st), 0};
}

static tfs_graph *mlp(tfs_output *x, tfs_output *y, tfs_status *st) {
  tfs_graph *g = tfs_graph_new();
  int64_t xd[2] = {-1, 784};
  *x = tfs_op_placeholder(g, "x", TFS_FLOAT, xd, 2, st);
  static const int64_t sizes[4] = {784, 512, 512, 10};
  tfs_output h = *x;
  for (int i = 0; i < 3; i++) {
    char nm[32];
    int64_t wd[2] = {sizes[i], sizes[i + 1]}, bd[1] = {sizes[i + 1]};
    snprintf(nm, sizeof nm, "w%d", i);
    tfs_output w = konst(g, nm, rand_floats(wd, 2, 1 / sqrtf((float)sizes[i]),
                                            0), st);
    snprintf(nm, sizeof nm, "b%d", i);
    tfs_output b = konst(g, nm, rand_floats(bd, 1, 0.01f, 0), st);
    tfs_output mm[2] = {h, w};
    snprintf(nm, sizeof nm, "mm%d", i);
    tfs_output m = node(g, "MatMul", nm, mm, 2, st);
    tfs_output ba[2] = {m, b};
    snprintf(nm, sizeof nm, "bias%d", i);
    h = node(g, "BiasAdd", nm, ba, 2, st);
    if (i < 2) {
      snprintf(nm, sizeof nm, "relu%d", i);
      h = node(g, "Relu", nm, &h, 1, st);
    }
  }
  *y = node(g, "Softmax", "probs", &h, 1, st);
  return g;
}

static tfs_output conv_block(tfs_graph *g, tfs_output h, int i, int64_t a,
                             int64_t b, tfs_status *st) {
  char nm[32];
  int64_t kd[4] = {3, 3, a, b}, cd[1] = {b};
  snprintf(nm, sizeof nm, "k%d", i);
  tfs_output k = konst(g, nm, rand_floats(kd, 4, 1 / sqrtf(9.0f * a), 0), st);
  tfs_output in[2] = {h, k};
  snprintf(nm, sizeof nm, "conv%d", i);
  tfs_op_desc *d = tfs_op_desc_new(g, "Conv2D", nm);
  tfs_op_desc_add_input(d, in[0]);
  tfs_op_desc_add_input(d, in[1]);
  int64_t ones[4] = {1, 1, 1, 1};
  tfs_op_desc_set_attr_int_list(d, "strides", ones, 4);
  tfs_op_desc_set_attr_string(d, "padding", "SAME", 4);
  tfs_output c = {tfs_op_desc_finish(d, st), 0};
  tfs_output bn[5] = {c};
  static const char *const kBn[4] = {"scale", "offset", "mean", "var"};
  for (int j = 0; j < 4; j++) {
    snprintf(nm, sizeof nm, "%s%d", kBn[j], i);
    float scale = j == 3 ? 0.05f : 0.1f, off = (j == 0 || j == 3) ? 1 : 0;
    bn[j + 1] = konst(g, nm, rand_floats(cd, 1, scale, off), st);
  }
  if (!bn[4].oper) return bn[4];
  snprintf(nm, sizeof nm, "bn%d", i);
  d = tfs_op_desc_new(g, "FusedBatchNormV3", nm);
  for (int j = 0; j < 5; j++) tfs_op_desc_add_input(d, bn[j]);
  tfs_op_desc_set_attr_float(d, "epsilon", 1e-3f);
  tfs_op_desc_set_attr_bool(d, "is_training", 0);
  tfs_output n = {tfs_op_desc_finish(d, st), 0};
  snprintf(nm, sizeof nm, "relu%d", i);
  tfs_output r = node(g, "Relu", nm, &n, 1, st);
  snprintf(nm, sizeof nm, "pool%d", i);
  d = tfs_op_desc_new(g, "MaxPool", nm);
  tfs_op_desc_add_input(d, r);
  int64_t win[4] = {1, 2, 2, 1};
  tfs_op_desc_set_attr_int_list(d, "ksize", win, 4);
  tfs_op_desc_set_attr_int_list(d, "strides", win, 4);
  tfs_op_desc_set_attr_string(d, "padding", "VALID", 5);
  return (tfs_output){tfs_op_desc_finish(d, st), 0};
}

static tfs_graph *cnn(tfs_output *x, tfs_output *y, tfs_status *st) {
  tfs_graph *g = tfs_graph_new();
  int64_t xd[4] = {-1, 32, 32, 3};
  *x = tfs_op_placeholder(g, "x", TFS_FLOAT, xd, 4, st);
  static const int64_t chans[4] = {3, 32, 64, 128};
  tfs_output h = *x;
  for (int i = 0; i < 3 && tfs_status_ok(st); i++)
    h = conv_block(g, h, i, chans[i], chans[i + 1], st);
  int32_t shape[2] = {-1, 4 * 4 * 128};
  int64_t two = 2;
  tfs_tensor *sh = tfs_tensor_new_copy(TFS_INT32, &two, 1, shape,
                                       sizeof shape, st);
  tfs_output s = konst(g, "flat_shape", sh, st);
  tfs_output rs = tfs_op_reshape(g, "flat", h, s, st);
  int64_t wd[2] = {2048, 10}, bd[1] = {10};
  tfs_output w = konst(g, "wd", rand_floats(wd, 2, 1 / sqrtf(2048), 0), st);
  tfs_output b = konst(g, "bd", rand_floats(bd, 1, 0.01f, 0), st);
  tfs_output mm[2] = {rs, w};
  tfs_output m = node(g, "MatMul", "dense", mm, 2, st);
  tfs_output ba[2] = {m, b};
  tfs_output z = node(g, "BiasAdd", "logits", ba, 2, st);
  *y = node(g, "Softmax", "probs", &z, 1, st);
  return g;
}

static int cmp_d(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Times session runs for `seconds`; the last output goes to *out. */
static int time_runs(tfs_session *s, tfs_output x, tfs_tensor *feed,
                     tfs_output fetch, double seconds, double *median,
                     double *p90, int *runs, tfs_tensor **out,
                     tfs_status *st) {
  static double us[MAX_SAMPLES];
  for (int i = 0; i < 5; i++) { /* warm-up: plan, allocator, cuDNN choices */
    tfs_tensor_free(*out);
    *out = NULL;
    tfs_session_run(s, &x, &feed, 1, &fetch, out, 1, NULL, 0, st);
    if (!tfs_status_ok(st)) return -1;
  }
  int n = 0;
  int64_t start = tfs_now_ns();
  while (n < MAX_SAMPLES &&
         (n < 10 || (double)(tfs_now_ns() - start) < seconds * 1e9)) {
    tfs_tensor_free(*out);
    *out = NULL;
    int64_t t0 = tfs_now_ns();
    tfs_session_run(s, &x, &feed, 1, &fetch, out, 1, NULL, 0, st);
    if (!tfs_status_ok(st)) return -1;
    us[n++] = (double)(tfs_now_ns() - t0) / 1e3;
  }
  qsort(us, (size_t)n, sizeof us[0], cmp_d);
  *runs = n + 5;
  *median = us[n / 2];
  *p90 = us[(n * 9) / 10];
  return 0;
}

static double nmse(const tfs_tensor *a, const tfs_tensor *b) {
  const float *x = tfs_tensor_data(a), *y = tfs_tensor_data(b);
  double e = 0, n = 0;
  for (int64_t i = 0; i < tfs_tensor_num_elements(b); i++) {
    e += ((double)x[i] - y[i]) * ((double)x[i] - y[i]);
    n += (double)y[i] * y[i];
  }
  return n > 0 ? e / n : e;
}

/* A session over g: its default devices (GPU:0 preferred), or with
 * device_count {"GPU": 0} (CPU only). */
static tfs_session *session_on(tfs_graph *g, int gpu, tfs_status *st) {
  static const uint8_t kNoGpu[9] = {0x0a, 0x07, 0x0a, 0x03, 'G', 'P', 'U',
                                    0x10, 0x00};
  tfs_session_options *o = tfs_session_options_new();
  if (!gpu) tfs_session_options_set_config(o, kNoGpu, sizeof kNoGpu, st);
  tfs_session *s = tfs_status_ok(st) ? tfs_session_new(g, o, st) : NULL;
  tfs_session_options_free(o);
  return s;
}

static int bench(const char *name, tfs_graph *(*build)(tfs_output *,
                                                       tfs_output *,
                                                       tfs_status *),
                 const int64_t *xdims, int nd, double seconds) {
  tfs_status *st = tfs_status_new();
  tfs_output x, y;
  tfs_graph *g = build(&x, &y, st);
  tfs_tensor *feed = rand_floats(xdims, nd, 1, 0);
  tfs_tensor *outs[2] = {NULL, NULL};
  int rc = tfs_status_ok(st) ? 0 : -1;
  for (int dev = 0; dev < 2 && rc == 0; dev++) {
    tfs_session *s = session_on(g, dev == 0, st);
    double med = 0, p90 = 0;
    int runs = 1;
    int64_t d0, h0, d1, h1;
    tfs_device__copy_counts(&d0, &h0);
    if (!s || time_runs(s, x, feed, y, seconds, &med, &p90, &runs,
                        &outs[dev], st)) {
      rc = -1;
    } else {
      tfs_device__copy_counts(&d1, &h1);
      printf("{\"model\": \"%s\", \"device\": \"%s\", \"median_us\": "
             "%.1f, \"p90_us\": %.1f, \"copies_per_run\": %.1f}\n", name,
             dev == 0 ? "GPU" : "CPU", med, p90,
             (double)((d1 - d0) + (h1 - h0)) / runs);
    }
    tfs_session_free(s);
  }
  if (rc == 0)
    printf("{\"model\": \"%s\", \"gpu_vs_cpu_nmse\": %.3g}\n", name,
           nmse(outs[0], outs[1]));
  else
    fprintf(stderr, "gpu_bench: %s: %s\n", name, tfs_status_message(st));
  tfs_tensor_free(outs[0]);
  tfs_tensor_free(outs[1]);
  tfs_tensor_free(feed);
  tfs_graph_free(g);
  tfs_status_free(st);
  return rc;
}

int main(int argc, char **argv) {
  double seconds = argc > 1 ? atof(argv[1]) : 2.0;
  tfs_status *st = tfs_status_new();
  tfs_device_set *ds = tfs_device_set__new(NULL, st);
  tfs_device *gpu = ds ? tfs_device_set__find(ds, "/device:GPU:0") : NULL;
  if (!gpu) {
    printf("gpu_bench: no GPU on this machine: skipped\n");
    tfs_device_set__free(ds);
    tfs_status_free(st);
    return 77;
  }
  printf("{\"gpu\": \"%s\"}\n", gpu->desc);
  tfs_device_set__free(ds);
  tfs_status_free(st);
  int64_t m1[2] = {1, 784}, m256[2] = {256, 784};
  int64_t c1[4] = {1, 32, 32, 3}, c32[4] = {32, 32, 32, 3};
  int rc = bench("mlp_b1", mlp, m1, 2, seconds) |
           bench("mlp_b256", mlp, m256, 2, seconds) |
           bench("cnn_b1", cnn, c1, 4, seconds) |
           bench("cnn_b32", cnn, c32, 4, seconds);
  return rc ? 1 : 0;
}
