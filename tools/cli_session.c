/*
 * tools/cli_session.c - the "Session" option group that every subcommand
 * running a session shares (--config, --intra, --inter, --no-optimize,
 * --passes, --save-config), and the session options built from it.  New
 * session-wide flags go here.
 */
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"

static int set_config(void *ctx, const char *v) {
  ((tfs_cli_session *)ctx)->config_path = v;
  return 0;
}

static int set_intra(void *ctx, const char *v) {
  return tfs_cli_parse_int("intra", v, 0, 4096,
                           &((tfs_cli_session *)ctx)->intra);
}

static int set_inter(void *ctx, const char *v) {
  return tfs_cli_parse_int("inter", v, -1, 4096,
                           &((tfs_cli_session *)ctx)->inter);
}

static int set_no_optimize(void *ctx, const char *v) {
  (void)v;
  ((tfs_cli_session *)ctx)->no_optimize = 1;
  return 0;
}

static int set_passes(void *ctx, const char *v) {
  /* checked here, so that a bad list is a usage error (exit 2) */
  tfs_optimizer_options *probe = tfs_optimizer_options_new();
  tfs_status *st = tfs_status_new();
  int rc = 0;
  if (!probe || !st) {
    tfs_cli_error("out of memory");
    rc = -1;
  } else if (tfs_optimizer_options_set_passes(probe, v, st),
             !tfs_status_ok(st)) {
    tfs_cli_usage_error("--passes: %s", tfs_status_message(st));
    rc = -1;
  }
  tfs_optimizer_options_free(probe);
  tfs_status_free(st);
  if (rc == 0) ((tfs_cli_session *)ctx)->passes = v;
  return rc;
}

static int set_save_config(void *ctx, const char *v) {
  ((tfs_cli_session *)ctx)->save_config = v;
  return 0;
}

/* Writes the options' ConfigProto bytes (as TensorFlow serializes them)
 * to `path`.  Returns 0 or -1 (reported). */
static int save_config(tfs_session_options *o, const char *path) {
  tfs_status *st = tfs_status_new();
  tfs_buffer *b = tfs_buffer_new();
  int rc = -1;
  if (!st || !b) {
    tfs_cli_error("out of memory");
    goto done;
  }
  tfs_session_options_get_config(o, b, st);
  if (!tfs_status_ok(st)) {
    tfs_cli_error("--save-config: %s", tfs_status_message(st));
    goto done;
  }
  FILE *f = fopen(path, "wb");
  size_t w = f && b->length ? fwrite(b->data, 1, b->length, f) : 0;
  if (!f || fclose(f) != 0 || w != b->length) {
    tfs_cli_error("%s: cannot write", path);
    goto done;
  }
  rc = 0;
done:
  tfs_buffer_free(b);
  tfs_status_free(st);
  return rc;
}

const tfs_cli_opt tfs_cli_session_opts[] = {
    {"config", "CONFIG.pb",
     "TensorFlow ConfigProto bytes (threads, soft placement, rewrites)",
     set_config},
    {"intra", "N", "intra-op threads (0: one per core); overrides --config",
     set_intra},
    {"inter", "N",
     "inter-op threads (0: one per core, -1: caller's thread); overrides "
     "--config",
     set_inter},
    {"no-optimize", NULL, "run the graph as written (no graph optimizer)",
     set_no_optimize},
    {"passes", "LIST",
     "only these optimizer passes, comma-separated (see tfsess optimize)",
     set_passes},
    {"save-config", "FILE",
     "write the session's ConfigProto (--config with the flags above "
     "applied) to FILE",
     set_save_config},
    {NULL, NULL, NULL, NULL}};

tfs_session_options *tfs_cli_session_options(const tfs_cli_session *s) {
  tfs_session_options *o = tfs_session_options_new();
  if (!o) {
    tfs_cli_error("out of memory");
    return NULL;
  }
  if (s->config_path) {
    size_t len;
    uint8_t *bytes = tfs_cli_read_file(s->config_path, &len);
    if (!bytes) goto fail;
    tfs_status *st = tfs_status_new();
    tfs_session_options_set_config(o, bytes, len, st);
    free(bytes);
    if (!tfs_status_ok(st)) {
      tfs_cli_error("%s: %s", s->config_path, tfs_status_message(st));
      tfs_status_free(st);
      goto fail;
    }
    tfs_status_free(st);
  }
  if (s->intra != TFS_CLI_UNSET)
    tfs_session_options_set_intra_op_threads(o, (int)s->intra);
  if (s->inter != TFS_CLI_UNSET)
    tfs_session_options_set_inter_op_threads(o, (int)s->inter);
  if (tfs_cli_optimizer_flags(o, s->no_optimize, s->passes)) goto fail;
  if (s->save_config && save_config(o, s->save_config)) goto fail;
  return o;
fail:
  tfs_session_options_free(o);
  return NULL;
}
