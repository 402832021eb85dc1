/*
 * io/npy.c - NumPy .npy files: the header (a Python dict literal after a
 * magic string), dtype mapping, byte swapping and Fortran-order
 * transposition on read, and whole-tensor read and write.
 */
#include "io/npy.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/alloc.h"
#include "core/shape.h"
#include "core/status.h"
#include "core/tensor.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define HOST_ORDER '>'
#else
#define HOST_ORDER '<'
#endif

/* ---- files --------------------------------------------------------------- */

void tfs_io__errno(tfs_status *st, const char *path, const char *what) {
  int e = errno;
  tfs_code code = TFS_INVALID_ARGUMENT;
  if (e == ENOENT || e == ENOTDIR)
    code = TFS_NOT_FOUND;
  else if (e == EACCES || e == EPERM || e == EROFS)
    code = TFS_PERMISSION_DENIED;
  else if (e == ENOSPC || e == ENOMEM)
    code = TFS_RESOURCE_EXHAUSTED;
  tfs_status_setf(st, code, "%s: %s: %s", path, what,
                  e ? strerror(e) : "unexpected end of file");
}

FILE *tfs_io__open_read(const char *path, uint64_t *size, tfs_status *st) {
  errno = 0;
  FILE *f = fopen(path, "rb");
  if (!f) {
    tfs_io__errno(st, path, "cannot open");
    return NULL;
  }
  struct stat sb;
  if (fstat(fileno(f), &sb) != 0) {
    tfs_io__errno(st, path, "cannot stat");
    fclose(f);
    return NULL;
  }
  if (S_ISDIR(sb.st_mode)) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT, "%s: is a directory", path);
    fclose(f);
    return NULL;
  }
  *size = (uint64_t)sb.st_size;
  return f;
}

FILE *tfs_io__open_write(const char *path, const char *mode, tfs_status *st) {
  errno = 0;
  FILE *f = fopen(path, mode);
  if (!f) tfs_io__errno(st, path, "cannot open for writing");
  return f;
}

/* ---- dtypes -------------------------------------------------------------- */

typedef struct {
  char kind;
  unsigned size;
  tfs_dtype dt;
} npy_type;

static const npy_type kTypes[] = {
    {'b', 1, TFS_BOOL},      {'i', 1, TFS_INT8},        {'i', 2, TFS_INT16},
    {'i', 4, TFS_INT32},     {'i', 8, TFS_INT64},       {'u', 1, TFS_UINT8},
    {'u', 2, TFS_UINT16},    {'u', 4, TFS_UINT32},      {'u', 8, TFS_UINT64},
    {'f', 2, TFS_HALF},      {'f', 4, TFS_FLOAT},       {'f', 8, TFS_DOUBLE},
    {'c', 8, TFS_COMPLEX64}, {'c', 16, TFS_COMPLEX128},
};

/* Parses a descr like "<f4", "|b1", "|S7", ">i8" into h. */
static int parse_descr(const char *d, const char *name, tfs_npy_header *h,
                       tfs_status *st) {
  const char *p = d;
  char order = '|';
  if (*p == '<' || *p == '>' || *p == '|' || *p == '=') order = *p++;
  char kind = *p ? *p++ : 0;
  unsigned long size = 0;
  int ndig = 0;
  while (*p >= '0' && *p <= '9' && ndig < 9) {
    size = size * 10 + (unsigned)(*p++ - '0');
    ndig++;
  }
  if (kind == 'U' || kind == 'w') {
    tfs_status_setf(st, TFS_UNIMPLEMENTED,
                    "%s: dtype '%s' (unicode strings) is not supported; save "
                    "byte strings (dtype 'S') instead",
                    name, d);
    return -1;
  }
  if (kind == 'O') {
    tfs_status_setf(st, TFS_UNIMPLEMENTED,
                    "%s: dtype '%s' (Python objects) is not supported: "
                    "object arrays need pickle",
                    name, d);
    return -1;
  }
  if (*p || !kind || (ndig == 0 && kind != 'S' && kind != 'a')) goto bad;
  if (kind == 'S' || kind == 'a') {
    h->dtype = TFS_STRING;
    h->elem_size = size;
    h->swap = 0;
    return 0;
  }
  for (size_t i = 0; i < TFS_ARRAY_LEN(kTypes); i++) {
    if (kTypes[i].kind == kind && kTypes[i].size == size) {
      h->dtype = kTypes[i].dt;
      h->elem_size = size;
      h->swap = size > 1 && order != '|' && order != '=' && order != HOST_ORDER;
      return 0;
    }
  }
bad:
  tfs_status_setf(st, TFS_UNIMPLEMENTED,
                  "%s: dtype '%s' is not supported (bool, int8-64, "
                  "uint8-64, float16/32/64, complex64/128 and byte strings "
                  "are)",
                  name, d);
  return -1;
}

