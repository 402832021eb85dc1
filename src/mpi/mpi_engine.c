/*
 * mpi/mpi_engine.c - the collective engine: one thread per process runs
 * every collective MPI call on its own duplicate of MPI_COMM_WORLD.
 *
 * Callers queue requests and wait.  Each tick the thread announces the
 * requests queued since the last tick: MPI_Iallgather of fixed headers
 * (body length, "this rank stops", rank 0's clock, stall timeout and
 * fusion threshold, which every rank then uses, and the descriptors when
 * they fit), then, when some rank's did not fit, MPI_Iallgatherv of
 * those.  Every rank derives the same decisions from what it
 * received (mpi_negotiate.c) and runs them (mpi_exec.c).  The thread
 * waits with MPI_Test and short sleeps, never in a blocking MPI call
 * (Open MPI's spin a core), and between ticks sleeps on a condition
 * variable for at most a millisecond, woken by a submission.  The engine
 * ends when every rank asked it to (tfs_mpi_finalize).
 */
#include "tfs_config.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "core/log.h"
#include "core/util.h"
#include "mpi/mpi_engine.h"

#define CYCLE_NS 1000000L               /* tick period */
/* After IDLE_TICKS ticks in a row in which no rank had a collective
 * (every rank sees the same, so all slow down together), ticks come
 * every IDLE_CYCLE_NS: an engine that nothing uses (a batch job whose
 * graph has no collective) costs a fraction of a percent of a core
 * instead of about 5%; a submission still wakes its rank at once, and
 * the others join within one idle period. */
#define IDLE_TICKS 200
#define IDLE_CYCLE_NS 20000000L
#define DEFAULT_FUSION (64LL << 20)
#define DEFAULT_STALL 60.0

/* One engine per process; static so that a waiter never outlives it. */
static tfs_mpi_engine engine = {
    .mu = PTHREAD_MUTEX_INITIALIZER,
    .work_cv = PTHREAD_COND_INITIALIZER,
    .done_cv = PTHREAD_COND_INITIALIZER,
};
static int engine_running; /* under engine.mu */
/* this rank's settings, read at start; rank 0's are the ones used */
static double my_stall = DEFAULT_STALL;
static int64_t my_fusion = DEFAULT_FUSION;

#define INLINE_BYTES 472 /* descriptors that ride in the header */

typedef struct header {
  int64_t len;    /* descriptor bytes */
  int64_t stop;   /* this rank asked to stop */
  double clock;   /* rank 0's monotonic clock, seconds */
  double stall;   /* rank 0's stall timeout */
  int64_t fusion; /* rank 0's fusion threshold */
  unsigned char inl[INLINE_BYTES]; /* the descriptors when len fits */
} header;

/* Open MPI moves a non-blocking operation's data only inside MPI_Test,
 * so the sleeps are short (the engine thread's timer slack is 1 ns): a
 * few microseconds while data moves, longer once a wait drags on (a
 * rank still computing).  An idle tick's exchange waits in wait_idle. */
int tfs_mpi__wait(MPI_Request *req) {
  int flag = 0;
  for (unsigned k = 0;; k++) {
    int rc = MPI_Test(req, &flag, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS || flag) return rc;
    if (k < 16) {
      sched_yield();
    } else {
      struct timespec ts = {0, k < 2000 ? 5000 : 100000};
      nanosleep(&ts, NULL);
    }
  }
}

void tfs_mpi__complete(tfs_mpi_engine *e, tfs_mpi_req *r, tfs_code code,
                       const char *msg) {
  pthread_mutex_lock(&e->mu);
  if (code != TFS_OK) {
    for (int i = 0; i < r->n; i++) {
      tfs_tensor_free(r->out[i]);
      r->out[i] = NULL;
    }
    tfs_status_set(r->st, code, msg ? msg : tfs_code_name(code));
  }
  r->done = 1;
  pthread_cond_broadcast(&e->done_cv);
  pthread_mutex_unlock(&e->mu);
}

