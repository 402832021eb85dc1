/*
 * tests/conformance/conformance.c - runs one conformance case directory:
 * parses manifest.txt, imports graph.pb (or its re-export), builds the
 * session from the case's ConfigProto, runs init ops, feeds, fetches,
 * targets N times, and compares with TensorFlow's recorded outputs or
 * error.
 */
#include "conformance.h"

#include <ctype.h>
#include <dirent.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "core/half.h"
#include "core/tensor.h"
#include "iotest.h"

typedef tc_manifest manifest;

static int fail(char *err, size_t cap, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, cap, fmt, ap);
  va_end(ap);
  return -1;
}

/* ---- manifest ------------------------------------------------------------ */

void tc_manifest_free(tc_manifest *m) {
  for (int i = 0; i < m->nfeeds; i++) {
    free(m->feeds[i].name);
    free(m->feeds[i].file);
  }
  for (int i = 0; i < m->nfetches; i++) {
    free(m->fetches[i].name);
    free(m->fetches[i].file);
  }
  for (int i = 0; i < m->ninits; i++) free(m->inits[i]);
  for (int i = 0; i < m->ntargets; i++) free(m->targets[i]);
  free(m->config);
  free(m->error_code);
  free(m->error_text);
}

/* Splits `line` into at most `max` whitespace-separated words. */
static int words(char *line, char **w, int max) {
  int n = 0;
  for (char *p = line; *p && n < max;) {
    while (*p && isspace((unsigned char)*p)) p++;
    if (!*p) break;
    w[n++] = p;
    while (*p && !isspace((unsigned char)*p)) p++;
    if (*p) *p++ = 0;
  }
  return n;
}

static int parse_line(manifest *m, char *line, char *err, size_t cap) {
  char *hash = strchr(line, '#');
  if (hash) *hash = 0;
  char copy[1024];
  snprintf(copy, sizeof copy, "%s", line);
  char *w[8];
  int n = words(line, w, 8);
  if (n == 0) return 0;
  if (!strcmp(w[0], "feed") && n == 3 && m->nfeeds < TC_MAX_ITEMS) {
    m->feeds[m->nfeeds++] = (tc_item){strdup(w[1]), strdup(w[2]), -1, -1, 0};
  } else if (!strcmp(w[0], "path") && n == 3 && m->nfeeds < TC_MAX_ITEMS) {
    m->feeds[m->nfeeds++] =
        (tc_item){strdup(w[1]), strdup(w[2]), -1, -1, TC_PATH_FILE};
  } else if (!strcmp(w[0], "feedpath") && n == 3 &&
             m->nfeeds < TC_MAX_ITEMS) {
    m->feeds[m->nfeeds++] =
        (tc_item){strdup(w[1]), strdup(w[2]), -1, -1, TC_PATH_IN_NPY};
  } else if (!strcmp(w[0], "fetch") && n >= 3 && m->nfetches < TC_MAX_ITEMS) {
    tc_item it = {strdup(w[1]), strdup(w[2]), -1, -1, 0};
    for (int i = 3; i < n; i++) {
      if (!strncmp(w[i], "rtol=", 5))
        it.rtol = atof(w[i] + 5);
      else if (!strncmp(w[i], "atol=", 5))
        it.atol = atof(w[i] + 5);
    }
    m->fetches[m->nfetches++] = it;
  } else if (!strcmp(w[0], "init") && n == 2 && m->ninits < TC_MAX_ITEMS) {
    m->inits[m->ninits++] = strdup(w[1]);
  } else if (!strcmp(w[0], "target") && n == 2 && m->ntargets < TC_MAX_ITEMS) {
    m->targets[m->ntargets++] = strdup(w[1]);
  } else if (!strcmp(w[0], "config") && n == 2) {
    m->config = strdup(w[1]);
  } else if (!strcmp(w[0], "run") && n == 2) {
    m->runs = atoi(w[1]);
  } else if (!strcmp(w[0], "error") && n >= 3) {
    m->error_code = strdup(w[1]);
    /* the text is the rest of the line, spaces kept */
    char *t = strstr(copy, w[1]) + strlen(w[1]);
    while (isspace((unsigned char)*t)) t++;
    size_t len = strlen(t);
    while (len && isspace((unsigned char)t[len - 1])) t[--len] = 0;
    m->error_text = strdup(t);
  } else {
    return fail(err, cap, "manifest: cannot understand '%s'", copy);
  }
  return 0;
}

