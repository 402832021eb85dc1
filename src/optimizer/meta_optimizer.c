/*
 * optimizer/meta_optimizer.c - the meta-optimizer: selects the part of
 * the source graph a request needs, marks what must be preserved, runs
 * the pass pipeline for up to meta_optimizer_iterations or to a fixed
 * point (rolling back a pass that fails), records the report and builds
 * the new graph.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/log.h"
#include "core/status.h"
#include "graph_builder/function_lib.h"
#include "optimizer/fn_inline.h"
#include "optimizer/optimizer.h"

static const tfs_opt_pass kPasses[TFS_PASS_COUNT] = {
    [TFS_PASS_PRUNING] = {"model_pruner", "pruning", 0, tfs_pass__pruning},
    [TFS_PASS_CSE] = {"common_subgraph_elimination",
                      "common_subgraph_elimination", 0, tfs_pass__cse},
    [TFS_PASS_DEBUG_STRIPPER] = {"debug_stripper", "debug_stripper", 0,
                                 tfs_pass__debug_stripper},
    [TFS_PASS_CONSTFOLD] = {"constant_folding", "constfold", 0,
                            tfs_pass__constfold},
    [TFS_PASS_AMP] = {"auto_mixed_precision", "auto_mixed_precision", 1,
                      tfs_pass__amp},
    [TFS_PASS_ARITHMETIC] = {"arithmetic_optimizer", "arithmetic", 0,
                             tfs_pass__arithmetic},
    [TFS_PASS_LAYOUT] = {"layout", "layout", 1, tfs_pass__layout},
    [TFS_PASS_REMAP] = {"remapper", "remap", 0, tfs_pass__remap},
    [TFS_PASS_DEPENDENCY] = {"dependency_optimizer", "dependency", 0,
                             tfs_pass__dependency},
    [TFS_PASS_FUNCTION] = {"function_optimizer", "function", 0,
                           tfs_pass__function},
};

const tfs_opt_pass *tfs_optimizer__pass(tfs_pass_id id) {
  return id < TFS_PASS_COUNT ? &kPasses[id] : NULL;
}

void tfs_opt__note(tfs_opt_ctx *c, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *m = tfs_vasprintf(fmt, ap);
  va_end(ap);
  if (!m) return;
  if (c->summary.len) tfs_strbuf_puts(&c->summary, "; ");
  tfs_strbuf_puts(&c->summary, m);
  tfs_free(m);
}

/* ---- selecting and marking --------------------------------------------------
 */

static int fed_port(const tfs_opt_request *req, const tfs_operation *op,
                    int port) {
  for (int k = 0; k < req->nfeeds; k++)
    if (req->feeds[k].oper == op && req->feeds[k].index == port) return 1;
  return 0;
}

/* A fed op that plan mode replaces by a Placeholder: one output, some
 * input, a plain (not ref/resource) dtype. */
static int substitutable(const tfs_operation *op) {
  tfs_dtype t = op->noutputs == 1 ? op->out_types[0] : TFS_INVALID;
  return op->noutputs == 1 && (op->ninputs > 0 || op->ncontrol > 0) &&
         !tfs_dtype_is_ref(t) && t != TFS_RESOURCE && t != TFS_VARIANT;
}

/* Marks in keep[] what the request needs.  In plan mode, fed tensors cut
 * the graph: keep[id] = 2 marks a fed op reached only through its feeds
 * (it becomes a Placeholder). */
