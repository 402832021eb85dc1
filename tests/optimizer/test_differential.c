/*
 * tests/optimizer/test_differential.c - differential tests of the
 * optimizer: random graphs (randgraph.c) run with the optimizer off, with
 * each pass alone and with the whole pipeline, and every fetched tensor
 * is compared: bit-exact (NaN equal to NaN) for passes that only move
 * values, within a tolerance for passes that change rounding (and for
 * constant folding where it pushed a Mul into a convolution's filter;
 * not compared then on ill-conditioned graphs), within the documented
 * mixed-precision tolerance for auto mixed precision.
 *
 * make check runs TFS_OPT_FUZZ_GRAPHS graphs (default 1500) from seed
 * TFS_OPT_FUZZ_SEED (default 1); `TFS_OPT_FUZZ_GRAPHS=100000
 * ./test_differential` is the long run.  TFS_OPT_FUZZ_VERBOSE=1 prints
 * every failing graph's report.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "config_proto/config.h"
#include "core/cpu.h"
#include "randgraph.h"
#include "testutil.h"

enum { CMP_EXACT, CMP_TOL, CMP_AMP };

typedef struct variant {
  const char *name;
  const char *passes; /* NULL: the default pipeline */
  int cmp;
  int layout;    /* cpu_layout_conversion */
  int amp;       /* turn auto_mixed_precision_onednn_bfloat16 on, with
                  * the bfloat16 decision forced on (any host) */
  int unsafe_ok; /* also on graphs with ill-conditioned ops */
} variant;

static const variant kVariants[] = {
    {"pruning", "pruning", CMP_EXACT, 0, 0, 1},
    {"cse", "common_subgraph_elimination", CMP_EXACT, 0, 0, 1},
    {"constfold", "constfold", CMP_EXACT, 0, 0, 1},
    {"dependency", "dependency", CMP_EXACT, 0, 0, 1},
    {"exact passes",
     "pruning,common_subgraph_elimination,constfold,"
     "dependency",
     CMP_EXACT, 0, 0, 1},
    {"layout NCHW", "layout", CMP_TOL, 2, 0, 0},
    {"arithmetic", "arithmetic", CMP_TOL, 0, 0, 0},
    {"remap", "remap", CMP_TOL, 0, 0, 0},
    {"all", NULL, CMP_TOL, 0, 0, 0},
    {"all + layout NCHW", NULL, CMP_TOL, 2, 0, 0},
    {"all + amp", NULL, CMP_AMP, 0, 1, 0},
};
#define NVARIANTS ((int)(sizeof(kVariants) / sizeof(kVariants[0])))

static long g_runs, g_graphs, g_skipped, g_failed, g_unstable, g_amp_lowered;

static long env_long(const char *name, long def) {
  const char *v = getenv(name);
  return v && *v ? strtol(v, NULL, 10) : def;
}

/* ConfigProto bytes: min_graph_nodes -1, the layout and AMP toggles, and
 * disable_meta_optimizer for sessions that must not optimize again;
 * device_count {GPU: 0}, as the comparisons are exact: every graph runs
 * on the CPU's kernels, also on machines with a GPU (whose kernels round
 * differently). */
static void config_bytes(int layout, int amp, int disable, tfs_buffer *out) {
  static char gpu[] = "GPU";
  tfs_config_device_count no_gpu = {gpu, 0};
  tfs_config c;
  tfs_config__init(&c);
  c.ndevice_count = 1;
  c.device_count = &no_gpu;
  c.has_graph_options = 1;
  c.graph_options.has_rewrite_options = 1;
  tfs_rewriter_config *rc = &c.graph_options.rewrite_options;
  rc->min_graph_nodes = -1;
  rc->cpu_layout_conversion = layout;
  if (amp) rc->auto_mixed_precision_onednn_bfloat16 = TFS_TOGGLE_ON;
  rc->disable_meta_optimizer = disable;
  tfs_status *st = tfs_status_new();
  tfs_config__serialize(&c, out, st);
  CU_ASSERT_EQUAL_FATAL(tfs_status_code(st), TFS_OK);
  tfs_status_free(st);
  c.ndevice_count = 0; /* not the config's to free */
  c.device_count = NULL;
  tfs_config__clear(&c);
}

