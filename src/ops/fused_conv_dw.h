/*
 * ops/fused_conv_dw.h - the attributes of _TfsFusedConv2DDepthwise, a
 * _FusedConv2D whose output only feeds a _FusedDepthwiseConv2dNative
 * (ops_fused.c): the convolution's attributes under their own names, the
 * depthwise convolution's with a "dw_" prefix.
 */
#ifndef TFS_OPS_FUSED_CONV_DW_H
#define TFS_OPS_FUSED_CONV_DW_H

#include "core/attr_value.h"

/* The depthwise convolution's attributes of a _TfsFusedConv2DDepthwise
 * as _FusedDepthwiseConv2dNative's: every "dw_X" of `a` as "X", and T
 * and data_format as they are.  *out is initialised here and owned by
 * the caller (tfs_attrs_clear).  Returns 0, or -1 on OOM. */
int tfs_fused_conv_dw_attrs(const tfs_attrs *a, tfs_attrs *out);

#endif
