/*
 * mpi/mpi_local.c - the public collectives' entry points and what they
 * share with or without MPI: argument checks, dtype conversion and
 * scaling around a reduction, one rank's local results, and the lazy
 * initialization the graph kernels rely on.
 */
#if defined(__GNUC__) && !defined(__clang__)
/* the scaling loops vectorized (gcc -O2 alone leaves them scalar) */
#pragma GCC optimize("tree-vectorize", "vect-cost-model=dynamic")
#endif
#include "tfs_config.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/half.h"
#include "mpi/mpi_collective.h"

#ifdef TFS_HAVE_MPI
#include "mpi/mpi_engine.h"
#endif

const char *tfs_mpi__kind_name(int kind) {
  switch (kind) {
  case TFS_MPI__ALLREDUCE: return "allreduce";
  case TFS_MPI__ALLGATHER: return "allgather";
  default: return "broadcast";
  }
}

const char *tfs_mpi__dtype_name(tfs_dtype dt) {
  switch (dt) {
  case TFS_UINT8: return "uint8";
  case TFS_INT8: return "int8";
  case TFS_UINT16: return "uint16";
  case TFS_INT16: return "int16";
  case TFS_UINT32: return "uint32";
  case TFS_INT32: return "int32";
  case TFS_UINT64: return "uint64";
  case TFS_INT64: return "int64";
  case TFS_HALF: return "float16";
  case TFS_BFLOAT16: return "bfloat16";
  case TFS_FLOAT: return "float32";
  case TFS_DOUBLE: return "float64";
  case TFS_BOOL: return "bool";
  default: return tfs_dtype_name(dt);
  }
}

tfs_dtype tfs_mpi__wire_dtype(tfs_dtype dt) {
  return dt == TFS_HALF || dt == TFS_BFLOAT16 ? TFS_FLOAT : dt;
}

static int reducible(tfs_dtype dt) {
  switch (dt) {
  case TFS_FLOAT: case TFS_DOUBLE: case TFS_HALF: case TFS_BFLOAT16:
  case TFS_INT8: case TFS_UINT8: case TFS_INT16: case TFS_UINT16:
  case TFS_INT32: case TFS_UINT32: case TFS_INT64: case TFS_UINT64:
    return 1;
  default:
    return 0;
  }
}

/* Integer conversions: scaled in double, rounded toward zero. */
#define INT_CASE(DT, T)                                                   \
  case DT: {                                                              \
    const T *s = src;                                                     \
    T *d = dst;                                                           \
    if (scale == 1.0) {                                                   \
      if (d != s) memcpy(d, s, (size_t)n * sizeof(T));                    \
    } else {                                                              \
      for (int64_t i = 0; i < n; i++) d[i] = (T)((double)s[i] * scale);   \
    }                                                                     \
    break;                                                                \
  }

static void scale_same(tfs_dtype dt, const void *src, int64_t n,
                       double scale, void *dst) {
  switch (dt) {
  INT_CASE(TFS_INT8, int8_t)
  INT_CASE(TFS_UINT8, uint8_t)
  INT_CASE(TFS_INT16, int16_t)
  INT_CASE(TFS_UINT16, uint16_t)
  INT_CASE(TFS_INT32, int32_t)
  INT_CASE(TFS_UINT32, uint32_t)
  INT_CASE(TFS_INT64, int64_t)
  INT_CASE(TFS_UINT64, uint64_t)
  case TFS_FLOAT: {
    const float *s = src;
    float *d = dst;
    float f = (float)scale;
    if (scale == 1.0) {
      if (d != s) memcpy(d, s, (size_t)n * sizeof(float));
    } else {
      for (int64_t i = 0; i < n; i++) d[i] = s[i] * f;
    }
    break;
  }
  case TFS_DOUBLE: {
    const double *s = src;
    double *d = dst;
    if (scale == 1.0) {
      if (d != s) memcpy(d, s, (size_t)n * sizeof(double));
    } else {
      for (int64_t i = 0; i < n; i++) d[i] = s[i] * scale;
    }
    break;
  }
  default:
    break;
  }
}

