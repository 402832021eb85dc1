/*
 * optimizer/pass_layout.c - layout (Grappler's generic layout optimizer):
 * where a node's device prefers another data format (a GPU: NCHW; a CPU
 * only as RewriterConfig.cpu_layout_conversion asks), layout-sensitive ops
 * (Conv2D, DepthwiseConv2dNative, MaxPool, AvgPool, BiasAdd,
 * FusedBatchNorm(V3) and the fused convolutions) are converted with a
 * Transpose before and after (the one after takes the op's name, so a
 * fetch keeps its layout); Transposes are then pushed through element-
 * wise ops and adjacent inverse pairs cancel, so a chain of converted ops
 * keeps the preferred layout in between.  First iteration only.
 */
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/status.h"
#include "optimizer/opt_util.h"

static const int64_t kToNchw[4] = {0, 3, 1, 2};
static const int64_t kToNhwc[4] = {0, 2, 3, 1};

typedef struct layout_state {
  tfs_opt_ctx *c;
  int perm_const[2]; /* Const nodes of kToNchw / kToNhwc, -1 until made */
  uint8_t *ours;     /* Transposes this pass made (by index) */
  int ours_cap;
  int converted, cancelled, pushed;
} layout_state;

static const char *const kSensitive[] = {"Conv2D",
                                         "DepthwiseConv2dNative",
                                         "MaxPool",
                                         "AvgPool",
                                         "BiasAdd",
                                         "FusedBatchNorm",
                                         "FusedBatchNormV3",
                                         "_FusedConv2D",
                                         "_FusedDepthwiseConv2dNative"};

/* The format node v's device prefers: TFS_LAYOUT_*.  A device type that
 * says so (a GPU: cuDNN's native layout) prefers NCHW; the CPU what the
 * config says. */
static int preferred(const layout_state *ls, int v) {
  tfs_opt_device_caps caps;
  tfs_opt__device_caps(ls->c->g->n[v].device, &caps);
  if (caps.prefers_nchw) return TFS_LAYOUT_TO_NCHW;
  return ls->c->cfg->cpu_layout;
}

static int mark_ours(layout_state *ls, int idx) {
  if (idx >= ls->ours_cap) {
    int cap = ls->ours_cap ? ls->ours_cap * 2 : 256;
    while (cap <= idx) cap *= 2;
    uint8_t *p = tfs_realloc(ls->ours, (size_t)cap);
    if (!p) return -1;
    memset(p + ls->ours_cap, 0, (size_t)(cap - ls->ours_cap));
    ls->ours = p;
    ls->ours_cap = cap;
  }
  ls->ours[idx] = 1;
  return 0;
}

static int is_ours(const layout_state *ls, int idx) {
  return idx < ls->ours_cap && ls->ours[idx];
}

static int perm_node(layout_state *ls, int which, const char *device) {
  if (ls->perm_const[which] >= 0 &&
      tfs_og__live(ls->c->g, ls->perm_const[which]))
    return ls->perm_const[which];
  tfs_shape s;
  tfs_shape_1d(&s, 4);
  tfs_tensor *t = tfs_opt__tensor(TFS_INT32, &s, ls->c->st);
  if (!t) return -1;
  const int64_t *p = which ? kToNhwc : kToNchw;
  for (int i = 0; i < 4; i++) ((int32_t *)t->data)[i] = (int32_t)p[i];
  int k = tfs_opt__const(ls->c, t,
                         which ? "LayoutOptimizer/PermConstNCHWToNHWC"
                               : "LayoutOptimizer/PermConstNHWCToNCHW",
                         device);
  tfs_tensor_free(t);
  ls->perm_const[which] = k;
  return k;
}

