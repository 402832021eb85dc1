/*
 * io/events.h - constants of the TensorBoard event writer (events.c),
 * shared with the tests and the command line tool.
 */
#ifndef TFS_IO_EVENTS_H
#define TFS_IO_EVENTS_H

#include "tfsess/io.h"

/* The first record's file_version: TensorBoard checks the "brain.Event:"
 * prefix. */
#define TFS_EVENTS_FILE_VERSION "brain.Event:2"

/* The tag tfs_events_write_graph gives a traced run's RunMetadata. */
#define TFS_EVENTS_RUN_TAG "tfsess.run"

/* The start of every event file's name inside its log directory. */
#define TFS_EVENTS_FILE_PREFIX "events.out.tfevents."

#endif /* TFS_IO_EVENTS_H */
