/*
 * tfsess/optimizer.h - the graph optimizer (a Grappler-class meta-
 * optimizer): rewrite a graph into an equivalent, faster one and say what
 * each pass did.
 *
 * Sessions run it when they build a plan, configured by ConfigProto's
 * graph_options.rewrite_options (RewriterConfig) merged with the
 * process-wide options below.  These functions run it on demand, for
 * ahead-of-time optimization (`tfsess optimize`) and for A/B tests of one
 * pass at a time.  Passes, in order: pruning, common_subgraph_elimination,
 * debug_stripper (off by default), constfold, auto_mixed_precision (off by
 * default), arithmetic, layout, remap, dependency; see docs/OPTIMIZER.md.
 *
 * Threads: the experimental options are process-wide and guarded by a
 * lock; set them before creating the sessions that should see them.
 * Optimizing a graph only reads it: several threads may optimize at once
 * while nobody adds to the graph.  Options and reports: one thread at a
 * time.
 */
#ifndef TFSESS_OPTIMIZER_H
#define TFSESS_OPTIMIZER_H

#include "buffer.h"
#include "common.h"
#include "graph.h"
#include "status.h"

TFS_BEGIN_DECLS

/* ---- process-wide options (tf.config.optimizer.set_experimental_options) -- */

/* Sets one option by TensorFlow's key: a RewriterConfig toggle name
 * ("constant_folding", "remapping", "layout_optimizer",
 * "arithmetic_optimization", "dependency_optimization",
 * "common_subgraph_elimination", "debug_stripper",
 * "auto_mixed_precision", "auto_mixed_precision_onednn_bfloat16",
 * "auto_mixed_precision_mkl", "auto_mixed_precision_cpu",
 * "shape_optimization", "loop_optimization", "function_optimization",
 * "scoped_allocator_optimization", "pin_to_host_optimization",
 * "implementation_selector", "use_plugin_optimizers"; value non-zero =
 * ON, 0 = OFF), "disable_model_pruning" / "disable_meta_optimizer"
 * (booleans) or "min_graph_nodes" (an integer).  A set option overrides
 * the session's RewriterConfig field, as TensorFlow's context does.
 * INVALID_ARGUMENT for an unknown key. */
TFS_API void tfs_optimizer_set_experimental_option(const char *name,
                                                   int64_t value,
                                                   tfs_status *st);

/* Sets several options at once: all of them, or none when a key is
 * unknown. */
TFS_API void tfs_optimizer_set_experimental_options(
    const char *const *names, const int64_t *values, int n, tfs_status *st);

/* 1 and the value in *value when the option is set, 0 when it is not,
 * -1 for an unknown key. */
TFS_API int tfs_optimizer_get_experimental_option(const char *name,
                                                  int64_t *value);

/* Forgets every process-wide option (back to the configs' own values). */
TFS_API void tfs_optimizer_reset_experimental_options(void);

/* ---- optimizing a graph ------------------------------------------------- */

typedef struct tfs_optimizer_options tfs_optimizer_options;
typedef struct tfs_optimizer_report tfs_optimizer_report;

/* Returns new options (TensorFlow's defaults); caller frees with
 * tfs_optimizer_options_free.  NULL only when memory runs out. */
TFS_API tfs_optimizer_options *tfs_optimizer_options_new(void);
TFS_API void tfs_optimizer_options_free(tfs_optimizer_options *o);

/* Reads graph_options.rewrite_options (and the folding size cap of
 * graph_options.optimizer_options) from ConfigProto bytes.
 * INVALID_ARGUMENT "Unparseable ConfigProto" for bad bytes. */
TFS_API void tfs_optimizer_options_set_config(tfs_optimizer_options *o,
                                              const void *proto, size_t len,
                                              tfs_status *st);

/* Replaces the pipeline with a comma-separated list of passes, in order
 * (RewriterConfig.optimizers names: "pruning", "constfold",
 * "common_subgraph_elimination", "arithmetic", "dependency", "remap",
 * "layout", "auto_mixed_precision", "auto_mixed_precision_mkl",
 * "auto_mixed_precision_onednn_bfloat16", "auto_mixed_precision_cpu",
 * "debug_stripper"; the logged names such as "constant_folding" and
 * "remapper" work too).  NULL or "" restores the default pipeline;
 * "none" runs no pass.  INVALID_ARGUMENT names an unknown pass. */
TFS_API void tfs_optimizer_options_set_passes(tfs_optimizer_options *o,
                                              const char *list,
                                              tfs_status *st);

