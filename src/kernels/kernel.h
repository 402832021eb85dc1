/*
 * kernels/kernel.h - the kernel contract.
 *
 * A kernel computes one op on one device for some dtypes.  It is a
 * `prepare` run once per plan (parse attrs, check what can be checked
 * statically, pre-pack constant weights) and a `compute` run per step.
 * compute gets a context: its inputs (borrowed), outputs it allocates
 * through the context (so the executor can hand out planned memory or
 * forward an input buffer the kernel holds alone), a parallel_for over the
 * session's intra-op pool, the session's resources, and a way to fail with
 * an error that names the node.  Kernels never touch the graph, the
 * session or a global.
 */
#ifndef TFS_KERNELS_KERNEL_H
#define TFS_KERNELS_KERNEL_H

#include <stdatomic.h>

#include "core/attr_value.h"
#include "core/resource_mgr.h"
#include "core/status.h"
#include "core/tensor.h"
#include "core/threadpool.h"
#include "ops/op_def.h"

typedef struct tfs_kernel_init tfs_kernel_init;
typedef struct tfs_kernel_ctx tfs_kernel_ctx;

typedef int (*tfs_kernel_prepare_fn)(tfs_kernel_init *ki);
typedef void (*tfs_kernel_compute_fn)(tfs_kernel_ctx *ctx);
typedef void (*tfs_kernel_release_fn)(void *state);

enum {
  TFS_KERNEL_EXPENSIVE = 1u << 0, /* worth another inter-op thread */
  /* compute may wait for another run (a queue's dequeue): a plan with
   * such a kernel runs on its caller's thread only, so a waiting kernel
   * never holds an inter-op thread that other runs need. */
  TFS_KERNEL_BLOCKING = 1u << 1,
};

typedef struct tfs_kernel_def {
  const char *op;
  const char *device;        /* "CPU" */
  const char *type_attr;     /* attr whose dtype selects this kernel, or
                                NULL for any */
  uint64_t types;            /* TFS_DT_BIT set of dtypes; 0 = any */
  tfs_kernel_prepare_fn prepare; /* may be NULL */
  tfs_kernel_compute_fn compute;
  tfs_kernel_release_fn release; /* frees prepare's state; may be NULL */
  unsigned flags;
  const void *data;          /* static data handed to prepare (ki->kdata) */
} tfs_kernel_def;

#define TFS_DT_BIT(dt) (1ull << (unsigned)(dt))
#define TFS_DT_FLOATS                                                 \
  (TFS_DT_BIT(TFS_FLOAT) | TFS_DT_BIT(TFS_DOUBLE) |                   \
   TFS_DT_BIT(TFS_HALF) | TFS_DT_BIT(TFS_BFLOAT16))
#define TFS_DT_INTS                                                   \
  (TFS_DT_BIT(TFS_INT8) | TFS_DT_BIT(TFS_INT16) |                     \
   TFS_DT_BIT(TFS_INT32) | TFS_DT_BIT(TFS_INT64) |                    \
   TFS_DT_BIT(TFS_UINT8) | TFS_DT_BIT(TFS_UINT16) |                   \
   TFS_DT_BIT(TFS_UINT32) | TFS_DT_BIT(TFS_UINT64))
#define TFS_DT_REAL (TFS_DT_FLOATS | TFS_DT_INTS)

/* ---- prepare ------------------------------------------------------------ */

struct tfs_device;
struct tfs_kernel_init {
  /* The device the node was placed on (the CPU device in plans without
   * devices; NULL when the optimizer evaluates a CPU kernel to fold
   * constants): device kernels bind their state to it.  Kernels never
   * look a device up anywhere else. */
  struct tfs_device *device;
  const char *node_name;
  const tfs_op_def *op;
  const tfs_attrs *attrs;
  int ninputs;
  const tfs_dtype *in_types;         /* base dtypes seen by the kernel */
  const tfs_shape *in_shapes;        /* inferred partial shapes */
  const tfs_tensor *const *in_consts;/* constant inputs, else NULL */
  /* The producer of each input, for messages: its node's name and output
   * index.  NULL where no graph stands behind the kernel (the optimizer
   * folding constants); tfs_ki_input_str falls back to the node. */
  const char *const *in_src_nodes;
  const int *in_src_ports;
  int noutputs;
  const tfs_dtype *out_types;
  const tfs_shape *out_shapes;
  const void *kdata;                 /* tfs_kernel_def.data */
  void *state;                       /* set by prepare */
  tfs_status *st;
};

