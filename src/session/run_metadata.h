/*
 * session/run_metadata.h - RunOptions bytes in, RunMetadata bytes out
 * (TensorFlow's config.proto and step_stats.proto field numbers).
 */
#ifndef TFS_SESSION_RUN_METADATA_H
#define TFS_SESSION_RUN_METADATA_H

#include "session/step_stats.h"
#include "tfsess/buffer.h"
#include "tfsess/status.h"

/* Parses RunOptions bytes (len 0: defaults), refusing messages nested
 * deeper than max_depth (see tfs_pb__unpack_nested).  INVALID_ARGUMENT
 * "Unparseable RunOptions proto" when they do not parse. */
int tfs_run_options__parse(const void *data, size_t len, int max_depth,
                           tfs_run_options *out, tfs_status *st);

/* Serializes RunMetadata with `stats` as its step_stats (NULL: an empty
 * RunMetadata) into the empty buffer `out`. */
int tfs_run_metadata__serialize(const tfs_step_stats *stats, tfs_buffer *out,
                                tfs_status *st);

#endif
