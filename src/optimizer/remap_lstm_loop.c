/*
 * optimizer/remap_lstm_loop.c - the remapper's LSTM layer: the While
 * loop a Keras LSTM layer exports (Keras 3 and tf.keras, forward or
 * backward, return_sequences or not), whose body is
 *
 *   x = TensorListGetItem(inputs, time)
 *   z = x . kernel + h . recurrent_kernel + bias   (AddV2 / BiasAdd, in
 *                                                   any order)
 *   i, f, g, o = Split(1, z, 4)                    (in gate_order)
 *   c' = Sigmoid(f) * c + Sigmoid(i) * Tanh(g)
 *   h' = Sigmoid(o) * Tanh(c')
 *   outputs' = TensorListSetItem(outputs, time or a constant, h')
 *   counter' = counter + 1, time' = time + 1
 *
 * and whose condition is counter < max_iterations && time < limit (or
 * time < limit alone: the maximum is then the int32 maximum), becomes
 * one _TfsLstmSequence(counter, max_iterations, time, limit, outputs, h,
 * c, inputs, kernel, recurrent_kernel, bias) (tfsess-only):
 * the kernel projects every step's input in one product before the
 * recurrence and runs the steps without a node, a tensor or a loop frame
 * per op.  The loop's other variables must pass through the body
 * unchanged; their consumers read the loop's inputs instead.  Every node
 * of the body must belong to the pattern (Const, Identity and NoOp
 * aside), so nothing else the loop computes is lost.  The sum is rounded
 * in another order than the body's (within float rounding of it).
 */
#include <string.h>

#include "core/alloc.h"
#include "core/status.h"
#include "optimizer/fn_inline.h"
#include "optimizer/opt_util.h"
#include "optimizer/remap_util.h"

enum { LL_SEEN = 40 };

/* A function of the loop, imported for matching. */
typedef struct ll_fn {
  tfs_fn_body b;
  tfs_ograph g;
  int *map;      /* op id -> node index */
  int *arg;      /* node of each argument */
  tfs_oref *ret; /* each return value, Identities skipped */
  int loaded;
} ll_fn;

/* The roles of the loop variables (indices into the While's inputs). */
typedef struct ll_match {
  int cnt, max, time, limit, out, h, c, in, w, u, b; /* limit -1: const */
  const tfs_tensor *limit_value; /* the condition's constant limit */
  int64_t out_index;             /* -1: item `time` */
  int64_t gates[4];              /* split ports of i, f, g, o */
  int squeezed;                  /* a product was squeezed to a vector */
  int bias_operand;              /* the bias is a BiasAdd's bias */
  int seen[LL_SEEN];             /* body nodes of the pattern */
  int nseen;
} ll_match;

static const tfs_func_attr *func_attr(const tfs_ograph *g, int i,
                                      const char *name) {
  const tfs_attr_value *v = tfs_attrs_find(g->n[i].attrs, name);
  return v && v->type == TFS_ATTR_FUNC && !v->is_list ? v->u.func : NULL;
}

static void ll_free(ll_fn *f) {
  if (f->loaded) tfs_og__clear(&f->g);
  tfs_fn_body__clear(&f->b);
  tfs_free(f->map);
  tfs_free(f->arg);
  tfs_free(f->ret);
  memset(f, 0, sizeof(*f));
}

static tfs_oref skip_identity(const tfs_ograph *g, tfs_oref r) {
  for (int hops = 0; hops < 16 && r.node >= 0; hops++) {
    if (!tfs_og__is(g, r.node, "Identity") || g->n[r.node].nin != 1) break;
    r = g->n[r.node].in[0];
  }
  return r;
}

/* Imports function attr `which` of While w taking and returning nvars
 * (nrets values).  0 when loaded; 1 when it cannot be (no match). */