int tc_manifest_parse(const char *dir, tc_manifest *m, char *err,
                      size_t cap) {
  memset(m, 0, sizeof *m);
  char path[4200];
  snprintf(path, sizeof path, "%s/manifest.txt", dir);
  size_t len;
  char *text = (char *)it_read_file(path, &len);
  if (!text) return fail(err, cap, "cannot read %s", path);
  char *buf = realloc(text, len + 1);
  buf[len] = 0;
  m->runs = 1;
  int rc = 0;
  for (char *line = buf, *next; line && rc == 0; line = next) {
    next = strchr(line, '\n');
    if (next) *next++ = 0;
    rc = parse_line(m, line, err, cap);
  }
  free(buf);
  return rc;
}

/* ---- comparison ---------------------------------------------------------- */

static void index_str(const tfs_tensor *t, int64_t i, char *buf, size_t cap) {
  int nd = tfs_tensor_ndims(t);
  int64_t idx[TFS_MAX_RANK];
  for (int d = nd - 1; d >= 0; d--) {
    int64_t n = tfs_tensor_dim(t, d);
    idx[d] = n ? i % n : 0;
    i = n ? i / n : 0;
  }
  size_t used = (size_t)snprintf(buf, cap, "[");
  for (int d = 0; d < nd && used < cap; d++)
    used += (size_t)snprintf(buf + used, cap - used, "%s%lld", d ? "," : "",
                             (long long)idx[d]);
  if (used < cap) snprintf(buf + used, cap - used, "]");
}

static double real_at(const tfs_tensor *t, int64_t k) {
  switch (tfs_tensor_dtype(t)) {
    case TFS_COMPLEX64:
      return ((const float *)tfs_tensor_data(t))[k];
    case TFS_COMPLEX128:
      return ((const double *)tfs_tensor_data(t))[k];
    default:
      return tfs_tensor__get_as_double(t, k);
  }
}

static int is_float(tfs_dtype dt) {
  return dt == TFS_FLOAT || dt == TFS_DOUBLE || dt == TFS_HALF ||
         dt == TFS_BFLOAT16 || dt == TFS_COMPLEX64 || dt == TFS_COMPLEX128;
}

static void default_tol(tfs_dtype dt, double *rtol, double *atol) {
  double r = 1e-5, a = 1e-6;
  if (dt == TFS_DOUBLE || dt == TFS_COMPLEX128) {
    r = 1e-10;
    a = 1e-12;
  }
  if (dt == TFS_HALF || dt == TFS_BFLOAT16) r = a = 1e-3;
  if (*rtol < 0) *rtol = r;
  if (*atol < 0) *atol = a;
}

static int compare_elems(const tfs_tensor *got, const tfs_tensor *want,
                         double rtol, double atol, char *err, size_t cap) {
  tfs_dtype dt = tfs_tensor_dtype(want);
  int64_t n = tfs_tensor_num_elements(want);
  int parts = dt == TFS_COMPLEX64 || dt == TFS_COMPLEX128 ? 2 : 1;
  char where[256];
  for (int64_t k = 0; k < n * parts; k++) {
    int64_t i = k / parts;
    if (dt == TFS_STRING) {
      size_t la, lb;
      const char *a = tfs_tensor_string_at(got, i, &la);
      const char *b = tfs_tensor_string_at(want, i, &lb);
      if (la == lb && memcmp(a, b, la) == 0) continue;
      index_str(want, i, where, sizeof where);
      return fail(err, cap,
                  "element %lld (index %s): got \"%.*s\", expected "
                  "\"%.*s\"",
                  (long long)i, where, (int)(la > 60 ? 60 : la), a,
                  (int)(lb > 60 ? 60 : lb), b);
    }
    if (!is_float(dt)) {
      int64_t a = tfs_tensor__get_as_int64(got, i);
      int64_t b = tfs_tensor__get_as_int64(want, i);
      if (a == b) continue;
      index_str(want, i, where, sizeof where);
      return fail(err, cap, "element %lld (index %s): got %lld, expected %lld",
                  (long long)i, where, (long long)a, (long long)b);
    }
    double a = real_at(got, k), b = real_at(want, k);
    if ((isnan(a) && isnan(b)) || a == b) continue;
    if (!isinf(b) && fabs(a - b) <= atol + rtol * fabs(b)) continue;
    index_str(want, i, where, sizeof where);
    return fail(err, cap,
                "element %lld (index %s)%s: got %.9g, expected %.9g "
                "(rtol %g, atol %g)",
                (long long)i, where,
                parts == 2 ? (k % 2 ? " imaginary part" : " real part") : "", a,
                b, rtol, atol);
  }
  return 0;
}