static int select_ops(tfs_graph *src, const tfs_opt_request *req,
                      uint8_t *keep) {
  size_t n = src->nops;
  /* outside plan mode the whole graph comes in: pruning decides */
  if (!req->cut_feeds || (req->nfetches == 0 && req->ntargets == 0)) {
    memset(keep, 1, n);
    return 0;
  }
  int *stack = tfs_malloc(sizeof(int) * (n + 1));
  if (!stack) return -1;
  int sp = 0;
#define PUSH(op)               \
  do {                         \
    if (keep[(op)->id] != 1) { \
      keep[(op)->id] = 1;      \
      stack[sp++] = (op)->id;  \
    }                          \
  } while (0)
  for (int i = 0; i < req->nfetches; i++) PUSH(req->fetches[i].oper);
  for (int i = 0; i < req->ntargets; i++) PUSH(req->targets[i]);
  do {
    while (sp) {
      tfs_operation *op = src->ops[stack[--sp]];
      for (int k = 0; k < op->ninputs; k++) {
        tfs_output in = op->inputs[k];
        if (req->cut_feeds && fed_port(req, in.oper, in.index)) {
          if (!keep[in.oper->id]) keep[in.oper->id] = 2;
          continue;
        }
        PUSH(in.oper);
      }
      for (int k = 0; k < op->ncontrol; k++) PUSH(op->control_inputs[k]);
    }
    /* every fed op stays (the plan finds feeds by name): as a Placeholder
     * when only its feeds are needed, else with its fan-in */
    for (int i = 0; i < req->nfeeds; i++) {
      tfs_operation *op = req->feeds[i].oper;
      if (keep[op->id] == 1) continue;
      if (req->cut_feeds && substitutable(op)) {
        keep[op->id] = 2;
        continue;
      }
      PUSH(op);
    }
  } while (sp);
#undef PUSH
  tfs_free(stack);
  return 0;
}

static int add_placeholder_for(tfs_ograph *g, const tfs_operation *op,
                               tfs_status *st) {
  tfs_attrs a;
  tfs_attrs_init(&a);
  tfs_attr_value v;
  tfs_attr_type_val(&v, tfs_dtype_base(op->out_types[0]));
  tfs_shape unknown;
  unknown.rank = -1;
  const tfs_shape *s = tfs_attrs_get_shape(&op->attrs, "shape");
  int rc = tfs_attrs_set(&a, "dtype", &v);
  if (!rc)
    rc = tfs_attr_shape(
        &v, (op->def->flags & TFS_OP_PLACEHOLDER) && s ? s : &unknown);
  if (!rc) rc = tfs_attrs_set(&a, "shape", &v);
  if (rc) {
    tfs_attrs_clear(&a);
    TFS_OOM(st);
    return -1;
  }
  tfs_onode_spec spec = {
      .name = op->name, .op = "Placeholder", .device = op->device, .attrs = &a};
  return tfs_og__add(g, &spec, st);
}

static int build_ir(tfs_graph *src, const tfs_opt_request *req, tfs_ograph *g,
                    tfs_status *st) {
  size_t n = src->nops;
  uint8_t *keep = tfs_calloc(n + 1, 1);
  int *map = tfs_malloc(sizeof(int) * (n + 1));
  int rc = -1;
  if (!keep || !map || select_ops(src, req, keep)) {
    TFS_OOM(st);
    goto done;
  }
  for (size_t i = 0; i < n; i++) map[i] = -1;
  for (size_t i = 0; i < n; i++) {
    /* Grappler's passes know loops; ours do not: leave them alone */
    if (keep[i] != 1 || !(src->ops[i]->def->flags & TFS_OP_CONTROL_FLOW))
      continue;
    tfs_status_setf(st, TFS_UNIMPLEMENTED,
                    "the graph has TF1 control flow (%s node '%s'), which "
                    "the optimizer does not rewrite",
                    src->ops[i]->def->name, src->ops[i]->name);
    goto done;
  }
  for (size_t i = 0; i < n; i++) {
    if (keep[i] != 2) continue;
    int idx = add_placeholder_for(g, src->ops[i], st);
    if (idx < 0) goto done;
    map[i] = idx;
  }
  for (size_t i = 0; i < n; i++) keep[i] = keep[i] == 1;
  if (tfs_og__import(g, src, keep, map, st)) goto done;
  /* a placed graph: nodes carry their assigned devices */
  for (size_t i = 0; req->assigned && i < n; i++)
    if (map[i] >= 0 && req->assigned[i]) g->n[map[i]].device = req->assigned[i];
  /* what must keep its name and outputs */
  for (int i = 0; i < req->nfeeds; i++) {
    int m = map[req->feeds[i].oper->id];
    if (m >= 0) g->n[m].flags |= TFS_ON_FED | TFS_ON_PRESERVED;
  }
  for (int i = 0; i < req->nfetches; i++) {
    int m = map[req->fetches[i].oper->id];
    if (m >= 0) g->n[m].flags |= TFS_ON_PRESERVED;
  }
  for (int i = 0; i < req->ntargets; i++) {
    int m = map[req->targets[i]->id];
    if (m >= 0) g->n[m].flags |= TFS_ON_PRESERVED;
  }
  if (req->nfetches == 0 && req->ntargets == 0) {
    /* no outputs named: every sink is an output */
    for (int i = 0; i < g->nn; i++)
      if (!g->n[i].nfan && !g->n[i].ncfan) g->n[i].flags |= TFS_ON_PRESERVED;
  }
  rc = 0;
done:
  tfs_free(keep);
  tfs_free(map);
  return rc;
}