/* Adds Transpose(src, perm `which`); returns its index. */
static int add_transpose(layout_state *ls, tfs_oref src, int which,
                         const char *base, const char *device) {
  tfs_ograph *g = ls->c->g;
  int pk = perm_node(ls, which, device);
  if (pk < 0) return -1;
  tfs_attrs a;
  tfs_attrs_init(&a);
  if (tfs_opt__set_type(&a, "T", tfs_og__dtype(g, src)) ||
      tfs_opt__set_type(&a, "Tperm", TFS_INT32)) {
    tfs_attrs_clear(&a);
    TFS_OOM(ls->c->st);
    return -1;
  }
  tfs_oref in[2] = {src, {pk, 0}};
  tfs_onode_spec spec = {.base = base,
                         .op = "Transpose",
                         .device = device,
                         .attrs = &a,
                         .nin = 2,
                         .in = in};
  int t = tfs_og__add(g, &spec, ls->c->st);
  if (t >= 0 && mark_ours(ls, t)) {
    TFS_OOM(ls->c->st);
    return -1;
  }
  return t;
}

/* A 4-entry (or 8-entry explicit_paddings) list attr in the new order. */
static int permute_list(tfs_attrs *a, const char *name, const int64_t *perm,
                        int pairs) {
  int n;
  const int64_t *v = tfs_attrs_get_int_list(a, name, &n);
  int want = pairs ? 8 : 4;
  if (!v || n != want) return 0;
  int64_t out[8];
  for (int i = 0; i < 4; i++) {
    if (pairs) {
      out[2 * i] = v[2 * perm[i]];
      out[2 * i + 1] = v[2 * perm[i] + 1];
    } else {
      out[i] = v[perm[i]];
    }
  }
  return tfs_opt__set_ints(a, name, out, want);
}

static int convertible(layout_state *ls, int v, int *to) {
  tfs_ograph *g = ls->c->g;
  tfs_onode *n = &g->n[v];
  int found = 0;
  for (size_t i = 0; i < sizeof(kSensitive) / sizeof(kSensitive[0]); i++)
    found |= strcmp(n->def->name, kSensitive[i]) == 0;
  if (!found || !tfs_og__replaceable(g, v) || n->nin < 1) return 0;
  /* a fused Add's addend would need its own transposes */
  if (strcmp(n->def->name, "_FusedConv2D") == 0 && n->nin > 3) return 0;
  int pref = preferred(ls, v);
  int nchw = tfs_opt__attr_is(g, v, "data_format", "NCHW");
  int nhwc = !nchw && (tfs_opt__attr_is(g, v, "data_format", "NHWC") ||
                       !tfs_attrs_find(n->attrs, "data_format"));
  if (!((pref == TFS_LAYOUT_TO_NCHW && nhwc) ||
        (pref == TFS_LAYOUT_TO_NHWC && nchw)))
    return 0;
  if (tfs_og__shape(g, n->in[0])->rank != 4 || n->out_shapes[0].rank != 4)
    return 0;
  for (int p = 1; p < n->nout; p++)
    if (tfs_og__port_uses(g, v, p)) return 0;
  *to = pref;
  return 1;
}

