/*
 * io/saver_state.c - tf.compat.v1.train.Saver's save and restore through
 * a session, its list of recent checkpoints (max_to_keep,
 * keep_checkpoint_every_n_hours) and the `checkpoint` state file: a
 * CheckpointState text proto written as Python's text_format does and
 * read back (get_checkpoint_state, latest_checkpoint).  See
 * tfsess/saver.h.
 */
#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "core/alloc.h"
#include "core/status.h"
#include "core/strbuf.h"
#include "io/saver_internal.h"
#include "tfsess/tensor.h"

double tfs_saver__now(void) {
  struct timeval tv;
  gettimeofday(&tv, NULL);
  return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

/* ---- paths, as Python's os.path ------------------------------------------ */

/* os.path.dirname.  Caller frees. */
static char *path_dirname(const char *p) {
  const char *slash = strrchr(p, '/');
  if (!slash) return tfs_strdup("");
  size_t n = (size_t)(slash - p) + 1;
  size_t k = n;
  while (k > 0 && p[k - 1] == '/') k--;
  return tfs_strndup(p, k ? k : n);
}

static const char *path_basename(const char *p) {
  const char *slash = strrchr(p, '/');
  return slash ? slash + 1 : p;
}

/* os.path.join(a, b).  Caller frees. */
static char *path_join(const char *a, const char *b) {
  if (b[0] == '/' || !a[0]) return tfs_strdup(b);
  size_t n = strlen(a);
  return tfs_asprintf("%s%s%s", a, a[n - 1] == '/' ? "" : "/", b);
}

/* The components of os.path.abspath(p) (cwd-relative paths joined to
 * the working directory, "." and ".." resolved) into *parts; returns
 * their count or -1.  *buf holds the text (caller frees). */
static int abs_parts(const char *p, char **buf, char ***parts) {
  char cwd[4096];
  *parts = NULL;
  *buf = p[0] == '/' ? tfs_strdup(p)
                     : tfs_asprintf("%s/%s", getcwd(cwd, sizeof cwd) ? cwd : "",
                                    p);
  if (!*buf) return -1;
  size_t cap = strlen(*buf) / 2 + 2;
  *parts = tfs_calloc(cap, sizeof **parts);
  if (!*parts) return -1;
  int n = 0;
  for (char *save = NULL, *t = strtok_r(*buf, "/", &save); t;
       t = strtok_r(NULL, "/", &save)) {
    if (!strcmp(t, ".")) continue;
    if (!strcmp(t, "..")) {
      if (n > 0) n--;
      continue;
    }
    (*parts)[n++] = t;
  }
  return n;
}

/* os.path.relpath(p, start).  Caller frees. */
static char *path_relpath(const char *p, const char *start) {
  char *pb = NULL, *sb = NULL, **pp = NULL, **sp = NULL;
  int np = abs_parts(p, &pb, &pp), ns = abs_parts(start, &sb, &sp);
  char *out = NULL;
  if (np >= 0 && ns >= 0) {
    int i = 0;
    while (i < np && i < ns && !strcmp(pp[i], sp[i])) i++;
    tfs_strbuf b = TFS_STRBUF_INIT;
    for (int k = i; k < ns; k++) tfs_strbuf_puts(&b, k > i ? "/.." : "..");
    for (int k = i; k < np; k++) {
      if (b.len) tfs_strbuf_putc(&b, '/');
      tfs_strbuf_puts(&b, pp[k]);
    }
    if (!b.len) tfs_strbuf_putc(&b, '.');
    out = tfs_strbuf_take(&b);
  }
  tfs_free(pb);
  tfs_free(sb);
  tfs_free(pp);
  tfs_free(sp);
  return out;
}

static int is_dir(const char *p) {
  struct stat sb;
  return stat(p, &sb) == 0 && S_ISDIR(sb.st_mode);
}

/* file_io.get_matching_files(pattern) is not empty. */
static int matches(const char *pattern) {
  glob_t gl;
  int r = glob(pattern, GLOB_NOSORT, NULL, &gl);
  int any = r == 0 && gl.gl_pathc > 0;
  if (r == 0) globfree(&gl);
  return any;
}

/* Deletes every file matching `pattern` (_delete_file_if_exists). */
static void delete_matching(const char *pattern) {
  glob_t gl;
  if (glob(pattern, GLOB_NOSORT, NULL, &gl) != 0) return;
  for (size_t i = 0; i < gl.gl_pathc; i++) unlink(gl.gl_pathv[i]);
  globfree(&gl);
}

static void set_errno(tfs_status *st, const char *path, int err) {
  tfs_code code = err == ENOENT   ? TFS_NOT_FOUND
                  : err == EACCES ? TFS_PERMISSION_DENIED
                                  : TFS_UNKNOWN;
  tfs_status_setf(st, code, "%s; %s", path, strerror(err));
}

/* checkpoint_management.remove_checkpoint for a V2 prefix: its .meta
 * (without a "-SSSSS-of-NNNNN" shard suffix), .index and data files. */
static void remove_checkpoint(const char *prefix) {
  size_t n = strlen(prefix), k = n;
  while (k > 0 && prefix[k - 1] >= '0' && prefix[k - 1] <= '9') k--;
  size_t meta_len = n;
  if (k < n && k >= 4 && !strncmp(prefix + k - 4, "-of-", 4)) {
    size_t j = k - 4;
    while (j > 0 && ((prefix[j - 1] >= '0' && prefix[j - 1] <= '9') ||
                     prefix[j - 1] == '?'))
      j--;
    if (j < k - 4 && j > 0 && prefix[j - 1] == '-') meta_len = j - 1;
  }
  char *meta = tfs_asprintf("%.*s.meta", (int)meta_len, prefix);
  char *index = tfs_asprintf("%s.index", prefix);
  char *data = tfs_asprintf("%s.data-?????" "-of-?????", prefix);
  if (meta) delete_matching(meta);
  if (index) delete_matching(index);
  if (data) delete_matching(data);
  tfs_free(meta);
  tfs_free(index);
  tfs_free(data);
}

/* ---- the state file: writing --------------------------------------------- */

/* A string field as text_format prints it: C escapes, bytes outside
 * printable ASCII in octal. */
static void put_field(tfs_strbuf *b, const char *field, const char *s) {
  tfs_strbuf_printf(b, "%s: \"", field);
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    switch (*p) {
      case '\n': tfs_strbuf_puts(b, "\\n"); break;
      case '\r': tfs_strbuf_puts(b, "\\r"); break;
      case '\t': tfs_strbuf_puts(b, "\\t"); break;
      case '"': tfs_strbuf_puts(b, "\\\""); break;
      case '\'': tfs_strbuf_puts(b, "\\'"); break;
      case '\\': tfs_strbuf_puts(b, "\\\\"); break;
      default:
        if (*p < 32 || *p >= 127) tfs_strbuf_printf(b, "\\%03o", *p);
        else tfs_strbuf_putc(b, (char)*p);
    }
  }
  tfs_strbuf_puts(b, "\"\n");
}

