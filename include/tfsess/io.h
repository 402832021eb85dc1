/*
 * tfsess/io.h - tensors and logs on disk: NumPy .npy / .npz files,
 * TFRecord framing (masked CRC32C), TensorBoard event files and Chrome
 * trace JSON of a traced run.
 *
 * Every file is user input: a malformed one gives an error that names the
 * file and what is wrong, never a crash.  Paths are plain file names.
 */
#ifndef TFSESS_IO_H
#define TFSESS_IO_H

#include "buffer.h"
#include "common.h"
#include "graph.h"
#include "status.h"
#include "tensor.h"

TFS_BEGIN_DECLS

/* ---- .npy ------------------------------------------------------------------
 *
 * Reading accepts format versions 1.0, 2.0 and 3.0, little- and big-endian
 * data (swapped to the host order), C and Fortran order (Fortran data is
 * transposed to C order), the dtypes bool, int8..int64, uint8..uint64,
 * float16/32/64 and complex64/128, and byte strings ('S', read as a
 * TFS_STRING tensor with trailing NUL bytes removed, as NumPy does).
 * Unicode ('U'), object ('O'), structured and other dtypes are rejected.
 * Writing produces version 1.0 (2.0 for headers over 64 KiB), little-endian,
 * C order; bfloat16, resource and variant tensors cannot be written.
 */

/* Reads a whole .npy file.  Returns a new tensor (caller frees with
 * tfs_tensor_free), or NULL with NOT_FOUND (no such file), INVALID_ARGUMENT
 * (not a valid .npy file), UNIMPLEMENTED (a dtype tfsess cannot hold) or
 * DATA_LOSS (the data is shorter than the header says). */
TFS_API tfs_tensor *tfs_npy_read(const char *path, tfs_status *st);

/* Same for .npy bytes in memory; `name` is used in error messages (NULL:
 * "<buffer>").  Does not take ownership of `data`. */
TFS_API tfs_tensor *tfs_npy_read_buffer(const void *data, size_t len,
                                        const char *name, tfs_status *st);

/* Writes `t` to `path` (replacing it).  Does not take ownership. */
TFS_API void tfs_npy_write(const char *path, const tfs_tensor *t,
                           tfs_status *st);

/* Serializes `t` as .npy bytes into `out`, which must be empty; the bytes
 * are freed by tfs_buffer_free(out). */
TFS_API void tfs_npy_write_buffer(const tfs_tensor *t, tfs_buffer *out,
                                  tfs_status *st);

/* Row-wise reading of a large .npy file: only the header is read on open;
 * each read seeks to the rows it needs, so a file larger than memory can
 * be processed in pieces.  A "row" is one index of the first dimension. */
typedef struct tfs_npy_reader tfs_npy_reader;

/* Returns a new reader (caller frees with tfs_npy_reader_free), or NULL
 * with the errors of tfs_npy_read.  Byte strings are not supported here
 * (UNIMPLEMENTED); read them whole with tfs_npy_read. */
TFS_API tfs_npy_reader *tfs_npy_reader_open(const char *path, tfs_status *st);
TFS_API tfs_dtype tfs_npy_reader_dtype(const tfs_npy_reader *r);
TFS_API int tfs_npy_reader_ndims(const tfs_npy_reader *r);
/* Borrowed array of ndims sizes, valid while `r` lives. */
TFS_API const int64_t *tfs_npy_reader_dims(const tfs_npy_reader *r);

/* Returns a new tensor holding rows [start, start + count) (shape
 * [count, dims[1:]...]), caller frees.  OUT_OF_RANGE when the range is not
 * inside the file's first dimension, INVALID_ARGUMENT for a scalar file,
 * DATA_LOSS when the file turned out shorter than its header says. */
TFS_API tfs_tensor *tfs_npy_reader_read_rows(tfs_npy_reader *r, int64_t start,
                                             int64_t count, tfs_status *st);
