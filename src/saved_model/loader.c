/*
 * saved_model/loader.c - tfs_saved_model_load: reads saved_model.pb (or
 * saved_model.pbtxt), picks the MetaGraphDef by its tag set, checks its
 * constants as TensorFlow does before creating a session, imports the
 * graph with its function library, opens the session, then restores and
 * initializes (loader_steps.c).  See tfsess/saved_model.h.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "config_proto/pb_text.h"
#include "config_proto/pb_util.h"
#include "core/alloc.h"
#include "core/status.h"
#include "core/strbuf.h"
#include "core/util.h"
#include "graph_builder/graphdef_import.h"
#include "proto/saved_model.pb-c.h"
#include "saved_model/sm_internal.h"

/* ---- reading ------------------------------------------------------------- */

int tfs_sm__read_file(const char *path, char **out, size_t *len,
                      tfs_status *st) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    if (errno == ENOENT || errno == ENOTDIR) return 1;
    tfs_status_setf(st, TFS_PERMISSION_DENIED, "%s; %s", path,
                    strerror(errno));
    return -1;
  }
  char *buf = NULL;
  size_t n = 0, cap = 0;
  for (;;) {
    if (n == cap && tfs_grow((void **)&buf, &cap, n + 65536, 1)) {
      tfs_free(buf);
      fclose(f);
      TFS_OOM(st);
      return -1;
    }
    size_t got = fread(buf + n, 1, cap - n, f);
    n += got;
    if (got == 0) break;
  }
  int err = ferror(f);
  fclose(f);
  if (err) {
    tfs_free(buf);
    tfs_status_setf(st, TFS_DATA_LOSS, "%s: read error", path);
    return -1;
  }
  *out = buf;
  *len = n;
  return 0;
}

/* The TF2 object graph is not modelled (a session loader never reads it):
 * in text it is skipped. */
static const char *const kSkipText[] = {
    "tensorflow.MetaGraphDef.object_graph_def", NULL};

/* The SavedModel proto of `dir`: binary saved_model.pb first, else the
 * text saved_model.pbtxt. */
Tensorflow__SavedModel *tfs_sm__read(const char *dir, tfs_status *st) {
  char *path = tfs_asprintf("%s/saved_model.pb", dir);
  if (!path) {
    TFS_OOM(st);
    return NULL;
  }
  char *data = NULL;
  size_t len = 0;
  int rc = tfs_sm__read_file(path, &data, &len, st);
  tfs_free(path);
  if (rc < 0) return NULL;
  if (rc == 0) {
    int oom = 0;
    Tensorflow__SavedModel *sm = (Tensorflow__SavedModel *)tfs_pb__unpack(
        &tensorflow__saved_model__descriptor, data, len, &oom);
    tfs_free(data);
    if (!sm) {
      if (oom)
        TFS_OOM(st);
      else
        tfs_status_setf(st, TFS_DATA_LOSS,
                        "Could not parse SavedModel proto from %s/"
                        "saved_model.pb",
                        dir);
    }
    return sm;
  }
  path = tfs_asprintf("%s/saved_model.pbtxt", dir);
  if (!path) {
    TFS_OOM(st);
    return NULL;
  }
  rc = tfs_sm__read_file(path, &data, &len, st);
  tfs_free(path);
  if (rc < 0) return NULL;
  if (rc == 1) {
    tfs_status_setf(st, TFS_NOT_FOUND,
                    "Could not find SavedModel .pb or .pbtxt at supplied "
                    "export directory path: %s. Check that the directory "
                    "exists and that you have the right permissions for "
                    "accessing it.",
                    dir);
    return NULL;
  }
  Tensorflow__SavedModel *sm = (Tensorflow__SavedModel *)tfs_pb__parse_text(
      &tensorflow__saved_model__descriptor, data, len, kSkipText, st);
  tfs_free(data);
  if (!sm && tfs_status_code(st) != TFS_RESOURCE_EXHAUSTED) {
    char *why = tfs_strdup(tfs_status_message(st));
    tfs_status_setf(st, TFS_DATA_LOSS,
                    "Could not parse SavedModel proto from %s/"
                    "saved_model.pbtxt: %s",
                    dir, why ? why : "");
    tfs_free(why);
  }
  return sm;
}

/* ---- tags ---------------------------------------------------------------- */

static int has_tag(char *const *tags, int n, const char *t) {
  for (int i = 0; i < n; i++)
    if (strcmp(tags[i], t) == 0) return 1;
  return 0;
}

