/*
 * tfsess/tfsess.h - the whole public API of tfsess, a TensorFlow-1-style
 * graph engine in C.  Include this one header.
 */
#ifndef TFSESS_TFSESS_H
#define TFSESS_TFSESS_H

#include "buffer.h"
#include "callable.h"
#include "common.h"
#include "device.h"
#include "dtype.h"
#include "eager.h"
#include "function.h"
#include "gradients.h"
#include "graph.h"
#include "graphdef.h"
#include "checkpoint.h"
#include "io.h"
#include "mpi.h"
#include "ops.h"
#include "optimizer.h"
#include "saved_model.h"
#include "saver.h"
#include "session.h"
#include "status.h"
#include "tensor.h"

#endif /* TFSESS_TFSESS_H */