static int ll_load(tfs_opt_ctx *c, int w, const char *which, int nvars,
                   int nrets, ll_fn *f) {
  memset(f, 0, sizeof(*f));
  const tfs_func_attr *fa = func_attr(c->g, w, which);
  char *why = NULL;
  if (!fa || tfs_fnopt__instantiate(c, fa, &f->b, &why)) {
    tfs_free(why);
    return 1;
  }
  if (f->b.nargs != nvars || f->b.nrets != nrets ||
      tfs_fnopt__body_has_cf(&f->b))
    return 1;
  /* control outputs: the variable reads Keras marks (Identities) */
  for (int k = 0; k < f->b.nctrl; k++) {
    const char *op = f->b.ctrl[k]->def->name;
    if (strcmp(op, "Identity") != 0 && strcmp(op, "NoOp") != 0) return 1;
  }
  size_t nops = f->b.graph->nops;
  f->map = tfs_malloc(sizeof(int) * (nops + 1));
  f->arg = tfs_malloc(sizeof(int) * (size_t)(nvars + 1));
  f->ret = tfs_malloc(sizeof(tfs_oref) * (size_t)(nrets + 1));
  tfs_status *st = tfs_status_new();
  if (!f->map || !f->arg || !f->ret || !st) {
    tfs_status_free(st);
    return 1;
  }
  for (size_t i = 0; i < nops; i++) f->map[i] = -1;
  tfs_og__init(&f->g, c->g->arena);
  f->loaded = 1;
  int rc = tfs_og__import(&f->g, f->b.graph, NULL, f->map, st);
  tfs_status_free(st);
  if (rc) return 1;
  for (int k = 0; k < nvars; k++) {
    if (f->b.args[k].index != 0) return 1;
    f->arg[k] = f->map[f->b.args[k].oper->id];
  }
  for (int k = 0; k < nrets; k++) {
    tfs_oref r = {f->map[f->b.rets[k].oper->id], f->b.rets[k].index};
    f->ret[k] = skip_identity(&f->g, r);
  }
  return 0;
}

/* The loop variable whose argument `r` is (Identities skipped), or -1. */
static int arg_of(const ll_fn *f, int nvars, tfs_oref r) {
  r = skip_identity(&f->g, r);
  if (r.port != 0) return -1;
  for (int k = 0; k < nvars; k++)
    if (f->arg[k] == r.node) return k;
  return -1;
}

/* The node behind input k of node p, Identities skipped, when it is op
 * `op` read at port 0 (or any port when port < 0); else -1. */
static int input_op(const ll_fn *f, int p, int k, const char *op, int port) {
  tfs_oref r = skip_identity(&f->g, f->g.n[p].in[k]);
  if (r.node < 0 || !tfs_og__is(&f->g, r.node, op)) return -1;
  return port < 0 || r.port == port ? r.node : -1;
}

/* An integer scalar constant behind r; 1 when found. */
static int int_const(const ll_fn *f, tfs_oref r, int64_t *v) {
  const tfs_tensor *t = tfs_og__const_value(&f->g, skip_identity(&f->g, r));
  if (!t || t->shape.rank != 0 ||
      (t->dtype != TFS_INT32 && t->dtype != TFS_INT64))
    return 0;
  *v = (int64_t)tfs_opt__get(t, 0);
  return 1;
}

static void see(ll_match *m, int p) {
  if (m->nseen < LL_SEEN) m->seen[m->nseen++] = p;
}

/* The Split port gate op `op` (Sigmoid or Tanh) at r reads, or -1. */
static int gate_port(const ll_fn *f, tfs_oref r, const char *op, int split,
                     ll_match *m) {
  r = skip_identity(&f->g, r);
  if (r.node < 0 || !tfs_og__is(&f->g, r.node, op)) return -1;
  tfs_oref s = skip_identity(&f->g, f->g.n[r.node].in[0]);
  if (s.node != split) return -1;
  see(m, r.node);
  return s.port;
}

/* c' = Sigmoid(f) * c + Sigmoid(i) * Tanh(g) at node add: the Split's
 * ports of i, f, g; 0 when it does not match. */
