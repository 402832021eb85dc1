/*
 * mpi/mpi_negotiate.c - what the ranks tell each other every tick and the
 * decisions each rank derives from it.
 *
 * A rank announces each collective once: a descriptor (name, kind, dtype,
 * shapes, reduce op, factors, root).  Every rank adds every rank's
 * descriptors to its table in the same way, so the tables are alike and
 * so are the decisions taken from them: a name is ready in the tick its
 * last rank announces it, checked for agreement, and run after the other
 * names ready in that tick that sort before it.
 */
#include "tfs_config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/mpi_engine.h"

static int put(unsigned char **buf, size_t *len, size_t *cap,
               const void *p, size_t n) {
  if (*len + n > *cap) {
    size_t nc = *cap ? *cap * 2 : 256;
    while (nc < *len + n) nc *= 2;
    unsigned char *nb = realloc(*buf, nc);
    if (!nb) return -1;
    *buf = nb;
    *cap = nc;
  }
  memcpy(*buf + *len, p, n);
  *len += n;
  return 0;
}

int tfs_mpi__encode(const tfs_mpi_req *r, unsigned char **buf, size_t *len,
                    size_t *cap) {
  uint32_t nl = (uint32_t)strlen(r->name);
  tfs_dtype dt = tfs_tensor_dtype(r->in[0]);
  int32_t ints[5] = {r->kind, r->op, r->root, r->n, (int32_t)dt};
  double f[2] = {r->pre, r->post};
  if (put(buf, len, cap, &nl, sizeof nl) || put(buf, len, cap, r->name, nl) ||
      put(buf, len, cap, ints, sizeof ints) || put(buf, len, cap, f, sizeof f))
    return -1;
  for (int i = 0; i < r->n; i++) {
    int32_t nd = tfs_tensor_ndims(r->in[i]);
    if (put(buf, len, cap, &nd, sizeof nd) ||
        put(buf, len, cap, tfs_tensor_dims(r->in[i]),
            (size_t)nd * sizeof(int64_t)))
      return -1;
  }
  return 0;
}

/* Reads n bytes at *pos of body[0..len). */
static int get(const unsigned char *body, size_t len, size_t *pos, void *p,
               size_t n) {
  if (len - *pos < n) return -1;
  memcpy(p, body + *pos, n);
  *pos += n;
  return 0;
}

/* Parses one descriptor; its name into *name (malloc'd). */
static tfs_mpi_desc *parse_desc(const unsigned char *body, size_t len,
                                size_t *pos, char **name) {
  uint32_t nl;
  int32_t ints[5];
  double f[2];
  *name = NULL;
  if (get(body, len, pos, &nl, sizeof nl) || nl > 4096 || len - *pos < nl)
    return NULL;
  *name = malloc(nl + 1);
  tfs_mpi_desc *d = calloc(1, sizeof *d);
  if (!*name || !d) goto fail;
  memcpy(*name, body + *pos, nl);
  (*name)[nl] = 0;
  *pos += nl;
  if (get(body, len, pos, ints, sizeof ints) ||
      get(body, len, pos, f, sizeof f))
    goto fail;
  d->kind = ints[0];
  d->op = ints[1];
  d->root = ints[2];
  d->n = ints[3];
  d->dtype = (tfs_dtype)ints[4];
  d->pre = f[0];
  d->post = f[1];
  if (d->n < 0 || d->n > 1 << 20) goto fail;
  d->shapes = calloc(d->n ? (size_t)d->n : 1, sizeof *d->shapes);
  if (!d->shapes) goto fail;
  for (int i = 0; i < d->n; i++) {
    int32_t nd;
    if (get(body, len, pos, &nd, sizeof nd) || nd < 0 || nd > TFS_MAX_RANK ||
        get(body, len, pos, d->shapes[i].dims, (size_t)nd * sizeof(int64_t)))
      goto fail;
    d->shapes[i].rank = nd;
  }
  return d;
fail:
  if (d) free(d->shapes);
  free(d);
  free(*name);
  *name = NULL;
  return NULL;
}

static void desc_free(tfs_mpi_desc *d) {
  if (!d) return;
  free(d->shapes);
  free(d);
}

void tfs_mpi__entry_free(tfs_mpi_entry *en, int size) {
  if (!en) return;
  for (int r = 0; r < size; r++) desc_free(en->descs[r]);
  free(en->descs);
  free(en->name);
  free(en->msg);
  free(en);
}

tfs_mpi_entry *tfs_mpi__table_find(tfs_mpi_engine *e, const char *name) {
  for (int i = 0; i < e->ntable; i++)
    if (strcmp(e->table[i]->name, name) == 0) return e->table[i];
  return NULL;
}