/* file_io.atomic_write_string_to_file: a temporary file renamed over
 * `path`. */
static void atomic_write(const char *path, const char *text, size_t len,
                         tfs_status *st) {
  char *tmp = tfs_asprintf("%s.tmpXXXXXX", path);
  if (!tmp) {
    TFS_OOM(st);
    return;
  }
  int fd = mkstemp(tmp);
  if (fd < 0) {
    set_errno(st, tmp, errno);
    tfs_free(tmp);
    return;
  }
  FILE *f = fdopen(fd, "wb");
  int ok = f && fwrite(text, 1, len, f) == len;
  int err = errno;
  if (f) ok = (fclose(f) == 0) && ok;
  else close(fd);
  if (ok) chmod(tmp, 0644);
  if (!ok || rename(tmp, path) != 0) {
    set_errno(st, ok ? path : tmp, ok ? errno : err);
    unlink(tmp);
  }
  tfs_free(tmp);
}

void tfs_checkpoint_state_write(const char *dir, const char *model_path,
                                const char *const *paths, int n,
                                const char *latest_filename,
                                tfs_status *st) {
  TFS_CHECK_ARG(dir != NULL && model_path != NULL && n >= 0 &&
                    (paths != NULL || n == 0),
                st, );
  const char *lf = latest_filename ? latest_filename : "checkpoint";
  char *file = path_join(dir, lf);
  int rel = dir[0] != '/';
  tfs_strbuf b = TFS_STRBUF_INIT;
  char *model = rel && model_path[0] != '/' ? path_relpath(model_path, dir)
                                             : tfs_strdup(model_path);
  if (!file || !model) {
    TFS_OOM(st);
    goto out;
  }
  if (!strcmp(file, model)) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "Save path '%s' conflicts with path used for checkpoint "
                    "state.  Please use a different save path.",
                    model_path);
    goto out;
  }
  put_field(&b, "model_checkpoint_path", model);
  int last_is_model = 0;
  for (int i = 0; i < n; i++) {
    char *p = rel && paths[i][0] != '/' ? path_relpath(paths[i], dir)
                                        : tfs_strdup(paths[i]);
    if (!p) {
      TFS_OOM(st);
      goto out;
    }
    put_field(&b, "all_model_checkpoint_paths", p);
    last_is_model = i == n - 1 && !strcmp(p, model);
    tfs_free(p);
  }
  if (!last_is_model) put_field(&b, "all_model_checkpoint_paths", model);
  if (b.oom) {
    TFS_OOM(st);
    goto out;
  }
  atomic_write(file, tfs_strbuf_str(&b), b.len, st);
