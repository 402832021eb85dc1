/*
 * session/plan_optimize.c - the graph a plan is built from.  For each new
 * (feeds, fetches, targets) signature the optimizer rewrites the part of
 * the session's graph that the signature needs, as TensorFlow's
 * DirectSession runs Grappler once per signature before it builds the
 * executor; the plan then runs the rewrite, found by the names of the
 * signature's feeds, fetches and targets (the optimizer preserves them).
 */
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/log.h"
#include "core/status.h"
#include "optimizer/optimizer.h"
#include "session/session_internal.h"

void tfs_plan__opt_clear(tfs_plan_opt *po) {
  if (!po) return;
  tfs_free(po->feeds);
  tfs_free(po->fetches);
  tfs_free(po->targets);
  tfs_graph_free(po->graph);
  memset(po, 0, sizeof(*po));
}

/* The output of `og` with the name and port of `o`, checked to have the
 * same dtype; {NULL, -1} when the rewrite lost it. */
static tfs_output same_output(tfs_graph *og, tfs_output o) {
  tfs_output r = {tfs_graph_operation_by_name(og, o.oper->name), o.index};
  if (!r.oper || r.index >= r.oper->noutputs ||
      r.oper->out_types[r.index] != o.oper->out_types[o.index]) {
    r.oper = NULL;
    r.index = -1;
  }
  return r;
}

/* Fills po's signature arrays in po->graph; the name of what the rewrite
 * lost, or NULL. */
static const char *translate(tfs_plan_opt *po, const tfs_output *feeds,
                             int nfeeds, const tfs_output *fetches,
                             int nfetches, tfs_operation *const *targets,
                             int ntargets) {
  for (int i = 0; i < nfeeds; i++) {
    po->feeds[i] = same_output(po->graph, feeds[i]);
    if (!po->feeds[i].oper) return feeds[i].oper->name;
  }
  for (int i = 0; i < nfetches; i++) {
    po->fetches[i] = same_output(po->graph, fetches[i]);
    if (!po->fetches[i].oper) return fetches[i].oper->name;
  }
  for (int i = 0; i < ntargets; i++) {
    po->targets[i] = tfs_graph_operation_by_name(po->graph, targets[i]->name);
    if (!po->targets[i]) return targets[i]->name;
  }
  return NULL;
}

static void log_report(const tfs_optimizer_report *r, int nops) {
  if (!r || !tfs_log_enabled(TFS_LOG_DEBUG)) return;
  const char *why = tfs_optimizer_report_skipped(r);
  if (why) {
    tfs_log(TFS_LOG_DEBUG, "plan: optimizer skipped (%d nodes): %s", nops,
            why);
    return;
  }
  char *text = tfs_optimizer_report_to_string(r);
  if (text) tfs_log(TFS_LOG_DEBUG, "plan: optimizer report\n%s", text);
  free(text);
}

int tfs_plan__optimize(tfs_session *s, const tfs_output **feeds, int nfeeds,
                       const tfs_output **fetches, int nfetches,
                       tfs_operation *const **targets, int ntargets,
                       const char *const *assigned, tfs_plan_opt *po,
                       tfs_status *st) {
  memset(po, 0, sizeof(*po));
  if (s->no_optimizer) return 0;
  tfs_graph *og = NULL;
  tfs_optimizer_report *report = NULL;
  int rc = tfs_optimizer__optimize_for_plan(
      s->graph, *feeds, nfeeds, *fetches, nfetches, *targets, ntargets,
      assigned, &s->opts.config, &og,
      tfs_log_enabled(TFS_LOG_DEBUG) ? &report : NULL, st);
  log_report(report, (int)s->graph->nops);
  tfs_optimizer_report_free(report);
  if (rc) return -1; /* fail_on_optimizer_errors */
  if (!og) return 0;  /* skipped or unchanged: run the session's graph */
  po->graph = og;
  po->feeds = tfs_malloc(sizeof(tfs_output) * (size_t)(nfeeds + 1));
  po->fetches = tfs_malloc(sizeof(tfs_output) * (size_t)(nfetches + 1));
  po->targets = tfs_malloc(sizeof(tfs_operation *) * (size_t)(ntargets + 1));
  if (!po->feeds || !po->fetches || !po->targets) {
    tfs_log(TFS_LOG_WARN, "optimizer: out of memory; running the graph as "
            "built");
    tfs_plan__opt_clear(po);
    return 0;
  }
  const char *lost = translate(po, *feeds, nfeeds, *fetches, nfetches,
                               *targets, ntargets);
  if (lost) {
    tfs_log(TFS_LOG_ERROR, "optimizer: the optimized graph has no '%s' of "
            "the same type; running the graph as built", lost);
    tfs_plan__opt_clear(po);
    return 0;
  }
  *feeds = po->feeds;
  *fetches = po->fetches;
  *targets = po->targets;
  return 0;
}
