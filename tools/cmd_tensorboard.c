/*
 * tools/cmd_tensorboard.c - `tfsess tensorboard`: writes a GraphDef into a
 * TensorBoard event file in --logdir and, when fetches or targets are
 * given, runs the graph once with full tracing and adds the RunMetadata
 * (per-node step stats) as tagged run metadata.  The GraphDef keeps the
 * graph's function library (While/If bodies, tf.function calls): as with
 * TensorFlow's summary writers, TensorBoard draws each function of it in
 * its "function library" area.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "config_proto/pb_util.h"
#include "io/events.h"
#include "proto/config.pb-c.h"
#include "proto/function.pb-c.h"

typedef struct tb_args {
  const char *logdir;
  const char *tag;
  tfs_cli_list feeds, fetches, targets;
} tb_args;

static int set_logdir(void *c, const char *v) {
  ((tb_args *)c)->logdir = v;
  return 0;
}
static int set_tag(void *c, const char *v) {
  ((tb_args *)c)->tag = v;
  return 0;
}
static int add_feed(void *c, const char *v) {
  return tfs_cli_list_add(&((tb_args *)c)->feeds, v);
}
static int add_fetch(void *c, const char *v) {
  return tfs_cli_list_add(&((tb_args *)c)->fetches, v);
}
static int add_target(void *c, const char *v) {
  return tfs_cli_list_add(&((tb_args *)c)->targets, v);
}

static const tfs_cli_opt kTbOpts[] = {
    {"logdir", "DIR", "directory for the event file (created if missing)",
     set_logdir},
    {"feed", "NAME[:i]=FILE", "feed for the traced run (repeatable)", add_feed},
    {"fetch", "NAME[:i]", "fetch of the traced run (repeatable)", add_fetch},
    {"target", "NODE", "target of the traced run (repeatable)", add_target},
    {"tag", "TAG", "tag of the traced run (default \"" TFS_EVENTS_RUN_TAG "\")",
     set_tag},
    {NULL, NULL, NULL, NULL}};

static const tfs_cli_help kTbHelp = {
    "tensorboard MODEL.pb --logdir DIR [--fetch NAME ... [--feed ...]]",
    "Writes the graph in MODEL.pb to a new TensorBoard event file in DIR\n"
    "(view it with `tensorboard --logdir DIR`, Graphs tab).  With --fetch or\n"
    "--target the graph also runs once with full tracing, and the run's\n"
    "step stats are added so TensorBoard can show per-node compute time.\n"
    "The graph's function library (While/If bodies, tf.function calls) is\n"
    "written with it, as TensorFlow writes it, and TensorBoard draws each\n"
    "function on its own; a line per function names it and its node count.",
    1, 1};

/* Runs once with FULL_TRACE; the RunMetadata bytes go to *md. */
static int traced_run(tfs_graph *g, tb_args *a, tfs_cli_session *sess,
                      tfs_buffer *md) {
  int nf = a->feeds.n, nt = a->fetches.n, rc = TFS_CLI_OK;
  tfs_cli_feed *feeds = calloc((size_t)nf + 1, sizeof *feeds);
  tfs_output *fports = calloc((size_t)nf + 1, sizeof *fports);
  tfs_tensor **in = calloc((size_t)nf + 1, sizeof *in);
  tfs_output *oports = calloc((size_t)nt + 1, sizeof *oports);
  tfs_tensor **out = calloc((size_t)nt + 1, sizeof *out);
  tfs_operation **targets = calloc((size_t)a->targets.n + 1, sizeof *targets);
  tfs_session *s = NULL;
  if (!feeds || !fports || !in || !oports || !out || !targets)
    rc = tfs_cli_error("out of memory");
  for (int i = 0; rc == TFS_CLI_OK && i < nf; i++) {
    rc = tfs_cli_feed_parse(g, a->feeds.v[i], &feeds[i]);
    if (rc == TFS_CLI_OK && !(in[i] = tfs_cli_feed_load(&feeds[i])))
      rc = TFS_CLI_FAILED;
    fports[i] = feeds[i].port;
  }
  for (int i = 0; rc == TFS_CLI_OK && i < nt; i++)
    if (tfs_cli_resolve(g, a->fetches.v[i], "fetch", &oports[i]))
      rc = TFS_CLI_FAILED;
  if (rc == TFS_CLI_OK && tfs_cli_resolve_targets(g, &a->targets, targets))
    rc = TFS_CLI_FAILED;
  tfs_status *st = tfs_status_new();
  if (rc == TFS_CLI_OK) {
    tfs_session_options *opts = tfs_cli_session_options(sess);
    if (!opts)
      rc = TFS_CLI_FAILED;
    else
      s = tfs_session_new(g, opts, st);
    tfs_session_options_free(opts);
    if (opts && !s) rc = tfs_cli_status_error(st);
  }
  if (rc == TFS_CLI_OK) {
    Tensorflow__RunOptions ro = TENSORFLOW__RUN_OPTIONS__INIT;
    ro.trace_level = TENSORFLOW__RUN_OPTIONS__TRACE_LEVEL__FULL_TRACE;
    uint8_t ro_bytes[16];
    tfs_buffer rob = {ro_bytes, tensorflow__run_options__pack(&ro, ro_bytes),
                      NULL};
    tfs_session_run_ex(s, &rob, fports, in, nf, oports, out, nt, targets,
                       a->targets.n, md, st);
    if (!tfs_status_ok(st)) rc = tfs_cli_status_error(st);
  }
  tfs_status_free(st);
  tfs_session_free(s);
  for (int i = 0; feeds && i < nf; i++) tfs_cli_feed_clear(&feeds[i]);
  for (int i = 0; in && i < nf; i++) tfs_tensor_free(in[i]);
  for (int i = 0; out && i < nt; i++) tfs_tensor_free(out[i]);
  free(feeds);
  free(fports);
  free(in);
  free(oports);
  free(out);
  free(targets);
  return rc;
}

