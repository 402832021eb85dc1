/*
 * io/tfrecord.c - CRC32C (Castagnoli; slicing-by-8 in software, the SSE4.2
 * instruction where the CPU has it), TensorFlow's CRC masking, and the
 * TFRecord framing: a record writer and a reader that checks both CRCs and
 * treats a record cut short at the end of the file as "retry later".
 */
#include "io/tfrecord.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/alloc.h"
#include "core/cpu.h"
#include "core/status.h"
#include "io/npy.h"

#define MASK_DELTA 0xa282ead8u

/* ---- CRC32C -------------------------------------------------------------- */

static uint32_t crc_tab[8][256];

static void crc_init(void) {
  for (uint32_t i = 0; i < 256; i++) {
    uint32_t c = i;
    for (int k = 0; k < 8; k++) c = c & 1 ? 0x82f63b78u ^ (c >> 1) : c >> 1;
    crc_tab[0][i] = c;
  }
  for (uint32_t i = 0; i < 256; i++)
    for (int t = 1; t < 8; t++)
      crc_tab[t][i] =
          crc_tab[0][crc_tab[t - 1][i] & 0xff] ^ (crc_tab[t - 1][i] >> 8);
}

static pthread_once_t crc_once = PTHREAD_ONCE_INIT;

uint32_t tfs_crc32c__sw(uint32_t crc, const void *data, size_t n) {
  pthread_once(&crc_once, crc_init);
  const uint8_t *p = data;
  uint32_t c = ~crc;
  while (n && ((uintptr_t)p & 7)) {
    c = crc_tab[0][(c ^ *p++) & 0xff] ^ (c >> 8);
    n--;
  }
  while (n >= 8) {
    uint32_t lo = c ^ ((uint32_t)p[0] | (uint32_t)p[1] << 8 |
                       (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
    c = crc_tab[7][lo & 0xff] ^ crc_tab[6][(lo >> 8) & 0xff] ^
        crc_tab[5][(lo >> 16) & 0xff] ^ crc_tab[4][lo >> 24] ^
        crc_tab[3][p[4]] ^ crc_tab[2][p[5]] ^ crc_tab[1][p[6]] ^
        crc_tab[0][p[7]];
    p += 8;
    n -= 8;
  }
  while (n--) c = crc_tab[0][(c ^ *p++) & 0xff] ^ (c >> 8);
  return ~c;
}

#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("sse4.2"))) static uint32_t crc_hw(uint32_t crc,
                                                         const void *data,
                                                         size_t n) {
  const uint8_t *p = data;
  uint64_t c = ~crc;
  while (n && ((uintptr_t)p & 7)) {
    c = __builtin_ia32_crc32qi((uint32_t)c, *p++);
    n--;
  }
  while (n >= 8) {
    uint64_t v;
    memcpy(&v, p, 8);
    c = __builtin_ia32_crc32di(c, v);
    p += 8;
    n -= 8;
  }
  while (n--) c = __builtin_ia32_crc32qi((uint32_t)c, *p++);
  return ~(uint32_t)c;
}

static int have_hw(void) { return tfs_cpu_has(TFS_CPU_ISA_SSE42); }
#endif

uint32_t tfs_crc32c_extend(uint32_t crc, const void *data, size_t n) {
#if defined(__x86_64__) && defined(__GNUC__)
  if (have_hw()) return crc_hw(crc, data, n);
#endif
  return tfs_crc32c__sw(crc, data, n);
}

uint32_t tfs_crc32c(const void *data, size_t n) {
  return tfs_crc32c_extend(0, data, n);
}

uint32_t tfs_crc32c_mask(uint32_t crc) {
  return ((crc >> 15) | (crc << 17)) + MASK_DELTA;
}

uint32_t tfs_crc32c_unmask(uint32_t masked) {
  uint32_t rot = masked - MASK_DELTA;
  return (rot >> 17) | (rot << 15);
}

static void put_le32(uint8_t *p, uint32_t v) {
  for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}

static uint32_t get_le32(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
         (uint32_t)p[3] << 24;
}

void tfs_record__frame(uint64_t len, const void *data, uint8_t header[12],
                       uint8_t footer[4]) {
  for (int i = 0; i < 8; i++) header[i] = (uint8_t)(len >> (8 * i));
  put_le32(header + 8, tfs_crc32c_mask(tfs_crc32c(header, 8)));
  put_le32(footer, tfs_crc32c_mask(tfs_crc32c(data, (size_t)len)));
}

/* ---- writer -------------------------------------------------------------- */

struct tfs_record_writer {
  FILE *f;
  char *path;
};

tfs_record_writer *tfs_record_writer_open(const char *path, int append,
                                          tfs_status *st) {
  TFS_CHECK_ARG(path, st, NULL);
  tfs_record_writer *w = tfs_calloc(1, sizeof *w);
  if (!w || !(w->path = tfs_strdup(path))) {
    tfs_free(w);
    TFS_OOM(st);
    return NULL;
  }
  w->f = tfs_io__open_write(path, append ? "ab" : "wb", st);
  if (!w->f) {
    tfs_free(w->path);
    tfs_free(w);
    return NULL;
  }
  tfs_status_clear(st);
  return w;
}

void tfs_record__writer_adopt(tfs_record_writer **out, FILE *f,
                              const char *path, tfs_status *st) {
  tfs_record_writer *w = tfs_calloc(1, sizeof *w);
  if (!w || !(w->path = tfs_strdup(path))) {
    tfs_free(w);
    fclose(f);
    TFS_OOM(st);
    *out = NULL;
    return;
  }
  w->f = f;
  *out = w;
}

void tfs_record_writer_write(tfs_record_writer *w, const void *data, size_t len,
                             tfs_status *st) {
  TFS_CHECK_ARG(w && (data || len == 0), st, );
  uint8_t header[12], footer[4];
  tfs_record__frame(len, len ? data : "", header, footer);
  errno = 0;
  if (fwrite(header, 1, 12, w->f) != 12 ||
      (len && fwrite(data, 1, len, w->f) != len) ||
      fwrite(footer, 1, 4, w->f) != 4) {
    tfs_io__errno(st, w->path, "cannot write a record");
    return;
  }
  tfs_status_clear(st);
}

void tfs_record_writer_flush(tfs_record_writer *w, tfs_status *st) {
  TFS_CHECK_ARG(w, st, );
  errno = 0;
  if (fflush(w->f) != 0)
    tfs_io__errno(st, w->path, "cannot write");
  else
    tfs_status_clear(st);
}

void tfs_record_writer_free(tfs_record_writer *w, tfs_status *st) {
  if (!w) return;
  errno = 0;
  int rc = fclose(w->f);
  if (st) {
    if (rc != 0)
      tfs_io__errno(st, w->path, "cannot write");
    else
      tfs_status_clear(st);
  }
  tfs_free(w->path);
  tfs_free(w);
}

/* ---- reader -------------------------------------------------------------- */

struct tfs_record_reader {
  FILE *f;
  char *path;
  uint64_t offset;
  uint8_t *buf;
  size_t cap;
};

tfs_record_reader *tfs_record_reader_open(const char *path, tfs_status *st) {
  TFS_CHECK_ARG(path, st, NULL);
  tfs_record_reader *r = tfs_calloc(1, sizeof *r);
  if (!r || !(r->path = tfs_strdup(path))) {
    tfs_free(r);
    TFS_OOM(st);
    return NULL;
  }
  uint64_t size;
  r->f = tfs_io__open_read(path, &size, st);
  if (!r->f) {
    tfs_record_reader_free(r);
    return NULL;
  }
  tfs_status_clear(st);
  return r;
}

uint64_t tfs_record_reader_offset(const tfs_record_reader *r) {
  return r->offset;
}

static int truncated(tfs_record_reader *r, tfs_status *st) {
  tfs_status_setf(st, TFS_OUT_OF_RANGE,
                  "%s: truncated record at offset %llu (the file ends inside "
                  "it; if a writer is still adding it, retry later)",
                  r->path, (unsigned long long)r->offset);
  return -1;
}

static int corrupted(tfs_record_reader *r, const char *what, tfs_status *st) {
  tfs_status_setf(st, TFS_DATA_LOSS, "%s: corrupted record at offset %llu: %s",
                  r->path, (unsigned long long)r->offset, what);
  return -1;
}

int tfs_record_reader_next(tfs_record_reader *r, const void **data, size_t *len,
                           tfs_status *st) {
  TFS_CHECK_ARG(r && data && len, st, -1);
  *data = NULL;
  *len = 0;
  struct stat sb;
  errno = 0;
  if (fstat(fileno(r->f), &sb) != 0 ||
      fseeko(r->f, (off_t)r->offset, SEEK_SET) != 0) {
    tfs_io__errno(st, r->path, "cannot read");
    return -1;
  }
  uint64_t size = (uint64_t)sb.st_size;
  uint8_t h[12];
  size_t got = fread(h, 1, sizeof h, r->f);
  if (got == 0 && size <= r->offset) {
    tfs_status_clear(st);
    return 0;
  }
  if (got < sizeof h) return truncated(r, st);
  if (tfs_crc32c_unmask(get_le32(h + 8)) != tfs_crc32c(h, 8))
    return corrupted(r, "length CRC mismatch", st);
  uint64_t n = 0;
  for (int i = 7; i >= 0; i--) n = n << 8 | h[i];
  if (n > size || size - r->offset - 12 < n + 4 || n > SIZE_MAX - 4)
    return truncated(r, st);
  if (tfs_grow((void **)&r->buf, &r->cap, (size_t)n + 4, 1)) {
    TFS_OOM(st);
    return -1;
  }
  if (fread(r->buf, 1, (size_t)n + 4, r->f) != n + 4) return truncated(r, st);
  uint32_t want = tfs_crc32c_unmask(get_le32(r->buf + n));
  if (tfs_crc32c(r->buf, (size_t)n) != want)
    return corrupted(r, "data CRC mismatch", st);
  r->offset += 16 + n;
  *data = r->buf;
  *len = (size_t)n;
  tfs_status_clear(st);
  return 1;
}

void tfs_record_reader_free(tfs_record_reader *r) {
  if (!r) return;
  if (r->f) fclose(r->f);
  tfs_free(r->buf);
  tfs_free(r->path);
  tfs_free(r);
}
