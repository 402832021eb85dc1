/*
 * core/ragged_variant.h - TensorFlow's RaggedTensorVariant, the DT_VARIANT
 * value RaggedTensorToVariant writes and RaggedTensorFromVariant reads
 * (what tf.map_fn passes a ragged tensor's rows around as): the nested
 * row splits of some ragged rank (0: a dense tensor) and the flat values.
 *
 * The component tensors are shared by reference and never written after
 * they enter a value (they are copied out of run arenas first); a value is
 * immutable once made, so it is shared freely (core/variant.h).
 */
#ifndef TFS_CORE_RAGGED_VARIANT_H
#define TFS_CORE_RAGGED_VARIANT_H

#include "core/tensor.h"
#include "core/variant.h"

typedef struct tfs_ragged_variant {
  tfs_variant base;  /* first: the value is a variant */
  int ragged_rank;
  tfs_tensor **splits; /* ragged_rank tensors (int32 or int64) */
  tfs_tensor *values;
} tfs_ragged_variant;

/* The variant type ("tensorflow::RaggedTensorVariant"). */
extern const tfs_variant_type tfs_ragged_variant_type;

/* A new value of `ragged_rank` splits (one reference) taking the caller's
 * references to splits[0..ragged_rank) and values, which must stay
 * valid after the run (see tfs_tensor__retainable).  NULL on OOM (the
 * tensors released). */
tfs_ragged_variant *tfs_ragged_variant_new(int ragged_rank,
                                           tfs_tensor **splits,
                                           tfs_tensor *values,
                                           tfs_status *st);

/* The value variant element `v` holds, or NULL when it is not one. */
tfs_ragged_variant *tfs_ragged_variant_of(tfs_variant *v);

#endif