int tc_compare(const tfs_tensor *got, const tfs_tensor *want, double rtol,
               double atol, char *err, size_t cap) {
  char a[512], b[512];
  if (!got) return fail(err, cap, "no tensor was fetched");
  tfs_dtype dt = tfs_tensor_dtype(want);
  if (tfs_tensor_dtype(got) != dt)
    return fail(err, cap, "dtype %s, expected %s",
                tfs_dtype_name(tfs_tensor_dtype(got)), tfs_dtype_name(dt));
  int same = tfs_tensor_ndims(got) == tfs_tensor_ndims(want);
  for (int d = 0; same && d < tfs_tensor_ndims(want); d++)
    same = tfs_tensor_dim(got, d) == tfs_tensor_dim(want, d);
  if (!same)
    return fail(err, cap, "shape %s, expected %s",
                tfs_tensor_shape_string(got, a, sizeof a),
                tfs_tensor_shape_string(want, b, sizeof b));
  default_tol(dt, &rtol, &atol);
  return compare_elems(got, want, rtol, atol, err, cap);
}

/* ---- graphs -------------------------------------------------------------- */

/* Imports a GraphDef; on failure writes "WHAT: message" to err and, when
 * `code` is not NULL, the status code to *code. */
static tfs_graph *import_bytes_code(const void *data, size_t len, char *err,
                                    size_t cap, const char *what,
                                    tfs_code *code) {
  tfs_status *st = tfs_status_new();
  tfs_graph *g = tfs_graph_new();
  tfs_import_results *r = tfs_graph_import_graphdef(g, data, len, NULL, st);
  if (!r) {
    fail(err, cap, "%s: %s", what, tfs_status_message(st));
    if (code) *code = tfs_status_code(st);
    tfs_graph_free(g);
    g = NULL;
  }
  tfs_import_results_free(r);
  tfs_status_free(st);
  return g;
}

static tfs_graph *import_bytes(const void *data, size_t len, char *err,
                               size_t cap, const char *what) {
  return import_bytes_code(data, len, err, cap, what, NULL);
}

/* A case whose `error` TensorFlow raised while importing the graph (shape
 * inference or attr checks) passes when tfsess's import fails alike:
 * same code, message containing the text.  err holds the import error. */
static int expect_import_error(const manifest *m, tfs_code code, char *err,
                               size_t cap) {
  if (!m->error_code) return -1;
  if (!strcmp(tfs_code_name(code), m->error_code) &&
      strstr(err, m->error_text))
    return 0;
  char got[2048];
  snprintf(got, sizeof got, "%s", err);
  return fail(err, cap, "expected %s containing \"%s\", got %s: %s",
              m->error_code, m->error_text, tfs_code_name(code), got);
}

static void free_buffer(tfs_buffer *b) {
  if (b->data_deallocator) b->data_deallocator((void *)b->data, b->length);
  b->data = NULL;
  b->length = 0;
}

