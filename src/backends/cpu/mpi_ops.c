/*
 * backends/cpu/mpi_ops.c - the kernels of Horovod's ops
 * (ops/ops_mpi.c).  A collective is named after its node (the part after
 * the last '/' with ignore_name_scope), as Horovod names it, and runs
 * through the collective engine, which every rank's run of the same graph
 * meets.  The kernels are TFS_KERNEL_BLOCKING: a plan with them runs on
 * its caller's thread, in plan order, the same order on every rank.
 *
 * A process started by mpirun initializes MPI on a kernel's first run
 * (and finalizes it at exit) unless the program called tfs_mpi_init; any
 * other process is rank 0 of 1: allreduce returns its input scaled,
 * allgather and broadcast return it unchanged, HorovodSize is 1.
 */
#include <stdlib.h>
#include <string.h>

#include "backends/cpu/cpu_tables.h"
#include "mpi/mpi_collective.h"

typedef struct coll_state {
  int kind, op, root;
  double pre, post;
  char name[];
} coll_state;

/* Reads an int attr that may be missing (then def). */
static int64_t attr_int(const tfs_attrs *a, const char *name, int64_t def) {
  int64_t v = def;
  tfs_attrs_get_int(a, name, &v);
  return v;
}

static int check_process_set(tfs_kernel_init *ki) {
  int64_t ps = attr_int(ki->attrs, "process_set_id", 0);
  if (ps != 0)
    return tfs_ki_error(ki, TFS_UNIMPLEMENTED,
                        "process_set_id %lld: only the global process set "
                        "(0) is supported", (long long)ps);
  return 0;
}

static int coll_prepare(tfs_kernel_init *ki) {
  if (check_process_set(ki) != 0) return -1;
  const char *name = ki->node_name;
  int ignore = 0;
  tfs_attrs_get_bool(ki->attrs, "ignore_name_scope", &ignore);
  const char *slash = strrchr(name, '/');
  if (ignore && slash) name = slash + 1;
  coll_state *s = calloc(1, sizeof *s + strlen(name) + 1);
  if (!s) return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  memcpy(s->name, name, strlen(name) + 1);
  s->kind = *(const int *)ki->kdata;
  s->pre = s->post = 1.0;
  if (s->kind == TFS_MPI__ALLREDUCE) {
    float pre = 1.0f, post = 1.0f;
    tfs_attrs_get_float(ki->attrs, "prescale_factor", &pre);
    tfs_attrs_get_float(ki->attrs, "postscale_factor", &post);
    s->op = (int)attr_int(ki->attrs, "reduce_op", TFS_MPI_SUM);
    s->pre = pre;
    s->post = post;
  }
  int64_t root = attr_int(ki->attrs, "root_rank", 0);
  if (root < 0 || root > INT32_MAX) {
    free(s);
    return tfs_ki_error(ki, TFS_INVALID_ARGUMENT,
                        "root_rank %lld is out of range", (long long)root);
  }
  s->root = (int)root;
  ki->state = s;
  return 0;
}

static void coll_compute(tfs_kernel_ctx *c) {
  const coll_state *s = c->state;
  tfs_tensor **outs = calloc((size_t)c->noutputs + 1, sizeof *outs);
  tfs_status *st = tfs_status_new();
  if (!outs || !st) {
    free(outs);
    tfs_status_free(st);
    tfs_kctx_fail(c, TFS_RESOURCE_EXHAUSTED, "out of memory");
    return;
  }
  if (tfs_mpi__kernel_run(s->kind, s->name,
                          (const tfs_tensor *const *)c->inputs, c->ninputs,
                          s->op, s->pre, s->post, s->root, outs, st) != 0) {
    tfs_kctx_fail_status(c, st);
  } else {
    for (int i = 0; i < c->noutputs; i++) tfs_kctx_set_output(c, i, outs[i]);
  }
  free(outs);
  tfs_status_free(st);
}

static int world_prepare(tfs_kernel_init *ki) {
  return check_process_set(ki);
}

static void world_compute(tfs_kernel_ctx *c) {
  tfs_status *st = tfs_status_new();
  if (!st) {
    tfs_kctx_fail(c, TFS_RESOURCE_EXHAUSTED, "out of memory");
    return;
  }
  if (tfs_mpi__kernel_world(st) != 0) {
    tfs_kctx_fail_status(c, st);
    tfs_status_free(st);
    return;
  }
  tfs_status_free(st);
  const char *op = c->op_name;
  int32_t v = !strcmp(op, "HorovodSize")        ? tfs_mpi_size()
              : !strcmp(op, "HorovodLocalSize") ? tfs_mpi_local_size()
              : !strcmp(op, "HorovodRank")      ? tfs_mpi_rank()
                                                : tfs_mpi_local_rank();
  tfs_shape scalar = {0, {0}};
  tfs_tensor *t = tfs_kctx_alloc_output(c, 0, &scalar);
  if (t) *(int32_t *)tfs_tensor_data(t) = v;
}

static const int kind_allreduce = TFS_MPI__ALLREDUCE;
static const int kind_allgather = TFS_MPI__ALLGATHER;
static const int kind_broadcast = TFS_MPI__BROADCAST;

#define ANY NULL, 0
#define BLOCKS TFS_KERNEL_BLOCKING
const tfs_kernel_def tfs_cpu_kernels_mpi[] = {
    {"HorovodAllreduce", "CPU", ANY, coll_prepare, coll_compute, free, BLOCKS,
     &kind_allreduce},
    {"HorovodGroupedAllreduce", "CPU", ANY, coll_prepare, coll_compute, free,
     BLOCKS, &kind_allreduce},
    {"HorovodAllgather", "CPU", ANY, coll_prepare, coll_compute, free, BLOCKS,
     &kind_allgather},
    {"HorovodBroadcast", "CPU", ANY, coll_prepare, coll_compute, free, BLOCKS,
     &kind_broadcast},
    {"HorovodSize", "CPU", ANY, world_prepare, world_compute, NULL, BLOCKS,
     NULL},
    {"HorovodLocalSize", "CPU", ANY, NULL, world_compute, NULL, BLOCKS, NULL},
    {"HorovodRank", "CPU", ANY, world_prepare, world_compute, NULL, BLOCKS,
     NULL},
    {"HorovodLocalRank", "CPU", ANY, NULL, world_compute, NULL, BLOCKS, NULL},
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL},
};
