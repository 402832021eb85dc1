/*
 * backends/cpu/lstm_seq_run.c - the steps of _TfsLstmSequence
 * (lstm_seq.h's tfs_lstm__run): blocks of steps whose input projections
 * are one GEMM (or one a task, below), then the block's steps, each a
 * call of the chunk step on its chunks, on one thread or shared by one
 * task per thread.
 *
 * Sharing: with at least two rows a thread, each task takes its rows
 * (batch entries) through every step of the block: a row's recurrence
 * reads only its own h and c, so no task waits for another (LSTM batch 8
 * on two Xeon threads, units 128: 277 -> 257 us, interleaved medians,
 * against sharing each step's chunks).  Where x has a row each and the
 * GEMM is the project's own, each task first makes its own rows' input
 * projections, so that they are written and read by one core with no
 * pass over the pool before the steps (the same LSTM on two threads of
 * an AVX2 EPYC: 1146 -> 1046 us, five interleaved rounds).  Fewer rows:
 * the tasks run once for the whole block (not a parallel loop per step),
 * chunks claimed in groups, one atomic word per group holding the last
 * step it was claimed for; a task claims the groups of a step that
 * nobody has, its own share first (so that a group's
 * recurrent weights stay in its core's L2), copies the previous h once
 * (fetched from the other cores at once, not line by line by the
 * products), and before each step waits, spinning and then yielding,
 * until every group of the step before is done.  A task only ever waits
 * for groups that a running task claimed, so tasks that the pool runs
 * one after another (its threads busy elsewhere) still finish: a late
 * task starts at the first step not finished.  A group, or a row, is
 * computed the same way whichever task runs it, so any number of threads
 * gives the same bits.
 */
#include <sched.h>
#include <stdatomic.h>
#include <string.h>

#include "core/threadpool.h"
#include "core/util.h"
#include "backends/cpu/fused_epilogue.h"
#include "backends/cpu/gemm.h"
#include "backends/cpu/lstm_seq.h"
#include "kernels/kernel.h"

/* The most bytes of input projections (and of gathered inputs) a block
 * of steps takes. */
#define LS_P_BYTES ((int64_t)2 << 20)
/* How long a task spins for the step before it before it yields. */
#define LS_SPIN_NS 50000

/* The least estimated work of a step per thread that shares it
 * (tfs_lstm_seq__set_min_step_ns). */
static int64_t ls_min_step_ns = 2500;

/* Blocks of steps whose rows were split among tasks (tests). */
static atomic_llong g_row_blocks;

int64_t tfs_lstm_seq__row_blocks(void) {
  return atomic_load_explicit(&g_row_blocks, memory_order_relaxed);
}

/* Input projections whose rows were split among threads, and those of
 * them that each row task made for its own rows (tests). */
static atomic_llong g_split_projections, g_task_projections;

int64_t tfs_lstm_seq__split_projections(void) {
  return atomic_load_explicit(&g_split_projections, memory_order_relaxed);
}

int64_t tfs_lstm_seq__task_projections(void) {
  return atomic_load_explicit(&g_task_projections, memory_order_relaxed);
}

int64_t tfs_lstm_seq__set_min_step_ns(int64_t ns) {
  int64_t old = ls_min_step_ns;
  ls_min_step_ns = ns;
  return old;
}

/* ---- the steps of a block ----------------------------------------------- */

/* A block of steps [s0, s0 + ns) on its projections p (bx rows a step)
 * shared by ntasks tasks claiming groups of `group` chunks: claim[i]
 * holds the last step whose group i was claimed, done counts the groups
 * finished. */
typedef struct ls_claim {
  _Alignas(64) atomic_llong step;
} ls_claim;

typedef struct ls_job {
  const tfs_lstm_seq *q;
  const float *p;
  int64_t s0, ns;
  int64_t group, ngroups;
  int ntasks;
  ls_claim *claim;
  float *hcopy; /* per task: the previous h, copied */
  _Alignas(64) atomic_llong done;
} ls_job;

/* Rows [r0, r1) and chunks [q0, q0 + nq) of step s, whose projections
 * (row r0, chunk 0) are at p, p_rs floats a row, reading the previous h
 * at h (NULL: where the step before wrote it; row 0 either way). */
