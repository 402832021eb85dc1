/*
 * ops/batch_matmul_check.h - the runtime shape checks of MatMul and
 * BatchMatMul (V1, V2, V3) with TensorFlow 2.21's messages, and their
 * output shapes; called by the CPU and the CUDA kernels alike.
 */
#ifndef TFS_OPS_BATCH_MATMUL_CHECK_H
#define TFS_OPS_BATCH_MATMUL_CHECK_H

#include "core/shape.h"
#include "core/status.h"

/* MatMul's operands a and b (op(a) = a^T when ta, op(b) likewise): both
 * 2-D, op(a)'s columns equal to op(b)'s rows.  TensorFlow 2.21 runs MatMul
 * through its batch-matmul kernel, whose messages these are.  Fills m, k
 * and n; returns 0, or -1 with INVALID_ARGUMENT in st:
 *   "In[0] and In[1] has different ndims: [3] vs. [3,2]"
 *   "In[0] and In[1] ndims must be == 2: 3"
 *   "Matrix size-incompatible: In[0]: [2,3], In[1]: [2,3]" */
int tfs_matmul_check(const tfs_shape *a, const tfs_shape *b, int ta, int tb,
                     int64_t *m, int64_t *k, int64_t *n, tfs_status *st);

/* BatchMatMul of `version` 1 (equal batch dims), 2 or 3 (batch dims
 * broadcast) on x and y with adj_x, adj_y: the output shape (the batch
 * dims, then m and n) into out.  Returns 0, or -1 with INVALID_ARGUMENT:
 *   V1: "In[0] and In[1] has different ndims: [3] vs. [2,4,2]",
 *       "In[0] and In[1] ndims must be >= 2: 1",
 *       "In[0].dim(0) and In[1].dim(0) must be the same: [2,2,3] vs
 *        [3,3,2]";
 *   V2, V3: "In[0] ndims must be >= 2: 1", "In[1] ndims must be >= 2: 1",
 *       "In[0] and In[1] must have compatible batch dimensions: [2,2,3]
 *        vs. [3,3,2]";
 *   all: "Matrix size-incompatible: In[0]: [2,2,3], In[1]: [2,4,2]". */
int tfs_batch_matmul_check(const tfs_shape *x, const tfs_shape *y,
                           int version, int adj_x, int adj_y, tfs_shape *out,
                           tfs_status *st);

#endif
