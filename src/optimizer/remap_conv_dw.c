/*
 * optimizer/remap_conv_dw.c - the remapper's depthwise blocks (see
 * pass_remap.c's list): a convolution whose output only a depthwise
 * convolution reads -> _TfsFusedConv2DDepthwise; the 1x1 projection that
 * alone reads one of those, or a lone _FusedDepthwiseConv2dNative ->
 * _TfsFusedConv2DDepthwiseConv2D, _TfsFusedDepthwiseConv2DConv2D.
 */
#include <stdio.h>
#include <string.h>

#include "core/status.h"
#include "optimizer/opt_util.h"
#include "optimizer/remap_util.h"

/* A _FusedDepthwiseConv2dNative over a _FusedConv2D's output, both with a
 * bias [+ activation], NHWC, the convolution's filter a constant that
 * Winograd would not take (1x1, or strided): one op computes the
 * convolution in bands of rows that the depthwise convolution reads from
 * cache (MobileNet's and EfficientNet's expansions). */
int tfs_remap__conv_depthwise(tfs_opt_ctx *c, int v, tfs_remap_stats *stats) {
  tfs_ograph *g = c->g;
  if (c->cfg->tf_compatible || !tfs_og__live(g, v) ||
      !tfs_og__replaceable(g, v) ||
      !tfs_og__is(g, v, "_FusedDepthwiseConv2dNative") ||
      !tfs_remap__is_fusable_node(g, v) || !tfs_remap__bias_fused_nhwc(g, v))
    return 0;
  int q = tfs_remap__fusable_input(g, v, 0);
  if (q < 0 || !tfs_og__is(g, q, "_FusedConv2D") ||
      !tfs_remap__bias_fused_nhwc(g, q) || tfs_remap__has_input_affine(g, q))
    return 0;
  const tfs_tensor *f = tfs_og__const_value(g, g->n[q].in[1]);
  int n = 0;
  const int64_t *st = tfs_attrs_get_int_list(g->n[q].attrs, "strides", &n);
  if (!f || f->shape.rank != 4 || !st || n != 4 ||
      ((f->shape.dims[0] != 1 || f->shape.dims[1] != 1) && st[1] == 1 &&
       st[2] == 1))
    return 0;
  static const char *const kConv[] = {
      "T", "strides", "padding", "explicit_paddings", "data_format",
      "filter_format", "dilations", "fused_ops", "leakyrelu_alpha"};
  static const char *const kDw[] = {"strides", "padding", "explicit_paddings",
                                    "dilations", "fused_ops",
                                    "leakyrelu_alpha"};
  tfs_attrs a;
  tfs_attrs_init(&a);
  int rc = 0;
  for (size_t i = 0; i < sizeof kConv / sizeof kConv[0] && !rc; i++) {
    const tfs_attr_value *x = tfs_attrs_find(g->n[q].attrs, kConv[i]);
    tfs_attr_value cp;
    if (x) rc = tfs_attr_value_copy(&cp, x) || tfs_attrs_set(&a, kConv[i], &cp);
  }
  for (size_t i = 0; i < sizeof kDw / sizeof kDw[0] && !rc; i++) {
    const tfs_attr_value *x = tfs_attrs_find(g->n[v].attrs, kDw[i]);
    char name[40];
    snprintf(name, sizeof name, "dw_%s", kDw[i]);
    tfs_attr_value cp;
    if (x) rc = tfs_attr_value_copy(&cp, x) || tfs_attrs_set(&a, name, &cp);
  }
  if (rc) {
    tfs_attrs_clear(&a);
    TFS_OOM(c->st);
    return -1;
  }
  tfs_oref in[5] = {g->n[q].in[0], g->n[q].in[1], g->n[q].in[2],
                    g->n[v].in[1], g->n[v].in[2]};
  int r = tfs_remap__replace_if_kernel(c, v, "_TfsFusedConv2DDepthwise", &a,
                                       5, in, q, -1);
  if (r == -2) return 0;
  if (r < 0) return -1;
  tfs_remap__count(stats, "_FusedConv2D+_FusedDepthwiseConv2dNative -> "
                          "_TfsFusedConv2DDepthwise");
  return 1;
}

/* Node q's attributes for _TfsFusedDepthwiseConv2DConv2D: T and
 * data_format as they are, the depthwise convolution's with a dw_ prefix.
 * 0, or -1 when memory runs out (a cleared). */
static int dw_prefixed_attrs(const tfs_ograph *g, int q, tfs_attrs *a) {
  static const char *const kDw[] = {"strides", "padding", "explicit_paddings",
                                    "dilations", "fused_ops",
                                    "leakyrelu_alpha"};
  static const char *const kSame[] = {"T", "data_format"};
  tfs_attrs_init(a);
  for (int k = 0; k < 8; k++) {
    const char *name = k < 6 ? kDw[k] : kSame[k - 6];
    const tfs_attr_value *x = tfs_attrs_find(g->n[q].attrs, name);
    if (!x) continue;
    char full[40];
    snprintf(full, sizeof full, "%s%s", k < 6 ? "dw_" : "", name);
    tfs_attr_value cp;
    if (tfs_attr_value_copy(&cp, x) || tfs_attrs_set(a, full, &cp)) {
      tfs_attrs_clear(a);
      return -1;
    }
  }
  return 0;
}

