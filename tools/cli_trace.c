/*
 * tools/cli_trace.c - traced runs for `run --trace` and `bench --trace /
 * --profile`: a run with RunOptions.trace_level FULL_TRACE, its step
 * statistics written as Chrome trace JSON (tfs_trace_json_write), and
 * the per-op-type profile table of bench --profile (TensorFlow's
 * benchmark_model --enable_op_profiling "by node type" summary).
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "core/hashmap.h"
#include "io/trace_step.h"
#include "proto/config.pb-c.h"

/* FULL_TRACE RunOptions bytes into buf (16 bytes); returns the buffer. */
static tfs_buffer full_trace(uint8_t *buf) {
  Tensorflow__RunOptions ro = TENSORFLOW__RUN_OPTIONS__INIT;
  ro.trace_level = TENSORFLOW__RUN_OPTIONS__TRACE_LEVEL__FULL_TRACE;
  tfs_buffer b = {buf, tensorflow__run_options__pack(&ro, buf), NULL};
  return b;
}

/* Writes md's trace to path; a failure goes to st as "--trace ...". */
static void write_trace(const char *path, const tfs_buffer *md, tfs_graph *g,
                        tfs_status *st) {
  tfs_trace_json_write(path, md->data, md->length, g, st);
  if (!tfs_status_ok(st)) {
    char msg[1024];
    snprintf(msg, sizeof msg, "--trace %s", tfs_status_message(st));
    tfs_status_set(st, tfs_status_code(st), msg);
  }
}

void tfs_cli_run_traced(tfs_session *s, const tfs_output *feeds,
                        tfs_tensor *const *in, int nfeeds,
                        const tfs_output *fetches, tfs_tensor **out,
                        int nfetches, tfs_operation *const *targets,
                        int ntargets, tfs_buffer *md, tfs_status *st) {
  uint8_t bytes[16];
  tfs_buffer rob = full_trace(bytes);
  tfs_session_run_ex(s, &rob, feeds, in, nfeeds, fetches, out, nfetches,
                     targets, ntargets, md, st);
}

void tfs_cli_run_and_trace(tfs_session *s, tfs_graph *g, const char *path,
                           const tfs_output *feeds, tfs_tensor *const *in,
                           int nfeeds, const tfs_output *fetches,
                           tfs_tensor **out, int nfetches,
                           tfs_operation *const *targets, int ntargets,
                           tfs_status *st) {
  tfs_buffer *md = tfs_buffer_new();
  if (!md) {
    tfs_status_set(st, TFS_RESOURCE_EXHAUSTED, "out of memory");
    return;
  }
  tfs_cli_run_traced(s, feeds, in, nfeeds, fetches, out, nfetches, targets,
                     ntargets, md, st);
  if (tfs_status_ok(st)) write_trace(path, md, g, st);
  tfs_buffer_free(md);
}

void tfs_cli_saved_model_run_and_trace(tfs_saved_model *m, const char *key,
                                       const char *path,
                                       const char *const *input_keys,
                                       tfs_tensor *const *in, int ninputs,
                                       const char *const *output_keys,
                                       tfs_tensor **out, int noutputs,
                                       tfs_status *st) {
  tfs_buffer *md = tfs_buffer_new();
  if (!md) {
    tfs_status_set(st, TFS_RESOURCE_EXHAUSTED, "out of memory");
    return;
  }
  uint8_t bytes[16];
  tfs_buffer rob = full_trace(bytes);
  tfs_saved_model_run_ex(m, key, &rob, input_keys, in, ninputs, output_keys,
                         out, noutputs, md, st);
  if (tfs_status_ok(st)) write_trace(path, md, tfs_saved_model_graph(m), st);
  tfs_buffer_free(md);
}

/* ---- the op profile ------------------------------------------------------ */

typedef struct op_row {
  char *op;
  int64_t nodes;    /* distinct nodes (first run) */
  int64_t calls;    /* executions, all runs */
  int64_t total_ns; /* all runs */
} op_row;

