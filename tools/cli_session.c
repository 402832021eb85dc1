/*
 * tools/cli_session.c - the "Session" option group that every subcommand
 * running a session shares (--config, --intra, --inter, --no-optimize,
 * --passes, --save-config), and the session options built from it.  New
 * session-wide flags go here.
 */
#include <stdio.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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

/* The import limits that follow from --safe and --limit. */
static void update_import_limits(const tfs_cli_session *s) {
  tfs_session_options *o = tfs_session_options_new();
  if (!o) return;
  tfs_session_options_set_safe_mode(o, s->safe);
  for (int i = 0; i < TFS_LIMIT_COUNT; i++)
    if (s->limits_set >> i & 1)
      tfs_session_options_set_limit(o, (tfs_limit)i, s->limits[i]);
  int64_t nesting = tfs_session_options_limit(o, TFS_LIMIT_NESTING);
  tfs_cli_set_import_limits(
      s->safe || (s->limits_set >> TFS_LIMIT_NESTING & 1) ? (int)nesting : 0,
      tfs_session_options_limit(o, TFS_LIMIT_GRAPH_NODES));
  tfs_session_options_free(o);
}

static int set_safe(void *ctx, const char *v) {
  (void)v;
  tfs_cli_session *s = ctx;
  s->safe = 1;
  update_import_limits(s);
  return 0;
}

static const char *const kLimitNames[TFS_LIMIT_COUNT] = {
    "tensor-bytes", "run-bytes", "graph-nodes", "nesting", "op-elements"};

/* --limit NAME=VALUE: VALUE an integer with an optional k, M or G
 * (powers of 1024), or "none". */
static int set_limit(void *ctx, const char *v) {
  tfs_cli_session *s = ctx;
  const char *eq = strchr(v, '=');
  int which = -1;
  for (int i = 0; eq && i < TFS_LIMIT_COUNT; i++)
    if (strlen(kLimitNames[i]) == (size_t)(eq - v) &&
        strncmp(v, kLimitNames[i], (size_t)(eq - v)) == 0)
      which = i;
  if (which < 0) {
    tfs_cli_usage_error("--limit: expected NAME=VALUE with NAME one of "
                        "tensor-bytes, run-bytes, graph-nodes, nesting, "
                        "op-elements; got '%s'", v);
    return -1;
  }
  const char *num = eq + 1;
  int64_t value;
  if (strcmp(num, "none") == 0) {
    value = -1;
  } else {
    char *end;
    errno = 0;
    long long x = strtoll(num, &end, 10);
    int shift = 0;
    if (*end == 'k' || *end == 'K') shift = 10;
    if (*end == 'M') shift = 20;
    if (*end == 'G') shift = 30;
    if (shift) end++;
    if (end == num || *end || errno || x <= 0 ||
        x > (INT64_MAX >> shift)) {
      tfs_cli_usage_error("--limit %s: '%s' is not a positive integer "
                          "(k, M, G allowed) or 'none'",
                          kLimitNames[which], num);
      return -1;
    }
    value = (int64_t)x << shift;
  }
  s->limits[which] = value;
  s->limits_set |= 1u << which;
  update_import_limits(s);
  return 0;
}

static int set_allow_op(void *ctx, const char *v) {
  tfs_cli_session *s = ctx;
  if (s->nallow >= (int)(sizeof s->allow / sizeof s->allow[0])) {
    tfs_cli_usage_error("--allow-op: at most 32 op types");
    return -1;
  }
  s->allow[s->nallow++] = v;
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
  rc = tfs_cli_write_file(path, b->data, b->length);
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
    {"safe", NULL,
     "safe mode for untrusted graphs: resource limits, and ops that reach "
     "files or the process are refused (docs/SECURITY.md)",
     set_safe},
    {"limit", "NAME=N",
     "resource limit: tensor-bytes, run-bytes, graph-nodes, nesting or "
     "op-elements (N: integer, k/M/G suffix, or none)",
     set_limit},
    {"allow-op", "TYPE", "let op TYPE through safe mode (repeatable)",
     set_allow_op},
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
  if (s->safe) tfs_session_options_set_safe_mode(o, 1);
  for (int i = 0; i < TFS_LIMIT_COUNT; i++)
    if (s->limits_set >> i & 1)
      tfs_session_options_set_limit(o, (tfs_limit)i, s->limits[i]);
  for (int i = 0; i < s->nallow; i++) {
    tfs_status *st = tfs_status_new();
    if (st) tfs_session_options_allow_op(o, s->allow[i], st);
    int ok = st && tfs_status_ok(st);
    tfs_status_free(st);
    if (!ok) {
      tfs_cli_error("out of memory");
      goto fail;
    }
  }
  if (s->save_config && save_config(o, s->save_config)) goto fail;
  /* after saving: a rank's GPU in a file all ranks share would pin every
   * rank that reads it back to that GPU */
  if (tfs_cli_mpi_pin_gpu(s->mpi, o)) goto fail;
  return o;
fail:
  tfs_session_options_free(o);
  return NULL;
}
