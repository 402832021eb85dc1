/*
 * core/regex.c - RE2-syntax regular expressions run on a Pike VM
 * (core/regex.h).  A recursive-descent parser builds a small syntax tree,
 * the compiler turns it into a program of instructions, the matcher runs
 * all threads of the program in lock step over the text's code points,
 * in priority order, so that the first thread to reach MATCH is RE2's
 * leftmost-first match.
 */
#include "core/regex.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "core/unicode.h"
#include "core/util.h"

/* ---- syntax tree -------------------------------------------------------- */

enum {
  N_EMPTY, N_LIT, N_ANY, N_CLASS, N_CAT, N_ALT, N_REP, N_CAP, N_ASSERT
};
enum {
  A_BOT, A_EOT, A_BOL, A_EOL, A_WORDB, A_NWORDB /* assertion kinds */
};
enum { F_FOLD = 1, F_MULTI = 2, F_DOTNL = 4, F_UNGREEDY = 8 };

typedef struct node {
  int type;
  int fold;        /* LIT, CLASS */
  int32_t arg;     /* LIT rune, CLASS index, CAP group, ASSERT kind,
                      ANY: matches \n */
  int min, max;    /* REP; max -1: unbounded */
  int greedy;
  int64_t reps;       /* the product of the counted repetitions inside */
  struct node *a, *b; /* REP/CAP: a; CAT/ALT: a, b */
} node;

typedef struct {
  int32_t *r; /* lo, hi pairs */
  int n, cap;
  int neg;
} rclass;

struct tfs_regex {
  struct inst *prog;
  int ninst;
  int groups;
  rclass *cls;
  int ncls;
};

typedef struct {
  const char *pat, *p, *end;
  char *err;
  size_t errcap;
  int failed;
  int groups;
  node **nodes;     /* every node, for freeing */
  int nnodes, nodecap;
  rclass *cls;
  int ncls, clscap;
  char **names;
  int nnames;
  int flag_change; /* the last group was "(?flags)" */
} parser;

static int fail(parser *ps, const char *fmt, ...) {
  if (!ps->failed) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ps->err, ps->errcap, fmt, ap);
    va_end(ap);
    ps->failed = 1;
  }
  return -1;
}

static int oom(parser *ps) { return fail(ps, "out of memory"); }

static node *new_node(parser *ps, int type) {
  if (ps->nnodes == ps->nodecap) {
    int cap = ps->nodecap ? ps->nodecap * 2 : 32;
    node **nn = tfs_realloc(ps->nodes, sizeof(node *) * (size_t)cap);
    if (!nn) return oom(ps), NULL;
    ps->nodes = nn;
    ps->nodecap = cap;
  }
  node *n = tfs_calloc(1, sizeof(node));
  if (!n) return oom(ps), NULL;
  n->type = type;
  ps->nodes[ps->nnodes++] = n;
  return n;
}

/* The largest product of nested counted repetitions in n (1 for none),
 * kept on each node as the tree is built. */
static int64_t count_reps(const node *n) {
  return n && n->reps > 1 ? n->reps : 1;
}

static node *pair(parser *ps, int type, node *a, node *b) {
  node *n = new_node(ps, type);
  if (n) {
    n->a = a, n->b = b;
    n->reps = count_reps(a) > count_reps(b) ? count_reps(a) : count_reps(b);
  }
  return n;
}

/* ---- character classes -------------------------------------------------- */

static int cls_add(parser *ps, rclass *c, int32_t lo, int32_t hi) {
  if (c->n == c->cap) {
    int cap = c->cap ? c->cap * 2 : 8;
    int32_t *r = tfs_realloc(c->r, sizeof(int32_t) * 2 * (size_t)cap);
    if (!r) return oom(ps);
    c->r = r;
    c->cap = cap;
  }
  c->r[2 * c->n] = lo;
  c->r[2 * c->n + 1] = hi;
  c->n++;
  return 0;
}

/* Adds ranges r[0..n) (pairs), or their complement over all code points. */
static int cls_add_set(parser *ps, rclass *c, const int32_t *r, int n,
                       int neg) {
  if (!neg) {
    for (int i = 0; i < n; i++)
      if (cls_add(ps, c, r[2 * i], r[2 * i + 1])) return -1;
    return 0;
  }
  int32_t next = 0;
  for (int i = 0; i < n; i++) {
    if (r[2 * i] > next && cls_add(ps, c, next, r[2 * i] - 1)) return -1;
    next = r[2 * i + 1] + 1;
  }
  return next <= 0x10FFFF ? cls_add(ps, c, next, 0x10FFFF) : 0;
}

static int cls_has(const rclass *c, int32_t ch) {
  for (int i = 0; i < c->n; i++)
    if (ch >= c->r[2 * i] && ch <= c->r[2 * i + 1]) return 1;
  return 0;
}

static const int32_t kDigit[] = {'0', '9'};
static const int32_t kSpace[] = {'\t', '\n', '\f', '\r', ' ', ' '};
static const int32_t kWord[] = {'0', '9', 'A', 'Z', '_', '_', 'a', 'z'};

typedef struct {
  const char *name;
  int n;
  int32_t r[10];
} posix_class;