/* The descr tfsess writes for dt; NULL when numpy has no such type. */
static const char *descr_of(tfs_dtype dt, char *buf, size_t cap, size_t width) {
  if (dt == TFS_STRING) {
    snprintf(buf, cap, "|S%zu", width);
    return buf;
  }
  for (size_t i = 0; i < TFS_ARRAY_LEN(kTypes); i++) {
    if (kTypes[i].dt != dt) continue;
    snprintf(buf, cap, "%c%c%u", kTypes[i].size == 1 ? '|' : HOST_ORDER,
             kTypes[i].kind, kTypes[i].size);
    return buf;
  }
  return NULL;
}

/* ---- header dict parser -------------------------------------------------- */

typedef struct {
  const char *s, *p, *end;
  const char *name;
  tfs_status *st;
} lexer;

static void skip_ws(lexer *L) {
  while (L->p < L->end &&
         (*L->p == ' ' || *L->p == '\t' || *L->p == '\n' || *L->p == '\r'))
    L->p++;
}

static int lex_fail(lexer *L, const char *what) {
  tfs_status_setf(L->st, TFS_INVALID_ARGUMENT,
                  "%s: malformed .npy header: %s at column %d", L->name, what,
                  (int)(L->p - L->s) + 1);
  return -1;
}

/* A quoted Python string without escapes into buf. */
static int lex_string(lexer *L, char *buf, size_t cap) {
  skip_ws(L);
  if (L->p >= L->end || (*L->p != '\'' && *L->p != '"'))
    return lex_fail(L, "expected a quoted string");
  char q = *L->p++;
  size_t n = 0;
  while (L->p < L->end && *L->p != q) {
    /* a NUL would end the C string early: "descr\0junk" is no key */
    if (*L->p == '\\' || *L->p == 0 || n + 1 >= cap)
      return lex_fail(L, "unexpected string contents");
    buf[n++] = *L->p++;
  }
  if (L->p >= L->end) return lex_fail(L, "unterminated string");
  L->p++;
  buf[n] = 0;
  return 0;
}

static int lex_char(lexer *L, char c, const char *what) {
  skip_ws(L);
  if (L->p >= L->end || *L->p != c) return lex_fail(L, what);
  L->p++;
  return 0;
}

static int lex_bool(lexer *L, int *out) {
  skip_ws(L);
  size_t left = (size_t)(L->end - L->p);
  if (left >= 4 && memcmp(L->p, "True", 4) == 0) {
    L->p += 4;
    *out = 1;
    return 0;
  }
  if (left >= 5 && memcmp(L->p, "False", 5) == 0) {
    L->p += 5;
    *out = 0;
    return 0;
  }
  return lex_fail(L, "expected True or False");
}

/* "(3, 4)", "(3,)", "()", also Python 2's "(3L, 4L)". */
static int lex_shape(lexer *L, tfs_npy_header *h) {
  if (lex_char(L, '(', "expected '(' starting the shape")) return -1;
  h->ndims = 0;
  for (;;) {
    skip_ws(L);
    if (L->p < L->end && *L->p == ')') {
      L->p++;
      return 0;
    }
    if (L->p >= L->end || *L->p < '0' || *L->p > '9')
      return lex_fail(L, "expected a non-negative dimension in the shape");
    int64_t v = 0;
    while (L->p < L->end && *L->p >= '0' && *L->p <= '9') {
      if (tfs_mul_overflow_i64(v, 10, &v) ||
          tfs_add_overflow_i64(v, *L->p - '0', &v))
        return lex_fail(L, "dimension too large");
      L->p++;
    }
    if (L->p < L->end && *L->p == 'L') L->p++;
    if (h->ndims >= TFS_MAX_RANK) {
      tfs_status_setf(L->st, TFS_INVALID_ARGUMENT,
                      "%s: shape has more than %d dimensions", L->name,
                      TFS_MAX_RANK);
      return -1;
    }
    h->dims[h->ndims++] = v;
    skip_ws(L);
    if (L->p < L->end && *L->p == ',') {
      L->p++;
      continue;
    }
    if (lex_char(L, ')', "expected ',' or ')' in the shape")) return -1;
    return 0;
  }
}

