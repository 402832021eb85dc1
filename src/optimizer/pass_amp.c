/*
 * optimizer/pass_amp.c - auto_mixed_precision: paints float32 ops with
 * TensorFlow's lists (amp_lists.c) and runs the painted ones in 16 bits:
 * float16 on GPU devices; bfloat16 on a CPU that computes it natively
 * (AVX512_BF16 / AMX; auto_mixed_precision and
 * auto_mixed_precision_onednn_bfloat16); emulated float16 on CPU for
 * auto_mixed_precision_cpu.  Painting: allow ops; deny ops taint the
 * infer/clear ops after them; infer and clear ops between allow ops join;
 * clear ops next to painted ones join.  Only ops with a kernel for the 16
 * bit type are painted.  Casts go in at the boundaries; fetched and fed
 * nodes stay float32.  Numerics: docs/OPTIMIZER.md (relative error about
 * 2^-8 per bfloat16 rounding, 2^-11 for float16).
 */
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/status.h"
#include "kernels/kernel.h"
#include "optimizer/amp.h"
#include "optimizer/opt_util.h"

enum { C_NONE, C_ELIGIBLE = 1, C_DENIED = 2, C_PAINTED = 4 };

typedef struct amp_state {
  tfs_opt_ctx *c;
  tfs_dtype lp; /* the 16-bit type */
  int n0;
  uint8_t *list;  /* TFS_AMP_* per node */
  uint8_t *color; /* C_* bits per node */
  int *queue;
} amp_state;

static int device_target(const amp_state *as, int v, tfs_dtype *lp) {
  const tfs_opt_config *cfg = as->c->cfg;
  tfs_opt_device_caps caps;
  tfs_opt__device_caps(as->c->g->n[v].device, &caps);
  int gpu = caps.fast_16bit == TFS_HALF; /* float16 hardware */
  switch (cfg->amp_mode) {
    case TFS_AMP_DEVICE:
      if (gpu) {
        *lp = TFS_HALF;
        return 1;
      }
      *lp = TFS_BFLOAT16;
      return cfg->cpu_has_bf16;
    case TFS_AMP_BF16:
      *lp = TFS_BFLOAT16;
      return !gpu && cfg->cpu_has_bf16;
    case TFS_AMP_FP16_CPU:
      *lp = TFS_HALF;
      return !gpu;
    default:
      return 0;
  }
}

/* The op has a kernel on node v's device when its T is `lp`. */
static int has_lp_kernel(const tfs_ograph *g, int v, tfs_dtype lp) {
  tfs_attrs a;
  if (tfs_opt__copy_attrs(g, v, &a) || tfs_opt__set_type(&a, "T", lp)) {
    tfs_attrs_clear(&a);
    return 0;
  }
  int ok = tfs_opt__has_kernel(g->n[v].device, g->n[v].def, &a,
                               g->n[v].name);
  tfs_attrs_clear(&a);
  return ok;
}

static int eligible(amp_state *as, int v) {
  tfs_ograph *g = as->c->g;
  tfs_onode *n = &g->n[v];
  tfs_dtype lp;
  if (!tfs_og__removable(g, v) || n->nout < 1) return 0;
  if (tfs_og__type_attr(g, v, "T") != TFS_FLOAT) return 0;
  if (!device_target(as, v, &lp) || lp != as->lp) return 0;
  return 1;
}

/* BFS from `seeds` through nodes accepted by `pass` along data edges,
 * forward (fan-out) or backward (inputs); marks reached nodes in `mark`. */
static void flood(amp_state *as, uint8_t *mark, int forward,
                  int (*pass)(const amp_state *, int)) {
  tfs_ograph *g = as->c->g;
  int head = 0, tail = 0;
  for (int v = 0; v < as->n0; v++)
    if (mark[v]) as->queue[tail++] = v;
  while (head < tail) {
    tfs_onode *n = &g->n[as->queue[head++]];
    int cnt = forward ? n->nfan : n->nin;
    for (int j = 0; j < cnt; j++) {
      int w = forward ? n->fan[j].node : n->in[j].node;
      if (w >= as->n0 || mark[w] || !pass(as, w)) continue;
      mark[w] = 1;
      as->queue[tail++] = w;
    }
  }
}

static int infer_or_clear(const amp_state *as, int v) {
  return (as->color[v] & C_ELIGIBLE) && !(as->color[v] & C_DENIED) &&
         (as->list[v] == TFS_AMP_INFER || as->list[v] == TFS_AMP_CLEAR);
}
static int clear_only(const amp_state *as, int v) {
  return (as->color[v] & C_ELIGIBLE) && !(as->color[v] & C_DENIED) &&
         as->list[v] == TFS_AMP_CLEAR;
}

