/*
 * bench/mpi_allreduce.c - allreduce bandwidth: the same bytes through
 * (a) one MPI_Allreduce on one buffer and (b) the collective engine's
 * fused allreduce of 64 tensors (tfs_mpi_grouped_allreduce), for totals
 * from 1 MiB to 64 MiB.  Prints the median of several rounds in GB/s
 * (bytes reduced per second on rank 0) and the ratio engine / plain,
 * then the latency of a one-float allreduce both ways.
 *
 *   mpirun -np 2 bench/mpi_allreduce [ROUNDS]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/util.h"
#include "tfsess/tfsess.h"

enum { NTENSORS = 64 };

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Seconds of one plain MPI_Allreduce of n floats. */
static double plain_round(float *src, float *dst, int64_t n) {
  MPI_Barrier(MPI_COMM_WORLD);
  int64_t t0 = tfs_now_ns();
  MPI_Allreduce(src, dst, (int)n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  return (double)(tfs_now_ns() - t0) / 1e9;
}

/* Seconds of one fused allreduce of the tensors; -1 on error. */
static double engine_round(tfs_tensor **in, int round) {
  tfs_tensor *out[NTENSORS];
  tfs_status *st = tfs_status_new();
  char name[32];
  snprintf(name, sizeof name, "bench_%d", round);
  MPI_Barrier(MPI_COMM_WORLD);
  int64_t t0 = tfs_now_ns();
  int rc = tfs_mpi_grouped_allreduce(name, (const tfs_tensor *const *)in,
                                     NTENSORS, TFS_MPI_SUM, 1, 1, out, st);
  double s = (double)(tfs_now_ns() - t0) / 1e9;
  if (rc != 0) {
    fprintf(stderr, "engine: %s\n", tfs_status_message(st));
    s = -1;
  }
  for (int i = 0; rc == 0 && i < NTENSORS; i++) tfs_tensor_free(out[i]);
  tfs_status_free(st);
  return s;
}

/* Median seconds of one one-float allreduce through the engine, and
 * through MPI_Allreduce in *plain: the fixed cost of a collective; -1
 * (both) when the engine failed. */
static double latency(double *plain) {
  enum { N = 201 };
  double te[N], tp[N];
  tfs_status *st = tfs_status_new();
  int64_t one = 1;
  tfs_tensor *in = tfs_tensor_new(TFS_FLOAT, &one, 1, st);
  double res = -1;
  *plain = -1;
  for (int i = 0; in && i < N; i++) {
    char name[32];
    snprintf(name, sizeof name, "latency_%d", i);
    float a = 1, b = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    int64_t t0 = tfs_now_ns();
    MPI_Allreduce(&a, &b, 1, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    tp[i] = (double)(tfs_now_ns() - t0) / 1e9;
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = tfs_now_ns();
    tfs_tensor *out = tfs_mpi_allreduce(name, in, TFS_MPI_SUM, 1, 1, st);
    if (!out) break;
    te[i] = (double)(tfs_now_ns() - t0) / 1e9;
    tfs_tensor_free(out);
    if (i == N - 1) {
      res = median(te, N);
      *plain = median(tp, N);
    }
  }
  tfs_tensor_free(in);
  tfs_status_free(st);
  return res;
}

int main(int argc, char **argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 11;
  if (rounds < 1 || rounds > 1000) rounds = 11;
  tfs_status *st = tfs_status_new();
  tfs_mpi_init(st);
  if (tfs_status_code(st) != TFS_OK) {
    fprintf(stderr, "tfs_mpi_init: %s\n", tfs_status_message(st));
    return 1;
  }
  int rank = tfs_mpi_rank();
  if (rank == 0)
    printf("ranks %d, %d tensors, median of %d rounds\n%10s %12s %12s %7s\n",
           tfs_mpi_size(), NTENSORS, rounds, "MiB", "plain GB/s",
           "engine GB/s", "ratio");
  double *tp = malloc((size_t)rounds * sizeof *tp);
  double *te = malloc((size_t)rounds * sizeof *te);
  int status = 0;
  for (int64_t mib = 1; mib <= 64 && tp && te && !status; mib *= 4) {
    int64_t n = mib << 18, per = n / NTENSORS; /* floats */
    float *src = malloc((size_t)n * sizeof(float));
    float *dst = malloc((size_t)n * sizeof(float));
    tfs_tensor *in[NTENSORS] = {0};
    for (int i = 0; i < NTENSORS; i++)
      in[i] = tfs_tensor_new(TFS_FLOAT, &per, 1, st);
    if (!src || !dst || !in[NTENSORS - 1]) {
      fprintf(stderr, "out of memory\n");
      status = 1;
    }
    for (int64_t i = 0; !status && i < n; i++) src[i] = (float)(i % 7);
    for (int i = 0; !status && i < NTENSORS; i++) {
      float *p = tfs_tensor_data(in[i]);
      for (int64_t j = 0; j < per; j++) p[j] = (float)(j % 5);
    }
    /* one warm-up round each */
    for (int r = -1; !status && r < rounds; r++) {
      double a = plain_round(src, dst, n), b = engine_round(in, r + 1);
      if (b < 0) status = 1;
      if (r >= 0) {
        tp[r] = a;
        te[r] = b;
      }
    }
    if (!status && rank == 0) {
      double bytes = (double)n * sizeof(float);
      double gp = bytes / median(tp, rounds) / 1e9;
      double ge = bytes / median(te, rounds) / 1e9;
      printf("%10lld %12.2f %12.2f %6.0f%%\n", (long long)mib, gp, ge,
             100 * ge / gp);
    }
    for (int i = 0; i < NTENSORS; i++) tfs_tensor_free(in[i]);
    free(src);
    free(dst);
  }
  double lp = 0, le = status ? -1 : latency(&lp);
  if (le < 0 && !status) status = 1;
  if (!status && rank == 0)
    printf("one float: plain %.1f us, engine %.1f us (medians of 201)\n",
           lp * 1e6, le * 1e6);
  free(tp);
  free(te);
  tfs_status_free(st);
  tfs_mpi_finalize();
  return status;
}