/* ---- the pipeline
 * ------------------------------------------------------------- */

typedef struct run_state {
  tfs_ograph *g;
  const tfs_opt_config *cfg;
  tfs_optimizer_report *report;
  int64_t deadline_ns;
  int timed_out;
  int64_t first_count; /* node count min_graph_nodes sees at iteration 0 */
  tfs_graph *src;      /* the source graph (its function library) */
  tfs_graph *flib;     /* the function optimizer's library copy (owned) */
  int cf;              /* the graph has TF1 control flow (lowered) */
} run_state;

/* Runs one pass; returns its change count, or -1 when it failed fatally
 * (fail_on_optimizer_errors) with `st` set. */
static int64_t run_pass(run_state *rs, const tfs_opt_pass *p, int iter,
                        tfs_status *st) {
  tfs_ograph *g = rs->g;
  tfs_opt_report_entry e;
  memset(&e, 0, sizeof e);
  e.pass = (char *)p->name;
  e.iteration = iter;
  e.nodes_before = g->nlive;
  e.edges_before = tfs_og__num_edges(g);
  tfs_status *pst = tfs_status_new();
  tfs_opt_ctx c = {.g = g,
                   .cfg = rs->cfg,
                   .iteration = iter,
                   .summary = TFS_STRBUF_INIT,
                   .st = pst,
                   .src = rs->src,
                   .flib = &rs->flib};
  int64_t t0 = tfs_now_ns();
  tfs_og__arm_snapshot(g);
  int rc = pst ? p->run(&c) : -1;
  if (!pst) {
    /* no status object: treat as out of memory */
  } else if (rc == 0 && g->oom) {
    TFS_OOM(pst);
    rc = -1;
  }
  if (rc) {
    tfs_og__rollback(g);
    e.code = pst ? tfs_status_code(pst) : TFS_RESOURCE_EXHAUSTED;
    if (e.code == TFS_OK) e.code = TFS_INTERNAL;
    e.error = (char *)(pst ? tfs_status_message(pst) : "out of memory");
    c.changes = 0;
    tfs_log(TFS_LOG_WARN,
            "optimizer: %s failed, keeping the graph from "
            "before it: %s",
            p->name, e.error);
  } else {
    tfs_og__commit(g);
  }
  e.time_ns = tfs_now_ns() - t0;
  e.nodes_after = g->nlive;
  e.edges_after = tfs_og__num_edges(g);
  e.changes = c.changes;
  e.summary = (char *)tfs_strbuf_str(&c.summary);
  if (tfs_optimizer__report_add(rs->report, &e))
    tfs_log(TFS_LOG_WARN, "optimizer: out of memory recording the report");
  int64_t out = c.changes;
  if (rc && rs->cfg->fail_on_errors) {
    tfs_status_setf(st, e.code, "%s failed: %s", p->name, e.error);
    out = -1;
  }
  tfs_strbuf_free(&c.summary);
  tfs_status_free(pst);
  return out;
}

static int run_pipeline(run_state *rs, int64_t *total_changes, tfs_status *st) {
  const tfs_opt_config *cfg = rs->cfg;
  *total_changes = 0;
  for (int iter = 0; iter < cfg->iterations; iter++) {
    int64_t count = iter == 0 ? rs->first_count : rs->g->nlive;
    if (cfg->min_graph_nodes >= 0 && count < cfg->min_graph_nodes) break;
    int64_t changes = 0;
    rs->report->iterations_run = iter + 1;
    for (int k = 0; k < cfg->npasses; k++) {
      const tfs_opt_pass *p = &kPasses[cfg->passes[k]];
      if (p->first_iteration_only && iter > 0) continue;
      /* Grappler's passes know loops; ours do not: once the function
       * optimizer has lowered control flow, only it runs */
      if (rs->cf && cfg->passes[k] != TFS_PASS_FUNCTION) continue;
      /* without a library the function optimizer has nothing to do
       * (TensorFlow's Aborted: no report entry) */
      if (cfg->passes[k] == TFS_PASS_FUNCTION &&
          !(rs->src && tfs_flib__count(rs->src)))
        continue;
      if (rs->deadline_ns && tfs_now_ns() > rs->deadline_ns) {
        rs->timed_out = 1;
        return 0;
      }
      int64_t ch = run_pass(rs, p, iter, st);
      if (ch < 0) return -1;
      changes += ch;
      if (ch && cfg->passes[k] == TFS_PASS_FUNCTION)
        rs->cf = tfs_lower__has_cf(rs->g);
    }
    *total_changes += changes;
    if (!changes) break; /* fixed point */
  }
  return 0;
}

