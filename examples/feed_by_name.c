/*
 * examples/feed_by_name.c - feeding placeholders found by tensor name
 * ("x:0"), as a feed_dict keyed by names does.  12.5 + 7.5 prints 20.0.
 */
#include <stdio.h>
#include <tfsess/tfsess.h>

int main(void) {
  tfs_status *st = tfs_status_new();
  tfs_graph *g = tfs_graph_new();

  tfs_op_add(g, "total", tfs_op_placeholder(g, "x", TFS_FLOAT, NULL, 0, st),
             tfs_op_placeholder(g, "y", TFS_FLOAT, NULL, 0, st), st);

  tfs_output feeds[2] = {tfs_graph_output_by_name(g, "x:0", st),
                         tfs_graph_output_by_name(g, "y:0", st)};
  tfs_output total = tfs_graph_output_by_name(g, "total:0", st);
  tfs_tensor *values[2] = {tfs_tensor_scalar_float(12.5f),
                           tfs_tensor_scalar_float(7.5f)};

  tfs_session *sess = tfs_session_new(g, NULL, st);
  tfs_tensor *result = NULL;
  if (sess)
    tfs_session_run(sess, feeds, values, 2, &total, &result, 1, NULL, 0, st);
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
