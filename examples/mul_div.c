/*
 * examples/mul_div.c - two results from one run: the product and the
 * quotient of 2 and 4.  Integer division with `/` in TensorFlow 1 is true
 * division: both operands are cast to double first (as tf.truediv does).
 * Prints 8 and 2.0.
 */
#include <stdio.h>
#include <tfsess/tfsess.h>

int main(void) {
  tfs_status *st = tfs_status_new();
  tfs_graph *g = tfs_graph_new();

  tfs_output a = tfs_op_const_int32(g, "a", 2, st);
  tfs_output b = tfs_op_const_int32(g, "b", 4, st);
  tfs_output product = tfs_op_mul(g, "product", a, b, st);
  tfs_output quotient = tfs_op_realdiv(g, "quotient",
                                       tfs_op_cast(g, NULL, b, TFS_DOUBLE, st),
                                       tfs_op_cast(g, NULL, a, TFS_DOUBLE, st),
                                       st);

  tfs_session *sess = tfs_session_new(g, NULL, st);
  tfs_output fetches[2] = {product, quotient};
  tfs_tensor *results[2] = {NULL, NULL};
  if (sess)
    tfs_session_run(sess, NULL, NULL, 0, fetches, results, 2, NULL, 0, st);
  if (!tfs_status_ok(st)) {
    fprintf(stderr, "error: %s\n", tfs_status_message(st));
    return 1;
  }
  printf("%d\n", *(const int32_t *)tfs_tensor_data(results[0]));
  printf("%.1f\n", *(const double *)tfs_tensor_data(results[1]));

  tfs_tensor_free(results[0]);
  tfs_tensor_free(results[1]);
  tfs_session_free(sess);
  tfs_graph_free(g);
  tfs_status_free(st);
  return 0;
}
