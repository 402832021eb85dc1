/*
 * tools/cmd_optimize.c - `tfsess optimize MODEL.pb -o OUT.pb`: runs the
 * graph optimizer ahead of time (for the --fetch outputs, else the whole
 * graph), writes the optimized GraphDef (loadable in TensorFlow unless
 * --allow-internal-ops) and prints the per-pass report with --report.
 * Also the session flags --no-optimize / --passes (tfs_cli_optimizer_flags)
 * that `run` and `bench` share.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "config_proto/config.h"

typedef struct opt_args {
  tfs_cli_list fetches, targets;
  const char *output, *config, *passes;
  int report, internal;
} opt_args;

static int add_fetch(void *c, const char *v) {
  return tfs_cli_list_add(&((opt_args *)c)->fetches, v);
}
static int add_target(void *c, const char *v) {
  return tfs_cli_list_add(&((opt_args *)c)->targets, v);
}
static int set_output(void *c, const char *v) {
  ((opt_args *)c)->output = v;
  return 0;
}
static int set_config(void *c, const char *v) {
  ((opt_args *)c)->config = v;
  return 0;
}
static int set_passes(void *c, const char *v) {
  ((opt_args *)c)->passes = v;
  return 0;
}
static int set_report(void *c, const char *v) {
  (void)v;
  ((opt_args *)c)->report = 1;
  return 0;
}
static int set_internal(void *c, const char *v) {
  (void)v;
  ((opt_args *)c)->internal = 1;
  return 0;
}

static const tfs_cli_opt kOptOpts[] = {
    {"output", "OUT.pb",
     "where to write the optimized GraphDef (also -o); a name ending in "
     ".pbtxt gets a text GraphDef",
     set_output},
    {"fetch", "NAME[:i]",
     "an output to keep (repeatable); none: every node without consumers",
     add_fetch},
    {"target", "NODE", "an operation to keep for its effects (repeatable)",
     add_target},
    {"config", "CONFIG.pb",
     "TensorFlow ConfigProto bytes: graph_options.rewrite_options toggles",
     set_config},
    {"passes", "LIST",
     "comma-separated passes replacing the pipeline (pruning, constfold, "
     "common_subgraph_elimination, arithmetic, dependency, remap, layout, "
     "auto_mixed_precision, debug_stripper, ...; 'none')",
     set_passes},
    {"report", NULL, "print what each pass did", set_report},
    {"allow-internal-ops", NULL,
     "also use tfsess-only fused ops (_TfsSwish, _FusedBatchMatMulV2); the "
     "result then loads in tfsess only",
     set_internal},
    {NULL, NULL, NULL, NULL}};

static const tfs_cli_help kOptHelp = {
    "optimize MODEL.pb -o OUT.pb [--fetch NAME ...] [--config C.pb] "
    "[--passes LIST] [--report]",
    "Rewrites a GraphDef with the graph optimizer (pruning, constant "
    "folding,\ncommon subgraph elimination, arithmetic simplification, "
    "fusions, ...) and\nwrites the result.  Fetches and targets keep their "
    "names, so the output\nruns with the same feeds and fetches.  MODEL and "
    "OUT may be text GraphDefs\n(.pbtxt, as tf.io.write_graph(as_text=True) "
    "writes them).",
    1, 1};

/* "-o FILE" is "--output FILE". */
static char **long_options(int argc, char **argv) {
  char **v = malloc(sizeof(char *) * (size_t)(argc + 1));
  if (!v) return NULL;
  for (int i = 0; i < argc; i++)
    v[i] = strcmp(argv[i], "-o") == 0 ? (char *)"--output" : argv[i];
  v[argc] = NULL;
  return v;
}

static int optimize(opt_args *a, const char *model) {
  int rc = TFS_CLI_FAILED;
  tfs_status *st = tfs_status_new();
  tfs_optimizer_options *o = tfs_optimizer_options_new();
  tfs_graph *g = tfs_cli_load_graph(model), *og = NULL;
  tfs_output *fetches = calloc((size_t)a->fetches.n + 1, sizeof(tfs_output));
  tfs_operation **targets =
      calloc((size_t)a->targets.n + 1, sizeof(tfs_operation *));
  tfs_optimizer_report *rep = NULL;
  tfs_buffer *out = tfs_buffer_new();
  if (!st || !o || !fetches || !targets || !out) {
    tfs_cli_error("out of memory");
    goto done;
  }
  if (!g) goto done;
  if (a->config) {
    size_t len;
    uint8_t *bytes = tfs_cli_read_file(a->config, &len);
    if (!bytes) goto done;
    tfs_optimizer_options_set_config(o, bytes, len, st);
    free(bytes);
    if (!tfs_status_ok(st)) {
      tfs_cli_error("%s: %s", a->config, tfs_status_message(st));
      goto done;
    }
  }
  if (a->passes) {
    tfs_optimizer_options_set_passes(o, a->passes, st);
    if (!tfs_status_ok(st)) {
      rc = tfs_cli_usage_error("--passes: %s", tfs_status_message(st));
      goto done;
    }
  }
  tfs_optimizer_options_set_tf_compatible(o, !a->internal);
  for (int i = 0; i < a->fetches.n; i++)
    if (tfs_cli_resolve(g, a->fetches.v[i], "fetch", &fetches[i])) goto done;
  if (tfs_cli_resolve_targets(g, &a->targets, targets)) goto done;
  og = tfs_graph_optimize(g, NULL, 0, fetches, a->fetches.n, targets,
                          a->targets.n, o, &rep, st);
  if (a->report && rep) {
    char *txt = tfs_optimizer_report_to_string(rep);
    if (txt) fputs(txt, stdout);
    free(txt);
  }
  if (!og) {
    tfs_cli_status_error(st);
    goto done;
  }
  if (tfs_cli_is_pbtxt(a->output))
    tfs_graph_to_graphdef_text(og, out, st);
  else
    tfs_graph_to_graphdef(og, out, st);
  if (!tfs_status_ok(st)) {
    tfs_cli_status_error(st);
    goto done;
  }
  rc = tfs_cli_write_file(a->output, out->data, out->length) ? TFS_CLI_FAILED
                                                              : TFS_CLI_OK;
  if (rc == TFS_CLI_OK && !a->report)
    printf("%s: %lld -> %lld nodes\n", a->output,
           (long long)tfs_optimizer_report_total_nodes_before(rep),
           (long long)tfs_optimizer_report_total_nodes_after(rep));
done:
  tfs_buffer_free(out);
  tfs_optimizer_report_free(rep);
  tfs_graph_free(og);
  tfs_graph_free(g);
  free(fetches);
  free(targets);
  tfs_optimizer_options_free(o);
  tfs_status_free(st);
  return rc;
}

