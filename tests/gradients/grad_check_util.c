/*
 * tests/gradients/grad_check_util.c - numeric gradient checks: central
 * differences of a weighted sum of an op's output against the symbolic
 * gradient tfs_gradients builds.
 */
#include "grad_check_util.h"

#include <CUnit/CUnit.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#define MAXIN 6

/* Set when a case's graph could not be built; the case then fails. */
static int g_build_failed;

tfs_output gc_out(tfs_output o, int k) {
  tfs_output r = {o.oper, k};
  return r;
}

static tfs_dtype parse_type(const char *v) {
  if (!strcmp(v, "float")) return TFS_FLOAT;
  if (!strcmp(v, "double")) return TFS_DOUBLE;
  if (!strcmp(v, "int32")) return TFS_INT32;
  if (!strcmp(v, "int64")) return TFS_INT64;
  if (!strcmp(v, "complex64")) return TFS_COMPLEX64;
  if (!strcmp(v, "complex128")) return TFS_COMPLEX128;
  return TFS_INVALID;
}

static void set_attr(tfs_op_desc *d, const char *name, const char *kind,
                     const char *v) {
  if (!strcmp(kind, "i")) {
    tfs_op_desc_set_attr_int(d, name, strtoll(v, NULL, 10));
  } else if (!strcmp(kind, "f")) {
    tfs_op_desc_set_attr_float(d, name, strtof(v, NULL));
  } else if (!strcmp(kind, "b")) {
    tfs_op_desc_set_attr_bool(d, name, atoi(v));
  } else if (!strcmp(kind, "t")) {
    tfs_op_desc_set_attr_type(d, name, parse_type(v));
  } else if (!strcmp(kind, "s")) {
    tfs_op_desc_set_attr_string(d, name, v, strlen(v));
  } else if (!strcmp(kind, "li") || !strcmp(kind, "sh")) {
    int64_t vals[16];
    int n = 0;
    for (const char *p = v; *p && n < 16;) {
      char *end;
      vals[n++] = strtoll(p, &end, 10);
      p = *end == ',' ? end + 1 : end;
    }
    if (kind[0] == 's')
      tfs_op_desc_set_attr_shape(d, name, vals, n);
    else
      tfs_op_desc_set_attr_int_list(d, name, vals, n);
  }
}

tfs_output gc_op(tfs_graph *g, const char *type, const tfs_output *in,
                 int nin, const char *attrs) {
  tfs_status *st = tfs_status_new();
  tfs_op_desc *d = tfs_op_desc_new(g, type, NULL);
  for (int i = 0; i < nin; i++) tfs_op_desc_add_input(d, in[i]);
  char buf[512];
  snprintf(buf, sizeof buf, "%s", attrs ? attrs : "");
  for (char *save = NULL, *kv = strtok_r(buf, ";", &save); kv;
       kv = strtok_r(NULL, ";", &save)) {
    char *eq = strchr(kv, '='), *colon = eq ? strchr(eq, ':') : NULL;
    if (!eq || !colon) continue;
    *eq = 0;
    *colon = 0;
    set_attr(d, kv, eq + 1, colon + 1);
  }
  tfs_operation *op = tfs_op_desc_finish(d, st);
  if (!op) {
    if (!g_build_failed)
      fprintf(stderr, "\n  building %s: %s\n", type, tfs_status_message(st));
    g_build_failed = 1;
  }
  tfs_status_free(st);
  tfs_output o = {op, 0};
  return o;
}

static int parse_shape(const char *s, int64_t *dims) {
  if (!strcmp(s, "s")) return 0;
  int r = 0;
  for (const char *p = s; *p && r < 8;) {
    char *end;
    dims[r++] = strtoll(p, &end, 10);
    p = *end == 'x' ? end + 1 : end;
  }
  return r;
}

static int64_t count(const int64_t *dims, int r) {
  int64_t n = 1;
  for (int i = 0; i < r; i++) n *= dims[i];
  return n;
}

static tfs_tensor *make(tfs_dtype dt, const int64_t *dims, int r,
                        const double *v) {
  tfs_status *st = tfs_status_new();
  tfs_tensor *t = tfs_tensor_new(dt, dims, r, st);
  CU_ASSERT_PTR_NOT_NULL_FATAL(t);
  tfs_status_free(st);
  int64_t n = count(dims, r);
  for (int64_t i = 0; i < n; i++) {
    switch (dt) {
      case TFS_DOUBLE: ((double *)tfs_tensor_data(t))[i] = v[i]; break;
      case TFS_FLOAT: ((float *)tfs_tensor_data(t))[i] = (float)v[i]; break;
      case TFS_INT32: ((int32_t *)tfs_tensor_data(t))[i] = (int32_t)v[i]; break;
      case TFS_INT64: ((int64_t *)tfs_tensor_data(t))[i] = (int64_t)v[i]; break;
      default: break;
    }
  }
  return t;
}

