/*
 * tools/cli_mpi.c - `tfsess run --batch` under mpirun: the rows of the
 * feeds are cut into one contiguous block per rank, on batch boundaries:
 * the job's batches (of --batch rows, the last one maybe shorter) are
 * dealt out in contiguous runs, nb/size each and one more to each of the
 * first nb%size ranks, so every batch holds the rows it holds in one
 * process and the outputs are the same bytes even where a kernel's
 * rounding depends on the batch it runs in.  Every rank runs its block in
 * batches, and then either
 * rank 0 gathers the fetches in rank order into the outputs
 * (--mpi-output=gather) or each rank writes NAME.rank-R.npy
 * (--mpi-output=per-rank).
 *
 * Messages, on a communicator of our own (MPI_Comm_dup of the world):
 *   PROGRESS  rank r -> 0: the rows r has run (int64), for the progress
 *             line, sent with MPI_Isend after batches;
 *   DONE      rank r -> 0: r ran its block; its per-fetch statistics;
 *   REQUEST   0 -> r: send rows [start, start+count) of fetch i
 *             (gather: r buffered its block in temporaries);
 *   DATA      r -> 0: those rows' bytes (a few MiB at most);
 *   VERDICT   0 -> r: every rank succeeded (1) or not (0): commit or
 *             remove the temporaries;
 *   FAIL      rank r -> every other rank: r failed (its rank).
 * Nothing blocks in MPI while a peer may still be computing: waits poll
 * with MPI_Iprobe / MPI_Test and sleep in between (Open MPI's blocking
 * calls spin a core).  A failing rank prints its error, tells the others
 * with FAIL, and every rank stops at its next batch or wait with a message
 * naming the failed rank; if the job has not ended kTimeoutS seconds
 * after a failure, MPI_Abort ends it.
 *
 * Each rank's session sees one GPU, its local rank modulo the GPUs there
 * are (cli_gpu_pin.c), unless --config chose a visible_device_list.
 *
 * Without MPI (or with one rank) every function acts as a single process.
 */
#include "tfs_config.h"

#include <stdlib.h>
#include <string.h>

#include "cli.h"

static int set_output(void *c, const char *v) {
  int *mode = c;
  if (strcmp(v, "gather") == 0) {
    *mode = TFS_CLI_MPI_GATHER;
  } else if (strcmp(v, "per-rank") == 0) {
    *mode = TFS_CLI_MPI_PER_RANK;
  } else {
    tfs_cli_usage_error("--mpi-output: expected gather or per-rank, got '%s'",
                        v);
    return -1;
  }
  return 0;
}

const tfs_cli_opt tfs_cli_mpi_opts[] = {
    {"mpi-output", "gather|per-rank",
     "under mpirun, --batch runs each rank on its block of rows; gather "
     "(default): rank 0 writes the outputs, rows in order as one process "
     "would; per-rank: each rank writes its rows to DIR/<name>_<i>.rank-R"
     ".npy",
     set_output},
    {NULL, NULL, NULL, NULL}};

#ifndef TFS_HAVE_MPI

/* The launcher's count of ranks (1 when it says none). */
static long launched_size(void) {
  const char *v = getenv("OMPI_COMM_WORLD_SIZE");
  if (!v || !*v) v = getenv("PMI_SIZE");
  return v && *v ? strtol(v, NULL, 10) : 1;
}

int tfs_cli_mpi_start(int64_t batch, int mode, tfs_cli_mpi **out) {
  (void)batch;
  (void)mode;
  *out = NULL;
  if (!tfs_mpi_launched() || launched_size() <= 1) return TFS_CLI_OK;
  /* every rank would run every row and write the same files */
  return tfs_cli_error(
      "started by mpirun with %ld ranks, but this tfsess was built without "
      "MPI (configure --with-mpi): run it as one process",
      launched_size());
}
int tfs_cli_mpi_rank(const tfs_cli_mpi *m) { return 0; }
int tfs_cli_mpi_per_rank(const tfs_cli_mpi *m) { return 0; }
char *tfs_cli_mpi_rank_path(const tfs_cli_mpi *m, const char *path,
                            int all) {
  return tfs_asprintf("%s", path);
}
void tfs_cli_mpi_block(tfs_cli_mpi *m, int64_t rows, int64_t *lo,
                       int64_t *hi) {
  *lo = 0;
  *hi = rows;
}
int tfs_cli_mpi_progress(tfs_cli_mpi *m, int64_t done, int64_t n,
                         tfs_cli_progress *p) {
  tfs_cli_progress_add(p, n);
  return TFS_CLI_OK;
}
int tfs_cli_mpi_gather(tfs_cli_mpi *m, int rc, int nfetch,
                       const char *const *names, tfs_cli_stats *stats,
                       tfs_npy_writer **writers, char **tmps,
                       tfs_cli_progress *p) {
  return rc;
}
int tfs_cli_mpi_end(tfs_cli_mpi *m, int rc) { return rc; }
int tfs_cli_mpi_pin_gpu(const tfs_cli_mpi *m, tfs_session_options *o) {
  return 0;
}

