/*
 * graph_builder/tensor_proto.h - TensorProto and TensorShapeProto to and
 * from tensors and shapes, with TensorFlow's decoding rules: raw
 * tensor_content or one typed *_val list, a short list filled out with
 * its last value (an empty one gives zeros), packed or unpacked.
 */
#ifndef TFS_GRAPH_BUILDER_TENSOR_PROTO_H
#define TFS_GRAPH_BUILDER_TENSOR_PROTO_H

#include "config_proto/pb_util.h"
#include "core/shape.h"
#include "core/tensor.h"
#include "proto/tensor.pb-c.h"
#include "proto/tensor_shape.pb-c.h"

/* A *_val list is expanded to at most this many bytes: a few bytes of
 * proto must not allocate terabytes.  tensor_content is not limited (its
 * size is bounded by the input). */
#define TFS_TENSOR_PROTO_MAX_EXPANDED_BYTES ((int64_t)1 << 32)

/* A shape from its proto.  partial != 0: a partial shape (unknown rank
 * and -1 dims allowed: attrs); 0: a tensor's shape (every dim >= 0; an
 * unknown_rank flag is ignored as TensorFlow ignores it).  NULL `p` is a
 * scalar.  Errors are TensorFlow's ("Shape [-3] is not fully defined",
 * "Shape [...] is too large (more than 2**63 - 1 entries)", "An unknown
 * shape must not have any dimensions set.", ...). */
int tfs_shape__from_proto(const Tensorflow__TensorShapeProto *p, int partial,
                          tfs_shape *out, tfs_status *st);

/* A new TensorShapeProto for `s` (unknown rank: unknown_rank set; -1
 * dims kept), allocated in `a`; NULL when memory runs out. */
Tensorflow__TensorShapeProto *tfs_shape__to_proto(const tfs_shape *s,
                                                  tfs_pb_arena *a);

/* A new tensor (caller frees) from a TensorProto.  Every dtype tfsess
 * holds: the numeric types, bool, half/bfloat16 (half_val), complex,
 * string (string_val, or tensor_content in TensorFlow's string-list
 * encoding) and resource handles.  Errors: INVALID_ARGUMENT "Cannot parse
 * tensor from proto: ..." naming what is wrong (dtype, tensor_content size
 * against dtype x shape, a too large expansion), or a shape error as
 * above; RESOURCE_EXHAUSTED. */
tfs_tensor *tfs_tensor__from_proto(const Tensorflow__TensorProto *p,
                                   tfs_status *st);

/* A new TensorProto for `t`, allocated in `a`.  It borrows t's element
 * memory: pack it while `t` and `a` live.  As TensorFlow writes them:
 * the typed *_val field for a single element, tensor_content for
 * numeric tensors of two or more elements, string_val for strings; a
 * tensor ending in a long run of one value (a splat) is written as the
 * typed values up to that run, as TensorFlow compresses constants.
 * NULL with an error for ref dtypes or when memory runs out. */
Tensorflow__TensorProto *tfs_tensor__to_proto(const tfs_tensor *t,
                                              tfs_pb_arena *a,
                                              tfs_status *st);

/* Serialized forms (for the TF C API).  "Unparseable TensorProto" /
 * "Unparseable TensorShapeProto" for bytes that do not parse.  The
 * serializers fill the empty buffer `out` (tfs_buffer_free releases). */
tfs_tensor *tfs_tensor__parse_proto(const void *data, size_t len,
                                    tfs_status *st);
int tfs_tensor__serialize_proto(const tfs_tensor *t, tfs_buffer *out,
                                tfs_status *st);
int tfs_shape__parse_proto(const void *data, size_t len, tfs_shape *out,
                           tfs_status *st);
int tfs_shape__serialize_proto(const tfs_shape *s, tfs_buffer *out,
                               tfs_status *st);

/* TensorFlow's text of a shape proto in messages: "[2,?,-3]",
 * "<unknown>"; at most 32 dims are printed.  Into buf; returns buf. */
const char *tfs_shape_proto__str(const Tensorflow__TensorShapeProto *p,
                                 char *buf, size_t cap);

#endif
