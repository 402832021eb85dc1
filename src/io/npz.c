/*
 * io/npz.c - NumPy .npz archives: a small zip reader (central directory,
 * zip64 records, stored and deflated entries, CRC-32 checks) and writer
 * (stored, or deflated with zlib) around the .npy functions.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/status.h"
#include "io/npy.h"
#include "tfs_config.h"
#ifdef TFS_HAVE_ZLIB
#include <zlib.h>
#endif

#define SIG_LOCAL 0x04034b50u
#define SIG_CENTRAL 0x02014b50u
#define SIG_EOCD 0x06054b50u
#define SIG_EOCD64 0x06064b50u
#define SIG_LOCATOR64 0x07064b50u
#define U32_MAX_FIELD 0xffffffffu
/* Deflate cannot expand data more than about 1032 times: a larger claimed
 * size is a corrupt (or hostile) entry, not something to allocate. */
#define MAX_DEFLATE_RATIO 1032u

struct tfs_npz {
  int n;
  char **names;
  tfs_tensor **tensors;
};

typedef struct {
  const uint8_t *base;
  uint64_t size;
  const char *path;
  tfs_status *st;
} zip_in;

/* ---- CRC-32 (zip's, polynomial 0xEDB88320) ------------------------------- */

static uint32_t crc32_table[256];

static void crc32_init(void) {
  for (uint32_t i = 0; i < 256; i++) {
    uint32_t c = i;
    for (int k = 0; k < 8; k++) c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
    crc32_table[i] = c;
  }
}

static uint32_t zip_crc32(const uint8_t *p, size_t n) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, crc32_init);
  uint32_t c = 0xffffffffu;
  for (size_t i = 0; i < n; i++) c = crc32_table[(c ^ p[i]) & 0xff] ^ (c >> 8);
  return c ^ 0xffffffffu;
}

/* ---- little-endian fields ------------------------------------------------ */