/* Runs `g` with feeds and fetches named as in r; outs receive tensors
 * (NULL on failure, then returns -1 and msg holds why). */
static int run_graph(tfs_graph *g, const rg_graph *r, tfs_tensor **outs,
                     char *msg, size_t cap) {
  tfs_status *st = tfs_status_new();
  tfs_session_options *o = tfs_session_options_new();
  tfs_buffer *cfg = tfs_buffer_new();
  config_bytes(0, 0, 1, cfg);
  tfs_session_options_set_config(o, cfg->data, cfg->length, st);
  tfs_session_options_set_inter_op_threads(o, -1);
  tfs_session_options_set_intra_op_threads(o, 1);
  tfs_buffer_free(cfg);
  tfs_output feeds[RG_MAX_FEEDS], fetches[RG_MAX_FETCHES];
  int rc = -1;
  tfs_session *s = NULL;
  for (int i = 0; i < r->nfeeds; i++) {
    char name[256];
    snprintf(name, sizeof name, "%s:%d", tfs_operation_name(r->feeds[i].oper),
             r->feeds[i].index);
    feeds[i] = tfs_graph_output_by_name(g, name, st);
    if (!feeds[i].oper) goto done;
  }
  for (int i = 0; i < r->nfetches; i++) {
    char name[256];
    snprintf(name, sizeof name, "%s:%d", tfs_operation_name(r->fetches[i].oper),
             r->fetches[i].index);
    fetches[i] = tfs_graph_output_by_name(g, name, st);
    if (!fetches[i].oper) goto done;
  }
  s = tfs_session_new(g, o, st);
  if (!s) goto done;
  tfs_session_run(s, feeds, r->feed_values, r->nfeeds, fetches, outs,
                  r->nfetches, NULL, 0, st);
  rc = tfs_status_ok(st) ? 0 : -1;
done:
  if (rc) snprintf(msg, cap, "%s", tfs_status_message(st));
  tfs_session_free(s);
  tfs_session_options_free(o);
  tfs_status_free(st);
  return rc;
}

static double elem(const tfs_tensor *t, int64_t i) {
  const void *d = tfs_tensor_data(t);
  switch (tfs_tensor_dtype(t)) {
    case TFS_FLOAT:
      return ((const float *)d)[i];
    case TFS_DOUBLE:
      return ((const double *)d)[i];
    case TFS_INT32:
      return ((const int32_t *)d)[i];
    case TFS_INT64:
      return (double)((const int64_t *)d)[i];
    case TFS_BOOL:
      return ((const uint8_t *)d)[i];
    default:
      return 0;
  }
}

/* 0 when b matches the reference a under `cmp`; else -1 with why. */
static int compare(const tfs_tensor *a, const tfs_tensor *b, int cmp, char *why,
                   size_t cap) {
  if (tfs_tensor_dtype(a) != tfs_tensor_dtype(b) ||
      tfs_tensor_ndims(a) != tfs_tensor_ndims(b)) {
    snprintf(why, cap, "dtype/rank %d/%d vs %d/%d", tfs_tensor_dtype(a),
             tfs_tensor_ndims(a), tfs_tensor_dtype(b), tfs_tensor_ndims(b));
    return -1;
  }
  for (int i = 0; i < tfs_tensor_ndims(a); i++)
    if (tfs_tensor_dim(a, i) != tfs_tensor_dim(b, i)) {
      snprintf(why, cap, "dim %d: %lld vs %lld", i,
               (long long)tfs_tensor_dim(a, i),
               (long long)tfs_tensor_dim(b, i));
      return -1;
    }
  int64_t n = tfs_tensor_num_elements(a);
  int fl =
      tfs_tensor_dtype(a) == TFS_FLOAT || tfs_tensor_dtype(a) == TFS_DOUBLE;
  if (!fl || cmp == CMP_EXACT) {
    size_t bytes = tfs_tensor_byte_size(a);
    if (!fl && memcmp(tfs_tensor_data(a), tfs_tensor_data(b), bytes) == 0)
      return 0;
  }
  double amax = 0;
  for (int64_t i = 0; i < n; i++) {
    double v = fabs(elem(a, i));
    if (isfinite(v) && v > amax) amax = v;
  }
  for (int64_t i = 0; i < n; i++) {
    double x = elem(a, i), y = elem(b, i);
    if (x == y || (isnan(x) && isnan(y))) continue;
    double tol = 0;
    if (fl && cmp == CMP_TOL) tol = 1e-4 * fabs(x) + 1e-5 * (1 + amax);
    if (fl && cmp == CMP_AMP) tol = 0.05 * fabs(x) + 0.05 * (1 + amax);
    if (fl && isfinite(x) && isfinite(y) && fabs(x - y) <= tol) continue;
    snprintf(why, cap, "element %lld: %.9g vs %.9g", (long long)i, x, y);
    return -1;
  }
  return 0;
}