static int match_c(const ll_fn *f, int nvars, int add, int split,
                   ll_match *m) {
  if (!tfs_og__is(&f->g, add, "AddV2") && !tfs_og__is(&f->g, add, "Add"))
    return 0;
  see(m, add);
  for (int order = 0; order < 2; order++) {
    int fm = input_op(f, add, order, "Mul", 0);
    int im = input_op(f, add, 1 - order, "Mul", 0);
    if (fm < 0 || im < 0) continue;
    for (int k = 0; k < 2; k++) {
      if (arg_of(f, nvars, f->g.n[fm].in[1 - k]) != m->c) continue;
      int pf = gate_port(f, f->g.n[fm].in[k], "Sigmoid", split, m);
      int pi = gate_port(f, f->g.n[im].in[0], "Sigmoid", split, m);
      int pg = gate_port(f, f->g.n[im].in[1], "Tanh", split, m);
      if (pi < 0 || pg < 0) {
        pi = gate_port(f, f->g.n[im].in[1], "Sigmoid", split, m);
        pg = gate_port(f, f->g.n[im].in[0], "Tanh", split, m);
      }
      if (pf < 0 || pi < 0 || pg < 0) return 0;
      see(m, fm);
      see(m, im);
      m->gates[0] = pi;
      m->gates[1] = pf;
      m->gates[2] = pg;
      return 1;
    }
  }
  return 0;
}

/* The sum z: at most three leaves under AddV2 / Add / BiasAdd. */
typedef struct ll_sum {
  int n;
  tfs_oref leaf[3];
  int bias_operand[3]; /* the leaf is a BiasAdd's bias */
} ll_sum;

static int collect(const ll_fn *f, tfs_oref r, int bias_operand, int depth,
                   ll_sum *s, ll_match *m) {
  r = skip_identity(&f->g, r);
  int p = r.node;
  if (p < 0 || depth > 4) return 0;
  int add = tfs_og__is(&f->g, p, "AddV2") || tfs_og__is(&f->g, p, "Add");
  int bias = tfs_og__is(&f->g, p, "BiasAdd");
  if ((add || bias) && r.port == 0 && f->g.n[p].nin == 2) {
    see(m, p);
    return collect(f, f->g.n[p].in[0], 0, depth + 1, s, m) &&
           collect(f, f->g.n[p].in[1], bias, depth + 1, s, m);
  }
  if (s->n == 3) return 0;
  s->leaf[s->n] = r;
  s->bias_operand[s->n++] = bias_operand;
  return 1;
}

static int attr_true(const ll_fn *f, int p, const char *name) {
  int v = 0;
  tfs_attrs_get_bool(f->g.n[p].attrs, name, &v);
  return v;
}

/* A Squeeze of a [1, n] product to [n] (squeeze_dims none, 0 or -2). */
static int squeeze_ok(const ll_fn *f, int p) {
  const tfs_attr_value *v = tfs_attrs_find(f->g.n[p].attrs, "squeeze_dims");
  if (!v || !v->is_list || v->u.list.n == 0) return 1;
  if (v->u.list.n != 1 || v->type != TFS_ATTR_INT) return 0;
  int64_t d = ((const int64_t *)v->u.list.v)[0];
  return d == 0 || d == -2;
}

