/*
 * tools/tfsess.c - the `tfsess` command line program: dispatches to the
 * subcommands listed in commands.def (run, inspect, ops, tensorboard, ...).
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"

#define TFS_CLI_COMMAND(name, summary) \
  int tfs_cli_cmd_##name(int argc, char **argv);
#include "commands.def"
#undef TFS_CLI_COMMAND

typedef struct {
  const char *name;
  const char *summary;
  int (*main)(int argc, char **argv);
} command;

static const command kCommands[] = {
#define TFS_CLI_COMMAND(name, summary) {#name, summary, tfs_cli_cmd_##name},
#include "commands.def"
#undef TFS_CLI_COMMAND
    {NULL, NULL, NULL}};

static void usage(FILE *out) {
  fprintf(out,
          "usage: tfsess COMMAND [ARGS...]\n"
          "\n"
          "tfsess %s runs TensorFlow graphs (GraphDef .pb files) on the CPU.\n"
          "\n"
          "Commands:\n",
          tfs_version());
  for (const command *c = kCommands; c->name; c++)
    fprintf(out, "  %-12s %s\n", c->name, c->summary);
  fprintf(out,
          "\n"
          "Run `tfsess COMMAND --help` for a command's arguments.\n"
          "Options: --help, --version.\n");
}

int main(int argc, char **argv) {
  tfs_cli_command = NULL;
  if (argc < 2) {
    usage(stderr);
    return TFS_CLI_USAGE;
  }
  const char *name = argv[1];
  if (!strcmp(name, "--help") || !strcmp(name, "-h") || !strcmp(name, "help")) {
    if (argc > 2 && strcmp(name, "help") == 0) {
      /* "tfsess help run" is "tfsess run --help" */
      for (const command *c = kCommands; c->name; c++) {
        if (strcmp(c->name, argv[2]) == 0) {
          char *args[] = {argv[2], "--help", NULL};
          tfs_cli_command = c->name;
          return c->main(2, args);
        }
      }
      return tfs_cli_usage_error("unknown command '%s'", argv[2]);
    }
    usage(stdout);
    return TFS_CLI_OK;
  }
  if (!strcmp(name, "--version")) {
    printf("tfsess %s (TensorFlow %s compatible)\n", tfs_version(),
           TFS_TF_VERSION_STRING);
    return TFS_CLI_OK;
  }
  for (const command *c = kCommands; c->name; c++) {
    if (strcmp(c->name, name) == 0) {
      tfs_cli_command = c->name;
      return c->main(argc - 1, argv + 1);
    }
  }
  return tfs_cli_usage_error("unknown command '%s' (see tfsess --help)", name);
}
