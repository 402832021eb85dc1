/*
 * examples/session_config.c - a session configured like TensorFlow 1's
 * ConfigProto(intra_op_parallelism_threads=2,
 * inter_op_parallelism_threads=2, allow_soft_placement=True), computing
 * 5 * 3.  Prints 15.
 */
#include <stdio.h>
#include <tfsess/tfsess.h>

int main(void) {
  tfs_status *st = tfs_status_new();
  tfs_graph *g = tfs_graph_new();

  tfs_output a = tfs_op_const_int32(g, "a", 5, st);
  tfs_output b = tfs_op_const_int32(g, "b", 3, st);
  tfs_output product = tfs_op_mul(g, "product", a, b, st);

  tfs_session_options *opts = tfs_session_options_new();
  tfs_session_options_set_intra_op_threads(opts, 2);
  tfs_session_options_set_inter_op_threads(opts, 2);
  tfs_session_options_set_allow_soft_placement(opts, 1);
  tfs_session *sess = tfs_session_new(g, opts, st);
  tfs_session_options_free(opts);

  tfs_tensor *result = NULL;
  if (sess)
    tfs_session_run(sess, NULL, NULL, 0, &product, &result, 1, NULL, 0, st);
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
