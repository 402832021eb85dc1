/*
 * optimizer/const_eval.h - evaluating a node on constant inputs through
 * its CPU kernel (constant folding).
 */
#ifndef TFS_OPTIMIZER_CONST_EVAL_H
#define TFS_OPTIMIZER_CONST_EVAL_H

#include "optimizer/opt_graph.h"

/* Runs node i of g on `inputs` (one per data input, borrowed).  Returns a
 * new array of its outputs (free with tfs_optimizer__free_outputs), or
 * NULL with the kernel's error (or "No OpKernel was registered...").
 * max_bytes > 0: an output over that many bytes fails before it is
 * allocated (RESOURCE_EXHAUSTED). */
tfs_tensor **tfs_optimizer__eval(const tfs_ograph *g, int i,
                                 tfs_tensor *const *inputs, int64_t max_bytes,
                                 tfs_status *st);
void tfs_optimizer__free_outputs(tfs_tensor **outs, int n);

#endif
