/*
 * io/trace_json.c - a traced run's step statistics as Chrome trace event
 * JSON (chrome://tracing, ui.perfetto.dev): one process per device, one
 * thread per executor thread, a complete event ("ph":"X") per node
 * execution named by the node, timestamps in microseconds since the
 * epoch, and in args what ran (op, kernel, the timeline label), where
 * (device) and on what (input and output dtypes and shapes).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/status.h"
#include "core/strbuf.h"
#include "io/trace_step.h"
#include "tfsess/io.h"

/* Length of the valid UTF-8 sequence at p[0..n), or 0. */
static size_t utf8_len(const unsigned char *p, size_t n) {
  size_t len = p[0] >= 0xF0 && p[0] <= 0xF4   ? 4
               : p[0] >= 0xE0 && p[0] < 0xF0 ? 3
               : p[0] >= 0xC2 && p[0] < 0xE0 ? 2
                                              : 0;
  if (len == 0 || len > n) return 0;
  for (size_t i = 1; i < len; i++)
    if ((p[i] & 0xC0) != 0x80) return 0;
  if (len == 3 && p[0] == 0xE0 && p[1] < 0xA0) return 0; /* overlong */
  if (len == 3 && p[0] == 0xED && p[1] >= 0xA0) return 0; /* surrogate */
  if (len == 4 && p[0] == 0xF0 && p[1] < 0x90) return 0;
  if (len == 4 && p[0] == 0xF4 && p[1] >= 0x90) return 0;
  return len;
}

/* A JSON string: quotes, backslashes and control characters escaped,
 * bytes that are no UTF-8 replaced by U+FFFD. */
static void put_str(tfs_strbuf *b, const char *s) {
  const unsigned char *p = (const unsigned char *)s;
  size_t n = strlen(s);
  tfs_strbuf_putc(b, '"');
  for (size_t i = 0; i < n;) {
    unsigned char c = p[i];
    if (c == '"' || c == '\\') {
      tfs_strbuf_putc(b, '\\');
      tfs_strbuf_putc(b, (char)c);
      i++;
    } else if (c == '\n') {
      tfs_strbuf_puts(b, "\\n");
      i++;
    } else if (c == '\t') {
      tfs_strbuf_puts(b, "\\t");
      i++;
    } else if (c < 0x20 || c == 0x7F) {
      tfs_strbuf_printf(b, "\\u%04x", c);
      i++;
    } else if (c < 0x80) {
      tfs_strbuf_putc(b, (char)c);
      i++;
    } else {
      size_t len = utf8_len(p + i, n - i);
      if (len)
        tfs_strbuf_append(b, s + i, len);
      else
        tfs_strbuf_puts(b, "\\ufffd");
      i += len ? len : 1;
    }
  }
  tfs_strbuf_putc(b, '"');
}

/* Nanoseconds as microseconds with three decimals, exactly. */
static void put_micros(tfs_strbuf *b, int64_t ns) {
  if (ns < 0) {
    tfs_strbuf_putc(b, '-');
    ns = ns == INT64_MIN ? INT64_MAX : -ns;
  }
  tfs_strbuf_printf(b, "%lld.%03lld", (long long)(ns / 1000),
                    (long long)(ns % 1000));
}

static void put_shape(tfs_strbuf *b, const tfs_trace_output *o) {
  if (!o || o->shape.rank < 0) {
    tfs_strbuf_puts(b, "null");
    return;
  }
  tfs_strbuf_putc(b, '[');
  for (int i = 0; i < o->shape.rank; i++)
    tfs_strbuf_printf(b, "%s%lld", i ? "," : "", (long long)o->shape.dims[i]);
  tfs_strbuf_putc(b, ']');
}

static void put_dtype(tfs_strbuf *b, const tfs_trace_output *o) {
  if (o)
    put_str(b, tfs_dtype_name(o->dtype));
  else
    tfs_strbuf_puts(b, "null");
}

/* "inputs":[...],"input_dtypes":[...],"input_shapes":[...] and the same
 * for outputs. */
static void put_tensors(tfs_strbuf *b, const tfs_trace_node *n) {
  tfs_strbuf_puts(b, ",\"inputs\":[");
  for (int i = 0; i < n->ninputs; i++) {
    tfs_strbuf_puts(b, i ? "," : "");
    if (n->inputs[i].slot == 0) {
      put_str(b, n->inputs[i].node);
      continue;
    }
    tfs_strbuf name = TFS_STRBUF_INIT;
    tfs_strbuf_printf(&name, "%s:%d", n->inputs[i].node, n->inputs[i].slot);
    put_str(b, tfs_strbuf_str(&name));
    b->oom |= name.oom;
    tfs_strbuf_free(&name);
  }
  tfs_strbuf_puts(b, "],\"input_dtypes\":[");
  for (int i = 0; i < n->ninputs; i++) {
    tfs_strbuf_puts(b, i ? "," : "");
    put_dtype(b, n->inputs[i].out);
  }
  tfs_strbuf_puts(b, "],\"input_shapes\":[");
  for (int i = 0; i < n->ninputs; i++) {
    tfs_strbuf_puts(b, i ? "," : "");
    put_shape(b, n->inputs[i].out);
  }
  tfs_strbuf_puts(b, "],\"output_dtypes\":[");
  for (int i = 0; i < n->noutputs; i++) {
    tfs_strbuf_puts(b, i ? "," : "");
    put_dtype(b, &n->outputs[i]);
  }
  tfs_strbuf_puts(b, "],\"output_shapes\":[");
  for (int i = 0; i < n->noutputs; i++) {
    tfs_strbuf_puts(b, i ? "," : "");
    put_shape(b, &n->outputs[i]);
  }
  tfs_strbuf_putc(b, ']');
}

