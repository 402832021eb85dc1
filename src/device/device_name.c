/*
 * device/device_name.c - device names as TensorFlow's DeviceNameUtils and
 * Python's DeviceSpec read them: full, partial, legacy and short forms,
 * canonical strings, matching, compatibility and merging with TensorFlow's
 * messages.
 */
#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "core/status.h"
#include "device/device.h"
#include "tfsess/device.h"

/* ---- known types (for the case-insensitive short forms) ------------------- */

#define MAX_KNOWN 16
static pthread_mutex_t g_known_mu = PTHREAD_MUTEX_INITIALIZER;
static char g_known[MAX_KNOWN][TFS_DEVICE_TYPE_MAX] = {"CPU", "GPU"};
static int g_nknown = 2;

void tfs_device_name__add_known_type(const char *type) {
  if (!type || strlen(type) >= TFS_DEVICE_TYPE_MAX) return;
  pthread_mutex_lock(&g_known_mu);
  int found = 0;
  for (int i = 0; i < g_nknown; i++)
    if (strcmp(g_known[i], type) == 0) found = 1;
  if (!found && g_nknown < MAX_KNOWN)
    snprintf(g_known[g_nknown++], TFS_DEVICE_TYPE_MAX, "%s", type);
  pthread_mutex_unlock(&g_known_mu);
}

/* The registered spelling of a known type matching [s, s+n) in any case. */
static int known_type(const char *s, size_t n, char *out) {
  int found = 0;
  pthread_mutex_lock(&g_known_mu);
  for (int i = 0; i < g_nknown && !found; i++) {
    if (strlen(g_known[i]) == n && strncasecmp(g_known[i], s, n) == 0) {
      memcpy(out, g_known[i], n + 1);
      found = 1;
    }
  }
  pthread_mutex_unlock(&g_known_mu);
  return found;
}

/* ---- parsing ---------------------------------------------------------------- */