static uint16_t le16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint32_t le32(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
         (uint32_t)p[3] << 24;
}
static uint64_t le64(const uint8_t *p) {
  return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

static int zfail(zip_in *z, const char *what) {
  tfs_status_setf(z->st, TFS_INVALID_ARGUMENT,
                  "%s: not a valid .npz (zip) "
                  "archive: %s",
                  z->path, what);
  return -1;
}

/* ---- reading ------------------------------------------------------------- */

typedef struct {
  uint64_t cd_offset, cd_size, entries;
} zip_dir;

static int find_directory(zip_in *z, zip_dir *d) {
  if (z->size < 22) return zfail(z, "too short for a zip archive");
  uint64_t lo = z->size > 22 + 65535 ? z->size - 22 - 65535 : 0;
  uint64_t pos = z->size - 22;
  for (;; pos--) {
    if (le32(z->base + pos) == SIG_EOCD &&
        pos + 22 + le16(z->base + pos + 20) == z->size)
      break;
    if (pos == lo) return zfail(z, "no end-of-central-directory record");
  }
  const uint8_t *e = z->base + pos;
  d->entries = le16(e + 10);
  d->cd_size = le32(e + 12);
  d->cd_offset = le32(e + 16);
  if (d->entries == 0xffff || d->cd_size == U32_MAX_FIELD ||
      d->cd_offset == U32_MAX_FIELD) {
    if (pos < 20 || le32(e - 20) != SIG_LOCATOR64)
      return zfail(z, "zip64 locator missing");
    uint64_t off = le64(e - 20 + 8);
    if (off > z->size || z->size - off < 56 ||
        le32(z->base + off) != SIG_EOCD64)
      return zfail(z, "bad zip64 end-of-central-directory record");
    const uint8_t *e64 = z->base + off;
    d->entries = le64(e64 + 32);
    d->cd_size = le64(e64 + 40);
    d->cd_offset = le64(e64 + 48);
  }
  if (d->cd_offset > z->size || d->cd_size > z->size - d->cd_offset)
    return zfail(z, "central directory lies outside the file");
  if (d->entries > d->cd_size / 46)
    return zfail(z, "central directory is too short for its entries");
  return 0;
}

typedef struct {
  char *name;
  uint16_t flags, method;
  uint32_t crc;
  uint64_t csize, usize, offset;
} zip_entry;

/* Fills sizes and offset from a zip64 extra field where the 32-bit fields
 * are saturated. */
static int read_zip64_extra(zip_in *z, const uint8_t *x, size_t xlen,
                            zip_entry *en, int need_u, int need_c, int need_o) {
  while (xlen >= 4) {
    uint16_t id = le16(x), len = le16(x + 2);
    if ((size_t)len + 4 > xlen) return zfail(z, "bad extra field");
    if (id == 1) {
      const uint8_t *p = x + 4, *end = x + 4 + len;
      if (need_u) {
        if (end - p < 8) return zfail(z, "short zip64 extra field");
        en->usize = le64(p);
        p += 8;
      }
      if (need_c) {
        if (end - p < 8) return zfail(z, "short zip64 extra field");
        en->csize = le64(p);
        p += 8;
      }
      if (need_o) {
        if (end - p < 8) return zfail(z, "short zip64 extra field");
        en->offset = le64(p);
      }
      return 0;
    }
    x += 4 + len;
    xlen -= 4 + (size_t)len;
  }
  if (need_u || need_c || need_o) return zfail(z, "zip64 extra field missing");
  return 0;
}

/* Parses the central directory entry at *pos and advances it. */
static int read_central(zip_in *z, uint64_t *pos, uint64_t end, zip_entry *en) {
  const uint8_t *c = z->base + *pos;
  if (end - *pos < 46 || le32(c) != SIG_CENTRAL)
    return zfail(z, "bad central directory entry");
  en->flags = le16(c + 8);
  en->method = le16(c + 10);
  en->crc = le32(c + 16);
  en->csize = le32(c + 20);
  en->usize = le32(c + 24);
  size_t nlen = le16(c + 28), xlen = le16(c + 30), clen = le16(c + 32);
  en->offset = le32(c + 42);
  if (end - *pos - 46 < nlen + xlen + clen)
    return zfail(z, "central directory entry overruns the directory");
  if (read_zip64_extra(z, c + 46 + nlen, xlen, en, en->usize == U32_MAX_FIELD,
                       en->csize == U32_MAX_FIELD, en->offset == U32_MAX_FIELD))
    return -1;
  if (nlen == 0 || memchr(c + 46, 0, nlen))
    return zfail(z, "entry with an empty or invalid name");
  en->name = tfs_strndup((const char *)c + 46, nlen);
  if (!en->name) {
    TFS_OOM(z->st);
    return -1;
  }
  *pos += 46 + nlen + xlen + clen;
  return 0;
}

#ifdef TFS_HAVE_ZLIB
static int inflate_entry(zip_in *z, const zip_entry *en, const uint8_t *src,
                         uint8_t *dst) {
  z_stream zs;
  memset(&zs, 0, sizeof zs);
  if (inflateInit2(&zs, -MAX_WBITS) != Z_OK) {
    TFS_OOM(z->st);
    return -1;
  }
  int rc = 0;
  uint64_t in_left = en->csize, out_left = en->usize;
  zs.next_in = (Bytef *)src;
  zs.next_out = dst;
  int zr;
  do { /* z_stream counts in uInt: feed huge entries in pieces */
    if (zs.avail_in == 0 && in_left) {
      zs.avail_in = in_left > (1u << 30) ? (1u << 30) : (uInt)in_left;
      in_left -= zs.avail_in;
    }
    if (zs.avail_out == 0 && out_left) {
      zs.avail_out = out_left > (1u << 30) ? (1u << 30) : (uInt)out_left;
      out_left -= zs.avail_out;
    }
    zr = inflate(&zs, Z_NO_FLUSH);
  } while (zr == Z_OK && (zs.avail_in || in_left) &&
           (zs.avail_out || out_left));
  if (zr != Z_STREAM_END || zs.total_out != en->usize) {
    tfs_status_setf(z->st, TFS_DATA_LOSS,
                    "%s: entry '%s': deflated data is corrupt (%s)", z->path,
                    en->name, zs.msg ? zs.msg : "wrong size");
    rc = -1;
  }
  inflateEnd(&zs);
  return rc;
}
#endif

/* Decompresses one entry and parses it as .npy. */
static tfs_tensor *load_entry(zip_in *z, const zip_entry *en) {
  if (en->flags & 1) {
    tfs_status_setf(z->st, TFS_UNIMPLEMENTED, "%s: entry '%s' is encrypted",
                    z->path, en->name);
    return NULL;
  }
  if (en->offset > z->size || z->size - en->offset < 30 ||
      le32(z->base + en->offset) != SIG_LOCAL) {
    zfail(z, "bad local file header");
    return NULL;
  }
  const uint8_t *l = z->base + en->offset;
  uint64_t data = en->offset + 30 + le16(l + 26) + le16(l + 28);
  if (data > z->size || z->size - data < en->csize) {
    zfail(z, "entry data lies outside the file");
    return NULL;
  }
  const uint8_t *src = z->base + data;
  uint8_t *buf = NULL;
  const uint8_t *npy = src;
  if (en->method == 0) {
    if (en->usize != en->csize) {
      zfail(z, "stored entry with two different sizes");
      return NULL;
    }
  } else if (en->method == 8) {
#ifdef TFS_HAVE_ZLIB
    if (en->usize / MAX_DEFLATE_RATIO > en->csize + 1) {
      zfail(z, "deflated entry claims an impossible size");
      return NULL;
    }
    buf = tfs_malloc(en->usize ? en->usize : 1);
    if (!buf) {
      TFS_OOM(z->st);
      return NULL;
    }
    if (inflate_entry(z, en, src, buf)) {
      tfs_free(buf);
      return NULL;
    }
    npy = buf;
#else
    tfs_status_setf(z->st, TFS_UNIMPLEMENTED,
                    "%s: entry '%s' is deflated, and this build of tfsess has "
                    "no zlib",
                    z->path, en->name);
    return NULL;
#endif
  } else {
    tfs_status_setf(z->st, TFS_UNIMPLEMENTED,
                    "%s: entry '%s' uses zip compression method %u (only "
                    "stored and deflated are supported)",
                    z->path, en->name, en->method);
    return NULL;
  }
  tfs_tensor *t = NULL;
  if (zip_crc32(npy, en->usize) != en->crc) {
    tfs_status_setf(z->st, TFS_DATA_LOSS, "%s: entry '%s': CRC-32 mismatch",
                    z->path, en->name);
  } else {
    char *what = tfs_asprintf("%s: entry '%s'", z->path, en->name);
    if (!what)
      TFS_OOM(z->st);
    else
      t = tfs_npy_read_buffer(npy, en->usize, what, z->st);
    tfs_free(what);
  }
  tfs_free(buf);
  return t;
}

static int add_array(tfs_npz *a, char *name, tfs_tensor *t, tfs_status *st) {
  char **nn = tfs_realloc(a->names, sizeof(char *) * (size_t)(a->n + 1));
  if (nn) a->names = nn;
  tfs_tensor **nt =
      nn ? tfs_realloc(a->tensors, sizeof(tfs_tensor *) * (size_t)(a->n + 1))
         : NULL;
  if (!nt) {
    TFS_OOM(st);
    return -1;
  }
  a->tensors = nt;
  size_t len = strlen(name);
  if (len > 4 && strcmp(name + len - 4, ".npy") == 0) name[len - 4] = 0;
  a->names[a->n] = name;
  a->tensors[a->n] = t;
  a->n++;
  return 0;
}

static tfs_npz *parse_archive(zip_in *z) {
  zip_dir d = {0}; /* gcc -O1 cannot see find_directory set it */
  if (find_directory(z, &d)) return NULL;
  tfs_npz *a = tfs_calloc(1, sizeof *a);
  if (!a) {
    TFS_OOM(z->st);
    return NULL;
  }
  uint64_t pos = d.cd_offset, end = d.cd_offset + d.cd_size;
  for (uint64_t i = 0; i < d.entries; i++) {
    zip_entry en;
    memset(&en, 0, sizeof en);
    if (read_central(z, &pos, end, &en)) goto fail;
    tfs_tensor *t = load_entry(z, &en);
    if (!t || add_array(a, en.name, t, z->st)) {
      tfs_tensor_free(t);
      tfs_free(en.name);
      goto fail;
    }
  }
  tfs_status_clear(z->st);
  return a;
fail:
  tfs_npz_free(a);
  return NULL;
}

tfs_npz *tfs_npz_read(const char *path, tfs_status *st) {
  TFS_CHECK_ARG(path, st, NULL);
  uint64_t size;
  FILE *f = tfs_io__open_read(path, &size, st);
  if (!f) return NULL;
  tfs_npz *a = NULL;
  uint8_t *buf = size < SIZE_MAX ? tfs_malloc(size ? (size_t)size : 1) : NULL;
  if (!buf) {
    TFS_OOM(st);
  } else if (size && fread(buf, 1, (size_t)size, f) != size) {
    tfs_io__errno(st, path, "cannot read");
  } else {
    zip_in z = {buf, size, path, st};
    a = parse_archive(&z);
  }
  tfs_free(buf);
  fclose(f);
  return a;
}

int tfs_npz_count(const tfs_npz *z) { return z ? z->n : 0; }

const char *tfs_npz_name(const tfs_npz *z, int i) {
  return z && i >= 0 && i < z->n ? z->names[i] : NULL;
}

tfs_tensor *tfs_npz_tensor(const tfs_npz *z, int i) {
  return z && i >= 0 && i < z->n ? z->tensors[i] : NULL;
}

tfs_tensor *tfs_npz_find(const tfs_npz *z, const char *name) {
  for (int i = 0; z && name && i < z->n; i++)
    if (strcmp(z->names[i], name) == 0) return z->tensors[i];
  return NULL;
}

void tfs_npz_free(tfs_npz *z) {
  if (!z) return;
  for (int i = 0; i < z->n; i++) {
    tfs_free(z->names[i]);
    tfs_tensor_free(z->tensors[i]);
  }
  tfs_free(z->names);
  tfs_free(z->tensors);
  tfs_free(z);
}

/* ---- writing ------------------------------------------------------------- */

typedef struct {
  uint32_t crc;
  uint64_t csize, usize, offset;
  uint16_t method;
} out_entry;

static void put16(uint8_t *p, unsigned v) {
  p[0] = (uint8_t)v;
  p[1] = (uint8_t)(v >> 8);
}
static void put32(uint8_t *p, uint32_t v) {
  put16(p, v & 0xffff);
  put16(p + 2, v >> 16);
}

/* Local header (central == 0) or central directory entry for `e`. */
static size_t entry_header(uint8_t *h, const out_entry *e, size_t nlen,
                           int central) {
  size_t n = central ? 46 : 30;
  memset(h, 0, n);
  uint8_t *p = h + (central ? 6 : 4);
  put32(h, central ? SIG_CENTRAL : SIG_LOCAL);
  if (central) put16(h + 4, 20); /* version made by */
  put16(p, 20);                  /* version needed */
  put16(p + 4, e->method);
  put16(p + 6, 0);            /* time 00:00:00 */
  put16(p + 8, (1 << 5) | 1); /* date 1980-01-01 */
  put32(p + 10, e->crc);
  put32(p + 14, (uint32_t)e->csize);
  put32(p + 18, (uint32_t)e->usize);
  put16(p + 22, (unsigned)nlen);
  if (central) put32(h + 42, (uint32_t)e->offset);
  return n;
}

#ifdef TFS_HAVE_ZLIB
static uint8_t *deflate_bytes(const uint8_t *src, size_t n, size_t *out_n,
                              const char *path, tfs_status *st) {
  z_stream zs;
  memset(&zs, 0, sizeof zs);
  if (n > (1u << 31) ||
      deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, -MAX_WBITS, 8,
                   Z_DEFAULT_STRATEGY) != Z_OK) {
    tfs_status_setf(st, TFS_RESOURCE_EXHAUSTED,
                    "%s: cannot compress an entry of %zu bytes", path, n);
    return NULL;
  }
  uLong cap = deflateBound(&zs, (uLong)n);
  uint8_t *dst = tfs_malloc(cap);
  if (!dst) {
    deflateEnd(&zs);
    TFS_OOM(st);
    return NULL;
  }
  zs.next_in = (Bytef *)src;
  zs.avail_in = (uInt)n;
  zs.next_out = dst;
  zs.avail_out = (uInt)cap;
  int zr = deflate(&zs, Z_FINISH);
  *out_n = zs.total_out;
  deflateEnd(&zs);
  if (zr != Z_STREAM_END) {
    tfs_free(dst);
    tfs_status_setf(st, TFS_INTERNAL, "%s: deflate failed", path);
    return NULL;
  }
  return dst;
}
#endif