/* Paints; returns the number of painted nodes or -1 on OOM. */
static int paint(amp_state *as) {
  int n = as->n0, painted = 0;
  uint8_t *fwd = tfs_calloc((size_t)n + 1, 1);
  uint8_t *bwd = tfs_calloc((size_t)n + 1, 1);
  uint8_t *deny = tfs_calloc((size_t)n + 1, 1);
  if (!fwd || !bwd || !deny) {
    tfs_free(fwd);
    tfs_free(bwd);
    tfs_free(deny);
    return -1;
  }
  /* deny taints downstream infer/clear ops */
  for (int v = 0; v < n; v++)
    deny[v] = (as->color[v] & C_ELIGIBLE) && as->list[v] == TFS_AMP_DENY;
  flood(as, deny, 1, infer_or_clear);
  for (int v = 0; v < n; v++)
    if (deny[v]) as->color[v] |= C_DENIED;
  /* allow ops, and infer/clear ops between two of them */
  for (int v = 0; v < n; v++) {
    int allow = (as->color[v] & C_ELIGIBLE) && as->list[v] == TFS_AMP_ALLOW;
    fwd[v] = bwd[v] = (uint8_t)allow;
  }
  flood(as, fwd, 1, infer_or_clear);
  flood(as, bwd, 0, infer_or_clear);
  for (int v = 0; v < n; v++)
    if (fwd[v] && bwd[v]) as->color[v] |= C_PAINTED;
  /* clear ops next to painted ones follow them */
  for (int v = 0; v < n; v++) fwd[v] = bwd[v] = (as->color[v] & C_PAINTED) != 0;
  flood(as, fwd, 1, clear_only);
  flood(as, bwd, 0, clear_only);
  for (int v = 0; v < n; v++) {
    if (fwd[v] || bwd[v]) as->color[v] |= C_PAINTED;
    painted += (as->color[v] & C_PAINTED) != 0;
  }
  tfs_free(fwd);
  tfs_free(bwd);
  tfs_free(deny);
  return painted;
}

/* A Cast of `src` to `to`, shared by the consumers of output 0 of a node
 * below `ncache` (cache[node], -1 when none yet). */
static int cast_of(amp_state *as, tfs_oref src, tfs_dtype to, int *cache,
                   int ncache) {
  tfs_ograph *g = as->c->g;
  int slot = src.node < ncache && src.port == 0 ? src.node : -1;
  if (slot >= 0 && cache[slot] >= 0 && tfs_og__live(g, cache[slot]))
    return cache[slot];
  tfs_attrs a;
  tfs_attrs_init(&a);
  if (tfs_opt__set_type(&a, "SrcT", tfs_og__dtype(g, src)) ||
      tfs_opt__set_type(&a, "DstT", to) ||
      tfs_opt__set_bool(&a, "Truncate", 0)) {
    tfs_attrs_clear(&a);
    TFS_OOM(as->c->st);
    return -1;
  }
  char *base = tfs_asprintf("%s-%d-CastTo%s-AutoMixedPrecision",
                            g->n[src.node].name, src.port,
                            to == TFS_FLOAT  ? "Fp32"
                            : to == TFS_HALF ? "Fp16"
                                             : "Bf16");
  tfs_oref in[1] = {src};
  tfs_onode_spec spec = {.base = base,
                         .op = "Cast",
                         .device = g->n[src.node].device,
                         .attrs = &a,
                         .nin = 1,
                         .in = in};
  int k = base ? tfs_og__add(g, &spec, as->c->st) : -1;
  tfs_free(base);
  if (k < 0 && tfs_status_ok(as->c->st)) TFS_OOM(as->c->st);
  if (k >= 0 && slot >= 0) cache[slot] = k;
  return k;
}

/* Rebuilds painted node v with T = lp, casting float inputs from
 * unpainted producers. */
static int lower(amp_state *as, int v, int *to_lp) {
  tfs_ograph *g = as->c->g;
  tfs_attrs a;
  if (tfs_opt__copy_attrs(g, v, &a) || tfs_opt__set_type(&a, "T", as->lp)) {
    tfs_attrs_clear(&a);
    TFS_OOM(as->c->st);
    return -1;
  }
  tfs_arg_layout l;
  if (tfs_graph__arg_layout(g->n[v].def, &a, g->n[v].name, &l, as->c->st)) {
    tfs_attrs_clear(&a);
    return -1;
  }
  int nin = g->n[v].nin;
  tfs_oref *in = tfs_malloc(sizeof(tfs_oref) * (size_t)(nin + 1));
  int rc = -1;
  if (!in || l.ninputs != nin) {
    tfs_attrs_clear(&a);
    if (in)
      tfs_status_set(as->c->st, TFS_INTERNAL, "optimizer: AMP arity");
    else
      TFS_OOM(as->c->st);
    goto done;
  }
  for (int k = 0; k < nin; k++) {
    tfs_oref s = g->n[v].in[k];
    in[k] = s;
    if (l.in_types[k] != as->lp || tfs_og__dtype(g, s) != TFS_FLOAT) continue;
    int cast = cast_of(as, s, as->lp, to_lp, as->n0);
    if (cast < 0) {
      tfs_attrs_clear(&a);
      goto done;
    }
    in[k] = (tfs_oref){cast, 0};
  }
  tfs_onode *n = &g->n[v];
  tfs_onode_spec spec = {.op = n->def->name,
                         .device = n->device,
                         .attrs = &a,
                         .nin = nin,
                         .in = in,
                         .nctrl = n->nctrl,
                         .ctrl = n->ctrl};
  /* replace() may move g->n; ctrl is copied by add() before that.  The
   * outputs become lp: painted consumers are lowered next, the others
   * get a Cast back to float32 in tfs_pass__amp. */
  int nv = tfs_og__replace_retyped(g, v, &spec, as->c->st);
  rc = nv < 0 ? -1 : nv;
done:
  tfs_free(in);
  tfs_arg_layout_clear(&l);
  return rc;
}