/* Reads a non-negative number from the environment, else `def`. */
static double env_number(const char *var, double def) {
  const char *v = getenv(var);
  if (!v || !*v) return def;
  char *end;
  errno = 0;
  double d = strtod(v, &end);
  if (errno || *end || d < 0 || d != d) {
    tfs_log(TFS_LOG_WARN, "%s=%s is not a number >= 0; using %g", var, v,
            def);
    return def;
  }
  return d;
}

/* Queues this rank's new requests into a body; fails duplicates.
 * mine[] receives the encoded requests in order. */
static int build_body(tfs_mpi_engine *e, tfs_mpi_req *news,
                      unsigned char **body, size_t *len, size_t *cap,
                      tfs_mpi_req **mine) {
  int n = 0;
  for (tfs_mpi_req *r = news, *next; r; r = next) {
    next = r->next;
    int dup = 0;
    tfs_mpi_entry *en = tfs_mpi__table_find(e, r->name);
    if (en && en->descs[e->rank]) dup = 1;
    for (int k = 0; k < n && !dup; k++)
      dup = strcmp(mine[k]->name, r->name) == 0;
    if (dup) {
      tfs_mpi__complete(e, r, TFS_INVALID_ARGUMENT,
                        "Requested to allreduce, allgather, or broadcast a "
                        "tensor with the same name as another tensor that "
                        "is currently being processed.  If you want to "
                        "request another tensor, use a different tensor "
                        "name.");
      continue;
    }
    size_t before = *len;
    if (tfs_mpi__encode(r, body, len, cap) != 0) {
      *len = before;
      tfs_mpi__complete(e, r, TFS_RESOURCE_EXHAUSTED, "out of memory");
      continue;
    }
    mine[n++] = r;
  }
  return n;
}

/* Waits on work_cv (mu held) for at most ns nanoseconds (< 1 s): a
 * submission or the stop signals it. */
static void wait_work(tfs_mpi_engine *e, long ns) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  ts.tv_nsec += ns;
  if (ts.tv_nsec >= 1000000000L) {
    ts.tv_sec++;
    ts.tv_nsec -= 1000000000L;
  }
  pthread_cond_timedwait(&e->work_cv, &e->mu, &ts);
}

/* The wait of an idle tick's exchange (nothing of this rank's in it):
 * MPI_Test every 100 us, every 1 ms once it drags on, but sleeping on
 * work_cv, so that a collective submitted on this rank meanwhile turns it
 * into the quick poll at once: ranks that submit together (the usual
 * case: every rank runs the same step) find each other's headers in this
 * exchange and their own in the next without waiting out a sleep. */
static int wait_idle(tfs_mpi_engine *e, MPI_Request *req) {
  for (unsigned k = 0;; k++) {
    int flag = 0, rc = MPI_Test(req, &flag, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS || flag) return rc;
    pthread_mutex_lock(&e->mu);
    int woke = e->incoming || e->stopping;
    if (!woke) {
      wait_work(e, k < 16 ? 100000L : 1000000L);
      woke = e->incoming || e->stopping;
    }
    pthread_mutex_unlock(&e->mu);
    if (woke) return tfs_mpi__wait(req);
  }
}

/* Exchanges headers and bodies with every rank: descriptors that fit
 * ride in the header (one round), others follow in an MPI_Iallgatherv
 * when some rank has them.  displs[r] receives where rank r's
 * descriptors start in *bodies, -1 when they are in its header. */