static void dump_failure(const rg_graph *r, uint64_t seed, const variant *v,
                         tfs_optimizer_report *rep, const char *why) {
  fprintf(stderr, "\n  seed %llu variant '%s': %s\n", (unsigned long long)seed,
          v->name, why);
  if (!env_long("TFS_OPT_FUZZ_VERBOSE", 0)) return;
  size_t pos = 0;
  tfs_operation *op;
  while ((op = tfs_graph_next_operation(r->g, &pos))) {
    fprintf(stderr, "    %s = %s(", tfs_operation_name(op),
            tfs_operation_op_type(op));
    for (int k = 0; k < tfs_operation_num_inputs(op); k++) {
      tfs_output in = tfs_operation_input((tfs_input){op, k});
      fprintf(stderr, "%s%s:%d", k ? ", " : "", tfs_operation_name(in.oper),
              in.index);
    }
    fprintf(stderr, ")\n");
  }
  char *txt = rep ? tfs_optimizer_report_to_string(rep) : NULL;
  if (txt) fprintf(stderr, "%s", txt);
  free(txt);
}

/* Debugging aid (TFS_OPT_FUZZ_VERBOSE=2): the first node, in the
 * original's order, whose output differs between the two graphs. */
static void first_divergence(const rg_graph *r, tfs_graph *og) {
  size_t pos = 0;
  tfs_operation *op;
  while ((op = tfs_graph_next_operation(r->g, &pos))) {
    if (tfs_operation_num_outputs(op) < 1) continue;
    tfs_operation *o2 = tfs_graph_operation_by_name(og, tfs_operation_name(op));
    if (!o2 || tfs_operation_num_outputs(o2) < 1) continue;
    rg_graph one = *r;
    one.nfetches = 1;
    one.fetches[0] = (tfs_output){op, 0};
    tfs_tensor *a[1] = {NULL}, *b[1] = {NULL};
    char why[256];
    if (run_graph(r->g, &one, a, why, sizeof why) == 0 &&
        run_graph(og, &one, b, why, sizeof why) == 0 &&
        compare(a[0], b[0], CMP_EXACT, why, sizeof why)) {
      fprintf(stderr,
              "    first divergence: %s (%s in the original, %s "
              "optimized): %s; inputs",
              tfs_operation_name(op), tfs_operation_op_type(op),
              tfs_operation_op_type(o2), why);
      for (int k = 0; k < tfs_operation_num_inputs(o2); k++) {
        tfs_output in = tfs_operation_input((tfs_input){o2, k});
        int64_t d[8];
        tfs_status *s2 = tfs_status_new();
        int rank = tfs_graph_tensor_num_dims(og, in, s2);
        if (rank >= 0 && rank <= 8) tfs_graph_tensor_shape(og, in, d, rank, s2);
        fprintf(stderr, " %s(%s) [", tfs_operation_name(in.oper),
                tfs_operation_op_type(in.oper));
        for (int q = 0; q < rank; q++)
          fprintf(stderr, "%s%lld", q ? "," : "", (long long)d[q]);
        fprintf(stderr, "]");
        tfs_status_free(s2);
      }
      fprintf(stderr, "\n");
      tfs_tensor_free(a[0]);
      tfs_tensor_free(b[0]);
      return;
    }
    tfs_tensor_free(a[0]);
    tfs_tensor_free(b[0]);
  }
}