static void run_part(const tfs_lstm_seq *q, const float *p, int64_t p_rs,
                     int64_t s, int64_t r0, int64_t r1, int64_t q0,
                     int64_t nq, const float *h) {
  const int64_t L = q->lanes;
  tfs_lstm_chunk a;
  a.p_rs = p_rs;
  a.p = p + q0 * 4 * L;
  a.h_rs = s == 0 ? q->h0_rs : q->units;
  a.h = (s == 0 ? q->h0 : h ? h : q->hout[s - 1]) + r0 * a.h_rs;
  a.u = q->rec + q0 * q->units * 4 * L;
  a.units = q->units;
  a.c = q->c + r0 * q->units + q0 * L;
  a.hn = q->hout[s] + r0 * q->units + q0 * L;
  a.ld = q->units;
  a.rows = r1 - r0;
  a.nchunks = nq;
  a.units_left = q->units - q0 * L;
  q->chunk(&a);
}

/* Floats between rows of the block's projections (0: one row for all). */
static int64_t block_rs(const tfs_lstm_seq *q) {
  return q->bx == 1 ? 0 : q->ld;
}

/* The block's projections p of step s (s0 the block's first), row r0. */
static const float *block_p(const tfs_lstm_seq *q, const float *p, int64_t s0,
                            int64_t s, int64_t r0) {
  return p + (s - s0) * q->bx * q->ld + r0 * block_rs(q);
}

static void project(const tfs_lstm_seq *q, const float *x, int64_t m,
                    float *p, tfs_threadpool *pool);

typedef struct ls_rows_job {
  const tfs_lstm_seq *q;
  const float *p; /* the block's projections (NULL: each task's own) */
  float *x, *pt;  /* each task's own: its rows' x and projections, task
                     rows [r0, r1) at r0 * ns rows of each */
  int64_t s0, ns, ntasks;
} ls_rows_job;

/* Rows [r0, r1) of x of steps [s0, s0 + ns), step after step, into x
 * (an unset element reads as zeros). */
static void gather_rows(const tfs_lstm_seq *q, int64_t s0, int64_t ns,
                        int64_t r0, int64_t r1, float *x) {
  const int64_t per = (r1 - r0) * q->depth;
  for (int64_t j = 0; j < ns; j++) {
    const struct tfs_tensor *e = q->items[s0 + j];
    if (e)
      memcpy(x + j * per, (const float *)e->data + r0 * q->depth,
             sizeof(float) * (size_t)per);
    else
      memset(x + j * per, 0, sizeof(float) * (size_t)per);
  }
}

/* Task k: rows [k rows / ntasks, (k + 1) rows / ntasks) of every step of
 * the block, their projections first where the task makes its own. */
static void rows_tasks(void *arg, int64_t b, int64_t e) {
  const ls_rows_job *j = arg;
  const tfs_lstm_seq *q = j->q;
  for (int64_t k = b; k < e; k++) {
    int64_t r0 = k * q->rows / j->ntasks, r1 = (k + 1) * q->rows / j->ntasks;
    /* step s's projections of row r0 at p + s * step, rs floats a row */
    const float *p;
    int64_t step, rs;
    if (j->p) {
      p = block_p(q, j->p, j->s0, j->s0, r0);
      step = q->bx * q->ld;
      rs = block_rs(q);
    } else {
      float *x = j->x + r0 * j->ns * q->depth, *pt = j->pt + r0 * j->ns * q->ld;
      gather_rows(q, j->s0, j->ns, r0, r1, x);
      project(q, x, j->ns * (r1 - r0), pt, NULL);
      p = pt;
      step = (r1 - r0) * q->ld;
      rs = q->ld;
    }
    for (int64_t s = 0; s < j->ns; s++)
      run_part(q, p + s * step, rs, j->s0 + s, r0, r1, 0, q->nchunks, NULL);
  }
}

/* Waits until `want` groups of the block are done: spins, then yields. */
static void wait_done(ls_job *j, long long want) {
  int64_t end = 0;
  for (int i = 0;
       atomic_load_explicit(&j->done, memory_order_acquire) < want; i++) {
    if ((i & 63) == 63) {
      int64_t now = tfs_now_ns();
      if (!end) {
        end = now + LS_SPIN_NS;
      } else if (now >= end) {
        sched_yield();
        continue;
      }
    }
    tfs_cpu_relax();
  }
}

/* Task k: from the first step not finished, each step's unclaimed
 * groups, its own (a 1/ntasks share) first. */