out:
  tfs_strbuf_free(&b);
  tfs_free(file);
  tfs_free(model);
}

/* ---- the state file: reading --------------------------------------------- */

struct tfs_checkpoint_state {
  char *model;
  char **paths;
  int npaths;
  size_t cap;
};

void tfs_checkpoint_state_free(tfs_checkpoint_state *c) {
  if (!c) return;
  tfs_free(c->model);
  for (int i = 0; i < c->npaths; i++) tfs_free(c->paths[i]);
  tfs_free(c->paths);
  tfs_free(c);
}

const char *tfs_checkpoint_state_model_path(const tfs_checkpoint_state *c) {
  return c ? c->model : NULL;
}

int tfs_checkpoint_state_num_paths(const tfs_checkpoint_state *c) {
  return c ? c->npaths : 0;
}

const char *tfs_checkpoint_state_path(const tfs_checkpoint_state *c, int i) {
  return c && i >= 0 && i < c->npaths ? c->paths[i] : NULL;
}

typedef struct {
  const char *p, *end;
} tx;

static void skip_space(tx *t) {
  while (t->p < t->end) {
    if (*t->p == '#') {
      while (t->p < t->end && *t->p != '\n') t->p++;
    } else if (*t->p == ' ' || *t->p == '\t' || *t->p == '\n' ||
               *t->p == '\r' || *t->p == '\v' || *t->p == '\f') {
      t->p++;
    } else {
      break;
    }
  }
}

