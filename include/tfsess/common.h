/*
 * tfsess/common.h - export macros, C++ guards and the library version.
 *
 * Every public header includes this one.  Nothing here allocates.
 */
#ifndef TFSESS_COMMON_H
#define TFSESS_COMMON_H

#include <stddef.h>
#include <stdint.h>

#if defined(_WIN32)
#define TFS_API __declspec(dllexport)
#elif defined(__GNUC__) && __GNUC__ >= 4
#define TFS_API __attribute__((visibility("default")))
#else
#define TFS_API
#endif

#ifdef __cplusplus
#define TFS_BEGIN_DECLS extern "C" {
#define TFS_END_DECLS }
#else
#define TFS_BEGIN_DECLS
#define TFS_END_DECLS
#endif

#define TFS_VERSION_MAJOR 0
#define TFS_VERSION_MINOR 1
#define TFS_VERSION_PATCH 0
#define TFS_VERSION_STRING "0.1.0"

/* The TensorFlow release whose behaviour, wire formats and C API tfsess
 * mirrors. */
#define TFS_TF_VERSION_STRING "2.21.0"

TFS_BEGIN_DECLS

/* Returns the library version ("0.1.0"), a static string.  Thread-safe. */
TFS_API const char *tfs_version(void);

TFS_END_DECLS

#endif /* TFSESS_COMMON_H */