/* The requested tags as a set (duplicates dropped, order kept); none
 * means { serve }. */
static char **tag_set(const char *const *tags, int ntags, int *n,
                      tfs_status *st) {
  static const char *const serve[] = {"serve"};
  if (ntags <= 0) {
    tags = serve;
    ntags = 1;
  }
  char **set = tfs_calloc((size_t)ntags, sizeof *set);
  if (!set) {
    TFS_OOM(st);
    return NULL;
  }
  int k = 0;
  for (int i = 0; i < ntags; i++) {
    if (has_tag(set, k, tags[i])) continue;
    if (!(set[k] = tfs_strdup(tags[i]))) {
      for (int j = 0; j < k; j++) tfs_free(set[j]);
      tfs_free(set);
      TFS_OOM(st);
      return NULL;
    }
    k++;
  }
  *n = k;
  return set;
}

/* The first MetaGraphDef whose tag set equals `tags`, or NULL with
 * TensorFlow's NOT_FOUND. */
static Tensorflow__MetaGraphDef *pick_meta_graph(
    const Tensorflow__SavedModel *sm, char *const *tags, int ntags,
    tfs_status *st) {
  for (size_t i = 0; i < sm->n_meta_graphs; i++) {
    Tensorflow__MetaGraphDef *mg = sm->meta_graphs[i];
    const Tensorflow__MetaGraphDef__MetaInfoDef *info = mg->meta_info_def;
    size_t nt = info ? info->n_tags : 0;
    int all_in = 1, k = 0;
    char **seen = nt ? tfs_calloc(nt, sizeof *seen) : NULL;
    if (nt && !seen) {
      TFS_OOM(st);
      return NULL;
    }
    for (size_t j = 0; j < nt && all_in; j++) {
      if (!has_tag(tags, ntags, info->tags[j])) all_in = 0;
      if (!has_tag(seen, k, info->tags[j])) seen[k++] = info->tags[j];
    }
    tfs_free(seen);
    if (all_in && k == ntags) return mg;
  }
  tfs_strbuf b = TFS_STRBUF_INIT;
  tfs_strbuf_puts(&b, "Could not find meta graph def matching supplied "
                      "tags: { ");
  for (int i = 0; i < ntags; i++) {
    tfs_strbuf_puts(&b, tags[i]);
    tfs_strbuf_putc(&b, ' ');
  }
  tfs_strbuf_puts(&b, "}. To inspect available tag-sets in the SavedModel, "
                      "please use the SavedModel CLI: `saved_model_cli`");
  tfs_status_set(st, TFS_NOT_FOUND, tfs_strbuf_str(&b));
  tfs_strbuf_free(&b);
  return NULL;
}

/* ---- loading ------------------------------------------------------------- */

static int import_graph(tfs_saved_model *m, const Tensorflow__GraphDef *gd,
                        const tfs_session_options *opts, tfs_status *st) {
  static const Tensorflow__GraphDef empty = TENSORFLOW__GRAPH_DEF__INIT;
  if (!gd) gd = &empty;
  if (tfs_sm__validate_consts(gd, st)) return -1;
  if (!m->g && !(m->g = tfs_graph_new())) {
    TFS_OOM(st);
    return -1;
  }
  tfs_import_results *r = tfs_graph__import_parsed(m->g, gd, NULL, st);
  if (!r) return -1;
  tfs_import_results_free(r);
  m->s = tfs_session_new(m->g, opts, st);
  return m->s ? 0 : -1;
}

/* Keeps the chosen MetaGraphDef serialized for tfs_saved_model_meta_graph
 * (the caller then drops its graph: the session has its own). */
static int keep_meta_graph(tfs_saved_model *m, Tensorflow__MetaGraphDef *mg,
                           tfs_status *st) {
  if (!(m->mg = tfs_buffer_new())) {
    TFS_OOM(st);
    return -1;
  }
  return tfs_pb__pack(&mg->base, m->mg, st);
}

static int load_tags(tfs_saved_model *m, const Tensorflow__MetaGraphDef *mg,
                     tfs_status *st) {
  const Tensorflow__MetaGraphDef__MetaInfoDef *info = mg->meta_info_def;
  size_t n = info ? info->n_tags : 0;
  m->tags = n ? tfs_calloc(n, sizeof *m->tags) : NULL;
  if (n && !m->tags) {
    TFS_OOM(st);
    return -1;
  }
  for (size_t i = 0; i < n; i++) {
    if (!(m->tags[i] = tfs_strdup(info->tags[i]))) {
      TFS_OOM(st);
      return -1;
    }
    m->ntags = (int)i + 1;
  }
  return 0;
}

