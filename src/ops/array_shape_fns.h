/*
 * ops/array_shape_fns.h - shape functions of the array ops that are too
 * long to sit next to the op table in ops_array.c (slicing, padding,
 * gathering, scattering, rearranging, Einsum), and the partial-shape
 * helpers they share.  Messages are TensorFlow's shape-inference ones.
 */
#ifndef TFS_OPS_ARRAY_SHAPE_FNS_H
#define TFS_OPS_ARRAY_SHAPE_FNS_H

#include "ops/shape_ctx.h"

/* Merges two partial shapes with TensorFlow's messages ("Shapes must be
 * equal rank, but are 2 and 1", "Dimension 1 in both shapes must be
 * equal, but are 3 and 2. Shapes are [2,3] and [2,2]."). */
int tfs_sc_merge_shapes(tfs_shape_ctx *c, const tfs_shape *a,
                        const tfs_shape *b, tfs_shape *out);

/* Dim i of s (negative counts from the end), -1 when unknown. */
int64_t tfs_sc_dim(const tfs_shape *s, int i);

int tfs_shape_fn_concat(tfs_shape_ctx *c);        /* Concat, ConcatV2 */
int tfs_shape_fn_pack(tfs_shape_ctx *c);
int tfs_shape_fn_unpack(tfs_shape_ctx *c);
int tfs_shape_fn_split(tfs_shape_ctx *c);
int tfs_shape_fn_split_v(tfs_shape_ctx *c);
int tfs_shape_fn_slice(tfs_shape_ctx *c);
int tfs_shape_fn_strided_slice(tfs_shape_ctx *c);
int tfs_shape_fn_pad(tfs_shape_ctx *c);           /* Pad, PadV2, MirrorPad */
int tfs_shape_fn_tile(tfs_shape_ctx *c);
int tfs_shape_fn_broadcast_to(tfs_shape_ctx *c);
int tfs_shape_fn_gather_v2(tfs_shape_ctx *c);
int tfs_shape_fn_gather(tfs_shape_ctx *c);        /* Gather (V1) */
int tfs_shape_fn_gather_nd(tfs_shape_ctx *c);
int tfs_shape_fn_scatter_nd(tfs_shape_ctx *c);
/* TensorFlow's ScatterNdShapeHelper: indices ix [..., k] and updates up
 * must fit output shape out (ScatterNd, TensorScatter*); 0 or -1 with
 * its message. */
int tfs_sc_scatter_nd_check(tfs_shape_ctx *c, const tfs_shape *ix,
                            const tfs_shape *up, const tfs_shape *out);
int tfs_shape_fn_one_hot(tfs_shape_ctx *c);
int tfs_shape_fn_transpose(tfs_shape_ctx *c);
int tfs_shape_fn_space_to_batch(tfs_shape_ctx *c);
int tfs_shape_fn_batch_to_space(tfs_shape_ctx *c);
int tfs_shape_fn_depth_to_space(tfs_shape_ctx *c);
int tfs_shape_fn_space_to_depth(tfs_shape_ctx *c);
int tfs_shape_fn_resize(tfs_shape_ctx *c);
int tfs_shape_fn_einsum(tfs_shape_ctx *c);
int tfs_shape_fn_range(tfs_shape_ctx *c);
int tfs_shape_fn_top_k(tfs_shape_ctx *c);

#endif
