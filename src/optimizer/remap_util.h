/*
 * optimizer/remap_util.h - the remapper's building blocks: a matched
 * contraction chain, the rewrite into a fused node (with batch norms
 * folded into constant filters), batch-norm decomposition, and the
 * per-pattern counts the report prints.
 */
#ifndef TFS_OPTIMIZER_REMAP_UTIL_H
#define TFS_OPTIMIZER_REMAP_UTIL_H

#include "optimizer/optimizer.h"

enum { TFS_REMAP_BIAS, TFS_REMAP_BN };
enum { TFS_REMAP_MATMUL, TFS_REMAP_CONV, TFS_REMAP_DEPTHWISE };

typedef struct tfs_remap_match {
  int root;        /* the last node: its name survives */
  int act;         /* activation node, or -1 */
  int mid;         /* BiasAdd or FusedBatchNorm */
  int contraction; /* MatMul, Conv2D or DepthwiseConv2dNative */
  int kind;        /* TFS_REMAP_BIAS / _BN */
  int op;          /* TFS_REMAP_MATMUL / ... */
} tfs_remap_match;

#define TFS_REMAP_MAX_PATTERNS 24

typedef struct tfs_remap_stats {
  int n;
  char what[TFS_REMAP_MAX_PATTERNS][112];
  int count[TFS_REMAP_MAX_PATTERNS];
} tfs_remap_stats;

void tfs_remap__count(tfs_remap_stats *s, const char *what);

/* Replaces `root` by a new node (root's name, device, and the control
 * inputs of root and of the inner nodes a and b, which may be -1), then
 * removes the inner nodes left unused.  attrs are consumed. */
int tfs_remap__replace(tfs_opt_ctx *c, int root, const char *op,
                       tfs_attrs *attrs, int nin, const tfs_oref *in, int a,
                       int b);

/* The batch norm's scale/offset/mean/variance and the contraction's
 * filter are float constants. */
int tfs_remap__bn_constant(const tfs_ograph *g, const tfs_remap_match *m);

/* Rewrites a matched chain; returns 1, or -1 on error. */
int tfs_remap__fuse_contraction(tfs_opt_ctx *c, const tfs_remap_match *m,
                                tfs_remap_stats *stats);

/* Inference batch norm v with constant statistics -> x * s + o; returns
 * 1 when rewritten, 0 when not applicable, -1 on error. */
int tfs_remap__decompose_bn(tfs_opt_ctx *c, int v, tfs_remap_stats *stats);

#endif