static tfs_mpi_entry *entry_new(tfs_mpi_engine *e, char *name,
                                double clock) {
  if (e->ntable == e->captable) {
    int nc = e->captable ? e->captable * 2 : 64;
    tfs_mpi_entry **nt = realloc(e->table, (size_t)nc * sizeof *nt);
    if (!nt) return NULL;
    e->table = nt;
    e->captable = nc;
  }
  tfs_mpi_entry *en = calloc(1, sizeof *en);
  if (!en) return NULL;
  en->descs = calloc((size_t)e->size, sizeof *en->descs);
  if (!en->descs) {
    free(en);
    return NULL;
  }
  en->name = name;
  en->t_first = clock;
  e->table[e->ntable++] = en;
  return en;
}

int tfs_mpi__table_add(tfs_mpi_engine *e, int from, const unsigned char *body,
                       size_t len, double clock, tfs_mpi_req **mine,
                       tfs_status *st) {
  size_t pos = 0;
  for (int k = 0; pos < len; k++) {
    char *name;
    tfs_mpi_desc *d = parse_desc(body, len, &pos, &name);
    if (!d) {
      tfs_status_setf(st, TFS_INTERNAL,
                      "rank %d sent a collective descriptor that does not "
                      "parse (or memory ran out)", from);
      return -1;
    }
    tfs_mpi_entry *en = tfs_mpi__table_find(e, name);
    if (en && en->descs[from]) {
      /* the rank checked this itself; keep the first */
      desc_free(d);
      free(name);
      continue;
    }
    if (!en && !(en = entry_new(e, name, clock))) {
      desc_free(d);
      free(name);
      TFS_OOM(st);
      return -1;
    }
    if (en->name != name) free(name);
    en->descs[from] = d;
    en->nhave++;
    if (from == e->rank && mine) en->local = mine[k];
  }
  return 0;
}

static char *shape_text(const tfs_shape *s, char *buf, size_t cap) {
  size_t o = (size_t)snprintf(buf, cap, "[");
  for (int i = 0; i < s->rank && o < cap; i++)
    o += (size_t)snprintf(buf + o, cap - o, "%s%lld", i ? "," : "",
                          (long long)s->dims[i]);
  if (o < cap) snprintf(buf + o, cap - o, "]");
  return buf;
}

static const char *op_name(int op) {
  static const char *const names[] = {"average", "sum", "adasum",
                                      "min", "max", "product"};
  return op >= 0 && op <= 5 ? names[op] : "unknown";
}

/* Compares two ranks' shapes for the collective's kind. */
static char *check_shapes(const tfs_mpi_desc *a, const tfs_mpi_desc *b) {
  char sa[TFS_SHAPE_STRLEN], sb[TFS_SHAPE_STRLEN];
  const char *kind = tfs_mpi__kind_name(a->kind);
  if (a->n != b->n)
    return tfs_asprintf("Mismatched grouped %s sizes: One rank sent %d "
                        "tensors, but another rank sent %d tensors.",
                        kind, a->n, b->n);
  for (int i = 0; i < a->n; i++) {
    const tfs_shape *x = &a->shapes[i], *y = &b->shapes[i];
    if (a->kind != TFS_MPI__ALLGATHER) {
      if (x->rank == y->rank &&
          !memcmp(x->dims, y->dims, (size_t)x->rank * sizeof(int64_t)))
        continue;
      return tfs_asprintf("Mismatched %s tensor shapes: One rank sent a "
                          "tensor of shape %s, but another rank sent a "
                          "tensor of shape %s.", kind,
                          shape_text(x, sa, sizeof sa),
                          shape_text(y, sb, sizeof sb));
    }
    if (x->rank != y->rank)
      return tfs_asprintf("Mismatched allgather tensor shapes: One rank "
                          "sent a tensor of rank %d, but another rank sent "
                          "a tensor of rank %d.", x->rank, y->rank);
    for (int d = 1; d < x->rank; d++)
      if (x->dims[d] != y->dims[d])
        return tfs_asprintf("Mismatched allgather tensor shapes: One rank "
                            "sent a tensor with dimension %d equal to %lld, "
                            "but another rank sent a tensor with dimension "
                            "%d equal to %lld.", d, (long long)x->dims[d],
                            d, (long long)y->dims[d]);
  }
  return NULL;
}

/* Compares rank 0's descriptor with another's; NULL when they agree. */
static char *check_pair(const tfs_mpi_desc *a, const tfs_mpi_desc *b) {
  if (a->kind != b->kind)
    return tfs_asprintf("Mismatched MPI operations: One rank did an %s, but "
                        "another rank did an %s.",
                        tfs_mpi__kind_name(a->kind),
                        tfs_mpi__kind_name(b->kind));
  if (a->dtype != b->dtype)
    return tfs_asprintf("Mismatched data types: One rank had type %s, but "
                        "another rank had type %s.",
                        tfs_mpi__dtype_name(a->dtype),
                        tfs_mpi__dtype_name(b->dtype));
  char *m = check_shapes(a, b);
  if (m) return m;
  if (a->kind == TFS_MPI__ALLREDUCE) {
    if (a->op != b->op)
      return tfs_asprintf("Mismatched allreduce reduce ops: One rank did a "
                          "%s, but another rank did a %s.", op_name(a->op),
                          op_name(b->op));
    if (a->pre != b->pre)
      return tfs_asprintf("Mismatched prescale factor: One rank sent factor "
                          "%g, but another rank sent factor %g.", a->pre,
                          b->pre);
    if (a->post != b->post)
      return tfs_asprintf("Mismatched postscale factor: One rank sent "
                          "factor %g, but another rank sent factor %g.",
                          a->post, b->post);
  }
  if (a->kind == TFS_MPI__BROADCAST && a->root != b->root)
    return tfs_asprintf("Mismatched broadcast root ranks: One rank specified "
                        "root rank %d, but another rank specified root rank "
                        "%d.", a->root, b->root);
  return NULL;
}