/* One "key: value" entry; *seen collects which keys appeared. */
static int lex_entry(lexer *L, tfs_npy_header *h, unsigned *seen) {
  char key[32];
  if (lex_string(L, key, sizeof key)) return -1;
  if (lex_char(L, ':', "expected ':' after a key")) return -1;
  unsigned bit;
  if (strcmp(key, "descr") == 0) {
    bit = 1;
    skip_ws(L);
    if (L->p < L->end && *L->p == '[') {
      tfs_status_setf(L->st, TFS_UNIMPLEMENTED,
                      "%s: structured dtypes (record arrays) are not "
                      "supported",
                      L->name);
      return -1;
    }
    if (lex_string(L, h->descr, sizeof h->descr)) return -1;
  } else if (strcmp(key, "fortran_order") == 0) {
    bit = 2;
    if (lex_bool(L, &h->fortran_order)) return -1;
  } else if (strcmp(key, "shape") == 0) {
    bit = 4;
    if (lex_shape(L, h)) return -1;
  } else {
    tfs_status_setf(L->st, TFS_INVALID_ARGUMENT,
                    "%s: malformed .npy header: unexpected key '%s'", L->name,
                    key);
    return -1;
  }
  if (*seen & bit) {
    tfs_status_setf(L->st, TFS_INVALID_ARGUMENT,
                    "%s: malformed .npy header: key '%s' appears twice",
                    L->name, key);
    return -1;
  }
  *seen |= bit;
  return 0;
}

static int parse_dict(const char *text, size_t len, const char *name,
                      tfs_npy_header *h, tfs_status *st) {
  lexer L = {text, text, text + len, name, st};
  unsigned seen = 0;
  if (lex_char(&L, '{', "expected '{'")) return -1;
  for (;;) {
    skip_ws(&L);
    if (L.p < L.end && *L.p == '}') break;
    if (lex_entry(&L, h, &seen)) return -1;
    skip_ws(&L);
    if (L.p < L.end && *L.p == ',') {
      L.p++;
      continue;
    }
    if (L.p >= L.end || *L.p != '}') return lex_fail(&L, "expected ',' or '}'");
    break;
  }
  L.p++; /* the '}' */
  skip_ws(&L);
  if (L.p != L.end) {
    /* NUL padding is tolerated; anything else is not. */
    while (L.p < L.end && *L.p == 0) L.p++;
    if (L.p != L.end) return lex_fail(&L, "unexpected text after the dict");
  }
  static const char *const keys[] = {"descr", "fortran_order", "shape"};
  for (int i = 0; i < 3; i++) {
    if (!(seen & (1u << i))) {
      tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                      "%s: malformed .npy header: no '%s' key", name, keys[i]);
      return -1;
    }
  }
  return 0;
}

/* ---- header -------------------------------------------------------------- */

int tfs_npy__preamble(const uint8_t *buf, size_t len, const char *name,
                      size_t *total, tfs_status *st) {
  if (len < 8 || memcmp(buf, TFS_NPY_MAGIC, TFS_NPY_MAGIC_LEN) != 0) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "%s: not a .npy file (it does not start with the magic "
                    "\"\\x93NUMPY\")",
                    name);
    return -1;
  }
  int major = buf[6], minor = buf[7];
  if ((major != 1 && major != 2 && major != 3) || minor != 0) {
    tfs_status_setf(st, TFS_UNIMPLEMENTED,
                    "%s: .npy format version %d.%d is not supported (1.0, "
                    "2.0 and 3.0 are)",
                    name, major, minor);
    return -1;
  }
  size_t need = major == 1 ? 10 : 12;
  if (len < need) {
    tfs_status_setf(st, TFS_DATA_LOSS,
                    "%s: truncated .npy header (file has %zu bytes)", name,
                    len);
    return -1;
  }
  uint64_t hlen = major == 1
                      ? (uint64_t)buf[8] | (uint64_t)buf[9] << 8
                      : (uint64_t)buf[8] | (uint64_t)buf[9] << 8 |
                            (uint64_t)buf[10] << 16 | (uint64_t)buf[11] << 24;
  if (hlen > (1u << 30)) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "%s: .npy header length %llu is implausible", name,
                    (unsigned long long)hlen);
    return -1;
  }
  *total = need + (size_t)hlen;
  return 0;
}

