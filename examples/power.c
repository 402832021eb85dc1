/*
 * examples/power.c - 7 to the power 2 with the Pow op.  Prints 49.
 */
#include <stdio.h>
#include <tfsess/tfsess.h>

int main(void) {
  tfs_status *st = tfs_status_new();
  tfs_graph *g = tfs_graph_new();

  tfs_output base = tfs_op_const_int32(g, "base", 7, st);
  tfs_output exponent = tfs_op_const_int32(g, "exponent", 2, st);
  tfs_output power = tfs_op_pow(g, "power", base, exponent, st);

  tfs_session *sess = tfs_session_new(g, NULL, st);
  tfs_tensor *result = NULL;
  if (sess)
    tfs_session_run(sess, NULL, NULL, 0, &power, &result, 1, NULL, 0, st);
  if (!tfs_status_ok(st)) {
    fprintf(stderr, "error: %s\n", tfs_status_message(st));
    return 1;
  }
  printf("%d\n", *(const int32_t *)tfs_tensor_data(result));

  tfs_tensor_free(result);
  tfs_session_free(sess);
  tfs_graph_free(g);
  tfs_status_free(st);
  return 0;
}
