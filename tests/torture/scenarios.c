/*
 * tests/torture/scenarios.c - what the fault-injection driver runs: each
 * scenario goes through the public API (and the TensorFlow C API) the way
 * a program would, records its results and frees everything it made on
 * every path.  Here: GraphDef import, import + session + run, ConfigProto
 * and RunOptions / RunMetadata, .npy and .npz files, and the table of
 * every scenario (the others are in scenarios_api.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fixtures.h"
#include "proto/config.pb-c.h"

/* ---- 1: GraphDef import -------------------------------------------------- */

static int import_setup(void) {
  return model_load(&g_mlp) || model_load(&g_lstm);
}

static int import_one(const model *m, tfs_status *st, tt_result *res) {
  tfs_graph *g = tfs_graph_new();
  tfs_import_options *o = tfs_import_options_new();
  tfs_import_results *r = NULL;
  int rc = -1;
  if (!g || !o) {
    tt_null(st, !g ? "tfs_graph_new" : "tfs_import_options_new");
    goto out;
  }
  char name[128];
  int index;
  parse_output(m->fetch[0], name, sizeof name, &index);
  tfs_import_options_add_return_output(o, name, index);
  tfs_import_options_add_return_operation(o, "x");
  r = tfs_graph_import_graphdef(g, m->pb, m->pb_len, o, st);
  if (!r) {
    if (tfs_status_ok(st)) tt_fail("import returned NULL with status OK");
    if (tfs_graph_num_operations(g) != 0)
      tt_fail("failed import left %zu operations in the graph",
              tfs_graph_num_operations(g));
    goto out;
  }
  int n = 0, nops = 0;
  tfs_output *outs = NULL;
  tfs_operation **ops = NULL;
  tfs_import_results_return_outputs(r, &n, &outs);
  tfs_import_results_return_operations(r, &nops, &ops);
  tt_result_int(res, "return outputs", n);
  tt_result_int(res, "return operations", nops);
  if (n == 1 && outs[0].oper) {
    const char *on = tfs_operation_name(outs[0].oper);
    tt_result_bytes(res, "return output", on, strlen(on));
  }
  if (nops == 1 && ops[0]) {
    const char *on = tfs_operation_name(ops[0]);
    tt_result_bytes(res, "return operation", on, strlen(on));
  }
  tt_result_int(res, "operations", (int64_t)tfs_graph_num_operations(g));
  /* what was imported, exported again */
  tfs_buffer *b = tfs_buffer_new();
  if (!b) {
    tt_null(st, "tfs_buffer_new");
    goto out;
  }
  tfs_graph_to_graphdef(g, b, st);
  if (tfs_status_ok(st)) {
    tt_result_bytes(res, "graphdef", b->data, b->length);
    rc = 0;
  } else if (b->data) {
    tt_fail("failed export left bytes in the buffer");
  }
  tfs_buffer_free(b);
out:
  tfs_import_results_free(r);
  tfs_import_options_free(o);
  tfs_graph_free(g);
  return rc;
}

static int import_run(tfs_status *st, tt_result *res) {
  if (import_one(&g_mlp, st, res)) return -1;
  return import_one(&g_lstm, st, res);
}

/* ---- 2: import, session, run with feeds ---------------------------------- */

static int session_setup(void) {
  return model_load(&g_mlp) || model_load(&g_lstm);
}

/* The model's first fetch through a callable, run twice. */
static int callable_run(tfs_session *s, tfs_graph *g, const model *m,
                        tfs_status *st, tt_result *res) {
  tfs_output x, fetches[3];
  if (find_outputs(g, m, &x, fetches, st)) return -1;
  tfs_callable_options *o = tfs_callable_options_new();
  if (!o) {
    tt_null(st, "tfs_callable_options_new");
    return -1;
  }
  tfs_callable_options_set_run_in_caller_thread(o, 1);
  tfs_callable *c =
      tfs_session_make_callable(s, &x, 1, fetches, 1, NULL, 0, o, st);
  tfs_callable_options_free(o);
  if (!c) return -1;
  int rc = 0;
  for (int i = 0; i < 2 && rc == 0; i++) {
    tfs_tensor *out = NULL;
    tfs_callable_run(c, &m->feed, 1, &out, 1, st);
    if (tfs_status_ok(st)) {
      if (!out) tt_fail("callable succeeded without its fetch");
      tt_result_tensor(res, "callable", out);
    } else {
      if (out) tt_fail("failed callable set its fetch");
      rc = -1;
    }
    tfs_tensor_free(out);
  }
  tfs_callable_free(c);
  return rc;
}

