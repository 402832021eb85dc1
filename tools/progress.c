/*
 * tools/progress.c - the progress line of long runs (`run --batch`,
 * `bench`) on stderr: "  1200/10000 rows  12.0%  5234 rows/s  ETA 0:02",
 * redrawn in place with '\r' at most every 100 ms and finished with a
 * newline ("10000/10000 rows  100.0%  5234 rows/s  1.9 s").  Drawn only
 * when stderr is a terminal unless --progress or --no-progress says
 * otherwise.  TFSESS_PROGRESS_INTERVAL_MS sets the shortest time between
 * two redraws (tests use a small one).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

/* The line being drawn, for tfs_cli_progress_break. */
static tfs_cli_progress *g_active;

static int set_on(void *c, const char *v) {
  (void)v;
  ((tfs_cli_progress *)c)->mode = 1;
  return 0;
}
static int set_off(void *c, const char *v) {
  (void)v;
  ((tfs_cli_progress *)c)->mode = 0;
  return 0;
}

const tfs_cli_opt tfs_cli_progress_opts[] = {
    {"progress", NULL,
     "draw the progress line (done / total, rate, ETA) on stderr even when "
     "it is not a terminal",
     set_on},
    {"no-progress", NULL, "never draw the progress line", set_off},
    {NULL, NULL, NULL, NULL}};

void tfs_cli_progress_start(tfs_cli_progress *p, const char *unit,
                            int64_t total) {
  p->enabled = p->mode > 0 || (p->mode < 0 && isatty(STDERR_FILENO));
  p->unit = unit;
  p->total = total;
  p->done = 0;
  p->drawing = 0;
  p->drawn = 0;
  p->width = 0;
  p->interval_ns = 100000000; /* 10 redraws a second at most */
  const char *env = getenv("TFSESS_PROGRESS_INTERVAL_MS");
  if (env && *env) {
    char *end;
    long ms = strtol(env, &end, 10);
    if (!*end && ms >= 0 && ms <= 60000) p->interval_ns = (int64_t)ms * 1000000;
  }
  p->open = 0;
  p->note[0] = 0;
  p->start_ns = tfs_now_ns();
  p->last_ns = p->start_ns;
  if (p->enabled) g_active = p;
}

void tfs_cli_progress_break(void) {
  tfs_cli_progress *p = g_active;
  if (!p || !p->open) return;
  fputc('\n', stderr);
  p->open = 0;
  p->width = 0;
}

/* "1:05" or "1:02:03". */
static void clock_string(char *buf, size_t cap, double s) {
  long t = (long)(s + 0.5);
  if (t >= 3600)
    snprintf(buf, cap, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
  else
    snprintf(buf, cap, "%ld:%02ld", t / 60, t % 60);
}

static void draw(tfs_cli_progress *p, int64_t done, int64_t now, int last) {
  double secs = (double)(now - p->start_ns) / 1e9;
  double rate = secs > 0 ? (double)done / secs : 0;
  char line[256], tail[64];
  if (last) {
    snprintf(tail, sizeof tail, "%.1f s", secs);
  } else if (rate > 0 && done < p->total) {
    char eta[32];
    clock_string(eta, sizeof eta, (double)(p->total - done) / rate);
    snprintf(tail, sizeof tail, "ETA %s", eta);
  } else {
    snprintf(tail, sizeof tail, "ETA ?");
  }
  int n = snprintf(line, sizeof line, "%lld/%lld %s  %.1f%%  %.0f %s/s  %s%s%s",
                   (long long)done, (long long)p->total, p->unit,
                   p->total ? 100.0 * (double)done / (double)p->total : 100.0,
                   rate, p->unit, tail, !last && p->note[0] ? "  " : "",
                   last ? "" : p->note);
  /* blanks over what is left of a longer previous line */
  int pad = p->width > n ? p->width - n : 0;
  fprintf(stderr, "\r%s%*s%s", line, pad, "", last ? "\n" : "");
  fflush(stderr);
  p->width = last ? 0 : n;
  p->drawn = 1;
  p->open = !last;
}

void tfs_cli_progress_add(tfs_cli_progress *p, int64_t n) {
  int64_t done = __atomic_add_fetch(&p->done, n, __ATOMIC_RELAXED);
  if (!p->enabled || done >= p->total) return; /* finish draws the end */
  int64_t now = tfs_now_ns();
  if (now - __atomic_load_n(&p->last_ns, __ATOMIC_RELAXED) < p->interval_ns)
    return;
  /* one thread draws; the others go on */
  if (__atomic_exchange_n(&p->drawing, 1, __ATOMIC_ACQUIRE)) return;
  __atomic_store_n(&p->last_ns, now, __ATOMIC_RELAXED);
  draw(p, done, now, 0);
  __atomic_store_n(&p->drawing, 0, __ATOMIC_RELEASE);
}

void tfs_cli_progress_set(tfs_cli_progress *p, int64_t done,
                          const char *note) {
  p->done = done;
  snprintf(p->note, sizeof p->note, "%s", note);
  if (!p->enabled || done >= p->total) return; /* finish draws the end */
  int64_t now = tfs_now_ns();
  if (now - p->last_ns < p->interval_ns) return;
  p->last_ns = now;
  draw(p, done, now, 0);
}

void tfs_cli_progress_finish(tfs_cli_progress *p, int ok) {
  if (!p->enabled) return;
  if (ok && (p->drawn || p->mode > 0))
    draw(p, p->done, tfs_now_ns(), 1);
  else
    tfs_cli_progress_break();
  p->enabled = 0;
  g_active = NULL;
}