/* Writes the re-exported case: graph.pb from `gd`, the rest copied. */
static int write_export(const char *dir, const char *name,
                        const char *export_dir, const tfs_buffer *gd, char *err,
                        size_t cap) {
  char out[4096], cmd[8600];
  snprintf(out, sizeof out, "%s/%s", export_dir, name);
  snprintf(cmd, sizeof cmd, "mkdir -p '%s' && cp '%s'/* '%s'/", out, dir, out);
  if (system(cmd) != 0)
    return fail(err, cap, "cannot copy the case to %s", out);
  char path[4200];
  snprintf(path, sizeof path, "%s/graph.pb", out);
  if (it_write_file(path, gd->data, gd->length))
    return fail(err, cap, "cannot write %s", path);
  return 0;
}

/* Exports g, imports the export into a new graph, checks a second export
 * gives the same bytes; returns the new graph (g is freed). */
static tfs_graph *reexport(tfs_graph *g, const char *dir, const char *name,
                           const char *export_dir, char *err, size_t cap) {
  tfs_status *st = tfs_status_new();
  tfs_buffer a = {NULL, 0, NULL}, b = {NULL, 0, NULL};
  tfs_graph *g2 = NULL;
  tfs_graph_to_graphdef(g, &a, st);
  if (!tfs_status_ok(st)) {
    fail(err, cap, "export: %s", tfs_status_message(st));
    goto out;
  }
  g2 = import_bytes(a.data, a.length, err, cap, "import of the export");
  if (!g2) goto out;
  tfs_graph_to_graphdef(g2, &b, st);
  if (!tfs_status_ok(st)) {
    fail(err, cap, "second export: %s", tfs_status_message(st));
  } else if (a.length != b.length || memcmp(a.data, b.data, a.length)) {
    fail(err, cap,
         "exporting the re-imported graph gives other bytes (%zu, "
         "first export %zu)",
         b.length, a.length);
  } else if (!export_dir ||
             !write_export(dir, name, export_dir, &a, err, cap)) {
    goto out;
  }
  tfs_graph_free(g2);
  g2 = NULL;
out:
  free_buffer(&a);
  free_buffer(&b);
  tfs_status_free(st);
  tfs_graph_free(g);
  return g2;
}

/* ---- running ------------------------------------------------------------- */

typedef struct {
  tfs_session *s;
  tfs_output feeds[TC_MAX_ITEMS], fetches[TC_MAX_ITEMS];
  tfs_tensor *values[TC_MAX_ITEMS], *out[TC_MAX_ITEMS];
  tfs_operation *targets[TC_MAX_ITEMS];
} runner;

static tfs_session *new_session(tfs_graph *g, const char *dir,
                                const manifest *m, char *err, size_t cap) {
  tfs_status *st = tfs_status_new();
  tfs_session_options *o = tfs_session_options_new();
  tfs_session *s = NULL;
  if (m->config) {
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, m->config);
    size_t len;
    uint8_t *bytes = it_read_file(path, &len);
    if (!bytes) {
      fail(err, cap, "cannot read %s", path);
      goto out;
    }
    tfs_session_options_set_config(o, bytes, len, st);
    free(bytes);
    if (!tfs_status_ok(st)) {
      fail(err, cap, "config %s: %s", m->config, tfs_status_message(st));
      goto out;
    }
  }
  s = tfs_session_new(g, o, st);
  if (!s) fail(err, cap, "session: %s", tfs_status_message(st));
out:
  tfs_session_options_free(o);
  tfs_status_free(st);
  return s;
}

/* A feedpath value: the string scalar `rel` (freed) joined to the case
 * directory. */
static tfs_tensor *case_path(const char *dir, tfs_tensor *rel,
                             tfs_status *st) {
  tfs_tensor *t = NULL;
  if (tfs_tensor_dtype(rel) == TFS_STRING && tfs_tensor_ndims(rel) == 0) {
    size_t len;
    const char *s = tfs_tensor_string_at(rel, 0, &len);
    char path[4400];
    snprintf(path, sizeof path, "%s/%.*s", dir, (int)len, s);
    const char *p = path;
    size_t plen = strlen(path);
    t = tfs_tensor_new_strings(NULL, 0, &p, &plen, st);
  } else {
    tfs_status_set(st, TFS_INVALID_ARGUMENT, "feedpath: not a string scalar");
  }
  tfs_tensor_free(rel);
  return t;
}