#else

#include <mpi.h>
#include <pthread.h>
#include <time.h>
#include <unistd.h>

enum { T_PROGRESS = 1, T_DONE, T_REQUEST, T_DATA, T_VERDICT, T_FAIL };

/* Seconds a failed job has to end before MPI_Abort ends it. */
static const int kTimeoutS = 30;
/* DATA messages carry about this many bytes (at least one row). */
static const int64_t kChunkBytes = 4 << 20;

struct tfs_cli_mpi {
  MPI_Comm comm;
  int rank, size, mode;
  int local_rank, local_size; /* among the ranks on this host */
  int64_t rows;          /* all ranks' rows */
  int64_t batch;         /* --batch */
  int64_t *done;         /* rank 0: the rows each rank reported */
  int64_t progress_buf;  /* rank r: the count in flight */
  MPI_Request progress_req;
  int64_t progress_ns;   /* when the last count went */
  int failed;            /* the rank that failed first, or -1 */
  char prefix[32];       /* "rank R: " */
};

int tfs_cli_mpi_start(int64_t batch, int mode, tfs_cli_mpi **out) {
  *out = NULL;
  if (!tfs_mpi_launched()) return TFS_CLI_OK;
  tfs_status *st = tfs_status_new();
  tfs_mpi_init(st);
  if (!tfs_status_ok(st)) {
    int rc = tfs_cli_error("MPI: %s", tfs_status_message(st));
    tfs_status_free(st);
    return rc;
  }
  tfs_status_free(st);
  int rank = tfs_mpi_rank(), size = tfs_mpi_size();
  if (size == 1) {
    tfs_mpi_finalize();
    return TFS_CLI_OK;
  }
  if (!batch) {
    /* every rank decides the same: only rank 0 says why, and the others
     * exit only once it has (mpirun ends the whole job when the first
     * rank exits with an error, which could cut the message off) */
    int rc = TFS_CLI_USAGE;
    if (rank == 0)
      rc = tfs_cli_usage_error(
          "under mpirun (%d ranks) run needs --batch N: the rows of the "
          "feeds are then shared out among the ranks; without it every rank "
          "would run the same inputs",
          size);
    MPI_Barrier(MPI_COMM_WORLD);
    tfs_mpi_finalize();
    return rc;
  }
  tfs_cli_mpi *m = calloc(1, sizeof *m);
  if (m && rank == 0) m->done = calloc((size_t)size, sizeof *m->done);
  if (!m || (rank == 0 && !m->done)) {
    free(m);
    tfs_mpi_finalize();
    return tfs_cli_error("out of memory");
  }
  m->rank = rank;
  m->size = size;
  m->local_rank = tfs_mpi_local_rank();
  m->local_size = tfs_mpi_local_size();
  m->mode = mode;
  m->batch = batch;
  m->failed = -1;
  m->progress_req = MPI_REQUEST_NULL;
  MPI_Comm_dup(MPI_COMM_WORLD, &m->comm);
  snprintf(m->prefix, sizeof m->prefix, "rank %d: ", rank);
  tfs_cli_error_prefix = m->prefix;
  *out = m;
  return TFS_CLI_OK;
}

int tfs_cli_mpi_rank(const tfs_cli_mpi *m) { return m ? m->rank : 0; }

int tfs_cli_mpi_pin_gpu(const tfs_cli_mpi *m, tfs_session_options *o) {
  if (!m || m->local_size <= 1) return 0;
  tfs_status *st = tfs_status_new();
  tfs_cli_gpu_pin pin;
  int rc = st ? tfs_cli_gpu_pin_apply(o, m->local_rank, m->local_size,
                                      tfs_device_count_visible("GPU"), &pin,
                                      st)
              : -1;
  if (rc) tfs_cli_error("out of memory");
  tfs_status_free(st);
  return rc;
}

