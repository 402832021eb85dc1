/*
 * ops/einsum_spec.c - parsing Einsum equations and resolving their labels
 * against input shapes, with TensorFlow's messages.
 */
#include <string.h>

#include "ops/einsum_spec.h"

static int label_id(tfs_einsum_spec *s, char ch, int create) {
  for (int i = 0; i < s->nlabels; i++)
    if (s->names[i] == ch) return i;
  if (!create || s->nlabels >= 2 * TFS_MAX_RANK) return -1;
  s->names[s->nlabels] = ch;
  return s->nlabels++;
}

/* One comma-free term [p, e). */
static int parse_term(tfs_einsum_spec *s, const char *p, const char *e,
                      int is_output, const char *eq, tfs_einsum_term *t,
                      tfs_status *st) {
  int periods = 0;
  for (const char *q = p; q < e; q++) periods += *q == '.';
  if (periods != 0 && periods != 3) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "Expected at most one ellipsis (...), but found %d "
                    "periods (.) in the %s subscript: %.*s", periods,
                    is_output ? "output" : "input", (int)(e - p), p);
    return -1;
  }
  t->n = 0;
  t->has_ellipsis = 0;
  for (const char *q = p; q < e; q++) {
    if (t->n >= TFS_MAX_RANK + 1) {
      tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                      "Einsum subscript %.*s has more than %d labels",
                      (int)(e - p), p, TFS_MAX_RANK);
      return -1;
    }
    if (*q == '.') {
      if (q + 2 >= e || q[1] != '.' || q[2] != '.') {
        tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                        "Expected at most one ellipsis (...), but found %d "
                        "periods (.) in the %s subscript: %.*s", periods,
                        is_output ? "output" : "input", (int)(e - p), p);
        return -1;
      }
      t->has_ellipsis = 1;
      t->labels[t->n++] = TFS_EINSUM_ELLIPSIS;
      q += 2;
      continue;
    }
    int id = label_id(s, *q, !is_output);
    if (id < 0) {
      tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                      "Einsum output subscripts for equation '%s' has label "
                      "'%c' which is not present in the input subscripts",
                      eq, *q);
      return -1;
    }
    t->labels[t->n++] = id;
  }
  return 0;
}

int tfs_einsum_parse(const char *eq, size_t len, int ninputs,
                     tfs_einsum_spec *s, tfs_status *st) {
  char buf[256];
  if (len >= sizeof buf) {
    tfs_status_set(st, TFS_INVALID_ARGUMENT, "Einsum equation is too long");
    return -1;
  }
  memcpy(buf, eq, len);
  buf[len] = 0;
  memset(s, 0, sizeof *s);
  const char *arrow = strstr(buf, "->");
  if (!arrow || strstr(arrow + 2, "->")) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "Expecting exactly one '->' in einsum equation: %s",
                    buf);
    return -1;
  }
  int nterms = 1;
  for (const char *q = buf; q < arrow; q++) nterms += *q == ',';
  if (nterms > 2) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "Expecting 1 or 2 input subscripts in equation '%s' but "
                    "got: %d", buf, nterms);
    return -1;
  }
  if (nterms != ninputs) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "Expected %d inputs for equation %s but got: %d", nterms,
                    buf, ninputs);
    return -1;
  }
  s->ninputs = nterms;
  const char *p = buf;
  for (int i = 0; i < nterms; i++) {
    const char *e = i + 1 < nterms ? strchr(p, ',') : arrow;
    if (parse_term(s, p, e, 0, buf, &s->in[i], st)) return -1;
    p = e + 1;
  }
  return parse_term(s, arrow + 2, buf + len, 1, buf, &s->out, st);
}

static int named_count(const tfs_einsum_term *t) {
  return t->n - (t->has_ellipsis ? 1 : 0);
}