/* Writes one entry; fills *e. */
static int write_entry(FILE *f, const char *path, const char *name,
                       const tfs_tensor *t, int compress, uint64_t *pos,
                       out_entry *e, tfs_status *st) {
  tfs_buffer npy = {NULL, 0, NULL};
  tfs_npy_write_buffer(t, &npy, st);
  if (!tfs_status_ok(st)) {
    tfs_status_prependf(st, "%s: array '%s': ", path, name);
    return -1;
  }
  const uint8_t *data = npy.data;
  size_t dlen = npy.length;
  uint8_t *packed = NULL;
  e->crc = zip_crc32(npy.data, npy.length);
  e->usize = npy.length;
  e->method = 0;
  int rc = -1;
  if (compress) {
#ifdef TFS_HAVE_ZLIB
    packed = deflate_bytes(npy.data, npy.length, &dlen, path, st);
    if (!packed) goto out;
    data = packed;
    e->method = 8;
#endif
  }
  e->csize = dlen;
  e->offset = *pos;
  size_t nlen = strlen(name) + 4;
  if (e->usize >= U32_MAX_FIELD || e->csize >= U32_MAX_FIELD ||
      *pos + 30 + nlen + dlen >= U32_MAX_FIELD) {
    tfs_status_setf(st, TFS_UNIMPLEMENTED,
                    "%s: archives over 4 GiB are not supported by the .npz "
                    "writer",
                    path);
    goto out;
  }
  uint8_t h[46];
  size_t hn = entry_header(h, e, nlen, 0);
  errno = 0;
  if (fwrite(h, 1, hn, f) != hn || fwrite(name, 1, nlen - 4, f) != nlen - 4 ||
      fwrite(".npy", 1, 4, f) != 4 ||
      (dlen && fwrite(data, 1, dlen, f) != dlen)) {
    tfs_io__errno(st, path, "cannot write");
    goto out;
  }
  *pos += hn + nlen + dlen;
  rc = 0;
out:
  tfs_free(packed);
  if (npy.data_deallocator) npy.data_deallocator((void *)npy.data, npy.length);
  return rc;
}