int tfs_cli_mpi_per_rank(const tfs_cli_mpi *m) {
  return m && m->mode == TFS_CLI_MPI_PER_RANK;
}

char *tfs_cli_mpi_rank_path(const tfs_cli_mpi *m, const char *path,
                            int all) {
  size_t n = strlen(path);
  if (!tfs_cli_mpi_per_rank(m)) return tfs_asprintf("%s", path);
  const char *mine = strstr(path, ".rank-");
  for (const char *c = mine; all && c; c = strstr(c + 1, ".rank-"))
    mine = c;
  if (all && mine)
    n = (size_t)(mine - path);
  else if (n >= 4 && strcmp(path + n - 4, ".npy") == 0)
    n -= 4;
  if (all) return tfs_asprintf("%.*s.rank-*.npy", (int)n, path);
  return tfs_asprintf("%.*s.rank-%d.npy", (int)n, path, m->rank);
}

/* The first row of rank r's block: the first row of its first batch (a
 * rank past the last batch starts, and ends, at the end). */
static int64_t block_start(const tfs_cli_mpi *m, int r) {
  int64_t nb = m->rows / m->batch + (m->rows % m->batch != 0);
  int64_t q = nb / m->size, rem = nb % m->size;
  int64_t b = q * r + (r < rem ? r : rem);
  return b < nb ? b * m->batch : m->rows;
}

void tfs_cli_mpi_block(tfs_cli_mpi *m, int64_t rows, int64_t *lo,
                       int64_t *hi) {
  if (!m) {
    *lo = 0;
    *hi = rows;
    return;
  }
  m->rows = rows;
  *lo = block_start(m, m->rank);
  *hi = block_start(m, m->rank + 1);
}

static void nap(int64_t ns) {
  struct timespec ts = {0, (long)ns};
  nanosleep(&ts, NULL);
}

/* A FAIL message waiting: remember the first failed rank.  Returns 1
 * when some rank failed. */
static int check_fail(tfs_cli_mpi *m) {
  int flag = 1;
  while (flag) {
    MPI_Status s;
    MPI_Iprobe(MPI_ANY_SOURCE, T_FAIL, m->comm, &flag, &s);
    if (!flag) break;
    int who;
    MPI_Recv(&who, 1, MPI_INT, s.MPI_SOURCE, T_FAIL, m->comm,
             MPI_STATUS_IGNORE);
    if (m->failed < 0) m->failed = who;
  }
  return m->failed >= 0;
}

/* Rank 0: the progress line from every rank's count; the slowest rank is
 * the one with the smallest share of its block done. */
static void draw_progress(tfs_cli_mpi *m, tfs_cli_progress *p) {
  int flag = 1;
  while (flag) {
    MPI_Status s;
    MPI_Iprobe(MPI_ANY_SOURCE, T_PROGRESS, m->comm, &flag, &s);
    if (!flag) break;
    int64_t v;
    MPI_Recv(&v, 1, MPI_INT64_T, s.MPI_SOURCE, T_PROGRESS, m->comm,
             MPI_STATUS_IGNORE);
    m->done[s.MPI_SOURCE] = v;
  }
  int64_t total = 0;
  int slow = 0;
  double slow_frac = 2;
  for (int r = 0; r < m->size; r++) {
    int64_t n = block_start(m, r + 1) - block_start(m, r);
    double frac = n ? (double)m->done[r] / (double)n : 1;
    if (frac < slow_frac) {
      slow_frac = frac;
      slow = r;
    }
    total += m->done[r];
  }
  char note[48] = "";
  if (slow_frac < 1) snprintf(note, sizeof note, "(slowest rank %d)", slow);
  tfs_cli_progress_set(p, total, note);
}

/* Waits for a message (src, tag), polling for failures and, on rank 0,
 * drawing the progress line.  Returns 0 when it is there, -1 when a rank
 * failed instead. */
static int await(tfs_cli_mpi *m, int src, int tag, tfs_cli_progress *p) {
  int64_t ns = 20000;
  for (;;) {
    int flag;
    MPI_Iprobe(src, tag, m->comm, &flag, MPI_STATUS_IGNORE);
    if (flag) return 0;
    if (check_fail(m)) return -1;
    if (m->rank == 0 && p) draw_progress(m, p);
    nap(ns);
    if (ns < 2000000) ns *= 2;
  }
}

