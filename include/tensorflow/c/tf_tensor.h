/*
 * tensorflow/c/tf_tensor.h - tfsess's TensorFlow C API compatibility
 * layer: TF_Tensor, a dtype, a shape and a buffer (tfsess's reference
 * counted tensor), and TensorFlow's rules for wrapping caller memory.
 * Also the legacy (TensorFlow < 2.4) string encoding functions.
 */
#ifndef TENSORFLOW_C_TF_TENSOR_H_
#define TENSORFLOW_C_TF_TENSOR_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tensorflow/c/c_api_macros.h"
#include "tensorflow/c/tf_datatype.h"
#include "tensorflow/c/tf_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Where a kernel wants its memory (kernel API; kept for the layout). */
typedef struct TF_AllocatorAttributes {
  size_t struct_size;
  TF_Bool on_host;
} TF_AllocatorAttributes;

#define TF_ALLOCATOR_ATTRIBUTES_STRUCT_SIZE \
  TF_OFFSET_OF_END(TF_AllocatorAttributes, on_host)

typedef struct TF_Tensor TF_Tensor;

/* Wraps data[0..len) as a tensor of `dims` without copying.  Returns NULL
 * when len is smaller than TF_DataTypeSize(dtype) times the element count
 * (the deallocator is still called then, as TensorFlow calls it).  When
 * `data` is not aligned to TF_TensorDefaultAlignment() it is copied into
 * an aligned buffer and deallocator(data, len, deallocator_arg) is called
 * before TF_NewTensor returns; otherwise the deallocator runs exactly
 * once, when the tensor is deleted.  For TF_STRING, `data` is an array of
 * TF_TString that the tensor reads but never deallocates. */
TF_CAPI_EXPORT extern TF_Tensor* TF_NewTensor(
    TF_DataType, const int64_t* dims, int num_dims, void* data, size_t len,
    void (*deallocator)(void* data, size_t len, void* arg),
    void* deallocator_arg);

/* The alignment TF_AllocateTensor gives and TF_NewTensor expects. */
TF_CAPI_EXPORT extern size_t TF_TensorDefaultAlignment(void);

/* A new tensor with uninitialised (numeric) or empty (TF_STRING)
 * elements; dims NULL and num_dims 0 make a scalar.  `len` is the byte
 * size the caller expects.  Free it with TF_DeleteTensor. */
TF_CAPI_EXPORT extern TF_Tensor* TF_AllocateTensor(TF_DataType,
                                                   const int64_t* dims,
                                                   int num_dims, size_t len);

/* Returns `tensor` when the caller holds its only reference (so its buffer
 * may be reused), else NULL. */
TF_CAPI_EXPORT extern TF_Tensor* TF_TensorMaybeMove(TF_Tensor* tensor);

/* Releases the tensor.  Accepts NULL. */
TF_CAPI_EXPORT extern void TF_DeleteTensor(TF_Tensor*);

TF_CAPI_EXPORT extern TF_DataType TF_TensorType(const TF_Tensor*);

/* Gives the tensor a new shape with the same element count (ignored
 * otherwise). */
TF_CAPI_EXPORT extern void TF_SetShape(TF_Tensor* tensor, const int64_t* dims,
                                       int num_dims);

TF_CAPI_EXPORT extern int TF_NumDims(const TF_Tensor*);
TF_CAPI_EXPORT extern int64_t TF_Dim(const TF_Tensor* tensor, int dim_index);

/* Bytes of the buffer; for TF_STRING, sizeof(TF_TString) per element. */
TF_CAPI_EXPORT extern size_t TF_TensorByteSize(const TF_Tensor*);

/* The buffer, valid until the tensor is deleted. */
TF_CAPI_EXPORT extern void* TF_TensorData(const TF_Tensor*);

TF_CAPI_EXPORT extern int64_t TF_TensorElementCount(const TF_Tensor* tensor);

/* Makes `to` share `from`'s buffer as `type` and `new_dims`; the byte
 * sizes must agree (INVALID_ARGUMENT otherwise). */
TF_CAPI_EXPORT extern void TF_TensorBitcastFrom(const TF_Tensor* from,
                                                TF_DataType type, TF_Tensor* to,
                                                const int64_t* new_dims,
                                                int num_new_dims,
                                                TF_Status* status);

TF_CAPI_EXPORT extern bool TF_TensorIsAligned(const TF_Tensor*);

/* ---- legacy string encoding (TensorFlow < 2.4) ----------------------------
 * Before TF_TString, a TF_STRING tensor held a table of uint64 offsets
 * followed by each string as a varint length and its bytes.  These three
 * functions encode and decode one such string. */

/* Bytes needed to encode a string of `len` bytes (varint + bytes). */
TF_CAPI_EXPORT extern size_t TF_StringEncodedSize(size_t len);

/* Encodes src[0..src_len) into dst; returns the bytes written, or 0 with
 * INVALID_ARGUMENT when dst_len is too small. */
TF_CAPI_EXPORT extern size_t TF_StringEncode(const char* src, size_t src_len,
                                             char* dst, size_t dst_len,
                                             TF_Status* status);

/* Decodes one encoded string at src[0..src_len): *dst points into src,
 * *dst_len is the string's length; returns the bytes consumed, or 0 with
 * INVALID_ARGUMENT for malformed input (a length that runs past src_len
 * included). */
TF_CAPI_EXPORT extern size_t TF_StringDecode(const char* src, size_t src_len,
                                             const char** dst, size_t* dst_len,
                                             TF_Status* status);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TENSORFLOW_C_TF_TENSOR_H_ */