static void set_skipped(tfs_optimizer_report *r, const char *fmt, ...)
    TFS_PRINTF(2, 3);
static void set_skipped(tfs_optimizer_report *r, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  tfs_free(r->skipped);
  r->skipped = tfs_vasprintf(fmt, ap);
  va_end(ap);
}

int tfs_optimizer__run(tfs_graph *src, const tfs_opt_request *req,
                       const tfs_opt_config *cfg, tfs_graph **out,
                       tfs_optimizer_report **report_out, tfs_status *st) {
  int64_t t0 = tfs_now_ns();
  *out = NULL;
  if (report_out) *report_out = NULL;
  tfs_optimizer_report *report = tfs_optimizer__report_new();
  tfs_oarena *arena = tfs_oarena__new();
  tfs_ograph g;
  tfs_og__init(&g, arena);
  run_state rs;
  memset(&rs, 0, sizeof rs);
  int rc = 0;
  if (!report || !arena) {
    tfs_log(TFS_LOG_WARN, "optimizer: out of memory; not optimizing");
    if (req->always_export) { /* no graph to return */
      TFS_OOM(st);
      rc = -1;
    }
    goto done;
  }
  if (cfg->notes[0]) report->notes = tfs_strdup(cfg->notes);
  int built = 0;
  int64_t changes = 0;
  if (cfg->disabled) {
    set_skipped(report, "disable_meta_optimizer is set");
    if (!req->always_export) goto done;
  }
  /* TensorFlow compares min_graph_nodes with the graph it was handed: in
   * plan mode the session's whole graph, before the fetches prune it. */
  int64_t count = req->cut_feeds ? (int64_t)src->nops : -1;
  if (!cfg->disabled && count >= 0 && cfg->min_graph_nodes >= 0 &&
      count < cfg->min_graph_nodes) {
    set_skipped(report,
                "the graph has %lld nodes, fewer than min_graph_nodes (%d)",
                (long long)count, cfg->min_graph_nodes);
    if (!req->always_export) goto done;
  }
  if (build_ir(src, req, &g, st)) {
    if (req->always_export) { /* no graph to return: the error is */
      rc = -1;
      goto done;
    }
    tfs_log(TFS_LOG_WARN, "optimizer: %s; not optimizing",
            tfs_status_message(st));
    set_skipped(report, "%s", tfs_status_message(st));
    tfs_status_clear(st);
    goto done;
  }
  built = 1;
  report->nodes_in = report->nodes_out = g.nlive;
  report->edges_in = report->edges_out = tfs_og__num_edges(&g);
  if (cfg->disabled) goto finish;
  if (count < 0) count = g.nlive;
  if (cfg->min_graph_nodes >= 0 && count < cfg->min_graph_nodes) {
    set_skipped(report,
                "the graph has %lld nodes, fewer than "
                "min_graph_nodes (%d)",
                (long long)count, cfg->min_graph_nodes);
    goto finish;
  }
  if (cfg->npasses == 0) {
    set_skipped(report, "no optimizer is enabled");
    goto finish;
  }
  rs.g = &g;
  rs.cfg = cfg;
  rs.report = report;
  rs.first_count = count;
  rs.src = src;
  /* a timeout too large to add to the clock means no deadline (as the
   * executor's deadline_of) */
  int64_t ns, deadline;
  if (cfg->timeout_ms > 0 &&
      !tfs_mul_overflow_i64(cfg->timeout_ms, 1000000, &ns) &&
      !tfs_add_overflow_i64(t0, ns, &deadline))
    rs.deadline_ns = deadline;
  if (run_pipeline(&rs, &changes, st)) {
    rc = -1;
    goto done;
  }
  if (rs.timed_out)
    tfs_log(TFS_LOG_WARN,
            "optimizer: meta_optimizer_timeout_ms (%lld) "
            "reached; remaining passes abandoned",
            (long long)cfg->timeout_ms);
  report->nodes_out = g.nlive;
  report->edges_out = tfs_og__num_edges(&g);
finish:
  if (!built || (!changes && !req->always_export)) goto done;
  *out = rs.cf ? tfs_lower__export(&g, st) : tfs_og__export(&g, st);
  /* the calls left and those inside lowered bodies name the library */
  if (*out && tfs_flib__count(src) && tfs_flib__copy(*out, src, st)) {
    tfs_graph_free(*out);
    *out = NULL;
  }
  if (!*out) {
    int oom = tfs_status_code(st) == TFS_RESOURCE_EXHAUSTED;
    tfs_log(oom ? TFS_LOG_WARN : TFS_LOG_ERROR,
            "optimizer: %s, using the "
            "original: %s",
            oom ? "out of memory building the optimized "
                  "graph"
                : "the optimized graph is invalid",
            tfs_status_message(st));
    set_skipped(report,
                "the optimized graph was invalid (%s); the "
                "original is used",
                tfs_status_message(st));
    if (req->always_export) {
      rc = -1;
      goto done;
    }
    tfs_status_clear(st);
  }
done:
  tfs_og__clear(&g);
  tfs_graph_free(rs.flib);
  tfs_oarena__free(arena);
  if (report) report->total_ns = tfs_now_ns() - t0;
  if (report_out)
    *report_out = report;
  else
    tfs_optimizer_report_free(report);
  if (!rc) tfs_status_clear(st);
  return rc;
}