int tfs_npy__parse_header(const uint8_t *buf, size_t len, const char *name,
                          tfs_npy_header *h, tfs_status *st) {
  size_t total;
  memset(h, 0, sizeof *h);
  if (tfs_npy__preamble(buf, len, name, &total, st)) return -1;
  if (len < total) {
    tfs_status_setf(st, TFS_DATA_LOSS,
                    "%s: truncated .npy header (needs %zu bytes, file has "
                    "%zu)",
                    name, total, len);
    return -1;
  }
  size_t start = buf[6] == 1 ? 10 : 12;
  if (parse_dict((const char *)buf + start, total - start, name, h, st))
    return -1;
  if (parse_descr(h->descr, name, h, st)) return -1;
  /* NumPy's rule: the product of the non-zero dims times the element size
   * fits, even when a 0 dim empties the array, so that any sub-product
   * (a row: dims[1:]) and any byte count derived from it fit as well */
  int64_t nonzero = 1, n = 1, bytes;
  for (int i = 0; i < h->ndims; i++) {
    if (h->dims[i] == 0)
      n = 0;
    else if (tfs_mul_overflow_i64(nonzero, h->dims[i], &nonzero))
      goto too_big;
  }
  if (tfs_mul_overflow_i64(nonzero, h->elem_size ? (int64_t)h->elem_size : 1,
                           &bytes))
    goto too_big;
  if (n) n = nonzero;
  if (n > 0 && h->elem_size == 0) {
    /* '|S0', '|S', '>a': nothing in the file would back the elements */
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "%s: dtype '%s' has elements of 0 bytes, which cannot "
                    "hold a non-empty array",
                    name, h->descr);
    return -1;
  }
  if (n == 0) bytes = 0;
  h->nelems = n;
  h->data_bytes = (uint64_t)bytes;
  h->data_offset = total;
  if (h->ndims < 2) h->fortran_order = 0; /* same layout either way */
  tfs_status_clear(st);
  return 0;
too_big:
  tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                  "%s: shape in the .npy header overflows (too many elements)",
                  name);
  return -1;
}

static const char *dims_str(const int64_t *dims, int n, char *buf, size_t cap) {
  tfs_shape s;
  s.rank = n;
  for (int i = 0; i < n; i++) s.dims[i] = dims[i];
  return tfs_shape_str(&s, buf, cap);
}

static int check_data_size(const tfs_npy_header *h, uint64_t have,
                           const char *name, tfs_status *st) {
  if (have >= h->data_bytes) return 0;
  char sb[TFS_SHAPE_STRLEN];
  tfs_status_setf(st, TFS_DATA_LOSS,
                  "%s: data is truncated: shape %s of '%s' needs %llu bytes "
                  "after the header, the file has %llu",
                  name, dims_str(h->dims, h->ndims, sb, sizeof sb), h->descr,
                  (unsigned long long)h->data_bytes, (unsigned long long)have);
  return -1;
}

int tfs_npy__read_header(FILE *f, uint64_t file_size, const char *name,
                         tfs_npy_header *h, tfs_status *st) {
  uint8_t pre[TFS_NPY_PREAMBLE_MAX];
  size_t got = fread(pre, 1, sizeof pre, f);
  size_t total;
  if (tfs_npy__preamble(pre, got, name, &total, st)) return -1;
  if (total > file_size) {
    tfs_status_setf(st, TFS_DATA_LOSS,
                    "%s: truncated .npy header (needs %zu bytes, file has "
                    "%llu)",
                    name, total, (unsigned long long)file_size);
    return -1;
  }
  uint8_t *buf = tfs_malloc(total);
  if (!buf) {
    TFS_OOM(st);
    return -1;
  }
  memcpy(buf, pre, got < total ? got : total);
  int rc = -1;
  if (got < total && fread(buf + got, 1, total - got, f) != total - got) {
    tfs_io__errno(st, name, "cannot read the .npy header");
    goto out;
  }
  if (tfs_npy__parse_header(buf, total, name, h, st)) goto out;
  if (check_data_size(h, file_size - total, name, st)) goto out;
  if (fseeko(f, (off_t)total, SEEK_SET) != 0) {
    tfs_io__errno(st, name, "cannot seek");
    goto out;
  }
  rc = 0;
out:
  tfs_free(buf);
  return rc;
}