static int session_one(const model *m, tfs_status *st, tt_result *res) {
  tfs_graph *g = import_model(m, st);
  if (!g) return -1;
  tfs_session *s = session_with_config(g, kThreadsNoOpt,
                                       sizeof kThreadsNoOpt, st);
  int rc = -1;
  /* twice: the second run takes the cached plan */
  if (s) rc = run_model(s, g, m, NULL, NULL, "first", st, res);
  if (rc == 0) rc = run_model(s, g, m, NULL, NULL, "second", st, res);
  if (rc == 0) tt_result_int(res, "plans", tfs_session_num_plans(s));
  if (rc == 0) rc = callable_run(s, g, m, st, res);
  /* the graph first: the session keeps it alive */
  tfs_graph_free(g);
  tfs_session_free(s);
  return rc;
}

static int session_run(tfs_status *st, tt_result *res) {
  if (session_one(&g_mlp, st, res)) return -1;
  return session_one(&g_lstm, st, res);
}

/* The same on the inter-op pool: the parallel executor, two threads per
 * pool (allocations come in a different order from run to run). */
static const unsigned char kParallelNoOpt[] = {
    0x10, 0x02, 0x28, 0x02, 0x52, 0x05, 0x52, 0x03, 0x98, 0x01, 0x01};

static int parallel_setup(void) { return model_load(&g_transformer); }

static int parallel_run(tfs_status *st, tt_result *res) {
  const model *m = &g_transformer;
  tfs_graph *g = import_model(m, st);
  if (!g) return -1;
  tfs_session *s = session_with_config(g, kParallelNoOpt,
                                       sizeof kParallelNoOpt, st);
  int rc = -1;
  if (s) rc = run_model(s, g, m, NULL, NULL, "first", st, res);
  if (rc == 0) rc = run_model(s, g, m, NULL, NULL, "second", st, res);
  tfs_session_free(s);
  tfs_graph_free(g);
  return rc;
}

/* ---- 3: ConfigProto and RunOptions --------------------------------------- */

static void *g_config_bytes;
static size_t g_config_len;
static void *g_run_options;
static size_t g_run_options_len;
static tfs_graph *g_config_graph;

static int config_setup(void) {
  if (model_load(&g_mlp)) return -1;
  char *p = tt_path("tests/data/wire/config_modeled.pb");
  g_config_bytes = tt_read_file(p, &g_config_len);
  free(p);
  p = tt_path("tests/data/wire/run_options_trace.pb");
  g_run_options = tt_read_file(p, &g_run_options_len);
  free(p);
  tfs_status *st = tfs_status_new();
  g_config_graph = import_model(&g_mlp, st);
  tfs_status_free(st);
  return g_config_bytes && g_run_options && g_config_graph ? 0 : -1;
}

static void config_teardown(void) {
  free(g_config_bytes);
  free(g_run_options);
  tfs_graph_free(g_config_graph);
  g_config_bytes = g_run_options = NULL;
  g_config_graph = NULL;
}

/* ConfigProto bytes in, options, ConfigProto bytes out. */
static int config_roundtrip(tfs_status *st, tt_result *res) {
  tfs_session_options *o = tfs_session_options_new();
  tfs_buffer *b = tfs_buffer_new();
  int rc = -1;
  if (!o || !b) {
    tt_null(st, !o ? "tfs_session_options_new" : "tfs_buffer_new");
    goto out;
  }
  tfs_session_options_set_config(o, g_config_bytes, g_config_len, st);
  if (!tfs_status_ok(st)) goto out;
  tt_result_int(res, "intra", tfs_session_options_intra_op_threads(o));
  tt_result_int(res, "inter", tfs_session_options_inter_op_threads(o));
  tt_result_int(res, "soft", tfs_session_options_allow_soft_placement(o));
  tt_result_int(res, "log", tfs_session_options_log_device_placement(o));
  tfs_session_options_get_config(o, b, st);
  if (!tfs_status_ok(st)) goto out;
  tt_result_bytes(res, "config", b->data, b->length);
  rc = 0;
out:
  tfs_buffer_free(b);
  tfs_session_options_free(o);
  return rc;
}

/* The parts of RunMetadata that do not change from run to run: per
 * device, each node's name, timeline label and number of outputs. */
static void record_metadata(const tfs_buffer *md, tt_result *res) {
  tt_pause();
  Tensorflow__RunMetadata *m =
      tensorflow__run_metadata__unpack(NULL, md->length, md->data);
  if (!m) {
    tt_fail("RunMetadata does not parse (%zu bytes)", md->length);
    tt_resume();
    return;
  }
  Tensorflow__StepStats *ss = m->step_stats;
  tt_result_int(res, "devices", ss ? (int64_t)ss->n_dev_stats : -1);
  for (size_t i = 0; ss && i < ss->n_dev_stats; i++) {
    Tensorflow__DeviceStepStats *d = ss->dev_stats[i];
    tt_result_bytes(res, "device", d->device, strlen(d->device));
    tt_result_int(res, "nodes", (int64_t)d->n_node_stats);
    for (size_t j = 0; j < d->n_node_stats; j++) {
      Tensorflow__NodeExecStats *n = d->node_stats[j];
      tt_result_bytes(res, "node", n->node_name, strlen(n->node_name));
      tt_result_bytes(res, "label", n->timeline_label,
                      strlen(n->timeline_label));
      tt_result_int(res, "outputs", (int64_t)n->n_output);
    }
  }
  tensorflow__run_metadata__free_unpacked(m, NULL);
  tt_resume();
}