/* Closes the file.  Accepts NULL. */
TFS_API void tfs_npy_reader_free(tfs_npy_reader *r);

/* Row-wise writing: rows are appended to the file as they come, and the
 * shape in the header is rewritten by tfs_npy_writer_close. */
typedef struct tfs_npy_writer tfs_npy_writer;

/* Creates (replaces) `path` for rows of `dtype` and shape
 * row_dims[0..nrow_dims) (the dims after the first; nrow_dims may be 0 for
 * a file of shape [rows]).  Numeric and bool dtypes only.  Returns a new
 * writer; finish it with tfs_npy_writer_close or drop it with
 * tfs_npy_writer_free. */
TFS_API tfs_npy_writer *tfs_npy_writer_open(const char *path, tfs_dtype dtype,
                                            const int64_t *row_dims,
                                            int nrow_dims, tfs_status *st);
/* Appends the rows of `rows` (rank nrow_dims + 1, same dtype and row
 * shape: INVALID_ARGUMENT naming the shapes otherwise).  Does not take
 * ownership. */
TFS_API void tfs_npy_writer_append(tfs_npy_writer *w, const tfs_tensor *rows,
                                   tfs_status *st);
/* Rows written so far. */
TFS_API int64_t tfs_npy_writer_rows(const tfs_npy_writer *w);
/* Writes the final shape into the header, closes the file and frees `w`
 * (also on error). */
TFS_API void tfs_npy_writer_close(tfs_npy_writer *w, tfs_status *st);
/* Closes and frees without finishing the header (the file then claims 0
 * rows).  Accepts NULL. */
TFS_API void tfs_npy_writer_free(tfs_npy_writer *w);

/* ---- .npz ------------------------------------------------------------------
 *
 * A zip archive of .npy files, as numpy.savez / savez_compressed write it.
 * Stored entries always work; deflated entries need a build with zlib
 * (UNIMPLEMENTED otherwise).  Zip64 records are understood.  Each entry's
 * CRC-32 is checked.
 */
typedef struct tfs_npz tfs_npz;

/* Reads every array of an .npz file.  Returns a new archive (caller frees
 * with tfs_npz_free), or NULL with an error naming the file and, for a bad
 * entry, the entry. */
TFS_API tfs_npz *tfs_npz_read(const char *path, tfs_status *st);
TFS_API int tfs_npz_count(const tfs_npz *z);
/* Name of array i without the ".npy" suffix ("x" for "x.npy").  Borrowed,
 * valid while `z` lives; NULL when i is out of range. */
TFS_API const char *tfs_npz_name(const tfs_npz *z, int i);
/* Array i, or the array named `name`.  Borrowed (valid while `z` lives;
 * take tfs_tensor_ref to keep it longer); NULL when absent. */
TFS_API tfs_tensor *tfs_npz_tensor(const tfs_npz *z, int i);
TFS_API tfs_tensor *tfs_npz_find(const tfs_npz *z, const char *name);
/* Accepts NULL. */
TFS_API void tfs_npz_free(tfs_npz *z);

/* Writes tensors[i] as names[i] + ".npy" into a new .npz at `path`;
 * `compress` non-zero deflates the entries (numpy.savez_compressed; needs
 * zlib: UNIMPLEMENTED otherwise).  Does not take ownership. */
TFS_API void tfs_npz_write(const char *path, const char *const *names,
                           const tfs_tensor *const *tensors, int n,
                           int compress, tfs_status *st);

/* ---- CRC32C and TFRecord framing -------------------------------------------
 *
 * A TFRecord file is records back to back, each: uint64 length (little
 * endian), uint32 masked CRC32C of those 8 bytes, the data, uint32 masked
 * CRC32C of the data.  TensorBoard event files use this framing.
 */

