/*
 * tests/headertest_c.c - the public headers compile as strict C99
 * (-std=c99 -pedantic -Wall -Wextra -Werror) and link.
 */
#include <tfsess/tfsess.h>

int main(void) {
  tfs_status *st = tfs_status_new();
  tfs_graph *g = tfs_graph_new();
  tfs_output c = tfs_op_const_float(g, "c", 1.0f, st);
  int ok = tfs_status_ok(st) && c.oper != NULL;
  tfs_graph_free(g);
  tfs_status_free(st);
  return ok ? 0 : 1;
}