static int convert(layout_state *ls, int v, int to) {
  tfs_opt_ctx *c = ls->c;
  tfs_ograph *g = c->g;
  const int64_t *perm = to == TFS_LAYOUT_TO_NCHW ? kToNchw : kToNhwc;
  int in_which = to == TFS_LAYOUT_TO_NCHW ? 0 : 1;
  const char *name = g->n[v].name, *device = g->n[v].device;
  char *b1 = tfs_asprintf("%s-0-Transpose%s-LayoutOptimizer", name,
                          in_which ? "NCHWToNHWC" : "NHWCToNCHW");
  char *b2 = tfs_asprintf("%s-LayoutOptimizer", name);
  int t_in = b1 ? add_transpose(ls, g->n[v].in[0], in_which, b1, device) : -1;
  tfs_attrs a;
  int rc = -1;
  if (t_in < 0 || !b2) goto done;
  if (tfs_opt__copy_attrs(g, v, &a)) {
    tfs_attrs_clear(&a);
    goto done;
  }
  if (tfs_opt__set_string(&a, "data_format",
                          to == TFS_LAYOUT_TO_NCHW ? "NCHW" : "NHWC") ||
      permute_list(&a, "strides", perm, 0) ||
      permute_list(&a, "ksize", perm, 0) ||
      permute_list(&a, "dilations", perm, 0) ||
      permute_list(&a, "explicit_paddings", perm, 1)) {
    tfs_attrs_clear(&a);
    goto done;
  }
  int nin = g->n[v].nin;
  tfs_oref *in = tfs_malloc(sizeof(tfs_oref) * (size_t)(nin + 1));
  if (!in) {
    tfs_attrs_clear(&a);
    goto done;
  }
  if (nin) memcpy(in, g->n[v].in, sizeof(tfs_oref) * (size_t)nin);
  in[0] = (tfs_oref){t_in, 0};
  tfs_onode_spec spec = {.base = b2,
                         .op = g->n[v].def->name,
                         .device = device,
                         .attrs = &a,
                         .nin = nin,
                         .in = in};
  int nv = tfs_og__add(g, &spec, c->st);
  tfs_free(in);
  if (nv < 0) goto done;
  /* the old node's name now names the Transpose back */
  int pk = perm_node(ls, 1 - in_which, device);
  if (pk < 0) goto done;
  tfs_attrs ta;
  tfs_attrs_init(&ta);
  if (tfs_opt__set_type(&ta, "T", g->n[nv].out_types[0]) ||
      tfs_opt__set_type(&ta, "Tperm", TFS_INT32)) {
    tfs_attrs_clear(&ta);
    goto done;
  }
  tfs_oref tin[2] = {{nv, 0}, {pk, 0}};
  int t_out = tfs_opt__rebuild(c, v, "Transpose", &ta, 2, tin);
  if (t_out < 0 || mark_ours(ls, t_out)) goto done;
  rc = 0;
done:
  if (rc && tfs_status_ok(c->st)) TFS_OOM(c->st);
  tfs_free(b1);
  tfs_free(b2);
  return rc;
}

static int perms_cancel(layout_state *ls, int t1, int t2) {
  tfs_ograph *g = ls->c->g;
  const tfs_tensor *p1 = tfs_og__const_value(g, g->n[t1].in[1]);
  const tfs_tensor *p2 = tfs_og__const_value(g, g->n[t2].in[1]);
  if (!p1 || !p2 || p1->nelems != 4 || p2->nelems != 4) return 0;
  for (int i = 0; i < 4; i++) {
    int64_t j = tfs_tensor__get_as_int64(p2, i);
    if (j < 0 || j > 3 || tfs_tensor__get_as_int64(p1, j) != i) return 0;
  }
  return 1;
}

/* Transpose(Transpose(x, p), inverse of p) -> x. */
static int cancel(layout_state *ls, int t2) {
  tfs_ograph *g = ls->c->g;
  if (!tfs_og__is(g, t2, "Transpose") || !tfs_og__replaceable(g, t2)) return 0;
  int t1 = tfs_og__producer(g, t2, 0);
  if (t1 < 0 || !tfs_og__is(g, t1, "Transpose") ||
      (!is_ours(ls, t1) && !is_ours(ls, t2)) || !perms_cancel(ls, t1, t2))
    return 0;
  return tfs_opt__bypass(ls->c, t2, g->n[t1].in[0]) ? -1 : 1;
}

