/*
 * tests/io/test_tfrecord.c - CRC32C (the published test vectors, hardware
 * against software), TFRecord framing (files TensorFlow wrote, truncation
 * as "retry later", corruption, fuzzing) and TensorBoard event files
 * (a file TensorFlow wrote; ours read back record by record, the graph
 * re-imported; both truncated and bit-flipped, framing and payloads).
 */
#include <dirent.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/cpu.h"
#include "core/util.h"
#include "io/events.h"
#include "io/tfrecord.h"
#include "iotest.h"
#include "proto/config.pb-c.h"
#include "proto/event.pb-c.h"
#include "testutil.h"

/* ---- CRC32C -------------------------------------------------------------- */

static void test_crc32c_vectors(void) {
  uint8_t buf[32];
  CU_ASSERT_EQUAL(tfs_crc32c("123456789", 9), 0xE3069283u);
  memset(buf, 0, 32);
  CU_ASSERT_EQUAL(tfs_crc32c(buf, 32), 0x8A9136AAu); /* RFC 3720 B.4 */
  memset(buf, 0xff, 32);
  CU_ASSERT_EQUAL(tfs_crc32c(buf, 32), 0x62A8AB43u);
  for (int i = 0; i < 32; i++) buf[i] = (uint8_t)i;
  CU_ASSERT_EQUAL(tfs_crc32c(buf, 32), 0x46DD794Eu);
  for (int i = 0; i < 32; i++) buf[i] = (uint8_t)(31 - i);
  CU_ASSERT_EQUAL(tfs_crc32c(buf, 32), 0x113FDB5Cu);
  CU_ASSERT_EQUAL(tfs_crc32c("", 0), 0u);
  /* TensorBoard's masked test vector: an Event holding only
   * file_version. */
  const char ev[] =
      "\x1a\x11"
      "CRC test, one two";
  CU_ASSERT_EQUAL(tfs_crc32c_mask(tfs_crc32c(ev, sizeof ev - 1)), 0x5794D08Au);
}

static void crc32c_paths_agree(void);

/* Both CRC32C paths in turn, whatever this CPU would choose: SSE4.2's
 * crc32 instruction, and the table with the CPU capped below SSE4.2; each
 * against the table directly and the published check value. */
static void test_crc32c_extend_mask_and_hardware(void) {
  static const int caps[] = {TFS_CPU_ISA_SSE42, TFS_CPU_ISA_BASELINE};
  static const char *const names[] = {"sse4.2", "table"};
  for (int p = 0; p < 2; p++) {
    const char *why = tu_isa_unavailable(caps[p]);
    tu_cpu_path("crc32c", names[p], why);
    if (why) continue;
    tfs_cpu__set_max_isa(caps[p]);
    crc32c_paths_agree();
    tfs_cpu__set_max_isa(-1);
  }
}

static void crc32c_paths_agree(void) {
  CU_ASSERT_EQUAL(tfs_crc32c("123456789", 9), 0xE3069283u);
  uint64_t rng = 99;
  uint8_t buf[1100];
  for (size_t i = 0; i < sizeof buf; i++) buf[i] = (uint8_t)it_rand(&rng);
  for (int k = 0; k < 300; k++) {
    size_t off = (size_t)(it_rand(&rng) % 64);
    size_t n = (size_t)(it_rand(&rng) % 1000);
    size_t cut = n ? (size_t)(it_rand(&rng) % n) : 0;
    uint32_t whole = tfs_crc32c(buf + off, n);
    CU_ASSERT_EQUAL(whole, tfs_crc32c__sw(0, buf + off, n));
    CU_ASSERT_EQUAL(whole, tfs_crc32c_extend(tfs_crc32c(buf + off, cut),
                                             buf + off + cut, n - cut));
    CU_ASSERT_EQUAL(tfs_crc32c_unmask(tfs_crc32c_mask(whole)), whole);
    CU_ASSERT_NOT_EQUAL(tfs_crc32c_mask(whole), whole);
  }
}

/* ---- records ------------------------------------------------------------- */

