/*
 * compat_c_api/tensor.c - TF_Tensor (a tfsess tensor): TensorFlow's rules
 * for wrapping caller memory and allocating, in-place reshape and
 * bitcast, tensors from TensorProto bytes, and the exported TF_String*
 * functions.
 */
#include <stddef.h>
#include <string.h>

#include "compat_c_api/capi_internal.h"
#include "compat_c_api/legacy_string.h"
#include "core/tstring.h"
#include "graph_builder/tensor_proto.h"

/* A TF_STRING tensor's elements are tfsess's string records as they are. */
_Static_assert(sizeof(TF_TString) == sizeof(tfs_tstring),
               "TF_TString and tfs_tstring differ in size");
_Static_assert(offsetof(TF_TString, u.view.owner_ref) ==
                   offsetof(tfs_tstring, u.view.owner),
               "a view's owner must sit where TensorFlow puts it");

/* Shape from caller dims; -1 with INVALID_ARGUMENT for bad dims. */
static int make_shape(tfs_shape *s, const int64_t *dims, int n,
                      tfs_status *st) {
  if (n < 0 || (n > 0 && !dims)) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT, "Invalid number of dims: %d",
                    n);
    return -1;
  }
  if (tfs_shape_set(s, dims, n, st)) return -1;
  for (int i = 0; i < n; i++) {
    if (dims[i] < 0) {
      tfs_status_setf(st, TFS_INVALID_ARGUMENT, "Dimension %d is %lld", i,
                      (long long)dims[i]);
      return -1;
    }
  }
  return 0;
}

TF_Tensor *TF_NewTensor(TF_DataType dtype, const int64_t *dims, int num_dims,
                        void *data, size_t len,
                        void (*deallocator)(void *data, size_t len,
                                            void *arg),
                        void *deallocator_arg) {
  tfs_status *st = tfs_status_new();
  tfs_tensor *t = NULL;
  tfs_shape s;
  if (st && make_shape(&s, dims, num_dims, st) == 0) {
    if (dtype == TF_STRING && tfs_capi__string_len_is_legacy(&s, len))
      t = tfs_capi__legacy_wrap(&s, data, len, deallocator, deallocator_arg,
                                st);
    else
      t = tfs_tensor_wrap((tfs_dtype)dtype, dims, num_dims, data, len,
                          deallocator, deallocator_arg, st);
  }
  tfs_status_free(st);
  /* TensorFlow hands the memory back when it cannot make the tensor. */
  if (!t && deallocator) deallocator(data, len, deallocator_arg);
  return t;
}

size_t TF_TensorDefaultAlignment(void) { return TFS_TENSOR_ALIGNMENT; }

TF_Tensor *TF_AllocateTensor(TF_DataType dtype, const int64_t *dims,
                             int num_dims, size_t len) {
  tfs_status *st = tfs_status_new();
  tfs_tensor *t = NULL;
  tfs_shape s;
  if (!st || make_shape(&s, dims, num_dims, st)) goto done;
  if (dtype == TF_STRING && tfs_capi__string_len_is_legacy(&s, len)) {
    t = tfs_capi__legacy_alloc(&s, len, st);
    goto done;
  }
  t = tfs_tensor__alloc((tfs_dtype)dtype, &s, st);
  if (t && dtype != TF_STRING && len < t->nbytes) {
    tfs_tensor_free(t); /* the caller's size is too small for the shape */
    t = NULL;
  }
done:
  tfs_status_free(st);
  return t;
}

TF_Tensor *TF_TensorMaybeMove(TF_Tensor *tensor) {
  if (!tensor) return NULL;
  return atomic_load(&tensor->refs) == 1 && atomic_load(&tensor->buf->refs) == 1
             ? tensor
             : NULL;
}

void TF_DeleteTensor(TF_Tensor *t) { tfs_tensor_free(t); }

TF_DataType TF_TensorType(const TF_Tensor *t) { return (TF_DataType)t->dtype; }

void TF_SetShape(TF_Tensor *tensor, const int64_t *dims, int num_dims) {
  tfs_shape s;
  tfs_status *st = tfs_status_new();
  if (st && make_shape(&s, dims, num_dims, st) == 0 &&
      tfs_shape_num_elements(&s) == tensor->nelems)
    tensor->shape = s;
  tfs_status_free(st);
}

