/*
 * graph_builder/attr_proto.h - AttrValue / NameAttrList protos to and from
 * tfs_attr_value, for GraphDef import and export and the TF C API's
 * AttrValue-proto functions.
 */
#ifndef TFS_GRAPH_BUILDER_ATTR_PROTO_H
#define TFS_GRAPH_BUILDER_ATTR_PROTO_H

#include "config_proto/pb_util.h"
#include "core/attr_value.h"
#include "ops/op_def.h"
#include "proto/attr_value.pb-c.h"

/* Converts `p` into *out (which the caller clears).  `def` (may be NULL)
 * is the op's definition of the attr: an empty list (`list {}`) carries
 * no element kind, so it takes def's; without def it becomes
 * list(string).  Returns 0, 1 when `p` holds no value and `def` is NULL
 * (nothing to keep: the caller skips the attr), or -1 with
 * INVALID_ARGUMENT ("AttrValue missing value with expected type 'int'",
 * a list mixing kinds, a bad shape or tensor) or RESOURCE_EXHAUSTED. */
int tfs_attr_value__from_proto(const Tensorflow__AttrValue *p,
                               const tfs_attr_def *def, tfs_attr_value *out,
                               tfs_status *st);

/* A new AttrValue for `v`, allocated in `a`; it borrows v's strings and
 * tensor memory (pack it while `v` and `a` live).  NULL with an error
 * when memory runs out. */
Tensorflow__AttrValue *tfs_attr_value__to_proto(const tfs_attr_value *v,
                                                tfs_pb_arena *a,
                                                tfs_status *st);

/* Serialized AttrValue bytes.  Parsing: "Unparseable AttrValue proto" for
 * bytes that do not parse; `def` as above.  Serializing: into the empty
 * buffer `out` (tfs_buffer_free releases). */
int tfs_attr_value__parse(const void *data, size_t len,
                          const tfs_attr_def *def, tfs_attr_value *out,
                          tfs_status *st);
int tfs_attr_value__serialize(const tfs_attr_value *v, tfs_buffer *out,
                              tfs_status *st);

/* Text of an attr definition's kind: "int", "list(type)", ... */
const char *tfs_attr_def__type_string(const tfs_attr_def *def);

#endif