static int exchange(tfs_mpi_engine *e, header *mine, const unsigned char *body,
                    header *all, unsigned char **bodies, int *counts,
                    int *displs) {
  MPI_Request req;
  if (mine->len <= INLINE_BYTES && mine->len > 0)
    memcpy(mine->inl, body, (size_t)mine->len);
  int rc = MPI_Iallgather(mine, (int)sizeof *mine, MPI_BYTE, all,
                          (int)sizeof *mine, MPI_BYTE, e->comm, &req);
  if (rc == MPI_SUCCESS)
    rc = mine->len == 0 && !mine->stop && !e->ntable ? wait_idle(e, &req)
                                                     : tfs_mpi__wait(&req);
  if (rc != MPI_SUCCESS) return rc;
  int64_t total = 0;
  for (int r = 0; r < e->size; r++) {
    int big = all[r].len > INLINE_BYTES;
    counts[r] = big ? (int)all[r].len : 0;
    displs[r] = big ? (int)total : -1;
    total += counts[r];
  }
  *bodies = NULL;
  if (total == 0) return MPI_SUCCESS;
  if (total > INT32_MAX) return MPI_ERR_COUNT;
  *bodies = malloc((size_t)total);
  if (!*bodies) return MPI_ERR_NO_MEM;
  rc = MPI_Iallgatherv(body, counts[e->rank], MPI_BYTE, *bodies, counts,
                       displs, MPI_BYTE, e->comm, &req);
  if (rc == MPI_SUCCESS) rc = tfs_mpi__wait(&req);
  return rc;
}

/* Marks the engine broken: every waiting and future request fails. */
static void set_broken(tfs_mpi_engine *e, tfs_code code, const char *msg) {
  pthread_mutex_lock(&e->mu);
  if (e->broken == TFS_OK) {
    e->broken = code;
    snprintf(e->broken_msg, sizeof e->broken_msg, "%s", msg);
  }
  pthread_mutex_unlock(&e->mu);
}

/* One tick.  Returns 1 when every rank asked to stop, 0 to go on, -1
 * when the engine broke. */
static int tick(tfs_mpi_engine *e, tfs_mpi_req *news, int nnews, int stop,
                int *decided) {
  unsigned char *body = NULL, *bodies = NULL;
  size_t len = 0, cap = 0;
  tfs_mpi_req **mine = calloc((size_t)nnews + 1, sizeof *mine);
  header *all = calloc((size_t)e->size, sizeof *all);
  int *counts = calloc((size_t)e->size * 2, sizeof *counts);
  tfs_status *st = tfs_status_new();
  int ret = -1, nall = 0;
  *decided = 0;
  if (!mine || !all || !counts || !st) {
    set_broken(e, TFS_RESOURCE_EXHAUSTED, "out of memory");
    goto out;
  }
  int nmine = build_body(e, news, &body, &len, &cap, mine);
  header h = {(int64_t)len, stop, tfs_now_ns() / 1e9, my_stall, my_fusion,
              {0}};
  int rc = exchange(e, &h, body, all, &bodies, counts, counts + e->size);
  if (rc != MPI_SUCCESS) {
    tfs_mpi__error(st, "exchanging collective requests", rc);
    set_broken(e, TFS_INTERNAL, tfs_status_message(st));
    /* the requests announced in this tick are in no table: fail them */
    for (int k = 0; k < nmine; k++)
      tfs_mpi__complete(e, mine[k], TFS_INTERNAL, tfs_status_message(st));
    goto out;
  }
  atomic_fetch_add(&e->ticks, 1);
  e->stall_timeout = all[0].stall;
  e->fusion_threshold = all[0].fusion;
  for (int r = 0; r < e->size; r++) {
    if (all[r].stop) e->stopped_ranks[r] = 1;
    nall += e->stopped_ranks[r];
    int at = counts[e->size + r];
    if (all[r].len &&
        tfs_mpi__table_add(e, r, at < 0 ? all[r].inl : bodies + at,
                           (size_t)all[r].len, all[0].clock,
                           r == e->rank ? mine : NULL, st) != 0) {
      set_broken(e, tfs_status_code(st), tfs_status_message(st));
      goto out;
    }
  }
  tfs_mpi_entry **ents;
  int n = tfs_mpi__decide(e, all[0].clock, &ents);
  if (n < 0) {
    set_broken(e, TFS_RESOURCE_EXHAUSTED, "out of memory");
    goto out;
  }
  *decided = n;
  rc = tfs_mpi__execute(e, ents, n);
  free(ents);
  if (rc != 0) goto out;
  ret = nall == e->size;
out:
  free(body);
  free(bodies);
  free(mine);
  free(all);
  free(counts);
  tfs_status_free(st);
  return ret;
}

