
-
s0Placeholder*
dtype0	*
shape:
,
vPlaceholder*
dtype0*
shape:
‰
RaggedTensorToVariantRaggedTensorToVariants0v*
RAGGED_RANK*
Tsplits0	*
Tvalues0*
batched_input(:÷NÒ
<
ConstConst*
dtype0*
valueB:
ÿÿÿÿÿÿÿÿÿ
I
rank_unknownPlaceholderWithDefaultConst*
dtype0*
shape:
N
ReshapeReshapeRaggedTensorToVariantrank_unknown*
Tshape0*
T0
Œ
RaggedTensorFromVariantRaggedTensorFromVariantReshape*
Tsplits0	*
Tvalues0*
input_ragged_rank*
output_ragged_rank
1
outIdentityRaggedTensorFromVariant*
T0	
5
out_1IdentityRaggedTensorFromVariant:1*
T0"ª