/* CRC32C (Castagnoli) of data[0..n): crc32c("123456789") == 0xE3069283. */
TFS_API uint32_t tfs_crc32c(const void *data, size_t n);
/* Continues a CRC32C: tfs_crc32c_extend(tfs_crc32c(a), b) is the CRC of
 * a followed by b; tfs_crc32c_extend(0, x) == tfs_crc32c(x). */
TFS_API uint32_t tfs_crc32c_extend(uint32_t crc, const void *data, size_t n);
/* TensorFlow's masking (rotate right by 15, add 0xA282EAD8) and back. */
TFS_API uint32_t tfs_crc32c_mask(uint32_t crc);
TFS_API uint32_t tfs_crc32c_unmask(uint32_t masked);

typedef struct tfs_record_writer tfs_record_writer;

/* Creates `path` (replacing it; `append` non-zero adds to an existing
 * file instead).  Returns a new writer; caller frees with
 * tfs_record_writer_free. */
TFS_API tfs_record_writer *tfs_record_writer_open(const char *path, int append,
                                                  tfs_status *st);
/* Appends one record holding data[0..len).  Does not take ownership. */
TFS_API void tfs_record_writer_write(tfs_record_writer *w, const void *data,
                                     size_t len, tfs_status *st);
/* Pushes buffered records to the file (TensorBoard sees them then). */
TFS_API void tfs_record_writer_flush(tfs_record_writer *w, tfs_status *st);
/* Flushes, closes and frees; `st` reports a failed final write (may be
 * NULL to ignore it).  Accepts a NULL writer. */
TFS_API void tfs_record_writer_free(tfs_record_writer *w, tfs_status *st);

typedef struct tfs_record_reader tfs_record_reader;

/* Returns a new reader of `path` (caller frees with
 * tfs_record_reader_free). */
TFS_API tfs_record_reader *tfs_record_reader_open(const char *path,
                                                  tfs_status *st);
/* Reads the next record, checking both CRCs.  Returns 1 and sets
 * *data and *len (borrowed, valid until the next call), 0 at the clean end of
 * the file, -1 on error: DATA_LOSS "corrupted record at offset N" for a
 * CRC mismatch, OUT_OF_RANGE "truncated record at offset N" when the file
 * ends inside a record (a writer may still be adding it: the reader stays
 * at that record, so calling again later retries it). */
TFS_API int tfs_record_reader_next(tfs_record_reader *r, const void **data,
                                   size_t *len, tfs_status *st);
/* Byte offset of the next record. */
TFS_API uint64_t tfs_record_reader_offset(const tfs_record_reader *r);
/* Accepts NULL. */
TFS_API void tfs_record_reader_free(tfs_record_reader *r);

/* ---- TensorBoard event files -----------------------------------------------
 *
 * An event file is `<logdir>/events.out.tfevents.<secs>.<hostname>` (a
 * ".N" suffix is added when that name exists): TFRecords of serialized
 * Event messages, the first one {wall_time, file_version "brain.Event:2"}.
 */
typedef struct tfs_events_writer tfs_events_writer;

/* Creates `logdir` (and its parents) when needed, then a new event file in
 * it with the file_version record written and flushed.  Returns a new
 * writer; caller frees with tfs_events_writer_free.  On error no event
 * file is left behind. */
TFS_API tfs_events_writer *tfs_events_writer_new(const char *logdir,
                                                 tfs_status *st);
/* The event file's path.  Borrowed, valid while `w` lives. */
TFS_API const char *tfs_events_writer_path(const tfs_events_writer *w);
/* Appends Event{graph_def: GraphDef bytes}.  Does not take ownership. */
TFS_API void tfs_events_writer_add_graph_def(tfs_events_writer *w,
                                             const void *graph_def, size_t len,
                                             tfs_status *st);
/* Appends Event{graph_def} holding `g` exported as a GraphDef. */
TFS_API void tfs_events_writer_add_graph(tfs_events_writer *w, tfs_graph *g,
                                         tfs_status *st);
