/*
 * tfsess/dtype.h - element types.  Values equal TensorFlow's DataType enum
 * (types.proto), so GraphDef bytes and TF C API values need no mapping.
 * A `_REF` type (base + 100) only appears on graph edges of TF1 variables.
 */
#ifndef TFSESS_DTYPE_H
#define TFSESS_DTYPE_H

#include "common.h"

TFS_BEGIN_DECLS

typedef enum tfs_dtype {
  TFS_INVALID = 0,
  TFS_FLOAT = 1,
  TFS_DOUBLE = 2,
  TFS_INT32 = 3,
  TFS_UINT8 = 4,
  TFS_INT16 = 5,
  TFS_INT8 = 6,
  TFS_STRING = 7,
  TFS_COMPLEX64 = 8,
  TFS_INT64 = 9,
  TFS_BOOL = 10,
  TFS_QINT8 = 11,
  TFS_QUINT8 = 12,
  TFS_QINT32 = 13,
  TFS_BFLOAT16 = 14,
  TFS_QINT16 = 15,
  TFS_QUINT16 = 16,
  TFS_UINT16 = 17,
  TFS_COMPLEX128 = 18,
  TFS_HALF = 19,
  TFS_RESOURCE = 20,
  TFS_VARIANT = 21,
  TFS_UINT32 = 22,
  TFS_UINT64 = 23,
  TFS_DTYPE_REF_OFFSET = 100
} tfs_dtype;

/* Bytes per element; 0 for variable-size types (string, resource,
 * variant) and for unknown values.  Ref types report their base size. */
TFS_API size_t tfs_dtype_size(tfs_dtype dt);

/* TensorFlow's DataTypeString: "float", "int32", "float_ref", ...;
 * "invalid" for values this build does not know.  Static string. */
TFS_API const char *tfs_dtype_name(tfs_dtype dt);

/* The enum name TensorFlow prints in attr summaries: "DT_FLOAT". */
TFS_API const char *tfs_dtype_enum_name(tfs_dtype dt);

/* Non-zero for the values this build knows (1-23 and their refs). */
TFS_API int tfs_dtype_is_valid(tfs_dtype dt);

/* Non-zero for a `_REF` type. */
TFS_API int tfs_dtype_is_ref(tfs_dtype dt);

/* The type without its `_REF`. */
TFS_API tfs_dtype tfs_dtype_base(tfs_dtype dt);

/* Parses "float", "DT_FLOAT", "int32" ...; TFS_INVALID if unknown. */
TFS_API tfs_dtype tfs_dtype_from_name(const char *name);

TFS_END_DECLS

#endif /* TFSESS_DTYPE_H */