static void write_records(const char *path, int n, const size_t *lens) {
  tfs_status *st = tfs_status_new();
  tfs_record_writer *w = tfs_record_writer_open(path, 0, st);
  TFS_ASSERT_OK(st);
  for (int i = 0; i < n; i++) {
    uint8_t *d = malloc(lens[i] + 1);
    for (size_t k = 0; k < lens[i]; k++) d[k] = (uint8_t)(k * 31 + i);
    tfs_record_writer_write(w, d, lens[i], st);
    TFS_ASSERT_OK(st);
    free(d);
  }
  tfs_record_writer_free(w, st);
  TFS_ASSERT_OK(st);
  tfs_status_free(st);
}

static void test_records_roundtrip(void) {
  static const size_t lens[] = {5, 0, 100000, 1};
  tfs_status *st = tfs_status_new();
  write_records(it_tmp("r.tfrecord"), 4, lens);
  tfs_record_reader *r = tfs_record_reader_open(it_tmp("r.tfrecord"), st);
  TFS_ASSERT_OK(st);
  uint64_t off = 0;
  for (int i = 0; i < 4; i++) {
    const void *d;
    size_t len;
    CU_ASSERT_EQUAL(tfs_record_reader_offset(r), off);
    CU_ASSERT_EQUAL_FATAL(tfs_record_reader_next(r, &d, &len, st), 1);
    CU_ASSERT_EQUAL(len, lens[i]);
    for (size_t k = 0; k < len; k++)
      if (((const uint8_t *)d)[k] != (uint8_t)(k * 31 + i)) {
        CU_FAIL("record data differs");
        break;
      }
    off += 16 + lens[i];
  }
  const void *d;
  size_t len;
  CU_ASSERT_EQUAL(tfs_record_reader_next(r, &d, &len, st), 0);
  TFS_ASSERT_OK(st);
  CU_ASSERT_EQUAL(tfs_record_reader_next(r, &d, &len, st), 0);
  tfs_record_reader_free(r);

  /* Appending adds records after the existing ones. */
  tfs_record_writer *w = tfs_record_writer_open(it_tmp("r.tfrecord"), 1, st);
  tfs_record_writer_write(w, "more", 4, st);
  tfs_record_writer_flush(w, st);
  TFS_ASSERT_OK(st);
  tfs_record_writer_free(w, NULL);
  r = tfs_record_reader_open(it_tmp("r.tfrecord"), st);
  int count = 0;
  while (tfs_record_reader_next(r, &d, &len, st) == 1) count++;
  CU_ASSERT_EQUAL(count, 5);
  CU_ASSERT(len == 0 && tfs_status_ok(st));
  tfs_record_reader_free(r);
  tfs_status_free(st);
}

static void test_records_reads_tensorflows_file(void) {
  tfs_status *st = tfs_status_new();
  tfs_record_reader *r =
      tfs_record_reader_open(it_src("tests/io/data/records.tfrecord"), st);
  TFS_ASSERT_OK(st);
  const void *d;
  size_t len;
  CU_ASSERT_EQUAL_FATAL(tfs_record_reader_next(r, &d, &len, st), 1);
  CU_ASSERT(len == 5 && memcmp(d, "hello", 5) == 0);
  CU_ASSERT_EQUAL_FATAL(tfs_record_reader_next(r, &d, &len, st), 1);
  CU_ASSERT_EQUAL(len, 0);
  CU_ASSERT_EQUAL_FATAL(tfs_record_reader_next(r, &d, &len, st), 1);
  CU_ASSERT(len == 300 && ((const char *)d)[299] == 'x');
  CU_ASSERT_EQUAL(tfs_record_reader_next(r, &d, &len, st), 0);
  tfs_record_reader_free(r);

  /* Our writer produces the very same bytes. */
  tfs_record_writer *w = tfs_record_writer_open(it_tmp("same.tfrecord"), 0, st);
  char xs[300];
  memset(xs, 'x', sizeof xs);
  tfs_record_writer_write(w, "hello", 5, st);
  tfs_record_writer_write(w, NULL, 0, st);
  tfs_record_writer_write(w, xs, sizeof xs, st);
  tfs_record_writer_free(w, st);
  TFS_ASSERT_OK(st);
  size_t a_len, b_len;
  uint8_t *a = it_read_file(it_src("tests/io/data/records.tfrecord"), &a_len);
  uint8_t *b = it_read_file(it_tmp("same.tfrecord"), &b_len);
  CU_ASSERT(a && b && a_len == b_len && memcmp(a, b, a_len) == 0);
  free(a);
  free(b);
  tfs_status_free(st);
}