/* Completes a send without spinning; -1 when a rank failed meanwhile. */
static int finish_send(tfs_cli_mpi *m, MPI_Request *req) {
  int64_t ns = 20000;
  for (;;) {
    int flag;
    MPI_Test(req, &flag, MPI_STATUS_IGNORE);
    if (flag) return 0;
    if (check_fail(m)) return -1;
    nap(ns);
    if (ns < 2000000) ns *= 2;
  }
}

static int send_wait(tfs_cli_mpi *m, const void *buf, int len, int dest,
                     int tag) {
  MPI_Request req;
  MPI_Isend(buf, len, MPI_BYTE, dest, tag, m->comm, &req);
  return finish_send(m, &req);
}

static int failed_error(tfs_cli_mpi *m) {
  return tfs_cli_error("rank %d failed; stopping", m->failed);
}

int tfs_cli_mpi_progress(tfs_cli_mpi *m, int64_t done, int64_t n,
                         tfs_cli_progress *p) {
  if (!m) {
    tfs_cli_progress_add(p, n);
    return TFS_CLI_OK;
  }
  if (check_fail(m)) return failed_error(m);
  if (m->rank == 0) {
    m->done[0] = done;
    draw_progress(m, p);
    return TFS_CLI_OK;
  }
  int flag = 1;
  if (m->progress_req != MPI_REQUEST_NULL)
    MPI_Test(&m->progress_req, &flag, MPI_STATUS_IGNORE);
  int64_t now = tfs_now_ns();
  /* a count every 20 ms at most, and the last one */
  if (flag && (now - m->progress_ns >= 20000000 ||
               done == block_start(m, m->rank + 1) - block_start(m, m->rank))) {
    m->progress_buf = done;
    m->progress_ns = now;
    MPI_Isend(&m->progress_buf, 1, MPI_INT64_T, 0, T_PROGRESS, m->comm,
              &m->progress_req);
  }
  return TFS_CLI_OK;
}

/* Tells every other rank that this one failed (once). */
static void tell_failure(tfs_cli_mpi *m) {
  if (m->failed >= 0) return; /* it is another rank's failure */
  m->failed = m->rank;
  for (int r = 0; r < m->size; r++) {
    if (r == m->rank) continue;
    MPI_Request req;
    MPI_Isend(&m->rank, 1, MPI_INT, r, T_FAIL, m->comm, &req);
    MPI_Request_free(&req); /* small: sent eagerly */
  }
}

/* Receives and forgets the message `s` describes. */
static void drop(tfs_cli_mpi *m, const MPI_Status *s) {
  int n = 0;
  MPI_Get_count(s, MPI_BYTE, &n);
  char *buf = malloc((size_t)n + 1);
  MPI_Recv(buf, buf ? n : 0, MPI_BYTE, s->MPI_SOURCE, s->MPI_TAG, m->comm,
           MPI_STATUS_IGNORE);
  free(buf);
}

/* Rank r after its block: waits for rank 0's requests and sends the
 * buffered rows of each fetch, until the verdict comes. */
static int serve_rows(tfs_cli_mpi *m, int nfetch, char **tmps) {
  tfs_npy_reader **rd = calloc((size_t)nfetch + 1, sizeof *rd);
  tfs_status *st = tfs_status_new();
  int rc = rd ? TFS_CLI_OK : tfs_cli_error("out of memory");
  for (int i = 0; rc == TFS_CLI_OK && i < nfetch; i++)
    if (tmps[i] && m->mode == TFS_CLI_MPI_GATHER &&
        !(rd[i] = tfs_npy_reader_open(tmps[i], st)))
      rc = tfs_cli_status_error(st);
  int verdict = -1;
  while (rc == TFS_CLI_OK && verdict < 0) {
    MPI_Status s;
    if (await(m, 0, MPI_ANY_TAG, NULL)) {
      rc = failed_error(m);
      break;
    }
    MPI_Probe(0, MPI_ANY_TAG, m->comm, &s);
    int64_t req[3];
    if (s.MPI_TAG == T_VERDICT || s.MPI_TAG == T_FAIL) {
      int v;
      MPI_Recv(&v, 1, MPI_INT, 0, s.MPI_TAG, m->comm, MPI_STATUS_IGNORE);
      if (s.MPI_TAG == T_FAIL && m->failed < 0) m->failed = v;
      verdict = s.MPI_TAG == T_VERDICT && v == 1;
      if (!verdict) rc = failed_error(m);
      continue;
    }
    if (s.MPI_TAG != T_REQUEST) { /* a stray message: drop it */
      drop(m, &s);
      continue;
    }
    MPI_Recv(req, 3, MPI_INT64_T, 0, T_REQUEST, m->comm, MPI_STATUS_IGNORE);
    tfs_tensor *t = req[0] >= 0 && req[0] < nfetch && rd[req[0]]
                        ? tfs_npy_reader_read_rows(rd[req[0]], req[1],
                                                   req[2], st)
                        : NULL;
    if (!t) {
      rc = tfs_status_ok(st) ? tfs_cli_error("bad request from rank 0")
                             : tfs_cli_status_error(st);
      break;
    }
    if (send_wait(m, tfs_tensor_data(t), (int)tfs_tensor_byte_size(t), 0,
                  T_DATA))
      rc = failed_error(m);
    tfs_tensor_free(t);
  }
  for (int i = 0; rd && i < nfetch; i++) tfs_npy_reader_free(rd[i]);
  free(rd);
  tfs_status_free(st);
  return rc;
}

