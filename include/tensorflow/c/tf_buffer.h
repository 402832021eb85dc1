/*
 * tensorflow/c/tf_buffer.h - tfsess's TensorFlow C API compatibility
 * layer: TF_Buffer, a public struct carrying serialized protos in and out.
 * Callers may fill its three fields themselves; TF_DeleteBuffer calls
 * data_deallocator(data, length) when it is set.
 */
#ifndef TENSORFLOW_C_TF_BUFFER_H_
#define TENSORFLOW_C_TF_BUFFER_H_

#include <stddef.h>

#include "tensorflow/c/c_api_macros.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct TF_Buffer {
  const void* data;
  size_t length;
  void (*data_deallocator)(void* data, size_t length);
} TF_Buffer;

/* A new buffer holding a copy of proto[0..proto_len); free it with
 * TF_DeleteBuffer. */
TF_CAPI_EXPORT extern TF_Buffer* TF_NewBufferFromString(const void* proto,
                                                        size_t proto_len);

/* A new empty buffer {NULL, 0, NULL}, for functions that write a proto
 * into it. */
TF_CAPI_EXPORT extern TF_Buffer* TF_NewBuffer(void);

/* Calls data_deallocator when set, then frees the struct.  Accepts NULL. */
TF_CAPI_EXPORT extern void TF_DeleteBuffer(TF_Buffer*);

/* The struct by value. */
TF_CAPI_EXPORT extern TF_Buffer TF_GetBuffer(TF_Buffer* buffer);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TENSORFLOW_C_TF_BUFFER_H_ */
