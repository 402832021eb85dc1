/*
 * examples/scoped_session.c - the session lives only for the body, as in
 * Python's `with tf.Session() as sess:`; tfs_session_with closes and frees
 * it whatever the body does.  Computes 10 + 20 and prints 30.
 */
#include <stdio.h>
#include <tfsess/tfsess.h>

struct job {
  tfs_output sum;
  int32_t value;
  tfs_status *st;
};

static int body(tfs_session *sess, void *user) {
  struct job *job = user;
  tfs_tensor *result = NULL;
  tfs_session_run(sess, NULL, NULL, 0, &job->sum, &result, 1, NULL, 0,
                  job->st);
  if (!tfs_status_ok(job->st)) return -1;
  job->value = *(const int32_t *)tfs_tensor_data(result);
  tfs_tensor_free(result);
  return 0;
}

int main(void) {
  tfs_status *st = tfs_status_new();
  tfs_graph *g = tfs_graph_new();
  struct job job;
  job.st = st;
  job.sum = tfs_op_add(g, "sum", tfs_op_const_int32(g, "a", 10, st),
                       tfs_op_const_int32(g, "b", 20, st), st);

  if (tfs_session_with(g, NULL, body, &job, st) != 0) {
    fprintf(stderr, "error: %s\n", tfs_status_message(st));
    return 1;
  }
  printf("%d\n", job.value);

  tfs_graph_free(g);
  tfs_status_free(st);
  return 0;
}
