/*
 * backends/cpu/conv_winograd.c - 3x3 stride-1 float convolutions by
 * Winograd F(2x2, 3x3) or F(4x4, 3x3): the filter transformed and packed
 * once, input and output tiles transformed around 16 (36) GEMMs per
 * block of output strips (conv_winograd.h).  F(2x2)'s transforms are
 * here, F(4x4)'s in conv_winograd4.c.
 *
 * With d the 4x4 input tile, g the 3x3 filter and Y the 2x2 output:
 *   B^T = [1 0 -1 0; 0 1 1 0; 0 -1 1 0; 0 1 0 -1]
 *   G   = [1 0 0; 1/2 1/2 1/2; 1/2 -1/2 1/2; 0 0 1]
 *   A^T = [1 1 1 0; 0 1 -1 -1]
 *   Y = A^T [(G g G^T) .* (B^T d B)] A
 * where .* is summed over input channels: one product of (tiles x c) by
 * (c x kn) for each of the 16 transform-domain positions (36 of a 6x6
 * tile for F(4x4, 3x3)).
 */
#include <immintrin.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/cpu.h"
#include "core/threadpool.h"
#include "backends/cpu/conv_winograd.h"
#include "backends/cpu/conv_winograd4.h"
#include "backends/cpu/gemm.h"
#include "backends/cpu/store_act.h"

#define TGT __attribute__((target("avx2,fma")))
#define NPOS_MAX 36 /* transform-domain positions: 4x4, or 6x6 */

struct tfs_wino_filter {
  int64_t c, kn;
  int tile, npos;               /* output tile 2 or 4; (tile + 2)^2 */
  tfs_gemm_packed *u[NPOS_MAX]; /* U at position i * (tile + 2) + j */
};

/* ---- the switch -------------------------------------------------------- */

static atomic_int g_env = -1; /* TFS_CONV_WINOGRAD: 1 on, 0 off; -1 unread */
static atomic_int g_force = -1;
static atomic_llong g_calls, g_calls4;

int64_t tfs_conv__winograd_calls(void) { return atomic_load(&g_calls); }
int64_t tfs_conv__winograd4_calls(void) { return atomic_load(&g_calls4); }

int tfs_conv_winograd_on(void) {
  int f = atomic_load_explicit(&g_force, memory_order_relaxed);
  if (f >= 0) return f;
  int e = atomic_load_explicit(&g_env, memory_order_relaxed);
  if (e < 0) {
    const char *v = getenv("TFS_CONV_WINOGRAD");
    e = !(v && strcmp(v, "0") == 0);
    atomic_store(&g_env, e);
  }
  return e;
}

void tfs_conv__set_winograd(int on) {
  atomic_store(&g_force, on < 0 ? -1 : on != 0);
}

/* Where the path pays on one AMD Zen 3 core (docs/PERFORMANCE.md): 24
 * channels in and out were 1.33x faster at 56x56 and 16 were 9% slower;
 * a 4x4 output of 512 channels was 1.5x faster. */
#define WINO_MIN_DEPTH 24
#define WINO_MIN_OUT 4

/* The fewest 4x4 output tiles a call (its static batch, 1 when unknown,
 * times its tiles an image, taken on the input's size) for a filter made
 * for F(4x4, 3x3).  With fewer, the products have too few rows for
 * their 36 matrices of weights, 2.25 times F(2x2, 3x3)'s 16 (read from
 * memory: 4x the filter's size, not 1.8x), and F(2x2, 3x3) is faster:
 * ResNet50 on one Xeon thread, per layer, F(4x4) against F(2x2): batch
 * 1 56x56 (196 tiles) -30%, 28x28 (49) -30%, 14x14 (16) +19%, 7x7 (4)
 * +110%; batch 8 14x14 (128) -9%, 7x7 (32) +18%. */
#define WINO4_MIN_TILES 40

static atomic_int g_tile; /* tests: 2 or 4 forces the tile; 0: by size */
static atomic_llong g_block_bytes; /* tests: > 0 overrides WINO_BLOCK_BYTES */
static atomic_llong g_last_blocks, g_last_slots;

void tfs_conv__set_winograd_block_bytes(int64_t bytes) {
  atomic_store(&g_block_bytes, bytes > 0 ? bytes : 0);
}

