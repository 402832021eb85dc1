/*
 * tools/cli_graph.c - graph, feed and fetch helpers of the tfsess program:
 * loading a GraphDef file, resolving tensor and operation names, reading
 * --feed values from .npy/.npz files, naming fetch output files.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "core/status.h"
#include "core/strbuf.h"
#include "core/util.h"

uint8_t *tfs_cli_read_file(const char *path, size_t *len) {
  errno = 0;
  FILE *f = fopen(path, "rb");
  struct stat sb;
  if (!f || fstat(fileno(f), &sb) != 0 || S_ISDIR(sb.st_mode)) {
    tfs_cli_error("%s: cannot read: %s", path,
                  f ? "is a directory" : strerror(errno));
    if (f) fclose(f);
    return NULL;
  }
  size_t n = (size_t)sb.st_size;
  uint8_t *buf = malloc(n ? n : 1);
  if (!buf || (n && fread(buf, 1, n, f) != n)) {
    tfs_cli_error("%s: cannot read: %s", path,
                  buf ? "short read" : "out of memory");
    free(buf);
    fclose(f);
    return NULL;
  }
  fclose(f);
  *len = n;
  return buf;
}

static int g_import_nesting;    /* 0: the default */
static int64_t g_import_nodes;  /* 0: no limit */

void tfs_cli_set_import_limits(int max_nesting, int64_t max_nodes) {
  g_import_nesting = max_nesting;
  g_import_nodes = max_nodes;
}

tfs_graph *tfs_cli_load_graph(const char *path) {
  size_t len;
  uint8_t *bytes = tfs_cli_read_file(path, &len);
  if (!bytes) return NULL;
  tfs_graph *g = tfs_graph_new();
  tfs_status *st = tfs_status_new();
  tfs_import_options *io = tfs_import_options_new();
  tfs_import_results *r = NULL;
  if (io) {
    tfs_import_options_set_max_nesting(io, g_import_nesting);
    tfs_import_options_set_max_nodes(io, g_import_nodes);
  }
  if (g && st && io)
    r = tfs_cli_is_pbtxt(path)
            ? tfs_graph_import_graphdef_text(g, (const char *)bytes, len, io,
                                             st)
            : tfs_graph_import_graphdef(g, bytes, len, io, st);
  tfs_import_options_free(io);
  free(bytes);
  if (!r) {
    tfs_cli_error("%s: %s", path,
                  st && io ? tfs_status_message(st) : "out of memory");
    tfs_graph_free(g);
    g = NULL;
  }
  tfs_import_results_free(r);
  tfs_status_free(st);
  return g;
}

int tfs_cli_resolve(tfs_graph *g, const char *name, const char *what,
                    tfs_output *out) {
  tfs_status *st = tfs_status_new();
  *out = tfs_graph_output_by_name(g, name, st);
  int rc = 0;
  if (!out->oper) {
    tfs_cli_error("%s '%s': %s", what, name, tfs_status_message(st));
    rc = -1;
  }
  tfs_status_free(st);
  return rc;
}

int tfs_cli_feed_split(const char *spec, const char *expect,
                       tfs_cli_feed *f) {
  memset(f, 0, sizeof *f);
  f->spec = spec;
  const char *eq = strchr(spec, '=');
  if (!eq || eq == spec || !eq[1])
    return tfs_cli_usage_error("--feed '%s': expected %s=FILE.npy", spec,
                               expect);
  f->name = tfs_strndup(spec, (size_t)(eq - spec));
  f->file = tfs_strdup(eq + 1);
  if (!f->name || !f->file) return tfs_cli_error("out of memory");
  char *npz = strstr(f->file, ".npz:");
  if (npz) {
    f->npz_key = tfs_strdup(npz + 5);
    npz[4] = 0;
    if (!f->npz_key) return tfs_cli_error("out of memory");
  }
  return 0;
}

int tfs_cli_feed_parse(tfs_graph *g, const char *spec, tfs_cli_feed *f) {
  int rc = tfs_cli_feed_split(spec, "NAME[:INDEX]", f);
  if (rc) return rc;
  if (tfs_cli_resolve(g, f->name, "feed", &f->port)) return TFS_CLI_FAILED;
  tfs_cli_feed_expect_graph(g, f);
  return 0;
}