/* ---- decoding ------------------------------------------------------------ */

static void swap_bytes(uint8_t *p, int64_t n, size_t esize, int complex_) {
  size_t w = complex_ ? esize / 2 : esize; /* complex: swap each half */
  int64_t count = complex_ ? n * 2 : n;
  for (int64_t i = 0; i < count; i++, p += w) {
    for (size_t a = 0, b = w - 1; a < b; a++, b--) {
      uint8_t t = p[a];
      p[a] = p[b];
      p[b] = t;
    }
  }
}

/* C-order dst from Fortran-order src, both of `dims`. */
static void fortran_to_c(uint8_t *dst, const uint8_t *src, const int64_t *dims,
                         int nd, size_t esize, int64_t n) {
  int64_t idx[TFS_MAX_RANK] = {0}, fstride[TFS_MAX_RANK];
  int64_t s = 1;
  for (int k = 0; k < nd; k++) {
    fstride[k] = s;
    s *= dims[k];
  }
  int64_t off = 0;
  for (int64_t i = 0; i < n; i++) {
    memcpy(dst + (size_t)i * esize, src + (size_t)off * esize, esize);
    for (int k = nd - 1; k >= 0; k--) { /* C order: last dim fastest */
      idx[k]++;
      off += fstride[k];
      if (idx[k] < dims[k]) break;
      off -= fstride[k] * dims[k];
      idx[k] = 0;
    }
  }
}

static tfs_tensor *decode_strings(const tfs_npy_header *h, const uint8_t *data,
                                  const int64_t *dims, int nd, int64_t n,
                                  tfs_status *st) {
  tfs_tensor *t = tfs_tensor_new(TFS_STRING, dims, nd, st);
  if (!t) return NULL;
  size_t w = h->elem_size;
  for (int64_t i = 0; i < n; i++) {
    const char *e = (const char *)data + (size_t)i * w;
    size_t len = w;
    while (len > 0 && e[len - 1] == 0) len--;
    tfs_tensor_set_string(t, i, e, len, st);
    if (!tfs_status_ok(st)) {
      tfs_tensor_free(t);
      return NULL;
    }
  }
  return t;
}

tfs_tensor *tfs_npy__decode(const tfs_npy_header *h, const uint8_t *data,
                            int64_t rows, const char *name, tfs_status *st) {
  int64_t dims[TFS_MAX_RANK];
  int nd = h->ndims;
  memcpy(dims, h->dims, sizeof dims);
  if (rows >= 0) dims[0] = rows;
  /* the callers checked n * elem_size against the bytes present (and
   * the header parser refused 0-byte elements of a non-empty array), so
   * neither the copies nor fortran_to_c run past them */
  int64_t n = 1, nbytes;
  int over = 0;
  for (int i = 0; i < nd; i++) over |= tfs_mul_overflow_i64(n, dims[i], &n);
  if (over || tfs_mul_overflow_i64(n, (int64_t)h->elem_size, &nbytes)) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "%s: shape in the .npy header overflows (too many "
                    "elements)", name);
    return NULL;
  }
  const uint8_t *src = data;
  uint8_t *tmp = NULL;
  size_t bytes = (size_t)nbytes;
  if (h->fortran_order && n > 0) {
    tmp = tfs_malloc(bytes);
    if (!tmp) {
      TFS_OOM(st);
      return NULL;
    }
    fortran_to_c(tmp, data, dims, nd, h->elem_size, n);
    src = tmp;
  }
  tfs_tensor *t;
  if (h->dtype == TFS_STRING) {
    t = decode_strings(h, src, dims, nd, n, st);
  } else {
    tfs_shape s;
    s.rank = nd;
    memcpy(s.dims, dims, sizeof(int64_t) * (size_t)nd);
    t = tfs_tensor__alloc(h->dtype, &s, st);
    if (t) {
      if (bytes) memcpy(t->data, src, bytes);
      if (h->swap)
        swap_bytes(t->data, n, h->elem_size,
                   h->dtype == TFS_COMPLEX64 || h->dtype == TFS_COMPLEX128);
      if (h->dtype == TFS_BOOL) {
        uint8_t *b = t->data;
        for (int64_t i = 0; i < n; i++) b[i] = b[i] != 0;
      }
    }
  }
  tfs_free(tmp);
  if (!t)
    tfs_status_prependf(st, "%s: ", name);
  else
    tfs_status_clear(st);
  return t;
}

