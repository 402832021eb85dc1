/*
 * tests/io/iotest.h - helpers shared by the io, conformance and command
 * line suites: where the source tree is, scratch directories, whole-file
 * reads and writes.
 */
#ifndef TFS_TESTS_IOTEST_H
#define TFS_TESTS_IOTEST_H

#include <stddef.h>
#include <stdint.h>

/* The source tree: $top_srcdir when set (make check sets it), else the
 * path compiled in.  Static string. */
const char *it_srcdir(void);

/* The build tree (where the tfsess program is): $top_builddir when set
 * (a suite run from a moved build, as scripts/gpu-suite does), else the
 * path compiled in (TFS_TEST_BUILDDIR, "." without one).  Static string. */
const char *it_builddir(void);

/* "<srcdir>/<rel>" in a static buffer (valid until the next call). */
const char *it_src(const char *rel);

/* A fresh scratch directory for this process (created on first use,
 * removed with its files by it_cleanup). */
const char *it_tmpdir(void);
/* "<tmpdir>/<name>" in a rotating static buffer (4 in flight). */
const char *it_tmp(const char *name);
void it_cleanup(void);

/* Reads a whole file; returns malloc'd bytes (caller frees) or NULL. */
uint8_t *it_read_file(const char *path, size_t *len);
/* Writes bytes to a file; returns 0 or -1. */
int it_write_file(const char *path, const void *data, size_t len);

/* A deterministic pseudo-random generator (xorshift64*). */
uint64_t it_rand(uint64_t *state);

#endif