/* Fails every request left when the engine ends. */
static void fail_rest(tfs_mpi_engine *e) {
  char msg[640];
  pthread_mutex_lock(&e->mu);
  snprintf(msg, sizeof msg, "%s",
           e->broken != TFS_OK ? e->broken_msg
                               : "the collective engine stopped "
                                 "(tfs_mpi_finalize on every rank) before "
                                 "this collective was submitted by every "
                                 "rank");
  tfs_code code = e->broken != TFS_OK ? e->broken : TFS_ABORTED;
  tfs_mpi_req *rest = e->incoming;
  e->incoming = NULL;
  pthread_mutex_unlock(&e->mu);
  for (tfs_mpi_req *r = rest, *next; r; r = next) {
    next = r->next;
    tfs_mpi__complete(e, r, code, msg);
  }
  for (int i = 0; i < e->ntable; i++) {
    if (e->table[i]->local)
      tfs_mpi__complete(e, e->table[i]->local, code, msg);
    tfs_mpi__entry_free(e->table[i], e->size);
  }
  e->ntable = 0;
}

static void *engine_main(void *arg) {
  tfs_mpi_engine *e = arg;
  int decided = 0, idle = 0, waiting = 0;
#ifdef PR_SET_TIMERSLACK
  prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
#endif
  for (;;) {
    pthread_mutex_lock(&e->mu);
    /* A rank whose own collectives wait for the others ticks again at
     * once: its wait is the next tick's exchange, which completes as
     * soon as a late rank submits (that wakes the late rank's engine);
     * the others keep their period. */
    if (!e->incoming && !e->stopping && !decided && !waiting) {
      wait_work(e, idle < IDLE_TICKS ? CYCLE_NS : IDLE_CYCLE_NS);
    }
    /* the queue is LIFO: reverse it into submission order */
    tfs_mpi_req *news = NULL;
    int nnews = 0;
    for (tfs_mpi_req *r = e->incoming, *next; r; r = next) {
      next = r->next;
      r->next = news;
      news = r;
      nnews++;
    }
    e->incoming = NULL;
    int stop = e->stopping;
    pthread_mutex_unlock(&e->mu);
    int rc = tick(e, news, nnews, stop, &decided);
    if (rc != 0) break;
    /* the table holds every rank's waiting collectives: the same on all */
    idle = !decided && e->ntable == 0 ? idle + 1 : 0;
    waiting = 0;
    for (int i = 0; i < e->ntable && !waiting; i++)
      waiting = e->table[i]->local != NULL;
  }
  fail_rest(e);
  pthread_mutex_lock(&e->mu);
  e->stopped = 1;
  pthread_cond_broadcast(&e->done_cv);
  pthread_mutex_unlock(&e->mu);
  return NULL;
}

/* The stop hook: asks the other ranks to stop and waits for them. */
static void engine_stop(void) {
  tfs_mpi_engine *e = &engine;
  pthread_mutex_lock(&e->mu);
  int running = engine_running;
  e->stopping = 1;
  pthread_cond_signal(&e->work_cv);
  pthread_mutex_unlock(&e->mu);
  if (!running) return;
  pthread_join(e->thread, NULL);
  MPI_Comm_free(&e->comm);
  free(e->table);
  free(e->stopped_ranks);
  free(e->fusion);
  free(e->scratch);
  tfs_mpi__exec_cache(0);
  pthread_mutex_lock(&e->mu);
  e->table = NULL;
  e->captable = 0;
  e->stopped_ranks = NULL;
  e->fusion = NULL;
  e->fusion_cap = 0;
  e->scratch = NULL;
  e->scratch_cap = 0;
  engine_running = 0;
  pthread_mutex_unlock(&e->mu);
}