struct tfs_cli_profile {
  int64_t runs;
  int n, cap;
  op_row *rows;
};

tfs_cli_profile *tfs_cli_profile_new(void) {
  return calloc(1, sizeof(tfs_cli_profile));
}

void tfs_cli_profile_free(tfs_cli_profile *p) {
  for (int i = 0; p && i < p->n; i++) free(p->rows[i].op);
  if (p) free(p->rows);
  free(p);
}

static op_row *row_for(tfs_cli_profile *p, const char *op) {
  for (int i = 0; i < p->n; i++)
    if (strcmp(p->rows[i].op, op) == 0) return &p->rows[i];
  if (p->n == p->cap) {
    int cap = p->cap ? 2 * p->cap : 16;
    op_row *r = realloc(p->rows, (size_t)cap * sizeof *r);
    if (!r) return NULL;
    p->rows = r;
    p->cap = cap;
  }
  op_row *r = &p->rows[p->n];
  memset(r, 0, sizeof *r);
  if (!(r->op = strdup(op))) return NULL;
  p->n++;
  return r;
}

int tfs_cli_profile_add(tfs_cli_profile *p, const tfs_buffer *md,
                        tfs_graph *g) {
  tfs_trace_step t;
  tfs_status *st = tfs_status_new();
  int rc = 0;
  if (!st) return tfs_cli_error("out of memory");
  if (tfs_trace__read(md->data, md->length, g, &t, st))
    rc = tfs_cli_error("--profile: %s", tfs_status_message(st));
  tfs_map names = TFS_MAP_INIT; /* the first run's nodes, counted once */
  for (int i = 0; rc == 0 && i < t.n; i++) {
    const tfs_trace_node *n = &t.nodes[i];
    op_row *r = row_for(p, n->op[0] ? n->op : "(unknown)");
    if (!r) {
      rc = tfs_cli_error("out of memory");
      break;
    }
    r->calls++;
    r->total_ns += n->dur_ns;
    if (p->runs || tfs_map_get_str(&names, n->name)) continue;
    if (tfs_map_put_str(&names, n->name, (void *)n))
      rc = tfs_cli_error("out of memory");
    r->nodes++;
  }
  tfs_map_free(&names);
  if (rc == 0) p->runs++;
  tfs_trace__clear(&t);
  tfs_status_free(st);
  return rc;
}

static int cmp_rows(const void *a, const void *b) {
  const op_row *x = a, *y = b;
  if (x->total_ns != y->total_ns) return x->total_ns < y->total_ns ? 1 : -1;
  return strcmp(x->op, y->op);
}

void tfs_cli_profile_print(FILE *out, tfs_cli_profile *p) {
  if (p->runs == 0) return;
  qsort(p->rows, (size_t)p->n, sizeof *p->rows, cmp_rows);
  int64_t all = 0;
  int w = 7;
  for (int i = 0; i < p->n; i++) {
    all += p->rows[i].total_ns;
    int len = (int)strlen(p->rows[i].op);
    if (len > w) w = len;
  }
  fprintf(out,
          "op profile: %lld traced runs; time per run in microseconds, "
          "sorted by total\n",
          (long long)p->runs);
  fprintf(out, "%-*s %7s %9s %12s %12s %7s\n", w, "op type", "nodes",
          "calls/run", "total_us", "mean_us", "share");
  double runs = (double)p->runs;
  for (int i = 0; i < p->n; i++) {
    const op_row *r = &p->rows[i];
    fprintf(out, "%-*s %7lld %9.1f %12.3f %12.3f %6.2f%%\n", w, r->op,
            (long long)r->nodes, (double)r->calls / runs,
            (double)r->total_ns / runs / 1000.0,
            r->calls ? (double)r->total_ns / (double)r->calls / 1000.0 : 0.0,
            all ? 100.0 * (double)r->total_ns / (double)all : 0.0);
  }
}
