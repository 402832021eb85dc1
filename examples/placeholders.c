/*
 * examples/placeholders.c - values supplied at run time: two float
 * placeholders fed 10.5 and 4.5.  Prints 15.0.
 */
#include <stdio.h>
#include <tfsess/tfsess.h>

int main(void) {
  tfs_status *st = tfs_status_new();
  tfs_graph *g = tfs_graph_new();

  tfs_output x = tfs_op_placeholder(g, "x", TFS_FLOAT, NULL, 0, st);
  tfs_output y = tfs_op_placeholder(g, "y", TFS_FLOAT, NULL, 0, st);
  tfs_output sum = tfs_op_add(g, "sum", x, y, st);

  tfs_session *sess = tfs_session_new(g, NULL, st);
  tfs_output feeds[2] = {x, y};
  tfs_tensor *values[2] = {tfs_tensor_scalar_float(10.5f),
                           tfs_tensor_scalar_float(4.5f)};
  tfs_tensor *result = NULL;
  if (sess)
    tfs_session_run(sess, feeds, values, 2, &sum, &result, 1, NULL, 0, st);
  if (!tfs_status_ok(st)) {
    fprintf(stderr, "error: %s\n", tfs_status_message(st));
    return 1;
  }
  printf("%.1f\n", *(const float *)tfs_tensor_data(result));

  tfs_tensor_free(values[0]);
  tfs_tensor_free(values[1]);
  tfs_tensor_free(result);
  tfs_session_free(sess);
  tfs_graph_free(g);
  tfs_status_free(st);
  return 0;
}
