/*
 * compat_c_api/function.c - TF_Function: a FunctionDef held as bytes
 * (TF_FunctionImportFunctionDef, TF_FunctionToFunctionDef, its name and
 * attrs) and the graph's function library (TF_GraphCopyFunction,
 * TF_GraphNumFunctions, TF_GraphGetFunctions).
 */
#include <string.h>

#include "compat_c_api/capi_internal.h"
#include "config_proto/pb_util.h"
#include "core/alloc.h"
#include "core/util.h"
#include "graph_builder/function_lib.h"

struct TF_Function {
  uint8_t *bytes; /* the FunctionDef */
  size_t len;
  char *name;
};

/* A function from FunctionDef bytes (copied), or NULL with st set. */
static TF_Function *function_new(const void *proto, size_t len,
                                 tfs_status *st) {
  int oom = 0;
  Tensorflow__FunctionDef *fd = (Tensorflow__FunctionDef *)tfs_pb__unpack(
      &tensorflow__function_def__descriptor, proto, len, &oom);
  if (!fd) {
    if (oom)
      TFS_OOM(st);
    else
      tfs_status_set(st, TFS_INVALID_ARGUMENT,
                     "Invalid FunctionDef given to "
                     "TF_FunctionImportFunctionDef");
    return NULL;
  }
  TF_Function *f = tfs_calloc(1, sizeof(*f));
  if (f) {
    f->name = tfs_strdup(fd->signature && fd->signature->name
                             ? fd->signature->name
                             : "");
    f->bytes = tfs_malloc(len ? len : 1);
  }
  tfs_pb__free(&fd->base);
  if (!f || !f->name || !f->bytes) {
    TF_DeleteFunction(f);
    TFS_OOM(st);
    return NULL;
  }
  if (len) memcpy(f->bytes, proto, len);
  f->len = len;
  tfs_status_clear(st);
  return f;
}

TF_Function *TF_FunctionImportFunctionDef(const void *proto, size_t proto_len,
                                          TF_Status *status) {
  return function_new(proto, proto_len, ST(status));
}

TF_Function *tfs_capi__function_new(const void *fdef, size_t len,
                                    tfs_status *st) {
  return function_new(fdef, len, st);
}

const char *TF_FunctionName(TF_Function *func) {
  return func ? func->name : "";
}

void TF_DeleteFunction(TF_Function *func) {
  if (!func) return;
  tfs_free(func->bytes);
  tfs_free(func->name);
  tfs_free(func);
}

void TF_FunctionToFunctionDef(TF_Function *func, TF_Buffer *output_func_def,
                              TF_Status *status) {
  tfs_status *st = ST(status);
  TFS_CHECK_ARG(func != NULL && output_func_def != NULL, st, );
  tfs_buffer b = tfs_capi__buf_in(output_func_def);
  tfs_buffer *copy = tfs_pb__check_empty(&b, st)
                         ? NULL
                         : tfs_buffer_new_copy(func->bytes, func->len);
  if (!copy) {
    if (tfs_status_ok(st)) TFS_OOM(st);
    return;
  }
  b = *copy;
  tfs_free(copy); /* the struct only: b owns the bytes now */
  tfs_capi__buf_out(output_func_def, &b);
  tfs_status_clear(st);
}

/* The FunctionDef's attr map, changed: `value` (AttrValue bytes) set
 * under `name`. */
