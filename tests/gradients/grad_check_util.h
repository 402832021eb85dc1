/*
 * tests/gradients/grad_check_util.h - the numeric gradient checker and a
 * terse graph builder for its cases.
 */
#ifndef TFS_TESTS_GRAD_CHECK_UTIL_H
#define TFS_TESTS_GRAD_CHECK_UTIL_H

#include "tfsess/tfsess.h"

/* Value domains the inputs are drawn from. */
enum {
  GC_ALL,   /* [-1, 1] */
  GC_AWAY,  /* +-[0.2, 1]: away from kinks at 0 */
  GC_POS,   /* [0.2, 1.2] */
  GC_GT1,   /* [1.2, 2.2] */
  GC_UNIT,  /* [-0.8, 0.8] */
  GC_PROB,  /* [0.2, 0.8] */
  GC_WIDE   /* +-[0.2, 3] */
};

typedef tfs_output (*gc_build_fn)(tfs_graph *g, const tfs_output *x);

typedef struct gc_case {
  const char *ops;    /* op types it checks, comma-separated */
  const char *shapes; /* input shapes, ';'-separated, "2x3", "s" scalar */
  int dom;            /* GC_* */
  tfs_dtype dt;       /* placeholder dtype: TFS_DOUBLE or TFS_FLOAT */
  gc_build_fn build;
} gc_case;

/* An op with inputs and attrs.  attrs: "name=kind:value;..." with kinds
 * i (int), f (float), b (bool 0/1), t (type: float, double, int32,
 * int64, complex64, complex128), s (string), li (int list 1,2,3), sh
 * (shape 2,3).  Returns output 0; a failure is reported and fails the
 * case. */
tfs_output gc_op(tfs_graph *g, const char *type, const tfs_output *in,
                 int nin, const char *attrs);
/* Output k of the op that produced o. */
tfs_output gc_out(tfs_output o, int k);
tfs_output gc_i32(tfs_graph *g, const int32_t *v, int n); /* vector */
tfs_output gc_i32s(tfs_graph *g, int32_t v);               /* scalar */
tfs_output gc_f64(tfs_graph *g, double v);                 /* scalar */
/* A Const of dtype dt from `n` doubles with the given shape. */
tfs_output gc_const(tfs_graph *g, tfs_dtype dt, const char *shape,
                    const double *v, int n);

/* Runs one case: compares the symbolic gradient of sum(y * w) (w fixed
 * random weights) with respect to every input against central
 * differences.  Returns 0 when every element agrees; prints the worst
 * mismatch otherwise. */
int gc_check(const gc_case *c);

#endif