tfs_output gc_const(tfs_graph *g, tfs_dtype dt, const char *shape,
                    const double *v, int n) {
  int64_t dims[8];
  int r = parse_shape(shape, dims);
  CU_ASSERT_EQUAL_FATAL(count(dims, r), n);
  tfs_tensor *t = make(dt, dims, r, v);
  tfs_status *st = tfs_status_new();
  tfs_output o = tfs_op_const(g, NULL, t, st);
  TFS_ASSERT_OK(st);
  tfs_status_free(st);
  tfs_tensor_free(t);
  return o;
}

tfs_output gc_i32(tfs_graph *g, const int32_t *v, int n) {
  double d[16];
  for (int i = 0; i < n; i++) d[i] = v[i];
  char shape[16];
  snprintf(shape, sizeof shape, "%d", n);
  return gc_const(g, TFS_INT32, shape, d, n);
}

tfs_output gc_i32s(tfs_graph *g, int32_t v) {
  double d = v;
  return gc_const(g, TFS_INT32, "s", &d, 1);
}

tfs_output gc_f64(tfs_graph *g, double v) {
  return gc_const(g, TFS_DOUBLE, "s", &v, 1);
}

static double as_double(const tfs_tensor *t, int64_t i) {
  switch (tfs_tensor_dtype(t)) {
    case TFS_DOUBLE: return ((const double *)tfs_tensor_data(t))[i];
    case TFS_FLOAT: return ((const float *)tfs_tensor_data(t))[i];
    default: return NAN;
  }
}

static uint64_t g_rng = 88172645463325252ull;
static double urand(void) { /* xorshift64 */
  g_rng ^= g_rng << 13;
  g_rng ^= g_rng >> 7;
  g_rng ^= g_rng << 17;
  return (double)(g_rng >> 11) / 9007199254740992.0;
}

static double draw(int dom) {
  double u = urand(), s = urand() < 0.5 ? -1.0 : 1.0;
  switch (dom) {
    case GC_AWAY: return s * (0.2 + 0.8 * u);
    case GC_POS: return 0.2 + u;
    case GC_GT1: return 1.2 + u;
    case GC_UNIT: return -0.8 + 1.6 * u;
    case GC_PROB: return 0.2 + 0.6 * u;
    case GC_WIDE: return s * (0.2 + 2.8 * u);
    default: return -1.0 + 2.0 * u;
  }
}

typedef struct gc_run {
  tfs_session *s;
  int nin;
  tfs_output x[MAXIN];
  tfs_tensor *xv[MAXIN];
  tfs_output loss;
} gc_run;

static double run_loss(gc_run *r, tfs_status *st) {
  tfs_tensor *out = NULL;
  tfs_session_run(r->s, r->x, r->xv, r->nin, &r->loss, &out, 1, NULL, 0, st);
  double v = out ? as_double(out, 0) : NAN;
  tfs_tensor_free(out);
  return v;
}

/* Builds loss = sum(y * w) as a double scalar. */
static tfs_output weighted_sum(tfs_graph *g, gc_run *r, tfs_output y,
                               tfs_status *st) {
  tfs_tensor *yv = NULL;
  tfs_session_run(r->s, r->x, r->xv, r->nin, &y, &yv, 1, NULL, 0, st);
  if (!yv) return y;
  int64_t n = tfs_tensor_num_elements(yv);
  double *w = malloc(((size_t)n + 1) * sizeof *w);
  for (int64_t i = 0; i < n; i++) w[i] = draw(GC_ALL);
  tfs_tensor *wt = make(tfs_tensor_dtype(yv), tfs_tensor_dims(yv),
                        tfs_tensor_ndims(yv), w);
  free(w);
  tfs_output wc = tfs_op_const(g, "gc_w", wt, st);
  tfs_tensor_free(wt);
  tfs_tensor_free(yv);
  tfs_output m = gc_op(g, "Mul", (tfs_output[]){y, wc}, 2, NULL);
  int32_t flat = -1;
  tfs_output f = gc_op(g, "Reshape", (tfs_output[]){m, gc_i32(g, &flat, 1)},
                       2, NULL);
  tfs_output s = gc_op(g, "Sum", (tfs_output[]){f, gc_i32s(g, 0)}, 2, NULL);
  return gc_op(g, "Cast", &s, 1, "DstT=t:double");
}