/* Broadcasts the ellipsis parts of the inputs into d->label_dim. */
static int broadcast_ellipsis(const tfs_einsum_spec *s,
                              const tfs_shape *const *in, int shape_fn,
                              tfs_einsum_dims *d, tfs_status *st) {
  int64_t bc[TFS_MAX_RANK];
  for (int k = 0; k < d->nell; k++) bc[k] = 1;
  int known_one[TFS_MAX_RANK] = {0}; /* every input has 1 or nothing */
  for (int k = 0; k < d->nell; k++) known_one[k] = 1;
  for (int i = 0; i < s->ninputs; i++) {
    int ne = in[i]->rank - named_count(&s->in[i]);
    int start = 0;
    while (start < s->in[i].n &&
           s->in[i].labels[start] != TFS_EINSUM_ELLIPSIS)
      start++;
    for (int k = 0; k < ne; k++) {
      int64_t dim = in[i]->dims[start + k];
      int slot = d->nell - ne + k;
      if (dim == 1) continue;
      if (dim < 0) {
        known_one[slot] = 0;
        continue;
      }
      if (bc[slot] != 1 && bc[slot] != dim) {
        char a[TFS_SHAPE_STRLEN], b[TFS_SHAPE_STRLEN];
        if (shape_fn) {
          tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                          "Dimensions must be equal, but are %lld and %lld",
                          (long long)bc[slot], (long long)dim);
          return -1;
        }
        tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                        "Invalid broadcasting dimensions: %s vs. %s",
                        tfs_shape_str(in[0], a, sizeof a),
                        tfs_shape_str(in[1], b, sizeof b));
        return -1;
      }
      bc[slot] = dim;
      known_one[slot] = 0;
    }
  }
  for (int k = 0; k < d->nell; k++)
    d->label_dim[s->nlabels + k] = bc[k] != 1 || known_one[k] ? bc[k] : -1;
  return 0;
}

/* Named label dims of input i, checked for agreement. */
static int resolve_input(const tfs_einsum_spec *s, const tfs_shape *in,
                         int i, int shape_fn, tfs_einsum_dims *d,
                         tfs_status *st) {
  const tfs_einsum_term *t = &s->in[i];
  int ne = in->rank - named_count(t), axis = 0;
  d->in_rank[i] = in->rank;
  for (int j = 0; j < t->n; j++) {
    if (t->labels[j] == TFS_EINSUM_ELLIPSIS) {
      for (int k = 0; k < ne; k++)
        d->in_labels[i][axis++] = s->nlabels + d->nell - ne + k;
      continue;
    }
    int id = t->labels[j];
    int64_t dim = in->dims[axis];
    if (dim >= 0 && d->label_dim[id] >= 0 && d->label_dim[id] != dim) {
      char b[TFS_SHAPE_STRLEN];
      if (shape_fn) {
        tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                        "Dimensions must be equal, but are %lld and %lld",
                        (long long)d->label_dim[id], (long long)dim);
        return -1;
      }
      tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                      "Expected dimension %lld at axis %d of the input "
                      "shaped %s but got dimension %lld",
                      (long long)d->label_dim[id], axis,
                      tfs_shape_str(in, b, sizeof b), (long long)dim);
      return -1;
    }
    if (dim >= 0) d->label_dim[id] = dim;
    d->in_labels[i][axis++] = id;
  }
  return 0;
}

int tfs_einsum_resolve(const tfs_einsum_spec *s, const tfs_shape *const *in,
                       int shape_fn, tfs_einsum_dims *d, tfs_status *st) {
  memset(d, 0, sizeof *d);
  for (int k = 0; k < TFS_EINSUM_MAX_LABELS; k++) d->label_dim[k] = -1;
  for (int i = 0; i < s->ninputs; i++) {
    int named = named_count(&s->in[i]);
    int r = in[i]->rank;
    if (!s->in[i].has_ellipsis && r != named) {
      if (shape_fn)
        tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                        "Shape must be rank %d but is rank %d", named, r);
      else
        tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                        "Expected input %d to have rank %d but got: %d", i,
                        named, r);
      return -1;
    }
    if (s->in[i].has_ellipsis && r < named) {
      if (shape_fn)
        tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                        "Shape must be at least rank %d but is rank %d",
                        named, r);
      else
        tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                        "Expected input %d to have rank at least %d but "
                        "got: %d", i, named, r);
      return -1;
    }
    if (r - named > d->nell) d->nell = r - named;
  }
  if (broadcast_ellipsis(s, in, shape_fn, d, st)) return -1;
  for (int i = 0; i < s->ninputs; i++)
    if (resolve_input(s, in[i], i, shape_fn, d, st)) return -1;
  if (!s->out.has_ellipsis && d->nell > 0) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "Output contains %d broadcasting dimension(s) but no "
                    "ellipsis (...) was found in the output subscripts.",
                    d->nell);
    return -1;
  }
  if (named_count(&s->out) + d->nell > TFS_MAX_RANK) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "Einsum output has more than %d dimensions",
                    TFS_MAX_RANK);
    return -1;
  }
  for (int j = 0; j < s->out.n; j++) {
    if (s->out.labels[j] == TFS_EINSUM_ELLIPSIS) {
      for (int k = 0; k < d->nell; k++)
        d->out_labels[d->out_rank++] = s->nlabels + k;
    } else {
      d->out_labels[d->out_rank++] = s->out.labels[j];
    }
  }
  return 0;
}