int tfs_mpi__engine_start(tfs_status *st) {
  tfs_mpi_engine *e = &engine;
  int rc = MPI_Comm_dup(MPI_COMM_WORLD, &e->comm);
  if (rc != MPI_SUCCESS) {
    tfs_mpi__error(st, "MPI_Comm_dup", rc);
    return -1;
  }
  MPI_Comm_set_errhandler(e->comm, MPI_ERRORS_RETURN);
  MPI_Comm_rank(e->comm, &e->rank);
  MPI_Comm_size(e->comm, &e->size);
  e->stopped_ranks = calloc((size_t)e->size, 1);
  if (!e->stopped_ranks) {
    MPI_Comm_free(&e->comm);
    TFS_OOM(st);
    return -1;
  }
  my_stall = env_number("TFS_MPI_STALL_TIMEOUT", DEFAULT_STALL);
  my_fusion = (int64_t)env_number("TFS_MPI_FUSION_THRESHOLD",
                                  (double)DEFAULT_FUSION);
  e->incoming = NULL;
  e->stopping = e->stopped = 0;
  e->broken = TFS_OK;
  e->ntable = 0;
  atomic_store(&e->collectives, 0);
  atomic_store(&e->reduce_calls, 0);
  atomic_store(&e->tensors_fused, 0);
  atomic_store(&e->bytes, 0);
  atomic_store(&e->ticks, 0);
  tfs_mpi__exec_cache(1);
  if (pthread_create(&e->thread, NULL, engine_main, e) != 0) {
    tfs_mpi__exec_cache(0);
    free(e->stopped_ranks);
    e->stopped_ranks = NULL;
    MPI_Comm_free(&e->comm);
    tfs_status_set(st, TFS_RESOURCE_EXHAUSTED,
                   "cannot start the collective engine's thread");
    return -1;
  }
  pthread_mutex_lock(&e->mu);
  engine_running = 1;
  pthread_mutex_unlock(&e->mu);
  tfs_mpi__set_stop_hook(engine_stop);
  return 0;
}

int tfs_mpi__engine_submit(int kind, const char *name,
                           const tfs_tensor *const *in, int n, int op,
                           double pre, double post, int root,
                           tfs_tensor **out, tfs_status *st) {
  tfs_mpi_engine *e = &engine;
  tfs_mpi_req r = {.name = name, .kind = kind, .op = op, .root = root,
                   .n = n, .pre = pre, .post = post, .in = in, .out = out,
                   .st = st};
  pthread_mutex_lock(&e->mu);
  if (!engine_running || e->stopping || e->stopped) {
    pthread_mutex_unlock(&e->mu);
    tfs_status_setf(st, TFS_ABORTED,
                    "%s '%s': the collective engine was stopped "
                    "(tfs_mpi_finalize)", tfs_mpi__kind_name(kind), name);
    return -1;
  }
  if (e->broken != TFS_OK) {
    tfs_status_set(st, e->broken, e->broken_msg);
    pthread_mutex_unlock(&e->mu);
    return -1;
  }
  r.next = e->incoming;
  e->incoming = &r;
  pthread_cond_signal(&e->work_cv);
  while (!r.done) pthread_cond_wait(&e->done_cv, &e->mu);
  pthread_mutex_unlock(&e->mu);
  return tfs_status_ok(st) ? 0 : -1;
}

void tfs_mpi__engine_stats(tfs_mpi_stats *out) {
  tfs_mpi_engine *e = &engine;
  out->collectives += atomic_load(&e->collectives);
  out->reduce_calls += atomic_load(&e->reduce_calls);
  out->tensors_fused += atomic_load(&e->tensors_fused);
  out->bytes += atomic_load(&e->bytes);
  out->ticks += atomic_load(&e->ticks);
}
