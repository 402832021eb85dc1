/*
 * backends/cpu/conv_depthwise_simd.h - the depthwise convolution row of
 * conv_depthwise.h written once over a vector of DW_VL floats; included
 * by conv_depthwise_avx512.c and conv_depthwise_avx2.c, which define the
 * vector operations first.
 */

/*
 * The includer defines:
 *   DW_TGT              the target attribute of every function here
 *   DW_VL               floats per vector
 *   DW_V, DW_MASK, DW_IDX  vector, lane mask and lane index types
 *   DW_ZERO()           a zero vector
 *   DW_LOAD(p), DW_STORE(p, v)            whole vectors
 *   DW_LOADM(p, m), DW_STOREM(p, m, v)    the lanes of m (zero elsewhere)
 *   DW_FMA(a, b, c)     a * b + c
 *   DW_MASKN(n)         the first n lanes (0 < n <= DW_VL)
 *   DW_IDXLOAD(u8)      DW_VL lane indices from bytes
 *   DW_PERM(v, idx)     lane i of the result is lane idx[i] of v
 *   DW_ADD(a, b), DW_MUL(a, b), DW_MAX(a, b), DW_MIN(a, b)  maxps /
 *                       minps: the second operand where either is NaN
 *   DW_SET1(x)          x in every lane
 *   DW_KEEPNAN(r, x)    r, with x's lanes where x is NaN
 *   DW_ROW              the name of the row function
 *
 * A row is cut into pixels whose window leaves the image on the left or
 * right (one at a time, each with its own filter columns) and the
 * interior between them (8, then 4, then single pixels with every filter
 * column); filter rows outside the image are dropped for the whole row.
 * Each piece walks the output channels a vector at a time (four for a
 * single pixel), keeping one accumulator per pixel and vector in a
 * register and reusing each filter vector for all its pixels: no branch
 * per element, no read-modify-write of the output.  The bias and Relu /
 * Relu6 / hard-swish of the plan are applied to the accumulators before
 * the store.
 *
 * Rows of the common MobileNet, NASNet and ConvNeXt shapes (3x3, 5x5 and
 * 7x7 filters, stride 1 or 2, no dilation, no multiplier) run dw_pxs
 * instead, the whole row in pieces of 8 and 4 pixels (dw_row_pieces):
 * the filter row's vectors stay in registers and each input column is
 * loaded once for every pixel that reads it (10 loads for the 24 FMAs of
 * 8 pixels of a 3x3 row at stride 1, rather than 27); the pieces at the
 * row's ends skip the input columns outside the image.  Each accumulator
 * sees its taps in the same order on every kind of piece, so the sums
 * are the same.
 */

#define DW_MAXPX 8

/* What the pixels of one call share. */
typedef struct dw_px_args {
  const float *in;   /* input at the first pixel, first tap, channel */
  const float *f;    /* filter at the first tap, output channel */
  float *out;        /* output at the first pixel, output channel */
  int64_t nky, nkx;  /* filter rows and columns inside the image */
  int64_t rstep;     /* input floats between filter rows */
  int64_t kstep;     /* input floats between filter columns */
  int64_t pstep;     /* input floats between output pixels */
  int64_t frstep;    /* filter floats between filter rows */
  int64_t oc;        /* output depth: filter floats between taps, output
                        floats between pixels */
  const float *bias; /* the bias at the first output channel, or NULL */
  int act;           /* TFS_DW_ACT_* */
  int skip_lo, skip_hi; /* dw_pxs at the row's ends: input columns left
                           and right of the image */
} dw_px_args;

/* The plan's epilogue on one output vector; b: the bias vector. */
static inline DW_TGT __attribute__((always_inline)) DW_V dw_epi(
    const dw_px_args *a, DW_V x, DW_V b) {
  if (a->bias) x = DW_ADD(x, b);
  if (a->act == TFS_DW_ACT_HARD_SWISH) { /* tfs_hard_swish1's steps */
    DW_V t = DW_MIN(DW_SET1(6.0f),
                    DW_MAX(DW_ZERO(), DW_ADD(x, DW_SET1(3.0f))));
    x = DW_MUL(x, DW_MUL(t, DW_SET1(1.0f / 6.0f)));
  } else if (a->act != TFS_DW_ACT_NONE) {
    DW_V r = DW_MAX(x, DW_ZERO());
    if (a->act == TFS_DW_ACT_RELU6) r = DW_MIN(r, DW_SET1(6.0f));
    x = DW_KEEPNAN(r, x);
  }
  return x;
}

