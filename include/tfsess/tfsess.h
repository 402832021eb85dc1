/*
 * tfsess/tfsess.h - the whole public API of tfsess, a TensorFlow-1-style
 * graph engine in C.  Include this one header.
 */
#ifndef TFSESS_TFSESS_H
#define TFSESS_TFSESS_H

#include "buffer.h"
#include "common.h"
#include "dtype.h"
#include "graph.h"
#include "graphdef.h"
#include "ops.h"
#include "session.h"
#include "status.h"
#include "tensor.h"

#endif /* TFSESS_TFSESS_H */