static int config_run(tfs_status *st, tt_result *res) {
  if (config_roundtrip(st, res)) return -1;
  tfs_session *s = session_with_config(g_config_graph, kRunConfig,
                                       sizeof kRunConfig, st);
  if (!s) return -1;
  tfs_buffer ro = {g_run_options, g_run_options_len, NULL};
  tfs_buffer *md = tfs_buffer_new();
  int rc = -1;
  if (!md) {
    tt_null(st, "tfs_buffer_new");
  } else {
    rc = run_model(s, g_config_graph, &g_mlp, &ro, md, "traced", st, res);
    /* written whether or not the run succeeded, as TensorFlow does */
    if (rc == 0) record_metadata(md, res);
  }
  /* an empty RunOptions and no metadata: the plan is cached */
  if (rc == 0) {
    tfs_buffer none = {NULL, 0, NULL};
    rc = run_model(s, g_config_graph, &g_mlp, &none, NULL, "plain", st, res);
  }
  tfs_buffer_free(md);
  tfs_session_free(s);
  return rc;
}

/* ---- 4: .npy and .npz ---------------------------------------------------- */

static tfs_tensor *g_io[4];
static const char *const kIoNames[4] = {"floats", "ints", "strings", "flags"};

static int io_setup(void) {
  tfs_status *st = tfs_status_new();
  int64_t fd[2] = {3, 4}, id[1] = {5}, sd[1] = {3}, bd[2] = {2, 2};
  float f[12];
  int32_t iv[5] = {1, -2, 3, -4, 1 << 30};
  const char *strs[3] = {"a", "bc", "a string longer than 22 bytes"};
  unsigned char b[4] = {1, 0, 0, 1};
  for (int i = 0; i < 12; i++) f[i] = (float)i * 0.25f - 1.0f;
  g_io[0] = tfs_tensor_new_copy(TFS_FLOAT, fd, 2, f, sizeof f, st);
  g_io[1] = tfs_tensor_new_copy(TFS_INT32, id, 1, iv, sizeof iv, st);
  g_io[2] = tfs_tensor_new_strings(sd, 1, strs, NULL, st);
  g_io[3] = tfs_tensor_new_copy(TFS_BOOL, bd, 2, b, sizeof b, st);
  tfs_status_free(st);
  return g_io[0] && g_io[1] && g_io[2] && g_io[3] && !model_load(&g_mlp)
             ? 0 : -1;
}

static void io_teardown(void) {
  for (int i = 0; i < 4; i++) {
    tfs_tensor_free(g_io[i]);
    g_io[i] = NULL;
  }
}

static void io_path(char *buf, size_t cap, const char *name) {
  snprintf(buf, cap, "%s/%s", tt_tmpdir(), name);
}

/* .npy bytes in memory and a file, each written and read back. */
static int io_npy(tfs_status *st, tt_result *res) {
  for (int i = 0; i < 4; i++) {
    tfs_buffer *b = tfs_buffer_new();
    if (!b) {
      tt_null(st, "tfs_buffer_new");
      return -1;
    }
    tfs_npy_write_buffer(g_io[i], b, st);
    tfs_tensor *t = NULL;
    if (tfs_status_ok(st))
      t = tfs_npy_read_buffer(b->data, b->length, kIoNames[i], st);
    tfs_buffer_free(b);
    if (!t) return -1;
    tt_result_tensor(res, kIoNames[i], t);
    tfs_tensor_free(t);
  }
  char path[300];
  io_path(path, sizeof path, "t.npy");
  tfs_npy_write(path, g_io[0], st);
  if (!tfs_status_ok(st)) return -1;
  tfs_tensor *t = tfs_npy_read(path, st);
  unlink(path);
  if (!t) return -1;
  tt_result_tensor(res, "file", t);
  tfs_tensor_free(t);
  char *fx = tt_path("tests/conformance/models/mlp/feed0.npy");
  t = tfs_npy_read(fx, st);
  free(fx);
  if (!t) return -1;
  tt_result_tensor(res, "fixture", t);
  tfs_tensor_free(t);
  return 0;
}

