/*
 * examples/train_digits.c - training in C, TF1 style: the digits MLP
 * (64-32-10, ReLU, softmax cross-entropy) starts from TensorFlow's own
 * checkpoint of its initial values, takes 100 steps of gradient descent
 * on fixed batches with gradients from tfs_gradients, compares every
 * step's loss and the final weights with what TensorFlow computed from
 * the same start (models/digits/train, scripts/fixtures/
 * gen_train_digits.py), then saves a V2 checkpoint with the Saver
 * (tfsess/saver.h) and restores it into a fresh session.
 *
 *   train_digits [DATA_DIR [CHECKPOINT_PREFIX]]
 *
 * With a CHECKPOINT_PREFIX the checkpoint is kept there (the fixture
 * script scripts/fixtures/check_train_digits.py restores it in
 * TensorFlow); otherwise it goes to a temporary directory removed at the
 * end.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

static void check(const char *what) {
  if (!tfs_status_ok(st)) {
    fprintf(stderr, "%s: %s\n", what, tfs_status_message(st));
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
  tfs_output x, y, loss, vars[NVARS];
  tfs_operation *train;
  tfs_saver *saver;
} model;

/* The forward pass, as gen_train_digits.py builds it. */
static void build_forward(model *m) {
  tfs_graph *g = m->g;
  m->x = tfs_op_placeholder(g, "x", TFS_UINT8, (int64_t[]){-1, 64}, 2, st);
  m->y = tfs_op_placeholder(g, "y", TFS_INT32, (int64_t[]){-1}, 1, st);
  tfs_output scaled = tfs_op_mul(g, "scale", tfs_op_cast(g, "Cast", m->x,
                                                         TFS_FLOAT, st),
                                 tfs_op_const_float(g, "scale/y",
                                                    1.0f / 16.0f, st),
                                 st);
  tfs_output read[NVARS];
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
      tfs_op_bias_add(g, "BiasAdd", tfs_op_matmul(g, "MatMul", scaled,
                                                  read[0], 0, 0, st),
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
  m->loss = tfs_op_mean(g, "loss", xent, tfs_op_const_int32(g, "axis", 0, st),
                        0, st);
  check("loss");

  /* gradients of the loss with respect to the variables' values, then
   * one ApplyGradientDescent per variable, grouped as "train" */
  tfs_output grads[NVARS];
  tfs_gradients(g, NULL, &m->loss, 1, read, NVARS, NULL, grads, st);
  check("tfs_gradients");
  /* Every update waits for every gradient (TensorFlow's optimizers gate
   * the same way): the backward pass still reads the variables, which
   * ApplyGradientDescent changes in place. */
  tfs_operation *grad_ops[NVARS];
  for (int i = 0; i < NVARS; i++) grad_ops[i] = grads[i].oper;
  tfs_operation *all = tfs_op_group(g, "train/gate", grad_ops, NVARS, st);
  for (int i = 0; i < NVARS; i++) {
    char name[64];
    snprintf(name, sizeof name, "train/gate_%d", i);
    grads[i] = tfs_op_with_dependencies(g, name, grads[i], &all, 1, st);
  }
  check("gate");
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
    tfs_op_desc_add_input(d, grads[i]);
    updates[i] = tfs_op_desc_finish(d, st);
    check(name);
  }
  m->train = tfs_op_group(g, "train", updates, NVARS, st);
  check("train");
}

/* tf.compat.v1.train.Saver over the four variables: the same save and
 * restore nodes, so checkpoints go both ways between tfsess and
 * TensorFlow. */
static void build_saver(model *m) {
  tfs_operation *vars[NVARS];
  for (int i = 0; i < NVARS; i++) vars[i] = m->vars[i].oper;
  m->saver = tfs_saver_new(m->g, vars, NVARS, NULL, st);
  check("tfs_saver_new");
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

int main(int argc, char **argv) {
  const char *dir = argc > 1 ? argv[1] : EXAMPLE_DATA_DIR;
  st = tfs_status_new();
  model m = {.g = tfs_graph_new()};
  build_forward(&m);
  build_saver(&m);
  tfs_session *s = tfs_session_new(m.g, NULL, st);
  check("session");

  char init[1024];
  snprintf(init, sizeof init, "%s/init", dir);
  tfs_saver_restore(m.saver, s, init, st);
  check("restore");
  printf("digits MLP 64-32-10, batch %d, gradient descent, learning rate "
         "%.1f\n", BATCH, kLearningRate);
  printf("initial values restored from TensorFlow's checkpoint\n");

  tfs_tensor *x = load(dir, "x_train.npy"), *y = load(dir, "y_train.npy");
  tfs_tensor *tf_loss = load(dir, "tf_loss.npy");
  const float *want = tfs_tensor_data(tf_loss);
  double worst = 0;
  for (int k = 0; k < STEPS; k++) {
    int64_t start = (int64_t)(k % NBATCH) * BATCH;
    tfs_tensor *feeds[2] = {rows(x, start, BATCH, 64, 1),
                            rows(y, start, BATCH, 1, 4)};
    tfs_output in[2] = {m.x, m.y};
    tfs_tensor *loss = NULL;
    tfs_session_run(s, in, feeds, 2, &m.loss, &loss, 1, &m.train, 1, st);
    check("training step");
    float l = *(const float *)tfs_tensor_data(loss);
    worst = fmax(worst, fabs(l - want[k]) / fabs(want[k]));
    if (k % 20 == 0 || k == STEPS - 1) printf("step %3d  loss %.3f\n", k, l);
    tfs_tensor_free(loss);
    tfs_tensor_free(feeds[0]);
    tfs_tensor_free(feeds[1]);
  }
  printf("loss %s TensorFlow's at every one of the %d steps (relative "
         "difference %s 1e-3)\n", worst < 1e-3 ? "equals" : "DIFFERS FROM",
         STEPS, worst < 1e-3 ? "below" : "above");
  double dw = compare_vars(s, &m, dir);
  printf("final weights %s TensorFlow's (within 1e-3)\n",
         dw < 1e-3 ? "equal" : "DIFFER FROM");

  /* save, then restore into a fresh session */
  char tmp[] = "/tmp/train_digits.XXXXXX", prefix[1100];
  int keep = argc > 2;
  if (keep) {
    snprintf(prefix, sizeof prefix, "%s", argv[2]);
  } else {
    if (!mkdtemp(tmp)) return 1;
    snprintf(prefix, sizeof prefix, "%s/model", tmp);
  }
  free(tfs_saver_save(m.saver, s, prefix, NULL, NULL, 0, st));
  check("save");
  tfs_session *s2 = tfs_session_new(m.g, NULL, st);
  check("second session");
  tfs_saver_restore(m.saver, s2, prefix, st);
  check("restore");
  double same = compare_vars(s2, &m, dir);
  printf("checkpoint saved and restored into a new session: %s\n",
         same == dw ? "same values" : "VALUES DIFFER");
  if (!keep) {
    char f[1200];
    snprintf(f, sizeof f, "%s.index", prefix);
    unlink(f);
    snprintf(f, sizeof f, "%s.data-00000-of-00001", prefix);
    unlink(f);
    rmdir(tmp);
  }
  tfs_session_free(s2);
  tfs_session_free(s);
  tfs_tensor_free(x);
  tfs_tensor_free(y);
  tfs_tensor_free(tf_loss);
  tfs_saver_free(m.saver);
  tfs_graph_free(m.g);
  tfs_status_free(st);
  return worst < 1e-3 && dw < 1e-3 && same == dw ? 0 : 1;
}