void tfs_mpi__to_wire(tfs_dtype dt, const void *src, int64_t n,
                      double scale, void *dst) {
  float f = (float)scale, *d = dst;
  const uint16_t *s = src;
  if (dt == TFS_HALF) {
    for (int64_t i = 0; i < n; i++) d[i] = tfs_half_to_float(s[i]) * f;
  } else if (dt == TFS_BFLOAT16) {
    for (int64_t i = 0; i < n; i++) d[i] = tfs_bf16_to_float(s[i]) * f;
  } else {
    scale_same(dt, src, n, scale, dst);
  }
}

void tfs_mpi__from_wire(tfs_dtype dt, const void *src, int64_t n,
                        double scale, void *dst) {
  float f = (float)scale;
  const float *s = src;
  uint16_t *d = dst;
  if (dt == TFS_HALF) {
    for (int64_t i = 0; i < n; i++) d[i] = tfs_float_to_half(s[i] * f);
  } else if (dt == TFS_BFLOAT16) {
    for (int64_t i = 0; i < n; i++) d[i] = tfs_float_to_bf16(s[i] * f);
  } else {
    scale_same(dt, src, n, scale, dst);
  }
}

static int check_reduce(const char *name, const tfs_tensor *const *in,
                        int n, int op, tfs_status *st) {
  if (op == TFS_MPI_ADASUM) {
    tfs_status_setf(st, TFS_UNIMPLEMENTED,
                    "allreduce '%s': the Adasum reduction is not "
                    "implemented", name);
    return -1;
  }
  if (op < TFS_MPI_AVERAGE || op > TFS_MPI_PRODUCT) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "allreduce '%s': reduce_op %d is not one of Average "
                    "(0), Sum (1), Adasum (2), Min (3), Max (4), Product (5)",
                    name, op);
    return -1;
  }
  for (int i = 0; i < n; i++) {
    tfs_dtype dt = tfs_tensor_dtype(in[i]);
    if (!reducible(dt)) {
      tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                      "allreduce '%s' does not support dtype %s", name,
                      tfs_dtype_name(dt));
      return -1;
    }
    if (i > 0 && dt != tfs_tensor_dtype(in[0])) {
      tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                      "grouped allreduce '%s': tensor %d has dtype %s, "
                      "tensor 0 has %s; a group has one dtype", name, i,
                      tfs_dtype_name(dt),
                      tfs_dtype_name(tfs_tensor_dtype(in[0])));
      return -1;
    }
  }
  return 0;
}

int tfs_mpi__check(int kind, const char *name, const tfs_tensor *const *in,
                   int n, int op, int root, int size, tfs_status *st) {
  if (!name || !*name || strlen(name) > 4096) {
    tfs_status_set(st, TFS_INVALID_ARGUMENT,
                   "a collective needs a name of 1 to 4096 bytes");
    return -1;
  }
  if (n < 0 || (n > 0 && !in)) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT, "%s '%s': no tensors",
                    tfs_mpi__kind_name(kind), name);
    return -1;
  }
  for (int i = 0; i < n; i++) {
    if (!in[i]) {
      tfs_status_setf(st, TFS_INVALID_ARGUMENT, "%s '%s': tensor %d is NULL",
                      tfs_mpi__kind_name(kind), name, i);
      return -1;
    }
    tfs_dtype dt = tfs_tensor_dtype(in[i]);
    if (dt == TFS_STRING || dt == TFS_RESOURCE || dt == TFS_VARIANT ||
        tfs_dtype_size(dt) == 0) {
      tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                      "%s '%s' does not support dtype %s",
                      tfs_mpi__kind_name(kind), name, tfs_dtype_name(dt));
      return -1;
    }
  }
  if (kind == TFS_MPI__ALLREDUCE) return check_reduce(name, in, n, op, st);
  if (kind == TFS_MPI__ALLGATHER && tfs_tensor_ndims(in[0]) < 1) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "allgather '%s': the tensor must have rank 1 or more "
                    "(it is gathered along dimension 0), not a scalar",
                    name);
    return -1;
  }
  if (kind == TFS_MPI__BROADCAST && (root < 0 || root >= size)) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "broadcast '%s': root rank %d is out of range; the job "
                    "has %d rank%s", name, root, size, size == 1 ? "" : "s");
    return -1;
  }
  return 0;
}