/* A float _FusedConv2D v, NHWC, with a constant 1x1 filter, strides and
 * dilations 1, no padding, and fused_ops ["BiasAdd"] or ["BiasAdd",
 * "Add"] (the residual sum), over the output of a
 * _TfsFusedConv2DDepthwise, or of a _FusedDepthwiseConv2dNative (NHWC,
 * bias [+ act]), read by v alone: one op whose bands of depthwise rows go
 * through the projection while they are in cache (MobileNetV2's inverted
 * residual blocks, MobileNetV1's separable convolutions, MobileNetV3's
 * first block: the depthwise output never goes to memory). */
int tfs_remap__conv_depthwise_project(tfs_opt_ctx *c, int v,
                                      tfs_remap_stats *stats) {
  tfs_ograph *g = c->g;
  if (c->cfg->tf_compatible || !tfs_og__live(g, v) ||
      !tfs_og__replaceable(g, v) || !tfs_og__is(g, v, "_FusedConv2D") ||
      !tfs_remap__is_float_node(g, v) || tfs_remap__has_input_affine(g, v))
    return 0;
  const int nops = tfs_remap__fused_bias_only(g, v);
  int64_t nargs = -1, host = 0;
  tfs_attrs_get_int(g->n[v].attrs, "num_args", &nargs);
  tfs_attrs_get_int(g->n[v].attrs, "num_host_args", &host);
  if (!nops || nargs != nops || host != 0 || g->n[v].nin != 2 + nops ||
      tfs_opt__attr_is(g, v, "data_format", "NCHW") ||
      tfs_opt__attr_is(g, v, "padding", "EXPLICIT") ||
      (tfs_attrs_find(g->n[v].attrs, "filter_format") &&
       !tfs_opt__attr_is(g, v, "filter_format", "HWIO")))
    return 0;
  int q = tfs_remap__fusable_input(g, v, 0);
  const int alone = q >= 0 && tfs_og__is(g, q, "_FusedDepthwiseConv2dNative");
  if (q < 0 || !tfs_remap__is_float_node(g, q) ||
      (!alone && !tfs_og__is(g, q, "_TfsFusedConv2DDepthwise")) ||
      (alone && !tfs_remap__bias_fused_nhwc(g, q)))
    return 0;
  const tfs_tensor *f = tfs_og__const_value(g, g->n[v].in[1]);
  int n = 0, nd = 0;
  const int64_t *st = tfs_attrs_get_int_list(g->n[v].attrs, "strides", &n);
  const int64_t *dl = tfs_attrs_get_int_list(g->n[v].attrs, "dilations", &nd);
  if (!f || f->dtype != TFS_FLOAT || f->shape.rank != 4 ||
      f->shape.dims[0] != 1 || f->shape.dims[1] != 1 || !st || n != 4)
    return 0;
  for (int i = 0; i < 4; i++)
    if (st[i] != 1 || (dl && nd == 4 && dl[i] != 1)) return 0;
  tfs_attrs a;
  static const char *const kOps[2] = {"BiasAdd", "Add"};
  int rc = alone ? dw_prefixed_attrs(g, q, &a) : tfs_opt__copy_attrs(g, q, &a);
  if (rc || tfs_opt__set_strings(&a, "pw_fused_ops", kOps, nops) ||
      tfs_opt__set_int(&a, "num_pw_args", nops - 1)) {
    tfs_attrs_clear(&a);
    TFS_OOM(c->st);
    return -1;
  }
  /* the depthwise (or expansion + depthwise) inputs, then the
   * projection's filter, bias [, addend] */
  const int nq = alone ? 3 : 5;
  tfs_oref in[8];
  memcpy(in, g->n[q].in, sizeof(tfs_oref) * (size_t)nq);
  in[nq] = g->n[v].in[1];
  in[nq + 1] = g->n[v].in[2];
  if (nops == 2) in[nq + 2] = g->n[v].in[3];
  const char *op = alone ? "_TfsFusedDepthwiseConv2DConv2D"
                         : "_TfsFusedConv2DDepthwiseConv2D";
  int r = tfs_remap__replace_if_kernel(c, v, op, &a, nq + 1 + nops, in, q,
                                       -1);
  if (r == -2) return 0;
  if (r < 0) return -1;
  tfs_remap__count(stats, alone ? "_FusedDepthwiseConv2dNative+_FusedConv2D "
                                  "-> _TfsFusedDepthwiseConv2DConv2D"
                                : "_TfsFusedConv2DDepthwise+_FusedConv2D -> "
                                  "_TfsFusedConv2DDepthwiseConv2D");
  return 1;
}
