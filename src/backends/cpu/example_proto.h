/*
 * backends/cpu/example_proto.h - a decoder of the tf.Example wire format
 * for the ParseExample kernels: Example {1: Features}, Features {1: map
 * <string, Feature>}, Feature {oneof 1: BytesList, 2: FloatList, 3:
 * Int64List}.  It accepts what TensorFlow's fast Example parser accepts
 * (example_proto_fast_parsing): several Features messages concatenated,
 * unknown fields skipped at the Example level only, map entries with both
 * key and value, lengths past their enclosing message clamped to it as a
 * protobuf CodedInputStream does; everything else is malformed.  Nothing
 * is copied: keys and features point into the serialized bytes.
 */
#ifndef TFS_BACKENDS_CPU_EXAMPLE_PROTO_H
#define TFS_BACKENDS_CPU_EXAMPLE_PROTO_H

#include <stddef.h>
#include <stdint.h>

#include "tfsess/dtype.h"

/* One feature map entry: its key and the Feature message's bytes. */
typedef struct tfs_ex_entry {
  const char *key;
  size_t klen;
  const uint8_t *feat;
  size_t flen;
} tfs_ex_entry;

/* The entries of one Example, in wire order (later duplicates win). */
typedef struct tfs_ex_entries {
  tfs_ex_entry *v;
  size_t n, cap;
} tfs_ex_entries;

/* Parses the Example p[0..n) into e (reset first; its storage is reused
 * between calls).  0, 1 when malformed, -1 when memory ran out. */
int tfs_ex_parse(const uint8_t *p, size_t n, tfs_ex_entries *e);
void tfs_ex_entries_free(tfs_ex_entries *e);

/* The Feature's kind: TFS_STRING, TFS_FLOAT, TFS_INT64, TFS_INVALID for
 * an empty Feature; -1 for a first byte naming no list ("Unsupported
 * datatype."). */
int tfs_ex_feature_dtype(const uint8_t *f, size_t n, tfs_dtype *dt);

/* Where a list's values go.  A fixed sink writes the first `cap` values
 * into `data` and counts them all; a growing sink appends every value
 * (reallocating `data`).  Strings are stored as tfs_ex_str views into the
 * serialized bytes. */
typedef struct tfs_ex_str {
  const char *p;
  size_t n;
} tfs_ex_str;

typedef struct tfs_ex_sink {
  void *data;
  size_t len;   /* values stored (growing) */
  size_t cap;   /* capacity in values */
  size_t count; /* values seen in this list (fixed: may exceed cap) */
  int growing;
} tfs_ex_sink;

/* Decodes the Feature's list of dtype dt (its kind, already checked) into
 * s.  0, 1 when malformed, -1 when memory ran out.  s->count is the
 * number of values this list held. */
int tfs_ex_read_list(const uint8_t *f, size_t n, tfs_dtype dt,
                     tfs_ex_sink *s);

/* The byte size of one value of a sink of dtype dt. */
size_t tfs_ex_value_size(tfs_dtype dt);

#endif