void tfs_conv__winograd_last_split(int64_t *nblocks, int64_t *nslots) {
  *nblocks = atomic_load(&g_last_blocks);
  *nslots = atomic_load(&g_last_slots);
}

void tfs_conv__set_winograd_tile(int tile) {
  atomic_store(&g_tile, tile == 2 || tile == 4 ? tile : 0);
}

int tfs_wino_pick_tile(const tfs_window *w, const tfs_shape *in) {
  int f = atomic_load_explicit(&g_tile, memory_order_relaxed);
  if (f) return f;
  if (in->rank != 4) return 2;
  int64_t n = in->dims[tfs_window_dim(w, 'N')];
  int64_t h = in->dims[tfs_window_dim(w, 'H')];
  int64_t wd = in->dims[tfs_window_dim(w, 'W')];
  if (h <= 0 || wd <= 0) return 2;
  int64_t tiles = (n > 0 ? n : 1) * ((h + 3) / 4) * ((wd + 3) / 4);
  return tiles >= WINO4_MIN_TILES ? 4 : 2;
}

int tfs_wino_tile_open(const tfs_window *w, const tfs_shape *in) {
  if (atomic_load_explicit(&g_tile, memory_order_relaxed) || in->rank != 4 ||
      tfs_wino_pick_tile(w, in) == 4)
    return 0;
  return in->dims[tfs_window_dim(w, 'N')] <= 0 ||
         in->dims[tfs_window_dim(w, 'H')] <= 0 ||
         in->dims[tfs_window_dim(w, 'W')] <= 0;
}

int tfs_wino_call_tile(const conv_geom *g) {
  int64_t tiles = g->n * ((g->h + 3) / 4) * ((g->w + 3) / 4);
  return tiles >= WINO4_MIN_TILES ? 4 : 2;
}

int tfs_wino_filter_fits(const tfs_window *w, int64_t c, int64_t kh,
                         int64_t kw, int64_t kc, int64_t kn) {
  int hd = tfs_window_dim(w, 'H'), wd = tfs_window_dim(w, 'W');
  return tfs_conv_winograd_on() && kh == 3 && kw == 3 && kc == c &&
         kc >= WINO_MIN_DEPTH && kn >= WINO_MIN_DEPTH &&
         w->strides[hd] == 1 &&
         w->strides[wd] == 1 && w->dilations[hd] == 1 &&
         w->dilations[wd] == 1;
}

int tfs_wino_fits(const conv_geom *g) {
  return tfs_conv_winograd_on() && g->kh == 3 && g->kw == 3 &&
         g->groups == 1 && g->kc == g->c && g->kc >= WINO_MIN_DEPTH &&
         g->kn >= WINO_MIN_DEPTH &&
         g->sh == 1 && g->sw == 1 && g->dh == 1 && g->dw == 1 &&
         g->oh >= WINO_MIN_OUT && g->ow >= WINO_MIN_OUT;
}

/* ---- the filter transform ---------------------------------------------- */

/* G of F(2x2, 3x3) (4 x 3) and of F(4x4, 3x3) (6 x 3). */
static const double kG2[4][3] = {
    {1, 0, 0}, {0.5, 0.5, 0.5}, {0.5, -0.5, 0.5}, {0, 0, 1}};
static const double kG4[6][3] = {
    {1.0 / 4, 0, 0},           {-1.0 / 6, -1.0 / 6, -1.0 / 6},
    {-1.0 / 6, 1.0 / 6, -1.0 / 6}, {1.0 / 24, 1.0 / 12, 1.0 / 6},
    {1.0 / 24, -1.0 / 12, 1.0 / 6}, {0, 0, 1}};