static const posix_class kPosix[] = {
    {"alnum", 3, {'0', '9', 'A', 'Z', 'a', 'z'}},
    {"alpha", 2, {'A', 'Z', 'a', 'z'}},
    {"ascii", 1, {0, 0x7F}},
    {"blank", 2, {'\t', '\t', ' ', ' '}},
    {"cntrl", 2, {0, 0x1F, 0x7F, 0x7F}},
    {"digit", 1, {'0', '9'}},
    {"graph", 1, {'!', '~'}},
    {"lower", 1, {'a', 'z'}},
    {"print", 1, {' ', '~'}},
    {"punct", 4, {'!', '/', ':', '@', '[', '`', '{', '~'}},
    {"space", 2, {'\t', '\r', ' ', ' '}},
    {"upper", 1, {'A', 'Z'}},
    {"word", 4, {'0', '9', 'A', 'Z', '_', '_', 'a', 'z'}},
    {"xdigit", 3, {'0', '9', 'A', 'F', 'a', 'f'}},
};

static rclass *new_class(parser *ps, int *idx) {
  if (ps->ncls == ps->clscap) {
    int cap = ps->clscap ? ps->clscap * 2 : 8;
    rclass *c = tfs_realloc(ps->cls, sizeof(rclass) * (size_t)cap);
    if (!c) return oom(ps), NULL;
    ps->cls = c;
    ps->clscap = cap;
  }
  rclass *c = &ps->cls[ps->ncls];
  memset(c, 0, sizeof *c);
  *idx = ps->ncls++;
  return c;
}

/* A Perl class letter (d, s, w, upper case negated): its ranges. */
static int perl_class(int ch, const int32_t **r, int *n) {
  switch (ch | 0x20) {
    case 'd': *r = kDigit, *n = 1; return 1;
    case 's': *r = kSpace, *n = 3; return 1;
    case 'w': *r = kWord, *n = 4; return 1;
    default: return 0;
  }
}

/* ---- escapes ------------------------------------------------------------ */

