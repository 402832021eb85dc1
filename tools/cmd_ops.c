/*
 * tools/cmd_ops.c - `tfsess ops`: every op in the registry with the
 * devices and dtypes of its kernels; `tfsess ops NAME...` prints the
 * named ops' full signatures; `tfsess ops --missing-from FILE` prints
 * which ops of a list (one name per line) this build cannot run on the
 * CPU, and the coverage as a percentage.  Reads the op and kernel
 * registries (and FILE) only.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "kernels/kernel.h"
#include "ops/op_def.h"

static const tfs_cli_help kOpsHelp = {
    "ops [OP...] [--missing-from FILE]",
    "Lists every op this build registers, with the devices and dtypes its\n"
    "kernels accept (\"any\" when a kernel takes every dtype, \"no kernel\"\n"
    "when a graph may hold the op but nothing can run it).  With OP names,\n"
    "prints their full signatures (inputs, outputs, attrs and defaults).\n"
    "With --missing-from FILE (op names, one per line; blank lines and\n"
    "text after '#' are ignored), prints each listed op that is not\n"
    "registered or has no CPU kernel, then the coverage; exits 1 when\n"
    "any op is missing.",
    0, 1 << 16};

typedef struct ops_args {
  const char *missing_from;
} ops_args;

static int set_missing_from(void *c, const char *v) {
  ((ops_args *)c)->missing_from = v;
  return 0;
}

static const tfs_cli_opt kOpsOpts[] = {
    {"missing-from", "FILE",
     "report the ops listed in FILE that this build cannot run on the CPU",
     set_missing_from},
    {NULL, NULL, NULL, NULL}};

/* "CPU[float, double]" for each device of op's kernels, into b. */
static void kernel_summary(tfs_strbuf *b, const char *op,
                           const tfs_kernel_def *const *ks, int nk) {
  const char *devices[8];
  int nd = 0;
  for (int i = 0; i < nk; i++) {
    if (strcmp(ks[i]->op, op) != 0) continue;
    int seen = 0;
    for (int d = 0; d < nd; d++) seen |= !strcmp(devices[d], ks[i]->device);
    if (!seen && nd < 8) devices[nd++] = ks[i]->device;
  }
  if (nd == 0) {
    tfs_strbuf_puts(b, "no kernel");
    return;
  }
  for (int d = 0; d < nd; d++) {
    uint64_t types = 0;
    int any = 0;
    for (int i = 0; i < nk; i++) {
      if (strcmp(ks[i]->op, op) != 0 || strcmp(ks[i]->device, devices[d]))
        continue;
      if (!ks[i]->type_attr || !ks[i]->types) any = 1;
      types |= ks[i]->types;
    }
    tfs_strbuf_printf(b, "%s%s[", d ? " " : "", devices[d]);
    if (any) {
      tfs_strbuf_puts(b, "any");
    } else {
      int first = 1;
      for (int t = 1; t < 64; t++) {
        if (!(types & TFS_DT_BIT(t)) || !tfs_dtype_is_valid((tfs_dtype)t))
          continue;
        tfs_strbuf_printf(b, "%s%s", first ? "" : ", ",
                          tfs_dtype_name((tfs_dtype)t));
        first = 0;
      }
    }
    tfs_strbuf_putc(b, ']');
  }
}

/* 1 when some CPU kernel is registered for op. */
static int has_cpu_kernel(const char *op, const tfs_kernel_def *const *ks,
                          int nk) {
  for (int i = 0; i < nk; i++)
    if (!strcmp(ks[i]->op, op) && !strcmp(ks[i]->device, "CPU")) return 1;
  return 0;
}

/* Trims line in place to its first word (text after '#' dropped); returns
 * the word or NULL for a blank line.  Sets *extra when more words follow. */
static char *first_word(char *line, int *extra) {
  char *hash = strchr(line, '#');
  if (hash) *hash = 0;
  char *w = line + strspn(line, " \t\r\n");
  if (!*w) return NULL;
  size_t n = strcspn(w, " \t\r\n");
  *extra = w[n + strspn(w + n, " \t\r\n")] != 0;
  w[n] = 0;
  return w;
}