int tfs_cli_cmd_optimize(int argc, char **argv) {
  opt_args a;
  memset(&a, 0, sizeof a);
  char **args = long_options(argc, argv);
  if (!args) return tfs_cli_error("out of memory");
  tfs_cli_group groups[] = {{"Optimize", kOptOpts, &a}};
  char *pos[1];
  int npos = 0;
  int rc = tfs_cli_parse(argc, args, &kOptHelp, groups, 1, pos, &npos);
  free(args);
  if (rc) {
    tfs_cli_list_free(&a.fetches);
    tfs_cli_list_free(&a.targets);
    return rc > 0 ? TFS_CLI_OK : TFS_CLI_USAGE;
  }
  if (!a.output)
    rc = tfs_cli_usage_error("missing -o OUT.pb (see tfsess optimize --help)");
  else
    rc = optimize(&a, pos[0]);
  tfs_cli_list_free(&a.fetches);
  tfs_cli_list_free(&a.targets);
  return rc;
}

/* ---- --no-optimize / --passes for sessions ------------------------------- */

int tfs_cli_optimizer_flags(tfs_session_options *o, int no_optimize,
                            const char *passes) {
  if (!no_optimize && !passes) return 0;
  tfs_status *st = tfs_status_new();
  tfs_buffer *b = tfs_buffer_new();
  tfs_config c;
  tfs_config__init(&c);
  int rc = -1;
  if (!st || !b) {
    tfs_cli_error("out of memory");
    goto done;
  }
  if (passes) { /* the same check the optimizer makes */
    tfs_optimizer_options *probe = tfs_optimizer_options_new();
    tfs_optimizer_options_set_passes(probe, passes, st);
    tfs_optimizer_options_free(probe);
    if (!tfs_status_ok(st)) {
      tfs_cli_usage_error("--passes: %s", tfs_status_message(st));
      goto done;
    }
  }
  tfs_session_options_get_config(o, b, st);
  if (!tfs_status_ok(st) || tfs_config__parse(b->data, b->length, &c, st))
    goto fail;
  c.has_graph_options = 1;
  c.graph_options.has_rewrite_options = 1;
  tfs_rewriter_config *rw = &c.graph_options.rewrite_options;
  if (no_optimize) rw->disable_meta_optimizer = 1;
  if (passes && strcmp(passes, "none") == 0) {
    rw->disable_meta_optimizer = 1; /* no pass at all */
  } else if (passes && !no_optimize) {
    for (int i = 0; i < rw->noptimizers; i++) free(rw->optimizers[i]);
    free(rw->optimizers);
    rw->optimizers = NULL;
    rw->noptimizers = 0;
    char *copy = strdup(passes);
    for (char *save = NULL, *t = copy ? strtok_r(copy, ", ", &save) : NULL; t;
         t = strtok_r(NULL, ", ", &save)) {
      char **v = realloc(rw->optimizers,
                         sizeof(char *) * (size_t)(rw->noptimizers + 1));
      if (!v) break;
      rw->optimizers = v;
      rw->optimizers[rw->noptimizers++] = strdup(t);
    }
    free(copy);
    if (rw->noptimizers == 0) goto fail;
  }
  tfs_buffer_free(b);
  b = tfs_buffer_new();
  if (!b || tfs_config__serialize(&c, b, st)) goto fail;
  tfs_session_options_set_config(o, b->data, b->length, st);
  if (!tfs_status_ok(st)) goto fail;
  rc = 0;
  goto done;
fail:
  tfs_cli_error("cannot apply optimizer flags: %s",
                st ? tfs_status_message(st) : "out of memory");
done:
  tfs_config__clear(&c);
  tfs_buffer_free(b);
  tfs_status_free(st);
  return rc;
}
