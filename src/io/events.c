/*
 * io/events.c - TensorBoard event files: a file named as TensorFlow's C++
 * EventsWriter names it, TFRecords of serialized Event messages (first
 * the file_version record, then graphs, traced runs' RunMetadata and
 * scalars).
 */
#include "io/events.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/alloc.h"
#include "core/status.h"
#include "core/util.h"
#include "io/npy.h"
#include "io/tfrecord.h"
#include "proto/event.pb-c.h"
#include "tfsess/graphdef.h"

struct tfs_events_writer {
  tfs_record_writer *rw;
  char *path;
};

static double wall_time_now(void) { return (double)tfs_now_wall_us() / 1e6; }

/* mkdir -p: creates every missing directory of `dir`. */
static int make_dirs(const char *dir, tfs_status *st) {
  char *p = tfs_strdup(dir);
  if (!p) {
    TFS_OOM(st);
    return -1;
  }
  size_t n = strlen(p);
  while (n > 1 && p[n - 1] == '/') p[--n] = 0;
  int rc = 0;
  for (char *s = p + 1;; s++) {
    int end = *s == 0;
    if (*s == '/' || end) {
      *s = 0;
      struct stat sb;
      errno = 0;
      if (mkdir(p, 0777) != 0 && errno != EEXIST) {
        tfs_io__errno(st, p, "cannot create directory");
        rc = -1;
        break;
      }
      if (stat(p, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
        tfs_status_setf(st, TFS_FAILED_PRECONDITION,
                        "%s: exists and is not a directory", p);
        rc = -1;
        break;
      }
      if (end) break;
      *s = '/';
    }
  }
  tfs_free(p);
  return rc;
}

/* Creates the event file exclusively: `<logdir>/events.out.tfevents.
 * <secs>.<host>`, with ".1", ".2", ... added while that name is taken. */
static FILE *create_file(const char *logdir, char **path, tfs_status *st) {
  char host[256];
  if (gethostname(host, sizeof host) != 0 || !host[0])
    snprintf(host, sizeof host, "localhost");
  host[sizeof host - 1] = 0;
  for (char *c = host; *c; c++)
    if (*c == '/') *c = '_';
  long long secs = (long long)time(NULL);
  for (int i = 0; i < 1000; i++) {
    char *p = i ? tfs_asprintf("%s/events.out.tfevents.%010lld.%s.%d", logdir,
                               secs, host, i)
                : tfs_asprintf("%s/events.out.tfevents.%010lld.%s", logdir,
                               secs, host);
    if (!p) {
      TFS_OOM(st);
      return NULL;
    }
    errno = 0;
    int fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0) {
      FILE *f = fdopen(fd, "wb");
      if (!f) {
        tfs_io__errno(st, p, "cannot open");
        close(fd);
        unlink(p);
        tfs_free(p);
        return NULL;
      }
      *path = p;
      return f;
    }
    if (errno != EEXIST) {
      tfs_io__errno(st, p, "cannot create event file");
      tfs_free(p);
      return NULL;
    }
    tfs_free(p);
  }
  tfs_status_setf(st, TFS_ALREADY_EXISTS,
                  "%s: too many event files for this second", logdir);
  return NULL;
}

/* Packs `ev` (wall_time set here) and appends it as one record. */
static void write_event(tfs_events_writer *w, Tensorflow__Event *ev,
                        tfs_status *st) {
  ev->wall_time = wall_time_now();
  size_t n = tensorflow__event__get_packed_size(ev);
  uint8_t *buf = tfs_malloc(n ? n : 1);
  if (!buf) {
    TFS_OOM(st);
    return;
  }
  tensorflow__event__pack(ev, buf);
  tfs_record_writer_write(w->rw, buf, n, st);
  tfs_free(buf);
  if (tfs_status_ok(st)) tfs_record_writer_flush(w->rw, st);
}

/* Frees a writer whose event file is unfinished, removing the file: a
 * failed call leaves no event file behind. */
static void discard(tfs_events_writer *w) {
  if (w->path) unlink(w->path);
  tfs_events_writer_free(w, NULL);
}

tfs_events_writer *tfs_events_writer_new(const char *logdir, tfs_status *st) {
  TFS_CHECK_ARG(logdir && logdir[0], st, NULL);
  if (make_dirs(logdir, st)) return NULL;
  tfs_events_writer *w = tfs_calloc(1, sizeof *w);
  if (!w) {
    TFS_OOM(st);
    return NULL;
  }
  FILE *f = create_file(logdir, &w->path, st);
  if (!f) {
    tfs_free(w);
    return NULL;
  }
  tfs_record__writer_adopt(&w->rw, f, w->path, st);
  if (!w->rw) {
    discard(w);
    return NULL;
  }
  Tensorflow__Event ev = TENSORFLOW__EVENT__INIT;
  Tensorflow__SourceMetadata src = TENSORFLOW__SOURCE_METADATA__INIT;
  src.writer = "tfsess";
  ev.source_metadata = &src;
  ev.what_case = TENSORFLOW__EVENT__WHAT_FILE_VERSION;
  ev.file_version = TFS_EVENTS_FILE_VERSION;
  write_event(w, &ev, st);
  if (!tfs_status_ok(st)) {
    discard(w);
    return NULL;
  }
  return w;
}

