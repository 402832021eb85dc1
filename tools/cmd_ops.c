/*
 * tools/cmd_ops.c - `tfsess ops`: every op in the registry with the
 * devices and dtypes of its kernels; `tfsess ops NAME...` prints the
 * named ops' full signatures.  Reads the op and kernel registries only.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "kernels/kernel.h"
#include "ops/op_def.h"

static const tfs_cli_help kOpsHelp = {
    "ops [OP...]",
    "Lists every op this build registers, with the devices and dtypes its\n"
    "kernels accept (\"any\" when a kernel takes every dtype, \"no kernel\"\n"
    "when a graph may hold the op but nothing can run it).  With OP names,\n"
    "prints their full signatures (inputs, outputs, attrs and defaults).",
    0, 1 << 16};

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

int tfs_cli_cmd_ops(int argc, char **argv) {
  char **pos = calloc((size_t)argc + 1, sizeof *pos);
  if (!pos) return tfs_cli_error("out of memory");
  int npos;
  int rc = tfs_cli_parse(argc, argv, &kOpsHelp, NULL, 0, pos, &npos);
  if (rc) {
    free(pos);
    return rc > 0 ? TFS_CLI_OK : TFS_CLI_USAGE;
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
