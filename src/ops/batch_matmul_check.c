/*
 * ops/batch_matmul_check.c - MatMul's and BatchMatMul's runtime shape
 * checks (TensorFlow's BaseBatchMatMulOp and its ValidateInputTensors),
 * shared by the CPU and the CUDA kernels.
 */
#include "ops/batch_matmul_check.h"

static int fail_pair(tfs_status *st, const char *fmt, const tfs_shape *x,
                     const tfs_shape *y) {
  char a[TFS_SHAPE_STRLEN], b[TFS_SHAPE_STRLEN];
  tfs_status_setf(st, TFS_INVALID_ARGUMENT, fmt,
                  tfs_shape_str(x, a, sizeof a), tfs_shape_str(y, b, sizeof b));
  return -1;
}

int tfs_matmul_check(const tfs_shape *a, const tfs_shape *b, int ta, int tb,
                     int64_t *m, int64_t *k, int64_t *n, tfs_status *st) {
  if (a->rank != b->rank)
    return fail_pair(st, "In[0] and In[1] has different ndims: %s vs. %s", a,
                     b);
  if (a->rank != 2) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "In[0] and In[1] ndims must be == 2: %d", a->rank);
    return -1;
  }
  *m = a->dims[ta ? 1 : 0];
  *k = a->dims[ta ? 0 : 1];
  *n = b->dims[tb ? 0 : 1];
  if (*k != b->dims[tb ? 1 : 0])
    return fail_pair(st, "Matrix size-incompatible: In[0]: %s, In[1]: %s", a,
                     b);
  return 0;
}

/* BatchMatMul (V1) allows no broadcasting: equal ranks and batch dims. */
static int check_v1(const tfs_shape *x, const tfs_shape *y, tfs_status *st) {
  if (x->rank != y->rank)
    return fail_pair(st, "In[0] and In[1] has different ndims: %s vs. %s", x,
                     y);
  if (x->rank < 2) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "In[0] and In[1] ndims must be >= 2: %d", x->rank);
    return -1;
  }
  for (int i = 0; i < x->rank - 2; i++) {
    if (x->dims[i] == y->dims[i]) continue;
    char a[TFS_SHAPE_STRLEN], b[TFS_SHAPE_STRLEN];
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "In[0].dim(%d) and In[1].dim(%d) must be the same: %s vs "
                    "%s", i, i, tfs_shape_str(x, a, sizeof a),
                    tfs_shape_str(y, b, sizeof b));
    return -1;
  }
  return 0;
}

int tfs_batch_matmul_check(const tfs_shape *x, const tfs_shape *y,
                           int version, int adj_x, int adj_y, tfs_shape *out,
                           tfs_status *st) {
  int rx = x->rank, ry = y->rank;
  if (version == 1 && check_v1(x, y, st)) return -1;
  if (rx < 2 || ry < 2) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT, "In[%d] ndims must be >= 2: %d",
                    rx < 2 ? 0 : 1, rx < 2 ? rx : ry);
    return -1;
  }
  int rb = (rx > ry ? rx : ry) - 2;
  out->rank = rb;
  for (int i = 0; i < rb; i++) {
    int ix = rx - 2 - rb + i, iy = ry - 2 - rb + i;
    int64_t dx = ix >= 0 ? x->dims[ix] : 1;
    int64_t dy = iy >= 0 ? y->dims[iy] : 1;
    if (dx != dy && dx != 1 && dy != 1)
      return fail_pair(st, "In[0] and In[1] must have compatible batch "
                       "dimensions: %s vs. %s", x, y);
    out->dims[i] = dx == 1 ? dy : dx;
  }
  int64_t m = x->dims[rx - (adj_x ? 1 : 2)];
  int64_t ka = x->dims[rx - (adj_x ? 2 : 1)];
  int64_t kb = y->dims[ry - (adj_y ? 1 : 2)];
  int64_t n = y->dims[ry - (adj_y ? 2 : 1)];
  if (ka != kb)
    return fail_pair(st, "Matrix size-incompatible: In[0]: %s, In[1]: %s", x,
                     y);
  out->dims[out->rank++] = m;
  out->dims[out->rank++] = n;
  return 0;
}