/* 1 when some node of og computes in bfloat16 (AMP lowered it). */
static int has_bf16_node(tfs_graph *og) {
  size_t pos = 0;
  tfs_operation *op;
  int found = 0;
  while (!found && (op = tfs_graph_next_operation(og, &pos))) {
    if (strcmp(tfs_operation_op_type(op), "Cast") == 0) continue;
    found = tfs_operation_num_outputs(op) > 0 &&
            tfs_operation_output_type((tfs_output){op, 0}) == TFS_BFLOAT16;
  }
  return found;
}

/* One variant on one graph; returns 0 when it matched the reference. */
/* 1 when a pass of rep pushed a constant Mul into a convolution's filter
 * (constant folding, as TensorFlow's: conv(x, W) * C becomes conv(x, W *
 * C), which rounds differently, so an exact pass list is then compared
 * with the tolerance). */
static int pushed_into_filter(tfs_optimizer_report *rep) {
  for (int i = 0; rep && i < tfs_optimizer_report_num_entries(rep); i++) {
    const char *s = tfs_optimizer_report_summary(rep, i);
    if (s && strstr(s, "Mul pushed into a convolution's filter")) return 1;
  }
  return 0;
}

static int check_variant(const rg_graph *r, uint64_t seed, const variant *v,
                         int safe, tfs_tensor **ref) {
  tfs_status *st = tfs_status_new();
  tfs_optimizer_options *o = tfs_optimizer_options_new();
  tfs_buffer *cfg = tfs_buffer_new();
  config_bytes(v->layout, v->amp, 0, cfg);
  tfs_optimizer_options_set_config(o, cfg->data, cfg->length, st);
  tfs_buffer_free(cfg);
  if (v->passes) tfs_optimizer_options_set_passes(o, v->passes, st);
  tfs_optimizer_report *rep = NULL;
  if (v->amp) tfs_cpu__set_bf16(1);
  tfs_graph *og = tfs_graph_optimize(r->g, r->feeds, r->nfeeds, r->fetches,
                                     r->nfetches, NULL, 0, o, &rep, st);
  if (v->amp) tfs_cpu__set_bf16(-1);
  if (v->amp && og && has_bf16_node(og)) g_amp_lowered++;
  int bad = 0;
  char why[512] = "";
  if (!og) {
    snprintf(why, sizeof why, "optimize failed: %s", tfs_status_message(st));
    bad = 1;
  }
  for (int i = 0; !bad && rep && i < tfs_optimizer_report_num_entries(rep); i++)
    if (tfs_optimizer_report_code(rep, i) != TFS_OK) {
      snprintf(why, sizeof why, "pass %s failed: %s",
               tfs_optimizer_report_pass(rep, i),
               tfs_optimizer_report_error(rep, i));
      bad = 1;
    }
  tfs_tensor *outs[RG_MAX_FETCHES] = {NULL};
  if (!bad && run_graph(og, r, outs, why, sizeof why)) bad = 1;
  int cmp = v->cmp;
  if (cmp == CMP_EXACT && pushed_into_filter(rep)) cmp = safe ? CMP_TOL : -1;
  for (int i = 0; !bad && cmp >= 0 && i < r->nfetches; i++) {
    char w[400];
    if (compare(ref[i], outs[i], cmp, w, sizeof w)) {
      snprintf(why, sizeof why, "fetch %s:%d %s",
               tfs_operation_name(r->fetches[i].oper), r->fetches[i].index, w);
      bad = 1;
    }
  }
  g_runs++;
  if (bad) dump_failure(r, seed, v, rep, why);
  if (bad && og && env_long("TFS_OPT_FUZZ_VERBOSE", 0) > 1)
    first_divergence(r, og);
  for (int i = 0; i < r->nfetches; i++) tfs_tensor_free(outs[i]);
  tfs_optimizer_report_free(rep);
  tfs_graph_free(og);
  tfs_optimizer_options_free(o);
  tfs_status_free(st);
  return bad ? -1 : 0;
}

