/*
 * tests/install_test.c - built by scripts/check against an installed
 * tfsess with `pkg-config --cflags --libs tfsess`: 5 + 3 must give 8.
 */
#include <stdio.h>
#include <tfsess/tfsess.h>

int main(void) {
  tfs_status *st = tfs_status_new();
  tfs_graph *g = tfs_graph_new();
  tfs_output a = tfs_op_const_float(g, "a", 5.0f, st);
  tfs_output b = tfs_op_const_float(g, "b", 3.0f, st);
  tfs_output c = tfs_op_add(g, "c", a, b, st);
  tfs_session *s = tfs_session_new(g, NULL, st);
  tfs_tensor *out = NULL;
  if (s) tfs_session_run(s, NULL, NULL, 0, &c, &out, 1, NULL, 0, st);
  int ok = tfs_status_ok(st) && out &&
           *(const float *)tfs_tensor_data(out) == 8.0f;
  if (!ok) fprintf(stderr, "install test: %s\n", tfs_status_message(st));
  tfs_tensor_free(out);
  tfs_session_free(s);
  tfs_graph_free(g);
  tfs_status_free(st);
  return ok ? 0 : 1;
}
