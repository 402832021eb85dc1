/*
 * compat_eager/function.c - traced functions: call signatures, the cache
 * of concrete functions, tracing a body into a graph, input signatures,
 * reduce_retracing, the retracing warning, and running a concrete function
 * as a plan on a session that shares the eager context's variables.
 */
#include <stdlib.h>
#include <string.h>

#include "compat_eager/eager_internal.h"
#include "core/alloc.h"
#include "core/log.h"
#include "core/status.h"
#include "tfsess/graphdef.h"

typedef struct concrete {
  int ninputs;
  tfs_dtype *dtypes;
  tfs_shape *shapes;        /* partial: the traced signature */
  tfs_ctx *trace;           /* owns the function graph and captures */
  tfs_session *session;     /* shares the eager context's variables */
  tfs_plan *plan;
  int noutputs;
  int nfeeds;               /* inputs + captures */
} concrete;

struct tfs_function {
  tfs_ctx *ctx;
  tfs_function_body body;
  void *user;
  char *name;
  int reduce_retracing;
  int has_signature;
  int nsig;
  tfs_dtype *sig_dtypes;
  tfs_shape *sig_shapes;
  pthread_mutex_t mu;       /* guards the fields below */
  concrete **concretes;
  int nconcrete, cap;
  int traces;
  uint8_t recent[5];        /* 1: the call traced; a ring of the last 5 */
  int ncalls;
  int warned;
};

static void concrete_free(concrete *cf) {
  if (!cf) return;
  tfs_plan__unref(cf->plan);
  tfs_session_free(cf->session);
  tfs_ctx_free(cf->trace);
  tfs_free(cf->dtypes);
  tfs_free(cf->shapes);
  tfs_free(cf);
}

tfs_function *tfs_function_new(tfs_ctx *c, tfs_function_body body, void *user,
                               const tfs_function_options *opts,
                               tfs_status *st) {
  TFS_CHECK_ARG(c != NULL && c->kind == TFS_CTX_EAGER && body != NULL, st,
                NULL);
  tfs_function *f = tfs_calloc(1, sizeof(*f));
  if (!f) {
    TFS_OOM(st);
    return NULL;
  }
  f->ctx = c;
  f->body = body;
  f->user = user;
  f->name = tfs_strdup(opts && opts->name ? opts->name : "function");
  pthread_mutex_init(&f->mu, NULL);
  if (opts) f->reduce_retracing = opts->reduce_retracing != 0;
  if (opts && opts->input_signature) {
    int n = opts->num_inputs_in_signature;
    f->has_signature = 1;
    f->nsig = n;
    f->sig_dtypes = tfs_calloc((size_t)n + 1, sizeof(tfs_dtype));
    f->sig_shapes = tfs_calloc((size_t)n + 1, sizeof(tfs_shape));
    if (!f->sig_dtypes || !f->sig_shapes) goto oom;
    for (int i = 0; i < n; i++) {
      const tfs_tensor_spec *sp = &opts->input_signature[i];
      f->sig_dtypes[i] = sp->dtype;
      if (tfs_shape_set(&f->sig_shapes[i], sp->dims, sp->ndims, st)) {
        tfs_function_free(f);
        return NULL;
      }
    }
  }
  if (!f->name) goto oom;
  tfs_status_clear(st);
  return f;
oom:
  tfs_function_free(f);
  TFS_OOM(st);
  return NULL;
}

void tfs_function_free(tfs_function *f) {
  if (!f) return;
  for (int i = 0; i < f->nconcrete; i++) concrete_free(f->concretes[i]);
  tfs_free(f->concretes);
  tfs_free(f->sig_dtypes);
  tfs_free(f->sig_shapes);
  tfs_free(f->name);
  pthread_mutex_destroy(&f->mu);
  tfs_free(f);
}

int tfs_function_trace_count(const tfs_function *f) {
  return f ? f->traces : 0;
}

int tfs_function_num_concrete(const tfs_function *f) {
  return f ? f->nconcrete : 0;
}

/* ---- signatures ---------------------------------------------------------- */

