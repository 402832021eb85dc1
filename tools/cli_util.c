/*
 * tools/cli_util.c - the tfsess program's plumbing: one-line errors, the
 * table-driven option parser and its --help text, string lists, and the
 * per-fetch statistics line.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "core/shape.h"
#include "core/tensor.h"

const char *tfs_cli_command;
const char *tfs_cli_error_prefix;

/* ---- errors -------------------------------------------------------------- */

static void print_error(const char *kind, const char *fmt, va_list ap) {
  char *msg = tfs_vasprintf(fmt, ap);
  tfs_cli_progress_break(); /* the message gets a line of its own */
  const char *pre = tfs_cli_error_prefix ? tfs_cli_error_prefix : "";
  if (!msg) {
    fprintf(stderr, "tfsess: %sout of memory\n", pre);
    return;
  }
  /* One line: TensorFlow's messages carry "\n\t [[{{node x}}]]" tails;
   * every run of whitespace becomes one space. */
  char *w = msg;
  for (const char *c = msg; *c; c++) {
    int space = *c == '\n' || *c == '\t' || *c == '\r' || *c == ' ';
    if (space && (w == msg || w[-1] == ' ')) continue;
    *w++ = space ? ' ' : *c;
  }
  while (w > msg && w[-1] == ' ') w--;
  *w = 0;
  /* written whole with one call: under mpirun every rank's stderr goes
   * to one stream, and pieces of two ranks' lines would interleave */
  char *line = tfs_cli_command
                   ? tfs_asprintf("tfsess %s: %s%s%s\n", tfs_cli_command,
                                  pre, kind, msg)
                   : tfs_asprintf("tfsess: %s%s%s\n", pre, kind, msg);
  fputs(line ? line : "tfsess: out of memory\n", stderr);
  fflush(stderr);
  free(line);
  free(msg);
}

int tfs_cli_error(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  print_error("", fmt, ap);
  va_end(ap);
  return TFS_CLI_FAILED;
}

void tfs_cli_warning(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  print_error("warning: ", fmt, ap);
  va_end(ap);
}

int tfs_cli_usage_error(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  print_error("", fmt, ap);
  va_end(ap);
  return TFS_CLI_USAGE;
}

int tfs_cli_status_error(const tfs_status *st) {
  const char *m = tfs_status_message(st);
  return tfs_cli_error("%s", m && *m ? m : tfs_code_name(tfs_status_code(st)));
}

/* ---- options ------------------------------------------------------------- */

/* Prints `text` from column 27 on, wrapped before column 80. */
static void print_wrapped(const char *text) {
  int col = 27;
  while (*text) {
    const char *sp = strchr(text, ' ');
    int len = sp ? (int)(sp - text) : (int)strlen(text);
    if (col > 27 && col + 1 + len > 79) {
      printf("\n%27s", "");
      col = 27;
    } else if (col > 27) {
      putchar(' ');
      col++;
    }
    printf("%.*s", len, text);
    col += len;
    text += len;
    while (*text == ' ') text++;
  }
  putchar('\n');
}

static void print_help(const tfs_cli_help *help, const tfs_cli_group *groups,
                       int ngroups) {
  printf("usage: tfsess %s\n\n%s\n", help->usage, help->description);
  for (int g = 0; g < ngroups; g++) {
    printf("\n%s:\n", groups[g].title);
    for (const tfs_cli_opt *o = groups[g].opts; o->name; o++) {
      char left[64];
      snprintf(left, sizeof left, "--%s%s%s", o->name, o->metavar ? " " : "",
               o->metavar ? o->metavar : "");
      printf("  %-24s ", left);
      if (strlen(left) > 24) printf("\n%27s", "");
      print_wrapped(o->help);
    }
  }
  printf("\nGeneral:\n  %-24s %s\n", "--help", "show this help and exit");
}

static const tfs_cli_opt *find_opt(const tfs_cli_group *groups, int ngroups,
                                   const char *name, size_t len, void **ctx) {
  for (int g = 0; g < ngroups; g++) {
    for (const tfs_cli_opt *o = groups[g].opts; o->name; o++) {
      if (strlen(o->name) == len && strncmp(o->name, name, len) == 0) {
        *ctx = groups[g].ctx;
        return o;
      }
    }
  }
  return NULL;
}

