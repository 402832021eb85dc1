/*
 * compat_c_api/eager_ctx.c - TFE_ContextOptions, TFE_Context (a tfsess
 * eager context), TFE_TensorHandle (a tfsess eager value, independent of
 * any context), device lists and run metadata of the eager API.
 */
#include <string.h>

#include "compat_c_api/capi_internal.h"
#include "config_proto/pb_util.h"
#include "compat_c_api/legacy_string.h"
#include "session/session_internal.h"

/* ---- context options ----------------------------------------------------- */

TFE_ContextOptions *TFE_NewContextOptions(void) {
  TFE_ContextOptions *o = tfs_calloc(1, sizeof(*o));
  if (!o) return NULL;
  o->opts = tfs_session_options_new();
  if (!o->opts) {
    tfs_free(o);
    return NULL;
  }
  o->policy = TFE_DEVICE_PLACEMENT_SILENT;
  return o;
}

void TFE_ContextOptionsSetConfig(TFE_ContextOptions *options,
                                 const void *proto, size_t proto_len,
                                 TF_Status *status) {
  tfs_session_options_set_config(options->opts, proto, proto_len,
                                 ST(status));
}

void TFE_ContextOptionsSetAsync(TFE_ContextOptions *options,
                                unsigned char enable) {
  options->async = enable != 0;
}

void TFE_ContextOptionsSetDevicePlacementPolicy(
    TFE_ContextOptions *options, TFE_ContextDevicePlacementPolicy policy) {
  options->policy = policy;
}

void TFE_DeleteContextOptions(TFE_ContextOptions *options) {
  if (!options) return;
  tfs_session_options_free(options->opts);
  tfs_free(options);
}

/* ---- contexts ------------------------------------------------------------ */

TFE_Context *TFE_NewContext(const TFE_ContextOptions *opts,
                            TF_Status *status) {
  tfs_status *st = ST(status);
  TFE_Context *c = tfs_calloc(1, sizeof(*c));
  if (!c) {
    TFS_OOM(st);
    return NULL;
  }
  /* The context keeps its own copy: callers delete their options at once. */
  c->opts = tfs_session_options_new();
  if (!c->opts ||
      (opts && tfs_config__copy(&c->opts->config, &opts->opts->config))) {
    tfs_session_options_free(c->opts);
    tfs_free(c);
    TFS_OOM(st);
    return NULL;
  }
  c->policy = opts ? opts->policy : TFE_DEVICE_PLACEMENT_SILENT;
  c->ctx = tfs_eager_ctx_new(c->opts, st);
  if (!c->ctx) {
    tfs_session_options_free(c->opts);
    tfs_free(c);
    return NULL;
  }
  return c;
}

void TFE_DeleteContext(TFE_Context *ctx) {
  if (!ctx) return;
  tfs_ctx_free(ctx->ctx);
  tfs_session_options_free(ctx->opts);
  tfs_free(ctx);
}

TF_DeviceList *TFE_ContextListDevices(TFE_Context *ctx, TF_Status *status) {
  tfs_status *st = ST(status);
  return tfs_capi__device_list(
      tfs_device_list_new(ctx ? ctx->opts : NULL, st), st);
}

/* tfsess keeps its one-node plans: they hold no device memory, and ops
 * running on other threads may be using them. */
void TFE_ContextClearCaches(TFE_Context *ctx) { (void)ctx; }

void TFE_ContextSetThreadLocalDevicePlacementPolicy(
    TFE_Context *ctx, TFE_ContextDevicePlacementPolicy policy) {
  ctx->policy = policy;
}

TFE_ContextDevicePlacementPolicy TFE_ContextGetDevicePlacementPolicy(
    TFE_Context *ctx) {
  return ctx->policy;
}

void TFE_ContextSetServerDef(TFE_Context *ctx, int keep_alive_secs,
                             const void *proto, size_t proto_len,
                             TF_Status *status) {
  (void)ctx, (void)keep_alive_secs, (void)proto, (void)proto_len;
  tfs_capi__unimplemented(status, "TFE_ContextSetServerDef",
                          "tfsess runs in one process and has no "
                          "distributed runtime");
}

/* ---- functions and run metadata ------------------------------------------ */

static const char kNoFunctions[] =
    "graph functions (FunctionDef) are not available yet";

void TFE_ContextAddFunctionDef(TFE_Context *ctx,
                               const char *serialized_function_def,
                               size_t size, TF_Status *status) {
  (void)ctx, (void)serialized_function_def, (void)size;
  tfs_capi__unimplemented(status, "TFE_ContextAddFunctionDef", kNoFunctions);
}

void TFE_ContextAddFunction(TFE_Context *ctx, TF_Function *function,
                            TF_Status *status) {
  (void)ctx, (void)function;
  tfs_capi__unimplemented(status, "TFE_ContextAddFunction", kNoFunctions);
}

void TFE_ContextRemoveFunction(TFE_Context *ctx, const char *name,
                               TF_Status *status) {
  (void)ctx;
  tfs_status_setf(ST(status), TFS_INVALID_ARGUMENT,
                  "Tried to remove non-existent function '%s'.",
                  name ? name : "");
}

unsigned char TFE_ContextHasFunction(TFE_Context *ctx, const char *name) {
  (void)ctx, (void)name;
  return 0;
}

void TFE_ContextEnableRunMetadata(TFE_Context *ctx) { ctx->run_metadata = 1; }

void TFE_ContextDisableRunMetadata(TFE_Context *ctx) { ctx->run_metadata = 0; }

static void free_bytes(void *data, size_t len) {
  (void)len;
  tfs_free(data);
}