static void test_records_truncation_is_retry_later(void) {
  static const size_t lens[] = {10, 50};
  tfs_status *st = tfs_status_new();
  write_records(it_tmp("t.tfrecord"), 2, lens);
  size_t len;
  uint8_t *all = it_read_file(it_tmp("t.tfrecord"), &len);
  CU_ASSERT_EQUAL_FATAL(len, 26 + 66);
  size_t cuts[] = {26 + 1, 26 + 11, 26 + 12, 26 + 40, 26 + 65};
  for (size_t c = 0; c < TFS_ARRAY_LEN(cuts); c++) {
    it_write_file(it_tmp("t2.tfrecord"), all, cuts[c]);
    tfs_record_reader *r = tfs_record_reader_open(it_tmp("t2.tfrecord"), st);
    const void *d;
    size_t n;
    CU_ASSERT_EQUAL(tfs_record_reader_next(r, &d, &n, st), 1);
    CU_ASSERT_EQUAL(tfs_record_reader_next(r, &d, &n, st), -1);
    TFS_ASSERT_ERROR(st, TFS_OUT_OF_RANGE,
                     "t2.tfrecord: truncated record at offset 26 (the file "
                     "ends inside it; if a writer is still adding it, retry "
                     "later)");
    /* The writer finishes the record: the same reader now gets it. */
    FILE *f = fopen(it_tmp("t2.tfrecord"), "ab");
    fwrite(all + cuts[c], 1, len - cuts[c], f);
    fclose(f);
    CU_ASSERT_EQUAL(tfs_record_reader_next(r, &d, &n, st), 1);
    CU_ASSERT_EQUAL(n, 50);
    CU_ASSERT_EQUAL(tfs_record_reader_next(r, &d, &n, st), 0);
    tfs_record_reader_free(r);
  }
  free(all);
  tfs_status_free(st);
}

static void test_records_corruption_is_data_loss(void) {
  static const size_t lens[] = {10, 50};
  static const struct {
    size_t at;
    const char *msg;
  } flips[] = {
      {26 + 3, "corrupted record at offset 26: length CRC mismatch"},
      {26 + 9, "corrupted record at offset 26: length CRC mismatch"},
      {26 + 20, "corrupted record at offset 26: data CRC mismatch"},
      {26 + 63, "corrupted record at offset 26: data CRC mismatch"},
  };
  tfs_status *st = tfs_status_new();
  write_records(it_tmp("c.tfrecord"), 2, lens);
  size_t len;
  uint8_t *all = it_read_file(it_tmp("c.tfrecord"), &len);
  for (size_t k = 0; k < TFS_ARRAY_LEN(flips); k++) {
    all[flips[k].at] ^= 0x10;
    it_write_file(it_tmp("c2.tfrecord"), all, len);
    all[flips[k].at] ^= 0x10;
    tfs_record_reader *r = tfs_record_reader_open(it_tmp("c2.tfrecord"), st);
    const void *d;
    size_t n;
    CU_ASSERT_EQUAL(tfs_record_reader_next(r, &d, &n, st), 1);
    CU_ASSERT_EQUAL(tfs_record_reader_next(r, &d, &n, st), -1);
    TFS_ASSERT_ERROR(st, TFS_DATA_LOSS, flips[k].msg);
    tfs_record_reader_free(r);
  }
  free(all);
  CU_ASSERT_PTR_NULL(tfs_record_reader_open(it_tmp("nope.tfrecord"), st));
  TFS_ASSERT_ERROR(st, TFS_NOT_FOUND, "nope.tfrecord: cannot open");
  tfs_status_free(st);
}

