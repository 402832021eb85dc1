/*
 * backends/cpu/logging.c - Assert, CheckNumerics, Print (TF1's legacy
 * print: message and the SummarizeValue of each data tensor on one line)
 * and NoOp.  Text goes through tfs_kctx_log (stderr unless the session
 * redirects it).
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/half.h"
#include "core/strbuf.h"
#include "core/util.h"
#include "backends/cpu/cpu_tables.h"

/* ---- Assert ------------------------------------------------------------ */

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

/* ---- CheckNumerics ------------------------------------------------------ */

enum { HAS_INF = 1, HAS_NAN = 2 };

typedef struct {
  const void *x;
  tfs_dtype dt;
  atomic_int flags;
} cn_job;

static void cn_range(void *arg, int64_t b, int64_t e) {
  cn_job *j = arg;
  int f = 0;
  for (int64_t i = b; i < e; i++) {
    double v;
    switch (j->dt) {
      case TFS_FLOAT: v = ((const float *)j->x)[i]; break;
      case TFS_DOUBLE: v = ((const double *)j->x)[i]; break;
      case TFS_HALF: v = tfs_half_to_float(((const uint16_t *)j->x)[i]); break;
      default: v = tfs_bf16_to_float(((const uint16_t *)j->x)[i]); break;
    }
    if (v != v)
      f |= HAS_NAN;
    else if (v - v != 0)
      f |= HAS_INF;
  }
  if (f) atomic_fetch_or(&j->flags, f);
}

static int cn_prepare(tfs_kernel_init *ki) {
  size_t len = 0;
  const char *m = tfs_attrs_get_string(ki->attrs, "message", &len);
  char *copy = tfs_strndup(m ? m : "", m ? len : 0);
  if (!copy) return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  ki->state = copy;
  return 0;
}

static void cn_compute(tfs_kernel_ctx *c) {
  const tfs_tensor *x = c->inputs[0];
  cn_job j = {x->data, x->dtype, 0};
  tfs_kctx_parallel_for(c, x->nelems, 1, cn_range, &j);
  int f = atomic_load(&j.flags);
  if (f) {
    const char *what = f == (HAS_INF | HAS_NAN) ? "Inf and NaN"
                       : f == HAS_INF           ? "Inf"
                                                : "NaN";
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "%s : Tensor had %s values",
                  (const char *)c->state, what);
    return;
  }
  tfs_kctx_set_output(c, 0, tfs_tensor_ref(c->inputs[0]));
}

/* ---- Print (legacy) ------------------------------------------------------ */

typedef struct {
  char *message;
  int64_t first_n, summarize;
  atomic_llong calls;
} print_state;

static int print_prepare(tfs_kernel_init *ki) {
  print_state *s = tfs_calloc(1, sizeof(*s));
  if (!s) return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  size_t len = 0;
  const char *m = tfs_attrs_get_string(ki->attrs, "message", &len);
  s->message = tfs_strndup(m ? m : "", m ? len : 0);
  s->first_n = -1;
  s->summarize = 3;
  tfs_attrs_get_int(ki->attrs, "first_n", &s->first_n);
  tfs_attrs_get_int(ki->attrs, "summarize", &s->summarize);
  atomic_init(&s->calls, 0);
  if (!s->message) {
    tfs_free(s);
    return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  }
  ki->state = s;
  return 0;
}

static void print_release(void *p) {
  print_state *s = p;
  if (!s) return;
  tfs_free(s->message);
  tfs_free(s);
}

static void print_compute(tfs_kernel_ctx *c) {
  print_state *s = c->state;
  tfs_kctx_set_output(c, 0, tfs_tensor_ref(c->inputs[0]));
  if (s->first_n >= 0 && atomic_fetch_add(&s->calls, 1) >= s->first_n)
    return;
  tfs_strbuf b = TFS_STRBUF_INIT;
  tfs_strbuf_puts(&b, s->message);
  for (int i = 1; i < c->ninputs; i++) {
    char *v = tfs_tensor__summarize(c->inputs[i], s->summarize);
    tfs_strbuf_printf(&b, "[%s]", v ? v : "");
    free(v);
  }
  tfs_strbuf_putc(&b, '\n');
  tfs_kctx_log(c, tfs_strbuf_str(&b));
  tfs_strbuf_free(&b);
}

static void noop_compute(tfs_kernel_ctx *c) { (void)c; }

const tfs_kernel_def tfs_cpu_kernels_logging[] = {
    {"Assert", "CPU", NULL, 0, assert_prepare, assert_compute, NULL, 0, NULL},
    {"CheckNumerics", "CPU", "T", TFS_DT_FLOATS, cn_prepare, cn_compute,
     free, 0, NULL},
    {"Print", "CPU", NULL, 0, print_prepare, print_compute, print_release, 0,
     NULL},
    {"NoOp", "CPU", NULL, 0, NULL, noop_compute, NULL, 0, NULL},
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL},
};
