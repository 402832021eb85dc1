/*
 * tests/kernels/arraytest.h - helpers of the array op suites: run one op
 * on fed placeholders (unknown shape by default, so the kernel sees the
 * inputs; known rank or shape on request), attrs from a table, any number
 * of outputs; tensors from literals; exact and tolerant comparisons.
 */
#ifndef TFS_TESTS_ARRAYTEST_H
#define TFS_TESTS_ARRAYTEST_H

#include "testutil.h"

/* One attr: kind 'i' int, 'b' bool, 's' string, 't' type, 'l' int list,
 * 'S' string list (s, its items separated by commas). */
typedef struct at_attr {
  const char *name;
  char kind;
  int64_t i;
  const char *s;
  const int64_t *list;
  int n;
  tfs_dtype t;
} at_attr;

#define AT_INT(nm, v) {(nm), 'i', (v), NULL, NULL, 0, TFS_INVALID}
#define AT_BOOL(nm, v) {(nm), 'b', (v), NULL, NULL, 0, TFS_INVALID}
#define AT_STR(nm, v) {(nm), 's', 0, (v), NULL, 0, TFS_INVALID}
#define AT_TYPE(nm, v) {(nm), 't', 0, NULL, NULL, 0, (v)}
#define AT_STRS(nm, v) {(nm), 'S', 0, (v), NULL, 0, TFS_INVALID}
#define AT_LIST(nm, n, ...)                                                \
  {(nm), 'l', 0, NULL, (const int64_t[]){0, __VA_ARGS__} + 1, (n),         \
   TFS_INVALID}

/* The call: op type, attrs (ended by a NULL name; the table may be NULL),
 * inputs [list_at, list_at + list_n) passed as one list argument
 * (list_n 0: none), and per input a placeholder mode: 'u' unknown shape,
 * 'r' known rank, 'k' the fed tensor's shape, 'c' a Const holding it (so
 * shape inference sees the value; shapes NULL: all 'u'). */
typedef struct at_call {
  const char *op;
  const at_attr *attrs;
  int list_at, list_n;
  const char *shapes;
} at_call;

/* Runs the call on `in` (n inputs) and fetches nout outputs of the node
 * (named "n").  On success out[i] are new tensors.  Returns the status
 * code; the message (build or run) is left in at_msg(). */
tfs_code at_run(const at_call *call, tfs_tensor *const *in, int n,
                tfs_tensor **out, int nout);
const char *at_msg(void);

/* at_run that must succeed; returns output 0 (caller frees).  Frees the
 * inputs. */
tfs_tensor *at_eval(const at_call *call, tfs_tensor *const *in, int n);

/* at_run that must fail with `code` and a message containing `needle`
 * and naming the node ("{{node n}}").  Frees the inputs. */
void at_expect_error(const at_call *call, tfs_tensor *const *in, int n,
                     tfs_code code, const char *needle);

/* Tensors from literals (caller frees). */
tfs_tensor *at_t(tfs_dtype dt, int nd, const int64_t *dims, const void *data);
tfs_tensor *at_strs(int nd, const int64_t *dims, const char *const *s);
#define D(...) ((const int64_t[]){__VA_ARGS__})
#define F32(...) ((const float[]){__VA_ARGS__})
#define I32(...) ((const int32_t[]){__VA_ARGS__})
#define I64(...) ((const int64_t[]){__VA_ARGS__})
#define at_f32(nd, dims, v) at_t(TFS_FLOAT, (nd), (dims), (v))
#define at_i32(nd, dims, v) at_t(TFS_INT32, (nd), (dims), (v))
#define at_i64(nd, dims, v) at_t(TFS_INT64, (nd), (dims), (v))
tfs_tensor *at_si32(int32_t v);
tfs_tensor *at_sf32(float v);

/* Asserts dtype, shape and contents (floats within 1e-5 relative + 1e-6;
 * strings by bytes).  Frees `t`. */
void at_check(tfs_tensor *t, tfs_dtype dt, int nd, const int64_t *dims,
              const void *data);
void at_check_strs(tfs_tensor *t, int nd, const int64_t *dims,
                   const char *const *s);

/* Frees n tensors. */
void at_free(tfs_tensor *const *t, int n);

#endif