/* ---- the plan entry point
 * ------------------------------------------------------ */

static int valid_request(tfs_graph *src, const tfs_opt_request *r) {
  for (int i = 0; i < r->nfeeds; i++)
    if (!r->feeds[i].oper || r->feeds[i].oper->graph != src ||
        r->feeds[i].index < 0 ||
        r->feeds[i].index >= r->feeds[i].oper->noutputs)
      return 0;
  for (int i = 0; i < r->nfetches; i++)
    if (!r->fetches[i].oper || r->fetches[i].oper->graph != src ||
        r->fetches[i].index < 0 ||
        r->fetches[i].index >= r->fetches[i].oper->noutputs)
      return 0;
  for (int i = 0; i < r->ntargets; i++)
    if (!r->targets[i] || r->targets[i]->graph != src) return 0;
  return 1;
}

int tfs_optimizer__optimize_for_plan(
    tfs_graph *src, const tfs_output *feeds, int nfeeds,
    const tfs_output *fetches, int nfetches, tfs_operation *const *targets,
    int ntargets, const char *const *assigned, const tfs_config *cfg,
    tfs_graph **out, tfs_optimizer_report **report, tfs_status *st) {
  *out = NULL;
  if (report) *report = NULL;
  tfs_opt_request req = {feeds,   nfeeds,   fetches, nfetches,
                         targets, ntargets, 1,       0,
                         assigned};
  if (!src || !valid_request(src, &req) || (nfetches == 0 && ntargets == 0)) {
    tfs_status_clear(st); /* the plan reports what is wrong */
    return 0;
  }
  const tfs_rewriter_config *rc = NULL;
  if (cfg && cfg->has_graph_options && cfg->graph_options.has_rewrite_options)
    rc = &cfg->graph_options.rewrite_options;
  tfs_opt_config oc;
  if (tfs_optimizer__resolve(rc, NULL, &oc, st)) return -1;
  /* TensorFlow lowers If/Case/While unless the session asks for
   * functional control flow (LowerFunctionalOpsPass) */
  if (cfg && (cfg->disable_functional_ops_lowering ||
              (cfg->executor_type &&
               strcmp(cfg->executor_type, "SINGLE_THREADED_EXECUTOR") == 0)))
    oc.lower_control_flow = 0;
  if (cfg &&
      cfg->graph_options.optimizer_options.max_folded_constant_in_bytes > 0)
    oc.max_constant_bytes =
        cfg->graph_options.optimizer_options.max_folded_constant_in_bytes;
  return tfs_optimizer__run(src, &req, &oc, out, report, st);
}
