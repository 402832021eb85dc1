/*
 * compat_c_api/status_buffer.c - TF_Status (a tfsess status plus
 * payloads), TF_Buffer, TF_DataTypeSize, TF_Version and the helpers every
 * file of the TensorFlow C API layer shares.
 */
#include <errno.h>
#include <string.h>

#include "compat_c_api/capi_internal.h"
#include "core/tstring.h"

/* ---- status -------------------------------------------------------------- */

TF_Status *TF_NewStatus(void) {
  TF_Status *s = tfs_calloc(1, sizeof(*s));
  if (!s) return NULL;
  s->st = tfs_status_new();
  if (!s->st) {
    tfs_free(s);
    return NULL;
  }
  return s;
}

void tfs_capi__clear_payloads(TF_Status *s) {
  for (int i = 0; i < s->npayloads; i++) {
    tfs_free(s->keys[i]);
    tfs_free(s->values[i]);
  }
  s->npayloads = 0;
}

void TF_DeleteStatus(TF_Status *s) {
  if (!s) return;
  tfs_capi__clear_payloads(s);
  tfs_free(s->keys);
  tfs_free(s->values);
  tfs_status_free(s->st);
  tfs_free(s);
}

void TF_SetStatus(TF_Status *s, TF_Code code, const char *msg) {
  tfs_status_set(ST(s), (tfs_code)code, msg);
}

void TF_SetPayload(TF_Status *s, const char *key, const char *value) {
  if (!s || !key || !value || tfs_status_ok(s->st)) return;
  for (int i = 0; i < s->npayloads; i++) {
    if (strcmp(s->keys[i], key) == 0) {
      char *v = tfs_strdup(value);
      if (!v) return;
      tfs_free(s->values[i]);
      s->values[i] = v;
      return;
    }
  }
  if (s->npayloads == s->cap) {
    int cap = s->cap ? 2 * s->cap : 4;
    char **k = tfs_realloc(s->keys, sizeof(char *) * (size_t)cap);
    if (!k) return;
    s->keys = k;
    char **v = tfs_realloc(s->values, sizeof(char *) * (size_t)cap);
    if (!v) return;
    s->values = v;
    s->cap = cap;
  }
  char *k = tfs_strdup(key), *v = tfs_strdup(value);
  if (!k || !v) {
    tfs_free(k);
    tfs_free(v);
    return;
  }
  s->keys[s->npayloads] = k;
  s->values[s->npayloads++] = v;
}

void TF_ForEachPayload(const TF_Status *s, TF_PayloadVisitor visitor,
                       void *capture) {
  if (!s || !visitor || tfs_status_ok(s->st)) return;
  for (int i = 0; i < s->npayloads; i++)
    visitor(s->keys[i], s->values[i], capture);
}

/* errno to TensorFlow's code, as its IOError mapping does. */
static tfs_code errno_code(int e) {
  switch (e) {
    case 0:
      return TFS_OK;
    case EINVAL: case ENAMETOOLONG: case E2BIG: case EDESTADDRREQ:
    case EDOM: case EFAULT: case EILSEQ: case ENOPROTOOPT: case ENOSTR:
    case ENOTSOCK: case ENOTTY: case EPROTOTYPE: case ESPIPE:
      return TFS_INVALID_ARGUMENT;
    case ETIMEDOUT: case ETIME:
      return TFS_DEADLINE_EXCEEDED;
    case ENODEV: case ENOENT: case ENXIO: case ESRCH:
      return TFS_NOT_FOUND;
    case EEXIST: case EADDRNOTAVAIL: case EALREADY:
      return TFS_ALREADY_EXISTS;
    case EPERM: case EACCES: case EROFS:
      return TFS_PERMISSION_DENIED;
    case ENOTEMPTY: case EISDIR: case ENOTDIR: case EADDRINUSE: case EBADF:
    case EBUSY: case ECHILD: case EISCONN: case ENOTBLK: case ENOTCONN:
    case EPIPE: case ESHUTDOWN: case ETXTBSY:
      return TFS_FAILED_PRECONDITION;
    case ENOSPC: case EDQUOT: case EMFILE: case EMLINK: case ENFILE:
    case ENOBUFS: case ENODATA: case ENOMEM: case ENOSR: case EUSERS:
      return TFS_RESOURCE_EXHAUSTED;
    case EFBIG: case EOVERFLOW: case ERANGE:
      return TFS_OUT_OF_RANGE;
    case ENOSYS: case ENOTSUP: case EAFNOSUPPORT: case EPFNOSUPPORT:
    case EPROTONOSUPPORT: case ESOCKTNOSUPPORT: case EXDEV:
      return TFS_UNIMPLEMENTED;
    case EAGAIN: case ECONNREFUSED: case ECONNABORTED: case ECONNRESET:
    case EINTR: case EHOSTDOWN: case EHOSTUNREACH: case ENETDOWN:
    case ENETRESET: case ENETUNREACH: case ENOLCK: case ENOLINK:
#if defined(ENONET)
    case ENONET:
#endif
      return TFS_UNAVAILABLE;
    case EDEADLK:
#if defined(ESTALE)
    case ESTALE:
#endif
      return TFS_ABORTED;
    case ECANCELED:
      return TFS_CANCELLED;
    default:
      return TFS_UNKNOWN;
  }
}