static int fits(const concrete *cf, tfs_tensor *const *ins, int n) {
  if (cf->ninputs != n) return 0;
  for (int i = 0; i < n; i++)
    if (cf->dtypes[i] != ins[i]->dtype ||
        !tfs_shape_is_compatible(&cf->shapes[i], &ins[i]->shape))
      return 0;
  return 1;
}

static void spec_text(char *buf, size_t cap, tfs_dtype dt,
                      const tfs_shape *s) {
  char sh[TFS_SHAPE_STRLEN];
  snprintf(buf, cap, "TensorSpec(shape=%s, dtype=%s)",
           tfs_shape_str(s, sh, sizeof sh), tfs_dtype_name(dt));
}

static int check_signature(const tfs_function *f, tfs_tensor *const *ins,
                           int n, tfs_status *st) {
  if (n != f->nsig) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "Function '%s' was called with %d inputs but its "
                    "input_signature has %d", f->name, n, f->nsig);
    return -1;
  }
  for (int i = 0; i < n; i++) {
    if (ins[i]->dtype == f->sig_dtypes[i] &&
        tfs_shape_is_compatible(&f->sig_shapes[i], &ins[i]->shape))
      continue;
    char want[TFS_SHAPE_STRLEN + 64], got[TFS_SHAPE_STRLEN + 64];
    spec_text(want, sizeof want, f->sig_dtypes[i], &f->sig_shapes[i]);
    spec_text(got, sizeof got, ins[i]->dtype, &ins[i]->shape);
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "Inputs to function '%s' are incompatible with its "
                    "input_signature: input %d is %s, expected %s", f->name,
                    i, got, want);
    return -1;
  }
  return 0;
}

/* The signature to trace for this call. */
static void trace_signature(const tfs_function *f, tfs_tensor *const *ins,
                            int n, tfs_dtype *dts, tfs_shape *shapes) {
  for (int i = 0; i < n; i++) {
    dts[i] = ins[i]->dtype;
    shapes[i] = f->has_signature ? f->sig_shapes[i] : ins[i]->shape;
  }
  if (!f->reduce_retracing || f->has_signature) return;
  /* widen the dims that differ from a trace with the same dtypes/ranks */
  for (int c = 0; c < f->nconcrete; c++) {
    const concrete *cf = f->concretes[c];
    int same = cf->ninputs == n;
    for (int i = 0; same && i < n; i++)
      same = cf->dtypes[i] == dts[i] && cf->shapes[i].rank == shapes[i].rank;
    if (!same) continue;
    for (int i = 0; i < n; i++)
      for (int d = 0; d < shapes[i].rank; d++)
        if (cf->shapes[i].dims[d] != shapes[i].dims[d]) shapes[i].dims[d] = -1;
    return;
  }
}

/* ---- tracing --------------------------------------------------------------- */