tfs_wino_filter *tfs_wino_filter_new(const float *f, int64_t c, int64_t kn,
                                     int tile) {
  const int a = tile == 4 ? 6 : 4, npos = a * a;
  const double(*G)[3] = tile == 4 ? kG4 : kG2;
  tfs_wino_filter *wf = tfs_calloc(1, sizeof *wf);
  float *u = tfs_malloc(sizeof(float) * (size_t)(npos * c * kn));
  if (!wf || !u) goto oom;
  wf->c = c;
  wf->kn = kn;
  wf->tile = a - 2;
  wf->npos = npos;
  for (int64_t q = 0; q < c; q++)
    for (int64_t o = 0; o < kn; o++) {
      double g[3][3], t[6][3];
      for (int r = 0; r < 3; r++)
        for (int b = 0; b < 3; b++) g[r][b] = f[((r * 3 + b) * c + q) * kn + o];
      for (int i = 0; i < a; i++)
        for (int b = 0; b < 3; b++)
          t[i][b] = G[i][0] * g[0][b] + G[i][1] * g[1][b] + G[i][2] * g[2][b];
      for (int i = 0; i < a; i++)
        for (int j = 0; j < a; j++)
          u[((i * a + j) * c + q) * kn + o] =
              (float)(t[i][0] * G[j][0] + t[i][1] * G[j][1] +
                      t[i][2] * G[j][2]);
    }
  for (int p = 0; p < npos; p++) {
    wf->u[p] = tfs_gemm_pack_b_f32(0, c, kn, u + p * c * kn, kn);
    if (!wf->u[p]) goto oom;
  }
  tfs_free(u);
  return wf;
oom:
  tfs_free(u);
  tfs_wino_filter_free(wf);
  return NULL;
}

void tfs_wino_filter_free(tfs_wino_filter *wf) {
  if (!wf) return;
  for (int p = 0; p < wf->npos; p++) tfs_gemm_packed_free(wf->u[p]);
  tfs_free(wf);
}

int64_t tfs_wino_filter_c(const tfs_wino_filter *wf) { return wf->c; }

int tfs_wino_filter_tile(const tfs_wino_filter *wf) { return wf->tile; }

/* ---- F(2x2, 3x3) tile transforms --------------------------------------------
 * Input: channels [c0, c1) of the 16 pixels d[r * 4 + q] (a zero row where
 * the tile leaves the image) to V position p at v + p * ldv.  Output:
 * the 16 products m + p * ldm, channels [c0, c1), to the pixels y[0..3]
 * (NULL past the output's edge).  The portable, AVX2 and AVX-512 forms
 * do the same additions in the same order. */

static void in_scalar(const float *const *d, int64_t c0, int64_t c1,
                      float *v, int64_t ldv) {
  for (int64_t ch = c0; ch < c1; ch++) {
    float t[16];
    for (int j = 0; j < 4; j++) {
      float d0 = d[j][ch], d1 = d[4 + j][ch], d2 = d[8 + j][ch],
            d3 = d[12 + j][ch];
      t[j] = d0 - d2;
      t[4 + j] = d1 + d2;
      t[8 + j] = d2 - d1;
      t[12 + j] = d1 - d3;
    }
    for (int i = 0; i < 4; i++) {
      const float *r = t + 4 * i;
      v[(4 * i + 0) * ldv + ch] = r[0] - r[2];
      v[(4 * i + 1) * ldv + ch] = r[1] + r[2];
      v[(4 * i + 2) * ldv + ch] = r[2] - r[1];
      v[(4 * i + 3) * ldv + ch] = r[1] - r[3];
    }
  }
}

static inline float relu_f(float x) { return x < 0.0f ? 0.0f : x; }

static void out_scalar(const float *m, int64_t ldm, int64_t c0, int64_t c1,
                       float *const *y, const float *bias, int relu) {
  for (int64_t ch = c0; ch < c1; ch++) {
    float s[2][4];
    for (int j = 0; j < 4; j++) {
      float m0 = m[j * ldm + ch], m1 = m[(4 + j) * ldm + ch],
            m2 = m[(8 + j) * ldm + ch], m3 = m[(12 + j) * ldm + ch];
      s[0][j] = m0 + m1 + m2;
      s[1][j] = m1 - m2 - m3;
    }
    for (int i = 0; i < 2; i++) {
      float r[2] = {s[i][0] + s[i][1] + s[i][2], s[i][1] - s[i][2] - s[i][3]};
      for (int j = 0; j < 2; j++) {
        if (!y[2 * i + j]) continue;
        float x = bias ? r[j] + bias[ch] : r[j];
        x = tfs_store_clamps(relu) ? relu_f(x) : x;
        if (relu == TFS_STORE_RELU6 && x > 6.0f) x = 6.0f;
        if (relu == TFS_STORE_HARD_SWISH) x = tfs_hard_swish1(x);
        y[2 * i + j][ch] = x;
      }
    }
  }
}

