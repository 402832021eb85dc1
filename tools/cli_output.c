/*
 * tools/cli_output.c - output files written atomically: each output is
 * written to a temporary file next to it (".NAME.tmpXXXXXX", same
 * directory, so that rename(2) replaces it in one step) and renamed when
 * the whole run has succeeded.  A failed run removes its temporaries, and
 * so do SIGINT, SIGTERM and SIGHUP (the handler unlinks every temporary
 * still registered, then dies of the signal as it would have).  A
 * temporary is made and registered with those signals blocked in the
 * thread that makes it, the thread that installed the handlers; the
 * kernel may deliver a signal to any other thread of the process (a
 * thread pool's, OpenBLAS's), so the handler there passes it on to that
 * thread, where it waits until the temporary is registered.  An existing
 * output is refused unless --force.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "core/strbuf.h"
#include "core/util.h"

/* The temporaries not yet renamed or removed; the signal handler reads
 * slots [0, g_ntemps). */
#define MAX_TEMPS 1024
static char *volatile g_temps[MAX_TEMPS];
static volatile sig_atomic_t g_ntemps;

/* The thread that makes and renames the temporaries. */
static pthread_t g_main;

static void on_signal(int sig) {
  if (!pthread_equal(pthread_self(), g_main)) {
    /* it may be between making a temporary and registering it */
    pthread_kill(g_main, sig);
    return;
  }
  for (sig_atomic_t i = 0; i < g_ntemps; i++)
    if (g_temps[i]) unlink(g_temps[i]);
  signal(sig, SIG_DFL);
  raise(sig);
}

void tfs_cli_output_handlers(void) {
  g_main = pthread_self();
  static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
  for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(sigs[i], &sa, NULL);
  }
}

int tfs_cli_output_check(const char *path, int force) {
  struct stat sb;
  if (lstat(path, &sb) != 0) return 0;
  if (S_ISDIR(sb.st_mode)) {
    tfs_cli_error("%s: is a directory", path);
    return -1;
  }
  if (force) return 0;
  tfs_cli_error("%s: already exists (use --force to overwrite)", path);
  return -1;
}

char *tfs_cli_output_temp(const char *path) {
  const char *slash = strrchr(path, '/');
  size_t dir = slash ? (size_t)(slash - path) + 1 : 0;
  tfs_strbuf b = TFS_STRBUF_INIT;
  tfs_strbuf_printf(&b, "%.*s.%s.tmpXXXXXX", (int)dir, path, path + dir);
  char *tmp = tfs_strbuf_take(&b);
  if (!tmp) {
    tfs_cli_error("out of memory");
    return NULL;
  }
  sigset_t all, old;
  sigfillset(&all);
  /* registered before it exists, so that no signal leaves it behind */
  sigprocmask(SIG_BLOCK, &all, &old);
  int fd = -1, slot = -1;
  for (int i = 0; i < g_ntemps; i++)
    if (!g_temps[i]) slot = i;
  if (slot < 0 && g_ntemps < MAX_TEMPS) slot = g_ntemps;
  if (slot >= 0) {
    fd = mkstemp(tmp);
    if (fd >= 0) {
      g_temps[slot] = tmp;
      if (slot == g_ntemps) g_ntemps = slot + 1;
    }
  }
  int err = errno;
  sigprocmask(SIG_SETMASK, &old, NULL);
  if (fd < 0) {
    tfs_cli_error("%s: cannot write (a temporary file next to it): %s", path,
                  slot < 0 ? "too many outputs" : strerror(err));
    free(tmp);
    return NULL;
  }
  /* mkstemp makes it 0600; an output gets what a new file would get */
  mode_t mask = umask(0);
  umask(mask);
  fchmod(fd, 0666 & ~mask);
  close(fd);
  return tmp;
}

/* Takes `tmp` off the list (it is freed by the caller). */
static void forget(const char *tmp) {
  sigset_t all, old;
  sigfillset(&all);
  sigprocmask(SIG_BLOCK, &all, &old);
  for (int i = 0; i < g_ntemps; i++)
    if (g_temps[i] == tmp) g_temps[i] = NULL;
  sigprocmask(SIG_SETMASK, &old, NULL);
}

int tfs_cli_output_commit(char *tmp, const char *path) {
  int rc = 0;
  if (rename(tmp, path) != 0) {
    tfs_cli_error("%s: cannot write: %s", path, strerror(errno));
    unlink(tmp);
    rc = -1;
  }
  forget(tmp);
  free(tmp);
  return rc;
}

void tfs_cli_output_discard(char *tmp) {
  if (!tmp) return;
  unlink(tmp);
  forget(tmp);
  free(tmp);
}

int tfs_cli_write_file(const char *path, const void *data, size_t len) {
  char *tmp = tfs_cli_output_temp(path);
  if (!tmp) return -1;
  FILE *f = fopen(tmp, "wb");
  size_t w = f && len ? fwrite(data, 1, len, f) : 0;
  int bad = !f || w != len;
  if (f && fclose(f) != 0) bad = 1;
  if (bad) {
    tfs_cli_error("%s: cannot write: %s", path, strerror(errno));
    tfs_cli_output_discard(tmp);
    return -1;
  }
  return tfs_cli_output_commit(tmp, path);
}