void TF_SetStatusFromIOError(TF_Status *s, int error_code,
                             const char *context) {
  tfs_code code = errno_code(error_code);
  if (code == TFS_OK) {
    tfs_status_clear(ST(s));
    return;
  }
  tfs_status_setf(ST(s), code, "%s; %s", context ? context : "",
                  strerror(error_code));
}

TF_Code TF_GetCode(const TF_Status *s) {
  return (TF_Code)tfs_status_code(s->st);
}

const char *TF_Message(const TF_Status *s) {
  return tfs_status_message(s->st);
}

void tfs_capi__unimplemented(TF_Status *s, const char *fn, const char *why) {
  if (!s) return;
  tfs_status_setf(ST(s), TFS_UNIMPLEMENTED, "%s is not supported by tfsess: %s",
                  fn, why);
}

/* ---- buffers ------------------------------------------------------------- */

TF_Buffer *TF_NewBuffer(void) {
  return tfs_calloc(1, sizeof(TF_Buffer));
}

static void free_copied(void *data, size_t len) {
  (void)len;
  tfs_free(data);
}

TF_Buffer *TF_NewBufferFromString(const void *proto, size_t proto_len) {
  TF_Buffer *b = TF_NewBuffer();
  if (!b) return NULL;
  void *copy = tfs_malloc(proto_len);
  if (!copy) {
    tfs_free(b);
    return NULL;
  }
  if (proto_len) memcpy(copy, proto, proto_len);
  b->data = copy;
  b->length = proto_len;
  b->data_deallocator = free_copied;
  return b;
}

void TF_DeleteBuffer(TF_Buffer *b) {
  if (!b) return;
  if (b->data_deallocator) b->data_deallocator((void *)b->data, b->length);
  tfs_free(b);
}

TF_Buffer TF_GetBuffer(TF_Buffer *buffer) { return *buffer; }

/* ---- dtypes and version -------------------------------------------------- */

size_t TF_DataTypeSize(TF_DataType dt) {
  switch ((int)dt) {
    case TF_FLOAT8_E5M2: case TF_FLOAT8_E4M3FN: case TF_FLOAT8_E4M3FNUZ:
    case TF_FLOAT8_E4M3B11FNUZ: case TF_FLOAT8_E5M2FNUZ: case TF_INT4:
    case TF_UINT4: case TF_INT2: case TF_UINT2: case TF_FLOAT4_E2M1FN:
      return 1;
    case TF_STRING: case TF_RESOURCE: case TF_VARIANT:
      return 0;
    default:
      return tfs_dtype_is_valid((tfs_dtype)dt) && (int)dt < TFS_DTYPE_REF_OFFSET
                 ? tfs_dtype_size((tfs_dtype)dt)
                 : 0;
  }
}

const char *TF_Version(void) { return TFS_TF_VERSION_STRING; }

/* ---- shared checks ------------------------------------------------------- */

int tfs_capi__check_output(tfs_output o, tfs_status *st) {
  if (!o.oper) {
    tfs_status_set(st, TFS_INVALID_ARGUMENT, "Output has no operation");
    return -1;
  }
  if (o.index < 0 || o.index >= o.oper->noutputs) {
    tfs_status_setf(st, TFS_OUT_OF_RANGE,
                    "Node '%s' (type: '%s', num of outputs: %d) does not "
                    "have output %d",
                    o.oper->name, o.oper->def->name, o.oper->noutputs,
                    o.index);
    return -1;
  }
  return 0;
}