TGT static void in_avx2(const float *const *d, int64_t ch, int64_t nc,
                        float *v, int64_t ldv) {
  for (; ch + 8 <= nc; ch += 8) {
    __m256 t[16];
    for (int j = 0; j < 4; j++) {
      __m256 d0 = _mm256_loadu_ps(d[j] + ch),
             d1 = _mm256_loadu_ps(d[4 + j] + ch),
             d2 = _mm256_loadu_ps(d[8 + j] + ch),
             d3 = _mm256_loadu_ps(d[12 + j] + ch);
      t[j] = _mm256_sub_ps(d0, d2);
      t[4 + j] = _mm256_add_ps(d1, d2);
      t[8 + j] = _mm256_sub_ps(d2, d1);
      t[12 + j] = _mm256_sub_ps(d1, d3);
    }
    for (int i = 0; i < 4; i++) {
      const __m256 *r = t + 4 * i;
      _mm256_storeu_ps(v + (4 * i + 0) * ldv + ch, _mm256_sub_ps(r[0], r[2]));
      _mm256_storeu_ps(v + (4 * i + 1) * ldv + ch, _mm256_add_ps(r[1], r[2]));
      _mm256_storeu_ps(v + (4 * i + 2) * ldv + ch, _mm256_sub_ps(r[2], r[1]));
      _mm256_storeu_ps(v + (4 * i + 3) * ldv + ch, _mm256_sub_ps(r[1], r[3]));
    }
  }
  in_scalar(d, ch, nc, v, ldv);
}

TGT static void out_avx2(const float *m, int64_t ldm, int64_t ch,
                         int64_t nc, float *const *y, const float *bias,
                         int relu) {
  const __m256 zero = _mm256_setzero_ps();
  for (; ch + 8 <= nc; ch += 8) {
    __m256 s[2][4];
    for (int j = 0; j < 4; j++) {
      __m256 m0 = _mm256_loadu_ps(m + j * ldm + ch),
             m1 = _mm256_loadu_ps(m + (4 + j) * ldm + ch),
             m2 = _mm256_loadu_ps(m + (8 + j) * ldm + ch),
             m3 = _mm256_loadu_ps(m + (12 + j) * ldm + ch);
      s[0][j] = _mm256_add_ps(_mm256_add_ps(m0, m1), m2);
      s[1][j] = _mm256_sub_ps(_mm256_sub_ps(m1, m2), m3);
    }
    __m256 b = bias ? _mm256_loadu_ps(bias + ch) : zero;
    for (int i = 0; i < 2; i++) {
      __m256 r[2] = {
          _mm256_add_ps(_mm256_add_ps(s[i][0], s[i][1]), s[i][2]),
          _mm256_sub_ps(_mm256_sub_ps(s[i][1], s[i][2]), s[i][3])};
      for (int j = 0; j < 2; j++) {
        if (!y[2 * i + j]) continue;
        __m256 x = bias ? _mm256_add_ps(r[j], b) : r[j];
        /* max(0, x) returns x when x is NaN, and -0 for -0 */
        if (tfs_store_clamps(relu)) x = _mm256_max_ps(zero, x);
        if (relu == TFS_STORE_RELU6) x = _mm256_min_ps(_mm256_set1_ps(6.0f), x);
        if (relu == TFS_STORE_HARD_SWISH) x = TFS_HARD_SWISH_VEC(_mm256, x);
        _mm256_storeu_ps(y[2 * i + j] + ch, x);
      }
    }
  }
  out_scalar(m, ldm, ch, nc, y, bias, relu);
}

/* The AVX-512 forms: sixteen channels at a time, the rest as AVX2 does
 * them; the same additions in the same order. */
#define TGT512 __attribute__((target("avx512f,avx2,fma")))