/* Unary(Transpose(a, p)) -> Transpose(Unary(a), p) for our Transposes. */
static int push_down(layout_state *ls, int u) {
  tfs_ograph *g = ls->c->g;
  tfs_onode *n = &g->n[u];
  if (!(n->def->flags & TFS_OP_ELEMENTWISE) || n->nin != 1 || n->nout != 1 ||
      !tfs_og__replaceable(g, u))
    return 0;
  int t = tfs_og__producer(g, u, 0);
  if (t < 0 || !is_ours(ls, t) || !tfs_og__is(g, t, "Transpose") ||
      !tfs_opt__single_use(g, t))
    return 0;
  /* only worth it when another of our Transposes waits below */
  int below = 0;
  for (int j = 0; j < n->nfan; j++) {
    int cns = n->fan[j].node;
    below |= tfs_og__is(g, cns, "Transpose") ||
             g->n[cns].def->flags & TFS_OP_ELEMENTWISE;
  }
  if (!below) return 0;
  tfs_attrs a;
  if (tfs_opt__copy_attrs(g, u, &a)) {
    tfs_attrs_clear(&a);
    TFS_OOM(ls->c->st);
    return -1;
  }
  char *base = tfs_asprintf("%s-LayoutOptimizer", n->name);
  tfs_oref in[1] = {g->n[t].in[0]};
  tfs_onode_spec spec = {.base = base,
                         .op = n->def->name,
                         .device = n->device,
                         .attrs = &a,
                         .nin = 1,
                         .in = in};
  int nu = base ? tfs_og__add(g, &spec, ls->c->st) : -1;
  tfs_free(base);
  if (nu < 0) {
    if (tfs_status_ok(ls->c->st)) TFS_OOM(ls->c->st);
    return -1;
  }
  tfs_attrs ta;
  if (tfs_opt__copy_attrs(g, t, &ta)) {
    tfs_attrs_clear(&ta);
    TFS_OOM(ls->c->st);
    return -1;
  }
  tfs_opt__set_type(&ta, "T", g->n[nu].out_types[0]);
  tfs_oref tin[2] = {{nu, 0}, g->n[t].in[1]};
  int nt = tfs_opt__rebuild(ls->c, u, "Transpose", &ta, 2, tin);
  if (nt < 0 || mark_ours(ls, nt)) {
    if (tfs_status_ok(ls->c->st)) TFS_OOM(ls->c->st);
    return -1;
  }
  tfs_og__kill_unused(g, t);
  return 1;
}

int tfs_pass__layout(tfs_opt_ctx *c) {
  tfs_ograph *g = c->g;
  layout_state ls = {.c = c, .perm_const = {-1, -1}};
  int rc = -1, n0 = g->nn;
  for (int v = 0; v < n0; v++) {
    int to;
    if (!tfs_og__live(g, v) || !convertible(&ls, v, &to)) continue;
    if (convert(&ls, v, to)) goto done;
    ls.converted++;
  }
  for (int sweep = 0; sweep < 16 && ls.converted; sweep++) {
    int changed = 0;
    for (int v = 0; v < g->nn; v++) {
      if (!tfs_og__live(g, v)) continue;
      int r = push_down(&ls, v);
      if (r < 0) goto done;
      ls.pushed += r;
      changed += r;
    }
    for (int v = 0; v < g->nn; v++) {
      if (!tfs_og__live(g, v)) continue;
      int r = cancel(&ls, v);
      if (r < 0) goto done;
      ls.cancelled += r;
      changed += r;
    }
    if (!changed) break;
  }
  if (ls.converted)
    tfs_opt__note(c, "converted %d op%s to %s", ls.converted,
                  ls.converted == 1 ? "" : "s",
                  c->cfg->cpu_layout == TFS_LAYOUT_TO_NHWC ? "NHWC" : "NCHW");
  if (ls.pushed)
    tfs_opt__note(c, "moved %d Transpose%s past element-wise ops", ls.pushed,
                  ls.pushed == 1 ? "" : "s");
  if (ls.cancelled)
    tfs_opt__note(c, "cancelled %d Transpose pair%s", ls.cancelled,
                  ls.cancelled == 1 ? "" : "s");
  c->changes += ls.converted + ls.cancelled + ls.pushed;
  rc = g->oom ? (TFS_OOM(c->st), -1) : 0;
done:
  tfs_free(ls.ours);
  return rc;
}
