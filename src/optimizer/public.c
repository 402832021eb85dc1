/*
 * optimizer/public.c - the public optimizer API: options objects,
 * tfs_graph_optimize on a graph and tfs_optimize_graphdef on GraphDef
 * bytes (what `tfsess optimize` uses).
 */
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/status.h"
#include "optimizer/optimizer.h"
#include "tfsess/graphdef.h"

struct tfs_optimizer_options {
  tfs_config config;
  int has_config;
  char *passes; /* NULL: the config's pipeline */
  int tf_compatible;
};

tfs_optimizer_options *tfs_optimizer_options_new(void) {
  tfs_optimizer_options *o = tfs_calloc(1, sizeof(*o));
  if (o) tfs_config__init(&o->config);
  return o;
}

void tfs_optimizer_options_free(tfs_optimizer_options *o) {
  if (!o) return;
  tfs_config__clear(&o->config);
  tfs_free(o->passes);
  tfs_free(o);
}

void tfs_optimizer_options_set_config(tfs_optimizer_options *o,
                                      const void *proto, size_t len,
                                      tfs_status *st) {
  TFS_CHECK_ARG(o != NULL && (proto != NULL || len == 0), st, );
  tfs_config c;
  if (tfs_config__parse(proto, len, &c, st)) return;
  tfs_config__clear(&o->config);
  o->config = c;
  o->has_config = 1;
  tfs_status_clear(st);
}

void tfs_optimizer_options_set_passes(tfs_optimizer_options *o,
                                      const char *list, tfs_status *st) {
  TFS_CHECK_ARG(o != NULL, st, );
  if (list && *list) {
    tfs_opt_config probe; /* validates the names */
    if (tfs_optimizer__resolve(NULL, list, &probe, st)) return;
  }
  char *copy = list && *list ? tfs_strdup(list) : NULL;
  if (list && *list && !copy) {
    TFS_OOM(st);
    return;
  }
  tfs_free(o->passes);
  o->passes = copy;
  tfs_status_clear(st);
}

void tfs_optimizer_options_set_tf_compatible(tfs_optimizer_options *o, int on) {
  if (o) o->tf_compatible = on != 0;
}

static int resolve_options(const tfs_optimizer_options *o, tfs_opt_config *oc,
                           tfs_status *st) {
  const tfs_rewriter_config *rc = NULL;
  if (o && o->has_config && o->config.has_graph_options &&
      o->config.graph_options.has_rewrite_options)
    rc = &o->config.graph_options.rewrite_options;
  if (tfs_optimizer__resolve(rc, o ? o->passes : NULL, oc, st)) return -1;
  if (o && o->has_config &&
      o->config.graph_options.optimizer_options.max_folded_constant_in_bytes >
          0)
    oc->max_constant_bytes =
        o->config.graph_options.optimizer_options.max_folded_constant_in_bytes;
  oc->tf_compatible = o ? o->tf_compatible : 0;
  return 0;
}

static int check_outputs(tfs_graph *g, const char *what, const tfs_output *v,
                         int n, tfs_status *st) {
  for (int i = 0; i < n; i++) {
    if (!v[i].oper || v[i].oper->graph != g) {
      tfs_status_setf(st, TFS_NOT_FOUND,
                      "%s %d is not an output of this "
                      "graph",
                      what, i);
      return -1;
    }
    if (v[i].index < 0 || v[i].index >= v[i].oper->noutputs) {
      tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                      "%s %s:%d: output index out of range, must be < %d", what,
                      v[i].oper->name, v[i].index, v[i].oper->noutputs);
      return -1;
    }
  }
  return 0;
}