static int write_directory(FILE *f, const char *path, const char *const *names,
                           const out_entry *es, int n, uint64_t cd_start,
                           tfs_status *st) {
  uint64_t cd_size = 0;
  errno = 0;
  for (int i = 0; i < n; i++) {
    uint8_t h[46];
    size_t nlen = strlen(names[i]) + 4;
    size_t hn = entry_header(h, &es[i], nlen, 1);
    if (fwrite(h, 1, hn, f) != hn ||
        fwrite(names[i], 1, nlen - 4, f) != nlen - 4 ||
        fwrite(".npy", 1, 4, f) != 4)
      goto fail;
    cd_size += hn + nlen;
  }
  uint8_t e[22];
  memset(e, 0, sizeof e);
  put32(e, SIG_EOCD);
  put16(e + 8, (unsigned)n);
  put16(e + 10, (unsigned)n);
  put32(e + 12, (uint32_t)cd_size);
  put32(e + 16, (uint32_t)cd_start);
  if (fwrite(e, 1, sizeof e, f) != sizeof e) goto fail;
  return 0;
fail:
  tfs_io__errno(st, path, "cannot write");
  return -1;
}

static int check_names(const char *path, const char *const *names, int n,
                       tfs_status *st) {
  for (int i = 0; i < n; i++) {
    if (!names[i] || !names[i][0] || strlen(names[i]) > 60000) {
      tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                      "%s: array %d needs a name (1 to 60000 bytes)", path, i);
      return -1;
    }
    for (int j = 0; j < i; j++) {
      if (strcmp(names[i], names[j]) == 0) {
        tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                        "%s: array name '%s' appears twice", path, names[i]);
        return -1;
      }
    }
  }
  return 0;
}

