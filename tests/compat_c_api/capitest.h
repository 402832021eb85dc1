/*
 * tests/compat_c_api/capitest.h - what the TensorFlow C API suites share:
 * assertions on a TF_Status and graph helpers written with TF_* calls
 * only, the way C API programs build graphs.
 */
#ifndef TFS_TESTS_CAPITEST_H
#define TFS_TESTS_CAPITEST_H

#include <CUnit/CUnit.h>
#include <stdio.h>
#include <string.h>

#include <tensorflow/c/c_api.h>
#include <tensorflow/c/eager/c_api.h>

#include "testutil.h"

/* Fails (fatally) unless s is OK, printing the message. */
#define CT_ASSERT_OK(s)                                                    \
  do {                                                                     \
    if (TF_GetCode(s) != TF_OK)                                            \
      fprintf(stderr, "\n  %s:%d: unexpected error %d: %s\n", __FILE__,    \
              __LINE__, (int)TF_GetCode(s), TF_Message(s));                \
    CU_ASSERT_EQUAL_FATAL(TF_GetCode(s), TF_OK);                           \
  } while (0)

/* Asserts the code and the exact message. */
#define CT_ASSERT_STATUS(s, code, expected)                                \
  do {                                                                     \
    int ok_ = TF_GetCode(s) == (code) &&                                   \
              strcmp(TF_Message(s), (expected)) == 0;                      \
    if (!ok_)                                                              \
      fprintf(stderr,                                                      \
              "\n  %s:%d: expected %d \"%s\"\n            got %d \"%s\"\n",\
              __FILE__, __LINE__, (int)(code), (expected),                 \
              (int)TF_GetCode(s), TF_Message(s));                          \
    CU_ASSERT_TRUE(ok_);                                                   \
  } while (0)

/* Asserts the code and that the message starts with `prefix`. */
#define CT_ASSERT_PREFIX(s, code, prefix)                                  \
  do {                                                                     \
    int ok_ = TF_GetCode(s) == (code) &&                                   \
              strncmp(TF_Message(s), (prefix), strlen(prefix)) == 0;       \
    if (!ok_)                                                              \
      fprintf(stderr,                                                      \
              "\n  %s:%d: expected %d \"%s...\"\n            got %d \"%s\"\n",\
              __FILE__, __LINE__, (int)(code), (prefix),                   \
              (int)TF_GetCode(s), TF_Message(s));                          \
    CU_ASSERT_TRUE(ok_);                                                   \
  } while (0)

/* A Placeholder; ndims -2 leaves out the shape attr (unknown rank). */
TF_Operation *ct_placeholder(TF_Graph *g, const char *name, TF_DataType dt,
                             const int64_t *dims, int ndims);
/* A float / int32 Const of the given shape. */
TF_Operation *ct_const_floats(TF_Graph *g, const char *name,
                              const float *values, const int64_t *dims,
                              int ndims);
TF_Operation *ct_const_int32s(TF_Graph *g, const char *name,
                              const int32_t *values, const int64_t *dims,
                              int ndims);
TF_Operation *ct_scalar_float(TF_Graph *g, const char *name, float v);
/* An op with one or two inputs and attrs inferred from them. */
TF_Operation *ct_unary(TF_Graph *g, const char *type, const char *name,
                       TF_Operation *x);
TF_Operation *ct_binary(TF_Graph *g, const char *type, const char *name,
                        TF_Operation *x, TF_Operation *y);
/* New tensors (caller deletes). */
TF_Tensor *ct_floats(const int64_t *dims, int ndims, const float *values);
TF_Tensor *ct_int32s(const int64_t *dims, int ndims, const int32_t *values);
TF_Tensor *ct_strings(const int64_t *dims, int ndims, const char *const *s,
                      const size_t *lens);
/* A file of the source tree (relative to it) in a new buffer, or NULL. */
TF_Buffer *ct_read_file(const char *relpath);
/* Runs one fetch with feeds and returns it, asserting success. */
TF_Tensor *ct_run1(TF_Session *s, TF_Output fetch, const TF_Output *feeds,
                   TF_Tensor *const *values, int nfeeds);

#endif
