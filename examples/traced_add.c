/*
 * examples/traced_add.c - a traced function (TensorFlow 2's tf.function):
 * the body is written once against the op API; the first call traces it
 * into a graph, later calls with the same signature run that graph.
 * Prints 8 twice and the number of traces, 1.
 */
#include <stdio.h>
#include <tfsess/tfsess.h>

static int add(tfs_ctx *c, tfs_value *const *in, int n, tfs_value **out,
               int max, int *nout, void *user, tfs_status *st) {
  (void)n; (void)max; (void)user;
  out[0] = tfs_add(c, in[0], in[1], st);
  *nout = 1;
  return out[0] ? 0 : -1;
}

int main(void) {
  tfs_status *st = tfs_status_new();
  tfs_ctx *ctx = tfs_eager_ctx_new(NULL, st);
  tfs_function *f = tfs_function_new(ctx, add, NULL, NULL, st);

  for (int call = 0; call < 2; call++) {
    tfs_value *in[2] = {tfs_value_int32(ctx, 5, st),
                        tfs_value_int32(ctx, 3, st)};
    tfs_value *out = NULL;
    if (tfs_function_call(f, in, 2, &out, 1, st) != 1) {
      fprintf(stderr, "error: %s\n", tfs_status_message(st));
      return 1;
    }
    tfs_tensor *t = tfs_value_resolve(out, st);
    printf("%d\n", *(const int32_t *)tfs_tensor_data(t));
    tfs_tensor_free(t);
    tfs_value_free(out);
    tfs_value_free(in[0]);
    tfs_value_free(in[1]);
  }
  printf("traces: %d\n", tfs_function_trace_count(f));

  tfs_function_free(f);
  tfs_ctx_free(ctx);
  tfs_status_free(st);
  return 0;
}