int TF_NumDims(const TF_Tensor *t) { return t->shape.rank; }

int64_t TF_Dim(const TF_Tensor *t, int dim_index) {
  if (dim_index < 0 || dim_index >= t->shape.rank) return -1;
  return t->shape.dims[dim_index];
}

size_t TF_TensorByteSize(const TF_Tensor *t) { return t->nbytes; }

void *TF_TensorData(const TF_Tensor *t) { return t->data; }

int64_t TF_TensorElementCount(const TF_Tensor *t) { return t->nelems; }

bool TF_TensorIsAligned(const TF_Tensor *t) {
  return ((uintptr_t)t->data & (TFS_TENSOR_ALIGNMENT - 1)) == 0;
}

/* Points `to` at `buf` (a reference the caller gives) as dtype/shape. */
static void retarget(tfs_tensor *to, tfs_dtype dt, const tfs_shape *s,
                     tfs_buf *buf, void *data, size_t nbytes) {
  tfs_buf *old = to->buf;
  to->dtype = dt;
  to->shape = *s;
  to->nelems = tfs_shape_num_elements(s);
  to->nbytes = nbytes;
  to->buf = buf;
  to->data = data;
  tfs_buf__unref(old);
}

void TF_TensorBitcastFrom(const TF_Tensor *from, TF_DataType type,
                          TF_Tensor *to, const int64_t *new_dims,
                          int num_new_dims, TF_Status *status) {
  tfs_status *st = ST(status);
  tfs_shape s;
  if (make_shape(&s, new_dims, num_new_dims, st)) return;
  size_t in_size = tfs_dtype_size(from->dtype);
  size_t out_size = TF_DataTypeSize(type);
  if (in_size == 0 || out_size == 0 || from->dtype == TFS_STRING) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "Cannot bitcast from %s to %s",
                    tfs_dtype_name(from->dtype),
                    tfs_dtype_name((tfs_dtype)type));
    return;
  }
  int64_t n = tfs_shape_num_elements(&s);
  if ((uint64_t)n * out_size != (uint64_t)from->nelems * in_size) {
    tfs_status_set(st, TFS_INVALID_ARGUMENT,
                   "input and output shapes/data type sizes are not "
                   "compatible");
    return;
  }
  tfs_buf__ref(from->buf);
  retarget(to, (tfs_dtype)type, &s, from->buf, from->data, from->nbytes);
  tfs_status_clear(st);
}

void TF_TensorFromProto(const TF_Buffer *from, TF_Tensor *to,
                        TF_Status *status) {
  tfs_status *st = ST(status);
  tfs_tensor *t = tfs_tensor__parse_proto(from ? from->data : NULL,
                                          from ? from->length : 0, st);
  if (!t) {
    /* the C API names the message type in full */
    if (strcmp(tfs_status_message(st), "Unparseable TensorProto") == 0)
      tfs_status_set(st, TFS_INVALID_ARGUMENT,
                     "Unparseable tensorflow.TensorProto proto");
    return;
  }
  tfs_buf__ref(t->buf);
  retarget(to, t->dtype, &t->shape, t->buf, t->data, t->nbytes);
  tfs_tensor_free(t);
  tfs_status_clear(st);
}

/* ---- exported TF_TString functions (the inline helpers' behaviour) ------- */

void TF_StringInit(TF_TString *t) { TF_TString_Init(t); }

void TF_StringCopy(TF_TString *dst, const char *src, size_t size) {
  TF_TString_Copy(dst, src, size);
}

void TF_StringAssignView(TF_TString *dst, const char *src, size_t size) {
  TF_TString_AssignView(dst, src, size);
}

const char *TF_StringGetDataPointer(const TF_TString *tstr) {
  return TF_TString_GetDataPointer(tstr);
}

TF_TString_Type TF_StringGetType(const TF_TString *str) {
  return TF_TString_GetType(str);
}

size_t TF_StringGetSize(const TF_TString *tstr) {
  return TF_TString_GetSize(tstr);
}

size_t TF_StringGetCapacity(const TF_TString *str) {
  return TF_TString_GetCapacity(str);
}

void TF_StringDealloc(TF_TString *tstr) { TF_TString_Dealloc(tstr); }
