/*
 * tools/cmd_ckpt.c - `tfsess ckpt PREFIX`: the tensors of a V2
 * checkpoint, one "NAME (DT_TYPE) [d0,d1]" line each, as TensorFlow's
 * inspect_checkpoint prints them; `--tensor NAME` (repeatable) prints
 * those tensors' values, `--all` every value, `--out DIR` writes them as
 * .npy files.  Reads the checkpoint only.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "core/strbuf.h"

static const tfs_cli_help kCkptHelp = {
    "ckpt PREFIX [--tensor NAME ...] [--all] [--out DIR]",
    "Lists the tensors of the V2 checkpoint PREFIX (PREFIX.index and its\n"
    "PREFIX.data-* files, as tf.train.Saver and tf.train.Checkpoint write\n"
    "them): one line per tensor with its dtype and shape, as TensorFlow's\n"
    "inspect_checkpoint prints them.  Partitioned variables are listed\n"
    "once, with their full shape.  Every data read is checked against the\n"
    "checkpoint's CRC32C.",
    1, 1};

typedef struct ckpt_args {
  tfs_cli_list tensors;
  int all;
  const char *out;
} ckpt_args;

static int add_tensor(void *c, const char *v) {
  return tfs_cli_list_add(&((ckpt_args *)c)->tensors, v);
}

static int set_all(void *c, const char *v) {
  (void)v;
  ((ckpt_args *)c)->all = 1;
  return 0;
}

static int set_out(void *c, const char *v) {
  ((ckpt_args *)c)->out = v;
  return 0;
}

static const tfs_cli_opt kCkptOpts[] = {
    {"tensor", "NAME", "print this tensor's values (repeatable)", add_tensor},
    {"all", NULL, "print every tensor's values", set_all},
    {"out", "DIR", "write the printed tensors to DIR/<name>.npy ('/' -> '__')",
     set_out},
    {NULL, NULL, NULL, NULL}};

/* "[2,3]" for the shape of entry i */
static void shape_text(const tfs_bundle_reader *r, int i, tfs_strbuf *b) {
  const int64_t *dims;
  int nd = tfs_bundle_reader_shape(r, i, &dims);
  tfs_strbuf_putc(b, '[');
  for (int d = 0; d < nd; d++)
    tfs_strbuf_printf(b, d ? ",%lld" : "%lld", (long long)dims[d]);
  tfs_strbuf_putc(b, ']');
}

static int show(tfs_bundle_reader *r, const char *name, const char *out) {
  tfs_status *st = tfs_status_new();
  tfs_tensor *t = tfs_bundle_reader_read(r, name, st);
  int rc = TFS_CLI_OK;
  if (!t) {
    rc = tfs_cli_status_error(st);
  } else {
    char *s = tfs_tensor_to_string(t, 1000);
    printf("tensor_name:  %s\n%s\n", name, s ? s : "");
    free(s);
    if (out) {
      tfs_strbuf path = TFS_STRBUF_INIT;
      tfs_strbuf_printf(&path, "%s/", out);
      for (const char *c = name; *c; c++)
        tfs_strbuf_puts(&path, *c == '/' ? "__" : (char[]){*c, 0});
      tfs_strbuf_puts(&path, ".npy");
      tfs_npy_write(tfs_strbuf_str(&path), t, st);
      if (!tfs_status_ok(st)) rc = tfs_cli_status_error(st);
      tfs_strbuf_free(&path);
    }
  }
  tfs_tensor_free(t);
  tfs_status_free(st);
  return rc;
}

int tfs_cli_cmd_ckpt(int argc, char **argv) {
  char *pos[2];
  int npos;
  ckpt_args a = {{0, 0, NULL}, 0, NULL};
  tfs_cli_group groups[] = {{"Checkpoint", kCkptOpts, &a}};
  int rc = tfs_cli_parse(argc, argv, &kCkptHelp, groups, 1, pos, &npos);
  if (rc) {
    tfs_cli_list_free(&a.tensors);
    return rc > 0 ? TFS_CLI_OK : TFS_CLI_USAGE;
  }
  if (a.out && tfs_cli_mkdirs(a.out)) {
    tfs_cli_list_free(&a.tensors);
    return TFS_CLI_FAILED;
  }
  tfs_status *st = tfs_status_new();
  tfs_bundle_reader *r = tfs_bundle_reader_open(pos[0], st);
  if (!r) {
    rc = tfs_cli_status_error(st);
    tfs_status_free(st);
    tfs_cli_list_free(&a.tensors);
    return rc;
  }
  int n = tfs_bundle_reader_count(r);
  for (int i = 0; i < n && a.tensors.n == 0; i++) {
    tfs_strbuf b = TFS_STRBUF_INIT;
    shape_text(r, i, &b);
    printf("%s (%s) %s\n", tfs_bundle_reader_name(r, i),
           tfs_dtype_enum_name(tfs_bundle_reader_dtype(r, i)),
           tfs_strbuf_str(&b));
    tfs_strbuf_free(&b);
    if (a.all && !rc) rc = show(r, tfs_bundle_reader_name(r, i), a.out);
  }
  for (int i = 0; i < a.tensors.n && !rc; i++)
    rc = show(r, a.tensors.v[i], a.out);
  tfs_bundle_reader_free(r);
  tfs_status_free(st);
  tfs_cli_list_free(&a.tensors);
  return rc;
}
