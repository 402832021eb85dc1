/*
 * optimizer/optimizer.h - the meta-optimizer's internal API: a pure
 * graph-to-graph function (source graph + nodes to preserve + rewriter
 * config -> new graph + per-pass report), the entry point plan building
 * calls, the resolved configuration and the pass interface.
 *
 * Threads: optimizing reads the source graph only (the caller keeps it
 * from changing, e.g. by holding g->mu) and may run on several threads at
 * once on different or the same source graphs.
 */
#ifndef TFS_OPTIMIZER_OPTIMIZER_H
#define TFS_OPTIMIZER_OPTIMIZER_H

#include "config_proto/config.h"
#include "core/strbuf.h"
#include "optimizer/opt_graph.h"
#include "tfsess/optimizer.h"

/* The passes, in Grappler's order (GRAPPLER.md 1.1). */
typedef enum tfs_pass_id {
  TFS_PASS_PRUNING,
  TFS_PASS_CSE,
  TFS_PASS_DEBUG_STRIPPER,
  TFS_PASS_CONSTFOLD,
  TFS_PASS_AMP,
  TFS_PASS_ARITHMETIC,
  TFS_PASS_LAYOUT,
  TFS_PASS_REMAP,
  TFS_PASS_DEPENDENCY,
  TFS_PASS_FUNCTION, /* runs right after pruning (Grappler's place) */
  TFS_PASS_COUNT
} tfs_pass_id;

/* Mixed precision targets. */
enum {
  TFS_AMP_NONE = 0,
  TFS_AMP_DEVICE,  /* auto_mixed_precision: fp16 on GPU, bf16 on a CPU
                      that has it */
  TFS_AMP_BF16,    /* auto_mixed_precision_onednn_bfloat16 / _mkl */
  TFS_AMP_FP16_CPU /* auto_mixed_precision_cpu: fp16 emulated on CPU */
};

/* Layout preference (RewriterConfig.cpu_layout_conversion numbering). */
enum { TFS_LAYOUT_KEEP = 0, TFS_LAYOUT_TO_NHWC = 1, TFS_LAYOUT_TO_NCHW = 2 };

#define TFS_OPT_MAX_PASSES 32

typedef struct tfs_opt_config {
  int disabled; /* disable_meta_optimizer */
  int npasses;  /* the pipeline, in order */
  tfs_pass_id passes[TFS_OPT_MAX_PASSES];
  int iterations;      /* 1 or 2 */
  int min_graph_nodes; /* < 0: never skip */
  int fail_on_errors;
  int64_t timeout_ms;         /* <= 0: none */
  int constfold_aggressive;   /* trust placeholder shapes */
  int64_t max_constant_bytes; /* folding cap */
  int amp_mode;               /* TFS_AMP_* */
  int cpu_layout;             /* TFS_LAYOUT_* for CPU devices */
  int tf_compatible;          /* only ops TensorFlow can load */
  int cpu_has_bf16;           /* tfs_cpu_bf16() when configured */
  int function_level;         /* function_optimization: 0 off, 1 on,
                                 2 AGGRESSIVE (_noinline ignored) */
  int lower_control_flow;     /* lower If/Case/While (off under
                                 ConfigProto.experimental
                                 disable_functional_ops_lowering or the
                                 SINGLE_THREADED_EXECUTOR) */
  char notes[256];            /* passes named but not implemented */
} tfs_opt_config;

/* Resolves a RewriterConfig (NULL: all defaults) merged with the
 * process-wide experimental options into *out.  `passes` (NULL: none)
 * is a comma-separated pass list that replaces the pipeline, as
 * RewriterConfig.optimizers does; INVALID_ARGUMENT names an unknown pass
 * in it ("Unknown optimizer 'x'; known: ...").  Names in the config's own
 * list that tfsess lacks are dropped with a note, as TensorFlow drops
 * unknown names. */
int tfs_optimizer__resolve(const tfs_rewriter_config *rc, const char *passes,
                           tfs_opt_config *out, tfs_status *st);

/* Applies the process-wide experimental options to a copy of `rc`
 * (strings and lists stay borrowed). */
void tfs_optimizer__apply_experimental(tfs_rewriter_config *rc);

/* What one optimization is asked to do. */
typedef struct tfs_opt_request {
  const tfs_output *feeds;
  int nfeeds;
  const tfs_output *fetches;
  int nfetches;
  tfs_operation *const *targets;
  int ntargets;
  /* Plan mode: the graph is cut at fed tensors as a plan prunes it; a fed
   * single-output node needed only through its feed becomes a Placeholder
   * of the same name and dtype.  min_graph_nodes is then compared with
   * the whole source graph, as Grappler compares it with the graph it is
   * handed. */
  int cut_feeds;
  /* Always build a new graph (an unchanged copy when nothing ran). */
  int always_export;
  /* Plan mode: the device each op of the source graph was placed on (by
   * op id; NULL entries and a NULL array: the op's requested device).
   * Passes then see assigned devices, as Grappler sees a placed graph,
   * and the nodes they create inherit them. */
  const char *const *assigned;
} tfs_opt_request;

