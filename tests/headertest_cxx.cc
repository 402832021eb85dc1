// tests/headertest_cxx.cc - the public headers compile as C++17 with
// -pedantic -Wall -Wextra -Werror and link.
#include <tfsess/tfsess.h>

int main() {
  tfs_status *st = tfs_status_new();
  tfs_graph *g = tfs_graph_new();
  tfs_output c = tfs_op_const_float(g, "c", 1.0f, st);
  bool ok = tfs_status_ok(st) && c.oper != nullptr;
  tfs_graph_free(g);
  tfs_status_free(st);
  return ok ? 0 : 1;
}
