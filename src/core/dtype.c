/*
 * core/dtype.c - dtype sizes and names, with TensorFlow's spelling.
 */
#include "tfsess/dtype.h"

#include <string.h>

typedef struct {
  const char *name;      /* DataTypeString */
  const char *enum_name; /* DT_... */
  const char *ref_name;  /* name_ref */
  size_t size;
} dtype_info;

static const dtype_info kInfo[] = {
    [TFS_INVALID] = {"invalid", "DT_INVALID", "invalid_ref", 0},
    [TFS_FLOAT] = {"float", "DT_FLOAT", "float_ref", 4},
    [TFS_DOUBLE] = {"double", "DT_DOUBLE", "double_ref", 8},
    [TFS_INT32] = {"int32", "DT_INT32", "int32_ref", 4},
    [TFS_UINT8] = {"uint8", "DT_UINT8", "uint8_ref", 1},
    [TFS_INT16] = {"int16", "DT_INT16", "int16_ref", 2},
    [TFS_INT8] = {"int8", "DT_INT8", "int8_ref", 1},
    [TFS_STRING] = {"string", "DT_STRING", "string_ref", 0},
    [TFS_COMPLEX64] = {"complex64", "DT_COMPLEX64", "complex64_ref", 8},
    [TFS_INT64] = {"int64", "DT_INT64", "int64_ref", 8},
    [TFS_BOOL] = {"bool", "DT_BOOL", "bool_ref", 1},
    [TFS_QINT8] = {"qint8", "DT_QINT8", "qint8_ref", 1},
    [TFS_QUINT8] = {"quint8", "DT_QUINT8", "quint8_ref", 1},
    [TFS_QINT32] = {"qint32", "DT_QINT32", "qint32_ref", 4},
    [TFS_BFLOAT16] = {"bfloat16", "DT_BFLOAT16", "bfloat16_ref", 2},
    [TFS_QINT16] = {"qint16", "DT_QINT16", "qint16_ref", 2},
    [TFS_QUINT16] = {"quint16", "DT_QUINT16", "quint16_ref", 2},
    [TFS_UINT16] = {"uint16", "DT_UINT16", "uint16_ref", 2},
    [TFS_COMPLEX128] = {"complex128", "DT_COMPLEX128", "complex128_ref", 16},
    [TFS_HALF] = {"half", "DT_HALF", "half_ref", 2},
    [TFS_RESOURCE] = {"resource", "DT_RESOURCE", "resource_ref", 0},
    [TFS_VARIANT] = {"variant", "DT_VARIANT", "variant_ref", 0},
    [TFS_UINT32] = {"uint32", "DT_UINT32", "uint32_ref", 4},
    [TFS_UINT64] = {"uint64", "DT_UINT64", "uint64_ref", 8},
};

#define N_INFO ((int)(sizeof(kInfo) / sizeof(kInfo[0])))

int tfs_dtype_is_valid(tfs_dtype dt) {
  int v = (int)dt;
  if (v > TFS_DTYPE_REF_OFFSET) v -= TFS_DTYPE_REF_OFFSET;
  return v > 0 && v < N_INFO;
}

int tfs_dtype_is_ref(tfs_dtype dt) {
  return (int)dt > TFS_DTYPE_REF_OFFSET &&
         (int)dt < TFS_DTYPE_REF_OFFSET + N_INFO;
}

tfs_dtype tfs_dtype_base(tfs_dtype dt) {
  return tfs_dtype_is_ref(dt) ? (tfs_dtype)(dt - TFS_DTYPE_REF_OFFSET) : dt;
}

size_t tfs_dtype_size(tfs_dtype dt) {
  if (!tfs_dtype_is_valid(dt)) return 0;
  return kInfo[tfs_dtype_base(dt)].size;
}

const char *tfs_dtype_name(tfs_dtype dt) {
  if (!tfs_dtype_is_valid(dt)) return "invalid";
  if (tfs_dtype_is_ref(dt)) return kInfo[tfs_dtype_base(dt)].ref_name;
  return kInfo[dt].name;
}

const char *tfs_dtype_enum_name(tfs_dtype dt) {
  static const char *const ref_names[] = {
      "DT_INVALID_REF",  "DT_FLOAT_REF",   "DT_DOUBLE_REF",
      "DT_INT32_REF",    "DT_UINT8_REF",   "DT_INT16_REF",
      "DT_INT8_REF",     "DT_STRING_REF",  "DT_COMPLEX64_REF",
      "DT_INT64_REF",    "DT_BOOL_REF",    "DT_QINT8_REF",
      "DT_QUINT8_REF",   "DT_QINT32_REF",  "DT_BFLOAT16_REF",
      "DT_QINT16_REF",   "DT_QUINT16_REF", "DT_UINT16_REF",
      "DT_COMPLEX128_REF", "DT_HALF_REF",  "DT_RESOURCE_REF",
      "DT_VARIANT_REF",  "DT_UINT32_REF",  "DT_UINT64_REF"};
  if (!tfs_dtype_is_valid(dt)) return "DT_INVALID";
  if (tfs_dtype_is_ref(dt)) return ref_names[tfs_dtype_base(dt)];
  return kInfo[dt].enum_name;
}

tfs_dtype tfs_dtype_from_name(const char *name) {
  if (!name) return TFS_INVALID;
  for (int i = 1; i < N_INFO; i++) {
    if (strcmp(name, kInfo[i].name) == 0 ||
        strcmp(name, kInfo[i].enum_name) == 0)
      return (tfs_dtype)i;
    if (strcmp(name, kInfo[i].ref_name) == 0)
      return (tfs_dtype)(i + TFS_DTYPE_REF_OFFSET);
  }
  if (strcmp(name, "float32") == 0) return TFS_FLOAT;
  if (strcmp(name, "float64") == 0) return TFS_DOUBLE;
  if (strcmp(name, "float16") == 0) return TFS_HALF;
  return TFS_INVALID;
}
