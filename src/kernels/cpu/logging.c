/*
 * kernels/cpu/logging.c - Assert and NoOp.
 */
#include <stdlib.h>

#include "core/alloc.h"
#include "core/strbuf.h"
#include "kernels/cpu/cpu_tables.h"

static int assert_prepare(tfs_kernel_init *ki) {
  int64_t summarize = 3;
  tfs_attrs_get_int(ki->attrs, "summarize", &summarize);
  ki->state = (void *)(intptr_t)summarize;
  return 0;
}

static void assert_compute(tfs_kernel_ctx *c) {
  const tfs_tensor *cond = c->inputs[0];
  char buf[TFS_SHAPE_STRLEN];
  if (cond->nelems != 1 || cond->shape.rank > 1) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "In[0] should be a scalar: %s",
                  tfs_shape_str(&cond->shape, buf, sizeof buf));
    return;
  }
  if (*(const uint8_t *)cond->data) return;
  int64_t summarize = (int64_t)(intptr_t)c->state;
  tfs_strbuf b = TFS_STRBUF_INIT;
  tfs_strbuf_puts(&b, "assertion failed: ");
  for (int i = 1; i < c->ninputs; i++) {
    char *v = tfs_tensor__summarize(c->inputs[i], summarize);
    tfs_strbuf_printf(&b, "[%s]", v ? v : "");
    free(v);
    if (i < c->ninputs - 1) tfs_strbuf_putc(&b, ' ');
  }
  tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "%s", tfs_strbuf_str(&b));
  tfs_strbuf_free(&b);
}

static void noop_compute(tfs_kernel_ctx *c) { (void)c; }

const tfs_kernel_def tfs_cpu_kernels_logging[] = {
    {"Assert", "CPU", NULL, 0, assert_prepare, assert_compute, NULL, 0, NULL},
    {"NoOp", "CPU", NULL, 0, NULL, noop_compute, NULL, 0, NULL},
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL},
};
