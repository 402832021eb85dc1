/*
 * examples/function_counter.c - state in a traced function lives in a
 * variable: each call adds one to a counter the function captured.  The
 * C counter in the body is a host-side effect: it runs only while tracing
 * (once), while the tfs_print in the body runs on every call (its text goes
 * to stderr).  Prints 1, 2, 3, then the host counter, 1.
 */
#include <stdio.h>
#include <tfsess/tfsess.h>

struct state {
  tfs_var *counter;
  int host_side_effects;
};

static int increment(tfs_ctx *c, tfs_value *const *in, int n,
                     tfs_value **out, int max, int *nout, void *user,
                     tfs_status *st) {
  (void)in; (void)n; (void)max;
  struct state *s = user;
  s->host_side_effects++;
  tfs_value *one = tfs_value_int32(c, 1, st);
  if (tfs_var_assign_add(c, s->counter, one, st)) return -1;
  tfs_value *value = tfs_var_read(c, s->counter, st);
  if (tfs_print(c, &value, 1, st)) return -1;
  out[0] = value;
  *nout = 1;
  return 0;
}

int main(void) {
  tfs_status *st = tfs_status_new();
  tfs_ctx *ctx = tfs_eager_ctx_new(NULL, st);
  tfs_value *zero = tfs_value_int32(ctx, 0, st);
  struct state s = {tfs_var_new(ctx, zero, "counter", st), 0};
  tfs_function *f = tfs_function_new(ctx, increment, &s, NULL, st);

  for (int call = 0; call < 3; call++) {
    tfs_value *out = NULL;
    if (tfs_function_call(f, NULL, 0, &out, 1, st) != 1) {
      fprintf(stderr, "error: %s\n", tfs_status_message(st));
      return 1;
    }
    tfs_tensor *t = tfs_value_resolve(out, st);
    printf("%d\n", *(const int32_t *)tfs_tensor_data(t));
    tfs_tensor_free(t);
    tfs_value_free(out);
  }
  printf("host side effects: %d\n", s.host_side_effects);

  tfs_function_free(f);
  tfs_var_free(s.counter);
  tfs_value_free(zero);
  tfs_ctx_free(ctx);
  tfs_status_free(st);
  return 0;
}
