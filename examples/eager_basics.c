/*
 * examples/eager_basics.c - TensorFlow 2's eager style: ops run at once on
 * values.  Adds and multiplies [1, 2] and [3, 4]; prints [4 6] and [3 8].
 */
#include <stdio.h>
#include <stdlib.h>
#include <tfsess/tfsess.h>

static void print_value(tfs_value *v, tfs_status *st) {
  tfs_tensor *t = tfs_value_resolve(v, st);
  char *text = t ? tfs_tensor_to_string(t, 6) : NULL;
  printf("%s\n", text ? text : "?");
  free(text);
  tfs_tensor_free(t);
}

int main(void) {
  tfs_status *st = tfs_status_new();
  tfs_ctx *ctx = tfs_eager_ctx_new(NULL, st);

  int64_t dims[1] = {2};
  float av[2] = {1, 2}, bv[2] = {3, 4};
  tfs_value *a = tfs_value_floats(ctx, dims, 1, av, st);
  tfs_value *b = tfs_value_floats(ctx, dims, 1, bv, st);
  tfs_value *sum = tfs_add(ctx, a, b, st);
  tfs_value *product = tfs_mul(ctx, a, b, st);
  if (!tfs_status_ok(st)) {
    fprintf(stderr, "error: %s\n", tfs_status_message(st));
    return 1;
  }
  print_value(sum, st);
  print_value(product, st);

  tfs_value_free(a);
  tfs_value_free(b);
  tfs_value_free(sum);
  tfs_value_free(product);
  tfs_ctx_free(ctx);
  tfs_status_free(st);
  return 0;
}