static int hexval(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* One quoted string (both quote kinds, C escapes) appended to b. */
static int read_quoted(tx *t, tfs_strbuf *b) {
  char q = *t->p++;
  while (t->p < t->end && *t->p != q) {
    char c = *t->p++;
    if (c == '\n') return -1;
    if (c != '\\') {
      tfs_strbuf_putc(b, c);
      continue;
    }
    if (t->p >= t->end) return -1;
    c = *t->p++;
    const char *simple = "n\nr\rt\t\"\"''\\\\a\ab\bf\fv\v??";
    const char *hit = NULL;
    for (const char *s = simple; *s; s += 2)
      if (*s == c) hit = s;
    if (hit) {
      tfs_strbuf_putc(b, hit[1]);
    } else if (c >= '0' && c <= '7') {
      int v = c - '0';
      for (int k = 0; k < 2 && t->p < t->end && *t->p >= '0' && *t->p <= '7';
           k++)
        v = v * 8 + (*t->p++ - '0');
      tfs_strbuf_putc(b, (char)v);
    } else if ((c == 'x' || c == 'X') && t->p < t->end &&
               hexval(*t->p) >= 0) {
      int v = hexval(*t->p++);
      if (t->p < t->end && hexval(*t->p) >= 0) v = v * 16 + hexval(*t->p++);
      tfs_strbuf_putc(b, (char)v);
    } else {
      return -1;
    }
  }
  if (t->p >= t->end) return -1;
  t->p++;
  return 0;
}

/* A string value: adjacent quoted strings joined.  Caller frees. */
static char *read_string(tx *t) {
  tfs_strbuf b = TFS_STRBUF_INIT;
  int n = 0;
  for (;;) {
    skip_space(t);
    if (t->p >= t->end || (*t->p != '"' && *t->p != '\'')) break;
    if (read_quoted(t, &b)) {
      tfs_strbuf_free(&b);
      return NULL;
    }
    n++;
  }
  if (!n || b.oom || memchr(tfs_strbuf_str(&b), 0, b.len)) {
    tfs_strbuf_free(&b);
    return NULL;
  }
  char *s = tfs_strbuf_take(&b);
  return s ? s : tfs_strdup("");
}

static int read_double(tx *t) {
  skip_space(t);
  const char *s = t->p;
  if (s < t->end && (*s == '-' || *s == '+')) s++;
  const char *start = s;
  while (s < t->end && (((*s | 32) >= 'a' && (*s | 32) <= 'z') ||
                        (*s >= '0' && *s <= '9') || *s == '.' ||
                        ((*s == '-' || *s == '+') && (s[-1] | 32) == 'e')))
    s++;
  if (s == start) return -1;
  char buf[64];
  size_t n = (size_t)(s - t->p);
  if (n >= sizeof buf) return -1;
  memcpy(buf, t->p, n);
  buf[n] = 0;
  char *end;
  strtod(buf, &end);
  if (*end && strcmp(end, "f") && strcmp(end, "F")) {
    const char *w = buf + (buf[0] == '-' || buf[0] == '+');
    if (strcmp(w, "inf") && strcmp(w, "infinity") && strcmp(w, "nan"))
      return -1;
  }
  t->p = s;
  return 0;
}

static int add_path(tfs_checkpoint_state *c, char *p) {
  if (tfs_grow((void **)&c->paths, &c->cap, (size_t)c->npaths + 1,
               sizeof *c->paths)) {
    tfs_free(p);
    return -1;
  }
  c->paths[c->npaths++] = p;
  return 0;
}

/* One value of field `kind` (0 model path, 1 all paths, 2 timestamps, 3
 * last preserved). */
static int read_value(tx *t, tfs_checkpoint_state *c, int kind) {
  if (kind >= 2) return read_double(t);
  char *s = read_string(t);
  if (!s) return -1;
  if (kind == 1) return add_path(c, s);
  tfs_free(c->model);
  c->model = s;
  return 0;
}

/* text_format.Merge of a CheckpointState; -1 on a parse error. */
static int parse_state(const char *text, size_t len,
                       tfs_checkpoint_state *c) {
  static const char *const fields[] = {
      "model_checkpoint_path", "all_model_checkpoint_paths",
      "all_model_checkpoint_timestamps", "last_preserved_timestamp"};
  tx t = {text, text + len};
  for (;;) {
    skip_space(&t);
    if (t.p >= t.end) return 0;
    const char *id = t.p;
    while (t.p < t.end && (*t.p == '_' || (*t.p >= 'a' && *t.p <= 'z') ||
                           (*t.p >= 'A' && *t.p <= 'Z') ||
                           (*t.p >= '0' && *t.p <= '9')))
      t.p++;
    int kind = -1;
    for (int k = 0; k < 4; k++)
      if ((size_t)(t.p - id) == strlen(fields[k]) &&
          !strncmp(id, fields[k], strlen(fields[k])))
        kind = k;
    if (kind < 0) return -1;
    skip_space(&t);
    if (t.p >= t.end || *t.p != ':') return -1;
    t.p++;
    skip_space(&t);
    if (t.p < t.end && *t.p == '[' && (kind == 1 || kind == 2)) {
      t.p++;
      skip_space(&t);
      for (int first = 1; t.p < t.end && *t.p != ']'; first = 0) {
        if (!first) {
          if (*t.p != ',') return -1;
          t.p++;
        }
        if (read_value(&t, c, kind)) return -1;
        skip_space(&t);
      }
      if (t.p >= t.end) return -1;
      t.p++;
    } else if (read_value(&t, c, kind)) {
      return -1;
    }
    skip_space(&t);
    if (t.p < t.end && (*t.p == ',' || *t.p == ';')) t.p++;
  }
}

static char *read_all(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  tfs_strbuf b = TFS_STRBUF_INIT;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) tfs_strbuf_append(&b, buf, n);
  int bad = ferror(f) || b.oom;
  fclose(f);
  *len = b.len;
  if (bad) {
    tfs_strbuf_free(&b);
    return NULL;
  }
  char *s = tfs_strbuf_take(&b);
  return s ? s : tfs_strdup("");
}

