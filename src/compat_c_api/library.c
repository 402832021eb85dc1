/*
 * compat_c_api/library.c - the op and kernel registries as TensorFlow
 * protos (KernelList), and what tfsess does not load or serve: kernel
 * libraries, filesystem plugins, ApiDef maps and in-process servers
 * (TF_UNIMPLEMENTED, naming the function); the log listener.
 */
#include <string.h>

#include "compat_c_api/capi_internal.h"
#include "core/log.h"
#include "kernels/kernel.h"

/* ---- a tiny protobuf writer for KernelList ------------------------------- */

typedef struct pbw {
  uint8_t *p;
  size_t n, cap;
  int oom;
} pbw;

static void put(pbw *w, const void *data, size_t n) {
  if (w->oom) return;
  if (w->n + n > w->cap) {
    size_t cap = w->cap ? w->cap * 2 : 256;
    while (cap < w->n + n) cap *= 2;
    uint8_t *p = tfs_realloc(w->p, cap);
    if (!p) {
      w->oom = 1;
      return;
    }
    w->p = p;
    w->cap = cap;
  }
  memcpy(w->p + w->n, data, n);
  w->n += n;
}

static void put_varint(pbw *w, uint64_t v) {
  uint8_t b[10];
  size_t n = 0;
  while (v >= 0x80) {
    b[n++] = (uint8_t)(v | 0x80);
    v >>= 7;
  }
  b[n++] = (uint8_t)v;
  put(w, b, n);
}

/* Length-delimited field `field` holding bytes. */
static void put_bytes(pbw *w, int field, const void *data, size_t n) {
  put_varint(w, ((uint64_t)field << 3) | 2);
  put_varint(w, n);
  put(w, data, n);
}

/* KernelDef { op: 1, device_type: 2, constraint: 3 {name: 1,
 * allowed_values: 2 AttrValue {list: 1 ListValue {type: 6 packed}}} } */
static void put_kernel(pbw *w, const tfs_kernel_def *k) {
  pbw kd = {NULL, 0, 0, 0};
  put_bytes(&kd, 1, k->op, strlen(k->op));
  put_bytes(&kd, 2, k->device, strlen(k->device));
  if (k->type_attr && k->types) {
    pbw types = {NULL, 0, 0, 0}, list = {NULL, 0, 0, 0};
    pbw value = {NULL, 0, 0, 0}, c = {NULL, 0, 0, 0};
    for (int d = 1; d < 64; d++)
      if ((k->types & TFS_DT_BIT(d)) && tfs_dtype_is_valid((tfs_dtype)d))
        put_varint(&types, (uint64_t)d);
    put_bytes(&list, 6, types.p, types.n);
    put_bytes(&value, 1, list.p, list.n);
    put_bytes(&c, 1, k->type_attr, strlen(k->type_attr));
    put_bytes(&c, 2, value.p, value.n);
    put_bytes(&kd, 3, c.p, c.n);
    kd.oom |= types.oom | list.oom | value.oom | c.oom;
    tfs_free(types.p);
    tfs_free(list.p);
    tfs_free(value.p);
    tfs_free(c.p);
  }
  put_bytes(w, 1, kd.p, kd.n);
  w->oom |= kd.oom;
  tfs_free(kd.p);
}

static void free_bytes(void *data, size_t len) {
  (void)len;
  tfs_free(data);
}

/* Serialized KernelList of every kernel (op NULL) or of one op. */
static TF_Buffer *kernel_list(const char *op, tfs_status *st) {
  int n = 0;
  const tfs_kernel_def *const *all = tfs_kernel_all(&n);
  pbw w = {NULL, 0, 0, 0};
  for (int i = 0; i < n; i++)
    if (!op || strcmp(all[i]->op, op) == 0) put_kernel(&w, all[i]);
  TF_Buffer *b = w.oom ? NULL : TF_NewBuffer();
  if (!b) {
    tfs_free(w.p);
    TFS_OOM(st);
    return NULL;
  }
  b->data = w.p ? (void *)w.p : tfs_malloc(1);
  b->length = w.n;
  b->data_deallocator = b->data ? free_bytes : NULL;
  tfs_status_clear(st);
  return b;
}

