/*
 * examples/counter.c - state across runs: a variable initialised to 0 and
 * incremented by one each run (tf.Variable + assign_add + the
 * global_variables_initializer).  Prints 1, 2, 3.
 */
#include <stdio.h>
#include <tfsess/tfsess.h>

int main(void) {
  tfs_status *st = tfs_status_new();
  tfs_graph *g = tfs_graph_new();

  tfs_output counter = tfs_op_variable(g, "counter", TFS_INT32, NULL, 0, st);
  tfs_output init_value = tfs_op_assign(
      g, "counter/Assign", counter, tfs_op_const_int32(g, "zero", 0, st), st);
  tfs_operation *assign_op = init_value.oper;
  tfs_operation *init = tfs_op_group(g, "init", &assign_op, 1, st);
  tfs_output increment = tfs_op_assign_add(
      g, "increment", counter, tfs_op_const_int32(g, "one", 1, st), st);

  tfs_session *sess = tfs_session_new(g, NULL, st);
  if (sess) tfs_session_run(sess, NULL, NULL, 0, NULL, NULL, 0, &init, 1, st);
  for (int step = 0; step < 3 && tfs_status_ok(st); step++) {
    tfs_tensor *value = NULL;
    tfs_session_run(sess, NULL, NULL, 0, &increment, &value, 1, NULL, 0, st);
    if (tfs_status_ok(st)) printf("%d\n", *(const int32_t *)tfs_tensor_data(value));
    tfs_tensor_free(value);
  }
  if (!tfs_status_ok(st)) {
    fprintf(stderr, "error: %s\n", tfs_status_message(st));
    return 1;
  }

  tfs_session_free(sess);
  tfs_graph_free(g);
  tfs_status_free(st);
  return 0;
}
