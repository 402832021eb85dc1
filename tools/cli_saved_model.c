/*
 * tools/cli_saved_model.c - what `run` and `inspect` share for SavedModel
 * directories: recognizing one, the --tags list, and loading it with the
 * session flags.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "core/strbuf.h"

int tfs_cli_is_saved_model(const char *path) {
  struct stat sb;
  return stat(path, &sb) == 0 && S_ISDIR(sb.st_mode);
}

void tfs_cli_tags_free(tfs_cli_tags *t) {
  for (int i = 0; i < t->n; i++) free(t->v[i]);
  free(t->v);
  t->v = NULL;
  t->n = 0;
}

int tfs_cli_tags_parse(const char *list, tfs_cli_tags *t) {
  t->n = 0;
  t->v = NULL;
  if (!list) list = "serve";
  size_t cap = 1;
  for (const char *p = list; *p; p++) cap += *p == ',';
  t->v = calloc(cap, sizeof *t->v);
  if (!t->v) return tfs_cli_error("out of memory");
  /* as saved_model_cli: split on ',', surrounding blanks and empty items
   * dropped */
  for (const char *p = list;;) {
    const char *end = strchr(p, ',');
    if (!end) end = p + strlen(p);
    const char *a = p, *b = end;
    while (a < b && (*a == ' ' || *a == '\t')) a++;
    while (b > a && (b[-1] == ' ' || b[-1] == '\t')) b--;
    if (b > a && !(t->v[t->n++] = tfs_strndup(a, (size_t)(b - a)))) {
      tfs_cli_tags_free(t);
      return tfs_cli_error("out of memory");
    }
    if (!*end) break;
    p = end + 1;
  }
  if (t->n == 0) {
    tfs_cli_tags_free(t);
    return tfs_cli_usage_error("--tags '%s': expected TAG[,TAG...]", list);
  }
  return TFS_CLI_OK;
}

tfs_saved_model *tfs_cli_load_saved_model(const char *dir, const char *tags,
                                          const tfs_cli_session *sess) {
  tfs_cli_tags t;
  if (tfs_cli_tags_parse(tags, &t)) return NULL;
  tfs_session_options *opts = tfs_cli_session_options(sess);
  if (!opts) {
    tfs_cli_tags_free(&t);
    return NULL;
  }
  tfs_status *st = tfs_status_new();
  tfs_saved_model *m = tfs_saved_model_load(
      dir, (const char *const *)t.v, t.n, opts, NULL, st);
  if (!m) tfs_cli_status_error(st);
  tfs_status_free(st);
  tfs_session_options_free(opts);
  tfs_cli_tags_free(&t);
  return m;
}

char *tfs_cli_key_path(const char *dir, const char *key) {
  tfs_strbuf b = TFS_STRBUF_INIT;
  tfs_strbuf_printf(&b, "%s/", dir);
  for (const char *p = key; *p; p++) {
    if (*p == '/')
      tfs_strbuf_puts(&b, "__");
    else
      tfs_strbuf_putc(&b, *p);
  }
  tfs_strbuf_puts(&b, ".npy");
  return tfs_strbuf_take(&b);
}