/* `ops --missing-from FILE`: each listed op without a CPU kernel, then
 * "coverage: K of N listed ops have a CPU kernel (P%)". */
static int missing_from(const char *path) {
  FILE *f = fopen(path, "r");
  if (!f) return tfs_cli_error("cannot open %s: %s", path, strerror(errno));
  int nk;
  const tfs_kernel_def *const *ks = tfs_kernel_all(&nk);
  char line[512];
  long lineno = 0, listed = 0, missing = 0;
  int rc = TFS_CLI_OK;
  while (fgets(line, sizeof line, f)) {
    lineno++;
    if (!strchr(line, '\n') && !feof(f)) {
      rc = tfs_cli_error("%s:%ld: line longer than %d bytes", path, lineno,
                         (int)sizeof line - 2);
      break;
    }
    int extra = 0;
    char *name = first_word(line, &extra);
    if (!name) continue;
    if (extra) {
      rc = tfs_cli_error("%s:%ld: expected one op name per line", path,
                         lineno);
      break;
    }
    listed++;
    const tfs_op_def *op = tfs_op_lookup(name);
    if (op && has_cpu_kernel(op->name, ks, nk)) continue;
    missing++;
    printf("%-40s %s\n", name, op ? "no CPU kernel" : "not registered");
  }
  if (rc == TFS_CLI_OK && ferror(f))
    rc = tfs_cli_error("cannot read %s: %s", path, strerror(errno));
  fclose(f);
  if (rc != TFS_CLI_OK) return rc;
  if (listed == 0) return tfs_cli_error("%s lists no op", path);
  printf("coverage: %ld of %ld listed ops have a CPU kernel (%.1f%%), "
         "%ld missing\n",
         listed - missing, listed, 100.0 * (double)(listed - missing) /
                                       (double)listed,
         missing);
  return missing ? TFS_CLI_FAILED : TFS_CLI_OK;
}

int tfs_cli_cmd_ops(int argc, char **argv) {
  char **pos = calloc((size_t)argc + 1, sizeof *pos);
  if (!pos) return tfs_cli_error("out of memory");
  int npos;
  ops_args a = {NULL};
  tfs_cli_group groups[] = {{"Ops", kOpsOpts, &a}};
  int rc = tfs_cli_parse(argc, argv, &kOpsHelp, groups, 1, pos, &npos);
  if (rc) {
    free(pos);
    return rc > 0 ? TFS_CLI_OK : TFS_CLI_USAGE;
  }
  if (a.missing_from) {
    free(pos);
    if (npos > 0)
      return tfs_cli_usage_error("--missing-from takes no op names");
    return missing_from(a.missing_from);
  }
  int nops, nk;
  const tfs_op_def *const *ops = tfs_op_all(&nops);
  const tfs_kernel_def *const *ks = tfs_kernel_all(&nk);
  tfs_strbuf b = TFS_STRBUF_INIT;
  rc = TFS_CLI_OK;
  if (npos == 0) {
    for (int i = 0; i < nops; i++) {
      kernel_summary(&b, ops[i]->name, ks, nk);
      printf("%-28s %s\n", ops[i]->name, tfs_strbuf_str(&b));
      tfs_strbuf_free(&b);
    }
    printf("%d ops\n", nops);
  }
  for (int p = 0; p < npos; p++) {
    const tfs_op_def *op = tfs_op_lookup(pos[p]);
    if (!op) {
      tfs_status *st = tfs_status_new();
      tfs_op_not_registered(pos[p], st);
      rc = tfs_cli_status_error(st);
      tfs_status_free(st);
      break;
    }
    kernel_summary(&b, op->name, ks, nk);
    printf("%s\n  kernels: %s\n", op->summary, tfs_strbuf_str(&b));
    tfs_strbuf_free(&b);
  }
  tfs_strbuf_free(&b);
  free(pos);
  return rc;
}
