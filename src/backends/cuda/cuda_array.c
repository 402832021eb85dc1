/*
 * backends/cuda/cuda_array.c - the GPU's array kernels that move no data:
 * Const (its value copied to the device once, when the plan is prepared),
 * Identity and friends (the input itself), and the shape-only kernels
 * (Reshape, Squeeze, ExpandDims make views; Shape, ShapeN, Size, Rank
 * write host memory), which run the CPU kernels' code: that code reads
 * shapes, never device data.
 */
#include <stdlib.h>

#include "core/status.h"
#include "backends/cuda/cuda_kernels.h"

/* ---- Const ------------------------------------------------------------------ */

typedef struct const_state {
  tfs_cu_state base;
  tfs_tensor *value; /* in device memory */
} const_state;

static int const_prepare(tfs_kernel_init *ki) {
  if (tfs_cu__prepare_sized(ki, sizeof(const_state))) return -1;
  const_state *s = ki->state;
  const tfs_tensor *v = tfs_attrs_get_tensor(ki->attrs, "value");
  if (!v) return tfs_ki_error(ki, TFS_INVALID_ARGUMENT, "Const has no value");
  s->value = tfs_device__copy_tensor((tfs_tensor *)v, &s->base.dev->base,
                                     ki->st);
  if (!s->value) {
    tfs_status_appendf(ki->st, "\n\t [[{{node %s}}]]", ki->node_name);
    return -1;
  }
  return 0;
}

static void const_release(void *state) {
  const_state *s = state;
  if (s) tfs_tensor_free(s->value);
  free(s);
}

static void const_compute(tfs_kernel_ctx *c) {
  const_state *s = c->state;
  tfs_kctx_set_output(c, 0, tfs_tensor_ref(s->value));
}

/* ---- pass-through ------------------------------------------------------------- */

static void pass_through(tfs_kernel_ctx *c) {
  tfs_kctx_set_output(c, 0, tfs_tensor_ref(c->inputs[0]));
}

/* ---- the CPU kernels' shape-only code ------------------------------------------ */

typedef struct proxy_state {
  tfs_cu_state base;
  const tfs_kernel_def *cpu;
  void *cpu_state;
} proxy_state;

static int proxy_prepare(tfs_kernel_init *ki) {
  if (tfs_cu__prepare_sized(ki, sizeof(proxy_state))) return -1;
  proxy_state *s = ki->state;
  s->cpu = tfs_kernel_find(ki->op, "CPU", ki->attrs, ki->node_name, ki->st);
  if (!s->cpu) return -1;
  if (!s->cpu->prepare) return 0;
  ki->state = NULL;
  ki->kdata = s->cpu->data;
  int rc = s->cpu->prepare(ki);
  s->cpu_state = ki->state;
  ki->state = s;
  return rc;
}

static void proxy_release(void *state) {
  proxy_state *s = state;
  if (s && s->cpu && s->cpu->release && s->cpu_state)
    s->cpu->release(s->cpu_state);
  free(s);
}

static void proxy_compute(tfs_kernel_ctx *c) {
  proxy_state *s = c->state;
  c->state = s->cpu_state;
  s->cpu->compute(c);
  c->state = s;
}

static const tfs_cu_kdata kNone = {0, NULL};

#define PASS(OP)                                                          \
  {OP, "GPU", NULL, 0, NULL, pass_through, NULL, 0, &kNone}
#define PROXY(OP)                                                         \
  {OP, "GPU", NULL, 0, proxy_prepare, proxy_compute, proxy_release, 0,   \
   &kNone}

const tfs_kernel_def tfs_cuda_kernels_array[] = {
    {"Const", "GPU", "dtype", TFS_CU_DT_FLOATS, const_prepare, const_compute,
     const_release, 0, &kNone},
    PASS("Identity"),
    PASS("StopGradient"),
    PASS("PreventGradient"),
    PROXY("Reshape"),
    PROXY("Squeeze"),
    PROXY("ExpandDims"),
    PROXY("Shape"),
    PROXY("ShapeN"),
    PROXY("Size"),
    PROXY("Rank"),
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL},
};