static void test_records_fuzz(void) {
  static const size_t lens[] = {3, 0, 70, 9, 200};
  tfs_status *st = tfs_status_new();
  write_records(it_tmp("f.tfrecord"), 5, lens);
  size_t len;
  uint8_t *src = it_read_file(it_tmp("f.tfrecord"), &len);
  uint8_t *buf = malloc(len);
  uint64_t rng = 4242;
  for (int it = 0; it < 1500; it++) {
    memcpy(buf, src, len);
    size_t n = len;
    if (it % 3 == 0)
      n = (size_t)(it_rand(&rng) % len);
    else
      buf[it_rand(&rng) % len] = (uint8_t)it_rand(&rng);
    it_write_file(it_tmp("f2.tfrecord"), buf, n);
    tfs_record_reader *r = tfs_record_reader_open(it_tmp("f2.tfrecord"), st);
    const void *d;
    size_t dn;
    int rc, records = 0;
    while ((rc = tfs_record_reader_next(r, &d, &dn, st)) == 1) records++;
    CU_ASSERT(records <= 5);
    if (rc < 0)
      CU_ASSERT_PTR_NOT_NULL(strstr(tfs_status_message(st), "f2.tfrecord"));
    tfs_record_reader_free(r);
  }
  free(buf);
  free(src);
  tfs_status_free(st);
}

/* ---- event files --------------------------------------------------------- */

/* Reads every Event of an event file (caller frees each with
 * tensorflow__event__free_unpacked); returns the count. */
static int read_events(const char *path, Tensorflow__Event **evs, int max) {
  tfs_status *st = tfs_status_new();
  tfs_record_reader *r = tfs_record_reader_open(path, st);
  TFS_ASSERT_OK(st);
  int n = 0;
  const void *d;
  size_t len;
  while (n < max && tfs_record_reader_next(r, &d, &len, st) == 1) {
    evs[n] = tensorflow__event__unpack(NULL, len, d);
    CU_ASSERT_PTR_NOT_NULL_FATAL(evs[n]);
    n++;
  }
  TFS_ASSERT_OK(st);
  tfs_record_reader_free(r);
  tfs_status_free(st);
  return n;
}

static void free_events(Tensorflow__Event **evs, int n) {
  for (int i = 0; i < n; i++) tensorflow__event__free_unpacked(evs[i], NULL);
}

static void test_events_reads_tensorflows_file(void) {
  Tensorflow__Event *evs[8];
  int n = read_events(it_src("tests/io/data/tf_graph.tfevents"), evs, 8);
  CU_ASSERT_FATAL(n >= 2);
  CU_ASSERT_EQUAL(evs[0]->what_case, TENSORFLOW__EVENT__WHAT_FILE_VERSION);
  CU_ASSERT_STRING_EQUAL(evs[0]->file_version, TFS_EVENTS_FILE_VERSION);
  int graphs = 0;
  tfs_status *st = tfs_status_new();
  for (int i = 1; i < n; i++) {
    if (evs[i]->what_case != TENSORFLOW__EVENT__WHAT_GRAPH_DEF) continue;
    graphs++;
    tfs_graph *g = tfs_graph_new();
    tfs_import_results *res = tfs_graph_import_graphdef(
        g, evs[i]->graph_def.data, evs[i]->graph_def.len, NULL, st);
    TFS_ASSERT_OK(st);
    tfs_import_results_free(res);
    CU_ASSERT_PTR_NOT_NULL(tfs_graph_operation_by_name(g, "sum"));
    tfs_graph_free(g);
  }
  CU_ASSERT_EQUAL(graphs, 1);
  tfs_status_free(st);
  free_events(evs, n);
}

static int count_event_files(const char *dir) {
  DIR *d = opendir(dir);
  int n = 0;
  struct dirent *e;
  while (d && (e = readdir(d)))
    n += strncmp(e->d_name, TFS_EVENTS_FILE_PREFIX,
                 strlen(TFS_EVENTS_FILE_PREFIX)) == 0;
  if (d) closedir(d);
  return n;
}

