/*
 * examples/mpi_train_digits.c - data-parallel training over MPI, as
 * Horovod does it: the digits MLP of examples/train_digits.c trained on
 * every rank of an MPI job, each rank on its contiguous share of every
 * global batch of 64 rows, the gradients averaged over the ranks
 * (HorovodGroupedAllreduce: one fused allreduce per step) and the
 * initial variables broadcast from rank 0 (HorovodBroadcast, as
 * hvd.broadcast_global_variables(0) builds it).  Rank 0 restores
 * TensorFlow's checkpoint of the initial values; the other ranks start
 * from zeros and get rank 0's values from the broadcast.  Every rank
 * then compares its final weights with TensorFlow's single-process run
 * over the same global batches (models/digits/train).
 *
 *   mpirun -np 2 mpi_train_digits [DATA_DIR]
 *
 * The number of ranks must divide 64.  Without mpirun it trains as one
 * rank (the collectives of a one-rank job change nothing).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tfsess/tfsess.h>

#ifndef EXAMPLE_DATA_DIR
#define EXAMPLE_DATA_DIR "models/digits/train"
#endif

enum { NVARS = 4, STEPS = 100, BATCH = 64, NBATCH = 10 };
static const float kLearningRate = 0.5f;
static const char *const kNames[NVARS] = {"dense/kernel", "dense/bias",
                                          "logits/kernel", "logits/bias"};
static const int64_t kDims[NVARS][2] = {{64, 32}, {32, 0}, {32, 10}, {10, 0}};
static const int kRanks[NVARS] = {2, 1, 2, 1};

static tfs_status *st;
static int rank, size;

static void check(const char *what) {
  if (!tfs_status_ok(st)) {
    fprintf(stderr, "rank %d: %s: %s\n", rank, what, tfs_status_message(st));
    exit(1);
  }
}

static tfs_tensor *load(const char *dir, const char *file) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", dir, file);
  tfs_tensor *t = tfs_npy_read(path, st);
  check(path);
  return t;
}

typedef struct model {
  tfs_graph *g;
  tfs_output x, y, loss, global_loss, vars[NVARS];
  tfs_operation *train, *zero_init, *broadcast;
  tfs_saver *saver;
} model;

/* One Horovod collective node over `in` with the attrs Horovod sets. */
static tfs_output allreduce_average(tfs_graph *g, const char *name,
                                    tfs_output in) {
  tfs_op_desc *d = tfs_op_desc_new(g, "HorovodAllreduce", name);
  tfs_op_desc_add_input(d, in);
  tfs_op_desc_set_attr_int(d, "reduce_op", 0); /* Average */
  tfs_op_desc_set_attr_float(d, "prescale_factor", 1.0f);
  tfs_op_desc_set_attr_float(d, "postscale_factor", 1.0f);
  tfs_output out = {tfs_op_desc_finish(d, st), 0};
  check(name);
  return out;
}

/* The forward pass and the loss, as train_digits builds them. */
static tfs_output build_loss(model *m, tfs_output read[NVARS]) {
  tfs_graph *g = m->g;
  m->x = tfs_op_placeholder(g, "x", TFS_UINT8, (int64_t[]){-1, 64}, 2, st);
  m->y = tfs_op_placeholder(g, "y", TFS_INT32, (int64_t[]){-1}, 1, st);
  tfs_output scaled = tfs_op_mul(
      g, "scale", tfs_op_cast(g, "Cast", m->x, TFS_FLOAT, st),
      tfs_op_const_float(g, "scale/y", 1.0f / 16.0f, st), st);
  for (int i = 0; i < NVARS; i++) {
    char name[64];
    m->vars[i] = tfs_op_variable(g, kNames[i], TFS_FLOAT, kDims[i],
                                 kRanks[i], st);
    snprintf(name, sizeof name, "%s/read", kNames[i]);
    read[i] = tfs_op_identity(g, name, m->vars[i], st);
  }
  check("variables");
  tfs_output h = tfs_op_unary(
      g, "Relu", "dense/Relu",
      tfs_op_bias_add(g, "BiasAdd",
                      tfs_op_matmul(g, "MatMul", scaled, read[0], 0, 0, st),
                      read[1], st),
      st);
  tfs_output logits = tfs_op_bias_add(
      g, "logits", tfs_op_matmul(g, "MatMul_1", h, read[2], 0, 0, st),
      read[3], st);
  tfs_op_desc *d = tfs_op_desc_new(g, "SparseSoftmaxCrossEntropyWithLogits",
                                   "xent");
  tfs_op_desc_add_input(d, logits);
  tfs_op_desc_add_input(d, m->y);
  tfs_output xent = {tfs_op_desc_finish(d, st), 0};
  check("forward pass");
  tfs_output loss = tfs_op_mean(g, "loss", xent,
                                tfs_op_const_int32(g, "axis", 0, st), 0, st);
  check("loss");
  return loss;
}