void TF_FunctionSetAttrValueProto(TF_Function *func, const char *attr_name,
                                  const void *proto, size_t proto_len,
                                  TF_Status *status) {
  tfs_status *st = ST(status);
  TFS_CHECK_ARG(func != NULL && attr_name != NULL, st, );
  int oom = 0;
  Tensorflow__AttrValue *v = (Tensorflow__AttrValue *)tfs_pb__unpack(
      &tensorflow__attr_value__descriptor, proto, proto_len, &oom);
  Tensorflow__FunctionDef *fd = (Tensorflow__FunctionDef *)tfs_pb__unpack(
      &tensorflow__function_def__descriptor, func->bytes, func->len, &oom);
  if (!v || !fd) {
    if (oom)
      TFS_OOM(st);
    else
      tfs_status_set(st, TFS_INVALID_ARGUMENT,
                     "Unparseable AttrValue proto passed to "
                     "TF_FunctionSetAttrValueProto");
    goto done;
  }
  /* replace or append the entry, then pack the whole message again */
  Tensorflow__FunctionDef__AttrEntry entry =
      TENSORFLOW__FUNCTION_DEF__ATTR_ENTRY__INIT;
  Tensorflow__FunctionDef__AttrEntry **attrs =
      tfs_calloc(fd->n_attr + 1, sizeof(void *));
  if (!attrs) {
    TFS_OOM(st);
    goto done;
  }
  size_t n = 0;
  for (size_t i = 0; i < fd->n_attr; i++)
    if (strcmp(fd->attr[i]->key, attr_name) != 0) attrs[n++] = fd->attr[i];
  entry.key = (char *)attr_name;
  entry.value = v;
  attrs[n++] = &entry;
  Tensorflow__FunctionDef__AttrEntry **saved = fd->attr;
  size_t nsaved = fd->n_attr;
  fd->attr = attrs;
  fd->n_attr = n;
  size_t len = protobuf_c_message_get_packed_size(&fd->base);
  uint8_t *bytes = tfs_malloc(len ? len : 1);
  if (bytes) {
    protobuf_c_message_pack(&fd->base, bytes);
    tfs_free(func->bytes);
    func->bytes = bytes;
    func->len = len;
    tfs_status_clear(st);
  } else {
    TFS_OOM(st);
  }
  fd->attr = saved;
  fd->n_attr = nsaved;
  tfs_free(attrs);
done:
  if (v) tfs_pb__free(&v->base);
  if (fd) tfs_pb__free(&fd->base);
}

void TF_FunctionGetAttrValueProto(TF_Function *func, const char *attr_name,
                                  TF_Buffer *output_attr_value,
                                  TF_Status *status) {
  tfs_status *st = ST(status);
  TFS_CHECK_ARG(func != NULL && attr_name != NULL && output_attr_value,
                st, );
  int oom = 0;
  Tensorflow__FunctionDef *fd = (Tensorflow__FunctionDef *)tfs_pb__unpack(
      &tensorflow__function_def__descriptor, func->bytes, func->len, &oom);
  if (!fd) {
    TFS_OOM(st);
    return;
  }
  const Tensorflow__AttrValue *v = NULL;
  for (size_t i = 0; i < fd->n_attr; i++)
    if (strcmp(fd->attr[i]->key, attr_name) == 0) v = fd->attr[i]->value;
  if (!v) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "Function '%s' has no attr named '%s'.", func->name,
                    attr_name);
  } else {
    tfs_buffer b = tfs_capi__buf_in(output_attr_value);
    if (tfs_pb__pack(&v->base, &b, st) == 0)
      tfs_capi__buf_out(output_attr_value, &b);
  }
  tfs_pb__free(&fd->base);
}

/* ---- the graph's library ------------------------------------------------- */

void TF_GraphCopyFunction(TF_Graph *g, const TF_Function *func,
                          const TF_Function *grad, TF_Status *status) {
  tfs_status *st = ST(status);
  TFS_CHECK_ARG(g != NULL, st, );
  if (!func) {
    tfs_status_set(st, TFS_INVALID_ARGUMENT,
                   "'func' argument to TF_GraphCopyFunction cannot be null");
    return;
  }
  pthread_mutex_lock(&g->mu);
  int rc = tfs_flib__add_bytes(g, func->bytes, func->len, st);
  if (rc == 0 && grad) {
    rc = tfs_flib__add_bytes(g, grad->bytes, grad->len, st);
    if (rc == 0) rc = tfs_flib__add_gradient(g, func->name, grad->name, st);
  }
  pthread_mutex_unlock(&g->mu);
  if (rc == 0) tfs_status_clear(st);
}

int TF_GraphNumFunctions(TF_Graph *g) { return tfs_graph_num_functions(g); }

int TF_GraphGetFunctions(TF_Graph *g, TF_Function **funcs, int max_func,
                         TF_Status *status) {
  tfs_status *st = ST(status);
  TFS_CHECK_ARG(g != NULL && (funcs != NULL || max_func <= 0), st, 0);
  int n = 0;
  pthread_mutex_lock(&g->mu);
  int total = tfs_flib__count(g);
  for (; n < total && n < max_func; n++) {
    const tfs_flib_fn *f = &g->lib->fns[n];
    if (!(funcs[n] = function_new(f->bytes, f->len, st))) break;
  }
  pthread_mutex_unlock(&g->mu);
  if (n < total && n < max_func) { /* out of memory: give nothing back */
    for (int i = 0; i < n; i++) {
      TF_DeleteFunction(funcs[i]);
      funcs[i] = NULL;
    }
    return 0;
  }
  tfs_status_clear(st);
  return n;
}