/* One leaf of z: the input product, the recurrent product or the bias. */
static int leaf(const ll_fn *f, int nvars, tfs_oref r, int bias_operand,
                ll_match *m) {
  int p = r.node;
  if (tfs_og__is(&f->g, p, "Squeeze") && r.port == 0 && squeeze_ok(f, p)) {
    see(m, p);
    m->squeezed = 1;
    r = skip_identity(&f->g, f->g.n[p].in[0]);
    p = r.node;
    if (p < 0 || !tfs_og__is(&f->g, p, "MatMul")) return 0;
  }
  if (!tfs_og__is(&f->g, p, "MatMul")) {
    if (m->b >= 0) return 0;
    m->b = arg_of(f, nvars, r);
    m->bias_operand = bias_operand;
    return m->b >= 0;
  }
  if (r.port != 0 || attr_true(f, p, "transpose_a") ||
      attr_true(f, p, "transpose_b"))
    return 0;
  see(m, p);
  int wk = arg_of(f, nvars, f->g.n[p].in[1]);
  int get = input_op(f, p, 0, "TensorListGetItem", 0);
  if (get >= 0) {
    if (m->w >= 0) return 0;
    see(m, get);
    m->w = wk;
    m->in = arg_of(f, nvars, f->g.n[get].in[0]);
    m->time = arg_of(f, nvars, f->g.n[get].in[1]);
    return wk >= 0 && m->in >= 0 && m->time >= 0 &&
           tfs_og__type_attr(&f->g, get, "element_dtype") == TFS_FLOAT;
  }
  if (m->u >= 0 || arg_of(f, nvars, f->g.n[p].in[0]) != m->h) return 0;
  m->u = wk;
  return wk >= 0;
}

/* Loop variable k's next value is its argument plus one. */
static int increments(const ll_fn *f, int nvars, int k) {
  tfs_oref r = f->ret[k];
  int p = r.node;
  if (r.port != 0 ||
      (!tfs_og__is(&f->g, p, "AddV2") && !tfs_og__is(&f->g, p, "Add")))
    return 0;
  for (int o = 0; o < 2; o++) {
    int64_t one = 0;
    if (arg_of(f, nvars, f->g.n[p].in[o]) == k &&
        int_const(f, f->g.n[p].in[1 - o], &one) && one == 1)
      return 1;
  }
  return 0;
}

static int passes_through(const ll_fn *f, int nvars, int k) {
  return arg_of(f, nvars, f->ret[k]) == k;
}

/* The list written at each step and h' behind it. */
static int match_output(const ll_fn *f, int nvars, ll_match *m) {
  for (int k = 0; k < nvars; k++) {
    tfs_oref r = f->ret[k];
    if (r.port != 0 || !tfs_og__is(&f->g, r.node, "TensorListSetItem") ||
        arg_of(f, nvars, f->g.n[r.node].in[0]) != k)
      continue;
    if (m->out >= 0 ||
        tfs_og__type_attr(&f->g, r.node, "element_dtype") != TFS_FLOAT)
      return 0;
    m->out = k;
    see(m, r.node);
  }
  return m->out >= 0;
}

/* The loop variable whose next value is node p's output 0; -1 when none
 * or more than one is. */
static int var_of_ret(const ll_fn *f, int nvars, int p) {
  int v = -1;
  for (int k = 0; k < nvars; k++) {
    if (f->ret[k].node != p || f->ret[k].port != 0) continue;
    if (v >= 0) return -1;
    v = k;
  }
  return v;
}

/* h' = Sigmoid(o) * Tanh(c') at node hn, c' and z below it. */
static int match_cell(const ll_fn *f, int nvars, int hn, ll_match *m) {
  for (int o = 0; o < 2; o++) {
    int sg = input_op(f, hn, o, "Sigmoid", 0);
    int th = input_op(f, hn, 1 - o, "Tanh", 0);
    if (sg < 0 || th < 0) continue;
    tfs_oref sr = skip_identity(&f->g, f->g.n[sg].in[0]);
    tfs_oref cr = skip_identity(&f->g, f->g.n[th].in[0]);
    int split = sr.node;
    int64_t axis = 0;
    if (split < 0 || !tfs_og__is(&f->g, split, "Split") ||
        f->g.n[split].nout != 4 || cr.port != 0 ||
        !int_const(f, f->g.n[split].in[0], &axis) || (axis != 1 && axis != -1))
      return 0;
    m->c = var_of_ret(f, nvars, cr.node);
    if (m->c < 0 || !match_c(f, nvars, cr.node, split, m)) return 0;
    m->gates[3] = sr.port;
    see(m, sg);
    see(m, th);
    see(m, split);
    unsigned mask = 0;
    for (int g = 0; g < 4; g++) mask |= 1u << m->gates[g];
    ll_sum s;
    memset(&s, 0, sizeof s);
    if (mask != 15 || !collect(f, f->g.n[split].in[1], 0, 0, &s, m) ||
        s.n != 3)
      return 0;
    for (int i = 0; i < 3; i++)
      if (!leaf(f, nvars, s.leaf[i], s.bias_operand[i], m)) return 0;
    return m->w >= 0 && m->u >= 0 && m->b >= 0;
  }
  return 0;
}

