/*
 * optimizer/remap_input_affine.c - the remapper's fold of a scalar affine
 * map into the convolution that reads it: Keras's Rescaling layer before
 * a model's first convolution (MobileNetV3's x / 127.5 - 1, a user's
 * x / 255),
 *
 *   _FusedConv2D([Add | AddV2 | Sub]([Mul](x, s), t), filter, args)
 *
 * (or _TfsFusedConv2DMaxPool, the same convolution pooled), s and t float
 * scalar constants (either order in Mul and Add; Sub's constant second,
 * its negation added), each inner node read only by the next, becomes
 * the same op on x with the attrs _tfs_input_scale = s and
 * _tfs_input_shift = t or -t (tfsess-only).  The kernel maps the
 * image as it copies it into the zero-padded image its GEMM reads anyway
 * (conv_gemm.c), so the map's two passes over the input go; it rounds the
 * product before the sum, so the values are the unfused graph's bits
 * (x - t is x + (-t) exactly).  The padding stays zero, as the unfused
 * convolution pads the mapped image.
 */
#include <string.h>

#include "core/status.h"
#include "optimizer/opt_util.h"
#include "optimizer/remap_util.h"

typedef struct affine_match {
  tfs_oref x;
  float scale, shift;
  int has_scale, has_shift;
  int mul, add; /* inner nodes, or -1 */
} affine_match;

/* r is a float constant of one element whose shape cannot widen a 4-D
 * operand (rank at most 4, every dimension 1); its value in *v. */
static int scalar(const tfs_ograph *g, tfs_oref r, float *v) {
  const tfs_tensor *t = tfs_og__const_value(g, r);
  if (!t || t->dtype != TFS_FLOAT || t->nelems != 1 || t->shape.rank > 4)
    return 0;
  *v = ((const float *)t->data)[0];
  return 1;
}

/* x of a map: float, of rank 4 (the convolution's input) unless the
 * constants are rank 0. */
static int map_input(const tfs_ograph *g, tfs_oref x) {
  const tfs_shape *s = tfs_og__shape(g, x);
  return tfs_og__dtype(g, x) == TFS_FLOAT && s->rank == 4;
}

/* Mul(x, s) or Mul(s, x) at node p (an inner node on device dev). */
static int match_mul(const tfs_ograph *g, int p, const char *dev,
                     affine_match *m) {
  if (p < 0 || !tfs_og__is(g, p, "Mul") ||
      !tfs_remap__inner_binary(g, p, dev))
    return 0;
  for (int k = 0; k < 2; k++)
    if (scalar(g, g->n[p].in[1 - k], &m->scale) &&
        map_input(g, g->n[p].in[k])) {
      m->x = g->n[p].in[k];
      m->has_scale = 1;
      m->mul = p;
      return 1;
    }
  return 0;
}

/* The map ending at input 0 of the convolution q. */
static int match(const tfs_ograph *g, int q, affine_match *m) {
  const char *dev = g->n[q].device;
  memset(m, 0, sizeof *m);
  m->mul = m->add = -1;
  int p = tfs_og__producer(g, q, 0);
  if (p < 0 || g->n[q].in[0].port != 0 ||
      !tfs_remap__inner_binary(g, p, dev))
    return 0;
  if (tfs_og__is(g, p, "Mul")) return match_mul(g, p, dev, m);
  int sub = tfs_og__is(g, p, "Sub");
  if (!sub && !tfs_og__is(g, p, "AddV2") && !tfs_og__is(g, p, "Add"))
    return 0;
  for (int k = 0; k < (sub ? 1 : 2); k++) {
    tfs_oref r = g->n[p].in[k];
    if (!scalar(g, g->n[p].in[1 - k], &m->shift)) continue;
    if (sub) m->shift = -m->shift;
    m->has_shift = 1;
    m->add = p;
    if (r.port == 0 && match_mul(g, tfs_og__producer(g, p, k), dev, m))
      return 1;
    if (!map_input(g, r)) return 0;
    m->x = r;
    return 1;
  }
  return 0;
}

/* 1 when node q already maps its input (the attrs of this fold). */
int tfs_remap__has_input_affine(const tfs_ograph *g, int q) {
  return tfs_attrs_find(g->n[q].attrs, "_tfs_input_scale") ||
         tfs_attrs_find(g->n[q].attrs, "_tfs_input_shift");
}

int tfs_remap__input_affine(tfs_opt_ctx *c, int q, tfs_remap_stats *stats) {
  tfs_ograph *g = c->g;
  affine_match m;
  if (c->cfg->tf_compatible || !tfs_og__live(g, q) ||
      !tfs_og__replaceable(g, q) ||
      (!tfs_og__is(g, q, "_FusedConv2D") &&
       !tfs_og__is(g, q, "_TfsFusedConv2DMaxPool")) ||
      g->n[q].nout < 1 || g->n[q].out_types[0] != TFS_FLOAT ||
      tfs_remap__has_input_affine(g, q) || !match(g, q, &m))
    return 0;
  tfs_oref in[8]; /* x, filter, and at most six arguments */
  const int nin = g->n[q].nin;
  if (nin > 8) return 0;
  memcpy(in, g->n[q].in, sizeof(tfs_oref) * (size_t)nin);
  in[0] = m.x;
  tfs_attrs a;
  if (tfs_opt__copy_attrs(g, q, &a) ||
      (m.has_scale && tfs_opt__set_float(&a, "_tfs_input_scale", m.scale)) ||
      (m.has_shift && tfs_opt__set_float(&a, "_tfs_input_shift", m.shift))) {
    tfs_attrs_clear(&a);
    TFS_OOM(c->st);
    return -1;
  }
  int r = tfs_remap__replace_if_kernel(c, q, g->n[q].def->name, &a, nin,
                                       in, m.add, m.mul);
  if (r < 0) return r == -2 ? 0 : -1;
  tfs_remap__count(stats, !m.has_shift   ? "scalar Mul -> convolution input"
                          : !m.has_scale ? "scalar Add -> convolution input"
                                         : "scalar Mul+Add -> convolution "
                                           "input");
  return 1;
}