/* Checks a ready entry; sets its code and message on disagreement. */
static void check_ready(tfs_mpi_engine *e, tfs_mpi_entry *en) {
  for (int r = 1; r < e->size && !en->msg; r++)
    en->msg = check_pair(en->descs[0], en->descs[r]);
  if (!en->msg && en->descs[0]->kind == TFS_MPI__ALLGATHER) {
    const tfs_mpi_desc *d = en->descs[0];
    int64_t row = (int64_t)tfs_dtype_size(d->dtype), total = 0;
    for (int i = 1; i < d->shapes[0].rank; i++) row *= d->shapes[0].dims[i];
    for (int r = 0; r < e->size; r++) {
      int64_t b = en->descs[r]->shapes[0].dims[0] * row;
      if (b > INT32_MAX || (total += b) > INT32_MAX) {
        en->msg = tfs_asprintf("allgather '%s': %lld bytes or more; an "
                               "allgather moves at most 2 GiB",
                               en->name, (long long)total);
        break;
      }
    }
  }
  if (en->msg) en->code = TFS_INVALID_ARGUMENT;
}

/* The ranks that did (have=1) or did not (have=0) submit, as "0, 2". */
static void rank_list(const tfs_mpi_engine *e, const tfs_mpi_entry *en,
                      int have, char *buf, size_t cap) {
  size_t o = 0;
  buf[0] = 0;
  for (int r = 0; r < e->size && o + 16 < cap; r++)
    if ((en->descs[r] != NULL) == have)
      o += (size_t)snprintf(buf + o, cap - o, "%s%d", o ? ", " : "", r);
}

/* A stopped rank that never submitted, or -1. */
static int stopped_missing(const tfs_mpi_engine *e, const tfs_mpi_entry *en) {
  for (int r = 0; r < e->size; r++)
    if (!en->descs[r] && e->stopped_ranks[r]) return r;
  return -1;
}

static int by_name(const void *a, const void *b) {
  return strcmp((*(tfs_mpi_entry *const *)a)->name,
                (*(tfs_mpi_entry *const *)b)->name);
}

/* The kind any rank gave the entry (for messages). */
static int entry_kind(const tfs_mpi_engine *e, const tfs_mpi_entry *en) {
  for (int r = 0; r < e->size; r++)
    if (en->descs[r]) return en->descs[r]->kind;
  return TFS_MPI__ALLREDUCE;
}

int tfs_mpi__decide(tfs_mpi_engine *e, double clock, tfs_mpi_entry ***out) {
  tfs_mpi_entry **sel = malloc((size_t)(e->ntable ? e->ntable : 1) *
                               sizeof *sel);
  if (!sel) return -1;
  int n = 0, keep = 0;
  char have[256], miss[256];
  for (int i = 0; i < e->ntable; i++) {
    tfs_mpi_entry *en = e->table[i];
    int stopped = -1;
    const char *kind = tfs_mpi__kind_name(entry_kind(e, en));
    if (en->nhave == e->size) {
      check_ready(e, en);
    } else if ((stopped = stopped_missing(e, en)) >= 0) {
      en->code = TFS_ABORTED;
      en->msg = tfs_asprintf("%s '%s' cannot complete: rank %d stopped its "
                             "collective engine (tfs_mpi_finalize) without "
                             "submitting it", kind, en->name, stopped);
    } else if (clock - en->t_first > e->stall_timeout) {
      rank_list(e, en, 1, have, sizeof have);
      rank_list(e, en, 0, miss, sizeof miss);
      en->code = TFS_DEADLINE_EXCEEDED;
      en->msg = tfs_asprintf("%s '%s' was submitted by rank(s) %s but not "
                             "by rank(s) %s within the stall timeout of %g "
                             "seconds (TFS_MPI_STALL_TIMEOUT); missing "
                             "ranks: %s", kind, en->name, have, miss,
                             e->stall_timeout, miss);
    } else {
      e->table[keep++] = en;
      continue;
    }
    sel[n++] = en;
  }
  e->ntable = keep;
  qsort(sel, (size_t)n, sizeof *sel, by_name);
  *out = sel;
  return n;
}