/* Gradients of this rank's loss, averaged over the ranks in one
 * HorovodGroupedAllreduce (hvd.DistributedOptimizer with one group),
 * then one ApplyGradientDescent per variable. */
static void build_train(model *m, tfs_output read[NVARS]) {
  tfs_graph *g = m->g;
  tfs_output grads[NVARS], avg[NVARS];
  tfs_gradients(g, NULL, &m->loss, 1, read, NVARS, NULL, grads, st);
  check("tfs_gradients");
  tfs_op_desc *d = tfs_op_desc_new(g, "HorovodGroupedAllreduce",
                                   "DistributedGradientDescent/allreduce");
  tfs_op_desc_add_input_list(d, grads, NVARS);
  tfs_op_desc_set_attr_int(d, "reduce_op", 0); /* Average */
  tfs_op_desc_set_attr_float(d, "prescale_factor", 1.0f);
  tfs_op_desc_set_attr_float(d, "postscale_factor", 1.0f);
  tfs_operation *group = tfs_op_desc_finish(d, st);
  check("HorovodGroupedAllreduce");
  for (int i = 0; i < NVARS; i++) avg[i] = (tfs_output){group, i};
  tfs_output lr = tfs_op_const_float(g, "train/learning_rate", kLearningRate,
                                     st);
  tfs_operation *updates[NVARS];
  for (int i = 0; i < NVARS; i++) {
    char name[96];
    snprintf(name, sizeof name, "train/update_%s/ApplyGradientDescent",
             kNames[i]);
    d = tfs_op_desc_new(g, "ApplyGradientDescent", name);
    tfs_op_desc_add_input(d, m->vars[i]);
    tfs_op_desc_add_input(d, lr);
    tfs_op_desc_add_input(d, avg[i]);
    updates[i] = tfs_op_desc_finish(d, st);
    check(name);
  }
  m->train = tfs_op_group(g, "train", updates, NVARS, st);
  check("train");
}

/* Zeros for every variable (the ranks other than 0 start there) and
 * hvd.broadcast_global_variables(0): Assign(v, HorovodBroadcast(v)). */
static void build_init(model *m) {
  tfs_graph *g = m->g;
  tfs_operation *zero[NVARS], *bcast[NVARS];
  for (int i = 0; i < NVARS; i++) {
    char name[96];
    tfs_tensor *zeros = tfs_tensor_new(TFS_FLOAT, kDims[i], kRanks[i], st);
    check("zeros");
    snprintf(name, sizeof name, "zeros/%s", kNames[i]);
    tfs_output z = tfs_op_const(g, name, zeros, st);
    tfs_tensor_free(zeros);
    snprintf(name, sizeof name, "zeros/%s/Assign", kNames[i]);
    zero[i] = tfs_op_assign(g, name, m->vars[i], z, st).oper;
    snprintf(name, sizeof name, "broadcast_global_variables/%s", kNames[i]);
    tfs_op_desc *d = tfs_op_desc_new(g, "HorovodBroadcast", name);
    tfs_op_desc_add_input(d, m->vars[i]);
    tfs_op_desc_set_attr_int(d, "root_rank", 0);
    tfs_output b = {tfs_op_desc_finish(d, st), 0};
    check(name);
    snprintf(name, sizeof name, "broadcast_global_variables/%s/Assign",
             kNames[i]);
    bcast[i] = tfs_op_assign(g, name, m->vars[i], b, st).oper;
  }
  check("initializers");
  m->zero_init = tfs_op_group(g, "zeros", zero, NVARS, st);
  m->broadcast = tfs_op_group(g, "broadcast_global_variables", bcast, NVARS,
                              st);
  check("initializer groups");
}

static tfs_tensor *rows(const tfs_tensor *t, int64_t start, int64_t n,
                        int64_t width, size_t elem) {
  int64_t dims[2] = {n, width};
  tfs_tensor *r = tfs_tensor_new_copy(
      tfs_tensor_dtype(t), dims, width > 1 ? 2 : 1,
      (const char *)tfs_tensor_data(t) + start * width * elem,
      (size_t)(n * width) * elem, st);
  check("batch");
  return r;
}

/* Largest |a - b| over the variables against TensorFlow's final values. */
static double compare_vars(tfs_session *s, model *m, const char *dir) {
  char path[1024];
  snprintf(path, sizeof path, "%s/tf_final.npz", dir);
  tfs_npz *z = tfs_npz_read(path, st);
  check(path);
  double worst = 0;
  for (int i = 0; i < NVARS; i++) {
    char key[64];
    snprintf(key, sizeof key, "%s", kNames[i]);
    for (char *c = key; *c; c++)
      if (*c == '/') *c = '_';
    tfs_tensor *want = tfs_npz_find(z, key), *got = NULL;
    tfs_session_run(s, NULL, NULL, 0, &m->vars[i], &got, 1, NULL, 0, st);
    check(kNames[i]);
    const float *a = tfs_tensor_data(got), *b = tfs_tensor_data(want);
    for (int64_t k = 0; k < tfs_tensor_num_elements(got); k++)
      worst = fmax(worst, fabs((double)a[k] - b[k]));
    tfs_tensor_free(got);
  }
  tfs_npz_free(z);
  return worst;
}

