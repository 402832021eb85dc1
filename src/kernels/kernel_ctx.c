/*
 * kernels/kernel_ctx.c - what a kernel can do through its context:
 * allocate or forward outputs, fail naming its node, split work, reach
 * the session's resources.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/alloc.h"
#include "kernels/kernel.h"

int tfs_ki_error(tfs_kernel_init *ki, tfs_code code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *m = tfs_vasprintf(fmt, ap);
  va_end(ap);
  tfs_status_setf(ki->st, code, "%s\n\t [[{{node %s}}]]", m ? m : "",
                  ki->node_name);
  tfs_free(m);
  return -1;
}

/* After a core call failed into c->st: add the node suffix once. */
static void failed_in_st(tfs_kernel_ctx *c) {
  if (c->failed) return;
  c->failed = 1;
  tfs_status_appendf(c->st, "\n\t [[{{node %s}}]]", c->node_name);
}

tfs_tensor *tfs_kctx_alloc_output(tfs_kernel_ctx *c, int i,
                                  const tfs_shape *shape) {
  if (c->failed) return NULL;
  tfs_tensor *t = tfs_tensor__alloc(c->out_types[i], shape, c->st);
  if (!t) {
    failed_in_st(c);
    return NULL;
  }
  tfs_tensor_free(c->outputs[i]);
  c->outputs[i] = t;
  return t;
}

tfs_tensor *tfs_kctx_forward_or_alloc(tfs_kernel_ctx *c, int in, int i,
                                      const tfs_shape *shape) {
  tfs_tensor *t = c->inputs[in];
  if ((c->forwardable >> in & 1) && c->input_slots && c->input_slots[in] &&
      *c->input_slots[in] == t && t->dtype == c->out_types[i] &&
      tfs_tensor__is_exclusive(t) &&
      tfs_shape_num_elements(shape) == t->nelems) {
    /* Steal the executor's reference: the slot no longer holds it. */
    *c->input_slots[in] = NULL;
    c->forwardable &= ~(1ull << in);
    t->shape = *shape;
    tfs_tensor_free(c->outputs[i]);
    c->outputs[i] = t;
    return t;
  }
  return tfs_kctx_alloc_output(c, i, shape);
}

void tfs_kctx_set_output(tfs_kernel_ctx *c, int i, tfs_tensor *t) {
  tfs_tensor_free(c->outputs[i]);
  c->outputs[i] = t;
}

void tfs_kctx_fail(tfs_kernel_ctx *c, tfs_code code, const char *fmt, ...) {
  if (c->failed) return;
  va_list ap;
  va_start(ap, fmt);
  char *m = tfs_vasprintf(fmt, ap);
  va_end(ap);
  tfs_status_setf(c->st, code, "%s\n\t [[{{node %s}}]]", m ? m : "",
                  c->node_name);
  tfs_free(m);
  c->failed = 1;
}

void tfs_kctx_fail_status(tfs_kernel_ctx *c, const tfs_status *st) {
  if (st == c->st) {
    failed_in_st(c);
    return;
  }
  tfs_kctx_fail(c, tfs_status_code(st), "%s", tfs_status_message(st));
}

void tfs_kctx_parallel_for(tfs_kernel_ctx *c, int64_t n,
                           int64_t cost_per_unit, tfs_range_fn fn,
                           void *arg) {
  (void)c;
  (void)cost_per_unit;
  if (n > 0) fn(arg, 0, n);
}

tfs_resource_mgr *tfs_kctx_resources(tfs_kernel_ctx *c) {
  return c->run->resources;
}

tfs_variable *tfs_kctx_input_ref(tfs_kernel_ctx *c, int i) {
  return tfs_tensor__ref_target(c->inputs[i]);
}

void tfs_kctx_set_ref_output(tfs_kernel_ctx *c, int i, tfs_variable *v) {
  if (c->failed) return;
  tfs_tensor *t = tfs_tensor__ref_to(v, v->dtype, c->st);
  if (!t)
    failed_in_st(c);
  else
    tfs_kctx_set_output(c, i, t);
}

void tfs_kctx_log(tfs_kernel_ctx *c, const char *text) {
  if (c->run && c->run->log) {
    c->run->log(text);
    return;
  }
  fputs(text, stderr);
  fflush(stderr);
}
