/*
 * optimizer/amp_lists.c - auto mixed precision's op lists, TensorFlow's
 * (auto_mixed_precision_lists.h): allow (always worth 16 bits), infer
 * (16 bits between allow ops), deny (keep float32, and taint what follows)
 * and clear (follow their neighbours).  One set serves float16 and
 * bfloat16: the CUDA lists plus the oneDNN list's DepthwiseConv2dNative.
 */
#include <string.h>

#include "optimizer/amp.h"

static const char *const kAllow[] = {
    "BatchMatMul", "BatchMatMulV2",         "BatchMatMulV3",
    "Conv2D",      "Conv2DBackpropFilter",  "Conv2DBackpropInput",
    "Conv3D",      "DepthwiseConv2dNative", "Einsum",
    "MatMul",      "_FusedConv2D",          "_FusedMatMul",
    NULL};

static const char *const kInfer[] = {"Add",
                                     "AddN",
                                     "AddV2",
                                     "AvgPool",
                                     "AvgPool3D",
                                     "BiasAdd",
                                     "Elu",
                                     "Erf",
                                     "Erfc",
                                     "FloorDiv",
                                     "FusedBatchNormV2",
                                     "FusedBatchNormV3",
                                     "Inv",
                                     "LeakyRelu",
                                     "Log",
                                     "Log1p",
                                     "LogSoftmax",
                                     "Mul",
                                     "Prod",
                                     "RealDiv",
                                     "Reciprocal",
                                     "Selu",
                                     "Sigmoid",
                                     "Softmax",
                                     "Softplus",
                                     "Softsign",
                                     "Sqrt",
                                     "Sub",
                                     "Tanh",
                                     "_TfsSwish",
                                     "_TfsGelu",
                                     NULL};

static const char *const kDeny[] = {"Exp",
                                    "Expm1",
                                    "L2Loss",
                                    "Mean",
                                    "Pow",
                                    "SaveV2",
                                    "SoftmaxCrossEntropyWithLogits",
                                    "SparseSoftmaxCrossEntropyWithLogits",
                                    "Sum",
                                    NULL};

static const char *const kClear[] = {"Abs",
                                     "ArgMax",
                                     "ArgMin",
                                     "BatchToSpace",
                                     "BatchToSpaceND",
                                     "BroadcastTo",
                                     "Ceil",
                                     "CheckNumerics",
                                     "ClipByValue",
                                     "Concat",
                                     "ConcatV2",
                                     "DepthToSpace",
                                     "EnsureShape",
                                     "Equal",
                                     "ExpandDims",
                                     "Fill",
                                     "Floor",
                                     "Gather",
                                     "GatherNd",
                                     "GatherV2",
                                     "Greater",
                                     "GreaterEqual",
                                     "Identity",
                                     "IdentityN",
                                     "IsFinite",
                                     "IsNan",
                                     "Less",
                                     "LessEqual",
                                     "Max",
                                     "MaxPool",
                                     "MaxPool3D",
                                     "MaxPoolV2",
                                     "Maximum",
                                     "Min",
                                     "Minimum",
                                     "MirrorPad",
                                     "Neg",
                                     "NotEqual",
                                     "OneHot",
                                     "OnesLike",
                                     "Pack",
                                     "Pad",
                                     "PadV2",
                                     "PreventGradient",
                                     "Rank",
                                     "Relu",
                                     "Relu6",
                                     "Reshape",
                                     "ReverseV2",
                                     "Round",
                                     "Select",
                                     "SelectV2",
                                     "Shape",
                                     "ShapeN",
                                     "Sign",
                                     "Size",
                                     "Slice",
                                     "Snapshot",
                                     "SpaceToBatch",
                                     "SpaceToBatchND",
                                     "SpaceToDepth",
                                     "Split",
                                     "SplitV",
                                     "Squeeze",
                                     "StopGradient",
                                     "StridedSlice",
                                     "Tile",
                                     "TopK",
                                     "TopKV2",
                                     "Transpose",
                                     "Unpack",
                                     "Where",
                                     "ZerosLike",
                                     NULL};

static int in_list(const char *const *list, const char *op) {
  for (; *list; list++)
    if (strcmp(*list, op) == 0) return 1;
  return 0;
}

int tfs_amp__list_of(const char *op) {
  if (in_list(kAllow, op)) return TFS_AMP_ALLOW;
  if (in_list(kInfer, op)) return TFS_AMP_INFER;
  if (in_list(kDeny, op)) return TFS_AMP_DENY;
  if (in_list(kClear, op)) return TFS_AMP_CLEAR;
  return TFS_AMP_UNLISTED;
}
