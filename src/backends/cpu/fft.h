/*
 * backends/cpu/fft.h - one-dimensional discrete Fourier transforms of any
 * length, computed in double precision: a mixed-radix Cooley-Tukey
 * transform for lengths whose prime factors are at most 13 (radix 4, 2,
 * 3, 5 and a generic butterfly for 7, 11 and 13), Bluestein's chirp-z
 * transform through a 2/3/5-smooth length for every other length.  Both
 * are O(n log n).  The spectral kernels (fft_ops.c) build their N-d and
 * real transforms on these.
 */
#ifndef TFS_BACKENDS_CPU_FFT_H
#define TFS_BACKENDS_CPU_FFT_H

#include <complex.h>
#include <stdint.h>

/* C11's CMPLX (a complex number from its parts, exact even for infinite
 * and NaN parts).  glibc's <complex.h> defines it only for GCC, so clang
 * before 19 has none; __builtin_complex does the same in both. */
#ifndef CMPLX
#define CMPLX(x, y) __builtin_complex((double)(x), (double)(y))
#endif

typedef double _Complex tfs_fft_cd;

typedef struct tfs_fft_plan tfs_fft_plan;

/* The longest length a plan accepts (2^40): a plan holds O(n) tables. */
#define TFS_FFT_MAX_LEN ((int64_t)1 << 40)

/* A plan for transforms of length n (0 <= n <= TFS_FFT_MAX_LEN).  Returns
 * a new plan (free with tfs_fft_plan_free), or NULL when n is out of
 * range or memory ran out.  A plan is read-only once made: several
 * threads may execute it at once, each with its own scratch. */
tfs_fft_plan *tfs_fft_plan_new(int64_t n);

/* Frees a plan; NULL is fine. */
void tfs_fft_plan_free(tfs_fft_plan *p);

/* How many complex elements of scratch tfs_fft_exec needs (0 for the
 * mixed-radix lengths). */
int64_t tfs_fft_scratch_len(const tfs_fft_plan *p);

/* out[k] = sum_j in[j] * exp(-+2 pi i j k / n): the minus sign forward,
 * the plus sign when `inverse`; no 1/n scaling.  in and out hold n
 * elements and must not overlap; scratch holds tfs_fft_scratch_len(p)
 * elements (may be NULL when that is 0). */
void tfs_fft_exec(const tfs_fft_plan *p, const tfs_fft_cd *in,
                  tfs_fft_cd *out, int inverse, tfs_fft_cd *scratch);

#endif