/* An empty RunMetadata: eager ops record no step stats in tfsess. */
void TFE_ContextExportRunMetadata(TFE_Context *ctx, TF_Buffer *buf,
                                  TF_Status *status) {
  tfs_status *st = ST(status);
  tfs_buffer b = tfs_capi__buf_in(buf);
  (void)ctx;
  if (tfs_pb__check_empty(&b, st)) return;
  buf->data = tfs_malloc(1);
  if (!buf->data) {
    TFS_OOM(st);
    return;
  }
  buf->length = 0;
  buf->data_deallocator = free_bytes;
  tfs_status_clear(st);
}

void TFE_ContextStartStep(TFE_Context *ctx) { (void)ctx; }

void TFE_ContextEndStep(TFE_Context *ctx) { (void)ctx; }

/* ---- tensor handles ------------------------------------------------------ */

TFE_TensorHandle *TFE_NewTensorHandle(const TF_Tensor *t, TF_Status *status) {
  tfs_status *st = ST(status);
  int owned;
  tfs_tensor *in = tfs_capi__tensor_in((tfs_tensor *)t, &owned, st);
  if (!in) return NULL;
  tfs_value *v = tfs_eager__value(NULL, in, st);
  if (owned) tfs_tensor_free(in);
  if (v) tfs_status_clear(st);
  return v;
}

void TFE_DeleteTensorHandle(TFE_TensorHandle *h) { tfs_value_free(h); }

TF_DataType TFE_TensorHandleDataType(TFE_TensorHandle *h) {
  return (TF_DataType)tfs_value_dtype(h);
}

int TFE_TensorHandleNumDims(TFE_TensorHandle *h, TF_Status *status) {
  tfs_status_clear(ST(status));
  return h->tensor->shape.rank;
}

int64_t TFE_TensorHandleNumElements(TFE_TensorHandle *h, TF_Status *status) {
  tfs_status_clear(ST(status));
  return h->tensor->nelems;
}

int64_t TFE_TensorHandleDim(TFE_TensorHandle *h, int dim_index,
                            TF_Status *status) {
  tfs_status *st = ST(status);
  const tfs_shape *s = &h->tensor->shape;
  if (dim_index < 0 || dim_index >= s->rank) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "Dimension %d is out of range for a tensor of rank %d",
                    dim_index, s->rank);
    return -1;
  }
  tfs_status_clear(st);
  return s->dims[dim_index];
}

const char *TFE_TensorHandleDeviceName(TFE_TensorHandle *h,
                                       TF_Status *status) {
  tfs_status_clear(ST(status));
  return tfs_value_device(h);
}

const char *TFE_TensorHandleBackingDeviceName(TFE_TensorHandle *h,
                                              TF_Status *status) {
  tfs_status_clear(ST(status));
  return tfs_value_device(h);
}

TFE_TensorHandle *TFE_TensorHandleCopySharingTensor(TFE_TensorHandle *h,
                                                    TF_Status *status) {
  tfs_status *st = ST(status);
  tfs_value *v = tfs_eager__value(NULL, h->tensor, st);
  if (v) tfs_status_clear(st);
  return v;
}

TF_Tensor *TFE_TensorHandleResolve(TFE_TensorHandle *h, TF_Status *status) {
  return tfs_value_resolve(h, ST(status));
}

/* Non-zero for a name of the host CPU ("/job:localhost/.../device:CPU:0",
 * "/device:CPU:0", "CPU:0", "/cpu:0"). */
static int is_cpu_device(const char *name) {
  const char *p = strrchr(name, '/');
  p = p ? p + 1 : name;
  if (strncmp(p, "device:", 7) == 0) p += 7;
  return (strncmp(p, "CPU", 3) == 0 || strncmp(p, "cpu", 3) == 0) &&
         (p[3] == 0 || strcmp(p + 3, ":0") == 0);
}

TFE_TensorHandle *TFE_TensorHandleCopyToDevice(TFE_TensorHandle *h,
                                               TFE_Context *ctx,
                                               const char *device_name,
                                               TF_Status *status) {
  tfs_status *st = ST(status);
  (void)ctx;
  if (device_name && *device_name && !is_cpu_device(device_name)) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT, "%s unknown device.",
                    device_name);
    return NULL;
  }
  tfs_tensor *copy = tfs_tensor__copy(h->tensor, st);
  if (!copy) return NULL;
  tfs_value *v = tfs_eager__value(NULL, copy, st);
  tfs_tensor_free(copy);
  if (v) tfs_status_clear(st);
  return v;
}

/* ---- debug info ---------------------------------------------------------- */

TFE_TensorDebugInfo *TFE_TensorHandleTensorDebugInfo(TFE_TensorHandle *h,
                                                     TF_Status *status) {
  tfs_status *st = ST(status);
  TFE_TensorDebugInfo *d = tfs_calloc(1, sizeof(*d));
  if (!d) {
    TFS_OOM(st);
    return NULL;
  }
  const tfs_shape *s = &h->tensor->shape;
  d->ndims = s->rank;
  for (int i = 0; i < s->rank; i++) d->dims[i] = s->dims[i];
  tfs_status_clear(st);
  return d;
}

void TFE_DeleteTensorDebugInfo(TFE_TensorDebugInfo *debug_info) {
  tfs_free(debug_info);
}

int TFE_TensorDebugInfoOnDeviceNumDims(TFE_TensorDebugInfo *debug_info) {
  return debug_info->ndims;
}

int64_t TFE_TensorDebugInfoOnDeviceDim(TFE_TensorDebugInfo *debug_info,
                                       int dim_index) {
  if (dim_index < 0 || dim_index >= debug_info->ndims) return -1;
  return debug_info->dims[dim_index];
}