TGT512 static void in_avx512(const float *const *d, int64_t nc, float *v,
                             int64_t ldv) {
  int64_t ch = 0;
  for (; ch + 16 <= nc; ch += 16) {
    __m512 t[16];
    for (int j = 0; j < 4; j++) {
      __m512 d0 = _mm512_loadu_ps(d[j] + ch),
             d1 = _mm512_loadu_ps(d[4 + j] + ch),
             d2 = _mm512_loadu_ps(d[8 + j] + ch),
             d3 = _mm512_loadu_ps(d[12 + j] + ch);
      t[j] = _mm512_sub_ps(d0, d2);
      t[4 + j] = _mm512_add_ps(d1, d2);
      t[8 + j] = _mm512_sub_ps(d2, d1);
      t[12 + j] = _mm512_sub_ps(d1, d3);
    }
    for (int i = 0; i < 4; i++) {
      const __m512 *r = t + 4 * i;
      _mm512_storeu_ps(v + (4 * i + 0) * ldv + ch, _mm512_sub_ps(r[0], r[2]));
      _mm512_storeu_ps(v + (4 * i + 1) * ldv + ch, _mm512_add_ps(r[1], r[2]));
      _mm512_storeu_ps(v + (4 * i + 2) * ldv + ch, _mm512_sub_ps(r[2], r[1]));
      _mm512_storeu_ps(v + (4 * i + 3) * ldv + ch, _mm512_sub_ps(r[1], r[3]));
    }
  }
  in_avx2(d, ch, nc, v, ldv);
}

TGT512 static void out_avx512(const float *m, int64_t ldm, int64_t nc,
                              float *const *y, const float *bias, int relu) {
  const __m512 zero = _mm512_setzero_ps();
  int64_t ch = 0;
  for (; ch + 16 <= nc; ch += 16) {
    __m512 s[2][4];
    for (int j = 0; j < 4; j++) {
      __m512 m0 = _mm512_loadu_ps(m + j * ldm + ch),
             m1 = _mm512_loadu_ps(m + (4 + j) * ldm + ch),
             m2 = _mm512_loadu_ps(m + (8 + j) * ldm + ch),
             m3 = _mm512_loadu_ps(m + (12 + j) * ldm + ch);
      s[0][j] = _mm512_add_ps(_mm512_add_ps(m0, m1), m2);
      s[1][j] = _mm512_sub_ps(_mm512_sub_ps(m1, m2), m3);
    }
    __m512 b = bias ? _mm512_loadu_ps(bias + ch) : zero;
    for (int i = 0; i < 2; i++) {
      __m512 r[2] = {
          _mm512_add_ps(_mm512_add_ps(s[i][0], s[i][1]), s[i][2]),
          _mm512_sub_ps(_mm512_sub_ps(s[i][1], s[i][2]), s[i][3])};
      for (int j = 0; j < 2; j++) {
        if (!y[2 * i + j]) continue;
        __m512 x = bias ? _mm512_add_ps(r[j], b) : r[j];
        /* max(0, x) returns x when x is NaN, and -0 for -0 */
        if (tfs_store_clamps(relu)) x = _mm512_max_ps(zero, x);
        if (relu == TFS_STORE_RELU6) x = _mm512_min_ps(_mm512_set1_ps(6.0f), x);
        if (relu == TFS_STORE_HARD_SWISH) x = TFS_HARD_SWISH_VEC(_mm512, x);
        _mm512_storeu_ps(y[2 * i + j] + ch, x);
      }
    }
  }
  out_avx2(m, ldm, ch, nc, y, bias, relu);
}

/* ---- a run -------------------------------------------------------------- */

typedef struct wino_job {
  const conv_geom *g;
  const tfs_wino_filter *wf;
  const float *in, *zero, *bias;
  float *out;
  int relu, simd;         /* 2: AVX-512, 1: AVX2, 0: portable */
  int tile, alpha, npos;  /* output tile, input tile, positions */
  tfs_conv_done_fn done;
  void *done_arg;
  int64_t tw, th;         /* tiles per strip, strips per image */
  int64_t strips, sper;   /* all strips, the most strips in a block */
  int64_t nblocks, nslots;
  float *scratch;         /* nslots blocks of V then M */
  size_t slot_floats;
  struct tfs_threadpool *pool; /* nslots == 1: the pool for the phases */
} wino_job;