static int resolve(tfs_graph *g, const char *dir, const manifest *m, runner *r,
                   char *err, size_t cap) {
  tfs_status *st = tfs_status_new();
  int rc = 0;
  for (int i = 0; rc == 0 && i < m->nfeeds; i++) {
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, m->feeds[i].file);
    r->feeds[i] = tfs_graph_output_by_name(g, m->feeds[i].name, st);
    if (r->feeds[i].oper && m->feeds[i].is_path == TC_PATH_FILE)
      r->values[i] = tfs_tensor_scalar_string(path, strlen(path));
    else if (r->feeds[i].oper)
      r->values[i] = tfs_npy_read(path, st);
    if (r->values[i] && m->feeds[i].is_path == TC_PATH_IN_NPY)
      r->values[i] = case_path(dir, r->values[i], st);
    if (!r->feeds[i].oper || !r->values[i])
      rc = fail(err, cap, "feed %s: %s", m->feeds[i].name,
                tfs_status_message(st));
  }
  for (int i = 0; rc == 0 && i < m->nfetches; i++) {
    r->fetches[i] = tfs_graph_output_by_name(g, m->fetches[i].name, st);
    if (!r->fetches[i].oper)
      rc = fail(err, cap, "fetch %s: %s", m->fetches[i].name,
                tfs_status_message(st));
  }
  for (int i = 0; rc == 0 && i < m->ntargets; i++)
    if (!(r->targets[i] = tfs_graph_operation_by_name(g, m->targets[i])))
      rc = fail(err, cap, "target %s: no such operation", m->targets[i]);
  tfs_status_free(st);
  return rc;
}

/* Runs the init ops once (fed the `path` feeds), then the case `runs`
 * times. */
static int run_all(tfs_graph *g, const manifest *m, runner *r, tfs_status *st,
                   char *err, size_t cap) {
  tfs_output pf[TC_MAX_ITEMS];
  tfs_tensor *pv[TC_MAX_ITEMS];
  int np = 0;
  for (int i = 0; i < m->nfeeds; i++)
    if (m->feeds[i].is_path) {
      pf[np] = r->feeds[i];
      pv[np++] = r->values[i];
    }
  for (int i = 0; i < m->ninits; i++) {
    tfs_operation *op = tfs_graph_operation_by_name(g, m->inits[i]);
    if (!op) return fail(err, cap, "init %s: no such operation", m->inits[i]);
    tfs_session_run(r->s, pf, pv, np, NULL, NULL, 0, &op, 1, st);
    if (!tfs_status_ok(st))
      return fail(err, cap, "init %s: %s", m->inits[i], tfs_status_message(st));
  }
  for (int k = 0; k < m->runs; k++) {
    for (int i = 0; i < m->nfetches; i++) tfs_tensor_free(r->out[i]);
    tfs_session_run(r->s, r->feeds, r->values, m->nfeeds, r->fetches, r->out,
                    m->nfetches, r->targets, m->ntargets, st);
    if (!tfs_status_ok(st)) return 1; /* the caller judges the error */
  }
  return 0;
}

static int check_outputs(const char *dir, const manifest *m, runner *r,
                         char *err, size_t cap) {
  tfs_status *st = tfs_status_new();
  int rc = 0;
  for (int i = 0; rc == 0 && i < m->nfetches; i++) {
    char path[4200], why[1024];
    snprintf(path, sizeof path, "%s/%s", dir, m->fetches[i].file);
    tfs_tensor *want = tfs_npy_read(path, st);
    if (!want)
      rc = fail(err, cap, "%s", tfs_status_message(st));
    else if (tc_compare(r->out[i], want, m->fetches[i].rtol, m->fetches[i].atol,
                        why, sizeof why))
      rc = fail(err, cap, "fetch '%s': %s", m->fetches[i].name, why);
    tfs_tensor_free(want);
  }
  tfs_status_free(st);
  return rc;
}

