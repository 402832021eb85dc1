/*
 * config_proto/pb_text_internal.h - what the text-format parser
 * (pb_text.c) takes from the type tables (pb_text_types.c).
 */
#ifndef TFS_CONFIG_PROTO_PB_TEXT_INTERNAL_H
#define TFS_CONFIG_PROTO_PB_TEXT_INTERNAL_H

#include <protobuf-c/protobuf-c.h>

/* The name of the oneof that `field` (a member, flag
 * PROTOBUF_C_FIELD_FLAG_ONEOF) of message type `desc` belongs to, as the
 * .proto file names it; "oneof" for a type the table does not list. */
const char *tfs_pb__oneof_name(const ProtobufCMessageDescriptor *desc,
                               const ProtobufCFieldDescriptor *field);

#endif