/* Fails prepare with `code` and a message; adds the node context. */
int tfs_ki_error(tfs_kernel_init *ki, tfs_code code, const char *fmt, ...)
    TFS_PRINTF(3, 4);

/* Input i as a NodeDef names it ("node" for output 0, else "node:k")
 * into buf (cap >= 1), for TensorFlow's messages that quote def().input(i);
 * the node's own name when the producer is not known.  Returns buf. */
const char *tfs_ki_input_str(const tfs_kernel_init *ki, int i, char *buf,
                             size_t cap);

/* ---- compute ---------------------------------------------------------- */

/* The session's resource limits as kernels see them (0: no limit),
 * checked by tfs_kctx_alloc_output and tfs_kctx_scratch before they
 * allocate; RESOURCE_EXHAUSTED naming the node and the size. */
/* How kernels call library functions (PartitionedCall, If, While, ...):
 * call() runs function f (name and attrs) on inputs[0..nin) and sets
 * outputs[0..nout) to new references, or fails with an error in st.
 * Provided by the session; thread-safe. */
typedef struct tfs_fn_runtime {
  void *ctx;
  int (*call)(void *ctx, const tfs_func_attr *f, tfs_tensor *const *inputs,
              int nin, tfs_tensor **outputs, int nout, tfs_status *st);
  /* For a loop that calls the same functions many times: f's instance,
   * looked up once (NULL with st set on failure), valid until the run
   * that resolved it ends; call_resolved runs it as call runs f, and
   * with `take` takes the references in inputs (entries set to NULL)
   * once they are valid, so that a value the call then holds alone can
   * be changed in place (entries not taken stay the caller's). */
  void *(*resolve)(void *ctx, const tfs_func_attr *f, tfs_status *st);
  int (*call_resolved)(void *ctx, void *fn, tfs_tensor **inputs, int nin,
                       tfs_tensor **outputs, int nout, int take,
                       tfs_status *st);
  /* resolve, with the values of some arguments known for every call
   * (values[i], i < nvalues, NULL: not known; fixed-size dtypes): an
   * argument the body returns as is at the same position becomes a
   * constant of the body (a While's loop invariant: its weights are then
   * constants to the kernels, packed once), and its input is ignored by
   * call_resolved (left to the caller, not taken).  Valid as long as
   * the session; NULL with st set on failure.  May be NULL. */
  void *(*resolve_consts)(void *ctx, const tfs_func_attr *f,
                          const tfs_tensor *const *values, int nvalues,
                          tfs_status *st);
} tfs_fn_runtime;

typedef struct tfs_run_limits {
  int64_t tensor_bytes; /* one output tensor or scratch request */
  int64_t op_elements;  /* elements of one output */
  int64_t run_bytes;    /* outputs and scratch of one run, together */
} tfs_run_limits;

/* What a step offers kernels: the session's resources, the intra-op
 * pool, cancellation.  Filled by the executor. */
struct tfs_threadpool;
typedef struct tfs_run {
  tfs_resource_mgr *resources;
  struct tfs_threadpool *intra_pool; /* NULL: run inline */
  void (*log)(const char *text);     /* NULL: stderr */
  int64_t step_id;
  /* The executor's allocator for outputs (memory planning): returns a
   * tensor for output i of the node of `c`, or NULL to let the kernel
   * context allocate on the heap.  NULL: always the heap. */
  tfs_tensor *(*alloc)(struct tfs_run *run, struct tfs_kernel_ctx *c,
                       int i, const tfs_shape *shape);
  void *exec;                        /* the executor's per-run state */
  const tfs_run_limits *limits;      /* NULL: none */
  const tfs_fn_runtime *fnrt;        /* NULL: no function calls */
  /* 0, or -1 with CANCELLED / DEADLINE_EXCEEDED in st when the run must
   * stop (long-running kernels such as While ask between steps); NULL:
   * never. */
  int (*check_abort)(struct tfs_run *run, tfs_status *st);
  /* The run's deadline on the monotonic clock (tfs_now_ns), 0: none;
   * blocking kernels wait no longer. */
  int64_t deadline_ns;
  _Atomic int64_t bytes_used;        /* counted when limits->run_bytes */
  /* The step's container (TensorArrays): NULL until a kernel first needs
   * it (tfs_step_container_get); the executor frees it when the run
   * ends. */
  tfs_step_container *_Atomic step;
} tfs_run;