int tfs_mpi__local(int kind, const tfs_tensor *const *in, int n,
                   double pre, double post, tfs_tensor **out,
                   tfs_status *st) {
  for (int i = 0; i < n; i++) out[i] = NULL;
  for (int i = 0; i < n; i++) {
    tfs_dtype dt = tfs_tensor_dtype(in[i]);
    if (kind != TFS_MPI__ALLREDUCE || (pre == 1.0 && post == 1.0)) {
      out[i] = tfs_tensor_clone(in[i], st);
    } else {
      out[i] = tfs_tensor_new(dt, tfs_tensor_dims(in[i]),
                              tfs_tensor_ndims(in[i]), st);
      int64_t ne = tfs_tensor_num_elements(in[i]);
      float *tmp = NULL;
      if (out[i] && dt != tfs_mpi__wire_dtype(dt) && ne > 0) {
        tmp = malloc((size_t)ne * sizeof(float));
        if (!tmp) TFS_OOM(st);
      }
      if (out[i] && tmp) {
        tfs_mpi__to_wire(dt, tfs_tensor_data(in[i]), ne, pre, tmp);
        tfs_mpi__from_wire(dt, tmp, ne, post, tfs_tensor_data(out[i]));
      } else if (out[i] && tfs_status_ok(st)) {
        tfs_mpi__to_wire(dt, tfs_tensor_data(in[i]), ne, pre,
                         tfs_tensor_data(out[i]));
        tfs_mpi__from_wire(dt, tfs_tensor_data(out[i]), ne, post,
                           tfs_tensor_data(out[i]));
      }
      free(tmp);
    }
    if (!tfs_status_ok(st)) {
      for (int j = 0; j <= i; j++) {
        tfs_tensor_free(out[j]);
        out[j] = NULL;
      }
      return -1;
    }
  }
  return 0;
}

/* A checked collective on an initialized world (or one rank). */
static int run_checked(int kind, const char *name,
                       const tfs_tensor *const *in, int n, int op,
                       double pre, double post, int root, tfs_tensor **out,
                       tfs_status *st) {
  int size = tfs_mpi_size();
  for (int i = 0; i < n; i++) out[i] = NULL;
  if (tfs_mpi__check(kind, name, in, n, op, root, size, st) != 0) return -1;
  if (kind == TFS_MPI__ALLREDUCE && op == TFS_MPI_AVERAGE)
    post /= size;
  if (n == 0) return 0;
#ifdef TFS_HAVE_MPI
  if (size > 1)
    return tfs_mpi__engine_submit(kind, name, in, n, op, pre, post, root,
                                  out, st);
#endif
  return tfs_mpi__local(kind, in, n, pre, post, out, st);
}

/* The public entry: UNIMPLEMENTED without MPI, FAILED_PRECONDITION before
 * tfs_mpi_init. */
static int run_public(int kind, const char *name,
                      const tfs_tensor *const *in, int n, int op,
                      double pre, double post, int root, tfs_tensor **out,
                      tfs_status *st) {
  for (int i = 0; i < n && out; i++) out[i] = NULL;
  if (!tfs_mpi_built()) {
    tfs_status_setf(st, TFS_UNIMPLEMENTED,
                    "%s: tfsess was built without MPI (configure "
                    "--with-mpi)", tfs_mpi__kind_name(kind));
    return -1;
  }
  if (!tfs_mpi_initialized()) {
    tfs_status_setf(st, TFS_FAILED_PRECONDITION,
                    "%s: MPI is not initialized; call tfs_mpi_init first",
                    tfs_mpi__kind_name(kind));
    return -1;
  }
  return run_checked(kind, name, in, n, op, pre, post, root, out, st);
}

