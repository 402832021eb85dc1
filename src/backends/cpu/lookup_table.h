/*
 * backends/cpu/lookup_table.h - the hash table behind TensorFlow's lookup
 * table ops: scalar keys (string, int32, int64) to scalar values (string,
 * int32, int64, float, double, bool).  Two kinds, as TensorFlow's:
 * HashTable, filled once by an initializer and read-only after, and
 * MutableHashTable, changed by insert, remove and import.  Every function
 * locks the table; a table lives in the session's resource manager.
 */
#ifndef TFS_BACKENDS_CPU_LOOKUP_TABLE_H
#define TFS_BACKENDS_CPU_LOOKUP_TABLE_H

#include "core/status.h"
#include "core/tensor.h"

typedef enum {
  TFS_TABLE_HASH = 0,    /* HashTableV2: initialised once, read-only */
  TFS_TABLE_MUTABLE = 1  /* MutableHashTableV2 */
} tfs_table_kind;

typedef struct tfs_lookup_table tfs_lookup_table;

/* An empty table (uninitialised for TFS_TABLE_HASH); NULL on OOM. */
tfs_lookup_table *tfs_table__new(tfs_table_kind kind, tfs_dtype key_dtype,
                                 tfs_dtype value_dtype);
/* Frees a table and its entries (a resource manager free function). */
void tfs_table__free(void *table);

tfs_table_kind tfs_table__kind(const tfs_lookup_table *t);
tfs_dtype tfs_table__key_dtype(const tfs_lookup_table *t);
tfs_dtype tfs_table__value_dtype(const tfs_lookup_table *t);
int tfs_table__initialized(tfs_lookup_table *t);
int64_t tfs_table__size(tfs_lookup_table *t);

/* Writes the value of every key of `keys` into `out` (same element count,
 * the table's value dtype), default_value's element 0 for a missing key,
 * or its element i when it holds one per key (`per_key`). */
void tfs_table__find(tfs_lookup_table *t, const tfs_tensor *keys,
                     const tfs_tensor *default_value, int per_key,
                     tfs_tensor *out);

/* Adds keys[i] -> values[i] (dtypes the table's, same element count).
 * TFS_TABLE_MUTABLE: replaces existing values.  TFS_TABLE_HASH: a key
 * already present with another value fails with FAILED_PRECONDITION
 * ("HashTable has different value for same key. ..."), the entries added
 * before it kept.  Also -1 with RESOURCE_EXHAUSTED. */
int tfs_table__insert(tfs_lookup_table *t, const tfs_tensor *keys,
                      const tfs_tensor *values, tfs_status *st);

/* Adds one entry from text (the text-file initializer's fields, already
 * converted): key/value given as a string (is_str) or an int64/double.
 * Same rules as tfs_table__insert. */
typedef struct tfs_table_scalar {
  int64_t i;
  double d;
  const char *s;
  size_t len;
} tfs_table_scalar;
int tfs_table__insert_one(tfs_lookup_table *t, const tfs_table_scalar *key,
                          const tfs_table_scalar *value, tfs_status *st);

/* Removes the keys present (mutable tables). */
void tfs_table__remove(tfs_lookup_table *t, const tfs_tensor *keys);

/* Empties the table (import into a mutable table; a failed
 * initialisation). */
void tfs_table__clear(tfs_lookup_table *t);

/* Marks a HashTable initialised. */
void tfs_table__set_initialized(tfs_lookup_table *t);

/* The entries as two new vectors of the table's dtypes, in the table's
 * order.  -1 with RESOURCE_EXHAUSTED. */
int tfs_table__export(tfs_lookup_table *t, tfs_tensor **keys,
                      tfs_tensor **values, tfs_status *st);

/* Serialises initialisation: a HashTable initializer holds this while it
 * checks and fills the table (the table's other calls lock inside). */
void tfs_table__lock_init(tfs_lookup_table *t);
void tfs_table__unlock_init(tfs_lookup_table *t);

#endif