struct tfs_kernel_ctx {
  const char *node_name;
  const char *op_name;
  void *state;
  int ninputs;
  tfs_tensor **inputs;          /* borrowed for the call */
  tfs_tensor ***input_slots;    /* where input i lives (NULL: not stealable)*/
  uint64_t forwardable;         /* bit i: input i may be reused in place */
  int noutputs;
  tfs_tensor **outputs;         /* set by the kernel; the executor takes them */
  const tfs_dtype *out_types;
  struct tfs_run *run;
  tfs_status *st;
  int failed;
  int node;                     /* executor's node index (for run->alloc) */
  int alloc_cursor;             /* executor-private, 0 at compute start */
  int scratch_used;             /* 0 at compute start */
};

static inline const tfs_tensor *tfs_kctx_input(const tfs_kernel_ctx *c,
                                               int i) {
  return c->inputs[i];
}

/* Checks output i of `shape` against the run's limits (elements per op,
 * bytes per tensor, and charges its bytes to the run's budget) as
 * tfs_kctx_alloc_output does, for kernels that allocate their outputs
 * elsewhere (device memory).  0, or -1 after recording the error. */
int tfs_kctx_check_output(tfs_kernel_ctx *c, int i, const tfs_shape *shape);

/* Allocates output i with `shape` (dtype from the node).  NULL after
 * recording an error. */
tfs_tensor *tfs_kctx_alloc_output(tfs_kernel_ctx *c, int i,
                                  const tfs_shape *shape);

/* Output i reusing input `in`'s buffer when the kernel holds it alone and
 * dtype and size match (the shape may differ); else a fresh allocation. */
tfs_tensor *tfs_kctx_forward_or_alloc(tfs_kernel_ctx *c, int in, int i,
                                      const tfs_shape *shape);

/* Input `in` with the executor's reference, when the kernel may keep it
 * past the run (a variable's new value): the kernel's read is the slot's
 * last, nothing else holds the tensor or its buffer, and the buffer is
 * tfsess's own heap memory (not an arena slot, not the caller's).  The
 * slot no longer holds it; the caller owns the reference.  Else NULL
 * (copy the input instead). */
tfs_tensor *tfs_kctx_take_input(tfs_kernel_ctx *c, int in);

/* Sets output i to `t`, taking ownership. */
void tfs_kctx_set_output(tfs_kernel_ctx *c, int i, tfs_tensor *t);

/* Records an error with TensorFlow's node suffix ("\n\t [[{{node X}}]]").
 * Only the first error of a call counts. */
void tfs_kctx_fail(tfs_kernel_ctx *c, tfs_code code, const char *fmt, ...)
    TFS_PRINTF(3, 4);
/* Same, for an error already in `st`. */
void tfs_kctx_fail_status(tfs_kernel_ctx *c, const tfs_status *st);

/* Runs fn over [0, n) in chunks on the intra-op pool when the total cost
 * (n * cost_per_unit, in rough nanoseconds of one core) makes it
 * worthwhile (each thread gets >= TFS_PARALLEL_MIN_NS, 10 us, of work);
 * else inline on this thread with no synchronisation.  Returns when every
 * chunk is done.  fn must accept any split of [0, n) into contiguous
 * ranges and may run on several threads at once; it must not call back
 * into the context (no allocation, no fail: record errors in `arg`).
 * Cost guide: ~1 per float add/mul, ~4-20 for exp/log/tanh, 2*k per
 * output of a k-deep dot product divided by 32 (tfs_gemm_cost_ns). */
