/*
 * tests/optimizer/randgraph.h - a generator of random valid graphs for
 * the optimizer's differential tests: placeholders and constants of
 * random shapes, element-wise ops discovered from the op registry (those
 * with a CPU kernel), broadcasting, contractions, reductions, shape ops,
 * control edges and the patterns each pass rewrites.
 */
#ifndef TFS_TESTS_OPTIMIZER_RANDGRAPH_H
#define TFS_TESTS_OPTIMIZER_RANDGRAPH_H

#include <stdint.h>

#include "tfsess/tfsess.h"

#define RG_MAX_VALUES 512
#define RG_MAX_FEEDS 8
#define RG_MAX_FETCHES 8

typedef struct rg_value {
  tfs_output o;
  tfs_dtype dt;
  int rank;
  int64_t dims[4];
} rg_value;

typedef struct rg_graph {
  tfs_graph *g;
  int nfeeds;
  tfs_output feeds[RG_MAX_FEEDS];
  tfs_tensor *feed_values[RG_MAX_FEEDS];
  int nfetches;
  tfs_output fetches[RG_MAX_FETCHES];
  /* generator state */
  uint64_t rng;
  int safe; /* only well-conditioned float ops */
  int nvalues;
  rg_value values[RG_MAX_VALUES];
  int counter; /* for names */
} rg_graph;

/* Builds a graph of about `nodes` ops from `seed`.  safe: only ops whose
 * values stay finite and moderate, so rewrites that change rounding can
 * be compared with a tolerance.  Returns 0, or -1 with st set. */
int rg_build(rg_graph *r, uint64_t seed, int nodes, int safe, tfs_status *st);
void rg_free(rg_graph *r);

/* Deterministic pseudo-random numbers (xorshift64*). */
uint64_t rg_next(rg_graph *r);
int rg_int(rg_graph *r, int lo, int hi); /* inclusive */
double rg_unit(rg_graph *r);             /* [0, 1) */

/* Internals shared by randgraph.c and randgraph_nn.c. */
int rg_add_value(rg_graph *r, tfs_output o);
int rg_pick(rg_graph *r, tfs_dtype dt, int min_rank, int max_rank);
tfs_output rg_const(rg_graph *r, tfs_dtype dt, const int64_t *dims, int rank,
                    double lo, double hi, tfs_status *st);
tfs_output rg_const_int(rg_graph *r, const int32_t *v, int n, int as_vector,
                        tfs_status *st);
char *rg_name(rg_graph *r, const char *base);
tfs_output rg_act(rg_graph *r, tfs_output x, tfs_status *st);
/* The nn / pattern templates (randgraph_nn.c): each adds some nodes or
 * nothing; returns 1 when it added something. */
int rg_nn_template(rg_graph *r, int which, tfs_status *st);
int rg_nn_num_templates(void);

#endif