static void put_event(tfs_strbuf *b, const tfs_trace_node *n) {
  tfs_strbuf_puts(b, ",\n{\"ph\":\"X\",\"cat\":\"Op\",\"name\":");
  put_str(b, n->name);
  tfs_strbuf_printf(b, ",\"pid\":%d,\"tid\":%u,\"ts\":", n->device_index,
                    n->tid);
  put_micros(b, n->start_ns);
  tfs_strbuf_puts(b, ",\"dur\":");
  put_micros(b, n->dur_ns);
  tfs_strbuf_puts(b, ",\"args\":{\"name\":");
  put_str(b, n->name);
  tfs_strbuf_puts(b, ",\"op\":");
  put_str(b, n->op);
  tfs_strbuf_puts(b, ",\"kernel\":");
  put_str(b, n->kernel);
  tfs_strbuf_puts(b, ",\"device\":");
  put_str(b, n->device);
  tfs_strbuf_printf(b, ",\"thread_id\":%u,\"label\":", n->tid);
  put_str(b, n->label);
  put_tensors(b, n);
  tfs_strbuf_puts(b, "}}");
}

/* Process names (the devices) and thread names, each thread once per
 * device. */
static void put_metadata(tfs_strbuf *b, const tfs_trace_step *t) {
  for (int d = 0; d < t->ndevices; d++) {
    tfs_strbuf_printf(b,
                      "%s{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%d,"
                      "\"args\":{\"name\":",
                      d ? ",\n" : "", d);
    put_str(b, t->devices[d]);
    tfs_strbuf_printf(b,
                      "}},\n{\"ph\":\"M\",\"name\":\"process_sort_index\","
                      "\"pid\":%d,\"args\":{\"sort_index\":%d}}",
                      d, d);
  }
  /* the (device, thread) pairs seen: few, however many nodes ran */
  const tfs_trace_node **seen = tfs_calloc((size_t)t->n + 1, sizeof(void *));
  int nseen = 0;
  if (!seen) b->oom = 1;
  for (int i = 0; seen && i < t->n; i++) {
    const tfs_trace_node *n = &t->nodes[i];
    int k = 0;
    while (k < nseen && (seen[k]->tid != n->tid ||
                         seen[k]->device_index != n->device_index))
      k++;
    if (k < nseen) continue;
    seen[nseen++] = n;
    tfs_strbuf_printf(b,
                      ",\n{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%d,"
                      "\"tid\":%u,\"args\":{\"name\":\"thread %u\"}}",
                      n->device_index, n->tid, n->tid);
  }
  tfs_free(seen);
}

char *tfs_trace_json(const void *run_metadata, size_t len, tfs_graph *g,
                     tfs_status *st) {
  tfs_trace_step t;
  if (tfs_trace__read(run_metadata, len, g, &t, st)) {
    tfs_trace__clear(&t);
    return NULL;
  }
  tfs_strbuf b = TFS_STRBUF_INIT;
  tfs_strbuf_puts(&b, "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n");
  put_metadata(&b, &t);
  for (int i = 0; i < t.n; i++) put_event(&b, &t.nodes[i]);
  tfs_strbuf_puts(&b, "\n]}\n");
  tfs_trace__clear(&t);
  char *s = tfs_strbuf_take(&b);
  if (!s) TFS_OOM(st);
  return s;
}

void tfs_trace_json_write(const char *path, const void *run_metadata,
                          size_t len, tfs_graph *g, tfs_status *st) {
  char *s = tfs_trace_json(run_metadata, len, g, st);
  if (!s) return;
  FILE *f = fopen(path, "wb");
  if (!f) {
    tfs_status_setf(st, TFS_NOT_FOUND, "%s: %s", path, strerror(errno));
    tfs_free(s);
    return;
  }
  size_t n = strlen(s);
  int bad = fwrite(s, 1, n, f) != n;
  bad |= fclose(f) != 0;
  if (bad) {
    tfs_status_setf(st, TFS_DATA_LOSS, "%s: write failed", path);
    remove(path);
  }
  tfs_free(s);
}
