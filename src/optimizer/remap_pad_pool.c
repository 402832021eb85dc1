/*
 * optimizer/remap_pad_pool.c - the remapper's fold of a constant padding
 * into the max pool that alone reads it (Keras's ZeroPadding2D before the
 * first pool of ResNet and DenseNet):
 *
 *   MaxPool(Pad(x, paddings) | PadV2(x, paddings, value)), float, NHWC,
 *   VALID, paddings constant, zero on the batch and the channels and each
 *   below the window on its axis
 *       -> MaxPool(x) with padding EXPLICIT, explicit_paddings [0, 0, top,
 *          bottom, left, right, 0, 0] and _tfs_pad_value (Pad: 0)
 *
 * An EXPLICIT pool skips its padding; with _tfs_pad_value the kernel
 * reads each padded position as the value, in the order a VALID pool
 * visits the padded image (backends/cpu/pool.c), so the values are the
 * two ops' bits, while the padded copy (as large as the image) is neither
 * written nor read again.  tfsess-only: not in a graph that must load in
 * TensorFlow.
 */
#include <string.h>

#include "core/status.h"
#include "optimizer/opt_util.h"
#include "optimizer/remap_util.h"

/* The [4, 2] int32 or int64 constant at r into pads[8]; 0 when r is
 * not one. */
static int const_paddings(const tfs_ograph *g, tfs_oref r, int64_t *pads) {
  const tfs_tensor *t = tfs_og__const_value(g, r);
  if (!t || t->nelems != 8 || t->shape.rank != 2 || t->shape.dims[0] != 4 ||
      (t->dtype != TFS_INT32 && t->dtype != TFS_INT64))
    return 0;
  for (int i = 0; i < 8; i++)
    pads[i] = t->dtype == TFS_INT32 ? ((const int32_t *)t->data)[i]
                                    : ((const int64_t *)t->data)[i];
  return 1;
}

/* PadV2's constant_values: a float constant of one element, in *v. */
static int const_value(const tfs_ograph *g, tfs_oref r, float *v) {
  const tfs_tensor *t = tfs_og__const_value(g, r);
  if (!t || t->dtype != TFS_FLOAT || t->nelems != 1) return 0;
  *v = ((const float *)t->data)[0];
  return 1;
}

/* The MaxPool v's window [1, kh, kw, 1] with strides of four values, in
 * kv; 0 otherwise. */
static int pool_window(const tfs_ograph *g, int v, int64_t *kv) {
  const tfs_attr_value *k = tfs_attrs_find(g->n[v].attrs, "ksize");
  const tfs_attr_value *s = tfs_attrs_find(g->n[v].attrs, "strides");
  if (!k || !s || !k->is_list || !s->is_list || k->u.list.n != 4 ||
      s->u.list.n != 4)
    return 0;
  memcpy(kv, k->u.list.v, 4 * sizeof(int64_t));
  return kv[0] == 1 && kv[3] == 1 && kv[1] >= 1 && kv[2] >= 1;
}

int tfs_remap__pad_maxpool(tfs_opt_ctx *c, int v, tfs_remap_stats *stats) {
  tfs_ograph *g = c->g;
  if (c->cfg->tf_compatible || !tfs_og__live(g, v) ||
      !tfs_og__replaceable(g, v) || !tfs_og__is(g, v, "MaxPool") ||
      !tfs_remap__is_float_node(g, v) ||
      tfs_opt__attr_is(g, v, "data_format", "NCHW") ||
      tfs_opt__attr_is(g, v, "data_format", "NCHW_VECT_C") ||
      !tfs_opt__attr_is(g, v, "padding", "VALID") ||
      tfs_attrs_find(g->n[v].attrs, "_tfs_pad_value"))
    return 0;
  int p = tfs_remap__fusable_input(g, v, 0);
  if (p < 0 || (!tfs_og__is(g, p, "Pad") && !tfs_og__is(g, p, "PadV2")))
    return 0;
  const int v2 = tfs_og__is(g, p, "PadV2");
  int64_t pads[8], kv[4];
  float value = 0.0f;
  if (g->n[p].nin != 2 + v2 || !const_paddings(g, g->n[p].in[1], pads) ||
      (v2 && !const_value(g, g->n[p].in[2], &value)) || !pool_window(g, v, kv))
    return 0;
  /* only height and width padded, each side below the window (the
   * EXPLICIT pool's own rule) */
  if (pads[0] || pads[1] || pads[6] || pads[7]) return 0;
  for (int i = 2; i < 6; i++)
    if (pads[i] < 0 || pads[i] >= kv[i < 4 ? 1 : 2]) return 0;
  const int64_t explicit_pads[8] = {0, 0, pads[2], pads[3],
                                    pads[4], pads[5], 0, 0};
  tfs_attrs a;
  if (tfs_opt__copy_attrs(g, v, &a) ||
      tfs_opt__set_string(&a, "padding", "EXPLICIT") ||
      tfs_opt__set_ints(&a, "explicit_paddings", explicit_pads, 8) ||
      tfs_opt__set_float(&a, "_tfs_pad_value", value)) {
    tfs_attrs_clear(&a);
    TFS_OOM(c->st);
    return -1;
  }
  tfs_oref in[1] = {g->n[p].in[0]};
  int r = tfs_remap__replace_if_kernel(c, v, "MaxPool", &a, 1, in, p, -1);
  if (r == -2) return 0;
  if (r < 0) return -1;
  tfs_remap__count(stats, "Pad+MaxPool -> MaxPool (padding as values)");
  return 1;
}