tfs_tensor *tfs_mpi_allreduce(const char *name, const tfs_tensor *t,
                              tfs_mpi_reduce_op op, double prescale,
                              double postscale, tfs_status *st) {
  tfs_tensor *out = NULL;
  run_public(TFS_MPI__ALLREDUCE, name, &t, 1, op, prescale, postscale, 0,
             &out, st);
  return out;
}

int tfs_mpi_grouped_allreduce(const char *name, const tfs_tensor *const *ts,
                              int n, tfs_mpi_reduce_op op, double prescale,
                              double postscale, tfs_tensor **out,
                              tfs_status *st) {
  if (n > 0 && !out) {
    tfs_status_set(st, TFS_INVALID_ARGUMENT,
                   "grouped allreduce: out is NULL");
    return -1;
  }
  return run_public(TFS_MPI__ALLREDUCE, name, ts, n, op, prescale,
                    postscale, 0, out, st);
}

tfs_tensor *tfs_mpi_allgather(const char *name, const tfs_tensor *t,
                              tfs_status *st) {
  tfs_tensor *out = NULL;
  run_public(TFS_MPI__ALLGATHER, name, &t, 1, 0, 1, 1, 0, &out, st);
  return out;
}

tfs_tensor *tfs_mpi_broadcast(const char *name, const tfs_tensor *t,
                              int root, tfs_status *st) {
  tfs_tensor *out = NULL;
  run_public(TFS_MPI__BROADCAST, name, &t, 1, 0, 1, 1, root, &out, st);
  return out;
}

void tfs_mpi_get_stats(tfs_mpi_stats *out) {
  if (!out) return;
  memset(out, 0, sizeof *out);
#ifdef TFS_HAVE_MPI
  tfs_mpi__engine_stats(out);
#endif
}

/* ---- the graph kernels' entry ------------------------------------------ */

static pthread_once_t lazy_once = PTHREAD_ONCE_INIT;
static tfs_code lazy_code = TFS_OK;
static char lazy_msg[512];

static void lazy_finalize(void) { tfs_mpi_finalize(); }

/* Under mpirun, initializes MPI once for the kernels; the reference is
 * dropped at exit. */
static void lazy_init(void) {
  if (!tfs_mpi_built() || !tfs_mpi_launched() || tfs_mpi_initialized())
    return;
  tfs_status *st = tfs_status_new();
  if (!st) {
    lazy_code = TFS_RESOURCE_EXHAUSTED;
    snprintf(lazy_msg, sizeof lazy_msg, "out of memory");
    return;
  }
  tfs_mpi_init(st);
  lazy_code = tfs_status_code(st);
  if (lazy_code == TFS_OK)
    atexit(lazy_finalize);
  else
    snprintf(lazy_msg, sizeof lazy_msg, "%s", tfs_status_message(st));
  tfs_status_free(st);
}

int tfs_mpi__kernel_world(tfs_status *st) {
  pthread_once(&lazy_once, lazy_init);
  if (lazy_code != TFS_OK) {
    tfs_status_setf(st, lazy_code, "initializing MPI: %s", lazy_msg);
    return -1;
  }
  return 0;
}

int tfs_mpi__kernel_run(int kind, const char *name,
                        const tfs_tensor *const *in, int n, int op,
                        double pre, double post, int root, tfs_tensor **out,
                        tfs_status *st) {
  for (int i = 0; i < n; i++) out[i] = NULL;
  if (tfs_mpi__kernel_world(st) != 0) return -1;
  return run_checked(kind, name, in, n, op, pre, post, root, out, st);
}
