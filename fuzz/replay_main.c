/*
 * fuzz/replay_main.c - a plain main() for the fuzz targets, so that any
 * compiler can replay saved inputs (seeds, crash reproducers) without
 * libFuzzer: each argument is a file whose bytes go to
 * LLVMFuzzerTestOneInput once.  Exits 0 when every input ran, 1 when a
 * file could not be read (a crash ends the process, as it should).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Reads the whole of `path` into a malloc'd buffer (*len bytes); NULL on
 * error. */
static uint8_t *read_all(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  uint8_t *buf = NULL;
  size_t cap = 0, n = 0;
  if (!f) return NULL;
  for (;;) {
    size_t got;
    if (n == cap) {
      size_t ncap = cap ? cap * 2 : 4096;
      uint8_t *nb = realloc(buf, ncap);
      if (!nb) {
        free(buf);
        fclose(f);
        return NULL;
      }
      buf = nb;
      cap = ncap;
    }
    got = fread(buf + n, 1, cap - n, f);
    n += got;
    if (got == 0) break;
  }
  if (ferror(f)) {
    free(buf);
    fclose(f);
    return NULL;
  }
  fclose(f);
  *len = n;
  return buf;
}

int main(int argc, char **argv) {
  int i, bad = 0;
  for (i = 1; i < argc; i++) {
    size_t len = 0;
    uint8_t *buf = read_all(argv[i], &len);
    if (!buf) {
      fprintf(stderr, "replay: cannot read %s\n", argv[i]);
      bad = 1;
      continue;
    }
    LLVMFuzzerTestOneInput(buf, len);
    free(buf);
    printf("replay: %s: ok (%zu bytes)\n", argv[i], len);
  }
  return bad;
}
