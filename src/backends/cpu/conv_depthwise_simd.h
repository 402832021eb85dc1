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
 *   DW_ROW              the name of the row function
 *
 * A row is cut into pixels whose window leaves the image on the left or
 * right (one at a time, each with its own filter columns) and the
 * interior between them (8, then 4, then single pixels with every filter
 * column); filter rows outside the image are dropped for the whole row.
 * Each piece walks the output channels a vector at a time (four for a
 * single pixel), keeping one accumulator per pixel and vector in a
 * register and reusing each filter vector for all its pixels: no branch
 * per element, no read-modify-write of the output.
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
} dw_px_args;

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
#pragma GCC unroll 8
  for (int q = 0; q < nx; q++) {
#pragma GCC unroll 4
    for (int v = 0; v < nv; v++) {
      float *o = a->out + q * a->oc + v * DW_VL;
      if (tail)
        DW_STOREM(o, om, acc[q * nv + v]);
      else
        DW_STORE(o, acc[q * nv + v]);
    }
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
    if (expand) {
      if (tail) DW_PX_CASES(1, 1) else DW_PX_CASES(0, 1)
    } else {
      if (tail) DW_PX_CASES(1, 0) else DW_PX_CASES(0, 0)
    }
  }
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
  for (; ox < lo; ox++) dw_border(&r, ox);
  for (; ox + 8 <= hi; ox += 8) dw_piece(&r, ox, 8, 0, g->kw);
  for (; ox + 4 <= hi; ox += 4) dw_piece(&r, ox, 4, 0, g->kw);
  for (; ox < hi; ox++) dw_piece(&r, ox, 1, 0, g->kw);
  for (; ox < g->ow; ox++) dw_border(&r, ox);
}
