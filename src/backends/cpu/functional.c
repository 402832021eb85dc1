/*
 * backends/cpu/functional.c - ops that run library functions through the
 * run's function runtime (the session instantiates each function once
 * per attrs and runs it with the caller's variables):
 * PartitionedCall / StatefulPartitionedCall; If / StatelessIf (the
 * branch TensorFlow's ToBool picks); Case / StatelessCase (an index out
 * of range runs the last branch); While / StatelessWhile (cond, then
 * body, until cond is false; the outer run's deadline and cancellation
 * are checked between iterations; only the loop variables stay alive).
 */
#include <stdatomic.h>
#include <string.h>

#include "backends/cpu/cpu_tables.h"
#include "core/alloc.h"
#include "core/tstring.h"
#include "kernels/kernel.h"

static const tfs_func_attr *func_attr(tfs_kernel_init *ki, const char *name) {
  const tfs_attr_value *f = tfs_attrs_find(ki->attrs, name);
  if (!f || f->type != TFS_ATTR_FUNC || f->is_list || !f->u.func) {
    tfs_ki_error(ki, TFS_INVALID_ARGUMENT, "Attr %s is not a function",
                 name);
    return NULL;
  }
  return f->u.func;
}

static const tfs_fn_runtime *runtime(tfs_kernel_ctx *c, const char *fname) {
  const tfs_fn_runtime *rt = c->run ? c->run->fnrt : NULL;
  if (!rt)
    tfs_kctx_fail(c, TFS_UNIMPLEMENTED,
                  "Function '%s' cannot be called here (no function "
                  "runtime)",
                  fname);
  return rt;
}

/* Runs f on inputs into the node's outputs. */
static void call_into_outputs(tfs_kernel_ctx *c, const tfs_func_attr *f,
                              tfs_tensor *const *in, int nin) {
  const tfs_fn_runtime *rt = runtime(c, f->name);
  if (rt && rt->call(rt->ctx, f, in, nin, c->outputs, c->noutputs, c->st))
    tfs_kctx_fail_status(c, c->st);
}

/* ---- calls ------------------------------------------------------------- */

static int call_prepare(tfs_kernel_init *ki) {
  const tfs_func_attr *f = func_attr(ki, "f");
  if (!f) return -1;
  ki->state = (void *)f; /* the node's attrs outlive the plan */
  return 0;
}

static void call_compute(tfs_kernel_ctx *c) {
  call_into_outputs(c, c->state, c->inputs, c->ninputs);
}

/* ---- If -------------------------------------------------------------------- */

typedef struct if_state {
  const tfs_func_attr *then_f, *else_f;
} if_state;

static int if_prepare(tfs_kernel_init *ki) {
  if_state *s = tfs_calloc(1, sizeof(*s));
  if (!s) return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  s->then_f = func_attr(ki, "then_branch");
  s->else_f = s->then_f ? func_attr(ki, "else_branch") : NULL;
  if (!s->else_f) {
    tfs_free(s);
    return -1;
  }
  ki->state = s;
  return 0;
}

/* TensorFlow's ToBool: a scalar is its value (non-zero, non-empty
 * string); any other tensor is true when it has elements. */
static int to_bool(const tfs_tensor *t) {
  if (t->shape.rank != 0) return t->nelems > 0;
  switch (tfs_dtype_base(t->dtype)) {
    case TFS_BOOL: return *(const uint8_t *)t->data != 0;
    case TFS_FLOAT: return *(const float *)t->data != 0;
    case TFS_DOUBLE: return *(const double *)t->data != 0;
    case TFS_INT32: return *(const int32_t *)t->data != 0;
    case TFS_INT64: return *(const int64_t *)t->data != 0;
    case TFS_INT8: case TFS_UINT8: return *(const uint8_t *)t->data != 0;
    case TFS_INT16: case TFS_UINT16: return *(const uint16_t *)t->data != 0;
    case TFS_UINT32: return *(const uint32_t *)t->data != 0;
    case TFS_UINT64: return *(const uint64_t *)t->data != 0;
    case TFS_STRING: return tfs_tstring_size(tfs_tensor__strings(t)) != 0;
    default: {
      /* half, bfloat16 and the rest: any non-zero byte */
      size_t n = tfs_dtype_size(t->dtype);
      for (size_t i = 0; i < n; i++)
        if (((const uint8_t *)t->data)[i]) return 1;
      return 0;
    }
  }
}