static void run_task(ls_job *j, int k) {
  const tfs_lstm_seq *q = j->q;
  const int64_t ng = j->ngroups, home = k * ng / j->ntasks;
  const size_t hbytes = sizeof(float) * (size_t)(q->rows * q->units);
  float *h = j->hcopy + (int64_t)k * q->rows * q->units;
  long long s = atomic_load_explicit(&j->done, memory_order_acquire) / ng;
  for (; s < j->ns; s++) {
    wait_done(j, s * ng);
    int copied = j->s0 + s == 0; /* the first step reads the input */
    for (int64_t i = 0, g = home; i < ng; i++, g = g + 1 == ng ? 0 : g + 1) {
      long long prev = s - 1;
      if (atomic_load_explicit(&j->claim[g].step, memory_order_relaxed) !=
              prev ||
          !atomic_compare_exchange_strong_explicit(
              &j->claim[g].step, &prev, s, memory_order_relaxed,
              memory_order_relaxed))
        continue;
      if (!copied) {
        memcpy(h, q->hout[j->s0 + s - 1], hbytes);
        copied = 1;
      }
      int64_t q0 = g * j->group;
      run_part(q, block_p(q, j->p, j->s0, j->s0 + s, 0), block_rs(q),
               j->s0 + s, 0, q->rows, q0,
               q->nchunks - q0 < j->group ? q->nchunks - q0 : j->group, h);
      atomic_fetch_add_explicit(&j->done, 1, memory_order_release);
    }
  }
}

static void run_tasks(void *arg, int64_t b, int64_t e) {
  for (int64_t k = b; k < e; k++) run_task(arg, (int)k);
}

/* How many threads share each step: an estimate of a step's work
 * against the least worth a thread.  Measured on AVX-512 (Xeon, 2.6 GHz,
 * units 128): a step takes ~2.3 us at batch 1, where reading the
 * recurrent weights from L2 bounds it (~30 of their floats a ns), and
 * ~10 us at batch 8 (~80 multiply-adds a ns, and the gates at ~1 ns a
 * unit). */
static int plan_threads(const tfs_lstm_seq *q, tfs_threadpool *pool) {
  int maxp = tfs_threadpool_parallelism(pool);
  double rows = (double)q->rows, ld = (double)q->ld, u = (double)q->units;
  double w = rows * ld * u / 80.0 + u * ld / 30.0 + rows * ld;
  double t = ls_min_step_ns > 0 ? w / (double)ls_min_step_ns : (double)maxp;
  int nt = t >= maxp ? maxp : (int)t;
  if (nt > q->nchunks) nt = (int)q->nchunks;
  return nt < 1 ? 1 : nt;
}

/* Steps [s0, s0 + ns) on their projections p (NULL: each row task
 * makes its own rows', in x and pt; own_projections): on this thread, or
 * shared by j->ntasks tasks (j's groups and buffers set). */
static void recur(tfs_kernel_ctx *c, ls_job *j, const float *p, int64_t s0,
                  int64_t ns, float *x, float *pt) {
  const tfs_lstm_seq *q = j->q;
  if (j->ntasks <= 1) {
    for (int64_t s = s0; s < s0 + ns; s++)
      run_part(q, block_p(q, p, s0, s, 0), block_rs(q), s, 0, q->rows, 0,
               q->nchunks, NULL);
    return;
  }
  if (q->rows >= 2 * j->ntasks) {
    ls_rows_job rj = {q, p, x, pt, s0, ns, j->ntasks};
    atomic_fetch_add_explicit(&g_row_blocks, 1, memory_order_relaxed);
    if (!p && q->depth > 0) {
      atomic_fetch_add_explicit(&g_split_projections, 1,
                                memory_order_relaxed);
      atomic_fetch_add_explicit(&g_task_projections, 1,
                                memory_order_relaxed);
    }
    tfs_threadpool_parallel_for(tfs_kctx_intra_pool(c), j->ntasks,
                                1000000000, rows_tasks, &rj);
    return;
  }
  j->p = p;
  j->s0 = s0;
  j->ns = ns;
  for (int64_t g = 0; g < j->ngroups; g++)
    atomic_init(&j->claim[g].step, -1);
  atomic_init(&j->done, 0);
  /* one task per thread: a unit cost far above any threshold */
  tfs_threadpool_parallel_for(tfs_kctx_intra_pool(c), j->ntasks, 1000000000,
                              run_tasks, j);
}

