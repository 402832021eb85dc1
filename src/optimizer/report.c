/*
 * optimizer/report.c - the optimizer's report: one entry per pass and
 * iteration (nodes and edges before and after, time, what changed, error)
 * with public accessors and a printable table.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/strbuf.h"
#include "optimizer/optimizer.h"

tfs_optimizer_report *tfs_optimizer__report_new(void) {
  return tfs_calloc(1, sizeof(tfs_optimizer_report));
}

int tfs_optimizer__report_add(tfs_optimizer_report *r,
                              const tfs_opt_report_entry *e) {
  size_t cap = (size_t)r->cap;
  if (tfs_grow((void **)&r->e, &cap, (size_t)r->n + 1, sizeof(*r->e)))
    return -1;
  r->cap = (int)cap;
  tfs_opt_report_entry *d = &r->e[r->n];
  *d = *e;
  d->pass = tfs_strdup(e->pass ? e->pass : "");
  d->summary = tfs_strdup(e->summary ? e->summary : "");
  d->error = e->error ? tfs_strdup(e->error) : NULL;
  if (!d->pass || !d->summary || (e->error && !d->error)) {
    tfs_free(d->pass);
    tfs_free(d->summary);
    tfs_free(d->error);
    return -1;
  }
  r->n++;
  return 0;
}

void tfs_optimizer_report_free(tfs_optimizer_report *r) {
  if (!r) return;
  for (int i = 0; i < r->n; i++) {
    tfs_free(r->e[i].pass);
    tfs_free(r->e[i].summary);
    tfs_free(r->e[i].error);
  }
  tfs_free(r->e);
  tfs_free(r->skipped);
  tfs_free(r->notes);
  tfs_free(r);
}

static const tfs_opt_report_entry *entry(const tfs_optimizer_report *r, int i) {
  return r && i >= 0 && i < r->n ? &r->e[i] : NULL;
}

int tfs_optimizer_report_num_entries(const tfs_optimizer_report *r) {
  return r ? r->n : 0;
}
const char *tfs_optimizer_report_pass(const tfs_optimizer_report *r, int i) {
  const tfs_opt_report_entry *e = entry(r, i);
  return e ? e->pass : NULL;
}
int tfs_optimizer_report_iteration(const tfs_optimizer_report *r, int i) {
  const tfs_opt_report_entry *e = entry(r, i);
  return e ? e->iteration : -1;
}
int64_t tfs_optimizer_report_nodes_before(const tfs_optimizer_report *r,
                                          int i) {
  const tfs_opt_report_entry *e = entry(r, i);
  return e ? e->nodes_before : -1;
}
int64_t tfs_optimizer_report_nodes_after(const tfs_optimizer_report *r, int i) {
  const tfs_opt_report_entry *e = entry(r, i);
  return e ? e->nodes_after : -1;
}
int64_t tfs_optimizer_report_edges_before(const tfs_optimizer_report *r,
                                          int i) {
  const tfs_opt_report_entry *e = entry(r, i);
  return e ? e->edges_before : -1;
}
int64_t tfs_optimizer_report_edges_after(const tfs_optimizer_report *r, int i) {
  const tfs_opt_report_entry *e = entry(r, i);
  return e ? e->edges_after : -1;
}
double tfs_optimizer_report_time_us(const tfs_optimizer_report *r, int i) {
  const tfs_opt_report_entry *e = entry(r, i);
  return e ? (double)e->time_ns / 1e3 : -1.0;
}
const char *tfs_optimizer_report_summary(const tfs_optimizer_report *r, int i) {
  const tfs_opt_report_entry *e = entry(r, i);
  return e ? e->summary : NULL;
}
tfs_code tfs_optimizer_report_code(const tfs_optimizer_report *r, int i) {
  const tfs_opt_report_entry *e = entry(r, i);
  return e ? e->code : TFS_INVALID_ARGUMENT;
}
const char *tfs_optimizer_report_error(const tfs_optimizer_report *r, int i) {
  const tfs_opt_report_entry *e = entry(r, i);
  return e ? e->error : NULL;
}
const char *tfs_optimizer_report_skipped(const tfs_optimizer_report *r) {
  return r ? r->skipped : NULL;
}
int64_t tfs_optimizer_report_total_nodes_before(const tfs_optimizer_report *r) {
  return r ? r->nodes_in : -1;
}
int64_t tfs_optimizer_report_total_nodes_after(const tfs_optimizer_report *r) {
  return r ? r->nodes_out : -1;
}
double tfs_optimizer_report_total_time_us(const tfs_optimizer_report *r) {
  return r ? (double)r->total_ns / 1e3 : -1.0;
}

char *tfs_optimizer_report_to_string(const tfs_optimizer_report *r) {
  tfs_strbuf b = TFS_STRBUF_INIT;
  if (!r) return NULL;
  if (r->skipped) {
    tfs_strbuf_printf(&b, "optimizer skipped: %s\n", r->skipped);
    return tfs_strbuf_take(&b);
  }
  tfs_strbuf_printf(&b, "%-28s %4s %17s %17s %10s  %s\n", "pass", "iter",
                    "nodes", "edges", "time", "what changed");
  for (int i = 0; i < r->n; i++) {
    const tfs_opt_report_entry *e = &r->e[i];
    char nodes[48], edges[48];
    snprintf(nodes, sizeof nodes, "%lld -> %lld", (long long)e->nodes_before,
             (long long)e->nodes_after);
    snprintf(edges, sizeof edges, "%lld -> %lld", (long long)e->edges_before,
             (long long)e->edges_after);
    tfs_strbuf_printf(&b, "%-28s %4d %17s %17s %7.3f ms  ", e->pass,
                      e->iteration, nodes, edges, (double)e->time_ns / 1e6);
    if (e->error)
      tfs_strbuf_printf(&b, "FAILED (%s), skipped: %s\n",
                        tfs_code_name(e->code), e->error);
    else
      tfs_strbuf_printf(&b, "%s\n", *e->summary ? e->summary : "no change");
  }
  tfs_strbuf_printf(&b,
                    "total: %lld -> %lld nodes, %lld -> %lld edges, "
                    "%d iteration%s, %.3f ms\n",
                    (long long)r->nodes_in, (long long)r->nodes_out,
                    (long long)r->edges_in, (long long)r->edges_out,
                    r->iterations_run, r->iterations_run == 1 ? "" : "s",
                    (double)r->total_ns / 1e6);
  if (r->notes)
    tfs_strbuf_printf(&b, "not implemented in tfsess (skipped): %s\n",
                      r->notes);
  return tfs_strbuf_take(&b);
}