static int hexval(int c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

static int bad_escape(parser *ps, const char *from) {
  int32_t cp;
  int len = ps->p < ps->end
                ? tfs_utf8_decode((const unsigned char *)ps->p,
                                  (size_t)(ps->end - ps->p), &cp)
                : 0;
  const char *to = ps->p + len;
  return fail(ps, "invalid escape sequence: %.*s", (int)(to - from), from);
}

/* Parses the escape after a backslash at ps->p - 1 that stands for one
 * code point (not a class or assertion) into *out. */
static int escape_rune(parser *ps, int32_t *out) {
  const char *from = ps->p - 1;
  if (ps->p >= ps->end) return fail(ps, "trailing \\");
  unsigned char c = (unsigned char)*ps->p;
  if (c == '0' || (c >= '1' && c <= '7' && ps->p + 1 < ps->end &&
                   ps->p[1] >= '0' && ps->p[1] <= '7')) {
    int32_t v = 0;
    for (int i = 0; i < 3 && ps->p < ps->end && *ps->p >= '0' &&
                    *ps->p <= '7'; i++)
      v = v * 8 + (*ps->p++ - '0');
    *out = v;
    return 0;
  }
  ps->p++;
  switch (c) {
    case 'a': *out = 7; return 0;
    case 'f': *out = '\f'; return 0;
    case 't': *out = '\t'; return 0;
    case 'n': *out = '\n'; return 0;
    case 'r': *out = '\r'; return 0;
    case 'v': *out = '\v'; return 0;
    case 'x': break;
    default:
      if (c < 0x80 && !(c >= '0' && c <= '9') && !(c >= 'a' && c <= 'z') &&
          !(c >= 'A' && c <= 'Z') && c != '_') {
        *out = c;
        return 0;
      }
      ps->p--;
      return bad_escape(ps, from);
  }
  if (ps->p < ps->end && *ps->p == '{') {
    const char *q = ps->p + 1;
    int32_t v = 0;
    int nd = 0;
    while (q < ps->end && hexval((unsigned char)*q) >= 0 && v <= 0x10FFFF)
      v = v * 16 + hexval((unsigned char)*q++), nd++;
    if (q >= ps->end) {
      ps->p = q - 1;
      return fail(ps, "invalid escape sequence: %.*s",
                  (int)(ps->end - from), from);
    }
    if (v > 0x10FFFF)
      return fail(ps, "invalid escape sequence: %.*s", (int)(q - from),
                  from);
    if (*q != '}' || nd == 0) {
      ps->p = q;
      return bad_escape(ps, from);
    }
    ps->p = q + 1;
    *out = v;
    return 0;
  }
  int h1 = ps->p < ps->end ? hexval((unsigned char)ps->p[0]) : -1;
  int h2 = ps->p + 1 < ps->end ? hexval((unsigned char)ps->p[1]) : -1;
  if (h1 < 0) return bad_escape(ps, from);
  if (h2 < 0) {
    ps->p++;
    return bad_escape(ps, from);
  }
  ps->p += 2;
  *out = h1 * 16 + h2;
  return 0;
}

/* ---- bracket classes ---------------------------------------------------- */

static int class_posix(parser *ps, rclass *c) {
  const char *from = ps->p; /* at "[:" */
  const char *q = from + 2;
  while (q + 1 < ps->end && !(q[0] == ':' && q[1] == ']')) q++;
  if (q + 1 >= ps->end) return 0; /* not a POSIX name: '[' is literal */
  const char *name = from + 2;
  int neg = name < q && *name == '^';
  if (neg) name++;
  for (size_t i = 0; i < sizeof kPosix / sizeof kPosix[0]; i++)
    if ((size_t)(q - name) == strlen(kPosix[i].name) &&
        memcmp(name, kPosix[i].name, (size_t)(q - name)) == 0) {
      ps->p = q + 2;
      return cls_add_set(ps, c, kPosix[i].r, kPosix[i].n, neg) ? -1 : 1;
    }
  return fail(ps, "invalid character class range: %.*s",
              (int)(q + 2 - from), from);
}

/* One class item's code point (a literal or an escape). */
static int class_rune(parser *ps, int32_t *out) {
  if (*ps->p == '\\') {
    ps->p++;
    return escape_rune(ps, out);
  }
  ps->p += tfs_utf8_decode((const unsigned char *)ps->p,
                           (size_t)(ps->end - ps->p), out);
  return 0;
}

static node *parse_class(parser *ps, int flags) {
  const char *open = ps->p++; /* '[' */
  int idx;
  rclass *c = new_class(ps, &idx);
  if (!c) return NULL;
  if (ps->p < ps->end && *ps->p == '^') c->neg = 1, ps->p++;
  int first = 1;
  for (;;) {
    if (ps->p >= ps->end) {
      fail(ps, "missing ]: %.*s", (int)(ps->end - open), open);
      return NULL;
    }
    if (*ps->p == ']' && !first) break;
    first = 0;
    const char *item = ps->p;
    if (ps->p + 1 < ps->end && ps->p[0] == '[' && ps->p[1] == ':') {
      int r = class_posix(ps, &ps->cls[idx]);
      if (r < 0) return NULL;
      if (r > 0) continue;
    }
    const int32_t *pr;
    int pn;
    if (*ps->p == '\\' && ps->p + 1 < ps->end &&
        perl_class((unsigned char)ps->p[1], &pr, &pn)) {
      int neg = ps->p[1] >= 'A' && ps->p[1] <= 'Z';
      ps->p += 2;
      if (cls_add_set(ps, &ps->cls[idx], pr, pn, neg)) return NULL;
      continue;
    }
    if (*ps->p == '\\' && ps->p + 1 < ps->end &&
        (ps->p[1] == 'p' || ps->p[1] == 'P')) {
      ps->p++;
      bad_escape(ps, ps->p - 1);
      return NULL;
    }
    int32_t lo, hi;
    if (class_rune(ps, &lo)) return NULL;
    hi = lo;
    if (ps->p + 1 < ps->end && ps->p[0] == '-' && ps->p[1] != ']') {
      ps->p++;
      if (class_rune(ps, &hi)) return NULL;
      if (hi < lo) {
        fail(ps, "invalid character class range: %.*s",
             (int)(ps->p - item), item);
        return NULL;
      }
    }
    if (cls_add(ps, &ps->cls[idx], lo, hi)) return NULL;
  }
  ps->p++;
  node *n = new_node(ps, N_CLASS);
  if (n) n->arg = idx, n->fold = (flags & F_FOLD) != 0;
  return n;
}

/* ---- atoms, repetition, sequences --------------------------------------- */

static node *parse_alt(parser *ps, int *flags, int depth);

static node *class_node(parser *ps, const int32_t *r, int n, int neg) {
  int idx;
  if (!new_class(ps, &idx)) return NULL;
  if (cls_add_set(ps, &ps->cls[idx], r, n, neg)) return NULL;
  node *nd = new_node(ps, N_CLASS);
  if (nd) nd->arg = idx;
  return nd;
}

static node *assert_node(parser *ps, int kind) {
  node *n = new_node(ps, N_ASSERT);
  if (n) n->arg = kind;
  return n;
}

static node *lit_node(parser *ps, int32_t cp, int flags) {
  node *n = new_node(ps, N_LIT);
  if (n) n->arg = cp, n->fold = (flags & F_FOLD) != 0;
  return n;
}

static node *parse_escape_atom(parser *ps, int flags) {
  const char *from = ps->p++;
  if (ps->p >= ps->end) return fail(ps, "trailing \\"), NULL;
  int c = (unsigned char)*ps->p;
  const int32_t *r;
  int n;
  if (perl_class(c, &r, &n) && (c | 0x20) == c) {
    ps->p++;
    return class_node(ps, r, n, 0);
  }
  if (perl_class(c, &r, &n)) {
    ps->p++;
    return class_node(ps, r, n, 1);
  }
  switch (c) {
    case 'A': ps->p++; return assert_node(ps, A_BOT);
    case 'z': ps->p++; return assert_node(ps, A_EOT);
    case 'b': ps->p++; return assert_node(ps, A_WORDB);
    case 'B': ps->p++; return assert_node(ps, A_NWORDB);
    case 'p': case 'P': case 'C':
      bad_escape(ps, from);
      return NULL;
    default: break;
  }
  int32_t cp;
  if (escape_rune(ps, &cp)) return NULL;
  return lit_node(ps, cp, flags);
}

/* "(?flags)" or "(?flags:": updates *flags; returns 1 for a group with
 * its own flags (sets *group), 0 for a flag change, -1 on error. */
static int parse_flags(parser *ps, int *flags, int *group) {
  const char *from = ps->p - 2; /* "(?" */
  int f = *flags, neg = 0, any = 0;
  for (;;) {
    if (ps->p >= ps->end)
      return fail(ps, "invalid perl operator: %.*s", (int)(ps->end - from),
                  from);
    int32_t c;
    int len = tfs_utf8_decode((const unsigned char *)ps->p,
                              (size_t)(ps->end - ps->p), &c);
    ps->p += len;
    int bit = c == 'i' ? F_FOLD : c == 'm' ? F_MULTI : c == 's' ? F_DOTNL
              : c == 'U' ? F_UNGREEDY : 0;
    if (bit) {
      f = neg ? f & ~bit : f | bit;
      any = 1;
      continue;
    }
    if (c == '-' && !neg) {
      neg = 1, any = 0;
      continue;
    }
    if ((c == ')' || c == ':') && (any || !neg)) {
      *flags = f;
      *group = c == ':';
      return *group;
    }
    return fail(ps, "invalid perl operator: %.*s", (int)(ps->p - from),
                from);
  }
}

static int name_char(int c) {
  return c == '_' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
         (c >= 'A' && c <= 'Z');
}

/* After "(?P<": the group's name up to '>'. */
static int parse_name(parser *ps, const char *from) {
  const char *q = ps->p;
  while (q < ps->end && *q != '>') q++;
  if (q >= ps->end)
    return fail(ps, "invalid named capture group: %.*s",
                (int)(ps->end - from), from);
  int ok = q > ps->p;
  for (const char *s = ps->p; s < q; s++) ok &= name_char((unsigned char)*s);
  if (!ok)
    return fail(ps, "invalid named capture group: %.*s",
                (int)(q + 1 - from), from);
  char **nn = tfs_realloc(ps->names, sizeof(char *) * (size_t)(ps->nnames + 1));
  if (!nn) return oom(ps);
  ps->names = nn;
  if (!(ps->names[ps->nnames] = tfs_strndup(ps->p, (size_t)(q - ps->p))))
    return oom(ps);
  ps->nnames++;
  ps->p = q + 1;
  return 0;
}

static node *parse_group(parser *ps, int *flags, int depth) {
  const char *from = ps->p++; /* '(' */
  int inner = *flags, cap = 1;
  if (ps->p < ps->end && *ps->p == '?') {
    ps->p++;
    if (ps->end - ps->p >= 2 && ps->p[0] == 'P' && ps->p[1] == '<') {
      ps->p += 2;
      if (parse_name(ps, from)) return NULL;
    } else if (ps->p < ps->end && *ps->p == 'P') {
      return fail(ps, "invalid perl operator: %.*s",
                  (int)(ps->p + 1 - from), from), NULL;
    } else {
      int group = 0;
      int r = parse_flags(ps, &inner, &group);
      if (r < 0) return NULL;
      if (r == 0) {
        *flags = inner;
        ps->flag_change = 1;
        return new_node(ps, N_EMPTY);
      }
      cap = 0;
    }
  }
  int idx = cap ? ++ps->groups : 0;
  node *body = parse_alt(ps, &inner, depth + 1);
  if (!body) return NULL;
  if (ps->p >= ps->end || *ps->p != ')')
    return fail(ps, "missing ): %.*s", (int)(ps->end - ps->pat), ps->pat),
           NULL;
  ps->p++;
  if (!cap) return body;
  node *n = new_node(ps, N_CAP);
  if (n) n->a = body, n->arg = idx, n->reps = count_reps(body);
  return n;
}

static node *parse_atom(parser *ps, int *flags, int depth) {
  int32_t c;
  switch (*ps->p) {
    case '(': return parse_group(ps, flags, depth);
    case '[': return parse_class(ps, *flags);
    case '\\': return parse_escape_atom(ps, *flags);
    case '.': {
      ps->p++;
      node *n = new_node(ps, N_ANY);
      if (n) n->arg = (*flags & F_DOTNL) != 0;
      return n;
    }
    case '^':
      ps->p++;
      return assert_node(ps, *flags & F_MULTI ? A_BOL : A_BOT);
    case '$':
      ps->p++;
      return assert_node(ps, *flags & F_MULTI ? A_EOL : A_EOT);
    default:
      ps->p += tfs_utf8_decode((const unsigned char *)ps->p,
                               (size_t)(ps->end - ps->p), &c);
      if (c < 0) return fail(ps, "invalid UTF-8"), NULL;
      return lit_node(ps, c, *flags);
  }
}

/* A repetition operator at ps->p: sets min/max, advances; 0 when there
 * is none (a '{' that starts no valid count is a literal). */
static int parse_rep_op(parser *ps, int *min, int *max) {
  char c = *ps->p;
  if (c == '*' || c == '+' || c == '?') {
    *min = c == '+';
    *max = c == '?' ? 1 : -1;
    ps->p++;
    return 1;
  }
  if (c != '{') return 0;
  const char *q = ps->p + 1;
  long lo = 0, hi;
  int nd = 0;
  while (q < ps->end && *q >= '0' && *q <= '9' && lo < 100000)
    lo = lo * 10 + (*q++ - '0'), nd++;
  if (!nd || q >= ps->end) return 0;
  hi = lo;
  if (*q == ',') {
    q++;
    hi = -1;
    if (q < ps->end && *q >= '0' && *q <= '9') {
      hi = 0;
      while (q < ps->end && *q >= '0' && *q <= '9' && hi < 100000)
        hi = hi * 10 + (*q++ - '0');
    }
  }
  if (q >= ps->end || *q != '}') return 0;
  const char *from = ps->p;
  ps->p = q + 1;
  if (lo > TFS_REGEX_MAX_REPEAT || hi > TFS_REGEX_MAX_REPEAT ||
      (hi >= 0 && hi < lo))
    return fail(ps, "invalid repetition size: %.*s", (int)(ps->p - from),
                from);
  *min = (int)lo;
  *max = (int)hi;
  return 1;
}

static node *parse_concat(parser *ps, int *flags, int depth) {
  node *seq = new_node(ps, N_EMPTY);
  node *last = NULL;         /* the last item, repeatable */
  const char *last_rep = NULL; /* where the last item's repetition began */
  while (seq && ps->p < ps->end && *ps->p != '|' && *ps->p != ')') {
    const char *op = ps->p;
    int min = 0, max = 0, r = parse_rep_op(ps, &min, &max);
    if (r < 0) return NULL;
    if (r > 0) {
      const char *op_end = ps->p; /* before a lazy '?' */
      int greedy = 1;
      if (ps->p < ps->end && *ps->p == '?') greedy = 0, ps->p++;
      if (*flags & F_UNGREEDY) greedy = !greedy;
      if (last_rep)
        return fail(ps, "bad repetition operator: %.*s",
                    (int)(ps->p - last_rep), last_rep), NULL;
      if (!last)
        return fail(ps, "no argument for repetition operator: %.*s",
                    (int)(ps->p - op), op), NULL;
      node *rep = new_node(ps, N_REP);
      if (!rep) return NULL;
      rep->a = last->b, rep->min = min, rep->max = max, rep->greedy = greedy;
      rep->reps = count_reps(last->b);
      int count = max >= 0 ? max : min;
      if (*op == '{' && count > 0) {
        rep->reps *= count;
        if (rep->reps > TFS_REGEX_MAX_REPEAT)
          return fail(ps, "invalid repetition size: %.*s",
                      (int)(op_end - op), op), NULL;
      }
      last->b = rep;
      if (rep->reps > last->reps) last->reps = rep->reps;
      last_rep = op;
      continue;
    }
    if (ps->end - ps->p >= 2 && ps->p[0] == '\\' && ps->p[1] == 'Q') {
      ps->p += 2; /* \Q...\E: literals, each its own item */
      while (seq && ps->p < ps->end) {
        if (ps->end - ps->p >= 2 && ps->p[0] == '\\' && ps->p[1] == 'E') {
          ps->p += 2;
          break;
        }
        if (ps->end - ps->p >= 2 && ps->p[0] == '\\' && ps->p[1] == '\\')
          ps->p++;
        int32_t cp;
        ps->p += tfs_utf8_decode((const unsigned char *)ps->p,
                                 (size_t)(ps->end - ps->p), &cp);
        last = seq = pair(ps, N_CAT, seq, lit_node(ps, cp, *flags));
        last_rep = NULL;
      }
      continue;
    }
    node *atom = parse_atom(ps, flags, depth);
    if (!atom) return NULL;
    if (ps->flag_change) { /* nothing to repeat */
      ps->flag_change = 0;
      last = NULL;
      last_rep = NULL;
      continue;
    }
    seq = pair(ps, N_CAT, seq, atom);
    last = seq;
    last_rep = NULL;
  }
  return seq;
}

static node *parse_alt(parser *ps, int *flags, int depth) {
  if (depth > 1000) return fail(ps, "expression nests too deeply"), NULL;
  node *first = parse_concat(ps, flags, depth);
  node *tail = NULL; /* the last ALT node, whose b is still open */
  while (first && ps->p < ps->end && *ps->p == '|') {
    ps->p++;
    node *next = parse_concat(ps, flags, depth);
    if (!next) return NULL;
    if (!tail) {
      tail = first = pair(ps, N_ALT, first, next);
    } else {
      tail->b = pair(ps, N_ALT, tail->b, next);
      tail = tail->b;
    }
    if (!tail) return NULL;
    if (count_reps(next) > first->reps) first->reps = count_reps(next);
  }
  return first;
}

/* ---- compiler ----------------------------------------------------------- */

enum {
  I_CHAR, I_ANY, I_CLASS, I_SPLIT, I_JMP, I_SAVE, I_MATCH, I_ASSERT
};

typedef struct inst {
  uint8_t op, fold;
  int32_t x, y;
} inst;

typedef struct {
  inst *prog;
  int n, cap;
  parser *ps;
} compiler;

static int emit(compiler *cc, int op, int32_t x, int32_t y) {
  if (cc->n >= TFS_REGEX_MAX_INSTS)
    return fail(cc->ps, "pattern too large - compile failed");
  if (cc->n == cc->cap) {
    int cap = cc->cap ? cc->cap * 2 : 64;
    inst *p = tfs_realloc(cc->prog, sizeof(inst) * (size_t)cap);
    if (!p) return oom(cc->ps);
    cc->prog = p;
    cc->cap = cap;
  }
  cc->prog[cc->n] = (inst){(uint8_t)op, 0, x, y};
  return cc->n++;
}

static int compile(compiler *cc, const node *n);

/* A left-leaning chain of CAT nodes, in order, without recursing down
 * the chain (a long literal makes a long one). */
static int compile_cat(compiler *cc, const node *n) {
  int len = 0;
  for (const node *k = n; k->type == N_CAT; k = k->a) len++;
  const node **items = tfs_malloc(sizeof(node *) * (size_t)len);
  if (!items) return oom(cc->ps);
  const node *k = n;
  for (int i = len - 1; i >= 0; i--, k = k->a) items[i] = k->b;
  int rc = compile(cc, k);
  for (int i = 0; i < len && rc == 0; i++) rc = compile(cc, items[i]);
  tfs_free(items);
  return rc;
}

/* Whether n can match the empty string. */
static int nullable(const node *n) {
  for (;;) {
    switch (n->type) {
      case N_EMPTY:
      case N_ASSERT:
        return 1;
      case N_LIT:
      case N_ANY:
      case N_CLASS:
        return 0;
      case N_CAP:
        n = n->a;
        continue;
      case N_REP:
        if (n->min == 0) return 1;
        n = n->a;
        continue;
      case N_CAT: /* a left-leaning chain */
        if (!nullable(n->b)) return 0;
        n = n->a;
        continue;
      case N_ALT: /* a right-leaning chain */
        if (nullable(n->a)) return 1;
        n = n->b;
        continue;
      default:
        return 0;
    }
  }
}

/* x{min,max} by copies of x, as RE2 expands it: x{n,} is n-1 copies and
 * x+; x* is a loop, or (x+)? when x can match empty (so that an empty
 * pass through x leaves the loop before x's other choices are tried);
 * x{n,m} is n copies and m-n nested optional ones. */
static int compile_rep(compiler *cc, const node *n) {
  int copies = n->max < 0 && n->min > 0 ? n->min - 1 : n->min;
  for (int i = 0; i < copies; i++)
    if (compile(cc, n->a)) return -1;
  if (n->max < 0 && n->min == 0 && !nullable(n->a)) {
    /* x* of an x that cannot match empty: the plain loop */
    int split = emit(cc, I_SPLIT, 0, 0);
    if (split < 0 || compile(cc, n->a) || emit(cc, I_JMP, split, 0) < 0)
      return -1;
    cc->prog[split].x = n->greedy ? split + 1 : cc->n;
    cc->prog[split].y = n->greedy ? cc->n : split + 1;
    return 0;
  }
  if (n->max < 0) {
    int quest = n->min == 0 ? emit(cc, I_SPLIT, 0, 0) : -2;
    if (quest == -1) return -1;
    int body = cc->n;
    if (compile(cc, n->a)) return -1;
    int loop = emit(cc, I_SPLIT, 0, 0);
    if (loop < 0) return -1;
    int out = cc->n;
    cc->prog[loop].x = n->greedy ? body : out;
    cc->prog[loop].y = n->greedy ? out : body;
    if (quest >= 0) {
      cc->prog[quest].x = n->greedy ? body : out;
      cc->prog[quest].y = n->greedy ? out : body;
    }
    return 0;
  }
  /* the optional copies' splits, linked through x until patched */
  int pending = -1;
  for (int i = n->min; i < n->max; i++) {
    int split = emit(cc, I_SPLIT, pending, 0);
    if (split < 0 || compile(cc, n->a)) return -1;
    pending = split;
  }
  while (pending >= 0) {
    int prev = cc->prog[pending].x;
    cc->prog[pending].x = n->greedy ? pending + 1 : cc->n;
    cc->prog[pending].y = n->greedy ? cc->n : pending + 1;
    pending = prev;
  }
  return 0;
}

static int compile(compiler *cc, const node *n) {
  int i;
  switch (n->type) {
    case N_EMPTY:
      return 0;
    case N_LIT:
      if ((i = emit(cc, I_CHAR, n->fold ? tfs_unicode_lower(
                                              tfs_unicode_upper(n->arg))
                                        : n->arg, 0)) < 0)
        return -1;
      cc->prog[i].fold = (uint8_t)n->fold;
      return 0;
    case N_ANY:
      return emit(cc, I_ANY, n->arg, 0) < 0 ? -1 : 0;
    case N_CLASS:
      if ((i = emit(cc, I_CLASS, n->arg, 0)) < 0) return -1;
      cc->prog[i].fold = (uint8_t)n->fold;
      return 0;
    case N_ASSERT:
      return emit(cc, I_ASSERT, n->arg, 0) < 0 ? -1 : 0;
    case N_CAT:
      return compile_cat(cc, n);
    case N_CAP:
      if (emit(cc, I_SAVE, 2 * n->arg, 0) < 0 || compile(cc, n->a) ||
          emit(cc, I_SAVE, 2 * n->arg + 1, 0) < 0)
        return -1;
      return 0;
    case N_ALT: {
      /* a right-leaning chain: split, first, jump to the end, next... */
      int pending = -1;
      for (; n->type == N_ALT; n = n->b) {
        int split = emit(cc, I_SPLIT, 0, 0);
        if (split < 0 || compile(cc, n->a)) return -1;
        int jmp = emit(cc, I_JMP, pending, 0);
        if (jmp < 0) return -1;
        pending = jmp;
        cc->prog[split].x = split + 1;
        cc->prog[split].y = cc->n;
      }
      if (compile(cc, n)) return -1;
      while (pending >= 0) {
        int prev = cc->prog[pending].x;
        cc->prog[pending].x = cc->n;
        pending = prev;
      }
      return 0;
    }
    case N_REP:
      return compile_rep(cc, n);
    default:
      return -1;
  }
}

static void parser_free(parser *ps, int keep_classes) {
  for (int i = 0; i < ps->nnodes; i++) tfs_free(ps->nodes[i]);
  tfs_free(ps->nodes);
  for (int i = 0; i < ps->nnames; i++) tfs_free(ps->names[i]);
  tfs_free(ps->names);
  if (!keep_classes) {
    for (int i = 0; i < ps->ncls; i++) tfs_free(ps->cls[i].r);
    tfs_free(ps->cls);
  }
}

tfs_regex *tfs_regex_compile(const char *pat, size_t n, char *err,
                             size_t errcap) {
  parser ps = {.pat = pat, .p = pat, .end = pat + n, .err = err,
               .errcap = errcap};
  if (errcap) err[0] = 0;
  int flags = 0;
  node *root = parse_alt(&ps, &flags, 0);
  if (root && ps.p < ps.end) /* stopped at an unmatched ')' */
    fail(&ps, "unexpected ): %.*s", (int)n, pat);
  compiler cc = {.ps = &ps};
  if (root && !ps.failed) {
    node whole = {.type = N_CAP, .a = root, .arg = 0};
    if (compile(&cc, &whole) == 0) emit(&cc, I_MATCH, 0, 0);
  }
  tfs_regex *re = ps.failed ? NULL : tfs_calloc(1, sizeof(*re));
  if (!re) {
    if (!ps.failed) oom(&ps);
    tfs_free(cc.prog);
    parser_free(&ps, 0);
    return NULL;
  }
  re->prog = cc.prog;
  re->ninst = cc.n;
  re->groups = ps.groups;
  re->cls = ps.cls;
  re->ncls = ps.ncls;
  parser_free(&ps, 1);
  return re;
}

void tfs_regex_free(tfs_regex *re) {
  if (!re) return;
  for (int i = 0; i < re->ncls; i++) tfs_free(re->cls[i].r);
  tfs_free(re->cls);
  tfs_free(re->prog);
  tfs_free(re);
}

int tfs_regex_groups(const tfs_regex *re) { return re->groups; }

/* ---- Pike VM ------------------------------------------------------------ */

typedef struct {
  int n;
  int *pc;
  int64_t *caps; /* nslot per thread */
} tlist;

enum { S_EXPLORE, S_RESTORE };
typedef struct {
  int kind;
  int a;
  int64_t v;
} frame;

struct tfs_regex_matcher {
  const tfs_regex *re;
  int nslot;
  tlist l[2];
  uint32_t *mark; /* per instruction: the generation that added it */
  uint32_t gen;
  tlist mid;       /* empty matches inside a character (mid_empty) */
  uint32_t *mid_mark;
  uint32_t mid_gen;
  frame *stack;
  int64_t *cur;
};

tfs_regex_matcher *tfs_regex_matcher_new(const tfs_regex *re, int ncap) {
  if (ncap < 0 || ncap > re->groups + 1) return NULL;
  tfs_regex_matcher *m = tfs_calloc(1, sizeof(*m));
  if (!m) return NULL;
  size_t ni = (size_t)re->ninst;
  m->re = re;
  m->nslot = 2 * ncap;
  size_t ns = (size_t)m->nslot;
  int ok = 1;
  for (int i = 0; i < 2; i++) {
    m->l[i].pc = tfs_malloc(sizeof(int) * ni);
    m->l[i].caps = tfs_malloc(sizeof(int64_t) * (ni * ns + 1));
    ok &= m->l[i].pc && m->l[i].caps;
  }
  m->mid.pc = tfs_malloc(sizeof(int) * ni);
  m->mid.caps = tfs_malloc(sizeof(int64_t) * (ni * ns + 1));
  m->mid_mark = tfs_calloc(ni, sizeof(uint32_t));
  ok &= m->mid.pc && m->mid.caps && m->mid_mark;
  m->mark = tfs_calloc(ni, sizeof(uint32_t));
  m->stack = tfs_malloc(sizeof(frame) * (2 * ni + 2));
  m->cur = tfs_malloc(sizeof(int64_t) * (ns + 1));
  if (!ok || !m->mark || !m->stack || !m->cur) {
    tfs_regex_matcher_free(m);
    return NULL;
  }
  return m;
}

void tfs_regex_matcher_free(tfs_regex_matcher *m) {
  if (!m) return;
  for (int i = 0; i < 2; i++) {
    tfs_free(m->l[i].pc);
    tfs_free(m->l[i].caps);
  }
  tfs_free(m->mid.pc);
  tfs_free(m->mid.caps);
  tfs_free(m->mid_mark);
  tfs_free(m->mark);
  tfs_free(m->stack);
  tfs_free(m->cur);
  tfs_free(m);
}

static int is_word(const char *t, size_t n, size_t i) {
  if (i >= n) return 0;
  unsigned char c = (unsigned char)t[i];
  return name_char(c);
}

static int assert_ok(int kind, const char *t, size_t n, size_t p) {
  switch (kind) {
    case A_BOT: return p == 0;
    case A_EOT: return p == n;
    case A_BOL: return p == 0 || t[p - 1] == '\n';
    case A_EOL: return p == n || t[p] == '\n';
    case A_WORDB:
    case A_NWORDB: {
      int b = (p > 0 && is_word(t, n, p - 1)) != is_word(t, n, p);
      return kind == A_WORDB ? b : !b;
    }
    default: return 0;
  }
}

/* Adds the thread at pc0 with captures caps (and everything it reaches
 * without consuming input at text position p) to list l. */
static void add_thread(tfs_regex_matcher *m, tlist *l, uint32_t *mark,
                       uint32_t gen, int pc0, const int64_t *caps,
                       const char *t, size_t n, size_t p) {
  const inst *prog = m->re->prog;
  int ns = m->nslot, sp = 0;
  if (ns) memcpy(m->cur, caps, sizeof(int64_t) * (size_t)ns);
  m->stack[sp++] = (frame){S_EXPLORE, pc0, 0};
  while (sp > 0) {
    frame f = m->stack[--sp];
    if (f.kind == S_RESTORE) {
      m->cur[f.a] = f.v;
      continue;
    }
    int pc = f.a;
    if (mark[pc] == gen) continue;
    mark[pc] = gen;
    const inst *in = &prog[pc];
    switch (in->op) {
      case I_JMP:
        m->stack[sp++] = (frame){S_EXPLORE, in->x, 0};
        break;
      case I_SPLIT:
        m->stack[sp++] = (frame){S_EXPLORE, in->y, 0};
        m->stack[sp++] = (frame){S_EXPLORE, in->x, 0};
        break;
      case I_SAVE:
        if (in->x < ns) {
          m->stack[sp++] = (frame){S_RESTORE, in->x, m->cur[in->x]};
          m->cur[in->x] = (int64_t)p;
        }
        m->stack[sp++] = (frame){S_EXPLORE, pc + 1, 0};
        break;
      case I_ASSERT:
        if (assert_ok(in->x, t, n, p))
          m->stack[sp++] = (frame){S_EXPLORE, pc + 1, 0};
        break;
      default:
        l->pc[l->n] = pc;
        if (ns)
          memcpy(&l->caps[(size_t)l->n * (size_t)ns], m->cur,
                 sizeof(int64_t) * (size_t)ns);
        l->n++;
        break;
    }
  }
}

static int fold_eq(int32_t c, int32_t folded) {
  return c >= 0 && tfs_unicode_lower(tfs_unicode_upper(c)) == folded;
}

static int class_match(const tfs_regex *re, const inst *in, int32_t c) {
  const rclass *k = &re->cls[in->x];
  if (c < 0) return 0;
  int has = cls_has(k, c);
  if (!has && in->fold)
    has = cls_has(k, tfs_unicode_lower(c)) ||
          cls_has(k, tfs_unicode_upper(c)) ||
          cls_has(k, tfs_unicode_lower(tfs_unicode_upper(c)));
  return k->neg ? !has : has;
}

static int step_ok(const tfs_regex *re, const inst *in, int32_t c) {
  switch (in->op) {
    case I_CHAR: return in->fold ? fold_eq(c, in->x) : c == in->x;
    case I_ANY: return c >= 0 && (in->x || c != '\n');
    case I_CLASS: return class_match(re, in, c);
    default: return 0;
  }
}

static void next_gen(tfs_regex_matcher *m) {
  if (++m->gen == 0) {
    memset(m->mark, 0, sizeof(uint32_t) * (size_t)m->re->ninst);
    m->gen = 1;
  }
}

/* RE2's unanchored search starts at every byte, so an empty match may
 * begin inside a multi-byte character (where only empty-width items can
 * match: \B between two continuation bytes).  Whether the program
 * matches the empty string at q; its captures into caps. */
static int mid_empty(tfs_regex_matcher *m, const char *t, size_t n,
                     size_t q, int64_t *caps) {
  int ns = m->nslot;
  if (++m->mid_gen == 0) {
    memset(m->mid_mark, 0, sizeof(uint32_t) * (size_t)m->re->ninst);
    m->mid_gen = 1;
  }
  for (int i = 0; i < ns; i++) m->cur[i] = -1;
  int64_t blank[1];
  m->mid.n = 0;
  add_thread(m, &m->mid, m->mid_mark, m->mid_gen, 0, ns ? m->cur : blank,
             t, n, q);
  for (int i = 0; i < m->mid.n; i++)
    if (m->re->prog[m->mid.pc[i]].op == I_MATCH) {
      if (ns)
        memcpy(caps, &m->mid.caps[(size_t)i * (size_t)ns],
               sizeof(int64_t) * (size_t)ns);
      return 1;
    }
  return 0;
}

int tfs_regex_exec(tfs_regex_matcher *m, const char *text, size_t n,
                   size_t start, int anchor, int64_t *caps) {
  const tfs_regex *re = m->re;
  int ns = m->nslot, matched = 0;
  tlist *cl = &m->l[0], *nl = &m->l[1];
  cl->n = 0;
  next_gen(m);
  for (size_t p = start;;) {
    if (!matched && (anchor == TFS_REGEX_UNANCHORED || p == start)) {
      for (int i = 0; i < ns; i++) m->cur[i] = -1;
      int64_t blank[1];
      add_thread(m, cl, m->mark, m->gen, 0, ns ? m->cur : blank, text, n,
                 p);
    }
    int32_t c = -2;
    int len = 0;
    if (p < n)
      len = tfs_utf8_decode((const unsigned char *)text + p, n - p, &c);
    if (cl->n == 0) { /* no thread: only a later start can match */
      if (matched || anchor != TFS_REGEX_UNANCHORED || p >= n) break;
      for (size_t q = p + 1; !matched && q < p + (size_t)len; q++)
        matched = mid_empty(m, text, n, q, caps);
      if (matched) break;
      next_gen(m);
      p += (size_t)len;
      continue;
    }
    next_gen(m);
    nl->n = 0;
    for (int i = 0; i < cl->n; i++) {
      const inst *in = &re->prog[cl->pc[i]];
      const int64_t *tc = &cl->caps[(size_t)i * (size_t)ns];
      if (in->op == I_MATCH) {
        if (anchor == TFS_REGEX_ANCHOR_BOTH && p != n) continue;
        matched = 1;
        if (ns) memcpy(caps, tc, sizeof(int64_t) * (size_t)ns);
        break; /* lower-priority threads lose */
      }
      if (p < n && step_ok(re, in, c))
        add_thread(m, nl, m->mark, m->gen, cl->pc[i] + 1, tc, text, n,
                   p + (size_t)len);
    }
    for (size_t q = p + 1; !matched && anchor == TFS_REGEX_UNANCHORED &&
                           q < p + (size_t)len; q++)
      matched = mid_empty(m, text, n, q, caps);
    tlist *tmp = cl;
    cl = nl;
    nl = tmp;
    if (p >= n) break;
    p += (size_t)len;
  }
  return matched;
}
