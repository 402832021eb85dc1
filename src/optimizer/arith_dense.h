/*
 * optimizer/arith_dense.h - the arithmetic optimizer's dense layers
 * written as batched products (arith_dense.c): a BatchMatMul by a constant
 * matrix as a MatMul between Reshapes, and a constant bias added after a
 * Reshape that splits the last dimension as a BiasAdd before it.
 */
#ifndef TFS_OPTIMIZER_ARITH_DENSE_H
#define TFS_OPTIMIZER_ARITH_DENSE_H

#include "optimizer/optimizer.h"

/* BatchMatMulV2 | BatchMatMul v of x (rank >= 3, adj_x false, dims known
 * but perhaps the first) by a constant matrix -> Reshape(MatMul(Reshape(x,
 * [-1, k]), W), x's dims with the last n) under v's name.  Returns 1 when
 * rewritten, 0 when not applicable, -1 on an error (in c->st). */
int tfs_arith__bmm_dense(tfs_opt_ctx *c, int v);

/* AddV2 | Add v of Reshape(t) (read there alone, splitting t's last
 * dimension into the constant c's dims) and c -> Reshape(BiasAdd(t, c
 * flattened)) under v's name.  Returns as tfs_arith__bmm_dense. */
int tfs_arith__bias_split(tfs_opt_ctx *c, int v);

#endif