const char *tfs_events_writer_path(const tfs_events_writer *w) {
  return w->path;
}

void tfs_events_writer_add_graph_def(tfs_events_writer *w,
                                     const void *graph_def, size_t len,
                                     tfs_status *st) {
  TFS_CHECK_ARG(w && (graph_def || len == 0), st, );
  Tensorflow__Event ev = TENSORFLOW__EVENT__INIT;
  ev.what_case = TENSORFLOW__EVENT__WHAT_GRAPH_DEF;
  ev.graph_def.data = (uint8_t *)graph_def;
  ev.graph_def.len = len;
  write_event(w, &ev, st);
}

void tfs_events_writer_add_graph(tfs_events_writer *w, tfs_graph *g,
                                 tfs_status *st) {
  TFS_CHECK_ARG(w && g, st, );
  tfs_buffer gd = {NULL, 0, NULL};
  tfs_graph_to_graphdef(g, &gd, st);
  if (tfs_status_ok(st))
    tfs_events_writer_add_graph_def(w, gd.data, gd.length, st);
  if (gd.data_deallocator) gd.data_deallocator((void *)gd.data, gd.length);
}

void tfs_events_writer_add_run_metadata(tfs_events_writer *w, const char *tag,
                                        const void *run_metadata, size_t len,
                                        int64_t step, tfs_status *st) {
  TFS_CHECK_ARG(w && tag && (run_metadata || len == 0), st, );
  Tensorflow__Event ev = TENSORFLOW__EVENT__INIT;
  Tensorflow__TaggedRunMetadata trm = TENSORFLOW__TAGGED_RUN_METADATA__INIT;
  trm.tag = (char *)tag;
  trm.run_metadata.data = (uint8_t *)run_metadata;
  trm.run_metadata.len = len;
  ev.step = step;
  ev.what_case = TENSORFLOW__EVENT__WHAT_TAGGED_RUN_METADATA;
  ev.tagged_run_metadata = &trm;
  write_event(w, &ev, st);
}

void tfs_events_writer_add_scalar(tfs_events_writer *w, const char *tag,
                                  float value, int64_t step, tfs_status *st) {
  TFS_CHECK_ARG(w && tag, st, );
  Tensorflow__Event ev = TENSORFLOW__EVENT__INIT;
  Tensorflow__Summary sum = TENSORFLOW__SUMMARY__INIT;
  Tensorflow__Summary__Value val = TENSORFLOW__SUMMARY__VALUE__INIT;
  Tensorflow__Summary__Value *vals[1] = {&val};
  val.tag = (char *)tag;
  val.value_case = TENSORFLOW__SUMMARY__VALUE__VALUE_SIMPLE_VALUE;
  val.simple_value = value;
  sum.n_value = 1;
  sum.value = vals;
  ev.step = step;
  ev.what_case = TENSORFLOW__EVENT__WHAT_SUMMARY;
  ev.summary = &sum;
  write_event(w, &ev, st);
}

void tfs_events_writer_flush(tfs_events_writer *w, tfs_status *st) {
  TFS_CHECK_ARG(w, st, );
  tfs_record_writer_flush(w->rw, st);
}

void tfs_events_writer_free(tfs_events_writer *w, tfs_status *st) {
  if (!w) return;
  tfs_record_writer_free(w->rw, st);
  tfs_free(w->path);
  tfs_free(w);
}

void tfs_events_write_graph(const char *logdir, tfs_graph *g,
                            const tfs_buffer *run_metadata, char **path_out,
                            tfs_status *st) {
  TFS_CHECK_ARG(logdir && g, st, );
  if (path_out) *path_out = NULL;
  tfs_events_writer *w = tfs_events_writer_new(logdir, st);
  if (!w) return;
  tfs_events_writer_add_graph(w, g, st);
  if (tfs_status_ok(st) && run_metadata)
    tfs_events_writer_add_run_metadata(
        w, TFS_EVENTS_RUN_TAG, run_metadata->data, run_metadata->length, 0, st);
  if (!tfs_status_ok(st)) {
    discard(w);
    return;
  }
  char *path = path_out ? tfs_strdup(w->path) : NULL;
  tfs_events_writer_free(w, st);
  if (path_out && !path && tfs_status_ok(st)) TFS_OOM(st);
  if (tfs_status_ok(st) && path_out)
    *path_out = path;
  else
    tfs_free(path);
}