int tfs_cli_parse(int argc, char **argv, const tfs_cli_help *help,
                  const tfs_cli_group *groups, int ngroups, char **pos,
                  int *npos) {
  *npos = 0;
  int only_positional = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!only_positional && (!strcmp(a, "--help") || !strcmp(a, "-h"))) {
      print_help(help, groups, ngroups);
      return 1;
    }
  }
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!only_positional && strcmp(a, "--") == 0) {
      only_positional = 1;
      continue;
    }
    if (only_positional || a[0] != '-' || a[1] == 0) {
      if (*npos >= help->max_positional) {
        tfs_cli_usage_error("unexpected argument '%s' (see tfsess %s --help)",
                            a, tfs_cli_command);
        return -1;
      }
      pos[(*npos)++] = argv[i];
      continue;
    }
    if (a[1] != '-') {
      tfs_cli_usage_error("unknown option '%s' (see tfsess %s --help)", a,
                          tfs_cli_command);
      return -1;
    }
    const char *name = a + 2, *eq = strchr(name, '=');
    size_t len = eq ? (size_t)(eq - name) : strlen(name);
    void *ctx = NULL;
    const tfs_cli_opt *o = find_opt(groups, ngroups, name, len, &ctx);
    if (!o) {
      tfs_cli_usage_error("unknown option '--%.*s' (see tfsess %s --help)",
                          (int)len, name, tfs_cli_command);
      return -1;
    }
    const char *value = NULL;
    if (o->metavar) {
      if (eq)
        value = eq + 1;
      else if (i + 1 < argc)
        value = argv[++i];
      else {
        tfs_cli_usage_error("option --%s needs a value (%s)", o->name,
                            o->metavar);
        return -1;
      }
    } else if (eq) {
      tfs_cli_usage_error("option --%s takes no value", o->name);
      return -1;
    }
    if (o->set(ctx, value)) return -1;
  }
  if (*npos < help->min_positional) {
    tfs_cli_usage_error("missing arguments; usage: tfsess %s", help->usage);
    return -1;
  }
  return 0;
}

int tfs_cli_parse_int(const char *opt, const char *value, int64_t min,
                      int64_t max, int64_t *out) {
  char *end;
  errno = 0;
  long long v = strtoll(value, &end, 10);
  if (errno || end == value || *end || v < min || v > max) {
    tfs_cli_usage_error("--%s needs an integer from %lld to %lld, not '%s'",
                        opt, (long long)min, (long long)max, value);
    return -1;
  }
  *out = v;
  return 0;
}

int tfs_cli_list_add(tfs_cli_list *l, const char *s) {
  if (l->n == l->cap) {
    int nc = l->cap ? l->cap * 2 : 8;
    const char **v = realloc(l->v, sizeof(char *) * (size_t)nc);
    if (!v) {
      tfs_cli_error("out of memory");
      return -1;
    }
    l->v = v;
    l->cap = nc;
  }
  l->v[l->n++] = s;
  return 0;
}

void tfs_cli_list_free(tfs_cli_list *l) {
  free(l->v);
  l->v = NULL;
  l->n = l->cap = 0;
}

/* ---- statistics ---------------------------------------------------------- */

static int is_numeric(tfs_dtype dt) {
  switch (dt) {
    case TFS_FLOAT:
    case TFS_DOUBLE:
    case TFS_HALF:
    case TFS_BFLOAT16:
    case TFS_INT8:
    case TFS_INT16:
    case TFS_INT32:
    case TFS_INT64:
    case TFS_UINT8:
    case TFS_UINT16:
    case TFS_UINT32:
    case TFS_UINT64:
    case TFS_BOOL:
      return 1;
    default:
      return 0;
  }
}

void tfs_cli_stats_add(tfs_cli_stats *s, const tfs_tensor *t, int append) {
  int nd = tfs_tensor_ndims(t);
  const int64_t *dims = tfs_tensor_dims(t);
  if (!append) {
    memset(s, 0, sizeof *s);
    s->dtype = tfs_tensor_dtype(t);
    s->ndims = nd;
    for (int i = 0; i < nd; i++) s->dims[i] = dims[i];
    s->numeric = is_numeric(s->dtype);
    s->min = INFINITY;
    s->max = -INFINITY;
  } else if (nd > 0) {
    s->dims[0] += dims[0];
  }
  if (!s->numeric) return;
  int64_t n = tfs_tensor_num_elements(t);
  for (int64_t i = 0; i < n; i++) {
    double v = tfs_tensor__get_as_double(t, i);
    if (v < s->min) s->min = v;
    if (v > s->max) s->max = v;
    s->sum += v;
  }
  s->count += n;
}

void tfs_cli_stats_print(FILE *out, const char *name, const char *path,
                         const tfs_cli_stats *s) {
  tfs_shape sh;
  char sb[TFS_SHAPE_STRLEN];
  sh.rank = s->ndims;
  for (int i = 0; i < s->ndims; i++) sh.dims[i] = s->dims[i];
  fprintf(out, "%s: %s %s", name, tfs_dtype_name(s->dtype),
          tfs_shape_str(&sh, sb, sizeof sb));
  if (s->numeric && s->count > 0)
    fprintf(out, " min %.6g mean %.6g max %.6g", s->min,
            s->sum / (double)s->count, s->max);
  if (path) fprintf(out, " -> %s", path);
  fputc('\n', out);
}