/* Every node of the body is the pattern's, a Const, an Identity, a NoOp
 * or an argument. */
static int covered(const ll_fn *f, const ll_match *m) {
  if (m->nseen >= LL_SEEN) return 0;
  for (int i = 0; i < f->g.nn; i++) {
    if (!tfs_og__live(&f->g, i) || tfs_og__is(&f->g, i, "Const") ||
        tfs_og__is(&f->g, i, "Identity") || tfs_og__is(&f->g, i, "NoOp") ||
        tfs_og__is(&f->g, i, "Placeholder"))
      continue;
    int found = 0;
    for (int k = 0; k < m->nseen && !found; k++) found = m->seen[k] == i;
    if (!found) return 0;
  }
  return 1;
}

static int match_body(const ll_fn *f, int nvars, ll_match *m) {
  if (!match_output(f, nvars, m)) return 0;
  int set = f->ret[m->out].node;
  tfs_oref hr = skip_identity(&f->g, f->g.n[set].in[2]);
  if (hr.port != 0 || !tfs_og__is(&f->g, hr.node, "Mul")) return 0;
  m->h = var_of_ret(f, nvars, hr.node);
  see(m, hr.node);
  if (m->h < 0 || !match_cell(f, nvars, hr.node, m) ||
      !increments(f, nvars, m->time))
    return 0;
  for (int k = 0; k < nvars; k++)
    if (k != m->time && increments(f, nvars, k)) {
      if (m->cnt >= 0) return 0;
      m->cnt = k;
    }
  if (m->cnt < 0) return 0;
  see(m, f->ret[m->time].node);
  see(m, f->ret[m->cnt].node);
  tfs_oref ix = f->g.n[set].in[1];
  int64_t v = -1;
  if (int_const(f, ix, &v)) {
    if (v < 0) return 0;
    m->out_index = v;
  } else if (arg_of(f, nvars, ix) != m->time) {
    return 0;
  }
  /* the five variables the loop changes are distinct; the others pass */
  int changed[5] = {m->cnt, m->time, m->out, m->h, m->c};
  for (int a = 0; a < 5; a++) {
    if (changed[a] < 0 || passes_through(f, nvars, changed[a])) return 0;
    for (int b = a + 1; b < 5; b++)
      if (changed[a] == changed[b]) return 0;
  }
  for (int k = 0; k < nvars; k++) {
    int ch = 0;
    for (int a = 0; a < 5; a++) ch |= changed[a] == k;
    if (!ch && !passes_through(f, nvars, k)) return 0;
  }
  return covered(f, m);
}

/* counter < max_iterations && time < limit, in either order, or time <
 * limit alone (a tf.while_loop without maximum_iterations). */