int tfs_pass__amp(tfs_opt_ctx *c) {
  tfs_ograph *g = c->g;
  amp_state as = {.c = c, .n0 = g->nn};
  as.lp = c->cfg->amp_mode == TFS_AMP_FP16_CPU ? TFS_HALF : TFS_BFLOAT16;
  if (c->cfg->amp_mode == TFS_AMP_DEVICE || c->cfg->amp_mode == TFS_AMP_BF16) {
    if (!c->cfg->cpu_has_bf16) {
      tfs_opt__note(c,
                    "skipped: this CPU has no native bfloat16 "
                    "(AVX512_BF16 / AMX)");
      return 0;
    }
  }
  as.list = tfs_calloc((size_t)as.n0 + 1, 1);
  as.color = tfs_calloc((size_t)as.n0 + 1, 1);
  as.queue = tfs_malloc(sizeof(int) * ((size_t)as.n0 + 1));
  int *to_lp = tfs_malloc(sizeof(int) * ((size_t)as.n0 + 1));
  int *order = tfs_malloc(sizeof(int) * ((size_t)as.n0 + 1));
  int rc = -1, lowered = 0, casts_back = 0;
  int *to_f32 = NULL;
  if (!as.list || !as.color || !as.queue || !to_lp || !order) {
    TFS_OOM(c->st);
    goto done;
  }
  for (int v = 0; v < as.n0; v++) {
    to_lp[v] = -1;
    if (!tfs_og__live(g, v)) continue;
    as.list[v] = (uint8_t)tfs_amp__list_of(g->n[v].def->name);
    if (as.list[v] == TFS_AMP_UNLISTED || !eligible(&as, v)) continue;
    /* the node's own device must have the 16-bit kernel */
    if (as.list[v] != TFS_AMP_DENY && !has_lp_kernel(g, v, as.lp)) continue;
    as.color[v] = C_ELIGIBLE;
  }
  int painted = paint(&as);
  if (painted < 0) {
    TFS_OOM(c->st);
    goto done;
  }
  int cnt = tfs_og__topo_order(g, order, c->st);
  if (cnt < 0) goto done;
  /* painted nodes in order: their producers are already 16-bit */
  for (int j = 0; j < cnt; j++) {
    int v = order[j];
    if (v >= as.n0 || !(as.color[v] & C_PAINTED) || !tfs_og__live(g, v))
      continue;
    if (lower(&as, v, to_lp) < 0) goto done;
    lowered++;
  }
  /* consumers that still expect float get a Cast back */
  int nn = g->nn;
  to_f32 = tfs_malloc(sizeof(int) * ((size_t)nn + 1));
  if (!to_f32) {
    TFS_OOM(c->st);
    goto done;
  }
  for (int v = 0; v < nn; v++) to_f32[v] = -1;
  for (int v = 0; v < nn; v++) {
    if (!tfs_og__live(g, v)) continue;
    for (int k = 0; k < g->n[v].nin; k++) {
      tfs_oref s = g->n[v].in[k];
      if (tfs_og__dtype(g, s) != as.lp ||
          tfs_dtype_base(g->n[v].in_types[k]) != TFS_FLOAT)
        continue;
      int cast = cast_of(&as, s, TFS_FLOAT, to_f32, nn);
      if (cast < 0 || tfs_og__set_input(g, v, k, (tfs_oref){cast, 0})) {
        if (tfs_status_ok(c->st)) TFS_OOM(c->st);
        goto done;
      }
      casts_back++;
    }
  }
  if (lowered)
    tfs_opt__note(c, "%d op%s to %s, %d Cast%s back to float32", lowered,
                  lowered == 1 ? "" : "s",
                  as.lp == TFS_HALF ? "float16" : "bfloat16", casts_back,
                  casts_back == 1 ? "" : "s");
  c->changes += lowered;
  rc = g->oom ? (TFS_OOM(c->st), -1) : 0;
done:
  tfs_free(as.list);
  tfs_free(as.color);
  tfs_free(as.queue);
  tfs_free(to_lp);
  tfs_free(to_f32);
  tfs_free(order);
  return rc;
}