void tfs_cli_feed_clear(tfs_cli_feed *f) {
  free(f->name);
  free(f->file);
  free(f->npz_key);
  memset(f, 0, sizeof *f);
}

int tfs_cli_feed_is_npz(const tfs_cli_feed *f) {
  size_t n = strlen(f->file);
  return n >= 4 && strcmp(f->file + n - 4, ".npz") == 0;
}

static tfs_tensor *load_npz(const tfs_cli_feed *f, tfs_status *st) {
  tfs_npz *z = tfs_npz_read(f->file, st);
  if (!z) return NULL;
  tfs_tensor *t = f->npz_key              ? tfs_npz_find(z, f->npz_key)
                  : tfs_npz_count(z) == 1 ? tfs_npz_tensor(z, 0)
                                          : NULL;
  if (t) {
    tfs_tensor_ref(t);
  } else {
    /* Name what the archive holds so the user can pick. */
    char list[512] = "";
    size_t used = 0;
    for (int i = 0; i < tfs_npz_count(z) && used + 4 < sizeof list; i++)
      used += (size_t)snprintf(list + used, sizeof list - used, "%s%s",
                               i ? ", " : "", tfs_npz_name(z, i));
    if (f->npz_key)
      tfs_status_setf(st, TFS_NOT_FOUND, "%s has no array '%s' (it holds: %s)",
                      f->file, f->npz_key, list);
    else
      tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                      "%s holds %d arrays (%s); pick one with %s:KEY", f->file,
                      tfs_npz_count(z), list, f->file);
  }
  tfs_npz_free(z);
  return t;
}

tfs_tensor *tfs_cli_feed_read(const tfs_cli_feed *f) {
  tfs_status *st = tfs_status_new();
  tfs_tensor *t =
      tfs_cli_feed_is_npz(f) ? load_npz(f, st) : tfs_npy_read(f->file, st);
  if (!t) tfs_cli_error("feed '%s': %s", f->name, tfs_status_message(st));
  tfs_status_free(st);
  return t;
}

tfs_tensor *tfs_cli_feed_load(tfs_cli_feed *f) {
  tfs_tensor *t = tfs_cli_feed_read(f);
  if (t && tfs_cli_feed_conform(f, &t)) {
    tfs_tensor_free(t);
    t = NULL;
  }
  return t;
}

int tfs_cli_resolve_targets(tfs_graph *g, const tfs_cli_list *names,
                            tfs_operation **out) {
  for (int i = 0; i < names->n; i++) {
    out[i] = tfs_graph_operation_by_name(g, names->v[i]);
    if (!out[i]) {
      tfs_cli_error("target '%s': no operation of that name in the graph",
                    names->v[i]);
      return -1;
    }
  }
  return 0;
}

char *tfs_cli_fetch_path(const char *dir, const char *fetch_name) {
  const char *colon = strrchr(fetch_name, ':');
  size_t base = colon ? (size_t)(colon - fetch_name) : strlen(fetch_name);
  const char *index = colon ? colon + 1 : "0";
  tfs_strbuf b = TFS_STRBUF_INIT;
  tfs_strbuf_printf(&b, "%s/", dir);
  for (size_t i = 0; i < base; i++) {
    if (fetch_name[i] == '/')
      tfs_strbuf_puts(&b, "__");
    else
      tfs_strbuf_putc(&b, fetch_name[i]);
  }
  tfs_strbuf_printf(&b, "_%s.npy", index);
  return tfs_strbuf_take(&b);
}

int tfs_cli_is_pbtxt(const char *path) {
  size_t n = strlen(path);
  return n >= 6 && strcmp(path + n - 6, ".pbtxt") == 0;
}

int tfs_cli_mkdirs(const char *dir) {
  char *p = tfs_strdup(dir);
  if (!p) {
    tfs_cli_error("out of memory");
    return -1;
  }
  int rc = 0;
  for (char *s = p + 1;; s++) {
    int end = *s == 0;
    if (*s == '/' || end) {
      *s = 0;
      struct stat sb;
      errno = 0;
      if (mkdir(p, 0777) != 0 && errno != EEXIST) {
        tfs_cli_error("%s: cannot create directory: %s", p, strerror(errno));
        rc = -1;
        break;
      }
      if (stat(p, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
        tfs_cli_error("%s: exists and is not a directory", p);
        rc = -1;
        break;
      }
      if (end) break;
      *s = '/';
    }
  }
  free(p);
  return rc;
}