static int is_alpha(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static int is_alnum_(char c) {
  return is_alpha(c) || (c >= '0' && c <= '9') || c == '_';
}

/* A job or device type: a letter, then letters, digits and '_'. */
static int valid_ident(const char *s, size_t n, size_t cap) {
  if (n == 0 || n >= cap || !is_alpha(s[0])) return 0;
  for (size_t i = 1; i < n; i++)
    if (!is_alnum_(s[i])) return 0;
  return 1;
}

/* Decimal digits only, fitting an int. */
static int parse_number(const char *s, size_t n, int *out) {
  if (n == 0 || n > 9) return 0;
  int v = 0;
  for (size_t i = 0; i < n; i++) {
    if (s[i] < '0' || s[i] > '9') return 0;
    v = v * 10 + (s[i] - '0');
  }
  *out = v;
  return 1;
}

static int is_star(const char *s, size_t n) { return n == 1 && s[0] == '*'; }

/* "N" or "*" into has / value. */
static int parse_index(const char *s, size_t n, uint8_t *has, int *v) {
  if (is_star(s, n)) {
    *has = 0;
    return 1;
  }
  *has = 1;
  return parse_number(s, n, v);
}

static int set_type(tfs_device_name *o, const char *s, size_t n) {
  if (!valid_ident(s, n, TFS_DEVICE_TYPE_MAX)) return 0;
  memcpy(o->type, s, n);
  o->type[n] = 0;
  o->has_type = 1;
  return 1;
}

/* Splits [s, s+n) at ':' into at most 3 parts; returns the count or -1. */
static int split_colon(const char *s, size_t n, const char **p, size_t *len) {
  int k = 0;
  const char *start = s, *end = s + n;
  for (const char *q = s;; q++) {
    if (q == end || *q == ':') {
      if (k == 3) return -1;
      p[k] = start;
      len[k++] = (size_t)(q - start);
      if (q == end) break;
      start = q + 1;
    }
  }
  return k;
}

/* One '/'-separated component.  `only` is set when it is the whole
 * specification without a leading '/' (a local name "TYPE:ID"). */
static int parse_component(const char *s, size_t n, int only,
                           tfs_device_name *o) {
  const char *p[3];
  size_t len[3];
  int k = split_colon(s, n, p, len);
  if (k < 1) return 0;
#define IS(i, lit) (len[i] == strlen(lit) && memcmp(p[i], lit, len[i]) == 0)
  if (k == 2 && IS(0, "job")) {
    if (is_star(p[1], len[1])) {
      o->has_job = 0;
      return 1;
    }
    if (!valid_ident(p[1], len[1], TFS_DEVICE_JOB_MAX)) return 0;
    memcpy(o->job, p[1], len[1]);
    o->job[len[1]] = 0;
    o->has_job = 1;
    return 1;
  }
  if (k == 2 && IS(0, "replica"))
    return parse_index(p[1], len[1], &o->has_replica, &o->replica);
  if (k == 2 && IS(0, "task"))
    return parse_index(p[1], len[1], &o->has_task, &o->task);
  if (k >= 2 && IS(0, "device")) {
    /* "/device:TYPE[:ID]": the type keeps its case, as TensorFlow's */
    if (is_star(p[1], len[1]))
      o->has_type = 0;
    else if (!set_type(o, p[1], len[1]))
      return 0;
    if (k == 2) {
      o->has_id = 0;
      return 1;
    }
    return parse_index(p[2], len[2], &o->has_id, &o->id);
  }
#undef IS
  if (k <= 2) {
    char canon[TFS_DEVICE_TYPE_MAX];
    if (len[0] < sizeof canon && known_type(p[0], len[0], canon)) {
      /* legacy "/cpu:0", "/GPU:1" and Python's "gpu", "Cpu:*" */
      memcpy(o->type, canon, strlen(canon) + 1);
      o->has_type = 1;
      if (k == 1) {
        o->has_id = 0;
        return 1;
      }
      return parse_index(p[1], len[1], &o->has_id, &o->id);
    }
    if (k == 2 && only) {
      /* ParseLocalName: "TYPE:ID" of any type */
      o->has_id = 1;
      return set_type(o, p[0], len[0]) && parse_number(p[1], len[1], &o->id);
    }
  }
  return 0;
}

int tfs_device_name__parse(const char *s, tfs_device_name *out) {
  memset(out, 0, sizeof *out);
  if (!s) return 0;
  const char *q = s;
  int leading = *q == '/';
  if (leading) q++;
  if (!*q) return 0; /* "" and "/" */
  while (*q) {
    const char *slash = strchr(q, '/');
    size_t n = slash ? (size_t)(slash - q) : strlen(q);
    int only = !leading && q == s && !slash;
    if (n == 0 || !parse_component(q, n, only, out)) {
      memset(out, 0, sizeof *out);
      return -1;
    }
    q += n;
    if (*q == '/') {
      q++;
      if (!*q) { /* a trailing '/' */
        memset(out, 0, sizeof *out);
        return -1;
      }
    }
  }
  return 0;
}

int tfs_device_name__parse_status(const char *s, tfs_device_name *out,
                                  tfs_status *st) {
  if (tfs_device_name__parse(s, out) == 0) return 0;
  tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                  "Could not parse %s into a device specification.", s);
  return -1;
}

/* ---- printing and comparing --------------------------------------------- */

char *tfs_device_name__str(const tfs_device_name *n, char *buf, size_t cap) {
  size_t used = 0;
  if (cap == 0) return buf;
  buf[0] = 0;
#define PUT(...)                                                         \
  do {                                                                   \
    int w_ = snprintf(buf + used, cap - used, __VA_ARGS__);              \
    if (w_ > 0) used += (size_t)w_ < cap - used ? (size_t)w_ : cap - used - 1; \
  } while (0)
  if (n->has_job) PUT("/job:%s", n->job);
  if (n->has_replica) PUT("/replica:%d", n->replica);
  if (n->has_task) PUT("/task:%d", n->task);
  if (n->has_type) {
    if (n->has_id)
      PUT("/device:%s:%d", n->type, n->id);
    else
      PUT("/device:%s:*", n->type);
  }
#undef PUT
  return buf;
}

int tfs_device_name__has_details(const tfs_device_name *n) {
  return n->has_job || n->has_replica || n->has_task || n->has_type ||
         n->has_id;
}

int tfs_device_name__matches(const tfs_device_name *p,
                             const tfs_device_name *n) {
  if (p->has_job && strcmp(p->job, n->job) != 0) return 0;
  if (p->has_replica && p->replica != n->replica) return 0;
  if (p->has_task && p->task != n->task) return 0;
  if (p->has_type && strcmp(p->type, n->type) != 0) return 0;
  if (p->has_id && p->id != n->id) return 0;
  return 1;
}