static concrete *trace(tfs_function *f, const tfs_dtype *dts,
                       const tfs_shape *shapes, int n, tfs_status *st) {
  concrete *cf = tfs_calloc(1, sizeof(*cf));
  tfs_value **ins = tfs_calloc((size_t)n + 1, sizeof(void *));
  tfs_value *outs[64];
  tfs_output *feeds = NULL, *fetches = NULL;
  int nout = 0;
  if (!cf || !ins) goto oom;
  cf->ninputs = n;
  cf->dtypes = tfs_malloc(sizeof(tfs_dtype) * (size_t)(n + 1));
  cf->shapes = tfs_malloc(sizeof(tfs_shape) * (size_t)(n + 1));
  if (!cf->dtypes || !cf->shapes) goto oom;
  cf->trace = tfs_trace__ctx_new(f->ctx, st);
  if (!cf->trace) goto fail;
  tfs_ctx *tc = cf->trace;
  for (int i = 0; i < n; i++) {
    char name[32];
    cf->dtypes[i] = dts[i];
    cf->shapes[i] = shapes[i];
    snprintf(name, sizeof name, "args_%d", i);
    tfs_output p = tfs_op_placeholder(tc->graph, name, dts[i], shapes[i].dims,
                                      shapes[i].rank, st);
    if (!p.oper || !(ins[i] = tfs_eager__symbolic(tc, p, st))) goto fail;
  }
  if (f->body(tc, ins, n, outs, 64, &nout, f->user, st) != 0) {
    if (tfs_status_ok(st))
      tfs_status_setf(st, TFS_UNKNOWN, "the body of function '%s' failed",
                      f->name);
    goto fail;
  }
  if (!tfs_status_ok(st)) goto fail;
  cf->noutputs = nout;
  fetches = tfs_calloc((size_t)nout + 1, sizeof(tfs_output));
  if (!fetches) goto oom;
  for (int i = 0; i < nout; i++) {
    tfs_output src = outs[i] ? tfs_trace__input(tc, outs[i], st)
                             : (tfs_output){NULL, -1};
    if (!src.oper) {
      if (tfs_status_ok(st))
        tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                        "output %d of function '%s' is NULL", i, f->name);
      goto fail;
    }
    char name[32];
    snprintf(name, sizeof name, i ? "Identity_%d" : "Identity", i);
    fetches[i] = tfs_op_identity(tc->graph, name, src, st);
    if (!fetches[i].oper) goto fail;
  }
  int ncap = tc->trace->ncaptures;
  cf->nfeeds = n + ncap;
  feeds = tfs_calloc((size_t)cf->nfeeds + 1, sizeof(tfs_output));
  if (!feeds) goto oom;
  for (int i = 0; i < n; i++) feeds[i] = ins[i]->out;
  for (int i = 0; i < ncap; i++) feeds[n + i] = tc->trace->capture_outputs[i];
  cf->session = tfs_eager__shared_session(tc->graph, f->ctx->session, st);
  if (!cf->session) goto fail;
  tfs_operation *last = tc->trace->last_stateful;
  pthread_mutex_lock(&tc->graph->mu);
  cf->plan = tfs_plan__build(cf->session, feeds, cf->nfeeds, fetches, nout,
                             &last, last ? 1 : 0, st);
  pthread_mutex_unlock(&tc->graph->mu);
  if (!cf->plan) goto fail;
  tfs_free(ins);
  tfs_free(feeds);
  tfs_free(fetches);
  return cf;
oom:
  TFS_OOM(st);
fail:
  tfs_free(ins);
  tfs_free(feeds);
  tfs_free(fetches);
  concrete_free(cf);
  return NULL;
}

static void note_call(tfs_function *f, int traced) {
  f->recent[f->ncalls % 5] = (uint8_t)traced;
  f->ncalls++;
  if (f->warned || f->ncalls < 5) return;
  int sum = 0;
  for (int i = 0; i < 5; i++) sum += f->recent[i];
  if (sum < 5) return;
  f->warned = 1;
  tfs_log(TFS_LOG_WARN,
          "5 out of the last 5 calls to function '%s' triggered retracing. "
          "Tracing is expensive and the excessive number of tracings could "
          "be due to passing tensors with different shapes or dtypes. Give "
          "the function an input signature with unknown (-1) dimensions, "
          "or set reduce_retracing, to avoid unnecessary retracing.",
          f->name);
}

/* The concrete function for this call, traced if needed. */
static concrete *lookup(tfs_function *f, tfs_tensor *const *ins, int n,
                        tfs_status *st) {
  if (f->has_signature && check_signature(f, ins, n, st)) return NULL;
  pthread_mutex_lock(&f->mu);
  concrete *cf = NULL;
  for (int i = f->nconcrete - 1; i >= 0 && !cf; i--)
    if (fits(f->concretes[i], ins, n)) cf = f->concretes[i];
  int traced = 0;
  if (!cf) {
    tfs_dtype *dts = tfs_malloc(sizeof(tfs_dtype) * (size_t)(n + 1));
    tfs_shape *shapes = tfs_malloc(sizeof(tfs_shape) * (size_t)(n + 1));
    if (dts && shapes) {
      trace_signature(f, ins, n, dts, shapes);
      f->traces++;
      traced = 1;
      cf = trace(f, dts, shapes, n, st);
    } else {
      TFS_OOM(st);
    }
    tfs_free(dts);
    tfs_free(shapes);
    size_t cap = (size_t)f->cap;
    if (cf && tfs_grow((void **)&f->concretes, &cap, (size_t)f->nconcrete + 1,
                       sizeof(void *))) {
      concrete_free(cf);
      cf = NULL;
      TFS_OOM(st);
    }
    if (cf) {
      f->cap = (int)cap;
      f->concretes[f->nconcrete++] = cf;
    }
  }
  note_call(f, traced);
  pthread_mutex_unlock(&f->mu);
  return cf;
}

