
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
dtype0*
shape:
,
iPlaceholder*
dtype0*
shape:
Œ
RaggedGatherRaggedGathers0s1vi*
OUTPUT_RAGGED_RANK*
PARAMS_RAGGED_RANK*
Tindices0*
Tsplits0	*
Tvalues0
&
outIdentityRaggedGather*
T0	
*
out_1IdentityRaggedGather:1*
T0	
*
out_2IdentityRaggedGather:2*
T0	
*
out_3IdentityRaggedGather:3*
T0"ª