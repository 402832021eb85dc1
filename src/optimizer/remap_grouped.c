/*
 * optimizer/remap_grouped.c - the remapper's grouped convolutions with
 * one input channel a group (Keras 3's Conv2D(groups=channels), which
 * ConvNeXt uses for its 7x7 depthwise layers):
 *
 *   Conv2D(x [n, h, w, C], filter [kh, kw, 1, C * m]), NHWC
 *       -> DepthwiseConv2dNative(x, filter as [kh, kw, C, m])
 *
 * Output channel o of such a convolution reads input channel o / m with
 * filter column o; the depthwise convolution's output channel c * m + k
 * reads channel c with filter [.., c, k], the same position in memory, so
 * the filter keeps its bytes and the two ops compute the same sums in the
 * same order.  The depthwise kernels (and their fusions after this pass)
 * run each channel's taps as vectors over channels where the grouped
 * convolution runs one small product per group.  The filter is a new
 * constant of the new shape, or a Reshape when it is computed.  Both ops
 * are TensorFlow's (whose CPU kernel takes no grouped convolution), so the
 * rewrite stands in a graph that must load in TensorFlow too.
 */
#include <string.h>

#include "core/status.h"
#include "core/tensor.h"
#include "optimizer/opt_util.h"
#include "optimizer/remap_util.h"

/* The filter as [kh, kw, c, m]: a new constant when the filter is one, a
 * Reshape of it otherwise.  The new node's index, or -1 with an error. */
static int reshaped_filter(tfs_opt_ctx *c, int v, const int64_t dims[4]) {
  tfs_ograph *g = c->g;
  const tfs_oref f = g->n[v].in[1];
  const char *device = g->n[v].device;
  tfs_shape s = {.rank = 4};
  memcpy(s.dims, dims, 4 * sizeof(int64_t));
  const tfs_tensor *fv = tfs_og__const_value(g, f);
  if (fv) {
    tfs_tensor *t = tfs_opt__tensor(fv->dtype, &s, c->st);
    if (!t) return -1;
    memcpy(t->data, fv->data, fv->nbytes);
    int k = tfs_opt__const(c, t, "Remapper/depthwise_filter", device);
    tfs_tensor_free(t);
    return k;
  }
  int k = tfs_opt__int32_const(c, dims, 4, "Remapper/depthwise_filter_shape",
                               device);
  if (k < 0) return -1;
  tfs_attrs a;
  tfs_attrs_init(&a);
  if (tfs_opt__set_type(&a, "T", tfs_og__dtype(g, f)) ||
      tfs_opt__set_type(&a, "Tshape", TFS_INT32)) {
    tfs_attrs_clear(&a);
    TFS_OOM(c->st);
    return -1;
  }
  tfs_oref in[2] = {f, {k, 0}};
  tfs_onode_spec spec = {.base = "Remapper/depthwise_filter",
                         .op = "Reshape",
                         .device = device,
                         .attrs = &a,
                         .nin = 2,
                         .in = in};
  return tfs_og__add(g, &spec, c->st);
}

int tfs_remap__grouped_depthwise(tfs_opt_ctx *c, int v,
                                 tfs_remap_stats *stats) {
  tfs_ograph *g = c->g;
  if (!tfs_og__live(g, v) || !tfs_og__replaceable(g, v) ||
      !tfs_og__is(g, v, "Conv2D") || g->n[v].nin != 2)
    return 0;
  /* NHWC, the layout the CPU's depthwise kernels and fusions take */
  if (tfs_opt__attr_is(g, v, "data_format", "NCHW")) return 0;
  const tfs_shape *xs = tfs_og__shape(g, g->n[v].in[0]);
  const tfs_shape *fs = tfs_og__shape(g, g->n[v].in[1]);
  if (xs->rank != 4 || fs->rank != 4) return 0;
  const int64_t ch = xs->dims[3];
  /* one input channel a group, more than one group, every dim known */
  if (ch <= 1 || fs->dims[2] != 1 || fs->dims[0] <= 0 || fs->dims[1] <= 0 ||
      fs->dims[3] <= 0 || fs->dims[3] % ch != 0)
    return 0;
  const int64_t dims[4] = {fs->dims[0], fs->dims[1], ch, fs->dims[3] / ch};
  static const char *const kKeep[] = {"T", "strides", "padding",
                                      "explicit_paddings", "data_format",
                                      "dilations"};
  tfs_attrs a;
  tfs_attrs_init(&a);
  for (size_t i = 0; i < sizeof kKeep / sizeof kKeep[0]; i++) {
    const tfs_attr_value *x = tfs_attrs_find(g->n[v].attrs, kKeep[i]);
    tfs_attr_value cp;
    if (x &&
        (tfs_attr_value_copy(&cp, x) || tfs_attrs_set(&a, kKeep[i], &cp))) {
      tfs_attrs_clear(&a);
      TFS_OOM(c->st);
      return -1;
    }
  }
  const tfs_op_def *def = tfs_op_lookup("DepthwiseConv2dNative");
  if (!def || !tfs_opt__has_kernel(g->n[v].device, def, &a, g->n[v].name)) {
    tfs_attrs_clear(&a);
    return 0;
  }
  int k = reshaped_filter(c, v, dims);
  if (k < 0) {
    tfs_attrs_clear(&a);
    return -1;
  }
  const int old_filter = g->n[v].in[1].node;
  tfs_oref in[2] = {g->n[v].in[0], {k, 0}};
  if (tfs_opt__rebuild(c, v, "DepthwiseConv2dNative", &a, 2, in) < 0)
    return -1;
  tfs_og__kill_unused(g, old_filter);
  tfs_remap__count(stats, "grouped Conv2D -> DepthwiseConv2dNative");
  return 1;
}