static int match_cond(const ll_fn *cf, const ll_fn *bf, int nvars,
                      ll_match *m) {
  tfs_oref r = cf->ret[0];
  int and = tfs_og__is(&cf->g, r.node, "LogicalAnd");
  if (r.port != 0 || (!and && !tfs_og__is(&cf->g, r.node, "Less")))
    return 0;
  int found = and ? 0 : 1;
  for (int o = 0; o < (and ? 2 : 1); o++) {
    int less = and ? input_op(cf, r.node, o, "Less", 0) : r.node;
    if (less < 0) return 0;
    int x = arg_of(cf, nvars, cf->g.n[less].in[0]);
    int y = arg_of(cf, nvars, cf->g.n[less].in[1]);
    if (x == m->cnt && y >= 0 && passes_through(bf, nvars, y)) {
      m->max = y;
      found |= 1;
    } else if (x == m->time && y >= 0 && passes_through(bf, nvars, y)) {
      m->limit = y;
      found |= 2;
    } else if (x == m->time) {
      tfs_oref lr = skip_identity(&cf->g, cf->g.n[less].in[1]);
      const tfs_tensor *t = tfs_og__const_value(&cf->g, lr);
      if (!t || t->dtype != TFS_INT32 || t->shape.rank != 0) return 0;
      m->limit_value = t;
      found |= 2;
    }
  }
  if (found != 3) return 0;
  /* nothing else in the condition */
  int others = 0;
  for (int i = 0; i < cf->g.nn; i++)
    if (tfs_og__live(&cf->g, i) && !tfs_og__is(&cf->g, i, "Const") &&
        !tfs_og__is(&cf->g, i, "Identity") &&
        !tfs_og__is(&cf->g, i, "Placeholder") &&
        !tfs_og__is(&cf->g, i, "NoOp"))
      others++;
  return others == (and ? 3 : 1); /* LogicalAnd and two Less, or one */
}

static int is_type(const tfs_ograph *g, tfs_oref r, tfs_dtype t) {
  return tfs_dtype_base(tfs_og__dtype(g, r)) == t;
}

/* The loop's inputs have the dtypes and, where the body relies on them,
 * the shapes the op takes. */
static int inputs_ok(const tfs_ograph *g, int w, const ll_match *m) {
  const tfs_oref *in = g->n[w].in;
  int ints[4] = {m->cnt, m->max, m->time, m->limit};
  for (int k = 0; k < 4; k++)
    if (ints[k] >= 0 && !is_type(g, in[ints[k]], TFS_INT32)) return 0;
  int floats[5] = {m->h, m->c, m->w, m->u, m->b};
  for (int k = 0; k < 5; k++)
    if (!is_type(g, in[floats[k]], TFS_FLOAT)) return 0;
  if (!is_type(g, in[m->out], TFS_VARIANT) ||
      !is_type(g, in[m->in], TFS_VARIANT))
    return 0;
  /* a squeezed product is a vector only at batch 1; an added bias
   * broadcasts as BiasAdd's only when it is a vector */
  const tfs_shape *hs = tfs_og__shape(g, in[m->h]);
  const tfs_shape *bs = tfs_og__shape(g, in[m->b]);
  if (m->squeezed && (hs->rank != 2 || hs->dims[0] != 1)) return 0;
  if (!m->bias_operand && bs->rank != 1) return 0;
  return 1;
}