/* Tile t of the block starting at strip s0: its image and top-left
 * output pixel. */
static void tile_at(const wino_job *j, int64_t s0, int64_t t, int64_t *img,
                    int64_t *oy, int64_t *ox) {
  int64_t gs = s0 + t / j->tw;
  *img = gs / j->th;
  *oy = j->tile * (gs % j->th);
  *ox = j->tile * (t % j->tw);
}

/* Tiles [t0, t1) of the nt-tile block starting at strip s0 into V. */
static void block_input(const wino_job *j, int64_t s0, int64_t nt,
                        int64_t t0, int64_t t1, float *v) {
  const conv_geom *g = j->g;
  const int64_t c = g->c;
  for (int64_t t = t0; t < t1; t++) {
    int64_t img, oy, ox;
    tile_at(j, s0, t, &img, &oy, &ox);
    const float *d[NPOS_MAX];
    const int a = j->alpha;
    for (int r = 0; r < a; r++)
      for (int q = 0; q < a; q++) {
        int64_t iy = oy - g->pt + r, ix = ox - g->pl + q;
        d[r * a + q] = iy >= 0 && iy < g->h && ix >= 0 && ix < g->w
                           ? j->in + ((img * g->h + iy) * g->w + ix) * c
                           : j->zero;
      }
    if (j->tile == 4)
      tfs_wino4__in(j->simd, d, c, v + t * c, nt * c);
    else if (j->simd == 2)
      in_avx512(d, c, v + t * c, nt * c);
    else if (j->simd)
      in_avx2(d, 0, c, v + t * c, nt * c);
    else
      in_scalar(d, 0, c, v + t * c, nt * c);
  }
}

/* Tiles [t0, t1) of the block from M to the output. */
static void block_output(const wino_job *j, int64_t s0, int64_t nt,
                         int64_t t0, int64_t t1, const float *m) {
  const conv_geom *g = j->g;
  const int64_t kn = g->kn;
  for (int64_t t = t0; t < t1; t++) {
    int64_t img, oy, ox;
    tile_at(j, s0, t, &img, &oy, &ox);
    float *y[16];
    const int tl = j->tile;
    for (int i = 0; i < tl; i++)
      for (int q = 0; q < tl; q++)
        y[tl * i + q] = oy + i < g->oh && ox + q < g->ow
                            ? j->out + ((img * g->oh + oy + i) * g->ow + ox +
                                        q) * kn
                            : NULL;
    if (tl == 4)
      tfs_wino4__out(j->simd, m + t * kn, nt * kn, kn, y, j->bias, j->relu);
    else if (j->simd == 2)
      out_avx512(m + t * kn, nt * kn, kn, y, j->bias, j->relu);
    else if (j->simd)
      out_avx2(m + t * kn, nt * kn, 0, kn, y, j->bias, j->relu);
    else
      out_scalar(m + t * kn, nt * kn, 0, kn, y, j->bias, j->relu);
  }
}

/* Product p of the block: M_p (nt x kn) = V_p (nt x c) * U_p. */
static void block_product(const wino_job *j, int64_t nt, int p,
                          const float *v, float *m,
                          struct tfs_threadpool *pool) {
  static const int64_t segoff[1] = {0};
  const int64_t c = j->g->c, kn = j->g->kn;
  const tfs_gemm_packed *u = j->wf->u[p];
  const float *a = v + p * nt * c;
  float *mp = m + p * nt * kn;
  tfs_gemm_rowmajor vr = {a, c}; /* the rows of one V matrix */
  tfs_gemm_indirect src = {tfs_gemm_rowmajor_rows, NULL, &vr, segoff, 1, c,
                           NULL,     0,    NULL, a,      c};
  if (!tfs_gemm_indirect_ok(u) ||
      tfs_gemm_f32_indirect(nt, &src, u, mp, kn, pool))
    tfs_gemm_f32_packed(0, nt, 1.0f, a, c, u, 0.0f, mp, kn, pool);
}

/* The epilogue of strips [s0, s1). */
static void block_done(const wino_job *j, int64_t s0, int64_t s1) {
  const conv_geom *g = j->g;
  for (int64_t s = s0; s < s1; s++) {
    int64_t img = s / j->th, oy = j->tile * (s % j->th);
    int64_t rows = oy + j->tile <= g->oh ? j->tile : g->oh - oy;
    j->done(j->done_arg, (img * g->oh + oy) * g->ow, rows * g->ow, 0, g->kn);
  }
}

