/*
 * tests/optimizer/opttest.h - helpers of the targeted optimizer tests: a
 * graph and status per test, optimizing with a pass list and config
 * knobs, looking at the result, and running original and optimized
 * graphs on the same feeds to compare their outputs.
 */
#ifndef TFS_TESTS_OPTIMIZER_OPTTEST_H
#define TFS_TESTS_OPTIMIZER_OPTTEST_H

#include "testutil.h"

extern tfs_graph *g;
extern tfs_status *st;
extern tfs_optimizer_report *ot_report; /* of the last ot_optimize */

typedef struct ot_config_t {
  int64_t max_fold_bytes; /* 0: default */
  int layout;             /* cpu_layout_conversion */
  int amp;                /* auto_mixed_precision_onednn_bfloat16 ON */
  int iterations;         /* meta_optimizer_iterations */
  int min_graph_nodes;    /* default -1 here: always optimize */
  int arithmetic_off;
  int fail_on_errors;
  int tf_compatible;
  int disable; /* disable_meta_optimizer */
} ot_config_t;
extern ot_config_t ot_config;

void ot_setup(void);
void ot_teardown(void);

/* Placeholder x: rank 2 -> [2,3], rank 4 -> [1,5,5,3]. */
tfs_output ot_placeholder(const char *name, int rank);
/* A [2,3] float constant filled with v. */
tfs_output ot_const_like(const char *name, float v);
/* A [rows, cols] float constant with varied values. */
tfs_output ot_matrix(const char *name, int64_t rows, int64_t cols);
/* A float constant of shape dims with varied values. */
tfs_output ot_const_shape(const char *name, const int64_t *dims, int rank);
tfs_output ot_transpose(const char *name, tfs_output x, const int32_t *perm);
tfs_output ot_reshape(const char *name, tfs_output x, const int32_t *shape,
                      int n);

/* ConfigProto bytes from ot_config (into a new buffer). */
tfs_buffer *ot_config_bytes(void);

/* Optimizes g (passes: NULL for the default pipeline) and returns the new
 * graph, asserting success; the report is kept in ot_report. */
tfs_graph *ot_optimize(const tfs_output *feeds, int nfeeds,
                       const tfs_output *fetches, int nfetches,
                       const char *passes);
/* Summary of report entry i ("" when out of range). */
const char *ot_summary(int i);
/* The first report entry of `pass` at iteration 0, or -1. */
int ot_entry(const char *pass);
/* Op type of `name` in og, or "(missing)". */
const char *ot_type(tfs_graph *og, const char *name);
int ot_count(tfs_graph *og, const char *type);
/* fused_ops of node `name` in og, comma-separated ("" when none); a
 * static buffer, valid until the next call. */
const char *ot_fused_ops(tfs_graph *og, const char *name);
/* GELU of x built from ops as TensorFlow and Keras write it, named name:
 * half * x * erfc(-x / sqrt(2)) (OT_GELU_ERFC), half * x * (1 + erf(x /
 * sqrt(2))) (OT_GELU_ERF), or the tanh form with Pow(x, 3)
 * (OT_GELU_TANH). */
enum { OT_GELU_ERFC, OT_GELU_ERF, OT_GELU_TANH };
tfs_output ot_gelu(const char *name, tfs_output x, int form, float half);
/* BatchMatMulV2(x, y) named name, adj_y as given. */
tfs_output ot_batch_matmul(const char *name, tfs_output x, tfs_output y,
                           int adj_y);
/* The string list attribute attr of node `name` in og, as ot_fused_ops
 * gives fused_ops (the same static buffer). */
const char *ot_string_list(tfs_graph *og, const char *name,
                           const char *attr);

/* Runs gg (g or a graph optimized from it) on ot_check_same's feed
 * values for g's placeholders `feeds` and returns output `fetch` (named
 * as in g; the caller frees it). */
tfs_tensor *ot_run1(tfs_graph *gg, const tfs_output *feeds, int nfeeds,
                    tfs_output fetch);

/* Runs g and og on the same feed values (made from the placeholders'
 * shapes) and asserts equal outputs: exactly (tol 0), or within 1e-4
 * relative (tol 1), or within the mixed-precision tolerance (tol 2). */
void ot_check_same(tfs_graph *og, const tfs_output *feeds, int nfeeds,
                   const tfs_output *fetches, int nfetches, int tol);

#endif