/* One line per function of the library written with the graph, in the
 * GraphDef's order: its name and its number of nodes. */
static int print_functions(tfs_graph *g) {
  int n = tfs_graph_num_functions(g), rc = TFS_CLI_OK;
  tfs_status *st = tfs_status_new();
  for (int i = 0; i < n && rc == TFS_CLI_OK; i++) {
    const char *name = tfs_graph_function_name(g, i);
    tfs_buffer fb = {NULL, 0, NULL};
    tfs_graph_get_function_def(g, name, &fb, st);
    if (!tfs_status_ok(st)) {
      rc = tfs_cli_status_error(st);
      break;
    }
    int oom = 0;
    Tensorflow__FunctionDef *fd = (Tensorflow__FunctionDef *)tfs_pb__unpack(
        &tensorflow__function_def__descriptor, fb.data, fb.length, &oom);
    if (fd)
      printf("  function %s: %zu node%s\n", name, fd->n_node_def,
             fd->n_node_def == 1 ? "" : "s");
    else if (oom)
      rc = tfs_cli_error("out of memory");
    else
      rc = tfs_cli_error("function '%s' does not parse as a FunctionDef",
                         name);
    if (fd) tfs_pb__free(&fd->base);
    if (fb.data_deallocator) fb.data_deallocator((void *)fb.data, fb.length);
  }
  tfs_status_free(st);
  return rc;
}

static int write_events(const char *model, tb_args *a, tfs_cli_session *sess) {
  tfs_graph *g = tfs_cli_load_graph(model);
  if (!g) return TFS_CLI_FAILED;
  tfs_buffer md = {NULL, 0, NULL};
  int traced = a->fetches.n > 0 || a->targets.n > 0;
  int rc = traced ? traced_run(g, a, sess, &md) : TFS_CLI_OK;
  tfs_status *st = tfs_status_new();
  tfs_events_writer *w = NULL;
  if (rc == TFS_CLI_OK) w = tfs_events_writer_new(a->logdir, st);
  if (rc == TFS_CLI_OK && w) tfs_events_writer_add_graph(w, g, st);
  if (rc == TFS_CLI_OK && w && traced && tfs_status_ok(st))
    tfs_events_writer_add_run_metadata(w, a->tag ? a->tag : TFS_EVENTS_RUN_TAG,
                                       md.data, md.length, 0, st);
  if (rc == TFS_CLI_OK && !tfs_status_ok(st)) rc = tfs_cli_status_error(st);
  if (rc == TFS_CLI_OK) {
    printf("wrote %s (graph%s)\n", tfs_events_writer_path(w),
           traced ? " and a traced run" : "");
    rc = print_functions(g);
    tfs_events_writer_free(w, st);
    if (rc == TFS_CLI_OK && !tfs_status_ok(st)) rc = tfs_cli_status_error(st);
  } else {
    tfs_events_writer_free(w, NULL);
  }
  if (md.data_deallocator) md.data_deallocator((void *)md.data, md.length);
  tfs_status_free(st);
  tfs_graph_free(g);
  return rc;
}

int tfs_cli_cmd_tensorboard(int argc, char **argv) {
  tb_args a;
  memset(&a, 0, sizeof a);
  tfs_cli_session sess = TFS_CLI_SESSION_INIT;
  tfs_cli_group groups[] = {{"TensorBoard", kTbOpts, &a},
                            {"Session", tfs_cli_session_opts, &sess}};
  char *pos[1];
  int npos;
  int rc = tfs_cli_parse(argc, argv, &kTbHelp, groups, 2, pos, &npos);
  if (rc == 0 && !a.logdir) {
    tfs_cli_usage_error("--logdir DIR is required");
    rc = -1;
  }
  if (rc)
    rc = rc > 0 ? TFS_CLI_OK : TFS_CLI_USAGE;
  else
    rc = write_events(pos[0], &a, &sess);
  tfs_cli_list_free(&a.feeds);
  tfs_cli_list_free(&a.fetches);
  tfs_cli_list_free(&a.targets);
  return rc;
}
