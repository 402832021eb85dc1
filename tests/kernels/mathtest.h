/*
 * tests/kernels/mathtest.h - helpers of the math, random and logging op
 * suites: evaluate one op over fed placeholders of unknown shape (so the
 * kernel, not shape inference, sees the inputs), build tensors of any
 * dtype from doubles, compare results.
 */
#ifndef TFS_TESTS_MATHTEST_H
#define TFS_TESTS_MATHTEST_H

#include "testutil.h"

/* Sets attrs on a description (may be NULL). */
typedef void (*mt_attr_fn)(tfs_op_desc *d, const void *arg);

typedef struct mt_op {
  const char *op;
  int list_from;      /* inputs [list_from, n) form one list; -1: none */
  mt_attr_fn attrs;
  const void *arg;
} mt_op;

/* Evaluates `op` (node name "op") on placeholders fed with vals[0..n) and
 * returns output 0, asserting success.  The caller frees the result. */
tfs_tensor *mt_eval(const mt_op *op, tfs_tensor *const *vals, int n);

/* Same, expecting a failure at run time (or when the node is built):
 * returns the status code and copies the message into a static buffer
 * (*msg). */
tfs_code mt_eval_fail(const mt_op *op, tfs_tensor *const *vals, int n,
                      const char **msg);

/* Intra-op threads of the sessions mt_eval creates (0: the default). */
void mt_set_threads(int n);

/* A tensor of dt and shape dims[0..nd) holding values (converted from
 * double; complex: real part, see mt_complex). */
tfs_tensor *mt_t(tfs_dtype dt, int nd, const int64_t *dims,
                 const double *values);
/* A complex tensor from interleaved (re, im) pairs. */
tfs_tensor *mt_complex(tfs_dtype dt, int nd, const int64_t *dims,
                       const double *pairs);
/* Scalars. */
tfs_tensor *mt_scalar(tfs_dtype dt, double v);

/* Element i as double (complex: the real part; imag with mt_imag). */
double mt_get(const tfs_tensor *t, int64_t i);
double mt_imag(const tfs_tensor *t, int64_t i);

/* Asserts t's dtype and shape, then each element within
 * tol * (1 + |expected|) (exact when tol is 0; NaN matches NaN). */
void mt_expect(const tfs_tensor *t, tfs_dtype dt, int nd, const int64_t *dims,
               const double *expected, double tol);
/* Same for complex results given as (re, im) pairs. */
void mt_expect_complex(const tfs_tensor *t, tfs_dtype dt, int nd,
                       const int64_t *dims, const double *pairs, double tol);

/* Returns t, to be freed when the program exits (for inputs built inline
 * in a call). */
tfs_tensor *mt_tmp(tfs_tensor *t);

/* Frees every tensor of an array. */
void mt_free_all(tfs_tensor **ts, int n);

#define MT_DIMS(...) ((const int64_t[]){__VA_ARGS__})
#define MT_VALS(...) ((const double[]){__VA_ARGS__})

#endif
