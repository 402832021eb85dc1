/*
 * examples/add_constants.c - the smallest tfsess program: two constants,
 * their sum, one session run.  Prints 8.
 */
#include <stdio.h>
#include <tfsess/tfsess.h>

int main(void) {
  tfs_status *st = tfs_status_new();
  tfs_graph *g = tfs_graph_new();

  tfs_output a = tfs_op_const_int32(g, "a", 5, st);
  tfs_output b = tfs_op_const_int32(g, "b", 3, st);
  tfs_output sum = tfs_op_add(g, "sum", a, b, st);

  tfs_session *sess = tfs_session_new(g, NULL, st);
  tfs_tensor *result = NULL;
  if (sess)
    tfs_session_run(sess, NULL, NULL, 0, &sum, &result, 1, NULL, 0, st);
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