/* Rank 0: rank r's statistics fit rank 0's (same dtype and row shape);
 * merged into `mine`. */
static int merge_stats(int r, int nfetch, const char *const *names,
                       tfs_cli_stats *mine, const tfs_cli_stats *theirs) {
  for (int i = 0; i < nfetch; i++) {
    tfs_cli_stats *a = &mine[i];
    const tfs_cli_stats *b = &theirs[i];
    int same = a->dtype == b->dtype && a->ndims == b->ndims;
    for (int d = 1; same && d < a->ndims; d++) same = a->dims[d] == b->dims[d];
    if (!same)
      return tfs_cli_error(
          "fetch '%s': rank %d's rows are %s of rank %d, rank 0's %s of "
          "rank %d; the ranks' outputs cannot be concatenated",
          names[i], r, tfs_dtype_name(b->dtype), b->ndims,
          tfs_dtype_name(a->dtype), a->ndims);
    if (a->ndims > 0) a->dims[0] += b->dims[0];
    if (b->min < a->min) a->min = b->min;
    if (b->max > a->max) a->max = b->max;
    a->sum += b->sum;
    a->count += b->count;
  }
  return TFS_CLI_OK;
}

/* Rank 0: asks rank r for its rows of fetch i, a chunk at a time, and
 * appends them to `w`. */
static int fetch_rows(tfs_cli_mpi *m, int r, int i, const tfs_cli_stats *s,
                      tfs_npy_writer *w, tfs_cli_progress *p) {
  int64_t row = (int64_t)tfs_dtype_size(s->dtype);
  for (int d = 1; d < s->ndims; d++) row *= s->dims[d];
  int64_t chunk = row ? kChunkBytes / row : s->dims[0];
  if (chunk < 1) chunk = 1;
  if (row * chunk > INT32_MAX)
    return tfs_cli_error("a row of fetch %d is too large to send", i);
  void *buf = malloc((size_t)(row * chunk) + 1);
  tfs_status *st = tfs_status_new();
  int rc = buf && st ? TFS_CLI_OK : tfs_cli_error("out of memory");
  for (int64_t at = 0; rc == TFS_CLI_OK && at < s->dims[0]; at += chunk) {
    int64_t req[3] = {i, at, s->dims[0] - at < chunk ? s->dims[0] - at
                                                     : chunk};
    if (send_wait(m, req, (int)sizeof req, r, T_REQUEST) ||
        await(m, r, T_DATA, p)) {
      rc = failed_error(m);
      break;
    }
    MPI_Status ms;
    int got = 0;
    MPI_Recv(buf, (int)(row * chunk), MPI_BYTE, r, T_DATA, m->comm, &ms);
    MPI_Get_count(&ms, MPI_BYTE, &got);
    if (got != row * req[2]) {
      rc = tfs_cli_error("rank %d sent %d bytes for %lld rows", r, got,
                         (long long)req[2]);
      break;
    }
    int64_t dims[TFS_MAX_RANK];
    memcpy(dims, s->dims, sizeof dims);
    dims[0] = req[2];
    tfs_tensor *t =
        tfs_tensor_new_copy(s->dtype, dims, s->ndims, buf, (size_t)got, st);
    if (t) tfs_npy_writer_append(w, t, st);
    tfs_tensor_free(t);
    if (!tfs_status_ok(st)) rc = tfs_cli_status_error(st);
  }
  tfs_status_free(st);
  free(buf);
  return rc;
}