int tfs_device_name__compatible(const tfs_device_name *a,
                                const tfs_device_name *b) {
  if (a->has_job && b->has_job && strcmp(a->job, b->job) != 0) return 0;
  if (a->has_replica && b->has_replica && a->replica != b->replica) return 0;
  if (a->has_task && b->has_task && a->task != b->task) return 0;
  if (a->has_type && b->has_type && strcmp(a->type, b->type) != 0) return 0;
  if (a->has_id && b->has_id && a->id != b->id) return 0;
  return 1;
}

int tfs_device_name__equal(const tfs_device_name *a,
                           const tfs_device_name *b) {
  if (a->has_job != b->has_job || a->has_replica != b->has_replica ||
      a->has_task != b->has_task || a->has_type != b->has_type ||
      a->has_id != b->has_id)
    return 0;
  if (a->has_job && strcmp(a->job, b->job) != 0) return 0;
  if (a->has_replica && a->replica != b->replica) return 0;
  if (a->has_task && a->task != b->task) return 0;
  if (a->has_type && strcmp(a->type, b->type) != 0) return 0;
  return !a->has_id || a->id == b->id;
}

/* ---- merging ------------------------------------------------------------------ */

static int merge_error(const char *what, const tfs_device_name *t,
                       const tfs_device_name *o, tfs_status *st) {
  char a[TFS_DEVICE_NAME_MAX], b[TFS_DEVICE_NAME_MAX];
  tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                  "Cannot merge devices with incompatible %s: '%s' and '%s'",
                  what, tfs_device_name__str(t, a, sizeof a),
                  tfs_device_name__str(o, b, sizeof b));
  return -1;
}

int tfs_device_name__merge(tfs_device_name *target,
                           const tfs_device_name *other, int allow_soft,
                           tfs_status *st) {
  tfs_device_name t = *target;
  if (other->has_job) {
    if (t.has_job && strcmp(t.job, other->job) != 0)
      return merge_error("jobs", target, other, st);
    t.has_job = 1;
    memcpy(t.job, other->job, sizeof t.job);
  }
  if (other->has_replica) {
    if (t.has_replica && t.replica != other->replica)
      return merge_error("replicas", target, other, st);
    t.has_replica = 1;
    t.replica = other->replica;
  }
  if (other->has_task) {
    if (t.has_task && t.task != other->task)
      return merge_error("tasks", target, other, st);
    t.has_task = 1;
    t.task = other->task;
  }
  if (other->has_type) {
    if (t.has_type && strcmp(t.type, other->type) != 0) {
      if (!allow_soft) return merge_error("types", target, other, st);
      /* soft placement: forget the conflicting type and id */
      t.has_type = 0;
      t.has_id = 0;
      *target = t;
      return 0;
    }
    t.has_type = 1;
    memcpy(t.type, other->type, sizeof t.type);
  }
  if (other->has_id) {
    if (t.has_id && t.id != other->id) {
      if (!allow_soft) return merge_error("ids", target, other, st);
      t.has_id = 0;
      *target = t;
      return 0;
    }
    t.has_id = 1;
    t.id = other->id;
  }
  *target = t;
  return 0;
}

void tfs_device_name__ensure(tfs_device_name *more,
                             const tfs_device_name *less) {
  if (less->has_job) {
    more->has_job = 1;
    memcpy(more->job, less->job, sizeof more->job);
  }
  if (less->has_replica) {
    more->has_replica = 1;
    more->replica = less->replica;
  }
  if (less->has_task) {
    more->has_task = 1;
    more->task = less->task;
  }
  if (less->has_type) {
    more->has_type = 1;
    memcpy(more->type, less->type, sizeof more->type);
  }
  if (less->has_id) {
    more->has_id = 1;
    more->id = less->id;
  }
}

void tfs_device_name__local(tfs_device_name *out, const char *type, int id) {
  memset(out, 0, sizeof *out);
  out->has_job = out->has_replica = out->has_task = 1;
  snprintf(out->job, sizeof out->job, "localhost");
  snprintf(out->type, sizeof out->type, "%s", type);
  out->has_type = 1;
  out->has_id = 1;
  out->id = id;
}

/* ---- public ------------------------------------------------------------------ */

int tfs_device_name_canonicalize(const char *spec, char *buf, size_t cap,
                                 tfs_status *st) {
  tfs_device_name n;
  if (tfs_device_name__parse_status(spec ? spec : "", &n, st)) return -1;
  char tmp[TFS_DEVICE_NAME_MAX];
  tfs_device_name__str(&n, tmp, sizeof tmp);
  if (buf && cap) snprintf(buf, cap, "%s", tmp);
  tfs_status_clear(st);
  return (int)strlen(tmp);
}