tfs_checkpoint_state *tfs_checkpoint_state_read(const char *dir,
                                                const char *latest_filename,
                                                tfs_status *st) {
  TFS_CHECK_ARG(dir != NULL, st, NULL);
  char *file = path_join(dir, latest_filename ? latest_filename
                                              : "checkpoint");
  if (!file) {
    TFS_OOM(st);
    return NULL;
  }
  size_t len = 0;
  char *text = read_all(file, &len);
  tfs_free(file);
  if (!text) return NULL; /* missing or unreadable: None */
  tfs_checkpoint_state *c = tfs_calloc(1, sizeof *c);
  if (!c || parse_state(text, len, c)) {
    tfs_free(text);
    tfs_checkpoint_state_free(c);
    return NULL;
  }
  tfs_free(text);
  if (!c->model || !c->model[0]) {
    tfs_checkpoint_state_free(c);
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "Invalid checkpoint state loaded from %s", dir);
    return NULL;
  }
  for (int i = -1; i < c->npaths; i++) {
    char **p = i < 0 ? &c->model : &c->paths[i];
    if ((*p)[0] == '/') continue;
    char *j = path_join(dir, *p);
    if (!j) {
      tfs_checkpoint_state_free(c);
      TFS_OOM(st);
      return NULL;
    }
    tfs_free(*p);
    *p = j;
  }
  return c;
}

char *tfs_latest_checkpoint(const char *dir, const char *latest_filename,
                            tfs_status *st) {
  tfs_checkpoint_state *c = tfs_checkpoint_state_read(dir, latest_filename,
                                                      st);
  if (!c) return NULL;
  char *v2 = tfs_asprintf("%s.index", c->model);
  char *out = NULL;
  if (!v2) TFS_OOM(st);
  else if (matches(v2) || matches(c->model)) out = strdup(c->model);
  tfs_free(v2);
  tfs_checkpoint_state_free(c);
  return out;
}

/* ---- saving and restoring ------------------------------------------------ */

/* _RecordLastCheckpoint. */
static int record_last(tfs_saver *s, const char *path) {
  if (!s->max_to_keep) return 0;
  int k = 0;
  for (int i = 0; i < s->nlast; i++) {
    if (!strcmp(s->last[i].path, path)) tfs_free(s->last[i].path);
    else s->last[k++] = s->last[i];
  }
  s->nlast = k;
  char *copy = tfs_strdup(path);
  tfs_saver__ckpt *grown = copy ? tfs_realloc(s->last, (size_t)(k + 1) *
                                                           sizeof *grown)
                                : NULL;
  tfs_saver__ckpt *dgrown =
      grown ? tfs_realloc(s->doomed, (size_t)(s->ndoomed + 1) *
                                         sizeof *dgrown)
            : NULL;
  if (grown) s->last = grown;
  if (dgrown) s->doomed = dgrown;
  if (!dgrown) {
    tfs_free(copy);
    return -1;
  }
  s->last[s->nlast++] = (tfs_saver__ckpt){copy, tfs_saver__now()};
  if (s->nlast > s->max_to_keep) {
    s->doomed[s->ndoomed++] = s->last[0];
    memmove(s->last, s->last + 1, (size_t)(s->nlast - 1) * sizeof *s->last);
    s->nlast--;
  }
  return 0;
}

