/*
 * core/shape.h - partial shapes: a rank (-1 when unknown) and dims (-1 when
 * unknown), printed as TensorFlow prints them ("[?,3]", "<unknown>", "[]").
 */
#ifndef TFS_CORE_SHAPE_H
#define TFS_CORE_SHAPE_H

#include <stdint.h>

#include "tfsess/status.h"
#include "tfsess/tensor.h"

typedef struct tfs_shape {
  int32_t rank;                  /* -1: unknown rank */
  int64_t dims[TFS_MAX_RANK];    /* -1: unknown dim */
} tfs_shape;

/* Room for any shape's text, NUL included. */
#define TFS_SHAPE_STRLEN 400

static inline void tfs_shape_unknown(tfs_shape *s) { s->rank = -1; }
static inline void tfs_shape_scalar(tfs_shape *s) { s->rank = 0; }

/* Sets a fully or partially known shape (dims may hold -1).  Returns 0, or
 * -1 with INVALID_ARGUMENT for a rank above TFS_MAX_RANK or a dim < -1. */
int tfs_shape_set(tfs_shape *s, const int64_t *dims, int rank,
                  tfs_status *st);
/* Rank-1 shape {d0} etc. without checks. */
void tfs_shape_1d(tfs_shape *s, int64_t d0);
void tfs_shape_2d(tfs_shape *s, int64_t d0, int64_t d1);
/* Known rank, every dim unknown. */
void tfs_shape_unknown_dims(tfs_shape *s, int rank);

int tfs_shape_is_fully_defined(const tfs_shape *s);

/* Element count of a fully defined shape; -1 if some dim is unknown or the
 * product overflows int64. */
int64_t tfs_shape_num_elements(const tfs_shape *s);

/* Element count with an error that names the shape on overflow. */
int tfs_shape_num_elements_checked(const tfs_shape *s, int64_t *out,
                                   tfs_status *st);

int tfs_shape_equal(const tfs_shape *a, const tfs_shape *b);

/* Non-zero when a concrete shape `full` is allowed by partial `p`. */
int tfs_shape_is_compatible(const tfs_shape *p, const tfs_shape *full);

/* Merges two partial shapes into *out (most specific); -1 if they
 * conflict. */
int tfs_shape_merge(const tfs_shape *a, const tfs_shape *b, tfs_shape *out);

/* Numpy broadcasting of two (partial) shapes; -1 if incompatible. */
int tfs_shape_broadcast(const tfs_shape *a, const tfs_shape *b,
                        tfs_shape *out);

/* Text of a shape into buf (cap >= TFS_SHAPE_STRLEN is always enough);
 * returns buf. */
const char *tfs_shape_str(const tfs_shape *s, char *buf, size_t cap);

/* Text of dims[0..rank) ("[2,3]"). */
const char *tfs_dims_str(const int64_t *dims, int rank, char *buf,
                         size_t cap);

#endif