static int same_outputs(tfs_tensor **a, tfs_tensor **b, int n) {
  char why[256];
  for (int i = 0; i < n; i++)
    if (compare(a[i], b[i], CMP_EXACT, why, sizeof why)) return 0;
  return 1;
}

static void run_seed(uint64_t seed, int nodes) {
  rg_graph r;
  tfs_status *st = tfs_status_new();
  int safe = seed % 3 != 0;
  if (rg_build(&r, seed, nodes, safe, st)) {
    rg_free(&r);
    tfs_status_free(st);
    g_skipped++;
    return;
  }
  tfs_tensor *ref[RG_MAX_FETCHES] = {NULL}, *again[RG_MAX_FETCHES] = {NULL};
  char msg[512];
  int stable = 1;
  if (run_graph(r.g, &r, ref, msg, sizeof msg)) {
    g_skipped++; /* the graph itself fails at run time */
    if (env_long("TFS_OPT_FUZZ_VERBOSE", 0))
      fprintf(stderr, "\n  seed %llu: the graph fails: %s\n",
              (unsigned long long)seed, msg);
  } else if (run_graph(r.g, &r, again, msg, sizeof msg) ||
             !(stable = same_outputs(ref, again, r.nfetches))) {
    /* two runs of the unoptimized graph disagree: a kernel reads memory
     * it did not write, or converts NaN differently by code path */
    fprintf(stderr,
            "\n  seed %llu: the unoptimized graph is not "
            "deterministic; skipped\n",
            (unsigned long long)seed);
    g_unstable++;
    g_skipped++;
  } else {
    g_graphs++;
    for (int k = 0; k < NVARIANTS; k++) {
      if (!safe && !kVariants[k].unsafe_ok) continue;
      int ok = check_variant(&r, seed, &kVariants[k], safe, ref) == 0;
      if (!ok) g_failed++;
      CU_ASSERT_TRUE(ok);
    }
  }
  for (int i = 0; i < r.nfetches; i++) {
    tfs_tensor_free(ref[i]);
    tfs_tensor_free(again[i]);
  }
  (void)stable;
  rg_free(&r);
  tfs_status_free(st);
}

static void test_optimizer_differential__random_graphs(void) {
  long count = env_long("TFS_OPT_FUZZ_GRAPHS", 1500);
  long first = env_long("TFS_OPT_FUZZ_SEED", 1);
  int nodes = (int)env_long("TFS_OPT_FUZZ_NODES", 14);
  g_runs = g_graphs = g_skipped = g_failed = g_unstable = 0;
  g_amp_lowered = 0;
  for (long s = first; s < first + count; s++) run_seed((uint64_t)s, nodes);
  printf(
      "\n  %ld random graphs (%ld skipped, %ld of them not "
      "deterministic unoptimized), %ld optimized variants run, %ld "
      "mismatches; auto mixed precision lowered ops to bfloat16 in %ld\n",
      g_graphs, g_skipped, g_unstable, g_runs, g_failed, g_amp_lowered);
  CU_ASSERT_TRUE(g_graphs > count * 9 / 10);
  /* the AMP variant compared bfloat16 graphs, not unchanged ones */
  CU_ASSERT_TRUE(g_amp_lowered > g_graphs / 20);
}

static const tfs_test_case kCases[] = {
    {"random_graphs", test_optimizer_differential__random_graphs},
    {NULL, NULL},
};

const tfs_test_suite tfs_test_suites[] = {
    {"optimizer_differential", kCases},
    {NULL, NULL},
};