/* ---- whole-file read ----------------------------------------------------- */

tfs_tensor *tfs_npy_read_buffer(const void *data, size_t len, const char *name,
                                tfs_status *st) {
  tfs_npy_header h;
  if (!name) name = "<buffer>";
  TFS_CHECK_ARG(data || len == 0, st, NULL);
  if (tfs_npy__parse_header(data, len, name, &h, st)) return NULL;
  if (check_data_size(&h, len - h.data_offset, name, st)) return NULL;
  return tfs_npy__decode(&h, (const uint8_t *)data + h.data_offset, -1, name,
                         st);
}

tfs_tensor *tfs_npy_read(const char *path, tfs_status *st) {
  TFS_CHECK_ARG(path, st, NULL);
  uint64_t size;
  FILE *f = tfs_io__open_read(path, &size, st);
  if (!f) return NULL;
  tfs_npy_header h;
  tfs_tensor *t = NULL;
  uint8_t *buf = NULL;
  if (tfs_npy__read_header(f, size, path, &h, st)) goto out;
  if (h.dtype != TFS_STRING && !h.swap && !h.fortran_order) {
    /* The common case: read straight into the tensor's buffer. */
    tfs_shape s;
    s.rank = h.ndims;
    memcpy(s.dims, h.dims, sizeof(int64_t) * (size_t)h.ndims);
    t = tfs_tensor__alloc(h.dtype, &s, st);
    if (!t) {
      tfs_status_prependf(st, "%s: ", path);
      goto out;
    }
    if (h.data_bytes && fread(t->data, 1, h.data_bytes, f) != h.data_bytes) {
      tfs_io__errno(st, path, "cannot read the data");
      tfs_tensor_free(t);
      t = NULL;
      goto out;
    }
    if (h.dtype == TFS_BOOL) {
      uint8_t *b = t->data;
      for (int64_t i = 0; i < h.nelems; i++) b[i] = b[i] != 0;
    }
    tfs_status_clear(st);
    goto out;
  }
  buf = tfs_malloc(h.data_bytes ? h.data_bytes : 1);
  if (!buf) {
    TFS_OOM(st);
    goto out;
  }
  if (h.data_bytes && fread(buf, 1, h.data_bytes, f) != h.data_bytes) {
    tfs_io__errno(st, path, "cannot read the data");
    goto out;
  }
  t = tfs_npy__decode(&h, buf, -1, path, st);
out:
  tfs_free(buf);
  fclose(f);
  return t;
}

/* ---- writing ------------------------------------------------------------- */

size_t tfs_npy__format_header(tfs_strbuf *out, tfs_dtype dt, size_t width,
                              const int64_t *dims, int ndims, size_t pad_to,
                              const char *name, tfs_status *st) {
  char descr[32];
  if (!descr_of(dt, descr, sizeof descr, width)) {
    tfs_status_setf(st, TFS_UNIMPLEMENTED,
                    "%s: cannot write a %s tensor as .npy (NumPy has no such "
                    "dtype)",
                    name, tfs_dtype_name(dt));
    return 0;
  }
  tfs_strbuf d = TFS_STRBUF_INIT;
  tfs_strbuf_printf(&d, "{'descr': '%s', 'fortran_order': False, 'shape': (",
                    descr);
  for (int i = 0; i < ndims; i++)
    tfs_strbuf_printf(&d, i ? ", %lld" : "%lld", (long long)dims[i]);
  tfs_strbuf_puts(&d, ndims == 1 ? ",), }" : "), }");
  if (d.oom) {
    tfs_strbuf_free(&d);
    TFS_OOM(st);
    return 0;
  }
  /* Preamble + dict + padding spaces + '\n', a multiple of 64 bytes. */
  size_t pre = d.len + 1 + 10 > 65535 ? 12 : 10;
  size_t total = (pre + d.len + 1 + 63) / 64 * 64;
  if (pad_to) {
    if (pad_to < pre + d.len + 1) {
      tfs_strbuf_free(&d);
      tfs_status_setf(st, TFS_INTERNAL, "%s: .npy header does not fit", name);
      return 0;
    }
    total = pad_to;
  }
  size_t hlen = total - pre;
  uint8_t p[12] = {0x93, 'N', 'U', 'M', 'P', 'Y', pre == 10 ? 1 : 2, 0};
  p[8] = (uint8_t)hlen;
  p[9] = (uint8_t)(hlen >> 8);
  p[10] = (uint8_t)(hlen >> 16);
  p[11] = (uint8_t)(hlen >> 24);
  tfs_strbuf_append(out, (const char *)p, pre);
  tfs_strbuf_append(out, d.data, d.len);
  for (size_t i = pre + d.len; i + 1 < total; i++) tfs_strbuf_putc(out, ' ');
  tfs_strbuf_putc(out, '\n');
  tfs_strbuf_free(&d);
  if (out->oom) {
    TFS_OOM(st);
    return 0;
  }
  return total;
}