/* The bias vector of channels v * DW_VL on from a->bias (zero without). */
static inline DW_TGT __attribute__((always_inline)) DW_V dw_bias(
    const dw_px_args *a, int v, int tail, DW_MASK om) {
  if (!a->bias) return DW_ZERO();
  return tail ? DW_LOADM(a->bias, om) : DW_LOAD(a->bias + v * DW_VL);
}

/* nx pixels by nv vectors of channels.  tail: the last, partial output
 * vector (om); expand: a channel multiplier above 1 (input lanes im,
 * permuted by idx); both only with nv == 1.  Constants after inlining. */
static inline DW_TGT __attribute__((always_inline)) void dw_px(
    const int nx, const int nv, const int tail, const int expand,
    const dw_px_args *a, DW_MASK om, DW_MASK im, DW_IDX idx) {
  DW_V acc[DW_MAXPX];
#pragma GCC unroll 8
  for (int q = 0; q < nx * nv; q++) acc[q] = DW_ZERO();
  const float *irow = a->in, *frow = a->f;
  for (int64_t ky = 0; ky < a->nky; ky++) {
    const float *ip = irow, *fp = frow;
    for (int64_t kx = 0; kx < a->nkx; kx++) {
#pragma GCC unroll 4
      for (int v = 0; v < nv; v++) {
        DW_V f = tail ? DW_LOADM(fp, om) : DW_LOAD(fp + v * DW_VL);
#pragma GCC unroll 8
        for (int q = 0; q < nx; q++) {
          const float *x = ip + q * a->pstep + v * DW_VL;
          DW_V in = expand ? DW_PERM(DW_LOADM(x, im), idx)
                           : tail ? DW_LOADM(x, om) : DW_LOAD(x);
          acc[q * nv + v] = DW_FMA(in, f, acc[q * nv + v]);
        }
      }
      ip += a->kstep;
      fp += a->oc;
    }
    irow += a->rstep;
    frow += a->frstep;
  }
#pragma GCC unroll 4
  for (int v = 0; v < nv; v++) {
    DW_V b = dw_bias(a, v, tail, om);
#pragma GCC unroll 8
    for (int q = 0; q < nx; q++) {
      float *o = a->out + q * a->oc + v * DW_VL;
      DW_V y = dw_epi(a, acc[q * nv + v], b);
      if (tail)
        DW_STOREM(o, om, y);
      else
        DW_STORE(o, y);
    }
  }
}

/* nx pixels of one vector of channels with stride S and KW filter
 * columns, no dilation and no multiplier (a->kstep is the depth, a->nkx
 * is KW): input column j of a filter row serves pixel q at filter column
 * j - S * q, so each column is loaded once; the KW filter vectors of the
 * row stay in registers.  tail: the partial last vector (om).  S, KW, nx
 * and tail are constants after inlining. */
static inline DW_TGT __attribute__((always_inline)) void dw_pxs(
    const int S, const int KW, const int nx, const int tail, const int edge,
    const dw_px_args *a, DW_MASK om) {
  DW_V acc[DW_MAXPX];
#pragma GCC unroll 8
  for (int q = 0; q < nx; q++) acc[q] = DW_ZERO();
  const float *irow = a->in, *frow = a->f;
  const int64_t cs = a->kstep;
  for (int64_t ky = 0; ky < a->nky; ky++) {
    DW_V f[7];
#pragma GCC unroll 7
    for (int kx = 0; kx < KW; kx++)
      f[kx] = tail ? DW_LOADM(frow + kx * a->oc, om)
                   : DW_LOAD(frow + kx * a->oc);
    const float *xp = irow; /* one pointer stepped: no index registers */
#pragma GCC unroll 24
    for (int j = 0; j < S * (nx - 1) + KW; j++) {
      /* edge: columns outside the image are no taps at all, as in
       * dw_piece (xp starts at the first column inside) */
      if (edge && (j < a->skip_lo || j >= S * (nx - 1) + KW - a->skip_hi))
        continue;
      DW_V x = tail ? DW_LOADM(xp, om) : DW_LOAD(xp);
      xp += cs;
#pragma GCC unroll 8
      for (int q = 0; q < nx; q++) {
        const int kx = j - S * q;
        if (kx >= 0 && kx < KW) acc[q] = DW_FMA(x, f[kx], acc[q]);
      }
    }
    irow += a->rstep;
    frow += a->frstep;
  }
  DW_V b = dw_bias(a, 0, tail, om);
#pragma GCC unroll 8
  for (int q = 0; q < nx; q++) {
    float *o = a->out + q * a->oc;
    DW_V y = dw_epi(a, acc[q], b);
    if (tail)
      DW_STOREM(o, om, y);
    else
      DW_STORE(o, y);
  }
}