/* Only emit ops that TensorFlow itself can load (no tfsess-internal fused
 * ops such as _TfsSwish or _FusedBatchMatMulV2).  Default: off; the CLI
 * turns it on for files it writes. */
TFS_API void tfs_optimizer_options_set_tf_compatible(tfs_optimizer_options *o,
                                                     int on);

/* Optimizes the part of `g` that `fetches` and `targets` need (all of it
 * when both are empty), preserving the feeds, fetches, targets and every
 * stateful node by name.  `opts` may be NULL (defaults).  Returns a new
 * graph (caller frees with tfs_graph_free); when the optimizer skips the
 * graph (disabled, or fewer nodes than min_graph_nodes) the result is an
 * unchanged copy.  *report (if report is not NULL) receives a new report,
 * freed with tfs_optimizer_report_free, also on most errors.  Does not
 * take ownership of any argument; `g` is only read.  Errors: an invalid
 * feed/fetch/target, or a pass failing under fail_on_optimizer_errors. */
TFS_API tfs_graph *tfs_graph_optimize(tfs_graph *g, const tfs_output *feeds,
                                      int nfeeds, const tfs_output *fetches,
                                      int nfetches,
                                      tfs_operation *const *targets,
                                      int ntargets,
                                      const tfs_optimizer_options *opts,
                                      tfs_optimizer_report **report,
                                      tfs_status *st);

/* GraphDef in, GraphDef out: imports `graphdef`, optimizes it for the
 * comma-separated tensor or node names in `fetch_names` (NULL or "": the
 * whole graph) and writes the result into `out` (which must be empty;
 * tfs_buffer_free releases).  The bytes load in TensorFlow when
 * tfs_optimizer_options_set_tf_compatible is on. */
TFS_API void tfs_optimize_graphdef(const void *graphdef, size_t len,
                                   const char *fetch_names,
                                   const tfs_optimizer_options *opts,
                                   tfs_buffer *out,
                                   tfs_optimizer_report **report,
                                   tfs_status *st);

/* ---- reports -------------------------------------------------------------- */

/* One entry per pass run (and iteration), in the order they ran. */
TFS_API int tfs_optimizer_report_num_entries(const tfs_optimizer_report *r);
/* Borrowed strings, valid until the report is freed.  i out of range:
 * NULL / -1. */
TFS_API const char *tfs_optimizer_report_pass(const tfs_optimizer_report *r,
                                              int i);
TFS_API int tfs_optimizer_report_iteration(const tfs_optimizer_report *r,
                                           int i);
TFS_API int64_t tfs_optimizer_report_nodes_before(
    const tfs_optimizer_report *r, int i);
TFS_API int64_t tfs_optimizer_report_nodes_after(
    const tfs_optimizer_report *r, int i);
TFS_API int64_t tfs_optimizer_report_edges_before(
    const tfs_optimizer_report *r, int i);
TFS_API int64_t tfs_optimizer_report_edges_after(
    const tfs_optimizer_report *r, int i);
/* Wall time of the pass in microseconds. */
TFS_API double tfs_optimizer_report_time_us(const tfs_optimizer_report *r,
                                            int i);
/* What changed ("folded 12 nodes into 3 constants"); "" when nothing. */
TFS_API const char *tfs_optimizer_report_summary(
    const tfs_optimizer_report *r, int i);
/* TFS_OK, or the code of the error that made the optimizer skip the pass
 * (its message by tfs_optimizer_report_error, else NULL). */
TFS_API tfs_code tfs_optimizer_report_code(const tfs_optimizer_report *r,
                                           int i);
TFS_API const char *tfs_optimizer_report_error(const tfs_optimizer_report *r,
                                               int i);
/* Why the optimizer did not run at all, or NULL. */
TFS_API const char *tfs_optimizer_report_skipped(
    const tfs_optimizer_report *r);
/* Whole-run figures: nodes before and after, total microseconds. */
TFS_API int64_t tfs_optimizer_report_total_nodes_before(
    const tfs_optimizer_report *r);
TFS_API int64_t tfs_optimizer_report_total_nodes_after(
    const tfs_optimizer_report *r);
TFS_API double tfs_optimizer_report_total_time_us(
    const tfs_optimizer_report *r);
/* The report as a table, one line per entry plus a total; returns a new
 * string the caller frees with free(), NULL when memory runs out. */
TFS_API char *tfs_optimizer_report_to_string(const tfs_optimizer_report *r);
/* Accepts NULL. */
TFS_API void tfs_optimizer_report_free(tfs_optimizer_report *r);

TFS_END_DECLS

#endif /* TFSESS_OPTIMIZER_H */
