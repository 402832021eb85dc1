/*
 * tensorflow/c/c_api_macros.h - tfsess's TensorFlow C API compatibility
 * layer: the export macro every TF_ and TFE_ declaration carries, and the
 * two helper macros TensorFlow's C headers define next to it.
 */
#ifndef TENSORFLOW_C_C_API_MACROS_H_
#define TENSORFLOW_C_C_API_MACROS_H_

#include <stddef.h>

#if defined(SWIG)
#define TF_CAPI_EXPORT
#elif defined(_WIN32)
#if defined(TF_COMPILE_LIBRARY)
#define TF_CAPI_EXPORT __declspec(dllexport)
#else
#define TF_CAPI_EXPORT __declspec(dllimport)
#endif
#elif defined(TF_CAPI_WEAK)
#define TF_CAPI_EXPORT \
  __attribute__((visibility("default"))) __attribute__((weak))
#else
#define TF_CAPI_EXPORT __attribute__((visibility("default")))
#endif

/* A one-byte boolean for structs shared across the C boundary. */
#ifndef TF_Bool
#define TF_Bool unsigned char
#endif

/* The byte offset just past MEMBER in TYPE (for struct_size fields). */
#ifndef TF_OFFSET_OF_END
#define TF_OFFSET_OF_END(TYPE, MEMBER) \
  (offsetof(TYPE, MEMBER) + sizeof(((TYPE *)0)->MEMBER))
#endif

#endif /* TENSORFLOW_C_C_API_MACROS_H_ */