/* _MaybeDeleteOldCheckpoints: the oldest pruned checkpoint is deleted
 * unless keep_checkpoint_every_n_hours keeps it. */
static void maybe_delete(tfs_saver *s) {
  if (!s->ndoomed) return;
  tfs_saver__ckpt p = s->doomed[0];
  memmove(s->doomed, s->doomed + 1,
          (size_t)(s->ndoomed - 1) * sizeof *s->doomed);
  s->ndoomed--;
  if (p.time > s->next_keep_time) {
    s->next_keep_time += (double)s->keep_hours * 3600.0;
  } else {
    remove_checkpoint(p.path);
  }
  tfs_free(p.path);
}

static tfs_tensor *str_tensor(const char *s, tfs_status *st) {
  return tfs_tensor_new_strings(NULL, 0, &s, NULL, st);
}

char *tfs_saver_save(tfs_saver *s, tfs_session *sess, const char *save_path,
                     const int64_t *global_step, const char *latest_filename,
                     int write_state, tfs_status *st) {
  TFS_CHECK_ARG(s != NULL && sess != NULL && save_path != NULL, st, NULL);
  const char *lf = latest_filename ? latest_filename : "checkpoint";
  if (strchr(lf, '/')) {
    tfs_status_set(st, TFS_INVALID_ARGUMENT,
                   "'latest_filename' must not contain path components");
    return NULL;
  }
  char *file = global_step
                   ? tfs_asprintf("%s-%lld", save_path,
                                  (long long)*global_step)
                   : tfs_strdup(save_path);
  if (!file) {
    TFS_OOM(st);
    return NULL;
  }
  if (!global_step && !strcmp(path_basename(save_path), lf) && !s->sharded) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "'latest_filename' collides with 'save_path': '%s' and "
                    "'%s'",
                    lf, save_path);
    tfs_free(file);
    return NULL;
  }
  char *parent = path_dirname(save_path);
  tfs_output feed = tfs_graph_output_by_name(s->g, s->filename_tensor, st);
  tfs_output fetch = {NULL, 0};
  if (tfs_status_ok(st))
    fetch = tfs_graph_output_by_name(s->g, s->save_tensor, st);
  tfs_tensor *fv = tfs_status_ok(st) ? str_tensor(file, st) : NULL;
  tfs_tensor *got = NULL;
  if (fv) tfs_session_run(sess, &feed, &fv, 1, &fetch, &got, 1, NULL, 0, st);
  tfs_tensor_free(fv);
  tfs_free(file);
  char *model = NULL;
  tfs_code code = tfs_status_code(st);
  if ((code == TFS_FAILED_PRECONDITION || code == TFS_NOT_FOUND) && parent &&
      !is_dir(parent)) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "Parent directory of %s doesn't exist, can't save.",
                    save_path);
  } else if (got && tfs_tensor_dtype(got) == TFS_STRING &&
             tfs_tensor_num_elements(got) == 1) {
    size_t len;
    const char *v = tfs_tensor_string_at(got, 0, &len);
    model = malloc(len + 1);
    if (model) {
      memcpy(model, v, len);
      model[len] = 0;
    } else {
      TFS_OOM(st);
    }
  }
  tfs_tensor_free(got);
  if (model && write_state && parent) {
    if (record_last(s, model)) {
      TFS_OOM(st);
    } else {
      const char **paths = tfs_malloc((size_t)(s->nlast + 1) * sizeof *paths);
      if (!paths) TFS_OOM(st);
      for (int i = 0; paths && i < s->nlast; i++) paths[i] = s->last[i].path;
      if (paths)
        tfs_checkpoint_state_write(parent, model, paths, s->nlast, lf, st);
      tfs_free(paths);
      if (tfs_status_ok(st)) maybe_delete(s);
    }
  }
  if (!parent) TFS_OOM(st);
  tfs_free(parent);
  if (!tfs_status_ok(st)) {
    free(model);
    return NULL;
  }
  return model;
}

