/*
 * examples/retracing.c - when a traced function traces again.  The same
 * body is called with batches of 1, 8 and 32 rows:
 *   - with no input signature every new shape traces: 3 traces;
 *   - with an input signature of shape [-1, 4] (None in Python): 1 trace;
 *   - with reduce_retracing, the batch dimension is widened to unknown
 *     after the first retrace: 2 traces.
 */
#include <stdio.h>
#include <stdlib.h>
#include <tfsess/tfsess.h>

static int row_means(tfs_ctx *c, tfs_value *const *in, int n,
                     tfs_value **out, int max, int *nout, void *user,
                     tfs_status *st) {
  (void)n; (void)max; (void)user;
  int32_t axis = 1;
  out[0] = tfs_reduce_mean(c, in[0], &axis, 1, 0, st);
  *nout = 1;
  return out[0] ? 0 : -1;
}

static int traces(tfs_ctx *ctx, const tfs_function_options *opts,
                  tfs_status *st) {
  tfs_function *f = tfs_function_new(ctx, row_means, NULL, opts, st);
  const int batches[3] = {1, 8, 32};
  for (int i = 0; i < 3; i++) {
    int64_t dims[2] = {batches[i], 4};
    float *data = calloc((size_t)batches[i] * 4, sizeof(float));
    tfs_value *x = tfs_value_floats(ctx, dims, 2, data, st);
    tfs_value *y = NULL;
    if (tfs_function_call(f, &x, 1, &y, 1, st) != 1) return -1;
    tfs_value_free(x);
    tfs_value_free(y);
    free(data);
  }
  int n = tfs_function_trace_count(f);
  tfs_function_free(f);
  return n;
}

int main(void) {
  tfs_status *st = tfs_status_new();
  tfs_ctx *ctx = tfs_eager_ctx_new(NULL, st);

  int64_t any_batch[2] = {-1, 4};
  tfs_tensor_spec spec = {TFS_FLOAT, 2, any_batch};
  tfs_function_options with_signature = {0};
  with_signature.input_signature = &spec;
  with_signature.num_inputs_in_signature = 1;
  tfs_function_options reduce = {0};
  reduce.reduce_retracing = 1;

  printf("no signature: %d traces\n", traces(ctx, NULL, st));
  printf("input signature [-1,4]: %d trace\n", traces(ctx, &with_signature, st));
  printf("reduce_retracing: %d traces\n", traces(ctx, &reduce, st));
  if (!tfs_status_ok(st)) {
    fprintf(stderr, "error: %s\n", tfs_status_message(st));
    return 1;
  }
  tfs_ctx_free(ctx);
  tfs_status_free(st);
  return 0;
}