/* ---- the input projections ----------------------------------------------- */

/* p [m][ld] = x [m][depth] . kernel + bias, reordered, over pool (NULL:
 * on this thread).  A row's sums do not depend on the call's other rows
 * on the project's own GEMM; on OpenBLAS (CPUs below AVX2) they do (its
 * Haswell and Zen kernels take a row count's remainder in another
 * order), so there the caller gives one call a block, on one thread. */
static void project(const tfs_lstm_seq *q, const float *x, int64_t m,
                    float *p, tfs_threadpool *pool) {
  const int64_t ld = q->ld, depth = q->depth;
  if (depth == 0) {
    for (int64_t r = 0; r < m; r++)
      memcpy(p + r * ld, q->b, sizeof(float) * (size_t)ld);
  } else if (q->kp) {
    tfs_fused_bias_job j = {p, q->b, ld};
    tfs_gemm_f32_packed_done(0, m, 1.0f, x, depth, q->kp, 0.0f, p, ld, pool,
                             tfs_fused_bias_done, &j);
  } else {
    tfs_gemm_f32(0, 0, m, ld, depth, 1.0f, x, depth, q->k, ld, 0.0f, p, ld,
                 pool);
    tfs_fused_rows_f32(TFS_FA_NONE, 0.0f, p, m, ld, ld, NULL, q->b);
  }
}

/* Whether the row tasks make their own rows' projections: rows split
 * with a row of x each (x read by one core, the projections written and
 * read by the same one, no phase of their own), and the project's own
 * GEMM (OpenBLAS's sums would depend on how many rows a task has). */
static int own_projections(const tfs_lstm_seq *q, int ntasks) {
  return ntasks > 1 && q->rows >= 2 * ntasks && q->bx > 1 &&
         tfs_gemm_panel_rows() > 1;
}

void tfs_lstm__run(tfs_kernel_ctx *c, const tfs_lstm_seq *q) {
  int64_t per = q->bx * (q->ld > q->depth ? q->ld : q->depth);
  int64_t nb = LS_P_BYTES / (int64_t)sizeof(float) / (per ? per : 1);
  nb = nb < 1 ? 1 : nb > q->n ? q->n : nb;
  float *x = tfs_kctx_scratch(c, sizeof(float) *
                                     (size_t)(nb * q->bx * q->depth + 1));
  float *p = x ? tfs_kctx_scratch(c, sizeof(float) *
                                         (size_t)(nb * q->bx * q->ld))
               : NULL;
  if (!p) return;
  ls_job j;
  memset(&j, 0, sizeof j);
  j.q = q;
  j.ntasks = plan_threads(q, tfs_kctx_intra_pool(c));
  if (j.ntasks > 1) {
    /* about two groups a thread: one slowed down leaves half its share
     * to the others */
    j.group = q->nchunks / (2 * j.ntasks);
    j.group = j.group < 1 ? 1 : j.group;
    j.ngroups = (q->nchunks + j.group - 1) / j.group;
    j.claim = tfs_kctx_scratch(c, sizeof(ls_claim) * (size_t)j.ngroups);
    j.hcopy = j.claim ? tfs_kctx_scratch(
                            c, sizeof(float) *
                                   (size_t)(j.ntasks * q->rows * q->units))
                      : NULL;
    if (!j.hcopy) return;
  }
  const int own = own_projections(q, j.ntasks);
  tfs_threadpool *pool =
      tfs_gemm_panel_rows() > 1 ? tfs_kctx_intra_pool(c) : NULL;
  for (int64_t s0 = 0; s0 < q->n; s0 += nb) {
    int64_t ns = q->n - s0 < nb ? q->n - s0 : nb;
    if (s0 > 0 && c->run && c->run->check_abort &&
        c->run->check_abort(c->run, c->st)) {
      tfs_kctx_fail_status(c, c->st);
      return;
    }
    if (own) {
      recur(c, &j, NULL, s0, ns, x, p);
      continue;
    }
    gather_rows(q, s0, ns, 0, q->bx, x);
    if (pool && q->depth > 0)
      atomic_fetch_add_explicit(&g_split_projections, 1,
                                memory_order_relaxed);
    project(q, x, ns * q->bx, p, pool);
    recur(c, &j, p, s0, ns, NULL, NULL);
  }
}