TF_Buffer *TF_GetAllRegisteredKernels(TF_Status *status) {
  return kernel_list(NULL, ST(status));
}

TF_Buffer *TF_GetRegisteredKernelsForOp(const char *name, TF_Status *status) {
  return kernel_list(name ? name : "", ST(status));
}

/* ---- libraries and plugins ----------------------------------------------- */

TF_Library *TF_LoadLibrary(const char *library_filename, TF_Status *status) {
  (void)library_filename;
  tfs_capi__unimplemented(status, "TF_LoadLibrary",
                          "tfsess cannot load TensorFlow op and kernel "
                          "libraries (.so); its ops are built in");
  return NULL;
}

/* TF_LoadLibrary never succeeds: no library has ops to list. */
TF_Buffer TF_GetOpList(TF_Library *lib_handle) {
  TF_Buffer b = {NULL, 0, NULL};
  (void)lib_handle;
  return b;
}

void TF_DeleteLibraryHandle(TF_Library *lib_handle) { (void)lib_handle; }

void TF_RegisterFilesystemPlugin(const char *plugin_filename,
                                 TF_Status *status) {
  (void)plugin_filename;
  tfs_capi__unimplemented(status, "TF_RegisterFilesystemPlugin",
                          "tfsess reads local files only and cannot load "
                          "filesystem plugins");
}

/* ---- ApiDef maps --------------------------------------------------------- */

static const char kNoApiDefs[] =
    "ApiDef maps (op documentation for language bindings) are not "
    "available; TF_GetAllOpList gives the op definitions";

TF_ApiDefMap *TF_NewApiDefMap(TF_Buffer *op_list_buffer, TF_Status *status) {
  (void)op_list_buffer;
  tfs_capi__unimplemented(status, "TF_NewApiDefMap", kNoApiDefs);
  return NULL;
}

void TF_DeleteApiDefMap(TF_ApiDefMap *apimap) { (void)apimap; }

void TF_ApiDefMapPut(TF_ApiDefMap *api_def_map, const char *text,
                     size_t text_len, TF_Status *status) {
  (void)api_def_map, (void)text, (void)text_len;
  tfs_capi__unimplemented(status, "TF_ApiDefMapPut", kNoApiDefs);
}

TF_Buffer *TF_ApiDefMapGet(TF_ApiDefMap *api_def_map, const char *name,
                           size_t name_len, TF_Status *status) {
  (void)api_def_map, (void)name, (void)name_len;
  tfs_capi__unimplemented(status, "TF_ApiDefMapGet", kNoApiDefs);
  return NULL;
}

/* ---- servers ------------------------------------------------------------- */

static const char kNoServers[] =
    "tfsess runs in one process and has no distributed runtime";

TF_Server *TF_NewServer(const void *proto, size_t proto_len,
                        TF_Status *status) {
  (void)proto, (void)proto_len;
  tfs_capi__unimplemented(status, "TF_NewServer", kNoServers);
  return NULL;
}

void TF_ServerStart(TF_Server *server, TF_Status *status) {
  (void)server;
  tfs_capi__unimplemented(status, "TF_ServerStart", kNoServers);
}

void TF_ServerStop(TF_Server *server, TF_Status *status) {
  (void)server;
  tfs_capi__unimplemented(status, "TF_ServerStop", kNoServers);
}

void TF_ServerJoin(TF_Server *server, TF_Status *status) {
  (void)server;
  tfs_capi__unimplemented(status, "TF_ServerJoin", kNoServers);
}

const char *TF_ServerTarget(TF_Server *server) {
  (void)server;
  return "";
}

void TF_DeleteServer(TF_Server *server) { (void)server; }

/* ---- log listener -------------------------------------------------------- */

/* From now on PrintV2 hands what it prints to the listeners instead of
 * writing it; the legacy Print op keeps writing to stderr, as in
 * TensorFlow (core/log.h). */
void TF_RegisterLogListener(void (*listener)(const char *)) {
  tfs_log_add_listener(listener);
}