void tfs_npz_write(const char *path, const char *const *names,
                   const tfs_tensor *const *tensors, int n, int compress,
                   tfs_status *st) {
  TFS_CHECK_ARG(path && n >= 0 && n < 65535 && (n == 0 || (names && tensors)),
                st, );
#ifndef TFS_HAVE_ZLIB
  if (compress) {
    tfs_status_setf(st, TFS_UNIMPLEMENTED,
                    "%s: compressed .npz needs zlib, and this build of tfsess "
                    "has none",
                    path);
    return;
  }
#endif
  if (check_names(path, names, n, st)) return;
  for (int i = 0; i < n; i++) TFS_CHECK_ARG(tensors[i], st, );
  out_entry *es = tfs_calloc((size_t)n + 1, sizeof *es);
  if (!es) {
    TFS_OOM(st);
    return;
  }
  FILE *f = tfs_io__open_write(path, "wb", st);
  uint64_t pos = 0;
  int ok = f != NULL;
  for (int i = 0; ok && i < n; i++)
    ok = write_entry(f, path, names[i], tensors[i], compress, &pos, &es[i],
                     st) == 0;
  if (ok) ok = write_directory(f, path, names, es, n, pos, st) == 0;
  if (f) {
    errno = 0;
    if (fclose(f) != 0 && ok) {
      tfs_io__errno(st, path, "cannot write");
      ok = 0;
    }
  }
  if (ok) tfs_status_clear(st);
  tfs_free(es);
}