/* The training steps; returns the largest relative difference of the
 * averaged loss from TensorFlow's. */
static double train(tfs_session *s, model *m, const char *dir) {
  tfs_tensor *x = load(dir, "x_train.npy"), *y = load(dir, "y_train.npy");
  tfs_tensor *tf_loss = load(dir, "tf_loss.npy");
  const float *want = tfs_tensor_data(tf_loss);
  int64_t share = BATCH / size;
  double worst = 0;
  for (int k = 0; k < STEPS; k++) {
    int64_t start = (int64_t)(k % NBATCH) * BATCH + rank * share;
    tfs_tensor *feeds[2] = {rows(x, start, share, 64, 1),
                            rows(y, start, share, 1, 4)};
    tfs_output in[2] = {m->x, m->y};
    tfs_tensor *loss = NULL;
    tfs_session_run(s, in, feeds, 2, &m->global_loss, &loss, 1, &m->train,
                    1, st);
    check("training step");
    float l = *(const float *)tfs_tensor_data(loss);
    worst = fmax(worst, fabs(l - want[k]) / fabs(want[k]));
    if (rank == 0 && (k % 20 == 0 || k == STEPS - 1))
      printf("step %3d  loss %.3f\n", k, l);
    tfs_tensor_free(loss);
    tfs_tensor_free(feeds[0]);
    tfs_tensor_free(feeds[1]);
  }
  tfs_tensor_free(x);
  tfs_tensor_free(y);
  tfs_tensor_free(tf_loss);
  return worst;
}

int main(int argc, char **argv) {
  const char *dir = argc > 1 ? argv[1] : EXAMPLE_DATA_DIR;
  st = tfs_status_new();
  if (tfs_mpi_launched()) {
    tfs_mpi_init(st);
    check("tfs_mpi_init");
  }
  rank = tfs_mpi_rank();
  size = tfs_mpi_size();
  if (BATCH % size != 0) {
    if (rank == 0)
      fprintf(stderr, "%d ranks do not divide the batch of %d rows\n", size,
              BATCH);
    tfs_mpi_finalize();
    tfs_status_free(st);
    return 1;
  }
  model m = {.g = tfs_graph_new()};
  tfs_output read[NVARS];
  m.loss = build_loss(&m, read);
  m.global_loss = allreduce_average(m.g, "loss/average", m.loss);
  build_train(&m, read);
  build_init(&m);
  tfs_operation *vars[NVARS];
  for (int i = 0; i < NVARS; i++) vars[i] = m.vars[i].oper;
  m.saver = tfs_saver_new(m.g, vars, NVARS, NULL, st);
  check("tfs_saver_new");
  tfs_session *s = tfs_session_new(m.g, NULL, st);
  check("session");

  if (rank == 0) {
    char init[1024];
    snprintf(init, sizeof init, "%s/init", dir);
    tfs_saver_restore(m.saver, s, init, st);
    check("restore");
  } else {
    tfs_session_run(s, NULL, NULL, 0, NULL, NULL, 0, &m.zero_init, 1, st);
    check("zeros");
  }
  tfs_session_run(s, NULL, NULL, 0, NULL, NULL, 0, &m.broadcast, 1, st);
  check("broadcast_global_variables");
  if (rank == 0)
    printf("digits MLP 64-32-10 on %d rank%s, global batch %d (%d rows per "
           "rank), gradients averaged by HorovodGroupedAllreduce\n",
           size, size == 1 ? "" : "s", BATCH, BATCH / size);

  double dl = train(s, &m, dir);
  double dw = compare_vars(s, &m, dir);
  int ok = dl < 1e-3 && dw < 1e-4;
  if (!ok)
    fprintf(stderr, "rank %d: loss differs by %g (relative), weights by "
            "%g from TensorFlow's single-process run\n", rank, dl, dw);
  if (rank == 0) {
    printf("averaged loss %s TensorFlow's at every one of the %d steps\n",
           dl < 1e-3 ? "equals" : "DIFFERS FROM", STEPS);
    printf("final weights on every rank %s TensorFlow's single-process "
           "run (within 1e-4)\n", dw < 1e-4 ? "equal" : "DIFFER FROM");
  }
  tfs_session_free(s);
  tfs_saver_free(m.saver);
  tfs_graph_free(m.g);
  tfs_status_free(st);
  tfs_mpi_finalize();
  return ok ? 0 : 1;
}