/* Arrays of up to CALL_STACK tensors live on the stack of a call. */
#define CALL_STACK 16

static tfs_tensor **call_array(tfs_tensor **stack, int n) {
  return n <= CALL_STACK ? stack
                         : tfs_calloc((size_t)n + 1, sizeof(tfs_tensor *));
}

int tfs_function_call(tfs_function *f, tfs_value *const *inputs, int ninputs,
                      tfs_value **outputs, int max_outputs, tfs_status *st) {
  TFS_CHECK_ARG(f != NULL && ninputs >= 0, st, -1);
  TFS_CHECK_ARG(ninputs == 0 || inputs != NULL, st, -1);
  tfs_tensor *ins_stack[CALL_STACK], *feed_stack[CALL_STACK],
      *out_stack[CALL_STACK];
  tfs_tensor **ins = call_array(ins_stack, ninputs);
  if (!ins) {
    TFS_OOM(st);
    return -1;
  }
  for (int i = 0; i < ninputs; i++) {
    if (!inputs[i] || !inputs[i]->tensor) {
      tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                      "input %d of function '%s' is not an eager value", i,
                      f->name);
      if (ins != ins_stack) tfs_free(ins);
      return -1;
    }
    ins[i] = inputs[i]->tensor;
  }
  concrete *cf = lookup(f, ins, ninputs, st);
  if (ins != ins_stack) tfs_free(ins);
  if (!cf) return -1;
  if (cf->noutputs > max_outputs) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "function '%s' returns %d values but room for only %d "
                    "was given", f->name, cf->noutputs, max_outputs);
    return -1;
  }
  tfs_tensor **feeds = call_array(feed_stack, cf->nfeeds);
  tfs_tensor **outs = call_array(out_stack, cf->noutputs);
  int rc = -1;
  if (!feeds || !outs) {
    TFS_OOM(st);
    goto done;
  }
  for (int i = 0; i < cf->noutputs; i++) outs[i] = NULL;
  for (int i = 0; i < ninputs; i++) feeds[i] = inputs[i]->tensor;
  for (int i = 0; i < cf->trace->trace->ncaptures; i++)
    feeds[ninputs + i] = cf->trace->trace->capture_values[i];
  tfs_eager__run_plan(cf->session, cf->plan, feeds, outs, st);
  if (!tfs_status_ok(st)) goto done;
  int made = 0;
  for (; made < cf->noutputs; made++) {
    outputs[made] = tfs_eager__value(f->ctx, outs[made], st);
    if (!outputs[made]) break;
  }
  if (made < cf->noutputs) {
    for (int i = 0; i < made; i++) tfs_value_free(outputs[i]);
    goto done;
  }
  rc = cf->noutputs;
done:
  for (int i = 0; outs && i < cf->noutputs; i++) tfs_tensor_free(outs[i]);
  if (feeds != feed_stack) tfs_free(feeds);
  if (outs != out_stack) tfs_free(outs);
  return rc;
}

void tfs_function_concrete_graphdef(const tfs_function *f, int i,
                                    tfs_buffer *out, tfs_status *st) {
  TFS_CHECK_ARG(f != NULL && out != NULL, st, );
  if (i < 0 || i >= f->nconcrete) {
    tfs_status_setf(st, TFS_OUT_OF_RANGE,
                    "function '%s' has %d concrete functions; %d asked for",
                    f->name, f->nconcrete, i);
    return;
  }
  tfs_graph_to_graphdef(f->concretes[i]->trace->graph, out, st);
}