tfs_saved_model *tfs_sm__load(const char *export_dir, const char *const *tags,
                              int ntags, const tfs_session_options *opts,
                              const tfs_buffer *run_options, tfs_graph *into,
                              tfs_status *st) {
  TFS_CHECK_ARG(export_dir != NULL && (tags != NULL || ntags <= 0), st,
                NULL);
  for (int i = 0; i < ntags; i++) TFS_CHECK_ARG(tags[i] != NULL, st, NULL);
  tfs_saved_model *m = tfs_calloc(1, sizeof *m);
  int nset = 0;
  char **set = m ? tag_set(tags, ntags, &nset, st) : NULL;
  if (!m || !set) {
    if (!m) TFS_OOM(st);
    tfs_free(m);
    return NULL;
  }
  m->g = into;
  m->borrowed_graph = into != NULL;
  Tensorflow__SavedModel *sm = NULL;
  Tensorflow__MetaGraphDef *mg = NULL;
  int ok = (m->dir = tfs_strdup(export_dir)) != NULL;
  if (!ok) TFS_OOM(st);
  ok = ok && (sm = tfs_sm__read(export_dir, st)) != NULL;
  ok = ok && (mg = pick_meta_graph(sm, set, nset, st)) != NULL;
  ok = ok && keep_meta_graph(m, mg, st) == 0 && load_tags(m, mg, st) == 0;
  ok = ok && import_graph(m, mg->graph_def, opts, st) == 0;
  if (ok && mg->graph_def) { /* the session has its own copy */
    tfs_pb__free(&mg->graph_def->base);
    mg->graph_def = NULL;
  }
  ok = ok && tfs_sm__restore_and_init(m, mg, run_options, st) == 0;
  ok = ok && tfs_sm__build_signatures(m, mg, st) == 0;
  for (int i = 0; i < nset; i++) tfs_free(set[i]);
  tfs_free(set);
  if (sm) tfs_pb__free(&sm->base);
  if (!ok) {
    tfs_saved_model_free(m);
    return NULL;
  }
  tfs_status_clear(st);
  return m;
}

tfs_saved_model *tfs_saved_model_load(const char *export_dir,
                                      const char *const *tags, int ntags,
                                      const tfs_session_options *opts,
                                      const tfs_buffer *run_options,
                                      tfs_status *st) {
  return tfs_sm__load(export_dir, tags, ntags, opts, run_options, NULL, st);
}

tfs_session *tfs_sm__take_session(tfs_saved_model *m) {
  tfs_session *s = m->s;
  m->s = NULL;
  return s;
}

void tfs_saved_model_free(tfs_saved_model *m) {
  if (!m) return;
  if (m->s) {
    tfs_status *st = tfs_status_new();
    tfs_session_close(m->s, st);
    tfs_status_free(st);
    tfs_session_free(m->s);
  }
  if (!m->borrowed_graph) tfs_graph_free(m->g);
  tfs_sm__free_signatures(m);
  for (int i = 0; i < m->ntags; i++) tfs_free(m->tags[i]);
  tfs_free(m->tags);
  tfs_buffer_free(m->mg);
  tfs_free(m->dir);
  tfs_free(m);
}

tfs_graph *tfs_saved_model_graph(const tfs_saved_model *m) {
  return m ? m->g : NULL;
}

tfs_session *tfs_saved_model_session(const tfs_saved_model *m) {
  return m ? m->s : NULL;
}

int tfs_saved_model_num_tags(const tfs_saved_model *m) {
  return m ? m->ntags : 0;
}

const char *tfs_saved_model_tag(const tfs_saved_model *m, int i) {
  return m && i >= 0 && i < m->ntags ? m->tags[i] : NULL;
}

void tfs_saved_model_meta_graph(const tfs_saved_model *m, tfs_buffer *out,
                                tfs_status *st) {
  TFS_CHECK_ARG(m != NULL && out != NULL, st, );
  if (tfs_pb__check_empty(out, st)) return;
  tfs_buffer *copy = tfs_buffer_new_copy(m->mg->data, m->mg->length);
  if (!copy) {
    TFS_OOM(st);
    return;
  }
  *out = *copy;
  copy->data_deallocator = NULL;
  tfs_buffer_free(copy);
  tfs_status_clear(st);
}