void tfs_saver_restore(tfs_saver *s, tfs_session *sess, const char *save_path,
                       tfs_status *st) {
  TFS_CHECK_ARG(s != NULL && sess != NULL, st, );
  if (!save_path) {
    tfs_status_set(st, TFS_INVALID_ARGUMENT,
                   "Can't load save_path when it is None.");
    return;
  }
  char *v2 = tfs_asprintf("%s.index", save_path);
  if (!v2) {
    TFS_OOM(st);
    return;
  }
  int exists = matches(v2) || matches(save_path);
  tfs_free(v2);
  if (!exists) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "The passed save_path is not a valid checkpoint: %s",
                    save_path);
    return;
  }
  tfs_output feed = tfs_graph_output_by_name(s->g, s->filename_tensor, st);
  tfs_operation *target = tfs_graph_operation_by_name(s->g, s->restore_op);
  if (!tfs_status_ok(st)) return;
  if (!target) {
    tfs_status_setf(st, TFS_NOT_FOUND, "No operation named %s in the graph",
                    s->restore_op);
    return;
  }
  tfs_tensor *fv = str_tensor(save_path, st);
  if (!fv) return;
  tfs_session_run(sess, &feed, &fv, 1, NULL, NULL, 0, &target, 1, st);
  tfs_tensor_free(fv);
  const char *why = NULL;
  if (tfs_status_code(st) == TFS_NOT_FOUND)
    why = "a Variable name or other graph key that is missing";
  else if (tfs_status_code(st) == TFS_INVALID_ARGUMENT)
    why = "a mismatch between the current graph and the graph";
  if (why)
    tfs_status_prependf(st,
                        "Restoring from checkpoint failed. This is most "
                        "likely due to %s from the checkpoint. Please ensure "
                        "that you have not altered the graph expected based "
                        "on the checkpoint. Original error:\n\n",
                        why);
}

/* ---- recent checkpoints -------------------------------------------------- */

int tfs_saver_num_last_checkpoints(const tfs_saver *s) {
  return s ? s->nlast : 0;
}

const char *tfs_saver_last_checkpoint(const tfs_saver *s, int i) {
  return s && i >= 0 && i < s->nlast ? s->last[i].path : NULL;
}

void tfs_saver_recover_last_checkpoints(tfs_saver *s,
                                        const char *const *paths, int n,
                                        tfs_status *st) {
  TFS_CHECK_ARG(s != NULL && n >= 0 && (paths != NULL || n == 0), st, );
  tfs_saver__ckpt *list = tfs_calloc((size_t)n + 1, sizeof *list);
  if (!list) {
    TFS_OOM(st);
    return;
  }
  int k = 0;
  for (int i = 0; i < n; i++) {
    struct stat sb;
    char *v2 = tfs_asprintf("%s.index", paths[i]);
    int found = v2 && (stat(v2, &sb) == 0 || stat(paths[i], &sb) == 0);
    tfs_free(v2);
    if (!found) continue;
    list[k].path = tfs_strdup(paths[i]);
    list[k].time = (double)sb.st_mtime;
    if (!list[k++].path) {
      for (int j = 0; j < k; j++) tfs_free(list[j].path);
      tfs_free(list);
      TFS_OOM(st);
      return;
    }
  }
  for (int i = 0; i < s->nlast; i++) tfs_free(s->last[i].path);
  tfs_free(s->last);
  s->last = list;
  s->nlast = k;
}
