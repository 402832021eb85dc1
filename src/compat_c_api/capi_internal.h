/*
 * compat_c_api/capi_internal.h - how the TensorFlow C API types map onto
 * tfsess, shared by the files of the compat_c_api module.
 */
#ifndef TFS_COMPAT_C_API_INTERNAL_H
#define TFS_COMPAT_C_API_INTERNAL_H

/*
 * Most TF_ types are tfsess's own objects under another name: the macros
 * below make `TF_Graph` *be* `tfs_graph` (and so on) inside this module,
 * so a TF_Graph* handed out is a tfs_graph* and no conversion is needed.
 * TF_Status, TF_SessionOptions, the device list and the eager context and
 * op carry a little more state and are small wrappers.
 */

#include "compat_eager/eager_internal.h"
#include "core/alloc.h"
#include "core/status.h"
#include "graph_builder/graph_internal.h"
#include "tfsess/graphdef.h"
#include "tfsess/device.h"

#define TF_Tensor tfs_tensor
#define TF_Graph tfs_graph
#define TF_Operation tfs_operation
#define TF_OperationDescription tfs_op_desc
#define TF_Session tfs_session
#define TF_ImportGraphDefOptions tfs_import_options
#define TF_ImportGraphDefResults tfs_import_results
#define TFE_TensorHandle tfs_value

#include "tensorflow/c/c_api.h"
#include "tensorflow/c/eager/c_api.h"

/* An error status and the key/value payloads attached to it. */
struct TF_Status {
  tfs_status *st;
  int npayloads, cap;
  char **keys, **values;
};

void tfs_capi__clear_payloads(TF_Status *s);

/* The tfsess status inside; payloads belong to the error they were
 * attached to, so a call that sets the status anew drops them. */
static inline tfs_status *tfs_capi__st(TF_Status *s) {
  if (s->npayloads) tfs_capi__clear_payloads(s);
  return s->st;
}
#define ST(s) tfs_capi__st(s)

struct TF_SessionOptions {
  tfs_session_options *opts;
  char *target;
};

/* One entry per device: name, type, memory, incarnation. */
typedef struct tfs_capi_device {
  char *name;
  const char *type;
  int64_t memory;
  uint64_t incarnation;
} tfs_capi_device;

struct TF_DeviceList {
  int n;
  tfs_capi_device *devices;
};

/* The TF_DeviceList of a tfsess device list (a session's devices, or
 * what a context's options give), which it takes (also on failure).
 * NULL when dl is NULL (st then holds its error) or memory runs out. */
TF_DeviceList *tfs_capi__device_list(tfs_device_list *dl, tfs_status *st);

/* "/job:localhost/replica:0/task:0/device:CPU:0" */
#define TFS_CAPI_CPU TFS_CPU_DEVICE

struct TF_DeprecatedSession {
  tfs_graph *graph;
  tfs_session *session;
};

struct TFE_ContextOptions {
  tfs_session_options *opts;
  int async;
  TFE_ContextDevicePlacementPolicy policy;
};

struct TFE_Context {
  tfs_ctx *ctx;
  tfs_session_options *opts; /* the context's own copy */
  TFE_ContextDevicePlacementPolicy policy;
  int run_metadata;
};

struct TFE_Op {
  tfs_op_call *call;
  TFE_Context *ctx;
  char *device;          /* as set; "" until set */
  int ninputs, cap;
  tfs_value **inputs;    /* the op's own references, in flat order */
};

struct TFE_TensorDebugInfo {
  int ndims;
  int64_t dims[TFS_MAX_RANK];
};

/* ---- conversions --------------------------------------------------------- */

static inline tfs_output tfs_capi__out(TF_Output o) {
  tfs_output r = {o.oper, o.index};
  return r;
}

static inline TF_Output tfs_capi__tf_out(tfs_output o) {
  TF_Output r = {o.oper, o.index};
  return r;
}

/* Reads a caller's TF_Buffer (may be NULL) into a tfs_buffer view. */
static inline tfs_buffer tfs_capi__buf_in(const TF_Buffer *b) {
  tfs_buffer r = {NULL, 0, NULL};
  if (b) {
    r.data = b->data;
    r.length = b->length;
  }
  return r;
}

/* Moves what tfsess wrote into `from` to the caller's buffer `to`. */
static inline void tfs_capi__buf_out(TF_Buffer *to, const tfs_buffer *from) {
  to->data = from->data;
  to->length = from->length;
  to->data_deallocator = from->data_deallocator;
}

/* Reports TF_UNIMPLEMENTED for a function tfsess does not support:
 * "<fn> is not supported by tfsess: <why>". */
void tfs_capi__unimplemented(TF_Status *s, const char *fn, const char *why);

/* Checks that an output exists, with TensorFlow's session error:
 * OUT_OF_RANGE "Node 'x' (type: 'Placeholder', num of outputs: 1) does
 * not have output 5".  Returns 0 or -1. */
int tfs_capi__check_output(tfs_output o, tfs_status *st);

/* A TF_Function holding a copy of FunctionDef bytes (TF_DeleteFunction
 * frees it), or NULL with st set. */
TF_Function *tfs_capi__function_new(const void *fdef, size_t len,
                                    tfs_status *st);

#endif