tfs_graph *tfs_graph_optimize(tfs_graph *g, const tfs_output *feeds, int nfeeds,
                              const tfs_output *fetches, int nfetches,
                              tfs_operation *const *targets, int ntargets,
                              const tfs_optimizer_options *opts,
                              tfs_optimizer_report **report, tfs_status *st) {
  if (report) *report = NULL;
  TFS_CHECK_ARG(g != NULL && nfeeds >= 0 && nfetches >= 0 && ntargets >= 0, st,
                NULL);
  TFS_CHECK_ARG(
      (!nfeeds || feeds) && (!nfetches || fetches) && (!ntargets || targets),
      st, NULL);
  if (check_outputs(g, "feed", feeds, nfeeds, st) ||
      check_outputs(g, "fetch", fetches, nfetches, st))
    return NULL;
  for (int i = 0; i < ntargets; i++) {
    if (!targets[i] || targets[i]->graph != g) {
      tfs_status_setf(st, TFS_NOT_FOUND,
                      "target %d is not an operation of this graph", i);
      return NULL;
    }
  }
  tfs_opt_config oc;
  if (resolve_options(opts, &oc, st)) return NULL;
  tfs_opt_request req = {feeds,   nfeeds,   fetches, nfetches,
                         targets, ntargets, 0,       1};
  tfs_graph *out = NULL;
  pthread_mutex_lock(&g->mu);
  tfs_optimizer__run(g, &req, &oc, &out, report, st);
  pthread_mutex_unlock(&g->mu);
  return out;
}

/* Resolves "a,b:1,^c" style names in the imported graph. */
static int parse_fetches(tfs_graph *g, const char *names, tfs_output **outs,
                         int *nouts, tfs_operation ***targets, int *ntargets,
                         tfs_status *st) {
  *outs = NULL;
  *targets = NULL;
  *nouts = *ntargets = 0;
  size_t cap_o = 0, cap_t = 0;
  char *copy = tfs_strdup(names ? names : "");
  if (!copy) {
    TFS_OOM(st);
    return -1;
  }
  int rc = 0;
  for (char *save = NULL, *tok = strtok_r(copy, ", ", &save); tok && !rc;
       tok = strtok_r(NULL, ", ", &save)) {
    int target = tok[0] == '^';
    if (target) tok++;
    tfs_output o = tfs_graph_output_by_name(g, tok, st);
    if (!o.oper) {
      /* a node without outputs can only be a target */
      tfs_operation *op = tfs_graph_operation_by_name(g, tok);
      if (!op) {
        rc = -1;
        break;
      }
      tfs_status_clear(st);
      target = 1;
      o.oper = op;
    }
    if (target || o.oper->noutputs == 0) {
      if (tfs_grow((void **)targets, &cap_t, (size_t)*ntargets + 1,
                   sizeof(void *)))
        rc = -1;
      else
        (*targets)[(*ntargets)++] = o.oper;
    } else if (tfs_grow((void **)outs, &cap_o, (size_t)*nouts + 1,
                        sizeof(tfs_output))) {
      rc = -1;
    } else {
      (*outs)[(*nouts)++] = o;
    }
    if (rc && tfs_status_ok(st)) TFS_OOM(st);
  }
  tfs_free(copy);
  return rc;
}

void tfs_optimize_graphdef(const void *graphdef, size_t len,
                           const char *fetch_names,
                           const tfs_optimizer_options *opts, tfs_buffer *out,
                           tfs_optimizer_report **report, tfs_status *st) {
  if (report) *report = NULL;
  TFS_CHECK_ARG(out != NULL && (graphdef != NULL || len == 0), st, );
  tfs_graph *g = tfs_graph_new();
  tfs_output *fetches = NULL;
  tfs_operation **targets = NULL;
  int nfetches = 0, ntargets = 0;
  tfs_graph *opt = NULL;
  if (!g) {
    TFS_OOM(st);
    return;
  }
  tfs_import_results *r = tfs_graph_import_graphdef(g, graphdef, len, NULL, st);
  if (!r) goto done;
  tfs_import_results_free(r);
  if (parse_fetches(g, fetch_names, &fetches, &nfetches, &targets, &ntargets,
                    st))
    goto done;
  opt = tfs_graph_optimize(g, NULL, 0, fetches, nfetches, targets, ntargets,
                           opts, report, st);
  if (!opt) goto done;
  tfs_graph_to_graphdef(opt, out, st);
done:
  tfs_graph_free(opt);
  tfs_graph_free(g);
  tfs_free(fetches);
  tfs_free(targets);
}