/* The row's geometry, fixed for all its pieces. */
typedef struct dw_row_ctx {
  const tfs_dw_plan *p;
  const float *in;      /* input row of the first filter row, column 0 */
  const float *f;       /* filter row of the first filter row, column 0 */
  float *out;           /* output row, pixel 0, channel 0 */
  int64_t nky, c0, c1;
} dw_row_ctx;

#define DW_PX_CASES(T, E)                                \
  switch (nx) {                                          \
    case 8: dw_px(8, 1, T, E, &a, om, im, idx); break;   \
    case 4: dw_px(4, 1, T, E, &a, om, im, idx); break;   \
    default: dw_px(1, 1, T, E, &a, om, im, idx); break;  \
  }

/* Pixels [ox, ox + nx) (nx 8, 4 or 1) with filter columns [kx0, kx1)
 * inside the image, over the row's channels.  A single pixel takes four
 * whole vectors at a time while it can (four independent sums rather
 * than one chain of dependent FMAs). */
static DW_TGT void dw_piece(const dw_row_ctx *r, int64_t ox, int nx,
                            int64_t kx0, int64_t kx1) {
  const conv_geom *g = r->p->g;
  const int64_t ci = g->c, oc = g->c * g->kn;
  const int expand = g->kn > 1;
  const int64_t ix = ox * g->sw - g->pl + kx0 * g->dw;
  dw_px_args a;
  a.nky = r->nky;
  a.nkx = kx1 > kx0 ? kx1 - kx0 : 0;
  a.rstep = g->dh * g->w * ci;
  a.kstep = g->dw * ci;
  a.pstep = g->sw * ci;
  a.frstep = g->kw * oc;
  a.oc = oc;
  a.act = r->p->act;
  if (a.nkx == 0) a.nky = 0; /* no tap: the pointers are never read */
  DW_MASK om = DW_MASKN(DW_VL), im = om;
  DW_IDX idx = DW_IDXLOAD((const uint8_t[16]){0});
  int64_t o0 = r->c0;
  if (nx == 1 && !expand) {
    int64_t full = r->c1 < oc ? r->c1 : oc - oc % DW_VL;
    for (; o0 + 4 * DW_VL <= full; o0 += 4 * DW_VL) {
      a.in = a.nky ? r->in + ix * ci + o0 : r->p->in;
      a.f = r->f + kx0 * oc + o0;
      a.out = r->out + ox * oc + o0;
      a.bias = r->p->bias ? r->p->bias + o0 : NULL;
      dw_px(1, 4, 0, 0, &a, om, im, idx);
    }
  }
  for (; o0 < r->c1; o0 += DW_VL) {
    const int tail = o0 + DW_VL > oc;
    int64_t ic0 = o0;
    if (tail) om = DW_MASKN((int)(oc - o0));
    if (expand) {
      const tfs_dw_block *b = &r->p->blocks[o0 / DW_VL];
      ic0 = b->ic0;
      im = DW_MASKN(b->cnt);
      idx = DW_IDXLOAD(b->idx);
    } else {
      im = om;
    }
    a.in = a.nky ? r->in + ix * ci + ic0 : r->p->in;
    a.f = r->f + kx0 * oc + o0;
    a.out = r->out + ox * oc + o0;
    a.bias = r->p->bias ? r->p->bias + o0 : NULL;
    if (expand) {
      if (tail) DW_PX_CASES(1, 1) else DW_PX_CASES(0, 1)
    } else {
      if (tail) DW_PX_CASES(1, 0) else DW_PX_CASES(0, 0)
    }
  }
}

/* Pieces over an edge have 4 pixels (dw_piece_fixed sees to it). */
#define DW_PXS_CASES(S, KW)                          \
  if (nx == 8) {                                     \
    if (tail) dw_pxs(S, KW, 8, 1, 0, &a, om);        \
    else dw_pxs(S, KW, 8, 0, 0, &a, om);             \
  } else if (edge) {                                 \
    if (tail) dw_pxs(S, KW, 4, 1, 1, &a, om);        \
    else dw_pxs(S, KW, 4, 0, 1, &a, om);             \
  } else {                                           \
    if (tail) dw_pxs(S, KW, 4, 1, 0, &a, om);        \
    else dw_pxs(S, KW, 4, 0, 0, &a, om);             \
  }