/* Header and data of `t` into `out`. */
static int encode(const tfs_tensor *t, tfs_strbuf *out, const char *name,
                  tfs_status *st) {
  tfs_dtype dt = tfs_tensor_dtype(t);
  int64_t n = tfs_tensor_num_elements(t);
  size_t width = 0;
  if (dt == TFS_STRING) {
    for (int64_t i = 0; i < n; i++) {
      size_t len;
      tfs_tensor_string_at(t, i, &len);
      if (len > width) width = len;
    }
    if (width == 0) width = 1; /* NumPy's smallest byte string is S1 */
  }
  if (!tfs_npy__format_header(out, dt, width, tfs_tensor_dims(t),
                              tfs_tensor_ndims(t), 0, name, st))
    return -1;
  if (dt != TFS_STRING) {
    tfs_strbuf_append(out, tfs_tensor_data(t), tfs_tensor_byte_size(t));
  } else {
    for (int64_t i = 0; i < n; i++) {
      size_t len;
      const char *s = tfs_tensor_string_at(t, i, &len);
      tfs_strbuf_append(out, s, len);
      for (size_t k = len; k < width; k++) tfs_strbuf_putc(out, 0);
    }
  }
  if (out->oom) {
    TFS_OOM(st);
    return -1;
  }
  return 0;
}

static void free_bytes(void *data, size_t len) {
  (void)len;
  tfs_free(data);
}

void tfs_npy_write_buffer(const tfs_tensor *t, tfs_buffer *out,
                          tfs_status *st) {
  TFS_CHECK_ARG(t && out, st, );
  if (out->data || out->length) {
    tfs_status_set(st, TFS_INVALID_ARGUMENT,
                   "Passing non-empty TF_Buffer is invalid.");
    return;
  }
  tfs_strbuf b = TFS_STRBUF_INIT;
  if (encode(t, &b, "<buffer>", st)) {
    tfs_strbuf_free(&b);
    return;
  }
  out->length = b.len;
  out->data = tfs_strbuf_take(&b);
  out->data_deallocator = free_bytes;
  tfs_status_clear(st);
}

void tfs_npy_write(const char *path, const tfs_tensor *t, tfs_status *st) {
  TFS_CHECK_ARG(path && t, st, );
  tfs_dtype dt = tfs_tensor_dtype(t);
  tfs_strbuf b = TFS_STRBUF_INIT;
  const void *data;
  size_t len;
  /* Numeric tensors: write the header, then the buffer in place. */
  if (dt != TFS_STRING) {
    if (!tfs_npy__format_header(&b, dt, 0, tfs_tensor_dims(t),
                                tfs_tensor_ndims(t), 0, path, st)) {
      tfs_strbuf_free(&b);
      return;
    }
    data = tfs_tensor_data(t);
    len = tfs_tensor_byte_size(t);
  } else {
    if (encode(t, &b, path, st)) {
      tfs_strbuf_free(&b);
      return;
    }
    data = NULL;
    len = 0;
  }
  FILE *f = tfs_io__open_write(path, "wb", st);
  if (f) {
    errno = 0;
    if (fwrite(b.data, 1, b.len, f) != b.len ||
        (len && fwrite(data, 1, len, f) != len)) {
      tfs_io__errno(st, path, "cannot write");
      fclose(f);
    } else if (fclose(f) != 0) {
      tfs_io__errno(st, path, "cannot write");
    } else {
      tfs_status_clear(st);
    }
  }
  tfs_strbuf_free(&b);
}
