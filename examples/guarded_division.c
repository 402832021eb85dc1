/*
 * examples/guarded_division.c - a division protected by assertions, as
 * tf.debugging.assert_non_negative / assert_positive add them: the
 * quotient depends on both Assert ops, so a bad input stops the run with
 * INVALID_ARGUMENT and the assertion's message.
 * Prints 5 for 10 / 2, then the error for 10 / 0.
 */
#include <stdio.h>
#include <tfsess/tfsess.h>

int main(void) {
  tfs_status *st = tfs_status_new();
  tfs_graph *g = tfs_graph_new();

  tfs_output x = tfs_op_placeholder(g, "x", TFS_INT32, NULL, 0, st);
  tfs_output y = tfs_op_placeholder(g, "y", TFS_INT32, NULL, 0, st);
  tfs_output zero = tfs_op_const_int32(g, "zero", 0, st);

  tfs_tensor *msg1 = tfs_tensor_scalar_string("x must be non-negative", 22);
  tfs_tensor *msg2 = tfs_tensor_scalar_string("divisor must be positive", 24);
  tfs_output data1[2] = {tfs_op_const(g, "msg_x", msg1, st), x};
  tfs_output data2[2] = {tfs_op_const(g, "msg_y", msg2, st), y};
  tfs_operation *checks[2] = {
      tfs_op_assert(g, "assert_non_negative",
                    tfs_op_binary(g, "GreaterEqual", NULL, x, zero, st),
                    data1, 2, st),
      tfs_op_assert(g, "assert_positive",
                    tfs_op_binary(g, "Greater", NULL, y, zero, st), data2, 2,
                    st)};
  tfs_output quotient = tfs_op_div(
      g, "quotient", tfs_op_with_dependencies(g, NULL, x, checks, 2, st), y,
      st);
  tfs_tensor_free(msg1);
  tfs_tensor_free(msg2);

  tfs_session *sess = tfs_session_new(g, NULL, st);
  if (!sess) {
    fprintf(stderr, "error: %s\n", tfs_status_message(st));
    return 1;
  }
  int32_t divisors[2] = {2, 0};
  for (int i = 0; i < 2; i++) {
    tfs_output feeds[2] = {x, y};
    tfs_tensor *values[2] = {tfs_tensor_scalar_int32(10),
                             tfs_tensor_scalar_int32(divisors[i])};
    tfs_tensor *result = NULL;
    tfs_session_run(sess, feeds, values, 2, &quotient, &result, 1, NULL, 0,
                    st);
    if (tfs_status_ok(st))
      printf("10 / %d = %d\n", divisors[i],
             *(const int32_t *)tfs_tensor_data(result));
    else
      printf("10 / %d failed: %s: %s\n", divisors[i],
             tfs_code_name(tfs_status_code(st)), tfs_status_message(st));
    tfs_tensor_free(values[0]);
    tfs_tensor_free(values[1]);
    tfs_tensor_free(result);
  }

  tfs_session_free(sess);
  tfs_graph_free(g);
  tfs_status_free(st);
  return 0;
}