/* Row-wise writing, then row-wise reading. */
static int io_rows(tfs_status *st, tt_result *res) {
  char path[300];
  io_path(path, sizeof path, "rows.npy");
  int64_t row[1] = {4};
  tfs_npy_writer *w = tfs_npy_writer_open(path, TFS_FLOAT, row, 1, st);
  if (!w) return -1;
  tfs_npy_writer_append(w, g_io[0], st);
  if (tfs_status_ok(st)) tfs_npy_writer_append(w, g_io[0], st);
  if (!tfs_status_ok(st)) {
    tfs_npy_writer_free(w);
    unlink(path);
    return -1;
  }
  tfs_npy_writer_close(w, st);
  tfs_npy_reader *r = NULL;
  if (tfs_status_ok(st)) r = tfs_npy_reader_open(path, st);
  unlink(path);
  if (!r) return -1;
  tt_result_int(res, "rows", tfs_npy_reader_dims(r)[0]);
  tfs_tensor *t = tfs_npy_reader_read_rows(r, 2, 3, st);
  tfs_npy_reader_free(r);
  if (!t) return -1;
  tt_result_tensor(res, "rows 2..4", t);
  tfs_tensor_free(t);
  return 0;
}

static int io_npz(int compress, tfs_status *st, tt_result *res) {
  char path[300];
  io_path(path, sizeof path, compress ? "c.npz" : "s.npz");
  tfs_npz_write(path, kIoNames, (const tfs_tensor *const *)g_io, 4, compress,
                st);
  if (!tfs_status_ok(st)) {
    unlink(path);
    return -1;
  }
  tfs_npz *z = tfs_npz_read(path, st);
  unlink(path);
  if (!z) return -1;
  tt_result_int(res, "entries", tfs_npz_count(z));
  for (int i = 0; i < tfs_npz_count(z); i++) {
    const char *name = tfs_npz_name(z, i);
    tt_result_bytes(res, "name", name, name ? strlen(name) : 0);
    tt_result_tensor(res, "tensor", tfs_npz_tensor(z, i));
  }
  tt_result_tensor(res, "found", tfs_npz_find(z, "strings"));
  tfs_npz_free(z);
  return 0;
}

/* TFRecords written and read back, then a TensorBoard event file. */
static int io_records(tfs_status *st, tt_result *res) {
  char path[300];
  io_path(path, sizeof path, "r.tfrecord");
  static const char *const recs[3] = {"one", "", "a third record"};
  tfs_record_writer *w = tfs_record_writer_open(path, 0, st);
  if (!w) return -1;
  for (int i = 0; i < 3 && tfs_status_ok(st); i++)
    tfs_record_writer_write(w, recs[i], strlen(recs[i]), st);
  if (!tfs_status_ok(st)) {
    tfs_record_writer_free(w, NULL);
    unlink(path);
    return -1;
  }
  tfs_record_writer_free(w, st);
  tfs_record_reader *r = tfs_status_ok(st) ? tfs_record_reader_open(path, st)
                                           : NULL;
  int rc = r ? 0 : -1;
  const void *data;
  size_t len;
  int got;
  while (r && (got = tfs_record_reader_next(r, &data, &len, st)) == 1)
    tt_result_bytes(res, "record", data, len);
  if (r && got < 0) rc = -1;
  tfs_record_reader_free(r);
  unlink(path);
  if (rc) return -1;
  io_path(path, sizeof path, "events");
  tfs_events_writer *ew = tfs_events_writer_new(path, st);
  if (!ew) {
    if (rmdir(path) != 0 && errno == ENOTEMPTY)
      tt_fail("a failed tfs_events_writer_new left a file in %s", path);
    return -1;
  }
  char *file = strdup(tfs_events_writer_path(ew));
  tfs_events_writer_add_scalar(ew, "loss", 0.5f, 1, st);
  if (tfs_status_ok(st)) tfs_events_writer_free(ew, st);
  else tfs_events_writer_free(ew, NULL);
  if (file) unlink(file);
  free(file);
  rmdir(path);
  return tfs_status_ok(st) ? 0 : -1;
}

static int io_run(tfs_status *st, tt_result *res) {
  if (io_npy(st, res) || io_rows(st, res) || io_npz(0, st, res) ||
      io_npz(1, st, res))
    return -1;
  return io_records(st, res);
}

const tt_scenario tt_scenarios[] = {
    {"graphdef_import", import_setup, import_run, NULL},
    {"session_run", session_setup, session_run, NULL},
    {"parallel_run", parallel_setup, parallel_run, NULL},
    {"config_run_options", config_setup, config_run, config_teardown},
    {"npy_npz", io_setup, io_run, io_teardown},
    {"eager", NULL, eager_run, NULL},
    {"function", NULL, function_run, NULL},
#ifdef TFS_TORTURE_C_API
    {"c_api", capi_setup, capi_run, NULL},
#endif
    {"optimizer", optimizer_setup, optimizer_run, models_unload},
    {NULL, NULL, NULL, NULL}};