/* Builds the op for While w and moves the loop's consumers to it. */
static int rewrite(tfs_opt_ctx *c, int w, const ll_match *m) {
  tfs_ograph *g = c->g;
  const char *dev = g->n[w].device;
  int nvars = g->n[w].nin;
  tfs_oref in[11];
  const tfs_oref *win = g->n[w].in;
  int roles[11] = {m->cnt, m->max, m->time, m->limit, m->out, m->h,
                   m->c,   m->in,  m->w,    m->u,     m->b};
  tfs_attrs a;
  tfs_attrs_init(&a);
  if (tfs_opt__set_type(&a, "T", TFS_FLOAT) ||
      tfs_opt__set_int(&a, "output_index", m->out_index) ||
      tfs_opt__set_ints(&a, "gate_order", m->gates, 4)) {
    tfs_attrs_clear(&a);
    TFS_OOM(c->st);
    return -1;
  }
  /* the time stands for a limit or maximum made below, for the check */
  for (int k = 0; k < 11; k++)
    in[k] = roles[k] >= 0 ? win[roles[k]] : win[m->time];
  tfs_shape scalar = {0};
  if (!tfs_opt__kernel_accepts(g, dev, "_TfsLstmSequence", &a, 11, in,
                               TFS_INT32, &scalar, g->n[w].name)) {
    tfs_attrs_clear(&a);
    return 0;
  }
  char *base = tfs_asprintf("%s/LstmSequence", g->n[w].name);
  if (!base) {
    tfs_attrs_clear(&a);
    TFS_OOM(c->st);
    return -1;
  }
  if (m->max < 0) { /* no maximum_iterations: the int32 maximum */
    int k = tfs_opt__scalar_const(c, TFS_INT32, 2147483647.0, base, dev);
    if (k < 0) {
      tfs_attrs_clear(&a);
      tfs_free(base);
      return -1;
    }
    in[1] = (tfs_oref){k, 0};
  }
  if (m->limit < 0) {
    int k = tfs_opt__const(c, (tfs_tensor *)m->limit_value, base, dev);
    if (k < 0) {
      tfs_attrs_clear(&a);
      tfs_free(base);
      return -1;
    }
    in[3] = (tfs_oref){k, 0};
  }
  tfs_onode_spec spec = {.base = base, .op = "_TfsLstmSequence",
                         .device = dev, .attrs = &a, .nin = 11, .in = in,
                         .nctrl = g->n[w].nctrl, .ctrl = g->n[w].ctrl,
                         .norig_from = 1, .orig_from = &w};
  int r = tfs_og__add(g, &spec, c->st);
  tfs_free(base);
  if (r < 0) return -1;
  /* the loop's outputs: the five it changes from the op, the others are
   * its inputs */
  int port[5] = {m->cnt, m->time, m->out, m->h, m->c};
  for (int k = 0; k < nvars; k++) {
    tfs_oref to = g->n[w].in[k];
    for (int p = 0; p < 5; p++)
      if (port[p] == k) to = (tfs_oref){r, p};
    if (tfs_og__forward(g, (tfs_oref){w, k}, to)) {
      TFS_OOM(c->st);
      return -1;
    }
  }
  if (tfs_og__forward_ctrl(g, w, &r, 1)) {
    TFS_OOM(c->st);
    return -1;
  }
  tfs_og__kill(g, w);
  return 1;
}

static int remap_on(const tfs_opt_config *cfg) {
  for (int i = 0; i < cfg->npasses; i++)
    if (cfg->passes[i] == TFS_PASS_REMAP) return 1;
  return 0;
}

int tfs_remap__lstm_loop(tfs_opt_ctx *c, int w) {
  tfs_ograph *g = c->g;
  if (c->cfg->tf_compatible || !c->src || !remap_on(c->cfg) ||
      !tfs_og__live(g, w) ||
      (!tfs_og__is(g, w, "While") && !tfs_og__is(g, w, "StatelessWhile")) ||
      (g->n[w].flags & (TFS_ON_FED | TFS_ON_PRESERVED)) ||
      g->n[w].nin != g->n[w].nout || g->n[w].nin < 9 ||
      !tfs_opt__device_is(g->n[w].device, "CPU") ||
      tfs_fnopt__xla_marked(g->n[w].attrs))
    return 0;
  int nvars = g->n[w].nin, rc = 0;
  ll_fn body, cond;
  ll_match m;
  memset(&m, 0, sizeof m);
  m.cnt = m.max = m.time = m.limit = m.out = m.h = m.c = -1;
  m.in = m.w = m.u = m.b = -1;
  m.out_index = -1;
  memset(&cond, 0, sizeof cond);
  if (ll_load(c, w, "body", nvars, nvars, &body) == 0 &&
      match_body(&body, nvars, &m) &&
      ll_load(c, w, "cond", nvars, 1, &cond) == 0 &&
      match_cond(&cond, &body, nvars, &m) && inputs_ok(g, w, &m))
    rc = rewrite(c, w, &m);
  ll_free(&cond);
  ll_free(&body);
  return rc;
}