/* Appends Event{step, tagged_run_metadata{tag, RunMetadata bytes}} (as
 * TensorFlow's FileWriter.add_run_metadata; TensorBoard shows it under
 * the graph's "Session runs").  Does not take ownership. */
TFS_API void tfs_events_writer_add_run_metadata(tfs_events_writer *w,
                                                const char *tag,
                                                const void *run_metadata,
                                                size_t len, int64_t step,
                                                tfs_status *st);
/* Appends Event{step, summary{value{tag, simple_value}}}: a scalar for
 * TensorBoard's scalars dashboard. */
TFS_API void tfs_events_writer_add_scalar(tfs_events_writer *w, const char *tag,
                                          float value, int64_t step,
                                          tfs_status *st);
/* Makes everything written so far visible to readers. */
TFS_API void tfs_events_writer_flush(tfs_events_writer *w, tfs_status *st);
/* Flushes, closes and frees (st may be NULL).  Accepts a NULL writer. */
TFS_API void tfs_events_writer_free(tfs_events_writer *w, tfs_status *st);

/* One call: a new event file in `logdir` holding `g` and, when
 * `run_metadata` is not NULL, a traced run's RunMetadata bytes tagged
 * "tfsess.run".  When `path_out` is not NULL it receives the file's path
 * (malloc'd; the caller frees it with free()).  Does not take ownership.
 * On error no event file is left behind. */
TFS_API void tfs_events_write_graph(const char *logdir, tfs_graph *g,
                                    const tfs_buffer *run_metadata,
                                    char **path_out, tfs_status *st);

/* ---- Chrome trace / Perfetto JSON -----------------------------------------
 *
 * A traced run (RunOptions.trace_level FULL_TRACE through
 * tfs_session_run_ex) returns RunMetadata bytes holding its step_stats.
 * These functions turn them into Chrome trace event JSON, which
 * chrome://tracing and ui.perfetto.dev open:
 *   {"displayTimeUnit":"ms","traceEvents":[...]}
 * with metadata events ("ph":"M") naming a process per device (pid: the
 * device's index in step_stats, its name the device) and a thread per
 * executor thread ("thread N", tid: NodeExecStats.thread_id), then one
 * complete event ("ph":"X", "cat":"Op") per node execution: "name" the
 * node's name, "ts" its start (all_start) and "dur" its duration
 * (all_end_rel), both in microseconds with nanosecond decimals, and
 * "args": name; op (the op type of the node of that name in `g`, when
 * `g` is given and holds it, else the op of the timeline label); kernel
 * (the op the timeline label "name = Op(inputs)" names: what ran, e.g. a
 * fused kernel); device; thread_id; label (timeline_label); inputs (the
 * label's data inputs, "node" or "node:i"); input_dtypes / input_shapes
 * (each input's producer output as recorded in the same step, null where
 * the producer did not run in it, e.g. a fed placeholder); output_dtypes
 * / output_shapes (each recorded output; a shape is an array of dims,
 * -1 unknown, null for an unknown rank).  Strings are JSON-escaped;
 * bytes that are not UTF-8 become U+FFFD.
 *
 * Errors: INVALID_ARGUMENT "Unparseable RunMetadata proto";
 * FAILED_PRECONDITION when the bytes hold no step_stats (the run was not
 * traced).
 */

/* Returns the JSON text (NUL-terminated; the caller frees it with
 * free()), or NULL on error.  `g` may be NULL.  Does not take ownership. */
TFS_API char *tfs_trace_json(const void *run_metadata, size_t len,
                             tfs_graph *g, tfs_status *st);
/* Writes the same text to the file `path` (replaced); on a write error
 * the file is removed. */
TFS_API void tfs_trace_json_write(const char *path, const void *run_metadata,
                                  size_t len, tfs_graph *g, tfs_status *st);

TFS_END_DECLS

#endif /* TFSESS_IO_H */
