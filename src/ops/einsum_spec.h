/*
 * ops/einsum_spec.h - Einsum equations ("bij,bjk->bik", "...ij,...jk->
 * ...ik"): parsing into label lists and resolving labels against input
 * shapes (dims, ellipsis broadcasting) with TensorFlow's messages.  Shared
 * by Einsum's shape function and its CPU kernel.
 */
#ifndef TFS_OPS_EINSUM_SPEC_H
#define TFS_OPS_EINSUM_SPEC_H

#include "core/shape.h"
#include "core/status.h"

#define TFS_EINSUM_MAX_LABELS (2 * TFS_MAX_RANK + TFS_MAX_RANK)
#define TFS_EINSUM_ELLIPSIS (-1)

typedef struct tfs_einsum_term {
  int n;                       /* subscripts, the ellipsis counting one */
  int labels[2 * TFS_MAX_RANK];/* label ids, or TFS_EINSUM_ELLIPSIS */
  int has_ellipsis;
} tfs_einsum_term;

typedef struct tfs_einsum_spec {
  int ninputs;                 /* 1 or 2 */
  tfs_einsum_term in[2];
  tfs_einsum_term out;
  int nlabels;                 /* distinct named labels, ids 0..n-1 */
  char names[TFS_EINSUM_MAX_LABELS];
} tfs_einsum_spec;

/* Parses `eq` for `ninputs` inputs.  Returns 0 or -1 (INVALID_ARGUMENT). */
int tfs_einsum_parse(const char *eq, size_t len, int ninputs,
                     tfs_einsum_spec *s, tfs_status *st);

/* Resolved against input shapes: every named label's dim, the broadcast
 * shape of the ellipsis dims, and each input expanded to full labels
 * (ellipsis dims get ids nlabels + k, k counting within the broadcast
 * ellipsis shape). */
typedef struct tfs_einsum_dims {
  int64_t label_dim[TFS_EINSUM_MAX_LABELS]; /* -1 unknown */
  int nell;                                 /* rank of the ellipsis */
  int in_rank[2];
  int in_labels[2][TFS_MAX_RANK];           /* per input axis */
  int out_rank;
  int out_labels[TFS_MAX_RANK];
} tfs_einsum_dims;

/* Inputs may have unknown dims (-1) but must have known ranks.  Messages
 * are the kernel's ("Expected dimension 3 at axis 0 of the input shaped
 * [2,3] but got dimension 2"), or with `shape_fn` set shape inference's
 * ("Dimensions must be equal, but are 3 and 2").  Returns 0 or -1
 * (INVALID_ARGUMENT). */
int tfs_einsum_resolve(const tfs_einsum_spec *s, const tfs_shape *const *in,
                       int shape_fn, tfs_einsum_dims *d, tfs_status *st);

#endif