/* 1 when the interior of g runs dw_pxs. */
static inline int dw_fixed_shape(const conv_geom *g) {
  return g->kn == 1 && g->dw == 1 && (g->sw == 1 || g->sw == 2) &&
         (g->kw == 3 || g->kw == 5 || g->kw == 7);
}

static DW_TGT void dw_border(const dw_row_ctx *r, int64_t ox);

/* Pixels [ox, ox + nx) (nx 8 or 4) of a dw_fixed_shape row, whose
 * windows may reach past the image's left or right edge (then the
 * columns outside are skipped, as dw_border skips them). */
static DW_TGT void dw_piece_fixed(const dw_row_ctx *r, int64_t ox, int nx) {
  const conv_geom *g = r->p->g;
  if (r->nky == 0) { /* every filter row in padding */
    dw_piece(r, ox, nx, 0, g->kw);
    return;
  }
  const int64_t oc = g->c;
  int64_t ix = ox * g->sw - g->pl;
  const int64_t last = ix + g->sw * (nx - 1) + g->kw - 1;
  /* a piece spans at most 7 * 2 + 7 columns: larger counts skip all */
  const int skip_lo = ix < 0 ? (int)(-ix < 32 ? -ix : 32) : 0;
  const int64_t over = last - (g->w - 1);
  const int skip_hi = over > 0 ? (int)(over < 32 ? over : 32) : 0;
  const int edge = skip_lo || skip_hi;
  if (edge && nx != 4) { /* not made by DW_ROW: one pixel at a time */
    for (int q = 0; q < nx; q++) dw_border(r, ox + q);
    return;
  }
  ix += skip_lo;
  dw_px_args a;
  a.nky = r->nky;
  a.nkx = g->kw;
  a.rstep = g->dh * g->w * oc;
  a.kstep = oc;
  a.pstep = g->sw * oc;
  a.frstep = g->kw * oc;
  a.oc = oc;
  a.act = r->p->act;
  a.skip_lo = skip_lo;
  a.skip_hi = skip_hi;
  const int sel = (g->sw == 2) * 3 + (g->kw == 5) + 2 * (g->kw == 7);
  DW_MASK om = DW_MASKN(DW_VL);
  for (int64_t o0 = r->c0; o0 < r->c1; o0 += DW_VL) {
    const int tail = o0 + DW_VL > oc;
    if (tail) om = DW_MASKN((int)(oc - o0));
    a.in = r->in + ix * oc + o0;
    a.f = r->f + o0;
    a.out = r->out + ox * oc + o0;
    a.bias = r->p->bias ? r->p->bias + o0 : NULL;
    switch (sel) {
      case 0: DW_PXS_CASES(1, 3) break;
      case 1: DW_PXS_CASES(1, 5) break;
      case 2: DW_PXS_CASES(1, 7) break;
      case 3: DW_PXS_CASES(2, 3) break;
      case 4: DW_PXS_CASES(2, 5) break;
      default: DW_PXS_CASES(2, 7) break;
    }
  }
}

/* 1 when the first and the last four pixels of a row see at least one
 * image column (no piece of dw_piece_fixed then starts or ends outside
 * the image by more than its filter): padding below the filter width. */
static inline int dw_edges_fit(const conv_geom *g) {
  int64_t first_last = 3 * g->sw - g->pl + g->kw - 1; /* piece [0, 4) */
  int64_t last_first = (g->ow - 4) * g->sw - g->pl;   /* piece [ow-4, ow) */
  return g->pl >= 0 && g->pl < g->kw && first_last >= 0 &&
         last_first <= g->w - 1;
}

/* One pixel at the border: the filter columns whose input column lies
 * inside the image. */
static DW_TGT void dw_border(const dw_row_ctx *r, int64_t ox) {
  const conv_geom *g = r->p->g;
  int64_t ix = ox * g->sw - g->pl;
  int64_t kx0 = ix < 0 ? (-ix + g->dw - 1) / g->dw : 0;
  int64_t last = g->w - 1 - ix; /* the furthest column offset inside */
  int64_t kx1 = last < 0 ? 0 : last / g->dw + 1;
  if (kx1 > g->kw) kx1 = g->kw;
  if (kx0 > kx1) kx0 = kx1;
  dw_piece(r, ox, 1, kx0, kx1);
}