/* Rank 0 after its block: every other rank's statistics (and rows, for
 * gather), in rank order, then the verdict to all. */
static int collect_ranks(tfs_cli_mpi *m, int nfetch, const char *const *names,
                         tfs_cli_stats *stats, tfs_npy_writer **writers,
                         tfs_cli_progress *p) {
  size_t bytes = (size_t)nfetch * sizeof *stats;
  tfs_cli_stats *theirs = malloc(bytes + 1);
  int rc = theirs ? TFS_CLI_OK : tfs_cli_error("out of memory");
  for (int r = 1; rc == TFS_CLI_OK && r < m->size; r++) {
    if (await(m, r, T_DONE, p)) {
      rc = failed_error(m);
      break;
    }
    MPI_Recv(theirs, (int)bytes, MPI_BYTE, r, T_DONE, m->comm,
             MPI_STATUS_IGNORE);
    m->done[r] = block_start(m, r + 1) - block_start(m, r);
    rc = merge_stats(r, nfetch, names, stats, theirs);
    for (int i = 0; rc == TFS_CLI_OK && i < nfetch; i++)
      if (writers[i] && m->mode == TFS_CLI_MPI_GATHER)
        rc = fetch_rows(m, r, i, &theirs[i], writers[i], p);
  }
  free(theirs);
  if (rc != TFS_CLI_OK) return rc;
  if (p) tfs_cli_progress_set(p, m->rows, ""); /* finish draws the totals */
  int ok = 1;
  for (int r = 1; r < m->size; r++)
    if (send_wait(m, &ok, (int)sizeof ok, r, T_VERDICT))
      return failed_error(m);
  return TFS_CLI_OK;
}

int tfs_cli_mpi_gather(tfs_cli_mpi *m, int rc, int nfetch,
                       const char *const *names, tfs_cli_stats *stats,
                       tfs_npy_writer **writers, char **tmps,
                       tfs_cli_progress *p) {
  if (!m) return rc;
  if (rc != TFS_CLI_OK) {
    tell_failure(m);
    return rc;
  }
  if (m->rank == 0)
    rc = collect_ranks(m, nfetch, names, stats, writers, p);
  else if (m->progress_req != MPI_REQUEST_NULL &&
           finish_send(m, &m->progress_req))
    rc = failed_error(m);
  else if (send_wait(m, stats, (int)((size_t)nfetch * sizeof *stats), 0,
                     T_DONE))
    rc = failed_error(m);
  else
    rc = serve_rows(m, nfetch, tmps);
  if (rc != TFS_CLI_OK) tell_failure(m);
  return rc;
}

/* The last resort: a failed job that did not end in time. */
static int g_watch_rank, g_watch_failed;
static void *watchdog(void *arg) {
  (void)arg;
  sleep((unsigned)kTimeoutS);
  fprintf(stderr,
          "tfsess run: rank %d: the job did not end %d s after rank %d "
          "failed; aborting it\n",
          g_watch_rank, kTimeoutS, g_watch_failed);
  MPI_Abort(MPI_COMM_WORLD, TFS_CLI_FAILED);
  _exit(TFS_CLI_FAILED);
}

int tfs_cli_mpi_end(tfs_cli_mpi *m, int rc) {
  if (!m) return rc;
  if (rc != TFS_CLI_OK) tell_failure(m);
  if (rc == TFS_CLI_OK && check_fail(m)) rc = failed_error(m);
  if (m->failed >= 0) {
    pthread_t t;
    g_watch_rank = m->rank;
    g_watch_failed = m->failed;
    if (pthread_create(&t, NULL, watchdog, NULL) == 0) pthread_detach(t);
  }
  if (m->progress_req != MPI_REQUEST_NULL)
    MPI_Request_free(&m->progress_req); /* 8 bytes: sent eagerly */
  /* messages nobody waits for any more (counts, failures) */
  int flag = 1;
  while (flag) {
    MPI_Status s;
    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, m->comm, &flag, &s);
    if (flag) drop(m, &s);
  }
  MPI_Comm_free(&m->comm);
  tfs_mpi_finalize();
  tfs_cli_error_prefix = NULL;
  free(m->done);
  free(m);
  return rc;
}

#endif /* TFS_HAVE_MPI */
