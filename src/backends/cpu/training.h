/*
 * backends/cpu/training.h - what the dense (training.c) and sparse
 * (training_sparse.c) optimizer update kernels share: the update rules
 * over contiguous elements of every dtype TensorFlow's CPU kernels take,
 * and the variable handling (ref or resource inputs, locking, copy on
 * write, TensorFlow's messages).
 */
#ifndef TFS_BACKENDS_CPU_TRAINING_H
#define TFS_BACKENDS_CPU_TRAINING_H

#include "backends/cpu/cpu_tables.h"

typedef enum {
  TFS_TR_GD,         /* var -= alpha * delta */
  TFS_TR_MOMENTUM,   /* accum = accum * momentum + grad; var -= ... */
  TFS_TR_KERAS_MOM,  /* accum = accum * momentum - grad * lr; var += ... */
  TFS_TR_ADAGRAD,    /* accum += grad^2; var -= lr * grad / sqrt(accum) */
  TFS_TR_ADAGRAD_V2, /* ... / (sqrt(accum) + epsilon) */
  TFS_TR_RMSPROP,
  TFS_TR_ADAM,
  TFS_TR_AMSGRAD
} tfs_train_algo;

/* One op's description, the kernel def's data. */
typedef struct {
  tfs_train_algo algo;
  int resource;        /* resource inputs, else refs with a ref output */
  int nvars;           /* variable and slots: inputs [0, nvars) */
  int grad;            /* the gradient's input index */
  int sparse;          /* indices at grad + 1 */
  unsigned lr_space;   /* bit i: scalar input i says "is not a scalar :" */
} tfs_train_desc;

/* One update over `n` contiguous elements: v[0] the variable, v[1..] the
 * slots, g the gradient, k the scalar hyperparameters in input order. */
typedef struct {
  tfs_train_algo algo;
  tfs_dtype dtype;
  int nesterov;
  int update_slots;
  int row1;            /* sparse Adagrad on rows of one element */
  void *v[4];
  const void *g;
  const void *k[6];
  int nk;
} tfs_train_step;

/* Applies s over elements [0, n).  -1 when the dtype has no such rule. */
int tfs_train__apply(const tfs_train_step *s, int64_t n);

/* The variables of one op run, locked. */
typedef struct {
  int n;
  tfs_variable *vars[4];
  tfs_tensor *vals[4]; /* the values being updated, written in place */
  int nlocked;
  tfs_variable *locked[4];
} tfs_train_vars;

/* Per-node state: the attrs, the inputs' names from the op definition
 * and, for ref forms, the ref inputs as the NodeDef names them (messages
 * quote them). */
typedef struct {
  const tfs_train_desc *d;
  int nesterov;
  int update_slots;
  int ninputs;
  const char *arg_names[12];
  char ref_names[4][160];
} tfs_train_state;

int tfs_train__prepare(tfs_kernel_init *ki);
void tfs_train__release(void *state);

/* Finds and locks the variables (every op locks: use_locking's exclusive
 * update is always what tfsess does), checks they are initialised with
 * TensorFlow's messages and makes each value private to the variable so
 * it can be written in place.  Returns 0, or -1 after failing c (nothing
 * left locked). */
int tfs_train__acquire(tfs_kernel_ctx *c, const tfs_train_state *s,
                       tfs_train_vars *tv);

/* Makes each value private to its variable (a copy when a reader holds
 * it), so the update may write it in place; after the checks, under the
 * locks.  Returns 0 or -1 after failing c. */
int tfs_train__make_private(tfs_kernel_ctx *c, tfs_train_vars *tv);

/* Unlocks; for ref forms, sets the ref output to the variable. */
void tfs_train__release_vars(tfs_kernel_ctx *c, const tfs_train_state *s,
                             tfs_train_vars *tv);

/* Checks every scalar hyperparameter input (TensorFlow's "lr is not a
 * scalar: [2]").  Returns 0 or -1 after failing c. */
int tfs_train__check_scalars(tfs_kernel_ctx *c, const tfs_train_state *s);

/* Fills the step's scalars from the inputs. */
void tfs_train__step_init(tfs_kernel_ctx *c, const tfs_train_state *s,
                          tfs_train_step *st);

#define TFS_TRAIN_TYPES                                               \
  (TFS_DT_FLOATS | TFS_DT_BIT(TFS_COMPLEX64) | TFS_DT_BIT(TFS_COMPLEX128))

#endif