/* Optimizes `src` for `req` under `cfg`.  *out receives a new graph the
 * caller frees, or NULL when the optimizer did not run or changed
 * nothing (use `src` then).  *report (optional) receives a new report
 * (tfs_optimizer_report_free).  Returns 0; -1 with an error only when a
 * pass failed under fail_on_optimizer_errors, or under always_export when
 * no graph could be built (out of memory).  Other failures are logged
 * and leave *out NULL, as TensorFlow falls back to the unoptimized graph.
 * Reads src without locking it. */
int tfs_optimizer__run(tfs_graph *src, const tfs_opt_request *req,
                       const tfs_opt_config *cfg, tfs_graph **out,
                       tfs_optimizer_report **report, tfs_status *st);

/* The function plan building calls (session/plan_optimize.c):
 * optimizes the part of `src` that the signature needs, with feeds
 * cutting the graph and feeds, fetches and targets preserved by name, so
 * the plan looks them up by name in *out.  `cfg` may be NULL (defaults;
 * the process-wide experimental options apply either way).  *out is a new
 * graph the caller frees, or NULL meaning "build the plan on src".
 * *report may be NULL.  Returns 0, or -1 with an error when
 * fail_on_optimizer_errors is set and a pass failed.  Caller holds
 * src->mu (nothing else is locked). */
int tfs_optimizer__optimize_for_plan(
    tfs_graph *src, const tfs_output *feeds, int nfeeds,
    const tfs_output *fetches, int nfetches, tfs_operation *const *targets,
    int ntargets, const char *const *assigned, const tfs_config *cfg,
    tfs_graph **out, tfs_optimizer_report **report, tfs_status *st);

/* ---- passes -------------------------------------------------------------- */

typedef struct tfs_opt_ctx {
  tfs_ograph *g;
  const tfs_opt_config *cfg;
  int iteration;
  tfs_strbuf summary; /* what changed, "; "-separated phrases */
  int64_t changes;    /* 0: the pass did nothing */
  tfs_status *st;
  tfs_graph *src;     /* the source graph, whose library calls name (the
                         caller holds src->mu); NULL: no library */
  tfs_graph **flib;   /* a private copy of that library, made on first
                         use and freed when the optimization ends */
} tfs_opt_ctx;

typedef int (*tfs_opt_pass_fn)(tfs_opt_ctx *c);

typedef struct tfs_opt_pass {
  const char *name;      /* as Grappler logs it: "constant_folding" */
  const char *list_name; /* in RewriterConfig.optimizers: "constfold" */
  int first_iteration_only;
  tfs_opt_pass_fn run;
} tfs_opt_pass;

const tfs_opt_pass *tfs_optimizer__pass(tfs_pass_id id);

/* Appends a phrase to the pass summary ("; " between phrases). */
void tfs_opt__note(tfs_opt_ctx *c, const char *fmt, ...) TFS_PRINTF(2, 3);

int tfs_pass__pruning(tfs_opt_ctx *c);
int tfs_pass__cse(tfs_opt_ctx *c);
int tfs_pass__debug_stripper(tfs_opt_ctx *c);
int tfs_pass__constfold(tfs_opt_ctx *c);
int tfs_pass__amp(tfs_opt_ctx *c);
int tfs_pass__arithmetic(tfs_opt_ctx *c);
int tfs_pass__layout(tfs_opt_ctx *c);
int tfs_pass__remap(tfs_opt_ctx *c);
int tfs_pass__dependency(tfs_opt_ctx *c);
int tfs_pass__function(tfs_opt_ctx *c);

/* ---- report
 * ------------------------------------------------------------------ */

typedef struct tfs_opt_report_entry {
  char *pass;
  int iteration;
  int64_t nodes_before, nodes_after, edges_before, edges_after;
  int64_t time_ns;
  int64_t changes;
  char *summary; /* what changed, or "" */
  tfs_code code; /* TFS_OK, or why the pass failed */
  char *error;   /* NULL when OK */
} tfs_opt_report_entry;

struct tfs_optimizer_report {
  int n, cap;
  tfs_opt_report_entry *e;
  int64_t nodes_in, nodes_out, edges_in, edges_out;
  int64_t total_ns; /* import + passes + export */
  int iterations_run;
  char *skipped; /* why nothing ran, or NULL */
  char *notes;   /* configuration notes, or NULL */
};

tfs_optimizer_report *tfs_optimizer__report_new(void);
/* Appends an entry (strings copied); -1 on OOM. */
int tfs_optimizer__report_add(tfs_optimizer_report *r,
                              const tfs_opt_report_entry *e);

#endif