/* A dw_fixed_shape row (dw_edges_fit, at least 4 pixels) in pieces only:
 * the left border in the piece [0, 4) over the edge, the interior [lo,
 * hi) in pieces of 8 then 4, what is left of it in a piece of 4 that
 * ends at hi (overlapping pixels done before), the right border in the
 * piece [ow - 4, ow) over the edge.  Pixels computed twice get the same
 * taps in the same order, so the same values.  No pixel is a single, one
 * dependent chain of FMAs for each vector of channels (a 14x14 map with
 * a 5x5 filter had 6 in each row of 14).  One thread of this Xeon, 1x1
 * images: 14x14x672 5x5 96 -> 75 us, 56x56x96 7x7 425 -> 281 us (7x7 had
 * no pieces before), 56x56x144 3x3 162 -> 151 us; batch 8 of NASNet's
 * 56x56x11 7x7 860 -> 435 us.  (On Zen 3, 7x7x960 5x5 84 -> 45 us.) */
static DW_TGT void dw_row_pieces(const dw_row_ctx *r, int64_t lo,
                                 int64_t hi) {
  const int64_t ow = r->p->g->ow;
  const int64_t rs = hi < ow ? ow - 4 : ow; /* the right edge piece */
  int64_t ox = 0;
  if (lo > 0) {
    dw_piece_fixed(r, 0, 4);
    ox = 4;
  }
  for (; ox + 8 <= hi; ox += 8) dw_piece_fixed(r, ox, 8);
  for (; ox + 4 <= hi; ox += 4) dw_piece_fixed(r, ox, 4);
  if (ox < hi && ox < rs) {
    if (hi - 4 >= lo)
      dw_piece_fixed(r, hi - 4, 4);
    else /* an interior under 4 pixels: singles up to the right piece */
      for (; ox < hi && ox < rs; ox++) dw_border(r, ox);
  }
  if (rs < ow) dw_piece_fixed(r, rs, 4);
}

DW_TGT void DW_ROW(const tfs_dw_plan *p, int64_t row, int64_t c0,
                   int64_t c1) {
  const conv_geom *g = p->g;
  const int64_t ci = g->c, oc = g->c * g->kn;
  const int64_t b = row / g->oh, oy = row % g->oh;
  /* filter rows [ky0, ky1) fall inside the image */
  const int64_t iy = oy * g->sh - g->pt;
  int64_t ky0 = iy < 0 ? (-iy + g->dh - 1) / g->dh : 0;
  int64_t lasty = g->h - 1 - iy;
  int64_t ky1 = lasty < 0 ? 0 : lasty / g->dh + 1;
  if (ky1 > g->kh) ky1 = g->kh;
  if (ky0 > ky1) ky0 = ky1;
  dw_row_ctx r;
  r.p = p;
  r.nky = ky1 - ky0;
  r.in = r.nky ? p->in + ((b * g->h + iy + ky0 * g->dh) * g->w) * ci : p->in;
  r.f = p->filt + ky0 * g->kw * oc;
  r.out = p->out + row * g->ow * oc;
  r.c0 = c0;
  r.c1 = c1;
  /* interior: columns ox * sw - pl >= 0 and ox * sw - pl + (kw - 1) * dw
   * <= w - 1 */
  int64_t lo = (g->pl + g->sw - 1) / g->sw;
  int64_t room = g->w - 1 - (g->kw - 1) * g->dw + g->pl;
  int64_t hi = room < 0 ? 0 : room / g->sw + 1;
  if (lo > g->ow) lo = g->ow;
  if (hi > g->ow) hi = g->ow;
  if (hi < lo) hi = lo;
  int64_t ox = 0;
  if (dw_fixed_shape(g) && g->ow >= 4 && dw_edges_fit(g)) {
    dw_row_pieces(&r, lo, hi);
    return;
  }
  for (; ox < lo; ox++) dw_border(&r, ox);
  if (dw_fixed_shape(g)) {
    for (; ox + 8 <= hi; ox += 8) dw_piece_fixed(&r, ox, 8);
    for (; ox + 4 <= hi; ox += 4) dw_piece_fixed(&r, ox, 4);
  }
  for (; ox + 8 <= hi; ox += 8) dw_piece(&r, ox, 8, 0, g->kw);
  for (; ox + 4 <= hi; ox += 4) dw_piece(&r, ox, 4, 0, g->kw);
  for (; ox < hi; ox++) dw_piece(&r, ox, 1, 0, g->kw);
  for (; ox < g->ow; ox++) dw_border(&r, ox);
}