/* One block's phases split over the pool (a single block: batch 1):
 * tiles, then the products one per task, then tiles and strips. */
typedef struct phase {
  const wino_job *j;
  int64_t s0, nt;
  float *v, *m;
} phase;

static void phase_in(void *arg, int64_t t0, int64_t t1) {
  const phase *ph = arg;
  block_input(ph->j, ph->s0, ph->nt, t0, t1, ph->v);
}

static void phase_mul(void *arg, int64_t p0, int64_t p1) {
  const phase *ph = arg;
  for (int64_t p = p0; p < p1; p++)
    block_product(ph->j, ph->nt, (int)p, ph->v, ph->m, NULL);
}

static void phase_out(void *arg, int64_t t0, int64_t t1) {
  const phase *ph = arg;
  block_output(ph->j, ph->s0, ph->nt, t0, t1, ph->m);
}

static void phase_done(void *arg, int64_t s0, int64_t s1) {
  const phase *ph = arg;
  block_done(ph->j, ph->s0 + s0, ph->s0 + s1);
}

/* Strips [s0, s0 + ns): transform, 16 (36) products, transform back. */
static void run_block(const wino_job *j, int64_t s0, int64_t ns, float *v) {
  const conv_geom *g = j->g;
  const int64_t nt = ns * j->tw, c = g->c, kn = g->kn;
  float *m = v + j->npos * nt * c;
  struct tfs_threadpool *pool = j->pool;
  if (pool) {
    /* a tile's transforms take ~0.25 ns a transform-domain value on one
     * core, as measured (F(4x4) at 28x28x128: 1.4 us a tile in, 1.0 us
     * out; F(2x2) at 14x14x256: 0.65 and 0.6 us): counted as 2 ns a
     * channel, the 49 tiles of either stayed on one thread, the other
     * waiting for ~40% of the node's time on two threads */
    phase ph = {j, s0, nt, v, m};
    tfs_threadpool_parallel_for(pool, nt, j->npos * c / 4 + 1, phase_in,
                                &ph);
    tfs_threadpool_parallel_for(pool, j->npos, tfs_gemm_cost_ns(nt, kn, c),
                                phase_mul, &ph);
    tfs_threadpool_parallel_for(pool, nt, j->npos * kn / 4 + 1, phase_out,
                                &ph);
    if (j->done)
      tfs_threadpool_parallel_for(pool, ns, 2 * j->tile * j->tw * kn,
                                  phase_done, &ph);
    return;
  }
  block_input(j, s0, nt, 0, nt, v);
  for (int p = 0; p < j->npos; p++) block_product(j, nt, p, v, m, NULL);
  block_output(j, s0, nt, 0, nt, m);
  if (j->done) block_done(j, s0, s0 + ns);
}

/* Slot t runs blocks t, t + nslots, ... in its own scratch. */
static void wino_slots(void *arg, int64_t t0, int64_t t1) {
  const wino_job *j = arg;
  for (int64_t t = t0; t < t1; t++) {
    float *v = j->scratch + (size_t)t * j->slot_floats;
    for (int64_t b = t; b < j->nblocks; b += j->nslots) {
      int64_t s0 = j->strips * b / j->nblocks;
      run_block(j, s0, j->strips * (b + 1) / j->nblocks - s0, v);
    }
  }
}

/* Cuts the strips into blocks of at most `want` strips (the cache's
 * limit), their sizes differing by one strip at most (block b starts at
 * strip strips * b / nblocks), and picks the slots.  With at least one
 * such block a thread, the blocks go to one slot a thread, their number
 * rounded up to a multiple of the threads, unless some thread would have
 * more than 10% over an even share of the strips; otherwise one slot,
 * each block split over the pool phase by phase (the products by
 * position: each thread reads its part of U, where a block a thread would
 * have each read all of it).  InceptionV3 at batch 1 on two threads: the
 * 9 strips of 35x35x96 in blocks of 8 + 1 (one thread had 8), 440 us
 * against 470 on one thread, run in phases 306 us; 56x56x64's 14 strips
 * in 8 + 6, 347 us, in 7 + 7 290 us. */
