
-
s0Placeholder*
dtype0	*
shape:
-
s1Placeholder*
dtype0	*
shape:
,
vPlaceholder*
dtype0*
shape:

RaggedTensorToVariantRaggedTensorToVariants0s1v*
RAGGED_RANK*
Tsplits0	*
Tvalues0*
batched_input(:÷NÓ
š
RaggedTensorFromVariantRaggedTensorFromVariantRaggedTensorToVariant*
Tsplits0	*
Tvalues0*
input_ragged_rank*
output_ragged_rank
1
outIdentityRaggedTensorFromVariant*
T0	
5
out_1IdentityRaggedTensorFromVariant:1*
T0	
5
out_2IdentityRaggedTensorFromVariant:2*
T0"ª