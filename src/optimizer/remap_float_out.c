/*
 * optimizer/remap_float_out.c - the remapper's join of auto mixed
 * precision's Cast to bfloat16 into the _TfsFusedMatMulFloatOut before
 * it (out_type bfloat16; remap_util.h).
 */
#include <string.h>

#include "core/status.h"
#include "optimizer/opt_util.h"
#include "optimizer/remap_util.h"

/* _TfsFusedMatMulFloatOut v (float32 out) read only by a Cast to
 * bfloat16: auto mixed precision's Dense layer whose float32 activation
 * a bfloat16 product reads (a transformer's tanh-GELU feed-forward).
 * The Cast joins the op (out_type bfloat16): the float32 sums, bias and
 * activation are rounded once where they were stored as float32, read
 * back and rounded.  The same bits. */
int tfs_remap__float_out_cast(tfs_opt_ctx *c, int v,
                              tfs_remap_stats *stats) {
  tfs_ograph *g = c->g;
  tfs_dtype ot = TFS_FLOAT;
  if (c->cfg->tf_compatible || !tfs_og__is(g, v, "_TfsFusedMatMulFloatOut") ||
      !tfs_og__replaceable(g, v) ||
      (tfs_attrs_get_type(g->n[v].attrs, "out_type", &ot) == 0 &&
       ot != TFS_FLOAT) ||
      !tfs_opt__single_use(g, v) || g->n[v].fan[0].port != 0)
    return 0;
  int q = g->n[v].fan[0].node, trunc = 0;
  tfs_attrs_get_bool(g->n[q].attrs, "Truncate", &trunc);
  if (!tfs_og__is(g, q, "Cast") || !tfs_og__replaceable(g, q) ||
      g->n[q].nout < 1 || g->n[q].out_types[0] != TFS_BFLOAT16 || trunc ||
      strcmp(g->n[q].device, g->n[v].device) != 0)
    return 0;
  tfs_attrs a;
  if (tfs_opt__copy_attrs(g, v, &a) ||
      tfs_opt__set_type(&a, "out_type", TFS_BFLOAT16)) {
    tfs_attrs_clear(&a);
    TFS_OOM(c->st);
    return -1;
  }
  int r = tfs_remap__replace_if_kernel(c, q, "_TfsFusedMatMulFloatOut", &a,
                                       g->n[v].nin, g->n[v].in, v, -1);
  if (r == -2) return 0;
  if (r < 0) return -1;
  tfs_remap__count(stats, "_TfsFusedMatMulFloatOut+Cast -> "
                          "_TfsFusedMatMulFloatOut (bfloat16 out)");
  return 1;
}