static void test_events_writer_records(void) {
  tfs_status *st = tfs_status_new();
  char logdir[4096];
  snprintf(logdir, sizeof logdir, "%s", it_tmp("logs/a/b"));
  tfs_events_writer *w = tfs_events_writer_new(logdir, st);
  TFS_ASSERT_OK(st);
  const char *path = tfs_events_writer_path(w);
  char host[256] = "";
  gethostname(host, sizeof host);
  char want[4200];
  snprintf(want, sizeof want, "%s/" TFS_EVENTS_FILE_PREFIX, logdir);
  CU_ASSERT_EQUAL(strncmp(path, want, strlen(want)), 0);
  const char *secs = path + strlen(want);
  CU_ASSERT(strlen(secs) > 11 && secs[10] == '.');
  for (int i = 0; i < 10; i++) CU_ASSERT(secs[i] >= '0' && secs[i] <= '9');
  CU_ASSERT_EQUAL(strncmp(secs + 11, host, strlen(host)), 0);

  /* The first record is visible before anything else is written. */
  Tensorflow__Event *evs[8];
  int n = read_events(path, evs, 8);
  CU_ASSERT_EQUAL_FATAL(n, 1);
  CU_ASSERT_STRING_EQUAL(evs[0]->file_version, "brain.Event:2");
  CU_ASSERT(evs[0]->wall_time > 1.6e9);
  CU_ASSERT_STRING_EQUAL(evs[0]->source_metadata->writer, "tfsess");
  free_events(evs, n);

  tfs_events_writer_add_graph_def(w, "\x0a\x00", 2, st);
  tfs_events_writer_add_run_metadata(w, "step7", "\x0a\x00", 2, 7, st);
  tfs_events_writer_add_scalar(w, "loss", 0.25f, 3, st);
  TFS_ASSERT_OK(st);
  n = read_events(path, evs, 8);
  CU_ASSERT_EQUAL_FATAL(n, 4);
  CU_ASSERT_EQUAL(evs[1]->what_case, TENSORFLOW__EVENT__WHAT_GRAPH_DEF);
  CU_ASSERT_EQUAL(evs[1]->graph_def.len, 2);
  CU_ASSERT_EQUAL(evs[2]->what_case,
                  TENSORFLOW__EVENT__WHAT_TAGGED_RUN_METADATA);
  CU_ASSERT_STRING_EQUAL(evs[2]->tagged_run_metadata->tag, "step7");
  CU_ASSERT_EQUAL(evs[2]->step, 7);
  CU_ASSERT_EQUAL(evs[3]->what_case, TENSORFLOW__EVENT__WHAT_SUMMARY);
  CU_ASSERT_STRING_EQUAL(evs[3]->summary->value[0]->tag, "loss");
  CU_ASSERT_EQUAL(evs[3]->summary->value[0]->simple_value, 0.25f);
  CU_ASSERT_EQUAL(evs[3]->step, 3);
  free_events(evs, n);

  /* A second writer in the same directory never clobbers the first. */
  tfs_events_writer *w2 = tfs_events_writer_new(logdir, st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_STRING_NOT_EQUAL(tfs_events_writer_path(w2), path);
  CU_ASSERT_EQUAL(count_event_files(logdir), 2);
  tfs_events_writer_free(w2, st);
  tfs_events_writer_free(w, st);
  TFS_ASSERT_OK(st);
  tfs_events_writer_free(NULL, NULL);

  it_write_file(it_tmp("afile"), "x", 1);
  snprintf(logdir, sizeof logdir, "%s/sub", it_tmp("afile"));
  CU_ASSERT_PTR_NULL(tfs_events_writer_new(logdir, st));
  TFS_ASSERT_ERROR(st, TFS_FAILED_PRECONDITION,
                   "afile: exists and is not a directory");
  tfs_status_free(st);
}

static void test_events_graph_roundtrips(void) {
  tfs_status *st = tfs_status_new();
  tfs_graph *g = tfs_graph_new();
  int64_t dims[] = {-1, 3};
  tfs_output x = tfs_op_placeholder(g, "x", TFS_FLOAT, dims, 2, st);
  tfs_output c = tfs_op_const_float(g, "two", 2.0f, st);
  tfs_op_mul(g, "scaled/y", x, c, st);
  TFS_ASSERT_OK(st);
  char *path = NULL;
  tfs_buffer rm = {"\x0a\x00", 2, NULL};
  tfs_events_write_graph(it_tmp("rt_logs"), g, &rm, &path, st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_PTR_NOT_NULL_FATAL(path);
  Tensorflow__Event *evs[8];
  int n = read_events(path, evs, 8);
  CU_ASSERT_EQUAL_FATAL(n, 3);
  CU_ASSERT_EQUAL_FATAL(evs[1]->what_case, TENSORFLOW__EVENT__WHAT_GRAPH_DEF);
  CU_ASSERT_STRING_EQUAL(evs[2]->tagged_run_metadata->tag, TFS_EVENTS_RUN_TAG);

  tfs_buffer a = {NULL, 0, NULL}, b = {NULL, 0, NULL};
  tfs_graph_to_graphdef(g, &a, st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_EQUAL(evs[1]->graph_def.len, a.length);
  CU_ASSERT(memcmp(evs[1]->graph_def.data, a.data, a.length) == 0);
  tfs_graph *g2 = tfs_graph_new();
  tfs_import_results_free(tfs_graph_import_graphdef(
      g2, evs[1]->graph_def.data, evs[1]->graph_def.len, NULL, st));
  TFS_ASSERT_OK(st);
  CU_ASSERT_EQUAL(tfs_graph_num_operations(g2), 3);
  CU_ASSERT_PTR_NOT_NULL(tfs_graph_operation_by_name(g2, "scaled/y"));
  tfs_graph_to_graphdef(g2, &b, st);
  TFS_ASSERT_OK(st);
  CU_ASSERT(a.length == b.length && memcmp(a.data, b.data, a.length) == 0);
  if (a.data_deallocator) a.data_deallocator((void *)a.data, a.length);
  if (b.data_deallocator) b.data_deallocator((void *)b.data, b.length);
  free_events(evs, n);
  free(path);
  tfs_graph_free(g2);
  tfs_graph_free(g);
  tfs_status_free(st);
}

/* ---- malformed event files ---------------------------------------------- */

/* An event file tfsess writes for a traced run: y = x * 2 over [?,3]. */
static char *write_traced_events(void) {
  tfs_status *st = tfs_status_new();
  tfs_graph *g = tfs_graph_new();
  int64_t dims[] = {-1, 3};
  tfs_output x = tfs_op_placeholder(g, "x", TFS_FLOAT, dims, 2, st);
  tfs_output y = tfs_op_mul(g, "y", x, tfs_op_const_float(g, "two", 2, st), st);
  tfs_session *s = tfs_session_new(g, NULL, st);
  TFS_ASSERT_OK(st);
  int64_t xd[] = {2, 3};
  tfs_tensor *xt = tfs_tensor_new(TFS_FLOAT, xd, 2, st), *out = NULL;
  memset(tfs_tensor_data(xt), 0, 6 * sizeof(float));
  tfs_buffer ro = {"\x08\x03", 2, NULL}; /* trace_level: FULL_TRACE */
  tfs_buffer *md = tfs_buffer_new();
  tfs_session_run_ex(s, &ro, &x, &xt, 1, &y, &out, 1, NULL, 0, md, st);
  TFS_ASSERT_OK(st);
  char *path = NULL;
  tfs_events_write_graph(it_tmp("traced_logs"), g, md, &path, st);
  TFS_ASSERT_OK(st);
  tfs_buffer_free(md);
  tfs_tensor_free(out);
  tfs_tensor_free(xt);
  tfs_session_free(s);
  tfs_graph_free(g);
  tfs_status_free(st);
  return path;
}

/* What a reader of event files does with one record: the Event, then
 * the GraphDef it carries (imported) or its RunMetadata. */
static void parse_event(const void *data, size_t len, tfs_status *st) {
  Tensorflow__Event *ev = tensorflow__event__unpack(NULL, len, data);
  if (!ev) return;
  if (ev->what_case == TENSORFLOW__EVENT__WHAT_GRAPH_DEF) {
    tfs_graph *g = tfs_graph_new();
    tfs_import_results *r = tfs_graph_import_graphdef(
        g, ev->graph_def.data, ev->graph_def.len, NULL, st);
    CU_ASSERT(r ? tfs_status_ok(st) : !tfs_status_ok(st));
    tfs_import_results_free(r);
    tfs_graph_free(g);
  } else if (ev->what_case == TENSORFLOW__EVENT__WHAT_TAGGED_RUN_METADATA) {
    Tensorflow__RunMetadata *m = tensorflow__run_metadata__unpack(
        NULL, ev->tagged_run_metadata->run_metadata.len,
        ev->tagged_run_metadata->run_metadata.data);
    if (m) tensorflow__run_metadata__free_unpacked(m, NULL);
  }
  tensorflow__event__free_unpacked(ev, NULL);
}

/* Reads every record of `path`; returns the count.  A failure names the
 * file. */
static int read_all(const char *path, tfs_status *st) {
  tfs_record_reader *r = tfs_record_reader_open(path, st);
  const void *d;
  size_t n;
  int rc, records = 0;
  while (r && (rc = tfs_record_reader_next(r, &d, &n, st)) == 1) {
    parse_event(d, n, st);
    records++;
  }
  if (r && rc < 0)
    CU_ASSERT_PTR_NOT_NULL(strstr(tfs_status_message(st), "fz.tfevents"));
  tfs_record_reader_free(r);
  return records;
}

/* Event files TensorFlow and tfsess wrote, cut at every length and with
 * flipped bits (the framing), and each record's payload truncated and
 * flipped under valid CRCs (Event, GraphDef, RunMetadata): errors, never
 * a crash or a leak (the sanitizer build checks). */
static void test_events_truncated_and_flipped(void) {
  char *ours = write_traced_events();
  const char *files[2] = {it_src("tests/io/data/tf_graph.tfevents"), ours};
  tfs_status *st = tfs_status_new();
  uint64_t rng = 99;
  for (int k = 0; k < 2; k++) {
    size_t len;
    uint8_t *src = it_read_file(files[k], &len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(src);
    uint8_t *buf = malloc(len);
    CU_ASSERT(read_all(files[k], st) >= (k ? 3 : 2));
    for (size_t it = 0; it < len + 200; it++) {
      size_t n = len;
      memcpy(buf, src, len);
      if (it < len)
        n = it;
      else
        buf[it_rand(&rng) % len] ^= (uint8_t)(1u << it_rand(&rng) % 8);
      it_write_file(it_tmp("fz.tfevents"), buf, n);
      CU_ASSERT(read_all(it_tmp("fz.tfevents"), st) <= 3);
    }
    /* payloads under valid framing */
    tfs_record_reader *r = tfs_record_reader_open(files[k], st);
    const void *d;
    size_t dn;
    while (tfs_record_reader_next(r, &d, &dn, st) == 1) {
      uint8_t *p = malloc(dn + 1);
      for (int it = 0; it < 400; it++) {
        memcpy(p, d, dn);
        size_t m = dn;
        if (it % 4 == 0)
          m = (size_t)(it_rand(&rng) % (dn + 1));
        else
          for (int f = 0; f < 1 + it % 3; f++)
            p[it_rand(&rng) % dn] ^= (uint8_t)(1u << it_rand(&rng) % 8);
        parse_event(p, m, st);
      }
      free(p);
    }
    tfs_record_reader_free(r);
    free(buf);
    free(src);
  }
  free(ours);
  tfs_status_free(st);
}

static const tfs_test_case crc_cases[] = {
    {"vectors", test_crc32c_vectors},
    {"extend_mask_and_hardware", test_crc32c_extend_mask_and_hardware},
    {NULL, NULL}};

static const tfs_test_case record_cases[] = {
    {"roundtrip", test_records_roundtrip},
    {"reads_tensorflows_file", test_records_reads_tensorflows_file},
    {"truncation_is_retry_later", test_records_truncation_is_retry_later},
    {"corruption_is_data_loss", test_records_corruption_is_data_loss},
    {"fuzz", test_records_fuzz},
    {NULL, NULL}};

static const tfs_test_case event_cases[] = {
    {"reads_tensorflows_file", test_events_reads_tensorflows_file},
    {"writer_records", test_events_writer_records},
    {"graph_roundtrips", test_events_graph_roundtrips},
    {"truncated_and_flipped", test_events_truncated_and_flipped},
    {NULL, NULL}};

const tfs_test_suite tfs_test_suites[] = {{"crc32c", crc_cases},
                                          {"tfrecord", record_cases},
                                          {"events", event_cases},
                                          {NULL, NULL}};