int tc_run_case(const char *dir, const char *name, int reexport_graph,
                const char *export_dir, char *err, size_t cap) {
  manifest m;
  memset(&m, 0, sizeof m);
  runner r;
  memset(&r, 0, sizeof r);
  tfs_status *st = tfs_status_new();
  tfs_graph *g = NULL;
  char path[4200];
  size_t len;
  int rc = tc_manifest_parse(dir, &m, err, cap);
  snprintf(path, sizeof path, "%s/graph.pb", dir);
  uint8_t *bytes = rc ? NULL : it_read_file(path, &len);
  if (!rc && !bytes) rc = fail(err, cap, "cannot read %s", path);
  tfs_code import_code = TFS_OK;
  if (!rc &&
      !(g = import_bytes_code(bytes, len, err, cap, "import", &import_code))) {
    free(bytes);
    rc = expect_import_error(&m, import_code, err, cap);
    tc_manifest_free(&m);
    tfs_status_free(st);
    return rc ? -1 : 0;
  }
  free(bytes);
  if (!rc && reexport_graph &&
      !(g = reexport(g, dir, name, export_dir, err, cap)))
    rc = -1;
  if (!rc && !(r.s = new_session(g, dir, &m, err, cap))) rc = -1;
  if (!rc) rc = resolve(g, dir, &m, &r, err, cap);
  if (!rc) {
    rc = run_all(g, &m, &r, st, err, cap);
    if (rc > 0 && !m.error_code) {
      rc = fail(err, cap, "run failed: %s: %s",
                tfs_code_name(tfs_status_code(st)), tfs_status_message(st));
    } else if (rc > 0) {
      rc =
          strcmp(tfs_code_name(tfs_status_code(st)), m.error_code) ||
                  !strstr(tfs_status_message(st), m.error_text)
              ? fail(err, cap, "expected %s containing \"%s\", got %s: %s",
                     m.error_code, m.error_text,
                     tfs_code_name(tfs_status_code(st)), tfs_status_message(st))
              : 0;
    } else if (rc == 0 && m.error_code) {
      rc = fail(err, cap,
                "expected %s containing \"%s\", but the run "
                "succeeded",
                m.error_code, m.error_text);
    } else if (rc == 0) {
      rc = check_outputs(dir, &m, &r, err, cap);
    }
  }
  for (int i = 0; i < TC_MAX_ITEMS; i++) {
    tfs_tensor_free(r.values[i]);
    tfs_tensor_free(r.out[i]);
  }
  tfs_session_free(r.s);
  tfs_graph_free(g);
  tfs_status_free(st);
  tc_manifest_free(&m);
  return rc ? -1 : 0;
}

/* ---- groups of cases ----------------------------------------------------- */

const char *const tc_control_flow_groups[] = {
    "control", "functional", "functions", "recurrent", "tensor_array", NULL};

static int cmp_names(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static int run_group(const char *root, const char *group, tc_case_fn fn,
                     const char *way, int *failed) {
  char dirname[4200];
  snprintf(dirname, sizeof dirname, "%s/tests/conformance/%s", root, group);
  DIR *d = opendir(dirname);
  if (!d) return 0;
  char *names[512];
  int n = 0, ran = 0;
  struct dirent *e;
  while ((e = readdir(d)) && n < 512)
    if (e->d_name[0] != '.') names[n++] = strdup(e->d_name);
  closedir(d);
  qsort(names, (size_t)n, sizeof *names, cmp_names);
  for (int i = 0; i < n; i++) {
    char dir[4500], manifest[4600], err[2048] = "";
    struct stat sb;
    snprintf(dir, sizeof dir, "%s/%s", dirname, names[i]);
    snprintf(manifest, sizeof manifest, "%s/manifest.txt", dir);
    if (stat(manifest, &sb) == 0) {
      ran++;
      if (fn(dir, err, sizeof err)) {
        fprintf(stderr, "\n  case %s/%s (%s): %s\n", group, names[i], way,
                err);
        (*failed)++;
      }
    }
    free(names[i]);
  }
  return ran;
}

int tc_run_groups(const char *root, const char *const *groups, tc_case_fn fn,
                  const char *way, int *failed) {
  int ran = 0;
  for (int i = 0; groups[i]; i++)
    ran += run_group(root, groups[i], fn, way, failed);
  return ran;
}
