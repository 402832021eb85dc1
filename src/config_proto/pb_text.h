/*
 * config_proto/pb_text.h - the protobuf text format (what TensorFlow's
 * saved_model.pbtxt, graph.pbtxt and Python's text_format.MessageToString
 * write) read into protobuf-c messages, for any message type tfsess
 * compiles.
 */
#ifndef TFS_CONFIG_PROTO_PB_TEXT_H
#define TFS_CONFIG_PROTO_PB_TEXT_H

#include <protobuf-c/protobuf-c.h>
#include <stddef.h>

#include "tfsess/buffer.h"
#include "tfsess/status.h"

/* Parses `len` bytes of text (need not be NUL-terminated) as a message of
 * type `desc` and returns it; free it with tfs_pb__free.
 *
 * The syntax is protobuf's TextFormat: `#` comments; `name: value` for
 * scalars; `name { ... }`, `name: { ... }` or `name < ... >` for messages;
 * repeated fields by repetition or as lists `name: [a, b]`; an optional
 * `,` or `;` after each field.  Integers are decimal, hex (0x) or octal
 * (leading 0), optionally negative, range-checked for the field's type;
 * floats take exponents, a trailing f, inf / infinity / nan in any case,
 * and integers; bools true / false / True / False / t / f / 1 / 0; enums
 * a name or a number (any number for proto3's open enums); strings and
 * bytes in single or double quotes with C escapes (octal, \x, \u and \U
 * as UTF-8), adjacent literals joined.  Map fields are repeated entries
 * `m { key: ... value: ... }`.  In a tensorflow.AnyValue (the stand-in
 * for google.protobuf.Any) `[type.googleapis.com/tensorflow.X] { ... }`
 * parses the block as tensorflow.X, packs it into `value` and sets
 * `type_url`; X must be a message type tfsess compiles.
 *
 * As protobuf does, a non-repeated field given twice, a second member of
 * a oneof, and messages nested deeper than TFS_PB_MAX_DEPTH are errors.
 * Strings are C strings: a \0 escape in a string field cuts it short
 * (bytes fields keep every byte).
 *
 * skip_fields is NULL or a NULL-terminated list of fully qualified field
 * names ("tensorflow.MetaGraphDef.object_graph_def") that tfsess's schemas
 * do not model: their values are checked for syntax and dropped.  Any
 * other unknown field name is an error.
 *
 * On failure returns NULL with INVALID_ARGUMENT "LINE:COLUMN: problem"
 * (1-based, tabs advancing to the next multiple of 8 as protobuf counts
 * them) worded as protobuf's parser words it, e.g. `3:5: Message type
 * "tensorflow.SavedModel" has no field named "foo".`, or with
 * RESOURCE_EXHAUSTED when memory runs out. */
ProtobufCMessage *tfs_pb__parse_text(const ProtobufCMessageDescriptor *desc,
                                     const char *text, size_t len,
                                     const char *const *skip_fields,
                                     tfs_status *st);

/* Writes `m` in the text format into the empty buffer `out` (freed by
 * tfs_buffer_free), byte for byte as Python's
 * text_format.MessageToString(m) writes it: the fields that are set (for
 * proto3 scalars, not zero / empty; oneof members when they are the
 * case) in field-number order, `name: value` or `name {` ... `}`, two
 * spaces of indentation per level, one field per line; strings and bytes
 * in double quotes, escaped as protobuf's CEscape escapes them (\n \r
 * \t \" \' \\ by name, other bytes below 32 or from 127 up as three
 * octal digits); float fields with the fewest digits (six at least) that
 * read back as the same float and doubles with the fewest that read back
 * exactly, written as Python writes a float ("1.0", "1e-05", "inf",
 * "nan"); enums by name (an unknown value as its number); map fields as
 * `key` / `value` entries sorted by key; a tensorflow.AnyValue whose type
 * tfsess compiles as `[type_url] { ... }`.  Unknown fields are left out.
 * Returns 0, or -1 with an error (non-empty buffer, out of memory,
 * nesting deeper than TFS_PB_MAX_DEPTH). */
int tfs_pb__print_text(const ProtobufCMessage *m, tfs_buffer *out,
                       tfs_status *st);

/* The message descriptor tfsess compiles whose full name (e.g.
 * "tensorflow.AssetFileDef") is `name` (`len` bytes), or NULL. */
const ProtobufCMessageDescriptor *tfs_pb__find_message(const char *name,
                                                       size_t len);

#endif