static void if_compute(tfs_kernel_ctx *c) {
  const if_state *s = c->state;
  const tfs_func_attr *f = to_bool(c->inputs[0]) ? s->then_f : s->else_f;
  call_into_outputs(c, f, c->inputs + 1, c->ninputs - 1);
}

/* ---- Case ------------------------------------------------------------------ */

static int case_prepare(tfs_kernel_init *ki) {
  const tfs_attr_value *b = tfs_attrs_find(ki->attrs, "branches");
  if (!b || b->type != TFS_ATTR_FUNC || !b->is_list || b->u.list.n < 1)
    return tfs_ki_error(ki, TFS_INVALID_ARGUMENT,
                        "Attr branches is not a non-empty list of "
                        "functions");
  ki->state = (void *)b;
  return 0;
}

static void case_compute(tfs_kernel_ctx *c) {
  const tfs_attr_value *b = c->state;
  const tfs_tensor *idx = c->inputs[0];
  if (idx->shape.rank != 0) {
    char sb[TFS_SHAPE_STRLEN];
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "branch_index must be scalar, but got shape %s",
                  tfs_shape_str(&idx->shape, sb, sizeof sb));
    return;
  }
  int32_t i = *(const int32_t *)idx->data;
  int n = b->u.list.n;
  if (i < 0 || i >= n) i = n - 1; /* TensorFlow: the last is the default */
  const tfs_func_attr *f = &((const tfs_func_attr *)b->u.list.v)[i];
  call_into_outputs(c, f, c->inputs + 1, c->ninputs - 1);
}

/* ---- While ------------------------------------------------------------------ */

typedef struct while_state {
  const tfs_func_attr *cond, *body;
  /* the constant inputs (the plan's Const values; NULL entries for the
   * others), or NULL: the body is resolved with them, so that its loop
   * invariants (an LSTM's weights) are constants to its kernels */
  const tfs_tensor **consts;
  int nconsts;
  /* that body, resolved on the first run (a plan runs in one session,
   * so under one runtime): resolving hashes the values, once per plan */
  void *_Atomic body_fn;
} while_state;

/* Values that key a resolution by their bytes: numbers and bools (not
 * strings, resources, variants, refs). */
static int plain_value(const tfs_tensor *t) {
  return t && !tfs_dtype_is_ref(t->dtype) && t->dtype != TFS_STRING &&
         t->dtype != TFS_RESOURCE && t->dtype != TFS_VARIANT &&
         tfs_dtype_size(t->dtype) > 0;
}

static void while_release(void *state) {
  while_state *s = state;
  if (!s) return;
  tfs_free(s->consts);
  tfs_free(s);
}

/* Inputs that are constants of the plan, of fixed-size dtypes. */
static int while_consts(tfs_kernel_init *ki, while_state *s) {
  int any = 0;
  for (int i = 0; ki->in_consts && i < ki->ninputs; i++) {
    const tfs_tensor *t = ki->in_consts[i];
    any |= plain_value(t);
  }
  if (!any) return 0;
  s->consts = tfs_calloc((size_t)ki->ninputs + 1, sizeof(tfs_tensor *));
  if (!s->consts)
    return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  s->nconsts = ki->ninputs;
  for (int i = 0; i < ki->ninputs; i++) {
    const tfs_tensor *t = ki->in_consts[i];
    s->consts[i] = plain_value(t) ? t : NULL;
  }
  return 0;
}

static int while_prepare(tfs_kernel_init *ki) {
  while_state *s = tfs_calloc(1, sizeof(*s));
  if (!s) return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  s->cond = func_attr(ki, "cond");
  s->body = s->cond ? func_attr(ki, "body") : NULL;
  if (!s->body || while_consts(ki, s)) {
    while_release(s);
    return -1;
  }
  ki->state = s;
  return 0;
}

static void free_all(tfs_tensor **t, int n) {
  for (int i = 0; i < n; i++) {
    tfs_tensor_free(t[i]);
    t[i] = NULL;
  }
}

/* A function the loop calls, looked up on its first call (a body that
 * never runs is never instantiated) and then once per While run when
 * the runtime can resolve (fn NULL: each call goes by attr). */
typedef struct loop_fn {
  const tfs_fn_runtime *rt;
  const tfs_func_attr *f;
  void *fn;
} loop_fn;

/* `take`: the call may take the references in `in` (see
 * tfs_fn_runtime.call_resolved); the caller frees what is left. */