static void wino_blocks(wino_job *j, tfs_kernel_ctx *c, int64_t want) {
  const conv_geom *g = j->g;
  int64_t strip_flops = j->tw * j->npos * g->c * g->kn * 2;
  int64_t nt = tfs_conv_slots(c, j->strips, strip_flops / 32 + 1);
  int64_t nb = (j->strips + want - 1) / want;
  j->nslots = 1;
  if (nt > 1 && nb >= nt) {
    int64_t even = (nb + nt - 1) / nt * nt, most = 0;
    if (even > j->strips) even = j->strips - j->strips % nt;
    for (int64_t t = 0; t < nt; t++) { /* the most strips of any slot */
      int64_t mine = 0;
      for (int64_t b = t; b < even; b += nt)
        mine += j->strips * (b + 1) / even - j->strips * b / even;
      if (mine > most) most = mine;
    }
    if (most * 10 * nt <= 11 * j->strips) {
      nb = even;
      j->nslots = nt;
    }
  }
  j->nblocks = nb;
  j->sper = (j->strips + nb - 1) / nb;
  if (j->nslots == 1) j->pool = tfs_kctx_intra_pool(c);
}

/* Tiles per block: the V and M matrices of a block in about 2 MiB,
 * at least one strip (on Zen 3, 11-15% faster than 1 MiB at 56x56x64
 * and 28x28x128, within 2% at 14x14x256; 4 MiB was slower). */
#define WINO_BLOCK_BYTES (2 << 20)

int tfs_wino_conv_f32(tfs_kernel_ctx *c, const conv_geom *g, const float *in,
                      const tfs_wino_filter *wf, float *out,
                      const float *bias, int relu, tfs_conv_done_fn done,
                      void *done_arg) {
  atomic_fetch_add_explicit(&g_calls, 1, memory_order_relaxed);
  if (wf->tile == 4)
    atomic_fetch_add_explicit(&g_calls4, 1, memory_order_relaxed);
  wino_job j;
  memset(&j, 0, sizeof j);
  j.g = g;
  j.wf = wf;
  j.in = in;
  j.out = out;
  j.bias = bias;
  j.relu = relu;
  j.done = done;
  j.done_arg = done_arg;
  j.simd = tfs_cpu_has(TFS_CPU_ISA_AVX512) ? 2
           : tfs_cpu_has(TFS_CPU_ISA_AVX2) ? 1
                                            : 0;
  j.tile = wf->tile;
  j.alpha = wf->tile + 2;
  j.npos = wf->npos;
  j.tw = (g->ow + j.tile - 1) / j.tile;
  j.th = (g->oh + j.tile - 1) / j.tile;
  j.strips = g->n * j.th;
  int64_t per_tile = j.npos * (g->c + g->kn) * (int64_t)sizeof(float);
  int64_t bytes = atomic_load_explicit(&g_block_bytes, memory_order_relaxed);
  int64_t want = (bytes ? bytes : WINO_BLOCK_BYTES) / per_tile / j.tw;
  if (want < 1) want = 1;
  wino_blocks(&j, c, want);
  atomic_store_explicit(&g_last_blocks, j.nblocks, memory_order_relaxed);
  atomic_store_explicit(&g_last_slots, j.nslots, memory_order_relaxed);
  int64_t flops_block = j.sper * j.tw * j.npos * g->c * g->kn * 2;
  j.slot_floats = (size_t)(j.sper * j.tw * j.npos * (g->c + g->kn));
  float *zero = tfs_kctx_scratch(c, sizeof(float) * (size_t)g->c);
  j.scratch = tfs_kctx_scratch(
      c, sizeof(float) * j.slot_floats * (size_t)j.nslots);
  if (!zero || !j.scratch) return -1;
  memset(zero, 0, sizeof(float) * (size_t)g->c);
  j.zero = zero;
  if (j.nslots <= 1)
    wino_slots(&j, 0, 1);
  else
    tfs_kctx_parallel_for(c, j.nslots, flops_block / 32 + 1, wino_slots, &j);
  return 0;
}