void tfs_kctx_parallel_for(tfs_kernel_ctx *c, int64_t n,
                           int64_t cost_per_unit, tfs_range_fn fn,
                           void *arg);

/* The session's intra-op pool (for tfs_gemm_f32 and friends); may be
 * NULL (single-threaded). */
struct tfs_threadpool *tfs_kctx_intra_pool(tfs_kernel_ctx *c);

/* `bytes` of 64-byte aligned scratch memory private to this compute call
 * (im2col buffers, row temporaries): valid until compute returns, never
 * freed by the kernel.  Several calls return distinct memory.  Steady
 * state reuses a per-thread arena, so it does not call malloc.  NULL
 * after recording RESOURCE_EXHAUSTED. */
void *tfs_kctx_scratch(tfs_kernel_ctx *c, size_t bytes);

/* A buffer of at least `bytes` bytes (64-byte aligned) of the calling
 * thread, kept for its next call with the same slot (0 to
 * TFS_KCTX_TASK_SLOTS - 1): the per-task tiles of parallel_for bodies,
 * which would otherwise go to the allocator every call (and, above its
 * mmap threshold, cost a page fault for every 4 KiB of them: a lone
 * MobileNet block ran at half speed).  Valid until this thread asks for
 * the slot again or exits, so a body holding it must not run, on this
 * thread, another body that asks for the same slot.  Filled with 0xff
 * bytes under tfs_kctx__poison_scratch.  NULL when memory runs out (the
 * caller reports it). */
#define TFS_KCTX_TASK_SLOTS 2
void *tfs_kctx_task_buf(int slot, size_t bytes);

/* Test hook: with on != 0, every later tfs_kctx_scratch fills its memory
 * (and tfs_kctx_task_buf) with 0xff bytes (float and double NaN) before
 * returning it, so a kernel
 * that reads scratch it did not write gives NaNs rather than what an
 * earlier call left there.  Returns the previous setting.  Thread-safe
 * (an atomic flag); off by default. */
int tfs_kctx__poison_scratch(int on);

/* The session's resources (variables). */
tfs_resource_mgr *tfs_kctx_resources(tfs_kernel_ctx *c);

/* The resource handle input i holds when it is a scalar DT_RESOURCE
 * tensor (borrowed, valid during the call), else NULL: the caller fails
 * with its own message. */
const tfs_resource_handle *tfs_kctx_input_handle(const tfs_kernel_ctx *c,
                                                 int i);

/* The variable a ref input points to (TF1 VariableV2 edges), or NULL. */
tfs_variable *tfs_kctx_input_ref(tfs_kernel_ctx *c, int i);

/* A ref output pointing at variable v. */
void tfs_kctx_set_ref_output(tfs_kernel_ctx *c, int i, tfs_variable *v);

/* Where Print/Assert-style kernels write (stderr unless redirected). */
void tfs_kctx_log(tfs_kernel_ctx *c, const char *text);

/* ---- registry ----------------------------------------------------------- */

/* The kernel for (op, device, dtype of its type_attr in attrs), or NULL
 * with TensorFlow's "No OpKernel was registered to support Op ..." error
 * naming `node_name`. */
const tfs_kernel_def *tfs_kernel_find(const tfs_op_def *op,
                                      const char *device,
                                      const tfs_attrs *attrs,
                                      const char *node_name,
                                      tfs_status *st);

/* The kernel tables of the backends this build has: for each backend a
 * NULL-terminated list of tables, each table ending with an entry whose
 * op is NULL; the outer list ends with NULL.  Defined by
 * src/backends/backends.c, the one list of backends: the registry reads
 * it by this symbol, so the kernel layer includes no backend. */
extern const tfs_kernel_def *const *const tfs_backend_kernel_lists[];

/* Every registered kernel (for `tfsess ops`). */
const tfs_kernel_def *const *tfs_kernel_all(int *n);

/* How many kernels the device tables declare.  Every declared kernel must
 * be registered (tfs_kernel_all's count): a kernel of an op the registry
 * does not have is a bug in tfsess, logged as an error when the registry
 * is built and caught by tests/ops/test_registry. */
int tfs_kernel_registry_declared(void);

#endif