static int compare(const gc_case *c, gc_run *r, const tfs_tensor *sym,
                   int k, tfs_status *st) {
  int f32 = c->dt == TFS_FLOAT;
  double rtol = f32 ? 2e-2 : 1e-5, atol = f32 ? 3e-3 : 1e-6;
  int64_t n = tfs_tensor_num_elements(r->xv[k]);
  int bad = 0;
  for (int64_t i = 0; i < n; i++) {
    double v = as_double(r->xv[k], i);
    double h = (f32 ? 1e-2 : 1e-6) * fmax(1.0, fabs(v));
    double *pd = c->dt == TFS_DOUBLE ? (double *)tfs_tensor_data(r->xv[k])
                                     : NULL;
    float *pf = pd ? NULL : (float *)tfs_tensor_data(r->xv[k]);
    if (pd) pd[i] = v + h; else pf[i] = (float)(v + h);
    double up = run_loss(r, st);
    if (pd) pd[i] = v - h; else pf[i] = (float)(v - h);
    double down = run_loss(r, st);
    if (pd) pd[i] = v; else pf[i] = (float)v;
    double num = (up - down) / (2 * h), got = as_double(sym, i);
    if (!(fabs(got - num) <= atol + rtol * fabs(num))) {
      if (!bad)
        fprintf(stderr,
                "\n  %s (%s): input %d element %lld: symbolic %.9g, numeric "
                "%.9g\n",
                c->ops, c->shapes, k, (long long)i, got, num);
      bad = 1;
    }
  }
  return bad;
}

static int graph_has(tfs_graph *g, const char *type) {
  size_t pos = 0;
  for (tfs_operation *op; (op = tfs_graph_next_operation(g, &pos));)
    if (!strcmp(tfs_operation_op_type(op), type)) return 1;
  return 0;
}

/* Every op type the case names appears in its forward graph. */
static int names_built(const gc_case *c, tfs_graph *g) {
  char buf[256];
  snprintf(buf, sizeof buf, "%s", c->ops);
  int ok = 1;
  for (char *save = NULL, *t = strtok_r(buf, ",", &save); t;
       t = strtok_r(NULL, ",", &save))
    if (!graph_has(g, t)) {
      fprintf(stderr, "\n  case %s builds no %s op\n", c->ops, t);
      ok = 0;
    }
  return ok;
}

int gc_check(const gc_case *c) {
  tfs_status *st = tfs_status_new();
  tfs_graph *g = tfs_graph_new();
  gc_run r = {0};
  char shapes[128];
  snprintf(shapes, sizeof shapes, "%s", c->shapes);
  for (char *save = NULL, *sh = strtok_r(shapes, ";", &save); sh;
       sh = strtok_r(NULL, ";", &save)) {
    int64_t dims[8];
    int rank = parse_shape(sh, dims);
    int64_t n = count(dims, rank);
    double *v = malloc(((size_t)n + 1) * sizeof *v);
    for (int64_t i = 0; i < n; i++) v[i] = draw(c->dom);
    r.xv[r.nin] = make(c->dt, dims, rank, v);
    free(v);
    char name[16];
    snprintf(name, sizeof name, "x%d", r.nin);
    r.x[r.nin] = tfs_op_placeholder(g, name, c->dt, dims, rank, st);
    TFS_ASSERT_OK(st);
    r.nin++;
  }
  g_build_failed = 0;
  tfs_output y = c->build(g, r.x);
  if (g_build_failed || !y.oper) {
    fprintf(stderr, "  case %s (%s) could not be built\n", c->ops, c->shapes);
    for (int k = 0; k < r.nin; k++) tfs_tensor_free(r.xv[k]);
    tfs_graph_free(g);
    tfs_status_free(st);
    return 1;
  }
  int bad = !names_built(c, g);
  r.s = tfs_session_new(g, NULL, st);
  TFS_ASSERT_OK(st);
  r.loss = weighted_sum(g, &r, y, st);
  tfs_output dx[MAXIN];
  if (tfs_status_ok(st))
    tfs_gradients(g, NULL, &r.loss, 1, r.x, r.nin, NULL, dx, st);
  if (!tfs_status_ok(st)) {
    fprintf(stderr, "\n  %s (%s): %s\n", c->ops, c->shapes,
            tfs_status_message(st));
    bad = 1;
  }
  for (int k = 0; k < r.nin && !bad; k++) {
    if (!dx[k].oper) {
      fprintf(stderr, "\n  %s: no gradient for input %d\n", c->ops, k);
      bad = 1;
      break;
    }
    tfs_tensor *sym = NULL;
    tfs_session_run(r.s, r.x, r.xv, r.nin, &dx[k], &sym, 1, NULL, 0, st);
    if (!tfs_status_ok(st) || tfs_tensor_num_elements(sym) !=
                                  tfs_tensor_num_elements(r.xv[k])) {
      fprintf(stderr, "\n  %s (%s) input %d: %s\n", c->ops, c->shapes, k,
              tfs_status_ok(st) ? "gradient of another size"
                                : tfs_status_message(st));
      bad = 1;
    } else {
      bad |= compare(c, &r, sym, k, st);
    }
    tfs_tensor_free(sym);
  }
  for (int k = 0; k < r.nin; k++) tfs_tensor_free(r.xv[k]);
  tfs_session_free(r.s);
  tfs_graph_free(g);
  tfs_status_free(st);
  return bad;
}