static int loop_fn_call(tfs_kernel_ctx *c, loop_fn *l, tfs_tensor **in,
                        int nin, tfs_tensor **out, int nout, int take) {
  const tfs_fn_runtime *rt = l->rt;
  int rc;
  if (!l->fn && rt->resolve && rt->call_resolved)
    l->fn = rt->resolve(rt->ctx, l->f, c->st);
  if (l->fn)
    rc = rt->call_resolved(rt->ctx, l->fn, in, nin, out, nout, take, c->st);
  else if (rt->resolve && rt->call_resolved)
    rc = -1; /* resolve set st */
  else
    rc = rt->call(rt->ctx, l->f, in, nin, out, nout, c->st);
  if (rc) tfs_kctx_fail_status(c, c->st);
  return rc;
}

/* One test of the loop condition on `vars`: 1, 0 or -1 (failed). */
static int loop_cond(tfs_kernel_ctx *c, loop_fn *cond,
                     tfs_tensor **vars, int n) {
  tfs_tensor *pred = NULL;
  if (loop_fn_call(c, cond, vars, n, &pred, 1, 0)) return -1;
  int r = to_bool(pred);
  tfs_tensor_free(pred);
  return r;
}

static void while_compute(tfs_kernel_ctx *c) {
  const while_state *s = c->state;
  const tfs_fn_runtime *rt = runtime(c, s->body->name);
  if (!rt) return;
  loop_fn cond = {rt, s->cond, NULL}, body = {rt, s->body, NULL};
  if (s->consts && rt->resolve_consts && rt->call_resolved) {
    while_state *w = (while_state *)s;
    body.fn = atomic_load(&w->body_fn);
    if (!body.fn) {
      body.fn = rt->resolve_consts(rt->ctx, s->body, s->consts, s->nconsts,
                                   c->st);
      if (!body.fn) {
        tfs_kctx_fail_status(c, c->st);
        return;
      }
      atomic_store(&w->body_fn, body.fn);
    }
  }
  int n = c->ninputs;
  tfs_tensor **vars = tfs_calloc((size_t)n + 1, sizeof(tfs_tensor *));
  tfs_tensor **next = tfs_calloc((size_t)n + 1, sizeof(tfs_tensor *));
  if (!vars || !next) {
    tfs_free(vars);
    tfs_free(next);
    tfs_kctx_fail(c, TFS_RESOURCE_EXHAUSTED, "out of memory");
    return;
  }
  for (int i = 0; i < n; i++) vars[i] = tfs_tensor_ref(c->inputs[i]);
  for (;;) {
    int more = loop_cond(c, &cond, vars, n);
    if (more <= 0) {
      if (more == 0) { /* the loop's result */
        for (int i = 0; i < n && i < c->noutputs; i++) {
          tfs_kctx_set_output(c, i, vars[i]);
          vars[i] = NULL;
        }
      }
      break;
    }
    if (c->run->check_abort && c->run->check_abort(c->run, c->st)) {
      tfs_kctx_fail_status(c, c->st);
      break;
    }
    /* the body takes the variables: one it then holds alone (a list,
     * the cell state) may be updated in place */
    if (loop_fn_call(c, &body, vars, n, next, n, 1)) break;
    free_all(vars, n); /* only the loop variables stay alive */
    tfs_tensor **t = vars;
    vars = next;
    next = t;
  }
  free_all(vars, n);
  tfs_free(vars);
  tfs_free(next);
}

const tfs_kernel_def tfs_cpu_kernels_functional[] = {
    {"PartitionedCall", "CPU", NULL, 0, call_prepare, call_compute, NULL, 0,
     NULL},
    {"StatefulPartitionedCall", "CPU", NULL, 0, call_prepare, call_compute,
     NULL, 0, NULL},
    {"If", "CPU", NULL, 0, if_prepare, if_compute, tfs_free, 0, NULL},
    {"StatelessIf", "CPU", NULL, 0, if_prepare, if_compute, tfs_free, 0,
     NULL},
    {"Case", "CPU", NULL, 0, case_prepare, case_compute, NULL, 0, NULL},
    {"StatelessCase", "CPU", NULL, 0, case_prepare, case_compute, NULL, 0,
     NULL},
    {"While", "CPU", NULL, 0, while_prepare, while_compute, while_release,
     0, NULL},
    {"StatelessWhile", "CPU", NULL, 0, while_prepare, while_compute,
     while_release, 0, NULL},
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL},
};
